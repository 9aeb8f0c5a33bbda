"""Simulator players for 上大人: a random-legal bot and a heuristic bot.

Bots answer ``discard(state, seat, events)`` (one of the legal discard-phase events: discard,
毛 or 胡) and ``claim(state, seat, option)`` (one of the option's events, or None to decline).
"""

from __future__ import annotations

import random
from functools import lru_cache

from replay.cards import SHANGDAREN
from replay.engine import Option
from replay.record import Event
from replay.variants.shangdaren import scoring as sc
from replay.bots import RandomBot

JING = sc.JING_SET
KU = sc.KU_FORBIDDEN


@lru_cache(maxsize=200_000)
def phrase_shape(base: int, a: int, b: int, c: int, p: sc.Params) -> tuple[int, int, float]:
    """Best decomposition of one phrase's counts for planning: (complete groups, partials, 胡
    estimate). A partial is a pair or two of the phrase; a pair counts half the 坎 it may become
    by 對. Scored 3 per group, 1 per partial, 0.15 per 胡. No group spans two phrases."""
    counts = (a, b, c)
    i = next((x for x in range(3) if counts[x]), -1)
    if i < 0:
        return (0, 0, 0.0)
    k = base + i
    rest = list(counts)
    rest[i] -= 1
    best = phrase_shape(base, *rest, p)  # i as a single
    opts: list[tuple[tuple[int, ...], int, int, float]] = []
    if counts[i] >= 3:
        opts.append(((i, i, i), 1, 0, sc.set_points(k, 3, p)))
    if i == 0 and b and c:
        opts.append(((0, 1, 2), 1, 0, sc.phrase_points((base, base + 1, base + 2), p)))
    if counts[i] >= 2:
        opts.append(((i, i), 0, 1, 0.5 * sc.set_points(k, 3, p)))
    for x in range(i + 1, 3):
        if counts[x]:
            opts.append(((i, x), 0, 1, 0.5 * sc.phrase_points((k, base + x), p)))
    for cards, g, q, hu in opts:
        r = list(counts)
        for x in cards:
            r[x] -= 1
        sub = phrase_shape(base, *r, p)
        cand = (sub[0] + g, sub[1] + q, sub[2] + hu)
        if 3 * cand[0] + cand[1] + 0.15 * cand[2] > 3 * best[0] + best[1] + 0.15 * best[2]:
            best = cand
    return best


# Plans a hand can aim for: (name, 胡 target, kinds it must not hold, bonus for the richer class).
PLANS = (("jing", 21, frozenset(), 0.0), ("qing", 11, JING, 1.0), ("ku", 11, KU, 2.5))


class HeuristicBot:
    """Plays to win: always 胡 and 毛; for its hand it takes the most promising plan — a 精 hand
    (21 胡), 清 (no 精, 11 胡) or 枯 (no 上大人/七十士/福祿壽, 11 胡) — and scores a hand by the
    cards it still needs, the 胡 short of the plan's target and the cards it must still shed;
    it discards the card leaving the best hand and claims when the claim beats declining."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def value(self, state, hand: list[int], melds) -> float:
        p = sc.Params.of(state.rules, None)
        table = [k for _, cards in melds for k in cards]
        table_hu = sum(sc.group_points(kind, cards, p) for kind, cards in melds)
        need = 6 - len(melds)
        best = -1e9
        for _, target, banned, bonus in PLANS:
            if any(k in banned for k in table):
                continue
            g = q = 0
            hu = 0.0
            for b in range(0, 24, 3):
                x = phrase_shape(b, *(0 if b + i in banned else hand[b + i] for i in range(3)), p)
                g, q, hu = g + x[0], q + x[1], hu + x[2]
            junk = sum(c for k, c in enumerate(hand) if k in banned)
            miss = max(need - g, 0)
            cards = 2 * miss + 1 - min(q, miss + 1)  # cards still to come (shanten-like)
            total = table_hu + hu
            v = -3.0 * cards + 0.1 * total - 0.6 * max(0.0, target - total) - 0.7 * junk + bonus
            best = max(best, v)
        return best

    def discard(self, state, seat: int, events: list[Event]) -> Event:
        for e in events:
            if e.act in ("hu", "mao"):
                return e  # a four on the table outscores any split of it, and draws a card
        melds = state.melds[seat]
        hand = state.hands[seat]
        best, best_v = events[0], -1e9
        for e in events:
            k = SHANGDAREN.index(e.card)
            h = list(hand)
            h[k] -= 1
            v = self.value(state, h, melds) + 0.01 * self.rng.random()
            if v > best_v:
                best, best_v = e, v
        return best

    def claim(self, state, seat: int, opt: Option) -> Event | None:
        if opt.act in ("hu", "mao"):
            return opt.events[0]
        hand = state.hands[seat]
        melds = state.melds[seat]
        best, best_v = None, self.value(state, hand, melds) + 0.2
        for e in opt.events:
            c = SHANGDAREN.index(e.card)
            own = [SHANGDAREN.index(x) for x in e.cards or []]
            h = list(hand)
            for k in own:
                h[k] -= 1
            m = [*melds, (e.act, tuple(sorted([c, *own])))]
            if e.act == "kai_mao":
                v = self.value(state, h, m) + 1.0  # and a replacement card
            else:
                v = max((self.value(state, [x - (i == k) for i, x in enumerate(h)], m) for k in range(24) if h[k]), default=-1e9)
            if v > best_v:
                best, best_v = e, v
        return best


BOTS = {"random": RandomBot, "heuristic": HeuristicBot}
