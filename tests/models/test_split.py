"""The split explainer (models/exporter/split.py): photo graph + class graph compute what
the single explainer graph computes, in onnxruntime-web within float32 tolerance, on inputs
and target row counts they were not traced with; the two ONNX files, the plain forward
graph and the graphs per method family (families.py) exported beside them share one
weights file, and each family graph computes its outputs as the single graph does."""
import subprocess

import numpy as np
import onnx
import pytest
import torch

from conftest import REPO_ROOT, random_inputs
from models.exporter.explainer import OUTPUT_NAMES, build_explainer, build_plain
from models.exporter.families import FAMILIES, SWITCHED_FAMILY, build_family
from models.exporter.onnx_export import export_plain
from models.exporter.passes import outputs_of, switches_of
from models.exporter.scan_graph import is_weight
from models.exporter.split_export import export_split
from ort_runner import run_feeds, skip_without_ort
from tolerance import BOUND, assert_close, rel_err

RUNNER = REPO_ROOT / "tests" / "models" / "run_split.mjs"


@pytest.mark.parametrize("family", FAMILIES)
def test_family_equals_single_graph_in_pytorch(tiny_model, family):
    """A family graph computes the explainer graph's outputs, bit for bit but for the
    proposed relevance without the classic stream beside it: its Linear denominators come
    from the forward's products also above the last block's attention (families.py)."""
    cfg, sd = tiny_model
    single = build_explainer(cfg, sd)
    graph = build_family(cfg, sd, family)
    passes = FAMILIES[family]
    for seed, flag in ((3, 1.0), (4, 0.0)):
        pixels, tgt = random_inputs(cfg, 3, seed)
        tgt[1] = 0  # a predicted-class row
        with torch.no_grad():
            want = dict(zip(OUTPUT_NAMES, single(pixels, tgt, *[torch.tensor(flag)] * 3)))
            got = graph(pixels, tgt, *[torch.tensor(flag)] * len(switches_of(passes)))
        assert len(got) == len(outputs_of(passes))
        for name, value in zip(outputs_of(passes), got):
            if name == "attn_rel":
                assert_close("f32_vs_f32.attn_rel_denominators", value, want[name], f"{family}, seed {seed}")
            else:
                assert torch.equal(value, want[name]), f"{family}: {name}, seed {seed}"


@pytest.fixture(scope="module", params=["tiny_random_vit", "tiny_random_deit_distilled"])
def split_files(request, tmp_path_factory):
    from conftest import TINY, TINY_DISTILLED, lively_state_dict
    skip_without_ort()
    cfg = {c.name: c for c in (TINY, TINY_DISTILLED)}[request.param]
    sd = lively_state_dict(cfg)
    out = tmp_path_factory.mktemp("split")
    plain = out / f"{cfg.name}.forward.onnx"
    export_plain(build_plain(cfg, sd), cfg, plain)
    files = export_split(cfg, sd, out, cfg.name, plain=plain)
    return cfg, sd, out, files


def test_split_files_share_one_weights_file(split_files):
    cfg, sd, out, files = split_files
    weights = out / files["weights"]
    stored = sum(t.numel() * 4 for t in sd.values())
    assert weights.stat().st_size < stored * 1.05  # every tensor once (plus alignment)
    for f in [files[key] for key in ("photo", "target", "forward")] + list(files["families"].values()):
        model = onnx.load(str(out / f), load_external_data=False)
        weights = [i for i in model.graph.initializer if is_weight(i)]
        assert weights, f
        for init in weights:
            assert init.data_location == onnx.TensorProto.EXTERNAL, init.name
            assert {e.key: e.value for e in init.external_data}["location"] == files["weights"]
        small = [i.name for i in model.graph.initializer if not is_weight(i) and np.prod(i.dims) > 1024]
        assert not small, f"{f}: constants that are no weights of the checkpoint: {small[:5]}"
        onnx.checker.check_model(str(out / f))
    photo = onnx.load(str(out / files["photo"]), load_external_data=False)
    class_graph = onnx.load(str(out / files["target"]), load_external_data=False)
    cache_out = [o.name for o in photo.graph.output if o.name.startswith("cache.")]
    cache_in = [i.name for i in class_graph.graph.input if i.name.startswith("cache.")]
    assert cache_out == cache_in == files["cache"]


