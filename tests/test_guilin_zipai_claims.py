"""Claims of the 桂林字牌 / 字牌 engine where a verdict depended on how a win was spelt
(docs/rules/guilin.md decision 19): a forced 开舵 that completes the hand, followed by its 胡, ranks
as that 胡 (001 §游戏玩法: a hand is won through 吃、碰、扫、开舵; §技巧攻略: 扫穿或扫>>胡牌>>开舵或碰>>吃).

Every log is built by hand; every code, 胡, 醒 and unit is worked out in the comment beside it from
001 (§开舵, §玩法规则, §翻上中下醒, §打10胡胡牌规则), 004 (§胡息及舵, §5) and the 胡 table of
docs/rules/guilin.md, never read off the engine.

Card codes: x1..x10 = 小 一..十, d1..d10 = 大 壹..拾 (spec log-format.md §3). Seat 0 deals (21 cards),
seats 1 and 2 hold 20; the cards a test does not name are dealt to seat 0 (deck order, at most two
of a kind, so it holds no dealt 坎), then the wall follows the named front cards.
"""

from __future__ import annotations

import json
from collections import Counter

import msgspec
import pytest

from replay import variants
from replay.cards import ZIPAI
from replay.errors import RuleViolation
from replay.judge import fork
from replay.options import make_ruleset
from replay.record import Record
from replay.replayer import replay_line


def H(s: str) -> list[str]:
    return s.split()


def table(s1: str, s2: str, front: str, s0: str = "") -> tuple[list[list[str]], list[str]]:
    """Hands and wall: seat 1's and seat 2's 20 cards, the wall's front cards and the cards seat 0
    must hold; the rest dealt to seat 0 (deck order, at most two of a kind), then to the wall."""
    h = [H(s0), H(s1), H(s2)]
    left = Counter({c: 4 for c in ZIPAI.codes})
    left.subtract(c for x in h for c in x)
    left.subtract(H(front))
    assert all(n >= 0 for n in left.values()), +left
    assert len(h[1]) == 20 and len(h[2]) == 20
    rest = []
    for c in (c for c in ZIPAI.codes for _ in range(left[c])):
        if len(h[0]) < 21 and h[0].count(c) < 2:
            h[0].append(c)
        else:
            rest.append(c)
    assert len(h[0]) == 21
    return h, H(front) + rest


def record(s1: str, s2: str, front: str, actions: list[dict], s0: str = "", rules=None, variant: str = "guilin") -> dict:
    hands, wall = table(s1, s2, front, s0)
    return {"format": "paipu/1", "game_id": "claims", "variant": variant, "rules": rules or {}, "seats": ["a", "b", "c"],
            "dealer": 0, "deal": {"hands": hands, "wall": wall}, "actions": actions}


def A(seat: int, act: str, card: str | None = None, cards: str | None = None) -> dict:
    ev: dict = {"seat": seat, "act": act}
    if card is not None:
        ev["card"] = card
    if cards is not None:
        ev["cards"] = H(cards)
    return ev


def verdict(rec: dict):
    return replay_line(json.dumps(rec, ensure_ascii=False)).verdict


def errors(rec: dict) -> list[tuple]:
    return [(e.step, e.code, e.rule) for e in verdict(rec).errors]


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
            fork(st).apply(e)
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
