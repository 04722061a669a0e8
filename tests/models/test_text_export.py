"""Reading Hugging Face text classifier folders (models/exporter/text/layout.py) and the
`export.py --source FOLDER` command on them: what is read, what is written, and one
sentence for each folder that cannot be exported."""
import json

import numpy as np

import onnx
import pytest
import torch

from bert_reference64 import Reference
from cli_runner import run_export
from random_bert import VOCAB, random_ids, random_state_dict, small_config, write_folder

from models.exporter.errors import CheckpointMismatch, ExportCheckFailed
from models.exporter.text.config import TextConfig
from models.exporter.text.families import TEXT_FAMILIES, prune_to
from models.exporter.text.graphs import FAMILY_LIMIT, verify_families
from models.exporter.text.explainer import build_text_plain
from models.exporter.text.layout import read_text_folder


@pytest.mark.parametrize("family", ["bert", "distilbert"])
def test_the_reader_keeps_the_model(family, tmp_path):
    """The plain forward on the read tensors equals an independent forward on HF's keys."""
    config = small_config(family, classes=4)
    sd = random_state_dict(config, seed=1)
    ckpt = read_text_folder(write_folder(tmp_path, config, sd), "tiny")
    cfg = ckpt.cfg
    assert (cfg.family, cfg.depth, cfg.heads, cfg.embed_dim, cfg.mlp_dim, cfg.num_classes, cfg.max_tokens,
            cfg.vocab_size) == (family, 2, 2, 16, 24, 4, 24, len(VOCAB))
    assert ckpt.labels == ["label 0", "label 1", "label 2", "label 3"]
    assert ckpt.tokenizer["cls_id"] == VOCAB.index("[CLS]") and ckpt.tokenizer["do_lower_case"] is True
    ref = Reference(config, sd)
    for tokens in (2, 9, 24):
        ids = random_ids(tokens, seed=tokens)
        with torch.no_grad():
            got = build_text_plain(cfg, ckpt.state_dict).double()(ids)
            want, _ = ref.autograd_forward(ref.embeddings(ids))
        assert torch.allclose(got, want, rtol=1e-12, atol=1e-12), tokens


def test_cased_tokenizer_settings_and_added_token_objects(tmp_path):
    tokenizer = {"do_lower_case": False, "strip_accents": False, "cls_token": {"content": "[CLS]"}}
    ckpt = read_text_folder(write_folder(tmp_path, small_config("bert"), tokenizer=tokenizer), "cased")
    assert ckpt.tokenizer["do_lower_case"] is False and ckpt.tokenizer["strip_accents"] is False
    assert ckpt.tokenizer["cls_token"] == "[CLS]"


def test_old_layer_norm_names_gamma_beta_are_read(tmp_path):
    config = small_config("bert")
    sd = {k.replace("LayerNorm.weight", "LayerNorm.gamma").replace("LayerNorm.bias", "LayerNorm.beta"): v
          for k, v in random_state_dict(config).items()}
    assert read_text_folder(write_folder(tmp_path, config, sd), "old").cfg.depth == 2


def refusal(tmp_path, config=None, state_dict=None, vocab=VOCAB):
    weights = random_state_dict(small_config("bert")) if state_dict is None else state_dict
    folder = write_folder(tmp_path / "model", config or small_config("bert"), weights, vocab)
    with pytest.raises(CheckpointMismatch) as err:
        read_text_folder(folder, "bad")
    message = str(err.value)
    assert "\n" not in message
    return message


@pytest.mark.parametrize("model_type, why", [
    ("roberta", "byte-level BPE tokenizer"),
    ("gpt2", "decoder"),
    ("electra", "embedding projection"),
])
def test_other_text_models_are_not_supported_yet_and_say_why(tmp_path, model_type, why):
    config = {**small_config("bert"), "model_type": model_type,
              "architectures": [f"{model_type.capitalize()}ForSequenceClassification"]}
    message = refusal(tmp_path, config)
    assert f"model_type '{model_type}'" in message and "not supported yet" in message and why in message
    assert "BertForSequenceClassification and DistilBertForSequenceClassification" in message


