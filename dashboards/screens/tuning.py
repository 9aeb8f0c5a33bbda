"""调规则 Rule tuning: ruleset A against ruleset B, figure by figure, with the difference and its
95% interval.

Three sources: a tuning experiment (``paipu tune``: the same deals played under A and B by the same
bots — paired by deal, so small differences show; the page says which bots played and in how many
deals A and B played differently, so each figure's source column tells a difference of the
settlement alone from one of changed play), two rulesets as played (simulations or real
logs: independent games), or real logs re-settled (``paipu rescore``: the warehouse's logged games
replayed by the engine as logged and under B's scoring-only options — the same actions of the same
players, so every difference comes from the settlement alone). Deep links: ``/tuning?variant=V&exp=ID``,
``/tuning?variant=V&mode=rulesets&a=RULESET&b=RULESET`` and ``/tuning?variant=V&mode=logs``.
"""

from __future__ import annotations

import json

import altair as alt
import polars as pl
import streamlit as st

from analytics import queries as aq
from analytics import rescore
from analytics.answer import tune_answer
from dashboards import labels, ui

st.title("调规则 Rule tuning")
st.caption("同一批牌局按规则 A 与规则 B 对比：每项指标给出差值 A − B 与 95% 区间 — "
           "ruleset A against ruleset B: every figure with the difference A − B and its 95% interval.")
c, f = ui.games_page()


BOT_NAMES = {"ev": "规则感知机器人 rule-aware bot (ev)", "rollout": "规则感知机器人 rule-aware bot (rollout)", "heuristic": "启发式机器人 heuristic bot",
             "random": "随机机器人 random bot"}


def call(name: str, *args):
    return ui.call(c.path, c.layout, name, *args)


arms = call("tune.experiment_arms")
rulesets = call("tune.ruleset_games")
variant = f.variants[0] if f.variants else None
if variant is None or not (set(arms["variant"].to_list()) | set(rulesets["variant"].to_list())):
    st.info("没有可比较的规则集 No rulesets to compare yet: run `paipu tune --variant V --a … --b …` "
            "or ingest games of two rulesets.")
    st.stop()
st.caption("玩法在侧栏选择 the variant is the sidebar's; the comparison uses its own two sides (the sidebar's "
           "ruleset and date filters do not apply here).")
v_arms = arms.filter(pl.col("variant") == variant)
v_rules = rulesets.filter(pl.col("variant") == variant)
experiments = list(dict.fromkeys(v_arms["experiment"].to_list()))
modes = ["exp", "rulesets", "logs"]
mode_names = {"exp": "调参实验 tuning experiment (same deals, paired)",
              "rulesets": "两个规则集的对局 two rulesets as played (independent games)",
              "logs": "真实对局重算 real logs re-settled under B (same games, paired)"}
mode = ui.synced_select("数据来源 source", modes, "mode", key="tune_mode", format_func=mode_names.get,
                        default="exp" if experiments else "rulesets")


def _options(rules_json: str | None) -> dict:
    try:
        out = json.loads(rules_json or "{}")
    except ValueError:
        return {}
    return out if isinstance(out, dict) else {}


def _diff_text(ra: str | None, rb: str | None) -> str:
    a, b = _options(ra), _options(rb)
    keys = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
    return " · ".join(f"{labels.name(labels.OPTIONS, k)} `{k}`: {a.get(k, '—')} → {b.get(k, '—')}"
                      for k in keys) or "（选项相同 same options）"


if mode == "exp":
    if not experiments:
        st.info("这个玩法还没有调参实验 No tuning experiment for this variant yet. Run for example\n\n"
                "`paipu tune --variant guilin --a tuo_step=5 --b tuo_step=3 --games 2000 --seed 1 "
                "--warehouse DIR`")
        st.stop()

    def _exp_label(e: str) -> str:
        rows = {r["arm"]: r for r in v_arms.filter(pl.col("experiment") == e).iter_rows(named=True)}
        n = max((r["games"] for r in rows.values()), default=0)
        return f"{e} · {n} 局 deals"

    exp = ui.synced_select("实验 experiment", experiments, "exp", key="tune_exp", format_func=_exp_label)
    rows = {r["arm"]: r for r in v_arms.filter(pl.col("experiment") == exp).iter_rows(named=True)}
    if not {"a", "b"} <= set(rows):
        st.warning("这个实验缺少一边 This experiment lacks arm A or B (was one file not ingested?).")
        st.stop()
    a = aq.Arm(variant, experiment=exp, arm="a")
    b = aq.Arm(variant, experiment=exp, arm="b")
    rs_a, rs_b = rows["a"]["ruleset_id"], rows["b"]["ruleset_id"]
    diff_text = _diff_text(rows["a"]["rules_json"], rows["b"]["rules_json"])
    played = call("tune.play", exp)
