"""A warehouse folder opens wherever it is: moved with ``mv``, or copied with
``cp -r`` (a backup restored elsewhere, the original gone), ``paipu report``, ``paipu ingest`` of a
new file, ``paipu compact`` and ``paipu check`` work there and find every row; a copy is a warehouse
of its own. With a PostgreSQL catalog the folder moves the same way (the catalog stays where it is)."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import msgspec
import pytest
from typer.testing import CliRunner

from ingest.schema import TABLES
from ingest.views import connect
from ingest.warehouse import extension_path, lit, read_rows
from paipu.cli import app
from replay.simulator import simulate

pytestmark = pytest.mark.long  # started first (tests/conftest.py)


def _log(path: Path, variant: str, seed: int, n: int = 3) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(msgspec.json.encode(r) + b"\n" for r in simulate(variant, n, seed, "heuristic", {})))
    return path


def _run(*args: object) -> str:
    res = CliRunner().invoke(app, [str(a) for a in args])
    assert res.exit_code == 0, (args, res.output)
    return res.output


def _rows(wh: Path) -> dict[str, list]:
    return {t: sorted(repr(sorted((k, v) for k, v in r.items() if k != "ingested_at")) for r in read_rows(wh, t))
            for t in TABLES}


def _ids(wh: Path) -> set[str]:
    return {r["game_id"] for r in read_rows(wh, "games")}


def _works_at(wh: Path, before: dict[str, list], new_log: Path) -> None:
    """Every row is found at ``wh``; a new file ingests, compaction and the check pass, rows kept."""
    assert _rows(wh) == before
    assert "games" in _run("report", "--warehouse", wh)
    want = _ids(wh) | {msgspec.json.decode(ln)["game_id"] for ln in new_log.read_bytes().splitlines()}
    _run("ingest", new_log, "--warehouse", wh)
    assert _ids(wh) == want
    after = _rows(wh)
    assert all(set(before[t]) <= set(after[t]) for t in TABLES)
    _run("compact", "--warehouse", wh, "--keep-days", "0")
    assert _rows(wh) == after
    assert "all there" in _run("check", "--warehouse", wh)


def test_a_moved_warehouse_opens_where_it_is(tmp_path):
    old = tmp_path / "a" / "wh"
    _run("ingest", _log(tmp_path / "logs" / "guilin1.jsonl", "guilin", 1), "--warehouse", old)
    _run("compact", "--warehouse", old)
    _run("ingest", _log(tmp_path / "logs" / "guilin2.jsonl", "guilin", 2), "--warehouse", old)
    before = _rows(old)
    new = tmp_path / "b" / "moved"
    new.parent.mkdir()
    subprocess.run(["mv", str(old), str(new)], check=True)
    assert not old.exists()
    _works_at(new, before, _log(tmp_path / "logs" / "zipai3.jsonl", "zipai", 3))

    # another DuckDB reads it as docs/warehouse.md says: the folder's data path, overriding the recorded one
    con = duckdb.connect()
    con.execute(f"LOAD {lit(extension_path('ducklake'))}")
    con.execute(f"LOAD {lit(extension_path('sqlite'))}")
    con.execute(f"ATTACH {lit('ducklake:sqlite:' + str(new / 'catalog.sqlite'))} AS lake "
                f"(DATA_PATH {lit(str(new / 'data') + '/')}, OVERRIDE_DATA_PATH true, READ_ONLY)")
    assert con.sql("SELECT count(*) FROM lake.games").fetchone()[0] == len(_ids(new))
    con.close()


def test_a_copy_is_a_warehouse_of_its_own_and_a_backup_restores_anywhere(tmp_path):
    wh = tmp_path / "wh"
    _run("ingest", _log(tmp_path / "logs" / "guilin1.jsonl", "guilin", 1), "--warehouse", wh)
    before = _rows(wh)
    backup = tmp_path / "backup" / "wh"
    backup.parent.mkdir()
    subprocess.run(["cp", "-r", str(wh), str(backup)], check=True)

    copy = tmp_path / "copy"
    subprocess.run(["cp", "-r", str(wh), str(copy)], check=True)
    _works_at(copy, before, _log(tmp_path / "logs" / "zipai4.jsonl", "zipai", 4))
    assert _rows(wh) == before  # the copy's writes never reach the original

    shutil.rmtree(wh)  # the disk is lost: the backup restores elsewhere
    restored = tmp_path / "elsewhere" / "restored"
    restored.parent.mkdir()
    subprocess.run(["cp", "-r", str(backup), str(restored)], check=True)
    _works_at(restored, before, _log(tmp_path / "logs" / "zipai5.jsonl", "zipai", 5))


def test_a_folder_with_a_postgresql_catalog_moves_too(tmp_path, pg_catalog):
    old = tmp_path / "a" / "wh"
    _run("ingest", _log(tmp_path / "logs" / "guilin1.jsonl", "guilin", 1), "--warehouse", old, "--catalog", pg_catalog)
    before = _rows(old)
    new = tmp_path / "b" / "wh"
    new.parent.mkdir()
    subprocess.run(["mv", str(old), str(new)], check=True)
    _works_at(new, before, _log(tmp_path / "logs" / "zipai6.jsonl", "zipai", 6))


def test_a_backup_taken_while_a_reader_is_open_restores_anywhere(tmp_path):
    """docs/warehouse.md's live backup: under the commit lock, SQLite's online backup of the catalog
    (its latest commits may still be in the WAL while a reader is open), then the data."""
    wh = tmp_path / "wh"
    _run("ingest", _log(tmp_path / "logs" / "guilin1.jsonl", "guilin", 1), "--warehouse", wh)
    reader = connect(wh)  # a dashboard: the catalog stays open, in WAL mode
    reader.sql("SELECT count(*) FROM games").fetchall()
    _run("ingest", _log(tmp_path / "logs" / "guilin2.jsonl", "guilin", 2), "--warehouse", wh)
    before = _rows(wh)
    backup = tmp_path / "backup"
    backup.mkdir()
    copy_catalog = (f"{shlex.quote(sys.executable)} -c 'import sqlite3, sys; "
                    f"sqlite3.connect(sys.argv[1]).backup(sqlite3.connect(sys.argv[2]))' "
                    f"{shlex.quote(str(wh / 'catalog.sqlite'))} {shlex.quote(str(backup / 'catalog.sqlite'))}")
    subprocess.run(["flock", str(wh / "_meta" / "commit.lock"), "sh", "-c",
                    f"{copy_catalog} && cp -a {shlex.quote(str(wh / 'data'))} {shlex.quote(str(wh / '_meta'))} "
                    f"{shlex.quote(str(backup))}/"], check=True)
    reader.close()
    restored = tmp_path / "elsewhere" / "wh"
    restored.parent.mkdir()
    subprocess.run(["mv", str(backup), str(restored)], check=True)
    _works_at(restored, before, _log(tmp_path / "logs" / "zipai7.jsonl", "zipai", 7))
