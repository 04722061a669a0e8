"""An all-zero target row means the predicted class: the graph explains argmax(logits),
exactly as if the caller had passed its one-hot, in PyTorch and in onnxruntime-web."""
import numpy as np
import pytest
import torch

from conftest import random_inputs
from models.exporter.explainer import OUTPUT_NAMES, build_explainer
from models.exporter.targets import predicted_class_rows
from ort_runner import run_in_ort


def mixed_targets(cfg, logits):
    """K=3: a one-hot class, a zero row, a dense random row; and the same with the zero
    row written out as the one-hot of the predicted class."""
    _, dense = random_inputs(cfg, 1, seed=31)
    one_hot = torch.eye(cfg.num_classes)
    with_zero = torch.cat([one_hot[[3]], torch.zeros(1, cfg.num_classes), dense])
    explicit = with_zero.clone()
    explicit[1] = one_hot[int(logits.argmax())]
    return with_zero, explicit


def run(module, pixels, target):
    with torch.no_grad():
        return dict(zip(OUTPUT_NAMES, module(pixels, target, *[torch.tensor(1.0)] * 3)))  # every switch on


def test_only_all_zero_rows_are_replaced():
    logits = torch.tensor([[0.5, 2.0, 2.0, -1.0]])  # tie: the first maximum, as ArgMax
    target = torch.tensor([[0.0, 0.0, 0.0, 0.0], [1.0, -1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1e-30]])
    got = predicted_class_rows(target, logits)
    assert torch.equal(got, torch.tensor([[0.0, 1.0, 0.0, 0.0], [1.0, -1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1e-30]]))


def test_a_zero_row_explains_the_predicted_class_in_pytorch(tiny_model):
    cfg, sd = tiny_model
    module = build_explainer(cfg, sd)
    pixels, _ = random_inputs(cfg, 1, seed=32)
    logits = run(module, pixels, torch.zeros(1, cfg.num_classes))["logits"]
    with_zero, explicit = mixed_targets(cfg, logits)
    for k in (1, 3):  # the zero row alone, and mixed with other rows
        rows = slice(1, 2) if k == 1 else slice(0, 3)
        got, want = run(module, pixels, with_zero[rows]), run(module, pixels, explicit[rows])
        for name in OUTPUT_NAMES:
            assert torch.equal(got[name], want[name]), (k, name)


@pytest.mark.parametrize("k", [1, 3])
def test_a_zero_row_explains_the_predicted_class_in_onnxruntime_web(exported, k, tmp_path):
    cfg, module, path = exported
    pixels, _ = random_inputs(cfg, 1, seed=33)
    logits = run(module, pixels, torch.zeros(1, cfg.num_classes))["logits"]
    with_zero, explicit = mixed_targets(cfg, logits)
    rows = slice(1, 2) if k == 1 else slice(0, 3)
    on = {"attnlrp_relevance": 1.0, "cp_lrp_relevance": 1.0}
    got = run_in_ort(path, tmp_path / "zero", pixels, with_zero[rows], **on)
    want = run_in_ort(path, tmp_path / "explicit", pixels, explicit[rows], **on)
    assert int(got["logits"].argmax()) == int(logits.argmax())
    for name in OUTPUT_NAMES:
        np.testing.assert_array_equal(got[name], want[name], err_msg=name)
