"""Simulator players for 沅江鬼胡子: a random-legal bot and a heuristic bot.

Bots see the state (their own hand and everything public) and answer two questions:
``discard(state, seat, events)`` picks one of the legal 出牌回合 events (discard, 溜, 胡), and
``claim(state, seat, option)`` returns one of the option's events or None (decline).
"""

from __future__ import annotations

import random
from functools import lru_cache

from replay.bots import RandomBot
from replay.cards import ZIPAI
from replay.engine import Option
from replay.evbot import EVBot as _EVBot
from replay.record import Event
from replay.rollout import RolloutBot as _RolloutBot
from replay.variants.yuanjiang_guihuzi import _kernel as fast
from replay.variants.yuanjiang_guihuzi import scoring as sc
from replay.variants.yuanjiang_guihuzi.cases import _case_melds

_STARTS: dict[int, tuple[tuple[int, int, int], ...]] = {i: tuple(s for s in sc.SENTENCES if s[0] == i) for i in range(20)}
_PARTNERS: dict[int, tuple[int, ...]] = {i: tuple(j for j in range(i + 1, 20) if (i, j) in sc.MENZI2) for i in range(20)}


@lru_cache(maxsize=200_000)
def _size_value(counts: tuple[int, ...], base: int) -> int:
    """:func:`shape_value` of one size's ten counts (``base`` 0: 小, 10: 大), in tenths. Lowest kind first."""
    i = next((k for k, c in enumerate(counts) if c), -1)
    if i < 0:
        return 0
    rest = list(counts)
    rest[i] -= 1
    best = _size_value(tuple(rest), base)  # i as a single
    if counts[i] >= 3:
        r = list(counts)
        r[i] -= 3
        best = max(best, 40 + _size_value(tuple(r), base))
    for s in _STARTS[i + base]:
        a, b = s[1] - base, s[2] - base
        if counts[a] and counts[b]:
            r = list(counts)
            r[i] -= 1
            r[a] -= 1
            r[b] -= 1
            best = max(best, 30 + 3 * (s in sc.EQS) + _size_value(tuple(r), base))
    if counts[i] >= 2:
        r = list(counts)
        r[i] -= 2
        best = max(best, 14 + _size_value(tuple(r), base))
    for j in _PARTNERS[i + base]:
        if counts[j - base]:
            r = list(counts)
            r[i] -= 1
            r[j - base] -= 1
            best = max(best, 10 + _size_value(tuple(r), base))
    return best


def shape_value(counts) -> int:
    """Heuristic worth of concealed cards (a count vector), in tenths: a 坎 40 (it also meets
    起胡条件), a sentence 30 (二七十 33), a pair 14 (a 歪/碰 in waiting, or the 门子), two cards of a
    sentence 10, singles 0 — the best sum over the ways to group them. No group mixes 小 and 大,
    so each size is valued alone (and memoised); integers, so equal plans are exactly equal."""
    return _size_value(tuple(counts[:10]), 0) + _size_value(tuple(counts[10:]), 10)


def hand_value(hand: list[int]) -> int:
    """:func:`shape_value` of a count vector."""
    return shape_value(hand)


def _best_after_discard(hand: list[int], free: list[int]) -> int:
    """Value of ``hand`` after its best discard among ``free`` cards."""
    best = -10**9
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
            v = hand_value(h) + 0.1 * self.rng.random()
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
        best, best_v = None, now + (-10 if opt.act == "wai" else 3)
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
            v = 30 + (20 if opt.act == "wai" else 0) + _best_after_discard(h, free)
            if v > best_v:
                best, best_v = e, v
        return best


class RolloutBot(_RolloutBot):
    """The rule-aware bot (replay/rollout.py) over :class:`HeuristicBot`."""

    heuristic = HeuristicBot

    def resampled(self, state, seat: int) -> None:
        """Facts the state derives from another seat's concealed cards are dropped for the sampled
        hands: its 锁牌 (the locked kinds are kinds it holds, 003 §玩法规则 4.3) and its 听 (报听 from
        the dealt hand, 003 §胡牌胡型 2: not announced under ``baoting=auto``)."""
        for s in range(state.n):
            if s != seat:
                state.locked[s] = set()
                if state.ting[s]:
                    state.ting[s] = False


@lru_cache(maxsize=4096)
def _shape(hand: bytes) -> sc.HandShape:
    return fast.shape_of(fast.pack(hand))


class EVBot(_EVBot):
    """The expected-value bot (replay/evbot.py) over :class:`HeuristicBot`. A 胡 is on the seat's
    own flip or another seat's (never on a discard: 003 §名词解析 4); a hand valued after a discard is
    no longer 报听 (docs decision 3), so ``baoting`` is not read."""

    heuristic = HeuristicBot
    sources = {"self": 0.34, "flip": 0.66}

    def case(self, state, seat: int, hand, melds) -> dict:
        """The score case, each 吃 with the card it ate (外圆 reads it)."""
        return {"variant": state.rules.variant, "rules": dict(state.rules.values), "hand": ZIPAI.expand(hand),
                "melds": _case_melds(melds, state.chi_card[seat]), "context": {"dealer": seat == state.dealer}}

    def view_key(self, state, seat: int) -> tuple:
        return tuple(state.chi_card[seat])

    def may_win(self, state, seat: int, hand, melds, k: int) -> bool:
        """The engine's own shape test (``HandShape.wins``, what ``can_win`` asks first)."""
        return _shape(bytes(hand)).wins(k, not melds)


BOTS = {"random": RandomBot, "heuristic": HeuristicBot, "rollout": RolloutBot, "ev": EVBot}
