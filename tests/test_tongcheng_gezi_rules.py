"""Known-answer tests of 通城個子牌 scoring, worked out by hand from the seed, not from the code.

Seed: 000_b93a380aaaa9b6e3.txt ("000 §section"); decisions quoted from docs/rules/tongcheng_gezi.md.
Every expected number is derived in the comment beside it. 個子 per card (000 §計胡規則):
花乙 花九 1, 素乙 素九 0, 花三 花七 2, 素三 素七 1, 花五 4, 素五 2. Red characters: 上大人可知禮三五七.
"""

from __future__ import annotations

import itertools
import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from replay.cards import HUAPAI
from replay.score import score_case
from replay.variants.tongcheng_gezi import scoring as sc

V = "tongcheng_gezi"


def K(cards) -> list[int]:
    return HUAPAI.counts(list(cards))


def kinds(cards) -> list[int]:
    return [HUAPAI.index(c) for c in cards]


def judge(cards, melds=(), players=4, **kw):
    return sc.judge(K(cards), [(k, kinds(c)) for k, c in melds], sc.HandRules(players=players, **kw))


def case(hand, win_card=..., melds=(), win_from="discard", context=None, **rules):
    c = {"variant": V, "rules": rules, "hand": list(hand), "melds": [{"kind": k, "cards": list(m)} for k, m in melds],
         "win_from": win_from}
    if context is not None:
        c["context"] = context
    if win_card is not ...:
        c["win_card"] = win_card
    return score_case(c)


# -- 個子 of each card (000 §計胡規則) ---------------------------------------------------------
CARD_WANT = {"花乙": 1, "乙": 0, "花九": 1, "九": 0, "花三": 2, "花七": 2, "三": 1, "七": 1, "花五": 4, "五": 2}


@pytest.mark.parametrize("code", HUAPAI.codes)
def test_card_gezi(code):
    assert sc.card_gezi(HUAPAI.index(code)) == CARD_WANT.get(code, 0)


def test_deck_holds_ten_flowered_gezi_cards():
    # 000 §遊戲介紹: 乙三五七九 五個字10張 個子牌 (two 花 copies of each of five characters)
    assert sum(HUAPAI.copies[k] for k in range(len(HUAPAI.codes)) if sc.FLOWER[k]) == 10


# -- 個子 of groups: bonus by red/black plus the cards' own ----------------------------------------
@pytest.mark.parametrize("kind, cards, want", [
    ("kan", "上上上", 2),                 # red 坎 2, no 個子 cards
    ("kan", "五五五", 8),                 # red 坎 2 + 3×素五 2 = 8 (the task's example)
    ("kan", ["花五", "花五", "五"], 12),   # 2 + 4 + 4 + 2
    ("kan", ["三", "三", "花三"], 6),      # 2 + 1 + 1 + 2
    ("kan", "孔孔孔", 1),                 # black 坎 1
    ("kan", "乙乙乙", 1),                 # black, 素乙 0 each
    ("kan", ["九", "九", "花九"], 2),      # black 1 + 花九 1
    ("peng", "禮禮禮", 2),                # 碰 counted as a 坎 (decision 3)
    ("peng", ["七", "花七", "花七"], 7),   # 2 + 1 + 2 + 2
    ("peng", "八八八", 1),
    ("zhao", "大大大大", 4),              # red 招 4
    ("zhao", ["七", "七", "七", "花七"], 9),  # 4 + 1+1+1 + 2
    ("zhao", "子子子子", 2),              # black 招 2
    ("zhao", ["乙", "乙", "乙", "花乙"], 3),  # 2 + 1
    ("guan_sheng", "人人人人", 4),        # 觀生 as 招
    ("guan_sheng", ["五", "五", "花五", "花五"], 16),  # 4 + 2+2+4+4
    ("guan_sheng", "十十十十", 2),
    ("guan_sheng", ["九", "九", "花九", "花九"], 4),   # 2 + 1 + 1
    ("hua", "可可可可可", 8),             # red 滑 8
    ("hua", ["三", "三", "三", "花三", "花三"], 15),   # 8 + 3 + 4
    ("hua", "六六六六六", 3),             # black 滑 3
    ("hua", ["九", "九", "九", "花九", "花九"], 5),    # 3 + 2
    ("ju", "上大人", 1),                  # red 句 1
    ("ju", "可知禮", 1),
    ("ju", "孔乙己", 0),                  # black 句 0
    ("ju", ["孔", "花乙", "己"], 1),       # black 句 with 花乙 counts only it
    ("ju", ["八", "花九", "子"], 1),
    ("ju", "化三千", 1),                  # mixed 句: 0 + 素三 1
    ("ju", ["化", "花三", "千"], 2),
    ("ju", "三四五", 3),                  # 0 + 1 + 2
    ("ju", ["花三", "四", "花五"], 6),     # 0 + 2 + 4
    ("ju", "乙二三", 1),                  # 乙 as 一
    ("ju", "五六七", 3),
    ("ju", "七十士", 1),
    ("ban_ju", "五七", 3),               # 半句 adds nothing; cards keep their own (decision 4)
])
def test_group_gezi(kind, cards, want):
    assert sc.group_gezi(kind, kinds(cards)) == want


