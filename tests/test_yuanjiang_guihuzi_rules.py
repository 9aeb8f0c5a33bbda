"""沅江鬼胡子: known answers worked out from the seed (003_50360bd1f53fc819.txt) and the decisions in
docs/rules/yuanjiang_guihuzi.md — every hand type with a hand that earns it and a near miss, the
exclusions, the seed's restriction examples, the priority order, 理牌 and 定庄.

Hands are written small 一..十 = x1..x10, big 壹..拾 = d1..d10; red = 二七十 / 贰柒拾.
"""

from __future__ import annotations

import pytest

from replay.cards import ZIPAI
from replay.engine import Phase
from replay.errors import RuleViolation
from replay.options import make_ruleset
from replay.record import Deal, Event, Record
from replay.variants.yuanjiang_guihuzi import SPEC, check_dealer_sequence
from replay.variants.yuanjiang_guihuzi import scoring as sc
from replay.variants.yuanjiang_guihuzi.state import YuanjiangState

K = ZIPAI.index


def rules(**over):
    return make_ruleset(SPEC.id, SPEC.options, over)


def counts(s: str) -> list[int]:
    return ZIPAI.counts(s.split())


def ev(hand: str, w: str | None, wmode: str = "self", melds=(), r=None, **ctx) -> sc.Win:
    """Score ``hand`` (codes) + winning card ``w`` with ``melds`` [(kind, "codes")]."""
    ms = [(k, tuple(sorted(K(c) for c in cards.split()))) for k, cards in melds]
    return sc.evaluate(counts(hand), ms, None if w is None else K(w), wmode, sc.Context(**ctx), r or rules())


# -- 小胡 and 起胡条件 (003 §名词解析 5, §息数和算分) ------------------------------------------------
def test_xiaohu_with_kan_is_5_ying_xi_plus_5():
    # 坎 x3 (1 息), x4x5x6 (0), d1d2d3 (0), 门子 d7d8 (0): reds d2 d7 → no hand type.
    w = ev("x3 x3 x3 x4 x5 x6 d1 d2 d3 d7", "d8")
    assert w.ok and w.hand_types == [] and w.points == 10
    assert w.breakdown == {"xi": 5, "kan": 5, "wai": 0, "liu": 0, "piao": 0, "dan_wai": 0,
                           "nei_yuan": 1, "wai_yuan": 1, "haidi": 1, "baoting": 1}


def test_xiaohu_without_kan_wai_yuan_needs_haidi_or_baoting():
    hand, melds = "x1 x2 x3 x4 x5 x6 d1 d2 d3 d7", [("peng", "x9 x9 x9")]
    miss = ev(hand, "d8", melds=melds)
    assert not miss.ok and "起胡条件" in miss.reason
    assert ev(hand, "d8", melds=melds, haidi=True).points == 5 * 4
    hit = ev(hand, "d8", melds=melds, baoting=True)
    assert hit.points == 20 and set(hit.hand_types) == {"baoting"}
    assert ev(hand, "d8", melds=melds, haidi=True, baoting=True).points == 5 * 4 * 4


def test_incomplete_shape_is_not_a_win():
    w = ev("x3 x3 x3 x4 x5 x6 d1 d2 d3 d7", "d10")  # d7 + d10: two of 贰柒拾, a 门子 (003 §名词解析 ⑧ 如2、10)
    assert w.ok and w.points == 10
    miss = ev("x3 x3 x3 x4 x5 x6 d1 d2 d3 d7", "x9")
    assert not miss.ok and "门子" in miss.reason


# -- the 16 hand types, each with a near miss (003 §胡牌胡型) ---------------------------------------
def test_tianhu():
    # 20 dealt: 坎 x3, x4x5x6, x7x8x9, d1d2d3, d4d5d6, d8d9d10, 门子 x1x2.
    hand = "x3 x3 x3 x4 x5 x6 x7 x8 x9 d1 d2 d3 d4 d5 d6 d8 d9 d10 x1 x2"
    w = ev(hand, None, tianhu=True)
    assert w.ok and w.hand_types == ["tianhu"] and w.points == 200 + 5
    assert not ev(hand.replace("d10", "x10"), None, tianhu=True).ok


def test_shidui_and_jiudui_ban():
    pairs = "x1 x1 x3 x3 x5 x5 x7 x7 x9 d1 d1 d3 d3 d5 d5 d7 d7 d9 d9"  # 9 pairs + x9
    w = ev(pairs, "x9")
    assert w.ok and w.hand_types == ["shidui"] and w.points == 200
    nine = ev(pairs.replace("d9 d9", "d9 d10"), "x9")  # 9 pairs + d9 + d10
    assert nine.ok and nine.hand_types == ["jiudui_ban"] and nine.points == 200
    eight = ev(pairs.replace("d9 d9", "d9 d10").replace("d7 d7", "d7 d8"), "x9")
    assert not eight.ok  # 8 pairs: neither, and no split


def test_wuxi_ping_and_hua_huzi():
    # 6 sentences without 息 + 门子 d8 d9 (0 息), no melds: 无息平; x3x4x5 has no red.
    hand = "x3 x4 x5 x4 x5 x6 x8 x9 x10 d3 d4 d5 d4 d5 d6 d1 d2 d3 d8"
    w = ev(hand, "d9")
    assert w.ok and w.hand_types == ["wuxi_ping"] and w.points == 50
    # every sentence with a red: 花胡子 (not stacked on 无息平).
    hua = "x1 x2 x3 x5 x6 x7 x8 x9 x10 d1 d2 d3 d5 d6 d7 d8 d9 d10 x5"
    h = ev(hua, "x4")
    assert h.ok and h.hand_types == ["hua_huzi"] and h.points == 100
    # near miss for 花胡子: x5x6x7 → x4x5x6 has no red: 无息平 only.
    assert ev(hua.replace("x7", "x4", 1), "x4").hand_types == ["wuxi_ping"]
    # near miss for 无息平: 有吃则不能胡无息平 → a plain 小胡 without 坎/歪: no win.
    miss = ev("x3 x4 x5 x4 x5 x6 x8 x9 x10 d3 d4 d5 d4 d5 d6 d8", "d9", melds=[("chi", "d1 d2 d3")])
    assert not miss.ok


