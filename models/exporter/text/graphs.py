"""The text graphs written to files: the explainer and the plain forward (each one traced
graph), the method family graphs (families.py) and the attribution graphs, all reading one
shared weights file, <name>.weights.bin, each cleaned (../graph_cleanup.py); the contract
check of the explainer file and the family graphs' check against it. A 4-layer model needs none of the
image graphs' loops: its whole explainer traces in seconds (models/README.md, "Text models")."""
from pathlib import Path
from typing import Dict, List, Sequence

import json
import subprocess

import onnx
import torch

from ..attribution import BLOCK_INPUTS, BLOCK_OUTPUTS, STATES_OUTPUTS
from ..errors import ExportCheckFailed
from ..graph_cleanup import clean_file
from ..onnx_export import _dims, contract_problems
from ..scan_graph import OPSET
from ..split_export import externalise
from .attribution import TextBlockAttribution, TextStatesGraph
from .config import TextConfig
from .explainer import INPUT_NAMES, OUTPUT_NAMES, PlainText
from .families import TEXT_FAMILIES, build_families, family_files
from .proposed import INPUT_NAMES as PROPOSED_INPUTS, TextProposed
from .metadata import S, input_shapes, output_shapes

K = "K"
STEPS = "steps"  # the attribution graphs' number of α copies
TRACE_TOKENS = 7  # the example's length: any S > 1 (no shape may depend on it)
STATES_TEXT_INPUTS = ["input_ids"]
MASKED_INPUTS, MASKED_OUTPUTS = ["input_ids", "head_mask"], ["logits"]


def example_ids(cfg: TextConfig, tokens: int = TRACE_TOKENS):
    return torch.arange(1, tokens + 1, dtype=torch.int64).remainder(cfg.vocab_size).reshape(1, tokens)


def _export(module, args, path: Path, inputs, outputs, dynamic_axes) -> None:
    with torch.no_grad():
        torch.onnx.export(module, args, str(path), opset_version=OPSET, input_names=inputs, output_names=outputs,
                          dynamic_axes=dynamic_axes, do_constant_folding=False)
    clean_file(path)


def _dynamic_axes(cfg: TextConfig, names) -> Dict[str, Dict[int, str]]:
    """The contract's dynamic axes (S, K) of the graph values `names`."""
    shapes = {**input_shapes(cfg), **output_shapes(cfg)}
    axes = {name: {i: d for i, d in enumerate(shapes[name]) if isinstance(d, str)} for name in names}
    return {name: a for name, a in axes.items() if a}


def export_explainer(module, cfg: TextConfig, path: Path) -> None:
    """The explainer graph (explainer.TextExplainer), S and K dynamic."""
    target = torch.zeros(2, cfg.num_classes)
    switches = tuple(torch.tensor(1.0) for _ in range(3))
    _export(module, (example_ids(cfg), target, *switches), path, INPUT_NAMES, OUTPUT_NAMES,
            _dynamic_axes(cfg, INPUT_NAMES + OUTPUT_NAMES))


def export_own_families(cfg: TextConfig, state_dict, out: Path, name: str) -> Dict[str, Path]:
    """The family graphs traced from a module of their own (families.py: the
    transformer_attribution family, proposed.TextProposed) into `out`, S and K dynamic;
    returns {family: path} (write_shared's `own`)."""
    family = "transformer_attribution"
    path = out / family_files(name)[family]
    outputs = list(TEXT_FAMILIES[family])
    _export(TextProposed(cfg, state_dict).eval(), (example_ids(cfg), torch.zeros(2, cfg.num_classes)), path,
            PROPOSED_INPUTS, outputs, _dynamic_axes(cfg, PROPOSED_INPUTS + outputs))
    return {family: path}


def export_plain(module: PlainText, cfg: TextConfig, path: Path) -> None:
    """input_ids [n,S] -> logits [n,C], n and S dynamic."""
    ids = example_ids(cfg).expand(2, -1).contiguous()
    _export(module, (ids,), path, ["input_ids"], ["logits"],
            {"input_ids": {0: "batch", 1: S}, "logits": {0: "batch"}})


def verify_explainer(path: Path, cfg: TextConfig) -> None:
    """onnx.checker, then the contract: names, order, types, static and dynamic dims
    (a static S would mean the trace froze the example's length)."""
    shapes = {**input_shapes(cfg), **output_shapes(cfg)}
    problems, values = contract_problems(path, input_shapes(cfg), output_shapes(cfg))
    for v in values:
        want = onnx.TensorProto.INT64 if v.name == "input_ids" else onnx.TensorProto.FLOAT
        if v.type.tensor_type.elem_type != want:
            problems.append(f"{v.name} is not {'int64' if want == onnx.TensorProto.INT64 else 'float32'}")
        problems += [f"{v.name} axis {axis} is {got!r}, expected the dynamic S"
                     for axis, (got, expected) in enumerate(zip(_dims(v), shapes.get(v.name, [])))
                     if expected == S and not isinstance(got, str)]
    if problems:
        raise ExportCheckFailed(f"{path.name} breaks the text graph contract: " + "; ".join(problems))


def attribution_files(cfg: TextConfig, name: str) -> Dict[str, object]:
    """The attribution graphs' names (index.json's `attribution`); their weights are the
    shared file's (write_shared), which the Attribution panel thus downloads once."""
    return {"states": f"{name}.states.onnx", "blocks": [f"{name}.attr{b}.onnx" for b in range(cfg.depth)],
            "masked": f"{name}.masked.onnx", "weights": weights_file(name)}


def attribution_graphs(files: Dict[str, object]) -> List[str]:
    return [files["states"], *files["blocks"], files["masked"]]


