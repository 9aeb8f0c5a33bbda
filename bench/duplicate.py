"""Duplicate matches: the rule-aware bot (``ev``, replay/evbot.py; ``rollout``, replay/rollout.py, on
request) against the heuristic bot.

Every deal is played ``n + 1`` times: once with the heuristic bot at every seat (the baseline), and
once per seat ``r`` with the challenger at ``r`` and the heuristic bot at the others (the seats
rotated). The same deal and the same random stream per seat in every game (replay.simulator), so
the heuristic seats play the baseline's game until the challenger's first different choice. The
figure per deal is the mean over ``r`` of ``units of seat r with the challenger there − units of
seat r in the baseline`` (units per game the challenger gains in that seat); the result is its mean
over the deals with a 95% interval (± 1.96·sd/√n, deals independent).

Each game is simulated on its own (``simulate(..., games=1, start=i)``): a variant whose dealer
follows the previous hand (沅江 定庄) then deals deal *i* alike in every game of the match.
"""

from __future__ import annotations

import math
import time
from typing import Any, Mapping

from replay.workers import process_pool


def _deal(args: tuple) -> dict[str, Any]:
    """One deal of a match: the per-seat gains, the challenger's games' facts and their time."""
    variant, rules, seed, i, challenger = args
    from replay.simulator import simulate

    base = next(simulate(variant, 1, seed, "heuristic", rules, start=i))
    n = len(base.seats)
    gains, zimo, wins, steps = [], 0, 0, 0
    t0 = time.process_time()
    for r in range(n):
        kinds = ",".join(challenger if s == r else "heuristic" for s in range(n))
        rec = next(simulate(variant, 1, seed, kinds, rules, start=i))
        gains.append(rec.result.scores[r] - base.result.scores[r])
        if rec.result.winner == r:
            wins += 1
            zimo += rec.result.from_ == r or rec.result.from_ is None
        steps += len(rec.actions)
    cpu = time.process_time() - t0
    base_win = base.result.winner
    return {"gain": sum(gains) / n, "seat_gains": gains, "wins": wins, "zimo": zimo, "games": n, "cpu": cpu,
            "base_wins": int(base_win is not None), "steps": steps}


def self_play_speed(variant: str, games: int, seed: int = 1, bot: str = "ev",
                    rules: Mapping[str, Any] | None = None) -> float:
    """Games a CPU second with ``bot`` at every seat (what ``paipu tune --bots`` costs), over
    ``games`` games from deal 0, the expected-value bot's memo cleared first (cold, as a fresh
    ``paipu tune`` worker starts)."""
    from replay import evbot
    from replay.simulator import simulate

    evbot._MEMO.clear()
    t0 = time.process_time()
    for _ in simulate(variant, games, seed, bot, rules):
        pass
    return round(games / max(1e-9, time.process_time() - t0), 3)


def interval(xs: list[float]) -> tuple[float, float, float]:
    """(mean, low, high) of ``xs`` with the normal 95% interval (± 1.96·sd/√n); (mean, nan, nan)
    below two values."""
    n = len(xs)
    m = sum(xs) / n
    if n < 2:
        return m, math.nan, math.nan
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1))
    h = 1.96 * sd / math.sqrt(n)
    return m, m - h, m + h


def match(variant: str, deals: int, seed: int = 1, rules: Mapping[str, Any] | None = None,
          challenger: str = "ev", workers: int = 1, start: int = 0, speed_games: int = 20) -> dict[str, Any]:
    """A duplicate match of ``challenger`` against the heuristic bot on ``deals`` deals (deal
    indices ``start …``; two matches on consecutive ranges combine with :func:`combine`).

    :returns: ``{"variant", "deals", "units_per_game", "low", "high", "seat_units" (per seat),
        "win_rate" (challenger's games won by the challenger's seat), "zimo_share" (of those wins),
        "games_per_s" (challenger games per CPU second, one challenger seat a game), "self_play_games_per_s"
        (:func:`self_play_speed` on ``speed_games`` games, every seat the challenger; 0: not measured),
        "gains" (per deal)}``.
    """
    jobs = [(variant, dict(rules or {}), seed, i, challenger) for i in range(start, start + deals)]
    if workers > 1:
        with process_pool(workers) as ex:
            rows = list(ex.map(_deal, jobs, chunksize=max(1, deals // (8 * workers))))
    else:
        rows = [_deal(j) for j in jobs]
    out = _summary(variant, rules, challenger, start, rows)
    out["self_play_games_per_s"] = self_play_speed(variant, speed_games, seed, challenger, rules) if speed_games else 0
    return out


def _summary(variant: str, rules: Mapping[str, Any] | None, challenger: str, start: int,
             rows: list[dict[str, Any]]) -> dict[str, Any]:
    """:func:`match`'s result from its per-deal rows."""
    deals = len(rows)
    m, lo, hi = interval([r["gain"] for r in rows])
    n = len(rows[0]["seat_gains"])
    games = sum(r["games"] for r in rows)
    wins = sum(r["wins"] for r in rows)
    return {"variant": variant, "rules": dict(rules or {}), "deals": deals, "challenger": challenger,
            "units_per_game": round(m, 4), "low": round(lo, 4), "high": round(hi, 4),
            "seat_units": [round(sum(r["seat_gains"][s] for r in rows) / deals, 4) for s in range(n)],
            "win_rate": round(wins / games, 4), "zimo_share": round(sum(r["zimo"] for r in rows) / wins, 4) if wins else None,
            "games_per_s": round(games / max(1e-9, sum(r["cpu"] for r in rows)), 3), "start": start,
            "gains": [round(r["gain"], 4) for r in rows], "_rows": rows}


def combine(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """One match from matches of one variant on consecutive deal ranges (as if played at once)."""
    parts = sorted(parts, key=lambda p: p["start"])
    rows = [r for p in parts for r in p["_rows"]]
    return _summary(parts[0]["variant"], parts[0]["rules"], parts[0]["challenger"], parts[0]["start"], rows)
