"""桂林字牌 / 字牌: one verdict (``paipu score`` and replay alike) and no forced act skipped. One test (or a few) per defect, with hand-made logs and score cases whose values are
worked out from the seeds in the comments (001 = 001_b125067d32c1f7d7.txt, 004 =
004_d2ed00504ff040a5.txt), and the open readings as rule options, each value tried.

Card codes: x1..x10 = 小 一..十, d1..d10 = 大 壹..拾 (spec §3). Hand-made tables: seat 0 deals
(21 cards), seats 1 and 2 hold 20; the cards a test does not name are dealt to seats 0 and 2 in
turn (neither gets a third of a kind from them), then the wall follows the named front cards.
"""

from __future__ import annotations

import json
from collections import Counter

import msgspec
import pytest
from zipai_tables import A, H, case, errors, record, scored, table, verdict

from replay import variants
from replay.options import make_ruleset
from replay.record import Event
from replay.replayer import replay_record
from replay.score import score_case
from replay.simulator import simulate
from replay.variants.guilin.cases import position

# -- defect 1: the forced 扫穿 of one's own 4th card onto a 扫 (001 §扫穿) ----------------------------
# 有了"扫"后，如果是自己摸到第4张牌，"扫"就变成了"扫穿" … 即使是自己要胡，都不给，除非是"扫穿"刚好就能胡.
D1_HAND = "x1 x2 x3 x4 x5 x6 x9 x10 d1 d2 d2 d3 d4 d5 d6 d7 d10"


def test_score_sao_chuan_is_forced_before_the_win():
    # With the 扫 kept and 小八 in the hand (七…九 needs it: 八九十) it would read
    # 18 胡 / 3 units; but the 扫穿 takes the card: 一二三 四五六 壹贰叁 贰柒拾 肆伍陆 leave 小九 小十
    # alone, and without a four-card set... with the 扫穿 (a four) a pair would be allowed, but
    # 九 十 are no pair: no win.
    out = score_case(case(D1_HAND, [("sao", "x8 x8 x8")], "x8"))
    assert (out["win"], out["points"], out["units"]) == (False, None, None)
    assert "after its forced `sao_chuan`" in out["reason"]


def test_score_sao_chuan_that_completes_the_hand_wins():
    # 扫穿 刚好就能胡: 扫穿 小八 9 + 一二三 3 + 壹贰叁 6 + 贰柒拾 6 + 四五六 0 + 肆伍陆 0 + pair 九九 (beside
    # the four, 004 §2 7) = 24 胡 → 舵 1 + 14//5 = 3, 自摸 +1 = 4 units (no 醒 given). Read with the
    # 扫 kept, 小八 fits nothing (no 七; 八九九? no shape): the old scorer called it no win.
    c = case("x1 x2 x3 x4 x5 x6 x9 x9 d1 d2 d2 d3 d4 d5 d6 d7 d10", [("sao", "x8 x8 x8")], "x8")
    assert scored(c) == (True, 24, 4, ["zimo"])
    groups = score_case(c)["groups"]
    assert {"kind": "sao_chuan", "cards": ["x8"] * 4, "points": 9} in groups
    assert {"kind": "dui", "cards": ["x9", "x9"], "points": 0} in groups


def test_score_under_the_minimum_after_the_forced_sao_chuan_and_the_waits():
    # 扫 小八 + 四五六 九九, own flip 小八: 扫穿 小 9 + 四五六 0 + pair 九九 0 = 9 胡, complete but under
    # 10: no win, 9 points and the split (the refusal's detail). The waits on one's own flips:
    # 小八 → that 9; 小九 → forced 扫 小九 3 + 扫 小八 3 + 四五六 = 6; 玖 → 搭 九九玖 0 + 扫 3 = 3.
    c = case("x4 x5 x6 x9 x9", [("sao", "x8 x8 x8")], "x8")
    out = score_case(c)
    assert (out["win"], out["points"], out["units"]) == (False, 9, None)
    assert out["groups"] == [{"kind": "sao_chuan", "cards": ["x8"] * 4, "points": 9},
                             {"kind": "shunzi", "cards": ["x4", "x5", "x6"], "points": 0},
                             {"kind": "dui", "cards": ["x9", "x9"], "points": 0}]
    del c["win_card"]
    assert score_case(c) == {"waits": [{"card": "x8", "points": 9, "win": False}, {"card": "x9", "points": 6, "win": False},
                                       {"card": "d9", "points": 3, "win": False}]}


