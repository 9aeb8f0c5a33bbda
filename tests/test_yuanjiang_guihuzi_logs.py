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
