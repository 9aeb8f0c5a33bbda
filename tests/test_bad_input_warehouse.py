"""The warehouse against hostile surroundings (issue 20): DuckDB's file access stays locked to the
warehouse (its temp folder is private, never ``<cwd>/.tmp/``), a shard symlinked to a file outside
the warehouse is skipped with a warning instead of making every table unreadable, and an ingest
blocked by a running compaction names what holds the lock."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import duckdb
import pytest
import typer
from typer.testing import CliRunner

from analytics.views import connect
from ingest.cli import compact_cmd, ingest_cmd
from ingest.run import ingest
from ingest.warehouse import OutsideShardWarning, Warehouse, WarehouseBusy, read_rows

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
        assert "locked" in _fails(con, sql)
    # the warehouse itself still reads
    assert con.sql("SELECT count(*) FROM games").fetchall() == [(1,)]
    assert con.sql(f"SELECT count(*) FROM read_text('{wh}/_meta/sources.json')").fetchall() == [(1,)]
    con.close()


def test_a_shard_symlinked_outside_the_warehouse_is_skipped(wh, tmp_path):
    (shard,) = (wh / "games").glob("variant=*/month=*/*.parquet")
    outside = tmp_path / "outside.parquet"
    shutil.copy(shard, outside)
    link = shard.parent / "ffffffffffffffffffff-0000.parquet"
    link.symlink_to(outside)
    # a whole folder of another table, linked from outside
    (rej_src := tmp_path / "outside-rejects" / "variant=guilin" / "month=2026-11").mkdir(parents=True)
    shutil.copy(shard, rej_src / "x.parquet")
    (wh / "rejects").mkdir(exist_ok=True)
    (wh / "rejects" / "variant=guilin").symlink_to(rej_src.parent, target_is_directory=True)
    with pytest.warns(OutsideShardWarning, match="outside the warehouse") as got:
        con = connect(wh)
    assert {str(link), str(wh / "rejects" / "variant=guilin" / "month=2026-11" / "x.parquet")} <= {
        str(w.message.path) for w in got}
    assert con.sql("SELECT count(*), min(game_id) FROM games").fetchall() == [(1, "example-guilin-1")]
    assert con.sql("SELECT count(*) FROM seats").fetchall() == [(3,)]
    assert con.sql("SELECT count(*) FROM rejects").fetchall() == [(0,)]
    con.close()
    with pytest.warns(OutsideShardWarning):
        assert len(read_rows(wh, "games")) == 1
    # a compaction leaves the link alone and copies nothing from outside into the warehouse
    with pytest.warns(OutsideShardWarning), Warehouse(wh, check_pseudonym=False, purpose="compact") as w:
        w.compact(1 << 20)
    assert link.is_symlink() and outside.exists()
    with pytest.warns(OutsideShardWarning):
        assert len(read_rows(wh, "games")) == 1


def test_a_blocked_ingest_names_what_holds_the_lock(wh):
    app = typer.Typer()
    app.command()(ingest_cmd)
    with Warehouse(wh, check_pseudonym=False, purpose="compact"):
        with pytest.raises(WarehouseBusy) as e:
            ingest([SHORT], wh, workers=1, progress=False)
        msg = str(e.value)
        assert msg.startswith(f"a compaction is writing {wh}: paipu compact, pid {os.getpid()} on ")
        res = CliRunner().invoke(app, [str(SHORT), "--warehouse", str(wh)])
        out = " ".join(res.output.split())
        assert res.exit_code == 1 and "a compaction is writing" in out and f"pid {os.getpid()}" in out
    with Warehouse(wh):
        comp = typer.Typer()
        comp.command()(compact_cmd)
        res = CliRunner().invoke(comp, ["--warehouse", str(wh)])
        out = " ".join(res.output.split())
        assert res.exit_code == 1 and "another ingest is writing" in out and "paipu ingest" in out
    assert ingest([SHORT], wh, workers=1, progress=False).status == "done"  # released
