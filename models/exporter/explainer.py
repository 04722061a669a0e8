"""The explainer as one PyTorch module: ExplainerGraph (the graph contract of
docs/architecture.md, run stage by stage by passes.py), and PlainViT (logits only, same
weights, written apart from the explainer's record: the parity check's reference and the
plain forward graph's blocks)."""
import torch
import torch.nn.functional as F
from torch import nn

from . import passes as P
from .config import ViTConfig
from .forward import QUICK_GELU, final_norm_key, pooled_rows
from .params import ViTParams
from .targets import predicted_class_rows

INPUT_NAMES = ["pixels", "target", "pixel_relevance", "attnlrp_relevance", "cp_lrp_relevance"]
OUTPUT_NAMES = P.outputs_of(P.PASSES)
OFF = torch.tensor(0.0)  # a switch PyTorch callers may leave out (the export feeds all)


class ExplainerGraph(nn.Module):
    """forward(pixels [1,3,H,W], target [K,C], *switches) -> the outputs of its passes
    (passes.outputs_of); with every pass (the default), as the contract: (logits [1,C],
    attn [B,h,S,S], attn_grad [K,B,h,S,S], attn_rel [K,B,h,S,S], attn_rel_classic_last
    [K,h,S,S], input_rel_classic [K,H,W], input_rel_attnlrp [K,H,W], input_rel_cp_lrp [K,H,W]).
    The switches are its passes' (passes.switches_of), in that order; one left out is off.

    An all-zero target row stands for the predicted class; each switch = 0 skips its
    input_rel_* output (returned as zeros), any other value computes it."""

    def __init__(self, cfg: ViTConfig, state_dict, final_ln_eps=None, passes=P.PASSES):
        super().__init__()
        self.cfg = cfg
        self.params = ViTParams(cfg, state_dict)
        # the official LRP model builds its final LayerNorm with eps 1e-5; None = cfg.ln_eps
        self.final_ln_eps = final_ln_eps
        self.passes = tuple(p for p in P.PASSES if p in passes)

    def forward(self, pixels, target, *switches):
        names = P.switches_of(self.passes)
        given = dict(zip(names, switches))
        outs = P.run(self.params, self.cfg, self.passes, pixels, target,
                     {n: given.get(n, OFF) for n in names}, self.final_ln_eps, predicted_class_rows)
        return tuple(outs.values())


class PlainViT(nn.Module):
    """Standard ViT/DeiT inference (timm semantics), logits only. With head_mask [B,h]
    (the masked forward for head pruning) each head's post-softmax attention is
    multiplied by its entry: 1 keeps the head exactly, 0 removes it."""

    def __init__(self, cfg: ViTConfig, state_dict):
        super().__init__()
        self.cfg = cfg
        self.params = ViTParams(cfg, state_dict)

    def forward(self, pixels, head_mask=None):
        cfg, p = self.cfg, self.params
        x = plain_embed(p, cfg, pixels)
        for b in range(cfg.depth):
            x = plain_block(p, cfg, b, x, None if head_mask is None else head_mask[b])
        return plain_head(p, cfg, x)


def plain_embed(p, cfg: ViTConfig, pixels):
    """pixels [n,3,H,W] (n stays dynamic in the export) -> the tokens entering block 0 as
    rows [n·S, D]. The blocks hold the tokens as rows, so every product is a 2-D F.linear:
    it exports as Gemm(transB=1), reading the [out, in] weight where it lies, where a 3-D
    one exports as MatMul(x, Transpose(W)). The graph then holds nothing for onnxruntime to
    fold, and the page opens it with optimisation off (runtime/explainer.js,
    FORWARD_SESSION). Shapes use -1 for the batch: constants, not shape arithmetic."""
    D = cfg.embed_dim
    n = pixels.shape[0]
    x = F.conv2d(pixels, p.get("patch_embed.proj.weight"), p.get_optional("patch_embed.proj.bias"),
                 stride=cfg.patch_size)
    x = x.reshape(-1, D, cfg.grid[0] * cfg.grid[1]).transpose(1, 2)  # [n, N, D]
    special = [p.get(k) for k, on in (("cls_token", cfg.cls_token), ("dist_token", cfg.distilled),
                                      ("reg_token", cfg.registers)) if on]
    prefix = [torch.cat(special, dim=1).expand(n, -1, -1)] if special else []
    if cfg.no_embed_class:
        x = torch.cat(prefix + [x + p.get("pos_embed")], dim=1)
    else:
        x = torch.cat(prefix + [x], dim=1) + p.get("pos_embed")
    x = x.reshape(-1, D)
    if cfg.norm_pre:
        x = F.layer_norm(x, (D,), p.get("norm_pre.weight"), p.get("norm_pre.bias"), cfg.ln_eps)
    return x


