"""``paipu compact`` (issue 7): small shards merge into bigger files, the rows stay the same, the
views read them, and a source ingested again later still replaces exactly its own rows."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

import ingest.warehouse as warehouse
from ingest.cli import compact_cmd
from ingest.run import ingest
from ingest.warehouse import Warehouse, read_rows

ROOT = Path(__file__).resolve().parent.parent
SHORT = json.loads((ROOT / "data" / "guilin-short.jsonl").read_bytes())
TABLES = ("games", "seats", "actions", "melds", "xing", "rejects")


class Killed(BaseException):
    """Stands for a kill: no `except Exception` in ingest catches it."""


def die_on_move(monkeypatch, hit, nth: int = 3) -> None:
    """Make the ``nth`` ``os.replace`` of ``ingest.warehouse`` whose destination ``hit`` accepts raise
    :class:`Killed`; staging folders are kept, as after a real kill."""
    real = os.replace
    n = {"moves": 0}

    def dying(src, dst):
        if hit(str(dst)):
            n["moves"] += 1
            if n["moves"] == nth:
                raise Killed("killed")
        return real(src, dst)

    monkeypatch.setattr(warehouse.os, "replace", dying)
    monkeypatch.setattr(warehouse.shutil, "rmtree", lambda *a, **k: None)


def write(path: Path, gids: list[str], extra: list[str] = ()) -> Path:
    path.write_text("\n".join([json.dumps({**SHORT, "game_id": g}) for g in gids] + list(extra)) + "\n")
    return path


def logs(folder: Path) -> list[Path]:
    folder.mkdir(exist_ok=True)
    return [write(folder / f"f{f}.jsonl", [f"g{f}-{i}" for i in range(5)], [f"{{bad {f}"]) for f in range(6)]


def snapshot(wh: Path) -> dict[str, list[str]]:
    return {t: sorted(json.dumps({k: v for k, v in r.items() if k != "ingested_at"}, sort_keys=True, default=str)
                      for r in read_rows(wh, t)) for t in TABLES}


def files(wh: Path, table: str) -> list[str]:
    return sorted(p.name for p in (wh / table).glob("variant=*/month=*/*.parquet"))


def compact(wh: Path, target: int = 1 << 20) -> dict:
    with Warehouse(wh, check_pseudonym=False) as w:
        return w.compact(target)


def test_compaction_keeps_rows_and_views(tmp_path):
    srcs = logs(tmp_path / "logs")
    wh = tmp_path / "wh"
    ingest(srcs, wh, workers=1, progress=False)
    before = snapshot(wh)
    assert len(files(wh, "games")) == 6
    got = compact(wh)
    assert got["files_before"] == 6 * 6 and got["files_after"] == 6 and got["merged"] == 36  # 5 tables + 1 rejects
    assert snapshot(wh) == before
    (name,) = files(wh, "games")
    assert warehouse.is_compacted(name)
    from analytics.views import connect

    con = connect(wh)
    cur = con.cursor()
    assert cur.sql("SELECT count(*), count(DISTINCT game_id) FROM games").fetchall() == [(30, 30)]
    assert "_src" not in [d[0] for d in cur.sql("SELECT * FROM games").description]
    assert cur.sql("SELECT count(*) FROM rejects").fetchall() == [(6,)]
    assert compact(wh)["merged"] == 0  # nothing small left to merge


def test_a_source_ingested_after_compaction_replaces_its_rows(tmp_path):
    srcs = logs(tmp_path / "logs")
    wh = tmp_path / "wh"
    ingest(srcs, wh, workers=1, progress=False)
    compact(wh)
    write(srcs[2], ["g2-0", "g2-new", "g0-1"], ["{bad 2"])  # f2 changed: g2-1..4 gone, one new, one duplicate
    extra = write(tmp_path / "logs" / "late.jsonl", ["g3-3", "late-1"])  # late.jsonl sorts after f*.jsonl
    rep = ingest([srcs[2], extra], wh, workers=1, progress=False)
    assert [(f.valid, f.rejected, f.duplicate) for f in rep.files] == [(2, 1, 1), (1, 0, 1)]
    fresh = tmp_path / "fresh"  # the same inputs into an empty warehouse
    ingest([tmp_path / "logs"], fresh, workers=1, progress=False)
    assert snapshot(wh) == snapshot(fresh)
    games = {g["game_id"] for g in read_rows(wh, "games")}
    assert {"g2-new", "late-1", "g2-0"} <= games and not {"g2-1", "g2-4"} & games
    compacted = json.loads((wh / "_meta" / "compacted.json").read_text())["compacted"]
    assert all(warehouse.source_prefix(str(srcs[2])) not in m for m in compacted.values())


def test_conflicts_name_the_source_of_compacted_rows(tmp_path):
    srcs = logs(tmp_path / "logs")
    wh = tmp_path / "wh"
    ingest(srcs, wh, workers=1, progress=False)
    compact(wh)
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps({**SHORT, "game_id": "g4-2", "round": 5}) + "\n{bad 1\n")
    rep = ingest([other], wh, workers=1, progress=False)
    assert (rep.total().rejected, rep.total().duplicate) == (1, 1)
    (r,) = [r for r in read_rows(wh, "rejects") if r["code"] == "duplicate_game"]
    assert f"{srcs[4]}:3" in r["message"] and f"{other}:1" in r["message"]


def test_a_killed_compaction_is_rolled_forward(tmp_path, monkeypatch):
    srcs = logs(tmp_path / "logs")
    wh = tmp_path / "wh"
    ingest(srcs, wh, workers=1, progress=False)
    before = snapshot(wh)
    die_on_move(monkeypatch, lambda dst: dst.endswith("-0000.parquet") and "/c" in dst)
    with pytest.raises(Killed):
        compact(wh)
    monkeypatch.undo()
    games = [g["game_id"] for g in read_rows(wh, "games")]
    assert len(games) == len(set(games))  # rows may be missing for a moment, never doubled
    rep = ingest([], wh, workers=1, progress=False)  # any open rolls the journal forward
    assert rep.recovered == ["finished an interrupted commit"]
    assert snapshot(wh) == before and len(files(wh, "games")) == 1


def test_cli_compact(tmp_path):
    srcs = logs(tmp_path / "logs")
    wh = tmp_path / "wh"
    ingest(srcs, wh, workers=1, progress=False)
    app = typer.Typer()
    app.command()(compact_cmd)
    res = CliRunner().invoke(app, ["--warehouse", str(wh), "--target-mb", "1"])
    assert res.exit_code == 0, res.output
    assert "36 shard files → 6 (36 merged)" in " ".join(res.output.split())
    res = CliRunner().invoke(app, ["--warehouse", str(tmp_path / "logs")])
    assert res.exit_code == 2
    with Warehouse(wh, check_pseudonym=False):
        res = CliRunner().invoke(app, ["--warehouse", str(wh)])
        assert res.exit_code == 1 and "another ingest" in res.output
