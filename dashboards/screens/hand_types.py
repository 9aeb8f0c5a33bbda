"""牌型与醒 Hand types & xing: what the winning hands were, how many 醒 they matched, their 胡 and units."""

from __future__ import annotations

import polars as pl
import streamlit as st

from dashboards import labels, ui

st.title("牌型与醒 Hand types & xing")
c = ui.ctx()
ui.require_warehouse(c)
f = ui.filters()


def q(name: str, *args):
    """A cached query of ``dashboards.data`` under the sidebar filters."""
    return ui.query(c.path, c.layout, name, f, *args)


s = q("summary")
if s["wins"] == 0:
    if s["games"] == 0:
        st.info("所选范围内没有对局 No games in the selected scope"
                + (" — 只有拒收的行 only rejected lines." if s["rejects"] else "."))
    else:
        st.info("所选范围内没有胡牌局 No won games in the selected scope"
                + (" (try switching off 只计有效对局 valid games only)." if f.valid_only else "."))
    st.stop()

st.metric("胡牌局 wins", f"{s['wins']:,}")

st.subheader("牌型 Hand types")
ht = q("hand_type_counts")
if ht.height:
    ht = ht.with_columns(
        pl.col("hand_type").map_elements(lambda t: labels.zh(labels.HAND_TYPES, t), return_dtype=pl.String).alias("label"),
        pl.format("{}%  ({})", (pl.col("share") * 100).round(1), pl.col("n")).alias("text"))
    ui.chart(ui.hbar(ht, "label", "share", cat_title="牌型 hand type", val_title="占胡牌局 share of wins",
                     fmt=".0%", text="text"))
    st.dataframe(ht.select(pl.col("label").alias("牌型 hand type"), pl.col("n").alias("局 wins"),
                           (pl.col("share") * 100).round(1).alias("% of wins")), hide_index=True)
else:
    st.caption("胡牌局没有特殊牌型 No special hand types among the wins.")

st.subheader("醒 Xing count")
xc = q("value_counts", "xing_count")
if xc.height:
    ui.chart(ui.vbar(xc, "value", "n", x_title="醒数 xing matched", y_title="胡牌局 wins"))
else:
    st.caption("没有醒的记录 No xing recorded.")

st.subheader("胡 Hu (points)")
pts = q("value_counts", "points")
if pts.height:
    wide = pts["value"].max() - pts["value"].min() > 30
    ui.chart(ui.vbar(pts, "value", "n", x_title="胡数 hu", y_title="胡牌局 wins", binned=5 if wide else None))
else:
    st.caption("没有胡数 No points recorded.")

st.subheader("舵/分 Units")
un = q("value_counts", "units")
if un.height:
    ui.chart(ui.vbar(un, "value", "n", x_title="每份 units per losing share", y_title="胡牌局 wins"))
else:
    st.caption("没有单位 No units recorded.")
