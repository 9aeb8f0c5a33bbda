"""The report's figures as polars DataFrames (SQL over the views of ``analytics.views``).

Every function takes the root connection (it opens its own cursor) and optional filters
``variant`` and ``ruleset`` (a ``ruleset_id``), always passed as bound parameters. The warehouse
stores counters; rates are computed here, in SQL, as ``DOUBLE`` in 0..1 (None when the
denominator is 0).

Game-play figures count **valid games only**: an invalid game's log broke a rule or its claimed
settlement differs from the engine's, so its play is not trusted; ``overview`` and
``errors_by_code`` show how many were left out. Rejects have no ruleset: they are filtered by
variant only.
"""

from __future__ import annotations

from typing import Any

import duckdb
import polars as pl


def _where(variant: str | None, ruleset: str | None, *, valid: bool = True,
           use_ruleset: bool = True) -> tuple[str, dict[str, Any]]:
    """A WHERE clause with named placeholders and its parameters (values are never formatted in)."""
    conds, params = ["TRUE"], {}
    if valid:
        conds.append("valid")
    if variant is not None:
        conds.append("variant = $variant")
        params["variant"] = variant
    if ruleset is not None and use_ruleset:
        conds.append("ruleset_id = $ruleset")
        params["ruleset"] = ruleset
    return " AND ".join(conds), params


def _df(con: duckdb.DuckDBPyConnection, sql: str, params: dict[str, Any]) -> pl.DataFrame:
    cur = con.cursor()
    try:
        return cur.sql(sql, params=params or None).pl()
    finally:
        cur.close()


def overview(con: duckdb.DuckDBPyConnection, variant: str | None = None, ruleset: str | None = None) -> pl.DataFrame:
    """One row: ``games`` (decoded records), ``valid``, ``invalid``, ``rejects`` (lines that are
    not records of an implemented variant), ``read = games + rejects``, ``valid_rate`` (of games)."""
    w, p = _where(variant, ruleset, valid=False)
    wr, pr = _where(variant, None, valid=False, use_ruleset=False)
    sql = f"""
        WITH g AS (SELECT count(*) AS games, count(*) FILTER (WHERE valid) AS valid,
                          count(*) FILTER (WHERE NOT valid) AS invalid FROM games WHERE {w}),
             r AS (SELECT count(*) AS rejects FROM rejects WHERE {wr})
        SELECT games, valid, invalid, rejects, games + rejects AS read,
               valid / nullif(games, 0) AS valid_rate
        FROM g, r"""
    return _df(con, sql, {**p, **pr})


def rejects_by_code(con: duckdb.DuckDBPyConnection, variant: str | None = None) -> pl.DataFrame:
    """Rejected lines by ``code`` and ``rule``: columns code, rule, n (most frequent first)."""
    w, p = _where(variant, None, valid=False, use_ruleset=False)
    return _df(con, f"SELECT code, rule, count(*) AS n FROM rejects WHERE {w} GROUP BY ALL ORDER BY n DESC, code, rule", p)


def errors_by_code(con: duckdb.DuckDBPyConnection, variant: str | None = None,
                   ruleset: str | None = None) -> pl.DataFrame:
    """Invalid games by their first error: columns error_code, error_rule, n."""
    w, p = _where(variant, ruleset, valid=False)
    return _df(con, f"""SELECT error_code, error_rule, count(*) AS n FROM games WHERE {w} AND NOT valid
                        GROUP BY ALL ORDER BY n DESC, error_code, error_rule""", p)


def win_rate_by_seat(con: duckdb.DuckDBPyConnection, variant: str | None = None,
                     ruleset: str | None = None) -> pl.DataFrame:
    """胡率 by seat number: columns seat, games, wins, win_rate (wins / games)."""
    w, p = _where(variant, ruleset)
    return _df(con, f"""SELECT *, wins / games AS win_rate FROM (
                            SELECT seat, count(*) AS games, count(*) FILTER (WHERE is_winner) AS wins
                            FROM seats WHERE {w} GROUP BY seat) ORDER BY seat""", p)


def win_rate_by_dealer(con: duckdb.DuckDBPyConnection, variant: str | None = None,
                       ruleset: str | None = None) -> pl.DataFrame:
    """胡率 of 庄家 (dealer) against 闲家 (the others): columns is_dealer, seat_games (seat-games
    played in that role), wins, win_rate; dealer row first."""
    w, p = _where(variant, ruleset)
    return _df(con, f"""SELECT *, wins / seat_games AS win_rate FROM (
                            SELECT is_dealer, count(*) AS seat_games, count(*) FILTER (WHERE is_winner) AS wins
                            FROM seats WHERE {w} GROUP BY is_dealer) ORDER BY is_dealer DESC""", p)


def draw_rate(con: duckdb.DuckDBPyConnection, variant: str | None = None, ruleset: str | None = None) -> pl.DataFrame:
    """荒庄 (wall exhausted, nobody won): one row games, draws, draw_rate."""
    w, p = _where(variant, ruleset)
    return _df(con, f"""SELECT *, draws / nullif(games, 0) AS draw_rate FROM (
                            SELECT count(*) AS games, count(*) FILTER (WHERE outcome = 'draw') AS draws
                            FROM games WHERE {w})""", p)


