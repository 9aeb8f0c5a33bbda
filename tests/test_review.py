"""The decision review (replay/review.py, analytics/review.py, dashboards/review.py, ``paipu
review``): the gaps of a hand-made 桂林 game worked out from the rules, a game played as the bot
plays it, the seat's view alone, the command on files and on the warehouse, a player's recent games
and the dashboard's render.

The hand-made game (dealer seat 0, 21 cards, four dealt 坎 that stay locked):
坎 小五 小七 (3 胡 each), 坎 大陆 大玖 (6 each), 贰柒拾 (6), 小八九十 (0), 小一 小二, 大肆.
Discarding 大肆 leaves 一二 waiting on 小三 (一二三, 3 胡): 27 胡. Seat 0 instead discards 小一;
the 19 wall cards are then flipped in turn (seats 1, 2, 0, …), nobody claims, and the hand is 荒庄.
At step 3 the dealer flips 小二: it may 吃 it with its 小二 and 大贰 (a 搭, 0 胡), which breaks its
贰柒拾 and, after discarding 大肆, leaves 柒拾 waiting on 大贰: 24 胡.
"""

from __future__ import annotations

import dataclasses
import json
import random
from pathlib import Path

import msgspec
import pytest
from typer.testing import CliRunner
from zipai_tables import A, H, record, verdict

from paipu.cli import app
from replay import variants
from replay.options import make_ruleset
from replay.review import review, review_line
from replay.simulator import simulate

S0 = "x5 x5 x5 x7 x7 x7 d6 d6 d6 d9 d9 d9 d2 d7 d10 x8 x9 x10 x1 x2 d4"
S1 = "x1 x1 x2 x2 x3 x4 x4 x6 x6 x10 d1 d1 d3 d3 d4 d5 d5 d7 d8 d8"
# the wall in flip order: seat 1 flips cards of which it holds no pair, seats 2 and 0 cards the
# dealer cannot claim but for 小二 (none forces an act: no 扫, no 开舵 of a dealt 坎)
FLIPS = [(1, "x8"), (2, "x1"), (0, "x2"), (1, "x9"), (2, "x3"), (0, "x3"), (1, "d2"), (2, "x4"), (0, "x6"),
         (1, "d10"), (2, "d1"), (0, "d5"), (1, "x10"), (2, "d8"), (0, "x4"), (1, "d7"), (2, "x6"), (0, "d1"),
         (1, "d4")]


def game(first: str = "x1", rules: dict | None = None, hu_at: int | None = None, **extra) -> dict:
    """The hand-made game: seat 0 discards ``first``, then the wall is flipped; ``hu_at``: seat 0
    wins on the flip before that action instead of flipping on."""
    acts = [A(0, "discard", first)] + [A(s, "draw", c) for s, c in FLIPS]
    if hu_at is not None:
        acts = acts[:hu_at] + [A(0, "hu", acts[hu_at - 1]["card"])]
    rec = record(S1, " ".join(c for _, c in FLIPS), acts, s0=S0, rules=rules)
    rec.update(extra)
    return rec


def line(rec: dict) -> str:
    return json.dumps(rec, ensure_ascii=False)


# 27 胡 → 舵 1 + ⌊17/5⌋ = 4, paid by two seats: 8 from a flip or a discard, (4 + 1) × 2 = 10 自摸;
# guilin's ev bot weighs its own flip 0.3, another's 0.5, a discard 0.2: 3 + 4 + 1.6 = 8.6 a wait.
# At step 0 the dealer sees only its 21 cards: 4 小三 unseen of 59 → W = 4 × 8.6 / 59.
# 24 胡 → 3 舵: 6, 自摸 8: 2.4 + 3 + 1.2 = 6.6; at step 3 it has seen its 20 cards, 小一 (its
# discard), 小八, 小一 (flips) and the open 小二: 3 大贰 unseen of 56 → W = 3 × 6.6 / 56.
# zimo_bonus=double: 自摸 ×2 → 16 and 12: 4 × 10.4 / 59, 3 × 7.8 / 56.
# tuo_step=3: 27 胡 → 1 + ⌊17/3⌋ = 6 舵 (12, 自摸 14: 12.6 a wait), 24 胡 → 5 舵 (10, 12: 10.6).
GAPS = {"default": ({}, 4 * 8.6 / 59, 3 * 6.6 / 56),
        "zimo_double": ({"zimo_bonus": "double"}, 4 * 10.4 / 59, 3 * 7.8 / 56),
        "tuo_step_3": ({"tuo_step": 3}, 4 * 12.6 / 59, 3 * 10.6 / 56)}


