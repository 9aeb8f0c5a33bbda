"""``make bench`` (= ``python -m bench.run``): every figure of bench/README.md in one run.

Writes ``bench/results.json`` (``--quick``: ``build/bench/results-quick.json``), prints a table of
every figure with its ratio to the yardstick (python-chess plies/s, measured at the start and at
the end of the same run), the targets, and the ratio of each figure to the last committed
``bench/results.json`` (``git show HEAD:bench/results.json``). Never fails on speed: a slower
figure is printed, not raised (the regression guard is a human reading the ratios).

Sections (``--only``): ``replay`` (simulated corpora per implemented variant: decode and replay
events/s and games/s per core), ``scorer`` (桂林 hands/s, cold and warm memo), ``ingest`` (games/s
with 1 and 2 workers, peak memory, the 1M-game estimate; games/s of 1, 2 and 4 ingests at once into
one warehouse and of ``--engine dask``), ``queries`` (p50/p95 of the dashboard
pages' and ``paipu report``'s queries on a synthetic warehouse of ``--warehouse-games`` games),
``duplicate`` (the rule-aware bot against the heuristic bot in duplicate matches, bench/duplicate.py:
units a game with a 95% interval per variant, on ``--duplicate-deals`` deals).

Ratios to the yardstick: a rate is given as ``rate / plies_per_s`` (2.0 = twice python-chess's
plies/s); a time as ``seconds × plies_per_s`` (how many plies python-chess replays meanwhile).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from bench.common import BUILD, RESULTS, ROOT, cpus, loadavg, machine
from replay.progress import Meter

SECTIONS = ("replay", "scorer", "ingest", "queries", "duplicate")


@dataclass
class Config:
    """What one run measures and on how much data."""

    quick: bool = False
    games: int = 20_000  # simulated games per variant
    seed: int = 1
    bots: str = "random"
    variants: list[str] = field(default_factory=list)  # empty: every implemented variant
    hands: int = 20_000
    ingest_games: int = 5_000
    warehouse_games: int = 1_000_000
    warehouse_actions: bool = False
    reps: int = 10
    duplicate_deals: int = 200  # deals per variant of the duplicate matches (each played n + 1 times)
    chess_games: int = 300
    workers: int = 0  # 0: the cores this process may use
    only: list[str] = field(default_factory=lambda: list(SECTIONS))
    build: str = str(BUILD)
    out: str = str(RESULTS)

    @classmethod
    def quick_defaults(cls) -> "Config":
        return cls(quick=True, games=200, hands=2_000, ingest_games=200, warehouse_games=20_000, reps=3, duplicate_deals=4,
                   chess_games=30, out=str(BUILD / "results-quick.json"))


def _say(msg: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def implemented_variants() -> list[str]:
    from replay import variants

    return [v.id for v in variants.VARIANTS.values() if v.implemented]


# -- the sections ---------------------------------------------------------------------------------

def run_yardstick(cfg: Config, workers: int = 1) -> dict[str, Any]:
    """python-chess plies/s per core, timed in ``workers`` processes at once — the way the replay
    timers run, so both figures share the machine alike (on 2 cores two busy processes slow each
    other by up to a third here). ``solo_plies_per_s``: one process alone. ``{"error": ...}`` (and
    no ratios) when python-chess is not installed."""
    from bench.common import pool
    from bench.yardstick import ensure_pgn, time_pgn

    try:
        path = ensure_pgn(cfg.chess_games, cfg.seed, build=Path(cfg.build))
    except RuntimeError as e:
        _say(f"no yardstick: {e}")
        return {"error": str(e), "plies_per_s": 0.0}
    solo = time_pgn(path)
    if workers <= 1:
        return {**solo, "solo_plies_per_s": solo["plies_per_s"], "processes": 1}
    with pool(workers) as ex:
        runs = list(ex.map(time_pgn, [path] * workers))
    return {**runs[0], "plies_per_s": sum(r["plies_per_s"] for r in runs) / len(runs),
            "solo_plies_per_s": solo["plies_per_s"], "processes": workers}


def run_replay(cfg: Config, workers: int) -> dict[str, Any]:
    from bench.corpus import ensure_corpora, time_replays

    vs = cfg.variants or implemented_variants()
    t0 = time.perf_counter()
    corpora = ensure_corpora(vs, cfg.games, cfg.seed, cfg.bots, workers, Path(cfg.build))
    gen_s = time.perf_counter() - t0
    _say(f"corpora ready in {gen_s:.0f} s ({sum(not c['cached'] for c in corpora.values())} generated); timing replay")
    timed = time_replays({v: c["path"] for v, c in corpora.items()}, workers)
    for v in vs:
        timed[v]["corpus"] = corpora[v]
        if timed[v]["valid"] < timed[v]["games"]:  # simulated logs are valid by construction
            _say(f"WARNING {v}: {timed[v]['valid']}/{timed[v]['games']} valid — an engine change since the corpus "
                 f"was simulated? delete {corpora[v]['path']} to simulate anew. First error: {timed[v]['first_error']}")
    return {"games_per_variant": cfg.games, "bots": cfg.bots, "seed": cfg.seed, "corpus_seconds": round(gen_s, 1),
            "variants": timed}


def run_scorer(cfg: Config) -> dict[str, Any]:
    from bench.hands import build_hands, time_scorer

    hands = build_hands(cfg.hands, cfg.seed)
    return {"guilin": time_scorer(hands)}


def run_ingest(cfg: Config) -> dict[str, Any]:
    from bench.corpus import corpus_path, ensure_corpora, read_corpus
    from bench.ingest_probe import run_probe

    build = Path(cfg.build)
    src = corpus_path("guilin", cfg.games, cfg.seed, cfg.bots, build)
    if not src.exists():
        ensure_corpora(["guilin"], cfg.games, cfg.seed, cfg.bots, max(1, cfg.workers or cpus()), build)
    inp = build / "ingest" / f"guilin-{cfg.ingest_games}g-from-{src.stem}.jsonl"
    if not inp.exists():
        lines = read_corpus(src)[:cfg.ingest_games]
        inp.parent.mkdir(parents=True, exist_ok=True)
        inp.write_bytes(b"".join(x + b"\n" for x in lines))
    out: dict[str, Any] = {"input": str(inp), "input_bytes": inp.stat().st_size, "runs": {}}
    for w in (1, 2):
        la = loadavg()
        r = run_probe(inp, build / "tmp" / f"ingest-wh-{w}", w)
        r["loadavg_before"] = la
        out["runs"][f"w{w}"] = r
    # 1, 2 and 4 ingests at once into one warehouse (embedded catalog), and --engine dask
    from bench.warehouse import time_dask, time_writers

    out["writers"] = {}
    for n in (1, 2, 4):
        _say(f"ingest: {n} concurrent writer(s) of {cfg.ingest_games} games each")
        out["writers"][f"n{n}"] = time_writers(inp, build, n)
    _say(f"ingest: --engine dask, local cluster of {max(2, cfg.workers or cpus())} workers")
    try:
        out["dask"] = time_dask(inp, build, max(2, cfg.workers or cpus()))
    except RuntimeError as e:  # e.g. the dask extra missing: said, not fatal
        out["dask"] = {"error": str(e)[-500:]}
    w2 = out["runs"]["w2"]
    out["estimate_1M_guilin_minutes_2cores"] = {
        "wall": 1e6 / w2["games_per_s"] / 60 if w2["games_per_s"] else None,
        "cpu": 1e6 / (2 * w2["games_per_cpu_s"]) / 60 if w2["games_per_cpu_s"] else None,
    }
    return out


def run_queries(cfg: Config, replay_section: dict[str, Any] | None) -> dict[str, Any]:
    from bench.warehouse import ensure_warehouse, time_queries

    corpora = {v: r["corpus"]["path"] for v, r in (replay_section or {}).get("variants", {}).items()}
    if not corpora:
        from bench.corpus import corpus_path

        corpora = {v: str(corpus_path(v, cfg.games, cfg.seed, cfg.bots, Path(cfg.build))) for v in implemented_variants()}
    root, info = ensure_warehouse(cfg.warehouse_games, cfg.seed, corpora=corpora, actions=cfg.warehouse_actions,
                                  build=Path(cfg.build))
    _say(f"warehouse of {cfg.warehouse_games} games {'cached' if info.get('cached') else 'written'}; timing queries")
    la = loadavg()
    res = time_queries(root, cfg.reps, cfg.seed)
    res.update(warehouse=str(root), warehouse_info=info, loadavg_before=la)
    return res


def run_duplicate(cfg: Config, workers: int) -> dict[str, Any]:
    """Duplicate matches of the rule-aware bot against the heuristic bot, per variant (bench/duplicate.py)."""
    from bench.duplicate import match

    out = {}
    for v in cfg.variants or implemented_variants():
        t0 = time.perf_counter()
        out[v] = match(v, cfg.duplicate_deals, cfg.seed, workers=workers)
        del out[v]["_rows"]  # per-deal details: ``gains`` keeps what the interval is made of
        out[v]["wall_s"] = round(time.perf_counter() - t0, 1)
        r = out[v]
        _say(f"duplicate {v}: {r['units_per_game']:+.2f} units a game [{r['low']:+.2f}, {r['high']:+.2f}] "
             f"over {r['deals']} deals ({r['wall_s']:.0f} s)")
    return {"deals": cfg.duplicate_deals, "seed": cfg.seed, "loadavg_after": loadavg(), "variants": out}


# -- figures, table, comparison ---------------------------------------------------------------

def figures(results: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Flat ``{id: {value, unit, better, x_yardstick}}`` of every figure of a results dict."""
    ply = results.get("yardstick", {}).get("plies_per_s") or 0.0
    out: dict[str, dict[str, Any]] = {}

    def rate(fid: str, v: float | None, unit: str) -> None:
        if v is not None:
            out[fid] = {"value": v, "unit": unit, "better": "higher", "x_yardstick": v / ply if ply else None}

    def secs(fid: str, s: float | None, unit: str = "ms", scale: float = 1e-3) -> None:
        if s is not None:
            out[fid] = {"value": s, "unit": unit, "better": "lower", "x_yardstick": s * scale * ply if ply else None}

    rate("yardstick.chess.plies_per_s", ply or None, "plies/s/core")
    for v, r in results.get("replay", {}).get("variants", {}).items():
        rate(f"replay.{v}.decode.events_per_s", r["decode_events_per_s"], "events/s/core")
        rate(f"replay.{v}.decode.games_per_s", r["decode_games_per_s"], "games/s/core")
        rate(f"replay.{v}.replay.events_per_s", r["replay_events_per_s"], "events/s/core")
        rate(f"replay.{v}.replay.games_per_s", r["replay_games_per_s"], "games/s/core")
        rate(f"replay.{v}.decode+replay.events_per_s", r["decode_replay_events_per_s"], "events/s/core")
    for v, r in results.get("scorer", {}).items():
        rate(f"scorer.{v}.cold.hands_per_s", r["cold_hands_per_s"], "hands/s/core")
        rate(f"scorer.{v}.warm.hands_per_s", r["warm_hands_per_s"], "hands/s/core")
    ing = results.get("ingest", {})
    for w, r in ing.get("runs", {}).items():
        rate(f"ingest.{w}.games_per_s", r["games_per_s"], "games/s (wall)")
        rate(f"ingest.{w}.games_per_cpu_s", r["games_per_cpu_s"], "games/CPU-s")
        out[f"ingest.{w}.peak_rss_mb"] = {"value": r["peak_rss_mb"], "unit": "MB (tree, sampled)", "better": "lower",
                                          "x_yardstick": None}
        # not getrusage maxrss: inherited across exec from the bench process (bench/ingest_probe.py)
    for n, r in ing.get("writers", {}).items():
        rate(f"ingest.writers.{n}.games_per_s", r["games_per_s"], "games/s (wall, all writers)")
    if ing.get("dask", {}).get("games_per_s"):
        rate(f"ingest.dask.w{ing['dask']['workers']}.games_per_s", ing["dask"]["games_per_s"],
             "games/s (wall, cluster start included)")
    est = ing.get("estimate_1M_guilin_minutes_2cores", {})
    for k in ("wall", "cpu"):  # an estimate: its ratio is that of the games/s it comes from
        if est.get(k) is not None:
            out[f"ingest.1M_guilin_2cores.{k}_minutes"] = {"value": est[k], "unit": "min (estimate)",
                                                           "better": "lower", "x_yardstick": None}
    for v, r in results.get("duplicate", {}).get("variants", {}).items():
        for key, unit in (("units_per_game", "units/game vs heuristic"), ("low", "units/game, 95% low"),
                          ("high", "units/game, 95% high")):
            out[f"duplicate.{v}.{key}"] = {"value": r[key], "unit": unit, "better": "higher", "x_yardstick": None}
        rate(f"duplicate.{v}.games_per_s", r["games_per_s"], "games/s (one rule-aware seat)")
    for name, r in results.get("queries", {}).get("queries", {}).items():
        if "p95_ms" in r:
            secs(f"query.{name}.p50_ms", r["p50_ms"])
            secs(f"query.{name}.p95_ms", r["p95_ms"])
    return out


