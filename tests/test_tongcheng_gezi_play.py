"""通城個子牌 in play: simulated games replay clean, the acts' rules hold at the step they are
broken, and tampered logs get the right code at the right step.

Seed: 000_b93a380aaaa9b6e3.txt; decisions: docs/rules/tongcheng_gezi.md. Rule tests build a state
from a valid record and then set the hands and the wall by hand (white box), so each situation is
exactly the one the rule talks about.
"""

from __future__ import annotations

import random

import msgspec
import pytest

from replay.cards import HUAPAI
from replay.errors import RuleViolation
from replay.options import make_ruleset
from replay.record import Event, Result, decode_record
from replay.replayer import replay_line
from replay.simulator import simulate
from replay.variants import get
from replay.variants.tongcheng_gezi.state import GeziState

V = "tongcheng_gezi"
GAMES = 300


def _sim(players: int, bots: str, n: int, seed: int = 11):
    rules = {"players": players} if players != 4 else {}
    return list(simulate(V, n, seed, bots, rules=rules))


@pytest.fixture(scope="module")
def four():
    return _sim(4, "heuristic", GAMES)


@pytest.fixture(scope="module")
def three():
    return _sim(3, "heuristic", GAMES)


def _line(rec) -> bytes:
    return msgspec.json.encode(rec)


def _obj(rec) -> dict:
    return msgspec.json.decode(_line(rec))


def _verdict(obj: dict):
    return replay_line(msgspec.json.encode(obj)).verdict


def _err(obj: dict):
    v = _verdict(obj)
    assert not v.valid, "tampered log validated clean"
    e = v.errors[0]
    return e.code, e.step, e.rule


# -- (1) simulation: every log validates; win share ≥ 0.5 ----------------------------------------
@pytest.mark.parametrize("which", ["four", "three"])
def test_heuristic_games_validate_and_mostly_win(which, request):
    recs = request.getfixturevalue(which)
    wins = 0
    for rec in recs:
        out = replay_line(_line(rec))
        assert out.verdict.valid, (rec.game_id, out.verdict.errors)
        c = out.verdict.computed
        assert sum(c["scores"]) == 0
        if c["outcome"] == "win":
            wins += 1
            g = out.facts["gezi"]
            assert g["from_cards"] + g["from_melds"] == c["points"]
            minimum = 7 if len(rec.seats) == 4 else 9
            assert c["points"] >= minimum or g["special"] is not None
            assert c["units"] == c["breakdown"]["fen"] * c["breakdown"]["bei"]
            # the winner's groups: six groups and one 半句 (or ten 對子)
            mine = [m for m in out.facts["melds"] if m["seat"] == c["winner"]]
            assert sum(m["points"] for m in mine) == c["points"]
            assert len(mine) == (10 if g["special"] == "shidui" else 7)
        else:
            assert out.facts["gezi"] is None and out.facts["wall_left"] == 0
    assert wins / len(recs) >= 0.5, wins / len(recs)


@pytest.mark.parametrize("players", [4, 3])
def test_random_bots_make_only_valid_logs(players):
    for rec in _sim(players, "random", 60, seed=5):
        v = replay_line(_line(rec)).verdict
        assert v.valid, (rec.game_id, v.errors)


def test_payments_follow_the_win_kind(four):
    # 抓衝: only the discarder pays one share; 自摸: each other seat pays one (000 §胡牌規則).
    seen = set()
    for rec in four:
        out = replay_line(_line(rec))
        c, kind = out.verdict.computed, out.facts["win_kind"]
        if c["outcome"] != "win":
            continue
        seen.add(kind)
        w, u = c["winner"], c["units"]
        if kind == "dianpao":
            want = [0] * 4
            want[c["from"]], want[w] = -u, u
        else:
            want = [-u] * 4
            want[w] = 3 * u
            assert "zimo" in c["hand_types"] or "tianhu" in c["hand_types"]
        assert c["scores"] == want
    assert {"dianpao", "zimo"} <= seen


def test_zimo_triple_option_changes_only_the_share():
    recs = list(simulate(V, 40, 3, "heuristic", rules={"zimo_pay": "triple"}))
    zimo = [r for r in recs if r.result.outcome == "win" and r.result.from_ is None]
    assert zimo
    for r in zimo:
        v = replay_line(_line(r)).verdict
        assert v.valid and v.computed["breakdown"]["zimo"] == 3
        assert v.computed["units"] == 3 * v.computed["breakdown"]["fen"] * v.computed["breakdown"]["bei"]
        assert v.ruleset_id != "tongcheng_gezi-default"