# Seat 1 holds 小八 小八, flips 小八 (扫, forced), discards 玖; later flips the 4th 小八.
D1_ACTS = [A(0, "discard", "d10"), A(1, "draw", "x8"), A(1, "sao", "x8", "x8 x8"), A(1, "discard", "d9"),
           A(2, "draw", "d8"), A(0, "draw", "d8"), A(1, "draw", "x8")]


def d1_record(tail: list[dict]) -> dict:
    return record(D1_HAND + " x8 x8 d9", "x8 d8 d8 x8", D1_ACTS + tail, s0="d10")


def test_replay_rejects_the_same_position():
    # the 胡 in place of the 扫穿: missing_forced_action; the 扫穿 then the 胡: not_a_win
    assert errors(d1_record([A(1, "hu", "x8")])) == [(7, "missing_forced_action", "guilin.sao_chuan")]
    assert errors(d1_record([A(1, "sao_chuan", "x8"), A(1, "hu", "x8")])) == [(8, "not_a_win", "guilin.hu_shape")]


# -- defect 2: the 开舵 reading of the winning card (001 §开舵) -------------------------------------
def test_score_kai_duo_of_ones_own_peng():
    # 碰 小八 + one's own flip of the 4th = 开舵 (碰的开舵: 自己摸出第4张牌). Then
    # 开舵 小 6 + 一二三 3 + 壹贰叁 6 + 贰柒拾 6 + 肆伍陆 0 + 柒捌玖 0 + pair 五五 (beside the four) = 21 胡;
    # 舵 1 + 11//5 = 3, 自摸 +1 = 4. The 碰 kept, 小八 fits nothing: the old scorer said no win.
    c = case("x1 x2 x3 x5 x5 d1 d2 d2 d3 d4 d5 d6 d7 d7 d8 d9 d10", [("peng", "x8 x8 x8")], "x8")
    assert scored(c) == (True, 21, 4, ["zimo"])


def test_replay_accepts_the_kai_duo_then_hu():
    # The same hand in play: seat 1 碰s the dealer's 小八, discards 小十, later flips the 4th 小八:
    # 开舵 (forced), then 胡 on it. 醒: wall[3] 小十 is 中醒, 上醒 小一 (held once), 下醒 小九 (none):
    # 1. Units 3 + 1 (自摸) + 1 = 5; both losers pay.
    hand = "x1 x2 x3 x5 x5 d1 d2 d2 d3 d4 d5 d6 d7 d7 d8 d9 d10 x8 x8 x10"
    acts = [A(0, "discard", "x8"), A(1, "peng", "x8", "x8 x8"), A(1, "discard", "x10"), A(2, "draw", "d8"),
            A(0, "draw", "d8"), A(1, "draw", "x8"), A(1, "kai_duo", "x8"), A(1, "hu", "x8")]
    v = verdict(record(hand, "d8 d8 x8 x10", acts, s0="x8"))
    assert v.valid, v.errors
    c = v.computed
    assert (c["points"], c["units"], c["hand_types"], c["xing"]) == (21, 5, ["zimo"], {"cards": ["x10"], "count": 1})
    assert c["scores"] == [-5, 10, -5]


def test_score_takes_the_better_of_the_plain_and_the_kai_duo_reading():
    # 碰 捌 + own flip 捌 with 一二三 小八 小八 贰柒拾 in hand. Plain 胡 (the 碰 kept, 捌 in the hand):
    # 碰 大 3 + 一二三 3 + 贰柒拾 6 + 搭 八八捌 0 = 12 胡. 开舵 then 胡: 开舵 大 9 + 3 + 6 + pair 八八 = 18
    # 胡 → 舵 1 + 8//5 = 2, 自摸 +1 = 3. Replay accepts both lines; the score is the higher. A 胡
    # logged in place of the forced 开舵 is read both ways too (spec §8 highest split), so the
    # direct 胡 scores the 开舵 reading: one verdict whichever line the log took.
    c = case("x1 x2 x3 x8 x8 d2 d7 d10", [("peng", "d8 d8 d8")], "d8")
    assert scored(c) == (True, 18, 3, ["zimo"])
    pos = position(c, make_ruleset("guilin", variants.get("guilin").options, {}))
    direct = pos.state.fork()
    direct.apply(Event(seat=1, act="hu", card="d8"))
    duo = pos.state.fork()
    duo.apply(Event(seat=1, act="kai_duo", card="d8"))
    duo.apply(Event(seat=1, act="hu", card="d8"))
    assert (direct.result()["points"], duo.result()["points"]) == (18, 18)
    assert [g.kind for g in direct.win["groups"] if g.kind in ("peng", "kai_duo")] == ["kai_duo"]


