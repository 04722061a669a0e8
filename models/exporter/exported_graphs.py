"""The graphs the exporter writes, each assembled from passes.py's stages as pieces and
loops over the blocks (scan_graph.py):

  explainer_model(passes)  pixels, target, switches -> the passes' outputs: the explainer
                           graph (every pass) and the method family graphs (families.py)
  split_models             the explainer split in two (split.py): the photo graph and the
                           class graph
  forward_model            pixels [n,3,H,W] -> logits [n,C] (the plain forward graph; with
                           head_mask [B,h], the head-masked forward of the head pruning)

Each piece is traced on the tensors of one PyTorch run of the stages (Examples): their
shapes, never their values, end up in the graphs. The consumers are traced first: the
pieces that read a record tell which of its fields the pieces before them must write.
Records travel as values named after their fields: `pro.*` the embedding's, `rec.*` the
blocks' (stacked over blocks 0..B-2), `top.*` the last block's, `head.*` the head's.
"""
from typing import Dict, List, Optional

import numpy as np
import onnx
import torch

from . import passes as P
from .config import ViTConfig
from .explainer import plain_block, plain_embed, plain_head
from .forward import block_forward
from .metadata import K, output_shapes
from .scan_graph import Assembly, BlockParams, Piece, block_inputs, rebuild_record, record_tensors, tensor_info, trace
from .split import CACHE_PREFIX, add_head_inverses, add_inverses
from .targets import predicted_class_rows

BODY_BLOCK = 1  # the block index a loop body is traced as: never block 0's special cases
# the run-time row count of each pass's state and row switch (K, or K or 0 when switched)
STATE_ROWS = {"grad": K, "rel": K, "rel_classic": "K_classic", "attnlrp": "K_attnlrp", "cp_lrp": "K_cp_lrp"}
SWITCH_ROWS = {"classic_rows": "F_classic", "identity_rows": "F_identity", "attnlrp": "F_attnlrp",
               "cp_lrp": "F_cp_lrp"}
RECORDS = ("pro.", "rec.", "top.", "head.")


class Examples:
    """One PyTorch run of the stages on a random photo and K = 2 target rows, every switch
    on (no stream empty): the records and states the pieces are traced with."""

    def __init__(self, cfg: ViTConfig, params, passes, final_ln_eps=None, inverses=False):
        h, w = cfg.image_size
        self.pixels = torch.randn(1, 3, h, w, generator=torch.Generator().manual_seed(0))
        self.target = torch.zeros(2, cfg.num_classes)
        self.target[0, 0] = self.target[1, cfg.num_classes - 1] = 1.0
        self.switches = {n: torch.tensor(1.0) for n in P.switches_of(passes)}
        with torch.no_grad():
            self.x0, self.pro = P.embed_stage(params, cfg, self.pixels)
            x, self.block = self.x0, None
            for b in range(cfg.depth - 1):
                c = block_forward(params, cfg, b, x, cfg.tokens)
                self.block, x = self.block or c, c.x_out
            if inverses and self.block:
                add_inverses(params, cfg, 0, self.block, last=False)
            self.x_top = x
            self.c, self.head = P.top_forward(params, cfg, x, final_ln_eps)
            if inverses:
                add_inverses(params, cfg, cfg.depth - 1, self.c, last=True)
                add_head_inverses(params, cfg, self.head)
            target = predicted_class_rows(self.target, self.head.logits)
            _, self.state, self.rows = P.top_backward(params, cfg, passes, self.c, self.head, target, self.switches)


def _named(prefix: str, tensors: Dict[str, torch.Tensor], keep=None) -> Dict[str, torch.Tensor]:
    return {prefix + k: v for k, v in tensors.items() if keep is None or prefix + k in keep}


