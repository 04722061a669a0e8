"""Tiny random Hugging Face text classifiers for the text exporter's tests: state dicts on
Hugging Face's own key names (BertForSequenceClassification, DistilBertForSequenceClassification)
and the save_pretrained folder they would be in (config.json, pytorch_model.bin, vocab.txt,
tokenizer_config.json)."""
import json
from pathlib import Path

import torch

SPECIALS = ["[PAD]", "[unused0]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
WORDS = ["the", "a", "movie", "film", "good", "bad", "not", "great", "plot", "acting", "is", "was", "!", ".",
         ",", "##s", "##ly", "##ing", "witty", "dull", "i", "it", "and", "but"]
VOCAB = SPECIALS + WORDS  # 30 tokens: [CLS] = 3, [SEP] = 4


def small_config(family: str, depth: int = 2, heads: int = 2, dim: int = 16, mlp: int = 24, classes: int = 3,
                 positions: int = 24, act: str = "gelu"):
    """config.json of a tiny model."""
    labels = {str(i): f"label {i}" for i in range(classes)}
    if family == "bert":
        return {"architectures": ["BertForSequenceClassification"], "model_type": "bert", "hidden_size": dim,
                "num_hidden_layers": depth, "num_attention_heads": heads, "intermediate_size": mlp,
                "hidden_act": act, "max_position_embeddings": positions, "type_vocab_size": 2,
                "vocab_size": len(VOCAB), "layer_norm_eps": 1e-12, "id2label": labels,
                "position_embedding_type": "absolute"}
    return {"architectures": ["DistilBertForSequenceClassification"], "model_type": "distilbert", "dim": dim,
            "n_layers": depth, "n_heads": heads, "hidden_dim": mlp, "activation": act,
            "max_position_embeddings": positions, "vocab_size": len(VOCAB), "id2label": labels}


def random_state_dict(config: dict, seed: int = 0):
    """Random weights on HF's key names, lively enough that attention is far from uniform
    and every sign pattern occurs (the LRP rules branch on signs)."""
    g = torch.Generator().manual_seed(seed)
    bert = config["model_type"] == "bert"
    d = config["hidden_size"] if bert else config["dim"]
    m = config["intermediate_size"] if bert else config["hidden_dim"]
    depth = config["num_hidden_layers"] if bert else config["n_layers"]
    classes = len(config["id2label"])

    def r(*shape, scale):
        return torch.randn(*shape, generator=g) * scale

    def linear(key, n_out, n_in, scale):
        return {key + ".weight": r(n_out, n_in, scale=scale), key + ".bias": r(n_out, scale=0.1)}

    def norm(key):
        return {key + ".weight": 1 + r(d, scale=0.2), key + ".bias": r(d, scale=0.1)}

    pre = "bert." if bert else "distilbert."
    sd = {pre + "embeddings.word_embeddings.weight": r(config["vocab_size"], d, scale=1.0),
          pre + "embeddings.position_embeddings.weight": r(config["max_position_embeddings"], d, scale=0.5),
          **norm(pre + "embeddings.LayerNorm")}
    if bert:
        sd[pre + "embeddings.token_type_embeddings.weight"] = r(2, d, scale=0.5)
        sd.update(linear("bert.pooler.dense", d, d, 0.5))
    else:
        sd.update(linear("pre_classifier", d, d, 0.5))
    sd.update(linear("classifier", classes, d, 0.5))
    for b in range(depth):
        if bert:
            layer = f"bert.encoder.layer.{b}."
            parts = {"q": "attention.self.query", "k": "attention.self.key", "v": "attention.self.value",
                     "o": "attention.output.dense", "n1": "attention.output.LayerNorm",
                     "f1": "intermediate.dense", "f2": "output.dense", "n2": "output.LayerNorm"}
        else:
            layer = f"distilbert.transformer.layer.{b}."
            parts = {"q": "attention.q_lin", "k": "attention.k_lin", "v": "attention.v_lin",
                     "o": "attention.out_lin", "n1": "sa_layer_norm", "f1": "ffn.lin1", "f2": "ffn.lin2",
                     "n2": "output_layer_norm"}
        for p in ("q", "k", "v"):
            sd.update(linear(layer + parts[p], d, d, 0.6))
        sd.update(linear(layer + parts["o"], d, d, 0.4))
        sd.update(linear(layer + parts["f1"], m, d, 0.4))
        sd.update(linear(layer + parts["f2"], d, m, 0.3))
        sd.update(norm(layer + parts["n1"]))
        sd.update(norm(layer + parts["n2"]))
    return sd


def write_folder(folder: Path, config: dict, state_dict=None, vocab=VOCAB, tokenizer=None, seed: int = 0) -> Path:
    """A save_pretrained folder of the model; returns it."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps(config))
    torch.save(random_state_dict(config, seed) if state_dict is None else state_dict, folder / "pytorch_model.bin")
    (folder / "vocab.txt").write_text("".join(t + "\n" for t in vocab), encoding="utf-8")
    (folder / "tokenizer_config.json").write_text(json.dumps(tokenizer or {"do_lower_case": True}))
    return folder


def random_ids(tokens: int, seed: int):
    """[1, tokens]: [CLS], random words, [SEP]."""
    words = torch.randint(len(SPECIALS), len(VOCAB), (tokens - 2,), generator=torch.Generator().manual_seed(seed))
    return torch.cat([torch.tensor([VOCAB.index("[CLS]")]), words, torch.tensor([VOCAB.index("[SEP]")])])[None]
