"""The engine core shared by every variant: phases, the wall, claim windows resolved by priority.

A variant subclasses :class:`GameState` and fills what the core calls (``docs/architecture.md``,
"Extension points a variant fills"): ``on_draw``, ``on_discard_phase``, ``apply_claim``,
``window_closed``, ``legal_events``, and for the views ``meld_points`` and ``win_groups``, with
each claim window's options built by its own ``start_options`` / ``window_options`` and handed to
:class:`Window`; the explain hooks, ``to_draw``, ``own_claim_allowed``, ``pending_declarations``,
``facts_extra`` and ``snapshot_seat`` have defaults it may override. The settlement is the
variant's own. The core owns turn order, draws from either end of the wall, implicit and explicit
passes, forced acts, the end-of-log checks (truncated / trailing / 荒庄), and the facts and
snapshot every variant writes.

Spec: ../shared/spec/log-format.md §4 (events, passes, forced acts, priority),
§6 (error codes).
"""

from __future__ import annotations

import copy
from typing import Any, Callable, ClassVar, Sequence, cast

try:
    import cython
except ImportError:  # no Cython: the plain-Python stand-in (replay/_cython.py)
    from replay import _cython as cython

from replay.cards import Deck
from replay.errors import RuleViolation
from replay.groups import Group
from replay.options import Ruleset
from replay.record import Event, Record


class Phase:
    """Where the game is: START (declarations before the dealer's first discard), DISCARD
    (``turn`` must discard), WINDOW (a card is open to claims), DRAW (``turn`` must draw), OVER.

    Five singletons compared with ``is``, each with the ``name`` and ``value`` of an enum member.
    Not an :class:`enum.Enum`: in Python 3.11 the enum metaclass defines ``__getattr__``, which
    makes every ``Phase.X`` a slow lookup, and the engine reads the phase several times an event.
    """

    __slots__ = ("name", "value")
    START: ClassVar[Phase]
    DISCARD: ClassVar[Phase]
    WINDOW: ClassVar[Phase]
    DRAW: ClassVar[Phase]
    OVER: ClassVar[Phase]

    def __init__(self, name: str, value: str) -> None:
        self.name, self.value = name, value

    def __repr__(self) -> str:
        return f"<Phase.{self.name}: {self.value!r}>"

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return (_phase, (self.name,))  # pickles and copies stay the same singleton


def _phase(name: str) -> Phase:
    return getattr(Phase, name)


for _name in ("START", "DISCARD", "WINDOW", "DRAW", "OVER"):
    setattr(Phase, _name, Phase(_name, _name.lower()))
# The singletons as module names, for GameState.apply (compiled, ``Phase.X`` is a class attribute
# lookup each time; apply tests the phase up to six times an event).
_START, _DISCARD, _WINDOW, _DRAW, _OVER = Phase.START, Phase.DISCARD, Phase.WINDOW, Phase.DRAW, Phase.OVER


class Option:
    """One seat's option in a claim window (or at the start of the hand).

    :param seat: who may act. :param act: spec §4 act name.
    :param key: priority, lower acts first (variant-defined tuples).
    :param forced: the seat must take it (or a higher-priority option of its own).
    :param events: every concrete legal event of this option (bots pick from these;
        the replayer matches logged events against them).
    :param rule: rule id that grants the option (for messages).

    Compiled, an extension type with its fields in C (options are made and read at every claim
    window); equal and shown as a dataclass would be.
    """


    def __init__(self, seat: int, act: str, key: tuple[int, ...], forced: bool, events: list[Event], rule: str) -> None:
        self.seat, self.act, self.key, self.forced, self.events, self.rule = seat, act, key, forced, events, rule

    def _fields(self) -> tuple:
        return (self.seat, self.act, self.key, self.forced, self.events, self.rule)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Option):
            return NotImplemented
        return self._fields() == other._fields()

    def __repr__(self) -> str:
        return (f"Option(seat={self.seat!r}, act={self.act!r}, key={self.key!r}, forced={self.forced!r}, "
                f"events={self.events!r}, rule={self.rule!r})")

    def __reduce__(self) -> tuple:
        return (Option, self._fields())


