"""AttnLRP and CP-LRP (METHODS.md, "Text (BERT)": LXT's BERT rules) as one modified
backward pass each in Gradient×Input form, batched over the K target rows, on the record
of forward.py. As for ViTs (../attnlrp.py, whose LayerNorm rule, activation ratio and
q/k/v factors are reused): every LayerNorm holds σ constant; the MLP activation and the
pooler's tanh take the identity rule (gradient × act(u)/u; DistilBERT's ReLU: its own
gradient); AttnLRP divides the gradient into q and k by 4 and into v by 2 with the
softmax unmodified; CP-LRP holds A constant (no gradient into q and k). The map is
Σ_hidden x0 ⊙ g at the embeddings' output (after their LayerNorm).

Each method's stream is cut to 0 rows when its switch is 0 (`on`: ones [F,1,1,1],
multiplying the forward tensors it meets in products, as ../attnlrp.py); sums over the S
tokens are products with the ones column of the embedding record."""
import math

import torch

from ..attnlrp import QKV_FACTORS, identity_ratio, layer_norm_gradient
from .backward import head_gradient
from .config import TextConfig
from .forward import merge_heads, split_heads

METHODS = ("attnlrp", "cp_lrp")  # the graph's switch inputs are f"{method}_relevance"
ONE_ROW = torch.ones(1, 1, 1, 1)


def pooler_ratio(cfg: TextConfig, head):
    """The head activation's identity-rule factor act(u)/u: tanh(u)/u (1 at u = 0) for
    BERT's pooler, the step u > 0 for DistilBERT's ReLU."""
    u = head.pu
    if not cfg.pooler:
        return (u > 0).to(u.dtype)
    zero = u == 0
    return torch.where(zero, torch.ones_like(u), torch.tanh(u) / torch.where(zero, torch.ones_like(u), u))


def seed(params, cfg: TextConfig, fw, target):
    """The modified gradient at the last layer's output [K, S, D]."""
    return head_gradient(params, cfg, fw.head, target, fw.embed.ones, pooler_ratio(cfg, fw.head))


def qkv_gradient(params, cfg: TextConfig, b: int, c, g_o, method: str, on, ones):
    """g_o [K, h, S, d] at the attention output -> [K, S, D] at the layer's input, through
    the stacked query/key/value Linears."""
    weight = params.get(f"blocks.{b}.attn.qkv.weight")
    attn = c.attn * on
    g_v = torch.matmul(attn.transpose(-1, -2), g_o)
    if method == "cp_lrp":  # A constant: only v's gradient, through the value rows
        return torch.matmul(merge_heads(g_v, cfg, c.tokens), weight[2 * cfg.embed_dim:])
    g_a = torch.matmul(g_o, (c.v * on).transpose(-1, -2))
    g_z = attn * (g_a - torch.matmul(g_a * attn, ones)) * (1.0 / math.sqrt(cfg.head_dim))
    g_q = torch.matmul(g_z, c.k * on)
    g_k = torch.matmul(g_z.transpose(-1, -2), c.q * on)
    g_qkv = torch.stack([g_q, g_k, g_v], dim=1) * QKV_FACTORS  # [K, 3, h, S, d]
    g_qkv = torch.cat([merge_heads(g_qkv[:, i], cfg, c.tokens) for i in range(3)], dim=-1)
    return torch.matmul(g_qkv, weight)


def block_gradient(params, cfg: TextConfig, b: int, c, g, method: str, on, ones):
    """g [K, S, D] at layer b's output -> [K, S, D] at its input."""
    pre = f"blocks.{b}."
    g_a2 = layer_norm_gradient(g, c.rstd2, params.get(pre + "norm2.weight"))
    g_u = torch.matmul(g_a2, params.get(pre + "mlp.fc2.weight")) * identity_ratio(c, cfg)
    g_x1 = g_a2 + torch.matmul(g_u, params.get(pre + "mlp.fc1.weight"))
    g_a1 = layer_norm_gradient(g_x1, c.rstd1, params.get(pre + "norm1.weight"))
    g_o = split_heads(torch.matmul(g_a1, params.get(pre + "attn.proj.weight")), cfg, c.tokens)
    return g_a1 + qkv_gradient(params, cfg, b, c, g_o, method, on, ones)
