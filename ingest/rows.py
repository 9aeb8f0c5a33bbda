"""Replay outcomes → warehouse rows (docs/warehouse.md). Runs inside the worker processes.

:func:`process_chunk` replays a chunk of lines of one file and returns Arrow tables (the
``variant`` partition column included; the writer moves it into the path). Every line ends in
exactly one row: ``games`` (a decoded record of an implemented variant, valid or not) or
``rejects`` (everything else). A line the engine crashes on is a reject with code
``engine_error`` (rule ``paipu.engine``), so one engine bug never stops an ingest.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Callable

import msgspec
import pyarrow as pa

from ingest.reader import RAW_KEEP, Line
from ingest.schema import PARTITION, TABLES, UNKNOWN_VARIANT

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
    return t.astimezone(timezone.utc)


def _json(obj: Any) -> str | None:
    return None if obj is None else json.dumps(obj, ensure_ascii=False, sort_keys=True, default=str)


@dataclass
class Counts:
    """Lines of one chunk by where they ended: ``read = valid + invalid + rejected``."""

    valid: int = 0
    invalid: int = 0
    rejected: int = 0

    @property
    def read(self) -> int:
        """Lines counted: ``valid + invalid + rejected``."""
        return self.valid + self.invalid + self.rejected

    def add(self, other: "Counts") -> None:
        """Add ``other``'s counts to these."""
        self.valid += other.valid
        self.invalid += other.invalid
        self.rejected += other.rejected


