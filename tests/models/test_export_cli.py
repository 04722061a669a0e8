"""models/export.py's messages for the user's mistakes, and the real DeiT-tiny export."""
import json
import os
import time
from pathlib import Path

import pytest
import torch

from models.exporter.architectures import KNOWN_MODELS
from models.exporter.checkpoints import sha256_file
from models.exporter.onnx_export import MAX_EXPLAINER_TO_PLAIN, verify_explainer
from cli_runner import run_export
from timm_state_dict import random_state_dict

REPO = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("VITREL_SHARED_DIR", REPO.parent / "shared"))
TINY = KNOWN_MODELS["deit_tiny_patch16_224"]


def test_unknown_model_name_lists_the_known_ones(tmp_path):
    result = run_export("--model", "deit_gigantic_patch16_224", "--out", tmp_path)
    assert result.returncode == 2
    assert "unknown model 'deit_gigantic_patch16_224'" in result.stderr
    for name in KNOWN_MODELS:
        assert name in result.stderr
    assert "Traceback" not in result.stderr


def test_missing_checkpoint_says_which_file_to_put_where(tmp_path):
    km = KNOWN_MODELS["deit_base_patch16_224"]
    started = time.time()
    result = run_export("--model", km.name, "--checkpoint-dir", tmp_path / "ck", "--out", tmp_path / "out")
    assert result.returncode == 2
    assert time.time() - started < 30
    assert f"put {km.name}.pth in {tmp_path / 'ck'} (download it from {km.url}" in result.stderr
    assert "Traceback" not in result.stderr


def test_checkpoint_with_the_wrong_block_count_is_rejected(tmp_path):
    cfg = TINY.config
    six = random_state_dict(type(cfg)(**{**cfg.__dict__, "depth": 6}))
    torch.save({"model": six}, tmp_path / "six.pth")
    result = run_export("--model", TINY.name, "--checkpoint", tmp_path / "six.pth", "--out", tmp_path / "out")
    assert result.returncode == 2
    assert "checkpoint has 6 blocks, deit_tiny_patch16_224 expects 12" in result.stderr
    assert not (tmp_path / "out" / f"{TINY.name}.onnx").exists()


def built_or_exported_tiny(tmp_path_factory):
    """The build's DeiT-tiny (npm run build) if present, else an export of ../shared's."""
    built = REPO / "build" / "models"
    if (built / f"{TINY.name}.onnx").is_file() and (built / f"{TINY.name}.json").is_file():
        return built
    ckpt_dir = SHARED / "models"
    if not (ckpt_dir / f"{TINY.name}.pth").is_file():
        pytest.skip(f"no DeiT-tiny checkpoint in {ckpt_dir} and no build/models export")
    out = tmp_path_factory.mktemp("deit_tiny")
    result = run_export("--model", TINY.name, "--checkpoint-dir", ckpt_dir, "--plain", "--out", out,
                        "--labels", SHARED / "imagenet" / "synset_words.txt")
    assert result.returncode == 0, result.stderr
    return out


def test_real_deit_tiny_export(tmp_path_factory):
    out = built_or_exported_tiny(tmp_path_factory)
    onnx_path = out / f"{TINY.name}.onnx"
    verify_explainer(onnx_path, TINY.config)
    meta = json.loads((out / f"{TINY.name}.json").read_text())
    assert meta["architecture"]["blocks"] == 12 and meta["architecture"]["tokens"] == 197
    assert len(meta["labels"]) == 1000 and meta["preprocess"]["interpolation"] == "bicubic"
    shared_ckpt = SHARED / "models" / f"{TINY.name}.pth"
    if meta["source"]["checkpoint"] == shared_ckpt.name and shared_ckpt.is_file():
        assert meta["source"]["sha256"] == sha256_file(shared_ckpt)
    forward = out / f"{TINY.name}.forward.onnx"
    if forward.is_file():
        assert onnx_path.stat().st_size <= MAX_EXPLAINER_TO_PLAIN * forward.stat().st_size
    # 5.7M weights in float32, no second copy of them.
    assert onnx_path.stat().st_size < 1.2 * 5.72e6 * 4
    index = json.loads((out / "index.json").read_text())
    entry = next(m for m in index["models"] if m["name"] == TINY.name)
    assert entry["bytes"] == onnx_path.stat().st_size
    # Each named file by content (the page's Cache Storage keys: web/lib/model-fetch.js).
    assert {onnx_path.name, f"{TINY.name}.json"} <= entry["sha256"].keys()
    for name, digest in entry["sha256"].items():
        assert sha256_file(out / name) == digest, name
