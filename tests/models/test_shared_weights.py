"""Attribution graphs pointed at the split graphs' weights file (models/exporter/
shared_weights.py): a tensor found there whole or as one block of a stack reads the same
values from it; a tensor found nowhere leaves every graph as it was."""
import numpy as np
import onnx
from onnx import helper, numpy_helper

from models.exporter.shared_weights import point_at
from models.exporter.split_export import externalise


def write_graph(folder, name, tensors, weights_name):
    """A graph holding `tensors` ({name: array}) in `weights_name` beside it."""
    nodes = [helper.make_node("Identity", [n], [f"{n}.out"]) for n in tensors]
    outputs = [helper.make_tensor_value_info(f"{n}.out", onnx.TensorProto.FLOAT, a.shape) for n, a in tensors.items()]
    model = helper.make_model(helper.make_graph(nodes, name, [], outputs,
                                                [numpy_helper.from_array(a, n) for n, a in tensors.items()]),
                              opset_imports=[helper.make_opsetid("", 17)])
    (folder / weights_name).write_bytes(externalise([model], weights_name))
    onnx.save(model, str(folder / f"{name}.onnx"))
    return folder / f"{name}.onnx"


def values(path):
    return {t.name: numpy_helper.to_array(t) for t in onnx.load(str(path)).graph.initializer}


def test_a_block_of_a_stack_and_a_whole_tensor_read_the_shared_file(tmp_path):
    rng = np.random.default_rng(0)
    stack, bias = rng.standard_normal((3, 4, 5)).astype(np.float32), rng.standard_normal(5).astype(np.float32)
    split = write_graph(tmp_path, "split", {"stack.w": stack, "params.b": bias}, "m.weights.bin")
    attribution = write_graph(tmp_path, "attr1", {"params.blocks.2.w": stack[1], "params.b": bias}, "m.attribution.bin")
    assert point_at([attribution], tmp_path / "m.attribution.bin", tmp_path / "m.weights.bin", [split])
    (tmp_path / "m.attribution.bin").unlink()  # read from the shared file alone
    got = values(attribution)
    np.testing.assert_array_equal(got["params.blocks.2.w"], stack[1])
    np.testing.assert_array_equal(got["params.b"], bias)


def test_a_tensor_found_nowhere_leaves_the_graphs_as_they_were(tmp_path):
    rng = np.random.default_rng(1)
    stack = rng.standard_normal((3, 4, 5)).astype(np.float32)
    split = write_graph(tmp_path, "split", {"stack.w": stack}, "m.weights.bin")
    graph = write_graph(tmp_path, "attr", {"params.blocks.1.w": stack[0], "params.blocks.2.w": stack[1] + 1},
                        "m.attribution.bin")
    before = graph.read_bytes()
    assert not point_at([graph], tmp_path / "m.attribution.bin", tmp_path / "m.weights.bin", [split])
    assert graph.read_bytes() == before
