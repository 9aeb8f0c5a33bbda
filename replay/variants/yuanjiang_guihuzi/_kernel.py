"""The compiled kernel of 沅江鬼胡子 shapes: the shape test over one packed integer and the
per-hand shape answers (:class:`HandShape`), in Cython's pure-Python mode.

The rule is :mod:`replay.variants.yuanjiang_guihuzi.scoring` (:func:`~replay.variants.yuanjiang_guihuzi.scoring.can_split`,
:class:`~replay.variants.yuanjiang_guihuzi.scoring.HandShape`); tests/test_yuanjiang_guihuzi_kernel.py holds
this file to it on random hands. Compiled, the engine asks this kernel; run as Python the names at
the end are the rule's own.
"""

from __future__ import annotations

from typing import Sequence

from replay.variants.yuanjiang_guihuzi import scoring as rule

try:
    import cython
except ImportError:  # run as Python where Cython is not installed (replay/_cython.py: no-op decorators)
    from replay import _cython as cython

@cython.locals(x=cython.longlong, k=cython.int, c=cython.longlong)
def pack(counts: Sequence[int]) -> int:
    """The count vector ``counts`` (20 counts: a list, or bytes) packed 3 bits a kind, kind ``k``
    at bit ``3k``: what :func:`_split` searches, and a hand's key for :class:`HandShape`.

    :raises ValueError: not 20 counts, or a count outside 0..6 (the deck holds 4 of a kind; one
        more card must still fit in 3 bits).
    :raises TypeError: a count that is not an int (compiled, a C conversion would take a float)."""
    if len(counts) != 20:
        raise ValueError(f"a count vector has 20 kinds, not {len(counts)}")
    x = 0
    for k in range(20):
        o = counts[k]
        if not isinstance(o, int):
            raise TypeError(f"a count is an int, not {o!r} (kind {k})")
        try:
            c = o
        except OverflowError:  # compiled: an int beyond C's, refused as Python refuses it
            c = -1
        if c < 0 or c > 6:
            raise ValueError(f"{o} cards of kind {k}: the shape test takes 0..6")
        x |= c << (3 * k)
    return x


@cython.cfunc
@cython.locals(x=cython.ulonglong, halves=cython.int, i=cython.int, s=cython.int, r=cython.int, c=cython.int,
               one=cython.ulonglong)
@cython.returns(cython.bint)
@cython.exceptval(check=False)
def _split(x, halves):
    """Whether the packed counts ``x`` (:func:`pack`) split into sentences and 坎 (3 cards) plus
    exactly ``halves`` 门子 (a pair, or two of a sentence): lowest kind first, the first split found.

    The moves on the lowest kind ``i`` (``r`` = ``i`` mod 10, sizes never mix): 坎 ``i i i``, the
    run ``i i+1 i+2`` (``r`` ≤ 7), 二七十 ``i i+5 i+8`` (``r`` = 1); then a 门子: the pair, ``i i+1``
    (``r`` ≤ 8), ``i i+2`` (``r`` ≤ 7), ``i i+5`` and ``i i+8`` (``r`` = 1), ``i i+3`` (``r`` = 6) —
    :data:`rule.SENT_FROM` and :data:`rule.MENZI_UP`. No memo: a search visits a few nodes."""
    if not x:
        return halves == 0
    i = 0
    while not (x >> (3 * i)) & 7:
        i += 1
    s = 3 * i
    one = 1
    one <<= s
    c = (x >> s) & 7
    r = i % 10
    if c >= 3 and _split(x - 3 * one, halves):
        return True
    if r <= 7 and (x >> (s + 3)) & 7 and (x >> (s + 6)) & 7 and _split(x - one - (one << 3) - (one << 6), halves):
        return True
    if r == 1 and (x >> (s + 15)) & 7 and (x >> (s + 24)) & 7 and _split(x - one - (one << 15) - (one << 24), halves):
        return True
    if not halves:
        return False
    if c >= 2 and _split(x - 2 * one, halves - 1):
        return True
    if r <= 8 and (x >> (s + 3)) & 7 and _split(x - one - (one << 3), halves - 1):
        return True
    if r <= 7 and (x >> (s + 6)) & 7 and _split(x - one - (one << 6), halves - 1):
        return True
    if r == 1:
        if (x >> (s + 15)) & 7 and _split(x - one - (one << 15), halves - 1):
            return True
        if (x >> (s + 24)) & 7 and _split(x - one - (one << 24), halves - 1):
            return True
    if r == 6 and (x >> (s + 9)) & 7 and _split(x - one - (one << 9), halves - 1):
        return True
    return False