@pytest.mark.parametrize("chars, yes", [
    ("上大人", True), ("孔乙己", True), ("可知禮", True), ("化三千", True), ("七十士", True), ("八九子", True),
    ("乙二三", True), ("八九十", True), ("四五六", True), ("乙三五", False), ("上大己", False), ("九十士", False),
])
def test_ju_shapes(chars, yes):
    assert sc.is_ju([sc.CHAR_OF[HUAPAI.index(c)] for c in chars]) is yes


# -- thresholds: 7 with four players, 9 with three (000 §胡牌規則) ---------------------------------
# 上大人 1 + 可知禮 1 + 孔乙己 0 + 八九子 0 + 七十士 (七 1) + 二三四 (三 1) = 4; 半句 五七 (五六七): 2 + 1.
SEVEN = "上大人可知禮孔乙己八九子七十士二三四五七"
# same with 半句 五六 (四五六): 4 + 2 = 6 (四五六 + 二三 gives the same).
SIX = "上大人可知禮孔乙己八九子七十士二三四五六"
# 上大人 1 + 可知禮 1 + 孔乙己 0 + 八九子 0 + 七十士 1 + 三四五 3 = 6; 半句 五七 3 → 9.
NINE = "上大人可知禮孔乙己八九子七十士三四五五七"
# 6 as above; 半句 五六 (2) → 8 (四五六 + 半句 三五 gives the same).
EIGHT = "上大人可知禮孔乙己八九子七十士三四五五六"


@pytest.mark.parametrize("cards, players, points, win", [
    (SEVEN, 4, 7, True), (SIX, 4, 6, False), (NINE, 3, 9, True), (EIGHT, 3, 8, False), (EIGHT, 4, 8, True),
])
def test_minimum_at_and_under(cards, players, points, win):
    j = judge(cards, players=players)
    assert (j.points, j.win) == (points, win)
    if not win:
        assert "minimum" in j.reason


def test_best_split_takes_the_red_kan():
    # 三 ×3 and 花三: 化三千 + 半句 三花三 gives 7, but 坎 三三三 (2 + 1+1+1... with 花三) + 半句 化千
    # gives cards 5 (三 1+1+1, 花三 2) + 上大人 1 + 可知禮 1 + red 坎 2 = 9.
    j = judge(["上", "大", "人", "可", "知", "禮", "孔", "乙", "己", "八", "九", "子", "化", "三", "千",
               "七", "十", "士", "三", "花三"])
    assert j.points == 9 and j.from_cards == 5 and j.from_melds == 4
    assert sorted(g.kind for g in j.groups) == ["ban_ju", "ju", "ju", "ju", "ju", "ju", "kan"]