def hand_type_freq(con: duckdb.DuckDBPyConnection, variant: str | None = None,
                   ruleset: str | None = None) -> pl.DataFrame:
    """Hand types (番型 ids, spec §5) over wins: columns hand_type, wins, share (of all wins).

    A win with no hand type counts as ``plain`` (平胡); a win with several counts once under
    each, so shares can add up to more than 1.
    """
    w, p = _where(variant, ruleset)
    return _df(con, f"""
        WITH wins AS (SELECT CASE WHEN len(coalesce(hand_types, [])) = 0 THEN ['plain']
                                  ELSE list_distinct(hand_types) END AS ht
                      FROM games WHERE {w} AND outcome = 'win'),
             t AS (SELECT unnest(ht) AS hand_type FROM wins)
        SELECT hand_type, count(*) AS wins, count(*) / (SELECT count(*) FROM wins) AS share
        FROM t GROUP BY hand_type ORDER BY wins DESC, hand_type""", p)


def xing_distribution(con: duckdb.DuckDBPyConnection, variant: str | None = None,
                      ruleset: str | None = None) -> pl.DataFrame:
    """醒 count of the wins: columns xing_count (null: no 醒 turned, e.g. after 海底), wins, share."""
    w, p = _where(variant, ruleset)
    return _df(con, f"""SELECT *, wins / sum(wins) OVER () AS share FROM (
                            SELECT xing_count, count(*) AS wins FROM games WHERE {w} AND outcome = 'win'
                            GROUP BY xing_count) ORDER BY xing_count NULLS FIRST""", p)


def mean_points(con: duckdb.DuckDBPyConnection, variant: str | None = None,
                ruleset: str | None = None) -> pl.DataFrame:
    """Per variant (units differ between variants): wins, mean_points (胡 / 胡息 / …), mean_tuo
    (舵, null where the variant has none), mean_units (one losing share before stake)."""
    w, p = _where(variant, ruleset)
    return _df(con, f"""SELECT variant, count(*) AS wins, avg(points) AS mean_points, avg(tuo) AS mean_tuo,
                               avg(units) AS mean_units
                        FROM games WHERE {w} AND outcome = 'win' GROUP BY variant ORDER BY variant""", p)


def win_kind_mix(con: duckdb.DuckDBPyConnection, variant: str | None = None,
                 ruleset: str | None = None) -> pl.DataFrame:
    """How wins came: columns win_kind (``zimo`` 自摸, ``dianpao`` 点炮, ``flip`` another seat's
    flip, ``deal`` 天胡 / 三笼五坎), wins, share."""
    w, p = _where(variant, ruleset)
    return _df(con, f"""SELECT *, wins / sum(wins) OVER () AS share FROM (
                            SELECT win_kind, count(*) AS wins FROM games WHERE {w} AND outcome = 'win'
                            GROUP BY win_kind) ORDER BY wins DESC, win_kind""", p)


def score_flow(con: duckdb.DuckDBPyConnection, variant: str | None = None, ruleset: str | None = None,
               limit: int | None = None) -> pl.DataFrame:
    """Score flow per player (stake included): columns player_id, games, won (sum of gains),
    lost (sum of losses, ≤ 0), net (won + lost); biggest winner first. Over all players the
    nets sum to 0."""
    w, p = _where(variant, ruleset)
    lim = ""
    if limit is not None:
        lim, p = "LIMIT $limit", {**p, "limit": int(limit)}
    return _df(con, f"""SELECT player_id, count(*) AS games,
                               coalesce(sum(score) FILTER (WHERE score > 0), 0)::BIGINT AS won,
                               coalesce(sum(score) FILTER (WHERE score < 0), 0)::BIGINT AS lost,
                               coalesce(sum(score), 0)::BIGINT AS net
                        FROM seats WHERE {w} GROUP BY player_id ORDER BY net DESC, player_id {lim}""", p)


def player_stats(con: duckdb.DuckDBPyConnection, variant: str | None = None, ruleset: str | None = None,
                 min_games: int = 1, limit: int | None = None) -> pl.DataFrame:
    """Per player: games, wins, win_rate (胡率, wins / games), zimo_wins, zimo_share (自摸率, of
    the player's wins), dianpao (点炮: times the player discarded the winning card),
    dianpao_rate (per game), total_score, mean_score. Most games first; players with fewer than
    ``min_games`` games left out."""
    w, p = _where(variant, ruleset)
    p = {**p, "min_games": int(min_games)}
    lim = ""
    if limit is not None:
        lim, p = "LIMIT $limit", {**p, "limit": int(limit)}
    return _df(con, f"""
        SELECT player_id, games, wins, wins / games AS win_rate, zimo_wins,
               zimo_wins / nullif(wins, 0) AS zimo_share, dianpao, dianpao / games AS dianpao_rate,
               total_score, mean_score
        FROM (SELECT player_id, count(*) AS games, count(*) FILTER (WHERE is_winner) AS wins,
                     count(*) FILTER (WHERE is_winner AND win_kind = 'zimo') AS zimo_wins,
                     count(*) FILTER (WHERE dianpao) AS dianpao,
                     coalesce(sum(score), 0)::BIGINT AS total_score, avg(score) AS mean_score
              FROM seats WHERE {w} GROUP BY player_id HAVING count(*) >= $min_games)
        ORDER BY games DESC, total_score DESC, player_id {lim}""", p)


def variants_and_rulesets(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Which (variant, ruleset_id) pairs the warehouse holds: columns variant, ruleset_id, games."""
    return _df(con, """SELECT variant, ruleset_id, count(*) AS games FROM games
                       GROUP BY ALL ORDER BY variant, ruleset_id NULLS LAST""", {})
