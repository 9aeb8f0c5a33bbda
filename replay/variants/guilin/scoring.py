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
from typing import Sequence

from replay.cards import ZIPAI

try:
    import cython
except ImportError:  # run as Python where Cython is not installed (replay/_cython.py: no-op decorators)
    from replay import _cython as cython

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
    return _SHAPE_NAMES[_shape3(cards[0], cards[1], cards[2])]


# Shape codes of _shape3 and of the search's moves: 0 none, then the group kinds below.
_SHAPE_NAMES = (None, "yi_er_san", "shunzi", "er_qi_shi", "dazi", "dui")


@cython.cfunc
@cython.locals(a=cython.int, b=cython.int, c=cython.int, t=cython.int)
@cython.returns(cython.int)
@cython.exceptval(check=False)
def _shape3(a, b, c):
    """:func:`chi_shape` of the kinds ``a``, ``b``, ``c`` (any order) as a code of :data:`_SHAPE_NAMES`."""
    if a > b:
        a, b = b, a
    if b > c:
        b, c = c, b
        if a > b:
            a, b = b, a
    if (a >= 10) == (c >= 10):  # one size
        a, b, c = a % 10 + 1, b % 10 + 1, c % 10 + 1
        if a == 1 and b == 2 and c == 3:
            return 1
        if b == a + 1 and c == b + 1:
            return 2
        if a == 2 and b == 7 and c == 10:
            return 3
        return 0
    # mixed sizes: 搭 needs one number, e.g. 捌捌八 or 十十拾
    if a % 10 == b % 10 and b % 10 == c % 10:
        return 4
    return 0


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


@cython.no_gc
@cython.freelist(16)
@cython.cclass
class Split:
    """The best split of a finished hand: every group (melds first) and the total 胡. Read-only
    (compiled, an extension type: a frozen dataclass took half the scorer's time budget to make);
    equal, hashed and shown as a frozen dataclass would be. Not
    tracked by the cyclic garbage collector (``no_gc``: it holds a tuple of frozen groups, which
    cannot lead back to it), so the splits a caller keeps do not bring on full collections."""

    groups = cython.declare(tuple, visibility="readonly")
    points = cython.declare(object, visibility="readonly")

    def __init__(self, groups: tuple, points: int) -> None:
        self.groups = groups
        self.points = points

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Split):
            return NotImplemented
        return (self.groups, self.points) == (other.groups, other.points)

    def __hash__(self) -> int:
        return hash((self.groups, self.points))

    def __repr__(self) -> str:
        return f"Split(groups={self.groups!r}, points={self.points!r})"


# Groups are immutable values: the scorer hands out one shared object per (kind, cards) instead of
# building equal ones again (a speed measure only; bench/ measures it).
_GROUPS: dict[tuple[str, tuple[int, ...]], Group] = {}


def _group(kind: str, cards: tuple[int, ...]) -> Group:
    """The concealed group ``kind`` of ``cards`` (lowest kind first), with its 胡."""
    g = _GROUPS.get((kind, cards))
    if g is None:
        g = _GROUPS[(kind, cards)] = Group(kind, cards, group_points(kind, cards[0]))
    return g


_SETS: dict[tuple[str, int, int], Group] = {}


def _set(kind: str, k: int, n: int) -> Group:
    """A group of ``n`` cards of kind ``k`` (坎, 笼, 扫, 扫穿, 开舵), shared like :func:`_group`."""
    g = _SETS.get((kind, k, n))
    if g is None:
        g = _SETS[(kind, k, n)] = Group(kind, (k,) * n, group_points(kind, k))
    return g


def meld_points(kind: str, cards: Sequence[int]) -> int:
    """胡 of a meld on the table (``chi``/``bi`` by shape; others by the 胡 table)."""
    if kind in ("chi", "bi"):
        return chi_points(cards)
    return group_points(kind, cards[0])


# Meld kinds by a small id: the 4-card sets first (ids 1..3), then 吃 and 比 (4, 5), then the rest.
_MELD_KINDS = ("sao_chuan", "kai_duo", "long", "chi", "bi",
               *(k for k in HU_TABLE if k not in FOUR_KINDS and k not in ("chi", "bi")))
