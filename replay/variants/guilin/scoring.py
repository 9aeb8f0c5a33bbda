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


_CHI_POINTS: dict[tuple[int, ...], int] = {}  # cards as given -> 胡 (only shapes; at most 20³ keys)


def chi_points(cards: Sequence[int]) -> int:
    """胡 of a 吃 / 比 group or a concealed run (0 unless 一二三 / 二七十). :raises ValueError: not a shape."""
    key = tuple(cards)
    pts = _CHI_POINTS.get(key)
    if pts is None:
        shape = chi_shape(cards)
        if shape is None:
            raise ValueError(f"not a 吃 shape: {[ZIPAI.codes[c] for c in cards]}")
        pts = _CHI_POINTS[key] = group_points(shape, min(cards))
    return pts


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


def case_groups(groups: Sequence[Group]) -> list[dict]:
    """Spec §8 ``groups`` of a split: ``[{"kind", "cards", "points"}, ...]`` (melds first)."""
    return [{"kind": g.kind, "cards": g.codes(), "points": g.points} for g in groups]


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


# Groups are immutable values: the search hands out one shared object per (kind, cards) instead of
# building equal ones again (a speed measure only; bench/ measures it).
_GROUPS: dict[tuple[str, tuple[int, ...]], Group] = {}


def _group(kind: str, cards: tuple[int, ...]) -> Group:
    """The concealed group ``kind`` of ``cards`` (lowest kind first), with its 胡."""
    g = _GROUPS.get((kind, cards))
    if g is None:
        g = _GROUPS[(kind, cards)] = Group(kind, cards, group_points(kind, cards[0]))
    return g


# The shapes of _runs_from per lowest kind i, as (kind, cards, group).
_RUN_AT = {i: ("yi_er_san" if i % 10 == 0 else "shunzi", (i, i + 1, i + 2),
               _group("yi_er_san" if i % 10 == 0 else "shunzi", (i, i + 1, i + 2))) for i in range(20) if i % 10 <= 7}
_EQS_AT = {i: ("er_qi_shi", (i, i + 5, i + 8), _group("er_qi_shi", (i, i + 5, i + 8))) for i in (1, 11)}
_DAZI_AT = {i: (("dazi", (i, i, i + 10), _group("dazi", (i, i, i + 10))),
                ("dazi", (i, i + 10, i + 10), _group("dazi", (i, i + 10, i + 10)))) for i in range(10)}
_DUI_AT = {i: ("dui", (i, i), _group("dui", (i, i))) for i in range(20)}


@lru_cache(maxsize=200_000)
def _best(counts: bytes, pairs: int, triple: int, triple_kind: str) -> tuple[int, tuple[Group, ...]] | None:
    """Best (胡, groups) covering ``counts`` exactly, or None.

    ``counts``: the count vector as bytes (one byte per kind; a compact, fast memo key);
    ``pairs``: pairs still allowed; ``triple``: the one kind that may form a 3-of-a-kind
    with the winning card (-1: none), valued as ``triple_kind``. Memoised on the count
    vector, searched lowest kind first, so the answer is order-free. Callers pass
    ``triple = -1`` once the triple can no longer form (fewer than 3 left), and then
    ``triple_kind = "peng"``: the answer is the same, the memo shares more.
    """
    left = len(counts.lstrip(b"\0"))
    if not left:
        return (0, ())
    i = len(counts) - left  # the lowest kind held
    ci = counts[i]
    # candidates in the order of _runs_from, then the triple, then a pair
    cand = []
    if i % 10 <= 7 and counts[i + 1] and counts[i + 2]:
        cand.append(_RUN_AT[i])
    if (i == 1 or i == 11) and counts[i + 5] and counts[i + 8]:
        cand.append(_EQS_AT[i])
    if i < 10:  # 搭: the small card is the lowest index
        j = i + 10
        dz = _DAZI_AT[i]
        if ci >= 2 and counts[j] >= 1:
            cand.append(dz[0])
        if counts[j] >= 2:
            cand.append(dz[1])
    if i == triple and ci >= 3:
        cand.append((triple_kind, (i, i, i), _group(triple_kind, (i, i, i))))
    if pairs and ci >= 2:
        cand.append(_DUI_AT[i])
    best: tuple[int, tuple[Group, ...]] | None = None
    for kind, cards, g in cand:
        rest = bytearray(counts)
        for c in cards:
            rest[c] -= 1
        if kind == triple_kind and cards[0] == triple:
            t, tk = -1, "peng"
        elif triple >= 0 and rest[triple] < 3:
            t, tk = -1, "peng"
        else:
            t, tk = triple, triple_kind
        sub = _best(bytes(rest), pairs - (kind == "dui"), t, tk)
        if sub is None:
            continue
        pts = g.points + sub[0]
        if best is None or pts > best[0]:
            best = (pts, (g, *sub[1]))
    return best


