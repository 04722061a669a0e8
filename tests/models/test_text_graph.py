"""The text explainer's tensors against the independent float64 reference
(bert_reference64.py: autograd for G, the official layer objects' relprop for R, LXT's
autograd rules for AttnLRP/CP-LRP) on tiny random BERTs and DistilBERTs read from their
Hugging Face folders, in PyTorch (float64 and float32) and in onnxruntime-web at two
token counts (S is a dynamic axis). Bounds: tolerance.py, measured as for the ViTs."""
import numpy as np
import pytest
import torch

from bert_reference64 import reference_explanation
from attnlrp_reference import pearson
from ort_runner import run_feeds, skip_without_ort
from random_bert import random_ids, random_state_dict, small_config, write_folder
from tolerance import assert_close

from models.exporter.text.explainer import OUTPUT_NAMES, build_text_explainer
from models.exporter.text.graphs import export_explainer
from models.exporter.text.layout import read_text_folder

ON, OFF = torch.tensor(1.0), torch.tensor(0.0)
MIN_PEARSON = 0.9999  # AttnLRP / CP-LRP float32 maps vs the float64 reference (METHODS.md)
MAX_SUM_ERROR = 1e-3  # |ΣR − ΣR_ref| / |y_c|
CONFIGS = {
    "bert": small_config("bert"),
    "distilbert": small_config("distilbert", classes=2),
    "bert_one_layer_gelu_new": small_config("bert", depth=1, heads=1, dim=8, mlp=16, act="gelu_new"),
}


def read_model(name, tmp_path_factory):
    """(HF config, HF state dict, TextCheckpoint read from its folder)."""
    config = CONFIGS[name]
    sd = random_state_dict(config, seed=3)
    folder = write_folder(tmp_path_factory.mktemp(name), config, sd)
    return config, sd, read_text_folder(folder, name)


@pytest.fixture(scope="module", params=list(CONFIGS))
def model(request, tmp_path_factory):
    return read_model(request.param, tmp_path_factory)


def one_hot(classes, count):
    return torch.eye(count)[classes]


def explain(ckpt, ids, target, dtype, switches=(ON, ON, ON)):
    module = build_text_explainer(ckpt.cfg, ckpt.state_dict).to(dtype)
    with torch.no_grad():
        return dict(zip(OUTPUT_NAMES, module(ids, target.to(dtype), *(s.to(dtype) for s in switches))))


def test_float64_module_equals_the_reference(model):
    config, sd, ckpt = model
    ids, classes = random_ids(11, seed=1), [0, ckpt.cfg.num_classes - 1]
    got = explain(ckpt, ids, one_hot(classes, ckpt.cfg.num_classes), torch.float64)
    logits, attn, grad, rel, rel_last, rel_in, maps = reference_explanation(
        config, sd, ids, one_hot(classes, ckpt.cfg.num_classes))
    name = ckpt.cfg.name
    assert_close("f64_vs_f64.logits", got["logits"][0], logits, name)
    assert_close("f64_vs_f64.attn", got["attn"], attn, name)
    assert_close("f64_vs_f64.attn_grad", got["attn_grad"], grad, name)
    assert_close("f64_vs_f64.attn_rel", got["attn_rel"], rel, name)
    assert_close("f64_vs_f64.attn_rel_classic_last", got["attn_rel_classic_last"], rel_last, name)
    assert_close("f64_vs_f64.input_rel_classic", got["input_rel_classic"], rel_in, name)
    for method in ("attnlrp", "cp_lrp"):
        assert_close("f64_vs_f64.gxi_map", got[f"input_rel_{method}"], maps[method], f"{name} {method}")


