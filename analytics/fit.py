"""``paipu fit``: which ruleset do these logs follow, and which games did the server get wrong?

A server writes its games without saying which reading of each open rule it plays. ``fit``
replays the games of one variant under candidate rulesets — the engine's own replay, the one
judge — and searches the variant's options, play and scoring alike, for the values under which
the most games replay valid (docs/fit.md says how it searches and what it costs):

- **Search.** Coordinate ascent from the defaults (with ``--rules``' values held fixed): each
  round tries every single option moved to each of its other values and takes the best move;
  when no single move helps, the options whose move lets some game get further are tried two
  at a time (two readings a game needs at once). A ruleset ranks by its valid games, then by how
  far the invalid games get (the step of their first error; at the settlement, how few fields
  differ), so a move that fixes one of two readings a game needs still counts.
- **Evidence.** For each option, its value found and what every other value does to the count
  of valid games (others as found): fewer valid games under every other value is *determined*;
  a value that keeps as many valid is a tie the games do not decide: *undetermined*.
- **Faults.** The games still invalid, grouped by their first error (code, rule, act, result
  field), each class with its count, an example and the single option values under which some
  of its games get further; a class that no value helps is a *suspected server fault*: the
  server broke the rule its first error names, under every reading the engine knows.

A record that carries its own ``rules`` object is judged by it (the search moves only the
records that carry none, as ``--rules`` does).
"""

from __future__ import annotations

import contextlib
import itertools
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping, Optional, Sequence

import typer
from rich.console import Console
from rich.text import Text

from replay.progress import Meter
from replay.record import terminal_text
from replay.words import need, need_variant
from replay.workers import process_pool

CHUNK = 250
"""Games a worker task replays under every candidate of a round."""

PAIR_LIMIT = 10
"""At most this many options (those whose move lets most games get further) are tried in pairs
when no single move helps."""

_FIELD = re.compile(r"^result\.([a-z_]+):")


@dataclass(frozen=True)
class Sig:
    """One game's verdict under one ruleset, as the search compares them: valid, or its first error
    (``step`` None for a record-level error) with the act at that step and, for a settlement that
    differs, the fields that differ."""

    valid: bool
    code: str = ""
    rule: str = ""
    step: Optional[int] = None
    act: str = ""
    fields: tuple[str, ...] = ()
    message: str = ""

    def progress(self, n_actions: int) -> float:
        """How far the game got, in [0, 1]: 1 valid; at a settlement that differs, more the fewer
        fields differ; otherwise the step of the first error over the game's length."""
        if self.valid:
            return 1.0
        if self.code == "result_mismatch":
            m = len(self.fields)
            return (n_actions + 1 - m / (m + 1)) / (n_actions + 2)
        return ((self.step or 0) + 1) / (n_actions + 2) if self.step is not None else 0.0

    @property
    def klass(self) -> tuple[str, str, str, str]:
        """The fault class of an invalid game: (code, rule, act, first differing field)."""
        return (self.code, self.rule, self.act, self.fields[0] if self.fields else "")


def _sig(out: Any) -> Sig:
    v = out.verdict
    if v.valid:
        return Sig(True)
    e = v.errors[0]
    rec = out.record
    acts = rec.actions if rec is not None else []
    if all(x.code == "result_mismatch" for x in v.errors):
        fields = tuple(m.group(1) for m in (_FIELD.match(x.message) for x in v.errors) if m)
        return Sig(False, e.code, e.rule, e.step, "", fields, e.message)
    e = next(x for x in v.errors if x.code != "result_mismatch")
    act = acts[e.step].act if e.step is not None and 0 <= e.step < len(acts) else ""
    return Sig(False, e.code, e.rule, e.step, act, (), e.message)


def _evaluate(task: tuple[list[bytes], str, list[dict[str, Any]], bool]) -> list[list[Sig]]:
    """Worker task: every line of a chunk replayed under every candidate (values of ``variant``'s
    options), each line decoded once; with ``by_seats`` the ``players`` option is each record's
    own seat count. Returns ``sigs[candidate][line]``."""
    from replay.record import decode_record, sha256_hex
    from replay.replayer import replay_record

    lines, variant, candidates, by_seats = task
    recs = []
    for raw in lines:
        recs.append((decode_record(raw), raw, sha256_hex(raw)))
    return [[_sig(replay_record(rec, raw, sha=sha, defaults={
                variant: {**cand, "players": len(rec.seats)} if by_seats else cand})) for rec, raw, sha in recs]
            for cand in candidates]


