"""AttnLRP and CP-LRP (METHODS.md, "AttnLRP and CP-LRP") as one modified backward pass each,
in Gradient×Input form, batched over the K target rows.

Every linear operation (conv, Linear, residual, token selection, the head) keeps its
ordinary input gradient; only three layer types change:
  LayerNorm: σ held constant, the gradient through the mean kept;
  GELU: identity rule, the gradient times GELU(u)/u = Φ(u) (the forward's `cdf`);
  attention: AttnLRP divides the gradient into q and k by 4 and into V by 2 (LXT's
  placement), softmax unmodified;
  CP-LRP holds A constant: no gradient into q and k, V's unmodified.
The map is Σ_RGB x ⊙ g_x over the normalised input. Written per layer type, on the forward
record (forward.py), without autograd (torch.onnx.export would freeze it).

Each method runs as its own stream, cut to 0 rows when its switch input is 0 (as lrp.py's
classic stream): onnxruntime-web computes every node, and empty tensors cost nothing.
Row counts come from the tensors (one Shape/Gather each): -1 cannot be inferred when empty.
onnxruntime's MatMul cannot broadcast a batch axis of 1 against 0, so the forward tensors
a stream multiplies with get a leading axis of `on` rows (ones [F,1,1,1], F = 0 or 1); and
its Reduce ops give an empty input a wrong output shape, so row sums are products with a
ones column (the shapes recording, shapes.py, could not name those axes).
"""
import torch

from .backward import head_gradient, pad_rows
from .config import ViTConfig
from .forward import conv_kernel_matrix

METHODS = ("attnlrp", "cp_lrp")  # the graph's switch inputs are f"{method}_relevance"
ONE_ROW = torch.ones(1, 1, 1, 1)
ONE = torch.tensor(1.0)  # no leading axis (PyTorch callers)


def row_sum(t, n: int):
    """t [.., n] -> [.., 1]: the sum over the last axis."""
    return torch.matmul(t, torch.ones(n, 1, dtype=t.dtype))


def layer_norm_gradient(g, rstd, weight):
    """y = γ⊙(x−μ)/σ + β with σ constant: g_x = (1/σ)·(γ⊙g − mean(γ⊙g))."""
    gw = g * weight
    n = int(weight.shape[0])
    return rstd * (gw - row_sum(gw, n) * (1.0 / n))


def split_heads(t, rows: int, cfg: ViTConfig):
    """[K, rows, D] -> [K, h, rows, d]."""
    return t.reshape(t.shape[0], rows, cfg.heads, cfg.head_dim).transpose(1, 2)


def merge_heads(t, rows: int, cfg: ViTConfig):
    """[K, h, rows, d] -> [K, rows, D]."""
    return t.transpose(1, 2).reshape(t.shape[0], rows, cfg.embed_dim)


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
    g_qkv = g_qkv.permute(0, 3, 1, 2, 4).reshape(g_o.shape[0], S, 3 * D)  # timm's [q|k|v] columns
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
    # MLP branch: x_out = x1 + fc2(gelu(fc1(LN2(x1))))
    g_u = torch.matmul(g, params.get(pre + "mlp.fc2.weight")) * c.cdf  # GELU: identity rule
    g_n2 = torch.matmul(g_u, params.get(pre + "mlp.fc1.weight"))
    g_x1 = g + layer_norm_gradient(g_n2, c.rstd2, params.get(pre + "norm2.weight"))
    # attention branch: x1 = x + proj(A·V)
    g_o = split_heads(torch.matmul(g_x1, params.get(pre + "attn.proj.weight")), r, cfg)
    g_n1 = QKV_GRADIENT[method](params, cfg, b, c, g_o, on)
    return pad_rows(g_x1, r, cfg.tokens) + layer_norm_gradient(g_n1, c.rstd1, params.get(pre + "norm1.weight"))


def pixel_map(params, cfg: ViTConfig, fw, g):
    """g [K, S, D] at the embedding -> R_pix [K, H, W] = Σ_RGB x ⊙ g_x. The class/dist tokens
    and pos_embed are constants: only the patch rows reach the pixels."""
    g_patches = torch.matmul(g[:, cfg.special_tokens:, :], conv_kernel_matrix(params, cfg))  # [K, N, 3pp]
    k = g.shape[0]
    p = cfg.patch_size
    gh, gw = cfg.grid
    r = (g_patches * fw.patches).reshape(k, gh * gw, 3, p * p).sum(2)
    r = r.reshape(k, gh, gw, p, p).permute(0, 1, 3, 2, 4)
    return r.reshape(k, gh * p, gw * p)


def modified_backward(params, cfg: ViTConfig, fw, target, method: str, on=ONE):
    """The method's pixel map [K, H, W] for target rows [K, C], seeded with the one-hot
    of the raw logits (target itself)."""
    g = layer_norm_gradient(head_gradient(params, cfg, target), fw.final_rstd, params.get("norm.weight"))
    for b in reversed(range(cfg.depth)):
        g = block_gradient(params, cfg, b, fw.blocks[b], g, method, on)
    return pixel_map(params, cfg, fw, g)


def switched_map(params, cfg: ViTConfig, fw, target, switch, method: str):
    """switch: 0-d tensor; 0 runs the pass on no rows and returns zeros [K, H, W]."""
    wanted = (switch != 0).long()
    rows = target[: wanted * target.shape[0]]
    pixels = modified_backward(params, cfg, fw, rows, method, ONE_ROW[:wanted])
    # zeros from the target, not torch.zeros (a ConstantOfShape; see lrp.relevance_pass)
    zeros = target[:, :1, None].clamp(0, 0).expand(-1, *cfg.image_size).to(pixels.dtype)
    return torch.cat([pixels, zeros], dim=0)[: target.shape[0]]
