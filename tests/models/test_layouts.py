"""The layout readers (models/exporter/layouts): each library's checkpoint, written by
tests/models/layout_writers.py in that library's key names and config formats, reads back
as the same timm-keyed tensors and the architecture it was made with; what the reader
cannot understand is one sentence."""
from pathlib import Path

import pytest
import torch

from models.exporter.config import ViTConfig
from models.exporter.errors import CheckpointMismatch, ExportUserError
from models.exporter.layouts import Options, describe, read_source
from models.exporter.layouts.safetensors import read_safetensors

from layout_writers import (random_checkpoint, torchvision_state_dict, write_hf, write_safetensors,
                            write_timm_hub)

DEIT = Path(__file__).resolve().parents[2] / ".." / "shared" / "models" / "deit_tiny_patch16_224.pth"


@pytest.fixture(scope="module")
def deit():
    if not DEIT.is_file():
        pytest.skip(f"{DEIT} missing")
    return torch.load(str(DEIT), map_location="cpu", weights_only=True)["model"]


def same_tensors(got: dict, want: dict):
    assert sorted(got) == sorted(want)
    for k in want:
        assert torch.equal(got[k], want[k].float()), k


def test_safetensors_round_trip(tmp_path):
    tensors = {"a": torch.randn(2, 3), "b": torch.arange(5, dtype=torch.int64), "c": torch.randn(4).half()}
    write_safetensors(tmp_path / "x.safetensors", tensors)
    back = read_safetensors(tmp_path / "x.safetensors")
    for k, t in tensors.items():
        assert back[k].dtype == t.dtype and torch.equal(back[k], t), k


def test_safetensors_bfloat16(tmp_path):
    # bf16 is a float32's top 16 bits; written by hand: numpy has no bfloat16
    import json
    import struct
    values = torch.tensor([1.0, -2.5, 3.140625])
    raw = (values.numpy().view("<u4") >> 16).astype("<u2").tobytes()
    header = json.dumps({"w": {"dtype": "BF16", "shape": [3], "data_offsets": [0, 6]}}).encode()
    (tmp_path / "b.safetensors").write_bytes(struct.pack("<Q", len(header)) + header + raw)
    assert torch.equal(read_safetensors(tmp_path / "b.safetensors")["w"], values)


def test_bare_timm_deit(deit):
    ckpt = read_source(DEIT, Options())
    same_tensors(ckpt.state_dict, deit)
    c = ckpt.cfg
    assert (c.depth, c.embed_dim, c.heads, c.patch_size, c.image_size, c.num_classes) == \
        (12, 192, 3, 16, (224, 224), 1000)
    assert (c.pool, c.ln_eps, c.act, c.special_tokens) == ("cls", 1e-6, "gelu", 1)
    assert ckpt.labels.labels[:2] == ["class 0", "class 1"]
    assert ckpt.preprocess.resize_short_side == 256 and ckpt.preprocess.interpolation == "bicubic"


@pytest.mark.parametrize("safetensors", [True, False], ids=["safetensors", "bin"])
def test_hf_vit_deit(deit, tmp_path, safetensors):
    names = [f"thing {i}" for i in range(1000)]
    folder = write_hf(tmp_path / "hf", deit, "vit", heads=3, image_size=224, eps=1e-12,
                      architecture="ViTForImageClassification", labels=names, safetensors=safetensors,
                      processor={"do_resize": True, "size": {"height": 224, "width": 224}, "resample": 2,
                                 "image_mean": [0.5] * 3, "image_std": [0.5] * 3})
    ckpt = read_source(folder, Options())
    same_tensors(ckpt.state_dict, deit)
    assert (ckpt.cfg.heads, ckpt.cfg.ln_eps, ckpt.cfg.pool, ckpt.cfg.name) == (3, 1e-12, "cls", "hf")
    assert ckpt.labels.labels[7] == "thing 7" and ckpt.labels.wnids is None
    pre = ckpt.preprocess.to_json()
    assert pre["resize"] == {"mode": "exact", "size": [224, 224]} and pre["crop"] is None
    assert pre["interpolation"] == "bilinear" and pre["mean"] == [0.5] * 3


