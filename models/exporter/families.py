"""Graphs per method family: the explainer graph cut to the passes one family of methods
reads, so that a photo's first map runs, and first opens a session on, a graph holding only
those (onnxruntime's session creation grows with the nodes: the whole explainer graph's was
the page's slowest step to a first map, docs/experiments.md).

A family is named after its lead method and takes the explainer graph's inputs and outputs
of the same names (docs/architecture.md, "The explainer graph contract"):
  transformer_attribution: the forward, the attention gradients and both LRP rules'
    relevance pass (Chefer et al.'s passes: every registry method but AttnLRP's two);
  attnlrp: the forward and the AttnLRP and CP-LRP modified backward passes, nothing else.
Each computes its outputs with the same operations as ExplainerGraph (bit for bit in PyTorch).
"""
from typing import Dict, List, Tuple

import torch
from torch import nn

from .attnlrp import METHODS, switched_map
from .backward import attention_gradients
from .config import ViTConfig
from .forward import vit_forward
from .lrp import relevance_pass
from .params import ViTParams
from .targets import predicted_class_rows

# family -> (its switch inputs, after pixels and target; its outputs)
FAMILIES: Dict[str, Tuple[List[str], List[str]]] = {
    "transformer_attribution": (["pixel_relevance"], ["logits", "attn", "attn_grad", "attn_rel",
                                                      "attn_rel_classic_last", "input_rel_classic"]),
    "attnlrp": ([f"{m}_relevance" for m in METHODS], ["logits"] + [f"input_rel_{m}" for m in METHODS]),
}


class FamilyGraph(nn.Module):
    """forward(pixels [1,3,H,W], target [K,C], *switches) -> the family's outputs, as
    ExplainerGraph computes them."""

    def __init__(self, cfg: ViTConfig, state_dict, family: str, final_ln_eps=None):
        super().__init__()
        if family not in FAMILIES:
            raise ValueError(f"unknown method family {family!r} (known: {', '.join(FAMILIES)})")
        self.cfg = cfg
        self.family = family
        self.params = ViTParams(cfg, state_dict)
        self.final_ln_eps = final_ln_eps

    def forward(self, pixels, target, *switches):
        cfg, p = self.cfg, self.params
        logits, fw = vit_forward(p, cfg, pixels, self.final_ln_eps)
        target = predicted_class_rows(target, logits)
        if self.family == "attnlrp":
            return (logits, *[switched_map(p, cfg, fw, target, s, m) for m, s in zip(METHODS, switches)])
        grads = attention_gradients(p, cfg, fw, target)
        rel, rel_classic_last, input_rel = relevance_pass(p, cfg, fw, target, switches[0])
        attn = torch.stack([c.attn for c in fw.blocks], dim=0)
        return logits, attn, torch.stack(grads, dim=1), torch.stack(rel, dim=1), rel_classic_last, input_rel


def build_family(cfg: ViTConfig, state_dict, family: str, final_ln_eps=None) -> FamilyGraph:
    return FamilyGraph(cfg, state_dict, family, final_ln_eps).eval()
