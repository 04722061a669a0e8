"""Issue 27, the methods half: a small random distilled ViT on a non-square grid (4x3
patches, cls + dist, 10 classes) through the CLI as a user runs it: `explain
--save-tensors` gives the PyTorch module's own logits and attention, the maps read the
readout of its pool (cls+dist: the mean of tokens 0 and 1) over a 4x3 grid without the two
prefix tokens, and `attribute` runs on it."""
import json
import subprocess

import numpy as np
import pytest
import torch

from conftest import TINY_DISTILLED, lively_state_dict
from ort_runner import skip_without_ort
from timm_state_dict import write_labels
from models.exporter.architectures import IMAGENET_MEAN, IMAGENET_STD, Preprocess
from models.exporter.explainer import build_explainer
from models.exporter.metadata import build_metadata, read_synset_words
from models.exporter.onnx_export import export_explainer
from models.exporter.attribution_export import export_attribution

from cli_runner import REPO

CFG = TINY_DISTILLED
GRID = (CFG.image_size[0] // CFG.patch_size, CFG.image_size[1] // CFG.patch_size)


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    skip_without_ort()
    out = tmp_path_factory.mktemp("layout")
    sd = lively_state_dict(CFG, seed=3)
    module = build_explainer(CFG, sd)
    export_explainer(module, CFG, out / f"{CFG.name}.onnx")
    export_attribution(CFG, sd, out, CFG.name)
    for f in out.glob("*.tmp"):
        f.unlink()
    labels = read_synset_words(write_labels(out / "labels.txt", CFG.num_classes))
    preprocess = Preprocess(max(CFG.image_size), CFG.image_size, "bicubic", IMAGENET_MEAN, IMAGENET_STD)
    meta = build_metadata(CFG, preprocess, labels, f"{CFG.name}.onnx", "random.pth", "0" * 64, "test")
    # What the exporter of issue 27 writes for a distilled model (contracts: pool).
    meta["architecture"]["pool"] = "cls+dist"
    (out / f"{CFG.name}.json").write_text(json.dumps(meta))
    return out, module


def cli(*args):
    done = subprocess.run(["node", str(REPO / "cli" / "vit-relevance.js"), *map(str, args)],
                          capture_output=True, text=True, timeout=600, cwd=REPO)
    assert done.returncode == 0, done.stderr
    return done


def test_explain_saves_the_modules_tensors_and_maps_read_the_pool(model, tmp_path):
    folder, module = model
    pixels = torch.randn(1, 3, *CFG.image_size, generator=torch.Generator().manual_seed(5))
    np.save(tmp_path / "input.npy", pixels.numpy())
    out = tmp_path / "out"
    cli("explain", tmp_path / "input.npy", "--model", folder / f"{CFG.name}.onnx", "--method", "all",
        "--threads", "2", "--save-tensors", "--out", out)

    with torch.no_grad():
        logits, attn = (o.double().numpy() for o in module(pixels, torch.zeros(1, CFG.num_classes),
                                                           torch.tensor(0.0))[:2])
    saved_logits = np.load(out / "tensors" / "logits.npy")
    assert saved_logits.shape == (1, CFG.num_classes)
    # float32 graph against the float32 module: ort_vs_torch.logits / .attn (docs/tolerances.md).
    assert np.abs(saved_logits - logits).max() <= 1e-4 * np.abs(logits).max()
    S = CFG.tokens
    for b in range(CFG.depth):
        saved = np.load(out / "tensors" / f"attn-block{b}.npy")
        assert saved.shape == (CFG.heads, S, S)
        assert np.abs(saved - attn[b]).max() <= 1e-4

    maps = json.loads((out / "maps.json").read_text())["targets"][0]["maps"]
    pixel_maps = {"lrp_full", "attnlrp", "cp_lrp"}  # maps at the input's pixels, not the grid
    assert pixel_maps <= set(maps)
    for method, m in maps.items():
        assert m["shape"] == list(CFG.image_size if method in pixel_maps else GRID), method
    # raw_attention with pool cls+dist: E_h[A+] of the last block's rows 0 and 1, averaged,
    # at the patch columns (tokens 2..).
    last = np.load(out / "tensors" / f"attn-block{CFG.depth - 1}.npy").astype(np.float64)
    want = 0.5 * (np.maximum(last[:, 0], 0).mean(0) + np.maximum(last[:, 1], 0).mean(0))[2:]
    got = np.asarray(maps["raw_attention"]["data"], dtype=np.float64)
    assert np.abs(got - want).max() <= 1e-6 * np.abs(want).max()
    token0 = np.maximum(last[:, 0], 0).mean(0)[2:]
    assert np.abs(got - token0).max() > 1e-3  # the pool is not token 0's row


def test_attribute_reads_the_pool_and_leaves_the_prefix_out(model, tmp_path):
    folder, _ = model
    pixels = torch.randn(1, 3, *CFG.image_size, generator=torch.Generator().manual_seed(6))
    np.save(tmp_path / "input.npy", pixels.numpy())
    out = tmp_path / "attr"
    cli("attribute", tmp_path / "input.npy", "--model", folder / f"{CFG.name}.onnx", "--class", "3",
        "--steps", "4", "--save-tensors", "--out", out)
    result = json.loads((out / "attribution.json").read_text())
    assert [len(b["headImportance"]) for b in result["blocks"]] == [CFG.heads] * CFG.depth
    # The two prefix tokens are never the top node nor an edge's source.
    tree = result["tree"]
    assert tree["top"] >= 2
    assert all(e["from"] >= 2 for e in tree["edges"])
    # attattr: the readout (e_0 + e_1) / 2 through E_h[Attr+] + I of every block, patches only.
    S = CFG.tokens
    row = np.zeros(S)
    row[:2] = 0.5
    for b in reversed(range(CFG.depth)):
        attr = np.load(out / f"attr-block{b}.npy").astype(np.float64)
        row = row @ (np.maximum(attr, 0).mean(0) + np.eye(S))
    assert result["attattr"]["shape"] == list(GRID)
    got = np.asarray(result["attattr"]["data"])
    assert np.abs(got - row[2:]).max() <= 1e-5 * np.abs(row[2:]).max()
