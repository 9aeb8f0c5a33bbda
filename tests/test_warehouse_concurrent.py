"""Many writers: 2 and 4 ingests running at once into one warehouse lose and double
nothing — games repeated across their files stored once, a conflicting one one game and one
`duplicate_game` reject, exactly as one serial ingest of all files gives — on the embedded SQLite
catalog (whose commits take turns: a run waiting for its turn says so) and on a real PostgreSQL
catalog (tests/pg_server.py; optimistic commits, conflicts retried); a reader polling during an
ingest sees only whole runs."""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ingest.run import ingest
from ingest.views import connect
from ingest.warehouse import COMMIT_LOCK, META, read_rows

pytestmark = pytest.mark.long  # started first (tests/conftest.py)

ROOT = Path(__file__).resolve().parent.parent
SHORT = json.loads((ROOT / "data" / "guilin-short.jsonl").read_bytes())
SCRIPT = ("import os, sys; from ingest.run import ingest; r = ingest(sys.argv[1:-1], sys.argv[-1], workers=1, "
          "progress=False, chunk_lines=8, catalog=os.environ.get('CATALOG') or None); print(r.commit_attempts)")
CATALOGS = ["sqlite", "postgres"]


def catalog_for(kind: str, request) -> str | None:
    """None (the embedded SQLite default) or ``postgres:…`` of a new database on the test server."""
    return request.getfixturevalue("pg_catalog") if kind == "postgres" else None


def rec(gid: str, **changes) -> str:
    return json.dumps({**SHORT, "game_id": gid, **changes}, ensure_ascii=False)


def make_logs(folder: Path, n: int) -> list[Path]:
    """``n`` files: 20 games of their own, 5 shared by every file (same bytes), one game shared
    with other content (a conflict), one bad line."""
    folder.mkdir()
    out = []
    for f in range(n):
        lines = [rec(f"w{f}-{i}") for i in range(20)] + [rec(f"shared-{i}") for i in range(5)]
        lines += [rec("contested", round=f), f"{{bad {f}"]
        p = folder / f"server{f}.jsonl"
        p.write_text("\n".join(lines) + "\n")
        out.append(p)
    return out


def spawn(paths: list[Path], wh: Path, catalog: str | None = None, stderr=subprocess.PIPE) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "CATALOG": catalog or ""}
    return subprocess.Popen([sys.executable, "-c", SCRIPT, *map(str, paths), str(wh)], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=stderr)


def shape(wh: Path) -> dict[str, object]:
    games = read_rows(wh, "games")
    rejects = read_rows(wh, "rejects")
    return {"game_ids": sorted(g["game_id"] for g in games),
            "rows": {t: len(read_rows(wh, t)) for t in ("seats", "actions", "melds", "xing")},
            "rejects": sorted((r["code"], r["game_id"]) for r in rejects)}


@pytest.mark.parametrize("kind", CATALOGS)
@pytest.mark.parametrize("writers", [2, 4])
def test_concurrent_ingests_lose_and_double_nothing(tmp_path, writers, kind, request):
    catalog = catalog_for(kind, request)
    logs = make_logs(tmp_path / "logs", writers)
    serial = tmp_path / "serial"
    ingest(logs, serial, workers=1, progress=False)
    want = shape(serial)
    assert len(want["game_ids"]) == 20 * writers + 5 + 1
    wh = tmp_path / "wh"
    procs = [spawn([p], wh, catalog) for p in logs]
    attempts = []
    for p in procs:
        out, err = p.communicate(timeout=600)
        assert p.returncode == 0, err.decode()
        attempts.append(int(out.split()[-1]))
    if not catalog:  # the embedded catalog's commits take turns: none conflicts
        assert attempts == [1] * writers
    if catalog:
        assert json.loads((wh / META / "catalog.json").read_text())["catalog"] == catalog
        assert not (wh / "catalog.sqlite").exists()
    assert shape(wh) == want
    runs = read_rows(wh, "ingest_runs")
    assert len(runs) == writers and {r["status"] for r in runs} == {"done"}
    # every line counted once over the runs: stored games = valid + invalid
    assert sum(r["valid"] + r["invalid"] for r in runs) == len(want["game_ids"])
    assert sum(r["duplicate"] for r in runs) == 5 * (writers - 1)
    assert sum(r["read"] for r in runs) == 27 * writers


@pytest.mark.parametrize("kind", CATALOGS)
def test_a_reader_polling_during_an_ingest_sees_whole_runs(tmp_path, kind, request):
    catalog = catalog_for(kind, request)
    logs = make_logs(tmp_path / "logs", 4)
    wh = tmp_path / "wh"
    ingest([logs[0]], wh, workers=1, progress=False, catalog=catalog)
    con = connect(wh)  # one long-lived reader, as the dashboard's; each query sees one snapshot
    both = "SELECT (SELECT count(*) FROM games), (SELECT count(*) FROM seats)"
    first = con.sql(both).fetchone()
    p = spawn(logs[1:], wh)  # the warehouse remembers its catalog
    seen = set()
    while p.poll() is None:
        seen.add(con.sql(both).fetchone())
        time.sleep(0.05)
    assert p.returncode == 0, p.stderr.read().decode()
    final = con.sql(both).fetchone()
    con.close()
    assert first == (26, 78) and final == (4 * 20 + 6, 3 * (4 * 20 + 6))
    assert seen <= {first, final}  # never part of the run (its three files commit together)


