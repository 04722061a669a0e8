"""The explainer and plain forward graphs written to files, and the checks of the written files."""
import contextlib
from pathlib import Path
from typing import Dict, List

import onnx
import torch
import torch.onnx.utils

from .config import ViTConfig
from .errors import ExportCheckFailed
from .exported_graphs import explainer_model, forward_model
from .metadata import K, Dim, input_shapes, output_shapes

# The explainer file may hold little more than the weights: derived tensors (clamped W⁺,
# W⁻, transposes) must be computed in the graph, not stored as extra initializers.
MAX_EXPLAINER_TO_PLAIN = 1.2
# ...plus the explainer's extra nodes, which do not shrink with the weights: about 60 KB per
# block measured (a 2-block width-48 model's explainer is 118 KB over its 286 KB forward).
# Small exported models need it; a stored derived weight of any real ViT is far larger.
GRAPH_BYTES_PER_BLOCK = 100_000


@contextlib.contextmanager
def keep_env_alive():
    """Makes PyTorch 1.13's ONNX conversion about a quarter quicker, the graphs unchanged.

    For every node it converts, the conversion (_jit_pass_onnx, in C++) hands Python a new
    dict of every value converted so far (`env`), so its time grows with the square of the
    graph's nodes; most of that is allocating a Python wrapper for each value, again and
    again. While this holds the last dict, the wrappers live on and are reused. Only which
    Python objects exist changes: the graphs come out byte-identical.
    """
    run_symbolic = torch.onnx.utils._run_symbolic_function
    last_env = []

    def keeping(graph, block, node, inputs, env, *args, **kwargs):
        last_env[:] = [env]
        return run_symbolic(graph, block, node, inputs, env, *args, **kwargs)

    torch.onnx.utils._run_symbolic_function = keeping
    try:
        yield
    finally:
        torch.onnx.utils._run_symbolic_function = run_symbolic
        last_env.clear()


def export_explainer(module, cfg: ViTConfig, path: Path) -> None:
    """The explainer graph of `module` (explainer.ExplainerGraph: its weights, passes and
    final LayerNorm eps) to `path`, built block by block (exported_graphs.py)."""
    onnx.save(explainer_model(cfg, module.params, module.passes, module.final_ln_eps), str(path))


def export_plain(module, cfg: ViTConfig, path: Path) -> None:
    """The plain forward graph (explainer.PlainViT's weights), dynamic batch axis, to `path`."""
    onnx.save(forward_model(cfg, module.params), str(path))


def _dims(value_info) -> List[Dim]:
    return [d.dim_param if d.dim_param else d.dim_value
            for d in value_info.type.tensor_type.shape.dim]


def _check_io(kind: str, actual: Dict[str, List[Dim]], expected: Dict[str, List[Dim]]) -> List[str]:
    problems = []
    if list(actual) != list(expected):
        problems.append(f"{kind} are {list(actual)}, the contract says {list(expected)}")
    for name, want in expected.items():
        got = actual.get(name)
        if got is None:
            continue
        if len(got) != len(want):
            problems.append(f"{kind[:-1]} {name} has rank {len(got)}, expected {want}")
            continue
        for axis, (g, e) in enumerate(zip(got, want)):
            if e == K and not (isinstance(g, str) and g):
                problems.append(f"{kind[:-1]} {name} axis {axis} is {g!r}, expected the dynamic K")
            elif e != K and isinstance(g, int) and g not in (0, e):  # 0/named: not inferred
                problems.append(f"{kind[:-1]} {name} axis {axis} is {g!r}, expected {e}")
    return problems


def contract_problems(path: Path, inputs: Dict[str, List[Dim]], outputs: Dict[str, List[Dim]]):
    """onnx.checker, then ([what breaks the contract: names, order, static and dynamic dims],
    the graph's inputs and outputs as value infos, for the caller's type checks)."""
    onnx.checker.check_model(str(path))
    graph = onnx.load(str(path), load_external_data=False).graph
    initializers = {i.name for i in graph.initializer}
    given = [i for i in graph.input if i.name not in initializers]
    problems = _check_io("inputs", {i.name: _dims(i) for i in given}, inputs)
    problems += _check_io("outputs", {o.name: _dims(o) for o in graph.output}, outputs)
    return problems, given + list(graph.output)


def verify_explainer(path: Path, cfg: ViTConfig) -> None:
    """onnx.checker, then the contract: names, order, float32, static and dynamic dims."""
    problems, values = contract_problems(path, input_shapes(cfg), output_shapes(cfg))
    problems += [f"{v.name} is not float32" for v in values if v.type.tensor_type.elem_type != onnx.TensorProto.FLOAT]
    if problems:
        raise ExportCheckFailed(f"{path.name} breaks the graph contract: " + "; ".join(problems))


def check_size_ratio(explainer: Path, plain: Path, blocks: int = 0) -> float:
    """The size ratio; raises above MAX_EXPLAINER_TO_PLAIN x the plain graph plus
    GRAPH_BYTES_PER_BLOCK per block (blocks = 0: the ratio alone)."""
    ratio = explainer.stat().st_size / plain.stat().st_size
    if explainer.stat().st_size > MAX_EXPLAINER_TO_PLAIN * plain.stat().st_size + GRAPH_BYTES_PER_BLOCK * blocks:
        raise ExportCheckFailed(
            f"{explainer.name} is {explainer.stat().st_size} bytes, {ratio:.2f}x the plain forward "
            f"graph ({plain.stat().st_size} bytes; limit {MAX_EXPLAINER_TO_PLAIN}x): tensors computed "
            f"at trace time were stored in the file instead of being computed in the graph. "
            + stored_constants_summary(explainer))
    return ratio


def stored_constants_summary(path: Path, top: int = 5) -> str:
    """Where the extra bytes are: the big Constant nodes and what reads them. Typical
    causes: full_like/zeros_like/torch.tensor of activation size (traced as constants
    when the shape is static) or weights transformed outside the graph."""
    try:
        graph = onnx.load(str(path)).graph
    except Exception as err:  # the summary is a hint; never hide the real failure
        return f"(could not read {path.name}: {err})"
    readers: Dict[str, List[str]] = {}
    for node in graph.node:
        for name in node.input:
            readers.setdefault(name, []).append(node.op_type)
    consts = []
    for node in graph.node:
        if node.op_type == "Constant":
            for attr in node.attribute:
                if attr.name == "value":
                    consts.append((len(attr.t.raw_data) or 4 * max(1, len(attr.t.float_data)),
                                   node.output[0], list(attr.t.dims)))
    consts.sort(reverse=True)
    total = sum(c[0] for c in consts)
    listed = ", ".join(f"{name} {dims} read by {'/'.join(sorted(set(readers.get(name, []))))}"
                       for _, name, dims in consts[:top])
    return f"{len(consts)} Constant nodes hold {total / 1e6:.1f} MB; the largest: {listed}"
