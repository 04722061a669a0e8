"""The graphs the exporter writes, each assembled from passes.py's stages as pieces and
loops over the blocks (scan_graph.py):

  explainer_model(passes)  pixels, target, switches -> the passes' outputs: the explainer
                           graph (every pass) and the method family graphs (families.py;
                           the default family's switched: split.add_switched_inverses)
  split_models             the explainer split in two (split.py): the photo graph and the
                           class graph
  forward_model            pixels [n,3,H,W] -> logits [n,C] (the plain forward graph; with
                           head_mask [B,h], the head-masked forward of the head pruning)

Each piece is traced on the tensors of one PyTorch run of the stages (Examples): their
shapes, never their values, end up in the graphs. The consumers are traced first: the
pieces that read a record tell which of its fields the pieces before them must write.
Records travel as values named after their fields: `pro.*` the embedding's, `first.*`
block 0's, `rec.*` the looped blocks' (stacked over blocks 1..B-2), `top.*` the last
block's, `head.*` the head's.
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
from .scan_graph import (Assembly, BlockParams, Piece, block_inputs, looped_blocks, rebuild_record, record_tensors,
                         tensor_info, trace)
from .split import BLOCK_INVERSES, CACHE_PREFIX, add_head_inverses, add_inverses, add_switched_inverses
from .targets import predicted_class_rows

BODY_BLOCK = 1  # the block index a loop body is traced as: any looped block
# the run-time row count of each pass's state and row switch (K, or K or 0 when switched)
STATE_ROWS = {"grad": K, "rel": K, "rel_classic": "K_classic", "attnlrp": "K_attnlrp", "cp_lrp": "K_cp_lrp"}
SWITCH_ROWS = {"classic_rows": "F_classic", "identity_rows": "F_identity", "attnlrp": "F_attnlrp",
               "cp_lrp": "F_cp_lrp"}
RECORDS = ("pro.", "first.", "rec.", "top.", "head.")


class Examples:
    """One PyTorch run of the stages on a random photo and K = 2 target rows, every switch
    on (no stream empty): the records and states the pieces are traced with (`first`
    block 0's record, `block` a looped block's, None where the model has no such block)."""

    def __init__(self, cfg: ViTConfig, params, passes, final_ln_eps=None, inverses=False):
        h, w = cfg.image_size
        self.pixels = torch.randn(1, 3, h, w, generator=torch.Generator().manual_seed(0))
        self.target = torch.zeros(2, cfg.num_classes)
        self.target[0, 0] = self.target[1, cfg.num_classes - 1] = 1.0
        self.switches = {n: torch.tensor(1.0) for n in P.switches_of(passes)}
        with torch.no_grad():
            self.x0, self.pro, records, self.c, self.head = P.forward(params, cfg, self.pixels, final_ln_eps)
            if inverses:
                for b, record in enumerate(records):
                    add_inverses(params, cfg, b, record, last=False)
                add_inverses(params, cfg, cfg.depth - 1, self.c, last=True)
                add_head_inverses(params, cfg, self.head)
            self.first = records[0] if records else None
            self.block = records[1] if len(records) > 1 else None
            self.x1 = records[0].x_out if records else None
            self.x_top = records[-1].x_out if records else self.x0
            target = predicted_class_rows(self.target, self.head.logits)
            _, self.state, self.rows = P.top_backward(params, cfg, passes, self.c, self.head, target, self.switches)


def _named(prefix: str, tensors: Dict[str, torch.Tensor], keep=None) -> Dict[str, torch.Tensor]:
    return {prefix + k: v for k, v in tensors.items() if keep is None or prefix + k in keep}


class Backward:
    """The traced pieces from the top record down: `top` (each pass through the head and the
    last block), `down` (one looped block: the loop body), `first` (block 0) and `bottom`
    (the pixel maps), None where the model has no such block; `reads`, every value they
    read by name."""

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

        def down(block_params, b, template, prefix):
            def fn(**kw):
                c = rebuild_record(template, kw, prefix)
                outs, below = P.down(block_params(kw), cfg, passes, b, c,
                                     {s: kw[f"state.{s}"] for s in ex.state}, {r: kw[f"rows.{r}"] for r in ex.rows})
                return {**{f"state.{s}.next": t for s, t in below.items()}, **_named("blk.", outs)}
            return fn

        def bottom(pixels, target, **kw):
            pro = rebuild_record(ex.pro, {**kw, "pro.pixels": pixels}, "pro.")
            return P.bottom(params, cfg, passes, pro, {s: kw[f"state.{s}"] for s in ex.state}, target)

        self.top = trace(top, params, {"logits": ex.head.logits, "target": ex.target, **ex.switches,
                                       **_named("top.", record_tensors(ex.c)),
                                       **_named("head.", record_tensors(ex.head))}, {"target": {0: K}})
        self.down = None if ex.block is None else trace(
            down(BlockParams, BODY_BLOCK, ex.block, "rec."), None,
            {**state, **rows, **_named("rec.", record_tensors(ex.block)), **block_inputs(params, cfg, BODY_BLOCK)},
            {**state_axes, **row_axes})
        # block 0's down: its passes stop at its attention but the classic and modified ones
        self.first = None if ex.first is None else trace(
            down(lambda kw: params, 0, ex.first, "first."), params,
            {**state, **rows, **_named("first.", record_tensors(ex.first))}, {**state_axes, **row_axes})
        pro = _named("pro.", record_tensors(ex.pro))
        self.bottom = trace(bottom, params, {"pixels": ex.pixels, "target": ex.target, **state, **pro},
                            {"target": {0: K}, **state_axes})
        self.reads = {n for piece in (self.top, self.down, self.first, self.bottom) if piece for n in piece.inputs}


class Forward:
    """The traced pieces from the pixels to the top record: `embed`, `first` (block 0),
    `body` (one looped block: the loop body) and `top` (the last block and the head), None
    where the model has no such block, writing the logits, every block's attention and the
    record values `reads` names."""

    def __init__(self, cfg: ViTConfig, params, ex: Examples, reads, inverses=False, final_ln_eps=None,
                 switched=False):
        keep = set(reads) | {"first.attn", "rec.attn"}
        # switched (a large model's family graph): the blocks below the last form the
        # denominators the backward reads on `inverse_rows` [F,1,1] beside `given.*` ones
        # and write those formed as `formed.*` (split.add_switched_inverses)
        inverses = inverses or switched
        switch_names = {prefix: [n for n in BLOCK_INVERSES if f"{prefix}lrp_inv.{n}" in keep]
                        for prefix in ("first.", "rec.")}

        def embed(pixels):
            x, pro = P.embed_stage(params, cfg, pixels)
            return {"x0": x, **_named("pro.", record_tensors(pro), keep)}

        def block(block_params, b, prefix):
            def fn(x, **w):
                p = block_params(w)
                c = block_forward(p, cfg, b, x, cfg.tokens)
                formed = {}
                if switched:
                    given = {n: w[f"given.{n}"] for n in switch_names[prefix]}
                    formed = add_switched_inverses(p, cfg, b, c, switch_names[prefix], w["inverse_rows"], given)
                elif inverses:
                    add_inverses(p, cfg, b, c, last=False)
                return {"x.next": c.x_out, **_named(prefix, record_tensors(c), keep), **_named("formed.", formed)}
            return fn

        def switch_inputs(record, prefix):
            """The switched block's example inputs: the rows on (F = 1), none given."""
            if not switched:
                return {}, {}
            given = {f"given.{n}": record.lrp_inv[n][None][:0] for n in switch_names[prefix]}
            axes = {"inverse_rows": {0: "F"}, **{n: {0: "G"} for n in given}}
            return {"inverse_rows": torch.ones(1, 1, 1), **given}, axes

        def top(x):
            c, head = P.top_forward(params, cfg, x, final_ln_eps)
            if inverses:
                add_inverses(params, cfg, cfg.depth - 1, c, last=True)
                add_head_inverses(params, cfg, head)
            return {"logits": head.logits, "attn.last": c.attn, **_named("top.", record_tensors(c), keep),
                    **_named("head.", record_tensors(head), keep)}

        self.embed = trace(embed, params, {"pixels": ex.pixels})
        if ex.first is not None:
            extra, axes = switch_inputs(ex.first, "first.")
            self.first = trace(block(lambda w: params, 0, "first."), params, {"x": ex.x0, **extra}, axes)
        else:
            self.first = None
        if ex.block is not None:
            extra, axes = switch_inputs(ex.block, "rec.")
            self.body = trace(block(BlockParams, BODY_BLOCK, "rec."), None,
                              {"x": ex.x1, **block_inputs(params, cfg, BODY_BLOCK), **extra}, axes)
        else:
            self.body = None
        self.top = trace(top, params, {"x": ex.x_top})


