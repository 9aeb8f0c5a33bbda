"""Ingest end to end, measured in a fresh process: ``python -m bench.ingest_probe IN WH WORKERS``.

A fresh process per measurement keeps the peak memory honest (the bench's own corpora are not
in it). Prints one JSON object:

- ``seconds`` (wall), ``games`` and ``games_per_s`` (wall): what an operator waits for;
- ``cpu_s``: CPU seconds of this process plus its reaped descendants (the workers), so
  ``games_per_cpu_s`` estimates throughput on idle cores however loaded this machine is;
- ``peak_rss_mb``: the largest sum of resident memory over this process and all its
  descendants, sampled every 20 ms from ``/proc``;
- ``maxrss_self_mb`` / ``maxrss_children_mb``: ``resource.getrusage`` of self and of the
  largest reaped child (the kernel keeps a maximum per process, not a sum). Kept in the JSON
  but not a figure: Linux carries a process's high-water mark across ``exec``, so under
  ``make bench`` ``maxrss_self_mb`` is at least what the bench process held when it started
  the probe (its simulated corpora: ~700 MB on a fresh clone), not what ingest needs.
"""

from __future__ import annotations

import inspect
import json
import os
import resource
import sys
import threading
import time
from pathlib import Path
from typing import Any


def _rss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status", "rb") as f:
            for line in f:
                if line.startswith(b"VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def _tree(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        try:
            for tid in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{tid}/children") as f:
                    todo += [int(x) for x in f.read().split()]
        except OSError:
            pass
    return out


class PeakRss:
    """Background sampler of the summed RSS of this process tree."""

    def __init__(self, every: float = 0.02) -> None:
        self.every = every
        self.peak_kb = 0
        self._stop = threading.Event()
        self._t = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        me = os.getpid()
        while not self._stop.is_set():
            self.peak_kb = max(self.peak_kb, sum(_rss_kb(p) for p in _tree(me)))
            self._stop.wait(self.every)

    def __enter__(self) -> "PeakRss":
        if os.path.exists(f"/proc/{os.getpid()}/task"):
            self._t.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        if self._t.is_alive():
            self._t.join()


def _stop_forkserver() -> None:
    """Stop multiprocessing's fork server so its (and the workers') usage is reaped and counted."""
    try:
        from multiprocessing import forkserver

        forkserver._forkserver._stop()  # type: ignore[attr-defined]
    except Exception:  # pragma: no cover - private API, best effort
        pass


def probe(inp: str, warehouse: str, workers: int) -> dict[str, Any]:
    from ingest.run import ingest

    kw: dict[str, Any] = {"progress": False}
    params = inspect.signature(ingest).parameters
    if "min_pool_bytes" in params and workers > 1:
        kw["min_pool_bytes"] = 0  # small (quick) inputs use the pool too
    c0 = time.process_time()
    w0 = time.perf_counter()
    with PeakRss() as rss:
        rep = ingest([inp], warehouse, workers=workers, **kw)
        seconds = time.perf_counter() - w0
        _stop_forkserver()
    ch = resource.getrusage(resource.RUSAGE_CHILDREN)
    me = resource.getrusage(resource.RUSAGE_SELF)
    cpu = time.process_time() - c0 + ch.ru_utime + ch.ru_stime
    tot = rep.total()
    games = tot.valid + tot.invalid
    return {"workers": workers, "pool_workers": getattr(rep, "workers", None), "games": games,
            "valid": tot.valid, "rejected": tot.rejected, "seconds": round(seconds, 3),
            "games_per_s": games / seconds if seconds else 0.0, "cpu_s": round(cpu, 3),
            "games_per_cpu_s": games / cpu if cpu else 0.0, "rows": dict(getattr(rep, "rows", {}) or {}),
            "peak_rss_mb": round(rss.peak_kb / 1024, 1), "maxrss_self_mb": round(me.ru_maxrss / 1024, 1),
            "maxrss_children_mb": round(ch.ru_maxrss / 1024, 1)}


def run_probe(inp: Path, warehouse: Path, workers: int, timeout: float = 1800) -> dict[str, Any]:
    """Run :func:`probe` in a fresh interpreter (from the repo root) and return its JSON."""
    import shutil
    import subprocess

    from bench.common import ROOT

    shutil.rmtree(warehouse, ignore_errors=True)
    warehouse.parent.mkdir(parents=True, exist_ok=True)
    p = subprocess.run([sys.executable, "-m", "bench.ingest_probe", str(inp), str(warehouse), str(workers)],
                       cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    try:
        if p.returncode != 0:
            raise RuntimeError(f"ingest probe failed ({p.returncode}): {p.stderr[-2000:]}")
        return json.loads(p.stdout.strip().splitlines()[-1])
    finally:
        shutil.rmtree(warehouse, ignore_errors=True)


def main(argv: list[str]) -> None:
    inp, warehouse, workers = argv[0], argv[1], int(argv[2])
    out = probe(inp, warehouse, workers)
    sys.stdout.write(json.dumps(out) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])

