"""Reading `torch.save` files without running their code.

A .pth (or pytorch_model.bin) is a zip holding `<archive>/data.pkl`, a pickle of the
state dict whose tensors point at storages `<archive>/data/<key>`. Unpickling runs a
program: a pickle can call any function it names (an object whose `__reduce__` returns
`os.system` runs a command). So before PyTorch sees the file, `check_pth` reads the
pickle with an unpickler of its own that knows only the tensor rebuilders, the storage
types and plain containers: anything else is refused, naming the global it asked for.
The same pass checks the sizes the pickle declares against the bytes the zip holds, so
that a small file cannot make PyTorch allocate gigabytes (a deflated storage, a storage
declared longer than its record). Only then `torch.load(weights_only=True)` reads it,
which refuses the same globals a second time.
"""
import io
import pickle
import zipfile
from collections import OrderedDict
from pathlib import Path
from typing import Dict

from ..errors import CheckpointUnreadable
from ..user_files import regular_size

# A state dict's pickle is a few hundred bytes per tensor; ViT-H's is about 60 KB.
MAX_PICKLE_BYTES = 32 << 20
# torch.save's storage types -> bytes per element
_STORAGES = {"DoubleStorage": 8, "FloatStorage": 4, "HalfStorage": 2, "BFloat16Storage": 2,
             "LongStorage": 8, "IntStorage": 4, "ShortStorage": 2, "CharStorage": 1,
             "ByteStorage": 1, "BoolStorage": 1, "UntypedStorage": 1}
_REBUILDERS = ("_rebuild_tensor_v2", "_rebuild_tensor", "_rebuild_parameter")


class Refused(Exception):
    """The pickle names a global that is not a tensor part: its code would run."""


class _Storage:
    __slots__ = ("numel",)

    def __init__(self, numel: int):
        self.numel = numel


class _Tensor:
    """A tensor the pickle declares: its storage and the extent it reads of it."""
    __slots__ = ()


def _rebuild_tensor(storage, offset, size, stride, *_rest):
    if not isinstance(storage, _Storage) or not isinstance(offset, int) or offset < 0 \
            or not isinstance(size, tuple) or not isinstance(stride, tuple) or len(size) != len(stride) \
            or not all(isinstance(n, int) and n >= 0 for n in size + stride):
        raise CheckpointUnreadable("a tensor with a malformed shape")
    if 0 not in size and offset + sum((n - 1) * s for n, s in zip(size, stride)) >= storage.numel:
        raise CheckpointUnreadable(f"a tensor of shape {list(size)} reaches past its storage")
    return _Tensor()


def _rebuild_parameter(data, *_rest):
    return data


class _ScanUnpickler(pickle.Unpickler):
    def __init__(self, data: bytes, records: Dict[str, int]):
        super().__init__(io.BytesIO(data))
        self.records = records  # storage key -> bytes in the zip

    def find_class(self, module, name):
        if (module, name) == ("collections", "OrderedDict"):
            return OrderedDict
        if module == "torch" and name in _STORAGES:
            return _STORAGES[name]  # the element size stands for the type
        if module == "torch._utils" and name in _REBUILDERS:
            return _rebuild_parameter if name == "_rebuild_parameter" else _rebuild_tensor
        raise Refused(f"{module}.{name}")

    def persistent_load(self, pid):
        if not (isinstance(pid, tuple) and len(pid) == 5 and pid[0] in ("storage", b"storage")):
            raise CheckpointUnreadable("a persistent object that is not a tensor storage")
        _, itemsize, key, _location, numel = pid
        if not isinstance(itemsize, int) or not isinstance(key, str) or not isinstance(numel, int) or numel < 0:
            raise CheckpointUnreadable("a malformed tensor storage")
        if key not in self.records:
            raise CheckpointUnreadable(f"storage {key} is declared but not stored")
        nbytes = numel * itemsize
        if nbytes != self.records[key]:
            raise CheckpointUnreadable(f"storage {key} is declared as {nbytes} bytes, the file holds "
                                       f"{self.records[key]}")
        return _Storage(numel)