def test_incomplete_shape_is_no_win():
    j = judge("上大人可知禮孔乙己八九子七十士二三四五上")  # 五 and 上 belong to no 句 together
    assert not j.win and j.points is None and "六句半" in j.reason


# -- 分: ⌊個子/7⌋ (000 §計分規則: 7 → 1, 14 → 2, 21 → 3) -------------------------------------------
# peng 五五花五 = 2 + 2 + 2 + 4 = 10; concealed 上大人 1, 可知禮 1, 孔乙己 0, 八九子 0, 七十士 1, 半句 二三 1 → 14.
FOURTEEN = ("上大人可知禮孔乙己八九子七十士二", "三", [("peng", ["五", "五", "花五"])])
# peng 花五花五五 = 12; 上大人 1, 可知禮 1, 孔花乙己 1, 八花九子 1, 五六七 3, 半句 二花三 2 → 21.
TWENTY_ONE = (["上", "大", "人", "可", "知", "禮", "孔", "花乙", "己", "八", "花九", "子", "五", "六", "七", "二"], "花三",
              [("peng", ["花五", "花五", "五"])])


@pytest.mark.parametrize("hand, win, melds, points, units", [(*FOURTEEN, 14, 2), (*TWENTY_ONE, 21, 3),
                                                              (SEVEN[:-1], SEVEN[-1], [], 7, 1)])
def test_fen_is_gezi_over_seven(hand, win, melds, points, units):
    out = case(hand, win, melds)
    assert out["win"] and out["points"] == points and out["units"] == units and out["hand_types"] == []


def test_zimo_units_one_share_or_triple():
    assert case(*FOURTEEN[:2], FOURTEEN[2], win_from="self")["units"] == 2  # 每人出一份 (default)
    out = case(*FOURTEEN[:2], FOURTEEN[2], win_from="self", zimo_pay="triple")
    assert out["units"] == 6 and out["hand_types"] == ["zimo"]


# -- special hands need no 個子 (000 §胡牌規則) ----------------------------------------------------
# 一手黑: 孔乙己 0, 八九子 0, 坎 化化化 1, 坎 千千千 1, 坎 二二二 1, 坎 六六六 1, 半句 四四 → 4 個子 < 7;
# ×3 × max(1, 0) = 3.
HEI = "孔乙己八九子化化化千千千二二二六六六四四"
# 十對: ten pairs of black cards without 個子 → 0 個子; ×2 × 1 = 2.
SHIDUI = "孔孔乙乙己己化化千千十十士士八八子子二二"


def test_yishou_hei_under_minimum():
    j = judge(HEI)
    assert (j.win, j.special, j.points, j.units) == (True, "yishou_hei", 4, 3)
    assert judge(HEI, special_base="one").units == 3


def test_shidui_under_minimum():
    j = judge(SHIDUI)
    assert (j.win, j.special, j.points, j.units) == (True, "shidui", 0, 2)
    assert sorted(g.kind for g in j.groups) == ["dui"] * 10


def test_shidui_four_of_a_kind_option():
    four = "孔孔孔孔己己化化千千十十士士八八子子二二"  # 孔 ×4 = two 對子 under the default
    assert judge(four).special == "shidui"
    assert not judge(four, shidui_four="no").win


def test_shidui_needs_no_melds():
    j = judge("孔孔乙乙己己化化千千十十士士八八子", melds=[("peng", "二二二")])
    assert not j.win


def test_yishou_hong_minimum_is_nine_and_scores_ten():
    # Exhaustive over the six red characters without 個子 (上大人可知禮), 20 cards: the best split of
    # an 一手紅 never holds under 9 個子 (red 句 1, red 坎 2) — so it is never under the minimum.
    chars = "上大人可知禮"
    low = None
    for cnt in itertools.product(range(6), repeat=6):
        if sum(cnt) != 20:
            continue
        j = judge([c for c, n in zip(chars, cnt) for _ in range(n)])
        if j.special == "yishou_hong" and (low is None or j.points < low[0]):
            low = (j.points, cnt)
    assert low is not None and low[0] == 9
    # 上 大大 人人 可×5 知×5 禮×5: 坎可 坎知 坎禮 (6) + 可知禮 ×2 (2) + 上大人 (1) + 半句 大人 = 9;
    # 一手紅 ×10 × max(1, 9 // 7 = 1) = 10, at 3 players too.
    j = judge("上大大人人可可可可可知知知知知禮禮禮禮禮", players=3)
    assert (j.special, j.points, j.units) == ("yishou_hong", 9, 10)