def _key(values: Mapping[str, Any]) -> tuple:
    return tuple(sorted((k, repr(v)) for k, v in values.items()))


@dataclass
class OptionFit:
    """What the games say of one option: its value found, and for every value the valid games with
    the option there and the others as found."""

    name: str
    kind: str
    default: Any
    value: Any
    fixed: bool
    valid_by_value: dict[str, int]

    @property
    def status(self) -> str:
        """``fixed`` (``--rules``), ``determined`` (every other value makes fewer games valid) or
        ``undetermined`` (some other value keeps as many: the games do not tell them apart)."""
        if self.fixed:
            return "fixed"
        mine = self.valid_by_value[_show(self.value)]
        others = [n for v, n in self.valid_by_value.items() if v != _show(self.value)]
        return "determined" if all(n < mine for n in others) else "undetermined"

    @property
    def evidence(self) -> int:
        """Games valid with the value found and not with the default (others as found)."""
        return self.valid_by_value[_show(self.value)] - self.valid_by_value[_show(self.default)]


@dataclass(frozen=True)
class OptionChange:
    """One option value that lets games of a fault class get further: how many, and how many of
    them it makes valid."""

    value: str
    further: int
    valid: int

    def __str__(self) -> str:
        return f"{self.value} ({self.further} further, {self.valid} valid)"


@dataclass
class FaultClass:
    """Invalid games (under the ruleset found) with the same first error."""

    code: str
    rule: str
    act: str
    field: str
    games: int
    example_game: str
    example_step: Optional[int]
    example_message: str
    option_changes: list[OptionChange]
    own_rules: int = 0
    own_rules_wrong: int = 0

    @property
    def suspected_server_fault(self) -> bool:
        """No value of any single option lets any game of the class get further, and none of its
        games is valid under the ruleset found once its own ``rules`` object is set aside: under
        every reading the engine knows, the server broke the rule its first error names."""
        return not self.option_changes and not self.own_rules_wrong


@dataclass
class FitResult:
    """What :func:`fit` found for one variant's games."""

    variant: str
    games: int
    own_rules: int
    not_fitted: dict[str, int]
    valid_default: int
    valid_found: int
    ruleset: dict[str, Any]
    rules_object: dict[str, Any]
    options: list[OptionFit]
    faults: list[FaultClass]
    evaluations: int
    game_ids: list[str] = field(default_factory=list, repr=False)
    valid_start: int = 0
    by_seats: bool = False
    seat_counts: list[int] = field(default_factory=list)
    """The games' seat counts, each once (with ``by_seats``, ``players`` is each game's own)."""
    without_rules: bool = False
    """The records' own ``rules`` objects were set aside (``--without-rules``)."""

    @property
    def sure(self) -> dict[str, Any]:
        """The values found away from the defaults that the games decide (or ``--rules`` gave)."""
        status = {o.name: o.status for o in self.options}
        return {k: v for k, v in self.ruleset.items() if status.get(k) in ("determined", "fixed")}

    @property
    def tied(self) -> list[OptionFit]:
        """Options whose value the games do not decide, found away from the default or tied with it."""
        return [o for o in self.options if o.status == "undetermined" and not _same(o.value, o.default)]

    @property
    def nothing_to_fit(self) -> bool:
        """Every game carries its own ``rules`` object and is judged by it: no ruleset to find."""
        return self.own_rules == self.games

    @property
    def rules_text(self) -> str:
        """The values the games decide, away from the defaults, as ``--rules`` text."""
        return ",".join(f"{k}={_show(v)}" for k, v in self.sure.items())

    def to_json(self) -> dict[str, Any]:
        """The result as JSON-ready data (``nothing_to_fit``: every game was judged by its own rules, so the
        figures say how the games fare under them, not which ruleset a server plays)."""
        head = {"variant": self.variant, "games": self.games, "own_rules": self.own_rules, "not_fitted": self.not_fitted,
                "nothing_to_fit": self.nothing_to_fit}
        return {
            **head,
            "valid_default": self.valid_default, "valid_start": self.valid_start, "valid_found": self.valid_found,
            "rules": self.sure, "rules_text": self.rules_text, "rules_object": self.rules_object,
            "tied": {o.name: [v for v, n in o.valid_by_value.items() if n == o.valid_by_value[_show(o.value)]]
                     for o in self.tied},
            "players_by_seats": self.by_seats, "seat_counts": self.seat_counts, "without_rules": self.without_rules,
            "options": [{"name": o.name, "kind": o.kind, "default": o.default, "value": o.value, "status": o.status,
                         "evidence": o.evidence, "valid_by_value": o.valid_by_value} for o in self.options],
            "faults": [{"code": f.code, "rule": f.rule, "act": f.act or None, "field": f.field or None,
                        "games": f.games, "example_game": f.example_game, "example_step": f.example_step,
                        "example_message": f.example_message,
                        "option_changes": [{"value": c.value, "further": c.further, "valid": c.valid}
                                           for c in f.option_changes],
                        "own_rules": f.own_rules, "own_rules_wrong": f.own_rules_wrong,
                        "suspected_server_fault": f.suspected_server_fault} for f in self.faults],
            "evaluations": self.evaluations,
        }