# A necessary condition that best_points checks before the search (the claim windows ask about
# hands that almost never win): every kind held must fit some group (a run, 二七十, 搭, the winning
# triple, a pair). Count vectors become 20-bit masks with bit k for kind k (small ints: cheap
# shifts and ands over all kinds at once), read as binary numbers: the count bytes are translated
# to ASCII "0"/"1" digits and reversed (kind 0 is the lowest bit).
_GE1 = bytes([48] + [49] * 255)  # translate table: digit 1 where the count is ≥ 1
_GE2 = bytes([48, 48] + [49] * 254)  # ... ≥ 2


def _bits(kinds) -> int:
    """The mask with bit ``k`` set for each kind ``k`` of ``kinds`` (repeats count once)."""
    return sum(1 << k for k in set(kinds))


_RUN_START = _bits(k for k in range(20) if k % 10 <= 7)
_EQS_SMALL, _EQS_BIG = _bits((1, 6, 9)), _bits((11, 16, 19))
_SMALL = _bits(range(10))


def _cover(m1: int, m2: int, pairs: int) -> int:
    """Bits of the kinds that some run, 二七十, 搭 or pair could hold, given the bits held at
    least once (``m1``) and at least twice (``m2``). More cards never cover less."""
    r = m1 & (m1 >> 1) & (m1 >> 2) & _RUN_START  # run starts
    cov = r | (r << 1) | (r << 2)
    if m1 & _EQS_SMALL == _EQS_SMALL:
        cov |= _EQS_SMALL
    if m1 & _EQS_BIG == _EQS_BIG:
        cov |= _EQS_BIG
    d = ((m2 & (m1 >> 10)) | (m1 & (m2 >> 10))) & _SMALL  # 搭: small n with big n
    cov |= d | (d << 10)
    if pairs:
        cov |= m2
    return cov


def _coverable(counts: bytes, pairs: int, triple: int) -> bool:
    """False when some kind held can be in no group at all (then :func:`_best` finds no split)."""
    m1 = int(counts.translate(_GE1)[::-1], 2)
    cov = _cover(m1, int(counts.translate(_GE2)[::-1], 2), pairs)
    if triple >= 0 and counts[triple] >= 3:
        cov |= 1 << triple
    return not m1 & ~cov


_LOOSE = bytes([0, 1, 2] + [0] * 253)  # translate table: dealt sets (3, 4 alike) read as 0


def _reach(w: int) -> int:
    """Bits whose coverage can change when kind ``w`` is added: ``w``, its run neighbours (same
    size, up to 2 away), its 二七十 partners and its 搭 partner."""
    base = w - w % 10
    near = [k for k in range(w - 2, w + 3) if base <= k < base + 10]
    eqs = [base + 1, base + 6, base + 9] if w % 10 in (1, 6, 9) else []
    return _bits([*near, *eqs, w + 10 if w < 10 else w - 10])


_REACH = [_reach(w) for w in range(20)]


@lru_cache(maxsize=8_192)
def _loose(hand: bytes) -> tuple[int, int, bool, int]:
    """Of the kinds that are not dealt sets (3 or 4 alike): the bits held ≥ 1 and ≥ 2 times; whether
    there is a dealt set; and the bits that fit no group even where pairs are allowed."""
    loose = hand.translate(_LOOSE)
    m1 = int(loose.translate(_GE1)[::-1], 2)
    m2 = int(loose.translate(_GE2)[::-1], 2)
    return m1, m2, loose != hand, m1 & ~_cover(m1, m2, 1)


def meld_points(kind: str, cards: Sequence[int]) -> int:
    """胡 of a meld on the table (``chi``/``bi`` by shape; others by the 胡 table)."""
    if kind in ("chi", "bi"):
        return chi_points(cards)
    return group_points(kind, cards[0])


_MELDS: dict[tuple[str, tuple[int, ...]], Group] = {}  # one shared table group per (kind, cards)