def test_an_ingest_into_a_busy_embedded_warehouse_waits_its_turn(tmp_path):
    """While another process holds the embedded catalog's commit turn, an ingest replays, says it
    is waiting (naming the holder) and commits nothing; once the turn is free it completes."""
    logs = make_logs(tmp_path / "logs", 2)
    wh = tmp_path / "wh"
    ingest([logs[0]], wh, workers=1, progress=False)
    before = len(read_rows(wh, "games"))
    fd = os.open(wh / META / COMMIT_LOCK, os.O_RDWR)
    fcntl.flock(fd, fcntl.LOCK_EX)
    os.ftruncate(fd, 0)
    os.pwrite(fd, b"run held-by-the-test", 0)
    err = tmp_path / "stderr"
    try:
        with open(err, "wb") as f:
            p = spawn([logs[1]], wh, stderr=f)
        deadline = time.monotonic() + 300
        while b"waiting for the commit of run held-by-the-test" not in err.read_bytes():
            assert p.poll() is None, err.read_text()
            assert time.monotonic() < deadline, "no waiting message"
            time.sleep(0.1)
        time.sleep(1)
        assert p.poll() is None and len(read_rows(wh, "games")) == before == 26
    finally:
        os.close(fd)  # releases the turn
    out, _ = p.communicate(timeout=300)
    assert p.returncode == 0, err.read_text()
    assert out.decode().split() == ["1"]  # committed at its first attempt: no conflict to retry
    # its 20 own games; its 5 shared ones are duplicates, its contested one a duplicate_game reject
    assert len(read_rows(wh, "games")) == 26 + 20
    assert sorted(r["code"] for r in read_rows(wh, "rejects")) == ["bad_json", "bad_json", "duplicate_game"]


def test_the_first_attach_race_is_a_conflict():
    """Two writers attaching a new, empty PostgreSQL catalog at once both create DuckLake's tables;
    the loser's error is retried (seen in CI with 4 writers), an unrelated one is not."""
    from ingest.warehouse import is_conflict

    assert is_conflict(RuntimeError('Failed to initialize DuckLake: Failed to execute query "CREATE TABLE '
                                    '"public"."ducklake_metadata"(…)": ERROR:  relation "ducklake_metadata" already exists'))
    assert is_conflict(RuntimeError('ERROR:  duplicate key value violates unique constraint "pg_type_typname_nsp_index"'))
    assert not is_conflict(RuntimeError('Catalog Error: Table with name games already exists!'))
    assert not is_conflict(RuntimeError("IO Error: could not open file"))


def test_the_first_attach_of_a_new_embedded_catalog_takes_the_turn(tmp_path):
    """A writer opening a warehouse whose SQLite catalog DuckLake has not set up yet attaches in
    the commit turn (``make bench`` saw the second of two writers starting on a new warehouse fail
    to open it): while the turn is held it creates nothing; once free it sets the catalog up, and
    a later open needs no turn."""
    import threading

    from ingest.warehouse import SQLITE_CATALOG, Warehouse, _sqlite_new

    wh = tmp_path / "wh"
    (wh / META).mkdir(parents=True)
    catalog = f"sqlite:{wh / SQLITE_CATALOG}"
    assert _sqlite_new(catalog) and not _sqlite_new("postgres:host=db")
    fd = os.open(wh / META / COMMIT_LOCK, os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX)
    errors: list[BaseException] = []

    def open_it() -> None:
        try:
            with Warehouse(wh):
                pass
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    t = threading.Thread(target=open_it)
    try:
        t.start()
        time.sleep(2)
        assert t.is_alive() and not (wh / SQLITE_CATALOG).exists()
    finally:
        os.close(fd)  # releases the turn
    t.join(120)
    assert not t.is_alive() and errors == []
    assert not _sqlite_new(catalog)  # set up: the next open attaches without the turn


def test_a_failed_attach_is_retried_on_a_new_connection(tmp_path, monkeypatch):
    """An attach that fails with a conflict can leave its connection in an aborted transaction;
    the retry runs on a new connection, so it meets the catalog, not "Current transaction is
    aborted" (which is no conflict, and ended the open)."""
    import ingest.warehouse as warehouse

    real = warehouse.attach
    calls = []

    def flaky(con, *args, **kwargs):
        calls.append(con)
        if len(calls) == 1:  # a conflict inside a transaction, as a catalog busy mid-probe leaves it
            con.execute("BEGIN TRANSACTION")
            con.execute("SELECT error('database is locked')")
        return real(con, *args, **kwargs)

    monkeypatch.setattr(warehouse, "attach", flaky)
    with warehouse.Warehouse(tmp_path / "wh") as w:
        assert w.count("games") == 0
    assert len(calls) == 2 and calls[0] is not calls[1]
