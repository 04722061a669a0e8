"""Self-Attention Attribution graphs (models/exporter/attribution.py) against the autograd
reference of METHODS.md's formula (attribution_reference.py)."""
import pytest
import torch

from attribution_reference import probability_at, reference_attr, reference_forward, reference_gradient_sum
from conftest import TINY, lively_state_dict
from models.exporter.attribution import build_block_attribution, build_states
from tolerance import assert_close, rel_err, sweep_seeds


def run_block(cfg, sd, pixels, block, alphas, target, dtype=torch.float64):
    states = build_states(cfg, sd).to(dtype)
    graph = build_block_attribution(cfg, sd, block).to(dtype)
    one_hot = torch.zeros(cfg.num_classes, dtype=dtype)
    one_hot[target] = 1
    with torch.no_grad():
        _, hidden = states(pixels.to(dtype))
        return graph(hidden[block], torch.tensor(alphas, dtype=dtype), one_hot)


def random_case(cfg, seed):
    g = torch.Generator().manual_seed(seed)
    pixels = torch.randn(1, 3, *cfg.image_size, generator=g, dtype=torch.float64)
    block = int(torch.randint(cfg.depth, (1,), generator=g))
    target = int(torch.randint(cfg.num_classes, (1,), generator=g))
    alphas = torch.rand(int(torch.randint(1, 6, (1,), generator=g)), generator=g, dtype=torch.float64).tolist()
    return pixels, block, target, alphas


def test_states_are_the_inputs_of_the_blocks(tiny_model):
    cfg, sd = tiny_model
    pixels = random_case(cfg, 0)[0]
    with torch.no_grad():
        logits, hidden = build_states(cfg, sd).double()(pixels)
        ref_logits, ref_attn = reference_forward(cfg, sd, pixels)
    assert hidden.shape == (cfg.depth, cfg.tokens, cfg.embed_dim)
    assert_close("f64_vs_f64.logits", logits, ref_logits)
    attn, _, _ = run_block(cfg, sd, pixels, cfg.depth - 1, [1.0], 0)
    assert_close("f64_vs_f64.attn", attn, ref_attn[-1][0])


@pytest.mark.parametrize("seed", sweep_seeds(range(4)))
def test_gradient_sum_equals_autograd(tiny_model, seed):
    cfg, sd = tiny_model
    pixels, block, target, alphas = random_case(cfg, seed)
    attn, grad_sum, prob = run_block(cfg, sd, pixels, block, alphas, target)
    ref_attn, ref_sum, ref_prob = reference_gradient_sum(cfg, sd, pixels, block, alphas, target)
    where = f"block {block}, target {target}, alphas {alphas}"
    assert_close("f64_vs_f64.attn", attn, ref_attn, where)
    assert_close("f64_vs_f64.attr_grad_sum", grad_sum, ref_sum, where)
    assert_close("f64_vs_f64.attr_prob", prob, torch.tensor(ref_prob, dtype=torch.float64), where)


@pytest.mark.parametrize("seed", sweep_seeds(range(2)))
def test_float32_graphs_are_close_to_the_reference(tiny_model, seed):
    cfg, sd = tiny_model
    pixels, block, target, alphas = random_case(cfg, 100 + seed)
    attn, grad_sum, prob = run_block(cfg, sd, pixels, block, alphas, target, torch.float32)
    ref_attn, ref_sum, ref_prob = reference_gradient_sum(cfg, sd, pixels, block, alphas, target)
    where = f"seed {seed}, block {block}"
    assert_close("f32_vs_f64.attr_attn", attn, ref_attn, where)
    assert_close("f32_vs_f64.attr_grad_sum", grad_sum, ref_sum, where)
    assert_close("f32_vs_f64.attr_prob", prob, torch.tensor(ref_prob, dtype=torch.float64), where)


def test_every_block_and_the_predicted_class(tiny_model):
    cfg, sd = tiny_model
    pixels = random_case(cfg, 7)[0]
    with torch.no_grad():
        target = int(reference_forward(cfg, sd, pixels)[0].argmax())
    for block in range(cfg.depth):
        _, grad_sum, _ = run_block(cfg, sd, pixels, block, [0.0, 0.5, 1.0], target)
        _, ref_sum, _ = reference_gradient_sum(cfg, sd, pixels, block, [0.0, 0.5, 1.0], target)
        assert_close("f64_vs_f64.attr_grad_sum", grad_sum, ref_sum, f"block {block}")


def test_two_inputs_give_different_gradients(tiny_model):
    cfg, sd = tiny_model
    a = run_block(cfg, sd, random_case(cfg, 0)[0], 1, [0.3, 0.9], 2)[1]
    b = run_block(cfg, sd, random_case(cfg, 1)[0], 1, [0.3, 0.9], 2)[1]
    assert rel_err(a, b) > 1e-2


def test_attr_is_the_left_riemann_sum_of_the_reference(tiny_model):
    cfg, sd = tiny_model
    pixels, block, target, _ = random_case(cfg, 3)
    steps = 5
    attn, grad_sum, _ = run_block(cfg, sd, pixels, block, [i / steps for i in range(steps)], target)
    want = reference_attr(cfg, sd, pixels, block, target, steps)
    assert_close("f64_vs_f64.attr_grad_sum", attn / steps * grad_sum, want)


def completeness_gaps(cfg, sd, pixels, target, steps):
    """Per block (Σ Attr[b], p_t(A) − p_t(0))."""
    out = []
    for block in range(cfg.depth):
        attn, grad_sum, prob = run_block(cfg, sd, pixels, block, [i / steps for i in range(steps)], target)
        with torch.no_grad():
            p_full = probability_at(cfg, sd, pixels, block, attn)[target]
        out.append(((attn / steps * grad_sum).sum().item(), (p_full - prob[0]).item()))
    return out


def predicted(cfg, sd, pixels):
    with torch.no_grad():
        return int(reference_forward(cfg, sd, pixels)[0].argmax())


def test_completeness_with_200_steps():
    # METHODS.md: Σ Attr[b] ≈ p_t(A) − p_t(0); the issue asks for 2 % with m = 200 on every
    # block of a small random ViT (the plain fixture; how close a given m gets depends on
    # the path's curvature, the 1/m convergence below holds for both fixtures)
    cfg = TINY
    sd = lively_state_dict(cfg)
    pixels = random_case(cfg, 11)[0]
    for block, (total, gap) in enumerate(completeness_gaps(cfg, sd, pixels, predicted(cfg, sd, pixels), 200)):
        assert abs(gap) > 1e-3, "the test needs attention that matters"
        assert abs(total - gap) <= 0.02 * abs(gap), f"block {block}: Σ Attr {total}, p_t(A) − p_t(0) {gap}"


def test_completeness_error_shrinks_as_one_over_m(tiny_model):
    # the left Riemann sum's error is O(1/m) on a smooth path, whatever the model
    cfg, sd = tiny_model
    pixels = random_case(cfg, 11)[0]
    target = predicted(cfg, sd, pixels)
    coarse = completeness_gaps(cfg, sd, pixels, target, 40)
    fine = completeness_gaps(cfg, sd, pixels, target, 400)
    for block, ((t40, gap), (t400, _)) in enumerate(zip(coarse, fine)):
        assert abs(t400 - gap) < 0.2 * abs(t40 - gap), f"block {block}"
