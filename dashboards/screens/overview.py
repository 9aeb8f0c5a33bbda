"""概览 Overview: how many games, how many valid, why lines and games failed, and who wins how."""

from __future__ import annotations

import polars as pl
import streamlit as st

from dashboards import labels, ui

st.title("概览 Overview")
c = ui.ctx()
ui.require_warehouse(c)
f = ui.filters()


def q(name: str, *args):
    """A cached query of ``dashboards.data`` under the sidebar filters."""
    return ui.query(c.path, c.layout, name, f, *args)


s = q("summary")
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
    st.stop()

scope = "有效对局 valid games" if f.valid_only else "全部对局 all games"
st.caption(f"胡率等统计范围 statistics over: {scope} with a computed outcome — {s['decided']:,} 局 games")

role = q("win_rate_by_role")
rates = {r["is_dealer"]: r["rate"] for r in role.iter_rows(named=True)}
m = st.columns(3)
m[0].metric("庄家胡率 dealer win rate", labels.pct(rates.get(True)))
m[1].metric("闲家胡率 non-dealer win rate", labels.pct(rates.get(False)))
m[2].metric("荒庄率 draw rate", labels.pct(s["draw_rate"]))
m = st.columns(3)
m[0].metric("胡牌局 wins", f"{s['wins']:,}")
m[1].metric("平均胡 mean hu", labels.num(s["mean_points"]), help="胡牌时的胡数 hu of the winning hand")
m[2].metric("平均舵 mean tuo", labels.num(s["mean_tuo"]), help="舵 (桂林称子) of the winning hand")

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
        pl.when(pl.col("is_dealer")).then(pl.lit("庄家 dealer")).otherwise(pl.lit("闲家 non-dealer")).alias("label"),
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
    st.page_link("screens/audit.py", label="逐步审计无效对局 Audit the invalid games →", icon="🔍")
if rej.height:
    st.subheader("拒收原因 Rejects by code")
    rej = rej.with_columns(pl.col("code").map_elements(labels.error_label, return_dtype=pl.String).alias("label"))
    ui.chart(ui.hbar(rej, "label", "n", cat_title="原因 code", val_title="行数 lines"))
