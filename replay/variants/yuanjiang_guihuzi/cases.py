"""沅江鬼胡子 score cases (spec §8) as engine positions, and back (``paipu score`` is replay).

:func:`position` turns a case into a :class:`replay.judge.Position`: a :class:`YuanjiangState` in
which the winner (seat 0) faces the winning card as in play — the window open on its own flip
(``win_from: self``), on its 上家's flip (``flip``) or on its 上家's discard (``discard``, which the
engine never lets win: 003 §名词解析 4, 只可胡自己或别人摸出来的牌), or its first 出牌回合 for
``"win_card": null`` (天胡, the dealer's dealt hand). The engine's own 胡 then judges it, so a case
and the same hand in a game cannot disagree. :func:`score_case_of` is the converse: the case of a
seat's position in a game state.

Case keys (docs/rules/yuanjiang_guihuzi.md §Score cases): ``hand``, ``melds`` (``chi``, ``peng``,
``wai``, ``liu``, ``piao`` on the table; ``kan`` joins the hand), ``win_card``, ``win_from``,
``rules`` and ``context``: ``dealer``, ``last_card`` (海底: the wall is empty), ``baoting`` (报听
holds: the seat was 听 from its start and has not discarded since, docs decision 3) and
``first_turn`` (the concealed hand is still the dealt one: option ``jiudui_ban = dealt``).
"""

from __future__ import annotations

from typing import Any

from replay.cards import ZIPAI
from replay.engine import GameState, Phase
from replay.groups import groups_json
from replay.judge import Position, case_frame
from replay.record import Deal, Event, Record
from replay.variants.yuanjiang_guihuzi import scoring as sc

WINNER = 0  # the winner's seat; the card of a flip or discard by another seat is its 上家's
MELD_KINDS = ("chi", "peng", "wai", "liu", "piao", "kan")


def _list(x: Any, what: str) -> list:
    if not isinstance(x, list):
        raise ValueError(f"{what} is a list")
    return x


def parse_melds(raw: Any) -> tuple[list[int], list[tuple[str, tuple[int, ...]]], list[int | None]]:
    """``(kan counts, table melds, eaten cards)`` of a case's ``melds``: a ``kan`` (a dealt three)
    joins the hand; the others are ``(kind, sorted kinds)``; per ``chi``, in order, the kind of its
    ``card`` (the card eaten, as in the log's 吃 event; None when the meld does not say: then any of
    its kinds may have been, docs §Score cases).

    :raises ValueError: a meld that is not one of its kind (a 吃 not a sentence of one size or
        二七十; 碰/歪/坎 not three alike; 溜/飘 not four alike), a 吃's ``card`` not among its cards, or
        an unknown kind.
    """
    kan = [0] * 20
    melds: list[tuple[str, tuple[int, ...]]] = []
    eaten: list[int | None] = []
    for m in _list(raw, "melds"):
        if not isinstance(m, dict):
            raise ValueError("a meld is an object {kind, cards}")
        kind = m.get("kind")
        cards = tuple(sorted(ZIPAI.index(c) for c in _list(m.get("cards") or [], "a meld's cards")))
        if kind not in MELD_KINDS:
            raise ValueError(f"meld kind {kind!r} is not a yuanjiang_guihuzi meld ({', '.join(MELD_KINDS)})")
        if kind == "chi":
            if cards not in sc.SENTENCES:
                raise ValueError(f"meld {m} is not a sentence (顺子 of one size or 二七十)")
            c = m.get("card")
            if c is not None and (not isinstance(c, str) or ZIPAI.index(c) not in cards):
                raise ValueError(f"meld {m}: its card (the one eaten) is not one of its cards")
            eaten.append(None if c is None else ZIPAI.index(c))
        elif len(cards) != (4 if kind in ("liu", "piao") else 3) or len(set(cards)) != 1:
            raise ValueError(f"meld {m} is not a {kind}")
        if kind == "kan":
            kan[cards[0]] += 3
        else:
            melds.append((kind, cards))
    return kan, melds, eaten


def groups(state: GameState) -> list[dict[str, Any]]:
    """spec §8 ``groups`` of a won state: the winner's best split, melds first."""
    return groups_json(state.won()["eval"].groups, ZIPAI)


