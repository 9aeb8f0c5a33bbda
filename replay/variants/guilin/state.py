"""桂林字牌 as a state machine over the engine core (replay/engine.py).

Seed: 001_b125067d32c1f7d7.txt (cited as 001 §section); readings and decisions:
docs/rules/guilin.md. Priority (001 §技巧攻略 组牌优先顺序): 扫穿/扫 > 胡 > 开舵/碰 > 吃;
for 吃 the drawer before its 下家. Option keys below encode exactly that order.
"""

from __future__ import annotations

import copy
from typing import Any, NamedTuple, Sequence

from replay.cards import ZIPAI
from replay.engine import GameState, Option, Phase, Window
from replay.groups import Group, Split, groups_json
from replay.record import Event
from replay.variants.guilin import _kernel as fast
from replay.variants.guilin import scoring as sc

# Why a claim is not followed by a discard (messages).
NO_DISCARD_WHY = {"chong_duo": "重舵: 重舵的情况，摸牌后不打牌, 001 §技巧攻略", "no_card": "it has no card it may discard"}

# Priority ranks (lower first). 001 §技巧攻略: 扫穿或扫 >> 胡牌 >> 开舵或碰 >> 吃.
R_SAO, R_HU, R_DUO, R_CHI = 0, 1, 2, 3
SAO_KINDS = ("sao", "guo_sao")


class Forced(NamedTuple):
    """A forced 扫穿 or 开舵 just made (001 §开舵): the seat may 胡 on its card next (spec §4)."""

    seat: int
    card: int
    win_from: str  # where the card came from: "self" (its own flip), "flip" or "discard"
    src: int  # the seat it came from
    act: str
FOUR = ("sao_chuan", "kai_duo")
FORCED_ACTS = SAO_KINDS + FOUR

def _free_total(h):
    """``sum(free)`` of count vector ``h``: the cards a seat may use or discard."""
    t = 0
    for k in range(len(h)):
        v = h[k]
        if v < 3:
            t += v
    return t


def _claim_order(n, src, flip):
    """Seats in claim order from ``src`` (the drawer first on a flip; after the discarder otherwise).
    A typed loop (an ``lru_cache`` would hash its key tuple at every window); seats are
    small non-negative ints, ``%`` keeps Python's sign rule compiled too."""
    out = []
    for i in range(0 if flip else 1, n):
        out.append((src + i) % n)
    return out


def _n_alike(h, x):
    """``h.count(x)`` of count vector ``h`` by a typed loop (no method call; counts are 0..4)."""
    t = 0
    for k in range(len(h)):
        v = h[k]  # a C value: compared without making an int object
        if v == x:
            t += 1
    return t


_CODES: list[str] = list(ZIPAI.codes)  # kind -> code, read without an attribute lookup a card
_REACH, _stray_kinds = fast._REACH, fast.stray_kinds  # read at every claim window: no module attribute lookup


_IX: dict[str, int] = ZIPAI._index  # type: ignore[attr-defined]  # code -> kind (Deck.index's own table)


def _kind(state, code):
    """``state.card(code)`` (the kind of a logged card) by one dict lookup; an unknown or missing
    code goes through :meth:`GameState.card`, which raises the error."""
    ix = _IX
    k = ix.get(code) if code is not None else None
    return k if k is not None else state.card(code)


