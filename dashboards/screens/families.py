"""精 · 個子 · 定庄: the figures only some families have — 主精 and 精 per win (花牌 family, 上大人),
個子 and 3- vs 4-player tables (通城個子牌), and 定庄 breaks (沅江鬼胡子)."""

from __future__ import annotations

import polars as pl
import streamlit as st

from dashboards import labels, ui

st.title("精 · 個子 · 定庄 Family figures")
c = ui.ctx()
ui.require_warehouse(c)
f = ui.filters()
if ui.query(c.path, c.layout, "summary", f)["games"] == 0:
    st.info("所选范围内没有对局 No games in the selected scope.")
    st.stop()
ruleset = f.rulesets[0] if len(f.rulesets) == 1 else None  # one ruleset picked in the sidebar narrows the tables

st.subheader("精 Jing (花牌 · 上大人)")
zj = ui.call(c.path, c.layout, "family.zhu_jing", None, ruleset)
if zj.height:
    zj = zj.with_columns(pl.col("variant").map_elements(lambda v: labels.zh(labels.VARIANTS, v), return_dtype=pl.String))
    st.caption("主精: the 精 the winner holds most of; its figures count double (002 §計胡規則).")
    st.dataframe(zj.select(pl.col("variant").alias("玩法 variant"), pl.col("ruleset_id").alias("规则 ruleset"),
                           pl.col("main").alias("主精 main"), pl.col("wins").alias("胡 wins"),
                           (pl.col("share") * 100).round(1).alias("% of wins")), hide_index=True)
    per = ui.call(c.path, c.layout, "family.jing_per_win", None, ruleset)
    st.dataframe(per.select(
        pl.col("variant").alias("玩法 variant"), pl.col("ruleset_id").alias("规则 ruleset"), pl.col("wins").alias("胡 wins"),
        pl.col("mean_jing").round(2).alias("精/胡 jing per win"), pl.col("mean_hua").round(2).alias("花精 flowered"),
        pl.col("mean_su").round(2).alias("素精 plain"), pl.col("mean_hu_from_jing").round(1).alias("胡 from 精"),
        pl.col("mean_hu_rest").round(1).alias("胡 from the rest"), (pl.col("bao_rate") * 100).round(1).alias("承包 bao %"),
        pl.col("dui_per_seat").round(2).alias("對/座 dui per seat")), hide_index=True)
else:
    st.caption("没有花牌或上大人的胡牌局 No 花牌 or 上大人 wins in the warehouse.")

st.subheader("個子 Gezi (通城個子牌)")
gz = ui.call(c.path, c.layout, "family.gezi_summary", ruleset)
if gz.height:
    st.dataframe(gz.select(
        pl.col("n_seats").alias("人数 players"), pl.col("games").alias("局 games"),
        (pl.col("win_rate") * 100).round(1).alias("胡率 win %"), pl.col("mean_gezi").round(2).alias("個子/胡 gezi"),
        pl.col("mean_from_cards").round(2).alias("from cards"), pl.col("mean_from_melds").round(2).alias("from groups"),
        pl.col("mean_hua_cards").round(2).alias("花 cards"), pl.col("mean_units").round(2).alias("分 units"),
        (pl.col("special_share") * 100).round(1).alias("特殊 special %")), hide_index=True)
    dist = ui.call(c.path, c.layout, "family.gezi_distribution", ruleset)
    if dist.height:
        ui.chart(ui.vbar(dist.group_by("gezi").agg(pl.col("wins").sum()).sort("gezi"), "gezi", "wins",
                         x_title="個子數 gezi", y_title="胡牌局 wins"))
else:
    st.caption("没有通城個子牌的对局 No 通城個子牌 games in the warehouse.")

st.subheader("定庄 Dealer succession (沅江鬼胡子)")
breaks = ui.call(c.path, c.layout, "family.dingzhuang_breaks")
st.caption("003 §4 定庄: first hand any dealer, then the winner deals; after 荒庄 the dealer's 下家.")
if breaks:
    st.warning(f"{len(breaks)} break(s) across tables — leads for a human, not verdicts.")
    for b in breaks[:50]:
        st.text(b)
else:
    st.success("没有断庄 No breaks found (or no 沅江鬼胡子 tables).")
