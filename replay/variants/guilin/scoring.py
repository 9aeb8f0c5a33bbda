"""桂林字牌 hands: group shapes, the 胡 table, the best split, 吃 and 下比, 舵 and 醒.

Cards are kind indices of :data:`replay.cards.ZIPAI`: 0..9 small 一..十, 10..19 big 壹..拾.
Hands are count vectors (20 ints), so a score never depends on card order.

Sources (001 = 001_b125067d32c1f7d7.txt, 004 = 004_d2ed00504ff040a5.txt):
- shapes: 001 §顺子, §特殊顺子, §特殊牌型, §搭子; pairs only beside a 4-card set: 004 §2.规牌 7.
- 胡 table: 001 §玩法规则 (扫穿 12/9, 开舵 9/6, 扫/过扫 6/3, 碰 3/1, 贰柒拾/二七十 6/3,
  壹贰叁/一二三 6/3, dealt three 6/3, dealt four 12/9); minimum 10 胡: 001 §打10胡胡牌规则.
- dealt 坎 cannot be split: 001 §技巧攻略 (起手摸到手上的成坎...不能拆开).
- 舵: 001 §玩法规则 1–2 (10 胡 = 1 舵, +1 per 5 or per 3).
- 醒: 001 §翻上中下醒.

This module is the rule, and what ``PAIPU_KERNEL=python`` runs. The engine asks the compiled
kernel beside it (``_kernel.py``: the same best split and 吃 by packed searches), which
tests/test_guilin_kernel.py holds equal to :func:`best_split` and :func:`chi_choices` on random hands.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations_with_replacement
from typing import Iterator, NamedTuple, Sequence

from replay.cards import ZIPAI
from replay.groups import Group, Split

MIN_HU = 10  # 001 §打10胡胡牌规则
MAX_CARDS = 53  # in hand, at most: with the winning card, 18 groups (the kernel's packed answer holds 18)

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
        number), or None. Source: 001 §顺子, §特殊顺子, §搭子.
    """
    if len(cards) != 3:
        return None
    a, b, c = sorted(cards)
    if is_big(a) == is_big(c):  # one size
        n = (a % 10 + 1, b % 10 + 1, c % 10 + 1)
        if n == (1, 2, 3):
            return "yi_er_san"
        if n[1] == n[0] + 1 and n[2] == n[1] + 1:
            return "shunzi"
        if n == (2, 7, 10):
            return "er_qi_shi"
        return None
    if a % 10 == b % 10 == c % 10:  # mixed sizes: 搭 needs one number, e.g. 捌捌八 or 十十拾
        return "dazi"
    return None


@lru_cache(maxsize=8192)
def _chi_points(cards: tuple[int, ...]) -> int:
    shape = chi_shape(cards)
    if shape is None:
        raise ValueError(f"not a 吃 shape: {ZIPAI.codes_of(cards)}")
    return group_points(shape, min(cards))


def chi_points(cards: Sequence[int]) -> int:
    """胡 of a 吃 / 比 group or a concealed run (0 unless 一二三 / 二七十). :raises ValueError: not a shape."""
    return _chi_points(tuple(cards))


def meld_points(kind: str, cards: Sequence[int]) -> int:
    """胡 of a meld on the table (``chi``/``bi`` by shape; others by the 胡 table)."""
    if kind in ("chi", "bi"):
        return chi_points(cards)
    return group_points(kind, cards[0])


def set_of(kind: str, k: int) -> Group:
    """A concealed set of kind ``k``: 坎 / 扫 / the winning triple (3 cards), 笼 / 扫穿 / 开舵 (4)."""
    return Group(kind, (k,) * (4 if kind in FOUR_KINDS else 3), group_points(kind, k))


# -- what a hand is --------------------------------------------------------------------------
def not_int(o: object) -> TypeError:
    return TypeError(f"a 桂林 card count or kind is an int, not {o!r}")


def bad_hand(hand) -> ValueError:
    return ValueError(f"a 桂林 hand is a count vector of 20 kinds, 0..4 cards each, not {list(hand)}")


def bad_meld_card(c, kind) -> ValueError:
    return ValueError(f"meld card {c!r} of {kind}: a kind is 0..19")


def bad_win_card(win_card) -> ValueError:
    return ValueError(f"winning card {win_card}: a kind is 0..19")


