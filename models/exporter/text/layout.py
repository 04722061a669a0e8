"""Reading a Hugging Face text classifier folder (`save_pretrained` of
BertForSequenceClassification or DistilBertForSequenceClassification: config.json,
pytorch_model.bin or model.safetensors, vocab.txt, tokenizer_config.json) into the
exporter's terms: TextConfig, the tensors under the exporter's key names (params.py),
the labels, the tokenizer settings and the vocabulary file.

Key names, both families -> ours: the embeddings (`embed.word`, `embed.position`,
`embed.token_type` for BERT, `embed.norm`), per layer `blocks.<b>.attn.qkv` (query, key
and value stacked in that order, as the ViT exporter's fused qkv), `attn.proj`, `norm1`
(the LayerNorm after attention), `mlp.fc1`, `mlp.fc2`, `norm2` (after the MLP), then
`pooler` (BERT) or `pre_classifier` (DistilBERT) and `head` (the classifier)."""
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Mapping, Optional

import torch

from ..errors import CheckpointMismatch, CheckpointUnreadable
from ..layouts.files import folder_weights, read_json, read_weights
from .config import TextConfig

# model_type -> the key prefix of the encoder
FAMILY_PREFIX = {"bert": "bert.", "distilbert": "distilbert."}
SUPPORTED = "BertForSequenceClassification and DistilBertForSequenceClassification"
# Text models users may try, and why they are not read yet: one sentence each.
NOT_YET = {
    "roberta": "its byte-level BPE tokenizer and position ids offset by the padding index are not implemented",
    "xlm-roberta": "its SentencePiece tokenizer and position ids offset by the padding index are not implemented",
    "camembert": "its SentencePiece tokenizer and position ids offset by the padding index are not implemented",
    "albert": "its factorised embeddings, shared layers and SentencePiece tokenizer are not implemented",
    "electra": "its embedding projection and two-layer classification head are not implemented",
    "deberta": "its disentangled relative-position attention is not implemented",
    "deberta-v2": "its disentangled relative-position attention is not implemented",
    "mpnet": "its relative-position attention is not implemented",
    "xlnet": "its relative-position, permutation attention is not implemented",
    "gpt2": "it is a decoder (causal attention, no [CLS] token): these explanations are defined for encoders",
    "llama": "it is a decoder (causal attention, no [CLS] token): these explanations are defined for encoders",
    "mistral": "it is a decoder (causal attention, no [CLS] token): these explanations are defined for encoders",
    "t5": "it is an encoder-decoder with relative positions: these explanations are defined for encoders",
    "bart": "it is an encoder-decoder: these explanations are defined for encoders",
}
# HF hidden_act -> forward.activation's names
ACTS = {"gelu": "gelu", "gelu_new": "gelu_tanh", "gelu_pytorch_tanh": "gelu_tanh"}
# HF BertTokenizer's defaults for what tokenizer_config.json may leave out
TOKENIZER_DEFAULTS = {"do_lower_case": True, "strip_accents": None, "tokenize_chinese_chars": True,
                      "cls_token": "[CLS]", "sep_token": "[SEP]", "unk_token": "[UNK]", "pad_token": "[PAD]"}
VOCAB_MAX_BYTES = 64 << 20  # WordPiece vocabularies are a few MB; checked before reading

_BERT_LAYER = {"attention.output.dense": "attn.proj", "attention.output.LayerNorm": "norm1",
               "intermediate.dense": "mlp.fc1", "output.dense": "mlp.fc2", "output.LayerNorm": "norm2"}
_DISTIL_LAYER = {"attention.out_lin": "attn.proj", "sa_layer_norm": "norm1", "ffn.lin1": "mlp.fc1",
                 "ffn.lin2": "mlp.fc2", "output_layer_norm": "norm2"}
_QKV = {"attention.self.query": "q", "attention.self.key": "k", "attention.self.value": "v",
        "attention.q_lin": "q", "attention.k_lin": "k", "attention.v_lin": "v"}
_EMBEDDINGS = {"word_embeddings.weight": "embed.word", "position_embeddings.weight": "embed.position",
               "token_type_embeddings.weight": "embed.token_type", "LayerNorm.weight": "embed.norm.weight",
               "LayerNorm.bias": "embed.norm.bias", "LayerNorm.gamma": "embed.norm.weight",
               "LayerNorm.beta": "embed.norm.bias"}