def test_yidian_hong_and_quanhei():
    one = ev("x3 x3 x3 x4 x5 x6 d3 d4 d5 x8 x9 x10 d8", "d9")  # only x10 red
    assert one.ok and one.hand_types == ["yidian_hong"] and one.points == 50 + 5
    two = ev("x3 x3 x3 x4 x5 x6 d3 d4 d5 x8 x9 x10 d7", "d8")  # x10 d7
    assert two.ok and two.hand_types == [] and two.points == 10
    black = ev("x3 x3 x3 x4 x5 x6 d3 d4 d5 d4 d5 d6 x8", "x9")
    assert black.ok and black.hand_types == ["quanhei_hu"] and black.points == 100 + 5
    near = ev("x3 x3 x3 x4 x5 x6 d3 d4 d5 d4 d5 d6 x9", "x10")  # one red: 一点红, not 全黑
    assert near.hand_types == ["yidian_hong"]


def test_shisan_hong_doubles_per_extra_red():
    eqs = "x2 x7 x10 x2 x7 x10 d2 d7 d10 d2 d7 d10"  # 12 reds in four 二七十 (1 息 each)
    w13 = ev(eqs + " x3 x3 x3 x4 x5 x6 x7", "x8")  # + x7: 13 reds
    assert w13.hand_types == ["shisan_hong"] and w13.type_xi == {"shisan_hong": 50} and w13.points == 55
    # + x10: 14 reds. Best split: 坎 x3, 坎 x7 (three in hand), 歪 x10 (two + own draw), 门子 x2 x2,
    # 贰柒拾 ×2, x4x5x6 → 100 + 3×5.
    w14 = ev(eqs + " x3 x3 x3 x4 x5 x6 x7", "x10")
    assert w14.type_xi == {"shisan_hong": 100} and w14.points == 115
    w15 = ev(eqs + " x3 x3 x3 d6 d7 d8 x7", "x10")  # + d7: 15 reds → 4×50, same three sets
    assert w15.type_xi == {"shisan_hong": 200} and w15.points == 215
    w12 = ev(eqs + " x3 x3 x3 x4 x5 x6 x8", "x9")
    assert w12.hand_types == [] and w12.points == 10


def test_dazi_and_xiaozi_hu():
    big = ev("d3 d3 d3 d4 d5 d6 d1 d2 d8 d9", "d7", melds=[("peng", "d10 d10 d10")])
    assert big.ok and big.hand_types == ["dazi_hu"] and big.points == 105
    assert ev("d3 d3 d3 x4 x5 x6 d1 d2 d8 d9", "d7", melds=[("peng", "d10 d10 d10")]).hand_types == []
    small = ev("x3 x3 x3 x4 x5 x6 x1 x2 x8 x9", "x7", melds=[("peng", "x10 x10 x10")])
    assert small.ok and small.hand_types == ["xiaozi_hu"] and small.points == 105
    assert ev("x3 x3 x3 x4 x5 x6 x1 x2 x8 x9", "x7", melds=[("peng", "d10 d10 d10")]).hand_types == []


def test_wudui_duizi_hanghang():
    melds = [("peng", "x1 x1 x1"), ("peng", "d9 d9 d9")]
    wu = ev("x3 x3 x3 x5 x5 x5 d4 d4 d4 d8", "d8", "flip", melds=melds)  # all sets + pair, no red
    assert wu.ok and wu.hand_types == ["wudui_hu"] and wu.points == 200 + 15
    red = [("peng", "x1 x1 x1"), ("peng", "d7 d7 d7")]
    dui = ev("x3 x3 x3 x5 x5 x5 d4 d4 d4 d8", "d8", "flip", melds=red)
    assert dui.hand_types == ["duizi_xi"] and dui.points == 100 + 15  # 行行息 not stacked
    near = ev("x3 x3 x3 x5 x5 x5 d4 d4 d4 d8", "d9", "flip", melds=red)  # 门子 d8 d9, not a pair
    assert near.hand_types == [] and near.points == 20
    # 行行息: 二七十, 坎, 碰, and the 门子 d2 d7 (two of 贰柒拾) all have 息.
    hh = ev("x2 x7 x10 x3 x3 x3 d2", "d7", "flip", melds=[("peng", "x5 x5 x5")])
    assert hh.hand_types == ["hanghang_xi"] and hh.points == 55
    miss = ev("x2 x7 x10 x3 x3 x3 d2", "d3", "flip", melds=[("peng", "x5 x5 x5")])
    assert miss.hand_types == [] and miss.points == 10
    assert ev("x2 x7 x10 x3 x3 x3 d2", "d3", "flip", melds=[("peng", "x5 x5 x5")],
              r=rules(hanghang_with_menzi=False)).hand_types == ["hanghang_xi"]


def test_quanqiuren():
    melds = [("chi", "x1 x2 x3"), ("peng", "d4 d4 d4"), ("chi", "d6 d7 d8"), ("wai", "x9 x9 x9"), ("peng", "d1 d1 d1")]
    w = ev("x5", "x5", "flip", melds=melds)
    assert w.hand_types == ["quanqiuren"] and w.points == 50 + 5  # + the 歪
    near = ev("x5 x6 x7 x8", "x5", "flip", melds=melds[:4])
    assert near.ok and near.hand_types == [] and near.points == 10


