"""A text model's method family graphs, so that a request opens and runs only the passes
it fetches (docs/experiments.md, "Text family graphs"): the explainer graph cut to the
outputs one family of methods reads (every node, initializer and input that none of them
reaches dropped, its nodes unchanged), or, for transformer_attribution, a graph traced from
a module of its own (proposed.py: without the classic stream, which the explainer forms
beside the proposed one and whose products the cut would keep). A family keeps the
explainer graph's input and output names (the contract, docs/architecture.md) and gives
its outputs (the exporter's family check, graphs.verify_families).

  attention: the forward and its attention (raw_attention, attention_rollout);
  transformer_attribution: also the attention gradients and the proposed rules'
    relevance (Chefer et al.'s method and every baseline reading attn_grad, attn_rel);
  lrp: the classic rules' relevance (partial_lrp, lrp_full);
  attnlrp: the AttnLRP and CP-LRP modified backward passes.
"""
from typing import Dict, List, Set, Tuple

import onnx

TEXT_FAMILIES: Dict[str, Tuple[str, ...]] = {
    "attention": ("logits", "attn"),
    "transformer_attribution": ("logits", "attn", "attn_grad", "attn_rel"),
    "lrp": ("logits", "attn_rel_classic_last", "input_rel_classic"),
    "attnlrp": ("logits", "input_rel_attnlrp", "input_rel_cp_lrp"),
}


def family_files(name: str) -> Dict[str, str]:
    return {family: f"{name}.{family}.onnx" for family in TEXT_FAMILIES}


def _subgraph_inputs(node: onnx.NodeProto) -> Set[str]:
    """The outer names an If/Loop body reads (a cleaned text graph has none; kept exact)."""
    names: Set[str] = set()
    for a in node.attribute:
        for g in ([a.g] if a.HasField("g") else []) + list(a.graphs):
            for n in g.node:
                names.update(n.input)
                names.update(_subgraph_inputs(n))
    return names


def prune_to(model: onnx.ModelProto, outputs: List[str]) -> onnx.ModelProto:
    """A copy of `model` computing only `outputs` (in the model's own order)."""
    cut = onnx.ModelProto()
    cut.CopyFrom(model)
    g = cut.graph
    unknown = [o for o in outputs if o not in {v.name for v in g.output}]
    if unknown:
        raise ValueError(f"the explainer graph has no output {', '.join(unknown)}")
    needed = set(outputs)
    kept: List[onnx.NodeProto] = []
    for node in reversed(list(g.node)):
        if any(o in needed for o in node.output):
            kept.append(node)
            needed.update(i for i in node.input if i)
            needed.update(_subgraph_inputs(node))
    keep = {
        "node": list(reversed(kept)),
        "output": [v for v in g.output if v.name in outputs],
        "input": [v for v in g.input if v.name in needed],
        "initializer": [t for t in g.initializer if t.name in needed],
        "value_info": [v for v in g.value_info if v.name in needed],
    }
    for field, items in keep.items():
        copies = [type(i)() for i in items]
        for c, i in zip(copies, items):
            c.CopyFrom(i)
        del getattr(g, field)[:]
        getattr(g, field).extend(copies)
    return cut


def build_families(explainer: onnx.ModelProto, own: Dict[str, onnx.ModelProto]) -> Dict[str, onnx.ModelProto]:
    """The family graphs: those in `own` as given, the others cut from the explainer."""
    return {family: own[family] if family in own else prune_to(explainer, list(outputs))
            for family, outputs in TEXT_FAMILIES.items()}
