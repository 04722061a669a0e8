"""`vit-relevance export SOURCE --out DIR` end to end: a checkpoint in a library's layout
becomes a model folder that `explain --model DIR` runs; DeiT-tiny rewritten into the
Hugging Face layout exports to a graph that computes what the built-in export computes;
checkpoints the exporter does not understand get one line and no folder."""
import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest
import torch

from attnlrp_reference import reference_maps
from cli_runner import REPO, run_export
from layout_writers import random_checkpoint, write_hf
from models.exporter.checkpoints import sha256_file
from models.exporter.config import ViTConfig
from models.exporter.errors import ExportCheckFailed
from models.exporter.explainer import OUTPUT_NAMES
from models.exporter.parity import check_parity
from ort_runner import export_small, run_in_ort, skip_without_ort
from test_attnlrp import acceptance_failures
from tolerance import rel_err

DEIT = REPO.parent / "shared" / "models" / "deit_tiny_patch16_224.pth"
BUILTIN = REPO / "build" / "models" / "deit_tiny_patch16_224.onnx"
PHOTO = REPO.parent / "shared" / "images" / "catdog.png"
CLASSES = ["cat", "dog", "fish", "bird", "cow", "ant", "bee"]


def cli(*args, timeout=900):
    return subprocess.run(["node", str(REPO / "cli" / "vit-relevance.js"), *map(str, args)],
                          capture_output=True, text=True, timeout=timeout, cwd=REPO)


DINO = ViTConfig(name="d", depth=2, heads=3, embed_dim=48, patch_size=8, image_size=(32, 48),
                 num_classes=7, pool="cls+avg", layer_scale=True)


def dinov2_state_dict() -> dict:
    """Timm-keyed weights in HF DINOv2's token convention (the registers apart)."""
    sd = random_checkpoint(DINO, seed=4)
    sd["reg_token"] = torch.randn(1, 4, 48, generator=torch.Generator().manual_seed(1)) * 0.3
    return sd


def dinov2_with_registers(folder: Path) -> Path:
    return write_hf(folder, dinov2_state_dict(), "dinov2_with_registers", heads=3, image_size=[32, 48], eps=1e-6,
                    architecture="Dinov2WithRegistersForImageClassification", num_register_tokens=4)


def test_export_then_explain(tmp_path):
    skip_without_ort()
    source = dinov2_with_registers(tmp_path / "my-dino")
    (tmp_path / "classes.txt").write_text("\n".join(CLASSES) + "\n")
    out = tmp_path / "model"
    done = cli("export", source, "--out", out, "--labels", tmp_path / "classes.txt")
    assert done.returncode == 0, done.stderr
    # the layout it read, printed
    assert "Hugging Face Dinov2WithRegistersForImageClassification" in done.stdout
    assert "tokens: cls + 4 registers + 4x6 patches of 8px (29); pooling: cls+avg; LayerNorm eps 1e-06" in done.stdout
    assert "parity: the graph's logits are within" in done.stdout
    index = json.loads((out / "index.json").read_text())
    assert [m["name"] for m in index["models"]] == ["my-dino"]
    meta = json.loads((out / "my-dino.json").read_text())
    arch = meta["architecture"]
    assert (arch["pool"], arch["registers"], arch["special_tokens"], arch["cls_token"], arch["grid"]) == \
        ("cls+avg", 4, 5, True, [4, 6])
    assert meta["labels"] == CLASSES
    assert {"split", "attribution", "forward_onnx"} <= set(index["models"][0])
    # the attribution graphs read the split graphs' weights file: no second copy of the weights
    assert index["models"][0]["attribution"]["weights"] == index["models"][0]["split"]["weights"]
    assert not (out / "my-dino.attribution.bin").exists()

    explained = cli("explain", PHOTO, "--model", out, "--class", "dog", "--out", tmp_path / "maps")
    assert explained.returncode == 0, explained.stderr
    maps = json.loads((tmp_path / "maps" / "maps.json").read_text())
    assert maps["targets"][0]["id"] == 1
    assert "transformer_attribution" in maps["targets"][0]["maps"]

    # AttnLRP and CP-LRP of the exported model: the checkpoint's, under METHODS.md's acceptance
    pixels = torch.randn(1, 3, *DINO.image_size, generator=torch.Generator().manual_seed(6))
    np.save(tmp_path / "input.npy", pixels.numpy())
    explained = cli("explain", tmp_path / "input.npy", "--model", out, "--class", "dog", "--method", "attnlrp,cp_lrp",
                    "--out", tmp_path / "lrp")
    assert explained.returncode == 0, explained.stderr
    maps = json.loads((tmp_path / "lrp" / "maps.json").read_text())["targets"][0]["maps"]
    for method in ("attnlrp", "cp_lrp"):
        got = torch.tensor(maps[method]["data"]).reshape(maps[method]["shape"])
        want, logits = reference_maps(dinov2_state_dict(), DINO, pixels, [1], method)
        assert not acceptance_failures(got[None], want, logits, [1], DINO.patch_size), method


