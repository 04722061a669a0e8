"""The cleanup (models/exporter/graph_cleanup.py) of every piece the exporter traces
(scan_graph.trace): each graph computes, its pieces cleaned, the same bits as uncleaned, in
onnxruntime-web at each graph optimisation level the runtime opens graphs with, for K = 1
and 3 and each switch on and off; with far fewer nodes, no stored tensor over MAX_FOLDED
elements and the same inputs and outputs. Then each rewrite on small hand-made graphs,
where it must and must not apply."""
import itertools
import json
import subprocess
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from conftest import TINY, lively_state_dict
from models.exporter import scan_graph
from models.exporter.explainer import build_explainer, build_plain
from models.exporter.graph_cleanup import MAX_FOLDED, clean
from models.exporter.onnx_export import export_explainer, export_plain, verify_explainer
from models.exporter.split_export import export_split
from ort_runner import skip_without_ort

REPO = Path(__file__).resolve().parents[2]
COMPARE = Path(__file__).with_name("compare_graphs.mjs")
GRAPHS = ["explainer", "photo", "target", "transformer_attribution", "lrp", "attnlrp", "forward"]


def _export(folder: Path, cfg, sd):
    export_plain(build_plain(cfg, sd), cfg, folder / "plain.onnx")
    export_explainer(build_explainer(cfg, sd), cfg, folder / "explainer.onnx")
    files = export_split(cfg, sd, folder, cfg.name, single=folder / "explainer.onnx", plain=folder / "plain.onnx")
    return {"explainer": "explainer.onnx", "photo": files["photo"], "target": files["target"],
            "forward": files["forward"], **files["families"]}, files["weights"]


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """(raw folder, cleaned folder, {graph: file name}, weights file name): the small random
    model's graphs built from raw and from cleaned pieces (the MatMul-to-Gemm rewrite,
    which changes the kernel and so the rounding, off in both)."""
    skip_without_ort()
    cfg, sd = TINY, lively_state_dict(TINY)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(scan_graph, "gemm_of_transposed", lambda graph: 0)
        patch.setattr(scan_graph, "clean", lambda model: None)
        raw = tmp_path_factory.mktemp("raw")
        names, weights = _export(raw, cfg, sd)
        patch.undo()
        patch.setattr(scan_graph, "gemm_of_transposed", lambda graph: 0)
        cleaned = tmp_path_factory.mktemp("cleaned")
        _export(cleaned, cfg, sd)
    return cfg, raw, cleaned, names, weights


def _all_nodes(graph: onnx.GraphProto):
    return [n for node in graph.node
            for n in [node] + [m for a in node.attribute if a.HasField("g") for m in _all_nodes(a.g)]]


def _all_initializers(graph: onnx.GraphProto):
    return list(graph.initializer) + [i for n in _all_nodes(graph) for a in n.attribute if a.HasField("g")
                                      for i in a.g.initializer]


def _switches(graph: onnx.GraphProto):
    return [i.name for i in graph.input if not i.type.tensor_type.shape.dim]


@pytest.mark.parametrize("graph", GRAPHS)
def test_cleaned_graph_gives_the_same_bits(exported, graph):
    cfg, raw, cleaned, names, weights = exported
    model = onnx.load(str(raw / names[graph]), load_external_data=False)
    switches = _switches(model.graph)
    # all off, all on, and each alone on
    settings = [dict.fromkeys(switches, 0), dict.fromkeys(switches, 1)]
    settings += [{**dict.fromkeys(switches, 0), s: 1} for s in switches if len(switches) > 1]
    cases = [{"K": k, "switches": s, "seed": seed}
             for seed, (k, s) in enumerate(itertools.product((1, 3), settings))]
    cmd = ["node", str(COMPARE), "--a", str(raw / names[graph]), "--b", str(cleaned / names[graph]),
           "--levels", "disabled,basic,all", "--cases", json.dumps(cases)]
    if any(i.data_location == TensorProto.EXTERNAL for i in model.graph.initializer):
        cmd += ["--weights", str(raw / weights), "--weights-b", str(cleaned / weights)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600, cwd=REPO)
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout)
    assert result["outputs"] == [o.name for o in model.graph.output]
    assert not result["differing"], result["differing"][:5]


