"""Reading a checkpoint's files: a weights file of any of the libraries' formats, a JSON
config, and which weights file a folder holds."""
import json
import pickle
import zipfile
from pathlib import Path
from typing import Dict, Optional

from ..errors import CheckpointUnreadable
from .safetensors import read_safetensors

# the libraries' own file names, preferred in this order
WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin", "open_clip_pytorch_model.bin")
# wrappers training scripts put around the state dict (DeiT ships {"model": ...})
WRAPPERS = ("model", "state_dict", "model_ema", "module")


def read_weights(path: Path) -> Dict:
    """name -> tensor from a .safetensors file or a torch.save'd state dict (unwrapped,
    DataParallel's "module." prefixes dropped)."""
    import torch

    if path.suffix == ".safetensors":
        obj = read_safetensors(path)
    else:
        try:
            obj = torch.load(str(path), map_location="cpu")
        except (RuntimeError, OSError, EOFError, pickle.UnpicklingError, zipfile.BadZipFile, ValueError) as err:
            reason = str(err).splitlines()[0] if str(err) else type(err).__name__
            raise CheckpointUnreadable(f"{path} is truncated or not a PyTorch checkpoint ({reason})") from None
    for wrapper in WRAPPERS:
        if isinstance(obj, dict) and isinstance(obj.get(wrapper), dict):
            obj = obj[wrapper]
            break
    if not isinstance(obj, dict) or not obj:
        raise CheckpointUnreadable(f"{path} holds a {type(obj).__name__}, not a state dict")
    tensors = {k: v for k, v in obj.items() if torch.is_tensor(v)}
    if not tensors:
        raise CheckpointUnreadable(f"{path} holds no tensors")
    return {k[len("module."):] if k.startswith("module.") else k: v for k, v in tensors.items()}


def read_json(path: Path) -> Optional[dict]:
    """The JSON object in PATH, None when there is no such file."""
    if not path.is_file():
        return None
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as err:
        raise CheckpointUnreadable(f"{path} is not valid JSON ({err})") from None
    if not isinstance(value, dict):
        raise CheckpointUnreadable(f"{path} holds a JSON {type(value).__name__}, not an object")
    return value


def folder_weights(folder: Path) -> Path:
    for name in WEIGHT_FILES:
        if (folder / name).is_file():
            return folder / name
    raise CheckpointUnreadable(f"{folder} has no weights file ({' or '.join(WEIGHT_FILES[:2])})")
