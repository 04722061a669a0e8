#!/usr/bin/env python3
"""Export a ViT/DeiT checkpoint to the explainer graph + metadata (docs/architecture.md).

  /usr/bin/python3 models/export.py --model deit_tiny_patch16_224 [--checkpoint-dir DIR]
      [--checkpoint FILE] [--labels synset_words.txt] [--out build/models] [--plain] [--split]
      [--attribution] [--force]
  /usr/bin/python3 models/export.py --source CHECKPOINT --out DIR [--name NAME] [--labels FILE]
      [--heads N] [--eps E] [--act gelu|gelu_tanh|quickgelu] [--mean m,m,m --std s,s,s]
      [--crop-pct P] [--interpolation bicubic|bilinear] [--plain] [--split] [--attribution]

--source takes any timm, Hugging Face or torchvision ViT checkpoint (a file or a folder,
models/exporter/layouts), or a Hugging Face BERT/DistilBERT sequence classifier folder
(models/exporter/text), and checks the graph against a PyTorch forward before writing.

Writes OUT/<name>.onnx, OUT/<name>.json, updates OUT/index.json, and with --plain also
OUT/<name>.forward.onnx (logits only), with --split the page's graphs (.graph.onnx, .photo.onnx,
.target.onnx and one per method family sharing .weights.bin), with --attribution the Self-Attention Attribution graphs.
Skips the export when OUT/<name>.stamp.json shows
the checkpoint, the labels and the exporter's sources are unchanged. See models/README.md.
"""
import argparse
import json
import math
import os
import signal
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from models.exporter import cache  # noqa: E402  (needs the path above)
from models.exporter.architectures import (KNOWN_MODELS, check_state_dict,  # noqa: E402
                                           default_preprocess, infer_config, known_model)
from models.exporter.checkpoints import (checkpoint_dir, load_state_dict,  # noqa: E402
                                         locate_or_download, sha256_file)
from models.exporter.clock import StageClock  # noqa: E402
from models.exporter.errors import CheckpointMissing, ExportUserError  # noqa: E402
from models.exporter.families import FAMILIES  # noqa: E402
from models.exporter.metadata import build_metadata, check_name, read_synset_words  # noqa: E402
from models.exporter.model_index import index_entry, put_entry, read_models  # noqa: E402
from models.exporter.out_folder import check_room, prepare_out, remove_if_made  # noqa: E402


def default_labels() -> Path:
    shared = Path(os.environ.get("VITREL_SHARED_DIR", REPO_ROOT.parent / "shared"))
    return (REPO_ROOT / shared / "imagenet" / "synset_words.txt").resolve()


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="models/export.py", description=__doc__.split("\n\n")[0],
        epilog="known models: " + ", ".join(KNOWN_MODELS))
    p.add_argument("--model", help="a known model name, or any name with --checkpoint")
    p.add_argument("--source", help="a timm, Hugging Face or torchvision checkpoint: a file or a folder")
    p.add_argument("--name", help="the model's name with --source (default: the file or folder name)")
    p.add_argument("--eps", type=_positive, help="LayerNorm eps with --source, where the library's default differs")
    p.add_argument("--act", choices=["gelu", "gelu_tanh", "quickgelu"], help="MLP activation with --source")
    p.add_argument("--mean", type=_triple, help="normalisation mean m,m,m with --source")
    p.add_argument("--std", type=_positive_triple, help="normalisation std s,s,s with --source")
    p.add_argument("--crop-pct", type=_fraction, help="centre-crop fraction with --source (resize = size / P)")
    p.add_argument("--interpolation", choices=["bicubic", "bilinear"], help="resize filter with --source")
    p.add_argument("--checkpoint-dir", help="where checkpoints are (default $VITREL_CHECKPOINT_DIR, "
                                            "else models/checkpoints)")
    p.add_argument("--checkpoint", help="an explicit checkpoint file (the architecture of an "
                                        "unknown model is inferred from its shapes)")
    p.add_argument("--checkpoint-url", help="download address instead of the official one")
    p.add_argument("--no-download", action="store_true", help="never download a missing checkpoint")
    p.add_argument("--heads", type=_count,
                   help="attention heads, where no config gives them and the shapes are none of the library's "
                        "published architectures (the parity check cannot tell a wrong count)")
    p.add_argument("--labels", default=None, help="synset_words.txt (default ../shared/imagenet/synset_words.txt); "
                                                  "with --source one class name per line")
    p.add_argument("--out", default=str(REPO_ROOT / "build" / "models"), help="output folder")
    p.add_argument("--plain", action="store_true", help="also write <name>.forward.onnx (logits only)")
    p.add_argument("--split", action="store_true",
                   help="also write the page's graphs: <name>.graph.onnx, .photo.onnx, .target.onnx and "
                        "one per method family (.transformer_attribution.onnx, .attnlrp.onnx) sharing "
                        "<name>.weights.bin (models/exporter/split.py, families.py)")
    p.add_argument("--attribution", action="store_true",
                   help="also write the Self-Attention Attribution graphs: <name>.states.onnx, "
                        "<name>.attr<b>.onnx per block and <name>.masked.onnx (head mask), reading "
                        "<name>.weights.bin with --split (and a text model's always), else "
                        "<name>.attribution.bin (models/exporter/attribution.py)")
    p.add_argument("--force", action="store_true", help="export even if the stamp says up to date")
    args = p.parse_args(argv)
    if bool(args.model) == bool(args.source):
        p.error("give either --model or --source")
    return args


