"""Queries of the Collusion-leads page (暗中聯合做局: players who arrange games together).

Two signals, each ranked by how surprising it is under "players are seated at random and any
other seat is as likely to win" — **leads for a human to look at, never verdicts**: friends
play together, and strong players win more.

- *Sitting together*: sessions (a ``table_id``; a game without one is its own session) shared by
  a pair, against the number expected if each player's sessions had been filled at random from
  everybody's seats: E = s₁·(k̄−1)·s₂ / (S − s₁), symmetrised (sᵢ a player's sessions, S all
  player-sessions, k̄ players per session). Surprise: Poisson tail P(X ≥ observed).
- *One-way flow*: of the games where player F discarded the winning card (放炮) with player W
  at the table, how many W won. Under the null each of the other k−1 seats is equally likely:
  binomial tail P(X ≥ n; games, 1/(k−1)). The reverse flow (W feeding F) is shown beside it.

With many pairs some look surprising by chance: a lead is *flagged* by the Benjamini–Hochberg
rule over every pair looked at, so that at most :data:`FDR` of the flagged leads are expected to
be chance.
"""

from __future__ import annotations

import duckdb
import polars as pl

from analytics import stats
from dashboards.data import Filters, _q, game_filter

FDR = 0.05
"""Share of flagged leads that may be chance (Benjamini–Hochberg)."""


def pairs_together(con: duckdb.DuckDBPyConnection, f: Filters, min_together: int = 3,
                   limit: int = 50) -> tuple[pl.DataFrame, int]:
    """Pairs sharing at least ``min_together`` sessions, most surprising first.

    :returns: (frame with p1, p2, sessions (together), games (together), s1, s2, expected, ratio,
        p_value, flagged, net_p1 (p1's score in their shared games)), number of pairs that shared
        any session (the Bonferroni denominator).
    """
    df = _q(con, f"""
        WITH sg AS (SELECT s.player_id, coalesce(g.table_id, g.game_id) AS session, g.game_id, g.variant, s.score
                    FROM seats s JOIN games g ON g.game_id = s.game_id AND g.variant = s.variant
                    WHERE {game_filter(con, f=f)} AND s.player_id IS NOT NULL),
             ps AS (SELECT DISTINCT player_id, session FROM sg),
             per AS (SELECT player_id, count(*) AS sessions FROM ps GROUP BY 1),
             tot AS (SELECT count(*)::DOUBLE AS slots, count(DISTINCT session)::DOUBLE AS n_sessions FROM ps),
             pair AS (SELECT a.player_id AS p1, b.player_id AS p2, count(*) AS together
                      FROM ps a JOIN ps b ON a.session = b.session AND a.player_id < b.player_id GROUP BY 1, 2),
             games AS (SELECT a.player_id AS p1, b.player_id AS p2, count(*) AS games, sum(a.score) AS net_p1
                       FROM sg a JOIN sg b ON a.game_id = b.game_id AND a.variant = b.variant
                            AND a.player_id < b.player_id GROUP BY 1, 2)
        SELECT pair.p1, pair.p2, pair.together AS sessions, games.games, games.net_p1, x.sessions AS s1,
               y.sessions AS s2,
               (x.sessions * (tot.slots / tot.n_sessions - 1) * y.sessions / nullif(tot.slots - x.sessions, 0)
                + y.sessions * (tot.slots / tot.n_sessions - 1) * x.sessions / nullif(tot.slots - y.sessions, 0)) / 2
                 AS expected,
               (SELECT count(*) FROM pair) AS n_pairs
        FROM pair JOIN per x ON x.player_id = pair.p1 JOIN per y ON y.player_id = pair.p2
             JOIN games USING (p1, p2), tot
        WHERE pair.together >= $min_together""", {**f.params(), "min_together": int(min_together)})
    n_pairs = int(df["n_pairs"][0]) if df.height else 0
    if not df.height:
        return _empty_pairs(), n_pairs
    df = df.drop("n_pairs").with_columns(
        (pl.col("sessions") / pl.col("expected")).alias("ratio"),
        pl.struct("sessions", "expected").map_elements(
            lambda r: stats.poisson_sf(int(r["sessions"]), float(r["expected"] or 0.0)),
            return_dtype=pl.Float64).alias("p_value"))
    df = df.with_columns(pl.Series("flagged", _flags(df["p_value"].to_list(), n_pairs), dtype=pl.Boolean))
    return df.sort(["p_value", "ratio", "p1", "p2"], descending=[False, True, False, False]).head(limit), n_pairs


