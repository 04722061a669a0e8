"""The known-models table and the shape checks of checkpoints against it."""
import re
from types import SimpleNamespace

import pytest

from models.exporter.architectures import (DEIT_PREPROCESS, KNOWN_MODELS, VIT_NOTEBOOK_PREPROCESS,
                                           check_state_dict, expected_shapes, infer_config,
                                           known_model)
from models.exporter.config import ViTConfig
from models.exporter.errors import CheckpointMismatch, UnknownModel


def shapes_only(cfg, depth=None):
    """A 'state dict' of objects with .shape only: as the checks see it, without weights."""
    d, m = cfg.embed_dim, cfg.mlp_dim
    sd = {k: SimpleNamespace(shape=v) for k, v in expected_shapes(cfg).items() if not k.startswith("blocks.")}
    for b in range(cfg.depth if depth is None else depth):
        for key, shape in [("norm1.weight", (d,)), ("attn.qkv.weight", (3 * d, d)), ("attn.qkv.bias", (3 * d,)),
                           ("attn.proj.weight", (d, d)), ("mlp.fc1.weight", (m, d)), ("mlp.fc2.weight", (d, m))]:
            sd[f"blocks.{b}.{key}"] = SimpleNamespace(shape=shape)
    return sd


def test_table_names_urls_and_configs_agree():
    assert set(KNOWN_MODELS) == {
        "deit_tiny_patch16_224", "deit_small_patch16_224", "deit_base_patch16_224",
        "deit_tiny_distilled_patch16_224", "deit_small_distilled_patch16_224",
        "deit_base_distilled_patch16_224", "vit_base_patch16_224"}
    dims = {"tiny": (192, 3), "small": (384, 6), "base": (768, 12)}
    for name, km in KNOWN_MODELS.items():
        cfg = km.config
        assert cfg.name == name
        assert (cfg.depth, cfg.patch_size, cfg.image_size, cfg.num_classes) == (12, 16, (224, 224), 1000)
        assert cfg.tokens == (198 if cfg.distilled else 197)
        assert cfg.head_dim == 64
        size = name.split("_")[1]
        if name.startswith("deit_"):
            assert (cfg.embed_dim, cfg.heads) == dims[size]
            assert cfg.distilled == ("distilled" in name)
            assert km.preprocess == DEIT_PREPROCESS
            assert re.fullmatch(rf"https://dl\.fbaipublicfiles\.com/deit/{name}-[0-9a-f]{{8}}\.pth", km.url)
        else:
            assert (cfg.embed_dim, cfg.heads, cfg.distilled) == (768, 12, False)
            assert km.preprocess == VIT_NOTEBOOK_PREPROCESS
            assert km.url.endswith("/jx_vit_base_p16_224-80ecf9dd.pth")
        assert km.preprocess.crop == cfg.image_size


def test_preprocessing_values():
    assert DEIT_PREPROCESS.to_json() == {
        "resize": {"mode": "short_side", "size": 256}, "crop": {"mode": "center", "size": [224, 224]},
        "interpolation": "bicubic", "mean": [0.485, 0.456, 0.406], "std": [0.229, 0.224, 0.225],
        "exact_size_passthrough": True}
    assert VIT_NOTEBOOK_PREPROCESS.mean == VIT_NOTEBOOK_PREPROCESS.std == (0.5, 0.5, 0.5)


@pytest.mark.parametrize("name", sorted(KNOWN_MODELS))
def test_every_table_entry_accepts_its_own_shapes_and_is_inferred_back(name):
    cfg = KNOWN_MODELS[name].config
    sd = shapes_only(cfg)
    check_state_dict(cfg, sd)
    inferred = infer_config(sd, name)
    assert inferred == cfg


def test_block_count_mismatch_names_both_counts():
    cfg = KNOWN_MODELS["deit_tiny_patch16_224"].config
    with pytest.raises(CheckpointMismatch, match=r"^checkpoint has 6 blocks, deit_tiny_patch16_224 expects 12$"):
        check_state_dict(cfg, shapes_only(cfg, depth=6))


def test_wrong_width_classes_and_tokens_are_each_reported():
    small = shapes_only(KNOWN_MODELS["deit_small_patch16_224"].config)
    with pytest.raises(CheckpointMismatch) as err:
        check_state_dict(KNOWN_MODELS["deit_tiny_patch16_224"].config, small)
    msg = str(err.value)
    assert "patch_embed.proj.weight has shape [384, 3, 16, 16], deit_tiny_patch16_224 expects [192, 3, 16, 16]" in msg
    assert "embed dim 384 vs 192" in msg
    assert "blocks.0.attn.qkv.weight has shape [1152, 384]" in msg

    cfg = KNOWN_MODELS["deit_tiny_patch16_224"].config
    sd = shapes_only(cfg)
    sd["head.weight"] = SimpleNamespace(shape=(21843, 192))
    sd["pos_embed"] = SimpleNamespace(shape=(1, 577, 192))
    msg = str(pytest.raises(CheckpointMismatch, check_state_dict, cfg, sd).value)
    assert "(21843 classes vs 1000)" in msg and "(577 tokens vs 197)" in msg


def test_distilled_checkpoint_is_not_taken_for_a_plain_model():
    distilled = shapes_only(KNOWN_MODELS["deit_tiny_distilled_patch16_224"].config)
    with pytest.raises(CheckpointMismatch, match="distilled"):
        check_state_dict(KNOWN_MODELS["deit_tiny_patch16_224"].config, distilled)


def test_missing_tensor_is_named():
    cfg = KNOWN_MODELS["deit_tiny_patch16_224"].config
    sd = shapes_only(cfg)
    del sd["cls_token"]
    with pytest.raises(CheckpointMismatch, match="no tensor 'cls_token'"):
        check_state_dict(cfg, sd)


def test_inference_of_an_unlisted_shape_and_explicit_heads():
    cfg = KNOWN_MODELS["deit_small_patch16_224"].config
    sd = shapes_only(cfg)
    sd["pos_embed"] = SimpleNamespace(shape=(1, 1 + 24 * 24, 384))  # a 384x384 fine-tune
    inferred = infer_config(sd, "my_vit", heads=12)
    assert (inferred.image_size, inferred.heads, inferred.tokens) == ((384, 384), 12, 577)


def test_unknown_name_lists_known_names():
    with pytest.raises(UnknownModel) as err:
        known_model("deit_huge")
    assert all(name in str(err.value) for name in KNOWN_MODELS)


def test_a_head_count_no_published_shape_gives_is_asked_for():
    cfg = ViTConfig(name="w", depth=2, heads=4, embed_dim=128, patch_size=16, image_size=(32, 32), num_classes=3)
    with pytest.raises(CheckpointMismatch, match=r"pass --heads N \(N divides the width 128\)$"):
        infer_config(shapes_only(cfg), "w")
    assert infer_config(shapes_only(cfg), "w", heads=4).heads == 4
