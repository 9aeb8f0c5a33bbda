"""Spec §4's event fields, checked: ``from`` names a seat of the game and the card's real
source when present; a field that an act does not take is ``schema`` / ``paipu.event`` at its step.

The table below is the spec's, read independently of the engine: every act may name its ``card``
and a time ``t``; a ``draw`` takes ``tail`` (a draw from the back of the wall) and, in the 字牌
family only, ``to_hand`` (a replacement into the hand); a ``discard`` nothing more; ``hu`` the
``from`` of the card it wins on; a ``pass`` nothing more (its ``cards``/``bi`` keep their own rule,
``paipu.pass``); every claim or declaration ``cards`` and ``from``, and a 字牌-family 吃 also ``bi``.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import msgspec
import pytest

from replay.replayer import replay_line
from replay.simulator import simulate
from replay.variants import VARIANTS

ROOT = Path(__file__).resolve().parent.parent
SHORT = json.loads((ROOT / "data" / "guilin-short.jsonl").read_bytes())
FIELDS = ("cards", "from", "bi", "tail", "to_hand")
ZIPAI_FAMILY = {"guilin", "zipai", "yuanjiang_guihuzi"}


def takes(variant: str, act: str) -> set[str]:
    """The optional fields of spec §4 that ``act`` takes in ``variant`` (besides card and t)."""
    if act == "draw":
        return {"tail", "to_hand"} if variant in ZIPAI_FAMILY else {"tail"}
    if act == "discard":
        return set()
    if act == "hu":
        return {"from"}
    if act == "pass":
        return {"cards", "bi"}  # refused by the pass rule itself (illegal_action paipu.pass)
    return {"cards", "from", "bi"} if act == "chi" and variant in ZIPAI_FAMILY else {"cards", "from"}


def first_error(rec: dict) -> tuple:
    v = replay_line(json.dumps(rec, ensure_ascii=False).encode()).verdict
    e = v.errors[0] if v.errors else None
    return (v.valid, e.code, e.rule, e.step) if e else (v.valid,)


def with_event(rec: dict, step: int, **fields) -> dict:
    out = json.loads(json.dumps(rec))
    out["actions"][step].update(fields)
    return out


def test_the_issue_lines():
    assert first_error(SHORT) == (True,)
    # {"act": "discard", "from": 7} in a 3-seat game
    assert first_error(with_event(SHORT, 0, **{"from": 7})) == (False, "schema", "paipu.from", 0)
    assert first_error(with_event(SHORT, 0, **{"from": 1})) == (False, "schema", "paipu.event", 0)
    assert first_error(with_event(SHORT, 0, tail=True)) == (False, "schema", "paipu.event", 0)
    assert first_error(with_event(SHORT, 0, to_hand=True)) == (False, "schema", "paipu.event", 0)
    # a draw takes no `from`; a chi's `from` out of range is a schema error, not a wrong source
    assert first_error(with_event(SHORT, 3, **{"from": 2})) == (False, "schema", "paipu.event", 3)
    assert first_error(with_event(SHORT, 1, **{"from": 5})) == (False, "schema", "paipu.from", 1)
    assert first_error(with_event(SHORT, 1, **{"from": 2})) == (False, "illegal_action", "paipu.from", 1)
    # step 8: seat 1 wins on its own flip: `from` 1 is right, 0 is not
    assert first_error(with_event(SHORT, 8, **{"from": 1})) == (True,)
    assert first_error(with_event(SHORT, 8, **{"from": 0})) == (False, "illegal_action", "paipu.from", 8)
    # false and null are the defaults: not a field given
    assert first_error(with_event(SHORT, 0, tail=False, to_hand=False, **{"from": None})) == (True,)
    assert first_error(with_event(SHORT, 0, t=1500)) == (True,)


def test_the_error_names_the_field_and_the_act():
    v = replay_line(json.dumps(with_event(SHORT, 2, tail=True, bi=[["x1", "x2", "x3"]])).encode()).verdict
    (e,) = v.errors
    assert (e.code, e.rule, e.step) == ("schema", "paipu.event", 2)
    assert "`discard`" in e.message and "`bi`" in e.message and "`tail`" in e.message


@lru_cache(maxsize=None)
def game(variant: str) -> dict:
    """A simulated game of ``variant``: of 6, the one with the most kinds of acts."""
    recs = [msgspec.to_builtins(r) for r in simulate(variant, 6, seed=5)]
    return max(recs, key=lambda r: len({e["act"] for e in r["actions"]}))


def _value(field: str, ev: dict):
    card = ev.get("card") or "x1"
    return {"cards": [card], "from": 0, "bi": [[card, card, card]], "tail": True, "to_hand": True}[field]


@pytest.mark.parametrize("variant", [v.id for v in VARIANTS.values() if v.implemented])
def test_every_act_refuses_the_fields_it_does_not_take(variant):
    rec = game(variant)
    assert first_error(rec) == (True,)
    firsts: dict[str, int] = {}
    for i, ev in enumerate(rec["actions"]):
        firsts.setdefault(ev["act"], i)
    assert {"draw", "discard", "hu"} & set(firsts)
    refused = 0
    for act, step in sorted(firsts.items()):
        ev = rec["actions"][step]
        for field in FIELDS:
            if field in takes(variant, act) or field in ev:
                continue
            got = first_error(with_event(rec, step, **{field: _value(field, ev)}))
            assert got == (False, "schema", "paipu.event", step), (variant, act, field, got)
            refused += 1
        assert first_error(with_event(rec, step, t=7)) == (True,)  # every act takes a time
    assert refused >= 8


def test_audit_step_error_of_an_unknown_act_is_the_verdicts():
    """The audit trail's failing step says ``unknown_act`` as the verdict does (it said "must
    discard now": the engine saw the act before the replayer's act check)."""
    from replay.audit import audit_trail
    from replay.simulator import simulate

    rec = msgspec.to_builtins(next(iter(simulate("guilin", 1, 3))))
    rec["actions"][1]["act"] = "fly"
    trail = audit_trail(json.dumps(rec))
    assert trail["verdict"]["errors"][0]["code"] == "unknown_act"
    last = trail["steps"][-1]
    assert last["step"] == 1 and last["error"]["code"] == "unknown_act" and last["error"]["rule"] == "paipu.acts"
