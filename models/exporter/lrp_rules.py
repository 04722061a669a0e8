"""LRP rules of METHODS.md as plain tensor operations (export-safe, no autograd).

Relevance tensors carry two leading dims [V, K, ...]: V indexes the rule variant
(PROPOSED = official layers_ours, CLASSIC = official layers_lrp), K the targets. R may
carry only a leading prefix of the `variants` it is given (the pixel_relevance input drops
CLASSIC at run time), so per-variant factors are cut to R's own V before broadcasting.
Forward-side quantities ([rows, features], no V/K dims) are shared by every target and
variant: denominators are turned into reciprocals once, then each target multiplies.
"""
import torch

PROPOSED = "proposed"
CLASSIC = "classic"
EPS = 1e-9


def _scalar(value, like):
    # 0-d: traced as a one-number Constant (full_like would store a whole tensor)
    return torch.tensor(value, dtype=like.dtype)


def safe_inverse(b):
    """1/den of the reference safe_divide, with 0 where b == 0, for shared denominators.

    The reference's den = clamp(b, min=eps) + clamp(b, max=eps) equals b + eps exactly
    (one clamp returns b, the other eps). Its extra case den == 0 needs b == -eps to the
    last bit; it is left out here to save two full-size ops per layer (it would give inf).
    """
    return torch.where(b == 0, _scalar(0.0, b), 1.0 / (b + EPS))


def safe_divide(a, b):
    """The reference safe_divide, for per-target quantities."""
    den = b + EPS
    den = torch.where(den == 0, _scalar(EPS, b), den)
    return torch.where(b == 0, _scalar(0.0, b), a / den)


def _first_variants_of(t, R):
    """t [len(variants), ...] cut to R's (possibly run-time) variant count: a dynamic
    Slice in the graph, so a 2-variant factor never re-expands a 1-variant R."""
    return t[: R.shape[0]]


def linear_relprop(R, x, weight, variants, classic_rows=None):
    """Linear layer, alpha=1 beta=0, bias ignored. R [V,K,r,out], x [r,in] -> [V,K,r,in].

    proposed: Z = x+W+^T + x-W-^T, S = R/Z for both parts.
    classic:  S1 = R/(x+W+^T), S2 = R/(x-W-^T).

    With both variants, R's CLASSIC rows (0 or 1, decided at run time) are counted by
    classic_rows, ones of shape [F, 1, 1]: the classic denominators are formed on F copies,
    so when the pixel pass is off they are empty tensors and cost nothing.
    """
    w_pos = torch.relu(weight)
    w_neg = weight - w_pos
    x_pos = torch.relu(x)
    x_neg = x - x_pos
    z_pos = torch.matmul(x_pos, w_pos.t())
    z_neg = torch.matmul(x_neg, w_neg.t())
    if PROPOSED not in variants:  # classic only
        inv_pos, inv_neg = safe_inverse(z_pos).unsqueeze(0), safe_inverse(z_neg).unsqueeze(0)
    else:
        inv = safe_inverse(z_pos + z_neg).unsqueeze(0)  # [1, r, out]
        if CLASSIC in variants:  # [V, r, out]: proposed row, then the classic rows
            inv_pos = torch.cat([inv, safe_inverse(z_pos * classic_rows)], dim=0)
            inv_neg = torch.cat([inv, safe_inverse(z_neg * classic_rows)], dim=0)
        else:
            inv_pos = inv_neg = inv
    s_pos = R * inv_pos.unsqueeze(1)
    s_neg = s_pos if inv_neg is inv_pos else R * inv_neg.unsqueeze(1)
    return x_pos * torch.matmul(s_pos, w_pos) + x_neg * torch.matmul(s_neg, w_neg)


def residual_relprop(R, x, f, z, variants):
    """z = x + f. z-rule split; the proposed variant then rescales each part so that the
    parts keep their share |a|/(|a|+|c|) of the total (sums over the whole map per target)."""
    s = R * safe_inverse(z)
    r_x = x * s
    r_f = f * s
    if PROPOSED not in variants:
        return r_x, r_f
    # both parts' sums in one [2, V, K] tensor: half the (tiny but numerous) graph nodes
    sums = torch.stack([r_x.sum((-2, -1)), r_f.sum((-2, -1))], dim=0)
    total = R.sum((-2, -1))
    mags = sums.abs()
    scale = safe_divide(safe_divide(mags, mags.sum(0)) * total, sums)
    # renormalise only the proposed rows; classic rows keep the plain z-rule
    keep = torch.tensor([0.0 if v == PROPOSED else 1.0 for v in variants], dtype=R.dtype).reshape(-1, 1)
    keep = _first_variants_of(keep, R)
    scale = torch.where(keep == 1.0, _scalar(1.0, scale), scale).unsqueeze(-1).unsqueeze(-1)
    return r_x * scale[0], r_f * scale[1]


def clone_relprop(r_a, r_b, x):
    """Fork x -> (x, x): relevances of both branches add up (zero where x == 0)."""
    return x * ((r_a + r_b) * safe_inverse(x))


def select_relprop(R, x):
    """Token selection / identity-like passes of the reference: x * safe_divide(R, x)."""
    return x * (R * safe_inverse(x))


def product_relprop(R, u, v, product):
    """product = u @ v (u [h,r,n], v [h,n,m], shared, taken from the forward pass);
    R [V,K,h,r,m]. Returns (R_u, R_v), both halved as the reference does."""
    s = R * safe_inverse(product)
    r_u = u * torch.matmul(s, v.transpose(-1, -2)) * 0.5
    r_v = v * torch.matmul(u.transpose(-1, -2), s) * 0.5
    return r_u, r_v


def patch_zbeta_relprop(R, patches, emb_nobias, kernel, low, high):
    """z-beta rule of the first (patch) conv, written on the patch matrix since stride =
    kernel size. R [K,N,D], patches [N,3pp], kernel [D,3pp], low/high the pixel min/max.
    Returns relevance per patch pixel [K, N, 3pp]."""
    k_pos = torch.relu(kernel)
    k_neg = kernel - k_pos
    za = emb_nobias - low * k_pos.sum(1) - high * k_neg.sum(1) + EPS
    s = R / za
    # L*conv^T(S,W+) + H*conv^T(S,W-) as one product against the bound-weighted kernel
    return patches * torch.matmul(s, kernel) - torch.matmul(s, low * k_pos + high * k_neg)
