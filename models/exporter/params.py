"""Holds a state dict as module buffers, each tensor stored once (ViT: timm keys; text: text/params.py).

Both the explainer and the plain model read weights through `ViTParams.get`, so the
exported ONNX file carries a single initializer per checkpoint tensor; every derived
weight (W+, W-, reshaped conv kernel) is an operation in the graph.
"""
from torch import nn

from .config import ViTConfig
from .lrp_rules import LinearParts


def param_shapes(cfg: ViTConfig):
    """timm key -> shape of every tensor the graphs read, for this layout."""
    d, p, c, m = cfg.embed_dim, cfg.patch_size, cfg.num_classes, cfg.mlp_dim
    shapes = {"patch_embed.proj.weight": (d, 3, p, p), "pos_embed": (1, cfg.pos_tokens, d)}
    if cfg.patch_bias:
        shapes["patch_embed.proj.bias"] = (d,)
    if cfg.cls_token:
        shapes["cls_token"] = (1, 1, d)
    if cfg.distilled:
        shapes["dist_token"] = (1, 1, d)
    if cfg.registers:
        shapes["reg_token"] = (1, cfg.registers, d)
    final_norm = "fc_norm" if cfg.fc_norm else "norm"
    for norm in ["norm_pre"] * cfg.norm_pre + [final_norm]:
        shapes.update({norm + ".weight": (d,), norm + ".bias": (d,)})
    head_in = 2 * d if cfg.pool == "cls+avg" else d
    shapes.update({"head.weight": (c, head_in), "head.bias": (c,)})
    if cfg.pool == "cls+dist":
        shapes.update({"head_dist.weight": (c, d), "head_dist.bias": (c,)})
    for b in range(cfg.depth):
        pre = f"blocks.{b}."
        for part, shape in (("norm1", (d,)), ("norm2", (d,)), ("attn.proj", (d, d)),
                            ("mlp.fc1", (m, d)), ("mlp.fc2", (d, m))):
            shapes[f"{pre}{part}.weight"] = shape
            shapes[f"{pre}{part}.bias"] = shape[:1]
        shapes[pre + "attn.qkv.weight"] = (3 * d, d)
        if cfg.qkv_bias:
            shapes[pre + "attn.qkv.bias"] = (3 * d,)
        if cfg.layer_scale:
            shapes.update({pre + "ls1.gamma": (d,), pre + "ls2.gamma": (d,)})
    return shapes


def expected_keys(cfg: ViTConfig):
    return list(param_shapes(cfg))


def _buffer_name(key: str) -> str:
    # buffer names may not contain dots; keep the timm key readable in the ONNX file
    return key.replace(".", "__")


class Params(nn.Module):
    """The tensors `keys` of a state dict as buffers, read by key (any architecture)."""

    def __init__(self, name: str, keys, state_dict):
        super().__init__()
        missing = [k for k in keys if k not in state_dict]
        if missing:
            raise KeyError(f"{name}: state dict lacks {missing[:5]}{'...' if len(missing) > 5 else ''}")
        for key in keys:
            self.register_buffer(_buffer_name(key), state_dict[key].detach().clone().float())

    def get(self, key: str):
        return getattr(self, _buffer_name(key))

    def get_optional(self, key: str):
        return getattr(self, _buffer_name(key), None)

    def linear(self, key: str) -> LinearParts:
        """The weight `key` with the parts the LRP rules read, computed where they are read."""
        return LinearParts(self.get(key))


class ViTParams(Params):
    def __init__(self, cfg: ViTConfig, state_dict):
        super().__init__(cfg.name, expected_keys(cfg), state_dict)
