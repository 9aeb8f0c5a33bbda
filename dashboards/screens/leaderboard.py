"""排行榜 Leaderboard: players with enough games in the variant (and seat count, rulesets, dates) in
scope, ranked by their openskill rating by default, sortable, each linked to their page.

Deep link: ``/leaderboard?min=N&sort=KEY&dir=asc|desc`` (KEY one of ``dashboards.players.SORTS``),
with the sidebar's ``variant``, ``seats``, ``from``, ``to``.
"""

from __future__ import annotations

import polars as pl
import streamlit as st

from dashboards import players, ui

st.title("排行榜 Leaderboard")
c, f = ui.games_page()
ss = st.session_state

want_min = ui.qp_int("min", players.LEADERBOARD_MIN, 1, 1_000_000)
if ss.get("_lb_min_qp") != want_min:
    ss["lb_min"] = want_min
    ss["_lb_min_qp"] = want_min


def _sync_min() -> None:
    st.query_params["min"] = str(ss["lb_min"])
    ss["_lb_min_qp"] = ss["lb_min"]


cols = st.columns([1, 2, 1])
with cols[0]:
    min_games = st.number_input("最少对局 min games", min_value=1, max_value=1_000_000, step=50, key="lb_min",
                                on_change=_sync_min,
                                help="少于此局数的玩家不上榜：局数少时胡率的区间太宽 — fewer games give intervals too wide to rank")
with cols[1]:
    sort = ui.synced_select("排序 sort by", list(players.SORTS), "sort", key="lb_sort",
                            format_func=players.SORTS.get, default="rating")
with cols[2]:
    direction = ui.synced_select("顺序 order", ["desc", "asc"], "dir", key="lb_dir",
                                 format_func={"desc": "高→低 high first", "asc": "低→高 low first"}.get)

board = ui.call(c.path, c.layout, "players.leaderboard", f, int(min_games), sort, direction == "desc", 500)
if not board.height:
    top = ui.call(c.path, c.layout, "players.find_players", f, "", 1)
    most = int(top["games"][0]) if top.height else 0
    st.info(f"没有玩家达到 {int(min_games)} 局 No player has {int(min_games)} games in scope yet "
            f"(the most active has {most}). 降低门槛 Lower the minimum to see more.")
    st.stop()
st.caption(f"{board.height} 位玩家 players · 评分 = openskill Plackett–Luce 的 μ − 3σ（每局按结算得分排名，同一玩法内）— "
           "rating = openskill's conservative μ − 3σ, each won game ranking its seats by score, within this variant "
           "(# by rating is the rank each player's page shows); "
           "胡率区间为 Wilson 95%; “胡率下限” ranks by the interval's lower bound so a short lucky run does not top "
           "the board. 点击表头可再排序 click a column header to re-sort.")
view = board.with_columns(
    pl.col("player_id").map_elements(  # the player page ranks on this minimum too: the same "#"
        lambda p: ui.player_url(p, f.variants[0] if f.variants else None,
                                min=None if int(min_games) == players.LEADERBOARD_MIN else int(min_games)),
        return_dtype=pl.String).alias("link"),
    pl.format("{}% [{}, {}]", (pl.col("win_rate") * 100).round(1), (pl.col("win_lo") * 100).round(1),
              (pl.col("win_hi") * 100).round(1)).alias("win"),
    (pl.col("zimo_rate") * 100).round(1), (pl.col("dianpao_rate") * 100).round(1),
    pl.col("mean_score").round(2), pl.col("rating").round(1), pl.col("sigma").round(1),
).select(
    pl.col("rank").alias("#"), pl.col("link").alias("玩家 player"), pl.col("rating").alias("评分 rating"),
    pl.col("sigma").alias("σ"), pl.col("games").alias("局 games"), pl.col("win").alias("胡率 win % [95%]"),
    pl.col("zimo_rate").alias("自摸 %"), pl.col("dianpao_rate").alias("放炮 %"),
    pl.col("mean_score").alias("均分 mean"), pl.col("net").alias("总分 net"))
st.dataframe(view, hide_index=True, column_config={
    "玩家 player": st.column_config.LinkColumn(display_text=r"player=(.*)$", pinned=True),
    "#": st.column_config.NumberColumn(width=40), "σ": st.column_config.NumberColumn(width=50)})
st.caption("自摸 % = 自摸占其胡牌 self-drawn share of their wins; 放炮 % = 放炮局占其对局 deal-in games per game; "
           "均分 = 每局平均得分 mean score a game; 总分 = 净得分 net score.")