def targets(results: dict[str, Any]) -> list[dict[str, Any]]:
    """The targets (bench/README.md) against this run's figures."""
    f = results.get("figures") or figures(results)
    out = []

    def add(name: str, fid: str, want: float, key: str = "value", higher: bool = True) -> None:
        x = f.get(fid, {}).get(key)
        if x is None:
            return
        out.append({"target": name, "figure": fid, "value": x, "want": want, "cmp": ">=" if higher else "<=",
                    "met": x >= want if higher else x <= want})

    add("guilin replay ≥ 3× python-chess plies/s (events/s per core)", "replay.guilin.replay.events_per_s", 3.0,
        "x_yardstick")
    for fid in sorted(k for k in f if k.startswith("replay.") and k.endswith(".replay.events_per_s")
                      and k != "replay.guilin.replay.events_per_s"):
        add(f"{fid.split('.')[1]} replay ≥ 3× python-chess (every variant)", fid, 3.0, "x_yardstick")
    add("guilin decode+replay ≥ 2.5× python-chess", "replay.guilin.decode+replay.events_per_s", 2.5, "x_yardstick")
    add("guilin hand scorer ≥ 1,000,000 hands/s per core (cold memo)", "scorer.guilin.cold.hands_per_s", 1_000_000)
    add("1M guilin games ingested ≤ 5 min wall on 2 cores (estimate from the ingest section; "
        "measured: python -m bench.million)", "ingest.1M_guilin_2cores.wall_minutes", 5, higher=False)
    for fid in sorted(k for k in f if k.startswith("duplicate.") and k.endswith(".low")):
        add(f"{fid.split('.')[1]}: the rule-aware bot beats the heuristic bot (95% interval above 0)",
            fid, 0.0)
    p95 = {k: v["value"] for k, v in f.items() if k.startswith("query.") and k.endswith(".p95_ms")
           and "paipu report (all)" not in k}
    if p95:
        worst = max(p95, key=p95.get)
        out.append({"target": "every dashboard/report query p95 ≤ 300 ms", "figure": worst, "value": p95[worst],
                    "want": 300, "cmp": "<=", "met": p95[worst] <= 300,
                    "over": sorted(k for k, v in p95.items() if v > 300)})
    return out


