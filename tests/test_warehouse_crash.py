"""Crash safety: ``kill -9`` an ingest at random moments, rerun it, and get exactly
the tables of a clean run — no loss, no duplicates, no staging left; a run dies inside its DuckLake
transaction: the warehouse keeps its last snapshot, whole, and a rerun completes it."""

from __future__ import annotations

import gzip
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import ingest.warehouse as warehouse
from ingest.run import ingest
from ingest.warehouse import read_rows

pytestmark = pytest.mark.long  # started first (tests/conftest.py)

ROOT = Path(__file__).resolve().parent.parent
SHORT = json.loads((ROOT / "data" / "guilin-short.jsonl").read_bytes())
TABLES = ("games", "seats", "actions", "melds", "xing", "rejects")
SCRIPT = ("import sys; from ingest.run import ingest; "
          "ingest(sys.argv[1:-1], sys.argv[-1], workers=1, progress=False, max_line_bytes=4096, chunk_lines=8)")


class Killed(BaseException):
    """Stands for a kill: no `except Exception` in ingest catches it."""


def rec(gid: str, **extra) -> str:
    return json.dumps({**SHORT, "game_id": gid, **extra}, ensure_ascii=False)


def make_inputs(folder: Path) -> Path:
    """Eight files of 30 lines: games, repeats across files, a conflict, rejects, a cut .gz."""
    folder.mkdir()
    for f in range(8):
        lines = [rec(f"g{f}-{i}") for i in range(26)]
        lines += [rec(f"g{(f + 1) % 8}-0"), rec("shared", round=f), "{oops", rec(f"g{f}-1", stake=2)]
        data = "\n".join(lines).encode() + b"\n"
        if f == 7:
            (folder / f"f{f}.jsonl.gz").write_bytes(gzip.compress(data)[:-40])
        else:
            (folder / f"f{f}.jsonl").write_bytes(data)
    return folder


def snapshot(wh: Path) -> dict[str, list[str]]:
    return {t: sorted(json.dumps({k: v for k, v in r.items() if k != "ingested_at"}, sort_keys=True, default=str)
                      for r in read_rows(wh, t)) for t in TABLES}


def spawn(inputs: Path, wh: Path) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-c", SCRIPT, str(inputs), str(wh)], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def test_kill_and_rerun_gives_the_clean_tables(tmp_path):
    inputs = make_inputs(tmp_path / "logs")
    clean = tmp_path / "clean"
    t0 = time.monotonic()
    p = spawn(inputs, clean)
    assert p.wait(timeout=60) == 0, p.stderr.read().decode()
    took = time.monotonic() - t0
    want = snapshot(clean)
    # f7.jsonl.gz is cut inside its line 28: 27 lines, then one reject for the cut
    assert len(want["games"]) == 8 * 26 + 1 and len(want["rejects"]) == 13 + 1 + 1
    assert sum(1 for r in read_rows(clean, "rejects") if r["code"] == "duplicate_game") == 6 + 7

    wh = tmp_path / "wh"
    rng = random.Random(7)
    killed_mid_run = 0
    for _ in range(5):
        p = spawn(inputs, wh)
        time.sleep(rng.uniform(0.25, 0.95) * took)
        p.send_signal(signal.SIGKILL)
        rc = p.wait(timeout=60)
        killed_mid_run += rc == -signal.SIGKILL
        # whatever the moment, the warehouse holds the whole run or nothing of it (one transaction)
        got = snapshot(wh)
        assert got == want or got == {t: [] for t in TABLES}
    assert killed_mid_run >= 3  # most kills landed inside a run
    p = spawn(inputs, wh)
    assert p.wait(timeout=60) == 0, p.stderr.read().decode()
    assert snapshot(wh) == want
    assert not list((wh / "_staging").iterdir())  # the killed runs' staging folders were removed
    runs = [json.loads(f.read_text()) for f in (wh / "_meta" / "ingest_runs").glob("*.json")]
    assert {r["status"] for r in runs} <= {"done", "interrupted"} and not any(r["status"] == "running" for r in runs)
    assert sum(r["status"] == "done" for r in runs) >= 1
    rows = read_rows(wh, "ingest_runs")
    assert sorted(r["run_id"] for r in rows) == sorted(r["run_id"] for r in runs)  # each run is a row
    full = next(r for r in rows if r["status"] == "done")
    assert (full["n_files"], full["read"], full["lines"]) == (8, 238, 238)
    for r in rows:
        if r["status"] == "interrupted":  # counts of the files it had committed before the kill
            assert r["finished_at"] is None and r["read"] <= 238 and r["n_files"] <= 8
            assert r["read"] == r["valid"] + r["invalid"] + r["rejected"] + r["duplicate"]


@pytest.mark.parametrize("fail_after", [0, 1, 3, 7])
def test_a_run_that_dies_inside_its_transaction_leaves_the_last_snapshot(tmp_path, monkeypatch, fail_after):
    inputs = make_inputs(tmp_path / "logs")
    clean = tmp_path / "clean"
    ingest([inputs], clean, workers=1, progress=False, max_line_bytes=4096)
    want = snapshot(clean)

    wh = tmp_path / "wh"
    ingest([inputs / "f0.jsonl"], wh, workers=1, progress=False, max_line_bytes=4096)
    before = snapshot(wh)
    real = warehouse.Warehouse.insert
    calls = {"n": 0}

    def dying_insert(self, table, rows):  # the process "dies" after `fail_after` inserts of its commit
        if table != "ingest_runs" and calls["n"] >= fail_after:
            raise Killed("killed")
        calls["n"] += table != "ingest_runs"
        return real(self, table, rows)

    monkeypatch.setattr(warehouse.Warehouse, "insert", dying_insert)
    monkeypatch.setattr(warehouse.shutil, "rmtree", lambda *a, **k: None)  # a kill cleans up nothing
    with pytest.raises(Killed):
        ingest([inputs], wh, workers=1, progress=False, max_line_bytes=4096)
    monkeypatch.undo()
    assert snapshot(wh) == before  # nothing of the dead run: its transaction never committed
    assert [r["status"] for r in read_rows(wh, "ingest_runs")] == ["done", "running"]
    rep = ingest([inputs], wh, workers=1, progress=False, max_line_bytes=4096)
    assert any(r.startswith("marked run") and r.endswith("interrupted") for r in rep.recovered)
    assert any(r.startswith("removed the staging folder") for r in rep.recovered)
    assert snapshot(wh) == want
    assert sorted(r["status"] for r in read_rows(wh, "ingest_runs")) == ["done", "done", "interrupted"]