def test_special_base_max1_uses_fen():
    # 十對 of 花五花五 五五 三三 七七 …: 4+4 + 2+2 + 1+1 + 1+1 = 16 → ⌊16/7⌋ = 2 分 × 2 = 4 (max1); 2 (one).
    hand = ["花五", "花五", "五", "五", "三", "三", "七", "七", "孔", "孔", "己", "己", "化", "化", "千", "千", "十", "十", "士", "士"]
    assert judge(hand).special == "shidui" and judge(hand).points == 16 and judge(hand).units == 4
    assert judge(hand, special_base="one").units == 2


# -- score cases (spec §8) -------------------------------------------------------------------------
def test_score_case_groups_and_melds():
    out = case(*FOURTEEN[:2], FOURTEEN[2])
    assert {"kind": "peng", "cards": ["五", "五", "花五"], "points": 10} in out["groups"]
    assert sum(g["points"] for g in out["groups"]) == 14 and out["reason"] is None


def test_score_case_waits():
    # SEVEN less 七: 上大人 可知禮 孔乙己 八九子 七十士 二三四 + 五 waits (hand-worked):
    # 乙 → 乙二三 + 半句 四五: 1+1+0+0+1+1 + 2 = 6; 花乙 → 7; 三 → 二三四 + 半句 三五: 7; 花三 → 8;
    # 七 → 半句 五七: 7; 花七 → 8; 二 → 半句 二二 + 三四五: 6; 四 → 三四五 + 半句 二四: 6;
    # 五 → 半句 五五: 8; 花五 → 10; 六 → 四五六 + 半句 二三: 6.
    out = case(SEVEN[:-1])
    assert out == {"waits": [
        {"card": "乙", "points": 6, "win": False}, {"card": "花乙", "points": 7, "win": True},
        {"card": "三", "points": 7, "win": True}, {"card": "花三", "points": 8, "win": True},
        {"card": "七", "points": 7, "win": True}, {"card": "花七", "points": 8, "win": True},
        {"card": "二", "points": 6, "win": False}, {"card": "四", "points": 6, "win": False},
        {"card": "五", "points": 8, "win": True}, {"card": "花五", "points": 10, "win": True},
        {"card": "六", "points": 6, "win": False}]}
    # with three players the minimum is 9: only 花五 (10) wins.
    assert [w["card"] for w in case(SEVEN[:-1], players=3)["waits"] if w["win"]] == ["花五"]


def test_score_case_tianhu_and_errors():
    out = case(SEVEN, None)
    assert out["win"] and out["hand_types"] == ["tianhu"] and out["units"] == 1
    assert "error" in case("上上上上上上", "上")
    assert "error" in case("上大", "人", melds=[("peng", "上上")])
    assert "error" in case("上大", "人", win_from="flip")
    assert not case(SIX[:-1], SIX[-1])["win"]
    refused = case(SEVEN, None, tian_hu="refused")  # the same dealt hand, 天胡 not played (decision 7)
    assert refused["win"] is False and "tian_hu" in json.dumps(refused, ensure_ascii=False)


def test_score_case_kan_meld_joins_the_hand():
    out = case("上大人可知禮孔乙己八九子七十士五", "七", melds=[("kan", "二二二")])
    # 坎 二二二 black 1 replaces 二三四 → 1+1+0+0+1 + 1 + 半句 五七 3 = 7.
    assert out["win"] and out["points"] == 7