def _weights(a: Assembly, body: Piece) -> Dict[str, str]:
    """A loop body's weight inputs, each with the stacked value it is sliced from."""
    return {n: a.scanned(n) for n in body.inputs if n.startswith("w.")}


def add_forward(a: Assembly, fw: Forward) -> Dict[str, str]:
    """Adds the forward pieces; returns their outputs' values by name (`rec.*` stacked)."""
    values = a.add(fw.embed, scope="embed")
    x = values["x0"]
    if fw.first:
        first = a.add(fw.first, {"x": x, **_switch_values(fw.first, "first.")}, "first")
        values.update({n: v for n, v in first.items() if n.startswith("first.")})
        values.update({v: v for n, v in first.items() if n.startswith("formed.")})
        x = first["x.next"]
    if fw.body:
        records = [n for n in fw.body.outputs + list(fw.body.alias) if n.startswith("rec.")]
        switch = _switch_values(fw.body, "rec.")
        formed = {n: (f"formed.rec.{n[len('formed.'):]}", 0) for n in fw.body.outputs if n.startswith("formed.")}
        a.scan(fw.body, [("x", "x.next", x, "x.top")],
               {**_weights(a, fw.body), **{n: v for n, v in switch.items() if n.startswith("given.")}},
               {n: v for n, v in switch.items() if n == "inverse_rows"}, {**{n: (n, 0) for n in records}, **formed},
               reverse=False, name="blocks")
        values.update({n: n for n in records})
        values.update({v: v for v, _ in formed.values()})
        x = "x.top"
    values.update(a.add(fw.top, {"x": x}, "top"))
    return values


