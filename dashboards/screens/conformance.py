"""服务器一致性 Server conformance: which ruleset the warehouse's games of the variant in scope follow,
and which games the server got wrong — ``paipu fit`` (analytics/fit.py) over the stored lines: the
ruleset found, the evidence per option, and the games still invalid grouped by first error, each
class with an example to open in the audit page (a class no option value changes is a suspected
server fault).

Fitting replays every game under dozens of rulesets, so it runs only when asked (the button, or a
link with ``?fit=1``) over the latest N games (``?n=N``, :data:`dashboards.conformance.LIMIT` by
default), and its result is cached per warehouse snapshot, variant, N and whether the records' own
``rules`` objects are set aside (``paipu fit --without-rules``). Deep link:
``/conformance?variant=V&fit=1&n=N&without_rules=1``.
"""

from __future__ import annotations

import json
from typing import Any

import duckdb
import polars as pl
import streamlit as st

from dashboards import conformance as cf
from dashboards import labels, ui

KINDS = {"play": "打法 play", "scoring": "结算 scoring"}
STATUS = {"determined": "已确定 determined", "undetermined": "未确定 undetermined", "fixed": "固定 fixed"}
SHOWN = 12  # fault classes shown one by one with their example (the table lists every class)


@st.cache_data(max_entries=16, show_spinner=False)
def _games(_con: duckdb.DuckDBPyConnection, wh: str, version: str, variant: str) -> int:
    return cf.games(_con, variant)


# no TTL: the key holds the warehouse's snapshot, so a new ingest is a new entry and nothing else changes a fit
@st.cache_data(max_entries=16, show_spinner=False)
def _fit(_con: duckdb.DuckDBPyConnection, wh: str, version: str, variant: str, limit: int,
         without_rules: bool) -> dict[str, Any] | None:
    return cf.report(_con, variant, limit, without_rules)


st.title("服务器一致性 Server conformance")
st.caption("这些对局按哪套规则打？服务器算错了哪些？— which ruleset do the stored games follow, and which games did "
           "the server get wrong? 同 `paipu fit --warehouse DIR --variant V`.")
c, f = ui.games_page()
variant = f.variants[0] if f.variants else None
if variant is None:
    st.info("没有对局 No games yet.")
    st.stop()
if not cf.implemented(variant):
    st.info(f"引擎还不能重放 {labels.zh(labels.VARIANTS, variant)} — the engine does not replay this variant yet: "
            "nothing to fit.")
    st.stop()
con = c.con()
version = cf.version(con)
total = _games(con, c.path, version, variant)
if total == 0:
    st.info(f"{labels.zh(labels.VARIANTS, variant)} 没有调参实验以外的对局 has no games outside tuning experiments: "
            "nothing to fit.")
    st.stop()
st.caption("玩法在侧栏选择 the variant is the sidebar's; 拟合用本玩法存储的全部对局（有效与无效，不含调参实验），侧栏的"
           "规则集、日期与“只计有效”不适用 — the fit reads every stored game of the variant, valid or not, outside "
           "tuning experiments: the sidebar's ruleset, date and valid-only filters do not apply. 自带 rules 对象的"
           "记录按它裁定 a record that carries its own `rules` object is judged by it.")

ss = st.session_state
want = ui.qp_int("n", cf.LIMIT, cf.MIN_GAMES, cf.MAX_GAMES)
if ss.get("_fit_n_qp") != want:
    ss["fit_n"] = want
    ss["_fit_n_qp"] = want


def _sync_n() -> None:
    n = int(ss["fit_n"])
    if n == cf.LIMIT:
        st.query_params.pop("n", None)
    else:
        st.query_params["n"] = str(n)
    ss["_fit_n_qp"] = n


want_aside = ui.qp("without_rules") == "1"
if ss.get("_fit_aside_qp") != want_aside:
    ss["fit_aside"] = want_aside
    ss["_fit_aside_qp"] = want_aside


def _sync_aside() -> None:
    if ss["fit_aside"]:
        st.query_params["without_rules"] = "1"
    else:
        st.query_params.pop("without_rules", None)
    ss["_fit_aside_qp"] = bool(ss["fit_aside"])


st.toggle("不看记录自带的 rules 对象 set the records' own `rules` aside", key="fit_aside", on_change=_sync_aside,
          help="当作记录没有 rules 对象来拟合：服务器写的规则和它实际打的一致吗？— fit as if no record carried its "
               "`rules` object: does the play follow the rules the server wrote? (`paipu fit --without-rules`)")
aside = bool(ss["fit_aside"])
cols = st.columns([2, 1], vertical_alignment="bottom")
with cols[0]:
    st.number_input("最多拟合局数 fit at most (the latest games)", cf.MIN_GAMES, cf.MAX_GAMES, step=250, key="fit_n",
                    on_change=_sync_n,
                    help="拟合把每局按几十套规则重放，局数越多越慢 — fitting replays every game under dozens of rulesets: "
                         "more games take longer")
