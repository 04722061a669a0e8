"""Writes the shape of every intermediate value into exported graphs (ONNX value_info),
measured by running each graph with onnxruntime-web in Node (record_shapes.mjs).

Why: torch.onnx writes no value_info, and ONNX shape inference loses the shapes behind the
dynamic K axis and the pixel_relevance switch's Slice, so onnxruntime's memory planner
meets thousands of values of unknown shape when it creates an ONNX session: the class graph took
3.3 s to open in Node on one thread, 0.9 s with every shape written (docs/architecture.md).

The graph runs once per setting: every named input axis at 1, then each at 2 alone, every
0-d input (a run-time switch) at 1, then each at 0 alone. An axis equal in every run is
written as its number; one that follows a product of settings or switched-off switches is
named by it ("K", "K*pixel_relevance", "1-pixel_relevance"); anything else is left unnamed."""
import itertools
import json
import math
import re
import subprocess
from pathlib import Path
from typing import Dict, List, Optional, Sequence

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


def _external_files(model: onnx.ModelProto, folder: Path) -> List[str]:
    locations = {e.value for i in model.graph.initializer for e in i.external_data if e.key == "location"}
    return [f"{loc}={folder / loc}" for loc in sorted(locations)]


# What onnxruntime-web says when a run's values do not fit its WebAssembly memory (4 GB).
OUT_OF_MEMORY = re.compile(r"memory|alloc|abort", re.IGNORECASE)


def _record_outputs(path: Path, graph_model: onnx.ModelProto, names: List[str],
                    settings: List[Dict[str, int]]) -> subprocess.CompletedProcess:
    """One recorder run of the graph with `names` made outputs beside its own."""
    model = onnx.ModelProto()
    model.CopyFrom(graph_model)
    model.graph.output.extend(onnx.ValueInfoProto(name=name) for name in names)
    probe = path.with_name(path.name + ".shapes.onnx")
    try:
        onnx.save(model, str(probe))
        return subprocess.run(["node", str(RECORDER), str(probe), json.dumps(settings),
                               *_external_files(model, path.parent)],
                              capture_output=True, text=True, cwd=REPO, timeout=1800)
    finally:
        probe.unlink(missing_ok=True)


def record(path: Path, graph_model: onnx.ModelProto, settings: List[Dict[str, int]],
           chunk: Optional[int] = None) -> List[Dict[str, dict]]:
    """Per setting, {value name: {"dims", "type"}} of every non-constant node output of the
    graph at `path` (loaded as `graph_model`, which stays unchanged). Every value made an
    output is kept until the run ends: a ViT-S/16's explainer graph holds more than the 4 GB
    of onnxruntime-web's memory that way, so a part that does not fit is recorded again in
    two halves. `chunk`: at most this many values per run from the start."""
    declared = {o.name for o in graph_model.graph.output}
    names = list(dict.fromkeys(name for node in graph_model.graph.node if node.op_type != "Constant"
                               for name in node.output if name and name not in declared))
    size = chunk or max(len(names), 1)
    pending = [names[i:i + size] for i in range(0, len(names), size)] or [[]]
    runs: List[Dict[str, dict]] = [{} for _ in settings]
    while pending:
        part = pending.pop(0)
        done = _record_outputs(path, graph_model, part, settings)
        if done.returncode != 0 and len(part) > 1 and OUT_OF_MEMORY.search(done.stderr):
            pending[:0] = [part[:len(part) // 2], part[len(part) // 2:]]
            continue
        if done.returncode != 0:
            raise ExportCheckFailed(f"recording the shapes of {path.name} failed: {done.stderr.strip()[-2000:]}")
        for run, measured in zip(runs, json.loads(done.stdout.strip().splitlines()[-1])):
            run.update(measured)
    return runs


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