def test_timm_hub_deit(deit, tmp_path):
    folder = write_timm_hub(tmp_path / "hub", deit, "deit_tiny_patch16_224",
                            {"embed_dim": 192, "depth": 12, "num_heads": 3},
                            {"input_size": [3, 224, 224], "crop_pct": 0.9, "interpolation": "bilinear",
                             "mean": [0.1, 0.2, 0.3], "std": [0.4, 0.5, 0.6]},
                            label_names=[f"n{i:08d}" for i in range(1000)])
    ckpt = read_source(folder, Options(name="mine"))
    same_tensors(ckpt.state_dict, deit)
    assert ckpt.cfg.name == "mine" and ckpt.cfg.heads == 3
    pre = ckpt.preprocess
    assert (pre.resize_short_side, pre.interpolation, pre.mean, pre.std) == \
        (248, "bilinear", (0.1, 0.2, 0.3), (0.4, 0.5, 0.6))  # floor(224 / 0.9), timm's rule


def test_torchvision_deit(deit, tmp_path):
    torch.save(torchvision_state_dict(deit), tmp_path / "vit.pth")
    ckpt = read_source(tmp_path / "vit.pth", Options(heads=3))
    same_tensors(ckpt.state_dict, deit)
    assert (ckpt.library, ckpt.cfg.heads, ckpt.cfg.ln_eps, ckpt.cfg.name) == ("torchvision", 3, 1e-6, "vit")
    assert ckpt.preprocess.resize_short_side == 256 and ckpt.preprocess.interpolation == "bilinear"


SMALL = dict(depth=2, heads=3, embed_dim=48, patch_size=8, image_size=(32, 48), num_classes=5)


def test_hf_deit_with_teacher(tmp_path):
    cfg = ViTConfig(name="t", distilled=True, **SMALL)
    sd = random_checkpoint(cfg)
    folder = write_hf(tmp_path / "deit", sd, "deit", heads=3, image_size=[32, 48], eps=1e-12,
                      architecture="DeiTForImageClassificationWithTeacher", teacher=True)
    ckpt = read_source(folder, Options())
    same_tensors(ckpt.state_dict, sd)
    assert (ckpt.cfg.pool, ckpt.cfg.special_tokens, ckpt.cfg.grid) == ("cls+dist", 2, (4, 6))


def test_hf_deit_without_teacher_reads_token_0(tmp_path):
    cfg = ViTConfig(name="t", distilled=True, pool="cls", **SMALL)
    sd = random_checkpoint(cfg)
    folder = write_hf(tmp_path / "deit", sd, "deit", heads=3, image_size=[32, 48], eps=1e-12,
                      architecture="DeiTForImageClassification")
    ckpt = read_source(folder, Options())
    assert (ckpt.cfg.pool, ckpt.cfg.distilled) == ("cls", True)
    same_tensors(ckpt.state_dict, sd)


def test_hf_dinov2_with_registers(tmp_path):
    # HF's convention: the position embedding covers cls + patches, registers come after it
    hf_cfg = ViTConfig(name="t", pool="cls+avg", layer_scale=True, **SMALL)
    sd = random_checkpoint(hf_cfg)
    sd["reg_token"] = torch.randn(1, 4, 48)
    folder = write_hf(tmp_path / "dino", sd, "dinov2_with_registers", heads=3, image_size=[32, 48], eps=1e-6,
                      architecture="Dinov2WithRegistersForImageClassification", num_register_tokens=4,
                      mlp_ratio=4, layerscale_value=1.0,
                      processor={"do_resize": True, "size": {"shortest_edge": 40}, "resample": 3,
                                 "do_center_crop": True, "crop_size": {"height": 32, "width": 48},
                                 "image_mean": [0.485, 0.456, 0.406], "image_std": [0.229, 0.224, 0.225]})
    ckpt = read_source(folder, Options())
    c = ckpt.cfg
    assert (c.pool, c.registers, c.special_tokens, c.no_embed_class, c.layer_scale, c.ln_eps) == \
        ("cls+avg", 4, 5, True, True, 1e-6)
    got = ckpt.state_dict
    assert torch.equal(got["cls_token"], sd["cls_token"] + sd["pos_embed"][:, :1])
    assert torch.equal(got["pos_embed"], sd["pos_embed"][:, 1:])
    assert torch.equal(got["reg_token"], sd["reg_token"])
    assert torch.equal(got["blocks.1.ls2.gamma"], sd["blocks.1.ls2.gamma"])
    assert got["head.weight"].shape == (5, 96)
    assert ckpt.preprocess.resize_short_side == 40 and ckpt.preprocess.crop == (32, 48)


