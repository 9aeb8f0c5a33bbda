"""上大人 games: simulation (validity, win share), 吃/對 priority, 開毛 and 毛 replacements on
hand-built deals, and tampered logs (each asserting the error code and its step)."""

from __future__ import annotations

import msgspec
import pytest

from replay.cards import SHANGDAREN
from replay.engine import Phase
from replay.errors import RuleViolation
from replay.record import Deal, Event, Record, Result
from replay.replayer import replay_line, replay_record
from replay.simulator import simulate

S = SHANGDAREN


def enc(rec: Record) -> bytes:
    return msgspec.json.encode(rec)


def outcome(rec: Record):
    return replay_line(enc(rec))


def err(rec: Record) -> tuple[str, int | None, str]:
    v = outcome(rec).verdict
    assert not v.valid, "expected an invalid record"
    e = v.errors[0]
    return e.code, e.step, e.rule


def with_actions(rec: Record, actions: list[Event]) -> Record:
    return msgspec.structs.replace(rec, actions=actions)


@pytest.fixture(scope="module")
def heuristic() -> list[Record]:
    return list(simulate("shangdaren", 300, 2026))


# -- (1) simulation ----------------------------------------------------------------------------------
def test_heuristic_games_validate_and_mostly_win(heuristic):
    wins = 0
    for rec in heuristic:
        v = outcome(rec).verdict
        assert v.valid, (rec.game_id, v.errors)
        assert v.computed["scores"] == msgspec.to_builtins(rec.result)["scores"]
        assert sum(v.computed["scores"]) == 0
        wins += v.computed["outcome"] == "win"
    share = wins / len(heuristic)
    assert share >= 0.5, share


def test_random_games_validate():
    for rec in simulate("shangdaren", 150, 7, "random"):
        v = outcome(rec).verdict
        assert v.valid, (rec.game_id, v.errors)


NON_DEFAULT = ({"players": 4}, {"yao_pai": "front", "fang_pao": "all", "hu_scale": "face"},
               {"hu_scale": "flat", "ting_tou_jing": 8, "pengpeng_scope": "taihu_fan", "mashang_dui": "before_hu"},
               {"players": 4, "dui_from": "shang_wei"})


@pytest.mark.parametrize("bots", ["heuristic", "random"])
@pytest.mark.parametrize("rules", NON_DEFAULT)
def test_four_players_and_rule_options_validate(rules, bots):
    for rec in simulate("shangdaren", 20, 3, bots, rules):
        v = outcome(rec).verdict
        assert v.valid, (rec.game_id, v.errors)


def test_cards_are_conserved_after_every_event(heuristic):
    from replay import variants
    from replay.options import make_ruleset

    spec = variants.get("shangdaren")
    for rec in heuristic[:15]:
        st = spec.state(rec, make_ruleset("shangdaren", spec.options, rec.rules))
        for i, ev in enumerate(rec.actions):
            st.apply(ev)
            # GameState.census: each of the 96 cards in one place (the discard won on stays with the
            # win, in no hand or river)
            assert st.unconserved() == [], (rec.game_id, i)


def test_facts_of_a_win(heuristic):
    rec = next(r for r in heuristic if r.result.outcome == "win")
    o = outcome(rec)
    f = o.facts
    w = rec.result.winner
    assert f["win_kind"] in ("zimo", "dianpao")
    mine = [m for m in f["melds"] if m["seat"] == w]
    assert sum(m["points"] for m in mine) == rec.result.points
    assert {m["origin"] for m in mine} <= {"table", "hand"}
    assert f["jing"]["main"] == rec.result.jing.main
    assert sum(v["count"] for v in f["jing"]["per_char"].values()) == rec.result.jing.count


def test_settlement_shares(heuristic):
    for rec in heuristic:
        r = rec.result
        if r.outcome != "win":
            continue
        if "zimo" in r.hand_types:  # 自摸: each loser pays the units (一人2分)
            assert sorted(r.scores) == sorted([r.units * 2] + [-r.units] * 2)
        else:  # 放炮: the discarder pays one share (default fang_pao = one)
            assert r.scores[r.from_] == -r.units and r.scores[r.winner] == r.units