def load_baseline(path: Path = RESULTS) -> dict[str, Any] | None:
    """The last committed results (``git show HEAD:bench/results.json``), or None."""
    rel = path.resolve().relative_to(ROOT) if path.resolve().is_relative_to(ROOT) else None
    if rel is None:
        return None
    try:
        p = subprocess.run(["git", "show", f"HEAD:{rel.as_posix()}"], cwd=ROOT, capture_output=True, text=True,
                           timeout=20)
    except (OSError, subprocess.SubprocessError):
        return None
    if p.returncode != 0:
        return None
    try:
        return json.loads(p.stdout)
    except ValueError:
        return None


def _num(x: float | None) -> str:
    if x is None:
        return "—"
    ax = abs(x)
    if ax >= 100_000:
        return f"{x:,.0f}"
    if ax >= 100:
        return f"{x:,.0f}"
    if ax >= 10:
        return f"{x:.1f}"
    return f"{x:.2f}"


def table(results: dict[str, Any], baseline: dict[str, Any] | None) -> str:
    """The printed table: figure, value, unit, × yardstick, and the ratio to the committed figure —
    of the values, and of the ×chess ratios (which hold when the two runs had different loads)."""
    f = results["figures"]
    base = (baseline or {}).get("figures", {})

    def ratio(new: float | None, old: float | None, better: str) -> str:
        if not new or not old:
            return "—"
        r = new / old
        return f"{r:.2f}×" + ("" if 0.9 <= r <= 1.1 else (" better" if (r > 1) == (better == "higher") else " WORSE"))

    rows = [("figure", "value", "unit", "×chess", "vs committed", "÷chess vs committed")]
    for fid, x in f.items():
        b = base.get(fid, {})
        rows.append((fid, _num(x["value"]), x["unit"], _num(x["x_yardstick"]), ratio(x["value"], b.get("value"), x["better"]),
                     ratio(x["x_yardstick"], b.get("x_yardstick"), x["better"])))
    w = [max(len(r[i]) for r in rows) for i in range(6)]
    lines = ["  ".join(c.ljust(w[i]) if i in (0, 2, 4, 5) else c.rjust(w[i]) for i, c in enumerate(r)).rstrip()
             for r in rows]
    lines.insert(1, "-" * len(lines[0]))
    tg = results.get("targets", [])
    if tg:
        lines.append("")
        lines.append("targets:")
        for t in tg:
            extra = f" (over: {', '.join(t['over'])})" if t.get("over") else ""
            lines.append(f"  [{'met' if t['met'] else 'NOT met'}] {t['target']}: {_num(t['value'])} "
                         f"(want {'≥' if t['cmp'] == '>=' else '≤'} {_num(t['want'])}; figure {t['figure']})"
                         + extra)
    stale = [f"{v} ({r['valid']}/{r['games']} valid)" for v, r in results.get("replay", {}).get("variants", {}).items()
             if r["valid"] < r["games"]]
    if stale:
        lines.append(f"WARNING: simulated corpora replayed with errors: {', '.join(stale)}")
    m = results["meta"]
    lines.append("")
    lines.append(m.get("kernel", "kernel: (not recorded)"))
    lines.append(f"load average start {m['loadavg_start']} end {m['loadavg_end']}; {m['cpus']} cores; "
                 f"yardstick start {_num(m['yardstick_start'])} end {_num(m['yardstick_end'])} plies/s; "
                 f"{m['seconds']:.0f} s; baseline: {baseline['meta'].get('git_commit') if baseline else 'none committed'}")
    return "\n".join(lines)