with cols[1]:
    if st.button("开始拟合 Fit", type="primary", icon=":material/play_arrow:", key="fit_go"):
        st.query_params["fit"] = "1"
limit = int(ss["fit_n"])
fitted = min(limit, total)
st.caption(f"本玩法共 {total:,} 局 games of this variant; 拟合最近 {fitted:,} 局 fitting the latest {fitted:,}"
           + ("" if fitted == total else " — 只是一部分：提高上限可拟合更多（更慢）only part of them: raise the bound "
                                         "to fit more (slower)") + ".")
if ui.qp("fit") != "1":
    st.info("拟合要把每局按几十套规则重放：按“开始拟合”运行 — fitting replays every game under dozens of rulesets: "
            "press Fit to run it (the result is kept until the next ingest).")
    st.stop()

with st.spinner(f"拟合中 fitting {fitted:,} games under the variant's rulesets…"):
    res = _fit(con, c.path, version, variant, limit, aside)
if res is None:
    st.info(f"{labels.zh(labels.VARIANTS, variant)} 没有可拟合的对局 has no games to fit.")
    st.stop()

n = res["games"]
if res.get("nothing_to_fit"):
    st.info("这些对局都带着自己的规则 every stored game carries its own `rules` object and is judged by it: there is no "
            "ruleset to find — below, how the games fare under their own rules (the server faults still stand). "
            "“不看记录自带的 rules 对象” fits them as if they carried none.")
m = st.columns(4)
m[0].metric("拟合对局 games fitted", f"{n:,}", help=f"最近 {n:,} 局，共 {total:,} 局 the latest {n:,} of {total:,}")
m[1].metric("默认规则下有效 valid, defaults", f"{res['valid_default']:,} / {n:,}",
            help="每个选项取默认值时有效的对局 valid games with every option at its default")
m[2].metric("拟合规则下有效 valid, found", f"{res['valid_found']:,} / {n:,}",
            help="按找到的规则有效的对局 valid games under the ruleset found",
            delta=f"{res['valid_found'] - res['valid_default']:+,}")
m[3].metric("仍无效 still invalid", f"{n - res['valid_found']:,}")
notes = [f"按 {res['evaluations']} 套规则重放 replayed under {res['evaluations']} rulesets in {res['seconds']:.1f} s"]
if res["own_rules"]:
    notes.append(f"{res['own_rules']:,} 局自带 rules 对象，按它裁定 games carry their own `rules` object and are "
                 "judged by it")
if aside:
    notes.append("记录自带的 rules 对象已放在一边 the records' own `rules` set aside (`paipu fit --without-rules`)")
st.caption(" · ".join(notes))


def _widths(px: dict[str, int]) -> dict[str, Any]:
    """Column widths in pixels: the tables fit the page at 1,400 px (a long cell is cut, shown whole on hover)."""
    return {k: st.column_config.Column(width=w) for k, w in px.items()}


def _values(by_value: dict[str, int]) -> str:
    return " · ".join(f"{v}: {k:,}" for v, k in by_value.items())


def _ruleset_and_evidence(res: dict[str, Any]) -> None:
    """The ruleset found and the evidence per option: nothing to show when every game is judged by
    the `rules` object it carries."""
    st.subheader("找到的规则 The ruleset found")
    if res["rules"]:
        st.code(f"--rules {res['rules_text']}", language=None)
        st.code(json.dumps(res["rules"], ensure_ascii=False), language="json")
        st.caption("没有 `rules` 对象的记录：`paipu validate / ingest / rescore --rules …` 按它裁定；或把这个 rules 对象写进"
                   "记录 — records without a `rules` object: pass the `--rules` above to validate, ingest or rescore them "
                   "under it, or write the `rules` object into the records.")
    else:
        st.success("默认规则 The defaults: 每个选项取默认值时有效的对局最多 the most games replay valid with every option "
                   "at its default (no `--rules`).")

    st.subheader("各选项的证据 Evidence per option")
    opts = res["options"]
    st.dataframe(pl.DataFrame([{
        "选项 option": labels.option(o["name"]), "类别 kind": KINDS.get(o["kind"], o["kind"]),
        "找到的值 found": cf.show(o["value"]), "默认 default": cf.show(o["default"]),
        "状态 status": STATUS.get(o["status"], o["status"]),
        "各值的有效局 valid by value": _values(o["valid_by_value"]),
        "证据 evidence": f"{o['evidence']:+,}" if cf.show(o["value"]) != cf.show(o["default"]) else "",
    } for o in opts]), hide_index=True, column_config=_widths({
        "选项 option": 155, "类别 kind": 90, "找到的值 found": 105, "默认 default": 100, "状态 status": 150,
        "各值的有效局 valid by value": 210, "证据 evidence": 90}))
    st.caption("各值的有效局：该选项取这个值、其他选项取找到的值时的有效局数 — valid games with the option at each value, "
               "the others as found. 已确定 determined: 其他任何值都让有效局更少 every other value makes fewer games valid; "
               "未确定 undetermined: 另有一个值同样多 another value keeps as many (the games do not tell them apart); "
               "证据 evidence: 找到的值比默认值多出的有效局 games valid with the value found and not with the default.")
    und = [o["name"] for o in opts if o["status"] == "undetermined"]
    if und:
        st.caption("未确定 undetermined（没有对局能区分它们的取值 — no game tells their values apart): "
                   + ", ".join(f"`{x}`" for x in und))
    for name, values in res.get("tied", {}).items():
        st.caption(f"并列，未写入 --rules tied, left out of --rules: `{name}` = " + " / ".join(f"`{v}`" for v in values)
                   + "（各值下有效对局一样多 as many games valid with each: pick by what you know of the server）")


