"""Self-Attention Attribution graphs for text (the image graphs' contract, ../attribution.py,
with `input_ids` in place of `pixels`): the states graph (one plain forward: the logits and
the input of every layer) and one graph per layer b (from that input, A[b] once, then the
forward of layers b.. on m copies with A[b] scaled by α_i, batched on a leading axis, and
the hand-written backward of p_t down to A[b], summed over the copies)."""
from types import SimpleNamespace

import torch
from torch import nn

from ..attribution import probability_seed
from .backward import attention_gradients
from .config import TextConfig
from .forward import block_attention, block_forward, block_output, head_forward, text_forward
from .params import TextParams


class TextStatesGraph(nn.Module):
    """input_ids [1,S] -> (logits [1,C], hidden [B,S,D]: the input of each layer)."""

    def __init__(self, cfg: TextConfig, state_dict):
        super().__init__()
        self.cfg = cfg
        self.params = TextParams(cfg, state_dict)

    def forward(self, input_ids):
        logits, fw = text_forward(self.params, self.cfg, input_ids)
        return logits, torch.stack([c.x for c in fw.blocks], dim=0)


def scaled_attention_forward(params, cfg: TextConfig, b: int, hidden, alpha):
    """(A [h,S,S], record): layer b's attention from `hidden` [S,D], then layers b.. on the
    m copies whose layer-b attention is alpha_i·A (records batched [m, ..]; logits [m, C])."""
    tokens = hidden.shape[0]
    c = block_attention(params, cfg, b, hidden, tokens)
    c = block_output(params, cfg, b, c, alpha.reshape(-1, 1, 1, 1) * c.attn)
    record = SimpleNamespace(blocks=[None] * cfg.depth, embed=SimpleNamespace(ones=torch.ones_like(hidden[:, :1])))
    record.blocks[b] = c
    x = c.x_out
    for j in range(b + 1, cfg.depth):
        record.blocks[j] = block_forward(params, cfg, j, x, tokens)
        x = record.blocks[j].x_out
    record.head = head_forward(params, cfg, x)
    return c.attn, record


class TextBlockAttribution(nn.Module):
    """hidden [S,D] (the input of layer b), alpha [m], target [C] (one-hot) -> (attn A[b]
    [h,S,S], grad_sum Σ_i ∂p_t/∂(α_i A[b]) [h,S,S], prob p_t(α_i A[b]) [m])."""

    def __init__(self, cfg: TextConfig, state_dict, block: int):
        super().__init__()
        if not 0 <= block < cfg.depth:
            raise ValueError(f"layer {block} out of range 0..{cfg.depth - 1}")
        self.cfg, self.block = cfg, block
        self.params = TextParams(cfg, state_dict)

    def forward(self, hidden, alpha, target):
        cfg, b = self.cfg, self.block
        attn, record = scaled_attention_forward(self.params, cfg, b, hidden, alpha)
        p_t, seed = probability_seed(record.head.logits.squeeze(-2), target)
        grads = attention_gradients(self.params, cfg, record, seed, first=b)
        return attn, grads[b].sum(0), p_t
