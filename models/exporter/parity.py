"""The export's parity check: the checkpoint's logits through the plain PyTorch forward of
the detected architecture (explainer.PlainViT: conv, F.layer_norm, F.gelu..., written apart
from the explainer's record) against the exported explainer graph run by onnxruntime-web,
on one random input. A wrong layout read, or a graph that does not compute the model,
stops the export before a folder is written."""
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import torch

from .config import ViTConfig
from .errors import ExportCheckFailed
from .explainer import build_plain

RUNNER = Path(__file__).with_name("run_logits.mjs")
REPO = Path(__file__).resolve().parents[2]
# float32 graphs of a correct layout agree to ~1e-6 (LAYOUTS.md); a wrong eps or activation
# moves small models' logits by 1e-4 and more
LIMIT = 1e-4


def relative_difference(got: np.ndarray, want: np.ndarray) -> float:
    return float(np.abs(got - want).max() / max(np.abs(want).max(), 1e-12))


def check_parity(cfg: ViTConfig, state_dict, explainer_onnx: Path, seed: int = 0) -> float:
    """The relative logit difference; raises ExportCheckFailed above LIMIT."""
    pixels = torch.randn(1, 3, *cfg.image_size, generator=torch.Generator().manual_seed(seed))
    with torch.no_grad():
        want = build_plain(cfg, state_dict)(pixels).numpy().reshape(-1)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        pixels.numpy().astype("<f4").tofile(tmp / "pixels.f32")
        h, w = cfg.image_size
        run = subprocess.run(["node", str(RUNNER), str(explainer_onnx), str(tmp / "pixels.f32"), str(h), str(w),
                              str(cfg.num_classes), str(tmp / "logits.f32")],
                             cwd=REPO, capture_output=True, text=True)
        if run.returncode:
            last = (run.stderr.strip().splitlines() or ["no message"])[-1]
            raise ExportCheckFailed(f"could not run the exported graph for the parity check: {last}")
        got = np.fromfile(tmp / "logits.f32", dtype="<f4")
    difference = relative_difference(got, want)
    if not difference <= LIMIT:
        raise ExportCheckFailed(f"the exported graph's logits differ from the PyTorch forward by {difference:.2e} "
                                f"relative (limit {LIMIT:g}): not written")
    return difference
