"""Checkpoints made to hurt, each built here in a temporary folder: pickles that run a
command when loaded, a zip bomb, storages declared longer than the file, malformed
safetensors headers, files that are not files, config fields of the wrong type, and
bare state dicts whose head count no shape tells. Each is refused in one line naming
the file (and the field), before anything is read whole, and no code of the file runs."""
import json
import os
import struct
import zipfile
from pathlib import Path

import pytest
import torch

from layout_writers import random_checkpoint, torchvision_state_dict, write_hf, write_timm_hub
from models.exporter.config import ViTConfig
from models.exporter.errors import ExportUserError
from models.exporter.layouts import Options, read_source, source_files
from models.exporter.layouts import timm, torchvision
from models.exporter.layouts.files import read_weights

SMALL = ViTConfig(name="s", depth=1, heads=4, embed_dim=32, patch_size=8, image_size=(16, 16), num_classes=3)


def refused(call, *args) -> str:
    with pytest.raises(ExportUserError) as info:
        call(*args)
    message = str(info.value)
    assert "\n" not in message and "Traceback" not in message
    return message


class Payload:
    """An object whose pickle, when loaded, creates MARKER (as a real attack runs a shell)."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


@pytest.mark.parametrize("where", ["bare", "wrapped", "hf-bin"])
def test_a_pickle_payload_never_runs(tmp_path, where):
    marker = tmp_path / "ran"
    sd = random_checkpoint(SMALL)
    if where == "hf-bin":
        folder = write_hf(tmp_path / "hf", sd, "vit", heads=4, image_size=16, eps=1e-12,
                          architecture="ViTForImageClassification", safetensors=False)
        evil = torch.load(folder / "pytorch_model.bin", weights_only=True)
        evil["vit.pooler"] = Payload(marker)
        torch.save(evil, folder / "pytorch_model.bin")
        source, file = folder, folder / "pytorch_model.bin"
    else:
        file = source = tmp_path / "evil.pth"
        torch.save({**sd, "x": Payload(marker)} if where == "bare" else {"model": sd, "args": Payload(marker)}, file)
    for call in (read_source, lambda s, _: source_files(s)):
        assert refused(call, source, Options(heads=4)) == (
            f"{file} carries posix.system, which loading it would call: refused (a checkpoint holds only "
            "tensors and containers; no code of a file runs)")
    assert not marker.exists()


def _zip_like(src: Path, dest: Path, compress=zipfile.ZIP_STORED, replace=None):
    """A copy of torch.save's zip SRC, records compressed as asked, some replaced."""
    with zipfile.ZipFile(src) as a, zipfile.ZipFile(dest, "w") as b:
        for m in a.infolist():
            data = (replace or {}).get(m.filename.split("/", 1)[1], a.read(m))
            b.writestr(m.filename, data, compress_type=compress)


def test_a_zip_bomb_is_refused_before_it_is_inflated(tmp_path):
    torch.save({"w": torch.zeros(1 << 22)}, tmp_path / "big.pth")  # 16 MB of zeros
    _zip_like(tmp_path / "big.pth", tmp_path / "bomb.pth", zipfile.ZIP_DEFLATED)
    assert (tmp_path / "bomb.pth").stat().st_size < 100_000
    message = refused(read_weights, tmp_path / "bomb.pth")
    assert message.startswith(f"{tmp_path / 'bomb.pth'}: record big/") and "compressed" in message


def test_a_storage_declared_longer_than_its_record(tmp_path):
    torch.save({"w": torch.ones(4)}, tmp_path / "ok.pth")
    with zipfile.ZipFile(tmp_path / "ok.pth") as z:
        pkl = z.read("ok/data.pkl")
    # the pickle's numel (4, a BININT1 after the storage's location) made 2**30 (a BININT)
    tampered = pkl.replace(b"X\x03\x00\x00\x00cpuq\x06K\x04", b"X\x03\x00\x00\x00cpuq\x06J\x00\x00\x00\x40")
    assert tampered != pkl
    _zip_like(tmp_path / "ok.pth", tmp_path / "long.pth", replace={"data.pkl": tampered})
    assert refused(read_weights, tmp_path / "long.pth") == (
        f"{tmp_path / 'long.pth'}: storage 0 is declared as 4294967296 bytes, the file holds 16")


