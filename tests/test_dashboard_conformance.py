"""The Server conformance page (dashboards/screens/conformance.py): ``paipu fit`` over the stored
games of the variant in scope, on a warehouse of guilin games a server played under ``tuo_step=3``
and logged without their ``rules`` object (so they are stored invalid under the defaults), with two
planted settlement faults; run only when asked, cached, bounded, and log text shown as text."""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import parse_qsl, urlencode

import msgspec
import pytest
import streamlit as st
from apptest_util import metric_values, open_page, page_text
from markdown_it import MarkdownIt

from analytics import fit as fit_mod
from dashboards import conformance, ui
from ingest.run import ingest
from ingest.views import connect
from replay.replayer import replay_line
from replay.simulator import simulate

PAGE = "screens/conformance.py"
GAMES = 60
OTHER = 8
ALL = GAMES + OTHER
EVIL = "evil-<b>x</b>"


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> SimpleNamespace:
    """The warehouse: GAMES guilin games played under tuo_step=3, `rules` stripped; one win's
    result.points raised by 7, another's winner moved and its id made ``EVIL``; OTHER guilin games
    played under the defaults (a minority the option explains); and zipai games of a tuning
    experiment only (a variant with no games to fit)."""
    root = tmp_path_factory.mktemp("conformance")
    recs = [msgspec.to_builtins(r) for r in simulate("guilin", GAMES, 11, rules={"tuo_step": 3})]
    for r in recs:
        r.pop("rules", None)
    wins = [r for r in recs if r["result"]["outcome"] == "win"]
    wins[0]["result"]["points"] += 7
    wins[1]["result"]["winner"] = (wins[1]["result"]["winner"] + 1) % 3
    wins[1]["game_id"] = EVIL
    other = [msgspec.to_builtins(r) for r in simulate("guilin", OTHER, 4)]
    for r in other:
        r.pop("rules", None)
    exp = [msgspec.to_builtins(r) for r in simulate("zipai", 3, 5)]
    for r in exp:
        r.update(x_experiment="exp-zipai", x_arm="a")
    src = root / "server.jsonl"
    src.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in recs + other + exp), encoding="utf-8")
    ingest([src], root / "wh", workers=1, progress=False)
    con = connect(root / "wh")
    stored_valid = con.sql("SELECT count(*) FILTER (WHERE valid) FROM games WHERE variant = 'guilin'").fetchone()[0]
    con.close()
    # the engine's own verdicts under tuo_step=3, game by game (the page must agree)
    under3 = {r["game_id"]: replay_line(json.dumps(r), defaults={"guilin": {"tuo_step": 3}}).verdict.valid
              for r in recs + other}
    return SimpleNamespace(warehouse=root / "wh", points=wins[0]["game_id"], evil=EVIL, stored_valid=stored_valid,
                           valid3=sum(under3.values()), other_invalid=[r["game_id"] for r in other if not under3[r["game_id"]]])


def _frame(at, column: str):
    for df in at.dataframe:
        if column in df.value.columns:
            return df.value
    raise AssertionError(f"no dataframe with {column!r}")


def _links(at) -> list[tuple[str, str, str]]:
    return [(e.proto.label, e.proto.page, e.proto.query_string) for e in at.get("page_link")]


