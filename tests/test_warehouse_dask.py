"""``--engine dask``: a 2-worker local Dask cluster gives the same warehouse, row for row
and partition for partition, as the process pool. The workers write the staged rows
themselves (``ingest.run.stage_chunk``); a run whose workers all die (kill -9, no nanny to restart
them) fails within ``PAIPU_DASK_LOST_SECONDS`` with a clear error and commits nothing, and the rerun
equals a clean ingest row for row; one worker killed mid-run changes nothing. Skipped when the
``dask`` extra is not installed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ingest.run import ingest
from ingest.warehouse import data_files, read_rows

pytestmark = pytest.mark.long  # started first (tests/conftest.py)

pytest.importorskip("distributed")

ROOT = Path(__file__).resolve().parent.parent
SHORT = json.loads((ROOT / "data" / "guilin-short.jsonl").read_bytes())
TABLES = ("games", "seats", "actions", "melds", "xing", "rejects")


def test_dask_and_process_pool_write_the_same_tables(tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    for f in range(3):
        lines = [json.dumps({**SHORT, "game_id": f"g{f}-{i}"}) for i in range(40)]
        lines += [json.dumps({**SHORT, "game_id": "g0-1", "round": f}), "{nope", json.dumps({**SHORT, "game_id": "g0-2"})]
        (logs / f"f{f}.jsonl").write_text("\n".join(lines) + "\n")
    kw = dict(workers=2, progress=False, chunk_lines=8)
    pool = ingest([logs], tmp_path / "pool", min_pool_bytes=0, **kw)
    dask = ingest([logs], tmp_path / "dask", engine="dask", **kw)
    assert (pool.workers, dask.workers, dask.engine) == (2, 2, "dask")
    assert pool.to_json()["total"] == dask.to_json()["total"]
    t = dask.total()
    assert (t.read, t.valid, t.rejected, t.duplicate) == (129, 120, 3, 6)
    for name in TABLES:
        a = [{k: v for k, v in r.items() if k != "ingested_at"} for r in read_rows(tmp_path / "pool", name)]
        b = [{k: v for k, v in r.items() if k != "ingested_at"} for r in read_rows(tmp_path / "dask", name)]
        assert a == b, name  # same rows in the same order: the same shards
    folders = lambda w: sorted({p.parent.relative_to(w).as_posix() for n in TABLES for p in data_files(w, n)})
    assert folders(tmp_path / "pool") == folders(tmp_path / "dask") != []  # the same partitions


# --- workers that die -------------------------------------------------------------------------------
import os  # noqa: E402
import signal  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

DASK = Path(sys.executable).parent / "dask"
CLI = "import sys; from paipu.cli import main; sys.argv[0] = 'paipu'; main()"


def many_logs(folder: Path, n: int) -> Path:
    folder.mkdir()
    lines = [json.dumps({**SHORT, "game_id": f"d{i}"}) for i in range(n)] + ["{nope", json.dumps({**SHORT, "game_id": "d1"})]
    (folder / "big.jsonl").write_text("\n".join(lines) + "\n")
    return folder


@pytest.fixture
def scheduler():
    """A scheduler alone (no workers: the tests start and kill their own, without nannies that
    would restart them)."""
    from distributed import LocalCluster

    cluster = LocalCluster(n_workers=0, processes=False, protocol="tcp", host="127.0.0.1", dashboard_address=None,
                           silence_logs=40)
    yield cluster.scheduler_address
    cluster.close()


def start_workers(address: str, n: int) -> list[subprocess.Popen]:
    from distributed import Client

    procs = [subprocess.Popen([str(DASK), "worker", address, "--nthreads", "1", "--no-nanny", "--no-dashboard",
                               "--memory-limit", "0"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
             for _ in range(n)]
    with Client(address) as c:
        c.wait_for_workers(n, timeout=60)
    return procs


def staged_parts(wh: Path) -> int:
    return sum(1 for _ in (wh / "_staging").glob("*/f*.arrow"))


def clean_rows(wh: Path) -> dict[str, list]:
    return {t: [{k: v for k, v in r.items() if k != "ingested_at"} for r in read_rows(wh, t)] for t in TABLES}


def spawn_ingest(logs: Path, wh: Path, address: str) -> subprocess.Popen:
    env = {**os.environ, "PAIPU_DASK_LOST_SECONDS": "5", "PAIPU_PROGRESS_SECONDS": "3600"}
    return subprocess.Popen([sys.executable, "-c", CLI, "ingest", str(logs), "--warehouse", str(wh), "--engine", "dask",
                             "--scheduler", address, "--workers", "2"], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)


def kill_when_staging(p: subprocess.Popen, wh: Path, workers: list[subprocess.Popen]) -> None:
    deadline = time.monotonic() + 300
    while staged_parts(wh) < 4:  # the workers have written rows: mid-run
        assert p.poll() is None, p.stdout.read().decode()
        assert time.monotonic() < deadline, "no staged part written"
        time.sleep(0.05)
    for w in workers:
        os.kill(w.pid, signal.SIGKILL)
        w.wait()


def start_run(tmp_path: Path, scheduler: str, kill: int) -> tuple[Path, Path, Path, subprocess.Popen, list]:
    """Logs of 4,002 lines, their clean ingest, and a ``--engine dask`` ingest of them on two
    workers of which ``kill`` are killed (-9) once staged parts show the run is under way."""
    logs = many_logs(tmp_path / "logs", 4000)
    clean = tmp_path / "clean"
    ingest([logs], clean, workers=1, progress=False)
    wh = tmp_path / "wh"
    workers = start_workers(scheduler, 2)
    p = spawn_ingest(logs, wh, scheduler)
    kill_when_staging(p, wh, workers[:kill])
    return logs, clean, wh, p, workers


def test_a_run_whose_dask_workers_all_die_fails_within_a_bound_and_a_rerun_completes(tmp_path, scheduler):
    logs, clean, wh, p, _ = start_run(tmp_path, scheduler, kill=2)
    t0 = time.monotonic()
    out, _ = p.communicate(timeout=300)
    waited = time.monotonic() - t0
    text = " ".join(out.decode().split())
    assert p.returncode == 1, text
    assert "every Dask worker of the cluster is gone" in text and "nothing of this run was committed" in text
    assert waited < 5 + 60, waited  # PAIPU_DASK_LOST_SECONDS=5, then shutting down (a loaded machine)
    assert read_rows(wh, "games") == [] and read_rows(wh, "rejects") == []
    assert [r["status"] for r in read_rows(wh, "ingest_runs")] == ["running"]  # its start, nothing more
    assert not any((wh / "_staging").iterdir())  # the failed run removed its staging folder

    workers = start_workers(scheduler, 2)
    try:
        rep = ingest([logs], wh, engine="dask", scheduler=scheduler, progress=False)
    finally:
        for w in workers:
            w.kill()
            w.wait()
    assert rep.recovered[:1] == [f"marked run {read_rows(wh, 'ingest_runs')[0]['run_id']} interrupted"]
    assert sorted(r["status"] for r in read_rows(wh, "ingest_runs")) == ["done", "interrupted"]
    assert clean_rows(wh) == clean_rows(clean)


def test_a_dask_worker_killed_mid_run_changes_nothing(tmp_path, scheduler):
    logs, clean, wh, p, workers = start_run(tmp_path, scheduler, kill=1)  # its chunks run again on the other
    try:
        out, _ = p.communicate(timeout=600)
        assert p.returncode == 0, out.decode()
    finally:
        for w in workers:
            w.kill()
            w.wait()
    assert clean_rows(wh) == clean_rows(clean)
    t = next(r for r in read_rows(wh, "ingest_runs") if r["status"] == "done")
    assert (t["read"], t["valid"], t["rejected"], t["duplicate"]) == (4002, 4000, 1, 1)