@pytest.mark.parametrize("name", list(GAPS))
def test_a_discard_that_breaks_a_ready_hand_and_a_claim_left(name):
    rules, w0, w3 = GAPS[name]
    rec = game(rules=rules)
    assert verdict(rec).valid
    r = review_line(line(rec), 0)
    assert r.error is None and r.player == "a"
    d0, d4 = r.decisions
    assert (d0.step, d0.kind, d0.played, d0.bot) == (0, "discard", {"act": "discard", "card": "x1"},
                                                    {"act": "discard", "card": "d4"})
    assert d0.played_w == 0.0 and d0.bot_w == pytest.approx(w0) and d0.gap == pytest.approx(w0)
    # every other discard (the 坎 are locked: not among them) leaves no ready hand
    assert [c.event["card"] for c in d0.candidates] == H("x1 x2 x8 x9 x10 d2 d4 d7 d10")
    assert [c.w for c in d0.candidates if c.event["card"] != "d4"] == [0.0] * 8
    # the window of its own flip of 小二 (step 3) closes at the next flip (step 4): it passed
    assert (d4.step, d4.kind, d4.card, d4.played) == (4, "claim", "x2", {"act": "pass"})
    assert d4.bot == {"act": "chi", "card": "x2", "cards": ["x2", "d2"]}
    assert d4.played_w == 0.0 and d4.bot_w == pytest.approx(w3)
    assert (r.matches, r.match_rate, r.valued) == (0, 0.0, 2)
    assert r.ev_lost == pytest.approx(w0 + w3)
    assert [d.step for d in r.costliest()] == [0, 4]


def test_the_decisions_in_words_and_a_long_name_shortened_in_the_sentence():
    from analytics.review import decisions_frame, summary
    from replay.cards import ZIPAI

    rec = game()
    r = review_line(line(rec), 0)
    frame = decisions_frame(r, ZIPAI)
    assert frame["decision"].to_list() == ["出牌 discard", "叫牌 claim 小二"]
    assert frame["played"].to_list() == ["出牌 小一", "过"]
    long = dataclasses.replace(r, player="p" * 100)
    assert f"Seat 0 ({'p' * 39}…) of " in summary(long, ZIPAI)


def test_a_game_played_as_the_bot_plays_matches_every_decision():
    """Seat 0 discards 大肆 (ready on 小三) and passes the 吃 of 小二, then wins on seat 2's flip
    of 小三 (step 5; the 胡 is no decision). At step 3 passing keeps W = 4 × 8.6 / 56 (four 小三
    unseen); the 吃 leaves 24 胡 on 大贰, 3 × 6.6 / 56."""
    rec = game("d4", hu_at=6)
    assert verdict(rec).valid and verdict(rec).computed["winner"] == 0
    r = review_line(line(rec), 0)
    assert [(d.step, d.played) for d in r.decisions] == [(0, {"act": "discard", "card": "d4"}), (4, {"act": "pass"})]
    assert (r.match_rate, r.ev_lost, r.costliest()) == (1.0, 0.0, [])
    d4 = r.decisions[1]
    assert d4.bot == {"act": "pass"} and d4.played_w == d4.bot_w == pytest.approx(4 * 8.6 / 56)
    assert [(c.event["act"], c.w) for c in d4.candidates] == [("pass", pytest.approx(4 * 8.6 / 56)),
                                                             ("chi", pytest.approx(3 * 6.6 / 56))]


