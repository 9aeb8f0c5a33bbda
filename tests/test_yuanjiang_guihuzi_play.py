"""沅江鬼胡子 whole logs: simulated games validate clean, tampered ones fail with the right code at
the right step, card order never changes a score, and spec §8 score cases (waits included).

Expected codes and steps follow the log contract (../shared/spec/log-format.md §4–§6) and the
rules doc; the simulated logs are only the material that gets tampered with.
"""

from __future__ import annotations

import copy
from functools import lru_cache

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from replay.record import decode_record
from replay.replayer import replay_line, replay_record
from replay.score import score_case
from replay.simulator import simulate
from replay.variants.yuanjiang_guihuzi import scoring as sc

VID = "yuanjiang_guihuzi"


@lru_cache(maxsize=None)
def games(bots: str = "heuristic", n: int = 300, seed: int = 11) -> tuple[dict, ...]:
    return tuple(msgspec.to_builtins(r) for r in simulate(VID, n, seed, bots))


def verdict(rec: dict):
    return replay_line(msgspec.json.encode(rec)).verdict


def first_error(rec: dict) -> tuple[int | None, str]:
    v = verdict(rec)
    assert not v.valid
    return v.errors[0].step, v.errors[0].code


@lru_cache(maxsize=None)
def _win_games() -> tuple[dict, ...]:
    """Simulated wins ended before the wall ran out (so a cut log is not a 荒庄)."""
    out = []
    for rec in games():
        if rec["result"]["outcome"] == "win":
            o = replay_line(msgspec.json.encode(rec))
            if o.facts["wall_left"] > 0:
                out.append(rec)
    return tuple(out)


def win_games() -> list[dict]:
    return list(_win_games())


# -- simulation ---------------------------------------------------------------------------------
def test_heuristic_games_validate_and_mostly_win():
    recs = games()
    assert len(recs) == 300
    bad = [(r["game_id"], verdict(r).errors) for r in recs if not verdict(r).valid]
    assert bad == []
    share = sum(r["result"]["outcome"] == "win" for r in recs) / len(recs)
    assert share >= 0.5, share


def test_random_games_validate():
    recs = games("random", 150, 5)
    assert [r["game_id"] for r in recs if not verdict(r).valid] == []
    acts = {e["act"] for r in recs for e in r["actions"]}
    assert {"chi", "peng", "wai", "liu", "piao", "pass", "hu"} <= acts


def test_facts_of_a_win():
    rec = win_games()[0]
    out = replay_line(msgspec.json.encode(rec))
    f, res = out.facts, out.verdict.computed
    assert f["xing"] is None and f["win_kind"] in ("zimo", "flip", "deal")
    assert set(f["hand_type_xi"]) <= set(res["hand_types"])
    winner_groups = [m for m in f["melds"] if m["seat"] == res["winner"]]
    # every card the winner holds is in one group: 3k+2 concealed with the winning card, or melds
    assert sum(len(m["cards"]) for m in winner_groups if m["origin"] == "hand") % 3 in (0, 2)
    bd = res["breakdown"]
    assert res["units"] == res["points"] == (bd["xi"] + bd["kan"] + bd["wai"] + bd["liu"] + bd["piao"] + bd["dan_wai"]) \
        * bd["nei_yuan"] * bd["wai_yuan"] * bd["haidi"] * bd["baoting"]
    assert sum(res["scores"]) == 0 and res["scores"][res["winner"]] == 2 * res["units"]


# -- tampering ------------------------------------------------------------------------------------
def test_changed_draw_is_wall_mismatch():
    rec = copy.deepcopy(win_games()[0])
    k = next(i for i, e in enumerate(rec["actions"]) if e["act"] == "draw")
    want = rec["deal"]["wall"][0]
    rec["actions"][k]["card"] = "x1" if want != "x1" else "d1"
    assert first_error(rec) == (k, "wall_mismatch")


def test_swapped_events_are_out_of_turn():
    rec = copy.deepcopy(win_games()[0])
    acts = rec["actions"]
    k = next(i for i in range(len(acts) - 1) if acts[i]["act"] == "discard" and acts[i + 1]["act"] == "draw")
    acts[k], acts[k + 1] = acts[k + 1], acts[k]
    assert first_error(rec) == (k, "out_of_turn")  # a draw while the discarder still owes its discard


