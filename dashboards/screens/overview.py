"""概览 Overview: how many games, how many valid, why lines and games failed, who wins how, and how
it moves over time — for the one variant in scope (sidebar)."""

from __future__ import annotations

import altair as alt
import polars as pl
import streamlit as st

from dashboards import data, labels, ui

st.title("概览 Overview")
c, f = ui.page()


def q(name: str, *args):
    """A cached query of ``dashboards.data`` under the sidebar filters."""
    return ui.query(c.path, c.layout, name, f, *args)


s = q("summary")
runs = data.ingest_runs(c.path, 10)
# one "last ingest" on the page: the newest run's end, else the newest row's ingest time
last = (runs[0]["finished_at"] if runs and runs[0].get("finished_at") else ui.call(c.path, c.layout, "data.last_ingested"))


def _when(t) -> str:
    return "—" if t is None else str(t)[:19].replace("T", " ") + " UTC"


def freshness() -> None:
    """Last ingest, engine versions, counts per partition, rejects by code with examples."""
    from replay import ENGINE_VERSION

    st.subheader("数据新鲜度 Freshness")
    st.markdown(f"- 最近入库 last ingest: **{_when(last)}**"
                + (f" ({runs[0].get('status') or 'done'}; {runs[0].get('read') or 0:,} lines read)" if runs else "")
                + f"\n- 入库次数 ingest runs: **{len(runs)}{'+' if len(runs) == 10 else ''}**"
                + f"\n- 当前引擎 engine version: **{ENGINE_VERSION}**")
    engines = ui.call(c.path, c.layout, "data.engine_versions")
    stale = engines.filter(pl.col("engine_version") != ENGINE_VERSION)
    if stale.height:
        st.warning(f"{int(stale['games'].sum()):,} 局由旧引擎裁定 games were judged by another engine version "
                   f"({', '.join(map(str, stale['engine_version'].to_list()))}); 重新入库可按当前引擎重判 — "
                   "re-ingest them to judge them with today's engine.")
    if runs:
        with st.expander(f"入库记录 Ingest runs ({len(runs)})"):
            st.dataframe(pl.DataFrame(runs).with_columns(pl.all().cast(pl.String)), hide_index=True)
    parts = ui.call(c.path, c.layout, "data.partitions", f)
    if parts.height:
        st.markdown("**分区 Partitions** (规则集 ruleset; 调参实验单独计数 experiment games counted apart)")
        st.dataframe(parts.with_columns(pl.col("last_ingested").cast(pl.String).str.slice(0, 19)).select(
            pl.col("ruleset_id").alias("规则集 ruleset"),
            pl.col("games").alias("对局 games"), pl.col("valid").alias("有效 valid"), pl.col("invalid").alias("无效 invalid"),
            pl.col("experiment_games").alias("实验 experiment"), pl.col("engine_versions").alias("引擎 engine"),
            pl.col("last_ingested").alias("入库 ingested (UTC)")), hide_index=True)
    ex = ui.call(c.path, c.layout, "data.reject_examples", f, 3)
    if ex.height:
        st.markdown("**拒收原因与示例 Rejects by code, with examples** (本玩法及无法识别玩法的行 lines of this "
                    "variant and lines of no known variant)")
        for r in ex.iter_rows(named=True):
            st.markdown(f"- {labels.error_label(r['code'])}: **{r['n']:,}** 行 lines")
            for e in r["examples"] or []:  # each example opens the line as stored
                path, _, line = str(e).rpartition(":")
                ui.link("audit", f"原文 raw line {ui.lit(e)}", icon=":material/description:", file=path, line=line)
            ui.link("audit", f"查看 {r['code']} 的拒收行 View the {r['code']} lines", icon=":material/search:", code=r["code"])


st.caption(f"最近入库 last ingest: {_when(last)} — 详见下方 数据新鲜度 Freshness below")
cols = st.columns(4)
cols[0].metric("对局 games", f"{s['games']:,}")
cols[1].metric("有效 valid", f"{s['valid']:,}")
cols[2].metric("无效 invalid", f"{s['invalid']:,}")
cols[3].metric("拒收 rejected lines", f"{s['rejects']:,}", help="不能解码为对局记录的行 lines that are not records")

