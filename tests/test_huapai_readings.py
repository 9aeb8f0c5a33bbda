"""花牌 family (三精, 五精, 雙別桿): the 主精 tie order, the 公安 table of `lai_hu=gongan`, and the
readings an independent 花牌 engine plays (options `zhao_bu_from`, `dui_limit`, `mashang_dui`,
`qing_tong_kai_fan`). Hands and logs are built by hand; every value is worked out from seed
002_f9a80b28e0fcbf1a.txt (§2 操作規則, §3 計胡規則, §4, §5) and docs/rules/huapai.md."""

from __future__ import annotations

import msgspec
import pytest
from test_sanjing_huapai import case, crafted, group, rec_kinds, run

from replay import variants
from replay.judge import judge
from replay.options import make_ruleset
from replay.record import Event

S3, S5, LAI = "sanjing_huapai", "wujing_huapai", "shuangbiegan_huapai"


def judged(variant: str, **kw) -> dict:
    """The engine's settlement (``result``) of a score case that wins."""
    spec = variants.get(variant)
    c = {"variant": variant, "rules": {}, "win_from": "discard", **kw}
    j = judge(spec.position(c, make_ruleset(variant, spec.options, c["rules"])))
    assert j.win, j.reason
    return j.outcome


# -- 主精 ties: 乙 三 五 七 九 (002 定精方法's order; docs decision 2) ---------------------------
# 五五五 七七七 上上上 大大大 + 聽頭 孔孔: 精坎 3素 5 each, one doubled as 主精, red 坎 2 + 2 → 19
TIE = list("五五五七七七上上上大大大孔")


def test_equal_hu_tie_names_the_first_in_jing_order():
    for rules in ({}, {"zhu_jing_tie": "deck_order"}):
        out = judged(S3, hand=TIE, win_card="孔", rules=rules)
        assert (out["points"], out["units"], out["jing"]) == (19, 1, {"main": "五", "count": 6}), rules


def test_equal_hu_tie_in_a_logged_game():
    # seat 1 (the dealer's 下家) wins on the dealer's 孔: 五五五 七七七 上上上 大大大 孔乙己 ×2 八九子 ×2 孔
    # + 孔. Best split: 孔孔孔 black 坎 1 + 孔乙己 0 + 聽頭 乙己 (乙, 九 are no 精 in 三精), so 19 + 1 =
    # 20 胡, 1 分; the dealer pays both shares
    hand = TIE[:-1] + list("孔乙己孔乙己八九子八九子孔")
    assert len(hand) == 25
    rec = crafted(S3, {0: ["孔"], 1: hand}, no_four_but=set())
    st_, err = run(rec, [Event(seat=0, act="discard", card="孔"), Event(seat=1, act="hu", card="孔")])
    assert err is None
    res = st_.result()
    assert (res["points"], res["units"], res["jing"], res["scores"]) == (20, 1, {"main": "五", "count": 6}, [-2, 2, 0])


def test_deck_order_sanjing_five_before_seven():
    # 五五五 (3素) + 七花七花七 (1素2花) + 聽頭 孔孔. deck_order → 主精 五: 5·2 + 7 = 17 (1 分);
    # best → 主精 七: 5 + 7·2 = 19
    hand = ["五", "五", "五", "七", "花七", "花七", "孔"]
    out = case(S3, hand=hand, win_card="孔", rules={"zhu_jing_tie": "deck_order"})
    assert (out["win"], out["points"], out["units"]) == (True, 17, 1)
    assert group(out, "kan", ["五", "五", "五"])["points"] == 10 and group(out, "kan", ["七", "花七", "花七"])["points"] == 7
    assert judged(S3, hand=hand, win_card="孔", rules={"zhu_jing_tie": "deck_order"})["jing"]["main"] == "五"
    out = judged(S3, hand=hand, win_card="孔")
    assert (out["points"], out["jing"]["main"]) == (19, "七")


def test_deck_order_wujing_five_before_nine():
    # 五精: 九九九 (3素 5) + 五五花五 (2素1花 6) + 聽頭 孔孔. deck_order → 主精 五 (before 九): 5 + 12 =
    # 17, a win; 九 first would give 10 + 6 = 16, no win. best: 17 with 五 too.
    hand = ["九", "九", "九", "五", "五", "花五", "孔"]
    for rules in ({"zhu_jing_tie": "deck_order"}, {}):
        out = judged(S5, hand=hand, win_card="孔", rules=rules)
        assert (out["points"], out["units"], out["jing"]) == (17, 1, {"main": "五", "count": 6}), rules


