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
- several fours, fewer 觀生: any of them may be the 觀生 (000 §操作規則 觀生: 如手上摸起有兩組四個的牌.
  玩家隻觀生一組牌.那麽玩家可以折散兩組四個牌中任意一組牌): :func:`judge` ``fours``.
- the readings the seed leaves open (碰's value, a triple or 半句 pair with the won-on discard, a
  撿 card in a 坎 / pair, 分 at 3 players) are rule options, read once into :class:`HandRules`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from typing import Any, Mapping, Sequence

from replay.cards import HUAPAI, HUAPAI_CHARS, HUAPAI_RED
from replay.groups import Group
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
PENG_LOW = (1, 0)  # option peng_gezi = low: a 碰 red 1 / black 0 (a public 湖北个子牌 server)


@dataclass(frozen=True)
class HandRules:
    """The rule options a hand's judgement reads (docs/rules/tongcheng_gezi.md, options table).

    :param players: 4 or 3 (minimum 7 or 9 個子, 000 §胡牌規則).
    :param special_base: ``max1`` / ``one`` (a special hand's 分).
    :param shidui_four: ``two_pairs`` / ``no`` (four alike in 十對).
    :param peng_gezi: ``kan`` (a 碰 is worth a 坎: red 2 / black 1) / ``low`` (red 1 / black 0).
    :param win_triple: ``kan`` / ``peng``: a concealed triple that needs the won-on discard is
        valued as a 坎 or as a 碰.
    :param win_pair: ``allowed`` / ``refused``: the won-on discard may make the 半句 pair.
    :param jian_kan: ``allowed`` / ``refused``: a 撿 card may sit in a 坎 or a pair of the split.
    :param gezi_per_fen_3p: 7 / 9: 個子 per 分 at a 3-seat table (4 seats: always 7).
    """

    players: int = 4
    special_base: str = "max1"
    shidui_four: str = "two_pairs"
    peng_gezi: str = "kan"
    win_triple: str = "kan"
    win_pair: str = "allowed"
    jian_kan: str = "allowed"
    gezi_per_fen_3p: int = 7

    @classmethod
    def of(cls, rules: Mapping[str, Any] | Any, players: int | None = None) -> HandRules:
        """From a ruleset (or any mapping of option values); ``players`` overrides its own."""
        return cls(players=rules["players"] if players is None else players,
                   **{f: rules[f] for f in cls.__dataclass_fields__ if f != "players"})

    @property
    def minimum(self) -> int:
        return MIN_GEZI[self.players]

    @property
    def per_fen(self) -> int:
        return self.gezi_per_fen_3p if self.players == 3 else GEZI_PER_FEN

    def bonus(self, kind: str) -> tuple[int, int]:
        """(red, black) 個子 a group of ``kind`` adds to its cards' own."""
        return PENG_LOW if kind == "peng" and self.peng_gezi == "low" else GROUP_BONUS[kind]


DEFAULT_RULES = HandRules()


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


def group_bonus(kind: str, cards: Sequence[int], rules: HandRules = DEFAULT_RULES) -> int:
    """個子 a group of ``kind`` adds to its cards' own: 坎/碰 2 or 1, 招/觀生 4 or 2, 滑 8 or 3
    (red or black character); a 句 1 when all three are red (上大人, 可知禮), else 0; a 半句 or
    對 0; a 碰 1 or 0 under option ``peng_gezi = low``. ``cards`` are kinds.
    :raises KeyError: unknown kind."""
    red_i, black_i = rules.bonus(kind)
    if kind == "ju":
        return red_i if all(RED_CHAR[CHAR_OF[k]] for k in cards) else black_i
    return red_i if RED_CHAR[CHAR_OF[cards[0]]] else black_i


def group_gezi(kind: str, cards: Sequence[int], rules: HandRules = DEFAULT_RULES) -> int:
    """個子 of one group: its bonus (:func:`group_bonus`) plus each card's own (000 §計胡規則:
    按普通紅黑牌算個子數再加上個子牌自身的個子數). E.g. a 坎 of 素五 = 2 + 3×2 = 8."""
    return group_bonus(kind, cards, rules) + sum(CARD_GEZI[k] for k in cards)


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