def test_seat_count_must_match_players_option(three):
    obj = _obj(three[0])
    obj["rules"] = {}
    assert _err(obj)[:2] == ("schema", None)  # record-level: reported before replay (spec §6)


def test_tail_replacements_option():
    recs = list(simulate(V, 30, 4, "heuristic", rules={"bu_pai": "tail"}))
    tails = [e for r in recs for e in r.actions if e.tail]
    assert tails  # some 招 / 觀生 / 滑 happened and drew from the back
    for r in recs:
        assert replay_line(_line(r)).verdict.valid


# -- (3) tampering ------------------------------------------------------------------------------
def _first(recs, pred):
    for rec in recs:
        obj = _obj(rec)
        for i, ev in enumerate(obj["actions"]):
            if pred(obj, i, ev):
                return obj, i
    raise AssertionError("no game has the situation")


def test_changed_draw_is_wall_mismatch(four):
    obj, i = _first(four, lambda o, i, e: e["act"] == "draw")
    obj["actions"][i]["card"] = "花五" if obj["actions"][i]["card"] != "花五" else "上"
    assert _err(obj)[:2] == ("wall_mismatch", i)


def test_swapped_draw_and_discard_is_out_of_turn(four):
    # a turn's draw (after another seat's discard), not a replacement: skipping one of those is
    # missing_forced_action (test_skipped_replacement_is_missing_forced_action)
    obj, i = _first(four, lambda o, i, e: e["act"] == "draw" and o["actions"][i + 1]["act"] == "discard"
                    and i > 0 and o["actions"][i - 1]["act"] == "discard")
    a = obj["actions"]
    a[i], a[i + 1] = a[i + 1], a[i]
    assert _err(obj)[:2] == ("out_of_turn", i)  # a discard while that seat must draw


def test_skipped_replacement_is_missing_forced_action(four):
    """The replacement (補) after 招 / 觀生 / 滑 is forced: a discard in its place is
    missing_forced_action, rule bu_pai (spec §6; one code with 上大人 and the 花牌 family)."""
    obj, i = _first(four, lambda o, i, e: e["act"] in ("zhao", "guan_sheng", "hua")
                    and o["actions"][i + 1]["act"] == "draw" and o["actions"][i + 2]["act"] == "discard")
    del obj["actions"][i + 1]
    assert _err(obj)[:3] == ("missing_forced_action", i + 1, "tongcheng_gezi.bu_pai")


def test_wrong_seat_discard_is_out_of_turn(four):
    obj, i = _first(four, lambda o, i, e: e["act"] == "discard")
    obj["actions"][i]["seat"] = (obj["actions"][i]["seat"] + 2) % 4
    assert _err(obj)[:2] == ("out_of_turn", i)


def test_jian_by_a_seat_not_the_xiajia_is_out_of_turn(four):
    obj, i = _first(four, lambda o, i, e: e["act"] == "jian")
    s = obj["actions"][i]["seat"]
    obj["actions"][i]["seat"] = (s + 1) % 4  # the discarder is s - 1; s + 1 is not its 下家
    code, step, rule = _err(obj)
    assert (code, step, rule) == ("out_of_turn", i, "tongcheng_gezi.jian_xiajia")


def test_claim_without_the_higher_seats_pass_is_priority_violation(four):
    def pred(o, i, e):
        a = o["actions"]
        return e["act"] == "pass" and i + 1 < len(a) and a[i + 1]["act"] in ("peng", "jian", "zhao", "hua")
    obj, i = _first(four, pred)
    del obj["actions"][i]
    assert _err(obj)[:2] == ("priority_violation", i)


@pytest.mark.parametrize("field, value", [("points", 99), ("units", 99), ("scores", [5, -5, 0, 0])])
def test_wrong_claimed_result_is_result_mismatch(four, field, value):
    rec = next(r for r in four if r.result.outcome == "win")
    obj = _obj(rec)
    obj["result"][field] = value
    v = _verdict(obj)
    assert [(e.code, e.step) for e in v.errors] == [("result_mismatch", len(obj["actions"]) - 1)]
    assert field in v.errors[0].message


