"""Queries of the Player and Leaderboard pages (no Streamlit here; every user value is bound).

Figures are over seats of games in scope (sidebar filters: variant, ruleset, valid games only,
tuning experiments left out unless switched on) whose replay computed an outcome. Counters come
from SQL, rates are computed in SQL from them, intervals in :mod:`analytics.stats`.

Rates follow 雀魂牌谱屋 (amae-koromo): 胡率 win rate = wins / games, 自摸率 = self-drawn wins /
wins, 放炮率 = games in which the player discarded the winning card / games.

Ratings are openskill's Plackett–Luce (a multiplayer TrueSkill-like model; what players of these
apps know as 段位/积分 with an uncertainty), one per variant in scope: every won game in start order
ranks its seats by their settlement score (the losers who paid the same tie), and a player's
``rating`` is the conservative μ − 3σ (0 for a newcomer, rising as games confirm the skill).
"""

from __future__ import annotations

from typing import Any

import duckdb
import polars as pl

from analytics import stats
from dashboards.data import Filters, _q, game_filter

MIN_RATE_GAMES = 100
"""Percentiles compare players with at least this many games (below it a rate's 95% interval spans
more than ±10 points, too wide to place a player among others); a player's own rates are shown from
the first game, each with its interval."""
LEADERBOARD_MIN = 30
"""Default minimum games of the leaderboard (the rating's σ already discounts short records)."""

_JOIN = "seats s JOIN games g ON g.game_id = s.game_id AND g.variant = s.variant"

# per-player counters (aliases used by the rates below and by the leaderboard's sort keys)
_COUNTERS = """
    count(*) AS games,
    count(*) FILTER (WHERE s.is_winner) AS wins,
    count(*) FILTER (WHERE s.is_winner AND g.win_kind = 'zimo') AS zimo_wins,
    count(*) FILTER (WHERE s.dianpao) AS dianpao,
    count(*) FILTER (WHERE s.is_dealer) AS dealer_games,
    coalesce(sum(s.score), 0)::BIGINT AS net,
    avg(s.score) AS mean_score,
    stddev_samp(s.score) AS sd_score,
    avg(g.units) FILTER (WHERE s.is_winner) AS mean_units,
    stddev_samp(g.units) FILTER (WHERE s.is_winner) AS sd_units,
    max(g.started_at) AS last_played"""
_RATES = """wins / games AS win_rate, zimo_wins / nullif(wins, 0) AS zimo_rate,
    dianpao / games AS dianpao_rate"""

SORTS = {
    "rating": "评分 rating (openskill μ − 3σ)", "games": "局数 games", "win_rate": "胡率 win rate", "win_lo": "胡率下限 win rate (95% lower bound)",
    "mean_score": "平均得分 mean score", "net": "总得分 net score", "zimo_rate": "自摸率 self-drawn share",
    "dianpao_rate": "放炮率 deal-in rate", "mean_units": "平均分 mean units of a win",
}
"""Leaderboard sort keys (an allowlist: an identifier cannot be a bound parameter)."""


def find_players(con: duckdb.DuckDBPyConnection, f: Filters, text: str = "", limit: int = 50) -> pl.DataFrame:
    """Players whose id contains ``text`` (case-insensitive; all when empty): player_id, games;
    most games first."""
    return _q(con, f"""
        SELECT s.player_id, count(*) AS games FROM {_JOIN}
        WHERE {game_filter(con, f=f)} AND g.outcome IS NOT NULL AND s.player_id IS NOT NULL
              AND ($text = '' OR contains(lower(s.player_id), lower($text)))
        GROUP BY 1 ORDER BY games DESC, 1 LIMIT $limit""", {**f.params(), "text": text, "limit": int(limit)})


