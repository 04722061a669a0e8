"""Architecture description of a ViT/DeiT checkpoint (shape facts only, no weights)."""
from dataclasses import dataclass
from typing import Tuple


@dataclass(frozen=True)
class ViTConfig:
    name: str
    depth: int
    heads: int
    embed_dim: int
    patch_size: int
    image_size: Tuple[int, int]  # (height, width)
    num_classes: int
    distilled: bool = False  # DeiT distilled: dist_token + head_dist, logits averaged
    mlp_ratio: float = 4.0
    ln_eps: float = 1e-6
    qkv_bias: bool = True

    def __post_init__(self):
        h, w = self.image_size
        if h % self.patch_size or w % self.patch_size:
            raise ValueError(f"image_size {self.image_size} not divisible by patch {self.patch_size}")
        if self.embed_dim % self.heads:
            raise ValueError(f"embed_dim {self.embed_dim} not divisible by heads {self.heads}")

    @property
    def grid(self) -> Tuple[int, int]:
        return (self.image_size[0] // self.patch_size, self.image_size[1] // self.patch_size)

    @property
    def special_tokens(self) -> int:
        return 2 if self.distilled else 1

    @property
    def tokens(self) -> int:
        gh, gw = self.grid
        return self.special_tokens + gh * gw

    @property
    def head_dim(self) -> int:
        return self.embed_dim // self.heads

    @property
    def mlp_dim(self) -> int:
        return int(self.embed_dim * self.mlp_ratio)
