"""牌桌 Session: the rounds of one table (``table_id``) in play order, each player's running total
after every round, and every round linked to its audit page — the whole sitting, as a replay viewer
lists the hands of one match.

Deep link: ``/session?table=ID`` (without ``variant``, the sidebar follows the table's own). The id
is only ever a bound query parameter; a session shows every game logged at that table, whatever the
sidebar's rulesets, dates and valid-only switch.
"""

from __future__ import annotations

import altair as alt
import polars as pl
import streamlit as st

from dashboards import labels, ui

st.title("牌桌 Session")
c = ui.ctx()
ui.require_warehouse(c)
if not c.has_games:
    st.info("没有对局 No games yet — only rejected lines.")
    st.stop()
f = ui.filters()
ss = st.session_state


def _pick() -> None:
    if ss.get("session_pick"):
        st.query_params["table"] = ss["session_pick"]


table = ui.synced_text("牌桌编号 Table id", "table", key="session_table", placeholder="例如 e.g. guilin-t0001")
recent = ui.call(c.path, c.layout, "data.tables", f, 60)
if recent.height:
    meta = {r["table_id"]: r for r in recent.iter_rows(named=True)}

    def _fmt(t: str) -> str:
        if not t:
            return "— 选择 pick —"
        r = meta[t]
        when = r["last"].strftime("%Y-%m-%d") if r["last"] is not None else "—"
        return f"{t} · {r['games']} 局 · {when} · {', '.join(r['players'][:4])}"

    st.selectbox(f"或选择最近的牌桌 Or pick a recent table of this variant ({recent.height})", ["", *meta],
                 key="session_pick", format_func=_fmt, on_change=_pick)
if not table:
    st.info("输入或选择一张牌桌 Enter or pick a table.")
    st.stop()

rows = ui.call(c.path, c.layout, "queries.table_session", table)
if not rows.height:
    st.warning("没有这张牌桌的对局 No game at this table: " + ui.lit(table))
    st.stop()

variant = rows["variant"][0]
st.subheader(":material/table_restaurant: " + ui.lit(table))
games = rows.unique("n", keep="first", maintain_order=True)
first, last = games["started_at"].min(), games["started_at"].max()
st.caption(" · ".join([labels.zh(labels.VARIANTS, variant), f"{games.height} 局 rounds",
                       *([f"{first:%Y-%m-%d %H:%M} – {last:%H:%M} (UTC)"] if first is not None else [])])
           + " — 这张牌桌的全部对局，不受侧栏筛选 every game logged at this table, whatever the sidebar's filters")

# players in the order they first sat down (seat order within a round)
order = rows.sort("n", "seat").unique("player_id", keep="first", maintain_order=True)["player_id"].to_list()
final = rows.group_by("player_id").agg(pl.col("total").last(), pl.col("n").count().alias("played"))
final = dict(zip(final["player_id"].to_list(), zip(final["total"].to_list(), final["played"].to_list())))
st.markdown("**总分 Totals after the last round**")
cols = st.columns(min(len(order), 4))
for i, p in enumerate(sorted(order, key=lambda p: (-final[p][0], order.index(p)))):
    total, played = final[p]
    with cols[i % len(cols)]:
        st.metric(ui.lit(p), f"{total:+,}", help=f"{played} 局 rounds played at this table")
        ui.link("player", "玩家页 player page", icon=":material/person:", variant=variant, player=p)


def _result(r: dict, seats: pl.DataFrame) -> str:
    if r["outcome"] is None:
        return f"无效 invalid · {labels.error_label(r['error_code'])}"
    if r["outcome"] == "draw":
        out = "荒庄 draw"
    else:
        who = seats.filter(pl.col("seat") == r["winner"])["player_id"]
        kind = labels.WIN_KINDS.get(r["win_kind"], r["win_kind"] or "")
        out = f"胡 {who[0] if who.len() else '座位 seat ' + str(r['winner'])} · {kind}"
    return out if r["valid"] else out + f" · ⚠ {r['error_code']}"


names = {p: (p if p not in {"局 round", "开始 started", "结果 result", "对局 game"} else p + " ·") for p in order}
table_rows = []
for r in games.iter_rows(named=True):
    seats = rows.filter(pl.col("n") == r["n"])
    row = {"局 round": r["n"], "开始 started": r["started_at"].strftime("%m-%d %H:%M") if r["started_at"] else "—",
           "结果 result": _result(r, seats), **{names[p]: "" for p in order}}
    for s in seats.iter_rows(named=True):
        score = "—" if s["score"] is None else f"{s['score']:+d}"
        row[names[s["player_id"]]] = f"{score} → {s['total']:+d}"
    row["对局 game"] = ui.url("audit", game=r["game_id"])
    table_rows.append(row)
view = pl.DataFrame(table_rows, schema={"局 round": pl.Int64, "开始 started": pl.String, "结果 result": pl.String,
                                        **{names[p]: pl.String for p in order}, "对局 game": pl.String})
st.markdown("**每一局 Round by round** — 每位玩家：本局得分 → 累计 each player: this round's score → running total")
st.dataframe(view, hide_index=True, column_config={
    "对局 game": st.column_config.LinkColumn(display_text=r"game=(.*)$"),
    "局 round": st.column_config.NumberColumn(width=60)})
st.caption("得分是引擎按规则算的结算 Scores are the engine's settlement under the rules, not the server's claim "
           "(a disputed round is marked ⚠; its audit page says what the server counted). 空格 A blank cell: the "
           "player did not sit in that round.")

if games.height > 1:
    ui.chart(alt.Chart(rows.select("n", "player_id", "total")).mark_line(point=True).encode(
        x=alt.X("n:Q", title="局 round", axis=alt.Axis(labelAngle=0, tickMinStep=1)),
        y=alt.Y("total:Q", title="累计 running total", axis=alt.Axis(labelAngle=0, titleAngle=0, titleAlign="left",
                                                                   titleAnchor="end", titleY=-8)),
        color=alt.Color("player_id:N", title=None, sort=order, legend=alt.Legend(orient="top")),
        tooltip=[alt.Tooltip("player_id:N", title="玩家 player"), alt.Tooltip("n:Q", title="局 round"),
                 alt.Tooltip("total:Q", title="累计 total")]).properties(height=260))
