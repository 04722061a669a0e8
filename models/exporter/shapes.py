"""Writes the shape of every intermediate value into exported graphs (ONNX value_info),
measured by running each graph with onnxruntime-node under onnxruntime's profiler, which
names every node's output shapes (record_shapes.mjs). The shapes are the graph's, not the
engine's: onnxruntime-web planned the same ones, and a graph annotated either way is the
same file (DeiT-tiny's, compared). Graphs with the same nodes are recorded once. The graphs
traced whole need it (an image model's attribution graphs, every graph of a text model): the
graphs built block by block get their shapes from ONNX shape inference on each small piece
(scan_graph.py).

Why: torch.onnx writes no value_info, and ONNX shape inference loses the shapes behind the
dynamic K axis and the pixel_relevance switch's Slice, so onnxruntime's memory planner
meets thousands of values of unknown shape when it creates an ONNX session: the class graph took
3.3 s to open in Node on one thread, 0.9 s with every shape written (docs/architecture.md).

The graph runs once per setting: every named input axis at 1, then each at 2 alone, every
0-d input (a run-time switch) at 1, then each at 0 alone. An axis equal in every run is
written as its number; one that follows a product of settings or switched-off switches is
named by it ("K", "K*pixel_relevance", "1-pixel_relevance"); anything else is left unnamed."""
import hashlib
import itertools
import json
import math
import re
import subprocess
import tempfile
from pathlib import Path
from typing import Dict, List, Sequence

import onnx
from onnx import helper

from .errors import ExportCheckFailed

RECORDER = Path(__file__).with_name("record_shapes.mjs")
REPO = Path(__file__).resolve().parents[2]
ELEMENT_TYPES = {"float32": onnx.TensorProto.FLOAT, "int64": onnx.TensorProto.INT64,
                 "int32": onnx.TensorProto.INT32, "bool": onnx.TensorProto.BOOL}


def settings_for(graph: onnx.GraphProto) -> List[Dict[str, int]]:
    initializers = {i.name for i in graph.initializer}
    inputs = [i for i in graph.input if i.name not in initializers]
    axes = sorted({d.dim_param for i in inputs for d in i.type.tensor_type.shape.dim if d.dim_param})
    switches = [i.name for i in inputs if not i.type.tensor_type.shape.dim]
    base = {**{a: 1 for a in axes}, **{s: 1 for s in switches}}
    return [base] + [{**base, a: 2} for a in axes] + [{**base, s: 0} for s in switches]


def axis(values: Sequence[int], settings: List[Dict[str, int]]):
    """The number, the name of the product of settings the sizes follow, or None."""
    if len(set(values)) == 1:
        return values[0]
    # factors: each setting, and 1 - s for a switch s (the size of what runs when it is off)
    factors = {n: (lambda run, n=n: run[n]) for n in settings[0]}
    factors.update({f"1-{n}": (lambda run, n=n: 1 - run[n])
                    for n in settings[0] if min(run[n] for run in settings) == 0})
    for r in range(1, len(factors) + 1):
        for combo in itertools.combinations(factors, r):
            if all(v == math.prod(factors[f](run) for f in combo) for v, run in zip(values, settings)):
                return "*".join(combo)
    return None


# The profile's element type names (onnxruntime's C++ type names) → ours.
PROFILE_TYPES = {"float": "float32", "int64": "int64", "int32": "int32", "bool": "bool"}
NODE_EVENT = re.compile(r"n(\d+)_kernel_time")