def _show(v: Any) -> str:
    return str(v).lower() if isinstance(v, bool) else str(v)


class _Judge:
    """Replays the games under candidate rulesets, in worker processes, and keeps every answer."""

    def __init__(self, lines: list[bytes], variant: str, workers: int, meter: Meter | None, by_seats: bool) -> None:
        self.chunks = [lines[i:i + CHUNK] for i in range(0, len(lines), CHUNK)]
        self.variant = variant
        self.by_seats = by_seats
        self.meter = meter
        self.cache: dict[tuple, list[Sig]] = {}
        self.stack = contextlib.ExitStack()
        self.pool = (self.stack.enter_context(process_pool(min(workers, len(self.chunks))))
                     if workers > 1 and len(self.chunks) > 1 else None)

    def close(self) -> None:
        self.stack.close()

    def judge(self, candidates: Sequence[dict[str, Any]]) -> list[list[Sig]]:
        """Each candidate's verdicts, game by game (from the cache where it was judged before)."""
        todo = [c for c in {_key(c): c for c in candidates if _key(c) not in self.cache}.values()]
        if todo:
            tasks = [(chunk, self.variant, todo, self.by_seats) for chunk in self.chunks]
            done = self.pool.map(_evaluate, tasks) if self.pool is not None else map(_evaluate, tasks)
            parts: list[list[Sig]] = [[] for _ in todo]
            for chunk, got in zip(self.chunks, done):
                for i, sigs in enumerate(got):
                    parts[i] += sigs
                if self.meter is not None:
                    self.meter.advance(len(chunk) * len(todo))
            for c, sigs in zip(todo, parts):
                self.cache[_key(c)] = sigs
        return [self.cache[_key(c)] for c in candidates]


