"""The `<name>.json` metadata beside each explainer graph (format: docs/architecture.md)."""
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Union

from .architectures import Preprocess
from .config import ViTConfig
from .errors import ExportUserError
from .user_files import read_text

FORMAT = "vit-relevance-explainer"
FORMAT_VERSION = 1
INPUT_NAMES = ("pixels", "target", "pixel_relevance", "attnlrp_relevance", "cp_lrp_relevance")
OUTPUT_NAMES = ("logits", "attn", "attn_grad", "attn_rel", "attn_rel_classic_last", "input_rel_classic",
                "input_rel_attnlrp", "input_rel_cp_lrp")
K = "K"  # the symbolic number of target rows
# A model's name names its files and the page's stored copies: letters, digits, "-", "_"
# and ".", a letter or digit first (no hidden files, no "." or "..", no option-like "-x"),
# no separators, bounded. The page's check of an opened folder (web/lib/model-folder.js,
# SAFE_NAME) accepts every name this one does.
MODEL_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
Dim = Union[int, str]


@dataclass(frozen=True)
class Labels:
    labels: List[str]  # short: the first synonym ("tench")
    label_names: List[str]  # the full synonym list ("tench, Tinca tinca")
    wnids: Optional[List[str]]  # ImageNet's synset ids, when the classes are ImageNet's


def read_synset_words(path: Path) -> Labels:
    """`wnid name, synonyms` per line, in class index order (ImageNet's synset_words.txt)."""
    labels, names, wnids = [], [], []
    for n, line in enumerate(read_text(Path(path)).splitlines(), 1):
        if not line.strip():
            continue
        wnid, _, rest = line.strip().partition(" ")
        if not rest:
            raise ValueError(f"{path}:{n}: expected 'wnid name, synonyms', got {line!r}")
        wnids.append(wnid)
        names.append(rest.strip())
        labels.append(rest.split(",")[0].strip())
    return Labels(labels, names, wnids)


def input_shapes(cfg: ViTConfig) -> Dict[str, List[Dim]]:
    h, w = cfg.image_size
    # the switches: scalars, 0 = skip input_rel_classic / _attnlrp / _cp_lrp, fed on every
    # run because onnxruntime-web cannot override an initializer-backed default
    return {"pixels": [1, 3, h, w], "target": [K, cfg.num_classes], "pixel_relevance": [],
            "attnlrp_relevance": [], "cp_lrp_relevance": []}


def output_shapes(cfg: ViTConfig) -> Dict[str, List[Dim]]:
    b, nh, s = cfg.depth, cfg.heads, cfg.tokens
    h, w = cfg.image_size
    return {
        "logits": [1, cfg.num_classes],
        "attn": [b, nh, s, s],
        "attn_grad": [K, b, nh, s, s],
        "attn_rel": [K, b, nh, s, s],
        "attn_rel_classic_last": [K, nh, s, s],
        "input_rel_classic": [K, h, w],
        "input_rel_attnlrp": [K, h, w],
        "input_rel_cp_lrp": [K, h, w],
    }


def architecture_json(cfg: ViTConfig) -> dict:
    return {
        "blocks": cfg.depth, "heads": cfg.heads, "embed_dim": cfg.embed_dim,
        "patch_size": cfg.patch_size, "image_size": list(cfg.image_size), "grid": list(cfg.grid),
        "tokens": cfg.tokens, "special_tokens": cfg.special_tokens,
        "num_classes": cfg.num_classes, "distilled": cfg.distilled,
        # the token layout (docs/architecture.md); the defaults are DeiT's
        "pool": cfg.pool, "cls_token": cfg.cls_token, "dist_token": cfg.distilled,
        "registers": cfg.registers,
        # Not in the docs example, but needed to rebuild the graph from the JSON alone.
        "mlp_ratio": cfg.mlp_ratio, "ln_eps": cfg.ln_eps, "qkv_bias": cfg.qkv_bias,
        "act": cfg.act, "no_embed_class": cfg.no_embed_class, "layer_scale": cfg.layer_scale,
        "norm_pre": cfg.norm_pre, "patch_bias": cfg.patch_bias, "fc_norm": cfg.fc_norm,
    }


def check_name(name: str, what: str) -> str:
    """NAME when it is a safe model name (MODEL_NAME); one line naming WHAT gave it, else."""
    if not MODEL_NAME.fullmatch(name):
        raise ExportUserError(f"{what}: {name!r} is not a model name (letters, digits, '-', '_' and '.', "
                              "starting with a letter or digit, at most 64 characters)")
    return name


def check_values(cfg: ViTConfig, preprocess: Preprocess) -> None:
    """The numbers the runtime reads, each usable: finite, positive where it divides."""
    problems = []
    if not (math.isfinite(cfg.ln_eps) and cfg.ln_eps > 0):
        problems.append(f"ln_eps {cfg.ln_eps} is not a finite number > 0")
    if not all(math.isfinite(v) for v in preprocess.mean):
        problems.append(f"preprocess mean {list(preprocess.mean)} is not finite")
    if not all(math.isfinite(v) and v > 0 for v in preprocess.std):
        problems.append(f"preprocess std {list(preprocess.std)} is not three finite numbers > 0")
    if not preprocess.resize_exact and preprocess.resize_short_side < min(preprocess.crop):
        problems.append(f"the resize to {preprocess.resize_short_side} is smaller than the crop "
                        f"{preprocess.crop[0]}x{preprocess.crop[1]}")
    if problems:
        raise ExportUserError(f"{cfg.name}'s metadata would be unusable: {'; '.join(problems)}")


def build_metadata(cfg: ViTConfig, preprocess: Preprocess, labels: Labels, onnx_file: str,
                   checkpoint_file: str, checkpoint_sha256: str, exporter_version: str) -> dict:
    if len(labels.labels) != cfg.num_classes:
        raise ValueError(f"the labels file has {len(labels.labels)} classes, "
                         f"{cfg.name} has {cfg.num_classes}")
    check_values(cfg, preprocess)
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "name": cfg.name,
        "onnx": onnx_file,
        "architecture": architecture_json(cfg),
        "preprocess": preprocess.to_json(),
        "labels": labels.labels,
        "label_names": labels.label_names,
        **({"wnids": labels.wnids} if labels.wnids else {}),
        "inputs": input_shapes(cfg),
        "outputs": output_shapes(cfg),
        "source": {"checkpoint": checkpoint_file, "sha256": checkpoint_sha256},
        "exporter": {"version": exporter_version},
    }
