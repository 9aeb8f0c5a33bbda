"""The views players and auditors asked for, on the demo warehouse (tests/demo_warehouse.py): a
player's rates from the first game, the player's recent games, one rank shared with the leaderboard,
the variant a bare player link opens on, a table's session with running totals, the audit page's
board stepping with ←/→ and ``?step=``, a seat's-eye view, the dispute in plain words, the card
another seat gave, and rules named and linked to the served rules doc. Expected values are worked
out from the demo's logs (the games named in each test)."""

from __future__ import annotations

import json

import demo_warehouse
import pytest
from apptest_util import dataframe_with, metric_values, open_page, page_text, player_summary
from streamlit.testing.v1 import AppTest

from dashboards import audit as audit_mod
from dashboards import labels, rules_doc
from ingest.views import connect

pytestmark = pytest.mark.long  # started first (tests/conftest.py)

TIMEOUT = 60
ZIPAI = labels.deck_for("guilin")
HUAPAI = labels.deck_for("sanjing_huapai")


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    return demo_warehouse.build(tmp_path_factory)


def _sql(demo, q: str, **params):
    """The tests' own SQL on the demo warehouse (for expected values)."""
    con = connect(demo.warehouse)
    try:
        return con.sql(q, params=params or None).pl()
    finally:
        con.close()


def _open(monkeypatch, demo, page: str, **params: str) -> AppTest:
    return open_page(monkeypatch, demo.warehouse, page, timeout=TIMEOUT, **params)


def _links(at: AppTest) -> list[tuple[str, str, str]]:
    return [(e.proto.label, e.proto.page, e.proto.query_string) for e in at.get("page_link")]


# --- player -----------------------------------------------------------------------------------------

def test_rates_from_the_first_game_beside_the_variant_mean(monkeypatch, demo):
    """ring-a has 12 games (fewer than 100): its win rate is shown, 12/12 = 100.0% [75.8%, 100.0%],
    beside the variant's mean — every valid decided guilin game has one winner among 3 seats, so
    wins / seats = won games / (3 × decided games)."""
    at = _open(monkeypatch, demo, "screens/player.py", player="ring-a")
    table = player_summary(at)
    g = _sql(demo, """SELECT count(*) FILTER (WHERE outcome = 'win') AS won, count(*) AS decided FROM games
               WHERE variant = 'guilin' AND valid AND outcome IS NOT NULL
               AND json_extract_string(record_json, '$.x_experiment') IS NULL""").row(0, named=True)
    assert tuple(table.loc["胡率 win rate"].iloc[:4]) == (
        "100.0%", "[75.8%, 100.0%]", f"{100 * g['won'] / (3 * g['decided']):.1f}%", "—")
    assert table.loc["放炮率 deal-in rate", "值 value"] == "0.0%"


def test_player_rank_is_the_leaderboard_position(monkeypatch, demo):
    """One rank on both pages: on the leaderboard of players with ≥ 5 guilin games (by rating) p047 is
    3rd of 47 (ring-a first, p064 second), and its page, opened from that board, says #3 / 47; with the
    default minimum of 30 games nobody in this small demo is ranked, ring-a's page says so."""
    board = _open(monkeypatch, demo, "screens/leaderboard.py", min="5")
    frame = dataframe_with(board, "玩家 player")
    assert len(frame) == 47
    assert frame["玩家 player"].tolist()[:3] == [f"player?variant=guilin&min=5&player={p}"
                                                for p in ("ring-a", "p064", "p047")]
    assert frame["#"].tolist()[:3] == [1, 2, 3]
    at = _open(monkeypatch, demo, "screens/player.py", variant="guilin", min="5", player="p047")
    assert metric_values(at)["排名 rank"] == "#3 / 47"
    at = _open(monkeypatch, demo, "screens/player.py", variant="guilin", min="5", player="ring-a")
    assert metric_values(at)["排名 rank"] == "#1 / 47"
    at = _open(monkeypatch, demo, "screens/player.py", variant="guilin", player="ring-a")
    assert metric_values(at)["排名 rank"] == "未上榜 unranked"