rej = q("rejects_by_code")
if s["games"] == 0:
    if s["rejects"]:
        st.warning("没有可解码的对局，只有拒收的行 No decodable games — only rejected lines. "
                   "See the reasons below.")
    else:
        st.info("所选范围内没有对局 No games in the selected scope.")
    if rej.height:
        st.subheader("拒收原因 Rejects by code")
        rej = rej.with_columns(pl.col("code").map_elements(labels.error_label, return_dtype=pl.String).alias("label"))
        ui.chart(ui.hbar(rej, "label", "n", cat_title="原因 code", val_title="行数 lines"))
    freshness()
    st.stop()

variant = f.variants[0] if f.variants else None
pu = labels.points_unit(variant)
scope = "有效对局 valid games" if f.valid_only else "全部对局 all games"
st.caption(f"胡率等统计范围 statistics over: {scope} with a computed outcome — {s['decided']:,} 局 games")
if s["experiment_games"] and not f.experiments:
    st.caption(f"另有 {s['experiment_games']:,} 局调参实验对局未计入（同一牌局打了两遍）— {s['experiment_games']:,} "
               "tuning-experiment games are left out (the same deals played twice); see 调规则 Rule tuning, or "
               "switch on 包含调参实验 in the sidebar.")

role = q("win_rate_by_role")
rates = {r["is_dealer"]: r["rate"] for r in role.iter_rows(named=True)}
m = st.columns(3)
m[0].metric("庄家胡率 dealer win rate", labels.pct(rates.get(True)))
m[1].metric("闲家胡率 non-dealer win rate", labels.pct(rates.get(False)), help="每个闲家座位的胡率 per non-dealer seat")
m[2].metric("荒庄率 draw rate", labels.pct(s["draw_rate"]))
m = st.columns(3)
m[0].metric("胡牌局 wins", f"{s['wins']:,}")
m[1].metric(f"平均{pu} mean {pu}", labels.num(s["mean_points"]), help=f"胡牌时的{pu}数 {pu} of the winning hand")
if s["mean_tuo"] is not None:
    m[2].metric("平均舵 mean tuo", labels.num(s["mean_tuo"]), help="舵 (桂林称子) of the winning hand")
elif not labels.units_are_points(variant):  # 沅江: the units are the mean 息 just shown
    uu = labels.units_unit(variant)
    m[2].metric(f"平均{uu} mean units", labels.num(s["mean_units"]), help=f"每份输家付的{uu} one losing share")

# --- over time ---
st.subheader("走势 Over time")
grain = ui.synced_select("按 per", list(data.GRAINS), "grain", key="ov_grain", format_func=data.GRAINS.get,
                         default="week")
tl = q("timeline", grain)
if tl.height:
    # one band per period, labelled with its start (a time axis ticks on its own calendar: its labels
    # drift off the weeks and repeat a month, and its bars are hairlines)
    # every period from the first to the last, a period without games at 0 (a band axis shows no gap)
    every = pl.date_range(tl["period"].min(), tl["period"].max(), {"day": "1d", "week": "1w", "month": "1mo"}[grain],
                          eager=True).alias("period").to_frame()
    tl = every.join(tl, on="period", how="left").with_columns(pl.col("valid", "invalid").fill_null(0))
    tl = tl.with_columns(pl.col("period").dt.strftime("%Y-%m" if grain == "month" else "%Y-%m-%d").alias("label"))
    games_long = pl.concat([tl.select("period", "label", pl.lit("有效 valid").alias("kind"), pl.col("valid").alias("n")),
                            tl.select("period", "label", pl.lit("无效 invalid").alias("kind"), pl.col("invalid").alias("n"))])
    x = alt.X("label:O", title=None, scale=alt.Scale(domain=tl["label"].to_list()),
              axis=alt.Axis(labelAngle=0, labelOverlap="greedy"))
    bars = alt.Chart(games_long).mark_bar().encode(
        x=x, y=alt.Y("n:Q", title="对局 games", stack=True, axis=alt.Axis(titleAngle=0, titleAlign="left",
                                                                        titleAnchor="end", titleY=-8)),
        color=alt.Color("kind:N", title=None, legend=alt.Legend(orient="top"),
                        scale=alt.Scale(domain=["有效 valid", "无效 invalid"], range=["#2e5e8c", "#b23a2e"])),
        tooltip=[alt.Tooltip("period:T", title="起 from"), alt.Tooltip("kind:N", title=" "), alt.Tooltip("n:Q", title="局")])
    ui.chart(bars.properties(height=260))  # the whole chart's height: legend and axis take about 90 px of it
    rate_names = {"dealer_rate": "庄家胡率 dealer win rate", "draw_rate": "荒庄率 draw rate",
                  "zimo_share": "自摸占胡 self-drawn share of wins"}
    long = pl.concat([tl.select("period", "label", "decided", pl.lit(name).alias("rate"), pl.col(col).alias("value"))
                      for col, name in rate_names.items()]).drop_nulls("value")
    lines = alt.Chart(long).mark_line(point=True).encode(
        x=x, y=alt.Y("value:Q", title=None, axis=alt.Axis(format=".0%")),
        color=alt.Color("rate:N", title=None, legend=alt.Legend(orient="top", columns=1, labelLimit=0)),
        tooltip=[alt.Tooltip("period:T", title="起 from"), "rate:N", alt.Tooltip("value:Q", format=".1%"),
                 alt.Tooltip("decided:Q", title="局 games")])
    ui.chart(lines.properties(height=330))  # its legend's three rows take about 100 px
    st.caption(f"每{data.GRAINS[grain].split()[0]}一点；期数少、局数少时波动大 — one point per {grain}; with few games a "
               "period's rate swings widely (hover for its games). 时间按 UTC。")
