"""Graphs written as small traced pieces joined by ONNX loops over the blocks.

Why: onnxruntime's session opening walks every node of a graph in each of its ~49 passes,
and PyTorch 1.13 converts a traced graph to ONNX in a time that grows faster than the
square of its nodes (docs/experiments.md). A ViT repeats one block; written once, in a loop
over the blocks, a graph has about a tenth of the nodes: DeiT-tiny's first-map graph opened
in a quarter of the time, and its conversion took about a second instead of minutes.

How (passes.py names the stages):
  - a piece is a PyTorch function of named tensors, traced by torch.onnx on its own and
    cleaned (graph_cleanup.py; a MatMul of a transposed 2-D weight becomes a Gemm reading
    the weight where it lies, as no loop body can fold the transposed copy);
  - a block stage is a piece run by an ONNX Scan: its body reads one block's weights,
    sliced by the loop from initializers that stack blocks 1..B-2 ([B-2, ...], `stack.*`;
    block 0, whose passes stop at its attention, and the last block, which computes only
    the rows the head reads, are pieces of their own with their own weights); its records
    go out stacked along the first axis;
  - the parts of the weights the LRP rules read (W⁺, W⁻, |W|) are computed from the stacks
    outside the loop, where onnxruntime folds them into constants when it opens the session
    (LinearParts in lrp_rules.py), never stored in the file.
Pieces are glued by value names: a piece's input reads the value of the same name.
"""
import io
from types import SimpleNamespace
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np
import onnx
import torch
from onnx import helper, numpy_helper
from torch import nn

from .graph_cleanup import clean, drop_dead_nodes
from .lrp_rules import LinearParts

OPSET = 17
FLOAT = onnx.TensorProto.FLOAT
PARTS = ("pos", "neg", "magnitude")  # the LinearParts a loop body may read of a weight


def looped_blocks(cfg) -> range:
    """The blocks a loop runs: all but block 0, whose passes stop at its attention (no loop
    body may skip their rest: block 0 is a piece of its own), and the last, which computes
    only the rows the head reads (the top piece)."""
    return range(1, cfg.depth - 1)


# --- records: a forward stage's namespace of tensors, as named values -----------------------

def record_tensors(ns) -> Dict[str, torch.Tensor]:
    """Every tensor field of a record (dict fields as "field.key"), each distinct tensor
    once, under the first name it has (middle blocks alias q_rows to q, x_rows to x...)."""
    out, seen = {}, set()
    for key, value in vars(ns).items():
        items = value.items() if isinstance(value, dict) else [(None, value)]
        for sub, t in items:
            if torch.is_tensor(t) and id(t) not in seen:
                seen.add(id(t))
                out[key if sub is None else f"{key}.{sub}"] = t
    return out


def rebuild_record(template, tensors: Dict[str, torch.Tensor], prefix: str = ""):
    """A record with the fields of `template` (its non-tensor fields, such as rows, kept):
    each tensor field read from tensors[prefix + its canonical name], None where absent."""
    by_id = {id(t): name for name, t in record_tensors(template).items()}
    out = SimpleNamespace()
    for key, value in vars(template).items():
        if isinstance(value, dict):
            setattr(out, key, {sub: tensors.get(prefix + by_id[id(t)]) for sub, t in value.items()})
        elif torch.is_tensor(value):
            setattr(out, key, tensors.get(prefix + by_id[id(value)]))
        else:
            setattr(out, key, value)
    return out


class BlockParams:
    """`params` for a loop body: every block's weight `blocks.<n>.<part>` is the traced input
    `w.<part>`, and a LinearParts part `w.<part>.<pos|neg|magnitude>` (given in `tensors`)."""

    def __init__(self, tensors: Dict[str, torch.Tensor]):
        self.tensors = tensors

    @staticmethod
    def part(key: str) -> str:
        return "w." + key.split(".", 2)[2]

    def get(self, key: str):
        return self.tensors[self.part(key)]

    def get_optional(self, key: str):
        return self.tensors.get(self.part(key))

    def linear(self, key: str) -> LinearParts:
        name = self.part(key)
        return LinearParts(self.tensors[name], *(self.tensors.get(f"{name}.{p}") for p in PARTS))


# Up to this size of the blocks' weights, a loop body reads the LinearParts from stacks
# computed outside the loop, which onnxruntime folds into constants when it opens a session:
# three more copies of those weights per session (DeiT-tiny: 3 × 21 MB), and runs about 2 %
# quicker than computing each block's parts in the body (DeiT-tiny's first-map graph, Node,
# 24 paired runs). Above it the body computes them: ViT-B/16's 340 MB would take another
# GB per session, and its runs are long enough for the parts to cost under 1 %.
PARTS_OUTSIDE_MAX_BYTES = 128 * 2 ** 20


