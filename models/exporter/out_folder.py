"""The output folder, checked before the export's work: one that cannot be written, or
whose disk cannot hold the files, is one line naming it, not an error minutes later."""
import shutil
import tempfile
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


def prepare_out(out: Path) -> bool:
    """Make OUT (True when this made it) and prove it takes a file, before the work."""
    if out.exists() and not out.is_dir():
        raise ExportUserError(f"--out {out} is a file, not a folder")
    created = not out.exists()
    try:
        out.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=out):
            pass
    except OSError as err:
        remove_if_made(out, created)
        raise ExportUserError(f"--out {out} cannot be written ({err.strerror or err})") from None
    return created


def remove_if_made(out: Path, created: bool) -> None:
    """A refused or stopped export leaves no folder it made behind."""
    if created and out.is_dir() and not any(out.iterdir()):
        out.rmdir()


def check_room(out: Path, state_dict) -> None:
    """The disk under OUT holds the export: WEIGHT_COPIES float32 copies of the weights."""
    need = WEIGHT_COPIES * 4 * sum(t.numel() for t in state_dict.values()) + SLACK_BYTES
    free = shutil.disk_usage(_existing(out)).free
    if free < need:
        raise ExportUserError(f"--out {out}: {free / 1e6:.1f} MB free on its disk, the export writes about "
                              f"{need / 1e6:.0f} MB")