def test_deit_tiny_in_the_hf_layout_matches_the_builtin_export(tmp_path):
    """The same tensors and layout, exported from the HF folder: the graph's outputs equal
    the built-in export's (build/models) on a photo-sized random input."""
    skip_without_ort()
    if not (DEIT.is_file() and BUILTIN.is_file()):
        pytest.skip("needs ../shared's DeiT-tiny and its built-in export (npm run build)")
    sd = torch.load(str(DEIT), map_location="cpu", weights_only=True)["model"]
    # DeiT's own eps (the HF conversion of DeiT keeps the model's LayerNorms)
    source = write_hf(tmp_path / "deit-hf", sd, "deit", heads=3, image_size=224, eps=1e-6,
                      architecture="DeiTForImageClassification")
    done = run_export("--source", source, "--out", tmp_path / "out")
    assert done.returncode == 0, done.stderr
    g = torch.Generator().manual_seed(5)
    pixels, target = torch.randn(1, 3, 224, 224, generator=g), torch.zeros(2, 1000)
    target[1, 281] = 1.0  # tabby; row 0: the predicted class
    ours = run_in_ort(tmp_path / "out" / "deit-hf.onnx", tmp_path / "a", pixels, target)
    builtin = run_in_ort(BUILTIN, tmp_path / "b", pixels, target)
    for name in OUTPUT_NAMES:
        assert rel_err(ours[name], builtin[name]) < 1e-5, name


def test_a_rerun_is_skipped_until_the_checkpoint_changes(tmp_path):
    """The stamp the built-in export keeps (models/exporter/cache.py), for --source too."""
    skip_without_ort()
    cfg = ViTConfig(name="s", depth=1, heads=2, embed_dim=32, patch_size=8, image_size=(16, 16), num_classes=3)
    checkpoint, out = tmp_path / "small.pth", tmp_path / "model"
    torch.save(random_checkpoint(cfg, seed=1), checkpoint)
    assert cli("export", checkpoint, "--out", out, "--heads", 2).returncode == 0
    assert [f for f in os.listdir(out) if f.startswith(".")] == []  # no lock file, no scratch folder left
    graph = out / "small.onnx"
    written = graph.stat().st_mtime_ns

    again = cli("export", checkpoint, "--out", out, "--heads", 2)
    assert again.returncode == 0 and "small: up to date" in again.stdout, again.stdout + again.stderr
    assert graph.stat().st_mtime_ns == written
    other_options = cli("export", checkpoint, "--out", out, "--heads", 1)
    assert other_options.returncode == 0 and "up to date" not in other_options.stdout

    torch.save(random_checkpoint(cfg, seed=2), checkpoint)  # other weights, same file
    changed = cli("export", checkpoint, "--out", out, "--heads", 2)
    assert changed.returncode == 0 and "up to date" not in changed.stdout, changed.stderr
    assert graph.stat().st_mtime_ns != written
    meta = json.loads((out / "small.json").read_text())
    assert meta["source"]["sha256"] == sha256_file(checkpoint)


def one_line_error(done) -> str:
    assert done.returncode == 2, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    return lines[0]


def test_bad_checkpoints_get_one_line(tmp_path):
    resnet = tmp_path / "resnet50.pth"
    torch.save({"conv1.weight": torch.randn(64, 3, 7, 7), "fc.weight": torch.randn(10, 2048)}, resnet)
    truncated = tmp_path / "cut.pth"
    cfg = ViTConfig(name="v", depth=2, heads=3, embed_dim=48, patch_size=8, image_size=(32, 32), num_classes=7)
    torch.save(random_checkpoint(cfg), tmp_path / "full.pth")
    truncated.write_bytes((tmp_path / "full.pth").read_bytes()[:5000])
    contradicted = dinov2_with_registers(tmp_path / "dino")
    config = json.loads((contradicted / "config.json").read_text())
    (contradicted / "config.json").write_text(json.dumps({**config, "hidden_size": 64}))
    cases = [((resnet,), "is not a ViT checkpoint"), ((truncated,), "is truncated"),
             ((contradicted,), "config.json says hidden_size 64, the tensors have 48"),
             ((tmp_path / "full.pth", "--heads", "5"), "--heads 5 does not divide the width 48")]
    for args, wanted in cases:
        out = tmp_path / "never"
        line = one_line_error(cli("export", *args, "--out", out, timeout=120))
        assert wanted in line and line.startswith("vit-relevance export: error: "), line
        assert not out.exists()


def test_parity_refuses_a_graph_of_other_weights(tmp_path):
    skip_without_ort()
    cfg = ViTConfig(name="p", depth=2, heads=3, embed_dim=48, patch_size=8, image_size=(32, 32), num_classes=7)
    _, graph = export_small(cfg, random_checkpoint(cfg, seed=1), tmp_path)
    assert check_parity(cfg, random_checkpoint(cfg, seed=1), graph) < 1e-5
    with pytest.raises(ExportCheckFailed, match="differ from the PyTorch forward"):
        check_parity(cfg, random_checkpoint(cfg, seed=2), graph)