_KIND_ID = {k: i + 1 for i, k in enumerate(_MELD_KINDS)}
_HU_BIG = [0, *(HU_TABLE.get(k, (0, 0))[0] for k in _MELD_KINDS)]  # 胡 by kind id (吃 / 比: by shape)
_HU_SMALL = [0, *(HU_TABLE.get(k, (0, 0))[1] for k in _MELD_KINDS)]
assert max(_HU_BIG + _HU_SMALL) < 16  # a meld's 胡 fits the 4 bits _meld_code gives it
_MELDS: dict[int, Group] = {}  # meld key (see _meld_code) -> its table group


def _not_int(o: object) -> TypeError:
    return TypeError(f"a 桂林 card count or kind is an int, not {o!r}")


def _bad_hand(hand) -> ValueError:
    return ValueError(f"a 桂林 hand is a count vector of 20 kinds, 0..4 cards each, not {list(hand)}")


def _bad_meld_card(c, kind) -> ValueError:
    return ValueError(f"meld card {c!r} of {kind}: a kind is 0..19")


def _bad_win_card(win_card) -> ValueError:
    return ValueError(f"winning card {win_card}: a kind is 0..19")


def _refused(hand, melds, win_card) -> ValueError:
    """The ``ValueError`` :func:`_score` gives when a count, a meld card or the winning card is an
    int too big for C (compiled, the conversion overflows; as Python, the range checks see it):
    the same message, found in the same order, on both kernels."""
    if any(c < 0 or c > 4 for c in hand):
        return _bad_hand(hand)
    for kind, cards in melds:
        for c in cards:
            if c < 0 or c > 19:
                return _bad_meld_card(c, kind)
    return _bad_win_card(win_card)


@cython.cfunc
@cython.locals(ids=dict, kid=cython.int, n=cython.Py_ssize_t, key=cython.longlong, j=cython.int, c=cython.int,
               a=cython.int, b=cython.int, d=cython.int, pts=cython.int, shape=cython.int)
@cython.returns(cython.longlong)
@cython.exceptval(-1)
def _meld_code(kind, cards):
    """A meld laid on the table read at once: its key (kind id, then each card + 1 in 5 bits; 0
    when it has none: an unknown kind, more than 8 cards) from bit 5, bit 4 set for a 4-card set, its
    胡 in bits 0..3 (:func:`meld_points`).

    :raises ValueError: a 吃 / 比 that is not a shape, a card outside 0..19. :raises KeyError: an
        unknown kind. :raises TypeError: a card that is not an int.
    """
    ids = _KIND_ID  # typed: dict.get as a C call
    kid = ids.get(kind, 0)
    n = len(cards)
    if not kid or not n:
        return meld_points(kind, cards)  # raises: an unknown kind, no cards
    key = kid if n <= 8 else 0
    a = b = d = 0
    j = 0
    for o in cards:
        if not isinstance(o, int):
            raise _not_int(o)
        c = o  # compiled, an int beyond C's raises OverflowError: best_split / best_points say why
        if c < 0 or c > 19:
            raise _bad_meld_card(o, kind)
        if j == 0:
            a = c
        elif j == 1:
            b = c
        elif j == 2:
            d = c
        j += 1
        if key:
            key = (key << 5) | (c + 1)
    if kid == 4 or kid == 5:  # 吃 / 比: by shape
        shape = _shape3(a, b, d) if n == 3 else 0
        if not shape:
            chi_points(cards)  # raises: not a 吃 shape
        pts = _shape_points(shape, a >= 10)
    else:
        pts = _HU_BIG[kid] if a >= 10 else _HU_SMALL[kid]
    return (key << 5) | ((kid <= 3) << 4) | pts


@cython.cfunc
@cython.locals(code=cython.longlong, cache=dict)
def _table_group(code, kind, cards):
    """The table group of a meld whose :func:`_meld_code` is ``code`` (one shared object per
    meld with a key, up to 100,000)."""
    cache = _MELDS
    if code >> 5:
        g = cache.get(code >> 5)
        if g is not None:
            return g
    g = Group(kind, tuple(cards), code & 15, "table")
    if code >> 5 and len(cache) < 100_000:
        cache[code >> 5] = g
    return g


