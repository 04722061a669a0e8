"""Graphs built block by block (models/exporter/scan_graph.py): their size does not grow with
the depth, loop bodies read their weights where they lie, and the graphs compute the PyTorch
module's outputs in onnxruntime-web whether a model has one block (the last alone), two
(block 0 and the last, no loop), three (a loop of one) or more, and whether the LinearParts
are folded outside the loop or computed in it."""
import dataclasses

import onnx
import pytest
import torch

from conftest import TINY, lively_state_dict, random_inputs
from models.exporter import scan_graph
from models.exporter.exported_graphs import explainer_model
from models.exporter.explainer import OUTPUT_NAMES, build_explainer
from models.exporter.onnx_export import export_explainer
from models.exporter.params import ViTParams
from ort_runner import run_in_ort, skip_without_ort
from tolerance import assert_close


def all_nodes(graph: onnx.GraphProto):
    return [n for node in graph.node
            for n in [node] + [m for a in node.attribute if a.HasField("g") for m in all_nodes(a.g)]]


def test_a_deeper_model_has_the_same_nodes():
    counts = {}
    for depth in (3, 8):
        cfg = dataclasses.replace(TINY, depth=depth)
        model = explainer_model(cfg, ViTParams(cfg, lively_state_dict(cfg)))
        counts[depth] = len(all_nodes(model.graph))
        scans = [n for n in model.graph.node if n.op_type == "Scan"]
        assert len(scans) == 2  # the blocks up, then each pass down
    assert counts[3] == counts[8], counts


def test_loop_bodies_read_their_weights_where_they_lie():
    """No body transposes a weight for a product (the copy would be made on every run, per
    block): the product reads it as a Gemm with transB."""
    cfg = TINY
    model = explainer_model(cfg, ViTParams(cfg, lively_state_dict(cfg)))
    for scan in (n for n in model.graph.node if n.op_type == "Scan"):
        body = scan.attribute[[a.name for a in scan.attribute].index("body")].g
        weights = {i.name for i in body.input if "/w." in i.name}
        transposed = [n.input[0] for n in body.node if n.op_type == "Transpose" and n.input[0] in weights]
        assert not transposed, transposed


@pytest.mark.parametrize("depth, outside", [(1, True), (2, True), (3, True), (4, False)])
def test_the_graph_computes_the_module(depth, outside, tmp_path, monkeypatch):
    skip_without_ort()
    if not outside:
        monkeypatch.setattr(scan_graph, "PARTS_OUTSIDE_MAX_BYTES", 0)
    cfg = dataclasses.replace(TINY, name=f"depth{depth}", depth=depth)
    module = build_explainer(cfg, lively_state_dict(cfg))
    path = tmp_path / "explainer.onnx"
    export_explainer(module, cfg, path)
    scans = [n for n in onnx.load(str(path)).graph.node if n.op_type == "Scan"]
    assert len(scans) == (2 if depth > 2 else 0)
    pixels, target = random_inputs(cfg, 2, seed=21)
    target[1] = 0  # a predicted-class row
    got = run_in_ort(path, tmp_path, pixels, target, attnlrp_relevance=1.0, cp_lrp_relevance=1.0)
    with torch.no_grad():
        want = dict(zip(OUTPUT_NAMES, (o.numpy() for o in module(pixels, target, *[torch.tensor(1.0)] * 3))))
    for name in OUTPUT_NAMES:
        assert got[name].shape == want[name].shape, name
        assert_close(f"ort_vs_torch.{name}", got[name], want[name], f"depth {depth}")
