"""torchvision `VisionTransformer` state dicts (vit_b_16 ... vit_h_14): the packed
`in_proj_weight`/`in_proj_bias` (rows [q|k|v], timm's qkv order), `encoder.pos_embedding`
over cls + patches, the head `heads.head`, MLP keys `mlp.0`/`mlp.3` (`linear_1`/`linear_2`
before torchvision 0.13). A bare state dict: the heads come from --heads, or from the
published architecture (vit_b_16 ... vit_h_14) whose shapes these exactly are."""
import re
from typing import Mapping

from ..config import ViTConfig
from ..errors import CheckpointMismatch
from . import published
from .fields import dims
from .common import (Checkpoint, Options, block_count, check_tensors, class_names, grid_of, head_count,
                     preprocess, unmatched)

_TOP = {"class_token": "cls_token", "conv_proj.weight": "patch_embed.proj.weight",
        "conv_proj.bias": "patch_embed.proj.bias", "encoder.pos_embedding": "pos_embed",
        "encoder.ln.weight": "norm.weight", "encoder.ln.bias": "norm.bias",
        "heads.head.weight": "head.weight", "heads.head.bias": "head.bias"}
_LAYER = {"ln_1": "norm1", "ln_2": "norm2", "self_attention.in_proj": "attn.qkv",
          "self_attention.out_proj": "attn.proj", "mlp.0": "mlp.fc1", "mlp.3": "mlp.fc2",
          "mlp.linear_1": "mlp.fc1", "mlp.linear_2": "mlp.fc2"}


def is_torchvision(state_dict: Mapping) -> bool:
    return "conv_proj.weight" in state_dict and "encoder.pos_embedding" in state_dict


def read(state_dict: Mapping, options: Options, name: str) -> Checkpoint:
    sd, left = {}, []
    for key, value in state_dict.items():
        m = re.fullmatch(r"encoder\.layers\.encoder_layer_(\d+)\.(.+?)(?:\.|_)(weight|bias)", key)
        if key in _TOP:
            sd[_TOP[key]] = value
        elif m and m.group(2) in _LAYER:
            sd[f"blocks.{m.group(1)}.{_LAYER[m.group(2)]}.{m.group(3)}"] = value
        else:
            left.append(key)
    if left:
        raise unmatched(left, "torchvision checkpoint")
    if "head.weight" not in sd:
        raise CheckpointMismatch("the torchvision checkpoint has no heads.head")
    what = "torchvision checkpoint"
    d, _, p, _ = dims(sd, "patch_embed.proj.weight", 4, what)
    grid = grid_of(dims(sd, "pos_embed", 3, what)[1] - 1, None, p)
    depth = block_count(sd, r"blocks\.(\d+)\.")
    mlp = dims(sd, "blocks.0.mlp.fc1.weight", 2, what)[0] if depth else 0
    shaped = published.match("torchvision", p, d, depth, mlp)
    heads, heads_from = head_count(d, options, None, "", "torchvision", shaped)
    cfg = ViTConfig(
        name=options.name or name, depth=depth, heads=heads, embed_dim=d,
        patch_size=p, image_size=(grid[0] * p, grid[1] * p), num_classes=dims(sd, "head.weight", 2, what)[0],
        mlp_ratio=mlp / d if depth else 4.0,
        ln_eps=options.eps or 1e-6, act=options.act or "gelu")
    tensors = check_tensors(cfg, sd, what)
    # the weights' own transforms: Resize(256, bilinear), CenterCrop(224), ImageNet mean/std
    pre = preprocess(cfg.image_size, options, interpolation="bilinear")
    return Checkpoint("torchvision", cfg, tensors, pre, class_names(cfg.num_classes, options), heads_from)