def test_truncated_log(four):
    rec = next(r for r in four if r.result.outcome == "win" and r.result.from_ is not None
               and replay_line(_line(r)).facts["wall_left"] > 0)
    obj = _obj(rec)
    obj["actions"].pop()  # the 胡 on a discard: the window closes and the 下家 must draw
    assert _err(obj)[:2] == ("truncated", len(obj["actions"]))


def test_events_after_the_end_are_trailing(four):
    rec = next(r for r in four if r.result.outcome == "win")
    obj = _obj(rec)
    obj["actions"].append({"seat": 0, "act": "discard", "card": "上"})
    assert _err(obj)[:2] == ("trailing_actions", len(obj["actions"]) - 1)


def test_hu_on_an_incomplete_hand_is_not_a_win(four):
    # The first discard of the game by a seat that drew: replace it by 自摸 on the drawn card.
    for rec in four:
        obj = _obj(rec)
        a = obj["actions"]
        i = next((i for i in range(1, len(a)) if a[i]["act"] == "discard" and a[i - 1]["act"] == "draw"
                  and a[i - 1]["seat"] == a[i]["seat"]), None)
        if i is None:
            continue
        a[i] = {"seat": a[i]["seat"], "act": "hu", "card": a[i - 1]["card"]}
        code, step, rule = _err(obj)
        assert (code, step) == ("not_a_win", i) and rule in ("tongcheng_gezi.liu_ju_ban", "tongcheng_gezi.min_gezi")
        return
    raise AssertionError("no game has the situation")


def test_hu_on_a_discard_that_does_not_complete_is_not_a_win(four):
    obj, i = _first(four, lambda o, i, e: e["act"] == "discard" and i + 1 < len(o["actions"])
                    and o["actions"][i + 1]["act"] == "draw")
    src = obj["actions"][i]["seat"]
    obj["actions"].insert(i + 1, {"seat": (src + 2) % 4, "act": "hu", "card": obj["actions"][i]["card"]})
    assert _err(obj)[:2] == ("not_a_win", i + 1)


def test_shuffled_deal_hands_keep_the_result(four):
    # Card order in the dealt hands never changes a score (count vectors).
    rng = random.Random(3)
    for rec in four[:30]:
        obj = _obj(rec)
        for h in obj["deal"]["hands"]:
            rng.shuffle(h)
        obj.pop("shuffle")
        v = _verdict(obj)
        assert v.valid and v.computed == replay_line(_line(rec)).verdict.computed


# -- (2) rules in play, white box ------------------------------------------------------------------
JUNK = ["上", "大", "可", "知", "化", "千", "十", "士", "二", "四", "六", "八", "子", "己", "乙", "九", "人", "禮", "三"]


@pytest.fixture
def table(four):
    """A fresh 4-seat state (dealer 0) whose hands and wall the test sets."""
    rec = decode_record(_line(four[0]))
    rec = msgspec.structs.replace(rec, dealer=0, actions=[], result=None)
    st = GeziState(rec, make_ruleset(V, get(V).options, {}))

    def setup(hands: dict[int, list[str]], wall: list[str]):
        for s in range(4):
            st.hands[s] = HUAPAI.counts(hands.get(s, JUNK))
        st.wall = [HUAPAI.index(c) for c in wall]
        st.front, st.back = 0, len(st.wall)
        return st
    return setup


def ev(seat, act, card=None, cards=None, **kw):
    return Event(seat=seat, act=act, card=card, cards=cards, **kw)


def _raises(st, e) -> tuple[str, str, int]:
    with pytest.raises(RuleViolation) as ex:
        st.apply(e)
    return ex.value.code, ex.value.rule, ex.value.step


def test_jian_card_never_makes_a_peng(table):
    st = table({0: ["孔"] + JUNK, 1: ["孔"] + JUNK[:18], 2: ["孔"] + JUNK[:18]}, ["六", "八", "子"])
    st.apply(ev(0, "discard", "孔"))                      # step 0
    assert [o.act for o in st.window.options] == ["jian"]  # one 孔 elsewhere: no 碰; seat 1 may 撿
    st.apply(ev(1, "jian", "孔"))                         # step 1: seat 1 now holds 孔 孔 (one 撿ed)
    st.apply(ev(1, "discard", "上"))                      # step 2
    st.apply(ev(2, "draw", "六"))                         # step 3
    st.apply(ev(2, "discard", "孔"))                      # step 4
    assert not any(o.act == "peng" for o in st.window.options)
    assert _raises(st, ev(1, "peng", "孔", ["孔", "孔"])) == ("illegal_action", "tongcheng_gezi.jian_same", 5)


