"""Every layout, end to end in PyTorch: a checkpoint written in the library's own key names
and config format (layout_writers), read by models/exporter/layouts and run through the
explainer graph's module, against the library's forward written independently
(layout_reference): logits and attention within 1e-5 relative, and the hand-written
attention gradients against autograd through the reference."""
import pytest
import torch

from layout_reference import hf_forward, timm_forward, torchvision_forward
from layout_writers import (hf_state_dict, random_checkpoint, torchvision_state_dict, write_hf,
                            write_timm_hub)
from models.exporter.config import ViTConfig
from models.exporter.explainer import build_explainer, build_plain
from models.exporter.layouts import Options, read_source
from tolerance import rel_err

SMALL = dict(depth=2, heads=3, embed_dim=48, patch_size=8, image_size=(32, 48), num_classes=7)
# measured float32 error against these references is ~1e-6 (LAYOUTS.md: ~1e-6 logits, ~2e-6 attention)
LOGITS, ATTN, GRAD = 1e-5, 1e-5, 1e-4


def _timm(tmp, variant, args, arch="vit_test"):
    cfg = ViTConfig(name="m", **SMALL, **variant)
    sd = random_checkpoint(cfg, seed=3)
    folder = write_timm_hub(tmp / "timm", sd, arch, {"num_heads": 3, "img_size": [32, 48], **args},
                            {"input_size": [3, 32, 48]})
    pool = args.get("global_pool", "token")

    def reference(pixels):
        return timm_forward(sd, pixels, 3, eps=cfg.ln_eps, act=cfg.act, global_pool=pool,
                            no_embed_class=cfg.no_embed_class)
    return folder, reference


def _hf(tmp, model_type, arch, variant, teacher=False, **config):
    cfg = ViTConfig(name="m", **SMALL, **variant)
    sd = random_checkpoint(cfg, seed=4)
    if "registers" in config:
        sd["reg_token"] = torch.randn(1, config.pop("registers"), 48) * 0.3
        config["num_register_tokens"] = sd["reg_token"].shape[1]
    eps = 1e-6 if model_type.startswith("dinov2") else 1e-12
    folder = write_hf(tmp / "hf", sd, model_type, heads=3, image_size=[32, 48], eps=eps,
                      architecture=arch, teacher=teacher, **config)
    hf_sd = hf_state_dict(sd, model_type, teacher)
    import json
    hf_config = json.loads((folder / "config.json").read_text())
    return folder, lambda pixels: hf_forward(hf_sd, hf_config, pixels)


def _torchvision(tmp):
    cfg = ViTConfig(name="m", **dict(SMALL, image_size=(40, 40)))
    tv = torchvision_state_dict(random_checkpoint(cfg, seed=5))
    torch.save(tv, tmp / "vit_b_16.pth")
    return tmp / "vit_b_16.pth", lambda pixels: torchvision_forward(tv, pixels, 3)


CASES = {
    "timm-deit": lambda t: _timm(t, {}, {}),
    "timm-distilled": lambda t: _timm(t, dict(distilled=True), {}),
    "timm-no-cls-avg": lambda t: _timm(t, dict(cls_token=False, pool="avg"),
                                       {"global_pool": "avg", "class_token": False}),
    "timm-registers-layerscale": lambda t: _timm(t, dict(registers=4, no_embed_class=True, layer_scale=True),
                                                 {"reg_tokens": 4, "no_embed_class": True, "init_values": 1e-5}),
    "timm-clip-quickgelu": lambda t: _timm(t, dict(norm_pre=True, patch_bias=False, act="quickgelu", ln_eps=1e-5),
                                           {"pre_norm": True, "act_layer": "quick_gelu"}, arch="vit_clip_test"),
    "timm-fc-norm-avg": lambda t: _timm(t, dict(fc_norm=True, pool="avg", registers=2),
                                        {"global_pool": "avg", "fc_norm": True, "reg_tokens": 2}),
    "timm-gelu-tanh": lambda t: _timm(t, dict(act="gelu_tanh"), {"act_layer": "gelu_tanh"}),
    "hf-vit": lambda t: _hf(t, "vit", "ViTForImageClassification", {}),
    "hf-deit-teacher": lambda t: _hf(t, "deit", "DeiTForImageClassificationWithTeacher", dict(distilled=True),
                                     teacher=True),
    "hf-deit": lambda t: _hf(t, "deit", "DeiTForImageClassification", dict(distilled=True, pool="cls")),
    "hf-dinov2": lambda t: _hf(t, "dinov2", "Dinov2ForImageClassification", dict(pool="cls+avg", layer_scale=True)),
    "hf-dinov2-registers": lambda t: _hf(t, "dinov2_with_registers", "Dinov2WithRegistersForImageClassification",
                                         dict(pool="cls+avg", layer_scale=True), registers=4),
    "torchvision": _torchvision,
}


@pytest.mark.parametrize("case", list(CASES))
def test_layout_matches_its_library(case, tmp_path):
    source, reference = CASES[case](tmp_path)
    ckpt = read_source(source, Options(heads=3))
    cfg = ckpt.cfg
    g = torch.Generator().manual_seed(7)
    pixels = torch.randn(1, 3, *cfg.image_size, generator=g)
    target = torch.randn(1, cfg.num_classes, generator=g)

    want_logits, want_attn = reference(pixels.clone().requires_grad_())  # a graph to differentiate
    (target * want_logits).sum().backward()
    module = build_explainer(cfg, ckpt.state_dict)
    with torch.no_grad():
        logits, attn, attn_grad, attn_rel, _, input_rel, *_ = module(pixels, target, torch.tensor(1.0))
        plain = build_plain(cfg, ckpt.state_dict)(pixels)
    assert rel_err(logits.numpy(), want_logits.detach().numpy()) < LOGITS
    assert rel_err(plain.numpy(), want_logits.detach().numpy()) < LOGITS
    for b, a in enumerate(want_attn):
        assert rel_err(attn[b].numpy(), a.detach()[0].numpy()) < ATTN, f"block {b}"
        if a.grad is not None:  # (torchvision's kernel returns a copy of its attention)
            assert rel_err(attn_grad[0, b].numpy(), a.grad[0].numpy()) < GRAD, f"grad block {b}"
    assert torch.isfinite(attn_rel).all() and torch.isfinite(input_rel).all()
    assert input_rel.abs().sum() > 0
