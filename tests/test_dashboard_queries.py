"""The fast forms of the page and report queries (p95 ≤ 300 ms on 1M games) give the
same figures as the plain SQL they replace, on the demo warehouse (real ingest: invalid games,
a tuning experiment, two rulesets) under every kind of filter.

The seat figures read ``seats`` without joining ``games``; this pins that ``seats`` carries what
the join supplied (variant, ruleset_id, valid, experiment, and ``is_winner`` null exactly when
``games.outcome`` is)."""

from __future__ import annotations

import demo_warehouse
import pytest
from polars.testing import assert_frame_equal

from analytics import queries as q
from dashboards import data
from ingest.views import connect

# the plain forms: seats joined with games, one scan per figure, list functions on every win
SEATS_JOIN = """
    SELECT s.{key}, count(*) AS {n}, count(*) FILTER (WHERE s.is_winner) AS wins,
           count(*) FILTER (WHERE s.is_winner) / count(*) AS rate
    FROM seats s JOIN games g ON g.game_id = s.game_id AND g.variant = s.variant
    WHERE {flt} AND g.outcome IS NOT NULL {extra} GROUP BY 1 ORDER BY 1 {order}"""
SUMMARY = """
    SELECT count(*) FILTER (WHERE {scope}) AS games, count(*) FILTER (WHERE {scope} AND g.valid) AS valid,
           count(*) FILTER (WHERE {scope} AND NOT g.valid) AS invalid,
           count(*) FILTER (WHERE {exp} IS NOT NULL) AS experiment_games,
           count(*) FILTER (WHERE {flt} AND g.outcome IS NOT NULL) AS decided,
           count(*) FILTER (WHERE {flt} AND g.outcome = 'win') AS wins,
           count(*) FILTER (WHERE {flt} AND g.outcome = 'draw') AS draws,
           avg(g.points) FILTER (WHERE {flt} AND g.outcome = 'win') AS mean_points,
           avg(g.tuo) FILTER (WHERE {flt} AND g.outcome = 'win') AS mean_tuo,
           avg(g.units) FILTER (WHERE {flt} AND g.outcome = 'win') AS mean_units
    FROM games g WHERE {base}"""
HAND_TYPE_FREQ = """
    WITH wins AS (SELECT CASE WHEN len(coalesce(hand_types, [])) = 0 THEN ['plain']
                              ELSE list_distinct(hand_types) END AS ht FROM games WHERE {w} AND outcome = 'win')
    SELECT hand_type, count(*) AS wins, count(*) / (SELECT count(*) FROM wins) AS share
    FROM (SELECT unnest(ht) AS hand_type FROM wins) GROUP BY hand_type ORDER BY wins DESC, hand_type"""
PLAYER_STATS = """
    SELECT player_id, games, wins, wins / games AS win_rate, zimo_wins, zimo_wins / nullif(wins, 0) AS zimo_share,
           dianpao, dianpao / games AS dianpao_rate, total_score, mean_score
    FROM (SELECT player_id, count(*) AS games, count(*) FILTER (WHERE is_winner) AS wins,
                 count(*) FILTER (WHERE is_winner AND win_kind = 'zimo') AS zimo_wins,
                 count(*) FILTER (WHERE dianpao) AS dianpao,
                 coalesce(sum(score), 0)::BIGINT AS total_score, avg(score) AS mean_score
          FROM seats WHERE {w} GROUP BY player_id HAVING count(*) >= 1)
    ORDER BY games DESC, total_score DESC, player_id"""
SCORE_FLOW = """
    SELECT player_id, count(*) AS games, coalesce(sum(score) FILTER (WHERE score > 0), 0)::BIGINT AS won,
           coalesce(sum(score) FILTER (WHERE score < 0), 0)::BIGINT AS lost, coalesce(sum(score), 0)::BIGINT AS net
    FROM seats WHERE {w} GROUP BY player_id ORDER BY net DESC, player_id"""


def same(got, want, what) -> None:
    """Equal values and dtypes (polars' ``equals`` takes Decimal(38, 0) for Int64)."""
    try:
        assert_frame_equal(got, want, check_exact=True)
    except AssertionError as e:
        raise AssertionError(f"{what}: {e}") from None


@pytest.fixture(scope="module")
def con(tmp_path_factory):
    c = connect(demo_warehouse.build(tmp_path_factory).warehouse)
    yield c
    c.close()


def _filters(con) -> list[data.Filters]:
    rulesets = data.filter_choices(con)["rulesets"]
    assert len(rulesets) >= 3  # defaults, zimo_bonus=double, the experiment's two arms
    return [data.Filters(), data.Filters(valid_only=False), data.Filters(experiments=True),
            data.Filters(experiments=True, valid_only=False),
            data.Filters(variants=("guilin",), rulesets=(rulesets[0],)),
            data.Filters(rulesets=tuple(rulesets[1:]), valid_only=False), data.Filters(variants=("nope",))]


@pytest.mark.parametrize("no_column", [False, True], ids=["experiment column", "x_experiment in record_json"])
def test_page_queries_equal_the_plain_sql(con, monkeypatch, no_column):
    if no_column:
        monkeypatch.setattr(q, "has_column", lambda *args: False)
    assert data.filter_choices(con) == {
        k: data._q(con, f"SELECT DISTINCT {c} FROM games WHERE {c} IS NOT NULL ORDER BY 1")[c].to_list()
        for k, c in (("variants", "variant"), ("rulesets", "ruleset_id"))}
    exp = f"({q.experiment_expr(con)})"
    scope = f"{data._SCOPE} AND ($experiments OR {exp} IS NULL)"
    flt = f"{scope} AND (NOT $valid_only OR g.valid)"
    for f in _filters(con):
        p = f.params()
        for fn, key, n, extra, order in ((data.win_rate_by_seat, "seat", "games", "", ""),
                                         (data.win_rate_by_role, "is_dealer", "seats", "AND s.is_dealer IS NOT NULL",
                                          "DESC")):
            want = data._q(con, SEATS_JOIN.format(key=key, n=n, flt=flt, extra=extra, order=order), p)
            same(fn(con, f), want, (fn.__name__, f))
        want = data._q(con, SUMMARY.format(scope=scope, flt=flt, exp=exp, base=data._SCOPE), p).row(0, named=True)
        got = data.summary(con, f)
        assert {k: got[k] for k in want} == want, f


def test_report_queries_equal_the_plain_sql(con):
    for variant, ruleset in ((None, None), ("guilin", None), ("nope", None),
                             *((None, r) for r in data.filter_choices(con)["rulesets"])):
        w, p = q._where(con, "games", variant, ruleset)
        same(q.hand_type_freq(con, variant, ruleset), q._df(con, HAND_TYPE_FREQ.format(w=w), p), (variant, ruleset))
        w, p = q._where(con, "seats", variant, ruleset)
        same(q.player_stats(con, variant, ruleset), q._df(con, PLAYER_STATS.format(w=w), p), (variant, ruleset))
        same(q.score_flow(con, variant, ruleset), q._df(con, SCORE_FLOW.format(w=w), p), (variant, ruleset))
