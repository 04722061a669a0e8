"""Export of the Self-Attention Attribution graphs (attribution.py) and the masked forward:
<name>.states.onnx, <name>.attr<b>.onnx for every block b, <name>.masked.onnx, all reading
their weights from <name>.attribution.bin (ONNX external data, every tensor stored once);
models/export.py then points them at the split graphs' weights file where those are written
(shared_weights.py)."""
from functools import partial
from pathlib import Path
from typing import Callable, Dict

import onnx
import torch

from .attribution import BLOCK_INPUTS, BLOCK_OUTPUTS, STATES_INPUTS, STATES_OUTPUTS, build_block_attribution, \
    build_states
from .config import ViTConfig
from .explainer import build_plain
from .scan_graph import OPSET
from .split_export import externalise
from .trace_workers import TraceWorkers

STEPS = "steps"  # the symbolic number of scaled copies (α values) of one run
MASKED_INPUTS, MASKED_OUTPUTS = ["pixels", "head_mask"], ["logits"]


def export_block(module, cfg: ViTConfig, path: Path) -> None:
    hidden = torch.randn(cfg.tokens, cfg.embed_dim)
    alpha = torch.tensor([0.0, 0.5, 0.75])  # 3 copies while tracing: nothing specialised to m
    target = torch.zeros(cfg.num_classes)
    target[0] = 1.0
    with torch.no_grad():
        torch.onnx.export(module, (hidden, alpha, target), str(path), opset_version=OPSET,
                          input_names=BLOCK_INPUTS, output_names=BLOCK_OUTPUTS,
                          dynamic_axes={"alpha": {0: STEPS}, "prob": {0: STEPS}},
                          do_constant_folding=False)


def export_states(module, cfg: ViTConfig, path: Path) -> None:
    with torch.no_grad():
        torch.onnx.export(module, (torch.randn(1, 3, *cfg.image_size),), str(path), opset_version=OPSET,
                          input_names=STATES_INPUTS, output_names=STATES_OUTPUTS, do_constant_folding=False)


def export_masked(module, cfg: ViTConfig, path: Path) -> None:
    with torch.no_grad():
        torch.onnx.export(module, (torch.randn(2, 3, *cfg.image_size), torch.ones(cfg.depth, cfg.heads)),
                          str(path), opset_version=OPSET, input_names=MASKED_INPUTS,
                          output_names=MASKED_OUTPUTS, do_constant_folding=False,
                          dynamic_axes={"pixels": {0: "batch"}, "logits": {0: "batch"}})


def attribution_files(cfg: ViTConfig, name: str) -> Dict[str, object]:
    return {"states": f"{name}.states.onnx", "blocks": [f"{name}.attr{b}.onnx" for b in range(cfg.depth)],
            "masked": f"{name}.masked.onnx", "weights": f"{name}.attribution.bin"}


def trace_states(cfg: ViTConfig, state_dict, path: Path) -> None:
    export_states(build_states(cfg, state_dict), cfg, path)


def trace_masked(cfg: ViTConfig, state_dict, path: Path) -> None:
    export_masked(build_plain(cfg, state_dict), cfg, path)


def trace_block(cfg: ViTConfig, state_dict, path: Path, block: int) -> None:
    export_block(build_block_attribution(cfg, state_dict, block), cfg, path)


def attribution_traces(cfg: ViTConfig, out: Path, name: str) -> Dict[Path, Callable]:
    """The conversions export_attribution needs, {file in `out`: trace} (trace_workers), largest first."""
    files = attribution_files(cfg, name)
    blocks = {out / (f + ".tmp"): partial(trace_block, block=b) for b, f in enumerate(files["blocks"])}
    return {**blocks, out / (files["states"] + ".tmp"): trace_states, out / (files["masked"] + ".tmp"): trace_masked}


def export_attribution(cfg: ViTConfig, state_dict, out: Path, name: str) -> Dict[str, object]:
    """attribution_traces here, one after the other, then assemble_attribution."""
    with TraceWorkers(cfg, state_dict, workers=1) as workers:
        workers.start(attribution_traces(cfg, out, name))
    return assemble_attribution(cfg, out, name)


def assemble_attribution(cfg: ViTConfig, out: Path, name: str) -> Dict[str, object]:
    """From the files attribution_traces wrote into `out`: writes the files of
    attribution_files() into `out` and returns that dict."""
    files = attribution_files(cfg, name)
    tmp = {f: out / (f + ".tmp") for f in [files["states"], files["masked"], *files["blocks"]]}
    models = {f: onnx.load(str(path)) for f, path in tmp.items()}
    for path in tmp.values():
        path.unlink()
    (out / files["weights"]).write_bytes(externalise(list(models.values()), files["weights"]))
    for f, model in models.items():
        onnx.save(model, str(out / f))
        onnx.checker.check_model(str(out / f))
    return files
