"""沅江鬼胡子: whole paipu/1 logs and score cases built by hand, each judged from the seed
(003_50360bd1f53fc819.txt) and docs/rules/yuanjiang_guihuzi.md — 过碰 after a 吃 taken over one's own
碰 or 歪, 报听 lost to a 吃 or 碰, the 0-息 hand that is also another hand type (option
``wuxi_ping``), and the codes of a 碰 of a flip and of a 飘 in rooms that have them off.

Every deal is written out: seat 0 deals (20 cards), seats 1 and 2 hold 19, and the wall starts with
the cards the log draws; the rest of the deck follows in deck order. A log that does not end in a
胡 draws the wall out (荒庄).
"""

from __future__ import annotations

from collections import Counter

import msgspec
import pytest

from replay.record import decode_record
from replay.replayer import replay_line, replay_record
from replay.score import score_case

VID = "yuanjiang_guihuzi"
KINDS = [f"x{i}" for i in range(1, 11)] + [f"d{i}" for i in range(1, 11)]


def deal(hands: list[str], wall_front: str) -> dict:
    """``hands`` as written (seat 0 first) and a wall of ``wall_front`` then the rest of the deck."""
    hs = [h.split() for h in hands]
    front = wall_front.split()
    used = Counter(c for h in hs for c in h) + Counter(front)
    assert [len(h) for h in hs] == [20, 19, 19] and all(used[k] <= 4 for k in KINDS), used
    return {"hands": hs, "wall": front + [k for k in KINDS for _ in range(4 - used[k])]}


def A(seat: int, act: str, card: str | None = None, cards: str | None = None) -> dict:
    e: dict = {"seat": seat, "act": act}
    if card:
        e["card"] = card
    if cards:
        e["cards"] = cards.split()
    return e


def drawn_out(d: dict, actions: list[dict], seat: int, used: int) -> list[dict]:
    """``actions`` then a draw of every card left in the wall (after the first ``used``), by
    ``seat`` and then each 下家 in turn: nobody claims them, the hand is drawn (荒庄)."""
    out = list(actions)
    for c in d["wall"][used:]:
        out.append(A(seat, "draw", c))
        seat = (seat + 1) % 3
    return out


def record(d: dict, actions: list[dict], rules: dict | None = None, result: dict | None = None) -> dict:
    r = {"format": "paipu/1", "game_id": "yj-hand-built", "variant": VID, "rules": rules or {},
         "seats": ["a", "b", "c"], "dealer": 0, "deal": d, "actions": actions}
    if result is not None:
        r["result"] = result
    return r


def verdict(rec: dict):
    return replay_line(msgspec.json.encode(rec)).verdict


def errors(rec: dict) -> list[tuple]:
    return [(e.step, e.code, e.rule) for e in verdict(rec).errors]


def options_at(rec: dict, step: int) -> list[tuple]:
    """The open window's options after ``actions[0..step]``: (seat, act, own cards of each event)."""
    st = replay_record(decode_record(msgspec.json.encode(rec)), stop_after=step).state
    return [(o.seat, o.act, [" ".join(e.cards) if e.cards else None for e in o.events]) for o in st.window.options]


# -- 过碰 after a 吃 taken over one's own 碰 or 歪 (003 §玩法规则 4.2; docs decision 10) -------------------
# 003 §玩法规则 4.2: 过碰: 能碰未碰后面不可再碰, 有歪未歪后面也不能碰. A seat that eats a card it could 碰
# (or 歪) did not 碰 (歪) it: that card is closed to its 碰 for the rest of the hand.

# Seat 1 holds 陆陆 and 肆伍; seat 0 discards 陆. Seat 2 holds the 4th 陆 and 小三小四.
GUO_PENG_DEAL = deal(["d6 x1 x1 x6 x6 x8 x9 x10 d1 d2 d3 d8 d9 d10 d10 x2 x2 x7 d7 d9",
                      "d6 d6 d4 d5 x3 x7 x8 x9 x10 d1 d2 d3 d7 d8 d9 d10 x4 x6 d1",
                      "d6 x3 x4 x9 x10 d2 d3 d4 d5 d7 d8 x7 x8 x6 d1 d4 d5 x2 d2"], "x5")


