"""AttnLRP and CP-LRP (METHODS.md, "AttnLRP and CP-LRP") as one modified backward pass each,
in Gradient×Input form, batched over the K target rows.

Every linear operation (conv, Linear, residual, LayerScale, token selection, the mean of
the pooled heads, the head) keeps its ordinary input gradient; only three layer types change:
  LayerNorm (every one: norm_pre, norm1/2, the final norm or fc_norm): σ held constant, the
  gradient through the mean kept;
  the MLP activation: identity rule, the gradient times act(u)/u (identity_ratio);
  attention: AttnLRP divides the gradient into q and k by 4 and into V by 2 (LXT's
  placement), softmax unmodified;
  CP-LRP holds A constant: no gradient into q and k, V's unmodified.
The map is Σ_RGB x ⊙ g_x over the normalised input. The head, pooling and final norm are
backward.final_gradient's, with this LayerNorm rule. Written per layer type, on the forward
record (forward.py), without autograd (torch.onnx.export would freeze it).

Each method runs as its own stream, cut to 0 rows when its switch input is 0 (as lrp.py's
classic stream): onnxruntime-web computes every node, and empty tensors cost nothing.
Reshapes leave the row axis to -1: onnxruntime infers 0 for an empty stream (reading the
count from the tensor exports a Shape, Gather, Unsqueeze and Concat chain per reshape).
onnxruntime's MatMul cannot broadcast a batch axis of 1 against 0, so the forward tensors
a stream multiplies with get a leading axis of `on` rows (ones [F,1,1,1], F = 0 or 1); and
its Reduce ops give an empty input a wrong output shape, so row sums are products with a
ones column (the shapes recording, shapes.py, could not name those axes).
"""
import torch

from .backward import pad_rows
from .config import ViTConfig
from .forward import conv_kernel_matrix

METHODS = ("attnlrp", "cp_lrp")  # the graph's switch inputs are f"{method}_relevance"
ONE_ROW = torch.ones(1, 1, 1, 1)


def row_sum(t, n: int):
    """t [.., n] -> [.., 1]: the sum over the last axis."""
    return torch.matmul(t, torch.ones(n, 1, dtype=t.dtype))


def layer_norm_gradient(g, rstd, weight):
    """y = γ⊙(x−μ)/σ + β with σ constant: g_x = (1/σ)·(γ⊙g − mean(γ⊙g))."""
    gw = g * weight
    n = int(weight.shape[0])
    return rstd * (gw - row_sum(gw, n) * (1.0 / n))


def layer_norm_rule(g, _xhat, rstd, weight):
    """layer_norm_gradient in backward.layer_norm_backward's signature (final_gradient)."""
    return layer_norm_gradient(g, rstd, weight)


def identity_ratio(c, cfg: ViTConfig):
    """act(u)/u, the identity rule's factor, from what forward.activation kept: Φ(u) for the
    exact GELU, ½(1 + tanh(√(2/π)(u + 0.044715u³))) for tanh-GELU, σ(1.702u) for QuickGELU.
    Exact ratios, without LXT's GELU(u)/(u + 1e-10) (a < 1e-5 relative change, METHODS.md)."""
    if cfg.act == "gelu":
        return c.cdf
    if cfg.act == "gelu_tanh":
        return 0.5 * (1.0 + c.tanh)
    return c.sig


def layer_scaled(params, cfg: ViTConfig, g, key: str):
    """The gradient at a LayerScale's input: a linear scaling, so g ⊙ γ (identity without)."""
    return g * params.get(key) if cfg.layer_scale else g


def split_heads(t, rows: int, cfg: ViTConfig):
    """[K, rows, D] -> [K, h, rows, d]."""
    return t.reshape(-1, rows, cfg.heads, cfg.head_dim).transpose(1, 2)


def merge_heads(t, rows: int, cfg: ViTConfig):
    """[K, h, rows, d] -> [K, rows, D]."""
    return t.transpose(1, 2).reshape(-1, rows, cfg.embed_dim)


def value_gradient(attn_rows, g_o):
    """Aᵀ·g_o: [K, h, S, d]."""
    return torch.matmul(attn_rows.transpose(-1, -2), g_o)