def player_summary(con: duckdb.DuckDBPyConnection, f: Filters, player: str,
                   min_games: int = MIN_RATE_GAMES) -> dict[str, Any] | None:
    """One player's counters and rates, the same figures over every seat in scope (``all_*``: the
    variant's mean a player's figure is read against), and the percentile of each rate among the
    players with at least ``min_games`` games (``*_pct`` in 0..1, None when the player has fewer;
    ``peers`` = how many players that is). None when the player has no game in scope."""
    df = _q(con, f"""
        WITH per AS (SELECT s.player_id, {_COUNTERS} FROM {_JOIN}
                     WHERE {game_filter(con, f=f)} AND g.outcome IS NOT NULL GROUP BY s.player_id),
             rated AS (SELECT *, {_RATES} FROM per),
             peers AS (SELECT player_id,
                              percent_rank() OVER (ORDER BY win_rate) AS win_rate_pct,
                              percent_rank() OVER (ORDER BY zimo_rate NULLS FIRST) AS zimo_rate_pct,
                              percent_rank() OVER (ORDER BY dianpao_rate) AS dianpao_rate_pct,
                              percent_rank() OVER (ORDER BY mean_score) AS mean_score_pct,
                              percent_rank() OVER (ORDER BY mean_units NULLS FIRST) AS mean_units_pct,
                              count(*) OVER () AS peers
                       FROM rated WHERE games >= $min_games),
             field AS (SELECT count(*) FILTER (WHERE s.is_winner) / count(*) AS all_win_rate,
                              count(*) FILTER (WHERE s.is_winner AND g.win_kind = 'zimo')
                                  / nullif(count(*) FILTER (WHERE s.is_winner), 0) AS all_zimo_rate,
                              count(*) FILTER (WHERE s.dianpao) / count(*) AS all_dianpao_rate,
                              avg(s.score) AS all_mean_score,
                              avg(g.units) FILTER (WHERE s.is_winner) AS all_mean_units
                       FROM {_JOIN} WHERE {game_filter(con, f=f)} AND g.outcome IS NOT NULL)
        SELECT r.*, p.win_rate_pct, p.zimo_rate_pct, p.dianpao_rate_pct, p.mean_score_pct, p.mean_units_pct,
               (SELECT count(*) FROM rated WHERE games >= $min_games) AS peers, field.*
        FROM rated r LEFT JOIN peers p USING (player_id) CROSS JOIN field WHERE r.player_id = $player""",
            {**f.params(), "player": player, "min_games": int(min_games)})
    if not df.height:
        return None
    row = df.row(0, named=True)
    row["win_ci"] = stats.rate(row["wins"], row["games"])
    row["zimo_ci"] = stats.rate(row["zimo_wins"], row["wins"])
    row["dianpao_ci"] = stats.rate(row["dianpao"], row["games"])
    row["score_ci"] = stats.mean(row["mean_score"], row["sd_score"], row["games"])
    row["units_ci"] = stats.mean(row["mean_units"], row["sd_units"], row["wins"])
    return row


def recent_games(con: duckdb.DuckDBPyConnection, f: Filters, player: str, limit: int = 100) -> pl.DataFrame:
    """The player's last ``limit`` games, oldest first: game_id, started_at, variant, ruleset_id,
    table_id, round, seat, is_dealer, score, is_winner, dianpao, outcome, win_kind, points, units,
    opponents (the other seats' player ids, by seat), n (1-based order), cumulative (running score)."""
    return _q(con, f"""
        WITH last AS (
            SELECT g.game_id, g.started_at, g.variant, g.ruleset_id, g.table_id, g."round", s.seat, s.is_dealer,
                   s.score, s.is_winner, s.dianpao, g.outcome, g.win_kind, g.points, g.units, g.ingested_at
            FROM {_JOIN} WHERE {game_filter(con, f=f)} AND g.outcome IS NOT NULL AND s.player_id = $player
            ORDER BY g.started_at DESC NULLS LAST, g.ingested_at DESC, g.game_id DESC LIMIT $limit)
        SELECT last.* EXCLUDE (ingested_at),
               (SELECT coalesce(list(o.player_id ORDER BY o.seat), []) FROM seats o
                WHERE o.game_id = last.game_id AND o.variant = last.variant AND o.seat <> last.seat) AS opponents,
               row_number() OVER (ORDER BY started_at NULLS FIRST, ingested_at, game_id) AS n,
               sum(score) OVER (ORDER BY started_at NULLS FIRST, ingested_at, game_id) AS cumulative
        FROM last ORDER BY n""", {**f.params(), "player": player, "limit": int(limit)})


