"""The transformer_attribution family's own module (TextProposed): the forward, the attention
gradients and the proposed rules' relevance only, the outputs of the explainer's names
(logits, attn, attn_grad, attn_rel; families.py). Without the classic stream beside it
(explainer.TextExplainer forms both in one pass), every layer's Linear denominators come
from the forward's product (lrp.block_relprop), as the image families do
(../families.py): one matrix product per Linear instead of two, so a shorter run at
long texts; its session opens no faster (about as many nodes as the cut it replaced:
docs/experiments.md, "Text family graphs")."""
import torch
from torch import nn

from ..targets import predicted_class_rows
from .backward import attention_gradients
from .config import TextConfig
from .forward import text_forward
from .lrp import block_relprop, head_relprop
from .params import TextParams

INPUT_NAMES = ["input_ids", "target"]


class TextProposed(nn.Module):
    """forward(input_ids [1,S] int64, target [K,C]) -> (logits [1,C], attn [B,h,S,S],
    attn_grad [K,B,h,S,S], attn_rel [K,B,h,S,S]); an all-zero target row stands for the
    predicted class (as the explainer)."""

    def __init__(self, cfg: TextConfig, state_dict):
        super().__init__()
        self.cfg = cfg
        self.params = TextParams(cfg, state_dict)

    def forward(self, input_ids, target):
        cfg, p = self.cfg, self.params
        logits, fw = text_forward(p, cfg, input_ids)
        target = predicted_class_rows(target, logits)
        grads = attention_gradients(p, cfg, fw, target)
        R = head_relprop(p, cfg, fw.head, (target, None), fw.embed.ones)
        rels = [None] * cfg.depth
        for b in reversed(range(cfg.depth)):
            (rels[b], _), R = block_relprop(p, cfg, b, fw.blocks[b], R)
        return (logits, torch.stack([c.attn for c in fw.blocks], dim=0), torch.stack(grads, dim=1),
                torch.stack(rels, dim=1))
