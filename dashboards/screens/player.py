"""玩家 Player: one player's record in the variant (and seat count) in scope — rates with their
intervals and percentiles, the openskill rating over time, recent form, hand types, 醒, opponents,
biggest wins and losses (modelled on 雀魂牌谱屋 and lichess insights). The sidebar's dates narrow
every figure (the rating is rated over the games in those dates) except the decision review of
their last 20 games of the variant (docs/review.md), computed when asked for: a replay per game.

Deep link: ``/player?player=ID`` (with the sidebar's ``variant``, ``seats``, ``from``, ``to``). The
id is only ever a bound query parameter.
"""

from __future__ import annotations

import altair as alt
import pandas as pd
import polars as pl
import streamlit as st

from dashboards import labels, players, ui

st.title("玩家 Player")
c, f = ui.games_page()
ss = st.session_state


def call(name: str, *args):
    return ui.call(c.path, c.layout, name, *args)


player = ui.qp("player")
if ss.get("_player_qp") != player:  # keep the box showing the URL's player (deep links, picks)
    ss["player_box"] = player
    ss["_player_qp"] = player


def _go(pid: str) -> None:
    pid = pid.strip()[:128]
    if pid:
        st.query_params["player"] = pid
    else:
        st.query_params.pop("player", None)


st.text_input("玩家编号 Player id", key="player_box", max_chars=128, placeholder="例如 e.g. p001",
              on_change=lambda: _go(ss.get("player_box") or ""))
top = call("players.find_players", f, "", 60)
if top.height:
    st.selectbox("或选择对局最多的玩家 Or pick one of the most active players", ["", *top["player_id"].to_list()],
                 key="player_pick", format_func=lambda p: "— 选择 pick —" if not p else p,
                 on_change=lambda: _go(ss.get("player_pick") or ""))
st.caption("侧栏可选玩法、人数、规则集和日期 Pick the variant, seat count, rulesets and dates in the sidebar.")
if not player:
    st.info("输入或选择一位玩家 Enter or pick a player.")
    st.stop()

s = call("players.player_summary", f, player, players.MIN_RATE_GAMES)
if s is None:
    st.warning("没有这位玩家的对局 No game of this player in the selected scope: " + ui.lit(player))
    elsewhere = call("players.player_variants", player)
    for r in elsewhere.iter_rows(named=True):
        ui.link("player", f"{labels.name(labels.VARIANTS, r['variant'])} ({r['variant']}) · {r['games']:,} 局 games",
                icon=":material/swap_horiz:", player=player, variant=r["variant"])
    like = call("players.find_players", f, player, 10)
    if like.height:
        st.caption("相近的编号 Similar ids:")
        for pid in like["player_id"].to_list():
            ui.link("player", ui.lit(pid), icon=":material/person:", player=pid)
    st.stop()

st.subheader(":material/person: " + ui.lit(player))
variant = f.variants[0] if f.variants else None
elsewhere = call("players.player_variants", player)
if elsewhere.height > 1:  # every variant they sat in, each a link (figures of two variants never mix)
    st.caption("玩过的玩法 Variants played (each one its own figures):")
    cols = st.columns(min(elsewhere.height, 4))
    for i, r in enumerate(elsewhere.iter_rows(named=True)):
        here = r["variant"] == variant
        with cols[i % len(cols)]:
            ui.link("player", f"{labels.name(labels.VARIANTS, r['variant'])} · {r['games']:,} 局" + (" ✓" if here else ""),
                    icon=":material/swap_horiz:", variant=r["variant"], player=player)

m = st.columns(4)
m[0].metric("对局 games", f"{s['games']:,}")
m[1].metric("胡 wins", f"{s['wins']:,}")
m[2].metric("放炮 dealt in", f"{s['dianpao']:,}")
m[3].metric("总得分 net score", f"{s['net']:+,}")

