"""Simulator players for 桂林字牌: a random-legal bot and a heuristic bot.

Bots see the state (their own hand and everything public) and answer two questions:
``discard(state, seat, events)`` picks one of the legal discard-phase events, and
``claim(state, seat, option)`` returns one of the option's events or None (decline).
Forced options are never declined by the simulator.
"""

from __future__ import annotations

import random

from replay.bots import RandomBot
from replay.cards import ZIPAI
from replay.engine import Option
from replay.evbot import EVBot as _EVBot
from replay.record import Event
from replay.rollout import RolloutBot as _RolloutBot
from replay.variants.guilin import _kernel as fast
from replay.variants.guilin import scoring as sc

# The shape search over counts packed into an int, 2 bits a kind (loose counts are 0..2): kind k's
# count is ``(key >> 2k) & 3``. The recursion, its candidates and its float expressions are the
# ones spelt out in :func:`shape_value`, so the values are the same floats (a speed measure only).
_ONE = tuple(1 << (2 * k) for k in range(21))
_SV: dict[int, float] = {0: 0.0}
_SV_MAX = 1_000_000  # entries before the memo is cleared (about 100 MB at most)


def _run_value(i: int) -> float:
    """``3 + 0.5 * 胡`` of the run (一二三 or a plain 顺子) whose lowest kind is ``i``."""
    return 3 + 0.5 * sc.group_points("yi_er_san" if i % 10 == 0 else "shunzi", i)


# Per lowest kind i, in shape_value's order: the complete groups from i (run, 二七十, 搭 i i i+10,
# 搭 i i+10 i+10) and then the two-card partial groups with i (pair, i+1, i+2, the other size,
# 二七十 partners), each as (shift and copies of one kind it needs, shift and copies of a second one
# or (0, 0), its cards packed, its value). The lowest kind itself is held once by definition.
_MOVES_AT: list[tuple[tuple[int, int, int, int, int, float], ...]] = []
for _i in range(20):
    _base, _n = (0, _i) if _i < 10 else (10, _i - 10)
    _o = _ONE[_i]
    _m: list[tuple[int, int, int, int, int, float]] = []
    if _n <= 7:
        _m.append((2 * _i + 2, 1, 2 * _i + 4, 1, _o + _ONE[_i + 1] + _ONE[_i + 2], _run_value(_i)))
    if _n == 1:
        _m.append((2 * _base + 12, 1, 2 * _base + 18, 1, _o + _ONE[_base + 6] + _ONE[_base + 9],
                   3 + 0.5 * sc.group_points("er_qi_shi", _i)))
    if _i < 10:
        _m.append((2 * _i, 2, 2 * _i + 20, 1, 2 * _o + _ONE[_i + 10], 3 + 0.5 * sc.group_points("dazi", _i)))
        _m.append((2 * _i + 20, 2, 0, 0, _o + 2 * _ONE[_i + 10], 3 + 0.5 * sc.group_points("dazi", _i)))
    _m.append((2 * _i, 2, 0, 0, 2 * _o, 1.2))  # the pair
    for _j, _v, _ok in ((_i + 1, 1.0, _n <= 8), (_i + 2, 0.8, _n <= 7), (_i + 10, 0.9, _i < 10),
                        (_base + 6, 1.0, _n == 1), (_base + 9, 1.0, _n == 1), (_base + 9, 1.0, _n == 6)):
        if _ok:
            _m.append((2 * _j, 1, 0, 0, _o + _ONE[_j], _v))
    _MOVES_AT.append(tuple(_m))


def _sv(key: int) -> float:
    """:func:`shape_value` of packed counts ``key`` (memoised)."""
    got = _SV.get(key)
    if got is not None:
        return got
    i = ((key & -key).bit_length() - 1) >> 1  # the lowest kind held
    best = _sv(key - _ONE[i])  # i as a single
    for sh, n, sh2, n2, minus, v in _MOVES_AT[i]:
        if (key >> sh) & 3 >= n and (key >> sh2) & 3 >= n2:  # (0, 0): no second need
            x = v + _sv(key - minus)
            if x > best:
                best = x
    if len(_SV) > _SV_MAX:
        _SV.clear()
        _SV[0] = 0.0
    _SV[key] = best
    return best


def shape_value(counts) -> float:
    """Heuristic worth of loose cards (counts ≤ 2 each): complete groups count 3 plus half
    their 胡, two-card partial groups (门子) 1, a pair 1.2, singles 0. Lowest kind first: the
    lowest kind ``i`` held is a single, or in a run / 二七十 / 搭 from ``i`` (``_runs_from``
    order), or with a partner (pair 1.2, ``i+1`` 1.0, ``i+2`` 0.8, its other size 0.9, 二七十
    partners 1.0); the best of these. Memoised on the counts packed into an int (:func:`_sv`)."""
    key = 0
    for k, c in enumerate(counts):
        if c:
            key += c * _ONE[k]
    return _sv(key)


def hand_value(free: list[int]) -> float:
    return shape_value(free)


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
        for e in events:  # no discard owed (重舵), or 听 with two dealt fours (在听牌的时候不打): the next seat draws
            if e.act == "draw":
                return e
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


class RolloutBot(_RolloutBot):
    """The rule-aware bot (replay/rollout.py) over :class:`HeuristicBot`."""

    heuristic = HeuristicBot

    def resampled(self, state, seat: int) -> None:
        """A sampled hand's 听-skip (two dealt fours kept in hand, 001 §技巧攻略) follows its own fours:
        the real one is derived from the other seat's concealed dealt hand."""
        in_hand = state.rules["dealt_four"] == "in_hand"
        for s in range(state.n):
            if s != seat:
                state.ting_skip[s] = in_hand and sum(c == 4 for c in state.hands[s]) >= 2


class EVBot(_EVBot):
    """The expected-value bot (replay/evbot.py) over :class:`HeuristicBot`. A winning card comes
    from the seat's own flip (自摸), another seat's flip or a discard; of the three seats' flips one
    is its own."""

    heuristic = HeuristicBot
    sources = {"self": 0.3, "flip": 0.5, "discard": 0.2}

    def may_win(self, state, seat: int, hand, melds, k: int) -> bool:
        """The engine's own shape test (``sc.best_points``, what ``can_win`` asks) from any source;
        a table meld of ``k`` alike may open to 开舵 in the win: left to the judge."""
        if any(cards[0] == k == cards[-1] for _, cards in melds):
            return True
        hu_triple = state.rules["hu_triple"]
        return any(fast.best_points(hand, melds, k, src, hu_triple) is not None for src in self.sources)


BOTS = {"random": RandomBot, "heuristic": HeuristicBot, "rollout": RolloutBot, "ev": EVBot}
