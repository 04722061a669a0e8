"""build/models/index.json: the graphs the build produced (docs/architecture.md)."""
import fcntl
import json
import os
from pathlib import Path
from typing import List, Optional

from .checkpoints import sha256_file
from .errors import ExportUserError
from .user_files import read_json_object


def read_models(out_dir: Path) -> List[dict]:
    """The models OUT_DIR/index.json lists ([] without one). An index.json that is not one
    is refused, not overwritten: it may be the user's (checked before the export's work)."""
    index_path = out_dir / "index.json"
    if not index_path.exists() and not index_path.is_symlink():
        return []
    try:
        models = read_json_object(index_path).get("models")
    except ExportUserError as err:
        raise ExportUserError(f"{err}: refusing to overwrite it; move it away or choose another --out") from None
    if not isinstance(models, list) or not all(isinstance(m, dict) and isinstance(m.get("name"), str) for m in models):
        raise ExportUserError(f"{index_path} is not a models index (no \"models\" list of named entries): "
                              "refusing to overwrite it; move it away or choose another --out")
    return models


def index_entry(out_dir: Path, name: str, onnx_file: str, metadata_file: str,
                forward_file: Optional[str] = None, split: Optional[dict] = None,
                attribution: Optional[dict] = None, vocab: Optional[str] = None) -> dict:
    """NAME's entry for the files in OUT_DIR: names, sizes and content hashes. A text model
    (vocab: its vocabulary file) has kind "text"."""
    entry = {"name": name, "onnx": onnx_file, "metadata": metadata_file,
             "bytes": (out_dir / onnx_file).stat().st_size}
    if vocab:
        entry.update({"kind": "text", "vocab": vocab})
    if forward_file:  # the plain forward graph, for benchmarks and size checks
        entry.update({"forward_onnx": forward_file, "forward_bytes": (out_dir / forward_file).stat().st_size})
    # the page's graphs: {graph, photo, target, forward, weights} file names, and
    # families: {family: file name} (models/exporter/families.py)
    families = (split or {}).get("families", {})
    split_files = [f for k, f in (split or {}).items() if k != "families"] + list(families.values())
    if split:
        entry["split"] = {**split, "bytes": sum((out_dir / f).stat().st_size for f in split_files)}
    if attribution:  # {states, blocks: [per block], masked, weights} file names
        files = [attribution["states"], attribution["masked"], attribution["weights"], *attribution["blocks"]]
        # the bytes more than the split's (a text model's attribution graphs read its weights file)
        entry["attribution"] = {**attribution, "bytes": sum((out_dir / f).stat().st_size for f in files
                                                            if f not in split_files)}
    # Every file the entry names, by content: the page keeps files in Cache Storage
    # under these hashes, so a re-export is never read from an old visit's copy.
    named = [onnx_file, metadata_file, vocab, forward_file, *split_files]
    if attribution:
        named += files
    entry["sha256"] = {f: sha256_file(out_dir / f) for f in dict.fromkeys(f for f in named if f)}
    return entry


def put_entry(out_dir: Path, entry: dict) -> None:
    """Insert or replace ENTRY's model in OUT_DIR/index.json. Locked (on the folder itself,
    so no lock file stays behind) and written atomically: several exports may share a folder."""
    index_path = out_dir / "index.json"
    folder = os.open(out_dir, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(folder, fcntl.LOCK_EX)
        models = [m for m in read_models(out_dir) if m.get("name") != entry["name"]]
        tmp = index_path.with_name(f".index.json.{os.getpid()}.tmp")
        # by name, image models first: readers that take a folder's first model get an image one
        ordered = sorted(models + [entry], key=lambda m: (m.get("kind") == "text", m["name"]))
        tmp.write_text(json.dumps({"models": ordered}, indent=2) + "\n")
        os.replace(tmp, index_path)
    finally:
        os.close(folder)