def test_dan_wai_and_yuan():
    dw = ev("x1 x2 x3 x4 x5 x6 d1 d2 d3 d5", "d5")  # 单歪: own draw pairs the single
    assert dw.ok and dw.hand_types == ["dan_wai"] and dw.points == 5 + 5
    assert not ev("x1 x2 x3 x4 x5 x6 d1 d2 d3 d5", "d5", "flip").ok  # another's flip: a plain pair
    nei = ev("x3 x3 x3 x3 x4 x5 d6 d7 d8 x9", "x10")  # 坎 + x3x4x5: all four x3 from the deal
    assert nei.hand_types == ["nei_yuan"] and nei.points == (5 + 5) * 4
    wai = ev("x3 x4 x5 d6 d7 d8 x9", "x10", melds=[("peng", "x3 x3 x3")])  # 碰 + the 4th in hand
    assert wai.hand_types == ["wai_yuan"] and wai.points == 5 * 2
    liu = ev("x4 x5 x6 d6 d7 d8 x9", "x10", melds=[("liu", "x3 x3 x3 x3")])
    assert liu.hand_types == ["nei_yuan"] and liu.points == (5 + 5) * 4
    piao = ev("x4 x5 x6 d6 d7 d8 x9", "x10", melds=[("piao", "x3 x3 x3 x3")])
    assert piao.hand_types == ["wai_yuan"] and piao.points == (5 + 5) * 2
    assert ev("x4 x5 x6 d6 d7 d8 x9", "x10", melds=[("piao", "x3 x3 x3 x3")], r=rules(piao_bonus=0)).points == 10
    two = ev("d6 d7 d8 x9", "x10", melds=[("liu", "x3 x3 x3 x3"), ("liu", "d1 d1 d1 d1")])
    assert two.points == (5 + 10) * 16
    assert ev("d6 d7 d8 x9", "x10", melds=[("liu", "x3 x3 x3 x3"), ("liu", "d1 d1 d1 d1")],
              r=rules(yuan_stack="once")).points == 15 * 4


def test_exclusions():
    assert sc.apply_exclusions({"duizi_xi": 100, "hanghang_xi": 50}) == {"duizi_xi": 100}
    assert sc.apply_exclusions({"wudui_hu": 200, "duizi_xi": 100, "quanhei_hu": 100, "hanghang_xi": 50}) == {"wudui_hu": 200}
    assert sc.apply_exclusions({"shidui": 200, "duizi_xi": 100, "quanhei_hu": 100}) == {"shidui": 200, "quanhei_hu": 100}
    assert sc.apply_exclusions({"hanghang_xi": 50, "dazi_hu": 100}) == {"hanghang_xi": 50, "dazi_hu": 100}


def test_dahu_combine_sum_or_max():
    # all big and no red: 大字胡 100 + 全黑胡 100, + 坎 5.
    assert ev("d3 d3 d3 d4 d5 d6 d8", "d9").points == 205
    assert ev("d3 d3 d3 d4 d5 d6 d8", "d9", r=rules(dahu_combine="max")).points == 105


def test_qihu_scope_all_binds_dahu():
    # 全黑胡 without 坎/歪/圆 (a 碰 only): a win by default, not with qihu_scope=all.
    hand, melds = "x3 x4 x5 x4 x5 x6 d3 d4 d5 x8", [("peng", "d9 d9 d9")]
    assert ev(hand, "x9", melds=melds).hand_types == ["quanhei_hu"]
    assert not ev(hand, "x9", melds=melds, r=rules(qihu_scope="all")).ok


# -- state helpers ---------------------------------------------------------------------------------
def table(hands: list[str], wall: str = "", turn: int = 0, phase: Phase = Phase.DRAW, dealer: int = 0, **opts) -> YuanjiangState:
    """A state whose hands and wall front are exactly as given (set after construction: these tests
    check rules, not the deal)."""
    cards = ZIPAI.all_cards()
    deal = Deal(hands=[cards[0:20], cards[20:39], cards[39:58]], wall=cards[58:])
    rec = Record(format="paipu/1", game_id="t", variant=SPEC.id, seats=["a", "b", "c"], dealer=dealer, deal=deal, actions=[])
    st = YuanjiangState(rec, rules(**opts))
    st.hands = [counts(h) for h in hands]
    st.ting = [False] * 3
    st.wall = [K(c) for c in wall.split()] + [K("d10")] * 5  # filler behind the cards a test draws
    st.front, st.back = 0, len(st.wall)
    st.phase, st.turn, st.step = phase, turn, 1
    return st


def E(seat: int, act: str, card: str | None = None, cards: str | None = None) -> Event:
    return Event(seat=seat, act=act, card=card, cards=cards.split() if cards else None)


def raises(st: YuanjiangState, e: Event) -> RuleViolation:
    with pytest.raises(RuleViolation) as info:
        st.apply(e)
    return info.value


def kinds(pairs) -> list[tuple[str, str]]:
    return [tuple(ZIPAI.codes[k] for k in p) for p in pairs]


# -- priority (003 §玩法规则 1: 歪/溜>胡>碰>吃, 自己>下家) --------------------------------------------
HU_X5 = "x3 x3 x3 x4 d1 d2 d3 d7 d8 d9"  # wins on another seat's x5: 坎 + two sentences + 门子 x4x5, 10 息


def test_wai_beats_another_seats_hu():
    hands = [HU_X5, "x5 x5 d1 d4 d8 d9 d10", "d2 d3 d6"]
    st = table(hands, "x5", turn=1)
    st.apply(E(1, "draw", "x5"))
    assert sorted((o.key, o.seat, o.act) for o in st.window.options) == [((0, 0), 1, "wai"), ((1, 2), 0, "hu")]
    err = raises(st, E(0, "hu", "x5"))
    assert (err.code, err.rule) == ("priority_violation", "paipu.priority")
    st = table(hands, "x5", turn=1)
    for e in (E(1, "draw", "x5"), E(1, "pass"), E(0, "hu", "x5")):
        st.apply(e)
    assert st.result()["winner"] == 0 and st.result()["from"] == 1 and st.result()["points"] == 10