def fit(lines: Sequence[bytes], variant: str, *, fixed: Mapping[str, Any] | None = None, workers: int = 1,
        console: Console | None = None, not_fitted: Mapping[str, int] | None = None,
        without_rules: bool = False) -> FitResult:
    """Find the ruleset of ``variant`` under which the most of ``lines`` (records of that variant)
    replay valid (the module docstring says how).

    :param fixed: option values known (``--rules``): held, not searched.
    :param without_rules: fit the lines as if no record carried its ``rules`` object
        (``--without-rules``: does the play follow the rules the server wrote?).
    :raises ValueError: unknown or unimplemented variant, no games, a fixed option not allowed.
    """
    from replay import variants
    from replay.options import make_ruleset
    from replay.record import decode_record

    spec = variants.VARIANTS.get(variant)
    if spec is None or not spec.implemented:
        raise ValueError(f"variant {variant!r} is not implemented")
    if not lines:
        raise ValueError(f"no {variant} games to fit")
    fixed = dict(fixed or {})
    make_ruleset(variant, spec.options, fixed)  # a value not allowed raises here
    if without_rules:
        lines = [set_aside_rules(raw) for raw in lines]
    lens, ids, owns, seats = [], [], [], set()
    for raw in lines:
        rec = decode_record(raw)
        seats.add(len(rec.seats))
        lens.append(len(rec.actions))
        ids.append(rec.game_id)
        owns.append(_has_rules(rec))
    # a server may deal 3 and 4 seats: `players` is each record's seat count, never searched
    by_seats = any(o.name == "players" for o in spec.options) and "players" not in fixed
    free = [o for o in spec.options if o.name not in fixed and len(o.allowed) > 1 and not (by_seats and o.name == "players")]
    start = {o.name: fixed.get(o.name, o.default) for o in spec.options}

    def rank(sigs: list[Sig]) -> tuple[int, float]:
        return sum(s.valid for s in sigs), round(sum(s.progress(n) for s, n in zip(sigs, lens)), 9)

    def moves(cur: dict[str, Any]) -> list[dict[str, Any]]:
        return [{**cur, o.name: v} for o in free for v in o.allowed if not _same(v, cur[o.name])]

    # how many rounds the search takes is not known ahead: a count and a rate, no bar
    with Meter(f"fit {variant}", None, "replays", console=console, enabled=console is not None) as meter:
        judge = _Judge(list(lines), variant, workers, meter, by_seats)
        try:
            cur = start
            cur_sigs = judge.judge([cur])[0]
            default_sigs = cur_sigs if not fixed else judge.judge([{o.name: o.default for o in spec.options}])[0]
            while True:
                near = moves(cur)
                got = judge.judge(near)
                best = max(range(len(near)), key=lambda i: rank(got[i]), default=None)
                if best is not None and rank(got[best]) > rank(cur_sigs):
                    cur, cur_sigs = near[best], got[best]
                    continue
                # no single move helps: the options whose move lets some game get further, two at a time
                helped = sorted(((sum(x.progress(n) > y.progress(n) + 1e-12 for x, y, n in zip(g, cur_sigs, lens)), i)
                                 for i, g in enumerate(got)), reverse=True)
                names = list(dict.fromkeys(name for n, i in helped if n
                                           for name in near[i] if not _same(near[i][name], cur[name])))[:PAIR_LIMIT]
                pairs = [{**cur, a: va, b: vb} for a, b in itertools.combinations(names, 2)
                         for va in _values(spec, a) if not _same(va, cur[a])
                         for vb in _values(spec, b) if not _same(vb, cur[b])]
                got2 = judge.judge(pairs)
                best2 = max(range(len(pairs)), key=lambda i: rank(got2[i]), default=None)
                if best2 is not None and rank(got2[best2]) > rank(cur_sigs):
                    cur, cur_sigs = pairs[best2], got2[best2]
                    continue
                break
            options = []
            for o in spec.options:
                if by_seats and o.name == "players":
                    continue
                by_value = {}
                for v in o.allowed:
                    sigs = judge.judge([{**cur, o.name: v}])[0]
                    by_value[_show(v)] = sum(s.valid for s in sigs)
                options.append(OptionFit(o.name, o.kind, o.default, cur[o.name], o.name in fixed, by_value))
            # every option, --rules' fixed ones too, may explain a fault
            near = [{**cur, o.name: v} for o in spec.options for v in o.allowed
                    if not _same(v, cur[o.name]) and not (by_seats and o.name == "players")]
            near_sigs = judge.judge(near)
            evaluations = len(judge.cache)
        finally:
            judge.close()
    cur_by = {k: v for k, v in cur.items() if not (by_seats and k == "players")}
    own_valid = _own_rules_valid(lines, cur_sigs, owns, variant, cur_by, by_seats)
    faults = _faults(cur, cur_sigs, near, near_sigs, ids, lens, owns, own_valid)
    found = {o.name: cur[o.name] for o in spec.options if not _same(cur[o.name], o.default) and o.name in cur_by}
    return FitResult(variant, len(lines), sum(owns), dict(not_fitted or {}), sum(s.valid for s in default_sigs),
                     sum(s.valid for s in cur_sigs), found, cur_by, options, faults, evaluations, ids,
                     valid_start=sum(s.valid for s in judge.cache[_key(start)]), by_seats=by_seats,
                     seat_counts=sorted(seats), without_rules=without_rules)