class Backward:
    """The traced pieces from the top record down: `top` (each pass through the head and the
    last block), `down` (one block: the loop body, None for one block) and `bottom` (the
    pixel maps); `reads`, every value they read by name."""

    def __init__(self, cfg: ViTConfig, params, passes, ex: Examples):
        state = {f"state.{s}": t for s, t in ex.state.items()}
        state_axes = {f"state.{s}": {0: STATE_ROWS[s]} for s in ex.state}
        rows = {f"rows.{r}": t for r, t in ex.rows.items()}
        row_axes = {f"rows.{r}": {0: SWITCH_ROWS[r]} for r in ex.rows}
        self.switches = P.switches_of(passes)

        def top(logits, target, **kw):
            c = rebuild_record(ex.c, kw, "top.")
            head = rebuild_record(ex.head, {**kw, "head.logits": logits}, "head.")
            outs, below, switch_rows = P.top_backward(params, cfg, passes, c, head,
                                                      predicted_class_rows(target, logits),
                                                      {n: kw[n] for n in self.switches})
            return {**_named("last.", outs), **_named("state.", below), **_named("rows.", switch_rows)}

        def down(**kw):
            c = rebuild_record(ex.block, kw, "rec.")
            outs, below = P.down(BlockParams(kw), cfg, passes, BODY_BLOCK, c,
                                 {s: kw[f"state.{s}"] for s in ex.state}, {r: kw[f"rows.{r}"] for r in ex.rows})
            return {**{f"state.{s}.next": t for s, t in below.items()}, **_named("blk.", outs)}

        def bottom(pixels, target, **kw):
            pro = rebuild_record(ex.pro, {**kw, "pro.pixels": pixels}, "pro.")
            return P.bottom(params, cfg, passes, pro, {s: kw[f"state.{s}"] for s in ex.state}, target)

        self.top = trace(top, params, {"logits": ex.head.logits, "target": ex.target, **ex.switches,
                                       **_named("top.", record_tensors(ex.c)),
                                       **_named("head.", record_tensors(ex.head))}, {"target": {0: K}})
        self.down = None if ex.block is None else trace(
            down, None, {**state, **rows, **_named("rec.", record_tensors(ex.block)), **block_inputs(params, cfg, 0)},
            {**state_axes, **row_axes})
        pro = _named("pro.", record_tensors(ex.pro))
        self.bottom = trace(bottom, params, {"pixels": ex.pixels, "target": ex.target, **state, **pro},
                            {"target": {0: K}, **state_axes})
        self.reads = {n for piece in (self.top, self.down, self.bottom) if piece for n in piece.inputs}


class Forward:
    """The traced pieces from the pixels to the top record: `embed`, `body` (one block: the
    loop body, None for one block) and `top` (the last block and the head), writing the
    logits, every block's attention and the record values `reads` names."""

    def __init__(self, cfg: ViTConfig, params, ex: Examples, reads, inverses=False, final_ln_eps=None):
        keep = set(reads) | {"rec.attn"}

        def embed(pixels):
            x, pro = P.embed_stage(params, cfg, pixels)
            return {"x0": x, **_named("pro.", record_tensors(pro), keep)}

        def body(x, **w):
            bp = BlockParams(w)
            c = block_forward(bp, cfg, BODY_BLOCK, x, cfg.tokens)
            if inverses:
                add_inverses(bp, cfg, BODY_BLOCK, c, last=False)
            return {"x.next": c.x_out, **_named("rec.", record_tensors(c), keep)}

        def top(x):
            c, head = P.top_forward(params, cfg, x, final_ln_eps)
            if inverses:
                add_inverses(params, cfg, cfg.depth - 1, c, last=True)
                add_head_inverses(params, cfg, head)
            return {"logits": head.logits, "attn.last": c.attn, **_named("top.", record_tensors(c), keep),
                    **_named("head.", record_tensors(head), keep)}

        self.embed = trace(embed, params, {"pixels": ex.pixels})
        self.body = None if ex.block is None else trace(body, None, {"x": ex.x0, **block_inputs(params, cfg, 0)})
        self.top = trace(top, params, {"x": ex.x_top})


def _weights(a: Assembly, body: Piece) -> Dict[str, str]:
    """A loop body's weight inputs, each with the stacked value it is sliced from."""
    return {n: a.scanned(n) for n in body.inputs if n.startswith("w.")}


def add_forward(a: Assembly, fw: Forward) -> Dict[str, str]:
    """Adds the forward pieces; returns their outputs' values by name (`rec.*` stacked)."""
    values = a.add(fw.embed, scope="embed")
    x = values["x0"]
    if fw.body:
        records = [n for n in fw.body.outputs + list(fw.body.alias) if n.startswith("rec.")]
        a.scan(fw.body, [("x", "x.next", x, "x.top")], _weights(a, fw.body), {}, {n: (n, 0) for n in records},
               reverse=False, name="blocks")
        values.update({n: n for n in records})
        x = "x.top"
    values.update(a.add(fw.top, {"x": x}, "top"))
    return values