def test_a_chi_over_ones_own_peng_closes_the_later_peng():
    # 0 seat 0 discards 陆 — seat 1 may 碰 it (陆陆) or 吃 it (肆伍, 伍柒, 柒捌); it eats with 肆伍
    # 2 seat 1 discards 小三; 3 seat 2 flips 小五 and 4 eats it with 小三小四; 5 seat 2 discards its 陆
    # 6 seat 1 碰s that 陆: 能碰未碰 at step 1 → illegal_action 过碰
    acts = [A(0, "discard", "d6"), A(1, "chi", "d6", "d4 d5"), A(1, "discard", "x3"), A(2, "draw", "x5"),
            A(2, "chi", "x5", "x3 x4"), A(2, "discard", "d6"), A(1, "peng", "d6", "d6 d6"), A(1, "discard", "x4")]
    rec = record(GUO_PENG_DEAL, drawn_out(GUO_PENG_DEAL, acts, 2, 1))
    assert options_at(rec, 0) == [(1, "peng", ["d6 d6"]), (1, "chi", ["d4 d5", "d5 d7", "d7 d8"])]
    assert options_at(rec, 5) == []  # seat 2's 陆: seat 1's 碰 is closed, nobody else has one
    assert errors(rec) == [(6, "illegal_action", "yuanjiang_guihuzi.guo_peng")]
    assert "过碰" in verdict(rec).errors[0].message
    # the same seat that 碰s at step 1 instead is a valid game
    acts = [A(0, "discard", "d6"), A(1, "peng", "d6", "d6 d6"), A(1, "discard", "x3")]
    assert errors(record(GUO_PENG_DEAL, drawn_out(GUO_PENG_DEAL, acts, 2, 0))) == []


# Seat 1 holds 小八小八 and 小六小七 and flips the 3rd 小八; seat 2 holds the 4th 小八 and 小三小四.
GUO_WAI_DEAL = deal(["d6 x1 x1 x6 x9 x9 x10 d1 d2 d3 d8 d9 d10 d10 x2 x2 x7 d7 d9 d5",
                     "x8 x8 x6 x7 x3 x10 d1 d2 d3 d7 d8 d9 d10 x4 d1 d4 d4 d6 x5",
                     "x8 x3 x4 x10 d2 d3 d4 d5 d7 d8 x7 x6 d1 d5 x2 d2 d6 d6 x9"], "x8 x5")


def test_a_chi_over_ones_own_wai_closes_the_later_peng():
    # 1 seat 1 flips 小八: it may 歪 it (小八小八) or eat it (小六小七); it eats; 3 discards 小三
    # 4 seat 2 flips 小五, 5 eats it, 6 discards its 小八; 7 seat 1 碰s it: 有歪未歪 → 过碰
    acts = [A(0, "discard", "d5"), A(1, "draw", "x8"), A(1, "chi", "x8", "x6 x7"), A(1, "discard", "x3"),
            A(2, "draw", "x5"), A(2, "chi", "x5", "x3 x4"), A(2, "discard", "x8"), A(1, "peng", "x8", "x8 x8"),
            A(1, "discard", "x4")]
    rec = record(GUO_WAI_DEAL, drawn_out(GUO_WAI_DEAL, acts, 2, 2))
    assert options_at(rec, 1)[:2] == [(1, "wai", ["x8 x8"]), (1, "chi", ["x6 x7"])]
    assert options_at(rec, 6) == [(0, "chi", ["x6 x7", "x7 x9", "x9 x10"])]  # no 碰 for seat 1
    assert errors(rec) == [(7, "illegal_action", "yuanjiang_guihuzi.guo_peng")]


# -- 报听 is lost to a 动张 before the win (003 §胡牌胡型 2; docs decision 3) ------------------------------
# 003 §胡牌胡型 2: 报听: 起手听牌(庄家为打出第一张后听牌),没打出过手牌情况下胡牌。可溜可歪后立即胡和歪后即溜
# 不算动张,仍为报听,*4. A 吃 or a 碰 is a 动张 (only the 溜 and the 歪 before 胡 or 溜 are not).

# The dealer holds 小九 ×4, 柒捌, 小一..小六, 壹贰叁, 肆伍, 拾拾 and 小十.
DEALER_LIU_HANDS = ["x9 x9 x9 x9 d7 d8 x1 x2 x3 x4 x5 x6 d1 d2 d3 d4 d5 d10 d10 x10",
                    "x1 x2 x3 x5 x7 x8 d1 d2 d3 d5 d6 d7 x4 x6 x8 x10 d4 d9 x7",
                    "x1 x3 x4 x6 x7 x8 x10 d1 d2 d3 d4 d5 d6 d1 d10 x5 x2 d6 x2"]


