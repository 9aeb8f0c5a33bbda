"""Two readings a live public 桂林字牌 server plays where seed 001 is silent or says otherwise
(docs/rules/guilin.md decisions 17 and 18): option ``peng_kai_duo_on_other_flip`` (a 碰 opens to 开舵
on another seat's flip of its 4th card) and ``xing_mode = shangxia`` (上醒 and 下醒 only, turning
again while the winner holds all 4 of either kind).

Every log below is built by hand; every expected code, 胡, 醒 and unit is worked out in the comment
beside it from 001 (§开舵, §翻上中下醒, §玩法规则, §打10胡胡牌规则) and the 胡 table of
docs/rules/guilin.md, never read off the engine.

Card codes: x1..x10 = 小 一..十, d1..d10 = 大 壹..拾 (spec log-format.md §3).
"""

from __future__ import annotations

from collections import Counter

import msgspec
import pytest
import zipai_tables as tables
from zipai_tables import A, errors, scored, verdict
from zipai_tables import record as _record

from replay import variants
from replay.judge import judge
from replay.options import make_ruleset
from replay.replayer import replay_line
from replay.variants.guilin.cases import position


def record(s1: str, front: str, actions: list[dict], s0: str = "", s2: str = "", rules=None, result=None) -> dict:
    return _record(s1, front, actions, s0, s2, rules, result, game_id="server-readings")


def settled(rec: dict) -> tuple:
    v = verdict(rec)
    assert v.valid, v.errors
    c = v.computed
    return c["points"], c["units"], c["xing"], c["scores"]


def case(hand: str, melds=(), win_card: str | None = "", win_from: str = "flip", rules=None, **context) -> dict:
    return tables.case(hand, melds, win_card, win_from, rules, **context)


ON = {"peng_kai_duo_on_other_flip": True}


# == 碰的开舵 on another seat's flip (option peng_kai_duo_on_other_flip, decision 17) ==================
# 001 §开舵: 碰的开舵：自己桌面上碰过的牌中，如果自己摸出第4张牌，即是"开舵"。但其他人手中打出的牌是不能让碰牌
# "开舵"的。 Silent on another seat's flip: by default nothing happens; under the option it is a forced
# 开舵, as the 扫's (扫的开舵：无论谁摸出第4张牌 … "扫"的牌必须得"开舵"; 自己胡牌的话可以不"开舵").
#
# Hand K (the 开舵 reading wins, the 碰 kept does not). Seat 1 is dealt 小八 小八 小十 and the 17 cards
# 一二三 五五 壹贰叁 贰柒拾 肆伍陆 柒捌玖. The dealer discards 小八, seat 1 碰s it and discards 小十; seat 2
# flips the 4th 小八.
#  - 开舵 reading: 开舵 小 6 + 一二三 3 + 壹贰叁 6 + 贰柒拾 6 + 肆伍陆 0 + 柒捌玖 0 + pair 五五 (allowed
#    beside a four) = 21 胡 → 舵 1 + (21 − 10) // 5 = 3.
#  - 碰 kept: 小八 needs 六七 / 七九 / 九十 or 八八捌 / 捌捌八; seat 1 holds none of them: no win.
# 醒 (上中下, default): the next wall card 小十 is 中醒, 上醒 小一 (held once), 下醒 小九 (none), 小十 itself
# (discarded: none) → 1. Units 3 + 1 = 4; another seat's flip: not 自摸, each loser pays one share.
K_SEAT1 = "x1 x2 x3 x5 x5 d1 d2 d2 d3 d4 d5 d6 d7 d7 d8 d9 d10 x8 x8 x10"
K_HAND = "x1 x2 x3 x5 x5 d1 d2 d2 d3 d4 d5 d6 d7 d7 d8 d9 d10"  # after the 碰 and the discard
K_HEAD = [A(0, "discard", "x8"), A(1, "peng", "x8", "x8 x8"), A(1, "discard", "x10"), A(2, "draw", "x8")]