def hand_types(con: duckdb.DuckDBPyConnection, f: Filters, player: str) -> pl.DataFrame:
    """Hand types of the player's wins (``hand_type``, ``n``, ``share`` of their wins; a win with
    none counts as ``plain``)."""
    return _q(con, f"""
        WITH w AS (SELECT CASE WHEN len(coalesce(g.hand_types, [])) = 0 THEN ['plain']
                               ELSE list_distinct(g.hand_types) END AS ht
                   FROM {_JOIN} WHERE {game_filter(con, f=f)} AND s.player_id = $player AND s.is_winner)
        SELECT hand_type, count(*) AS n, count(*) / (SELECT count(*) FROM w) AS share
        FROM (SELECT unnest(ht) AS hand_type FROM w) GROUP BY 1 ORDER BY n DESC, 1""",
              {**f.params(), "player": player})


def xing(con: duckdb.DuckDBPyConnection, f: Filters, player: str) -> pl.DataFrame:
    """醒 of the player's wins against everybody's (the player included): ``who`` (``player`` /
    ``all``), ``wins``, ``with_xing`` (wins that turned 醒), ``mean`` (醒 matched per such win),
    ``hit_rate`` (share of them with at least one)."""
    agg = """count(*) AS wins, count(g.xing_count) AS with_xing, avg(g.xing_count) AS mean,
             count(*) FILTER (WHERE g.xing_count > 0) / nullif(count(g.xing_count), 0) AS hit_rate"""
    return _q(con, f"""
        SELECT 'player' AS who, {agg} FROM {_JOIN} WHERE {game_filter(con, f=f)} AND s.is_winner AND s.player_id = $player
        UNION ALL
        SELECT 'all' AS who, {agg} FROM {_JOIN} WHERE {game_filter(con, f=f)} AND s.is_winner""",
              {**f.params(), "player": player})


def xing_counts(con: duckdb.DuckDBPyConnection, f: Filters, player: str) -> pl.DataFrame:
    """醒 matched per win of the player: ``value``, ``n``."""
    return _q(con, f"""
        SELECT g.xing_count AS value, count(*) AS n FROM {_JOIN}
        WHERE {game_filter(con, f=f)} AND s.player_id = $player AND s.is_winner AND g.xing_count IS NOT NULL
        GROUP BY 1 ORDER BY 1""", {**f.params(), "player": player})


def opponents(con: duckdb.DuckDBPyConnection, f: Filters, player: str, limit: int = 10) -> pl.DataFrame:
    """Most frequent opponents: opponent, games (together), my_wins, their_wins, my_net (the
    player's score in those games), i_fed (the player dealt in to them), they_fed."""
    return _q(con, f"""
        SELECT o.player_id AS opponent, count(*) AS games,
               count(*) FILTER (WHERE s.is_winner) AS my_wins, count(*) FILTER (WHERE o.is_winner) AS their_wins,
               coalesce(sum(s.score), 0)::BIGINT AS my_net,
               count(*) FILTER (WHERE s.dianpao AND o.is_winner) AS i_fed,
               count(*) FILTER (WHERE o.dianpao AND s.is_winner) AS they_fed
        FROM {_JOIN} JOIN seats o ON o.game_id = s.game_id AND o.variant = s.variant AND o.seat <> s.seat
        WHERE {game_filter(con, f=f)} AND g.outcome IS NOT NULL AND s.player_id = $player
        GROUP BY 1 ORDER BY games DESC, opponent LIMIT $limit""", {**f.params(), "player": player, "limit": int(limit)})


