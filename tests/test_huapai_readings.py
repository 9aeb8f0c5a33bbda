"""花牌 family (三精, 五精, 雙別桿): the 主精 tie order, the 公安 table of `lai_hu=gongan`, and the
readings an independent 花牌 engine plays (options `zhao_bu_from`, `dui_limit`, `mashang_dui`,
`qing_tong_kai_fan`). Hands and logs are built by hand; every value is worked out from seed
002_f9a80b28e0fcbf1a.txt (§2 操作規則, §3 計胡規則, §4, §5) and docs/rules/huapai.md."""

from __future__ import annotations

import msgspec
import pytest

from replay.judge import judge
from replay.options import make_ruleset
from replay.record import Event
from replay import variants
from test_sanjing_huapai import case, crafted, group, rec_kinds, run

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
