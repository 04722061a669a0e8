"""The pixel_relevance input: 0 skips the classic pixel relevance (zeros of shape [K,H,W])
and leaves every other output as it is with 1, in PyTorch and in onnxruntime-web."""
import pytest
import torch

from conftest import random_inputs
from models.exporter.explainer import OUTPUT_NAMES, build_explainer
from ort_runner import run_in_ort
from tolerance import assert_close

UNCHANGED = ("logits", "attn", "attn_grad", "attn_rel", "attn_rel_classic_last")
# Below the last block the proposed Linear denominators come from the forward's products with
# flag 0 and from the classic rule's two products with flag 1: equal up to rounding.
BIT_EXACT = ("logits", "attn", "attn_grad", "attn_rel_classic_last")


def explain(module, pixels, target, flag):
    with torch.no_grad():
        return dict(zip(OUTPUT_NAMES, module(pixels, target, torch.tensor(flag))))


@pytest.mark.parametrize("k", [1, 3])
def test_flag_zero_in_pytorch_keeps_the_attention_outputs_and_zeroes_the_pixels(tiny_model, k):
    cfg, sd = tiny_model
    module = build_explainer(cfg, sd)
    pixels, target = random_inputs(cfg, k, seed=21)
    on, off = explain(module, pixels, target, 1.0), explain(module, pixels, target, 0.0)
    for name in BIT_EXACT:
        assert torch.equal(on[name], off[name]), name
    assert_close("f32_vs_f32.attn_rel_denominators", off["attn_rel"], on["attn_rel"])
    assert off["input_rel_classic"].shape == (k, *cfg.image_size)
    assert not off["input_rel_classic"].any()
    assert on["input_rel_classic"].abs().max() > 0


@pytest.mark.parametrize("k", [1, 3])
def test_flag_zero_in_onnxruntime_web_keeps_the_attention_outputs_and_zeroes_the_pixels(exported, k, tmp_path):
    cfg, module, path = exported
    pixels, target = random_inputs(cfg, k, seed=22)
    on = run_in_ort(path, tmp_path / "on", pixels, target, pixel_relevance=1.0)
    off = run_in_ort(path, tmp_path / "off", pixels, target, pixel_relevance=0.0)
    for name in UNCHANGED:
        # the proposed variant runs alone below the last block with flag 0: a matmul
        # on a different batch may round differently, so allow float32 noise only
        assert_close("ort_switch.unchanged", off[name], on[name], name)
    assert off["input_rel_classic"].shape == (k, *cfg.image_size)
    assert not off["input_rel_classic"].any()
    # flag 1 still computes the pixel relevance of the PyTorch module
    want = explain(module, pixels, target, 1.0)["input_rel_classic"].numpy()
    assert_close("ort_vs_torch.input_rel_classic", on["input_rel_classic"], want)
