"""``paipu simulate`` shows its progress: plain lines with the count, rate, share and
time left when stderr is not a terminal (``PAIPU_PROGRESS_SECONDS=0``: at every chunk), a rich bar
with rate and ETA on one; the games do not depend on how they are cut into chunks."""

from __future__ import annotations

import io

from rich.console import Console
from typer.testing import CliRunner

from paipu.cli import app
from replay.progress import Meter


def test_simulate_prints_plain_progress_lines(tmp_path, monkeypatch):
    monkeypatch.setenv("PAIPU_PROGRESS_SECONDS", "0")
    out1, out2 = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    r = CliRunner().invoke(app, ["simulate", "--variant", "zipai", "--games", "40", "--workers", "1", "--out", str(out1)])
    assert r.exit_code == 0, r.output
    lines = [ln for ln in r.stderr.splitlines() if ln.startswith("simulate zipai: ")]
    # one worker: chunks of whole tables of 8, at least 4 a worker → 16 + 16 + 8
    assert [ln.split(",")[0] for ln in lines] == ["simulate zipai: 16 games", "simulate zipai: 32 games",
                                                  "simulate zipai: 40 games"]
    assert lines[-1].endswith(", 100%, ETA 0:00")
    r = CliRunner().invoke(app, ["simulate", "--variant", "zipai", "--games", "40", "--workers", "2", "--out", str(out2)])
    assert out1.read_bytes() == out2.read_bytes()


def test_a_terminal_gets_a_bar_with_rate_and_eta():
    buf = io.StringIO()
    console = Console(file=buf, force_terminal=True, width=100)
    with Meter("simulate guilin", 10, console=console) as m:
        for _ in range(10):
            m.advance(1)
    shown = buf.getvalue()
    assert "simulate guilin" in shown and "10 games" in shown and "/s" in shown and "ETA" in shown
    assert "100%" in shown


def test_simulate_takes_one_bot_a_seat(tmp_path):
    """`--bots heuristic,random,heuristic` plays seat 1 with the random bot (auditor's finding: the
    command refused the list it advertises); a list of the wrong length or an unknown kind is a
    usage error naming it."""
    import json

    out = tmp_path / "mix.jsonl"
    args = ["simulate", "--variant", "sanjing_huapai", "--games", "2", "--workers", "1", "--out", str(out)]
    r = CliRunner().invoke(app, [*args, "--bots", "heuristic,random,heuristic"])
    assert r.exit_code == 0, r.output
    ids = [json.loads(x)["game_id"] for x in out.read_text().splitlines()]
    assert len(ids) == 2 and all("heuristic+random+heuristic" in g for g in ids), ids
    r = CliRunner().invoke(app, [*args, "--bots", "heuristic,random"])
    assert r.exit_code == 2 and "names 2 seats; sanjing_huapai plays 3" in r.stderr
    r = CliRunner().invoke(app, [*args, "--bots", "heuristic,nope,heuristic"])
    assert r.exit_code == 2 and "'nope' not known for sanjing_huapai" in r.stderr
