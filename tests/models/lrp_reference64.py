"""Independent float64 reference for the attention gradients and both LRP variants.

Written differently from models/exporter on purpose: every layer is an object that
remembers its inputs, and relprop finds the "gradprop" products with torch.autograd (as
the official relprop code does), on full token sets (no row pruning), with the literal
safe_divide of METHODS.md. Not exported, so autograd is fine here.
"""
import math

import torch
import torch.nn.functional as F

PROPOSED, CLASSIC = "proposed", "classic"


def sdiv(a, b):
    den = b.clamp(min=1e-9) + b.clamp(max=1e-9)
    den = den + (den == 0).to(den.dtype) * 1e-9
    return a / den * (b != 0).to(b.dtype)


def leaf(t):
    return t.detach().requires_grad_(True)


def gradprop(z, xs, s):
    return torch.autograd.grad(z, xs, s, retain_graph=True)


class Linear:
    def __init__(self, w, b=None):
        self.w, self.b = w, b

    def __call__(self, x):
        self.x = leaf(x)
        return F.linear(x, self.w, self.b)

    def relprop(self, R, rule):
        w_p, w_n = self.w.clamp(min=0), self.w.clamp(max=0)
        x_p, x_n = leaf(self.x.clamp(min=0)), leaf(self.x.clamp(max=0))
        z_p, z_n = F.linear(x_p, w_p), F.linear(x_n, w_n)
        if rule == PROPOSED:
            s_p = s_n = sdiv(R, z_p + z_n)
        else:
            s_p, s_n = sdiv(R, z_p), sdiv(R, z_n)
        return x_p * gradprop(z_p, x_p, s_p)[0] + x_n * gradprop(z_n, x_n, s_n)[0]


class Product:
    """einsum of two operands; relevance split by the z-rule and halved."""

    def __init__(self, eq):
        self.eq = eq

    def __call__(self, u, v):
        self.u, self.v = leaf(u), leaf(v)
        return torch.einsum(self.eq, u, v)

    def relprop(self, R, rule):
        z = torch.einsum(self.eq, self.u, self.v)
        gu, gv = gradprop(z, (self.u, self.v), sdiv(R, z))
        return self.u * gu / 2, self.v * gv / 2


class Add:
    def __call__(self, a, b):
        self.a, self.b = leaf(a), leaf(b)
        return a + b

    def relprop(self, R, rule):
        z = self.a + self.b
        ga, gb = gradprop(z, (self.a, self.b), sdiv(R, z))
        ra, rb = self.a * ga, self.b * gb
        if rule == CLASSIC:
            return ra, rb
        sa, sb = ra.sum(), rb.sum()
        fa = sdiv(sa.abs(), sa.abs() + sb.abs()) * R.sum()
        fb = sdiv(sb.abs(), sa.abs() + sb.abs()) * R.sum()
        return ra * sdiv(fa, ra.sum()), rb * sdiv(fb, rb.sum())


class Clone:
    def __call__(self, x):
        self.x = leaf(x)
        return x, x

    def relprop(self, Rs):
        return self.x * sum(sdiv(r, self.x) for r in Rs)


class TakeToken:
    def __init__(self, i):
        self.i = i

    def __call__(self, x):
        self.x = leaf(x)
        return x[:, self.i]

    def relprop(self, R):
        z = self.x[:, self.i]
        return self.x * gradprop(z, self.x, sdiv(R, z))[0]


class PatchConv:
    def __init__(self, w, b, p):
        self.w, self.b, self.p = w, b, p

    def __call__(self, x):
        self.x = leaf(x)
        return F.conv2d(x, self.w, self.b, stride=self.p)

    def relprop(self, R):
        """z-beta rule; R [1, D, gh, gw] -> [1, 3, H, W]."""
        x = self.x
        low = leaf(torch.full_like(x, x.min().item()))
        high = leaf(torch.full_like(x, x.max().item()))
        xx = leaf(x)
        w_p, w_n = self.w.clamp(min=0), self.w.clamp(max=0)
        z_x = F.conv2d(xx, self.w, stride=self.p)
        z_l = F.conv2d(low, w_p, stride=self.p)
        z_h = F.conv2d(high, w_n, stride=self.p)
        s = R / (z_x - z_l - z_h + 1e-9)
        return (xx * gradprop(z_x, xx, s)[0] - low * gradprop(z_l, low, s)[0]
                - high * gradprop(z_h, high, s)[0])