def test_a_bare_player_link_opens_on_the_variant_they_play(monkeypatch, demo):
    """/player?player=ID without a variant: a player who sat only at 上大人 tables lands there (not on
    桂林, the most played variant of the warehouse); one who played two variants gets a link to each."""
    only = _sql(demo, """SELECT player_id FROM seats GROUP BY 1 HAVING count(DISTINCT variant) = 1
                  AND any_value(variant) = 'shangdaren' ORDER BY 1 LIMIT 1""")["player_id"][0]
    at = _open(monkeypatch, demo, "screens/player.py", player=only)
    assert at.query_params["variant"] == "shangdaren"
    assert any(c.value.startswith("范围 scope: 上大人") for c in at.caption)
    assert not at.warning
    two = _sql(demo, """SELECT player_id, list(DISTINCT variant ORDER BY variant) AS v FROM seats GROUP BY 1
                 HAVING count(DISTINCT variant) = 2 ORDER BY 1 LIMIT 1""").row(0, named=True)
    at = _open(monkeypatch, demo, "screens/player.py", player=two["player_id"])
    variants = {q.split("&")[0] for _, page, q in _links(at) if page == "player"}
    assert variants == {f"variant={v}" for v in two["v"]}


def test_a_bare_game_link_opens_on_the_games_variant_and_seats(monkeypatch, demo):
    """/audit?game=ID without a variant: the scope is the game's own variant (and seat count), not
    桂林, the most played variant of the warehouse."""
    at = _open(monkeypatch, demo, "screens/audit.py", game=demo.disputed["yuanjiang_guihuzi"])
    assert at.query_params["variant"] == "yuanjiang_guihuzi"
    assert any(c.value.startswith("范围 scope: 沅江鬼胡子") for c in at.caption)
    three = _sql(demo, """SELECT game_id FROM games WHERE variant = 'tongcheng_gezi' AND n_seats = 3
                  ORDER BY game_id LIMIT 1""")["game_id"][0]
    at = _open(monkeypatch, demo, "screens/audit.py", game=three)
    assert (at.query_params["variant"], at.query_params["seats"]) == ("tongcheng_gezi", "3")
    assert any(c.value.startswith("范围 scope: 通城個子牌 (tongcheng_gezi) · 3 人 players") for c in at.caption)


# --- session ------------------------------------------------------------------------------------------

def test_session_page_running_totals(monkeypatch, demo):
    """/session?table=guilin-t0001: its 8 rounds in order; round 5 is the planted ring game (ring-a
    won +6 on ring-b's discard, p046 sat out). Running totals worked from the rounds' scores:
    p046 +14, 0, −4, −3, —, −5, −10, +12 → +4; p035 −7, 0, −4, −3, 0, +10, +10, −6 → 0;
    p014 −7, 0, +8, +6, —, −5, 0, −6 → −4; ring-a +6; ring-b −6."""
    at = _open(monkeypatch, demo, "screens/session.py", table="guilin-t0001")
    assert at.query_params["variant"] == "guilin"
    assert metric_values(at) == {"`ring-a`": "+6", "`p046`": "+4", "`p035`": "+0", "`p014`": "-4", "`ring-b`": "-6"}
    rounds = dataframe_with(at, "局 round")
    assert rounds["局 round"].tolist() == list(range(1, 9))
    assert rounds["p046"].tolist()[:4] == ["+14 → +14", "+0 → +14", "-4 → +10", "-3 → +7"]
    r5 = rounds.iloc[4]
    assert (r5["ring-a"], r5["ring-b"], r5["p035"]) == ("+6 → +6", "-6 → -6", "+0 → -14")
    assert r5["p046"] == ""  # p046 sat out
    assert r5["对局 game"] == f"audit?game={demo.ring_games[1]}"
    assert r5["结果 result"] == "胡 ring-a · 点炮 dealt-in"
    assert rounds.iloc[1]["结果 result"] == "荒庄 draw"
    assert ("玩家页 player page", "player", "variant=guilin&player=ring-a") in _links(at)


def test_session_is_linked_and_survives_bad_ids(monkeypatch, demo):
    """The audit page of a round links its session; an unknown table or an injection string is a
    friendly 'no game'."""
    at = _open(monkeypatch, demo, "screens/audit.py", game=demo.ring_games[1])
    assert ("牌桌 table `guilin-t0001` · 第 5 局 round 5 — 整场 the whole session", "session",
            "variant=guilin&table=guilin-t0001") in _links(at)
    for bad in ("no-such-table", "x' OR '1'='1' --"):
        at = _open(monkeypatch, demo, "screens/session.py", table=bad)
        assert any("No game at this table" in w.value for w in at.warning)


# --- audit: the board -----------------------------------------------------------------------------------

