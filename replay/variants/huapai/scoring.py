"""花牌 hand scoring shared by sanjing_huapai, wujing_huapai and shuangbiegan_huapai: 句 and
聽頭 shapes, the 胡 of every group with 精 and 主精, the best split, 分 and waits.

Cards are kind indices of :data:`replay.cards.HUAPAI` (27 kinds, deck order: each of 乙三五七九
a plain kind followed by its 花 kind) or :data:`replay.cards.HUAPAI_LAI` (+ ``賴`` = 27). Hands
are count vectors, so a score never depends on card order.

Sources (002 = 002_f9a80b28e0fcbf1a.txt, sections 三精花牌 / 五精花牌 / 雙別桿花牌, which repeat
the same text):
- shapes: 002 §1 牌型組合 (句: 上大人 孔乙己 可知禮 化三千 七十士 八九子 and three consecutive
  numbers, 乙 = 一; 坎 3, 扎 4, 泛 5 alike); 聽頭: 002 §4 胡牌規則 (a pair or two cards of one 句).
- 胡: 002 §3 計胡規則 (red 坎 2 / 扎 4 / 泛 8, black half; red 句 1; 精 in a 句 1 素 / 2 花;
  精坎 5/6/7; 精扎 12/14; 精泛 28; 主精 doubles). Minimum 17: 002 §4.
- 分: 002 §5 計分規則 (17 胡 = 1 分, 逢5進1).
- 賴 (雙別桿 only): 002 §雙別桿花牌 定精方法 (賴子可作為任一精, 代花三五七).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from itertools import combinations_with_replacement
from operator import add, itemgetter
from typing import Sequence

from replay.cards import HUAPAI, HUAPAI_CHARS, HUAPAI_RED, Deck
from replay.split import components, split_test

MIN_HU = 17  # 002 §4: 至少有17個胡
FEN_STEP = 5  # 002 §5: 逢5進1
LAI = "賴"

N_KIND = len(HUAPAI.codes)  # 27 natural kinds; 賴 (index 27 of HUAPAI_LAI) is resolved before the search
KCHAR: tuple[int, ...] = tuple(HUAPAI_CHARS.index(c[-1]) for c in HUAPAI.codes)  # kind -> character 0..21
KHUA: tuple[bool, ...] = tuple(c.startswith("花") for c in HUAPAI.codes)
PLAIN: dict[int, int] = {ch: HUAPAI.codes.index(HUAPAI_CHARS[ch]) for ch in range(len(HUAPAI_CHARS))}  # char -> plain kind
HUA: dict[int, int] = {KCHAR[k]: k for k in range(N_KIND) if KHUA[k]}  # char -> 花 kind
RED: frozenset[int] = frozenset(HUAPAI_CHARS.index(c) for c in HUAPAI_RED)


def _ju_types() -> tuple[tuple[int, int, int], ...]:
    """The 句 as sorted character triples (002 §1): six phrases and 乙二三 … 八九十."""
    phrases = ["上大人", "孔乙己", "可知禮", "化三千", "七十士", "八九子"]
    nums = "乙二三四五六七八九十"  # 乙 counts as 一
    runs = [nums[i:i + 3] for i in range(8)]
    return tuple(tuple(sorted(HUAPAI_CHARS.index(c) for c in t)) for t in phrases + runs)  # type: ignore[misc]


JU: tuple[tuple[int, int, int], ...] = _ju_types()
JU_FROM: dict[int, tuple[tuple[int, int, int], ...]] = {c: tuple(t for t in JU if t[0] == c) for c in range(22)}
# 聽頭 of two different characters: both from one 句 (002 §4 聽頭); keyed by the lower character.
TT_PARTNERS: dict[int, tuple[int, ...]] = {
    c: tuple(sorted({x for t in JU if c in t for x in t if x > c})) for c in range(22)
}
ALIKE = {3: "kan", 4: "zha", 5: "fan"}
# 精 group 胡 = base + per-花 step (002 §3: 精坎 5/6/7, 精扎 6*2 / 7*2, 精泛 7*2*2).
JING_BASE = {3: 5, 4: 10, 5: 20}
JING_STEP = {3: 1, 4: 2, 5: 4}
RED_ALIKE = {3: 2, 4: 4, 5: 8}  # 002 §3: 紅字1坎是2個胡，1扎是4個胡，1泛是8個胡，黑字全部減半


@dataclass(frozen=True)
class Cfg:
    """What the scorer needs of a variant and its ruleset.

    :param deck: HUAPAI or HUAPAI_LAI. :param jing: the 精 characters (indices into HUAPAI_CHARS).
    :param dui_hu: rule option ``dui_hu`` (``kan`` or ``half``). :param zhu_jing_tie: option
        ``zhu_jing_tie`` (``best`` or ``deck_order``). :param tingtou_jing: option ``tingtou_jing``
        (``zero`` or ``count``).
    """

    deck: Deck = field(compare=False, hash=False)  # the search never reads it: kinds 0..26 are shared
    jing: frozenset[int] = frozenset()
    dui_hu: str = "kan"
    zhu_jing_tie: str = "best"
    tingtou_jing: str = "zero"

    @property
    def jing_order(self) -> tuple[int, ...]:
        return tuple(sorted(self.jing, key=lambda c: PLAIN[c]))


def alike_points(ch: int, n: int, hua: int, main: int | None, jing: frozenset[int]) -> int:
    """胡 of ``n`` (3 坎, 4 扎/招, 5 泛) alike cards of character ``ch`` holding ``hua`` 花 copies.

    精: 5/10/20 + 1/2/4 per 花 (002 §3: 精坎 5·6·7, 精扎 12·14, 精泛 28); others red 2/4/8, black
    half. Doubled for the 主精 ``main`` (002 §3: 主精的胡數…全部翻一倍).
    """
    if ch in jing:
        pts = JING_BASE[n] + JING_STEP[n] * hua
        return pts * 2 if ch == main else pts
    return RED_ALIKE[n] if ch in RED else RED_ALIKE[n] // 2


def jing_card_points(ch: int, hua: bool, main: int | None, jing: frozenset[int]) -> int:
    """胡 one card brings inside a 句: a 精 1 (素) or 2 (花), doubled for the 主精; others 0 (002 §3)."""
    if ch not in jing:
        return 0
    pts = 2 if hua else 1
    return pts * 2 if ch == main else pts


def ju_points(kinds: Sequence[int], main: int | None, jing: frozenset[int]) -> int:
    """胡 of a 句 (three kinds): 1 when all three characters are red (上大人, 可知禮), plus its 精
    (002 §3: 普通紅字1句只有1個胡…黑字1個胡也沒有; 精放在句中 1 / 2)."""
    red = 1 if all(KCHAR[k] in RED for k in kinds) else 0
    return red + sum(jing_card_points(KCHAR[k], KHUA[k], main, jing) for k in kinds)


def tingtou_points(kinds: Sequence[int], main: int | None, cfg: Cfg) -> int:
    """胡 of the 聽頭: 0 (option ``tingtou_jing=zero``: 002 §3 credits 精 only in 句/坎/扎/泛),
    or its 精 counted as in a 句 (``count``)."""
    if cfg.tingtou_jing != "count":
        return 0
    return sum(jing_card_points(KCHAR[k], KHUA[k], main, cfg.jing) for k in kinds)


def meld_points(kind: str, kinds: Sequence[int], main: int | None, cfg: Cfg) -> int:
    """胡 of a meld on the table: ``dui`` 對 (3; a 坎 shown, or half of it with ``dui_hu=half``),
    ``zhao`` 招 / ``zha`` 扎 (4), ``kai_fan`` 泛 (5). Cards are natural kinds (賴 never melds)."""
    ch = KCHAR[kinds[0]]
    hua = sum(KHUA[k] for k in kinds)
    pts = alike_points(ch, len(kinds), hua, main, cfg.jing)
    if kind == "dui" and cfg.dui_hu == "half":
        pts //= 2
    return pts


def fen(points: int) -> int:
    """分 of ``points`` 胡: 1 at 17, +1 per 5 more (002 §5: 17胡為1分, 22胡則計2分、27胡計3分).

    :raises ValueError: under the 17-胡 minimum.
    """
    if points < MIN_HU:
        raise ValueError(f"{points} 胡 is under the {MIN_HU}-胡 minimum")
    return 1 + (points - MIN_HU) // FEN_STEP


# -- shape feasibility (characters only; flowers do not change shapes) -------------------------
_can_split = split_test([JU_FROM[c] for c in range(22)], [TT_PARTNERS[c] for c in range(22)], alike=(3, 4, 5))


def shape_ok(chars: Sequence[int], placed: bool = False) -> bool:
    """Whether character counts (22) split into 句/坎/扎/泛 plus exactly one 聽頭 (002 §4).

    ``placed``: the 聽頭 is already taken. Lowest character first, memoised (:mod:`replay.split`).
    """
    return _can_split(bytes(chars), 0 if placed else 1)


# -- valued search (kinds; 花 of non-精 characters merged into the plain kind) ------------------
def _char_kinds(ch: int, rem: tuple[int, ...]) -> list[int]:
    """The kinds of character ``ch`` still present in ``rem`` (plain first)."""
    out = [PLAIN[ch]] if rem[PLAIN[ch]] else []
    h = HUA.get(ch)
    if h is not None and rem[h]:
        out.append(h)
    return out


def _compositions(ch: int, rem: tuple[int, ...], n: int, must: int) -> list[tuple[int, ...]]:
    """Multisets of ``n`` kinds of character ``ch`` available in ``rem`` that hold kind ``must``."""
    p = PLAIN[ch]
    h = HUA.get(ch)
    out = []
    for nh in range(0, n + 1):
        np_ = n - nh
        if np_ > rem[p] or (nh and (h is None or nh > rem[h])):
            continue
        combo = (p,) * np_ + ((h,) * nh if nh else ())
        if must in combo:
            out.append(combo)
    return out


@lru_cache(maxsize=200_000)
def _best(rem: tuple[int, ...], placed: bool, main: int | None, cfg: Cfg) -> tuple[int, tuple] | None:
    """Best (胡, groups) covering ``rem`` (27 kinds) exactly with one 聽頭 in all; groups are
    ``(kind, kinds)`` with kind ``ju``, ``kan``, ``zha``, ``fan`` or ``tingtou``. Lowest kind first,
    so the card of that kind picks its group; memoised."""
    k = next((x for x, n in enumerate(rem) if n), -1)
    if k < 0:
        return (0, ()) if placed else None
    ch = KCHAR[k]
    cands: list[tuple[str, tuple[int, ...], int]] = []
    for n in (3, 4, 5):
        for combo in _compositions(ch, rem, n, k):
            cands.append((ALIKE[n], combo, alike_points(ch, n, sum(KHUA[x] for x in combo), main, cfg.jing)))
    for t in JU_FROM[ch]:
        for a in _char_kinds(t[1], rem):
            for b in _char_kinds(t[2], rem):
                combo = (k, a, b)
                cands.append(("ju", combo, ju_points(combo, main, cfg.jing)))
    if not placed:
        for combo in _compositions(ch, rem, 2, k):
            cands.append(("tingtou", combo, tingtou_points(combo, main, cfg)))
        for other in TT_PARTNERS[ch]:
            for a in _char_kinds(other, rem):
                combo = (k, a)
                cands.append(("tingtou", combo, tingtou_points(combo, main, cfg)))
    best: tuple[int, tuple] | None = None
    for kind, combo, pts in cands:
        rest = list(rem)
        for x in combo:
            rest[x] -= 1
        sub = _best(tuple(rest), placed or kind == "tingtou", main, cfg)
        if sub is None:
            continue
        if best is None or pts + sub[0] > best[0]:
            best = (pts + sub[0], ((kind, combo, pts), *sub[1]))
    return best


@dataclass(frozen=True)
class Group:
    """One group of a split: ``kind`` (``ju``, ``kan``, ``zha``, ``fan``, ``tingtou`` in hand;
    ``dui``, ``zhao``, ``zha``, ``kai_fan`` on the table), ``cards`` (codes), ``points`` (胡),
    ``origin`` (``hand`` or ``table``)."""

    kind: str
    cards: tuple[str, ...]
    points: int
    origin: str = "hand"


@dataclass(frozen=True)
class Split:
    """The best split of a finished hand.

    :param groups: melds first, then the concealed groups. :param points: total 胡.
    :param main: the 主精 character (None: the winner holds no 精). :param jing_count: 精 cards held
        (賴 included). :param per_char: ``{char: {"hua", "su", "hu"}}`` for every 精 character held.
    """

    groups: tuple[Group, ...]
    points: int
    main: str | None
    jing_count: int
    per_char: dict[str, dict[str, int]] = field(default_factory=dict)


_LAI_KIND: dict[str, int | None] = {}


def lai_kind(deck: Deck) -> int | None:
    """The kind of 賴 in ``deck`` (HUAPAI_LAI), None in a deck without it."""
    k = _LAI_KIND.get(deck.family, -1)
    if k == -1:
        k = _LAI_KIND[deck.family] = deck.codes.index(LAI) if LAI in deck.codes else None
    return k


# Per character, its kinds as (plain, 花 or None); character counts fold each 花 onto its character.
CHAR_KINDS = tuple((PLAIN[ch], HUA.get(ch)) for ch in range(len(HUAPAI_CHARS)))
_PLAIN_OF = itemgetter(*(p for p, _ in CHAR_KINDS))
_HUA_OF = itemgetter(*(-1 if f is None else f for _, f in CHAR_KINDS))  # -1: the 0 appended below


def char_counts(kinds: Sequence[int]) -> list[int]:
    """Cards of each character (22) in the kind count vector ``kinds`` (a 花 counts as its
    character; 賴 left out)."""
    return list(map(add, _PLAIN_OF(kinds), _HUA_OF([*kinds, 0])))


def _readings(hand: Sequence[int], win_card: int | None, cfg: Cfg):
    """Every reading of the concealed cards plus ``win_card``, one per way to read the 賴 as 花三,
    花五 or 花七: ``(賴 characters, natural kind counts (27), character counts (22))``."""
    conc = list(hand)
    if win_card is not None:
        conc[win_card] += 1
    lk = lai_kind(cfg.deck)
    lai = conc[lk] if lk is not None else 0
    for assign in (combinations_with_replacement(cfg.jing_order, lai) if lai else [()]):
        kinds = conc[:N_KIND]
        for ch in assign:
            kinds[HUA[ch]] += 1  # 賴 = a flowered 精 (代花三五七)
        yield assign, kinds, tuple(char_counts(kinds))


def best_split(hand: Sequence[int], melds: Sequence[tuple[str, Sequence[int]]], win_card: int | None,
               cfg: Cfg) -> Split | None:
    """The highest-胡 split of a finished hand, or None when its shape is not complete.

    :param hand: count vector over ``cfg.deck`` of the concealed cards before the winning card.
    :param melds: ``(kind, kinds)`` on the table (``dui``, ``zhao``, ``zha``, ``kai_fan``).
    :param win_card: the winning kind (None: judge ``hand`` as it is).
    :returns: :class:`Split`; the caller applies the 17-胡 minimum. Every reading of the 賴 (as 花三,
        花五 or 花七) and, with ``zhu_jing_tie=best``, every tied 主精 is tried; the most 胡 wins
        (002 §雙別桿: 賴子可作為任一精; §定精方法: 所持最多者為主精).
    """
    table_chars = [0] * 22
    for _, kinds in melds:
        for x in kinds:
            table_chars[KCHAR[x]] += 1
    best: Split | None = None
    for assign, kinds, chars in _readings(hand, win_card, cfg):
        if not shape_ok(chars):
            continue
        held = {ch: chars[ch] + table_chars[ch] for ch in cfg.jing_order}
        top = max(held.values()) if held else 0
        mains: list[int | None] = [ch for ch in cfg.jing_order if held[ch] == top] if top else [None]
        if cfg.zhu_jing_tie == "deck_order":
            mains = mains[:1]
        merged = list(kinds)
        for ch, h in HUA.items():
            if ch not in cfg.jing and merged[h]:  # a non-精 flower is only a character: merge it
                merged[PLAIN[ch]] += merged[h]
                merged[h] = 0
        for main in mains:
            found = _best(tuple(merged), False, main, cfg)
            if found is None:
                continue
            table = [(k, tuple(c), meld_points(k, c, main, cfg)) for k, c in melds]
            pts = found[0] + sum(p for _, _, p in table)
            if best is None or pts > best.points:
                best = _materialize(table, found[1], main, kinds, assign, cfg, pts, held)
    return best


def _materialize(table, groups, main: int | None, kinds: list[int], assign: tuple[int, ...], cfg: Cfg, pts: int,
                 held: dict[int, int]) -> Split:
    """Turn the search's groups into :class:`Group` values with real codes (花 copies of non-精
    characters and 賴 put back) and the per-character 精 facts."""
    codes = cfg.deck.codes
    hua_left = {ch: kinds[h] for ch, h in HUA.items() if ch not in cfg.jing}
    lai_left = {ch: assign.count(ch) for ch in set(assign)}

    def code(x: int) -> str:
        ch = KCHAR[x]
        if ch in hua_left and hua_left[ch] and not KHUA[x]:
            hua_left[ch] -= 1
            return codes[HUA[ch]]
        if KHUA[x] and lai_left.get(ch):
            lai_left[ch] -= 1
            return LAI
        return codes[x]

    out = [Group(k, tuple(codes[x] for x in c), p, "table") for k, c, p in table]
    out += [Group(k, tuple(code(x) for x in c), p) for k, c, p in groups]
    per: dict[str, dict[str, int]] = {}
    for ch in cfg.jing_order:
        if not held[ch]:
            continue
        su = hua = hu = 0
        for k, c, p in [*table, *groups]:
            mine = [x for x in c if KCHAR[x] == ch]
            if not mine:
                continue
            su += sum(not KHUA[x] for x in mine)
            hua += sum(KHUA[x] for x in mine)
            if k == "tingtou":
                hu += tingtou_points(mine, main, cfg)
            elif k == "ju":
                hu += sum(jing_card_points(ch, KHUA[x], main, cfg.jing) for x in mine)
            else:
                hu += p
        per[HUAPAI_CHARS[ch]] = {"hua": hua, "su": su, "hu": hu}
    return Split(tuple(out), pts, HUAPAI_CHARS[main] if main is not None else None, sum(held.values()), per)


@lru_cache(maxsize=None)
def _lai_units(jing: frozenset[int], lai: int) -> tuple[int, ...]:
    """What each reading of ``lai`` 賴 adds to packed character counts (a byte per character): one
    per multiset of 精 characters (賴子可作為任一精, 002 §雙別桿花牌 定精方法)."""
    order = sorted(jing, key=lambda c: PLAIN[c])
    return tuple(sum(1 << (8 * ch) for ch in assign) for assign in combinations_with_replacement(order, lai))


# The fast shape test (complete_hand). 上大人 and 可知禮 share no character with another 句, so
# each is a component of its own, three plain kinds in a row: a hand splits exactly when each
# component does and one of them takes the 聽頭 (as replay/split.py decides it). Their few count
# triples are judged once (:data:`_SMALL`), and most hands fail there, before the large rest —
# which holds every 精 (so every 賴 reading) and every 花 — is packed a byte per kind (the 賴 of
# HUAPAI_LAI is byte N_KIND), folded to characters and searched.
*_SMALL_COMPS, _BIG_COMP = sorted(components(len(HUAPAI_CHARS), JU), key=len)  # a 聽頭 lies in one 句
assert all(c not in HUA and PLAIN[c] == PLAIN[comp[0]] + i for comp in _SMALL_COMPS for i, c in enumerate(comp))
assert all(ch in _BIG_COMP for ch in HUA)
assert [PLAIN[comp[0]] for comp in _SMALL_COMPS] == [0, 7]  # 上大人: kinds 0-2, 可知禮: kinds 7-9
# Per small component, its counts (three bytes) -> 1 if they split alone | 2 if taking the 聽頭.
_SMALL: tuple[dict[int, int], dict[int, int]] = ({}, {})
_ZERO = N_KIND + 1  # a byte of the packed hand that is always 0 (one past the 賴)
# Per character of the large component its plain and 花 kind (others read the zero byte).
_BIG_PLAIN = itemgetter(*(PLAIN[c] if c in _BIG_COMP else _ZERO for c in range(len(HUAPAI_CHARS))))
_BIG_HUA = itemgetter(*(HUA.get(c, _ZERO) if c in _BIG_COMP else _ZERO for c in range(len(HUAPAI_CHARS))))


def _small_status(i: int, counts: int) -> int:
    b = (counts << (8 * _SMALL_COMPS[i][0])).to_bytes(22, "little")
    st = _SMALL[i][counts] = (1 if _can_split(b, 0) else 0) | (2 if _can_split(b, 1) else 0)
    return st


def _half_left(st1: int, st2: int) -> int:
    """What two small components' statuses leave to the large one: 1 (it takes the 聽頭), 0 (a
    small one took it), -1 (either), 2 (no split at all)."""
    half = 1
    for st in (st1, st2):
        if st & 1:
            if st & 2 and half == 1:
                half = -1
        elif st & 2 and half != 0:
            half = 0
        else:
            return 2
    return half


_HALF = tuple(_half_left(a, b) for a in range(4) for b in range(4))  # index: st1 << 2 | st2


def complete_hand(hand: Sequence[int], card: int | None, jing: frozenset[int]) -> bool:
    """Shape test of the count vector ``hand`` plus ``card`` (a kind; None: the hand as it is),
    every 賴 reading (as a 精 of ``jing``) tried."""
    c1 = hand[0] | hand[1] << 8 | hand[2] << 16  # 上大人: kinds 0-2
    c2 = hand[7] | hand[8] << 8 | hand[9] << 16  # 可知禮: kinds 7-9
    if card is not None and card < 10:
        if card < 3:
            c1 += 1 << (8 * card)
        elif card >= 7:
            c2 += 1 << (8 * (card - 7))
    st1 = _SMALL[0].get(c1)
    if st1 is None:
        st1 = _small_status(0, c1)
    st2 = _SMALL[1].get(c2)
    if st2 is None:
        st2 = _small_status(1, c2)
    half = _HALF[st1 << 2 | st2]
    if half == 2:
        return False
    x = int.from_bytes(hand, "little")  # a byte per kind
    if card is not None:
        x += 1 << (8 * card)
    b = x.to_bytes(_ZERO + 1, "little")
    big = bytes(map(add, _BIG_PLAIN(b), _BIG_HUA(b)))  # character counts: a 花 is its character
    lai = b[N_KIND]
    if lai:
        packed = int.from_bytes(big, "little")
        return any(_big_splits((packed + d).to_bytes(22, "little"), half) for d in _lai_units(jing, lai))
    return _big_splits(big, half)


def _big_splits(big: bytes, half: int) -> bool:
    if half >= 0:
        return _can_split(big, half)
    return _can_split(big, 0) or _can_split(big, 1)


def can_complete(hand: Sequence[int], win_card: int | None, cfg: Cfg) -> bool:
    """Cheap shape test (no points) of the concealed cards plus ``win_card``, every 賴 reading tried."""
    return complete_hand(hand, win_card, cfg.jing)


def waits(hand: Sequence[int], melds: Sequence[tuple[str, Sequence[int]]], cfg: Cfg) -> list[dict]:
    """Every card that completes the shape, in deck order (花 and plain apart), while a copy is
    still unseen by the hand: ``[{"card", "points", "win"}]`` (spec §8; 002 §4 拿撂/推攤/卡卡)."""
    deck = cfg.deck
    held = list(hand)
    for _, kinds in melds:
        for x in kinds:
            held[x] += 1
    out = []
    for k in range(len(deck.codes)):
        if held[k] >= deck.copies[k] or not can_complete(hand, k, cfg):
            continue
        sp = best_split(hand, melds, k, cfg)
        if sp is not None:
            out.append({"card": deck.codes[k], "points": sp.points, "win": sp.points >= MIN_HU})
    return out


MELD_SIZES = {"dui": 3, "zhao": 4, "zha": 4, "kai_fan": 5}


def score_case(case: dict, rules, cfg: Cfg) -> dict:
    """Judge one spec §8 score case. ``case`` is the decoded object, ``rules`` the ruleset (unused
    beyond ``cfg``), ``cfg`` the variant's scorer config.

    Meld kinds: ``dui``, ``zhao``, ``zha``, ``kai_fan`` (table) and ``kan`` (concealed: joins the
    hand). ``win_from``: ``self`` (自摸) or ``discard`` (放銃). :raises ValueError: malformed case.
    """
    deck = cfg.deck
    hand = deck.counts(case.get("hand") or [])
    melds: list[tuple[str, list[int]]] = []
    for m in case.get("melds") or []:
        kind = m.get("kind")
        cards = [deck.index(c) for c in m.get("cards") or []]
        if kind == "kan":
            for k in cards:
                hand[k] += 1
            continue
        if kind not in MELD_SIZES:
            raise ValueError(f"meld kind {kind!r} is not a 花牌 meld (dui, zhao, zha, kai_fan, kan)")
        lk = lai_kind(deck)
        if len(cards) != MELD_SIZES[kind] or lk in cards or len({KCHAR[k] for k in cards}) != 1:
            raise ValueError(f"meld {m} is not a {kind}: {MELD_SIZES[kind]} cards of one character, no 賴")
        melds.append((kind, sorted(cards)))  # canonical order: a case's card order never shows
    total = deck.held(hand, melds)
    win_from = case.get("win_from") or "discard"
    if win_from not in ("self", "discard"):
        raise ValueError("win_from is self or discard (花牌 has no flips)")
    if "win_card" not in case:
        return {"waits": waits(hand, melds, cfg)}
    wc = case["win_card"]
    w = None if wc is None else deck.index(wc)
    if w is not None and total[w] >= deck.copies[w]:
        raise ValueError(f"no copy of {wc} is left to win on")
    out: dict = {"win": False, "points": None, "units": None, "hand_types": [], "groups": [], "reason": None}
    sp = best_split(hand, melds, w, cfg)
    if sp is None:
        out["reason"] = "the cards do not all form 句, 坎, 扎 or 泛 around one 聽頭 (002 §4 胡牌規則)"
        return out
    out["points"] = sp.points
    out["groups"] = [{"kind": g.kind, "cards": list(g.cards), "points": g.points} for g in sp.groups]
    if sp.points < MIN_HU:
        out["reason"] = f"{sp.points} 胡 is under the {MIN_HU}-胡 minimum (002 §4)"
        return out
    out.update(win=True, units=fen(sp.points), hand_types=["zimo"] if win_from == "self" and w is not None else [])
    return out
