"""zipai (seed 004): the differences from guilin, each as an option of the shared engine."""

from __future__ import annotations

import random

import msgspec
import pytest

from replay.cards import ZIPAI
from replay.options import make_ruleset
from replay.record import Deal, Event, Record
from replay.replayer import replay_line
from replay.score import score_case
from replay.simulator import play, simulate
from replay.variants import get
from replay.variants.guilin.scoring import tuo
from replay.variants.guilin.state import GuilinState

X = ZIPAI.index


@pytest.fixture(scope="module")
def games() -> list[Record]:
    return list(simulate("zipai", 150, 21))


def verdict(rec: Record):
    return replay_line(msgspec.json.encode(rec)).verdict


def test_simulated_zipai_logs_are_valid(games):
    assert all(verdict(r).valid for r in games)
    assert sum(r.result.outcome == "win" for r in games) / len(games) >= 0.5


@pytest.mark.parametrize("points,want", [(10, 1), (12, 1), (13, 2), (15, 2), (16, 3), (18, 3), (19, 4)])
def test_tuo_table_read_as_10_12_is_1(points, want):
    # 004 §胡息及舵 2–5 with the shifted numbers read as 10–12 → 1, 13–15 → 2, 16–18 → 3
    assert tuo(points, 3) == want


def _state(wall: list[str]) -> GuilinState:
    rec = next(iter(simulate("zipai", 1, 3)))
    st = GuilinState(rec, make_ruleset("zipai", get("zipai").options, {}))
    st.wall = [X(c) for c in wall]
    st.front, st.back = 0, len(st.wall)
    return st


@pytest.mark.parametrize("copies", [0, 1, 2, 3])
def test_fanxing_counts_each_copy_held(copies):
    st = _state(["d5", "x1", "x2"])
    held = [0] * 20
    held[X("d5")] = copies
    assert st.turn_xing(held) == ([X("d5")], copies)


def test_fanxing_turns_again_on_four():
    st = _state(["d5", "x1", "x2"])
    held = [0] * 20
    held[X("d5")] = 4
    held[X("x1")] = 2
    # 4 醒 on 大五 → turn again: 小一, held twice → 4 + 2, and stop
    assert st.turn_xing(held) == ([X("d5"), X("x1")], 6)


def test_no_xing_after_haidi():
    st = _state(["d5"])
    st.front = st.back  # the wall is empty: 海底胡不翻醒
    assert st.turn_xing([4] * 20) == ([], 0)


def test_fanxing_offset_one_counts_the_card_above():
    st = _state(["x10"])
    st.rules = make_ruleset("zipai", get("zipai").options, {"fanxing_offset": 1})
    held = [0] * 20
    held[X("x1")] = 3  # 翻 小十, +1 → 小一 (wrapping within the size)
    assert st.turn_xing(held) == ([X("x10")], 3)


def test_fang_pao_bi_hu_pass_is_missing_forced_action(games):
    rec = next(r for r in games if r.result.outcome == "win" and r.result.from_ is not None
               and any(a.act == "discard" and a.seat == r.result.from_ for a in r.actions[-2:-1]))
    step = len(rec.actions) - 1
    assert rec.actions[step].act == "hu"
    winner = rec.actions[step].seat
    actions = rec.actions[:step] + [Event(seat=winner, act="pass")]
    v = verdict(msgspec.structs.replace(rec, actions=actions, result=None))
    assert not v.valid
    assert (v.errors[0].code, v.errors[0].step, v.errors[0].rule) == ("missing_forced_action", step, "zipai.fang_pao_bi_hu")


def test_fang_pao_bi_hu_is_an_option_guilin_lacks(games):
    rec = next(r for r in games if r.result.outcome == "win" and r.result.from_ is not None
               and r.actions[-2].act == "discard")
    step = len(rec.actions) - 1
    # the same pass under guilin-style rules (放炮必胡 off) is legal; the log is then merely truncated
    actions = rec.actions[:step] + [Event(seat=rec.actions[step].seat, act="pass")]
    rec2 = msgspec.structs.replace(rec, actions=actions, result=None, rules={"fang_pao_bi_hu": False})
    v = verdict(rec2)
    assert v.errors[0].code in ("truncated",) and v.errors[0].step == step + 1


def _two_fours_deal(seed: int = 5) -> Deal:
    rng = random.Random(seed)
    cards = ZIPAI.all_cards()
    rng.shuffle(cards)
    for k in ("x3", "d9"):  # give seat 1 all four 小三 and 大九
        cards = [c for c in cards if c != k]
    hand1 = ["x3"] * 4 + ["d9"] * 4 + cards[:12]
    rest = cards[12:]
    return Deal(hands=[rest[:21], hand1, rest[21:41]], wall=rest[41:])