def layer_norm(x, sd, key, eps):
    return F.layer_norm(x, x.shape[-1:], sd[key + ".weight"], sd[key + ".bias"], eps)


class Block:
    def __init__(self, sd, b, cfg):
        pre = f"blocks.{b}."

        def g(k):
            return sd.get(pre + k)
        self.sd, self.pre, self.cfg = sd, pre, cfg
        self.qkv = Linear(g("attn.qkv.weight"), g("attn.qkv.bias"))
        self.proj = Linear(g("attn.proj.weight"), g("attn.proj.bias"))
        self.fc1 = Linear(g("mlp.fc1.weight"), g("mlp.fc1.bias"))
        self.fc2 = Linear(g("mlp.fc2.weight"), g("mlp.fc2.bias"))
        self.qk, self.av = Product("bhid,bhjd->bhij"), Product("bhij,bhjd->bhid")
        self.clone1, self.clone2, self.add1, self.add2 = Clone(), Clone(), Add(), Add()

    def __call__(self, x):
        h = self.cfg.heads
        B, S, D = x.shape
        x_a, x_b = self.clone1(x)
        t = self.qkv(layer_norm(x_b, self.sd, self.pre + "norm1", self.cfg.ln_eps))
        q, k, v = t.reshape(B, S, 3, h, D // h).permute(2, 0, 3, 1, 4)
        self.attn = torch.softmax(self.qk(q, k) / math.sqrt(D // h), dim=-1)
        o = self.av(self.attn, v).transpose(1, 2).reshape(B, S, D)
        x = self.add1(x_a, self.proj(o))
        x_a, x_b = self.clone2(x)
        m = self.fc2(F.gelu(self.fc1(layer_norm(x_b, self.sd, self.pre + "norm2", self.cfg.ln_eps))))
        return self.add2(x_a, m)

    def relprop(self, R, rule):
        h = self.cfg.heads
        B, S, D = R.shape
        r_x, r_m = self.add2.relprop(R, rule)
        r_n = self.fc1.relprop(self.fc2.relprop(r_m, rule), rule)
        R = self.clone2.relprop((r_x, r_n))
        r_x, r_p = self.add1.relprop(R, rule)
        r_o = self.proj.relprop(r_p, rule).reshape(B, S, h, D // h).transpose(1, 2)
        r_attn, r_v = self.av.relprop(r_o, rule)
        self.attn_rel = r_attn
        r_q, r_k = self.qk.relprop(r_attn, rule)
        r_t = torch.stack([r_q, r_k, r_v]).permute(1, 3, 0, 2, 4).reshape(B, S, 3 * D)
        return self.clone1.relprop((r_x, self.qkv.relprop(r_t, rule)))


class ReferenceViT:
    """Float64 LRP model. final_ln_eps: the official LRP model's final LayerNorm eps."""

    def __init__(self, cfg, state_dict, final_ln_eps=None):
        self.cfg = cfg
        self.sd = {k: v.detach().double() for k, v in state_dict.items()}
        self.final_ln_eps = cfg.ln_eps if final_ln_eps is None else final_ln_eps
        self.blocks = [Block(self.sd, b, cfg) for b in range(cfg.depth)]
        self.conv = PatchConv(self.sd["patch_embed.proj.weight"], self.sd["patch_embed.proj.bias"], cfg.patch_size)
        self.pos_add = Add()
        self.take = [TakeToken(i) for i in range(cfg.special_tokens)]
        self.heads = [Linear(self.sd["head.weight"], self.sd["head.bias"])]
        if cfg.distilled:
            self.heads.append(Linear(self.sd["head_dist.weight"], self.sd["head_dist.bias"]))
        self.head_mean = Add()

    def forward(self, pixels):
        sd = self.sd
        x = self.conv(pixels.double()).flatten(2).transpose(1, 2)
        special = [sd["cls_token"]] + ([sd["dist_token"]] if self.cfg.distilled else [])
        x = self.pos_add(torch.cat(special + [x], dim=1), sd["pos_embed"])
        for blk in self.blocks:
            x = blk(x)
        x = layer_norm(x, sd, "norm", self.final_ln_eps)
        outs = [head(take(x)) for head, take in zip(self.heads, self.take)]
        if len(outs) == 1:
            return outs[0]
        return self.head_mean(outs[0] / 2, outs[1] / 2)

    def relprop(self, target, rule):
        """target [C] -> (per-block R_attn [h,S,S] list, pixel relevance [H,W])."""
        R = target.double().reshape(1, -1)
        if len(self.heads) == 1:
            parts = [R]
        else:
            parts = list(self.head_mean.relprop(R, rule))
        R = sum(take.relprop(head.relprop(r, rule)) for head, take, r in zip(self.heads, self.take, parts))
        for blk in reversed(self.blocks):
            R = blk.relprop(R, rule)
        r_tok, _ = self.pos_add.relprop(R, rule)
        gh, gw = self.cfg.grid
        r_patch = r_tok[:, self.cfg.special_tokens:].transpose(1, 2).reshape(1, -1, gh, gw)
        r_pix = self.conv.relprop(r_patch).sum(1)[0]
        return [blk.attn_rel[0].detach() for blk in self.blocks], r_pix.detach()


def reference_explanation(cfg, state_dict, pixels, targets, final_ln_eps=None):
    """Float64: logits, attn, grads [K,B,h,S,S], proposed R [K,B,h,S,S], classic last R
    [K,h,S,S], classic pixel relevance [K,H,W]."""
    grads, rel, rel_cl, pix_cl = [], [], [], []
    for t in targets:
        model = ReferenceViT(cfg, state_dict, final_ln_eps)
        with torch.enable_grad():
            logits = _forward_with_attention_grads(model, pixels, t)
            grads.append(torch.stack([blk.attn_grad for blk in model.blocks]))
            r_prop, _ = model.relprop(t, PROPOSED)
            rel.append(torch.stack(r_prop))
            r_cl, pix = model.relprop(t, CLASSIC)
            rel_cl.append(r_cl[-1])
            pix_cl.append(pix)
    attn = torch.stack([blk.attn[0].detach() for blk in model.blocks])
    return (logits.detach(), attn, torch.stack(grads), torch.stack(rel), torch.stack(rel_cl),
            torch.stack(pix_cl))


def _forward_with_attention_grads(model, pixels, target):
    """Plain autograd through the whole float64 forward (leaves re-linked end to end)."""
    # The layers detach their inputs for relprop, so the gradient path is built separately:
    # hook each block's attention and let autograd run through an undetached forward.
    cfg, sd = model.cfg, model.sd
    x = F.conv2d(leaf(pixels.double()), sd["patch_embed.proj.weight"], sd["patch_embed.proj.bias"],
                 stride=cfg.patch_size).flatten(2).transpose(1, 2)
    special = [sd["cls_token"]] + ([sd["dist_token"]] if cfg.distilled else [])
    x = torch.cat(special + [x], dim=1) + sd["pos_embed"]
    attns = []
    for b in range(cfg.depth):
        pre = f"blocks.{b}."
        B, S, D = x.shape
        h = cfg.heads
        t = F.linear(layer_norm(x, sd, pre + "norm1", cfg.ln_eps), sd[pre + "attn.qkv.weight"],
                     sd.get(pre + "attn.qkv.bias"))
        q, k, v = t.reshape(B, S, 3, h, D // h).permute(2, 0, 3, 1, 4)
        a = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(D // h), dim=-1)
        a.retain_grad()
        attns.append(a)
        o = (a @ v).transpose(1, 2).reshape(B, S, D)
        x = x + F.linear(o, sd[pre + "attn.proj.weight"], sd[pre + "attn.proj.bias"])
        y = F.gelu(F.linear(layer_norm(x, sd, pre + "norm2", cfg.ln_eps), sd[pre + "mlp.fc1.weight"],
                            sd[pre + "mlp.fc1.bias"]))
        x = x + F.linear(y, sd[pre + "mlp.fc2.weight"], sd[pre + "mlp.fc2.bias"])
    x = layer_norm(x, sd, "norm", model.final_ln_eps)
    logits = F.linear(x[:, 0], sd["head.weight"], sd["head.bias"])
    if cfg.distilled:
        logits = (logits + F.linear(x[:, 1], sd["head_dist.weight"], sd["head_dist.bias"])) / 2
    (logits[0] * target.double()).sum().backward()
    model.forward(pixels)  # the layer objects' own pass, kept for relprop
    for blk, a in zip(model.blocks, attns):
        blk.attn_grad = a.grad[0]
    return logits
