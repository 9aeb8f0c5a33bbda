"""``paipu validate`` (registered by ``paipu/cli.py``): every game replayed and judged, read and
counted exactly as ``paipu ingest`` reads and counts — the same reader (:mod:`ingest.reader`), the same
judgment of a line (:func:`ingest.rows.judge_line`) and the same duplicate rule (:mod:`ingest.dedupe`)
— with nothing written. Its exit status: 0 nothing invalid or rejected, 1 otherwise, 2 usage error
(spec §6; typer's own usage errors are 2 as well).
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path
from typing import Any, Optional

import msgspec
import typer

from ingest.dedupe import Index
from ingest.reader import FileStats, find_inputs, read_lines
from ingest.rows import Counts, Reject, judge_line
from replay import ENGINE_VERSION
from replay.cli import rules_option, rules_text, shown_path
from replay.progress import Meter
from replay.record import Verdict, VerdictError, sha256_hex, source_text, terminal_text
from replay.replayer import replay_line
from replay.words import need


def _verdict_json(res: Any) -> Any:
    """The spec §6 verdict, plus ``explain`` (:func:`replay.explain.explain_outcome`: the computed
    split, the worked sum and the term that differs) when the settlement is disputed."""
    from replay.explain import explain_outcome

    ex = None if res.verdict.valid else explain_outcome(res)
    if ex is None:
        return res.verdict
    return {**msgspec.to_builtins(res.verdict), "explain": ex}


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
    for f in files:
        need("validate", f)
    defaults = rules_option(rules)
    replay = functools.partial(replay_line, defaults=defaults) if defaults else replay_line
    try:
        inputs, skipped = find_inputs(files)
    except FileNotFoundError as e:
        typer.echo(f"paipu validate: {terminal_text(str(e))}", err=True)
        raise typer.Exit(2) from None
    for f in skipped:
        typer.echo(f"paipu validate: skipped {shown_path(f)} (not a .jsonl, .jsonl.gz or .jsonl.zst file)", err=True)
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
            where = shown_path(f)  # a file name need not be UTF-8; a strict stdout would stop here
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