def test_step_buttons_keys_and_url(monkeypatch, demo):
    """◀/▶ carry the ← and → keys, move one step and keep ?step= in the URL; a ?step= given later in
    the same session is followed (a link from the session page or the action list)."""
    at = _open(monkeypatch, demo, "screens/audit.py", game="example-guilin-1", step="4")
    prev, nxt = at.button(key="audit_prev"), at.button(key="audit_next")
    assert (prev.proto.shortcut, nxt.proto.shortcut) == ("left", "right")
    nxt.click().run()
    assert at.slider[0].value == 5 and at.query_params["step"] == "5"
    at.button(key="audit_prev").click().run()
    at.button(key="audit_prev").click().run()
    assert at.slider[0].value == 3 and at.query_params["step"] == "3"
    at.query_params["step"] = "7"
    at.run()
    assert at.slider[0].value == 7
    # the board comes right after the verdict, before the dispute worked out and the result tables
    at = _open(monkeypatch, demo, "screens/audit.py", game=demo.disputed["guilin"], step="2")
    heads = [h.value for h in at.subheader]
    assert heads[1:] == ["逐步回放 Step by step", "结算争议 Why the settlement is disputed", "结算对比 Claimed vs computed"]


def test_seat_view_hides_the_other_hands(monkeypatch, demo):
    """example-guilin-1 after step 4 (seat 2 扫 小八) as seat 0 saw it: its own 20 cards (21 dealt, 小一
    discarded), seat 1's 17 (20 − 小二 小三 for the 吃 − 玖 discarded) and seat 2's 18 (20 − 小八 ×2 for
    the 扫) only as counts, their options and the wall's order hidden. Card tiles on the page: the
    step's 3 (小八 + 小八 小八), seat 0's hand 20, the melds 3 + 3, seat 1's discard 玖 1 = 30."""
    at = _open(monkeypatch, demo, "screens/audit.py", game="example-guilin-1", step="4", seat="0")
    body = page_text(at)
    assert body.count('title="') == 30
    assert "手牌 hand (17) — 这个视角看不到 not visible from this seat" in body
    assert "手牌 hand (18) — 这个视角看不到" in body and "手牌 hand (20)</small>" in body
    assert "rest of the wall" not in body and body.count("<small>可选 options</small>") == 1  # its own only
    at = _open(monkeypatch, demo, "screens/audit.py", game="example-guilin-1", step="4")
    assert _body_tiles(at) == 30 + 17 + 18 + 18  # every hand and the 18 cards left in the wall


def _body_tiles(at: AppTest) -> int:
    return page_text(at).count('title="')


def test_seat_view_of_a_draw_into_another_hand():
    """花牌: a draw goes into the drawer's hand, so another seat does not see its card (the action list
    says so); the drawer does, and a 字牌 draw is a public flip everyone sees."""
    rec = {"seats": ["a", "b", "c", "d"], "actions": [{"seat": 1, "act": "draw", "card": "上"},
                                                      {"seat": 1, "act": "discard", "card": "大"}]}
    rows = audit_mod.action_rows(rec, HUAPAI, "sanjing_huapai", viewer=0)
    assert [r["cards"] for r in rows] == ["？ (not visible)", "大"]
    assert [r["cards"] for r in audit_mod.action_rows(rec, HUAPAI, "sanjing_huapai", viewer=1)] == ["上", "大"]
    flip = {"seat": 1, "act": "draw", "card": "x1"}
    assert not audit_mod.hides_draw(flip, 0, ZIPAI) and audit_mod.hides_draw({**flip, "to_hand": True}, 0, ZIPAI)


# --- audit: the dispute ---------------------------------------------------------------------------------

def test_dispute_in_plain_words_at_the_top(monkeypatch, demo):
    """demo-disputed-guilin: the server claimed 25 胡 where the hand makes 21 (3 舵 + 自摸 1 + 醒 4 = 8,
    the claim 4 + 1 + 4 = 9), and paid 9 a loser where 8 is due: the winner got +18 instead of +16 and
    each loser paid 1 too many. Said first, above the verdict, with the players named as text."""
    gid = demo.disputed["guilin"]
    seats = json.loads(_sql(demo, "SELECT record_json FROM games WHERE game_id = $g", g=gid)["record_json"][0])["seats"]
    at = _open(monkeypatch, demo, "screens/audit.py", game=gid)
    said = at.warning[0].value
    assert said.startswith("**结算有误 The settlement is wrong** — 服务器算 25 胡，这手牌是 21 胡 — the server counted "
                           "25 胡; the hand makes 21 胡, so it is worth 8 舵, not 9: ")
    assert (f"座位 seat 1 `{seats[1]}` should get +16, not +18; 座位 seat 0 `{seats[0]}` and 座位 seat 2 "
            f"`{seats[2]}` each overpaid 1.") in said
    # the 开舵 of 贰 on the table: 3 dealt, the 4th seat 0's flip at step 1
    split = at.table[0].value
    kai = split[split["种类 kind"] == "开舵 kai_duo"].iloc[0]
    assert kai["来自 from"] == f"桌面 table · 贰 ← 座位 seat 0 `{seats[0]}` 翻出 flip, step 1"


