"""Commands of the replay stage: ``paipu validate``, ``paipu score``, ``paipu simulate``.

Registered on the ``paipu`` app by ``paipu/cli.py``. ``validate`` reads and counts lines exactly as
``paipu ingest`` does (:mod:`ingest.reader`, :func:`ingest.rows.judge_line`, :mod:`ingest.dedupe`);
its exit status: 0 nothing invalid or rejected, 1 otherwise, 2 usage error (spec §6; typer's own
usage errors are 2 as well).
"""

from __future__ import annotations

import functools
import json
import os
import sys
from pathlib import Path
from typing import Any, Optional

import msgspec
import typer

from replay import ENGINE_VERSION, variants
from replay.options import parse_overrides
from replay.progress import Meter
from replay.record import Verdict, VerdictError, sha256_hex, source_text, terminal_text
from replay.replayer import replay_line
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


def _verdict_json(res: Any) -> Any:
    """The spec §6 verdict, plus ``explain`` (:func:`replay.explain.explain_outcome`: the computed
    split, the worked sum and the term that differs) when the settlement is disputed."""
    from replay.explain import explain_outcome

    ex = None if res.verdict.valid else explain_outcome(res)
    if ex is None:
        return res.verdict
    return {**msgspec.to_builtins(res.verdict), "explain": ex}


def _shown(path: Path) -> str:
    """A path as printed: relative to the working folder when inside it, as text a terminal only
    shows (:func:`~replay.record.terminal_text`: a file name may hold any byte but / and NUL)."""
    try:
        return terminal_text(str(path.relative_to(Path.cwd())))
    except ValueError:
        return terminal_text(str(path))


def _reject_verdict(reject: Any, raw: bytes) -> Verdict:
    """The spec §6 verdict of a rejected line: invalid, its one error, nothing computed."""
    return Verdict(reject.game_id, False, [VerdictError(reject.step, reject.code, reject.rule, reject.message)],
                   None, None, ENGINE_VERSION, reject.raw_sha256 or sha256_hex(raw))


def validate_cmd(
    files: list[Path] = typer.Argument(..., help="paipu/1 JSON Lines files (.jsonl, .jsonl.gz, .jsonl.zst) or folders of them"),
    as_json: bool = typer.Option(False, "--json", help="one spec §6 verdict JSON object per line, with its status "
                                 "(valid, invalid, rejected, duplicate), source_file and source_line (and `explain` "
                                 "for a disputed settlement); no totals"),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="print only invalid and rejected lines and the totals"),
    rules: Optional[str] = typer.Option(None, "--rules", metavar="OPT=VAL[,OPT=VAL…]",
                                        help="rule options for records that carry no `rules` object (a record's own "
                                             "`rules` wins); each applies to every variant that has it"),
) -> None:
    """Replay every game and print one verdict per line, then the totals: lines = blank + read, read = valid +
    invalid + rejected + duplicate (the reader and the accounting of `paipu ingest`: the same codes, the same
    counts). Exit 0 when nothing is invalid or rejected, 1 otherwise, 2 usage error."""
    from ingest.dedupe import Index
    from ingest.reader import FileStats, find_inputs, read_lines
    from ingest.rows import Counts, judge_line

    defaults = rules_option(rules)
    replay = functools.partial(replay_line, defaults=defaults) if defaults else replay_line
    try:
        inputs, skipped = find_inputs(files)
    except FileNotFoundError as e:
        typer.echo(f"paipu validate: {terminal_text(str(e))}", err=True)
        raise typer.Exit(2)
    for f in skipped:
        typer.echo(f"paipu validate: skipped {_shown(f)} (not a .jsonl, .jsonl.gz or .jsonl.zst file)", err=True)
    if not inputs:
        typer.echo("paipu validate: no input files", err=True)
        raise typer.Exit(2)
    out = sys.stdout
    index = Index()  # duplicates within this run, by ingest's rule (ingest.dedupe)
    total = Counts()
    lines = blank = 0
    size = sum(f.stat().st_size for f in inputs)
    with Meter("validate", size or None, "lines") as meter:
        for f in inputs:
            where = _shown(f)  # a file name need not be UTF-8; a strict stdout would stop here
            origin = index.begin(str(f), str(f))
            st = FileStats(str(f))
            counts = Counts()
            pos = 0
            for line in read_lines(f, stats=st):
                judged = judge_line(line, replay, keep_obj=False)
                status, verdict, res = _account(index, origin, line, judged)
                setattr(counts, status, getattr(counts, status) + 1)
                if res is not None and res.defaulted and status in ("valid", "invalid"):
                    counts.defaulted += 1
                meter.advance(st.bytes_in - pos, 1)
                pos = st.bytes_in
                if as_json:
                    obj = _verdict_json(res) if res is not None else verdict
                    obj = obj if isinstance(obj, dict) else msgspec.to_builtins(obj)
                    obj.update(status=status, source_file=source_text(str(f)), source_line=line.line_no)
                    out.write(msgspec.json.encode(obj).decode() + "\n")
                elif status in ("invalid", "rejected") or not quiet:
                    out.write(_verdict_line(f"{where}:{line.line_no}", status, verdict))
            meter.advance(st.size - pos, 0)
            total.add(counts)
            lines += st.lines
            blank += st.blank
            if not as_json and counts.read == 0:
                out.write(f"{where}: no games ({st.lines} lines, {st.blank} blank)\n")
    if not as_json:
        out.write(f"{len(inputs)} file{'s' * (len(inputs) != 1)}, {lines} lines = {blank} blank + read {total.read}: "
                  f"{total.valid} valid, {total.invalid} invalid, {total.rejected} rejected, "
                  f"{total.duplicate} duplicate\n")
        if defaults:
            out.write(f"{total.defaulted} of the {total.valid + total.invalid} games carried no `rules` object and were "
                      f"judged under --rules ({rules_text(defaults)})\n")
    raise typer.Exit(1 if total.invalid or total.rejected else 0)