def _switch_values(piece: Piece, prefix: str) -> Dict[str, str]:
    """A switched block piece's inputs and outputs (Forward, switched) -> graph values:
    `inverse_rows` as it is, `given.<n>` and `formed.<n>` with the block kind's prefix
    (`given.first.fc2`, `formed.rec.qkv`: the looped blocks' stacked)."""
    names = {"inverse_rows": "inverse_rows"} if "inverse_rows" in piece.inputs else {}
    for n in piece.inputs + piece.outputs:
        for kind in ("given.", "formed."):
            if n.startswith(kind):
                names[n] = f"{kind}{prefix}{n[len(kind):]}"
    return names


def add_backward(a: Assembly, bw: Backward, values: Dict[str, str]) -> Dict[str, str]:
    """Adds the backward pieces, their inputs read from `values` by name (records, logits,
    target, the switches); returns the outputs' values by contract name."""
    top = a.add(bw.top, values, "top_backward")
    state = {n[len("state."):]: v for n, v in top.items() if n.startswith("state.")}
    rows = {n: v for n, v in top.items() if n.startswith("rows.")}
    # each per-block output, block by block: [K, blocks, h, S, S] parts in block order
    parts = {n[len("last."):]: [_unsqueezed(a, v, 1)] for n, v in top.items() if n[len("last."):] in P.BLOCK_OUTPUTS}
    if bw.down:
        blocks = {n: (f"{n}.blocks", 1) for n in bw.down.outputs if n.startswith("blk.")}
        records = {n: values[n] for n in bw.down.inputs if n.startswith("rec.")}
        a.scan(bw.down, [(f"state.{s}", f"state.{s}.next", v, f"state.{s}.looped") for s, v in state.items()],
               {**records, **_weights(a, bw.down)}, {n: rows[n] for n in bw.down.inputs if n.startswith("rows.")},
               blocks, reverse=True, name="down")
        state = {s: f"state.{s}.looped" for s in state}
        for n, (v, _) in blocks.items():
            parts[n[len("blk."):]].insert(0, v)
    if bw.first:
        first = a.add(bw.first, {**values, **rows, **{f"state.{s}": v for s, v in state.items()}}, "first_backward")
        state = {n[len("state."):-len(".next")]: v for n, v in first.items() if n.startswith("state.")}
        for n, v in first.items():
            if n.startswith("blk."):
                parts[n[len("blk."):]].insert(0, _unsqueezed(a, v, 1))
    outs = {n: v for n, v in top.items() if n.startswith("last.") and n[len("last."):] not in parts}
    outs = {n[len("last."):]: v for n, v in outs.items()}
    outs.update({n: vs[0] if len(vs) == 1 else a.node("Concat", vs, axis=1) for n, vs in parts.items()})
    outs.update(a.add(bw.bottom, {**values, **{f"state.{s}": v for s, v in state.items()}}, "bottom"))
    return outs


