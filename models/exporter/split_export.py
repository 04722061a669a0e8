"""The page's graphs (split.py, families.py) written beside the explainer graph:
<name>.photo.onnx and the class graph <name>.target.onnx (its file keeps the graph input's
name: a file format), <name>.<family>.onnx per method family, and the explainer graph and
the plain forward graph again as <name>.graph.onnx and <name>.logits.onnx, all reading
their weights from one file, <name>.weights.bin (ONNX external data, each tensor once), so
a page that opens them all downloads the weights once.
"""
import hashlib
from pathlib import Path
from typing import Dict, List, Tuple

import onnx
from onnx import numpy_helper

from .config import ViTConfig
from .exported_graphs import explainer_model, split_models
from .families import FAMILIES, SWITCHED_FAMILY
from .params import ViTParams
from .scan_graph import is_weight
from .split import CACHE_PREFIX

ALIGN = 64  # byte alignment of each tensor in the weights file


def externalise(models: List[onnx.ModelProto], weights_name: str) -> bytes:
    """Moves the weights of the models (every initializer is_weight names) into one blob
    (identical tensors stored once) and points the initializers at it; the small constants
    stay in each graph. Returns the blob."""
    blob = bytearray()
    offsets: Dict[str, Tuple[int, int]] = {}
    for model in models:
        for init in filter(is_weight, model.graph.initializer):
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


def split_files(name: str) -> Dict[str, object]:
    return {"photo": f"{name}.photo.onnx", "target": f"{name}.target.onnx", "weights": f"{name}.weights.bin",
            "families": {family: f"{name}.{family}.onnx" for family in FAMILIES}}


def export_split(cfg: ViTConfig, state_dict, out: Path, name: str, final_ln_eps=None,
                 single: Path = None, plain: Path = None) -> Dict[str, object]:
    """Writes <name>.photo.onnx, <name>.target.onnx (the class graph), <name>.<family>.onnx
    for each family and <name>.weights.bin into `out`; with `single` (an exported explainer
    graph) <name>.graph.onnx, and with `plain` (an exported plain forward graph)
    <name>.logits.onnx: those graphs reading their weights from the shared file too (the
    logits graph is the smallest ONNX session to open: the page is ready with it). Returns
    {"photo", "target", "weights"[, "graph"][, "forward"]: file names, "families": {family:
    file name}, "cache": the cache names}."""
    params = ViTParams(cfg, state_dict)
    files = split_files(name)
    families = files.pop("families")
    photo, class_graph = split_models(cfg, params, final_ln_eps)
    models = {"photo": photo, "target": class_graph}
    if single is not None:
        files["graph"] = f"{name}.graph.onnx"
        models["graph"] = onnx.load(str(single))
    if plain is not None:
        files["forward"] = f"{name}.logits.onnx"
        models["forward"] = onnx.load(str(plain))
    family_models = {families[f]: explainer_model(cfg, params, passes, final_ln_eps, switched=f == SWITCHED_FAMILY)
                     for f, passes in FAMILIES.items()}
    (out / files["weights"]).write_bytes(externalise([*models.values(), *family_models.values()], files["weights"]))
    for key, model in models.items():
        onnx.save(model, str(out / files[key]))
    for f, model in family_models.items():
        onnx.save(model, str(out / f))
    cache = [i.name for i in class_graph.graph.input if i.name.startswith(CACHE_PREFIX)]
    return {**files, "families": families, "cache": cache}
