"""The models the exporter knows by name, and shape checks of a checkpoint against them.

Everything here works on tensor *shapes* only (anything with `.shape`), so the table and
the checks can be used without loading PyTorch (the build's up-to-date check needs that).
"""
from dataclasses import dataclass
from typing import Dict, Mapping, Optional, Tuple

from .config import ViTConfig
from .errors import CheckpointMismatch, UnknownModel

IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)
HALF = (0.5, 0.5, 0.5)


@dataclass(frozen=True)
class Preprocess:
    """What the page/CLI must do to a photo before `pixels` (docs/architecture.md)."""
    resize_short_side: int
    crop: Tuple[int, int]  # (height, width), centre crop
    interpolation: str  # "bicubic" | "bilinear", PIL semantics
    mean: Tuple[float, float, float]
    std: Tuple[float, float, float]
    exact_size_passthrough: bool = True
    resize_exact: bool = False  # straight to the crop size, no crop (HF image processors)

    def to_json(self) -> dict:
        return {
            "resize": ({"mode": "exact", "size": list(self.crop)} if self.resize_exact
                       else {"mode": "short_side", "size": self.resize_short_side}),
            "crop": None if self.resize_exact else {"mode": "center", "size": list(self.crop)},
            "interpolation": self.interpolation,
            "mean": list(self.mean),
            "std": list(self.std),
            "exact_size_passthrough": self.exact_size_passthrough,
        }


# DeiT's own evaluation: Resize(int(224 / 0.875) = 256, bicubic), CenterCrop(224).
DEIT_PREPROCESS = Preprocess(256, (224, 224), "bicubic", IMAGENET_MEAN, IMAGENET_STD)
# ViT-B/16 as in the paper's notebook (Transformer_explainability.ipynb): Resize(256) with
# torchvision's default (bilinear), CenterCrop(224), mean = std = 0.5. timm's config for
# the same weights says bicubic with crop_pct 0.9 (resize 248), and the paper's evaluation
# scripts resize straight to 224x224; we follow the notebook because users compare pictures.
VIT_NOTEBOOK_PREPROCESS = Preprocess(256, (224, 224), "bilinear", HALF, HALF)


@dataclass(frozen=True)
class KnownModel:
    config: ViTConfig
    preprocess: Preprocess
    url: str  # official checkpoint address
    notes: str = ""

    @property
    def name(self) -> str:
        return self.config.name

    @property
    def official_filename(self) -> str:
        return self.url.rsplit("/", 1)[-1]


def _deit(size: str, dim: int, heads: int, hash8: str, distilled: bool = False) -> KnownModel:
    name = f"deit_{size}_{'distilled_' if distilled else ''}patch16_224"
    cfg = ViTConfig(name=name, depth=12, heads=heads, embed_dim=dim, patch_size=16,
                    image_size=(224, 224), num_classes=1000, distilled=distilled)
    return KnownModel(cfg, DEIT_PREPROCESS,
                      f"https://dl.fbaipublicfiles.com/deit/{name}-{hash8}.pth",
                      notes="DeiT (Touvron et al. 2021), ImageNet-1k, official checkpoint")


_TABLE = [
    _deit("tiny", 192, 3, "a1311bcf"),
    _deit("small", 384, 6, "cd65a155"),
    _deit("base", 768, 12, "b5f2ef4d"),
    _deit("tiny", 192, 3, "b40b3cf7", distilled=True),
    _deit("small", 384, 6, "649709d9", distilled=True),
    _deit("base", 768, 12, "df68dfff", distilled=True),
    KnownModel(
        ViTConfig(name="vit_base_patch16_224", depth=12, heads=12, embed_dim=768,
                  patch_size=16, image_size=(224, 224), num_classes=1000),
        VIT_NOTEBOOK_PREPROCESS,
        # The ImageNet-21k -> 1k fine-tuned ViT-B/16 converted from JAX, the file the
        # paper's code (baselines/ViT/ViT_LRP.py) loads.
        "https://github.com/rwightman/pytorch-image-models/releases/download/"
        "v0.1-vitjx/jx_vit_base_p16_224-80ecf9dd.pth",
        notes="original ViT-B/16 (Dosovitskiy et al.), timm 'jx' weights used by Chefer et al.",
    ),
]
KNOWN_MODELS: Dict[str, KnownModel] = {m.name: m for m in _TABLE}


def known_model(name: str) -> KnownModel:
    try:
        return KNOWN_MODELS[name]
    except KeyError:
        raise UnknownModel(
            f"unknown model '{name}'. Known models: {', '.join(KNOWN_MODELS)}. "
            "For another ViT checkpoint pass --checkpoint FILE and the architecture is "
            "inferred from its tensor shapes.") from None


def block_count(state_dict: Mapping) -> int:
    ids = {int(k.split(".")[1]) for k in state_dict if k.startswith("blocks.") and k.split(".")[1].isdigit()}
    return max(ids) + 1 if ids else 0


