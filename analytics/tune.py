"""``paipu tune``: duplicate play for rule tuning — the same deals under ruleset A and ruleset B.

Both arms use the simulator with the same seed, so deal *i* is the same shuffle and every seat's
bot draws from the same random stream in both arms; only the rules differ. Each record gets the
extensions ``x_experiment`` (the experiment id), ``x_arm`` (``a``/``b``) and ``x_deal`` (the deal
index, the pairing key), and its own ``game_id``/``table_id`` (``<experiment>-<arm>-…``) so the arms
never collide. Both runs are written as JSON Lines under ``<experiments>/<id>/`` (``paipu tune``:
``build/experiments``, outside ``build/demo``, which ``make demo`` deletes; :func:`run`'s default:
``<warehouse>/_experiments``, outside every table glob), ingested with :func:`ingest.run.ingest`,
and compared deal by deal with :func:`analytics.queries.compare`.

The experiment id hashes (variant, A, B, games, seed, bots): running the same experiment again
rewrites the same files, and ingest replaces their shards instead of adding rows.

Which bots play (``--bots``, default ``auto``): the rule-aware bot (``ev``, replay/evbot.py) for a
variant where bench/duplicate.py measured it stronger than the heuristic bot
(:data:`replay.bots.STRONGER`), else the heuristic bot. Each record carries ``x_bots``; a deal
whose actions are the same under A and B differs only in its settlement, one whose actions differ
was played differently (:func:`play_changes`; the Rule tuning page shows both).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Mapping, Optional

import msgspec
import polars as pl
import typer
from rich.console import Console
from rich.text import Text

from analytics import queries as q
from replay.progress import Meter
from replay.record import terminal_text
from replay.workers import process_pool

EXPERIMENTS = "_experiments"
"""Folder inside the warehouse that holds the experiments' JSON Lines (no table glob reads it)."""


