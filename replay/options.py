"""Rule options and rulesets (spec §7).

A variant publishes its options as :class:`RuleOption` values. A ruleset is a
variant plus option values; its ``ruleset_id`` hashes only the options whose
value differs from the default, so that logs spelling the defaults out and
logs leaving them absent group together.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from replay.errors import RuleViolation


@dataclass(frozen=True)
class RuleOption:
    """One rule option.

    :param name: the key used in a record's ``rules`` object.
    :param default: the value when absent (never changes meaning once published).
    :param allowed: the allowed values.
    :param source: seed file and section the option comes from.
    :param doc: what each value means.
    :param kind: ``"scoring"`` when, for every pair of allowed values, the same actions stay legal
        and the game unfolds the same and only the settlement changes (a logged game can be re-settled
        under another value exactly: ``paipu rescore``); ``"play"`` otherwise — legality, the wall,
        the claims or a 胡 minimum the value moves (``paipu tune`` plays such options out). The
        default is ``"play"``, so an option nobody declared is never re-scored.
    :raises ValueError: ``kind`` is neither.
    """

    name: str
    default: Any
    allowed: tuple[Any, ...]
    source: str
    doc: str
    kind: str = "play"

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"rule option {self.name!r}: kind {self.kind!r} is not one of {KINDS}")


KINDS = ("play", "scoring")
"""The kinds of :class:`RuleOption`: ``play`` (changes play) and ``scoring`` (settlement only)."""


def spelled(value: Any) -> str:
    """A rule value as ``--rules`` and a record's JSON spell it: ``true``/``false``, ``null``, else as is."""
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    return str(value)


def play_changing(overrides: Mapping[str, Any], options: Sequence[RuleOption]) -> list[str]:
    """The names in ``overrides`` whose option is not ``scoring`` (unknown names included, sorted):
    the options a logged game cannot be re-settled under."""
    kinds = {o.name: o.kind for o in options}
    return sorted(k for k in overrides if kinds.get(k) != "scoring")


@dataclass(frozen=True)
class Ruleset:
    """A variant and its complete option values. ``id`` is the stable ruleset id."""

    variant: str
    values: Mapping[str, Any]
    id: str

    def __getitem__(self, key: str) -> Any:
        return self.values[key]


_MEMO: dict[tuple, tuple[Sequence[RuleOption], Ruleset]] = {}
_MEMO_MAX = 1024
_SCALARS = (str, int, bool, type(None))


def make_ruleset(variant: str, options: Sequence[RuleOption], rules: Mapping[str, Any] | None) -> Ruleset:
    """Resolve ``rules`` (a record's overrides) against ``options``.

    Memoised (the same few rule sets recur game after game): by the variant, the ``options``
    object and the overrides with their types (``True`` is not ``1`` here), when every override
    is a string, int, bool or null; the answer is shared, so its ``values`` must not be changed.

    :returns: the full :class:`Ruleset`; ``id`` is ``<variant>-<10 hex>`` of
        the canonical JSON of the non-default values (``<variant>-default``
        when every value is the default).
    :raises RuleViolation: ``schema`` for an unknown option or a value not allowed.
    """
    items = tuple((k, type(v), v) for k, v in rules.items()) if rules else ()
    key = (variant, id(options), items) if all(type(v) in _SCALARS for _, _, v in items) else None
    if key is not None:
        hit = _MEMO.get(key)
        if hit is not None and hit[0] is options:
            return hit[1]
    ruleset = _make_ruleset(variant, options, rules)
    if key is not None and len(_MEMO) < _MEMO_MAX:
        _MEMO[key] = (options, ruleset)
    return ruleset


def _make_ruleset(variant: str, options: Sequence[RuleOption], rules: Mapping[str, Any] | None) -> Ruleset:
    by_name = {o.name: o for o in options}
    values = {o.name: o.default for o in options}
    for k, v in (rules or {}).items():
        opt = by_name.get(k)
        if opt is None:
            if k.startswith("x_"):
                continue
            raise RuleViolation("schema", "paipu.rules", f"unknown rule option `{k}` for {variant}; "
                                f"known: {', '.join(sorted(by_name))}")
        if not any(v == a and type(v) is type(a) for a in opt.allowed):
            raise RuleViolation("schema", "paipu.rules", f"rule option `{k}` = {json.dumps(v, ensure_ascii=False)} "
                                f"not allowed; allowed: {', '.join(map(spelled, opt.allowed))}")
        values[k] = v
    diff = {k: v for k, v in sorted(values.items()) if v != by_name[k].default}
    if not diff:
        rid = f"{variant}-default"
    else:
        canon = json.dumps([variant, diff], sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        rid = f"{variant}-{hashlib.sha256(canon.encode()).hexdigest()[:10]}"
    return Ruleset(variant, values, rid)


def parse_overrides(text: str, options: Sequence[RuleOption]) -> dict[str, Any]:
    """Parse ``OPT=VAL[,OPT=VAL…]`` (CLI form) into typed values using each option's allowed values.

    :raises ValueError: unknown option or a value not allowed.
    """
    out: dict[str, Any] = {}
    by_name = {o.name: o for o in options}
    for part in filter(None, (p.strip() for p in text.split(","))):
        k, _, raw = part.partition("=")
        opt = by_name.get(k)
        if opt is None:
            raise ValueError(f"unknown option {k!r}; known: {', '.join(sorted(by_name))}")
        for a in opt.allowed:
            if str(a).lower() == raw.lower():
                out[k] = a
                break
        else:
            raise ValueError(f"{k}={raw!r} not allowed; allowed: {', '.join(map(spelled, opt.allowed))}")
    return out