def test_wrong_seat_is_out_of_turn():
    rec = copy.deepcopy(win_games()[0])
    k = next(i for i, e in enumerate(rec["actions"]) if e["act"] == "discard")
    rec["actions"][k]["seat"] = (rec["actions"][k]["seat"] + 1) % 3
    assert first_error(rec) == (k, "out_of_turn")


def test_claim_without_the_higher_seats_pass_is_priority_violation():
    found = 0
    for rec in games():
        acts = rec["actions"]
        for p in range(1, len(acts) - 1):
            if acts[p]["act"] == "pass" and acts[p - 1]["act"] != "pass" and acts[p + 1]["act"] not in ("pass", "draw", "discard"):
                assert acts[p + 1]["seat"] != acts[p]["seat"]
                t = copy.deepcopy(rec)
                del t["actions"][p]
                assert first_error(t) == (p, "priority_violation")
                found += 1
                break
        if found >= 5:
            break
    assert found >= 5


def test_wrong_claimed_result_is_result_mismatch():
    rec = win_games()[0]
    last = len(rec["actions"]) - 1
    for field, change in (("points", lambda r: r["points"] + 1), ("units", lambda r: r["units"] * 2),
                          ("scores", lambda r: [s + (1 if i == 0 else -1 if i == 1 else 0) for i, s in enumerate(r["scores"])]),
                          ("hand_types", lambda r: r["hand_types"] + ["haidi"])):
        t = copy.deepcopy(rec)
        t["result"][field] = change(t["result"])
        v = verdict(t)
        assert [(e.step, e.code) for e in v.errors] == [(last, "result_mismatch")]
        assert f"result.{field}" in v.errors[0].message


def test_cut_log_is_truncated_and_extra_events_trail():
    rec = copy.deepcopy(win_games()[0])
    n = len(rec["actions"])
    cut = copy.deepcopy(rec)
    cut["actions"] = cut["actions"][:-1]
    assert first_error(cut) == (n - 1, "truncated")
    more = copy.deepcopy(rec)
    more["actions"].append({"seat": 0, "act": "draw", "card": "x1"})
    assert first_error(more) == (n, "trailing_actions")


def test_hu_on_an_incomplete_hand_is_not_a_win():
    rec = win_games()[0]
    r = decode_record(msgspec.json.encode(rec))
    for k, e in enumerate(rec["actions"]):
        if e["act"] != "draw":
            continue
        state = replay_record(r, stop_after=k).state
        s = e["seat"]
        card = state.window.card
        if sc.shape_ok(state.hands[s], state.melds[s], card):
            continue  # this one might be a win: not the case we want
        t = copy.deepcopy(rec)
        t["actions"].insert(k + 1, {"seat": s, "act": "hu", "card": e["card"]})
        assert first_error(t) == (k + 1, "not_a_win")
        return
    raise AssertionError("no draw where the drawer's hand is incomplete")


def test_no_forced_acts_in_this_variant():
    # 歪, 溜 and 飘 may all be passed (003 §名词解析 ④: 歪可选择过; docs §Acts): no window option is forced.
    rec = games()[0]
    r = decode_record(msgspec.json.encode(rec))
    for k in range(len(rec["actions"])):
        state = replay_record(r, stop_after=k).state
        if state.window is not None:
            assert not any(o.forced for o in state.window.options)


# -- card order never changes a score ---------------------------------------------------------------
@settings(max_examples=25, deadline=None)
@given(st.integers(0, 299), st.randoms(use_true_random=False))
def test_card_order_in_hands_never_changes_the_result(i, rnd):
    rec = copy.deepcopy(games()[i])
    for h in rec["deal"]["hands"]:
        rnd.shuffle(h)
    rec.pop("shuffle")  # the digest commits to the dealt order
    v = verdict(rec)
    assert v.valid and v.computed == verdict(games()[i]).computed


@settings(max_examples=40, deadline=None)
@given(st.permutations(["x3", "x3", "x3", "x3", "x4", "x5", "d6", "d7", "d8", "x9"]))
def test_card_order_in_a_score_case_never_changes_it(hand):
    out = score_case({"variant": VID, "hand": hand, "win_card": "x10", "win_from": "self"})
    assert out["win"] and out["points"] == 40 and out["hand_types"] == ["nei_yuan"]


