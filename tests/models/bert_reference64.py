"""Independent float64 reference of the text explainer's tensors, written on Hugging Face's
own key names and layer structure (separate query/key/value Linears and their 3-way Clone,
as the official BERT_explainability/modules/BERT/BERT.py), sharing no code with
models/exporter:

- the forward with autograd: logits, every layer's attention A and its gradient G (autograd);
- LRP under the proposed and the classic rules, with the layer objects of
  lrp_reference64.py (relprop through torch.autograd "gradprop", the literal safe_divide):
  R at every layer's attention and the relevance at the embeddings' output;
- AttnLRP and CP-LRP the way LXT patches BERT (lxt/efficient/models/bert.py): σ detached in
  every LayerNorm, the identity rule on the GELU and the pooler's tanh (act(u)/(u+1e-10)),
  gradient-halving identities after q·kᵀ and after A·v (AttnLRP), q and k detached
  (CP-LRP); the map is Σ_hidden x0 ⊙ ∂̃y_c/∂x0 at the embeddings' LayerNorm output.
DistilBERT by analogy: no token types, pre_classifier + ReLU instead of the pooler."""
import math

import torch
import torch.nn.functional as F

from attnlrp_reference import _ACTIVATIONS as _ACT, _DivideGradient, _IdentityRule
from lrp_reference64 import CLASSIC, PROPOSED, Add, Clone, Linear, Product, TakeToken


def names(config):
    """Per-model key names: (embeddings prefix, layer prefix format, layer parts, head keys)."""
    if config["model_type"] == "bert":
        return ("bert.embeddings.", "bert.encoder.layer.{}.",
                {"q": "attention.self.query", "k": "attention.self.key", "v": "attention.self.value",
                 "o": "attention.output.dense", "n1": "attention.output.LayerNorm", "f1": "intermediate.dense",
                 "f2": "output.dense", "n2": "output.LayerNorm"}, ("bert.pooler.dense", "tanh"))
    return ("distilbert.embeddings.", "distilbert.transformer.layer.{}.",
            {"q": "attention.q_lin", "k": "attention.k_lin", "v": "attention.v_lin", "o": "attention.out_lin",
             "n1": "sa_layer_norm", "f1": "ffn.lin1", "f2": "ffn.lin2", "n2": "output_layer_norm"},
            ("pre_classifier", "relu"))


