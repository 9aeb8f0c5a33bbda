"""Snapshots for auditors: `paipu snapshots` lists every commit with its ingest run;
`paipu audit GAME --as-of SNAPSHOT|TIME` and the audit page's `?as_of=` show what the warehouse held
then — a game ingested later is not there, a game re-ingested with other content shows its old
content."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest
from apptest_util import open_page, page_text
from typer.testing import CliRunner

from ingest.run import ingest
from ingest.warehouse import parse_as_of, read_rows, snapshots

ROOT = Path(__file__).resolve().parent.parent
SHORT = json.loads((ROOT / "data" / "guilin-short.jsonl").read_bytes())


def rec(gid: str, **changes) -> str:
    return json.dumps({**SHORT, "game_id": gid, **changes}, ensure_ascii=False)


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    """Run 1: a.jsonl (g1). Run 2: b.jsonl (g2). Run 3: a.jsonl again, g1 now at table t-new."""
    tmp = tmp_path_factory.mktemp("snaps")
    a, b, wh = tmp / "a.jsonl", tmp / "b.jsonl", tmp / "wh"
    a.write_text(rec("g1") + "\n")
    b.write_text(rec("g2") + "\n")
    r1 = ingest([a], wh, workers=1, progress=False)
    between = datetime.now(timezone.utc)
    r2 = ingest([b], wh, workers=1, progress=False)
    a.write_text(rec("g1", table_id="t-new") + "\n")
    r3 = ingest([a], wh, workers=1, progress=False)
    done = {s["run_id"]: s["snapshot_id"] for s in snapshots(wh) if s["run_status"] == "done"}
    return wh, [done[r.run_id] for r in (r1, r2, r3)], between


def test_snapshots_list_the_runs(history):
    wh, (s1, s2, s3), _ = history
    snaps = snapshots(wh)
    assert [s["snapshot_id"] for s in snaps] == sorted(s["snapshot_id"] for s in snaps)
    done = [s for s in snaps if s["run_status"] == "done"]
    assert [s["snapshot_id"] for s in done] == [s1, s2, s3]
    assert [(s["read"], s["valid"], s["duplicate"]) for s in done] == [(1, 1, 0)] * 3
    started = [s for s in snaps if s["run_status"] == "running"]
    assert len(started) == 3 and all(s["snapshot_id"] < d["snapshot_id"] for s, d in zip(started, done))
    from paipu.cli import app

    res = CliRunner().invoke(app, ["snapshots", "--warehouse", str(wh), "--json"])
    assert res.exit_code == 0, res.output
    assert [json.loads(x)["snapshot_id"] for x in res.output.splitlines()] == [s["snapshot_id"] for s in snaps]
    res = CliRunner().invoke(app, ["snapshots", "--warehouse", str(wh)], env={"COLUMNS": "80"})
    assert res.exit_code == 0 and done[0]["run_id"] in res.output
    lines = res.output.splitlines()
    # every column within 80, the last one (dup) too: the commit column takes what is left
    assert lines[1].rstrip() == "id  UTC       commit                              read  valid  invalid  rej  dup"
    assert len(lines[1].rstrip()) == 80
    row = next(ln for ln in lines if ln.split()[:1] == [str(s1)])
    assert row.split()[-5:] == ["1", "1", "0", "0", "0"]  # read, valid, invalid, rej, dup of run 1
    assert lines[-1].rstrip() == "rej rejected · dup duplicate"


def test_rows_as_of_a_snapshot_and_a_time(history):
    wh, (s1, s2, s3), between = history
    assert [g["game_id"] for g in read_rows(wh, "games", snapshot=s1)] == ["g1"]
    assert [(g["game_id"], g["table_id"]) for g in read_rows(wh, "games", snapshot=s2)] == \
        [("g1", "t-example"), ("g2", "t-example")]
    assert [(g["game_id"], g["table_id"]) for g in read_rows(wh, "games")] == [("g1", "t-new"), ("g2", "t-example")]
    assert [g["game_id"] for g in read_rows(wh, "games", snapshot=between)] == ["g1"]
    assert parse_as_of(str(s2)) == s2 and parse_as_of("2026-12-02T01:00:00").tzinfo == timezone.utc


def test_audit_as_of(history):
    from paipu.cli import app

    wh, (s1, s2, s3), between = history
    run = lambda *a: CliRunner().invoke(app, ["audit", *a, "--warehouse", str(wh)])
    assert run("g2", "--as-of", str(s1)).exit_code == 1  # ingested later: not there yet
    res = run("g2", "--as-of", str(s2))
    assert res.exit_code == 0 and "as of" in res.output
    assert run("g2").exit_code == 0
    assert run("g2", "--as-of", between.isoformat()).exit_code == 1
    assert run("g1", "--as-of", "yesterday").exit_code == 2
    snaps = snapshots(wh)
    first, last = snaps[0], snaps[-1]
    assert first["snapshot_id"] == 0 and last["snapshot_id"] == s3  # the ingest's last commit is the last snapshot
    span = (f"the first snapshot is 0 ({first['snapshot_time']:%Y-%m-%d %H:%M:%S} UTC), the last {s3} "
            f"({last['snapshot_time']:%Y-%m-%d %H:%M:%S} UTC); `paipu snapshots` lists them")
    # an id it does not hold (one past DuckDB's integers too) and a time before the first: usage errors
    for as_of, why in (("99999", f"no snapshot 99999: {span}"),
                       ("99999999999999999999", f"no snapshot 99999999999999999999: {span}"),
                       ("2000-01-01", f"2000-01-01 00:00:00 UTC is before the first snapshot: {span}"),
                       ("abc", "'abc' is neither a snapshot id nor an ISO 8601 time (2026-12-01 or "
                               "2026-12-01T08:00:00+08:00); `paipu snapshots` lists them")):
        res = run("g1", "--as-of", as_of)
        assert res.exit_code == 2
        assert f"Invalid value for --as-of: {why}" in " ".join(res.stderr.replace("│", " ").split())


def test_audit_page_as_of(history, monkeypatch):
    wh, (s1, s2, s3), _ = history
    at = open_page(monkeypatch, wh, "screens/audit.py", game="g2", as_of=str(s1))
    assert "未找到对局 Game not found" in page_text(at)
    at = open_page(monkeypatch, wh, "screens/audit.py", game="g2", as_of=str(s2))
    text = page_text(at)
    assert "未找到对局 Game not found" not in text and "对局 Game `g2`" in text and "As of" in text
    # an id the warehouse does not hold: the plain message of paipu audit, no DuckDB error
    at = open_page(monkeypatch, wh, "screens/audit.py", game="g2", as_of="99999999999999999999")
    (w,) = at.warning
    assert w.value.startswith("无法读取该快照 Cannot read the warehouse as of `99999999999999999999`: ``no snapshot "
                              "99999999999999999999: the first snapshot is 0 (")  # log text in code spans (ui.lit)
    at = open_page(monkeypatch, wh, "screens/audit.py", game="g2", as_of="abc")
    (w,) = at.warning
    assert w.value == ("无法读取该快照 Cannot read the warehouse as of `abc`: ``'abc' is neither a snapshot id nor an "
                       "ISO 8601 time (2026-12-01 or 2026-12-01T08:00:00+08:00); `paipu snapshots` lists them``")