def _account(index: Any, origin: int, line: Any, judged: Any) -> tuple[str, Verdict, Any]:
    """A judged line's status (``valid``/``invalid``/``rejected``/``duplicate``, as ``paipu ingest``
    counts it: :mod:`ingest.dedupe`'s rule, within this run), its verdict, and its replay outcome
    when the line is a game (None for a reject: nothing to explain)."""
    from ingest.rows import Reject

    res = judged.outcome
    r = judged.reject
    if r is None:
        v = res.verdict
        seen = index.seen_game(v.game_id, v.record_sha256, line.line_no, origin)
        if seen is None:
            return ("valid" if v.valid else "invalid"), v, res
        if seen == "":
            return "duplicate", v, res
        r = Reject("duplicate_game", "paipu.duplicate_game", seen, v.game_id, None, v.record_sha256)
        verdict = _reject_verdict(r, line.raw)
    elif res is None:
        verdict = _reject_verdict(r, line.raw)
    else:  # a record that decoded keeps its verdict (all its record-level errors), with why it is a reject
        verdict = res.verdict
        if not any(e.code == r.code and e.rule == r.rule for e in verdict.errors):
            # a reject that is not one of its errors (an integer no 64-bit column holds): a valid
            # replay must not be shown as a reject without a reason
            verdict = msgspec.structs.replace(verdict, valid=False, errors=[
                VerdictError(r.step, r.code, r.rule, r.message), *verdict.errors])
    dup = index.seen_reject(r.raw_sha256 or sha256_hex(line.raw), r.rule, line.line_no, origin)
    return ("duplicate" if dup else "rejected"), verdict, None


def _verdict_line(where: str, status: str, v: Verdict) -> str:
    """One text line of ``paipu validate``: place, game, status and the first error."""
    gid = f" {v.game_id}" if v.game_id is not None else ""
    if status == "valid":
        c = v.computed or {}
        what = (f"win seat {c.get('winner')} {c.get('points')} 胡 units {c.get('units')}" if c.get("outcome") == "win"
                else "荒庄 draw")
        return terminal_text(f"{where}{gid} valid ({what})") + "\n"
    if status == "duplicate":
        return terminal_text(f"{where}{gid} duplicate of an earlier line (counted once)") + "\n"
    e = v.errors[0]
    more = f" (+{len(v.errors) - 1} more)" if len(v.errors) > 1 else ""
    step = f" step {e.step}" if e.step is not None else ""
    return terminal_text(f"{where}{gid} {status.upper()}{step} {e.code} [{e.rule}] {e.message}{more}") + "\n"


def score_cmd(
    case: Path = typer.Argument(..., help="a score case (.json) or a list of them (.jsonl), spec §8"),
) -> None:
    """Judge finished hands without a game (spec §8); one JSON object per case. A malformed case
    prints ``{"error", "case"}`` (``case``: the file, and the line of a .jsonl) and is named on
    stderr too. Exit 1 if any case is malformed."""
    from replay.score import score_case

    if not case.is_file():
        typer.echo(terminal_text(f"paipu score: no such file: {case}"), err=True)
        raise typer.Exit(2)
    text = case.read_bytes()
    where = _shown(case.absolute())
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
        raise typer.Exit(2)
    from replay.simulator import seat_bots, simulate

    try:
        seat_bots(variant, bots, overrides)
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
