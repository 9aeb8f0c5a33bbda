"""Step-by-step view of one game for auditors (the dashboard's Game audit page and ``paipu audit``)."""

from __future__ import annotations

from typing import Any

import msgspec

from replay import variants
from replay.errors import RuleViolation, UnknownCard
from replay.replayer import check_act, replay_line


def audit_trail(raw: bytes | str) -> dict[str, Any]:
    """Replay one record and keep the table after every event.

    :returns: ``{"verdict": spec §6 verdict as a dict, "steps": [...]}``; each step is
        ``{"step" (-1 = after the deal), "event" (dict or None), "phase", "turn", "seats":
        [{"seat", "player", "hand", "melds", "discards", "options"}], "wall_left", "error"}``
        where ``options`` are the legal next events of each seat after that step's event;
        ``error`` is set on the failing step (and replay stops there).
        ``steps`` is empty when the line is not a record of an implemented variant.
    """
    out = replay_line(raw)
    verdict = msgspec.to_builtins(out.verdict)
    steps: list[dict[str, Any]] = []
    rec, ruleset = out.record, out.ruleset
    spec = variants.VARIANTS.get(rec.variant) if rec is not None else None
    record_level = any(e.step is None for e in out.verdict.errors)
    if rec is None or ruleset is None or spec is None or spec.state is None or record_level:
        return {"verdict": verdict, "steps": steps}
    state = spec.state(rec, ruleset)
    steps.append({"step": -1, "event": None, **state.snapshot(), "error": None})
    for i, ev in enumerate(rec.actions):
        err = None
        try:
            check_act(spec, ev, i)  # the replayer's own check: the step error is the verdict's
            state.apply(ev)
        except (RuleViolation, UnknownCard) as e:
            err = {"code": getattr(e, "code", "unknown_card"), "rule": getattr(e, "rule", "paipu.cards"),
                   "message": getattr(e, "message", str(e))}
        steps.append({"step": i, "event": msgspec.to_builtins(ev), **state.snapshot(), "error": err})
        if err:
            break
    return {"verdict": verdict, "steps": steps}