# -- lai_hu=gongan: the 公安 engine's table, all 22 rows (docs decision 14) -------------------
# (素, 花, 賴) of a 七 group -> (胡 not 主精, 胡 as 主精)
GONGAN_TABLE = {
    3: {(1, 2, 0): (7, 14), (2, 1, 0): (6, 12), (3, 0, 0): (5, 10), (0, 1, 2): (12, 24), (0, 2, 1): (9, 18),
        (1, 0, 2): (7, 14), (1, 1, 1): (7, 14), (2, 0, 1): (6, 12)},
    4: {(2, 2, 0): (14, 28), (3, 1, 0): (12, 24), (0, 2, 2): (24, 48), (1, 1, 2): (18, 36), (1, 2, 1): (18, 36),
        (2, 0, 2): (14, 28), (2, 1, 1): (14, 28), (3, 0, 1): (12, 24)},
    5: {(3, 2, 0): (28, 56), (1, 2, 2): (48, 96), (2, 1, 2): (36, 72), (2, 2, 1): (36, 72), (3, 0, 2): (28, 56),
        (3, 1, 1): (28, 56)},
}
ROWS = [(n, k, v) for n, rows in GONGAN_TABLE.items() for k, v in rows.items()]
KIND = {3: "kan", 4: "zha", 5: "fan"}
SAN_FAN = [{"kind": "kai_fan", "cards": ["三", "三", "三", "花三", "花三"]}]  # 精泛 3素2花 28, 56 as 主精


def test_gongan_table_has_22_rows():
    assert len(ROWS) == 22


@pytest.mark.parametrize("n,counts,want", ROWS)
def test_gongan_table(n, counts, want):
    su, hua, lai = counts
    cards = ["七"] * su + ["花七"] * hua + ["賴"] * lai
    rules = {"lai_hu": "gongan"}
    # 主精: the 七 group is the only 精 held; the 聽頭 上上 brings nothing
    out = case(LAI, hand=cards + ["上"], win_card="上", rules=rules)
    assert out["points"] == want[1] and group(out, KIND[n], cards)["points"] == want[1], out["groups"]
    # not 主精: a 三 泛 on the table holds more (or, for a 七 泛, ties and comes first in 乙三五七九)
    out = case(LAI, hand=cards + ["上"], win_card="上", melds=SAN_FAN, rules={**rules, "zhu_jing_tie": "deck_order"})
    assert out["points"] == want[0] + 56 and group(out, KIND[n], cards)["points"] == want[0], out["groups"]


# -- zhao_bu_from: 招's replacement from the front (002 §2 招: 在牌面起一張牌) or the 牌底 ------------
def zhao_deal():
    # the dealer (0) discards 孔; its 下家 (1) holds 孔孔孔 and 招s it; the wall starts with 大, ends with 上
    return crafted(S3, {0: ["孔"], 1: ["孔", "孔", "孔"]}, front=["大"], back=["上"], no_four_but=set())


ZHAO = [Event(seat=0, act="discard", card="孔"), Event(seat=1, act="zhao", card="孔", cards=["孔", "孔", "孔"])]
FRONT, TAIL = Event(seat=1, act="draw", card="大"), Event(seat=1, act="draw", card="上", tail=True)


def test_zhao_bu_from_front_by_default():
    rec = zhao_deal()
    st_, err = run(rec, ZHAO)
    assert err is None and st_.legal_events() == [FRONT]
    st_, err = run(rec, ZHAO + [FRONT])
    assert err is None and st_.phase.value == "discard" and st_.wall_left == 34 - 1
    _, err = run(rec, ZHAO + [TAIL])
    assert (err.code, err.step, err.rule) == ("illegal_action", 2, f"{S3}.bu_pai_end")
    assert "招: 在牌面起一張牌" in err.message


def test_zhao_bu_from_tail():
    rec = msgspec.structs.replace(zhao_deal(), rules={"zhao_bu_from": "tail"})
    st_, err = run(rec, ZHAO)
    assert err is None and st_.legal_events() == [TAIL]
    st_, err = run(rec, ZHAO + [TAIL])
    assert err is None and st_.phase.value == "discard" and st_.drawn == rec_kinds(rec, ["上"])[0]
    _, err = run(rec, ZHAO + [FRONT])
    assert (err.code, err.step, err.rule) == ("illegal_action", 2, f"{S3}.bu_pai_end")