# What restricts some copies of a split, or None (then every copy is alike): ``(lock, mark,
# mark_kan, mark_pair)`` — ``lock``: per character, 撿 copies that may sit in no 坎 or pair (option
# jian_kan = refused); ``mark``: the character of the won-on discard (-1: none or used up);
# ``mark_kan``: None (a 坎 with that copy is a 坎) or the bonus of the 碰 it counts as (option
# win_triple = peng); ``mark_pair``: whether that copy may make the 半句 pair (option win_pair).
Cons = tuple[tuple[int, ...], int, "int | None", bool]


def _cons(lock: tuple[int, ...], mark: int, mark_kan: int | None, mark_pair: bool) -> Cons | None:
    """The restriction, or None when it restricts nothing (the memo then shares plain splits)."""
    if mark >= 0 and mark_kan is None and mark_pair:
        mark = -1
    return None if mark < 0 and not any(lock) else (lock, mark, mark_kan, mark_pair)


def _singles(cons: Cons | None, chars: Sequence[int]) -> Cons | None:
    """``cons`` after ``chars`` each gave one copy to a 句 or a two-character 半句: a restricted
    copy goes there first (a 撿 copy, then the won-on discard) — no group suits it better."""
    if cons is None:
        return None
    lock, mark, mark_kan, mark_pair = cons
    for c in chars:
        if lock[c]:
            lock = (*lock[:c], lock[c] - 1, *lock[c + 1:])
        elif c == mark:
            mark = -1
    return _cons(lock, mark, mark_kan, mark_pair)


@lru_cache(maxsize=400_000)
def _best(counts: tuple[int, ...], half: int, cons: Cons | None = None
          ) -> tuple[int, tuple[tuple[str, tuple[int, ...]], ...]] | None:
    """Best (bonus 個子, groups as character tuples) covering ``counts`` (22 characters) with
    3-card groups (坎, 句) and ``half`` 半句 (a pair or two of one 句), or None. Lowest character
    first, memoised on the count vector and ``cons`` (see :data:`Cons`). A 坎 or pair takes
    unrestricted copies first; one that must take the won-on discard is a ``peng`` when
    ``mark_kan`` is set (its bonus that 碰's); every order of groups is tried, so the best
    placement of a restricted copy is found."""
    i = next((k for k, c in enumerate(counts) if c), -1)
    if i < 0:
        return (0, ()) if half == 0 else None
    cand: list[tuple[str, tuple[int, ...], int, Cons | None]] = []
    free, marked = counts[i], False
    if cons is not None:
        free -= cons[0][i] + (cons[1] == i)
        marked = cons[1] == i
    if free >= 3:
        cand.append(("kan", (i, i, i), GROUP_BONUS["kan"][0 if RED_CHAR[i] else 1], cons))
    elif free == 2 and marked:
        assert cons is not None
        lock, _, mark_kan, mark_pair = cons
        kind, bonus = ("kan", GROUP_BONUS["kan"][0 if RED_CHAR[i] else 1]) if mark_kan is None else ("peng", mark_kan)
        cand.append((kind, (i, i, i), bonus, _cons(lock, -1, None, True)))
    for j in JU_FROM[i]:
        if counts[j[1]] and counts[j[2]]:
            cand.append(("ju", j, 1 if j in JU_RED else 0, _singles(cons, j)))
    if half:
        if free >= 2:
            cand.append(("ban_ju", (i, i), 0, cons))
        elif free == 1 and marked and cons is not None and cons[3]:
            cand.append(("ban_ju", (i, i), 0, _cons(cons[0], -1, None, True)))
        for b in HALF_PARTNERS[i]:
            if counts[b]:
                cand.append(("ban_ju", (i, b), 0, _singles(cons, (i, b))))
    best = None
    for kind, chars, bonus, sub_cons in cand:
        rest = list(counts)
        for c in chars:
            rest[c] -= 1
        sub = _best(tuple(rest), half - (kind == "ban_ju"), sub_cons)
        if sub is None:
            continue
        if best is None or bonus + sub[0] > best[0]:
            best = (bonus + sub[0], ((kind, chars), *sub[1]))
    return best


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