def record(path: Path, graph_model: onnx.ModelProto, settings: List[Dict[str, int]]) -> List[Dict[str, dict]]:
    """Per setting, {value name: {"dims", "type"}} of every non-constant node output of the
    graph at `path` (loaded as `graph_model`, which stays unchanged), read from onnxruntime's
    profile of one run per setting. A copy of the graph names its nodes by their index, so
    that each profile event names its node."""
    model = onnx.ModelProto()
    model.CopyFrom(graph_model)
    for i, node in enumerate(model.graph.node):
        node.name = f"n{i}"
    probe = path.with_name(path.name + ".shapes.onnx")  # beside it: its external data is found
    with tempfile.TemporaryDirectory() as tmp:
        try:
            onnx.save(model, str(probe))
            done = subprocess.run(["node", str(RECORDER), str(probe), json.dumps(settings), f"{tmp}/profile"],
                                  capture_output=True, text=True, cwd=REPO, timeout=1800)
        finally:
            probe.unlink(missing_ok=True)
        if done.returncode != 0:
            raise ExportCheckFailed(f"recording the shapes of {path.name} failed: {done.stderr.strip()[-2000:]}")
        events = json.loads(next(Path(tmp).glob("profile*.json")).read_text())
    runs_at = sorted((e["ts"], e["ts"] + e["dur"]) for e in events if e.get("name") == "model_run")
    runs: List[Dict[str, dict]] = [{} for _ in settings]
    for event in events:
        match = NODE_EVENT.fullmatch(event.get("name", "")) if event.get("cat") == "Node" else None
        if not match:
            continue  # other events, and the nodes of subgraphs (If branches), which keep their names
        node = graph_model.graph.node[int(match.group(1))]
        run = next(r for r, (start, end) in enumerate(runs_at) if start <= event["ts"] <= end)
        for name, measured in zip(node.output, event["args"]["output_type_shape"]):
            ((element, dims),) = measured.items()
            if name and node.op_type != "Constant":
                runs[run][name] = {"dims": dims, "type": PROFILE_TYPES[element]}
    values = [name for node in graph_model.graph.node if node.op_type != "Constant" for name in node.output if name]
    if len(runs_at) != len(settings) or any(set(run) != set(values) for run in runs):
        raise ExportCheckFailed(f"recording the shapes of {path.name}: onnxruntime's profile does not name "
                                f"every value in each of the {len(settings)} runs")
    return [{name: run[name] for name in values} for run in runs]  # in the graph's order


def _nodes_digest(graph: onnx.GraphProto) -> str:
    """Equal for graphs whose nodes, inputs and outputs are the same, wherever their weights are."""
    digest = hashlib.sha256()
    for part in (*graph.node, *graph.input, *graph.output):
        digest.update(part.SerializeToString(deterministic=True))
    return digest.hexdigest()


def annotate_all(paths: Sequence[Path]) -> None:
    """annotate() each graph, recording each distinct one once."""
    done: Dict[str, List[onnx.ValueInfoProto]] = {}
    for path in paths:
        model = onnx.load(str(path), load_external_data=False)
        key = _nodes_digest(model.graph)
        if key in done:
            del model.graph.value_info[:]
            model.graph.value_info.extend(done[key])
            onnx.save(model, str(path))
        else:
            annotate(path)
            done[key] = list(onnx.load(str(path), load_external_data=False).graph.value_info)


def annotate(path: Path) -> int:
    """Writes value_info for every intermediate value of the graph at `path` (in place).
    Returns how many axes were left unnamed."""
    model = onnx.load(str(path), load_external_data=False)
    graph = model.graph
    settings = settings_for(graph)
    runs = record(path, model, settings)
    ends = {i.name for i in graph.input} | {o.name for o in graph.output}
    del graph.value_info[:]
    unnamed = 0
    for name, first in runs[0].items():
        if name in ends:
            continue
        shapes = [run[name]["dims"] for run in runs]
        if len({len(s) for s in shapes}) != 1:
            continue  # the rank itself varies: nothing to write
        dims = [axis(sizes, settings) for sizes in zip(*shapes)]
        unnamed += dims.count(None)
        graph.value_info.append(helper.make_tensor_value_info(name, ELEMENT_TYPES[first["type"]], dims))
    onnx.save(model, str(path))
    return unnamed