elif mode == "rulesets":
    ids = v_rules["ruleset_id"].to_list()
    if len(ids) < 2:
        st.info("这个玩法的对局只有一个规则集 Games of this variant (outside experiments) use only one ruleset: "
                "nothing to compare. 试试调参实验 Try a tuning experiment.")
        st.stop()
    games_of = {r["ruleset_id"]: r["games"] for r in v_rules.iter_rows(named=True)}
    fmt = lambda r: f"{r} · {games_of.get(r, 0)} 局 games"  # noqa: E731
    cols = st.columns(2)
    with cols[0]:
        rs_a = ui.synced_select("规则 A ruleset A", ids, "a", key="tune_a", format_func=fmt, default=ids[0])
    with cols[1]:
        rs_b = ui.synced_select("规则 B ruleset B", ids, "b", key="tune_b", format_func=fmt, default=ids[1])
    if rs_a == rs_b:
        st.warning("请选择两个不同的规则集 Pick two different rulesets.")
        st.stop()
    a, b = aq.Arm(variant, ruleset=rs_a), aq.Arm(variant, ruleset=rs_b)
    by_id = {r["ruleset_id"]: r["rules_json"] for r in v_rules.iter_rows(named=True)}
    diff_text = _diff_text(by_id.get(rs_a), by_id.get(rs_b))
else:  # real logs re-settled (analytics.rescore): B = scoring-only options over each game's own rules
    from replay import variants as rv

    options = rv.get(variant).options
    scoring = [o for o in options if o.kind == "scoring"]
    play = [o.name for o in options if o.kind != "scoring"]
    if not scoring:
        st.info("这个玩法没有只改结算的选项 Every option of this variant changes play (legality, the wall or a 胡 "
                "minimum): logged games cannot be re-settled under another value. 用调参实验 Use `paipu tune`.")
        st.stop()
    ids = ["*", *v_rules["ruleset_id"].to_list()]
    games_of = {r["ruleset_id"]: r["games"] for r in v_rules.iter_rows(named=True)}
    rs_a = ui.synced_select("规则 A 对局（按记录）ruleset A: logged games of", ids, "a", key="tune_logs_a", default="*",
                            format_func=lambda r: "全部规则集 every ruleset" if r == "*" else
                            f"{r} · {games_of.get(r, 0)} 局 games")
    picked: dict = {}
    cols = st.columns(min(3, len(scoring)))
    for i, o in enumerate(scoring):
        with cols[i % len(cols)]:
            v = st.selectbox(f"B: {labels.name(labels.OPTIONS, o.name)} `{o.name}`", ["—", *o.allowed],
                             key=f"tune_logs_b_{o.name}", help=o.doc,
                             format_func=lambda x: "按记录 as logged" if x == "—" else str(x))
            if v != "—":
                picked[o.name] = v
    limit = st.number_input("最多重算局数 re-settle at most (latest games)", 100, 100_000, 2_000, step=500,
                            key="tune_logs_limit")
    st.caption("改变打法的选项不能重算 play-changing options cannot be re-settled (use `paipu tune`): "
               + ", ".join(f"`{k}`" for k in play))
    if not picked:
        st.info("请为 B 选择至少一个选项 Pick at least one option value for B.")
        st.stop()
    with st.spinner("重算中 re-settling the logged games…"):
        cmp, facts = call("tune.rescore", variant, tuple(sorted(picked.items())), None if rs_a == "*" else rs_a,
                          int(limit))
    rs_b = "A + " + ", ".join(f"{k}={v}" for k, v in sorted(picked.items()))
    diff_text = " · ".join(f"{labels.name(labels.OPTIONS, k)} `{k}`: 按记录 as logged → {v}" for k, v in picked.items())
    st.markdown(f"**A** {ui.lit('as logged' if rs_a == '*' else rs_a)} · **B** {ui.lit(rs_b)}  \n"
                f"规则差别 options that differ: {diff_text}")
    m = st.columns(3)
    m[0].metric("重算对局 games re-settled", f"{facts['paired']:,} / {facts['games']:,}")
    m[1].metric("记录中的牌手 logged players", f"{facts['players']:,}")
    m[2].metric("规则集 logged rulesets", f"{len(facts['rulesets']):,}")
    st.text(facts["answer"])  # paipu rescore's sentence; it names players: text, never markup
    st.caption("谁在打：记录里的牌手本人，没有机器人重打 — who played: the logged players themselves; no bot replays "
               "them. 同样的动作由引擎按 B 重新结算，所以每项差别都只来自结算 — the same actions re-settled by the "
               "engine under B: every difference comes from the settlement alone (来源 source column). Paired by "
               "game: mean of per-game differences ± 1.96·sd/√n.")
    for gid, side, why in facts["refused"]:
        st.warning(f"引擎拒绝 the engine refused {ui.lit(gid)} under {side.upper()}: {ui.lit(why)}")
    paired = True
    if facts["paired"] < aq.TOO_FEW:
        st.warning(f"样本太小，看不出差别 Too few games to tell: {facts['paired']} (need at least {aq.TOO_FEW}).")
    if not cmp.height:
        st.info("没有可重算的有效对局 No valid logged game to re-settle.")
        st.stop()

