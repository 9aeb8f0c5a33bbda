"""公平性 Fairness: is the shuffle uniform (card positions, first card, first 醒 card), and how
much is the dealer's seat worth? See ``dashboards/fairness.py`` for the tests."""

from __future__ import annotations

import altair as alt
import polars as pl
import streamlit as st

from dashboards import fairness, labels, ui

st.title("公平性 Fairness")
c, f = ui.games_page()


def call(name: str, *args):
    return ui.call(c.path, c.layout, name, *args)


def _p(p: float) -> str:
    return "< 0.0001" if p < 1e-4 else f"{p:.4f}"


st.caption(f"洗牌检验用每局发的牌（不论对局是否有效）；p < {fairness.ALPHA} 时报警 — the shuffle tests use every "
           f"readable deal (valid or not); a p-value below {fairness.ALPHA} raises a flag. 少于 {fairness.MIN_GAMES} "
           f"局不检验 — fewer than {fairness.MIN_GAMES} games are not tested.")

# --- card positions ---
st.subheader("发牌位置均匀性 Card positions in the dealt decks")
pos = fairness.position_tests(call("fairness.segment_counts", f))
if not pos:
    st.info("所选范围内没有可读的发牌 No readable deal in scope.")
SEGMENTS = {"h0": "庄家手牌 dealer's hand", "h1": "下家手牌 next seat", "h2": "对家手牌 seat +2",
            "h3": "seat +3", "w1": "牌墙 1/4 wall, first quarter", "w2": "牌墙 2/4", "w3": "牌墙 3/4",
            "w4": "牌墙 4/4 wall, last quarter"}
for t in pos:
    head = f"{labels.zh(labels.VARIANTS, t['variant'])} · {ui.lit(t['ruleset_id'])} · {t['n_seats']} 人 seats · {t['games']} 局 games"
    body = f"χ² = {t['stat']:.1f}, df = {t['df']}, p = {_p(t['p_value'])}"
    if t["too_few"]:
        st.info(f"{head}\n\n样本太小 too few games to test ({body}).")
    elif t["flagged"]:
        st.error(f"{head}\n\n洗牌可能不均匀 The shuffle looks non-uniform: {body}. 牌的位置与随机洗牌不符 — cards "
                 "land in some positions far more often than a uniform shuffle would put them. 见下面偏差最大的格子 "
                 "See the largest deviations below.", icon=":material/flag:")
    else:
        st.success(f"{head}\n\n与均匀洗牌相符 Consistent with a uniform shuffle: {body}.")
    if t["unknown"]:
        st.caption(f"{t['unknown']} 张牌不属于该牌组，未计入 cards not of this deck were left out.")
    cells = t["cells"]
    if cells.height and not t["too_few"]:
        cells = cells.with_columns(pl.col("segment").replace_strict(SEGMENTS, default=pl.col("segment")).alias("where"))
        heat = alt.Chart(cells).mark_rect().encode(
            x=alt.X("segment:N", title="位置 segment", axis=alt.Axis(labelAngle=0)),
            y=alt.Y("label:N", title=None, sort=None, axis=alt.Axis(labelAngle=0)),
            color=alt.Color("residual:Q", title="(O−E)/√E", scale=alt.Scale(scheme="redblue", domainMid=0, reverse=True)),
            tooltip=["label", "where", "observed", alt.Tooltip("expected:Q", format=".1f"),
                     alt.Tooltip("residual:Q", format="+.2f")])
        with st.expander("每种牌 × 位置 Card × segment (standardised deviation)", expanded=t["flagged"]):
            ui.chart(heat.properties(height=16 * cells["label"].n_unique() + 40))
            st.caption(" · ".join(f"`{k}` {v}" for k, v in SEGMENTS.items() if k in set(cells["segment"])))
            worst = cells.with_columns(pl.col("residual").abs().alias("abs")).sort("abs", descending=True).head(8)
            st.dataframe(worst.select(pl.col("label").alias("牌 card"), pl.col("where").alias("位置 segment"),
                                      pl.col("observed").alias("实际 observed"),
                                      pl.col("expected").round(1).alias("期望 expected"),
                                      pl.col("residual").round(2).alias("偏差 (O−E)/√E")), hide_index=True)