def test_torchscript_and_legacy_files_are_refused(tmp_path):
    torch.jit.save(torch.jit.script(torch.nn.Linear(2, 2)), str(tmp_path / "script.pth"))
    assert "TorchScript archive" in refused(read_weights, tmp_path / "script.pth")
    torch.save({"w": torch.ones(2)}, tmp_path / "legacy.pth", _use_new_zipfile_serialization=False)
    assert "pre-1.6 format, which is not read" in refused(read_weights, tmp_path / "legacy.pth")
    (tmp_path / "text.pth").write_text("hello")
    assert refused(read_weights, tmp_path / "text.pth") == \
        f"{tmp_path / 'text.pth'} is not a PyTorch checkpoint (torch.save writes a zip)"


def test_files_that_are_not_files(tmp_path):
    assert refused(read_weights, Path("/dev/zero")) == "/dev/zero is a device, not a file"
    os.mkfifo(tmp_path / "fifo.pth")
    assert refused(source_files, tmp_path / "fifo.pth") == f"{tmp_path / 'fifo.pth'} is a FIFO, not a file"
    folder = write_hf(tmp_path / "hf", random_checkpoint(SMALL), "vit", heads=4, image_size=16, eps=1e-12,
                      architecture="ViTForImageClassification")
    (folder / "preprocessor_config.json").mkdir()
    assert refused(read_source, folder, Options()) == f"{folder / 'preprocessor_config.json'} is a folder, not a file"


def _safetensors(path: Path, header, data: bytes = b"\0" * 64, length=None) -> Path:
    text = json.dumps(header).encode() if not isinstance(header, bytes) else header
    path.write_bytes(struct.pack("<Q", len(text) if length is None else length) + text + data)
    return path


@pytest.mark.parametrize("header,expected", [
    ([1, 2], "the safetensors header is a JSON list, not an object"),
    ({"w": "F32"}, "tensor 'w' is a JSON str, not an object"),
    ({"w": {"dtype": "F32", "shape": [2]}}, "tensor 'w': data_offsets None is not [begin, end] in integers"),
    ({"w": {"dtype": "F32", "shape": [2.0], "data_offsets": [0, 8]}},
     "tensor 'w': shape [2.0] is not a list of at most 8 non-negative integers"),
    ({"w": {"dtype": "F32", "shape": [2], "data_offsets": [-8, 0]}}, "needs bytes -8..0 of 64"),
    ({"w": {"dtype": "F32", "shape": [4294967296, 4294967296], "data_offsets": [0, 64]}},
     "tensor 'w': shape [4294967296, 4294967296] is not a list of at most 8 non-negative integers"),
    ({"w": {"dtype": "F32", "shape": [4, 4], "data_offsets": [0, 32]}},
     "tensor 'w': shape [4, 4] of F32 needs 64 bytes, data_offsets give 32"),
    ({"a": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]},
      "b": {"dtype": "F32", "shape": [4], "data_offsets": [8, 24]}}, "tensors 'a' and 'b' share bytes 8..16"),
    (b'{"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, NaN]}}',
     "unreadable safetensors header (NaN is not a JSON value)"),
], ids=["list", "string-entry", "no-offsets", "float-shape", "negative-offset", "overflow", "wrong-size",
        "overlap", "nan"])
def test_malformed_safetensors_headers(tmp_path, header, expected):
    path = _safetensors(tmp_path / "m.safetensors", header)
    message = refused(read_weights, path)
    assert message.startswith(str(path)) and expected in message, message


def test_a_huge_header_length_is_refused_before_reading(tmp_path):
    path = tmp_path / "sparse.safetensors"
    with open(path, "wb") as f:  # 4 GB, sparse: nothing of it is on disk, nor read
        f.write(struct.pack("<Q", 1 << 63))
        f.truncate(4 << 30)
    assert refused(source_files, path) == (f"{path} is truncated or not a safetensors file (header of "
                                           f"{1 << 63} bytes in a {4 << 30}-byte file)")