if mode != "logs":
    st.markdown(f"**A** {ui.lit(rs_a)} · **B** {ui.lit(rs_b)}  \n规则差别 options that differ: {diff_text}")
    sizes = call("tune.arm_sizes", a, b)
    cmp = call("tune.compare", a, b)
    paired = aq.is_paired(a, b)
    m = st.columns(3)
    if paired:
        m[0].metric("成对牌局 paired deals", f"{sizes['pairs']:,}")
    else:
        m[0].metric("A 对局 games", f"{sizes['a']:,}")
    m[1].metric("A 有效 valid / 全部 all", f"{sizes['a']:,} / {sizes['a_all']:,}")
    m[2].metric("B 有效 valid / 全部 all", f"{sizes['b']:,} / {sizes['b_all']:,}")
    if mode == "exp":
        st.text(tune_answer(cmp, sizes["pairs"]).text)  # paipu tune's sentence
    n_min = sizes["pairs"] if paired else min(sizes["a"], sizes["b"])
    if n_min < aq.TOO_FEW:
        st.warning(f"样本太小，看不出差别 Too few games to tell: {n_min} "
                   f"{'paired deals' if paired else 'games on the smaller side'} (need at least {aq.TOO_FEW}; "
                   "a difference of a few points needs hundreds).")
    if mode == "exp":
        who = ", ".join(BOT_NAMES.get(k, k) for k in played["bots"]) or BOT_NAMES["heuristic"]
        st.markdown(f"谁在打 who played: {ui.lit(who)}, at every seat of both arms  \n"
                    f"打法变化 deals played differently under A and B: **{played['changed']:,}** of "
                    f"{played['deals']:,} — " + ("每局动作相同，差别只来自结算 the same actions in every deal: every "
                                                 "difference comes from the settlement alone" if not played["changed"]
                                                 else "差别来自结算和打法 differences come from the settlement and from "
                                                 "changed play (来源 source column)"))
    if paired:
        st.caption("成对比较：同一牌局在 A 与 B 下的差值取平均，区间 = 均值 ± 1.96·sd/√n — paired by deal: the mean of "
                   "per-deal differences ± 1.96·sd/√n. Same deals and bots: a figure the rule does not touch is "
                   "identical in every deal.")
    else:
        st.caption("独立样本：率用 Newcombe 区间，均值用 Welch 区间 — independent games: Newcombe's interval for "
                   "rates, Welch's for means. 不同规则集的对局来自不同的牌局，差别小时需要很多局 — small differences "
                   "need many games.")
    if not cmp.height:
        st.info("两边都没有有效且有结果的对局 Neither side has a valid game with an outcome.")
        st.stop()

def _source(r: dict) -> str | None:
    """Where a figure's difference comes from (None: no such column for this source)."""
    if mode == "logs":  # the same logged actions: nothing but the settlement moved
        return "只来自结算 settlement alone"
    if mode != "exp":
        return None
    if not played["changed"]:  # the same actions everywhere: the caption above says it once
        return None
    if r["diff"] == 0 and r["note"] == "identical":
        return "无差别 none"
    return "结算与打法 settlement and play"  # how many deals: the caption above


VERDICT = {"too_few": "样本太小 too few", "identical": "每局相同 identical",
           "differs": "有差别 differs", "unclear": "看不出 unclear"}
_VERDICT_EXPR = " : ".join(f"datum.label == '{k}' ? '{v}'" for k, v in VERDICT.items()) + " : datum.label"


def _table(df: pl.DataFrame) -> pl.DataFrame:
    """One row per figure: A and B each with its 95% interval, A − B with its interval, the verdict
    (and the spread of each arm where the figure is a mean)."""
    spread = any(k == "mean" for k in df["kind"].to_list())
    rows = []
    for r in df.iter_rows(named=True):
        kind = r["kind"]
        label = labels.hand_type(r["label"]) if r["section"] == "hand_type" else r["label"]
        row = {
            "指标 figure": label, "n": str(r["n_a"]) if paired else f"{r['n_a']} / {r['n_b']}",
            "A (95%)": f"{ui.fmt(r['a'], kind)} {ui.ci((r['a_lo'], r['a_hi']), kind)}",
            "B (95%)": f"{ui.fmt(r['b'], kind)} {ui.ci((r['b_lo'], r['b_hi']), kind)}",
            "A − B (95%)": f"{ui.fmt(r['diff'], kind, signed=True)} {ui.ci((r['lo'], r['hi']), kind, signed=True)}",
            "判断 verdict": VERDICT[r["note"]],
        }
        src = _source(r)
        if src is not None:
            row["来源 source"] = src
        if spread:
            row["sd A / B"] = (f"{ui.fmt(r['sd_a'], 'mean')} / {ui.fmt(r['sd_b'], 'mean')}"
                                   if kind == "mean" else "—")
        rows.append(row)
    return pl.DataFrame(rows)


