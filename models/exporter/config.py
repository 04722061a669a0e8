"""Architecture description of a ViT/DeiT checkpoint (shape facts only, no weights)."""
from dataclasses import dataclass
from typing import Optional, Tuple

# How the head reads the tokens (the metadata's architecture.pool, docs/architecture.md):
# "cls" token 0; "cls+dist" the mean of the heads on tokens 0 and 1 (DeiT distilled);
# "avg" the mean of the patch tokens; "avg+prefix" the mean of all tokens; "cls+avg" one
# head on concat(token 0, patch mean) (HF DINOv2).
POOLS = ("cls", "cls+dist", "avg", "avg+prefix", "cls+avg")
# "gelu" exact (erf), "gelu_tanh" the tanh approximation, "quickgelu" x*sigmoid(1.702x)
ACTIVATIONS = ("gelu", "gelu_tanh", "quickgelu")


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
    # The layouts beyond DeiT's (models/exporter/layouts); the defaults are DeiT's.
    pool: Optional[str] = None  # None: "cls+dist" when distilled, else "cls"
    cls_token: bool = True
    registers: int = 0  # register tokens after cls/dist, before the patches
    no_embed_class: bool = False  # pos_embed covers the patches only
    layer_scale: bool = False  # ls1.gamma / ls2.gamma scale each branch
    norm_pre: bool = False  # a LayerNorm before the blocks (CLIP towers)
    patch_bias: bool = True
    fc_norm: bool = False  # the LayerNorm after pooling replaces the final norm
    act: str = "gelu"

    def __post_init__(self):
        if self.pool is None:
            object.__setattr__(self, "pool", "cls+dist" if self.distilled else "cls")
        if self.pool not in POOLS:
            raise ValueError(f"pool {self.pool!r} is not one of {', '.join(POOLS)}")
        if self.act not in ACTIVATIONS:
            raise ValueError(f"activation {self.act!r} is not one of {', '.join(ACTIVATIONS)}")
        if self.pool.startswith("cls") and not self.cls_token:
            raise ValueError(f"pool {self.pool!r} needs a class token")
        if self.pool == "cls+dist" and not self.distilled:
            raise ValueError("pool 'cls+dist' needs a distillation token")
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
        """Prefix tokens before the patches: [cls], [dist], [registers...] in that order."""
        return int(self.cls_token) + int(self.distilled) + self.registers

    @property
    def pos_tokens(self) -> int:
        """Rows of pos_embed: every token, or the patches only (no_embed_class)."""
        return self.tokens - (self.special_tokens if self.no_embed_class else 0)

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