def test_liu_beats_another_seats_hu():
    hands = [HU_X5, "x5 x5 x5 d1 d4 d8 d9", "d2 d3 d6"]
    st = table(hands, "x5", turn=1)
    st.apply(E(1, "draw", "x5"))
    assert {(o.seat, o.act) for o in st.window.options} == {(1, "liu"), (1, "wai"), (0, "hu")}
    assert raises(st, E(0, "hu", "x5")).code == "priority_violation"
    st = table(hands, "x5", turn=1)
    st.apply(E(1, "draw", "x5"))
    st.apply(E(1, "liu", "x5", "x5 x5 x5"))  # 溜后不用出牌: the 下家 draws
    assert st.melds[1] == [("liu", (K("x5"),) * 4)] and st.phase is Phase.DRAW and st.turn == 2


def test_hu_beats_peng_and_own_chi_before_xiajia():
    hands = [HU_X5, "d1 d4 d8", "x5 x5 d2 d6"]
    st = table(hands, "x5", turn=1)
    st.apply(E(1, "draw", "x5"))
    assert raises(st, E(2, "peng", "x5", "x5 x5")).code == "priority_violation"
    st = table(hands, "x5", turn=1)
    for e in (E(1, "draw", "x5"), E(0, "pass"), E(2, "peng", "x5", "x5 x5")):
        st.apply(e)
    assert st.phase is Phase.DISCARD and st.turn == 2
    hands = ["d1 d4", "x4 x6 d1 d7 d10", "x6 x7 d2 d5"]
    st = table(hands, "x5", turn=1)
    st.apply(E(1, "draw", "x5"))
    assert sorted((o.key, o.seat) for o in st.window.options if o.act == "chi") == [((3, 0), 1), ((3, 1), 2)]
    err = raises(st, E(2, "chi", "x5", "x6 x7"))
    assert err.code == "priority_violation"
    st = table(hands, "x5", turn=1)
    for e in (E(1, "draw", "x5"), E(1, "pass"), E(2, "chi", "x5", "x6 x7")):
        st.apply(e)
    assert st.chi_closed[1] == {K("x5"): "guo_chi"}  # the drawer passed its 吃: 过吃


def test_no_win_on_a_discard():
    st = table([HU_X5, "x5 d1 d4 d8 d9", "d2 d3 d6"], turn=1, phase=Phase.DISCARD)
    st.apply(E(1, "discard", "x5"))
    assert not [o for o in st.window.options if o.act == "hu"]
    err = raises(st, E(0, "hu", "x5"))
    assert (err.code, err.rule) == ("illegal_action", "yuanjiang_guihuzi.mo_pai_hu")


def test_hu_on_an_incomplete_hand():
    st = table([HU_X5, "d1 d4 d8", "d2 d3 d6"], "x9", turn=1)
    st.apply(E(1, "draw", "x9"))
    err = raises(st, E(0, "hu", "x9"))
    assert (err.code, err.rule) == ("not_a_win", "yuanjiang_guihuzi.hu_shape")


def test_wai_then_hu_on_the_same_card():
    # seat 1: x5 x5 + x7 x8 x9 + 门子 d1 d2 after the 歪: 歪后可以继续选择胡.
    st = table(["d4 d8", "x5 x5 x7 x8 x9 d1 d2", "d6 d9"], "x5", turn=1)
    st.apply(E(1, "draw", "x5"))
    st.apply(E(1, "wai", "x5", "x5 x5"))
    assert E(1, "hu", "x5") in st.legal_events()
    st.apply(E(1, "hu", "x5"))
    r = st.result()
    assert r["winner"] == 1 and r["from"] is None and r["win_card"] == "x5" and r["points"] == 10
    assert r["scores"] == [-10, 20, -10] and st.facts()["win_kind"] == "zimo"


# -- restrictions (003 §玩法规则 3–4) -----------------------------------------------------------------
def test_never_eat_own_discard_nor_with_its_menzi():
    # 手里有234568, 出了4: 23 不能吃1, 56 不能吃7, 68 可以吃7.
    st = table(["d3 d8", "x2 x3 x4 x5 x6 x8 d1 d5 d9 d9", "d6 d10"], "d4 x7", turn=1, phase=Phase.DISCARD)
    st.apply(E(1, "discard", "x4"))
    assert st.chi_choices(1, K("x1")) == []
    assert kinds(st.chi_choices(1, K("x7"))) == [("x6", "x8")]
    assert st.chi_choices(1, K("x4")) == []
    st.apply(E(2, "draw", "d4"))
    st.apply(E(0, "draw", "x7"))  # seat 0's flip: seat 1 is its 下家
    err = raises(st, E(1, "chi", "x7", "x5 x6"))
    assert (err.code, err.rule) == ("illegal_action", "yuanjiang_guihuzi.chi_own_discard")
    st.apply(E(1, "chi", "x7", "x6 x8"))


def test_guo_chi_closes_the_card_and_the_menzi_other_card():
    # 小三小四、小六小七 pass 小五 → 小二、小八 closed to those 门子; 一三 may still eat 二.
    st = table(["d3 d8", "x1 x3 x3 x4 x6 x7 d1 d5 d9", "d6 d10"], "x5 d3 d10 x2", turn=0)
    st.apply(E(0, "draw", "x5"))
    assert {tuple(e.cards) for o in st.window.options if o.act == "chi" for e in o.events} == {("x3", "x4"), ("x4", "x6"), ("x6", "x7")}
    st.apply(E(1, "pass"))
    st.apply(E(1, "draw", "d3"))
    assert kinds(st.chi_choices(1, K("x2"))) == [("x1", "x3")]
    assert st.chi_choices(1, K("x8")) == [] and st.chi_choices(1, K("x5")) == []
    st.apply(E(2, "draw", "d10"))
    st.apply(E(0, "draw", "x2"))
    err = raises(st, E(1, "chi", "x2", "x3 x4"))
    assert (err.code, err.rule) == ("illegal_action", "yuanjiang_guihuzi.guo_chi")
    st.apply(E(1, "chi", "x2", "x1 x3"))


