"""replay/split.py: the packed-integer shape test against a plain search written from its definition."""

from __future__ import annotations

import random
from functools import lru_cache

import pytest

from replay.split import components, split_test
from replay.variants.huapai import scoring as hsc
from replay.variants.tongcheng_gezi import scoring as gsc
from replay.variants.yuanjiang_guihuzi import scoring as ysc

FAMILIES = {
    "huapai": ([hsc.JU_FROM[c] for c in range(22)], [hsc.TT_PARTNERS[c] for c in range(22)], (3, 4, 5), 5),
    "yuanjiang": ([ysc.SENT_FROM[i] for i in range(20)], [ysc.MENZI_UP[i] for i in range(20)], (3,), 4),
    "gezi": (gsc.JU_FROM, gsc.HALF_PARTNERS, (3,), 4),
}


def reference(runs_from, partners, alike):
    """Groups and halves taken from the lowest kind held, on tuples — the definition, slowly."""

    @lru_cache(maxsize=None)
    def ok(c: tuple[int, ...], halves: int) -> bool:
        i = next((k for k, n in enumerate(c) if n), None)
        if i is None:
            return halves == 0
        takes = [[i] * n for n in alike] + [list(r) for r in runs_from[i]]
        if halves:
            takes += [[i, i]] + [[i, j] for j in partners[i]]
        for t in takes:
            rest = list(c)
            for k in t:
                rest[k] -= 1
            if min(rest) >= 0 and ok(tuple(rest), halves - (len(t) == 2)):
                return True
        return False

    return ok


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_agrees_with_the_plain_search(family):
    runs_from, partners, alike, top = FAMILIES[family]
    fast, slow = split_test(runs_from, partners, alike), reference(runs_from, partners, alike)
    rng = random.Random(family)
    n = len(runs_from)
    seen = {True: 0, False: 0}
    for _ in range(6000):
        c = [0] * n
        for _ in range(rng.choice([2, 3, 5, 6, 8, 9, 11, 14, 17, 20])):
            c[rng.randrange(n)] += 1
        c = [min(x, top) for x in c]
        halves = rng.choice([0, 1, 1, 2])
        want = slow(tuple(c), halves)
        assert fast(bytes(c), halves) is want, (c, halves)
        seen[want] += 1
    assert seen[True] > 40 and seen[False] > 1000  # both answers were exercised


def test_a_hand_split_across_components():
    """沅江: small 一二三 + big 四五六 + the 门子 小七小八 — three components' parts, the half in one."""
    runs_from, partners, alike, _ = FAMILIES["yuanjiang"]
    can = split_test(runs_from, partners, alike)
    c = [0] * 20
    for k in (0, 1, 2, 6, 7, 13, 14, 15):
        c[k] += 1
    assert can(bytes(c), 1) is True
    assert can(bytes(c), 0) is False  # 小七小八 is a half, not a group
    c[7] -= 1
    c[17] += 1  # 小七 + 大八: no half across the two sizes
    assert can(bytes(c), 1) is False


def test_components_of_the_families():
    comps = {name: components(len(f[0]), [r for rs in f[0] for r in rs] + [(i, j) for i, js in enumerate(f[1]) for j in js])
             for name, f in FAMILIES.items()}
    assert comps["yuanjiang"] == [list(range(10)), list(range(10, 20))]
    # 花牌/個子: 上大人 and 可知禮 stand apart; every other 句 and 聽頭 chains the rest together
    assert [0, 1, 2] in comps["huapai"] and [6, 7, 8] in comps["huapai"] and len(comps["huapai"]) == 3
    assert comps["gezi"] == comps["huapai"]