@dataclass
class Batch:
    """Column buffers of every table for a run of lines (``variant`` kept as a column)."""

    ingested_at: datetime
    cols: dict[str, dict[str, list]] = field(default_factory=dict)
    counts: Counts = field(default_factory=Counts)

    def __post_init__(self) -> None:
        self.cols = {t: {c: [] for c in [*s.names, PARTITION]} for t, s in TABLES.items()}
        self.known = _known_variants()

    def _row(self, table: str, **values: Any) -> None:
        cols = self.cols[table]
        for name, col in cols.items():
            col.append(values.get(name))

    # -- rejects -------------------------------------------------------------------------------
    def add_reject(self, source_file: str, line_no: int, raw: bytes, code: str, rule: str, message: str,
                   *, game_id: str | None = None, step: int | None = None, raw_sha256: str | None = None,
                   raw_bytes: int | None = None, claimed_variant: str | None = None) -> None:
        """One ``rejects`` row. ``raw`` is cut to :data:`~ingest.reader.RAW_KEEP` bytes and
        decoded with replacement characters; the partition is ``claimed_variant`` when it is a
        spec §7 id, else ``_unknown``."""
        self.counts.rejected += 1
        part = claimed_variant if claimed_variant in self.known else UNKNOWN_VARIANT
        self._row("rejects", source_file=source_file, source_line=line_no, game_id=game_id, code=code,
                  step=step, rule=rule, message=message,
                  raw_sha256=raw_sha256 or hashlib.sha256(raw).hexdigest(),
                  raw=raw[:RAW_KEEP].decode("utf-8", "replace"),
                  raw_bytes=len(raw) if raw_bytes is None else raw_bytes,
                  claimed_variant=claimed_variant, ingested_at=self.ingested_at, variant=part)

    # -- games and the rest --------------------------------------------------------------------
    def add_outcome(self, out: Any, source_file: str, line_no: int, raw: bytes) -> None:
        """Rows of one :class:`replay.replayer.ReplayOutcome`: a reject when ``out.record`` is
        None or the variant is unknown / not implemented, else a game with its seats, actions,
        melds and 醒."""
        v = out.verdict
        err = v.errors[0] if v.errors else None
        rec = out.record
        if rec is None or (err is not None and err.code == "unknown_variant"):
            claimed = rec.variant if rec is not None else _peek_variant(raw)
            gid = rec.game_id if rec is not None else v.game_id
            self.add_reject(source_file, line_no, raw, err.code if err else "schema",
                            err.rule if err else "paipu.schema", err.message if err else "not a record",
                            game_id=gid, step=err.step if err else None, raw_sha256=v.record_sha256 or None,
                            claimed_variant=claimed)
            return
        if v.valid:
            self.counts.valid += 1
        else:
            self.counts.invalid += 1
        variant = rec.variant
        gid = rec.game_id
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
        self._row(
            "games", game_id=gid, variant=variant, ruleset_id=rid,
            rules_json=_json(dict(out.ruleset.values)) if out.ruleset is not None else _json(rec.rules),
            engine_version=v.engine_version, record_sha256=v.record_sha256, source_file=source_file,
            source_line=line_no, started_at=parse_started_at(rec.started_at), table_id=rec.table_id,
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
            wall_left=facts.get("wall_left"), record_json=raw.decode("utf-8"),
            ingested_at=self.ingested_at,
        )
        for s, player in enumerate(rec.seats):
            self._row(
                "seats", game_id=gid, variant=variant, ruleset_id=rid, seat=s, player_id=player,
                is_dealer=s == rec.dealer, is_winner=(win and winner == s) if comp is not None else None,
                score=scores[s] if scores is not None and s < len(scores) else None,
                dianpao=(win and win_kind == "dianpao" and comp.get("from") == s) if comp is not None else None,
                n_melds=sum(1 for m in melds if m.get("seat") == s and m.get("origin") == "table")
                if out.facts is not None else None,
                win_kind=win_kind, valid=v.valid,
            )
        acts = rec.actions
        a = self.cols["actions"]  # column-wise: actions are most of the rows
        a["game_id"].extend([gid] * len(acts))
        a["variant"].extend([variant] * len(acts))
        a["step"].extend(range(len(acts)))
        a["seat"].extend([ev.seat for ev in acts])
        a["act"].extend([ev.act for ev in acts])
        a["card"].extend([ev.card for ev in acts])
        a["cards"].extend([ev.cards for ev in acts])
        a["from_seat"].extend([ev.from_ for ev in acts])
        a["tail"].extend([ev.tail for ev in acts])
        a["to_hand"].extend([ev.to_hand for ev in acts])
        a["t_ms"].extend([ev.t for ev in acts])
        for m in melds:
            self._row("melds", game_id=gid, variant=variant, seat=m.get("seat"), kind=m.get("kind"),
                      cards=list(m.get("cards") or []), points=m.get("points"), origin=m.get("origin"))
        fx = facts.get("xing")
        if win and fx is not None:
            self._row("xing", game_id=gid, variant=variant, ruleset_id=rid, winner=winner, mode=fx.get("mode"),
                      cards=list(fx.get("cards") or []), count=fx.get("count"))

    def add_line(self, line: Line, replay: Callable[[bytes], Any]) -> None:
        """Route one reader line: reader problems and invalid UTF-8 become rejects, everything
        else goes through ``replay`` (``replay_line``)."""
        if line.problem is not None:
            p = line.problem
            self.add_reject(line.source_file, line.line_no, line.raw, p.code, p.rule, p.message,
                            raw_sha256=p.raw_sha256, raw_bytes=p.raw_bytes)
            return
        try:
            line.raw.decode("utf-8")
        except UnicodeDecodeError as e:
            self.add_reject(line.source_file, line.line_no, line.raw, "bad_json", "paipu.utf8",
                            f"not UTF-8: {e}")
            return
        try:
            out = replay(line.raw)
        except Exception as e:  # an engine bug must not stop the ingest; the line is kept
            self.add_reject(line.source_file, line.line_no, line.raw, "engine_error", "paipu.engine",
                            f"replay raised {type(e).__name__}: {e}", claimed_variant=_peek_variant(line.raw))
            return
        self.add_outcome(out, line.source_file, line.line_no, line.raw)

    def to_arrow(self) -> dict[str, pa.Table]:
        """The buffered rows as Arrow tables (only tables with rows), ``variant`` as last column."""
        out = {}
        for t, cols in self.cols.items():
            if not cols[PARTITION]:
                continue
            schema = TABLES[t].append(pa.field(PARTITION, pa.string()))
            out[t] = pa.table(cols, schema=schema)
        return out


def _peek_variant(raw: bytes) -> str | None:
    """The ``variant`` string of a line that is a JSON object, else None."""
    try:
        obj = msgspec.json.decode(raw)
    except msgspec.DecodeError:
        return None
    v = obj.get("variant") if isinstance(obj, dict) else None
    return v if isinstance(v, str) else None


@dataclass
class ChunkResult:
    """What a worker sends back for one chunk: Arrow tables and the line counts."""

    file_index: int
    chunk_index: int
    tables: dict[str, pa.Table]
    counts: Counts


def process_chunk(file_index: int, chunk_index: int, lines: list[Line], ingested_at: datetime) -> ChunkResult:
    """Replay ``lines`` (all from one file) and build their rows. Runs in a worker process.

    :returns: a :class:`ChunkResult` with ``counts.read == len(lines)``.
    """
    from replay.replayer import replay_line  # imported here: workers import the engine once, lazily

    batch = Batch(ingested_at)
    for line in lines:
        batch.add_line(line, replay_line)
    return ChunkResult(file_index, chunk_index, batch.to_arrow(), batch.counts)
