"""The decision review on the dashboard (docs/review.md): one seat of one game against the
expected-value bot, and a player's recent games reviewed, for the pages to show.

- :func:`game_review` / :func:`player_reviews`: cached data (``st.cache_data``), keyed on the
  warehouse's snapshot (:func:`snapshot`), so a review is computed once per snapshot;
- :func:`render_review`: the summary and the per-decision table of one review (the decision at
  the step being viewed marked), :func:`at_step`: that decision in one line;
- :func:`player_figure` / :func:`render_player_reviews`: match rate and W lost per game.

Every string from a log (game id, player id, messages) goes through ``ui.lit`` in Markdown; the
tables are ``st.dataframe`` cells (text, never Markdown).
"""

from __future__ import annotations

from typing import Any

import altair as alt
import polars as pl
import streamlit as st

from analytics import names
from analytics import review as ar
from dashboards import data, rules_doc, ui
from replay import variants
from replay.review import Review

MAX_GAMES = 50
"""Games a player figure may review at most (each review replays the game with the bot)."""


def snapshot(c: ui.Ctx) -> int | None:
    """The latest snapshot id of the session's warehouse (None before DuckLake): the key of the
    cached reviews."""
    return ar.latest_snapshot(c.con())


@st.cache_data(max_entries=64, show_spinner="复盘中 reviewing the game…")
def game_review(wh: str, snap: int | None, game_id: str, seat: int) -> Review | None:
    """``seat`` of the stored game ``game_id`` reviewed as the warehouse held it at snapshot
    ``snap`` (None: the layout before DuckLake), or None when it has no such game.

    :raises replay.review.ReviewError: the stored line is not reviewable, or no such seat.
    """
    con = data.connect(wh, snapshot=snap)
    try:
        return ar.stored_review(con, game_id, seat)
    finally:
        con.close()


@st.cache_data(max_entries=32, show_spinner="复盘近期对局 reviewing the player's recent games…")
def player_reviews(wh: str, snap: int | None, player: str, n: int = 20, variant: str | None = None) -> pl.DataFrame:
    """:func:`analytics.review.player_reviews` of ``player``'s last ``n`` games (at most
    :data:`MAX_GAMES`), as the warehouse held them at snapshot ``snap``."""
    con = data.connect(wh, snapshot=snap)
    try:
        return ar.player_reviews(con, player, min(int(n), MAX_GAMES), variant)
    finally:
        con.close()


def _pct(x: float | None) -> str:
    return "—" if x is None else f"{x:.0%}"


def _w(x: float | None) -> str:
    return "—" if x is None else f"{x:.3f}"


def at_step(review: Review, step: int) -> str | None:
    """The seat's decision at ``step`` in one Markdown line (what it played, what the bot prefers,
    the gap in W), or None when ``step`` is not one of its decisions."""
    d = next((d for d in review.decisions if d.step == step), None)
    if d is None:
        return None
    deck = variants.get(review.variant).deck
    unit = names.units_unit(review.variant)
    head = f"**第 {step} 步 step {step}** · 座位 seat {review.seat} 的决策 decision: 打出 played " + ui.lit(
        ar.event_text(d.played, deck))
    if d.match:
        return head + f" — 与机器人相同 as the bot chooses (W {_w(d.played_w)} {unit})"
    return (head + " · 机器人选 the bot prefers " + ui.lit(ar.event_text(d.bot, deck))
            + f" — 差 gap {_w(d.gap)} {unit} (W {_w(d.played_w)} → {_w(d.bot_w)})")