class Window:
    """A card open to claims: ``card`` (kind), ``src`` (the seat that flipped or discarded it),
    ``kind`` (``flip``, ``discard`` or ``start``), its options and the seats that passed explicitly
    (``passed``), and ``declined``: the indices of options a seat declined with a pass while its
    forced act, ranked below them, stays owed (see :meth:`GameState.on_window_event`). A frozenset,
    replaced on change, so a copied window never shares a change.

    Options may be given at once (``options``) or built on first use (``build``): most windows
    close with no claim, and then only :attr:`closing` is needed — the options that matter when
    every seat passes (forced ones, and ones whose implicit pass has an effect), which a variant
    can build more cheaply (``closing``; e.g. without the win checks of non-forced 胡). Both
    builders run while the window is open, so they see the state the window opened on.
    """


    def __init__(self, card: int, src: int, kind: str, options: list[Option] | None = None, *,
                 build: Callable[[], list[Option]] | None = None,
                 closing: Callable[[], list[Option]] | None = None) -> None:
        if (options is None) == (build is None):
            raise TypeError("give a window its options or a builder, not both")
        self.card, self.src, self.kind = card, src, kind
        self.passed: set[int] = set()
        self.declined: frozenset[int] = frozenset()
        self._options, self._build, self._closing = options, build, closing
        self._closing_options: list[Option] | None = None

    def __reduce__(self) -> tuple:  # copies (GameState.fork) alike on both kernels
        return (_window, (self.card, self.src, self.kind, self.passed, self.declined, self._options, self._build,
                          self._closing, self._closing_options))

    @property
    def options(self) -> list[Option]:
        """Every seat's options (built on first use)."""
        if self._options is None:
            assert self._build is not None
            self._options = self._build()
            self._build = self._closing = None
        return self._options

    @property
    def closing(self) -> list[Option]:
        """The options that matter when the window closes with no claim: every forced option and
        every option whose implicit pass changes the state. :attr:`options` when already built. A
        variant with no forced option may give none and apply the implicit passes itself in
        ``window_closed`` (沅江)."""
        if self._options is not None or self._closing is None:
            return self.options
        if self._closing_options is None:
            self._closing_options = self._closing()
        return self._closing_options

    @cython.locals(o=Option, i=cython.Py_ssize_t, opts=list, declined=frozenset)
    def of(self, seat: int) -> list[Option]:
        """The options of ``seat`` still open."""
        opts = self._options if self._options is not None else self.options  # built: no property call
        out: list[Option] = []
        if seat in self.passed:
            return out
        declined = self.declined
        for i in range(len(opts)):
            o = opts[i]
            if o.seat == seat and (not declined or i not in declined):
                out.append(o)
        return out

    @cython.locals(o=Option, i=cython.Py_ssize_t, opts=list, declined=frozenset, passed=set)
    def ahead_of(self, opt: Option) -> list[Option]:
        """Other seats' open options that rank before ``opt`` (they must pass first)."""
        opts = self._options if self._options is not None else self.options
        passed, declined = self.passed, self.declined
        seat, key = opt.seat, opt.key
        out: list[Option] = []
        for i in range(len(opts)):
            o = opts[i]
            if o.seat != seat and o.seat not in passed and o.key < key and (not declined or i not in declined):
                out.append(o)
        return out

    def declinable(self, seat: int) -> list[int]:
        """Indices of ``seat``'s open options that a pass declines while the seat has a forced
        option: those not forced that rank before all its forced ones (e.g. its own optional 胡
        above its forced 开舵, 001 §技巧攻略 扫穿或扫>>胡牌>>开舵或碰>>吃), so that another seat's claim
        ranked between them may come. [] when the seat has no forced option or none above it."""
        mine = [(i, o) for i, o in enumerate(self.options)
                if o.seat == seat and seat not in self.passed and i not in self.declined]
        forced = [o.key for _, o in mine if o.forced]
        if not forced:
            return []
        first = min(forced)
        return [i for i, o in mine if not o.forced and o.key < first]

    @cython.locals(o=Option, passed=set)
    def forced_open(self) -> list[Option]:
        """Forced options of seats that have not acted."""
        passed = self.passed
        out: list[Option] = []
        for o in (self._options if self._options is not None else self.closing):
            if o.forced and o.seat not in passed:
                out.append(o)
        return out


