"""The compiled kernel of 桂林 scoring: :func:`best_split`, :func:`best_points` and :func:`stray_kinds`
by a search over one packed integer, in Cython's pure-Python mode.

The rule is :mod:`replay.variants.guilin.scoring` (the seed's words over count vectors); this file
answers the same questions faster and is held equal to it on random hands by
tests/test_guilin_kernel.py. Compiled, the engine asks this kernel; run as Python
(``PAIPU_KERNEL=python``, or no compiler) the names below are the rule's own functions.
"""

from __future__ import annotations

from typing import Any, Sequence

from replay.variants.guilin import scoring as rule
from replay.variants.guilin.scoring import (
    FOUR_KINDS,
    HU_TABLE,
    SHAPES_WITH,
    Group,
    bad_hand,
    bad_meld_card,
    bad_win_card,
    chi_points,
    group_points,
    meld_points,
    not_int,
)

try:
    import cython
except ImportError:  # run as Python where Cython is not installed (replay/_cython.py: no-op decorators)
    from replay import _cython as cython

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


@cython.no_gc
@cython.freelist(16)
@cython.cclass
class Split:
    """The rule's :class:`~replay.variants.guilin.scoring.Split` as an extension type, cheaper to make
    (bench/README.md): read-only, equal, hashed and shown alike. Not tracked by the cyclic garbage
    collector (``no_gc``: it holds a tuple of frozen groups, which cannot lead back to it), so the
    splits a caller keeps do not bring on full collections."""

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


# Meld kinds by a small id: the 4-card sets first (ids 1..3), then 吃 and 比 (4, 5), then the rest.
_MELD_KINDS = ("sao_chuan", "kai_duo", "long", "chi", "bi",
               *(k for k in HU_TABLE if k not in FOUR_KINDS and k not in ("chi", "bi")))
_KIND_ID = {k: i + 1 for i, k in enumerate(_MELD_KINDS)}
_HU_BIG = [0, *(HU_TABLE.get(k, (0, 0))[0] for k in _MELD_KINDS)]  # 胡 by kind id (吃 / 比: by shape)
_HU_SMALL = [0, *(HU_TABLE.get(k, (0, 0))[1] for k in _MELD_KINDS)]
assert max(_HU_BIG + _HU_SMALL) < 16  # a meld's 胡 fits the 4 bits _meld_code gives it
_MELDS: dict[int, Group] = {}  # meld key (see _meld_code) -> its table group


def _refused(hand, melds, win_card) -> ValueError:
    """The ``ValueError`` :func:`_score` gives when a count, a meld card or the winning card is an
    int too big for C (compiled, the conversion overflows; as Python, the range checks see it):
    the same message, found in the same order, on both kernels."""
    if any(c < 0 or c > 4 for c in hand):
        return bad_hand(hand)
    for kind, cards in melds:
        for c in cards:
            if c < 0 or c > 19:
                return bad_meld_card(c, kind)
    return bad_win_card(win_card)


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
            raise not_int(o)
        c = o  # compiled, an int beyond C's raises OverflowError: best_split / best_points say why
        if c < 0 or c > 19:
            raise bad_meld_card(o, kind)
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


_MAX_CARDS = cython.declare(cython.int, rule.MAX_CARDS)


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
            raise not_int(o)
        c = o
        if c < 0 or c > 4 or k >= 20:
            raise bad_hand(hand)
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
        raise not_int(win_card)
    w = -1 if win_card is None else win_card
    if win_card is not None and (w < 0 or w > 19):
        raise bad_win_card(win_card)
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


def packed_best_split(hand: Sequence[int], melds: Sequence[tuple[str, Sequence[int]]], win_card: int | None,
                      win_from: str | None, hu_triple: str = "peng", kan_opens: bool = True) -> Any:
    """:func:`replay.variants.guilin.scoring.best_split` by the packed search: the same split (its
    groups shared objects, in a compiled :class:`Split`), the same errors."""
    try:
        return _score(hand, melds, win_card, win_from, hu_triple, True, kan_opens)
    except OverflowError:
        raise _refused(hand, melds, win_card) from None


def packed_best_points(hand: Sequence[int], melds: Sequence[tuple[str, Sequence[int]]], win_card: int | None,
                       win_from: str | None, hu_triple: str = "peng", kan_opens: bool = True) -> int | None:
    """:func:`replay.variants.guilin.scoring.best_points` by the packed search, without building
    the split: the claim windows ask it for every seat and card, and nearly every answer is None."""
    try:
        return _score(hand, melds, win_card, win_from, hu_triple, False, kan_opens)
    except OverflowError:
        raise _refused(hand, melds, win_card) from None

# -- 吃 and 下比: the rule's chi_choices over packed free counts -----------------------------------
OWN_WITH: dict[int, tuple[tuple[int, ...], ...]] = {
    c: tuple(tuple(sorted(k for i, k in enumerate(s) if i != s.index(c))) for s in SHAPES_WITH[c]) for c in range(20)}
