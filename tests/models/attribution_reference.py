"""Independent PyTorch reference for Self-Attention Attribution (METHODS.md), written with
torch.nn.functional and torch.autograd only: the oracle the exported graphs are tested
against. Any float dtype; the model is given as (cfg, timm-keyed state dict)."""
import torch
import torch.nn.functional as F


def _w(sd, key, dtype):
    return sd[key].to(dtype)


def reference_forward(cfg, sd, pixels, override=None, head_mask=None, head_output=None):
    """Logits [n, C] of pixels [n,3,H,W]. override = (b, fn): block b's post-softmax
    attention A is replaced by fn(A). head_mask [B, h] multiplies each head's attention.
    head_output = (b, fn): block b's head outputs O = A·v [n,h,S,d] are replaced by fn(O).
    Returns (logits, [A of every block])."""
    dt = pixels.dtype
    D, h, d, S = cfg.embed_dim, cfg.heads, cfg.head_dim, cfg.tokens
    n = pixels.shape[0]
    x = F.conv2d(pixels, _w(sd, "patch_embed.proj.weight", dt), _w(sd, "patch_embed.proj.bias", dt),
                 stride=cfg.patch_size).flatten(2).transpose(1, 2)
    special = ["cls_token"] + (["dist_token"] if cfg.distilled else [])
    x = torch.cat([_w(sd, k, dt).expand(n, -1, -1) for k in special] + [x], 1) + _w(sd, "pos_embed", dt)
    attns = []
    for b in range(cfg.depth):
        def p(k): return _w(sd, f"blocks.{b}.{k}", dt)  # noqa: E731
        y = F.layer_norm(x, (D,), p("norm1.weight"), p("norm1.bias"), cfg.ln_eps)
        q, k, v = F.linear(y, p("attn.qkv.weight"), p("attn.qkv.bias")).reshape(n, S, 3, h, d).permute(2, 0, 3, 1, 4)
        a = torch.softmax(q @ k.transpose(-1, -2) / d ** 0.5, -1)
        attns.append(a)
        if override is not None and override[0] == b:
            a = override[1](a)
        if head_mask is not None:
            a = a * head_mask[b].reshape(1, h, 1, 1)
        o = a @ v
        if head_output is not None and head_output[0] == b:
            o = head_output[1](o)
        x = x + F.linear(o.transpose(1, 2).reshape(n, S, D), p("attn.proj.weight"), p("attn.proj.bias"))
        y = F.layer_norm(x, (D,), p("norm2.weight"), p("norm2.bias"), cfg.ln_eps)
        x = x + F.linear(F.gelu(F.linear(y, p("mlp.fc1.weight"), p("mlp.fc1.bias"))),
                         p("mlp.fc2.weight"), p("mlp.fc2.bias"))
    x = F.layer_norm(x, (D,), _w(sd, "norm.weight", dt), _w(sd, "norm.bias", dt), cfg.ln_eps)
    logits = F.linear(x[:, 0], _w(sd, "head.weight", dt), _w(sd, "head.bias", dt))
    if cfg.distilled:
        logits = (logits + F.linear(x[:, 1], _w(sd, "head_dist.weight", dt), _w(sd, "head_dist.bias", dt))) / 2
    return logits, attns


def probability_at(cfg, sd, pixels, block, scaled):
    """p_t for every class [C] with block `block`'s attention replaced by `scaled` [h,S,S]."""
    logits, _ = reference_forward(cfg, sd, pixels, (block, lambda a: scaled.unsqueeze(0)))
    return torch.softmax(logits, -1)[0]


def reference_gradient_sum(cfg, sd, pixels, block, alphas, target):
    """(A [h,S,S], Σ_i ∂p_t(α_i A)/∂(α_i A) [h,S,S], [p_t(α_i A)]) by autograd, one α at a time."""
    with torch.no_grad():
        attn = reference_forward(cfg, sd, pixels)[1][block][0]
    total, probs = torch.zeros_like(attn), []
    for alpha in alphas:
        scaled = (alpha * attn).detach().requires_grad_(True)
        p_t = probability_at(cfg, sd, pixels, block, scaled)[target]
        total += torch.autograd.grad(p_t, scaled)[0]
        probs.append(p_t.item())
    return attn, total, probs


def reference_attr(cfg, sd, pixels, block, target, steps):
    """METHODS.md's Attr[b] with the left Riemann sum α_i = i/m, i = 0..m-1."""
    attn, total, _ = reference_gradient_sum(cfg, sd, pixels, block, [i / steps for i in range(steps)], target)
    return attn / steps * total


def main(argv=None):
    """CLI for the node acceptance test (tests/node/attribute.test.js): the reference Attr
    of a real checkpoint, read through the exporter's own loaders, written as
    OUT/ref-block<b>.npy [h,S,S] (float32 inputs and model: the engines' precision)."""
    import argparse
    from pathlib import Path

    import numpy as np

    from models.exporter.architectures import check_state_dict, known_model
    from models.exporter.checkpoints import load_state_dict

    p = argparse.ArgumentParser()
    p.add_argument("--model", required=True)
    p.add_argument("--checkpoint", required=True)
    p.add_argument("--input", required=True, help="normalised [1,3,H,W] .npy")
    p.add_argument("--class", dest="class_id", type=int, required=True)
    p.add_argument("--blocks", required=True, help="i,j,...")
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--out", required=True)
    args = p.parse_args(argv)
    cfg = known_model(args.model).config
    sd = load_state_dict(Path(args.checkpoint))
    check_state_dict(cfg, sd)
    pixels = torch.from_numpy(np.load(args.input)).float().reshape(1, 3, *cfg.image_size)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for b in (int(s) for s in args.blocks.split(",")):
        attr = reference_attr(cfg, sd, pixels, b, args.class_id, args.steps)
        np.save(out / f"ref-block{b}.npy", attr.detach().numpy().astype(np.float32))


if __name__ == "__main__":
    import sys
    from pathlib import Path as _Path

    sys.path.insert(0, str(_Path(__file__).resolve().parents[2]))
    main()
