"""The explainer's AttnLRP and CP-LRP maps (models/exporter/attnlrp.py) against the
independent autograd reference (attnlrp_reference.py) under METHODS.md's acceptance, on
random ViTs of every layout the exporter reads (models/exporter/layouts) and on DeiT-tiny
for catdog; and in onnxruntime-web."""
import subprocess

import numpy as np
import pytest
import torch

from attnlrp_reference import patch_map, pearson, reference_maps
from conftest import REPO_ROOT, TINY, TINY_DISTILLED, lively_state_dict, random_inputs
from layout_writers import random_checkpoint, write_hf
from models.exporter.config import ViTConfig
from models.exporter.explainer import OUTPUT_NAMES, build_explainer
from models.exporter.layouts import Options, read_source
from models.exporter.split_export import export_split
from ort_runner import export_small, run_in_ort, skip_without_ort
from test_golden_tensors import CHECKPOINT, DEIT_TINY, GOLDEN
from tolerance import assert_close

METHODS = ("attnlrp", "cp_lrp")
RUN_SPLIT = REPO_ROOT / "tests" / "models" / "run_split.mjs"
# METHODS.md, "Float32 tolerance and acceptance": per photo, class and method
MIN_PEARSON = 0.9999
MAX_SUM_ERROR = 1e-3  # |ΣR − ΣR_ref| / |y_c|

LAYOUTS = [
    TINY, TINY_DISTILLED,
    ViTConfig(name="deeper_four_heads", depth=5, heads=4, embed_dim=32, patch_size=8, image_size=(24, 40),
              num_classes=7),
    ViTConfig(name="one_block_distilled_no_qkv_bias", depth=1, heads=1, embed_dim=16, patch_size=4,
              image_size=(16, 16), num_classes=5, distilled=True, qkv_bias=False),
]
# byo-export's layouts in the exporter's (timm) terms, as test_layout_parity.CASES reads them
SMALL = dict(depth=2, heads=2, embed_dim=24, patch_size=8, image_size=(16, 24), num_classes=6)
BYO_LAYOUTS = [ViTConfig(name=name, **SMALL, **variant) for name, variant in (
    ("registers_no_embed_class_layer_scale", dict(registers=4, no_embed_class=True, layer_scale=True)),
    ("no_cls_avg", dict(cls_token=False, pool="avg")),
    ("cls_avg", dict(pool="avg")),
    ("registers_avg_prefix", dict(registers=2, pool="avg+prefix")),
    ("clip_norm_pre_no_patch_bias_quickgelu", dict(norm_pre=True, patch_bias=False, act="quickgelu", ln_eps=1e-5)),
    ("fc_norm_avg_registers", dict(fc_norm=True, pool="avg", registers=2)),
    ("gelu_tanh", dict(act="gelu_tanh")),
    ("distilled_layer_scale", dict(distilled=True, layer_scale=True)),
    ("distilled_cls_head", dict(distilled=True, pool="cls")),  # HF DeiTForImageClassification
    ("dinov2_registers", dict(pool="cls+avg", layer_scale=True, registers=4, no_embed_class=True)),
)]
BYO = {cfg.name: cfg for cfg in BYO_LAYOUTS}
ON = torch.tensor(1.0)
OFF = torch.tensor(0.0)


def state_dict(cfg):
    if cfg.name in BYO:
        return random_checkpoint(cfg, seed=9)  # every tensor of the layout (params.param_shapes)
    sd = lively_state_dict(cfg)
    if not cfg.qkv_bias:
        sd = {k: v for k, v in sd.items() if not k.endswith("attn.qkv.bias")}
    return sd


def one_hot(classes, num_classes):
    t = torch.zeros(len(classes), num_classes)
    for row, c in enumerate(classes):
        t[row, c] = 1.0
    return t


def graph_maps(module, pixels, target, dtype=torch.float32):
    """{method: [K, H, W]} from the explainer module with both switches on."""
    with torch.no_grad():
        out = dict(zip(OUTPUT_NAMES, module.to(dtype)(pixels.to(dtype), target.to(dtype), OFF, ON, ON)))
    return {m: out[f"input_rel_{m}"] for m in METHODS}


def acceptance_failures(got, want, logits, classes, patch_size):
    """METHODS.md's acceptance of maps got [K,H,W] against the float64 reference want."""
    failures = []
    for row, c in enumerate(classes):
        g, w = got[row].double(), want[row]
        pix = pearson(g, w)
        patch = pearson(patch_map(g[None], patch_size), patch_map(w[None], patch_size))
        sum_err = abs(float(g.sum() - w.sum())) / abs(float(logits[c]))
        if pix < MIN_PEARSON or patch < MIN_PEARSON or sum_err > MAX_SUM_ERROR:
            failures.append(f"class {c}: pearson pixel {pix:.6f}, patch {patch:.6f}, |ΔΣR|/|y_c| {sum_err:.2e}")
    return failures


