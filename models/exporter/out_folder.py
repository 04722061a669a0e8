"""The output folder, checked before the export's work: one that cannot be written, or
whose disk cannot hold the files, is one line naming it, not an error minutes later."""
import os
import shutil
from pathlib import Path

from .errors import ExportUserError

# Besides the weights' copies (explainer, plain forward, the page's weights, the
# attribution weights: four float32 copies, a fifth for margin), the graphs and metadata.
WEIGHT_COPIES = 5
SLACK_BYTES = 16 << 20


def _existing(out: Path) -> Path:
    """OUT, or its nearest existing parent (where it would be created)."""
    while not out.exists() and out != out.parent:
        out = out.parent
    return out


def check_writable(out: Path) -> None:
    if out.exists() and not out.is_dir():
        raise ExportUserError(f"--out {out} is a file, not a folder")
    where = _existing(out)
    if not where.is_dir():
        raise ExportUserError(f"--out {out} cannot be created: {where} is a file, not a folder")
    if not os.access(where, os.W_OK | os.X_OK):
        reason = "a read-only file system" if _read_only(where) else "permission denied"
        raise ExportUserError(f"--out {out} cannot be written ({where}: {reason})")


def _read_only(path: Path) -> bool:
    return bool(os.statvfs(path).f_flag & os.ST_RDONLY)


def check_room(out: Path, state_dict) -> None:
    """The disk under OUT holds the export: WEIGHT_COPIES float32 copies of the weights."""
    need = WEIGHT_COPIES * 4 * sum(t.numel() for t in state_dict.values()) + SLACK_BYTES
    free = shutil.disk_usage(_existing(out)).free
    if free < need:
        raise ExportUserError(f"--out {out}: {free / 1e6:.1f} MB free on its disk, the export writes about "
                              f"{need / 1e6:.0f} MB")