_HEAD = {"pooler.dense": "pooler", "pre_classifier": "pre_classifier", "classifier": "head"}


@dataclass(frozen=True)
class TextCheckpoint:
    library: str  # "Hugging Face BertForSequenceClassification"
    cfg: TextConfig
    state_dict: Dict  # our key names (params.text_param_shapes), float32
    labels: List[str]
    tokenizer: Dict  # the metadata's tokenizer block, without the vocab file name
    vocab: Path  # the folder's vocab.txt


def text_model_type(config: Optional[dict]) -> Optional[str]:
    """The config's model_type when the folder holds a text model (supported or not), else None."""
    if not config:
        return None
    model_type = config.get("model_type")
    archs = " ".join(config.get("architectures") or [])
    if model_type in FAMILY_PREFIX or model_type in NOT_YET:
        return model_type
    if re.search(r"For(SequenceClassification|MaskedLM|CausalLM|TokenClassification|QuestionAnswering)\b", archs):
        return model_type or archs
    return None


def read_text_folder(folder: Path, name: str, labels_file: Optional[Path] = None) -> TextCheckpoint:
    """A BERT/DistilBERT sequence classifier folder -> TextCheckpoint; one sentence (a
    CheckpointMismatch or CheckpointUnreadable) naming the file and field otherwise."""
    config_path = folder / "config.json"
    config = read_json(config_path) or {}
    model_type = text_model_type(config)
    archs = config.get("architectures") or []
    if model_type not in FAMILY_PREFIX:
        what = f"model_type {model_type!r}" + (f" ({', '.join(archs)})" if archs else "")
        why = NOT_YET.get(model_type, "only the BERT family is implemented")
        raise CheckpointMismatch(f"{config_path}: {what} is not supported yet: {why}; "
                                 f"this exporter reads {SUPPORTED}")
    if archs and not any(a.endswith("ForSequenceClassification") for a in archs):
        raise CheckpointMismatch(f"{config_path}: architectures {', '.join(archs)} is not a sequence "
                                 f"classifier; this exporter reads {SUPPORTED}")
    if config.get("position_embedding_type", "absolute") != "absolute":
        raise CheckpointMismatch(f"{config_path}: position_embedding_type "
                                 f"{config['position_embedding_type']!r} is not supported (only 'absolute')")
    weights_path = folder_weights(folder)
    sd = rename(read_weights(weights_path), model_type, weights_path)
    cfg = _config(config, config_path, sd, model_type, name)
    tensors = check_shapes(cfg, sd, weights_path)
    vocab_path = folder / "vocab.txt"
    vocab = read_vocab(vocab_path)
    if len(vocab) != cfg.vocab_size:
        raise CheckpointMismatch(f"{vocab_path} has {len(vocab)} tokens, the word embeddings of "
                                 f"{weights_path.name} have {cfg.vocab_size} rows")
    tokenizer = tokenizer_settings(folder / "tokenizer_config.json", vocab, vocab_path)
    labels = read_label_lines(labels_file, cfg.num_classes) if labels_file else \
        label_names(config, config_path, cfg.num_classes)
    library = "Hugging Face " + (archs[0] if archs else model_type)
    return TextCheckpoint(library, cfg, tensors, labels, tokenizer, vocab_path)