def checked(hand: Sequence[int], melds: Sequence[tuple[str, Sequence[int]]], win_card: int | None) -> list[Group]:
    """The table groups of a hand to score, after checking the hand (20 counts of 0..4, at most
    :data:`MAX_CARDS`), each meld (known kind, cards 0..19, a 吃 / 比 of a shape) and the winning card.

    :raises ValueError, TypeError, KeyError: the first fault, in that order.
    """
    total = 0
    for k, c in enumerate(hand):
        if not isinstance(c, int):
            raise not_int(c)
        if c < 0 or c > 4 or k >= 20:
            raise bad_hand(hand)
        total += c
    if len(hand) != 20 or total > MAX_CARDS:
        raise ValueError(f"a 桂林 hand is a count vector of 20 kinds with at most {MAX_CARDS} cards, not {list(hand)}")
    table = []
    for kind, cards in melds:
        if (kind not in HU_TABLE and kind not in ("chi", "bi")) or not cards:
            meld_points(kind, cards)  # raises: an unknown kind, no cards
        for c in cards:
            if not isinstance(c, int):
                raise not_int(c)
            if c < 0 or c > 19:
                raise bad_meld_card(c, kind)
        table.append(Group(kind, tuple(cards), meld_points(kind, cards), "table"))
    if win_card is not None and not isinstance(win_card, int):
        raise not_int(win_card)
    if win_card is not None and not 0 <= win_card <= 19:
        raise bad_win_card(win_card)
    return table


# -- the best split ----------------------------------------------------------------------------
class Reading(NamedTuple):
    """One way to read the winning card beside the cards of its kind in hand (001 §扫, §扫穿, §开舵)."""

    concealed: tuple[int, ...]  # the count vector left to lay out as groups
    made: Group | None  # the set the winning card makes with the hand's cards of its kind
    triple: Group | None  # the winning triple the concealed cards may form (碰 of the hand's pair)


def readings(loose: Sequence[int], w: int | None, win_from: str | None, hu_triple: str,
             kan_opens: bool) -> Iterator[Reading]:
    """The readings of winning card ``w`` beside the ``loose`` cards (dealt 坎 and fours of other
    kinds set aside), the 4-card set first, so that it wins a tie with the kept 坎."""
    if w is None:  # 天胡, or a forced act that completed the hand
        yield Reading(tuple(loose), None, None)
        return
    n, self_draw = loose[w], win_from == "self"
    if n == 3:  # a dealt 坎 of the card's kind
        if self_draw or kan_opens:  # the 4th card: 扫穿 on one's own flip, else 开舵 (001 §扫穿, §开舵)
            yield Reading(_add(loose, w, -3), set_of("sao_chuan" if self_draw else "kai_duo", w), None)
        if not self_draw:  # the 坎 kept and the card used elsewhere (one's own flip of the 4th is a forced 扫穿)
            yield Reading(_add(loose, w, -2), set_of("kan", w), None)
    elif n == 2 and self_draw:  # a pair and one's own flip: a forced 扫 (001 §扫)
        yield Reading(_add(loose, w, -2), set_of("sao", w), None)
    else:  # the card joins the hand; with the hand's pair it may be the triple: 碰, or 0 胡 (004 §胡息及舵 1)
        triple = set_of("peng" if hu_triple == "peng" else "zero_triple", w) if n == 2 else None
        yield Reading(_add(loose, w, 1), None, triple)


def _add(counts: Sequence[int], k: int, d: int) -> tuple[int, ...]:
    return tuple(c + d if i == k else c for i, c in enumerate(counts))


def groups_holding(i: int, counts: Sequence[int], pairs: int, triple: Group | None) -> Iterator[Group]:
    """The groups that can hold a concealed card of kind ``i`` when no card is of a lower kind, in
    the order the search tries them: a run of one size (一二三 / 壹贰叁 or another 顺子), 二七十 /
    贰柒拾, the 搭 of two small and one big, the 搭 of one small and two big (001 §顺子, §特殊顺子,
    §搭子), the winning triple, and a pair where ``pairs`` allows one (004 §2.规牌 7)."""
    if i % 10 <= 7 and counts[i + 1] and counts[i + 2]:
        yield Group("yi_er_san" if i % 10 == 0 else "shunzi", (i, i + 1, i + 2), chi_points((i, i + 1, i + 2)))
    if i % 10 == 1 and counts[i + 5] and counts[i + 8]:
        yield Group("er_qi_shi", (i, i + 5, i + 8), chi_points((i, i + 5, i + 8)))
    if not is_big(i) and counts[i] >= 2 and counts[i + 10]:
        yield Group("dazi", (i, i, i + 10), chi_points((i, i, i + 10)))
    if not is_big(i) and counts[i + 10] >= 2:
        yield Group("dazi", (i, i + 10, i + 10), chi_points((i, i + 10, i + 10)))
    if triple is not None and triple.cards[0] == i and counts[i] >= 3:
        yield triple
    if pairs and counts[i] >= 2:
        yield Group("dui", (i, i), group_points("dui", i))


