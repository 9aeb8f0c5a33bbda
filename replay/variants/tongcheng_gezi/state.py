"""通城個子牌 as a state machine over the engine core (replay/engine.py).

Seed: 000_b93a380aaaa9b6e3.txt (cited as 000 §section) and the 通城個子 introduction of
002_f9a80b28e0fcbf1a.txt; readings and decisions: docs/rules/tongcheng_gezi.md.

Turn: a seat draws into its hand (or 撿s its 上家's discard), may 觀生 / 滑 / 胡, then discards.
A discard opens a window: 胡 (any other seat), 碰 / 招 / 滑 (any other seat), 撿 (the 下家 only,
lowest). Option keys encode the order: with ``claim_order = hu_first`` (default) every 胡 first,
then 碰 / 招 / 滑, each in turn order after the discarder (000 §操作規則 碰: 上家打出可以馬上碰,
下家打出必須等上家說不碰), then 撿 (000 §操作規則 撿: 在沒有其它玩家 碰 招 滑 胡 的情況下).
"""

from __future__ import annotations

from typing import Any, Sequence

from replay.cards import HUAPAI
from replay.engine import GameState, Option, Phase, Window
from replay.groups import Group, groups_json
from replay.record import Event
from replay.variants.tongcheng_gezi import scoring as sc

R_HU, R_MELD, R_JIAN = 0, 1, 2
CODES = HUAPAI.codes
CHAR_OF, KINDS_OF = sc.CHAR_OF, sc.KINDS_OF
PLAIN_FLOWER = tuple((ks[0], ks[1] if len(ks) > 1 else -1) for ks in KINDS_OF)  # per character: its kinds (-1: no 花)


