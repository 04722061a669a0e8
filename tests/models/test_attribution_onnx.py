"""The exported attribution graphs and the masked forward, run by onnxruntime-web in Node,
reproduce the float32 PyTorch modules on inputs, blocks and step counts they were not
traced with (bounds: tests/models/tolerance.py, "ort_vs_torch.*")."""
import pytest
import torch

from conftest import lively_state_dict, random_inputs
from models.exporter.attribution import build_block_attribution, build_states
from models.exporter.attribution_export import export_attribution
from models.exporter.explainer import build_plain
from ort_runner import run_feeds, skip_without_ort
from tolerance import assert_close, rel_err

SEEDS = (21, 22, 23, 24)


@pytest.fixture(scope="module")
def attribution_files(request, tmp_path_factory):
    skip_without_ort()
    from conftest import TINY, TINY_DISTILLED
    out = {}
    for cfg in (TINY, TINY_DISTILLED):
        folder = tmp_path_factory.mktemp(cfg.name)
        sd = lively_state_dict(cfg)
        out[cfg.name] = (cfg, sd, folder, export_attribution(cfg, sd, folder, cfg.name))
    return out


def block_case(cfg, seed):
    g = torch.Generator().manual_seed(seed)
    pixels = random_inputs(cfg, 1, seed)[0]
    block = int(torch.randint(cfg.depth, (1,), generator=g))
    alpha = torch.rand(int(torch.randint(1, 7, (1,), generator=g)), generator=g)
    target = torch.zeros(cfg.num_classes)
    target[int(torch.randint(cfg.num_classes, (1,), generator=g))] = 1
    return pixels, block, alpha, target


def torch_block(cfg, sd, case, dtype):
    pixels, block, alpha, target = case
    with torch.no_grad():
        logits, hidden = build_states(cfg, sd).to(dtype)(pixels.to(dtype))
        outs = build_block_attribution(cfg, sd, block).to(dtype)(hidden[block], alpha.to(dtype), target.to(dtype))
    return [t.numpy() for t in (logits, hidden, *outs)]


NAMES = ["logits", "hidden", "attn", "grad_sum", "prob"]


@pytest.mark.parametrize("name", ["tiny_random_vit", "tiny_random_deit_distilled"])
def test_attribution_graphs_match_pytorch(attribution_files, name, tmp_path):
    cfg, sd, folder, files = attribution_files[name]
    weights = folder / files["weights"]
    results = []
    for i, case in enumerate(block_case(cfg, seed) for seed in SEEDS):
        pixels, block, alpha, target = case
        want = dict(zip(NAMES, torch_block(cfg, sd, case, torch.float32)))
        states = run_feeds(folder / files["states"], tmp_path / f"s{i}", {"pixels": pixels.numpy()},
                           ["logits", "hidden"], weights=weights)
        got = run_feeds(folder / files["blocks"][block], tmp_path / f"b{i}",
                        {"hidden": states["hidden"][block], "alpha": alpha.numpy(), "target": target.numpy()},
                        ["attn", "grad_sum", "prob"], weights=weights)
        got.update(states)
        for n in NAMES:
            assert got[n].shape == want[n].shape, n
            assert_close(f"ort_vs_torch.attr_{n}", got[n], want[n], f"seed {SEEDS[i]}, block {block}")
        results.append((block, got["grad_sum"]))
    same_block = [g for b, g in results if b == results[0][0]]
    for other in same_block[1:]:
        assert rel_err(other, same_block[0]) > 1e-2, "different inputs must give different gradients"


@pytest.mark.parametrize("name", ["tiny_random_vit", "tiny_random_deit_distilled"])
def test_masked_forward_matches_pytorch(attribution_files, name, tmp_path):
    cfg, sd, folder, files = attribution_files[name]
    pixels = torch.cat([random_inputs(cfg, 1, s)[0] for s in SEEDS])  # a batch of 4
    g = torch.Generator().manual_seed(5)
    mask = (torch.rand(cfg.depth, cfg.heads, generator=g) > 0.4).float()
    with torch.no_grad():
        want = build_plain(cfg, sd)(pixels, mask).numpy()
    got = run_feeds(folder / files["masked"], tmp_path, {"pixels": pixels.numpy(), "head_mask": mask.numpy()},
                    ["logits"], weights=folder / files["weights"])
    assert_close("ort_vs_torch.logits", got["logits"], want)
