"""桂林字牌 hand scoring: group shapes, the 胡 table, the best split, 舵 and 醒.

Cards are kind indices of :data:`replay.cards.ZIPAI`: 0..9 small 一..十, 10..19 big 壹..拾.
Hands are count vectors (20 ints), so a score never depends on card order.

Sources (001 = 001_b125067d32c1f7d7.txt, 004 = 004_d2ed00504ff040a5.txt):
- shapes: 001 §顺子, §特殊顺子, §特殊牌型, §搭子; pairs only beside a 4-card set: 004 §2.规牌 7.
- 胡 table: 001 §玩法规则 (扫穿 12/9, 开舵 9/6, 扫/过扫 6/3, 碰 3/1, 贰柒拾/二七十 6/3,
  壹贰叁/一二三 6/3, dealt three 6/3, dealt four 12/9); minimum 10 胡: 001 §打10胡胡牌规则.
- dealt 坎 cannot be split: 001 §技巧攻略 (起手摸到手上的成坎...不能拆开).
- 舵: 001 §玩法规则 1–2 (10 胡 = 1 舵, +1 per 5 or per 3).
- 醒: 001 §翻上中下醒.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

from replay.cards import ZIPAI

MIN_HU = 10  # 001 §打10胡胡牌规则

# (big, small) 胡 of each group kind; 001 §玩法规则.
HU_TABLE: dict[str, tuple[int, int]] = {
    "sao_chuan": (12, 9),
    "long": (12, 9),  # 起手摸到手上的四张 (同扫穿)
    "kai_duo": (9, 6),
    "sao": (6, 3),
    "guo_sao": (6, 3),
    "kan": (6, 3),  # 起手摸到手上的三张 (同扫)
    "peng": (3, 1),
    "yi_er_san": (6, 3),
    "er_qi_shi": (6, 3),
    "shunzi": (0, 0),
    "dazi": (0, 0),
    "dui": (0, 0),
    "zero_triple": (0, 0),  # hu_triple = zero (004 §胡息及舵 1)
}
FOUR_KINDS = frozenset({"sao_chuan", "kai_duo", "long"})


def is_big(i: int) -> bool:
    """True for 大 (壹..拾), False for 小."""
    return i >= 10


def group_points(kind: str, first_card: int) -> int:
    """胡 of a group of ``kind`` whose cards are of the size of ``first_card`` (big or small)."""
    big, small = HU_TABLE[kind]
    return big if is_big(first_card) else small


def chi_shape(cards: Sequence[int]) -> str | None:
    """The 吃 shape of three kinds, or None.

    :returns: ``yi_er_san`` (一二三 / 壹贰叁), ``er_qi_shi`` (二七十 / 贰柒拾), ``shunzi``
        (other runs of one size), ``dazi`` (搭: two of one size and one of the other, same
        number), or None. Source: 001 §顺子, §搭子.
    """
    if len(cards) != 3:
        return None
    a, b, c = sorted(cards)
    if is_big(a) == is_big(c):  # one size
        n = [x % 10 + 1 for x in (a, b, c)]
        if n == [1, 2, 3]:
            return "yi_er_san"
        if n[1] == n[0] + 1 and n[2] == n[1] + 1:
            return "shunzi"
        if n == [2, 7, 10]:
            return "er_qi_shi"
        return None
    # mixed sizes: 搭 needs one number, e.g. 捌捌八 or 十十拾
    if a % 10 == b % 10 == c % 10:
        return "dazi"
    return None


def chi_points(cards: Sequence[int]) -> int:
    """胡 of a 吃 / 比 group or a concealed run (0 unless 一二三 / 二七十). :raises ValueError: not a shape."""
    shape = chi_shape(cards)
    if shape is None:
        raise ValueError(f"not a 吃 shape: {[ZIPAI.codes[c] for c in cards]}")
    return group_points(shape, min(cards))


@dataclass(frozen=True)
class Group:
    """One group of a split: ``kind``, ``cards`` (kind indices), ``points`` (胡), ``origin``
    (``table`` for a meld laid in play, ``hand`` for a concealed group)."""

    kind: str
    cards: tuple[int, ...]
    points: int
    origin: str = "hand"

    def codes(self) -> list[str]:
        return [ZIPAI.codes[c] for c in self.cards]


@dataclass(frozen=True)
class Split:
    """The best split of a finished hand: every group (melds first) and the total 胡."""

    groups: tuple[Group, ...]
    points: int


def _runs_from(i: int, counts: tuple[int, ...]) -> list[tuple[str, tuple[int, ...]]]:
    """Shapes whose lowest kind is ``i`` that fit in ``counts`` (lowest-first search)."""
    out = []
    base = 0 if i < 10 else 10
    n = i - base + 1
    if n <= 8 and counts[i + 1] and counts[i + 2]:
        out.append(("yi_er_san" if n == 1 else "shunzi", (i, i + 1, i + 2)))
    if n == 2 and counts[base + 6] and counts[base + 9]:
        out.append(("er_qi_shi", (i, base + 6, base + 9)))
    if i < 10:  # 搭: the small card is the lowest index
        j = i + 10
        if counts[i] >= 2 and counts[j] >= 1:
            out.append(("dazi", (i, i, j)))
        if counts[j] >= 2:
            out.append(("dazi", (i, j, j)))
    return out


@lru_cache(maxsize=200_000)
def _best(counts: tuple[int, ...], pairs: int, triple: int, triple_kind: str) -> tuple[int, tuple[Group, ...]] | None:
    """Best (胡, groups) covering ``counts`` exactly, or None.

    ``pairs``: pairs still allowed; ``triple``: the one kind that may form a 3-of-a-kind
    with the winning card (-1: none), valued as ``triple_kind``. Memoised on the count
    vector, searched lowest kind first, so the answer is order-free.
    """
    i = next((k for k, c in enumerate(counts) if c), -1)
    if i < 0:
        return (0, ())
    best: tuple[int, tuple[Group, ...]] | None = None
    cand: list[tuple[str, tuple[int, ...]]] = _runs_from(i, counts)
    if i == triple and counts[i] >= 3:
        cand.append((triple_kind, (i, i, i)))
    if pairs and counts[i] >= 2:
        cand.append(("dui", (i, i)))
    for kind, cards in cand:
        rest = list(counts)
        for c in cards:
            rest[c] -= 1
        sub = _best(tuple(rest), pairs - (kind == "dui"), -1 if kind == triple_kind and cards[0] == triple else triple,
                    triple_kind)
        if sub is None:
            continue
        pts = group_points(kind, i) + sub[0]
        if best is None or pts > best[0]:
            best = (pts, (Group(kind, cards, group_points(kind, i)), *sub[1]))
    return best


def meld_points(kind: str, cards: Sequence[int]) -> int:
    """胡 of a meld on the table (``chi``/``bi`` by shape; others by the 胡 table)."""
    if kind in ("chi", "bi"):
        return chi_points(cards)
    return group_points(kind, cards[0])


def best_split(hand: Sequence[int], melds: Sequence[tuple[str, Sequence[int]]], win_card: int | None,
               win_from: str | None, hu_triple: str = "peng") -> Split | None:
    """The highest-胡 split of a finished hand, or None when the shape is incomplete.

    :param hand: count vector (20) of the concealed hand before the winning card.
    :param melds: ``(kind, cards)`` laid on the table (kinds of spec §4 plus ``bi``).
    :param win_card: the winning card's kind, or None (天胡, or a forced act that completed the hand).
    :param win_from: ``self`` (own flip), ``flip`` (another seat's flip), ``discard``, or None.
    :param hu_triple: rule option ``hu_triple`` (``peng``: a hand pair + another seat's winning
        card counts as 碰; ``zero``: 0 胡, 004 §胡息及舵 1).
    :returns: :class:`Split` with ``points`` = melds + concealed groups (the caller applies
        the 10-胡 minimum). Dealt 坎 (three in hand) and dealt fours stay whole (001 §技巧攻略).
    """
    table = tuple(Group(k, tuple(c), meld_points(k, c), "table") for k, c in melds)
    has_four = any(g.kind in FOUR_KINDS for g in table)
    counts = list(hand)
    fixed: list[Group] = []
    for k, n in enumerate(counts):
        if n >= 3 and k != win_card:
            kind = "kan" if n == 3 else "long"
            has_four |= n == 4
            fixed.append(Group(kind, (k,) * n, group_points(kind, k)))
            counts[k] = 0
    branches: list[tuple[list[int], list[Group], bool, int, str]] = []
    if win_card is None:
        branches.append((counts, fixed, has_four, -1, ""))
    else:
        w = win_card
        n = counts[w]
        if n == 3:  # the 4th on a dealt 坎: as 扫穿/开舵, or the 坎 kept and the card used elsewhere
            kind4 = "sao_chuan" if win_from == "self" else "kai_duo"
            c4 = counts.copy()
            c4[w] = 0
            branches.append((c4, fixed + [Group(kind4, (w,) * 4, group_points(kind4, w))], True, -1, ""))
            if win_from != "self":  # one's own draw of the 4th is a forced 扫穿 (001 §扫穿)
                c3 = counts.copy()
                c3[w] = 1
                branches.append((c3, fixed + [Group("kan", (w,) * 3, group_points("kan", w))], has_four, -1, ""))
        elif n == 2 and win_from == "self":  # a pair + one's own draw is a forced 扫 (001 §扫)
            c = counts.copy()
            c[w] = 0
            branches.append((c, fixed + [Group("sao", (w,) * 3, group_points("sao", w))], has_four, -1, ""))
        else:
            c = counts.copy()
            c[w] += 1
            tk = "sao" if win_from == "self" else ("peng" if hu_triple == "peng" else "zero_triple")
            branches.append((c, fixed, has_four, w if n == 2 else -1, tk))
    best: Split | None = None
    for cnt, fx, four, triple, tk in branches:
        sub = _best(tuple(cnt), 1 if four else 0, triple, tk or "peng")
        if sub is None:
            continue
        groups = (*table, *fx, *sub[1])
        pts = sum(g.points for g in groups)
        if best is None or pts > best.points:
            best = Split(groups, pts)
    return best


def tuo(points: int, step: int) -> int:
    """舵 of ``points`` 胡: 1 at 10, +1 per ``step`` more (001 §玩法规则: 逢5进1 / 逢3进1).

    :raises ValueError: below the 10-胡 minimum.
    """
    if points < MIN_HU:
        raise ValueError(f"{points} 胡 is below the {MIN_HU}-胡 minimum")
    return 1 + (points - MIN_HU) // step


def xing_kinds(zhong: int) -> tuple[int, int, int]:
    """(上醒, 中醒, 下醒) for a turned card: one higher, itself, one lower, wrapping 十↔一 within
    its size (001 §翻上中下醒: 翻出小四 → 中醒小四, 下醒小三, 上醒小五)."""
    base = 0 if zhong < 10 else 10
    n = zhong - base
    return (base + (n + 1) % 10, zhong, base + (n - 1) % 10)


def xing_count(zhong: int | None, held: Sequence[int]) -> int:
    """醒: how many cards of the 上/中/下 kinds the winner holds (hand, melds and winning card).

    :param zhong: the turned card, or None (empty wall: no 醒).
    :param held: count vector of every card the winner holds.
    """
    if zhong is None:
        return 0
    return sum(held[k] for k in xing_kinds(zhong))


SPECIAL = ("tianhu", "dihu", "sanlong_wukan")


def settle_units(points: int, hand_types: Sequence[str], xing: int, rules) -> tuple[int, dict[str, int]]:
    """Units of one losing share and their breakdown.

    舵 = :func:`tuo` (option ``tuo_step``); ×2 for 天胡 / 地胡 / 三笼五坎 (001 §玩法规则: x2舵;
    004 §胡息及舵 6); ×2 for 海底 (``haidi`` in ``hand_types``, 004 §胡息及舵 6); 自摸 +1 舵
    (``zimo_bonus='plus1'``) or ×2 (``'double'``); then + 醒 (001: 每一张 1舵; 004 §5: 醒分).
    ``rules`` is a mapping with ``tuo_step``, ``zimo_bonus`` and ``score_parts``.

    :returns: (units, breakdown). With ``score_parts='tuo'`` the breakdown is
        ``{"tuo", <special>?, "haidi"?, "zimo"?, "xing"}``, with ``'fen'`` it is
        ``{"hu_fen", "xing_fen"}`` (004 §5); its parts add up to the units.
    :raises ValueError: ``points`` under 10.
    """
    base = tuo(points, rules["tuo_step"])
    units = base
    bd: dict[str, int] = {"tuo": base}
    special = next((t for t in hand_types if t in SPECIAL), None)
    if special:
        bd[special] = units
        units *= 2
    if "haidi" in hand_types:
        bd["haidi"] = units
        units *= 2
    if "zimo" in hand_types:
        bonus = 1 if rules["zimo_bonus"] == "plus1" else units
        bd["zimo"] = bonus
        units += bonus
    if rules["score_parts"] == "fen":
        return units + xing, {"hu_fen": units, "xing_fen": xing}
    bd["xing"] = xing
    return units + xing, bd


def score_case(case: dict, rules) -> dict:
    """Judge one spec §8 score case for guilin. ``case`` is the decoded JSON object; ``rules``
    the resolved ruleset. :raises ValueError: malformed case (the message says what)."""
    hand = ZIPAI.counts(case.get("hand") or [])
    melds: list[tuple[str, list[int]]] = []
    for m in case.get("melds") or []:
        kind = m.get("kind")
        cards = [ZIPAI.index(c) for c in m.get("cards") or []]
        if kind in ("kan", "long"):  # dealt sets are concealed: they join the hand
            for k in cards:
                hand[k] += 1
            continue
        if kind not in ("chi", "bi", "peng", "sao", "guo_sao", "sao_chuan", "kai_duo"):
            raise ValueError(f"meld kind {kind!r} is not a guilin meld")
        if kind in ("chi", "bi") and chi_shape(cards) is None:
            raise ValueError(f"meld {m} is not a 吃 shape")
        if kind not in ("chi", "bi") and (len(set(cards)) != 1 or len(cards) != (4 if kind in FOUR_KINDS else 3)):
            raise ValueError(f"meld {m} is not a {kind}")
        melds.append((kind, cards))
    total = list(hand)
    for _, cards in melds:
        for k in cards:
            total[k] += 1
    if any(n > 4 for n in total):
        raise ValueError("more than four copies of a card")
    ctx = case.get("context") or {}
    win_from = case.get("win_from") or "discard"
    if win_from not in ("self", "discard", "flip"):
        raise ValueError("win_from is self, discard or flip")
    if "win_card" not in case:  # waits (spec §8)
        waits = []
        for k in range(20):
            if total[k] >= 4:
                continue
            sp = best_split(hand, melds, k, win_from, rules["hu_triple"])
            if sp is not None:
                waits.append({"card": ZIPAI.codes[k], "points": sp.points, "win": sp.points >= MIN_HU})
        return {"waits": waits}
    wc = case["win_card"]
    w = None if wc is None else ZIPAI.index(wc)
    if w is not None and total[w] >= 4:
        raise ValueError(f"a fifth {wc}")
    sp = best_split(hand, melds, w, None if w is None else win_from, rules["hu_triple"])
    out = {"win": False, "points": None, "units": None, "hand_types": [], "groups": [], "reason": None}
    if sp is None:
        out["reason"] = "the cards do not all form groups (every card in a group; a pair only beside a 4-card set)"
        return out
    out["points"] = sp.points
    out["groups"] = [{"kind": g.kind, "cards": g.codes(), "points": g.points} for g in sp.groups]
    if sp.points < MIN_HU:
        out["reason"] = f"{sp.points} 胡 is under the {MIN_HU}-胡 minimum"
        return out
    types = []
    if w is None and ctx.get("dealer"):
        types.append("tianhu")
    elif w is not None and win_from == "self":
        types.append("zimo")
    if w is not None and ctx.get("first_turn") and win_from == "discard" and not ctx.get("dealer"):
        types.append("dihu")
    if ctx.get("last_card") and w is not None and win_from in ("self", "flip") and rules["haidi_double"]:
        types.append("haidi")
    xc = [ZIPAI.index(x) for x in ctx.get("xing_cards") or []]
    held = list(total)
    if w is not None:
        held[w] += 1
    if not xc:
        xing = 0
    elif rules["xing_mode"] == "shangzhongxia":
        xing = xing_count(xc[0], held)
    else:  # 翻醒: every turned card counts its copies (the turns after 4 are listed by the case)
        xing = sum(held[xing_kinds(x)[0] if rules["fanxing_offset"] else x] for x in xc)
    units, _ = settle_units(sp.points, types, xing, rules)
    out.update(win=True, units=units, hand_types=types)
    return out
