"""`export.py --source FOLDER` for a text classifier folder: read it (layout.py), print the
layout, export the explainer graph (and with --plain the forward graph, with --attribution
the attribution graphs) into a scratch folder beside OUT, check the contract and the
parity, then move the files, the vocabulary, the metadata and the index entry into OUT.
Skipped when the stamp shows the same folder files, options and exporter (cache.py)."""
import json
import os
import shutil
import tempfile
import time
from pathlib import Path

from .. import cache
from ..checkpoints import sha256_file
from ..clock import StageClock
from ..errors import ExportUserError
from ..folder_check import check_folder
from ..layouts.files import folder_weights
from ..metadata import check_name
from ..model_index import index_entry, put_entry, read_models

# read beside the weights when present (their hashes go into the stamp)
FOLDER_FILES = ("config.json", "tokenizer_config.json", "vocab.txt")
# image-only options of export.py, refused for a text model (one sentence)
IMAGE_OPTIONS = ("heads", "eps", "act", "mean", "std", "crop_pct", "interpolation")


def wanted_files(args, name: str, depth: int = 0):
    """The files an export with these options writes (the attribution graphs' per-layer
    files are known once the layer count is)."""
    from .families import family_files
    files = [f"{name}.onnx", f"{name}.vocab.txt", f"{name}.weights.bin", *family_files(name).values()]
    files += [f"{name}.forward.onnx"] if args.plain else []
    if args.attribution:
        files += [f"{name}.states.onnx", f"{name}.masked.onnx"]  # over the shared weights file
        files += [f"{name}.attr{b}.onnx" for b in range(depth)]
    return files


def export_text(args, source: Path, out: Path, started: float) -> int:
    for option in IMAGE_OPTIONS:
        if getattr(args, option, None) is not None:
            raise ExportUserError(f"--{option.replace('_', '-')} applies to image models; {source} is a text model")
    name = check_name(args.name or source.name, "--name" if args.name else "the source's name (pass --name)")
    read_models(out)  # an index.json that is not one is refused before the work
    labels = Path(args.labels).resolve() if args.labels else None
    if labels and not labels.is_file():
        raise ExportUserError(f"labels file {labels} not found")
    weights = folder_weights(source)
    stamp = cache.read_stamp(cache.stamp_path(out, name))
    expected = {
        "exporter_version": cache.exporter_version(),
        "checkpoint_sha256": cache.checkpoint_sha256(weights, stamp),
        "configs_sha256": {f: sha256_file(source / f) for f in FOLDER_FILES if (source / f).is_file()},
        "labels_sha256": labels and sha256_file(labels),
        "settings": {"name": name, "kind": "text"},
    }
    stamped = (stamp or {}).get("files", {})
    if cache.is_up_to_date(stamp, out, expected) and not args.force \
            and all(f in stamped for f in wanted_files(args, name)) \
            and (not args.attribution or f"{name}.attr0.onnx" in stamped):
        print(f"{name}: up to date ({out / (name + '.onnx')})")
        return 0

    from .layout import describe, read_text_folder

    checkpoint = read_text_folder(source, name, labels)
    print(describe(checkpoint), flush=True)
    created = not out.exists()
    out.mkdir(parents=True, exist_ok=True)
    total = StageClock()  # the export's CPU time: the wall time depends on the machine's load
    try:
        written = write_text_model(args, out, checkpoint, expected, weights)
    except BaseException:
        if created and not any(out.iterdir()):
            out.rmdir()  # a refused export leaves no folder behind
        raise
    files = {f: (out / f).stat().st_size for f in written}
    record = cache.checkpoint_record(weights, expected["checkpoint_sha256"])
    cache.write_stamp(cache.stamp_path(out, name), {**expected, "files": files, "checkpoint": record})
    print(f"{name}: wrote {out / (name + '.onnx')} ({files[name + '.onnx'] / 1e6:.1f} MB) and "
          f"{len(written) - 1} more files in {time.time() - started:.1f} s ({total})")
    return 0


