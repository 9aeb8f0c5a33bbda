"""上大人 as a state machine over the engine core (replay/engine.py).

Seed: 002_f9a80b28e0fcbf1a.txt §上大人 (cited "002 §上大人 1a" … for 操作介紹 a–f, "2"/"3" for
牌點計算 / 計分規則); readings and decisions: docs/rules/shangdaren.md.

Turn: the dealer discards first (1a); every other turn is draw (into the hand) then discard.
On a discard: 胡 (any other seat) > 對 / 開毛 (上家 or 尾家; option ``dui_from``) > 吃 (下家 only)
(1b: 如果另一家需要對的話應該對牌優先); with ``mashang_dui = before_hu`` the 下家's 對 comes before 胡. Only one seat can hold two or three of the discarded card
(4 copies), so 對/開毛 never compete with each other. 毛 (four in hand) is declared at the start
or in one's own turn and is followed by a replacement draw from the front (1e: 從牌墩上層取一張);
開毛's replacement comes from the 腰牌 (option ``yao_pai``, default the back of the wall).

Cards are kind indices of :data:`replay.cards.SHANGDAREN` (eight phrases of three characters in deck
order, each starting at a multiple of 3); events, facts and the audit view name them by their codes.
"""

from __future__ import annotations

from itertools import compress
from typing import Any, Sequence

from replay.cards import SHANGDAREN
from replay.engine import GameState, Option, Phase, Window
from replay.groups import Group, groups_json
from replay.record import Event
from replay.variants.shangdaren import scoring as sc

# Phase members as module names: one global read per use (``Phase.X`` is a global read and an
# attribute lookup on the class)
START, DISCARD, WINDOW, DRAW, OVER = Phase.START, Phase.DISCARD, Phase.WINDOW, Phase.DRAW, Phase.OVER
R_HU, R_DUI, R_CHI = 0, 1, 2  # priority ranks, lower first (002 §上大人 1b)
CODES = SHANGDAREN.codes
INDEX = {c: k for k, c in enumerate(CODES)}  # canonical codes; aliases go through ``self.card``
# 吃 takes the discard's phrase with the two other characters of it from the hand (1b)
CHI_OTHERS = tuple(tuple(x for x in sc.phrase_of(c) if x != c) for c in range(24))


def _phrase_rems(h: list[int]) -> list[int]:
    """The cards of each phrase in count vector ``h``, mod 3 (8 values)."""
    return [(h[b] + h[b + 1] + h[b + 2]) % 3 for b in range(0, 24, 3)]