def _triple(text: str):
    try:
        values = tuple(float(v) for v in text.split(","))
    except ValueError:
        values = ()
    if len(values) != 3 or not all(math.isfinite(v) for v in values):
        raise argparse.ArgumentTypeError(f"expected three finite numbers m,m,m, got {text!r}")
    return values


def _positive_triple(text: str):
    values = _triple(text)
    if not all(v > 0 for v in values):
        raise argparse.ArgumentTypeError(f"expected three numbers > 0, got {text!r}")
    return values


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"expected a finite number > 0, got {text!r}")
    return value


def _fraction(text: str) -> float:
    value = _positive(text)
    if value > 1:
        raise argparse.ArgumentTypeError(f"expected a fraction in (0, 1], got {text!r}")
    return value


def _count(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return int(text)


def resolve_checkpoint(args):
    """(path, KnownModel or None). Unknown names need --checkpoint."""
    known = KNOWN_MODELS.get(args.model)
    if known is None and not args.checkpoint:
        known_model(args.model)  # raises UnknownModel, listing the known names
    if args.checkpoint:
        path = Path(args.checkpoint).resolve()
        if not path.is_file():
            raise CheckpointMissing(f"checkpoint file {path} does not exist")
        return path, known
    url = args.checkpoint_url or known.url
    return locate_or_download(args.model, checkpoint_dir(args.checkpoint_dir), url,
                              allow_download=not args.no_download), known


def export(args) -> int:
    if args.source:
        return export_source(args)
    out = Path(args.out).resolve()
    name = check_name(args.model, "--model")
    prepare_out(out)
    read_models(out)  # an index.json that is not one is refused before the work
    ckpt, known = resolve_checkpoint(args)
    labels_path = Path(args.labels).resolve() if args.labels else default_labels()
    if not labels_path.is_file():
        raise ExportUserError(f"labels file {labels_path} not found (pass --labels synset_words.txt)")

    stamp_file = cache.stamp_path(out, name)
    stamp = cache.read_stamp(stamp_file)
    expected = {
        "exporter_version": cache.exporter_version(),
        "checkpoint_sha256": cache.checkpoint_sha256(ckpt, stamp),
        "labels_sha256": sha256_file(labels_path),
        "settings": {"model": name, "heads": args.heads, "known": known is not None},
    }
    fresh = cache.is_up_to_date(stamp, out, expected)
    stamped = stamp.get("files", {}) if stamp else {}
    if fresh and all(f in stamped for f in wanted_files(args, name)) and not args.force:
        print(f"{name}: up to date ({out / (name + '.onnx')})")
        return 0

    started = time.time()
    state_dict = load_state_dict(ckpt)
    if known:
        cfg, preprocess = known.config, known.preprocess
    else:
        cfg = infer_config(state_dict, name, args.heads)
        preprocess = default_preprocess(cfg)
        print(f"{name}: not in the table; inferred {cfg} and DeiT-style preprocessing {preprocess}")
    check_state_dict(cfg, state_dict)
    check_room(out, state_dict)
    labels = read_synset_words(labels_path)
    # Fails before the slow part when the labels do not fit.
    meta = build_metadata(cfg, preprocess, labels, f"{name}.onnx", ckpt.name,
                          expected["checkpoint_sha256"], expected["exporter_version"])
    write_model(args, out, cfg, state_dict, meta, started,
                lambda written: {**expected, "files": written,
                                 "checkpoint": cache.checkpoint_record(ckpt, expected["checkpoint_sha256"])})
    return 0


def wanted_files(args, name: str):
    """The files an export with these options writes besides the explainer and metadata."""
    files = [f"{name}.onnx"] + ([f"{name}.forward.onnx"] if args.plain else [])
    if args.split:
        files += [f"{name}.{part}" for part in ("graph.onnx", "photo.onnx", "target.onnx", "logits.onnx",
                                                "weights.bin")]
        files += [f"{name}.{family}.onnx" for family in FAMILIES]
    if args.attribution:  # with the split graphs, over their weights file (shared_weights.py)
        parts = ("states.onnx", "masked.onnx", *([] if args.split else ["attribution.bin"]))
        files += [f"{name}.{part}" for part in parts]
    return files


def export_source(args) -> int:
    """Any timm, Hugging Face or torchvision checkpoint (models/exporter/layouts): read it,
    print the layout it has, export, check parity, write. Skipped, as the built-in export
    is, when the stamp shows the same checkpoint files, labels, options and exporter."""
    out = Path(args.out).resolve()
    created = prepare_out(out)
    try:
        return _export_source(args, out)
    except BaseException:
        remove_if_made(out, created)  # a refused export leaves no folder behind
        raise


def _export_source(args, out: Path) -> int:
    from models.exporter.layouts import Options, describe, read_source, source_files, source_name

    started = time.time()
    options = Options(name=args.name, heads=args.heads, eps=args.eps, act=args.act, mean=args.mean,
                      std=args.std, crop_pct=args.crop_pct, interpolation=args.interpolation,
                      labels=Path(args.labels).resolve() if args.labels else None)
    if options.labels and not options.labels.is_file():
        raise ExportUserError(f"labels file {options.labels} not found")
    source = Path(args.source).resolve()
    if not source.exists():
        raise CheckpointMissing(f"{source} does not exist")
    if source.is_dir() and is_text_folder(source):  # BERT-family text classifiers
        from models.exporter.text.export import export_text
        return export_text(args, source, out, started)
    name = check_name(source_name(source, options), "--name" if args.name else "the source's name (pass --name)")
    read_models(out)  # an index.json that is not one is refused before the work
    stamp = cache.read_stamp(cache.stamp_path(out, name))
    weights, *configs = source_files(source)
    expected = {
        "exporter_version": cache.exporter_version(),
        "checkpoint_sha256": cache.checkpoint_sha256(weights, stamp),
        "configs_sha256": {f.name: sha256_file(f) for f in configs},
        "labels_sha256": options.labels and sha256_file(options.labels),
        "settings": {k: v for k, v in vars(options).items() if k != "labels"},  # the path may move
    }
    stamped = stamp.get("files", {}) if stamp else {}
    if cache.is_up_to_date(stamp, out, json.loads(json.dumps(expected))) and not args.force \
            and all(f in stamped for f in wanted_files(args, name)):
        print(f"{name}: up to date ({out / (name + '.onnx')})")
        return 0

    checkpoint = read_source(source, options)
    print(describe(checkpoint), flush=True)
    cfg = checkpoint.cfg
    meta = build_metadata(cfg, checkpoint.preprocess, checkpoint.labels, f"{cfg.name}.onnx", source.name,
                          expected["checkpoint_sha256"], expected["exporter_version"])
    check_room(out, checkpoint.state_dict)
    write_model(args, out, cfg, checkpoint.state_dict, meta, started,
                lambda written: {**expected, "files": written,
                                 "checkpoint": cache.checkpoint_record(weights, expected["checkpoint_sha256"])},
                parity=True)
    return 0


def is_text_folder(folder: Path) -> bool:
    """A Hugging Face folder of a text model (supported or not: text/layout.py says which)."""
    from models.exporter.layouts.files import read_json
    from models.exporter.text.layout import text_model_type

    return text_model_type(read_json(folder / "config.json")) is not None


def write_model(args, out: Path, cfg, state_dict, meta: dict, started: float, stamp=None,
                parity: bool = False) -> None:
    """Export the graphs the options ask for into a scratch folder beside OUT, check them,
    then move them, the metadata and the index entry into OUT. stamp(files) -> the stamp."""
    from models.exporter.attribution_export import assemble_attribution, attribution_traces
    from models.exporter.explainer import build_explainer, build_plain
    from models.exporter.folder_check import check_folder
    from models.exporter.graph_cleanup import clean_files
    from models.exporter.onnx_export import check_size_ratio, export_explainer, export_plain, verify_explainer
    from models.exporter.shapes import annotate_all as annotate_shapes
    from models.exporter.shared_weights import point_at
    from models.exporter.split_export import export_split
    from models.exporter.trace_workers import TraceWorkers

    name = cfg.name
    onnx_file, json_file, forward_file = f"{name}.onnx", f"{name}.json", f"{name}.forward.onnx"
    with tempfile.TemporaryDirectory(dir=out, prefix=f".{name}.") as tmp:
        tmp = Path(tmp)
        # The attribution graphs are still traced whole by torch.onnx (slow: in worker
        # processes, started first); the others are built block by block in seconds.
        traces = attribution_traces(cfg, tmp, name) if args.attribution else {}
        with TraceWorkers(cfg, state_dict, workers=None if traces else 1) as workers:
            if traces:
                print(f"{name}: converting {len(traces)} attribution graphs to ONNX on {workers.workers} "
                      f"processes", flush=True)
                workers.start(traces)
            stage = StageClock()
            export_explainer(build_explainer(cfg, state_dict), cfg, tmp / onnx_file)
            export_plain(build_plain(cfg, state_dict), cfg, tmp / forward_file)
            verify_explainer(tmp / onnx_file, cfg)
            ratio = check_size_ratio(tmp / onnx_file, tmp / forward_file, cfg.depth if parity else 0)
            print(f"  built the explainer and plain forward graphs: {stage}", flush=True)
            if parity:
                from models.exporter.parity import LIMIT, check_parity
                stage = StageClock()
                difference = check_parity(cfg, state_dict, tmp / onnx_file)
                print(f"{name}: parity: the graph's logits are within {difference:.1e} relative of the "
                      f"PyTorch forward (limit {LIMIT:g}; {stage})", flush=True)
            split = None
            if args.split:
                stage = StageClock()
                split = export_split(cfg, state_dict, tmp, name, single=tmp / onnx_file, plain=tmp / forward_file)
                print(f"  built the page's graphs: {stage}", flush=True)
            workers.wait_all()
        attribution = assemble_attribution(cfg, tmp, name) if args.attribution else None
        # Only verified files replace the previous ones.
        attribution_parts = ("states.onnx", "masked.onnx", "attribution.bin")
        written = [f for f in wanted_files(args, name) if not f.endswith(attribution_parts)]
        if attribution:
            written += [attribution["states"], attribution["masked"], *attribution["blocks"]]
            # the traced graphs: every value's shape written in, then cleaned (quicker sessions)
            graphs = [tmp / f for f in [attribution["states"], attribution["masked"], *attribution["blocks"]]]
            print(f"{name}: writing the attribution graphs' shapes and cleaning them", flush=True)
            stage = StageClock()
            annotate_shapes(graphs)
            clean_files(graphs)
            print(f"  shapes and cleanup: {stage}", flush=True)
            # With the split graphs they read the page's weights file, which holds every tensor
            # of theirs: the Attribution panel downloads nothing more, the folder is 23 MB smaller.
            sharing = [tmp / split[k] for k in ("graph", "photo", "target", "forward") if split and split.get(k)]
            sharing += [tmp / f for f in (split or {}).get("families", {}).values()]
            if split and point_at(graphs, tmp / attribution["weights"], tmp / split["weights"], sharing):
                (tmp / attribution["weights"]).unlink()
                attribution = {**attribution, "weights": split["weights"]}
            else:
                written.append(attribution["weights"])
        # standard JSON only: a NaN or an infinity in the metadata is a bug caught here
        (tmp / json_file).write_text(json.dumps(meta, indent=1, allow_nan=False) + "\n")
        written.append(json_file)
        entry = index_entry(tmp, name, onnx_file, json_file, forward_file if args.plain else None,
                            split and {k: split[k] for k in ("graph", "photo", "target", "forward", "weights",
                                                             "families")},
                            attribution)
        # The scratch folder, with an index of its own, is a model folder: the runtime opens
        # and explains it before anything of it replaces what OUT holds.
        put_entry(tmp, entry)
        stage = StageClock()
        ran = check_folder(tmp)
        print(f"{name}: the runtime opened the folder and explained class {ran['class']} with "
              f"{len(ran['methods'])} methods ({stage})", flush=True)
        for f in written:
            os.replace(tmp / f, out / f)
        if attribution and split and attribution["weights"] == split["weights"]:
            (out / f"{name}.attribution.bin").unlink(missing_ok=True)  # an earlier export's, now in weights.bin
        put_entry(out, entry)
    if stamp:
        files = {f: (out / f).stat().st_size for f in written}
        cache.write_stamp(cache.stamp_path(out, name), stamp(files))
    print(f"{name}: wrote {out / onnx_file} ({entry['bytes'] / 1e6:.1f} MB, {ratio:.3f}x the plain "
          f"forward graph), {json_file}, index.json in {time.time() - started:.1f} s")


def main(argv=None) -> int:
    args = parse_args(argv)
    # SIGTERM as Ctrl-C: the scratch folders are removed on the way out (with blocks, finally)
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        return export(args)
    except (ExportUserError, ValueError) as err:
        print(f"export.py: error: {err}", file=sys.stderr)
    except OSError as err:  # a read-only or full --out, a file that vanished: the file, the reason
        where = f"{err.filename}: " if err.filename else ""
        print(f"export.py: error: {where}{err.strerror or err}", file=sys.stderr)
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM: the scratch folders are gone already
        print("export.py: stopped: nothing written", file=sys.stderr)
        return 130
    return 2


if __name__ == "__main__":
    sys.exit(main())
