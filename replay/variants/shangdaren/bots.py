"""Simulator players for 上大人: a random-legal bot and a heuristic bot.

Bots answer ``discard(state, seat, events)`` (one of the legal discard-phase events: discard,
毛 or 胡) and ``claim(state, seat, option)`` (one of the option's events, or None to decline).
"""

from __future__ import annotations

import random
from functools import lru_cache
from typing import NamedTuple

from replay.bots import RandomBot
from replay.cards import SHANGDAREN
from replay.engine import Option
from replay.evbot import EVBot as _EVBot
from replay.record import Event
from replay.rollout import RolloutBot as _RolloutBot
from replay.variants.shangdaren import scoring as sc

JING = sc.JING_SET
KU = sc.KU_FORBIDDEN


class Shape(NamedTuple):
    """A planning reading of some cards: complete groups, partials (a pair or two of a phrase) and
    the 胡 estimate."""

    groups: int
    partials: int
    hu: float

    def worth(self) -> float:
        return 3 * self.groups + self.partials + 0.15 * self.hu


@lru_cache(maxsize=200_000)
def phrase_shape(base: int, a: int, b: int, c: int, p: sc.Params) -> Shape:
    """Best decomposition of one phrase's counts for planning. A partial is a pair or two of the
    phrase; a pair counts half the 坎 it may become by 對. Scored 3 per group, 1 per partial, 0.15
    per 胡 (:meth:`Shape.worth`). No group spans two phrases."""
    counts = (a, b, c)
    i = next((x for x in range(3) if counts[x]), -1)
    if i < 0:
        return Shape(0, 0, 0.0)
    k = base + i
    rest = list(counts)
    rest[i] -= 1
    best = phrase_shape(base, *rest, p)  # i as a single
    opts: list[tuple[tuple[int, ...], int, int, float]] = []
    if counts[i] >= 3:
        opts.append(((i, i, i), 1, 0, sc.set_points(k, "kan", p)))
    if i == 0 and b and c:
        opts.append(((0, 1, 2), 1, 0, sc.phrase_points((base, base + 1, base + 2), p)))
    if counts[i] >= 2:
        opts.append(((i, i), 0, 1, 0.5 * sc.set_points(k, "kan", p)))
    for x in range(i + 1, 3):
        if counts[x]:
            opts.append(((i, x), 0, 1, 0.5 * sc.phrase_points((k, base + x), p)))
    for cards, g, q, hu in opts:
        r = list(counts)
        for x in cards:
            r[x] -= 1
        sub = phrase_shape(base, *r, p)
        cand = Shape(sub.groups + g, sub.partials + q, sub.hu + hu)
        if cand.worth() > best.worth():
            best = cand
    return best


# Plans a hand can aim for: (name, 胡 target, kinds it must not hold, bonus for the richer class).
PLANS: tuple[tuple[str, int, frozenset[int], float], ...] = (("jing", 21, frozenset(), 0.0), ("qing", 11, JING, 1.0), ("ku", 11, KU, 2.5))


class Plan(NamedTuple):
    """One of :data:`PLANS` with its tables: per phrase, :func:`phrase_shape` of every count
    triple in a list indexed ``a*25 + b*5 + c``."""

    name: str
    tabs: list[list[Shape]]
    target: int
    banned: frozenset[int]
    banned_kinds: tuple[int, ...]  # ``banned`` in order, for summing a hand's counts
    bonus: float


def _plans(p: sc.Params) -> list[Plan]:
    """:data:`PLANS` with their tables (the plan's banned kinds counted as absent) — the value of a
    hand is then 8 list reads a plan (the bots' hot loop)."""
    out = []
    for name, target, banned, bonus in PLANS:
        tabs = []
        for base in range(0, 24, 3):
            keep = [base + i not in banned for i in range(3)]
            tabs.append([phrase_shape(base, a * keep[0], b * keep[1], c * keep[2], p)
                         for a in range(5) for b in range(5) for c in range(5)])
        out.append(Plan(name, tabs, target, banned, tuple(sorted(banned)), bonus))
    return out


_PLANS_BY_RULES: dict[str, tuple[sc.Params, list[Plan]]] = {}  # ruleset id -> (Params, _plans)


_STEP = (25, 5, 1)  # a count triple's index: a*25 + b*5 + c


def _plans_of(rules) -> tuple[sc.Params, list[Plan]]:
    got = _PLANS_BY_RULES.get(rules.id)
    if got is None:
        p = sc.Params.of(rules, None)
        got = _PLANS_BY_RULES[rules.id] = (p, _plans(p))
    return got


def _indices(hand: list[int]) -> list[int]:
    """Each phrase's count triple of ``hand`` as an index into a :func:`_plans` table."""
    return [hand[b] * 25 + hand[b + 1] * 5 + hand[b + 2] for b in range(0, 24, 3)]


def _sums(tabs: list[list[Shape]], ix: list[int]) -> Shape:
    """The shapes of the phrases at indices ``ix``, summed (all exact: integers and halves, so the
    order of the sums never changes a choice)."""
    g = q = 0
    hu = 0.0
    for tab, j in zip(tabs, ix):
        x = tab[j]
        g, q, hu = g + x.groups, q + x.partials, hu + x.hu
    return Shape(g, q, hu)