def test_config_fields_of_the_wrong_type(tmp_path):
    sd = random_checkpoint(SMALL)
    cases = [(dict(heads="4"), "config.json: num_attention_heads is '4', expected an integer >= 1"),
             (dict(image_size="big"), "config.json: image_size is 'big', expected a positive integer or [height, "
                                      "width]"),
             (dict(eps=-1), "config.json: layer_norm_eps is -1, expected a finite number > 0"),
             (dict(hidden_act=3), "config.json: hidden_act is 3, expected a string"),
             (dict(id2label=[1]), "config.json: id2label is not an object of class ids to names")]
    for n, (fields, expected) in enumerate(cases):
        folder = write_hf(tmp_path / str(n), sd, "vit", architecture="ViTForImageClassification",
                          **{"heads": 4, "image_size": 16, "eps": 1e-12, **fields})
        assert refused(read_source, folder, Options()) == expected
    folder = write_hf(tmp_path / "eps", sd, "vit", heads=4, image_size=16, eps=1e-12,
                      architecture="ViTForImageClassification")
    (folder / "config.json").write_text((folder / "config.json").read_text().replace("1e-12", "Infinity"))
    assert refused(read_source, folder, Options()) == \
        f"{folder / 'config.json'} is not valid JSON (Infinity is not a JSON value)"
    write_hf(folder, sd, "vit", heads=4, image_size=16, eps=1e-12, architecture="ViTForImageClassification",
             processor={"image_mean": [0.5] * 3, "image_std": [0, 0, 0]})
    assert refused(read_source, folder, Options()) == \
        "preprocessor_config.json: image_std is [0, 0, 0], expected three finite numbers > 0"
    write_timm_hub(tmp_path / "hub", sd, "vit_x", {"num_heads": 4}, {"crop_pct": "wide"})
    assert refused(read_source, tmp_path / "hub", Options()) == \
        "config.json: pretrained_cfg.crop_pct is 'wide', expected a finite number > 0"


def test_a_head_count_no_shape_tells_needs_heads(tmp_path):
    # the case: a torchvision ViT of width 128 with 4 heads of 32 (not torchvision's 64)
    cfg = ViTConfig(name="h", depth=2, heads=4, embed_dim=128, patch_size=16, image_size=(32, 32), num_classes=3)
    torch.save(torchvision_state_dict(random_checkpoint(cfg)), tmp_path / "vit.pth")
    assert refused(read_source, tmp_path / "vit.pth", Options()) == (
        "the head count is not in a torchvision checkpoint's tensors and no config gives it; its shapes are none "
        "of torchvision's published ViTs: pass --heads N (N divides the width 128)")
    assert read_source(tmp_path / "vit.pth", Options(heads=4)).cfg.heads == 4
    assert refused(read_source, tmp_path / "vit.pth", Options(heads=3)) == "--heads 3 does not divide the width 128"
    torch.save(random_checkpoint(cfg), tmp_path / "timm.pth")
    assert "none of timm's published ViTs: pass --heads N" in refused(read_source, tmp_path / "timm.pth", Options())


def _shaped(cfg: ViTConfig) -> dict:
    """timm-keyed tensors of cfg's shapes, one stored value each (expanded: no memory)."""
    from models.exporter.params import param_shapes
    return {k: torch.zeros(1).expand(*s) for k, s in param_shapes(cfg).items()}


@pytest.mark.parametrize("library,width,depth,heads,patch,name", [
    ("torchvision", 768, 12, 12, 16, "vit_b_16"), ("torchvision", 1280, 32, 16, 14, "vit_h_14"),
    ("timm", 192, 12, 3, 16, "vit_tiny_patch16_224"), ("timm", 1024, 24, 16, 16, "vit_large_patch16_224"),
])
def test_a_published_architecture_gives_its_head_count(library, width, depth, heads, patch, name):
    cfg = ViTConfig(name="p", depth=depth, heads=heads, embed_dim=width, patch_size=patch,
                    image_size=(patch * 2, patch * 2), num_classes=2)
    sd = _shaped(cfg)
    ckpt = (torchvision.read(torchvision_state_dict(sd), Options(), "p") if library == "torchvision"
            else timm.read(sd, None, Options(), "p"))
    assert ckpt.cfg.heads == heads
    assert ckpt.heads_from == f"{library}'s {name}, whose shapes these are"