def _window(card: int, src: int, kind: str, passed: set[int], declined: frozenset[int], options: list[Option] | None,
            build: Callable[[], list[Option]] | None, closing: Callable[[], list[Option]] | None,
            closing_options: list[Option] | None) -> Window:
    """A :class:`Window` from its fields (:meth:`Window.__reduce__`)."""
    w = Window.__new__(Window)
    w.card, w.src, w.kind, w.passed, w.declined = card, src, kind, passed, declined
    w._options, w._build, w._closing, w._closing_options = options, build, closing, closing_options
    return w


def _tally(places: dict[str, list[int]], place: str, kinds: list[int], size: int) -> None:
    """Count ``kinds`` into ``places[place]`` (a count vector of ``size`` kinds), when there are any
    (:meth:`GameState.census`)."""
    if not kinds:
        return
    v = places.setdefault(place, [0] * size)
    for k in kinds:
        v[k] += 1


def _blank(cls: Any) -> Any:
    """An instance of a state class with no field set (:meth:`GameState.__reduce__`)."""
    return cls.__new__(cls)


# Spec §4: the optional fields each act takes besides `card` and `t` (which every act may carry).
# Any act not listed is a claim or a declaration. A pass's `cards`/`bi` are refused by the pass
# rule itself (paipu.pass), which names them.
EVENT_FIELDS: dict[str, frozenset[str]] = {
    "draw": frozenset({"tail", "to_hand"}),
    "discard": frozenset(),
    "hu": frozenset({"from"}),
    "pass": frozenset({"cards", "bi"}),
}
CLAIM_FIELDS = frozenset({"cards", "from", "bi"})
ZIPAI_ONLY = {"bi": "chi", "to_hand": "draw"}
"""Fields of the 字牌 family only, and the one act that takes each (spec §4: 比 groups shown with a
吃; a replacement card put into the hand)."""
_WHY = {"cards": "`cards` are the seat's own cards of a meld", "from": "`from` names the seat a claimed card came from",
        "bi": "`bi` holds the 比 groups of a 字牌-family 吃", "tail": "`tail` marks a draw from the back of the wall",
        "to_hand": "`to_hand` marks a 字牌-family replacement draw into the hand"}


def event_key(ev: Event, deck: Deck) -> tuple:
    """Canonical, order-free key of an event for matching (cards as sorted kinds).

    :raises UnknownCard: a card names no card of ``deck``.
    """
    ix = deck._index  # type: ignore[attr-defined]  # one dict lookup a card (Deck.index's own table)
    try:
        card = ix[ev.card] if ev.card is not None else None
        cards = tuple(sorted([ix[c] for c in ev.cards])) if ev.cards is not None else None
        bi = tuple(sorted([tuple(sorted([ix[c] for c in g])) for g in ev.bi])) if ev.bi else ()
    except KeyError:  # name the unknown card as Deck.index does
        for c in [ev.card, *(ev.cards or ()), *(c for g in ev.bi or () for c in g)]:
            if c is not None:
                deck.index(c)
        raise
    return (ev.seat, ev.act, card, cards, bi, ev.tail)