def rename(state_dict: Mapping, model_type: str, path: Path) -> Dict:
    """Our key names (module docstring); one sentence naming the tensors left over."""
    prefix = FAMILY_PREFIX[model_type]
    layer_parts = _BERT_LAYER if model_type == "bert" else _DISTIL_LAYER
    layer_re = r"(?:encoder|transformer)\.layer\.(\d+)\.(.+)\.(weight|bias|gamma|beta)"
    out, qkv, left = {}, {}, []
    for key, value in state_dict.items():
        short = key[len(prefix):] if key.startswith(prefix) else key
        m = re.fullmatch(layer_re, short)
        kind = {"gamma": "weight", "beta": "bias"}.get(m.group(3), m.group(3)) if m else None
        if m and m.group(2) in _QKV:
            qkv.setdefault((int(m.group(1)), kind), {})[_QKV[m.group(2)]] = value
        elif m and m.group(2) in layer_parts:
            out[f"blocks.{m.group(1)}.{layer_parts[m.group(2)]}.{kind}"] = value
        elif short.startswith("embeddings.") and short[len("embeddings."):] in _EMBEDDINGS:
            out[_EMBEDDINGS[short[len("embeddings."):]]] = value
        elif short in ("embeddings.position_ids", "embeddings.token_type_ids"):
            continue  # buffers HF saves in some versions: 0..P-1 and zeros, not weights
        elif short.rsplit(".", 1)[0] in _HEAD and short.rsplit(".", 1)[1] in ("weight", "bias"):
            part, kind = short.rsplit(".", 1)
            out[f"{_HEAD[part]}.{kind}"] = value
        else:
            left.append(key)
    if left:
        shown = ", ".join(sorted(left)[:6]) + (f" and {len(left) - 6} more" if len(left) > 6 else "")
        raise CheckpointMismatch(f"{path}: {len(left)} tensor(s) match no {model_type} classifier "
                                 f"parameter: {shown}")
    for (b, kind), parts in sorted(qkv.items()):
        if set(parts) != {"q", "k", "v"}:
            raise CheckpointMismatch(f"{path}: layer {b} lacks the attention {kind} of "
                                     f"{', '.join(sorted({'q', 'k', 'v'} - set(parts)))}")
        out[f"blocks.{b}.attn.qkv.{kind}"] = torch.cat([parts["q"], parts["k"], parts["v"]], 0)
    if "head.weight" not in out:
        raise CheckpointMismatch(f"{path} has no classifier: save a *ForSequenceClassification model, "
                                 "not the bare encoder")
    return out


def _config(config: dict, path: Path, sd: Mapping, model_type: str, name: str) -> TextConfig:
    """TextConfig from the tensors' shapes, checked against config.json's fields."""
    vocab, dim = sd["embed.word"].shape if "embed.word" in sd else (0, 0)
    if not dim:
        raise CheckpointMismatch(f"{path.parent}: the weights have no word embeddings")
    depth = 1 + max([int(k.split(".")[1]) for k in sd if k.startswith("blocks.")], default=-1)
    bert = model_type == "bert"
    fields = (("hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size", "hidden_act")
              if bert else ("dim", "n_layers", "n_heads", "hidden_dim", "activation"))
    for field, found, what in ((fields[0], dim, "the word embeddings' width"), (fields[1], depth, "layers"),
                               ("vocab_size", vocab, "word embedding rows")):
        if field in config and config[field] != found:
            raise CheckpointMismatch(f"{path}: {field} is {config[field]}, the weights have {found} ({what})")
    heads = config.get(fields[2])
    if not isinstance(heads, int) or heads <= 0 or dim % heads:
        raise CheckpointMismatch(f"{path}: {fields[2]} {heads!r} does not divide the width {dim}")
    act = ACTS.get(config.get(fields[4], "gelu"))
    if act is None:
        raise CheckpointMismatch(f"{path}: {fields[4]} {config.get(fields[4])!r} is not supported "
                                 f"({', '.join(ACTS)})")
    eps = config.get("layer_norm_eps", 1e-12) if bert else 1e-12  # DistilBERT's is fixed at 1e-12
    if not isinstance(eps, (int, float)) or not eps > 0:
        raise CheckpointMismatch(f"{path}: layer_norm_eps {eps!r} is not a positive number")
    if bert and "pooler.weight" not in sd:
        raise CheckpointMismatch(f"{path.parent}: the BERT weights have no pooler (bert.pooler.dense)")
    mlp = sd["blocks.0.mlp.fc1.weight"].shape[0] if depth else 4 * dim
    return TextConfig(name=name, family=model_type, depth=depth, heads=heads, embed_dim=dim, mlp_dim=mlp,
                      max_tokens=sd["embed.position"].shape[0] if "embed.position" in sd else 0,
                      num_classes=sd["head.weight"].shape[0], vocab_size=vocab,
                      type_vocab_size=sd["embed.token_type"].shape[0] if "embed.token_type" in sd else 0,
                      ln_eps=float(eps), act=act)


def check_shapes(cfg: TextConfig, sd: Mapping, path: Path) -> Dict:
    """The tensors restricted to the graph's, float32; one sentence when one is missing or
    of another shape than the layout read says."""
    from .params import text_param_shapes

    shapes = text_param_shapes(cfg)
    extra = [k for k in sd if k not in shapes]
    missing = [k for k in shapes if k not in sd]
    if extra or missing:
        which = f"lacks {', '.join(missing[:5])}" if missing else f"has unexpected {', '.join(extra[:5])}"
        raise CheckpointMismatch(f"{path}: the {cfg.family} classifier {which}")
    wrong = [f"{k} is {list(sd[k].shape)}, expected {list(s)}" for k, s in shapes.items()
             if tuple(sd[k].shape) != s]
    if wrong:
        raise CheckpointMismatch(f"{path}: tensors of inconsistent shapes: {'; '.join(wrong[:3])}")
    return {k: sd[k].float() for k in shapes}


