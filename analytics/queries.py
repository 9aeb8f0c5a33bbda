"""The report's figures as polars DataFrames (SQL over the views of ``ingest.views``).

Every function takes the root connection (it opens its own cursor) and optional filters
``variant`` and ``ruleset`` (a ``ruleset_id``), always passed as bound parameters. The warehouse
stores counters; rates are computed here, in SQL, as ``DOUBLE`` in 0..1 (None when the
denominator is 0).

Games of tuning experiments (``paipu tune``, marked by ``x_experiment``) are left out of every
figure but the experiment ones at the end (:func:`compare`): they replay the same deals twice.

Game-play figures count **valid games only**: an invalid game's log broke a rule or its claimed
settlement differs from the engine's, so its play is not trusted; ``overview`` and
``errors_by_code`` show how many were left out. Rejects have no ruleset: they are filtered by
variant only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import duckdb
import polars as pl


def _where(con: duckdb.DuckDBPyConnection, table: str, variant: str | None, ruleset: str | None, *,
           valid: bool = True, use_ruleset: bool = True) -> tuple[str, dict[str, Any]]:
    """A WHERE clause over ``table`` with named placeholders and its parameters (values are never
    formatted in). Games of tuning experiments (``paipu tune``: the same deals played twice) are
    left out of ``games`` and ``seats`` figures."""
    conds, params = ["TRUE"], {}
    if table in ("games", "seats"):
        conds.append(no_experiment(con, table))
    if valid:
        conds.append("valid")
    if variant is not None:
        conds.append("variant = $variant")
        params["variant"] = variant
    if ruleset is not None and use_ruleset:
        conds.append("ruleset_id = $ruleset")
        params["ruleset"] = ruleset
    return " AND ".join(conds), params


def no_experiment(con: duckdb.DuckDBPyConnection, table: str, alias: str | None = None) -> str:
    """Condition keeping rows of ``table`` (``games`` or ``seats``; aliased ``alias``, else
    unaliased) outside experiments: the ``experiment`` column where the view has it, else the
    games' ``x_experiment`` extension."""
    a = f"{alias}." if alias else ""
    if has_column(con, table, "experiment"):
        return f"{a}experiment IS NULL"
    if table == "games":
        return f"({experiment_expr(con, alias or 'games')}) IS NULL"
    return (f"({a}variant, {a}game_id) NOT IN (SELECT xg.variant, xg.game_id FROM games xg "
            f"WHERE ({experiment_expr(con, 'xg')}) IS NOT NULL)")


def _df(con: duckdb.DuckDBPyConnection, sql: str, params: dict[str, Any]) -> pl.DataFrame:
    cur = con.cursor()
    try:
        return cur.sql(sql, params=params or None).pl()
    finally:
        cur.close()


def overview(con: duckdb.DuckDBPyConnection, variant: str | None = None, ruleset: str | None = None) -> pl.DataFrame:
    """One row: ``games`` (decoded records), ``valid``, ``invalid``, ``rejects`` (lines that are
    not records of an implemented variant), ``read = games + rejects``, ``valid_rate`` (of games)."""
    w, p = _where(con, "games", variant, ruleset, valid=False)
    wr, pr = _where(con, "rejects", variant, None, valid=False, use_ruleset=False)
    sql = f"""
        WITH g AS (SELECT count(*) AS games, count(*) FILTER (WHERE valid) AS valid,
                          count(*) FILTER (WHERE NOT valid) AS invalid FROM games WHERE {w}),
             r AS (SELECT count(*) AS rejects FROM rejects WHERE {wr})
        SELECT games, valid, invalid, rejects, games + rejects AS read,
               valid / nullif(games, 0) AS valid_rate
        FROM g, r"""
    return _df(con, sql, {**p, **pr})