def test_guo_peng_and_passed_wai_close_peng():
    st = table(["x9 d3 d4", "d1 d5", "x9 x9 x8 x8 d8 d10 d6"], "x8 x9", turn=0, phase=Phase.DISCARD)
    st.apply(E(0, "discard", "x9"))
    assert [(o.seat, o.act) for o in st.window.options] == [(2, "peng")]
    st.apply(E(1, "draw", "x8"))  # 能碰未碰 → x9 closed to 碰 for seat 2
    assert st.peng_closed[2] == {K("x9")}
    assert [(o.seat, o.act) for o in st.window.options] == [(2, "peng")]
    st.apply(E(2, "pass"))
    st.apply(E(2, "draw", "x9"))
    assert st.peng_closed[2] == {K("x9"), K("x8")}
    assert not [o for o in st.window_options(K("x9"), 1, "flip") if o.act == "peng"]
    assert not [o for o in st.window_options(K("x8"), 0, "discard") if o.act == "peng"]
    # 有歪未歪后面也不能碰; 没有过歪的限制, 随时可歪.
    st = table(["x8 d3 d4", "d1 d5", "x8 x8 d8 d10 d6"], "x8 d2", turn=2)
    st.apply(E(2, "draw", "x8"))
    assert [(o.seat, o.act) for o in st.window.options] == [(2, "wai")]
    st.apply(E(2, "pass"))
    st.apply(E(0, "draw", "d2"))
    assert st.peng_closed[2] == {K("x8")}
    assert st.window_options(K("x8"), 0, "discard") == []
    assert [o.act for o in st.window_options(K("x8"), 2, "flip")] == ["wai"]


def test_suo_pai_after_chi():
    # 小三小四小五小六 吃小三 → 小三、小六 locked; still usable for 吃.
    st = table(["x3 d3 d4", "x3 x4 x5 x6 x8 d1 d5 d9", "d6 d10"], "x7", turn=0, phase=Phase.DISCARD)
    st.apply(E(0, "discard", "x3"))
    st.apply(E(1, "chi", "x3", "x4 x5"))
    assert st.locked[1] == {K("x3"), K("x6")}
    assert {e.card for e in st.legal_events()} == {"x8", "d1", "d5", "d9"}
    err = raises(st, E(1, "discard", "x6"))
    assert (err.code, err.rule) == ("illegal_action", "yuanjiang_guihuzi.suo_pai")
    assert raises(st, E(1, "discard", "x3")).rule == "yuanjiang_guihuzi.suo_pai"
    st.apply(E(1, "discard", "d1"))
    assert kinds(st.chi_choices(1, K("x7"))) == [("x6", "x8")]


def test_liu_in_own_turn_from_hand_no_discard():
    st = table(["x4 x4 x4 x4 x1 x2 d5", "d1", "d2"], turn=0, phase=Phase.DISCARD)
    assert E(0, "liu", None, "x4 x4 x4 x4") in st.legal_events()
    st.apply(E(0, "liu", None, "x4 x4 x4 x4"))
    assert st.phase is Phase.DRAW and st.turn == 1 and st.melds[0] == [("liu", (K("x4"),) * 4)]


# -- 天胡 and 报听 in play --------------------------------------------------------------------------
def test_tianhu_in_play_and_baoting_inferred():
    hand = "x3 x3 x3 x4 x5 x6 x7 x8 x9 d1 d2 d3 d4 d5 d6 d8 d9 d10 x1 x2"
    st = table([hand, "d7", "d7"], turn=0, phase=Phase.DISCARD)
    st.step = 0
    assert E(0, "hu") in st.legal_events()
    st.apply(E(0, "hu"))
    assert st.result()["hand_types"] == ["tianhu"] and st.result()["points"] == 205
    assert st.facts()["win_kind"] == "deal" and st.facts()["hand_type_xi"] == {"tianhu": 200}
    # 报听: a seat 听 from its deal that never discarded wins ×4 without 坎/歪/圆.
    ting = "x2 x7 x10 x3 x4 x5 d1 d2 d3 d4 d5 d6 d7 d8 d9 x6 x7 x8 d10"  # 6 groups + d10 (一息: 二七十)
    st = table(["d4 d8", "d1 d5 d8", ting], "d9", turn=2)
    assert st.is_ting(2)
    assert not st.can_win(2, K("d9"), "self")  # no 坎/歪/圆/单歪: 起胡条件 not met
    st.ting[2] = True
    st.apply(E(2, "draw", "d9"))
    st.apply(E(2, "hu", "d9"))
    assert st.result()["hand_types"] == ["baoting"] and st.result()["points"] == 5 * 4


# -- 理牌 and the audit view (003 §理牌功能&起始) ---------------------------------------------------
def test_lipai_layout():
    hand = counts("x1 x1 x1 x1 d3 d3 d3 x8 x8 d5 d6 d7 x3 x5 d10 x10 d1")
    assert sc.lipai(hand) == [["x1"] * 4, ["x3", "x5"], ["x8", "x8"], ["x10", "d1"], ["d3"] * 3,
                              ["d5", "d6", "d7"], ["d10"]]


def test_snapshot_hides_wai_under_an_wei():
    st = table(["d4 d8", "x5 x5 x7 x8 x9 d1 d2", "d6 d9"], "x5", turn=1)
    st.apply(E(1, "draw", "x5"))
    st.apply(E(1, "wai", "x5", "x5 x5"))
    snap = st.snapshot()["seats"][1]
    assert snap["melds"][0]["public"] == [] and snap["lipai"] == [["x7", "x8", "x9"], ["d1", "d2"]]
    st2 = table(["d4 d8", "x5 x5 x7 x8 x9 d1 d2", "d6 d9"], "x5", turn=1, wei_display="ming_wei")
    st2.apply(E(1, "draw", "x5"))
    st2.apply(E(1, "wai", "x5", "x5 x5"))
    assert st2.snapshot()["seats"][1]["melds"][0]["public"] == ["x5"]


