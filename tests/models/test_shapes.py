"""models/exporter/shapes.py: every intermediate value's shape written into the graph, named
where it follows K or the pixel_relevance switch, and the annotated graph computing exactly
what the bare one does (also for a K it was not measured with)."""
import shutil

import numpy as np
import onnx
import pytest

from conftest import random_inputs
from models.exporter.explainer import OUTPUT_NAMES
from models.exporter.shapes import annotate, axis, record, settings_for
from ort_runner import run_in_ort

SETTINGS = [{"K": 1, "pixel_relevance": 1}, {"K": 2, "pixel_relevance": 1}, {"K": 1, "pixel_relevance": 0}]


@pytest.mark.parametrize("sizes, expected", [
    ((5, 5, 5), 5),
    ((1, 2, 1), "K"),
    ((1, 1, 0), "pixel_relevance"),
    ((1, 2, 0), "K*pixel_relevance"),
    ((0, 0, 1), "1-pixel_relevance"),
    ((2, 4, 1), None),  # 2K when on, 1 when off: no product of the settings
])
def test_an_axis_is_its_number_or_the_product_of_settings_it_follows(sizes, expected):
    assert axis(sizes, SETTINGS) == expected


@pytest.fixture(scope="module")
def annotated(tmp_path_factory):
    from conftest import TINY, lively_state_dict
    from ort_runner import export_small, skip_without_ort
    skip_without_ort()
    folder = tmp_path_factory.mktemp("shapes")
    _, bare = export_small(TINY, lively_state_dict(TINY), folder)
    path = folder / "annotated.onnx"
    shutil.copy(bare, path)
    unnamed = annotate(path)
    return TINY, bare, path, unnamed


def test_every_intermediate_value_gets_a_complete_shape(annotated):
    _, bare, path, unnamed = annotated
    model = onnx.load(str(path))
    on = {"K": 1, "pixel_relevance": 1, "attnlrp_relevance": 1, "cp_lrp_relevance": 1}
    assert settings_for(model.graph) == [on, {**on, "K": 2}, {**on, "pixel_relevance": 0},
                                         {**on, "attnlrp_relevance": 0}, {**on, "cp_lrp_relevance": 0}]
    onnx.checker.check_model(model, full_check=True)  # no clash with ONNX's own inference
    ends = {i.name for i in model.graph.input} | {o.name for o in model.graph.output}
    computed = {o for n in model.graph.node if n.op_type != "Constant" for o in n.output} - ends
    shapes = {v.name: v.type.tensor_type.shape.dim for v in model.graph.value_info}
    assert set(shapes) == computed
    names = {d.dim_param for dims in shapes.values() for d in dims if d.dim_param}
    assert {"K", "K*pixel_relevance", "pixel_relevance", "K*attnlrp_relevance", "K*cp_lrp_relevance"} <= names
    assert unnamed <= 4, unnamed  # each switched output's Concat: 2K rows when on, K+1 when off
    assert not onnx.load(str(bare)).graph.value_info  # what torch wrote: nothing


def test_the_recorded_shapes_are_those_a_run_of_onnxruntime_web_returns(annotated, tmp_path):
    # Each profile event read as its own node's: the outputs' shapes in every setting, as the
    # page's engine returns them.
    cfg, bare, _, _ = annotated
    model = onnx.load(str(bare), load_external_data=False)
    settings = settings_for(model.graph)
    runs = record(bare, model, settings)
    assert len(runs[0]) > 3 * 40
    for i, (setting, run) in enumerate(zip(settings, runs)):
        pixels, target = random_inputs(cfg, setting["K"], seed=i)
        switches = {s: float(setting[s]) for s in ("pixel_relevance", "attnlrp_relevance", "cp_lrp_relevance")}
        returned = run_in_ort(bare, tmp_path / str(i), pixels, target, **switches)
        for name in OUTPUT_NAMES:
            assert run[name] == {"dims": list(returned[name].shape), "type": "float32"}, (setting, name)


@pytest.mark.parametrize("k, flag", [(3, 1.0), (2, 0.0)])
def test_the_annotated_graph_computes_exactly_what_the_bare_one_does(annotated, k, flag, tmp_path):
    cfg, bare, path, _ = annotated
    pixels, target = random_inputs(cfg, k, seed=40 + k)
    want = run_in_ort(bare, tmp_path / "bare", pixels, target, pixel_relevance=flag)
    got = run_in_ort(path, tmp_path / "annotated", pixels, target, pixel_relevance=flag)
    for name in OUTPUT_NAMES:
        assert got[name].shape == want[name].shape, name
        np.testing.assert_array_equal(got[name], want[name], err_msg=name)
