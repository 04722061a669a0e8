"""End-to-end export of a small random ViT through models/export.py: the ONNX files, the
graph contract, dynamic K, the size limit, index.json and the stamp-based skipping."""
import json
import os
import time

import numpy as np
import onnx
import pytest
import torch

from models.exporter import cache
from models.exporter.errors import ExportCheckFailed
from models.exporter.metadata import INPUT_NAMES, OUTPUT_NAMES
from models.exporter.onnx_export import MAX_EXPLAINER_TO_PLAIN, check_size_ratio, verify_explainer
from cli_runner import run_export
from timm_state_dict import SMALL, random_state_dict, write_labels

K_LEADING = {"target", "attn_grad", "attn_rel", "attn_rel_classic_last", "input_rel_classic"}


@pytest.fixture(scope="module")
def small_export(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("small")
    sd = random_state_dict()
    torch.save({"model": sd}, tmp / "small_test_vit.pth")
    labels = write_labels(tmp / "labels.txt", SMALL.num_classes)
    out = tmp / "out"
    # not a published timm architecture: the head count no shape tells is given
    args = ["--model", SMALL.name, "--checkpoint", tmp / "small_test_vit.pth", "--labels", labels,
            "--out", out, "--plain", "--heads", str(SMALL.heads)]
    result = run_export(*args)
    assert result.returncode == 0, result.stderr
    return {"dir": tmp, "out": out, "args": args, "sd": sd, "labels": labels}


def dims(value_info):
    return [d.dim_param or d.dim_value for d in value_info.type.tensor_type.shape.dim]


def test_explainer_passes_the_checker_and_has_the_contract_names(small_export):
    path = small_export["out"] / f"{SMALL.name}.onnx"
    onnx.checker.check_model(str(path))
    model = onnx.load(str(path))
    assert [o.version for o in model.opset_import if o.domain in ("", "ai.onnx")] == [17]
    inits = {i.name for i in model.graph.initializer}
    assert [i.name for i in model.graph.input if i.name not in inits] == list(INPUT_NAMES)
    assert [o.name for o in model.graph.output] == list(OUTPUT_NAMES)
    verify_explainer(path, SMALL)


def test_target_rows_and_the_k_leading_outputs_are_dynamic(small_export):
    graph = onnx.load(str(small_export["out"] / f"{SMALL.name}.onnx")).graph
    for v in list(graph.input) + list(graph.output):
        if v.name in K_LEADING:
            assert dims(v)[0] == "K", v.name
    by_name = {v.name: dims(v) for v in list(graph.input) + list(graph.output)}
    assert by_name["pixels"] == [1, 3, 64, 64]
    assert by_name["target"][1] == 10 and by_name["logits"] == [1, 10]
    assert by_name["pixel_relevance"] == []  # a scalar switch


def test_pixel_relevance_is_a_real_input_not_an_initializer(small_export):
    # onnxruntime-web rejects feeds for initializer-backed inputs ("invalid input")
    graph = onnx.load(str(small_export["out"] / f"{SMALL.name}.onnx")).graph
    assert "pixel_relevance" not in {i.name for i in graph.initializer}
    switch = next(i for i in graph.input if i.name == "pixel_relevance")
    assert switch.type.tensor_type.elem_type == onnx.TensorProto.FLOAT


def test_explainer_stores_no_derived_weights(small_export):
    out = small_export["out"]
    explainer, plain = out / f"{SMALL.name}.onnx", out / f"{SMALL.name}.forward.onnx"
    assert explainer.stat().st_size <= MAX_EXPLAINER_TO_PLAIN * plain.stat().st_size
    weights = sum(t.numel() for t in small_export["sd"].values())
    stored = sum(int(np.prod(i.dims)) for i in onnx.load(str(explainer)).graph.initializer)
    assert stored <= 1.01 * weights


def test_metadata_index_and_stamp_are_written(small_export):
    out = small_export["out"]
    meta = json.loads((out / f"{SMALL.name}.json").read_text())
    assert meta["name"] == SMALL.name and meta["onnx"] == f"{SMALL.name}.onnx"
    assert meta["architecture"]["blocks"] == 2 and meta["architecture"]["tokens"] == 17
    assert meta["labels"] == [f"class{i}" for i in range(10)]
    assert meta["preprocess"]["crop"]["size"] == [64, 64]
    assert meta["source"]["checkpoint"] == "small_test_vit.pth"
    assert meta["source"]["sha256"] == cache.sha256_file(small_export["dir"] / "small_test_vit.pth")
    assert meta["exporter"]["version"] == cache.exporter_version()
    index = json.loads((out / "index.json").read_text())
    entry = next(m for m in index["models"] if m["name"] == SMALL.name)
    assert entry["onnx"] == f"{SMALL.name}.onnx" and entry["metadata"] == f"{SMALL.name}.json"
    assert entry["bytes"] == (out / entry["onnx"]).stat().st_size
    assert entry["forward_onnx"] == f"{SMALL.name}.forward.onnx"


def test_second_run_is_a_quick_no_op_until_an_input_changes(small_export):
    out, args = small_export["out"], small_export["args"]
    onnx_file = out / f"{SMALL.name}.onnx"
    before = onnx_file.stat().st_mtime_ns
    started = time.time()
    result = run_export(*args)
    assert result.returncode == 0 and "up to date" in result.stdout
    assert time.time() - started < 5 and onnx_file.stat().st_mtime_ns == before

    ckpt = small_export["dir"] / "small_test_vit.pth"
    os.utime(ckpt)  # same bytes, new mtime: re-hashed, still up to date
    assert "up to date" in run_export(*args).stdout

    labels = small_export["labels"]
    labels.write_text(labels.read_text().replace("class0,", "zeroth class,"))
    result = run_export(*args)
    assert result.returncode == 0 and "up to date" not in result.stdout
    assert onnx_file.stat().st_mtime_ns != before
    assert json.loads((out / f"{SMALL.name}.json").read_text())["labels"][0] == "zeroth class"


def test_a_new_exporter_version_invalidates_the_stamp(small_export):
    out = small_export["out"]
    stamp = cache.read_stamp(cache.stamp_path(out, SMALL.name))
    expected = {k: stamp[k] for k in ("exporter_version", "checkpoint_sha256", "labels_sha256", "settings")}
    assert cache.is_up_to_date(stamp, out, expected)
    assert not cache.is_up_to_date(stamp, out, {**expected, "exporter_version": "something else"})


def test_size_check_rejects_an_explainer_much_larger_than_the_forward_graph(tmp_path):
    (tmp_path / "plain.onnx").write_bytes(b"0" * 1000)
    (tmp_path / "explainer.onnx").write_bytes(b"0" * 1200)
    assert check_size_ratio(tmp_path / "explainer.onnx", tmp_path / "plain.onnx") == pytest.approx(1.2)
    (tmp_path / "explainer.onnx").write_bytes(b"0" * 2000)
    with pytest.raises(ExportCheckFailed, match=r"2\.00x the plain forward graph"):
        check_size_ratio(tmp_path / "explainer.onnx", tmp_path / "plain.onnx")


class FixedK(torch.nn.Module):
    """Right names and shapes, but exported without the dynamic axis."""

    def forward(self, pixels, target, pixel_relevance, attnlrp_relevance, cp_lrp_relevance):
        s = SMALL.tokens
        a = pixels.mean() * torch.ones(SMALL.depth, SMALL.heads, s, s)
        g = target.sum(1)[:, None, None, None, None] * a
        pix = target.sum(1)[:, None, None] * pixels[0, 0]
        return (target[:1] * 2, a, g, g, g[:, -1],
                pixel_relevance * pix, attnlrp_relevance * pix, cp_lrp_relevance * pix)


def test_verification_rejects_a_graph_with_a_fixed_k(tmp_path):
    path = tmp_path / "fixed.onnx"
    torch.onnx.export(FixedK(), (torch.zeros(1, 3, 64, 64), torch.zeros(2, 10), *[torch.tensor(1.0)] * 3), str(path),
                      opset_version=17,
                      input_names=list(INPUT_NAMES), output_names=list(OUTPUT_NAMES))
    with pytest.raises(ExportCheckFailed, match="target axis 0 is 2, expected the dynamic K"):
        verify_explainer(path, SMALL)


class NoSwitch(torch.nn.Module):
    """The graph of before the pixel_relevance input: pixels and target only."""

    def forward(self, pixels, target):
        return FixedK()(pixels, target, *[torch.tensor(1.0)] * 3)


def test_verification_rejects_a_graph_without_the_pixel_relevance_input(tmp_path):
    path = tmp_path / "no_switch.onnx"
    torch.onnx.export(NoSwitch(), (torch.zeros(1, 3, 64, 64), torch.zeros(2, 10)), str(path), opset_version=17,
                      input_names=["pixels", "target"], output_names=list(OUTPUT_NAMES))
    with pytest.raises(ExportCheckFailed, match=r"inputs are \['pixels', 'target'\], the contract says"):
        verify_explainer(path, SMALL)