def test_a_disputed_settlement_is_said_after_a_whole_review(tmp_path):
    """The game above, seat 0's win on seat 2's flip of 小三 with 27 胡 (4 舵 from each of two
    seats), logged as 30 胡: its actions are sound, so both decisions are reviewed, and the review
    says the settlement is disputed and which command says why."""
    rec = game("d4", hu_at=6)
    rec["result"] = {**verdict(rec).computed, "points": 30}
    r = review_line(line(rec), 0)
    assert r.error is None and [d.step for d in r.decisions] == [0, 4]
    assert r.dispute == {"step": 6, "code": "result_mismatch", "rule": "paipu.result",
                         "message": "result.points: claimed 30, computed 27"}
    path = tmp_path / "disputed.jsonl"
    path.write_text(line(rec) + "\n", encoding="utf-8")
    out = _run(str(path), "--seat", "0").output.splitlines()
    assert out[2] == ("the server's settlement is disputed: result.points: claimed 30, computed 27 "
                      f"(`paipu validate {path} --json` says why)")
    assert json.loads(_run(str(path), "--seat", "0", "--json").output)["dispute"] == r.dispute


@pytest.mark.parametrize("variant", ["guilin", "sanjing_huapai", "shangdaren"])
def test_a_seat_the_ev_bot_played_matches_it_everywhere(variant):
    """With the random stream the simulator gave the bot (game i, seat 1, seed 5), the review asks
    it where self-play did and it chooses what it played."""
    spec = variants.get(variant)
    decided = 0
    for i, rec in enumerate(simulate(variant, 2, 5, "heuristic,ev,heuristic")):
        r = review(rec, make_ruleset(spec.id, spec.options, rec.rules), 1, random.Random(f"{i}:1:5"))
        assert r.error is None
        assert (r.match_rate, r.ev_lost) == (1.0, 0.0), [(d.step, d.played, d.bot) for d in r.decisions if not d.match]
        decided += len(r.decisions)
    assert decided >= 10


def _rearranged(rec: dict, seat: int, swaps: int = 3) -> dict:
    """``rec`` with up to ``swaps`` cards ``seat`` never sees exchanged: a card of another seat's hand
    with one of a third seat's hand or of the wall never drawn (the first and last such wall cards
    left alone: 醒 and tail draws read them); each swap kept only where the game still replays valid
    (its shuffle digest made anew)."""
    from replay.replayer import replay_line, shuffle_digest

    out = json.loads(line(rec))
    end = replay_line(line(out)).state
    others = [s for s in range(len(out["seats"])) if s != seat]
    spots = [("hand", s, j) for s in others for j in range(len(out["deal"]["hands"][s]))]
    spots += [("wall", None, k) for k in range(end.front + 1, end.back - 1)]

    def get(d, spot):
        return d["deal"]["hands"][spot[1]] if spot[0] == "hand" else d["deal"]["wall"]

    done = 0
    for a in spots[:len(out["deal"]["hands"][others[0]])]:
        for b in spots:
            if b[0] == "hand" and b[1] == a[1] or get(out, a)[a[2]] == get(out, b)[b[2]]:
                continue
            trial = json.loads(line(out))
            get(trial, a)[a[2]], get(trial, b)[b[2]] = get(trial, b)[b[2]], get(trial, a)[a[2]]
            deal = trial["deal"]
            trial["shuffle"]["digest"] = shuffle_digest([c for h in deal["hands"] for c in h] + deal["wall"])
            if replay_line(line(trial)).verdict.valid:
                out, done = trial, done + 1
                break
        if done == swaps:
            break
    assert done == swaps and out["deal"] != rec["deal"]
    return out


def test_the_same_view_gives_the_same_review():
    """Cards the seat cannot see rearranged (other hands, the wall still to come): the same review,
    in the hand-made game and in simulated 桂林 and 三精 games."""
    rec = game()
    assert review_line(line(_rearranged(rec, 0)), 0) == review_line(line(rec), 0)
    for variant in ("guilin", "sanjing_huapai"):
        for played in simulate(variant, 2, 9, "heuristic"):
            rec = msgspec.to_builtins(played)
            r = review_line(line(rec), 1)
            assert r.decisions
            assert review_line(line(_rearranged(rec, 1)), 1) == r