def _own_rules_valid(lines: Sequence[bytes], sigs: list[Sig], owns: list[bool], variant: str,
                     cur: dict[str, Any], by_seats: bool) -> set[int]:
    """The invalid games that carry their own ``rules`` object and replay valid under the ruleset
    found once that object is set aside (their server wrote the wrong readings into it)."""
    import msgspec

    from replay.replayer import replay_line

    out = set()
    for i, (raw, s, own) in enumerate(zip(lines, sigs, owns)):
        if own and not s.valid:
            line = set_aside_rules(raw)
            rules = {**cur, "players": len(msgspec.json.decode(line).get("seats") or [])} if by_seats else cur
            if replay_line(line, defaults={variant: rules}).verdict.valid:
                out.add(i)
    return out


def set_aside_rules(raw: bytes) -> bytes:
    """The line ``raw`` as if its record carried no ``rules`` object (``raw`` itself when it carries none)."""
    import msgspec

    obj = msgspec.json.decode(raw)
    if not isinstance(obj, dict) or "rules" not in obj:
        return raw
    del obj["rules"]
    return msgspec.json.encode(obj)


def _has_rules(rec: Any) -> bool:
    import msgspec

    return rec.rules is not msgspec.UNSET


def _same(a: Any, b: Any) -> bool:
    return a == b and type(a) is type(b)


def _values(spec: Any, name: str) -> tuple:
    return next(o.allowed for o in spec.options if o.name == name)


def _faults(cur: dict[str, Any], sigs: list[Sig], near: list[dict[str, Any]], near_sigs: list[list[Sig]],
            ids: list[str], lens: list[int], owns: list[bool], own_valid: set[int]) -> list[FaultClass]:
    """The invalid games by :attr:`Sig.klass`; a class's ``option_changes`` are the single option
    values under which some game of it gets further (valid, or its first error later), with how
    many get further and how many turn valid; ``own_rules`` counts its games that carry their
    own ``rules`` (judged by it), ``own_rules_wrong`` those valid under the ruleset found without it."""
    classes: dict[tuple, list[int]] = {}
    for i, s in enumerate(sigs):
        if not s.valid:
            classes.setdefault(s.klass, []).append(i)
    out = []
    for (code, rule, act, fld), games in classes.items():
        changes = []
        for cand, other in zip(near, near_sigs):
            further = [i for i in games if other[i].progress(lens[i]) > sigs[i].progress(lens[i]) + 1e-12]
            if further:
                name = next(k for k in cand if not _same(cand[k], cur[k]))
                changes.append(OptionChange(f"{name}={_show(cand[name])}", len(further),
                                            sum(other[i].valid for i in further)))
        changes.sort(key=lambda c: (-c.valid, -c.further, c.value))
        first = sigs[games[0]]
        out.append(FaultClass(code, rule, act, fld, len(games), ids[games[0]], first.step, first.message, changes,
                              sum(owns[i] for i in games), sum(i in own_valid for i in games)))
    out.sort(key=lambda f: (-f.games, f.code, f.rule))
    return out


# --- reading ----------------------------------------------------------------------------------

def read_games(paths: Iterable[Path], variant: str) -> tuple[list[bytes], dict[str, int]]:
    """The lines of ``paths`` (files and folders, read as ``paipu validate`` reads them) that are
    records of ``variant``, and the others counted by why they are not fitted (``rejected``: not
    a record; ``repeated_game_id``: a game id seen before; another variant's id: its records)."""
    from ingest.reader import find_inputs, read_lines
    from replay.errors import RuleViolation
    from replay.record import decode_record

    inputs, _ = find_inputs(list(paths))
    out: list[bytes] = []
    skipped = {"rejected": 0, "repeated_game_id": 0}
    seen: set[str] = set()
    for f in inputs:
        for line in read_lines(f):
            if line.problem is not None:
                skipped["rejected"] += 1
                continue
            try:
                rec = decode_record(line.raw)
            except (RuleViolation, UnicodeDecodeError, ValueError):
                skipped["rejected"] += 1
                continue
            if rec.variant != variant:
                skipped[rec.variant] = skipped.get(rec.variant, 0) + 1
            elif rec.game_id in seen:
                skipped["repeated_game_id"] += 1
            else:
                seen.add(rec.game_id)
                out.append(line.raw)
    return out, {k: v for k, v in skipped.items() if v}


