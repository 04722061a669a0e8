"""build/models/index.json: the graphs the build produced (docs/architecture.md)."""
import fcntl
import json
import os
from pathlib import Path
from typing import Optional

from .checkpoints import sha256_file


def update_index(out_dir: Path, name: str, onnx_file: str, metadata_file: str,
                 forward_file: Optional[str] = None, split: Optional[dict] = None,
                 attribution: Optional[dict] = None, vocab: Optional[str] = None) -> dict:
    """Insert or replace NAME's entry. Locked and written atomically: several exports may
    share one output folder. A text model (vocab: its vocabulary file) has kind "text"."""
    index_path = out_dir / "index.json"
    with open(out_dir / ".index.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            models = json.loads(index_path.read_text()).get("models", [])
        except (OSError, ValueError):
            models = []
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
            entry["attribution"] = {**attribution, "bytes": sum((out_dir / f).stat().st_size for f in files)}
        # Every file the entry names, by content: the page keeps files in Cache Storage
        # under these hashes, so a re-export is never read from an old visit's copy.
        named = [onnx_file, metadata_file, vocab, forward_file, *split_files]
        if attribution:
            named += files
        entry["sha256"] = {f: sha256_file(out_dir / f) for f in dict.fromkeys(f for f in named if f)}
        # by name, image models first: readers that take a folder's first model get an image one
        models = sorted([m for m in models if m.get("name") != name] + [entry],
                        key=lambda m: (m.get("kind") == "text", m["name"]))
        tmp = index_path.with_name(f"index.json.{os.getpid()}.tmp")
        tmp.write_text(json.dumps({"models": models}, indent=2) + "\n")
        os.replace(tmp, index_path)
    return entry