@lru_cache(maxsize=65536)
def best_concealed(counts: tuple[int, ...], pairs: int, triple: Group | None) -> tuple[int, tuple[Group, ...]] | None:
    """The highest-胡 way to lay every card of ``counts`` out in groups, with at most ``pairs``
    pairs and the winning ``triple``: (胡, groups), or None when some card fits no group. The
    lowest kind held goes first, and of equally high ways the first found stays, so a split never
    depends on card order and ties always go the same way."""
    i = next((k for k, c in enumerate(counts) if c), None)
    if i is None:
        return 0, ()
    best = None
    for g in groups_holding(i, counts, pairs, triple):
        rest = list(counts)
        for k in g.cards:
            rest[k] -= 1
        sub = best_concealed(tuple(rest), pairs - (g.kind == "dui"), triple)
        if sub is not None and (best is None or g.points + sub[0] > best[0]):
            best = (g.points + sub[0], (g, *sub[1]))
    return best


def best_split(hand: Sequence[int], melds: Sequence[tuple[str, Sequence[int]]], win_card: int | None,
               win_from: str | None, hu_triple: str = "peng", kan_opens: bool = True) -> Split | None:
    """The highest-胡 split of a finished hand, or None when the shape is incomplete.

    :param hand: count vector (20) of the concealed hand before the winning card (counts 0..4).
    :param melds: ``(kind, cards)`` laid on the table (kinds of spec §4 plus ``bi``).
    :param win_card: the winning card's kind, or None (天胡, or a forced act that completed the hand).
    :param win_from: ``self`` (own flip), ``flip`` (another seat's flip), ``discard``, or None.
    :param hu_triple: rule option ``hu_triple`` (``peng``: a hand pair + another seat's winning
        card counts as 碰; ``zero``: 0 胡, 004 §胡息及舵 1).
    :param kan_opens: whether another seat's winning card opens a dealt 坎 of its kind to 开舵 (read
        as 开舵 or the 坎 kept, the better); False keeps the 坎 whole (a discard under option
        ``kan_kai_duo_on_discard = false``, 004 §3 3, second 打牌 block: 手中1坎别家摸起1张相同牌).
    :returns: :class:`Split` with ``points`` = melds + concealed groups (the caller applies
        the 10-胡 minimum): the melds, the dealt sets, the set the winning card makes, then the
        concealed groups. Of equally high splits, the first reading wins (:func:`readings`), and
        within a reading the first found (:func:`best_concealed`).
    :raises ValueError: a hand that is not 20 counts of 0..4, a winning card or a meld card
        outside 0..19, a 吃 / 比 meld that is not a shape.
    :raises TypeError: a count, card or winning card that is not an int.
    """
    table = checked(hand, melds, win_card)
    loose, dealt = list(hand), []
    for k in range(20):  # dealt 坎 and fours stay whole (001 §技巧攻略), but those of the winning card's kind
        if loose[k] >= 3 and k != win_card:
            dealt.append(set_of("long" if loose[k] == 4 else "kan", k))
            loose[k] = 0
    pairs = int(any(g.kind in FOUR_KINDS for g in (*table, *dealt)))  # a pair only beside a 4-card set
    best: tuple[int, tuple[Group, ...]] | None = None
    for r in readings(loose, win_card, win_from, hu_triple, kan_opens):
        four = r.made is not None and r.made.kind in FOUR_KINDS
        found = best_concealed(r.concealed, 1 if four else pairs, r.triple)
        if found is None:
            continue
        made = (r.made,) if r.made is not None else ()
        points = sum(g.points for g in made) + found[0]
        if best is None or points > best[0]:
            best = (points, (*made, *found[1]))
    if best is None:
        return None
    return Split((*table, *dealt, *best[1]), sum(g.points for g in (*table, *dealt)) + best[0])