# -- independent check of the split and order-freedom ---------------------------------------------
def _naive_best(cards: list[int], half: int = 1) -> int | None:
    """Brute force over card lists (not count vectors): take the first card, try every group with it."""
    if not cards:
        return 0 if half == 0 else None
    a, rest = cards[0], cards[1:]
    best = None
    ca = sc.CHAR_OF[a]
    opts = []
    for i, j in itertools.combinations(range(len(rest)), 2):
        chars = (ca, sc.CHAR_OF[rest[i]], sc.CHAR_OF[rest[j]])
        if len(set(chars)) == 1:
            opts.append(("kan", (i, j)))
        elif sc.is_ju(chars):
            opts.append(("ju", (i, j)))
    if half:
        for i in range(len(rest)):
            cb = sc.CHAR_OF[rest[i]]
            if cb == ca or any(ca in j and cb in j for j in sc.JU):
                opts.append(("ban_ju", (i,)))
    for kind, idx in opts:
        used = [a] + [rest[i] for i in idx]
        left = [c for i, c in enumerate(rest) if i not in idx]
        sub = _naive_best(left, half - (kind == "ban_ju"))
        if sub is not None:
            v = sc.group_gezi(kind, used) + sub
            best = v if best is None or v > best else best
    return best


def _random_hand(rng: random.Random) -> list[int]:
    """A hand built from random groups (so that it often completes), then sometimes one card changed."""
    deck = list(HUAPAI.copies)
    out: list[int] = []

    def take(chars):
        ks = []
        for ch in chars:
            opts = [k for k in sc.KINDS_OF[ch] if deck[k] > 0]
            if not opts:
                return False
            k = rng.choice(opts)
            deck[k] -= 1
            ks.append(k)
        out.extend(ks)
        return True

    while len(out) < 18:
        if rng.random() < 0.3:
            ch = rng.randrange(sc.N_CHARS)
            take((ch, ch, ch))
        else:
            take(rng.choice(sc.JU))
    out = out[:18]
    ch = rng.randrange(sc.N_CHARS)
    take((ch, ch) if rng.random() < 0.5 else rng.choice([(a, b) for j in sc.JU for a in j for b in j if a < b]))
    if rng.random() < 0.3:
        out[rng.randrange(len(out))] = rng.randrange(sc.N_KINDS)
    return out[:20]


def test_split_matches_brute_force():
    rng = random.Random(7)
    for _ in range(25):
        hand = _random_hand(rng)
        if len(hand) != 20:
            continue
        j = sc.judge(HUAPAI.counts([HUAPAI.codes[k] for k in hand]), [])
        naive = _naive_best(sorted(hand, key=lambda k: sc.CHAR_OF[k]))
        assert (j.points if j.points is not None else None) == naive


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.randoms(use_true_random=False))
def test_card_order_never_changes_a_score(seed, rnd):
    hand = _random_hand(random.Random(seed))
    codes = [HUAPAI.codes[k] for k in hand]
    win, rest = codes[-1], codes[:-1]
    base = case(rest, win)
    shuffled = list(rest)
    rnd.shuffle(shuffled)
    assert case(shuffled, win) == base
    assert case(list(reversed(rest)), win) == base


