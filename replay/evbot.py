"""The expected-value bot: choices by what the seat's hand is worth under the ruleset.

The heuristic bots choose by hand shape alone; :class:`RolloutBot` (replay/rollout.py) asks the
engine through full rollouts, which are slow and noisy (bench/README.md).
:class:`EVBot` asks the engine one cheaper question instead: *once ready (听), what does this hand
win, and how likely is its winning card to come?* At a decision it values each candidate's
resulting hand by

    W(hand) = Σ_k live_k / unseen · Σ_src p_src · gain_src(k)

where ``k`` runs over the hand's waits, ``gain_src(k)`` is what the seat is paid when it wins on
``k`` from ``src`` (自摸 ``self``, another seat's flip ``flip``, a discard ``discard``: the variant's
:attr:`EVBot.sources` and their weights), judged by the variant's own judge — the spec §8 score
case of the hand with ``win_card`` k, turned into an engine position and settled by the engine
(:func:`replay.judge.judge`, what ``paipu score`` runs: no second scorer) — and ``live_k`` counts the
copies of ``k`` the seat cannot see (deck less its own hand, every meld, every river and the open
card). 自摸 and 放炮 are valued apart, so an option such as guilin ``zimo_bonus`` changes play.

Decisions (the heuristic's choice stands unless a ready hand says otherwise):

- **discard**: when some discard leaves a ready hand, the discard of highest ``W`` (the heuristic's
  on a tie); else the heuristic's;
- **optional claim** (吃, 碰, 對, …): on a copy of the state the claim is applied by the engine
  (passes of the seats ranked above first) and the hand after its best discard valued; claimed
  when that beats the hand as it is (``W`` now), declined when it is worse; the heuristic decides
  when neither is ready;
- forced acts, 胡, declarations and non-discard turn acts (扎, 開泛, …): the heuristic's.

Information: only the seat's view — its own hand, every meld, river and the open card, the
ruleset — enters ``W``; the wall and the other hands never do (tests/test_evbot.py rearranges
them and checks the choice). Deterministic: no randomness of its own beyond the heuristic's.
Memoised per ruleset on (hand, melds, dealer?): the judge runs once per distinct hand.
"""

from __future__ import annotations

import random
from typing import Any, Sequence

from replay import variants
from replay.engine import GameState, Option, Phase
from replay.errors import RuleViolation
from replay.judge import Exhausted, judge
from replay.record import Event

_MEMO: dict[str, dict[tuple, tuple[tuple[int, tuple[float, ...]], ...]]] = {}
_MEMO_MAX = 200_000  # hands kept per ruleset before the memo starts afresh

Melds = Sequence[tuple[str, Sequence[int]]]


