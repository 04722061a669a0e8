"""Target rows as the graph reads them: an all-zero row means "the predicted class".

Replacing it inside the graph by the one-hot of argmax(logits) lets one run return the
logits and the top-1 explanation together (the caller reads the class from the logits).
"""
import torch


def predicted_class_rows(target, logits):
    """target [K, C], logits [1, C] -> target with every row whose sum of |t| is 0
    replaced by the one-hot of argmax(logits) (first maximum on ties, as ArgMax)."""
    classes = torch.arange(logits.shape[-1], device=logits.device)  # Range in the graph
    one_hot = (classes == logits.argmax(-1)).to(target.dtype)  # [C]
    empty = target.abs().sum(-1, keepdim=True) == 0  # [K, 1]
    return torch.where(empty, one_hot, target)
