"""五精花牌 (wujing_huapai, 枝江): the 花牌 family with 精 = 乙 三 五 七 九 (seed
002_f9a80b28e0fcbf1a.txt §五精花牌 定精方法). Shared behaviour is tested in test_sanjing_huapai.py."""

from __future__ import annotations

from collections import Counter

import msgspec
import pytest
from test_sanjing_huapai import OFF_DEFAULT, case, check_sims, first_error, group, sim

V = "wujing_huapai"


@pytest.fixture(scope="module")
def heuristic_games():
    return sim(V, 300, 21)


def test_heuristic_simulation_valid_and_mostly_won(heuristic_games):
    share = check_sims(heuristic_games)
    assert share >= 0.5, share
    assert Counter(r.result.jing.main for r in heuristic_games if r.result.outcome == "win")  # 主精 recorded


def test_random_simulation_valid():
    check_sims(sim(V, 100, 22, "random"))


def test_off_default_simulation_valid():
    assert check_sims(sim(V, 80, 23, rules=OFF_DEFAULT)) >= 0.5
    check_sims(sim(V, 80, 24, "random", rules=OFF_DEFAULT))


def test_yi_and_jiu_are_jing():
    # 孔花乙己: 0 胡 in 三精 (black 句, 乙 no 精); in 五精 花乙 counts 2, doubled as the only 精 (主精)
    hand = ["孔", "花乙", "己", "上"]
    assert group(case("sanjing_huapai", hand=hand, win_card="上"), "ju", ["孔", "花乙", "己"])["points"] == 0
    assert group(case(V, hand=hand, win_card="上"), "ju", ["孔", "花乙", "己"])["points"] == 4
    # 九九花九: a black 坎 (1) in 三精; a 精坎 2素1花 = 6 in 五精, 12 as 主精
    kan = ["九", "九", "花九"]
    assert case("sanjing_huapai", hand=kan + ["上"], win_card="上")["points"] == 1
    assert case(V, hand=kan + ["上"], win_card="上")["points"] == 12


def test_main_among_five():
    # 九 held 4 (扎 3素1花 = 12) outnumbers 乙 held 3 (坎 3素 = 5): 主精 九 → 24 + 5 = 29 → 3 分
    out = case(V, hand=["乙", "乙", "乙", "上"], win_card="上", melds=[{"kind": "zha", "cards": ["九", "九", "九", "花九"]}])
    assert (out["points"], out["units"]) == (29, 3)


def test_claimed_jing_checked(heuristic_games):
    r = next(x for x in heuristic_games if x.result.outcome == "win")
    bad = msgspec.structs.replace(r, result=msgspec.structs.replace(
        r.result, jing=msgspec.structs.replace(r.result.jing, count=r.result.jing.count + 1)))
    assert first_error(bad)[:2] == ("result_mismatch", len(r.actions) - 1)
