"""Export a checkpoint's plain and explainer graphs to a scratch dir and time them with
onnxruntime-web in Node (tests/models/run_onnx.mjs): plain forward, explainer with K=1
and K=5, and the explainer fetching only `logits`. Prints sizes and median times.

  /usr/bin/python3 -m models.exporter.speed_check [--checkpoint PATH] [--out build/speed]
Default: DeiT-tiny from ../shared (VITREL_SHARED_DIR overrides).
"""
import argparse
import json
import os
import statistics
import subprocess
from pathlib import Path

import numpy as np
import torch

from .config import ViTConfig
from .explainer import build_explainer, build_plain
from .onnx_export import export_explainer, export_plain

REPO = Path(__file__).resolve().parents[2]
RUNNER = REPO / "tests" / "models" / "run_onnx.mjs"
DEIT_TINY = ViTConfig("deit_tiny_patch16_224", 12, 3, 192, 16, (224, 224), 1000)


def time_run(model, inputs, repeat, threads, fetch=None):
    cmd = ["node", str(RUNNER), "--model", str(model), "--repeat", str(repeat), "--threads", str(threads)]
    for name, path in inputs.items():
        cmd += ["--input", f"{name}={path}"]
    if fetch:
        cmd += ["--fetch", ",".join(fetch)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=True, cwd=REPO)
    return statistics.median(json.loads(done.stdout.strip().splitlines()[-1])["ms"])


def main():
    shared = Path(os.environ.get("VITREL_SHARED_DIR", REPO.parent / "shared"))
    ap = argparse.ArgumentParser()
    ap.add_argument("--checkpoint", default=shared / "models" / "deit_tiny_patch16_224.pth")
    ap.add_argument("--out", default=REPO / "build" / "speed")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--skip-export", action="store_true")
    a = ap.parse_args()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    cfg = DEIT_TINY
    if not a.skip_export:
        sd = torch.load(a.checkpoint, map_location="cpu")["model"]
        export_plain(build_plain(cfg, sd), cfg, out / "plain.onnx")
        export_explainer(build_explainer(cfg, sd), cfg, out / "explainer.onnx")
    sizes = {n: (out / f"{n}.onnx").stat().st_size for n in ("plain", "explainer")}
    rng = np.random.default_rng(0)
    np.save(out / "pixels.npy", rng.standard_normal((1, 3, *cfg.image_size)).astype(np.float32))
    for k in (1, 5):
        np.save(out / f"target{k}.npy", np.eye(cfg.num_classes, dtype=np.float32)[rng.choice(cfg.num_classes, k)])
    px = {"pixels": out / "pixels.npy"}
    t = {"plain": time_run(out / "plain.onnx", px, a.repeat, a.threads)}
    for k in (1, 5):
        t[f"explainer_k{k}"] = time_run(out / "explainer.onnx", {**px, "target": out / f"target{k}.npy"},
                                        a.repeat, a.threads)
    t["explainer_logits_only"] = time_run(out / "explainer.onnx", {**px, "target": out / "target1.npy"},
                                          a.repeat, a.threads, fetch=["logits"])
    print(json.dumps({"bytes": sizes, "size_ratio": sizes["explainer"] / sizes["plain"], "median_ms": t,
                      "k1_over_plain": t["explainer_k1"] / t["plain"],
                      "k5_over_5xk1": t["explainer_k5"] / (5 * t["explainer_k1"])}, indent=1))


if __name__ == "__main__":
    main()
