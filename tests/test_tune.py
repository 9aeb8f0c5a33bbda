"""``paipu tune`` (duplicate play) and the statistics behind it.

The main experiment is the demo warehouse's: guilin ``tuo_step=5`` (A) against ``tuo_step=3`` (B)
on the same 300 deals. The step changes how many 舵 a hand's 胡 are worth, never how the bots play,
so every outcome must be identical deal by deal and only the scores may move.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import demo_warehouse
import msgspec
import pytest
import typer
from typer.testing import CliRunner

from analytics import queries as q
from analytics import stats, tune
from ingest.views import connect


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    return demo_warehouse.build(tmp_path_factory)


def test_step3_gives_more_tuo_with_an_interval_excluding_zero(demo):
    """Mean 舵 is higher under step 3: A − B < 0 and the paired 95% interval lies below 0."""
    res = demo.tune
    assert res.sizes["pairs"] == demo_warehouse.TUNE_DEALS
    assert res.sizes["a"] == res.sizes["b"] == res.sizes["a_all"] == res.sizes["b_all"] == demo_warehouse.TUNE_DEALS
    tuo = res.row("tuo")
    assert tuo["paired"] and tuo["note"] == "differs"
    assert tuo["b"] > tuo["a"] and tuo["diff"] < 0 and tuo["hi"] < 0
    # the interval is mean ± 1.96·sd/√n of the per-deal differences
    con = connect(demo.warehouse)
    try:
        d = con.sql("""
            SELECT avg(a.tuo - b.tuo), stddev_samp(a.tuo - b.tuo), count(*) FROM games a JOIN games b
              ON json_extract_string(a.record_json, '$.x_deal') = json_extract_string(b.record_json, '$.x_deal')
            WHERE json_extract_string(a.record_json, '$.x_experiment') = $e
              AND json_extract_string(b.record_json, '$.x_experiment') = $e
              AND json_extract_string(a.record_json, '$.x_arm') = 'a'
              AND json_extract_string(b.record_json, '$.x_arm') = 'b'
              AND a.outcome = 'win' AND b.outcome = 'win'""", params={"e": res.experiment}).fetchall()[0]
    finally:
        con.close()
    mean, sd, n = d
    assert n == tuo["n_a"]
    assert tuo["diff"] == pytest.approx(mean)
    assert tuo["lo"] == pytest.approx(mean - 1.959963984540054 * sd / math.sqrt(n))
    # units carry the 舵 (plus 醒 and 自摸, unchanged; doubled for 地胡/天胡): at least the same difference
    assert res.row("units")["diff"] <= tuo["diff"] + 1e-12
    assert res.row("units")["hi"] < 0


def test_outcomes_are_identical_deal_by_deal(demo):
    """Same deals, same bots: every win/draw figure is equal in every pair (the step scores, not plays)."""
    res = demo.tune
    for m in ("draw", "dealer_win", "seat0_win", "seat1_win", "seat2_win", "zimo", "dianpao", "points",
              "xing_count", "n_actions"):
        r = res.row(m)
        assert r["n_differ"] == 0 and r["diff"] == 0 and r["note"] == "identical", m
        assert r["a"] == r["b"]
        assert r["a_lo"] == r["b_lo"] and r["a_hi"] == r["b_hi"]  # the same Wilson / mean interval
    # each seat's win rate sits inside its own interval, and the seats' rates plus 荒庄 add to 1
    total = res.row("draw")["a"] + sum(res.row(f"seat{k}_win")["a"] for k in range(3))
    assert total == pytest.approx(1.0)
    r = res.row("seat0_win")
    assert r["a_lo"] < r["a"] < r["a_hi"]


def test_records_carry_the_experiment(demo):
    """Both arms are JSON Lines with x_experiment / x_arm / x_deal and their own game ids."""
    res = demo.tune
    a_file, b_file = res.files
    a0 = json.loads(a_file.read_text(encoding="utf-8").splitlines()[0])
    b0 = json.loads(b_file.read_text(encoding="utf-8").splitlines()[0])
    assert a0["x_experiment"] == b0["x_experiment"] == res.experiment
    assert (a0["x_arm"], b0["x_arm"]) == ("a", "b") and a0["x_deal"] == b0["x_deal"] == 0
    assert a0["game_id"] == f"{res.experiment}-a-0000000" and b0["game_id"] == f"{res.experiment}-b-0000000"
    assert a0["deal"] == b0["deal"] and a0["seats"] == b0["seats"]  # the same deal, the same players
    assert a0["rules"] == {"tuo_step": 5} and b0["rules"] == {"tuo_step": 3}
    assert a_file.parent == demo.warehouse / tune.EXPERIMENTS / res.experiment
    meta = json.loads((a_file.parent / "experiment.json").read_text(encoding="utf-8"))
    assert meta["a"]["ruleset_id"] == res.ruleset_a == "guilin-default" and meta["b"]["ruleset_id"] == res.ruleset_b
    con = connect(demo.warehouse)
    try:
        arms = q.experiment_arms(con)
    finally:
        con.close()
    mine = arms.filter(arms["experiment"] == res.experiment)
    assert sorted(mine["arm"].to_list()) == ["a", "b"]
    assert mine["games"].to_list() == [demo_warehouse.TUNE_DEALS] * 2
    assert set(mine["ruleset_id"].to_list()) == {res.ruleset_a, res.ruleset_b}


def test_tag_keeps_the_record_valid():
    """A tagged record still decodes as paipu/1 (x_ fields are extensions)."""
    from replay.record import decode_record
    from replay.simulator import simulate

    rec = next(simulate("guilin", 1, 5))
    line = tune.tag(rec, "tune-guilin-x", "b", 7)
    back = decode_record(line)
    assert back.game_id == "tune-guilin-x-b-0000007" and back.deal == rec.deal
    assert msgspec.json.decode(line)["x_deal"] == 7


def _cli() -> typer.Typer:
    app = typer.Typer()
    app.command()(tune.tune_cmd)
    return app


def test_cli_prints_the_comparison_and_reruns_in_place(tmp_path: Path):
    """``paipu tune`` prints A, B, A − B with its interval; the same experiment again replaces its
    rows instead of adding them."""
    wh = tmp_path / "wh"
    args = ["--variant", "guilin", "--a", "tuo_step=5", "--b", "tuo_step=3", "--games", "8", "--seed", "3",
            "--warehouse", str(wh), "--workers", "1", "--json", str(tmp_path / "out.json"), "--bots", "heuristic"]
    res = CliRunner().invoke(_cli(), args)
    assert res.exit_code == 0, res.output
    assert "8 paired deals" in res.output and "A − B [95%]" in res.output
    assert "too few" in res.output  # 8 deals: a figure that moves is marked too few to tell
    out = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))
    assert out["a"]["rules"] == {"tuo_step": 5} and out["sizes"]["pairs"] == 8
    assert any(f["metric"] == "tuo" for f in out["figures"])
    assert CliRunner().invoke(_cli(), args).exit_code == 0
    con = connect(wh)
    try:
        assert con.sql("SELECT count(*) FROM games").fetchall()[0][0] == 16
    finally:
        con.close()


@pytest.mark.parametrize("a,b,words", [
    ("tuo_step=4", "tuo_step=3", "not allowed"),
    ("nope=1", "", "unknown option"),
    ("tuo_step=5", "", "the same"),  # 5 is guilin's default: A equals B
])
def test_cli_usage_errors(tmp_path, a, b, words):
    res = CliRunner().invoke(_cli(), ["--variant", "guilin", "--a", a, "--b", b, "--games", "2",
                                      "--warehouse", str(tmp_path / "wh"), "--workers", "1"])
    assert res.exit_code == 2 and words in res.output
    res = CliRunner().invoke(_cli(), ["--variant", "mahjong", "--games", "2", "--warehouse", str(tmp_path / "wh")])
    assert res.exit_code == 2 and "not implemented" in res.output


def test_unpaired_comparison_of_rulesets(demo):
    """Two rulesets as played (no experiment): independent samples, Newcombe / Welch intervals."""
    con = connect(demo.warehouse)
    try:
        rs = q.ruleset_games(con, "guilin")
        other = [r for r in rs["ruleset_id"].to_list() if r != "guilin-default"][0]
        a, b = q.Arm("guilin", ruleset="guilin-default"), q.Arm("guilin", ruleset=other)
        cmp = q.compare(con, a, b)
        sizes = q.arm_sizes(con, a, b)
        n_a = con.sql("""SELECT count(*) FROM games WHERE ruleset_id = 'guilin-default' AND valid
                         AND json_extract_string(record_json, '$.x_experiment') IS NULL""").fetchall()[0][0]
    finally:
        con.close()
    assert not q.is_paired(a, b)
    assert sizes["a"] == n_a and sizes["b"] == demo_warehouse.DOUBLE_GAMES  # experiments left out
    draw = cmp.filter(cmp["metric"] == "draw").row(0, named=True)
    assert draw["n_a"] == n_a and draw["n_differ"] is None and not draw["paired"]
    want = stats.diff_rates(round(draw["a"] * draw["n_a"]), draw["n_a"], round(draw["b"] * draw["n_b"]), draw["n_b"])
    assert (draw["lo"], draw["hi"]) == pytest.approx((want.lo, want.hi))


def test_stats_against_known_values():
    lo, hi = stats.wilson(0, 10)
    assert lo == 0 and hi == pytest.approx(0.2775, abs=1e-4)
    assert stats.chi2_sf(3.841458820694124, 1) == pytest.approx(0.05, abs=1e-9)
    assert stats.chi2_sf(18.307038053275146, 10) == pytest.approx(0.05, abs=1e-9)
    assert stats.chi2_sf(124.34211340400407, 100) == pytest.approx(0.05, abs=1e-7)
    assert stats.poisson_sf(3, 1.0) == pytest.approx(1 - math.exp(-1) * (1 + 1 + 0.5))
    assert stats.binom_sf(12, 12, 0.5) == pytest.approx(0.5 ** 12)
    d = stats.diff_rates(56, 70, 48, 80)  # Newcombe (1998) example: 0.2 [0.0524, 0.3339]
    assert (d.est, d.lo, d.hi) == pytest.approx((0.2, 0.0524, 0.3339), abs=1e-4)
    assert stats.paired(0.0, 0.0, 300) == stats.Interval(0.0, 0.0, 0.0)
    assert stats.bh_flags([0.0002, 0.5, 0.9]) == [True, False, False]


def test_report_leaves_experiments_out(demo):
    """``paipu report`` figures skip the experiment's games (the same deals twice would skew them)."""
    con = connect(demo.warehouse)
    try:
        total = con.sql("SELECT count(*) FROM games").fetchall()[0][0]
        seats = con.sql("SELECT count(*) FROM seats").fetchall()[0][0]
        ov = q.overview(con).row(0, named=True)
        by_seat = q.win_rate_by_seat(con)
        # the demo holds 3- and 4-seat games: the invalid games' seats are counted, not assumed 3
        invalid_seats = con.sql("SELECT count(*) FROM seats s JOIN games g USING (game_id, variant) "
                                "WHERE NOT g.valid").fetchall()[0][0]
    finally:
        con.close()
    n_exp = 2 * demo_warehouse.TUNE_DEALS
    assert ov["games"] == total - n_exp
    assert by_seat["games"].sum() == (seats - 3 * n_exp) - invalid_seats


