"""Replay outcomes → warehouse rows (docs/warehouse.md). Runs inside the worker processes.

:func:`process_chunk` replays a chunk of lines of one file and returns Arrow tables (the
``variant`` and ``month`` partition columns included; the writer moves them into the path).
Every line ends in exactly one row: ``games`` (a decoded record of an implemented variant, valid
or not) or ``rejects`` (everything else). A line the engine crashes on is a reject with code
``engine_error`` (rule ``paipu.engine``), so one engine bug never stops an ingest.

Every row also carries its ``month`` partition (:func:`month_of`, moved into the path like
``variant``): a game's ``started_at`` month (UTC), else the run's ingest month — the same for all
rows of one game, so joins by ``game_id`` stay inside a partition. A reject's month is the
``started_at`` of its line when the line parses as a JSON object holding a valid one, else the
ingest month.

Checks made here before or around replay (docs/warehouse.md, "Reading the input"):

- an object with a repeated key (``{"seat": 0, "seat": 1}``) is ambiguous — parsers disagree on
  which value counts — so it is a reject ``bad_json`` / ``paipu.duplicate_key``;
- nesting deeper than the decoders manage is a reject ``bad_json`` / ``paipu.json_depth``;
- an integer that does not fit the warehouse's 64-bit columns (``round``, ``stake``, an event's
  ``t``) is a reject ``schema`` / ``paipu.int_range``;
- rows that Arrow still cannot hold are a reject ``engine_error`` / ``paipu.rows`` (a safety net:
  the chunk is rebuilt line by line).

Records may carry ``x_experiment`` (a string; e.g. written by ``paipu tune``): it is stored as the
``experiment`` column of ``games`` and ``seats``. Under ``--pseudonymize`` player ids are replaced
here, in the workers (:class:`Pseudonymizer`).

Every table carries a private ``_line`` column (the input line a row came from) that the main
process uses to drop the rows of duplicate lines; it is never written.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import json
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Callable, NamedTuple

import msgspec
import numpy as np
import pyarrow as pa

from ingest.reader import RAW_KEEP, Line
from ingest.schema import MONTH, PARTITION, TABLES, UNKNOWN_VARIANT
from replay.errors import RuleViolation
from replay.record import Event, canonical_record, parse_object, utf8_text

LINE = "_line"
"""Private column of every buffered table: the input line number a row came from."""
INT64 = (-(1 << 63), (1 << 63) - 1)

_KNOWN_VARIANTS = ("guilin", "zipai", "yuanjiang_guihuzi", "tongcheng_gezi", "sanjing_huapai",
                   "wujing_huapai", "shuangbiegan_huapai", "shangdaren")
"""spec §7 ids: the only strings allowed as a ``variant=`` folder name (a record's own string
never becomes a path)."""


def _known_variants() -> tuple[str, ...]:
    try:
        from replay.variants import VARIANTS
        return tuple(VARIANTS)
    except Exception:  # the engine does not import (yet): fall back to the spec's list
        return _KNOWN_VARIANTS


def parse_started_at(text: str | None) -> datetime | None:
    """An RFC 3339 ``started_at`` as an aware UTC datetime.

    :returns: None for a missing value, an unparsable one, or one without a UTC offset (RFC 3339
        requires it; guessing a zone would shift games silently).
    """
    if not text:
        return None
    try:
        t = datetime.fromisoformat(text)
    except ValueError:
        return None
    if t.tzinfo is None:
        return None
    try:
        return t.astimezone(timezone.utc)
    except (OverflowError, ValueError):  # e.g. 0001-01-01T00:00:00+01:00 is before year 1 in UTC
        return None


def month_of(started_at: datetime | None, ingested_at: datetime) -> str:
    """The ``month`` partition (``YYYY-MM``, UTC) of a row: of ``started_at`` (as
    :func:`parse_started_at` gives it), else of the run's ``ingested_at``."""
    t = (started_at or ingested_at).astimezone(timezone.utc)
    return f"{t.year:04d}-{t.month:02d}"


def _json(obj: Any) -> str | None:
    return None if obj is None else json.dumps(obj, ensure_ascii=False, sort_keys=True, default=str)


_RULES_JSON: dict[int, tuple[Any, str | None]] = {}


