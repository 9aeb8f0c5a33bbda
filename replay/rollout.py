"""The rule-aware bot: choices by the expected settlement under the ruleset being played.

The heuristic bots choose by hand shape, so a rule that changes what a hand is worth (自摸 ×2, a
higher 醒 value, a 放炮 penalty) cannot change how they play. :class:`RolloutBot` asks the engine
instead. At a decision with two candidates or more — take or leave an optional claim (胡
included), and, when :attr:`RolloutBot.discards` > 1, the heuristic's discard against its next
best (off by default: it did not pay, bench/README.md) — it

1. samples worlds the seat cannot tell from the real one (:func:`world`: the cards it cannot see,
   every other seat's concealed cards and the wall still to come, shuffled back into the same
   places; the seat's own hand, every meld, river and counter kept),
2. plays each candidate in each world and rolls the game out with the heuristic bots at every
   seat (:func:`run_out`, the simulator's own loop), the same random streams for every candidate
   (common random numbers: the paired difference is what decides),
3. settles with the engine's own settlement (``state.result()["scores"]``) and keeps the
   heuristic's choice unless another's paired gain is surely positive (:attr:`RolloutBot.z`
   standard errors above :attr:`RolloutBot.margin`).

Nothing here knows a variant's rules: candidates come from the variant's heuristic bot, legality
and the settlement from its state. A variant's ``bots.py`` names its heuristic bot and, where its
state keeps facts derived from concealed cards, says what is public (:meth:`RolloutBot.known`) and
how the sampled hands re-derive them (:meth:`RolloutBot.resampled`).

Information: a world is built from the seat's view only — its own hand, what is public, and the
sorted multiset of the cards it cannot see — and the random stream of the bot; two states that the
seat sees alike give the same worlds and so the same choice (tests/test_rollout.py). An open claim
window is rebuilt for the sampled hands (the variant's ``window_options``), so the other seats'
options there come from the sampled cards, never from the real ones; a world in which a seat ranked
before the deciding seat would have had to act (a forced option) is not the real one and is drawn
again.

Deterministic for a seed: every random choice comes from the bot's own ``random.Random``.
"""

from __future__ import annotations

import inspect
import random
from operator import attrgetter
from typing import Any, Callable, Sequence

from replay.engine import GameState, Option, Phase, Window
from replay.errors import RuleViolation
from replay.record import Event

_BY_KEY = attrgetter("key")

# Where it is measured stronger than the heuristic bot is said in replay.bots.STRONGER (nowhere, for
# this bot: bench/README.md; the expected-value bot, replay/evbot.py, is its successor).


class Unfinished(Exception):
    """A rollout ran past its step cap (never expected: a hand ends when the wall is empty)."""


def decide_window(state: GameState, bots: list, w: Window, start: int = 0) -> list[Event]:
    """The events that answer the open window ``w``: the bots are asked option by option in
    priority order (from the ``start``-th option on; those before it declined); the first claim is
    preceded by explicit passes of the seats ranked above it. Empty when nobody claims (the caller
    closes the window). The simulator's and the rollouts' one reading of a window."""
    opts = sorted(w.options, key=_BY_KEY)
    for opt in opts[start:]:
        ev = bots[opt.seat].claim(state, opt.seat, opt)
        if ev is not None:
            return [*(Event(seat=s, act="pass") for s in sorted({o.seat for o in w.options
                                                                  if o.seat != opt.seat and o.key < opt.key})), ev]
    return []


def next_events(state: GameState, bots: list) -> list[Event]:
    """The events the bots play next from ``state`` (not OVER): a declaration owed, a draw, a
    discard-phase choice, or a window's answer (passes, then a claim). A window nobody claims is
    closed here (and at the start window the dealer's discard follows). The caller applies them."""
    phase = state.phase
    owed = state.pending_declarations() if phase is Phase.START else None
    if owed:
        return [owed[0]]
    if phase is Phase.DRAW:
        return [state.legal_events()[0]]
    if phase is Phase.DISCARD:
        s = state.turn
        return [bots[s].discard(state, s, state.legal_events())]
    w = state.window
    assert w is not None
    evs = decide_window(state, bots, w)
    if evs:
        return evs
    state.close_window()
    if w.kind != "start":
        return []
    s = state.dealer
    return [bots[s].discard(state, s, state.legal_events())]


def run_out(state: GameState, bots: list, max_steps: int, horizon: int | None = None) -> list[int]:
    """Play ``state`` to the end with ``bots`` (one per seat); the settlement's ``scores`` (units).

    :param horizon: stop after this many events with nobody paid yet (every score 0): the rollout
        measures what the next plies bring, not the far future's luck.
    :raises Unfinished: more than ``max_steps`` events.
    :raises RuleViolation: a bot chose an event the engine refuses (a world the sampled hands
        cannot explain; the caller drops it).
    """
    apply = state.apply
    steps = 0
    while state.phase is not Phase.OVER:
        for ev in next_events(state, bots):
            apply(ev)
            steps += 1
        if horizon is not None and steps >= horizon and state.phase is not Phase.OVER:
            return [0] * state.n
        if steps > max_steps:
            raise Unfinished(max_steps)
    return state.result()["scores"]