# LXT's divide_gradient factors on the per-head q, k, v: ¼ (the ½ of A·V on A and the ½ of
# q·kᵀ) and ½ (the ½ of A·V on V), applied in one Mul on the stacked gradients.
QKV_FACTORS = torch.tensor([0.25, 0.25, 0.5]).reshape(1, 3, 1, 1, 1)


def attnlrp_qkv_gradient(params, cfg: ViTConfig, b: int, c, g_o, on):
    """g_o [K,h,r,d] at the attention output -> [K,S,D] at norm1's output, through the
    unmodified softmax, with QKV_FACTORS on q, k and v."""
    S, D, r = cfg.tokens, cfg.embed_dim, c.rows
    attn_rows = c.attn_rows * on
    g_v = value_gradient(attn_rows, g_o)
    g_a = torch.matmul(g_o, (c.v * on).transpose(-1, -2))  # [K, h, r, S]
    g_z = attn_rows * (g_a - row_sum(g_a * attn_rows, S)) * (cfg.head_dim ** -0.5)
    g_q = pad_rows(torch.matmul(g_z, c.k * on), r, S)
    g_k = torch.matmul(g_z.transpose(-1, -2), c.q_rows * on)
    g_qkv = torch.stack([g_q, g_k, g_v], dim=1) * QKV_FACTORS  # [K, 3, h, S, d]
    g_qkv = g_qkv.permute(0, 3, 1, 2, 4).reshape(-1, S, 3 * D)  # timm's [q|k|v] columns
    return torch.matmul(g_qkv, params.get(f"blocks.{b}.attn.qkv.weight"))


def cp_lrp_qkv_gradient(params, cfg: ViTConfig, b: int, c, g_o, on):
    """As attnlrp_qkv_gradient with A constant: only V's unmodified gradient, through the
    v rows of the qkv weight."""
    D = cfg.embed_dim
    g_v = value_gradient(c.attn_rows * on, g_o)
    w_v = params.get(f"blocks.{b}.attn.qkv.weight")[2 * D:]
    return torch.matmul(merge_heads(g_v, cfg.tokens, cfg), w_v)


QKV_GRADIENT = {"attnlrp": attnlrp_qkv_gradient, "cp_lrp": cp_lrp_qkv_gradient}


def block_gradient(params, cfg: ViTConfig, b: int, c, g, method: str, on):
    """g [K, rows, D] at block b's output -> [K, S, D] at its input."""
    pre = f"blocks.{b}."
    r = c.rows
    # MLP branch: x_out = x1 + ls2(fc2(act(fc1(LN2(x1)))))
    g_mlp = layer_scaled(params, cfg, g, pre + "ls2.gamma")
    g_u = torch.matmul(g_mlp, params.get(pre + "mlp.fc2.weight")) * identity_ratio(c, cfg)
    g_n2 = torch.matmul(g_u, params.get(pre + "mlp.fc1.weight"))
    g_x1 = g + layer_norm_gradient(g_n2, c.rstd2, params.get(pre + "norm2.weight"))
    # attention branch: x1 = x + ls1(proj(A·V))
    g_attn = layer_scaled(params, cfg, g_x1, pre + "ls1.gamma")
    g_o = split_heads(torch.matmul(g_attn, params.get(pre + "attn.proj.weight")), r, cfg)
    g_n1 = QKV_GRADIENT[method](params, cfg, b, c, g_o, on)
    return pad_rows(g_x1, r, cfg.tokens) + layer_norm_gradient(g_n1, c.rstd1, params.get(pre + "norm1.weight"))


def pixel_map(params, cfg: ViTConfig, fw, g):
    """g [K, S, D] at the embedding -> R_pix [K, H, W] = Σ_RGB x ⊙ g_x. The prefix tokens
    (class, distillation, registers) and pos_embed are constants: only the patch rows, which
    follow the prefix in every layout (forward.embed), reach the pixels."""
    g_patches = torch.matmul(g[:, cfg.special_tokens:, :], conv_kernel_matrix(params, cfg))  # [K, N, 3pp]
    p = cfg.patch_size
    gh, gw = cfg.grid
    r = (g_patches * fw.patches).reshape(-1, gh * gw, 3, p * p).sum(2)
    r = r.reshape(-1, gh, gw, p, p).permute(0, 1, 3, 2, 4)
    return r.reshape(-1, gh * p, gw * p)
