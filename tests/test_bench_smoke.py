"""bench/ smoke test: every section of ``make bench`` on tiny inputs; checks the shape of the
results, never a timing (CI does not fail on speed)."""

from __future__ import annotations

import json

import pytest

from bench.hands import build_hands, time_scorer
from bench.run import Config, figures, run, table, targets

pytestmark = pytest.mark.long  # started first (tests/conftest.py)


def test_hand_corpus_is_fixed_and_the_scorer_timer_reports_cold_and_warm():
    a, b = build_hands(40, seed=3), build_hands(40, seed=3)
    assert a == b and len(a) == 40
    for hand, melds, w, wf in a:
        total = list(hand)
        for _, cards in melds:
            for k in cards:
                total[k] += 1
        if w is not None:
            total[w] += 1
        assert len(hand) == 20 and max(total) <= 4 and wf in (None, "self", "flip", "discard")
    r = time_scorer(a)
    assert r["hands"] == 40 and sum(r["mix"].values()) == 40 and len(r["checksum"]) == 16
    assert r["cold_hands_per_s"] > 0 and r["warm_hands_per_s"] > 0


def test_every_section_runs_on_tiny_inputs_and_writes_its_results(tmp_path):
    cfg = Config(quick=True, games=4, variants=["guilin"], hands=30, ingest_games=3, warehouse_games=400,
                 reps=1, chess_games=2, workers=1, build=str(tmp_path / "build"), out=str(tmp_path / "r.json"),
                 duplicate_deals=2)
    res = run(cfg)
    assert json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["meta"]["config"]["games"] == 4
    rep = res["replay"]["variants"]["guilin"]
    assert rep["games"] == 4 and rep["valid"] == 4 and rep["events"] > 0 and rep["first_error"] is None
    for k in ("decode_events_per_s", "replay_events_per_s", "replay_games_per_s", "decode_replay_events_per_s"):
        assert rep[k] > 0
    assert res["scorer"]["guilin"]["hands"] == 30
    runs = res["ingest"]["runs"]
    assert set(runs) == {"w1", "w2"} and all(r["games"] == 3 and r["valid"] == 3 for r in runs.values())
    assert all(r["peak_rss_mb"] > 0 for r in runs.values())
    writers = res["ingest"]["writers"]  # 1, 2, 4 ingests at once, each its own 3 games
    assert {k: (w["games"], w["commit_attempts"]) for k, w in writers.items()} == {
        "n1": (3, [1]), "n2": (6, [1, 1]), "n4": (12, [1, 1, 1, 1])}
    assert res["ingest"]["dask"]["games"] == 3 and "ingest.writers.n4.games_per_s" in res["figures"]
    q = res["queries"]
    assert q["warehouse_info"]["rows"]["games"] == 400 and q["queries"]
    assert q["warehouse_info"]["format"] == "ducklake"  # the queries read the lakehouse
    broken = {k: v["error"] for k, v in q["queries"].items() if "error" in v}
    assert not broken, broken
    assert {v["page"] for v in q["queries"].values()} >= {"overview", "hand_types", "audit", "report"}
    dup = res["duplicate"]["variants"]["guilin"]
    assert dup["deals"] == 2 and dup["low"] <= dup["units_per_game"] <= dup["high"] and len(dup["seat_units"]) == 3
    f = res["figures"]
    assert "duplicate.guilin.low" in f and any(t["figure"] == "duplicate.guilin.low" for t in res["targets"])
    assert "replay.guilin.replay.events_per_s" in f and "scorer.guilin.cold.hands_per_s" in f
    assert any(k.startswith("query.") and k.endswith(".p95_ms") for k in f)
    assert all(set(v) == {"value", "unit", "better", "x_yardstick"} for v in f.values())
    assert figures(res).keys() <= f.keys() and targets(res) == res["targets"]
    text = table(res, {"meta": {"git_commit": "abc"}, "figures": {k: {"value": v["value"] * 2} for k, v in f.items()}})
    assert "replay.guilin.replay.events_per_s" in text and "targets:" in text and "0.50×" in text
