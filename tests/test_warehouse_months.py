"""Month partitions (issue 7): ``<table>/variant=<id>/month=<YYYY-MM>/<shard>``.

A game's month is its ``started_at`` month in UTC, else the run's ingest month; its child rows
share it; a reject's month is its line's ``started_at`` when the line parses, else the ingest
month. Re-ingesting, compacting and the views all work across month folders, and a warehouse of
the layout before months still reads and is migrated when a writer opens it.
"""

from __future__ import annotations

import json
import os
from datetime import datetime, timezone
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import ingest.run as run_mod
import ingest.warehouse as warehouse
from analytics.views import connect
from ingest.run import ingest
from ingest.schema import TABLES
from ingest.warehouse import Warehouse, read_rows, source_prefix
from test_warehouse_compact import Killed, die_on_move

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
    return sorted(p.relative_to(wh / table).as_posix() for p in (wh / table).rglob("*.parquet"))


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
    p = source_prefix(str(src))
    assert shards(wh, "games") == [f"variant=guilin/month=2017-02/{p}-0000.parquet",
                                   f"variant=guilin/month=2017-03/{p}-0000.parquet",
                                   f"variant=guilin/month=2030-07/{p}-0000.parquet"]
    for table in ("seats", "actions", "melds", "xing"):
        assert shards(wh, table) == shards(wh, "games"), table
    march = pq.read_table(wh / "seats" / "variant=guilin" / "month=2017-03" / f"{p}-0000.parquet").to_pylist()
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
    for t in TABLES:  # the July folders of this file are gone, nothing else is
        assert not [s for s in shards(wh, t) if "month=2030-07" in s], t
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
    ingest(srcs, wh, workers=1, progress=False)
    before = snapshot(wh)
    assert len(shards(wh, "games")) == 6
    with Warehouse(wh, check_pseudonym=False) as w:
        got = w.compact(1 << 20)
    assert got["merged"] == 6 * 5 and got["files_after"] == 2 * 5  # 5 tables × 2 months
    games = shards(wh, "games")
    assert [g.rsplit("/", 1)[0] for g in games] == ["variant=guilin/month=2017-03", "variant=guilin/month=2017-04"]
    assert all(warehouse.is_compacted(g.rsplit("/", 1)[1]) for g in games)
    assert snapshot(wh) == before  # months included
    # a source ingested again after compaction still replaces exactly its rows, in both months
    write(srcs[1], [rec("a1", "2017-03-05T10:00:00+08:00")])
    ingest([srcs[1]], wh, workers=1, progress=False)
    assert sorted((g["game_id"], g["month"]) for g in read_rows(wh, "games")) == \
        [("a0", "2017-03"), ("a1", "2017-03"), ("a2", "2017-03"), ("b0", "2017-04"), ("b2", "2017-04")]


# -- the layout before month partitions ------------------------------------------------------------

def to_old_layout(wh: Path) -> None:
    """Rewrite a warehouse as the writer before months did: ``variant=<id>/<name>``, the rows of
    all months of one shard name in one file (``compacted.json`` keyed by the old paths)."""
    for t in TABLES:
        for vdir in sorted((wh / t).glob("variant=*")):
            by_name: dict[str, list[Path]] = {}
            for f in sorted(vdir.glob("month=*/*.parquet")):
                by_name.setdefault(f.name, []).append(f)
            for name, files in by_name.items():
                pq.write_table(pa.concat_tables([pq.read_table(f) for f in files], promote_options="default"),
                               vdir / name)
                for f in files:
                    f.unlink()
            for m in vdir.glob("month=*"):
                m.rmdir()
    comp = wh / "_meta" / "compacted.json"
    if comp.exists():
        old = json.loads(comp.read_text())["compacted"]
        new: dict[str, set[str]] = {}
        for rel, members in old.items():
            t, v, _, name = rel.split("/")
            new.setdefault(f"{t}/{v}/{name}", set()).update(members)
        comp.write_text(json.dumps({"compacted": {k: sorted(v) for k, v in new.items()}}))


def _two_month_warehouse(tmp_path: Path, monkeypatch) -> tuple[Path, list[Path]]:
    logs = tmp_path / "logs"
    logs.mkdir()
    srcs = [write(logs / "a.jsonl", [rec("a1", "2017-03-05T10:00:00+08:00"), rec("a2", "2017-04-05T10:00:00+08:00"),
                                     rec("a3", None), '{"game_id": "x", "started_at": "2017-03-02T00:00:00Z"}',
                                     "{cut"]),
            write(logs / "b.jsonl", [rec("b1", "2017-04-09T10:00:00+08:00"), rec("z1", None, variant="zipai")])]
    wh = tmp_path / "wh"
    at(monkeypatch, JULY)
    ingest(srcs, wh, workers=1, progress=False)
    return wh, srcs