def write_text_model(args, out: Path, checkpoint, expected: dict, weights: Path):
    """The graphs into a scratch folder, checked, then moved into OUT with the vocabulary,
    the metadata and the index entry; returns the file names written."""
    from ..onnx_export import check_size_ratio
    from ..shapes import annotate_all as annotate_shapes
    from .explainer import build_text_explainer, build_text_plain
    from .graphs import (attribution_graphs, export_attribution, export_explainer, export_own_families, export_plain,
                         verify_explainer, verify_families, write_shared)
    from .metadata import build_text_metadata
    from .parity import LIMIT, check_parity

    cfg, name = checkpoint.cfg, checkpoint.cfg.name
    onnx_file, json_file, vocab_file, forward_file = (f"{name}.onnx", f"{name}.json", f"{name}.vocab.txt",
                                                      f"{name}.forward.onnx")
    with tempfile.TemporaryDirectory(dir=out, prefix=f".{name}.") as tmp:
        tmp = Path(tmp)
        clock = StageClock()
        export_explainer(build_text_explainer(cfg, checkpoint.state_dict), cfg, tmp / onnx_file)
        verify_explainer(tmp / onnx_file, cfg)
        export_plain(build_text_plain(cfg, checkpoint.state_dict), cfg, tmp / forward_file)
        ratio = check_size_ratio(tmp / onnx_file, tmp / forward_file, cfg.depth)
        print(f"  built the explainer ({ratio:.3f}x the plain forward graph) and the forward graph: {clock}",
              flush=True)
        clock = StageClock()
        difference = check_parity(cfg, checkpoint.state_dict, checkpoint.tokenizer, tmp / onnx_file)
        print(f"{name}: parity: the graph's logits are within {difference:.1e} relative of the PyTorch "
              f"forward (limit {LIMIT:g}; {clock})", flush=True)
        clock = StageClock()
        attribution = None
        if args.attribution:
            attribution = export_attribution(cfg, checkpoint.state_dict, tmp, name)
            print(f"  built the attribution graphs: {clock}", flush=True)
            clock = StageClock()
        own = export_own_families(cfg, checkpoint.state_dict, tmp, name)
        more = [tmp / f for f in attribution_graphs(attribution)] if attribution else []
        shared = write_shared(tmp, name, tmp / onnx_file, tmp / forward_file if args.plain else None, own, more)
        # Every graph is traced whole: its shapes written in, or onnxruntime's memory planner
        # opens it in a time that grows with the square of its values of unknown shape.
        annotate_shapes([tmp / onnx_file, *([tmp / forward_file] if args.plain else []),
                         *(tmp / f for f in shared["families"].values()), *more])
        worst = verify_families(tmp, name, cfg, shared)
        print(f"  wrote the family graphs {', '.join(shared['families'])}{' and the attribution graphs' * bool(more)} "
              f"over {shared['weights']}; the families' outputs are within {max(worst.values()):.1e} of the explainer "
              f"graph's ({clock})", flush=True)
        shutil.copyfile(checkpoint.vocab, tmp / vocab_file)
        meta = build_text_metadata(cfg, checkpoint.labels, checkpoint.tokenizer,
                                   {"onnx": onnx_file, "vocab": vocab_file}, weights.name,
                                   expected["checkpoint_sha256"], expected["exporter_version"])
        # standard JSON only: a NaN or an infinity in the metadata is a bug caught here
        (tmp / json_file).write_text(json.dumps(meta, indent=1, allow_nan=False) + "\n")
        entry = index_entry(tmp, name, onnx_file, json_file, forward_file if args.plain else None, shared,
                            attribution, vocab=vocab_file)
        # The scratch folder, with an index of its own, is a model folder: the runtime opens
        # and explains it before anything of it replaces what OUT holds (as for images).
        put_entry(tmp, entry)
        clock = StageClock()
        ran = check_folder(tmp)
        print(f"{name}: the runtime opened the folder and explained class {ran['class']} with "
              f"{len(ran['methods'])} methods ({clock})", flush=True)
        written = wanted_files(args, name, cfg.depth) + [json_file]
        for f in written:
            os.replace(tmp / f, out / f)
        # the attribution graphs' own weights file of earlier exports, now in <name>.weights.bin
        (out / f"{name}.attribution.bin").unlink(missing_ok=True)
        put_entry(out, entry)
    return written
