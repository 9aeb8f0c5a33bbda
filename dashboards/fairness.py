"""Queries of the Fairness page: is the shuffle uniform, and how much is the dealer worth?

*Card positions.* Each game's deal (from ``record_json``) is cut into segments: every seat's
hand counted from the dealer (``h0`` = the dealer's hand, ``h1`` the next seat, …) and the wall in
quarters in draw order (``w1`` … ``w4``). Positions inside a hand are not used: servers may log
hands sorted. Under a uniform shuffle the copies of each card kind land in a segment in
proportion to its size, so for every ruleset the card-kind × segment table is tested with
Pearson's chi-square, df = (kinds − 1)·(segments − 1) (both margins are fixed by the deck and the
deal sizes). The first card of the wall and the first 醒 card turned are tested against the deck's
composition (df = kinds − 1).

Shuffle figures use every decoded game whose deal was readable (the verdict of the play does not
matter); dealer figures follow the sidebar's valid-only switch.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

import duckdb
import polars as pl

from analytics import stats
from dashboards import labels
from dashboards.data import Filters, _q, game_filter, scope

ALPHA = 0.001
"""A test whose p-value is below this flags the shuffle."""
MIN_GAMES = 30
"""Fewer games than this: too few to test."""
_DEAL_ERRORS = "('schema', 'bad_json', 'deck_mismatch', 'unknown_card', 'shuffle_mismatch')"
_DEAL_TYPE = '{"hands": [["VARCHAR"]], "wall": ["VARCHAR"]}'


def _deals_cte(con: duckdb.DuckDBPyConnection, f: Filters) -> str:
    return f"""
        d AS (SELECT g.variant, g.ruleset_id, g.n_seats, g.dealer,
                     from_json(json_extract(g.record_json, '$.deal'), '{_DEAL_TYPE}') AS deal
              FROM games g WHERE {scope(con, f=f)} AND g.ruleset_id IS NOT NULL AND g.dealer IS NOT NULL
                   AND (g.error_code IS NULL OR g.error_code NOT IN {_DEAL_ERRORS}))"""


def segment_counts(con: duckdb.DuckDBPyConnection, f: Filters) -> pl.DataFrame:
    """Cards per (variant, ruleset_id, n_seats, segment, card) over the deals in scope: ``n``;
    plus one row per group with segment ``_games`` and ``n`` = its number of games."""
    return _q(con, f"""
        WITH {_deals_cte(con, f)},
             hands AS (SELECT variant, ruleset_id, n_seats, dealer, generate_subscripts(deal.hands, 1) AS i,
                              unnest(deal.hands) AS hand FROM d WHERE len(deal.hands) = n_seats),
             hc AS (SELECT variant, ruleset_id, n_seats, 'h' || ((i - 1 - dealer + n_seats) % n_seats) AS segment,
                           unnest(hand) AS card FROM hands),
             wc AS (SELECT variant, ruleset_id, n_seats, len(deal.wall) AS n, generate_subscripts(deal.wall, 1) AS pos,
                           unnest(deal.wall) AS card FROM d WHERE len(deal.hands) = n_seats)
        SELECT variant, ruleset_id, n_seats, segment, card, count(*) AS n FROM hc GROUP BY ALL
        UNION ALL
        SELECT variant, ruleset_id, n_seats, 'w' || (1 + ((pos - 1) * 4) // n) AS segment, card, count(*) AS n
        FROM wc GROUP BY ALL
        UNION ALL
        SELECT variant, ruleset_id, n_seats, '_games', NULL, count(*) FROM d WHERE len(deal.hands) = n_seats
        GROUP BY ALL""", f.scope_params())


def first_cards(con: duckdb.DuckDBPyConnection, f: Filters) -> pl.DataFrame:
    """First card of the wall per (variant, ruleset_id, card): ``n``."""
    return _q(con, f"""
        WITH {_deals_cte(con, f)}
        SELECT variant, ruleset_id, deal.wall[1] AS card, count(*) AS n FROM d
        WHERE len(deal.wall) > 0 GROUP BY ALL""", f.scope_params())


def xing_first_cards(con: duckdb.DuckDBPyConnection, f: Filters) -> pl.DataFrame:
    """First 醒 card turned per (variant, ruleset_id, card): ``n`` (wins that turned one)."""
    return _q(con, f"""
        SELECT x.variant, x.ruleset_id, x.cards[1] AS card, count(*) AS n
        FROM xing x JOIN games g ON g.game_id = x.game_id AND g.variant = x.variant
        WHERE {scope(con, f=f)} AND len(x.cards) > 0 GROUP BY ALL""", f.scope_params())


def _composition(variant: str) -> tuple[Any, Counter]:
    deck = labels.deck_for(variant)
    return deck, Counter(deck.all_cards())


def _canon(deck: Any, code: Any) -> str:
    try:
        return deck.canonical(code)
    except Exception:
        return "?"


def position_tests(counts: pl.DataFrame) -> list[dict[str, Any]]:
    """Chi-square of card kind × segment per (variant, ruleset_id, n_seats).

    :returns: one dict per group: variant, ruleset_id, n_seats, games, stat, df, p_value, flagged,
        too_few, unknown (cards not of the deck), cells (frame: card, label, segment, observed,
        expected, residual = (O − E)/√E).
    """
    out = []
    groups: dict[tuple, dict[str, Any]] = defaultdict(lambda: {"games": 0, "obs": Counter()})
    for r in counts.iter_rows(named=True):
        key = (r["variant"], r["ruleset_id"], r["n_seats"])
        if r["segment"] == "_games":
            groups[key]["games"] += r["n"]
        else:
            groups[key]["obs"][(r["card"], r["segment"])] += r["n"]
    for (variant, ruleset, n_seats), g in sorted(groups.items(), key=lambda kv: tuple(map(str, kv[0]))):
        deck, comp = _composition(variant)
        total = sum(comp.values())
        obs: Counter = Counter()
        unknown = 0
        for (card, seg), n in g["obs"].items():
            c = _canon(deck, card)
            if c == "?" or c not in comp:
                unknown += n
                continue
            obs[(c, seg)] += n
        seg_size: Counter = Counter()
        for (_, seg), n in obs.items():
            seg_size[seg] += n
        segs = sorted(seg_size)
        kinds = sorted(comp, key=deck.index)
        rows, o_list, e_list = [], [], []
        for c in kinds:
            for seg in segs:
                o = obs.get((c, seg), 0)
                e = seg_size[seg] * comp[c] / total
                o_list.append(o)
                e_list.append(e)
                rows.append({"card": c, "label": labels.card_text(c, deck), "segment": seg, "observed": o,
                             "expected": e, "residual": (o - e) / e ** 0.5 if e > 0 else 0.0})
        stat = sum((o - e) ** 2 / e for o, e in zip(o_list, e_list) if e > 0)
        df = (len(kinds) - 1) * (len(segs) - 1)
        p = stats.chi2_sf(stat, df) if df >= 1 else 1.0
        too_few = g["games"] < MIN_GAMES
        out.append({"variant": variant, "ruleset_id": ruleset, "n_seats": n_seats, "games": g["games"],
                    "stat": stat, "df": df, "p_value": p, "flagged": (not too_few) and p < ALPHA,
                    "too_few": too_few, "unknown": unknown, "cells": pl.DataFrame(rows)})
    return out


def kind_tests(counts: pl.DataFrame) -> list[dict[str, Any]]:
    """Chi-square of one card per game (``first_cards`` / ``xing_first_cards``) against the deck's
    composition, per (variant, ruleset_id): variant, ruleset_id, n, stat, df, p_value, flagged,
    too_few, cells (card, label, observed, expected)."""
    out = []
    groups: dict[tuple, Counter] = defaultdict(Counter)
    for r in counts.iter_rows(named=True):
        groups[(r["variant"], r["ruleset_id"])][r["card"]] += r["n"]
    for (variant, ruleset), raw in sorted(groups.items(), key=lambda kv: tuple(map(str, kv[0]))):
        deck, comp = _composition(variant)
        total = sum(comp.values())
        obs: Counter = Counter()
        for card, n in raw.items():
            obs[_canon(deck, card)] += n
        n = sum(obs.values())
        kinds = sorted(comp, key=deck.index)
        o_list = [obs.get(c, 0) for c in kinds]
        e_list = [n * comp[c] / total for c in kinds]
        stat, df, p = stats.chi_square(o_list, e_list)
        too_few = n < MIN_GAMES
        cells = pl.DataFrame({"card": kinds, "label": [labels.card_text(c, deck) for c in kinds],
                              "observed": o_list, "expected": e_list})
        out.append({"variant": variant, "ruleset_id": ruleset, "n": n, "stat": stat, "df": df, "p_value": p,
                    "flagged": (not too_few) and p < ALPHA, "too_few": too_few, "cells": cells})
    return out


def dealer_advantage(con: duckdb.DuckDBPyConnection, f: Filters) -> pl.DataFrame:
    """Per (variant, ruleset_id, n_seats) over decided games: games, dealer_wins, other_wins,
    dealer_rate (庄家胡率), other_rate (each other seat's 胡率), fair (1/n_seats), dealer_mean
    (dealer's mean score) with dealer_sd; plus the Wilson bounds dealer_lo/dealer_hi and the
    difference dealer − other with diff_lo/diff_hi (Newcombe)."""
    df = _q(con, f"""
        SELECT g.variant, g.ruleset_id, g.n_seats, count(*) AS games,
               count(*) FILTER (WHERE g.outcome = 'win' AND g.winner = g.dealer) AS dealer_wins,
               count(*) FILTER (WHERE g.outcome = 'win' AND g.winner <> g.dealer) AS other_wins,
               count(*) FILTER (WHERE g.outcome = 'win' AND g.winner = g.dealer) / count(*) AS dealer_rate,
               count(*) FILTER (WHERE g.outcome = 'win' AND g.winner <> g.dealer) / (count(*) * (g.n_seats - 1))
                 AS other_rate,
               1 / g.n_seats AS fair, avg(s.score) AS dealer_mean, stddev_samp(s.score) AS dealer_sd
        FROM games g JOIN seats s ON s.game_id = g.game_id AND s.variant = g.variant AND s.is_dealer
        WHERE {game_filter(con, f=f)} AND g.outcome IS NOT NULL AND g.n_seats > 1
        GROUP BY g.variant, g.ruleset_id, g.n_seats ORDER BY g.variant, g.ruleset_id, g.n_seats""", f.params())
    rows = []
    for r in df.iter_rows(named=True):
        lo, hi = stats.wilson(r["dealer_wins"], r["games"])
        d = stats.diff_rates(r["dealer_wins"], r["games"], r["other_wins"], r["games"] * (r["n_seats"] - 1))
        m = stats.mean(r["dealer_mean"], r["dealer_sd"], r["games"])
        rows.append({**r, "dealer_lo": lo, "dealer_hi": hi, "diff": d.est, "diff_lo": d.lo, "diff_hi": d.hi,
                     "mean_lo": m.lo, "mean_hi": m.hi})
    return pl.DataFrame(rows) if rows else df