def k_record(tail: list[dict], rules=None, front: str = "x8 x10", result=None) -> dict:
    return record(K_SEAT1, front, K_HEAD + tail, s0="x8", rules=rules, result=result)


def test_by_default_another_seats_flip_does_not_open_a_peng():
    # the seed's words: no option for seat 1 on the flip, so its 开舵 there is out of turn
    assert errors(k_record([A(1, "kai_duo", "x8")])) == [(4, "out_of_turn", "paipu.turn")]
    # nothing is owed: the next draw (seat 2's 下家, seat 0) is legal, and the log then just stops
    assert errors(k_record([A(0, "draw", "x10")])) == [(5, "truncated", "paipu.end")]
    # the 碰 kept, 小八 fits no group
    assert errors(k_record([A(1, "hu", "x8")])) == [(4, "not_a_win", "guilin.hu_shape")]


def test_with_the_option_the_peng_must_open():
    assert errors(k_record([A(1, "kai_duo", "x8")], ON)) == [(5, "truncated", "paipu.end")]  # legal; a discard owed
    # left out: the next draw, or a pass followed by it (a pass leaves a forced act owed)
    assert errors(k_record([A(0, "draw", "x10")], ON)) == [(4, "missing_forced_action", "guilin.kai_duo")]
    assert errors(k_record([A(1, "pass"), A(0, "draw", "x10")], ON)) == [(5, "missing_forced_action", "guilin.kai_duo")]


@pytest.mark.parametrize("tail", [[A(1, "hu", "x8")], [A(1, "kai_duo", "x8"), A(1, "hu", "x8")]],
                         ids=["hu in place of the 开舵", "开舵 then hu"])
def test_with_the_option_the_hu_reads_the_peng_opened(tail):
    # 21 胡, 4 units, 醒 小十 → 1; seat 2 flipped: [-4, 8, -4] (worked out above)
    assert settled(k_record(tail, ON)) == (21, 4, {"cards": ["x10"], "count": 1}, [-4, 8, -4])


# Hand B (both readings win; the better one counts, decision 6). Seat 1 is dealt 捌 捌 小十 and the 17
# cards 一二三 贰柒拾 小八 小八 四五六 五六七 肆伍陆; the dealer discards 捌, seat 1 碰s it and
# discards 小十; seat 2 flips the 4th 捌.
#  - 碰 kept: 一二三 3 (小一 fits nothing else) + 贰柒拾 6 (贰 and 拾 fit nothing else) + 肆伍陆 0 +
#    搭 八八捌 0 (捌's only group left: 陆柒捌 would take 贰柒拾's 柒 or 肆伍陆's 陆) + 四五六 0 + 五六七 0 +
#    碰 大 3 = 12 胡 → 舵 1.
#  - 开舵: 开舵 大 9 + 3 + 6 + 肆伍陆 0 + 四五六 0 + 五六七 0 + pair 八八 = 18 胡 → 舵 1 + 8 // 5 = 2.
# 醒: 中 小十, 上 小一 (1), 下 小九 (0) → 1. Units: 碰 kept 1 + 1 = 2, opened 2 + 1 = 3.
B_SEAT1 = "x1 x2 x3 d2 d7 d10 x8 x8 x4 x5 x6 d4 d5 d6 x5 x6 x7 d8 d8 x10"
B_HAND = "x1 x2 x3 d2 d7 d10 x8 x8 x4 x5 x6 d4 d5 d6 x5 x6 x7"
B_HEAD = [A(0, "discard", "d8"), A(1, "peng", "d8", "d8 d8"), A(1, "discard", "x10"), A(2, "draw", "d8")]


def b_record(tail: list[dict], rules=None) -> dict:
    return record(B_SEAT1, "d8 x10", B_HEAD + tail, s0="d8", rules=rules)


