"""The export's torch.onnx conversions (the attribution graphs) in worker processes
(models/exporter/trace_workers.py): the files they write are the bytes one plain torch.onnx
export writes, and a conversion that fails, or a worker that dies, stops the export with
one sentence."""
import dataclasses
import os

import pytest
import torch.onnx.utils

from conftest import TINY
from timm_state_dict import random_state_dict
from models.exporter.attribution import build_states
from models.exporter.attribution_export import export_masked, export_states, trace_masked, trace_states
from models.exporter.errors import ExportCheckFailed
from models.exporter.explainer import build_plain
from models.exporter.trace_workers import TraceWorkers

CFG = dataclasses.replace(TINY, depth=1)


def failing_trace(cfg, state_dict, path):
    raise ExportCheckFailed(f"{path.name} could not be converted")


def dying_trace(cfg, state_dict, path):
    os._exit(3)  # as the kernel's out-of-memory killer would end it


def test_workers_write_the_bytes_of_a_plain_export(tmp_path):
    sd = random_state_dict(CFG)
    export_states(build_states(CFG, sd), CFG, tmp_path / "states.onnx")
    export_masked(build_plain(CFG, sd), CFG, tmp_path / "masked.onnx")
    run_symbolic = torch.onnx.utils._run_symbolic_function
    for workers in (1, 2):
        out = tmp_path / str(workers)
        out.mkdir()
        with TraceWorkers(CFG, sd, workers=workers) as pool:
            pool.start({out / "states.onnx": trace_states, out / "masked.onnx": trace_masked})
            pool.wait_all()
        for f in ("states.onnx", "masked.onnx"):
            assert (out / f).read_bytes() == (tmp_path / f).read_bytes(), f"{f}, {workers} workers"
    assert torch.onnx.utils._run_symbolic_function is run_symbolic  # keep_env_alive left nothing behind


@pytest.mark.parametrize("trace, message", [(failing_trace, "plain.onnx could not be converted"),
                                            (dying_trace, "a worker process converting plain.onnx died")])
def test_a_failed_conversion_stops_the_export_with_one_sentence(tmp_path, trace, message):
    with pytest.raises(ExportCheckFailed, match=message):
        with TraceWorkers(CFG, random_state_dict(CFG), workers=2) as pool:
            pool.start({tmp_path / "plain.onnx": trace})
            pool.wait(tmp_path / "plain.onnx")
