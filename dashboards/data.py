"""Thin, read-only query layer over the Parquet warehouse (docs/warehouse.md), for the dashboard
and the ``paipu audit`` command.

:func:`connect` is ``ingest.views.connect`` (the one place the views are built). The query
functions stay here because the pages
need multi-select filters and a valid-only switch that ``analytics.queries`` does not take; every
one takes a connection and binds every user value as a parameter. No Streamlit here, so the CLI
and tests use it directly.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import duckdb
import polars as pl

from analytics.queries import experiment_expr, no_experiment
from ingest.schema import TABLES as WAREHOUSE_TABLES

TABLES = tuple(WAREHOUSE_TABLES)
"""The warehouse's tables (ingest/schema.py), in order; the views are ingest.views'."""


@dataclass(frozen=True)
class Filters:
    """What the pages filter on. Empty tuples mean "all" (the sidebar always picks one variant:
    figures of different variants are never mixed); ``valid_only`` restricts statistics (win
    rates, hand types) to games whose verdict is valid; ``experiments`` lets the games of tuning
    experiments (``paipu tune``: the same deals played twice) count too; ``day_from`` / ``day_to``
    (UTC dates, inclusive) keep the games started between them (rejected lines have no start)."""

    variants: tuple[str, ...] = ()
    rulesets: tuple[str, ...] = ()
    valid_only: bool = True
    experiments: bool = False
    day_from: date | None = None
    day_to: date | None = None

    @property
    def dated(self) -> bool:
        """True when a date bound is set."""
        return self.day_from is not None or self.day_to is not None

    def _days(self) -> dict[str, Any]:
        return {k: v for k, v in (("day_from", self.day_from), ("day_to", self.day_to)) if v is not None}

    def params(self) -> dict[str, Any]:
        """Bound parameters for :func:`game_filter` (with ``f=`` this filter)."""
        return {"variants": list(self.variants), "rulesets": list(self.rulesets),
                "valid_only": self.valid_only, "experiments": self.experiments, **self._days()}

    def scope_params(self) -> dict[str, Any]:
        """Bound parameters for :func:`scope` (no valid-only switch)."""
        p = self.params()
        p.pop("valid_only")
        return p


def _variant_ruleset(alias: str) -> str:
    """Variant and ruleset filter on a row aliased ``alias``; every value is a bound parameter."""
    return (f"(len($variants::VARCHAR[]) = 0 OR list_contains($variants::VARCHAR[], {alias}.variant)) AND "
            f"(len($rulesets::VARCHAR[]) = 0 OR list_contains($rulesets::VARCHAR[], {alias}.ruleset_id))")


_SCOPE = _variant_ruleset("g")  # on a games row aliased ``g``


def dates(alias: str = "g", table: str = "games", f: Filters | None = None) -> str:
    """`` AND …`` keeping rows of games started within ``f``'s dates (UTC days, params
    ``$day_from`` / ``$day_to`` of :meth:`Filters.params`); "" without dates. ``seats`` rows carry
    no start, so they are kept by their game's."""
    if f is None or not f.dated:
        return ""
    conds = [c for c, v in (("CAST(timezone('UTC', {a}.started_at) AS DATE) >= $day_from", f.day_from),
                            ("CAST(timezone('UTC', {a}.started_at) AS DATE) <= $day_to", f.day_to)) if v is not None]
    if table == "games":
        return " AND " + " AND ".join(c.format(a=alias) for c in conds)
    inner = " AND ".join(c.format(a="dg") for c in conds)
    return f" AND ({alias}.variant, {alias}.game_id) IN (SELECT dg.variant, dg.game_id FROM games dg WHERE {inner})"


def scope(con: duckdb.DuckDBPyConnection, alias: str = "g", table: str = "games", f: Filters | None = None) -> str:
    """Variant, ruleset, experiment (and with ``f``, date) filter (params: :meth:`Filters.scope_params`)
    on a row of ``table`` aliased ``alias``: a games row ``g`` by default; ``seats`` carries the
    same columns (variant, ruleset_id, valid, experiment), so seat figures need no join with games
    (but for dates)."""
    return (_variant_ruleset(alias) + f" AND ($experiments OR {no_experiment(con, table, alias)})"
            + dates(alias, table, f))


