"""The default text model (../shared/models/bert-mini-sst2-movies) exported and run in
onnxruntime-web on the golden sentences (golden/text/golden_text.npz, the official BERT
code's outputs): the logits against the official ones and against an independent float64
forward on Hugging Face's key names (bert_reference64.py), and the official BERT maps,
formed here in NumPy from the graph's tensors by METHODS.md's "Text (BERT)" definitions
(the core's own versions are tested with the core), under METHODS.md's acceptance."""
import os
from pathlib import Path

import numpy as np
import pytest
import torch

from bert_reference64 import Reference
from ort_runner import run_feeds, skip_without_ort

from models.exporter.layouts.files import read_json, read_weights
from models.exporter.text.explainer import OUTPUT_NAMES, build_text_explainer
from models.exporter.text.graphs import export_explainer
from models.exporter.text.layout import read_text_folder

REPO = Path(__file__).resolve().parents[2]
SHARED = (REPO / os.environ.get("VITREL_SHARED_DIR", "../shared")).resolve()
FOLDER = SHARED / "models" / "bert-mini-sst2-movies"
GOLDEN = SHARED / "reference" / "golden" / "text" / "golden_text.npz"
SENTENCES = ("witty", "mixed", "negation")
LOGIT_LIMIT = 1e-4  # relative to the largest logit (the export's parity limit)
# METHODS.md's acceptance: transformer attribution ≥ 0.99 and the same top token; the
# attention- and gradient-only maps and partial LRP ≥ 0.999. lrp_full is held to 0.999
# too: on this model it reproduces (measured 0.9999999997), unlike DeiT's.
MIN_PEARSON = {"transformer_attribution": 0.99, "transformer_attribution_last_block": 0.99,
               "attention_rollout": 0.999, "raw_attention": 0.999, "gradcam": 0.999, "partial_lrp": 0.999,
               "lrp_full": 0.999}

pytestmark = pytest.mark.skipif(not (FOLDER.is_dir() and GOLDEN.is_file()), reason=f"no {FOLDER} or {GOLDEN}")


def rollout(mats, start):
    """The BERT code's compute_rollout_attention: + I, rows normalised, product from start."""
    eye = np.eye(mats[0].shape[-1])
    mats = [(m + eye) / (m + eye).sum(-1, keepdims=True) for m in mats]
    joint = mats[start]
    for m in mats[start + 1:]:
        joint = m @ joint
    return joint


def bert_maps(out, k):
    """{method: [S]} for target row k from the graph's outputs (METHODS.md, "Text (BERT)")."""
    attn, grad, rel = (out[n].astype(np.float64) for n in ("attn", "attn_grad", "attn_rel"))
    blocks = attn.shape[0]
    cams = [np.clip(grad[k, b] * rel[k, b], 0, None).mean(0) for b in range(blocks)]
    maps = {}
    for name, start in (("transformer_attribution", 0), ("transformer_attribution_last_block", blocks - 1)):
        row = rollout(cams, start)[0].copy()
        row[0] = row.min()
        maps[name] = row
    maps["attention_rollout"] = rollout([a.mean(0) for a in attn], 0)[0].copy()
    maps["raw_attention"] = attn[-1].mean(0)[0].copy()
    weights = grad[k, -1].mean((1, 2), keepdims=True)
    cam = np.clip((attn[-1] * weights).mean(0), 0, None)
    with np.errstate(invalid="ignore"):  # 0/0 where every weight is negative, as the official code
        maps["gradcam"] = ((cam - cam.min()) / (cam.max() - cam.min()))[0].copy()
    maps["partial_lrp"] = np.clip(out["attn_rel_classic_last"][k].astype(np.float64), 0, None).mean(0)[0].copy()
    maps["lrp_full"] = out["input_rel_classic"][k].astype(np.float64).copy()
    for name in ("attention_rollout", "raw_attention", "gradcam", "partial_lrp", "lrp_full"):
        maps[name][0] = 0.0
    return maps


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """{sentence: graph outputs} for both classes, from onnxruntime-web."""
    skip_without_ort()
    ckpt = read_text_folder(FOLDER, "bert-mini-sst2-movies")
    tmp = tmp_path_factory.mktemp("bert-mini")
    export_explainer(build_text_explainer(ckpt.cfg, ckpt.state_dict), ckpt.cfg, tmp / "model.onnx")
    golden = np.load(GOLDEN)
    out = {}
    for name in SENTENCES:
        feeds = {"input_ids": golden[f"{name}/ids"].astype(np.int64)[None], "target": np.eye(2, dtype=np.float32),
                 "token_relevance": np.float32(1), "attnlrp_relevance": np.float32(1),
                 "cp_lrp_relevance": np.float32(1)}
        out[name] = run_feeds(tmp / "model.onnx", tmp / name, feeds, OUTPUT_NAMES)
    return golden, out


def relative(a, b):
    return float(np.abs(a - b).max() / np.abs(b).max())


@pytest.mark.parametrize("name", SENTENCES)
def test_logits_match_the_official_code_and_an_independent_forward(runs, name):
    golden, out = runs
    ids = torch.from_numpy(golden[f"{name}/ids"].astype(np.int64))[None]
    ref = Reference(read_json(FOLDER / "config.json"), read_weights(FOLDER / "pytorch_model.bin"))
    with torch.no_grad():
        independent, _ = ref.autograd_forward(ref.embeddings(ids))
    got = out[name]["logits"][0]
    assert relative(got, golden[f"{name}/logits"]) <= LOGIT_LIMIT
    assert relative(got, independent[0].numpy()) <= LOGIT_LIMIT


@pytest.mark.parametrize("name", SENTENCES)
def test_the_official_bert_maps_pass_the_acceptance(runs, name):
    golden, out = runs
    failures = []
    for k in (0, 1):
        for method, got in bert_maps(out[name], k).items():
            want = golden[f"{name}/{k}/{method}"]
            if np.isnan(want).any():  # the official GradCAM's 0/0: ours must be degenerate too
                if not np.isnan(got).any():
                    failures.append(f"class {k} {method}: the official map is NaN, ours is not")
                continue
            r = np.corrcoef(got, want)[0, 1] if want.std() > 0 else float(np.allclose(got, want, atol=1e-6))
            if r < MIN_PEARSON[method]:
                failures.append(f"class {k} {method}: pearson {r:.6f}")
            if method.startswith("transformer_attribution") and want.max() > 0 and got.argmax() != want.argmax():
                failures.append(f"class {k} {method}: top token {got.argmax()} vs {want.argmax()}")
    assert not failures, failures