def experiment_id(variant: str, a: Mapping[str, Any], b: Mapping[str, Any], games: int, seed: int, bots: str) -> str:
    """``tune-<variant>-<10 hex>`` of the experiment's definition (same definition, same id)."""
    canon = json.dumps([variant, dict(sorted(a.items())), dict(sorted(b.items())), games, seed, bots],
                       sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return f"tune-{variant}-{hashlib.sha256(canon.encode()).hexdigest()[:10]}"


def resolve_bots(variant: str, bots: str) -> tuple[str, str]:
    """The bot kind ``bots`` names for ``variant`` (``auto``: the rule-aware bot that duplicate
    matches measured stronger there, :data:`replay.bots.STRONGER`, else ``heuristic``) and why, in words.

    :raises ValueError: a kind the variant has no bot for.
    """
    from replay.bots import STRONGER
    from replay.simulator import _bots

    if bots == "auto":
        if variant in STRONGER:
            kind, gain = STRONGER[variant]
            return kind, (f"{BOT_WORDS.get(kind, kind)}: {gain} units a game over the heuristic "
                          "bot in duplicate matches (bench/README.md)")
        return "heuristic", ("heuristic bot: the rule-aware bots are not measurably stronger for this variant "
                             "(bench/README.md); --bots ev or --bots rollout plays one anyway")
    for kind in bots.split(","):  # one kind for every seat or one a seat (the seat count: simulate)
        _bots(variant, kind)
    return bots, f"{BOT_WORDS.get(bots, bots + ' bot')}, as asked"


BOT_WORDS = {"ev": "rule-aware bot (ev: expected value of the waits)", "rollout": "rule-aware bot (rollout)",
             "heuristic": "heuristic bot", "random": "random legal bot"}
"""How ``paipu tune`` names each bot kind."""


def tag(record: Any, experiment: str, arm: str, deal: int, bots: str = "heuristic") -> bytes:
    """One simulated :class:`~replay.record.Record` as a JSON line with the experiment's extensions
    and arm-specific ``game_id``/``table_id`` (a Struct cannot take unknown fields: go through a dict)."""
    d = msgspec.to_builtins(record)
    d["game_id"] = f"{experiment}-{arm}-{deal:07d}"
    if d.get("table_id"):
        d["table_id"] = f"{experiment}-{arm}-{d['table_id']}"
    d["x_experiment"] = experiment
    d["x_arm"] = arm
    d["x_deal"] = deal
    d["x_bots"] = bots
    return msgspec.json.encode(d)


def _play_chunk(args: tuple) -> tuple[list[bytes], list[bytes], list[bool]]:
    """Deals ``start … start+count-1`` under both rulesets (one process plays both arms of a deal:
    the engine's caches then serve the second arm), and per deal whether its actions differ."""
    variant, rules_a, rules_b, seed, bots, start, count, experiment = args
    from replay.simulator import simulate

    out_a, out_b = [], []
    actions: dict[str, list] = {"a": [], "b": []}
    for side, rules, out in (("a", rules_a, out_a), ("b", rules_b, out_b)):
        for i, rec in enumerate(simulate(variant, count, seed, bots, rules, start=start), start=start):
            out.append(tag(rec, experiment, side, i, bots))
            actions[side].append(rec.actions)
    return out_a, out_b, [x != y for x, y in zip(actions["a"], actions["b"])]


def play(variant: str, rules_a: Mapping[str, Any], rules_b: Mapping[str, Any], games: int, seed: int,
         bots: str, experiment: str, workers: int = 1,
         meter: Meter | None = None) -> tuple[list[bytes], list[bytes], list[bool]]:
    """Both arms' JSON lines (deal order), played in ``workers`` processes, and per deal whether A
    and B played it differently (its actions differ); ``meter`` counts the deals as their chunks
    finish."""
    workers = max(1, workers)
    size = max(1, min(250, -(-games // (4 * workers))))  # ≥ 4 chunks a worker: the progress moves
    chunks = [(variant, dict(rules_a), dict(rules_b), seed, bots, s, min(size, games - s), experiment)
              for s in range(0, games, size)]
    parts = []
    with contextlib.ExitStack() as stack:
        if workers == 1 or len(chunks) == 1:
            done: Any = map(_play_chunk, chunks)
        else:
            done = stack.enter_context(process_pool(min(workers, len(chunks)))).map(_play_chunk, chunks)
        for part in done:
            parts.append(part)
            if meter is not None:
                meter.advance(len(part[0]))
    return ([ln for a, _, _ in parts for ln in a], [ln for _, b, _ in parts for ln in b],
            [c for _, _, ch in parts for c in ch])


def _write(path: Path, lines: list[bytes]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as fh:
        for ln in lines:
            fh.write(ln + b"\n")
    os.replace(tmp, path)


@dataclass
class TuneResult:
    """What :func:`run` did: the experiment id, its files, the ingest report, the comparison
    (:func:`analytics.queries.compare`) and the arms' sizes (:func:`analytics.queries.arm_sizes`)."""

    experiment: str
    variant: str
    rules_a: dict[str, Any]
    rules_b: dict[str, Any]
    ruleset_a: str
    ruleset_b: str
    files: list[Path]
    ingest: Any
    comparison: pl.DataFrame
    sizes: dict[str, int]
    bots: str = "heuristic"
    bots_why: str = ""
    play_changed: int = 0
    """Deals whose actions differ between A and B (the rest differ in their settlement alone)."""

    def answer(self) -> Any:
        """The one-sentence answer and its fields (:func:`analytics.answer.tune_answer`)."""
        from analytics.answer import tune_answer

        return tune_answer(self.comparison, self.sizes["pairs"])

    def row(self, metric: str) -> dict[str, Any]:
        """The comparison row of ``metric`` (e.g. ``tuo``, ``draw``, ``seat0_win``)."""
        df = self.comparison.filter(pl.col("metric") == metric)
        if not df.height:
            raise KeyError(metric)
        return df.row(0, named=True)


def run(variant: str, a: str, b: str, games: int, seed: int, warehouse: Path, *, bots: str = "auto",
        workers: int = 0, console: Console | None = None, experiments: Path | None = None) -> TuneResult:
    """Play, write, ingest and compare one experiment (see the module docstring).

    :param a: ruleset A as ``OPT=VAL[,…]`` (empty: the variant's defaults); same for ``b``.
    :param bots: ``auto`` (:func:`resolve_bots`), ``ev``, ``rollout``, ``heuristic`` or ``random``.
    :param experiments: the folder of the experiments' JSON Lines (default: ``<warehouse>/_experiments``;
        ``paipu tune`` passes ``build/experiments``, which ``make demo``'s rebuild of the warehouse keeps).
    :param console: where the progress goes (None: no progress).
    :raises ValueError: unknown or unimplemented variant, an option or value not allowed, A equal to B,
        A and B at different seat counts (``players``), or ``games`` < 1.
    """
    from ingest.run import ingest
    from ingest.views import connect
    from replay import variants
    from replay.options import make_ruleset, parse_overrides

    spec = variants.VARIANTS.get(variant)
    if spec is None or not spec.implemented:
        known = ", ".join(v.id for v in variants.VARIANTS.values() if v.implemented)
        raise ValueError(f"variant {variant!r} is not implemented (implemented: {known})")
    if games < 1:
        raise ValueError("--games must be at least 1")
    rules_a = parse_overrides(a, spec.options)
    rules_b = parse_overrides(b, spec.options)
    ra, rb = make_ruleset(variant, spec.options, rules_a), make_ruleset(variant, spec.options, rules_b)
    rs_a, rs_b = ra.id, rb.id
    if "players" in ra.values and ra["players"] != rb["players"]:  # a deal is dealt for one seat count
        raise ValueError(f"ruleset A plays {ra['players']} seats and B {rb['players']}: the same deal cannot be "
                         "played at both, so a paired comparison means nothing (run one experiment per seat count)")
    if rs_a == rs_b:
        raise ValueError(f"ruleset A and ruleset B are the same ({rs_a}): nothing to compare")
    bots, bots_why = resolve_bots(variant, bots)
    exp = experiment_id(variant, rules_a, rules_b, games, seed, bots)
    warehouse = Path(warehouse).expanduser().resolve()
    folder = (Path(experiments).expanduser().resolve() if experiments is not None else warehouse / EXPERIMENTS) / exp
    folder.mkdir(parents=True, exist_ok=True)
    workers = workers or os.cpu_count() or 1
    with Meter(f"tune {variant}", games, "deals", console=console, enabled=console is not None) as meter:
        lines_a, lines_b, changed = play(variant, rules_a, rules_b, games, seed, bots, exp, workers, meter)
    files = [folder / "a.jsonl", folder / "b.jsonl"]
    _write(files[0], lines_a)
    _write(files[1], lines_b)
    meta = {"experiment": exp, "variant": variant, "a": {"rules": rules_a, "ruleset_id": rs_a},
            "b": {"rules": rules_b, "ruleset_id": rs_b}, "games": games, "seed": seed, "bots": bots,
            "bots_why": bots_why, "play_changed": sum(changed),
            "written_at": datetime.now(timezone.utc).isoformat()}
    (folder / "experiment.json").write_text(json.dumps(meta, ensure_ascii=False, indent=1), encoding="utf-8")
    report = ingest(files, warehouse, workers=workers, progress=console is not None,
                    console=console or Console(stderr=True, quiet=True))
    con = connect(warehouse)
    try:
        arm_a = q.Arm(variant, experiment=exp, arm="a")
        arm_b = q.Arm(variant, experiment=exp, arm="b")
        comparison = q.compare(con, arm_a, arm_b)
        sizes = q.arm_sizes(con, arm_a, arm_b)
    finally:
        con.close()
    return TuneResult(exp, variant, rules_a, rules_b, rs_a, rs_b, files, report, comparison, sizes, bots, bots_why,
                      sum(changed))


def play_changes(con: Any, experiment: str) -> dict[str, Any]:
    """Who played experiment ``experiment`` and how often A and B played a deal differently, from
    the warehouse: ``{"bots": [kinds], "deals": paired deals, "changed": deals whose actions differ}``
    (``bots`` empty for an experiment written before ``x_bots``; then the heuristic bot played)."""
    from analytics.queries import experiment_expr

    exp = experiment_expr(con)
    cur = con.cursor()
    try:
        row = cur.sql(f"""
        WITH g AS (SELECT json_extract_string(record_json, '$.x_arm') AS arm,
                          json_extract_string(record_json, '$.x_deal') AS deal,
                          json_extract_string(record_json, '$.x_bots') AS bots,
                          json_extract(record_json, '$.actions')::VARCHAR AS actions
                   FROM games g WHERE {exp} = $exp),
             p AS (SELECT a.deal, a.actions IS DISTINCT FROM b.actions AS changed
                   FROM g a JOIN g b ON a.deal = b.deal AND a.arm = 'a' AND b.arm = 'b')
        SELECT (SELECT list(DISTINCT bots ORDER BY bots) FILTER (WHERE bots IS NOT NULL) FROM g) AS bots,
               (SELECT count(*) FROM p) AS deals, (SELECT count(*) FILTER (WHERE changed) FROM p) AS changed""",
                      params={"exp": experiment}).fetchone()
    finally:
        cur.close()
    return {"bots": list(row[0] or []), "deals": int(row[1]), "changed": int(row[2])}


# --- printing -------------------------------------------------------------------------------


def print_result(res: TuneResult, console: Console, hand_types: int = 8) -> None:
    """The answer in one sentence (:func:`analytics.answer.tune_answer`), the rulesets, the bots and
    the experiment, then the comparison as an 80-column table (A, B, A − B with its 95% interval)."""
    from analytics.answer import comparison_table
    from replay.words import ruleset_label

    s = res.sizes
    console.print(Text(res.answer().text, style="bold"))
    console.print(Text(f"A: {ruleset_label(res.ruleset_a, res.rules_a, res.variant)}"))
    console.print(Text(f"B: {ruleset_label(res.ruleset_b, res.rules_b, res.variant)}"))
    console.print(Text(f"bots: {res.bots} — {res.bots_why}"))
    n = s["a_all"]  # every deal played (arm A's games)
    console.print(Text(f"play: {res.play_changed} of {n} deals played differently under A and B" + (
        " — every difference comes from the settlement alone" if not res.play_changed else
        " — differences come from the settlement and from changed play"
        if res.play_changed < n else " — every deal changed play")))
    console.print(Text(f"experiment {res.experiment} · {res.variant} · {s['pairs']} paired deals "
                       f"(A {s['a']} / B {s['b']} valid of {s['a_all']} / {s['b_all']})"))
    console.print(comparison_table("A − B, paired by deal: the mean of the per-deal differences ± 1.96·sd/√n "
                                   "(rates in percentage points)", res.comparison, "deal", hand_types))
    logs = res.files[0].parent
    console.print(Text(f"logs: {logs} (--experiments: outside the warehouse, so after a rebuild of "
                       f"{res.ingest.warehouse}, `paipu ingest {logs.parent} --warehouse {res.ingest.warehouse}` "
                       "brings the experiments back)", style="dim"))


def to_json(res: TuneResult) -> dict[str, Any]:
    """The result as JSON-ready data: the answer's fields, the rulesets, the sizes and every figure."""
    from replay.words import options_text

    return {"experiment": res.experiment, "variant": res.variant, "answer": res.answer().to_json(),
            "a": {"rules": res.rules_a, "ruleset_id": res.ruleset_a, "options": options_text(res.rules_a, res.variant)},
            "b": {"rules": res.rules_b, "ruleset_id": res.ruleset_b, "options": options_text(res.rules_b, res.variant)},
            "sizes": res.sizes, "bots": res.bots, "bots_why": res.bots_why, "play_changed": res.play_changed,
            "figures": res.comparison.to_dicts()}


def tune_cmd(
    variant: str = typer.Option(..., "--variant", help="variant id (spec §7), e.g. guilin"),
    a: str = typer.Option("", "--a", help="ruleset A: OPT=VAL[,OPT=VAL…] (empty = defaults)"),
    b: str = typer.Option("", "--b", help="ruleset B: OPT=VAL[,OPT=VAL…] (empty = defaults)"),
    games: int = typer.Option(2000, "--games", min=1, help="deals, each played under A and under B"),
    seed: int = typer.Option(1, "--seed"),
    warehouse: Path = typer.Option(..., "--warehouse", help="warehouse to write the experiment into (created if "
                                   "missing; the demo's: build/demo/warehouse)"),
    experiments: Path = typer.Option(Path("build/experiments"), "--experiments",
                                     help="folder for the experiment's logs (outside build/demo, so `make demo`, "
                                          "which rebuilds the demo warehouse, leaves them)"),
    bots: str = typer.Option("auto", "--bots", help="auto (the rule-aware bot where it is measurably stronger, "
                             "else heuristic), ev (rule-aware: expected value of the waits), rollout "
                             "(rule-aware: rollouts), heuristic or random"),
    workers: int = typer.Option(0, "--workers", help="processes (0 = all cores)"),
    as_json: Optional[Path] = typer.Option(None, "--json", help="also write the comparison as JSON here"),
) -> None:
    """Duplicate play: the same N deals under ruleset A and ruleset B with the same bots, written
    into the warehouse as an experiment. Prints first the answer in one sentence (does B change who
    wins, seat by seat, and what a game pays), then the paired differences with 95% intervals.

    Exit status 2 on a usage error (unknown variant or option, A equal to B, a warehouse that is not
    a folder); 1 when the warehouse cannot be written (its catalog cannot be opened or stays busy).
    """
    from replay.words import refuse

    console = Console(highlight=False)
    err = Console(stderr=True, highlight=False)
    for what, path in (("warehouse", warehouse), ("experiments folder", experiments)):
        if path.exists() and not path.is_dir():
            refuse("tune", what, path, "not a folder")
    try:
        res = run(variant, a, b, games, seed, warehouse, bots=bots, workers=workers,
                  console=Console(stderr=True), experiments=experiments)
    except ValueError as e:
        err.print(Text(f"paipu tune: {e}", style="red"), soft_wrap=True)
        raise typer.Exit(2) from None
    except (RuntimeError, OSError) as e:  # the warehouse's catalog cannot be opened or stays busy, a disk error
        err.print(Text(f"paipu tune failed: {terminal_text(str(e))}", style="red"), soft_wrap=True)
        raise typer.Exit(1) from None
    print_result(res, console)
    if as_json is not None:
        as_json.write_text(json.dumps(to_json(res), ensure_ascii=False, indent=1), encoding="utf-8")
