"""The 花牌 family (三精, 五精, 雙別桿) as a state machine over the engine core (replay/engine.py).

Seed: 002_f9a80b28e0fcbf1a.txt (cited as 002 §section; the three sections repeat one text).
Readings and decisions: docs/rules/huapai.md. A draw goes into the drawer's hand (spec §4); the
drawer may then 胡 (自摸), 扎 or 開泛 with it, or discard. On a discard: 胡 (放銃) before 招/對, and
among seats the discarder's 下家 first (002 §2 對: 如是下家打出，必須等上家說不對之後才可對).
Rule options read here: ``fan_from_hand`` (開泛 of four held + the drawn 5th, or of five dealt),
``bu_pai_empty`` (扎/招/開泛 with no replacement left), ``zhao_bu_from`` (which end 招's replacement
comes from), ``dui_limit`` (a cap on a seat's 對), ``mashang_dui`` (the 下家's 對 before 胡),
``qing_tong_kai_fan`` (開泛 of a 請統 replacement) and, through the scorer, the rest.
"""

from __future__ import annotations

import copy
from itertools import compress
from typing import Any, Sequence

from replay.cards import HUAPAI_CHARS, Deck
from replay.engine import GameState, Option, Phase, Window
from replay.groups import Group, groups_json
from replay.record import Event
from replay.variants.huapai import scoring as sc

# Phase members as module names: one global read per use (``Phase.X`` is a global read and an
# attribute lookup on the class)
START, DISCARD, WINDOW, DRAW, OVER = Phase.START, Phase.DISCARD, Phase.WINDOW, Phase.DRAW, Phase.OVER
R_HU, R_CLAIM = 0, 1  # window ranks: 胡 before 招/對 (docs/rules/huapai.md, decision 3)
DUI_LIMIT = 2  # 002 §2 對: 一局內限對2對 … 對了3次以上 … 由此人承包
TAIL_ACTS = ("zha", "kai_fan")  # 002 §2: 扎 / 開泛 replacements come from 牌底 (the tail)
# 002 §2 招: 在牌面起一張牌 (the front); option zhao_bu_from=tail draws it from the 牌底 as well
TAIL_ACTS_ZHAO = TAIL_ACTS + ("zhao",)
CHAR_KINDS = sc.CHAR_KINDS  # char -> (plain, 花 or None)


_CFGS: dict[tuple, sc.Cfg] = {}  # one scorer config per deck, 精 and ruleset: the search memo keys on it


def _cfg(deck: Deck, jing: str, ruleset) -> sc.Cfg:
    key = (deck.family, jing, ruleset["dui_hu"], ruleset["zhu_jing_tie"], ruleset["tingtou_jing"],
           ruleset["zha_in_hand"], ruleset["lai_hu"])
    cfg = _CFGS.get(key)
    if cfg is None:
        cfg = _CFGS[key] = sc.Cfg(deck, frozenset(HUAPAI_CHARS.index(c) for c in jing), *key[2:])
    return cfg


_DISCARDS: dict[tuple[str, int], list[Event]] = {}


def discard_events(deck: Deck, seat: int) -> list[Event]:
    """Per kind of ``deck``, the event of ``seat`` discarding it: made once per process (an event is
    a value: nothing changes it once made), so a turn picks the held kinds' events with ``compress``."""
    evs = _DISCARDS.get((deck.family, seat))
    if evs is None:
        evs = _DISCARDS[(deck.family, seat)] = [Event(seat=seat, act="discard", card=c) for c in deck.codes]
    return evs