@pytest.mark.parametrize("seed", [20, 21, 22])
def test_float32_module_passes_the_acceptance(model, seed):
    config, sd, ckpt = model
    c = ckpt.cfg.num_classes
    ids, classes = random_ids(6 + seed % 7, seed), [seed % c, (seed + 1) % c]
    got = explain(ckpt, ids, one_hot(classes, c), torch.float32)
    logits, _, grad, rel, rel_last, _, maps = reference_explanation(config, sd, ids, one_hot(classes, c))
    name = f"{ckpt.cfg.name} seed {seed}"
    assert_close("f32_vs_f64.attn_grad", got["attn_grad"], grad, name)
    assert_close("f32_vs_f64.attn_rel_last", got["attn_rel"][:, -1], rel[:, -1], name)
    assert_close("f32_vs_f64.attn_rel_classic_last", got["attn_rel_classic_last"], rel_last, name)
    for method in ("attnlrp", "cp_lrp"):
        for row, cls in enumerate(classes):
            g, w = got[f"input_rel_{method}"][row].double(), maps[method][row]
            assert pearson(g, w) >= MIN_PEARSON, f"{name} {method} class {cls}"
            assert abs(float(g.sum() - w.sum())) / abs(float(logits[cls])) <= MAX_SUM_ERROR, f"{name} {method}"


def test_zero_target_rows_explain_the_predicted_class(model):
    _, _, ckpt = model
    c = ckpt.cfg.num_classes
    ids = random_ids(9, seed=4)
    predicted = explain(ckpt, ids, torch.zeros(1, c), torch.float64)
    top = int(predicted["logits"][0].argmax())
    explicit = explain(ckpt, ids, one_hot([top], c), torch.float64)
    for name in OUTPUT_NAMES:
        assert torch.equal(predicted[name], explicit[name]), name


def test_switches_off_give_zeros_and_leave_every_other_output(model):
    _, _, ckpt = model
    ids, target = random_ids(8, seed=5), one_hot([1, 0], ckpt.cfg.num_classes)
    on = explain(ckpt, ids, target, torch.float64)
    off = explain(ckpt, ids, target, torch.float64, (OFF, OFF, OFF))
    for name in ("input_rel_classic", "input_rel_attnlrp", "input_rel_cp_lrp"):
        assert off[name].shape == on[name].shape and not off[name].any() and on[name].abs().sum() > 0, name
    for name in ("logits", "attn", "attn_grad", "attn_rel", "attn_rel_classic_last"):
        assert torch.equal(on[name], off[name]), name


# -- onnxruntime-web -------------------------------------------------------------------


@pytest.fixture(scope="module", params=["bert", "distilbert"])
def exported(request, tmp_path_factory):
    skip_without_ort()
    _, _, ckpt = read_model(request.param, tmp_path_factory)
    path = tmp_path_factory.mktemp("onnx") / f"{ckpt.cfg.name}.onnx"
    export_explainer(build_text_explainer(ckpt.cfg, ckpt.state_dict), ckpt.cfg, path)
    return ckpt, path


def test_onnxruntime_web_matches_the_module_at_any_length(exported, tmp_path):
    ckpt, path = exported
    for tokens in (5, 17):  # one export, two lengths: S is dynamic
        ids, target = random_ids(tokens, seed=tokens), one_hot([1, 0], ckpt.cfg.num_classes)
        want = explain(ckpt, ids, target, torch.float32)
        feeds = {"input_ids": ids.numpy(), "target": target.numpy(), "token_relevance": np.float32(1),
                 "attnlrp_relevance": np.float32(1), "cp_lrp_relevance": np.float32(1)}
        got = run_feeds(path, tmp_path / str(tokens), feeds, OUTPUT_NAMES)
        for name in OUTPUT_NAMES:
            assert got[name].shape == tuple(want[name].shape), name
            assert_close(f"ort_vs_torch.{name}", got[name], want[name], f"{ckpt.cfg.name} S={tokens}")


def test_onnxruntime_web_switches_off(exported, tmp_path):
    ckpt, path = exported
    ids, target = random_ids(6, seed=7), torch.zeros(2, ckpt.cfg.num_classes)
    feeds = {"input_ids": ids.numpy(), "target": target.numpy(), "token_relevance": np.float32(0),
             "attnlrp_relevance": np.float32(0), "cp_lrp_relevance": np.float32(0)}
    got = run_feeds(path, tmp_path, feeds, OUTPUT_NAMES)
    want = explain(ckpt, ids, target, torch.float32, (OFF, OFF, OFF))
    for name in ("input_rel_classic", "input_rel_attnlrp", "input_rel_cp_lrp"):
        assert got[name].shape == (2, 6) and not got[name].any(), name
    assert_close("ort_vs_torch.attn_grad", got["attn_grad"], want["attn_grad"], ckpt.cfg.name)
