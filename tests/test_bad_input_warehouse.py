"""The warehouse against hostile surroundings: DuckDB's file access stays locked to
the warehouse (its temp folder is private, never ``<cwd>/.tmp/``); a Parquet file or a symlink to
one outside, planted in a DuckLake data folder, is never read (only files the catalog lists are);
in a plain-Parquet warehouse such a link is skipped with a warning; a compaction and an ingest run
side by side (no lock)."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import typer
from typer.testing import CliRunner

from ingest.cli import compact_cmd
from ingest.run import ingest
from ingest.views import connect
from ingest.warehouse import OutsideShardWarning, Warehouse, compact, data_files, read_rows

ROOT = Path(__file__).resolve().parent.parent
SHORT = ROOT / "data" / "guilin-short.jsonl"


@pytest.fixture()
def wh(tmp_path) -> Path:
    root = tmp_path / "wh"
    ingest([SHORT], root, workers=1, progress=False)
    return root


def _fails(con, sql: str) -> str:
    with pytest.raises(duckdb.Error) as e:
        con.sql(sql).fetchall()
    return str(e.value)


def test_file_access_is_the_warehouse_only(wh, tmp_path, monkeypatch):
    cwd = tmp_path / "cwd"
    (cwd / ".tmp").mkdir(parents=True)
    (cwd / ".tmp" / "secret.txt").write_text("secret")
    (tmp_path / "beside.txt").write_text("beside")
    monkeypatch.chdir(cwd)
    con = connect(wh)
    temp = Path(con.sql("SELECT current_setting('temp_directory')").fetchall()[0][0])
    allowed = con.sql("SELECT current_setting('allowed_directories')").fetchall()[0][0]
    # the temp folder is private: inside a folder only this user may enter, not the cwd
    assert temp.is_absolute() and cwd not in temp.parents and wh not in temp.parents
    assert stat.S_IMODE(temp.parent.stat().st_mode) == 0o700 and temp.parent.stat().st_uid == os.getuid()
    assert sorted(allowed) == sorted([f"{wh.resolve()}/", f"{temp}/"])
    for target in (cwd / ".tmp" / "x.csv", Path(".tmp/y.csv"), cwd / "z.csv", tmp_path / "w.csv"):
        _fails(con, f"COPY (SELECT 42) TO '{target}'")
        assert not (cwd / target).exists()
    for target in (cwd / ".tmp" / "secret.txt", ".tmp/secret.txt", tmp_path / "beside.txt", "/etc/hostname"):
        _fails(con, f"SELECT * FROM read_text('{target}')")
    for sql in ("SET temp_directory = '.tmp'", "SET allowed_directories = ['/']", "SET enable_external_access = true"):
        assert "queries only, not SET" in _fails(con, sql)  # refused before DuckDB, whose settings are locked too
        assert "locked" in _fails(con._con, sql)
    # the warehouse itself still reads
    assert con.sql("SELECT count(*) FROM games").fetchall() == [(1,)]
    (record,) = (wh / "_meta" / "ingest_runs").glob("*.json")
    assert con.sql(f"SELECT count(*) FROM read_text('{record}')").fetchall() == [(1,)]
    con.close()


def test_files_planted_in_the_data_folders_are_never_read(wh, tmp_path):
    (data,) = data_files(wh, "games")
    outside = tmp_path / "outside.parquet"
    shutil.copy(data, outside)
    (data.parent / "ducklake-planted.parquet").symlink_to(outside)
    shutil.copy(data, data.parent / "ducklake-copy.parquet")
    con = connect(wh)
    assert con.sql("SELECT count(*), min(game_id) FROM games").fetchall() == [(1, "example-guilin-1")]
    con.close()
    assert len(read_rows(wh, "games")) == 1
    compact(wh, keep_days=0)  # DuckLake's maintenance merges what the catalog lists, nothing else
    assert len(read_rows(wh, "games")) == 1 and outside.exists()


def test_a_plain_parquet_shard_symlinked_outside_is_skipped(tmp_path):
    """The views of a warehouse of the layout before DuckLake (read until `paipu migrate`)."""
    wh = tmp_path / "plain"
    (wh / "games" / "variant=guilin" / "month=2026-11").mkdir(parents=True)
    table = pa.table({"game_id": ["inside"]})
    pq.write_table(table, wh / "games" / "variant=guilin" / "month=2026-11" / "a-0000.parquet")
    outside = tmp_path / "outside.parquet"
    pq.write_table(pa.table({"game_id": ["outside"]}), outside)
    link = wh / "games" / "variant=guilin" / "month=2026-11" / "ffffffffffffffffffff-0000.parquet"
    link.symlink_to(outside)
    with pytest.warns(OutsideShardWarning, match="outside the warehouse") as got:
        con = connect(wh)
    assert str(link) in {str(w.message.path) for w in got}
    assert con.sql("SELECT count(*), min(game_id) FROM games").fetchall() == [(1, "inside")]
    con.close()


def test_an_ingest_and_a_compaction_side_by_side(wh):
    app = typer.Typer()
    app.command()(compact_cmd)
    with Warehouse(wh, check_pseudonym=False):  # another writer has the catalog open
        assert ingest([SHORT], wh, workers=1, progress=False).status == "done"
        res = CliRunner().invoke(app, ["--warehouse", str(wh)])
        assert res.exit_code == 0, res.output
    assert len(read_rows(wh, "games")) == 1


def test_a_damaged_catalog_is_a_clear_error_in_every_command(wh, tmp_path, monkeypatch):
    """``catalog.sqlite`` overwritten with other bytes: every command that opens the warehouse
    exits 1 with one line naming the catalog and SQLite's reason — no traceback — and the
    dashboard says so instead of raising."""
    from apptest_util import open_page, page_text

    from paipu.cli import app

    (wh / "catalog.sqlite").write_bytes(b"not a database, " * 64)
    runner = CliRunner()
    commands = {
        "ingest": ["ingest", str(SHORT), "--warehouse", str(wh)],
        "compact": ["compact", "--warehouse", str(wh)],
        "snapshots": ["snapshots", "--warehouse", str(wh)],
        "report": ["report", "--warehouse", str(wh)],
        "audit": ["audit", "g1", "--warehouse", str(wh)],
        "rescore": ["rescore", "--warehouse", str(wh), "--variant", "guilin", "--b", "zimo_bonus=double"],
        "tune": ["tune", "--variant", "guilin", "--a", "", "--b", "xing_mode=fanxing", "--games", "2",
                 "--warehouse", str(wh), "--experiments", str(tmp_path / "exp")],
    }
    for name, args in commands.items():
        res = runner.invoke(app, args)
        out = "".join(res.output.split())  # the console wraps lines, within words too
        assert res.exit_code == 1, (name, res.output)
        assert isinstance(res.exception, SystemExit), (name, res.exception)  # exited, did not raise
        assert f"cannotopenthecatalogsqlite:{wh / 'catalog.sqlite'}" in out, (name, out)
        assert "notadatabase" in out, (name, out)
        assert "Traceback" not in res.output, name
    at = open_page(monkeypatch, wh, "screens/overview.py")
    assert "The warehouse's catalog cannot be opened" in page_text(at) and "not a database" in page_text(at)