def run(cfg: Config) -> dict[str, Any]:
    """Run the sections of ``cfg`` and return the results (also written to ``cfg.out``)."""
    t0 = time.perf_counter()
    workers = cfg.workers or cpus()
    from replay import kernel

    meta = {**machine(), "kernel": kernel.describe(), "started_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "loadavg_start": loadavg(), "config": asdict(cfg), "workers": workers}
    results: dict[str, Any] = {"meta": meta}
    sections = [s for s in SECTIONS if s in cfg.only]
    # progress by section, redrawn only between them: a refresh thread would slow what is timed
    with Meter("bench", len(sections) + 2, "sections", refresh=False) as meter:
        _say(f"yardstick (python-chess, {cfg.chess_games} games); load {meta['loadavg_start']}")
        y0 = run_yardstick(cfg, workers)
        meter.advance()
        for section in sections:
            if section == "replay":
                _say(f"replay: corpora of {cfg.games} games per variant")
                results["replay"] = run_replay(cfg, workers)
            elif section == "scorer":
                _say(f"scorer: {cfg.hands} hands")
                results["scorer"] = run_scorer(cfg)
            elif section == "ingest":
                _say(f"ingest: {cfg.ingest_games} guilin games with 1 and 2 workers, 1/2/4 writers, dask")
                results["ingest"] = run_ingest(cfg)
            elif section == "duplicate":
                _say(f"duplicate: {cfg.duplicate_deals} deals per variant, rule-aware against heuristic")
                results["duplicate"] = run_duplicate(cfg, workers)
            else:
                _say(f"queries: warehouse of {cfg.warehouse_games} games")
                results["queries"] = run_queries(cfg, results.get("replay"))
            meter.advance()
        _say("yardstick again")
        y1 = run_yardstick(cfg, workers)
        meter.advance()
    ply = (y0["plies_per_s"] + y1["plies_per_s"]) / 2  # the mean of the start and the end of the run
    results["yardstick"] = {**y1, "plies_per_s": ply, "start_plies_per_s": y0["plies_per_s"],
                            "end_plies_per_s": y1["plies_per_s"]}
    meta.update(loadavg_end=loadavg(), seconds=round(time.perf_counter() - t0, 1),
                yardstick_start=y0["plies_per_s"], yardstick_end=y1["plies_per_s"])
    results["figures"] = figures(results)
    results["targets"] = targets(results)
    out = Path(cfg.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=1, ensure_ascii=False, default=str) + "\n", encoding="utf-8")
    return results