def _unsqueezed(a: Assembly, value: str, axis: int) -> str:
    return a.node("Unsqueeze", [value, a.constant(np.array([axis], np.int64), f"axes.{axis}")])


def stacked_attention(a: Assembly, values: Dict[str, str]) -> str:
    """attn [B,h,S,S]: block 0's, the looped blocks' and the last block's attention."""
    parts = [_unsqueezed(a, values["first.attn"], 0)] if "first.attn" in values else []
    parts += [values["rec.attn"]] if "rec.attn" in values else []
    parts.append(_unsqueezed(a, values["attn.last"], 0))
    return parts[0] if len(parts) == 1 else a.node("Concat", parts, axis=0)


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


def explainer_model(cfg: ViTConfig, params, passes=P.PASSES, final_ln_eps=None, switched=False) -> onnx.ModelProto:
    """pixels [1,3,H,W], target [K,C], the passes' switches -> passes.outputs_of(passes).
    switched (the default family's graph, families.SWITCHED_FAMILY): its blocks below the
    last also form the proposed Linear denominators on `inverse_rows` ([F,1,1]: F = 1 on a
    photo's first run, outputs `formed.*`) or read them given (F = 0, inputs `given.*`):
    a class switch of a model that keeps one session then skips their products
    (split.add_switched_inverses)."""
    ex = Examples(cfg, params, passes, final_ln_eps, inverses=switched)
    bw = Backward(cfg, params, passes, ex)
    fw = Forward(cfg, params, ex, bw.reads, final_ln_eps=final_ln_eps, switched=switched)
    a = Assembly(cfg, params)
    values = add_forward(a, fw)
    values.update({n: n for n in ["pixels", "target", *bw.switches]})
    values.update(add_backward(a, bw, values))
    values["attn"] = stacked_attention(a, values)
    shapes = output_shapes(cfg)
    inputs = _inputs(cfg, ["pixels", "target", *bw.switches])
    outputs = {n: shapes[n] for n in P.outputs_of(passes)}
    if switched:
        given = []
        blocks = ((fw.first, "first.", ex.first, []), (fw.body, "rec.", ex.block, [len(looped_blocks(cfg))]))
        for piece, prefix, record, stacked in blocks:
            for n in (piece.outputs if piece else []):
                if n.startswith("formed."):
                    layer = n[len("formed."):]
                    dims = list(record.lrp_inv[layer].shape)
                    given.append(tensor_info(f"given.{prefix}{layer}", stacked + ["G", *dims]))
                    outputs[f"formed.{prefix}{layer}"] = stacked + ["F", *dims]
        # a 1-block model has no block below the last, so no denominator to switch: no
        # `inverse_rows` either (an input nothing reads, which the runtime would not feed)
        inputs += [tensor_info("inverse_rows", ["F", 1, 1]), *given] if given else []
    return a.model(inputs, _outputs(a, values, outputs))


