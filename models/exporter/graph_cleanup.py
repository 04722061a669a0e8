"""Cleanup of the ONNX graphs torch.onnx writes (each piece of a graph built block by block,
scan_graph.py, and the attribution graphs traced whole): offline, once, what onnxruntime's basic graph
optimisation otherwise redoes at every session opening, storing no tensor larger than
MAX_FOLDED elements (never a derived weight: onnxruntime's own offline graph wrote 131.6 MB
of clamped and transposed W, docs/experiments.md).

torch.onnx traces every scalar as a Constant node, every `x.shape[i]` as Shape → Gather →
Unsqueeze → Concat arithmetic and every squeeze of a possibly-1 axis as an If; and the
explainer's passes recompute the same products of a weight (W⁺, W⁻, Wᵀ) once per use.
onnxruntime's session walks every node in each of its ~49 passes, so these nodes were most of
a family graph's opening time (docs/experiments.md, "graph cleanup").

The rewrites, repeated until none applies:
  constants   Constant nodes become initializers, equal ones (same type, shape and bytes) one;
  fold        a node whose inputs are all known small constants, or a Shape of a tensor of
              static shape, becomes its (small) value; an If on a known condition becomes
              its branch's nodes;
  noop        Identity, Reshape to the input's own static shape, Mul/Div by a scalar 1,
              Sub of a scalar 0, Squeeze of an Unsqueeze on the same axes;
  cse         nodes with the same op, attributes and inputs become one;
  dead        nodes that reach no graph output go.
Each is exact: the outputs of the cleaned graph equal the exported one's bit for bit
(tests/models/test_graph_cleanup.py). Add of 0 is not dropped: -0 + 0 is +0.
The graph's inputs, outputs and their names are kept; a value that is a graph output is
never renamed, so a rewrite that would rename one is skipped.
"""
from collections import Counter
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence, Set, Tuple

import numpy as np
import onnx
from onnx import helper, numpy_helper

MAX_FOLDED = 1024  # elements: shape arithmetic and scalars, never a weight-sized tensor
REWRITES = ("constants", "fold", "noop", "cse", "dead")


def _subgraphs(node: onnx.NodeProto) -> List[onnx.GraphProto]:
    return [g for a in node.attribute for g in ([a.g] if a.HasField("g") else []) + list(a.graphs)]


def _rename_inputs(nodes: Iterable[onnx.NodeProto], alias: Dict[str, str]) -> None:
    """Every input read through `alias` (chains resolved), in subgraphs too."""
    for node in nodes:
        for i, name in enumerate(node.input):
            if name in alias:
                node.input[i] = _resolve(alias, name)
        for sub in _subgraphs(node):
            _rename_inputs(sub.node, alias)
            for out in sub.output:  # a branch may return an outer value directly
                if out.name in alias:
                    out.name = _resolve(alias, out.name)


def _resolve(alias: Dict[str, str], name: str) -> str:
    while name in alias:
        name = alias[name]
    return name


def _tensor_key(t: onnx.TensorProto) -> Tuple:
    if t.data_location == onnx.TensorProto.EXTERNAL:  # the same bytes of the same file
        return ("external", t.data_type, tuple(t.dims), tuple((e.key, e.value) for e in t.external_data))
    return ("inline", t.data_type, tuple(t.dims), numpy_helper.to_array(t).tobytes())


def _constant_value(node: onnx.NodeProto) -> Optional[np.ndarray]:
    (attr,) = node.attribute
    if attr.name == "value":
        return numpy_helper.to_array(attr.t)
    if attr.name in ("value_float", "value_int", "value_floats", "value_ints"):
        dtype = np.float32 if "float" in attr.name else np.int64
        return np.asarray(helper.get_attribute_value(attr), dtype=dtype)
    return None  # sparse or string constants stay as they are