@pytest.mark.parametrize("variant", [
    dict(cls_token=False, pool="avg"),
    dict(registers=4, no_embed_class=True, layer_scale=True),
    dict(norm_pre=True, patch_bias=False, act="quickgelu", ln_eps=1e-5),
    dict(fc_norm=True, pool="avg", registers=1),
], ids=["no-cls", "registers", "clip", "fc-norm"])
def test_timm_variants(tmp_path, variant):
    cfg = ViTConfig(name="v", **SMALL, **variant)
    sd = random_checkpoint(cfg)
    args = {"num_heads": 3, "img_size": [32, 48], "global_pool": "avg" if cfg.pool == "avg" else "token"}
    if cfg.act == "quickgelu":
        args["act_layer"] = "quick_gelu"
    folder = write_timm_hub(tmp_path / "hub", sd, "vit_clip_test" if cfg.norm_pre else "vit_test", args,
                            {"input_size": [3, 32, 48]})
    ckpt = read_source(folder, Options(name="v"))
    assert ckpt.cfg == cfg
    same_tensors(ckpt.state_dict, sd)
    print(describe(ckpt))


def test_bare_timm_no_embed_class_from_shapes(tmp_path):
    cfg = ViTConfig(name="reg", **dict(SMALL, image_size=(48, 48)), registers=4, no_embed_class=True)
    torch.save(random_checkpoint(cfg), tmp_path / "reg.pth")
    got = read_source(tmp_path / "reg.pth", Options(heads=3)).cfg
    assert got == cfg


# --- one-sentence errors -------------------------------------------------------------------

def error(source, options=Options()) -> str:
    with pytest.raises(ExportUserError) as info:
        read_source(source, options)
    message = str(info.value)
    assert "\n" not in message
    return message


def test_truncated_files(deit, tmp_path):
    torch.save(deit, tmp_path / "full.pth")
    data = (tmp_path / "full.pth").read_bytes()
    (tmp_path / "cut.pth").write_bytes(data[: len(data) // 2])
    assert "truncated" in error(tmp_path / "cut.pth")
    write_safetensors(tmp_path / "m.safetensors", {"patch_embed.proj.weight": torch.randn(8, 3, 4, 4)})
    data = (tmp_path / "m.safetensors").read_bytes()
    (tmp_path / "cut.safetensors").write_bytes(data[:-10])
    assert "truncated" in error(tmp_path / "cut.safetensors")


def test_resnet_state_dict(tmp_path):
    torch.save({"conv1.weight": torch.randn(64, 3, 7, 7), "bn1.weight": torch.ones(64),
                "layer1.0.conv1.weight": torch.randn(64, 64, 1, 1), "fc.weight": torch.randn(10, 2048)},
               tmp_path / "resnet50.pth")
    assert "not a ViT checkpoint" in error(tmp_path / "resnet50.pth")


def test_unmatched_keys_are_named(tmp_path):
    cfg = ViTConfig(name="q", **SMALL)
    sd = random_checkpoint(cfg)
    sd["blocks.0.attn.q_norm.weight"] = torch.ones(16)  # qk-norm: not supported
    torch.save(sd, tmp_path / "q.pth")
    message = error(tmp_path / "q.pth", Options(heads=3))
    assert "blocks.0.attn.q_norm.weight" in message and "match no ViT parameter" in message


def test_config_contradicting_tensors(deit, tmp_path):
    folder = write_hf(tmp_path / "hf", deit, "vit", heads=3, image_size=224, eps=1e-12,
                      architecture="ViTForImageClassification")
    (folder / "config.json").write_text((folder / "config.json").read_text()
                                        .replace('"num_hidden_layers": 12', '"num_hidden_layers": 6'))
    assert error(folder) == ("config.json says num_hidden_layers 6, the tensors have 12 (encoder layers)")


def test_wrong_heads(deit, tmp_path):
    assert error(DEIT, Options(heads=5)) == "--heads 5 does not divide the width 192"
    folder = write_hf(tmp_path / "hf", deit, "vit", heads=3, image_size=224, eps=1e-12,
                      architecture="ViTForImageClassification")
    assert error(folder, Options(heads=6)) == "--heads 6 contradicts config.json's num_attention_heads 3"


def test_labels_file_of_another_length(deit, tmp_path):
    (tmp_path / "labels.txt").write_text("cat\ndog\n")
    assert error(DEIT, Options(labels=tmp_path / "labels.txt")) == \
        f"{tmp_path / 'labels.txt'} has 2 class names, the head has 1000 classes"


def test_hf_state_dict_without_its_folder(deit, tmp_path):
    from layout_writers import hf_state_dict
    torch.save(hf_state_dict(deit, "vit"), tmp_path / "pytorch_model.bin")
    assert "pass the folder" in error(tmp_path / "pytorch_model.bin")


def test_mismatch_is_a_user_error():
    assert issubclass(CheckpointMismatch, ExportUserError)
