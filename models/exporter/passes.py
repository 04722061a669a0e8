"""The explainer's passes, stage by stage.

Every graph the exporter writes is one run of these stages, on a subset of the passes:

  embed     pixels -> the tokens entering block 0, and the record the pixel maps read
  blocks    the forward of every block but the last (forward.block_forward, all rows)
  top       the last block (only the rows the head reads) and the head: the logits; then
            each pass's seed at the logits and its step back through the last block
  down      each pass's step back through one block, last-but-one down to block 0
  bottom    each pixel pass from block 0's input to the pixels

ExplainerGraph runs them in one PyTorch call, with Python loops over the blocks; the
exported graphs run each stage as a piece of its own and the two block stages as ONNX
loops over the stacked block weights (scan_graph.py), so the PyTorch module and the graphs
compute the same operations.

The passes and what each writes (docs/architecture.md, the explainer graph contract):
  gradient  attn_grad: d(target . logits)/d attn per block (backward.py)
  proposed  attn_rel: the proposed LRP rules' relevance at each attention (lrp.py)
  classic   attn_rel_classic_last, input_rel_classic: the classic rules' relevance at the
            last block's attention and, when pixel_relevance is on, at the pixels
  attnlrp   input_rel_attnlrp, cp_lrp  input_rel_cp_lrp: AttnLRP's and CP-LRP's modified
            backward passes (attnlrp.py), each run when its switch is on
A switch off runs its pass below the last block on no rows (lrp.py, attnlrp.py).
"""
from types import SimpleNamespace
from typing import Dict, Iterable, Tuple

import torch

from . import attnlrp
from .backward import block_attention_gradient, final_gradient
from .config import ViTConfig
from .forward import block_forward, embed, head_forward, head_rows
from .lrp import ONE_ROW, block_relprop, head_relprop, input_relprop

PASSES = ("gradient", "proposed", "classic", "attnlrp", "cp_lrp")
# the switch input that turns each switched pass's costly part on
SWITCHES = {"classic": "pixel_relevance", "attnlrp": "attnlrp_relevance", "cp_lrp": "cp_lrp_relevance"}
PIXEL_OUTPUTS = {"classic": "input_rel_classic", "attnlrp": "input_rel_attnlrp", "cp_lrp": "input_rel_cp_lrp"}
# the outputs with one [K, h, S, S] tensor per block, and the pass writing each
BLOCK_OUTPUTS = {"attn_grad": "gradient", "attn_rel": "proposed"}
MODIFIED = attnlrp.METHODS  # the Gradient×Input passes


def outputs_of(passes: Iterable[str]):
    """The contract outputs a graph of these passes writes, in contract order."""
    passes = set(passes)
    names = ["logits"]
    if passes & {"gradient", "proposed", "classic"}:
        names.append("attn")
    names += [n for n, p in BLOCK_OUTPUTS.items() if p in passes]
    if "classic" in passes:
        names += ["attn_rel_classic_last", "input_rel_classic"]
    return names + [PIXEL_OUTPUTS[m] for m in MODIFIED if m in passes]


def switches_of(passes: Iterable[str]):
    """The switch inputs of a graph of these passes, in contract order."""
    return [SWITCHES[p] for p in PASSES if p in SWITCHES and p in passes]


def embed_stage(params, cfg: ViTConfig, pixels):
    """(x0 [S, D], the embedding's record: what input_relprop and pixel_map read)."""
    pro = SimpleNamespace(pixels=pixels)
    return embed(params, cfg, pro), pro


def forward(params, cfg: ViTConfig, pixels, final_ln_eps=None):
    """Every forward stage: (x0, the embedding's record, blocks 0..B-2's records, the last
    block's record, the head's record with the logits)."""
    x0, pro = embed_stage(params, cfg, pixels)
    blocks, x = [], x0
    for b in range(cfg.depth - 1):
        blocks.append(block_forward(params, cfg, b, x, cfg.tokens))
        x = blocks[-1].x_out
    c, head = top_forward(params, cfg, x, final_ln_eps)
    return x0, pro, blocks, c, head


def top_forward(params, cfg: ViTConfig, x, final_ln_eps=None):
    """(the last block's record, the head's record with the logits [1, C]) from the last
    block's input x [S, D]."""
    c = block_forward(params, cfg, cfg.depth - 1, x, head_rows(cfg))
    return c, head_forward(params, cfg, c.x_out, final_ln_eps)


