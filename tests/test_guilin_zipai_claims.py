"""Claims of the 桂林字牌 / 字牌 engine where a verdict depended on how a win was spelt, or where a
word of the garbled 004 sheet had no option (docs/rules/guilin.md decision 19; docs/rules/zipai.md
decisions 10 and 11):

- a forced 开舵 that completes the hand, followed by its 胡, ranks as that 胡 (001 §游戏玩法: a hand
  is won through 吃、碰、扫、开舵; §技巧攻略: 扫穿或扫>>胡牌>>开舵或碰>>吃);
- ``chou_pai_peng``: 004 §3.打牌 3 put back — 可吃碰的牌没有吃碰 … 不能进行吃碰操作;
- ``peng_discard`` and ``kan_kai_duo_on_discard``: 004's 摸起 in the 碰 line (§3.打牌 5) and in the
  坎's 开舵 (§3 3, second 打牌 block), read as 001 (a discard too) or literally (a card turned up from the wall).

Every log is built by hand; every code, 胡, 醒 and unit is worked out in the comment beside it from
001 (§开舵, §玩法规则, §翻上中下醒, §打10胡胡牌规则), 004 (§胡息及舵, §5) and the 胡 table of
docs/rules/guilin.md, never read off the engine.

Card codes: x1..x10 = 小 一..十, d1..d10 = 大 壹..拾 (spec log-format.md §3). Seat 0 deals (21 cards),
seats 1 and 2 hold 20; the cards a test does not name are dealt to seats 0 and 2 in turn (deck order,
at most two of a kind each, so neither holds a dealt 坎 from them), then the wall follows the named
front cards.
"""

from __future__ import annotations

import msgspec
import pytest
import zipai_tables as tables
from zipai_tables import A, H, errors, verdict

from replay import variants
from replay.errors import RuleViolation
from replay.options import make_ruleset
from replay.record import Record
from replay.replayer import replay_line
from replay.score import score_case


def record(s1: str, s2: str, front: str, actions: list[dict], s0: str = "", rules=None, variant: str = "guilin") -> dict:
    return tables.record(s1, front, actions, s0, s2, rules, variant=variant, game_id="claims")


def settled(rec: dict) -> tuple:
    v = verdict(rec)
    assert v.valid, v.errors
    c = v.computed
    return c["winner"], c["points"], c["hand_types"], c["xing"]["count"], c["units"], c["scores"]


def legal_after(rec: dict, n: int) -> set[tuple]:
    """``legal_events()`` after the first ``n`` actions, each of them checked to be accepted."""
    r = msgspec.convert({**rec, "actions": rec["actions"][:n]}, Record)
    spec = variants.get(r.variant)
    st = spec.state(r, make_ruleset(spec.id, spec.options, r.rules))
    for ev in r.actions:
        st.apply(ev)
    out = set()
    for e in st.legal_events():
        try:
            st.fork().apply(e)
        except RuleViolation as err:  # pragma: no cover - the assertion names it
            raise AssertionError(f"listed but refused: {e} ({err.code})") from None
        out.add((e.seat, e.act))
    return out


# == A forced 开舵 that completes the hand ranks as the seat's 胡 (guilin.md decision 19) ==============
# Seat 1 holds, beside its 小八s, hand K: 一二三 五五 壹贰叁 贰柒拾 肆伍陆 柒捌玖 (17 cards). With a four of
# 小八 on its table (开舵, 小 6) it wins: 6 + 一二三 3 + 壹贰叁 6 + 贰柒拾 6 + 肆伍陆 0 + 柒捌玖 0 + pair 五五
# (allowed beside a four, 004 §2.规牌 7) = 21 胡. Kept as a 碰 (or a 坎), the 4th 小八 fits nothing (it
# needs 六七 / 七九 / 九十 / 八八捌 / 捌捌八): no win. So the 开舵 is what completes the hand.
K_HAND = "x1 x2 x3 x5 x5 d1 d2 d2 d3 d4 d5 d6 d7 d7 d8 d9 d10"
# Seat 2 wins on any 小八 too: 贰柒拾 6 + 二七十 3 + dealt 坎 小四 3 + 六七八 0 + 肆伍陆 0 + 叁肆伍 0 + 九九玖 0
# = 12 胡 (玖 fits only 九九玖, 小十 only 二七十, 拾 only 贰柒拾: the split is forced) → 舵 1 (逢5进1).
S2 = "d2 d7 d10 x2 x7 x10 x4 x4 x4 x6 x7 d4 d5 d6 d3 d4 d5 x9 x9 d9"