def test_may_win_never_hides_a_win():
    """``may_win`` is only a shortcut: on 3,000 hands built as 六句半 (some groups laid as 碰),
    十對, and the same with one card swapped, it says True wherever ``judge`` finds a win, and
    rules out most of the broken ones; its split test agrees with ``_best`` on every hand."""
    import random

    from replay.variants.tongcheng_gezi import scoring as gsc

    rng = random.Random(5)
    ju = [j for js in gsc.JU_FROM for j in js]
    wins = ruled_out = 0
    for n in range(3000):
        c = [0] * len(gsc.CHAR_OF)
        melds: list[tuple[str, list[int]]] = []
        if n % 3 == 0:  # 十對
            for ch in rng.sample(range(gsc.N_CHARS), 10):
                c[gsc.KINDS_OF[ch][0]] += 2
        else:
            for g in range(6):
                if rng.random() < 0.3:
                    ch = rng.randrange(gsc.N_CHARS)
                    cards = [gsc.KINDS_OF[ch][0]] * 3
                    if g < 2 and rng.random() < 0.5:
                        melds.append(("peng", cards))
                        continue
                else:
                    cards = [gsc.KINDS_OF[x][0] for x in rng.choice(ju)]
                for k in cards:
                    c[k] += 1
            ch = rng.randrange(gsc.N_CHARS)
            for x in (ch, ch) if rng.random() < 0.5 or not gsc.HALF_PARTNERS[ch] else (ch, gsc.HALF_PARTNERS[ch][0]):
                c[gsc.KINDS_OF[x][0]] += 1
        if n % 2:  # a near miss: one card swapped
            k = rng.choice([k for k, x in enumerate(c) if x])
            c[k] -= 1
            c[rng.randrange(len(c))] += 1
        if max(c) > 4:
            continue
        j = gsc.judge(c, melds)
        wins += j.win
        cc = gsc.chars_of(c)  # the existence search agrees with the best-split search
        assert gsc._can_split(bytes(cc), 1) is (gsc._best(tuple(cc), 1) is not None)
        if not gsc.may_win(c, melds):
            ruled_out += 1
            assert not j.win, (c, melds)
    assert wins > 500 and ruled_out > 400, (wins, ruled_out)


# -- 觀生 with several fours (000 §操作規則 觀生: 玩家可以折散兩組四個牌中任意一組牌) -----------------------
# A hand after 觀生 孔×4 and a kept 八: 上×4 乙乙乙花乙 己×4 五×3 八, winning on a 九 discard.
# 孔 fixed: 上×4 has no split (上 is in 上大人 only). 上×4 as the 觀生 (red 4) and 孔 split: 孔花乙己 1 +
# 坎 孔孔孔 1 + 坎 乙乙乙 1 + 坎 己己己 1 + 坎 五五五 2 + 3×2 = 8 + 半句 八九 0 → 16 個子 → 2 分.
GS_HAND = ["上"] * 4 + ["乙", "乙", "乙", "花乙"] + ["己"] * 4 + ["五"] * 3 + ["八"]
GS_MELD = [("guan_sheng", ["孔"] * 4)]


def test_guan_sheng_choice_score_case():
    out = case(GS_HAND, "九", GS_MELD)
    assert (out["win"], out["points"], out["units"], out["hand_types"]) == (True, 16, 2, [])
    assert {"kind": "guan_sheng", "cards": ["上"] * 4, "points": 4} in out["groups"]
    assert sorted(g["kind"] for g in out["groups"]) == ["ban_ju", "guan_sheng", "ju", "kan", "kan", "kan", "kan"]
    # 自摸 on the 九: each other seat pays one share (decision 10), 2 分 each.
    assert case(GS_HAND, "九", GS_MELD, win_from="self")["units"] == 2


def test_guan_sheng_choice_never_takes_a_jian_card_or_the_discard():
    # one 上 撿ed: 上×4 may not be a 觀生 (a 撿 card never joins identical cards to 觀生) → no shape.
    out = case(GS_HAND, "九", GS_MELD, context={"jian": ["上"]})
    assert (out["win"], out["points"]) == (False, None) and "六句半" in out["reason"]
    # 上×3 in hand and the fourth 上 won on a discard: that four was never the seat's own (自己摸起來),
    # so 孔 stays the 觀生 and 上×4 has no split; drawn (自摸), it is: 16 個子 as above with 九 kept.
    hand = ["上"] * 3 + ["乙", "乙", "乙", "花乙"] + ["己"] * 4 + ["五"] * 3 + ["八", "九"]
    assert not case(hand, "上", GS_MELD)["win"]
    out = case(hand, "上", GS_MELD, win_from="self")
    assert (out["win"], out["points"], out["hand_types"]) == (True, 16, ["zimo"])