# -- 定庄 (003 §4) ------------------------------------------------------------------------------------
def test_check_dealer_sequence():
    ok = [("t1", 1, 2, 0), ("t1", 2, 0, None), ("t1", 3, 1, 1), ("t1", 4, 1, None), ("t1", 5, 2, 2)]
    assert check_dealer_sequence(ok) == []
    bad = [("t1", 1, 2, 0), ("t1", 2, 1, None), ("t1", 3, 0, 1), ("t2", 1, 0, 0), ("t2", 3, 0, 0), ("t2", 3, 0, 0)]
    probs = check_dealer_sequence(bad)
    assert len(probs) == 4
    assert "round 2" in probs[0] and "seat 0 won" in probs[0]
    assert "round 3" in probs[1] and "seat 2" in probs[1]  # after 荒庄 the dealer's 下家 (1+1)
    assert "missing" in probs[2] and "logged twice" in probs[3]


# -- the fast shape test agrees with the full split search -------------------------------------------

def _hands_for_shape(seed: int, n: int) -> list[list[int]]:
    """Count vectors of 2..20 cards: half built from sentences, 坎 and one 门子 (mostly winning
    shapes), half random (mostly not), all within four copies per kind."""
    import random

    from replay.variants.yuanjiang_guihuzi import scoring as ysc

    rng = random.Random(seed)
    out = []
    while len(out) < n:
        c = [0] * 20
        if len(out) % 2:
            for k in rng.sample([k for k in range(20) for _ in range(4)], rng.choice([2, 5, 8, 11, 14, 17, 20])):
                c[k] += 1
        else:
            for _ in range(rng.randrange(7)):
                g = rng.choice(ysc.SENTENCES) if rng.random() < 0.7 else (rng.randrange(20),) * 3
                for k in g:
                    c[k] += 1
            for k in rng.choice([(rng.randrange(20),) * 2, *ysc.MENZI2]):
                c[k] += 1
        if max(c) <= 4:
            out.append(c)
    return out


def test_can_split_agrees_with_the_split_search():
    """The rule's ``can_split`` and the kernel's packed ``_can_split`` (existence only) answer exactly
    ``bool(_splits(...))`` — on 4,000 hands of which the built half are mostly winning shapes."""
    from replay.variants.yuanjiang_guihuzi import _kernel as yk
    from replay.variants.yuanjiang_guihuzi import scoring as ysc

    hands = _hands_for_shape(7, 4000)
    wins = 0
    for c in hands:
        want = bool(ysc._splits(tuple(c), -1, "", False, 1))
        assert ysc.can_split(tuple(c), 1) is want, c
        assert yk._can_split(bytes(c), 1) is want, c
        wins += want
    assert 1000 < wins < 3000  # both answers are well represented
    # a known shape: 小一二三 + 小四四四 (坎) + 小五五 (门子 对) → a split; swap the pair for 小五六 → still one (门子)
    h = [0] * 20
    for k in (0, 1, 2, 3, 3, 3, 4, 4):
        h[k] += 1
    assert ysc.can_split(tuple(h), 1) and yk._can_split(bytes(h), 1)
    h[4] -= 1
    h[7] += 1  # 小五 小八: no sentence holds both
    assert not ysc.can_split(tuple(h), 1) and not yk._can_split(bytes(h), 1)


# -- verdicts that name the rule, the rule options, 歪 then 胡, a refused 胡's points ---------------------
def test_only_menzi_closed_by_own_discard_names_the_rule():
    # 出了小四 with 小二小三 in hand: that 门子 may not eat 小一 (003 §玩法规则 3 ②), and it is the only
    # 门子 for 小一 — so seat 1 has no 吃 option at all; the verdict names the own-discard rule.
    st = table(["d3 d8", "x2 x3 x4 d1 d5 d9 d9", "d2 d6"], "d4 x1", turn=1, phase=Phase.DISCARD)
    for e in (E(1, "discard", "x4"), E(2, "draw", "d4"), E(0, "draw", "x1")):
        st.apply(e)
    assert st.window.options == []
    err = raises(st, E(1, "chi", "x1", "x2 x3"))
    assert (err.code, err.rule) == ("illegal_action", "yuanjiang_guihuzi.chi_own_discard")


def test_only_menzi_closed_by_guo_chi_names_the_rule():
    # 小六小七 could eat 小五 and passed: 小八 is closed to that 门子 (003 §玩法规则 4.1), its only one.
    # Seat 1 also holds 小八小八, so it has a 碰 option: the 吃 is still refused as 过吃.
    st = table(["d3 d8", "x6 x7 x8 x8 d1 d5 d9", "d2 d6"], "x5 d4 d7 x8", turn=0)
    st.apply(E(0, "draw", "x5"))
    assert [(o.seat, o.act) for o in st.window.options] == [(1, "chi")]
    for e in (E(1, "pass"), E(1, "draw", "d4"), E(2, "draw", "d7"), E(0, "draw", "x8")):
        st.apply(e)
    assert [(o.seat, o.act) for o in st.window.options] == [(1, "peng")]
    err = raises(st, E(1, "chi", "x8", "x6 x7"))
    assert (err.code, err.rule) == ("illegal_action", "yuanjiang_guihuzi.guo_chi")