def rejects_by_code(con: duckdb.DuckDBPyConnection, variant: str | None = None) -> pl.DataFrame:
    """Rejected lines by ``code`` and ``rule``: columns code, rule, n (most frequent first)."""
    w, p = _where(con, "rejects", variant, None, valid=False, use_ruleset=False)
    return _df(con, f"SELECT code, rule, count(*) AS n FROM rejects WHERE {w} GROUP BY ALL ORDER BY n DESC, code, rule", p)


def errors_by_code(con: duckdb.DuckDBPyConnection, variant: str | None = None,
                   ruleset: str | None = None) -> pl.DataFrame:
    """Invalid games by their first error: columns error_code, error_rule, n."""
    w, p = _where(con, "games", variant, ruleset, valid=False)
    return _df(con, f"""SELECT error_code, error_rule, count(*) AS n FROM games WHERE {w} AND NOT valid
                        GROUP BY ALL ORDER BY n DESC, error_code, error_rule""", p)


def win_rate_by_seat(con: duckdb.DuckDBPyConnection, variant: str | None = None,
                     ruleset: str | None = None) -> pl.DataFrame:
    """胡率 by seat number: columns seat, games, wins, win_rate (wins / games)."""
    w, p = _where(con, "seats", variant, ruleset)
    return _df(con, f"""SELECT *, wins / games AS win_rate FROM (
                            SELECT seat, count(*) AS games, count(*) FILTER (WHERE is_winner) AS wins
                            FROM seats WHERE {w} GROUP BY seat) ORDER BY seat""", p)


def win_rate_by_dealer(con: duckdb.DuckDBPyConnection, variant: str | None = None,
                       ruleset: str | None = None) -> pl.DataFrame:
    """胡率 of 庄家 (dealer) against 闲家 (the others): columns is_dealer, seat_games (seat-games
    played in that role), wins, win_rate; dealer row first."""
    w, p = _where(con, "seats", variant, ruleset)
    return _df(con, f"""SELECT *, wins / seat_games AS win_rate FROM (
                            SELECT is_dealer, count(*) AS seat_games, count(*) FILTER (WHERE is_winner) AS wins
                            FROM seats WHERE {w} GROUP BY is_dealer) ORDER BY is_dealer DESC""", p)


def draw_rate(con: duckdb.DuckDBPyConnection, variant: str | None = None, ruleset: str | None = None) -> pl.DataFrame:
    """荒庄 (wall exhausted, nobody won): one row games, draws, draw_rate."""
    w, p = _where(con, "games", variant, ruleset)
    return _df(con, f"""SELECT *, draws / nullif(games, 0) AS draw_rate FROM (
                            SELECT count(*) AS games, count(*) FILTER (WHERE outcome = 'draw') AS draws
                            FROM games WHERE {w})""", p)


def hand_type_freq(con: duckdb.DuckDBPyConnection, variant: str | None = None,
                   ruleset: str | None = None) -> pl.DataFrame:
    """Hand types (番型 ids, spec §5) over wins: columns hand_type, wins, share (of all wins).

    A win with no hand type counts as ``plain`` (平胡); a win with several counts once under
    each, so shares can add up to more than 1.
    """
    w, p = _where(con, "games", variant, ruleset)
    # the wins are grouped by their list first (a few dozen distinct lists), so the list
    # functions and the unnest run over those groups, not over every win
    return _df(con, f"""
        WITH lists AS (SELECT hand_types, count(*) AS n, sum(count(*)) OVER () AS total
                       FROM games WHERE {w} AND outcome = 'win' GROUP BY hand_types),
             t AS (SELECT unnest(CASE WHEN len(coalesce(hand_types, [])) = 0 THEN ['plain']
                                      ELSE list_distinct(hand_types) END) AS hand_type, n, total FROM lists)
        SELECT hand_type, sum(n)::BIGINT AS wins, sum(n)::BIGINT / any_value(total)::BIGINT AS share
        FROM t GROUP BY hand_type ORDER BY wins DESC, hand_type""", p)


