"""Small random ViT state dicts with timm key names, for fast exporter tests."""
import torch

from models.exporter.config import ViTConfig

SMALL = ViTConfig(name="small_test_vit", depth=2, heads=2, embed_dim=128, patch_size=16,
                  image_size=(64, 64), num_classes=10)


def random_state_dict(cfg: ViTConfig = SMALL, seed: int = 0) -> dict:
    g = torch.Generator().manual_seed(seed)

    def t(*shape, scale=0.02):
        return torch.randn(*shape, generator=g) * scale

    d, m, p, c = cfg.embed_dim, cfg.mlp_dim, cfg.patch_size, cfg.num_classes
    sd = {
        "cls_token": t(1, 1, d), "pos_embed": t(1, cfg.tokens, d),
        "patch_embed.proj.weight": t(d, 3, p, p), "patch_embed.proj.bias": t(d),
        "norm.weight": 1 + t(d), "norm.bias": t(d),
        "head.weight": t(c, d), "head.bias": t(c),
    }
    if cfg.distilled:
        sd.update({"dist_token": t(1, 1, d), "head_dist.weight": t(c, d), "head_dist.bias": t(c)})
    for b in range(cfg.depth):
        pre = f"blocks.{b}."
        sd.update({
            pre + "norm1.weight": 1 + t(d), pre + "norm1.bias": t(d),
            pre + "attn.qkv.weight": t(3 * d, d), pre + "attn.proj.weight": t(d, d),
            pre + "attn.proj.bias": t(d),
            pre + "norm2.weight": 1 + t(d), pre + "norm2.bias": t(d),
            pre + "mlp.fc1.weight": t(m, d), pre + "mlp.fc1.bias": t(m),
            pre + "mlp.fc2.weight": t(d, m), pre + "mlp.fc2.bias": t(d),
        })
        if cfg.qkv_bias:
            sd[pre + "attn.qkv.bias"] = t(3 * d)
    return sd


def write_labels(path, count: int):
    path.write_text("".join(f"n{i:08d} class{i}, synonym{i}\n" for i in range(count)))
    return path
