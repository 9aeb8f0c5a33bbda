"""Decision review: one seat of one game against the expected-value bot (replay/evbot.py).

At every decision the seat made — a discard with two kinds or more to choose from, and every claim
window in which it had an optional claim (吃, 碰, 對, 撿, …) to take or leave — the review puts the
seat's own choice beside the ``ev`` bot's choice in the same position, and each candidate's ``W``
(the bot's value of the hand a choice leaves: the settlement of its waits weighted by the unseen
copies of each winning card, :meth:`EVBot.worth`). The gap is ``W`` of the bot's choice less ``W``
of the one played. Forced acts, 胡, declarations and the start of the hand are not decisions.

The bot is the variant's own ``ev`` bot from the simulator's registry (``replay.simulator._bots``)
and sees only what the bot sees in self-play: the seat's own hand, every meld, river and the open
card, the ruleset. It is asked wherever the simulator would ask that seat's bot (every discard
turn, and the seat's options of a window in priority order up to the claim that was taken), so its
random stream (the heuristic's tie-breaks) runs as in self-play: reviewing a seat the ``ev`` bot
played, with the stream the simulator gave it (``{game}:{seat}:{seed}``), matches every decision.

A claim window's decision is reviewed on the state the window opened on; the claim taken by another
seat ranked above the seat's options means the seat was never asked (no decision there).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from replay import variants
from replay.cards import Deck
from replay.engine import GameState, Option, Phase, Window
from replay.errors import RuleViolation, UnknownCard
from replay.evbot import EVBot, discard_kinds
from replay.options import Ruleset
from replay.record import Event, Record
from replay.replayer import replay_line

DEFAULT_SEED = "paipu review"
"""The bot's random stream when none is given (its heuristic's tie-breaks draw from it)."""

PASS = {"act": "pass"}


class ReviewError(ValueError):
    """A line or record that cannot be reviewed: not a game record, a variant not implemented, a
    record-level error (its deal, its rules), or a seat the game does not have."""


@dataclass(frozen=True)
class Candidate:
    """One choice of a decision: its event (``{"act", "card"?, "cards"?, "bi"?}``, canonical codes;
    ``{"act": "pass"}`` for declining a claim) and ``W`` of the hand it leaves (None: not valued,
    e.g. a 胡 or a claim the engine refuses)."""

    event: dict[str, Any]
    w: float | None


@dataclass(frozen=True)
class Decision:
    """One decision of the seat.

    :param step: the action index of the seat's answer: its discard or claim, its explicit pass, or
        else the event that closed the window (the seat passed by letting it close).
    :param kind: ``discard`` or ``claim``.
    :param card: the open card of a claim window (None for a discard).
    :param played: the event played; :param bot: the event the bot chooses there.
    :param played_w: ``W`` of the played choice; :param bot_w: of the bot's (None: not valued).
    :param candidates: every choice the bot valued, in the engine's order.
    """

    step: int
    kind: str
    card: str | None
    played: dict[str, Any]
    bot: dict[str, Any]
    played_w: float | None
    bot_w: float | None
    candidates: tuple[Candidate, ...]
    match: bool

    @property
    def gap(self) -> float | None:
        """``W`` of the bot's choice less ``W`` of the one played (None when either is not valued)."""
        if self.played_w is None or self.bot_w is None:
            return None
        return self.bot_w - self.played_w

    @property
    def valued(self) -> bool:
        """Whether some candidate leaves a ready hand (``W`` > 0): the expected values decided, not
        the heuristic's shape alone."""
        return any(c.w for c in self.candidates)

    def to_json(self) -> dict[str, Any]:
        return {"step": self.step, "kind": self.kind, "card": self.card, "played": self.played, "bot": self.bot,
                "match": self.match, "played_w": self.played_w, "bot_w": self.bot_w, "gap": self.gap,
                "valued": self.valued, "candidates": [{"event": c.event, "w": c.w} for c in self.candidates]}