def extremes(con: duckdb.DuckDBPyConnection, f: Filters, player: str, limit: int = 5) -> pl.DataFrame:
    """The player's biggest wins and losses: kind (``win``/``loss``), game_id, started_at, score,
    variant, win_kind, points, units."""
    return _q(con, f"""
        WITH mine AS (SELECT g.game_id, g.started_at, s.score, g.variant, g.win_kind, g.points, g.units
                      FROM {_JOIN} WHERE {game_filter(con, f=f)} AND s.player_id = $player AND s.score IS NOT NULL),
             best AS (SELECT 'win' AS kind, * FROM mine WHERE score > 0 ORDER BY score DESC, game_id LIMIT $limit),
             worst AS (SELECT 'loss' AS kind, * FROM mine WHERE score < 0 ORDER BY score, game_id LIMIT $limit)
        SELECT * FROM best UNION ALL SELECT * FROM worst""", {**f.params(), "player": player, "limit": int(limit)})


def leaderboard(con: duckdb.DuckDBPyConnection, f: Filters, min_games: int = LEADERBOARD_MIN, sort: str = "rating",
                descending: bool = True, limit: int = 500) -> pl.DataFrame:
    """Players with at least ``min_games`` games: rank, player_id, games, wins, win_rate, win_lo,
    win_hi (Wilson 95%), zimo_rate, dianpao_rate, mean_score, net, mean_units, rating, mu, sigma
    (:func:`ratings`), last_played.

    ``sort`` is a key of :data:`SORTS` (``rating`` by default; ``win_lo`` ranks by the interval's
    lower bound, so a short lucky run does not top the board); ties by games, then player id.

    :raises ValueError: ``sort`` not in :data:`SORTS`.
    """
    if sort not in SORTS:
        raise ValueError(f"unknown sort {sort!r}")
    per = _q(con, f"""
        WITH per AS (SELECT s.player_id, {_COUNTERS} FROM {_JOIN}
                     WHERE {game_filter(con, f=f)} AND g.outcome IS NOT NULL AND s.player_id IS NOT NULL
                     GROUP BY s.player_id HAVING count(*) >= $min_games)
        SELECT player_id, games, wins, {_RATES}, mean_score, net, mean_units, last_played FROM per""",
             {**f.params(), "min_games": int(min_games)})
    bounds = stats.wilson_many(per["wins"].to_list(), per["games"].to_list())
    rated = ratings(con, f).select("player_id", "rating", "mu", "sigma")
    per = per.with_columns(pl.Series("win_lo", [b[0] for b in bounds], dtype=pl.Float64),
                           pl.Series("win_hi", [b[1] for b in bounds], dtype=pl.Float64)) \
        .join(rated, on="player_id", how="left")
    per = per.sort([sort, "games", "player_id"], descending=[descending, True, False], nulls_last=True)
    cols = ["player_id", "games", "wins", "win_rate", "win_lo", "win_hi", "zimo_rate", "dianpao_rate", "mean_score",
            "net", "mean_units", "rating", "mu", "sigma", "last_played"]
    return per.with_row_index("rank", offset=1).select(pl.col("rank").cast(pl.Int64), *cols).head(limit)


def rank(con: duckdb.DuckDBPyConnection, f: Filters, player: str,
         min_games: int = LEADERBOARD_MIN) -> dict[str, Any]:
    """The player's place on the leaderboard as the Leaderboard page shows it by default: sorted by
    rating (ties by games, then id) among the players with at least ``min_games`` games in scope —
    the one rank both pages show. ``{"rank": int | None (None: fewer games or unrated), "of":
    players ranked, "min_games"}``."""
    board = leaderboard(con, f, min_games, "rating", True, limit=1_000_000)
    mine = board.filter(pl.col("player_id") == player)
    return {"rank": int(mine["rank"][0]) if mine.height else None, "of": board.height, "min_games": int(min_games)}


def _rating_games(con: duckdb.DuckDBPyConnection, f: Filters) -> pl.DataFrame:
    """Won games in scope with every seat's player and score, in start order (one row a game)."""
    return _q(con, f"""
        SELECT g.variant, g.game_id, any_value(g.started_at) AS started_at,
               list(s.player_id ORDER BY s.seat) AS players, list(s.score ORDER BY s.seat) AS scores
        FROM {_JOIN} WHERE {game_filter(con, f=f)} AND g.outcome = 'win'
        GROUP BY g.variant, g.game_id
        HAVING count(*) = count(s.player_id) AND count(*) = count(s.score) AND count(DISTINCT s.player_id) = count(*)
        ORDER BY started_at NULLS FIRST, g.game_id""", f.params())


