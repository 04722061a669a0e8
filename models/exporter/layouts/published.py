"""The libraries' own published ViT architectures, for the one fact a bare state dict
cannot tell: the head count (qkv is [3D, D] whatever the heads). A bare torchvision or
timm checkpoint is exported without --heads only when its shapes (patch, width, depth,
MLP width) are exactly one of these; any other needs --heads, since a wrong head count
computes another model that the parity check cannot see (it runs the same layout)."""
from typing import List, NamedTuple, Optional


class Published(NamedTuple):
    name: str
    patch: int
    width: int
    depth: int
    heads: int
    mlp: int


def _vit(names: str, patch: int, width: int, depth: int, heads: int, mlp: int) -> List[Published]:
    return [Published(n, patch, width, depth, heads, mlp) for n in names.split()]


# torchvision.models: vit_b_16 ... vit_h_14 (torchvision/models/vision_transformer.py)
TORCHVISION = [
    *_vit("vit_b_16", 16, 768, 12, 12, 3072), *_vit("vit_b_32", 32, 768, 12, 12, 3072),
    *_vit("vit_l_16", 16, 1024, 24, 16, 4096), *_vit("vit_l_32", 32, 1024, 24, 16, 4096),
    *_vit("vit_h_14", 14, 1280, 32, 16, 5120),
]
# timm's named configs of the plain ViT family (timm/models/vision_transformer.py, deit.py)
TIMM = [
    *_vit("vit_tiny_patch16_224 vit_tiny_patch16_384 deit_tiny_patch16_224", 16, 192, 12, 3, 768),
    *_vit("deit_tiny_distilled_patch16_224", 16, 192, 12, 3, 768),
    *_vit("vit_small_patch32_224 vit_small_patch32_384", 32, 384, 12, 6, 1536),
    *_vit("vit_small_patch16_224 vit_small_patch16_384 deit_small_patch16_224 deit3_small_patch16_224 "
          "deit_small_distilled_patch16_224", 16, 384, 12, 6, 1536),
    *_vit("vit_small_patch8_224", 8, 384, 12, 6, 1536),
    *_vit("vit_small_patch14_dinov2 vit_small_patch14_reg4_dinov2", 14, 384, 12, 6, 1536),
    *_vit("vit_medium_patch16_gap_256 deit3_medium_patch16_224", 16, 512, 12, 8, 2048),
    *_vit("vit_betwixt_patch16_reg4_gap_256", 16, 640, 12, 10, 2560),
    *_vit("vit_base_patch32_224 vit_base_patch32_384 vit_base_patch32_clip_224", 32, 768, 12, 12, 3072),
    *_vit("vit_base_patch16_224 vit_base_patch16_384 deit_base_patch16_224 deit_base_patch16_384 "
          "deit3_base_patch16_224 deit_base_distilled_patch16_224 vit_base_patch16_clip_224",
          16, 768, 12, 12, 3072),
    *_vit("vit_base_patch8_224", 8, 768, 12, 12, 3072),
    *_vit("vit_base_patch14_dinov2 vit_base_patch14_reg4_dinov2", 14, 768, 12, 12, 3072),
    *_vit("vit_large_patch32_224 vit_large_patch32_384", 32, 1024, 24, 16, 4096),
    *_vit("vit_large_patch16_224 vit_large_patch16_384 deit3_large_patch16_224", 16, 1024, 24, 16, 4096),
    *_vit("vit_large_patch14_clip_224 vit_large_patch14_dinov2 vit_large_patch14_reg4_dinov2",
          14, 1024, 24, 16, 4096),
    *_vit("vit_huge_patch14_224 vit_huge_patch14_clip_224 deit3_huge_patch14_224", 14, 1280, 32, 16, 5120),
    *_vit("vit_giant_patch14_224 vit_giant_patch14_clip_224", 14, 1408, 40, 16, 6144),
    *_vit("vit_gigantic_patch14_224 vit_gigantic_patch14_clip_224", 14, 1664, 48, 16, 8192),
]
LIBRARIES = {"torchvision": TORCHVISION, "timm": TIMM}


def match(library: str, patch: int, width: int, depth: int, mlp: int, name: str = "") -> Optional[Published]:
    """LIBRARY's published architecture with exactly these shapes, NAME's when it is one of
    them (a timm hub config's `architecture`), else the first; None when there is none. All
    with the same shapes have the same head count: the tables are built so."""
    found = [a for a in LIBRARIES[library] if (a.patch, a.width, a.depth, a.mlp) == (patch, width, depth, mlp)]
    return next((a for a in found if a.name == name), found[0] if found else None)
