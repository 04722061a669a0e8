"""The masked forward (PlainViT with head_mask [B,h]) used by head pruning."""
import torch

from attribution_reference import reference_forward
from conftest import random_inputs
from models.exporter.explainer import build_plain
from tolerance import assert_close


def test_all_ones_is_the_plain_forward_bit_for_bit(tiny_model):
    cfg, sd = tiny_model
    model = build_plain(cfg, sd)
    pixels = torch.cat([random_inputs(cfg, 1, seed)[0] for seed in range(3)])
    with torch.no_grad():
        assert torch.equal(model(pixels, torch.ones(cfg.depth, cfg.heads)), model(pixels))


def test_mask_matches_the_reference(tiny_model):
    cfg, sd = tiny_model
    g = torch.Generator().manual_seed(3)
    mask = (torch.rand(cfg.depth, cfg.heads, generator=g) > 0.5).double()
    pixels = random_inputs(cfg, 1, 4)[0].double()
    with torch.no_grad():
        ours = build_plain(cfg, sd).double()(pixels, mask)
        ref = reference_forward(cfg, sd, pixels, head_mask=mask)[0]
    assert_close("f64_vs_f64.logits", ours, ref)


def test_a_fully_masked_block_adds_only_the_projection_bias(tiny_model):
    # with every head of block b masked, x1 = x + proj.bias: compare block b+1's input
    # with a model whose block b attention branch is replaced by that bias alone
    cfg, sd = tiny_model
    pixels = random_inputs(cfg, 1, 5)[0].double()
    for b in range(cfg.depth):
        mask = torch.ones(cfg.depth, cfg.heads, dtype=torch.float64)
        mask[b] = 0
        with torch.no_grad():
            ours = build_plain(cfg, sd).double()(pixels, mask)
            # zero attention gives O = 0, so proj(O) is exactly proj.bias
            ref = reference_forward(cfg, sd, pixels, override=(b, torch.zeros_like))[0]
            no_bias = dict(sd)
            no_bias[f"blocks.{b}.attn.proj.bias"] = torch.zeros_like(sd[f"blocks.{b}.attn.proj.bias"])
            without = build_plain(cfg, no_bias).double()(pixels, mask)
        assert_close("f64_vs_f64.logits", ours, ref, f"block {b} masked")
        assert not torch.allclose(ours, without), "the bias must be what the branch adds"
        assert not torch.allclose(ours, build_plain(cfg, sd).double()(pixels)), f"block {b} must matter"
