"""Holds a timm-style ViT/DeiT state dict as module buffers, each tensor stored once.

Both the explainer and the plain model read weights through `ViTParams.get`, so the
exported ONNX file carries a single initializer per checkpoint tensor; every derived
weight (W+, W-, reshaped conv kernel) is an operation in the graph.
"""
from torch import nn

from .config import ViTConfig


def expected_keys(cfg: ViTConfig):
    keys = ["patch_embed.proj.weight", "patch_embed.proj.bias", "cls_token", "pos_embed",
            "norm.weight", "norm.bias", "head.weight", "head.bias"]
    if cfg.distilled:
        keys += ["dist_token", "head_dist.weight", "head_dist.bias"]
    for b in range(cfg.depth):
        for part in ("norm1", "norm2", "attn.proj", "mlp.fc1", "mlp.fc2"):
            keys += [f"blocks.{b}.{part}.weight", f"blocks.{b}.{part}.bias"]
        keys.append(f"blocks.{b}.attn.qkv.weight")
        if cfg.qkv_bias:
            keys.append(f"blocks.{b}.attn.qkv.bias")
    return keys


def _buffer_name(key: str) -> str:
    # buffer names may not contain dots; keep the timm key readable in the ONNX file
    return key.replace(".", "__")


class ViTParams(nn.Module):
    def __init__(self, cfg: ViTConfig, state_dict):
        super().__init__()
        missing = [k for k in expected_keys(cfg) if k not in state_dict]
        if missing:
            raise KeyError(f"{cfg.name}: state dict lacks {missing[:5]}{'...' if len(missing) > 5 else ''}")
        for key in expected_keys(cfg):
            self.register_buffer(_buffer_name(key), state_dict[key].detach().clone().float())

    def get(self, key: str):
        return getattr(self, _buffer_name(key))

    def get_optional(self, key: str):
        return getattr(self, _buffer_name(key), None)
