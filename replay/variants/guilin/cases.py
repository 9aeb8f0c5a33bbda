"""桂林字牌 / 字牌 score cases (spec §8) as engine positions: ``paipu score`` is judged by the engine
that replays games (replay/judge.py), so a case and the same hand in play never disagree.

- :func:`position` turns a case into a :class:`~replay.judge.Position`: the winner (seat 1) faces
  the winning card as in play — the window open on its own flip (``win_from: self``), on seat 0's
  flip (``flip``) or on seat 0's discard (``discard``, seat 0 being its 上家), or the start window
  for ``win_card: null`` (天胡 for the dealer, 三笼五坎). The judge then tries the 胡 itself and
  every forced act before it (扫, 扫穿, 开舵), as a player could log them.
- :func:`score_case_of` is the converse: the case of a seat's position in a game state.

Context keys (spec §8): ``dealer`` (the winner deals), ``first_turn`` (with ``win_from: discard``
and a winner that does not deal: the card is the dealer's first discard, 地胡), ``last_card`` (海底:
the wall is empty, so no 醒 either), ``xing_cards`` (the 醒 cards turned, as turned; absent: none).
No variant-specific keys. Seats 0 and 2 hold nothing, so no other seat has an option on the card.
"""

from __future__ import annotations

from typing import Any

from replay.cards import ZIPAI
from replay.engine import GameState, Phase, Window
from replay.groups import groups_json
from replay.judge import Position, case_frame
from replay.record import Deal, Event, Record
from replay.variants.guilin import scoring as sc

WINNER, SOURCE = 1, 0  # the winner, and the seat whose flip or discard it wins on (its 上家)
MELD_KINDS = ("chi", "bi", "peng", "sao", "guo_sao", "sao_chuan", "kai_duo")
DEALT = ("kan", "long")  # dealt 3 / 4 of a kind: concealed, they join the hand (docs/rules/guilin.md)


def groups(state: GameState) -> list[dict[str, Any]]:
    """Spec §8 ``groups`` of a won state: the winner's split, melds first."""
    return groups_json(state.won()["groups"], ZIPAI)


def parse_melds(melds: list, hand: list[int]) -> list[tuple[str, tuple[int, ...]]]:
    """The case's ``melds`` as ``(kind, sorted kinds)``; dealt ``kan``/``long`` are added to ``hand``.

    :raises ValueError: a kind that is no meld of the family, or cards that do not make it.
    """
    out = []
    for m in melds:
        if not isinstance(m, dict):
            raise ValueError(f"a meld is an object with kind and cards, not {m!r}")
        kind = m.get("kind")
        cards = [ZIPAI.index(c) for c in m.get("cards") or []]
        if kind in DEALT:
            if len(cards) != (3 if kind == "kan" else 4) or len(set(cards)) != 1:
                raise ValueError(f"meld {m} is not a {kind}")
            for k in cards:
                hand[k] += 1
            continue
        if kind not in MELD_KINDS:
            raise ValueError(f"meld kind {kind!r} is not one of {', '.join(MELD_KINDS + DEALT)}")
        if kind in ("chi", "bi"):
            if sc.chi_shape(cards) is None:
                raise ValueError(f"meld {m} is not a 吃 shape")
        elif len(set(cards)) != 1 or len(cards) != (4 if kind in sc.FOUR_KINDS else 3):
            raise ValueError(f"meld {m} is not a {kind}")
        out.append((kind, tuple(sorted(cards))))
    return out


def position(case: dict, rules: Any) -> Position:
    """The score case ``case`` (``win_card`` present: a code or null) as a game position.

    :param rules: the case's ruleset (guilin or zipai).
    :raises ValueError: a malformed case — an unknown card, a meld that is not one, more copies
        than the deck holds, ``win_from`` not ``self``/``flip``/``discard``.
    :raises replay.judge.Exhausted: the winning card would be a fifth copy (the waits skip it).
    """
    from replay.variants.guilin.state import GuilinState

    hand = ZIPAI.counts(case.get("hand") or [])
    melds = parse_melds(case.get("melds") or [], hand)
    held = ZIPAI.held(hand, melds)  # raises: more copies than the deck holds
    wc = case["win_card"]
    win_from, ctx, w = case_frame(case, rules.variant, held, ("self", "flip", "discard"), "discard")
    xing = [ZIPAI.index(c) for c in ctx.get("xing_cards") or []]
    if w is not None:
        held[w] += 1
    rest = [4 - n for n in held]
    wall = [] if ctx.get("last_card") else ZIPAI.expand(rest)
    src = WINNER if win_from == "self" else SOURCE
    first = bool(ctx.get("first_turn")) and win_from == "discard" and w is not None and not ctx.get("dealer")
    dealer = WINNER if ctx.get("dealer") else SOURCE
    hands: list[list[str]] = [[], ZIPAI.expand(hand), []]
    rec = Record(format="paipu/1", game_id="score-case", variant=rules.variant, seats=["s0", "s1", "s2"],
                 dealer=dealer, deal=Deal(hands=hands, wall=wall), actions=[], rules=dict(rules.values))
    st = GuilinState(rec, rules)
    st.declare = []  # dealt fours of the case are as given: laid down ones are its sao_chuan melds
    st.melds[WINNER] = list(melds)
    for k, cards in melds:
        if k not in ("chi", "bi"):
            st.alike[WINNER][cards[0]] = k
    st.xing_turns = xing
    if w is None:
        st.window = Window(-1, dealer, "start", st.start_options())  # the melds are set now
        st.phase = Phase.START
    else:
        st.draws, st.discards = (0, 1) if first else (1, 1)  # 地胡: the dealer's first discard, nothing drawn
        st.open_window(w, src, "discard" if win_from == "discard" else "flip")
    # the 胡 a player would log after a forced act that the engine then offers none (for its reason)
    return Position(st, WINNER, groups, None if wc is None else Event(seat=WINNER, act="hu", card=wc))


def score_case_of(state: GameState, seat: int) -> dict[str, Any]:
    """The spec §8 case of ``seat``'s position in ``state``: on the open card of a flip or a discard
    (``seat`` ≠ the discarder), or at the start window. The converse of :func:`position`.

    :raises ValueError: ``seat`` faces no card it could win on here.
    """
    st: Any = state
    w = st.window
    if st.phase not in (Phase.WINDOW, Phase.START) or w is None or (w.kind == "discard" and w.src == seat):
        raise ValueError(f"seat {seat} faces no card to win on (phase {st.phase.value})")
    hand = list(st.hands[seat])
    held = list(hand)
    for _, cards in st.melds[seat]:
        for k in cards:
            held[k] += 1
    if w.kind == "start":
        card, win_from = None, None
    else:
        card = w.card
        held[card] += 1
        win_from = "discard" if w.kind == "discard" else ("self" if w.src == seat else "flip")
    turned, _ = st.turn_xing(held)
    ctx: dict[str, Any] = {"dealer": seat == st.dealer, "last_card": st.wall_left == 0,
                           "first_turn": w.kind == "discard" and st.discards == 1 and st.draws == 0,
                           "xing_cards": ZIPAI.codes_of(turned)}
    case: dict[str, Any] = {"variant": st.rules.variant, "rules": dict(st.rules.values), "hand": ZIPAI.expand(hand),
                            "melds": [{"kind": k, "cards": ZIPAI.codes_of(cards)} for k, cards in st.melds[seat]],
                            "win_card": None if card is None else ZIPAI.codes[card], "context": ctx}
    if win_from is not None:
        case["win_from"] = win_from
    return case