def warehouse_games(con: Any, variant: str, limit: int | None = None) -> list[bytes]:
    """The stored lines (``games.record_json``) of the warehouse's games of ``variant``, valid or
    not, outside experiments, in ``game_id`` order (``limit``: the latest that many)."""
    from analytics import queries as q

    cur = con.cursor()
    try:
        sql = f"SELECT record_json, game_id FROM games WHERE variant = $variant AND {q.no_experiment(con, 'games')}"
        if limit is not None:
            sql = f"SELECT * FROM ({sql} ORDER BY started_at DESC NULLS LAST, game_id DESC LIMIT {int(limit)})"
        rows = cur.execute(f"{sql} ORDER BY game_id", {"variant": variant}).fetchall()
    finally:
        cur.close()
    return [r[0].encode("utf-8", "surrogatepass") for r in rows]


# --- the command ------------------------------------------------------------------------------

def _games(n: int) -> str:
    return f"{n} game" + ("" if n == 1 else "s")


def _carry(n: int) -> str:
    """``carry their own `rules` object and are`` for ``n`` games, in the singular for one."""
    return "carries its own `rules` object and is" if n == 1 else "carry their own `rules` object and are"


def print_result(res: FitResult, console: Console) -> None:
    """The ruleset found, the evidence per option, then the invalid games by first error."""
    p = lambda s: console.print(Text(s), soft_wrap=True)  # noqa: E731 - text from logs is never markup
    skipped = ", ".join(f"{n} {'repeated game id' if why == 'repeated_game_id' else why}"
                        for why, n in res.not_fitted.items())
    p(f"fit {res.variant}: {_games(res.games)}" + (f" ({res.own_rules} {_carry(res.own_rules)} judged by it)"
                                                    if res.own_rules else "")
      + (f"; not fitted: {skipped}" if skipped else ""))
    if res.nothing_to_fit:
        p("every game carries its own `rules` object and is judged by it: there is nothing to fit (--without-rules "
          "fits them as if they carried none)")
        return
    fixed = [o for o in res.options if o.status == "fixed"]
    p(f"valid under the defaults: {res.valid_default} of {res.games}"
      + (f"; with your --rules: {res.valid_start}" if fixed else "")
      + f"; under the ruleset found: {res.valid_found} of {res.games}")
    p("")
    p(f"ruleset found: --rules {res.rules_text}" if res.rules_text else "ruleset found: the defaults (no --rules)")
    p(f"as a rules object: {json.dumps(res.sure, ensure_ascii=False)}")
    if res.by_seats and len(res.seat_counts) > 1:
        p(f"players: each game's own seat count, {' and '.join(map(str, res.seat_counts))} (validate and ingest "
          "each count's logs apart, with --rules players=N)")
    elif res.by_seats:
        p(f"players: every game has {res.seat_counts[0]} seats (--rules players={res.seat_counts[0]} for logs "
          "without a rules object)")
    for o in res.tied:
        ties = [v for v, n in o.valid_by_value.items() if n == o.valid_by_value[_show(o.value)]]
        p(f"tied, left out of --rules: {o.name} = {' or '.join(ties)} (as many games valid with each: "
          f"pick by what you know of the server)")
    p("")
    p("evidence (valid games with each value, the other options as found):")
    width = max(len(o.name) for o in res.options)
    for o in res.options:
        values = ", ".join(f"{v} {n}" for v, n in o.valid_by_value.items())
        mark = "" if _same(o.value, o.default) else f"  ← not the default: {o.evidence:+d} games valid"
        p(f"  {o.name:<{width}}  {_show(o.value):<14} {o.status:<12} ({values}){mark}")
    und = [o.name for o in res.options if o.status == "undetermined"]
    if und:
        p(f"undetermined (no game tells their values apart): {', '.join(und)}")
    p("")
    if not res.faults:
        p("every game replays valid under the ruleset found")
        return
    p(f"still invalid: {_games(res.games - res.valid_found)}, by first error:")
    for f in res.faults:
        what = " ".join(x for x in (f.code, f.rule, f"at `{f.act}`" if f.act else "",
                                    f"result.{f.field}" if f.field else "") if x)
        p(f"  {f.games:>6}  {what}")
        where = f"step {f.example_step}" if f.example_step is not None else "the record"
        p(f"          e.g. {terminal_text(f.example_game)} {where}: {terminal_text(f.example_message)}")
        if f.own_rules:
            p(f"          {f.own_rules} of them {'carries its' if f.own_rules == 1 else 'carry their'} own `rules` object "
              "(judged by it)"
              + (f"; {f.own_rules_wrong} replay valid under the ruleset found without it: the server wrote the "
                 f"wrong readings into `rules`" if f.own_rules_wrong else ""))
        if f.suspected_server_fault:
            p(f"          suspected server fault: no option value lets these games get further; the server broke {f.rule}")
        elif f.option_changes:
            p(f"          would help: {', '.join(str(c) for c in f.option_changes[:5])}")


