"""Reading a checkpoint's files: a weights file of any of the libraries' formats, a JSON
config, and which weights file a folder holds. No file's code runs (layouts/pth.py) and
every size is checked before the file is read whole (`check_weights`, cheap: the export
calls it before hashing the file)."""
from pathlib import Path
from typing import Dict, Optional

from ..errors import CheckpointUnreadable
from ..user_files import read_json_object, regular_size
from .pth import check_pth, read_pth
from .safetensors import check_safetensors, read_safetensors

# the libraries' own file names, preferred in this order
WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin", "open_clip_pytorch_model.bin")
# wrappers training scripts put around the state dict (DeiT ships {"model": ...})
WRAPPERS = ("model", "state_dict", "model_ema", "module")


def check_weights(path: Path) -> None:
    """Refuse a weights file that is not a regular file, carries code, or declares more
    bytes than it holds; reads its header or pickle only."""
    if path.suffix == ".safetensors":
        check_safetensors(path)
    else:
        check_pth(path, regular_size(path))


def read_weights(path: Path) -> Dict:
    """name -> tensor from a .safetensors file or a torch.save'd state dict (unwrapped,
    DataParallel's "module." prefixes dropped)."""
    import torch

    obj = read_safetensors(path) if path.suffix == ".safetensors" else read_pth(path)
    for wrapper in WRAPPERS:
        if isinstance(obj, dict) and isinstance(obj.get(wrapper), dict):
            obj = obj[wrapper]
            break
    if not isinstance(obj, dict) or not obj:
        raise CheckpointUnreadable(f"{path} holds a {type(obj).__name__}, not a state dict")
    tensors = {k: v for k, v in obj.items() if isinstance(k, str) and torch.is_tensor(v)}
    if not tensors:
        raise CheckpointUnreadable(f"{path} holds no tensors")
    return {k[len("module."):] if k.startswith("module.") else k: v for k, v in tensors.items()}


def read_json(path: Path) -> Optional[dict]:
    """The JSON object in PATH, None when there is no such file (anything else there, a
    folder or a FIFO, is refused)."""
    if not path.exists() and not path.is_symlink():
        return None
    return read_json_object(path)


def folder_weights(folder: Path) -> Path:
    for name in WEIGHT_FILES:
        if (folder / name).exists():
            regular_size(folder / name)
            return folder / name
    raise CheckpointUnreadable(f"{folder} has no weights file ({' or '.join(WEIGHT_FILES[:2])})")
