"""Hugging Face folders made by `save_pretrained`: ViTForImageClassification,
DeiTForImageClassification(WithTeacher), Dinov2ForImageClassification and
Dinov2WithRegistersForImageClassification (config.json + pytorch_model.bin or
model.safetensors, preprocessor_config.json when present).

Keys are renamed to timm's; the separate query/key/value Linears are stacked into timm's
fused qkv (rows [q|k|v], as timm's checkpoint converters do). DINOv2 adds the position
embedding to cls and patches and inserts the registers afterwards: in timm's terms that is
`no_embed_class` with the cls token's position folded into the token (the same sum the
model forms)."""
import re
from typing import Mapping, Optional

import torch

from ..config import ViTConfig
from ..errors import CheckpointMismatch
from .common import (Checkpoint, Options, block_count, check_tensors, class_names, contradiction,
                     grid_of, head_count, preprocess, unmatched)

# model_type -> (key prefix of the backbone, the library's LayerNorm eps default)
_MODELS = {"vit": ("vit.", 1e-12), "deit": ("deit.", 1e-12), "dinov2": ("dinov2.", 1e-6),
           "dinov2_with_registers": ("dinov2_with_registers.", 1e-6)}
_ACTS = {"gelu": "gelu", "gelu_new": "gelu_tanh", "gelu_pytorch_tanh": "gelu_tanh",
         "quick_gelu": "quickgelu"}
# PIL's resampling numbers, as the image processors store them
_RESAMPLE = {2: "bilinear", 3: "bicubic"}
_LAYER = {  # per block: HF name -> timm name
    "layernorm_before": "norm1", "layernorm_after": "norm2", "norm1": "norm1", "norm2": "norm2",
    "attention.output.dense": "attn.proj", "intermediate.dense": "mlp.fc1", "output.dense": "mlp.fc2",
    "mlp.fc1": "mlp.fc1", "mlp.fc2": "mlp.fc2",
    "layer_scale1.lambda1": "ls1.gamma", "layer_scale2.lambda1": "ls2.gamma",
}
_EMBEDDINGS = {"cls_token": "cls_token", "distillation_token": "dist_token",
               "register_tokens": "reg_token", "position_embeddings": "pos_embed",
               "patch_embeddings.projection.weight": "patch_embed.proj.weight",
               "patch_embeddings.projection.bias": "patch_embed.proj.bias"}
_HEADS = {"classifier": "head", "cls_classifier": "head", "distillation_classifier": "head_dist"}


def is_hf(config: Optional[dict]) -> bool:
    return bool(config) and ("model_type" in config or "architectures" in config)