def parts_outside(cfg) -> bool:
    from .params import param_shapes
    block_bytes = sum(4 * int(np.prod(shape)) for key, shape in param_shapes(cfg).items() if key.startswith("blocks."))
    return block_bytes <= PARTS_OUTSIDE_MAX_BYTES


def block_inputs(params, cfg, b: int) -> Dict[str, torch.Tensor]:
    """Example inputs of a loop body's weights: block b's weights, and their LinearParts
    where parts_outside(cfg)."""
    from .params import param_shapes
    out, with_parts = {}, parts_outside(cfg)
    for key in param_shapes(cfg):
        if key.startswith(f"blocks.{b}."):
            name = BlockParams.part(key)
            out[name] = params.get(key)
            if out[name].dim() == 2 and with_parts:
                lin = params.linear(key)
                out.update({f"{name}.{p}": getattr(lin, p) for p in PARTS})
    return out


# --- tracing ----------------------------------------------------------------------------

class Piece:
    """A traced piece: `model` (cleaned), the names of the inputs it reads and of its
    outputs, and `alias` (output name -> the input or output it equals: not in the graph)."""

    def __init__(self, model: onnx.ModelProto, outputs: List[str], alias: Dict[str, str]):
        self.model = model
        self.inputs = [i.name for i in model.graph.input if i.name not in {t.name for t in model.graph.initializer}]
        self.outputs = outputs
        self.alias = alias


class _Traced(nn.Module):
    def __init__(self, fn, params, names, outputs):
        super().__init__()
        self.params = params  # registered: its buffers export as initializers of stable names
        self.fn, self.names, self.outputs = fn, names, outputs

    def forward(self, *args):
        result = self.fn(**dict(zip(self.names, args)))
        return tuple(result[n] for n in self.outputs)


def trace(fn: Callable[..., Dict[str, torch.Tensor]], params, inputs: Dict[str, torch.Tensor],
          dynamic: Optional[Dict[str, Dict[int, str]]] = None) -> Piece:
    """fn(**inputs) -> {output name: tensor}, traced and cleaned. `dynamic` names the
    inputs' run-time axes ({"target": {0: "K"}}); outputs take theirs from the trace."""
    names = list(inputs)
    with torch.no_grad():
        result = fn(**inputs)
    given = {id(t): n for n, t in inputs.items()}
    outputs, alias, seen = [], {}, {}
    for name, t in result.items():
        if id(t) in given:
            alias[name] = given[id(t)]
        elif id(t) in seen:
            alias[name] = seen[id(t)]
        else:
            seen[id(t)] = name
            outputs.append(name)
    buffer = io.BytesIO()
    with torch.no_grad():
        torch.onnx.export(_Traced(fn, params, names, outputs), tuple(inputs.values()), buffer,
                          opset_version=OPSET, input_names=names, output_names=outputs,
                          dynamic_axes=dynamic or {}, do_constant_folding=False)
    model = onnx.shape_inference.infer_shapes(onnx.load_from_string(buffer.getvalue()))
    clean(model)
    gemm_of_transposed(model.graph)
    return Piece(model, outputs, alias)


def gemm_of_transposed(graph: onnx.GraphProto) -> int:
    """MatMul(A, Transpose(W)) with A and W 2-D -> Gemm(A, W, transB=1): the product reads W
    where it lies instead of a copy transposed on every run (onnxruntime folds the copy of a
    constant W, but not of a loop body's input). Returns how many."""
    rank = {v.name: len(v.type.tensor_type.shape.dim) for v in list(graph.value_info) + list(graph.input)
            if v.type.tensor_type.HasField("shape")}
    rank.update({t.name: len(t.dims) for t in graph.initializer})
    producer = {o: n for n in graph.node for o in n.output}
    readers: Dict[str, int] = {}
    for n in graph.node:
        for i in n.input:
            readers[i] = readers.get(i, 0) + 1
    count = 0
    for node in graph.node:
        if node.op_type != "MatMul":
            continue
        a, bt = node.input
        t = producer.get(bt)
        if t is None or t.op_type != "Transpose" or rank.get(a) != 2 or rank.get(t.input[0]) != 2:
            continue
        node.op_type = "Gemm"
        node.input[1] = t.input[0]
        node.attribute.append(helper.make_attribute("transB", 1))
        count += 1
    drop_dead_nodes(graph)
    return count