def add_backward(a: Assembly, bw: Backward, values: Dict[str, str]) -> Dict[str, str]:
    """Adds the backward pieces, their inputs read from `values` by name (records, logits,
    target, the switches); returns the outputs' values by contract name."""
    top = a.add(bw.top, values, "top_backward")
    state = {n[len("state."):]: v for n, v in top.items() if n.startswith("state.")}
    outs = {n[len("last."):]: v for n, v in top.items() if n.startswith("last.")}
    per_block = {}
    if bw.down:
        blocks = {n: (f"{n}.blocks", 1) for n in bw.down.outputs if n.startswith("blk.")}
        records = {n: values[n] for n in bw.down.inputs if n.startswith("rec.")}
        a.scan(bw.down, [(f"state.{s}", f"state.{s}.next", v, f"state.{s}.bottom") for s, v in state.items()],
               {**records, **_weights(a, bw.down)}, {n: top[n] for n in bw.down.inputs if n.startswith("rows.")},
               blocks, reverse=True, name="down")
        state = {s: f"state.{s}.bottom" for s in state}
        per_block = {n[len("blk."):]: v for n, (v, _) in blocks.items()}
    for name in [n for n in P.BLOCK_OUTPUTS if n in outs]:
        last = a.node("Unsqueeze", [outs[name], a.constant(np.array([1], np.int64), "axes.1")])
        outs[name] = a.node("Concat", [per_block[name], last], axis=1) if name in per_block else last
    outs.update(a.add(bw.bottom, {**values, **{f"state.{s}": v for s, v in state.items()}}, "bottom"))
    return outs


def stacked_attention(a: Assembly, values: Dict[str, str]) -> str:
    """attn [B,h,S,S]: the blocks' stacked attention and the last block's."""
    last = a.node("Unsqueeze", [values["attn.last"], a.constant(np.array([0], np.int64), "axes.0")])
    return a.node("Concat", [values["rec.attn"], last], axis=0) if "rec.attn" in values else last


def _inputs(cfg: ViTConfig, names: List[str]) -> List[onnx.ValueInfoProto]:
    h, w = cfg.image_size
    shapes = {"pixels": [1, 3, h, w], "target": [K, cfg.num_classes], **output_shapes(cfg)}
    return [tensor_info(n, shapes.get(n, [])) for n in names]


def _outputs(a: Assembly, values: Dict[str, str], shapes: Dict[str, Optional[list]]) -> List[onnx.ValueInfoProto]:
    """The graph outputs under their own names (an Identity where the value has another)."""
    for n in shapes:
        if values[n] != n:
            a.nodes.append(onnx.helper.make_node("Identity", [values[n]], [n]))
    return [tensor_info(n, dims) for n, dims in shapes.items()]


def explainer_model(cfg: ViTConfig, params, passes=P.PASSES, final_ln_eps=None) -> onnx.ModelProto:
    """pixels [1,3,H,W], target [K,C], the passes' switches -> passes.outputs_of(passes)."""
    ex = Examples(cfg, params, passes, final_ln_eps)
    bw = Backward(cfg, params, passes, ex)
    fw = Forward(cfg, params, ex, bw.reads, final_ln_eps=final_ln_eps)
    a = Assembly(cfg, params)
    values = add_forward(a, fw)
    values.update({n: n for n in ["pixels", "target", *bw.switches]})
    values.update(add_backward(a, bw, values))
    values["attn"] = stacked_attention(a, values)
    shapes = output_shapes(cfg)
    return a.model(_inputs(cfg, ["pixels", "target", *bw.switches]),
                   _outputs(a, values, {n: shapes[n] for n in P.outputs_of(passes)}))


