"""Independent reference of METHODS.md's AttnLRP and CP-LRP: a timm-semantics ViT forward
written with ordinary autograd, the rules applied the way LXT applies them (σ detached in
every LayerNorm, the identity rule on the MLP activation as a custom autograd Function
storing act(x)/(x+1e-10), q and k detached for CP-LRP, gradient-dividing identities on q, k
(÷4) and v (÷2) for AttnLRP), then R_pix = Σ_RGB x ⊙ ∂̃y_c/∂x. Shares no code with the exporter.

Every layout the exporter reads, told by the keys present and the config's facts (eps,
activation, pool): register tokens, no class token, a position embedding over the patches
only (timm's no_embed_class) or over cls and patches with the registers inserted after it
(HF DINOv2), norm_pre, LayerScale, a patch conv without bias, fc_norm, and the heads on
token 0 (and 1), the mean of the patch tokens or of all tokens, or concat(token 0, patch mean)."""
import torch
import torch.nn.functional as F


_ACTIVATIONS = {"gelu": F.gelu, "gelu_tanh": lambda u: F.gelu(u, approximate="tanh"),
                "quickgelu": lambda u: u * torch.sigmoid(1.702 * u),
                # the text models' (bert_reference64.py): HF's name of tanh-GELU, BERT's pooler, DistilBERT's head
                "gelu_new": lambda u: F.gelu(u, approximate="tanh"), "tanh": torch.tanh, "relu": torch.relu}


class _IdentityRule(torch.autograd.Function):
    """act forward; backward multiplies by act(x)/(x+1e-10) (LXT's identity_rule_implicit)."""

    @staticmethod
    def forward(ctx, x, act):
        y = _ACTIVATIONS[act](x)
        ctx.save_for_backward(y / (x + 1e-10))
        return y

    @staticmethod
    def backward(ctx, g):
        (ratio,) = ctx.saved_tensors
        return g * ratio, None


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


def _attention(x, sd, pre, heads, method, qk_divisor, eps):
    n, s, dim = x.shape
    y = _layer_norm(x, sd[pre + "norm1.weight"], sd[pre + "norm1.bias"], eps)
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


def _tokens(sd, pixels, patch_size, eps):
    """[1, S, D] entering block 0, and the number of prefix tokens before the patches."""
    x = F.conv2d(pixels, sd["patch_embed.proj.weight"], sd.get("patch_embed.proj.bias"), stride=patch_size)
    x = x.flatten(2).transpose(1, 2)
    front = [sd[k] for k in ("cls_token", "dist_token") if k in sd]
    registers = [sd["reg_token"]] if "reg_token" in sd else []
    pos, patches = sd["pos_embed"], x.shape[1]
    if pos.shape[1] == patches:  # timm no_embed_class: the prefix tokens have no position
        x = torch.cat(front + registers + [x + pos], dim=1)
    elif registers and pos.shape[1] == patches + len(front):  # HF DINOv2: registers after the add
        x = torch.cat(front + [x], dim=1) + pos
        x = torch.cat([x[:, :len(front)]] + registers + [x[:, len(front):]], dim=1)
    else:
        x = torch.cat(front + registers + [x], dim=1) + pos
    if "norm_pre.weight" in sd:
        x = _layer_norm(x, sd["norm_pre.weight"], sd["norm_pre.bias"], eps)
    return x, x.shape[1] - patches


def _scaled(y, sd, key):
    return y * sd[key] if key in sd else y


def _head(x, sd, pool, prefix, eps):
    """The logits from the last block's output x [1, S, D]."""
    def ln(t, key):
        return _layer_norm(t, sd[key + ".weight"], sd[key + ".bias"], eps)

    if pool in ("cls", "cls+dist"):
        x = ln(x, "norm")
        logits = F.linear(x[:, 0], sd["head.weight"], sd["head.bias"])
        if pool == "cls+dist":
            logits = (logits + F.linear(x[:, 1], sd["head_dist.weight"], sd["head_dist.bias"])) / 2
        return logits
    first = 0 if pool == "avg+prefix" else prefix
    if "fc_norm.weight" in sd:  # timm: the mean, then fc_norm (no final norm)
        feat = ln(x[:, first:].mean(1), "fc_norm")
    else:
        x = ln(x, "norm")
        feat = x[:, first:].mean(1)
        if pool == "cls+avg":
            feat = torch.cat([x[:, 0], feat], dim=-1)
    return F.linear(feat, sd["head.weight"], sd["head.bias"])


def logits_with_rules(sd, cfg, pixels, method, qk_divisor=4.0):
    """Logits [1, C] whose autograd backward is the method's modified backward."""
    eps = cfg.ln_eps
    x, prefix = _tokens(sd, pixels, cfg.patch_size, eps)
    for b in range(cfg.depth):
        pre = f"blocks.{b}."
        x = x + _scaled(_attention(x, sd, pre, cfg.heads, method, qk_divisor, eps), sd, pre + "ls1.gamma")
        y = _layer_norm(x, sd[pre + "norm2.weight"], sd[pre + "norm2.bias"], eps)
        y = _IdentityRule.apply(F.linear(y, sd[pre + "mlp.fc1.weight"], sd[pre + "mlp.fc1.bias"]), cfg.act)
        x = x + _scaled(F.linear(y, sd[pre + "mlp.fc2.weight"], sd[pre + "mlp.fc2.bias"]), sd, pre + "ls2.gamma")
    return _head(x, sd, cfg.pool, prefix, eps)


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