def test_old_layout_reads_and_is_migrated_when_a_writer_opens_it(tmp_path, monkeypatch):
    wh, srcs = _two_month_warehouse(tmp_path, monkeypatch)
    expected = snapshot(wh)
    cur = connect(wh).cursor()
    new_counts = cur.sql("SELECT variant, month, count(*) FROM games GROUP BY ALL ORDER BY ALL").fetchall()
    to_old_layout(wh)
    assert not list(wh.glob("*/variant=*/month=*")) and (wh / "games" / "variant=guilin").is_dir()

    # readers: the old shards read, month NULL
    cur = connect(wh).cursor()
    assert cur.sql("SELECT variant, month, count(*) FROM games GROUP BY ALL ORDER BY ALL").fetchall() == \
        [("guilin", None, 4), ("zipai", None, 1)]
    assert cur.sql("SELECT count(*) FROM seats WHERE variant = ?", params=["guilin"]).fetchall() == [(12,)]
    assert cur.sql("SELECT count(*) FROM rejects").fetchall() == [(2,)]
    assert ("month", "VARCHAR") in [r[:2] for r in cur.sql("DESCRIBE games").fetchall()]

    # writers migrate on open; the open view still reads everything (month filled in) afterwards
    at(monkeypatch, AUGUST)
    rep = ingest([], wh, workers=1, progress=False)
    assert len(rep.recovered) == 1 and "month folders" in rep.recovered[0]
    assert snapshot(wh) == expected  # every row in the month a fresh ingest gives it
    assert not [f for t in TABLES for f in (wh / t).glob("variant=*/*.parquet")]
    assert cur.sql("SELECT variant, month, count(*) FROM games GROUP BY ALL ORDER BY ALL").fetchall() == new_counts
    assert connect(wh).cursor().sql("SELECT variant, month, count(*) FROM games GROUP BY ALL ORDER BY ALL"
                                    ).fetchall() == new_counts
    # and a re-ingest of a migrated source replaces its rows: nothing doubled
    rep = ingest(srcs, wh, workers=1, progress=False)
    assert rep.total().duplicate == 0
    later = {t: sorted(r.replace("2030-07-15 12:00", "2030-08-02 09:00").replace('"2030-07"', '"2030-08"')
                       for r in rows) for t, rows in expected.items()}
    assert snapshot(wh) == later


def test_mixed_layouts_read_together(tmp_path, monkeypatch):
    wh, _ = _two_month_warehouse(tmp_path, monkeypatch)
    for f in (wh / "games" / "variant=zipai").glob("month=*/*.parquet"):  # only zipai back to the old layout
        os.replace(f, f.parent.parent / f.name)
        f.parent.rmdir()
    cur = connect(wh).cursor()
    assert cur.sql("SELECT variant, month, count(*) FROM games GROUP BY ALL ORDER BY ALL").fetchall() == \
        [("guilin", "2017-03", 1), ("guilin", "2017-04", 2), ("guilin", "2030-07", 1), ("zipai", None, 1)]
    assert cur.sql("SELECT DISTINCT variant, month FROM seats ORDER BY ALL").fetchall() == \
        [("guilin", "2017-03"), ("guilin", "2017-04"), ("guilin", "2030-07"), ("zipai", "2030-07")]


def test_migration_of_compacted_shards_and_a_kill_inside_it(tmp_path, monkeypatch):
    wh, srcs = _two_month_warehouse(tmp_path, monkeypatch)
    with Warehouse(wh, check_pseudonym=False) as w:
        assert w.compact(1 << 20)["merged"] > 0
    expected = snapshot(wh)
    to_old_layout(wh)
    die_on_move(monkeypatch, lambda dst: "/month=" in dst)
    with pytest.raises(Killed):
        Warehouse(wh, check_pseudonym=False).__enter__()
    monkeypatch.undo()
    at(monkeypatch, AUGUST)
    rep = ingest([], wh, workers=1, progress=False)
    assert rep.recovered[0] == "finished an interrupted commit"
    assert snapshot(wh) == expected
    compacted = json.loads((wh / "_meta" / "compacted.json").read_text())["compacted"]
    assert compacted and all("/month=" in rel and (wh / rel).exists() for rel in compacted)
    # the compacted rows still belong to their sources: re-ingesting b replaces b's rows only
    write(srcs[1], [rec("b2", "2017-04-09T10:00:00+08:00")])
    ingest([srcs[1]], wh, workers=1, progress=False)
    assert sorted(g["game_id"] for g in read_rows(wh, "games")) == ["a1", "a2", "a3", "b2"]


def test_a_warehouse_under_a_partition_like_folder_is_refused(tmp_path):
    """DuckDB's hive scan takes the first ``month=`` of the whole path: a warehouse inside a folder
    named like a partition would read that folder's value for every row."""
    for name in ("month=1999-01", "variant=guilin"):
        wh = tmp_path / name / "wh"
        (wh / "games").mkdir(parents=True)
        with pytest.raises(ValueError, match="partition"):
            connect(wh)