"""The own cards of each shape of ``SHAPES_WITH[c]``, in that order."""
_GUARD = sum(4 << (3 * k) for k in range(20))
"""Free counts packed 3 bits a kind in one integer, each biased by 4: a kind is short (a count
below 0) once its bit 4 is gone (a step takes at most 2 of a kind, so no borrow crosses kinds)."""
_SHAPE_SUB = [[(1 << 3 * x) + (1 << 3 * y) + (1 << 3 * z) for x, y, z in SHAPES_WITH[c]] for c in range(20)]
"""Per card, what each shape of SHAPES_WITH[c] takes from the packed counts, in that order."""


@cython.cfunc
@cython.locals(h=list, k=cython.Py_ssize_t, x=cython.longlong, v=cython.ulonglong)
@cython.returns(cython.ulonglong)
@cython.exceptval(check=True)
def _pack_free(h):
    """The free counts of count vector ``h`` packed as :func:`_chi_choices` packs them (a dealt
    坎/four read as 0), in one typed loop over the hand: no ``bytes`` of it. A count is
    0..4 (the deck's copies); at most 2 is packed, so no field overflows its 3 bits."""
    v = _GUARD
    for k in range(len(h)):
        x = h[k]
        if 0 < x < 3:
            v += x << (3 * k)
    return v


@cython.cfunc
@cython.locals(v=cython.ulonglong, k=cython.int, t=cython.longlong)
@cython.returns(cython.longlong)
def _packed_total(v):
    """``sum(free)`` of packed free counts ``v`` (20 kinds)."""
    t = 0
    for k in range(20):
        t += ((v >> (3 * k)) & 7) - 4
    return t


@cython.cfunc
@cython.locals(c=cython.int, v=cython.ulonglong, total=cython.longlong, blocks=cython.bint, first=cython.bint, out=list, subs=list,
               shapes=tuple, own=tuple, n=cython.Py_ssize_t, i=cython.Py_ssize_t, j=cython.Py_ssize_t, sh=cython.int,
               a=cython.int, b=cython.int, vo=cython.ulonglong, vi=cython.ulonglong, vj=cython.ulonglong,
               guard=cython.ulonglong, found=cython.bint, paired=cython.bint, one=cython.ulonglong, t=cython.ulonglong)
@cython.returns(list)
def _chi_search(c, v, total, blocks, first):
    """:func:`_chi_choices` on the packed counts ``v`` (``first``: stop at the first choice, for
    :meth:`GuilinState.has_chi`). A free count is at most 2, so after the own pair at most 2
    copies of ``c`` are left and each 比 group takes at least one: at most two groups. Emitted in
    sorted order (own pairs as OWN_WITH[c], groups as SHAPES_WITH[c], a set of groups once, as its
    sorted tuple), so the answer needs no sort."""
    out = []
    subs = _SHAPE_SUB[c]
    shapes = SHAPES_WITH[c]
    n = len(shapes)
    sh = 3 * c
    guard = _GUARD
    one = 1
    for own in OWN_WITH[c]:
        a = own[0]
        b = own[1]
        vo = v - (one << (3 * a)) - (one << (3 * b))
        if (vo & guard) != guard:
            continue  # the own pair is not held
        if ((vo >> sh) & 7) == 4:  # no copy of c left: no 比 owed
            if total != 2:  # a card is left to discard
                out.append((own, ()))
                if first:
                    return out
            continue
        found = False
        for i in range(n):
            t = subs[i]
            vi = vo - t
            if (vi & guard) != guard:
                continue
            found = True
            if ((vi >> sh) & 7) == 4:  # every copy shown
                if total != 5:
                    out.append((own, (shapes[i],)))
                    if first:
                        return out
                continue
            paired = False
            for j in range(n):
                t = subs[j]
                vj = vi - t
                if (vj & guard) == guard:
                    paired = True
                    if j >= i and total != 8:
                        out.append((own, (shapes[i], shapes[j])))
                        if first:
                            return out
            if not paired and not blocks and total != 5:  # the last copy forms no shape
                out.append((own, (shapes[i],)))
                if first:
                    return out
        if not found and not blocks and total != 2:  # no copy forms a shape: no 比 owed for them
            out.append((own, ()))
            if first:
                return out
    return out




def packed_chi_choices(c: int, hand: list[int], blocks: bool) -> list:
    """:func:`replay.variants.guilin.scoring.chi_choices` by the packed search (no memo: packing the hand
    costs less than a memo key would)."""
    v = _pack_free(hand)
    return _chi_search(c, v, _packed_total(v), blocks, False)


def packed_has_chi(c: int, hand: list[int], blocks: bool) -> bool:
    """Whether :func:`packed_chi_choices` has a choice: the same search, stopped at its first."""
    v = _pack_free(hand)
    return bool(_chi_search(c, v, _packed_total(v), blocks, True))


def _rule_has_chi(c: int, hand: list[int], blocks: bool) -> bool:
    return bool(rule.chi_choices(c, hand, blocks))


# What the engine calls: the packed searches where they are compiled, else the rule itself.
if cython.compiled:
    best_split, best_points = packed_best_split, packed_best_points
    chi_choices, has_chi = packed_chi_choices, packed_has_chi
else:
    best_split, best_points = rule.best_split, rule.best_points
    chi_choices, has_chi = rule.chi_choices, _rule_has_chi
