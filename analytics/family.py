"""Queries of one family's own figures: 精 (花牌 family, 上大人), 個子 (通城個子牌) and 定庄
(沅江鬼胡子). Each returns a polars DataFrame; filters are bound parameters. Counters are stored
in the warehouse, rates computed here in SQL."""

from __future__ import annotations

import duckdb
import polars as pl

from replay.variants.yuanjiang_guihuzi.dingzhuang import check_dealer_sequence


def _where(variant: str | None, ruleset: str | None, alias: str = "") -> tuple[str, dict]:
    a = f"{alias}." if alias else ""
    conds, params = [], {}
    if variant:
        conds.append(f"{a}variant = $variant")
        params["variant"] = variant
    if ruleset:
        conds.append(f"{a}ruleset_id = $ruleset")
        params["ruleset"] = ruleset
    return (" AND " + " AND ".join(conds)) if conds else "", params


def zhu_jing(con: duckdb.DuckDBPyConnection, variant: str | None = None, ruleset: str | None = None) -> pl.DataFrame:
    """主精 distribution per ruleset over valid wins (as :func:`jing_per_win`): wins whose 主精 is each
    character, and its share."""
    w, p = _where(variant, ruleset, "j")
    return con.cursor().sql(f"""
        WITH wins AS (SELECT DISTINCT j.game_id, j.variant, j.ruleset_id, coalesce(j.main, '—') AS main
                      FROM jing j JOIN games g ON g.game_id = j.game_id AND g.variant = j.variant
                      WHERE g.valid {w}),
             c AS (SELECT variant, ruleset_id, main, count(*) AS n FROM wins GROUP BY variant, ruleset_id, main)
        SELECT variant, ruleset_id, main, n AS wins, n / sum(n) OVER (PARTITION BY variant, ruleset_id) AS share
        FROM c ORDER BY variant, ruleset_id, wins DESC, main""", params=p).pl()


def jing_per_win(con: duckdb.DuckDBPyConnection, variant: str | None = None, ruleset: str | None = None) -> pl.DataFrame:
    """Per ruleset: mean 精 cards per win (花 and 素 apart), mean 胡 from 精 and from the rest, 承包 rate,
    mean 對 per seat per game (summed as decimals: a float sum's order, so its last digits, changed
    from run to run with DuckDB's threads)."""
    w, p = _where(variant, ruleset, "g")
    return con.cursor().sql(f"""
        WITH j AS (SELECT game_id, sum(count) AS jing, sum(coalesce(hua, 0)) AS hua, sum(coalesce(su, 0)) AS su,
                          sum(coalesce(hu, 0)) AS jing_hu FROM jing GROUP BY game_id),
             d AS (SELECT game_id, count(*) AS dui FROM actions WHERE act = 'dui' GROUP BY game_id)
        SELECT g.variant, g.ruleset_id,
               count(*) FILTER (WHERE g.outcome = 'win') AS wins,
               avg(coalesce(j.jing, 0)) FILTER (WHERE g.outcome = 'win') AS mean_jing,
               avg(coalesce(j.hua, 0)) FILTER (WHERE g.outcome = 'win') AS mean_hua,
               avg(coalesce(j.su, 0)) FILTER (WHERE g.outcome = 'win') AS mean_su,
               avg(coalesce(j.jing_hu, 0)) FILTER (WHERE g.outcome = 'win') AS mean_hu_from_jing,
               avg(g.points - coalesce(j.jing_hu, 0)) FILTER (WHERE g.outcome = 'win') AS mean_hu_rest,
               avg((g.bao IS NOT NULL)::INT) FILTER (WHERE g.outcome = 'win') AS bao_rate,
               avg((coalesce(d.dui, 0) / g.n_seats)::DECIMAL(18, 9))::DOUBLE AS dui_per_seat
        FROM games g LEFT JOIN j USING (game_id) LEFT JOIN d USING (game_id)
        WHERE g.valid AND g.variant IN ('sanjing_huapai', 'wujing_huapai', 'shuangbiegan_huapai', 'shangdaren') {w}
        GROUP BY g.variant, g.ruleset_id ORDER BY g.variant, g.ruleset_id""", params=p).pl()


def gezi_summary(con: duckdb.DuckDBPyConnection, ruleset: str | None = None) -> pl.DataFrame:
    """通城個子牌 by number of seats: games, win rate, mean 個子 (from cards / from melds), mean 分,
    special-hand share."""
    w, p = _where(None, ruleset, "g")
    return con.cursor().sql(f"""
        SELECT g.n_seats, count(*) AS games, avg((g.outcome = 'win')::INT) AS win_rate,
               avg(z.points) AS mean_gezi, avg(z.from_cards) AS mean_from_cards,
               avg(z.from_melds) AS mean_from_melds, avg(z.hua_cards) AS mean_hua_cards,
               avg(g.units) FILTER (WHERE g.outcome = 'win') AS mean_units,
               avg((z.special IS NOT NULL)::INT) FILTER (WHERE g.outcome = 'win') AS special_share
        FROM games g LEFT JOIN gezi z USING (game_id)
        WHERE g.valid AND g.variant = 'tongcheng_gezi' {w}
        GROUP BY g.n_seats ORDER BY g.n_seats""", params=p).pl()


def gezi_distribution(con: duckdb.DuckDBPyConnection, ruleset: str | None = None) -> pl.DataFrame:
    """通城個子牌 個子 count per win, by number of seats, with special hands apart."""
    w, p = _where(None, ruleset)
    return con.cursor().sql(f"""
        SELECT n_seats, points AS gezi, coalesce(special, '—') AS special, count(*) AS wins
        FROM gezi WHERE TRUE {w} GROUP BY n_seats, points, special ORDER BY n_seats, gezi, special""", params=p).pl()


def dingzhuang_breaks(con: duckdb.DuckDBPyConnection) -> list[str]:
    """沅江鬼胡子 定庄 (003 §4) across each table's hands: one sentence per break."""
    cur = con.cursor()  # keep the cursor alive while its result is read
    rows = cur.sql("""
        SELECT table_id, round, dealer, CASE WHEN outcome = 'win' THEN winner END AS winner, n_seats
        FROM games WHERE variant = 'yuanjiang_guihuzi' AND valid AND table_id IS NOT NULL AND round IS NOT NULL
        ORDER BY table_id, round, game_id""").fetchall()  # game_id: games of one table and round (a replayed or doubled hand) come in one order every run
    if not rows:
        return []
    return check_dealer_sequence([(t, r, d, w) for t, r, d, w, _ in rows], players=rows[0][4])