def test_a_direct_hu_on_a_table_meld_keeps_the_plain_reading_when_it_is_higher():
    # 扫 柒 + another seat's flip of 柒, hand 六七八 捌玖 壹贰叁: the 扫 kept and 柒 used in 柒捌玖 is
    # 扫 大 6 + 六七八 0 + 柒捌玖 0 + 壹贰叁 6 = 12 胡 → 1 + 2//5 = 1 舵, while the 开舵 reading leaves
    # 捌玖 loose (no split): the direct 胡 and the score take the plain reading.
    c = case("x6 x7 x8 d8 d9 d1 d2 d3", [("sao", "d7 d7 d7")], "d7", "flip")
    assert scored(c) == (True, 12, 1, [])


def test_score_kai_duo_of_a_sao_on_another_seats_flip_and_on_a_discard():
    # 扫 柒 + another seat's flip of the 4th: 扫的开舵 (无论谁摸出第4张牌). 开舵 大 9 + 一二三 3 +
    # 壹贰叁 6 + pair 五五 = 18 胡 → 2 舵, not 自摸. The 扫 kept, 柒 fits nothing.
    c = case("x1 x2 x3 x5 x5 d1 d2 d3", [("sao", "d7 d7 d7")], "d7", "flip")
    assert scored(c) == (True, 18, 2, [])
    # a discard opens a 扫 only with sao_kai_duo_on_discard (decision 4): default no win
    assert scored({**c, "win_from": "discard"})[0] is False
    assert scored({**c, "win_from": "discard", "rules": {"sao_kai_duo_on_discard": True}}) == (True, 18, 2, [])


# -- defect 3: a 吃 in place of a forced 开舵 (001 §开舵 就要开舵) ------------------------------------
def test_chi_instead_of_the_kai_duo_of_a_dealt_kan():
    # 起手牌开舵: seat 1's dealt 小五×3 and the dealer's discard of the 4th: 开舵 is forced.
    s1 = "x5 x5 x5 x4 x6 x1 x2 x3 d1 d2 d3 d4 d5 d6 d7 d8 d9 x7 x8 x9"
    chi = record(s1, "", [A(0, "discard", "x5"), A(1, "chi", "x5", "x4 x6")], s0="x5")
    assert errors(chi) == [(1, "missing_forced_action", "guilin.kai_duo")]
    duo = record(s1, "", [A(0, "discard", "x5"), A(1, "kai_duo", "x5", "x5 x5 x5")], s0="x5")
    assert errors(duo) == [(2, "truncated", "paipu.end")]  # legal; seat 1 owes its discard


def test_chi_instead_of_the_kai_duo_of_ones_own_peng():
    # 碰的开舵: seat 1 碰s 小八, later flips the 4th itself and eats it with 七 九 instead.
    s1 = "x8 x8 x7 x9 x1 x2 x3 d1 d2 d3 d4 d5 d6 d7 d8 d9 x4 x5 x6 d10"
    acts = [A(0, "discard", "x8"), A(1, "peng", "x8", "x8 x8"), A(1, "discard", "d10"), A(2, "draw", "d8"),
            A(0, "draw", "d8"), A(1, "draw", "x8")]
    assert errors(record(s1, "d8 d8 x8", acts + [A(1, "chi", "x8", "x7 x9")], s0="x8")) == \
        [(6, "missing_forced_action", "guilin.kai_duo")]
    assert errors(record(s1, "d8 d8 x8", acts + [A(1, "kai_duo", "x8")], s0="x8")) == [(7, "truncated", "paipu.end")]