def render_review(review: Review, step: int | None = None) -> None:
    """One review: a sentence, three figures (match rate, W lost, decisions), the costliest
    decisions, then every decision in a table (step, decision, played, the bot's choice, their W,
    the gap), the decision at ``step`` marked ▶."""
    r = review
    lit = ui.lit
    deck = variants.get(r.variant).deck
    unit = names.units_unit(r.variant)
    st.markdown(f"座位 seat {r.seat} {lit(r.player)} · {lit(r.game_id)} · "
                f"{names.VARIANTS.get(r.variant, lit(r.variant))} · 规则集 ruleset {lit(r.ruleset_id)}")
    if r.error is not None:
        e = r.error
        st.warning(f"日志在第 {int(e['step'])} 步违规 the log breaks a rule at step {int(e['step'])}: "
                   f"{lit(e['code'])} · {rules_doc.rule_name(e['rule'], lit)} · {lit(e['message'])} — 复盘止于此 reviewed up to there")
    if not r.decisions:
        st.info("这一座没有可复盘的决策 No decision to review for this seat (a discard among two kinds or more, "
                "an optional claim).")
        return
    cols = st.columns(3)
    cols[0].metric("与机器人相同 same as the bot", _pct(r.match_rate), help=f"{r.matches} / {len(r.decisions)}")
    cols[1].metric(f"W 损失 lost ({unit})", _w(r.ev_lost),
                   help="W of the bot's choice less W of the choice played, summed where the bot's is higher")
    cols[2].metric("决策 decisions", len(r.decisions), help=f"{r.valued} with a ready hand (听) in reach")
    cost = r.costliest()
    if cost:
        st.markdown("**最亏的决策 costliest decisions**\n\n" + "\n".join(
            f"- 第 {d.step} 步 step {d.step}: 打出 played {lit(ar.event_text(d.played, deck))}, "
            f"机器人 the bot {lit(ar.event_text(d.bot, deck))} — 差 gap {_w(d.gap)} {unit}" for d in cost))
    frame = ar.decisions_frame(r, deck)
    frame.insert_column(0, pl.Series(" ", ["▶" if d.step == step else "" for d in r.decisions], pl.String))
    st.dataframe(frame.rename({"step": "步 step", "decision": "决策 decision", "played": "打出 played",
                               "bot": "机器人 ev bot", "w_played": "W played", "w_bot": "W bot", "gap": "差 gap",
                               "match": "同 same"}),
                 hide_index=True, column_config={" ": st.column_config.TextColumn(width=30),
                                                 **{c: st.column_config.NumberColumn(format="%.3f")
                                                    for c in ("W played", "W bot", "差 gap")}})
    st.caption(f"W: the bot's value of the hand a choice leaves — the settlement of its waits ({unit}, as the "
               "seat is paid), weighted by the unseen copies of each winning card; 0 for a hand not ready. "
               "What the bot does not model: docs/review.md.")


def player_figure(frame: pl.DataFrame) -> Any:
    """Match rate (line, 0–100%) over W lost (bars) per reviewed game, oldest first (``frame``:
    :func:`player_reviews`); a click on a game opens its review on the audit page."""
    df = frame.with_row_index("game", offset=1).with_columns(
        pl.col("started_at").cast(pl.String).str.slice(0, 16),
        pl.struct("game_id", "seat").map_elements(lambda r: ui.url("audit", game=r["game_id"], review=r["seat"]),
                                                  return_dtype=pl.String).alias("href"))
    x = alt.X("game:O", title="对局 game (oldest first)", axis=alt.Axis(labelAngle=0))
    tips = [alt.Tooltip("game_id:N", title="对局 game"), alt.Tooltip("started_at:N", title="开始 started"),
            alt.Tooltip("match_rate:Q", title="same as the bot", format=".0%"),
            alt.Tooltip("ev_lost:Q", title="W lost", format=".3f"), alt.Tooltip("decisions:Q", title="decisions")]
    rate = alt.Chart(df).mark_line(point=alt.OverlayMarkDef(cursor="pointer"), color="#2e5e8c").encode(
        x=x, href="href:N", y=alt.Y("match_rate:Q", title="与机器人相同 same as the bot", scale=alt.Scale(domain=[0, 1]),
                     axis=alt.Axis(format="%", titleAngle=0, titleAlign="left", titleAnchor="end", titleY=-8)),
        tooltip=tips).properties(height=180)
    lost = alt.Chart(df).mark_bar(color="#b23a2e", cursor="pointer").encode(
        x=x, href="href:N", y=alt.Y("ev_lost:Q", title="W 损失 lost",
                     axis=alt.Axis(titleAngle=0, titleAlign="left", titleAnchor="end", titleY=-8)),
        tooltip=tips).properties(height=140)
    return alt.vconcat(rate, lost)


def render_player_reviews(frame: pl.DataFrame, variant: str | None = None) -> None:
    """The player figure with a one-line summary over the games (``frame``: :func:`player_reviews`)."""
    if not frame.height:
        st.info("没有可复盘的有效对局 No valid game of this player to review.")
        return
    decisions, matches = int(frame["decisions"].sum()), int(frame["matches"].sum())
    unit = names.units_unit(variant) if variant else "score"
    st.caption(f"近 {frame.height} 局 last {frame.height} games: same as the ev bot at {matches} of {decisions} "
               f"decisions ({_pct(matches / decisions if decisions else None)}), W lost {_w(frame['ev_lost'].sum())} "
               f"{unit} in all; a click on a game opens its review on the audit page — docs/review.md")
    st.altair_chart(player_figure(frame), width="stretch")