class HuapaiState(GameState):
    """A hand of 三精 / 五精 / 雙別桿 花牌. Construct with a decoded record, its ruleset, the variant
    id, its deck and its 精 characters."""

    draw_result_extra = {"jing": None, "bao": None}

    def __init__(self, record, ruleset, variant: str, deck: Deck, jing: str) -> None:
        self.variant = variant
        self.deck = deck
        super().__init__(record, ruleset)
        self.after = [tuple((s + i) % self.n for i in range(1, self.n)) for s in range(self.n)]  # 下家 first
        self.cfg = _cfg(deck, jing, ruleset)
        self.complete = sc.COMPLETE[self.cfg.zha_in_hand]  # the cheap shape test of this ruleset
        self.fan_from_hand = ruleset["fan_from_hand"] == "yes"
        self.refuse_empty = ruleset["bu_pai_empty"] == "refuse"
        self.tail_acts = TAIL_ACTS_ZHAO if ruleset["zhao_bu_from"] == "tail" else TAIL_ACTS
        # 002 §2 對: 一局內限“對”2對 — by default a limit kept by 承包 (a 3rd 對 is allowed and pays);
        # option dui_limit=2: a seat's 3rd 對 is refused (docs/rules/huapai.md decision 15)
        self.dui_limit = ruleset["dui_limit"]
        # 002 §2 對: 如是上家打出可以馬上“對” — option mashang_dui=before_hu: the discarder's 下家 may 對
        # ahead of every 胡 on the card (decision 16)
        self.mashang = ruleset["mashang_dui"] == "before_hu"
        # 002 §2 開泛: 手中有1扎…自己起到同一張字，可以再扎一次 — option qing_tong_kai_fan=yes: also the 5th
        # drawn as a 請統 replacement (decision 17)
        self.qt_kai_fan = ruleset["qing_tong_kai_fan"] == "yes"
        self.qt_drawn: tuple[int, int] | None = None  # (seat, kind) of the last 請統 replacement
        self.lai = sc.lai_kind(deck)
        self.drawn: int | None = None  # kind the seat in turn just drew: it may 胡/扎/開泛 with it
        self.owed: str | None = None  # act whose replacement draw is owed: zha / kai_fan (tail), zhao (front or, zhao_bu_from, tail)
        self.owed_more = 0  # replacements owed after the next one (a 開泛 from the hand owes two)
        self.dui_count = [0] * self.n
        self.bao_order: list[int] = []  # seats in the order they made their 3rd 對 (承包)
        self.qingtong = True  # 請統: before the dealer's first discard
        self.qt_from = 0  # position in the 請統 order from which seats may still 扎
        self.win: dict[str, Any] | None = None
        self.discard_events = [discard_events(deck, s) for s in range(self.n)]
        self.window = Window(-1, self.dealer, "start", self.start_options())
        self.phase = START

    def __deepcopy__(self, memo: dict) -> "HuapaiState":
        """A copy for :meth:`~replay.engine.GameState.fork`: what a game changes is copied (hands, melds, rivers,
        counters, the open window's passes, the settlement); the rest is shared — the record,
        ruleset, deck, wall (read through ``front``/``back``), scorer config and event tables never
        change in a game. (A plain deep copy of the tables would be most of a judged position's cost.)"""
        new = copy.copy(self)
        new.hands = [list(h) for h in self.hands]
        new.melds = [list(m) for m in self.melds]  # a meld is a tuple: replaced, never changed
        new.river = [list(r) for r in self.river]
        new.dui_count = list(self.dui_count)
        new.bao_order = list(self.bao_order)
        if self.window is not None:
            self.window.options  # noqa: B018 - built now: a lazy builder is a closure over this state
            new.window = copy.copy(self.window)
            new.window.passed = set(self.window.passed)
        new.outcome = copy.deepcopy(self.outcome, memo)
        new.win = dict(self.win) if self.win is not None else None  # its Split is frozen
        return new

    # -- hand helpers ----------------------------------------------------------------------
    def code(self, k: int) -> str:
        return self.deck.codes[k]

    def char_of(self, k: int) -> int | None:
        """Character (0..21) of kind ``k``; None for 賴."""
        return None if k == self.lai else sc.KCHAR[k]

    def char_count(self, seat: int, ch: int) -> int:
        p, f = CHAR_KINDS[ch]
        h = self.hands[seat]
        return h[p] if f is None else h[p] + h[f]

    def own_choices(self, seat: int, ch: int, n: int, keep: int | None = None) -> list[list[str]]:
        """Every way to take ``n`` cards of character ``ch`` from ``seat``'s hand (plain / 花
        mixes), leaving one copy of kind ``keep`` aside (the drawn card of a 扎)."""
        h = self.hands[seat]
        p, f = CHAR_KINDS[ch]
        hp = h[p] - (keep == p)
        hf = 0 if f is None else h[f] - (keep == f)
        codes = self.deck.codes
        cp = codes[p]
        cf = [] if f is None else [codes[f]]  # hf is 0 when the character has no 花 copy
        # fewest 花 first; each mix needs its plain and its 花 copies in hand
        return [[cp] * (n - nf) + cf * nf for nf in range(0, min(n, hf) + 1) if n - nf <= hp]

    def wins(self, seat: int, hand: list[int], card: int) -> bool:
        """Whether ``hand`` (concealed, before ``card``) with ``seat``'s melds is a win: complete and
        ≥ 17 胡 (002 §4). The cheap shape test runs first."""
        if not self.complete(hand, card, self.cfg.jing):
            return False
        s = sc.best_split(hand, self.melds[seat], card, self.cfg)
        return s is not None and s.points >= sc.MIN_HU

    def can_win(self, seat: int, card: int) -> bool:
        """放銃: ``seat`` wins on another seat's discard ``card``."""
        return self.wins(seat, self.hands[seat], card)

    def without_drawn(self, seat: int) -> list[int]:
        h = list(self.hands[seat])
        assert self.drawn is not None
        h[self.drawn] -= 1
        return h

    def can_zimo(self, seat: int) -> bool:
        """自摸: ``seat`` wins on the card it just drew (already in its hand)."""
        # the shape test of the hand as it is equals that of the hand without the drawn card plus it
        return (self.drawn is not None and self.complete(self.hands[seat], None, self.cfg.jing)
                and self.wins(seat, self.without_drawn(seat), self.drawn))

    def can_replace(self, n: int = 1) -> bool:
        """Whether an act owing ``n`` replacement draws is allowed by the wall: always under
        ``bu_pai_empty=huang`` (an empty wall then ends the hand, 荒庄), else while ``n`` are left."""
        return not self.refuse_empty or self.wall_left >= n

    def refuse_replacement(self, s: int, act: str, n: int = 1):
        """The error for ``act`` when the wall lacks its ``n`` replacements (``bu_pai_empty=refuse``)."""
        end = "牌底 (在牌底起一張牌)" if act in self.tail_acts else "front (招: 在牌面起一張牌)"
        return self.fail("illegal_action", "bu_pai_empty",
                         f"seat {s} `{act}` owes {n} replacement draw{'s' if n > 1 else ''} from the {end}, but the "
                         f"wall holds {self.wall_left} (rule option bu_pai_empty=refuse)")

    # -- options ---------------------------------------------------------------------------
    def qt_order(self) -> list[int]:
        """請統 order: 末家 first, then 二家, the dealer last (002 §2 扎: 末家先扎，二家次扎，莊家最後扎)."""
        return [(self.dealer + self.n - 1 - j) % self.n for j in range(self.n)]

    def start_options(self) -> list[Option]:
        """請統: every seat at or after ``qt_from`` in the 請統 order holding four alike may 扎 them;
        with ``fan_from_hand=yes`` five dealt alike may be laid as a 泛 (開泛, two replacements); with
        ``qing_tong_kai_fan=yes`` the seat that just drew its replacement may 開泛 it onto its 扎."""
        out = []
        for pos, s in enumerate(self.qt_order()):
            if pos < self.qt_from:
                continue
            if self.qt_kai_fan and self.qt_drawn is not None and self.qt_drawn[0] == s:
                # 開泛: 手中有1扎…自己起到同一張字，可以再扎一次 (002 §2): the 扎 just laid + the 5th drawn
                d = self.qt_drawn[1]
                ch = self.char_of(d)
                if ch is not None and self.hands[s][d] and self.fan_meld(s, ch) is not None and self.can_replace():
                    out.append(Option(s, "kai_fan", (pos,), False, [Event(seat=s, act="kai_fan", card=self.code(d))], "qing_tong"))
            counts = sc.char_counts(self.hands[s])
            if max(counts) < 4:
                continue
            if self.fan_from_hand and max(counts) == 5 and self.can_replace(2):  # listed first: bots prefer it
                out.append(Option(s, "kai_fan", (pos,), False, [Event(seat=s, act="kai_fan", cards=cards)
                                  for ch, n in enumerate(counts) if n == 5 for cards in self.own_choices(s, ch, 5)], "qing_tong"))
            evs = [Event(seat=s, act="zha", cards=cards)
                   for ch, n in enumerate(counts) if n >= 4 for cards in self.own_choices(s, ch, 4)]
            if evs and self.can_replace():
                out.append(Option(s, "zha", (pos,), False, evs, "qing_tong"))
        return out

    def window_options(self, card: int, src: int) -> list[Option]:
        """Options on ``card`` discarded by ``src``: 胡 (放銃), then 招 and 對; the 下家 first."""
        out: list[Option] = []
        code = self.deck.codes[card]
        order = self.after[src]
        hands = self.hands
        jing = self.cfg.jing
        for pos, s in enumerate(order):
            # 放銃 (can_win): the cheap shape test first, then the 17-胡 minimum
            if self.complete(hands[s], card, jing) and self.wins(s, hands[s], card):
                out.append(Option(s, "hu", (R_HU, pos), False, [Event(seat=s, act="hu", card=code)], "hu"))
        if card == self.lai:
            return out  # a 賴 is never 對'd or 招'd (docs/rules/huapai.md, decision 9)
        ch = sc.KCHAR[card]
        p, f = CHAR_KINDS[ch]
        for pos, s in enumerate(order):
            h = hands[s]
            n = h[p] if f is None else h[p] + h[f]
            if n < 2:
                continue
            if n >= 3 and self.can_replace():  # 招: 手中有1坎，別人再出一張 (002 §2 招)
                out.append(Option(s, "zhao", (R_CLAIM, pos), False,
                                  [Event(seat=s, act="zhao", card=code, cards=c) for c in self.own_choices(s, ch, 3)],
                                  "zhao"))
            if (n > 2 or sum(h) > 2) and self.may_dui(s):  # 對: 手中有2個相同的字，別人再打出一張 (002 §2 對)
                # 如是上家打出可以馬上“對” (002 §2 對): before every 胡 with mashang_dui=before_hu
                key = (R_HU, -1) if pos == 0 and self.mashang else (R_CLAIM, pos)
                out.append(Option(s, "dui", key, False,
                                  [Event(seat=s, act="dui", card=code, cards=c) for c in self.own_choices(s, ch, 2)],
                                  "dui"))
        return out

    def may_dui(self, seat: int) -> bool:
        """Whether ``seat`` may make another 對: always (a 3rd 對 owes 承包), or below ``dui_limit``."""
        return self.dui_limit == "none" or self.dui_count[seat] < self.dui_limit

    def turn_events(self) -> list[Event]:
        """What the seat in turn may do: discard any card; with the card it just drew, 胡 (自摸), 扎
        (a 坎 in hand + the drawn 4th) or 開泛 (a 扎/招 on the table + the drawn 5th; with
        ``fan_from_hand=yes`` also four in hand + the drawn 5th) (002 §2, §4)."""
        s = self.turn
        evs = list(compress(self.discard_events[s], self.hands[s]))  # every kind held, in deck order
        d = self.drawn
        if d is None:
            return evs
        dc = self.deck.codes[d]
        h = self.hands[s]
        # 自摸 (can_zimo): the hand as it is holds the drawn card; the cheap shape test first
        if self.complete(h, None, self.cfg.jing) and self.can_zimo(s):
            evs.append(Event(seat=s, act="hu", card=dc))
        if d != self.lai and self.can_replace():
            ch = sc.KCHAR[d]
            p, f = CHAR_KINDS[ch]
            n = h[p] if f is None else h[p] + h[f]
            if n >= 4:
                evs += [Event(seat=s, act="zha", card=dc, cards=c) for c in self.own_choices(s, ch, 3, keep=d)]
            if self.fan_meld(s, ch) is not None:
                evs.append(Event(seat=s, act="kai_fan", card=dc))
            elif n == 5 and self.fan_from_hand and self.can_replace(2):
                evs += [Event(seat=s, act="kai_fan", card=dc, cards=c) for c in self.own_choices(s, ch, 4, keep=d)]
        return evs

    def fan_meld(self, seat: int, ch: int) -> int | None:
        """Index of ``seat``'s 扎 or 招 meld of character ``ch`` (开泛 target), or None."""
        for i, (k, cards) in enumerate(self.melds[seat]):
            if k in ("zha", "zhao") and sc.KCHAR[cards[0]] == ch:
                return i
        return None

    # -- events ----------------------------------------------------------------------------
    def to_draw(self, seat: int, owed: str | None = None, n: int = 1) -> None:
        """``seat`` draws next (``owed``: the act whose ``n`` replacements are due); an empty wall
        ends the hand drawn (荒庄)."""
        if self.wall_left == 0:
            self.end_draw()
            return
        self.phase, self.turn, self.owed, self.drawn = DRAW, seat, owed, None
        self.owed_more = n - 1

    def on_draw(self, ev: Event) -> None:
        s = self.turn
        if self.owed and (ev.seat != s or ev.act != "draw"):
            # an owed replacement is a forced act (002 §2): skipping it is missing_forced_action (spec §6),
            # whoever logged the next event — one code with 上大人 and 通城
            end = "牌底 (tail)" if self.owed in self.tail_acts else "front"
            raise self.fail("missing_forced_action", "bu_pai",
                            f"seat {s} owes the replacement draw from the {end} of the wall after its `{self.owed}`, "
                            f"not `{ev.act}` by seat {ev.seat}")
        if ev.seat != s:
            raise self.fail("out_of_turn", "turn", f"seat {s} draws next, not seat {ev.seat} (`{ev.act}`)")
        if ev.act != "draw":
            raise self.fail("illegal_action", "turn", f"seat {s} must draw now, not `{ev.act}`")
        tail = self.owed in self.tail_acts
        if ev.tail != tail:  # 002 §2: 扎/開泛 在牌底起一張牌; 招 在牌面起一張牌 (or 牌底: zhao_bu_from); others the front
            why = (f"the replacement after `{self.owed}` comes from the 牌底 (tail: true)" if tail else
                   ("the replacement after `zhao` comes from the front of the wall (招: 在牌面起一張牌)" if self.owed
                    else "a turn's draw comes from the front of the wall"))
            raise self.fail("illegal_action", "bu_pai_end", f"seat {s} drew from the {'tail' if ev.tail else 'front'}: {why}")
        c = self.card(ev.card)
        want = self.wall[self.back - 1] if tail else self.wall[self.front]
        if c != want:
            raise self.fail("wall_mismatch", "paipu.wall",
                            f"seat {s} drew {self.code(c)} but the {'last' if tail else 'next'} card of the wall is {self.code(want)}")
        if tail:
            self.back -= 1
        else:
            self.front += 1
        self.hands[s][c] += 1
        if self.owed_more:  # the next replacement of the same act is due first
            self.owed_more -= 1
            if self.wall_left == 0:
                self.end_draw()
            return
        self.owed = None
        if self.qingtong:  # a 請統 replacement: the 請統 goes on from this seat
            self.qt_drawn = (s, c)
            self.window = Window(-1, self.dealer, "start", self.start_options())
            self.phase = START
            return
        self.drawn = c
        self.phase = DISCARD

    def on_discard_phase(self, ev: Event) -> None:
        s = self.turn
        if ev.seat != s:
            raise self.fail("out_of_turn", "turn", f"seat {s} is to play now, not seat {ev.seat} (`{ev.act}`)")
        h = self.hands[s]
        if ev.act == "discard":
            c = self.card(ev.card)
            if h[c] == 0:
                raise self.fail("illegal_action", "discard", f"seat {s} holds no {self.code(c)} to discard")
            h[c] -= 1
            self.drawn = None
            # built lazily: no option of a discard window is forced or changes the state when passed,
            # so a window nobody claims closes without anyone's options (most windows; speed only)
            self.window = Window(c, s, "discard", build=lambda: self.window_options(c, s), closing=list)
            self.phase = WINDOW
            return
        if ev.act not in ("hu", "zha", "kai_fan"):
            raise self.fail("illegal_action", "turn", f"seat {s} may discard, 胡, 扎 or 開泛 now, not `{ev.act}`")
        d = self.drawn
        if d is None:
            raise self.fail("illegal_action", ev.act,
                            f"seat {s} has drawn no card this turn, so it cannot `{ev.act}` now (it must discard)")
        if ev.card is None or self.card(ev.card) != d:
            raise self.fail("illegal_action", ev.act, f"seat {s} `{ev.act}` must name the card it just drew, {self.code(d)}")
        if ev.act == "hu":
            if not self.can_zimo(s):
                raise self.refuse_win(s, self.without_drawn(s), d)
            self.end_win(s, d, None)
            return
        ch = self.char_of(d)
        if not self.can_replace():
            raise self.refuse_replacement(s, ev.act)
        if ev.act == "zha":  # 002 §2 扎: 手中有1坎，自己再起到同一張 … 在牌底起一張牌
            own, rest = self.own_beside_drawn(s, ev, ch, 3)
            self.hands[s] = rest
            self.melds[s].append(("zha", tuple(sorted([d, *own]))))
            self.to_draw(s, "zha")
            return
        # 開泛: 手中有1扎，或招過1扎牌，自己起到同一張字 … 須在牌底再起一張牌 (002 §2)
        i = self.fan_meld(s, ch) if ch is not None else None
        if ev.cards is not None and i is None and self.fan_from_hand:  # four in hand + the drawn 5th
            own, rest = self.own_beside_drawn(s, ev, ch, 4)
            if not self.can_replace(2):
                raise self.refuse_replacement(s, ev.act, 2)
            self.hands[s] = rest
            self.melds[s].append(("kai_fan", tuple(sorted([d, *own]))))
            self.to_draw(s, "kai_fan", 2)  # as a 扎 and its 開泛: two from the 牌底
            return
        if i is None or ev.cards is not None:
            raise self.fail("illegal_action", "kai_fan",
                            f"seat {s} 開泛 needs a 扎 or 招 of {self.code(d)} on the table (and no `cards`: it is an "
                            "upgrade)" + ("" if self.fan_from_hand else "; from four in hand only with rule option "
                                          "fan_from_hand=yes"))
        h[d] -= 1
        cards = self.melds[s][i][1]
        self.melds[s][i] = ("kai_fan", tuple(sorted([*cards, d])))
        self.to_draw(s, "kai_fan")

    def own_beside_drawn(self, s: int, ev: Event, ch: int | None, n: int) -> tuple[list[int], list[int]]:
        """``ev.cards`` as kinds and ``s``'s hand without them and the drawn card, for a 扎 (``n`` = 3)
        or a 開泛 from the hand (4) with the drawn card of character ``ch``.

        :raises RuleViolation: ``illegal_action`` (rule ``ev.act``): they are not ``n`` cards of
            ``ch`` held beside the drawn one.
        """
        own = [self.card(x) for x in ev.cards or []]
        rest = self.without_drawn(s)
        for k in own:
            rest[k] -= 1
        if ch is None or len(own) != n or any(self.char_of(k) != ch for k in own) or min(rest) < 0:
            what = "扎" if ev.act == "zha" else "開泛 from the hand"
            raise self.fail("illegal_action", ev.act, f"seat {s} {what} needs {n} "
                            f"{HUAPAI_CHARS[ch] if ch is not None else '?'} in hand beside the drawn "
                            f"{self.code(self.drawn) if self.drawn is not None else '?'}")
        return own, rest

    def window_closed(self, w: Window) -> None:
        if w.kind == "start":  # 請統 over: the dealer discards first
            self.qingtong = False
            self.phase, self.turn, self.drawn = DISCARD, self.dealer, None
            return
        self.river[w.src].append(w.card)
        self.to_draw(self.xia(w.src))

    def apply_claim(self, opt: Option, ev: Event, w: Window) -> None:
        s, act = ev.seat, ev.act
        h = self.hands[s]
        if w.kind == "start" and act == "kai_fan" and ev.cards is None:  # the 扎 + its replacement (qing_tong_kai_fan)
            d = self.card(ev.card)
            h[d] -= 1
            i = self.fan_meld(s, sc.KCHAR[d])
            assert i is not None  # offered only over an own 扎 (start_options)
            self.melds[s][i] = ("kai_fan", tuple(sorted([*self.melds[s][i][1], d])))
            self.qt_from = self.qt_order().index(s)
            self.to_draw(s, "kai_fan")  # 開泛 … 須在牌底再起一張牌 (002 §2)
            return
        if w.kind == "start":  # 請統 扎 of four dealt alike (開泛 of five); replacements from the tail
            own = [self.card(x) for x in ev.cards or []]
            for k in own:
                h[k] -= 1
            self.melds[s].append((act, tuple(sorted(own))))
            self.qt_from = self.qt_order().index(s)
            self.to_draw(s, act, 2 if act == "kai_fan" else 1)
            return
        c = w.card
        if act == "hu":
            self.end_win(s, c, w.src)
            return
        own = [self.card(x) for x in ev.cards or []]
        for k in own:
            h[k] -= 1
        if act == "dui":
            self.melds[s].append(("dui", tuple(sorted([c, *own]))))
            self.dui_count[s] += 1
            if self.dui_count[s] == DUI_LIMIT + 1:
                self.bao_order.append(s)  # 對了3次以上 … 若他人胡牌，則由此人承包 (002 §2 對)
            self.phase, self.turn, self.drawn = DISCARD, s, None
            return
        # 招: replacement from the front (002 §2 招: 在牌面起一張牌), or the 牌底 with zhao_bu_from=tail
        self.melds[s].append(("zhao", tuple(sorted([c, *own]))))
        self.to_draw(s, "zhao")

    # -- errors in words ---------------------------------------------------------------------
    def explain_missing_option(self, ev: Event, w: Window, mine: list[Option]) -> None:
        if w.kind == "start":
            if ev.act in ("zha", "kai_fan"):
                pos = self.qt_order().index(ev.seat)
                if pos < self.qt_from:
                    raise self.fail("illegal_action", "qing_tong",
                                    f"seat {ev.seat} passed its 請統 turn: a seat after it in the order (末家, 二家, 莊家) has 扎 since")
            if ev.act == "kai_fan" and ev.cards is None:
                raise self.fail("illegal_action", "qing_tong", f"seat {ev.seat} may 開泛 at 請統 only the 5th it just drew as "
                                "the replacement of its 扎" + ("" if self.qt_kai_fan else
                                                              ", and only with rule option qing_tong_kai_fan=yes"))
            if ev.act == "kai_fan" and not self.fan_from_hand:
                raise self.fail("illegal_action", "qing_tong", f"seat {ev.seat} may 扎 four dealt alike at 請統; 開泛 of "
                                "five dealt needs rule option fan_from_hand=yes")
            if ev.act == "hu":
                raise self.fail("illegal_action", "hu", f"seat {ev.seat} cannot win before the dealer's first discard: the "
                                "seed names only 自摸 and 放銃 (no 天胡, docs/rules/huapai.md decision 6)")
            return
        s, c = ev.seat, w.card
        if ev.act == "hu":
            if s == w.src:
                raise self.fail("illegal_action", "hu", f"seat {s} cannot win on its own discard")
            if not self.can_win(s, c):
                raise self.refuse_win(s, self.hands[s], c)
        if ev.act in ("dui", "zhao") and s != w.src:
            ch = self.char_of(c)
            need = 2 if ev.act == "dui" else 3
            have = self.char_count(s, ch) if ch is not None else 0
            if have < need:
                raise self.fail("illegal_action", ev.act,
                                f"seat {s} holds {have} {self.code(c)}, `{ev.act}` needs {need} in hand"
                                + (" (a 賴 is never claimed)" if ch is None else ""))
            if ev.act == "zhao" and not self.can_replace():
                raise self.refuse_replacement(s, "zhao")
            if ev.act == "dui" and not self.may_dui(s):
                raise self.fail("illegal_action", "dui", f"seat {s} has made {self.dui_count[s]} 對: a 3rd is refused "
                                f"under rule option dui_limit={self.dui_limit} (002 §2 對: 一局內限對2對)")

    def refuse_win(self, s: int, hand: list[int], c: int):
        """The ``not_a_win`` error (rule ``hu_shape``) of ``s``'s 胡 on ``c`` with ``hand`` (concealed,
        before ``c``). A complete shape under the minimum carries ``detail = {"points", "groups"}``
        (its best split, spec §8 groups)."""
        sp = sc.best_split(hand, self.melds[s], c, self.cfg)
        if sp is None:
            groups = "句 or 坎" if self.cfg.zha_in_hand == "eight_groups" else "句, 坎, 扎 or 泛"
            return self.fail("not_a_win", "hu_shape",
                             f"seat {s}'s cards with {self.code(c)} do not all form {groups} around one 聽頭 (002 §4)")
        return self.fail("not_a_win", "hu_shape", f"seat {s}'s best split with {self.code(c)} makes {sp.points} 胡, "
                         f"under the {sc.MIN_HU}-胡 minimum (002 §4)",
                         detail={"points": sp.points, "groups": groups_json(sp.groups, self.deck)})

    # -- settlement --------------------------------------------------------------------------
    def end_win(self, s: int, c: int, src: int | None) -> None:
        """Settle a win by ``s`` on ``c``, discarded by ``src`` (None: 自摸, ``c`` already in hand).

        分 = 1 + ⌊(胡 − 17) / 5⌋ (002 §5); 放銃: the discarder pays both shares; 自摸: each loser one
        (002 §5: 放沖者輸20分，自扣時各出10分); 承包: the first other seat that made a 3rd 對 pays
        both (002 §2 對). Share = 分 × stake.
        """
        self.phase = OVER
        hand = self.without_drawn(s) if src is None else self.hands[s]
        split = sc.best_split(hand, self.melds[s], c, self.cfg)
        assert split is not None
        units = sc.fen(split.points)
        share = units * self.stake
        bao = next((b for b in self.bao_order if b != s), None)
        scores = [0] * self.n
        payer = bao if bao is not None else src
        if payer is not None:
            scores[payer] = -share * (self.n - 1)
        else:
            for o in range(self.n):
                if o != s:
                    scores[o] = -share
        scores[s] = share * (self.n - 1)
        if src is not None:
            self.hands[s][c] += 1  # the winning discard joins the hand shown
        self.win = {"seat": s, "card": c, "kind": "zimo" if src is None else "dianpao", "split": split}
        self.outcome = {
            "outcome": "win", "winner": s, "win_card": self.code(c), "from": src, "points": split.points,
            "hand_types": ["zimo"] if src is None else [],
            "jing": {"main": split.main, "count": split.jing_count},
            "units": units, "breakdown": {"qi": 1, "jin": units - 1}, "bao": bao, "scores": scores,
        }

    # -- views -------------------------------------------------------------------------------
    tail_note = " (tail)"  # a replacement from 牌底, the back of the wall (扎, 開泛; 招 under zhao_bu_from)

    def meld_points(self, kind: str, cards: Sequence[int], settled: bool = False) -> int:
        """:meth:`GameState.meld_points`: 胡 of a meld (002 §3 計胡規則; no 主精 on the table)."""
        return sc.meld_points(kind, cards, None, self.cfg)

    def win_groups(self) -> tuple[Group, ...] | None:
        """:meth:`GameState.win_groups`: the winner's best split."""
        return self.win["split"].groups if self.win is not None else None

    def facts_extra(self) -> dict[str, Any]:
        """``jing``: for a win ``{"main", "per_char": {char: {"hua", "su", "hu"}}}``, None for a draw."""
        if self.win is None:
            return {"jing": None}
        sp: sc.JingSplit = self.win["split"]
        return {"jing": {"main": sp.main, "per_char": sp.per_char}}

    def legal_events(self) -> list[Event]:
        """Every event that may come next (explicit passes included; in a window, the next draw
        or the dealer's first discard closes it)."""
        if self.phase is OVER:
            return []
        if self.phase is DRAW:
            tail = self.owed in self.tail_acts
            card = self.wall[self.back - 1] if tail else self.wall[self.front]
            return [Event(seat=self.turn, act="draw", card=self.code(card), tail=tail)]
        if self.phase is DISCARD:
            return self.turn_events()
        w = self.window
        assert w is not None
        evs = self.window_events()
        if w.kind == "start":
            evs += compress(self.discard_events[self.dealer], self.hands[self.dealer])
        elif self.wall_left:
            evs.append(Event(seat=self.xia(w.src), act="draw", card=self.code(self.wall[self.front])))
        return evs
