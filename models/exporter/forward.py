"""Forward pass of a ViT that keeps every intermediate the backward and LRP passes read.

Tokens are handled without the batch dimension ([S, D]); the graph explains one image.
The last block only computes its output for the rows the heads read (token 0, plus
token 1 for distilled models; every row for the pooled heads): no other row of it
reaches the logits. The layouts beyond DeiT's (config.py) add optional steps: register
tokens, position embedding over the patches only, norm_pre, LayerScale, other
activations, average pooling, fc_norm and DINOv2's concat(cls, patch mean) head.
"""
import math
from types import SimpleNamespace

import torch
import torch.nn.functional as F

from .config import ViTConfig

INV_SQRT2 = 1.0 / math.sqrt(2.0)
SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
QUICK_GELU = 1.702  # OpenAI CLIP's x * sigmoid(1.702 x)


def layer_norm_parts(x, weight, bias, eps):
    """LayerNorm written out, returning (y, xhat, rstd) for the explicit backward."""
    mu = x.mean(-1, keepdim=True)
    xc = x - mu
    var = (xc * xc).mean(-1, keepdim=True)
    rstd = 1.0 / torch.sqrt(var + eps)
    xhat = xc * rstd
    return xhat * weight + bias, xhat, rstd


def patch_matrix(pixels, cfg: ViTConfig):
    """[1,3,H,W] -> [N, 3*p*p]: one row per patch (row-major grid), columns in (c, kh, kw)
    order, matching the conv kernel reshaped to [D, 3*p*p]."""
    p = cfg.patch_size
    gh, gw = cfg.grid
    x = pixels.reshape(3, gh, p, gw, p).permute(1, 3, 0, 2, 4)
    return x.reshape(gh * gw, 3 * p * p)


def conv_kernel_matrix(params, cfg: ViTConfig):
    return params.get("patch_embed.proj.weight").reshape(cfg.embed_dim, -1)


def linear_parts(x, weight, bias):
    """(x W^T, x W^T + b). The bias-free product feeds the proposed LRP denominators
    (lrp_rules.proposed_inverse); it is taken back out of the output, so the forward keeps
    its single fused Gemm and its exact rounding."""
    out = F.linear(x, weight, bias)
    return (out if bias is None else out - bias), out


def head_rows(cfg: ViTConfig) -> int:
    """Rows of the last block's output the head reads: tokens 0 (and 1), or all of them."""
    return {"cls": 1, "cls+dist": 2}.get(cfg.pool, cfg.tokens)


def pooled_rows(cfg: ViTConfig):
    """(first, count) of the rows an average-pooling head averages."""
    first = 0 if cfg.pool == "avg+prefix" else cfg.special_tokens
    return first, cfg.tokens - first


def final_norm_key(cfg: ViTConfig) -> str:
    return "fc_norm" if cfg.fc_norm else "norm"


def activation(c, cfg: ViTConfig):
    """c.g = act(c.u), keeping what the derivative needs (backward.activation_grad)."""
    u = c.u
    if cfg.act == "gelu":
        c.cdf = 0.5 * (1.0 + torch.erf(u * INV_SQRT2))  # exact (erf) GELU, as timm
        c.g = u * c.cdf
    elif cfg.act == "gelu_tanh":
        c.tanh = torch.tanh(SQRT_2_OVER_PI * (u + 0.044715 * u * u * u))
        c.g = 0.5 * u * (1.0 + c.tanh)
    else:  # quickgelu
        c.sig = torch.sigmoid(QUICK_GELU * u)
        c.g = u * c.sig