def _shape_fits(r: list[int], extra: int | None) -> bool:
    """Cheap filter before a full judge, on a hand's phrase remainders ``r`` (:func:`_phrase_rems`):
    with one more card of kind ``extra`` (None: none), every phrase holds a multiple of 3 cards
    except one that holds 2 more (groups of 3 within a phrase and one 聽頭 of 2)."""
    if extra is None:
        return sum(r) == 2 and 1 not in r  # remainders are 0..2: exactly one 2, the rest 0
    v = r[extra // 3]
    if v == 1:  # that phrase keeps the 聽頭; every other one must be whole
        return sum(r) == 1
    # a phrase at 0 would be left with 1; at 2 it becomes whole, and exactly one other keeps 2
    return v == 2 and sum(r) == 4 and 1 not in r


def _detail(j: sc.Judgement) -> dict[str, Any] | None:
    """A refused 胡's facts (replay/judge.py): the 胡 and split of a complete shape under the
    minimum; None when the cards form no shape."""
    if j.points is None:
        return None
    return {"points": j.points, "groups": groups_json(j.groups, SHANGDAREN)}


class ShangdarenState(GameState):
    """A 上大人 hand in play. Construct from a decoded record and its ruleset."""

    variant = "shangdaren"
    deck = SHANGDAREN
    draw_result_extra = {"jing": None}

    def __init__(self, record, ruleset) -> None:
        super().__init__(record, ruleset)
        self.players_ok = ruleset["players"] == self.n  # checked at every event (apply)
        self.yao_tail = ruleset["yao_pai"] == "tail"  # 開毛's replacement from the back (decision 4)
        # per discarder, the seats that may 對 / 開毛 it. 1c, 1d: 你的上家或是尾家打的一張 — with 3 seats
        # every other seat; with 4 every other seat too under dui_from = any (default), the 上家 and the
        # 尾家 (下家) only under shang_wei (decision 3)
        self.dui_ok = [[ruleset["dui_from"] == "any" or self.n < 4 or s in (self.xia(src), self.shang(src))
                        for s in range(self.n)] for src in range(self.n)]
        # the 下家's 對 ranks before every 胡 with mashang_dui = before_hu (002 §三精花牌 2: 馬上對)
        self.mashang = ruleset["mashang_dui"] == "before_hu"
        # the seats after each discarder, in turn order (priority among equal acts, spec §4)
        self.after = [[(src + i) % self.n for i in range(1, self.n)] for src in range(self.n)]
        self.discard_evs: list[list[Event] | None] = [None] * self.n  # per seat, built on first use
        # per seat, the hand's cards of each phrase mod 3 (the win filter, asked for every seat on
        # every card); kept in step with ``hands`` wherever this class changes a hand
        self.rems = [_phrase_rems(h) for h in self.hands]
        self.drawn: int | None = None  # the card ``turn`` just drew (自摸 is possible only then)
        self.pending: str | None = None  # replacement owed by ``turn``: mao_start / mao / kai_mao
        self.win: dict[str, Any] | None = None
        self.judgement: sc.Judgement | None = None
        self.window = Window(-1, self.dealer, "start", self.start_options())
        self.phase = START

    # -- helpers ---------------------------------------------------------------------------
    def apply(self, ev: Event) -> None:
        """Verify then apply ``ev`` (core), after checking the ``players`` option against the seats.

        :raises RuleViolation: the first rule the event breaks (spec §6 codes).
        """
        if not self.players_ok:
            raise self.fail("schema", "players",
                            f"rules.players is {self.rules['players']} but the record has {self.n} seats")
        GameState.apply(self, ev)

    def shang(self, seat: int) -> int:
        """上家 of ``seat``."""
        return (seat - 1) % self.n

    def judge(self, seat: int, card: int | None, self_drawn: bool = False) -> sc.Judgement:
        """The hand of ``seat`` judged with ``card`` as the winning card (for a self-drawn card the
        card is already in the hand)."""
        h = list(self.hands[seat])
        if self_drawn and card is not None:
            h[card] -= 1
        return sc.judge(h, self.melds[seat], card, self.rules)

    def can_win(self, seat: int, card: int | None, self_drawn: bool = False) -> bool:
        """Whether ``seat`` wins with ``card`` (see :meth:`judge`)."""
        if not _shape_fits(self.rems[seat], None if self_drawn else card):
            return False
        return self.judge(seat, card, self_drawn).win

    def fours(self, seat: int) -> list[int]:
        """Kinds of which ``seat`` holds four in hand (it may 毛 them)."""
        h = self.hands[seat]
        if 4 not in h:  # the usual case, without a Python loop
            return []
        return [k for k, c in enumerate(h) if c == 4]

    # -- options ---------------------------------------------------------------------------
    def mao_events(self, seat: int) -> list[Event]:
        """毛 events open to ``seat`` now: a four in hand and a card left for the replacement (1e)."""
        if self.back == self.front:
            return []
        return [Event(seat=seat, act="mao", cards=[CODES[k]] * 4) for k in self.fours(seat)]

    def start_options(self) -> list[Option]:
        """Before the dealer's first discard any seat may 毛 a dealt four (002 §上大人 1a: 取牌、毛牌後，
        莊家打出第一張牌). Equal keys: the declarations may come in any order."""
        out = []
        for s in range(self.n):
            evs = self.mao_events(s)
            if evs:
                out.append(Option(s, "mao", (0, 0), False, evs, "mao"))
        return out

    def window_options(self, c: int, src: int) -> list[Option]:
        """Every seat's options on ``c`` discarded by ``src`` (002 §上大人 1b–1d, f)."""
        hu: list[Option] = []  # every seat's 胡 comes before every 對 / 開毛 / 吃
        out: list[Option] = []
        code = CODES[c]
        hands, rems = self.hands, self.rems
        order = self.after[src]
        wall = self.back > self.front
        dui_ok = self.dui_ok[src]
        for pos, s in enumerate(order):
            if _shape_fits(rems[s], c) and self.judge(s, c).win:  # can_win, its filter first
                hu.append(Option(s, "hu", (R_HU, pos), False, [Event(seat=s, act="hu", card=code)], "hu"))
            # 對 / 開毛: 上家或是尾家打的 (1c, 1d; dui_ok, option dui_from, decision 3)
            held = hands[s][c]
            if held >= 2 and dui_ok[s]:
                key = (R_HU, -1) if pos == 0 and self.mashang else (R_DUI, pos)  # 馬上: before every 胡
                out.append(Option(s, "dui", key, False,
                                  [Event(seat=s, act="dui", card=code, cards=[code] * 2)], "dui"))
                if held == 3 and wall:
                    out.append(Option(s, "kai_mao", (R_DUI, pos), False,
                                      [Event(seat=s, act="kai_mao", card=code, cards=[code] * 3)], "kai_mao"))
        s = order[0]  # 吃: 上家打出的牌，下家如果能組成一句 (1b)
        a, b = CHI_OTHERS[c]
        h = hands[s]
        if h[a] and h[b]:
            out.append(Option(s, "chi", (R_CHI, 0), False,
                              [Event(seat=s, act="chi", card=code, cards=[CODES[a], CODES[b]])], "chi"))
        return hu + out if hu else out

    # -- events ----------------------------------------------------------------------------
    def on_draw(self, ev: Event) -> None:
        s = self.turn
        if ev.act != "draw" or ev.seat != s:
            if self.pending:
                what = "毛 (從牌墩上層取一張)" if self.pending != "kai_mao" else "開毛 (從腰牌中取一張)"
                raise self.fail("missing_forced_action", "kai_mao" if self.pending == "kai_mao" else "mao",
                                f"seat {s} must take its replacement card after {what} before `{ev.act}` by seat {ev.seat}")
            raise self.fail("out_of_turn", "turn", f"expected seat {s} to draw, got `{ev.act}` by seat {ev.seat}")
        tail = self.pending == "kai_mao" and self.yao_tail
        if ev.tail != tail:
            raise self.fail("illegal_action", "yao_pai",
                            f"seat {s} must draw from the {'back (腰牌)' if tail else 'front'} of the wall here")
        c = INDEX.get(ev.card)  # type: ignore[arg-type]
        if c is None:
            c = self.card(ev.card)  # raises: no card, or not a card of the deck
        want = self.wall[self.back - 1] if tail else self.wall[self.front]
        if c != want:
            raise self.fail("wall_mismatch", "paipu.wall",
                            f"seat {s} drew {SHANGDAREN.codes[c]} but the next card of the wall"
                            f"{' (back)' if tail else ''} is {SHANGDAREN.codes[want]}")
        if tail:
            self.back -= 1
        else:
            self.front += 1
        self.hands[s][c] += 1
        r, p = self.rems[s], c // 3
        r[p] = (r[p] + 1) % 3
        self.drawn = c
        if self.pending == "mao_start":
            self.pending = None
            self.window = Window(-1, self.dealer, "start", self.start_options())
            self.phase = START
            return
        self.pending = None
        self.phase = DISCARD

    def on_discard_phase(self, ev: Event) -> None:
        s = self.turn
        if ev.seat != s:
            raise self.fail("out_of_turn", "turn", f"seat {s} must play now, not seat {ev.seat} (`{ev.act}`)")
        h = self.hands[s]
        if ev.act == "discard":
            c = INDEX.get(ev.card)  # type: ignore[arg-type]
            if c is None:
                c = self.card(ev.card)  # raises: no card, or not a card of the deck
            if h[c] == 0:
                raise self.fail("illegal_action", "discard", f"seat {s} holds no {SHANGDAREN.codes[c]} to discard")
            h[c] -= 1
            r, p = self.rems[s], c // 3
            r[p] = (r[p] - 1) % 3
            self.drawn = None
            # built lazily: no option of a discard window is forced or changes the state when passed,
            # so a window nobody claims closes without anyone's options (most windows; speed only)
            self.window = Window(c, s, "discard", build=lambda: self.window_options(c, s), closing=list)
            self.phase = WINDOW
            return
        if ev.act == "mao":
            self.do_mao(s, ev)
            return
        if ev.act == "hu":
            if self.drawn is None:
                raise self.fail("illegal_action", "zimo",
                                f"seat {s} has drawn no card it could win on (自摸 follows a draw); it must discard")
            if ev.card is not None and self.card(ev.card) != self.drawn:
                raise self.fail("illegal_action", "zimo",
                                f"seat {s} drew {SHANGDAREN.codes[self.drawn]}, not {ev.card}")
            j = self.judge(s, self.drawn, self_drawn=True)
            if not j.win:
                raise self.fail("not_a_win", "hu_shape", f"seat {s}: {j.reason}", _detail(j))
            self.end_win(s, self.drawn, "self", None, j)
            return
        raise self.fail("illegal_action", "discard", f"seat {s} must discard (or 毛, or 胡 on its draw), not `{ev.act}`")

    def do_mao(self, s: int, ev: Event) -> None:
        """毛: four of one character from the hand onto the table, then a replacement (002 §上大人 1e)."""
        kinds = [SHANGDAREN.index(x) for x in ev.cards or []]
        if len(kinds) != 4 or len(set(kinds)) != 1 or self.hands[s][kinds[0]] != 4:
            raise self.fail("illegal_action", "mao", f"seat {s} does not hold the four cards {ev.cards} it declares")
        if ev.card is not None and SHANGDAREN.index(ev.card) != kinds[0]:
            # spec §3: `card` is the card the meld is made with; a 毛 is four of one kind from the hand
            raise self.fail("illegal_action", "mao", f"seat {s}'s 毛 of {(ev.cards or ['?'])[0]} names card {ev.card}, "
                            "not one of its four")
        if self.wall_left == 0:
            raise self.fail("illegal_action", "mao", "the wall is empty: no replacement card for 毛")
        k = kinds[0]
        self.hands[s][k] = 0
        r = self.rems[s]
        r[k // 3] = (r[k // 3] - 4) % 3
        self.melds[s].append(("mao", (k,) * 4))
        self.drawn = None
        self.pending = "mao_start" if self.phase is START else "mao"
        self.phase, self.turn = DRAW, s

    def apply_claim(self, opt: Option, ev: Event, w: Window) -> None:
        s, act = ev.seat, ev.act
        h = self.hands[s]
        if w.kind == "start":
            self.phase = START  # do_mao sets DRAW for the replacement
            self.do_mao(s, ev)
            return
        c = w.card
        if act == "hu":
            self.end_win(s, c, "discard", w.src, self.judge(s, c))
            return
        if act == "chi":
            for k in (SHANGDAREN.index(x) for x in ev.cards or []):
                h[k] -= 1
            r = self.rems[s]
            r[c // 3] = (r[c // 3] - 2) % 3  # the two taken are of c's phrase
            self.melds[s].append(("chi", sc.phrase_of(c)))
        elif act == "dui":  # the three go on the table for good (1c)
            h[c] -= 2
            r = self.rems[s]
            r[c // 3] = (r[c // 3] - 2) % 3
            self.melds[s].append(("dui", (c,) * 3))
        elif act == "kai_mao":  # four on the table, a replacement from the 腰牌 (1d)
            h[c] -= 3  # a multiple of 3: ``rems`` unchanged
            self.melds[s].append(("kai_mao", (c,) * 4))
            self.pending = "kai_mao"
            self.drawn = None
            self.phase, self.turn = DRAW, s
            return
        self.drawn = None
        self.phase, self.turn = DISCARD, s

    def window_closed(self, w: Window) -> None:
        if w.kind == "start":  # the dealer discards first (1a); no win before it (decision 8)
            self.drawn = None
            self.phase, self.turn = DISCARD, self.dealer
            return
        self.river[w.src].append(w.card)
        if self.back == self.front:  # wall_left == 0
            self.end_draw()
        else:
            self.phase, self.turn = DRAW, self.after[w.src][0]  # the 下家

    # -- errors in words ---------------------------------------------------------------------
    def explain_missing_option(self, ev: Event, w: Window, mine: list[Option]) -> None:
        s = ev.seat
        if w.kind == "start":
            if ev.act == "hu":
                raise self.fail("illegal_action", "hu", "no win before the dealer's first discard (decision 8)")
            return
        c = w.card
        if ev.act == "hu":
            if s == w.src:
                raise self.fail("illegal_action", "hu", f"seat {s} cannot win on its own discard")
            j = self.judge(s, c)
            if not j.win:
                raise self.fail("not_a_win", "hu_shape", f"seat {s} with {SHANGDAREN.codes[c]}: {j.reason}",
                                _detail(j))
        if ev.act == "chi" and s != self.xia(w.src):
            raise self.fail("out_of_turn", "chi",
                            f"only the 下家 (seat {self.xia(w.src)}) may 吃 seat {w.src}'s discard (002 §上大人 1b)")
        if ev.act in ("dui", "kai_mao") and s != w.src and not self.dui_ok[w.src][s]:
            raise self.fail("illegal_action", ev.act,
                            f"seat {s} may `{ev.act}` only its 上家's or 尾家's discard, not its 對家 seat {w.src}'s, "
                            "under rule option `dui_from = shang_wei` (002 §上大人 1c, 1d: 你的上家或是尾家打的一張)")
        if ev.act in ("dui", "kai_mao", "chi") and s != w.src:
            raise self.fail("illegal_action", ev.act,
                            f"seat {s} does not hold the cards to `{ev.act}` {SHANGDAREN.codes[c]}")

    # -- settlement --------------------------------------------------------------------------
    def end_win(self, s: int, c: int, win_from: str, src: int | None, j: sc.Judgement) -> None:
        """Settle a win by ``s`` on ``c`` (002 §上大人 3: units = the class's 分; 自摸: each loser pays
        the units, 一人2分; 放炮: the discarder pays one share, or every share with ``fang_pao='all'``;
        × stake)."""
        assert j.win and j.units is not None
        self.phase = OVER
        share = j.units * self.stake
        scores = [0] * self.n
        if win_from == "self":
            for o in range(self.n):
                if o != s:
                    scores[o] = -share
        else:
            assert src is not None
            scores[src] = -share * (self.n - 1 if self.rules["fang_pao"] == "all" else 1)
        scores[s] = -sum(scores)
        types = [j.hand_class] + (["pengpeng"] if j.pengpeng else []) + (["zimo"] if win_from == "self" else [])
        self.judgement = j
        self.win = {"seat": s, "card": c, "kind": "zimo" if win_from == "self" else "dianpao"}
        self.outcome = {
            "outcome": "win", "winner": s, "win_card": SHANGDAREN.codes[c], "from": src,
            "points": j.points, "hand_types": types,
            "jing": {"main": SHANGDAREN.codes[j.jing_main] if j.jing_main is not None else None, "count": j.jing_count},
            "units": j.units, "breakdown": j.breakdown, "scores": scores,
        }

    # -- views -------------------------------------------------------------------------------
    tail_note = " (腰牌)"  # 開毛's replacement, drawn from the 腰牌 at the back (decision 4)

    def meld_points(self, kind: str, cards: Sequence[int], settled: bool = False) -> int:
        """:meth:`GameState.meld_points`: 胡 of a meld (002 §三精花牌 3); in the facts of a won hand
        the winner's 主精 doubles it (option ``zhu_jing``), on the table in play nothing does."""
        main = self.judgement.jing_main if settled and self.judgement is not None else None
        return sc.group_points(kind, cards, sc.Params.of(self.rules, main))

    def win_groups(self) -> tuple[Group, ...] | None:
        """:meth:`GameState.win_groups`: the winner's split."""
        return self.judgement.groups if self.win is not None and self.judgement is not None else None

    def facts_extra(self) -> dict[str, Any]:
        """``jing``: ``{"main", "per_char": {char: {"count", "hu"}}}`` for a win, None otherwise."""
        if self.win is None or self.judgement is None:
            return {"jing": None}
        assert self.outcome is not None  # a 胡 settled the hand
        return {"jing": {"main": self.outcome["jing"]["main"], "per_char": sc.per_jing(self.judgement, self.rules)}}

    def legal_events(self) -> list[Event]:
        """Every event that may come next (explicit passes included)."""
        if self.phase is OVER:
            return []
        if self.phase is DRAW:
            tail = self.pending == "kai_mao" and self.yao_tail
            k = self.wall[self.back - 1] if tail else self.wall[self.front]
            return [Event(seat=self.turn, act="draw", card=CODES[k], tail=tail)]
        if self.phase is DISCARD:
            s = self.turn
            h = self.hands[s]
            row = self.discard_evs[s]
            if row is None:  # one discard event per kind, made once per seat and game
                row = self.discard_evs[s] = [Event(seat=s, act="discard", card=code) for code in CODES]
            evs = list(compress(row, h))  # the kinds held, in deck order
            if 4 in h:
                evs += self.mao_events(s)
            if self.drawn is not None and _shape_fits(self.rems[s], None) and self.judge(s, self.drawn, self_drawn=True).win:
                evs.append(Event(seat=s, act="hu", card=CODES[self.drawn]))
            return evs
        w = self.window
        assert w is not None
        evs = self.window_events() + self.closing_draw()
        if w.kind == "start":  # the dealer's first discard closes the start window
            evs += [Event(seat=self.dealer, act="discard", card=SHANGDAREN.codes[k])
                    for k, n in enumerate(self.hands[self.dealer]) if n]
        return evs

    def census_elsewhere(self) -> dict[str, list[int]]:
        """:meth:`GameState.census_elsewhere`: the discard a 胡 was won on (放炮), which joins no hand;
        a 自摸 card is in the winner's hand."""
        w = self.win
        return {"won on": [w["card"]]} if w is not None and w["kind"] == "dianpao" else {}