# Game A (guilin): the 碰's 开舵 on seat 1's own flip (001 §开舵: 自己摸出第4张牌). The dealer discards 小八
# (seat 2's 胡 on it ranks above seat 1's 碰, so seat 2 passes first, spec §4), seat 1 碰s and discards 小十,
# seats 2 and 0 flip 捌 and 陆 (nobody claims), seat 1 flips the 4th 小八. Its options: 胡 (first in 胡
# order: the drawer) and the forced 开舵; seat 2's 胡 ranks between them.
A_S1 = K_HAND + " x8 x8 x10"
A_HEAD = [A(0, "discard", "x8"), A(2, "pass"), A(1, "peng", "x8", "x8 x8"), A(1, "discard", "x10"), A(2, "draw", "d8"),
          A(0, "draw", "d6"), A(1, "draw", "x8")]


def a_record(tail: list[dict]) -> dict:
    return record(A_S1, S2, "d8 d6 x8 x10", A_HEAD + tail, s0="x8")


# Seat 1's win: 21 胡 → 舵 1 + (21 − 10) // 5 = 3, 自摸 +1; 醒 (上中下) on 小十, the next wall card: 中 小十
# 0 (discarded), 上 小一 1, 下 小九 0 → 1. Units 3 + 1 + 1 = 5; 自摸: both pay → [-5, 10, -5].
A_WIN = (1, 21, ["zimo"], 1, 5, [-5, 10, -5])


@pytest.mark.parametrize("tail", [[A(1, "kai_duo", "x8"), A(1, "hu", "x8")], [A(1, "hu", "x8")]],
                         ids=["开舵 then hu", "hu in place of the 开舵"])
def test_own_flip_onto_a_peng_both_spellings_win_alike(tail):
    assert settled(a_record(tail)) == A_WIN


def test_the_kai_duo_that_ranks_as_the_hu_is_listed_and_owes_the_hu():
    rec = a_record([])
    # at the flip: seat 1's 胡, its 开舵 (ranked as the 胡) and a pass of its 胡, and seat 2's pass; not seat 2's
    # 胡 (seat 1's ranks first)
    assert legal_after(rec, 7) == {(1, "hu"), (1, "kai_duo"), (1, "pass"), (2, "pass")}
    # after the 开舵 only the 胡 may follow: it passed over seat 2's 胡 as the 胡's first half
    assert legal_after(a_record([A(1, "kai_duo", "x8")]), 8) == {(1, "hu")}
    assert errors(a_record([A(1, "kai_duo", "x8"), A(1, "discard", "x1")])) == [(8, "priority_violation", "paipu.priority")]
    assert errors(a_record([A(1, "kai_duo", "x8")])) == [(8, "priority_violation", "paipu.priority")]  # the log stops


def test_seat_1_may_still_pass_its_hu_to_seat_2():
    # seat 1's pass declines only its 胡; seat 2's 胡 on seat 1's flip: 12 胡 → 舵 1, not 自摸; 醒 on 小十:
    # seat 2 holds 小十 1, 小一 0, 小九 2 → 3. Units 4, each loser pays one share.
    assert settled(a_record([A(1, "pass"), A(2, "hu", "x8")])) == (2, 12, [], 3, 4, [-4, -4, 8])
    # without the pass seat 1's 胡 ranks first (the drawer)
    assert errors(a_record([A(2, "hu", "x8")])) == [(7, "priority_violation", "paipu.priority")]
    # once its 胡 is passed, seat 1's 开舵 is a 开舵 again, ranked below seat 2's 胡
    assert errors(a_record([A(1, "pass"), A(1, "kai_duo", "x8")])) == [(8, "priority_violation", "paipu.priority")]