peers = f"百分位 percentile ({s['peers']} players ≥ {players.MIN_RATE_GAMES} games)"
rows = [
    ("胡率 win rate", ui.fmt(s["win_rate"]), ui.ci(s["win_ci"]), ui.fmt(s["all_win_rate"]),
     ui.percentile(s["win_rate_pct"])),
    ("自摸率 self-drawn share of wins", ui.fmt(s["zimo_rate"]), ui.ci(s["zimo_ci"]), ui.fmt(s["all_zimo_rate"]),
     ui.percentile(s["zimo_rate_pct"])),
    ("放炮率 deal-in rate", ui.fmt(s["dianpao_rate"]), ui.ci(s["dianpao_ci"]), ui.fmt(s["all_dianpao_rate"]),
     ui.percentile(s["dianpao_rate_pct"])),
    ("平均得分 mean score per game", ui.fmt(s["mean_score"], "mean"), ui.ci(s["score_ci"], "mean"),
     ui.fmt(s["all_mean_score"], "mean"), ui.percentile(s["mean_score_pct"])),
    ("平均分 mean units of a win", ui.fmt(s["mean_units"], "mean"), ui.ci(s["units_ci"], "mean"),
     ui.fmt(s["all_mean_units"], "mean"), ui.percentile(s["mean_units_pct"])),
]
# a static table: five rows read at a glance, and it wraps instead of scrolling on a phone
st.table(pd.DataFrame(rows, columns=["指标 figure", "值 value", "95% 区间 interval", "全体 variant mean", peers])
         .set_index("指标 figure"))
if s["games"] < players.MIN_RATE_GAMES:
    st.caption(f":material/info: 样本还小 A small sample: {s['games']} 局 games — 区间很宽 the intervals are wide "
               f"(the true win rate could be anywhere from {ui.fmt(s['win_ci'].lo)} to {ui.fmt(s['win_ci'].hi)}) and "
               "narrow as games add up: read each figure against the variant mean through its interval. "
               f"百分位只比较 ≥ {players.MIN_RATE_GAMES} 局的玩家 Percentiles compare players with at least "
               f"{players.MIN_RATE_GAMES} games, so none is given yet.")
else:
    st.caption("95% 区间 intervals (率 rates: Wilson; 均值 means: normal); 全体 variant mean = every seat of this "
               "variant in scope.")
summary_extra = st.container()  # room under the summary for further per-player figures

# --- the decision review of their last games (docs/review.md): a review per game, so on request ---
REVIEWED = 20
with summary_extra:
    asked = f"_player_review::{player}::{variant}"
    st.markdown("**决策复盘 Decision review**")
    st.caption(f"这位玩家最近 {REVIEWED} 局（本玩法的有效对局）逐个决策与期望值机器人比较 — the player's last {REVIEWED} "
               "valid games of this variant (tuning experiments left out, whatever the sidebar's dates), each replayed "
               "at their seat beside the expected-value bot: per game the share of decisions where they chose as the "
               "bot and the W they gave up (the bot's value of a hand, in the game's units). It measures the distance "
               "to one simple bot, not to good play: only ready hands have a value, discards are not weighed for "
               "danger, a claim is judged one step ahead (the limits: docs/review.md).")
    if not ss.get(asked):
        st.button(f"复盘最近 {REVIEWED} 局 Review the last {REVIEWED} games", key="player_review",
                  icon=":material/psychology:", on_click=lambda: ss.__setitem__(asked, True))
    else:
        from dashboards import review as dr

        dr.render_player_reviews(dr.player_reviews(c.path, dr.snapshot(c), player, REVIEWED, variant), variant)

# --- rating (openskill Plackett–Luce, per variant, over time) ---
board = call("players.ratings", f)
mine = board.filter(pl.col("player_id") == player)
if mine.height:
    st.subheader("评分 Rating (openskill)")
    me = mine.row(0, named=True)
    k = st.columns(3)
    k[0].metric("评分 rating μ − 3σ", f"{me['rating']:.1f}", help="openskill Plackett–Luce: 每局按结算得分排名 every won "
                "game ranks its seats by score; μ − 3σ is the conservative figure (0 for a newcomer)")
    lb_min = ui.qp_int("min", players.LEADERBOARD_MIN, 1, 1_000_000)
    rk = call("players.rank", f, player, lb_min)
    k[1].metric("排名 rank", f"#{rk['rank']} / {rk['of']}" if rk["rank"] else "未上榜 unranked",
                help=f"排行榜上的位置 the player's place on the Leaderboard: by rating, among the {rk['of']} players "
                     f"with at least {lb_min} games in scope" + ("" if rk["rank"] else
                     f" — {s['games']} of the {lb_min} games needed to be ranked"))
    k[2].metric("μ ± σ", f"{me['mu']:.1f} ± {me['sigma']:.1f}", help=f"{me['rated']} 局计分 rated games")
    hist = call("players.rating_history", f, player)
    if hist.height > 1:
        long = pl.concat([hist.select("n", "started_at", "game_id", pl.lit("μ − 3σ 评分 rating").alias("line"),
                                      pl.col("rating").alias("value")),
                          hist.select("n", "started_at", "game_id", pl.lit("μ 估计 estimate").alias("line"),
                                      pl.col("mu").alias("value"))])
        ui.chart(alt.Chart(long).mark_line(point=True).encode(
            x=alt.X("started_at:T", title="开始 started (UTC)", axis=alt.Axis(labelAngle=0)),
            y=alt.Y("value:Q", title=None), color=alt.Color("line:N", title=None, legend=alt.Legend(orient="top")),
            tooltip=[alt.Tooltip("game_id:N", title="对局 game"), alt.Tooltip("started_at:T", title="开始 started"),
                     alt.Tooltip("line:N", title=" "), alt.Tooltip("value:Q", format=".1f")]).properties(height=240))
        st.caption("每一点是该玩家的一局（有人胡牌的局）— one point per game of theirs that someone won; 荒庄 is not rated.")