def export_attribution(cfg: TextConfig, state_dict, out: Path, name: str) -> Dict[str, object]:
    """The states graph, one graph per layer and the head-masked forward into `out`, their
    weights inside until write_shared points them at the shared file (its `more`); returns
    attribution_files()."""
    files = attribution_files(cfg, name)
    paths = {f: out / f for f in attribution_graphs(files)}
    _export(TextStatesGraph(cfg, state_dict).eval(), (example_ids(cfg),), paths[files["states"]],
            STATES_TEXT_INPUTS, STATES_OUTPUTS, {"input_ids": {1: S}, "hidden": {1: S}})
    hidden = torch.randn(TRACE_TOKENS, cfg.embed_dim, generator=torch.Generator().manual_seed(0))
    alpha = torch.tensor([0.0, 0.5, 0.75])  # 3 copies while tracing: nothing specialised to m
    target = torch.zeros(cfg.num_classes)
    target[0] = 1.0
    for b, f in enumerate(files["blocks"]):
        _export(TextBlockAttribution(cfg, state_dict, b).eval(), (hidden, alpha, target), paths[f],
                BLOCK_INPUTS, BLOCK_OUTPUTS, {"hidden": {0: S}, "alpha": {0: STEPS}, "attn": {1: S, 2: S},
                                              "grad_sum": {1: S, 2: S}, "prob": {0: STEPS}})
    ids = example_ids(cfg).expand(2, -1).contiguous()
    _export(PlainText(cfg, state_dict).eval(), (ids, torch.ones(cfg.depth, cfg.heads)), paths[files["masked"]],
            MASKED_INPUTS, MASKED_OUTPUTS, {"input_ids": {0: "batch", 1: S}, "logits": {0: "batch"}})
    return files


def weights_file(name: str) -> str:
    return f"{name}.weights.bin"


def write_shared(out: Path, name: str, explainer: Path, plain: Path = None, own: Dict[str, Path] = None,
                 more: Sequence[Path] = ()) -> dict:
    """The family graphs (those in `own`, {family: exported file}, as exported; the others
    cut from the explainer file), then the explainer, the plain forward (when given), the
    families and the graph files in `more` (the attribution graphs) all pointed at
    <name>.weights.bin in `out` (each tensor stored once). Returns {"weights": file,
    "families": {family: file}} (index.json's `split` of a text model)."""
    explainer_model = onnx.load(str(explainer))
    families = build_families(explainer_model, {f: onnx.load(str(p)) for f, p in (own or {}).items()})
    files = family_files(name)
    models = {explainer: explainer_model, **({plain: onnx.load(str(plain))} if plain else {}),
              **{out / files[f]: m for f, m in families.items()}, **{p: onnx.load(str(p)) for p in more}}
    weights = weights_file(name)
    (out / weights).write_bytes(externalise(list(models.values()), weights))
    for path, model in models.items():
        onnx.save(model, str(path))
        onnx.checker.check_model(str(path))
    return {"weights": weights, "families": files}


FAMILY_PARITY = Path(__file__).with_name("family_parity.mjs")
REPO = Path(__file__).resolve().parents[3]
FAMILY_TOKENS = 24  # the check's text length (any S; within every model's positions)
# A cut family holds the explainer's own nodes for its outputs, but runs them unfused (the
# runtime opens the families with optimisation off, the explainer at the default level:
# runtime/session-options.js); the transformer_attribution family's own module forms its
# denominators from one product instead of two (a float32 rounding apart: 2.8e-7 on
# bert-mini-sst2-movies). Measured: up to 1.7e-6 of the largest value on the tests' random
# 2-layer BERT with both at the default level (4.2e-6 with weight prepacking), 1.9e-7 to
# 6.7e-7 on six random BERTs and DistilBERTs with the families unfused. About 25x the worst,
# and far below a wrong output (a doubled map is 1).
FAMILY_LIMIT = 1e-4


def verify_families(out: Path, name: str, cfg: TextConfig, shared: dict) -> Dict[str, float]:
    """Each family graph's contract (its outputs exactly its family's, its inputs among the
    explainer's) and its outputs against the explainer graph's on one text, two target
    rows, every switch 1. Returns {family: worst relative difference}."""
    problems = []
    for family, file in shared["families"].items():
        graph = onnx.load(str(out / file), load_external_data=False).graph
        outputs, inputs = [v.name for v in graph.output], [v.name for v in graph.input]
        if outputs != list(TEXT_FAMILIES[family]):
            problems.append(f"{file} has outputs {outputs}, expected {list(TEXT_FAMILIES[family])}")
        if not set(inputs) <= set(INPUT_NAMES) or "input_ids" not in inputs:
            problems.append(f"{file} has inputs {inputs}, expected input_ids and some of {INPUT_NAMES}")
    if problems:
        raise ExportCheckFailed("; ".join(problems))
    tokens = min(FAMILY_TOKENS, cfg.max_tokens)
    args = [str(out), name, shared["weights"], str(cfg.num_classes), str(cfg.vocab_size), str(tokens)]
    run = subprocess.run(["node", str(FAMILY_PARITY), *args, *shared["families"]], cwd=REPO, capture_output=True,
                         text=True)
    if run.returncode:
        last = (run.stderr.strip().splitlines() or ["no message"])[-1]
        raise ExportCheckFailed(f"could not run the family graphs against the explainer graph: {last}")
    report = json.loads(run.stdout)
    worst = {family: max(diffs.values()) for family, diffs in report.items()}
    bad = [f"{family} ({diff:.1e})" for family, diff in worst.items() if not diff <= FAMILY_LIMIT]
    if bad:
        raise ExportCheckFailed(f"the family graphs {', '.join(bad)} differ from the explainer graph's outputs "
                                f"(limit {FAMILY_LIMIT:g} of the largest value): not written")
    return worst