def block_attention(params, cfg: ViTConfig, b: int, x):
    """The attention half of block b on x [S, D] up to the post-softmax attention."""
    pre = f"blocks.{b}."
    S, h, d = cfg.tokens, cfg.heads, cfg.head_dim
    c = SimpleNamespace(x=x)
    c.n1, c.xhat1, c.rstd1 = layer_norm_parts(x, params.get(pre + "norm1.weight"),
                                              params.get(pre + "norm1.bias"), cfg.ln_eps)
    c.qkv_product, qkv = linear_parts(c.n1, params.get(pre + "attn.qkv.weight"),
                                      params.get_optional(pre + "attn.qkv.bias"))
    if x.dim() == 2:
        qkv = qkv.reshape(S, 3, h, d).permute(1, 2, 0, 3)  # [3, h, S, d]
    else:  # a leading batch axis (the attribution's scaled copies): [3, m, h, S, d]
        qkv = qkv.reshape(-1, S, 3, h, d).permute(2, 0, 3, 1, 4)
    c.q, c.k, c.v = qkv[0], qkv[1], qkv[2]
    c.zqk = torch.matmul(c.q, c.k.transpose(-1, -2))  # unscaled q.k^T, the LRP product
    c.attn = torch.softmax(c.zqk * (d ** -0.5), dim=-1)
    return c


def block_output(params, cfg: ViTConfig, b: int, c, attn_rows, rows: int):
    """The rest of block b from the attention rows it uses ([.., h, rows, S]; a leading
    batch axis broadcasts against c.x and c.v); only rows [:rows] of the output."""
    pre = f"blocks.{b}."
    S, D = cfg.tokens, cfg.embed_dim
    c.rows = rows
    c.attn_rows = attn_rows
    c.o = torch.matmul(attn_rows, c.v)  # [.., h, rows, d]
    merged = c.o.transpose(-3, -2)
    c.o_merged = merged.reshape(rows, D) if merged.dim() == 3 else merged.reshape(-1, rows, D)
    c.proj_product, c.proj_out = linear_parts(c.o_merged, params.get(pre + "attn.proj.weight"),
                                              params.get(pre + "attn.proj.bias"))
    c.x_rows = c.x[..., :rows, :] if rows < S else c.x
    # LayerScale multiplies each branch by a learnt vector before the residual add
    c.attn_branch = c.proj_out * params.get(pre + "ls1.gamma") if cfg.layer_scale else c.proj_out
    c.x1 = c.x_rows + c.attn_branch
    c.n2, c.xhat2, c.rstd2 = layer_norm_parts(c.x1, params.get(pre + "norm2.weight"),
                                              params.get(pre + "norm2.bias"), cfg.ln_eps)
    c.fc1_product, c.u = linear_parts(c.n2, params.get(pre + "mlp.fc1.weight"),
                                      params.get(pre + "mlp.fc1.bias"))
    activation(c, cfg)
    c.fc2_product, c.mlp_out = linear_parts(c.g, params.get(pre + "mlp.fc2.weight"),
                                            params.get(pre + "mlp.fc2.bias"))
    c.mlp_branch = c.mlp_out * params.get(pre + "ls2.gamma") if cfg.layer_scale else c.mlp_out
    c.x_out = c.x1 + c.mlp_branch
    return c


def block_forward(params, cfg: ViTConfig, b: int, x, rows: int):
    """One pre-norm block on x [.., S, D]; outputs only rows [:rows] of the block output."""
    c = block_attention(params, cfg, b, x)
    # a full-range slice would still be a copy in the graph: slice only the last block
    sliced = rows < cfg.tokens
    c.q_rows = c.q[..., :rows, :] if sliced else c.q
    c.zqk_rows = c.zqk[..., :rows, :] if sliced else c.zqk
    return block_output(params, cfg, b, c, c.attn[..., :rows, :] if sliced else c.attn, rows)


def classifier_logits(params, cfg: ViTConfig, final_out):
    """Logits [.., 1, C] from the final LayerNorm's rows [.., nh, D] (distilled: the mean
    of both heads); returns (logits, head_out, head_dist_out or None)."""
    head_out = F.linear(final_out[..., 0:1, :], params.get("head.weight"), params.get("head.bias"))
    if cfg.pool != "cls+dist":
        return head_out, head_out, None
    dist_out = F.linear(final_out[..., 1:2, :], params.get("head_dist.weight"), params.get("head_dist.bias"))
    return (head_out + dist_out) * 0.5, head_out, dist_out