# -- spec §8 score cases ----------------------------------------------------------------------------
def test_score_case_win_and_groups():
    out = score_case({"variant": VID, "hand": "x1 x2 x3 x4 x5 x6 d1 d2 d3 d5".split(), "win_card": "d5", "win_from": "self"})
    assert out == {"win": True, "points": 10, "units": 10, "hand_types": ["dan_wai"], "reason": None,
                   "groups": [{"kind": "shunzi", "cards": ["x1", "x2", "x3"], "points": 0},
                              {"kind": "shunzi", "cards": ["x4", "x5", "x6"], "points": 0},
                              {"kind": "shunzi", "cards": ["d1", "d2", "d3"], "points": 0},
                              {"kind": "dan_wai", "cards": ["d5", "d5"], "points": 1}]}
    flip = score_case({"variant": VID, "hand": "x1 x2 x3 x4 x5 x6 d1 d2 d3 d5".split(), "win_card": "d5", "win_from": "flip"})
    assert not flip["win"] and "起胡条件" in flip["reason"]
    disc = score_case({"variant": VID, "hand": "x3 x3 x3 x4 d1 d2 d3 d7 d8 d9".split(), "win_card": "x5", "win_from": "discard"})
    assert not disc["win"] and "drawn card" in disc["reason"]


def test_score_case_tianhu_and_context():
    hand = "x3 x3 x3 x4 x5 x6 x7 x8 x9 d1 d2 d3 d4 d5 d6 d8 d9 d10 x1 x2".split()
    out = score_case({"variant": VID, "hand": hand, "win_card": None, "context": {"dealer": True}})
    assert out["win"] and out["hand_types"] == ["tianhu"] and out["points"] == 205
    peng = [{"kind": "peng", "cards": ["x9", "x9", "x9"]}]
    h = "x1 x2 x3 x4 x5 x6 d1 d2 d3 d7".split()
    assert not score_case({"variant": VID, "hand": h, "melds": peng, "win_card": "d8"})["win"]
    hd = score_case({"variant": VID, "hand": h, "melds": peng, "win_card": "d8", "context": {"last_card": True}})
    assert hd["win"] and hd["hand_types"] == ["haidi"] and hd["units"] == 20
    bt = score_case({"variant": VID, "hand": h, "melds": peng, "win_card": "d8", "context": {"baoting": True}})
    assert bt["hand_types"] == ["baoting"] and bt["units"] == 20


def test_score_case_waits():
    case = {"variant": VID, "hand": ["x3", "x3", "x3", "d5"], "win_from": "self",
            "melds": [{"kind": "chi", "cards": ["d1", "d2", "d3"]}, {"kind": "peng", "cards": ["x7", "x7", "x7"]}]}
    # the single d5 makes a 门子 with d3 d4 d6 d7 (0 息) or pairs itself (单歪, +5); x3 is no wait.
    assert score_case(case) == {"waits": [{"card": "d3", "points": 10, "win": True}, {"card": "d4", "points": 10, "win": True},
                                          {"card": "d5", "points": 15, "win": True}, {"card": "d6", "points": 10, "win": True},
                                          {"card": "d7", "points": 10, "win": True}]}
    case["win_from"] = "flip"  # another seat's flip: d5 is a plain pair, the 坎 still meets 起胡条件
    assert [w["points"] for w in score_case(case)["waits"]] == [10, 10, 10, 10, 10]
    # no 坎/歪/圆, and another seat's flip gives no 单歪: every card completes the shape, none wins
    # (起胡条件, 003 §名词解析 5); each brings the 5 硬息 of a 小胡 (spec §8: "the points it would bring")
    plain = score_case({"variant": VID, "hand": "x1 x2 x3 x4 x5 x6 d1 d2 d3 d5".split(), "win_from": "flip",
                        "melds": [{"kind": "peng", "cards": ["x9", "x9", "x9"]}]})
    assert plain == {"waits": [{"card": c, "points": 5, "win": False} for c in ("d3", "d4", "d5", "d6", "d7")]}


