"""通城個子牌 滑 of a fifth the seat already held when it declared the 觀生 (option ``hua_held``).

000_b93a380aaaa9b6e3.txt §操作規則 滑: "手中有1觀生有四個的牌，自己又摸到第五張相同的牌.或者其它玩家打出第五張相同
的牌.此時不論哪種情況都可以滑"; docs/rules/tongcheng_gezi.md decision 12. Every log here is written by
hand as a server would (JSON, the whole deal, the claimed result) and judged by ``replay_line``;
the 個子 are worked out from 000 §計胡規則 in the comments.
"""

from __future__ import annotations

from collections import Counter

import msgspec
import pytest

from replay.cards import HUAPAI
from replay.options import make_ruleset
from replay.replayer import replay_line
from replay.simulator import simulate
from replay.variants import get
from replay.variants.tongcheng_gezi import scoring as sc
from replay.variants.tongcheng_gezi.state import GeziState

V = "tongcheng_gezi"


def record(dealer_hand: str | list[str], front: list[str], actions: list[dict], result: dict | None,
           rules: dict | None = None) -> dict:
    """A 4-seat record: the dealer (seat 0) is dealt ``dealer_hand`` (20 cards), the wall starts
    with ``front``; the other seats take the rest of the deck in deck order, 19 each (they never
    act: every event here is the dealer's), and the wall ends with what is left."""
    hand = list(dealer_hand)
    pool = Counter(HUAPAI.all_cards())
    pool.subtract(hand + front)
    assert min(pool.values()) >= 0 and len(hand) == 20
    rest = list(pool.elements())
    others = [rest[19 * i:19 * (i + 1)] for i in range(3)]
    rec = {"format": "paipu/1", "game_id": "hand-built-hua", "variant": V, "seats": ["a", "b", "c", "d"],
           "dealer": 0, "deal": {"hands": [hand, *others], "wall": front + rest[57:]}, "actions": actions}
    if result is not None:
        rec["result"] = result
    if rules is not None:
        rec["rules"] = rules
    return rec


def verdict(rec: dict):
    return replay_line(msgspec.json.encode(rec)).verdict


def first_error(rec: dict) -> tuple[str, int | None, str]:
    v = verdict(rec)
    assert not v.valid, "expected an invalid log"
    e = v.errors[0]
    return e.code, e.step, e.rule


def legal(rec: dict, upto: int) -> list[dict]:
    """The legal next events after the first ``upto`` actions of ``rec``."""
    cut = {**rec, "actions": rec["actions"][:upto]}
    cut.pop("result", None)
    return [msgspec.to_builtins(e) for e in replay_line(msgspec.json.encode(cut)).state.legal_events()]


def ev(act: str, card: str | None = None, cards: list[str] | None = None) -> dict:
    e: dict = {"seat": 0, "act": act}
    if card is not None:
        e["card"] = card
    if cards is not None:
        e["cards"] = cards
    return e


# 自摸 of 7 個子 at 4 seats: ⌊7/7⌋ = 1 分 (000 §計分規則), each other seat pays one share (000 §胡牌規則).
ZIMO_7 = {"outcome": "win", "winner": 0, "win_card": "三", "from": None, "points": 7, "hand_types": ["zimo"],
          "units": 1, "breakdown": {"fen": 1, "bei": 1}, "scores": [3, -1, -1, -1]}

# -- A: the fifth 六 dealt with the other four --------------------------------------------------------
# The dealer is dealt 六×5; it declares 觀生 of four 六 (replacement 己), 滑s the dealt fifth 六
# (replacement 三) and wins by 自摸 on 三:
#   滑 六六六六六 (black) 3 + 上大人 (red 句) 1 + 可知禮 (red 句) 1 + 孔乙己 0 + 七十士 (素七) 1
#   + 八九子 0 + 半句 二三 (素三) 1 = 7 個子 → 1 分.
DEAL_A = ["六"] * 5 + list("上大人可知禮孔乙七十士八九子二")
FRONT_A = ["己", "三"]
GAME_A = [ev("guan_sheng", cards=["六"] * 4), ev("draw", "己"), ev("hua", "六"), ev("draw", "三"), ev("hu", "三")]


def test_held_fifth_hua_allowed_by_default():
    rec = record(DEAL_A, FRONT_A, GAME_A, ZIMO_7)
    v = verdict(rec)
    assert v.valid, v.errors
    assert {k: v.computed[k] for k in ZIMO_7} == ZIMO_7
    # the same under the option named (the default spelled out)
    assert verdict(record(DEAL_A, FRONT_A, GAME_A, ZIMO_7, {"hua_held": "allowed"})).valid
    # after the 觀生 and its replacement the dealt 六 may 滑
    assert {"seat": 0, "act": "hua", "card": "六"} in legal(rec, 2)


