"""通城個子牌 score cases (spec §8) as engine positions, and back (score = replay).

:func:`position` turns a case into a :class:`replay.judge.Position`: a :class:`GeziState` in which
the winner faces the winning card as in play — the window open on another seat's discard
(``win_from: discard``), its own discard phase right after drawing the card (``self``), or the
dealer's dealt hand before its first discard (``"win_card": null``, 天胡). The engine's own 胡
then judges it. :func:`score_case_of` is the inverse: the case of a seat's position in a game.

Case keys read (docs/rules/tongcheng_gezi.md §Score cases): ``hand``, ``melds`` (``peng``,
``zhao``, ``guan_sheng``, ``hua`` laid; ``kan`` joins the hand), ``win_card``, ``win_from``,
``rules``, ``context.dealer``, ``context.last_card`` (海底: the wall is empty) and
``context.jian`` (the hand's cards that were 撿ed; they never join identical cards to 觀生, and
under option ``jian_kan = refused`` never sit in a 坎 or pair).
"""

from __future__ import annotations

from typing import Any

from replay.cards import HUAPAI
from replay.engine import Phase, Window
from replay.groups import groups_json
from replay.judge import Position, case_frame
from replay.record import Deal, Event, Record
from replay.variants.tongcheng_gezi import scoring as sc
from replay.variants.tongcheng_gezi.state import GeziState

LAID = ("peng", "zhao", "guan_sheng", "hua")


def _cards(codes: Any, what: str) -> list[str]:
    if not isinstance(codes, list):
        raise ValueError(f"{what} is a list of cards")
    return codes


def position(case: dict[str, Any], ruleset) -> Position:
    """The case as a game position (see the module doc). The winner is seat 0; the discarder of a
    ``discard`` win is its 上家; other seats hold nothing, so only the winner has options.

    :raises ValueError: a malformed case (bad meld, more copies than the deck holds, ``win_from``
        not ``self`` / ``discard``, 撿 cards not in the hand, laid melds on the dealt hand).
    :raises replay.judge.Exhausted: the winning card would be one copy more than the deck holds.
    """
    n = ruleset["players"]
    hand = HUAPAI.counts(_cards(case.get("hand") or [], "hand"))
    melds: list[tuple[str, tuple[int, ...]]] = []
    for m in case.get("melds") or []:
        if not isinstance(m, dict):
            raise ValueError("a meld is an object {kind, cards}")
        kind, cards = m.get("kind"), [HUAPAI.index(c) for c in _cards(m.get("cards") or [], "a meld's cards")]
        if kind not in sc.MELD_SIZE:
            raise ValueError(f"meld kind {kind!r} is not a tongcheng_gezi meld (peng, zhao, guan_sheng, hua, kan)")
        if len(cards) != sc.MELD_SIZE[kind] or len({sc.CHAR_OF[k] for k in cards}) != 1:
            raise ValueError(f"meld {m} is not a {kind} ({sc.MELD_SIZE[kind]} cards of one character)")
        if kind == "kan":  # three alike in the hand: ordinary concealed cards
            for k in cards:
                hand[k] += 1
        else:
            melds.append((kind, tuple(sorted(cards))))
    total = HUAPAI.held(hand, melds)
    win_from, ctx, w = case_frame(case, "tongcheng_gezi", total, ("self", "discard"), "discard")
    jian = HUAPAI.counts(_cards(ctx.get("jian") or [], "context.jian"))
    if any(j > h for j, h in zip(jian, hand)):
        raise ValueError("context.jian names cards the hand does not hold")
    if w is None and melds:
        raise ValueError("a win on the dealt hand (天胡) has no laid melds")
    if w is None and ctx.get("dealer") is False and "dealer" in ctx:
        raise ValueError("a win without a winning card is the dealer's dealt hand (天胡): context.dealer is true")

    seat = 0
    dealer = seat if w is None or ctx.get("dealer") else 1
    left = list(HUAPAI.copies)
    for k, t in enumerate(total):
        left[k] -= t
    if w is not None:
        left[w] -= 1
    wall = [] if ctx.get("last_card") else HUAPAI.expand(left)
    rec = Record(format="paipu/1", game_id="score-case", variant="tongcheng_gezi", seats=[f"s{i}" for i in range(n)],
                 dealer=dealer, deal=Deal(hands=[[] for _ in range(n)], wall=wall), actions=[], rules=dict(ruleset.values))
    st = GeziState(rec, ruleset)
    st.hands[seat] = hand
    st.melds[seat] = melds
    st.jian[seat] = jian
    hu = None
    if w is None:  # the dealer's dealt hand, before its first discard (decision 7)
        st.phase, st.turn, st.can_hu = Phase.DISCARD, seat, "deal"
        hu = Event(seat=seat, act="hu")
    elif win_from == "self":  # right after drawing the card from the wall
        hand[w] += 1
        st.phase, st.turn, st.can_hu, st.last_draw = Phase.DISCARD, seat, "draw", w
        hu = Event(seat=seat, act="hu", card=HUAPAI.codes[w])
    else:  # another seat's discard, open to claims
        src = (seat - 1) % n
        st.phase, st.turn, st.can_hu = Phase.WINDOW, src, None
        st.window = Window(w, src, "discard", st.window_options(w, src))
    return Position(st, seat, lambda st: groups_json(st.won()["judgement"].groups, HUAPAI), hu=hu)


def score_case_of(state: GeziState, seat: int) -> dict[str, Any]:
    """The spec §8 case of ``seat``'s position in ``state``: facing another seat's discard in an
    open window (``win_from: discard``), or in its own discard phase right after a draw (``self``,
    the drawn card as ``win_card``) or with the dealt hand (``"win_card": null``).

    :raises ValueError: ``seat`` can claim no win there (e.g. it discards after a 撿 or 碰).
    """
    hand = list(state.hands[seat])
    w = state.window
    if state.phase is Phase.WINDOW and w is not None and w.kind == "discard" and w.src != seat:
        win_card, win_from = HUAPAI.codes[w.card], "discard"
    elif state.phase is Phase.DISCARD and state.turn == seat and state.can_hu == "draw" and state.last_draw is not None:
        hand[state.last_draw] -= 1
        win_card, win_from = HUAPAI.codes[state.last_draw], "self"
    elif state.phase is Phase.DISCARD and state.turn == seat and state.can_hu == "deal":
        win_card, win_from = None, "self"
    else:
        raise ValueError(f"seat {seat} can claim no win in phase {state.phase.value}")
    ctx: dict[str, Any] = {"dealer": seat == state.dealer, "last_card": state.wall_left == 0}
    if any(state.jian[seat]):
        ctx["jian"] = HUAPAI.expand(state.jian[seat])
    return {"variant": "tongcheng_gezi", "rules": dict(state.rules.values), "hand": HUAPAI.expand(hand),
            "melds": [{"kind": k, "cards": HUAPAI.codes_of(cards)} for k, cards in state.melds[seat]],
            "win_card": win_card, "win_from": win_from, "context": ctx}