def test_a_kai_duo_the_hu_took_the_place_of_names_the_seat_that_gave_the_card():
    """Seat 1 holds a dealt 坎 of 贰 and wins on seat 2's flip of the 4th instead of laying its 开舵:
    the split's 开舵 is formed at the win (origin hand), and its 4th card is seat 2's flip at step 2,
    not the hand's. A 碰 laid earlier names the discard it took."""
    rec = {"seats": ["p1", "p2", "[x](https://evil.example)"], "actions": [
        {"seat": 0, "act": "discard", "card": "x9"}, {"seat": 1, "act": "peng", "card": "x9", "cards": ["x9", "x9"]},
        {"seat": 2, "act": "draw", "card": "d2"}, {"seat": 1, "act": "hu", "card": "d2"}]}
    ex = {"seat": 1, "step": 3, "groups": [
        {"kind": "peng", "cards": ["x9", "x9", "x9"], "origin": "table"},
        {"kind": "kai_duo", "cards": ["d2", "d2", "d2", "d2"], "origin": "hand"},
        {"kind": "shunzi", "cards": ["d1", "d2", "d3"], "origin": "hand"}]}
    got = audit_mod.group_sources(ex, rec, ZIPAI, labels.text)
    assert got == ["小九 ← 座位 seat 0 `p1` 打出 discard, step 0",
                   "贰 (胡牌 the winning card) ← 座位 seat 2 `[x](https://evil.example)` 翻出 flip, step 2", None]


def test_dispute_summary_escapes_names_and_claims():
    """Player ids and claimed values reach the summary only as code spans."""
    ex = {"variant": "guilin", "seat": 0, "win": True, "first": "points", "differs": ["points", "scores"],
          "points": {"claimed": "[25](https://evil.example)", "computed": 21}, "units": {},
          "terms": [{"term": "scores", "claimed": [12, -6, -6], "computed": [10, -5, -5], "same": False}]}
    said = audit_mod.dispute_summary(ex, {"seats": ["# boss", "<img src=x>", "b"]}, labels.text)
    assert said == ("服务器算 `[25](https://evil.example)` 胡，这手牌是 21 胡 — the server counted "
                    "`[25](https://evil.example)` 胡; the hand makes 21 胡: 座位 seat 0 `# boss` should get +10, not "
                    "+12; 座位 seat 1 `<img src=x>` and 座位 seat 2 `b` each overpaid 1.")


# --- rules named and served -------------------------------------------------------------------------------

def test_rules_are_named_and_linked_to_the_served_doc(monkeypatch, demo):
    """A verdict's rule by its id and its doc's name for it (guilin.turn: turn order), linked to that
    row on the Rules page; a split's rule lines without the seed's file number or the repository path,
    linked to their section; both links open."""
    at = _open(monkeypatch, demo, "screens/audit.py", game=demo.tampered["guilin"])
    assert "规则 rule `guilin.turn` turn order ([规则文档 rules doc](rules?rule=guilin.turn))" in at.error[0].value
    at = _open(monkeypatch, demo, "screens/rules.py", rule="guilin.turn")
    body = page_text(at)
    assert "**规则 rule `guilin.turn`** — turn order" in body
    assert "an act by a seat other than the one to draw, discard or declare" in body
    at = _open(monkeypatch, demo, "screens/rules.py", doc="guilin", section="Winning shape and 胡")
    body = page_text(at)
    assert "#### Winning shape and 胡" in body and "| 开舵 | 9 | 6 | |" in body
    assert rules_doc.split_line("碰 大 3 小 1 (001 §玩法规则; docs/rules/guilin.md §Winning shape)") == (
        "碰 大 3 小 1", "guilin", "Winning shape and 胡")
    assert rules_doc.rule("zipai.sao").name == "扫 (forced)"  # zipai runs guilin's rules
    assert rules_doc.rule("sanjing_huapai.zha").name == "扎"  # the 花牌 family's doc


