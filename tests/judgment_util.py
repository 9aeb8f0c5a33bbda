"""Checks shared by the score = replay property tests (tests/test_judgment_<variant>.py):
a variant passes its corpus and its ``score_case_of`` (state, seat -> spec §8 case)."""

from __future__ import annotations

from typing import Any, Callable, Iterable

from replay.errors import RuleViolation
from replay.record import Event, Record
from replay.replayer import replay_record
from replay.score import score_case

CaseOf = Callable[[Any, int], dict]


def judged(case: dict) -> tuple:
    """``paipu score`` of ``case`` as (win, points, units, hand_types); a malformed case fails."""
    out = score_case(case)
    assert "error" not in out, out
    return out["win"], out["points"], out["units"], out["hand_types"]


def check_every_win(corpus: Iterable[Record], case_of: CaseOf) -> list[Record]:
    """Every won record's winner position (the state before its closing 胡) scores as replayed:
    (True, points, units, hand_types) of the record's result. :returns: the won records."""
    wins = []
    for rec in corpus:
        r = rec.result
        if r is None or r.outcome != "win":
            continue
        k = len(rec.actions) - 1
        assert rec.actions[k].act == "hu", rec.game_id
        case = case_of(replay_record(rec, stop_after=k - 1).state, r.winner)
        assert judged(case) == (True, r.points, r.units, r.hand_types), (rec.game_id, case)
        wins.append(rec)
    return wins


def replay_accepts(state: Any, seat: int, card: str | None, refusals: tuple[str, ...] = ("not_a_win",)) -> dict | None:
    """The engine's answer to ``seat`` logging 胡 on ``card`` in ``state`` (on a copy): the result,
    or None when refused with one of ``refusals`` (another code fails). Seats whose open options
    rank ahead of its 胡 pass first: priority is not the question."""
    st = state.fork()
    try:
        w = st.window
        if w is not None:
            mine = [o for o in w.options if o.seat == seat and o.act == "hu"]
            for s in sorted({o.seat for o in w.options if mine and o.seat != seat and o.seat not in w.passed
                             and o.key < mine[0].key}):
                st.apply(Event(seat=s, act="pass"))
        st.apply(Event(seat=seat, act="hu", card=card))
    except RuleViolation as e:
        assert e.code in refusals, e
        return None
    return st.result()


def check_position(state: Any, seat: int, case_of: CaseOf, card: str | None = ..., **kw: Any) -> bool:
    """``seat``'s case in ``state`` is a win exactly when replay accepts its 胡 there, with the same
    points, units and hand_types. ``card``: the 胡's card (default: the case's ``win_card``).
    :returns: whether it is a win."""
    case = case_of(state, seat)
    got = judged(case)
    res = replay_accepts(state, seat, case["win_card"] if card is ... else card, **kw)
    assert got[0] == (res is not None), (state.record.game_id, state.step, seat, case)
    if res is not None:
        assert got[1:] == (res["points"], res["units"], res["hand_types"]), (state.record.game_id, state.step, seat, case)
    return got[0]
