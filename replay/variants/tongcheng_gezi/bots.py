"""Simulator players for 通城個子牌: a random-legal bot and a heuristic bot.

Bots see the state (their own hand and everything public) and answer two questions:
``discard(state, seat, events)`` picks one of the legal discard-phase events, and
``claim(state, seat, option)`` returns one of the option's events or None (decline).
"""

from __future__ import annotations

import random
from functools import lru_cache

from replay.bots import RandomBot as _RandomBot
from replay.cards import HUAPAI
from replay.engine import Option
from replay.evbot import EVBot as _EVBot
from replay.record import Event
from replay.rollout import RolloutBot as _RolloutBot
from replay.variants.tongcheng_gezi import scoring as sc

# Per character: 3 + 0.3 × the 坎 bonus, and its 句 as (second, third, 3 + 0.3 × red) — the sums
# shape_value adds first, in the same order, so the values are the same floats as spelt out.
_KAN_V = tuple(3.0 + 0.3 * sc.GROUP_BONUS["kan"][0 if sc.RED_CHAR[i] else 1] for i in range(sc.N_CHARS))
_JU_V = tuple(tuple((j[1], j[2], 3.0 + 0.3 * (j in sc.JU_RED)) for j in sc.JU_FROM[i]) for i in range(sc.N_CHARS))


@lru_cache(maxsize=1_000_000)
def shape_value(counts: tuple[int, ...]) -> float:
    """Heuristic worth of concealed cards as 22 character counts: a complete group (句, 坎) 3 plus
    a little for its 個子 bonus, a pair 1.3, two of one 句 1.0, a single 0. Lowest character first;
    a character that can open a complete group is only tried in complete groups (keeps it fast)."""
    i = 0
    for c in counts:
        if c:
            break
        i += 1
    else:
        return 0.0
    ci = counts[i]
    best = -1.0
    if ci >= 3:
        r = list(counts)
        r[i] = ci - 3
        best = _KAN_V[i] + shape_value(tuple(r))
    for a, b, v in _JU_V[i]:
        if counts[a] and counts[b]:
            r = list(counts)
            r[i] = ci - 1
            r[a] -= 1
            r[b] -= 1
            x = v + shape_value(tuple(r))
            if x > best:
                best = x
    if best >= 0:
        return best
    r = list(counts)
    r[i] = ci - 1
    best = shape_value(tuple(r))  # i as a single
    if ci >= 2:
        r[i] = ci - 2
        x = 1.3 + shape_value(tuple(r))
        if x > best:
            best = x
        r[i] = ci - 1
    for b in sc.HALF_PARTNERS[i]:
        if counts[b]:
            r[b] -= 1
            x = 1.0 + shape_value(tuple(r))
            if x > best:
                best = x
            r[b] += 1
    return best


def _meld_gezi(state, seat: int) -> int:
    """個子 of the seat's melds (as the bot counts them: at the default 碰 value)."""
    return sum(sc.group_gezi(k, c) for k, c in state.melds[seat])


def _gezi_value(state, gezi_cards: int, meld_gezi: int) -> float:
    """Worth of the 個子 held (cards in hand + melds) toward the table's minimum."""
    gezi = gezi_cards + meld_gezi
    return 0.35 * min(gezi, sc.MIN_GEZI[state.n] + 2) + 0.05 * gezi


def hand_value(state, seat: int, hand: list[int]) -> float:
    """Shape of ``hand`` (27 kinds) plus the 個子 it holds toward the table's minimum."""
    gezi = sum(sc.CARD_GEZI[k] * n for k, n in enumerate(hand))
    return shape_value(tuple(sc.chars_of(hand))) + _gezi_value(state, gezi, _meld_gezi(state, seat))


def best_discard_value(state, seat: int, hand: list[int]) -> float:
    """:func:`hand_value` of ``hand`` after its best discard (one shape search per character)."""
    chars = sc.chars_of(hand)
    held = sum(sc.CARD_GEZI[k] * n for k, n in enumerate(hand)) + _meld_gezi(state, seat)
    cap = sc.MIN_GEZI[state.n] + 2
    best = -1e9
    for ch, kinds in enumerate(sc.KINDS_OF):
        if not chars[ch]:
            continue
        chars[ch] -= 1
        shape = shape_value(tuple(chars))
        chars[ch] += 1
        lost = sc.CARD_GEZI[kinds[0]] if len(kinds) == 1 else min(sc.CARD_GEZI[k] for k in kinds if hand[k])
        g = held - lost  # _gezi_value inlined (the same sums in the same order)
        v = shape + (0.35 * min(g, cap) + 0.05 * g)
        if v > best:
            best = v
    return best


