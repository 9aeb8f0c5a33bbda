"""Error codes of paipu/1 §6 and the exceptions that carry them.

A rule failure is raised as :class:`RuleViolation` with the stable error code,
the project's rule id (e.g. ``guilin.chou_pai``, documented in
``docs/rules/<variant>.md``) and a message in plain words.
"""

from __future__ import annotations

# Stable error codes (spec §6). Order is documentation order.
CODES = (
    "bad_json",
    "schema",
    "unknown_variant",
    "unknown_card",
    "unknown_act",
    "deck_mismatch",
    "wall_mismatch",
    "out_of_turn",
    "illegal_action",
    "priority_violation",
    "missing_forced_action",
    "not_a_win",
    "truncated",
    "trailing_actions",
    "result_mismatch",
    "duplicate_game",
    "shuffle_mismatch",
)


class PaipuError(Exception):
    """Base of paipu's own errors."""


class UnknownCard(PaipuError):
    """A card code that the deck does not know (code ``unknown_card``)."""


class RuleViolation(PaipuError):
    """An event broke a rule.

    :param code: one of :data:`CODES`.
    :param rule: stable rule id, ``<variant>.<rule>`` or ``paipu.<rule>``.
    :param message: what happened, in plain words.
    :param step: 0-based index into ``actions`` (None for record-level).
    :param detail: machine-readable facts behind the message, JSON-ready (e.g. a ``not_a_win``'s
        best split: ``{"points": 8, "groups": [...]}``; :mod:`replay.judge` reads ``points`` for
        the waits of a score case). None when there is nothing more than the message.
    """

    def __init__(self, code: str, rule: str, message: str, step: int | None = None,
                 detail: dict | None = None) -> None:
        assert code in CODES, code
        super().__init__(f"{code} [{rule}] {message}")
        self.code = code
        self.rule = rule
        self.message = message
        self.step = step
        self.detail = detail
