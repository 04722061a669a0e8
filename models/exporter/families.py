"""Graphs per method family: the explainer graph cut to the passes (passes.py) one family
of methods reads, so that a photo's first map runs, and first opens a session on, a graph
holding only those (onnxruntime's session opening grows with the nodes, docs/experiments.md).

A family is named after its lead method and takes the explainer graph's inputs and outputs
of the same names (docs/architecture.md, "The explainer graph contract"):
  transformer_attribution: the forward, the attention gradients and the proposed rules'
    relevance (Chefer et al.'s method and every baseline reading attn, attn_grad, attn_rel);
  lrp: the forward and the classic rules' relevance (partial LRP, full LRP);
  attnlrp: the forward and the AttnLRP and CP-LRP modified backward passes.
Each computes its outputs with the explainer graph's operations, but for the proposed
rule's Linear denominators without a classic stream beside it: from the forward's product
wherever there is one (lrp_rules.linear_relprop), as the explainer graph forms them below
the last block's attention with pixel_relevance 0.
"""
from typing import Dict, Tuple

from .config import ViTConfig
from .explainer import ExplainerGraph, build_explainer

# The family graph a large model's page runs for every class switch (one session at a time):
# it forms the Linear denominators on a photo's first run and takes them back after
# (exported_graphs.explainer_model, switched).
SWITCHED_FAMILY = "transformer_attribution"

FAMILIES: Dict[str, Tuple[str, ...]] = {
    "transformer_attribution": ("gradient", "proposed"),
    "lrp": ("classic",),
    "attnlrp": ("attnlrp", "cp_lrp"),
}


def build_family(cfg: ViTConfig, state_dict, family: str, final_ln_eps=None) -> ExplainerGraph:
    if family not in FAMILIES:
        raise ValueError(f"unknown method family {family!r} (known: {', '.join(FAMILIES)})")
    return build_explainer(cfg, state_dict, final_ln_eps, FAMILIES[family])
