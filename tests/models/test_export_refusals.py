"""models/export.py --source refusing what it must not export, before the export's work:
each one line on stderr, exit 2, no traceback, nothing written and nothing the user had
lost. The checkpoints and folders are made here, small."""
import os
import subprocess
from pathlib import Path

import pytest
import torch

from cli_runner import run_export
from layout_writers import random_checkpoint, torchvision_state_dict
from models.exporter.config import ViTConfig
from models.exporter.errors import ExportUserError
from models.exporter.metadata import check_name

CFG = ViTConfig(name="s", depth=1, heads=4, embed_dim=32, patch_size=8, image_size=(16, 16), num_classes=3)


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("ckpt") / "small.pth"
    torch.save(random_checkpoint(CFG), path)
    return path


def refusal(*args) -> str:
    done = run_export("--source", *args, timeout=300)
    assert done.returncode == 2, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert lines[0].startswith("export.py: error: ")
    return lines[0][len("export.py: error: "):]


def test_unsafe_names(checkpoint, tmp_path):
    for name in ["a/b", "/tmp/abs", ".hidden", "..", "-rf", "_x", "x" * 65, "sp ace", ""]:
        with pytest.raises(ExportUserError) as info:
            check_name(name, "--name")
        assert str(info.value) == (f"--name: {name!r} is not a model name (letters, digits, '-', '_' and '.', "
                                   "starting with a letter or digit, at most 64 characters)")
    for name in ["deit_tiny_patch16_224", "my-model.v2", "x" * 64]:
        assert check_name(name, "--name") == name
    out = tmp_path / "out"
    assert refusal(checkpoint, "--out", out, "--name", "../../x", "--heads", "4").startswith("--name: '../../x' is")
    assert sorted(os.listdir(tmp_path)) == []


def test_an_index_that_is_not_one_is_kept(checkpoint, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "index.json").write_text("my notes, not JSON")
    assert refusal(checkpoint, "--out", out, "--heads", "4") == (
        f"{out / 'index.json'} is not valid JSON (Expecting value: line 1 column 1 (char 0)): refusing to "
        "overwrite it; move it away or choose another --out")
    assert (out / "index.json").read_text() == "my notes, not JSON" and os.listdir(out) == ["index.json"]


def test_a_payload_never_runs(tmp_path):
    marker = tmp_path / "ran"

    class Payload:
        def __reduce__(self):
            return (os.system, (f"touch {marker}",))

    torch.save({**random_checkpoint(CFG), "x": Payload()}, tmp_path / "evil.pth")
    message = refusal(tmp_path / "evil.pth", "--out", tmp_path / "out", "--heads", "4")
    assert message.startswith(f"{tmp_path / 'evil.pth'} carries posix.system, which loading it would call")
    assert not marker.exists() and not (tmp_path / "out").exists()


def test_no_guessed_head_count(tmp_path):
    cfg = ViTConfig(name="h", depth=1, heads=4, embed_dim=128, patch_size=16, image_size=(32, 32), num_classes=3)
    torch.save(torchvision_state_dict(random_checkpoint(cfg)), tmp_path / "vit.pth")
    assert "pass --heads N (N divides the width 128)" in refusal(tmp_path / "vit.pth", "--out", tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_devices_and_fifos(tmp_path):
    assert refusal("/dev/zero", "--out", tmp_path / "out") == "/dev/zero is a device, not a file"
    os.mkfifo(tmp_path / "fifo.pth")
    assert refusal(tmp_path / "fifo.pth", "--out", tmp_path / "out") == f"{tmp_path / 'fifo.pth'} is a FIFO, not a file"


def _mount_tmpfs(where: Path, options: str):
    where.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(where)], capture_output=True)
    if done.returncode:
        pytest.skip(f"cannot mount a tmpfs here ({done.stderr.decode().strip()})")


def test_a_read_only_or_full_out(checkpoint, tmp_path):
    ro, full = tmp_path / "ro", tmp_path / "full"
    _mount_tmpfs(ro, "ro,size=1m")
    try:
        _mount_tmpfs(full, "size=1m")
        try:
            assert refusal(checkpoint, "--out", ro / "out", "--heads", "4") == \
                f"--out {ro / 'out'} cannot be written (Read-only file system)"
            message = refusal(checkpoint, "--out", full / "out", "--heads", "4")
            assert message.startswith(f"--out {full / 'out'}: 1.0 MB free on its disk, the export writes about ")
            assert os.listdir(full) == []
        finally:
            subprocess.run(["umount", str(full)])
    finally:
        subprocess.run(["umount", str(ro)])