def test_without_the_experiment_column_the_record_is_read(demo, monkeypatch):
    """Until ingest stores ``experiment``, the same figures come from ``x_experiment`` in record_json."""
    from dashboards import data

    con = connect(demo.warehouse)
    try:
        a = q.Arm("guilin", experiment=demo.tune.experiment, arm="a")
        b = q.Arm("guilin", experiment=demo.tune.experiment, arm="b")
        with_col = (q.compare(con, a, b), q.overview(con), q.win_rate_by_seat(con),
                    data.summary(con, data.Filters()), q.experiment_arms(con))
        monkeypatch.setattr(q, "has_column", lambda *args: False)
        assert "x_experiment" in q.experiment_expr(con)
        without = (q.compare(con, a, b), q.overview(con), q.win_rate_by_seat(con),
                   data.summary(con, data.Filters()), q.experiment_arms(con))
    finally:
        con.close()
    from polars.testing import assert_frame_equal

    for x, y in zip(with_col[:3], without[:3]):
        assert_frame_equal(x, y, check_exact=False)  # float sums may add up in another order
    assert with_col[3] == without[3] and with_col[3]["experiment_games"] == 2 * demo_warehouse.TUNE_DEALS
    assert with_col[4].drop("first_ingested").equals(without[4].drop("first_ingested"))


