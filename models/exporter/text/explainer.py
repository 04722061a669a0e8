"""The text explainer as one PyTorch module (TextExplainer: the graph contract of
docs/architecture.md, "Text models", one traced graph), and PlainText (logits only, the
same weights, written apart from the explainer's record with F.layer_norm, F.gelu...: the
parity check's reference, the plain forward graph and, with a head mask, the masked one)."""
import math

import torch
import torch.nn.functional as F
from torch import nn

from ..targets import predicted_class_rows
from . import attnlrp
from .backward import attention_gradients
from .config import TextConfig
from .forward import text_forward
from .lrp import ONE_ROW, block_relprop, head_relprop, hidden_sum
from .params import TextParams

INPUT_NAMES = ["input_ids", "target", "token_relevance", "attnlrp_relevance", "cp_lrp_relevance"]
OUTPUT_NAMES = ["logits", "attn", "attn_grad", "attn_rel", "attn_rel_classic_last", "input_rel_classic",
                "input_rel_attnlrp", "input_rel_cp_lrp"]
OFF = torch.tensor(0.0)


class TextExplainer(nn.Module):
    """forward(input_ids [1,S] int64, target [K,C], token_relevance, attnlrp_relevance,
    cp_lrp_relevance) -> (logits [1,C], attn [B,h,S,S], attn_grad [K,B,h,S,S], attn_rel
    [K,B,h,S,S], attn_rel_classic_last [K,h,S,S], input_rel_classic [K,S],
    input_rel_attnlrp [K,S], input_rel_cp_lrp [K,S]). An all-zero target row stands for
    the predicted class; a switch = 0 returns its [K,S] output as zeros and runs its pass
    below the last layer's attention on no rows."""

    def __init__(self, cfg: TextConfig, state_dict):
        super().__init__()
        self.cfg = cfg
        self.params = TextParams(cfg, state_dict)

    def forward(self, input_ids, target, token_relevance=OFF, attnlrp_relevance=OFF, cp_lrp_relevance=OFF):
        cfg, p = self.cfg, self.params
        logits, fw = text_forward(p, cfg, input_ids)
        target = predicted_class_rows(target, logits)
        k = target.shape[0]
        ones = fw.embed.ones
        # zeros [K, S] as a product of the target (no ConstantOfShape, as passes.bottom)
        zeros = target[:, :1].clamp(0, 0) * ones.transpose(0, 1)

        def rows_or_zeros(t):
            return torch.cat([t, zeros], dim=0)[:k]

        grads = attention_gradients(p, cfg, fw, target)
        last = cfg.depth - 1
        wanted = (token_relevance != 0).long()
        R = head_relprop(p, cfg, fw.head, (target, target), ones)
        rels = [None] * cfg.depth
        rels[last], R = block_relprop(p, cfg, last, fw.blocks[last], R, None, wanted)
        classic_rows = ONE_ROW[:wanted]
        for b in reversed(range(last)):
            rels[b], R = block_relprop(p, cfg, b, fw.blocks[b], R, classic_rows)
        maps = {"input_rel_classic": rows_or_zeros(hidden_sum(R[1], cfg))}
        for method, switch in zip(attnlrp.METHODS, (attnlrp_relevance, cp_lrp_relevance)):
            on = (switch != 0).long()
            g = attnlrp.seed(p, cfg, fw, target[: on * k])
            for b in reversed(range(cfg.depth)):
                g = attnlrp.block_gradient(p, cfg, b, fw.blocks[b], g, method, attnlrp.ONE_ROW[:on], ones)
            maps[f"input_rel_{method}"] = rows_or_zeros(hidden_sum(fw.embed.x0 * g, cfg))
        return (logits, torch.stack([c.attn for c in fw.blocks], dim=0), torch.stack(grads, dim=1),
                torch.stack([r[0] for r in rels], dim=1), rels[last][1], maps["input_rel_classic"],
                maps["input_rel_attnlrp"], maps["input_rel_cp_lrp"])


class PlainText(nn.Module):
    """HF BertForSequenceClassification / DistilBertForSequenceClassification inference on
    input_ids [n,S] (n texts of S tokens, no padding), logits [n,C]. With head_mask [B,h]
    each head's post-softmax attention is multiplied by its entry (1 keeps it exactly)."""

    def __init__(self, cfg: TextConfig, state_dict):
        super().__init__()
        self.cfg = cfg
        self.params = TextParams(cfg, state_dict)

    def forward(self, input_ids, head_mask=None):
        cfg, p = self.cfg, self.params
        d, h, eps = cfg.embed_dim, cfg.heads, cfg.ln_eps

        def ln(x, key):
            return F.layer_norm(x, (d,), p.get(key + ".weight"), p.get(key + ".bias"), eps)

        def dense(x, key):
            return F.linear(x, p.get(key + ".weight"), p.get(key + ".bias"))

        x = F.embedding(input_ids, p.get("embed.word"))
        if cfg.family == "bert":
            x = x + p.get("embed.token_type")[0]
        x = ln(x + p.get("embed.position")[: input_ids.shape[1]], "embed.norm")
        for b in range(cfg.depth):
            pre = f"blocks.{b}."
            q, k, v = (t.reshape(t.shape[0], t.shape[1], h, -1).transpose(1, 2)
                       for t in dense(x, pre + "attn.qkv").chunk(3, dim=-1))
            a = torch.softmax(torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(cfg.head_dim), dim=-1)
            if head_mask is not None:
                a = a * head_mask[b].reshape(1, h, 1, 1)
            o = torch.matmul(a, v).transpose(1, 2)
            x = ln(dense(o.reshape(o.shape[0], o.shape[1], d), pre + "attn.proj") + x, pre + "norm1")
            u = dense(x, pre + "mlp.fc1")
            u = F.gelu(u, approximate="tanh") if cfg.act == "gelu_tanh" else F.gelu(u)
            x = ln(dense(u, pre + "mlp.fc2") + x, pre + "norm2")
        pooled = dense(x[:, 0], cfg.pool_key)
        pooled = torch.tanh(pooled) if cfg.pooler else torch.relu(pooled)
        return dense(pooled, "head")


def build_text_explainer(cfg: TextConfig, state_dict) -> TextExplainer:
    return TextExplainer(cfg, state_dict).eval()


def build_text_plain(cfg: TextConfig, state_dict) -> PlainText:
    return PlainText(cfg, state_dict).eval()