@pytest.mark.parametrize("cfg", LAYOUTS + BYO_LAYOUTS, ids=lambda c: c.name)
def test_float64_graph_equals_the_reference(cfg):
    sd = state_dict(cfg)
    pixels, _ = random_inputs(cfg, 1, seed=50)
    classes = [0, cfg.num_classes - 1, 2]
    got = graph_maps(build_explainer(cfg, sd), pixels, one_hot(classes, cfg.num_classes), torch.float64)
    for method in METHODS:
        want, _ = reference_maps(sd, cfg, pixels, classes, method)
        assert_close("f64_vs_f64.gxi_map", got[method], want, f"{cfg.name} {method}")


@pytest.mark.parametrize("cfg", LAYOUTS + BYO_LAYOUTS, ids=lambda c: c.name)
@pytest.mark.parametrize("seed", [60, 61, 62])
def test_float32_graph_passes_the_acceptance_and_conserves_as_the_reference(cfg, seed):
    sd = state_dict(cfg)
    pixels, _ = random_inputs(cfg, 1, seed=seed)
    classes = [seed % cfg.num_classes, (seed + 3) % cfg.num_classes]
    got = graph_maps(build_explainer(cfg, sd), pixels, one_hot(classes, cfg.num_classes))
    for method in METHODS:
        want, logits = reference_maps(sd, cfg, pixels, classes, method)
        assert not acceptance_failures(got[method], want, logits, classes, cfg.patch_size), method


def test_hf_dinov2_with_registers_read_from_its_folder(tmp_path):
    # HF's own token convention (position embedding over cls + patches, registers inserted
    # after it), read by layouts/hf.py into timm terms: the maps of the checkpoint's model
    cfg = ViTConfig(name="hf", **SMALL, pool="cls+avg", layer_scale=True)
    sd = random_checkpoint(cfg, seed=10)
    sd["reg_token"] = torch.randn(1, 4, cfg.embed_dim, generator=torch.Generator().manual_seed(11)) * 0.3
    folder = write_hf(tmp_path / "hf", sd, "dinov2_with_registers", heads=cfg.heads, image_size=list(cfg.image_size),
                      eps=cfg.ln_eps, architecture="Dinov2WithRegistersForImageClassification",
                      num_register_tokens=4)
    ckpt = read_source(folder, Options())
    pixels, _ = random_inputs(cfg, 1, seed=80)
    classes = [1, 4]
    got = graph_maps(build_explainer(ckpt.cfg, ckpt.state_dict), pixels, one_hot(classes, cfg.num_classes),
                     torch.float64)
    for method in METHODS:
        want, _ = reference_maps(sd, cfg, pixels, classes, method)
        assert_close("f64_vs_f64.gxi_map", got[method], want, f"HF DINOv2 registers {method}")


@pytest.fixture(scope="module")
def deit_catdog():
    if not (GOLDEN / "catdog-input.npy").is_file() or not CHECKPOINT.is_file():
        pytest.skip("shared data not found (set VITREL_SHARED_DIR)")
    sd = torch.load(CHECKPOINT, map_location="cpu", weights_only=True)["model"]
    return sd, torch.from_numpy(np.load(GOLDEN / "catdog-input.npy"))


CATDOG_CLASSES = [243, 282]


@pytest.mark.parametrize("method", METHODS)
def test_deit_tiny_catdog_passes_the_acceptance(deit_catdog, method):
    sd, pixels = deit_catdog
    got = graph_maps(build_explainer(DEIT_TINY, sd), pixels, one_hot(CATDOG_CLASSES, 1000))[method]
    want, logits = reference_maps(sd, DEIT_TINY, pixels, CATDOG_CLASSES, method)
    assert not acceptance_failures(got, want, logits, CATDOG_CLASSES, DEIT_TINY.patch_size)


def test_the_nearest_wrong_attnlrp_fails_the_acceptance(deit_catdog):
    # q and k ÷2 instead of ÷4 (METHODS.md: pearson ≤ 0.951): the check must see it
    sd, pixels = deit_catdog
    right, logits = reference_maps(sd, DEIT_TINY, pixels, CATDOG_CLASSES, "attnlrp")
    wrong, _ = reference_maps(sd, DEIT_TINY, pixels, CATDOG_CLASSES, "attnlrp", qk_divisor=2.0)
    assert len(acceptance_failures(wrong, right, logits, CATDOG_CLASSES, DEIT_TINY.patch_size)) == 2