@dataclass
class Review:
    """The review of ``seat`` in game ``game_id``; ``error`` is the first rule the log breaks
    (``{"step", "code", "rule", "message"}``), where the review stopped; ``dispute`` the first
    claimed figure of the settlement that differs from the computed one (``result_mismatch``, same
    keys), when the actions are sound but the server's settlement is not."""

    game_id: str
    variant: str
    ruleset_id: str
    seat: int
    player: str
    decisions: list[Decision] = field(default_factory=list)
    error: dict[str, Any] | None = None
    dispute: dict[str, Any] | None = None

    @property
    def matches(self) -> int:
        return sum(d.match for d in self.decisions)

    @property
    def match_rate(self) -> float | None:
        """Share of decisions where the seat chose as the bot (None without a decision)."""
        return self.matches / len(self.decisions) if self.decisions else None

    @property
    def ev_lost(self) -> float:
        """The sum of the positive gaps: ``W`` the seat gave up against the bot's choices."""
        return sum((g for d in self.decisions if (g := d.gap) is not None and g > 0), 0.0)

    @property
    def valued(self) -> int:
        """Decisions where some choice leaves a ready hand (the bot's values decided)."""
        return sum(d.valued for d in self.decisions)

    def costliest(self, n: int = 3) -> list[Decision]:
        """The ``n`` decisions of largest positive gap, largest first (earlier step on a tie)."""
        lost = [d for d in self.decisions if (d.gap or 0.0) > 0]
        return sorted(lost, key=lambda d: (-(d.gap or 0.0), d.step))[:n]

    def to_json(self) -> dict[str, Any]:
        return {"game_id": self.game_id, "variant": self.variant, "ruleset_id": self.ruleset_id, "seat": self.seat,
                "player": self.player, "decisions": len(self.decisions), "matches": self.matches,
                "match_rate": self.match_rate, "ev_lost": self.ev_lost, "valued": self.valued,
                "costliest": [{"step": d.step, "played": d.played, "bot": d.bot, "gap": d.gap} for d in self.costliest()],
                "error": self.error, "dispute": self.dispute,
                "steps": [d.to_json() for d in self.decisions]}


def event_dict(ev: Event, deck: Deck) -> dict[str, Any]:
    """``ev`` as ``{"act", "card"?, "cards"?, "bi"?}`` with canonical codes (no seat, time or ``from``)."""
    out: dict[str, Any] = {"act": ev.act}
    if ev.card is not None:
        out["card"] = deck.canonical(ev.card)
    if ev.cards:
        out["cards"] = deck.canonical_codes(ev.cards)
    if ev.bi:
        out["bi"] = [deck.canonical_codes(g) for g in ev.bi]
    return out


def _same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """The same choice: act, card, and the cards (and 比 groups) as multisets."""
    return (a["act"] == b["act"] and a.get("card") == b.get("card") and sorted(a.get("cards") or []) == sorted(b.get("cards") or [])
            and sorted(sorted(g) for g in a.get("bi") or []) == sorted(sorted(g) for g in b.get("bi") or []))


def _w(cands: list[Candidate], ev: dict[str, Any]) -> float | None:
    return next((c.w for c in cands if _same(c.event, ev)), None)


@dataclass
class _Open:
    """A claim window being followed: the state it opened on (a copy, when the seat has options
    there), the first action index in it, the first claim taken in it and the seat's own answer."""

    window: Window
    at: int
    state: GameState | None
    claim: Event | None = None
    mine: tuple[int, Event] | None = None