def _reopen(state: GameState) -> Callable[[Window], list[Option]]:
    """How the state's class builds a window's options: ``window_options(card, src, kind)`` or
    ``window_options(card, src)`` (the two signatures of the variants)."""
    fn = state.window_options  # type: ignore[attr-defined]
    params = [p for p in inspect.signature(fn).parameters.values() if p.default is inspect.Parameter.empty]
    if len(params) >= 3:
        return lambda w: fn(w.card, w.src, w.kind)
    return lambda w: fn(w.card, w.src)


class RolloutBot:
    """Chooses by the mean settlement of rollouts in sampled worlds (module docstring).

    A variant's ``bots.py`` subclasses it with :attr:`heuristic` set (its heuristic bot class) and,
    where needed, :meth:`known` / :meth:`resampled`. ``stats`` counts what it did (decisions
    searched, changed from the heuristic's choice, worlds drawn and dropped).

    :param rng: the bot's random stream (the simulator's per-seat ``random.Random``).
    """

    heuristic: type
    worlds = 16
    """Sampled worlds per decision at most (each candidate is rolled out once in each)."""
    batch = 4
    """Worlds between two looks at the running gains (:meth:`_value` stops early)."""
    discards = 1
    """Discard candidates: the heuristic's choice and its choice without the earlier ones (1: the
    heuristic's discard is played as it is — measured in bench/README.md, searching discards did
    not pay: their paired gains are small against the rollouts' spread)."""
    margin = 0.0
    """Units a candidate must beat the heuristic's choice by (the lower bound below)."""
    z = 2.5
    """How sure the change must be: the mean paired gain over the worlds less ``z`` standard errors
    must exceed :attr:`margin`. Few worlds give noisy means, and sampled hands are weaker than the
    real ones (they were never shaped by play), so a plain best mean would trade sure units (a 胡
    now) for lucky rollouts."""
    horizon: int | None = None
    """Events a rollout plays before it stops unsettled (units 0 for every seat); None: to the end."""
    max_steps = 600
    """Events per rollout before it is abandoned (a hand ends long before: the wall runs out)."""
    redraws = 3
    """Draws of a world before a decision falls back to the heuristic's choice."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.h = self.heuristic(random.Random(rng.getrandbits(64)))
        self.stats = {"searched": 0, "changed": 0, "worlds": 0, "dropped": 0}

    # -- what the seat may see -------------------------------------------------------------
    def known(self, state: GameState, s: int) -> list[int] | None:
        """Count vector of seat ``s``'s concealed cards that are public (e.g. 個子 撿 cards, taken
        from a discard in view of all), kept in place when a world is drawn. Default: none."""
        return None

    def resampled(self, state: GameState, seat: int) -> None:
        """Re-derive what the variant's state keeps from the other seats' concealed cards after
        :func:`world` changed them (a fork of the real state; ``seat`` is the one deciding).
        Default: nothing."""

    def world(self, state: GameState, seat: int, rng: random.Random) -> GameState | None:
        """A copy of ``state`` with every card ``seat`` cannot see shuffled back: the other seats'
        concealed cards (less :meth:`known`) and the wall between ``front`` and ``back``, drawn from
        the sorted multiset of those cards with ``rng``; each seat keeps its number of cards, the
        wall its length. An open claim window is rebuilt for the new hands; None when that window
        has a forced option of another seat ranked before ``seat``'s (not the real world)."""
        st = state.fork()
        n = st.n
        others = [s for s in range(n) if s != seat]
        pool: list[int] = []
        keep: dict[int, list[int]] = {}
        sizes: dict[int, int] = {}
        for s in others:
            h = st.hands[s]
            kn = self.known(st, s)
            keep[s] = list(kn) if kn is not None else [0] * len(h)
            for k, c in enumerate(h):
                c -= keep[s][k]
                if c:
                    pool.extend([k] * c)
            sizes[s] = sum(h) - sum(keep[s])
        wall = st.wall
        pool.extend(wall[st.front:st.back])
        pool.sort()  # the seat's view: which cards, never where they are
        rng.shuffle(pool)
        pos = 0
        for s in others:
            h = list(keep[s])
            for k in pool[pos:pos + sizes[s]]:
                h[k] += 1
            pos += sizes[s]
            st.hands[s] = h
        st.wall = [*wall[:st.front], *pool[pos:], *wall[st.back:]]
        self.resampled(st, seat)
        w = st.window
        if w is not None and w.kind != "start":
            opts = _reopen(st)(w)
            nw = Window(w.card, w.src, w.kind, opts)
            nw.passed = set(w.passed)
            st.window = nw
        return st

    # -- decisions -------------------------------------------------------------------------
    def _value(self, state: GameState, seat: int, plays: Sequence[Callable[..., None]],
               check: Callable[[GameState], bool] | None = None) -> list[list[int]]:
        """Units of ``seat`` after each play (``play(world copy, rollout bots)``, then the rollout),
        one list per world played (at most :attr:`worlds`; a world that cannot be played is
        dropped). Every :attr:`batch` worlds, the search stops when no candidate is ahead of the
        first (most decisions: the heuristic's choice stands)."""
        out: list[list[int]] = []
        for _ in range(self.worlds):
            for _try in range(self.redraws):
                wrng = random.Random(self.rng.getrandbits(64))
                st = self.world(state, seat, wrng)
                if st is not None and (check is None or check(st)):
                    break
                st = None
            self.stats["worlds"] += 1
            if st is None:
                self.stats["dropped"] += 1
                continue
            bseed = self.rng.getrandbits(64)
            vals = []
            try:
                for play in plays:
                    b = st if play is plays[-1] else st.fork()
                    bots = [self.heuristic(random.Random(f"{bseed}:{s}")) for s in range(b.n)]
                    play(b, bots)
                    vals.append(run_out(b, bots, self.max_steps, self.horizon)[seat])
            except (RuleViolation, Unfinished):
                self.stats["dropped"] += 1
                continue
            out.append(vals)
            if len(out) % self.batch == 0 and not any(sum(w[i] - w[0] for w in out) > 0 for i in range(1, len(plays))):
                break  # no candidate is ahead of the heuristic's: it will not pass the bar below
        return out

    def _pick(self, worlds: list[list[int]], cands: list[Any]) -> Any:
        """The candidate to play: the first (the heuristic's) unless another's paired gain over it
        is surely positive (:attr:`z`, :attr:`margin`); of several such, the best lower bound."""
        self.stats["searched"] += 1
        k = len(worlds)
        best, best_lb = 0, self.margin
        for i in range(1, len(cands)):
            if k < 2:
                break
            d = [w[i] - w[0] for w in worlds]
            m = sum(d) / k
            se = (sum((x - m) ** 2 for x in d) / (k - 1) / k) ** 0.5
            lb = m - self.z * se
            if lb > best_lb:
                best, best_lb = i, lb
        if best:
            self.stats["changed"] += 1
        return cands[best]

    def discard(self, state: GameState, seat: int, events: list[Event]) -> Event:
        """The discard-phase event: the heuristic's unless a discard candidate rolls out better; a
        non-discard act the heuristic picks (胡, 扎, 溜, …) is played as it is."""
        first = self.h.discard(state, seat, events)
        if first.act != "discard":
            return first
        cands = [first]
        rest = [e for e in events if e.act == "discard"]
        while len(cands) < self.discards:
            rest = [e for e in rest if e.card != cands[-1].card]
            if not rest:
                break
            try:
                nxt = self.h.discard(state, seat, rest)
            except StopIteration:  # a heuristic that picks from the hand, not from the events given
                break
            if nxt not in rest:
                break
            cands.append(nxt)
        if len(cands) < 2:
            return first
        plays = [(lambda st, bots, e=e: st.apply(e)) for e in cands]
        return self._pick(self._value(state, seat, plays), cands)

    def claim(self, state: GameState, seat: int, opt: Option) -> Event | None:
        """Take or leave an optional claim (胡 included) by the rollouts; a forced one is taken as
        the heuristic takes it; at the start window (declarations) the heuristic decides."""
        first = self.h.claim(state, seat, opt)
        w = state.window
        if opt.forced or w is None or w.kind == "start":
            return first
        alt = None if first is not None else opt.events[0]
        cands = [first, alt]

        def mine(st: GameState) -> tuple[Window, int, Option] | None:
            nw = st.window
            assert nw is not None
            order = sorted(nw.options, key=_BY_KEY)
            for i, o in enumerate(order):
                if o.seat == seat and o.act == opt.act:
                    return nw, i, o
            return None

        def check(st: GameState) -> bool:  # the seats ranked before ours declined: none was forced
            got = mine(st)
            if got is None:
                return False
            nw, i, _ = got
            return not any(o.forced and o.seat != seat for o in sorted(nw.options, key=_BY_KEY)[:i])

        def play(st: GameState, bots: list, ev: Event | None) -> None:
            nw, i, o = mine(st)  # type: ignore[misc]
            if ev is not None:
                for s in sorted({x.seat for x in nw.options if x.seat != seat and x.key < o.key}):
                    st.apply(Event(seat=s, act="pass"))
                st.apply(ev)
                return
            evs = decide_window(st, bots, nw, start=i + 1)  # the window's later options answer
            if not evs:
                st.close_window()
            for e in evs:
                st.apply(e)

        plays = [(lambda st, bots, ev=ev: play(st, bots, ev)) for ev in cands]
        return self._pick(self._value(state, seat, plays, check), cands)


def rollout_bot(heuristic: type, **overrides: Any) -> type:
    """A :class:`RolloutBot` class over ``heuristic`` (a variant's heuristic bot class), with class
    attributes ``overrides`` (``worlds``, ``discards``, ``margin``, …)."""
    return type(f"Rollout{heuristic.__name__}", (RolloutBot,), {"heuristic": heuristic, **overrides})
