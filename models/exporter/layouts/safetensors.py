"""A reader of `.safetensors` files: an 8-byte little-endian header length, a JSON header
{name: {dtype, shape, data_offsets: [begin, end]}} and the raw little-endian buffers.

Written here rather than imported because the `safetensors` package is not in Debian 12
and the exporter takes no packages beyond the system's (models/README.md); the format is
this simple on purpose.
"""
import json
import struct
from pathlib import Path
from typing import Dict

import numpy as np

from ..errors import CheckpointUnreadable

_DTYPES = {"F64": "<f8", "F32": "<f4", "F16": "<f2", "BF16": "<u2", "I64": "<i8", "I32": "<i4",
           "I16": "<i2", "I8": "i1", "U8": "u1", "BOOL": "?"}
# A header is a few hundred bytes per tensor; anything near this is not a safetensors file.
_MAX_HEADER = 100 << 20


def read_safetensors(path: Path) -> Dict:
    """name -> torch tensor (float tensors as stored; bfloat16 widened to float32)."""
    import torch

    data = Path(path).read_bytes()
    if len(data) < 8:
        raise CheckpointUnreadable(f"{path} is not a safetensors file: {len(data)} bytes")
    (size,) = struct.unpack("<Q", data[:8])
    if size > min(_MAX_HEADER, len(data) - 8):
        raise CheckpointUnreadable(f"{path} is truncated or not a safetensors file "
                                   f"(header of {size} bytes in a {len(data)}-byte file)")
    try:
        header = json.loads(data[8:8 + size])
    except ValueError as err:
        raise CheckpointUnreadable(f"{path}: unreadable safetensors header ({err})") from None
    buffer = memoryview(data)[8 + size:]
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        dtype = _DTYPES.get(info.get("dtype"))
        if dtype is None:
            raise CheckpointUnreadable(f"{path}: tensor {name} has unsupported dtype {info.get('dtype')}")
        shape, (begin, end) = info["shape"], info["data_offsets"]
        count = int(np.prod(shape, dtype=np.int64))
        if end > len(buffer) or begin > end or end - begin != count * np.dtype(dtype).itemsize:
            raise CheckpointUnreadable(f"{path} is truncated or corrupt: tensor {name} "
                                       f"needs bytes {begin}..{end} of {len(buffer)}")
        array = np.frombuffer(buffer[begin:end], dtype=dtype).reshape(shape)
        if info["dtype"] == "BF16":  # numpy has no bfloat16: its bits are a float32's top half
            array = (array.astype(np.uint32) << 16).view(np.float32)
        tensors[name] = torch.from_numpy(array.copy())
    return tensors
