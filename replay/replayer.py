"""Deterministic replay of one paipu/1 record into a verdict (spec §6).

``replay_line(raw)`` is the one entry point for the validator, the warehouse
and the audit view: record-level checks (schema, variant, rules, cards, deck,
shuffle digest) are all reported together; then every event is verified and
applied in order (style.md: pokerkit's verify-then-act); replay stops at the
first event error; at the end the computed settlement is compared with the
claimed one field by field.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any, Mapping

import msgspec
from msgspec import UNSET, UnsetType

from replay import ENGINE_VERSION, variants
from replay.errors import RuleViolation, UnknownCard
from replay.options import Ruleset, make_ruleset
from replay.record import Record, Verdict, VerdictError, decode_record, sha256_hex


@dataclass
class ReplayOutcome:
    """Everything replay learned from one line.

    :param verdict: the spec §6 verdict.
    :param record: the decoded record (None when the line is not a record:
        ``bad_json``, ``schema``, ``unknown_variant``).
    :param ruleset: the resolved ruleset (None when it could not be resolved).
    :param state: the engine state after the last applied event (None when replay did not start).
    :param facts: variant-neutral facts for the warehouse (``GameState.facts()``), None when
        replay did not finish.
    :param defaulted: the record has no ``rules`` object and was played under the run's default
        rules (``--rules``) for its variant.
    """

    verdict: Verdict
    record: Record | None = None
    ruleset: Ruleset | None = None
    state: Any = None
    facts: dict[str, Any] | None = None
    raw: bytes = b""
    defaulted: bool = False

    @property
    def is_record(self) -> bool:
        """True when the line decoded into a record of a known, implemented variant."""
        return self.record is not None and self.ruleset is not None


def _err(e: RuleViolation) -> VerdictError:
    return VerdictError(step=e.step, code=e.code, rule=e.rule, message=e.message)


def shuffle_digest(deck_cards: list[str]) -> str:
    """``sha256:`` + hex SHA-256 of canonical card codes joined by ``,`` (spec §2 ``shuffle.digest``)."""
    return "sha256:" + hashlib.sha256(",".join(deck_cards).encode()).hexdigest()


def _record_checks(rec: Record, spec: variants.VariantSpec) -> list[RuleViolation]:
    """Record-level errors (spec §6: all reported together, step null)."""
    errs: list[RuleViolation] = []
    n = len(rec.seats)
    if n not in spec.players:
        errs.append(RuleViolation("schema", "paipu.seats", f"{spec.id} is played by {spec.players} seats, record has {n}"))
    if rec.dealer >= n:
        errs.append(RuleViolation("schema", "paipu.dealer", f"dealer {rec.dealer} is not a seat (0..{n - 1})"))
    if len(rec.deal.hands) != n:
        errs.append(RuleViolation("schema", "paipu.deal", f"deal.hands has {len(rec.deal.hands)} hands for {n} seats"))
    deck = spec.deck
    dealt = [c for h in rec.deal.hands for c in h]
    dealt += rec.deal.wall
    try:
        have = deck.counts(dealt)
    except UnknownCard:  # name every unknown card and where it lies
        bad: list[str] = []
        for where, cards in [*((f"deal.hands[{i}]", h) for i, h in enumerate(rec.deal.hands)), ("deal.wall", rec.deal.wall)]:
            for c in cards:
                try:
                    deck.index(c)
                except UnknownCard:
                    bad.append(f"`{c}` in {where}")
        errs.append(RuleViolation("unknown_card", "paipu.cards", f"not {spec.id} cards: {', '.join(bad[:8])}"))
        return errs
    if have != deck.full_counts():
        diff = [f"{deck.codes[i]} {h}/{w}" for i, (h, w) in enumerate(zip(have, deck.copies)) if h != w]
        errs.append(RuleViolation("deck_mismatch", "paipu.deck",
                                  f"hands + wall are not the {deck.size}-card deck (card have/want: {', '.join(diff[:10])})"))
    elif spec.hand_sizes is not None and n in spec.players and rec.dealer < n:
        dealer_n, other_n = spec.hand_sizes(n)
        for i, h in enumerate(rec.deal.hands):
            dealt_n = dealer_n if i == rec.dealer else other_n
            if len(h) != dealt_n:
                errs.append(RuleViolation("deck_mismatch", f"{spec.id}.deal",
                                          f"seat {i} was dealt {len(h)} cards, the rules deal {dealt_n}"))
    if rec.shuffle is not None and rec.shuffle.digest is not None:
        want = shuffle_digest(deck.canonical_codes(dealt))
        if rec.shuffle.digest.lower() != want:
            errs.append(RuleViolation("shuffle_mismatch", "paipu.shuffle",
                                      f"shuffle.digest {rec.shuffle.digest} does not match the dealt deck ({want})"))
    return errs


def _js(v: Any) -> str:
    return json.dumps(v, ensure_ascii=False, separators=(", ", ": "))


def _canonical_claim(key: str, value: Any, deck: Any) -> Any:
    """A claimed result field with its card codes spelled canonically (spec §3: aliases are
    accepted on input): ``win_card``, ``xing.cards`` and ``jing.main``. Unknown codes stay as
    claimed (they then differ from the computed value)."""
    if key == "win_card":
        return _canon(deck, value)
    if key == "xing" and isinstance(value, dict) and isinstance(value.get("cards"), list):
        return {**value, "cards": [_canon(deck, c) for c in value["cards"]]}
    if key == "jing" and isinstance(value, dict) and "main" in value:
        return {**value, "main": _canon(deck, value["main"])}
    return value


def _canon(deck: Any, c: Any) -> Any:
    try:
        return deck.canonical(c)
    except (UnknownCard, TypeError):  # not a card code: left as claimed
        return c


_UNSET, _to_builtins = msgspec.UNSET, msgspec.to_builtins  # read per result field: no module attribute lookup
_CARD_KEYS = frozenset({"win_card", "xing", "jing"})
"""The result fields :func:`_canonical_claim` respells (the others it returns unchanged)."""


def _compare_result(claimed: Any, computed: dict[str, Any], step: int | None, deck: Any = None) -> list[RuleViolation]:
    """One ``result_mismatch`` per claimed field that differs (hand_types as sets; card codes of
    ``deck`` compared in canonical spelling, the message shows them as claimed). A field the
    variant does not compute (``bao`` in 字牌, ``xing`` in 花牌, …) is null: claimed non-null, it
    differs (spec §5: each present field that differs is reported)."""
    errs = []
    for name in claimed.__struct_fields__:
        val = getattr(claimed, name)
        if val is _UNSET:
            continue
        key = "from" if name == "from_" else name
        mine = computed.get(key)  # a field the variant never computes (no 醒 in 花牌, …) is null there
        shown = _to_builtins(val)
        theirs = _canonical_claim(key, shown, deck) if deck is not None and key in _CARD_KEYS else shown
        if key == "hand_types":
            same = set(theirs or []) == set(mine or [])
        elif key == "xing" and theirs is not None and mine is not None:
            same = theirs.get("count") == mine.get("count") and list(theirs.get("cards", [])) == list(mine.get("cards", []))
        else:
            same = theirs == mine
        if not same:
            errs.append(RuleViolation("result_mismatch", "paipu.result",
                                      f"result.{key}: claimed {_js(shown)}, computed {_js(mine)}", step))
    return errs


def check_act(spec: variants.VariantSpec, ev: Any, step: int) -> None:
    """An act the variant does not have is ``unknown_act`` (spec §4, §6), before the engine sees it.

    :raises RuleViolation: ``unknown_act`` / ``paipu.acts`` at ``step``.
    """
    if ev.act not in spec.acts:
        raise RuleViolation("unknown_act", "paipu.acts",
                            f"act `{ev.act}` is not one of {spec.id}'s: {', '.join(sorted(spec.acts))}", step)


def replay_record(rec: Record, raw: bytes = b"", *, stop_after: int | None = None,
                  sha: str | None = None, defaults: Mapping[str, Mapping[str, Any]] | None = None) -> ReplayOutcome:
    """Replay a decoded record.

    :param stop_after: replay only events ``0..stop_after`` (audit view); no end checks then.
    :param sha: ``sha256_hex(raw)`` when the caller has it already (:func:`replay_line`), so a
        line is hashed once.
    :param defaults: rule overrides by variant for a record without a ``rules`` object (a
        server's logs need not spell out its ruleset: ``--rules``); a record's own ``rules``,
        even ``{}``, wins.
    :returns: :class:`ReplayOutcome`; never raises for bad content.
    """
    if sha is None:
        sha = sha256_hex(raw) if raw else ""
    spec = variants.VARIANTS.get(rec.variant)

    # `x`, not `e`: Cython (the compiled kernel) refuses an `except ... as e` below whose name a
    # nested scope also binds
    def verdict(errors: list[RuleViolation], computed: dict | None, rid: str | None) -> Verdict:
        return Verdict(game_id=rec.game_id, valid=not errors, errors=[_err(x) for x in errors],
                       computed=computed, ruleset_id=rid, engine_version=ENGINE_VERSION, record_sha256=sha)

    if spec is None or not spec.implemented:
        why = (f"variant `{rec.variant}` is not a paipu/1 id (known: {', '.join(variants.VARIANTS)})" if spec is None
               else f"variant `{rec.variant}` is in paipu/1 but not implemented in engine {ENGINE_VERSION}")
        return ReplayOutcome(verdict([RuleViolation("unknown_variant", "paipu.variant", why)], None, None), rec, raw=raw)
    errors: list[RuleViolation] = []
    ruleset = None
    rules: Mapping[str, Any] | UnsetType | None = rec.rules
    defaulted = rules is UNSET and defaults is not None and spec.id in defaults
    if isinstance(rules, UnsetType):
        rules = defaults.get(spec.id) if defaults is not None else None
    try:
        ruleset = make_ruleset(spec.id, spec.options, rules)
    except RuleViolation as e:
        errors.append(e)
    errors += _record_checks(rec, spec)
    if ruleset is not None and "players" in ruleset.values and ruleset["players"] != len(rec.seats):
        errors.append(RuleViolation("schema", "paipu.players",
                                    f"the record has {len(rec.seats)} seats but rule option `players` is "
                                    f"{ruleset['players']} (set \"rules\": {{\"players\": {len(rec.seats)}}})"))
    if errors or ruleset is None:
        return ReplayOutcome(verdict(errors, None, ruleset.id if ruleset else None), rec, ruleset, raw=raw,
                             defaulted=defaulted)
    assert spec.state is not None
    state = spec.state(rec, ruleset)
    last = len(rec.actions) if stop_after is None else min(stop_after + 1, len(rec.actions))
    acts = spec.acts
    try:
        for step in range(last):
            ev = rec.actions[step]
            if ev.act not in acts:  # check_act's test, inline: it runs once an event
                check_act(spec, ev, step)
            try:
                state.apply(ev)
            except UnknownCard as e:
                raise RuleViolation("unknown_card", "paipu.cards", str(e), step) from None
            except RuleViolation as e:
                e.step = step
                raise
        if stop_after is not None:
            return ReplayOutcome(verdict([], None, ruleset.id), rec, ruleset, state, raw=raw, defaulted=defaulted)
        state.finish(len(rec.actions))
    except RuleViolation as e:
        if e.step is None:
            e.step = len(rec.actions)
        return ReplayOutcome(verdict([e], None, ruleset.id), rec, ruleset, state, raw=raw, defaulted=defaulted)
    computed = state.result()
    if rec.result is not None:
        errors += _compare_result(rec.result, computed, max(len(rec.actions) - 1, 0), spec.deck)
    return ReplayOutcome(verdict(errors, computed, ruleset.id), rec, ruleset, state, state.facts(), raw=raw,
                         defaulted=defaulted)


def replay_line(raw: bytes | str, obj: dict[str, Any] | Record | None = None,
                defaults: Mapping[str, Mapping[str, Any]] | None = None) -> ReplayOutcome:
    """Decode and replay one JSON line (spec §1, §6).

    :param obj: the line as :func:`replay.record.parse_object` already gave it (the ingest parses
        each line once), or its :class:`~replay.record.Record` when
        :func:`~replay.record.canonical_record` gave one; None to decode ``raw`` here.
    :param defaults: rule overrides by variant for a record without ``rules`` (:func:`replay_record`).
    :returns: a :class:`ReplayOutcome`; a line that is not a record gets a
        verdict with ``bad_json`` or ``schema`` and ``record`` None. Never raises
        for bad content.
    """
    if isinstance(raw, str):
        raw = raw.encode("utf-8", "surrogatepass")
    sha = sha256_hex(raw)
    try:
        rec = decode_record(raw, obj)
    except RuleViolation as e:
        gid = None
        try:
            if obj is None:
                obj = msgspec.json.decode(raw)
            if isinstance(obj, dict) and isinstance(obj.get("game_id"), str):
                gid = obj["game_id"]
        except (msgspec.DecodeError, RecursionError):
            pass
        v = Verdict(game_id=gid, valid=False, errors=[_err(e)], computed=None, ruleset_id=None,
                    engine_version=ENGINE_VERSION, record_sha256=sha)
        return ReplayOutcome(v, raw=raw)
    return replay_record(rec, raw, sha=sha, defaults=defaults)