class GameState:
    """One game in play. Subclasses implement the variant; the core runs phases.

    Public surface (style.md: pokerkit): :meth:`apply` verifies then acts and raises
    :class:`RuleViolation` naming the rule; :meth:`legal_events` lists what may come
    next; :meth:`finish` checks the end of the log; :meth:`result` and :meth:`facts`
    give the settlement and the warehouse facts; :meth:`snapshot` the table for audits.
    """

    variant = "core"
    deck = cast(Deck, None)  # the variant's Deck: a class attribute of its state (花牌: set per hand)

    # The fields engine.pxd declares in C (compiled, they are not in ``__dict__``), and a
    # variant's state.pxd beside them: what a copy carries over besides ``__dict__``.
    C_FIELDS = ("record", "rules", "n", "dealer", "stake", "hands", "wall", "front", "back", "melds", "river",
                "phase", "turn", "window", "step", "outcome")  # type: ClassVar[tuple[str, ...]]

    def __init__(self, record: Record, ruleset: Ruleset) -> None:
        self.record = record
        self.rules = ruleset
        self.n = len(record.seats)
        self.dealer = record.dealer
        self.stake = record.stake
        d = self.deck
        self.hands: list[list[int]] = [d.counts(h) for h in record.deal.hands]
        self.wall: list[int] = d.kinds(record.deal.wall)
        self.front = 0  # next index drawn from the front
        self.back = len(self.wall)  # one past the next index drawn from the tail
        self.melds: list[list[tuple[str, tuple[int, ...]]]] = [[] for _ in range(self.n)]
        self.river: list[list[int]] = [[] for _ in range(self.n)]
        self.phase = Phase.START
        self.turn = self.dealer
        self.window: Window | None = None
        self.step = 0
        self.outcome: dict[str, Any] | None = None
        self.win: dict[str, Any] | None = None  # the winner's hand, set by the variant's 胡

    def fields(self) -> dict[str, Any]:
        """Every attribute of the state by name (:data:`C_FIELDS` and ``__dict__``), for copies."""
        d = dict(vars(self))  # vars: a compiled class may not name its __dict__
        for name in self.C_FIELDS:
            d[name] = getattr(self, name)
        return d

    def set_fields(self, d: dict[str, Any]) -> None:
        """Set every attribute of ``d`` (:meth:`fields`' inverse)."""
        for name, value in d.items():
            setattr(self, name, value)

    def __reduce__(self) -> tuple:
        """Copies (``copy``, :meth:`fork`) as of a plain object, on both kernels:
        made blank, then given the fields (deep-copied by ``deepcopy``)."""
        return (_blank, (type(self),), self.fields())

    def __setstate__(self, d: dict[str, Any]) -> None:
        self.set_fields(d)

    def fork(self) -> GameState:
        """A deep copy of this state that shares its record and ruleset (read-only).

        The open window's options are built first: a lazy window's builders are closures over the
        state they were made on, and a copy must not call back into the original.
        """
        if self.window is not None:
            self.window.options  # noqa: B018 - builds the lazy options (and drops the closures)
        memo = {id(self.record): self.record, id(self.rules): self.rules}
        return copy.deepcopy(self, memo)

    # -- helpers ---------------------------------------------------------------------------
    def xia(self, seat: int) -> int:
        """下家 of ``seat`` (spec §2: seat i's next player is (i+1) mod n)."""
        return (seat + 1) % self.n

    @property
    def wall_left(self) -> int:
        return self.back - self.front

    def fail(self, code: str, rule: str, message: str, detail: dict | None = None) -> RuleViolation:
        """The error to raise: ``code`` (spec §6), ``rule``, the message, this step, and ``detail``
        (see :class:`RuleViolation`). A state writes its own rule ids bare (``"turn"``; an
        :class:`Option`'s rule too), named here ``<variant>.turn`` by the record's variant, and the
        format's as ``paipu.<id>``, kept as written (docs/architecture.md §Rule ids)."""
        return RuleViolation(code, f"{self.variant}.{rule}" if "." not in rule else rule, message, self.step, detail)

    def card(self, code: str | None, what: str = "card") -> int:
        if code is None:
            raise self.fail("schema", "paipu.event", f"this act needs `{what}`")
        return self.deck.index(code)

    def label(self, k: int) -> str:
        """Kind ``k`` as messages name a card: ``拾 (d10)`` (:meth:`replay.cards.Deck.name`)."""
        return self.deck.name(k)

    # -- the phase machine -----------------------------------------------------------------
    def apply(self, ev: Event) -> None:
        """Verify ``ev`` against the current state, then apply it.

        :raises RuleViolation: the first rule the event breaks (code per spec §6).
        """
        ph = self.phase
        if ph is _OVER:
            raise self.fail("trailing_actions", "paipu.end", f"the hand was already over; `{ev.act}` by seat {ev.seat} follows it")
        if ev.seat >= self.n:
            raise self.fail("schema", "paipu.seat", f"seat {ev.seat} does not exist ({self.n} seats)")
        if ev.cards is not None or ev.from_ is not None or ev.bi is not None or ev.tail or ev.to_hand:
            self.check_fields(ev)  # most events (draws, discards) carry none of these
        if (ph is _WINDOW or ph is _START) and (ev.act == "draw" or not self._targets_window(ev)):
            self.close_window()
            ph = self.phase
        if ph is _OVER:
            raise self.fail("trailing_actions", "paipu.end", f"the wall is empty and the hand is drawn (荒庄); `{ev.act}` follows it")
        if ph is _WINDOW or ph is _START:
            self.on_window_event(ev)
        elif ph is _DRAW:
            self.on_draw(ev)
        elif ph is _DISCARD:
            if ev.from_ is not None and ev.from_ != ev.seat and ev.seat == self.turn:
                raise self.fail("illegal_action", "paipu.from", f"`from` is {ev.from_} but seat {ev.seat} plays its own "
                                "cards here (no card of another seat is open)")
            self.on_discard_phase(ev)
        self.step += 1

    def check_fields(self, ev: Event) -> None:
        """Spec §4: ``from``, when present, names a seat of this game; an act carries only the fields
        it takes (:data:`EVENT_FIELDS`, :data:`CLAIM_FIELDS`, :data:`ZIPAI_ONLY`). ``false`` and
        ``null`` count as absent (they are the defaults).

        :raises RuleViolation: ``schema`` / ``paipu.from`` for a ``from`` that is no seat;
            ``schema`` / ``paipu.event`` naming every field the act does not take.
        """
        if ev.from_ is not None and ev.from_ >= self.n:
            raise self.fail("schema", "paipu.from", f"`from` {ev.from_} is not a seat (0..{self.n - 1})")
        takes = EVENT_FIELDS.get(ev.act)
        if takes is None and ev.bi is None and not ev.tail and not ev.to_hand:
            return  # the common case: a claim with its cards (and maybe `from`)
        takes = takes if takes is not None else CLAIM_FIELDS
        zipai = self.deck.family == "zipai"
        given = [f for f, on in (("cards", ev.cards is not None), ("from", ev.from_ is not None),
                                 ("bi", ev.bi is not None), ("tail", ev.tail), ("to_hand", ev.to_hand)) if on]
        bad = [f for f in given if f not in takes
               or (ev.act != "pass" and f in ZIPAI_ONLY and (not zipai or ev.act != ZIPAI_ONLY[f]))]
        if bad:
            raise self.fail("schema", "paipu.event", f"`{ev.act}` does not take "
                            + ", ".join([f"`{f}`" for f in bad]) + " (spec §4: " + "; ".join([_WHY[f] for f in bad]) + ")")

    @cython.locals(w=Window)
    def _targets_window(self, ev: Event) -> bool:
        """Whether ``ev`` is meant for the open window (a pass, or a claim on its card by a seat)."""
        w = self.window
        assert w is not None
        act = ev.act
        if act == "pass":
            return True
        if act in ("draw", "discard"):
            return False
        return ev.card is None or self.deck.index(ev.card) == w.card or bool(w.of(ev.seat))

    @cython.locals(w=Window, o=Option)
    def on_window_event(self, ev: Event) -> None:
        """A pass or a claim in the open window (or the start window)."""
        w = self.window
        assert w is not None
        mine = w.of(ev.seat)
        if ev.act == "pass":
            if not mine:
                raise self.fail("illegal_action", "paipu.pass", f"seat {ev.seat} has no option to pass on")
            forced = [o for o in mine if o.forced]
            above = w.declinable(ev.seat) if forced else []
            if forced and not above:
                raise self.fail("missing_forced_action", forced[0].rule,
                                f"seat {ev.seat} passed its forced `{forced[0].act}` on {self.label(w.card)}")
            if ev.cards or ev.bi:  # a pass declines the open card: it may name that card, nothing else
                raise self.fail("illegal_action", "paipu.pass", f"seat {ev.seat}'s pass names `cards` or `bi`: a pass "
                                "names at most the card it declines")
            if ev.card is not None and (w.kind == "start" or self.card(ev.card) != w.card):
                raise self.fail("illegal_action", "paipu.pass", f"seat {ev.seat}'s pass names {ev.card}, " + (
                    f"but the open card is {self.label(w.card)}" if w.kind != "start" else "at the start of the hand"))
            if above:  # the seat declines the options above its forced act, which stays owed (spec §4)
                w.declined = w.declined | frozenset(above)
                return
            w.passed.add(ev.seat)
            return
        act = ev.act
        opts = [o for o in mine if o.act == act]
        if not opts:
            self.explain_missing_option(ev, w, mine)
            raise self.fail("out_of_turn" if not mine else "illegal_action", "paipu.turn",
                            f"seat {ev.seat} may not `{ev.act}` now" + (f" (its options: {', '.join(sorted({o.act for o in mine}))})" if mine else ""))
        match = self._matching_option(ev, opts)
        if match is None:
            self.explain_bad_event(ev, w, opts)
            raise self.fail("illegal_action", opts[0].rule, f"seat {ev.seat} `{ev.act}` with these cards is not legal here")
        if ev.from_ is not None and ev.from_ != (ev.seat if w.kind == "start" else w.src):
            raise self.fail("illegal_action", "paipu.from", f"`from` is {ev.from_} but " + (
                f"the card came from seat {w.src}" if w.kind != "start" else
                f"at the start of the hand seat {ev.seat} claims only its own cards"))
        ahead = w.ahead_of(match)
        forced = [o for o in ahead if o.forced]
        if forced:
            raise self.fail("missing_forced_action", forced[0].rule,
                            f"seat {forced[0].seat} had to `{forced[0].act}` {self.label(w.card)} before seat {ev.seat} could `{ev.act}`")
        if ahead:
            o = ahead[0]
            raise self.fail("priority_violation", "paipu.priority",
                            f"seat {ev.seat} `{ev.act}` while seat {o.seat}'s `{o.act}` ranks higher and was not passed")
        self.window = None
        self.apply_claim(match, ev, w)

    @cython.locals(o=Option)
    def _matching_option(self, ev: Event, opts: list[Option]) -> Option | None:
        """The first option with an event whose :func:`event_key` is ``ev``'s, or None. An event
        with the very same fields has the same key, so an option's events are first checked for
        that (a logged event usually repeats the engine's own spelling), and their keys built only
        when none is; ``ev``'s fields are read once."""
        card, cards, bi, tail, seat, act = ev.card, ev.cards, ev.bi, ev.tail, ev.seat, ev.act
        key = None
        for o in opts:
            evs = o.events
            for e in evs:
                if (e.card == card and e.cards == cards and e.bi == bi and e.tail == tail
                        and e.seat == seat and e.act == act):
                    return o
            for e in evs:
                if key is None:
                    key = event_key(ev, self.deck)
                if event_key(e, self.deck) == key:
                    return o
        return None

    @cython.locals(w=Window, o=Option)
    def close_window(self) -> None:
        """Close the open window with no claim (every open option passed implicitly).

        :raises RuleViolation: ``missing_forced_action`` when a forced option was open.
        """
        w = self.window
        assert w is not None
        forced = w.forced_open()
        if forced:
            o = forced[0]
            raise self.fail("missing_forced_action", o.rule,
                            f"seat {o.seat} had to `{o.act}` {self.label(w.card) if w.kind != 'start' else ''} here".replace("  ", " "))
        self.window = None
        self.window_closed(w)

    def finish(self, n_actions: int) -> None:
        """The log ended: close what the rules close, else ``truncated``.

        :raises RuleViolation: ``missing_forced_action`` or ``truncated`` at step ``n_actions``.
        """
        self.step = n_actions
        if self.phase is Phase.WINDOW and self.window is not None and self.window.kind != "start":
            self.close_window()
        if self.phase is not Phase.OVER:
            raise self.fail("truncated", "paipu.end", f"the actions stop in phase {self.phase.value} (seat {self.turn}); the hand is not over")

    # Keys a variant's settlement has beyond spec §5's common ones, and their value on a drawn hand
    # (e.g. {"xing": None} in the 字牌 family, {"jing": None, "bao": None} in 花牌).
    draw_result_extra = {}  # type: ClassVar[dict[str, Any]]

    def end_draw(self) -> None:
        """荒庄: the wall is empty and nobody won; nobody pays."""
        self.phase = Phase.OVER
        self.win = None
        self.outcome = {"outcome": "draw", "winner": None, "win_card": None, "from": None, "points": None,
                        "hand_types": [], **self.draw_result_extra, "units": 0, "breakdown": None,
                        "scores": [0] * self.n}

    def to_draw(self, seat: int) -> None:
        """``seat`` draws next, or 荒庄 when the wall is empty."""
        if self.back == self.front:  # wall_left == 0, without the property call
            self.end_draw()
        else:
            self.phase, self.turn = _DRAW, seat

    # -- extension points --------------------------------------------------------------------
    def on_draw(self, ev: Event) -> None:  # pragma: no cover - variant
        raise NotImplementedError

    def on_discard_phase(self, ev: Event) -> None:  # pragma: no cover - variant
        raise NotImplementedError

    def apply_claim(self, opt: Option, ev: Event, w: Window) -> None:  # pragma: no cover - variant
        raise NotImplementedError

    def window_closed(self, w: Window) -> None:  # pragma: no cover - variant
        raise NotImplementedError

    def explain_missing_option(self, ev: Event, w: Window, mine: list[Option]) -> None:
        """Raise a more precise error than out_of_turn/illegal_action when the variant can."""

    def explain_bad_event(self, ev: Event, w: Window, opts: list[Option]) -> None:
        """Raise a more precise error for an option taken with the wrong cards."""

    def pending_declarations(self) -> list[Event]:
        """Forced start-of-hand events still owed, in order (e.g. laying down dealt fours); the
        simulator plays them before the start window. Default: none."""
        return []

    def result(self) -> dict[str, Any]:
        """The computed settlement (spec §5), every key present."""
        assert self.outcome is not None
        return self.outcome

    def won(self) -> dict[str, Any]:
        """The winner's hand (:attr:`win`) of a hand that ended in a 胡."""
        if self.win is None:
            raise ValueError("the hand has no winner")
        return self.win

    # -- card conservation -------------------------------------------------------------------
    def census(self) -> dict[str, list[int]]:
        """Where the cards are now, a count vector by place: each seat's ``hand s``, ``melds s`` and
        ``river s``, the ``wall`` not yet drawn (``wall[front:back]``), the ``open card`` of a claim
        window (a flip or discard no river or meld has taken yet), then the variant's own places
        (:meth:`census_elsewhere`). Places that hold nothing are left out. Every card of the deck is
        in exactly one of them after every event (:meth:`unconserved` says where not)."""
        size = len(self.deck.codes)
        places: dict[str, list[int]] = {}
        for s in range(self.n):
            if any(self.hands[s]):
                places[f"hand {s}"] = list(self.hands[s])
        for s in range(self.n):
            _tally(places, f"melds {s}", [k for _, cards in self.melds[s] for k in cards], size)
        for s in range(self.n):
            _tally(places, f"river {s}", self.river[s], size)
        _tally(places, "wall", self.wall[self.front:self.back], size)
        w = self.window
        if w is not None and w.kind != "start":
            _tally(places, "open card", [w.card], size)
        for place, kinds in self.census_elsewhere().items():
            _tally(places, place, kinds, size)
        return places

    def census_elsewhere(self) -> dict[str, list[int]]:
        """The variant's cards outside hands, melds, rivers, the wall and the open card, as kinds by
        place (e.g. ``won on``: the discard a 胡 took, which joins no hand). Default: none."""
        return {}

    def unconserved(self) -> list[str]:
        """One message a kind whose cards the :meth:`census` does not count as the deck holds them:
        the kind, its count, the deck's copies and each place it was counted. [] when every card of
        the deck is in exactly one place."""
        places = self.census()
        out: list[str] = []
        for k, copies in enumerate(self.deck.copies):
            where = [(place, v[k]) for place, v in places.items() if v[k]]
            n = sum([c for _, c in where])
            if n != copies:
                out.append(f"{self.label(k)}: {n} counted, the deck holds {copies} ("
                           + (", ".join([f"{place}: {c}" for place, c in where]) or "nowhere") + ")")
        return out

    # -- views: the warehouse's facts and the audit's table -------------------------------------
    tail_note = ""
    """What the audit's options add to a draw from the back of the wall (花牌 `` (tail)``, 上大人
    `` (腰牌)``)."""

    def meld_points(self, kind: str, cards: Sequence[int], settled: bool = False) -> int:  # pragma: no cover - variant
        """Points of a meld on the table (胡, 息 or 個子, as the variant's :class:`~replay.groups.Group`
        counts them). ``settled``: for the facts of the finished hand (上大人 counts the winner's 主精
        there), else for the table in play."""
        raise NotImplementedError

    def win_groups(self) -> Sequence[Group] | None:  # pragma: no cover - variant
        """The winner's split, melds first, when a 胡 settled the hand; else None."""
        raise NotImplementedError

    def facts_extra(self) -> dict[str, Any]:
        """The variant's own facts, after the common ones (醒, 精, 個子, …). Default: none."""
        return {}

    def facts(self) -> dict[str, Any]:
        """Variant-neutral facts for the warehouse (docs/warehouse.md): ``win_kind``; ``melds``, every
        seat's melds on the table with their points (:meth:`meld_points`), the winner's replaced by
        its split (:meth:`win_groups`, last); ``hands``, ``discards`` (codes) and ``wall_left``; then
        :meth:`facts_extra`."""
        deck = self.deck
        codes_of = deck.codes_of
        groups = self.win_groups()
        ws = self.win["seat"] if groups is not None and self.win is not None else -1
        melds = [{"seat": s, "kind": k, "cards": codes_of(cards), "points": self.meld_points(k, cards, True),
                  "origin": "table"} for s in range(self.n) if s != ws for k, cards in self.melds[s]]
        if groups is not None:
            melds += [{"seat": ws, "kind": g.kind, "cards": codes_of(g.cards), "points": g.points, "origin": g.origin}
                      for g in groups]
        return {
            "win_kind": self.win["kind"] if self.win else None,
            "melds": melds,
            "hands": [deck.expand(h) for h in self.hands],
            "discards": [codes_of(r) for r in self.river],
            "wall_left": self.wall_left,
            **self.facts_extra(),
        }

    def snapshot_seat(self, seat: int) -> dict[str, Any]:
        """What the audit's table shows of ``seat`` between its player and its options: its hand,
        its melds with their points and its discards. A variant may show more (沅江: 理牌 and 锁牌)."""
        codes_of = self.deck.codes_of
        return {"hand": self.deck.expand(self.hands[seat]),
                "melds": [{"kind": k, "cards": codes_of(c), "points": self.meld_points(k, c)} for k, c in self.melds[seat]],
                "discards": codes_of(self.river[seat])}

    def snapshot(self) -> dict[str, Any]:
        """The table now, for the audit view: ``phase``, ``turn``, ``wall_left`` and per seat its
        ``player``, :meth:`snapshot_seat` and ``options``: its legal next events as text (a forced
        one marked ``(forced)``)."""
        opts: dict[int, list[str]] = {s: [] for s in range(self.n)}
        for e in self.legal_events():
            txt = e.act + (f" {e.card}" if e.card else "") + (f" with {'+'.join(e.cards)}" if e.cards else "")
            if e.bi:
                txt += " 比 " + " ".join("".join(g) for g in e.bi)
            if e.tail:
                txt += self.tail_note
            opts[e.seat].append(txt)
        if self.window is not None:
            for o in self.window.forced_open():
                opts[o.seat] = [t + " (forced)" if t.startswith(o.act) else t for t in opts[o.seat]]
        return {
            "phase": self.phase.value,
            "turn": self.turn,
            "wall_left": self.wall_left,
            "seats": [{"seat": s, "player": self.record.seats[s], **self.snapshot_seat(s), "options": opts[s]}
                      for s in range(self.n)],
        }

    def legal_events(self) -> list[Event]:  # pragma: no cover - variant
        raise NotImplementedError

    def window_events(self) -> list[Event]:
        """The open window's events that :meth:`apply` accepts next: the claims of seats that have
        not acted and that no other seat's open option ranks before (spec §4 priority: those must
        pass first), then a pass for each seat with an open option and none forced (a forced
        option cannot be passed). A variant's :meth:`legal_events` adds its closing events (the
        next draw, the dealer's first discard) and its own limits (:meth:`own_claim_allowed`).

        :returns: events in option order, then passes by seat.
        """
        w = self.window
        assert w is not None
        live = [o for i, o in enumerate(w.options) if o.seat not in w.passed and i not in w.declined]
        evs = [e for o in live if not w.ahead_of(o) and self.own_claim_allowed(o, w) for e in o.events]
        forced = {o.seat for o in live if o.forced}
        evs += [Event(seat=s, act="pass") for s in sorted({o.seat for o in live})
                if s not in forced or w.declinable(s)]
        return evs

    def closing_draw(self) -> list[Event]:
        """The draw that closes the open window with no claim, as a one-event list: the state after
        :meth:`close_window` (on a copy) is then in its draw phase. ``[]`` when a forced option is
        open (it cannot be passed), at the start window (the dealer's discard closes it), or when
        closing ends the hand (荒庄) or leads elsewhere.

        For a variant's :meth:`legal_events`: spec §4, an unclaimed card is passed implicitly by
        the next draw."""
        w = self.window
        if w is None or w.kind == "start" or w.forced_open():
            return []
        nxt = self.fork()
        nxt.close_window()
        if nxt.phase is not Phase.DRAW:
            return []
        return [e for e in nxt.legal_events() if e.act == "draw"]

    def own_claim_allowed(self, opt: Option, w: Window) -> bool:
        """Whether a seat may take ``opt`` beside its own other options in ``w`` (default: yes; a
        variant whose forced act may not be left out for a lower claim of the same seat says no)."""
        return True
