"""通城個子牌 hand scoring: 個子 per card and per group, 句, the 六句半 split, special hands, 分.

Cards are kind indices of :data:`replay.cards.HUAPAI` (27 kinds: each of 乙三五七九 has a plain and
a 花 kind). Grouping works on the 22 characters (花三 and 三 are one character: 相同的字), so a
hand is reduced to a 22-count vector; a card's own 個子 never depends on the split because every
card of a winning hand is in some group. Count vectors make every score order-free.

Sources (000 = 000_b93a380aaaa9b6e3.txt):
- 個子 per card: 000 §計胡規則 (花一花九每張一個, 素一素九 0, 花三花七 2, 素三素七 1, 花五 4, 素五 2).
- per group: 000 §計胡規則 (紅字 坎 2, 招與觀生 4, 滑 8; 黑字 坎 1, 招與觀生 2, 滑 3; 紅字句 1, 黑字句 0;
  個子牌 in a group: 按普通紅黑牌算個子數再加上個子牌自身的個子數).
- 句: 000 §牌型組合 (上大人 孔乙己 可知禮 化三千 七十士 八九子, 三個連續的數字, 乙 as 一).
- 六句半, minimum 7 (4 players) / 9 (3 players): 000 §胡牌規則.
- special hands 一手黑 ×3, 一手紅 ×10, 十對 ×2 need no 個子: 000 §胡牌規則, §計分規則.
- 分 = ⌊個子 / 7⌋ (夾倍): 000 §計分規則.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

from replay.cards import HUAPAI, HUAPAI_CHARS, HUAPAI_RED
from replay.split import components, split_test

N_KINDS = len(HUAPAI.codes)  # 27
N_CHARS = len(HUAPAI_CHARS)  # 22
CHAR_OF: tuple[int, ...] = tuple(HUAPAI_CHARS.index(c[-1]) for c in HUAPAI.codes)
KINDS_OF: tuple[tuple[int, ...], ...] = tuple(tuple(k for k in range(N_KINDS) if CHAR_OF[k] == ch) for ch in range(N_CHARS))
FLOWER: tuple[bool, ...] = tuple(c.startswith("花") for c in HUAPAI.codes)
RED_CHAR: tuple[bool, ...] = tuple(ch in HUAPAI_RED for ch in HUAPAI_CHARS)

# 個子 of each card (000 §計胡規則).
_CARD_GEZI = {"花乙": 1, "花九": 1, "花三": 2, "花七": 2, "三": 1, "七": 1, "花五": 4, "五": 2}
CARD_GEZI: tuple[int, ...] = tuple(_CARD_GEZI.get(c, 0) for c in HUAPAI.codes)

# 個子 a group adds to its cards' own, (red, black) (000 §計胡規則). 碰 is a 坎 laid on the table
# (docs/rules/tongcheng_gezi.md decision 3).
GROUP_BONUS: dict[str, tuple[int, int]] = {
    "kan": (2, 1), "peng": (2, 1), "zhao": (4, 2), "guan_sheng": (4, 2), "hua": (8, 3),
    "ju": (1, 0), "ban_ju": (0, 0), "dui": (0, 0),
}
MELD_SIZE = {"peng": 3, "zhao": 4, "guan_sheng": 4, "hua": 5, "kan": 3}
MIN_GEZI = {4: 7, 3: 9}  # 000 §胡牌規則: 四人打需要7個個子。3個人打需要9個個子數
GEZI_PER_FEN = 7  # 000 §計分規則: 7個個子數起為1分，7的N倍數為N倍
SPECIAL_BEI = {"yishou_hei": 3, "yishou_hong": 10, "shidui": 2}  # 000 §計分規則


def _c(s: str) -> int:
    return HUAPAI_CHARS.index(s)


# The 句 (000 §牌型組合): six phrases and every run of three numbers, 乙 as 一.
_PHRASES = ("上大人", "孔乙己", "可知禮", "化三千", "七十士", "八九子")
_NUMBERS = "乙二三四五六七八九十"
JU: tuple[tuple[int, int, int], ...] = tuple(
    tuple(sorted(_c(x) for x in p)) for p in (*_PHRASES, *(_NUMBERS[i:i + 3] for i in range(8)))  # type: ignore[misc]
)
JU_RED: frozenset[tuple[int, ...]] = frozenset(j for j in JU if all(RED_CHAR[c] for c in j))  # 上大人, 可知禮
JU_FROM: tuple[tuple[tuple[int, int, int], ...], ...] = tuple(tuple(j for j in JU if j[0] == ch) for ch in range(N_CHARS))
# Two different characters of one 句 (a 半句 besides a pair), keyed by the lower one.
HALF_PARTNERS: tuple[tuple[int, ...], ...] = tuple(
    tuple(sorted({b for j in JU for a in j for b in j if a == ch and b > ch})) for ch in range(N_CHARS)
)


def card_gezi(k: int) -> int:
    """個子 of one card of kind ``k`` (000 §計胡規則): 花乙/花九 1, 素乙/素九 0, 花三/花七 2,
    素三/素七 1, 花五 4, 素五 2, every other card 0."""
    return CARD_GEZI[k]


def is_ju(chars: Sequence[int]) -> bool:
    """Whether three characters (indices into ``HUAPAI_CHARS``) form a 句."""
    return tuple(sorted(chars)) in JU


def group_bonus(kind: str, cards: Sequence[int]) -> int:
    """個子 a group of ``kind`` adds to its cards' own: 坎/碰 2 or 1, 招/觀生 4 or 2, 滑 8 or 3
    (red or black character); a 句 1 when all three are red (上大人, 可知禮), else 0; a 半句 or
    對 0. ``cards`` are kinds. :raises KeyError: unknown kind."""
    red_i, black_i = GROUP_BONUS[kind]
    if kind == "ju":
        return red_i if all(RED_CHAR[CHAR_OF[k]] for k in cards) else black_i
    return red_i if RED_CHAR[CHAR_OF[cards[0]]] else black_i


def group_gezi(kind: str, cards: Sequence[int]) -> int:
    """個子 of one group: its bonus (:func:`group_bonus`) plus each card's own (000 §計胡規則:
    按普通紅黑牌算個子數再加上個子牌自身的個子數). E.g. a 坎 of 素五 = 2 + 3×2 = 8."""
    return group_bonus(kind, cards) + sum(CARD_GEZI[k] for k in cards)


# A 花 kind comes right after its plain kind (HUAPAI order: 乙 花乙, 三 花三, ...), so the character
# vector is the kind vector with each 花 count moved onto the kind before it and the 花 kind dropped.
_FLOWER_KINDS_DESC = tuple(sorted((ks[1] for ks in KINDS_OF if len(ks) > 1), reverse=True))
assert all(ks == (ks[0],) or ks == (ks[0], ks[0] + 1) for ks in KINDS_OF)


def chars_of(counts: Sequence[int]) -> list[int]:
    """The 22-character count vector of a 27-kind count vector."""
    c = list(counts)
    for f in _FLOWER_KINDS_DESC:  # from the back: a deletion shifts only the kinds already merged
        c[f - 1] += c[f]
        del c[f]
    return c


@lru_cache(maxsize=400_000)
def _best(counts: tuple[int, ...], half: int) -> tuple[int, tuple[tuple[str, tuple[int, ...]], ...]] | None:
    """Best (bonus 個子, groups as character tuples) covering ``counts`` (22 characters) with
    3-card groups (坎, 句) and ``half`` 半句 (a pair or two of one 句), or None. Lowest character
    first, memoised on the count vector."""
    i = next((k for k, c in enumerate(counts) if c), -1)
    if i < 0:
        return (0, ()) if half == 0 else None
    cand: list[tuple[str, tuple[int, ...], int]] = []
    if counts[i] >= 3:
        cand.append(("kan", (i, i, i), GROUP_BONUS["kan"][0 if RED_CHAR[i] else 1]))
    for j in JU_FROM[i]:
        if counts[j[1]] and counts[j[2]]:
            cand.append(("ju", j, 1 if j in JU_RED else 0))
    if half:
        if counts[i] >= 2:
            cand.append(("ban_ju", (i, i), 0))
        for b in HALF_PARTNERS[i]:
            if counts[b]:
                cand.append(("ban_ju", (i, b), 0))
    best = None
    for kind, chars, bonus in cand:
        rest = list(counts)
        for c in chars:
            rest[c] -= 1
        sub = _best(tuple(rest), half - (kind == "ban_ju"))
        if sub is None:
            continue
        if best is None or bonus + sub[0] > best[0]:
            best = (bonus + sub[0], ((kind, chars), *sub[1]))
    return best


@dataclass(frozen=True)
class Group:
    """One group of a split: ``kind`` (``ju``, ``kan``, ``ban_ju``, ``dui`` or a meld act),
    ``cards`` (kinds), ``points`` (個子 with its cards), ``origin`` (``table``: a meld laid in
    play; ``hand``: a concealed group)."""

    kind: str
    cards: tuple[int, ...]
    points: int
    origin: str = "hand"

    def codes(self) -> list[str]:
        return [HUAPAI.codes[c] for c in self.cards]


@dataclass(frozen=True)
class Judgement:
    """A finished hand judged (000 §胡牌規則, §計分規則).

    :param win: whether it wins. :param reason: why not (None for a win).
    :param groups: the chosen split, melds first (empty when the shape fails).
    :param points: 個子 of the hand (= ``from_cards`` + ``from_melds``), None when the shape fails.
    :param special: ``yishou_hei`` / ``yishou_hong`` / ``shidui`` or None.
    :param fen: 分 before the special factor (⌊個子/7⌋; ≥ 1 for a special under ``max1``).
    :param bei: the special factor (1 when none). ``units`` before 自摸 = fen × bei.
    """

    win: bool
    reason: str | None
    groups: tuple[Group, ...]
    points: int | None
    from_cards: int
    from_melds: int
    special: str | None
    fen: int
    bei: int

    @property
    def units(self) -> int:
        return self.fen * self.bei


def _assign(groups: Sequence[tuple[str, tuple[int, ...]]], counts: Sequence[int]) -> tuple[Group, ...]:
    """Give the character groups real kinds: 花 copies go to the first groups needing the
    character (deterministic from the count vector; the total 個子 does not depend on it)."""
    left = list(counts)
    out = []
    for kind, chars in groups:
        kinds = []
        for ch in chars:
            k = next(k for k in reversed(KINDS_OF[ch]) if left[k])  # 花 kind is listed after the plain one
            left[k] -= 1
            kinds.append(k)
        out.append(Group(kind, tuple(kinds), group_gezi(kind, kinds)))
    return tuple(out)


def _shidui(counts: Sequence[int], four_as_two: bool) -> tuple[Group, ...] | None:
    """十對: the whole concealed hand as ten 對子 (identical characters), or None."""
    ch = chars_of(counts)
    if sum(ch) != 20 or any(n % 2 for n in ch) or (not four_as_two and any(n > 2 for n in ch)):
        return None
    return _assign([("dui", (c, c)) for c in range(N_CHARS) for _ in range(ch[c] // 2)], counts)


def judge(concealed: Sequence[int], melds: Sequence[tuple[str, Sequence[int]]], players: int,
          special_base: str = "max1", shidui_four: str = "two_pairs") -> Judgement:
    """Judge a finished hand.

    :param concealed: 27-kind count vector of the concealed hand, the winning card included.
    :param melds: ``(kind, cards)`` laid in play: ``peng`` 3, ``zhao`` 4, ``guan_sheng`` 4,
        ``hua`` 5 cards (kinds).
    :param players: 4 or 3 (minimum 7 or 9 個子).
    :param special_base: rule option (``max1``: factor × max(1, ⌊個子/7⌋); ``one``: factor).
    :param shidui_four: rule option (``two_pairs``: four of a kind is two 對子; ``no``).
    :returns: the best reading (most 分, then most 個子; on a tie the special hand): 六句半 (every
        meld a group, the concealed cards in 句 and 坎 plus one 半句, six groups in all) with at
        least the minimum 個子, or a special hand (一手黑 / 一手紅 with the 六句半 shape, 十對:
        ten 對子 and no melds) at any 個子.
    """
    table = tuple(Group(k, tuple(c), group_gezi(k, c), "table") for k, c in melds)
    held = list(concealed)
    for _, c in melds:
        for k in c:
            held[k] += 1
    from_cards = sum(CARD_GEZI[k] * n for k, n in enumerate(held))
    colours = {RED_CHAR[CHAR_OF[k]] for k, n in enumerate(held) if n}
    readings: list[tuple[tuple[int, int, int], Judgement]] = []
    minimum = MIN_GEZI[players]

    def fen_of(points: int, special: str | None) -> tuple[int, int]:
        base = points // GEZI_PER_FEN
        if special is None:
            return base, 1
        return (max(1, base) if special_base == "max1" else 1), SPECIAL_BEI[special]

    reason = None
    shape = None
    shape_groups: tuple[Group, ...] = ()
    shape_pts: int | None = None
    shape_melds = 0
    n_groups = len(table)
    cc = chars_of(concealed)
    if sum(cc) % 3 == 2:
        shape = _best(tuple(cc), 1)
    if shape is not None and n_groups + (sum(cc) - 2) // 3 != 6:
        reason = f"六句半 needs six groups and a 半句; these cards make {n_groups + (sum(cc) - 2) // 3} groups"
        shape = None
    if shape is not None:
        groups = table + _assign(shape[1], concealed)
        pts = sum(g.points for g in groups)
        from_melds = pts - from_cards
        shape_groups, shape_pts, shape_melds = groups, pts, from_melds
        for special in (None, *(s for s, ok in (("yishou_hei", colours == {False}), ("yishou_hong", colours == {True})) if ok)):
            if special is None and pts < minimum:
                reason = f"{pts} 個子 is under the {minimum}-個子 minimum for {players} players"
                continue
            fen, bei = fen_of(pts, special)
            readings.append(((fen * bei, pts, special is not None),
                             Judgement(True, None, groups, pts, from_cards, from_melds, special, fen, bei)))
    elif reason is None:
        reason = "the cards do not make 六句半 (six groups of 句 / 坎 / melds and a 半句)"
    if not melds:
        dui = _shidui(concealed, shidui_four == "two_pairs")
        if dui is not None:
            fen, bei = fen_of(from_cards, "shidui")
            readings.append(((fen * bei, from_cards, True),
                             Judgement(True, None, dui, from_cards, from_cards, 0, "shidui", fen, bei)))
    if not readings:
        return Judgement(False, reason, shape_groups, shape_pts, from_cards, shape_melds, None, 0, 0)
    return max(readings, key=lambda r: r[0])[1]


def may_win(concealed: Sequence[int], melds: Sequence[tuple[str, Sequence[int]]]) -> bool:
    """False when :func:`judge` must find no win for want of a shape: neither 六句半 (the cards
    make six groups and a 半句) nor 十對 (no melds, ten pairs of characters) can be read. True
    means only that judge must be asked (the 個子 minimum may still fail). Speed only: the claim
    windows ask every seat about every discard, and almost no hand has a shape."""
    return may_win_with(concealed, None, len(melds))


def may_win_with(concealed: Sequence[int], extra: int | None, n_melds: int) -> bool:
    """:func:`may_win` of ``concealed`` (27 kinds, left as is) with one card of kind ``extra``
    added (None: none) beside ``n_melds`` melds: the claim windows ask it of every seat's hand
    with the discard, so it rejects on a few counts before the split test."""
    c = list(concealed)
    if extra is not None:
        c[extra] += 1
    total = sum(c)
    # 十對 (20 cards, no melds) passes this count too: a hand failing it can be neither reading.
    if total % 3 != 2 or n_melds + (total - 2) // 3 != 6:
        return False
    # Cheap rejections before the split test, on kinds (these characters have no 花 kind).
    # Characters found in one 句 only (孔 and 己 only in 孔乙己, ...) are each used j times by that
    # 句 and 3 at a time by 坎, so their counts agree mod 3 unless the one 半句 takes some of
    # them: at most one such set may disagree. A component apart (上大人, 可知禮) holds 3 per group
    # and 2 with the 半句: never 1 (mod 3). A rejected hand may still be 十對.
    half = False
    for a, m, z in _SOLE_JU_KINDS:
        if (c[a] - c[m]) % 3 or (c[a] - c[z]) % 3:
            if half:
                return not n_melds and total == 20 and _all_even(c)
            half = True
    for a, m, z in _SMALL_COMPONENT_KINDS:
        if (c[a] + c[m] + c[z]) % 3 == 1:
            return not n_melds and total == 20 and _all_even(c)
    if not n_melds and total == 20 and _all_even(c):  # 十對
        return True
    return _can_split(bytes(chars_of(c)), 1)


# Whether ``_best(counts, half)`` is not None (a split into 坎/句 and ``half`` 半句 exists).
_can_split = split_test(JU_FROM, HALF_PARTNERS)


def _low_bits(kinds) -> int:
    return sum(1 << (8 * k) for k in kinds)


# The low bit of each plain kind's byte: of a character alone, and of a character with a 花 kind
# (the 花 kind's byte is the next one up).
_ODD_ALONE = _low_bits(ks[0] for ks in KINDS_OF if len(ks) == 1)
_ODD_PAIRED = _low_bits(ks[0] for ks in KINDS_OF if len(ks) > 1)


def _all_even(counts: Sequence[int]) -> bool:
    """Whether every character's count (27-kind vector) is even (十對's pairs): on the vector as
    one integer, a byte per kind; a character with a 花 kind adds its two bytes' low bits."""
    x = int.from_bytes(bytes(counts), "little")
    return not (x & _ODD_ALONE or (x ^ x >> 8) & _ODD_PAIRED)