def test_the_page_finds_the_servers_ruleset_and_its_faults(monkeypatch, server):
    at = open_page(monkeypatch, server.warehouse, PAGE, fit="1")
    # stored under the defaults (tuo_step=5): only games whose 舵 come out the same under 5 and 3 are valid
    assert 0 < server.stored_valid < server.valid3 == ALL - 2 - len(server.other_invalid)
    assert server.other_invalid  # some games of the minority do differ under 3
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["拟合对局 games fitted"] == str(ALL)
    assert metrics["默认规则下有效 valid, defaults"] == f"{server.stored_valid} / {ALL}"
    assert metrics["拟合规则下有效 valid, found"] == f"{server.valid3} / {ALL}"
    assert metrics["仍无效 still invalid"] == str(ALL - server.valid3)
    codes = [c.value for c in at.code]
    assert "--rules tuo_step=3" in codes and '{"tuo_step": 3}' in codes

    ev = _frame(at, "选项 option").set_index("选项 option")
    tuo = ev.loc["逢几进一舵 (tuo_step)"]
    assert (tuo["找到的值 found"], tuo["默认 default"], tuo["状态 status"]) == ("3", "5", "已确定 determined")
    assert tuo["各值的有效局 valid by value"] == f"5: {server.stored_valid} · 3: {server.valid3}"
    assert tuo["证据 evidence"] == f"+{server.valid3 - server.stored_valid}"
    assert tuo["类别 kind"] == "结算 scoring"

    faults = _frame(at, "局 games").set_index("示例 example")
    assert faults["局 games"].sum() == ALL - server.valid3
    explained = faults.drop([server.points, server.evil])
    # the minority played under the defaults: a class that tuo_step=5 changes, not a server fault
    assert len(explained) >= 1 and set(explained.index) <= set(server.other_invalid)
    assert explained["局 games"].sum() == len(server.other_invalid)
    assert all(v.startswith("tuo_step=5 (") for v in explained["可改变的选项 changed by"])
    planted = faults.loc[server.points]
    assert (planted["局 games"], planted["错误 code"], planted["规则 rule"], planted["动作 · 字段 act · field"]) == (
        1, "结算不符 result_mismatch", "paipu.result", "胡 points")
    assert planted["可改变的选项 changed by"] == "疑似服务器错误 suspected server fault"
    con = connect(server.warehouse)
    want = {f["example_game"]: f for f in conformance.report(con, "guilin")["faults"]}
    con.close()
    assert planted["消息 message"] == want[server.points]["example_message"]
    claimed, computed = re.fullmatch(r"result\.points: claimed (\d+), computed (\d+)",
                                     want[server.points]["example_message"]).groups()
    assert int(claimed) - int(computed) == 7
    step = want[server.points]["example_step"]
    assert step is not None
    query = urlencode({"game": server.points, "step": step})
    assert planted["审计 audit"] == f"audit?{query}"
    # the example's own link opens that game, at that step, in the audit page
    assert [(p, q) for label, p, q in _links(at) if server.points in label] == [("audit", query)]
    text = page_text(at)
    assert "疑似服务器错误 suspected server fault" in text and "服务器违反了 the server broke `paipu.result`" in text
    assert "option values that get some of them further: " in text and "`tuo_step=5 (" in text
    assert f"本玩法共 {ALL} 局" in text and "only part of them" not in text


def test_the_audit_link_opens_the_planted_game(monkeypatch, server):
    at = open_page(monkeypatch, server.warehouse, PAGE, fit="1")
    ((_, page, query),) = [x for x in _links(at) if server.points in x[0]]
    audit = open_page(monkeypatch, server.warehouse, f"screens/{page}.py", **dict(parse_qsl(query)))
    text = page_text(audit, code=True)
    assert server.points in text and "result_mismatch" in text


def test_log_text_is_shown_as_text(monkeypatch, server):
    """The hostile game id: literal in the table, and in Markdown only inside code spans."""
    at = open_page(monkeypatch, server.warehouse, PAGE, fit="1")
    assert server.evil in _frame(at, "局 games")["示例 example"].tolist()
    md = MarkdownIt("commonmark", {"html": True})
    bodies = [str(e.value) for k in ("markdown", "caption", "info", "warning", "error", "success") for e in getattr(at, k)]
    bodies += [label for label, _, _ in _links(at)]
    spans = 0
    for body in bodies:
        for tok in md.parse(body):
            assert not (tok.type == "html_block" and "<b>" in tok.content), body
            for child in tok.children or []:
                assert child.type != "html_inline" or "<b>" not in child.content, body
                assert child.type != "text" or "<b>" not in child.content, body
                spans += child.type == "code_inline" and server.evil in child.content
    assert spans >= 2  # the example's caption and its audit link