def test_two_own_cards_do_peng_and_the_shangjia_seat_first(table):
    # seat 1 and seat 3 both hold 孔 孔; seat 0 discards 孔: seat 1 (its 下家) ranks first.
    st = table({1: ["孔", "孔"] + JUNK[:17], 3: ["孔", "孔"] + JUNK[:17], 0: ["孔"] + JUNK}, ["六"])
    st.apply(ev(0, "discard", "孔"))
    assert sorted((o.seat, o.act) for o in st.window.options) == [(1, "jian"), (1, "peng"), (3, "peng")]
    assert _raises(st, ev(3, "peng", "孔", ["孔", "孔"]))[:1] == ("priority_violation",)
    st.apply(ev(1, "pass"))
    st.apply(ev(3, "peng", "孔", ["孔", "孔"]))
    assert st.melds[3] == [("peng", (3, 3, 3))] and st.turn == 3


def test_hua_without_guan_sheng_is_refused_then_allowed(table):
    st = table({0: ["孔"] * 5 + JUNK[:15]}, ["六", "八", "子"])
    assert _raises(st, ev(0, "hua", "孔")) == ("illegal_action", "tongcheng_gezi.hua_needs_guan_sheng", 0)
    st.apply(ev(0, "guan_sheng", cards=["孔"] * 4))   # step 0 (the failed event did not count)
    st.apply(ev(0, "draw", "六"))                      # replacement from the front
    st.apply(ev(0, "hua", "孔"))
    st.apply(ev(0, "draw", "八"))
    assert st.melds[0] == [("hua", (3,) * 5)]
    st.apply(ev(0, "discard", "八"))
    assert st.wall_left == 1


def test_zhao_set_cannot_hua_and_peng_cannot_zhao(table):
    st = table({0: ["孔"] + JUNK, 1: ["孔"] * 3 + JUNK[:16]}, ["孔", "八", "子"])
    st.apply(ev(0, "discard", "孔"))
    st.apply(ev(1, "zhao", "孔", ["孔"] * 3))
    st.apply(ev(1, "draw", "孔"))   # the fifth 孔 as the replacement
    assert _raises(st, ev(1, "hua", "孔")) == ("illegal_action", "tongcheng_gezi.hua_not_zhao", 3)


def test_jian_card_never_guan_sheng(table):
    st = table({0: ["孔"] + JUNK, 1: ["孔"] * 3 + JUNK[:16]}, ["六", "八"])
    st.apply(ev(0, "discard", "孔"))
    assert sorted(o.act for o in st.window.options) == ["jian", "peng", "zhao"]
    st.apply(ev(1, "jian", "孔"))  # seat 1 takes its own lowest option: 撿 the fourth 孔
    assert _raises(st, ev(1, "guan_sheng", cards=["孔"] * 4)) == ("illegal_action", "tongcheng_gezi.jian_same", 2)


def test_no_zimo_after_jian(table):
    hand = list("上大人可知禮孔乙己八九子七十士二三四五")  # 19 cards: waits on 七 (半句 五七) among others
    st = table({0: ["七"] + JUNK, 1: hand}, ["六"])
    st.apply(ev(0, "discard", "七"))
    hu = [o for o in st.window.options if o.act == "hu"]
    assert [(o.seat, o.key) for o in hu] == [(1, (0, 0))]  # 胡 ranks before the same seat's 撿
    st.apply(ev(1, "jian", "七"))
    assert _raises(st, ev(1, "hu", "七")) == ("illegal_action", "tongcheng_gezi.zimo", 2)


def test_zimo_paid_by_every_other_seat(table):
    hand = list("上大人可知禮孔乙己八九子七十士二三四五")
    st = table({1: hand}, ["七"])
    st.apply(ev(0, "discard", "上"))
    st.apply(ev(1, "draw", "七"))
    st.apply(ev(1, "hu", "七"))
    r = st.result()
    # 7 個子 → 1 分; 自摸: each of the three others pays 1.
    assert (r["points"], r["units"], r["from"], r["scores"], r["hand_types"]) == (7, 1, None, [-1, 3, -1, -1], ["zimo"])
    assert st.facts()["win_kind"] == "zimo" and st.facts()["gezi"] == {"from_cards": 5, "from_melds": 2, "hua_cards": 0, "special": None}


