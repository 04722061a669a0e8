"""Export of the Self-Attention Attribution graphs (attribution.py) and the masked forward:
<name>.states.onnx, <name>.attr<b>.onnx for every block b, <name>.masked.onnx, all reading
their weights from <name>.attribution.bin (ONNX external data, every tensor stored once)."""
from pathlib import Path
from typing import Dict

import onnx
import torch

from .attribution import BLOCK_INPUTS, BLOCK_OUTPUTS, STATES_INPUTS, STATES_OUTPUTS, build_block_attribution, \
    build_states
from .config import ViTConfig
from .explainer import build_plain
from .onnx_export import OPSET
from .split_export import externalise

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


def export_attribution(cfg: ViTConfig, state_dict, out: Path, name: str) -> Dict[str, object]:
    """Writes the files of attribution_files() into `out` and returns that dict."""
    files = attribution_files(cfg, name)
    tmp = {f: out / (f + ".tmp") for f in [files["states"], files["masked"], *files["blocks"]]}
    export_states(build_states(cfg, state_dict), cfg, tmp[files["states"]])
    export_masked(build_plain(cfg, state_dict), cfg, tmp[files["masked"]])
    for b, f in enumerate(files["blocks"]):
        export_block(build_block_attribution(cfg, state_dict, b), cfg, tmp[f])
    models = {f: onnx.load(str(path)) for f, path in tmp.items()}
    for path in tmp.values():
        path.unlink()
    (out / files["weights"]).write_bytes(externalise(list(models.values()), files["weights"]))
    for f, model in models.items():
        onnx.save(model, str(out / f))
        onnx.checker.check_model(str(out / f))
    return files
