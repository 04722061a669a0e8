"""The explainer's hand-written attention gradients equal torch.autograd's."""
import torch

from conftest import random_inputs
from lrp_reference64 import reference_explanation
from models.exporter.explainer import build_explainer
from tolerance import assert_close, rel_err, sweep_seeds


def run_double(cfg, sd, pixels, target):
    module = build_explainer(cfg, sd).double()
    with torch.no_grad():
        return module(pixels.double(), target.double(), torch.tensor(1.0))


def test_logits_and_attention_match_the_reference_forward(tiny_model):
    cfg, sd = tiny_model
    pixels, target = random_inputs(cfg, 2, seed=0)
    ref = reference_explanation(cfg, sd, pixels, target)
    out = run_double(cfg, sd, pixels, target)
    assert_close("f64_vs_f64.logits", out[0], ref[0])
    assert_close("f64_vs_f64.attn", out[1], ref[1])


def test_attention_gradients_equal_autograd(tiny_model):
    cfg, sd = tiny_model
    for seed in sweep_seeds((0, 1)):
        pixels, target = random_inputs(cfg, 3, seed=seed)
        ref_grads = reference_explanation(cfg, sd, pixels, target)[2]
        grads = run_double(cfg, sd, pixels, target)[2]
        assert grads.shape == (3, cfg.depth, cfg.heads, cfg.tokens, cfg.tokens)
        for b in range(cfg.depth):
            assert_close("f64_vs_f64.attn_grad", grads[:, b], ref_grads[:, b], f"seed {seed} block {b}")


def test_float32_gradients_are_close_to_autograd(tiny_model):
    cfg, sd = tiny_model
    module = build_explainer(cfg, sd)
    for seed in sweep_seeds((3, 4, 5)):
        pixels, target = random_inputs(cfg, 2, seed=seed)
        ref_grads = reference_explanation(cfg, sd, pixels, target)[2]
        with torch.no_grad():
            grads = module(pixels, target, torch.tensor(1.0))[2]
        assert_close("f32_vs_f64.attn_grad", grads, ref_grads, f"seed {seed}")


def test_different_inputs_give_different_gradients(tiny_model):
    cfg, sd = tiny_model
    pixels_a, target = random_inputs(cfg, 1, seed=0)
    pixels_b, _ = random_inputs(cfg, 1, seed=1)
    g_a = run_double(cfg, sd, pixels_a, target)[2]
    g_b = run_double(cfg, sd, pixels_b, target)[2]
    assert rel_err(g_a, g_b) > 1e-2


def test_gradient_is_linear_in_the_target(tiny_model):
    # rows are independent: the gradient of a combination is the combination of gradients
    cfg, sd = tiny_model
    pixels, target = random_inputs(cfg, 2, seed=4)
    target = target.double()  # the combination must be exact
    combo = torch.cat([target, 2 * target[:1] - 3 * target[1:]])
    g = run_double(cfg, sd, pixels, combo)[2]
    assert_close("f64_vs_f64.linear_in_target", g[2], 2 * g[0] - 3 * g[1])