# -- dui_limit: 一局內限“對”2對 (002 §2 對) as 承包 (none) or as a hard cap (2) --------------------
# Seat 1 對s the dealer's 孔 and seat 2's 己 and 千; seat 2 then draws 禮 and wins by 自摸 with
# 七七七 (主精 10) 上上上 大大大 人人人 可可可 知知知 (red 坎 2 each) 八九子 ×2 (0) + 聽頭 禮禮: 20 胡, 1 分.
SEAT2 = list("七七七上上上大大人人可可可知知知八九子八九子禮己千")


def dui_deal(rules=None):
    # the spare 孔, 己 and 千 lie at the wall's end, so no other seat can 對 them
    rec = crafted(S3, {0: ["孔"], 1: list("孔孔己己千千士士士"), 2: SEAT2}, front=["大", "人", "禮"],
                  back=list("孔孔己己千千"), no_four_but=set())
    return msgspec.structs.replace(rec, rules=rules or {})


def dui(card):
    return Event(seat=1, act="dui", card=card, cards=[card, card])


DUI_GAME = [Event(seat=0, act="discard", card="孔"), dui("孔"), Event(seat=1, act="discard", card="士"),
            Event(seat=2, act="draw", card="大"), Event(seat=2, act="discard", card="己"), dui("己"),
            Event(seat=1, act="discard", card="士"), Event(seat=2, act="draw", card="人"),
            Event(seat=2, act="discard", card="千"), dui("千"), Event(seat=1, act="discard", card="士"),
            Event(seat=2, act="draw", card="禮"), Event(seat=2, act="hu", card="禮")]


def test_third_dui_owes_bao_by_default():
    st_, err = run(dui_deal(), DUI_GAME)
    assert err is None and st_.dui_count == [0, 3, 0]
    res = st_.result()
    # 自摸 pays one share from each loser (002 §5); seat 1's 3rd 對 makes it pay both (承包)
    assert (res["points"], res["units"], res["jing"], res["hand_types"]) == (20, 1, {"main": "七", "count": 3}, ["zimo"])
    assert (res["bao"], res["scores"]) == (1, [0, -2, 2])


def test_dui_limit_2_refuses_the_third():
    rec = dui_deal({"dui_limit": 2})
    st_, err = run(rec, DUI_GAME[:9])  # seat 2 has just discarded 千; seat 1 holds 千千 and two 對
    assert err is None and st_.dui_count == [0, 2, 0]
    assert not [o for o in st_.window.options if o.act == "dui"]
    _, err = run(dui_deal(), DUI_GAME[:9])
    assert [o.seat for o in _.window.options if o.act == "dui"] == [1]
    _, err = run(rec, DUI_GAME[:10])
    assert (err.code, err.step, err.rule) == ("illegal_action", 9, f"{S3}.dui")
    assert "dui_limit=2" in err.message


# -- mashang_dui: 如是上家打出可以馬上“對” (002 §2 對) ------------------------------------------------
# Seat 2 wins on the dealer's 禮 (the hand above, 聽頭 禮禮: 20 胡, 1 分, the dealer pays both shares);
# the dealer's 下家, seat 1, holds 禮禮 and may 對 it.
def mashang_deal(rules=None):
    hand = [c for c in SEAT2 if c not in "己千"] + ["大", "人"]
    rec = crafted(S3, {0: ["禮"], 1: ["禮", "禮"], 2: hand}, no_four_but=set())
    return msgspec.structs.replace(rec, rules=rules or {})


LI = Event(seat=0, act="discard", card="禮")
HU2, DUI1 = Event(seat=2, act="hu", card="禮"), Event(seat=1, act="dui", card="禮", cards=["禮", "禮"])


def test_mashang_dui_after_hu_by_default():
    rec = mashang_deal()
    st_, err = run(rec, [LI, HU2])
    assert err is None and (st_.result()["points"], st_.result()["scores"]) == (20, [-2, 0, 2])
    _, err = run(rec, [LI, DUI1])
    assert (err.code, err.step, err.rule) == ("priority_violation", 1, "paipu.priority")