class GeziState(GameState):
    """A 通城個子牌 hand in play. Construct from a decoded record and its ruleset.

    Extra state: ``jian[s][k]`` how many 撿 copies of kind ``k`` seat ``s`` holds (they may not
    join identical cards in 碰 / 招 / 觀生 / 滑); ``can_hu`` whether the seat to discard may win on
    its own hand now (``"deal"``: the dealer's dealt hand, ``"draw"``: after a draw from the wall);
    ``jian_card`` the kind the seat to discard has just 撿ed (None otherwise); ``hr`` the options
    a hand's judgement reads (:class:`scoring.HandRules`); ``wu_held[s][ch]`` whether seat ``s``
    still held the fifth card of character ``ch`` when it declared its 觀生 of ``ch`` (option
    ``hua_held``).
    """

    variant = "tongcheng_gezi"
    deck = HUAPAI

    def __init__(self, record, ruleset) -> None:
        super().__init__(record, ruleset)
        n = self.n
        self.jian: list[list[int]] = [[0] * sc.N_KINDS for _ in range(n)]
        self.bu = False  # the pending draw is a replacement (補) after 招 / 觀生 / 滑
        self.last_draw: int | None = None
        self.jian_card: int | None = None
        self.wu_held: list[list[bool]] = [[False] * sc.N_CHARS for _ in range(n)]
        self.win: dict[str, Any] | None = None
        self.hr = sc.HandRules.of(ruleset, players=n)
        self.players_error = (None if n == ruleset["players"] else
                              f"the record has {n} seats but rule option `players` is {ruleset['players']} "
                              f"(set \"rules\": {{\"players\": {n}}} for a {n}-seat table)")
        # The dealer discards first, with its 20 dealt cards (000 §遊戲介紹: 莊家起20張); no start window.
        self.phase, self.turn = Phase.DISCARD, self.dealer
        self.can_hu: str | None = "deal"
        # Option keys of the window by rank and position after the discarder (see _key), and per
        # discarder the other seats in turn order: the claim windows ask for them every discard.
        self._keys = [[self._key(rank, pos) for pos in range(n - 1)] for rank in (R_HU, R_MELD, R_JIAN)]
        self._order = [[(src + i) % n for i in range(1, n)] for src in range(n)]

    # -- helpers ---------------------------------------------------------------------------
    def free(self, seat: int, k: int) -> int:
        """Copies of kind ``k`` the seat holds that were not 撿ed (000 §操作規則 撿: 不能與相同的牌
        配合起來碰招觀生與滑)."""
        return self.hands[seat][k] - self.jian[seat][k]

    def combos(self, seat: int, ch: int, m: int) -> list[list[int]]:
        """Every choice (as kinds) of ``m`` non-撿 cards of character ``ch`` from the seat's hand."""
        kinds = sc.KINDS_OF[ch]
        if len(kinds) == 1:
            return [[kinds[0]] * m] if self.free(seat, kinds[0]) >= m else []
        p, f = kinds
        return [[p] * a + [f] * (m - a) for a in range(m, -1, -1)
                if a <= self.free(seat, p) and m - a <= self.free(seat, f)]

    def meld_of(self, seat: int, ch: int, kinds: tuple[str, ...]) -> int | None:
        for i, (k, cards) in enumerate(self.melds[seat]):
            if k in kinds and sc.CHAR_OF[cards[0]] == ch:
                return i
        return None

    def fours(self, seat: int) -> list[tuple[int, ...]]:
        """Four-card sets the seat could read as its 觀生 instead of a declared one: four alike of
        its own concealed cards, none 撿ed (000 §操作規則 撿: a 撿 card never joins identical cards
        to 觀生). Only with a declared 觀生 on the table (000 §操作規則 觀生: 玩家可以折散兩組四個牌中
        任意一組牌); empty otherwise. A claimed card is never in ``hands`` here, so never in a set."""
        if not any(k == "guan_sheng" for k, _ in self.melds[seat]):
            return []
        out = []
        for ch in range(sc.N_CHARS):
            free = [(k, self.free(seat, k)) for k in reversed(sc.KINDS_OF[ch])]  # 花 copies first
            if sum(n for _, n in free) >= 4:
                four: list[int] = []
                for k, n in free:
                    four += [k] * min(n, 4 - len(four))
                out.append(tuple(sorted(four)))
        return out

    def judge(self, seat: int, extra: int | None = None) -> sc.Judgement:
        """The seat's hand judged (with ``extra``, a claimed discard, added): its 撿 copies, its
        fours that could be the 觀生 (:meth:`fours`) and the options read."""
        h = list(self.hands[seat])
        if extra is not None:
            h[extra] += 1
        return sc.judge(h, self.melds[seat], self.hr, discard=extra, jian=self.jian[seat], fours=self.fours(seat))

    def wins(self, seat: int, extra: int | None = None) -> bool:
        """``judge(seat, extra).win``, without judging hands that have no shape (:func:`sc.may_win`;
        skipped when another four could be the 觀生: the pre-check reads the declared sets only)."""
        return ((sc.may_win_with(self.hands[seat], extra, len(self.melds[seat])) or bool(self.fours(seat)))
                and self.judge(seat, extra).win)

    def _key(self, rank: int, pos: int) -> tuple[int, int]:
        if rank == R_JIAN:  # 撿 is last, whatever the order (000 §操作規則 撿)
            return (R_JIAN, 0) if self.rules["claim_order"] == "hu_first" else (self.n, 0)
        return (rank, pos) if self.rules["claim_order"] == "hu_first" else (pos, rank)

    def apply(self, ev: Event) -> None:
        """Verify and apply one event (core :meth:`GameState.apply`); first a record whose seat count
        disagrees with rule option ``players`` is refused (``schema``, rule ``tongcheng_gezi.players``)."""
        if self.players_error:
            raise self.fail("schema", "players", self.players_error)
        super().apply(ev)

    # -- options ---------------------------------------------------------------------------
    def window_options(self, c: int, src: int) -> list[Option]:
        """Every seat's options on ``c`` discarded by ``src``. With the wall empty only 胡 is
        offered (the hand ends at that discard; docs/rules/tongcheng_gezi.md decision 8)."""
        out: list[Option] = []
        ch = CHAR_OF[c]
        p, f = PLAIN_FLOWER[ch]
        code = CODES[c]
        wall = self.wall_left > 0
        hu_keys, meld_keys, jian_keys = self._keys
        hands, jian, melds = self.hands, self.jian, self.melds
        for pos, s in enumerate(self._order[src]):
            h, ms = hands[s], melds[s]
            if self.wins(s, c):  # 抓衝: any seat may win on a discard (000 §胡牌規則)
                out.append(Option(s, "hu", hu_keys[pos], False, [Event(seat=s, act="hu", card=code)], "hu"))
            if not wall:
                continue
            # non-撿 copies of the character held: combos finds none under 2 (碰) or 3 (招)
            j = jian[s]
            free = h[p] - j[p] if f < 0 else h[p] + h[f] - j[p] - j[f]
            # the seat's melds of this character (one scan): 碰 and 觀生 change what it may claim
            peng = guan_sheng = False
            for k, cards in ms:
                if CHAR_OF[cards[0]] == ch:
                    peng, guan_sheng = peng or k == "peng", guan_sheng or k == "guan_sheng"
            if free >= 2 and not peng:  # 碰過的牌不能再招 (000 §操作規則 招)
                # 碰: 手中有2個相同的字 (000 §操作規則 碰)
                evs = [Event(seat=s, act="peng", card=code, cards=HUAPAI.codes_of(cs)) for cs in self.combos(s, ch, 2)]
                out.append(Option(s, "peng", meld_keys[pos], False, evs, "peng"))
                if free >= 3:  # 招: 手中有1坎，別人再出一張 (000 §操作規則 招)
                    evs = [Event(seat=s, act="zhao", card=code, cards=HUAPAI.codes_of(cs)) for cs in self.combos(s, ch, 3)]
                    out.append(Option(s, "zhao", meld_keys[pos], False, evs, "zhao"))
            if guan_sheng:  # 滑: 其它玩家打出第五張 (000 §操作規則 滑)
                out.append(Option(s, "hua", meld_keys[pos], False, [Event(seat=s, act="hua", card=code)], "hua"))
        if wall:  # 撿: the 下家 only (000 §操作規則 撿: 上家打的牌)
            x = self.xia(src)
            out.append(Option(x, "jian", jian_keys[0], False, [Event(seat=x, act="jian", card=code)], "jian"))
        return out

    def own_events(self, s: int) -> list[Event]:
        """The seat's legal events in its discard phase: 胡 (after a draw, or the dealer's dealt
        hand), 觀生, 滑 (with a card left to replace them), and every discard (not of the kind just
        撿ed under ``jian_discard = refused``)."""
        evs: list[Event] = []
        h = self.hands[s]
        if self.can_hu and (self.can_hu == "draw" or self.rules["tian_hu"] == "allowed") and self.wins(s):
            card = CODES[self.last_draw] if self.can_hu == "draw" and self.last_draw is not None else None
            evs.append(Event(seat=s, act="hu", card=card))
        if self.wall_left > 0:
            counts = sc.chars_of(h)
            if max(counts) >= 4:
                for ch in range(sc.N_CHARS):
                    if counts[ch] >= 4:  # 觀生 needs four of the character (combos then checks 撿 cards)
                        evs += [Event(seat=s, act="guan_sheng", cards=HUAPAI.codes_of(cs)) for cs in self.combos(s, ch, 4)]
            for k, cards in self.melds[s]:
                if k == "guan_sheng" and self.hua_open(s, CHAR_OF[cards[0]]):
                    evs += [Event(seat=s, act="hua", card=CODES[x]) for x in KINDS_OF[CHAR_OF[cards[0]]] if self.free(s, x) > 0]
        barred = self.jian_card if self.rules["jian_discard"] == "refused" else None
        evs += [Event(seat=s, act="discard", card=CODES[k]) for k, n in enumerate(h) if n and k != barred]
        return evs

    # -- events ----------------------------------------------------------------------------
    def open_window(self, card: int, src: int) -> None:
        """Open the discard to claims; the last discard nobody can 胡 ends the hand at once (荒庄)."""
        if self.wall_left == 0:
            w = Window(card, src, "discard", self.window_options(card, src))
            if not w.options:
                self.window_closed(w)
                return
        else:  # built lazily: no option is forced or changes the state when passed (speed only)
            w = Window(card, src, "discard", build=lambda: self.window_options(card, src), closing=list)
        self.window, self.phase = w, Phase.WINDOW

    def to_draw(self, seat: int, bu: bool = False) -> None:
        """``seat`` draws next (a replacement when ``bu``); an empty wall ends the hand (荒庄)."""
        if self.wall_left == 0:
            self.end_draw()
        else:
            self.phase, self.turn, self.bu = Phase.DRAW, seat, bu

    def on_draw(self, ev: Event) -> None:
        """A draw goes into the drawer's hand (000 §遊戲介紹). Replacements after 招 / 觀生 / 滑 come
        from the front (牌面) or, with ``bu_pai = tail``, the back (``"tail": true``)."""
        s = self.turn
        if ev.act != "draw" or ev.seat != s:
            if self.bu:  # an owed replacement is a forced act: spec §6 missing_forced_action, as in 上大人 and 花牌
                raise self.fail("missing_forced_action", "bu_pai",
                                f"seat {s} must draw its replacement card (補) now; got `{ev.act}` by seat {ev.seat}")
            raise self.fail("out_of_turn", "turn", f"seat {s} must draw a card now; got `{ev.act}` by seat {ev.seat}")
        tail = self.bu and self.rules["bu_pai"] == "tail"
        if ev.tail != tail:
            raise self.fail("illegal_action", "bu_pai", f"this draw comes from the {'back' if tail else 'front'} of the wall "
                            f"(`tail` must be {'true' if tail else 'absent'})")
        c = self.card(ev.card)
        want = self.wall[self.back - 1 if tail else self.front]
        if c != want:
            raise self.fail("wall_mismatch", "paipu.wall", f"seat {s} drew {CODES[c]} but the next card of the wall is {CODES[want]}")
        if tail:
            self.back -= 1
        else:
            self.front += 1
        self.hands[s][c] += 1
        self.last_draw, self.can_hu, self.bu = c, "draw", False
        self.phase = Phase.DISCARD

    def on_discard_phase(self, ev: Event) -> None:
        """The seat to play discards (opening a window), or first 觀生s / 滑s (a replacement
        follows) or 胡s on its own hand. :raises RuleViolation: ``out_of_turn`` for another seat,
        ``illegal_action`` naming the rule, ``not_a_win``."""
        s = self.turn
        if ev.seat != s:
            raise self.fail("out_of_turn", "turn", f"seat {s} is to play now (discard, 觀生, 滑 or 胡), not seat {ev.seat} (`{ev.act}`)")
        h = self.hands[s]
        if ev.act == "discard":
            c = self.card(ev.card)
            if h[c] == 0:
                raise self.fail("illegal_action", "discard", f"seat {s} holds no {CODES[c]} to discard")
            if c == self.jian_card and self.rules["jian_discard"] == "refused":
                raise self.fail("illegal_action", "jian_discard", f"seat {s} just 撿ed {CODES[c]}: under option "
                                "`jian_discard = refused` it may not discard that card now")
            h[c] -= 1
            self.jian_card = None
            # The log cannot tell copies apart: a 撿 copy is taken to stay while one is held (decision 5).
            j = self.jian[s]
            if j[c] > h[c]:
                j[c] = h[c]
            self.can_hu = None
            self.open_window(c, s)
        elif ev.act == "guan_sheng":
            self._guan_sheng(s, ev)
        elif ev.act == "hua":
            self._hua_own(s, ev)
        elif ev.act == "hu":
            self._zimo(s, ev)
        else:
            raise self.fail("illegal_action", "discard", f"seat {s} must discard now (or 觀生, 滑, 胡), not `{ev.act}`")

    def _need_wall(self, s: int, act: str) -> None:
        if self.wall_left == 0:
            raise self.fail("illegal_action", "bu_pai", f"seat {s} cannot `{act}`: the wall is empty, no replacement card is left")

    def _guan_sheng(self, s: int, ev: Event) -> None:
        """觀生: four of a kind from one's own hand, declared and fixed; a replacement follows
        (000 §操作規則 觀生)."""
        cards = [self.card(x) for x in ev.cards or []]
        if len(cards) != 4 or len({sc.CHAR_OF[k] for k in cards}) != 1:
            raise self.fail("illegal_action", "guan_sheng", "觀生 names four cards of one character in `cards`")
        if ev.card is not None and self.card(ev.card) not in cards:
            raise self.fail("illegal_action", "guan_sheng", "觀生's `card` must be one of its four `cards`")
        need = {k: cards.count(k) for k in set(cards)}
        if any(self.hands[s][k] < n for k, n in need.items()):
            raise self.fail("illegal_action", "guan_sheng", f"seat {s} does not hold {'+'.join(HUAPAI.codes_of(cards))}")
        if any(self.free(s, k) < n for k, n in need.items()):
            raise self.fail("illegal_action", "jian_same", f"seat {s}'s {CODES[cards[0]]} includes a card it 撿ed: "
                            "a 撿 card never joins identical cards to 觀生 (000 §操作規則 撿)")
        self._need_wall(s, "guan_sheng")
        for k in cards:
            self.hands[s][k] -= 1
        ch = sc.CHAR_OF[cards[0]]
        # the fifth of the character still in the hand was held before the 觀生 (option hua_held)
        self.wu_held[s][ch] = any(self.hands[s][k] for k in KINDS_OF[ch])
        self.melds[s].append(("guan_sheng", tuple(sorted(cards))))
        self.can_hu = None
        self.to_draw(s, bu=True)

    def _hua_own(self, s: int, ev: Event) -> None:
        """滑 with one's own fifth card on a 觀生 set; a replacement follows (000 §操作規則 滑)."""
        c = self.card(ev.card)
        if ev.cards:
            raise self.fail("illegal_action", "hua", "滑 adds one card to a 觀生 set: `cards` is omitted (spec §4 upgrade)")
        self._hua_meld(s, c)
        if self.hands[s][c] == 0:
            raise self.fail("illegal_action", "hua", f"seat {s} holds no {CODES[c]} to 滑")
        if self.free(s, c) == 0:
            raise self.fail("illegal_action", "jian_same", f"seat {s}'s {CODES[c]} was 撿ed: a 撿 card never 滑s (000 §操作規則 撿)")
        if not self.hua_open(s, sc.CHAR_OF[c]):
            raise self.fail("illegal_action", "hua_held", f"seat {s} held this {CODES[c]} when it declared its 觀生: under option "
                            "`hua_held = refused` the fifth must come after the 觀生 (000 §操作規則 滑: 手中有1觀生有四個的牌，"
                            "自己又摸到第五張相同的牌，或者其它玩家打出第五張相同的牌)")
        self._need_wall(s, "hua")
        self.hands[s][c] -= 1
        i = self._hua_meld(s, c)
        k, cards = self.melds[s][i]
        self.melds[s][i] = ("hua", tuple(sorted((*cards, c))))
        self.can_hu = None
        self.to_draw(s, bu=True)

    def hua_open(self, s: int, ch: int) -> bool:
        """Whether the seat may 滑 a card of character ``ch`` from its hand onto its 觀生 set.
        滑: 手中有1觀生有四個的牌，自己又摸到第五張相同的牌 (000 §操作規則 滑). The deck has five of a
        character, so a fifth still held at the 觀生 is the only one the seat can ever hold (a
        discard never returns to the wall; a 撿 copy never 滑s). Option ``hua_held``: ``allowed``
        reads 摸到 as every card the seat took in, dealt ones included, as 觀生 itself does
        (手中自己摸起來四張); ``refused`` reads 又摸到 as after the 觀生, so the held fifth never
        滑s from the hand (docs/rules/tongcheng_gezi.md decision 12). A fifth another seat discards
        (其它玩家打出第五張) is a window claim, open under both."""
        return not self.wu_held[s][ch] or self.rules["hua_held"] == "allowed"

    def _hua_meld(self, s: int, c: int) -> int:
        """Index of the seat's 觀生 set of ``c``'s character. :raises RuleViolation: none (滑牌前必須先觀生;
        招過的滑也不能滑了, 000 §操作規則)."""
        ch = sc.CHAR_OF[c]
        i = self.meld_of(s, ch, ("guan_sheng",))
        if i is not None:
            return i
        if self.meld_of(s, ch, ("zhao",)) is not None:
            raise self.fail("illegal_action", "hua_not_zhao", f"seat {s}'s {sc.HUAPAI_CHARS[ch]} set was 招ed: a 招 set cannot 滑 (000 §操作規則 招)")
        raise self.fail("illegal_action", "hua_needs_guan_sheng", f"seat {s} has no 觀生 set of {sc.HUAPAI_CHARS[ch]}: 滑牌前必須先觀生 (000 §操作規則 滑)")

    def _zimo(self, s: int, ev: Event) -> None:
        """胡 on one's own hand: after a draw from the wall (自摸), or the dealer's dealt hand (天胡)."""
        if self.can_hu is None:
            raise self.fail("illegal_action", "zimo", f"seat {s} did not draw its last card: it may 胡 only on a card it drew "
                            "(a win on a discard is claimed on that discard)")
        if self.can_hu == "deal" and self.rules["tian_hu"] == "refused":
            raise self.fail("illegal_action", "tian_hu", f"seat {s} 胡s on its dealt hand (天胡), which tian_hu = refused "
                            "does not allow (docs/rules/tongcheng_gezi.md decision 7)")
        c = None if ev.card is None else self.card(ev.card)
        if self.can_hu == "draw" and c != self.last_draw:
            raise self.fail("illegal_action", "zimo", f"seat {s}'s 自摸 names {CODES[c] if c is not None else 'no card'}, "
                            f"but it drew {CODES[self.last_draw]}")  # type: ignore[index]
        if self.can_hu == "deal" and c is not None:
            raise self.fail("illegal_action", "zimo", "a win on the dealt hand (天胡) has no `card`")
        j = self.judge(s)
        if not j.win:
            raise self._not_a_win(j, f"seat {s}: {j.reason}")
        self.end_win(s, c, "zimo" if self.can_hu == "draw" else "deal", None, j)

    def _not_a_win(self, j: sc.Judgement, message: str):
        """The ``not_a_win`` refusal of ``j``: rule ``min_gezi`` with ``detail`` ``{"points",
        "groups"}`` (spec §8 groups) when the shape is complete, else ``liu_ju_ban``."""
        if j.points is None:
            return self.fail("not_a_win", "liu_ju_ban", message)
        return self.fail("not_a_win", "min_gezi", message, detail={"points": j.points, "groups": groups_json(j.groups, HUAPAI)})

    def window_closed(self, w: Window) -> None:
        """Nobody took the discard: it stays in the river and the 下家 draws."""
        self.river[w.src].append(w.card)
        self.to_draw(self.xia(w.src))

    def apply_claim(self, opt: Option, ev: Event, w: Window) -> None:
        """A claim on the discard, already matched and priority-checked by the core: 胡 ends the
        hand; 碰 and 撿 are followed by the claimer's discard; 招 and 滑 by its replacement draw."""
        s, c, act = ev.seat, w.card, ev.act
        h = self.hands[s]
        if act == "hu":
            self.end_win(s, c, "dianpao", w.src, self.judge(s, c))
            return
        if act in ("peng", "zhao"):
            own = [self.card(x) for x in ev.cards or []]
            for k in own:
                h[k] -= 1
            self.melds[s].append((act, tuple(sorted((*own, c)))))
            if act == "zhao":  # 招 draws a replacement (000 §操作規則 招: 在牌面起一張牌)
                self.to_draw(s, bu=True)
                return
        elif act == "hua":  # upgrade of a 觀生 set with a discarded fifth; a replacement follows
            i = self._hua_meld(s, c)
            self.melds[s][i] = ("hua", tuple(sorted((*self.melds[s][i][1], c))))
            self.to_draw(s, bu=True)
            return
        elif act == "jian":  # 撿: the card goes into the hand as if drawn (000 §操作規則 撿)
            h[c] += 1
            self.jian[s][c] += 1
            self.jian_card = c
        self.can_hu = None  # after 碰 / 撿 the seat discards; a win on this card was the 胡 option
        self.phase, self.turn = Phase.DISCARD, s

    # -- errors in words ---------------------------------------------------------------------
    def explain_missing_option(self, ev: Event, w: Window, mine: list[Option]) -> None:
        """Name the rule when a claim is not among the seat's options (撿 by a seat not the 下家,
        胡 on an incomplete hand, 碰 / 招 with a 撿 card, 滑 without 觀生, claims on the last card)."""
        s, c = ev.seat, w.card
        ch = sc.CHAR_OF[c]
        name = sc.HUAPAI_CHARS[ch]
        if ev.card is not None and self.card(ev.card) != c:
            return
        if s in w.passed:
            raise self.fail("illegal_action", "paipu.pass", f"seat {s} already passed on this {CODES[c]}")
        if ev.act == "jian":
            if s != self.xia(w.src):
                raise self.fail("out_of_turn", "jian_xiajia", f"only the 下家 of seat {w.src} (seat {self.xia(w.src)}) may 撿 its "
                                f"discard, not seat {s} (000 §操作規則 撿: 上家打的牌)")
            raise self.fail("illegal_action", "jian", "the wall is empty: the hand ends at this discard unless someone 胡s")
        if ev.act == "hu":
            if s == w.src:
                raise self.fail("illegal_action", "hu", f"seat {s} cannot win on its own discard")
            j = self.judge(s, c)
            raise self._not_a_win(j, f"seat {s} with {CODES[c]}: {j.reason}")
        if ev.act in ("peng", "zhao", "hua") and s != w.src:
            if self.wall_left == 0:
                raise self.fail("illegal_action", "haidi", "the wall is empty: only 胡 may be claimed on the last discard")
            if ev.act == "hua":
                self._hua_meld(s, c)
            need = 2 if ev.act == "peng" else 3
            held = sum(self.hands[s][k] for k in sc.KINDS_OF[ch])
            if ev.act == "zhao" and self.meld_of(s, ch, ("peng",)) is not None:
                raise self.fail("illegal_action", "zhao_not_peng", f"seat {s} 碰ed {name}: 碰過的牌不能再招 (000 §操作規則 招)")
            if held >= need:
                raise self.fail("illegal_action", "jian_same", f"seat {s}'s {name} includes a card it 撿ed: a 撿 card never "
                                f"joins identical cards to {ev.act} (000 §操作規則 撿)")
            raise self.fail("illegal_action", ev.act, f"seat {s} holds {held} {name}, {ev.act} needs {need}")

    def explain_bad_event(self, ev: Event, w: Window, opts: list[Option]) -> None:
        """Name the rule when a 碰 / 招 / 滑 is taken with the wrong own cards."""
        if ev.act in ("peng", "zhao") and ev.cards:
            own = [self.card(x) for x in ev.cards]
            if any(sc.CHAR_OF[k] != sc.CHAR_OF[w.card] for k in own) or len(own) != (2 if ev.act == "peng" else 3):
                raise self.fail("illegal_action", ev.act, f"{ev.act} takes {2 if ev.act == 'peng' else 3} cards identical to {CODES[w.card]}")
            if all(self.hands[ev.seat][k] >= own.count(k) for k in own):
                raise self.fail("illegal_action", "jian_same", f"seat {ev.seat} {ev.act}s with a card it 撿ed: a 撿 card never joins "
                                "identical cards (000 §操作規則 撿)")
        if ev.act == "hua" and ev.cards:
            raise self.fail("illegal_action", "hua", "滑 adds one card to a 觀生 set: `cards` is omitted (spec §4 upgrade)")

    # -- settlement --------------------------------------------------------------------------
    def end_win(self, s: int, c: int | None, kind: str, src: int | None, j: sc.Judgement) -> None:
        """Settle a win by ``s`` (000 §計分規則). ``kind``: ``dianpao`` (抓衝: only the discarder pays
        one share), ``zimo`` / ``deal`` (each other seat pays one share, or three with ``zimo_pay =
        triple``). Share = ⌊個子/7⌋ × special factor (× 3 for 自摸 under ``triple``) × stake."""
        self.phase = Phase.OVER
        hand_types = [j.special] if j.special else []
        zimo = 1
        if kind != "dianpao":
            hand_types.append("zimo" if kind == "zimo" else "tianhu")
            if self.rules["zimo_pay"] == "triple":
                zimo = 3
        units = j.units * zimo
        share = units * self.stake
        scores = [0] * self.n
        if kind == "dianpao":  # 抓別人的牌胡牌。那麽隻是放炮的人輸分 (000 §胡牌規則)
            assert src is not None
            scores[src] = -share
            scores[s] = share
        else:  # 自摸那就三家都要輸出 (000 §胡牌規則)
            for o in range(self.n):
                if o != s:
                    scores[o] = -share
            scores[s] = share * (self.n - 1)
        bd = {"fen": j.fen, "bei": j.bei}
        if zimo != 1:
            bd["zimo"] = zimo
        held = list(self.hands[s])
        if kind == "dianpao" and c is not None:
            held[c] += 1
        for _, cards in self.melds[s]:
            for k in cards:
                held[k] += 1
        self.win = {"seat": s, "card": c, "kind": kind, "judgement": j, "hua_cards": sc.hua_cards(held)}
        self.outcome = {
            "outcome": "win", "winner": s, "win_card": CODES[c] if c is not None else None,
            "from": src if kind == "dianpao" else None, "points": j.points, "hand_types": hand_types,
            "units": units, "breakdown": bd, "scores": scores,
        }

    def finish(self, n_actions: int) -> None:
        """End of the log (core :meth:`GameState.finish`), after the ``players`` check."""
        if self.players_error:
            self.step = n_actions
            raise self.fail("schema", "players", self.players_error)
        super().finish(n_actions)

    # -- views -------------------------------------------------------------------------------
    def meld_points(self, kind: str, cards: Sequence[int], settled: bool = False) -> int:
        """:meth:`GameState.meld_points`: 個子 of a meld with its cards (000 §計分規則)."""
        return sc.group_gezi(kind, cards, self.hr)

    def win_groups(self) -> tuple[Group, ...] | None:
        """:meth:`GameState.win_groups`: the winner's split."""
        return self.win["judgement"].groups if self.win is not None else None

    def facts_extra(self) -> dict[str, Any]:
        """``gezi``: for a win ``{"from_cards", "from_melds", "hua_cards", "special"}`` (個子 from the
        cards' own counts, from the groups, 花 cards held, the special hand id or None); None for a draw."""
        if self.win is None:
            return {"gezi": None}
        j: sc.Judgement = self.win["judgement"]
        return {"gezi": {"from_cards": j.from_cards, "from_melds": j.from_melds, "hua_cards": self.win["hua_cards"],
                         "special": j.special}}

    def legal_events(self) -> list[Event]:
        """Every event that may come next (explicit passes included; in a window, the 下家's draw
        that closes it)."""
        if self.phase is Phase.OVER:
            return []
        if self.phase is Phase.DRAW:
            tail = self.bu and self.rules["bu_pai"] == "tail"
            return [Event(seat=self.turn, act="draw", card=CODES[self.wall[self.back - 1 if tail else self.front]], tail=tail)]
        if self.phase is Phase.DISCARD:
            return self.own_events(self.turn)
        w = self.window
        assert w is not None
        evs = self.window_events()
        if self.wall_left:
            evs.append(Event(seat=self.xia(w.src), act="draw", card=CODES[self.wall[self.front]]))
        return evs

    def snapshot_seat(self, seat: int) -> dict[str, Any]:
        """:meth:`GameState.snapshot_seat`, with the hand's 撿 copies (``jian``) beside it."""
        shown = super().snapshot_seat(seat)
        return {"hand": shown.pop("hand"), "jian": HUAPAI.expand(self.jian[seat]), **shown}

    def census_elsewhere(self) -> dict[str, list[int]]:
        """:meth:`GameState.census_elsewhere`: the discard a 胡 was won on (抓衝), which joins no hand;
        a 自摸 card is in the winner's hand, a 天胡 has none."""
        w = self.win
        return {"won on": [w["card"]]} if w is not None and w["kind"] == "dianpao" else {}