def xing_distribution(con: duckdb.DuckDBPyConnection, variant: str | None = None,
                      ruleset: str | None = None) -> pl.DataFrame:
    """醒 count of the wins: columns xing_count (null: no 醒 turned, e.g. after 海底), wins, share."""
    w, p = _where(con, "games", variant, ruleset)
    return _df(con, f"""SELECT *, wins / sum(wins) OVER () AS share FROM (
                            SELECT xing_count, count(*) AS wins FROM games WHERE {w} AND outcome = 'win'
                            GROUP BY xing_count) ORDER BY xing_count NULLS FIRST""", p)


def mean_points(con: duckdb.DuckDBPyConnection, variant: str | None = None,
                ruleset: str | None = None) -> pl.DataFrame:
    """Per variant (units differ between variants): wins, mean_points (胡 / 胡息 / …), mean_tuo
    (舵, null where the variant has none), mean_units (one losing share before stake)."""
    w, p = _where(con, "games", variant, ruleset)
    return _df(con, f"""SELECT variant, count(*) AS wins, avg(points) AS mean_points, avg(tuo) AS mean_tuo,
                               avg(units) AS mean_units
                        FROM games WHERE {w} AND outcome = 'win' GROUP BY variant ORDER BY variant""", p)


def win_kind_mix(con: duckdb.DuckDBPyConnection, variant: str | None = None,
                 ruleset: str | None = None) -> pl.DataFrame:
    """How wins came: columns win_kind (``zimo`` 自摸, ``dianpao`` 点炮, ``flip`` another seat's
    flip, ``deal`` 天胡 / 三笼五坎), wins, share."""
    w, p = _where(con, "games", variant, ruleset)
    return _df(con, f"""SELECT *, wins / sum(wins) OVER () AS share FROM (
                            SELECT win_kind, count(*) AS wins FROM games WHERE {w} AND outcome = 'win'
                            GROUP BY win_kind) ORDER BY wins DESC, win_kind""", p)


def score_flow(con: duckdb.DuckDBPyConnection, variant: str | None = None, ruleset: str | None = None,
               limit: int | None = None) -> pl.DataFrame:
    """Score flow per player (stake included): columns player_id, games, won (sum of gains),
    lost (sum of losses, ≤ 0), net (won + lost); biggest winner first. Over all players the
    nets sum to 0."""
    w, p = _where(con, "seats", variant, ruleset)
    lim = ""
    if limit is not None:
        lim, p = "LIMIT $limit", {**p, "limit": int(limit)}
    # greatest/least (which skip NULL) instead of FILTER clauses: the same sums, less work per row
    return _df(con, f"""SELECT player_id, count(*) AS games,
                               coalesce(sum(greatest(score, 0)), 0)::BIGINT AS won,
                               coalesce(sum(least(score, 0)), 0)::BIGINT AS lost,
                               coalesce(sum(score), 0)::BIGINT AS net
                        FROM seats WHERE {w} GROUP BY player_id ORDER BY net DESC, player_id {lim}""", p)


def player_stats(con: duckdb.DuckDBPyConnection, variant: str | None = None, ruleset: str | None = None,
                 min_games: int = 1, limit: int | None = None) -> pl.DataFrame:
    """Per player: games, wins, win_rate (胡率, wins / games), zimo_wins, zimo_share (自摸率, of
    the player's wins), dianpao (点炮: times the player discarded the winning card),
    dianpao_rate (per game), total_score, mean_score. Most games first; players with fewer than
    ``min_games`` games left out."""
    w, p = _where(con, "seats", variant, ruleset)
    p = {**p, "min_games": int(min_games)}
    lim = ""
    if limit is not None:
        lim, p = "LIMIT $limit", {**p, "limit": int(limit)}
    return _df(con, f"""
        SELECT player_id, games, wins, wins / games AS win_rate, zimo_wins,
               zimo_wins / nullif(wins, 0) AS zimo_share, dianpao, dianpao / games AS dianpao_rate,
               total_score, mean_score
        FROM (SELECT player_id, count(*) AS games, count_if(is_winner)::BIGINT AS wins,
                     count_if(is_winner AND win_kind = 'zimo')::BIGINT AS zimo_wins,
                     count_if(dianpao)::BIGINT AS dianpao,
                     coalesce(sum(score), 0)::BIGINT AS total_score, avg(score) AS mean_score
              FROM seats WHERE {w} GROUP BY player_id HAVING count(*) >= $min_games)
        ORDER BY games DESC, total_score DESC, player_id {lim}""", p)


