"""The Taylor baseline of head pruning (METHODS.md; Michel et al. 2019) from the explainer
graph alone: per head |Σ O_k ⊙ ∂L/∂O_k| with O_k = A_k·v and L the cross-entropy with the
label equals |Σ A_k ⊙ ∂L/∂A_k|, and ∂L/∂A is the explainer's attn_grad for the target
row softmax(logits) − onehot(label) (∂L/∂logits). Checked against autograd on O_k."""
import torch
import torch.nn.functional as F

from attribution_reference import reference_forward
from conftest import random_inputs
from models.exporter.explainer import build_explainer
from tolerance import assert_close


def taylor_by_autograd(cfg, sd, pixels, label):
    scores = torch.zeros(cfg.depth, cfg.heads, dtype=torch.float64)
    for b in range(cfg.depth):
        kept = {}

        def leaf(o):
            kept["o"] = o.detach().requires_grad_(True)
            return kept["o"]
        logits, _ = reference_forward(cfg, sd, pixels, head_output=(b, leaf))
        loss = F.cross_entropy(logits, torch.tensor([label]))
        grad = torch.autograd.grad(loss, kept["o"])[0]
        scores[b] = (kept["o"] * grad).sum(dim=(0, 2, 3)).abs()
    return scores


def taylor_from_explainer(cfg, sd, pixels, label):
    module = build_explainer(cfg, sd).double()
    with torch.no_grad():
        logits = module(pixels, torch.zeros(1, cfg.num_classes, dtype=torch.float64), torch.tensor(0.0))[0]
        seed = torch.softmax(logits, -1) - F.one_hot(torch.tensor([label]), cfg.num_classes).double()
        _, attn, grad, *_ = module(pixels, seed, torch.tensor(0.0))
    return (attn * grad[0]).sum(dim=(2, 3)).abs()


def test_taylor_importance_from_the_attention_gradient(tiny_model):
    cfg, sd = tiny_model
    for seed, label in ((0, 3), (1, 7)):
        pixels = random_inputs(cfg, 1, seed)[0].double()
        want = taylor_by_autograd(cfg, sd, pixels, label)
        got = taylor_from_explainer(cfg, sd, pixels, label)
        assert_close("f64_vs_f64.taylor", got, want, f"seed {seed}")
        assert want.min() > 0, "every head must matter for the comparison"
