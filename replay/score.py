"""Score cases (spec §8): judge one finished hand, or list its waits, without a whole game."""

from __future__ import annotations

from typing import Any

import msgspec

from replay import variants
from replay.errors import RuleViolation, UnknownCard
from replay.options import make_ruleset


def score_case(raw: bytes | str | dict) -> dict[str, Any]:
    """Judge one case.

    :returns: spec §8 output: ``{"win", "points", "units", "hand_types", "groups", "reason"}``,
        or ``{"waits": [...]}`` when ``win_card`` is absent, or ``{"error": "..."}`` for a
        malformed case. Never raises for bad content.
    """
    try:
        case = raw if isinstance(raw, dict) else msgspec.json.decode(raw)
    except msgspec.DecodeError as e:
        return {"error": f"not valid JSON: {e}"}
    if not isinstance(case, dict):
        return {"error": "a score case is one JSON object"}
    vid = case.get("variant")
    spec = variants.VARIANTS.get(vid) if isinstance(vid, str) else None
    if spec is None or not spec.implemented or spec.scorer is None:
        return {"error": f"variant {vid!r} is unknown or not implemented"}
    try:
        ruleset = make_ruleset(spec.id, spec.options, case.get("rules") or {})
        if not isinstance(case.get("hand", []), list):
            raise ValueError("hand is a list of cards")
        return spec.scorer(case, ruleset)
    except (ValueError, UnknownCard, RuleViolation, TypeError, AttributeError) as e:
        return {"error": str(e)}