# Game B: a dealt 坎 of 小八 (seat 1: 小八 ×3 + hand K) and the dealer's first discard, the 4th 小八
# (001 §开舵 起手牌开舵: 别人…打出第4张后就要开舵). 胡 order after the discarder: seat 1, then seat 2.
B_S1 = K_HAND + " x8 x8 x8"


def b_record(tail: list[dict], variant: str = "guilin", rules=None) -> dict:
    return record(B_S1, S2, "x1", [A(0, "discard", "x8"), *tail], s0="x8", variant=variant, rules=rules)


B_DUO = [A(1, "kai_duo", "x8", "x8 x8 x8"), A(1, "hu", "x8")]


def test_a_dealt_kan_opened_by_a_discard_then_hu_guilin():
    # 21 胡 → 3 舵; 地胡 (a non-dealer wins on the dealer's first discard) ×2 → 6; 醒 on 小一: 中 小一 1, 上 小二 1,
    # 下 小十 0 → 2. Units 8; 点炮: seat 0 pays both shares → [-16, 16, 0].
    want = (1, 21, ["dihu"], 2, 8, [-16, 16, 0])
    assert settled(b_record(B_DUO)) == want
    assert settled(b_record([A(1, "hu", "x8")])) == want
    assert errors(b_record([B_DUO[0], A(1, "discard", "x1")])) == [(2, "priority_violation", "paipu.priority")]
    # seat 1 passes its 胡: seat 2's 12 胡 → 舵 1, 地胡 ×2 → 2; 醒 小一 0 + 小二 1 + 小十 1 = 2 → units 4, [-8, 0, 8]
    assert settled(b_record([A(1, "pass"), A(2, "hu", "x8")])) == (2, 12, ["dihu"], 2, 4, [-8, 0, 8])


def test_a_dealt_kan_opened_by_a_discard_then_hu_zipai():
    # 放炮必胡 (004 §3.打牌 6): both 胡 are forced, seat 1's first. 21 胡 → 舵 1 + (21 − 10) // 3 = 4 (zipai's
    # 逢3进1); 地胡 ×2 → 胡分 8; 翻醒 on 小一: seat 1 holds one → 醒分 1. Units 9; 点炮: [-18, 18, 0].
    want = (1, 21, ["dihu"], 1, 9, [-18, 18, 0])
    assert settled(b_record(B_DUO, "zipai")) == want
    assert settled(b_record([A(1, "hu", "x8")], "zipai")) == want
    assert errors(b_record([B_DUO[0], A(1, "discard", "x1")], "zipai")) == [(2, "missing_forced_action", "zipai.fang_pao_bi_hu")]
    assert errors(b_record([A(2, "hu", "x8")], "zipai")) == [(1, "missing_forced_action", "zipai.fang_pao_bi_hu")]


# Game C (guilin, peng_kai_duo_on_other_flip, decision 17): as game A, but seat 0 flips the 4th 小八 onto
# seat 1's 碰. 胡 order from the drawer: seat 0 (no 胡), seat 1, seat 2.
ON = {"peng_kai_duo_on_other_flip": True}
C_HEAD = [A(0, "discard", "x8"), A(2, "pass"), A(1, "peng", "x8", "x8 x8"), A(1, "discard", "x10"), A(2, "draw", "d8"),
          A(0, "draw", "x8")]


def c_record(tail: list[dict], rules=None) -> dict:
    return record(A_S1, S2, "d8 x8 x10", C_HEAD + tail, s0="x8", rules=rules)