def test_guan_sheng_choice_keeps_the_declared_set_on_a_tie():
    # two fours, both black with no 個子 cards (孔 declared, 化 in hand): either as the 觀生 is worth 2;
    # the declared one is kept. 化×4 → 坎 化化化 + 化三千 with 三 千 in hand.
    hand = ["化"] * 4 + ["三", "千", "上", "大", "人", "可", "知", "禮", "七", "十", "士", "二"]
    out = case(hand, "二", GS_MELD)
    # 觀生 孔 2 + 坎 化化化 1 + 化三千 1 + 上大人 1 + 可知禮 1 + 七十士 1 + 半句 二二 0 = 7 → 1 分.
    assert (out["win"], out["points"]) == (True, 7)
    assert {"kind": "guan_sheng", "cards": ["孔"] * 4, "points": 2} in out["groups"]


# -- rule options: both values, worked out by hand ------------------------------------------------------
# jian_kan: 上大人 1 可知禮 1 孔乙己 0 八九子 0 七十士 1 坎 五五五 8 半句 二三 1 = 12 → 1 分; with one 五 撿ed and
# jian_kan = refused the 五s cannot make the 坎 and have no 句 (no 四 or 六) → no 六句半.
JK_HAND = list("上大人可知禮孔乙己八九子七十士五五五二")


def test_option_jian_kan():
    assert case(JK_HAND, "三", context={"jian": ["五"]})["points"] == 12
    out = case(JK_HAND, "三", context={"jian": ["五"]}, jian_kan="refused")
    assert (out["win"], out["points"]) == (False, None)
    assert case(JK_HAND, "三", jian_kan="refused")["points"] == 12  # no 撿 card: nothing changes
    # the 半句 pair: 二三四 + 五五 (8 個子) with the 五 held 撿ed, winning on the other 五.
    pair = list("上大人可知禮孔乙己八九子七十士二三四五")
    assert case(pair, "五", context={"jian": ["五"]})["points"] == 8
    assert not case(pair, "五", context={"jian": ["五"]}, jian_kan="refused")["win"]
    # 十對 with a 撿 card in a pair: allowed 2 (十對 ×2 × max(1, 0)); refused: no win.
    assert case(SHIDUI[:-1], SHIDUI[-1], context={"jian": ["孔"]})["units"] == 2
    assert not case(SHIDUI[:-1], SHIDUI[-1], context={"jian": ["孔"]}, jian_kan="refused")["win"]


def test_option_jian_kan_places_the_jian_card_in_a_ju():
    # 五 五 五 花五 with one 五 撿ed: refused still wins, the 撿 五 in 三四五 and the others a 坎.
    # 上大人 1 可知禮 1 孔乙己 0 八九子 0 三四五 1+2 = 3, 坎 五五花五 2 + 2+2+4 = 10, 半句 七七 2 → 17 → 2 分.
    hand = [*"上大人可知禮孔乙己八九子三四五五五", "花五", "七"]
    for v in ("allowed", "refused"):
        out = case(hand, "七", context={"jian": ["五"]}, jian_kan=v)
        assert (out["win"], out["points"], out["units"]) == (True, 17, 2)


def test_option_peng_gezi():
    # FOURTEEN: 碰 五五花五 = 2 + 8 = 10 (kan) or 1 + 8 = 9 (low) → 14 → 2 分, or 13 → 1 分.
    assert (case(*FOURTEEN)["points"], case(*FOURTEEN)["units"]) == (14, 2)
    out = case(*FOURTEEN, peng_gezi="low")
    assert (out["points"], out["units"]) == (13, 1)
    assert {"kind": "peng", "cards": ["五", "五", "花五"], "points": 9} in out["groups"]
    assert sc.group_gezi("peng", kinds("八八八"), sc.HandRules(peng_gezi="low")) == 0  # black 碰 0


# win_triple: 上大人 1 可知禮 1 孔乙己 0 八九子 0 七十士 1 + 坎 五花五 + 五 (the discard) 10 + 半句 二三 1 = 14.
WT_HAND = ["上", "大", "人", "可", "知", "禮", "孔", "乙", "己", "八", "九", "子", "七", "十", "士", "五", "花五", "二", "三"]