@lru_cache(maxsize=65_536)
def _table_of(melds: tuple[tuple[str, tuple[int, ...]], ...]) -> tuple[tuple[Group, ...], int, bool]:
    table = []
    for k, c in melds:
        g = _MELDS.get((k, c))
        if g is None:
            g = Group(k, tuple(c), meld_points(k, c), "table")
            if len(_MELDS) < 100_000:
                _MELDS[(k, c)] = g
        table.append(g)
    return tuple(table), sum(g.points for g in table), any(g.kind in FOUR_KINDS for g in table)


def _table(melds: Sequence[tuple[str, Sequence[int]]]) -> tuple[tuple[Group, ...], int, bool]:
    """The table's groups, their 胡 and whether one is a 4-card set (memoised on the melds)."""
    try:
        return _table_of(tuple(melds))
    except TypeError:  # cards given as lists: the same groups
        return _table_of(tuple((k, tuple(c)) for k, c in melds))


_SETS: dict[tuple[str, int, int], Group] = {}


def _set(kind: str, k: int, n: int) -> Group:
    """A group of ``n`` cards of kind ``k`` (坎, 笼, 扫, 扫穿, 开舵), shared like :func:`_group`."""
    g = _SETS.get((kind, k, n))
    if g is None:
        g = _SETS[(kind, k, n)] = Group(kind, (k,) * n, group_points(kind, k))
    return g


_GE3 = bytes([0, 0, 0] + [1] * 253)  # translate table: 1 where the count is ≥ 3


def _dealt(hand: bytes) -> list[int]:
    """Kinds held three or four times (dealt 坎 and fours), lowest first."""
    marks = hand.translate(_GE3)
    out = []
    k = marks.find(1)
    while k >= 0:
        out.append(k)
        k = marks.find(1, k + 1)
    return out


def _branches(hand: Sequence[int], win_card: int | None, win_from: str | None, hu_triple: str,
              has_four: bool) -> list[tuple[bytes, tuple[Group, ...], int, int, int, str]]:
    """The ways to read a finished hand: (counts left to split, fixed groups, their 胡, pairs
    allowed, triple kind or -1, the triple's group kind). See :func:`best_split`."""
    b = bytes(hand)  # counts are 0..4
    counts = bytearray(b)
    fixed: tuple[Group, ...] = ()
    fixed_pts = 0
    if b and max(b) >= 3:  # dealt 坎 and fours stay whole
        fl = []
        for k in _dealt(b):
            if k != win_card:
                n = counts[k]
                g = _set("kan" if n == 3 else "long", k, n)
                has_four |= n == 4
                fl.append(g)
                fixed_pts += g.points
                counts[k] = 0
        fixed = tuple(fl)
    pairs = 1 if has_four else 0
    if win_card is None:
        return [(bytes(counts), fixed, fixed_pts, pairs, -1, "peng")]
    w = win_card
    n = counts[w]
    if n == 3:  # the 4th on a dealt 坎: as 扫穿/开舵, or the 坎 kept and the card used elsewhere
        g4 = _set("sao_chuan" if win_from == "self" else "kai_duo", w, 4)
        counts[w] = 0
        out = [(bytes(counts), (*fixed, g4), fixed_pts + g4.points, 1, -1, "peng")]
        if win_from != "self":  # one's own draw of the 4th is a forced 扫穿 (001 §扫穿)
            gk = _set("kan", w, 3)
            counts[w] = 1
            out.append((bytes(counts), (*fixed, gk), fixed_pts + gk.points, pairs, -1, "peng"))
        return out
    if n == 2 and win_from == "self":  # a pair + one's own draw is a forced 扫 (001 §扫)
        gs = _set("sao", w, 3)
        counts[w] = 0
        return [(bytes(counts), (*fixed, gs), fixed_pts + gs.points, pairs, -1, "peng")]
    counts[w] += 1
    if n == 2:  # the hand's pair and the winning card: 碰 (or 0 胡 under hu_triple = zero)
        return [(bytes(counts), fixed, fixed_pts, pairs, w, "peng" if hu_triple == "peng" else "zero_triple")]
    return [(bytes(counts), fixed, fixed_pts, pairs, -1, "peng")]


