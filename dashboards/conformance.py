"""Queries of the Server conformance page: ``paipu fit`` (analytics/fit.py) over the warehouse's
stored lines of one variant, and what the page keys its cache on. No Streamlit here, so the tests
call it directly.
"""

from __future__ import annotations

import time
from typing import Any

import duckdb

from analytics import queries as aq
from dashboards import data

LIMIT = 1000
"""Games fitted by default (the latest): the page runs in a few seconds."""
MIN_GAMES, MAX_GAMES = 50, 100_000
"""Bounds of the page's "fit at most" input."""


def version(con: duckdb.DuckDBPyConnection) -> str:
    """What the warehouse holds now, as a cache key: its latest DuckLake snapshot id, else (plain
    Parquet, no snapshots) the newest ingest time."""
    cur = con.cursor()
    try:
        lake = cur.execute("SELECT count(*) FROM duckdb_databases() WHERE database_name = 'lake'").fetchone()[0]
        if lake:
            return f"snapshot {cur.execute('SELECT max(snapshot_id) FROM lake.snapshots()').fetchone()[0]}"
        return f"ingested {data.last_ingested(con)}"
    finally:
        cur.close()


def games(con: duckdb.DuckDBPyConnection, variant: str) -> int:
    """Games of ``variant`` that :func:`report` may fit: outside tuning experiments, valid or not."""
    cur = con.cursor()
    try:
        return int(cur.execute(f"SELECT count(*) FROM games WHERE variant = $variant AND {aq.no_experiment(con, 'games')}",
                               {"variant": variant}).fetchone()[0])
    finally:
        cur.close()


def implemented(variant: str) -> bool:
    """True when the engine replays ``variant`` (only then can its games be fitted)."""
    from replay import variants

    spec = variants.VARIANTS.get(variant)
    return spec is not None and spec.implemented


def report(con: duckdb.DuckDBPyConnection, variant: str, limit: int = LIMIT,
           without_rules: bool = False) -> dict[str, Any] | None:
    """:meth:`analytics.fit.FitResult.to_json` of the latest ``limit`` stored games of ``variant``
    (outside experiments), plus ``seconds`` (the fit's wall time); None when there is none.
    ``without_rules``: as if no record carried its ``rules`` object (``paipu fit --without-rules``).

    :raises ValueError: ``variant`` is not implemented.
    """
    from analytics import fit

    lines = fit.warehouse_games(con, variant, limit)
    if not lines:
        return None
    t0 = time.monotonic()
    # one process: the dashboard's server is shared by every session, and a default bound is one or a few chunks
    res = fit.fit(lines, variant, workers=1, without_rules=without_rules)
    return {**res.to_json(), "seconds": round(time.monotonic() - t0, 2)}


def show(v: Any) -> str:
    """An option value as ``--rules`` spells it (``true``, ``3``, ``shangxia``)."""
    return str(v).lower() if isinstance(v, bool) else str(v)
