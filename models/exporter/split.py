"""The explainer split in two graphs, for a page that explains one photo for many classes.

The photo graph (pixels -> logits, attn and the cache: every class-independent tensor the
passes read, the forward's records and the proposed rule's Linear denominators) and the
class graph (logits, attn, the cache, the target rows `target` and the switches -> the other
outputs). Run in sequence they compute what the explainer graph computes (the denominators
formed as it forms them with pixel_relevance 0, see add_inverses); a class switch runs the
class graph alone on the cached tensors. The cache tensors are named after the records'
fields ("cache.rec.n1": block records stacked over blocks 0..B-2, "cache.top.…" the last
block's, "cache.head.…", "cache.pro.…" the embedding's: exported_graphs.py); the class
graph's file is still <name>.target.onnx, "target" in models/index.json (a file format;
docs/glossary.md, pending).
"""
import torch

from .config import ViTConfig
from .lrp_rules import proposed_inverse

CACHE_PREFIX = "cache."


def add_inverses(params, cfg: ViTConfig, b: int, c, last: bool) -> None:
    """Block b's proposed Linear denominators into c.lrp_inv, as lrp.block_relprop reads
    them and as the explainer graph forms them with pixel_relevance 0: below the last
    block's attention from the forward's products (one matrix product each), above it (the
    last block's other Linears, where the classic stream always runs) from two."""
    pre = f"blocks.{b}."

    def inverse(x, name, product, below_cut=False):
        return proposed_inverse(x, params.linear(pre + name + ".weight"), product if below_cut or not last else None)

    c.lrp_inv = {
        "fc2": inverse(c.g, "mlp.fc2", c.fc2_product),
        "fc1": inverse(c.n2, "mlp.fc1", c.fc1_product),
        "proj": inverse(c.o_merged, "attn.proj", c.proj_product),
        "qkv": inverse(c.n1, "attn.qkv", c.qkv_product, below_cut=True),
    }


def add_head_inverses(params, cfg: ViTConfig, head) -> None:
    """The head Linears' proposed denominators into head.lrp_inv (from two products: the
    classic stream always runs there)."""
    head_in = head.feat if getattr(head, "feat", None) is not None else head.final_out[..., 0:1, :]
    head.lrp_inv = {"head": proposed_inverse(head_in, params.linear("head.weight"))}
    if cfg.pool == "cls+dist":
        head.lrp_inv["head_dist"] = proposed_inverse(head.final_out[..., 1:2, :], params.linear("head_dist.weight"))


# The Linear layers whose proposed denominators a block below the last forms, and where.
BLOCK_INVERSES = {"fc2": ("g", "mlp.fc2", "fc2_product"), "fc1": ("n2", "mlp.fc1", "fc1_product"),
                  "proj": ("o_merged", "attn.proj", "proj_product"), "qkv": ("n1", "attn.qkv", "qkv_product")}


def add_switched_inverses(params, cfg: ViTConfig, b: int, c, names, rows, given):
    """Block b's (below the last) proposed denominators `names`, formed on F copies of its
    rows (rows: ones [F,1,1], F 0 or 1 at run time) beside `given` ones ({name: [1-F, r,
    out]}, the denominators a page kept from the photo's first run): c.lrp_inv holds the
    one of the two that has rows, as add_inverses forms it; returns those formed here,
    {name: [F, r, out]} (empty when given). The same trick as lrp.py's classic stream:
    an empty product costs nothing, where an If would hold two versions of the loop."""
    pre = f"blocks.{b}."
    formed, c.lrp_inv = {}, {}
    for name in names:
        x_field, key, product_field = BLOCK_INVERSES[name]
        x, product = getattr(c, x_field), getattr(c, product_field)
        formed[name] = proposed_inverse(x * rows, params.linear(pre + key + ".weight"), product * rows)
        both = torch.cat([formed[name], given[name]], dim=0)
        c.lrp_inv[name] = both.reshape(int(x.shape[-2]), int(product.shape[-1]))  # static: no If
    return formed