# --- where they played ---
where = call("players.player_rulesets", f, player)
if where.height > 1:
    with st.expander(f"玩法与规则集 Variants and rulesets ({where.height})"):
        st.dataframe(where.with_columns(
            pl.col("variant").map_elements(lambda v: labels.zh(labels.VARIANTS, v), return_dtype=pl.String)),
            hide_index=True)

# --- recent form ---
recent = call("players.recent_games", f, player, 100)
if recent.height:
    st.subheader(f"近期走势 Recent form (last {recent.height} games)")
    form = recent.with_columns(
        pl.col("cumulative").cast(pl.Float64),
        pl.col("game_id").map_elements(lambda g: ui.url("audit", game=g), return_dtype=pl.String).alias("href"),
        pl.when(pl.col("is_winner")).then(pl.lit("胡 win")).when(pl.col("dianpao")).then(pl.lit("放炮 dealt in"))
        .otherwise(pl.lit("其他 other")).alias("result"))
    x = alt.X("n:Q", title="对局 game (oldest → newest)", axis=alt.Axis(labelAngle=0, tickMinStep=1))
    y = alt.Y("cumulative:Q", title="累计得分 running score",
              axis=alt.Axis(labelAngle=0, titleAngle=0, titleAlign="left", titleAnchor="end", titleY=-8))
    line = alt.Chart(form).mark_line(color="#999").encode(x=x, y=y)
    pts = alt.Chart(form).mark_circle(size=70, cursor="pointer").encode(
        x=x, y=y, href="href:N",
        color=alt.Color("result:N", title=None, legend=alt.Legend(orient="top"),
                        scale=alt.Scale(domain=["胡 win", "放炮 dealt in", "其他 other"],
                                        range=["#b23a2e", "#2e5e8c", "#bbb"])),
        tooltip=[alt.Tooltip("game_id:N", title="对局 game"), alt.Tooltip("score:Q", title="得分 score"),
                 alt.Tooltip("started_at:T", title="开始 started"), alt.Tooltip("win_kind:N", title="胡法 win kind")])
    ui.chart((line + pts).properties(height=260))
    st.caption("点击一点打开该局的审计 Click a point to open that game in the audit page.")
    st.subheader("最近对局 Recent games")
    last = recent.reverse().head(20)
    st.dataframe(last.with_columns(
        pl.col("started_at").dt.convert_time_zone("UTC").dt.strftime("%Y-%m-%d %H:%M").alias("date"),
        pl.struct("table_id", "variant").map_elements(
            lambda r: ui.url("session", variant=r["variant"], table=r["table_id"]), return_dtype=pl.String)
        .alias("table"),
        pl.when(pl.col("outcome") == "draw").then(pl.lit("荒庄 draw"))
        .when(pl.col("is_winner")).then(pl.lit("胡 win · ") + pl.col("win_kind").replace_strict(
            labels.WIN_KINDS, default=pl.col("win_kind"), return_dtype=pl.String).fill_null(""))
        .when(pl.col("dianpao")).then(pl.lit("放炮 dealt in")).otherwise(pl.lit("输 lost")).alias("result"),
        pl.col("opponents").list.join(", ").alias("opp"),
        pl.col("game_id").map_elements(lambda g: ui.url("audit", game=g), return_dtype=pl.String).alias("link"),
    ).select(pl.col("date").alias("日期 date (UTC)"), pl.col("table").alias("牌桌 table"),
             pl.col("round").alias("局 round"), pl.col("seat").alias("座位 seat"), pl.col("result").alias("结果 result"),
             pl.col("score").alias("得分 score"), pl.col("opp").alias("对手 opponents"), pl.col("link").alias("对局 game")),
        hide_index=True, column_config={
            "牌桌 table": st.column_config.LinkColumn(display_text=r"table=(.*)$"),
            "对局 game": st.column_config.LinkColumn(display_text=r"game=(.*)$", pinned=True),
            "局 round": st.column_config.NumberColumn(width=60), "座位 seat": st.column_config.NumberColumn(width=60)})
    st.caption("对局 opens that game in the audit page; 牌桌 opens the table's whole session, round by round.")

