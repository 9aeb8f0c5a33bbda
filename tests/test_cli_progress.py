"""Progress of ``make bench``: one plain line per finished section when stderr is not
a terminal (``PAIPU_PROGRESS_SECONDS=0``), drawn without a refresh thread (it would slow what is
timed)."""

from __future__ import annotations

import io

from rich.console import Console

from bench.run import Config, run
from replay.progress import Meter


def test_bench_counts_its_sections(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PAIPU_PROGRESS_SECONDS", "0")
    cfg = Config(quick=True, games=2, variants=["guilin"], hands=5, ingest_games=2, warehouse_games=50, reps=1,
                 chess_games=1, workers=1, build=str(tmp_path / "build"), out=str(tmp_path / "r.json"),
                 only=["scorer"])
    run(cfg)
    lines = [ln for ln in capsys.readouterr().err.splitlines() if ln.startswith("bench: ")]
    assert [ln.split(",")[0] for ln in lines] == ["bench: 1 sections", "bench: 2 sections", "bench: 3 sections"]
    assert lines[-1].endswith(", 100%, ETA 0:00")


def test_a_bar_without_refresh_thread_is_drawn_at_each_step():
    buf = io.StringIO()
    with Meter("bench", 2, "sections", console=Console(file=buf, force_terminal=True, width=100),
               refresh=False) as m:
        assert m._bar is not None and not m._bar.live.auto_refresh
        m.advance()
        assert "1 sections" in buf.getvalue()
        m.advance()
    assert "2 sections" in buf.getvalue() and "100%" in buf.getvalue()