def fit_cmd(
    paths: list[Path] = typer.Argument(None, help="paipu/1 JSON Lines files or folders (as `paipu validate` reads them)"),
    variant: str = typer.Option(..., "--variant", help="variant id (spec §7), e.g. guilin"),
    rules: Optional[str] = typer.Option(None, "--rules", metavar="OPT=VAL[,OPT=VAL…]",
                                        help="options known already: held at these values, not searched"),
    warehouse: Optional[Path] = typer.Option(None, "--warehouse", help="fit the warehouse's stored games instead of files"),
    workers: int = typer.Option(0, "--workers", help="processes (0 = all cores)"),
    as_json: bool = typer.Option(False, "--json", help="print the result as one JSON object"),
    set_aside: bool = typer.Option(False, "--without-rules",
                                   help="fit as if no record carried its `rules` object: does the play follow the "
                                        "rules the server wrote?"),
) -> None:
    """Which ruleset do these logs follow? Replays the variant's games under its options' values (play and scoring
    alike) and prints the ruleset under which the most replay valid, the evidence for each option, and the games
    still invalid grouped by their first error — a class no option value changes is a suspected server fault.

    Exit status 0 when done; 2 for a usage error (unknown variant or option, no games); 1 when the warehouse
    cannot be read.
    """
    import os

    from replay import variants
    from replay.options import parse_overrides

    need_variant("fit", variant)
    spec = variants.VARIANTS[variant]
    try:
        fixed = parse_overrides(rules or "", spec.options)
    except ValueError as e:
        raise typer.BadParameter(str(e), param_hint="--rules") from None
    if paths and warehouse is not None:
        raise typer.BadParameter("give files or folders, or --warehouse, not both")
    if not paths and warehouse is None:
        raise typer.BadParameter("give the files or folders to fit, or --warehouse DIR")
    not_fitted: dict[str, int] = {}
    if warehouse is not None:
        from ingest.cli import need_warehouse
        from ingest.views import connect

        need_warehouse("fit", warehouse)
        try:
            con = connect(warehouse)
            try:
                lines = warehouse_games(con, variant)
            finally:
                con.close()
        except (RuntimeError, OSError) as e:
            Console(stderr=True).print(Text(f"paipu fit failed: {terminal_text(str(e))}", style="red"))
            raise typer.Exit(1) from None
    else:
        for p in paths:
            need("fit", p)
        lines, not_fitted = read_games(paths, variant)
    if not lines:
        held = ", ".join(f"{v} {n}" for v, n in not_fitted.items() if v in variants.VARIANTS)
        if not_fitted.get("rejected"):
            held += (", " if held else "") + f"{not_fitted['rejected']} rejected lines (`paipu validate` says why)"
        where = f"warehouse {warehouse}" if warehouse is not None else "the input"
        Console(stderr=True).print(Text(f"paipu fit: no {variant} games in {where}"
                                        + (f" (it holds: {held})" if held else ""), style="red"))
        raise typer.Exit(2)
    res = fit(lines, variant, fixed=fixed, workers=workers or os.cpu_count() or 1,
              console=None if as_json else Console(stderr=True), not_fitted=not_fitted, without_rules=set_aside)
    if as_json:
        print(json.dumps(res.to_json(), ensure_ascii=False, indent=1))
    else:
        print_result(res, Console(highlight=False))
