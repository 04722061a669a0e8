"""models/exporter/shapes.py: every intermediate value's shape written into the graphs the
exporter still traces whole (the Self-Attention Attribution graphs), named where it follows
a run-time axis, and the annotated graph computing exactly what the bare one does (also for
an axis size it was not measured with)."""
import shutil

import numpy as np
import onnx
import pytest
import torch

from models.exporter.attribution import BLOCK_OUTPUTS, build_block_attribution
from models.exporter.attribution_export import STEPS, export_block
from models.exporter.shapes import annotate, axis, record, settings_for
from ort_runner import run_feeds

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
    from ort_runner import skip_without_ort
    skip_without_ort()
    folder = tmp_path_factory.mktemp("shapes")
    bare = folder / "attr0.onnx"
    export_block(build_block_attribution(TINY, lively_state_dict(TINY), 0), TINY, bare)
    path = folder / "annotated.onnx"
    shutil.copy(bare, path)
    unnamed = annotate(path)
    return TINY, bare, path, unnamed


def feeds(cfg, steps: int, seed: int):
    g = torch.Generator().manual_seed(seed)
    target = np.zeros(cfg.num_classes, np.float32)
    target[seed % cfg.num_classes] = 1
    return {"hidden": torch.randn(cfg.tokens, cfg.embed_dim, generator=g).numpy(),
            "alpha": (np.arange(steps, dtype=np.float32) + 1) / steps, "target": target}


def test_every_intermediate_value_gets_a_complete_shape(annotated):
    _, bare, path, unnamed = annotated
    model = onnx.load(str(path))
    assert settings_for(model.graph) == [{STEPS: 1}, {STEPS: 2}]
    onnx.checker.check_model(model, full_check=True)  # no clash with ONNX's own inference
    ends = {i.name for i in model.graph.input} | {o.name for o in model.graph.output}
    computed = {o for n in model.graph.node if n.op_type != "Constant" for o in n.output} - ends
    shapes = {v.name: v.type.tensor_type.shape.dim for v in model.graph.value_info}
    assert set(shapes) == computed
    assert STEPS in {d.dim_param for dims in shapes.values() for d in dims if d.dim_param}
    assert unnamed == 0, unnamed
    assert not onnx.load(str(bare)).graph.value_info  # what torch wrote: nothing


def test_the_recorded_shapes_are_those_a_run_of_onnxruntime_web_returns(annotated, tmp_path):
    # Each profile event read as its own node's: the outputs' shapes in every setting, as the
    # page's engine returns them.
    cfg, bare, _, _ = annotated
    model = onnx.load(str(bare), load_external_data=False)
    settings = settings_for(model.graph)
    runs = record(bare, model, settings)
    assert len(runs[0]) > 40
    for i, (setting, run) in enumerate(zip(settings, runs)):
        returned = run_feeds(bare, tmp_path / str(i), feeds(cfg, setting[STEPS], i), BLOCK_OUTPUTS)
        for name in BLOCK_OUTPUTS:
            assert run[name] == {"dims": list(returned[name].shape), "type": "float32"}, (setting, name)


@pytest.mark.parametrize("steps", [3, 1])
def test_the_annotated_graph_computes_exactly_what_the_bare_one_does(annotated, steps, tmp_path):
    cfg, bare, path, _ = annotated
    inputs = feeds(cfg, steps, 40 + steps)
    want = run_feeds(bare, tmp_path / "bare", inputs, BLOCK_OUTPUTS)
    got = run_feeds(path, tmp_path / "annotated", inputs, BLOCK_OUTPUTS)
    for name in BLOCK_OUTPUTS:
        assert got[name].shape == want[name].shape, name
        np.testing.assert_array_equal(got[name], want[name], err_msg=name)
