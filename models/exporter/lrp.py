"""Both LRP passes (proposed and classic rules) from the logits down, batched over K.

The two variants travel together as the leading V dim of one tensor, so every matmul
against a weight serves both at once; they differ only in the Linear normalisation and
the residual renormalisation (see lrp_rules). Below the last block's attention the
classic variant only feeds the pixel relevance, so the `pixel_relevance` graph input cuts
V to 1 + flag there (a run-time Slice: onnxruntime-web computes every node whatever is
fetched, so only a real input can switch work off). Block 0 needs just the proposed
relevance at its attention; below it the LAST variant alone continues to the pixels
(classic when flag = 1; with flag = 0 a small wasted tail, zeroed at the end, which keeps
every tensor non-empty).
"""
import torch

from .backward import pad_rows
from .config import ViTConfig
from .forward import conv_kernel_matrix
from .lrp_rules import (CLASSIC, PROPOSED, clone_relprop, linear_relprop, patch_zbeta_relprop,
                        product_relprop, residual_relprop, select_relprop)

BOTH = (PROPOSED, CLASSIC)
ONE_CLASSIC_ROW = torch.ones(1, 1, 1)  # classic_rows where both variants are always present


# V can be decided at run time (pixel_relevance), so reshapes read it from the tensor:
# one Shape/Gather each, against K and V both dynamic.


def _split_heads(t, rows, cfg: ViTConfig):
    """[V, K, rows, D] -> [V, K, h, rows, d]."""
    return t.reshape(t.shape[0], -1, rows, cfg.heads, cfg.head_dim).transpose(2, 3)


def _merge_qkv(r_q, r_k, r_v, cfg: ViTConfig):
    """Three [V, K, h, S, d] relevances -> [V, K, S, 3D] in timm's qkv column order."""
    t = torch.stack([r_q, r_k, r_v], dim=2)  # [V, K, 3, h, S, d]
    return t.permute(0, 1, 4, 2, 3, 5).reshape(r_q.shape[0], -1, cfg.tokens, 3 * cfg.embed_dim)


def head_relprop(params, cfg: ViTConfig, fw, R):
    """Relevance [V, K, C] at the logits -> [V, K, nh, D] at the final LayerNorm output."""
    x0 = fw.final_out[0:1]
    one = ONE_CLASSIC_ROW
    if not cfg.distilled:
        return select_relprop(linear_relprop(R.unsqueeze(2), x0, params.get("head.weight"), BOTH, one), x0)
    # logits = (head + head_dist)/2: the mean is treated as an Add of the two halves
    # (variant's residual rule; the 1/2 scale passes relevance unchanged).
    r0, r1 = residual_relprop(R.unsqueeze(2), fw.head_out * 0.5, fw.head_dist_out * 0.5,
                              fw.logits, BOTH)
    x1 = fw.final_out[1:2]
    r0 = select_relprop(linear_relprop(r0, x0, params.get("head.weight"), BOTH, one), x0)
    r1 = select_relprop(linear_relprop(r1, x1, params.get("head_dist.weight"), BOTH, one), x1)
    return torch.cat([r0, r1], dim=2)