def test_a_hu_on_another_seats_flip_of_the_peng_card_is_scored_the_better_way():
    hu = [A(1, "hu", "d8")]
    assert settled(b_record(hu)) == (12, 2, {"cards": ["x10"], "count": 1}, [-2, 4, -2])  # default: the 碰 kept
    assert settled(b_record(hu, ON)) == (18, 3, {"cards": ["x10"], "count": 1}, [-3, 6, -3])  # opened: 18 > 12
    assert settled(b_record([A(1, "kai_duo", "d8"), *hu], ON)) == (18, 3, {"cards": ["x10"], "count": 1}, [-3, 6, -3])
    # by default seat 1's only option there is its 胡
    assert errors(b_record([A(1, "kai_duo", "d8"), *hu])) == [(4, "illegal_action", "paipu.turn")]


@pytest.mark.parametrize("rules", [{}, ON], ids=["default", "option"])
def test_a_discard_of_the_fourth_opens_no_peng_either_way(rules):
    # 其他人手中打出的牌是不能让碰牌开舵的. Seat 2 holds 小十 小十 and the 4th 小八: it 碰s seat 1's 小十 and
    # discards 小八. Seat 1 has no option on it (a 开舵 is out of turn), its 胡 is no win (the 碰 kept,
    # 小八 fits nothing; a discard never reads it opened), and seat 0 draws next.
    head = [A(0, "discard", "x8"), A(1, "peng", "x8", "x8 x8"), A(1, "discard", "x10"), A(2, "peng", "x10", "x10 x10"),
            A(2, "discard", "x8")]

    def rec(tail: list[dict]) -> dict:
        return record(K_SEAT1, "d9", head + tail, s0="x8", s2="x10 x10 x8", rules=rules)

    assert errors(rec([A(1, "kai_duo", "x8")])) == [(5, "out_of_turn", "paipu.turn")]
    assert errors(rec([A(1, "hu", "x8")])) == [(5, "not_a_win", "guilin.hu_shape")]
    assert errors(rec([A(0, "draw", "d9")])) == [(6, "truncated", "paipu.end")]


def test_score_cases_follow_the_option():
    # paipu score (spec §8): the same hands, seat 0's flip of the 4th (win_from flip), no 醒 given
    k = case(K_HAND, [("peng", "x8 x8 x8")], "x8")
    assert scored(k)[0] is False  # default: 小八 fits nothing
    assert scored({**k, "rules": ON}) == (True, 21, 3, [])  # 21 胡 → 3 舵, not 自摸
    assert scored({**k, "win_from": "discard", "rules": ON})[0] is False  # a discard never opens a 碰
    b = case(B_HAND, [("peng", "d8 d8 d8")], "d8")
    assert scored(b) == (True, 12, 1, [])
    assert scored({**b, "rules": ON}) == (True, 18, 2, [])
    # one's own flip opens the 碰 under both values (001 §开舵): 开舵 then 自摸 +1
    assert scored({**b, "win_from": "self"}) == (True, 18, 3, ["zimo"])
    assert scored({**b, "win_from": "self", "rules": ON}) == (True, 18, 3, ["zimo"])


# == 上下醒 (xing_mode = shangxia, decision 18) ===========================================================
# 001 §翻上中下醒: 从剩余的牌中摸出第一张牌，这张牌为中醒，这张牌的上一张就是上醒，下一张就是下醒. The server's
# rooms count 上醒 and 下醒 only, and while the winner holds all 4 copies of the turned card's 上 or 下
# kind, the next card is turned as well.
#
# Hand K won under the option (21 胡, 3 舵). The winner holds 一二三 五五 小八 ×4 (开舵) 壹 贰贰 叁 肆
# 伍 陆 柒柒 捌 玖 拾 (小十 discarded).
#  - 小七 turned: 上 小八 4 + 下 小六 0 = 4, and 4 小八 are held → 叁 turned: 上 肆 1 + 下 贰 2 = 3, neither
#    4 → stop. 醒 7, units 3 + 7 = 10. (上中下 would count 小八 4 + 小七 0 + 小六 0 = 4 on 小七 alone.)
#  - 小九 turned: 上 小十 0 + 下 小八 4 = 4 (all 4 of the 下 kind) → 叁 3 → 醒 7.
#  - 小七, 小九, 叁: 4 + 4 + 3 = 11 → units 14.
#  - 叁 alone: 3, no re-turn → units 6 (上中下: 肆 1 + 叁 1 + 贰 2 = 4).
SX = {**ON, "xing_mode": "shangxia"}


