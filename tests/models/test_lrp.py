"""The explainer's LRP relevances equal the independent float64 reference's."""
import pytest
import torch

from conftest import random_inputs
from lrp_reference64 import reference_explanation
from models.exporter.explainer import build_explainer
from tolerance import assert_close, rel_err, sweep_seeds


def explain(cfg, sd, pixels, target, dtype=torch.float64, pixel_relevance=1.0):
    module = build_explainer(cfg, sd).to(dtype)
    with torch.no_grad():
        return module(pixels.to(dtype), target.to(dtype), torch.tensor(pixel_relevance))


def test_shapes_follow_the_contract(tiny_model):
    cfg, sd = tiny_model
    pixels, target = random_inputs(cfg, 3, seed=0)
    out = explain(cfg, sd, pixels, target, torch.float32)
    B, h, S, C = cfg.depth, cfg.heads, cfg.tokens, cfg.num_classes
    H, W = cfg.image_size
    assert [tuple(o.shape) for o in out] == [(1, C), (B, h, S, S), (3, B, h, S, S), (3, B, h, S, S),
                                             (3, h, S, S), (3, H, W), (3, H, W), (3, H, W)]
    assert all(o.dtype == torch.float32 and torch.isfinite(o).all() for o in out)


# pixel_relevance 0 forms the proposed Linear denominators from the forward's products (one
# matrix product each), 1 from the two products the classic rule shares: both are the rule.
@pytest.mark.parametrize("pixel_relevance", [0.0, 1.0])
def test_proposed_relevance_of_every_block_matches_reference(tiny_model, pixel_relevance):
    cfg, sd = tiny_model
    for seed in sweep_seeds((0, 1)):
        pixels, target = random_inputs(cfg, 2, seed=seed)
        ref = reference_explanation(cfg, sd, pixels, target)[3]
        rel = explain(cfg, sd, pixels, target, pixel_relevance=pixel_relevance)[3]
        for b in range(cfg.depth):
            assert_close("f64_vs_f64.attn_rel", rel[:, b], ref[:, b], f"seed {seed} block {b}")


def test_classic_relevance_of_last_block_matches_reference(tiny_model):
    cfg, sd = tiny_model
    pixels, target = random_inputs(cfg, 2, seed=2)
    ref = reference_explanation(cfg, sd, pixels, target)[4]
    assert_close("f64_vs_f64.attn_rel_classic_last", explain(cfg, sd, pixels, target)[4], ref)


def test_classic_pixel_relevance_matches_reference(tiny_model):
    cfg, sd = tiny_model
    pixels, target = random_inputs(cfg, 2, seed=3)
    ref = reference_explanation(cfg, sd, pixels, target)[5]
    assert_close("f64_vs_f64.input_rel_classic", explain(cfg, sd, pixels, target)[5], ref)


def test_one_hot_targets_and_variants_differ(tiny_model):
    cfg, sd = tiny_model
    pixels, _ = random_inputs(cfg, 1, seed=5)
    target = torch.eye(cfg.num_classes)[[2, 7]]
    ref = reference_explanation(cfg, sd, pixels, target)
    out = explain(cfg, sd, pixels, target)
    assert_close("f64_vs_f64.attn_rel", out[3], ref[3])
    assert_close("f64_vs_f64.attn_rel_classic_last", out[4], ref[4])
    # the two classes get different maps, and the classic rules differ from the proposed ones
    assert rel_err(out[3][0], out[3][1]) > 1e-2
    assert rel_err(out[4][0], out[3][0, -1]) > 1e-2


# Lower blocks are left out: the z-rule on the signed q·kᵀ divides by near-zero sums and
# float32 rounding decides there (METHODS.md); the float64 tests above check their rules.
def test_float32_relevance_of_upper_blocks_is_close(tiny_model):
    cfg, sd = tiny_model
    for seed in sweep_seeds((6, 7, 8)):
        pixels, target = random_inputs(cfg, 2, seed=seed)
        ref = reference_explanation(cfg, sd, pixels, target)
        out = explain(cfg, sd, pixels, target, torch.float32)
        assert_close("f32_vs_f64.attn_rel_last", out[3][:, -1], ref[3][:, -1], f"seed {seed}")
        assert_close("f32_vs_f64.attn_rel_classic_last", out[4], ref[4], f"seed {seed}")
