"""timm `VisionTransformer` checkpoints: a bare state dict (DeiT's {"model": ...} too) or
a hub folder (config.json with architecture, model_args, pretrained_cfg, label_names).

timm's key names are the exporter's own, so reading is finding the layout: which
optional tensors exist (cls/dist/register tokens, LayerScale, norm_pre, fc_norm), how
many positions pos_embed covers, and what only the config or the options can say
(heads, pooling, eps, activation, preprocessing)."""
from typing import Mapping, Optional

from ..config import ViTConfig
from ..errors import CheckpointMismatch
from . import published
from .common import (Checkpoint, Options, block_count, check_tensors, class_names, contradiction,
                     grid_of, head_count, preprocess)
from .fields import Fields, dims

# timm's act_layer names -> ours
_ACTS = {"gelu": "gelu", "gelu_tanh": "gelu_tanh", "quick_gelu": "quickgelu", "quickgelu": "quickgelu"}


def is_timm(state_dict: Mapping) -> bool:
    return "patch_embed.proj.weight" in state_dict


def read(state_dict: Mapping, config: Optional[dict], options: Options, name: str) -> Checkpoint:
    config = Fields(config, "config.json")
    args, pretrained = config.obj("model_args"), config.obj("pretrained_cfg")
    arch = config.str("architecture", "")
    sd = state_dict
    if "head.weight" not in sd:
        raise CheckpointMismatch("the timm checkpoint has no classifier (head.weight): "
                                 "a backbone without a head has no classes to explain")
    d, _, p, p2 = dims(sd, "patch_embed.proj.weight", 4, "timm checkpoint")
    if p != p2:
        raise CheckpointMismatch(f"non-square patches {p}x{p2} are not supported")
    has_cls, has_dist = "cls_token" in sd, "dist_token" in sd
    registers = dims(sd, "reg_token", 3, "timm checkpoint")[1] if "reg_token" in sd else 0
    prefix = int(has_cls) + int(has_dist) + registers
    positions = dims(sd, "pos_embed", 3, "timm checkpoint")[1]
    image_size = args.size("img_size") or _input_size(pretrained)
    no_embed_class = args.bool("no_embed_class")
    if no_embed_class is None:  # the positions say whether they cover the prefix tokens
        no_embed_class = prefix > 0 and _fits(positions, image_size, p) and not _fits(positions - prefix, image_size, p)
    grid = grid_of(positions - (0 if no_embed_class else prefix), image_size, p)
    fc_norm = "fc_norm.weight" in sd
    pool = _pool(args.str("global_pool", config.str("global_pool")), has_cls, has_dist,
                 "head_dist.weight" in sd, fc_norm)
    norm_pre = "norm_pre.weight" in sd
    clip = norm_pre or "clip" in arch
    act = options.act or _ACTS.get(args.str("act_layer", "").lower()) or (
        "quickgelu" if "quickgelu" in arch else "gelu")
    depth = block_count(sd, r"blocks\.(\d+)\.")
    mlp = dims(sd, "blocks.0.mlp.fc1.weight", 2, "timm checkpoint")[0] if depth else 0
    heads, heads_from = head_count(d, options, args.int("num_heads"), "config.json's model_args.num_heads", "timm",
                                   published.match("timm", p, d, depth, mlp, arch))
    classes = dims(sd, "head.weight", 2, "timm checkpoint")[0]
    if config.int("num_classes") not in (None, classes):
        raise contradiction("config.json", "num_classes", config.int("num_classes"), classes, "head.weight")
    if args.int("embed_dim") not in (None, d):
        raise contradiction("config.json", "embed_dim", args.int("embed_dim"), d, "patch_embed.proj.weight")
    if args.int("depth") not in (None, depth):
        raise contradiction("config.json", "depth", args.int("depth"), depth, "blocks")
    cfg = ViTConfig(
        name=options.name or name, depth=depth, heads=heads, embed_dim=d, patch_size=p,
        image_size=(grid[0] * p, grid[1] * p), num_classes=classes, distilled=has_dist,
        mlp_ratio=mlp / d if depth else 4.0,
        # timm: 1e-6, the OpenAI/LAION CLIP towers (norm_pre) 1e-5
        ln_eps=options.eps or (1e-5 if clip else 1e-6), qkv_bias="blocks.0.attn.qkv.bias" in sd,
        pool=pool, cls_token=has_cls, registers=registers, no_embed_class=no_embed_class,
        layer_scale="blocks.0.ls1.gamma" in sd, norm_pre=norm_pre,
        patch_bias="patch_embed.proj.bias" in sd, fc_norm=fc_norm, act=act)
    tensors = check_tensors(cfg, sd, "timm checkpoint")
    pre = preprocess(cfg.image_size, options, pretrained.triple("mean"), pretrained.triple("std", positive=True),
                     pretrained.number("crop_pct"), _interpolation(pretrained))
    names = config.strings("label_names")
    labels = class_names(classes, options, dict(enumerate(names)) if names else None)
    return Checkpoint("timm", cfg, tensors, pre, labels, heads_from)


def _input_size(pretrained: Fields):
    """pretrained_cfg.input_size [channels, height, width]."""
    size = pretrained.raw("input_size")
    if size is None:
        return None
    if not isinstance(size, list) or len(size) != 3 or not all(type(v) is int and v > 0 for v in size):
        raise CheckpointMismatch(f"config.json: pretrained_cfg.input_size is {size!r}, expected [3, height, width]")
    return tuple(size[1:])


def _interpolation(pretrained: Fields):
    value = pretrained.str("interpolation")
    if value not in (None, "bicubic", "bilinear"):
        raise CheckpointMismatch(f"config.json: pretrained_cfg.interpolation is {value!r}, "
                                 "expected bicubic or bilinear")
    return value


def _fits(positions: int, image_size, patch: int) -> bool:
    if positions <= 0:
        return False
    if image_size:
        return (image_size[0] // patch) * (image_size[1] // patch) == positions
    return round(positions ** 0.5) ** 2 == positions


def _pool(global_pool, has_cls: bool, has_dist: bool, has_head_dist: bool, fc_norm: bool) -> str:
    """timm's global_pool ("token", "avg"; default "token", or "avg" with fc_norm or no cls)."""
    if global_pool in (None, ""):
        global_pool = "avg" if fc_norm or not has_cls else "token"
    if global_pool == "avg":
        return "avg"
    if global_pool != "token":
        raise CheckpointMismatch(f"global_pool {global_pool!r} is not supported (token, avg)")
    if not has_cls:
        raise CheckpointMismatch("global_pool 'token' needs a class token, the checkpoint has none")
    return "cls+dist" if has_dist and has_head_dist else "cls"
