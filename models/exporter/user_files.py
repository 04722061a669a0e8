"""Opening the files a user hands the exporter (checkpoints, configs, class names, an
existing index.json): regular files only, sizes bounded before anything is read whole,
JSON as the standard defines it (no NaN or Infinity), each refusal one line naming the file."""
import json
import stat
from pathlib import Path

from .errors import CheckpointUnreadable

# configs, class-name lists and index files: a 21k-class id2label is about 1 MB
MAX_TEXT_BYTES = 64 << 20


def regular_size(path: Path) -> int:
    """The size of PATH, a regular file: devices, FIFOs and folders are refused before
    anything opens them (reading /dev/zero or a FIFO never ends)."""
    try:
        st = Path(path).stat()
    except OSError as err:
        raise CheckpointUnreadable(f"{path} cannot be read ({err.strerror})") from None
    if not stat.S_ISREG(st.st_mode):
        kind = ("a folder" if stat.S_ISDIR(st.st_mode) else "a FIFO" if stat.S_ISFIFO(st.st_mode)
                else "a device" if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode) else "a special file")
        raise CheckpointUnreadable(f"{path} is {kind}, not a file")
    return st.st_size


def read_text(path: Path, limit: int = MAX_TEXT_BYTES) -> str:
    """A UTF-8 text file of at most LIMIT bytes."""
    size = regular_size(path)
    if size > limit:
        raise CheckpointUnreadable(f"{path} is {size} bytes, more than such a file holds ({limit >> 20} MB at most)")
    try:
        return Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        raise CheckpointUnreadable(f"{path} is not UTF-8 text (byte {err.start})") from None
    except OSError as err:
        raise CheckpointUnreadable(f"{path} cannot be read ({err.strerror})") from None


def _no_constant(name: str):
    raise ValueError(f"{name} is not a JSON value")


def strict_json(text):
    """json.loads of standard JSON: Python's NaN, Infinity and -Infinity refused."""
    return json.loads(text, parse_constant=_no_constant)


def read_json_object(path: Path) -> dict:
    """The JSON object in PATH (standard JSON: NaN and Infinity refused)."""
    try:
        value = strict_json(read_text(path))
    except ValueError as err:
        raise CheckpointUnreadable(f"{path} is not valid JSON ({err})") from None
    except RecursionError:
        raise CheckpointUnreadable(f"{path} is not valid JSON (nested too deep)") from None
    if not isinstance(value, dict):
        raise CheckpointUnreadable(f"{path} holds a JSON {type(value).__name__}, not an object")
    return value