# --- the command ------------------------------------------------------------------------------

def _run(*args: str):
    return CliRunner().invoke(app, ["review", *args], terminal_width=100)


@pytest.fixture(scope="module")
def ev_games(tmp_path_factory) -> Path:
    """Three 三精花牌 games and three 上大人 games every seat of which the ev bot played (seed 4)."""
    path = tmp_path_factory.mktemp("review") / "ev.jsonl"
    with path.open("wb") as f:
        for variant in ("sanjing_huapai", "shangdaren"):
            for rec in simulate(variant, 3, 4, "ev"):
                f.write(msgspec.json.encode(rec) + b"\n")
    return path


@pytest.mark.parametrize("where, game_id", [(2, "sim-sanjing_huapai-ev-4-0000001"), (5, "sim-shangdaren-ev-4-0000001")])
def test_the_command_reviews_a_huapai_and_a_shangdaren_game_as_json(ev_games, where, game_id):
    """Game 1 of each, seat 1, with the stream `paipu simulate` gave that bot (1:1:4): every decision
    is the bot's; by FILE:LINE or by --game alike."""
    r = _run(f"{ev_games}:{where}", "--seat", "1", "--bot-seed", "1:1:4", "--json")
    assert r.exit_code == 0, r.output
    got = json.loads(r.output)
    assert (got["game_id"], got["seat"], got["source"]) == (game_id, 1, f"{ev_games}:{where}")
    assert (got["match_rate"], got["ev_lost"], got["costliest"], got["units"]) == (1.0, 0.0, [], "分")
    assert got["decisions"] == len(got["steps"]) > 0
    assert all(s["gap"] == 0.0 or s["gap"] is None for s in got["steps"])
    rec = json.loads(ev_games.read_text().splitlines()[where - 1])
    assert got["player"] == rec["seats"][1]
    by_id = _run(str(ev_games), "--game", game_id, "--seat", "1", "--bot-seed", "1:1:4", "--json")
    assert json.loads(by_id.output) == got


def test_the_command_prints_a_sentence_then_the_decisions(tmp_path):
    path = tmp_path / "hand.jsonl"
    path.write_text(line(game()) + "\n", encoding="utf-8")
    r = _run(str(path), "--seat", "0")
    assert r.exit_code == 0, r.output
    first, second = r.output.splitlines()[:2]
    assert first == ("Seat 0 (a) of hand-made (桂林字牌) chose as the ev bot at 0 of 2 decisions (0%) and gave up "
                     f"{4 * 8.6 / 59 + 3 * 6.6 / 56:.3f} 舵 of W; costliest: step 0 played 出牌 小一, the bot 出牌 肆 "
                     f"({4 * 8.6 / 59:.3f}); step 4 played 过, the bot 吃 小二 (小二 贰) ({3 * 6.6 / 56:.3f}).")
    assert second.startswith(f"{path}:1 · ruleset guilin-default · W in 舵")
    rows = [ln.split() for ln in r.output.splitlines() if ln.strip()[:1].isdigit()]
    assert [(row[0], row[-1]) for row in rows] == [("0", "✗"), ("4", "✗")]