def test_the_dealers_liu_then_chi_and_discard_is_not_baoting():
    # 0 the dealer 溜s its four 小九 (no discard); 1 seat 1 flips 小三; 2 seat 2 flips 玖, 3 the dealer
    # eats it with 柒捌 and 4 discards 小十 — its first discard, after a 吃; 7 it flips 陆 and 8 wins:
    # 溜 小九 + 吃 柒捌玖 + 小一二三 + 小四五六 + 壹贰叁 + 肆伍陆 + 门子 拾拾. No hand type (reds 小二, 贰, 柒,
    # 拾拾; both sizes; 0-息 sentences), so a 小胡: (5 硬息 + 溜 5) × 内圆 4 (the 溜) = 40, not ×4 报听.
    acts = [A(0, "liu", None, "x9 x9 x9 x9"), A(1, "draw", "x3"), A(2, "draw", "d9"), A(0, "chi", "d9", "d7 d8"),
            A(0, "discard", "x10"), A(1, "draw", "x5"), A(2, "draw", "d8"), A(0, "draw", "d6"), A(0, "hu", "d6")]
    result = {"outcome": "win", "winner": 0, "win_card": "d6", "from": None, "points": 40, "units": 40,
              "hand_types": ["nei_yuan"], "scores": [80, -40, -40],
              "breakdown": {"xi": 5, "kan": 0, "wai": 0, "liu": 5, "piao": 0, "dan_wai": 0, "nei_yuan": 4,
                            "wai_yuan": 1, "haidi": 1, "baoting": 1}}
    v = verdict(record(deal(DEALER_LIU_HANDS, "x3 d9 x5 d8 d6"), acts, result=result))
    assert v.valid, v.errors


def test_the_dealers_liu_then_wai_and_discard_is_not_baoting():
    # 0 the dealer 溜s; 3 it flips 拾 and 4 歪s it with 拾拾, then 5 discards 小十 — its first discard,
    # after a 歪 that was not followed by 胡 or 溜; 8 it flips 陆 and 9 wins: 溜 小九 + 歪 拾 + 小一二三 +
    # 小四五六 + 壹贰叁 + 肆伍陆 + 门子 柒捌 — (5 + 溜 5 + 歪 5) × 内圆 4 = 60, not ×4 报听.
    d = deal(DEALER_LIU_HANDS, "x3 d9 d10 x5 d8 d6")
    acts = [A(0, "liu", None, "x9 x9 x9 x9"), A(1, "draw", "x3"), A(2, "draw", "d9"), A(0, "draw", "d10"),
            A(0, "wai", "d10", "d10 d10"), A(0, "discard", "x10"), A(1, "draw", "x5"), A(2, "draw", "d8"),
            A(0, "draw", "d6"), A(0, "hu", "d6")]
    c = verdict(record(d, acts)).computed
    assert (c["points"], c["hand_types"], c["breakdown"]["wai"], c["breakdown"]["baoting"]) == (60, ["nei_yuan"], 5, 1)


# Seat 1 is 听 from its deal: 小一 ×4, 小二小三, 伍伍, 小四..小九, 壹贰叁, 柒捌 (wins on 玖 or 陆).
TING_DEAL = ["d5 x2 x3 x5 x6 x8 x9 x10 d1 d2 d3 d4 d6 d7 d8 d10 d10 x4 x7 x9",
             "x1 x1 x1 x1 x2 x3 d5 d5 x4 x5 x6 x7 x8 x9 d1 d2 d3 d7 d8",
             "x2 x3 x4 x5 x6 x7 x8 x10 d1 d2 d3 d4 d4 d6 d7 d9 d10 x10 d6"]


def test_a_peng_then_liu_without_a_discard_is_not_baoting():
    # 0 seat 0 discards 伍; 1 seat 1 碰s it and 2 溜s its four 小一 instead of discarding; 3–4 seats 2
    # and 0 flip; 5 seat 1 flips 玖 and 6 wins: 碰 伍 + 溜 小一 + 小二三 门子 + 小四五六 + 小七八九 + 壹贰叁 +
    # 柒捌玖 — a 小胡 (5 + 溜 5) × 内圆 4 = 40. The 碰 is a 动张 though no discard followed it.
    d = deal(TING_DEAL, "x4 d3 d9")
    acts = [A(0, "discard", "d5"), A(1, "peng", "d5", "d5 d5"), A(1, "liu", None, "x1 x1 x1 x1"), A(2, "draw", "x4"),
            A(0, "draw", "d3"), A(1, "draw", "d9"), A(1, "hu", "d9")]
    c = verdict(record(d, acts)).computed
    assert (c["points"], c["hand_types"], c["breakdown"]["baoting"]) == (40, ["nei_yuan"], 1)