# -- the best split: a search over one 64-bit integer -----------------------------------------
# The count vector is packed 3 bits a kind (kind k at bits 3k..3k+2; counts 0..4, 5 with the
# winning card), so taking a group is one subtraction, and the search makes no Python object:
# compiled by Cython (the decorators' C types), it runs as C over machine integers; run as Python it
# is the same code over Python ints. The search takes the lowest kind held first and tries its
# moves in a fixed order, keeping the first of equally high splits, so the split found does not
# depend on card order and ties always go the same way. No memo: a search visits a handful of nodes
# on real hands, cheaper than building any key would be.
_NO = cython.declare(cython.ulonglong, 0xFFFF_FFFF_FFFF_FFFF)  # "no such move / branch"
_LOW = cython.declare(cython.ulonglong, sum(1 << (3 * k) for k in range(20)))  # bit 0 of every kind


def _pair(kind: str) -> tuple[int, int]:
    return HU_TABLE[kind]


# 胡 of each group kind by size (big, small), as C constants of the search (from HU_TABLE).
_YES_B = cython.declare(cython.int, _pair("yi_er_san")[0])
_YES_S = cython.declare(cython.int, _pair("yi_er_san")[1])
_SHUN_B = cython.declare(cython.int, _pair("shunzi")[0])
_SHUN_S = cython.declare(cython.int, _pair("shunzi")[1])
_EQS_B = cython.declare(cython.int, _pair("er_qi_shi")[0])
_EQS_S = cython.declare(cython.int, _pair("er_qi_shi")[1])
_DAZI_S = cython.declare(cython.int, _pair("dazi")[1])  # a 搭's lowest card is small
_DUI_B = cython.declare(cython.int, _pair("dui")[0])
_DUI_S = cython.declare(cython.int, _pair("dui")[1])
_KAN_B = cython.declare(cython.int, _pair("kan")[0])
_KAN_S = cython.declare(cython.int, _pair("kan")[1])
_LONG_B = cython.declare(cython.int, _pair("long")[0])
_LONG_S = cython.declare(cython.int, _pair("long")[1])
_SAO_B = cython.declare(cython.int, _pair("sao")[0])
_SAO_S = cython.declare(cython.int, _pair("sao")[1])
_SAO_CHUAN_B = cython.declare(cython.int, _pair("sao_chuan")[0])
_SAO_CHUAN_S = cython.declare(cython.int, _pair("sao_chuan")[1])
_KAI_DUO_B = cython.declare(cython.int, _pair("kai_duo")[0])
_KAI_DUO_S = cython.declare(cython.int, _pair("kai_duo")[1])
_PENG_B = cython.declare(cython.int, _pair("peng")[0])
_PENG_S = cython.declare(cython.int, _pair("peng")[1])
_ZERO_B = cython.declare(cython.int, _pair("zero_triple")[0])
_ZERO_S = cython.declare(cython.int, _pair("zero_triple")[1])


@cython.cfunc
@cython.locals(code=cython.int, big=cython.bint)
@cython.returns(cython.int)
@cython.exceptval(check=False)
def _shape_points(code, big):
    """胡 of a shape code of :data:`_SHAPE_NAMES` whose lowest card is big (``big``) or small."""
    if code == 1:
        return _YES_B if big else _YES_S
    if code == 2:
        return _SHUN_B if big else _SHUN_S
    if code == 3:
        return _EQS_B if big else _EQS_S
    if code == 4:
        return _DAZI_S
    if code == 5:
        return _DUI_B if big else _DUI_S
    return 0


@cython.cfunc
@cython.inline
@cython.locals(x=cython.ulonglong, i=cython.int, m=cython.int, pairs=cython.int, triple=cython.int,
               s=cython.int, one=cython.ulonglong)