def _rules_json(ruleset: Any) -> str | None:
    """``_json`` of a ruleset's values, kept by the ruleset object: ``make_ruleset`` shares one
    object for the few rule sets that recur game after game (the entry holds the object, so its
    ``id`` is not reused while cached)."""
    hit = _RULES_JSON.get(id(ruleset))
    if hit is not None and hit[0] is ruleset:
        return hit[1]
    text = _json(dict(ruleset.values))
    if len(_RULES_JSON) < 1024:
        _RULES_JSON[id(ruleset)] = (ruleset, text)
    return text


_astuple = msgspec.structs.astuple
_EV_SEAT, _EV_ACT, _EV_CARD, _EV_CARDS, _EV_FROM, _EV_TAIL, _EV_TO_HAND, _EV_T = (
    Event.__struct_fields__.index(f) for f in ("seat", "act", "card", "cards", "from_", "tail", "to_hand", "t"))


class Pseudonymizer:
    """Keyed hash of player ids (``paipu ingest --pseudonymize SALT_FILE``).

    ``pid(x)`` is ``"h:"`` + the first 20 hex digits of HMAC-SHA256(salt, x): the same id and salt
    give the same pseudonym in every run; without the salt the id cannot be recovered by hashing
    guessed ids. ``fingerprint`` identifies the salt (stored in ``_meta/``, so a warehouse never
    mixes two salts) without revealing it.
    """

    def __init__(self, salt: bytes) -> None:
        salt = salt.strip()
        if len(salt) < 16:
            raise ValueError(f"the salt must hold at least 16 bytes (got {len(salt)}); e.g. "
                             "`head -c 32 /dev/urandom | base64 > salt`")
        self.salt = salt
        self.fingerprint = hmac.new(salt, b"paipu:pseudonym-check", hashlib.sha256).hexdigest()[:16]
        self._cache: dict[str, str] = {}

    def pid(self, player_id: str) -> str:
        """The pseudonym of ``player_id``."""
        p = self._cache.get(player_id)
        if p is None:
            p = "h:" + hmac.new(self.salt, player_id.encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()[:20]
            if len(self._cache) < 100_000:
                self._cache[player_id] = p
        return p

    def line(self, obj: dict[str, Any]) -> bytes:
        """``obj`` (a decoded record) written back as JSON with its ``seats`` pseudonymized."""
        seats = obj.get("seats")
        if isinstance(seats, list):
            obj = {**obj, "seats": [self.pid(x) if isinstance(x, str) else x for x in seats]}
        return json.dumps(obj, ensure_ascii=False, separators=(", ", ": ")).encode("utf-8", "surrogatepass")


_GAME_ID = re.compile(rb'"game_id"\s*:\s*("(?:[^"\\\x00-\x1f]|\\.){1,300}")')


def scan_game_id(head: bytes) -> str | None:
    """The first ``"game_id": "…"`` string in the bytes of a line that does not parse (cut off,
    over-long, not UTF-8 elsewhere), so that its reject still names the game; None when there is
    none or it is not a valid paipu/1 id (1–128 characters of Unicode text: a lone surrogate such as
    ``"\\ud800"`` is no character, and msgspec refuses the line for it)."""
    m = _GAME_ID.search(head[:RAW_KEEP])
    if m is None:
        return None
    try:
        gid = json.loads(m.group(1).decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    if not isinstance(gid, str) or not 1 <= len(gid) <= 128 or utf8_text(gid) != gid:
        return None
    return gid


def _out_of_int64(rec: Any) -> str | None:
    """The first record field that a 64-bit warehouse column cannot hold, or None."""
    lo, hi = INT64
    for name in ("round", "stake"):
        v = getattr(rec, name, None)
        if isinstance(v, int) and not lo <= v <= hi:
            return f"{name} = {v}"
    for i, ev in enumerate(rec.actions):
        if isinstance(ev.t, int) and not lo <= ev.t <= hi:
            return f"actions[{i}].t = {ev.t}"
    return None


@dataclass
class Counts:
    """Lines by where they ended: ``read = valid + invalid + rejected + duplicate``.

    ``duplicate`` is a line identical to one already stored (same ``game_id`` and content, or the
    same rejected bytes): counted, not stored again. Workers never set it; the main process does
    (:mod:`ingest.dedupe`), moving lines from ``valid``/``invalid``/``rejected``.
    """

    valid: int = 0
    invalid: int = 0
    rejected: int = 0
    duplicate: int = 0
    defaulted: int = 0  # games without a ``rules`` object played under the run's ``--rules`` (not a status)

    @property
    def read(self) -> int:
        """Lines counted: ``valid + invalid + rejected + duplicate``."""
        return self.valid + self.invalid + self.rejected + self.duplicate

    def add(self, other: "Counts") -> None:
        """Add ``other``'s counts to these."""
        self.valid += other.valid
        self.invalid += other.invalid
        self.rejected += other.rejected
        self.duplicate += other.duplicate
        self.defaulted += other.defaulted


class _Run(NamedTuple):
    """A table filled a game at a time (:meth:`Batch._rows`)."""

    same: dict[str, list]  # a column with one value a game: that value, a game after another
    lens: list[int]  # each game's row count
    counter: str | None  # the column counting 0..n-1 in each game, if any
    each: list[tuple[str, list]]  # the other columns (name, buffer), filled row by row


@dataclass
class Batch:
    """Column buffers of every table for a run of lines (``variant``, ``month`` and ``_line`` kept
    as columns).

    :param pseudonymizer: when set, player ids are replaced by their pseudonyms in ``seats``,
        ``games.record_json`` and ``rejects.raw`` (a rejected line that cannot be parsed keeps no
        raw text then, only its hash and length).
    """

    ingested_at: datetime
    pseudonymizer: Pseudonymizer | None = None
    cols: dict[str, dict[str, list]] = field(default_factory=dict)
    counts: Counts = field(default_factory=Counts)

    def __post_init__(self) -> None:
        self.cols = {t: {c: [] for c in [*s.names, PARTITION, MONTH, LINE]} for t, s in TABLES.items()}
        self.known = _known_variants()
        # tables written a game at a time (:meth:`_rows`): a column with one value a game is kept
        # once a game, with the game's row count, and repeated in Arrow (``take``), not in Python
        self.runs: dict[str, _Run] = {}

    def _row(self, table: str, values: dict[str, Any]) -> None:
        cols = self.cols[table]
        for name, col in cols.items():
            col.append(values.get(name))

    def _rows(self, table: str, n: int, same: dict[str, Any], each: dict[str, Any], index: str | None = None) -> None:
        """``n`` rows at once: ``each`` column's sequence of ``n`` values, ``same``'s value in every
        row, ``index`` (a column name) counting 0..n-1, None in the columns none names. A table is
        filled by this method only, with the same ``same`` names and ``index`` every time, or by
        :meth:`_row` only (else its columns' lengths part, and :meth:`to_arrow` raises)."""
        run = self.runs.get(table)
        if run is None:
            run = self.runs[table] = _Run({name: [] for name in same}, [], index,
                                          [(k, c) for k, c in self.cols[table].items() if k not in same and k != index])
        for name, vals in run.same.items():
            vals.append(same[name])
        run.lens.append(n)
        for name, col in run.each:
            got = each.get(name)
            col.extend(got if got is not None else [None] * n)

    # -- rejects -------------------------------------------------------------------------------
    def add_reject(self, source_file: str, line_no: int, raw: bytes, code: str, rule: str, message: str,
                   *, game_id: str | None = None, step: int | None = None, raw_sha256: str | None = None,
                   raw_bytes: int | None = None, claimed_variant: str | None = None,
                   obj: dict[str, Any] | None = None, month: str | None = None) -> None:
        """One ``rejects`` row. ``raw`` is cut to :data:`~ingest.reader.RAW_KEEP` bytes and
        decoded with replacement characters; the partition is ``claimed_variant`` when it is a
        spec §7 id, else ``_unknown``. ``obj`` is the line parsed, when it could be (used to
        pseudonymize ``raw``, and for the month: its ``started_at``, else the ingest month, unless
        ``month`` is given). Every string is passed through :func:`~replay.record.utf8_text`: this
        row is the fallback of every other, so it must never fail to encode."""
        self.counts.rejected += 1
        if game_id is None and obj is None:
            game_id = scan_game_id(raw)
        part = claimed_variant if claimed_variant in self.known else UNKNOWN_VARIANT
        sha = raw_sha256 or hashlib.sha256(raw).hexdigest()
        n = len(raw) if raw_bytes is None else raw_bytes
        if self.pseudonymizer is not None:
            raw = self.pseudonymizer.line(obj) if obj is not None else b""
        if month is None:
            started = obj.get("started_at") if obj is not None else None
            month = month_of(parse_started_at(started if isinstance(started, str) else None), self.ingested_at)
        self._row("rejects", dict(source_file=utf8_text(source_file), source_line=line_no,
                  game_id=None if game_id is None else utf8_text(game_id), code=utf8_text(code), step=step,
                  rule=utf8_text(rule), message=utf8_text(message), raw_sha256=sha,
                  raw=raw[:RAW_KEEP].decode("utf-8", "replace"), raw_bytes=n,
                  claimed_variant=None if claimed_variant is None else utf8_text(claimed_variant),
                  ingested_at=self.ingested_at, variant=part, month=month, _line=line_no))

    # -- games and the rest --------------------------------------------------------------------
    def add_judged(self, line: Line, judged: "Judged") -> None:
        """The rows of one line routed by :func:`judge_line`: its reject, or its game."""
        if judged.reject is not None:
            self.add_reject(line.source_file, line.line_no, line.raw, **judged.reject._asdict(), obj=judged.obj)
        else:
            self._add_game(judged.outcome, line.source_file, line.line_no, line.raw, judged.obj)

    def add_outcome(self, out: Any, source_file: str, line_no: int, raw: bytes,
                    obj: dict[str, Any] | None = None) -> None:
        """Rows of one :class:`replay.replayer.ReplayOutcome`: a reject when
        :func:`outcome_reject` says so, else a game with its seats, actions, melds and 醒.
        ``obj`` is the line parsed (for ``x_experiment`` and pseudonyms)."""
        r = outcome_reject(out, raw)
        if r is not None:
            self.add_reject(source_file, line_no, raw, **r._asdict(), obj=obj)
        else:
            self._add_game(out, source_file, line_no, raw, obj)

    def _add_game(self, out: Any, source_file: str, line_no: int, raw: bytes, obj: dict[str, Any] | None) -> None:
        v = out.verdict
        err = v.errors[0] if v.errors else None
        rec = out.record
        if v.valid:
            self.counts.valid += 1
        else:
            self.counts.invalid += 1
        if out.defaulted:
            self.counts.defaulted += 1
        variant = rec.variant
        gid = rec.game_id
        started = parse_started_at(rec.started_at)
        month = month_of(started, self.ingested_at)  # the game's rows all go in its month
        rid = out.ruleset.id if out.ruleset is not None else v.ruleset_id
        comp: dict[str, Any] | None = v.computed
        facts: dict[str, Any] = out.facts or {}
        win = comp is not None and comp.get("outcome") == "win"
        winner = comp.get("winner") if comp is not None else None
        win_kind = facts.get("win_kind") if comp is not None else None
        breakdown = comp.get("breakdown") if comp is not None else None
        xing_c = comp.get("xing") if comp is not None else None
        scores = comp.get("scores") if comp is not None else None
        mismatch = any(e.code == "result_mismatch" for e in v.errors)
        claimed = rec.result is not None
        melds = facts.get("melds") or []
        per_seat = [0] * len(rec.seats)
        for m in melds:
            ms = m.get("seat")
            if m.get("origin") == "table" and isinstance(ms, int) and 0 <= ms < len(per_seat):
                per_seat[ms] += 1
        exp = obj.get("x_experiment") if obj is not None else None
        exp = exp if isinstance(exp, str) else None
        ps = self.pseudonymizer
        players = [ps.pid(p) for p in rec.seats] if ps is not None else rec.seats
        record_json = (ps.line(obj) if ps is not None and obj is not None else raw).decode("utf-8", "surrogatepass")
        self._row("games", dict(
            game_id=gid, variant=variant, ruleset_id=rid,
            rules_json=_rules_json(out.ruleset) if out.ruleset is not None else _json(None if rec.rules is msgspec.UNSET else rec.rules),
            engine_version=v.engine_version, record_sha256=v.record_sha256, source_file=utf8_text(source_file),
            source_line=line_no, started_at=started, table_id=rec.table_id,
            round=rec.round, stake=rec.stake, n_seats=len(rec.seats), dealer=rec.dealer, valid=v.valid,
            error_code=err.code if err else None, error_rule=err.rule if err else None,
            error_message=err.message if err else None, error_step=err.step if err else None,
            n_errors=len(v.errors), n_actions=len(rec.actions),
            outcome=comp.get("outcome") if comp is not None else None, winner=winner,
            win_card=comp.get("win_card") if comp is not None else None,
            win_from=comp.get("from") if comp is not None else None, win_kind=win_kind,
            points=comp.get("points") if comp is not None else None,
            units=comp.get("units") if comp is not None else None,
            tuo=breakdown.get("tuo") if isinstance(breakdown, dict) else None,
            hand_types=list(comp.get("hand_types") or []) if comp is not None else [],
            xing_count=xing_c.get("count") if isinstance(xing_c, dict) else None,
            breakdown_json=_json(breakdown), claimed=claimed,
            claim_matches=(not mismatch) if claimed and comp is not None else None,
            wall_left=facts.get("wall_left"), record_json=record_json,
            ingested_at=self.ingested_at, experiment=exp, bao=comp.get("bao") if comp is not None else None,
            month=month, _line=line_no,
        ))
        ns = len(players)
        if ns:  # column-wise: a game's seats share its id, ruleset, 胡 kind, validity and month
            seats = range(ns)
            dianpao = comp is not None and win and win_kind == "dianpao"
            self._rows("seats", ns, dict(game_id=gid, variant=variant, ruleset_id=rid, win_kind=win_kind, valid=v.valid,
                                         experiment=exp, month=month, _line=line_no),
                       dict(player_id=players, is_dealer=[s == rec.dealer for s in seats],
                            is_winner=[win and winner == s for s in seats] if comp is not None else None,
                            score=[scores[s] if s < len(scores) else None for s in seats] if scores is not None else None,
                            dianpao=[dianpao and comp.get("from") == s for s in seats] if comp is not None else None,
                            n_melds=per_seat if out.facts is not None else None), "seat")
        acts = rec.actions
        if acts:  # column-wise: actions are most of the rows; the events transposed in C
            f = tuple(zip(*map(_astuple, acts)))
            self._rows("actions", len(acts), dict(game_id=gid, variant=variant, month=month, _line=line_no),
                       dict(seat=f[_EV_SEAT], act=f[_EV_ACT], card=f[_EV_CARD], cards=f[_EV_CARDS],
                            from_seat=f[_EV_FROM], tail=f[_EV_TAIL], to_hand=f[_EV_TO_HAND], t_ms=f[_EV_T]), "step")
        if melds:  # column-wise too: a game has a dozen melds
            self._rows("melds", len(melds), dict(game_id=gid, variant=variant, month=month, _line=line_no),
                       dict(seat=[m.get("seat") for m in melds], kind=[m.get("kind") for m in melds],
                            cards=[list(m.get("cards") or []) for m in melds],
                            points=[m.get("points") for m in melds], origin=[m.get("origin") for m in melds]))
        fx = facts.get("xing")
        if win and fx is not None:
            self._row("xing", dict(game_id=gid, variant=variant, ruleset_id=rid, winner=winner, mode=fx.get("mode"),
                      cards=list(fx.get("cards") or []), count=fx.get("count"), month=month, _line=line_no))
        fj = facts.get("jing")
        if win and isinstance(fj, dict):
            main = fj.get("main")
            for ch, d in sorted((fj.get("per_char") or {}).items()):
                hua, su = d.get("hua"), d.get("su")
                count = d.get("count", (hua or 0) + (su or 0))
                self._row("jing", dict(game_id=gid, variant=variant, ruleset_id=rid, winner=winner, main=main, char=ch,
                          hua=hua, su=su, count=count, hu=d.get("hu"), is_main=ch == main, month=month,
                          _line=line_no))
        fg = facts.get("gezi")
        if win and comp is not None and isinstance(fg, dict):
            self._row("gezi", dict(game_id=gid, variant=variant, ruleset_id=rid, n_seats=len(rec.seats), winner=winner,
                      points=comp.get("points"), from_cards=fg.get("from_cards"), from_melds=fg.get("from_melds"),
                      hua_cards=fg.get("hua_cards"), special=fg.get("special"), units=comp.get("units"),
                      month=month, _line=line_no))

    def add_line(self, line: Line, replay: Callable[[bytes, Any], Any]) -> None:
        """Rows of one reader line, routed by :func:`judge_line` (a game's parsed object is kept
        only for the pseudonymizer: see ``keep_obj`` there)."""
        self.add_judged(line, judge_line(line, replay, keep_obj=self.pseudonymizer is not None))

    def to_arrow(self) -> dict[str, pa.Table]:
        """The buffered rows as Arrow tables (only tables with rows), ``variant``, ``month`` and
        ``_line`` as the last columns.

        :raises pyarrow.ArrowException: a value the column type cannot hold (see
            :func:`process_chunk`'s fallback).
        """
        out = {}
        for t, cols in self.cols.items():
            run = self.runs.get(t)
            if not (cols[PARTITION] or run is not None and sum(run.lens)):
                continue
            schema = (TABLES[t].append(pa.field(PARTITION, pa.string())).append(pa.field(MONTH, pa.string()))
                      .append(pa.field(LINE, pa.int64())))
            data: dict[str, Any] = dict(cols)
            if run is not None:
                n = np.asarray(run.lens, dtype=np.int64)
                which = pa.array(np.repeat(np.arange(len(run.lens), dtype=np.int64), n))
                for name, vals in run.same.items():
                    data[name] = pa.array(vals, type=schema.field(name).type).take(which)
                if run.counter is not None:
                    starts = np.cumsum(n) - n
                    data[run.counter] = pa.array(np.arange(int(n.sum()), dtype=np.int64) - np.repeat(starts, n),
                                               type=schema.field(run.counter).type)
            out[t] = pa.table(data, schema=schema)
        return out


class Reject(NamedTuple):
    """Why a line is a ``rejects`` row and not a game: the row's fields (:meth:`Batch.add_reject`)."""

    code: str
    rule: str
    message: str
    game_id: str | None = None
    step: int | None = None
    raw_sha256: str | None = None
    raw_bytes: int | None = None
    claimed_variant: str | None = None


class Judged(NamedTuple):
    """One line's fate before duplicates: ``reject`` set, or ``outcome`` (a game, valid or not).
    ``obj`` is the line parsed, when it parsed."""

    outcome: Any
    obj: dict[str, Any] | None
    reject: Reject | None


def outcome_reject(out: Any, raw: bytes) -> Reject | None:
    """The reject a replay outcome is — no record decoded, an unknown or unimplemented variant, an
    integer no 64-bit column holds — or None when it is a game."""
    v = out.verdict
    err = v.errors[0] if v.errors else None
    rec = out.record
    if rec is None or (err is not None and err.code == "unknown_variant"):
        return Reject(err.code if err else "schema", err.rule if err else "paipu.schema",
                      err.message if err else "not a record", rec.game_id if rec is not None else v.game_id,
                      err.step if err else None, v.record_sha256 or None, None,
                      rec.variant if rec is not None else _peek_variant(raw))
    big = _out_of_int64(rec)
    if big is not None:
        return Reject("schema", "paipu.int_range", f"{big} does not fit a 64-bit integer", rec.game_id, None,
                      v.record_sha256 or None, None, rec.variant)
    return None


def judge_line(line: Line, replay: Callable[[bytes, Any], Any], *, keep_obj: bool = True) -> Judged:
    """Route one reader line — the one accounting of ``paipu ingest`` and ``paipu validate``:
    reader problems, invalid UTF-8 and lines that are not one JSON object (bad JSON, repeated
    keys, too-deep nesting: :func:`replay.record.parse_object`) are rejects; every parsed object
    goes through ``replay`` (``replay_line(raw, obj)``), and its outcome is a game unless
    :func:`outcome_reject` says otherwise. An exception from ``replay`` is a reject
    ``engine_error`` / ``paipu.engine`` (one engine bug never stops a run). Never raises.

    :param keep_obj: False when the caller needs ``Judged.obj`` of no game (no pseudonyms): then
        a line that is its record's own compact encoding (:func:`replay.record.canonical_record`;
        it holds no ``x_`` field, so no ``x_experiment``) is decoded once, typed, and replayed
        from that record — ``obj`` None. A line whose outcome is a reject, or whose replay raised,
        is judged again the usual way, so its reject is the same either way.
    """
    if line.problem is not None:
        p = line.problem
        return Judged(None, None, Reject(p.code, p.rule, p.message, raw_sha256=p.raw_sha256, raw_bytes=p.raw_bytes))
    try:
        line.raw.decode("utf-8")
    except UnicodeDecodeError as e:
        return Judged(None, None, Reject("bad_json", "paipu.utf8", f"not UTF-8: {e}"))
    rec = None if keep_obj else canonical_record(line.raw)
    if rec is not None:  # saves the untyped parse and its conversion
        try:
            out = replay(line.raw, rec)
        except Exception:  # judged again below, for the reject's fields
            out = None
        if out is not None and outcome_reject(out, line.raw) is None:
            return Judged(out, None, None)
    try:
        obj = parse_object(line.raw)  # the line's one parse; replay reuses it
    except RuleViolation as e:
        return Judged(None, None, Reject(e.code, e.rule, e.message))
    try:
        out = replay(line.raw, obj)
    except Exception as e:  # an engine bug must not stop the run; the line is kept
        return Judged(None, obj, Reject("engine_error", "paipu.engine", f"replay raised {type(e).__name__}: {e}",
                                        _peek_game_id(obj), claimed_variant=_peek_variant(line.raw)))
    return Judged(out, obj, outcome_reject(out, line.raw))


def _peek_variant(raw: bytes, key: str = "variant") -> str | None:
    """The ``variant`` (or other ``key``) string of a line that is a JSON object, else None (never raises)."""
    try:
        obj = msgspec.json.decode(raw)
    except (msgspec.DecodeError, RecursionError):
        return None
    v = obj.get(key) if isinstance(obj, dict) else None
    return v if isinstance(v, str) else None


def _peek_game_id(obj: dict[str, Any] | None) -> str | None:
    g = obj.get("game_id") if obj is not None else None
    return g if isinstance(g, str) else None


@dataclass
class ChunkResult:
    """What a worker sends back for one chunk: Arrow tables (with ``variant``, ``month`` and ``_line``)
    and the line counts."""

    file_index: int
    chunk_index: int
    tables: dict[str, pa.Table]
    counts: Counts


_ARROW_ERRORS = (pa.ArrowException, OverflowError, UnicodeError, TypeError, ValueError)


def process_chunk(file_index: int, chunk_index: int, lines: list[Line], ingested_at: datetime,
                  pseudonym_salt: bytes | None = None, defaults: dict[str, dict[str, Any]] | None = None) -> ChunkResult:
    """Replay ``lines`` (all from one file) and build their rows. Runs in a worker process.

    When the chunk's rows do not convert to Arrow (a value no check above caught), the chunk is
    rebuilt line by line and each line whose rows fail is a reject ``engine_error`` /
    ``paipu.rows`` instead.

    :param defaults: rule overrides by variant for records without ``rules`` (``--rules``).
    :returns: a :class:`ChunkResult` with ``counts.read == len(lines)``.
    """
    from replay.replayer import replay_line  # imported here: workers import the engine once, lazily

    if defaults:
        replay_line = functools.partial(replay_line, defaults=defaults)

    ps = Pseudonymizer(pseudonym_salt) if pseudonym_salt is not None else None
    batch = Batch(ingested_at, ps)
    for line in lines:
        batch.add_line(line, replay_line)
    try:
        return ChunkResult(file_index, chunk_index, batch.to_arrow(), batch.counts)
    except _ARROW_ERRORS:
        pass
    tables: dict[str, list[pa.Table]] = {}
    counts = Counts()
    for line in lines:
        one = Batch(ingested_at, ps)
        one.add_line(line, replay_line)
        try:
            got = one.to_arrow()
        except _ARROW_ERRORS as e:
            one = Batch(ingested_at, ps)
            one.add_reject(line.source_file, line.line_no, line.raw, "engine_error", "paipu.rows",
                           f"rows do not fit the warehouse schema: {type(e).__name__}: {e}",
                           claimed_variant=_peek_variant(line.raw),
                           month=month_of(parse_started_at(_peek_variant(line.raw, "started_at")), ingested_at))
            got = one.to_arrow()
        counts.add(one.counts)
        for t, tab in got.items():
            tables.setdefault(t, []).append(tab)
    return ChunkResult(file_index, chunk_index, {t: pa.concat_tables(v) for t, v in tables.items()}, counts)