def test_chi_instead_of_the_kai_duo_of_ones_own_sao():
    # 扫的开舵: seat 1 扫s 小六 (its own flip), then seat 0 (its 上家) flips the 4th: seat 1 may 吃 a
    # flip of its 上家, but the 开舵 is forced.
    s1 = "x6 x6 x5 x7 x1 x2 x3 d1 d2 d3 d4 d5 d6 d7 d8 d9 x8 x9 x10 d10"
    acts = [A(0, "discard", "d10"), A(1, "draw", "x6"), A(1, "sao", "x6", "x6 x6"), A(1, "discard", "d10"),
            A(2, "draw", "d8"), A(0, "draw", "x6")]
    assert errors(record(s1, "x6 d8 x6", acts + [A(1, "chi", "x6", "x5 x7")], s0="d10")) == \
        [(6, "missing_forced_action", "guilin.kai_duo")]
    assert errors(record(s1, "x6 d8 x6", acts + [A(1, "kai_duo", "x6")], s0="d10")) == [(7, "truncated", "paipu.end")]


# -- defect 4: 点炮不准胡 after a forced 开舵 (001 §点炮不准胡规则) ---------------------------------------
# Seat 1: dealt 小五×3 + 一二三 壹贰叁 贰柒拾 七八九 肆伍陆 玖玖. The dealer's first discard 小五: 开舵
# (forced), then 胡 on it: 开舵 小 6 + 3 + 6 + 6 + 0 + 0 + pair 玖玖 = 21 胡 → 3 舵, 地胡 ×2 = 6; 醒 中
# 小十 (wall[0], nothing drawn): 上 小一 1 + 下 小九 1 = 2 → 8 units; 点炮: the dealer pays both.
D4_S1 = "x5 x5 x5 x1 x2 x3 d1 d2 d3 d2 d7 d10 x7 x8 x9 d4 d5 d6 d9 d9"
D4_ACTS = [A(0, "discard", "x5"), A(1, "kai_duo", "x5", "x5 x5 x5"), A(1, "hu", "x5")]


def test_kai_duo_then_hu_on_a_discard():
    v = verdict(record(D4_S1, "x10", D4_ACTS, s0="x5"))
    assert v.valid, v.errors
    c = v.computed
    assert (c["points"], c["from"], c["hand_types"], c["units"], c["scores"]) == (21, 0, ["dihu"], 8, [-16, 16, 0])


def test_dian_pao_bu_zhun_hu_holds_after_a_forced_kai_duo():
    rules = {"dian_pao_bu_zhun_hu": True}
    assert errors(record(D4_S1, "x10", D4_ACTS, s0="x5", rules=rules)) == \
        [(2, "illegal_action", "guilin.dian_pao_bu_zhun_hu")]
    plain = record(D4_S1, "x10", [A(0, "discard", "x5"), A(1, "hu", "x5")], s0="x5", rules=rules)
    assert errors(plain) == [(1, "illegal_action", "guilin.dian_pao_bu_zhun_hu")]
    # the score case of that position: a 胡 on a discard, refused either way
    c = case("x1 x2 x3 d1 d2 d3 d2 d7 d10 x7 x8 x9 d4 d5 d6 d9 d9", [("kan", "x5 x5 x5")], "x5", "discard", rules=rules)
    assert scored(c)[0] is False and "点炮不准胡" in score_case(c)["reason"]
    assert scored({**c, "rules": {}}) == (True, 21, 3, [])


def test_no_simulated_win_on_a_discard_under_dian_pao_bu_zhun_hu():
    # paipu tune --b dian_pao_bu_zhun_hu=true --seed 3: before the fix, 4 of the first 104 wins were
    # 点炮 (a forced 开舵 on a discard, then 胡)
    games = simulate("guilin", 120, 3, rules={"dian_pao_bu_zhun_hu": True})
    kinds = Counter(replay_record(rec).facts["win_kind"] for rec in games)
    assert kinds["dianpao"] == 0 and kinds["zimo"] + kinds["flip"] >= 90, kinds


# -- defect 5: two dealt fours: 在听牌的时候不打 (001 §技巧攻略 重舵) -------------------------------------
# Seat 1 dealt 小五×4 捌×4 + 一二三 壹贰叁 七八九 肆伍 小十 (8 + 12 cards: as dealt it can never
# finish — 12 + 1 cards are no groups and a pair). It eats the dealer's 陆 with 肆伍, is then 听 on
# 小十 without a discard, and does not discard; seat 2 flips 小十 and seat 1 wins on it:
# 小五×4 9 + 捌×4 12 + 吃 肆伍陆 0 + 一二三 3 + 壹贰叁 6 + 七八九 0 + pair 十十 = 30 胡 → 舵 1 + 20//5
# = 5; 醒 中 拾 (wall[1]): 上 壹 (1), 下 玖 (0) → 1; units 6, a flip by seat 2: each loser pays one.
D5_S1 = "x5 x5 x5 x5 d8 d8 d8 d8 x1 x2 x3 d1 d2 d3 x7 x8 x9 d4 d5 x10"


