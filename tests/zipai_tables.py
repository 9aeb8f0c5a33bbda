"""Hand-built 桂林字牌 / 字牌 tables for the rule tests: a seat's hand, the wall's front, the rest
dealt so that nobody else holds a dealt 坎, as a paipu/1 record (dealer seat 0).

Card codes: x1..x10 = 小 一..十, d1..d10 = 大 壹..拾 (spec log-format.md §3).
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter

from replay.cards import ZIPAI
from replay.replayer import replay_line
from replay.score import score_case


def H(s: str) -> list[str]:
    """Cards written with spaces: ``"x1 x2 d3"``."""
    return s.split()


def table(s1: str, front: str, s0: str = "", s2: str = "") -> tuple[list[list[str]], list[str]]:
    """Hands and wall: seat 1's 20 cards, the wall's front cards, the cards seats 0 and 2 must hold;
    the rest dealt to seats 0 (21) and 2 (20) in turn (deck order, at most two of a kind each, so
    neither holds a dealt 坎), then to the wall."""
    h = [H(s0), H(s1), H(s2)]
    left = Counter({c: 4 for c in ZIPAI.codes})
    left.subtract(c for x in h for c in x)
    left.subtract(H(front))
    assert all(n >= 0 for n in left.values()), +left
    assert len(h[1]) == 20
    rest, turn = [], 0
    for c in [k for k in ZIPAI.codes for _ in range(left[k])]:
        need = [s for s, size in ((0, 21), (2, 20)) if len(h[s]) < size and h[s].count(c) < 2]
        if not need:  # both full, or both hold two: the wall
            rest.append(c)
            continue
        h[need[turn % len(need)]].append(c)
        turn += 1
    assert [len(x) for x in h] == [21, 20, 20]
    return h, H(front) + rest


def record(s1: str, front: str, actions: list[dict], s0: str = "", s2: str = "", rules=None, result=None,
           variant: str = "guilin", game_id: str = "hand-made") -> dict:
    """A hand-made record of :func:`table`'s deal, with its shuffle digest."""
    hands, wall = table(s1, front, s0, s2)
    digest = "sha256:" + hashlib.sha256(",".join([c for x in hands for c in x] + wall).encode()).hexdigest()
    rec = {"format": "paipu/1", "game_id": game_id, "variant": variant, "rules": rules or {},
           "seats": ["a", "b", "c"], "dealer": 0, "deal": {"hands": hands, "wall": wall}, "actions": actions,
           "shuffle": {"algo": "hand-made", "digest": digest}}
    if result is not None:
        rec["result"] = result
    return rec


def A(seat: int, act: str, card: str | None = None, cards: str | None = None, **kw) -> dict:
    """One event: ``A(1, "chi", "x3", "x1 x2")``; other fields by keyword."""
    ev: dict = {"seat": seat, "act": act}
    if card is not None:
        ev["card"] = card
    if cards is not None:
        ev["cards"] = H(cards)
    ev.update(kw)
    return ev


def verdict(rec: dict):
    return replay_line(json.dumps(rec, ensure_ascii=False)).verdict


def errors(rec: dict) -> list[tuple]:
    """``(step, code, rule)`` of each error of the record's verdict."""
    return [(e.step, e.code, e.rule) for e in verdict(rec).errors]


def case(hand: str, melds=(), win_card: str | None = "", win_from: str = "self", rules=None, variant="guilin",
         **context) -> dict:
    """A spec §8 score case (``win_card`` left out: list the waits; ``melds`` as (kind, cards))."""
    out = {"variant": variant, "rules": rules or {}, "hand": H(hand),
           "melds": [{"kind": k, "cards": H(c)} for k, c in melds], "win_from": win_from, "context": context}
    if win_card != "":
        out["win_card"] = win_card
    return out


def scored(c: dict) -> tuple:
    """(win, points, units, hand_types) of a score case the engine judges without error."""
    out = score_case(c)
    assert "error" not in out, out
    return out["win"], out["points"], out["units"], out["hand_types"]
