"""A synthetic warehouse of many games and the latency of the queries people wait for.

``ensure_warehouse(games)`` writes, once, a DuckLake warehouse of ``games`` synthetic games with the
columns of ``ingest.schema.TABLES`` (docs/warehouse.md) — ``games``, ``seats``, ``xing``,
``melds`` and ``rejects`` (``actions`` only when asked: no page or report query reads it) —
partitioned like ingest writes it: ``<table>/variant=<id>/month=<YYYY-MM>/<20 hex>-0000.parquet``,
one shard per table per synthetic input file of :data:`FILE_GAMES` games (about 11 MB of
``games``), zstd, pyarrow's row groups. Input file ``k`` of a variant holds games started in one
month, the ``k % MONTHS``-th from :data:`FIRST_MONTH` (its rejects too), so a file never straddles
two month folders: 1M games make 40 files per table in 28 variant × month folders. Those files are
written in the plain-Parquet layout, then converted by ``ingest.warehouse.migrate`` (``paipu
migrate``) into DuckLake, so the queries read the lakehouse as the dashboard does.
Rows are drawn with numpy and polars from a seed; ``record_json`` holds real simulated lines of
the variant (cycled), so the audit page's ``SELECT *`` reads realistic bytes. The folder is cached
under ``build/bench/`` keyed by games, seed, the months and a hash of the table schemas (a schema
or layout change regenerates it).

``time_queries`` opens the warehouse as the dashboard does (``dashboards.data.connect``: the
hardened in-memory DuckDB of ``ingest.views``) and times, in wall seconds, every query the
dashboard pages run (``dashboards.data``) and every query ``paipu report`` runs
(``analytics.queries`` as ``analytics.cli.print_report`` calls them), plus the whole report:
one warm-up then ``reps`` timed runs each → p50 and p95.
"""

from __future__ import annotations

import hashlib
import io
import json
import random
import shutil
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

from bench.common import BUILD, percentile

FILE_GAMES = 25_000
"""Games per synthetic input file (one shard per table per file, as ingest writes them)."""

MIX = {"guilin": 0.40, "zipai": 0.20, "yuanjiang_guihuzi": 0.10, "tongcheng_gezi": 0.10,
       "sanjing_huapai": 0.05, "wujing_huapai": 0.05, "shuangbiegan_huapai": 0.05, "shangdaren": 0.05}
"""Share of each variant in the synthetic warehouse."""

ZIPAI_FAMILY = {"guilin", "zipai"}
HAND_TYPES = {"guilin": ["zimo", "haidi", "tianhu", "dihu", "sanlong_wukan"],
              "zipai": ["zimo", "haidi", "tianhu", "dihu"]}
DEFAULT_TYPES = ["zimo", "pinghu", "qingyise", "dadui", "tianhu"]
ERRORS = [("illegal_action", "guilin.chi"), ("wall_mismatch", "paipu.wall"), ("result_mismatch", "paipu.result"),
          ("missing_forced_action", "guilin.sao"), ("truncated", "paipu.end"), ("priority_violation", "paipu.priority")]
REJECTS = [("bad_json", "paipu.json"), ("schema", "paipu.schema"), ("unknown_variant", "paipu.variant"),
           ("deck_mismatch", "paipu.deck")]
PLAYERS = 2_000
MONTHS = 6
"""Months the synthetic games started in (one per input file, in turn)."""
FIRST_MONTH = (2026, 5)
"""The first of them (2026-05 … 2026-10; every game before the ingest date, 2026-11-20)."""


def _file_month(k: int) -> tuple[int, int]:
    """(year, month) of synthetic input file ``k`` of a variant."""
    n = FIRST_MONTH[0] * 12 + FIRST_MONTH[1] - 1 + k % MONTHS
    return n // 12, n % 12 + 1


def schema_hash() -> str:
    from ingest.schema import TABLES

    return hashlib.sha256(json.dumps({t: [(f.name, str(f.type)) for f in s] for t, s in TABLES.items()},
                                     sort_keys=True).encode()).hexdigest()[:10]


def warehouse_path(games: int, seed: int, actions: bool, build: Path = BUILD) -> Path:
    return build / f"warehouse-{games}g-s{seed}{'-a' if actions else ''}-m{MONTHS}-dl-{schema_hash()}"