def parse(argv: list[str] | None) -> tuple[Config, argparse.Namespace]:
    """The run's :class:`Config` and the parsed arguments (``no_compare``, ``baseline``)."""
    ap = argparse.ArgumentParser(prog="python -m bench.run", description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="small corpora and warehouse: a smoke run of every section")
    ap.add_argument("--games", type=int, help="simulated games per variant (default 20000; quick 200)")
    ap.add_argument("--variants", help="comma-separated variant ids (default: every implemented one)")
    ap.add_argument("--hands", type=int, help="hands in the scorer corpus (default 20000)")
    ap.add_argument("--ingest-games", type=int, help="guilin games ingested per run (default 5000)")
    ap.add_argument("--warehouse-games", type=int, help="games in the synthetic warehouse (default 1000000)")
    ap.add_argument("--warehouse-actions", action="store_true", help="also write the actions table (no query reads it)")
    ap.add_argument("--reps", type=int, help="timed runs per query (default 10; quick 3)")
    ap.add_argument("--duplicate-deals", type=int, help="deals per variant of the duplicate matches (default 200; quick 4)")
    ap.add_argument("--chess-games", type=int, help="PGN games of the yardstick (default 300)")
    ap.add_argument("--workers", type=int, help="processes for corpora and replay timing (default: cores)")
    ap.add_argument("--only", help=f"comma-separated sections of {','.join(SECTIONS)}")
    ap.add_argument("--build", help="cache folder (default build/bench)")
    ap.add_argument("--out", help="results file (default bench/results.json for a full run of every section at the "
                                  "default sizes; any other run: build/bench/results-partial.json; quick: "
                                  "build/bench/results-quick.json)")
    ap.add_argument("--no-compare", action="store_true", help="do not compare with the committed results")
    ap.add_argument("--baseline", help="compare with this results file instead of the committed bench/results.json")
    a = ap.parse_args(argv)
    cfg = Config.quick_defaults() if a.quick else Config()
    for k in ("games", "hands", "ingest_games", "warehouse_games", "reps", "chess_games", "workers", "build", "out",
              "duplicate_deals"):
        v = getattr(a, k)
        if v is not None:
            setattr(cfg, k, v)
    # Only a full run at the default sizes may replace the committed results (the regression baseline).
    partial = bool(a.only or a.variants or a.warehouse_actions
                   or any(getattr(a, k) is not None for k in ("games", "hands", "ingest_games", "warehouse_games",
                                                              "reps", "chess_games", "duplicate_deals")))
    if not a.out and (a.build or (partial and not a.quick)):
        name = "results-quick.json" if a.quick else ("results-partial.json" if partial else "results.json")
        cfg.out = str(Path(a.build or cfg.build) / name)
    cfg.warehouse_actions = a.warehouse_actions
    if a.variants:
        cfg.variants = [v.strip() for v in a.variants.split(",") if v.strip()]
    if a.only:
        cfg.only = [s.strip() for s in a.only.split(",") if s.strip()]
        bad = set(cfg.only) - set(SECTIONS)
        if bad:
            ap.error(f"unknown sections {sorted(bad)}; choose from {SECTIONS}")
    return cfg, a


def main(argv: list[str] | None = None) -> dict[str, Any]:
    cfg, args = parse(argv)
    if args.no_compare or (cfg.quick and not args.baseline):
        baseline = None  # a smoke run's small inputs say nothing against the committed full run
    elif args.baseline:
        baseline = json.loads(Path(args.baseline).read_text(encoding="utf-8"))
    else:
        baseline = load_baseline()
    results = run(cfg)
    print(table(results, baseline))
    print(f"\nwritten: {cfg.out}")
    return results


if __name__ == "__main__":
    main()
