"""Runs an export's torch.onnx conversions side by side, one worker process per core.

PyTorch 1.13 converts a traced graph to ONNX on one core, in a time that grows faster
than the square of the graph's nodes (onnx_export.keep_env_alive). The attribution graphs
are still traced whole this way (the others are built block by block in seconds,
scan_graph.py): some twenty conversions that share nothing but the weights, each writing
its own file, which workers take largest first.
Workers are spawned, not forked: the parent may already have used torch's OpenMP threads,
which a forked child cannot.

A trace is a picklable callable trace(cfg, state_dict, path) that writes one ONNX file.
"""
import concurrent.futures
import multiprocessing
import os
import time
from pathlib import Path
from typing import Callable, Dict, Optional

import torch

from .config import ViTConfig
from .errors import ExportCheckFailed
from .onnx_export import keep_env_alive

MAX_WORKERS = 4  # each holds the weights and a graph in conversion (ViT-B: about 2 GB)

_cfg: Optional[ViTConfig] = None
_state_dict = None


def worker_count() -> int:
    return max(1, min(len(os.sched_getaffinity(0)), MAX_WORKERS))


def _start_worker(cfg: ViTConfig, state_dict) -> None:
    global _cfg, _state_dict
    _cfg, _state_dict = cfg, state_dict
    torch.set_num_threads(1)  # one conversion per core; tracing's own products are small
    keep_env_alive().__enter__()  # for the worker's whole life


def _run(trace: Callable, path: Path):
    """(CPU seconds, wall seconds) of one trace in this process."""
    cpu, wall = time.process_time(), time.perf_counter()
    trace(_cfg, _state_dict, path)
    return time.process_time() - cpu, time.perf_counter() - wall


class TraceWorkers:
    """with TraceWorkers(cfg, state_dict) as workers: workers.start({path: trace}), then
    workers.wait(path) for one file and workers.wait_all(). Each finished trace prints its
    CPU and wall seconds. workers = 1 runs the traces here, in order, as start is called."""

    def __init__(self, cfg: ViTConfig, state_dict, workers: Optional[int] = None):
        self.cfg, self.state_dict = cfg, state_dict
        self.workers = worker_count() if workers is None else workers
        self.futures: Dict[Path, concurrent.futures.Future] = {}
        self.pool = None

    def __enter__(self):
        if self.workers > 1:
            self.pool = concurrent.futures.ProcessPoolExecutor(
                self.workers, mp_context=multiprocessing.get_context("spawn"),
                initializer=_start_worker, initargs=(self.cfg, self.state_dict))
        return self

    def __exit__(self, *exc):
        if self.pool and exc[0] is not None:
            # a failed export: stop the conversions under way instead of waiting for them
            for process in list(getattr(self.pool, "_processes", {}).values()):
                process.terminate()
        if self.pool:
            self.pool.shutdown(wait=True, cancel_futures=True)
        return False

    def start(self, traces: Dict[Path, Callable]) -> None:
        """Queues the traces in the order given (put the largest graphs first)."""
        for path, trace in traces.items():
            if self.pool:
                self.futures[path] = self.pool.submit(_run, trace, path)
            else:
                future = concurrent.futures.Future()
                with keep_env_alive():
                    cpu, wall = time.process_time(), time.perf_counter()
                    trace(self.cfg, self.state_dict, path)
                future.set_result((time.process_time() - cpu, time.perf_counter() - wall))
                self.futures[path] = future

    def wait(self, path: Path) -> None:
        future = self.futures[path]
        try:
            cpu, wall = future.result()
        except concurrent.futures.process.BrokenProcessPool as err:
            raise ExportCheckFailed(f"a worker process converting {Path(path).name} died ({err}); "
                                    f"out of memory?") from err
        if not getattr(future, "logged", False):
            future.logged = True
            print(f"  converted {Path(path).name}: {cpu:.1f} s CPU, {wall:.1f} s", flush=True)

    def wait_all(self) -> None:
        for path in self.futures:
            self.wait(path)