def _split(games: int) -> dict[str, int]:
    out = {v: int(games * share) for v, share in MIX.items()}
    out["guilin"] += games - sum(out.values())
    return {v: n for v, n in out.items() if n}


def _to_arrow(df, schema, n: int):
    """``df`` (polars) as a pyarrow table of exactly ``schema``; columns it lacks are typed nulls."""
    import pyarrow as pa

    t = df.to_arrow()
    cols = []
    for f in schema:
        if f.name in t.column_names:
            cols.append(t.column(f.name).cast(f.type))
        else:
            cols.append(pa.nulls(n, f.type))
    return pa.Table.from_arrays(cols, schema=schema)


def _frames(variant: str, start: int, n: int, seed: int, lines: list[str], actions: bool) -> dict[str, Any]:
    """Polars frames of every table for games ``start .. start+n`` of ``variant`` (vectorised:
    numpy draws, polars expressions, list columns gathered from small lookup series)."""
    import numpy as np
    import polars as pl

    from replay import ENGINE_VERSION

    rng = np.random.default_rng([seed, start, int(hashlib.sha256(variant.encode()).hexdigest()[:8], 16)])
    year, month = _file_month(start // FILE_GAMES)
    seats_n = 4 if variant in ("tongcheng_gezi", "shangdaren") and (start // FILE_GAMES) % 2 else 3
    zipai = variant in ZIPAI_FAMILY
    col, lit, when = pl.col, pl.lit, pl.when
    kinds = pl.Series(["zimo", "dianpao", "flip", "deal"])
    types = HAND_TYPES.get(variant, DEFAULT_TYPES)
    # hand_types: code 0 = [], 1 = [zimo], 2 + t = [zimo, types[t]], 2 + len + t = [types[t]]
    ht_lookup = pl.Series([[], ["zimo"], *(["zimo", t] for t in types), *([t] for t in types)],
                          dtype=pl.List(pl.String))
    wk = rng.choice(4, n, p=[0.3, 0.3, 0.38, 0.02])
    rare = rng.random(n) < 0.12
    tsel = rng.integers(0, len(types), n)
    win = rng.random(n) < 0.88
    valid = rng.random(n) < 0.97
    win &= valid
    ht_code = np.where(~win, 0, np.where(wk == 0, np.where(rare, 2 + tsel, 1), np.where(rare, 2 + len(types) + tsel, 0)))
    pool = pl.Series(lines or ["{}"], dtype=pl.String)
    err = pl.Series([e[0] for e in ERRORS]), pl.Series([e[1] for e in ERRORS])
    rulesets = pl.Series([f"{variant}-default", f"{variant}-3f2a9c01de", f"{variant}-a81b7700c2", f"{variant}-0c9d4e5f61"])
    rs = np.where(rng.random(n) < 0.85, 0, rng.integers(1, 4, n))
    ei = rng.integers(0, len(ERRORS), n)
    base = pl.DataFrame({
        "i": np.arange(start, start + n, dtype=np.int64), "valid": valid, "win": win, "wk": wk,
        "winner": rng.integers(0, seats_n, n), "points": rng.integers(10, 45, n), "extra": rng.integers(0, 4, n),
        "xing_count": rng.integers(0, 7, n), "n_actions": rng.integers(10, 90, n), "wall_left": rng.integers(0, 20, n),
        "error_step": rng.integers(0, 40, n), "card": rng.integers(1, 11, n), "h1": rng.integers(0, 1 << 62, n),
        "h2": rng.integers(0, 1 << 62, n),
    })
    gid = pl.format("bench-{}-{}", lit(variant), col("i").cast(pl.String).str.zfill(7))
    games = base.with_columns(
        game_id=gid,
        ruleset_id=rulesets.gather(rs),
        rules_json=pl.Series(np.where(rs == 0, "{}", '{"tuo_step": 3}')),
        engine_version=lit(ENGINE_VERSION),
        record_sha256=pl.concat_str([col("h1").cast(pl.String).str.zfill(32), col("h2").cast(pl.String).str.zfill(32)]),
        source_file=lit(f"/srv/logs/{variant}/{year}-{month:02d}-{start // FILE_GAMES}.jsonl"),
        source_line=col("i") % FILE_GAMES + 1,
        # one game a minute from the 1st: 25,000 games end on the 18th, inside the file's month
        started_at=lit(datetime(year, month, 1, tzinfo=timezone.utc))
        + pl.duration(minutes=col("i") % FILE_GAMES),
        table_id=pl.format("t{}", col("i") // 8),
        round=col("i") % 8 + 1,
        stake=lit(1, pl.Int64),
        n_seats=lit(seats_n, pl.Int64),
        dealer=col("i") % seats_n,
        error_code=when(~col("valid")).then(err[0].gather(ei)),
        error_rule=when(~col("valid")).then(err[1].gather(ei)),
        error_message=when(~col("valid")).then(lit("synthetic error for the benchmark")),
        error_step=when(~col("valid")).then(col("error_step")),
        n_errors=(~col("valid")).cast(pl.Int64),
        outcome=when(col("win")).then(lit("win")).when(col("valid")).then(lit("draw")),
        winner=when(col("win")).then(col("winner")),
        win_card=when(col("win")).then(pl.format("x{}", col("card"))),
        win_from=when(col("win") & (col("wk") == 1)).then((col("winner") + 1) % seats_n),
        win_kind=when(col("win")).then(kinds.gather(wk)),
        points=when(col("win")).then(col("points")),
        units=when(col("win")).then((col("points") - 10) // 5 + 1 + col("extra")),
        tuo=when(col("win") & lit(zipai)).then((col("points") - 10) // 5 + 1),
        hand_types=ht_lookup.gather(ht_code),
        xing_count=when(col("win") & lit(zipai)).then(col("xing_count")),
        breakdown_json=when(col("win")).then(pl.concat_str([lit('{"tuo": '), ((col("points") - 10) // 5 + 1).cast(pl.String),
                                                             lit(', "xing": '), col("xing_count").cast(pl.String), lit("}")])),
        claimed=lit(True),
        claim_matches=when(col("valid")).then(lit(True)),
        wall_left=when(col("valid")).then(col("wall_left")),
        record_json=pool.gather(np.arange(start, start + n) % len(pool)),
        ingested_at=lit(datetime(2026, 11, 20, tzinfo=timezone.utc)),
    )
    g = np.repeat(np.arange(n), seats_n)
    seat = np.tile(np.arange(seats_n), n)
    gv = games.select("game_id", "ruleset_id", "valid", "win", "winner", "wk", "points", "i")[g]
    seats = gv.with_columns(
        seat=pl.Series(seat),
        player_id=pl.format("p{}", pl.Series(rng.integers(0, PLAYERS, n * seats_n)).cast(pl.String).str.zfill(4)),
    ).with_columns(
        is_dealer=col("seat") == col("i") % seats_n,
        is_winner=when(col("valid")).then(col("win") & (col("winner") == col("seat"))),
    ).with_columns(
        score=when(col("valid")).then(
            when(col("is_winner")).then(((col("points") - 10) // 5 + 1) * (seats_n - 1))
            .otherwise(when(col("win")).then(-((col("points") - 10) // 5 + 1)).otherwise(0))),
        dianpao=when(col("valid")).then(col("win") & (col("wk") == 1) & (col("seat") == (col("winner") + 1) % seats_n)),
        n_melds=when(col("valid")).then(pl.Series(rng.integers(0, 6, n * seats_n))),
        win_kind=when(col("win")).then(kinds.gather(gv["wk"].to_numpy())),
    )
    out = {"games": games, "seats": seats}
    if zipai:
        w = games.filter(col("win"))
        out["xing"] = w.select("game_id", "ruleset_id", "winner", count="xing_count").with_columns(
            mode=lit("shangzhongxia" if variant == "guilin" else "fanxing"),
            cards=pl.Series([[f"d{k}"] for k in range(1, 11)]).gather(rng.integers(0, 10, w.height)))
    m_per = 6
    mk = pl.Series(["chi", "peng", "sao", "kan", "shunzi", "kai_duo"])
    mc = pl.Series([["x1", "x2", "x3"], ["d5", "d5", "d5"], ["x8", "x8", "x8"], ["d2", "d2", "d2"],
                    ["x4", "x5", "x6"], ["d9", "d9", "d9", "d9"]])
    mi = rng.integers(0, 6, n * m_per)
    out["melds"] = pl.DataFrame({
        "game_id": games["game_id"].gather(np.repeat(np.arange(n), m_per)),
        "seat": rng.integers(0, seats_n, n * m_per), "kind": mk.gather(mi), "cards": mc.gather(mi),
        "points": rng.integers(0, 7, n * m_per), "origin": np.where(np.isin(mi, [3, 4]), "hand", "table"),
    })
    nrej = max(1, n // 100)
    rcodes = pl.Series([r[0] for r in REJECTS]), pl.Series([r[1] for r in REJECTS])
    rj = rng.integers(0, len(REJECTS), nrej)
    raw = pool.gather(np.arange(nrej) % len(pool))
    out["rejects"] = pl.DataFrame({"k": np.arange(start, start + nrej)}).with_columns(
        source_file=lit(f"/srv/logs/{variant}/rejects.jsonl"), source_line=col("k") + 1,
        game_id=pl.format("bench-{}-rej-{}", lit(variant), col("k")), code=rcodes[0].gather(rj),
        rule=rcodes[1].gather(rj), message=lit("synthetic reject for the benchmark"),
        raw_sha256=pl.format("{}", col("k").hash(seed)).str.zfill(64), raw=raw.str.slice(0, 4096),
        raw_bytes=raw.str.len_bytes().cast(pl.Int64), claimed_variant=lit(variant),
        ingested_at=lit(datetime(2026, 11, 20, tzinfo=timezone.utc)))
    if actions:
        a_per = 40
        na = n * a_per
        out["actions"] = pl.DataFrame({
            "game_id": games["game_id"].gather(np.repeat(np.arange(n), a_per)),
            "step": np.tile(np.arange(a_per), n), "seat": rng.integers(0, seats_n, na),
            "act": pl.Series(["draw", "discard", "chi", "peng", "pass"]).gather(rng.integers(0, 5, na)),
            "card": pl.Series([f"x{k}" for k in range(1, 11)]).gather(rng.integers(0, 10, na)),
        })
    return out


def _pool_lines(variant: str, corpora: dict[str, str] | None, keep: int = 2_000) -> list[str]:
    """Real lines of ``variant`` for ``record_json``: from its bench corpus, else 50 simulated."""
    p = (corpora or {}).get(variant)
    if p and Path(p).exists():
        out = []
        with open(p, encoding="utf-8") as f:
            for line in f:
                out.append(line.rstrip("\n"))
                if len(out) >= keep:
                    break
        return out
    import msgspec

    from replay.simulator import simulate

    try:
        return [msgspec.json.encode(r).decode() for r in simulate(variant, 50, 1, bots="random")]
    except Exception:  # a variant that cannot simulate yet still gets rows
        return ['{"format": "paipu/1"}']


def ensure_warehouse(games: int = 1_000_000, seed: int = 1, *, corpora: dict[str, str] | None = None,
                     actions: bool = False, build: Path = BUILD) -> tuple[Path, dict[str, Any]]:
    """Write (once) the synthetic warehouse; returns its folder and facts (rows, bytes, seconds)."""
    import pyarrow.parquet as pq

    from ingest.schema import MONTH, PARTITION, TABLES

    root = warehouse_path(games, seed, actions, build)
    done = root.with_name(root.name + ".done.json")
    if done.exists() and root.is_dir():
        info = json.loads(done.read_text())
        info["cached"] = True
        return root, info
    shutil.rmtree(root, ignore_errors=True)
    t0 = time.perf_counter()
    rows: dict[str, int] = {}
    for variant, n in _split(games).items():
        pool = _pool_lines(variant, corpora)
        for start in range(0, n, FILE_GAMES):
            k = min(FILE_GAMES, n - start)
            shard = hashlib.sha256(f"{variant}:{start}:{seed}".encode()).hexdigest()[:20] + "-0000.parquet"
            year, month = _file_month(start // FILE_GAMES)
            for table, df in _frames(variant, start, k, seed, pool, actions).items():
                folder = root / table / f"{PARTITION}={variant}" / f"{MONTH}={year}-{month:02d}"
                folder.mkdir(parents=True, exist_ok=True)
                pq.write_table(_to_arrow(df, TABLES[table], df.height), folder / shard, compression="zstd")
                rows[table] = rows.get(table, 0) + df.height
    written = time.perf_counter() - t0
    from ingest.warehouse import migrate

    migrate(root)  # into DuckLake, as `paipu migrate` does: the queries read the lakehouse
    size = sum(p.stat().st_size for p in root.rglob("*.parquet"))
    info = {"games": games, "seed": seed, "rows": rows, "bytes": size, "seconds": round(time.perf_counter() - t0, 1),
            "write_seconds": round(written, 1), "migrate_seconds": round(time.perf_counter() - t0 - written, 1),
            "files": sum(1 for _ in root.rglob("*.parquet")), "schema": schema_hash(), "format": "ducklake"}
    done.write_text(json.dumps(info))
    info["cached"] = False
    return root, info


def query_plan(con: Any, game_ids: list[tuple[str, str]]) -> list[tuple[str, str, Callable[[int], Any]]]:
    """(page, name, call(rep)) of every query to time. Queries that no longer exist are skipped."""
    import dashboards.data as d
    from analytics import queries as q

    f = d.Filters()
    out: list[tuple[str, str, Callable[[int], Any]]] = []

    def add(page: str, name: str, fn: Callable[[int], Any]) -> None:
        out.append((page, name, fn))

    add("sidebar", "filter_choices", lambda r: d.filter_choices(con))
    for name in ("summary", "rejects_by_code", "win_rate_by_role", "win_rate_by_seat", "win_kinds", "errors_by_code"):
        if hasattr(d, name):
            add("overview", name, lambda r, fn=getattr(d, name): fn(con, f))
    if hasattr(d, "hand_type_counts"):
        add("hand_types", "hand_type_counts", lambda r: d.hand_type_counts(con, f))
    for col in ("xing_count", "points", "units"):
        add("hand_types", f"value_counts[{col}]", lambda r, c=col: d.value_counts(con, f, c))
    add("audit", "invalid_games", lambda r: d.invalid_games(con, f))
    add("audit", "find_game", lambda r: d.find_game(con, game_ids[r % len(game_ids)][0]))
    add("audit", "game_seats", lambda r: d.game_seats(con, *game_ids[r % len(game_ids)]))
    add("audit", "find_rejects", lambda r: d.find_rejects(con, game_ids[r % len(game_ids)][0]))
    report = [("overview", {}), ("rejects_by_code", None), ("errors_by_code", {}), ("variants_and_rulesets", None),
              ("win_rate_by_seat", {}), ("win_rate_by_dealer", {}), ("draw_rate", {}), ("win_kind_mix", {}),
              ("hand_type_freq", {}), ("xing_distribution", {}), ("mean_points", {}),
              ("player_stats", {"limit": 20}), ("score_flow", {"limit": 20})]
    for name, kw in report:
        fn = getattr(q, name, None)
        if fn is None:
            continue
        if kw is None:
            add("report", name, lambda r, fn=fn: fn(con) if fn.__name__ == "variants_and_rulesets" else fn(con, None))
        else:
            add("report", name, lambda r, fn=fn, kw=kw: fn(con, **kw))

    def whole_report(r: int) -> None:
        from rich.console import Console

        from analytics.cli import print_report

        print_report(con, Console(file=io.StringIO(), width=120))

    add("report", "paipu report (all)", whole_report)
    return out


def time_queries(root: Path, reps: int = 10, seed: int = 1) -> dict[str, Any]:
    """p50/p95 wall milliseconds of every query of :func:`query_plan` (one warm-up, ``reps`` timed)."""
    import dashboards.data as d

    t0 = time.perf_counter()
    con = d.connect(root)
    connect_ms = (time.perf_counter() - t0) * 1e3
    cur = con.cursor()
    try:
        ids = cur.sql("SELECT game_id, variant FROM games USING SAMPLE 200 ROWS (reservoir, 7)").fetchall()
    finally:
        cur.close()
    random.Random(seed).shuffle(ids)
    out: dict[str, Any] = {"connect_ms": round(connect_ms, 1), "reps": reps, "queries": {}}
    for page, name, fn in query_plan(con, ids or [("none", "guilin")]):
        key = f"{page}.{name}"
        try:
            fn(reps)  # warm-up (file metadata, page cache)
            ms = []
            for r in range(reps):
                t = time.perf_counter()
                fn(r)
                ms.append((time.perf_counter() - t) * 1e3)
        except Exception as e:  # a query another engineer is changing must not stop the bench
            out["queries"][key] = {"page": page, "error": f"{type(e).__name__}: {e}"[:300]}
            continue
        out["queries"][key] = {"page": page, "p50_ms": round(percentile(ms, 0.5), 2),
                               "p95_ms": round(percentile(ms, 0.95), 2), "max_ms": round(max(ms), 2)}
    con.close()
    return out


# --- ingest throughput: concurrent writers and Dask ---------------------------------------------

_WRITER = """
import json, sys, time
from ingest.run import ingest
t0 = time.perf_counter()
rep = ingest([sys.argv[1]], sys.argv[2], workers=1, progress=False, engine=sys.argv[3],
             catalog=sys.argv[4] or None)
tot = rep.total()
print(json.dumps({"games": tot.valid + tot.invalid, "seconds": time.perf_counter() - t0,
                  "commit_attempts": rep.commit_attempts}))
"""


def _writer_input(inp: Path, k: int, out: Path) -> Path:
    """``inp`` with every ``game_id`` suffixed ``-w<k>``: writer ``k``'s own games (same bytes
    otherwise, so every writer replays the same work and none of it is a duplicate)."""
    dest = out / f"writer{k}-{inp.name}"
    if not dest.exists():
        out.mkdir(parents=True, exist_ok=True)
        with open(inp, "rb") as src, open(dest, "wb") as f:
            for line in src:
                rec = json.loads(line)
                rec["game_id"] = f"{rec['game_id']}-w{k}"
                f.write(json.dumps(rec, ensure_ascii=False).encode() + b"\n")
    return dest


def time_writers(inp: Path, build: Path, writers: int, *, catalog: str | None = None) -> dict[str, Any]:
    """``writers`` ingest processes started together into one new warehouse (the embedded catalog,
    or ``catalog``), each with 1 worker and its own copy of ``inp`` (:func:`_writer_input`).

    :returns: ``games`` (all writers), ``seconds`` (wall, first start to last exit, interpreter
        start included), ``games_per_s`` (wall), each writer's own seconds and commit attempts.
    """
    import subprocess
    import sys

    from bench.common import ROOT

    wh = build / "tmp" / f"writers-{writers}"
    shutil.rmtree(wh, ignore_errors=True)
    inputs = [_writer_input(inp, k, build / "ingest" / "writers") for k in range(writers)]
    t0 = time.perf_counter()
    procs = [subprocess.Popen([sys.executable, "-c", _WRITER, str(p), str(wh), "process", catalog or ""], cwd=ROOT,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for p in inputs]
    outs = []
    for p in procs:
        out, err = p.communicate(timeout=3600)
        if p.returncode:
            raise RuntimeError(f"writer failed ({p.returncode}): {err[-2000:]}")
        outs.append(json.loads(out.strip().splitlines()[-1]))
    seconds = time.perf_counter() - t0
    shutil.rmtree(wh, ignore_errors=True)
    games = sum(o["games"] for o in outs)
    return {"writers": writers, "games": games, "seconds": round(seconds, 2), "games_per_s": games / seconds,
            "writer_seconds": [round(o["seconds"], 2) for o in outs],
            "commit_attempts": [o["commit_attempts"] for o in outs], "catalog": "postgres" if catalog else "sqlite"}


def time_dask(inp: Path, build: Path, workers: int) -> dict[str, Any]:
    """One ``--engine dask`` ingest of ``inp`` on a local cluster of ``workers`` processes (the
    workers write the staged rows, :func:`ingest.run.stage_chunk`), in a fresh interpreter.

    :returns: ``games``, ``seconds`` (wall, the cluster's start included), ``games_per_s``.
    """
    import subprocess
    import sys

    from bench.common import ROOT

    wh = build / "tmp" / "dask-wh"
    shutil.rmtree(wh, ignore_errors=True)
    code = _WRITER.replace("workers=1", f"workers={int(workers)}")
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-c", code, str(inp), str(wh), "dask", ""], cwd=ROOT, capture_output=True,
                       text=True, timeout=3600)
    seconds = time.perf_counter() - t0
    shutil.rmtree(wh, ignore_errors=True)
    if p.returncode:
        raise RuntimeError(f"dask ingest failed ({p.returncode}): {p.stderr[-2000:]}")
    out = json.loads(p.stdout.strip().splitlines()[-1])
    return {"workers": workers, "games": out["games"], "seconds": round(seconds, 2),
            "games_per_s": out["games"] / seconds, "ingest_seconds": round(out["seconds"], 2)}