def test_session_and_rules_pages_without_games(monkeypatch, tmp_path):
    """An empty warehouse: the Session page says so; the Rules page needs no games and shows the
    first variant's doc."""
    (tmp_path / "_meta").mkdir()
    at = open_page(monkeypatch, tmp_path, "screens/session.py", timeout=TIMEOUT)
    assert any("空" in i.value for i in at.info)
    at = open_page(monkeypatch, tmp_path, "screens/rules.py", timeout=TIMEOUT)
    assert at.selectbox(key="rules_doc").value == "guilin"
    assert "## 桂林字牌 — `guilin`" in page_text(at)


# --- audit: the decision review ------------------------------------------------------------------

def test_the_decision_review_of_the_worked_example(monkeypatch, demo):
    """example-guilin-1, off by default; turned on it reviews the winner, seat 1 (?review=1). Its two
    decisions are the bot's: at step 1 it takes 小一 with 小二 小三 (吃), at step 2 discards 玖, keeping
    小四…小九, 壹 贰 贰 叁 肆 肆 肆 伍 陆 柒 拾. That hand waits on 柒 (贰柒拾 and 伍陆柒) and 肆 (肆伍陆 and the
    坎), 21 胡 either way (一二三 3 + 壹贰叁 6 + 坎 6 + 贰柒拾 6): 3 舵, paid by two seats, 6 from a flip or a
    discard and (3 + 1) × 2 = 8 自摸; its own flip of the 4th 肆 is a 扫穿, no 胡. The seat has seen its
    20 cards and 小一: 59 unseen, 3 柒 and 1 肆 among them. With the bot's weights (own flip 0.3,
    another's 0.5, a discard 0.2): W = (3 × (2.4 + 3 + 1.2) + 1 × (3 + 1.2)) / 59 = 24/59.
    Seat 0 (?review=0) made one decision, its first discard, with no ready hand in reach: W 0."""
    at = _open(monkeypatch, demo, "screens/audit.py", game="example-guilin-1", step="2")
    assert at.toggle(key="audit_review").value is False and not at.metric
    at.toggle(key="audit_review").set_value(True).run()
    assert at.query_params["review"] == "1"
    assert [m.value for m in at.metric] == ["100%", "0.000", "2"]
    assert (f"**第 2 步 step 2** · 座位 seat 1 的决策 decision: 打出 played `出牌 玖` — 与机器人相同 as the bot chooses "
            f"(W {24 / 59:.3f} 舵) · [复盘表 the review ↓](#review)") in [i.value for i in at.info]
    table = dataframe_with(at, "W bot")
    assert list(table["步 step"]) == [1, 2] and list(table[" "]) == ["", "▶"]
    assert list(table["打出 played"]) == ["吃 小一 (小二 小三)", "出牌 玖"] and list(table["同 same"]) == ["✓", "✓"]
    assert list(table["W played"]) == [pytest.approx(24 / 59)] * 2
    at = _open(monkeypatch, demo, "screens/audit.py", game="example-guilin-1", review="0")
    assert [m.value for m in at.metric] == ["0%", "0.000", "1"]
    table = dataframe_with(at, "W bot")
    assert (list(table["步 step"]), list(table["W played"]), list(table["W bot"])) == ([0], [0.0], [0.0])


def test_paipu_audit_names_rules_as_the_audit_page(demo):
    """`paipu audit` says a verdict's rule by its id and its doc's name, and a split's rule line with
    its section, without the seed's file number or the repository path."""
    from typer.testing import CliRunner

    from paipu.cli import app

    def audit(gid: str) -> list[str]:
        res = CliRunner().invoke(app, ["audit", gid, "--warehouse", str(demo.warehouse)], env={"COLUMNS": "200"})
        assert res.exit_code == 0, res.output
        return res.output.splitlines()

    out = audit(demo.tampered["guilin"])
    assert ("首个错误 first failing step 3: 未轮到 out_of_turn · 规则 rule guilin.turn turn order · seat 1 must discard "
            "now, not seat 2 (`discard`)") in out
    out = audit(demo.disputed["guilin"])
    assert ("首个错误 first failing step 24: 结算不符 result_mismatch · 规则 rule paipu.result · result.points: claimed 25, "
            "computed 21") in out
    kai = next(ln for ln in out if ln.startswith("│ 开舵 kai_duo"))  # the split's row, not the step's
    assert [c.strip() for c in kai.strip("│ ").split("│")] == [
        "开舵 kai_duo", "贰 贰 贰 贰", "9", "桌面 table", "开舵 大 9 小 6 · §Winning shape and 胡"]
    assert not any("docs/rules" in ln or "(001" in ln for ln in out)
