"""Score cases (spec §8): judge one finished hand, or list its waits, without a whole game.

Every case is judged by the engine itself (:mod:`replay.judge`): the variant turns the case into a
game position (``VariantSpec.position``) and the engine's own 胡 decides, so ``paipu score`` and
replay never disagree (no second scorer).
"""

from __future__ import annotations

from typing import Any

import msgspec

from replay import variants
from replay.errors import RuleViolation, UnknownCard
from replay.judge import Exhausted, judge
from replay.options import make_ruleset

_ERRORS = (ValueError, UnknownCard, RuleViolation, TypeError, AttributeError)


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
    if spec is None or not spec.implemented or spec.position is None:
        return {"error": f"variant {vid!r} is unknown or not implemented"}
    try:
        ruleset = make_ruleset(spec.id, spec.options, case.get("rules") or {})
        if not isinstance(case.get("hand", []), list):
            raise ValueError("hand is a list of cards")
        if "win_card" not in case:
            return {"waits": _waits(spec, case, ruleset)}
        return _judged(spec, case, ruleset)
    except _ERRORS as e:
        return {"error": str(e)}


def _judged(spec: variants.VariantSpec, case: dict, ruleset: Any) -> dict[str, Any]:
    """Spec §8 output of one case with a ``win_card`` (a code or null), judged by the engine."""
    assert spec.position is not None
    pos = spec.position(case, ruleset)
    j = judge(pos)
    out: dict[str, Any] = {"win": j.win, "points": j.points, "units": None, "hand_types": [], "groups": [],
                           "reason": j.reason}
    if j.win:
        assert j.outcome is not None and j.state is not None
        out.update(units=j.outcome.get("units"), hand_types=list(j.outcome.get("hand_types") or []),
                   groups=pos.groups(j.state))
    elif j.refusal is not None and j.refusal.detail:
        out["groups"] = list(j.refusal.detail.get("groups") or [])
    return out


def _waits(spec: variants.VariantSpec, case: dict, ruleset: Any) -> list[dict[str, Any]]:
    """Every card that completes the hand's shape, in deck order, with the points it would bring
    and whether they reach the minimum (spec §8): each card judged as a case of its own."""
    out = []
    for code in spec.deck.codes:
        try:
            pos = spec.position({**case, "win_card": code}, ruleset)  # type: ignore[misc]
        except Exhausted:
            continue
        j = judge(pos)
        if j.points is not None:
            out.append({"card": code, "points": j.points, "win": j.win})
    return out