def best_points(hand: Sequence[int], melds: Sequence[tuple[str, Sequence[int]]], win_card: int | None,
                win_from: str | None, hu_triple: str = "peng", kan_opens: bool = True) -> int | None:
    """``best_split(...).points``, None when there is no split."""
    sp = best_split(hand, melds, win_card, win_from, hu_triple, kan_opens)
    return None if sp is None else sp.points


# -- 吃 and 下比 ------------------------------------------------------------------------------
# Every 3-card 吃 shape as sorted kinds, and those holding each kind (001 §顺子, §特殊顺子, §搭子).
SHAPES: tuple[tuple[int, ...], ...] = tuple(
    t for t in combinations_with_replacement(range(20), 3) if chi_shape(t) is not None and max(t.count(x) for x in t) <= 2)
SHAPES_WITH: dict[int, tuple[tuple[int, ...], ...]] = {k: tuple(s for s in SHAPES if k in s) for k in range(20)}


def free(hand: Sequence[int]) -> list[int]:
    """The cards a seat may use or discard: a dealt 坎 or four is locked (001 §技巧攻略: 起手摸到手上的
    成坎的牌不能拆开)."""
    return [n if n < 3 else 0 for n in hand]


def _take(cards: Sequence[int], kinds: Sequence[int]) -> list[int] | None:
    """``cards`` less one of each of ``kinds``, or None where they are not all held."""
    rest = list(cards)
    for k in kinds:
        rest[k] -= 1
        if rest[k] < 0:
            return None
    return rest


def chi_choices(c: int, hand: Sequence[int], bi_blocks: bool) -> list[tuple[tuple[int, ...], tuple[tuple[int, ...], ...]]]:
    """The 吃 a seat holding ``hand`` may make of card ``c``: (its two own cards, its 比 groups), in
    the order of :data:`SHAPES`. The own cards make a shape with ``c``; every copy of ``c`` left in
    hand then goes down too (:func:`xia_bi`); and a card must be left to discard. All of free cards.
    Source: 001 §吃牌, §技巧攻略 下张(下伙)."""
    cards = free(hand)
    out = []
    for shape in SHAPES_WITH[c]:
        own = list(shape)
        own.remove(c)
        rest = _take(cards, own)
        if rest is None:
            continue
        out += [(tuple(own), bi) for bi in xia_bi(c, rest, bi_blocks) if sum(cards) - 2 - 3 * len(bi) > 0]
    return out


def xia_bi(c: int, cards: Sequence[int], bi_blocks: bool) -> list[tuple[tuple[int, ...], ...]]:
    """下比 (001 §技巧攻略 下张): the ways the copies of ``c`` in ``cards`` go down with a 吃 of ``c``,
    each in a 比 group (a shape holding ``c``; a set of groups once, in :data:`SHAPES` order). Every
    copy that can form a group must: a copy that can form none stays in hand, unless ``bi_blocks``
    (option ``bi_without_group = blocks``: 有比的情况下不比，吃的过程整体取消 — then there is no 吃)."""
    if not cards[c]:
        return [()]
    shapes = SHAPES_WITH[c]
    out: list[tuple[tuple[int, ...], ...]] = []
    for i, first in enumerate(shapes):
        rest = _take(cards, first)
        if rest is None:
            continue
        if not rest[c]:
            out.append((first,))
        elif any(_take(rest, s) is not None for s in shapes):
            out += [(first, s) for s in shapes[i:] if _take(rest, s) is not None]
        elif not bi_blocks:  # the last copy forms no group
            out.append((first,))
    if not any(_take(cards, s) is not None for s in shapes) and not bi_blocks:  # no copy forms a group
        out.append(())
    return out


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


def shangxia_count(card: int, held: Sequence[int]) -> tuple[int, bool]:
    """上下醒 of one turned card (option ``xing_mode = shangxia``, docs/rules/guilin.md decision 18):
    the winner's copies of the card's 上醒 and 下醒 kinds (001 §翻上中下醒: 这张牌的上一张就是上醒，下一张
    就是下醒), not of the card itself; and whether the next card of the wall is turned too — when the
    winner holds all 4 copies of the 上 kind or all 4 of the 下 kind.

    :param held: count vector of every card the winner holds (hand, melds and winning card).
    :returns: (count, turn again).
    """
    shang, _, xia = xing_kinds(card)
    return held[shang] + held[xia], held[shang] == 4 or held[xia] == 4


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