def check_pth(path: Path, size: int) -> None:
    """Refuse, in one line naming PATH, a torch.save file whose pickle carries anything but
    tensors and containers, or whose declared sizes exceed what its SIZE bytes hold."""
    if not zipfile.is_zipfile(path):
        with open(path, "rb") as f:
            head = f.read(4)
        if head.startswith(b"PK"):
            raise CheckpointUnreadable(f"{path} is truncated or not a PyTorch checkpoint (a zip without its "
                                       "central directory)")
        if head.startswith(b"\x80"):  # a pickle: torch.save's format before PyTorch 1.6
            raise CheckpointUnreadable(f"{path} is in PyTorch's pre-1.6 format, which is not read: save it "
                                       "again with torch.save in PyTorch 1.6 or later")
        raise CheckpointUnreadable(f"{path} is not a PyTorch checkpoint (torch.save writes a zip)")
    try:
        with zipfile.ZipFile(path) as archive:
            members = archive.infolist()
            pickles = [m for m in members if m.filename.endswith("/data.pkl") and m.filename.count("/") == 1]
            if any(m.filename.endswith("/constants.pkl") for m in members):
                raise CheckpointUnreadable(f"{path} is a TorchScript archive: loading it would run its code; "
                                           "save the model's state_dict() instead")
            if len(pickles) != 1:
                raise CheckpointUnreadable(f"{path} is a zip but not a PyTorch checkpoint (no data.pkl)")
            prefix = pickles[0].filename[:-len("data.pkl")]
            for m in members:
                # torch.save stores its records uncompressed: the bytes read are the bytes on disk
                if m.compress_type != zipfile.ZIP_STORED or m.file_size > size:
                    raise CheckpointUnreadable(f"{path}: record {m.filename} is compressed "
                                               f"({m.file_size} bytes from {m.compress_size}); "
                                               "torch.save stores records uncompressed")
            if pickles[0].file_size > MAX_PICKLE_BYTES:
                raise CheckpointUnreadable(f"{path}: its pickle is {pickles[0].file_size} bytes, more than a "
                                           f"state dict's ({MAX_PICKLE_BYTES >> 20} MB at most)")
            records = {m.filename[len(prefix) + len("data/"):]: m.file_size for m in members
                       if m.filename.startswith(prefix + "data/")}
            data = archive.read(pickles[0])
    except (zipfile.BadZipFile, OSError, EOFError) as err:
        raise CheckpointUnreadable(f"{path} is truncated or not a PyTorch checkpoint ({err})") from None
    try:
        _ScanUnpickler(data, records).load()
    except Refused as err:
        raise CheckpointUnreadable(f"{path} carries {err}, which loading it would call: refused (a "
                                   "checkpoint holds only tensors and containers; no code of a file runs)") from None
    except CheckpointUnreadable as err:
        raise CheckpointUnreadable(f"{path}: {err}") from None
    except Exception as err:  # noqa: BLE001  (any malformed pickle: the file is broken)
        raise CheckpointUnreadable(f"{path} is truncated or not a PyTorch checkpoint "
                                   f"(its pickle: {type(err).__name__}: {err})") from None


def read_pth(path: Path):
    """The object torch.save wrote to PATH, once check_pth passed: tensors and containers."""
    import torch

    check_pth(path, regular_size(path))
    try:
        # weights_only: PyTorch's own allow-list of tensor globals, a second guard
        return torch.load(str(path), map_location="cpu", weights_only=True)
    except (RuntimeError, OSError, EOFError, pickle.UnpicklingError, zipfile.BadZipFile, ValueError) as err:
        reason = str(err).splitlines()[0] if str(err) else type(err).__name__
        raise CheckpointUnreadable(f"{path} is truncated or not a PyTorch checkpoint ({reason})") from None
