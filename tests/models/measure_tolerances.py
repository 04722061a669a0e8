#!/usr/bin/env python3
"""Measures the float errors behind tests/models/tolerance.py on this machine's CPU under
every arithmetic variant it can emulate, and checks each bound keeps its margin.

    /usr/bin/python3 tests/models/measure_tolerances.py [--seeds 24] [--quick]

Each variant reruns the tests that compare floats (with VITREL_TOLERANCE_LOG set, and the
seed-swept ones over --seeds seeds) in a fresh process, with one of OpenBLAS's x86-64
kernel families (OPENBLAS_CORETYPE: what another CPU would select), 1 or 2 threads, and
PyTorch's portable or AVX2 kernels. Prints per key the worst error, the variant that gave
it and bound / worst; exits 1 if any bound is below MARGIN × its worst error.
"""
import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from tolerance import BOUND, MARGIN  # noqa: E402

# The seed-swept tests (PyTorch only, fast) run under every variant; the ones that export
# graphs or load DeiT-tiny run under the variants marked slow=True.
SWEPT_FILES = ["test_lrp.py", "test_gradients.py", "test_attribution.py", "test_head_mask.py", "test_taylor.py"]
SLOW_FILES = ["test_lrp_onnx.py", "test_split.py", "test_pixel_relevance_switch.py", "test_golden_tensors.py",
              "test_attribution_onnx.py"]
CORETYPES = ["Prescott", "Nehalem", "Sandybridge", "Haswell", "Zen", "SkylakeX"]
SLOW_VARIANTS = {("Prescott", 1), ("Haswell", 2), ("SkylakeX", 2)}


def variants(quick):
    out = []
    for core in (["Haswell", "Prescott"] if quick else CORETYPES):
        for threads in (1, 2):
            out.append(({"OPENBLAS_CORETYPE": core, "OPENBLAS_NUM_THREADS": str(threads),
                         "OMP_NUM_THREADS": str(threads)}, (core, threads) in SLOW_VARIANTS))
    out.append(({"ATEN_CPU_CAPABILITY": "default", "OPENBLAS_CORETYPE": "Haswell"}, True))
    return out


def run_variant(env_extra, slow, seeds, log):
    env = {**os.environ, **env_extra, "VITREL_TOLERANCE_LOG": str(log), "VITREL_TOLERANCE_SEEDS": str(seeds)}
    files = SWEPT_FILES + (SLOW_FILES if slow else [])
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *[str(HERE / f) for f in files]]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=HERE.parents[1])
    return done.returncode, done.stdout.strip().splitlines()[-1:]


def measure(args, logs: Path):
    for i, (extra, slow) in enumerate(variants(args.quick)):
        name = " ".join(f"{k}={v}" for k, v in extra.items())
        log = logs / f"{i:02d}.jsonl"
        log.write_text(json.dumps({"variant": name}) + "\n")
        code, tail = run_variant(extra, slow, args.seeds, log)
        print(f"[{i + 1}] {name}: pytest exit {code} {' '.join(tail)}", flush=True)


def report(logs: Path) -> int:
    worst = collections.defaultdict(lambda: (0.0, ""))
    for log in sorted(logs.glob("*.jsonl")):
        lines = [json.loads(line) for line in log.read_text().splitlines()]
        name = lines[0].get("variant", log.stem) if lines else log.stem
        for r in lines[1:]:
            if r["err"] >= worst[r["key"]][0]:
                worst[r["key"]] = (r["err"], f"{name} {r['where']}".strip())
    print("\n| key | bound | worst measured | bound / worst | where |\n|---|---:|---:|---:|---|")
    short = []
    for key, bound in BOUND.items():
        err, where = worst.get(key, (None, "not measured"))
        ratio = bound / err if err else float("inf")
        if err is not None and ratio < MARGIN:
            short.append(key)
        shown_ratio = "—" if err is None else ("∞" if ratio == float("inf") else f"{ratio:.0f}")
        print(f"| `{key}` | {bound:.0e} | {'—' if err is None else format(err, '.1e')} | {shown_ratio} | {where} |")
    if short:
        print(f"\nbelow the margin of {MARGIN}×: {', '.join(short)}")
        return 1
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=24, help="seeds for the seed-swept tests")
    ap.add_argument("--quick", action="store_true", help="two kernel families instead of six")
    ap.add_argument("--logs", type=Path, help="keep the measurements in this folder (default: a temporary one)")
    ap.add_argument("--report", action="store_true", help="only print the table from the --logs folder")
    args = ap.parse_args()
    if args.report:
        if not args.logs or not args.logs.is_dir():
            ap.error("--report needs --logs DIR with earlier measurements")
        return report(args.logs)
    with tempfile.TemporaryDirectory() as tmp:
        logs = args.logs or Path(tmp)
        logs.mkdir(parents=True, exist_ok=True)
        measure(args, logs)
        return report(logs)


if __name__ == "__main__":
    sys.exit(main())
