"""``paipu tune`` from the command line: its logs go to ``--experiments`` (default
``build/experiments``, outside ``build/demo`` that ``make demo`` deletes), the run shows its
progress, and the printed result says how to bring the experiment back into a rebuilt warehouse."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from paipu.cli import app


def test_tune_keeps_its_logs_outside_the_warehouse(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PAIPU_PROGRESS_SECONDS", "0")
    monkeypatch.setenv("COLUMNS", "200")
    r = CliRunner().invoke(app, ["tune", "--variant", "guilin", "--a", "tuo_step=5", "--b", "tuo_step=3",
                                 "--games", "8", "--workers", "1", "--warehouse", "wh", "--json", "out.json",
                                 "--bots", "heuristic"])
    assert r.exit_code == 0, r.output
    exp = json.loads((tmp_path / "out.json").read_text("utf-8"))["experiment"]
    folder = tmp_path / "build" / "experiments" / exp
    assert sorted(p.name for p in folder.iterdir()) == ["a.jsonl", "b.jsonl", "experiment.json"]
    assert len((folder / "a.jsonl").read_text("utf-8").splitlines()) == 8
    assert not (tmp_path / "wh" / "_experiments").exists()
    assert f"`paipu ingest {tmp_path / 'build' / 'experiments'} --warehouse {tmp_path / 'wh'}`" in r.stdout
    progress = [ln for ln in r.stderr.splitlines() if ln.startswith("tune guilin: ")]
    assert progress[-1].startswith("tune guilin: 8 deals, ") and ", 100%, ETA 0:00" in progress[-1]
