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
from .fields import Fields, dims

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
# ViTConfig's, DeiTConfig's and Dinov2Config's num_attention_heads when a config omits it
_DEFAULT_HEADS = 12


def is_hf(config: Optional[dict]) -> bool:
    return bool(config) and ("model_type" in config or "architectures" in config)


def read(state_dict: Mapping, config: dict, preprocessor: Optional[dict], options: Options,
         name: str) -> Checkpoint:
    config = Fields(config, "config.json")
    model_type = config.str("model_type")
    if model_type not in _MODELS:
        raise CheckpointMismatch(f"Hugging Face model_type {model_type!r} is not supported "
                                 f"({', '.join(_MODELS)})")
    prefix, default_eps = _MODELS[model_type]
    what = f"Hugging Face {model_type} checkpoint"
    sd = _rename(state_dict, prefix)
    if "head.weight" not in sd:
        raise CheckpointMismatch("the Hugging Face checkpoint has no classifier: save an "
                                 "*ForImageClassification model, not the bare backbone")
    d, _, p, _ = dims(sd, "patch_embed.proj.weight", 4, what)
    _agree(config, "hidden_size", d, "the patch embedding's width")
    _agree(config, "patch_size", p, "the patch embedding's kernel")
    depth = block_count(sd, r"blocks\.(\d+)\.")
    _agree(config, "num_hidden_layers", depth, "encoder layers")
    mlp = dims(sd, "blocks.0.mlp.fc1.weight", 2, what)[0] if depth else 0
    if depth:
        _agree(config, "intermediate_size", mlp, "the MLP's width")
    classes = dims(sd, "head.weight", 2, what)[0]
    id2label = _id2label(config)
    if id2label and sorted(id2label) != list(range(classes)):
        raise contradiction("config.json", "id2label with", f"{len(id2label)} classes", classes, "classifier rows")
    dinov2 = model_type.startswith("dinov2")
    registers = dims(sd, "reg_token", 3, what)[1] if "reg_token" in sd else 0
    _agree(config, "num_register_tokens", registers, "register tokens")
    has_dist = "dist_token" in sd
    prefix_with_pos = 1 + int(has_dist)  # cls (+ dist); DINOv2's registers have no position
    size = config.size("image_size")
    patches = dims(sd, "pos_embed", 3, what)[1] - prefix_with_pos
    if dinov2 and size and (size[0] // p) * (size[1] // p) != patches:
        # DINOv2's configs say 518 and its processors crop 224: the model interpolates the
        # position embedding; the exported graph runs at the embedding's own grid.
        size = None
    grid = grid_of(patches, size, p)
    if dinov2:  # no_embed_class with cls's position folded in (module docstring)
        sd["cls_token"] = sd["cls_token"] + sd["pos_embed"][:, :1]
        sd["pos_embed"] = sd["pos_embed"][:, 1:]
    act = options.act or _ACTS.get(config.str("hidden_act", "gelu"))
    if act is None:
        raise CheckpointMismatch(f"hidden_act {config.str('hidden_act')!r} is not supported "
                                 f"({', '.join(_ACTS)})")
    if "blocks.0.mlp.weights_in.weight" in sd:
        raise CheckpointMismatch("DINOv2 with a SwiGLU MLP (use_swiglu_ffn) is not supported")
    pool = "cls+avg" if dinov2 else "cls+dist" if "head_dist.weight" in sd else "cls"
    # transformers builds a model whose config omits num_attention_heads with its default
    configured = "num_attention_heads" in config
    heads, heads_from = head_count(d, options, config.int("num_attention_heads", _DEFAULT_HEADS),
                                   "config.json's num_attention_heads" if configured
                                   else "transformers' default num_attention_heads", "Hugging Face", None)
    cfg = ViTConfig(
        name=options.name or name, depth=depth, embed_dim=d, patch_size=p, heads=heads,
        image_size=(grid[0] * p, grid[1] * p), num_classes=classes, distilled=has_dist,
        mlp_ratio=mlp / d if depth else 4.0,
        ln_eps=options.eps or config.number("layer_norm_eps", default_eps),
        qkv_bias="blocks.0.attn.qkv.bias" in sd, pool=pool, registers=registers,
        no_embed_class=dinov2, layer_scale="blocks.0.ls1.gamma" in sd, act=act)
    tensors = check_tensors(cfg, sd, what)
    library = "Hugging Face " + ",".join(config.strings("architectures") or [model_type])
    preprocess_ = _preprocess(cfg, Fields(preprocessor, "preprocessor_config.json"), options)
    return Checkpoint(library, cfg, tensors, preprocess_, class_names(classes, options, id2label), heads_from)


def _agree(config: Fields, field: str, found: int, what: str) -> None:
    said = config.int(field, minimum=0)
    if said is not None and said != found:
        raise contradiction("config.json", field, said, found, what)


def _id2label(config: Fields) -> dict:
    """{class id: name} from config.json's id2label (JSON keys are strings)."""
    labels = config.raw("id2label", {})
    if not isinstance(labels, dict) or not all(isinstance(k, str) and k.isdigit() and isinstance(v, str)
                                               for k, v in labels.items()):
        raise CheckpointMismatch("config.json: id2label is not an object of class ids to names")
    return {int(k): v for k, v in labels.items()}


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


def _preprocess(cfg: ViTConfig, proc: Fields, options: Options):
    """The image processor's settings: ViTImageProcessor resizes straight to `size`;
    BitImageProcessor (DINOv2) and DeiTImageProcessor resize then centre-crop."""
    interpolation = _RESAMPLE.get(proc.int("resample", minimum=0))
    mean, std = proc.triple("image_mean"), proc.triple("image_std", positive=True)
    if proc.bool("do_center_crop") and isinstance(proc.raw("crop_size"), dict):
        crop = proc.obj("crop_size")
        size = proc.obj("size") if isinstance(proc.raw("size"), dict) else None
        short = (size.int("shortest_edge") or size.int("height")) if size else proc.int("size")
        if "height" in crop and (crop.int("height"), crop.int("width")) == tuple(cfg.image_size) and short:
            return preprocess(cfg.image_size, options, mean, std, None, interpolation, short_side=short)
    return preprocess(cfg.image_size, options, mean, std, None, interpolation, exact_resize=True)
