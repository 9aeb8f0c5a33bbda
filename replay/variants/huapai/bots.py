"""Simulator players for the 花牌 family: the project's random-legal bot and a heuristic bot.

Bots answer ``discard(state, seat, events)`` (one of the legal turn events: discard, 胡, 扎, 開泛)
and ``claim(state, seat, option)`` (one of the option's events, or None to decline).
"""

from __future__ import annotations

import random
from functools import lru_cache
from typing import NamedTuple

from replay.bots import RandomBot
from replay.engine import Option
from replay.evbot import ev_bot
from replay.record import Event
from replay.rollout import rollout_bot
from replay.variants.huapai import scoring as sc

_BITS = 3  # bits per character in a packed count (a character has at most 5 copies)
_MEMO_MAX = 1_000_000  # values kept per 精 set before the memo starts afresh


@lru_cache(maxsize=None)
def _searcher(jing: frozenset[int]):
    """The memoised search behind :func:`shape_value` for one 精 set, over character counts
    packed into an int (``_BITS`` bits a character): taking a group is one subtraction. Each
    candidate's worth is the float expression of a plain recursion over tuples (constant first,
    then the rest's worth), so the values are those of that recursion bit for bit."""
    one = [1 << (_BITS * c) for c in range(22)]
    alike = [[(n, n * one[c], 3 + 0.4 * sc.alike_points(c, n, 0, None, jing)) for n in (3, 4, 5)] for c in range(22)]
    ju = [[(_BITS * t[1], _BITS * t[2], one[t[0]] + one[t[1]] + one[t[2]],
            3 + 0.4 * ((1 if all(x in sc.RED for x in t) else 0) + sum(x in jing for x in t))) for t in sc.JU_FROM[c]]
          for c in range(22)]
    pair = [1.3 + (0.6 if c in jing else 0) for c in range(22)]
    partners = [[(_BITS * k, one[c] + one[k]) for k in sc.TT_PARTNERS[c]] for c in range(22)]
    # per character: its shift, the mask clearing it, 精?, alike / 句 / pair / 聽頭-partner moves
    tab = [(_BITS * c, ~(7 << (_BITS * c)), c in jing, alike[c], ju[c], pair[c], 2 * one[c], partners[c])
           for c in range(22)]
    memo: dict[int, float] = {0: 0.0}
    get = memo.get

    def search(x: int) -> float:
        v = get(x)
        if v is not None:
            return v
        sh, clear, single, alike_i, ju_i, pair_i, two, partners_i = tab[((x & -x).bit_length() - 1) // _BITS]
        r = (x >> sh) & 7
        best = search(x & clear) + (0.3 * r if single else 0.0)  # every copy of this character single
        if r >= 3:
            for n, d, a in alike_i:
                if r >= n and (v := a + search(x - d)) > best:
                    best = v
        for s1, s2, d, a in ju_i:
            if (x >> s1) & 7 and (x >> s2) & 7 and (v := a + search(x - d)) > best:
                best = v
        if r >= 2 and (v := pair_i + search(x - two)) > best:
            best = v
        for sk, d in partners_i:
            if (x >> sk) & 7 and (v := 1.0 + search(x - d)) > best:
                best = v
        if len(memo) >= _MEMO_MAX:
            memo.clear()
            memo[0] = 0.0
        memo[x] = best
        return best

    return search


def shape_value(chars: tuple[int, ...], jing: frozenset[int]) -> float:
    """Heuristic worth of loose cards by character (22 counts): a complete group 3 plus 0.4 of
    its 胡, a pair 1.3, two cards of one 句 1.0, a single 精 0.3. Lowest character first: each step
    takes one group holding it, or leaves all its copies single."""
    return _searcher(jing)(sum(n << (_BITS * c) for c, n in enumerate(chars)))


@lru_cache(maxsize=None)
def _kind_table(jing: frozenset[int], lai: int | None) -> tuple[tuple[int, bool, bool], ...]:
    """Per kind of the deck: (its character's shift in a packed count, a 花 精?, the 賴?)."""
    n = sc.N_KIND + (lai is not None)
    return tuple((0, False, True) if k == lai else (_BITS * sc.KCHAR[k], sc.KHUA[k] and sc.KCHAR[k] in jing, False)
                 for k in range(n))


def hand_value(state, counts: list[int]) -> float:
    """Worth of a concealed hand (count vector over the deck): shape, plus 花 精 kept and 賴 held."""
    jing = state.cfg.jing
    x = 0  # packed character counts (see _searcher)
    bonus = 0.0
    for (sh, hua_jing, lai), n in zip(_kind_table(jing, state.lai), counts):
        if not n:
            continue
        if lai:
            bonus += 2.5 * n
            continue
        x += n << sh
        if hua_jing:
            bonus += 0.2 * n
    return _searcher(jing)(x) + bonus


CANDIDATES = 3  # characters searched in full per discard


class Discard(NamedTuple):
    """The kind to discard and the hand's worth (:func:`hand_value`) after it."""

    kind: int
    value: float


# Per character, the other two characters of each 句 holding it (in 句 order, as links adds them).
_JU_OTHERS = tuple(tuple(tuple(x for x in t if x != c) for t in sc.JU if c in t) for c in range(22))


def links(chars: list[int], c: int, jing: frozenset[int]) -> float:
    """Cheap worth of keeping a card of character ``c``: its copies, its 句 partners held, 精."""
    n = chars[c]
    v = 4.0 if n >= 3 else (2.0 if n == 2 else 0.0)
    for a, b in _JU_OTHERS[c]:
        others = (chars[a] > 0) + (chars[b] > 0)
        v += 2.0 if others == 2 else 0.7 * others
    return v + (1.5 if c in jing else 0.0)


class HeuristicBot:
    """Plays to win: always 胡, 扎, 開泛 and 招; 對 (at most twice, so as never to owe 承包) when the
    group plus the best discard beats the hand as it is; discards the card whose loss hurts least."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def best_discard(self, state, counts: list[int]) -> Discard:
        """The kind to discard from ``counts`` and the hand's worth after it. Only the few characters
        with the fewest links (:func:`links`) are searched in full; of a 精 the plain copy goes first."""
        jing = state.cfg.jing
        chars = [0] * 22
        for k, n in enumerate(counts):
            if n and k != state.lai:
                chars[sc.KCHAR[k]] += n
        present = [c for c in range(22) if chars[c]]
        if not present:  # only 賴 left
            return Discard(state.lai, 0.0)
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
        return Discard(best, best_v)

    def discard(self, state, seat: int, events: list[Event]) -> Event:
        for act in ("hu", "kai_fan", "zha"):
            mine = [e for e in events if e.act == act]
            if mine:
                return max(mine, key=lambda e: sum(c.startswith("花") for c in e.cards or []))
        code = state.deck.codes[self.best_discard(state, list(state.hands[seat])).kind]
        return next(e for e in events if e.act == "discard" and e.card == code)

    def claim(self, state, seat: int, opt: Option) -> Event | None:
        flowers = lambda e: sum(c.startswith("花") for c in e.cards or [])  # noqa: E731
        if opt.act in ("hu", "zhao", "zha", "kai_fan"):  # kai_fan here: at 請統 (fan_from_hand, qing_tong_kai_fan)
            return max(opt.events, key=flowers)
        if opt.act == "dui" and state.dui_count[seat] < 2:
            w = state.window
            if w is not None and any(o.seat == seat and o.act == "hu" for o in w.options):
                return None  # its own 胡 comes later (a 對 ranked before 胡, option mashang_dui): wait for it
            counts = list(state.hands[seat])
            now = self.best_discard(state, counts).value - 1.0  # 對 must clearly help
            e = max(opt.events, key=flowers)
            for c in e.cards or []:
                counts[state.deck.index(c)] -= 1
            ch = sc.KCHAR[state.deck.index(e.card)]
            after = 3 + 0.4 * sc.alike_points(ch, 3, 0, None, state.cfg.jing) + self.best_discard(state, counts).value
            return e if after > now + 1.5 else None
        return None


RolloutBot = rollout_bot(HeuristicBot)
"""The rule-aware bot (replay/rollout.py) over :class:`HeuristicBot` (the state keeps nothing else
derived from concealed cards)."""

def _may_win(self, state, seat: int, hand, melds, k: int) -> bool:
    """The engine's own cheap shape test (``HuapaiState.complete``, run before every 胡 check)."""
    return state.complete(hand, k, state.cfg.jing)


EVBot = ev_bot(HeuristicBot, sources={"self": 0.34, "discard": 0.66}, may_win=_may_win)
"""The expected-value bot (replay/evbot.py) over :class:`HeuristicBot`: a winning card is drawn
(自摸) or another seat's discard (放銃); of the three seats' draws one is its own."""

BOTS = {"random": RandomBot, "heuristic": HeuristicBot, "rollout": RolloutBot, "ev": EVBot}