def test_two_dealt_fours_leave_out_the_discard_when_ting():
    acts = [A(0, "discard", "d6"), A(1, "chi", "d6", "d4 d5"), A(2, "draw", "x10"), A(1, "hu", "x10")]
    v = verdict(record(D5_S1, "x10 d10", acts, s0="d6"))
    assert v.valid, v.errors
    c = v.computed
    assert (c["winner"], c["points"], c["from"], c["units"], c["scores"]) == (1, 30, 2, 6, [-6, 12, -6])
    assert c["xing"] == {"cards": ["d10"], "count": 1}
    # the discard stays legal (照常打牌); the log then goes on as usual
    played = record(D5_S1, "x10 d10", acts[:2] + [A(1, "discard", "x10")], s0="d6")
    assert errors(played) == [(3, "truncated", "paipu.end")]


def test_two_dealt_fours_discard_when_not_ting():
    # 小九 小十 → 小九 拾: after the 吃 the free cards 一二三 壹贰叁 七八 小十 拾 + any one card are no
    # groups and one pair: not 听, the discard is owed as usual.
    s1 = "x5 x5 x5 x5 d8 d8 d8 d8 x1 x2 x3 d1 d2 d3 x7 x8 d10 d4 d5 x10"
    acts = [A(0, "discard", "d6"), A(1, "chi", "d6", "d4 d5"), A(2, "draw", "x10")]
    assert errors(record(s1, "x10 d9", acts, s0="d6")) == [(2, "out_of_turn", "guilin.turn")]


def test_the_dealer_with_two_dealt_fours_may_leave_out_its_first_discard_when_ting():
    # The dealer: 玖×4 拾×4 + 一..九 (three runs) 小十 壹贰叁 — 听 on 小十 (pair beside the fours). It
    # leaves out its first discard: seat 1 draws first.
    d0 = "d9 d9 d9 d9 d10 d10 d10 d10 x1 x2 x3 x4 x5 x6 x7 x8 x9 x10 d1 d2 d3"
    s1 = "x1 x2 x3 x4 x5 x6 x7 x8 x9 x10 d1 d2 d3 d4 d5 d6 d7 d8 x1 x2"
    hands, wall = table(s1, "d4", s0=d0)
    assert hands[0] == H(d0)
    rec = record(s1, "d4", [A(1, "draw", "d4")], s0=d0)
    assert errors(rec) == [(1, "truncated", "paipu.end")]


# -- defect 6: zipai eats only cards turned up (004 §3.打牌 2: 吃,上家或自己摸起的牌) ------------------
Z_S1 = "x2 x3 x4 x5 x6 x7 x8 x9 x10 d1 d2 d3 d4 d5 d6 d7 d8 d9 d10 x10"


@pytest.mark.parametrize("variant, want", [("zipai", [(1, "illegal_action", "zipai.chi_position")]),
                                           ("guilin", [(2, "truncated", "paipu.end")])])
def test_zipai_chi_of_a_discard(variant, want):
    # the other 小一 lie in the wall: seat 2 holds none (its 碰 would rank first)
    rec = record(Z_S1, "x1 x1", [A(0, "discard", "x1"), A(1, "chi", "x1", "x2 x3")], s0="x1", variant=variant)
    assert errors(rec) == want


def test_zipai_chi_of_the_shangjia_flip():
    # the dealer's discard 拾 goes unclaimed; seat 1 (its 下家) flips 小一 and eats it itself
    # (自己摸起的牌) with 二三
    acts = [A(0, "discard", "d10"), A(1, "draw", "x1"), A(1, "chi", "x1", "x2 x3")]
    assert errors(record(Z_S1, "x1 x1 x1", acts, s0="d10", variant="zipai")) == [(3, "truncated", "paipu.end")]


def test_simulated_zipai_eats_no_discard():
    eaten = Counter()
    for rec in simulate("zipai", 60, 21):
        acts = rec.actions
        for i, ev in enumerate(acts):
            if ev.act == "chi":
                j = i - 1
                while acts[j].act == "pass":
                    j -= 1
                eaten[acts[j].act] += 1
                assert acts[j].act == "draw" and acts[j].seat in (ev.seat, (ev.seat - 1) % 3), (rec.game_id, i)
    assert eaten["draw"] > 20, eaten


