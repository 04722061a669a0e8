"""LRP rules of METHODS.md as plain tensor operations (export-safe, no autograd).

Relevance travels as a pair of streams (proposed, classic), each [K, ...] or None where a
variant is not propagated: PROPOSED = official layers_ours, CLASSIC = official layers_lrp.
Below the last block the classic stream may be an empty tensor (0 rows: the
pixel_relevance input is 0), so it costs nothing; its only own forward-side factors, the
classic Linear denominators, are then empty too (classic_rows).
Forward-side quantities ([rows, features], no K dim) are shared by both streams and every
target row: denominators are turned into reciprocals once, then each stream multiplies.
"""
import functools

import torch

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
    return torch.where(b == 0, _scalar(0.0, b), torch.reciprocal(b + EPS))  # 1.0/t exports a Mul too


def safe_divide(a, b):
    """The reference safe_divide, for per-target-row quantities, without its den == 0 case
    (as safe_inverse)."""
    return torch.where(b == 0, _scalar(0.0, b), a / (b + EPS))


def each(fn, pair):
    """Apply fn to each present stream of a (proposed, classic) pair."""
    return tuple(None if r is None else fn(r) for r in pair)


class LinearParts:
    """A Linear layer's weight W [out, in] and the parts of it the rules read: W⁺, W⁻ and |W|.

    By default each part is computed from W when a rule first reads it (onnxruntime folds these
    into constants when it opens a session). A loop over the blocks (scan_graph.py) cannot
    fold what it computes inside its body, block by block, on every run: it computes the
    parts of all blocks once, outside the loop, and hands them in."""

    def __init__(self, weight, pos=None, neg=None, magnitude=None):
        self.weight = weight
        for name, part in (("pos", pos), ("neg", neg), ("magnitude", magnitude)):
            if part is not None:
                setattr(self, name, part)  # given: its cached_property below is never computed

    @functools.cached_property
    def pos(self):
        return torch.relu(self.weight)

    @functools.cached_property
    def neg(self):
        return self.weight - self.pos

    @functools.cached_property
    def magnitude(self):
        return self.weight.abs()


def times_transposed(x, weight):
    """x [.., r, in] · Wᵀ -> [.., r, out] as one product of 2-D rows (the exporter writes it
    as a Gemm reading W where it lies, not a MatMul of a transposed copy: scan_graph.py)."""
    if x.dim() == 2:
        return torch.matmul(x, weight.t())
    rows, out = int(x.shape[-2]), int(weight.shape[0])
    return torch.matmul(x.reshape(-1, int(x.shape[-1])), weight.t()).reshape(-1, rows, out)


def proposed_inverse(x, lin: LinearParts, product=None):
    """1/(x+W+^T + x-W-^T), the proposed Linear rule's denominator Z: forward-side, the same
    for every target row, so a split export computes it once per photo (split.py).

    Every term of Z is >= 0, and x+W+^T + x-W-^T = (xW^T + |x||W|^T)/2 exactly. Given the
    forward's own product xW^T, that costs one matrix product instead of two (the graph's
    largest saving). Its rounding (the sum is clamped at 0, as Z is) moved DeiT-tiny's
    transformer-attribution maps by ~1e-8 in Pearson on 21 photos, and left the golden
    catdog agreement unchanged to 5 digits: far below the float32 noise of the rules."""
    if product is not None:
        return safe_inverse(_identity_denominator(x, lin, product))
    x_pos = torch.relu(x)
    return safe_inverse(times_transposed(x_pos, lin.pos) + times_transposed(x - x_pos, lin.neg))


def _identity_denominator(x, lin: LinearParts, product):
    return torch.relu((product + times_transposed(x.abs(), lin.magnitude)) * 0.5)