@pytest.mark.parametrize("front, cards, count", [
    ("x7 d3", ["x7", "d3"], 7),
    ("x9 d3", ["x9", "d3"], 7),
    ("x7 x9 d3", ["x7", "x9", "d3"], 11),
    ("d3 x7", ["d3"], 3),
])
def test_shangxia_counts_the_neighbours_and_turns_again_on_four(front, cards, count):
    units = 3 + count
    got = settled(k_record([A(1, "hu", "x8")], SX, front="x8 " + front))
    assert got == (21, units, {"cards": cards, "count": count}, [-units, 2 * units, -units])


def test_the_server_settlement_is_a_result_mismatch_under_the_default_xing():
    # The server's claim for 小七 叁 (上下醒): 醒 7, units 10, breakdown 舵 3 + 醒 7. Under xing_mode =
    # shangzhongxia (the default) the engine counts 小七 only: 4 醒, 7 units.
    claim = {"outcome": "win", "winner": 1, "win_card": "x8", "from": 2, "points": 21, "hand_types": [],
             "xing": {"cards": ["x7", "d3"], "count": 7}, "units": 10, "breakdown": {"tuo": 3, "xing": 7},
             "scores": [-10, 20, -10]}
    hu = [A(1, "hu", "x8")]
    assert verdict(k_record(hu, SX, front="x8 x7 d3", result=claim)).valid
    v = verdict(k_record(hu, ON, front="x8 x7 d3", result=claim))
    # one result_mismatch per field that differs, at the 胡: xing, and the units, breakdown and scores
    # that follow from it (not points, winner, from …)
    assert {(e.step, e.code) for e in v.errors} == {(4, "result_mismatch")}
    fields = sorted(e.message.split(":", 1)[0] for e in v.errors)
    assert fields == ["result.breakdown", "result.scores", "result.units", "result.xing"]
    assert v.computed["xing"] == {"cards": ["x7"], "count": 4} and v.computed["units"] == 7


def test_a_scoring_option_keeps_the_actions_legal():
    # the same log re-labelled with each 醒 reading: the actions stay legal, only the settlement moves
    # (fanxing: 小七 itself, held 0 → 0 醒, units 3)
    got = {mode: settled(k_record([A(1, "hu", "x8")], {**ON, "xing_mode": mode}, front="x8 x7 d3"))[1:3]
           for mode in ("shangzhongxia", "fanxing", "shangxia")}
    assert got == {"shangzhongxia": (7, {"cards": ["x7"], "count": 4}), "fanxing": (3, {"cards": ["x7"], "count": 0}),
                   "shangxia": (10, {"cards": ["x7", "d3"], "count": 7})}


def _xing_of(c: dict) -> dict:
    ruleset = make_ruleset("guilin", variants.get("guilin").options, c["rules"])
    j = judge(position(c, ruleset))
    assert j.win and j.outcome is not None
    return j.outcome["xing"]


@pytest.mark.parametrize("turned, cards, count", [
    (["x7", "d3"], ["x7", "d3"], 7),
    (["x7", "x9", "d3"], ["x7", "x9", "d3"], 11),
    (["x7"], ["x7"], 4),  # the wall runs out while re-turning: stop
    (["d3", "x7"], ["d3"], 3),
])
def test_score_case_xing_cards_under_shangxia(turned, cards, count):
    # Hand K as a score case (win on seat 0's flip, 21 胡 → 3 舵 under the option), 醒 as turned
    c = case(K_HAND, [("peng", "x8 x8 x8")], "x8", rules=SX, xing_cards=turned)
    assert _xing_of(c) == {"cards": cards, "count": count}
    assert scored(c) == (True, 21, 3 + count, [])


