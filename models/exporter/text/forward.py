"""Forward pass of a BERT/DistilBERT classifier over S tokens (S dynamic: every shape is
read from the tensors, never from the config), keeping every intermediate the backward
and LRP passes read. Tokens are rows without a batch axis ([S, D]); the graph explains
one text. Post-LN layers (HF BertLayer / DistilBERT TransformerBlock):

  x1 = LN1(x + proj(Attn(x)))          x_out = LN2(x1 + fc2(act(fc1(x1))))

The embeddings: word + token type 0 (BERT) + position 0..S-1, then a LayerNorm; the head
reads h[CLS] (row 0): BERT tanh(pooler(h0)), DistilBERT ReLU(pre_classifier(h0)), then
the classifier. Dropout is the identity (inference)."""
import math
from types import SimpleNamespace

import torch
import torch.nn.functional as F

from ..forward import activation, layer_norm_parts, linear_parts
from .config import TextConfig


def embed(params, cfg: TextConfig, input_ids):
    """input_ids [1, S] int64 -> the embedding record: tokens (S, traced once: every reshape
    that needs it reads this one value, so the graph holds one shape computation, not one
    per reshape), x0 [S, D] (after the LayerNorm, the encoder's input), xhat0/rstd0, and
    ones [S, 1] (row sums of streams that may be empty)."""
    fw = SimpleNamespace(tokens=input_ids.shape[1])
    ids = input_ids[0]
    e = F.embedding(ids, params.get("embed.word"))
    if cfg.family == "bert":  # token type 0 for every token of one text
        e = e + params.get("embed.token_type")[0:1]
    fw.e = e + params.get("embed.position")[: fw.tokens]
    fw.x0, fw.xhat0, fw.rstd0 = layer_norm_parts(fw.e, params.get("embed.norm.weight"),
                                                 params.get("embed.norm.bias"), cfg.ln_eps)
    fw.ones = torch.ones_like(fw.x0[:, :1])
    return fw


def split_heads(t, cfg: TextConfig, tokens):
    """[S, D] -> [h, S, d], or [n, S, D] -> [n, h, S, d] (n may be 0: an empty stream)."""
    if t.dim() == 2:
        return t.reshape(-1, cfg.heads, cfg.head_dim).transpose(0, 1)
    return t.reshape(-1, tokens, cfg.heads, cfg.head_dim).transpose(1, 2)


def merge_heads(t, cfg: TextConfig, tokens):
    """[h, S, d] -> [S, D], or [n, h, S, d] -> [n, S, D]."""
    if t.dim() == 3:
        return t.transpose(0, 1).reshape(-1, cfg.embed_dim)
    return t.transpose(1, 2).reshape(-1, tokens, cfg.embed_dim)


def block_attention(params, cfg: TextConfig, b: int, x, tokens):
    """Layer b's attention on x [S, D] or [n, S, D] up to the post-softmax attention
    [.., h, S, S]; tokens: S (embed)."""
    pre = f"blocks.{b}."
    c = SimpleNamespace(x=x, tokens=tokens)
    c.qkv_product, qkv = linear_parts(x, params.get(pre + "attn.qkv.weight"), params.get(pre + "attn.qkv.bias"))
    d = cfg.embed_dim
    c.q, c.k, c.v = (split_heads(qkv[..., i * d:(i + 1) * d], cfg, tokens) for i in range(3))
    c.zqk = torch.matmul(c.q, c.k.transpose(-1, -2))  # unscaled q.k^T, the LRP product
    c.attn = torch.softmax(c.zqk / math.sqrt(cfg.head_dim), dim=-1)
    return c


def block_output(params, cfg: TextConfig, b: int, c, attn):
    """The rest of layer b from the attention it uses (`attn` [.., h, S, S]: c.attn, or
    scaled copies on a leading axis that broadcasts against c.v and c.x)."""
    pre = f"blocks.{b}."
    eps = cfg.ln_eps
    c.attn_used = attn
    c.o = torch.matmul(attn, c.v)  # [.., h, S, d]
    c.o_merged = merge_heads(c.o, cfg, c.tokens)
    c.proj_product, c.proj_out = linear_parts(c.o_merged, params.get(pre + "attn.proj.weight"),
                                              params.get(pre + "attn.proj.bias"))
    c.a1 = c.proj_out + c.x
    c.x1, c.xhat1, c.rstd1 = layer_norm_parts(c.a1, params.get(pre + "norm1.weight"),
                                              params.get(pre + "norm1.bias"), eps)
    c.fc1_product, c.u = linear_parts(c.x1, params.get(pre + "mlp.fc1.weight"), params.get(pre + "mlp.fc1.bias"))
    activation(c, cfg)
    c.fc2_product, c.mlp_out = linear_parts(c.g, params.get(pre + "mlp.fc2.weight"),
                                            params.get(pre + "mlp.fc2.bias"))
    c.a2 = c.mlp_out + c.x1
    c.x_out, c.xhat2, c.rstd2 = layer_norm_parts(c.a2, params.get(pre + "norm2.weight"),
                                                 params.get(pre + "norm2.bias"), eps)
    return c


def block_forward(params, cfg: TextConfig, b: int, x, tokens):
    c = block_attention(params, cfg, b, x, tokens)
    return block_output(params, cfg, b, c, c.attn)


def head_forward(params, cfg: TextConfig, x):
    """The head on the last layer's output x [.., S, D]: a record with h0 [.., 1, D] (row 0,
    [CLS]), pool_product (h0 W^T), pu (its Linear's output), pooled (tanh or ReLU of pu) and
    logits [.., 1, C]."""
    h = SimpleNamespace(h0=x[..., 0:1, :])
    h.pool_product, h.pu = linear_parts(h.h0, params.get(cfg.pool_key + ".weight"),
                                        params.get(cfg.pool_key + ".bias"))
    h.pooled = torch.tanh(h.pu) if cfg.pooler else torch.relu(h.pu)
    h.logits = F.linear(h.pooled, params.get("head.weight"), params.get("head.bias"))
    return h


def text_forward(params, cfg: TextConfig, input_ids):
    """(logits [1, C], record): record.embed, record.blocks (one per layer), record.head."""
    fw = SimpleNamespace(embed=embed(params, cfg, input_ids), blocks=[])
    x = fw.embed.x0
    for b in range(cfg.depth):
        fw.blocks.append(block_forward(params, cfg, b, x, fw.embed.tokens))
        x = fw.blocks[-1].x_out
    fw.head = head_forward(params, cfg, x)
    return fw.head.logits, fw
