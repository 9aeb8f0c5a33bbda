"""沅江鬼胡子 as a state machine over the engine core (replay/engine.py).

Seed: 003_50360bd1f53fc819.txt (cited as 003 §section); readings and decisions:
docs/rules/yuanjiang_guihuzi.md. Priority (003 §玩法规则 1): 歪/溜 > 胡 > 碰 > 吃, 自己 > 下家.
Option keys below encode exactly that order (飘, the drawer's own 4th on its 碰, ranks with 歪/溜).
"""

from __future__ import annotations

from typing import Any, Sequence

from replay.cards import ZIPAI
from replay.engine import GameState, Option, Phase, Window
from replay.errors import RuleViolation
from replay.groups import Group
from replay.record import Event
from replay.variants.yuanjiang_guihuzi import _kernel as fast
from replay.variants.yuanjiang_guihuzi import scoring as sc

_EAT_WITH = tuple(sc.EAT_WITH[c] for c in range(20))  # sc.EAT_WITH by card (a C tuple compiled: state.pxd)
R_OWN, R_HU, R_PENG, R_CHI = 0, 1, 2, 3  # 003 §玩法规则 1: 歪/溜>胡>碰>吃


def _no_options() -> list[Option]:
    """A window's closing options (:class:`replay.engine.Window`): none, no option of 沅江 is forced."""
    return []


# The claim tests of one seat on its own data (its hand, 锁牌, closed cards): C functions, called
# per seat and card at every window; the methods of the same names below wrap them.

def _left_to_discard(h, lk, a, na, b, nb, new_locks):
    """Whether hand ``h`` less ``na`` of kind ``a`` and ``nb`` of ``b`` keeps a card to discard: one
    neither locked (``lk``) nor in ``new_locks`` (None: none)."""
    for k in range(20):
        n = h[k]
        if k == a:
            n -= na
        elif k == b:
            n -= nb
        if n > 0 and k not in lk and (new_locks is None or k not in new_locks):
            return True
    return False


def _chi_owns(h, lk, chi_closed, menzi_closed, card):
    """:meth:`YuanjiangState.chi_choices` of a seat's hand ``h``, 锁牌 ``lk`` and closed cards."""
    if card in chi_closed:
        return []
    out = []
    for eat in _EAT_WITH[card]:
        own = eat[0]
        a, b = own
        if not h[a] or not h[b] or (card, own) in menzi_closed:
            continue
        # chi_locks: ``lock`` (eat[1]) holds neither card of ``own``; its kinds not in hand have
        # nothing to discard anyway, so it is the new locks as far as a discard goes
        if _left_to_discard(h, lk, a, 1, b, 1, eat[1]):
            out.append(own)
    return out


def _wai_ok(h, lk, melds, c):
    """:meth:`YuanjiangState.may_wai` of a seat's hand ``h``, 锁牌 ``lk`` and melds."""
    if h[c] < 2:
        return False
    for m in melds:
        if m[1][0] == c and (m[0] == "wai" or m[0] == "peng"):
            return False
    return _left_to_discard(h, lk, c, 2, -1, 0, None)


def _peng_ok(h, lk, peng_closed, peng_own, c):
    """:meth:`YuanjiangState.may_peng` of a seat's hand ``h``, 锁牌 ``lk`` and closed cards."""
    return h[c] >= 2 and c not in peng_closed and c not in peng_own and _left_to_discard(h, lk, c, 2, -1, 0, None)


