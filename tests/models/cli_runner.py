"""Runs models/export.py as the build does: a separate process, its own environment."""
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def run_export(*args, timeout=900):
    # The caller's checkpoint folder setting must not leak into tests that set their own.
    env = {k: v for k, v in os.environ.items() if k != "VITREL_CHECKPOINT_DIR"}
    return subprocess.run([sys.executable, str(REPO / "models" / "export.py"), *map(str, args)],
                          capture_output=True, text=True, env=env, timeout=timeout)
