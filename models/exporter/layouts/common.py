"""What every layout reader returns, the options a user gives, and the helpers they share:
shape facts, preprocessing from a config, class names."""
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

from ..architectures import IMAGENET_MEAN, IMAGENET_STD, Preprocess
from ..config import ViTConfig
from ..errors import CheckpointMismatch
from ..metadata import Labels
from ..user_files import read_text
from .published import Published

# timm's default crop for ViTs without a config (DeiT's evaluation: 224 / 0.875 = 256).
DEFAULT_CROP_PCT = 0.875


@dataclass(frozen=True)
class Options:
    """What shapes cannot tell, from the command line; None = the checkpoint's or library's."""
    name: Optional[str] = None
    heads: Optional[int] = None
    eps: Optional[float] = None
    act: Optional[str] = None
    mean: Optional[Tuple[float, float, float]] = None
    std: Optional[Tuple[float, float, float]] = None
    crop_pct: Optional[float] = None
    interpolation: Optional[str] = None
    labels: Optional[Path] = None


@dataclass(frozen=True)
class Checkpoint:
    """A checkpoint read into the exporter's terms: timm key names (params.expected_keys)."""
    library: str  # "timm", "Hugging Face <class>", "torchvision"
    cfg: ViTConfig
    state_dict: Dict
    preprocess: Preprocess
    labels: Labels
    heads_from: str = ""  # where the head count comes from (head_count)


def unmatched(keys: Sequence[str], what: str) -> CheckpointMismatch:
    shown = ", ".join(sorted(keys)[:8]) + (f" and {len(keys) - 8} more" if len(keys) > 8 else "")
    return CheckpointMismatch(f"{len(keys)} tensor(s) of the {what} match no ViT parameter: {shown}")


def block_count(keys, pattern: str) -> int:
    """1 + the largest block index captured by `pattern` (a regex with one group)."""
    ids = [int(m.group(1)) for k in keys for m in [re.match(pattern, k)] if m]
    return max(ids) + 1 if ids else 0


def grid_of(patches: int, image_size: Optional[Tuple[int, int]], patch: int) -> Tuple[int, int]:
    """The patch grid: from the config's image size when it has one, else square."""
    if image_size:
        grid = (image_size[0] // patch, image_size[1] // patch)
        if grid[0] * grid[1] != patches:
            raise CheckpointMismatch(
                f"the config's image size {image_size[0]}x{image_size[1]} with patch {patch} makes "
                f"{grid[0] * grid[1]} patches, the position embedding has {patches}")
        return grid
    side = math.isqrt(patches)
    if side * side != patches:
        raise CheckpointMismatch(f"{patches} patch positions is not a square grid: "
                                 "the image size must come from a config")
    return (side, side)


def head_count(dim: int, options: Options, configured: Optional[int], config_field: str,
               library: str, published: Optional[Published]) -> Tuple[int, str]:
    """(heads, where the count comes from): the config's (CONFIG_FIELD), else --heads,
    else the published architecture the shapes are exactly (layouts/published.py). Never
    guessed: a wrong count is another model, which the parity check cannot see."""
    if configured is not None:
        if options.heads and options.heads != configured:
            raise CheckpointMismatch(f"--heads {options.heads} contradicts {config_field} {configured}")
        heads, source = configured, config_field
    elif options.heads:
        heads, source = options.heads, "--heads"
    elif published:
        heads, source = published.heads, f"{library}'s {published.name}, whose shapes these are"
    else:
        raise CheckpointMismatch(f"the head count is not in a {library} checkpoint's tensors and no config "
                                 f"gives it; its shapes are none of {library}'s published ViTs: pass "
                                 f"--heads N (N divides the width {dim})")
    if heads <= 0 or dim % heads:
        raise CheckpointMismatch(f"{'--heads' if source == '--heads' else source} {heads} does not divide "
                                 f"the width {dim}")
    return heads, source


def preprocess(image_size: Tuple[int, int], options: Options, mean=None, std=None,
               crop_pct=None, interpolation=None, exact_resize: bool = False,
               short_side: Optional[int] = None) -> Preprocess:
    """The options override the checkpoint's config, which overrides timm's defaults.
    exact_resize: the photo is resized to the input size without a crop (HF processors);
    short_side: the config's resize, where it gives one instead of crop_pct."""
    mean = tuple(options.mean or mean or IMAGENET_MEAN)
    std = tuple(options.std or std or IMAGENET_STD)
    interpolation = options.interpolation or interpolation or "bicubic"
    crop_pct = options.crop_pct or crop_pct
    if exact_resize and crop_pct is None:
        return Preprocess(0, tuple(image_size), interpolation, mean, std, resize_exact=True)
    if short_side and not options.crop_pct:
        return Preprocess(short_side, tuple(image_size), interpolation, mean, std)
    # timm: scale_size = floor(size / crop_pct) for the short side, then a centre crop
    short = math.floor(min(image_size) / (crop_pct or DEFAULT_CROP_PCT))
    return Preprocess(short, tuple(image_size), interpolation, mean, std)


def class_names(count: int, options: Options, names: Optional[Mapping[int, str]] = None) -> Labels:
    """--labels FILE, else the checkpoint's names, else "class 0" ... "class N-1"."""
    if options.labels:
        return read_labels(options.labels, count)
    if names:
        if sorted(names) != list(range(count)):
            raise CheckpointMismatch(f"the config names {len(names)} classes, the head has {count}")
        full = [str(names[i]) for i in range(count)]
        return Labels([n.split(",")[0].strip() for n in full], full, None)
    full = [f"class {i}" for i in range(count)]
    return Labels(full, full, None)


_WNID = re.compile(r"^n\d{8}\s")


def read_labels(path: Path, count: int) -> Labels:
    """One class name per line, in class order; ImageNet's `wnid name, synonyms` lines too."""
    lines = [line.strip() for line in read_text(Path(path)).splitlines() if line.strip()]
    if len(lines) != count:
        raise CheckpointMismatch(f"{path} has {len(lines)} class names, the head has {count} classes")
    wnids: Optional[List[str]] = None
    if all(_WNID.match(line) for line in lines):
        wnids = [line.split(None, 1)[0] for line in lines]
        lines = [line.split(None, 1)[1] for line in lines]
    return Labels([n.split(",")[0].strip() for n in lines], lines, wnids)


def check_tensors(cfg: ViTConfig, state_dict: Mapping, what: str) -> Dict:
    """The state dict restricted to the graph's tensors, float32; one sentence when a
    tensor is left over, missing or of another shape than the layout read says."""
    from ..params import param_shapes

    if cfg.depth < 1:
        raise CheckpointMismatch(f"the {what} has no transformer blocks")
    shapes = param_shapes(cfg)
    extra = [k for k in state_dict if k not in shapes]
    if extra:
        raise unmatched(extra, what)
    missing = [k for k in shapes if k not in state_dict]
    if missing:
        raise CheckpointMismatch(f"the {what} lacks {', '.join(missing[:5])}"
                                 + (f" and {len(missing) - 5} more" if len(missing) > 5 else ""))
    wrong = [f"{k} is {list(state_dict[k].shape)}, expected {list(s)}"
             for k, s in shapes.items() if tuple(state_dict[k].shape) != s]
    if wrong:
        raise CheckpointMismatch(f"the {what} has tensors of inconsistent shapes: {'; '.join(wrong[:3])}")
    return {k: state_dict[k].float() for k in shapes}


def contradiction(config_name: str, field: str, said, found, what: str) -> CheckpointMismatch:
    return CheckpointMismatch(f"{config_name} says {field} {said}, the tensors have {found} ({what})")