def game_filter(con: duckdb.DuckDBPyConnection, alias: str = "g", table: str = "games", f: Filters | None = None) -> str:
    """:func:`scope` plus the valid-only switch (params: :meth:`Filters.params`)."""
    return scope(con, alias, table, f) + f" AND (NOT $valid_only OR {alias}.valid)"


def _q(con: duckdb.DuckDBPyConnection, sql: str, params: dict[str, Any] | None = None) -> pl.DataFrame:
    # a cursor per query: one DuckDB connection is not usable from several threads (stack.md)
    cur = con.cursor()
    try:
        return cur.sql(sql, params=params or {}).pl()
    finally:
        cur.close()


def layout(warehouse: str | Path) -> tuple[bool, ...]:
    """Which tables of :data:`TABLES` have at least one Parquet file (in that order).

    Views are built once per connection; a caller that caches the connection keys it on this so a
    table that appears after start-up (first ingest) gets a real view.

    :raises ingest.warehouse.MissingDataFiles: a file the catalog lists is missing or damaged.
    """
    from ingest.warehouse import catalog_of, has_rows, verify_files

    root = Path(warehouse)
    if catalog_of(root) is not None:  # DuckLake: which tables hold a row in the latest snapshot
        verify_files(root)  # every query of a lost file's table would fail: the pages say so instead
        return has_rows(root, list(TABLES))
    return tuple(next((root / t).rglob("*.parquet"), None) is not None for t in TABLES)


def connect(warehouse: str | Path, snapshot: Any = None) -> duckdb.DuckDBPyConnection:
    """The warehouse's hardened root connection (:func:`ingest.views.connect`: views over every
    table, file access limited to the warehouse, configuration locked). Take a ``cursor()`` per query.

    :param snapshot: a DuckLake snapshot id or a time: the warehouse as it was then (audit's as-of).
    :raises FileNotFoundError: ``warehouse`` is not a directory.
    """
    from ingest.views import connect as views_connect

    return views_connect(warehouse, snapshot=snapshot)


# --- overview -------------------------------------------------------------------------------

def filter_choices(con: duckdb.DuckDBPyConnection) -> dict[str, list[str]]:
    """Distinct variants and ruleset ids present in ``games`` (for the filter widgets)."""
    return _q(con, """
        SELECT coalesce(list(DISTINCT variant ORDER BY variant) FILTER (WHERE variant IS NOT NULL), []) AS variants,
               coalesce(list(DISTINCT ruleset_id ORDER BY ruleset_id) FILTER (WHERE ruleset_id IS NOT NULL), [])
                   AS rulesets
        FROM games""").row(0, named=True)  # one scan for both lists


