"""``paipu compact``: DuckLake's own maintenance — small data files merge, old
snapshots expire and their files go — the rows stay the same, the views read them, a source
ingested again later still replaces exactly its own rows, and a compaction runs beside a writer."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from typer.testing import CliRunner

from ingest.cli import compact_cmd
from ingest.run import ingest
from ingest.warehouse import Warehouse, compact, data_files, read_rows, snapshots

ROOT = Path(__file__).resolve().parent.parent
SHORT = json.loads((ROOT / "data" / "guilin-short.jsonl").read_bytes())
TABLES = ("games", "seats", "actions", "melds", "xing", "rejects")


def write(path: Path, gids: list[str], extra: list[str] = ()) -> Path:
    path.write_text("\n".join([json.dumps({**SHORT, "game_id": g}) for g in gids] + list(extra)) + "\n")
    return path


def logs(folder: Path) -> list[Path]:
    folder.mkdir(exist_ok=True)
    return [write(folder / f"f{f}.jsonl", [f"g{f}-{i}" for i in range(5)], [f"{{bad {f}"]) for f in range(6)]


def snapshot(wh: Path) -> dict[str, list[str]]:
    return {t: sorted(json.dumps({k: v for k, v in r.items() if k != "ingested_at"}, sort_keys=True, default=str)
                      for r in read_rows(wh, t)) for t in TABLES}


def one_run_per_file(srcs: list[Path], wh: Path) -> None:
    for s in srcs:
        ingest([s], wh, workers=1, progress=False)


def test_compaction_keeps_rows_and_views(tmp_path):
    srcs = logs(tmp_path / "logs")
    wh = tmp_path / "wh"
    one_run_per_file(srcs, wh)
    before = snapshot(wh)
    assert len(data_files(wh, "games")) == 6  # one per run
    got = compact(wh, keep_days=0)
    assert len(data_files(wh, "games")) == 1 and len(data_files(wh, "rejects")) == 1
    assert got["files_after"] < got["files_before"] and got["expired"] > 0
    assert snapshot(wh) == before
    # files no snapshot lists any more are deleted from disk
    on_disk = sorted((wh / "data" / "main" / "games").rglob("*.parquet"))
    assert on_disk == data_files(wh, "games")


def test_a_source_ingested_after_compaction_replaces_its_rows(tmp_path):
    srcs = logs(tmp_path / "logs")
    wh = tmp_path / "wh"
    one_run_per_file(srcs, wh)
    compact(wh, keep_days=0)
    write(srcs[2], ["g2-0", "new-1"])
    rep = ingest([srcs[2]], wh, workers=1, progress=False)
    assert (rep.total().valid, rep.total().duplicate) == (2, 0)
    games = sorted(g["game_id"] for g in read_rows(wh, "games"))
    assert len(games) == 5 * 5 + 2 and "new-1" in games and "g2-4" not in games
    assert len([r for r in read_rows(wh, "rejects") if r["source_file"] == str(srcs[2])]) == 0


def test_snapshots_kept_for_as_of_until_they_expire(tmp_path):
    srcs = logs(tmp_path / "logs")
    wh = tmp_path / "wh"
    one_run_per_file(srcs[:2], wh)
    n = len(snapshots(wh))
    compact(wh, keep_days=7)  # nothing is a week old: every snapshot stays
    assert len(snapshots(wh)) >= n
    first_run = next(s["snapshot_id"] for s in snapshots(wh) if s["run_status"] == "done")
    assert len(read_rows(wh, "games", snapshot=first_run)) == 5


def test_cli_compact(tmp_path):
    srcs = logs(tmp_path / "logs")
    wh = tmp_path / "wh"
    one_run_per_file(srcs, wh)
    app = typer.Typer()
    app.command()(compact_cmd)
    with Warehouse(wh, check_pseudonym=False):  # a writer has it open: compaction still runs
        res = CliRunner().invoke(app, ["--warehouse", str(wh), "--keep-days", "0"])
    assert res.exit_code == 0, res.output
    out = " ".join(res.output.split())
    assert "data files →" in out and "snapshots expired" in out
    res = CliRunner().invoke(app, ["--warehouse", str(tmp_path / "logs")])
    assert res.exit_code == 2


def test_the_head_sees_a_compaction_that_commits_no_snapshot(tmp_path):
    """A compaction with nothing left to merge still writes the catalog — it expires snapshots and
    cleans their files up — so a writer's transaction begun before it could no longer commit:
    :meth:`Warehouse.head` moves though the latest snapshot id stays."""
    srcs = logs(tmp_path / "logs")
    wh = tmp_path / "wh"
    one_run_per_file(srcs[:3], wh)
    compact(wh, keep_days=7)  # merges; every snapshot stays
    with Warehouse(wh, check_pseudonym=False) as w:
        before = w.head()
        got = compact(wh, keep_days=0)
        after = w.head()
    assert got["files_before"] == got["files_after"] and got["expired"] > 0  # nothing merged: no new snapshot
    assert after[0] == before[0] and after[1] < before[1] and after != before