def test_another_seats_flip_onto_a_peng_under_the_option():
    # 21 胡 → 3 舵, not 自摸; 醒 小十 → 1 (as game A). Units 4, each loser pays one → [-4, 8, -4].
    want = (1, 21, [], 1, 4, [-4, 8, -4])
    assert settled(c_record([A(1, "kai_duo", "x8"), A(1, "hu", "x8")], ON)) == want
    assert settled(c_record([A(1, "hu", "x8")], ON)) == want
    assert legal_after(c_record([], ON), 6) == {(1, "hu"), (1, "kai_duo"), (1, "pass"), (2, "pass")}
    # by default the flip opens nothing and the 碰 kept cannot win: seat 1 has no option; seat 2's 胡
    # (12 胡, 醒 3 as in game A) is the only one
    assert errors(c_record([A(1, "kai_duo", "x8")])) == [(6, "out_of_turn", "paipu.turn")]
    assert settled(c_record([A(2, "hu", "x8")])) == (2, 12, [], 3, 4, [-4, -4, 8])


def test_another_seats_flip_onto_a_sao():
    # Game D (guilin, default): 扫的开舵：无论谁摸出第4张牌 (001 §开舵). The dealer discards 小一; seat 1 flips
    # the 3rd 小八 (扫, forced; it outranks seat 2's 胡 on it) and discards 小十; seat 2 flips 捌; the dealer
    # flips the 4th 小八. 胡 order from the drawer: seat 0 (none), seat 1, seat 2. Seat 1's 开舵 then 胡: 21 胡
    # → 3 舵, not 自摸; 醒 小十 → 1. Units 4 → [-4, 8, -4].
    head = [A(0, "discard", "x1"), A(1, "draw", "x8"), A(1, "sao", "x8", "x8 x8"), A(1, "discard", "x10"),
            A(2, "draw", "d8"), A(0, "draw", "x8")]

    def rec(tail: list[dict]) -> dict:
        return record(A_S1, S2, "x8 d8 x8 x10", head + tail, s0="x1")

    want = (1, 21, [], 1, 4, [-4, 8, -4])
    assert settled(rec([A(1, "kai_duo", "x8"), A(1, "hu", "x8")])) == want
    assert settled(rec([A(1, "hu", "x8")])) == want
    assert errors(rec([A(1, "kai_duo", "x8"), A(1, "discard", "x1")])) == [(7, "priority_violation", "paipu.priority")]
    # seat 1 passes its 胡: seat 2's 12 胡, 醒 3 → 4 units, each loser one share
    assert settled(rec([A(1, "pass"), A(2, "hu", "x8")])) == (2, 12, [], 3, 4, [-4, -4, 8])


# == 臭牌 and 碰 (option chou_pai_peng, zipai.md decision 10) =============================================
# 004 §3.打牌 3 put back: 可吃碰的牌没有吃碰，这张牌就成臭牌。再次打出或摸起同张牌时，不能进行吃碰操作.
# Seat 1 holds the pair 小五 (A_S1); the dealer holds one 小五 and discards it: seat 1 may 碰 it (zipai 碰s
# a discard by default) and lets it go; later seat 2 flips the last 小五. The other cards are dealt so
# that nobody can win on 小五 or 捌 (zipai's 放炮必胡 would force it).
CHOU = {"chou_pai_peng": True}


def chou_record(tail: list[dict], rules=None, front: str = "d8 x5") -> dict:
    return record(A_S1, "", front, [A(0, "discard", "x5"), *tail], s0="x5", rules=rules, variant="zipai")


@pytest.mark.parametrize("passed", [[A(1, "draw", "d8")], [A(1, "pass"), A(1, "draw", "d8")]],
                         ids=["closed by the next draw", "passed explicitly"])
def test_a_passed_peng_closes_the_later_peng_under_the_option(passed):
    tail = [*passed, A(2, "draw", "x5"), A(1, "peng", "x5", "x5 x5")]
    n = len(tail)
    # by default (臭牌 closes 吃 only, 001) the 碰 is legal: a discard is then owed and the log stops
    assert errors(chou_record(tail)) == [(n + 1, "truncated", "paipu.end")]
    # restored sheet: seat 1 could 碰 小五 and did not, so it may not 碰 it again
    assert errors(chou_record(tail, CHOU)) == [(n, "illegal_action", "zipai.chou_pai")]
    assert (1, "peng") not in legal_after(chou_record(tail, CHOU), n)