def test_it_runs_only_when_asked_and_once(monkeypatch, server):
    st.cache_data.clear()
    calls = []
    real = fit_mod.fit
    monkeypatch.setattr(fit_mod, "fit", lambda *a, **k: calls.append(len(a[0])) or real(*a, **k))
    at = open_page(monkeypatch, server.warehouse, PAGE)
    assert not calls and not at.metric
    assert any("press Fit" in i.value for i in at.info)
    at.button(key="fit_go").click().run()
    assert not at.exception and calls == [ALL] and at.query_params["fit"] == "1"
    assert {m.label: m.value for m in at.metric}["仍无效 still invalid"] == str(ALL - server.valid3)
    at.run()  # a rerun reads the cache
    assert calls == [ALL]


def test_the_bound_is_the_latest_n_games(monkeypatch, server):
    at = open_page(monkeypatch, server.warehouse, PAGE, fit="1", n="50")
    assert at.number_input(key="fit_n").value == 50
    con = connect(server.warehouse)
    want = conformance.report(con, "guilin", 50)
    con.close()
    assert want["games"] == 50
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["拟合对局 games fitted"] == "50"
    assert metrics["拟合规则下有效 valid, found"] == f"{want['valid_found']} / 50"
    assert "fitting the latest 50" in page_text(at) and "only part of them" in page_text(at)


def test_no_games_to_fit_is_a_plain_message(monkeypatch, server, tmp_path):
    at = open_page(monkeypatch, server.warehouse, PAGE, variant="zipai", fit="1")
    assert any("no games outside tuning experiments" in i.value for i in at.info) and not at.metric
    (tmp_path / "_meta").mkdir()
    at = open_page(monkeypatch, tmp_path, PAGE)
    assert any("空" in i.value for i in at.info) and not at.metric
    at = open_page(monkeypatch, Path(tmp_path) / "missing", PAGE)
    assert at.info and not at.metric


def test_the_records_own_rules_set_aside(monkeypatch, tmp_path):
    """Games of 逢3进1 whose records say the defaults: each is judged by the `rules` it carries, so
    there is nothing to fit until the toggle (``without_rules=1``) sets them aside; then the play
    says tuo_step=3, under which every game is valid."""
    recs = [msgspec.to_builtins(r) for r in simulate("guilin", 30, 5, rules={"tuo_step": 3})]
    for r in recs:
        r["rules"] = {}
    src = tmp_path / "told.jsonl"
    src.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in recs), encoding="utf-8")
    ingest([src], tmp_path / "wh", workers=1, progress=False)
    at = open_page(monkeypatch, tmp_path / "wh", PAGE, fit="1")
    assert [i.value.split(":")[0] for i in at.info] == [
        "这些对局都带着自己的规则 every stored game carries its own `rules` object and is judged by it"]
    assert not at.toggle(key="fit_aside").value
    # no ruleset found, no evidence: only how the games fare under the rules they carry
    assert [h.value for h in at.subheader] == ["仍无效的对局 Games still invalid, by first error"]
    at.toggle(key="fit_aside").set_value(True).run()
    assert at.query_params["without_rules"] == "1" and not at.exception
    assert "--rules tuo_step=3" in [c.value for c in at.code]
    assert metric_values(at)["拟合规则下有效 valid, found"] == "30 / 30"
    assert "找到的规则 The ruleset found" in [h.value for h in at.subheader]
    assert any("set aside (`paipu fit --without-rules`)" in c.value for c in at.caption)
    linked = open_page(monkeypatch, tmp_path / "wh", PAGE, fit="1", without_rules="1")
    assert linked.toggle(key="fit_aside").value and "--rules tuo_step=3" in [c.value for c in linked.code]


def test_version_follows_the_snapshot(server):
    con = connect(server.warehouse)
    try:
        assert conformance.version(con).startswith("snapshot ")
        assert conformance.games(con, "guilin") == ALL and conformance.games(con, "zipai") == 0
    finally:
        con.close()
    assert ui.url("conformance", fit=1) == "conformance?fit=1"