def test_held_fifth_hua_refused():
    rec = record(DEAL_A, FRONT_A, GAME_A, ZIMO_7, {"hua_held": "refused"})
    code, step, rule = first_error(rec)
    assert (code, step, rule) == ("illegal_action", 2, "tongcheng_gezi.hua_held")
    assert "自己又摸到第五張" in verdict(rec).errors[0].message
    assert {"seat": 0, "act": "hua", "card": "六"} not in legal(rec, 2)
    # the 觀生 itself stays legal: only the 滑 of the held fifth is refused
    assert verdict(record(DEAL_A, FRONT_A, GAME_A[:2], None, {"hua_held": "refused"})).errors[0].code == "truncated"


# -- B: the fifth 六 dealt and kept in a 句 -----------------------------------------------------------
# The dealer is dealt 六×5 and 四五: it declares 觀生 of four 六 and wins by 自摸 on its replacement 九,
# the fifth 六 in the 句 四五六:
#   觀生 六六六六 (black) 2 + 上大人 1 + 可知禮 1 + 孔乙己 0 + 七十士 1 + 四五六 (素五) 2 + 半句 八九 0
#   = 7 個子 → 1 分. Valid under both values; under `allowed` the 六 could also have 滑ed.
DEAL_B = ["六"] * 5 + list("上大人可知禮孔乙己七十士四五八")
GAME_B = [ev("guan_sheng", cards=["六"] * 4), ev("draw", "九"), ev("hu", "九")]
ZIMO_B = {**ZIMO_7, "win_card": "九"}


@pytest.mark.parametrize("value", ["allowed", "refused"])
def test_held_fifth_kept_in_a_ju_wins_under_both(value):
    rec = record(DEAL_B, ["九"], GAME_B, ZIMO_B, {"hua_held": value})
    v = verdict(rec)
    assert v.valid, v.errors
    assert {k: v.computed[k] for k in ZIMO_B} == ZIMO_B
    hua = {"seat": 0, "act": "hua", "card": "六"}
    assert (hua in legal(rec, 2)) == (value == "allowed")


# -- C: the fifth 六 drawn after the 觀生 (the seed's own case) -----------------------------------------
# The dealer is dealt 六×4; its 觀生 replacement is the fifth 六 (自己又摸到第五張相同的牌), which it 滑s;
# the 滑's replacement 三 wins by 自摸: the hand of A, 7 個子 → 1 分, under both values.
DEAL_C = ["六"] * 4 + list("上大人可知禮孔乙己七十士八九子二")
GAME_C = [ev("guan_sheng", cards=["六"] * 4), ev("draw", "六"), ev("hua", "六"), ev("draw", "三"), ev("hu", "三")]


@pytest.mark.parametrize("value", ["allowed", "refused"])
def test_fifth_drawn_after_the_guan_sheng_hua_under_both(value):
    rec = record(DEAL_C, ["六", "三"], GAME_C, ZIMO_7, {"hua_held": value})
    v = verdict(rec)
    assert v.valid, v.errors
    assert {k: v.computed[k] for k in ZIMO_7} == ZIMO_7


# -- simulated games ----------------------------------------------------------------------------------
def held_fifth_hua_steps(rec) -> list[int]:
    """Steps at which the record 滑s from the hand a fifth the seat held at its 觀生 (replayed)."""
    st = GeziState(rec, make_ruleset(V, get(V).options, rec.rules))
    out = []
    for i, e in enumerate(rec.actions):
        if st.phase.value == "discard" and e.act == "hua" and st.wu_held[e.seat][sc.CHAR_OF[HUAPAI.index(e.card)]]:
            out.append(i)
        st.step = i
        st.apply(e)
    return out


def test_simulated_games_under_both_values():
    # default play: some 滑 take a fifth held at the 觀生; relabelled `refused`, each such log is refused there
    held = [(r, s) for r in simulate(V, 400, 5) if (s := held_fifth_hua_steps(r))]
    assert held
    for r, steps in held:
        d = msgspec.to_builtins(r)
        d["rules"] = {**d.get("rules", {}), "hua_held": "refused"}
        assert first_error(d) == ("illegal_action", steps[0], "tongcheng_gezi.hua_held")
    # under `refused` the bots never 滑 a held fifth, and every log validates
    for bots in ("heuristic", "random"):
        for r in simulate(V, 60, 4, bots, rules={"hua_held": "refused"}):
            v = verdict(msgspec.to_builtins(r))
            assert v.valid and v.ruleset_id != "tongcheng_gezi-default", (r.game_id, v.errors)
            assert held_fifth_hua_steps(r) == []
