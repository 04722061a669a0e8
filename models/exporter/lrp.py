"""Both LRP passes (proposed and classic rules) from the logits down, batched over K.

The two variants travel as separate streams [K, ...] (see lrp_rules). Below the last
block's attention the classic stream only feeds the pixel relevance, so the
`pixel_relevance` graph input cuts it to 0 rows there (onnxruntime-web computes every node
whatever is fetched, so only a real input can switch work off; empty tensors cost
nothing). Block 0 needs just the proposed relevance at its attention; below it only the
classic stream continues to the pixels.
"""
import torch
import torch.nn.functional as F

from .backward import pad_rows
from .config import ViTConfig
from .forward import conv_kernel_matrix, pooled_rows
from .lrp_rules import (clone_relprop, each, linear_relprop, patch_zbeta_relprop, product_relprop,
                        residual_relprop, safe_inverse, select_relprop)

ONE_ROW = torch.ones(1, 1, 1)


# Reshapes leave the row axis to -1 even where the classic stream is empty (0 rows):
# onnxruntime infers 0 there, and reading the count from the tensor exports a Shape,
# Gather, Unsqueeze and Concat chain per reshape.


def _split_heads(t, rows, cfg: ViTConfig):
    """[K, rows, D] -> [K, h, rows, d]."""
    return t.reshape(-1, rows, cfg.heads, cfg.head_dim).transpose(1, 2)


def _merge_qkv(r_q, r_k, r_v, cfg: ViTConfig):
    """Three [K, h, S, d] relevances -> [K, S, 3D] in timm's qkv column order."""
    t = torch.cat([r_q, r_k, r_v], dim=1).reshape(-1, 3, cfg.heads, cfg.tokens, cfg.head_dim)  # no Unsqueezes
    return t.permute(0, 3, 1, 2, 4).reshape(-1, cfg.tokens, 3 * cfg.embed_dim)


def head_relprop(params, cfg: ViTConfig, fw, R):
    """Relevance pair of [K, C] at the logits -> pair of [K, rows, D] at the final LayerNorm
    output (the final LayerNorm passes relevance unchanged)."""
    R = each(lambda r: r.unsqueeze(1), R)
    inv = getattr(fw, "lrp_inv", {})
    if cfg.pool not in ("cls", "cls+dist"):
        return _pooled_relprop(params, cfg, fw, R, inv)
    x0 = fw.final_out[0:1]
    if cfg.pool == "cls":
        return select_relprop(linear_relprop(R, x0, params.linear("head.weight"), inv_proposed=inv.get("head")), x0)
    # logits = (head + head_dist)/2: the mean is treated as an Add of the two halves
    # (variant's residual rule; the 1/2 scale passes relevance unchanged).
    r0, r1 = residual_relprop(R, fw.head_out * 0.5, fw.head_dist_out * 0.5, fw.logits)
    x1 = fw.final_out[1:2]
    r0 = select_relprop(linear_relprop(r0, x0, params.linear("head.weight"), inv_proposed=inv.get("head")), x0)
    r1 = select_relprop(linear_relprop(r1, x1, params.linear("head_dist.weight"),
                                       inv_proposed=inv.get("head_dist")), x1)
    return tuple(None if a is None else torch.cat([a, b], dim=1) for a, b in zip(r0, r1))


def _pooled_relprop(params, cfg: ViTConfig, fw, R, inv):
    """Average-pooling heads: the head Linear's rules down to its input, then the mean, an
    Add of the pooled rows, by the z-rule: each row keeps its share x_i / Σ x of every
    feature's relevance (both streams; no reference implementation has such a head).
    fc_norm sits between the mean and the head and passes relevance unchanged."""
    D, S = cfg.embed_dim, cfg.tokens
    first, n = pooled_rows(cfg)
    r = linear_relprop(R, fw.feat, params.linear("head.weight"), inv_proposed=inv.get("head"))  # [K, 1, D']
    r_cls, r_mean = (each(lambda t: t[..., :D], r), each(lambda t: t[..., D:], r)) \
        if cfg.pool == "cls+avg" else ((None, None), r)
    x = (fw.final_in if cfg.fc_norm else fw.final_out)[first:]  # the pooled rows [n, D]
    inv_sum = safe_inverse(x.sum(0, keepdim=True))
    rows = each(lambda t: F.pad(x * (t * inv_sum), (0, 0, first, 0)), r_mean)  # [K, S, D]
    if cfg.pool == "cls+avg":
        rows = tuple(None if a is None else a + F.pad(c, (0, 0, 0, S - 1)) for a, c in zip(rows, r_cls))
    return rows


