"""Independent reference of METHODS.md's AttnLRP and CP-LRP: a timm-semantics ViT forward
written with ordinary autograd, the rules applied the way LXT applies them (σ detached in
every LayerNorm, the identity rule on GELU as a custom autograd Function storing
GELU(x)/(x+1e-10), q and k detached for CP-LRP, gradient-dividing identities on q, k (÷4)
and v (÷2) for AttnLRP), then R_pix = Σ_RGB x ⊙ ∂̃y_c/∂x. Shares no code with the exporter."""
import torch
import torch.nn.functional as F


class _GeluIdentity(torch.autograd.Function):
    """GELU forward; backward multiplies by GELU(x)/(x+1e-10) (LXT's identity_rule_implicit)."""

    @staticmethod
    def forward(ctx, x):
        y = F.gelu(x)
        ctx.save_for_backward(y / (x + 1e-10))
        return y

    @staticmethod
    def backward(ctx, g):
        (ratio,) = ctx.saved_tensors
        return g * ratio


class _DivideGradient(torch.autograd.Function):
    """Identity forward; backward divides the gradient (LXT's divide_gradient)."""

    @staticmethod
    def forward(ctx, x, factor):
        ctx.factor = factor
        return x.view_as(x)

    @staticmethod
    def backward(ctx, g):
        return g / ctx.factor, None


def _layer_norm(x, weight, bias, eps):
    mu = x.mean(-1, keepdim=True)
    var = ((x - mu) ** 2).mean(-1, keepdim=True)
    return (x - mu) / torch.sqrt(var + eps).detach() * weight + bias


def _attention(x, sd, pre, heads, method, qk_divisor):
    n, s, dim = x.shape
    y = _layer_norm(x, sd[pre + "norm1.weight"], sd[pre + "norm1.bias"], 1e-6)
    qkv = F.linear(y, sd[pre + "attn.qkv.weight"], sd.get(pre + "attn.qkv.bias"))
    q, k, v = qkv.reshape(n, s, 3, heads, dim // heads).permute(2, 0, 3, 1, 4)
    if method == "cp_lrp":
        q, k = q.detach(), k.detach()
    else:
        q, k = _DivideGradient.apply(q, qk_divisor), _DivideGradient.apply(k, qk_divisor)
        v = _DivideGradient.apply(v, 2.0)
    a = torch.softmax(q @ k.transpose(-1, -2) * (dim // heads) ** -0.5, dim=-1)
    o = (a @ v).transpose(1, 2).reshape(n, s, dim)
    return F.linear(o, sd[pre + "attn.proj.weight"], sd[pre + "attn.proj.bias"])


def logits_with_rules(sd, cfg, pixels, method, qk_divisor=4.0):
    """Logits [1, C] whose autograd backward is the method's modified backward."""
    x = F.conv2d(pixels, sd["patch_embed.proj.weight"], sd["patch_embed.proj.bias"], stride=cfg.patch_size)
    x = x.flatten(2).transpose(1, 2)
    prefix = [sd["cls_token"]] + ([sd["dist_token"]] if cfg.distilled else [])
    x = torch.cat(prefix + [x], dim=1) + sd["pos_embed"]
    for b in range(cfg.depth):
        pre = f"blocks.{b}."
        x = x + _attention(x, sd, pre, cfg.heads, method, qk_divisor)
        y = _layer_norm(x, sd[pre + "norm2.weight"], sd[pre + "norm2.bias"], 1e-6)
        y = _GeluIdentity.apply(F.linear(y, sd[pre + "mlp.fc1.weight"], sd[pre + "mlp.fc1.bias"]))
        x = x + F.linear(y, sd[pre + "mlp.fc2.weight"], sd[pre + "mlp.fc2.bias"])
    x = _layer_norm(x, sd["norm.weight"], sd["norm.bias"], 1e-6)
    logits = F.linear(x[:, 0], sd["head.weight"], sd["head.bias"])
    if cfg.distilled:
        logits = (logits + F.linear(x[:, 1], sd["head_dist.weight"], sd["head_dist.bias"])) / 2
    return logits


def reference_maps(sd, cfg, pixels, classes, method, dtype=torch.float64, qk_divisor=4.0):
    """(R_pix [len(classes), H, W], logits [C]) in `dtype`; classes: ints."""
    sd = {k: v.to(dtype) for k, v in sd.items()}
    maps = []
    for c in classes:
        x = pixels.to(dtype).clone().requires_grad_(True)
        logits = logits_with_rules(sd, cfg, x, method, qk_divisor)
        (g,) = torch.autograd.grad(logits[0, c], x)
        maps.append((x * g).sum(1)[0].detach())
    return torch.stack(maps), logits[0].detach()


def patch_map(pix, patch_size):
    """[K, H, W] -> [K, H/p, W/p]: sums over each patch."""
    k, h, w = pix.shape
    return pix.reshape(k, h // patch_size, patch_size, w // patch_size, patch_size).sum((2, 4))


def pearson(a, b):
    a, b = a.flatten().double(), b.flatten().double()
    a, b = a - a.mean(), b - b.mean()
    return float((a * b).sum() / (a.norm() * b.norm()))