class Reference:
    def __init__(self, config, state_dict):
        self.config = config
        self.sd = {k: v.detach().double() for k, v in state_dict.items()}
        self.emb, self.layer, self.parts, (self.pool_key, self.pool_act) = names(config)
        bert = config["model_type"] == "bert"
        self.heads = config["num_attention_heads"] if bert else config["n_heads"]
        self.depth = config["num_hidden_layers"] if bert else config["n_layers"]
        self.act = config.get("hidden_act" if bert else "activation", "gelu")
        self.eps = config.get("layer_norm_eps", 1e-12) if bert else 1e-12

    def lin(self, key):
        return Linear(self.sd[key + ".weight"], self.sd[key + ".bias"])

    def ln(self, x, key, detach_std=False):
        w, b = self.sd[key + ".weight"], self.sd[key + ".bias"]
        if not detach_std:
            return F.layer_norm(x, x.shape[-1:], w, b, self.eps)
        mu = x.mean(-1, keepdim=True)
        std = ((x - mu) ** 2).mean(-1, keepdim=True).add(self.eps).sqrt()
        return (x - mu) / std.detach() * w + b

    def embeddings(self, ids):
        """The encoder's input [1, S, D] (the embeddings' LayerNorm output)."""
        e = self.sd[self.emb + "word_embeddings.weight"][ids] + self.sd[self.emb + "position_embeddings.weight"][
            : ids.shape[1]]
        if self.emb + "token_type_embeddings.weight" in self.sd:
            e = e + self.sd[self.emb + "token_type_embeddings.weight"][0]
        return self.ln(e, self.emb + "LayerNorm")

    # -- the forward with autograd (G; AttnLRP / CP-LRP with `rule`) ----------------------
    def autograd_forward(self, x, rule=None, attention=None):
        """x [1,S,D] at the embeddings' output -> (logits [1,C], attentions [B] of [1,h,S,S]).
        attention: {b: A'} uses A' [1,h,S,S] as layer b's post-softmax attention (AttAttr)."""
        attns = []
        for b in range(self.depth):
            key = self.layer.format(b)

            def dense(t, part):
                name = key + self.parts[part]
                return F.linear(t, self.sd[name + ".weight"], self.sd[name + ".bias"])

            n, s, d = x.shape
            q, k, v = (dense(x, p).reshape(n, s, self.heads, -1).transpose(1, 2) for p in ("q", "k", "v"))
            if rule == "cp_lrp":
                q, k = q.detach(), k.detach()
            scores = q @ k.transpose(-1, -2)
            if rule == "attnlrp":
                scores = _DivideGradient.apply(scores, 2.0)
            a = torch.softmax(scores / math.sqrt(d // self.heads), dim=-1)
            if attention and b in attention:
                a = attention[b]
            elif a.requires_grad:
                a.retain_grad()
            attns.append(a)
            o = a @ v
            if rule == "attnlrp":
                o = _DivideGradient.apply(o, 2.0)
            x = self.ln(dense(o.transpose(1, 2).reshape(n, s, d), "o") + x, key + self.parts["n1"], rule is not None)
            u = dense(x, "f1")
            u = _IdentityRule.apply(u, self.act) if rule else _ACT[self.act](u)
            x = self.ln(dense(u, "f2") + x, key + self.parts["n2"], rule is not None)
        pu = F.linear(x[:, 0], self.sd[self.pool_key + ".weight"], self.sd[self.pool_key + ".bias"])
        pooled = _IdentityRule.apply(pu, self.pool_act) if rule else _ACT[self.pool_act](pu)
        return F.linear(pooled, self.sd["classifier.weight"], self.sd["classifier.bias"]), attns

    # -- LRP with the official code's layer objects ---------------------------------------
    def lrp(self, x, target, rule):
        """Relevance of target [C] under `rule`: (R at each layer's attention [B,h,S,S], R at
        the embeddings' output [S, D])."""
        layers = []
        for b in range(self.depth):
            key = self.layer.format(b)
            objs = {p: self.lin(key + self.parts[p]) for p in ("q", "k", "v", "o", "f1", "f2")}
            objs.update(qk=Product("bhid,bhjd->bhij"), av=Product("bhij,bhjd->bhid"), clone_in=Clone(),
                        clone_qkv=Clone(), add1=Add(), clone_mid=Clone(), add2=Add())
            n, s, d = x.shape
            x_self, x_res = objs["clone_in"](x)
            objs["clone_qkv"](x_self)  # the three Linears read the same x: one 3-way Clone
            q, k, v = (objs[p](x_self).reshape(n, s, self.heads, -1).transpose(1, 2) for p in ("q", "k", "v"))
            a = torch.softmax(objs["qk"](q, k) / math.sqrt(d // self.heads), dim=-1)
            o = objs["av"](a, v).transpose(1, 2).reshape(n, s, d)
            x = self.ln(objs["add1"](objs["o"](o), x_res), key + self.parts["n1"])
            x_mlp, x_res = objs["clone_mid"](x)
            u = _ACT[self.act](objs["f1"](x_mlp))
            x = self.ln(objs["add2"](objs["f2"](u), x_res), key + self.parts["n2"])
            layers.append(objs)
        take, pool, classifier = TakeToken(0), self.lin(self.pool_key), self.lin("classifier")
        classifier(_ACT[self.pool_act](pool(take(x))))
        R = take.relprop(pool.relprop(classifier.relprop(target.double().reshape(1, -1), rule), rule))
        attn_rel = [None] * self.depth
        for b in reversed(range(self.depth)):
            objs = layers[b]
            r_m, r_res = objs["add2"].relprop(R, rule)  # LN2: identity
            r_mlp = objs["f1"].relprop(objs["f2"].relprop(r_m, rule), rule)  # GELU: identity
            r_p, r_res1 = objs["add1"].relprop(objs["clone_mid"].relprop((r_mlp, r_res)), rule)  # LN1: identity
            n, s, d = r_p.shape
            r_o = objs["o"].relprop(r_p, rule).reshape(n, s, self.heads, -1).transpose(1, 2)
            r_a, r_v = objs["av"].relprop(r_o, rule)
            attn_rel[b] = r_a[0].detach()
            r_q, r_k = objs["qk"].relprop(r_a, rule)  # softmax, the scale, the mask add: identity
            r_qkv = [objs[p].relprop(r.transpose(1, 2).reshape(n, s, d), rule)
                     for p, r in (("q", r_q), ("k", r_k), ("v", r_v))]
            R = objs["clone_in"].relprop((objs["clone_qkv"].relprop(r_qkv), r_res1))
        return torch.stack(attn_rel), R[0].detach()


def reference_explanation(config, state_dict, ids, targets):
    """Float64 (logits [C], attn [B,h,S,S], attn_grad [K,B,h,S,S], attn_rel [K,B,h,S,S],
    attn_rel_classic_last [K,h,S,S], input_rel_classic [K,S], {method: [K,S]}) for the
    target rows `targets` [K,C]."""
    ref = Reference(config, state_dict)
    x0 = ref.embeddings(ids).detach()
    grads, rels, classic_last, classic_in = [], [], [], []
    maps = {"attnlrp": [], "cp_lrp": []}
    for t in targets.double():
        with torch.enable_grad():
            logits, attns = ref.autograd_forward(x0.clone().requires_grad_(True))
            (logits[0] * t).sum().backward()
            grads.append(torch.stack([a.grad[0] for a in attns]))
            rel, _ = ref.lrp(x0, t, PROPOSED)
            rels.append(rel)
            rel_c, r_in = ref.lrp(x0, t, CLASSIC)
            classic_last.append(rel_c[-1])
            classic_in.append(r_in.sum(-1))
            for method in maps:
                x = x0.clone().requires_grad_(True)
                y, _ = ref.autograd_forward(x, method)
                (g,) = torch.autograd.grad((y[0] * t).sum(), x)
                maps[method].append((x * g)[0].sum(-1).detach())
    attn = torch.stack([a[0].detach() for a in attns])
    return (logits[0].detach(), attn, torch.stack(grads), torch.stack(rels), torch.stack(classic_last),
            torch.stack(classic_in), {m: torch.stack(v) for m, v in maps.items()})


def reference_attr(config, state_dict, ids, block, steps, target):
    """Self-Attention Attribution of layer `block` (METHODS.md) in float64 autograd:
    Attr = A/m ⊙ Σ_i ∂p_t(α_i A)/∂(α_i A), α_i = i/m -> (A [h,S,S], Attr [h,S,S])."""
    ref = Reference(config, state_dict)
    x0 = ref.embeddings(ids).detach()
    with torch.no_grad():
        _, attns = ref.autograd_forward(x0)
    a = attns[block].detach()
    total = torch.zeros_like(a)
    for i in range(steps):
        scaled = (i / steps * a).requires_grad_(True)
        with torch.enable_grad():
            logits, _ = ref.autograd_forward(x0, attention={block: scaled})
            (g,) = torch.autograd.grad(torch.softmax(logits[0], -1)[target], scaled)
        total += g
    return a[0], (a * total / steps)[0]