def test_score_case_malformed():
    assert "error" in score_case({"variant": VID, "hand": ["x1"], "melds": [{"kind": "sao", "cards": ["x2", "x2", "x2"]}],
                                  "win_card": "x1"})
    assert "error" in score_case({"variant": VID, "hand": ["x1"] * 4, "win_card": "x1"})
    assert "error" in score_case({"variant": VID, "hand": ["x1"], "rules": {"piao": "yes"}, "win_card": "x1"})


def test_simulated_tables_follow_dingzhuang_and_shard_identically():
    from replay.variants.yuanjiang_guihuzi import check_dealer_sequence

    recs = list(simulate("yuanjiang_guihuzi", 24, 3))
    rows = [(r.table_id, r.round, r.dealer, r.result.winner if r.result.outcome == "win" else None) for r in recs]
    assert check_dealer_sequence(rows) == []
    # a shard starting at a table boundary deals exactly as the whole run
    assert [r.dealer for r in simulate("yuanjiang_guihuzi", 16, 3, start=8)] == [r.dealer for r in recs[8:]]
    # and a broken succession is caught: swap the dealer of a hand that followed a win
    i = next(k for k in range(1, 24) if k % 8 and rows[k - 1][3] is not None)
    bad = rows[:i] + [(rows[i][0], rows[i][1], (rows[i][2] + 1) % 3, rows[i][3])] + rows[i + 1:]
    assert len(check_dealer_sequence(bad)) >= 1


def test_score_case_dealt_hand_and_context():
    hand = "x3 x3 x3 x4 x5 x6 x7 x8 x9 d1 d2 d3 d4 d5 d6 d8 d9 d10 x1 x2".split()
    # "win_card": null is 天胡, the dealer's dealt hand: another seat has no card to win on
    other = score_case({"variant": VID, "hand": hand, "win_card": None})
    assert not other["win"] and "天胡" in other["reason"] and other["points"] is None
    assert "error" in score_case({"variant": VID, "hand": hand[3:], "win_card": None, "context": {"dealer": True},
                                  "melds": [{"kind": "peng", "cards": ["x3", "x3", "x3"]}]})
    kan = score_case({"variant": VID, "hand": hand[3:], "win_card": None, "context": {"dealer": True},
                      "melds": [{"kind": "kan", "cards": ["x3", "x3", "x3"]}]})  # a 坎 is dealt cards
    assert kan["win"] and kan["points"] == 205
    # 九对半 under jiudui_ban=dealt: context.first_turn says the hand is still the dealt one
    nine = {"variant": VID, "hand": "x1 x1 x3 x3 x5 x5 x7 x7 x9 d1 d1 d3 d3 d5 d5 d7 d7 d9 d10".split(),
            "win_card": "x9", "win_from": "flip", "rules": {"jiudui_ban": "dealt"}}
    late = score_case(nine)
    assert not late["win"] and late["points"] == 200 and "dealt hand" in late["reason"]
    assert score_case({**nine, "context": {"first_turn": True}})["win"]


def test_two_seat_tables():
    recs = [msgspec.to_builtins(r) for r in simulate(VID, 40, 5, "heuristic", {"players": 2})]
    assert all(len(r["seats"]) == 2 and len(r["deal"]["wall"]) == 41 for r in recs)
    assert sorted(len(h) for h in recs[0]["deal"]["hands"]) == [19, 20]  # 003 §3: 庄家20张, 闲家19张
    assert [r["game_id"] for r in recs if not verdict(r).valid] == []
    won = [r["result"] for r in recs if r["result"]["outcome"] == "win"]
    assert len(won) >= 30 and all(sorted(x["scores"]) == [-x["units"], x["units"]] for x in won)  # one loser
    from replay.variants.yuanjiang_guihuzi import check_dealer_sequence

    rows = [(r["table_id"], r["round"], r["dealer"], r["result"]["winner"]) for r in recs]
    assert check_dealer_sequence(rows, players=2) == []  # 定庄 at two seats: 荒庄 passes the deal to the other
    bare = copy.deepcopy(recs[0])
    bare["rules"] = {}
    assert first_error(bare) == (None, "schema")  # a 2-seat record must say players=2
    three = copy.deepcopy(games()[0])
    three["rules"] = {"players": 2}
    assert first_error(three) == (None, "schema")