def test_option_win_triple():
    assert (case(WT_HAND, "五")["points"], case(WT_HAND, "五")["units"]) == (14, 2)
    same = case(WT_HAND, "五", win_triple="peng")  # a 碰 at the default 碰 value: the same 個子
    assert same["points"] == 14
    assert [(g["points"], sorted(g["cards"])) for g in same["groups"] if g["kind"] == "peng"] == [(10, ["五", "五", "花五"])]
    low = case(WT_HAND, "五", win_triple="peng", peng_gezi="low")  # 1 + 8 = 9 → 13 → 1 分
    assert (low["points"], low["units"]) == (13, 1)
    assert case(WT_HAND, "五", peng_gezi="low")["points"] == 14  # a 坎 by default, whatever a 碰 is worth
    # 自摸: the card is one's own, the triple a 坎.
    assert case(WT_HAND, "五", win_from="self", win_triple="peng", peng_gezi="low")["points"] == 14


def test_option_win_triple_uses_own_copies_first():
    # 五五花五 held and 四 won on: 坎 of own cards, 半句 四… no: the discard 五 goes to 半句 四五.
    # 上大人 1 可知禮 1 孔乙己 0 八九子 0 七十士 1 坎 五五花五 10 + 半句 四 + the discard 五: 0 + 2 → 15.
    hand = ["上", "大", "人", "可", "知", "禮", "孔", "乙", "己", "八", "九", "子", "七", "十", "士", "五", "五", "花五", "四"]
    for rules in ({}, {"win_triple": "peng", "peng_gezi": "low"}):
        out = case(hand, "五", **rules)
        assert (out["points"], out["units"]) == (15, 2), rules


def test_option_win_pair():
    waits = {w["card"]: w for w in case(SEVEN[:-1])["waits"]}
    assert waits["五"] == {"card": "五", "points": 8, "win": True} and waits["花五"]["points"] == 10
    refused = {w["card"] for w in case(SEVEN[:-1], win_pair="refused")["waits"]}
    # 二 (半句 二二 + 三四五) goes too; 三 (三五), 七 (五七) … still complete a 半句 of two characters.
    assert refused == set(waits) - {"五", "花五", "二"} and {"三", "七", "乙"} <= refused
    assert not case(SEVEN[:-1], "五", win_pair="refused")["win"]
    out = case(SEVEN[:-1], "五", win_from="self", win_pair="refused")  # drawn: the pair stands
    assert (out["win"], out["points"]) == (True, 8)


def test_option_gezi_per_fen_3p():
    # 3 seats (minimum 9): 14 個子 → 2 分 at 7 per 分, 1 分 at 9; 21 個子 → 3 or 2.
    assert case(*FOURTEEN, players=3)["units"] == 2
    assert case(*FOURTEEN, players=3, gezi_per_fen_3p=9)["units"] == 1
    assert case(*TWENTY_ONE, players=3, gezi_per_fen_3p=9)["units"] == 2
    assert case(*FOURTEEN, gezi_per_fen_3p=9)["units"] == 2  # 4 seats: always ⌊/7⌋
    # a special hand: 十對 ×2 × max(1, ⌊16/9⌋ = 1) = 2 (7: ⌊16/7⌋ = 2 → 4); 3-seat rules, 20 cards.
    hand = ["花五", "花五", "五", "五", "三", "三", "七", "七", "孔", "孔", "己", "己", "化", "化", "千", "千", "十", "十", "士"]
    assert case(hand, "士", players=3)["units"] == 4
    assert case(hand, "士", players=3, gezi_per_fen_3p=9)["units"] == 2


def test_refusal_detail_carries_points_and_groups():
    out = case(SIX[:-1], SIX[-1])  # 6 個子 under the 7 minimum: the split is reported
    assert (out["win"], out["points"]) == (False, 6) and "minimum" in out["reason"]
    assert sum(g["points"] for g in out["groups"]) == 6 and len(out["groups"]) == 7