# -- hand-built deals ------------------------------------------------------------------------------
def build(must: list[str], front: str = "", avoid: str = "", back: str = "", dealer: int = 0,
          rules: dict | None = None) -> Record:
    """A record of ``len(must)`` seats: seat i holds the characters of ``must[i]`` plus filler (never
    a kind in ``avoid``); the wall starts with ``front`` and ends with ``back``."""
    pool = S.all_cards()
    for c in "".join(must) + front + back:
        pool.remove(c)
    seen: dict[str, int] = {}
    order = []
    for c in pool:  # interleave kinds so filler never deals a four
        seen[c] = seen.get(c, 0) + 1
        order.append((seen[c], S.index(c), c))
    filler = [c for _, _, c in sorted(order) if c not in avoid]
    rest = [c for c in pool if c in avoid]
    hands = []
    for i, m in enumerate(must):
        need = (20 if i == dealer else 19) - len(m)
        hands.append(list(m) + filler[:need])
        filler = filler[need:]
    wall = list(front) + filler + rest + list(back)
    return Record(format="paipu/1", game_id="hand-built", variant="shangdaren", seats=list("abcd"[:len(must)]),
                  dealer=dealer, deal=Deal(hands=hands, wall=wall), actions=[], rules=rules or {})


def ev(seat, act, card=None, cards=None, tail=False) -> Event:
    return Event(seat=seat, act=act, card=card, cards=list(cards) if cards else None, tail=tail)


# Seat 0 discards 孔; seat 1 (下家) can 吃 it with 乙己; seat 2 holds 孔孔 and can 對 it.
PRIO = dict(must=["孔", "乙己", "孔孔"], avoid="孔乙己")


def test_chi_without_the_dui_seats_pass_is_a_priority_violation():
    rec = build(**PRIO)
    code, step, rule = err(with_actions(rec, [ev(0, "discard", "孔"), ev(1, "chi", "孔", "乙己")]))
    assert (code, step, rule) == ("priority_violation", 1, "paipu.priority")


def test_chi_after_explicit_pass_and_dui_first():
    rec = build(**PRIO)
    o = outcome(with_actions(rec, [ev(0, "discard", "孔"), ev(2, "pass"), ev(1, "chi", "孔", "乙己")]))
    assert (o.verdict.errors[0].code, o.verdict.errors[0].step) == ("truncated", 3)  # the 吃 was taken
    assert o.state.melds[1] == [("chi", (0, 1, 2))] and o.state.turn == 1
    o = outcome(with_actions(rec, [ev(0, "discard", "孔"), ev(2, "dui", "孔", "孔孔")]))
    assert (o.verdict.errors[0].code, o.verdict.errors[0].step) == ("truncated", 2)
    assert o.state.melds[2] == [("dui", (0, 0, 0))] and o.state.hands[2][0] == 0


def test_only_the_xiajia_may_chi():
    rec = build(must=["孔", "", "乙己"], avoid="孔乙己")
    code, step, rule = err(with_actions(rec, [ev(0, "discard", "孔"), ev(2, "chi", "孔", "乙己")]))
    assert (code, step, rule) == ("out_of_turn", 1, "shangdaren.chi")


# Seat 2 holds 孔孔孔: 開毛 on seat 0's 孔, replacement from the 腰牌 (back of the wall).
KAI = dict(must=["孔", "", "孔孔孔"], avoid="孔", back="福")


def test_kai_mao_replacement_from_the_back():
    rec = build(**KAI)
    acts = [ev(0, "discard", "孔"), ev(2, "kai_mao", "孔", "孔孔孔"), ev(2, "draw", "福", tail=True)]
    o = outcome(with_actions(rec, acts))
    assert (o.verdict.errors[0].code, o.verdict.errors[0].step) == ("truncated", 3)
    st = o.state
    assert st.melds[2] == [("kai_mao", (0, 0, 0, 0))] and st.back == len(rec.deal.wall) - 1
    assert st.phase is Phase.DISCARD and st.turn == 2 and st.drawn == S.index("福")