@cython.returns(cython.ulonglong)
@cython.exceptval(check=False)
def _take(x, i, m, pairs, triple):
    """``x`` less move ``m`` on its lowest kind ``i``, or :data:`_NO` where it does not fit.

    The moves, in the order the search tries them: 0 a run ``i, i+1, i+2`` of one size, 1 二七十
    ``i, i+5, i+8``, 2 搭 ``i, i, i+10`` (the small card is the lowest), 3 搭 ``i, i+10, i+10``,
    4 the three of the winning card's kind ``triple`` (碰 of the hand's pair), 5 a pair (when
    ``pairs`` allows one). Source: 001 §顺子, §特殊顺子, §搭子; pairs: 004 §2.规牌 7.
    """
    s = 3 * i
    one = 1
    one <<= s
    if m == 0:
        if i % 10 <= 7 and (x >> (s + 3)) & 7 and (x >> (s + 6)) & 7:
            return x - one - (one << 3) - (one << 6)
    elif m == 1:
        if (i == 1 or i == 11) and (x >> (s + 15)) & 7 and (x >> (s + 24)) & 7:
            return x - one - (one << 15) - (one << 24)
    elif m == 2:
        if i < 10 and ((x >> s) & 7) >= 2 and (x >> (s + 30)) & 7:
            return x - (one << 1) - (one << 30)
    elif m == 3:
        if i < 10 and ((x >> (s + 30)) & 7) >= 2:
            return x - one - (one << 31)
    elif m == 4:
        if i == triple and ((x >> s) & 7) >= 3:
            return x - (one << 1) - one
    elif pairs and ((x >> s) & 7) >= 2:
        return x - (one << 1)
    return _NO


@cython.cfunc
@cython.inline
@cython.locals(i=cython.int, m=cython.int, tpts=cython.int)
@cython.returns(cython.int)
@cython.exceptval(check=False)
def _move_points(i, m, tpts):
    """胡 of move ``m`` of :func:`_take` on kind ``i`` (``tpts``: the winning triple's)."""
    if m == 0:
        return _shape_points(1 if i % 10 == 0 else 2, i >= 10)
    if m == 1:
        return _shape_points(3, i >= 10)
    if m == 4:
        return tpts
    return _shape_points(4 if m < 4 else 5, i >= 10)


_AT = cython.declare(cython.int, 56)  # an answer of _search: its 胡 from bit 56, its moves below
_MOVES = cython.declare(cython.longlong, (1 << 56) - 1)


@cython.cfunc
@cython.locals(x=cython.ulonglong, i=cython.int, pairs=cython.int, triple=cython.int, tpts=cython.int,
               best=cython.longlong)
@cython.returns(cython.longlong)
@cython.exceptval(check=False)
def _search(x, i, pairs, triple, tpts):
    """The best split of the packed counts ``x`` into groups (none below kind ``i``), with up to
    ``pairs`` pairs and the winning triple of kind ``triple`` (-1: none) worth ``tpts``: its 胡
    shifted to bit 56, OR the moves of :func:`_take` that make it, 3 bits a group, the first
    lowest (18 groups at most: the caller's card limit); -1 when there is no split."""
    if not x:
        return 0
    while not (x >> (3 * i)) & 7:
        i += 1
    # the moves in their order, each with a constant move number (the C compiler folds _take's
    # switch and _move_points away, which a loop over m would keep)
    best = _better(-1, x, i, 0, pairs, triple, tpts)
    best = _better(best, x, i, 1, pairs, triple, tpts)
    best = _better(best, x, i, 2, pairs, triple, tpts)
    best = _better(best, x, i, 3, pairs, triple, tpts)
    best = _better(best, x, i, 4, pairs, triple, tpts)
    return _better(best, x, i, 5, pairs, triple, tpts)


@cython.cfunc
@cython.inline
@cython.locals(best=cython.longlong, x=cython.ulonglong, i=cython.int, m=cython.int, pairs=cython.int,
               triple=cython.int, tpts=cython.int, y=cython.ulonglong, sub=cython.longlong, v=cython.longlong)
@cython.returns(cython.longlong)
@cython.exceptval(check=False)
def _better(best, x, i, m, pairs, triple, tpts):
    """``best``, or the answer through move ``m`` where that one is higher (:func:`_search`: the
    first of equal 胡 stays)."""
    y = _take(x, i, m, pairs, triple)
    if y == _NO:
        return best
    sub = _search(y, i, pairs - (m == 5), triple, tpts)
    if sub < 0:
        return best
    v = _move_points(i, m, tpts)
    v = (((sub >> _AT) + v) << _AT) | ((sub & _MOVES) << 3) | m
    if best < 0 or (v >> _AT) > (best >> _AT):
        return v
    return best