class EVBot:
    """Chooses by the expected settlement of ready hands (module docstring).

    A variant's ``bots.py`` subclasses it with :attr:`heuristic` (its heuristic bot class),
    :attr:`sources` and, for speed, :meth:`may_win` (its engine's cheap shape test). ``stats``
    counts decisions where ``W`` decided (``valued``) and where it changed the heuristic's choice.

    :param rng: the bot's random stream (the simulator's per-seat ``random.Random``); only the
        heuristic inside draws from it.
    """

    heuristic: type
    sources: dict[str, float] = {"self": 0.34, "discard": 0.66}
    """``win_from`` of a score case → the share of winning cards that come that way (the weights
    of ``gain_src``; a variant sets its own)."""
    claim_margin = 0.0
    """How much ``W`` after a claim must beat ``W`` now (units weighted as above)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.h = self.heuristic(random.Random(rng.getrandbits(64)))
        self.stats = {"valued": 0, "changed": 0, "judged": 0}

    # -- what a hand is worth ---------------------------------------------------------------
    def case(self, state: GameState, seat: int, hand: Sequence[int], melds: Melds) -> dict[str, Any]:
        """The spec §8 score case of ``seat`` holding ``hand`` (count vector) and ``melds``, without
        ``win_card``: only what the seat knows (its dealer flag; never the wall's 醒 cards)."""
        deck = state.deck
        return {"variant": state.rules.variant, "rules": dict(state.rules.values), "hand": deck.expand(hand),
                "melds": [{"kind": k, "cards": deck.codes_of(cards)} for k, cards in melds],
                "context": {"dealer": seat == state.dealer}}

    def view_key(self, state: GameState, seat: int) -> tuple:
        """What else of the seat's own state :meth:`case` reads (a memo key part). Default: ()."""
        return ()

    def may_win(self, state: GameState, seat: int, hand: Sequence[int], melds: Melds, k: int) -> bool:
        """Whether ``hand`` + ``k`` may be a win at all (a cheap filter before the judge; it must
        never say no to a win the judge would accept). Default: yes."""
        return True

    def gains(self, state: GameState, seat: int, hand: Sequence[int], melds: Melds) -> tuple[tuple[int, tuple[float, ...]], ...]:
        """The waits of ``hand`` with ``melds``: ``((k, (gain per source, in :attr:`sources` order)),
        ...)``, a gain being the seat's score (units) when the engine settles its win on ``k`` from
        that source, 0 where the judge refuses it. Memoised per ruleset."""
        key = (tuple(hand), tuple((m, tuple(c)) for m, c in melds), seat == state.dealer, self.view_key(state, seat))
        memo = _MEMO.setdefault(state.rules.id + state.rules.variant, {})
        got = memo.get(key)
        if got is not None:
            return got
        spec = variants.get(state.rules.variant)
        assert spec.position is not None
        base = self.case(state, seat, hand, melds)
        ruleset = state.rules
        out = []
        for k, code in enumerate(state.deck.codes):
            if not self.may_win(state, seat, hand, melds, k):
                continue
            row = []
            for src in self.sources:
                try:
                    pos = spec.position({**base, "win_card": code, "win_from": src}, ruleset)
                except (Exhausted, ValueError):
                    row.append(0.0)
                    continue
                self.stats["judged"] += 1
                j = judge(pos)
                row.append(float(j.outcome["scores"][pos.seat]) if j.win and j.outcome else 0.0)
            if any(row):
                out.append((k, tuple(row)))
        if len(memo) >= _MEMO_MAX:
            memo.clear()
        got = memo[key] = tuple(out)
        return got

    def live(self, state: GameState, seat: int) -> list[int]:
        """Copies of each kind ``seat`` cannot see: the deck less its own hand, every meld, every
        river and the open window's card."""
        left = list(state.deck.copies)
        for k, c in enumerate(state.hands[seat]):
            left[k] -= c
        for ms in state.melds:
            for _, cards in ms:
                for k in cards:
                    left[k] -= 1
        for r in state.river:
            for k in r:
                left[k] -= 1
        w = state.window
        if w is not None and w.kind != "start" and w.card >= 0:
            left[w.card] -= 1
        return [max(0, x) for x in left]

    def worth(self, state: GameState, seat: int, hand: Sequence[int], melds: Melds, live: list[int]) -> float:
        """``W``: the expected gain of a winning card of the ready ``hand`` (0 when not ready)."""
        g = self.gains(state, seat, hand, melds)
        if not g:
            return 0.0
        unseen = sum(live) or 1
        ws = tuple(self.sources.values())
        return sum(live[k] * sum(p * x for p, x in zip(ws, row)) for k, row in g) / unseen

    def discard_worths(self, state: GameState, seat: int, hand: list[int], melds: Melds, kinds: Sequence[int],
                       live: list[int]) -> list[tuple[int, float]]:
        """Each kind of ``kinds`` with ``W`` of the hand its discard leaves: what :meth:`discard` and a
        claim's best discard compare, and what a review (replay/review.py) shows."""
        out = []
        for k in kinds:
            hand[k] -= 1
            out.append((k, self.worth(state, seat, hand, melds, live)))
            hand[k] += 1
        return out

    def best_discard(self, state: GameState, seat: int, hand: list[int], melds: Melds, cards: list[int],
                     live: list[int]) -> tuple[int | None, float]:
        """The kind among ``cards`` whose discard leaves the highest ``W`` and that ``W`` (None, 0.0
        when no discard leaves a ready hand)."""
        best, best_w = None, 0.0
        for k, w in self.discard_worths(state, seat, hand, melds, cards, live):
            if w > best_w:
                best, best_w = k, w
        return best, best_w

    # -- decisions ---------------------------------------------------------------------------
    def discard(self, state: GameState, seat: int, events: list[Event]) -> Event:
        """The heuristic's discard-phase event, unless a discard leaves a ready hand: then the one
        of highest ``W`` (the heuristic's on a tie). Non-discard acts the heuristic picks stand."""
        first = self.h.discard(state, seat, events)
        if first.act != "discard":
            return first
        by_kind = discard_kinds(state, events)
        if len(by_kind) < 2:
            return first
        live = self.live(state, seat)
        worths = dict(self.discard_worths(state, seat, list(state.hands[seat]), state.melds[seat], list(by_kind), live))
        mine = state.deck.index(first.card)
        k, w = None, 0.0
        for kind, v in worths.items():
            if v > w:
                k, w = kind, v
        if k is None:
            return first
        self.stats["valued"] += 1
        if w <= worths[mine] or k == mine:
            return first
        self.stats["changed"] += 1
        return by_kind[k]

    def after_claim(self, state: GameState, seat: int, opt: Option, ev: Event) -> GameState | None:
        """A copy of ``state`` with ``ev`` (of ``seat``'s option ``opt``) applied by the engine, the
        seats ranked above passing first; None when the engine refuses it."""
        st = state.fork()
        w = st.window
        assert w is not None
        try:
            for s in sorted({o.seat for o in w.options if o.seat != seat and o.key < opt.key}):
                st.apply(Event(seat=s, act="pass"))
            st.apply(ev)
        except RuleViolation:
            return None
        return st

    def claim_worth(self, state: GameState, seat: int, opt: Option, ev: Event, live: list[int]) -> float | None:
        """``W`` of the seat's hand after claim ``ev`` of option ``opt`` (after its best discard when
        the seat discards next); None when the engine refuses the claim or it ends the hand."""
        st = self.after_claim(state, seat, opt, ev)
        if st is None or st.phase is Phase.OVER:
            return None
        hand, melds = list(st.hands[seat]), st.melds[seat]
        if st.phase is Phase.DISCARD and st.turn == seat:
            cards = sorted({st.deck.index(e.card) for e in st.legal_events()
                            if e.act == "discard" and e.seat == seat and e.card is not None})
            return self.best_discard(st, seat, hand, melds, cards, live)[1]
        return self.worth(st, seat, hand, melds, live)

    def claim_worths(self, state: GameState, seat: int, opt: Option) -> tuple[float, list[tuple[Event, float]]]:
        """``W`` of the hand as it is (the claim declined), and each event of ``opt`` the engine takes
        with :meth:`claim_worth`: what :meth:`claim` compares, and what a review shows."""
        live = self.live(state, seat)
        w_now = self.worth(state, seat, list(state.hands[seat]), state.melds[seat], live)
        out = []
        for ev in opt.events:
            v = self.claim_worth(state, seat, opt, ev, live)
            if v is not None:
                out.append((ev, v))
        return w_now, out

    def claim(self, state: GameState, seat: int, opt: Option) -> Event | None:
        """An optional claim by ``W``: the best of the option's events (its hand after the best
        discard) against the hand as it is; the heuristic's answer when neither is ready. Forced
        options, 胡 and the start window: the heuristic's."""
        first = self.h.claim(state, seat, opt)
        w = state.window
        if opt.forced or opt.act == "hu" or w is None or w.kind == "start":
            return first
        w_now, worths = self.claim_worths(state, seat, opt)
        best, best_w = None, 0.0
        for ev, v in worths:
            if v > best_w:
                best, best_w = ev, v
        if best is None and w_now == 0.0:
            return first
        self.stats["valued"] += 1
        choice = best if best is not None and best_w > w_now + self.claim_margin else None
        if (choice is None) != (first is None):
            self.stats["changed"] += 1
        elif choice is not None and first is not None and choice != first:
            self.stats["changed"] += 1
        return choice


def discard_kinds(state: GameState, events: Sequence[Event]) -> dict[int, Event]:
    """The kinds ``events`` discard, each with its first discard event, in the order of ``events``."""
    deck = state.deck
    by_kind: dict[int, Event] = {}
    for e in events:
        if e.act == "discard" and e.card is not None:
            by_kind.setdefault(deck.index(e.card), e)
    return by_kind


def ev_bot(heuristic: type, **attrs: Any) -> type:
    """An :class:`EVBot` class over ``heuristic`` (a variant's heuristic bot class) with class
    attributes ``attrs`` (``sources``, ``may_win``, …)."""
    return type(f"EV{heuristic.__name__}", (EVBot,), {"heuristic": heuristic, **attrs})
