"""上大人 hand scoring: groups, the 胡 of each group, the best split, hand classes and 分.

Cards are kind indices of :data:`replay.cards.SHANGDAREN`: kind ``k`` is character ``k % 3``
of phrase ``k // 3`` (孔乙己 上大人 化三千 爾小生 佳作仁 七十士 八九子 福祿壽); position 0 is
red, 1 green, 2 black. Hands are count vectors (24 ints), so a score never depends on card
order.

Sources (002 = 002_f9a80b28e0fcbf1a.txt):
- deck, colours, 精 = 上 七 福: 002 §上大人 (opening paragraph).
- hand classes and their 分: 002 §上大人 2 (牌點計算) and 3 (計分規則).
- the 胡 of each group and the winning shape (six groups + 聽頭) are not in §上大人; they are
  derived from the 花牌 sections of the same file (002 §三精花牌 3 計胡規則, 4 胡牌規則);
  docs/rules/shangdaren.md says how and why, and every choice is a rule option.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Sequence

from replay.cards import SHANGDAREN
from replay.groups import Group

N_KINDS = 24
JING = (3, 15, 21)  # 上 七 福 (002 §上大人: 其中上、七、福稱為“精”)
JING_SET = frozenset(JING)
# 枯胡: no character of 上大人, 七十士, 福祿壽 (002 §上大人 2c)
KU_FORBIDDEN = frozenset(range(3, 6)) | frozenset(range(15, 18)) | frozenset(range(21, 24))
PHRASE_KINDS = frozenset({"ju", "chi"})

# 胡 of a three / four of a kind by colour class, per option ``hu_scale`` (docs/rules/shangdaren.md §胡):
# "kan" a three in the hand, "dui" a three on the table (對), "four" a 毛 / 開毛.
# "face": the 花牌 values as written (坎 red 2 / black 1 / 精 5, 扎 ×2; 002 §三精花牌 3);
# "by_copies" (default): 上大人 has 4 copies of a card, 花牌 5, so a three (3 of 4) is valued as
# the 花牌 扎 (4 of 5) and a four (all copies) as the 泛 (all five, 團圓);
# "flat": a public 上大人 engine's values, one value for every colour: 坎 3 in the hand,
# 2 when 對'd; a four (招) 6; 精坎 12 (in the hand or 對'd), 精招 16.
_BY_COPIES = {"red": 4, "black": 2, "jing": 10}
_FACE = {"red": 2, "black": 1, "jing": 5}
HU_TABLE: dict[str, dict[str, dict[str, int]]] = {
    "by_copies": {"kan": _BY_COPIES, "dui": _BY_COPIES, "four": {"red": 8, "black": 4, "jing": 20}},
    "face": {"kan": _FACE, "dui": _FACE, "four": {"red": 4, "black": 2, "jing": 10}},
    "flat": {"kan": {"red": 3, "black": 3, "jing": 12}, "dui": {"red": 2, "black": 2, "jing": 12},
             "four": {"red": 6, "black": 6, "jing": 16}},
}
SET_CLASS = {"kan": "kan", "dui": "dui", "mao": "four", "kai_mao": "four"}  # group kind -> HU_TABLE row

# Hand classes: id → 分 (002 §上大人 3).
CLASS_UNITS = {"pihu": 2, "taihu": 6, "taihu_fan": 12, "qinghu": 4, "qing_taihu": 8, "kuhu": 12, "kuhu_21": 24, "heihu": 14}
JING_CLASSES = frozenset({"pihu", "taihu", "taihu_fan"})
PENGPENG_BONUS = 2  # 002 §上大人 3a: 碰碰胡的話就在原有的基礎分上加2分
# the classes 碰碰胡 adds to, per option ``pengpeng_scope`` (None: every class)
PENGPENG_CLASSES: dict[str, frozenset[str] | None] = {"jing": JING_CLASSES, "taihu_fan": frozenset({"taihu_fan"}), "all": None}


def phrase_of(k: int) -> tuple[int, int, int]:
    """The three kinds of the phrase (句) that kind ``k`` belongs to."""
    b = k - k % 3
    return (b, b + 1, b + 2)


def colour(k: int) -> str:
    """``red`` / ``green`` / ``black`` (002 §上大人: 第一張為紅色牌，第二張牌為綠色牌，第三張為黑色牌)."""
    return ("red", "green", "black")[k % 3]


@dataclass(frozen=True)
class Params:
    """The options that change 胡: ``hu_scale``, ``green_as``, the doubled 主精 (None: none),
    ``ting_tou`` (its shapes) and ``ting_tou_jing`` (胡 of a 聽頭 pair of 精)."""

    hu_scale: str = "by_copies"
    green_as: str = "black"
    double: int | None = None
    ting_tou: str = "ju_or_pair"
    ting_tou_jing: int = 0

    @classmethod
    def of(cls, rules: Any, main: int | None) -> "Params":
        return cls(rules["hu_scale"], rules["green_as"], main if rules["zhu_jing"] == "double" else None, rules["ting_tou"],
                   rules["ting_tou_jing"])


def set_points(k: int, kind: str, p: Params) -> int:
    """胡 of a three / four of kind ``k`` as group ``kind`` (``kan`` in the hand, ``dui``, ``mao``,
    ``kai_mao``; see :data:`HU_TABLE`): 精 / red / black (green counts as ``p.green_as``), ×2 when
    ``k`` is the doubled 主精 (002 §三精花牌 3: 主精…全部翻一倍)."""
    cls = "jing" if k in JING_SET else ("red" if k % 3 == 0 or (k % 3 == 1 and p.green_as == "red") else "black")
    pts = HU_TABLE[p.hu_scale][SET_CLASS[kind]][cls]
    return pts * (2 if k == p.double else 1)


def ting_tou_points(cards: Sequence[int], p: Params) -> int:
    """胡 of the 聽頭: ``p.ting_tou_jing`` for a pair of a 精 (金對; ×2 for the doubled 主精),
    else 0 (the 聽頭 is not a group: 002 gives it no 胡; option ``ting_tou_jing``)."""
    k = cards[0]
    if k in JING_SET and cards[1] == k:
        return p.ting_tou_jing * (2 if k == p.double else 1)
    return 0


def phrase_points(cards: Sequence[int], p: Params) -> int:
    """胡 of a phrase (句): 1 per 精 in it, 0 otherwise (002 §三精花牌 3: 黑字1個胡也沒有…精放在句中
    …素精就是1個胡; 上大人 has no 花精), ×2 for the doubled 主精."""
    return sum((2 if k == p.double else 1) for k in cards if k in JING_SET)


def group_points(kind: str, cards: Sequence[int], p: Params) -> int:
    """胡 of one group of ``kind`` (ju/chi, kan/dui, mao/kai_mao, ting_tou)."""
    if kind in PHRASE_KINDS:
        return phrase_points(cards, p)
    if kind in SET_CLASS:
        return set_points(cards[0], kind, p)
    if kind == "ting_tou":
        return ting_tou_points(cards, p)
    raise ValueError(f"unknown group kind {kind!r}")


@lru_cache(maxsize=100_000)
def _phrase_best(base: int, a: int, b: int, c: int, head: bool, p: Params) -> tuple[int, tuple[Group, ...]] | None:
    """Best (胡, groups) covering counts ``(a, b, c)`` of the phrase starting at kind ``base``
    exactly with 句 and 坎 and, when ``head``, one 聽頭 (a pair, or two of the phrase when
    ``p.ting_tou`` allows). No group spans two phrases, so a hand splits phrase by phrase."""
    counts = (a, b, c)
    i = next((x for x in range(3) if counts[x]), -1)
    if i < 0:
        return None if head else (0, ())
    k = base + i
    cand: list[tuple[str, tuple[int, ...], bool]] = []
    if counts[i] >= 3:
        cand.append(("kan", (k, k, k), head))
    if i == 0 and b and c:
        cand.append(("ju", (base, base + 1, base + 2), head))
    if head:
        if counts[i] >= 2:
            cand.append(("ting_tou", (k, k), False))
        if p.ting_tou == "ju_or_pair":  # 聽頭: 一句牌中的任意兩個 (002 §三精花牌 4)
            for x in range(i + 1, 3):
                if counts[x]:
                    cand.append(("ting_tou", (k, base + x), False))
    best: tuple[int, tuple[Group, ...]] | None = None
    for kind, cards, h in cand:
        rest = list(counts)
        for card in cards:
            rest[card - base] -= 1
        sub = _phrase_best(base, *rest, h, p)
        if sub is None:
            continue
        g = Group(kind, cards, group_points(kind, cards, p))
        if best is None or g.points + sub[0] > best[0]:
            best = (g.points + sub[0], (g, *sub[1]))
    return best


def _best(counts: tuple[int, ...], p: Params) -> tuple[int, tuple[Group, ...]] | None:
    """Best (胡, concealed groups) of ``counts`` (24): every phrase in 句/坎, one of them also
    holding the 聽頭; None when no such split exists. Memoised per phrase, so order-free."""
    rem = [(counts[b] + counts[b + 1] + counts[b + 2]) % 3 for b in range(0, N_KINDS, 3)]
    if sorted(rem) != [0] * 7 + [2]:  # groups take 3 cards of one phrase, the 聽頭 2
        return None
    hi = rem.index(2)
    parts = []
    for i, b in enumerate(range(0, N_KINDS, 3)):
        x = _phrase_best(b, counts[b], counts[b + 1], counts[b + 2], i == hi, p)
        if x is None:
            return None
        parts.append(x)
    return sum(x[0] for x in parts), tuple(g for x in parts for g in x[1])


def _pengpeng(counts: Sequence[int], p: Params) -> tuple[int, tuple[Group, ...]] | None:
    """The all-three-of-a-kind split (碰碰胡): every kind 0 or 3, one pair as 聽頭; None otherwise."""
    pairs = [k for k, c in enumerate(counts) if c == 2]
    if len(pairs) != 1 or any(c not in (0, 2, 3) for c in counts):
        return None
    groups = [Group("kan", (k,) * 3, set_points(k, "kan", p)) for k, c in enumerate(counts) if c == 3]
    groups.append(Group("ting_tou", (pairs[0],) * 2, ting_tou_points((pairs[0],) * 2, p)))
    return sum(g.points for g in groups), tuple(groups)


@dataclass(frozen=True)
class Judgement:
    """A finished hand judged: ``win``, ``points`` (胡), ``units`` (分), ``hand_class``, ``pengpeng``,
    ``groups`` (melds first), ``breakdown``, ``jing_main``, ``jing_count``, ``reason`` (None for a win)."""

    win: bool
    points: int | None
    units: int | None
    hand_class: str | None
    pengpeng: bool
    groups: tuple[Group, ...]
    breakdown: dict[str, int] | None
    jing_main: int | None
    jing_count: int
    held: tuple[int, ...]
    reason: str | None


def held_counts(hand: Sequence[int], melds: Sequence[tuple[str, Sequence[int]]], win_card: int | None) -> list[int]:
    """Count vector of every card the seat holds: concealed hand, melds and the winning card."""
    held = list(hand)
    for _, cards in melds:
        for k in cards:
            held[k] += 1
    if win_card is not None:
        held[win_card] += 1
    return held


def main_jing(held: Sequence[int]) -> int | None:
    """The 主精: the 精 held most (deck order 上, 七, 福 breaks a tie); None when none is held
    (002 §三精花牌 定精方法: 所持最多者為主精)."""
    best = max(JING, key=lambda j: (held[j], -j))
    return best if held[best] else None


def classify(points: int, held: Sequence[int], pengpeng: bool, rules: Any) -> tuple[str | None, int, dict[str, int] | None]:
    """Hand class, 分 and breakdown of a complete hand of ``points`` 胡 (002 §上大人 2–3).

    The class worth the most applies (decision 6): 黑胡 14 (all black or all green; minimum
    ``hei_hu_min``), 枯胡 12 / 24 at 21 胡 (minimum ``ku_hu_min``), with 精: 屁胡 2 (21), 台胡 6 (41),
    台胡翻 12 (51); without 精: 清胡 4 (11), 清台胡 8 (22). 碰碰胡 adds 2 to the classes of option
    ``pengpeng_scope`` (the 精 classes; 台胡翻 only; every class). :returns: (class id or None when no class is reached, 分, breakdown).
    """
    kinds = [k for k, c in enumerate(held) if c]
    n_jing = sum(held[j] for j in JING)
    cands: list[tuple[int, str]] = []
    if kinds and (all(k % 3 == 2 for k in kinds) or all(k % 3 == 1 for k in kinds)) and points >= rules["hei_hu_min"]:
        cands.append((CLASS_UNITS["heihu"], "heihu"))
    if not any(k in KU_FORBIDDEN for k in kinds) and points >= rules["ku_hu_min"]:
        cands.append((CLASS_UNITS["kuhu_21"], "kuhu_21") if points >= 21 else (CLASS_UNITS["kuhu"], "kuhu"))
    if n_jing:
        for lim, cid in ((51, "taihu_fan"), (41, "taihu"), (21, "pihu")):
            if points >= lim:
                cands.append((CLASS_UNITS[cid], cid))
                break
    else:
        for lim, cid in ((22, "qing_taihu"), (11, "qinghu")):
            if points >= lim:
                cands.append((CLASS_UNITS[cid], cid))
                break
    if not cands:
        return None, 0, None
    units, cid = max(cands)
    bd = {cid: units}
    scope = PENGPENG_CLASSES[rules["pengpeng_scope"]]
    if pengpeng and (scope is None or cid in scope):
        bd["pengpeng"] = PENGPENG_BONUS
        units += PENGPENG_BONUS
    return cid, units, bd


def judge(hand: Sequence[int], melds: Sequence[tuple[str, Sequence[int]]], win_card: int | None, rules: Any) -> Judgement:
    """Judge a finished hand.

    :param hand: count vector (24) of the concealed hand before the winning card.
    :param melds: ``(kind, cards)`` on the table (chi, dui, mao, kai_mao).
    :param win_card: the winning card's kind (None: the hand as it is).
    :param rules: the ruleset (options of ``options.py``).
    :returns: :class:`Judgement`; ``win`` False with ``reason`` when the cards do not all form
        groups plus one 聽頭, or the 胡 reach no class. The split chosen is the one worth the
        most 分, then the most 胡 (碰碰胡 can beat a split with more 胡).
    """
    held = held_counts(hand, melds, win_card)
    main = main_jing(held)
    n_jing = sum(held[j] for j in JING)
    p = Params.of(rules, main)
    table = tuple(Group(k, tuple(c), group_points(k, c, p), "table") for k, c in melds)
    counts = list(hand)
    if win_card is not None:
        counts[win_card] += 1
    splits = []
    gen = _best(tuple(counts), p)
    if gen is not None:
        splits.append((gen, False))
    if not any(k == "chi" for k, _ in melds):
        peng = _pengpeng(counts, p)
        if peng is not None:
            splits.append((peng, True))
    if not splits:
        return Judgement(False, None, None, None, False, table, None, main, n_jing, tuple(held),
                         "the cards do not all form 句 and 坎 with one 聽頭 (a pair or two cards of one phrase)")
    best = None
    for (pts, groups), pp in splits:
        total = pts + sum(g.points for g in table)
        cid, units, bd = classify(total, held, pp, rules)
        key = (units, total)
        if best is None or key > best[0]:
            best = (key, total, cid, units, bd, pp, groups)
    assert best is not None  # splits is not empty
    _, total, cid, units, bd, pp, groups = best
    allg = (*table, *groups)
    if cid is None:
        need = "21 胡 (屁胡, the hand holds 精)" if n_jing else "11 胡 (清胡, no 精)"
        return Judgement(False, total, None, None, pp, allg, None, main, n_jing, tuple(held),
                         f"{total} 胡 is under the minimum: {need}")
    return Judgement(True, total, units, cid, bd is not None and "pengpeng" in bd, allg, bd, main, n_jing, tuple(held), None)


def per_jing(j: Judgement, rules: Any) -> dict[str, dict[str, int]]:
    """For facts(): each 精 character held: how many and the 胡 of the groups it sits in
    (a three/four or a 聽頭 pair of it: the group's 胡; a phrase: the 精's own 1 (or 2 when doubled))."""
    out: dict[str, dict[str, int]] = {}
    p = Params.of(rules, j.jing_main)
    for jk in JING:
        if not j.held[jk]:
            continue
        hu = 0
        for g in j.groups:
            if jk not in g.cards:
                continue
            if g.kind in PHRASE_KINDS:
                hu += phrase_points((jk,), p)
            elif all(c == jk for c in g.cards):
                hu += g.points
        out[SHANGDAREN.codes[jk]] = {"count": j.held[jk], "hu": hu}
    return out


MELD_SIZES = {"chi": 3, "dui": 3, "mao": 4, "kai_mao": 4}


def parse_melds(raw: Sequence[dict]) -> list[tuple[str, list[int]]]:
    """Score-case melds (spec §8) → ``(kind, kinds)``. :raises ValueError: not a 上大人 meld."""
    out = []
    for m in raw:
        kind = m.get("kind")
        cards = [SHANGDAREN.index(c) for c in m.get("cards") or []]
        if kind not in MELD_SIZES:
            raise ValueError(f"meld kind {kind!r} is not a shangdaren meld (chi, dui, mao, kai_mao)")
        if len(cards) != MELD_SIZES[kind]:
            raise ValueError(f"a {kind} has {MELD_SIZES[kind]} cards, got {len(cards)}")
        if kind == "chi" and tuple(sorted(cards)) != phrase_of(cards[0]):
            raise ValueError(f"meld {m} is not a phrase (句)")
        if kind != "chi" and len(set(cards)) != 1:
            raise ValueError(f"meld {m} is not {len(cards)} of one character")
        out.append((kind, cards))
    return out