def read(state_dict: Mapping, config: dict, preprocessor: Optional[dict], options: Options,
         name: str) -> Checkpoint:
    model_type = config.get("model_type")
    if model_type not in _MODELS:
        raise CheckpointMismatch(f"Hugging Face model_type {model_type!r} is not supported "
                                 f"({', '.join(_MODELS)})")
    prefix, default_eps = _MODELS[model_type]
    sd = _rename(state_dict, prefix)
    if "head.weight" not in sd:
        raise CheckpointMismatch("the Hugging Face checkpoint has no classifier: save an "
                                 "*ForImageClassification model, not the bare backbone")
    d, _, p, _ = sd["patch_embed.proj.weight"].shape
    _agree(config, "hidden_size", d, "the patch embedding's width")
    _agree(config, "patch_size", p, "the patch embedding's kernel")
    depth = block_count(sd, r"blocks\.(\d+)\.")
    _agree(config, "num_hidden_layers", depth, "encoder layers")
    if depth:
        _agree(config, "intermediate_size", sd["blocks.0.mlp.fc1.weight"].shape[0], "the MLP's width")
    classes = sd["head.weight"].shape[0]
    id2label = {int(k): v for k, v in (config.get("id2label") or {}).items()}
    if id2label and len(id2label) != classes:
        raise contradiction("config.json", "id2label with", len(id2label), classes, "classifier rows")
    dinov2 = model_type.startswith("dinov2")
    registers = sd["reg_token"].shape[1] if "reg_token" in sd else 0
    _agree(config, "num_register_tokens", registers, "register tokens")
    has_dist = "dist_token" in sd
    prefix_with_pos = 1 + int(has_dist)  # cls (+ dist); DINOv2's registers have no position
    size = config.get("image_size")
    size = (size, size) if isinstance(size, int) else tuple(size) if size else None
    patches = sd["pos_embed"].shape[1] - prefix_with_pos
    if dinov2 and size and (size[0] // p) * (size[1] // p) != patches:
        # DINOv2's configs say 518 and its processors crop 224: the model interpolates the
        # position embedding; the exported graph runs at the embedding's own grid.
        size = None
    grid = grid_of(patches, size, p)
    if dinov2:  # no_embed_class with cls's position folded in (module docstring)
        sd["cls_token"] = sd["cls_token"] + sd["pos_embed"][:, :1]
        sd["pos_embed"] = sd["pos_embed"][:, 1:]
    act = options.act or _ACTS.get(config.get("hidden_act", "gelu"))
    if act is None:
        raise CheckpointMismatch(f"hidden_act {config.get('hidden_act')!r} is not supported "
                                 f"({', '.join(_ACTS)})")
    if "blocks.0.mlp.weights_in.weight" in sd:
        raise CheckpointMismatch("DINOv2 with a SwiGLU MLP (use_swiglu_ffn) is not supported")
    pool = "cls+avg" if dinov2 else "cls+dist" if "head_dist.weight" in sd else "cls"
    cfg = ViTConfig(
        name=options.name or name, depth=depth, embed_dim=d, patch_size=p,
        heads=head_count(d, options, config.get("num_attention_heads")),
        image_size=(grid[0] * p, grid[1] * p), num_classes=classes, distilled=has_dist,
        mlp_ratio=sd["blocks.0.mlp.fc1.weight"].shape[0] / d if depth else 4.0,
        ln_eps=options.eps or config.get("layer_norm_eps", default_eps),
        qkv_bias="blocks.0.attn.qkv.bias" in sd, pool=pool, registers=registers,
        no_embed_class=dinov2, layer_scale="blocks.0.ls1.gamma" in sd, act=act)
    tensors = check_tensors(cfg, sd, f"Hugging Face {model_type} checkpoint")
    library = "Hugging Face " + ",".join(config.get("architectures") or [model_type])
    return Checkpoint(library, cfg, tensors, _preprocess(cfg, preprocessor or {}, options),
                      class_names(classes, options, id2label))


def _agree(config: dict, field: str, found: int, what: str) -> None:
    if field in config and config[field] != found:
        raise contradiction("config.json", field, config[field], found, what)


def _rename(state_dict: Mapping, prefix: str) -> dict:
    """timm names; query/key/value stacked into qkv; mask_token (unused) dropped."""
    out, qkv, left = {}, {}, []
    for key, value in state_dict.items():
        short = key[len(prefix):] if key.startswith(prefix) else key
        m = re.fullmatch(r"encoder\.layer\.(\d+)\.(.+)\.(weight|bias|lambda1)", short)
        if m:
            b, part, kind = m.groups()
            qkv_part = re.fullmatch(r"attention\.attention\.(query|key|value)", part)
            if qkv_part:
                qkv.setdefault((b, kind), {})[qkv_part.group(1)] = value
                continue
            if kind == "lambda1" and f"{part}.lambda1" in _LAYER:
                out[f"blocks.{b}.{_LAYER[part + '.lambda1']}"] = value
                continue
            if part in _LAYER:
                out[f"blocks.{b}.{_LAYER[part]}.{kind}"] = value
                continue
        elif short.startswith("embeddings.") and short[len("embeddings."):] in _EMBEDDINGS:
            out[_EMBEDDINGS[short[len("embeddings."):]]] = value
            continue
        elif short in ("layernorm.weight", "layernorm.bias"):
            out["norm." + short.split(".")[1]] = value
            continue
        elif short.split(".")[0] in _HEADS and short.count(".") == 1:
            out[_HEADS[short.split(".")[0]] + "." + short.split(".")[1]] = value
            continue
        elif short == "embeddings.mask_token":
            continue  # masked-image-modelling only
        left.append(key)
    if left:
        raise unmatched(left, "Hugging Face checkpoint")
    for (b, kind), parts in qkv.items():
        if set(parts) != {"query", "key", "value"}:
            raise CheckpointMismatch(f"layer {b} lacks attention {kind} of "
                                     f"{', '.join(sorted({'query', 'key', 'value'} - set(parts)))}")
        out[f"blocks.{b}.attn.qkv.{kind}"] = torch.cat([parts["query"], parts["key"], parts["value"]], 0)
    if "reg_token" in out and out["reg_token"].dim() == 2:
        out["reg_token"] = out["reg_token"][None]
    return out


def _preprocess(cfg: ViTConfig, proc: dict, options: Options):
    """The image processor's settings: ViTImageProcessor resizes straight to `size`;
    BitImageProcessor (DINOv2) and DeiTImageProcessor resize then centre-crop."""
    interpolation = _RESAMPLE.get(proc.get("resample"))
    mean, std = proc.get("image_mean"), proc.get("image_std")
    crop = proc.get("crop_size") if proc.get("do_center_crop") else None
    size = proc.get("size") or {}
    if crop:
        crop = (crop["height"], crop["width"]) if isinstance(crop, dict) and "height" in crop else None
        short = size.get("shortest_edge") or size.get("height") if isinstance(size, dict) else size
        if crop and crop == tuple(cfg.image_size) and short:
            return preprocess(cfg.image_size, options, mean, std, None, interpolation, short_side=short)
    return preprocess(cfg.image_size, options, mean, std, None, interpolation, exact_resize=True)
