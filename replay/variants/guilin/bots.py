"""Simulator players for 桂林字牌: a random-legal bot and a heuristic bot.

Bots see the state (their own hand and everything public) and answer two questions:
``discard(state, seat, events)`` picks one of the legal discard-phase events, and
``claim(state, seat, option)`` returns one of the option's events or None (decline).
Forced options are never declined by the simulator.
"""

from __future__ import annotations

import random
from functools import lru_cache

from replay.cards import ZIPAI
from replay.engine import Option
from replay.record import Event
from replay.variants.guilin import scoring as sc
from replay.bots import RandomBot


@lru_cache(maxsize=500_000)
def shape_value(counts: tuple[int, ...]) -> float:
    """Heuristic worth of loose cards (counts ≤ 2 each): complete groups count 3 plus half
    their 胡, two-card partial groups (门子) 1, a pair 1.2, singles 0. Lowest kind first."""
    i = next((k for k, c in enumerate(counts) if c), -1)
    if i < 0:
        return 0.0
    rest = list(counts)
    rest[i] -= 1
    best = shape_value(tuple(rest))  # i as a single
    base = 0 if i < 10 else 10
    n = i - base
    for kind, cards in sc._runs_from(i, counts):
        r = list(counts)
        for c in cards:
            r[c] -= 1
        best = max(best, 3 + 0.5 * sc.group_points(kind, i) + shape_value(tuple(r)))
    partners = []
    if counts[i] >= 2:
        partners.append((i, 1.2))
    if n <= 8 and counts[i + 1]:
        partners.append((i + 1, 1.0))
    if n <= 7 and counts[i + 2]:
        partners.append((i + 2, 0.8))
    if i < 10 and counts[i + 10]:
        partners.append((i + 10, 0.9))
    if n == 1:
        for j in (base + 6, base + 9):
            if counts[j]:
                partners.append((j, 1.0))
    if n == 6 and counts[base + 9]:
        partners.append((base + 9, 1.0))
    for j, v in partners:
        r = list(counts)
        r[i] -= 1
        r[j] -= 1
        if r[j] >= 0:
            best = max(best, v + shape_value(tuple(r)))
    return best


def hand_value(free: list[int]) -> float:
    return shape_value(tuple(free))


def _partners(k: int) -> tuple[int, ...]:
    base, n = (0, k) if k < 10 else (10, k - 10)
    out = [k, k + 10 if k < 10 else k - 10]
    out += [base + m for m in (n - 2, n - 1, n + 1, n + 2) if 0 <= m <= 9]
    if n in (1, 6, 9):  # 二七十
        out += [base + m for m in (1, 6, 9) if m != n]
    return tuple(out)


PARTNERS = tuple(_partners(k) for k in range(20))


def discard_candidates(free: list[int], keep: int = 4) -> list[int]:
    """The ``keep`` loosest cards (fewest partners in hand): the only discards worth a full search."""
    held = [k for k in range(20) if free[k]]
    conn = {k: sum(free[j] for j in PARTNERS[k]) - 1 for k in held}
    return sorted(held, key=lambda k: (conn[k], k))[:keep]




class HeuristicBot:
    """Plays to win: always 胡; claims when the claimed group plus the best discard beats the
    hand as it is; discards the card whose loss hurts its shape least."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def discard(self, state, seat: int, events: list[Event]) -> Event:
        for e in events:
            if e.act == "hu":
                return e
        if events[0].act == "draw":  # nothing to discard (重舵): the 下家 draws
            return events[0]
        free = state.free(seat)
        cands = set(discard_candidates(free))
        best, best_v = events[0], -1e9
        for e in events:
            k = ZIPAI.index(e.card)
            if k not in cands:
                continue
            f = free.copy()
            f[k] -= 1
            v = hand_value(f) + 0.01 * self.rng.random()
            if v > best_v:
                best, best_v = e, v
        return best

    def claim(self, state, seat: int, opt: Option) -> Event | None:
        if opt.act == "hu" or opt.forced:
            return opt.events[0]
        free = state.free(seat)
        now = hand_value(free)
        best, best_v = None, now + 0.5  # claiming must clearly help
        for e in opt.events:
            f = free.copy()
            used = [ZIPAI.index(c) for c in (e.cards or [])] + [ZIPAI.index(c) for g in (e.bi or []) for c in g]
            for k in used:
                f[k] -= 1
            if min(f) < 0 or not any(f):
                continue
            card = ZIPAI.index(e.card)
            group = tuple(sorted([card, *[ZIPAI.index(c) for c in e.cards or []]]))
            pts = sc.meld_points("peng" if e.act == "peng" else "chi", group)
            after = max(hand_value([x - (i == k) for i, x in enumerate(f)]) for k in discard_candidates(f, 3))
            v = 3 + 0.5 * pts + 3 * len(e.bi or []) + after
            if v > best_v:
                best, best_v = e, v
        return best


BOTS = {"random": RandomBot, "heuristic": HeuristicBot}