else:
    st.caption("没有开始时间的记录 No game in scope records when it started.")

if s["decided"] == 0:
    st.info("所选范围内没有算出结果的对局 No game in scope has a computed outcome "
            "(try switching off 只计有效对局 valid games only).")
else:
    st.subheader("各座位胡率 Win rate by seat")
    seat = q("win_rate_by_seat").with_columns(
        (pl.lit("座位 seat ") + pl.col("seat").cast(pl.String)).alias("label"),
        pl.format("{}%  ({}/{})", (pl.col("rate") * 100).round(1), pl.col("wins"), pl.col("games")).alias("text"))
    ui.chart(ui.hbar(seat, "label", "rate", cat_title="座位 seat", val_title="胡率 win rate", fmt=".0%", text="text"))

    st.subheader("庄 vs 闲 Dealer vs non-dealer")
    role = role.with_columns(
        pl.when(pl.col("is_dealer")).then(pl.lit("庄家 dealer")).otherwise(pl.lit("闲家 non-dealer (each seat)")).alias("label"),
        pl.format("{}%  ({}/{})", (pl.col("rate") * 100).round(1), pl.col("wins"), pl.col("seats")).alias("text"))
    ui.chart(ui.hbar(role, "label", "rate", cat_title="身份 role", val_title="胡率 win rate", fmt=".0%", text="text"))

    kinds = q("win_kinds")
    if kinds.height:
        st.subheader("胡牌方式 How wins came")
        kinds = kinds.with_columns(
            pl.col("win_kind").replace_strict(labels.WIN_KINDS, default=pl.col("win_kind")).alias("label"),
            pl.format("{}%  ({})", (pl.col("share") * 100).round(1), pl.col("n")).alias("text"))
        ui.chart(ui.hbar(kinds, "label", "share", cat_title="方式 kind", val_title="占胡牌局 share of wins",
                         fmt=".0%", text="text"))

err = q("errors_by_code")
if err.height:
    st.subheader("无效原因 Invalid games by first error")
    err = err.with_columns(pl.col("error_code").map_elements(labels.error_label, return_dtype=pl.String).alias("label"))
    ui.chart(ui.hbar(err, "label", "n", cat_title="错误 error", val_title="对局 games"))
    st.page_link("screens/audit.py", label="逐步审计无效对局 Audit the invalid games →", icon=":material/search:")
if rej.height:
    st.subheader("拒收原因 Rejects by code")
    rej = rej.with_columns(pl.col("code").map_elements(labels.error_label, return_dtype=pl.String).alias("label"))
    ui.chart(ui.hbar(rej, "label", "n", cat_title="原因 code", val_title="行数 lines"))
freshness()