def test_qihu_xi_counts_the_groups_xi_when_set():
    # 坎 小三 1 + 二七十 1 + 碰 伍 1 + 壹贰叁 0 + 门子 捌玖 0 = 3 息: a 小胡 (5 + 坎 5) by default (the seed's
    # 5息 is the 5硬息 condition, met by the 坎); under qihu_xi=5 a shape refused, worth its 10.
    hand, melds = "x3 x3 x3 x2 x7 x10 d1 d2 d3 d8", [("peng", "d5 d5 d5")]
    assert ev(hand, "d9", melds=melds).points == 10
    miss = ev(hand, "d9", melds=melds, r=rules(qihu_xi=5))
    assert not miss.ok and miss.shape and miss.points == 10 and "3 息" in miss.reason
    # 贰柒拾 for 壹贰叁 and 单歪 捌捌 (own draw): 坎 1 + 二七十 1 + 贰柒拾 1 + 碰 1 + 单歪 1 = 5 息, and
    # every group has 息: 行行息 50 + 坎 5 + 单歪 5 = 60 under either value.
    five = ev("x3 x3 x3 x2 x7 x10 d2 d7 d10 d8", "d8", melds=melds, r=rules(qihu_xi=5))
    assert five.ok and five.points == 60 and five.hand_types == ["hanghang_xi", "dan_wai"]
    # a 大胡 is bound too: 全黑胡 with only its 坎's 1 息
    black = "x3 x3 x3 x4 x5 x6 d3 d4 d5 d4 d5 d6 x8"
    assert ev(black, "x9").points == 105
    assert not ev(black, "x9", r=rules(qihu_xi=5)).ok
    # exempt: 十对 (不用成牌不用满足5息), 九对半 (同十对), 无息平 (一息没有, by definition)
    pairs = "x1 x1 x3 x3 x5 x5 x7 x7 x9 d1 d1 d3 d3 d5 d5 d7 d7 d9 d9"
    assert ev(pairs, "x9", r=rules(qihu_xi=5)).points == 200
    assert ev(pairs.replace("d9 d9", "d9 d10"), "x9", r=rules(qihu_xi=5)).hand_types == ["jiudui_ban"]
    wuxi = ev("x3 x4 x5 x4 x5 x6 x8 x9 x10 d3 d4 d5 d4 d5 d6 d1 d2 d3 d8", "d9", r=rules(qihu_xi=5))
    assert wuxi.ok and wuxi.hand_types == ["wuxi_ping"] and wuxi.points == 50


def test_new_options_default_to_the_behaviour_before():
    # spec §7: a new option's default is the behaviour before it existed
    defaults = {o.name: o.default for o in SPEC.options}
    assert {k: defaults[k] for k in ("qihu_xi", "xi_cap", "jiudui_ban", "peng_own_discard", "players", "wuxi_ping")} == \
        {"qihu_xi": 0, "xi_cap": 0, "jiudui_ban": "any", "peng_own_discard": False, "players": 3, "wuxi_ping": "only"}
    assert defaults["dahu_combine"] == "sum" and defaults["piao_bonus"] == 5
    assert rules().id == "yuanjiang_guihuzi-default"


def test_dahu_product_and_xi_cap():
    # 大字胡 100 and 全黑胡 100 with a 坎: summed 205, multiplied 100 × 100 + 5; capped at 200
    hand = "d3 d3 d3 d4 d5 d6 d8"
    assert ev(hand, "d9", r=rules(dahu_combine="product")).points == 10005
    capped = ev(hand, "d9", r=rules(dahu_combine="product", xi_cap=200))
    assert capped.points == 200 and capped.breakdown["cap"] == 200 and capped.breakdown["xi"] == 10000
    one = ev("x3 x3 x3 x4 x5 x6 d3 d4 d5 x8 x9 x10 d8", "d9", r=rules(dahu_combine="product"))
    assert one.hand_types == ["yidian_hong"] and one.points == 55  # one type: its own 息
    tian = "x3 x3 x3 x4 x5 x6 x7 x8 x9 d1 d2 d3 d4 d5 d6 d8 d9 d10 x1 x2"
    assert ev(tian, None, tianhu=True, r=rules(xi_cap=200)).points == 200
    assert "cap" not in ev(tian, None, tianhu=True).breakdown and ev(tian, None, tianhu=True).points == 205


NINE19 = "x1 x1 x3 x3 x5 x5 x7 x7 x9 d1 d1 d3 d3 d5 d5 d7 d7 d9 d10"  # 8 pairs and 小九 玖 拾: 九对半 on 小九


def test_jiudui_ban_only_on_the_dealt_hand_when_set():
    for opts, after_discard, want in (({}, True, 200), ({"jiudui_ban": "dealt"}, False, 200),
                                      ({"jiudui_ban": "dealt"}, True, None)):
        if after_discard:  # seat 2 discarded its 20th card first: its hand is no longer the dealt one
            st = table(["d4 d8", "d2 d6", NINE19 + " d4"], "x9", turn=2, phase=Phase.DISCARD, **opts)
            st.apply(E(2, "discard", "d4"))
        else:
            st = table(["d4 d8", "d2 d6", NINE19], "x9", turn=0, **opts)
        st.apply(E(0, "draw", "x9"))
        if want is None:
            err = raises(st, E(2, "hu", "x9"))
            assert (err.code, err.rule) == ("not_a_win", "yuanjiang_guihuzi.hu_shape") and "dealt hand" in err.message
            assert err.detail["points"] == 200  # a shape, refused: the points it would bring
        else:
            st.apply(E(2, "hu", "x9"))
            assert st.result()["hand_types"] == ["jiudui_ban"] and st.result()["points"] == want


def test_peng_own_discard_closes_peng_when_set():
    for opts, offered in (({}, True), ({"peng_own_discard": True}, False)):
        st = table(["d4 d8", "d2 d6", "x9 x9 x9 d3 d5 d9"], "x9", turn=2, phase=Phase.DISCARD, **opts)
        st.apply(E(2, "discard", "x9"))
        st.apply(E(0, "draw", "x9"))  # the last 小九, flipped: 碰 on a flip (peng_on_flip)
        assert [(o.seat, o.act) for o in st.window.options] == ([(2, "peng")] if offered else [])
        if not offered:
            err = raises(st, E(2, "peng", "x9", "x9 x9"))
            assert (err.code, err.rule) == ("illegal_action", "yuanjiang_guihuzi.peng_own_discard")