@pytest.mark.parametrize("cfg", [TINY, TINY_DISTILLED], ids=lambda c: c.name)
def test_switches_off_give_zeros_and_leave_every_other_output(cfg):
    module = build_explainer(cfg, state_dict(cfg))
    pixels, target = random_inputs(cfg, 3, seed=70)
    with torch.no_grad():
        on = dict(zip(OUTPUT_NAMES, module(pixels, target, ON, ON, ON)))
        off = dict(zip(OUTPUT_NAMES, module(pixels, target, ON, OFF, OFF)))
    for name in OUTPUT_NAMES[:6]:
        assert torch.equal(on[name], off[name]), name
    for m in METHODS:
        assert off[f"input_rel_{m}"].shape == (3, *cfg.image_size)
        assert not off[f"input_rel_{m}"].any() and on[f"input_rel_{m}"].abs().max() > 0


@pytest.mark.parametrize("cfg", [TINY_DISTILLED, BYO["dinov2_registers"],
                                 BYO["clip_norm_pre_no_patch_bias_quickgelu"], BYO["fc_norm_avg_registers"]],
                         ids=lambda c: c.name)
def test_split_graphs_compute_the_single_graphs_maps(cfg, tmp_path):
    """The photo and class graphs (split_export.py) in onnxruntime-web: the AttnLRP and
    CP-LRP maps of the module, on layouts whose records differ (registers, pooling,
    norm_pre, distillation)."""
    skip_without_ort()
    sd = state_dict(cfg)
    files = export_split(cfg, sd, tmp_path, cfg.name)
    pixels, target = random_inputs(cfg, 3, seed=71)
    target[1] = 0  # a predicted-class row
    feeds = {"pixels": pixels, "target": target, "pixel_relevance": OFF, "attnlrp_relevance": ON,
             "cp_lrp_relevance": ON}
    cmd = ["node", str(RUN_SPLIT), "--photo", str(tmp_path / files["photo"]),
           "--class-graph", str(tmp_path / files["target"]), "--weights", str(tmp_path / files["weights"]),
           "--out", str(tmp_path / "out")]
    for name, value in feeds.items():
        np.save(tmp_path / f"{name}.npy", value.numpy().astype(np.float32))
        cmd += ["--input", f"{name}={tmp_path / f'{name}.npy'}"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=REPO_ROOT)
    assert done.returncode == 0, done.stderr
    with torch.no_grad():
        want = dict(zip(OUTPUT_NAMES, build_explainer(cfg, sd)(pixels, target, OFF, ON, ON)))
    for m in METHODS:
        name = f"input_rel_{m}"
        assert_close(f"ort_vs_torch.{name}", np.load(tmp_path / "out" / f"{name}.npy"), want[name].numpy(), cfg.name)


def check_switches_in_ort(cfg, module, path, pixels, target, settings, tmp_path, label):
    """Each (attnlrp, cp_lrp) switch setting in onnxruntime-web against the module: an output
    switched on matches it, one switched off is all zeros."""
    for a, c in settings:
        got = run_in_ort(path, tmp_path / f"{a}{c}", pixels, target, pixel_relevance=0.0,
                         attnlrp_relevance=a, cp_lrp_relevance=c)
        with torch.no_grad():
            want = dict(zip(OUTPUT_NAMES, module(pixels, target, OFF, torch.tensor(a), torch.tensor(c))))
        for m, switch in zip(METHODS, (a, c)):
            name = f"input_rel_{m}"
            assert got[name].shape == (target.shape[0], *cfg.image_size), name
            if switch:
                assert_close(f"ort_vs_torch.{name}", got[name], want[name].numpy(), label or f"switches {a} {c}")
            else:
                assert not got[name].any(), name


@pytest.mark.parametrize("k", [1, 3])
def test_onnxruntime_web_matches_the_module(exported, k, tmp_path):
    cfg, module, path = exported
    pixels, target = random_inputs(cfg, k, seed=72)
    target[0] = 0  # a predicted-class row
    check_switches_in_ort(cfg, module, path, pixels, target, ((1.0, 1.0), (1.0, 0.0), (0.0, 1.0)), tmp_path, None)


def test_onnxruntime_web_runs_a_pooled_layout(tmp_path):
    # the pooled head's backward (patch mean, concat with token 0), registers and LayerScale
    # in the graph, and on empty rows for the switch that is off
    skip_without_ort()
    cfg = BYO["dinov2_registers"]
    module, path = export_small(cfg, state_dict(cfg), tmp_path)
    pixels, target = random_inputs(cfg, 2, seed=73)
    target[1] = 0  # a predicted-class row
    check_switches_in_ort(cfg, module, path, pixels, target, ((1.0, 0.0), (0.0, 1.0)), tmp_path, cfg.name)