# -- defect 7: the error names the rule that was broken -----------------------------------------------
def test_chi_with_a_card_of_a_dealt_kan():
    # Seat 1 holds 小五×3 (dealt 坎) and 小四; it eats the dealer's 小六 with 四五: 起手成坎不能拆开.
    s1 = "x5 x5 x5 x4 x1 x1 d1 d2 d3 d4 d5 d6 d7 d8 d9 x8 x9 x10 d10 d10"
    rec = record(s1, "", [A(0, "discard", "x6"), A(1, "chi", "x6", "x4 x5")], s0="x6")
    assert errors(rec) == [(1, "illegal_action", "guilin.kan_locked")]


def test_chi_refused_under_bi_without_group_blocks():
    # Seat 1 eats the dealer's 小一 with 二三 and keeps a 小一 that forms no shape (no 壹, no other 二
    # 三): allowed by default, no 吃 at all under blocks — the 下比 rule says why.
    s1 = "x1 x2 x3 x5 x6 x7 x8 x9 x10 d2 d3 d4 d5 d6 d7 d8 d9 d10 x5 x10"
    acts = [A(0, "discard", "x1"), A(1, "chi", "x1", "x2 x3")]
    assert errors(record(s1, "", acts, s0="x1")) == [(2, "truncated", "paipu.end")]
    assert errors(record(s1, "", acts, s0="x1", rules={"bi_without_group": "blocks"})) == \
        [(1, "illegal_action", "guilin.xia_bi")]


# Seat 1: a dealt four 小九 and a dealt 坎 小五; the dealer discards the 4th 小五: 开舵 (forced), its
# second four-card set: 重舵, no discard. Its hand (一二三 壹贰叁 …) cannot win then.
CD_S1 = "x9 x9 x9 x9 x5 x5 x5 x1 x2 x3 d1 d2 d3 d4 d6 d8 d10 x7 d5 d7"
CD_ACTS = [A(0, "discard", "x5"), A(1, "kai_duo", "x5", "x5 x5 x5")]


def test_discard_after_chong_duo():
    assert errors(record(CD_S1, "d9", CD_ACTS + [A(1, "discard", "d4")], s0="x5")) == \
        [(2, "illegal_action", "guilin.chong_duo")]


@pytest.mark.parametrize("rules, drawer", [({}, 2), ({"chong_duo_next": "source_xiajia"}, 1)])
def test_who_draws_after_chong_duo_on_a_discard(rules, drawer):
    # claimer_xiajia (default): seat 1's 下家, seat 2; source_xiajia: the 下家 of the discarder
    # (seat 0), seat 1 itself.
    ok = record(CD_S1, "d9", CD_ACTS + [A(drawer, "draw", "d9")], s0="x5", rules=rules)
    assert errors(ok) == [(3, "truncated", "paipu.end")]  # legal; the log stops at the open flip
    bad = record(CD_S1, "d9", CD_ACTS + [A(3 - drawer, "draw", "d9")], s0="x5", rules=rules)
    assert errors(bad) == [(2, "out_of_turn", "guilin.turn")]


# -- open reading: does the ×2 double the 醒 (option xing_multiplied) ---------------------------------
def _example() -> dict:
    from pathlib import Path

    return json.loads((Path(__file__).parent / "data" / "guilin-short.jsonl").read_text(encoding="utf-8"))


@pytest.mark.parametrize("rules, units, breakdown", [
    # the worked example: 21 胡 → 3 舵, 自摸, 2 醒. zimo_bonus=double: 3 ×2 = 6, + 2 醒 = 8
    ({"zimo_bonus": "double"}, 8, {"tuo": 3, "zimo": 3, "xing": 2}),
    # xing_multiplied: (3 + 2) ×2 = 10 (the public server's figure)
    ({"zimo_bonus": "double", "xing_multiplied": True}, 10, {"tuo": 3, "zimo": 5, "xing": 2}),
    # 自摸 +1 is not a multiplier: 3 + 2 + 1 = 6 either way
    ({"xing_multiplied": True}, 6, {"tuo": 3, "zimo": 1, "xing": 2}),
])
def test_xing_multiplied(rules, units, breakdown):
    rec = _example()
    rec["rules"] = rules
    del rec["result"]
    c = verdict(rec).computed
    assert (c["units"], c["breakdown"], c["scores"]) == (units, breakdown, [-units, 2 * units, -units])