def best_split(hand: Sequence[int], melds: Sequence[tuple[str, Sequence[int]]], win_card: int | None,
               win_from: str | None, hu_triple: str = "peng") -> Split | None:
    """The highest-胡 split of a finished hand, or None when the shape is incomplete.

    :param hand: count vector (20) of the concealed hand before the winning card (counts 0..4).
    :param melds: ``(kind, cards)`` laid on the table (kinds of spec §4 plus ``bi``).
    :param win_card: the winning card's kind, or None (天胡, or a forced act that completed the hand).
    :param win_from: ``self`` (own flip), ``flip`` (another seat's flip), ``discard``, or None.
    :param hu_triple: rule option ``hu_triple`` (``peng``: a hand pair + another seat's winning
        card counts as 碰; ``zero``: 0 胡, 004 §胡息及舵 1).
    :returns: :class:`Split` with ``points`` = melds + concealed groups (the caller applies
        the 10-胡 minimum). Dealt 坎 (three in hand) and dealt fours stay whole (001 §技巧攻略).
        Of equally high splits, the first reading wins (the 4-card set before the kept 坎).
    """
    table, table_pts, has_four = _table(melds)
    best: Split | None = None
    for cnt, fixed, fixed_pts, pairs, triple, tk in _branches(hand, win_card, win_from, hu_triple, has_four):
        sub = _best(cnt, pairs, triple, tk)
        if sub is None:
            continue
        pts = table_pts + fixed_pts + sub[0]
        if best is None or pts > best.points:
            best = Split((*table, *fixed, *sub[1]), pts)
    return best


def best_points(hand: Sequence[int], melds: Sequence[tuple[str, Sequence[int]]], win_card: int | None,
                win_from: str | None, hu_triple: str = "peng") -> int | None:
    """``best_split(...).points`` (None when there is no split), without building the split:
    the claim windows ask this for every seat and card, and nearly every answer is None.

    Shortcuts to None (each only when every branch of :func:`_branches` would fail
    :func:`_coverable`): a loose kind out of the winning card's reach that fits no group even
    with pairs stays so with the winning card (one AND on numbers cached per hand); else a
    loose kind other than the winning card fits no group even if the winning card were held
    twice and a pair allowed wherever a branch could allow one. Without a winning card (after a
    forced act) the one branch splits the loose kinds as they are: a loose kind that fits no
    group even with pairs leaves it no split.
    """
    hand = bytes(hand)
    m1, m2, dealt, lone = _loose(hand)
    if win_card is None:
        if lone:
            return None
    else:
        if lone & ~_REACH[win_card]:
            return None
        w = 1 << win_card
        if m1 & ~w & ~_cover(m1 | w, m2 | w, dealt or any(k in FOUR_KINDS for k, _ in melds)):
            return None
    _, table_pts, has_four = _table(melds)
    best: int | None = None
    for cnt, _, fixed_pts, pairs, triple, tk in _branches(hand, win_card, win_from, hu_triple, has_four):
        if not _coverable(cnt, pairs, triple):
            continue
        sub = _best(cnt, pairs, triple, tk)
        if sub is not None and (best is None or table_pts + fixed_pts + sub[0] > best):
            best = table_pts + fixed_pts + sub[0]
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
    (``zimo_bonus='plus1'``) or ×2 (``'double'``); 醒 +1 舵 each (001: 每一张 1舵; 004 §5: 醒分),
    added after the multipliers, or before them with option ``xing_multiplied`` (then they double
    the 醒 too). ``rules`` is a mapping with ``tuo_step``, ``zimo_bonus``, ``score_parts`` and
    ``xing_multiplied``.

    :returns: (units, breakdown). With ``score_parts='tuo'`` the breakdown is
        ``{"tuo", <special>?, "haidi"?, "zimo"?, "xing"}`` (each multiplier's entry is what it
        adds), with ``'fen'`` it is ``{"hu_fen", "xing_fen"}`` (004 §5: the 醒's part, multiplied
        or not, and the rest); its parts add up to the units.
    :raises ValueError: ``points`` under 10.
    """
    base = tuo(points, rules["tuo_step"])
    first = rules["xing_multiplied"]
    units = base + xing if first else base
    bd: dict[str, int] = {"tuo": base}
    factor = 1  # of the 醒 when it is multiplied
    special = next((t for t in hand_types if t in SPECIAL), None)
    if special:
        bd[special] = units
        units *= 2
        factor *= 2
    if "haidi" in hand_types:
        bd["haidi"] = units
        units *= 2
        factor *= 2
    if "zimo" in hand_types:
        double = rules["zimo_bonus"] != "plus1"
        bonus = units if double else 1
        bd["zimo"] = bonus
        units += bonus
        factor *= 2 if double else 1
    if not first:
        units += xing
    xing_part = xing * factor if first else xing
    if rules["score_parts"] == "fen":
        return units, {"hu_fen": units - xing_part, "xing_fen": xing_part}
    bd["xing"] = xing
    return units, bd
