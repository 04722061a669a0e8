"""Checkpoints in the libraries' own layouts, written from a timm-keyed state dict with
the key names and config formats the libraries document (timm 1.0, transformers 4.48,
torchvision 0.14; ../shared/reference/LAYOUTS.md): the inverse of models/exporter/layouts."""
import json
import struct
from pathlib import Path

import torch

_DTYPES = {torch.float32: "F32", torch.float16: "F16", torch.int64: "I64"}


def write_safetensors(path: Path, tensors: dict) -> None:
    """The format written by hand (header length, JSON header, buffers), as the reader reads it."""
    header, chunks, offset = {"__metadata__": {"format": "pt"}}, [], 0
    for name, t in tensors.items():
        raw = t.detach().contiguous().numpy().tobytes()
        header[name] = {"dtype": _DTYPES[t.dtype], "shape": list(t.shape),
                        "data_offsets": [offset, offset + len(raw)]}
        chunks.append(raw)
        offset += len(raw)
    text = json.dumps(header).encode()
    Path(path).write_bytes(struct.pack("<Q", len(text)) + text + b"".join(chunks))


def _save(folder: Path, tensors: dict, safetensors: bool) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    if safetensors:
        write_safetensors(folder / "model.safetensors", tensors)
    else:
        torch.save(tensors, folder / "pytorch_model.bin")


def _blocks(sd):
    return sorted({int(k.split(".")[1]) for k in sd if k.startswith("blocks.")})


def hf_state_dict(sd: dict, model_type: str, teacher: bool = False) -> dict:
    """HF names for a timm-keyed ViT/DeiT/DINOv2 state dict (DINOv2: `sd` in HF's own
    token convention, pos_embed over cls + patches, reg_token apart)."""
    base = {"vit": "vit.", "deit": "deit.", "dinov2": "dinov2.",
            "dinov2_with_registers": "dinov2_with_registers."}[model_type]
    dinov2 = model_type.startswith("dinov2")
    out = {base + "embeddings.cls_token": sd["cls_token"],
           base + "embeddings.position_embeddings": sd["pos_embed"],
           base + "embeddings.patch_embeddings.projection.weight": sd["patch_embed.proj.weight"],
           base + "embeddings.patch_embeddings.projection.bias": sd["patch_embed.proj.bias"],
           base + "layernorm.weight": sd["norm.weight"], base + "layernorm.bias": sd["norm.bias"]}
    if "dist_token" in sd:
        out[base + "embeddings.distillation_token"] = sd["dist_token"]
    if "reg_token" in sd:
        out[base + "embeddings.register_tokens"] = sd["reg_token"]
    if dinov2:
        out[base + "embeddings.mask_token"] = torch.zeros(1, sd["cls_token"].shape[-1])
    if teacher:
        out.update({"cls_classifier.weight": sd["head.weight"], "cls_classifier.bias": sd["head.bias"],
                    "distillation_classifier.weight": sd["head_dist.weight"],
                    "distillation_classifier.bias": sd["head_dist.bias"]})
    else:
        out.update({"classifier.weight": sd["head.weight"], "classifier.bias": sd["head.bias"]})
    names = ({"norm1": "norm1", "norm2": "norm2", "mlp.fc1": "mlp.fc1", "mlp.fc2": "mlp.fc2"} if dinov2 else
             {"norm1": "layernorm_before", "norm2": "layernorm_after", "mlp.fc1": "intermediate.dense",
              "mlp.fc2": "output.dense"})
    names["attn.proj"] = "attention.output.dense"
    for b in _blocks(sd):
        src, dst = f"blocks.{b}.", f"{base}encoder.layer.{b}."
        for timm_name, hf_name in names.items():
            for kind in ("weight", "bias"):
                out[f"{dst}{hf_name}.{kind}"] = sd[f"{src}{timm_name}.{kind}"]
        for kind in ("weight", "bias"):
            for part, t in zip(("query", "key", "value"), sd[f"{src}attn.qkv.{kind}"].chunk(3, 0)):
                out[f"{dst}attention.attention.{part}.{kind}"] = t.clone()
        if f"{src}ls1.gamma" in sd:
            out[f"{dst}layer_scale1.lambda1"] = sd[f"{src}ls1.gamma"]
            out[f"{dst}layer_scale2.lambda1"] = sd[f"{src}ls2.gamma"]
    return out