def test_xing_multiplied_fen_parts():
    # score_parts=fen (004 §5): 胡分 3 舵 ×2 = 6 and 醒分 2 ×2 = 4 when the 醒 is multiplied
    rec = _example()
    rec["rules"] = {"zimo_bonus": "double", "xing_multiplied": True, "score_parts": "fen"}
    del rec["result"]
    assert verdict(rec).computed["breakdown"] == {"hu_fen": 6, "xing_fen": 4}


# -- every option is documented with its default ------------------------------------------------------
@pytest.mark.parametrize("variant", ["guilin", "zipai"])
def test_every_option_is_in_the_rules_doc_with_its_default(variant):
    from pathlib import Path

    doc = (Path(__file__).resolve().parent.parent / "docs" / "rules" / f"{variant}.md").read_text(encoding="utf-8")
    rows = {line.split("|")[1].strip().strip("`"): [c.strip().strip("`") for c in line.split("|")[2:-1]]
            for line in doc.split("## Options", 1)[1].splitlines() if line.startswith("| `")}
    for opt in variants.get(variant).options:
        shown = json.dumps(opt.default) if not isinstance(opt.default, str) else opt.default
        # columns: option | kind | default (zipai.md: zipai default | guilin default) | values | …
        assert opt.name in rows and rows[opt.name][:2] == [opt.kind, shown], (opt.name, rows.get(opt.name))


def test_score_of_a_dealt_hand():
    # "win_card": null is the start window: 天胡 for the dealer only (001 §玩法规则). 一二三 3 + 壹贰叁 6
    # + 贰柒拾 6 + four 0-胡 runs = 15 胡 → 2 舵, 天胡 ×2 = 4 units. The same cards of a seat that
    # does not deal are no win (the old scorer called them one, with no hand type).
    hand = "x1 x2 x3 x4 x5 x6 x7 x8 x9 d1 d2 d3 d2 d7 d10 d4 d5 d6 d7 d8 d9"
    assert scored(case(hand, win_card=None, dealer=True)) == (True, 15, 4, ["tianhu"])
    out = score_case(case(hand, win_card=None))
    assert out["win"] is False and "does not deal" in out["reason"]


# -- 放炮必胡 cannot be skipped through a forced act ------------------------------------------------
# zipai (放炮必胡 by default, 004 §3.打牌 6 "放必胡"): seat 1 was dealt 小五×3 and wins on seat 0's discard
# of the 4th: 开舵 小 6 + 壹贰叁 6 + 一二三 3 + 二七十 3 + 贰柒拾 6 + 肆伍陆 0 + pair 捌捌 = 24 胡 → 舵
# 1 + (24 − 10) // 3 = 5, 地胡 ×2 = 10 胡分; 翻醒 turns 肆 (the wall's front), held once: 醒分 1 → 11 units.
# The forced 开舵 may come first (spec §4), but the 胡 stays owed.
FPBH = "x5 x5 x5 d1 d2 d3 x1 x2 x3 x2 x7 x10 d2 d7 d10 d4 d5 d6 d8 d8"


@pytest.mark.parametrize("acts", [[A(1, "hu", "x5")], [A(1, "kai_duo", "x5", "x5 x5 x5"), A(1, "hu", "x5")]],
                         ids=["hu", "kai_duo_then_hu"])
def test_fang_pao_bi_hu_both_spellings_win(acts):
    v = verdict(record(FPBH, "", [A(0, "discard", "x5"), *acts], s0="x5", variant="zipai"))
    assert v.valid, v.errors
    c = v.computed
    assert (c["points"], c["units"], c["hand_types"], c["xing"]) == (24, 11, ["dihu"], {"cards": ["d4"], "count": 1})
    assert c["breakdown"] == {"hu_fen": 10, "xing_fen": 1}


