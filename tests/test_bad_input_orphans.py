"""No orphans: ``kill -9`` of only the main process of a pool — a bare ``process_pool``
and a real ``paipu ingest`` — leaves none of its workers, its forkserver or its resource tracker
alive. The main process is left unreaped while the others are watched (a zombie owner is the hard
case for a watchdog). Linux only: it reads the process tree from ``/proc``."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHORT = json.loads((ROOT / "data" / "guilin-short.jsonl").read_bytes())
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
GONE_WITHIN = 30.0  # seconds; a deadline for a hang, not a speed test (it takes well under one)

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")

POOL = """
import time
from replay.workers import process_pool
pool = process_pool(2)
for f in [pool.submit(time.sleep, 0.2) for _ in range(2)]:  # two tasks at once start both workers
    f.result()
print("ready", flush=True)
time.sleep(600)
"""


def _stat(pid: int) -> tuple[int, str] | None:
    """(parent pid, state) of a live process, None when it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2:].split()
    return int(fields[1]), fields[0]


def descendants(root: int) -> set[int]:
    """Every live process below ``root``."""
    kids: dict[int, list[int]] = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            st = _stat(int(d.name))
            if st is not None:
                kids.setdefault(st[0], []).append(int(d.name))
    out, todo = set(), [root]
    while todo:
        for k in kids.get(todo.pop(), []):
            out.add(k)
            todo.append(k)
    return out


def alive(pids: set[int]) -> set[int]:
    return {p for p in pids if (st := _stat(p)) is not None and st[1] != "Z"}


def kill_and_watch(proc: subprocess.Popen, below: set[int]) -> None:
    assert len(below) >= 3, below  # resource tracker, forkserver, workers
    os.kill(proc.pid, signal.SIGKILL)  # only the main process
    deadline = time.monotonic() + GONE_WITHIN
    while alive(below) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = alive(below)
    try:
        assert not left, {p: Path(f"/proc/{p}/cmdline").read_bytes()[:120] for p in left if _stat(p)}
    finally:
        for p in alive(below):  # never leave them to the next test
            os.kill(p, signal.SIGKILL)
        proc.wait(timeout=10)


def test_kill_9_of_a_pool_owner_ends_its_workers():
    proc = subprocess.Popen([sys.executable, "-c", POOL], cwd=ROOT, env=ENV, stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "ready"
    below = descendants(proc.pid)
    assert len(below) == 4  # the resource tracker, the forkserver and its two workers
    kill_and_watch(proc, below)


def test_kill_9_of_an_ingest_ends_its_workers(tmp_path):
    logs = tmp_path / "logs.jsonl"
    with logs.open("w", encoding="utf-8") as fh:  # ~8,000 games: far more than the seconds until the kill
        for i in range(8000):
            fh.write(json.dumps({**SHORT, "game_id": f"orphan-{i}"}, ensure_ascii=False) + "\n")
    script = ("import sys; from ingest.run import ingest; "
              "ingest([sys.argv[1]], sys.argv[2], workers=2, progress=False, min_pool_bytes=0, chunk_lines=16)")
    proc = subprocess.Popen([sys.executable, "-c", script, str(logs), str(tmp_path / "wh")], cwd=ROOT, env=ENV,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    below: set[int] = set()
    while time.monotonic() < deadline and proc.poll() is None:
        below = descendants(proc.pid)
        if len(below) >= 4:  # tracker + forkserver + both workers
            break
        time.sleep(0.05)
    assert proc.poll() is None, proc.stderr.read().decode()
    time.sleep(0.3)  # let the workers take chunks: they die busy, not idle
    kill_and_watch(proc, below | descendants(proc.pid))
    run = next((tmp_path / "wh" / "_meta" / "ingest_runs").glob("*.json"))
    assert json.loads(run.read_text("utf-8"))["status"] == "running"  # it was killed mid-run