def test_score_case_xing_default_and_haidi():
    c = case(K_HAND, [("peng", "x8 x8 x8")], "x8", rules=ON, xing_cards=["d3", "x7"])
    assert scored(c) == (True, 21, 3 + 4, [])  # 上中下 on 叁: 肆 1 + 叁 1 + 贰 2
    # 海底: the wall is empty, no 醒 under any reading
    c = case(K_HAND, [("peng", "x8 x8 x8")], "x8", rules=SX, xing_cards=["x7", "d3"], last_card=True)
    assert scored(c) == (True, 21, 3, [])


def test_the_options_and_their_kinds():
    for vid in ("guilin", "zipai"):
        opts = {o.name: o for o in variants.get(vid).options}
        peng = opts["peng_kai_duo_on_other_flip"]
        assert (peng.kind, peng.default, tuple(peng.allowed)) == ("play", False, (False, True))
        xing = opts["xing_mode"]
        assert xing.kind == "scoring" and "shangxia" in xing.allowed
    assert {o.name: o.default for o in variants.get("guilin").options}["xing_mode"] == "shangzhongxia"
    assert {o.name: o.default for o in variants.get("zipai").options}["xing_mode"] == "fanxing"
    # the default ruleset's id is unchanged: neither option is set away from its default
    assert verdict(k_record([A(0, "draw", "x10")])).ruleset_id == "guilin-default"
    assert verdict(k_record([A(0, "draw", "x10")], SX)).ruleset_id != "guilin-default"


# == simulated games under both readings ===============================================================
@pytest.mark.parametrize("variant", ["guilin", "zipai"])
def test_simulated_games_under_both_readings(variant):
    """Self-play under both options: every log validates; the bots meet the 碰's 开舵 on another
    seat's flip (forced, so a bot always takes it) and re-turned 醒; and every win's score case
    (``position.score_case_of`` at the winning card's window) gives replay's own result, as
    tests/test_judgment_guilin.py checks for the other option sets."""
    from test_judgment_guilin import FORCED, _accepted, judged, window_step

    from replay.replayer import replay_record
    from replay.simulator import simulate
    from replay.variants.guilin.cases import score_case_of

    seen = Counter()
    for rec in simulate(variant, 300, 13, "heuristic", SX):
        v = replay_line(msgspec.json.encode(rec)).verdict
        assert v.valid, (rec.game_id, v.errors)
        pengs = set()
        for i, ev in enumerate(rec.actions):
            if ev.act == "peng":
                pengs.add((ev.seat, ev.card))
            elif ev.act == "kai_duo" and (ev.seat, ev.card) in pengs:
                j = i - 1
                while rec.actions[j].act == "pass":
                    j -= 1
                seen["碰 opened on " + ("its own" if rec.actions[j].seat == ev.seat else "another seat's") + " flip"] += 1
        r = rec.result
        if r.outcome != "win":
            continue
        seen[f"醒 cards turned: {len(r.xing.cards)}"] += 1
        k = len(rec.actions) - 1
        state = replay_record(rec, stop_after=window_step(rec.actions, k, r.winner, rec.actions[k].card)).state
        case = score_case_of(state, r.winner)
        lines = _accepted(state, r.winner, case["win_card"])
        # the logged line is the best one replay accepts there (a 胡 in place of the 开舵 is read both ways)
        assert lines != "skip" and (r.points, r.units, r.hand_types) == lines[0], (rec.game_id, lines)
        assert judged(case) == (True, *lines[0]), (rec.game_id, case)
        seen["after a forced act" if rec.actions[k - 1].act in FORCED else "direct"] += 1
    print(variant, dict(seen))
    assert seen["碰 opened on another seat's flip"] and seen["碰 opened on its own flip"], seen
    assert seen["醒 cards turned: 2"], seen