def _per_block(a: Assembly, value: str, cfg: ViTConfig) -> Dict[str, str]:
    """A [B, ...] value's rows for each kind of block: block 0's, the looped blocks' (stacked)
    and the last's."""
    def at(b):
        return a.constant(np.array(b, np.int64), f"at.{b}")
    return {"first": a.node("Gather", [value, at(0)]),
            "looped": a.node("Slice", [value, a.constant(np.array([1], np.int64), "from.1"),
                                       a.constant(np.array([cfg.depth - 1], np.int64), "to.last")]),
            "last": a.node("Gather", [value, at(cfg.depth - 1)])}


def split_models(cfg: ViTConfig, params, final_ln_eps=None):
    """(the photo graph, the class graph), every pass: the photo graph's cache holds every
    record value the class graph reads, the proposed denominators included, but the blocks'
    attention, which it takes from `attn`."""
    ex = Examples(cfg, params, P.PASSES, final_ln_eps, inverses=True)
    bw = Backward(cfg, params, P.PASSES, ex)
    fw = Forward(cfg, params, ex, bw.reads, inverses=True, final_ln_eps=final_ln_eps)
    from_attn = {"first.attn": "first", "rec.attn": "looped"}
    cache = sorted(n for n in bw.reads if n.startswith(RECORDS) and n not in from_attn or n == "pixels")
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
    wanted = [n for n in from_attn if n in bw.reads]
    if wanted:
        rows = _per_block(klass, "attn", cfg)
        values.update({n: rows[from_attn[n]] for n in wanted})
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
    rows = {"x": {0: "rows"}}
    example = {"mask": torch.ones(cfg.heads)} if head_mask else {}

    def embed(pixels):
        return {"x0": plain_embed(params, cfg, pixels)}

    def block(block_params, b, head=False):
        def fn(x, mask=None, **w):
            x = plain_block(block_params(w), cfg, b, x, mask)
            return {"logits": plain_head(params, cfg, x)} if head else {"x.next": x}
        return fn

    a = Assembly(cfg, params)
    x = a.add(trace(embed, params, {"pixels": pixels}, {"pixels": {0: "batch"}}), scope="embed")["x0"]
    masks = _per_block(a, "head_mask", cfg) if head_mask else {}
    if cfg.depth > 1:
        first = trace(block(lambda w: params, 0), params, {"x": x0, **example}, rows)
        x = a.add(first, {"x": x, **({"mask": masks["first"]} if head_mask else {})}, "first")["x.next"]
    if looped_blocks(cfg):
        inputs = {"x": x0, **example, **block_inputs(params, cfg, BODY_BLOCK)}
        piece = trace(block(BlockParams, BODY_BLOCK), None, inputs, rows)
        scanned = {**_weights(a, piece), **({"mask": masks["looped"]} if head_mask else {})}
        a.scan(piece, [("x", "x.next", x, "x.top")], scanned, {}, {}, reverse=False, name="blocks")
        x = "x.top"
    top = trace(block(lambda w: params, cfg.depth - 1, head=True), params, {"x": x0, **example}, rows)
    values = a.add(top, {"x": x, **({"mask": masks["last"]} if head_mask else {})}, "top")
    inputs = [tensor_info("pixels", ["batch", 3, h, w])]
    if head_mask:
        inputs.append(tensor_info("head_mask", [cfg.depth, cfg.heads]))
    return a.model(inputs, _outputs(a, values, {"logits": ["batch", cfg.num_classes]}))
