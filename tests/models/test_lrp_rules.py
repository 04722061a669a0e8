"""The proposed Linear denominator Z = x+W+^T + x-W-^T: formed from the forward's product
xW^T with one more product, (xW^T + |x||W|^T)/2, it equals the two-product form, stays
>= 0 like Z, and keeps safe_divide's zero where Z is zero."""
import torch

from models.exporter.lrp_rules import LinearParts, proposed_inverse, safe_inverse


def two_products(x, w):
    w_pos, x_pos = w.clamp(min=0), x.clamp(min=0)
    return x_pos @ w_pos.t() + x.clamp(max=0) @ w.clamp(max=0).t()


def test_identity_denominator_equals_the_two_products():
    g = torch.Generator().manual_seed(7)
    for rows, cols, out in ((5, 16, 9), (197, 192, 768)):
        x = torch.randn(rows, cols, generator=g, dtype=torch.float64)
        w = torch.randn(out, cols, generator=g, dtype=torch.float64)
        want = safe_inverse(two_products(x, w))
        got = proposed_inverse(x, LinearParts(w), product=x @ w.t())
        assert torch.allclose(got, want, rtol=1e-10, atol=0)
        assert torch.equal(proposed_inverse(x, LinearParts(w)), want)
        # a loop body's parts, computed once outside it, give the same bits
        parts = LinearParts(w, w.clamp(min=0), w.clamp(max=0), w.abs())
        assert torch.equal(proposed_inverse(x, parts, product=x @ w.t()), got)


def test_identity_denominator_is_never_negative_and_zero_stays_zero():
    # every term x_j W_ij has the "wrong" sign: Z = 0, and xW^T = -|x||W|^T bit for bit
    x = torch.tensor([[1.0, -2.0, 3.0]])
    w = torch.tensor([[-0.1, 0.7, -0.3], [0.0, 0.0, 0.0]])
    assert torch.equal(proposed_inverse(x, LinearParts(w), product=x @ w.t()), torch.zeros(1, 2))
    # a forward product rounded by another kernel may land just below -|x||W|^T: clamped
    # to Z = 0 (inverse 0, as safe_divide gives), never a huge negative inverse
    product = x @ w.t() - 1e-6
    assert torch.equal(proposed_inverse(x, LinearParts(w), product=product), torch.zeros(1, 2))