@cython.cfunc
@cython.locals(x=cython.ulonglong, moves=cython.longlong, pairs=cython.int, triple=cython.int, i=cython.int,
               m=cython.int, groups=list, triple_at=list, at=list)
def _append_groups(groups, x, moves, pairs, triple, triple_at):
    """Append to ``groups`` the concealed groups of ``moves`` (from :func:`_search` on ``x``); the
    winning triple's group of kind ``i`` is ``triple_at[i]``."""
    at = _MOVE_GROUP
    i = 0
    while x:
        while not (x >> (3 * i)) & 7:
            i += 1
        m = moves & 7
        groups.append(triple_at[i] if m == 4 else at[20 * m + i])
        x = _take(x, i, m, pairs, triple)
        pairs -= m == 5
        moves >>= 3


def _bits(kinds) -> int:
    """The mask with bit ``k`` set for each kind ``k`` of ``kinds`` (repeats count once)."""
    return sum(1 << k for k in set(kinds))


def _spread(mask: int) -> int:
    """A mask of kinds (bit ``k``) as bits of the packed counts (bit ``3k``)."""
    return sum(1 << (3 * k) for k in range(20) if mask >> k & 1)


# Masks of _cover (C constants), with a bit a kind (1) and as bits of the packed counts (3).
_RUN1 = cython.declare(cython.ulonglong, _bits(k for k in range(20) if k % 10 <= 7))
_EQS_SMALL1 = cython.declare(cython.ulonglong, _bits((1, 6, 9)))
_EQS_BIG1 = cython.declare(cython.ulonglong, _bits((11, 16, 19)))
_SMALL1 = cython.declare(cython.ulonglong, _bits(range(10)))
_RUN3 = cython.declare(cython.ulonglong, _spread(_RUN1))
_EQS_SMALL3 = cython.declare(cython.ulonglong, _spread(_EQS_SMALL1))
_EQS_BIG3 = cython.declare(cython.ulonglong, _spread(_EQS_BIG1))
_SMALL3 = cython.declare(cython.ulonglong, _spread(_SMALL1))


@cython.cfunc
@cython.locals(m1=cython.ulonglong, m2=cython.ulonglong, pairs=cython.int, u=cython.int,
               r=cython.ulonglong, d=cython.ulonglong, cov=cython.ulonglong, eqs=cython.ulonglong)
@cython.returns(cython.ulonglong)
@cython.exceptval(check=False)
def _cover(m1, m2, pairs, u=1):
    """Bits of the kinds that some run, 二七十, 搭 or pair could hold, given the bits held at
    least once (``m1``) and at least twice (``m2``); ``u``: bits a kind (1: bit ``k``, 3: bit
    ``3k`` as in the packed counts). More cards never cover less."""
    r = m1 & (m1 >> u) & (m1 >> (2 * u)) & (_RUN1 if u == 1 else _RUN3)  # run starts
    cov = r | (r << u) | (r << (2 * u))
    eqs = _EQS_SMALL1 if u == 1 else _EQS_SMALL3
    if m1 & eqs == eqs:
        cov |= eqs
    eqs = _EQS_BIG1 if u == 1 else _EQS_BIG3
    if m1 & eqs == eqs:
        cov |= eqs
    d = ((m2 & (m1 >> (10 * u))) | (m1 & (m2 >> (10 * u)))) & (_SMALL1 if u == 1 else _SMALL3)  # 搭: small n with big n
    cov |= d | (d << (10 * u))
    if pairs:
        cov |= m2
    return cov


@cython.cfunc
@cython.locals(x=cython.ulonglong, pairs=cython.int, triple=cython.int, m1=cython.ulonglong,
               m2=cython.ulonglong, cov=cython.ulonglong, one=cython.ulonglong)
@cython.returns(cython.bint)
@cython.exceptval(check=False)
def _coverable(x, pairs, triple):
    """False when some kind held in the packed counts ``x`` can be in no group at all (then
    :func:`_search` finds no split): a necessary condition, checked first because nearly every
    hand the claim windows ask about fails it."""
    m1 = (x | (x >> 1) | (x >> 2)) & _LOW  # held at least once (counts are under 8)
    m2 = ((x >> 1) | (x >> 2)) & _LOW  # at least twice
    cov = _cover(m1, m2, pairs, 3)
    if triple >= 0 and ((x >> (3 * triple)) & 7) >= 3:
        one = 1
        cov |= one << (3 * triple)
    return not m1 & ~cov




