"""上大人 score cases (spec §8) as engine positions: ``paipu score`` is judged by the engine that
replays games (replay/judge.py), so a case and the same hand in play never disagree.

- :func:`position` turns a case into a :class:`~replay.judge.Position`: the winner (seat 1) faces
  the winning card as in play — the window on a discard by its 上家 (seat 0), or its own discard
  phase right after drawing the card (自摸), or the start window for ``win_card: null`` (which the
  engine refuses: no win before the dealer's first discard, docs/rules/shangdaren.md decision 8).
- :func:`score_case_of` is the converse: the case of a seat's position in a game state.

Context keys (spec §8): ``dealer`` (the winner deals) and ``last_card`` (海底: the wall is empty);
neither changes a 上大人 score (002 §上大人 3 names no bonus for them). No variant-specific keys.
"""

from __future__ import annotations

from typing import Any

from replay.cards import SHANGDAREN
from replay.engine import GameState, Phase, Window
from replay.groups import groups_json
from replay.judge import Position, case_frame
from replay.record import Deal, Event, Record
from replay.variants.shangdaren import scoring as sc

WINNER, SOURCE = 1, 0  # the winner and the seat whose discard it wins on (its 上家)


def groups(state: GameState) -> list[dict[str, Any]]:
    """spec §8 ``groups`` of a won state: the winner's split, melds first."""
    return groups_json(state.judgement.groups, SHANGDAREN)  # type: ignore[attr-defined]


def position(case: dict, rules: Any) -> Position:
    """The score case ``case`` (``win_card`` present: a code or null) as a game position.

    :param rules: the case's ruleset (``players`` seats; the others hold nothing, so no other
        seat has an option on the card).
    :raises ValueError: a malformed case — a card or meld that is not 上大人's, more copies than
        the deck holds, ``win_from`` not ``self``/``discard``.
    :raises replay.judge.Exhausted: the winning card would be a fifth copy (the waits skip it).
    """
    from replay.variants.shangdaren.state import ShangdarenState

    hand = SHANGDAREN.counts(case.get("hand") or [])
    melds = sc.parse_melds(case.get("melds") or [])
    held = SHANGDAREN.held(hand, melds)  # raises: more copies than the deck holds
    wc = case["win_card"]
    win_from, context, w = case_frame(case, "shangdaren", held, ("self", "discard"), "discard")
    if w is not None:
        held[w] += 1
        if win_from == "self":
            hand[w] += 1  # drawn into the hand (002 §上大人 1a)
    n = rules["players"]
    rest = [c - h for c, h in zip(SHANGDAREN.full_counts(), held)]
    hands: list[list[str]] = [[] for _ in range(n)]
    hands[WINNER] = SHANGDAREN.expand(hand)
    wall = [] if context.get("last_card") else SHANGDAREN.expand(rest)
    rec = Record(format="paipu/1", game_id="score-case", variant="shangdaren", seats=[f"s{i}" for i in range(n)],
                 dealer=WINNER if context.get("dealer") else SOURCE, deal=Deal(hands=hands, wall=wall),
                 actions=[], rules=dict(rules.values))
    st = ShangdarenState(rec, rules)
    st.melds[WINNER] = [(k, tuple(sorted(c))) for k, c in melds]
    hu = None
    if w is None:
        pass  # the start window the state opens with
    elif win_from == "self":
        st.window, st.phase, st.turn, st.drawn = None, Phase.DISCARD, WINNER, w
        hu = Event(seat=WINNER, act="hu", card=wc)
    else:
        st.window = Window(w, SOURCE, "discard", build=lambda: st.window_options(w, SOURCE), closing=list)
        st.phase, st.turn = Phase.WINDOW, SOURCE
    return Position(st, WINNER, groups, hu)


def score_case_of(state: GameState, seat: int) -> dict[str, Any]:
    """The spec §8 case of ``seat``'s position in ``state``: on the open discard of another seat,
    or on the card it just drew (its discard phase). The converse of :func:`position`.

    :raises ValueError: ``seat`` faces no card it could win on here.
    """
    st: Any = state
    w = st.window
    hand = list(st.hands[seat])
    if st.phase is Phase.WINDOW and w is not None and w.kind == "discard" and w.src != seat:
        card, win_from = w.card, "discard"
    elif st.phase is Phase.DISCARD and st.turn == seat and st.drawn is not None:
        card, win_from = st.drawn, "self"
        hand[card] -= 1
    else:
        raise ValueError(f"seat {seat} faces no card to win on (phase {st.phase.value})")
    return {"variant": "shangdaren", "rules": dict(st.rules.values), "hand": SHANGDAREN.expand(hand),
            "melds": [{"kind": k, "cards": SHANGDAREN.codes_of(cards)} for k, cards in st.melds[seat]],
            "win_card": SHANGDAREN.codes[card], "win_from": win_from,
            "context": {"dealer": seat == st.dealer, "last_card": st.wall_left == 0}}