def plain_block(p, cfg: ViTConfig, b: int, x, head_mask=None):
    """Block b on rows [n·S, D]; head_mask [h] scales each head's attention."""
    S, D, h, d = cfg.tokens, cfg.embed_dim, cfg.heads, cfg.head_dim
    pre = f"blocks.{b}."
    y = F.layer_norm(x, (D,), p.get(pre + "norm1.weight"), p.get(pre + "norm1.bias"), cfg.ln_eps)
    qkv = F.linear(y, p.get(pre + "attn.qkv.weight"), p.get_optional(pre + "attn.qkv.bias"))
    q, k, v = qkv.reshape(-1, S, 3, h, d).permute(2, 0, 3, 1, 4)  # each [n, h, S, d]
    a = torch.softmax(torch.matmul(q, k.transpose(-1, -2)) * (d ** -0.5), dim=-1)
    if head_mask is not None:
        a = a * head_mask.reshape(1, h, 1, 1)
    o = torch.matmul(a, v).transpose(1, 2).reshape(-1, D)
    x = x + _scaled(F.linear(o, p.get(pre + "attn.proj.weight"), p.get(pre + "attn.proj.bias")),
                    p, pre + "ls1.gamma", cfg)
    y = F.layer_norm(x, (D,), p.get(pre + "norm2.weight"), p.get(pre + "norm2.bias"), cfg.ln_eps)
    y = _act(F.linear(y, p.get(pre + "mlp.fc1.weight"), p.get(pre + "mlp.fc1.bias")), cfg)
    return x + _scaled(F.linear(y, p.get(pre + "mlp.fc2.weight"), p.get(pre + "mlp.fc2.bias")),
                       p, pre + "ls2.gamma", cfg)


def plain_head(p, cfg: ViTConfig, x):
    """Logits [n, C] from the last block's rows [n·S, D]."""
    return _head(p, cfg, x.reshape(-1, cfg.tokens, cfg.embed_dim))


def _scaled(branch, p, key, cfg: ViTConfig):
    return branch * p.get(key) if cfg.layer_scale else branch


def _act(u, cfg: ViTConfig):
    if cfg.act == "gelu_tanh":
        return F.gelu(u, approximate="tanh")
    if cfg.act == "quickgelu":
        return u * torch.sigmoid(QUICK_GELU * u)
    return F.gelu(u)


def _head(p, cfg: ViTConfig, x):
    """Logits [n, C] from the last block's output [n, S, D] (timm's forward_head; HF
    DINOv2's concat(cls, patch mean))."""
    D = cfg.embed_dim
    key = final_norm_key(cfg)
    first, _ = pooled_rows(cfg)
    if cfg.pool in ("cls", "cls+dist"):
        x = F.layer_norm(x, (D,), p.get(key + ".weight"), p.get(key + ".bias"), cfg.ln_eps)
        logits = F.linear(x[:, 0], p.get("head.weight"), p.get("head.bias"))
        if cfg.pool == "cls+dist":
            logits = (logits + F.linear(x[:, 1], p.get("head_dist.weight"), p.get("head_dist.bias"))) * 0.5
        return logits
    if cfg.fc_norm:
        feat = F.layer_norm(x[:, first:].mean(1), (D,), p.get(key + ".weight"), p.get(key + ".bias"), cfg.ln_eps)
    else:
        x = F.layer_norm(x, (D,), p.get(key + ".weight"), p.get(key + ".bias"), cfg.ln_eps)
        feat = x[:, first:].mean(1)
        if cfg.pool == "cls+avg":
            feat = torch.cat([x[:, 0], feat], dim=-1)
    return F.linear(feat, p.get("head.weight"), p.get("head.bias"))


def build_explainer(cfg: ViTConfig, state_dict, final_ln_eps=None, passes=P.PASSES) -> ExplainerGraph:
    return ExplainerGraph(cfg, state_dict, final_ln_eps, passes).eval()


def build_plain(cfg: ViTConfig, state_dict) -> PlainViT:
    return PlainViT(cfg, state_dict).eval()