def test_dealt_fours_are_laid_down_then_one_replacement():
    deal = _two_fours_deal()
    rec = Record(format="paipu/1", game_id="z-four", variant="zipai", seats=["a", "b", "c"], dealer=0,
                 deal=deal, actions=[])
    bots = [__import__("replay.variants.guilin.bots", fromlist=["HeuristicBot"]).HeuristicBot(random.Random(i)) for i in range(3)]
    done = play(rec, {}, bots)
    first = [(a.seat, a.act, a.cards, a.to_hand) for a in done.actions[:3]]
    assert first[0][:2] == (1, "sao_chuan") and first[1][:2] == (1, "sao_chuan")
    assert {tuple(first[0][2]), tuple(first[1][2])} == {("x3",) * 4, ("d9",) * 4}
    assert first[2][:2] == (1, "draw") and first[2][3] is True
    assert done.actions[2].card == deal.wall[0]  # the replacement is the front of the wall
    assert verdict(done).valid
    skipped = msgspec.structs.replace(done, actions=done.actions[3:], result=None)
    v = verdict(skipped)
    assert (v.errors[0].code, v.errors[0].step, v.errors[0].rule) == ("missing_forced_action", 0, "zipai.dealt_four")


def test_score_case_zipai_winning_card_triple_is_zero_and_fen_breakdown():
    # 004 §胡息及舵 1: a hand pair of 小三 completed by the winning 小三 brings no 胡息.
    hand = ["x3", "x3", "d1", "d2", "d3", "d2", "d7", "d10", "x4", "x5", "x6", "x7", "x8", "x9"]
    case = {"variant": "zipai", "hand": hand, "melds": [{"kind": "sao_chuan", "cards": ["d5"] * 4}],
            "win_card": "x3", "win_from": "discard"}
    out = score_case(case)
    # 扫穿 大 12 + 壹贰叁 6 + 贰柒拾 6 + 小三×3 0 = 24 → zipai 舵 1 + (24−10)//3 = 5
    assert out["win"] and out["points"] == 24 and out["units"] == 5
    g = {(x["kind"], tuple(x["cards"])): x["points"] for x in out["groups"]}
    assert g[("zero_triple", ("x3", "x3", "x3"))] == 0
    guilin = score_case({**case, "variant": "guilin"})
    assert guilin["points"] == 25  # guilin counts it as a 碰 (小 1)


def _errs(rec: Record) -> list[tuple[str, int | None]]:
    return [(e.code, e.step) for e in verdict(rec).errors]


def test_zipai_tamper_battery(games):
    # a 自摸 (not a forced 胡) with cards left in the wall (a 醒 was turned), not on a 碰 of its own:
    # that 胡 replaces the forced 开舵 (below)
    def on_own_peng(r: Record) -> bool:
        w = r.result.winner
        return any(a.seat == w and a.act == "peng" and a.card == r.result.win_card for a in r.actions)

    wins = [r for r in games if r.result.outcome == "win" and r.result.from_ is None and r.result.xing.cards
            and r.result.win_card is not None and len(r.actions) > 12]
    rec = next(r for r in wins if not on_own_peng(r))
    # cut before a 胡 that replaced the forced 开舵 of its 碰 (001 §开舵): the 开舵 was owed
    peng = next(r for r in wins if on_own_peng(r))
    cut = msgspec.structs.replace(peng, actions=peng.actions[:-1], result=None)
    assert _errs(cut) == [("missing_forced_action", len(peng.actions) - 1)]
    acts = list(rec.actions)
    i = next(k for k, a in enumerate(acts) if a.act == "draw" and not a.to_hand)
    other = next(c for c in ("x1", "d1", "x2") if c != acts[i].card)
    changed = acts[:i] + [msgspec.structs.replace(acts[i], card=other)] + acts[i + 1:]
    assert _errs(msgspec.structs.replace(rec, actions=changed))[0] == ("wall_mismatch", i)
    n = len(acts)
    assert _errs(msgspec.structs.replace(rec, actions=acts[:n - 1], result=None)) == [("truncated", n - 1)]
    assert _errs(msgspec.structs.replace(rec, actions=acts + [Event(seat=0, act="pass")]))[0] == ("trailing_actions", n)
    for field, bad in (("points", rec.result.points + 1), ("units", rec.result.units + 1),
                       ("scores", [s * 2 for s in rec.result.scores])):
        v = verdict(msgspec.structs.replace(rec, result=msgspec.structs.replace(rec.result, **{field: bad})))
        assert [(e.code, e.step) for e in v.errors] == [("result_mismatch", n - 1)] and f"result.{field}" in v.errors[0].message
