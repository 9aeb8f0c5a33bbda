"""Month partitions: DuckLake data files in ``<table>/variant=<id>/month=<YYYY-MM>/``.

A game's month is its ``started_at`` month in UTC, else the run's ingest month; its child rows
share it; a reject's month is its line's ``started_at`` when the line parses, else the ingest
month. Re-ingesting, compacting and the views all work across month folders; a plain-Parquet
warehouse of the layout before months still reads (``tests/test_warehouse_migrate.py`` converts
those of the layouts before DuckLake).
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pyarrow.parquet as pq
import pytest

import ingest.run as run_mod
from ingest.run import ingest
from ingest.schema import TABLES
from ingest.views import connect
from ingest.warehouse import compact, data_files, read_rows

ROOT = Path(__file__).resolve().parent.parent
SHORT = json.loads((ROOT / "data" / "guilin-short.jsonl").read_bytes())


def rec(gid: str, started_at: str | None = "keep", **changes) -> str:
    obj = {**SHORT, "game_id": gid, **changes}
    if started_at is None:
        obj.pop("started_at")
    elif started_at != "keep":
        obj["started_at"] = started_at
    return json.dumps(obj, ensure_ascii=False)


def write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def at(monkeypatch, when: datetime) -> None:
    """Make the next ingest run start at ``when`` (its ``ingested_at``)."""

    class Fixed(datetime):
        @classmethod
        def now(cls, tz=None):  # noqa: ANN001, ANN206
            return when

    monkeypatch.setattr(run_mod, "datetime", Fixed)


def shards(wh: Path, table: str) -> list[str]:
    """The partition folders (``variant=…/month=…``) of the data files the catalog lists for ``table``."""
    return sorted({p.parent.relative_to(wh / "data" / "main" / table).as_posix() for p in data_files(wh, table)})


def snapshot(wh: Path) -> dict[str, list[str]]:
    return {t: sorted(json.dumps(r, sort_keys=True, default=str) for r in read_rows(wh, t)) for t in TABLES}


JULY = datetime(2030, 7, 15, 12, tzinfo=timezone.utc)
AUGUST = datetime(2030, 8, 2, 9, tzinfo=timezone.utc)


def test_a_game_and_its_child_rows_land_in_its_started_at_month(tmp_path, monkeypatch):
    src = write(tmp_path / "log.jsonl", [
        rec("g-march", "2017-03-05T10:00:00+08:00"),
        rec("g-utc", "2017-03-01T05:00:00+08:00"),  # 2017-02-28 21:00 UTC: February
        rec("g-none", None),                         # no started_at: the ingest month
        rec("g-bad", "2017-03-05 10:00"),            # no UTC offset: null, so the ingest month
    ])
    wh = tmp_path / "wh"
    at(monkeypatch, JULY)
    rep = ingest([src], wh, workers=1, progress=False)
    assert rep.total().valid == 4
    assert shards(wh, "games") == ["variant=guilin/month=2017-02", "variant=guilin/month=2017-03",
                                   "variant=guilin/month=2030-07"]
    for table in ("seats", "actions", "melds", "xing"):
        assert shards(wh, table) == shards(wh, "games"), table
    (f,) = [f for f in data_files(wh, "seats") if f.parent.name == "month=2017-03"]
    march = pq.read_table(f).to_pylist()  # a data file is plain Parquet, readable by any engine
    assert [(s["game_id"], s["seat"], s["player_id"]) for s in march] == \
        [("g-march", 0, "p:a"), ("g-march", 1, "p:b"), ("g-march", 2, "p:c")]
    months = {t: {(r["game_id"], r["month"]) for r in read_rows(wh, t)} for t in ("games", "seats", "actions", "melds")}
    assert months["games"] == {("g-march", "2017-03"), ("g-utc", "2017-02"), ("g-none", "2030-07"),
                               ("g-bad", "2030-07")}
    assert months["seats"] == months["actions"] == months["melds"] == months["games"]

    cur = connect(wh).cursor()
    assert ("month", "VARCHAR") in [r[:2] for r in cur.sql("DESCRIBE games").fetchall()]
    assert cur.sql("SELECT month, count(*) FROM games GROUP BY 1 ORDER BY 1").fetchall() == \
        [("2017-02", 1), ("2017-03", 1), ("2030-07", 2)]
    # joins by game_id stay inside one partition
    assert cur.sql("""SELECT count(*), count(*) FILTER (WHERE g.month = s.month AND g.variant = s.variant)
                      FROM seats s JOIN games g USING (game_id)""").fetchall() == [(12, 12)]
    assert cur.sql("SELECT count(*) FROM seats WHERE month = ?", params=["2017-03"]).fetchall() == [(3,)]


def test_rejects_take_their_lines_started_at_else_the_ingest_month(tmp_path, monkeypatch):
    schema_bad = json.loads(rec("r-schema", "2017-03-05T10:00:00+08:00"))
    schema_bad.pop("deal")
    src = write(tmp_path / "log.jsonl", [
        json.dumps(schema_bad),                                  # parses, has started_at: 2017-03
        '{"format": "paipu/1", "game_id": "r-cut", "started_at": "2017-03-05T10:00:00+08:00"',  # cut: ingest month
        rec("r-mahjong", "2016-12-31T23:30:00-02:00", variant="mahjong"),  # 2017-01-01 01:30 UTC
        rec("g-1", "2017-04-01T12:00:00+00:00"),
        rec("g-1", "2017-05-01T12:00:00+00:00", round=9),        # same id, other content: in its own month
    ])
    wh = tmp_path / "wh"
    at(monkeypatch, JULY)
    rep = ingest([src], wh, workers=1, progress=False)
    assert (rep.total().valid, rep.total().rejected) == (1, 4)
    got = sorted((r["game_id"], r["code"], r["variant"], r["month"]) for r in read_rows(wh, "rejects"))
    assert got == [("g-1", "duplicate_game", "guilin", "2017-05"),
                   ("r-cut", "bad_json", "_unknown", "2030-07"),
                   ("r-mahjong", "unknown_variant", "_unknown", "2017-01"),
                   ("r-schema", "schema", "guilin", "2017-03")]


def test_reingest_a_month_later_moves_rows_and_adds_nothing(tmp_path, monkeypatch):
    src = write(tmp_path / "log.jsonl", [rec("g-none", None), rec("g-march", "2017-03-05T10:00:00+08:00"),
                                         "{not json"])
    wh = tmp_path / "wh"
    at(monkeypatch, JULY)
    ingest([src], wh, workers=1, progress=False)
    july = {t: shards(wh, t) for t in TABLES}
    assert any("month=2030-07" in s for s in july["games"]) and any("month=2030-07" in s for s in july["rejects"])
    at(monkeypatch, AUGUST)
    rep = ingest([src], wh, workers=1, progress=False)
    assert (rep.total().valid, rep.total().rejected, rep.total().duplicate) == (2, 1, 0)
    rows = {t: read_rows(wh, t) for t in TABLES}
    assert sorted((g["game_id"], g["month"]) for g in rows["games"]) == [("g-march", "2017-03"), ("g-none", "2030-08")]
    assert [(r["month"]) for r in rows["rejects"]] == ["2030-08"]
    assert len(rows["seats"]) == 6 and {s["month"] for s in rows["seats"] if s["game_id"] == "g-none"} == {"2030-08"}
    for t in TABLES:  # no July rows of this file are left, nothing else moved
        assert not [r for r in rows[t] if r["month"] == "2030-07"], t
        assert [s for s in shards(wh, t) if "2017-03" in s] == [s for s in july[t] if "2017-03" in s]
    # a third run in August changes nothing at all
    before = snapshot(wh)
    ingest([src], wh, workers=1, progress=False)
    assert snapshot(wh) == before


def test_compact_merges_within_each_month_folder(tmp_path, monkeypatch):
    logs = tmp_path / "logs"
    logs.mkdir()
    srcs = [write(logs / f"f{i}.jsonl", [rec(f"a{i}", "2017-03-05T10:00:00+08:00"),
                                         rec(f"b{i}", "2017-04-05T10:00:00+08:00")]) for i in range(3)]
    wh = tmp_path / "wh"
    at(monkeypatch, JULY)
    for src in srcs:  # three runs: three data files per table and month
        ingest([src], wh, workers=1, progress=False)
    before = snapshot(wh)
    assert len(data_files(wh, "games")) == 6
    got = compact(wh, keep_days=0)
    assert got["files_after"] < got["files_before"]
    games = data_files(wh, "games")
    assert sorted(g.parent.name for g in games) == ["month=2017-03", "month=2017-04"]
    for f in games:  # DuckLake never merges across partitions
        assert {r["month"] for r in pq.read_table(f).to_pylist()} == {f.parent.name.split("=")[1]}
    assert snapshot(wh) == before  # months included
    # a source ingested again after compaction still replaces exactly its rows, in both months
    write(srcs[1], [rec("a1", "2017-03-05T10:00:00+08:00")])
    ingest([srcs[1]], wh, workers=1, progress=False)
    assert sorted((g["game_id"], g["month"]) for g in read_rows(wh, "games")) == \
        [("a0", "2017-03"), ("a1", "2017-03"), ("a2", "2017-03"), ("b0", "2017-04"), ("b2", "2017-04")]


def test_a_warehouse_under_a_partition_like_folder_is_refused(tmp_path):
    """DuckDB's hive scan takes the first ``month=`` of the whole path: a warehouse inside a folder
    named like a partition would read that folder's value for every row."""
    for name in ("month=1999-01", "variant=guilin"):
        wh = tmp_path / name / "wh"
        (wh / "games").mkdir(parents=True)
        with pytest.raises(ValueError, match="partition"):
            connect(wh)