def test_fang_pao_bi_hu_is_not_skipped_by_a_kai_duo_then_a_discard():
    acts = [A(0, "discard", "x5"), A(1, "kai_duo", "x5", "x5 x5 x5")]
    assert errors(record(FPBH, "", [*acts, A(1, "discard", "d8")], s0="x5", variant="zipai")) == [
        (2, "missing_forced_action", "zipai.fang_pao_bi_hu")]
    # the log stopping there owes the 胡 too (not a mere truncation)
    assert errors(record(FPBH, "", acts, s0="x5", variant="zipai")) == [(2, "missing_forced_action", "zipai.fang_pao_bi_hu")]
    # guilin with the option: the same
    rules = {"fang_pao_bi_hu": True}
    assert errors(record(FPBH, "", [*acts, A(1, "discard", "d8")], s0="x5", rules=rules)) == [
        (2, "missing_forced_action", "guilin.fang_pao_bi_hu")]


# -- 三笼五坎 with dealt fours laid down ------------------------------------------------------------
# Seat 1 dealt 小一×4 小二×4 小三×4: 三笼 (001 §玩法规则 三笼五坎 ×2舵), 3 × 9 = 27 胡 → 舵 1 + 17 // 5 = 4,
# ×2 = 8 (no 醒 held). Under dealt_four = lay_down_pairs (004 §3.打牌 4) the fours are laid down as 扫穿
# first and one replacement drawn: they are still dealt fours, so the 三笼 still wins at the start.
SANLONG = "x1 x1 x1 x1 x2 x2 x2 x2 x3 x3 x3 x3 d5 d6 d7 d9 d9 x8 x9 x10"


def test_sanlong_with_the_fours_in_hand():
    v = verdict(record(SANLONG, "d1", [A(1, "hu")]))
    assert v.valid, v.errors
    assert (v.computed["points"], v.computed["units"], v.computed["hand_types"]) == (27, 8, ["sanlong_wukan"])


def test_sanlong_with_the_fours_laid_down():
    lay = [A(1, "sao_chuan", None, f"{c} {c} {c} {c}") for c in ("x1", "x2", "x3")]
    rec = record(SANLONG, "d1", [*lay, A(1, "draw", "d1", to_hand=True), A(1, "hu")], rules={"dealt_four": "lay_down_pairs"})
    v = verdict(rec)
    assert v.valid, v.errors
    assert (v.computed["points"], v.computed["hand_types"]) == (27, ["sanlong_wukan"])


# -- a 胡 ranked between another seat's 胡 and that seat's forced 开舵 -------------------------------
# sim-zipai-203-0000276 step 21: seat 1 flips 捌 onto its own 碰 of 捌 — an optional 胡 (R_HU, the drawer
# first) and a forced 开舵 (R_DUO); seat 0 can win on the same card (18 胡, 3 units, what `paipu score`
# says of its position). 001 §技巧攻略 扫穿或扫>>胡牌>>开舵或碰>>吃: once seat 1 declines its 胡, seat 0's 胡
# outranks seat 1's 开舵. A pass by a seat with a forced act declines its claims ranked above that act
# (Window.declinable); the forced act stays owed.
def _zipai_203():
    rec = next(simulate("zipai", 1, 203, start=276))
    acts = [msgspec.to_builtins(a) for a in rec.actions[:22]]
    assert acts[21] == {"seat": 1, "act": "draw", "card": "x8"}
    out = msgspec.to_builtins(rec)
    out.pop("result")
    return out, acts


def test_a_pass_declines_the_hu_above_the_forced_kai_duo():
    rec, acts = _zipai_203()
    v = verdict({**rec, "actions": [*acts, A(1, "pass"), A(0, "hu", "x8")]})
    assert v.valid, v.errors
    assert (v.computed["winner"], v.computed["points"], v.computed["units"]) == (0, 18, 3)
    # seat 0's 胡 before seat 1 declines: seat 1's 胡 ranks higher
    assert errors({**rec, "actions": [*acts, A(0, "hu", "x8")]}) == [(22, "priority_violation", "paipu.priority")]
    # the 开舵 stays owed: a second pass, or seat 0 passing too and the next draw, leave it out
    assert errors({**rec, "actions": [*acts, A(1, "pass"), A(1, "pass")]})[0][1:] == ("missing_forced_action", "zipai.kai_duo")
    assert errors({**rec, "actions": [*acts, A(1, "pass"), A(0, "pass")]}) == [(24, "missing_forced_action", "zipai.kai_duo")]
    # and it may still be taken after the pass
    ok = verdict({**rec, "actions": [*acts, A(1, "pass"), A(0, "pass"), A(1, "kai_duo", "x8")]})
    assert [e.code for e in ok.errors] == ["truncated"]