class GuilinState(GameState):
    """A 桂林字牌 hand in play. Construct from a decoded record and its ruleset."""

    variant = "guilin"
    deck = ZIPAI
    draw_result_extra = {"xing": None}
    # state.pxd declares these in C (compiled: not in __dict__); GameState.fields copies them
    C_FIELDS = GameState.C_FIELDS + (
        "chou", "peng_passed", "draws", "discards", "after_forced", "win", "claims", "skip_discard", "may_skip",
        "next_draw", "must_hu", "skipped", "forced_card", "xing_turns", "alike", "hu_triple", "fang_pao_bi_hu",
        "sao_kai_duo_on_discard", "peng_kai_duo_on_other_flip", "bi_blocks", "dian_pao_ok", "chi_discard", "next_of_claimer",
        "ting_skip", "declare", "chou_pai_peng", "peng_discard", "kan_kai_duo_on_discard")

    def __init__(self, record, ruleset) -> None:
        super().__init__(record, ruleset)
        n = self.n
        self.chou: list[set[int]] = [set() for _ in range(n)]  # 臭牌: may not 吃 (001 §技巧攻略 臭牌)
        self.peng_passed: list[set[int]] = [set() for _ in range(n)]  # for 过扫 (001 §过扫)
        self.draws = 0
        self.discards = 0
        self.after_forced: tuple[int, int, str, int] | None = None  # (seat, card, win_from, src): may 胡 now
        self.win: dict[str, Any] | None = None
        self.claims: list[int] = [0] * n
        self.skip_discard: str | None = None  # "chong_duo" / "no_card": this seat's claim is not followed by a discard
        self.may_skip = False  # 听 with two dealt fours: the seat may leave out this discard (001 §技巧攻略)
        self.next_draw: int | None = None  # who draws when the seat to discard does not (skip_discard, may_skip)
        # a 胡 owed after the seat's forced act on the card, as (code, rule, why): 放炮必胡, or a 开舵 that
        # ranked as the seat's 胡 (kai_duo_as_hu)
        self.must_hu: tuple[str, str, str] | None = None
        self.skipped: tuple[int, str] | None = None  # (seat, why) of a claim not followed by a discard, until the next draw
        # the forced act just made, whether or not the seat may 胡 after it
        self.forced_card: Forced | None = None
        self.xing_turns: list[int] | None = None  # the 醒 cards turned, when a position sets them (replay.judge)
        self.variant = ruleset.variant  # rule ids read zipai.<rule> under zipai
        # Per seat, card -> kind of its meld of that card alike (扫, 过扫, 碰, 扫穿, 开舵; at most one
        # per card): what meld_of finds, looked up at every claim window without a scan.
        self.alike: list[dict[int, str]] = [{} for _ in range(n)]
        # options read at every claim window, looked up once
        self.hu_triple = ruleset["hu_triple"]
        self.fang_pao_bi_hu = ruleset["fang_pao_bi_hu"]
        self.sao_kai_duo_on_discard = ruleset["sao_kai_duo_on_discard"]
        self.peng_kai_duo_on_other_flip = ruleset["peng_kai_duo_on_other_flip"]
        self.bi_blocks = ruleset["bi_without_group"] == "blocks"
        self.dian_pao_ok = not ruleset["dian_pao_bu_zhun_hu"]
        self.chi_discard = ruleset["chi_discard"]
        self.chou_pai_peng = ruleset["chou_pai_peng"]
        self.peng_discard = ruleset["peng_discard"]
        self.kan_kai_duo_on_discard = ruleset["kan_kai_duo_on_discard"]
        self.next_of_claimer = ruleset["chong_duo_next"] == "claimer_xiajia"
        # 如果是起手就有两个4张同牌的情况，照常打牌，在听牌的时候不打 (001 §技巧攻略): seats dealt two or more
        # fours that keep them in hand may leave out one discard, once, when 听 (docs/rules/guilin.md §重舵).
        in_hand = ruleset["dealt_four"] == "in_hand"
        self.ting_skip = [in_hand and _n_alike(h, 4) >= 2 for h in self.hands]
        # dealt_four = lay_down_pairs (004 §3.打牌 4): seats with two or more dealt fours lay them
        # face down before the first discard, then draw one replacement into the hand.
        self.declare: list[tuple[int, list[int]]] = []
        if self.rules["dealt_four"] == "lay_down_pairs":
            for pos in range(self.n):
                seat = (self.dealer + pos) % self.n
                fours = [k for k in range(20) if self.hands[seat][k] == 4]
                if len(fours) >= 2:
                    self.declare.append((seat, fours))
        self.window = Window(-1, self.dealer, "start", [] if self.declare else self.start_options())
        self.phase = Phase.START

    def __deepcopy__(self, memo: dict) -> GuilinState:
        """A copy for :meth:`~replay.engine.GameState.fork`: the mutable tables copied, the record, the ruleset
        and the wall (never changed after the deal) shared; the open window's options built first
        (a lazy builder is a closure over this state)."""
        new = type(self).__new__(type(self))
        memo[id(self)] = new
        d = self.fields()
        for name in ("hands", "melds", "river", "claims", "ting_skip"):
            d[name] = [list(x) if isinstance(x, list) else x for x in d[name]]
        for name in ("chou", "peng_passed"):
            d[name] = [set(x) for x in d[name]]
        d["alike"] = [dict(a) for a in self.alike]
        d["declare"] = [(seat, list(fours)) for seat, fours in self.declare]
        d["xing_turns"] = None if self.xing_turns is None else list(self.xing_turns)
        d["outcome"] = copy.deepcopy(self.outcome, memo)
        d["win"] = copy.deepcopy(self.win, memo)
        w = self.window
        if w is not None:
            w.options  # noqa: B018 - builds the lazy options (and drops the closures)
            nw = copy.copy(w)
            nw.passed = set(w.passed)
            d["window"] = nw
        new.set_fields(d)
        return new

    # -- hand helpers ----------------------------------------------------------------------
    def free(self, seat: int) -> list[int]:
        """Counts of the cards ``seat`` may use or discard: dealt 坎/fours are locked (001 §技巧攻略)."""
        return sc.free(self.hands[seat])

    def fours(self, seat: int) -> int:
        """4-card sets the seat has: 扫穿/开舵 melds and dealt fours in hand (for 重舵 and pairs)."""
        t = _n_alike(self.hands[seat], 4)
        for k, _ in self.melds[seat]:  # a loop, not generators (cheaper compiled)
            if k in FOUR:
                t += 1
        return t

    def meld_of(self, seat: int, card: int, kinds: tuple[str, ...]) -> int | None:
        for i, (k, cards) in enumerate(self.melds[seat]):
            if cards[0] == card and cards[-1] == card and k in kinds:  # sorted cards: all alike
                return i
        return None

    def kai_duo_melds(self, seat: int, card: int | None, win_from: str | None) -> list[tuple[str, tuple[int, ...]]] | None:
        """The seat's melds with its table meld of ``card`` read as the forced 开舵 that a 胡 on
        ``card`` replaces, or None when the card opens none: 碰 + one's own flip, 碰 + another
        seat's flip under ``peng_kai_duo_on_other_flip``, 扫/过扫 + another seat's flip, 扫/过扫 + a
        discard under ``sao_kai_duo_on_discard`` (001 §开舵; docs/rules/guilin.md decisions 4 and
        17; the same cases as :meth:`window_options`). A dealt 坎's 开舵 is read in
        :func:`sc.best_split` itself."""
        if card is None or win_from is None:
            return None
        alike = self.alike[seat].get(card)
        if alike is None:
            return None
        if alike == "peng":
            opens = win_from == "self" or (win_from == "flip" and self.peng_kai_duo_on_other_flip)
        else:
            opens = alike in SAO_KINDS and (win_from == "flip" or (win_from == "discard" and self.sao_kai_duo_on_discard))
        if not opens:
            return None
        melds = list(self.melds[seat])
        i = self.meld_of(seat, card, (alike,))
        assert i is not None
        melds[i] = ("kai_duo", (card,) * 4)
        return melds

    def split(self, seat: int, card: int | None, win_from: str | None) -> Split | None:
        """The best split of ``seat``'s hand winning on ``card`` from ``win_from`` (spec §8: the
        highest reading). A 胡 in place of a forced 开舵 of a table meld is read both ways — the
        meld kept and the card used in the hand, or the meld opened to 开舵 (:meth:`kai_duo_melds`)
        — the 开舵 first on a tie, as for a dealt 坎 (docs/rules/guilin.md decision 6)."""
        hu_triple = self.rules["hu_triple"]
        best = None
        up = self.kai_duo_melds(seat, card, win_from)
        if up is not None:
            best = fast.best_split(self.hands[seat], up, None, None, hu_triple)
        plain = fast.best_split(self.hands[seat], self.melds[seat], card, win_from, hu_triple, self.kan_opens(win_from))
        if plain is not None and (best is None or plain.points > best.points):
            best = plain
        return best

    def can_win(self, seat: int, card: int | None, win_from: str | None) -> bool:
        """Whether ``split(seat, card, win_from)`` reaches the 10-胡 minimum (001 §打10胡胡牌规则)."""
        p = fast.best_points(self.hands[seat], self.melds[seat], card, win_from, self.hu_triple, self.kan_opens(win_from))
        if p is not None and p >= sc.MIN_HU:
            return True
        up = self.kai_duo_melds(seat, card, win_from)
        if up is None:
            return False
        p = fast.best_points(self.hands[seat], up, None, None, self.hu_triple)
        return p is not None and p >= sc.MIN_HU

    def kan_opens(self, win_from: str | None) -> bool:
        """Whether a card from ``win_from`` opens a dealt 坎 of its kind (起手牌开舵: 别人摸出或打出第4张后就要开舵,
        001 §开舵): another seat's flip always; a discard unless ``kan_kai_duo_on_discard`` is off
        (004 §3 3, second 打牌 block: 手中1坎别家摸起1张相同牌; docs/rules/zipai.md decision 11)."""
        return win_from != "discard" or self.kan_kai_duo_on_discard

    def sanlong_wukan(self, seat: int) -> int:
        """胡 of a 三笼五坎 hand (three dealt fours, or five dealt 坎), 0 when it is not one."""
        groups = self.sanlong_groups(seat)
        return sum(g.points for g in groups) if groups else 0

    def sanlong_groups(self, seat: int) -> tuple[Group, ...]:
        """The groups of a 三笼五坎 hand (001 §玩法规则: 三笼五坎 ×2舵), () when it is not one: its dealt
        fours — in hand, or laid down as 扫穿 before the first discard under ``dealt_four =
        lay_down_pairs`` (still dealt: at the start those are the seat's only melds) — and its dealt
        坎. A four counts as a 坎 too under ``sanlong_wukan_long_as_kan`` (decision 2)."""
        h = self.hands[seat]
        laid = [cards[0] for k, cards in self.melds[seat] if k == "sao_chuan"]
        n_long, n_kan = _n_alike(h, 4) + len(laid), _n_alike(h, 3)
        if n_long < 3 and n_kan + n_long < 5:  # cannot be one (the option below only lowers n_kan)
            return ()
        longs = [k for k in range(20) if h[k] == 4]
        kans = [k for k in range(20) if h[k] == 3]
        n_four = len(longs) + len(laid)
        n_kan = len(kans) + (n_four if self.rules["sanlong_wukan_long_as_kan"] else 0)
        if n_four < 3 and n_kan < 5:
            return ()
        kinds = {**{k: "sao_chuan" for k in laid}, **{k: "long" for k in longs}, **{k: "kan" for k in kans}}
        return tuple(Group(g, (k,) * (3 if g == "kan" else 4), sc.group_points(g, k)) for k, g in sorted(kinds.items()))

    # -- options ---------------------------------------------------------------------------
    def start_options(self) -> list[Option]:
        """天胡 (dealer) and 三笼五坎 (anyone) before the dealer's first discard; the dealer first
        (001 §玩法规则 备注: 起手胡牌庄优先)."""
        out = []
        for pos in range(self.n):
            seat = (self.dealer + pos) % self.n
            tian = seat == self.dealer and self.can_win(seat, None, None)
            if tian or (self.rules["sanlong_wukan"] and self.sanlong_wukan(seat)):
                out.append(Option(seat, "hu", (R_HU, pos), False, [Event(seat=seat, act="hu")], "qi_shou_hu"))
        return out

    def window_options(self, card: int, src: int, kind: str, full: bool = True) -> list[Option]:
        """Every seat's options on ``card`` flipped (``kind='flip'``) or discarded by ``src``, in the
        order 扫穿或扫>>胡牌>>开舵或碰>>吃 (001 §技巧攻略): the drawer's own 扫 of its flip alone
        (:meth:`sao_option`), else every seat's 胡 (:meth:`hu_options`), 开舵 and 碰
        (:meth:`duo_peng_options`), 吃 (:meth:`chi_options`).

        ``full=False`` gives the window's closing options (:attr:`Window.closing`): 胡 only where it
        is forced (放炮必胡), and a 吃 option without its events (only whether one exists matters
        when nobody claims: it makes the card 臭)."""
        flip = kind == "flip"
        if flip:
            sao = self.sao_option(card, src)
            if sao is not None:
                return [sao]
        order = _claim_order(self.n, src, flip)
        out: list[Option] = []
        if (flip or self.dian_pao_ok) and (full or (not flip and self.fang_pao_bi_hu)):
            out += self.hu_options(card, src, flip, order)
        out += self.duo_peng_options(card, src, flip, order)
        out += self.chi_options(card, src, flip, full)
        return out

    def sao_option(self, c: int, d: int) -> Option | None:
        """The drawer's own forced act on its flip of ``c``, or None: 扫穿 over its 扫 on the table
        or its dealt 坎, else 扫 (过扫 of a card it could 碰 before) with a pair (001 §扫, §过扫, §扫穿)."""
        code = _CODES[c]
        n_held = self.hands[d][c]
        mine = self.alike[d]
        if mine.get(c) in SAO_KINDS:
            return Option(d, "sao_chuan", (R_SAO, 0), True, [Event(d, "sao_chuan", code)], "sao_chuan")
        if n_held == 3:
            return Option(d, "sao_chuan", (R_SAO, 0), True, [Event(d, "sao_chuan", code, [code] * 3)], "sao_chuan")
        if n_held == 2:
            seen = self.peng_passed[d]
            act = "guo_sao" if c in seen else "sao"
            return Option(d, act, (R_SAO, 0), True, [Event(d, act, code, [code] * 2)], act)
        return None

    def hu_options(self, c: int, src: int, flip: bool, order: list[int]) -> list[Option]:
        """Every seat's 胡 on ``c``, in claim ``order``; forced on a discard under 放炮必胡 (004 §3.打牌 6)."""
        code = _CODES[c]
        hands = self.hands
        reach = _REACH[c]
        out: list[Option] = []
        for pos, s in enumerate(order):
            if _stray_kinds(hands[s]) & ~reach:
                continue  # a kind out of c's reach fits no group: no win
            wf = "self" if s == src else ("flip" if flip else "discard")
            if self.can_win(s, c, wf):
                forced = wf == "discard" and self.fang_pao_bi_hu
                out.append(Option(s, "hu", (R_HU, pos), forced, [Event(s, "hu", code)],
                                  "fang_pao_bi_hu" if forced else "hu"))
        return out

    def duo_peng_options(self, c: int, src: int, flip: bool, order: list[int]) -> list[Option]:
        """Every seat's 开舵 (forced) or 碰 of ``c``, in claim ``order`` (001 §开舵, §碰)."""
        code = _CODES[c]
        hands, alikes = self.hands, self.alike
        out: list[Option] = []
        for s in order:
            h = hands[s]
            n_held = h[c]
            mine = alikes[s]
            alike = mine.get(c)
            if s == src:  # own flip: a 碰 on the table opens (碰的开舵, 001 §开舵)
                if alike == "peng":
                    out.append(Option(s, "kai_duo", (R_DUO, 0), True, [Event(s, "kai_duo", code)], "kai_duo"))
                continue
            if not n_held and alike is None:  # most seats: nothing of c
                continue
            if n_held == 3:
                # 起手牌开舵: 别人摸出或打出第4张后就要开舵 (001 §开舵); a discard only with kan_kai_duo_on_discard
                # (004 §3 3, second 打牌 block: 手中1坎别家摸起1张相同牌, docs/rules/zipai.md decision 11)
                if flip or self.kan_kai_duo_on_discard:
                    out.append(Option(s, "kai_duo", (R_DUO, 0), True,
                                      [Event(s, "kai_duo", code, [code] * 3)], "kai_duo"))
            elif alike in SAO_KINDS and (flip or self.sao_kai_duo_on_discard):
                out.append(Option(s, "kai_duo", (R_DUO, 0), True, [Event(s, "kai_duo", code)], "kai_duo"))
            elif alike == "peng" and flip and self.peng_kai_duo_on_other_flip:
                # 碰的开舵 on another seat's flip: 001 §开舵 names one's own draw (自己摸出第4张牌) and rules
                # out a discard (其他人手中打出的牌是不能让碰牌开舵的), and is silent on another seat's
                # flip; option peng_kai_duo_on_other_flip opens it, forced as the 扫's (decision 17).
                out.append(Option(s, "kai_duo", (R_DUO, 0), True, [Event(s, "kai_duo", code)], "kai_duo"))
            elif n_held == 2 and _free_total(h) > 2 and self.may_peng(s, c, flip):  # 碰, with a card left to discard
                out.append(Option(s, "peng", (R_DUO, 0), False, [Event(s, "peng", code, [code] * 2)], "peng"))
        return out

    def chi_options(self, c: int, src: int, flip: bool, full: bool = True) -> list[Option]:
        """The 吃 of ``c``: the drawer itself, then its 下家 (001 §技巧攻略: 先是自己吃...下家); a discard
        by the 下家 only, with ``chi_discard`` (004 §3.打牌 2: 上家或自己摸起的牌); never a seat's 臭牌.
        Each 吃 with the 比 groups 下比 owes (:meth:`chi_choices`); ``full=False``: whether one exists."""
        code = _CODES[c]
        xia = (src + 1) % self.n
        chou = self.chou
        out: list[Option] = []
        for pos, s in enumerate((src, xia) if flip else ((xia,) if self.chi_discard else ())):
            seen = chou[s]
            if c in seen:
                continue
            if not full:
                if self.has_chi(s, c):
                    out.append(Option(s, "chi", (R_CHI, pos), False, [], "chi"))
                continue
            evs = [Event(s, "chi", code, [_CODES[k] for k in own], None, [ZIPAI.codes_of(g) for g in bi] if bi else None)
                   for own, bi in self.chi_choices(s, c)]
            if evs:
                out.append(Option(s, "chi", (R_CHI, pos), False, evs, "chi"))
        return out

    def may_peng(self, s: int, c: int, flip: bool) -> bool:
        """Whether ``s``, holding a pair of ``c`` and a card left to discard, may 碰 another seat's
        ``c``: 碰, 起手相同两张，别家摸或打出相同的第三张 (001 §碰) — a discard only with ``peng_discard``
        (004 §3.打牌 5: 碰, 手中2张相同牌别家摸起1张相同牌); and, with ``chou_pai_peng``, not a card it could
        碰 before and did not (004 §3.打牌 3: 可吃碰的牌没有吃碰 … 再次打出或摸起同张牌时，不能进行吃碰操作;
        docs/rules/zipai.md decisions 10 and 11)."""
        if not flip and not self.peng_discard:
            return False
        return not (self.chou_pai_peng and c in self.peng_passed[s])

    def chi_choices(self, seat: int, c: int) -> list[tuple[tuple[int, ...], tuple[tuple[int, ...], ...]]]:
        """Legal 吃 of ``c`` by ``seat``: (own two cards, 比 groups), with 下比 (:func:`sc.chi_choices`)."""
        return fast.chi_choices(c, self.hands[seat], self.bi_blocks)

    def has_chi(self, seat: int, c: int) -> bool:
        """Whether ``seat`` has a legal 吃 of ``c`` (for the closing options: an unused 吃 makes the card 臭)."""
        return fast.has_chi(c, self.hands[seat], self.bi_blocks)

    # -- events ----------------------------------------------------------------------------
    def open_window(self, card: int, src: int, kind: str) -> None:
        # Built lazily: most windows close unclaimed, and then a 胡 that is not forced changes
        # nothing, so the closing options skip every seat's win check (the most costly part).
        self.window = Window(card, src, kind, build=lambda: self.window_options(card, src, kind),
                             closing=lambda: self.window_options(card, src, kind, full=False))
        self.phase = Phase.WINDOW

    def on_draw(self, ev: Event) -> None:
        if ev.act != "draw" or ev.seat != self.turn:
            sk = self.skipped
            if sk is not None and ev.seat == sk[0] and ev.act in ("discard", "hu"):
                if ev.act == "hu":  # 胡 after its forced act, refused (the engine offered none)
                    raise self.refused_hu(ev)
                raise self.fail("illegal_action", "chong_duo", f"seat {sk[0]} does not discard after its claim "
                                f"({NO_DISCARD_WHY[sk[1]]}); seat {self.turn} draws next")
            want = f"seat {self.turn} to draw"
            raise self.fail("out_of_turn", "turn", f"expected {want}, got `{ev.act}` by seat {ev.seat}")
        if ev.tail:
            raise self.fail("illegal_action", "wall", f"{self.variant} draws only from the front of the wall")
        if ev.to_hand:  # spec §4: only the replacement after laying down fours goes into the hand
            raise self.fail("illegal_action", "wall", f"seat {ev.seat}'s draw is a public flip: `to_hand` is only for "
                            "the replacement card after laying down dealt fours")
        c = _kind(self, ev.card)
        if c != self.wall[self.front]:
            raise self.fail("wall_mismatch", "paipu.wall",
                            f"seat {ev.seat} drew {self.label(c)} but the next card of the wall is "
                            f"{self.label(self.wall[self.front])}")
        self.front += 1
        self.draws += 1
        self.skipped = self.forced_card = None
        self.open_window(c, ev.seat, "flip")

    def on_discard_phase(self, ev: Event) -> None:
        s = self.turn
        if self.must_hu and not (ev.act == "hu" and ev.seat == s):
            code, rule, why = self.must_hu
            fc = self.forced_card
            assert fc is not None  # must_hu is set with it
            raise self.fail(code, rule, f"seat {s} had to 胡 {self.label(fc.card)} after its forced `{fc.act}` ({why}), "
                            f"not `{ev.act}`")
        if ev.act == "draw" and (self.skip_discard or self.may_skip):  # no discard: the next seat draws
            if self.may_skip:
                self.ting_skip[s] = False  # once a hand
            self.skip_discard, self.may_skip = None, False
            self.after_forced = self.forced_card = None
            assert self.next_draw is not None
            self.to_draw(self.next_draw)
            if self.phase is Phase.OVER:
                raise self.fail("trailing_actions", "paipu.end", "the wall is empty and the hand is drawn (荒庄)")
            self.on_draw(ev)
            return
        if ev.seat != s:
            raise self.fail("out_of_turn", "turn", f"seat {s} must discard now, not seat {ev.seat} (`{ev.act}`)")
        if ev.act == "hu":
            af = self.after_forced
            if af is None or af[0] != s or (ev.card is not None and self.card(ev.card) != af[1]):
                raise self.refused_hu(ev)
            self.end_win(s, af[1], af[2], af[3], after_forced=True)
            return
        if self.skip_discard and ev.act != "hu":
            raise self.fail("illegal_action", "chong_duo",
                            f"seat {s} does not discard now ({NO_DISCARD_WHY[self.skip_discard]}); seat {self.next_draw} draws next")
        if ev.act != "discard":
            raise self.fail("illegal_action", "discard", f"seat {s} must discard now, not `{ev.act}` (先摸后打, 001 §技巧攻略)")
        c = _kind(self, ev.card)
        h = self.hands[s]
        if h[c] == 0:
            raise self.fail("illegal_action", "discard", f"seat {s} holds no {self.label(c)} to discard")
        if h[c] >= 3:
            raise self.fail("illegal_action", "kan_locked",
                            f"{self.label(c)} is a dealt 坎 of seat {s}: it cannot be split or discarded (001 §技巧攻略)")
        h[c] -= 1
        self.after_forced = self.forced_card = None
        self.may_skip = False
        self.discards += 1
        self.chou[s].add(c)  # 任何人也不能吃自己曾经打出过的牌 (001 §技巧攻略 臭牌)
        self.open_window(c, s, "discard")

    def window_closed(self, w: Window) -> None:
        if w.kind == "start":
            self.owe_discard(self.dealer, self.dealer)
            return
        for o in w.closing:  # implicit passes
            if o.act == "chi":
                self.chou[o.seat].add(w.card)  # 能吃而未吃 → 臭牌 (001 §技巧攻略 臭牌)
            elif o.act == "peng":
                self.peng_passed[o.seat].add(w.card)
        self.river[w.src].append(w.card)
        if w.kind == "flip":
            self.chou[w.src].add(w.card)  # an unclaimed flip counts as the drawer's discard (spec §4)
        self.to_draw(self.xia(w.src))

    def note_passes(self, s: int, act: str, w: Window) -> Option | None:
        """What the seats that passed before ``s``'s ``act`` on the open card leave: a 吃 passed makes
        the card 臭 for that seat (001 §技巧攻略 臭牌), a 碰 passed (or ``s`` taking another option
        than its 碰) a 过碰, so a later draw of it is 过扫 (001 §过扫). Returns ``s``'s own forced 胡
        (放炮必胡), if it has one."""
        c = w.card
        passed, chou, peng_passed = w.passed, self.chou, self.peng_passed
        could_peng = False
        owed = None
        for o in w.options:
            if o.seat in passed:  # seats that passed explicitly before this claim
                if o.act == "chi":
                    chou[o.seat].add(c)
                elif o.act == "peng":
                    peng_passed[o.seat].add(c)
            if o.seat == s:
                if o.act == "peng":
                    could_peng = True
                elif owed is None and o.act == "hu" and o.forced:
                    owed = o
        if act != "peng" and could_peng:
            peng_passed[s].add(c)  # 可碰的牌没有碰 (it took another option)
        return owed

    def lay_meld(self, s: int, act: str, c: int, ev: Event) -> None:
        """``s``'s claim of ``c`` laid on the table from its hand: 扫 / 过扫 (a pair + the card), 扫穿 /
        开舵 (a dealt 坎 + the card, or its 扫 or 碰 on the table upgraded to four), 碰 (a pair), 吃 (two
        of its cards) with the 比 groups it owes (001 §扫, §扫穿, §开舵, §碰, §技巧攻略 下张)."""
        h = self.hands[s]
        melds = self.melds[s]
        if act in ("sao", "guo_sao"):
            h[c] -= 2
            melds.append((act, (c,) * 3))
            self.alike[s][c] = act
        elif act in FOUR:
            i = self.meld_of(s, c, SAO_KINDS + ("peng",))
            if ev.cards is None and i is not None:
                melds[i] = (act, (c,) * 4)  # upgrade: 扫→扫穿/开舵, 碰→开舵
            else:
                h[c] -= 3
                melds.append((act, (c,) * 4))
            self.alike[s][c] = act
        elif act == "peng":
            h[c] -= 2
            melds.append(("peng", (c,) * 3))
            self.alike[s][c] = "peng"
        elif act == "chi":
            own = ZIPAI.kinds(ev.cards or [])
            for k in own:
                h[k] -= 1
            melds.append(("chi", tuple(sorted([c, *own]))))
            for g in ev.bi or []:
                kinds = ZIPAI.kinds(g)
                for k in kinds:
                    h[k] -= 1
                melds.append(("bi", tuple(sorted(kinds))))

    def apply_claim(self, opt: Option, ev: Event, w: Window) -> None:
        """``ev`` claims the open card: the passes before it leave 臭牌 and 过碰 (:meth:`note_passes`);
        a 胡 ends the hand (:meth:`end_win`); any other claim lays its meld (:meth:`lay_meld`), may
        leave the seat a 胡 on the card after a forced act (spec §4; 放炮必胡 stays owed), and is
        followed by the seat's discard, or by the next draw after a 重舵 (001 §技巧攻略)."""
        s, c, act = ev.seat, w.card, ev.act
        self.skip_discard = None
        owed = self.note_passes(s, act, w)
        h = self.hands[s]
        if w.kind == "start":
            self.end_win(s, None, None, None)
            return
        win_from = "self" if s == w.src else ("flip" if w.kind == "flip" else "discard")
        if act == "hu":
            self.end_win(s, c, win_from, w.src)
            return
        self.claims[s] += 1
        self.lay_meld(s, act, c, ev)
        forced = act in FORCED_ACTS
        self.forced_card = Forced(s, c, win_from, w.src, act) if forced else None
        # after a forced act the seat may 胡 on the card it took (spec §4); 点炮不准胡 still holds
        may_hu = forced and (win_from != "discard" or self.dian_pao_ok) and self.can_win(s, None, None)
        self.after_forced = (s, c, win_from, w.src) if may_hu else None
        if owed is not None:  # 放炮必胡 (004 §3.打牌 6): the forced act may come first, the 胡 stays owed
            if not may_hu:
                raise self.fail("missing_forced_action", owed.rule, f"seat {s} had to 胡 {self.label(c)} (放炮必胡): "
                                f"after its `{act}` the hand no longer wins, so the `{act}` left the 胡 out")
            self.must_hu = ("missing_forced_action", owed.rule, "放炮必胡, 004 §3.打牌 6")
        chong_duo = act in FOUR and self.fours(s) >= 2
        if chong_duo or not _free_total(h):
            # 重舵: no discard (001 §技巧攻略); a seat left with nothing to discard likewise. Who draws
            # next: option chong_duo_next (docs/rules/guilin.md §重舵); the seat may still 胡 first.
            why = "chong_duo" if chong_duo else "no_card"
            nxt = self.next_drawer(s, w.src)
            if self.after_forced:
                self.skip_discard, self.next_draw = why, nxt
                self.phase, self.turn = Phase.DISCARD, s
            else:
                self.skipped = (s, why)
                self.to_draw(nxt)
            return
        self.owe_discard(s, w.src)

    def next_drawer(self, s: int, src: int) -> int:
        """Who draws when ``s``'s claim of a card from ``src`` is not followed by a discard: the
        claimer's 下家 or the source's (option ``chong_duo_next``)."""
        return self.xia(s) if self.next_of_claimer else self.xia(src)

    def owe_discard(self, s: int, src: int) -> None:
        """``s`` discards next (先摸后打, 001 §技巧攻略), after a claim of a card from ``src`` or at the
        start. A seat dealt two fours that is 听 without this discard may leave it out, once
        (在听牌的时候不打, 001 §技巧攻略): the next seat's draw then says so."""
        self.phase, self.turn = Phase.DISCARD, s
        self.may_skip = self.ting_skip[s] and self.ting(s)
        if self.may_skip:
            self.next_draw = self.next_drawer(s, src)

    def ting(self, s: int) -> bool:
        """听: some card (of which a copy is left to the others) would make ``s``'s hand, as it is,
        a win on another seat's flip."""
        held = list(self.hands[s])
        for _, cards in self.melds[s]:
            for k in cards:
                held[k] += 1
        return any(held[k] < 4 and self.can_win(s, k, "flip") for k in range(20))

    # -- errors in words ---------------------------------------------------------------------
    def explain_missing_option(self, ev: Event, w: Window, mine: list[Option]) -> None:
        if w.kind == "start" and ev.act == "hu" and ev.card is None:  # 天胡 / 三笼五坎 not offered
            s = ev.seat
            if s == self.dealer:
                raise self.not_a_win(s, None, None, " (天胡: the dealer's dealt hand)")
            raise self.fail("not_a_win", "qi_shou_hu", f"seat {s} does not deal: at the start only the dealer's 天胡 "
                            "or a 三笼五坎 (three dealt fours or five dealt 坎) wins (001 §玩法规则)"
                            + ("" if self.rules["sanlong_wukan"] else "; 三笼五坎 is off (option sanlong_wukan)"))
        if w.kind == "start" or ev.card is None:
            return
        c = w.card
        s = ev.seat
        if ev.act == "hu":
            wf = "self" if s == w.src else ("flip" if w.kind == "flip" else "discard")
            if w.kind == "discard" and s == w.src:
                raise self.fail("illegal_action", "hu", f"seat {s} cannot win on its own discard")
            sao = next((o for o in w.options if o.act in ("sao", "guo_sao", "sao_chuan")), None)
            if sao is not None:  # 扫穿/扫 outrank 胡, even the drawer's own (001 §扫穿: 即使是自己要胡，都不给)
                raise self.fail("missing_forced_action", sao.rule, f"seat {sao.seat} had to `{sao.act}` {self.label(c)} (扫/扫穿 outrank 胡)")
            if not self.can_win(s, c, wf):
                raise self.not_a_win(s, c, wf)
            if w.kind == "discard" and self.rules["dian_pao_bu_zhun_hu"]:
                raise self.fail("illegal_action", "dian_pao_bu_zhun_hu", "点炮不准胡: only flipped cards can be won")
        if ev.act == "peng" and s != w.src and self.hands[s][c] == 2:
            if w.kind == "discard" and not self.peng_discard:
                raise self.fail("illegal_action", "peng", "a discard cannot be 碰'd: only a card another seat turned up "
                                "from the wall (004 §3.打牌 5: 碰,手中2张相同牌别家摸起1张相同牌; option peng_discard)")
            if self.chou_pai_peng and c in self.peng_passed[s]:
                raise self.fail("illegal_action", "chou_pai", f"{self.label(c)} is a 臭牌 for seat {s}'s 碰: it could 碰 it "
                                "before and did not (004 §3.打牌 3: 可吃碰的牌没有吃碰 … 再次打出或摸起同张牌时，不能进行吃碰操作; "
                                "option chou_pai_peng)")
        if ev.act == "kai_duo" and w.kind == "discard" and self.hands[s][c] == 3 and not self.kan_kai_duo_on_discard:
            raise self.fail("illegal_action", "kai_duo", f"a discard does not open seat {s}'s dealt 坎 of {self.label(c)}: "
                            "only a card another seat turned up from the wall does (004 §3 3, second 打牌 block: 开舵,手中1坎别家摸起1张相同牌; "
                            "option kan_kai_duo_on_discard)")
        if ev.act == "chi":
            if w.kind == "discard" and not self.chi_discard:
                raise self.fail("illegal_action", "chi_position", "a discard cannot be eaten: only a card turned up from "
                                "the wall by oneself or one's 上家 (004 §3.打牌 2: 吃,上家或自己摸起的牌; option chi_discard)")
            if w.kind == "discard" and s != self.xia(w.src):
                raise self.fail("out_of_turn", "chi_position", f"only the 下家 (seat {self.xia(w.src)}) may 吃 a discard (上家可碰不能吃)")
            if c in self.chou[s]:
                raise self.fail("illegal_action", "chou_pai",
                                f"{self.label(c)} is a 臭牌 for seat {s}: it discarded it or passed a 吃 on it (001 §技巧攻略 臭牌)")
        forced = [o for o in w.options if o.forced and o.seat not in w.passed]
        if forced and ev.act != "hu":
            o = forced[0]
            if o.key[0] == R_SAO:
                raise self.fail("missing_forced_action", o.rule, f"seat {o.seat} had to `{o.act}` {self.label(c)}")
        if ev.act == "chi":
            self.explain_chi_cards(ev, w)

    def explain_bad_event(self, ev: Event, w: Window, opts: list[Option]) -> None:
        if ev.act != "chi":
            return
        s = ev.seat
        self.explain_chi_cards(ev, w, locked_only=True)
        own = sorted(ZIPAI.index(x) for x in ev.cards or [])
        choices = self.chi_choices(s, w.card)
        if any(tuple(own) == o for o, _ in choices):
            shown = f"with the 比 groups {ev.bi}, not the ones" if ev.bi else "without the 比 groups"
            raise self.fail("illegal_action", "xia_bi",
                            f"吃 {self.label(w.card)} {shown} the hand owes (下比; with 比 it would be one of: "
                            f"{[[ZIPAI.codes_of(g) for g in bi] for o, bi in choices if tuple(own) == o][:3]}); the 吃 is cancelled (001 §技巧攻略 下张)")
        self.explain_chi_cards(ev, w)

    def explain_chi_cards(self, ev: Event, w: Window, locked_only: bool = False) -> None:
        """A 吃 of the open card refused for its own cards: one of a dealt 坎 (``kan_locked``: 起手摸到手上
        的成坎的牌不能拆开作其它牌型, 001 §技巧攻略), or, under ``bi_without_group = blocks``, a copy of the
        card left that forms no 吃 shape (``xia_bi``: 有比的情况下不比，吃的过程整体取消).

        :raises RuleViolation: ``illegal_action`` naming that rule; nothing when neither applies.
        """
        s, c = ev.seat, w.card
        h = self.hands[s]
        used = [ZIPAI.index(x) for x in [*(ev.cards or []), *(x for g in ev.bi or [] for x in g)]]
        locked = next((k for k in used if h[k] >= 3), None)
        if locked is not None:
            raise self.fail("illegal_action", "kan_locked", f"{self.label(locked)} is a dealt 坎 of seat {s}: it cannot "
                            "be split into a 吃 (起手摸到手上的成坎的牌不能拆开作其它牌型, 001 §技巧攻略)")
        if locked_only or not self.bi_blocks or c in self.chou[s]:
            return
        own = tuple(sorted(used[:2]))
        if any(o == own for o, _ in sc.chi_choices(c, h, False)):
            raise self.fail("illegal_action", "xia_bi", f"吃 {self.label(c)}: a copy of it left in hand forms no 吃 shape, "
                            "and under bi_without_group = blocks there is then no 吃 (下比: 有比的情况下不比，吃的过程整体取消, "
                            "001 §技巧攻略 下张)")

    def on_window_event(self, ev: Event) -> None:
        """A claim that leaves out the seat's own forced act (开舵, 扫…, 放炮必胡 胡) for a lower one
        (e.g. 吃 instead of 开舵) is ``missing_forced_action`` (001 §开舵 就要开舵; docs/rules/guilin.md
        §Priority); a 胡 may replace a forced 开舵 (001 §开舵: 自己胡牌的话可以不开舵). A forced 开舵 that
        completes the hand ranks as the seat's 胡 (:meth:`kai_duo_as_hu`): the other seats' options it
        passes over so give way to it, and the 胡 is then owed (a discard there is a
        ``priority_violation``). Then the core's checks."""
        w = self.window
        outranked = None
        if ev.act != "pass" and w is not None:
            o = self.forced_left_out(ev.seat, ev.act, w)
            if o is not None:
                raise self.fail("missing_forced_action", o.rule, f"seat {ev.seat} had to `{o.act}` {self.label(w.card)}: "
                                f"its forced act cannot be left out for a `{ev.act}` of its own")
            if ev.act == "kai_duo":
                outranked = self.outranked_as_hu(ev.seat, w)
                if outranked:  # they give way to the 胡 this 开舵 begins, as to the 胡 itself
                    w.declined = w.declined | frozenset([i for i, _ in outranked])
        GameState.on_window_event(self, ev)  # super(), without making a super object an event
        if outranked and self.must_hu is None:
            o = outranked[0][1]
            self.must_hu = ("priority_violation", "paipu.priority",
                            f"its `kai_duo` passed over seat {o.seat}'s `{o.act}` only as the first half of its 胡: "
                            "扫穿或扫>>胡牌>>开舵或碰>>吃, 001 §技巧攻略")

    def kai_duo_as_hu(self, opt: Option, w: Window) -> Option | None:
        """The seat's own open 胡 that its forced 开舵 ``opt`` ranks as, or None (docs/rules/guilin.md
        decision 19). 001 §游戏玩法 names 开舵 among the acts through which a hand is won (通过执行以上
        动作[吃、碰、扫、开舵]，使手上的牌全部构成基本牌型 … 则该玩家为本局游戏的胜利者), and spec §4 logs a
        forced act that completes the hand as the act, then `hu` with the same card: such a 开舵 is the
        first half of the seat's 胡, and ranks as that 胡 (组牌优先顺序为：扫穿或扫>>胡牌>>开舵或碰>>吃,
        001 §技巧攻略), the 胡 then owed. It does when the 开舵 leaves the seat's hand a win and the
        seat's 胡 on the card is open (not declined by a pass)."""
        if opt.act != "kai_duo":
            return None
        s = opt.seat
        for o in w.of(s):
            if o.act == "hu":
                wf = "self" if s == w.src else ("flip" if w.kind == "flip" else "discard")
                return o if self.kai_duo_completes(s, w.card, wf) else None
        return None

    def outranked_as_hu(self, seat: int, w: Window) -> list[tuple[int, Option]]:
        """The other seats' open options (index, option) that ``seat``'s forced 开舵 in ``w`` passes
        over by ranking as its 胡 (:meth:`kai_duo_as_hu`): those ranked below that 胡 and above the
        开舵 (another seat's 胡 later in 胡 order). [] when the 开舵 does not rank as a 胡."""
        duo = hu = None
        for o in w.of(seat):
            if o.act == "kai_duo":
                duo = o
                hu = self.kai_duo_as_hu(o, w)
                break
        if hu is None or duo is None:
            return []
        opts = w.options
        return [(i, o) for i, o in enumerate(opts) if o.seat != seat and o.seat not in w.passed and i not in w.declined
                and o.key < duo.key and not o.key < hu.key]

    def kai_duo_completes(self, s: int, c: int, win_from: str) -> bool:
        """Whether ``s``'s hand wins (≥ 10 胡, 001 §打10胡胡牌规则) once its forced 开舵 of ``c`` from
        ``win_from`` is made: its table meld of ``c`` upgraded (:meth:`kai_duo_melds`), or its dealt
        坎 of ``c`` laid out as the 开舵."""
        h = self.hands[s]
        if h[c] == 3:  # 起手牌开舵 (001 §开舵)
            hand = list(h)
            hand[c] = 0
            melds = [*self.melds[s], ("kai_duo", (c,) * 4)]
        else:
            hand = h
            upgraded = self.kai_duo_melds(s, c, win_from)
            if upgraded is None:
                return False
            melds = upgraded
        p = fast.best_points(hand, melds, None, None, self.hu_triple)
        return p is not None and p >= sc.MIN_HU

    def forced_left_out(self, seat: int, act: str, w: Window) -> Option | None:
        """The seat's own forced option that taking ``act`` in ``w`` would leave out, or None: a
        forced act (开舵, 扫…) may be replaced only by itself or by 胡 (001 §开舵: 自己胡牌的话可以不开舵)."""
        if act == "hu" or w.kind == "start":
            return None
        first = None
        for o in w.of(seat):
            if o.forced:
                if o.act == act:
                    return None
                if first is None:
                    first = o
        return first

    def own_claim_allowed(self, opt: Option, w: Window) -> bool:
        """:meth:`GameState.own_claim_allowed`: not a claim that leaves out the seat's forced act."""
        return self.forced_left_out(opt.seat, opt.act, w) is None

    def window_events(self) -> list[Event]:
        """:meth:`GameState.window_events`, a forced 开舵 that ranks as the seat's 胡 ranked so
        (:meth:`kai_duo_as_hu`): it is listed while no option ranks before that 胡."""
        w = self.window
        assert w is not None
        live = [o for i, o in enumerate(w.options) if o.seat not in w.passed and i not in w.declined]
        evs = []
        for o in live:
            hu = self.kai_duo_as_hu(o, w)
            if not w.ahead_of(o if hu is None else hu) and self.own_claim_allowed(o, w):
                evs += o.events
        forced = {o.seat for o in live if o.forced}
        evs += [Event(seat=s, act="pass") for s in sorted({o.seat for o in live})
                if s not in forced or w.declinable(s)]
        return evs

    def refused_hu(self, ev: Event):
        """The refusal of ``ev``, a 胡 by the seat that owes a discard (or skipped it) and has no
        card to win on: after its forced act on that card, ``not_a_win`` (or 点炮不准胡 when the card
        was a discard: the forced act does not change where it came from); else ``illegal_action``."""
        s, fc = ev.seat, self.forced_card
        if fc is not None and fc.seat == s and (ev.card is None or self.card(ev.card) == fc.card):
            if fc.win_from == "discard" and not self.dian_pao_ok:
                return self.fail("illegal_action", "dian_pao_bu_zhun_hu", f"点炮不准胡: {self.label(fc.card)} came from seat "
                                 f"{fc.src}'s discard; only flipped cards can be won, after a forced act too (001 §点炮不准胡规则)")
            return self.not_a_win(s, None, None, f" after its forced `{fc.act}`")
        return self.fail("illegal_action", "hu", f"seat {s} has no card to win on now (it must discard)")

    def not_a_win(self, s: int, c: int | None, wf: str | None, suffix: str = ""):
        """The ``not_a_win`` refusal of ``s``'s 胡 on ``c`` (None: after a forced act). A complete
        shape under the 10-胡 minimum carries ``detail={"points", "groups"}`` (spec §8 groups)."""
        sp = self.split(s, c, wf)
        if sp is None:
            return self.fail("not_a_win", "hu_shape", f"seat {s}'s cards do not all form groups"
                             + (f" with {self.label(c)}" if c is not None else "") + suffix)
        return self.fail("not_a_win", "hu_shape", f"seat {s}'s best split makes {sp.points} 胡, under the "
                         f"{sc.MIN_HU}-胡 minimum (001 §打10胡胡牌规则)" + suffix,
                         detail={"points": sp.points, "groups": groups_json(sp.groups, ZIPAI)})

    # -- settlement --------------------------------------------------------------------------
    def end_win(self, s: int, c: int | None, win_from: str | None, card_src: int | None, after_forced: bool = False) -> None:
        """Settle a win by ``s`` on card ``c`` from ``card_src`` (001 §玩法规则, §打10胡胡牌规则,
        §翻上中下醒; docs/rules/guilin.md §Settlement)."""
        self.phase = Phase.OVER
        hand_types: list[str] = []
        if win_from is None:  # 天胡 / 三笼五坎 at the start
            split = self.split(s, None, None)
            sl = self.sanlong_wukan(s)
            if split is not None and split.points >= sc.MIN_HU and s == self.dealer and split.points >= sl:
                hand_types.append("tianhu")
                groups, points = split.groups, split.points
            else:
                hand_types.append("sanlong_wukan")
                groups = self.sanlong_groups(s)
                points = sl
            src = None
            kind = "deal"
        else:
            split = self.split(s, None if after_forced else c, win_from)
            assert split is not None
            groups, points = split.groups, split.points
            src = None if win_from == "self" else card_src
            kind = {"self": "zimo", "flip": "flip", "discard": "dianpao"}[win_from]
            if win_from == "self":
                hand_types.append("zimo")
            if win_from == "discard" and self.discards == 1 and self.draws == 0 and s != self.dealer:
                hand_types.append("dihu")  # 地胡: 胡庄家打出的第一张牌 (004 §胡息 6; 001 lists it)
        held = [0] * 20
        for k, n in enumerate(self.hands[s]):
            held[k] += n
        for _, cards in self.melds[s]:
            for k in cards:
                held[k] += 1
        if c is not None and not after_forced:
            held[c] += 1
        if win_from in ("self", "flip") and self.wall_left == 0 and self.rules["haidi_double"]:
            hand_types.append("haidi")  # 海底胡 (胡最后一张牌) ×2 (004 §胡息及舵 6)
        turned, xing = self.turn_xing(held)
        units, bd = sc.settle_units(points, hand_types, xing, self.rules)
        share = units * self.stake
        scores = [0] * self.n
        if kind == "dianpao":  # 点炮: the discarder pays for both losers (001 §打10胡胡牌规则)
            assert src is not None
            scores[src] = -share * (self.n - 1)
        else:
            for o in range(self.n):
                if o != s:
                    scores[o] = -share
        scores[s] = share * (self.n - 1)
        self.win = {"seat": s, "card": c, "kind": kind, "groups": groups, "xing_cards": turned}
        self.outcome = {
            "outcome": "win", "winner": s, "win_card": _CODES[c] if c is not None else None, "from": src,
            "points": points, "hand_types": hand_types,
            "xing": {"cards": ZIPAI.codes_of(turned), "count": xing},
            "units": units, "breakdown": bd, "scores": scores,
        }

    def turn_xing(self, held: list[int]) -> tuple[list[int], int]:
        """The 醒 cards turned from the front of the wall and the winner's 醒 count.

        上中下醒 (001 §翻上中下醒): one card, counting its kind and both neighbours. 翻醒 (004 §胡息及舵 7):
        the turned card (or the one above it, option ``fanxing_offset``) counts once per copy held;
        holding all four turns again. 上下醒 (``xing_mode = shangxia``, docs/rules/guilin.md decision
        18): each turned card counts its 上 and 下 kinds only, not itself; holding all four of either
        turns the next card too. A wall that runs out stops the turning. After 海底 (empty wall)
        there is none (spec §4).
        """
        if self.wall_left == 0:
            return [], 0
        cards = self.wall[self.front:self.back] if self.xing_turns is None else self.xing_turns
        mode = self.rules["xing_mode"]
        if mode == "shangzhongxia":
            if not cards:
                return [], 0
            zhong = cards[0]
            return [zhong], sc.xing_count(zhong, held)
        turned, count = [], 0
        if mode == "shangxia":
            for card in cards:
                turned.append(card)
                n, again = sc.shangxia_count(card, held)
                count += n
                if not again:
                    break
            return turned, count
        for card in cards:
            target = sc.xing_kinds(card)[0] if self.rules["fanxing_offset"] else card
            turned.append(card)
            count += held[target]
            if held[target] < 4:
                break
        return turned, count

    def apply(self, ev: Event) -> None:
        if self.declare and self.phase is Phase.START:
            try:
                self._on_declare(ev)
            finally:
                self.step += 1
            return
        GameState.apply(self, ev)  # super(), without making a super object an event

    def pending_declarations(self) -> list[Event]:
        if not (self.declare and self.phase is Phase.START):
            return []
        seat, fours = self.declare[0]
        if fours:
            return [Event(seat=seat, act="sao_chuan", cards=[_CODES[fours[0]]] * 4)]
        return [Event(seat=seat, act="draw", card=_CODES[self.wall[self.front]], to_hand=True)]

    def _on_declare(self, ev: Event) -> None:
        """Start-of-hand laying down of dealt fours and the replacement draw (004 §3.打牌 4:
        起手2扫穿放在桌面不亮，系统再发一张牌给玩家); seats in turn order from the dealer."""
        seat, fours = self.declare[0]
        if fours:
            if ev.seat != seat or ev.act != "sao_chuan" or ev.card is not None or not ev.cards:
                raise self.fail("missing_forced_action", "dealt_four",
                                f"seat {seat} must first lay down its dealt fours "
                                f"({', '.join(_CODES[k] for k in fours)}) as sao_chuan (start of hand)")
            kinds = [ZIPAI.index(x) for x in ev.cards]
            if len(kinds) != 4 or len(set(kinds)) != 1 or kinds[0] not in fours:
                raise self.fail("illegal_action", "dealt_four", f"seat {seat} holds no dealt four of {ev.cards}")
            k = kinds[0]
            fours.remove(k)
            self.hands[seat][k] = 0
            self.melds[seat].append(("sao_chuan", (k,) * 4))
            self.alike[seat][k] = "sao_chuan"
            return
        if ev.seat != seat or ev.act != "draw" or not ev.to_hand:
            raise self.fail("missing_forced_action", "dealt_four",
                            f"seat {seat} draws one replacement card into its hand (to_hand) after laying down its fours")
        c = self.card(ev.card)
        if self.wall_left == 0 or c != self.wall[self.front]:
            raise self.fail("wall_mismatch", "paipu.wall", f"the replacement {ev.card} is not the next card of the wall")
        self.front += 1
        self.hands[seat][c] += 1
        self.declare.pop(0)
        if not self.declare:
            self.window = Window(-1, self.dealer, "start", self.start_options())

    def finish(self, n_actions: int) -> None:
        if self.phase is Phase.DISCARD and self.must_hu:
            self.step = n_actions
            code, rule, why = self.must_hu
            fc = self.forced_card
            assert fc is not None  # must_hu is set with it
            raise self.fail(code, rule, f"seat {self.turn} had to 胡 after its forced `{fc.act}` ({why}); "
                            "the actions stop there")
        if self.phase is Phase.DISCARD and self.skip_discard and self.wall_left == 0:
            self.end_draw()  # the seat that owes no discard declined its 胡 on the last card
        super().finish(n_actions)

    # -- views -------------------------------------------------------------------------------
    def meld_points(self, kind: str, cards: Sequence[int], settled: bool = False) -> int:
        """:meth:`GameState.meld_points`: 胡 of a meld (001 §玩法规则)."""
        return sc.meld_points(kind, cards)

    def win_groups(self) -> tuple[Group, ...] | None:
        """:meth:`GameState.win_groups`: the winner's best split, once the 胡 is settled."""
        return self.win["groups"] if self.win is not None and self.outcome is not None else None

    def facts_extra(self) -> dict[str, Any]:
        """``xing``: the 醒 of a win (``mode``, the turned ``cards``, ``count``), None otherwise."""
        if self.win is None or self.outcome is None:
            return {"xing": None}
        return {"xing": {"mode": self.rules["xing_mode"], **self.outcome["xing"]}}

    def legal_events(self) -> list[Event]:
        """Every event that may come next (explicit passes included; the next draw when the
        window may close)."""
        if self.phase is Phase.OVER:
            return []
        if self.declare and self.phase is Phase.START:
            return self.pending_declarations()
        if self.phase is Phase.DRAW:
            return [Event(seat=self.turn, act="draw", card=_CODES[self.wall[self.front]])]
        if self.phase is Phase.DISCARD:
            s = self.turn
            evs = [Event(seat=s, act="discard", card=_CODES[k]) for k, n in enumerate(self.free(s)) if n]
            if self.after_forced and self.after_forced[0] == s:
                evs.append(Event(seat=s, act="hu", card=_CODES[self.after_forced[1]]))
            if self.skip_discard or self.must_hu:
                evs = [e for e in evs if e.act == "hu"]
            if self.must_hu:
                return evs
            if (self.skip_discard or self.may_skip) and self.wall_left:
                assert self.next_draw is not None
                evs.append(Event(seat=self.next_draw, act="draw", card=_CODES[self.wall[self.front]]))
            return evs
        w = self.window
        assert w is not None
        evs = self.window_events() + self.closing_draw()
        if w.kind == "start":  # the dealer's first discard closes the start window
            evs += [Event(seat=self.dealer, act="discard", card=_CODES[k]) for k, n in enumerate(self.free(self.dealer)) if n]
        return evs

    def census_elsewhere(self) -> dict[str, list[int]]:
        """:meth:`GameState.census_elsewhere`: the flipped or discarded card a 胡 was won on, which
        joins no hand (``end_win`` counts it into the winner's cards); none after a 胡 on the card of
        the seat's own forced act (it lies in that meld) or at the start (天胡 has no card)."""
        w = self.win
        if w is None or w["card"] is None:
            return {}
        af = self.after_forced
        if af is not None and af[0] == w["seat"] and af[1] == w["card"]:
            return {}
        return {"won on": [w["card"]]}