# --- hand types and 醒 ---
ht = call("players.hand_types", f, player)
if ht.height:
    st.subheader("牌型 Hand types of their wins")
    ht = ht.with_columns(
        pl.col("hand_type").map_elements(lambda t: "平胡 (plain)" if t == "plain" else labels.zh(labels.HAND_TYPES, t),
                                         return_dtype=pl.String).alias("label"),
        pl.format("{}%  ({})", (pl.col("share") * 100).round(1), pl.col("n")).alias("text"))
    ui.chart(ui.hbar(ht, "label", "share", cat_title="牌型 hand type", val_title="占其胡牌 share of their wins",
                     fmt=".0%", text="text"))

xg = call("players.xing", f, player)
mine = xg.filter(pl.col("who") == "player")
if mine.height and mine["with_xing"][0]:
    st.subheader("醒 Xing")
    allr = xg.filter(pl.col("who") == "all").row(0, named=True)
    me = mine.row(0, named=True)
    k = st.columns(2)
    k[0].metric("每胡中醒 xing per win", ui.fmt(me["mean"], "mean"),
                delta=None if allr["mean"] is None else f"{me['mean'] - allr['mean']:+.2f} vs all",
                delta_color="off")
    k[1].metric("中醒率 wins with 醒 ≥ 1", ui.fmt(me["hit_rate"]),
                delta=None if allr["hit_rate"] is None else f"{(me['hit_rate'] - allr['hit_rate']) * 100:+.1f} pp vs all",
                delta_color="off")
    xc = call("players.xing_counts", f, player)
    if xc.height:
        ui.chart(ui.vbar(xc, "value", "n", x_title="醒数 xing matched", y_title="胡牌局 wins"))

# --- opponents ---
opp = call("players.opponents", f, player, 10)
if opp.height:
    st.subheader("常遇对手 Most frequent opponents")
    st.dataframe(
        opp.with_columns(
            pl.col("opponent").map_elements(lambda p: ui.player_url(p, variant), return_dtype=pl.String)
            .alias("玩家 player"),
            pl.col("opponent").map_elements(lambda p: ui.url("audit", player=player, **{"with": p}),
                                            return_dtype=pl.String).alias("同桌对局 games together"),
        ).select("玩家 player", pl.col("games").alias("同桌 games"), pl.col("my_wins").alias("我胡 my wins"),
                 pl.col("their_wins").alias("对方胡 theirs"), pl.col("my_net").alias("我的得分 my net"),
                 pl.col("i_fed").alias("我放炮 I fed"), pl.col("they_fed").alias("对方放炮 they fed"),
                 "同桌对局 games together"),
        hide_index=True,
        column_config={
            "玩家 player": st.column_config.LinkColumn(display_text=r"player=(.*)$"),
            "同桌对局 games together": st.column_config.LinkColumn(display_text="搜索 search →"),
        })

# --- biggest wins and losses ---
ext = call("players.extremes", f, player, 5)
if ext.height:
    st.subheader("最大胜负 Biggest wins and losses")
    cols = st.columns(2)
    for col, kind, title in ((cols[0], "win", "赢 wins"), (cols[1], "loss", "输 losses")):
        with col:
            st.markdown(f"**{title}**")
            part = ext.filter(pl.col("kind") == kind)
            if not part.height:
                st.caption("—")
            for r in part.iter_rows(named=True):
                ui.link("audit", f"{r['score']:+d} · {ui.lit(r['game_id'])}", icon=":material/search:", game=r["game_id"])