def test_the_command_says_what_is_wrong(ev_games, tmp_path):
    r = _run(str(ev_games), "--seat", "1")
    assert r.exit_code == 2
    assert f"{ev_games}: 6 games (lines 1, 2, 3, 4, 5, …); pick one with {ev_games}:LINE" in r.output
    assert "no game on this line" in _run(f"{ev_games}:9", "--seat", "1").output
    r = _run(f"{ev_games}:1", "--seat", "3")
    assert r.exit_code == 2 and f"{ev_games}:1: game sim-sanjing_huapai-ev-4-0000000: no seat 3 (seats 0–2)" in r.output
    assert "no game 'nope' in this file" in _run(str(ev_games), "--game", "nope", "--seat", "0").output
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"format": "paipu/1", "game_id": "g1"}\n')
    r = _run(str(bad), "--seat", "0")
    assert r.exit_code == 2 and f"{bad}:1: game g1: schema" in r.output
    r = _run("no-such-game", "--seat", "0")
    assert r.exit_code == 2 and "give --warehouse DIR" in r.output
    r = _run("no-such-game", "--seat", "0", "--warehouse", str(tmp_path / "none"))
    assert r.exit_code == 2 and r.stderr == f"paipu review: warehouse {tmp_path / 'none'}: does not exist\n"


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory) -> Path:
    """The hand-made game without a `rules` object, ingested under zimo_bonus=double, and the game
    won as the bot plays (an hour later), both with seat 0 ``a``; and a game of other players whose
    deal lacks a card (a record-level error: nothing to review)."""
    from ingest.run import ingest

    root = tmp_path_factory.mktemp("review-wh")
    lost = game(game_id="lost", started_at="2026-11-01T12:00:00+08:00")
    del lost["rules"]
    won = game("d4", hu_at=6, game_id="won", started_at="2026-11-01T13:00:00+08:00")
    broken = game(game_id="broken", seats=["x", "y", "z"], started_at="2026-11-01T14:00:00+08:00")
    broken["deal"]["hands"][0] = broken["deal"]["hands"][0][:-1]  # its 大肆
    (root / "games.jsonl").write_text("".join(line(g) + "\n" for g in (lost, won, broken)), encoding="utf-8")
    ingest([root / "games.jsonl"], root / "wh", workers=1, progress=False, defaults={"guilin": {"zimo_bonus": "double"}})
    return root


def test_a_stored_game_is_reviewed_under_the_rules_it_was_judged_by(warehouse):
    """The file alone has no `rules`: the defaults (W 4 × 8.6 / 59); stored, the ingest's
    zimo_bonus=double (4 × 10.4 / 59)."""
    r = _run("lost", "--warehouse", str(warehouse / "wh"), "--seat", "0", "--json")
    assert r.exit_code == 0, r.output
    got = json.loads(r.output)
    assert got["source"] == f"{warehouse / 'games.jsonl'}:1"
    assert got["steps"][0]["bot_w"] == pytest.approx(4 * 10.4 / 59)
    assert got["ev_lost"] == pytest.approx(4 * 10.4 / 59 + 3 * 7.8 / 56)
    assert got["costliest"] == [
        {"step": 0, "played": {"act": "discard", "card": "x1"}, "bot": {"act": "discard", "card": "d4"},
         "gap": pytest.approx(4 * 10.4 / 59)},
        {"step": 4, "played": {"act": "pass"}, "bot": {"act": "chi", "card": "x2", "cards": ["x2", "d2"]},
         "gap": pytest.approx(3 * 7.8 / 56)}]
    direct = json.loads(_run(f"{warehouse / 'games.jsonl'}:1", "--seat", "0", "--json").output)
    assert direct["steps"][0]["bot_w"] == pytest.approx(4 * 8.6 / 59)
    r = _run("nope", "--warehouse", str(warehouse / "wh"), "--seat", "0")
    assert r.exit_code == 2 and "no game 'nope' stored" in r.output


def test_a_players_last_games_oldest_first(warehouse):
    from analytics.review import latest_snapshot, player_reviews
    from ingest.views import connect

    con = connect(warehouse / "wh")
    try:
        both = player_reviews(con, "a", 5)
        last = player_reviews(con, "a", 1)
        assert latest_snapshot(con) is not None
        assert player_reviews(con, "nobody", 5).height == 0
    finally:
        con.close()
    assert both.select("game_id", "seat", "decisions", "matches", "match_rate").rows() == [
        ("lost", 0, 2, 0, 0.0), ("won", 0, 2, 2, 1.0)]
    assert both["ev_lost"].to_list() == [pytest.approx(4 * 10.4 / 59 + 3 * 7.8 / 56), 0.0]
    assert last["game_id"].to_list() == ["won"]


# --- the dashboard ----------------------------------------------------------------------------

