"""Explicit gradient of target_k . logits with respect to every block's attention.

Hand-written reverse pass (no autograd: torch.onnx.export would freeze it), batched over
the K targets as a leading dimension. Only input gradients are formed, and the pass stops
at block 0's attention, the last quantity an output needs.
"""
import math

import torch
import torch.nn.functional as F

from .config import ViTConfig

INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


def layer_norm_backward(dy, xhat, rstd, weight):
    """d loss/d x of y = xhat*weight + bias, xhat = (x - mean)*rstd (biased variance)."""
    dxh = dy * weight
    return rstd * (dxh - dxh.mean(-1, keepdim=True) - xhat * (dxh * xhat).mean(-1, keepdim=True))


# Shapes below come from the config as Python ints: reading t.shape while tracing would
# add Shape/Gather/Concat chains to the graph (and K must stay the only dynamic dim).


def pad_rows(t, rows: int, total: int):
    """Zero-pad dim -2 from `rows` rows up to `total`."""
    return t if rows == total else F.pad(t, (0, 0, 0, total - rows))


def split_heads(t, rows: int, cfg: ViTConfig):
    """[K, rows, D] -> [K, h, rows, d]."""
    return t.reshape(-1, rows, cfg.heads, cfg.head_dim).transpose(1, 2)


def head_gradient(params, cfg: ViTConfig, target):
    """d(target . logits)/d(final LayerNorm output rows the heads read): [K, nh, D]."""
    g0 = torch.matmul(target, params.get("head.weight"))
    if not cfg.distilled:
        return g0.unsqueeze(1)
    g1 = torch.matmul(target, params.get("head_dist.weight"))
    return torch.stack([g0 * 0.5, g1 * 0.5], dim=1)


def attention_gradients(params, cfg: ViTConfig, fw, target, first: int = 0):
    """List over blocks of d(target_k . logits)/d attn[b], each [K, h, S, S], for blocks
    first.. (None below). The K rows of `target` may pair with a leading axis of the
    record (the attribution's scaled copies): they broadcast row by row."""
    S, D, d = cfg.tokens, cfg.embed_dim, cfg.head_dim
    g = layer_norm_backward(head_gradient(params, cfg, target), fw.final_xhat, fw.final_rstd,
                            params.get("norm.weight"))  # [K, rows, D]
    grads = [None] * cfg.depth
    for b in reversed(range(first, cfg.depth)):
        c = fw.blocks[b]
        pre = f"blocks.{b}."
        # MLP branch: x_out = x1 + fc2(gelu(fc1(LN2(x1))))
        gelu_grad = c.cdf + c.u * torch.exp(-0.5 * c.u * c.u) * INV_SQRT_2PI
        g_u = torch.matmul(g, params.get(pre + "mlp.fc2.weight")) * gelu_grad
        g_n2 = torch.matmul(g_u, params.get(pre + "mlp.fc1.weight"))
        g_x1 = g + layer_norm_backward(g_n2, c.xhat2, c.rstd2, params.get(pre + "norm2.weight"))
        # attention branch: x1 = x + proj(A.v)
        r = c.rows
        g_o = split_heads(torch.matmul(g_x1, params.get(pre + "attn.proj.weight")), r, cfg)  # [K,h,r,d]
        g_a = torch.matmul(g_o, c.v.transpose(-1, -2))  # [K, h, r, S]
        grads[b] = pad_rows(g_a, r, S)
        if b == first:
            break
        g_v = torch.matmul(c.attn_rows.transpose(-1, -2), g_o)  # [K, h, S, d]
        g_z = c.attn_rows * (g_a - (g_a * c.attn_rows).sum(-1, keepdim=True)) * (d ** -0.5)
        g_q = pad_rows(torch.matmul(g_z, c.k), r, S)
        g_k = torch.matmul(g_z.transpose(-1, -2), c.q_rows)
        g_qkv = torch.stack([g_q, g_k, g_v], dim=1)  # [K, 3, h, S, d]
        g_qkv = g_qkv.permute(0, 3, 1, 2, 4).reshape(-1, S, 3 * D)
        g_n1 = torch.matmul(g_qkv, params.get(pre + "attn.qkv.weight"))
        g = pad_rows(g_x1, r, S) + layer_norm_backward(g_n1, c.xhat1, c.rstd1, params.get(pre + "norm1.weight"))
    return grads