def linear_relprop(R, x, lin: LinearParts, classic_rows=None, inv_proposed=None, product=None, identity_rows=None):
    """Linear layer, alpha=1 beta=0, bias ignored. R streams [K,r,out], x [r,in] -> [K,r,in].

    proposed: Z = x+W+^T + x-W-^T, S = R/Z for both parts.
    classic:  S1 = R/(x+W+^T), S2 = R/(x-W-^T).
    classic_rows: None, or ones [F,1,1] with F (0 or 1, run time) = whether the classic
    stream has rows; its denominators are formed on F copies (empty when F = 0).
    inv_proposed: proposed_inverse(x, lin) when already computed (split export).
    product, identity_rows: the forward's x W^T and ones [1-F,1,1]. With them the proposed
    Z comes from the one-product identity when the classic stream is off, and from the two
    products the classic rule needs anyway when it is on: never more than two products.
    Without a classic stream, the proposed Z comes from the identity wherever the forward's
    product is given.
    """
    r_p, r_c = R
    if r_p is None and classic_rows is not None:
        x = x * classic_rows  # classic only: even the forward-side products are empty
    w_pos, w_neg = lin.pos, lin.neg
    x_pos = torch.relu(x)
    x_neg = x - x_pos

    def back(s_pos, s_neg):
        return x_pos * torch.matmul(s_pos, w_pos) + x_neg * torch.matmul(s_neg, w_neg)

    def products(xp, xn):
        return times_transposed(xp, w_pos), times_transposed(xn, w_neg)

    # the classic denominators: on the classic stream's F rows when it has its own
    own_rows = r_p is not None and classic_rows is not None
    z_pos = z_neg = None
    out_p = out_c = None
    if r_p is not None:
        if inv_proposed is None and product is not None and own_rows:
            z_pos, z_neg = products(x_pos * classic_rows, x_neg * classic_rows)  # [F, r, out]
            z_identity = _identity_denominator(x * identity_rows, lin, product)  # [1-F, r, out]
            # one of the two is empty; a reshape to the static [r, out], as squeeze(0) on a
            # dynamic axis exports an If
            z = torch.cat([z_identity, z_pos + z_neg], dim=0).reshape(int(x.shape[-2]), int(w_pos.shape[0]))
            inv_proposed = safe_inverse(z)
        elif inv_proposed is None and product is not None and r_c is None:  # no classic stream
            inv_proposed = safe_inverse(_identity_denominator(x, lin, product))
        elif inv_proposed is None:  # the last block and the head: the classic stream is always on
            z_pos, z_neg = products(x_pos, x_neg)
            inv_proposed = safe_inverse(z_pos + z_neg)
        s = r_p * inv_proposed
        out_p = back(s, s)
    if r_c is not None:
        if z_pos is None:
            xc_pos, xc_neg = (x_pos * classic_rows, x_neg * classic_rows) if own_rows else (x_pos, x_neg)
            z_pos, z_neg = products(xc_pos, xc_neg)
        out_c = back(r_c * safe_inverse(z_pos), r_c * safe_inverse(z_neg))
    return out_p, out_c


def residual_relprop(R, x, f, z):
    """z = x + f. z-rule split; the proposed stream then rescales each part so that the
    parts keep their share |a|/(|a|+|c|) of the total (sums over the whole map per target row).
    Returns (R_x pair, R_f pair)."""
    inv = safe_inverse(z)

    def z_rule(r):
        s = r * inv
        return x * s, f * s

    split = [None if r is None else z_rule(r) for r in R]
    r_p = R[0]
    if r_p is not None:
        r_x, r_f = split[0]
        # both parts' sums side by side in one [K, 1, 2] tensor: half the (tiny but
        # numerous) graph nodes, and no axis to add back before scaling the [K, r, D] parts
        sums = torch.cat([r_x.sum((-2, -1), keepdim=True), r_f.sum((-2, -1), keepdim=True)], dim=-1)
        mags = sums.abs()
        total = r_p.sum((-2, -1), keepdim=True)
        scale = safe_divide(safe_divide(mags, mags.sum(-1, keepdim=True)) * total, sums)
        split[0] = (r_x * scale[..., 0:1], r_f * scale[..., 1:2])
    return tuple(None if s is None else s[0] for s in split), tuple(None if s is None else s[1] for s in split)


def clone_relprop(R_a, R_b, x):
    """Fork x -> (x, x): relevances of both branches add up (zero where x == 0)."""
    inv = safe_inverse(x)
    return tuple(None if a is None else x * ((a + b) * inv) for a, b in zip(R_a, R_b))


def select_relprop(R, x):
    """Token selection / identity-like passes of the reference: x * safe_divide(R, x)."""
    inv = safe_inverse(x)
    return each(lambda r: x * (r * inv), R)


def product_relprop(R, u, v, product, classic_rows=None):
    """product = u @ v (u [h,r,n], v [h,n,m], shared, taken from the forward pass);
    R streams [K,h,r,m]. Returns (R_u pair, R_v pair), both halved as the reference does.
    classic_rows as in linear_relprop: MatMul cannot broadcast a batch dim of 1 against
    the empty classic stream's 0, so for that stream the shared factors get F rows."""
    # the reference's halving, on the shared inverse: a power of two, so exactly as after
    # both products, in one node instead of one per product and stream
    half_inv = safe_inverse(product) * 0.5
    u_t, v_t = u.transpose(-1, -2), v.transpose(-1, -2)
    factors = [(u_t, v_t), (u_t, v_t)]
    if classic_rows is not None:
        rows = classic_rows.unsqueeze(-1)
        factors[1] = (u_t * rows, v_t * rows)
    r_u, r_v = [None, None], [None, None]
    for i, (r, (ut, vt)) in enumerate(zip(R, factors)):
        if r is not None:
            s = r * half_inv
            r_u[i] = u * torch.matmul(s, vt)
            r_v[i] = v * torch.matmul(ut, s)
    return tuple(r_u), tuple(r_v)


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
