"""牌型与醒 Hand types & xing: what the winning hands were, how many 醒 they matched, their 胡 (息,
個子) and units — for the one variant in scope (sidebar): figures of different variants never mix."""

from __future__ import annotations

import polars as pl
import streamlit as st

from dashboards import labels, ui

st.title("牌型与醒 Hand types & xing")
c, f = ui.page()


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

variant = f.variants[0] if f.variants else None
pu, uu = labels.points_unit(variant), labels.units_unit(variant)
st.metric("胡牌局 wins", f"{s['wins']:,}")

st.subheader("牌型 Hand types")
ht = q("hand_type_counts")
if ht.height:
    ht = ht.sort(["n", "hand_type"], descending=[True, False]).with_columns(
        pl.col("hand_type").map_elements(labels.hand_type, return_dtype=pl.String).alias("label"),
        pl.format("{}%  ({})", (pl.col("share") * 100).round(1), pl.col("n")).alias("text"))
    ui.chart(ui.hbar(ht, "label", "share", cat_title="牌型 hand type", val_title="占胡牌局 share of wins",
                     fmt=".0%", text="text"))
    st.dataframe(ht.select(pl.col("label").alias("牌型 hand type"), pl.col("n").alias("局 wins"),
                           (pl.col("share") * 100).round(1).alias("% of wins")), hide_index=True)
    st.caption("一局可有多个牌型，占比相加可超过 100% — a win may have several hand types, so shares can add up "
               "to more than 100%.")
else:
    st.caption("胡牌局没有特殊牌型 No special hand types among the wins.")

xc = q("value_counts", "xing_count")
if xc.height:
    st.subheader("醒 Xing count")
    ui.chart(ui.vbar(xc, "value", "n", x_title="醒数 xing matched", y_title="胡牌局 wins"))
elif variant in ("guilin", "zipai"):
    st.subheader("醒 Xing count")
    st.caption("没有醒的记录 No xing recorded.")

st.subheader(f"{pu} per win")
pts = q("value_counts", "points")
if pts.height:
    wide = pts["value"].max() - pts["value"].min() > 40
    step = max(1, round((pts["value"].max() - pts["value"].min()) / 30)) if wide else None
    ui.chart(ui.vbar(pts, "value", "n", x_title=f"{pu}数 {pu} of the winning hand", y_title="胡牌局 wins",
                     binned=step))
    if step:
        st.caption(f"每柱 {step} {pu} — each bar spans {step} {pu}.")
else:
    st.caption(f"没有{pu}数 No {pu} recorded.")

st.subheader(f"{uu} Units")
un = q("value_counts", "units")
if un.height:
    ui.chart(ui.vbar(un, "value", "n", x_title=f"每份{uu} {uu} per losing share", y_title="胡牌局 wins"))
else:
    st.caption("没有单位 No units recorded.")
