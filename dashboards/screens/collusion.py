"""合谋线索 Collusion leads (暗中聯合做局): pairs who sit together more than chance, and one-way
score flows (放炮 concentrated on one winner) — ranked leads for a human, never verdicts.
See ``dashboards/collusion.py`` for the tests behind the ranking."""

from __future__ import annotations

import polars as pl
import streamlit as st

from dashboards import collusion, ui

st.title("合谋线索 Collusion leads")
c, f = ui.games_page()
st.warning("这些是供人工复查的线索，不是结论：朋友常一起打牌，高手本来就赢得多 — these are leads for a human to "
           "review, not verdicts: friends play together and strong players win more. 请打开对局逐局核实 "
           "Open the games and check them one by one.", icon=":material/warning:")
st.caption(f"排序按“偶然出现的可能性”从小到大；标为“线索 lead”的在所有配对中控制了 {collusion.FDR:.0%} 的误报率 "
           f"(Benjamini–Hochberg) — ranked by how unlikely chance is; 'lead' marks pairs that stand out among every "
           f"pair looked at, with at most {collusion.FDR:.0%} expected false leads.")


def _p(p: float) -> str:
    return "< 0.0001" if p < 1e-4 else f"{p:.4f}"


def _games_link(a: str, b: str) -> str:
    return ui.url("audit", player=a, **{"with": b})


st.subheader("单向输送 One-way flows (放炮 to one winner)")
flows, n_flow = ui.call(c.path, c.layout, "collusion.one_way_flows", f, 3, 50)
if not flows.height:
    st.caption(f"没有玩家向同一人放炮 3 次以上 No player dealt in to the same winner 3 times or more "
               f"({n_flow} feeder–winner pairs looked at).")
else:
    st.caption(f"{n_flow} 对放炮者–胡家 feeder–winner pairs looked at. “机会” = 放炮时对方在座的局数，按 1/(人数−1) 计期望 — "
               "chances = the feeder's 放炮 games with the winner seated; expected = chances / (seats − 1).")
    for r in flows.head(3).iter_rows(named=True):
        if r["flagged"]:
            st.error(f"{ui.lit(r['feeder'])} 放炮给 fed {ui.lit(r['winner'])} **{r['fed']}** 次 times of "
                     f"{r['chances']} chances (expected {r['expected']:.1f}; reverse {r['reverse']}), "
                     f"paid {r['paid']:,} — p = {_p(r['p_value'])}", icon=":material/flag:")
            ui.link("audit", f"查看两人的同桌对局 Their games together: {ui.lit(r['feeder'])} & {ui.lit(r['winner'])}", icon=":material/search:",
                    player=r["feeder"], **{"with": r["winner"]})
    st.dataframe(flows.with_columns(
        pl.when(pl.col("flagged")).then(pl.lit("线索 lead")).otherwise(pl.lit("")).alias("标记 flag"),
        pl.struct("feeder", "winner").map_elements(lambda r: _games_link(r["feeder"], r["winner"]),
                                                   return_dtype=pl.String).alias("对局 games"),
        pl.col("expected").round(1), (pl.col("share") * 100).round(1),
        pl.col("p_value").map_elements(_p, return_dtype=pl.String),
    ).select("标记 flag", pl.col("feeder").alias("放炮者 feeder"), pl.col("winner").alias("胡家 winner"),
             pl.col("fed").alias("放炮 fed"), pl.col("chances").alias("机会"),
             pl.col("expected").alias("期望"), pl.col("reverse").alias("反向 reverse"),
             pl.col("paid").alias("付出"), pl.col("share").alias("占其放炮 %"),
             pl.col("p_value").alias("p"), "对局 games"),
        hide_index=True, column_config={"对局 games": st.column_config.LinkColumn(display_text="搜索 search →")})
    st.caption("机会 chances · 期望 expected · 付出 units paid · 占其放炮 % share of the feeder's 放炮 · p the chance of "
               "that many or more under fair play.")

st.subheader("同桌过多 Pairs who sit together unusually often")
pairs, n_pairs = ui.call(c.path, c.layout, "collusion.pairs_together", f, 3, 50)
if not pairs.height:
    st.caption(f"没有两人同桌 3 场以上 No pair shared 3 sessions or more ({n_pairs} pairs shared any).")
else:
    st.caption(f"{n_pairs} 对玩家曾同桌 pairs shared a session (a table_id). 期望 = 按各自场次随机入座 — expected "
               "if each player's sessions had been filled at random from everybody's seats.")
    for r in pairs.head(3).iter_rows(named=True):
        if r["flagged"]:
            st.error(f"{ui.lit(r['p1'])} & {ui.lit(r['p2'])}: {r['sessions']} 场同桌 sessions together, "
                     f"expected {r['expected']:.1f} — p = {_p(r['p_value'])}", icon=":material/flag:")
    st.dataframe(pairs.with_columns(
        pl.when(pl.col("flagged")).then(pl.lit("线索 lead")).otherwise(pl.lit("")).alias("标记 flag"),
        pl.struct("p1", "p2").map_elements(lambda r: _games_link(r["p1"], r["p2"]), return_dtype=pl.String).alias("对局 games"),
        pl.col("expected").round(2), pl.col("ratio").round(1),
        pl.col("p_value").map_elements(_p, return_dtype=pl.String),
    ).select("标记 flag", pl.col("p1").alias("玩家 A"), pl.col("p2").alias("玩家 B"), pl.col("sessions").alias("同桌场"),
             pl.col("games").alias("同桌局"), pl.col("expected").alias("期望"),
             pl.col("ratio").alias("倍数 ×"), pl.col("net_p1").alias("A 得分"),
             pl.col("p_value").alias("p"), "对局 games"),
        hide_index=True, column_config={"对局 games": st.column_config.LinkColumn(display_text="搜索 search →")})
    st.caption("同桌场 sessions together · 同桌局 games together · 期望 expected · 倍数 × how many times the "
               "expectation · A 得分 A's net score in those games.")
