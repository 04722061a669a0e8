"""The `<name>.json` metadata of a text model (docs/architecture.md, "Text models")."""
from typing import Dict, List

from ..metadata import FORMAT, FORMAT_VERSION, K, Dim
from .config import TextConfig

S = "S"  # the symbolic number of tokens


def input_shapes(cfg: TextConfig) -> Dict[str, List[Dim]]:
    return {"input_ids": [1, S], "target": [K, cfg.num_classes], "token_relevance": [],
            "attnlrp_relevance": [], "cp_lrp_relevance": []}


def output_shapes(cfg: TextConfig) -> Dict[str, List[Dim]]:
    b, h = cfg.depth, cfg.heads
    return {"logits": [1, cfg.num_classes], "attn": [b, h, S, S], "attn_grad": [K, b, h, S, S],
            "attn_rel": [K, b, h, S, S], "attn_rel_classic_last": [K, h, S, S], "input_rel_classic": [K, S],
            "input_rel_attnlrp": [K, S], "input_rel_cp_lrp": [K, S]}


def architecture_json(cfg: TextConfig) -> dict:
    return {"family": cfg.family, "blocks": cfg.depth, "heads": cfg.heads, "embed_dim": cfg.embed_dim,
            "max_tokens": cfg.max_tokens, "num_classes": cfg.num_classes, "vocab_size": cfg.vocab_size,
            # not read by the runtime, but needed to rebuild the graph from the JSON alone
            "mlp_dim": cfg.mlp_dim, "ln_eps": cfg.ln_eps, "act": cfg.act, "pooler": cfg.pooler,
            "type_vocab_size": cfg.type_vocab_size}


def build_text_metadata(cfg: TextConfig, labels: List[str], tokenizer: dict, files: Dict[str, str],
                        checkpoint_file: str, checkpoint_sha256: str, exporter_version: str) -> dict:
    """files: {"onnx": <name>.onnx, "vocab": <name>.vocab.txt}."""
    return {
        "format": FORMAT, "format_version": FORMAT_VERSION, "kind": "text",
        "name": cfg.name, "onnx": files["onnx"],
        "architecture": architecture_json(cfg),
        "tokenizer": {"vocab": files["vocab"], **tokenizer},
        "labels": list(labels),
        "inputs": input_shapes(cfg), "outputs": output_shapes(cfg),
        "source": {"checkpoint": checkpoint_file, "sha256": checkpoint_sha256},
        "exporter": {"version": exporter_version},
    }
