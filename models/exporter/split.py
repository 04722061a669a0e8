"""The explainer split in two graphs, for a page that explains one photo for many classes.

PhotoGraph(pixels) -> (logits, attn, *cache): the forward pass and every class-independent
quantity the backward and LRP passes read (the forward record and the proposed rule's
Linear denominators, about half the explainer's matrix work).
ClassGraph(logits, attn, *cache, target, pixel_relevance, attnlrp_relevance, cp_lrp_relevance)
-> (attn_grad, attn_rel, attn_rel_classic_last, input_rel_classic, input_rel_attnlrp,
input_rel_cp_lrp): the rest, for K target rows (the graph input `target`, docs/glossary.md).

Run in sequence they compute exactly what ExplainerGraph computes (same operations, same
order); a class switch runs ClassGraph alone on the cached tensors. The cache tensors are
named after the record fields ("cache.b3.n1", "cache.b3.inv_fc1", "cache.final_xhat"); the
exporter keeps only those ClassGraph reads (split_export.py). Its file is still
<name>.target.onnx, "target" in models/index.json (a file format; docs/glossary.md, pending).
"""
from types import SimpleNamespace
from typing import Dict, List, Tuple

import torch
from torch import nn

from .attnlrp import METHODS, switched_map
from .backward import attention_gradients
from .config import ViTConfig
from .forward import vit_forward
from .lrp import relevance_pass
from .lrp_rules import proposed_inverse
from .params import ViTParams
from .targets import predicted_class_rows

PHOTO_INPUTS = ["pixels"]
PHOTO_OUTPUTS = ["logits", "attn"]  # then the cache
CLASS_INPUTS_AFTER_CACHE = ["target", "pixel_relevance", "attnlrp_relevance", "cp_lrp_relevance"]
CLASS_OUTPUTS = ["attn_grad", "attn_rel", "attn_rel_classic_last", "input_rel_classic",
                 "input_rel_attnlrp", "input_rel_cp_lrp"]
CACHE_PREFIX = "cache."


def add_proposed_inverses(params, cfg: ViTConfig, fw) -> None:
    """The proposed rule's Linear denominators, as lrp.block_relprop/head_relprop read them,
    formed as the single graph forms them with pixel_relevance = 0: below the last block's
    attention from the forward's products (one matrix product each), above it (the last
    block's other Linears and the head, where the classic stream always runs) from two.
    Block 0's qkv has none: the proposed stream stops at block 0's attention."""
    last = cfg.depth - 1
    for b, c in enumerate(fw.blocks):
        pre = f"blocks.{b}."

        def inverse(x, name, product, below_cut=False):
            return proposed_inverse(x, params.get(pre + name + ".weight"), product if below_cut or b < last else None)

        c.lrp_inv = {
            "fc2": inverse(c.g, "mlp.fc2", c.fc2_product),
            "fc1": inverse(c.n2, "mlp.fc1", c.fc1_product),
            "proj": inverse(c.o_merged, "attn.proj", c.proj_product),
        }
        if b > 0:
            c.lrp_inv["qkv"] = inverse(c.n1, "attn.qkv", c.qkv_product, below_cut=True)
    head_in = fw.feat if hasattr(fw, "feat") else fw.final_out[0:1]  # pooled heads: the pooled features
    fw.lrp_inv = {"head": proposed_inverse(head_in, params.get("head.weight"))}
    if cfg.pool == "cls+dist":
        fw.lrp_inv["head_dist"] = proposed_inverse(fw.final_out[1:2], params.get("head_dist.weight"))


def _fields(ns) -> List[Tuple[str, object]]:
    return [(k, v) for k, v in vars(ns).items() if k != "blocks"]


def record_layout(fw) -> Tuple[List[str], Dict[str, str]]:
    """(names of the distinct cache tensors, in order; alias: field path -> cache name or
    "attn:<b>" for block b's attention, which travels in the stacked attn output)."""
    names, alias, seen = [], {}, {id(fw.logits): "logits"}  # logits travel as their own input
    for b, c in enumerate(fw.blocks):
        seen[id(c.attn)] = f"attn:{b}"
    scopes = [("", fw)] + [(f"b{b}.", c) for b, c in enumerate(fw.blocks)]
    for prefix, ns in scopes:
        for key, value in _fields(ns):
            items = value.items() if isinstance(value, dict) else [(None, value)]
            for sub, t in items:
                if not torch.is_tensor(t):
                    continue
                path = f"{prefix}{key}" + (f"_{sub}" if sub else "")
                if id(t) not in seen:
                    seen[id(t)] = path
                    names.append(path)
                alias[path] = seen[id(t)]
    return names, alias


