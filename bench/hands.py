"""A fixed corpus of 桂林 hands and the hand-scorer timer (``replay.variants.guilin._kernel.best_split``, what the engine asks).

The corpus is built from a seed alone (no scorer involved, so it stays the same while the
scorer changes): half the hands are assembled from valid groups — 0..4 melds on the table (吃,
碰, 扫, 开舵/扫穿), concealed runs, 二七十, 搭, dealt 坎 and fours, a pair beside a four —
then one concealed card is taken out as the winning card (own flip, another seat's flip, a
discard, or none as at 天胡); the other half are the same hands with one loose card swapped
for another kind, which mostly breaks the shape. Every hand respects four copies per kind.

Cache policy of the timer: **cold** clears every cache of the scorer module before one pass over
the corpus (each ``lru_cache`` and the shared table groups of melds, ``_MELDS``, with their 胡;
the search itself keeps no memo); **warm** is a second pass right after, with the caches
as the cold pass left them. The checksum of the answers (points and
group kinds of every hand) shows that a faster scorer still gives the same answers.
"""

from __future__ import annotations

import hashlib
import random
import time
from itertools import combinations_with_replacement
from typing import Any

Hand = tuple[list[int], list[tuple[str, tuple[int, ...]]], int | None, str | None]


def _shapes() -> list[tuple[int, int, int]]:
    from replay.variants.guilin.scoring import chi_shape

    return [t for t in combinations_with_replacement(range(20), 3)
            if chi_shape(t) is not None and max(t.count(x) for x in t) <= 2]


def _winning(rng: random.Random, shapes: list[tuple[int, int, int]]) -> Hand | None:
    avail = [4] * 20

    def take(cards) -> bool:
        need: dict[int, int] = {}
        for c in cards:
            need[c] = need.get(c, 0) + 1
        if any(avail[c] < n for c, n in need.items()):
            return False
        for c, n in need.items():
            avail[c] -= n
        return True

    melds: list[tuple[str, tuple[int, ...]]] = []
    four = False
    for _ in range(rng.choice((0, 0, 1, 1, 2, 2, 3, 4))):
        r = rng.random()
        k = rng.randrange(20)
        if r < 0.55:
            s = rng.choice(shapes)
            if take(s):
                melds.append(("chi", s))
        elif r < 0.8:
            if take((k,) * 3):
                melds.append(("peng", (k,) * 3))
        elif r < 0.9:
            if take((k,) * 3):
                melds.append((rng.choice(("sao", "guo_sao")), (k,) * 3))
        elif take((k,) * 4):
            melds.append((rng.choice(("kai_duo", "sao_chuan")), (k,) * 4))
            four = True
    hand = [0] * 20
    loose: list[int] = []  # cards of concealed groups that are not dealt sets
    groups = 7 - len(melds)
    tries = 0
    while groups and tries < 200:
        tries += 1
        r = rng.random()
        k = rng.randrange(20)
        if r < 0.75:
            s = rng.choice(shapes)
            if all(hand[c] + s.count(c) <= 2 for c in s) and take(s):  # 3 alike would be a locked 坎
                for c in s:
                    hand[c] += 1
                loose += s
                groups -= 1
        elif r < 0.95:
            if hand[k] == 0 and take((k,) * 3):
                hand[k] = 3
                groups -= 1
        elif hand[k] == 0 and take((k,) * 4):
            hand[k] = 4
            four = True
            groups -= 1
    if groups:
        return None
    if four and rng.random() < 0.7:
        k = rng.randrange(20)
        if hand[k] == 0 and take((k, k)):
            hand[k] += 2
            loose += [k, k]
    if any(n > 4 for n in hand):
        return None
    r = rng.random()
    if r < 0.1:
        return hand, melds, None, None
    pool = loose if loose and rng.random() < 0.85 else [k for k in range(20) if hand[k]]
    w = rng.choice(pool)
    hand[w] -= 1
    return hand, melds, w, ("self", "flip", "discard")[rng.randrange(3)]


def _broken(rng: random.Random, h: Hand) -> Hand:
    hand, melds, w, wf = h
    hand = hand.copy()
    total = hand.copy()
    for _, cards in melds:
        for c in cards:
            total[c] += 1
    if w is not None:
        total[w] += 1
    ks = [k for k in range(20) if 0 < hand[k] < 3]
    if not ks:
        return hand, melds, w, wf
    k = rng.choice(ks)
    js = [j for j in range(20) if j != k and total[j] < 4]
    j = rng.choice(js)
    hand[k] -= 1
    hand[j] += 1
    return hand, melds, w, wf


def build_hands(n: int, seed: int = 1) -> list[Hand]:
    """``n`` hands (half assembled winning shapes, half broken copies), the same for a seed."""
    rng = random.Random(f"paipu-bench-hands:{seed}")
    shapes = _shapes()
    out: list[Hand] = []
    while len(out) < n:
        h = _winning(rng, shapes)
        if h is None:
            continue
        out.append(h)
        if len(out) < n:
            out.append(_broken(rng, h))
    return out


def clear_scorer_caches() -> int:
    """Clear every cache of the guilin scorer, rule and kernel: each ``lru_cache`` and the kernel's
    meld cache (``_MELDS``). Returns how many were cleared."""
    from replay.variants.guilin import _kernel, scoring

    n = 0
    for obj in (*vars(scoring).values(), *vars(_kernel).values()):
        if callable(getattr(obj, "cache_clear", None)):
            obj.cache_clear()
            n += 1
    _kernel._MELDS.clear()
    return n + 1


def _digest(results: list[Any]) -> tuple[str, dict[str, int]]:
    h = hashlib.sha256()
    mix = {"win": 0, "under_10": 0, "no_shape": 0}
    for sp in results:
        if sp is None:
            mix["no_shape"] += 1
            h.update(b"-;")
            continue
        mix["win" if sp.points >= 10 else "under_10"] += 1
        h.update(f"{sp.points}:{','.join(g.kind + str(g.cards) for g in sp.groups)};".encode())
    return h.hexdigest()[:16], mix


def time_scorer(hands: list[Hand], hu_triple: str = "peng") -> dict[str, Any]:
    """Score every hand cold (memo cleared) then warm; hands per CPU second of each pass."""
    from replay.variants.guilin._kernel import best_split

    clear_scorer_caches()
    t0 = time.process_time()
    cold = [best_split(h, m, w, wf, hu_triple) for h, m, w, wf in hands]
    t1 = time.process_time()
    warm = [best_split(h, m, w, wf, hu_triple) for h, m, w, wf in hands]
    t2 = time.process_time()
    digest, mix = _digest(cold)
    if _digest(warm)[0] != digest:
        raise AssertionError("the scorer answered differently with a warm memo")
    n = len(hands)
    return {"hands": n, "mix": mix, "checksum": digest,
            "cold_cpu_s": round(t1 - t0, 4), "warm_cpu_s": round(t2 - t1, 4),
            "cold_hands_per_s": n / (t1 - t0) if t1 > t0 else 0.0,
            "warm_hands_per_s": n / (t2 - t1) if t2 > t1 else 0.0}