def test_cli_refuses_a_pairing_across_seat_counts(tmp_path):
    """A deal is dealt for one number of seats: 3 against 4 seats (上大人) cannot be paired by deal
    (it printed "30 paired deals" and a 荒庄率 difference of −57 pp)."""
    res = CliRunner().invoke(_cli(), ["--variant", "shangdaren", "--a", "players=3", "--b", "players=4",
                                      "--games", "2", "--warehouse", str(tmp_path / "wh"), "--workers", "1"])
    assert res.exit_code == 2 and "3 seats and B 4" in res.output


def test_bots_auto_plays_the_rule_aware_bot_only_where_it_is_stronger(monkeypatch):
    """``--bots auto``: heuristic unless replay.bots.STRONGER lists the variant; the reason is said."""
    from replay import bots

    monkeypatch.setattr(bots, "STRONGER", {})
    kind, why = tune.resolve_bots("guilin", "auto")
    assert kind == "heuristic" and "not measurably stronger" in why
    monkeypatch.setattr(bots, "STRONGER", {"guilin": ("ev", "+0.40 [+0.05, +0.75]")})
    kind, why = tune.resolve_bots("guilin", "auto")
    assert kind == "ev" and "+0.40 [+0.05, +0.75]" in why and "expected value" in why
    assert tune.resolve_bots("zipai", "auto")[0] == "heuristic"
    assert tune.resolve_bots("zipai", "random") == ("random", "random legal bot, as asked")
    with pytest.raises(ValueError, match="not known"):
        tune.resolve_bots("guilin", "nope")