@pytest.mark.parametrize("rules", [{}, CHOU], ids=["default", "option"])
def test_its_own_later_draw_is_still_guo_sao(rules):
    # 过扫 (004 §3 2, second block: 自己摸起没碰1张相同牌; 001 §过扫) is a forced act, not a 碰: both values
    rec = chou_record([A(1, "draw", "x5"), A(1, "guo_sao", "x5", "x5 x5")], rules, front="x5")
    assert errors(rec) == [(3, "truncated", "paipu.end")]  # legal; seat 1 owes a discard


# == 摸起 in the 碰 and the 坎's 开舵 lines (options peng_discard, kan_kai_duo_on_discard, zipai.md decision 11) ==
NO_PENG_DISCARD = {"peng_discard": False}


def test_peng_of_a_discard_follows_the_option():
    # 001 §碰: 别家摸或打出相同的第三张 (default); 004 §3.打牌 5: 别家摸起 (false)
    rec = chou_record([A(1, "peng", "x5", "x5 x5")])
    assert errors(rec) == [(2, "truncated", "paipu.end")]
    assert errors({**rec, "rules": NO_PENG_DISCARD}) == [(1, "illegal_action", "zipai.peng")]
    # another seat's flip may be 碰'd under both values: the dealer discards 小一 instead, seat 2 flips 小五
    for rules in ({}, NO_PENG_DISCARD):
        flip = record(A_S1, "", "d8 x5", [A(0, "discard", "x1"), A(1, "draw", "d8"), A(2, "draw", "x5"),
                                          A(1, "peng", "x5", "x5 x5")], s0="x5", rules=rules, variant="zipai")
        assert errors(flip) == [(4, "truncated", "paipu.end")], rules


def test_a_peng_never_offered_was_never_passed():
    # seat 1 flips the last 小五 after the dealer discarded one: 过扫 when it could 碰 the discard (default),
    # a plain 扫 when a discard could not be 碰'd (001 §过扫: 可碰的牌没有碰，自己又摸到了一张)
    head = [A(1, "draw", "x5")]
    assert errors(chou_record([*head, A(1, "guo_sao", "x5", "x5 x5")], front="x5")) == [(3, "truncated", "paipu.end")]
    assert errors(chou_record([*head, A(1, "sao", "x5", "x5 x5")], NO_PENG_DISCARD, front="x5")) == [
        (3, "truncated", "paipu.end")]
    assert errors(chou_record([*head, A(1, "guo_sao", "x5", "x5 x5")], NO_PENG_DISCARD, front="x5")) == [
        (2, "missing_forced_action", "zipai.sao")]


NO_KAN_DISCARD = {"kan_kai_duo_on_discard": False}


def test_a_discard_opens_no_dealt_kan_under_the_option():
    # Game B in zipai. Default (001 §开舵: 别人…打出第4张后就要开舵): seat 1's 开舵 then 胡, 9 units (above).
    assert settled(b_record(B_DUO, "zipai")) == (1, 21, ["dihu"], 1, 9, [-18, 18, 0])
    # 004 §3 3, second 打牌 block (手中1坎别家摸起): the discard opens nothing; seat 1's 坎 stays whole and 小八 fits nothing else,
    # so it has no 胡 either; seat 2's 胡 is owed (放炮必胡): 12 胡 → 舵 1 + (12 − 10) // 3 = 1, 地胡 ×2 → 胡分 2;
    # 翻醒 on 小一: seat 2 holds none → 0. Units 2; the discarder pays both shares → [-4, 0, 4].
    assert errors(b_record(B_DUO, "zipai", NO_KAN_DISCARD)) == [(1, "illegal_action", "zipai.kai_duo")]
    assert errors(b_record([A(1, "hu", "x8")], "zipai", NO_KAN_DISCARD)) == [(1, "not_a_win", "zipai.hu_shape")]
    assert settled(b_record([A(2, "hu", "x8")], "zipai", NO_KAN_DISCARD)) == (2, 12, ["dihu"], 0, 2, [-4, 0, 4])
    assert errors(b_record([A(1, "draw", "x1")], "zipai", NO_KAN_DISCARD)) == [
        (1, "missing_forced_action", "zipai.fang_pao_bi_hu")]  # seat 2's owed 胡