@cython.locals(halves=cython.int)
def _can_split(counts: bytes, halves: int) -> bool:
    """Whether ``counts`` (20 bytes) split into 3-card groups plus ``halves`` 门子 —
    ``bool(_splits(...))`` without the features: a group's kind (坎/歪/碰, 顺子/二七十) never changes
    whether a split exists, so the winning card and its mode do not enter. :raises ValueError:
    see :func:`pack`; ``halves`` negative."""
    if halves < 0:
        raise ValueError("halves is at least 0")
    return _split(pack(counts), halves)


_SMALL = cython.declare(cython.ulonglong, (1 << 30) - 1)  # the packed counts of 小 (kinds 0..9)
_NOT_ASKED = cython.declare(cython.int, -2)


@cython.cclass
class HandShape:
    """:func:`shape_ok` of one concealed hand plus each card, for the 听 check (20 cards) and the 胡
    options of every claim window while the hand stays the same (speed only: same answers).

    No group or 门子 mixes 小 and 大, so a hand splits exactly when each size does, and the size whose
    count is 2 (mod 3) takes the 门子 (a size of count 1 (mod 3) never splits). So per size of the
    card, once per hand: how many 门子 that size takes, if the other size splits at all; then each
    card needs one search of its own size. Every answer is kept (bits of ``_asked`` / ``_yes``).
    """

    n = cython.declare(cython.int, visibility="readonly")  # cards in the hand
    pairs = cython.declare(cython.int, visibility="readonly")  # its pairs, when 19 cards (十对 / 九对半)
    _x = cython.declare(cython.ulonglong)  # the hand, packed (:func:`pack`)
    _need0 = cython.declare(cython.int)  # per size (小, 大): 门子 it takes, -1: no split, -2: not asked
    _need1 = cython.declare(cython.int)
    _asked = cython.declare(cython.ulonglong)  # bit w: the split of the hand plus card w is known
    _yes = cython.declare(cython.ulonglong)  # bit w: and it exists

    def __init__(self, hand: Sequence[int]) -> None:
        """:param hand: the count vector (20 counts, a list or bytes; :func:`pack`)."""
        self._set(pack(hand))

    def __reduce__(self):
        # the hand alone, answers asked anew: one pickle for both kernels (Cython's own names the
        # compiled layout, which the pure-Python class cannot read, nor the other way round)
        return packed_shape_of, (self._x,)

    @cython.cfunc
    @cython.locals(x=cython.ulonglong, k=cython.int, c=cython.int, n=cython.int, pairs=cython.int)
    def _set(self, x):
        n = pairs = 0
        for k in range(20):
            c = (x >> (3 * k)) & 7
            n += c
            pairs += c >> 1
        self._x, self.n, self.pairs = x, n, pairs if n == 19 else 0
        self._need0 = self._need1 = _NOT_ASKED
        self._asked = self._yes = 0

    def wins(self, w: int, no_melds: bool) -> bool:
        """``shape_ok(hand, melds, w)``; ``no_melds``: the seat has no meld (十对 / 九对半 need none).
        :raises IndexError: ``w`` is no kind (0..19)."""
        return self._wins(w, no_melds)

    @cython.cfunc
    @cython.locals(w=cython.int, no_melds=cython.bint, bit=cython.ulonglong, halves=cython.int, r=cython.bint,
                   x=cython.ulonglong, one=cython.ulonglong)
    @cython.returns(cython.bint)
    @cython.exceptval(-1)
    def _wins(self, w, no_melds):
        if not 0 <= w < 20:
            raise IndexError(f"kind {w} is not one of 0..19")
        if no_melds and self.n == 19 and self.pairs + ((self._x >> (3 * w)) & 1) >= 9:
            return True
        bit = 1
        bit <<= w
        if self._asked & bit:
            return (self._yes & bit) != 0
        halves = self._halves(0 if w < 10 else 1)
        if halves < 0:
            r = False
        else:
            x = self._x & _SMALL if w < 10 else self._x & ~_SMALL
            one = 1
            r = _split(x + (one << (3 * w)), halves)
        self._asked |= bit
        if r:
            self._yes |= bit
        return r

    @cython.locals(k=cython.int, z=cython.int, nm=cython.bint)
    def waits(self, no_melds: bool, held: Sequence[int]) -> bool:
        """Whether some card not all four ``held`` (hand and melds) completes the shape (听)."""
        nm = no_melds
        if nm and self.n == 19 and self.pairs >= 8:  # 十对 / 九对半 may be near: ask each card
            for k in range(20):
                if held[k] < 4 and self._wins(k, nm):
                    return True
            return False
        for z in range(2):
            if self._halves(z) >= 0:
                for k in range(10 * z, 10 * z + 10):
                    if held[k] < 4 and self._wins(k, nm):
                        return True
        return False

    @cython.cfunc
    @cython.locals(z=cython.int, h=cython.int)
    @cython.returns(cython.int)
    @cython.exceptval(check=False)
    def _halves(self, z):
        """:meth:`_need` of size ``z``, kept."""
        h = self._need0 if z == 0 else self._need1
        if h == _NOT_ASKED:
            h = self._need(z)
            if z == 0:
                self._need0 = h
            else:
                self._need1 = h
        return h

    @cython.cfunc
    @cython.locals(z=cython.int, lo=cython.ulonglong, hi=cython.ulonglong, t=cython.int, o=cython.int,
                   halves=cython.int, lo_n=cython.int)
    @cython.returns(cython.int)
    @cython.exceptval(check=False)
    def _need(self, z):
        """门子 that size ``z`` (0 小, 1 大) takes with a card added, or -1 when the hand cannot split."""
        if self.n % 3 != 1:  # hand + card must be 2 (mod 3): groups and one 门子
            return -1
        lo_n = _small_count(self._x)
        if z == 0:
            t, o = lo_n + 1, self.n - lo_n
        else:
            t, o = self.n - lo_n + 1, lo_n
        if t % 3 == 1:
            return -1
        halves = 1 if o % 3 else 0  # the other size takes the 门子 when its count is 2 (mod 3)
        if o and not _split(self._x & ~_SMALL if z == 0 else self._x & _SMALL, halves):
            return -1
        return 1 - halves


