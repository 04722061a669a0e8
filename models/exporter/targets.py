"""Target rows as the graph reads them: an all-zero row means "the predicted class".

Replacing it inside the graph by the one-hot of argmax(logits) lets one run return the
logits and the top-1 explanation together (the caller reads the class from the logits).
"""
import torch


def predicted_class_rows(target, logits):
    """target [K, C], logits [1, C] -> target with every row whose sum of |t| is 0
    replaced by the one-hot of argmax(logits) (first maximum on ties, as ArgMax).

    Float operations only: ArgMax gives int64, which onnxruntime's WebGPU execution
    provider does not run, so ArgMax, its int64 Range and Equal went to the CPU with a
    copy each way (docs/architecture.md, "WebGPU"). The first maximum is the maximum of
    is_max · (C − index), a float constant exact up to 2^24 classes."""
    classes = int(logits.shape[-1])  # fixed in the graph: the constant below, no Range
    is_max = (logits == logits.amax(-1, keepdim=True)).to(target.dtype)  # [1, C]
    first = torch.arange(classes, 0, -1, dtype=target.dtype)  # C, C-1, …, 1: a constant
    score = is_max * first
    one_hot = (score == score.amax(-1, keepdim=True)).to(target.dtype)[0]  # [C]
    empty = target.abs().sum(-1, keepdim=True) == 0  # [K, 1]
    return torch.where(empty, one_hot, target)
