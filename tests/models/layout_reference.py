"""Independent PyTorch forwards of the three libraries' ViTs, written from their documented
semantics on their own key names (timm 1.0 VisionTransformer, transformers 4.48
ViT/DeiT/Dinov2(WithRegisters), torchvision 0.14 VisionTransformer), nothing shared with
models/exporter: the reference the layout tests compare the exported graphs with.
Each returns (logits [1, C], attention probabilities per block [h, S, S], kept with
retain_grad so a test can read d logits / d attention)."""
import math

import torch
import torch.nn.functional as F


def _act(name):
    return {"gelu": F.gelu, "gelu_tanh": lambda u: F.gelu(u, approximate="tanh"),
            "quickgelu": lambda u: u * torch.sigmoid(1.702 * u)}[name]


def _attention(x, q, k, v, heads, attns):
    """softmax(q k^T / sqrt(d)) v over heads, [1, S, D] each; records the probabilities."""
    n, s, dim = x.shape
    d = dim // heads
    q, k, v = (t.reshape(n, s, heads, d).transpose(1, 2) for t in (q, k, v))
    a = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(d), dim=-1)
    a.retain_grad()
    attns.append(a)
    return (a @ v).transpose(1, 2).reshape(n, s, dim)


def timm_forward(sd, pixels, heads, eps=1e-6, act="gelu", global_pool="token", no_embed_class=False):
    """timm VisionTransformer.forward (eval): _pos_embed, norm_pre, blocks, norm, forward_head."""
    attns, ln = [], (lambda x, key: F.layer_norm(x, x.shape[-1:], sd[key + ".weight"], sd[key + ".bias"], eps))
    x = F.conv2d(pixels, sd["patch_embed.proj.weight"], sd.get("patch_embed.proj.bias"),
                 stride=sd["patch_embed.proj.weight"].shape[-1]).flatten(2).transpose(1, 2)
    prefix = [sd[k] for k in ("cls_token", "dist_token", "reg_token") if k in sd]
    if no_embed_class:
        x = torch.cat(prefix + [x + sd["pos_embed"]], dim=1)
    else:
        x = torch.cat(prefix + [x], dim=1) + sd["pos_embed"]
    if "norm_pre.weight" in sd:
        x = ln(x, "norm_pre")
    b = 0
    while f"blocks.{b}.norm1.weight" in sd:
        pre = f"blocks.{b}."
        y = ln(x, pre + "norm1")
        q, k, v = F.linear(y, sd[pre + "attn.qkv.weight"], sd.get(pre + "attn.qkv.bias")).chunk(3, dim=-1)
        y = F.linear(_attention(y, q, k, v, heads, attns), sd[pre + "attn.proj.weight"], sd[pre + "attn.proj.bias"])
        x = x + (y * sd[pre + "ls1.gamma"] if pre + "ls1.gamma" in sd else y)
        y = _act(act)(F.linear(ln(x, pre + "norm2"), sd[pre + "mlp.fc1.weight"], sd[pre + "mlp.fc1.bias"]))
        y = F.linear(y, sd[pre + "mlp.fc2.weight"], sd[pre + "mlp.fc2.bias"])
        x = x + (y * sd[pre + "ls2.gamma"] if pre + "ls2.gamma" in sd else y)
        b += 1
    if "norm.weight" in sd:
        x = ln(x, "norm")
    if "head_dist.weight" in sd:  # VisionTransformerDistilled at eval: the mean of both heads
        return (F.linear(x[:, 0], sd["head.weight"], sd["head.bias"])
                + F.linear(x[:, 1], sd["head_dist.weight"], sd["head_dist.bias"])) / 2, attns
    x = x[:, sum(t.shape[1] for t in prefix):].mean(1) if global_pool == "avg" else x[:, 0]
    if "fc_norm.weight" in sd:
        x = ln(x, "fc_norm")
    return F.linear(x, sd["head.weight"], sd["head.bias"]), attns