def _reach(w: int) -> int:
    """Bits whose coverage can change when kind ``w`` is added: ``w``, its run neighbours (same
    size, up to 2 away), its 二七十 partners and its 搭 partner."""
    base = w - w % 10
    near = [k for k in range(w - 2, w + 3) if base <= k < base + 10]
    eqs = [base + 1, base + 6, base + 9] if w % 10 in (1, 6, 9) else []
    return _bits([*near, *eqs, w + 10 if w < 10 else w - 10])


_REACH = [_reach(w) for w in range(20)]


@cython.locals(h=list, k=cython.Py_ssize_t, v=cython.longlong, m1=cython.ulonglong, m2=cython.ulonglong,
               one=cython.ulonglong)
def stray_kinds(h: list[int]) -> int:
    """Of the kinds of count vector ``h`` (20 kinds) that are not dealt sets (3 or 4 alike): the bits
    (kind k: bit k) of those that fit no group even where pairs are allowed — the claim windows'
    first test, before :func:`best_points`: such a kind out of the card's reach, no win. A typed
    loop: no ``bytes`` of the hand to hash for a cache."""
    m1 = 0
    m2 = 0
    one = 1
    for k in range(len(h)):
        v = h[k]
        if v == 1:
            m1 |= one << k
        elif v == 2:
            m1 |= one << k
            m2 |= one << k
    return m1 & ~_cover(m1, m2, 1)


# The concealed group of each move of _take (but the triple, whose kind is the rule option's) on
# each lowest kind i, at 20 * move + i; None where the move has none.
_MOVE_GROUP: list[Group | None] = [
    *(_group("yi_er_san" if i % 10 == 0 else "shunzi", (i, i + 1, i + 2)) if i % 10 <= 7 else None for i in range(20)),
    *(_group("er_qi_shi", (i, i + 5, i + 8)) if i in (1, 11) else None for i in range(20)),
    *(_group("dazi", (i, i, i + 10)) if i < 10 else None for i in range(20)),
    *(_group("dazi", (i, i + 10, i + 10)) if i < 10 else None for i in range(20)),
    *([None] * 20),
    *(_group("dui", (i, i)) for i in range(20)),
]
# The set groups of each kind: dealt 坎 and fours, the winning triple (碰 or 0 胡), the readings'.
_KAN_AT = [_set("kan", k, 3) for k in range(20)]
_LONG_AT = [_set("long", k, 4) for k in range(20)]
_PENG_AT = [_group("peng", (k, k, k)) for k in range(20)]
_ZERO_AT = [_group("zero_triple", (k, k, k)) for k in range(20)]
_SAO_AT = [_set("sao", k, 3) for k in range(20)]
_SAO_CHUAN_AT = [_set("sao_chuan", k, 4) for k in range(20)]
_KAI_DUO_AT = [_set("kai_duo", k, 4) for k in range(20)]


# The readings of a finished hand beside its dealt sets (001 §扫, §扫穿, §开舵):
# _PLAIN: the winning card (if any) joins the concealed cards; _FOUR: the 4th card on a dealt 坎 as
# 扫穿 (one's own flip) or 开舵; _KAN: that 坎 kept and the card used elsewhere (not on one's own
# flip: that 4th is a forced 扫穿); _SAO: a pair + one's own flip, a forced 扫.
_PLAIN = cython.declare(cython.int, 1)
_FOUR = cython.declare(cython.int, 2)
_KAN = cython.declare(cython.int, 3)
_SAO = cython.declare(cython.int, 4)


@cython.cfunc
@cython.locals(w=cython.int, n=cython.int, self_draw=cython.bint, b=cython.int)
@cython.returns(cython.int)
@cython.exceptval(check=False)
def _reading(w, n, self_draw, b):
    """The ``b``-th reading (0, 1) of a hand holding ``n`` loose cards of the winning kind ``w``
    (-1: no winning card), or 0 when it has no such reading. The 4-card set comes first, so it
    wins a tie with the kept 坎."""
    if b == 0:
        if w >= 0 and n == 3:
            return _FOUR
        if w >= 0 and n == 2 and self_draw:
            return _SAO
        return _PLAIN
    if b == 1 and w >= 0 and n == 3 and not self_draw:
        return _KAN
    return 0