def test_dianpao_paid_by_the_discarder_only(table):
    hand = list("上大人可知禮孔乙己八九子七十士二三四五")
    st = table({1: hand, 3: ["花七"] + JUNK}, ["六", "八", "子"])
    st.apply(ev(0, "discard", "上"))
    st.apply(ev(1, "draw", "六"))
    st.apply(ev(1, "discard", "六"))
    st.apply(ev(2, "draw", "八"))
    st.apply(ev(2, "discard", "上"))
    st.apply(ev(3, "draw", "子"))
    st.apply(ev(3, "discard", "花七"))
    st.apply(ev(1, "hu", "花七"))  # 半句 五花七: 2 + 2 → 8 個子
    r = st.result()
    assert (r["points"], r["units"], r["from"], r["scores"]) == (8, 1, 3, [0, 1, 0, -1])
    assert st.facts()["gezi"]["hua_cards"] == 1


def test_dealer_tianhu_on_the_dealt_hand(table):
    st = table({0: list("上大人可知禮孔乙己八九子七十士二三四五七")}, ["六"])  # SEVEN: 7 個子
    assert Event(seat=0, act="hu") in st.legal_events()
    assert _raises(st, ev(0, "hu", "七")) == ("illegal_action", "tongcheng_gezi.zimo", 0)  # 天胡 has no card
    st.apply(ev(0, "hu"))
    r = st.result()
    assert (r["win_card"], r["from"], r["hand_types"], r["units"], r["scores"]) == (None, None, ["tianhu"], 1, [3, -1, -1, -1])
    assert st.facts()["win_kind"] == "deal"


def test_tian_hu_refused_takes_the_dealt_win_away(table):
    """Option tian_hu = refused (decision 7, the 花牌 family's reading of the seeds' silence): the same
    winning dealt hand is not offered a 胡, and a logged one is illegal_action, rule tongcheng_gezi.tian_hu."""
    st = table({0: list("上大人可知禮孔乙己八九子七十士二三四五七")}, ["六"])
    st.rules = make_ruleset(V, get(V).options, {"tian_hu": "refused"})
    assert not [e for e in st.legal_events() if e.act == "hu"]
    assert _raises(st, ev(0, "hu")) == ("illegal_action", "tongcheng_gezi.tian_hu", 0)


@pytest.mark.parametrize("players", [4, 3])
def test_random_walk_over_legal_events(players):
    # Shared battery (style.md: OpenSpiel): uniform play over legal_events() — explicit passes and
    # window-closing draws included — never raises, conserves the 110 cards after every event, and
    # the log it makes replays valid.
    rules = {"players": players} if players == 3 else {}
    for g, rec in enumerate(simulate(V, 12, 21, "random", rules=rules)):
        rec = msgspec.structs.replace(rec, actions=[], result=None)
        st = get(V).state(rec, make_ruleset(V, get(V).options, rules))
        rng = random.Random(g)
        log = []
        while st.phase.value != "over" and len(log) < 1500:
            evs = st.legal_events()
            assert evs, st.phase
            e = rng.choice(evs)
            st.apply(e)
            log.append(e)
            assert st.unconserved() == []  # GameState.census: each of the 110 cards in one place
        if st.phase.value != "over":
            continue
        done = msgspec.structs.replace(rec, actions=log, result=msgspec.convert(st.result(), type=Result))
        assert replay_line(_line(done)).verdict.valid