@pytest.mark.parametrize("rules", [{}, NO_KAN_DISCARD], ids=["default", "option"])
def test_a_flip_opens_the_dealt_kan_under_both_values(rules):
    # The dealer discards 小一; seats 1 and 2 flip 捌 and 陆; the dealer flips the 4th 小八: seat 1's forced
    # 开舵 (seat 2's 胡 on it comes later in 胡 order), then its 胡: 21 胡 → 4 舵, not 自摸; 翻醒 on 小一
    # (held once) → 1. Units 5; each loser pays one share → [-5, 10, -5].
    acts = [A(0, "discard", "x1"), A(1, "draw", "d8"), A(2, "draw", "d6"), A(0, "draw", "x8"), *B_DUO]
    rec = record(B_S1, S2, "d8 d6 x8 x1", acts, rules=rules, variant="zipai")
    assert settled(rec) == (1, 21, [], 1, 5, [-5, 10, -5])


def test_score_cases_follow_kan_kai_duo_on_discard():
    # spec §8: seat 1's hand with its 坎 of 小八, winning on 小八: 21 胡 → zipai 4 舵 (no context: no 地胡, no 醒)
    case = {"variant": "zipai", "hand": H(B_S1), "melds": [], "win_card": "x8", "win_from": "discard"}
    got = score_case(case)
    assert (got["win"], got["points"], got["units"]) == (True, 21, 4)
    assert score_case({**case, "rules": NO_KAN_DISCARD})["win"] is False  # the 坎 kept: 小八 fits nothing
    got = score_case({**case, "rules": NO_KAN_DISCARD, "win_from": "flip"})
    assert (got["win"], got["points"], got["units"]) == (True, 21, 4)


def test_the_new_options_and_their_kinds():
    for vid in ("guilin", "zipai"):
        opts = {o.name: o for o in variants.get(vid).options}
        assert {n: (opts[n].kind, opts[n].default, tuple(opts[n].allowed)) for n in
                ("chou_pai_peng", "peng_discard", "kan_kai_duo_on_discard")} == {
            "chou_pai_peng": ("play", False, (False, True)), "peng_discard": ("play", True, (True, False)),
            "kan_kai_duo_on_discard": ("play", True, (True, False))}, vid


@pytest.mark.parametrize("variant", ["guilin", "zipai"])
def test_simulated_games_under_the_004_readings(variant):
    """Self-play with the three options away from their defaults: every log validates, and every
    win's score case (``position.score_case_of`` at the winning card's window) gives replay's own
    result, as tests/test_judgment_guilin.py checks for the other option sets."""
    from test_judgment_guilin import _accepted, judged, window_step

    from replay.replayer import replay_record
    from replay.simulator import simulate
    from replay.variants.guilin.cases import score_case_of

    rules = {"chou_pai_peng": True, "peng_discard": False, "kan_kai_duo_on_discard": False}
    wins = 0
    for bots in ("heuristic", "random"):
        for rec in simulate(variant, 100, 17, bots, rules):
            v = replay_line(msgspec.json.encode(rec)).verdict
            assert v.valid, (rec.game_id, v.errors)
            r = rec.result
            if r.outcome != "win":
                continue
            k = len(rec.actions) - 1
            state = replay_record(rec, stop_after=window_step(rec.actions, k, r.winner, rec.actions[k].card)).state
            case = score_case_of(state, r.winner)
            lines = _accepted(state, r.winner, case["win_card"])
            assert lines != "skip" and (r.points, r.units, r.hand_types) == lines[0], (rec.game_id, lines)
            assert judged(case) == (True, *lines[0]), (rec.game_id, case)
            wins += 1
    assert wins >= 50