# --- assembly -----------------------------------------------------------------------------

def _renamed(graph: onnx.GraphProto, names: Dict[str, str], scope: str, keep: Sequence[str] = ()):
    """Copies of graph's nodes and initializers, every value renamed: names[v] where given,
    kept as it is in `keep` (the weights' initializers: one per model), else scope/v."""
    keep = set(keep)

    def rename(v):
        if not v:
            return v
        return names.get(v, v if v in keep else f"{scope}/{v}")

    nodes = []
    for node in graph.node:
        copy = onnx.NodeProto()
        copy.CopyFrom(node)
        copy.input[:] = [rename(i) for i in node.input]
        copy.output[:] = [rename(o) for o in node.output]
        copy.name = f"{scope}/{node.name}"
        nodes.append(copy)
    inits = []
    for t in graph.initializer:
        copy = onnx.TensorProto()
        copy.CopyFrom(t)
        copy.name = rename(t.name)
        inits.append(copy)
    infos = []
    for v in graph.value_info:
        if rename(v.name) == f"{scope}/{v.name}":
            copy = onnx.ValueInfoProto()
            copy.CopyFrom(v)
            copy.name = rename(v.name)
            # a piece's axis names are its own: pieces traced apart may give one name to
            # two sizes, and onnxruntime would plan one buffer for both
            for d in copy.type.tensor_type.shape.dim:
                if d.dim_param:
                    d.dim_param = f"{scope}:{d.dim_param}"
            infos.append(copy)
    return nodes, inits, infos


def is_weight(t: onnx.TensorProto) -> bool:
    """A checkpoint tensor (torch.onnx names ViTParams' buffers `params.*`) or a stack of
    them, as opposed to the graphs' small constants."""
    return t.name.startswith(("params.", "stack."))