def read_vocab(path: Path) -> List[str]:
    """The WordPiece vocabulary, one token per line (HF load_vocab: index = line number)."""
    if not path.is_file():
        raise CheckpointUnreadable(f"{path.parent} has no vocab.txt (the WordPiece vocabulary)")
    size = path.stat().st_size
    if size > VOCAB_MAX_BYTES:
        raise CheckpointUnreadable(f"{path} is {size / 1e6:.0f} MB, larger than any WordPiece vocabulary "
                                   f"({VOCAB_MAX_BYTES >> 20} MB at most)")
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as err:
        raise CheckpointUnreadable(f"{path} is not UTF-8 text (byte {err.start})") from None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line.rstrip("\r") for line in lines]


def tokenizer_settings(path: Path, vocab: List[str], vocab_path: Path) -> Dict:
    """The metadata's tokenizer block from tokenizer_config.json (BertTokenizer's defaults
    where a field is absent), with the special tokens' ids, each checked in the vocabulary."""
    given = read_json(path) or {}
    out = {}
    for field, default in TOKENIZER_DEFAULTS.items():
        value = given.get(field, default)
        if isinstance(value, dict) and field.endswith("_token"):  # an AddedToken: {"content": ...}
            value = value.get("content")
        ok = isinstance(value, str) if field.endswith("_token") else \
            (value is None or isinstance(value, bool)) if field == "strip_accents" else isinstance(value, bool)
        if not ok:
            raise CheckpointMismatch(f"{path}: {field} is {value!r}, expected "
                                     f"{'a string' if field.endswith('_token') else 'true or false'}")
        out[field] = value
    index = {token: i for i, token in reversed(list(enumerate(vocab)))}  # the first line wins, as HF
    for field in ("cls_token", "sep_token", "unk_token", "pad_token"):
        if out[field] not in index:
            raise CheckpointMismatch(f"{vocab_path} lacks the {field} {out[field]!r} ({path.name})")
        out[field.replace("_token", "_id")] = index[out[field]]
    return out


def label_names(config: dict, path: Path, count: int) -> List[str]:
    """id2label in index order; HF's LABEL_<i> when the config has none."""
    id2label = config.get("id2label")
    if not id2label:
        return [f"LABEL_{i}" for i in range(count)]
    try:
        names = {int(k): str(v) for k, v in id2label.items()}
    except (AttributeError, ValueError):
        raise CheckpointMismatch(f"{path}: id2label is not an object of index -> name") from None
    if sorted(names) != list(range(count)):
        raise CheckpointMismatch(f"{path}: id2label names {len(names)} classes, the classifier has {count}")
    return [names[i] for i in range(count)]


def read_label_lines(path: Path, count: int) -> List[str]:
    lines = [line.strip() for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]
    if len(lines) != count:
        raise CheckpointMismatch(f"{path} has {len(lines)} class names, the classifier has {count}")
    return lines


def describe(ckpt: TextCheckpoint) -> str:
    """The detected layout in one paragraph (the exporter prints it)."""
    c, t = ckpt.cfg, ckpt.tokenizer
    head = "pooler tanh(Linear(h[CLS])) -> classifier" if c.pooler else \
        "pre_classifier ReLU(Linear(h[CLS])) -> classifier"
    return (f"{c.name}: {ckpt.library}, {c.depth} layers, width {c.embed_dim}, {c.heads} heads, "
            f"FFN {c.mlp_dim}, {c.num_classes} classes ({', '.join(ckpt.labels)})\n"
            f"  embeddings: {c.vocab_size} words + {c.max_tokens} positions"
            + (f" + {c.type_vocab_size} token types" if c.type_vocab_size else "")
            + f"; post-LN layers, LayerNorm eps {c.ln_eps:g}; activation {c.act}; head: {head}\n"
            f"  tokenizer: WordPiece, {'uncased' if t['do_lower_case'] else 'cased'}, "
            f"{t['cls_token']} ... {t['sep_token']}, at most {c.max_tokens} tokens")
