"""The explainer module on the real DeiT-tiny against the official implementation's
per-block tensors (../shared/reference/golden, METHODS.md "Golden data")."""
import json
import os
from pathlib import Path

import numpy as np
import pytest
import torch

from models.exporter.config import ViTConfig
from models.exporter.explainer import build_explainer
from tolerance import assert_close

SHARED = Path(os.environ.get("VITREL_SHARED_DIR", Path(__file__).resolve().parents[3] / "shared"))
GOLDEN = SHARED / "reference" / "golden"
CHECKPOINT = SHARED / "models" / "deit_tiny_patch16_224.pth"
DEIT_TINY = ViTConfig("deit_tiny_patch16_224", depth=12, heads=3, embed_dim=192, patch_size=16,
                      image_size=(224, 224), num_classes=1000)
TARGETS = (243, 282, 281)  # per-block tensors exist for the first two
# The official LRP model builds its final LayerNorm with eps 1e-5 (DeiT: 1e-6); emulate it
# so logits agree to float32 noise.
REFERENCE_FINAL_LN_EPS = 1e-5


@pytest.fixture(scope="module")
def run():
    if not (GOLDEN / "catdog.json").is_file() or not CHECKPOINT.is_file():
        pytest.skip(f"shared data not found under {SHARED} (set VITREL_SHARED_DIR)")
    sd = torch.load(CHECKPOINT, map_location="cpu", weights_only=True)["model"]
    module = build_explainer(DEIT_TINY, sd, final_ln_eps=REFERENCE_FINAL_LN_EPS)
    pixels = torch.from_numpy(np.load(GOLDEN / "catdog-input.npy"))
    target = torch.zeros(len(TARGETS), DEIT_TINY.num_classes)
    for row, cls in enumerate(TARGETS):
        target[row, cls] = 1.0
    with torch.no_grad():
        out = [o.double().numpy() for o in module(pixels, target, torch.tensor(1.0))]
    return out, json.loads((GOLDEN / "catdog.json").read_text())


def pearson(a, b):
    return float(np.corrcoef(np.ravel(a), np.ravel(b))[0, 1])


def test_logits_and_attention(run):
    out, gold = run
    logits = np.asarray(gold["logits"], dtype=np.float64).reshape(1, -1)
    assert_close("golden.logits_abs", out[0], logits, absolute=True)
    assert_close("golden.attn_abs", out[1], np.load(GOLDEN / "catdog-attn.npy"), absolute=True)


@pytest.mark.parametrize("row", [0, 1])
def test_attention_gradients(run, row):
    out, _ = run
    golden = np.load(GOLDEN / f"catdog-{TARGETS[row]}-attn-grad.npy")
    for b in range(DEIT_TINY.depth):
        assert_close("golden.attn_grad", out[2][row, b], golden[b], f"block {b}")


@pytest.mark.parametrize("row", [0, 1])
def test_proposed_relevance(run, row):
    out, _ = run
    golden = np.load(GOLDEN / f"catdog-{TARGETS[row]}-attn-rel.npy")
    rel = out[3][row]
    assert_close("golden.attn_rel_last", rel[11], golden[11])
    # below that the z-rule on the signed q.k^T divides by near-zero values and float32
    # rounding decides (METHODS.md); only the upper blocks are stable enough to assert
    for b in (8, 9, 10):
        assert pearson(rel[b], golden[b]) > 0.999, f"block {b}"
    assert np.isfinite(rel).all()


@pytest.mark.parametrize("row", [0, 1])
def test_classic_relevance_of_last_block(run, row):
    out, _ = run
    golden = np.load(GOLDEN / f"catdog-{TARGETS[row]}-attn-rel-classic-last.npy")
    assert_close("golden.attn_rel_classic_last", out[4][row], golden)


def transformer_attribution(grad, rel):
    """METHODS.md: rollout of E_h[(G*R)+] + I from block 0 up, row 0 without token 0."""
    S = grad.shape[-1]
    m = np.eye(S)
    for g, r in zip(grad, rel):
        m = (np.clip(g * r, 0, None).mean(0) + np.eye(S)) @ m
    return m[0, 1:]


@pytest.mark.parametrize("row", [0, 1, 2])
def test_transformer_attribution_map_is_robust(run, row):
    out, gold = run
    want = np.asarray(gold["targets"][str(TARGETS[row])]["transformer_attribution"]).ravel()
    got = transformer_attribution(out[2][row], out[3][row])
    # METHODS.md's agreement for a correct pipeline; measured 0.9940 at worst (target 282,
    # PyTorch's portable kernels), 0.9987 with AVX2 (docs/tolerances.md)
    assert pearson(got, want) >= 0.99
    assert got.argmax() == want.argmax()


def test_classic_pixel_relevance_is_finite(run):
    # the golden lrp_full is not reproducible (its sign flips between float32 and float64,
    # METHODS.md); its rules are checked against tests/models/lrp_reference64.py instead
    out, _ = run
    assert out[5].shape == (len(TARGETS), 224, 224) and np.isfinite(out[5]).all()
