"""``paipu migrate``: a warehouse of the plain-Parquet layout — written by the ingest of
commit 55553ab, the last before DuckLake — becomes a DuckLake warehouse with the same rows as a
fresh ingest of the same logs, in one transaction; re-ingesting a migrated source replaces its
rows; an ingest into an unmigrated one is refused with the command to run."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from ingest.cli import migrate_cmd
from ingest.run import ingest
from ingest.warehouse import WarehouseMismatch, catalog_of, read_rows, snapshots

ROOT = Path(__file__).resolve().parent.parent
OLD = "55553ab"
SHORT = json.loads((ROOT / "data" / "guilin-short.jsonl").read_bytes())
TABLES = ("games", "seats", "actions", "melds", "xing", "jing", "gezi", "rejects")


def rec(gid: str, **changes) -> str:
    return json.dumps({**SHORT, "game_id": gid, **changes}, ensure_ascii=False)


@pytest.fixture(scope="module")
def old_code(tmp_path_factory) -> Path:
    """The ingest of commit 55553ab (with its engine), unpacked from git."""
    if shutil.which("git") is None or subprocess.run(["git", "-C", str(ROOT), "cat-file", "-e", OLD],
                                                     capture_output=True).returncode:
        pytest.skip("needs the git history (commit 55553ab)")
    out = tmp_path_factory.mktemp("old")
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", OLD, "ingest", "replay", "analytics"],
                             capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(out)], input=archive, check=True)
    return out


def old_ingest(code: Path, paths: list[Path], wh: Path, *, compact: bool = False) -> None:
    script = ("import sys; sys.path.insert(0, sys.argv[1]); from ingest.run import ingest; "
              "from ingest.warehouse import Warehouse; "
              "ingest(sys.argv[4:], sys.argv[2], workers=1, progress=False)\n"
              "if sys.argv[3] == '1':\n"
              "    with Warehouse(sys.argv[2], check_pseudonym=False) as w: w.compact(1 << 20)")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    p = subprocess.run([sys.executable, "-c", script, str(code), str(wh), "1" if compact else "0", *map(str, paths)],
                       cwd=code, env=env, capture_output=True)
    assert p.returncode == 0, p.stderr.decode()


def logs(folder: Path) -> list[Path]:
    folder.mkdir()
    a = folder / "a.jsonl"
    a.write_text("\n".join([rec("a1", started_at="2017-03-05T10:00:00+08:00"), rec("a2"), "{cut",
                            rec("a1", round=9)]) + "\n")
    b = folder / "b.jsonl"
    b.write_text("\n".join([rec("b1"), rec("z1", variant="zipai"), rec("a2")]) + "\n")
    return [a, b]


def _rules(row: dict) -> dict:
    """A games row with ``rules_json`` cut to the values away from the defaults: an option added
    since the old commit is absent from its rows, and at its default in a fresh ingest."""
    from replay.variants import VARIANTS

    if row.get("rules_json") is None or row.get("variant") not in VARIANTS:
        return row
    defaults = {o.name: o.default for o in VARIANTS[row["variant"]].options}
    values = json.loads(row["rules_json"])
    return {**row, "rules_json": {k: v for k, v in values.items() if k in defaults and v != defaults[k]}}


def snapshot(wh: Path) -> dict[str, list[str]]:
    return {t: sorted(json.dumps({k: v for k, v in _rules(r).items() if k != "ingested_at"}, sort_keys=True, default=str)
                      for r in read_rows(wh, t)) for t in TABLES}


@pytest.mark.parametrize("compacted", [False, True])
def test_migrate_a_warehouse_of_the_old_layout(old_code, tmp_path, compacted):
    srcs = logs(tmp_path / "logs")
    old = tmp_path / "old"
    old_ingest(old_code, srcs, old, compact=compacted)
    assert (old / "_meta" / "sources.json").exists() and catalog_of(old) is None
    fresh = tmp_path / "fresh"
    ingest(srcs, fresh, workers=1, progress=False)
    plain = snapshot(old)  # the plain-Parquet views still read it
    assert plain == snapshot(fresh)
    with pytest.raises(WarehouseMismatch, match="paipu migrate"):
        ingest(srcs, old, workers=1, progress=False)

    app = typer.Typer()
    app.command()(migrate_cmd)
    res = CliRunner().invoke(app, [str(old)])
    assert res.exit_code == 0, res.output
    assert "migrated" in res.output and "games 4" in " ".join(res.output.split())
    assert catalog_of(old) is not None
    assert sorted(p.name for p in old.iterdir() if not p.name.endswith(("-wal", "-shm"))) == ["_meta", "_staging", "catalog.sqlite",
                                                                                          "data"]  # WAL files aside
    assert not (old / "_meta" / "sources.json").exists()
    assert snapshot(old) == plain
    (run,) = read_rows(old, "ingest_runs")  # the old run's row came along
    assert run["status"] == "done" and run["read"] == 7
    assert [s["commit_message"] for s in snapshots(old)][-1] == "migrate"
    res = CliRunner().invoke(app, [str(old)])
    assert res.exit_code == 0 and "nothing to migrate" in " ".join(res.output.split())  # rich wraps a long path
    # a migrated source re-ingested replaces exactly its rows
    rep = ingest(srcs, old, workers=1, progress=False)
    assert rep.total().duplicate == 1  # b.jsonl:3 repeats a.jsonl:2
    assert snapshot(old) == snapshot(fresh)