def _assign(groups: Sequence[tuple[str, tuple[int, ...]]], counts: Sequence[int], rules: HandRules = DEFAULT_RULES,
            held_back: Sequence[int] | None = None) -> tuple[Group, ...]:
    """Give the character groups real kinds: 花 copies go to the first groups needing the
    character (deterministic from the count vector; the total 個子 does not depend on it).
    ``held_back`` (27 kinds): copies a 句 or two-character 半句 takes first and a group of one
    character last (撿 copies, the won-on discard), as the split placed them."""
    left = list(counts)
    back = list(held_back) if held_back is not None else [0] * N_KINDS
    kinds_of: list[list[int]] = [[] for _ in groups]
    order: Sequence[int] = range(len(groups))
    if any(back):  # groups of one character last, so that they take what the 句 left
        order = sorted(order, key=lambda g: len(set(groups[g][1])) == 1)
    for gi in order:
        single = len(set(groups[gi][1])) > 1
        for ch in groups[gi][1]:
            ks = [k for k in reversed(KINDS_OF[ch]) if left[k]]  # 花 kind is listed after the plain one
            k = next((k for k in ks if (back[k] > 0) == single), ks[0])
            left[k] -= 1
            if back[k]:
                back[k] -= 1
            kinds_of[gi].append(k)
    return tuple(Group(kind, tuple(ks), group_gezi(kind, ks, rules)) for (kind, _), ks in zip(groups, kinds_of))