def test_split_plain_forward_reads_the_shared_weights(split_files, tmp_path):
    cfg, sd, out, files = split_files
    # a batch of two: the page predicts one photo, the evaluations several at once
    pixels = torch.cat([random_inputs(cfg, 1, seed)[0] for seed in (11, 12)])
    got = run_feeds(out / files["forward"], tmp_path, {"pixels": pixels.numpy()}, ["logits"],
                    weights=out / files["weights"])["logits"]
    with torch.no_grad():
        want = build_plain(cfg, sd)(pixels).numpy()
    assert_close("ort_vs_torch.logits", got, want, "the split's plain forward graph")


def formed_feeds(path):
    """A switched family graph's (families.SWITCHED_FAMILY) denominator inputs on a photo's
    first run: one row formed, none given (their symbolic axis 0)."""
    graph = onnx.load(str(path), load_external_data=False).graph
    feeds = {}
    for i in graph.input:
        if i.name == "inverse_rows":
            feeds[i.name] = np.ones((1, 1, 1), np.float32)
        elif i.name.startswith("given."):
            feeds[i.name] = np.zeros([d.dim_value for d in i.type.tensor_type.shape.dim], np.float32)
    return feeds


@pytest.mark.parametrize("family", FAMILIES)
def test_family_graph_matches_single_graph(split_files, family, tmp_path):
    cfg, sd, out, files = split_files
    single = build_explainer(cfg, sd)
    switches, outputs = switches_of(FAMILIES[family]), outputs_of(FAMILIES[family])
    graph = out / files["families"][family]
    assert bool(formed_feeds(graph)) == (family == SWITCHED_FAMILY), "only the switched family forms denominators"
    for seed, k, flag in ((11, 3, 1.0), (12, 1, 0.0)):
        pixels, tgt = random_inputs(cfg, k, seed)
        feeds = {"pixels": pixels.numpy(), "target": tgt.numpy(), **{n: np.asarray(flag) for n in switches},
                 **formed_feeds(graph)}
        got = run_feeds(out / files["families"][family], tmp_path / f"{seed}", feeds, outputs,
                        weights=out / files["weights"])
        with torch.no_grad():
            want = dict(zip(OUTPUT_NAMES, (o.numpy() for o in single(pixels, tgt, *[torch.tensor(flag)] * 3))))
        for name in outputs:
            assert got[name].shape == want[name].shape, name
            assert_close(f"ort_vs_torch.{name}", got[name], want[name], f"{family} graph, seed {seed}")


def test_switched_family_given_its_denominators_computes_the_same(split_files, tmp_path):
    """The switched family graph given the denominators its first run formed (a class
    switch: no row formed) gives that run's outputs for another class, bit for bit, and
    forms none."""
    cfg, _, out, files = split_files
    graph, weights = out / files["families"][SWITCHED_FAMILY], out / files["weights"]
    pixels, tgt = random_inputs(cfg, 2, 21)
    base = {"pixels": pixels.numpy(), "target": tgt.numpy()}
    first_feeds = formed_feeds(graph)
    formed = ["formed." + n[len("given."):] for n in first_feeds if n.startswith("given.")]
    outputs = outputs_of(FAMILIES[SWITCHED_FAMILY])
    first = run_feeds(graph, tmp_path / "first", {**base, **first_feeds}, outputs + formed, weights=weights)
    given = {"inverse_rows": np.ones((0, 1, 1), np.float32),
             **{"given." + n[len("formed."):]: first[n] for n in formed}}
    switch = run_feeds(graph, tmp_path / "switch", {**base, **given}, outputs + formed, weights=weights)
    for name in outputs:
        assert np.array_equal(switch[name], first[name]), name
    for name in formed:
        assert first[name].size > 0 and switch[name].size == 0, name


def test_split_plain_forward_leaves_nothing_to_fold(split_files):
    """The page opens the plain forward graph with onnxruntime's optimisation off
    (runtime/explainer.js, FORWARD_SESSION): no node may merely rearrange a weight, which
    the optimiser would have folded once and every run would now repeat."""
    _, _, out, files = split_files
    graph = onnx.load(str(out / files["forward"]), load_external_data=False).graph
    weights = {i.name for i in graph.initializer}
    rearranged = [f"{n.op_type}({n.input[0]})" for n in graph.node
                  if n.op_type in ("Transpose", "Reshape", "Squeeze", "Unsqueeze", "Cast", "Identity")
                  and n.input[0] in weights and n.input[0].startswith("params.")]
    assert not rearranged, f"nodes that only rearrange a weight: {rearranged[:5]}"
    # the batch axis is read only to expand the class token (torch's Expand reads it twice);
    # every other shape is a constant
    shapes = sum(n.op_type == "Shape" for n in graph.node)
    assert shapes <= 2, f"{shapes} Shape nodes: shape arithmetic the optimiser would have folded"


