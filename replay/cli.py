"""Commands of the replay stage: ``paipu score``, ``paipu simulate``; and what later stages'
commands share of it: ``--rules`` (:func:`rules_option`, :func:`rules_text`) and a path as printed
(:func:`shown_path`).

Registered on the ``paipu`` app by ``paipu/cli.py``. ``paipu validate`` reads and counts lines as
``paipu ingest`` does, so it is the ingest stage's (:mod:`ingest.validate`).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any, Optional

import msgspec
import typer

from replay import variants
from replay.options import parse_overrides
from replay.progress import Meter
from replay.record import terminal_text
from replay.workers import process_pool


def rules_option(text: str | None, variant: str | None = None) -> dict[str, dict] | None:
    """``--rules`` as overrides by variant (:func:`replay.variants.default_rules`); a bad option
    or value is a usage error (exit 2) naming it."""
    from replay.variants import default_rules

    try:
        return default_rules(text, variant)
    except ValueError as e:
        raise typer.BadParameter(str(e), param_hint="--rules") from None


def rules_text(defaults: dict[str, dict]) -> str:
    """Overrides by variant as text: ``guilin: tuo_step=3; zipai: tuo_step=3``."""
    return "; ".join(f"{v}: " + ",".join(f"{k}={str(x).lower() if isinstance(x, bool) else x}" for k, x in o.items())
                     for v, o in defaults.items())


def _read_deals(path: Path, spec: variants.VariantSpec) -> list[dict[str, Any]]:
    """Deals to play out: ``{deal_id, dealer, hands, wall}`` objects, or paipu/1 records (their
    ``deal``). Each must be exactly the variant's deck.

    :raises ValueError: a line that is neither, or a deal that is not the deck (line number given).
    """
    out = []
    for no, ln in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not ln.strip():
            continue
        obj = json.loads(ln)
        if isinstance(obj, dict) and isinstance(obj.get("deal"), dict):  # a paipu/1 record
            obj = {"deal_id": obj.get("game_id"), "dealer": obj.get("dealer", 0), **obj["deal"]}
        if not (isinstance(obj, dict) and isinstance(obj.get("hands"), list) and isinstance(obj.get("wall"), list)):
            raise ValueError(f"line {no}: not a deal ({{deal_id, dealer, hands, wall}}) nor a paipu/1 record")
        cards = [c for h in obj["hands"] for c in h] + list(obj["wall"])
        try:
            ok = spec.deck.counts(cards) == spec.deck.full_counts()
        except Exception as e:  # unknown card codes
            raise ValueError(f"line {no}: {e}") from None
        if not ok:
            raise ValueError(f"line {no}: hands + wall are not the {spec.deck.size}-card {spec.id} deck")
        out.append(obj)
    return out


def shown_path(path: Path) -> str:
    """A path as printed: relative to the working folder when inside it, as text a terminal only
    shows (:func:`~replay.record.terminal_text`: a file name may hold any byte but / and NUL)."""
    try:
        return terminal_text(str(path.relative_to(Path.cwd())))
    except ValueError:
        return terminal_text(str(path))


def score_cmd(
    case: Path = typer.Argument(..., help="a score case (.json) or a list of them (.jsonl), spec §8"),
) -> None:
    """Judge finished hands without a game (spec §8); one JSON object per case. A malformed case
    prints ``{"error", "case"}`` (``case``: the file, and the line of a .jsonl) and is named on
    stderr too. Exit 1 if any case is malformed."""
    from replay.score import score_case
    from replay.words import MISSING, refuse

    if not case.exists():
        refuse("score", "file", case, MISSING)
    if not case.is_file():
        refuse("score", "file", case, "not a file")
    text = case.read_bytes()
    where = shown_path(case.absolute())
    cases = ([(where, text)] if case.suffix == ".json" else
             [(f"{where}:{no}", ln) for no, ln in enumerate(text.split(b"\n"), 1) if ln.strip()])
    bad = 0
    for name, raw in cases:
        res = score_case(raw)
        if "error" in res:
            bad += 1
            res = {**res, "case": name}
            typer.echo(terminal_text(f"paipu score: {name}: {res['error']}"), err=True)
        sys.stdout.write(json.dumps(res, ensure_ascii=False) + "\n")
    raise typer.Exit(1 if bad else 0)


def _sim_chunk(args: tuple) -> list[bytes]:
    from replay.simulator import simulate

    variant, games, seed, bots, rules, start = args
    return [msgspec.json.encode(r) for r in simulate(variant, games, seed, bots, rules, start=start)]


def simulate_cmd(
    variant: str = typer.Option(..., "--variant", help="variant id (spec §7)"),
    out: Path = typer.Option(..., "--out", help="output .jsonl"),
    games: int = typer.Option(100, "--games", min=1),
    seed: int = typer.Option(1, "--seed"),
    bots: str = typer.Option("heuristic", "--bots", help="heuristic, random, ev or rollout (ev and rollout: the rule-aware "
                             "bots, docs/bots.md); or one per seat, comma-separated"),
    rules: str = typer.Option("", "--rules", help="rule options OPT=VAL[,OPT=VAL…]"),
    deals: Optional[Path] = typer.Option(None, "--deals", help="play out recorded deals instead of shuffling (--games is "
                                         "then ignored): JSON Lines of {deal_id, dealer, hands, wall} as in "
                                         "data/guilin-deals-2017.jsonl, or paipu/1 records (their deal is replayed)"),
    workers: int = typer.Option(0, "--workers", help="processes (0 = all cores)"),
) -> None:
    """Self-play games with bots and write them as paipu/1 records (deterministic for a seed)."""
    spec = variants.VARIANTS.get(variant)
    if spec is None or not spec.implemented:
        typer.echo(f"paipu simulate: variant {variant!r} is not implemented (implemented: "
                   f"{', '.join(v.id for v in variants.VARIANTS.values() if v.implemented)})", err=True)
        raise typer.Exit(2)
    try:
        overrides: dict[str, Any] = parse_overrides(rules, spec.options)
    except ValueError as e:
        typer.echo(f"paipu simulate: --rules: {e}", err=True)
        raise typer.Exit(2) from None
    from replay.simulator import seat_bots, simulate

    try:
        seat_bots(variant, bots, overrides)
    except ValueError as e:
        typer.echo(f"paipu simulate: --bots: {e}", err=True)
        raise typer.Exit(2) from None
    recorded = None
    if deals is not None:
        from replay.words import need

        need("simulate", deals, "deals file")
        try:
            recorded = _read_deals(deals, spec)
        except (OSError, ValueError) as e:
            typer.echo(f"paipu simulate: --deals {deals}: {e}", err=True)
            raise typer.Exit(2) from None
    out.parent.mkdir(parents=True, exist_ok=True)
    if recorded is not None:
        lines = [msgspec.json.encode(r) for r in simulate(variant, len(recorded), seed, bots, overrides, deals=recorded)]
    else:
        workers = workers or os.cpu_count() or 1
        # whole tables of 8 games per chunk, small enough for the progress to move (≥ 4 chunks a worker)
        size = max(8, min(496, -(-games // (4 * workers) // 8) * 8))
        chunks = [(variant, min(size, games - s), seed, bots, overrides, s) for s in range(0, games, size)]
        lines = []
        with Meter(f"simulate {variant}", games) as meter:
            if workers == 1 or len(chunks) == 1:
                parts: Any = map(_sim_chunk, chunks)
                for part in parts:
                    lines += part
                    meter.advance(len(part))
            else:
                with process_pool(workers) as pool:
                    for part in pool.map(_sim_chunk, chunks):  # in order, each as soon as it is done
                        lines += part
                        meter.advance(len(part))
    tmp = out.with_name(out.name + ".tmp")
    with open(tmp, "wb") as fh:
        for ln in lines:
            fh.write(ln + b"\n")
    os.replace(tmp, out)
    typer.echo(f"simulated {len(lines)} {variant} games → {out}")
