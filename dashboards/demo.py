"""What the demo warehouse holds (``make demo``; ``tests/demo_warehouse.py`` builds a small one the
same way): every page has something to show, one variant at a time.

- Simulated games of every variant (通城個子牌 at 4 and at 3 seats), each variant at its own tables,
  times and players: the simulator gives game *i* of every variant the same table id, start time
  and seating, so the games are relabelled here — table ids ``<variant>-t<N>``, a variant's own
  stretch of days (:data:`DAYS` days back from :data:`END`, tables spread over it, each starting at
  its own minute), and a variant's own block of the player pool (neighbouring variants share a few
  players, as real ones do). Labels only: the deal, the play and the result are the engine's.
- 桂林字牌 also under a second ruleset (``zimo_bonus=double``), the 8 real 2017 Guilin deals, and the
  worked example ``data/guilin-short.jsonl``.
- A planted collusion pair (``ring-a`` wins what ``ring-b`` discards, one game per table).
- In every variant one disputed settlement (``demo-disputed-<variant>``: the claimed 胡 raised, the
  rest of the claim recomputed as a careless server would) and one tampered game
  (``demo-tampered-<variant>``: an act moved to the wrong seat), for the audit page.
- A few lines that are not records (rejected at ingest: bad JSON, an unknown variant, not an
  object, a cut-off line).
- One ``paipu tune`` experiment (guilin ``tuo_step=5`` against ``tuo_step=3`` on the same deals).

``python -m dashboards.demo --out build/demo`` writes the logs to ``<out>/logs`` and ingests them
into ``<out>/warehouse``.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import msgspec

ROOT = Path(__file__).resolve().parent.parent
END = datetime(2026, 11, 29, 22, 0, tzinfo=timezone(timedelta(hours=8)))
"""The newest demo game starts before this."""
DAYS = 90
"""Days of play the demo spans (three months: the overview's month view has three bars)."""
POOL = 48
"""Players per variant (the simulator's pool); variant k takes players ``k·STRIDE … k·STRIDE + POOL − 1``."""
STRIDE = 40
RUNS = (  # (variant, rule overrides, file stem); 通城個子牌 at both seat counts
    ("guilin", {}, "guilin"), ("guilin", {"zimo_bonus": "double"}, "guilin-double"),
    ("zipai", {}, "zipai"), ("yuanjiang_guihuzi", {}, "yuanjiang_guihuzi"),
    ("tongcheng_gezi", {}, "tongcheng_gezi"), ("tongcheng_gezi", {"players": 3}, "tongcheng_gezi-3p"),
    ("shangdaren", {}, "shangdaren"), ("sanjing_huapai", {}, "sanjing_huapai"),
    ("wujing_huapai", {}, "wujing_huapai"), ("shuangbiegan_huapai", {}, "shuangbiegan_huapai"),
)
REJECTS = ('{oops\n{"format": "paipu/1", "game_id": "mj-1", "variant": "mahjong", "seats": ["a", "b"], '
           '"dealer": 0, "deal": {"hands": [[], []], "wall": []}, "actions": []}\n[1, 2]\n'
           '{"format": "paipu/1", "game_id": "cut-off-1", "variant": "guilin", "seats": ["a"\n')


@dataclass
class Demo:
    """What :func:`build` made: the warehouse, the log folder, the tune result
    (:class:`analytics.tune.TuneResult`), the planted games and the second guilin ruleset's id."""

    warehouse: Path
    logs: Path
    tune: Any
    ring_games: tuple[str, ...]
    double_ruleset: str
    disputed: dict[str, str] = field(default_factory=dict)
    tampered: dict[str, str] = field(default_factory=dict)


def _sim_chunk(args: tuple) -> list[dict[str, Any]]:
    from replay.simulator import simulate

    variant, games, seed, rules, start, bots = args
    return [msgspec.to_builtins(r) for r in simulate(variant, games, seed, bots, rules, start=start)]


def simulate(variant: str, games: int, seed: int, rules: dict[str, Any], workers: int = 1,
             bots: str = "heuristic") -> list[dict[str, Any]]:
    """``games`` simulated records of ``variant`` as dicts, in ``workers`` processes (whole tables
    of 8 per chunk, as ``paipu simulate``)."""
    from replay.workers import process_pool

    size = max(8, min(496, -(-games // max(1, workers) // 8) * 8))
    chunks = [(variant, min(size, games - s), seed, rules, s, bots) for s in range(0, games, size)]
    if workers <= 1 or len(chunks) == 1:
        return [r for c in chunks for r in _sim_chunk(c)]
    with process_pool(min(workers, len(chunks))) as pool:
        return [r for part in pool.map(_sim_chunk, chunks) for r in part]


def relabel(records: list[dict[str, Any]], k: int, stem: str) -> None:
    """Give run ``k``'s games their own tables, times and players (in place; see the module
    docstring). Games keep the simulator's tables of 8 and their order within a table."""
    tables = max(1, -(-len(records) // 8))
    span = timedelta(days=DAYS)
    start = END - span
    for i, rec in enumerate(records):
        t = i // 8
        rng = random.Random(f"demo:{stem}:{t}")
        at = start + span * t / tables + timedelta(minutes=rng.randrange(0, 24 * 60 // 2) + 11 * k)
        rec["started_at"] = (at + timedelta(minutes=9 * (i % 8))).isoformat()
        rec["table_id"] = f"{stem}-t{t:04d}"
        rec["seats"] = [f"p{(int(p[1:]) + k * STRIDE) % 1000:03d}" if p.startswith("p") else p for p in rec["seats"]]


def _plant_ring(records: list[dict[str, Any]], n: int) -> list[str]:
    """Rename, in ``n`` games at different tables where someone dealt in, the winner ``ring-a`` and
    the discarder ``ring-b`` (the games stay valid: seats are labels)."""
    ring, tables = [], set()
    for rec in records:
        res = rec.get("result") or {}
        acts = rec["actions"]
        dealt_in = (res.get("outcome") == "win" and res.get("from") is not None and len(acts) >= 2
                    and acts[-2]["act"] == "discard" and acts[-2]["seat"] == res["from"])
        if len(ring) < n and dealt_in and rec["table_id"] not in tables:
            rec["seats"][res["winner"]] = "ring-a"
            rec["seats"][res["from"]] = "ring-b"
            tables.add(rec["table_id"])
            ring.append(rec["game_id"])
    return ring


def disputed(rec: dict[str, Any], variant: str) -> dict[str, Any]:
    """A copy of a won record whose claim counts more 胡 than the hand has — a server that
    miscounted a group: in 桂林字牌 just enough to reach the next 舵 (逢5进1), with the 舵, the units
    and the scores recomputed from that figure, so the claim is consistent but for the 胡; elsewhere
    one more."""
    out = json.loads(json.dumps(rec))
    out["game_id"] = f"demo-disputed-{variant}"
    res = out["result"]
    bd = res.get("breakdown") or {}
    if variant == "guilin" and "tuo" in bd:
        res["points"] += 5 - (res["points"] - 10) % 5
        more = (1 + (res["points"] - 10) // 5) - bd["tuo"]
        bd["tuo"] += more
        old = res["units"]
        res["units"] += more
        res["scores"] = [s * res["units"] // old for s in res["scores"]]
    else:
        res["points"] += 1
    return out


def tampered(rec: dict[str, Any], variant: str) -> dict[str, Any]:
    """A copy with its fourth act moved to the next seat (an illegal play: the replay stops there)."""
    out = json.loads(json.dumps(rec))
    out["game_id"] = f"demo-tampered-{variant}"
    n = len(out["seats"])
    ev = out["actions"][3]
    ev["seat"] = (ev["seat"] + 1) % n
    return out


def _write(path: Path, records: list[dict[str, Any]]) -> None:
    path.write_bytes(b"".join(msgspec.json.encode(r) + b"\n" for r in records))


def build(out: Path, *, games: int = 2000, vgames: int = 300, double_games: int = 300, tune_deals: int = 300,
          ring: int = 12, seed: int = 1, tune_seed: int = 11, workers: int = 1, deals_2017: bool = True,
          progress: bool = False) -> Demo:
    """Write the demo logs to ``out/logs`` and ingest them (and the tune experiment) into
    ``out/warehouse`` (both replaced).

    :param games: 桂林字牌 games under the defaults; ``double_games`` under ``zimo_bonus=double``;
        ``vgames`` of every other run of :data:`RUNS`.
    :param tune_deals: deals of the experiment (each played under A and B).
    :returns: :class:`Demo`.
    """
    from analytics import tune
    from ingest.run import ingest
    from replay import variants
    from replay.options import make_ruleset

    out = Path(out)
    logs, wh = out / "logs", out / "warehouse"
    for p in (logs, wh):
        shutil.rmtree(p, ignore_errors=True)
    logs.mkdir(parents=True)
    ring_games: list[str] = []
    planted: list[dict[str, Any]] = []
    dis, tam = {}, {}
    for k, (variant, rules, stem) in enumerate(RUNS):
        n = games if stem == "guilin" else double_games if stem == "guilin-double" else vgames
        if n <= 0:
            continue
        recs = simulate(variant, n, seed + k, rules, workers)
        relabel(recs, k, stem)
        if stem == "guilin":
            ring_games = _plant_ring(recs, ring)
        if not rules:  # one disputed and one tampered game per variant, from its default run
            win = next((r for r in reversed(recs) if (r.get("result") or {}).get("outcome") == "win"
                        and r["game_id"] not in ring_games), None)
            if win is not None:
                planted.append(disputed(win, variant))
                dis[variant] = planted[-1]["game_id"]
            planted.append(tampered(recs[-1], variant))
            tam[variant] = planted[-1]["game_id"]
        _write(logs / f"{stem}.jsonl", recs)
    _write(logs / "disputes.jsonl", planted)
    if deals_2017:
        from replay.simulator import simulate as sim

        deals = [json.loads(ln) for ln in (ROOT / "data" / "guilin-deals-2017.jsonl").read_text("utf-8").splitlines()
                 if ln.strip()]
        real = [msgspec.to_builtins(r) for r in sim("guilin", len(deals), seed, "heuristic", {}, deals=deals)]
        relabel(real, 0, "guilin-2017")
        _write(logs / "guilin-2017-deals.jsonl", real)
    shutil.copy(ROOT / "data" / "guilin-short.jsonl", logs / "guilin-short.jsonl")
    (logs / "broken.jsonl").write_text(REJECTS, encoding="utf-8")
    # the heuristic bots: tuo_step is scoring-only, so every deal plays alike and only the settlement moves
    res = tune.run("guilin", "tuo_step=5", "tuo_step=3", tune_deals, tune_seed, wh, workers=workers, bots="heuristic")
    ingest([logs], wh, workers=workers, progress=progress)
    spec = variants.get("guilin")
    return Demo(wh, logs, res, tuple(ring_games), make_ruleset("guilin", spec.options, {"zimo_bonus": "double"}).id,
                dis, tam)


def main(argv: list[str] | None = None) -> None:
    """``python -m dashboards.demo --out DIR [--games N] [--vgames N] [--workers N]``."""
    import os

    ap = argparse.ArgumentParser(prog="python -m dashboards.demo", description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--games", type=int, default=2000, help="桂林字牌 games under the defaults")
    ap.add_argument("--vgames", type=int, default=300, help="games of every other variant (and seat count)")
    ap.add_argument("--tune-deals", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=0, help="processes (0 = all cores)")
    a = ap.parse_args(argv)
    demo = build(a.out, games=a.games, vgames=a.vgames, tune_deals=a.tune_deals, seed=a.seed,
                 workers=a.workers or os.cpu_count() or 1, progress=True)
    print(f"demo warehouse: {demo.warehouse} (logs: {demo.logs}); tune experiment {demo.tune.experiment}; "
          f"disputed: {', '.join(demo.disputed.values())}; tampered: {', '.join(demo.tampered.values())}")


if __name__ == "__main__":
    main()
