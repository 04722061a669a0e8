"""The exported explainer graph, run by onnxruntime-web in Node, reproduces the PyTorch
module on inputs and target counts it was not traced with (nothing froze to the example)."""
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
import torch

from conftest import TINY, TINY_DISTILLED, lively_state_dict, random_inputs
from models.exporter.explainer import OUTPUT_NAMES, build_explainer
from models.exporter.onnx_export import export_explainer

REPO = Path(__file__).resolve().parents[2]
RUNNER = Path(__file__).with_name("run_onnx.mjs")
# float32 in two engines: LRP divides by small sums and amplifies rounding differences,
# most of all the classic pixel relevance (known to be numerically wild).
TOLERANCE = {"logits": 1e-4, "attn": 1e-4, "attn_grad": 1e-4, "attn_rel": 1e-3,
             "attn_rel_classic_last": 1e-3, "input_rel_classic": 5e-3}


def run_in_ort(model: Path, workdir: Path, pixels, target, fetch=None):
    workdir.mkdir(parents=True, exist_ok=True)
    np.save(workdir / "pixels.npy", pixels.numpy())
    np.save(workdir / "target.npy", target.numpy())
    cmd = ["node", str(RUNNER), "--model", str(model), "--out", str(workdir / "out"),
           "--input", f"pixels={workdir / 'pixels.npy'}", "--input", f"target={workdir / 'target.npy'}"]
    if fetch:
        cmd += ["--fetch", ",".join(fetch)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=REPO)
    assert done.returncode == 0, done.stderr
    return {name: np.load(workdir / "out" / f"{name}.npy") for name in (fetch or OUTPUT_NAMES)}


@pytest.fixture(scope="module", params=[TINY, TINY_DISTILLED], ids=lambda c: c.name)
def exported(request, tmp_path_factory):
    if shutil.which("node") is None or not (REPO / "node_modules" / "onnxruntime-web").is_dir():
        pytest.skip("node or node_modules/onnxruntime-web not installed (npm ci)")
    cfg = request.param
    sd = lively_state_dict(cfg)
    module = build_explainer(cfg, sd)
    path = tmp_path_factory.mktemp("onnx") / f"{cfg.name}.onnx"
    export_explainer(module, cfg, path)
    return cfg, module, path


def rel_err(a, b):
    return float(np.abs(a - b).max() / np.abs(b).max())


@pytest.mark.parametrize("k", [1, 3])
def test_onnx_matches_pytorch_on_two_inputs(exported, k, tmp_path):
    cfg, module, path = exported
    results = []
    for seed in (11, 12):
        pixels, target = random_inputs(cfg, k, seed=seed)
        got = run_in_ort(path, tmp_path / f"seed{seed}", pixels, target)
        with torch.no_grad():
            want = dict(zip(OUTPUT_NAMES, (o.numpy() for o in module(pixels, target))))
        for name in OUTPUT_NAMES:
            assert got[name].shape == want[name].shape, name
            assert rel_err(got[name], want[name]) < TOLERANCE[name], name
        results.append(got)
    # the second input must produce its own maps, far beyond the tolerance
    for name in OUTPUT_NAMES:
        assert rel_err(results[0][name], results[1][name]) > 100 * TOLERANCE[name], name


def test_logits_alone_can_be_fetched(exported, tmp_path):
    cfg, module, path = exported
    pixels, target = random_inputs(cfg, 2, seed=13)
    got = run_in_ort(path, tmp_path, pixels, target, fetch=["logits"])
    with torch.no_grad():
        want = module(pixels, target)[0].numpy()
    assert rel_err(got["logits"], want) < 1e-4
