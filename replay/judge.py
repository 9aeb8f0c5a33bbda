"""One judgment of a win: ``paipu score`` asks the engine that replays games, not a second scorer.

A score case (spec §8) is turned by its variant into a :class:`Position`: an engine state in which
the winner faces the winning card exactly as it would in play — the window open on that card from
the right source (the seat's own flip, another seat's flip or discard), or the start window for a
win on the dealt hand — with the case's context (dealer, first turn, last card, 醒 cards, …) set in
the state. :func:`judge` then plays, on copies of that state, every way the engine lets the seat
reach a 胡 on that card: the 胡 itself, and the forced acts (扫穿, 开舵, …) after which the engine
offers the seat a 胡. The best outcome (highest points, then units; the first of equals) is the
answer, with the engine's own settlement. Nothing here knows a variant's rules: the same code that
accepts or refuses a logged 胡 judges the case, so the two cannot drift.

Used by :func:`replay.score.score_case` for every variant whose ``VariantSpec.position`` is set.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from replay.engine import GameState, Phase
from replay.errors import RuleViolation
from replay.record import Event


class Exhausted(ValueError):
    """The winning card of a case would be one copy more than the deck has (the waits skip it)."""


def case_frame(case: dict[str, Any], variant: str, held: list[int], win_froms: tuple[str, ...],
               default_from: str) -> tuple[str, dict[str, Any], int | None]:
    """What every variant's position reads of a score case alike (spec §8): ``win_from`` (absent:
    ``default_from``), ``context`` (absent: empty) and the winning card's kind (None for
    ``"win_card": null``).

    :param variant: the variant id (its deck reads the card; its name is in the messages).
    :param held: count vector of the hand and melds (without the winning card).
    :param win_froms: the ``win_from`` values the variant has (no ``flip`` in 花牌 / 上大人).
    :raises ValueError: ``win_from`` not one of ``win_froms``; ``context`` not an object.
    :raises replay.cards.UnknownCard: the winning card is not a card of the deck.
    :raises Exhausted: the winning card would be one copy more than the deck holds.
    """
    from replay import variants

    deck = variants.get(variant).deck
    win_from = case.get("win_from") or default_from
    if win_from not in win_froms:
        raise ValueError(f"win_from is {', '.join(win_froms[:-1])} or {win_froms[-1]}"
                         + ("" if "flip" in win_froms else f" ({variant} has no flips)"))
    ctx = case.get("context") or {}
    if not isinstance(ctx, dict):
        raise ValueError("context is an object")
    wc = case["win_card"]
    w = None if wc is None else deck.index(wc)
    if w is not None and held[w] >= deck.copies[w]:
        raise Exhausted(f"one {wc} too many: the deck holds {deck.copies[w]}")
    return win_from, ctx, w


@dataclass
class Position:
    """A score case as a game position.

    :param state: the engine state just before the winner's answer to the winning card: phase
        WINDOW (the card open to claims) or START (a win on the dealt hand, ``win_card: null``).
        Other seats hold no options there (a position has one seat that matters).
    :param seat: the winner's seat.
    :param groups: the winning split of a won state as spec §8 ``groups``
        (``[{"kind", "cards", "points"}, ...]``, melds included); the variant's own reading of
        its state after the 胡.
    :param hu: the 胡 a player would log in the seat's own discard phase, applied there when the
        engine does not offer it, for the engine's reason: at the root (a win on a card it drew,
        or on its dealt hand, where the variant has no window), or after its forced act at a
        window, whatever the phase then (e.g. 扫穿 then 胡 on the same card, when the 扫穿 does
        not complete the hand).
        None: nothing is tried in the discard phase (at a window the 胡 on the open card is
        derived).
    """

    state: GameState
    seat: int
    groups: Callable[[GameState], list[dict[str, Any]]]
    hu: Event | None = None


@dataclass
class Judgment:
    """What :func:`judge` found.

    :param win: whether any path reached a 胡 the engine accepts.
    :param state: the engine state after the best 胡 (None when no win).
    :param outcome: ``state.result()`` of that win: spec §5 settlement (points, units, hand_types, …).
    :param points: the best points seen — of the win, else the highest ``points`` a refused 胡's
        ``detail`` reports (a complete shape under the minimum), else None (no shape).
    :param reason: why there is no win: the message of the refusal with the highest points (or
        of the plain 胡 when none has points); None for a win.
    :param refusal: that refusal itself (code, rule, detail), None for a win.
    :param path: the acts taken on the way to the best 胡 (e.g. ``["sao_chuan", "hu"]``).
    """

    win: bool
    state: GameState | None = None
    outcome: dict[str, Any] | None = None
    points: int | None = None
    reason: str | None = None
    refusal: RuleViolation | None = None
    path: list[str] = field(default_factory=list)


def _candidates(state: GameState, seat: int) -> list[Event]:
    """The seat's events that may lead to its 胡 now: 胡 itself and the seat's forced acts (at a
    window), or the 胡 the engine lists after them (in the discard phase)."""
    if state.phase is Phase.OVER:
        return []
    if state.phase in (Phase.WINDOW, Phase.START) and state.window is not None:
        w = state.window
        out = []
        for o in w.of(seat):
            if o.act == "hu" or o.forced:
                out.extend(o.events)
        return out
    return [e for e in state.legal_events() if e.seat == seat and e.act == "hu"]


def _plain_hu(state: GameState, seat: int) -> Event:
    """The 胡 a player would log on the open card: what the engine refuses with its reason."""
    w = state.window
    card = None if w is None or w.kind == "start" else state.deck.codes[w.card]
    return Event(seat=seat, act="hu", card=card)


def _better(a: GameState, b: GameState | None) -> bool:
    if b is None:
        return True
    ra, rb = a.result(), b.result()
    return ((ra.get("points") or 0), (ra.get("units") or 0)) > ((rb.get("points") or 0), (rb.get("units") or 0))


def judge(pos: Position, depth: int = 3) -> Judgment:
    """Every way the engine lets ``pos.seat`` win on the open card, and the best of them.

    :param pos: the position (see :class:`Position`); its state is not changed.
    :param depth: acts on one path at most (a forced act, then 胡: 2; 3 leaves room for a
        variant whose forced act opens another).
    :returns: :class:`Judgment`. A refused 胡 is not an error here: its message is the reason.
    """
    seat = pos.seat
    best: GameState | None = None
    best_path: list[str] = []
    refusals: list[RuleViolation] = []

    def walk(st: GameState, d: int, path: list[str]) -> None:
        nonlocal best, best_path
        evs = _candidates(st, seat)
        if not any(e.act == "hu" for e in evs):  # not offered: apply it anyway for the engine's reason
            if st.phase in (Phase.WINDOW, Phase.START):
                evs = [*evs, _plain_hu(st, seat)]
            elif pos.hu is not None and (path or st.phase is Phase.DISCARD):
                evs = [*evs, pos.hu]
        for ev in evs:
            nxt = st.fork()
            try:
                nxt.apply(ev)
            except RuleViolation as e:
                if ev.act == "hu":
                    refusals.append(e)
                continue
            if nxt.phase is Phase.OVER:
                res = nxt.result()
                if res.get("outcome") == "win" and res.get("winner") == seat and _better(nxt, best):
                    best, best_path = nxt, [*path, ev.act]
            elif d > 1:
                walk(nxt, d - 1, [*path, ev.act])

    walk(pos.state, depth, [])
    if best is not None:
        out = best.result()
        return Judgment(True, best, out, out.get("points"), None, None, best_path)
    if not refusals:
        return Judgment(False, reason="the engine offers no 胡 here")
    scored = [e for e in refusals if e.detail and e.detail.get("points") is not None]
    top = max(scored, key=lambda e: e.detail["points"]) if scored else refusals[0]  # type: ignore[index]
    return Judgment(False, points=top.detail["points"] if scored else None, reason=top.message, refusal=top)  # type: ignore[index]
