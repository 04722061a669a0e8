"""Explicit gradient of target_k . logits with respect to every layer's attention, for
the post-LN layers of forward.py (no autograd: torch.onnx.export would freeze it),
batched over the K target rows as a leading axis. The LayerNorm and activation
derivatives are the ViT exporter's (backward.py)."""
import math

import torch

from ..backward import activation_grad, layer_norm_backward
from .config import TextConfig
from .forward import merge_heads, split_heads


def first_row(ones):
    """[S, 1]: 1 in row 0 ([CLS]), 0 elsewhere, from a ones column (no Range, no shape ops)."""
    return torch.cat([ones[:1], ones[1:] * 0.0], dim=0)


def head_gradient(params, cfg: TextConfig, head, target, ones, ratio=None):
    """d(target . logits)/d(the last layer's output) [K, S, D] (only row 0 is non-zero).
    ratio: the factor that replaces the pooler activation's derivative (AttnLRP's
    identity rule passes act(u)/u); None = the derivative."""
    g = torch.matmul(target, params.get("head.weight")).unsqueeze(1)  # [K, 1, D]
    if ratio is None:
        ratio = 1.0 - head.pooled * head.pooled if cfg.pooler else (head.pu > 0).to(g.dtype)
    g = torch.matmul(g * ratio, params.get(cfg.pool_key + ".weight"))
    return g * first_row(ones)


def block_attention_gradient(params, cfg: TextConfig, b: int, c, g, below: bool = True):
    """g [K, S, D] at layer b's output -> (d(target . logits)/d attn[b] [K, h, S, S], the
    gradient at the layer's input [K, S, D], or None without `below`). K may pair with a
    leading axis of the record (the attribution's scaled copies)."""
    pre = f"blocks.{b}."
    g_a2 = layer_norm_backward(g, c.xhat2, c.rstd2, params.get(pre + "norm2.weight"))
    g_u = torch.matmul(g_a2, params.get(pre + "mlp.fc2.weight")) * activation_grad(c, cfg)
    g_x1 = g_a2 + torch.matmul(g_u, params.get(pre + "mlp.fc1.weight"))
    g_a1 = layer_norm_backward(g_x1, c.xhat1, c.rstd1, params.get(pre + "norm1.weight"))
    g_o = split_heads(torch.matmul(g_a1, params.get(pre + "attn.proj.weight")), cfg, c.tokens)  # [K, h, S, d]
    g_attn = torch.matmul(g_o, c.v.transpose(-1, -2))
    if not below:
        return g_attn, None
    attn = c.attn_used
    g_v = torch.matmul(attn.transpose(-1, -2), g_o)
    g_z = attn * (g_attn - (g_attn * attn).sum(-1, keepdim=True)) * (1.0 / math.sqrt(cfg.head_dim))
    g_q = torch.matmul(g_z, c.k)
    g_k = torch.matmul(g_z.transpose(-1, -2), c.q)
    g_qkv = torch.cat([merge_heads(g, cfg, c.tokens) for g in (g_q, g_k, g_v)], dim=-1)
    return g_attn, g_a1 + torch.matmul(g_qkv, params.get(pre + "attn.qkv.weight"))


def attention_gradients(params, cfg: TextConfig, fw, target, first: int = 0):
    """List over layers of d(target_k . logits)/d attn[b] [K, h, S, S] for layers first..
    (None below)."""
    g = head_gradient(params, cfg, fw.head, target, fw.embed.ones)
    grads = [None] * cfg.depth
    for b in reversed(range(first, cfg.depth)):
        grads[b], g = block_attention_gradient(params, cfg, b, fw.blocks[b], g, below=b > first)
    return grads
