"""精 · 個子 · 定庄: the figures only some families have — 主精 and 精 per win (花牌 family, 上大人),
個子 (通城個子牌), and 定庄 breaks (沅江鬼胡子) — for the variant in scope (sidebar)."""

from __future__ import annotations

import polars as pl
import streamlit as st

from dashboards import labels, ui

JING = ("sanjing_huapai", "wujing_huapai", "shuangbiegan_huapai", "shangdaren")
OWN = {**{v: "精 jing" for v in JING}, "tongcheng_gezi": "個子 gezi", "yuanjiang_guihuzi": "定庄 dealer succession"}

st.title("精 · 個子 · 定庄 Family figures")
c, f = ui.games_page()
if ui.query(c.path, c.layout, "summary", f)["games"] == 0:
    st.info("所选范围内没有对局 No games in the selected scope.")
    st.stop()
variant = f.variants[0] if f.variants else None
ruleset = f.rulesets[0] if len(f.rulesets) == 1 else None  # one ruleset (or one seat count) narrows the tables
if variant not in OWN:
    st.info(f"{labels.zh(labels.VARIANTS, variant)} 没有这些家族特有的数字 has none of these family figures. "
            "在侧栏选择 Pick in the sidebar: " + "、".join(f"{labels.name(labels.VARIANTS, v)} ({what})"
                                                    for v, what in OWN.items()))
    st.stop()

if variant in JING:
    st.subheader("精 Jing")
    zj = ui.call(c.path, c.layout, "family.zhu_jing", variant, ruleset)
    if zj.height:
        st.caption("主精: the 精 the winner holds most of; its figures count double (002 §計胡規則).")
        st.dataframe(zj.select(pl.col("ruleset_id").alias("规则 ruleset"), pl.col("main").alias("主精 main"),
                               pl.col("wins").alias("胡 wins"), (pl.col("share") * 100).round(1).alias("% of wins")),
                     hide_index=True)
        per = ui.call(c.path, c.layout, "family.jing_per_win", variant, ruleset)
        st.dataframe(per.select(
            pl.col("ruleset_id").alias("规则 ruleset"), pl.col("wins").alias("胡 wins"),
            pl.col("mean_jing").round(2).alias("精/胡"), pl.col("mean_hua").round(2).alias("花精"),
            pl.col("mean_su").round(2).alias("素精"), pl.col("mean_hu_from_jing").round(1).alias("精的胡"),
            pl.col("mean_hu_rest").round(1).alias("其余的胡"), (pl.col("bao_rate") * 100).round(1).alias("承包 %"),
            pl.col("dui_per_seat").round(2).alias("對/座")), hide_index=True)
        st.caption("每胡平均 per win: 精/胡 jing cards, 花精 flowered, 素精 plain, 精的胡 胡 from 精, 其余的胡 胡 from "
                   "the rest; 承包 % wins paid by a 承包 seat (bao); 對/座 對 per seat per game.")
    else:
        st.caption("没有胡牌局 No wins in scope.")

if variant == "tongcheng_gezi":
    st.subheader("個子 Gezi (通城個子牌)")
    gz = ui.call(c.path, c.layout, "family.gezi_summary", ruleset)
    if gz.height:
        st.dataframe(gz.select(
            pl.col("n_seats").alias("人数 players"), pl.col("games").alias("局 games"),
            (pl.col("win_rate") * 100).round(1).alias("有人胡 % games won"), pl.col("mean_gezi").round(2).alias("個子/胡"),
            pl.col("mean_from_cards").round(2).alias("牌的個子"), pl.col("mean_from_melds").round(2).alias("组的個子"),
            pl.col("mean_hua_cards").round(2).alias("花牌数"), pl.col("mean_units").round(2).alias("分 units"),
            (pl.col("special_share") * 100).round(1).alias("特殊 %")), hide_index=True)
        st.caption("“有人胡 % games won” 是有人胡牌的对局占比（不是某人的胡率）— the share of games that someone won, "
                   "not a player's win rate. Per win: 個子/胡 個子, from the cards' own count (牌的個子) and from the "
                   "groups (组的個子), 花 cards held; 特殊 % special hands (一手黑, 一手紅, 十對).")
        dist = ui.call(c.path, c.layout, "family.gezi_distribution", ruleset)
        if dist.height:
            ui.chart(ui.vbar(dist.group_by("gezi").agg(pl.col("wins").sum()).sort("gezi"), "gezi", "wins",
                             x_title="個子數 gezi", y_title="胡牌局 wins"))
    else:
        st.caption("没有通城個子牌的对局 No 通城個子牌 games in scope.")

if variant == "yuanjiang_guihuzi":
    st.subheader("定庄 Dealer succession (沅江鬼胡子)")
    breaks = ui.call(c.path, c.layout, "family.dingzhuang_breaks")
    st.caption("003 §4 定庄: first hand any dealer, then the winner deals; after 荒庄 the dealer's 下家.")
    if breaks:
        st.warning(f"{len(breaks)} break(s) across tables — leads for a human, not verdicts.")
        for b in breaks[:50]:
            st.text(b)
    else:
        st.success("没有断庄 No breaks found.")