def test_claim_order_option(four):
    # seat 1 holds 孔 孔 (碰); seat 2 wins on 孔 (孔乙己 completes). hu_first: seat 2's 胡 outranks
    # seat 1's 碰; seat_order: seat 1 (the discarder's 下家) comes first.
    win_hand = list("上大人可知禮乙己八九子七十士二三四五七")  # 19: 孔 completes 孔乙己 (SEVEN)
    keys = {}
    for order in ("hu_first", "seat_order"):
        rec = msgspec.structs.replace(decode_record(_line(four[0])), dealer=0, actions=[], result=None)
        st = GeziState(rec, make_ruleset(V, get(V).options, {"claim_order": order}))
        for s, h in {0: ["孔"] + JUNK, 1: ["孔", "孔"] + JUNK[:17], 2: win_hand, 3: JUNK}.items():
            st.hands[s] = HUAPAI.counts(h)
        st.wall, st.front, st.back = [HUAPAI.index("六")], 0, 1
        st.apply(ev(0, "discard", "孔"))
        keys[order] = sorted((o.key, o.seat, o.act) for o in st.window.options)[:2]
        if order == "seat_order":
            assert _raises(st, ev(2, "hu", "孔"))[0] == "priority_violation"
    assert [(s, a) for _, s, a in keys["hu_first"]] == [(2, "hu"), (1, "peng")]
    assert [(s, a) for _, s, a in keys["seat_order"]] == [(1, "peng"), (2, "hu")]


# -- the 觀生 choice and the options that act in play ----------------------------------------------
GS_DEALT = ["孔"] * 4 + ["上"] * 4 + ["乙", "乙", "乙", "花乙"] + ["己"] * 4 + ["五"] * 3  # seat 1's 19 cards


def test_guan_sheng_choice_in_replay(table):
    # A worked example (000 §操作規則 觀生: 兩組四個…玩家可以折散兩組四個牌中任意一組牌): seat 1 declares
    # 觀生 孔×4 and later wins on a 九 discard with 上×4 as its 觀生 and the 孔 split: 孔花乙己 1 + 坎 孔孔孔,
    # 乙乙乙, 己己己 1 each + 坎 五五五 8 + 半句 八九 0 + 觀生 上 4 = 16 個子 → 2 分, the discarder pays 2.
    st = table({1: GS_DEALT}, ["八", "六", "子", "四"])
    st.apply(ev(0, "discard", "大"))
    st.apply(ev(1, "draw", "八"))
    st.apply(ev(1, "guan_sheng", cards=["孔"] * 4))
    st.apply(ev(1, "draw", "六"))                   # the replacement (補) from the front
    st.apply(ev(1, "discard", "六"))
    st.apply(ev(2, "draw", "子"))
    st.apply(ev(2, "discard", "九"))
    assert any(o.seat == 1 and o.act == "hu" for o in st.window.options)
    st.apply(ev(1, "hu", "九"))
    r = st.result()
    assert (r["points"], r["units"], r["from"], r["scores"]) == (16, 2, 2, [0, 2, -2, 0])
    mine = [m for m in st.facts()["melds"] if m["seat"] == 1]
    assert {"seat": 1, "kind": "guan_sheng", "cards": ["上"] * 4, "points": 4, "origin": "hand"} in mine
    assert not any(m["origin"] == "table" for m in mine)  # the declared 孔 are read into 句 and 坎
    assert st.melds[1] == [("guan_sheng", (3, 3, 3, 3))]  # what lies on the table is unchanged


def test_guan_sheng_choice_needs_a_four_of_own_cards(table):
    # the same, but one 上 came by 撿: 上×4 may not be the 觀生 (a 撿 card never joins identical cards
    # to 觀生), so the 胡 on 九 is refused, with no 六句半.
    st = table({1: GS_DEALT[:7] + GS_DEALT[8:] + ["八"]}, ["六", "子", "四"])  # three 上 and an 八
    st.apply(ev(0, "discard", "上"))
    st.apply(ev(1, "jian", "上"))
    st.apply(ev(1, "guan_sheng", cards=["孔"] * 4))
    st.apply(ev(1, "draw", "六"))
    st.apply(ev(1, "discard", "六"))
    st.apply(ev(2, "draw", "子"))
    st.apply(ev(2, "discard", "九"))
    assert _raises(st, ev(1, "hu", "九")) == ("not_a_win", "tongcheng_gezi.liu_ju_ban", 7)


def test_not_a_win_detail_carries_the_split(table):
    hand = list("上大人可知禮孔乙己八九子七十士二三四五")
    st = table({1: hand, 3: ["六"] + JUNK[:18]}, ["四", "八", "子"])
    st.apply(ev(0, "discard", "上"))
    st.apply(ev(1, "draw", "四"))
    st.apply(ev(1, "discard", "四"))
    st.apply(ev(2, "draw", "八"))
    st.apply(ev(2, "discard", "六"))
    with pytest.raises(RuleViolation) as ex:  # 半句 五六: 6 個子 under the minimum of 7
        st.apply(ev(1, "hu", "六"))
    e = ex.value
    assert (e.code, e.rule, e.detail["points"]) == ("not_a_win", "tongcheng_gezi.min_gezi", 6)
    assert {"kind": "ban_ju", "cards": ["五", "六"], "points": 2} in e.detail["groups"] and len(e.detail["groups"]) == 7


