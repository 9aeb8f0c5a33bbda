"""Simulator players for the 花牌 family: the project's random-legal bot and a heuristic bot.

Bots answer ``discard(state, seat, events)`` (one of the legal turn events: discard, 胡, 扎, 開泛)
and ``claim(state, seat, option)`` (one of the option's events, or None to decline).
"""

from __future__ import annotations

import random
from functools import lru_cache

from replay.engine import Option
from replay.record import Event
from replay.bots import RandomBot
from replay.variants.huapai import scoring as sc


@lru_cache(maxsize=1_000_000)
def shape_value(chars: tuple[int, ...], jing: frozenset[int]) -> float:
    """Heuristic worth of loose cards by character (22 counts): a complete group 3 plus 0.4 of
    its 胡, a pair 1.3, two cards of one 句 1.0, a single 精 0.3. Lowest character first: each step
    takes one group holding it, or leaves all its copies single."""
    for i, r in enumerate(chars):
        if r:
            break
    else:
        return 0.0
    rest = list(chars)
    rest[i] = 0  # the copies of i left after the groups below stay singles
    best = shape_value(tuple(rest), jing) + (0.3 * r if i in jing else 0.0)
    for n in (3, 4, 5):
        if r >= n:
            rest = list(chars)
            rest[i] -= n
            best = max(best, 3 + 0.4 * sc.alike_points(i, n, 0, None, jing) + shape_value(tuple(rest), jing))
    for t in sc.JU_FROM[i]:
        if chars[t[1]] and chars[t[2]]:
            rest = list(chars)
            for x in t:
                rest[x] -= 1
            pts = (1 if all(x in sc.RED for x in t) else 0) + sum(x in jing for x in t)
            best = max(best, 3 + 0.4 * pts + shape_value(tuple(rest), jing))
    if r >= 2:
        rest = list(chars)
        rest[i] -= 2
        best = max(best, 1.3 + (0.6 if i in jing else 0) + shape_value(tuple(rest), jing))
    for k in sc.TT_PARTNERS[i]:
        if chars[k]:
            rest = list(chars)
            rest[i] -= 1
            rest[k] -= 1
            best = max(best, 1.0 + shape_value(tuple(rest), jing))
    return best


def hand_value(state, counts: list[int]) -> float:
    """Worth of a concealed hand (count vector over the deck): shape, plus 花 精 kept and 賴 held."""
    jing = state.cfg.jing
    chars = [0] * 22
    bonus = 0.0
    for k, n in enumerate(counts):
        if not n:
            continue
        if k == state.lai:
            bonus += 2.5 * n
            continue
        ch = sc.KCHAR[k]
        chars[ch] += n
        if sc.KHUA[k] and ch in jing:
            bonus += 0.2 * n
    return shape_value(tuple(chars), jing) + bonus


CANDIDATES = 3  # characters searched in full per discard


def links(chars: list[int], c: int, jing: frozenset[int]) -> float:
    """Cheap worth of keeping a card of character ``c``: its copies, its 句 partners held, 精."""
    n = chars[c]
    v = 4.0 if n >= 3 else (2.0 if n == 2 else 0.0)
    for t in sc.JU:
        if c in t:
            others = sum(1 for x in t if x != c and chars[x])
            v += 2.0 if others == 2 else 0.7 * others
    return v + (1.5 if c in jing else 0.0)


class HeuristicBot:
    """Plays to win: always 胡, 扎, 開泛 and 招; 對 (at most twice, so as never to owe 承包) when the
    group plus the best discard beats the hand as it is; discards the card whose loss hurts least."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def best_discard(self, state, counts: list[int]) -> tuple[int, float]:
        """The kind to discard from ``counts`` and the hand's worth after it. Only the few characters
        with the fewest links (:func:`links`) are searched in full; of a 精 the plain copy goes first."""
        jing = state.cfg.jing
        chars = [0] * 22
        for k, n in enumerate(counts):
            if n and k != state.lai:
                chars[sc.KCHAR[k]] += n
        present = [c for c in range(22) if chars[c]]
        if not present:  # only 賴 left
            return state.lai, 0.0
        present.sort(key=lambda c: links(chars, c, jing) + 0.01 * self.rng.random())
        best, best_v = -1, -1e9
        for ch in present[:CANDIDATES]:
            kinds = [k for k in (sc.PLAIN[ch], sc.HUA.get(ch)) if k is not None and counts[k]]
            k = kinds[0]
            counts[k] -= 1
            v = hand_value(state, counts)
            counts[k] += 1
            if v > best_v:
                best, best_v = k, v
        return best, best_v

    def discard(self, state, seat: int, events: list[Event]) -> Event:
        for act in ("hu", "kai_fan", "zha"):
            mine = [e for e in events if e.act == act]
            if mine:
                return max(mine, key=lambda e: sum(c.startswith("花") for c in e.cards or []))
        k, _ = self.best_discard(state, list(state.hands[seat]))
        code = state.deck.codes[k]
        return next(e for e in events if e.act == "discard" and e.card == code)

    def claim(self, state, seat: int, opt: Option) -> Event | None:
        flowers = lambda e: sum(c.startswith("花") for c in e.cards or [])  # noqa: E731
        if opt.act in ("hu", "zhao", "zha"):
            return max(opt.events, key=flowers)
        if opt.act == "dui" and state.dui_count[seat] < 2:
            counts = list(state.hands[seat])
            now = self.best_discard(state, counts)[1] - 1.0  # 對 must clearly help
            e = max(opt.events, key=flowers)
            for c in e.cards or []:
                counts[state.deck.index(c)] -= 1
            ch = sc.KCHAR[state.deck.index(e.card)]
            after = 3 + 0.4 * sc.alike_points(ch, 3, 0, None, state.cfg.jing) + self.best_discard(state, counts)[1]
            return e if after > now + 1.5 else None
        return None


BOTS = {"random": RandomBot, "heuristic": HeuristicBot}