def block_relprop(params, cfg: ViTConfig, b, c, R, variants, classic_rows, last_variant_below):
    """R [V, K, rows, D] at the block output (V a prefix of `variants`; classic_rows: ones
    [F, 1, 1], F = R's number of CLASSIC rows, see linear_relprop).
    Returns (R_attn [V,K,h,S,S], R_in [V',K,S,D]).

    last_variant_below: only the last variant slice continues below the attention
    (V' = 1, classic rules); otherwise all of them (V' = V).
    """
    S, rows = cfg.tokens, c.rows
    pre = f"blocks.{b}."
    r_x1, r_m = residual_relprop(R, c.x1, c.mlp_out, c.x_out, variants)
    r_g = linear_relprop(r_m, c.g, params.get(pre + "mlp.fc2.weight"), variants, classic_rows)
    r_n2 = linear_relprop(r_g, c.n2, params.get(pre + "mlp.fc1.weight"), variants, classic_rows)  # GELU: identity
    r_x1 = clone_relprop(r_x1, r_n2, c.x1)  # LN2: identity
    r_x, r_p = residual_relprop(r_x1, c.x_rows, c.proj_out, c.x1, variants)
    r_o = linear_relprop(r_p, c.o_merged, params.get(pre + "attn.proj.weight"), variants, classic_rows)
    r_a, r_v = product_relprop(_split_heads(r_o, rows, cfg), c.attn_rows, c.v, c.o)
    r_attn = pad_rows(r_a, rows, S)
    if last_variant_below:
        r_a, r_v, r_x = r_a[-1:], r_v[-1:], r_x[-1:]
        variants = (CLASSIC,)
    # softmax and the d^-1/2 scale: identity; then the unscaled q.k^T product
    r_q, r_k = product_relprop(r_a, c.q[:, :rows], c.k.transpose(-1, -2), c.zqk[:, :rows])
    r_qkv = _merge_qkv(pad_rows(r_q, rows, S), r_k.transpose(-1, -2), r_v, cfg)
    r_n1 = linear_relprop(r_qkv, c.n1, params.get(pre + "attn.qkv.weight"), variants, classic_rows)
    return r_attn, clone_relprop(pad_rows(r_x, rows, S), r_n1, c.x)  # LN1: identity


def input_relprop(params, cfg: ViTConfig, fw, R):
    """Classic relevance [K, S, D] at block 0's input -> [K, H, W] at the pixels."""
    r_tok, _ = residual_relprop(R.unsqueeze(0), fw.tokens0, fw.pos, fw.x_embed, (CLASSIC,))
    r_patch = r_tok[0, :, cfg.special_tokens:, :]  # [K, N, D]
    r_pix = patch_zbeta_relprop(r_patch, fw.patches, fw.emb_nobias, conv_kernel_matrix(params, cfg),
                                fw.pixels.min(), fw.pixels.max())  # [K, N, 3pp]
    p = cfg.patch_size
    gh, gw = cfg.grid
    r_pix = r_pix.reshape(-1, gh * gw, 3, p * p).sum(2)  # sum over RGB
    r_pix = r_pix.reshape(-1, gh, gw, p, p).permute(0, 1, 3, 2, 4)
    return r_pix.reshape(-1, gh * p, gw * p)


def relevance_pass(params, cfg: ViTConfig, fw, target, pixel_relevance):
    """pixel_relevance: 0-d tensor, 0 = skip the classic pixel relevance (zeros returned).
    Returns (proposed R_attn per block [K,h,S,S] list, classic last R_attn [K,h,S,S],
    classic pixel relevance [K,H,W])."""
    wanted = pixel_relevance != 0
    # relevance starts as the target vector itself; head_relprop includes the token
    # selection, and the final LayerNorm passes relevance unchanged
    R = head_relprop(params, cfg, fw, torch.stack([target, target], dim=0))
    proposed = [None] * cfg.depth
    classic_last = None
    classic_rows = ONE_CLASSIC_ROW
    for b in reversed(range(cfg.depth)):
        r_attn, R = block_relprop(params, cfg, b, fw.blocks[b], R, BOTH, classic_rows,
                                  last_variant_below=b == 0)
        proposed[b] = r_attn[0]
        if b == cfg.depth - 1:
            classic_last = r_attn[-1]
            R = R[: 1 + wanted.long()]  # [PROPOSED] or [PROPOSED, CLASSIC] from here down
            classic_rows = ONE_CLASSIC_ROW[: wanted.long()]
    pixels = input_relprop(params, cfg, fw, R[0])
    # where, not a product: the wasted tail of flag = 0 may hold inf/NaN
    return proposed, classic_last, torch.where(wanted, pixels, torch.zeros((), dtype=pixels.dtype))