class YuanjiangState(GameState):
    """A 沅江鬼胡子 hand in play. Construct from a decoded record and its ruleset."""

    variant = "yuanjiang_guihuzi"
    deck = ZIPAI
    draw_result_extra = {"xing": None}
    # state.pxd declares these in C (compiled: not in __dict__); GameState.fields copies them
    C_FIELDS = GameState.C_FIELDS + (
        "chi_closed", "menzi_closed", "peng_closed", "peng_own", "intact", "chi_card", "locked", "after_wai",
        "dealer_discarded", "piao", "peng_on_flip", "peng_own_discard", "order", "win", "shapes", "ting")

    def __init__(self, record, ruleset) -> None:
        super().__init__(record, ruleset)
        n = self.n
        # 不能吃自己出过的牌 / 过吃: card -> rule id that closed it (003 §玩法规则 3 ②, 4.1)
        self.chi_closed: list[dict[int, str]] = [{} for _ in range(n)]
        # (card, 门子) closed to that 门子: card -> rule id (003 §玩法规则 3 ② example, 4.1 example)
        self.menzi_closed: list[dict[tuple[int, tuple[int, ...]], str]] = [{} for _ in range(n)]
        self.peng_closed: list[set[int]] = [set() for _ in range(n)]  # 过碰 (003 §玩法规则 4.2)
        # own discards closed to 碰 (option peng_own_discard; 003 §玩法规则 3 ② names only 吃)
        self.peng_own: list[set[int]] = [set() for _ in range(n)]
        # the concealed hand is still the dealt one: nothing discarded or claimed (option jiudui_ban)
        self.intact: list[bool] = [True] * n
        # per seat, the card eaten by each 吃, in meld order (None: not known, in a score case)
        self.chi_card: list[list[int | None]] = [[] for _ in range(n)]
        self.locked: list[set[int]] = [set() for _ in range(n)]  # 锁牌 (003 §玩法规则 4.3)
        self.after_wai: tuple[int, int] | None = None  # (seat, card): may 胡 now (003 §名词解析 4)
        self.dealer_discarded = False
        self.piao, self.peng_on_flip = ruleset["piao"], ruleset["peng_on_flip"]  # read per window
        self.peng_own_discard = ruleset["peng_own_discard"]
        self.order = [tuple((src + i) % n for i in range(n)) for src in range(n)]  # from src, in turn order
        self.win: dict[str, Any] | None = None
        self.shapes: dict[int, sc.HandShape] = {}  # hand (packed) → its shape answers (speed only)
        # 报听 (003 §胡牌胡型 2): 听 from the start; None until the dealer's first discard.
        self.ting: list[bool | None] = [None if s == self.dealer else self.is_ting(s) for s in range(n)]
        self.phase, self.turn = Phase.DISCARD, self.dealer  # the dealer discards first (no start window)

    # -- hand helpers ----------------------------------------------------------------------
    def free(self, seat: int) -> list[int]:
        """Counts of the cards ``seat`` may discard: 锁牌 cannot be discarded (003 §玩法规则 4.3)."""
        lk = self.locked[seat]
        return [0 if k in lk else c for k, c in enumerate(self.hands[seat])]

    def meld_of(self, seat: int, card: int, kind: str) -> int | None:
        """Index of ``seat``'s meld of ``kind`` made of ``card``, or None."""
        ms = self.melds[seat]
        for i in range(len(ms)):
            m = ms[i]
            if m[0] == kind and m[1][0] == card:
                return i
        return None

    def shape(self, seat: int) -> sc.HandShape:
        """The shape answers of ``seat``'s hand now (kept while the hand stays the same)."""
        key = fast.pack(self.hands[seat])
        hs = self.shapes.get(key)
        if hs is None:
            hs = self.shapes[key] = fast.shape_of(key)
        return hs

    def is_ting(self, seat: int) -> bool:
        """听: some card would complete the hand's shape (起胡条件 aside: 报听 lifts it)."""
        held = list(self.hands[seat])
        for _, cards in self.melds[seat]:
            for k in cards:
                held[k] += 1
        return self.shape(seat).waits(not self.melds[seat], held)

    def baoting(self, seat: int) -> bool:
        """Whether a win by ``seat`` now is 报听 (option ``baoting``; docs §Decisions 3)."""
        return self.rules["baoting"] == "auto" and bool(self.ting[seat])

    def win_hand(self, seat: int, card: int | None, wmode: str) -> tuple[list[int], list, int | None, str]:
        """``(hand, melds, card, wmode)`` that ``seat``'s 胡 on ``card`` is judged on: its own, except
        that a 胡 right after its own 歪 (``card`` None) is the 胡 on that flip — the hand before the
        歪 plus the card (docs decision 9: both logs of one win score alike, by one reading)."""
        aw = self.after_wai
        if card is None and aw is not None and aw[0] == seat:
            c, melds = aw[1], list(self.melds[seat])
            i = max(j for j, m in enumerate(melds) if m == ("wai", (c,) * 3))
            del melds[i]
            hand = list(self.hands[seat])
            hand[c] += 2
            return hand, melds, c, "self"
        return self.hands[seat], self.melds[seat], card, wmode

    def eaten(self, seat: int) -> frozenset[int]:
        """Kinds of the cards ``seat`` took from other seats by 吃 (for 外圆, 003 §名词解析 2: 有吃…变成4张);
        a 吃 whose eaten card is not known (a score case meld without ``card``) counts all its kinds."""
        chis = [cards for k, cards in self.melds[seat] if k == "chi"]
        out: set[int] = set()
        for cards, c in zip(chis, self.chi_card[seat]):
            out |= set(cards) if c is None else {c}
        return frozenset(out)

    def evaluate(self, seat: int, card: int | None, wmode: str, tianhu: bool = False) -> sc.Win:
        """Score ``seat`` winning on ``card`` (None: 天胡, or 胡 right after its own 歪)."""
        ctx = sc.Context(tianhu=tianhu, haidi=not tianhu and self.wall_left == 0, baoting=not tianhu and self.baoting(seat),
                         dealt=self.intact[seat], eaten=self.eaten(seat))
        hand, melds, card, wmode = self.win_hand(seat, card, wmode)
        return sc.evaluate(hand, melds, card, wmode, ctx, self.rules)

    def can_win(self, seat: int, card: int | None, wmode: str, tianhu: bool = False) -> bool:
        """Whether ``seat`` wins on ``card`` now: the shape, then 起胡条件 (003 §名词解析 5)."""
        if card is None:  # no shape, no reading: skip the scoring search (speed only)
            hand, melds, w, _ = self.win_hand(seat, None, wmode)
            if not sc.shape_ok(hand, melds, w):
                return False
        elif not self.shape(seat).wins(card, not self.melds[seat]):
            return False
        return self.evaluate(seat, card, wmode, tianhu).ok

    def chi_locks(self, seat: int, card: int, own: tuple[int, ...]) -> set[int]:
        """锁牌 made by eating ``card`` with ``own``: the copies of ``card`` left in hand and the other
        card that makes a sentence with ``own`` (003 §玩法规则 4.3: 小三小四小五小六 吃小三 → 小三 小六)."""
        h = self.hands[seat]
        known = sc.COMPLETIONS.get(own)
        cands = known | {card} if known is not None else sc.completions(own) | {card}
        return {k for k in cands if h[k] - own.count(k) > 0}

    def chi_choices(self, seat: int, card: int) -> list[tuple[int, int]]:
        """The 门子 (own two cards) ``seat`` may eat ``card`` with, honouring 不能吃自己出过的牌, 过吃 and
        their 门子 bans (003 §玩法规则 3 ②, 4.1), and leaving a card to discard."""
        return _chi_owns(self.hands[seat], self.locked[seat], self.chi_closed[seat], self.menzi_closed[seat], card)

    def may_wai(self, d: int, c: int) -> bool:
        """Whether ``d`` may 歪 its own flip ``c``: two in hand (自己有两张, 再摸出一张; no 歪 or 碰 of ``c`` on
        its table) and a card left to discard."""
        return _wai_ok(self.hands[d], self.locked[d], self.melds[d], c)

    def may_peng(self, s: int, c: int) -> bool:
        """Whether ``s`` may 碰 ``c``: two in hand, not closed by 过碰 (nor by its own discard, option
        ``peng_own_discard``), a card left to discard."""
        return _peng_ok(self.hands[s], self.locked[s], self.peng_closed[s], self.peng_own[s], c)

    # -- options ---------------------------------------------------------------------------
    def window_options(self, card: int, src: int, kind: str) -> list[Option]:
        """Every seat's options on ``card`` flipped (``kind='flip'``) or discarded by ``src``."""
        out: list[Option] = []
        c, code, flip, hands = card, ZIPAI.codes[card], kind == "flip", self.hands
        if flip:  # the drawer's own acts on its own flip (003 §名词解析 ③ ④ ⑤)
            d, h = src, hands[src]
            if self.meld_of(d, c, "wai") is not None:  # 歪后再摸一张 → 溜
                out.append(Option(d, "liu", (R_OWN, 0), False, [Event(seat=d, act="liu", card=code)], "liu"))
            elif self.meld_of(d, c, "peng") is not None:
                if self.piao:  # 碰后自己摸起一个 → 飘
                    out.append(Option(d, "piao", (R_OWN, 0), False, [Event(seat=d, act="piao", card=code)], "piao"))
            elif h[c] >= 2:
                if h[c] >= 3:  # 起手三张 + 摸到第四张 → 溜
                    out.append(Option(d, "liu", (R_OWN, 0), False,
                                      [Event(seat=d, act="liu", card=code, cards=[code] * 3)], "liu"))
                if self.may_wai(d, c):
                    out.append(Option(d, "wai", (R_OWN, 0), False,
                                      [Event(seat=d, act="wai", card=code, cards=[code] * 2)], "wai"))
        order = self.order[src]
        if flip:  # 只可胡自己或别人摸出来的牌; the drawer first, then turn order (spec §4)
            for pos, s in enumerate(order):
                if self.can_win(s, c, "self" if s == src else "flip"):
                    out.append(Option(s, "hu", (R_HU, pos), False, [Event(seat=s, act="hu", card=code)], "hu"))
        locked = self.locked
        if not flip or self.peng_on_flip:
            for s in order[1:]:
                if _peng_ok(hands[s], locked[s], self.peng_closed[s], self.peng_own[s], c):  # may_peng
                    out.append(Option(s, "peng", (R_PENG, 0), False,
                                      [Event(seat=s, act="peng", card=code, cards=[code] * 2)], "peng"))
        chi_seats = order[:2] if flip else order[1:2]  # 自己 > 下家
        codes = ZIPAI.codes
        for pos, s in enumerate(chi_seats):
            owns = _chi_owns(hands[s], locked[s], self.chi_closed[s], self.menzi_closed[s], c)  # chi_choices
            if owns:
                out.append(Option(s, "chi", (R_CHI, pos), False,
                                  [Event(seat=s, act="chi", card=code, cards=[codes[a], codes[b]]) for a, b in owns],
                                  "chi"))
        return out

    def discard_phase_events(self) -> list[Event]:
        """What the seat in its 出牌回合 may do: discard an unlocked card, 溜 (four in hand, or its 歪 plus
        the 4th from hand; no discard after), 胡 right after its 歪, 天胡 before anything."""
        s = self.turn
        h, lk, codes = self.hands[s], self.locked[s], ZIPAI.codes
        evs = [Event(seat=s, act="discard", card=codes[k]) for k in range(20) if h[k] and k not in lk]
        wai = {cards[0] for kind, cards in self.melds[s] if kind == "wai"}
        for k in range(20):  # 003 §玩法规则 3 ①: 出牌回合方可溜; 溜后不用出牌
            if h[k] == 4:
                evs.append(Event(seat=s, act="liu", cards=[codes[k]] * 4))
            elif h[k] >= 1 and k in wai:
                evs.append(Event(seat=s, act="liu", card=codes[k]))
        if self.step == 0 and s == self.dealer and self.can_win(s, None, "", tianhu=True):
            evs.append(Event(seat=s, act="hu"))  # 天胡: 庄家起手胡牌
        if self.after_wai and self.after_wai[0] == s and self.can_win(s, None, ""):
            evs.append(Event(seat=s, act="hu", card=ZIPAI.codes[self.after_wai[1]]))  # 歪后可以继续选择胡
        return evs

    # -- events ----------------------------------------------------------------------------
    def open_window(self, card: int, src: int, kind: str) -> None:
        """Open the claim window on ``card`` flipped or discarded by ``src``."""
        # built lazily: a window nobody claims needs no options at all (speed only): none is forced
        # (closing: none), and window_closed works out what the implicit passes close itself
        # bound per window, never kept on the state: a bound method there made every state a
        # cycle (state → method → state) that only the cyclic GC could free
        self.window = Window(card, src, kind, build=self._window_now, closing=_no_options)
        self.phase = Phase.WINDOW

    def _window_now(self) -> list[Option]:
        """:meth:`window_options` of the open window: every window's builder (the engine runs it
        while the window is open, so ``self.window`` is that window)."""
        w = self.window
        assert w is not None
        return self.window_options(w.card, w.src, w.kind)

    def on_draw(self, ev: Event) -> None:
        """A draw: the front card of the wall, flipped face up (spec §4). :raises RuleViolation:
        ``out_of_turn``, ``illegal_action`` (tail draw), ``wall_mismatch``."""
        if ev.act != "draw" or ev.seat != self.turn:
            raise self.fail("out_of_turn", "turn", f"expected seat {self.turn} to draw, got `{ev.act}` by seat {ev.seat}")
        if ev.tail:
            raise self.fail("illegal_action", "wall", "沅江鬼胡子 draws only from the front of the wall")
        c = self.card(ev.card)
        if c != self.wall[self.front]:
            raise self.fail("wall_mismatch", "paipu.wall",
                            f"seat {ev.seat} drew {ZIPAI.codes[c]} but the next card of the wall is {ZIPAI.codes[self.wall[self.front]]}")
        self.front += 1
        self.open_window(c, ev.seat, "flip")

    def on_discard_phase(self, ev: Event) -> None:
        """The seat's 出牌回合: discard (not a 锁牌), 溜 from hand (then the 下家 draws), 胡 after its own
        歪, or 天胡. :raises RuleViolation: ``out_of_turn``, ``illegal_action`` (``suo_pai``, ``liu``,
        ``mo_pai_hu``, ``discard``), ``not_a_win``."""
        s = self.turn
        if ev.seat != s:
            raise self.fail("out_of_turn", "turn", f"seat {s} must play now (discard, 溜 or 胡), not seat {ev.seat} (`{ev.act}`)")
        h = self.hands[s]
        if ev.act == "discard":
            c = self.card(ev.card)
            if h[c] == 0:
                raise self.fail("illegal_action", "discard", f"seat {s} holds no {self.label(c)} to discard")
            if c in self.locked[s]:
                raise self.fail("illegal_action", "suo_pai",
                                f"{self.label(c)} is locked (锁牌) for seat {s} since its 吃: it cannot be discarded (003 §玩法规则 4.3)")
            h[c] -= 1
            after_wai = self.after_wai is not None
            self.after_wai = None
            self.intact[s] = False
            self.close_after_discard(s, c)
            # 报听: 起手听牌(庄家为打出第一张后听牌),没打出过手牌情况下胡牌 (003 §胡牌胡型 2). The dealer's 听 is
            # judged at its first discard unless a 动张 came first: a 吃 or 碰 (ting already False), or the
            # 歪 this discard follows (only 歪 then 胡 or 溜 is no 动张); any other discard loses it.
            if s == self.dealer and not self.dealer_discarded:
                self.dealer_discarded = True
                self.ting[s] = self.ting[s] is None and not after_wai and self.is_ting(s)
            else:
                self.ting[s] = False  # 打出过手牌: no 报听
            self.open_window(c, s, "discard")
            return
        if ev.act == "liu":
            if ev.cards is not None and ev.card is None:
                kinds = [self.card(x) for x in ev.cards]
                k = kinds[0]
                if len(kinds) != 4 or len(set(kinds)) != 1 or h[k] < 4:
                    raise self.fail("illegal_action", "liu", f"seat {s} has no four {self.label(k)} in hand to 溜")
                h[k] -= 4
                self.melds[s].append(("liu", (k,) * 4))
            else:
                k = self.card(ev.card)
                i = self.meld_of(s, k, "wai")
                if ev.cards is not None or i is None or h[k] < 1:
                    raise self.fail("illegal_action", "liu", f"seat {s} has no 歪 of {self.label(k)} plus the 4th in hand to 溜")
                h[k] -= 1
                self.melds[s][i] = ("liu", (k,) * 4)
            self.after_wai = None  # 歪后即溜 keeps 报听 (no discard)
            self.intact[s] = False
            self.to_draw(self.xia(s))  # 溜后不用出牌: the 下家 draws
            return
        if ev.act == "hu":
            if self.step == 0 and s == self.dealer and ev.card is None:
                if not self.can_win(s, None, "", tianhu=True):
                    raise self.not_a_win(s, None, "", tianhu=True)
                self.end_win(s, None, None, None, tianhu=True)
                return
            aw = self.after_wai
            if aw is None or aw[0] != s or (ev.card is not None and self.card(ev.card) != aw[1]):
                raise self.fail("illegal_action", "mo_pai_hu",
                                f"seat {s} has no drawn card to win on now (only 天胡, or 胡 right after its own 歪)")
            if not self.can_win(s, None, ""):
                raise self.not_a_win(s, None, "")
            self.end_win(s, aw[1], "self", None)
            return
        raise self.fail("illegal_action", "discard", f"seat {s} must discard, 溜 or 胡 now, not `{ev.act}`")

    def close_after_discard(self, s: int, c: int) -> None:
        """不能吃自己出过的牌; the 门子 in hand that would have taken ``c`` may not eat its other card
        (003 §玩法规则 3 ②: 234568 出4 → 23 不能吃1, 56 不能吃7, 68 可以吃7); with option
        ``peng_own_discard`` no 碰 of ``c`` either."""
        self.chi_closed[s].setdefault(c, "chi_own_discard")
        if self.peng_own_discard:
            self.peng_own[s].add(c)
        h, closed = self.hands[s], self.menzi_closed[s]
        for eat in _EAT_WITH[c]:
            own = eat[0]
            if h[own[0]] and h[own[1]]:
                for x in eat[2]:
                    closed.setdefault((x, own), "chi_own_discard")

    def passed(self, o: Option, c: int) -> None:
        """What passing option ``o`` on ``c`` closes (003 §玩法规则 4): 过吃 closes ``c`` and, for each
        门子 that could eat it, that 门子's other card; 过碰 and a passed 歪 close 碰 of ``c``."""
        if o.act == "chi":
            self.pass_chi(o.seat, c, [tuple(sorted(ZIPAI.index(x) for x in e.cards or [])) for e in o.events])
        elif o.act in ("peng", "wai"):
            self.peng_closed[o.seat].add(c)

    def pass_chi(self, s: int, c: int, owns: list[tuple[int, ...]]) -> None:
        """过吃 of ``c`` by ``s``, whose 吃 option ate it with the 门子 ``owns`` (:meth:`passed`)."""
        self.chi_closed[s].setdefault(c, "guo_chi")
        closed = self.menzi_closed[s]
        for own in owns:
            for x in sc.COMPLETIONS[own]:  # an option's 门子 is always one of a sentence
                if x != c:
                    closed.setdefault((x, own), "guo_chi")

    def pass_all(self, c: int, src: int, kind: str) -> None:
        """Every seat passes ``c``: what :meth:`passed` closes for each option of :meth:`window_options`
        whose pass closes something (歪, 碰, 吃), asked by the same tests without building the options."""
        order, flip = self.order[src], kind == "flip"
        hands, locked, peng_closed = self.hands, self.locked, self.peng_closed
        if flip and _wai_ok(hands[src], locked[src], self.melds[src], c):
            peng_closed[src].add(c)
        if not flip or self.peng_on_flip:
            for i in range(1, len(order)):
                s = order[i]
                if _peng_ok(hands[s], locked[s], peng_closed[s], self.peng_own[s], c):
                    peng_closed[s].add(c)
        for i in range(0 if flip else 1, min(2, len(order))):  # 自己 > 下家
            s = order[i]
            owns = _chi_owns(hands[s], locked[s], self.chi_closed[s], self.menzi_closed[s], c)
            if owns:
                self.pass_chi(s, c, owns)

    def window_closed(self, w: Window) -> None:
        """Nobody claimed: every option counts as passed (explicit passes close what implicit ones
        do); the card joins the river (a flip as the drawer's discard) and the source's 下家 draws, or
        the hand is drawn when the wall is empty."""
        self.pass_all(w.card, w.src, w.kind)
        self.river[w.src].append(w.card)
        if w.kind == "flip":  # an unclaimed flip counts as the drawer's discard (spec §4)
            self.close_after_discard(w.src, w.card)
        self.to_draw(self.xia(w.src))

    def apply_claim(self, opt: Option, ev: Event, w: Window) -> None:
        """Do a claim: 胡 settles; 溜/飘 lay four and the 下家 draws (溜后不用出牌); 歪/碰/吃 lay three and
        the claimer discards next (吃 locks cards, 003 §玩法规则 4.3). Explicit passes close their cards."""
        s, c, act = ev.seat, w.card, ev.act
        for o in w.options:  # seats that passed explicitly before this claim
            if o.seat in w.passed:
                self.passed(o, c)
            elif o.seat == s and act == "chi" and (o.act == "peng" or o.act == "wai"):
                # 过碰: 能碰未碰后面不可再碰, 有歪未歪后面也不能碰 (003 §玩法规则 4.2): a 吃 taken over the
                # seat's own 碰 or 歪 of the card passes it; a 碰 or 歪 taken over its own 吃 pre-empts
                # that 吃 as another seat's higher claim would: no 过吃 (docs decision 10)
                self.peng_closed[s].add(c)
        if act == "hu":
            self.end_win(s, c, "self" if s == w.src else "flip", w.src)
            return
        h = self.hands[s]
        if act != "wai":  # a 歪 is followed by a discard, a 溜 (either ends the dealt hand) or the 胡 on its card
            self.intact[s] = False
        if act == "liu":
            i = self.meld_of(s, c, "wai")
            if ev.cards is None and i is not None:
                self.melds[s][i] = ("liu", (c,) * 4)
            else:
                h[c] -= 3
                self.melds[s].append(("liu", (c,) * 4))
            self.to_draw(self.xia(s))  # 溜后不用出牌
            return
        if act == "piao":
            i = self.meld_of(s, c, "peng")
            assert i is not None
            self.melds[s][i] = ("piao", (c,) * 4)
            self.to_draw(self.xia(s))  # like 溜: the 4th needs no discard (docs §飘)
            return
        if act == "chi" or act == "peng":  # a 动张: no 报听 (003 §胡牌胡型 2; docs decision 3)
            self.ting[s] = False
        if act in ("wai", "peng"):
            h[c] -= 2
            self.melds[s].append((act, (c,) * 3))
            if act == "wai":
                self.after_wai = (s, c)
        elif act == "chi":
            own = tuple(sorted(ZIPAI.kinds(ev.cards or [])))
            self.locked[s] |= self.chi_locks(s, c, own)
            for k in own:
                h[k] -= 1
            self.melds[s].append(("chi", tuple(sorted((c, *own)))))
            self.chi_card[s].append(c)
        self.phase, self.turn = Phase.DISCARD, s

    # -- errors in words ---------------------------------------------------------------------
    def explain_missing_option(self, ev: Event, w: Window, mine: list[Option]) -> None:
        c, s = w.card, ev.seat
        if ev.act == "hu":
            if w.kind == "discard":  # the points it would bring as another seat's card, for the waits
                r = self.evaluate(s, c, "flip")
                raise self.fail("illegal_action", "mo_pai_hu",
                                f"seat {s} cannot win on {self.label(c)}, a discard: only drawn cards are won (003 §名词解析 4)",
                                sc.refusal_detail(r))
            wf = "self" if s == w.src else "flip"
            if not self.can_win(s, c, wf):
                raise self.not_a_win(s, c, wf)
        # acts the room has off: one code whatever else the seat may do with the card
        if ev.act == "piao" and not self.piao:  # 003 §名词解析 ③: 飘 … 可选【飘】
            raise self.fail("illegal_action", "piao", f"seat {s} may not 飘 {self.label(c)}: this room plays without 飘 "
                            "(option piao = false; 003 §名词解析 ③ 可选【飘】)")
        if ev.act == "peng" and w.kind == "flip" and not self.peng_on_flip:  # 003 §名词解析 ②: 碰 … 别人打出一张
            raise self.fail("illegal_action", "peng_on_flip", f"seat {s} may not 碰 {self.label(c)}, a flipped card: "
                            "this room 碰s only discards (option peng_on_flip = false; 003 §名词解析 ② 别人打出一张)")
        if ev.act in ("wai", "liu", "piao") and s != w.src:
            raise self.fail("out_of_turn", ev.act, f"only the seat that drew {self.label(c)} (seat {w.src}) may `{ev.act}` it")
        if ev.act == "chi":
            allowed = [w.src, self.xia(w.src)] if w.kind == "flip" else [self.xia(w.src)]
            if s not in allowed:
                raise self.fail("out_of_turn", "chi_position",
                                f"seat {s} may not eat {self.label(c)}: only {' or '.join(f'seat {a}' for a in allowed)} may (自己 > 下家)")
            why = self.chi_closed[s].get(c)
            if why == "chi_own_discard":
                raise self.fail("illegal_action", why, f"seat {s} discarded {self.label(c)} before: it may never eat it (003 §玩法规则 3 ②)")
            if why == "guo_chi":
                raise self.fail("illegal_action", why, f"seat {s} could eat {self.label(c)} before and did not (过吃, 003 §玩法规则 4.1)")
            self._menzi_ban(ev, c)  # the seat's only 门子 for this card is closed: no 吃 option at all
        if ev.act == "peng" and c in self.peng_own[s] and c not in self.peng_closed[s]:
            raise self.fail("illegal_action", "peng_own_discard",
                            f"seat {s} discarded {self.label(c)} before: it may not 碰 it (peng_own_discard; 003 §玩法规则 3 ②)")
        if ev.act == "peng" and c in self.peng_closed[s]:
            raise self.fail("illegal_action", "guo_peng",
                            f"seat {s} passed a 碰 or 歪 of {self.label(c)} before (过碰, 003 §玩法规则 4.2)")

    def explain_bad_event(self, ev: Event, w: Window, opts: list[Option]) -> None:
        if ev.act == "chi":
            self._menzi_ban(ev, w.card)

    def _menzi_ban(self, ev: Event, card: int) -> None:
        """Raise the 门子 ban (不能吃自己出过的牌 or 过吃) that closes eating ``card`` with the 吃's own cards."""
        own = tuple(sorted(ZIPAI.index(x) for x in ev.cards or []))
        why = self.menzi_closed[ev.seat].get((card, own))
        if why:
            src = "003 §玩法规则 3 ② (不能吃自己出过的牌…门子也不允许再吃)" if why == "chi_own_discard" else "003 §玩法规则 4.1 (过吃)"
            raise self.fail("illegal_action", why,
                            f"seat {ev.seat}'s 门子 {'+'.join(self.label(k) for k in own)} may not eat {self.label(card)} ({src})")

    def not_a_win(self, s: int, c: int | None, wf: str, tianhu: bool = False) -> RuleViolation:
        """The ``not_a_win`` / ``hu_shape`` refusal of ``s`` winning on ``c``: why, in words, and
        when the cards form a shape its points and groups (``detail``, spec §8 waits)."""
        r = self.evaluate(s, c, wf, tianhu)
        return self.fail("not_a_win", "hu_shape", f"seat {s} cannot win" + (f" on {self.label(c)}" if c is not None else "")
                         + f": {r.reason}", sc.refusal_detail(r))

    # -- settlement --------------------------------------------------------------------------
    def end_win(self, s: int, c: int | None, wf: str | None, src: int | None, tianhu: bool = False) -> None:
        """Settle a win by ``s`` on card ``c`` (docs/rules/yuanjiang_guihuzi.md §Settlement).

        ``wf``: ``self`` (own flip, or 胡 after one's own 歪), ``flip`` (another seat's flip), None (天胡)."""
        self.phase = Phase.OVER
        after_wai = wf == "self" and src is None
        r = self.evaluate(s, None if (tianhu or after_wai) else c, "" if after_wai else (wf or ""), tianhu)
        assert r.ok, r.reason
        share = r.points * self.stake
        scores = [0] * self.n
        payer = src if wf == "flip" and self.rules["flip_payer"] == "drawer" else None
        for o in range(self.n):
            if o != s:
                scores[o] = -share
        if payer is not None:  # the seat that flipped pays every loser's share
            scores = [0] * self.n
            scores[payer] = -share * (self.n - 1)
        scores[s] = share * (self.n - 1)
        kind = "deal" if tianhu else ("zimo" if wf == "self" else "flip")
        self.win = {"seat": s, "card": c, "kind": kind, "eval": r}
        self.outcome = {
            "outcome": "win", "winner": s, "win_card": ZIPAI.codes[c] if c is not None else None,
            "from": src if wf == "flip" else None, "points": r.points, "hand_types": r.hand_types,
            "xing": None, "units": r.points, "breakdown": r.breakdown, "scores": scores,
        }

    # -- views -------------------------------------------------------------------------------
    def meld_points(self, kind: str, cards: Sequence[int], settled: bool = False) -> int:
        """:meth:`GameState.meld_points`: 息 of a meld (003 §息数和算分)."""
        return sc.meld_xi(kind, cards)

    def win_groups(self) -> tuple[Group, ...] | None:
        """:meth:`GameState.win_groups`: the winner's best split."""
        return self.win["eval"].groups if self.win is not None else None

    def facts_extra(self) -> dict[str, Any]:
        """``xing`` None (no 醒 in this game) and ``hand_type_xi``: the 息 of each hand type of a win."""
        return {"xing": None, "hand_type_xi": dict(self.win["eval"].type_xi) if self.win is not None else None}

    def legal_events(self) -> list[Event]:
        """Every event that may come next (explicit passes included)."""
        if self.phase is Phase.OVER:
            return []
        if self.phase is Phase.DRAW:
            return [Event(seat=self.turn, act="draw", card=ZIPAI.codes[self.wall[self.front]])]
        if self.phase is Phase.DISCARD:
            return self.discard_phase_events()
        w = self.window
        assert w is not None
        evs = self.window_events() + self.closing_draw()
        return evs

    def snapshot_seat(self, seat: int) -> dict[str, Any]:
        """:meth:`GameState.snapshot_seat`: the hand laid out by 理牌 (``lipai`` columns, ``hand`` the
        same cards flat), melds with what the other seats see (``public``: 暗偎 hides a 歪/溜, 明偎
        shows one card), discards and 锁牌 (``locked``)."""
        cols = sc.lipai(self.hands[seat])
        melds = []
        for k, c in self.melds[seat]:
            public = ZIPAI.codes_of(c)
            if k in ("wai", "liu"):
                public = [] if self.rules["wei_display"] == "an_wei" else ZIPAI.codes_of(c[:1])
            melds.append({"kind": k, "cards": ZIPAI.codes_of(c), "points": sc.meld_xi(k, c), "public": public})
        return {"hand": [x for col in cols for x in col], "lipai": cols, "melds": melds,
                "discards": ZIPAI.codes_of(self.river[seat]), "locked": ZIPAI.codes_of(sorted(self.locked[seat]))}

    def census_elsewhere(self) -> dict[str, list[int]]:
        """:meth:`GameState.census_elsewhere`: the flipped card a 胡 was won on, which joins no hand;
        none after a 胡 right after the seat's own 歪 (the card lies in the 歪) or a 天胡 (no card)."""
        w = self.win
        if w is None or w["card"] is None or self.after_wai == (w["seat"], w["card"]):
            return {}
        return {"won on": [w["card"]]}