def expected_shapes(cfg: ViTConfig) -> Dict[str, Tuple[int, ...]]:
    """timm key -> shape for the tensors the explainer uses (a representative subset for
    the blocks: the first and the last block stand for all, the count is checked apart)."""
    d, p, c = cfg.embed_dim, cfg.patch_size, cfg.num_classes
    shapes = {
        "patch_embed.proj.weight": (d, 3, p, p),
        "cls_token": (1, 1, d),
        "pos_embed": (1, cfg.tokens, d),
        "norm.weight": (d,),
        "head.weight": (c, d),
        "head.bias": (c,),
    }
    if cfg.distilled:
        shapes.update({"dist_token": (1, 1, d), "head_dist.weight": (c, d), "head_dist.bias": (c,)})
    for b in {0, cfg.depth - 1}:
        pre = f"blocks.{b}."
        shapes.update({
            pre + "norm1.weight": (d,),
            pre + "attn.qkv.weight": (3 * d, d),
            pre + "attn.proj.weight": (d, d),
            pre + "mlp.fc1.weight": (cfg.mlp_dim, d),
            pre + "mlp.fc2.weight": (d, cfg.mlp_dim),
        })
        if cfg.qkv_bias:
            shapes[pre + "attn.qkv.bias"] = (3 * d,)
    return shapes


def check_state_dict(cfg: ViTConfig, state_dict: Mapping) -> None:
    """Raise CheckpointMismatch with one specific sentence per problem found."""
    problems = []
    blocks = block_count(state_dict)
    if blocks != cfg.depth:
        problems.append(f"checkpoint has {blocks} blocks, {cfg.name} expects {cfg.depth}")
    if "dist_token" in state_dict and not cfg.distilled:
        problems.append(f"checkpoint is distilled (has dist_token), {cfg.name} is not")
    for key, want in expected_shapes(cfg).items():
        if key.startswith("blocks.") and blocks != cfg.depth:
            continue  # already reported as a block count problem
        if key not in state_dict:
            problems.append(f"checkpoint has no tensor '{key}' that {cfg.name} needs")
            continue
        got = tuple(state_dict[key].shape)
        if got != want:
            problems.append(f"checkpoint's {key} has shape {list(got)}, {cfg.name} expects {list(want)}"
                            + _hint(key, got, cfg))
    if problems:
        raise CheckpointMismatch("; ".join(problems))


def _hint(key: str, got: Tuple[int, ...], cfg: ViTConfig) -> str:
    """Name the architectural quantity behind the most telling mismatches."""
    if key == "pos_embed" and len(got) == 3:
        return f" ({got[1]} tokens vs {cfg.tokens})"
    if key == "head.weight" and len(got) == 2:
        return f" ({got[0]} classes vs {cfg.num_classes})"
    if key == "patch_embed.proj.weight" and len(got) == 4:
        return f" (embed dim {got[0]} vs {cfg.embed_dim}, patch {got[2]} vs {cfg.patch_size})"
    return ""


def default_preprocess(cfg: ViTConfig) -> Preprocess:
    """For a checkpoint not in the table: DeiT's recipe scaled to its input size."""
    return Preprocess(int(cfg.image_size[0] / 0.875), tuple(cfg.image_size), "bicubic",
                      IMAGENET_MEAN, IMAGENET_STD)


def infer_config(state_dict: Mapping, name: str, heads: Optional[int] = None) -> ViTConfig:
    """Architecture of a timm-layout ViT/DeiT state dict from its shapes. Assumes a square
    patch grid; the head count, which no shape tells, is `heads` or that of the timm
    architecture these shapes exactly are (layouts/published.py), never guessed."""
    from .layouts.published import match  # late: the table must not need torch

    for key in ("patch_embed.proj.weight", "pos_embed", "head.weight", "blocks.0.mlp.fc1.weight"):
        if key not in state_dict:
            raise CheckpointMismatch(f"cannot infer the architecture: checkpoint has no '{key}' "
                                     "(is it a timm-layout ViT/DeiT state dict?)")
    d, _, p, _ = state_dict["patch_embed.proj.weight"].shape
    distilled = "dist_token" in state_dict
    patches = state_dict["pos_embed"].shape[1] - (2 if distilled else 1)
    side = int(round(patches ** 0.5))
    if side * side != patches:
        raise CheckpointMismatch(f"cannot infer the image size: {patches} patch tokens is not a square grid")
    depth, mlp = block_count(state_dict), state_dict["blocks.0.mlp.fc1.weight"].shape[0]
    published = match("timm", p, d, depth, mlp)
    if heads is None and published is None:
        raise CheckpointMismatch(f"the head count is not in the tensors, and their shapes are none of timm's "
                                 f"published ViTs: pass --heads N (N divides the width {d})")
    heads = heads or published.heads
    if d % heads:
        raise CheckpointMismatch(f"--heads {heads} does not divide the width {d}")
    return ViTConfig(
        name=name, depth=block_count(state_dict), heads=heads, embed_dim=d, patch_size=p,
        image_size=(side * p, side * p), num_classes=state_dict["head.weight"].shape[0],
        distilled=distilled, mlp_ratio=state_dict["blocks.0.mlp.fc1.weight"].shape[0] / d,
        qkv_bias="blocks.0.attn.qkv.bias" in state_dict)