def _table_facts(p: sc.Params, plans: list[Plan], melds) -> tuple[int, int, list[Plan]]:
    """(胡 of the melds, groups still needed, the plans the melds leave open)."""
    table = [k for _, cards in melds for k in cards]
    table_hu = sum(sc.group_points(kind, cards, p) for kind, cards in melds)
    return table_hu, 6 - len(melds), [pl for pl in plans if not any(k in pl.banned for k in table)]


def _score(plan: Plan, need: int, table_hu: int, g: int, q: int, hu: float, junk: int) -> float:
    """A plan's score of a hand: -3 per card still to come (shanten-like), +0.1 per 胡,
    -0.6 per 胡 short of the target, -0.7 per card still to shed, + the plan's bonus."""
    miss = max(need - g, 0)
    cards = 2 * miss + 1 - min(q, miss + 1)
    total = table_hu + hu
    return -3.0 * cards + 0.1 * total - 0.6 * max(0.0, plan.target - total) - 0.7 * junk + plan.bonus


class HeuristicBot:
    """Plays to win: always 胡 and 毛; for its hand it takes the most promising plan — a 精 hand
    (21 胡), 清 (no 精, 11 胡) or 枯 (no 上大人/七十士/福祿壽, 11 胡) — and scores a hand by the
    cards it still needs, the 胡 short of the plan's target and the cards it must still shed;
    it discards the card leaving the best hand and claims when the claim beats declining."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def value(self, state, hand: list[int], melds) -> float:
        """How promising ``hand`` (counts) with ``melds`` is: the best plan's score (higher is better)."""
        p, plans = _plans_of(state.rules)
        ix = _indices(hand)
        table_hu, need, open_plans = _table_facts(p, plans, melds)
        best = -1e9
        for plan in open_plans:
            g, q, hu = _sums(plan.tabs, ix)
            best = max(best, _score(plan, need, table_hu, g, q, hu, sum(hand[k] for k in plan.banned_kinds)))
        return best

    def after_discard(self, state, hand: list[int], melds, kinds) -> list[float]:
        """:meth:`value` of ``hand`` less one card of each of ``kinds`` (kinds held), in order. A
        discard changes one phrase: each plan's sums of the whole hand are adjusted by it."""
        p, plans = _plans_of(state.rules)
        ix = _indices(hand)
        table_hu, need, open_plans = _table_facts(p, plans, melds)
        base = [(plan, _sums(plan.tabs, ix), sum(hand[k] for k in plan.banned_kinds)) for plan in open_plans]
        out = []
        for k in kinds:
            i = k // 3
            j = ix[i] - _STEP[k % 3]
            v = -1e9
            for plan, (g, q, hu), junk in base:
                tab = plan.tabs[i]
                old, new = tab[ix[i]], tab[j]
                v = max(v, _score(plan, need, table_hu, g - old.groups + new.groups, q - old.partials + new.partials,
                                  hu - old.hu + new.hu, junk - (k in plan.banned)))
            out.append(v)
        return out

    def discard(self, state, seat: int, events: list[Event]) -> Event:
        for e in events:
            if e.act in ("hu", "mao"):
                return e  # a four on the table outscores any split of it, and draws a card
        vals = self.after_discard(state, state.hands[seat], state.melds[seat], [SHANGDAREN.index(e.card) for e in events])
        best, best_v = events[0], -1e9
        for e, v in zip(events, vals):
            v += 0.01 * self.rng.random()
            if v > best_v:
                best, best_v = e, v
        return best

    def claim(self, state, seat: int, opt: Option) -> Event | None:
        if opt.act in ("hu", "mao"):
            return opt.events[0]
        w = state.window
        if w is not None and any(o.seat == seat and o.act == "hu" for o in w.options):
            return None  # its own 胡 comes later (a 對 ranked before 胡, option mashang_dui): wait for it
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
            else:  # then the best discard
                v = max(self.after_discard(state, h, m, [k for k in range(24) if h[k]]), default=-1e9)
            if v > best_v:
                best, best_v = e, v
        return best


class RolloutBot(_RolloutBot):
    """The rule-aware bot (replay/rollout.py) over :class:`HeuristicBot`."""

    heuristic = HeuristicBot

    def resampled(self, state, seat: int) -> None:
        """The state's per-phrase remainders (its win filter) follow the sampled hands."""
        from replay.variants.shangdaren.state import _phrase_rems

        state.rems = [_phrase_rems(h) for h in state.hands]


class EVBot(_EVBot):
    """The expected-value bot (replay/evbot.py) over :class:`HeuristicBot`: a winning card is drawn
    (自摸) or another seat's discard."""

    heuristic = HeuristicBot
    sources = {"self": 0.34, "discard": 0.66}

    def may_win(self, state, seat: int, hand, melds, k: int) -> bool:
        """The engine's own filter before a judge (``_shape_fits`` on the phrase remainders)."""
        from replay.variants.shangdaren.state import _phrase_rems, _shape_fits

        return _shape_fits(_phrase_rems(list(hand)), k)


BOTS = {"random": RandomBot, "heuristic": HeuristicBot, "rollout": RolloutBot, "ev": EVBot}