def top_backward(params, cfg: ViTConfig, passes, c, head, target, switches: Dict[str, torch.Tensor]):
    """Each pass from the logits through the last block (record c, head record `head`), for
    the target rows [K, C] (predicted-class rows already replaced). Returns (the last block's
    outputs, the state each pass hands down [.., S, D], the row switches every block reads)."""
    last = cfg.depth - 1
    outs, state, rows = {}, {}, {}
    if "gradient" in passes:
        outs["attn_grad"], state["grad"] = block_attention_gradient(
            params, cfg, last, c, final_gradient(params, cfg, head, target), below=last > 0)
    if {"proposed", "classic"} & set(passes):
        classic = "classic" in passes
        R = head_relprop(params, cfg, head, (target if "proposed" in passes else None, target if classic else None))
        wanted = (switches["pixel_relevance"] != 0).long() if classic else None
        # below the last block's attention the classic stream has K rows, or none
        r_attn, R = block_relprop(params, cfg, last, c, R, None, None, wanted)
        if "proposed" in passes:
            outs["attn_rel"], state["rel"] = r_attn[0], R[0]
        if classic:
            outs["attn_rel_classic_last"], state["rel_classic"] = r_attn[1], R[1]
            rows["classic_rows"], rows["identity_rows"] = ONE_ROW[:wanted], ONE_ROW[wanted:]
    for m in MODIFIED:
        if m in passes:
            wanted = (switches[SWITCHES[m]] != 0).long()
            on = attnlrp.ONE_ROW[:wanted]
            g = final_gradient(params, cfg, head, target[: wanted * target.shape[0]], attnlrp.layer_norm_rule)
            state[m], rows[m] = attnlrp.block_gradient(params, cfg, last, c, g, m, on), on
    return outs, _present(state), rows


def _present(state: Dict) -> Dict:
    """The states a pass hands down: none where it ends (below block 0's attention)."""
    return {s: t for s, t in state.items() if t is not None}


def down(params, cfg: ViTConfig, passes, b: int, c, state: Dict, rows: Dict) -> Tuple[Dict, Dict]:
    """Each pass through block b (record c) from its output to its input: (block b's
    outputs, the state below it)."""
    outs, below = {}, {}
    if "gradient" in passes:
        outs["attn_grad"], below["grad"] = block_attention_gradient(params, cfg, b, c, state["grad"], below=b > 0)
    if {"proposed", "classic"} & set(passes):
        R = (state.get("rel"), state.get("rel_classic"))
        r_attn, R = block_relprop(params, cfg, b, c, R, rows.get("classic_rows"), rows.get("identity_rows"))
        if "proposed" in passes:
            outs["attn_rel"], below["rel"] = r_attn[0], R[0]
        if "classic" in passes:
            below["rel_classic"] = R[1]
    for m in MODIFIED:
        if m in passes:
            below[m] = attnlrp.block_gradient(params, cfg, b, c, state[m], m, rows[m])
    return outs, _present(below)


def bottom(params, cfg: ViTConfig, passes, pro, state: Dict, target) -> Dict:
    """The pixel maps [K, H, W] from block 0's input: zeros where a switch is off."""
    # zeros as a product of the target, not torch.zeros: that is a ConstantOfShape, which
    # onnxruntime's WebGPU provider lacks (computed on the CPU and copied over)
    zeros = target[:, :1, None].clamp(0, 0).expand(-1, *cfg.image_size)
    outs = {}
    if "classic" in passes:
        pixels = input_relprop(params, cfg, pro, state["rel_classic"])  # [K or 0, H, W]
        outs["input_rel_classic"] = torch.cat([pixels, zeros.to(pixels.dtype)], dim=0)[: target.shape[0]]
    for m in MODIFIED:
        if m in passes:
            g = state[m]
            if cfg.norm_pre:
                g = attnlrp.layer_norm_gradient(g, pro.pre_rstd, params.get("norm_pre.weight"))
            pixels = attnlrp.pixel_map(params, cfg, pro, g)
            outs[PIXEL_OUTPUTS[m]] = torch.cat([pixels, zeros.to(pixels.dtype)], dim=0)[: target.shape[0]]
    return outs


def run(params, cfg: ViTConfig, passes, pixels, target, switches: Dict[str, torch.Tensor], final_ln_eps=None,
        prepare=None) -> Dict[str, torch.Tensor]:
    """Every stage in order, in PyTorch: the outputs of `passes` (outputs_of) by name.
    prepare(predicted_class_rows) replaces the all-zero target rows (targets.py)."""
    _, pro, blocks, c, head = forward(params, cfg, pixels, final_ln_eps)
    target = prepare(target, head.logits)
    outs, state, rows = top_backward(params, cfg, passes, c, head, target, switches)
    per_block = {name: [None] * (cfg.depth - 1) + [outs.pop(name)] for name in BLOCK_OUTPUTS if name in outs}
    for b in reversed(range(cfg.depth - 1)):
        block_outs, state = down(params, cfg, passes, b, blocks[b], state, rows)
        for name, t in block_outs.items():
            per_block[name][b] = t
    outs.update(bottom(params, cfg, passes, pro, state, target))
    outs.update({name: torch.stack(ts, dim=1) for name, ts in per_block.items()})
    outs["logits"] = head.logits
    outs["attn"] = torch.stack([blk.attn for blk in blocks + [c]], dim=0)
    return {name: outs[name] for name in outputs_of(passes)}
