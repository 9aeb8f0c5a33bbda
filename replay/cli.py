"""Commands of the replay stage: ``paipu validate``, ``paipu score``, ``paipu simulate``.

Registered on the ``paipu`` app by ``paipu/cli.py``. Exit status of ``validate``: 0 all
valid, 1 any invalid, 2 usage error (spec §6; typer's own usage errors are 2 as well).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any, Iterator, Optional

import msgspec
import typer

from replay import variants
from replay.options import parse_overrides
from replay.record import utf8_text
from replay.replayer import replay_line
from replay.workers import process_pool


def iter_lines(path: Path) -> Iterator[tuple[int, bytes]]:
    """(1-based line number, raw line) of a ``.jsonl``, ``.jsonl.gz`` or ``.jsonl.zst`` file,
    blank lines skipped (spec §1)."""
    name = path.name
    if name.endswith(".gz"):
        import gzip
        fh = gzip.open(path, "rb")
    elif name.endswith(".zst"):
        import zstandard
        fh = zstandard.open(path, "rb")
    else:
        fh = open(path, "rb")
    with fh:
        for i, line in enumerate(fh, 1):
            line = line.rstrip(b"\r\n")
            if line.strip():
                yield i, line


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


def _expand(paths: list[Path]) -> list[Path]:
    """Files to read: files as given, folders walked for .jsonl / .jsonl.gz / .jsonl.zst."""
    out = []
    for p in paths:
        if p.is_dir():
            out += sorted(f for f in p.rglob("*") if f.is_file() and f.name.endswith((".jsonl", ".jsonl.gz", ".jsonl.zst")))
        else:
            out.append(p)
    return out


def _verdict_json(res: Any) -> Any:
    """The spec §6 verdict, plus ``explain`` (:func:`replay.explain.explain_outcome`: the computed
    split, the worked sum and the term that differs) when the settlement is disputed."""
    from replay.explain import explain_outcome

    ex = None if res.verdict.valid else explain_outcome(res)
    if ex is None:
        return res.verdict
    return {**msgspec.to_builtins(res.verdict), "explain": ex}


def validate_cmd(
    files: list[Path] = typer.Argument(..., help="paipu/1 JSON Lines files (.jsonl, .jsonl.gz, .jsonl.zst) or folders of them"),
    as_json: bool = typer.Option(False, "--json", help="one spec §6 verdict JSON object per line (with `explain` for a disputed settlement)"),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="print only invalid games and the totals"),
) -> None:
    """Replay every game and print one verdict per game. Exit 0 all valid, 1 any invalid, 2 usage error."""
    missing = [str(f) for f in files if not f.exists()]
    if missing:
        typer.echo(f"paipu validate: no such file or folder: {', '.join(missing)}", err=True)
        raise typer.Exit(2)
    files = _expand(files)
    n = bad = 0
    out = sys.stdout
    for f in files:
        where = utf8_text(str(f))  # a file name need not be UTF-8; a strict stdout would stop here
        for line_no, raw in iter_lines(f):
            res = replay_line(raw)
            v = res.verdict
            n += 1
            bad += not v.valid
            if as_json:
                out.write(msgspec.json.encode(_verdict_json(res)).decode() + "\n")
            elif not v.valid or not quiet:
                if v.valid:
                    c = v.computed or {}
                    what = f"win seat {c.get('winner')} {c.get('points')} 胡 units {c.get('units')}" if c.get("outcome") == "win" else "荒庄 draw"
                    out.write(f"{where}:{line_no} {v.game_id} valid ({what})\n")
                else:
                    e = v.errors[0]
                    more = f" (+{len(v.errors) - 1} more)" if len(v.errors) > 1 else ""
                    out.write(utf8_text(f"{where}:{line_no} {v.game_id} INVALID step {e.step} {e.code} [{e.rule}] "
                                        f"{e.message}{more}\n"))
    if not as_json:
        out.write(f"{n} games: {n - bad} valid, {bad} invalid\n")
    raise typer.Exit(1 if bad else 0)


def score_cmd(
    case: Path = typer.Argument(..., help="a score case (.json) or a list of them (.jsonl), spec §8"),
) -> None:
    """Judge finished hands without a game (spec §8); one JSON object per case. Exit 1 if any case is malformed."""
    from replay.score import score_case

    if not case.is_file():
        typer.echo(f"paipu score: no such file: {case}", err=True)
        raise typer.Exit(2)
    text = case.read_bytes()
    lines = [text] if case.suffix == ".json" else [ln for ln in text.splitlines() if ln.strip()]
    bad = 0
    for raw in lines:
        res = score_case(raw)
        bad += "error" in res
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
    bots: str = typer.Option("heuristic", "--bots", help="heuristic or random"),
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
        raise typer.Exit(2)
    from replay.simulator import _bots, simulate

    try:
        _bots(variant, bots)
    except ValueError as e:
        typer.echo(f"paipu simulate: --bots: {e}", err=True)
        raise typer.Exit(2)
    recorded = None
    if deals is not None:
        try:
            recorded = _read_deals(deals, spec)
        except (OSError, ValueError) as e:
            typer.echo(f"paipu simulate: --deals {deals}: {e}", err=True)
            raise typer.Exit(2)
    out.parent.mkdir(parents=True, exist_ok=True)
    if recorded is not None:
        lines = [msgspec.json.encode(r) for r in simulate(variant, len(recorded), seed, bots, overrides, deals=recorded)]
    else:
        workers = workers or os.cpu_count() or 1
        size = max(8, min(496, -(-games // workers // 8) * 8))  # whole tables of 8 games per chunk
        chunks = [(variant, min(size, games - s), seed, bots, overrides, s) for s in range(0, games, size)]
        if workers == 1 or len(chunks) == 1:
            lines = [ln for part in map(_sim_chunk, chunks) for ln in part]
        else:
            with process_pool(workers) as pool:
                lines = [ln for part in pool.map(_sim_chunk, chunks) for ln in part]
    tmp = out.with_name(out.name + ".tmp")
    with open(tmp, "wb") as fh:
        for ln in lines:
            fh.write(ln + b"\n")
    os.replace(tmp, out)
    typer.echo(f"simulated {len(lines)} {variant} games → {out}")