class Assembly:
    """An ONNX graph built from pieces (add), loops (scan) and the block weights' stacks."""

    def __init__(self, cfg, params):
        self.cfg, self.params = cfg, params
        self.nodes: List[onnx.NodeProto] = []
        self.inits: Dict[str, onnx.TensorProto] = {}
        self.infos: List[onnx.ValueInfoProto] = []
        self.count = 0

    def _scope(self, name: str) -> str:
        self.count += 1
        return f"{name}{self.count}"

    def add(self, piece: Piece, names: Optional[Dict[str, str]] = None, scope: str = "piece") -> Dict[str, str]:
        """The piece's nodes, its inputs reading and its outputs writing the values of the
        same names (or names[...]). Returns {output name: value} with the aliases resolved."""
        names = dict(names or {})
        io_names = {n: names.get(n, n) for n in piece.inputs + piece.outputs}
        weights = [t.name for t in piece.model.graph.initializer if is_weight(t)]
        nodes, inits, infos = _renamed(piece.model.graph, io_names, self._scope(scope), weights)
        self.nodes += nodes
        for t in inits:
            self.inits.setdefault(t.name, t)
        self.infos += infos
        out = {n: io_names[n] for n in piece.outputs}
        for n, source in piece.alias.items():
            out[n] = out.get(source, names.get(source, source))
        return out

    def node(self, op: str, inputs: List[str], **attrs) -> str:
        out = f"{op.lower()}{self._scope('')}"
        self.nodes.append(helper.make_node(op, inputs, [out], **attrs))
        return out

    def constant(self, value: np.ndarray, name: str) -> str:
        if name not in self.inits:
            self.inits[name] = numpy_helper.from_array(np.asarray(value), name)
        return name

    def stack(self, part: str) -> str:
        """The initializer stacking `blocks.<b>.<part>` of the looped blocks along a new first axis."""
        name = f"stack.{part}"
        if name not in self.inits:
            tensors = [self.params.get(f"blocks.{b}.{part}") for b in looped_blocks(self.cfg)]
            self.inits[name] = numpy_helper.from_array(torch.stack(tensors).numpy(), name)
        return name

    def stacked_part(self, part: str, kind: str) -> str:
        """LinearParts.<kind> of every stacked block, computed outside the loop."""
        name = f"stack.{part}.{kind}"
        if not any(name in n.output for n in self.nodes):
            w = self.stack(part)
            if kind == "pos":
                self.nodes.append(helper.make_node("Relu", [w], [name]))
            elif kind == "neg":
                self.nodes.append(helper.make_node("Sub", [w, self.stacked_part(part, "pos")], [name]))
            else:
                self.nodes.append(helper.make_node("Abs", [w], [name]))
        return name

    def scanned(self, body_input: str) -> str:
        """The outer value a body input `w.<part>[.<kind>]` is sliced from."""
        part = body_input[2:]
        kind = part.rsplit(".", 1)[-1]
        if kind in PARTS:
            return self.stacked_part(part[: -len(kind) - 1], kind)
        return self.stack(part)

    def scan(self, body: Piece, states: List[Tuple[str, str, str, str]], scanned: Dict[str, str],
             outer: Dict[str, str], outputs: Dict[str, Tuple[str, int]], reverse: bool, name: str) -> None:
        """A Scan over the looped blocks (looped_blocks; `reverse`: from the last down) running `body`.
        states: (body input, body output, outer initial value, outer final value), the
        body's output being the next iteration's input; scanned: body input -> outer value
        sliced along its first axis (block b's slice); outer: body input -> the outer value
        it reads as it is; outputs: body output -> (outer value, axis the blocks are stacked
        along), in block order."""
        scope = self._scope(name)
        order_in = [s[0] for s in states] + [n for n in body.inputs if n in scanned]
        missing = [n for n in body.inputs if n not in order_in and n not in outer]
        if missing:
            raise ValueError(f"{name}: body inputs with no value: {missing}")
        renames = dict(outer)
        nodes, inits, infos = _renamed(body.model.graph, renames, scope)
        graph = onnx.GraphProto()
        graph.name = scope
        graph.initializer.extend(inits)
        graph.value_info.extend(infos)
        by_name = {v.name: v for v in body.model.graph.input}
        for n in order_in:
            graph.input.append(_renamed_info(f"{scope}/{n}", by_name[n]))
        body_outputs = {o.name: o for o in body.model.graph.output}
        results = [s[1] for s in states] + list(outputs)
        for n in results:
            if n in body.alias:  # the body hands a value on unchanged
                nodes.append(helper.make_node("Identity", [renames.get(body.alias[n], f"{scope}/{body.alias[n]}")],
                                              [f"{scope}/{n}"]))
                like = by_name.get(body.alias[n]) or body_outputs[body.alias[n]]
            else:
                like = body_outputs[n]
            graph.output.append(_typed(f"{scope}/{n}", like))
        graph.node.extend(nodes)
        stacked = {"scan_output_directions": [int(reverse)] * len(outputs),
                   "scan_output_axes": [outputs[n][1] for n in outputs]} if outputs else {}
        self.nodes.append(helper.make_node(
            "Scan", [s[2] for s in states] + [scanned[n] for n in order_in[len(states):]],
            [s[3] for s in states] + [outputs[n][0] for n in outputs], name=scope, body=graph,
            num_scan_inputs=len(order_in) - len(states),
            scan_input_directions=[int(reverse)] * (len(order_in) - len(states)), **stacked))

    def model(self, inputs: List[onnx.ValueInfoProto], outputs: List[onnx.ValueInfoProto]) -> onnx.ModelProto:
        graph = helper.make_graph(self.nodes, self.cfg.name, inputs, outputs, list(self.inits.values()))
        graph.value_info.extend(self.infos)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                                  producer_name="vit-relevance")
        drop_dead_nodes(model.graph)
        return with_shapes(model)


def with_shapes(model: onnx.ModelProto) -> onnx.ModelProto:
    """`model` with ONNX's shape inference written in, and each graph output of unknown
    shape given the inferred one: onnxruntime plans a session's memory from them."""
    inferred = onnx.shape_inference.infer_shapes(model)
    known = {v.name: v for v in inferred.graph.value_info}
    for out in inferred.graph.output:
        if not out.type.tensor_type.HasField("shape") and out.name in known:
            out.type.CopyFrom(known[out.name].type)
    return inferred


def _renamed_info(name: str, like: onnx.ValueInfoProto) -> onnx.ValueInfoProto:
    copy = onnx.ValueInfoProto()
    copy.CopyFrom(like)
    copy.name = name
    return copy


def _typed(name: str, like: onnx.ValueInfoProto) -> onnx.ValueInfoProto:
    """A value info of `like`'s element type and rank (its axes unnamed: a loop's outputs are
    checked by their type only)."""
    t = like.type.tensor_type
    return helper.make_tensor_value_info(name, t.elem_type, [None] * len(t.shape.dim))


def tensor_info(name: str, dims) -> onnx.ValueInfoProto:
    """A float32 value of these axes (None: of a shape left to inference)."""
    return helper.make_tensor_value_info(name, FLOAT, None if dims is None else list(dims))
