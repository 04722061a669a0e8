"""Self-Attention Attribution graphs (Hao et al., AAAI 2021; METHODS.md).

Attr[b] = (A[b]/m) ⊙ Σ_i ∂p_t(α_i·A[b])/∂(α_i·A[b]) needs, per block b, the forward of the
blocks below b once and m forward+backward passes of the blocks from b up with block b's
attention replaced by α_i·A[b]. The work is split accordingly:

- HiddenStatesGraph: one plain forward, returning the logits and the state entering every
  block (what "the forward below block b" produces, for all b at once).
- BlockAttributionGraph(b): from the state entering block b, block b's attention A (once)
  and the m scaled copies batched along a leading axis (the `alpha` input, any length):
  the forward of blocks b.. with their records, the probability p_t of each copy, and the
  hand-written backward (backward.attention_gradients from seed ∂p_t/∂logits) down to
  block b's attention, summed over the copies. The caller may split α into chunks and add
  the sums (memory); Attr itself is A ⊙ grad_sum / m, formed by the caller, who knows m.

Every block's graph is exported separately (one file per block, the weights stored once
for all, see export_attribution), because a graph that selects its block at run time would
need ONNX control flow, which torch 1.13's tracer does not produce.
"""
from types import SimpleNamespace

import torch
from torch import nn

from .backward import attention_gradients
from .config import ViTConfig
from .forward import block_attention, block_forward, block_output, head_forward, head_rows, vit_forward
from .params import ViTParams

STATES_INPUTS, STATES_OUTPUTS = ["pixels"], ["logits", "hidden"]
BLOCK_INPUTS, BLOCK_OUTPUTS = ["hidden", "alpha", "target"], ["attn", "grad_sum", "prob"]


class HiddenStatesGraph(nn.Module):
    """pixels [1,3,H,W] -> (logits [1,C], hidden [B,S,D]: the input of each block)."""

    def __init__(self, cfg: ViTConfig, state_dict):
        super().__init__()
        self.cfg = cfg
        self.params = ViTParams(cfg, state_dict)

    def forward(self, pixels):
        logits, fw = vit_forward(self.params, self.cfg, pixels)
        return logits, torch.stack([c.x for c in fw.blocks], dim=0)


def scaled_attention_forward(params, cfg: ViTConfig, b: int, hidden, alpha):
    """(A [h,S,S], record): block b's own attention A from `hidden` [S,D], then the forward
    of blocks b.. on the m copies whose block-b attention is alpha_i·A (record.blocks[b:]
    batched [m, ..]; record.logits [m, C])."""
    S, last = cfg.tokens, cfg.depth - 1
    rows = head_rows(cfg) if b == last else S
    c = block_attention(params, cfg, b, hidden)
    a_rows = c.attn[..., :rows, :] if rows < S else c.attn
    c = block_output(params, cfg, b, c, alpha.reshape(-1, 1, 1, 1) * a_rows, rows)
    record = SimpleNamespace(blocks=[None] * cfg.depth)
    record.blocks[b] = c
    x = c.x_out
    for j in range(b + 1, cfg.depth):
        record.blocks[j] = block_forward(params, cfg, j, x, head_rows(cfg) if j == last else S)
        x = record.blocks[j].x_out
    head = head_forward(params, cfg, x)
    record.final_xhat, record.final_rstd = head.final_xhat, head.final_rstd
    record.logits = head.logits.squeeze(-2)
    return c.attn, record


def probability_seed(logits, target):
    """(p_t [m], ∂p_t/∂logits [m, C]) for the softmax probability of the one-hot target [C]."""
    p = torch.softmax(logits, dim=-1)
    p_t = (p * target).sum(-1)
    return p_t, p_t.unsqueeze(-1) * (target - p)


class BlockAttributionGraph(nn.Module):
    """hidden [S,D] (the input of block b), alpha [m], target [C] (one-hot) ->
    (attn A[b] [h,S,S], grad_sum Σ_i ∂p_t/∂(α_i A[b]) [h,S,S], prob p_t(α_i A[b]) [m])."""

    def __init__(self, cfg: ViTConfig, state_dict, block: int):
        super().__init__()
        if not 0 <= block < cfg.depth:
            raise ValueError(f"block {block} out of range 0..{cfg.depth - 1}")
        self.cfg, self.block = cfg, block
        self.params = ViTParams(cfg, state_dict)

    def forward(self, hidden, alpha, target):
        cfg, b = self.cfg, self.block
        attn, record = scaled_attention_forward(self.params, cfg, b, hidden, alpha)
        p_t, seed = probability_seed(record.logits, target)
        grads = attention_gradients(self.params, cfg, record, seed, first=b)
        return attn, grads[b].sum(0), p_t


def build_states(cfg: ViTConfig, state_dict) -> HiddenStatesGraph:
    return HiddenStatesGraph(cfg, state_dict).eval()


def build_block_attribution(cfg: ViTConfig, state_dict, block: int) -> BlockAttributionGraph:
    return BlockAttributionGraph(cfg, state_dict, block).eval()
