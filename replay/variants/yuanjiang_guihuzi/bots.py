"""Simulator players for 沅江鬼胡子: a random-legal bot and a heuristic bot.

Bots see the state (their own hand and everything public) and answer two questions:
``discard(state, seat, events)`` picks one of the legal 出牌回合 events (discard, 溜, 胡), and
``claim(state, seat, option)`` returns one of the option's events or None (decline).
"""

from __future__ import annotations

import random
from functools import lru_cache

from replay.cards import ZIPAI
from replay.engine import Option
from replay.record import Event
from replay.variants.yuanjiang_guihuzi import scoring as sc
from replay.bots import RandomBot

_STARTS: dict[int, tuple[tuple[int, int, int], ...]] = {i: tuple(s for s in sc.SENTENCES if s[0] == i) for i in range(20)}
_PARTNERS: dict[int, tuple[int, ...]] = {i: tuple(j for j in range(i + 1, 20) if (i, j) in sc.MENZI2) for i in range(20)}


@lru_cache(maxsize=400_000)
def shape_value(counts: tuple[int, ...]) -> float:
    """Heuristic worth of concealed cards: a 坎 4 (it also meets 起胡条件), a sentence 3, a pair 1.4
    (a 歪/碰 in waiting, or the 门子), two cards of a sentence 1, singles 0. Lowest kind first."""
    i = next((k for k, c in enumerate(counts) if c), -1)
    if i < 0:
        return 0.0
    rest = list(counts)
    rest[i] -= 1
    best = shape_value(tuple(rest))  # i as a single
    if counts[i] >= 3:
        r = list(counts)
        r[i] -= 3
        best = max(best, 4.0 + shape_value(tuple(r)))
    for s in _STARTS[i]:
        if counts[s[1]] and counts[s[2]]:
            r = list(counts)
            for c in s:
                r[c] -= 1
            best = max(best, 3.0 + 0.3 * (s in sc.EQS) + shape_value(tuple(r)))
    if counts[i] >= 2:
        r = list(counts)
        r[i] -= 2
        best = max(best, 1.4 + shape_value(tuple(r)))
    for j in _PARTNERS[i]:
        if counts[j]:
            r = list(counts)
            r[i] -= 1
            r[j] -= 1
            best = max(best, 1.0 + shape_value(tuple(r)))
    return best


def hand_value(hand: list[int]) -> float:
    """:func:`shape_value` of a count vector."""
    return shape_value(tuple(hand))


def _best_after_discard(hand: list[int], free: list[int]) -> float:
    """Value of ``hand`` after its best discard among ``free`` cards."""
    best = -1e9
    for k in range(20):
        if free[k]:
            h = hand.copy()
            h[k] -= 1
            best = max(best, hand_value(h))
    return best


class HeuristicBot:
    """Plays to win: always 胡 (directly rather than 歪/溜 first when both are open); always 溜 and
    飘 (+5 and a 圆); 歪, 碰 and 吃 when the hand after the claim and its best discard is worth more
    than the hand now; discards the card whose loss hurts its shape least."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def discard(self, state, seat: int, events: list[Event]) -> Event:
        for e in events:
            if e.act == "hu":
                return e
        hand = state.hands[seat]
        best, best_v = None, -1e9
        for e in events:
            if e.act == "liu":
                return e
            k = ZIPAI.index(e.card)
            h = list(hand)
            h[k] -= 1
            v = hand_value(h) + 0.01 * self.rng.random()
            if v > best_v:
                best, best_v = e, v
        assert best is not None
        return best

    def claim(self, state, seat: int, opt: Option) -> Event | None:
        if opt.act == "hu":
            return opt.events[0]
        w = state.window
        if any(o.act == "hu" and o.seat == seat for o in w.options):
            return None  # win now instead
        if opt.act in ("liu", "piao"):
            return opt.events[0]
        hand = list(state.hands[seat])
        now = hand_value(hand)
        best, best_v = None, now + (-1.0 if opt.act == "wai" else 0.3)
        for e in opt.events:
            h = hand.copy()
            own = [ZIPAI.index(c) for c in e.cards or []]
            for k in own:
                h[k] -= 1
            free = [0 if k in state.locked[seat] else n for k, n in enumerate(h)]
            if opt.act == "chi":
                locks = state.chi_locks(seat, ZIPAI.index(e.card), tuple(sorted(own)))
                free = [0 if k in locks else n for k, n in enumerate(free)]
            if not any(free):
                continue
            v = 3.0 + (2.0 if opt.act == "wai" else 0.0) + _best_after_discard(h, free)
            if v > best_v:
                best, best_v = e, v
        return best


BOTS = {"random": RandomBot, "heuristic": HeuristicBot}
