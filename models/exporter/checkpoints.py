"""Finding, downloading, hashing and reading checkpoint files.

A checkpoint for model NAME is looked up in the checkpoint directory as NAME.pth or under
its official file name (e.g. deit_tiny_patch16_224-a1311bcf.pth). If neither is there it is
downloaded from the official address; machines without that network (CI, here) get a
message saying exactly which file to put where.
"""
import hashlib
import os
import shutil
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Dict, List, Optional

from .errors import CheckpointMissing

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_CHECKPOINT_DIR = REPO_ROOT / "models" / "checkpoints"
ENV_CHECKPOINT_DIR = "VITREL_CHECKPOINT_DIR"
# Short: an unreachable host must not stall the build for minutes.
DOWNLOAD_TIMEOUT_S = 15.0


def checkpoint_dir(cli_value: Optional[str] = None) -> Path:
    """--checkpoint-dir, else $VITREL_CHECKPOINT_DIR, else models/checkpoints."""
    value = cli_value or os.environ.get(ENV_CHECKPOINT_DIR)
    return Path(value).resolve() if value else DEFAULT_CHECKPOINT_DIR


def candidate_names(name: str, url: Optional[str]) -> List[str]:
    names = [f"{name}.pth"]
    if url:
        official = url.rsplit("/", 1)[-1]
        if official not in names:
            names.append(official)
    return names


def find_checkpoint(name: str, directory: Path, url: Optional[str]) -> Optional[Path]:
    for file_name in candidate_names(name, url):
        if (directory / file_name).is_file():
            return directory / file_name
    return None


def missing_message(name: str, directory: Path, url: Optional[str], reason: str = "") -> str:
    wanted = f"{name}.pth"
    msg = f"checkpoint for {name} not found: put {wanted} in {directory}"
    if url:
        msg += f" (download it from {url}"
        official = url.rsplit("/", 1)[-1]
        if official != wanted:
            msg += f"; the official name {official} is accepted too"
        msg += ")"
    msg += f". The directory is set by --checkpoint-dir or ${ENV_CHECKPOINT_DIR}."
    if reason:
        msg += f" Download failed: {reason}"
    return msg


def locate_or_download(name: str, directory: Path, url: Optional[str],
                       timeout: float = DOWNLOAD_TIMEOUT_S, allow_download: bool = True) -> Path:
    found = find_checkpoint(name, directory, url)
    if found:
        return found
    if not url or not allow_download:
        raise CheckpointMissing(missing_message(name, directory, url))
    dest = directory / f"{name}.pth"
    try:
        download(url, dest, timeout)
    except (OSError, urllib.error.URLError, ValueError) as err:
        raise CheckpointMissing(missing_message(name, directory, url, _describe(err))) from None
    return dest


def _describe(err: Exception) -> str:
    reason = getattr(err, "reason", None)
    return f"{type(err).__name__}: {reason or err}"


def download(url: str, dest: Path, timeout: float) -> None:
    """Download to DEST.part, check the hash prefix in the official name, then rename:
    an interrupted download never leaves a file that looks complete."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    part = dest.with_name(dest.name + ".part")
    print(f"downloading {url} -> {dest}", file=sys.stderr)
    digest = hashlib.sha256()
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response, open(part, "wb") as out:
            while True:
                chunk = response.read(1 << 20)
                if not chunk:
                    break
                digest.update(chunk)
                out.write(chunk)
    except BaseException:
        part.unlink(missing_ok=True)
        raise
    prefix = _hash_prefix(url)
    if prefix and not digest.hexdigest().startswith(prefix):
        part.unlink()
        raise ValueError(f"downloaded file's sha256 {digest.hexdigest()[:8]}… does not start with {prefix}")
    shutil.move(str(part), str(dest))


def _hash_prefix(url: str) -> Optional[str]:
    """torch.hub convention: name-<first 8+ hex digits of sha256>.pth."""
    stem = url.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    tail = stem.rsplit("-", 1)[-1]
    return tail if "-" in stem and len(tail) >= 8 and all(c in "0123456789abcdef" for c in tail) else None


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def load_state_dict(path: Path) -> Dict:
    """timm-key state dict from an official DeiT file ({"model": sd}), a plain timm state
    dict, or the common {"state_dict": sd} wrapper; "module." prefixes (DataParallel) dropped.
    Read as every checkpoint is: no code in the file runs (layouts/pth.py)."""
    from .layouts.files import read_weights  # late: the table and the up-to-date check must not need torch

    return read_weights(Path(path))