@pytest.mark.parametrize("graph", GRAPHS)
def test_cleaned_graph_keeps_its_contract_and_stores_no_derived_tensor(exported, graph):
    cfg, raw, cleaned, names, _ = exported
    before = onnx.load(str(raw / names[graph]), load_external_data=False).graph
    after = onnx.load(str(cleaned / names[graph]), load_external_data=False).graph
    for part in ("input", "output"):
        assert [v.SerializeToString() for v in getattr(after, part)] == \
               [v.SerializeToString() for v in getattr(before, part)], part
    old = {i.name for i in _all_initializers(before)}
    added = {i.name: int(np.prod(i.dims)) for i in _all_initializers(after) if i.name not in old}
    assert all(n <= MAX_FOLDED for n in added.values()), max(added.items(), key=lambda kv: kv[1])
    assert (cleaned / names[graph]).stat().st_size <= (raw / names[graph]).stat().st_size
    ops = [n.op_type for n in _all_nodes(after)]
    assert "Constant" not in ops
    assert len(ops) < 0.85 * len(_all_nodes(before)), (len(ops), len(_all_nodes(before)))
    if graph == "explainer":
        verify_explainer(cleaned / names[graph], cfg)


# --- each rewrite on a small graph --------------------------------------------------------------

def _model(nodes, inputs, outputs, initializers=(), value_info=()):
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(initializers), value_info=list(value_info))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def _tensor(name, shape, dtype=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, dtype, shape)


def _const(name, value):
    return helper.make_node("Constant", [], [name], value=numpy_helper.from_array(np.asarray(value)))


def _ops(model):
    return [n.op_type for n in model.graph.node]


def test_scalar_constants_become_one_initializer_and_equal_nodes_one_node():
    model = _model([_const("a", np.float32(2)), _const("b", np.float32(2)),
                    helper.make_node("Mul", ["x", "a"], ["p"]), helper.make_node("Mul", ["x", "b"], ["q"]),
                    helper.make_node("Add", ["p", "q"], ["y"])],
                   [_tensor("x", ["K", 4])], [_tensor("y", ["K", 4])])
    removed = clean(model)
    assert _ops(model) == ["Mul", "Add"] and len(model.graph.initializer) == 1
    assert model.graph.node[1].input[0] == model.graph.node[1].input[1]
    assert removed["constants"] == 2 and removed["cse"] == 1


def test_a_node_that_is_a_graph_output_is_never_merged_away():
    model = _model([helper.make_node("Relu", ["x"], ["y"]), helper.make_node("Relu", ["x"], ["z"])],
                   [_tensor("x", [3])], [_tensor("y", [3]), _tensor("z", [3])])
    clean(model)
    assert _ops(model) == ["Relu", "Relu"]


def test_shape_arithmetic_folds_where_the_shapes_are_static_and_stays_where_k_runs():
    # torch's view(x.shape[0], x.shape[1] * 2): K is dynamic, the second axis is 3
    nodes = [helper.make_node("Relu", ["x"], ["r"]), helper.make_node("Shape", ["r"], ["s"]),
             _const("i0", np.int64(0)), _const("i1", np.int64(1)), _const("two", np.int64(2)),
             _const("ax", np.asarray([0], np.int64)),
             helper.make_node("Gather", ["s", "i0"], ["k"]), helper.make_node("Gather", ["s", "i1"], ["c"]),
             helper.make_node("Mul", ["c", "two"], ["c2"]),
             helper.make_node("Unsqueeze", ["k", "ax"], ["k1"]), helper.make_node("Unsqueeze", ["c2", "ax"], ["c1"]),
             helper.make_node("Concat", ["k1", "c1"], ["shape"], axis=0),
             helper.make_node("Concat", ["r", "r"], ["rr"], axis=1),
             helper.make_node("Reshape", ["rr", "shape"], ["y"])]
    model = _model(nodes, [_tensor("x", ["K", 3])], [_tensor("y", ["K", 6])],
                   value_info=[_tensor("r", ["K", 3]), _tensor("rr", ["K", 6])])
    clean(model)
    # K's chain stays; the constant axis 3 * 2 = 6 is one initializer
    assert _ops(model) == ["Relu", "Shape", "Gather", "Unsqueeze", "Concat", "Concat", "Reshape"]
    values = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    concat = model.graph.node[4]
    assert values[concat.input[1]].tolist() == [6]