def test_kai_mao_replacement_errors():
    rec = build(**KAI)
    front = rec.deal.wall[0]
    acts = [ev(0, "discard", "孔"), ev(2, "kai_mao", "孔", "孔孔孔"), ev(2, "draw", front)]
    assert err(with_actions(rec, acts))[:3] == ("illegal_action", 2, "shangdaren.yao_pai")
    acts = [ev(0, "discard", "孔"), ev(2, "kai_mao", "孔", "孔孔孔"), ev(2, "discard", "孔")]
    assert err(with_actions(rec, acts)) == ("missing_forced_action", 2, "shangdaren.kai_mao")
    # yao_pai = front: the replacement is the top of the wall
    rec2 = msgspec.structs.replace(rec, rules={"yao_pai": "front"})
    o = outcome(with_actions(rec2, [ev(0, "discard", "孔"), ev(2, "kai_mao", "孔", "孔孔孔"), ev(2, "draw", front)]))
    assert (o.verdict.errors[0].code, o.verdict.errors[0].step) == ("truncated", 3)


def test_mao_at_the_start_and_in_turn():
    rec = build(must=["孔", "上上上上七七七七", ""], avoid="孔乙己上七")
    w = rec.deal.wall
    acts = [ev(1, "mao", cards="上上上上"), ev(1, "draw", w[0]), ev(0, "discard", "孔"),
            ev(1, "draw", w[1]), ev(1, "mao", cards="七七七七"), ev(1, "draw", w[2])]
    o = outcome(with_actions(rec, acts))
    assert (o.verdict.errors[0].code, o.verdict.errors[0].step) == ("truncated", 6)
    st = o.state
    assert st.melds[1] == [("mao", (3,) * 4), ("mao", (15,) * 4)]
    assert sum(st.hands[1]) == 19 + 2 - 8 + 1 and st.front == 3 and st.turn == 1
    # the replacement must come at once
    bad = acts[:1] + [ev(0, "discard", "孔")]
    assert err(with_actions(rec, bad)) == ("missing_forced_action", 1, "shangdaren.mao")
    # 毛 needs four in hand
    assert err(with_actions(rec, [ev(2, "mao", cards="上上上上")])) == ("out_of_turn", 0, "paipu.turn")


def test_players_option_must_match_seats():
    rec = msgspec.structs.replace(build(**PRIO), rules={"players": 4})
    assert err(with_actions(rec, [ev(0, "discard", "孔")]))[:2] == ("schema", None)  # record-level (paipu.players)


# -- dui_from: whose discard a seat may 對 / 開毛 (002 §上大人 1c, 1d: 你的上家或是尾家打的一張) -------------
# With 3 seats the 上家 and the 尾家 (下家) are both other seats. With 4, `any` (the default, the
# engine's reading before the option) takes every other seat's discard; `shang_wei` refuses the
# 對家's (docs/rules/shangdaren.md decision 3).
#
# A whole 4-seat game: the dealer (0) discards 孔; its 對家, seat 2, 對s it with 孔孔, discards 壽; seat 3
# draws 福 and discards 化; seat 2 wins on it with
#   對 孔孔孔 (red, on the table) 4 + 坎 大大大 (green, counted black) 2 + 坎 化化化 (red) 4
#   + 坎 爾爾爾 (red) 4 + 佳作仁 0 + 八九子 0 + 聽頭 乙己 0 = 14 胡 (hu_scale by_copies).
# No 上 七 福 (no 精) and 大 is a character of 上大人 (not 枯胡): 清胡, 11 ≤ 14 < 22 → 4 分 (002 §上大人
# 2b, 3b); 放炮: the discarder pays one share (3a).
DUIJIA = dict(must=["孔", "", "孔孔大大大化化爾爾爾佳作仁八九子乙己壽", "化"], front="福", avoid="孔化大爾壽福",
              rules={"players": 4})
DUIJIA_GAME = [ev(0, "discard", "孔"), ev(2, "dui", "孔", "孔孔"), ev(2, "discard", "壽"), ev(3, "draw", "福"),
               ev(3, "discard", "化"), ev(2, "hu", "化")]
DUIJIA_RESULT = {"outcome": "win", "winner": 2, "win_card": "化", "from": 3, "points": 14, "hand_types": ["qinghu"],
                 "jing": {"main": None, "count": 0}, "units": 4, "breakdown": {"qinghu": 4}, "scores": [0, 0, 4, -4]}