def head_forward(params, cfg: ViTConfig, x, eps=None):
    """The final norm, the pooling and the head(s) on the last block's rows x [.., rows, D]:
    a record with final_in, final_out/final_xhat/final_rstd (the final LayerNorm, over the
    rows or, with fc_norm and average pooling, over the pooled vector), feat (the head's
    input [.., 1, D or 2D], pooled heads), head_out, head_dist_out and logits [.., 1, C]."""
    eps = cfg.ln_eps if eps is None else eps
    key = final_norm_key(cfg)
    h = SimpleNamespace(final_in=x)
    first, n = pooled_rows(cfg)
    pooled = cfg.pool in ("avg", "avg+prefix", "cls+avg")
    if pooled and cfg.fc_norm:  # timm: pool, then fc_norm (the final norm is the identity)
        h.pooled_in = x[..., first:, :].mean(-2, keepdim=True)
        x = h.pooled_in
    h.final_out, h.final_xhat, h.final_rstd = layer_norm_parts(
        x, params.get(key + ".weight"), params.get(key + ".bias"), eps)
    if not pooled:
        h.logits, h.head_out, h.head_dist_out = classifier_logits(params, cfg, h.final_out)
        return h
    h.feat = h.final_out if cfg.fc_norm else h.final_out[..., first:, :].mean(-2, keepdim=True)
    if cfg.pool == "cls+avg":  # HF DINOv2: one head on concat(cls, mean of the patches)
        h.feat = torch.cat([h.final_out[..., 0:1, :], h.feat], dim=-1)
    h.logits = h.head_out = F.linear(h.feat, params.get("head.weight"), params.get("head.bias"))
    h.head_dist_out = None
    return h


def embed(params, cfg: ViTConfig, fw):
    """Tokens entering block 0 ([S, D]: prefix tokens, then the patches) into fw:
    tokens0 and pos (the two addends of x_embed), x_embed, and x (after norm_pre)."""
    D = cfg.embed_dim
    fw.patches = patch_matrix(pixels=fw.pixels, cfg=cfg)
    fw.emb_nobias = torch.matmul(fw.patches, conv_kernel_matrix(params, cfg).t())
    emb = fw.emb_nobias + params.get("patch_embed.proj.bias") if cfg.patch_bias else fw.emb_nobias
    special = [params.get(k).reshape(1, D)
               for k, on in (("cls_token", cfg.cls_token), ("dist_token", cfg.distilled)) if on]
    if cfg.registers:
        special.append(params.get("reg_token").reshape(cfg.registers, D))
    fw.pos = params.get("pos_embed").reshape(cfg.pos_tokens, D)
    if cfg.no_embed_class:  # the position embedding covers the patches; the prefix has none
        fw.tokens0 = emb
        fw.x_embed = fw.tokens0 + fw.pos
        x = torch.cat(special + [fw.x_embed], dim=0)
    else:
        fw.tokens0 = torch.cat(special + [emb], dim=0)  # before the pos-embed add
        x = fw.x_embed = fw.tokens0 + fw.pos
    if cfg.norm_pre:
        x, fw.pre_xhat, fw.pre_rstd = layer_norm_parts(x, params.get("norm_pre.weight"),
                                                       params.get("norm_pre.bias"), cfg.ln_eps)
    return x


def vit_forward(params, cfg: ViTConfig, pixels, final_ln_eps=None):
    """Returns (logits [1, C], record) where record holds all intermediates."""
    fw = SimpleNamespace(pixels=pixels)
    x = embed(params, cfg, fw)
    fw.blocks = []
    nh = head_rows(cfg)
    for b in range(cfg.depth):
        rows = nh if b == cfg.depth - 1 else cfg.tokens
        c = block_forward(params, cfg, b, x, rows)
        fw.blocks.append(c)
        x = c.x_out
    head = head_forward(params, cfg, x, final_ln_eps)
    for key, value in vars(head).items():
        if value is not None:
            setattr(fw, key, value)
    return fw.logits, fw
