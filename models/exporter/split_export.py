"""Export of the split explainer (split.py): <name>.photo.onnx and the class graph,
<name>.target.onnx (its file keeps the graph input's name: a file format), whose
weights live once in <name>.weights.bin, which both graphs reference as ONNX external data,
and the graphs per method family (families.py), <name>.<family>.onnx, reading the same file.

Only the cache tensors ClassGraph reads are kept: its unused inputs are dropped, and the
PhotoGraph outputs (and the nodes that only fed them) with them.
"""
import hashlib
from functools import partial
from pathlib import Path
from typing import Callable, Dict, List, Tuple

import onnx
import torch
from onnx import numpy_helper

from .config import ViTConfig
from .families import FAMILIES, build_family
from .graph_cleanup import drop_dead_nodes
from .metadata import K
from .onnx_export import OPSET
from .split import CACHE_PREFIX, CLASS_INPUTS_AFTER_CACHE, CLASS_OUTPUTS, PHOTO_OUTPUTS, build_split
from .trace_workers import TraceWorkers

ALIGN = 64  # byte alignment of each tensor in the weights file


def _cache_names(names: List[str]) -> List[str]:
    return [CACHE_PREFIX + n for n in names]


def _prune_unused_inputs(model: onnx.ModelProto) -> List[str]:
    graph = model.graph
    read = {i for n in graph.node for i in n.input}
    unused = [i for i in graph.input if i.name.startswith(CACHE_PREFIX) and i.name not in read]
    for i in unused:
        graph.input.remove(i)
    return [i.name for i in unused]


def externalise(models: List[onnx.ModelProto], weights_name: str) -> bytes:
    """Moves every initializer of the models into one blob (identical tensors stored once)
    and points the initializers at it. Returns the blob."""
    blob = bytearray()
    offsets: Dict[str, Tuple[int, int]] = {}
    for model in models:
        for init in model.graph.initializer:
            data = numpy_helper.to_array(init).tobytes()
            key = hashlib.sha256(data + str(list(init.dims)).encode() + str(init.data_type).encode()).hexdigest()
            if key not in offsets:
                blob.extend(b"\0" * (-len(blob) % ALIGN))
                offsets[key] = (len(blob), len(data))
                blob.extend(data)
            offset, length = offsets[key]
            init.ClearField("raw_data")
            for field in ("float_data", "int32_data", "int64_data", "double_data"):
                init.ClearField(field)
            init.data_location = onnx.TensorProto.EXTERNAL
            del init.external_data[:]
            for k, v in (("location", weights_name), ("offset", str(offset)), ("length", str(length))):
                entry = init.external_data.add()
                entry.key, entry.value = k, v
    return bytes(blob)


def trace_family(cfg: ViTConfig, state_dict, path: Path, family: str, final_ln_eps=None) -> None:
    """One family graph (families.py), traced as export_explainer traces the whole one."""
    switches, outputs = FAMILIES[family]
    h, w = cfg.image_size
    pixels = torch.randn(1, 3, h, w)
    rows = torch.zeros(2, cfg.num_classes)  # K = 2 target rows while tracing (no op specialised to K = 1)
    rows[0, 0] = 1.0
    dynamic = {n: {0: K} for n in ["target"] + outputs if n not in ("logits", "attn")}
    with torch.no_grad():
        torch.onnx.export(build_family(cfg, state_dict, family, final_ln_eps),
                          (pixels, rows, *[torch.tensor(1.0)] * len(switches)), str(path), opset_version=OPSET,
                          input_names=["pixels", "target", *switches], output_names=outputs,
                          dynamic_axes=dynamic, do_constant_folding=False)


def _example_inputs(cfg: ViTConfig):
    """pixels, K = 2 target rows (no op specialised to K = 1) and every switch on."""
    h, w = cfg.image_size
    rows = torch.zeros(2, cfg.num_classes)
    rows[0, 0] = 1.0
    return torch.randn(1, 3, h, w), rows, [torch.tensor(1.0)] * 3  # pixel, attnlrp, cp_lrp relevance


def trace_photo(cfg: ViTConfig, state_dict, path: Path, final_ln_eps=None) -> None:
    photo, _, names = build_split(cfg, state_dict, final_ln_eps)
    pixels, _, _ = _example_inputs(cfg)
    with torch.no_grad():
        torch.onnx.export(photo, (pixels,), str(path), opset_version=OPSET,
                          input_names=["pixels"], output_names=PHOTO_OUTPUTS + _cache_names(names),
                          do_constant_folding=False)