def duijia_record(rules: dict) -> Record:
    rec = with_actions(build(**{**DUIJIA, "rules": rules}), DUIJIA_GAME)
    return msgspec.structs.replace(rec, result=msgspec.convert(DUIJIA_RESULT, Result))


def test_four_players_dui_from_the_duijia_is_allowed_by_default():
    for rules in ({"players": 4}, {"players": 4, "dui_from": "any"}):
        v = outcome(duijia_record(rules)).verdict
        assert v.valid, v.errors
        assert {k: v.computed[k] for k in DUIJIA_RESULT} == DUIJIA_RESULT
        assert v.ruleset_id == outcome(duijia_record({"players": 4})).verdict.ruleset_id  # `any` is the default
    # the 對 is among the 對家's options on the dealer's 孔
    st = replay_record(duijia_record({"players": 4}), stop_after=0).state
    assert ev(2, "dui", "孔", "孔孔") in st.legal_events()


def test_four_players_dui_from_the_duijia_is_refused_under_shang_wei():
    rec = duijia_record({"players": 4, "dui_from": "shang_wei"})
    assert err(rec) == ("illegal_action", 1, "shangdaren.dui")
    assert "dui_from = shang_wei" in outcome(rec).verdict.errors[0].message
    st = replay_record(rec, stop_after=0).state
    assert st.phase is Phase.WINDOW and not [e for e in st.legal_events() if e.act == "dui"]
    # 開毛 likewise: seat 2 holding 孔孔孔
    kai = build(must=["孔", "", "孔孔孔", ""], avoid="孔乙己", rules={"players": 4, "dui_from": "shang_wei"})
    assert err(with_actions(kai, [ev(0, "discard", "孔"), ev(2, "kai_mao", "孔", "孔孔孔")])) == \
        ("illegal_action", 1, "shangdaren.kai_mao")


@pytest.mark.parametrize("value", ["any", "shang_wei"])
def test_four_players_dui_from_the_shangjia_or_weijia_under_both(value):
    # seat 3's 尾家 (下家) is seat 0: its discard may be 對'd; seat 1's 上家 is seat 0 too
    for seat in (1, 3):
        must = ["孔", "", "", ""]
        must[seat] = "孔孔"
        o = outcome(with_actions(build(must, avoid="孔乙己", rules={"players": 4, "dui_from": value}),
                                 [ev(0, "discard", "孔"), ev(seat, "dui", "孔", "孔孔")]))
        assert (o.verdict.errors[0].code, o.verdict.errors[0].step) == ("truncated", 2)
        assert o.state.melds[seat] == [("dui", (0, 0, 0))]


def test_four_players_chi_before_the_duijias_pass():
    # seat 1 (the dealer's 下家) 吃s its 孔 with 乙己 while the 對家, seat 2, holds 孔孔: under `any` the
    # 對家's 對 ranks first (1b: 如果另一家需要對的話應該對牌優先) and needs its pass; under `shang_wei` it
    # has no 對 to pass
    must = ["孔", "乙己", "孔孔", ""]
    chi = [ev(0, "discard", "孔"), ev(1, "chi", "孔", "乙己")]
    assert err(with_actions(build(must, avoid="孔乙己", rules={"players": 4}), chi)) == \
        ("priority_violation", 1, "paipu.priority")
    for rules in ({"players": 4, "dui_from": "shang_wei"}, {"players": 4}):
        acts = chi if "dui_from" in rules else [chi[0], ev(2, "pass"), chi[1]]
        o = outcome(with_actions(build(must, avoid="孔乙己", rules=rules), acts))
        assert (o.verdict.errors[0].code, o.verdict.errors[0].step) == ("truncated", len(acts))
        assert o.state.melds[1] == [("chi", (0, 1, 2))]


# -- mashang_dui: the 下家's 對 against another seat's 胡 on the same card -----------------------------
# Seat 0 discards 孔; seat 1 (its 下家) holds 孔孔; seat 2 wins on 孔 (上上上 10 + 化化化 4 + 小小小 2 +
# 七十士 1 + 八九子 0 + 爾爾爾 4 + 聽頭 孔乙 = 21 胡, 屁胡).
MASHANG = dict(must=["孔", "孔孔", "上上上化化化小小小七十士八九子爾爾爾乙"], avoid="孔乙己")


