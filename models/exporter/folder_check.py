"""The export's last check: the folder about to be moved into place, opened and explained
once by the runtime the CLI and the Node API use (check_folder.mjs), every method its
graphs feed. The parity check (parity.py) compares the graph with a forward of the same
detected layout; this one proves the folder works for the tools that read it."""
import json
import subprocess
from pathlib import Path

from .errors import ExportCheckFailed

RUNNER = Path(__file__).with_name("check_folder.mjs")
REPO = Path(__file__).resolve().parents[2]


def check_folder(folder: Path) -> dict:
    """{class, methods} of the run; raises ExportCheckFailed with the runtime's message."""
    run = subprocess.run(["node", str(RUNNER), str(folder)], cwd=REPO, capture_output=True, text=True)
    if run.returncode:
        last = (run.stderr.strip().splitlines() or [f"exit {run.returncode}"])[-1]
        raise ExportCheckFailed(f"the exported folder does not work in the runtime ({last}): not written")
    return json.loads(run.stdout.strip().splitlines()[-1])
