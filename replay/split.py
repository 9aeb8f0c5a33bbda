"""Whether a count vector splits into 3-card groups plus 2-card halves — the shape test shared by
the families whose hands are groups and one 2-card remainder (通城個子牌's 句/坎 + 半句, 花牌's
句/坎/扎/泛 + 聽頭; 沅江鬼胡子's 句 + 门子 has its own packed search,
yuanjiang_guihuzi/scoring.py).

Only existence is asked (the claim windows and 听 checks ask it for every seat and card, and
nearly every answer is no); the variants' own searches pick the best split of a hand that has one.

The count vector is packed into one integer, a byte per kind with its top bit set as a guard
(SWAR: "SIMD within a register"): taking a group is one subtraction, and it was possible exactly
when every guard bit survived it (a kind short of cards borrows its own guard and no other, as a
count never reaches 128). The lowest kind held is the integer's lowest set bit. That turns the
per-node work of the search from building byte strings into a few integer operations.

Kinds that no group or half joins fall apart into components (two sizes in the 字牌 deck; 個子 and 花牌's
上大人 and 可知禮 apart from the rest), and a hand splits exactly when each component does, one
of them taking the half: each component is searched and memoised on its own, so the memo answers
far more often than it would for whole hands.
"""

from __future__ import annotations

from typing import Callable, Iterable, Sequence

MEMO_MAX = 500_000  # answers kept per test before the memo starts afresh (~60 MB at most)


def split_test(runs_from: Sequence[Sequence[tuple[int, int, int]]], partners: Sequence[Sequence[int]],
               alike: tuple[int, ...] = (3,)) -> Callable[[bytes, int], bool]:
    """A memoised ``can_split(counts, halves)``: True when ``counts`` (a count vector as bytes,
    every count under 128) splits into groups of ``alike`` cards of one kind (3; 花牌 also 4 and
    5), the runs of ``runs_from[i]`` (the 3-card groups whose lowest kind is ``i``), and exactly
    ``halves`` (0..7) 2-card halves (a pair, or ``i`` with a kind of ``partners[i]``, all higher
    than ``i``). Lowest kind first, stopping at the first split found.
    """
    n = len(runs_from)
    guard = sum(0x80 << (8 * i) for i in range(n))
    # Per lowest kind i: (what taking the group subtracts, halves it uses).
    moves: list[tuple[tuple[int, int], ...]] = []
    for i in range(n):
        one = 1 << (8 * i)
        m = [(k * one, 0) for k in alike]
        m += [(one + (1 << (8 * r[1])) + (1 << (8 * r[2])), 0) for r in runs_from[i]]
        m += [(2 * one, 1)] + [(one + (1 << (8 * j)), 1) for j in partners[i]]
        moves.append(tuple(m))
    links = [r for rs in runs_from for r in rs] + [(i, j) for i in range(n) for j in partners[i]]
    masks = [sum(0xFF << (8 * k) for k in comp) for comp in components(n, links)]
    memo: dict[int, bool] = {}

    def search(xb: int, halves: int) -> bool:
        key = xb << 3 | halves
        hit = memo.get(key)
        if hit is not None:
            return hit
        x = xb ^ guard
        if not x:
            ok = halves == 0
        else:
            ok = False
            for d, used in moves[((x & -x).bit_length() - 1) >> 3]:
                if used <= halves:
                    y = xb - d
                    if y & guard == guard and search(y, halves - used):
                        ok = True
                        break
        if len(memo) >= MEMO_MAX:
            memo.clear()
        memo[key] = ok
        return ok

    def can_split(counts: bytes, halves: int) -> bool:
        x = int.from_bytes(counts, "little")
        if len(masks) == 1 or halves > 1:
            return search(x | guard, halves)
        parts = [p | guard for m in masks if (p := x & m)]
        if len(parts) == 1:
            return search(parts[0], halves)
        short = [p for p in parts if not search(p, 0)]
        if not halves:
            return not short
        if short:  # the one component that cannot do without the half must take it
            return len(short) == 1 and search(short[0], 1)
        return any(search(p, 1) for p in parts)

    can_split.cache_clear = memo.clear  # type: ignore[attr-defined]  # as functools' caches offer
    return can_split


def components(n: int, links: Iterable[Sequence[int]]) -> list[list[int]]:
    """The kinds ``0..n-1`` grouped by ``links`` (each a group or half whose kinds it joins), by
    union-find; each component lists its kinds in order, components by their lowest kind."""
    root = list(range(n))

    def find(k: int) -> int:
        while root[k] != k:
            k = root[k]
        return k

    for link in links:
        for k in link[1:]:
            root[find(k)] = find(link[0])
    comps: dict[int, list[int]] = {}
    for k in range(n):
        comps.setdefault(find(k), []).append(k)
    return list(comps.values())
