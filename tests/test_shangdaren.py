"""上大人 scoring: known answers from seed 002 §上大人 2–3 (hand classes at and just under their
thresholds), score cases (spec §8) with waits, and order independence.

胡 values used below are the defaults of docs/rules/shangdaren.md (hu_scale = by_copies): a three
of a kind red 4, green/black 2, 精 10; a four red 8, green/black 4, 精 20; a phrase 1 when it holds
a 精, else 0; the 聽頭 0. With hu_scale = face they are halved (2/1/5, 4/2/10)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from replay.score import score_case


def case(hand: str, win=..., melds=(), rules=None, win_from="discard") -> dict:
    c = {"variant": "shangdaren", "hand": list(hand), "rules": rules or {}, "win_from": win_from,
         "melds": [{"kind": k, "cards": list(v)} for k, v in melds]}
    if win is not ...:
        c["win_card"] = win
    return score_case(c)


FACE = {"hu_scale": "face"}
MAO_SHANG_QI = [("mao", "上上上上"), ("mao", "七七七七")]  # 20 + 20 胡


# -- 屁胡 / 台胡 / 台胡翻: hands holding 精 (002 §上大人 2a, 3a) --------------------------------
def test_pihu_at_21_and_not_a_win_at_20():
    # 上上上 10 + 孔孔孔 4 + 化化化 4 + 小小小 2 + 七十士 1 + 八九子 0 + 聽頭 乙乙 = 21
    r = case("上上上孔孔孔化化化小小小七十士八九子乙", "乙")
    assert (r["win"], r["points"], r["units"], r["hand_types"]) == (True, 21, 2, ["pihu"])
    # 佳作仁 (0) for 七十士 (1): 20 胡 with 精 in hand is under the 21 minimum
    r = case("上上上孔孔孔化化化小小小佳作仁八九子乙", "乙")
    assert (r["win"], r["points"], r["units"]) == (False, 20, None)
    assert "21" in r["reason"]


def test_taihu_at_41_and_pihu_at_40():
    r = case("佳作仁八九子爾小生福祿壽化", "三", MAO_SHANG_QI)  # 20 + 20 + 福祿壽 1 = 41
    assert (r["points"], r["units"], r["hand_types"]) == (41, 6, ["taihu"])
    r = case("佳作仁八九子爾小生孔乙己化", "三", MAO_SHANG_QI)  # 40: still ≥ 21
    assert (r["points"], r["units"], r["hand_types"]) == (40, 2, ["pihu"])


def test_taihu_fan_at_51_and_taihu_at_50():
    r = case("孔孔孔化化化小小小福祿壽乙", "乙", MAO_SHANG_QI)  # 40 + 4 + 4 + 2 + 1 = 51
    assert (r["points"], r["units"], r["hand_types"]) == (51, 12, ["taihu_fan"])
    r = case("孔孔孔化化化小小小佳作仁乙", "乙", MAO_SHANG_QI)  # 50
    assert (r["points"], r["units"], r["hand_types"]) == (50, 6, ["taihu"])


def test_pengpeng_adds_two_fen():
    # all three-of-a-kind + a pair: 10 + 5×4 = 30 胡, 屁胡 2 + 碰碰胡 2
    r = case("上上上孔孔孔化化化爾爾爾佳佳佳八八八乙", "乙")
    assert (r["points"], r["units"], sorted(r["hand_types"])) == (30, 4, ["pengpeng", "pihu"])
    # the same with 八九子 for 八八八: 26 胡, no bonus
    r = case("上上上孔孔孔化化化爾爾爾佳佳佳八九子乙", "乙")
    assert (r["points"], r["units"], r["hand_types"]) == (26, 2, ["pihu"])


def test_pengpeng_scope_all_applies_to_qing_classes():
    hand = "孔孔孔化化化爾爾爾佳佳佳大大大士士士乙"  # no 精; 大, 士 keep it from 枯: 4×4 + 2 + 2 = 20
    assert case(hand, "乙")["units"] == 4  # 清胡, bonus only on 精 classes by default
    r = case(hand, "乙", rules={"pengpeng_scope": "all"})
    assert (r["units"], sorted(r["hand_types"])) == (6, ["pengpeng", "qinghu"])


def test_pengpeng_scope_taihu_fan_only():
    # 3a writes the +2 after 台胡翻: with pengpeng_scope = taihu_fan a 屁胡 碰碰胡 keeps 2 分 …
    hand = "上上上孔孔孔化化化爾爾爾佳佳佳八八八乙"  # 10 + 5 × 4 = 30 胡
    assert (case(hand, "乙")["units"], sorted(case(hand, "乙")["hand_types"])) == (4, ["pengpeng", "pihu"])
    r = case(hand, "乙", rules={"pengpeng_scope": "taihu_fan"})
    assert (r["points"], r["units"], r["hand_types"]) == (30, 2, ["pihu"])
    # … and a 台胡翻 碰碰胡 gets it under both: 20 + 20 + 孔孔孔 4 + 化化化 4 + 福福福 10 = 58 胡, 12 + 2
    for scope in ("jing", "taihu_fan"):
        r = case("孔孔孔化化化福福福乙", "乙", MAO_SHANG_QI, rules={"pengpeng_scope": scope})
        assert (r["points"], r["units"], sorted(r["hand_types"])) == (58, 14, ["pengpeng", "taihu_fan"])


# -- hu_scale = flat (a public 上大人 engine's values) -----------------------------------------------
FLAT_MELDS = [("mao", "上上上上"), ("kai_mao", "孔孔孔孔"), ("dui", "化化化"), ("dui", "七七七")]


def test_hu_scale_flat_values():
    # by_copies: 上 four 20 + 孔 four 8 + 化 對 4 + 七 對 10 + 小小小 2 + 福祿壽 1 = 45 → 台胡 6
    r = case("小小小福祿壽乙", "乙", FLAT_MELDS)
    assert (r["points"], r["units"], r["hand_types"]) == (45, 6, ["taihu"])
    # flat: 精招 16 + 普招 6 + 對'd 坎 2 + 精坎 (對'd) 12 + 坎 in hand 3 + 福祿壽 1 = 40 → 屁胡 2
    r = case("小小小福祿壽乙", "乙", FLAT_MELDS, rules={"hu_scale": "flat"})
    assert (r["points"], r["units"], r["hand_types"]) == (40, 2, ["pihu"])
    assert [(g["kind"], g["points"]) for g in r["groups"]] == [
        ("mao", 16), ("kai_mao", 6), ("dui", 2), ("dui", 12), ("ting_tou", 0), ("kan", 3), ("ju", 1)]


def test_hu_scale_flat_three_in_hand_is_3_any_colour():
    # 上上上 12 + 孔孔孔 (red) 3 + 化化化 (red) 3 + 小小小 (green) 3 + 七十士 1 = 22 (by_copies: 21)
    hand = "上上上孔孔孔化化化小小小七十士八九子乙"
    assert case(hand, "乙")["points"] == 21
    r = case(hand, "乙", rules={"hu_scale": "flat"})
    assert (r["points"], r["units"]) == (22, 2)


# -- ting_tou_jing: a 聽頭 pair of 精 (金對) ----------------------------------------------------------
def test_ting_tou_jing_pair_counts_8():
    # 福福福 10 + 孔孔孔 4 + 化化化 4 + 七十士 1 + 佳作仁 0 + 八九子 0 + 聽頭 上上
    hand = "福福福孔孔孔化化化佳作仁七十士八九子上"
    r = case(hand, "上")  # 0: 19 胡 with 精 is under 21
    assert (r["win"], r["points"]) == (False, 19)
    r = case(hand, "上", rules={"ting_tou_jing": 8})  # 金對 8: 27 → 屁胡
    assert (r["win"], r["points"], r["units"], r["hand_types"]) == (True, 27, 2, ["pihu"])
    assert {"kind": "ting_tou", "cards": ["上", "上"], "points": 8} in r["groups"]
    # a 聽頭 of two of a phrase (上大) is no 金對: still 19
    assert (case(hand, "大", rules={"ting_tou_jing": 8})["points"]) == 19


def test_ting_tou_jing_doubled_as_the_zhu_jing():
    # 上 held twice (with the win card), 七 once: 上 is the 主精 (002 §三精花牌 3: 主精…全部翻一倍)
    hand = "孔孔孔化化化小小小佳作仁七十士八九子上"
    r = case(hand, "上", rules={"ting_tou_jing": 8, "zhu_jing": "double"})
    # 4 + 4 + 2 + 0 + 七十士 1 + 0 + 金對 8 × 2 = 27
    assert (r["win"], r["points"], r["units"]) == (True, 27, 2)
    r = case(hand, "上", rules={"ting_tou_jing": 8})  # not doubled: 19
    assert (r["win"], r["points"]) == (False, 19)


# -- 清胡 / 清台胡: no 上 七 福 (002 §上大人 2b, 3b) ---------------------------------------------
def test_qinghu_at_11_and_10_face_values():
    r = case("孔孔孔化化化爾爾爾佳佳佳八八八士士士乙", "乙", rules=FACE)  # 5 red × 2 + 士 1 = 11
    assert (r["win"], r["points"], r["units"], r["hand_types"]) == (True, 11, 4, ["qinghu"])
    r = case("孔孔孔化化化爾爾爾佳佳佳子子子士士士乙", "乙", rules=FACE)  # 4 × 2 + 1 + 1 = 10
    assert (r["win"], r["points"]) == (False, 10)


def test_qinghu_default_values_are_even_12_and_10():
    # by_copies values of hands without 精 are all even: 11 cannot be hit, 10 fails, 12 wins
    r = case("孔孔孔化化化十十十佳作仁八九子士士士乙", "乙")  # 4 + 4 + 2 + 2 = 12
    assert (r["points"], r["units"], r["hand_types"]) == (12, 4, ["qinghu"])
    r = case("孔孔孔化化化佳作仁爾小生八九子士士士乙", "乙")  # 4 + 4 + 2 = 10
    assert (r["win"], r["points"]) == (False, 10)


def test_qing_taihu_at_22_and_qinghu_at_21_face():
    melds = [("mao", "孔孔孔孔"), ("mao", "化化化化"), ("mao", "爾爾爾爾"), ("mao", "佳佳佳佳"), ("mao", "八八八八")]
    r = case("士士士乙", "乙", melds, rules=FACE)  # 5 × 4 + 士 1 = 21
    assert (r["points"], r["units"], r["hand_types"]) == (21, 4, ["qinghu"])
    r = case("乙", "乙", [*melds[:4], ("mao", "士士士士"), ("kai_mao", "八八八八")], rules=FACE)  # 4×4 + 2 + 4 = 22
    assert (r["points"], r["units"], r["hand_types"]) == (22, 8, ["qing_taihu"])


def test_qing_taihu_default_22_and_20():
    r = case("孔孔孔化化化爾爾爾佳佳佳八八八士士士乙", "乙")  # 5 × 4 + 2 = 22
    assert (r["points"], r["units"], r["hand_types"]) == (22, 8, ["qing_taihu"])
    r = case("孔孔孔化化化爾爾爾佳佳佳大大大士士士乙", "乙")  # 4 × 4 + 2 + 2 = 20
    assert (r["points"], r["units"], r["hand_types"]) == (20, 4, ["qinghu"])


# -- 枯胡 (002 §上大人 2c, 3c) -------------------------------------------------------------------
def test_kuhu_12_and_24_at_21():
    # no 上大人 / 七十士 / 福祿壽 character: 4 + 4 + 4 + 2 = 14 胡 → 枯胡 12 (beats 清胡 4)
    r = case("孔孔孔化化化爾爾爾小小小佳作仁八九子乙", "乙")
    assert (r["points"], r["units"], r["hand_types"]) == (14, 12, ["kuhu"])
    r = case("孔孔孔化化化爾爾爾佳佳佳八八八小小小乙", "乙")  # 22 ≥ 21 → 24
    assert (r["points"], r["units"], r["hand_types"]) == (22, 24, ["kuhu_21"])


def test_kuhu_at_21_and_20_face():
    red_maos = [("mao", "孔孔孔孔"), ("mao", "化化化化"), ("mao", "爾爾爾爾"), ("mao", "佳佳佳佳")]
    r = case("小小小乙", "乙", [*red_maos, ("mao", "八八八八")], rules=FACE)  # 20 + 1 = 21
    assert (r["points"], r["units"], r["hand_types"]) == (21, 24, ["kuhu_21"])
    r = case("八八八九", "九", [*red_maos, ("mao", "乙乙乙乙")], rules=FACE)  # 16 + 2 + 2 = 20
    assert (r["points"], r["units"], r["hand_types"]) == (20, 12, ["kuhu"])


def test_kuhu_minimum_option():
    # 枯 shape; best split 八八八 2 + 九九九 1 + 聽頭 八子 (face values) = 3 胡
    hand = "孔乙己化三千爾小生佳作仁八九子八八八九"
    assert case(hand, "九", rules=FACE)["win"] is False  # 3 胡 < 11
    r = case(hand, "九", rules={**FACE, "ku_hu_min": 0})
    assert (r["win"], r["points"], r["units"], r["hand_types"]) == (True, 3, 12, ["kuhu"])


# -- 黑胡 (002 §上大人 2d, 3d) -------------------------------------------------------------------
def test_heihu_all_black_and_all_green():
    r = case("己己己千千千生生生仁仁仁子子子壽壽壽人", "人")  # 6 black 三 × 2 = 12
    assert (r["points"], r["units"], r["hand_types"]) == (12, 14, ["heihu"])
    r = case("乙乙乙大大大三三三小小小作作作十十十九", "九")
    assert (r["points"], r["units"], r["hand_types"]) == (12, 14, ["heihu"])
    # one red card breaks it: 清胡 4
    r = case("乙乙乙大大大三三三小小小作作作十十十孔", "孔")
    assert (r["units"], r["hand_types"]) == (4, ["qinghu"])


# -- zimo, melds, shapes, errors -----------------------------------------------------------------
def test_zimo_hand_type_and_ting_tou_option():
    r = case("上上上孔孔孔化化化小小小七十士八九子乙", "己", win_from="self")  # 聽頭 乙己
    assert (r["points"], r["units"], r["hand_types"]) == (21, 2, ["pihu", "zimo"])
    # pair-only 聽頭: 孔乙己 becomes a phrase and 孔孔 the 聽頭: 10 + 4 + 2 + 1 = 17 < 21
    r = case("上上上孔孔孔化化化小小小七十士八九子乙", "己", rules={"ting_tou": "pair"})
    assert (r["win"], r["points"]) == (False, 17)


def test_zhu_jing_double():
    # 主精 上 (three held, 七 one): 上上上 doubled to 20; 七十士 stays 1 (七 is not the 主精)
    r = case("上上上孔孔孔化化化小小小七十士八九子乙", "乙", rules={"zhu_jing": "double"})
    assert (r["points"], r["units"]) == (31, 2)


def test_waits_spec8():
    r = case("上上上孔孔孔化化化小小小七十士八九子乙")
    assert r == {"waits": [{"card": "孔", "points": 21, "win": True}, {"card": "乙", "points": 21, "win": True},
                           {"card": "己", "points": 21, "win": True}]}
    r = case("上上上孔孔孔化化化小小小佳作仁八九子乙")
    assert r == {"waits": [{"card": c, "points": 20, "win": False} for c in "孔乙己"]}


def test_score_case_errors():
    assert "error" in case("孔孔孔孔孔", "乙")
    assert "error" in score_case({"variant": "shangdaren", "hand": ["上"], "melds": [{"kind": "peng", "cards": ["上"] * 3}], "win_card": "上"})
    assert "error" in case("上", "上", win_from="flip")


def test_win_card_null_is_the_start_window_and_refused():
    # judged by the engine: a 胡 without a winning card is at the start, before the dealer's first
    # discard, where 上大人 has no win (docs decision 8; the old scorer judged the bare hand)
    r = case("上上上孔孔孔化化化小小小七十士八九子乙乙", None)
    assert (r["win"], r["points"], r["units"]) == (False, None, None)
    assert "dealer's first discard" in r["reason"]


def test_a_refusal_under_the_minimum_lists_its_split():
    r = case("上上上孔孔孔化化化小小小佳作仁八九子乙", "乙", win_from="self")  # 20 胡, 自摸
    assert (r["win"], r["points"]) == (False, 20)
    assert sum(g["points"] for g in r["groups"]) == 20 and len(r["groups"]) == 7


def test_groups_listed_melds_first():
    r = case("孔孔孔化化化小小小福祿壽乙", "乙", MAO_SHANG_QI)
    assert r["groups"][:2] == [{"kind": "mao", "cards": ["上"] * 4, "points": 20}, {"kind": "mao", "cards": ["七"] * 4, "points": 20}]
    assert sum(g["points"] for g in r["groups"]) == 51


# -- order independence (property) -----------------------------------------------------------------
WINNERS = [
    ("上上上孔孔孔化化化小小小七十士八九子乙", "乙"),
    ("孔孔孔化化化爾爾爾佳佳佳八八八小小小乙", "乙"),
    ("己己己千千千生生生仁仁仁子子子壽壽壽人", "人"),
    ("上上上孔孔孔化化化爾爾爾佳佳佳八八八乙", "乙"),
]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(WINNERS), st.randoms(use_true_random=False))
def test_card_order_never_changes_a_score(hw, rnd):
    hand, win = hw
    cards = list(hand)
    rnd.shuffle(cards)
    assert case("".join(cards), win) == case(hand, win)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000))
def test_card_order_never_changes_waits(seed):
    from replay.cards import SHANGDAREN

    rng = random.Random(seed)
    deck = SHANGDAREN.all_cards()
    rng.shuffle(deck)
    hand = deck[:19]
    other = list(hand)
    rng.shuffle(other)
    assert case("".join(hand)) == case("".join(other))
