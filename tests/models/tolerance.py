"""Every float32 tolerance of the exporter tests, in one place, each derived from measured
error rather than from one machine's run (docs/tolerances.md).

A bound is at least MARGIN times the worst relative error that
`tests/models/measure_tolerances.py` measured over many seeds, every OpenBLAS kernel family
an x86-64 CPU can select (OPENBLAS_CORETYPE), 1 and 2 threads, and PyTorch's portable and
AVX2 kernels. float32 results differ in the last bits from one CPU to another; the LRP
rules divide by sums that can be near zero, which turns those bits into relative errors
that vary by orders of magnitude from input to input, so the bounds cover the worst input
seen, not the inputs the tests happen to use.

Set VITREL_TOLERANCE_LOG=<file> to append every measured error as a JSON line (the
measuring tool does); VITREL_TOLERANCE_SEEDS=<n> makes the seed-swept tests run n seeds.
"""
import json
import os

import numpy as np

MARGIN = 4

# key -> bound on rel_err (max |a - b| / max |b|, or max |a - b| where it says absolute),
# then the worst error measured (docs/tolerances.md has the table and the command).
BOUND = {
    # float64 explainer vs the independent float64 reference: different formulas, same rules
    "f64_vs_f64.logits": 1e-10,                    # 1.7e-15
    "f64_vs_f64.attn": 1e-10,                      # 1.2e-14 (the attribution graphs; explainer 4.7e-15)
    "f64_vs_f64.attn_grad": 1e-10,                 # 3.4e-14
    "f64_vs_f64.attn_rel": 1e-8,                   # 4.7e-12 (block 0: the z-rule amplifies rounding)
    "f64_vs_f64.attn_rel_classic_last": 1e-8,      # 1.4e-13
    "f64_vs_f64.input_rel_classic": 1e-8,          # 2.5e-12
    "f64_vs_f64.linear_in_target": 1e-10,          # 2.1e-15
    # AttnLRP / CP-LRP pixel maps vs attnlrp_reference.py: its GELU ratio carries LXT's 1e-10
    "f64_vs_f64.gxi_map": 1e-6,                    # 7.0e-09
    # Self-Attention Attribution graphs and the masked forward (test_attribution.py,
    # test_head_mask.py, test_taylor.py), float64 vs the autograd reference
    "f64_vs_f64.attr_grad_sum": 1e-10,             # 5.3e-14
    "f64_vs_f64.attr_prob": 1e-10,                 # 6.3e-14
    "f64_vs_f64.taylor": 1e-10,                    # 3.7e-14
    # float32 attribution graph vs the float64 reference
    "f32_vs_f64.attr_attn": 1e-4,                  # 7.1e-06
    "f32_vs_f64.attr_grad_sum": 2e-4,              # 3.3e-05
    "f32_vs_f64.attr_prob": 1e-4,                  # 1.6e-05
    # float32 explainer vs the float64 reference (the last block; lower ones are chaotic)
    "f32_vs_f64.attn_grad": 5e-4,                  # 4.6e-05
    "f32_vs_f64.attn_rel_last": 2e-2,              # 3.0e-03
    "f32_vs_f64.attn_rel_classic_last": 5e-3,      # 9.3e-04
    # one float32 module, two formulas of the proposed denominators (pixel_relevance 0 vs 1,
    # split vs single graph)
    "f32_vs_f32.attn_rel_denominators": 1e-5,      # 9.9e-07
    # onnxruntime-web vs the PyTorch module, both float32: at least the float32-vs-float64
    # bound of the same tensor, since on another CPU the tests' seeds may be the worst input
    "ort_vs_torch.logits": 1e-4,                   # 3.3e-06
    "ort_vs_torch.attn": 1e-4,                     # 7.0e-06
    "ort_vs_torch.attn_grad": 2e-4,                # 2.2e-05
    "ort_vs_torch.attn_rel": 2e-2,                 # 7.9e-04
    "ort_vs_torch.attn_rel_classic_last": 5e-3,    # 3.6e-05
    "ort_vs_torch.input_rel_classic": 5e-2,        # 2.1e-03
    "ort_vs_torch.input_rel_attnlrp": 1e-3,        # MEASURE
    "ort_vs_torch.input_rel_cp_lrp": 1e-3,         # MEASURE
    "ort_vs_torch.attr_logits": 1e-4,              # 3.9e-06
    "ort_vs_torch.attr_hidden": 1e-4,              # 2.6e-06
    "ort_vs_torch.attr_attn": 1e-4,                # 6.2e-06
    "ort_vs_torch.attr_grad_sum": 2e-4,            # 1.4e-05
    "ort_vs_torch.attr_prob": 1e-4,                # 2.3e-05
    # onnxruntime-web, pixel_relevance 0 vs 1, on the outputs the switch must not change
    "ort_switch.unchanged": 1e-5,                  # 1.2e-06
    # the float32 module on DeiT-tiny vs the official implementation's tensors (golden data)
    "golden.logits_abs": 1e-4,                     # 9.4e-06 (absolute)
    "golden.attn_abs": 1e-4,                       # 1.3e-05 (absolute)
    "golden.attn_grad": 2e-4,                      # 2.7e-05
    "golden.attn_rel_last": 5e-4,                  # 4.7e-05
    "golden.attn_rel_classic_last": 1e-4,          # 1.8e-05
}


def rel_err(a, b) -> float:
    """max |a - b| / max |b| (0 when both are 0), for NumPy arrays or torch tensors."""
    a, b = _numpy(a), _numpy(b)
    scale = np.abs(b).max()
    diff = np.abs(a - b).max()
    return float(diff / scale) if scale > 0 else float(diff)


def abs_err(a, b) -> float:
    return float(np.abs(_numpy(a) - _numpy(b)).max())


def assert_close(key: str, got, want, where: str = "", absolute: bool = False) -> float:
    """Asserts the error of `got` against `want` is below BOUND[key]; returns it."""
    err = abs_err(got, want) if absolute else rel_err(got, want)
    _log(key, err, where)
    assert err < BOUND[key], f"{key}{' ' + where if where else ''}: error {err:.3g} is not below {BOUND[key]:.3g}"
    return err


def sweep_seeds(default):
    """The seeds a seed-swept test runs: `default`, or range(n) under VITREL_TOLERANCE_SEEDS=n."""
    n = os.environ.get("VITREL_TOLERANCE_SEEDS")
    return tuple(range(int(n))) if n else tuple(default)


def _numpy(x):
    if hasattr(x, "detach"):
        x = x.detach().cpu().double().numpy()
    return np.asarray(x, dtype=np.float64)


def _log(key, err, where):
    path = os.environ.get("VITREL_TOLERANCE_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(json.dumps({"key": key, "err": err, "where": where}) + "\n")
