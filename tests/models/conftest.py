"""pytest setup shared by the exporter tests: the repository root on sys.path so tests
import `models.exporter...` the way models/export.py does, whatever the working directory."""
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))


# --- small random ViTs for the gradient / LRP / ONNX equivalence tests -------------------
import pytest  # noqa: E402
import torch  # noqa: E402

from models.exporter.config import ViTConfig  # noqa: E402

TINY = ViTConfig(name="tiny_random_vit", depth=3, heads=2, embed_dim=16, patch_size=8,
                 image_size=(32, 24), num_classes=10)
TINY_DISTILLED = ViTConfig(name="tiny_random_deit_distilled", depth=3, heads=2, embed_dim=16,
                           patch_size=8, image_size=(32, 24), num_classes=10, distilled=True)


def lively_state_dict(cfg: ViTConfig, seed: int = 0) -> dict:
    """Random timm-keyed weights large enough that attention is far from uniform and every
    sign pattern occurs (the LRP rules branch on signs)."""
    g = torch.Generator().manual_seed(seed)
    d, m, p = cfg.embed_dim, cfg.mlp_dim, cfg.patch_size

    def r(*shape, scale):
        return torch.randn(*shape, generator=g) * scale

    sd = {"cls_token": r(1, 1, d, scale=1.0), "pos_embed": r(1, cfg.tokens, d, scale=0.5),
          "patch_embed.proj.weight": r(d, 3, p, p, scale=0.1), "patch_embed.proj.bias": r(d, scale=0.1),
          "norm.weight": 1 + r(d, scale=0.2), "norm.bias": r(d, scale=0.1),
          "head.weight": r(cfg.num_classes, d, scale=0.5), "head.bias": r(cfg.num_classes, scale=0.1)}
    if cfg.distilled:
        sd.update({"dist_token": r(1, 1, d, scale=1.0), "head_dist.weight": r(cfg.num_classes, d, scale=0.5),
                   "head_dist.bias": r(cfg.num_classes, scale=0.1)})
    for b in range(cfg.depth):
        pre = f"blocks.{b}."
        sd.update({pre + "norm1.weight": 1 + r(d, scale=0.2), pre + "norm1.bias": r(d, scale=0.1),
                   pre + "attn.qkv.weight": r(3 * d, d, scale=0.5), pre + "attn.qkv.bias": r(3 * d, scale=0.1),
                   pre + "attn.proj.weight": r(d, d, scale=0.3), pre + "attn.proj.bias": r(d, scale=0.1),
                   pre + "norm2.weight": 1 + r(d, scale=0.2), pre + "norm2.bias": r(d, scale=0.1),
                   pre + "mlp.fc1.weight": r(m, d, scale=0.3), pre + "mlp.fc1.bias": r(m, scale=0.1),
                   pre + "mlp.fc2.weight": r(d, m, scale=0.2), pre + "mlp.fc2.bias": r(d, scale=0.1)})
    return sd


def random_inputs(cfg: ViTConfig, k: int, seed: int):
    """Pixels [1,3,H,W] and dense random (not one-hot) targets [k, C], both float32."""
    g = torch.Generator().manual_seed(1000 + seed)
    pixels = torch.randn(1, 3, *cfg.image_size, generator=g)
    target = torch.randn(k, cfg.num_classes, generator=g)
    return pixels, target


@pytest.fixture(params=[TINY, TINY_DISTILLED], ids=lambda c: c.name)
def tiny_model(request):
    """(cfg, state_dict) of a small random non-square ViT, plain and distilled."""
    return request.param, lively_state_dict(request.param)


# The small random models exported once per test session, shared by every ONNX test
# module (each export traces the whole explainer graph): (config, PyTorch module, .onnx).
@pytest.fixture(scope="session", params=[TINY, TINY_DISTILLED], ids=lambda c: c.name)
def exported(request, tmp_path_factory):
    from ort_runner import export_small, skip_without_ort
    skip_without_ort()
    cfg = request.param
    module, path = export_small(cfg, lively_state_dict(cfg), tmp_path_factory.mktemp("onnx"))
    return cfg, module, path