class _Walk:
    """The review's pass over the actions (see :func:`review`)."""

    def __init__(self, record: Record, ruleset: Ruleset, seat: int, rng: random.Random) -> None:
        from replay.simulator import _bots  # the simulator's registry of each variant's bots

        spec = variants.get(record.variant)
        assert spec.state is not None
        self.state: GameState = spec.state(record, ruleset)
        self.deck = self.state.deck
        self.seat = seat
        self.bot: EVBot = _bots(record.variant, "ev")(rng)
        self.decisions: list[Decision] = []

    # -- discard turns ------------------------------------------------------------------------
    def turn(self, i: int, ev: Event) -> None:
        """The seat's discard turn: the bot is asked (as in self-play); a discard among two kinds or
        more is a decision."""
        st, seat, bot = self.state, self.seat, self.bot
        legal = st.legal_events()
        choice = bot.discard(st, seat, legal)
        if ev.seat != seat or ev.act != "discard" or ev.card is None:
            return
        kinds = discard_kinds(st, legal)
        if len(kinds) < 2:
            return
        worths = bot.discard_worths(st, seat, list(st.hands[seat]), st.melds[seat], list(kinds), bot.live(st, seat))
        cands = [Candidate(event_dict(kinds[k], self.deck), w) for k, w in worths]
        played, mine = event_dict(ev, self.deck), dict(worths).get(self.deck.index(ev.card))
        if choice.act == "discard":
            k = self.deck.index(choice.card)
            bot_ev, bot_w = event_dict(kinds.get(k, choice), self.deck), dict(worths).get(k)
        else:  # a 胡 or another act the bot prefers to any discard: not valued by W
            bot_ev, bot_w = event_dict(choice, self.deck), None
        self.decisions.append(Decision(i, "discard", None, played, bot_ev, mine, bot_w, tuple(cands),
                                       bot_ev["act"] == "discard" and bot_ev.get("card") == played["card"]))

    # -- claim windows ------------------------------------------------------------------------
    def opened(self, w: Window, i: int) -> _Open:
        mine = any(o.seat == self.seat for o in w.options)
        return _Open(w, i, self.state.fork() if mine else None)

    def closed(self, op: _Open, end: int) -> None:
        """A window is over: ask the bot for the seat's options the simulator would have asked (in
        priority order, up to the claim taken), and review the decision when it is one."""
        st = op.state
        if st is None:
            return
        seat, bot, w = self.seat, self.bot, st.window
        assert w is not None
        ranked = sorted(w.options, key=lambda o: o.key)
        taken = _option_of(ranked, op.claim, self.deck) if op.claim is not None else None
        asked = ranked[:ranked.index(taken) + 1] if taken is not None else ranked
        ask = [o for o in asked if o.seat == seat]
        choice: Event | None = None
        for o in ask:
            choice = bot.claim(st, seat, o)
            if choice is not None:
                break
        own = [o for o in w.options if o.seat == seat]
        optional = [o for o in ask if not o.forced and o.act != "hu"]
        played_ev = op.mine[1] if op.mine is not None else None
        if (w.kind == "start" or not optional or any(o.forced for o in own)
                or (played_ev is not None and played_ev.act == "hu")):
            return
        w_now = 0.0
        cands: list[Candidate] = []
        for o in optional:
            w_now, worths = bot.claim_worths(st, seat, o)
            cands += [Candidate(event_dict(e, self.deck), v) for e, v in worths]
        cands.insert(0, Candidate(PASS, w_now))
        played_w: float | None
        if played_ev is None or played_ev.act == "pass":
            played, played_w = PASS, w_now
        else:
            played = event_dict(played_ev, self.deck)
            played_w = _w(cands, played)
            opt = _option_of([o for o in own if o.act == played_ev.act], played_ev, self.deck)
            if played_w is None and opt is not None:
                played_w = bot.claim_worth(st, seat, opt, played_ev, bot.live(st, seat))
        bot_ev = PASS if choice is None else event_dict(choice, self.deck)
        bot_w = w_now if choice is None else None if choice.act == "hu" else _w(cands, bot_ev)
        step = op.mine[0] if op.mine is not None else end
        self.decisions.append(Decision(step, "claim", self.deck.codes[w.card], played, bot_ev, played_w, bot_w,
                                       tuple(cands), _same(played, bot_ev)))

    # -- the pass over the actions --------------------------------------------------------------
    def run(self, actions: list[Event]) -> dict[str, Any] | None:
        """Review every action in order; the first rule broken (where the review stops) or None."""
        st = self.state
        op: _Open | None = None
        i = 0
        try:
            for i, ev in enumerate(actions):
                w = st.window
                if w is not None and (st.phase is Phase.WINDOW or st.phase is Phase.START) and not st.pending_declarations():
                    if op is None or op.window is not w:
                        op = self.opened(w, i)
                    if ev.act == "draw" or not st._targets_window(ev):  # the engine's own test (GameState.apply)
                        self.closed(op, i)
                        op = None
                        st.close_window()
                if st.phase is Phase.DISCARD and st.turn == self.seat:
                    self.turn(i, ev)
                st.apply(ev)
                if op is not None:
                    if ev.act != "pass" and op.claim is None:
                        op.claim = ev
                    if ev.seat == self.seat and op.mine is None:
                        op.mine = (i, ev)
                    if st.window is not op.window:
                        self.closed(op, i)
                        op = None
            i = len(actions)
            w = st.window
            if w is not None and st.phase is Phase.WINDOW:  # the log ends on an open card: passed
                self.closed(op if op is not None and op.window is w else self.opened(w, i), i)
        except (RuleViolation, UnknownCard) as e:
            return {"step": i, "code": getattr(e, "code", "unknown_card"), "rule": getattr(e, "rule", "paipu.cards"),
                    "message": getattr(e, "message", str(e))}
        return None


