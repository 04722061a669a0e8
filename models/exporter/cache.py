"""Skip exports whose inputs did not change: a stamp file per model in the output folder.

The stamp records the exporter's source hash, the checkpoint's sha256 (with its size and
mtime, so an unchanged file is not re-hashed on every build), the labels' hash, the
settings and the files written. Any difference means export again.
"""
import hashlib
import json
import os
from pathlib import Path
from typing import Dict, Optional

from .checkpoints import sha256_file
from .errors import ExportUserError
from .user_files import read_json_object

EXPORTER_ROOT = Path(__file__).resolve().parent
EXPORT_CLI = EXPORTER_ROOT.parent / "export.py"


def exporter_version() -> str:
    """Hash of every exporter source file (the graph modules and the Node shape recorder
    included: they shape the output). Stable across checkouts: relative paths and contents only."""
    files = sorted(EXPORTER_ROOT.rglob("*.py")) + sorted(EXPORTER_ROOT.rglob("*.mjs")) + [EXPORT_CLI]
    digest = hashlib.sha256()
    for f in files:
        if "__pycache__" in f.parts or not f.is_file():
            continue
        digest.update(f.relative_to(EXPORTER_ROOT.parent).as_posix().encode() + b"\0")
        digest.update(f.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def stamp_path(out_dir: Path, name: str) -> Path:
    return out_dir / f"{name}.stamp.json"


def read_stamp(path: Path) -> Optional[dict]:
    """The stamp, or None when there is none or it is not one (a FIFO or folder of its
    name, a broken file: the export then runs and writes a good one)."""
    try:
        return read_json_object(path)
    except ExportUserError:
        return None


def checkpoint_sha256(path: Path, stamp: Optional[dict]) -> str:
    """The stamped hash if the file's size and mtime are unchanged, else hash it."""
    st = path.stat()
    old = (stamp or {}).get("checkpoint", {})
    if old.get("path") == str(path) and old.get("size") == st.st_size and old.get("mtime_ns") == st.st_mtime_ns:
        return old["sha256"]
    return sha256_file(path)


def checkpoint_record(path: Path, sha256: str) -> dict:
    st = path.stat()
    return {"path": str(path), "size": st.st_size, "mtime_ns": st.st_mtime_ns, "sha256": sha256}


def is_up_to_date(stamp: Optional[dict], out_dir: Path, expected: dict) -> bool:
    """EXPECTED holds the stamp's keys other than files/checkpoint.path/size/mtime."""
    if not stamp:
        return False
    for key, value in expected.items():
        if stamp.get(key) != value:
            return False
    files: Dict[str, int] = stamp.get("files", {})
    return bool(files) and all(_size(out_dir / f) == n for f, n in files.items())


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return -1


def write_stamp(path: Path, content: dict) -> None:
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(content, indent=1, sort_keys=True) + "\n")
    os.replace(tmp, path)
