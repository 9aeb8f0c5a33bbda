"""AppTest of every dashboard page on the demo warehouse (deep links, real values checked against
SQL), on an empty warehouse, on a warehouse with rejects only, and with SQL-injection attempts
through every text input and query parameter."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from streamlit.testing.v1 import AppTest

from apptest_util import open_page, page_text

import demo_warehouse
from analytics.views import connect
from dashboards import players, ui

TIMEOUT = 60
PAGES = ["screens/overview.py", "screens/hand_types.py", "screens/tuning.py", "screens/fairness.py",
         "screens/audit.py", "screens/collusion.py", "screens/player.py", "screens/leaderboard.py",
         "screens/families.py"]
EVIL = "x' OR '1'='1' --; DROP TABLE games; SELECT * FROM read_csv('/etc/passwd')"


@pytest.fixture(scope="module")
def demo():
    return demo_warehouse.build()


@pytest.fixture(scope="module")
def sql(demo):
    """A query runner on the demo warehouse (the tests' own SQL, for expected values)."""
    con = connect(demo.warehouse)
    yield lambda q, **p: con.sql(q, params=p or None).pl()
    con.close()


@pytest.fixture(scope="module")
def empty(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("wh_empty")
    (root / "_meta").mkdir()
    return root


@pytest.fixture(scope="module")
def rejects_only(tmp_path_factory) -> Path:
    """A real ingest of lines that are all rejected."""
    from ingest.run import ingest

    root = tmp_path_factory.mktemp("wh_rej")
    src = root.parent / f"{root.name}-logs.jsonl"
    src.write_text('{oops\n[1]\n{"format": "paipu/1", "game_id": "zz-1", "variant": "mahjong"}\n', encoding="utf-8")
    ingest([src], root / "wh", workers=1, progress=False)
    return root / "wh"


def _open(monkeypatch, warehouse, page: str, **params: str) -> AppTest:
    return open_page(monkeypatch, warehouse, page, timeout=TIMEOUT, **params)


def _text(at: AppTest) -> str:
    return page_text(at)



def _metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def _frame(at: AppTest, column: str):
    """The first dataframe on the page that has ``column``."""
    for df in at.dataframe:
        if column in df.value.columns:
            return df.value
    raise AssertionError(f"no dataframe with {column!r}: {[list(d.value.columns) for d in at.dataframe]}")


def _links(at: AppTest) -> list[tuple[str, str, str]]:
    """(label, page url_path, query string) of every st.page_link."""
    return [(e.proto.label, e.proto.page, e.proto.query_string) for e in at.get("page_link")]


# --- every page on every kind of warehouse ------------------------------------------------------

@pytest.mark.parametrize("page", PAGES[2:])
@pytest.mark.parametrize("which", ["empty", "rejects_only"])
def test_new_pages_on_empty_and_rejects_only(request, monkeypatch, page, which):
    """Without games every new page says so instead of failing (the audit page still searches the
    rejected lines)."""
    at = _open(monkeypatch, request.getfixturevalue(which), page)
    said = " ".join([i.value for i in at.info] + [w.value for w in at.warning])
    if which == "empty":
        assert "空" in said, said
    elif page == "screens/audit.py":
        assert "or search" in said
        at.query_params["code"] = "schema"
        at.run()
        assert _frame(at, "code")["game_id"].tolist() == ["zz-1"]
    else:
        assert "没有" in said, said


def test_overview_freshness_on_rejects_only(monkeypatch, rejects_only):
    """A rejects-only warehouse still shows when it was ingested and the rejects by code, with links."""
    at = _open(monkeypatch, rejects_only, PAGES[0])
    text = _text(at)
    assert "最近入库 last ingest" in text and "done" in text
    assert "格式错误 schema: **1**" in text and "非 JSON bad_json: **2**" in text
    assert ("查看 bad_json 的拒收行 View the bad_json lines", "audit", "code=bad_json") in _links(at)


# --- overview ---------------------------------------------------------------------------------

def test_overview_leaves_experiments_out_and_shows_freshness(monkeypatch, demo, sql):
    at = _open(monkeypatch, demo.warehouse, PAGES[0])
    n_exp = 2 * demo_warehouse.TUNE_DEALS
    total = sql("SELECT count(*) AS n FROM games")["n"][0]
    assert _metrics(at)["对局 games"] == f"{total - n_exp:,}"
    assert f"{n_exp:,} tuning-experiment games are left out" in _text(at)
    parts = _frame(at, "实验 experiment")
    assert parts["实验 experiment"].sum() == n_exp and parts["对局 games"].sum() == total
    at.toggle(key="f_experiments").set_value(True).run()
    assert _metrics(at)["对局 games"] == f"{total:,}"


# --- rule tuning -------------------------------------------------------------------------------

def test_tuning_experiment_deep_link(monkeypatch, demo):
    """?variant=&exp= opens the paired comparison: outcomes identical, 舵 differs (A − B < 0)."""
    res = demo.tune
    at = _open(monkeypatch, demo.warehouse, "screens/tuning.py", variant="guilin", exp=res.experiment)
    m = _metrics(at)
    assert m["成对牌局 paired deals"] == str(demo_warehouse.TUNE_DEALS)
    assert "`tuo_step`: 5 → 3" in _text(at)
    outcome = _frame(at, "A (95%)")
    assert set(outcome["判断 verdict"]) == {"每局相同 identical"}
    score = at.dataframe[1].value
    tuo = score[score["指标 figure"] == "舵 tuo of a win"].iloc[0]
    assert tuo["判断 verdict"] == "有差别 differs"
    r = res.row("tuo")
    assert tuo["A − B (95%)"] == f"{r['diff']:+.2f} [{r['lo']:+.2f}, {r['hi']:+.2f}]"
    assert len(at.get("vega_lite_chart")) == 2


def test_tuning_rulesets_mode(monkeypatch, demo, sql):
    """mode=rulesets compares two rulesets as played (independent games, experiments left out)."""
    other = demo.double_ruleset
    at = _open(monkeypatch, demo.warehouse, "screens/tuning.py", variant="guilin", mode="rulesets",
               a="guilin-default", b=other)
    n = sql("""SELECT count(*) FILTER (WHERE valid) AS v, count(*) AS n FROM games WHERE ruleset_id = 'guilin-default'
               AND json_extract_string(record_json, '$.x_experiment') IS NULL""").row(0, named=True)
    assert _metrics(at)["A 有效 valid / 全部 all"] == f"{n['v']:,} / {n['n']:,}"
    assert "`zimo_bonus`: plus1 → double" in _text(at)
    assert "independent games" in _text(at) and "not one of the choices" not in _text(at)
    # the same ruleset twice is refused
    at.selectbox(key="tune_b").set_value("guilin-default").run()
    assert any("两个不同" in w.value for w in at.warning)


# --- player and leaderboard ----------------------------------------------------------------------

def test_player_deep_link_small_sample(monkeypatch, demo, sql):
    """?player=ring-a: counts shown, rates hidden under 100 games (and the page says why)."""
    at = _open(monkeypatch, demo.warehouse, "screens/player.py", player="ring-a")
    want = sql("""SELECT count(*) AS games, count(*) FILTER (WHERE s.is_winner) AS wins, sum(s.score) AS net
                  FROM seats s JOIN games g USING (game_id, variant)
                  WHERE s.player_id = 'ring-a' AND g.valid AND g.outcome IS NOT NULL""").row(0, named=True)
    m = _metrics(at)
    assert m["对局 games"] == str(want["games"]) == str(demo_warehouse.RING_GAMES)
    assert m["胡 wins"] == str(want["wins"]) and m["总得分 net score"] == f"{int(want['net']):+,}"
    table = _frame(at, "指标 figure")
    assert "胡率 win rate" not in set(table["指标 figure"])
    assert any("rates are hidden" in i.value for i in at.info)
    # opponents: ring-b sat in all of them; biggest wins link to the audit page
    opp = _frame(at, "同桌 games")
    assert opp.iloc[0]["玩家 player"] == "player?player=ring-b" and opp.iloc[0]["同桌 games"] == demo_warehouse.RING_GAMES
    links = _links(at)
    shown = f"{ui.lit(demo.ring_games[-1])} · "  # a game id is log text: a code span (issue 20)
    assert (shown, "audit", f"game={demo.ring_games[-1]}") in [(l[:len(shown)], p, q) for l, p, q in links]


def test_player_rates_and_percentiles(monkeypatch, demo, sql):
    """With the threshold lowered, rates appear with their Wilson interval and percentile."""
    monkeypatch.setattr(players, "MIN_RATE_GAMES", 10)
    at = _open(monkeypatch, demo.warehouse, "screens/player.py", player="ring-a")
    table = _frame(at, "指标 figure").set_index("指标 figure")
    assert table.loc["胡率 win rate", "值 value"] == "100.0%"
    assert table.loc["放炮率 deal-in rate", "值 value"] == "0.0%"
    lo = 1 / (1 + 1.959963984540054 ** 2 / demo_warehouse.RING_GAMES)  # Wilson lower bound of 12/12
    assert table.loc["胡率 win rate", "95% 区间 interval"] == f"[{100 * lo:.1f}%, 100.0%]"
    assert table.loc["胡率 win rate"].iloc[-1] == "第 100 百分位 100th pct"


def test_player_unknown_and_injection(monkeypatch, demo):
    """An unknown id (or an injection string) as ?player= or typed in is a friendly 'no games'."""
    at = _open(monkeypatch, demo.warehouse, "screens/player.py", player=EVIL)
    assert any("没有这位玩家" in w.value for w in at.warning) and not at.metric
    at = _open(monkeypatch, demo.warehouse, "screens/player.py")
    at.text_input(key="player_box").set_value("ring-a' OR 1=1 --").run()
    assert not at.exception and any("没有这位玩家" in w.value for w in at.warning)
    assert at.query_params["player"] == "ring-a' OR 1=1 --"


def test_leaderboard(monkeypatch, demo, sql):
    """Default gate 300 games (nobody in the demo); ?min=5&sort=net ranks by net score."""
    at = _open(monkeypatch, demo.warehouse, "screens/leaderboard.py")
    assert at.number_input(key="lb_min").value == 300
    assert any("300" in i.value for i in at.info)
    at = _open(monkeypatch, demo.warehouse, "screens/leaderboard.py", min="5", sort="net")
    want = sql("""SELECT s.player_id, sum(s.score) AS net FROM seats s JOIN games g USING (game_id, variant)
                  WHERE g.valid AND g.outcome IS NOT NULL
                    AND json_extract_string(g.record_json, '$.x_experiment') IS NULL
                  GROUP BY 1 HAVING count(*) >= 5 ORDER BY net DESC, count(*) DESC, 1""")
    board = _frame(at, "玩家 player")
    assert board["玩家 player"].tolist()[:3] == [f"player?player={p}" for p in want["player_id"][:3]]
    assert board["总分 net"].tolist() == want["net"].cast(pl.Int64).to_list()
    for bad in ({"min": EVIL}, {"sort": EVIL}, {"dir": EVIL}):
        at = _open(monkeypatch, demo.warehouse, "screens/leaderboard.py", **bad)
        assert at.number_input(key="lb_min").value == 300 and at.selectbox(key="lb_sort").value == "win_lo"


# --- fairness and collusion ----------------------------------------------------------------------

def test_fairness_on_the_demo(monkeypatch, demo):
    """The simulator's shuffle passes: one success per ruleset for positions, first card and 醒."""
    at = _open(monkeypatch, demo.warehouse, "screens/fairness.py")
    assert not at.error
    assert sum("Consistent with a uniform shuffle" in s.value for s in at.success) == 2
    adv = _frame(at, "庄家胡率 dealer win rate")
    assert set(adv["规则集 ruleset"]) == {"guilin-default", demo.double_ruleset}


def test_collusion_flags_the_planted_ring(monkeypatch, demo):
    """ring-b dealt in to ring-a in every shared 放炮 game: the top one-way flow, flagged, linked."""
    at = _open(monkeypatch, demo.warehouse, "screens/collusion.py")
    flows = _frame(at, "放炮者 feeder")
    top = flows.iloc[0]
    assert (top["放炮者 feeder"], top["胡家 winner"], top["标记 flag"]) == ("ring-b", "ring-a", "线索 lead")
    assert top["放炮 fed"] == demo_warehouse.RING_GAMES and top["反向 reverse"] == 0
    assert top["对局 games"] == "audit?player=ring-b&with=ring-a"
    assert any("ring-b" in e.value and "ring-a" in e.value for e in at.error)
    assert any("not verdicts" in w.value for w in at.warning)


# --- audit search ------------------------------------------------------------------------------

def test_audit_search_by_two_players(monkeypatch, demo):
    at = _open(monkeypatch, demo.warehouse, "screens/audit.py", player="ring-a", **{"with": "ring-b"})
    found = _frame(at, "对局 game")
    assert sorted(g.split("game=")[1] for g in found["对局 game"]) == sorted(demo.ring_games)


def test_audit_search_fields(monkeypatch, demo, sql):
    """Each search field narrows the games: code, hand type, table, date, id text; rejects by code."""
    at = _open(monkeypatch, demo.warehouse, "screens/audit.py", code="out_of_turn")
    assert _frame(at, "对局 game")["对局 game"].tolist() == ["audit?game=demo-bad-turn"]
    at = _open(monkeypatch, demo.warehouse, "screens/audit.py", code="bad_json")
    assert len(_frame(at, "code")) == 2 and set(_frame(at, "code")["code"]) == {"bad_json"}
    n_dihu = sql("""SELECT count(*) AS n FROM games WHERE list_contains(hand_types, 'dihu')
                    AND json_extract_string(record_json, '$.x_experiment') IS NULL""")["n"][0]
    at = _open(monkeypatch, demo.warehouse, "screens/audit.py", hand="dihu")
    assert len(_frame(at, "对局 game")) == n_dihu > 0
    t = sql("SELECT table_id, count(*) AS n FROM games WHERE table_id = 'sim-3-t1' GROUP BY 1").row(0, named=True)
    at = _open(monkeypatch, demo.warehouse, "screens/audit.py", table="sim-3-t1")
    assert len(_frame(at, "对局 game")) == t["n"] == 8
    at = _open(monkeypatch, demo.warehouse, "screens/audit.py", date="2026-11-29", q="example")
    assert _frame(at, "对局 game")["对局 game"].tolist() == ["audit?game=example-guilin-1"]
    at = _open(monkeypatch, demo.warehouse, "screens/audit.py", date="29/11/2026")
    assert any("YYYY-MM-DD" in w.value for w in at.warning)


def test_sql_injection_through_every_search_input(monkeypatch, demo):
    """Every text input and query parameter of the search takes an injection string harmlessly:
    nothing matches, nothing fails, the warehouse is untouched."""
    for param in ("q", "player", "with", "table", "code", "hand", "date"):
        at = _open(monkeypatch, demo.warehouse, "screens/audit.py", **{param: EVIL})
        assert not at.exception
        if param in ("code", "hand"):  # not one of the choices: ignored, with a note
            assert any("not one of the choices" in c.value for c in at.caption)
        elif param == "date":
            assert any("YYYY-MM-DD" in w.value for w in at.warning)
        else:
            assert any("No game matches" in i.value for i in at.info), param
    at = _open(monkeypatch, demo.warehouse, "screens/audit.py")
    for key in ("s_q", "s_player", "s_with", "s_table"):
        at.text_input(key=key).set_value(EVIL[:100]).run()
        assert not at.exception and any("No game matches" in i.value for i in at.info), key
        at.text_input(key=key).set_value("").run()
    at.text_input(key="s_date").set_value("2026'--").run()
    assert not at.exception and any("YYYY-MM-DD" in w.value for w in at.warning)
    at.text_input(key="s_date").set_value("").run()
    at.text_input(key="audit_search").set_value(EVIL[:100]).run()
    assert any("not found" in w.value for w in at.warning)
    con = connect(demo.warehouse)
    try:
        assert con.sql("SELECT count(*) FROM games").fetchall()[0][0] > 0
    finally:
        con.close()


def test_sql_injection_through_page_parameters(monkeypatch, demo):
    """Query parameters of the tuning page fall back to real choices; nothing fails."""
    for params in ({"variant": EVIL}, {"variant": "guilin", "exp": EVIL}, {"mode": EVIL},
                   {"variant": "guilin", "mode": "rulesets", "a": EVIL, "b": EVIL}):
        at = _open(monkeypatch, demo.warehouse, "screens/tuning.py", **params)
        assert any("not one of the choices" in c.value for c in at.caption), params
        assert at.metric  # the fallback comparison is shown
    for page in ("screens/fairness.py", "screens/collusion.py", "screens/hand_types.py", "screens/overview.py"):
        _open(monkeypatch, demo.warehouse, page, player=EVIL, game=EVIL, variant=EVIL)