# K read at run time (Shape nodes) only where a switch cuts a stream to 0 or K rows and for
# the outputs' row count; every other shape is a constant
K_READS = {"transformer_attribution": 0, "lrp": 4, "attnlrp": 2}


def all_ops(graph):
    """The op of every node, the loop bodies' included."""
    return [op for n in graph.node
            for op in [n.op_type] + [o for a in n.attribute if a.HasField("g") for o in all_ops(a.g)]]


def test_family_graphs_carry_no_shape_arithmetic(split_files):
    """Opening a session walks every node (docs/experiments.md): no If (squeeze on the
    dynamic K exports one, with two subgraphs), no Pad (F.pad on a dynamic K exports its
    pads' shape arithmetic), no Shape chains building reshape targets from K."""
    _, _, out, files = split_files
    for family, file in files["families"].items():
        ops = all_ops(onnx.load(str(out / file), load_external_data=False).graph)
        assert ops.count("If") == 0 and ops.count("Pad") == 0, family
        assert ops.count("Shape") <= K_READS[family], f"{family}: {ops.count('Shape')} Shape nodes"


@pytest.mark.parametrize("k,flag", [(1, 0.0), (3, 1.0)])
def test_split_onnx_matches_single_graph(split_files, k, flag, tmp_path):
    cfg, sd, out, files = split_files
    single = build_explainer(cfg, sd)
    results = []
    for seed in (11, 12):  # the seeds of test_lrp_onnx.py (some seeds amplify float32 rounding more)
        pixels, tgt = random_inputs(cfg, k, seed)
        switches = ("pixel_relevance", "attnlrp_relevance", "cp_lrp_relevance")  # all on or all off
        feeds = {"pixels": pixels.numpy(), "target": tgt.numpy(), **{n: np.asarray(flag, np.float32) for n in switches}}
        cmd = ["node", str(RUNNER), "--photo", str(out / files["photo"]), "--class-graph", str(out / files["target"]),
               "--weights", str(out / files["weights"]), "--out", str(tmp_path / f"out{seed}")]
        for name, value in feeds.items():
            np.save(tmp_path / f"{name}{seed}.npy", value.astype(np.float32))
            cmd += ["--input", f"{name}={tmp_path / f'{name}{seed}.npy'}"]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=REPO_ROOT)
        assert done.returncode == 0, done.stderr
        got = {n: np.load(tmp_path / f"out{seed}" / f"{n}.npy") for n in OUTPUT_NAMES}
        with torch.no_grad():
            want = dict(zip(OUTPUT_NAMES, (o.numpy() for o in single(pixels, tgt, *[torch.tensor(flag)] * 3))))
        for name in OUTPUT_NAMES:
            assert got[name].shape == want[name].shape, name
            assert_close(f"ort_vs_torch.{name}", got[name], want[name], f"split seed {seed}")
        results.append(got)
    for name in ("logits", "attn", "attn_grad", "attn_rel"):
        assert rel_err(results[0][name], results[1][name]) > 10 * BOUND[f"ort_vs_torch.{name}"], name


@pytest.mark.parametrize("depth", [1, 3])
def test_the_switched_family_takes_inverse_rows_only_with_blocks_below_the_last(depth):
    """A 1-block model forms no denominators: its switched family graph must not ask the
    runtime for `inverse_rows` (which it feeds only beside `given.*` inputs)."""
    from layout_writers import random_checkpoint
    from models.exporter.config import ViTConfig
    from models.exporter.exported_graphs import explainer_model
    from models.exporter.params import ViTParams

    cfg = ViTConfig(name="s", depth=depth, heads=2, embed_dim=32, patch_size=8, image_size=(16, 16), num_classes=3)
    graph = explainer_model(cfg, ViTParams(cfg, random_checkpoint(cfg)), FAMILIES[SWITCHED_FAMILY], None,
                            switched=True)
    onnx.checker.check_model(graph)
    inputs = [i.name for i in graph.graph.input]
    given = [n for n in inputs if n.startswith("given.")]
    assert ("inverse_rows" in inputs) == bool(given) == (depth > 1), inputs
