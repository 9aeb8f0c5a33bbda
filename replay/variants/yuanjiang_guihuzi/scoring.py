"""沅江鬼胡子 hand scoring: sentences, 门子, the best split, the 16 hand types and the 息 formula.

Cards are kind indices of :data:`replay.cards.ZIPAI`: 0..9 small 一..十, 10..19 big 壹..拾.
Hands are count vectors (20 ints), so a score never depends on card order.

Source: 003_50360bd1f53fc819.txt (cited "003 §section"):
- shapes: 003 §名词解析 ⑥ 顺子 (one size only), ⑦ 二七十, ⑧ 门子; winning shape: 003 §名词解析
  1. 单张 (every card in groups but one 门子);
- 息 per group: 003 §息数和算分; hand types and their 息: 003 §胡牌胡型; exclusions: 003 §牌型说明;
- 起胡条件 (5硬息): 003 §名词解析 5; score: 003 §息数和算分 算分公式 and 【5硬息】.
Readings the seed leaves open are rule options (``options.py``), decided in
``docs/rules/yuanjiang_guihuzi.md``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Sequence

from replay.cards import ZIPAI
from replay.groups import Group, groups_json
from replay.options import Ruleset

# 003 §2: 二七十、贰柒拾为红色
RED = frozenset(k for k in range(20) if k % 10 in (1, 6, 9))
EQS = tuple((b + 1, b + 6, b + 9) for b in (0, 10))  # 二七十 / 贰柒拾 (003 §名词解析 ⑦)

# Every sentence (一句话) as sorted kinds: runs of one size and 二七十 (003 §名词解析 ⑥ ⑦).
SENTENCES: tuple[tuple[int, int, int], ...] = tuple(
    [(b + n, b + n + 1, b + n + 2) for b in (0, 10) for n in range(8)] + list(EQS))
SENT_WITH: dict[int, tuple[tuple[int, int, int], ...]] = {k: tuple(s for s in SENTENCES if k in s) for k in range(20)}
# Two-card 门子 of a sentence (003 §名词解析 ⑧: 可组成一句话的两张, 如2、10, 1、3).
MENZI2: frozenset[tuple[int, int]] = frozenset((s[i], s[j]) for s in SENTENCES for i in range(3) for j in range(i + 1, 3))


def completions(pair: tuple[int, ...]) -> set[int]:
    """Kinds that make the 门子 ``pair`` (two distinct kinds) a sentence, e.g. 小三小四 → {小二, 小五}."""
    a, b = sorted(pair)
    return {x for s in SENTENCES if a in s and b in s for x in s if x not in (a, b)}


# The completions of every 门子 (sorted), and per card the 门子 that eat it — ``(own, lock, closes)``
# in :data:`SENT_WITH` order: ``lock`` the kinds 锁牌 may lock after that 吃 (the card and the
# completions, 003 §玩法规则 4.3), ``closes`` the 门子's other completions that 过吃 / 不能吃自己出过的牌
# close (003 §玩法规则 3 ②, 4.1). Tables, so the claim windows build no sets per seat (speed only).
COMPLETIONS: dict[tuple[int, ...], frozenset[int]] = {p: frozenset(completions(p)) for p in MENZI2}
EAT_WITH: dict[int, tuple[tuple[tuple[int, ...], frozenset[int], tuple[int, ...]], ...]] = {
    c: tuple((own, COMPLETIONS[own] | {c}, tuple(sorted(COMPLETIONS[own] - {c})))
             for own in (tuple(k for k in s if k != c) for s in SENT_WITH[c]))
    for c in range(20)}


def is_eqs(cards: Sequence[int]) -> bool:
    """True when every card is one of 二七十 of one size (a 二七十 sentence or two of it)."""
    return any(all(c in e for c in cards) for e in EQS)


# 息 of each group kind (003 §息数和算分). Concealed kinds: kan (dealt three), wai (a pair + one's own
# drawn winning card), peng (a pair + another seat's flipped winning card), shunzi, er_qi_shi;
# 门子 kinds: dui (pair), dan_wai (单歪: one's own drawn winning card paired), eqs_menzi (two of
# 二七十), menzi (other two of a sentence). Melds: chi, peng, wai, liu, piao.
XI = {"kan": 1, "wai": 1, "peng": 1, "liu": 1, "piao": 1, "er_qi_shi": 1, "shunzi": 0,
      "dui": 1, "dan_wai": 1, "eqs_menzi": 1, "menzi": 0, "dan": 0}
MENZI_KINDS = frozenset({"dui", "dan_wai", "eqs_menzi", "menzi"})
SEQ_KINDS = frozenset({"shunzi", "er_qi_shi"})

# 息 of the 大胡 hand types (003 §胡牌胡型); baoting / haidi are ×4 multipliers.
TYPE_XI = {"tianhu": 200, "shidui": 200, "wuxi_ping": 50, "yidian_hong": 50, "shisan_hong": 50,
           "dazi_hu": 100, "xiaozi_hu": 100, "quanhei_hu": 100, "wudui_hu": 200, "duizi_xi": 100,
           "hanghang_xi": 50, "quanqiuren": 50, "hua_huzi": 100, "jiudui_ban": 200}
MULTIPLIER = {"baoting": 4, "haidi": 4}
# 起胡条件 does not bind these (003 §名词解析 5: 10对九对半、无息平(花胡子)为特殊牌型不受此限制).
EXEMPT = frozenset({"shidui", "jiudui_ban", "wuxi_ping", "hua_huzi"})
YING_XI = 5  # 【5硬息】 胡牌后硬息固定为5算分
BONUS = 5  # 坎 +5, 歪 +5, 溜 +5 (003 【5硬息】 ①②⑤); 单歪 按歪算分


def meld_xi(kind: str, cards: Sequence[int]) -> int:
    """息 of a meld on the table: 吃 of 二七十 1, other 吃 0; 碰/歪/溜/飘 1 (003 §息数和算分)."""
    if kind == "chi":
        return 1 if is_eqs(cards) else 0
    return XI[kind]


# Features of a concealed split that the scoring needs: (n_kan, n_wai, dan_wai, all_xi (every group
# but the 门子 has 息), any_xi (some group, 门子 included, has 息), has_seq, seq_all_red, menzi kind).
Feat = tuple[int, int, bool, bool, bool, bool, bool, str]
_EMPTY: Feat = (0, 0, False, True, False, False, True, "")


def _add(f: Feat, g: Group) -> Feat:
    n_kan, n_wai, dan_wai, all_xi, any_xi, has_seq, seq_red, menzi = f
    seq = g.kind in SEQ_KINDS
    is_menzi = g.kind in MENZI_KINDS
    return (n_kan + (g.kind == "kan"), n_wai + (g.kind == "wai"), dan_wai or g.kind == "dan_wai",
            all_xi and (g.points > 0 or is_menzi), any_xi or g.points > 0, has_seq or seq,
            seq_red and (not seq or any(c in RED for c in g.cards)), g.kind if is_menzi else menzi)


@lru_cache(maxsize=300_000)
def _splits(counts: tuple[int, ...], w: int, wmode: str, w_kan: bool, menzi: int,
            by_xi: bool = False) -> dict[tuple, tuple[Group, ...]]:
    """Every distinct feature set (:data:`Feat`) of a split of ``counts`` into groups plus ``menzi``
    门子, with one split (its groups) for each. Lowest kind first, memoised on the count vector.

    ``w``: kind of the winning card (-1: none); ``wmode``: ``self`` / ``flip`` / ``""``;
    ``w_kan``: the hand held three of ``w`` before it (so three of them are a dealt 坎);
    ``by_xi``: the split's total 息 is a ninth feature (for option ``qihu_xi``, which asks it).
    """
    i = next((k for k, c in enumerate(counts) if c), -1)
    if i < 0:
        return ({(*_EMPTY, 0) if by_xi else _EMPTY: ()}) if menzi == 0 else {}
    cand: list[tuple[Group, int]] = []
    if counts[i] >= 3:
        kind = "kan" if i != w or w_kan or not wmode else ("wai" if wmode == "self" else "peng")
        cand.append((Group(kind, (i,) * 3, 1), 0))
    for s in SENTENCES:
        if s[0] == i and counts[s[1]] and counts[s[2]]:
            kind = "er_qi_shi" if s in EQS else "shunzi"
            cand.append((Group(kind, s, XI[kind]), 0))
    if menzi:
        if counts[i] >= 2:
            kind = "dan_wai" if i == w and wmode == "self" else "dui"
            cand.append((Group(kind, (i, i), 1), 1))
        for j in range(i + 1, 20):
            if counts[j] and (i, j) in MENZI2:
                kind = "eqs_menzi" if is_eqs((i, j)) else "menzi"
                cand.append((Group(kind, (i, j), XI[kind]), 1))
    out: dict[tuple, tuple[Group, ...]] = {}
    for g, used in cand:
        rest = list(counts)
        for c in g.cards:
            rest[c] -= 1
        for f, groups in _splits(tuple(rest), w, wmode, w_kan, menzi - used, by_xi).items():
            f2 = (*_add(f[:8], g), f[8] + g.points) if by_xi else _add(f, g)
            if f2 not in out:
                out[f2] = (g, *groups)
    return out


def apply_exclusions(types: dict[str, int]) -> dict[str, int]:
    """Drop the types another one contains (003 §牌型说明: ①对子息不叠加行行息; ②乌对胡不叠加对子息和
    全黑胡; ③十对不叠加对子息). :param types: {id: 息}. :returns: a new dict."""
    out = dict(types)
    if "duizi_xi" in out or "wudui_hu" in out:  # 乌对胡 is a 对子息, so it drops 行行息 too
        out.pop("hanghang_xi", None)
    if "wudui_hu" in out:
        out.pop("duizi_xi", None)
        out.pop("quanhei_hu", None)
    if "shidui" in out:
        out.pop("duizi_xi", None)
    return out


@dataclass
class Win:
    """The scored best reading of a finished hand.

    :param ok: the hand is a win (shape and 起胡条件); :param reason: why not (None when ok).
    :param points: final 息 (= units of one losing share, before stake).
    :param hand_types: ids that applied (息 types, ``baoting``, ``haidi``, ``nei_yuan``, ``wai_yuan``, ``dan_wai``).
    :param type_xi: {hand type id: 息} of the 大胡 types counted.
    :param breakdown: ``xi`` (5 硬息 or the hand types' 息), ``kan``/``wai``/``liu``/``piao``/``dan_wai``
        (+5 bonuses), ``nei_yuan``/``wai_yuan``/``haidi``/``baoting`` (factors):
        points = (xi + bonuses) × factors.
    :param groups: melds first, then the concealed groups of the best split.
    :param shape: the cards form a winning shape (always True when ``ok``); a hand with a shape
        that is not a win (起胡条件, option ``qihu_xi``) carries the ``points`` and ``groups`` of its
        best refused reading, the points it would bring (spec §8 waits).
    """

    ok: bool
    reason: str | None
    points: int = 0
    hand_types: list[str] = field(default_factory=list)
    type_xi: dict[str, int] = field(default_factory=dict)
    breakdown: dict[str, int] = field(default_factory=dict)
    groups: tuple[Group, ...] = ()
    shape: bool = False


@dataclass(frozen=True)
class Context:
    """What the hand alone cannot tell: ``tianhu`` (the dealer's dealt hand), ``haidi`` (the winning
    card is the last card of the wall), ``baoting`` (报听 held, docs/rules §报听), ``dealt`` (the
    concealed hand is still the dealt one: the seat has discarded and claimed nothing; option
    ``jiudui_ban = dealt``), ``eaten`` (the kinds of the cards the seat took from other seats by
    吃 — a 吃's own two cards are the seat's: 003 §名词解析 2 起手4张(可以有牌参与去吃) is 内圆; None: not
    known, any kind in a 吃 may have been eaten)."""

    tianhu: bool = False
    haidi: bool = False
    baoting: bool = False
    dealt: bool = False
    eaten: frozenset[int] | None = None


def shape_ok(hand: Sequence[int], melds: Sequence[tuple[str, Sequence[int]]], w: int | None, wmode: str = "self") -> bool:
    """Whether hand + ``w`` is a winning shape (groups + one 门子, or 十对 / 九对半), ignoring 起胡条件."""
    return completes(hand, w, not melds)


# The sentences starting at each kind, and each kind's higher 门子 partners.
SENT_FROM = {i: tuple(s for s in SENTENCES if s[0] == i) for i in range(20)}
MENZI_UP = {i: tuple(j for j in range(i + 1, 20) if (i, j) in MENZI2) for i in range(20)}


@lru_cache(maxsize=65536)
def can_split(counts: tuple[int, ...], menzi: int) -> bool:
    """Whether ``counts`` split into 3-card groups (坎, a sentence) and exactly ``menzi`` 门子 (a pair,
    or two cards of a sentence): 003 §名词解析 1 单张, ⑥ ⑦ ⑧. The lowest kind held is in one of them.
    A group's kind (坎/歪/碰, 顺子/二七十) never changes whether a split exists."""
    i = next((k for k, c in enumerate(counts) if c), None)
    if i is None:
        return menzi == 0
    takes: list[tuple[int, ...]] = [(i, i, i)] if counts[i] >= 3 else []
    takes += [s for s in SENT_FROM[i] if counts[s[1]] and counts[s[2]]]
    if menzi:
        takes += [(i, i)] if counts[i] >= 2 else []
        takes += [(i, j) for j in MENZI_UP[i] if counts[j]]
    for t in takes:
        rest = list(counts)
        for k in t:
            rest[k] -= 1
        if can_split(tuple(rest), menzi - (len(t) == 2)):
            return True
    return False


def completes(hand: Sequence[int], w: int | None, no_melds: bool) -> bool:
    """Whether ``hand`` + ``w`` is a winning shape: groups and one 门子 (003 §名词解析 1), or, for a seat
    with no meld, 十对 / 九对半 (20 cards, 9 pairs at least: 003 §胡牌胡型); 起胡条件 aside."""
    counts = list(hand)
    if w is not None:
        counts[w] += 1
    if no_melds and sum(counts) == 20 and sum(c // 2 for c in counts) >= 9:
        return True
    return sum(counts) % 3 == 2 and can_split(tuple(counts), 1)


class HandShape:
    """The shape answers of one concealed hand: which cards complete it (:func:`completes`), and
    whether it waits on one (听). The state keeps one per hand while the hand stays the same."""

    def __init__(self, hand: Sequence[int]) -> None:
        self.hand = tuple(hand)

    def wins(self, w: int, no_melds: bool) -> bool:
        """:func:`completes` with card ``w``. :raises IndexError: ``w`` is no kind (0..19)."""
        if not 0 <= w < 20:
            raise IndexError(f"kind {w} is not one of 0..19")
        return completes(self.hand, w, no_melds)

    def waits(self, no_melds: bool, held: Sequence[int]) -> bool:
        """Whether some card not all four ``held`` (hand and melds) completes the shape (听)."""
        return any(held[k] < 4 and self.wins(k, no_melds) for k in range(20))


def _combine(types: dict[str, int], how: str) -> int:
    """息 of several 大胡 types together (option ``dahu_combine``; docs decision 2): ``sum``, ``max``
    or ``product`` (one type: its own 息 in every mode)."""
    if how == "sum":
        return sum(types.values())
    if how == "max":
        return max(types.values())
    out = 1
    for v in types.values():
        out *= v
    return out


def evaluate(hand: Sequence[int], melds: Sequence[tuple[str, Sequence[int]]], w: int | None, wmode: str,
             ctx: Context, rules: Ruleset) -> Win:
    """Score a finished hand: the reading (split, or 十对 / 九对半) with the most final 息.

    :param hand: count vector (20) of the concealed hand before the winning card.
    :param melds: ``(kind, cards)`` on the table: ``chi``, ``peng``, ``wai``, ``liu``, ``piao``.
    :param w: the winning card's kind; None for 天胡 or a 胡 right after one's own 歪 (the card is in the 歪).
    :param wmode: ``self`` (one's own flip) or ``flip`` (another seat's flip); ignored when ``w`` is None.
    :param ctx: :class:`Context`. :param rules: the ruleset (options.py).
    :returns: :class:`Win` (``ok`` False with a ``reason`` when it is not a win; with ``shape``
        True, the points and groups of the best refused reading). Sources: module doc.
    """
    counts = list(hand)
    if w is not None:
        counts[w] += 1
    else:
        wmode = ""
    held = counts.copy()
    for _, cards in melds:
        for k in cards:
            held[k] += 1
    table = tuple(Group(k, tuple(c), meld_xi(k, c), "table") for k, c in melds)
    table_xi = sum(g.points for g in table)
    red = sum(held[k] for k in RED)
    kinds = [k for k in range(20) if held[k]]
    # 圆: all four of a kind held. 外圆 when a copy came by 吃/碰/飘 (有吃、碰变成4张或飘: the card
    # eaten, not the seat's own two) or is another seat's flipped winning card; else 内圆 (003 §名词解析 2. 圆).
    ext = {k for kind, cards in melds if kind in ("peng", "piao") for k in cards}
    ext |= {k for kind, cards in melds if kind == "chi" for k in cards} if ctx.eaten is None else ctx.eaten
    if w is not None and wmode == "flip":
        ext.add(w)
    yuan = [k for k in range(20) if held[k] == 4]
    n_wai_yuan = sum(k in ext for k in yuan)
    n_nei_yuan = len(yuan) - n_wai_yuan
    m_wai = sum(k == "wai" for k, _ in melds)
    m_liu = sum(k == "liu" for k, _ in melds)
    m_piao = sum(k == "piao" for k, _ in melds)
    m_all_xi = all(g.points > 0 for g in table)
    has_chi = any(k == "chi" for k, _ in melds)
    quanqiuren = w is not None and sum(hand) == 1  # 003 §胡牌胡型 13: 手里剩一张后胡牌
    min_xi = rules["qihu_xi"]
    wuxi_higher = rules["wuxi_ping"] == "higher"

    def common(types: dict[str, int]) -> None:
        if ctx.tianhu:
            types["tianhu"] = TYPE_XI["tianhu"]
        if red == 1:
            types["yidian_hong"] = TYPE_XI["yidian_hong"]
        if red >= 13:  # 13红1*50, 14红2*50, 15红4*50
            types["shisan_hong"] = TYPE_XI["shisan_hong"] * 2 ** (red - 13)
        if all(k >= 10 for k in kinds):
            types["dazi_hu"] = TYPE_XI["dazi_hu"]
        if all(k < 10 for k in kinds):
            types["xiaozi_hu"] = TYPE_XI["xiaozi_hu"]
        if red == 0:
            types["quanhei_hu"] = TYPE_XI["quanhei_hu"]
        if quanqiuren:
            types["quanqiuren"] = TYPE_XI["quanqiuren"]

    # readings: types, groups, n_kan, n_wai, dan_wai, total 息 of the groups (melds and 门子 included),
    # and why the reading is barred whatever it scores (None: it is not)
    readings: list[tuple[dict[str, int], tuple[Group, ...], int, int, bool, int, str | None]] = []
    if sum(counts) % 3 == 2:
        feats = _splits(tuple(counts), -1 if w is None else w, wmode, w is not None and hand[w] >= 3, 1, min_xi > 0)
        for f, groups in feats.items():
            n_kan, n_wai, dan_wai, all_xi, any_xi, has_seq, seq_red, menzi = f[:8]
            types: dict[str, int] = {}
            other: dict[str, int] = {}
            if not any_xi and not melds:
                # 无息平: 一息没有形成成牌牌型, 有吃则不能胡; 允许胡牌不能叠加牌型. 花胡子 on top of it.
                t = "hua_huzi" if seq_red else "wuxi_ping"
                types[t] = TYPE_XI[t]
                if wuxi_higher:  # option wuxi_ping = higher: the same split may instead be read as the
                    common(other)  # other types it is (大字胡, 全黑胡, …), never together with 无息平 (decision 18)
            else:
                common(types)
                if all_xi and m_all_xi and (XI[menzi] > 0 or not rules["hanghang_with_menzi"]):
                    types["hanghang_xi"] = TYPE_XI["hanghang_xi"]
                if not has_seq and not has_chi and menzi in ("dui", "dan_wai"):  # 全为碰、坎、歪、溜+1对子
                    types["duizi_xi"] = TYPE_XI["duizi_xi"]
                    if red == 0:
                        types["wudui_hu"] = TYPE_XI["wudui_hu"]  # 碰碰胡且没有红字
            readings.append((types, groups, n_kan, n_wai, dan_wai, table_xi + (f[8] if min_xi else 0), None))
            if other:  # after 无息平: an equal score stays 无息平 (花胡子)
                readings.append((other, groups, n_kan, n_wai, dan_wai, table_xi + (f[8] if min_xi else 0), None))
    if not melds and sum(counts) == 20:  # 十对 / 九对半: 不用成牌
        pairs = sum(c // 2 for c in counts)
        if pairs >= 9:
            t = "shidui" if pairs == 10 else "jiudui_ban"
            types = {t: TYPE_XI[t]}
            common(types)
            groups = tuple(Group("dui", (k, k), 1) for k in range(20) for _ in range(counts[k] // 2))
            groups += tuple(Group("dan", (k,), 0) for k in range(20) if counts[k] % 2)
            late = t == "jiudui_ban" and rules["jiudui_ban"] == "dealt" and not (ctx.dealt or ctx.tianhu)
            readings.append((types, groups, 0, 0, False, 0, "九对半 wins only on the dealt hand (jiudui_ban=dealt; "
                             "003 §胡牌胡型 16)" if late else None))
    if not readings:
        return Win(False, "the cards do not all form groups but one 门子 (nor 十对 / 九对半)")
    best: Win | None = None
    refused: Win | None = None  # the best reading that is a shape but not a win
    if rules["yuan_stack"] == "each":
        fn, fw = 4 ** n_nei_yuan, 2 ** n_wai_yuan
    else:
        fn, fw = 4 if n_nei_yuan else 1, 2 if n_wai_yuan else 1
    fh = MULTIPLIER["haidi"] if ctx.haidi else 1
    fb = MULTIPLIER["baoting"] if ctx.baoting else 1
    cap = rules["xi_cap"]
    for types, groups, n_kan, n_wai, dan_wai, total_xi, barred in readings:
        types = apply_exclusions(types)
        kan, wai = BONUS * n_kan, BONUS * (n_wai + m_wai)
        liu, piao = BONUS * m_liu, rules["piao_bonus"] * m_piao
        dw = BONUS if dan_wai else 0
        qihu = bool(n_kan or n_wai or m_wai or m_liu or dan_wai or yuan) or ctx.haidi or ctx.baoting
        exempt = bool(EXEMPT & set(types))
        why = barred
        if why:
            pass
        elif types and rules["qihu_scope"] == "all" and not exempt and not qihu:
            why = "起胡条件: no 坎, 歪, 圆 or 单歪, and not 海底 or 报听 (qihu_scope=all binds 大胡 too)"
        elif not types and not qihu:
            why = "起胡条件: a 小胡 needs a 坎, 歪, 内圆, 外圆 or 单歪, else only 海底 or 报听 (003 §名词解析 5)"
        elif min_xi and not exempt and total_xi < min_xi:
            why = f"the groups hold {total_xi} 息, under the {min_xi} 息 a win needs (qihu_xi={min_xi}; 003 §胡牌胡型 3)"
        xi = _combine(types, rules["dahu_combine"]) if types else YING_XI
        pts = (xi + kan + wai + liu + piao + dw) * fn * fw * fh * fb
        bd = {"xi": xi, "kan": kan, "wai": wai, "liu": liu, "piao": piao, "dan_wai": dw,
              "nei_yuan": fn, "wai_yuan": fw, "haidi": fh, "baoting": fb}
        if cap and pts > cap:  # option xi_cap: the final 息 stops there (breakdown says so)
            pts, bd["cap"] = cap, cap
        top = refused if why else best
        if top is not None and pts <= top.points:
            continue
        ids = list(types)
        ids += [t for t, on in (("baoting", ctx.baoting), ("haidi", ctx.haidi), ("nei_yuan", n_nei_yuan),
                                ("wai_yuan", n_wai_yuan), ("dan_wai", dan_wai)) if on]
        win = Win(why is None, why, pts, ids, dict(types), bd, table + groups, True)
        if why:
            refused = win
        else:
            best = win
    if best is not None:
        return best
    assert refused is not None
    return refused


def lipai(counts: Sequence[int]) -> list[list[str]]:
    """The seed's 理牌 layout of a hand (003 §理牌功能&起始): fours, threes, pairs, then sentences;
    then the left cards that could make a sentence, two a column (如35); then singles, two a
    column; columns ordered by their bottom (lowest) card, 小 一..十 then 大 壹..拾.

    :param counts: count vector (20). :returns: columns of canonical codes.
    """
    left = list(counts)
    cols: list[tuple[int, ...]] = []
    for n in (4, 3, 2):
        for k in range(20):
            if left[k] == n:
                cols.append((k,) * n)
                left[k] = 0
    for s in SENTENCES:  # lowest first (the tuple is sorted by its first card within each size)
        while all(left[c] for c in s):
            for c in s:
                left[c] -= 1
            cols.append(s)
    for k in range(20):
        for j in range(k + 1, 20):
            while left[k] and left[j] and (k, j) in MENZI2:
                left[k] -= 1
                left[j] -= 1
                cols.append((k, j))
    singles = [k for k in range(20) for _ in range(left[k])]
    cols += [tuple(singles[i:i + 2]) for i in range(0, len(singles), 2)]
    cols.sort(key=lambda c: (min(c), c))
    return [ZIPAI.codes_of(sorted(c)) for c in cols]


def refusal_detail(r: Win) -> dict[str, Any] | None:
    """``RuleViolation.detail`` of a refused 胡 (replay/judge.py): the points and groups of the
    hand's best reading when its cards form a shape (``{"points", "groups"}``), else None."""
    return {"points": r.points, "groups": groups_json(r.groups, ZIPAI)} if r.shape else None