def test_the_pages_data_is_the_stored_review_at_a_snapshot(warehouse):
    from analytics.review import latest_snapshot
    from dashboards import review as dr
    from ingest.views import connect

    con = connect(warehouse / "wh")
    try:
        snap = latest_snapshot(con)
    finally:
        con.close()
    r = dr.game_review(str(warehouse / "wh"), snap, "lost", 0)
    assert (r.game_id, r.seat, r.match_rate) == ("lost", 0, 0.0)
    assert r.ev_lost == pytest.approx(4 * 10.4 / 59 + 3 * 7.8 / 56)
    assert dr.game_review(str(warehouse / "wh"), snap, "nope", 0) is None
    assert dr.player_reviews(str(warehouse / "wh"), snap, "a", 5)["game_id"].to_list() == ["lost", "won"]


RENDER = """
import json
import polars as pl
from dashboards.review import render_review, render_player_reviews
from replay.review import review_line

rec = json.loads(REC)
render_review(review_line(json.dumps(rec), 0))
render_player_reviews(pl.DataFrame({"game_id": ["lost", "won"], "started_at": [None, None], "variant": ["guilin"] * 2,
                                    "seat": [0, 0], "decisions": [2, 2], "matches": [0, 2], "match_rate": [0.0, 1.0],
                                    "ev_lost": [0.9, 0.0], "valued": [2, 2], "error_step": [None, None]}), "guilin")
"""


def test_the_review_renders_with_log_text_as_text():
    from streamlit.testing.v1 import AppTest

    rec = game(seats=["**a** <b>x</b>", "b", "c"], game_id="[g](http://x)")
    at = AppTest.from_string(f"REC = {line(rec)!r}\n" + RENDER, default_timeout=60).run()
    assert not at.exception, [e.value for e in at.exception]
    head = at.markdown[0].value
    assert "`**a** <b>x</b>`" in head and "`[g](http://x)`" in head
    assert [m.value for m in at.metric] == ["0%", f"{4 * 8.6 / 59 + 3 * 6.6 / 56:.3f}", "2"]
    assert "第 0 步 step 0" in at.markdown[1].value and "`出牌 肆`" in at.markdown[1].value
    table = at.dataframe[0].value
    assert list(table["步 step"]) == [0, 4] and list(table["同 same"]) == ["✗", "✗"]
    assert "same as the ev bot at 2 of 4 decisions (50%), W lost 0.900 舵" in at.caption[1].value


# --- the review on the audit and player pages ---------------------------------------------------

# the stored game `lost` under zimo_bonus=double (above): W given up at step 0 and at step 4
W0, W4 = 4 * 10.4 / 59, 3 * 7.8 / 56


def _page(monkeypatch, warehouse, page: str, **params: str):
    from apptest_util import open_page

    return open_page(monkeypatch, warehouse / "wh", page, **params)


def _said(at) -> list[str]:
    """The review's line at the step (the page's other notes left out: this record claims no result)."""
    return [i.value for i in at.info if "[复盘表 the review ↓](#review)" in i.value]


def test_the_audit_page_reviews_a_seat_at_the_step_viewed(monkeypatch, warehouse):
    """Off by default; turned on it reviews seat 0 (`lost` is a 荒庄: no winner, no seat's view) and
    keeps ?review=0 in the URL; at step 0 and step 4 it says the decision there in one line (W and
    gap as worked above), at step 2 that there is none and which step comes next; the table marks
    the step's row."""
    at = _page(monkeypatch, warehouse, "screens/audit.py", game="lost", step="0")
    toggle = at.toggle(key="audit_review")
    assert toggle.value is False and "review" not in at.query_params and not at.metric
    toggle.set_value(True).run()
    assert not at.exception and at.query_params["review"] == "0"
    assert [m.value for m in at.metric] == ["0%", f"{W0 + W4:.3f}", "2"]
    assert _said(at) == [
        f"**第 0 步 step 0** · 座位 seat 0 的决策 decision: 打出 played `出牌 小一` · 机器人选 the bot prefers `出牌 肆` — "
        f"差 gap {W0:.3f} 舵 (W 0.000 → {W0:.3f}) · [复盘表 the review ↓](#review)"]
    assert "决策复盘 Decision review · 座位 seat 0" in [h.value for h in at.subheader]
    at.query_params["step"] = "4"
    at.run()
    assert _said(at) == [
        f"**第 4 步 step 4** · 座位 seat 0 的决策 decision: 打出 played `过` · 机器人选 the bot prefers "
        f"`吃 小二 (小二 贰)` — 差 gap {W4:.3f} 舵 (W 0.000 → {W4:.3f}) · [复盘表 the review ↓](#review)"]
    table = next(d.value for d in at.dataframe if "W bot" in d.value.columns)
    assert list(table[" "]) == ["", "▶"] and list(table["步 step"]) == [0, 4]
    at.query_params["step"] = "2"
    at.run()
    assert _said(at) == []
    assert ("第 2 步不是座位 0 的决策 Step 2 is no decision of seat 0 · 下一个 next: 第 4 步 step 4 · "
            "[复盘表 the review ↓](#review)") in [c.value for c in at.caption]