def test_mashang_dui_after_hu_by_default():
    rec = build(**MASHANG)
    assert err(with_actions(rec, [ev(0, "discard", "孔"), ev(1, "dui", "孔", "孔孔")]))[:3] == \
        ("priority_violation", 1, "paipu.priority")
    o = outcome(with_actions(rec, [ev(0, "discard", "孔"), ev(2, "hu", "孔")]))
    assert (o.verdict.errors, o.verdict.computed["points"], o.verdict.computed["units"]) == ([], 21, 2)


def test_mashang_dui_before_hu():
    rec = build(**MASHANG, rules={"mashang_dui": "before_hu"})
    o = outcome(with_actions(rec, [ev(0, "discard", "孔"), ev(1, "dui", "孔", "孔孔")]))
    assert (o.verdict.errors[0].code, o.verdict.errors[0].step) == ("truncated", 2)  # 對 at once
    assert err(with_actions(rec, [ev(0, "discard", "孔"), ev(2, "hu", "孔")]))[:3] == \
        ("priority_violation", 1, "paipu.priority")
    o = outcome(with_actions(rec, [ev(0, "discard", "孔"), ev(1, "pass"), ev(2, "hu", "孔")]))
    assert (o.verdict.errors, o.verdict.computed["winner"]) == ([], 2)


def test_mao_refused_on_an_empty_wall():
    # 002 §上大人 1e: 毛 "就必須從牌墩上層取一張到手中" — with no card left there is no 毛
    from replay import variants
    from replay.options import make_ruleset

    rec = build(must=["孔", "上上上上", ""], avoid="孔上")
    spec = variants.get("shangdaren")
    st = spec.state(rec, make_ruleset("shangdaren", spec.options, {}))
    for e in (ev(0, "discard", "孔"), ev(1, "draw", rec.deal.wall[0])):
        st.apply(e)
    assert Event(seat=1, act="mao", cards=["上"] * 4) in st.legal_events()
    st.front = st.back  # as at 海底: the wall is empty
    assert not [e for e in st.legal_events() if e.act == "mao"]
    with pytest.raises(RuleViolation) as e:
        st.apply(ev(1, "mao", cards="上上上上"))
    assert (e.value.code, e.value.rule) == ("illegal_action", "shangdaren.mao")


# -- (3) tampering with valid simulated logs ----------------------------------------------------------
def test_changed_draw_is_wall_mismatch(heuristic):
    rec = heuristic[0]
    i = next(i for i, e in enumerate(rec.actions) if e.act == "draw" and not e.tail)
    other = next(c for c in S.codes if c != rec.actions[i].card)
    acts = list(rec.actions)
    acts[i] = msgspec.structs.replace(acts[i], card=other)
    assert err(with_actions(rec, acts))[:2] == ("wall_mismatch", i)


def test_swapped_discard_and_draw_is_out_of_turn(heuristic):
    rec = heuristic[1]
    a = rec.actions
    i = next(i for i in range(len(a) - 1) if a[i].act == "discard" and a[i + 1].act == "draw" and a[i + 1].seat != a[i].seat)
    acts = list(a)
    acts[i], acts[i + 1] = acts[i + 1], acts[i]
    assert err(with_actions(rec, acts))[:2] == ("out_of_turn", i)


def test_dropped_replacement_is_missing_forced_action(heuristic):
    found = 0
    for rec in heuristic:
        a = rec.actions
        for i in range(len(a) - 2):
            if a[i].act in ("mao", "kai_mao") and a[i + 1].act == "draw" and not (a[i + 2].act == "draw" and a[i + 2].seat == a[i].seat):
                acts = a[:i + 1] + a[i + 2:]
                code, step, rule = err(with_actions(rec, acts))
                assert (code, step) == ("missing_forced_action", i + 1)
                assert rule == f"shangdaren.{a[i].act}"
                found += 1
                break
        if found >= 5:
            break
    assert found >= 5