class _Cleaner:
    def __init__(self, model: onnx.ModelProto):
        self.model = model
        self.graph = model.graph
        self.removed: Counter = Counter()
        self.protected: Set[str] = {o.name for o in self.graph.output}
        # Known small constants: the Constant nodes' values, what is folded from them, and the
        # integer initializers torch writes (axes). Never a weight, however small (a bias): a
        # value derived from one is computed in the graph, as the exporter's policy is
        # (onnx_export.py), and a graph cleans the same with its weights inline or external.
        self.values: Dict[str, np.ndarray] = {}
        for init in self.graph.initializer:
            if init.data_location != onnx.TensorProto.EXTERNAL and np.prod(init.dims) <= MAX_FOLDED \
                    and init.data_type in (onnx.TensorProto.INT64, onnx.TensorProto.INT32, onnx.TensorProto.BOOL):
                self.values[init.name] = numpy_helper.to_array(init)

    # --- helpers -------------------------------------------------------------------------
    def _add_initializer(self, name: str, value: np.ndarray) -> None:
        # np.array, not ascontiguousarray, which turns a 0-d value into 1-d
        self.graph.initializer.append(numpy_helper.from_array(np.array(value, order="C"), name))
        self.values[name] = value

    def _replace_nodes(self, nodes: List[onnx.NodeProto], alias: Dict[str, str]) -> None:
        del self.graph.node[:]
        self.graph.node.extend(nodes)
        if alias:
            _rename_inputs(self.graph.node, alias)

    def _dims(self) -> Dict[str, Tuple[Optional[int], ...]]:
        """Each value's axes where known, None where not (a dynamic axis): the initializers' and
        inputs' own, and the value_info shapes.py measured (ONNX shape inference loses most of
        them behind the dynamic K axis and the switches' Slices)."""
        dims = {i.name: tuple(i.dims) for i in self.graph.initializer}
        for v in list(self.graph.value_info) + list(self.graph.input):
            t = v.type.tensor_type
            if t.HasField("shape"):
                dims.setdefault(v.name, tuple(d.dim_value if d.HasField("dim_value") else None
                                              for d in t.shape.dim))
        return dims

    # --- the rewrites ----------------------------------------------------------------------
    def constants(self) -> int:
        """Constant nodes → initializers; equal small initializers → one."""
        canonical: Dict[Tuple, str] = {}
        alias: Dict[str, str] = {}
        for init in list(self.graph.initializer):
            if init.data_location == onnx.TensorProto.EXTERNAL or init.name in self.values:
                key = _tensor_key(init)
                if key in canonical and init.name not in self.protected:
                    alias[init.name] = canonical[key]
                    self.graph.initializer.remove(init)
                    self.values.pop(init.name, None)
                else:
                    canonical.setdefault(key, init.name)
        keep, count = [], 0
        for node in self.graph.node:
            value = _constant_value(node) if node.op_type == "Constant" else None
            if value is None or node.output[0] in self.protected:
                keep.append(node)
                continue
            count += 1
            tensor = numpy_helper.from_array(value)
            key = _tensor_key(tensor)
            if key in canonical:
                alias[node.output[0]] = canonical[key]
            else:
                canonical[key] = node.output[0]
                self._add_initializer(node.output[0], value)
        self._replace_nodes(keep, alias)
        return count

    def fold(self) -> int:
        """Nodes computable now into small constants; If on a known condition → its branch."""
        dims = self._dims()
        producer = {o: n for n in self.graph.node for o in n.output}
        keep, alias, count = [], {}, 0
        for node in self.graph.node:
            if node.op_type == "If" and node.input[0] in self.values:
                count += 1
                keep.extend(self._inline(node, bool(self.values[node.input[0]].item()), alias))
                continue
            result = self._evaluate(node, dims, producer)
            if result is None or any(o in self.protected for o in node.output):
                keep.append(node)
                continue
            count += 1
            self._add_initializer(node.output[0], result)
        self._replace_nodes(keep, alias)
        return count

    def _inline(self, node: onnx.NodeProto, condition: bool, alias: Dict[str, str]) -> List[onnx.NodeProto]:
        branch = next(a.g for a in node.attribute if a.name == ("then_branch" if condition else "else_branch"))
        nodes = [onnx.NodeProto() for _ in branch.node]
        for copy, original in zip(nodes, branch.node):
            copy.CopyFrom(original)
        for result, out in zip(node.output, branch.output):
            producer = next((n for n in nodes if out.name in n.output), None)
            if producer is not None:  # names are unique model-wide: the branch's output takes the If's
                producer.output[list(producer.output).index(out.name)] = result
                _rename_inputs(nodes, {out.name: result})
            elif result in self.protected:
                nodes.append(helper.make_node("Identity", [out.name], [result]))
            else:
                alias[result] = out.name
        return nodes

    def _evaluate(self, node: onnx.NodeProto, dims, producer) -> Optional[np.ndarray]:
        if len(node.output) != 1 or node.domain not in ("", "ai.onnx"):
            return None
        if node.op_type == "Shape":
            shape = dims.get(node.input[0], (None,))
            attrs = {a.name: a.i for a in node.attribute}
            shape = shape[attrs.get("start", 0):attrs.get("end", len(shape))]
            return np.asarray(shape, dtype=np.int64) if None not in shape else None
        if node.op_type == "Gather" and node.input[1] in self.values and node.input[0] in producer:
            # an axis of a partly static shape (Shape → Gather: torch's x.shape[i])
            source = producer[node.input[0]]
            shape = dims.get(source.input[0]) if source.op_type == "Shape" and not source.attribute else None
            if shape is not None:
                picked = np.take(np.asarray([-1 if d is None else d for d in shape], np.int64),
                                 self.values[node.input[1]])
                return picked if (picked >= 0).all() else None
        rule = _FOLDERS.get(node.op_type)
        if rule is None or not all(i == "" or i in self.values for i in node.input):
            return None
        inputs = [self.values[i] if i else None for i in node.input]
        attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
        try:
            result = rule(inputs, attrs)
        except (ValueError, IndexError, TypeError):  # an op we evaluate differently: leave it to the engine
            return None
        return result if result.size <= MAX_FOLDED else None

    def noop(self) -> int:
        """Nodes whose output is their first input, bit for bit."""
        dims = self._dims()
        producer = {o: n for n in self.graph.node for o in n.output}
        keep, alias, count = [], {}, 0
        for node in self.graph.node:
            source = self._noop_source(node, dims, producer)
            if source is None or node.output[0] in self.protected:
                keep.append(node)
                continue
            count += 1
            alias[node.output[0]] = source
        self._replace_nodes(keep, alias)
        return count

    def _noop_source(self, node, dims, producer) -> Optional[str]:
        op, ins = node.op_type, list(node.input)
        if op == "Identity":
            return ins[0]
        if op == "Reshape" and ins[1] in self.values and ins[0] in dims:
            target = self.values[ins[1]].tolist()
            if tuple(target) == dims[ins[0]] and all(d > 0 for d in target):
                return ins[0]
        if op in ("Mul", "Div", "Sub") and len(ins) == 2:
            unit = {"Mul": 1, "Div": 1, "Sub": 0}[op]
            for x, c in ((ins[0], ins[1]), (ins[1], ins[0])) if op == "Mul" else ((ins[0], ins[1]),):
                # a 0-d constant broadcasts to the other input's shape unchanged
                if c in self.values and self.values[c].ndim == 0 and self.values[c].item() == unit:
                    if op != "Sub" or not np.signbit(self.values[c]):
                        return x
        if op == "Squeeze" and len(ins) == 2 and ins[0] in producer:
            up = producer[ins[0]]
            if up.op_type == "Unsqueeze" and len(up.input) == 2 and up.input[1] in self.values \
                    and ins[1] in self.values and self.values[ins[1]].tolist() == self.values[up.input[1]].tolist() \
                    and self.values[ins[1]].size == 1:
                return up.input[0]
        return None

    def cse(self) -> int:
        """Nodes with the same op, domain, attributes and inputs → the first of them."""
        seen: Dict[Tuple, onnx.NodeProto] = {}
        keep, alias, count = [], {}, 0
        for node in self.graph.node:
            _rename_inputs([node], alias)
            key = (node.domain, node.op_type, tuple(node.input), len(node.output),
                   tuple(a.SerializeToString(deterministic=True) for a in node.attribute))
            first = seen.get(key)
            if first is None or any(o in self.protected for o in node.output) or not node.output:
                seen.setdefault(key, node)
                keep.append(node)
                continue
            count += 1
            alias.update({dup: kept for dup, kept in zip(node.output, first.output) if dup})
        self._replace_nodes(keep, alias)
        return count

    def dead(self) -> int:
        return drop_dead_nodes(self.graph)


