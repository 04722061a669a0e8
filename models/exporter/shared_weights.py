"""Graphs pointed at the byte ranges of a weights file already written, in place of their
own: the attribution graphs of an image model read the split graphs' <name>.weights.bin,
which the page has downloaded before the Attribution panel opens, instead of a second file
of the same tensors (<name>.attribution.bin, 22.9 MB for DeiT-tiny).

A block's weight in the attribution graphs is one tensor; in the split graphs the middle
blocks' are stacked ([B-2, ...], scan_graph.py), so each block's bytes are a contiguous
slice of the stack: a tensor is found as a whole stored tensor or as one first-axis slice
of one, by its bytes."""
import hashlib
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

import onnx


def _location(t: onnx.TensorProto) -> Tuple[str, int, int]:
    d = {e.key: e.value for e in t.external_data}
    return d["location"], int(d.get("offset", 0)), int(d["length"])


def _external(graph: onnx.GraphProto) -> List[onnx.TensorProto]:
    return [t for t in graph.initializer if t.data_location == onnx.TensorProto.EXTERNAL]


def byte_ranges(weights: bytes, graphs: Sequence[onnx.GraphProto]) -> Dict[str, Tuple[int, int]]:
    """{sha256 of bytes: (offset, length)} of every tensor `graphs` store in `weights`, and
    of each first-axis slice of each."""
    ranges: Dict[str, Tuple[int, int]] = {}
    seen = set()  # the graphs share most tensors: each is hashed once
    for graph in graphs:
        for t in _external(graph):
            _, offset, length = _location(t)
            if (offset, length) in seen:
                continue
            seen.add((offset, length))
            parts = t.dims[0] if len(t.dims) >= 2 and t.dims[0] > 1 and length % t.dims[0] == 0 else 1
            step = length // parts
            spans = [(offset, length)] + ([(offset + i * step, step) for i in range(parts)] if parts > 1 else [])
            for start, size in spans:
                ranges.setdefault(hashlib.sha256(weights[start:start + size]).digest().hex(), (start, size))
    return ranges


def point_at(paths: Sequence[Path], own: Path, weights: Path, sharing: Sequence[Path]) -> bool:
    """Points every external tensor of the graphs at `paths` (stored in `own`) at the range
    of `weights` holding the same bytes, as the graphs at `sharing` store them there; writes
    the graphs only when every tensor is found. Returns whether they now read `weights`."""
    blob, theirs = weights.read_bytes(), own.read_bytes()
    ranges = byte_ranges(blob, [onnx.load(str(p), load_external_data=False).graph for p in sharing])
    models = {p: onnx.load(str(p), load_external_data=False) for p in paths}
    moves = []
    for model in models.values():
        for t in _external(model.graph):
            _, offset, length = _location(t)
            found = ranges.get(hashlib.sha256(theirs[offset:offset + length]).digest().hex())
            if found is None:
                return False
            moves.append((t, found))
    for t, (offset, length) in moves:
        del t.external_data[:]
        for k, v in (("location", weights.name), ("offset", str(offset)), ("length", str(length))):
            entry = t.external_data.add()
            entry.key, entry.value = k, v
    for path, model in models.items():
        onnx.save(model, str(path))
        onnx.checker.check_model(str(path))
    return True
