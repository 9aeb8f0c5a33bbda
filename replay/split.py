"""Whether a count vector splits into 3-card groups plus 2-card halves — the shape test shared by
the families whose hands are groups and one 2-card remainder (沅江鬼胡子's 句 + 门子, 通城個子牌's
句/坎 + 半句, 花牌's 句/坎/扎/泛 + 聽頭).

Only existence is asked (the claim windows and 听 checks ask it for every seat and card, and
nearly every answer is no); the variants' own searches pick the best split of a hand that has one.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Callable, Sequence


def split_test(runs_from: Sequence[Sequence[tuple[int, int, int]]], partners: Sequence[Sequence[int]],
               alike: tuple[int, ...] = (3,)) -> Callable[[bytes, int], bool]:
    """A memoised ``can_split(counts, halves)``: True when ``counts`` (a count vector as bytes)
    splits into groups of ``alike`` cards of one kind (3; 花牌 also 4 and 5), the runs of
    ``runs_from[i]`` (the 3-card groups whose lowest kind is ``i``), and exactly ``halves``
    2-card halves (a pair, or ``i`` with a kind of ``partners[i]``, all higher than ``i``).
    Lowest kind first, stopping at the first split found.
    """

    @lru_cache(maxsize=500_000)
    def can_split(counts: bytes, halves: int) -> bool:
        left = len(counts.lstrip(b"\0"))
        if not left:
            return halves == 0
        i = len(counts) - left
        ci = counts[i]
        takes: list[tuple[tuple[int, ...], int]] = [((i,) * n, 0) for n in alike if ci >= n]
        takes += [(r, 0) for r in runs_from[i] if counts[r[1]] and counts[r[2]]]
        if halves:
            if ci >= 2:
                takes.append(((i, i), 1))
            takes += [((i, j), 1) for j in partners[i] if counts[j]]
        for cards, used in takes:
            rest = bytearray(counts)
            for k in cards:
                rest[k] -= 1
            if can_split(bytes(rest), halves - used):
                return True
        return False

    return can_split
