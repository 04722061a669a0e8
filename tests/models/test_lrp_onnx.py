"""The exported explainer graph, run by onnxruntime-web in Node, reproduces the PyTorch
module on inputs and target counts it was not traced with (nothing froze to the example)."""
import numpy as np
import pytest
import torch

from conftest import random_inputs
from models.exporter.explainer import OUTPUT_NAMES
from ort_runner import run_in_ort

# float32 in two engines: LRP divides by small sums and amplifies rounding differences,
# most of all the classic pixel relevance (known to be numerically wild).
TOLERANCE = {"logits": 1e-4, "attn": 1e-4, "attn_grad": 1e-4, "attn_rel": 1e-3,
             "attn_rel_classic_last": 1e-3, "input_rel_classic": 5e-3}



def rel_err(a, b):
    return float(np.abs(a - b).max() / np.abs(b).max())


@pytest.mark.parametrize("k", [1, 3])
def test_onnx_matches_pytorch_on_two_inputs(exported, k, tmp_path):
    cfg, module, path = exported
    results = []
    for seed in (11, 12):
        pixels, target = random_inputs(cfg, k, seed=seed)
        got = run_in_ort(path, tmp_path / f"seed{seed}", pixels, target)
        with torch.no_grad():
            want = dict(zip(OUTPUT_NAMES, (o.numpy() for o in module(pixels, target, torch.tensor(1.0)))))
        for name in OUTPUT_NAMES:
            assert got[name].shape == want[name].shape, name
            assert rel_err(got[name], want[name]) < TOLERANCE[name], name
        results.append(got)
    # the second input must produce its own maps, far beyond the tolerance
    for name in OUTPUT_NAMES:
        assert rel_err(results[0][name], results[1][name]) > 100 * TOLERANCE[name], name


def test_logits_alone_can_be_fetched(exported, tmp_path):
    cfg, module, path = exported
    pixels, target = random_inputs(cfg, 2, seed=13)
    got = run_in_ort(path, tmp_path, pixels, target, fetch=["logits"])
    with torch.no_grad():
        want = module(pixels, target, torch.tensor(1.0))[0].numpy()
    assert rel_err(got["logits"], want) < 1e-4