def test_the_review_link_seat_default_and_errors(monkeypatch, warehouse):
    """?review=SEAT opens it on that seat; turned on from a seat's view it reviews that seat; a seat
    the game lacks falls back (said); a game whose deal lacks a card says so in a plain line."""
    at = _page(monkeypatch, warehouse, "screens/audit.py", game="won", step="0", review="0")
    assert at.toggle(key="audit_review").value is True and at.selectbox(key="audit_review_seat").value == 0
    assert [m.value for m in at.metric] == ["100%", "0.000", "2"]
    at.toggle(key="audit_review").set_value(False).run()
    assert "review" not in at.query_params and not at.metric
    at = _page(monkeypatch, warehouse, "screens/audit.py", game="won", step="0", seat="1")
    at.toggle(key="audit_review").set_value(True).run()
    assert at.query_params["review"] == "1" and at.selectbox(key="audit_review_seat").value == 1
    at.selectbox(key="audit_review_seat").set_value(2).run()
    assert at.query_params["review"] == "2"
    at = _page(monkeypatch, warehouse, "screens/audit.py", game="won", review="7")
    assert at.selectbox(key="audit_review_seat").value == 0
    assert any("the link's `review` is not a seat of this game: `7` — reviewing seat 0." in c.value for c in at.caption)
    at = _page(monkeypatch, warehouse, "screens/audit.py", game="broken", review="0")
    assert [i.value for i in at.info if "reviewed" in i.value] == [
        "这局不能复盘 This game cannot be reviewed: `game broken: deck_mismatch [paipu.deck]: hands + wall are not "
        "the 80-card deck (card have/want: d4 3/4)`"]
    assert not at.metric


def test_the_player_page_reviews_the_last_games_on_request(monkeypatch, warehouse):
    """Nothing is reviewed until asked; then player a's two stored games, oldest first: `lost` (0 of
    2 as the bot, W0 + W4 given up) and `won` (2 of 2), each point linked to its review."""
    import pyarrow as pa

    at = _page(monkeypatch, warehouse, "screens/player.py", player="a")
    assert not at.get("vega_lite_chart") or all("review=" not in str(c.proto.spec) for c in at.get("vega_lite_chart"))
    assert not any("same as the ev bot" in c.value for c in at.caption)
    at.button(key="player_review").click().run()
    assert not at.exception
    assert (f"近 2 局 last 2 games: same as the ev bot at 2 of 4 decisions (50%), W lost {W0 + W4:.3f} 舵 in all; a "
            "click on a game opens its review on the audit page — docs/review.md") in [c.value for c in at.caption]
    chart = next(c for c in at.get("vega_lite_chart") if "match_rate" in c.proto.spec)
    data = pa.ipc.open_stream(chart.proto.datasets[0].data.data).read_all()
    assert data.column("href").to_pylist() == ["audit?game=lost&review=0", "audit?game=won&review=0"]
    assert data.column("match_rate").to_pylist() == [0.0, 1.0]
    assert data.column("ev_lost").to_pylist() == [pytest.approx(W0 + W4), 0.0]