def _char_sets() -> tuple[tuple[tuple[int, int, int], ...], tuple[tuple[int, int, int], ...]]:
    """For :func:`may_win_with`, as kinds: per 句, its characters in no other 句 when there are
    two or three (孔己 of 孔乙己, 化千, 上大人, 可知禮; a pair repeats its first), and the
    components no 句 joins to the rest (上大人, 可知禮). A 半句 lies inside one 句, so it touches
    the characters of at most one set."""
    assert all(any(a in j and b in j for j in JU) for a in range(N_CHARS) for b in HALF_PARTNERS[a])
    sole = []
    for j in JU:
        chars = [c for c in j if sum(c in o for o in JU) == 1]
        if len(chars) >= 2:
            sole.append((*chars, chars[0]) if len(chars) == 2 else tuple(chars))
    small = sorted(c for c in components(N_CHARS, JU) if len(c) < N_CHARS // 2)
    assert all(len(c) == 3 for c in small)

    def kinds(sets):
        assert all(len(KINDS_OF[ch]) == 1 for t in sets for ch in t)
        return tuple(tuple(KINDS_OF[ch][0] for ch in t) for t in sets)

    return kinds(sole), kinds(small)


_SOLE_JU_KINDS, _SMALL_COMPONENT_KINDS = _char_sets()


def hua_cards(held: Sequence[int]) -> int:
    """How many 花 cards a count vector holds."""
    return sum(n for k, n in enumerate(held) if FLOWER[k])


def score_case(case: dict, rules) -> dict:
    """Judge one spec §8 score case for tongcheng_gezi.

    ``case["melds"]`` kinds: ``peng``, ``zhao``, ``guan_sheng``, ``hua`` (laid in play) and ``kan``
    (three in hand: joins the concealed cards). ``rules["players"]`` sets the minimum (7 or 9).
    ``win_from``: ``self`` (自摸: each other seat pays) or ``discard`` (抓衝). ``win_card: null`` is
    the dealer's dealt hand (天胡). ``units`` is one losing share before stake.

    :raises ValueError: malformed case (the message says what).
    """
    hand = HUAPAI.counts(case.get("hand") or [])
    melds: list[tuple[str, list[int]]] = []
    for m in case.get("melds") or []:
        kind = m.get("kind")
        cards = [HUAPAI.index(c) for c in m.get("cards") or []]
        if kind not in MELD_SIZE:
            raise ValueError(f"meld kind {kind!r} is not a tongcheng_gezi meld (peng, zhao, guan_sheng, hua, kan)")
        if len(cards) != MELD_SIZE[kind] or len({CHAR_OF[k] for k in cards}) != 1:
            raise ValueError(f"meld {m} is not a {kind} ({MELD_SIZE[kind]} cards of one character)")
        if kind == "kan":
            for k in cards:
                hand[k] += 1
            continue
        melds.append((kind, cards))
    total = HUAPAI.held(hand, melds)
    win_from = case.get("win_from") or "discard"
    if win_from not in ("self", "discard"):
        raise ValueError("win_from is self or discard (tongcheng_gezi has no flips)")
    players, sb, sd = rules["players"], rules["special_base"], rules["shidui_four"]
    if "win_card" not in case:  # waits (spec §8), deck order, 花 and plain apart
        waits = []
        for k in range(N_KINDS):
            if total[k] >= HUAPAI.copies[k]:
                continue
            h = list(hand)
            h[k] += 1
            j = judge(h, melds, players, sb, sd)
            if j.points is not None:
                waits.append({"card": HUAPAI.codes[k], "points": j.points, "win": j.win})
        return {"waits": waits}
    wc = case["win_card"]
    h = list(hand)
    if wc is not None:
        w = HUAPAI.index(wc)
        if total[w] >= HUAPAI.copies[w]:
            raise ValueError(f"one {wc} too many: the deck holds {HUAPAI.copies[w]}")
        h[w] += 1
    j = judge(h, melds, players, sb, sd)
    out = {"win": j.win, "points": j.points, "units": None, "hand_types": [],
           "groups": [{"kind": g.kind, "cards": g.codes(), "points": g.points} for g in j.groups], "reason": j.reason}
    if not j.win:
        return out
    types = [j.special] if j.special else []
    zimo = 1
    if wc is None:
        types.append("tianhu")
    elif win_from == "self":
        types.append("zimo")
    if (wc is None or win_from == "self") and rules["zimo_pay"] == "triple":
        zimo = 3
    out.update(units=j.units * zimo, hand_types=types)
    return out