def block_relprop(params, cfg: ViTConfig, b, c, R, classic_rows, identity_rows=None, wanted=None):
    """R: (proposed, classic) streams [K, rows, D] at the block output; classic_rows: None
    or ones [F,1,1], identity_rows ones [1-F,1,1] (see linear_relprop). Returns (R_attn
    pair [K,h,S,S], R_in pair [K,S,D]). In block 0 only the classic stream continues below
    the attention. wanted (0-d, 0 or 1): in the block whose attention is the classic
    stream's last output (the last block), it keeps K rows or none below that attention."""
    S, rows = cfg.tokens, c.rows
    pre = f"blocks.{b}."
    inv = getattr(c, "lrp_inv", {})  # precomputed proposed denominators (split export)

    def linear(r, x, name, product, rows_f, rows_1f):  # name: "mlp.fc2" -> blocks.b.mlp.fc2.weight, inv "fc2"
        inv_proposed = inv.get(name.split(".")[-1])
        return linear_relprop(r, x, params.linear(pre + name + ".weight"), rows_f, inv_proposed, product, rows_1f)

    # LayerScale (a per-feature scaling of the branch) passes relevance unchanged
    r_x1, r_m = residual_relprop(R, c.x1, c.mlp_branch, c.x_out)
    r_g = linear(r_m, c.g, "mlp.fc2", c.fc2_product, classic_rows, identity_rows)
    r_n2 = linear(r_g, c.n2, "mlp.fc1", c.fc1_product, classic_rows, identity_rows)  # GELU: identity
    r_x1 = clone_relprop(r_x1, r_n2, c.x1)  # LN2: identity
    r_x, r_p = residual_relprop(r_x1, c.x_rows, c.attn_branch, c.x1)
    r_o = linear(r_p, c.o_merged, "attn.proj", c.proj_product, classic_rows, identity_rows)
    r_a, r_v = product_relprop(each(lambda r: _split_heads(r, rows, cfg), r_o), c.attn_rows, c.v, c.o,
                               classic_rows)
    r_attn = each(lambda r: pad_rows(r, rows, S), r_a)
    if wanted is not None and R[1] is not None:
        r_a, r_v, r_x = ((p, cl[: wanted * cl.shape[0]]) for p, cl in (r_a, r_v, r_x))
        classic_rows, identity_rows = ONE_ROW[:wanted], ONE_ROW[wanted:]
    if b == 0:
        r_a, r_v, r_x = (None, r_a[1]), (None, r_v[1]), (None, r_x[1])
    # softmax and the d^-1/2 scale: identity; then the unscaled q.k^T product
    r_q, r_k = product_relprop(r_a, c.q_rows, c.k.transpose(-1, -2), c.zqk_rows,
                               classic_rows)
    r_qkv = tuple(None if q is None else _merge_qkv(pad_rows(q, rows, S), k.transpose(-1, -2), v, cfg)
                  for q, k, v in zip(r_q, r_k, r_v))
    r_n1 = linear(r_qkv, c.n1, "attn.qkv", c.qkv_product, classic_rows, identity_rows)
    return r_attn, clone_relprop(each(lambda r: pad_rows(r, rows, S), r_x), r_n1, c.x)  # LN1: identity


def input_relprop(params, cfg: ViTConfig, fw, R):
    """Classic relevance [K', S, D] at block 0's input -> [K', H, W] at the pixels.
    norm_pre, a LayerNorm, passes relevance unchanged; the prefix tokens' relevance is
    left out (it does not reach the pixels)."""
    if cfg.no_embed_class:  # only the patch rows had the position embedding added
        R = R[:, cfg.special_tokens:, :]
    (_, r_tok), _ = residual_relprop((None, R), fw.tokens0, fw.pos, fw.x_embed)
    r_patch = r_tok if cfg.no_embed_class else r_tok[:, cfg.special_tokens:, :]  # [K', N, D]
    r_pix = patch_zbeta_relprop(r_patch, fw.patches, fw.emb_nobias, conv_kernel_matrix(params, cfg),
                                fw.pixels.min(), fw.pixels.max())  # [K', N, 3pp]
    p = cfg.patch_size
    gh, gw = cfg.grid
    r_pix = r_pix.reshape(-1, gh * gw, 3, p * p).sum(2)  # sum over RGB
    r_pix = r_pix.reshape(-1, gh, gw, p, p).permute(0, 1, 3, 2, 4)
    return r_pix.reshape(-1, gh * p, gw * p)
