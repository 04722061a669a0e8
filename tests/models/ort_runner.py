"""Runs an exported explainer graph with onnxruntime-web in Node (tests/models/run_onnx.mjs)
on torch inputs and reads the outputs back; shared by the ONNX equivalence tests."""
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from models.exporter.explainer import OUTPUT_NAMES, build_explainer
from models.exporter.onnx_export import export_explainer

REPO = Path(__file__).resolve().parents[2]
RUNNER = Path(__file__).with_name("run_onnx.mjs")


def skip_without_ort():
    if shutil.which("node") is None or not (REPO / "node_modules" / "onnxruntime-web").is_dir():
        pytest.skip("node or node_modules/onnxruntime-web not installed (npm ci)")


def export_small(cfg, sd, folder: Path):
    """(module, path): the explainer module and its ONNX export in `folder`."""
    module = build_explainer(cfg, sd)
    path = folder / f"{cfg.name}.onnx"
    export_explainer(module, cfg, path)
    return module, path


def run_in_ort(model: Path, workdir: Path, pixels, target, pixel_relevance=1.0, fetch=None,
               attnlrp_relevance=0.0, cp_lrp_relevance=0.0):
    """Outputs {name: np.ndarray} of one run; the switches are fed as 0-d float32 (the
    AttnLRP/CP-LRP ones off by default, as the module's defaults)."""
    feeds = {"pixels": pixels.numpy(), "target": target.numpy()}
    switches = {"pixel_relevance": pixel_relevance, "attnlrp_relevance": attnlrp_relevance,
                "cp_lrp_relevance": cp_lrp_relevance}
    feeds.update({name: np.asarray(v, dtype=np.float32) for name, v in switches.items()})
    return run_feeds(model, workdir, feeds, fetch or OUTPUT_NAMES, fetch=fetch)


def run_feeds(model: Path, workdir: Path, feeds, outputs, fetch=None, weights: Path = None):
    """Outputs {name: np.ndarray} for `outputs` of one run on float32 (or int64) `feeds` {name: array};
    `weights` is the external-data file the graph reads, `fetch` limits what is fetched."""
    workdir.mkdir(parents=True, exist_ok=True)
    cmd = ["node", str(RUNNER), "--model", str(model), "--out", str(workdir / "out")]
    for name, value in feeds.items():
        value = np.asarray(value)  # int64 token ids stay int64, everything else float32
        np.save(workdir / f"{name}.npy", value if value.dtype == np.int64 else value.astype(np.float32))
        cmd += ["--input", f"{name}={workdir / f'{name}.npy'}"]
    if fetch:
        cmd += ["--fetch", ",".join(fetch)]
    if weights:
        cmd += ["--weights", str(weights)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=REPO)
    assert done.returncode == 0, done.stderr
    return {name: np.load(workdir / "out" / f"{name}.npy") for name in outputs}
