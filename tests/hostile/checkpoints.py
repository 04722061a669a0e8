"""The export cases' checkpoints (./cases.js, surface export), written into DIR/export by
./fixtures.js: small, made on the spot, each hostile in one way. Needs PyTorch
(/usr/bin/python3 with python3-torch); without it the export cases are skipped.

  /usr/bin/python3 tests/hostile/checkpoints.py DIR
"""
import json
import os
import struct
import sys
import zipfile
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "models"))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from layout_writers import random_checkpoint, torchvision_state_dict, write_hf  # noqa: E402
from models.exporter.config import ViTConfig  # noqa: E402

SMALL = ViTConfig(name="s", depth=1, heads=4, embed_dim=32, patch_size=8, image_size=(16, 16), num_classes=3)


class Payload:
    """Unpickled, it runs `touch MARKER`, as an attack would run anything."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def safetensors(path: Path, header: bytes, length=None, data: bytes = b"\0" * 16) -> None:
    path.write_bytes(struct.pack("<Q", len(header) if length is None else length) + header + data)


def main(root: Path) -> None:
    d = root / "export"
    d.mkdir(parents=True, exist_ok=True)
    sd = random_checkpoint(SMALL)
    torch.save(sd, d / "small.pth")
    torch.save({**sd, "x": Payload(d / "ran")}, d / "evil.pth")
    torch.save({"w": torch.zeros(1 << 20)}, d / "big.pth")
    with zipfile.ZipFile(d / "big.pth") as a, zipfile.ZipFile(d / "bomb.pth", "w") as b:
        for m in a.infolist():  # the same records, deflated: 4 MB of zeros in a few KB
            b.writestr(m.filename, a.read(m), compress_type=zipfile.ZIP_DEFLATED)
    (d / "big.pth").unlink()
    safetensors(d / "list.safetensors", b"[1, 2]")
    safetensors(d / "huge-header.safetensors", b"", length=1 << 63, data=b"\0" * 8)
    safetensors(d / "negative.safetensors",
                json.dumps({"w": {"dtype": "F32", "shape": [2], "data_offsets": [-8, 0]}}).encode())
    safetensors(d / "float-shape.safetensors",
                json.dumps({"w": {"dtype": "F32", "shape": [2.5], "data_offsets": [0, 8]}}).encode())
    wide = ViTConfig(name="w", depth=1, heads=4, embed_dim=128, patch_size=16, image_size=(32, 32), num_classes=3)
    torch.save(torchvision_state_dict(random_checkpoint(wide)), d / "tv-4x32-heads.pth")
    write_hf(d / "hf-heads-string", sd, "vit", heads="4", image_size=16, eps=1e-12,
             architecture="ViTForImageClassification")
    write_hf(d / "hf-std-zero", sd, "vit", heads=4, image_size=16, eps=1e-12,
             architecture="ViTForImageClassification", processor={"image_mean": [0.5] * 3, "image_std": [0, 0, 0]})
    hf_inf = write_hf(d / "hf-eps-infinity", sd, "vit", heads=4, image_size=16, eps=1e-12,
                      architecture="ViTForImageClassification")
    config = hf_inf / "config.json"
    config.write_text(config.read_text().replace("1e-12", "Infinity"))
    (d / "notes-out").mkdir(exist_ok=True)
    (d / "notes-out" / "index.json").write_text("my notes, not an index\n")
    os.mkfifo(d / "fifo.pth")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
