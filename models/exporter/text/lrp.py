"""Both LRP passes (proposed rules: official layers_ours; classic: layers_lrp) from the
logits down to the embeddings' output, batched over K, for the official BERT code's
layers (BERT_explainability/modules/BERT/BERT.py) with the ViT exporter's rules
(lrp_rules.py). Per post-LN layer, from its output:

  LN2: identity; Add(fc2 branch, x1): residual rule; fc2, act (identity), fc1: Linear
  rules; Clone of x1; LN1: identity; Add(proj branch, x): residual rule; proj: Linear;
  A·v: the product rule (R[b] = R_A after its division by 2); softmax, the 1/√d scale and
  the attention-mask add (0 for one text): identity; q·kᵀ: the product rule; the query,
  key and value Linears: one Linear rule on the stacked qkv (each output's own
  denominator, the same sums); their 3-way Clone of x; the Clone of x (attention, residual).

The head: classifier Linear, tanh (BERT's pooler; DistilBERT's ReLU) identity, the
pooler's Linear, then the selection of row 0 ([CLS]). The classic stream has K rows down
to the last layer's attention (attn_rel_classic_last), then K or 0 rows as the
token_relevance input says (lrp_rules: classic_rows): input_rel_classic is its relevance
at the embeddings' output summed over the hidden axis. The proposed stream runs to block
0's attention and, unused, one step below (a stream of its own there would read the
rules' static-shape path). A pair without a classic stream (proposed.py, the
transformer_attribution family) forms each layer's Linear denominators from the forward's
own product (lrp_rules.linear_relprop): one matrix product instead of two."""
import torch

from ..lrp_rules import clone_relprop, each, linear_relprop, product_relprop, residual_relprop, select_relprop
from .backward import first_row
from .config import TextConfig
from .forward import merge_heads, split_heads

ONE_ROW = torch.ones(1, 1, 1)


def head_relprop(params, cfg: TextConfig, head, R, ones):
    """(proposed, classic) [K, C] at the logits -> [K, S, D] at the last layer's output."""
    R = each(lambda r: r.unsqueeze(1), R)
    R = linear_relprop(R, head.pooled, params.linear("head.weight"))  # tanh / ReLU: identity
    R = linear_relprop(R, head.h0, params.linear(cfg.pool_key + ".weight"))
    row0 = first_row(ones)
    return each(lambda r: r * row0, select_relprop(R, head.h0))


def block_relprop(params, cfg: TextConfig, b: int, c, R, classic_rows=None, wanted=None):
    """R: (proposed, classic) [K, S, D] at layer b's output -> (R at its attention, pair
    [K, h, S, S]; R at its input, pair [K, S, D]). classic_rows: None or ones [F,1,1] (the
    classic stream has F·K rows); wanted (0-d, 0 or 1) in the last layer cuts the classic
    stream to wanted·K rows below its attention. Without a classic stream (R[1] None) the
    proposed Linear denominators come from the forward's products (c.<layer>_product)."""
    pre = f"blocks.{b}."
    alone = R[1] is None

    def linear(r, x, part, product):
        return linear_relprop(r, x, params.linear(pre + part + ".weight"), classic_rows,
                              product=product if alone else None)

    r_x1, r_m = residual_relprop(R, c.x1, c.mlp_out, c.a2)  # LN2: identity
    r_n = linear(linear(r_m, c.g, "mlp.fc2", c.fc2_product), c.x1, "mlp.fc1", c.fc1_product)  # the activation: identity
    r_x1 = clone_relprop(r_x1, r_n, c.x1)
    r_x, r_p = residual_relprop(r_x1, c.x, c.proj_out, c.a1)  # LN1: identity
    r_o = linear(r_p, c.o_merged, "attn.proj", c.proj_product)
    r_a, r_v = product_relprop(each(lambda r: split_heads(r, cfg, c.tokens), r_o), c.attn, c.v, c.o, classic_rows)
    r_attn = r_a
    if wanted is not None:
        r_a, r_v, r_x = ((p, cl[: wanted * cl.shape[0]]) for p, cl in (r_a, r_v, r_x))
        classic_rows = ONE_ROW[:wanted]
    r_q, r_kt = product_relprop(r_a, c.q, c.k.transpose(-1, -2), c.zqk, classic_rows)
    r_qkv = tuple(None if q is None else
                  torch.cat([merge_heads(t, cfg, c.tokens) for t in (q, k.transpose(-1, -2), v)], -1)
                  for q, k, v in zip(r_q, r_kt, r_v))
    # the 3-way Clone of x into query, key and value: x ⊙ Σ_i R_i/x = x ⊙ (R_qkv/x) (the same
    # denominator), then the Clone of x into the attention and the residual
    r_n1 = select_relprop(linear(r_qkv, c.x, "attn.qkv", c.qkv_product), c.x)
    return r_attn, clone_relprop(r_x, r_n1, c.x)


def hidden_sum(r, cfg: TextConfig):
    """[K', S, D] -> [K', S]: the sum over the hidden axis, as a product with a ones column
    (onnxruntime's Reduce ops give an empty input a wrong shape: attnlrp.py)."""
    return torch.matmul(r, torch.ones(cfg.embed_dim, 1, dtype=r.dtype)).squeeze(-1)