def _shidui(counts: Sequence[int], four_as_two: bool) -> tuple[Group, ...] | None:
    """十對: the whole concealed hand as ten 對子 (identical characters), or None."""
    ch = chars_of(counts)
    if sum(ch) != 20 or any(n % 2 for n in ch) or (not four_as_two and any(n > 2 for n in ch)):
        return None
    return _assign([("dui", (c, c)) for c in range(N_CHARS) for _ in range(ch[c] // 2)], counts)


def judge(concealed: Sequence[int], melds: Sequence[tuple[str, Sequence[int]]], rules: HandRules = DEFAULT_RULES, *,
          discard: int | None = None, jian: Sequence[int] | None = None,
          fours: Sequence[Sequence[int]] = ()) -> Judgement:
    """Judge a finished hand.

    :param concealed: 27-kind count vector of the concealed hand, the winning card included.
    :param melds: ``(kind, cards)`` laid in play: ``peng`` 3, ``zhao`` 4, ``guan_sheng`` 4,
        ``hua`` 5 cards (kinds).
    :param rules: the options read (:class:`HandRules`).
    :param discard: kind of the won-on discard (in ``concealed``), None for a win on one's own
        card; read under options ``win_triple = peng`` and ``win_pair = refused``.
    :param jian: 27-kind counts of the 撿 copies in ``concealed``; read under ``jian_kan = refused``.
    :param fours: four-card sets (kinds) of the concealed hand that could have been declared
        觀生 (four alike, none 撿ed, not the won-on discard). With declared 觀生 sets in ``melds``,
        every choice of as many 觀生 among the declared and these is read (000 §操作規則 觀生:
        玩家可以折散兩組四個牌中任意一組牌與其它的牌組成句子使用): a declared set not chosen joins
        the concealed cards, a chosen four of the hand is a ``guan_sheng`` group with origin
        ``hand``.
    :returns: the best reading (most 分, then most 個子; on a tie the special hand; on a tie the
        declared 觀生): 六句半 (every meld a group, the concealed cards in 句 and 坎 plus one 半句,
        six groups in all) with at least the minimum 個子, or a special hand (一手黑 / 一手紅
        with the 六句半 shape, 十對: ten 對子 and no melds) at any 個子. No win: the reason of
        the complete shape with the most 個子 (``points`` set), else of the declared reading.
    """
    held = list(concealed)
    for _, c in melds:
        for k in c:
            held[k] += 1
    from_cards = sum(CARD_GEZI[k] * n for k, n in enumerate(held))
    colours = {RED_CHAR[CHAR_OF[k]] for k, n in enumerate(held) if n}
    lock = tuple(chars_of(jian)) if jian is not None and rules.jian_kan == "refused" else (0,) * N_CHARS
    mark = CHAR_OF[discard] if discard is not None else -1
    kan_with_discard = None
    if mark >= 0 and rules.win_triple == "peng":
        kan_with_discard = rules.bonus("peng")[0 if RED_CHAR[mark] else 1]
    cons = _cons(lock, mark, kan_with_discard, rules.win_pair == "allowed")
    back = [0] * N_KINDS  # copies the split keeps out of 坎 and pairs, for _assign
    if jian is not None and any(lock):
        back = list(jian)
    if cons is not None and cons[1] >= 0 and discard is not None:
        back[discard] += 1

    readings: list[tuple[tuple[int, int, int, int], Judgement]] = []
    failures: list[Judgement] = []

    def fen_of(points: int, special: str | None) -> tuple[int, int]:
        base = points // rules.per_fen
        if special is None:
            return base, 1
        return (max(1, base) if rules.special_base == "max1" else 1), SPECIAL_BEI[special]

    def read(conc: Sequence[int], laid: tuple[Group, ...], swapped: int) -> None:
        reason = None
        shape = None
        n_groups = len(laid)
        cc = chars_of(conc)
        if sum(cc) % 3 == 2:
            shape = _best(tuple(cc), 1, cons)
        if shape is not None and n_groups + (sum(cc) - 2) // 3 != 6:
            reason = f"六句半 needs six groups and a 半句; these cards make {n_groups + (sum(cc) - 2) // 3} groups"
            shape = None
        if shape is None:
            failures.append(Judgement(False, reason or "the cards do not make 六句半 (six groups of 句 / 坎 / melds and a 半句)",
                                      (), None, from_cards, 0, None, 0, 0))
            return
        groups = laid + _assign(shape[1], conc, rules, back)
        pts = sum(g.points for g in groups)
        for special in (None, *(s for s, ok in (("yishou_hei", colours == {False}), ("yishou_hong", colours == {True})) if ok)):
            if special is None and pts < rules.minimum:
                failures.append(Judgement(False, f"{pts} 個子 is under the {rules.minimum}-個子 minimum for {rules.players} players",
                                          groups, pts, from_cards, pts - from_cards, None, 0, 0))
                continue
            fen, bei = fen_of(pts, special)
            readings.append(((fen * bei, pts, special is not None, -swapped),
                             Judgement(True, None, groups, pts, from_cards, pts - from_cards, special, fen, bei)))

    table = tuple(Group(k, tuple(c), group_gezi(k, c, rules), "table") for k, c in melds)
    read(concealed, table, 0)
    declared = [i for i, (k, _) in enumerate(melds) if k == "guan_sheng"]
    for r in range(1, min(len(declared), len(fours)) + 1):
        for freed in combinations(declared, r):
            for fixed in combinations(fours, r):
                conc = list(concealed)
                for i in freed:
                    for k in melds[i][1]:
                        conc[k] += 1
                for four in fixed:
                    for k in four:
                        conc[k] -= 1
                laid = tuple(g for i, g in enumerate(table) if i not in freed)
                laid += tuple(Group("guan_sheng", tuple(f), group_gezi("guan_sheng", f, rules), "hand") for f in fixed)
                read(conc, laid, r)
    if not melds:
        dui = None if any(lock) else _shidui(concealed, rules.shidui_four == "two_pairs")
        if dui is not None:
            fen, bei = fen_of(from_cards, "shidui")
            readings.append(((fen * bei, from_cards, True, 0),
                             Judgement(True, None, dui, from_cards, from_cards, 0, "shidui", fen, bei)))
    # compiled, the inner functions and the scope they close over refer to each other: let go
    # here (Cython cannot `del` them) so a judged hand is freed by reference counts, not left to
    # the cyclic collector
    read = fen_of = None  # type: ignore[assignment]
    if readings:
        return max(readings, key=lambda r: r[0])[1]
    shaped = [f for f in failures if f.points is not None]
    return max(shaped, key=lambda f: f.points or 0) if shaped else failures[0]


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