def test_a_vocabulary_that_disagrees_with_the_embeddings_is_refused(tmp_path):
    message = refusal(tmp_path, vocab=VOCAB[:-3])
    assert "vocab.txt has 27 tokens, the word embeddings of pytorch_model.bin have 30 rows" in message


def test_a_bare_encoder_is_refused(tmp_path):
    config = small_config("bert")
    sd = {k: v for k, v in random_state_dict(config).items() if not k.startswith("classifier.")}
    assert "has no classifier" in refusal(tmp_path, config, sd)


def test_a_config_that_contradicts_the_weights_is_refused(tmp_path):
    message = refusal(tmp_path, {**small_config("bert"), "num_hidden_layers": 3})
    assert "num_hidden_layers is 3, the weights have 2 (layers)" in message


def test_an_unknown_tensor_is_named(tmp_path):
    config = small_config("distilbert")
    sd = {**random_state_dict(config), "distilbert.transformer.layer.0.attention.rotary.weight": torch.zeros(2)}
    assert "distilbert.transformer.layer.0.attention.rotary.weight" in refusal(tmp_path, config, sd)


def test_export_writes_the_text_model_folder_and_skips_when_up_to_date(tmp_path):
    folder = write_folder(tmp_path / "tiny-bert", small_config("bert"))
    out = tmp_path / "out"
    done = run_export("--source", folder, "--out", out, "--plain", "--split", "--attribution")
    assert done.returncode == 0, done.stderr
    assert "Hugging Face BertForSequenceClassification, 2 layers, width 16, 2 heads" in done.stdout
    assert "parity: the graph's logits are within" in done.stdout
    meta = json.loads((out / "tiny-bert.json").read_text())
    assert meta["kind"] == "text" and meta["architecture"]["family"] == "bert"
    assert meta["tokenizer"]["vocab"] == "tiny-bert.vocab.txt" and meta["labels"] == ["label 0", "label 1", "label 2"]
    assert meta["inputs"]["input_ids"] == [1, "S"] and meta["outputs"]["input_rel_classic"] == ["K", "S"]
    assert (out / "tiny-bert.vocab.txt").read_bytes() == (folder / "vocab.txt").read_bytes()
    entry = json.loads((out / "index.json").read_text())["models"][0]
    assert entry["kind"] == "text" and entry["vocab"] == "tiny-bert.vocab.txt"
    assert entry["attribution"]["blocks"] == ["tiny-bert.attr0.onnx", "tiny-bert.attr1.onnx"]
    for f in entry["sha256"]:
        assert (out / f).is_file(), f
    # the explainer, the forward and the family graphs read one weights file, none holds a weight
    assert entry["split"]["weights"] == "tiny-bert.weights.bin"
    assert entry["split"]["families"] == {f: f"tiny-bert.{f}.onnx" for f in TEXT_FAMILIES}
    assert "wrote the family graphs attention, transformer_attribution, lrp, attnlrp and the attribution graphs over " \
        "tiny-bert.weights.bin" in done.stdout
    # the attribution graphs too: one weights file in the folder
    attribution = entry["attribution"]
    assert attribution["weights"] == "tiny-bert.weights.bin" and not (out / "tiny-bert.attribution.bin").exists()
    for f in ["tiny-bert.onnx", "tiny-bert.forward.onnx", *entry["split"]["families"].values(), attribution["states"],
              attribution["masked"], *attribution["blocks"]]:
        graph = onnx.load(str(out / f), load_external_data=False).graph
        places = {e.value for t in graph.initializer if t.data_location == onnx.TensorProto.EXTERNAL
                  for e in t.external_data if e.key == "location"}
        assert places == {"tiny-bert.weights.bin"}, f
        assert all(t.data_location == onnx.TensorProto.EXTERNAL for t in graph.initializer if len(t.dims) > 1
                   and t.dims[0] * t.dims[1] > 256), f
        # every value between the nodes has its shape written (onnxruntime opens the graph in
        # a time that grows with the square of the values of unknown shape: shapes.py)
        inner = {o for n in graph.node if n.op_type != "Constant" for o in n.output} - {o.name for o in graph.output}
        assert inner - {v.name for v in graph.value_info} == set(), f
    again = run_export("--source", folder, "--out", out, "--plain", "--split", "--attribution")
    assert again.returncode == 0 and "up to date" in again.stdout