if not res.get("nothing_to_fit"):
    _ruleset_and_evidence(res)


def _verdict(fc: dict[str, Any]) -> str:
    if fc["suspected_server_fault"]:
        return "疑似服务器错误 suspected server fault"
    return ", ".join(_change(c) for c in fc["option_changes"])


def _change(c: dict[str, Any]) -> str:
    return f"{c['value']} ({c['further']} further, {c['valid']} valid)"


st.subheader("仍无效的对局 Games still invalid, by first error")
faults = res["faults"]
if not faults:
    st.success("拟合规则下每局都有效 Every game replays valid under the ruleset found.")
    st.stop()
suspected = sum(fc["games"] for fc in faults if fc["suspected_server_fault"])
st.caption(f"{n - res['valid_found']:,} 局按首个错误分为 {len(faults)} 类 invalid games in {len(faults)} classes by first "
           f"error; {suspected:,} 局疑似服务器错误 games in classes no single option value changes (suspected server "
           "faults: the server broke the rule named, under every reading the engine knows).")
st.dataframe(pl.DataFrame([{
    "局 games": fc["games"], "错误 code": labels.error_label(fc["code"]), "规则 rule": fc["rule"],
    "动作 · 字段 act · field": " · ".join(x for x in (labels.zh(labels.ACTS, fc["act"]) if fc["act"] else "",
                                                   labels.term(fc["field"], variant) if fc["field"] else "") if x),
    "示例 example": fc["example_game"], "消息 message": fc["example_message"],
    "可改变的选项 changed by": _verdict(fc),
    "审计 audit": ui.url("audit", game=fc["example_game"], step=fc["example_step"]),
} for fc in faults]), hide_index=True, column_config={
    **_widths({"局 games": 60, "错误 code": 160, "规则 rule": 95, "动作 · 字段 act · field": 95, "示例 example": 140,
               "消息 message": 135, "可改变的选项 changed by": 140}),
    "审计 audit": st.column_config.LinkColumn(display_text="审计 audit →", width=75)})

st.markdown("**示例 Examples** (每类一局 one game per class)")
for fc in faults[:SHOWN]:
    what = [f"**{fc['games']:,}** 局 games", labels.error_label(fc["code"]), "规则 rule " + ui.lit(fc["rule"])]
    if fc["act"]:
        what.append("动作 act " + labels.zh(labels.ACTS, fc["act"]))
    if fc["field"]:
        what.append("字段 field " + labels.term(fc["field"], variant))
    with st.container(border=True):
        st.markdown(" · ".join(what))
        if fc["suspected_server_fault"]:
            st.markdown(":red[**疑似服务器错误 suspected server fault**] — 任何单个选项值都不能让这些对局走得更远 no "
                        "single option value gets any of these games further: 服务器违反了 the server broke "
                        + ui.lit(fc["rule"]))
        else:
            st.markdown("可改变它们的选项值 option values that get some of them further: "
                        + ", ".join(ui.lit(_change(x)) for x in fc["option_changes"][:8])
                        + (" …" if len(fc["option_changes"]) > 8 else ""))
        step = fc["example_step"]
        at = (f" 第 {step} 步 step {step}" if step is not None
              else " 结算 settlement" if fc["code"] == "result_mismatch" else "")
        st.caption("示例 e.g. " + ui.lit(fc["example_game"]) + at + ": " + ui.lit(fc["example_message"]))
        ui.link("audit", f"审计示例 Audit the example {ui.lit(fc['example_game'])}{at}", icon=":material/search:",
                game=fc["example_game"], step=step)
if len(faults) > SHOWN:
    st.caption(f"另有 {len(faults) - SHOWN} 类见上表 {len(faults) - SHOWN} more classes in the table above.")