def _kind_section(title: str, tests: list[dict], what: str, caveat: str | None = None) -> None:
    st.subheader(title)
    if not tests:
        st.caption("没有数据 No data in scope.")
        return
    if caveat:
        st.caption(caveat)
    for t in tests:
        head = f"{labels.zh(labels.VARIANTS, t['variant'])} · {ui.lit(t['ruleset_id'])} · {t['n']} {what}"
        body = f"χ² = {t['stat']:.1f}, df = {t['df']}, p = {_p(t['p_value'])}"
        if t["too_few"]:
            st.info(f"{head}\n\n样本太小 too few to test ({body}).")
        elif t["flagged"]:
            st.error(f"{head}\n\n分布不均匀 Not uniform over the deck: {body}.", icon=":material/flag:")
        else:
            st.success(f"{head}\n\n与牌组组成相符 Consistent with the deck's composition: {body}.")
        cells = t["cells"].with_columns((pl.col("observed") / max(t["n"], 1)).alias("share"),
                                        (pl.col("expected") / max(t["n"], 1)).alias("fair"))
        bars = alt.Chart(cells).mark_bar(color="#2e5e8c").encode(
            x=alt.X("label:N", title=None, sort=None, axis=alt.Axis(labelAngle=0)),
            y=alt.Y("share:Q", title="占比 share", axis=alt.Axis(format=".0%", labelAngle=0, titleAngle=0,
                                                              titleAlign="left", titleAnchor="end", titleY=-8)),
            tooltip=["label", "observed", alt.Tooltip("expected:Q", format=".1f")])
        fair = alt.Chart(cells).mark_tick(color="#b23a2e", thickness=2).encode(x=alt.X("label:N", sort=None), y="fair:Q")
        ui.chart((bars + fair).properties(height=200))


_kind_section("首张牌 First card of the wall", fairness.kind_tests(call("fairness.first_cards", f)), "局 games")
_kind_section("首张醒牌 First 醒 card turned", fairness.kind_tests(call("fairness.xing_first_cards", f)),
              "次翻醒 wins with 醒",
              "参考：即使洗牌均匀，翻醒时已见过的牌也会让分布略有偏离 — for reference: even with a fair shuffle the cards "
              "already seen at a win shift this distribution a little. 红线为牌组比例 red ticks: the deck's proportions.")

# --- dealer advantage ---
st.subheader("庄家优势 Dealer advantage")
adv = call("fairness.dealer_advantage", f)
if not adv.height:
    st.caption("没有算出结果的对局 No decided games in scope.")
else:
    st.dataframe(pl.DataFrame([{
        "规则集 ruleset": r["ruleset_id"], "人数": r["n_seats"], "局 games": r["games"],
        "庄家胡率 [95%]": f"{ui.fmt(r['dealer_rate'])} {ui.ci((r['dealer_lo'], r['dealer_hi']))}",
        "闲家每座 per seat": ui.fmt(r["other_rate"]), "均分 fair": ui.fmt(r["fair"]),
        "庄 − 闲 [95%]": f"{ui.fmt(r['diff'], signed=True)} {ui.ci((r['diff_lo'], r['diff_hi']), signed=True)}",
        "庄家均分 dealer mean": f"{ui.fmt(r['dealer_mean'], 'mean')} {ui.ci((r['mean_lo'], r['mean_hi']), 'mean')}",
    } for r in adv.iter_rows(named=True)]), hide_index=True)
    st.caption("庄家胡率 dealer win rate; 闲家每座 each other seat's win rate; 均分 fair = 1 / 人数; 庄 − 闲 the "
               "difference (Newcombe 95%); 庄家均分 the dealer's mean score a game (95%).")
    st.caption("庄家多摸一张牌，胡率高于均分是规则本身的结果，不是洗牌问题 — the dealer starts with an extra card, so a "
               "win rate above the fair share comes from the rules, not the shuffle.")