def split_models(cfg: ViTConfig, params, final_ln_eps=None):
    """(the photo graph, the class graph), every pass: the photo graph's cache holds every
    record value the class graph reads, the proposed denominators included, but the blocks'
    attention, which it takes from `attn`."""
    ex = Examples(cfg, params, P.PASSES, final_ln_eps, inverses=True)
    bw = Backward(cfg, params, P.PASSES, ex)
    fw = Forward(cfg, params, ex, bw.reads, inverses=True, final_ln_eps=final_ln_eps)
    cache = sorted(n for n in bw.reads if n.startswith(RECORDS) and n != "rec.attn" or n == "pixels")
    shapes = output_shapes(cfg)

    photo = Assembly(cfg, params)
    values = {"pixels": "pixels", **add_forward(photo, fw)}
    values["attn"] = stacked_attention(photo, values)
    values.update({CACHE_PREFIX + n: values[n] for n in cache})
    photo_model = photo.model(_inputs(cfg, ["pixels"]), _outputs(
        photo, values, {"logits": shapes["logits"], "attn": shapes["attn"], **{CACHE_PREFIX + n: None for n in cache}}))

    klass = Assembly(cfg, params)
    values = {n: CACHE_PREFIX + n for n in cache}
    values.update({n: n for n in ["logits", "target", *bw.switches]})
    if "rec.attn" in bw.reads:  # blocks 0..B-2 of attn
        values["rec.attn"] = klass.node("Slice", ["attn", klass.constant(np.array([0], np.int64), "at.0"),
                                                  klass.constant(np.array([cfg.depth - 1], np.int64), "at.last")])
    outs = add_backward(klass, bw, values)
    infos = {o.name: o for o in photo_model.graph.output}  # shapes inferred: the cache's are static
    class_model = klass.model(_inputs(cfg, ["logits", "attn"]) + [infos[CACHE_PREFIX + n] for n in cache]
                              + _inputs(cfg, ["target", *bw.switches]),
                              _outputs(klass, outs, {n: shapes[n] for n in P.outputs_of(P.PASSES)
                                                     if n not in ("logits", "attn")}))
    return photo_model, class_model


def forward_model(cfg: ViTConfig, params, head_mask: bool = False) -> onnx.ModelProto:
    """pixels [n,3,H,W] (n dynamic) -> logits [n,C]: explainer.PlainViT's forward; with
    head_mask, its head-masked forward (input head_mask [B,h])."""
    h, w = cfg.image_size
    pixels = torch.randn(2, 3, h, w, generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        x0 = plain_embed(params, cfg, pixels)
    ones = torch.ones(cfg.heads)
    rows = {"x": {0: "rows"}}

    def embed(pixels):
        return {"x0": plain_embed(params, cfg, pixels)}

    def body(x, mask=None, **w):
        return {"x.next": plain_block(BlockParams(w), cfg, BODY_BLOCK, x, mask)}

    def top(x, mask=None):
        return {"logits": plain_head(params, cfg, plain_block(params, cfg, cfg.depth - 1, x, mask))}

    a = Assembly(cfg, params)
    x = a.add(trace(embed, params, {"pixels": pixels}, {"pixels": {0: "batch"}}), scope="embed")["x0"]
    mask = {"mask": ones} if head_mask else {}
    at = {}
    if head_mask:
        at = {"blocks": a.node("Slice", ["head_mask", a.constant(np.array([0], np.int64), "at.0"),
                                         a.constant(np.array([cfg.depth - 1], np.int64), "at.last")]),
              "last": a.node("Gather", ["head_mask", a.constant(np.array(cfg.depth - 1, np.int64), "last")])}
    if cfg.depth > 1:
        piece = trace(body, None, {"x": x0, **mask, **block_inputs(params, cfg, 0)}, rows)
        scanned = {**_weights(a, piece), **({"mask": at["blocks"]} if head_mask else {})}
        a.scan(piece, [("x", "x.next", x, "x.top")], scanned, {}, {}, reverse=False, name="blocks")
        x = "x.top"
    top_in = {"x": x, **({"mask": at["last"]} if head_mask else {})}
    values = a.add(trace(top, params, {"x": x0, **mask}, rows), top_in, "top")
    inputs = [tensor_info("pixels", ["batch", 3, h, w])]
    if head_mask:
        inputs.append(tensor_info("head_mask", [cfg.depth, cfg.heads]))
    return a.model(inputs, _outputs(a, values, {"logits": ["batch", cfg.num_classes]}))
