"""雙別桿花牌 (shuangbiegan_huapai): the 花牌 family with two 賴 (112 cards) standing for any 精 as a
flowered 三, 五 or 七 (seed 002_f9a80b28e0fcbf1a.txt §雙別桿花牌 定精方法: 賴子可作為任一精（代花三五七）).
The engine reads every 賴 every way and keeps the most 胡 (docs/rules/huapai.md)."""

from __future__ import annotations

import msgspec
import pytest
from test_sanjing_huapai import OFF_DEFAULT, case, check_sims, crafted, group, run, sim

from replay.record import Event
from replay.replayer import replay_line

V = "shuangbiegan_huapai"


@pytest.fixture(scope="module")
def heuristic_games():
    return sim(V, 300, 31)


def test_heuristic_simulation_valid_and_mostly_won(heuristic_games):
    share = check_sims(heuristic_games)
    assert share >= 0.5, share
    # some winners used a 賴 in their split, and it counted among their 精
    lai_wins = 0
    for r in heuristic_games:
        if r.result.outcome != "win":
            continue
        f = replay_line(msgspec.json.encode(r)).facts
        used = sum(c == "賴" for m in f["melds"] if m["seat"] == r.result.winner for c in m["cards"])
        if used:
            lai_wins += 1
            assert r.result.jing.count >= used
    assert lai_wins >= 5


def test_random_simulation_valid():
    check_sims(sim(V, 100, 32, "random"))


def test_off_default_simulation_valid():
    assert check_sims(sim(V, 80, 33, rules=OFF_DEFAULT)) >= 0.5
    check_sims(sim(V, 80, 34, "random", rules=OFF_DEFAULT))


def test_lai_takes_the_best_jing():
    # 三三三 七七 賴 孔 + 孔: 賴 must be 花七 (as 三 or 五 nothing fits). 三 and 七 then tie at
    # three held: 七 主精 → 三 坎 5 + 七七賴 坎 (2素1花) 6·2 = 17; 三 主精 → 10 + 6 = 16.
    hand = ["三", "三", "三", "七", "七", "賴", "孔"]
    out = case(V, hand=hand, win_card="孔")
    assert (out["win"], out["points"]) == (True, 17)
    assert group(out, "kan", ["七", "七", "賴"])["points"] == 12
    out = case(V, hand=hand, win_card="孔", rules={"zhu_jing_tie": "deck_order"})
    assert (out["win"], out["points"]) == (False, 16)


def test_lai_in_a_ju_and_as_winning_card():
    # 化賴千: 賴 = 花三 → 2, doubled as the only 精 held
    assert group(case(V, hand=["化", "賴", "千", "上"], win_card="上"), "ju", ["化", "賴", "千"])["points"] == 4
    # 三三 上上 + 賴: 三三賴 精坎 2素1花 6, 主精 12
    out = case(V, hand=["三", "三", "上", "上"], win_card="賴")
    assert out["points"] == 12 and group(out, "kan", ["三", "三", "賴"])["points"] == 12


def test_lai_waits():
    # a lone 賴 is a 聽頭 half of any 精: pairs and 句 partners of 三, 五, 七, and the other 賴
    want = ["乙", "花乙", "化", "三", "花三", "千", "七", "花七", "十", "士", "八", "九", "花九", "二", "四",
            "五", "花五", "六", "賴"]
    assert [w["card"] for w in case(V, hand=["賴"])["waits"]] == want


def test_lai_is_never_claimed():
    # the dealer discards a 賴; seat 1 holds the other and 三三: no 對 on a 賴
    rec = crafted(V, {0: ["賴"], 1: ["賴", "三", "三"]}, no_four_but=set())
    st_, err = run(rec, [Event(seat=0, act="discard", card="賴")])
    assert err is None and not [o for o in st_.window.options if o.act != "hu"]
    _, err = run(rec, [Event(seat=0, act="discard", card="賴"), Event(seat=1, act="dui", card="賴", cards=["賴", "三"])])
    assert (err.code, err.step, err.rule) == ("illegal_action", 1, f"{V}.dui")


@pytest.mark.parametrize("cards,kind,hua,gongan", [
    (["花七", "花七", "賴"], "kan", 16, 18),  # 坎 2花1賴: 5 + 3 花 = 8 (hua) or 9 (公安), ×2 as 主精
    (["花七", "賴", "賴"], "kan", 16, 24),  # 坎 1花2賴: 8 or 12
    (["七", "花七", "花七", "賴", "賴"], "fan", 72, 96),  # 七穿 1素2花2賴: 20 + 4·4 = 36, or 4 × 12 = 48
    (["七", "花七", "花七", "賴"], "zha", 32, 36),  # 扎 1素2花1賴: 10 + 2·3 = 16, or 2 × 9 (three flowered copies)
    (["七", "七", "花七"], "kan", 12, 12),  # no 賴: the seed's 2素1花 6 either way
])
def test_lai_hu_option(cards, kind, hua, gongan):
    # the 七 group is the only 精 held (主精, doubled); the 聽頭 上上 brings nothing
    for value, want in (("hua", hua), ("gongan", gongan)):
        out = case(V, hand=cards + ["上"], win_card="上", rules={"lai_hu": value})
        assert out["points"] == want and group(out, kind, cards)["points"] == want, (value, out["groups"])
    # a 賴 in a 句 is a 花 copy under both: 化賴千 = 2, ×2
    out = case(V, hand=["化", "賴", "千", "上"], win_card="上", rules={"lai_hu": "gongan"})
    assert group(out, "ju", ["化", "賴", "千"])["points"] == 4
