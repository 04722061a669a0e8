"""The exported modules: ExplainerGraph (the graph contract of docs/architecture.md) and
PlainViT (logits only, same weights; the size/speed baseline)."""
import torch
import torch.nn.functional as F
from torch import nn

from .attnlrp import METHODS, switched_map
from .backward import attention_gradients
from .config import ViTConfig
from .forward import vit_forward
from .lrp import relevance_pass
from .params import ViTParams
from .targets import predicted_class_rows

INPUT_NAMES = ["pixels", "target", "pixel_relevance", "attnlrp_relevance", "cp_lrp_relevance"]
OUTPUT_NAMES = ["logits", "attn", "attn_grad", "attn_rel", "attn_rel_classic_last", "input_rel_classic",
                "input_rel_attnlrp", "input_rel_cp_lrp"]
OFF = torch.tensor(0.0)  # a switch PyTorch callers may leave out (the export feeds all)


class ExplainerGraph(nn.Module):
    """forward(pixels [1,3,H,W], target [K,C], pixel_relevance [], attnlrp_relevance [],
    cp_lrp_relevance []) -> (logits [1,C], attn [B,h,S,S], attn_grad [K,B,h,S,S],
     attn_rel [K,B,h,S,S], attn_rel_classic_last [K,h,S,S], input_rel_classic [K,H,W],
     input_rel_attnlrp [K,H,W], input_rel_cp_lrp [K,H,W]).

    An all-zero target row stands for the predicted class; each switch = 0 skips its
    input_rel_* output (returned as zeros), any other value computes it."""

    def __init__(self, cfg: ViTConfig, state_dict, final_ln_eps=None):
        super().__init__()
        self.cfg = cfg
        self.params = ViTParams(cfg, state_dict)
        # the official LRP model builds its final LayerNorm with eps 1e-5; None = cfg.ln_eps
        self.final_ln_eps = final_ln_eps

    def forward(self, pixels, target, pixel_relevance, attnlrp_relevance=OFF, cp_lrp_relevance=OFF):
        cfg = self.cfg
        logits, fw = vit_forward(self.params, cfg, pixels, self.final_ln_eps)
        target = predicted_class_rows(target, logits)
        grads = attention_gradients(self.params, cfg, fw, target)
        rel, rel_classic_last, input_rel = relevance_pass(self.params, cfg, fw, target, pixel_relevance)
        maps = [switched_map(self.params, cfg, fw, target, s, m)
                for m, s in zip(METHODS, (attnlrp_relevance, cp_lrp_relevance))]
        attn = torch.stack([c.attn for c in fw.blocks], dim=0)
        return (logits, attn, torch.stack(grads, dim=1), torch.stack(rel, dim=1),
                rel_classic_last, input_rel, *maps)


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
        S, D, h, d = cfg.tokens, cfg.embed_dim, cfg.heads, cfg.head_dim
        n = pixels.shape[0]  # the batch axis stays dynamic in the export
        x = F.conv2d(pixels, p.get("patch_embed.proj.weight"), p.get("patch_embed.proj.bias"),
                     stride=cfg.patch_size)
        special = [p.get("cls_token")] + ([p.get("dist_token")] if cfg.distilled else [])
        x = x.reshape(-1, D, S - len(special)).transpose(1, 2)  # [n, N, D]
        x = torch.cat([torch.cat(special, dim=1).expand(n, -1, -1), x], dim=1) + p.get("pos_embed")
        # The blocks hold the tokens as rows [n·S, D], so every product is a 2-D F.linear:
        # it exports as Gemm(transB=1), reading the [out, in] weight where it lies, where a
        # 3-D one exports as MatMul(x, Transpose(W)). The graph then holds nothing for
        # onnxruntime to fold, and the page opens it with optimisation off
        # (runtime/explainer.js, FORWARD_SESSION). Shapes use -1 for the batch: constants,
        # not shape arithmetic, in the graph.
        x = x.reshape(-1, D)
        for b in range(cfg.depth):
            pre = f"blocks.{b}."
            y = F.layer_norm(x, (D,), p.get(pre + "norm1.weight"), p.get(pre + "norm1.bias"), cfg.ln_eps)
            qkv = F.linear(y, p.get(pre + "attn.qkv.weight"), p.get_optional(pre + "attn.qkv.bias"))
            q, k, v = qkv.reshape(-1, S, 3, h, d).permute(2, 0, 3, 1, 4)  # each [n, h, S, d]
            a = torch.softmax(torch.matmul(q, k.transpose(-1, -2)) * (d ** -0.5), dim=-1)
            if head_mask is not None:
                a = a * head_mask[b].reshape(1, h, 1, 1)
            o = torch.matmul(a, v).transpose(1, 2).reshape(-1, D)
            x = x + F.linear(o, p.get(pre + "attn.proj.weight"), p.get(pre + "attn.proj.bias"))
            y = F.layer_norm(x, (D,), p.get(pre + "norm2.weight"), p.get(pre + "norm2.bias"), cfg.ln_eps)
            y = F.gelu(F.linear(y, p.get(pre + "mlp.fc1.weight"), p.get(pre + "mlp.fc1.bias")))
            x = x + F.linear(y, p.get(pre + "mlp.fc2.weight"), p.get(pre + "mlp.fc2.bias"))
        x = F.layer_norm(x.reshape(-1, S, D), (D,), p.get("norm.weight"), p.get("norm.bias"), cfg.ln_eps)
        logits = F.linear(x[:, 0], p.get("head.weight"), p.get("head.bias"))
        if cfg.distilled:
            logits = (logits + F.linear(x[:, 1], p.get("head_dist.weight"), p.get("head_dist.bias"))) * 0.5
        return logits


def build_explainer(cfg: ViTConfig, state_dict, final_ln_eps=None) -> ExplainerGraph:
    return ExplainerGraph(cfg, state_dict, final_ln_eps).eval()


def build_plain(cfg: ViTConfig, state_dict) -> PlainViT:
    return PlainViT(cfg, state_dict).eval()