def trace_class(cfg: ViTConfig, state_dict, path: Path, final_ln_eps=None) -> None:
    """The class graph, traced on the photo graph's outputs for a random photo."""
    photo, class_graph, names = build_split(cfg, state_dict, final_ln_eps)
    pixels, rows, switches = _example_inputs(cfg)
    dynamic = {n: {0: K} for n in CLASS_OUTPUTS}
    dynamic["target"] = {0: K}
    with torch.no_grad():
        torch.onnx.export(class_graph, (*photo(pixels), rows, *switches), str(path), opset_version=OPSET,
                          input_names=PHOTO_OUTPUTS + _cache_names(names) + CLASS_INPUTS_AFTER_CACHE,
                          output_names=CLASS_OUTPUTS, dynamic_axes=dynamic, do_constant_folding=False)


def _traced(out: Path, file: str) -> Path:
    return out / (file + ".tmp")


def split_files(name: str) -> Dict[str, object]:
    return {"photo": f"{name}.photo.onnx", "target": f"{name}.target.onnx", "weights": f"{name}.weights.bin",
            "families": {family: f"{name}.{family}.onnx" for family in FAMILIES}}


def split_traces(cfg: ViTConfig, out: Path, name: str, final_ln_eps=None) -> Dict[Path, Callable]:
    """The conversions export_split needs, {file in `out`: trace} (trace_workers), largest first."""
    files = split_files(name)
    families = {family: partial(trace_family, family=family, final_ln_eps=final_ln_eps)
                for family in FAMILIES}
    return {_traced(out, files["families"]["transformer_attribution"]): families.pop("transformer_attribution"),
            _traced(out, files["target"]): partial(trace_class, final_ln_eps=final_ln_eps),
            _traced(out, files["photo"]): partial(trace_photo, final_ln_eps=final_ln_eps),
            **{_traced(out, files["families"][f]): trace for f, trace in families.items()}}


def _load_traced(path: Path) -> onnx.ModelProto:
    model = onnx.load(str(path))
    path.unlink()
    return model


def export_split(cfg: ViTConfig, state_dict, out: Path, name: str, final_ln_eps=None,
                 single: Path = None, plain: Path = None) -> Dict[str, object]:
    """split_traces here, one after the other, then assemble_split."""
    with TraceWorkers(cfg, state_dict, workers=1) as workers:
        workers.start(split_traces(cfg, out, name, final_ln_eps))
    return assemble_split(out, name, single, plain)


def assemble_split(out: Path, name: str, single: Path = None, plain: Path = None) -> Dict[str, object]:
    """From the files split_traces wrote into `out`: writes <name>.photo.onnx,
    <name>.target.onnx (the class graph), <name>.<family>.onnx for each family
    and <name>.weights.bin into `out`; with
    `single` (an exported single explainer graph) <name>.graph.onnx, and with `plain` (an
    exported plain forward graph) <name>.logits.onnx: those graphs reading their weights
    from the shared file too, so a page that runs them all reads the weights once (the
    logits graph is the smallest ONNX session to open: the page is ready with it).
    Returns {"photo", "target", "weights"[, "graph"][, "forward"]: file names,
    "families": {family: file name}, "cache": kept cache input names}."""
    files = split_files(name)
    families = files.pop("families")
    photo_model, class_model = _load_traced(_traced(out, files["photo"])), _load_traced(_traced(out, files["target"]))

    # torch may already have dropped inputs it saw unused; keep the two lists in step
    _prune_unused_inputs(class_model)
    kept = {i.name for i in class_model.graph.input}
    for o in [o for o in photo_model.graph.output if o.name.startswith(CACHE_PREFIX) and o.name not in kept]:
        photo_model.graph.output.remove(o)
    drop_dead_nodes(photo_model.graph)

    models = {"photo": photo_model, "target": class_model}
    if single is not None:
        files["graph"] = f"{name}.graph.onnx"
        models["graph"] = onnx.load(str(single))
    if plain is not None:
        files["forward"] = f"{name}.logits.onnx"
        models["forward"] = onnx.load(str(plain))
    family_models = {f: _load_traced(_traced(out, f)) for f in families.values()}
    blob = externalise([*models.values(), *family_models.values()], files["weights"])
    (out / files["weights"]).write_bytes(blob)
    for key, model in models.items():
        onnx.save(model, str(out / files[key]))
    for f, model in family_models.items():
        onnx.save(model, str(out / f))
    cache_inputs = [i.name for i in class_model.graph.input if i.name.startswith(CACHE_PREFIX)]
    return {**files, "families": families, "cache": cache_inputs}