def test_wai_then_hu_is_the_win_on_that_flip():
    # docs decision 9: 歪 then 胡 is judged as the 胡 on the flip. 8 pairs + 小九小九 + 拾, drawing 小九:
    # 9 pairs, 九对半 200 (003 §胡牌胡型 16) — whether logged as 胡, or 歪 then 胡 (the 歪 as a meld would
    # leave 17 cards that split into nothing).
    from replay.variants.yuanjiang_guihuzi.cases import score_case_of

    hand = "x1 x1 x3 x3 x5 x5 x7 x7 d1 d1 d3 d3 d5 d5 d7 d7 x9 x9 d10"
    results, cases = [], []
    for path in ([E(2, "hu", "x9")], [E(2, "wai", "x9", "x9 x9"), E(2, "hu", "x9")]):
        st = table(["d4 d8", "d2 d6", hand], "x9", turn=2)
        st.apply(E(2, "draw", "x9"))
        for e in path:
            cases.append(score_case_of(st, 2))
            st.apply(e)
        results.append({k: st.result()[k] for k in ("points", "units", "hand_types", "breakdown", "scores")})
    assert results[0] == results[1] and results[0]["points"] == 200 and results[0]["hand_types"] == ["jiudui_ban"]
    assert cases[0] == cases[1] == cases[2]  # after the 歪, the case puts its pair back in the hand


def test_not_a_win_carries_the_points_and_groups_of_a_shape():
    # a complete shape with no 坎/歪/圆 on another seat's flip: refused by 起胡条件, worth the 5 硬息
    st = table(["x1 x2 x3 x4 x5 x6 d1 d2 d3 d7", "d4 d9", "d5 d6"], "d8 x10", turn=1)
    st.melds[0] = [("peng", (K("x9"),) * 3)]
    st.apply(E(1, "draw", "d8"))
    err = raises(st, E(0, "hu", "d8"))
    assert (err.code, err.rule) == ("not_a_win", "yuanjiang_guihuzi.hu_shape") and "起胡条件" in err.message
    assert err.detail == {"points": 5, "groups": [
        {"kind": "peng", "cards": ["x9"] * 3, "points": 1}, {"kind": "shunzi", "cards": ["x1", "x2", "x3"], "points": 0},
        {"kind": "shunzi", "cards": ["x4", "x5", "x6"], "points": 0}, {"kind": "shunzi", "cards": ["d1", "d2", "d3"], "points": 0},
        {"kind": "menzi", "cards": ["d7", "d8"], "points": 0}]}
    st = table(["x1 x2 x3 x4 x5 x6 d1 d2 d3 d7", "d4 d9", "d5 d6"], "x10", turn=1)
    st.apply(E(1, "draw", "x10"))
    err = raises(st, E(0, "hu", "x10"))  # 小十 + 柒: no 门子, no shape: nothing to count
    assert err.code == "not_a_win" and err.detail is None


# -- 内圆 of a dealt four with a copy used in a 吃 ----------------------------------------------------
# 003 §名词解析 2: 圆…溜或起手4张(可以有牌参与去吃)…为内圆; 有吃、碰变成4张或飘,为外圆. Seat 1 was dealt 小三×4
# and eats seat 0's 小五 with 小三 小四: the four 小三 are still a dealt four (内圆 ×4); only the eaten
# 小五 came by 吃. It wins on seat 2's flip of 拾: 5 硬息 + 坎 5 = 10, × 内圆 4 = 40 (was read as 外圆 ×2 = 20).
def test_a_dealt_four_with_a_copy_in_a_chi_is_nei_yuan():
    from pathlib import Path

    from replay.replayer import replay_line

    raw = (Path(__file__).parent / "data" / "yuanjiang-neiyuan-chi.jsonl").read_bytes()
    v = replay_line(raw.strip()).verdict
    assert v.valid, v.errors
    c = v.computed
    assert (c["points"], c["hand_types"]) == (40, ["nei_yuan"])
    assert (c["breakdown"]["nei_yuan"], c["breakdown"]["wai_yuan"]) == (4, 1)


def test_a_score_case_chi_names_the_card_it_ate():
    from replay.score import score_case

    case = {"variant": "yuanjiang_guihuzi", "rules": {}, "win_card": "d10", "win_from": "flip",
            "hand": "x3 x3 x3 d1 d2 d3 d4 d5 d6 x7 x8 x9 d7 d8 d9 d10".split(),
            "melds": [{"kind": "chi", "cards": ["x3", "x4", "x5"], "card": "x5"}]}
    got = score_case(case)
    assert (got["win"], got["points"], got["hand_types"]) == (True, 40, ["nei_yuan"])
    # eating the 小三 itself: the four became four by 吃 → 外圆 ×2
    got = score_case({**case, "melds": [{"kind": "chi", "cards": ["x3", "x4", "x5"], "card": "x3"}]})
    assert (got["points"], got["hand_types"]) == (20, ["wai_yuan"])
    # not said: any of its cards may have been eaten, so the 圆 reads as 外圆 (docs §Score cases)
    got = score_case({**case, "melds": [{"kind": "chi", "cards": ["x3", "x4", "x5"]}]})
    assert (got["points"], got["hand_types"]) == (20, ["wai_yuan"])
    assert "not one of its cards" in score_case({**case, "melds": [{"kind": "chi", "cards": ["x3", "x4", "x5"],
                                                                       "card": "x6"}]})["error"]


@pytest.mark.parametrize("counts, error, match", [
    ([1.0] + [0] * 19, TypeError, r"a count is an int, not 1.0 \(kind 0\)"),
    ([2 ** 64] + [0] * 19, ValueError, "18446744073709551616 cards of kind 0: the shape test takes 0..6"),
    ([0] * 19 + [7], ValueError, "7 cards of kind 19: the shape test takes 0..6"),
])
def test_pack_refuses_what_is_not_a_count_vector_alike_on_both_kernels(counts, error, match) -> None:
    from replay.variants.yuanjiang_guihuzi._kernel import pack

    with pytest.raises(error, match=match):
        pack(counts)


@pytest.mark.parametrize("x", [-1, 2 ** 60, 1.0])
def test_shape_of_refuses_what_pack_cannot_make(x) -> None:
    from replay.variants.yuanjiang_guihuzi._kernel import shape_of

    with pytest.raises(ValueError, match="is not a hand packed by pack"):
        shape_of(x)
