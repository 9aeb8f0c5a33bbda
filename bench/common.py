"""Shared pieces of the benchmark: cache folder, timers, percentiles, machine facts."""

from __future__ import annotations

import os
import platform
import subprocess
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, Sequence

from replay.workers import process_pool

ROOT = Path(__file__).resolve().parents[1]
BUILD = ROOT / "build" / "bench"
"""Cached corpora, the PGN yardstick and the synthetic warehouse (never committed)."""
RESULTS = ROOT / "bench" / "results.json"


def pool(workers: int) -> ProcessPoolExecutor:
    """A process pool whose workers start clean (forkserver where available)."""
    return process_pool(workers)


def cpus() -> int:
    """Cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def loadavg() -> list[float]:
    """1, 5 and 15 minute load averages (empty where the OS has none)."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:  # pragma: no cover
        return []


def percentile(xs: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0..1) of ``xs`` with linear interpolation (numpy's default)."""
    s = sorted(xs)
    if not s:
        raise ValueError("no samples")
    pos = (len(s) - 1) * q
    lo = int(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


class CpuTimer:
    """``with CpuTimer() as t: ...`` → ``t.cpu`` (process CPU seconds) and ``t.wall`` seconds."""

    def __enter__(self) -> "CpuTimer":
        self._c, self._w = time.process_time(), time.perf_counter()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.cpu = time.process_time() - self._c
        self.wall = time.perf_counter() - self._w


def machine() -> dict[str, Any]:
    """Facts that explain a figure: host, Python, cores, load, engine version, git commit."""
    from replay import ENGINE_VERSION

    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                                text=True, timeout=10).stdout.strip() or None
        dirty = bool(subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                                    capture_output=True, text=True, timeout=10).stdout.strip())
    except (OSError, subprocess.SubprocessError):
        commit, dirty = None, None
    return {"host": platform.node(), "python": platform.python_version(), "platform": platform.platform(),
            "cpus": cpus(), "engine_version": ENGINE_VERSION, "git_commit": commit, "git_dirty": dirty}
