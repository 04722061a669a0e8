"""The exported explainer graph, run by onnxruntime-web in Node, reproduces the PyTorch
module on inputs and target counts it was not traced with (nothing froze to the example)."""
import pytest
import torch

from conftest import random_inputs
from models.exporter.explainer import OUTPUT_NAMES
from ort_runner import run_in_ort
from tolerance import BOUND, assert_close, rel_err


@pytest.mark.parametrize("k", [1, 3])
def test_onnx_matches_pytorch_on_two_inputs(exported, k, tmp_path):
    cfg, module, path = exported
    results = []
    for seed in (11, 12):
        pixels, target = random_inputs(cfg, k, seed=seed)
        got = run_in_ort(path, tmp_path / f"seed{seed}", pixels, target, attnlrp_relevance=1.0, cp_lrp_relevance=1.0)
        with torch.no_grad():
            want = dict(zip(OUTPUT_NAMES, (o.numpy() for o in module(pixels, target, *[torch.tensor(1.0)] * 3))))
        for name in OUTPUT_NAMES:
            assert got[name].shape == want[name].shape, name
            assert_close(f"ort_vs_torch.{name}", got[name], want[name], f"seed {seed}")
        results.append(got)
    # the second input must produce its own maps, far beyond the tolerance
    for name in OUTPUT_NAMES:
        assert rel_err(results[0][name], results[1][name]) > 10 * BOUND[f"ort_vs_torch.{name}"], name


def test_logits_alone_can_be_fetched(exported, tmp_path):
    cfg, module, path = exported
    pixels, target = random_inputs(cfg, 2, seed=13)
    got = run_in_ort(path, tmp_path, pixels, target, fetch=["logits"])
    with torch.no_grad():
        want = module(pixels, target, torch.tensor(1.0))[0].numpy()
    assert_close("ort_vs_torch.logits", got["logits"], want)