for section, title in (rescore.SECTIONS if mode == "logs" else aq.SECTIONS).items():
    part = cmp.filter(pl.col("section") == section)
    if not part.height:
        continue
    st.subheader(title)
    if section == "hand_type":
        part = part.head(12)
    st.dataframe(_table(part), hide_index=True, column_config={"n": st.column_config.TextColumn(width=70)})
    if section == "outcome":
        seats = part.filter(pl.col("metric").str.ends_with("_win"))
        long = pl.concat([
            seats.select(pl.col("label"), pl.lit("A").alias("arm"), pl.col("a").alias("rate"),
                         pl.col("a_lo").alias("lo"), pl.col("a_hi").alias("hi")),
            seats.select(pl.col("label"), pl.lit("B").alias("arm"), pl.col("b").alias("rate"),
                         pl.col("b_lo").alias("lo"), pl.col("b_hi").alias("hi"))])
        y = alt.Y("label:N", title=None, sort=None, axis=alt.Axis(labelAngle=0, labelLimit=220))
        off = alt.YOffset("arm:N")
        colour = alt.Color("arm:N", title="规则 ruleset", scale=alt.Scale(range=["#b23a2e", "#2e5e8c"]),
                           legend=alt.Legend(orient="top"))
        bars = alt.Chart(long).mark_bar().encode(
            y=y, yOffset=off, color=colour,
            x=alt.X("rate:Q", title="胡率 win rate (95% interval)", axis=alt.Axis(format=".0%", labelAngle=0)),
            tooltip=["label", "arm", alt.Tooltip("rate:Q", format=".1%"), alt.Tooltip("lo:Q", format=".1%"),
                     alt.Tooltip("hi:Q", format=".1%")])
        err = alt.Chart(long).mark_rule(color="#333").encode(y=y, yOffset=off, x="lo:Q", x2="hi:Q")
        ui.chart((bars + err).properties(height=60 * seats.height + 60))

# the differences of every rate at a glance (percentage points)
rates = cmp.filter(pl.col("kind").is_in(["rate", "share"]) & pl.col("lo").is_not_null())
if rates.height:
    st.subheader("差值一览 Differences at a glance (A − B, pp)")
    rates = rates.with_columns(
        pl.when(pl.col("section") == "hand_type")
        .then(pl.lit("牌型 ") + pl.col("label").map_elements(labels.hand_type, return_dtype=pl.String))
        .otherwise(pl.col("label")).alias("figure"),
        (pl.col("diff") * 100).alias("d"), (pl.col("lo") * 100).alias("l"), (pl.col("hi") * 100).alias("h"))
    # every label drawn (labelOverlap off) on a row tall enough for it: Vega dropped every other one
    y = alt.Y("figure:N", title=None, sort=rates["figure"].to_list(),
              axis=alt.Axis(labelAngle=0, labelLimit=260, labelOverlap=False, labelPadding=4))
    base = alt.Chart(rates.select("figure", "d", "l", "h", "note"))
    zero = alt.Chart(pl.DataFrame({"x": [0.0]})).mark_rule(color="#999", strokeDash=[4, 3]).encode(x="x:Q")
    rule = base.mark_rule(color="#2e5e8c", strokeWidth=2).encode(y=y, x=alt.X("l:Q", title="A − B (pp)"), x2="h:Q")
    dot = base.mark_point(filled=True, size=60).encode(
        y=y, x="d:Q", color=alt.Color("note:N", title="判断 verdict",
                                      scale=alt.Scale(domain=list(VERDICT), range=["#999", "#555", "#b23a2e", "#2e5e8c"]),
                                      legend=alt.Legend(orient="top", labelExpr=_VERDICT_EXPR)),
        tooltip=["figure", alt.Tooltip("d:Q", format="+.2f"), alt.Tooltip("l:Q", format="+.2f"),
                 alt.Tooltip("h:Q", format="+.2f")])
    ui.chart((zero + rule + dot).properties(height=34 * rates.height + 70))
st.caption("区间含 0 时看不出差别；“每局相同”表示每个成对牌局的值都一样 — an interval containing 0 cannot tell the "
           "rulesets apart; 'identical' means every paired deal gave the same value.")