def _option_of(opts: list[Option], ev: Event | None, deck: Deck) -> Option | None:
    """The option of ``opts`` that ``ev`` answers: of its seat and act, the one listing the same
    event (else the first of them)."""
    if ev is None:
        return None
    mine = [o for o in opts if o.seat == ev.seat and o.act == ev.act]
    want = event_dict(ev, deck)
    return next((o for o in mine if any(_same(event_dict(e, deck), want) for e in o.events)), mine[0] if mine else None)


def review(record: Record, ruleset: Ruleset, seat: int, rng: random.Random | None = None) -> Review:
    """Review ``seat`` of ``record`` (played under ``ruleset``) against the variant's ``ev`` bot.

    :param rng: the bot's random stream (its heuristic's tie-breaks); default
        ``random.Random(DEFAULT_SEED)``. ``paipu simulate`` gives seat ``s`` of game ``i`` the stream
        ``random.Random(f"{i}:{s}:{seed}")``.
    :raises ReviewError: ``seat`` is not a seat of the game.
    """
    n = len(record.seats)
    if not 0 <= seat < n:
        raise ReviewError(f"game {record.game_id}: no seat {seat} (seats 0–{n - 1})")
    walk = _Walk(record, ruleset, seat, rng if rng is not None else random.Random(DEFAULT_SEED))
    error = walk.run(record.actions)
    return Review(record.game_id, record.variant, ruleset.id, seat, record.seats[seat], walk.decisions, error)


def review_line(raw: bytes | str, seat: int, seed: str = DEFAULT_SEED) -> Review:
    """Review ``seat`` of the game on one paipu/1 line (its own ``rules``, else the defaults).

    :param seed: the bot's random stream, ``random.Random(seed)`` (see :func:`review`).
    :raises ReviewError: the line is not a record of an implemented variant, has a record-level
        error (nothing to replay), or has no such seat.
    """
    out = replay_line(raw)
    rec, ruleset = out.record, out.ruleset
    first = out.verdict.errors[0] if out.verdict.errors else None
    if rec is None or ruleset is None or (first is not None and first.step is None):
        assert first is not None
        where = f"game {out.verdict.game_id}: " if out.verdict.game_id else ""
        raise ReviewError(f"{where}{first.code} [{first.rule}]: {first.message}")
    r = review(rec, ruleset, seat, random.Random(seed))
    if r.error is None:
        r.dispute = next(({"step": e.step, "code": e.code, "rule": e.rule, "message": e.message}
                          for e in out.verdict.errors if e.code == "result_mismatch"), None)
    return r