@cython.cfunc
@cython.locals(x=cython.ulonglong, w=cython.int, n=cython.int, r=cython.int, one=cython.ulonglong)
@cython.returns(cython.ulonglong)
@cython.exceptval(check=False)
def _concealed(x, w, n, r):
    """The packed cards that reading ``r`` leaves to split, from the loose cards ``x`` (``n`` of
    them of kind ``w``)."""
    if w < 0:
        return x
    one = 1
    one <<= 3 * w
    if r == _PLAIN:
        return x + one
    if r == _KAN:
        return x - (one << 1)
    return x - one * n  # _FOUR, _SAO: the set takes them all


@cython.cfunc
@cython.locals(r=cython.int, w=cython.int, self_draw=cython.bint)
@cython.returns(cython.int)
@cython.exceptval(check=False)
def _reading_points(r, w, self_draw):
    """胡 of the set that reading ``r`` makes of the winning kind ``w`` (0 for ``_PLAIN``)."""
    if r == _FOUR:
        if self_draw:
            return _SAO_CHUAN_B if w >= 10 else _SAO_CHUAN_S
        return _KAI_DUO_B if w >= 10 else _KAI_DUO_S
    if r == _KAN:
        return _KAN_B if w >= 10 else _KAN_S
    if r == _SAO:
        return _SAO_B if w >= 10 else _SAO_S
    return 0


@cython.cfunc
@cython.locals(r=cython.int, w=cython.int, self_draw=cython.bint)
def _reading_group(r, w, self_draw):
    """The set that reading ``r`` makes of the winning kind ``w`` (None for ``_PLAIN``)."""
    if r == _FOUR:
        return _SAO_CHUAN_AT[w] if self_draw else _KAI_DUO_AT[w]
    if r == _KAN:
        return _KAN_AT[w]
    if r == _SAO:
        return _SAO_AT[w]
    return None


_MAX_CARDS = cython.declare(cython.int, 53)  # in hand: with the winning card, 18 groups at most (what _search's answer holds)


@cython.cfunc
@cython.locals(k=cython.int, c=cython.int, total=cython.int, u=cython.ulonglong, x0=cython.ulonglong,
               x=cython.ulonglong, w=cython.int, n=cython.int, self_draw=cython.bint, four=cython.bint,
               table_pts=cython.int, fixed_pts=cython.int, pairs=cython.int, tpts=cython.int, b=cython.int,
               r=cython.int, best_r=cython.int, best=cython.int, pts=cython.int, pr=cython.int, tri=cython.int,
               y=cython.ulonglong, ge3=cython.ulonglong, v=cython.longlong, best_v=cython.longlong,
               zero=cython.bint, code=cython.longlong, groups=list, sp=Split, kan_opens=cython.bint)