def _rate(games: pl.DataFrame, track: str | None = None) -> tuple[dict[tuple[str, str], Any], list[dict[str, Any]]]:
    """openskill Plackett–Luce over ``games`` (per variant): the final rating of every (variant,
    player) and, for ``track``, the rating after each of its games."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    now: dict[tuple[str, str], Any] = {}
    hist: list[dict[str, Any]] = []
    for v, gid, at, who, scores in games.iter_rows():
        teams = [[now.get((v, p)) or model.rating(name=p)] for p in who]
        out = model.rate(teams, scores=list(scores))
        for p, (r,) in zip(who, out):
            now[(v, p)] = r
            if p == track:
                hist.append({"variant": v, "game_id": gid, "started_at": at, "mu": r.mu, "sigma": r.sigma,
                             "rating": r.ordinal()})
    return now, hist


def ratings(con: duckdb.DuckDBPyConnection, f: Filters) -> pl.DataFrame:
    """openskill Plackett–Luce ratings of the players over the won games in scope, per variant:
    variant, player_id, rated (games rated), mu, sigma, rating (μ − 3σ); best first."""
    games = _rating_games(con, f)
    now, _ = _rate(games)
    count: dict[tuple[str, str], int] = {}
    for v, who in zip(games["variant"].to_list(), games["players"].to_list()):
        for p in who:
            count[(v, p)] = count.get((v, p), 0) + 1
    rows = [{"variant": v, "player_id": p, "rated": count[(v, p)], "mu": r.mu, "sigma": r.sigma, "rating": r.ordinal()}
            for (v, p), r in now.items()]
    schema = {"variant": pl.String, "player_id": pl.String, "rated": pl.Int64, "mu": pl.Float64, "sigma": pl.Float64,
              "rating": pl.Float64}
    return pl.DataFrame(rows, schema=schema).sort(["rating", "player_id"], descending=[True, False])


def rating_history(con: duckdb.DuckDBPyConnection, f: Filters, player: str) -> pl.DataFrame:
    """``player``'s rating after each of its won games in scope (the whole field rated in start
    order): variant, game_id, started_at, n (1-based), mu, sigma, rating."""
    _, hist = _rate(_rating_games(con, f), player)
    schema = {"variant": pl.String, "game_id": pl.String, "started_at": pl.Datetime("us", "UTC"), "mu": pl.Float64,
              "sigma": pl.Float64, "rating": pl.Float64}
    return pl.DataFrame(hist, schema=schema).with_row_index("n", offset=1).with_columns(pl.col("n").cast(pl.Int64))


def player_rulesets(con: duckdb.DuckDBPyConnection, f: Filters, player: str) -> pl.DataFrame:
    """Where the player played, within the filters: variant, ruleset_id, games, wins, net."""
    return _q(con, f"""
        SELECT g.variant, g.ruleset_id, count(*) AS games, count(*) FILTER (WHERE s.is_winner) AS wins,
               coalesce(sum(s.score), 0)::BIGINT AS net
        FROM {_JOIN} WHERE {game_filter(con, f=f)} AND g.outcome IS NOT NULL AND s.player_id = $player
        GROUP BY ALL ORDER BY games DESC, g.variant, g.ruleset_id""", {**f.params(), "player": player})


def player_variants(con: duckdb.DuckDBPyConnection, player: str) -> pl.DataFrame:
    """Every variant the player sat in (whatever the sidebar's scope), outside experiments:
    variant, games; most first (the player page's links when the scope has none of theirs)."""
    from analytics.queries import no_experiment

    return _q(con, f"""
        SELECT s.variant, count(*) AS games FROM seats s
        WHERE s.player_id = $player AND {no_experiment(con, "seats", "s")}
        GROUP BY 1 ORDER BY games DESC, 1""", {"player": player})