def test_baoting_holds_for_a_seat_that_did_nothing_but_win():
    # the same seat passes the 碰 and wins on its first flip, 玖: 坎 小一 + 小一二三 + 小四五六 + 小七八九 +
    # 壹贰叁 + 柒捌玖 + 门子 伍伍 — (5 + 坎 5) × 内圆 4 (four 小一 dealt) × 报听 4 = 160
    d = deal(TING_DEAL, "d9 d3 x4")
    c = verdict(record(d, [A(0, "discard", "d5"), A(1, "draw", "d9"), A(1, "hu", "d9")])).computed
    assert (c["points"], c["hand_types"], c["breakdown"]["baoting"]) == (160, ["baoting", "nei_yuan"], 4)


# -- a 0-息 hand that is also another hand type (option wuxi_ping; 003 §胡牌胡型 4; docs decision 18) ----
# 003 §胡牌胡型 4: 无息平胡: 一息没有形成成牌牌型,有吃则不能胡无息平,允许胡牌不能叠加牌型,50息. No hand
# below splits with a 息 (a 坎, 歪, 二七十, or a pair or two of 二七十 as its 门子): such a split would be a
# win as its other type at once, worth more than 50, so its 50 under `only` shows there is none.


def case(hand: str, win: str, rules: dict, **context) -> dict:
    out = score_case({"variant": VID, "rules": rules, "hand": hand.split(), "melds": [], "win_card": win,
                      "win_from": "self", "context": context})
    assert "error" not in out, out
    return out


@pytest.mark.parametrize("hand, win, other, why", [
    # 小三四五 ×2, 小四五六, 叁肆伍 ×2, 肆伍陆 + 门子 捌玖: no red at all (全黑胡); 小四/小五/肆/伍 three
    # each, but a 坎 of any leaves cards no sentence takes, and 捌玖 has no third card here
    ("x3 x3 x4 x4 x4 x5 x5 x5 x6 d3 d3 d4 d4 d4 d5 d5 d5 d6 d8", "d9", "quanhei_hu", "no red"),
    # 小一二三, 小二三四, 小三四五, 小四五六, 小八九十 ×2 + 门子 小六小八: all small (小字胡); reds 小二 ×2,
    # 小十 ×2 and no 小七 (no 二七十); 8 pairs (no 九对半)
    ("x1 x2 x2 x3 x3 x3 x4 x4 x4 x5 x5 x6 x6 x8 x8 x9 x9 x10 x10", "x8", "xiaozi_hu", "all small"),
    # the same in 大: 大字胡
    ("d1 d2 d2 d3 d3 d3 d4 d4 d4 d5 d5 d6 d6 d8 d8 d9 d9 d10 d10", "d8", "dazi_hu", "all big"),
])
def test_a_0_xi_hand_that_is_also_another_type(hand, win, other, why):
    only = case(hand, win, {})
    assert (only["win"], only["points"], only["hand_types"]) == (True, 50, ["wuxi_ping"])
    assert all(g["points"] == 0 for g in only["groups"])
    assert case(hand, win, {"wuxi_ping": "only"}) == only
    higher = case(hand, win, {"wuxi_ping": "higher"})
    assert (higher["win"], higher["points"], higher["hand_types"]) == (True, 100, [other]), why
    assert higher["groups"] == only["groups"]  # the same split, read as the other type
    # the other type is a 大胡: with qihu_scope=all it needs 起胡条件 (none here), with qihu_xi=5 five 息
    # (0 here), so it stays 无息平
    assert case(hand, win, {"wuxi_ping": "higher", "qihu_scope": "all"})["points"] == 50
    assert case(hand, win, {"wuxi_ping": "higher", "qihu_xi": 5})["hand_types"] == ["wuxi_ping"]


def test_a_0_xi_tianhu_and_a_tie():
    # 天胡 on a 0-息 dealt hand (the 小字胡 hand above, 20 cards): 无息平 50 alone, or 天胡 200 + 小字胡
    # 100 = 300 (dahu_combine=sum), or the highest, 天胡 200 (max)
    dealt = "x1 x2 x2 x3 x3 x3 x4 x4 x4 x5 x5 x6 x6 x8 x8 x8 x9 x9 x10 x10"
    assert case(dealt, None, {}, dealer=True)["points"] == 50
    higher = case(dealt, None, {"wuxi_ping": "higher"}, dealer=True)
    assert (higher["points"], sorted(higher["hand_types"])) == (300, ["tianhu", "xiaozi_hu"])
    assert case(dealt, None, {"wuxi_ping": "higher", "dahu_combine": "max"}, dealer=True)["points"] == 200
    # 壹贰叁, 贰叁肆 ×2, 陆柒捌, 柒捌玖, 捌玖拾 + 门子 肆陆: a red in every sentence (花胡子) and all big
    # (大字胡), 100 each: a tie stays 花胡子
    hua = "d1 d2 d2 d2 d3 d3 d3 d4 d4 d4 d6 d7 d7 d8 d8 d8 d9 d9 d10"
    for rules in ({}, {"wuxi_ping": "higher"}):
        got = case(hua, "d6", rules)
        assert (got["points"], got["hand_types"]) == (100, ["hua_huzi"]), rules