def write_hf(folder: Path, sd: dict, model_type: str, heads: int, image_size: int, eps: float,
             architecture: str, teacher: bool = False, labels=None, safetensors: bool = True,
             processor: dict = None, **extra_config) -> Path:
    d = sd["patch_embed.proj.weight"].shape[0]
    config = {"architectures": [architecture], "model_type": model_type, "hidden_size": d,
              "num_hidden_layers": len(_blocks(sd)), "num_attention_heads": heads,
              "intermediate_size": sd["blocks.0.mlp.fc1.weight"].shape[0], "hidden_act": "gelu",
              "layer_norm_eps": eps, "image_size": image_size,
              "patch_size": sd["patch_embed.proj.weight"].shape[-1], "num_channels": 3, "qkv_bias": True,
              **extra_config}
    if labels:
        config["id2label"] = {str(i): n for i, n in enumerate(labels)}
        config["label2id"] = {n: i for i, n in enumerate(labels)}
    _save(folder, hf_state_dict(sd, model_type, teacher), safetensors)
    (folder / "config.json").write_text(json.dumps(config, indent=2))
    if processor:
        (folder / "preprocessor_config.json").write_text(json.dumps(processor, indent=2))
    return folder


def write_timm_hub(folder: Path, sd: dict, architecture: str, model_args: dict, pretrained_cfg: dict,
                   label_names=None, safetensors: bool = True) -> Path:
    config = {"architecture": architecture, "num_classes": sd["head.weight"].shape[0],
              "num_features": sd["patch_embed.proj.weight"].shape[0],
              "global_pool": model_args.get("global_pool", "token"),
              "model_args": model_args, "pretrained_cfg": pretrained_cfg}
    if label_names:
        config["label_names"] = list(label_names)
    _save(folder, sd, safetensors)
    (folder / "config.json").write_text(json.dumps(config, indent=2))
    return folder


def torchvision_state_dict(sd: dict) -> dict:
    out = {"class_token": sd["cls_token"], "conv_proj.weight": sd["patch_embed.proj.weight"],
           "conv_proj.bias": sd["patch_embed.proj.bias"], "encoder.pos_embedding": sd["pos_embed"],
           "encoder.ln.weight": sd["norm.weight"], "encoder.ln.bias": sd["norm.bias"],
           "heads.head.weight": sd["head.weight"], "heads.head.bias": sd["head.bias"]}
    parts = {"norm1": "ln_1.", "norm2": "ln_2.", "attn.proj": "self_attention.out_proj.",
             "attn.qkv": "self_attention.in_proj_", "mlp.fc1": "mlp.0.", "mlp.fc2": "mlp.3."}
    for b in _blocks(sd):
        for timm_name, tv_name in parts.items():
            for kind in ("weight", "bias"):
                out[f"encoder.layers.encoder_layer_{b}.{tv_name}{kind}"] = sd[f"blocks.{b}.{timm_name}.{kind}"]
    return out


def random_checkpoint(cfg, seed: int = 0) -> dict:
    """Random timm-keyed weights for every tensor of cfg's layout (params.param_shapes):
    norms and LayerScale around 1, the rest small, as trained ViTs have them."""
    from models.exporter.params import param_shapes

    g = torch.Generator().manual_seed(seed)
    sd = {}
    for key, shape in param_shapes(cfg).items():
        t = torch.randn(*shape, generator=g)
        scaled = key.endswith((".gamma",)) or (key.endswith("weight") and len(shape) == 1)
        sd[key] = 1 + 0.2 * t if scaled else 0.3 * t
    return sd
