"""排行榜 Leaderboard: players with enough games, sortable, each linked to their page.

Deep link: ``/leaderboard?min=N&sort=KEY&dir=asc|desc`` (KEY one of ``dashboards.players.SORTS``).
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
                            format_func=players.SORTS.get, default="win_lo")
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
st.caption(f"{board.height} 位玩家 players · 胡率区间为 Wilson 95% — win-rate intervals are Wilson 95%; "
           "“胡率下限” ranks by the interval's lower bound so a short lucky run does not top the board. "
           "点击表头可再排序 click a column header to re-sort.")
view = board.with_columns(
    pl.col("player_id").map_elements(lambda p: ui.url("player", player=p), return_dtype=pl.String).alias("link"),
    (pl.col("win_rate") * 100).round(1), (pl.col("win_lo") * 100).round(1), (pl.col("win_hi") * 100).round(1),
    (pl.col("zimo_rate") * 100).round(1), (pl.col("dianpao_rate") * 100).round(1),
    pl.col("mean_score").round(2), pl.col("mean_units").round(2),
).select(
    pl.col("rank").alias("#"), pl.col("link").alias("玩家 player"), pl.col("games").alias("局 games"),
    pl.col("win_rate").alias("胡率 win %"), pl.col("win_lo").alias("下限 lo %"), pl.col("win_hi").alias("上限 hi %"),
    pl.col("zimo_rate").alias("自摸 zimo %"), pl.col("dianpao_rate").alias("放炮 deal-in %"),
    pl.col("mean_score").alias("平均得分 mean score"), pl.col("net").alias("总分 net"),
    pl.col("mean_units").alias("平均分 units/win"))
st.dataframe(view, hide_index=True, column_config={
    "玩家 player": st.column_config.LinkColumn(display_text=r"player=(.*)$", pinned=True)})
