"""The paipu/1 record (spec ../shared/spec/log-format.md §2, §4, §5, §6) as msgspec types.

Decoding is two-stage: ``msgspec.json.decode`` to builtins (so ``bad_json`` and
unknown-field checks can name the field), then ``msgspec.convert`` into
:class:`Record` (so type errors carry a JSON path such as ``$.actions[3].seat``).
Extension fields (``x_*``) are kept in the raw object and ignored (spec §1). A line that is its
record's own compact encoding (as the simulator writes) is decoded in one typed step instead
(:func:`canonical_record`), which only ever accepts: every refusal is the two-stage decode's.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Annotated, Any, Literal

import msgspec
from msgspec import UNSET, Meta, Struct, UnsetType

from replay.errors import RuleViolation

Seat = Annotated[int, Meta(ge=0, le=7)]


# Frozen: engines build some events once and hand the same object to many records (a seat's discard
# of each kind), so none may change in place (msgspec.structs.replace makes a changed copy).
# gc=False on the record's types: they hold only decoded JSON (str, int, lists and dicts of them)
# and each other, never a reference back, so no cycle can pass through them; untracked, the
# thousands of events a batch keeps alive are not rescanned by every collection.
class Event(Struct, omit_defaults=True, frozen=True, gc=False):
    """One logged event (spec §4). ``from_`` is the JSON field ``from``."""

    seat: Seat
    act: str
    card: str | None = None
    cards: list[str] | None = None
    from_: Seat | None = msgspec.field(default=None, name="from")
    bi: list[list[str]] | None = None
    tail: bool = False
    to_hand: bool = False
    t: Annotated[int, Meta(ge=0)] | None = None


class Deal(Struct, gc=False):
    """The dealt cards: ``hands`` per seat (dealer's extra card included), ``wall`` in draw order."""

    hands: list[list[str]]
    wall: list[str]


class Shuffle(Struct, gc=False):
    """The server's shuffle commitment (spec §2)."""

    algo: str | None = None
    seed: str | None = None
    digest: str | None = None


class XingClaim(Struct, gc=False):
    """字牌 醒: the cards turned and how many the winner matched (spec §5)."""

    cards: list[str]
    count: Annotated[int, Meta(ge=0)]


class JingClaim(Struct, gc=False):
    """花牌 精: the 主精 and the 精 count (spec §5)."""

    main: str | None
    count: Annotated[int, Meta(ge=0)]


class Result(Struct, omit_defaults=True, gc=False):
    """A settlement (spec §5). Fields left UNSET were not claimed and are not compared."""

    outcome: Literal["win", "draw"] | UnsetType = UNSET
    winner: Seat | None | UnsetType = UNSET
    win_card: str | None | UnsetType = UNSET
    from_: Seat | None | UnsetType = msgspec.field(default=UNSET, name="from")
    points: int | None | UnsetType = UNSET
    hand_types: list[str] | UnsetType = UNSET
    xing: XingClaim | None | UnsetType = UNSET
    jing: JingClaim | None | UnsetType = UNSET
    units: int | None | UnsetType = UNSET
    breakdown: dict[str, int] | None | UnsetType = UNSET
    bao: Seat | None | UnsetType = UNSET
    scores: list[int] | UnsetType = UNSET


class Record(Struct, gc=False):
    """One game record (spec §2)."""

    format: Literal["paipu/1"]
    game_id: Annotated[str, Meta(min_length=1, max_length=128)]
    variant: str
    seats: Annotated[list[str], Meta(min_length=2, max_length=8)]
    dealer: Seat
    deal: Deal
    actions: list[Event]
    rules: dict[str, Any] | UnsetType = UNSET  # absent: the defaults (spec §7), or a run's --rules
    started_at: str | None = None
    table_id: str | None = None
    round: int | None = None
    stake: Annotated[int, Meta(ge=1)] = 1
    result: Result | None = None
    shuffle: Shuffle | None = None


class VerdictError(Struct):
    """One error of a verdict (spec §6)."""

    step: int | None
    code: str
    rule: str
    message: str


class Verdict(Struct):
    """The validator's answer for one record (spec §6)."""

    game_id: str | None
    valid: bool
    errors: list[VerdictError]
    computed: dict[str, Any] | None
    ruleset_id: str | None
    engine_version: str
    record_sha256: str


_ALLOWED = {
    "record": set(Record.__struct_fields__),
    "event": {"seat", "act", "card", "cards", "from", "bi", "tail", "to_hand", "t"},
    "result": {"outcome", "winner", "win_card", "from", "points", "hand_types", "xing", "jing",
               "units", "breakdown", "bao", "scores"},
    "deal": {"hands", "wall"},
    "shuffle": {"algo", "seed", "digest"},
}


def _unknown_fields(obj: dict[str, Any], kind: str, path: str) -> list[str]:
    return [f"unknown field `{k}` at `{path}` (extensions must start with `x_`)"
            for k in obj if k not in _ALLOWED[kind] and not k.startswith("x_")]


def _events_known(acts: list[Any]) -> bool:
    """True when every item of ``acts`` is an object of known event fields only — one C-level pass
    (set.issuperset over each): then no event can add an unknown-field problem. False leaves the
    item-by-item check (``_unknown_fields``) to say which, or an item that is no object (False too)."""
    try:
        return all(map(_ALLOWED["event"].issuperset, acts))
    except TypeError:  # an item that is not iterable: not an object
        return False


def utf8_text(s: str) -> str:
    """``s`` as text that always encodes to UTF-8: unchanged when it does, else every code point
    that cannot (a lone surrogate: from a JSON escape such as ``"\\ud800"``, or an undecodable byte
    of a file name, which Python holds as ``"\\udcff"``) written as its backslash escape.

    The one guard for input text on its way to Arrow, JSON files, Parquet or a terminal:
    those encode strictly, and one such string would stop a whole ingest.
    """
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        return s.encode("utf-8", "backslashreplace").decode("utf-8")
    return s


def source_text(path: str) -> str:
    """An input file's path as the warehouse names its source (``source_file``): one text per
    path, never the same for two. A UTF-8 path is itself; a path holding an undecodable byte has
    its backslashes doubled and each such byte written ``\\udcXX`` — and so does a UTF-8 path
    that holds the text ``\\udc`` itself, which could otherwise pass for one (only the escaped
    form of a path holds ``\\udc`` after this, and it reads back one way)."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        pass
    else:
        if "\\udc" not in path:
            return path
    return path.replace("\\", "\\\\").encode("utf-8", "backslashreplace").decode("utf-8")


def source_path(text: str) -> str:
    """The path :func:`source_text` named (its inverse): ``\\\\`` back to one backslash and each
    ``\\udcXX`` back to the byte it stands for, as Python holds an undecodable byte of a file name."""
    if "\\udc" not in text:
        return text
    return re.sub(r"\\\\|\\udc([0-9a-f]{2})", lambda m: chr(0xDC00 + int(m.group(1), 16)) if m.group(1) else "\\",
                  text)


# What a terminal would act on rather than show: C0/C1 controls (ESC starts colour, cursor and
# title sequences; CR and BS overwrite what came before; LF would start a fake output line), and
# the bidirectional and line-separator formats (Trojan Source, CVE-2021-42574: they reorder the
# characters shown).
_TERMINAL_ACTIVE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def terminal_text(s: str) -> str:
    """``s`` as text a terminal only shows: :func:`utf8_text`, then every control character and
    bidirectional format character (``_TERMINAL_ACTIVE``) written as its escape (``\\x1b``,
    ``\\u202e``). For everything from a log that the commands print as text (game ids, messages
    quoting the log, file names); JSON output needs none (its encoder escapes them).

    :returns: one line of printable text; unchanged when ``s`` holds none of them.
    """
    s = utf8_text(s)
    if _TERMINAL_ACTIVE.search(s) is None:
        return s
    return _TERMINAL_ACTIVE.sub(lambda m: f"\\x{ord(m[0]):02x}" if ord(m[0]) < 0x100 else f"\\u{ord(m[0]):04x}", s)


def sha256_hex(raw: bytes) -> str:
    """Hex SHA-256 of a raw input line (spec §6 ``record_sha256``)."""
    return hashlib.sha256(raw).hexdigest()


class _Repeated(Exception):
    pass


def _no_repeats(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for k, v in pairs:
        if k in seen:
            raise _Repeated(k)
        seen[k] = v
    return seen


def _repeated_key(raw: bytes | str, obj: Any = None) -> str | None:
    """The first key repeated inside one JSON object of ``raw``, or None (msgspec has no such check).

    ``obj``: ``raw`` as msgspec decoded it. When encoding it again gives back ``raw`` byte for byte
    (compact JSON, as our simulator and most servers write it), no key was dropped, so none was
    repeated: that answer costs one encode. Any other line is parsed again with the standard
    library, which reports repeated keys.
    """
    b = raw if isinstance(raw, bytes) else raw.encode("utf-8", "surrogatepass")
    if b'"' not in b:
        return None
    if obj is not None and msgspec.json.encode(obj) == b.strip():
        return None
    try:
        json.loads(raw, object_pairs_hook=_no_repeats)
    except _Repeated as e:
        return str(e)
    except (ValueError, RecursionError):
        return None
    return None


def parse_object(raw: bytes | str) -> dict[str, Any]:
    """Parse one JSON line into the plain object of a record, checked for what msgspec accepts
    silently (a repeated key). The one parse of a line: :func:`decode_record` and the ingest
    (``ingest.rows``) both start from it.

    :raises RuleViolation: ``bad_json`` when the line is not JSON (rule ``paipu.json``), nests
        too deeply (``paipu.json_depth``), is not one object (``paipu.json``) or repeats a key
        inside an object (``paipu.duplicate_key``).
    """
    try:
        obj = msgspec.json.decode(raw)
    except msgspec.DecodeError as e:
        raise RuleViolation("bad_json", "paipu.json", f"not valid JSON: {e}") from None
    except RecursionError:
        raise RuleViolation("bad_json", "paipu.json_depth", "JSON nested too deeply to decode") from None
    if not isinstance(obj, dict):
        raise RuleViolation("bad_json", "paipu.json", f"a record is one JSON object, got {type(obj).__name__}")
    dup = _repeated_key(raw, obj)
    if dup is not None:  # msgspec keeps the last value silently; a repeated key makes a record ambiguous
        raise RuleViolation("bad_json", "paipu.duplicate_key",
                            f"key `{dup}` appears twice in one object; the record is ambiguous")
    return obj


_RECORD_DECODER = msgspec.json.Decoder(Record)
_ENCODER = msgspec.json.Encoder()


def canonical_record(raw: bytes | str) -> Record | None:
    """The :class:`Record` of ``raw`` when ``raw`` is that record's own compact encoding, else None.

    A shortcut that only accepts: the one typed decode of the line, taken only when encoding the
    result gives back ``raw`` byte for byte (as our simulator and msgspec-based servers write it).
    Then the line holds nothing the two-stage decode would refuse — no unknown or ``x_`` field (a
    typed decode drops those, and the bytes would differ), no repeated key (likewise), no wrong
    type or range (the typed decode checks the same types) — and the two-stage decode would give
    this very record. Any other line (None) takes the two-stage decode, which alone words the
    errors. One decode instead of two for every line our simulator writes.
    """
    if not isinstance(raw, bytes):
        return None
    try:
        rec = _RECORD_DECODER.decode(raw)
    except (msgspec.DecodeError, RecursionError):  # ValidationError is a DecodeError
        return None
    return rec if _ENCODER.encode(rec) == raw.strip() else None


def decode_record(raw: bytes | str, obj: dict[str, Any] | Record | None = None) -> Record:
    """Decode one JSON line into a :class:`Record`.

    :param obj: the line as :func:`parse_object` already gave it (then ``raw`` is not parsed
        again), or the :class:`Record` :func:`canonical_record` gave for it (returned as it is).
    :raises RuleViolation: ``bad_json`` as :func:`parse_object` raises it;
        ``schema`` for a missing, mistyped, out-of-range or unknown field (the
        message names the JSON path).
    """
    if isinstance(obj, Record):
        return obj
    if obj is None:
        rec = canonical_record(raw)
        if rec is not None:
            return rec
        obj = parse_object(raw)
    problems = _unknown_fields(obj, "record", "$") if not _ALLOWED["record"].issuperset(obj) else []
    for key, kind in (("deal", "deal"), ("result", "result"), ("shuffle", "shuffle")):
        sub = obj.get(key)
        if isinstance(sub, dict) and not _ALLOWED[kind].issuperset(sub):
            problems += _unknown_fields(sub, kind, f"$.{key}")
    acts = obj.get("actions")
    if isinstance(acts, list) and not _events_known(acts):
        for i, ev in enumerate(acts):
            if isinstance(ev, dict):
                problems += _unknown_fields(ev, "event", f"$.actions[{i}]")
    if problems:
        raise RuleViolation("schema", "paipu.schema", "; ".join(problems[:5]))
    try:
        return msgspec.convert(obj, Record)
    except msgspec.ValidationError as e:
        raise RuleViolation("schema", "paipu.schema", str(e)) from None


def json_schema() -> dict[str, Any]:
    """JSON Schema (draft 2020-12) of a paipu/1 record, generated from :class:`Record` and the
    variant registry: ``variant`` is one of the eight ids (spec §7), and for each variant its acts
    (spec §4) and its deck's card codes and aliases (spec §3) in the deal, the events and
    ``result.win_card`` — so a server's own CI catches an unknown variant, act or card."""
    from replay import variants

    schema = msgspec.json.schema(Record)
    schema["$comment"] = ("Generated by replay.record.json_schema() from the msgspec types and the variant "
                          "registry; do not edit.")
    record = schema["$defs"]["Record"]
    record["properties"]["variant"] = {"enum": list(variants.VARIANTS)}
    rules = []
    for spec in variants.VARIANTS.values():
        card = {"enum": sorted({*spec.deck.codes, *spec.deck.aliases})}
        cards = {"type": "array", "items": card}
        rules.append({
            "if": {"properties": {"variant": {"const": spec.id}}, "required": ["variant"]},
            "then": {"properties": {
                "deal": {"properties": {"hands": {"items": cards}, "wall": cards}},
                "actions": {"items": {"properties": {
                    "act": {"enum": sorted(spec.acts)}, "card": {"anyOf": [card, {"type": "null"}]},
                    "cards": {"anyOf": [cards, {"type": "null"}]},
                    "bi": {"anyOf": [{"type": "array", "items": cards}, {"type": "null"}]}}}},
                "result": {"anyOf": [{"properties": {"win_card": {"anyOf": [card, {"type": "null"}]}}},
                                     {"type": "null"}]}}},
        })
    record["allOf"] = rules
    return schema