class RandomBot(_RandomBot):
    """Random legal play; takes a 撿 a third of the time, other optional claims half."""

    take_by_act = {"jian": 0.33}


class HeuristicBot:
    """Plays to win: always 胡, 滑 and 招; 觀生 when it keeps the hand's shape; 碰 and 撿 when the
    hand after the best discard beats the hand as it is; discards the card it misses least."""

    JIAN_MARGIN = 0.6  # a 撿 must beat the hand by about what a blind draw would bring
    PENG_MARGIN = 0.8

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def discard(self, state, seat: int, events: list[Event]) -> Event:
        for e in events:
            if e.act in ("hu", "hua"):
                return e
        hand = list(state.hands[seat])
        gs = [e for e in events if e.act == "guan_sheng"]
        if gs:
            now = best_discard_value(state, seat, hand)
            for e in gs:
                h = list(hand)
                for c in e.cards:
                    h[HUAPAI.index(c)] -= 1
                if best_discard_value(state, seat, h) + 3.0 >= now - 0.5:
                    return e
        chars = sc.chars_of(hand)
        gezi = sum(sc.CARD_GEZI[k] * n for k, n in enumerate(hand))
        melds = _meld_gezi(state, seat)
        shape: dict[int, float] = {}
        best, best_v = None, -1e9
        for e in events:
            if e.act != "discard":
                continue
            k = HUAPAI.index(e.card)
            ch = sc.CHAR_OF[k]
            if ch not in shape:
                chars[ch] -= 1
                shape[ch] = shape_value(tuple(chars))
                chars[ch] += 1
            v = shape[ch] + _gezi_value(state, gezi - sc.CARD_GEZI[k], melds) + 0.01 * self.rng.random()
            if v > best_v:
                best, best_v = e, v
        assert best is not None
        return best

    def claim(self, state, seat: int, opt: Option) -> Event | None:
        if opt.act in ("hu", "hua", "zhao"):
            return opt.events[0]
        hand = list(state.hands[seat])
        now = hand_value(state, seat, hand)
        c = state.window.card
        if opt.act == "jian":
            h = list(hand)
            h[c] += 1
            return opt.events[0] if best_discard_value(state, seat, h) > now + self.JIAN_MARGIN else None
        if opt.act == "peng":
            best, best_v = None, now + self.PENG_MARGIN
            for e in opt.events:
                h = list(hand)
                for x in e.cards:
                    h[HUAPAI.index(x)] -= 1
                v = 3.0 + 0.3 * sc.group_gezi("peng", [c, *(HUAPAI.index(x) for x in e.cards)]) + best_discard_value(state, seat, h)
                if v > best_v:
                    best, best_v = e, v
            return best
        return None


class RolloutBot(_RolloutBot):
    """The rule-aware bot (replay/rollout.py) over :class:`HeuristicBot`."""

    heuristic = HeuristicBot

    def known(self, state, s: int) -> list[int]:
        """撿 cards (taken from a discard in view of every seat, 000 §操作規則 撿) stay where they are."""
        return list(state.jian[s])


class EVBot(_EVBot):
    """The expected-value bot (replay/evbot.py) over :class:`HeuristicBot`: a winning card is drawn
    (自摸) or another seat's discard; the seat's 撿 cards still in the hand are in its case."""

    heuristic = HeuristicBot
    sources = {"self": 0.34, "discard": 0.66}

    def _jian(self, state, seat: int, hand) -> list[int]:
        return [min(j, h) for j, h in zip(state.jian[seat], hand)]

    def case(self, state, seat: int, hand, melds) -> dict:
        out = super().case(state, seat, hand, melds)
        jian = self._jian(state, seat, hand)
        if any(jian):
            out["context"]["jian"] = HUAPAI.expand(jian)
        return out

    def view_key(self, state, seat: int) -> tuple:
        return tuple(state.jian[seat])

    def may_win(self, state, seat: int, hand, melds, k: int) -> bool:
        """The engine's own filter before a judge (``sc.may_win_with``; a four that could be the
        觀生 — only beside a declared one, ``GeziState.fours`` — leaves it to the judge, as
        ``GeziState.wins`` does)."""
        return sc.may_win_with(hand, k, len(melds)) or any(m == "guan_sheng" for m, _ in melds)


BOTS = {"random": RandomBot, "heuristic": HeuristicBot, "rollout": RolloutBot, "ev": EVBot}
