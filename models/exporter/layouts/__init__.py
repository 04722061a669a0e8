"""Reading the checkpoints users have (timm, Hugging Face, torchvision) into the
exporter's terms: `read_source(path, options)` -> Checkpoint (layouts/common.py)."""
from pathlib import Path
from typing import List

from ..errors import CheckpointMismatch, CheckpointMissing
from . import hf, timm, torchvision
from .common import Checkpoint, Options
from .files import check_weights, folder_weights, read_json, read_weights

__all__ = ["Checkpoint", "Options", "read_source", "source_name", "source_files", "describe"]


def source_name(source: Path, options: Options) -> str:
    """The model's name: --name, else the folder's name or the file's without its suffixes."""
    return options.name or (source.resolve().name if source.is_dir() else source.name.split(".")[0])


def source_files(source: Path) -> List[Path]:
    """The files an export of SOURCE reads: the weights, and a folder's configs, each
    checked as far as it can be without reading the weights whole (before they are hashed)."""
    if not source.is_dir():
        check_weights(source)
        return [source]
    configs = [source / f for f in ("config.json", "preprocessor_config.json") if read_json(source / f) is not None]
    weights = folder_weights(source)
    check_weights(weights)
    return [weights, *configs]


def read_source(source: Path, options: Options) -> Checkpoint:
    """A folder (HF save_pretrained, timm hub) or a weights file (timm, torchvision)."""
    source = Path(source)
    if source.is_dir():
        config = read_json(source / "config.json")
        if config is None:
            raise CheckpointMissing(f"{source} has no config.json (a Hugging Face or timm hub folder has one)")
        weights = read_weights(folder_weights(source))
        name = source_name(source, options)
        if "architecture" in config and timm.is_timm(weights):
            return timm.read(weights, config, options, name)
        if hf.is_hf(config):
            return hf.read(weights, config, read_json(source / "preprocessor_config.json"), options, name)
        raise CheckpointMismatch(f"{source / 'config.json'} is neither a timm hub config "
                                 "(architecture) nor a Hugging Face one (model_type)")
    if not source.is_file():
        raise CheckpointMissing(f"{source} does not exist")
    weights = read_weights(source)
    name = source_name(source, options)
    if timm.is_timm(weights):
        return timm.read(weights, None, options, name)
    if torchvision.is_torchvision(weights):
        return torchvision.read(weights, options, name)
    if any("embeddings.patch_embeddings" in k for k in weights):
        raise CheckpointMismatch(f"{source} is a Hugging Face state dict: pass the folder with its config.json")
    keys = sorted(weights)
    raise CheckpointMismatch(f"{source} is not a ViT checkpoint: none of its {len(keys)} tensors is a patch "
                             f"embedding (it has {', '.join(keys[:4])}{', …' if len(keys) > 4 else ''})")


def describe(ckpt: Checkpoint) -> str:
    """The detected layout in one paragraph (the exporter prints it)."""
    c, p = ckpt.cfg, ckpt.preprocess
    tokens = ["cls"] * c.cls_token + ["dist"] * c.distilled + [f"{c.registers} registers"] * bool(c.registers)
    tokens.append(f"{c.grid[0]}x{c.grid[1]} patches of {c.patch_size}px")
    extras = [name for name, on in (("LayerScale", c.layer_scale), ("norm_pre", c.norm_pre),
                                    ("fc_norm", c.fc_norm), ("no_embed_class", c.no_embed_class),
                                    ("no patch bias", not c.patch_bias), ("no qkv bias", not c.qkv_bias)) if on]
    resize = (f"resize to {p.crop[0]}x{p.crop[1]}" if p.resize_exact
              else f"short side {p.resize_short_side}, centre crop {p.crop[0]}x{p.crop[1]}")
    return (f"{c.name}: {ckpt.library} ViT, {c.depth} blocks, width {c.embed_dim}, {c.heads} heads "
            f"({ckpt.heads_from}), {c.num_classes} classes\n"
            f"  tokens: {' + '.join(tokens)} ({c.tokens}); pooling: {c.pool}; "
            f"LayerNorm eps {c.ln_eps:g}; activation {c.act}"
            + (f"; {', '.join(extras)}" if extras else "") + "\n"
            f"  preprocessing: {resize} ({p.interpolation}), mean {_triple(p.mean)}, std {_triple(p.std)}")


def _triple(values) -> str:
    return "(" + ", ".join(f"{v:g}" for v in values) + ")"