def products(model):
    return sum(n.op_type in ("MatMul", "Gemm") for n in model.graph.node)


def test_the_transformer_attribution_family_has_no_classic_stream_products(tmp_path):
    """Traced from its own module (proposed.py), not cut from the explainer: each proposed
    Linear denominator is one product beside the forward's, not the classic rule's two."""
    folder = write_folder(tmp_path / "tiny-bert", small_config("bert"))
    out = tmp_path / "out"
    assert run_export("--source", folder, "--out", out).returncode == 0
    family = "transformer_attribution"
    own = onnx.load(str(out / f"tiny-bert.{family}.onnx"), load_external_data=False)
    cut = prune_to(onnx.load(str(out / "tiny-bert.onnx"), load_external_data=False), list(TEXT_FAMILIES[family]))
    assert [i.name for i in own.graph.input] == ["input_ids", "target"]
    # one product fewer for each of the 4 Linears of the 2 layers but layer 0's q/k/v (below
    # every output: in neither graph)
    assert products(cut) - products(own) == 4 * 2 - 1


def test_export_refuses_image_options_and_unsupported_folders_in_one_line(tmp_path):
    folder = write_folder(tmp_path / "tiny-bert", small_config("bert"))
    done = run_export("--source", folder, "--out", tmp_path / "out", "--mean", "0.5,0.5,0.5")
    assert done.returncode == 2 and "--mean applies to image models" in done.stderr
    roberta = write_folder(tmp_path / "roberta", {**small_config("bert"), "model_type": "roberta"},
                           random_state_dict(small_config("bert")))
    done = run_export("--source", roberta, "--out", tmp_path / "out2")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "not supported yet" in done.stderr
    assert not (tmp_path / "out2").exists()


def test_a_family_graph_that_differs_from_the_explainer_is_refused(tmp_path):
    folder = write_folder(tmp_path / "tiny-bert", small_config("bert"))
    out = tmp_path / "out"
    assert run_export("--source", folder, "--out", out).returncode == 0
    entry = json.loads((out / "index.json").read_text())["models"][0]
    cfg = read_text_folder(folder, "tiny-bert", None).cfg
    assert isinstance(cfg, TextConfig)
    worst = verify_families(out, "tiny-bert", cfg, entry["split"])
    assert set(worst) == set(TEXT_FAMILIES) and max(worst.values()) <= FAMILY_LIMIT
    # the lrp family's file holding attnlrp's graph: wrong outputs, named
    lrp = (out / "tiny-bert.lrp.onnx").read_bytes()
    (out / "tiny-bert.lrp.onnx").write_bytes((out / "tiny-bert.attnlrp.onnx").read_bytes())
    with pytest.raises(ExportCheckFailed, match="tiny-bert.lrp.onnx has outputs"):
        verify_families(out, "tiny-bert", cfg, entry["split"])
    # the right names, numbers that differ: the lrp graph with its input_rel_classic doubled
    (out / "tiny-bert.lrp.onnx").write_bytes(lrp)
    model = onnx.load(str(out / "tiny-bert.lrp.onnx"), load_external_data=False)
    last = next(n for n in model.graph.node if "input_rel_classic" in n.output)
    last.output[list(last.output).index("input_rel_classic")] = "undoubled"
    model.graph.initializer.append(onnx.numpy_helper.from_array(np.array(2, dtype=np.float32), "two"))
    model.graph.node.append(onnx.helper.make_node("Mul", ["undoubled", "two"], ["input_rel_classic"]))
    onnx.save(model, str(out / "tiny-bert.lrp.onnx"))
    with pytest.raises(ExportCheckFailed, match=r"lrp \(1.0e\+00\) differ from the explainer graph's outputs"):
        verify_families(out, "tiny-bert", cfg, entry["split"])
