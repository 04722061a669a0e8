"""A reader of `.safetensors` files: an 8-byte little-endian header length, a JSON header
{name: {dtype, shape, data_offsets: [begin, end]}} and the raw little-endian buffers.

Written here rather than imported because the `safetensors` package is not in Debian 12
and the exporter takes no packages beyond the system's (models/README.md); the format is
this simple on purpose. Everything the header says is checked against the file's size
before the buffers are read: `check_safetensors` reads the header alone.
"""
import struct
from pathlib import Path
from typing import Dict, Tuple

import numpy as np

from ..errors import CheckpointUnreadable
from ..user_files import regular_size, strict_json

_DTYPES = {"F64": "<f8", "F32": "<f4", "F16": "<f2", "BF16": "<u2", "I64": "<i8", "I32": "<i4",
           "I16": "<i2", "I8": "i1", "U8": "u1", "BOOL": "?"}
# A header is a few hundred bytes per tensor; anything near this is not a safetensors file.
_MAX_HEADER = 100 << 20
# At most this many axes: no ViT tensor has more than four.
_MAX_AXES = 8


def _entry(path: Path, name: str, info, buffer_bytes: int) -> Tuple[str, list, int, int]:
    """(dtype, shape, begin, end) of one tensor of the header, each field checked."""
    where = f"{path}: tensor {name!r}"
    if not isinstance(info, dict):
        raise CheckpointUnreadable(f"{where} is a JSON {type(info).__name__}, not an object")
    dtype = info.get("dtype")
    if dtype not in _DTYPES:
        raise CheckpointUnreadable(f"{where} has unsupported dtype {dtype!r} ({', '.join(_DTYPES)})")
    shape, offsets = info.get("shape"), info.get("data_offsets")
    if not isinstance(shape, list) or len(shape) > _MAX_AXES \
            or not all(type(n) is int and 0 <= n <= buffer_bytes for n in shape):
        raise CheckpointUnreadable(f"{where}: shape {shape!r} is not a list of at most {_MAX_AXES} "
                                   f"non-negative integers")
    if not isinstance(offsets, list) or len(offsets) != 2 or not all(type(n) is int for n in offsets):
        raise CheckpointUnreadable(f"{where}: data_offsets {offsets!r} is not [begin, end] in integers")
    begin, end = offsets
    if not 0 <= begin <= end <= buffer_bytes:
        raise CheckpointUnreadable(f"{path} is truncated or corrupt: tensor {name!r} "
                                   f"needs bytes {begin}..{end} of {buffer_bytes}")
    count = 1
    for n in shape:  # Python's integers: no overflow; each factor is at most the buffer's size
        count *= n
    if count * np.dtype(_DTYPES[dtype]).itemsize != end - begin:
        raise CheckpointUnreadable(f"{where}: shape {shape} of {dtype} needs "
                                   f"{count * np.dtype(_DTYPES[dtype]).itemsize} bytes, data_offsets give "
                                   f"{end - begin}")
    return dtype, shape, begin, end


def check_safetensors(path: Path) -> Tuple[dict, int]:
    """(the checked header without __metadata__, its length): read before the buffers."""
    size = regular_size(path)
    with open(path, "rb") as f:
        head = f.read(8)
        if len(head) < 8:
            raise CheckpointUnreadable(f"{path} is not a safetensors file: {size} bytes")
        (length,) = struct.unpack("<Q", head)
        if length > min(_MAX_HEADER, size - 8):
            raise CheckpointUnreadable(f"{path} is truncated or not a safetensors file "
                                       f"(header of {length} bytes in a {size}-byte file)")
        text = f.read(length)
    try:
        header = strict_json(text)
    except (ValueError, RecursionError) as err:
        raise CheckpointUnreadable(f"{path}: unreadable safetensors header ({err})") from None
    if not isinstance(header, dict):
        raise CheckpointUnreadable(f"{path}: the safetensors header is a JSON {type(header).__name__}, "
                                   "not an object")
    buffer_bytes = size - 8 - length
    spans = []
    entries = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        entries[name] = _entry(path, name, info, buffer_bytes)
        spans.append((entries[name][2], entries[name][3], name))
    spans.sort()
    for (_, end, first), (begin, _, second) in zip(spans, spans[1:]):
        if begin < end:
            raise CheckpointUnreadable(f"{path} is corrupt: tensors {first!r} and {second!r} share bytes "
                                       f"{begin}..{end}")
    return entries, length


def read_safetensors(path: Path) -> Dict:
    """name -> torch tensor (float tensors as stored; bfloat16 widened to float32)."""
    import torch

    entries, length = check_safetensors(path)
    with open(path, "rb") as f:
        f.seek(8 + length)
        buffer = memoryview(f.read())
    tensors = {}
    for name, (dtype, shape, begin, end) in entries.items():
        array = np.frombuffer(buffer[begin:end], dtype=_DTYPES[dtype]).reshape(shape)
        if dtype == "BF16":  # numpy has no bfloat16: its bits are a float32's top half
            array = (array.astype(np.uint32) << 16).view(np.float32)
        tensors[name] = torch.from_numpy(array.copy())
    return tensors
