"""花牌 score cases (spec §8) as engine positions, and back (score = replay).

:func:`position` turns a case into a :class:`replay.judge.Position`: a :class:`HuapaiState` in
which the winner faces the winning card as in play — the window open on its 上家's discard
(``win_from: discard``, 放銃) or its own discard phase right after drawing the card (``self``,
自摸). The engine's own 胡 then judges it (002_f9a80b28e0fcbf1a.txt §4: 自摸或別人放銃). A case
with ``"win_card": null`` is the dealer's dealt hand before its first discard, which the engine
never lets win (no 天胡: docs/rules/huapai.md decision 6). :func:`score_case_of` is the inverse:
the case of a seat's position in a game.

Case keys read (docs/rules/huapai.md §Score cases): ``hand``, ``melds`` (``dui``, ``zhao``,
``zha``, ``kai_fan`` laid; ``kan`` joins the hand), ``win_card``, ``win_from``, ``rules`` and
``context.last_card`` (the wall is empty). Nothing else of a context changes a 花牌 win.
"""

from __future__ import annotations

from typing import Any

from replay.engine import Phase, Window
from replay.groups import groups_json
from replay.judge import Position, case_frame
from replay.record import Deal, Event, Record
from replay.variants.huapai import scoring as sc

MELD_SIZES = {"dui": 3, "zhao": 4, "zha": 4, "kai_fan": 5}


def _cards(codes: Any, what: str) -> list:
    if not isinstance(codes, list):
        raise ValueError(f"{what} is a list of cards")
    return codes


def position(case: dict[str, Any], ruleset, make_state) -> Position:
    """The case as a game position (see the module doc). The winner is seat 0; the discarder of a
    ``discard`` win is its 上家 (seat 2); the other seats hold nothing, so only the winner has
    options. ``make_state(record, ruleset)`` builds the variant's :class:`HuapaiState`.

    :raises ValueError: a malformed case (a meld not of its size, of two characters or with a 賴;
        more copies than the deck holds; ``win_from`` not ``self`` / ``discard``; laid melds on the
        dealt hand).
    :raises replay.judge.Exhausted: the winning card would be one copy more than the deck holds.
    """
    rec = Record(format="paipu/1", game_id="score-case", variant=ruleset.variant, seats=["s0", "s1", "s2"],
                 dealer=0, deal=Deal(hands=[[], [], []], wall=[]), actions=[], rules=dict(ruleset.values))
    st = make_state(rec, ruleset)
    deck, lk = st.deck, st.lai
    hand = deck.counts(_cards(case.get("hand") or [], "hand"))
    melds: list[tuple[str, tuple[int, ...]]] = []
    for m in _cards(case.get("melds") or [], "melds"):
        if not isinstance(m, dict):
            raise ValueError("a meld is an object {kind, cards}")
        kind, cards = m.get("kind"), [deck.index(c) for c in _cards(m.get("cards") or [], "a meld's cards")]
        if kind == "kan":  # three alike in the hand: ordinary concealed cards
            for k in cards:
                hand[k] += 1
            continue
        if kind not in MELD_SIZES:
            raise ValueError(f"meld kind {kind!r} is not a 花牌 meld (dui, zhao, zha, kai_fan, kan)")
        if len(cards) != MELD_SIZES[kind] or lk in cards or len({sc.KCHAR[k] for k in cards}) != 1:
            raise ValueError(f"meld {m} is not a {kind}: {MELD_SIZES[kind]} cards of one character, no 賴")
        melds.append((kind, tuple(sorted(cards))))  # canonical order: a case's card order never shows
    total = deck.held(hand, melds)
    win_from, ctx, w = case_frame(case, ruleset.variant, total, ("self", "discard"), "discard")
    left = [c - t for c, t in zip(deck.copies, total)]
    if w is not None:
        left[w] -= 1
    seat = 0
    st.wall = [] if ctx.get("last_card") else [k for k, n in enumerate(left) for _ in range(n)]
    st.front, st.back = 0, len(st.wall)
    st.hands[seat] = hand
    st.melds[seat] = melds
    st.dui_count[seat] = sum(k == "dui" for k, _ in melds)
    st.qingtong = False
    hu = None
    if w is None:  # the dealt hand, before the dealer's first discard (the start window)
        if melds:
            raise ValueError("a win without a winning card is the dealer's dealt hand: it has no melds")
        st.qingtong = True
        st.window, st.phase = Window(-1, seat, "start", []), Phase.START
    elif win_from == "self":  # 自摸: right after drawing the card, in the seat's own turn
        hand[w] += 1
        st.window, st.phase, st.turn, st.drawn = None, Phase.DISCARD, seat, w
        hu = Event(seat=seat, act="hu", card=deck.codes[w])
    else:  # 放銃: the 上家's discard, open to claims (the winner is its 下家, first to answer)
        src = (seat - 1) % st.n
        st.phase, st.turn, st.drawn = Phase.WINDOW, src, None
        st.window = Window(w, src, "discard", st.window_options(w, src))
    return Position(st, seat, lambda st: groups_json(st.won()["split"].groups, st.deck), hu=hu)


def score_case_of(state, seat: int) -> dict[str, Any]:
    """The spec §8 case of ``seat``'s position in ``state``: facing another seat's discard in an
    open window (``win_from: discard``), or in its own discard phase right after a draw (``self``,
    the drawn card as ``win_card``).

    :raises ValueError: ``seat`` can claim no win there (not its turn, no card drawn, its own
        discard, the start of the hand).
    """
    deck = state.deck
    hand = list(state.hands[seat])
    w = state.window
    if state.phase is Phase.WINDOW and w is not None and w.kind == "discard" and w.src != seat:
        win_card, win_from = deck.codes[w.card], "discard"
    elif state.phase is Phase.DISCARD and state.turn == seat and state.drawn is not None:
        hand[state.drawn] -= 1
        win_card, win_from = deck.codes[state.drawn], "self"
    else:
        raise ValueError(f"seat {seat} can claim no win in phase {state.phase.value}")
    return {"variant": state.variant, "rules": dict(state.rules.values), "hand": deck.expand(hand),
            "melds": [{"kind": k, "cards": deck.codes_of(cards)} for k, cards in state.melds[seat]],
            "win_card": win_card, "win_from": win_from,
            "context": {"dealer": seat == state.dealer, "last_card": state.wall_left == 0}}