def _onnx_dtype(to: int):
    return helper.tensor_dtype_to_np_dtype(to) if hasattr(helper, "tensor_dtype_to_np_dtype") \
        else onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[to]


def _int_div(a, b):
    if np.issubdtype(a.dtype, np.integer):  # C division: towards zero
        return (np.abs(a) // np.abs(b)) * np.sign(a) * np.sign(b)
    return a / b


def _slice(ins, _attrs):
    data, starts, ends = ins[0], ins[1], ins[2]
    axes = ins[3] if len(ins) > 3 and ins[3] is not None else np.arange(len(starts))
    steps = ins[4] if len(ins) > 4 and ins[4] is not None else np.ones(len(starts), np.int64)
    index = [slice(None)] * data.ndim
    for start, end, axis, step in zip(starts.tolist(), ends.tolist(), axes.tolist(), steps.tolist()):
        dim = data.shape[axis]
        start, end = start + dim if start < 0 else start, end + dim if end < 0 else end
        if step > 0:
            start, end = min(max(start, 0), dim), min(max(end, 0), dim)
        else:
            start, end = min(max(start, 0), dim - 1), min(max(end, -1), dim - 1)
        index[axis] = slice(start, None if end < 0 else end, step)
    return data[tuple(index)]


def _reshape(ins, attrs):
    data, shape = ins[0], ins[1].tolist()
    if not attrs.get("allowzero", 0):
        shape = [data.shape[i] if d == 0 else d for i, d in enumerate(shape)]
    return data.reshape(shape)


def _same(dtype_of):
    """A binary/unary numpy op whose result keeps its input's type, as ONNX's do."""
    return lambda ins, attrs: np.asarray(dtype_of(*ins), dtype=ins[0].dtype)


_FOLDERS = {
    "Identity": lambda ins, attrs: ins[0],
    "Gather": lambda ins, attrs: np.take(ins[0], ins[1], axis=attrs.get("axis", 0)),
    "Unsqueeze": lambda ins, attrs: np.expand_dims(ins[0], tuple(
        int(a) % (ins[0].ndim + ins[1].size) for a in ins[1].ravel())),
    "Squeeze": lambda ins, attrs: np.squeeze(ins[0], axis=None if len(ins) < 2 or ins[1] is None
                                             else tuple(int(a) for a in ins[1].ravel())),
    "Concat": lambda ins, attrs: np.concatenate(ins, axis=attrs["axis"]),
    "Cast": lambda ins, attrs: ins[0].astype(_onnx_dtype(attrs["to"])),
    "Equal": lambda ins, attrs: np.equal(ins[0], ins[1]),
    "Less": lambda ins, attrs: np.less(ins[0], ins[1]),
    "Greater": lambda ins, attrs: np.greater(ins[0], ins[1]),
    "Not": lambda ins, attrs: np.logical_not(ins[0]),
    "And": lambda ins, attrs: np.logical_and(ins[0], ins[1]),
    "Or": lambda ins, attrs: np.logical_or(ins[0], ins[1]),
    "Where": lambda ins, attrs: np.where(ins[0], ins[1], ins[2]),
    "Add": _same(np.add), "Sub": _same(np.subtract), "Mul": _same(np.multiply), "Div": _same(_int_div),
    "Neg": _same(np.negative),
    "Reshape": _reshape,
    "Slice": _slice,
    "Expand": lambda ins, attrs: np.broadcast_to(ins[0], np.broadcast_shapes(ins[0].shape, tuple(ins[1]))).copy(),
    "ConstantOfShape": lambda ins, attrs: np.full(
        tuple(ins[0].tolist()), numpy_helper.to_array(attrs["value"]).item() if "value" in attrs else 0.0,
        dtype=numpy_helper.to_array(attrs["value"]).dtype if "value" in attrs else np.float32),
    "Range": lambda ins, attrs: np.arange(ins[0].item(), ins[1].item(), ins[2].item(), dtype=ins[0].dtype),
}


def drop_dead_nodes(graph: onnx.GraphProto) -> int:
    """Removes nodes none of whose outputs reaches a graph output, and the initializers no
    node reads; returns how many nodes."""
    needed = {o.name for o in graph.output}
    keep = []
    for node in reversed(graph.node):
        if any(o in needed for o in node.output):
            keep.append(node)
            needed.update(i for i in node.input if i)
            for sub in _subgraphs(node):  # subgraphs (If/Loop) read outer names too
                needed.update(_names_read(sub))
    removed = len(graph.node) - len(keep)
    del graph.node[:]
    graph.node.extend(reversed(keep))
    for init in [i for i in graph.initializer if i.name not in needed]:
        graph.initializer.remove(init)
    return removed


def _names_read(graph: onnx.GraphProto) -> Set[str]:
    names = {o.name for o in graph.output}
    for node in graph.node:
        names.update(i for i in node.input if i)
        for sub in _subgraphs(node):
            names.update(_names_read(sub))
    return names


def clean(model: onnx.ModelProto) -> Counter:
    """Cleans `model` in place; returns the nodes each rewrite removed."""
    cleaner = _Cleaner(model)
    removed: Counter = Counter()
    for _ in range(20):  # each round exposes the next (a folded Shape → its Gather → …)
        before = len(model.graph.node)
        for rewrite in REWRITES:
            removed[rewrite] += getattr(cleaner, rewrite)()
        if len(model.graph.node) == before:
            break
    # the If outputs of a folded condition may now be unused initializers
    drop_dead_nodes(model.graph)
    produced = {o for n in model.graph.node for o in n.output}
    kept = [v for v in model.graph.value_info if v.name in produced]  # not the values folded or merged away
    del model.graph.value_info[:]
    model.graph.value_info.extend(kept)
    return removed


def clean_file(path: Path) -> Counter:
    """Cleans the graph at `path` in place (its external data untouched), checked by onnx.checker."""
    model = onnx.load(str(path), load_external_data=False)
    removed = clean(model)
    onnx.save(model, str(path))
    onnx.checker.check_model(str(path))  # by path: it finds the external data beside it
    return removed


def clean_files(paths: Sequence[Path]) -> Dict[str, Counter]:
    return {Path(p).name: clean_file(Path(p)) for p in paths}