def position(case: dict[str, Any], rules: Any) -> Position:
    """The score case ``case`` (``win_card`` present: a code or null) as a game position.

    :param rules: the case's ruleset (``players`` seats; the seats other than the winner hold
        nothing, so only the winner has options on the card).
    :raises ValueError: a malformed case — a card or meld that is not 沅江's, more copies than the
        deck holds, ``win_from`` not ``self`` / ``flip`` / ``discard``, table melds with
        ``"win_card": null``, a context that is not an object.
    :raises replay.judge.Exhausted: the winning card would be a fifth copy (the waits skip it).
    """
    from replay.variants.yuanjiang_guihuzi.state import YuanjiangState

    hand = ZIPAI.counts(_list(case.get("hand") or [], "hand"))
    kan, melds, eaten = parse_melds(case.get("melds") or [])
    hand = [a + b for a, b in zip(hand, kan)]
    held = ZIPAI.held(hand, melds)  # raises: more copies than the deck holds
    win_from, ctx, w = case_frame(case, "yuanjiang_guihuzi", held, ("self", "flip", "discard"), "self")
    if w is not None:
        held[w] += 1
    elif melds:
        raise ValueError("a win without a winning card is the dealer's dealt hand (天胡): no melds on the table")
    n = rules["players"]
    src = (WINNER - 1) % n  # the 上家: the seat whose flip or discard the winner answers
    left = [4 - k for k in held]
    rec = Record(format="paipu/1", game_id="score-case", variant="yuanjiang_guihuzi", seats=[f"s{i}" for i in range(n)],
                 dealer=WINNER if ctx.get("dealer") else src, deal=Deal(hands=[[] for _ in range(n)], wall=[]),
                 actions=[], rules=dict(rules.values))
    st = YuanjiangState(rec, rules)
    st.hands[WINNER] = hand
    st.melds[WINNER] = melds
    st.chi_card[WINNER] = eaten
    st.wall = [] if ctx.get("last_card") else [k for k, c in enumerate(left) for _ in range(c)]
    st.front, st.back = 0, len(st.wall)
    st.ting[WINNER] = bool(ctx.get("baoting"))
    st.intact[WINNER] = bool(ctx.get("first_turn")) and not melds
    st.dealer_discarded = True
    hu = None
    if w is None:  # 天胡: the dealer's first act, before anything else (003 §胡牌胡型 1)
        st.phase, st.turn = Phase.DISCARD, WINNER
        hu = Event(seat=WINNER, act="hu")
    else:
        by = WINNER if win_from == "self" else src
        st.turn = by
        st.open_window(w, by, "discard" if win_from == "discard" else "flip")
        st.step = 1  # in play: the window opens on a later step than the deal
    return Position(st, WINNER, groups, hu)


def score_case_of(state: GameState, seat: int) -> dict[str, Any]:
    """The spec §8 case of ``seat``'s position in ``state``: on an open flip (its own: ``self``;
    another seat's: ``flip``) or another seat's discard (``discard``); in its own 出牌回合 right
    after its 歪 (the 胡 on that flip: the 歪's pair back in the hand, docs decision 9); or the
    dealer's first 出牌回合 (``"win_card": null``). The converse of :func:`position`.

    :raises ValueError: ``seat`` faces no card it could claim a win on here.
    """
    st: Any = state
    w = st.window
    hand, melds = list(st.hands[seat]), list(st.melds[seat])
    if st.phase is Phase.WINDOW and w is not None and not (w.kind == "discard" and w.src == seat):
        card: int | None = w.card
        win_from = "discard" if w.kind == "discard" else "self" if w.src == seat else "flip"
    elif st.phase is Phase.DISCARD and st.turn == seat and st.after_wai is not None and st.after_wai[0] == seat:
        hand, melds, card, _ = st.win_hand(seat, None, "")
        win_from = "self"
    elif st.phase is Phase.DISCARD and st.turn == seat == st.dealer and st.step == 0:
        card, win_from = None, "self"
    else:
        raise ValueError(f"seat {seat} faces no card to win on (phase {st.phase.value})")
    return {"variant": "yuanjiang_guihuzi", "rules": dict(st.rules.values), "hand": ZIPAI.expand(hand),
            "melds": _case_melds(melds, st.chi_card[seat]),
            "win_card": None if card is None else ZIPAI.codes[card], "win_from": win_from,
            "context": {"dealer": seat == st.dealer, "last_card": st.wall_left == 0,
                        "baoting": bool(st.ting[seat]), "first_turn": bool(st.intact[seat])}}


def _case_melds(melds: list[tuple[str, tuple[int, ...]]], eaten: list[int | None]) -> list[dict[str, Any]]:
    """The case's ``melds`` of table melds, each 吃 with the ``card`` it ate (when known)."""
    out, chis = [], iter(eaten)
    for k, cards in melds:
        m: dict[str, Any] = {"kind": k, "cards": ZIPAI.codes_of(cards)}
        if k == "chi":
            c = next(chis, None)
            if c is not None:
                m["card"] = ZIPAI.codes[c]
        out.append(m)
    return out