def test_the_experiment_says_who_played_and_that_play_never_changed(demo):
    """The demo experiment (heuristic bots, a scoring-only option): every record says x_bots, and
    no deal was played differently — in the result and read back from the warehouse."""
    res = demo.tune
    assert res.bots == "heuristic" and res.play_changed == 0
    a0 = json.loads(res.files[0].read_text(encoding="utf-8").splitlines()[0])
    assert a0["x_bots"] == "heuristic"
    con = connect(demo.warehouse)
    try:
        assert tune.play_changes(con, res.experiment) == {"bots": ["heuristic"], "deals": demo_warehouse.TUNE_DEALS,
                                                          "changed": 0}
    finally:
        con.close()


def test_a_deal_the_rule_aware_bots_play_differently_is_counted():
    """Deal 14 of seed 2 under guilin zimo_bonus plus1 / double: the heuristic bots play it alike, the
    rule-aware bots do not (tests/test_rollout.py), and the chunk's flag says so."""
    args = ("guilin", {"zimo_bonus": "plus1"}, {"zimo_bonus": "double"}, 2, "heuristic", 14, 1, "tune-x")
    assert tune._play_chunk(args)[2] == [False]
    a, b, changed = tune._play_chunk(args[:4] + ("rollout",) + args[5:])
    assert changed == [True] and json.loads(a[0])["x_bots"] == "rollout"
    assert json.loads(a[0])["actions"] != json.loads(b[0])["actions"]