def variants_and_rulesets(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Which (variant, ruleset_id) pairs the warehouse holds: columns variant, ruleset_id, games."""
    return _df(con, """SELECT variant, ruleset_id, count(*) AS games FROM games
                       GROUP BY ALL ORDER BY variant, ruleset_id NULLS LAST""", {})


# --- experiments and rule comparisons (paipu tune, the "Rule tuning" page) ----------------------
#
# A tuning experiment (``paipu tune``) plays the same deals under ruleset A and ruleset B. Its
# records carry the extensions ``x_experiment`` (experiment id), ``x_arm`` (``a``/``b``) and
# ``x_deal`` (deal index: the pairing key). Ingest stores ``x_experiment`` as the nullable column
# ``experiment`` of ``games``; a warehouse whose views do not have that column yet is read from
# ``record_json`` instead (slower, same answer).

def has_column(con: duckdb.DuckDBPyConnection, table: str, column: str) -> bool:
    """Whether the view ``table`` has ``column`` (for columns other engineers are adding)."""
    df = _df(con, "SELECT count(*) AS n FROM duckdb_columns() WHERE table_name = $t AND column_name = $c",
             {"t": table, "c": column})
    return bool(df.item())


def experiment_expr(con: duckdb.DuckDBPyConnection, alias: str = "g") -> str:
    """SQL for the experiment id of a ``games`` row aliased ``alias`` (NULL: not an experiment).

    The ``experiment`` column when the views have it; until then the record's ``x_experiment``
    extension, parsed only from lines that mention it (a substring test is cheap, JSON is not).
    """
    if not alias.isidentifier():
        raise ValueError(alias)
    if has_column(con, "games", "experiment"):
        return f"{alias}.experiment"
    return (f"CASE WHEN contains({alias}.record_json, '\"x_experiment\"') "
            f"THEN json_extract_string({alias}.record_json, '$.x_experiment') END")


def _arm_expr(alias: str = "g") -> str:
    return f"json_extract_string({alias}.record_json, '$.x_arm')"


def experiment_arms(con: duckdb.DuckDBPyConnection, variant: str | None = None) -> pl.DataFrame:
    """Every arm of every experiment: experiment, arm, variant, ruleset_id, rules_json (the arm's
    full option values), games, valid, first_ingested (newest experiment first)."""
    exp = experiment_expr(con)
    p: dict[str, Any] = {}
    cond = "TRUE"
    if variant is not None:
        cond, p = "g.variant = $variant", {"variant": variant}
    return _df(con, f"""
        WITH e AS (SELECT {exp} AS experiment, {_arm_expr()} AS arm, g.variant, g.ruleset_id, g.rules_json,
                          g.valid, g.ingested_at FROM games g WHERE {cond})
        SELECT experiment, arm, variant, ruleset_id, any_value(rules_json) AS rules_json, count(*) AS games,
               count(*) FILTER (WHERE valid) AS valid, min(ingested_at) AS first_ingested
        FROM e WHERE experiment IS NOT NULL GROUP BY ALL
        ORDER BY first_ingested DESC, experiment, arm""", p)


def ruleset_games(con: duckdb.DuckDBPyConnection, variant: str | None = None) -> pl.DataFrame:
    """Rulesets played outside experiments (simulations and real logs): variant, ruleset_id,
    rules_json, games, valid; most games first."""
    exp = experiment_expr(con)
    p: dict[str, Any] = {}
    cond = "TRUE"
    if variant is not None:
        cond, p = "g.variant = $variant", {"variant": variant}
    return _df(con, f"""
        SELECT g.variant, g.ruleset_id, any_value(g.rules_json) AS rules_json, count(*) AS games,
               count(*) FILTER (WHERE g.valid) AS valid
        FROM games g WHERE {cond} AND g.ruleset_id IS NOT NULL AND {exp} IS NULL
        GROUP BY ALL ORDER BY games DESC, g.variant, g.ruleset_id""", p)


@dataclass(frozen=True)
class Arm:
    """One side of a comparison: games of ``variant`` with ``ruleset`` (a ruleset_id), or the arm
    ``arm`` of ``experiment``. Without ``experiment`` only games outside experiments count."""

    variant: str
    ruleset: str | None = None
    experiment: str | None = None
    arm: str | None = None

    def label(self) -> str:
        if self.experiment:
            return f"{self.experiment}:{self.arm or '*'}" + (f" ({self.ruleset})" if self.ruleset else "")
        return self.ruleset or f"{self.variant} (all rulesets)"


# (key, section, label, kind, SQL over a games row ``g`` — NULL where the figure does not apply)
# kind "rate": a 0/1 indicator (its mean is a rate); "share": a fraction per game (shown as a
# percentage, interval of a mean); "mean": a number.
_BASE_PART = "coalesce(json_extract(g.breakdown_json, '$.tuo'), json_extract(g.breakdown_json, '$.hu_fen'))::DOUBLE"
_PARTS_SUM = ("list_sum(list_transform(json_extract(g.breakdown_json, '$.*'), lambda x: TRY_CAST(x AS DOUBLE)))")
METRICS: list[tuple[str, str, str, str, str]] = [
    ("draw", "outcome", "荒庄率 draw rate", "rate", "(g.outcome = 'draw')::DOUBLE"),
    ("dealer_win", "outcome", "庄家胡率 dealer win rate", "rate", "(g.outcome = 'win' AND g.winner = g.dealer)::DOUBLE"),
    *[(f"seat{k}_win", "outcome", f"座位{k}胡率 seat {k} win rate", "rate",
       f"CASE WHEN g.n_seats > {k} THEN (g.outcome = 'win' AND g.winner = {k})::DOUBLE END") for k in range(4)],
    ("zimo", "outcome", "自摸占胡 self-drawn share of wins", "rate",
     "CASE WHEN g.outcome = 'win' THEN (g.win_kind = 'zimo')::DOUBLE END"),
    ("dianpao", "outcome", "点炮占胡 dealt-in share of wins", "rate",
     "CASE WHEN g.outcome = 'win' THEN (g.win_kind = 'dianpao')::DOUBLE END"),
    ("points", "score", "胡/息 points of a win", "mean", "CASE WHEN g.outcome = 'win' THEN g.points::DOUBLE END"),
    ("tuo", "score", "舵 tuo of a win", "mean", "CASE WHEN g.outcome = 'win' THEN g.tuo::DOUBLE END"),
    ("units", "score", "舵/分 units of a win", "mean", "CASE WHEN g.outcome = 'win' THEN g.units::DOUBLE END"),
    ("units_per_game", "score", "每局分 units per game (荒庄 = 0)", "mean",
     "CASE WHEN g.outcome = 'win' THEN g.units::DOUBLE WHEN g.outcome = 'draw' THEN 0 END"),
    ("bonus_share", "score", "奖励占比 share of units from bonuses", "share",
     f"CASE WHEN g.outcome = 'win' AND g.units > 0 AND {_BASE_PART} IS NOT NULL AND {_PARTS_SUM} = g.units "
     f"THEN 1 - {_BASE_PART} / g.units END"),
    ("xing_count", "xing", "醒数 xing matched per win", "mean",
     "CASE WHEN g.outcome = 'win' THEN g.xing_count::DOUBLE END"),
    ("xing_hit", "xing", "中醒率 wins with 醒 ≥ 1", "rate",
     "CASE WHEN g.outcome = 'win' AND g.xing_count IS NOT NULL THEN (g.xing_count > 0)::DOUBLE END"),
    ("n_actions", "length", "步数 game length (events)", "mean", "g.n_actions::DOUBLE"),
]
SECTIONS = {"outcome": "胡牌与荒庄 Wins and draws", "score": "胡与分 Points and units",
            "xing": "醒 Xing", "length": "对局长度 Game length", "hand_type": "牌型 Hand-type mix"}
TOO_FEW = 30
"""Below this many games (or pairs) a figure is marked too small to tell."""


def _arm_cond(exp: str, side: str) -> str:
    return (f"g.variant = $variant AND (${side}_rs IS NULL OR g.ruleset_id = ${side}_rs) AND "
            f"((${side}_exp IS NULL AND {exp} IS NULL) OR {exp} = ${side}_exp) AND "
            f"(${side}_arm IS NULL OR {_arm_expr()} = ${side}_arm)")


def _comparison_long(con: duckdb.DuckDBPyConnection, a: Arm, b: Arm) -> tuple[str, dict[str, Any]]:
    """SQL of the long table (side, deal, metric, value) of both arms, and its parameters."""
    if a.variant != b.variant:
        raise ValueError("compare arms of one variant (units differ between variants)")
    exp = experiment_expr(con)
    metrics = ",\n".join(f"struct_pack(metric := '{k}', value := {sql})" for k, _, _, _, sql in METRICS)
    sql = f"""
        WITH base AS (
            SELECT CASE WHEN {_arm_cond(exp, 'a')} THEN 'a' WHEN {_arm_cond(exp, 'b')} THEN 'b' END AS side,
                   coalesce(json_extract_string(g.record_json, '$.x_deal'), g.game_id) AS deal, g.*
            FROM games g WHERE g.variant = $variant AND g.valid AND g.outcome IS NOT NULL),
        scoped AS (SELECT * FROM base g WHERE side IS NOT NULL),
        types AS (SELECT DISTINCT unnest(hand_types) AS t FROM scoped WHERE outcome = 'win'),
        long AS (
            SELECT side, deal, unnest([{metrics}], recursive := true) FROM scoped g
            UNION ALL
            SELECT side, deal, 'hand_type:' || t AS metric, list_contains(hand_types, t)::DOUBLE AS value
            FROM scoped, types WHERE outcome = 'win'
            UNION ALL
            SELECT side, deal, 'hand_type:plain', (len(coalesce(hand_types, [])) = 0)::DOUBLE
            FROM scoped WHERE outcome = 'win')
        """
    p = {"variant": a.variant}
    for side, arm in (("a", a), ("b", b)):
        p.update({f"{side}_rs": arm.ruleset, f"{side}_exp": arm.experiment, f"{side}_arm": arm.arm})
    return sql, p


def is_paired(a: Arm, b: Arm) -> bool:
    """Duplicate play: both arms are the two sides of one experiment (paired by deal)."""
    return bool(a.experiment) and a.experiment == b.experiment and a.arm is not None and b.arm is not None \
        and a.arm != b.arm


def compare(con: duckdb.DuckDBPyConnection, a: Arm, b: Arm) -> pl.DataFrame:
    """Every figure of arm ``a`` against arm ``b`` (valid games with an outcome only).

    Columns: metric, section, label, kind (``rate``/``mean``), n_a, n_b (games or wins the figure
    is over), a, b (the arms' rates, shares or means), sd_a, sd_b, diff (a − b), lo, hi (its 95%
    interval; rates and shares are fractions), a_lo, a_hi, b_lo, b_hi (each arm's own interval), n_differ (paired only: pairs whose
    values differ), paired, note (``too_few`` under :data:`TOO_FEW`, ``identical`` when every pair
    is equal, ``differs`` when the interval excludes 0, else ``unclear``).

    Paired (both arms of one experiment): figures are over the deals both arms have, ``diff`` is the
    mean of per-deal differences ± 1.96·sd/√n. Otherwise the arms are independent samples
    (Newcombe's interval for rates, Welch's for means).
    """
    from analytics import stats

    long_sql, p = _comparison_long(con, a, b)
    paired = is_paired(a, b)
    if paired:
        agg = _df(con, long_sql + """
            SELECT x.metric, count(*) AS n_a, count(*) AS n_b, avg(x.value) AS a, avg(y.value) AS b,
                   stddev_samp(x.value) AS sd_a, stddev_samp(y.value) AS sd_b, sum(x.value) AS k_a,
                   sum(y.value) AS k_b, avg(x.value - y.value) AS diff, stddev_samp(x.value - y.value) AS sd_diff,
                   count(*) FILTER (WHERE x.value <> y.value) AS n_differ
            FROM long x JOIN long y ON x.deal = y.deal AND x.metric = y.metric
            WHERE x.side = 'a' AND y.side = 'b' AND x.value IS NOT NULL AND y.value IS NOT NULL
            GROUP BY x.metric""", p)
    else:
        agg = _df(con, long_sql + """
            SELECT metric,
                   count(value) FILTER (WHERE side = 'a') AS n_a, count(value) FILTER (WHERE side = 'b') AS n_b,
                   avg(value) FILTER (WHERE side = 'a') AS a, avg(value) FILTER (WHERE side = 'b') AS b,
                   stddev_samp(value) FILTER (WHERE side = 'a') AS sd_a,
                   stddev_samp(value) FILTER (WHERE side = 'b') AS sd_b,
                   sum(value) FILTER (WHERE side = 'a') AS k_a, sum(value) FILTER (WHERE side = 'b') AS k_b,
                   avg(value) FILTER (WHERE side = 'a') - avg(value) FILTER (WHERE side = 'b') AS diff,
                   NULL::DOUBLE AS sd_diff, NULL::BIGINT AS n_differ
            FROM long WHERE value IS NOT NULL GROUP BY metric""", p)
    info = {k: (sec, label, kind) for k, sec, label, kind, _ in METRICS}
    order = {k: i for i, (k, *_rest) in enumerate(METRICS)}
    rows = []
    for r in agg.iter_rows(named=True):
        m = r["metric"]
        if m.startswith("hand_type:"):
            ht = m.split(":", 1)[1]
            sec, label, kind = "hand_type", ht, "rate"
        else:
            sec, label, kind = info[m]
        n_a, n_b = r["n_a"] or 0, r["n_b"] or 0
        if kind == "rate":
            ia, ib = stats.rate(round(r["k_a"] or 0), n_a), stats.rate(round(r["k_b"] or 0), n_b)
        else:
            ia, ib = stats.mean(r["a"], r["sd_a"], n_a), stats.mean(r["b"], r["sd_b"], n_b)
        if paired:
            d = stats.paired(r["diff"], r["sd_diff"], n_a)
        elif kind == "rate":
            d = stats.diff_rates(round(r["k_a"] or 0), n_a, round(r["k_b"] or 0), n_b)
        else:
            d = stats.diff_means(r["a"], r["sd_a"], n_a, r["b"], r["sd_b"], n_b)
        if min(n_a, n_b) < TOO_FEW:
            note = "too_few"
        elif paired and r["n_differ"] == 0:
            note = "identical"
        elif d.excludes_zero:
            note = "differs"
        else:
            note = "unclear"
        rows.append({"metric": m, "section": sec, "label": label, "kind": kind, "n_a": n_a, "n_b": n_b,
                     "a": r["a"], "b": r["b"], "sd_a": r["sd_a"], "sd_b": r["sd_b"], "diff": d.est, "lo": d.lo,
                     "hi": d.hi, "a_lo": ia.lo, "a_hi": ia.hi, "b_lo": ib.lo, "b_hi": ib.hi,
                     "n_differ": r["n_differ"], "paired": paired, "note": note,
                     "_order": order.get(m, len(order)), "_share": max(r["a"] or 0, r["b"] or 0)})
    schema = {"metric": pl.String, "section": pl.String, "label": pl.String, "kind": pl.String, "n_a": pl.Int64,
              "n_b": pl.Int64, "a": pl.Float64, "b": pl.Float64, "sd_a": pl.Float64, "sd_b": pl.Float64,
              "diff": pl.Float64, "lo": pl.Float64, "hi": pl.Float64, "a_lo": pl.Float64, "a_hi": pl.Float64,
              "b_lo": pl.Float64, "b_hi": pl.Float64, "n_differ": pl.Int64, "paired": pl.Boolean, "note": pl.String,
              "_order": pl.Int64, "_share": pl.Float64}
    df = pl.DataFrame(rows, schema=schema, orient="row")
    return df.sort(["_order", "_share", "metric"], descending=[False, True, False]).drop("_order", "_share")


def arm_sizes(con: duckdb.DuckDBPyConnection, a: Arm, b: Arm) -> dict[str, int]:
    """Games per side before pairing: ``a``, ``b`` (valid, with an outcome), ``a_all``, ``b_all``
    (every decoded game of the arm), and ``pairs`` (deals both sides have; paired arms only)."""
    long_sql, p = _comparison_long(con, a, b)
    exp = experiment_expr(con)
    sizes = _df(con, f"""
        SELECT count(*) FILTER (WHERE {_arm_cond(exp, 'a')}) AS a_all,
               count(*) FILTER (WHERE {_arm_cond(exp, 'b')}) AS b_all
        FROM games g WHERE g.variant = $variant""", p).row(0, named=True)
    n = _df(con, long_sql + """
        SELECT count(DISTINCT deal) FILTER (WHERE side = 'a') AS a, count(DISTINCT deal) FILTER (WHERE side = 'b') AS b,
               (SELECT count(*) FROM (SELECT deal FROM scoped GROUP BY deal HAVING count(DISTINCT side) = 2)) AS pairs
        FROM scoped""", p).row(0, named=True)
    return {**sizes, **n}


# --- one table's session (the dashboard's Session page) ---------------------------------------------

def table_session(con: duckdb.DuckDBPyConnection, table_id: str) -> pl.DataFrame:
    """The games of one table (``table_id``), a row per seat of each, in play order (start, then
    ``round``, then id): ``n`` (1-based round of the session), game_id, variant, ruleset_id, round,
    started_at, valid, error_code, outcome, winner, win_kind, points, units, seat, player_id, score
    (the engine's, null when replay computed none) and ``total`` (the player's running score over the
    session so far). Every game at that table, invalid ones and experiments included: a session is
    what was played there."""
    return _df(con, """
        WITH g AS (SELECT game_id, variant, ruleset_id, "round", started_at, valid, error_code, outcome, winner,
                          win_kind, points, units, ingested_at,
                          row_number() OVER (PARTITION BY game_id, variant ORDER BY ingested_at DESC NULLS LAST) AS k
                   FROM games WHERE table_id = $table),
             o AS (SELECT *, dense_rank() OVER (ORDER BY started_at NULLS LAST, "round" NULLS LAST, game_id, variant) AS n
                   FROM g WHERE k = 1)
        SELECT o.n, o.game_id, o.variant, o.ruleset_id, o."round", o.started_at, o.valid, o.error_code, o.outcome,
               o.winner, o.win_kind, o.points, o.units, s.seat, s.player_id, s.score,
               (sum(coalesce(s.score, 0)) OVER (PARTITION BY s.player_id ORDER BY o.n))::BIGINT AS total
        FROM o JOIN seats s ON s.game_id = o.game_id AND s.variant = o.variant
        ORDER BY o.n, s.seat""", {"table": table_id})
