"""The PostgreSQL catalog, on a real throwaway server (tests/pg_server.py):
``paipu ingest --catalog postgres:…`` keeps the catalog in PostgreSQL (nothing but data files in
the folder), gives the same rows as the embedded catalog, is remembered by the folder (later
ingests, reports, snapshots and compaction need no ``--catalog``), and another DuckDB reads it
with the two ATTACH lines of docs/warehouse.md. A catalog that cannot be reached is a clear error
(exit 1), its password masked. Without the binaries the tests skip — but fail under
``PAIPU_REQUIRE_PG=1``, as ``.ci/run`` sets it."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pg_server
import pytest
from typer.testing import CliRunner

from ingest.run import ingest
from ingest.warehouse import META, extension_path, lit, read_rows, snapshots
from paipu.cli import app

ROOT = Path(__file__).resolve().parent.parent
SHORT = json.loads((ROOT / "data" / "guilin-short.jsonl").read_bytes())


def write_logs(folder: Path) -> Path:
    folder.mkdir()
    lines = [json.dumps({**SHORT, "game_id": f"pg-{i}"}) for i in range(12)]
    lines += [lines[3], json.dumps({**SHORT, "game_id": "pg-3", "round": 9}), "{not json"]
    (folder / "a.jsonl").write_text("\n".join(lines) + "\n")
    return folder


def table_rows(wh: Path) -> dict[str, list]:
    drop = {"ingested_at", "source_file"}
    return {t: [{k: v for k, v in r.items() if k not in drop} for r in read_rows(wh, t)]
            for t in ("games", "seats", "actions", "melds", "xing", "rejects")}


def test_ingest_with_a_postgres_catalog(tmp_path, pg_catalog):
    logs = write_logs(tmp_path / "logs")
    wh = tmp_path / "wh"
    r = CliRunner().invoke(app, ["ingest", str(logs), "--warehouse", str(wh), "--workers", "1", "--catalog", pg_catalog,
                                 "--json"])
    assert r.exit_code == 0, r.output
    total = json.loads(r.stdout)["total"]
    assert (total["read"], total["valid"], total["rejected"], total["duplicate"]) == (15, 12, 2, 1)
    assert json.loads((wh / META / "catalog.json").read_text()) == {"catalog": pg_catalog}
    assert sorted(p.name for p in wh.iterdir()) == ["_meta", "_staging", "data"]  # no catalog.sqlite
    embedded = tmp_path / "embedded"
    ingest([logs], embedded, workers=1, progress=False)
    assert table_rows(wh) == table_rows(embedded)

    # the folder remembers its catalog: a re-ingest without --catalog replaces the file's rows
    again = ingest([logs], wh, workers=1, progress=False)
    assert (again.total().valid, again.total().duplicate) == (12, 1)
    assert len(read_rows(wh, "games")) == 12 and len(read_rows(wh, "ingest_runs")) == 2
    msgs = [s["commit_message"] or "" for s in snapshots(wh)]  # the tables' creation has none
    assert sum(m.startswith("ingest run ") and not m.endswith("started") for m in msgs) == 2
    r = CliRunner().invoke(app, ["compact", "--warehouse", str(wh), "--keep-days", "0"])
    assert r.exit_code == 0, r.output
    assert len(read_rows(wh, "games")) == 12

    # another DuckDB, as docs/warehouse.md says
    con = duckdb.connect()
    con.execute(f"LOAD {lit(extension_path('ducklake'))}")
    con.execute(f"LOAD {lit(extension_path('postgres'))}")
    con.execute(f"ATTACH {lit('ducklake:' + pg_catalog)} AS lake (DATA_PATH {lit(str(wh / 'data') + '/')}, READ_ONLY)")
    assert con.sql("SELECT count(*), count(DISTINCT game_id) FROM lake.games").fetchone() == (12, 12)
    con.close()


def test_an_unreachable_catalog_is_a_clear_error(tmp_path, pg_server):
    logs = write_logs(tmp_path / "logs")
    bad = f"postgres:dbname=nosuchdb host={pg_server.root} port={pg_server.port} user=postgres password=s3cret"
    r = CliRunner().invoke(app, ["ingest", str(logs), "--warehouse", str(tmp_path / "wh"), "--workers", "1",
                                 "--catalog", bad])
    out = " ".join(r.output.split())
    assert r.exit_code == 1, r.output
    assert "cannot open the catalog postgres:dbname=nosuchdb" in out and "password=***" in out
    assert "s3cret" not in out
    assert isinstance(r.exception, SystemExit)  # the message, not a traceback


def test_missing_binaries_skip_here_but_fail_in_ci(monkeypatch):
    monkeypatch.setattr(pg_server, "pg_bin", lambda: None)
    monkeypatch.delenv(pg_server.REQUIRE, raising=False)
    with pytest.raises(pytest.skip.Exception):
        pg_server.require()
    monkeypatch.setenv(pg_server.REQUIRE, "1")
    with pytest.raises(pytest.fail.Exception, match="PAIPU_REQUIRE_PG=1"):
        pg_server.require()
