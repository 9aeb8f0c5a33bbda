"""花牌 hand scoring shared by sanjing_huapai, wujing_huapai and shuangbiegan_huapai: 句 and
聽頭 shapes, the 胡 of every group with 精 and 主精, the best split and 分.

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
- Rule options read here (docs/rules/huapai.md): ``dui_hu``, ``zhu_jing_tie``, ``tingtou_jing``,
  ``zha_in_hand`` (four / five alike in hand as 扎 / 泛, or only 句 and 坎 in hand) and ``lai_hu``
  (a 賴 as a 花 copy, or the 公安 values of all-flowered 精 groups).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from itertools import combinations_with_replacement
from operator import add, itemgetter
from typing import Sequence

from replay.cards import HUAPAI, HUAPAI_CHARS, HUAPAI_RED, Deck
from replay.groups import Group, Split
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
# Under ``lai_hu=gongan`` a 賴 read as a 精 keeps a search kind of its own (its value differs from
# a flowered copy's): one slot per flowered character after the 27 natural kinds. S* tables cover
# natural kinds and slots; a slot is a 花 copy of its character for shapes, 句 and 聽頭.
LAI_SLOT: dict[int, int] = {ch: N_KIND + i for i, ch in enumerate(sorted(HUA, key=lambda c: PLAIN[c]))}
SKCHAR: tuple[int, ...] = KCHAR + tuple(sorted(LAI_SLOT, key=LAI_SLOT.__getitem__))
SKHUA: tuple[bool, ...] = KHUA + (True,) * len(LAI_SLOT)
# The search takes the lowest character first; natural kinds are in character order already, a
# slot goes right after its character's kinds.
SORDER: tuple[int, ...] = tuple(sorted(range(len(SKCHAR)), key=lambda x: (SKCHAR[x], x)))


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
# lai_hu=gongan: a public 公安 engine's published table of 精 groups holding a 賴 (坎 8 rows, 扎 8,
# 泛 6; docs/rules/huapai.md decision 14). A 賴 is a flowered copy (代花三五七) and a group goes by
# its flowered copies f = 花 + 賴: 扎 / 泛 = 2 / 4 × GONGAN_UNIT[f] — the seed's 精扎 6*2, 7*2 and
# 精泛 7*2*2 at f = 1, 2, then 9 at three and 12 at four flowered copies; 坎 = GONGAN_UNIT[f] too
# (5 + 花 with a 素 copy, 2花1賴 9) but 1花2賴 12 (GONGAN_KAN, keyed (花, 賴)).
GONGAN_UNIT = (5, 6, 7, 9, 12)
GONGAN_KAN = {(2, 1): 9, (1, 2): 12}
# 002 §五精花牌 定精方法: 以“乙、三、五、七、九”五個字為精 (§三精花牌: “三、五、七”). Tied 主精 go in
# this order (option zhu_jing_tie, docs/rules/huapai.md decision 2), not in the deck's card order.
JING_ORDER: tuple[int, ...] = tuple(HUAPAI_CHARS.index(c) for c in "乙三五七九")
# Alike group sizes a concealed hand may hold, by option zha_in_hand.
HAND_ALIKE = {"group": (3, 4, 5), "eight_groups": (3,)}


@dataclass(frozen=True)
class Cfg:
    """What the scorer needs of a variant and its ruleset.

    :param deck: HUAPAI or HUAPAI_LAI. :param jing: the 精 characters (indices into HUAPAI_CHARS).
    :param dui_hu: rule option ``dui_hu`` (``kan`` or ``half``). :param zhu_jing_tie: option
        ``zhu_jing_tie`` (``best`` or ``deck_order``). :param tingtou_jing: option ``tingtou_jing``
        (``zero`` or ``count``). :param zha_in_hand: option ``zha_in_hand`` (``group`` or
        ``eight_groups``). :param lai_hu: option ``lai_hu`` (``hua`` or ``gongan``).
    """

    deck: Deck = field(compare=False, hash=False)  # the search never reads it: kinds 0..26 are shared
    jing: frozenset[int] = frozenset()
    dui_hu: str = "kan"
    zhu_jing_tie: str = "best"
    tingtou_jing: str = "zero"
    zha_in_hand: str = "group"
    lai_hu: str = "hua"

    @property
    def jing_order(self) -> tuple[int, ...]:
        """The 精 in the order 定精方法 names them, 乙 三 五 七 九: the order of tied 主精 and of the
        賴 readings (docs/rules/huapai.md decision 2)."""
        return tuple(ch for ch in JING_ORDER if ch in self.jing)


def alike_points(ch: int, n: int, hua: int, main: int | None, jing: frozenset[int], lai: int = 0) -> int:
    """胡 of ``n`` (3 坎, 4 扎/招, 5 泛) alike cards of character ``ch`` holding ``hua`` 花 copies
    and, counted apart (option ``lai_hu=gongan``), ``lai`` 賴 read as ``ch``.

    精: 5/10/20 + 1/2/4 per 花 (002 §3: 精坎 5·6·7, 精扎 12·14, 精泛 28; a 賴 folded into ``hua``
    is one more 花). With ``lai`` 賴 apart, the 公安 table: :data:`GONGAN_UNIT` of the flowered
    copies (花 + 賴) times 1 / 2 / 4 for 坎 / 扎 / 泛, a 坎 of no 素 copy :data:`GONGAN_KAN`.
    Others red 2/4/8, black half. Doubled for the 主精 ``main`` (002 §3: 主精的胡數…全部翻一倍).
    """
    if ch in jing:
        if lai:
            pts = GONGAN_UNIT[hua + lai] * JING_BASE[n] // 5  # 坎 ×1, 扎 ×2, 泛 ×4
            if n == 3:
                pts = GONGAN_KAN.get((hua, lai), pts)
        else:
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
    red = 1 if all(SKCHAR[k] in RED for k in kinds) else 0
    return red + sum(jing_card_points(SKCHAR[k], SKHUA[k], main, jing) for k in kinds)


def tingtou_points(kinds: Sequence[int], main: int | None, cfg: Cfg) -> int:
    """胡 of the 聽頭: 0 (option ``tingtou_jing=zero``: 002 §3 credits 精 only in 句/坎/扎/泛),
    or its 精 counted as in a 句 (``count``)."""
    if cfg.tingtou_jing != "count":
        return 0
    return sum(jing_card_points(SKCHAR[k], SKHUA[k], main, cfg.jing) for k in kinds)


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
# One memoised test per option zha_in_hand: 句 and 坎/扎/泛 in hand, or 句 and 坎 only.
SPLITS = {mode: split_test([JU_FROM[c] for c in range(22)], [TT_PARTNERS[c] for c in range(22)], alike=sizes)
          for mode, sizes in HAND_ALIKE.items()}


def shape_ok(chars: Sequence[int], placed: bool = False, zha_in_hand: str = "group") -> bool:
    """Whether character counts (22) split into 句 and the alike groups option ``zha_in_hand``
    allows in hand (坎/扎/泛, or 坎 only) plus exactly one 聽頭 (002 §4).

    ``placed``: the 聽頭 is already taken. Lowest character first, memoised (:mod:`replay.split`).
    """
    return SPLITS[zha_in_hand](bytes(chars), 0 if placed else 1)


# -- valued search (kinds; 花 of non-精 characters merged into the plain kind) ------------------
def _char_kinds(ch: int, rem: tuple[int, ...]) -> list[int]:
    """The kinds of character ``ch`` still present in ``rem`` (plain first; then 花, then the
    賴 slot of a ``rem`` that has slots)."""
    out = [PLAIN[ch]] if rem[PLAIN[ch]] else []
    h = HUA.get(ch)
    if h is not None and rem[h]:
        out.append(h)
        if len(rem) > N_KIND and rem[LAI_SLOT[ch]]:
            out.append(LAI_SLOT[ch])
    elif h is not None and len(rem) > N_KIND and rem[LAI_SLOT[ch]]:
        out.append(LAI_SLOT[ch])
    return out


def _compositions(ch: int, rem: tuple[int, ...], n: int, must: int) -> list[tuple[int, ...]]:
    """Multisets of ``n`` kinds of character ``ch`` available in ``rem`` that hold kind ``must``."""
    p = PLAIN[ch]
    h = HUA.get(ch)
    slot = LAI_SLOT[ch] if h is not None and len(rem) > N_KIND else None
    nl_max = rem[slot] if slot is not None else 0
    out = []
    for nl in range(0, min(n, nl_max) + 1):
        for nh in range(0, n - nl + 1):
            np_ = n - nh - nl
            if np_ > rem[p] or (nh and (h is None or nh > rem[h])):
                continue
            combo = (p,) * np_ + ((h,) * nh if h is not None else ()) + ((slot,) * nl if slot is not None else ())
            if must in combo:
                out.append(combo)
    return out


@lru_cache(maxsize=200_000)
def _best(rem: tuple[int, ...], placed: bool, main: int | None, cfg: Cfg) -> tuple[int, tuple] | None:
    """Best (胡, groups) covering ``rem`` (27 kinds, and the 賴 slots under ``lai_hu=gongan``)
    exactly with one 聽頭 in all; groups are
    ``(kind, kinds)`` with kind ``ju``, ``kan``, ``zha``, ``fan`` or ``tingtou``. Lowest character
    first, so the card of that kind picks its group; memoised."""
    if len(rem) > N_KIND:
        k = next((x for x in SORDER if rem[x]), -1)
    else:
        k = next((x for x, n in enumerate(rem) if n), -1)
    if k < 0:
        return (0, ()) if placed else None
    ch = SKCHAR[k]
    cands: list[tuple[str, tuple[int, ...], int]] = []
    for n in HAND_ALIKE[cfg.zha_in_hand]:
        for combo in _compositions(ch, rem, n, k):
            lai = sum(x >= N_KIND for x in combo)
            cands.append((ALIKE[n], combo, alike_points(ch, n, sum(KHUA[x] for x in combo if x < N_KIND), main,
                                                        cfg.jing, lai)))
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
class JingSplit(Split):
    """The best split of a finished hand (:class:`replay.groups.Split`: the groups, melds first, and
    the total 胡) with its 精: ``main`` the 主精 character (None: the winner holds no 精),
    ``jing_count`` the 精 cards held (賴 included), ``per_char`` ``{char: {"hua", "su", "hu"}}`` for
    every 精 character held. Group kinds: ``ju``, ``kan``, ``zha``, ``fan``, ``tingtou`` in hand;
    ``dui``, ``zhao``, ``zha``, ``kai_fan`` on the table."""

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
               cfg: Cfg) -> JingSplit | None:
    """The highest-胡 split of a finished hand, or None when its shape is not complete.

    :param hand: count vector over ``cfg.deck`` of the concealed cards before the winning card.
    :param melds: ``(kind, kinds)`` on the table (``dui``, ``zhao``, ``zha``, ``kai_fan``).
    :param win_card: the winning kind (None: judge ``hand`` as it is).
    :returns: :class:`JingSplit`; the caller applies the 17-胡 minimum. Every reading of the 賴 (as 花三,
        花五 or 花七) and, with ``zhu_jing_tie=best``, every tied 主精 is tried; the most 胡 wins
        (002 §雙別桿: 賴子可作為任一精; §定精方法: 所持最多者為主精).
    """
    table_chars = [0] * 22
    for _, kinds in melds:
        for x in kinds:
            table_chars[KCHAR[x]] += 1
    best: JingSplit | None = None
    for assign, kinds, chars in _readings(hand, win_card, cfg):
        if not shape_ok(chars, False, cfg.zha_in_hand):
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
        if assign and cfg.lai_hu == "gongan":  # each 賴 in its slot, apart from the real 花 copies
            merged += [0] * len(LAI_SLOT)
            for ch in assign:
                merged[HUA[ch]] -= 1
                merged[LAI_SLOT[ch]] += 1
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
                 held: dict[int, int]) -> JingSplit:
    """Turn the search's groups into :class:`Group` values of the deck's real kinds (花 copies of
    non-精 characters and 賴 put back) and the per-character 精 facts."""
    lk = lai_kind(cfg.deck)
    lai = lk if lk is not None else -1  # 賴's kind (read only in a deck that holds it)
    hua_left = {ch: kinds[h] for ch, h in HUA.items() if ch not in cfg.jing}
    # 賴 folded into 花 kinds (lai_hu=hua) are named back on the first 花 copies of their character
    lai_left = {ch: assign.count(ch) for ch in set(assign)} if cfg.lai_hu != "gongan" else {}

    out = [Group(k, c, p, "table") for k, c, p in table]
    for k, c, p in groups:  # a loop, not an inner function: compiled, that made a cycle a hand
        named = []
        for x in c:
            if x >= N_KIND:  # a 賴 slot
                named.append(lai)
                continue
            ch = KCHAR[x]
            if ch in hua_left and hua_left[ch] and not KHUA[x]:
                hua_left[ch] -= 1
                named.append(HUA[ch])
            elif KHUA[x] and lai_left.get(ch):
                lai_left[ch] -= 1
                named.append(lai)
            else:
                named.append(x)
        out.append(Group(k, tuple(named), p))
    per: dict[str, dict[str, int]] = {}
    for ch in cfg.jing_order:
        if not held[ch]:
            continue
        su = hua = hu = 0
        for k, c, p in [*table, *groups]:
            mine = [x for x in c if SKCHAR[x] == ch]
            if not mine:
                continue
            su += sum(not SKHUA[x] for x in mine)
            hua += sum(SKHUA[x] for x in mine)
            if k == "tingtou":
                hu += tingtou_points(mine, main, cfg)
            elif k == "ju":
                hu += sum(jing_card_points(ch, SKHUA[x], main, cfg.jing) for x in mine)
            else:
                hu += p
        per[HUAPAI_CHARS[ch]] = {"hua": hua, "su": su, "hu": hu}
    return JingSplit(tuple(out), pts, HUAPAI_CHARS[main] if main is not None else None, sum(held.values()), per)


@lru_cache(maxsize=None)
def _lai_units(jing: frozenset[int], lai: int) -> tuple[int, ...]:
    """What each reading of ``lai`` 賴 adds to packed character counts (a byte per character): one
    per multiset of 精 characters (賴子可作為任一精, 002 §雙別桿花牌 定精方法)."""
    order = sorted(jing, key=lambda c: PLAIN[c])
    return tuple(sum(1 << (8 * ch) for ch in assign) for assign in combinations_with_replacement(order, lai))


# The fast shape test (complete_hand). 上大人 and 可知禮 share no character with another 句, so
# each is a component of its own, three plain kinds in a row: a hand splits exactly when each
# component does and one of them takes the 聽頭 (as replay/split.py decides it). Their few count
# triples are judged once (per option zha_in_hand), and most hands fail there, before the large
# rest — which holds every 精 (so every 賴 reading) and every 花 — is packed a byte per kind (the
# 賴 of HUAPAI_LAI is byte N_KIND), folded to characters and searched.
*_SMALL_COMPS, _BIG_COMP = sorted(components(len(HUAPAI_CHARS), JU), key=len)  # a 聽頭 lies in one 句
assert all(c not in HUA and PLAIN[c] == PLAIN[comp[0]] + i for comp in _SMALL_COMPS for i, c in enumerate(comp))
assert all(ch in _BIG_COMP for ch in HUA)
assert [PLAIN[comp[0]] for comp in _SMALL_COMPS] == [0, 7]  # 上大人: kinds 0-2, 可知禮: kinds 7-9
_ZERO = N_KIND + 1  # a byte of the packed hand that is always 0 (one past the 賴)
# Per character of the large component its plain and 花 kind (others read the zero byte).
_BIG_PLAIN = itemgetter(*(PLAIN[c] if c in _BIG_COMP else _ZERO for c in range(len(HUAPAI_CHARS))))
_BIG_HUA = itemgetter(*(HUA.get(c, _ZERO) if c in _BIG_COMP else _ZERO for c in range(len(HUAPAI_CHARS))))


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


def _complete_test(can_split):
    """The fast shape test over one :data:`SPLITS` test (see above)."""
    # Per small component, its counts (three bytes) -> 1 if they split alone | 2 if taking the 聽頭.
    small: tuple[dict[int, int], dict[int, int]] = ({}, {})

    def small_status(i: int, counts: int) -> int:
        b = (counts << (8 * _SMALL_COMPS[i][0])).to_bytes(22, "little")
        st = small[i][counts] = (1 if can_split(b, 0) else 0) | (2 if can_split(b, 1) else 0)
        return st

    def big_splits(big: bytes, half: int) -> bool:
        if half >= 0:
            return can_split(big, half)
        return can_split(big, 0) or can_split(big, 1)

    def complete_hand(hand: Sequence[int], card: int | None, jing: frozenset[int]) -> bool:
        """Shape test of the count vector ``hand`` plus ``card`` (a kind; None: the hand as it
        is), every 賴 reading (as a 精 of ``jing``) tried."""
        c1 = hand[0] | hand[1] << 8 | hand[2] << 16  # 上大人: kinds 0-2
        c2 = hand[7] | hand[8] << 8 | hand[9] << 16  # 可知禮: kinds 7-9
        if card is not None and card < 10:
            if card < 3:
                c1 += 1 << (8 * card)
            elif card >= 7:
                c2 += 1 << (8 * (card - 7))
        st1 = small[0].get(c1)
        if st1 is None:
            st1 = small_status(0, c1)
        st2 = small[1].get(c2)
        if st2 is None:
            st2 = small_status(1, c2)
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
            return any(big_splits((packed + d).to_bytes(22, "little"), half) for d in _lai_units(jing, lai))
        return big_splits(big, half)

    return complete_hand


# The fast shape test per option zha_in_hand: ``COMPLETE[mode](hand, card, jing) -> bool``.
COMPLETE = {mode: _complete_test(fn) for mode, fn in SPLITS.items()}


def can_complete(hand: Sequence[int], win_card: int | None, cfg: Cfg) -> bool:
    """Cheap shape test (no points) of the concealed cards plus ``win_card``, every 賴 reading tried."""
    return COMPLETE[cfg.zha_in_hand](hand, win_card, cfg.jing)