def cache_tensors(fw, names: List[str]) -> List[torch.Tensor]:
    by_path = {}
    scopes = [("", fw)] + [(f"b{b}.", c) for b, c in enumerate(fw.blocks)]
    for prefix, ns in scopes:
        for key, value in _fields(ns):
            items = value.items() if isinstance(value, dict) else [(None, value)]
            for sub, t in items:
                if torch.is_tensor(t):
                    by_path.setdefault(f"{prefix}{key}" + (f"_{sub}" if sub else ""), t)
    return [by_path[n] for n in names]


def rebuild_record(cfg: ViTConfig, template, alias: Dict[str, str], tensors: Dict[str, torch.Tensor], attn):
    """A forward record with the fields of `template` (a traced record's shape: which
    fields exist, the non-tensor ones such as rows), the tensors taken from the inputs."""
    def value_of(path):
        src = alias[path]
        if src.startswith("attn:"):
            return attn[int(src[5:])]
        return tensors[src]

    def rebuild(prefix, ns):
        out = SimpleNamespace()
        for key, value in _fields(ns):
            if isinstance(value, dict):
                setattr(out, key, {sub: value_of(f"{prefix}{key}_{sub}") for sub in value})
            elif torch.is_tensor(value):
                setattr(out, key, value_of(f"{prefix}{key}"))
            else:
                setattr(out, key, value)
        return out

    fw = rebuild("", template)
    fw.blocks = [rebuild(f"b{b}.", c) for b, c in enumerate(template.blocks)]
    return fw


def photo_record(params, cfg: ViTConfig, pixels, final_ln_eps=None):
    logits, fw = vit_forward(params, cfg, pixels, final_ln_eps)
    add_proposed_inverses(params, cfg, fw)
    return logits, fw


class PhotoGraph(nn.Module):
    def __init__(self, cfg: ViTConfig, state_dict, cache_names: List[str], final_ln_eps=None):
        super().__init__()
        self.cfg = cfg
        self.params = ViTParams(cfg, state_dict)
        self.cache_names = cache_names
        self.final_ln_eps = final_ln_eps

    def forward(self, pixels):
        logits, fw = photo_record(self.params, self.cfg, pixels, self.final_ln_eps)
        attn = torch.stack([c.attn for c in fw.blocks], dim=0)
        return (logits, attn, *cache_tensors(fw, self.cache_names))


class ClassGraph(nn.Module):
    """forward(logits, attn, *cache, target, pixel_relevance, attnlrp_relevance,
    cp_lrp_relevance); `template` is a record of
    the same model (from any input) that tells which fields exist."""

    def __init__(self, cfg: ViTConfig, state_dict, template, cache_names: List[str], alias: Dict[str, str]):
        super().__init__()
        self.cfg = cfg
        self.params = ViTParams(cfg, state_dict)
        self.template = template
        self.cache_names = cache_names
        self.alias = alias

    def forward(self, logits, attn, *rest):
        *cache, target, pixel_relevance, attnlrp_relevance, cp_lrp_relevance = rest
        cfg = self.cfg
        tensors = dict(zip(self.cache_names, cache), logits=logits)
        fw = rebuild_record(cfg, self.template, self.alias, tensors, attn)
        target = predicted_class_rows(target, logits)
        grads = attention_gradients(self.params, cfg, fw, target)
        rel, rel_classic_last, input_rel = relevance_pass(self.params, cfg, fw, target, pixel_relevance)
        maps = [switched_map(self.params, cfg, fw, target, s, m)
                for m, s in zip(METHODS, (attnlrp_relevance, cp_lrp_relevance))]
        return (torch.stack(grads, dim=1), torch.stack(rel, dim=1), rel_classic_last, input_rel, *maps)


def build_split(cfg: ViTConfig, state_dict, final_ln_eps=None):
    """(PhotoGraph, ClassGraph, cache names) with every record tensor in the cache;
    split_export.py prunes the ones ClassGraph does not read."""
    params = ViTParams(cfg, state_dict)
    h, w = cfg.image_size
    with torch.no_grad():
        logits, template = photo_record(params, cfg, torch.zeros(1, 3, h, w), final_ln_eps)
    names, alias = record_layout(template)
    photo = PhotoGraph(cfg, state_dict, names, final_ln_eps).eval()
    class_graph = ClassGraph(cfg, state_dict, template, names, alias).eval()
    return photo, class_graph, names