def _rules_table(four, rules):
    rec = msgspec.structs.replace(decode_record(_line(four[0])), dealer=0, actions=[], result=None)
    st = GeziState(rec, make_ruleset(V, get(V).options, rules))

    def setup(hands, wall):
        for s in range(4):
            st.hands[s] = HUAPAI.counts(hands.get(s, JUNK))
        st.wall, st.front, st.back = [HUAPAI.index(c) for c in wall], 0, len(wall)
        return st
    return setup


@pytest.mark.parametrize("value", ["allowed", "refused"])
def test_option_jian_discard(four, value):
    # seat 1 撿s 孔 and discards 孔 at once: as a drawn card (allowed), or illegal_action (refused) —
    # which then lists no 孔 discard; a card of another kind may go (花三 is not 三).
    st = _rules_table(four, {"jian_discard": value})({0: ["孔"] + JUNK, 1: ["孔", "三"] + JUNK[:17]}, ["六", "八"])
    st.apply(ev(0, "discard", "孔"))
    st.apply(ev(1, "jian", "孔"))
    discards = {e.card for e in st.legal_events() if e.act == "discard"}
    if value == "allowed":
        assert "孔" in discards
        st.apply(ev(1, "discard", "孔"))
        assert st.phase.value == "window"
    else:
        assert "孔" not in discards and "三" in discards
        assert _raises(st, ev(1, "discard", "孔")) == ("illegal_action", "tongcheng_gezi.jian_discard", 2)
        st.apply(ev(1, "discard", "三"))
        assert st.jian_card is None


def test_option_jian_discard_is_by_kind(four):
    st = _rules_table(four, {"jian_discard": "refused"})({0: ["三"] + JUNK, 1: ["花三"] + JUNK}, ["六"])
    st.apply(ev(0, "discard", "三"))
    st.apply(ev(1, "jian", "三"))
    st.apply(ev(1, "discard", "花三"))  # another face of the character: allowed
    assert st.phase.value == "window"


@pytest.mark.parametrize("value, want", [("allowed", (12, 1)), ("refused", None)])
def test_option_jian_kan_in_replay(four, value, want):
    # seat 1 撿s a third 五 and waits on 三 (半句 二三): 上大人 1 可知禮 1 孔乙己 0 八九子 0 七十士 1 坎 五五五 8
    # 二三 1 = 12 → 1 分 (allowed); refused: the 撿 五 may not sit in the 坎 → no 六句半 (liu_ju_ban).
    hand = list("上大人可知禮孔乙己八九子七十士五五二六")
    st = _rules_table(four, {"jian_kan": value})({1: hand, 0: ["五"] + JUNK}, ["子", "八"])
    st.apply(ev(0, "discard", "五"))
    st.apply(ev(1, "jian", "五"))
    st.apply(ev(1, "discard", "六"))
    st.apply(ev(2, "draw", "子"))
    st.apply(ev(2, "discard", "三"))
    if want is None:
        assert _raises(st, ev(1, "hu", "三")) == ("not_a_win", "tongcheng_gezi.liu_ju_ban", 5)
    else:
        st.apply(ev(1, "hu", "三"))
        assert (st.result()["points"], st.result()["units"]) == want


@pytest.mark.parametrize("rules", [{"jian_discard": "refused", "jian_kan": "refused", "win_pair": "refused"},
                                   {"peng_gezi": "low", "win_triple": "peng", "players": 3, "gezi_per_fen_3p": 9}])
@pytest.mark.parametrize("bots", ["heuristic", "random"])
def test_non_default_options_simulate_valid(rules, bots):
    recs = list(simulate(V, 25, 9, bots, rules=rules))
    for r in recs:
        v = replay_line(_line(r)).verdict
        assert v.valid and v.ruleset_id != "tongcheng_gezi-default", (r.game_id, v.errors)
    if bots == "heuristic":
        assert sum(r.result.outcome == "win" for r in recs) >= 15