@cython.cfunc
@cython.locals(x=cython.ulonglong, n=cython.int, k=cython.int)
@cython.returns(cython.int)
@cython.exceptval(check=False)
def _small_count(x):
    """Cards of 小 (kinds 0..9) in the packed counts ``x``."""
    n = 0
    for k in range(10):
        n += (x >> (3 * k)) & 7
    return n




@cython.locals(hs=HandShape)
def packed_shape_of(x: int) -> HandShape:
    """The :class:`HandShape` of the hand packed as ``x`` (:func:`pack`; the key the state keeps
    its shapes by).

    :raises ValueError: ``x`` is not such an int (compiled, a C conversion would take a float or
        overflow)."""
    _check_packed(x)
    hs = HandShape.__new__(HandShape)
    hs._set(x)
    return hs


def _check_packed(x: object) -> None:
    if not isinstance(x, int) or x < 0 or x >> 60:
        raise ValueError(f"{x!r} is not a hand packed by pack() (an int of 0..2**60-1)")


def _rule_shape_of(x: int) -> rule.HandShape:
    """The rule's :class:`~replay.variants.yuanjiang_guihuzi.scoring.HandShape` of a hand packed as ``x``."""
    _check_packed(x)
    return rule.HandShape([(x >> (3 * k)) & 7 for k in range(20)])


# What the engine calls: the packed shapes where they are compiled, else the rule's.
if cython.compiled:
    shape_of = packed_shape_of
else:
    shape_of = _rule_shape_of