def test_mashang_dui_before_hu():
    rec = mashang_deal({"mashang_dui": "before_hu"})
    st_, err = run(rec, [LI, DUI1])
    assert err is None and st_.melds[1][0][0] == "dui" and st_.turn == 1
    _, err = run(rec, [LI, HU2])
    assert (err.code, err.step, err.rule) == ("priority_violation", 1, "paipu.priority")
    st_, err = run(rec, [LI, Event(seat=1, act="pass"), HU2])
    assert err is None and (st_.result()["points"], st_.result()["scores"]) == (20, [-2, 0, 2])


# -- qing_tong_kai_fan: 開泛 of the 5th drawn as a 請統 replacement (002 §2 開泛) -------------------
def qt_deal(rules=None):
    # 末家 (seat 2) is dealt 七七七花七 and 扎s it at 請統; its replacement from the 牌底 is 花七, the next 大.
    # 二家 (seat 1) holds four 孔.
    rec = crafted(S3, {2: ["七", "七", "七", "花七"], 1: ["孔"] * 4}, back=["大", "花七"], no_four_but={1, 2})
    return msgspec.structs.replace(rec, rules=rules or {})


QT = [Event(seat=2, act="zha", cards=["七", "七", "七", "花七"]), Event(seat=2, act="draw", card="花七", tail=True)]
QT_FAN = Event(seat=2, act="kai_fan", card="花七")
ZHA1 = Event(seat=1, act="zha", cards=["孔"] * 4)


def test_qing_tong_kai_fan_no_by_default():
    rec = qt_deal()
    st_, err = run(rec, QT)
    assert err is None and not [e for e in st_.legal_events() if e.act == "kai_fan"]
    # a 請統 replacement opens no turn: nobody has a 請統 option left, the dealer is to discard
    _, err = run(rec, QT + [QT_FAN])
    assert (err.code, err.step, err.rule) == ("out_of_turn", 2, f"{S3}.turn")
    # ... and while the seat still has another 請統 扎 (four 孔), the 開泛 is refused in words
    rec2 = crafted(S3, {2: ["七", "七", "七", "花七"] + ["孔"] * 4}, back=["大", "花七"], no_four_but={2})
    _, err = run(rec2, QT + [QT_FAN])
    assert (err.code, err.step, err.rule) == ("illegal_action", 2, f"{S3}.qing_tong")
    assert "qing_tong_kai_fan=yes" in err.message
    # the 二家 扎s at once: the 末家 has no option left to pass
    _, err = run(rec, QT + [ZHA1, Event(seat=1, act="draw", card="大", tail=True)])
    assert err is None


def test_qing_tong_kai_fan_yes():
    rec = qt_deal({"qing_tong_kai_fan": "yes"})
    st_, err = run(rec, QT)
    assert err is None and QT_FAN in st_.legal_events()
    dealer_card = rec.deal.hands[0][0]
    st_, err = run(rec, QT + [QT_FAN, Event(seat=2, act="draw", card="大", tail=True),
                              Event(seat=0, act="discard", card=dealer_card)])
    qi = rec_kinds(rec, ["七", "七", "七", "花七", "花七"])
    assert err is None and st_.melds[2] == [("kai_fan", tuple(sorted(qi)))] and st_.wall_left == 34 - 2
    # the 泛 of 七 3素2花: 精泛 28 (002 §3), shown unscored by 主精 on the table
    assert st_.snapshot()["seats"][2]["melds"][0]["points"] == 28
    # the 末家 now has an option: the 二家's 扎 without its pass is a priority_violation (末家先扎)
    _, err = run(rec, QT + [ZHA1])
    assert (err.code, err.step, err.rule) == ("priority_violation", 2, "paipu.priority")
    _, err = run(rec, QT + [Event(seat=2, act="pass"), ZHA1, Event(seat=1, act="draw", card="大", tail=True)])
    assert err is None
    # only the card just drawn: the 5th dealt beside a 請統 扎 is not a replacement
    rec5 = msgspec.structs.replace(crafted(S3, {2: ["七", "七", "七", "花七", "花七"]}, back=["大"], no_four_but={2}),
                                   rules={"qing_tong_kai_fan": "yes"})
    st_, err = run(rec5, [Event(seat=2, act="zha", cards=["七", "七", "七", "花七"]), Event(seat=2, act="draw", card="大", tail=True)])
    assert err is None and not [e for e in st_.legal_events() if e.act == "kai_fan"]