def _flags(p_values: list[float], n_pairs: int) -> list[bool]:
    """Benjamini–Hochberg over ``n_pairs`` tests of which only the listed (most surprising
    candidates) can be flagged: the others count as p = 1."""
    padded = list(p_values) + [1.0] * max(0, n_pairs - len(p_values))
    return stats.bh_flags(padded, FDR)[:len(p_values)]


def _empty_pairs() -> pl.DataFrame:
    return pl.DataFrame(schema={"p1": pl.String, "p2": pl.String, "sessions": pl.Int64, "games": pl.Int64,
                                "net_p1": pl.Int64, "s1": pl.Int64, "s2": pl.Int64, "expected": pl.Float64,
                                "ratio": pl.Float64, "p_value": pl.Float64, "flagged": pl.Boolean})


def one_way_flows(con: duckdb.DuckDBPyConnection, f: Filters, min_fed: int = 3,
                  limit: int = 50) -> tuple[pl.DataFrame, int]:
    """(feeder, winner) pairs where the feeder dealt in to that winner at least ``min_fed`` times.

    :returns: (frame with feeder, winner, fed (放炮 from feeder to winner), chances (feeder's
        放炮 games with the winner seated), expected (chances/(k−1)), reverse (winner's 放炮 to the
        feeder), paid (units the feeder paid in those games, stake included), share (fed /
        feeder's 放炮 in total), feeder_dianpao, p_value, flagged), number of pairs looked at.
    """
    df = _q(con, f"""
        WITH fd AS (SELECT s.game_id, s.variant, s.player_id AS feeder, s.score, g.n_seats
                    FROM seats s JOIN games g ON g.game_id = s.game_id AND g.variant = s.variant
                    WHERE {game_filter(con, f=f)} AND s.dianpao AND s.player_id IS NOT NULL),
             tot AS (SELECT feeder, count(*) AS feeder_dianpao FROM fd GROUP BY 1),
             opp AS (SELECT fd.feeder, o.player_id AS winner, count(*) AS chances,
                            count(*) FILTER (WHERE o.is_winner) AS fed,
                            sum(1.0 / (fd.n_seats - 1)) AS expected,
                            coalesce(-sum(fd.score) FILTER (WHERE o.is_winner), 0)::BIGINT AS paid
                     FROM fd JOIN seats o ON o.game_id = fd.game_id AND o.variant = fd.variant
                          AND o.player_id <> fd.feeder
                     GROUP BY 1, 2)
        SELECT opp.*, tot.feeder_dianpao, opp.fed / tot.feeder_dianpao AS share,
               coalesce(r.fed, 0) AS reverse, (SELECT count(*) FROM opp WHERE fed > 0) AS n_pairs
        FROM opp JOIN tot USING (feeder) LEFT JOIN opp r ON r.feeder = opp.winner AND r.winner = opp.feeder
        WHERE opp.fed >= $min_fed""", {**f.params(), "min_fed": int(min_fed)})
    n_pairs = int(df["n_pairs"][0]) if df.height else 0
    if not df.height:
        return pl.DataFrame(schema={"feeder": pl.String, "winner": pl.String, "fed": pl.Int64, "chances": pl.Int64,
                                    "expected": pl.Float64, "reverse": pl.Int64, "paid": pl.Int64,
                                    "share": pl.Float64, "feeder_dianpao": pl.Int64, "p_value": pl.Float64,
                                    "flagged": pl.Boolean}), n_pairs
    df = df.drop("n_pairs").with_columns(
        pl.struct("fed", "chances", "expected").map_elements(
            lambda r: stats.binom_sf(int(r["fed"]), int(r["chances"]),
                                     min(1.0, float(r["expected"]) / max(int(r["chances"]), 1))),
            return_dtype=pl.Float64).alias("p_value"))
    df = df.with_columns(pl.Series("flagged", _flags(df["p_value"].to_list(), n_pairs), dtype=pl.Boolean))
    cols = ["feeder", "winner", "fed", "chances", "expected", "reverse", "paid", "share", "feeder_dianpao",
            "p_value", "flagged"]
    return df.select(cols).sort(["p_value", "fed", "feeder", "winner"],
                                descending=[False, True, False, False]).head(limit), n_pairs