def test_wrong_claimed_result_is_result_mismatch(heuristic):
    rec = next(r for r in heuristic if r.result.outcome == "win")
    last = len(rec.actions) - 1
    for field, val in (("points", rec.result.points + 1), ("units", rec.result.units + 2),
                       ("scores", [x * 2 for x in rec.result.scores])):
        bad = msgspec.structs.replace(rec, result=msgspec.structs.replace(rec.result, **{field: val}))
        v = outcome(bad).verdict
        assert [(e.code, e.step) for e in v.errors] == [("result_mismatch", last)]
        assert f"result.{field}" in v.errors[0].message


def test_act_by_wrong_seat_is_out_of_turn(heuristic):
    rec = heuristic[2]
    i = next(i for i, e in enumerate(rec.actions) if e.act == "discard" and i > 0 and rec.actions[i - 1].act == "draw")
    acts = list(rec.actions)
    acts[i] = msgspec.structs.replace(acts[i], seat=(acts[i].seat + 1) % 3)
    assert err(with_actions(rec, acts))[:2] == ("out_of_turn", i)


def test_dropped_pass_is_priority_violation(heuristic):
    found = 0
    for rec in heuristic:
        a = rec.actions
        for i in range(len(a) - 1):
            if a[i].act == "pass" and a[i + 1].act in ("chi", "dui", "kai_mao") and a[i + 1].seat != a[i].seat:
                code, step, _ = err(with_actions(rec, a[:i] + a[i + 1:]))
                assert (code, step) == ("priority_violation", i)
                found += 1
                break
    assert found >= 3


def test_truncated_log(heuristic):
    rec = heuristic[3]
    k = len(rec.actions) // 2
    assert err(with_actions(rec, rec.actions[:k]))[:2] == ("truncated", k)


def test_events_after_the_end_are_trailing(heuristic):
    rec = heuristic[4]
    extra = Event(seat=0, act="discard", card="孔")
    assert err(with_actions(rec, [*rec.actions, extra]))[:2] == ("trailing_actions", len(rec.actions))


def test_hu_on_an_incomplete_hand_is_not_a_win(heuristic):
    rec = heuristic[5]
    a = rec.actions
    i = next(i for i in range(1, len(a)) if a[i].act == "discard" and a[i - 1].act == "draw" and a[i - 1].seat == a[i].seat)
    acts = list(a)
    acts[i] = Event(seat=a[i].seat, act="hu", card=a[i - 1].card)
    code, step, rule = err(with_actions(rec, acts))
    assert (code, step, rule) == ("not_a_win", i, "shangdaren.hu_shape")
    # 胡 on another seat's discard that does not complete the hand
    j = next(j for j in range(len(a)) if a[j].act == "discard" and j + 1 < len(a) and a[j + 1].act == "draw")
    acts = a[:j + 1] + [Event(seat=(a[j].seat + 1) % 3, act="hu", card=a[j].card)] + a[j + 1:]
    assert err(with_actions(rec, acts))[:2] == ("not_a_win", j + 1)


def test_mao_naming_another_card_is_refused():
    """tests/data/shangdaren-mao-card.jsonl (auditor's log): step 14 is seat 0's 毛 of four 仁 with
    ``"card": "福"``; spec §3 makes ``card`` the card the meld is made with, so the event is refused
    (it was accepted); the same 毛 naming 仁, or no card, replays valid."""
    import json
    from pathlib import Path

    raw = (Path(__file__).parent / "data" / "shangdaren-mao-card.jsonl").read_bytes().strip()
    v = replay_line(raw).verdict
    assert not v.valid and (v.errors[0].code, v.errors[0].rule, v.errors[0].step) == \
        ("illegal_action", "shangdaren.mao", 14)
    rec = json.loads(raw)
    assert rec["actions"][14]["act"] == "mao" and rec["actions"][14]["cards"] == ["仁"] * 4
    rec["actions"][14]["card"] = "仁"
    assert replay_line(json.dumps(rec, ensure_ascii=False).encode()).verdict.valid
    del rec["actions"][14]["card"]
    assert replay_line(json.dumps(rec, ensure_ascii=False).encode()).verdict.valid
