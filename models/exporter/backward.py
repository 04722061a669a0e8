"""Explicit gradient of target_k . logits with respect to every block's attention.

Hand-written reverse pass (no autograd: torch.onnx.export would freeze it), batched over
the K target rows as a leading dimension. Only input gradients are formed, and the pass stops
at block 0's attention, the last quantity an output needs.
"""
import math

import torch
import torch.nn.functional as F

from .config import ViTConfig
from .forward import QUICK_GELU, SQRT_2_OVER_PI, final_norm_key, pooled_rows

INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


def layer_norm_backward(dy, xhat, rstd, weight):
    """d loss/d x of y = xhat*weight + bias, xhat = (x - mean)*rstd (biased variance)."""
    dxh = dy * weight
    return rstd * (dxh - dxh.mean(-1, keepdim=True) - xhat * (dxh * xhat).mean(-1, keepdim=True))


# Shapes below come from the config as Python ints: reading t.shape while tracing would
# add Shape/Gather/Concat chains to the graph (and K must stay the only dynamic dim).


def pad_rows(t, rows: int, total: int):
    """Zero-pad dim -2 from `rows` rows up to `total`. The zero rows are |t's first row|
    times a constant zero column (+0 exactly, and empty where t is): four nodes where F.pad
    exports about ten (shape arithmetic for its pads). A product with a constant identity
    block would be fewer, but onnxruntime's MatMul cannot broadcast it against 0 rows."""
    if rows == total:
        return t
    zero_rows = t[..., :1, :].abs() * torch.zeros(total - rows, 1, dtype=t.dtype)
    return torch.cat([t, zero_rows], dim=-2)


def split_heads(t, rows: int, cfg: ViTConfig):
    """[K, rows, D] -> [K, h, rows, d]."""
    return t.reshape(-1, rows, cfg.heads, cfg.head_dim).transpose(1, 2)


def head_gradient(params, cfg: ViTConfig, target):
    """d(target . logits)/d(the head's input rows): [K, nh, D] (pooled heads: [K, 1, D or 2D])."""
    g0 = torch.matmul(target, params.get("head.weight"))
    if cfg.pool != "cls+dist":
        return g0.unsqueeze(1)
    g1 = torch.matmul(target, params.get("head_dist.weight"))
    return torch.stack([g0 * 0.5, g1 * 0.5], dim=1)


def final_gradient(params, cfg: ViTConfig, fw, target, norm_backward=layer_norm_backward):
    """d(target . logits)/d(the last block's output rows): through the head, the pooling and
    the final LayerNorm (forward.head_forward), [K, rows, D]. norm_backward(g, xhat, rstd,
    weight) is the LayerNorm's backward (AttnLRP passes its σ-constant rule)."""
    norm_weight = params.get(final_norm_key(cfg) + ".weight")
    g = head_gradient(params, cfg, target)
    if cfg.pool in ("cls", "cls+dist"):
        return norm_backward(g, fw.final_xhat, fw.final_rstd, norm_weight)
    D, S = cfg.embed_dim, cfg.tokens
    first, n = pooled_rows(cfg)
    g_cls, g_mean = (g[..., :D], g[..., D:]) if cfg.pool == "cls+avg" else (None, g)
    if cfg.fc_norm:  # the norm is after the pooling: back through it first
        g_mean = norm_backward(g_mean, fw.final_xhat, fw.final_rstd, norm_weight)
    # the mean hands each pooled row 1/n of the gradient
    rows = F.pad(g_mean.expand(-1, n, -1) * (1.0 / n), (0, 0, first, 0))
    if g_cls is not None:
        rows = rows + F.pad(g_cls, (0, 0, 0, S - 1))
    return rows if cfg.fc_norm else norm_backward(rows, fw.final_xhat, fw.final_rstd, norm_weight)


def activation_grad(c, cfg: ViTConfig):
    """act'(u) from what forward.activation kept."""
    if cfg.act == "gelu":
        return c.cdf + c.u * torch.exp(-0.5 * c.u * c.u) * INV_SQRT_2PI
    if cfg.act == "gelu_tanh":
        inner = SQRT_2_OVER_PI * (1.0 + 3.0 * 0.044715 * c.u * c.u)
        return 0.5 * (1.0 + c.tanh) + 0.5 * c.u * (1.0 - c.tanh * c.tanh) * inner
    return c.sig + QUICK_GELU * c.u * c.sig * (1.0 - c.sig)


def block_attention_gradient(params, cfg: ViTConfig, b: int, c, g, below: bool = True):
    """g [K, rows, D] at block b's output -> (d(target . logits)/d attn[b] [K, h, S, S],
    the gradient at the block's input [K, S, D], or None without `below`). The K rows may
    pair with a leading axis of the record (the attribution's scaled copies): they
    broadcast row by row."""
    S, D, d = cfg.tokens, cfg.embed_dim, cfg.head_dim
    pre = f"blocks.{b}."
    # MLP branch: x_out = x1 + fc2(gelu(fc1(LN2(x1))))
    g_mlp = g * params.get(pre + "ls2.gamma") if cfg.layer_scale else g
    g_u = torch.matmul(g_mlp, params.get(pre + "mlp.fc2.weight")) * activation_grad(c, cfg)
    g_n2 = torch.matmul(g_u, params.get(pre + "mlp.fc1.weight"))
    g_x1 = g + layer_norm_backward(g_n2, c.xhat2, c.rstd2, params.get(pre + "norm2.weight"))
    # attention branch: x1 = x + proj(A.v)
    r = c.rows
    g_attn = g_x1 * params.get(pre + "ls1.gamma") if cfg.layer_scale else g_x1
    g_o = split_heads(torch.matmul(g_attn, params.get(pre + "attn.proj.weight")), r, cfg)  # [K,h,r,d]
    g_a = torch.matmul(g_o, c.v.transpose(-1, -2))  # [K, h, r, S]
    if not below:
        return pad_rows(g_a, r, S), None
    g_v = torch.matmul(c.attn_rows.transpose(-1, -2), g_o)  # [K, h, S, d]
    g_z = c.attn_rows * (g_a - (g_a * c.attn_rows).sum(-1, keepdim=True)) * (d ** -0.5)
    g_q = pad_rows(torch.matmul(g_z, c.k), r, S)
    g_k = torch.matmul(g_z.transpose(-1, -2), c.q_rows)
    g_qkv = torch.stack([g_q, g_k, g_v], dim=1)  # [K, 3, h, S, d]
    g_qkv = g_qkv.permute(0, 3, 1, 2, 4).reshape(-1, S, 3 * D)
    g_n1 = torch.matmul(g_qkv, params.get(pre + "attn.qkv.weight"))
    g_in = pad_rows(g_x1, r, S) + layer_norm_backward(g_n1, c.xhat1, c.rstd1, params.get(pre + "norm1.weight"))
    return pad_rows(g_a, r, S), g_in


def attention_gradients(params, cfg: ViTConfig, fw, target, first: int = 0):
    """List over blocks of d(target_k . logits)/d attn[b], each [K, h, S, S], for blocks
    first.. (None below)."""
    g = final_gradient(params, cfg, fw, target)  # [K, rows, D]
    grads = [None] * cfg.depth
    for b in reversed(range(first, cfg.depth)):
        grads[b], g = block_attention_gradient(params, cfg, b, fw.blocks[b], g, below=b > first)
    return grads