def hf_forward(sd, config, pixels):
    """transformers' *ForImageClassification forward (eval) on the saved keys."""
    model_type = config["model_type"]
    base = {"vit": "vit.", "deit": "deit.", "dinov2": "dinov2.",
            "dinov2_with_registers": "dinov2_with_registers."}[model_type]
    dinov2 = model_type.startswith("dinov2")
    eps, heads = config["layer_norm_eps"], config["num_attention_heads"]
    act = {"gelu": "gelu", "gelu_pytorch_tanh": "gelu_tanh", "quick_gelu": "quickgelu"}[config["hidden_act"]]
    attns = []

    def ln(x, key):
        return F.layer_norm(x, x.shape[-1:], sd[key + ".weight"], sd[key + ".bias"], eps)

    def dense(x, key):
        return F.linear(x, sd[key + ".weight"], sd[key + ".bias"])

    e = base + "embeddings."
    x = F.conv2d(pixels, sd[e + "patch_embeddings.projection.weight"], sd[e + "patch_embeddings.projection.bias"],
                 stride=config["patch_size"]).flatten(2).transpose(1, 2)
    tokens = [sd[e + "cls_token"]] + ([sd[e + "distillation_token"]] if model_type == "deit" else [])
    x = torch.cat(tokens + [x], dim=1) + sd[e + "position_embeddings"]
    registers = 0
    if e + "register_tokens" in sd:  # inserted after the position embedding
        registers = sd[e + "register_tokens"].shape[1]
        x = torch.cat([x[:, :1], sd[e + "register_tokens"], x[:, 1:]], dim=1)
    b = 0
    while f"{base}encoder.layer.{b}.attention.attention.query.weight" in sd:
        pre = f"{base}encoder.layer.{b}."
        y = ln(x, pre + ("norm1" if dinov2 else "layernorm_before"))
        a = pre + "attention.attention."
        y = dense(_attention(y, dense(y, a + "query"), dense(y, a + "key"), dense(y, a + "value"), heads, attns),
                  pre + "attention.output.dense")
        x = x + (y * sd[pre + "layer_scale1.lambda1"] if dinov2 else y)
        y = ln(x, pre + ("norm2" if dinov2 else "layernorm_after"))
        y = _act(act)(dense(y, pre + ("mlp.fc1" if dinov2 else "intermediate.dense")))
        y = dense(y, pre + ("mlp.fc2" if dinov2 else "output.dense"))
        x = x + (y * sd[pre + "layer_scale2.lambda1"] if dinov2 else y)
        b += 1
    x = ln(x, base + "layernorm")
    if dinov2:  # transformers >= 4.53: the patch tokens only (registers left out)
        return dense(torch.cat([x[:, 0], x[:, 1 + registers:].mean(1)], dim=-1), "classifier"), attns
    if "cls_classifier.weight" in sd:
        return (dense(x[:, 0], "cls_classifier") + dense(x[:, 1], "distillation_classifier")) / 2, attns
    return dense(x[:, 0], "classifier"), attns


def torchvision_forward(sd, pixels, heads):
    """torchvision VisionTransformer.forward (eval): nn.MultiheadAttention's own kernel."""
    attns, eps = [], 1e-6

    def ln(x, key):
        return F.layer_norm(x, x.shape[-1:], sd[key + ".weight"], sd[key + ".bias"], eps)

    w = sd["conv_proj.weight"]
    x = F.conv2d(pixels, w, sd["conv_proj.bias"], stride=w.shape[-1]).flatten(2).transpose(1, 2)
    x = torch.cat([sd["class_token"], x], dim=1) + sd["encoder.pos_embedding"]
    dim, b = x.shape[-1], 0
    while f"encoder.layers.encoder_layer_{b}.ln_1.weight" in sd:
        pre = f"encoder.layers.encoder_layer_{b}."
        y = ln(x, pre + "ln_1").transpose(0, 1)  # [S, 1, D]: MultiheadAttention's own layout
        y, a = F.multi_head_attention_forward(
            y, y, y, dim, heads, sd[pre + "self_attention.in_proj_weight"], sd[pre + "self_attention.in_proj_bias"],
            None, None, False, 0.0, sd[pre + "self_attention.out_proj.weight"],
            sd[pre + "self_attention.out_proj.bias"], training=False, need_weights=True, average_attn_weights=False)
        attns.append(a)
        x = x + y.transpose(0, 1)
        y = F.gelu(F.linear(ln(x, pre + "ln_2"), sd[pre + "mlp.0.weight"], sd[pre + "mlp.0.bias"]))
        x = x + F.linear(y, sd[pre + "mlp.3.weight"], sd[pre + "mlp.3.bias"])
        b += 1
    x = ln(x, "encoder.ln")
    return F.linear(x[:, 0], sd["heads.head.weight"], sd["heads.head.bias"]), attns