def scope_choices(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """What the sidebar offers: one row per (variant, ruleset_id) with ``n_seats`` (a ruleset fixes
    the seat count: ``players`` is one of its options), ``games`` and ``played`` (games outside
    tuning experiments), ``first`` / ``last`` (UTC dates of the first and last start); variants
    most played first."""
    return _q(con, f"""
        WITH r AS (SELECT g.variant, g.ruleset_id, max(g.n_seats) AS n_seats, count(*) AS games,
                          count(*) FILTER (WHERE {no_experiment(con, "games", "g")}) AS played,
                          CAST(min(timezone('UTC', g.started_at)) AS DATE) AS first,
                          CAST(max(timezone('UTC', g.started_at)) AS DATE) AS last
                   FROM games g WHERE g.variant IS NOT NULL AND g.ruleset_id IS NOT NULL
                   GROUP BY g.variant, g.ruleset_id)
        SELECT * FROM r ORDER BY sum(played) OVER (PARTITION BY variant) DESC, variant, played DESC, ruleset_id""")


GRAINS = {"day": "日 day", "week": "周 week", "month": "月 month"}
"""Periods of the overview's time series (an allowlist: the grain reaches SQL as a bound value)."""


def timeline(con: duckdb.DuckDBPyConnection, f: Filters, grain: str = "week") -> pl.DataFrame:
    """Games and key rates per period of their start (UTC): ``period`` (date of the day, Monday of
    the week or first of the month), ``games``, ``valid``, ``invalid``, and over the games the
    statistics count (valid-only switch) with an outcome: ``decided``, ``wins``, ``draw_rate``
    (荒庄), ``dealer_rate`` (庄家胡率: dealer wins / decided), ``zimo_share`` (of wins),
    ``mean_points`` (of wins). Games without a start time are left out.

    :raises ValueError: ``grain`` not in :data:`GRAINS`.
    """
    if grain not in GRAINS:
        raise ValueError(f"not a period: {grain!r}")
    stat = "(NOT $valid_only OR g.valid) AND g.outcome IS NOT NULL"
    return _q(con, f"""
        SELECT CAST(date_trunc($grain, CAST(timezone('UTC', g.started_at) AS DATE)) AS DATE) AS period,
               count(*) AS games, count(*) FILTER (WHERE g.valid) AS valid, count(*) FILTER (WHERE NOT g.valid) AS invalid,
               count(*) FILTER (WHERE {stat}) AS decided,
               count(*) FILTER (WHERE {stat} AND g.outcome = 'win') AS wins,
               count(*) FILTER (WHERE {stat} AND g.outcome = 'draw') / nullif(count(*) FILTER (WHERE {stat}), 0)
                   AS draw_rate,
               count(*) FILTER (WHERE {stat} AND g.outcome = 'win' AND g.winner = g.dealer)
                   / nullif(count(*) FILTER (WHERE {stat}), 0) AS dealer_rate,
               count(*) FILTER (WHERE {stat} AND g.win_kind = 'zimo')
                   / nullif(count(*) FILTER (WHERE {stat} AND g.outcome = 'win'), 0) AS zimo_share,
               avg(g.points) FILTER (WHERE {stat} AND g.outcome = 'win') AS mean_points
        FROM games g WHERE {scope(con, f=f)} AND g.started_at IS NOT NULL
        GROUP BY 1 ORDER BY 1""", {**f.params(), "grain": grain})


def summary(con: duckdb.DuckDBPyConnection, f: Filters) -> dict[str, Any]:
    """Headline numbers.

    ``games``/``valid``/``invalid`` ignore ``valid_only`` (otherwise invalid is always 0);
    ``experiment_games`` counts the tuning-experiment games of the variants and rulesets in scope
    (left out unless ``f.experiments``);
    ``rejects`` honours only the variant filter (rejects have no ruleset nor start; a line whose
    variant is unknown, ``_unknown``, counts in every variant's scope). The rest is over the
    games in scope whose replay computed an outcome: ``decided``, ``wins``, ``draws``,
    ``draw_rate`` (荒庄), ``mean_points`` (胡), ``mean_tuo`` (舵), ``mean_units``; rates are
    fractions, None when there is nothing to divide by.
    """
    p = f.params()
    exp = f"(({experiment_expr(con)}) IS NOT NULL)"
    # one scan of games for every figure: a row per (in scope, counted by the statistics, outcome);
    # the wins counted by the statistics are one group, so its avg() are the means themselves
    groups = _q(con, f"""
        SELECT ($experiments OR NOT {exp}) AS in_scope, (NOT $valid_only OR g.valid) AS stat, g.outcome,
               count(*) AS n, count(*) FILTER (WHERE g.valid) AS valid, count(*) FILTER (WHERE NOT g.valid) AS invalid,
               count(*) FILTER (WHERE {exp}) AS experiment_games,
               avg(g.points) AS mean_points, avg(g.tuo) AS mean_tuo, avg(g.units) AS mean_units
        FROM games g WHERE {_SCOPE}{dates("g", "games", f)} GROUP BY ALL""", p).to_dicts()
    rej = _q(con, """SELECT count(*) AS n FROM rejects r
                     WHERE len($variants::VARCHAR[]) = 0 OR list_contains($variants::VARCHAR[], r.variant) OR r.variant = '_unknown'""",
             {"variants": p["variants"]}).item()
    scoped = [g for g in groups if g["in_scope"]]
    stat = [g for g in scoped if g["stat"]]
    win = next((g for g in stat if g["outcome"] == "win"), {})
    out = {"games": sum(g["n"] for g in scoped), "valid": sum(g["valid"] for g in scoped),
           "invalid": sum(g["invalid"] for g in scoped), "rejects": rej,
           "experiment_games": sum(g["experiment_games"] for g in groups),
           "decided": sum(g["n"] for g in stat if g["outcome"] is not None), "wins": win.get("n", 0),
           "draws": sum(g["n"] for g in stat if g["outcome"] == "draw"),
           **{k: win.get(k) for k in ("mean_points", "mean_tuo", "mean_units")}}
    out["draw_rate"] = out["draws"] / out["decided"] if out["decided"] else None
    return out


def rejects_by_code(con: duckdb.DuckDBPyConnection, f: Filters) -> pl.DataFrame:
    """Rejected lines per code (``code``, ``n``), most frequent first; variant filter only (lines of
    no known variant in every scope)."""
    return _q(con, """
        SELECT r.code, count(*) AS n FROM rejects r
        WHERE len($variants::VARCHAR[]) = 0 OR list_contains($variants::VARCHAR[], r.variant) OR r.variant = '_unknown'
        GROUP BY 1 ORDER BY n DESC, 1""", {"variants": list(f.variants)})


def errors_by_code(con: duckdb.DuckDBPyConnection, f: Filters) -> pl.DataFrame:
    """Invalid games per first error code (``error_code``, ``n``), most frequent first."""
    return _q(con, f"""
        SELECT coalesce(g.error_code, '?') AS error_code, count(*) AS n FROM games g
        WHERE {scope(con, f=f)} AND NOT g.valid GROUP BY 1 ORDER BY n DESC, 1""", f.scope_params())


# Seat figures read ``seats`` alone (no join with games): it carries the games' variant,
# ruleset_id, valid and experiment, and ``is_winner`` is null exactly when ``games.outcome`` is
# (replay failed, docs/warehouse.md), so "decided game" is ``s.is_winner IS NOT NULL``.

def win_rate_by_seat(con: duckdb.DuckDBPyConnection, f: Filters) -> pl.DataFrame:
    """胡率 per seat over decided games in scope: ``seat``, ``games``, ``wins``, ``rate``."""
    return _q(con, f"""
        SELECT s.seat, count(*) AS games, count(*) FILTER (WHERE s.is_winner) AS wins,
               count(*) FILTER (WHERE s.is_winner) / count(*) AS rate
        FROM seats s WHERE {game_filter(con, "s", "seats", f)} AND s.is_winner IS NOT NULL
        GROUP BY 1 ORDER BY 1""", f.params())


def win_rate_by_role(con: duckdb.DuckDBPyConnection, f: Filters) -> pl.DataFrame:
    """胡率 of the dealer (庄) against the other seats (闲): ``is_dealer``, ``seats``, ``wins``, ``rate``."""
    return _q(con, f"""
        SELECT s.is_dealer, count(*) AS seats, count(*) FILTER (WHERE s.is_winner) AS wins,
               count(*) FILTER (WHERE s.is_winner) / count(*) AS rate
        FROM seats s WHERE {game_filter(con, "s", "seats", f)} AND s.is_winner IS NOT NULL AND s.is_dealer IS NOT NULL
        GROUP BY 1 ORDER BY 1 DESC""", f.params())


def win_kinds(con: duckdb.DuckDBPyConnection, f: Filters) -> pl.DataFrame:
    """How wins came (``win_kind``, ``n``, ``share``): zimo / dianpao / flip / deal."""
    return _q(con, f"""
        SELECT coalesce(g.win_kind, '?') AS win_kind, count(*) AS n,
               count(*) / sum(count(*)) OVER () AS share
        FROM games g WHERE {game_filter(con, f=f)} AND g.outcome = 'win' GROUP BY 1 ORDER BY n DESC, 1""",
              f.params())


# --- hand types -----------------------------------------------------------------------------

def hand_type_counts(con: duckdb.DuckDBPyConnection, f: Filters) -> pl.DataFrame:
    """Wins per hand-type id (``hand_type``, ``n``, ``share`` of wins in scope)."""
    return _q(con, f"""
        WITH w AS (SELECT g.hand_types FROM games g WHERE {game_filter(con, f=f)} AND g.outcome = 'win')
        SELECT t.hand_type, count(*) AS n, count(*) / (SELECT count(*) FROM w) AS share
        FROM (SELECT unnest(hand_types) AS hand_type FROM w) t
        GROUP BY 1 ORDER BY n DESC, 1""", f.params())


def value_counts(con: duckdb.DuckDBPyConnection, f: Filters, column: str) -> pl.DataFrame:
    """Wins per value of ``column`` (one of ``xing_count``, ``points``, ``units``, ``tuo``):
    ``value``, ``n``, in value order."""
    if column not in {"xing_count", "points", "units", "tuo"}:  # an identifier cannot be bound
        raise ValueError(f"not a countable column: {column}")
    return _q(con, f"""
        SELECT g."{column}" AS value, count(*) AS n FROM games g
        WHERE {game_filter(con, f=f)} AND g.outcome = 'win' AND g."{column}" IS NOT NULL
        GROUP BY 1 ORDER BY 1""", f.params())


# --- audit ----------------------------------------------------------------------------------

def find_game(con: duckdb.DuckDBPyConnection, game_id: str) -> dict[str, Any] | None:
    """The ``games`` row of ``game_id`` as a dict (latest ingest wins), or None."""
    df = _q(con, "SELECT * FROM games WHERE game_id = $gid ORDER BY ingested_at DESC NULLS LAST LIMIT 1",
            {"gid": game_id})
    return df.row(0, named=True) if df.height else None


def game_seats(con: duckdb.DuckDBPyConnection, game_id: str, variant: str) -> pl.DataFrame:
    """The ``seats`` rows of one game, by seat."""
    return _q(con, "SELECT * FROM seats WHERE game_id = $gid AND variant = $v ORDER BY seat",
              {"gid": game_id, "v": variant})


def find_rejects(con: duckdb.DuckDBPyConnection, game_id: str) -> pl.DataFrame:
    """Rejected lines that carried ``game_id`` (code, rule, message, where, the bytes kept)."""
    return _q(con, """SELECT source_file, source_line, code, rule, step, message, variant, raw, raw_bytes
                      FROM rejects WHERE game_id = $gid ORDER BY source_file, source_line""",
              {"gid": game_id})


_NAMED_REJECT = "source_line = $n AND (source_file = $f OR ends_with(source_file, '/' || $f))"
"""A stored rejected line that ``$f`` names: its path as stored, or its end from a folder on."""


def reject_line(con: duckdb.DuckDBPyConnection, source_file: str, source_line: int) -> dict[str, Any] | None:
    """One rejected line as stored (newest ingest first): source_file, source_line, game_id, code,
    rule, step, message, variant, claimed_variant, raw (the text kept), raw_bytes (the line's size
    in bytes: ``raw`` may be cut), raw_sha256, ingested_at; None when there is no such line.

    ``source_file`` is the path as stored (absolute), or its end from a folder on (``logs/a.jsonl``,
    ``a.jsonl``) when exactly one stored file ends so."""
    df = _q(con, f"""SELECT source_file, source_line, game_id, code, rule, step, message, variant, claimed_variant,
                            raw, raw_bytes, raw_sha256, ingested_at
                     FROM rejects WHERE {_NAMED_REJECT}
                     ORDER BY source_file = $f DESC, ingested_at DESC NULLS LAST""", {"f": source_file, "n": int(source_line)})
    if not df.height:
        return None
    if df["source_file"][0] != source_file and df["source_file"].n_unique() > 1:
        return None  # the end names more than one stored file
    return df.row(0, named=True)


def reject_files(con: duckdb.DuckDBPyConnection, source_file: str, source_line: int) -> list[str]:
    """The stored files with a rejected line ``source_line`` that ``source_file`` names, as stored
    or by its end from a folder on (:func:`reject_line` opens it when it names one)."""
    df = _q(con, f"SELECT DISTINCT source_file FROM rejects WHERE {_NAMED_REJECT} ORDER BY source_file",
            {"f": source_file, "n": int(source_line)})
    return df["source_file"].to_list()


def invalid_games(con: duckdb.DuckDBPyConnection, f: Filters, limit: int = 500) -> pl.DataFrame:
    """Invalid games in scope (``game_id``, ``variant``, ``error_code``, ``error_step``), newest first."""
    return _q(con, f"""
        SELECT g.game_id, g.variant, g.error_code, g.error_step FROM games g
        WHERE {scope(con, f=f)} AND NOT g.valid
        ORDER BY g.ingested_at DESC NULLS LAST, g.game_id LIMIT $limit""", {**f.scope_params(), "limit": int(limit)})


def computed_from_row(row: dict[str, Any], seats: pl.DataFrame | None = None) -> dict[str, Any] | None:
    """The spec §5 computed result rebuilt from a ``games`` row (and its seats for ``scores``).

    Used when the engine's own verdict is not at hand; None when replay computed nothing.
    """
    if row.get("outcome") is None:
        return None
    out: dict[str, Any] = {"outcome": row["outcome"], "winner": row.get("winner"),
                           "win_card": row.get("win_card"), "from": row.get("win_from"),
                           "points": row.get("points"), "hand_types": list(row.get("hand_types") or []),
                           "units": row.get("units")}
    if row.get("xing_count") is not None:
        out["xing"] = {"count": row["xing_count"]}
    if row.get("breakdown_json"):
        try:
            out["breakdown"] = json.loads(row["breakdown_json"])
        except ValueError:
            pass
    if seats is not None and seats.height and seats["score"].null_count() == 0:
        out["scores"] = seats.sort("seat")["score"].to_list()
    return out


# --- freshness (overview) ---------------------------------------------------------------------

def ingest_runs(warehouse: str | Path, limit: int = 20) -> list[dict[str, Any]]:
    """The warehouse's ingest runs, newest first: run_id, status, started_at, finished_at,
    engine_version, files, read, valid, invalid, rejected (None where a run log lacks a field).

    Read from the DuckLake table ``ingest_runs`` (the latest row of each run); for a warehouse of
    the layout before DuckLake, from ``ingest_runs/*.parquet``, else from the JSON run log
    ``_meta/ingest_runs/*.json``; files that cannot be read are skipped (the page must render).
    """
    from ingest.warehouse import catalog_of

    root = Path(warehouse)
    runs: dict[str, dict[str, Any]] = {}
    keys = ("run_id", "status", "started_at", "finished_at", "engine_version", "n_files", "read", "valid",
            "invalid", "rejected")
    if catalog_of(root) is not None:
        df = _q(_runs_connection(str(root.resolve())),
                f"SELECT {', '.join(keys)} FROM ingest_runs ORDER BY started_at DESC LIMIT $n", {"n": int(limit)})
        return list(df.iter_rows(named=True))
    for path in sorted((root / "ingest_runs").glob("*.parquet")):
        try:
            for r in pl.read_parquet(path).iter_rows(named=True):
                runs[str(r.get("run_id"))] = {k: r.get(k) for k in keys}
        except Exception:  # a run being written, or another schema: skip it
            continue
    for path in sorted((root / "_meta" / "ingest_runs").glob("*.json")):
        try:
            d = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if not isinstance(d, dict) or str(d.get("run_id")) in runs:
            continue
        total = d.get("total") if isinstance(d.get("total"), dict) else {}
        runs[str(d.get("run_id"))] = {
            "run_id": d.get("run_id"), "status": d.get("status", "done"), "started_at": d.get("started_at"),
            "finished_at": d.get("finished_at"), "engine_version": d.get("engine_version"),
            "n_files": len(d.get("files") or []), **{k: total.get(k) for k in ("read", "valid", "invalid", "rejected")}}
    return sorted(runs.values(), key=lambda r: str(r.get("started_at") or ""), reverse=True)[:limit]


@functools.lru_cache(maxsize=8)
def _runs_connection(root: str) -> duckdb.DuckDBPyConnection:
    """One connection per warehouse for :func:`ingest_runs` (a DuckLake view reads the latest
    snapshot at every query)."""
    return connect(root)


def partitions(con: duckdb.DuckDBPyConnection, f: Filters) -> pl.DataFrame:
    """Games per stored partition and ruleset in the variant/ruleset scope (experiments included,
    counted apart): variant, ruleset_id, games, valid, invalid, experiment_games, engine_versions,
    last_ingested."""
    return _q(con, f"""
        SELECT g.variant, g.ruleset_id, count(*) AS games, count(*) FILTER (WHERE g.valid) AS valid,
               count(*) FILTER (WHERE NOT g.valid) AS invalid,
               count(*) FILTER (WHERE ({experiment_expr(con)}) IS NOT NULL) AS experiment_games,
               string_agg(DISTINCT g.engine_version, ', ' ORDER BY g.engine_version) AS engine_versions,
               max(g.ingested_at) AS last_ingested
        FROM games g WHERE {_SCOPE}{dates("g", "games", f)} GROUP BY ALL ORDER BY g.variant, games DESC, g.ruleset_id""",
              {"variants": list(f.variants), "rulesets": list(f.rulesets), **f._days()})


def engine_versions(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Engine versions that judged the stored games: engine_version, games, last_ingested."""
    return _q(con, """SELECT engine_version, count(*) AS games, max(ingested_at) AS last_ingested FROM games
                      GROUP BY 1 ORDER BY last_ingested DESC NULLS LAST, 1""")


def last_ingested(con: duckdb.DuckDBPyConnection) -> Any:
    """Newest ``ingested_at`` over games and rejects (None when both are empty)."""
    return _q(con, """SELECT max(t) AS t FROM (SELECT max(ingested_at) AS t FROM games
                      UNION ALL SELECT max(ingested_at) FROM rejects)""").item()


def reject_examples(con: duckdb.DuckDBPyConnection, f: Filters, per_code: int = 3) -> pl.DataFrame:
    """Rejected lines per code with examples: code, n, variants (partitions), examples (list of
    ``file:line`` strings), example_ids (game ids the lines named, when any)."""
    return _q(con, """
        WITH r AS (SELECT *, row_number() OVER (PARTITION BY code ORDER BY source_file, source_line) AS k
                   FROM rejects r WHERE len($variants::VARCHAR[]) = 0 OR list_contains($variants::VARCHAR[], r.variant) OR r.variant = '_unknown')
        SELECT code, count(*) AS n, string_agg(DISTINCT variant, ', ' ORDER BY variant) AS variants,
               list(source_file || ':' || source_line ORDER BY k) FILTER (WHERE k <= $per_code) AS examples,
               list(game_id ORDER BY k) FILTER (WHERE k <= $per_code AND game_id IS NOT NULL) AS example_ids
        FROM r GROUP BY code ORDER BY n DESC, code""", {"variants": list(f.variants), "per_code": int(per_code)})


# --- sessions (tables) -------------------------------------------------------------------------

def tables(con: duckdb.DuckDBPyConnection, f: Filters, limit: int = 100) -> pl.DataFrame:
    """Tables (``table_id``) with games in scope, latest first: table_id, variant, games, first and
    last start, players (distinct ids, sorted)."""
    return _q(con, f"""
        SELECT g.table_id, any_value(g.variant) AS variant, count(DISTINCT g.game_id) AS games,
               min(g.started_at) AS first, max(g.started_at) AS last,
               list(DISTINCT s.player_id ORDER BY s.player_id) AS players
        FROM games g JOIN seats s ON s.game_id = g.game_id AND s.variant = g.variant
        WHERE {scope(con, f=f)} AND g.table_id IS NOT NULL
        GROUP BY g.table_id ORDER BY last DESC NULLS LAST, g.table_id LIMIT $limit""",
              {**f.scope_params(), "limit": int(limit)})