def _score(hand, melds, win_card, win_from, hu_triple, split, kan_opens):
    """:func:`best_split` (``split`` true) or :func:`best_points`: the one scorer of a 桂林 hand."""
    x0 = 0
    k = 0
    total = 0
    for o in hand:
        if not isinstance(o, int):  # compiled, a C conversion would take a float
            raise _not_int(o)
        c = o
        if c < 0 or c > 4 or k >= 20:
            raise _bad_hand(hand)
        u = c
        x0 |= u << (3 * k)
        total += c
        k += 1
    if k != 20 or total > _MAX_CARDS:
        raise ValueError(f"a 桂林 hand is a count vector of 20 kinds with at most {_MAX_CARDS} cards, "
                         f"not {list(hand)}")
    table_pts = 0
    four = False
    for kind, cards in melds:
        code = _meld_code(kind, cards)
        table_pts += code & 15
        if code & 16:
            four = True
    if win_card is not None and not isinstance(win_card, int):
        raise _not_int(win_card)
    w = -1 if win_card is None else win_card
    if w < -1 or w > 19:
        raise _bad_win_card(win_card)
    # dealt 坎 and fours stay whole (001 §技巧攻略), but those of the winning card's kind
    x = x0
    fixed_pts = 0
    ge3 = ((x0 & (x0 >> 1)) | (x0 >> 2)) & _LOW  # kinds held 3 or 4 times
    if ge3:
        for k in range(20):
            if (ge3 >> (3 * k)) & 1 and k != w:
                c = (x0 >> (3 * k)) & 7
                u = c
                x -= u << (3 * k)
                if c == 4:
                    four = True
                    fixed_pts += _LONG_B if k >= 10 else _LONG_S
                else:
                    fixed_pts += _KAN_B if k >= 10 else _KAN_S
    pairs = 1 if four else 0
    n = ((x >> (3 * w)) & 7) if w >= 0 else 0
    self_draw = win_from == "self"
    zero = hu_triple != "peng"
    tpts = 0
    if w >= 0 and n == 2:  # the hand's pair and the winning card: 碰, or 0 胡 under hu_triple = zero
        tpts = (_ZERO_B if w >= 10 else _ZERO_S) if zero else (_PENG_B if w >= 10 else _PENG_S)
    best, best_r, best_v = -1, 0, -1
    for b in range(2):
        r = _reading(w, n, self_draw, b)
        if not r:
            break
        if r == _FOUR and not self_draw and not kan_opens:
            continue  # the card does not open the dealt 坎 (option kan_kai_duo_on_discard): it stays whole
        y = _concealed(x, w, n, r)
        pr = 1 if r == _FOUR else pairs
        tri = w if r == _PLAIN and n == 2 else -1
        if not _coverable(y, pr, tri):
            continue
        v = _search(y, 0, pr, tri, tpts)
        if v < 0:
            continue
        pts = (v >> _AT) + _reading_points(r, w, self_draw)
        if pts > best:  # the first reading wins a tie
            best, best_r, best_v = pts, r, v
    if best < 0:
        return None
    if not split:
        return table_pts + fixed_pts + best
    groups = [_table_group(_meld_code(kind, cards), kind, cards) for kind, cards in melds]
    if ge3:
        for k in range(20):
            if (ge3 >> (3 * k)) & 1 and k != w:
                groups.append(_LONG_AT[k] if ((x0 >> (3 * k)) & 7) == 4 else _KAN_AT[k])
    r = best_r
    if r != _PLAIN:
        groups.append(_reading_group(r, w, self_draw))
    _append_groups(groups, _concealed(x, w, n, r), best_v & _MOVES, 1 if r == _FOUR else pairs,
                   w if r == _PLAIN and n == 2 else -1, _ZERO_AT if zero else _PENG_AT)
    sp = Split.__new__(Split)  # an extension type's own allocation, no __init__ call
    sp.groups = tuple(groups)
    sp.points = table_pts + fixed_pts + best
    return sp


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
        the 10-胡 minimum). Dealt 坎 (three in hand) and dealt fours stay whole (001 §技巧攻略).
        Of equally high splits, the first reading wins (the 4-card set before the kept 坎), and
        within a reading the first in the search's order (:func:`_take`).
    :raises ValueError: a hand that is not 20 counts of 0..4, a winning card or a meld card
        outside 0..19, a 吃 / 比 meld that is not a shape.
    :raises TypeError: a count, card or winning card that is not an int.
    """
    try:
        return _score(hand, melds, win_card, win_from, hu_triple, True, kan_opens)
    except OverflowError:
        raise _refused(hand, melds, win_card) from None


def best_points(hand: Sequence[int], melds: Sequence[tuple[str, Sequence[int]]], win_card: int | None,
                win_from: str | None, hu_triple: str = "peng", kan_opens: bool = True) -> int | None:
    """``best_split(...).points`` (None when there is no split), without building the split:
    the claim windows ask this for every seat and card, and nearly every answer is None. The
    same search as :func:`best_split` (:func:`_score`); raises as it does. (The claim windows
    first rule out most hands with a cheaper test of the hand: :func:`stray_kinds`. A second
    shortcut here cost more than it saved: bench/README.md.)"""
    try:
        return _score(hand, melds, win_card, win_from, hu_triple, False, kan_opens)
    except OverflowError:
        raise _refused(hand, melds, win_card) from None


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
