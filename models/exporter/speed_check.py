"""Export a checkpoint's plain and explainer graphs to a scratch dir and time them with
onnxruntime-web in Node (models/exporter/time_graphs.mjs: one process, runs interleaved,
so machine load hits every case alike): plain forward, explainer with K=1 and K=5, each
with pixel_relevance 0 and 1. Prints file sizes, min/median ms and the ratios.

  /usr/bin/python3 -m models.exporter.speed_check [--checkpoint PATH] [--out build/speed]
      [--baseline OLD_EXPLAINER.onnx]   (an earlier export without pixel_relevance, K=1)
Default: DeiT-tiny from ../shared (VITREL_SHARED_DIR overrides).
"""
import argparse
import json
import os
import subprocess
from pathlib import Path

import torch

from .config import ViTConfig
from .explainer import build_explainer, build_plain
from .onnx_export import export_explainer, export_plain

REPO = Path(__file__).resolve().parents[2]
TIMER = Path(__file__).with_name("time_graphs.mjs")
DEIT_TINY = ViTConfig("deit_tiny_patch16_224", 12, 3, 192, 16, (224, 224), 1000)


def main():
    shared = Path(os.environ.get("VITREL_SHARED_DIR", REPO.parent / "shared"))
    ap = argparse.ArgumentParser()
    ap.add_argument("--checkpoint", default=shared / "models" / "deit_tiny_patch16_224.pth")
    ap.add_argument("--out", default=REPO / "build" / "speed")
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--skip-export", action="store_true")
    ap.add_argument("--baseline", help="an earlier explainer .onnx (inputs pixels, target) to time too")
    a = ap.parse_args()
    out, cfg = Path(a.out), DEIT_TINY
    out.mkdir(parents=True, exist_ok=True)
    if not a.skip_export:
        sd = torch.load(a.checkpoint, map_location="cpu", weights_only=True)["model"]  # tensors only: no code runs
        export_plain(build_plain(cfg, sd), cfg, out / "plain.onnx")
        export_explainer(build_explainer(cfg, sd), cfg, out / "explainer.onnx")
    sizes = {n: (out / f"{n}.onnx").stat().st_size for n in ("plain", "explainer")}
    done = subprocess.run(["node", str(TIMER), str(out / "plain.onnx"), str(out / "explainer.onnx"),
                           *map(str, (*cfg.image_size, cfg.num_classes, a.rounds, a.threads)),
                           *([str(a.baseline)] if a.baseline else [])],
                          capture_output=True, text=True, check=True, cwd=REPO)
    t = json.loads(done.stdout.strip().splitlines()[-1])
    best = {k: v["min"] for k, v in t.items()}
    med = {k: v["median"] for k, v in t.items()}
    over_plain = {k: {"min": round(best[k] / best["plain"], 2), "median": round(med[k] / med["plain"], 2)}
                  for k in t if k != "plain"}
    print(json.dumps({"bytes": sizes, "size_ratio": round(sizes["explainer"] / sizes["plain"], 3), "ms": t,
                      "over_plain": over_plain}, indent=1))


if __name__ == "__main__":
    main()
