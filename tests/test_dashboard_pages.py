"""AppTest of every dashboard page on the demo warehouse (deep links, real values checked against
SQL), on an empty warehouse, on a warehouse with rejects only, and with SQL-injection attempts
through every text input and query parameter."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import demo_warehouse
import polars as pl
import pytest
from apptest_util import dataframe_with, metric_values, open_page, page_text, player_summary
from streamlit.testing.v1 import AppTest

from dashboards import players, ui
from ingest.views import connect

pytestmark = pytest.mark.long  # started first (tests/conftest.py)

TIMEOUT = 60
PAGES = ["screens/overview.py", "screens/hand-types.py", "screens/tuning.py", "screens/fairness.py",
         "screens/audit.py", "screens/collusion.py", "screens/player.py", "screens/leaderboard.py",
         "screens/families.py"]
EVIL = "x' OR '1'='1' --; DROP TABLE games; SELECT * FROM read_csv('/etc/passwd')"
PLAIN_GUILIN = demo_warehouse.PLAIN_GAMES + demo_warehouse.DOUBLE_GAMES


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    return demo_warehouse.build(tmp_path_factory)


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
        assert dataframe_with(at, "原因 code")["对局 game"].tolist() == ["zz-1"]
    else:
        assert "没有" in said, said


def test_overview_freshness_on_rejects_only(monkeypatch, rejects_only):
    """A rejects-only warehouse still shows when it was ingested and the rejects by code, with links."""
    at = _open(monkeypatch, rejects_only, PAGES[0])
    text = _text(at)
    assert "最近入库 last ingest" in text and "done" in text
    assert "格式错误 schema: **1**" in text and "非 JSON bad_json: **2**" in text
    assert ("查看 bad_json 的拒收行 View the bad_json lines", "audit", "code=bad_json") in _links(at)
    raw = [(p, q) for label, p, q in _links(at) if label.startswith("原文 raw line")]
    assert len(raw) == 3 and all(p == "audit" and "line=" in q and "file=" in q for p, q in raw)


# --- overview ---------------------------------------------------------------------------------

def test_overview_leaves_experiments_out_and_shows_freshness(monkeypatch, demo, sql):
    """The overview is of the most played variant (guilin: the experiment's games do not count),
    experiments left out unless switched on."""
    at = _open(monkeypatch, demo.warehouse, PAGES[0])
    assert at.query_params["variant"] == "guilin"
    n_exp = 2 * demo_warehouse.TUNE_DEALS
    total = sql("SELECT count(*) AS n FROM games WHERE variant = 'guilin'")["n"][0]
    assert metric_values(at)["对局 games"] == f"{total - n_exp:,}"
    assert f"{n_exp:,} tuning-experiment games are left out" in _text(at)
    parts = dataframe_with(at, "实验 experiment")
    assert parts["实验 experiment"].sum() == n_exp and parts["对局 games"].sum() == total
    at.toggle(key="f_experiments").set_value(True).run()
    assert metric_values(at)["对局 games"] == f"{total:,}" and at.query_params["experiments"] == "1"


# --- one variant at a time --------------------------------------------------------------------------

def test_every_page_is_one_variant_the_most_played_by_default(monkeypatch, demo, sql):
    """No page mixes variants: each opens on the most played one (guilin, outside experiments), and
    says so under its title."""
    most = sql("""SELECT variant FROM games WHERE json_extract_string(record_json, '$.x_experiment') IS NULL
                  GROUP BY 1 ORDER BY count(*) DESC LIMIT 1""")["variant"][0]
    assert most == "guilin"
    for page in PAGES:
        at = _open(monkeypatch, demo.warehouse, page)
        assert at.query_params["variant"] == "guilin", page
        assert at.selectbox(key="f_variant").value == "guilin"
        assert any(c.value.startswith("范围 scope: 桂林字牌 (guilin)") for c in at.caption), page


def test_a_variant_and_seat_count_from_the_url(monkeypatch, demo, sql):
    """?variant=tongcheng_gezi&seats=3 scopes the overview to the 3-seat tables of 通城個子牌: the
    counts are theirs and the seat chart has three seats."""
    want = sql("""SELECT count(*) AS n, count(*) FILTER (WHERE valid) AS v FROM games
                  WHERE variant = 'tongcheng_gezi' AND n_seats = 3""").row(0, named=True)
    at = _open(monkeypatch, demo.warehouse, PAGES[0], variant="tongcheng_gezi", seats="3")
    m = metric_values(at)
    assert (m["对局 games"], m["有效 valid"]) == (f"{want['n']:,}", f"{want['v']:,}") and want["n"] == 24
    assert at.radio(key="f_seats").value == 3
    assert any("3 人 players" in c.value for c in at.caption)
    seats = ui.query(str(demo.warehouse.resolve()), ui.data.layout(demo.warehouse.resolve()), "win_rate_by_seat",
                     ui.data.Filters(("tongcheng_gezi",), tuple(sql(
                         "SELECT DISTINCT ruleset_id FROM games WHERE n_seats = 3")["ruleset_id"])))
    assert seats["seat"].to_list() == [0, 1, 2]
    at = _open(monkeypatch, demo.warehouse, PAGES[0], variant="tongcheng_gezi")  # default: the most played count
    assert at.radio(key="f_seats").value == 4
    at = _open(monkeypatch, demo.warehouse, PAGES[0], variant="mahjong")
    assert any("not one of the choices" in c.value for c in at.caption) and at.query_params["variant"] == "guilin"


def test_the_overview_names_each_mean_once(monkeypatch, demo):
    """The winning hand's mean points and a losing share's mean units, each in its variant's unit:
    in 沅江 the units are the final 息 (spec §8: points = units), so its mean 息 is shown once."""
    means = {}
    for v in ("guilin", "shangdaren", "yuanjiang_guihuzi"):
        at = _open(monkeypatch, demo.warehouse, PAGES[0], variant=v)
        means[v] = [k for k in metric_values(at) if k.startswith("平均")]
    assert means == {"guilin": ["平均胡 mean 胡", "平均舵 mean tuo"], "shangdaren": ["平均胡 mean 胡", "平均分 mean units"],
                     "yuanjiang_guihuzi": ["平均息 mean 息"]}


def test_dates_narrow_every_figure(monkeypatch, demo, sql):
    """?from=&to= keeps the games started in those UTC days (both ends included)."""
    want = sql("""SELECT count(*) AS n FROM games WHERE variant = 'guilin'
                  AND json_extract_string(record_json, '$.x_experiment') IS NULL
                  AND CAST(timezone('UTC', started_at) AS DATE) BETWEEN DATE '2026-10-01' AND DATE '2026-10-31'""")
    at = _open(monkeypatch, demo.warehouse, PAGES[0], **{"from": "2026-10-01", "to": "2026-10-31"})
    assert metric_values(at)["对局 games"] == f"{want['n'][0]:,}" and 0 < want["n"][0] < PLAIN_GUILIN
    assert at.date_input(key="f_dates").value == (date(2026, 10, 1), date(2026, 10, 31))
    assert any("2026-10-01 – 2026-10-31 (UTC)" in c.value for c in at.caption)
    at = _open(monkeypatch, demo.warehouse, "screens/leaderboard.py", min="1", **{"from": "2026-10-01", "to": "2026-10-31"})
    board = dataframe_with(at, "玩家 player")
    per = sql("""SELECT s.player_id, count(*) AS n FROM seats s JOIN games g USING (game_id, variant)
                 WHERE g.variant = 'guilin' AND g.valid AND g.outcome IS NOT NULL
                 AND json_extract_string(g.record_json, '$.x_experiment') IS NULL
                 AND CAST(timezone('UTC', g.started_at) AS DATE) BETWEEN DATE '2026-10-01' AND DATE '2026-10-31'
                 GROUP BY 1""")
    assert dict(zip(board["玩家 player"].str.replace("player?variant=guilin&min=1&player=", ""), board["局 games"])) == dict(
        zip(per["player_id"], per["n"]))
    at = _open(monkeypatch, demo.warehouse, PAGES[0], **{"from": "31/10/2026"})
    assert any("not a YYYY-MM-DD date" in c.value for c in at.caption)


def test_the_scope_follows_the_reader_across_pages(monkeypatch, demo):
    """The sidebar's filters stay as the reader moves to another page, and are written back into
    its URL, so any view can be shared by its link."""
    at = _open(monkeypatch, demo.warehouse, PAGES[0], variant="zipai", valid="0")
    assert not at.toggle(key="f_valid").value
    at.switch_page("screens/hand-types.py")
    at.query_params.clear()
    at.run()
    assert not at.exception
    assert at.query_params["variant"] == "zipai" and at.query_params["valid"] == "0"
    assert any(c.value.startswith("范围 scope: 字牌 (zipai)") for c in at.caption)


def test_overview_over_time(monkeypatch, demo, sql):
    """Games and rates by day, week or month: the monthly buckets hold every guilin game."""
    at = _open(monkeypatch, demo.warehouse, PAGES[0], grain="month")
    con = connect(demo.warehouse)
    try:
        tl = ui.data.timeline(con, ui.data.Filters(("guilin",)), "month")
    finally:
        con.close()
    total = sql("""SELECT count(*) AS n FROM games WHERE variant = 'guilin'
                   AND json_extract_string(record_json, '$.x_experiment') IS NULL""")["n"][0]
    assert tl["games"].sum() == total and tl.height >= 3  # the demo spans three months
    assert at.selectbox(key="ov_grain").value == "month"
    assert any("one point per month" in c.value for c in at.caption)
    # both charts over time: one band a month, each labelled with its month, the same months in both
    months = tl["period"].dt.strftime("%Y-%m").to_list()
    assert [x["scale"]["domain"] for x in _period_axes(at)] == [months, months]
    assert len(set(months)) == len(months) >= 3


def _period_axes(at) -> list[dict]:
    """The x encodings over a period's ``label`` of the page's charts (their Vega-Lite specs)."""
    def walk(o, out):
        if isinstance(o, dict):
            if o.get("field") == "label" and "scale" in o:
                out.append(o)
            for v in o.values():
                walk(v, out)
        elif isinstance(o, list):
            for v in o:
                walk(v, out)
        return out
    return [a for chart in at.get("vega_lite_chart") for a in walk(json.loads(chart.proto.spec), [])]


def test_gezi_share_of_games_won_is_labelled_so(monkeypatch, demo):
    """個子: the share of games someone won is not called a win rate."""
    at = _open(monkeypatch, demo.warehouse, "screens/families.py", variant="tongcheng_gezi", seats="4")
    gz = dataframe_with(at, "人数 players")
    assert "有人胡 % games won" in gz.columns and "胡率 win %" not in gz.columns
    assert gz["人数 players"].tolist() == [4]
    at = _open(monkeypatch, demo.warehouse, "screens/families.py", variant="sanjing_huapai")
    assert dataframe_with(at, "主精 main")["胡 wins"].sum() > 0


def test_charts_keep_their_order_and_every_label(monkeypatch, demo):
    """Bar charts sort by the frame's order explicitly (a stale order after filtering came from
    sort=None) and draw every category label (the tuning differences chart dropped every other)."""
    import json as _json

    at = _open(monkeypatch, demo.warehouse, "screens/hand-types.py")
    spec = _json.loads(at.get("vega_lite_chart")[0].proto.spec)
    y = spec["layer"][0]["encoding"]["y"]
    assert isinstance(y["sort"], list) and y["axis"]["labelOverlap"] is False
    at = _open(monkeypatch, demo.warehouse, "screens/tuning.py", exp=demo.tune.experiment)
    diffs = _json.loads(at.get("vega_lite_chart")[-1].proto.spec)
    ys = [layer["encoding"]["y"] for layer in diffs["layer"] if "y" in layer.get("encoding", {})]
    assert ys and all(y["axis"]["labelOverlap"] is False for y in ys)
    assert len(ys[0]["sort"]) == len(set(ys[0]["sort"]))


# --- rule tuning -------------------------------------------------------------------------------

def test_tuning_experiment_deep_link(monkeypatch, demo):
    """?variant=&exp= opens the paired comparison: outcomes identical, 舵 differs (A − B < 0)."""
    res = demo.tune
    at = _open(monkeypatch, demo.warehouse, "screens/tuning.py", variant="guilin", exp=res.experiment)
    m = metric_values(at)
    assert m["成对牌局 paired deals"] == str(demo_warehouse.TUNE_DEALS)
    assert "`tuo_step`: 5 → 3" in _text(at)
    outcome = dataframe_with(at, "A (95%)")
    assert set(outcome["判断 verdict"]) == {"每局相同 identical"}
    score = at.dataframe[1].value
    tuo = score[score["指标 figure"] == "舵 tuo of a win"].iloc[0]
    assert tuo["判断 verdict"] == "有差别 differs"
    r = res.row("tuo")
    assert tuo["A − B (95%)"] == f"{r['diff']:+.2f} [{r['lo']:+.2f}, {r['hi']:+.2f}]"
    assert len(at.get("vega_lite_chart")) == 2
    # who played, and where the differences come from: tuo_step is scoring-only, so every deal was
    # played alike and the 舵's difference is the settlement's alone — said once, above the tables
    # (a source column of one value made the table wider than the page at 1,400 px)
    assert "谁在打 who played: `启发式机器人 heuristic bot`, at every seat" in _text(at)
    assert f"**0** of {demo_warehouse.TUNE_DEALS}" in _text(at)
    assert "every difference comes from the settlement alone" in _text(at)
    assert "来源 source" not in score.columns and "来源 source" not in outcome.columns
    # the comparison opens with paipu tune's sentence, as plain text
    assert [t.value for t in at.text] == [res.answer().text]
    assert res.answer().text.startswith(f"Over {demo_warehouse.TUNE_DEALS} paired deals, B against A: ")


def test_tuning_rulesets_mode(monkeypatch, demo, sql):
    """mode=rulesets compares two rulesets as played (independent games, experiments left out)."""
    other = demo.double_ruleset
    at = _open(monkeypatch, demo.warehouse, "screens/tuning.py", variant="guilin", mode="rulesets",
               a="guilin-default", b=other)
    n = sql("""SELECT count(*) FILTER (WHERE valid) AS v, count(*) AS n FROM games WHERE ruleset_id = 'guilin-default'
               AND json_extract_string(record_json, '$.x_experiment') IS NULL""").row(0, named=True)
    assert metric_values(at)["A 有效 valid / 全部 all"] == f"{n['v']:,} / {n['n']:,}"
    assert "`zimo_bonus`: plus1 → double" in _text(at)
    assert "independent games" in _text(at) and "not one of the choices" not in _text(at)
    # the same ruleset twice is refused
    at.selectbox(key="tune_b").set_value("guilin-default").run()
    assert any("两个不同" in w.value for w in at.warning)


# --- player and leaderboard ----------------------------------------------------------------------

def test_player_deep_link_small_sample(monkeypatch, demo, sql):
    """?player=ring-a (12 games, all won on ring-b's discard): every rate shown from the first game with
    its Wilson interval — 胡率 12/12 = 100.0% [75.8%, 100.0%] (lower bound 12 / (12 + 1.96²)), 自摸率 and
    放炮率 0/12 = 0.0% [0.0%, 24.2%] (upper bound 1.96² / (12 + 1.96²)) — and no percentile yet, the
    small sample said in words."""
    at = _open(monkeypatch, demo.warehouse, "screens/player.py", player="ring-a")
    want = sql("""SELECT count(*) AS games, count(*) FILTER (WHERE s.is_winner) AS wins, sum(s.score) AS net
                  FROM seats s JOIN games g USING (game_id, variant)
                  WHERE s.player_id = 'ring-a' AND g.valid AND g.outcome IS NOT NULL""").row(0, named=True)
    m = metric_values(at)
    assert m["对局 games"] == str(want["games"]) == str(demo_warehouse.RING_GAMES)
    assert m["胡 wins"] == str(want["wins"]) and m["总得分 net score"] == f"{int(want['net']):+,}"
    table = player_summary(at)
    assert tuple(table.loc["胡率 win rate"].iloc[:2]) == ("100.0%", "[75.8%, 100.0%]")
    assert tuple(table.loc["自摸率 self-drawn share of wins"].iloc[:2]) == ("0.0%", "[0.0%, 24.2%]")
    assert tuple(table.loc["放炮率 deal-in rate"].iloc[:2]) == ("0.0%", "[0.0%, 24.2%]")
    assert table.loc["胡率 win rate"].iloc[-1] == "—"
    assert any("A small sample: 12 局 games" in c.value and "from 75.8% to 100.0%" in c.value for c in at.caption)
    assert not any("hidden" in i.value for i in at.info)
    # opponents: ring-b sat in all of them; biggest wins link to the audit page
    opp = dataframe_with(at, "同桌 games")
    assert opp.iloc[0]["玩家 player"] == "player?variant=guilin&player=ring-b"
    assert opp.iloc[0]["同桌 games"] == demo_warehouse.RING_GAMES
    # recent games: a table, newest first, each linked to its audit page and its table's session
    recent = dataframe_with(at, "对局 game")
    assert recent.iloc[0]["对局 game"] == f"audit?game={demo.ring_games[-1]}"
    assert len(recent) == demo_warehouse.RING_GAMES
    assert set(recent["结果 result"]) == {"胡 win · 点炮 dealt-in"}  # ring-b's discard each time
    assert all(o.count(", ") == 1 and "ring-b" in o for o in recent["对手 opponents"])
    assert recent["牌桌 table"].str.startswith("session?variant=guilin&table=guilin-t").all()
    links = _links(at)  # the biggest wins link to the audit page; a game id is log text: a code span
    assert any(p == "audit" and q == f"game={g}" and label.endswith(ui.lit(g))
               for label, p, q in links for g in demo.ring_games)


def test_player_rates_and_percentiles(monkeypatch, demo, sql):
    """With the threshold lowered, rates appear with their Wilson interval and percentile."""
    monkeypatch.setattr(players, "MIN_RATE_GAMES", 10)
    at = _open(monkeypatch, demo.warehouse, "screens/player.py", player="ring-a")
    table = player_summary(at)
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
    """Default gate players.LEADERBOARD_MIN games, ranked by rating; ?min=5&sort=net ranks by net
    score, within the variant in scope."""
    at = _open(monkeypatch, demo.warehouse, "screens/leaderboard.py")
    assert at.number_input(key="lb_min").value == players.LEADERBOARD_MIN
    assert at.selectbox(key="lb_sort").value == "rating"
    board = dataframe_with(at, "评分 rating")
    assert board["评分 rating"].is_monotonic_decreasing if hasattr(board["评分 rating"], "is_monotonic_decreasing") \
        else list(board["评分 rating"]) == sorted(board["评分 rating"], reverse=True)
    at = _open(monkeypatch, demo.warehouse, "screens/leaderboard.py", min="5", sort="net")
    want = sql("""SELECT s.player_id, sum(s.score) AS net FROM seats s JOIN games g USING (game_id, variant)
                  WHERE g.valid AND g.outcome IS NOT NULL AND g.variant = 'guilin'
                    AND json_extract_string(g.record_json, '$.x_experiment') IS NULL
                  GROUP BY 1 HAVING count(*) >= 5 ORDER BY net DESC, count(*) DESC, 1""")
    board = dataframe_with(at, "玩家 player")
    assert board["玩家 player"].tolist()[:3] == [f"player?variant=guilin&min=5&player={p}" for p in want["player_id"][:3]]
    assert board["总分 net"].tolist() == want["net"].cast(pl.Int64).to_list()
    for bad in ({"min": EVIL}, {"sort": EVIL}, {"dir": EVIL}):
        at = _open(monkeypatch, demo.warehouse, "screens/leaderboard.py", **bad)
        assert at.number_input(key="lb_min").value == players.LEADERBOARD_MIN
        assert at.selectbox(key="lb_sort").value == "rating"


def test_player_rating_is_openskills(monkeypatch, demo):
    """ring-a (won all 12 of its games) tops the guilin ratings; the page shows the same figure and
    the history has one point per rated game."""
    con = connect(demo.warehouse)
    try:
        f = ui.data.Filters(("guilin",))
        board = players.ratings(con, f)
        hist = players.rating_history(con, f, "ring-a")
    finally:
        con.close()
    top = board.row(0, named=True)
    assert top["player_id"] == "ring-a" and top["rated"] == demo_warehouse.RING_GAMES == hist.height
    assert hist["rating"].to_list()[-1] == pytest.approx(top["rating"]) and hist["rating"].is_sorted()
    at = _open(monkeypatch, demo.warehouse, "screens/player.py", player="ring-a")
    m = metric_values(at)
    # the rank is the leaderboard's: its 12 games are fewer than the default 30, so none
    assert m["评分 rating μ − 3σ"] == f"{top['rating']:.1f}" and m["排名 rank"] == "未上榜 unranked"


def test_player_of_another_variant_is_pointed_there(monkeypatch, demo, sql):
    """A player with no game in the variant in scope gets links to the variants they played."""
    p = sql("""SELECT player_id FROM seats WHERE variant = 'shangdaren' AND player_id NOT IN
               (SELECT player_id FROM seats WHERE variant = 'guilin') LIMIT 1""")["player_id"][0]
    at = _open(monkeypatch, demo.warehouse, "screens/player.py", player=p, variant="guilin")
    assert any("没有这位玩家" in w.value for w in at.warning)
    assert any(page == "player" and "variant=shangdaren" in q for _, page, q in _links(at))


# --- fairness and collusion ----------------------------------------------------------------------

def test_fairness_on_the_demo(monkeypatch, demo):
    """The simulator's shuffle passes: one success per ruleset for positions, first card and 醒."""
    at = _open(monkeypatch, demo.warehouse, "screens/fairness.py")
    assert not at.error
    assert sum("Consistent with a uniform shuffle" in s.value for s in at.success) == 2
    adv = dataframe_with(at, "庄家胡率 [95%]")
    assert set(adv["规则集 ruleset"]) == {"guilin-default", demo.double_ruleset}


def test_collusion_flags_the_planted_ring(monkeypatch, demo):
    """ring-b dealt in to ring-a in every shared 放炮 game: the top one-way flow, flagged, linked."""
    at = _open(monkeypatch, demo.warehouse, "screens/collusion.py")
    flows = dataframe_with(at, "放炮者 feeder")
    top = flows.iloc[0]
    assert (top["放炮者 feeder"], top["胡家 winner"], top["标记 flag"]) == ("ring-b", "ring-a", "线索 lead")
    assert top["放炮 fed"] == demo_warehouse.RING_GAMES and top["反向 reverse"] == 0
    assert top["对局 games"] == "audit?player=ring-b&with=ring-a"
    assert any("ring-b" in e.value and "ring-a" in e.value for e in at.error)
    assert any("not verdicts" in w.value for w in at.warning)


# --- audit search ------------------------------------------------------------------------------

def test_audit_search_by_two_players(monkeypatch, demo):
    at = _open(monkeypatch, demo.warehouse, "screens/audit.py", player="ring-a", **{"with": "ring-b"})
    found = dataframe_with(at, "对局 game")
    assert sorted(g.split("game=")[1] for g in found["对局 game"]) == sorted(demo.ring_games)


def test_audit_search_fields(monkeypatch, demo, sql):
    """Each search field narrows the games of the variant in scope: code, hand type, table, date, id
    text; rejects by code (lines of no known variant are in every variant's scope)."""
    at = _open(monkeypatch, demo.warehouse, "screens/audit.py", code="out_of_turn")
    assert dataframe_with(at, "对局 game")["对局 game"].tolist() == [f"audit?game={demo.tampered['guilin']}"]
    at = _open(monkeypatch, demo.warehouse, "screens/audit.py", code="bad_json")
    rej = dataframe_with(at, "原因 code")
    assert len(rej) == 3 and set(rej["原因 code"]) == {"非 JSON bad_json"}
    n_zimo = sql("""SELECT count(*) AS n FROM games WHERE list_contains(hand_types, 'zimo') AND variant = 'guilin'
                    AND json_extract_string(record_json, '$.x_experiment') IS NULL""")["n"][0]
    at = _open(monkeypatch, demo.warehouse, "screens/audit.py", hand="zimo")
    assert len(dataframe_with(at, "对局 game")) == n_zimo > 0
    t = sql("SELECT table_id, count(*) AS n FROM games WHERE table_id = 'guilin-t0001' GROUP BY 1").row(0, named=True)
    at = _open(monkeypatch, demo.warehouse, "screens/audit.py", table="guilin-t0001")
    assert len(dataframe_with(at, "对局 game")) == t["n"] == 8
    at = _open(monkeypatch, demo.warehouse, "screens/audit.py", date="2026-11-29", q="example")
    assert dataframe_with(at, "对局 game")["对局 game"].tolist() == ["audit?game=example-guilin-1"]
    at = _open(monkeypatch, demo.warehouse, "screens/audit.py", date="29/11/2026")
    assert any("YYYY-MM-DD" in w.value for w in at.warning)


def test_the_demo_holds_distinct_tables_times_and_players_per_variant(sql):
    """make demo's content: no table id, start minute or seating shared by two variants."""
    t = sql("""SELECT count(*) AS n FROM (SELECT table_id FROM games WHERE table_id IS NOT NULL
               AND json_extract_string(record_json, '$.x_experiment') IS NULL
               GROUP BY 1 HAVING count(DISTINCT variant) > 1)""")["n"][0]
    seatings = sql("""SELECT count(*) AS n FROM (SELECT g.variant, started_at, list(player_id ORDER BY seat) AS who
                      FROM seats s JOIN games g USING (game_id, variant)
                      WHERE json_extract_string(g.record_json, '$.x_experiment') IS NULL
                      GROUP BY g.variant, g.game_id, started_at)
                      GROUP BY started_at, who HAVING count(DISTINCT variant) > 1""")
    assert t == 0 and seatings.height == 0
    assert sql("SELECT count(DISTINCT variant) AS n FROM games")["n"][0] == 8


@pytest.mark.parametrize("variant", ["guilin", "shangdaren", "tongcheng_gezi", "yuanjiang_guihuzi"])
def test_every_variant_has_a_disputed_settlement_explained(monkeypatch, demo, variant):
    """The demo's disputed game of each variant opens with its explanation: the split with its
    rule lines, the worked sum, and 胡/息/個子 as the term where claim and engine part."""
    gid = demo.disputed[variant]
    at = _open(monkeypatch, demo.warehouse, "screens/audit.py", game=gid, variant=variant)
    split = at.table[0].value
    assert len(split) and split["规则 rule"].str.contains("](rules?doc=", regex=False).all()
    assert not split["规则 rule"].str.contains("docs/rules/", regex=False).any()
    part = next(e.value for e in at.error if "Where they part" in e.value)
    assert "points: 申报 claimed" in part
    assert any("Why the settlement is disputed" in h.value for h in at.subheader)


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
    for page in ("screens/fairness.py", "screens/collusion.py", "screens/hand-types.py", "screens/overview.py"):
        _open(monkeypatch, demo.warehouse, page, player=EVIL, game=EVIL, variant=EVIL)


def test_a_percentile_is_spelled_with_its_english_ordinal():
    from dashboards.ui import percentile

    assert [percentile(p) for p in (0.01, 0.02, 0.03, 0.11, 0.13, 0.41, 0.42, 1.0, None)] == [
        "第 1 百分位 1st pct", "第 2 百分位 2nd pct", "第 3 百分位 3rd pct", "第 11 百分位 11th pct",
        "第 13 百分位 13th pct", "第 41 百分位 41st pct", "第 42 百分位 42nd pct", "第 100 百分位 100th pct", "—"]
