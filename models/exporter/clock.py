"""How long an export's stages take, in CPU and wall seconds."""
import os
import time


class StageClock:
    """str(): the CPU seconds (this process and the subprocesses it waited for) and the wall
    seconds since it was made: the export's stages say what they cost."""

    def __init__(self):
        self.cpu, self.wall = self._cpu(), time.perf_counter()

    @staticmethod
    def _cpu() -> float:
        t = os.times()
        return t.user + t.system + t.children_user + t.children_system

    def __str__(self):
        return f"{self._cpu() - self.cpu:.1f} s CPU, {time.perf_counter() - self.wall:.1f} s"