def test_if_on_a_known_condition_becomes_its_branch():
    then = helper.make_graph([helper.make_node("Squeeze", ["x", "ax"], ["t"])], "then", [], [_tensor("t", [4])])
    other = helper.make_graph([helper.make_node("Identity", ["x"], ["e"])], "else", [], [_tensor("e", [1, 4])])
    nodes = [helper.make_node("Shape", ["x"], ["s"]), _const("i0", np.int64(0)), _const("one", np.int64(1)),
             _const("ax", np.asarray([0], np.int64)),
             helper.make_node("Gather", ["s", "i0"], ["d"]), helper.make_node("Equal", ["d", "one"], ["cond"]),
             helper.make_node("If", ["cond"], ["sq"], then_branch=then, else_branch=other),
             helper.make_node("Relu", ["sq"], ["y"])]
    model = _model(nodes, [_tensor("x", [1, 4])], [_tensor("y", [4])])
    clean(model)
    assert _ops(model) == ["Squeeze", "Relu"]
    onnx.checker.check_model(model)
    # with the axis dynamic the If stays
    model = _model(nodes, [_tensor("x", ["K", 4])], [_tensor("y", [None])])
    clean(model)
    assert "If" in _ops(model)


def test_only_exact_no_ops_are_dropped():
    def kept(op, value, shape=()):
        model = _model([_const("c", np.full(shape, value, np.float32)), helper.make_node(op, ["x", "c"], ["m"]),
                        helper.make_node("Relu", ["m"], ["y"])], [_tensor("x", [2])], [_tensor("y", None)])
        clean(model)
        return op in _ops(model)
    assert not kept("Mul", 1.0) and not kept("Div", 1.0) and not kept("Sub", 0.0)
    assert kept("Add", 0.0)  # -0 + 0 is +0
    assert kept("Sub", -0.0)  # -0 - -0 is +0
    assert kept("Mul", 1.0, (1, 1))  # broadcasts [2] to [1, 2]
    assert kept("Mul", 2.0)


def test_reshape_to_its_own_shape_and_squeeze_of_unsqueeze_go():
    nodes = [_const("shape", np.asarray([2, 3], np.int64)), _const("ax", np.asarray([1], np.int64)),
             helper.make_node("Relu", ["x"], ["r"]), helper.make_node("Reshape", ["r", "shape"], ["a"]),
             helper.make_node("Unsqueeze", ["a", "ax"], ["u"]), helper.make_node("Squeeze", ["u", "ax"], ["s"]),
             helper.make_node("Identity", ["s"], ["i"]), helper.make_node("Relu", ["i"], ["y"])]
    model = _model(nodes, [_tensor("x", [2, 3])], [_tensor("y", [2, 3])], value_info=[_tensor("r", [2, 3])])
    clean(model)
    assert _ops(model) == ["Relu", "Relu"]
    assert model.graph.node[1].input[0] == "r"


def test_a_large_constant_result_is_not_stored():
    nodes = [_const("n", np.asarray([MAX_FOLDED + 1], np.int64)),
             helper.make_node("ConstantOfShape", ["n"], ["z"], value=numpy_helper.from_array(np.ones(1, np.float32))),
             helper.make_node("Add", ["x", "z"], ["y"])]
    model = _model(nodes, [_tensor("x", [MAX_FOLDED + 1])], [_tensor("y", [MAX_FOLDED + 1])])
    clean(model)
    assert "ConstantOfShape" in _ops(model)
    assert all(np.prod(i.dims) <= MAX_FOLDED for i in model.graph.initializer)