# -- the codes of acts the room has off (options peng_on_flip, piao) ----------------------------------
# Seat 0 holds 小八小八 (nothing else takes seat 1's flip of 小八 from it) and 叁叁 with 壹贰 (as seat 2's
# 下家 it may also eat seat 2's flip of 叁).
FLIP_DEAL = deal(["x8 x8 d3 d3 d1 d2 x1 x1 x3 x5 x6 x10 d5 d6 d7 d9 d10 x2 x4 x9",
                  "x1 x2 x3 x4 x5 x6 x7 x9 x10 d4 d5 d6 d8 d9 d10 d1 d2 x7 d7",
                  "x1 x2 x3 x4 x5 x6 x7 x9 x10 d4 d5 d6 d8 d9 d10 d2 d4 x10 d7"], "x8 d3")
PENG_X8 = [A(0, "discard", "x9"), A(1, "draw", "x8"), A(0, "peng", "x8", "x8 x8"), A(0, "discard", "x10")]
PENG_D3 = [A(0, "discard", "x9"), A(1, "draw", "x8"), A(2, "draw", "d3"), A(0, "peng", "d3", "d3 d3"),
           A(0, "discard", "x10")]


def test_a_peng_of_a_flip_with_peng_on_flip_off_names_the_option():
    for acts, step, used, others in ((PENG_X8, 2, 1, []), (PENG_D3, 3, 2, [(0, "chi", ["d1 d2"])])):
        on = record(FLIP_DEAL, drawn_out(FLIP_DEAL, acts, 1, used))
        assert (0, "peng", [" ".join(acts[step]["cards"])]) in options_at(on, step - 1)
        assert errors(on) == []
        off = record(FLIP_DEAL, drawn_out(FLIP_DEAL, acts, 1, used), rules={"peng_on_flip": False})
        assert [o for o in options_at(off, step - 1) if o[0] == 0] == others  # no option, or a 吃 only
        assert errors(off) == [(step, "illegal_action", "yuanjiang_guihuzi.peng_on_flip")]


# Seat 1 碰s seat 0's 小五 and later flips the 4th itself; in the second deal it also holds 小三小四.
PIAO_HANDS = ["x5 x1 x3 x6 x7 x8 x9 x10 d2 d3 d4 d6 d7 d8 d9 d10 x2 x4 d10 d9",
              "x5 x5 x1 x2 x9 x10 d1 d2 d3 d4 d5 d6 d7 d8 d9 d10 x1 x2 d1",
              "x1 x3 x4 x6 x7 x8 x9 x10 d1 d2 d3 d4 d5 d6 d7 d8 d9 x2 x3"]
PIAO_ACTS = [A(0, "discard", "x5"), A(1, "peng", "x5", "x5 x5"), A(1, "discard", "d1"), A(2, "draw", "d5"),
             A(0, "draw", "x6"), A(1, "draw", "x5"), A(1, "piao", "x5")]


@pytest.mark.parametrize("own_chi", [False, True])
def test_a_piao_with_piao_off_names_the_option(own_chi):
    hands = list(PIAO_HANDS)
    if own_chi:  # 小三小四 for 小一小二: the 碰 at step 1 is taken over its own 吃 (no 过吃: decision 10)
        hands[1] = hands[1].replace("x1 x2 x9", "x3 x4 x9")
    d = deal(hands, "d5 x6 x5")
    on = record(d, drawn_out(d, PIAO_ACTS, 2, 3))
    assert errors(on) == []
    mine = [o for o in options_at(on, 5) if o[0] == 1]
    assert mine == [(1, "piao", [None])] + ([(1, "chi", ["x3 x4"])] if own_chi else [])
    off = record(d, drawn_out(d, PIAO_ACTS, 2, 3), rules={"piao": False})
    assert errors(off) == [(6, "illegal_action", "yuanjiang_guihuzi.piao")]
