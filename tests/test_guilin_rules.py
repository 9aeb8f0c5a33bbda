"""Known-answer tests of the 桂林字牌 scoring rules, worked out from the seed, not from the code.

Seed: 001_b125067d32c1f7d7.txt (cited "001 §section"); engine decisions taken as spec are
quoted where used. Every expected number below is derived by hand in the comment beside it.

Card codes: x1..x10 = 小 一..十, d1..d10 = 大 壹..拾 (spec log-format.md §3).
"""

from __future__ import annotations

import hashlib
import json
import random
from functools import lru_cache

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from replay.cards import ZIPAI
from replay.replayer import replay_line
from replay.variants.guilin import scoring as sc
from replay.variants.guilin.scoring import best_split, chi_shape, tuo, xing_count, xing_kinds


# -- helpers ---------------------------------------------------------------------------------
def I(code: str) -> int:
    return ZIPAI.index(code)


def K(cards) -> list[int]:
    return ZIPAI.counts(list(cards))


def meld(kind: str, *codes: str) -> tuple[str, list[int]]:
    return (kind, [I(c) for c in codes])


def split(hand, melds=(), win=None, wf=None, hu_triple="peng"):
    return best_split(K(hand), list(melds), I(win) if win else None, wf, hu_triple)


def points(hand, melds=(), win=None, wf=None, hu_triple="peng"):
    s = split(hand, melds, win, wf, hu_triple)
    return None if s is None else s.points


def norm(codes) -> tuple[str, ...]:
    return tuple(sorted(codes, key=I))


def groups_of(s) -> list[tuple[tuple[str, ...], int]]:
    """The split as sorted (cards, 胡) pairs: independent of the engine's kind names."""
    return sorted((norm(ZIPAI.codes_of(g.cards)), g.points) for g in s.groups)


# -- 吃 shapes (001 §顺子, §特殊顺子, §特殊牌型, §搭子) ------------------------------------
@pytest.mark.parametrize("cards, shape", [
    (("x1", "x2", "x3"), "yi_er_san"),       # 一二三
    (("d1", "d2", "d3"), "yi_er_san"),       # 壹贰叁
    (("x2", "x7", "x10"), "er_qi_shi"),      # 二七十
    (("d10", "d2", "d7"), "er_qi_shi"),      # 贰柒拾, any order
    (("x4", "x5", "x6"), "shunzi"),          # 普通顺子
    (("d8", "d9", "d10"), "shunzi"),
    (("d8", "d8", "x8"), "dazi"),            # 捌捌八: two big + one small
    (("x10", "x10", "d10"), "dazi"),         # 十十拾: two small + one big
    (("x4", "x5", "d6"), None),              # 只有小字和小字，大字和大字才能构成顺子
    (("x9", "x10", "x1"), None),             # runs do not wrap
    (("x2", "x7", "d10"), None),             # 二七十 must be one size
    (("x8", "d8", "x9"), None),              # 搭 needs one number
    (("x5", "x5", "x5"), None),              # three of a kind is not a 吃 shape
    (("x3", "x5", "x7"), None),
])
def test_chi_shapes(cards, shape):
    assert chi_shape([I(c) for c in cards]) == shape


# -- every row of the 胡 table (001 §玩法规则), each inside a real complete split ----------
# Filler: 小七 小八 in hand + 小九 won from another seat's flip = a plain 顺子, 0 胡; rows that
# use 小七..小九 themselves take 柒 捌 + 玖 instead.
FILL = (["x7", "x8"], "x9")
FILL_BIG = (["d7", "d8"], "d9")

TABLE_ROWS = [
    # (label, melds, concealed cards, filler, expected 胡 of the row's group)
    ("扫穿 大 12", [meld("sao_chuan", "d5", "d5", "d5", "d5")], [], FILL, 12),
    ("扫穿 小 9", [meld("sao_chuan", "x5", "x5", "x5", "x5")], [], FILL, 9),
    ("开舵 大 9", [meld("kai_duo", "d5", "d5", "d5", "d5")], [], FILL, 9),
    ("开舵 小 6", [meld("kai_duo", "x5", "x5", "x5", "x5")], [], FILL, 6),
    ("扫 大 6", [meld("sao", "d5", "d5", "d5")], [], FILL, 6),
    ("扫 小 3", [meld("sao", "x5", "x5", "x5")], [], FILL, 3),
    ("过扫 大 6", [meld("guo_sao", "d5", "d5", "d5")], [], FILL, 6),
    ("过扫 小 3", [meld("guo_sao", "x5", "x5", "x5")], [], FILL, 3),
    ("碰 大 3", [meld("peng", "d5", "d5", "d5")], [], FILL, 3),
    ("碰 小 1", [meld("peng", "x5", "x5", "x5")], [], FILL, 1),
    ("贰柒拾 concealed 6", [], ["d2", "d7", "d10"], FILL, 6),
    ("二七十 concealed 3", [], ["x2", "x7", "x10"], FILL_BIG, 3),
    ("贰柒拾 吃 6", [meld("chi", "d2", "d7", "d10")], [], FILL, 6),
    ("二七十 吃 3", [meld("chi", "x2", "x7", "x10")], [], FILL_BIG, 3),
    ("壹贰叁 concealed 6", [], ["d1", "d2", "d3"], FILL, 6),
    ("一二三 concealed 3", [], ["x1", "x2", "x3"], FILL, 3),
    ("壹贰叁 吃 6", [meld("chi", "d1", "d2", "d3")], [], FILL, 6),
    ("一二三 吃 3", [meld("chi", "x1", "x2", "x3")], [], FILL, 3),
    ("起手三张 (坎) 大 6", [], ["d5", "d5", "d5"], FILL, 6),
    ("起手三张 (坎) 小 3", [], ["x5", "x5", "x5"], FILL, 3),
    ("起手四张 大 12", [], ["d5", "d5", "d5", "d5"], FILL, 12),
    ("起手四张 小 9", [], ["x5", "x5", "x5", "x5"], FILL, 9),
]


@pytest.mark.parametrize("label, melds, concealed, fill, want", TABLE_ROWS, ids=[r[0] for r in TABLE_ROWS])
def test_hu_table_row(label, melds, concealed, fill, want):
    hand_fill, win = fill
    s = split(concealed + hand_fill, melds, win, "flip")
    assert s is not None, f"{label}: the hand is complete"
    assert s.points == want  # the filler run adds 0 (普通顺子不计胡头)
    row_cards = norm([ZIPAI.codes[k] for _, c in melds for k in c] + concealed)
    filler = norm(hand_fill + [win])
    assert groups_of(s) == sorted([(row_cards, want), (filler, 0)])


def test_plain_run_and_dazi_score_zero():
    # 小四五六 (顺子) + 捌捌八 (搭子, 八 won on a flip): complete, 0 胡 (普通顺子/搭子不计胡头).
    s = split(["x4", "x5", "x6", "d8", "d8"], [], "x8", "flip")
    assert s is not None and s.points == 0
    assert groups_of(s) == sorted([(("x4", "x5", "x6"), 0), (("x8", "d8", "d8"), 0)])


@pytest.mark.parametrize("win_from, hu_triple, want", [
    ("discard", "peng", 3),  # 肆肆 + 肆 from another seat = 碰 大 3 (decision: default counts as 碰)
    ("flip", "peng", 3),     # another seat's flip: also 碰
    ("discard", "zero", 0),  # hu_triple=zero: 胡牌不算胡息 (004 §胡息及舵 1)
    ("self", "peng", 6),     # own flip: 扫 大 6 (001 §扫: 起手相同两张，再自摸一张)
])
def test_hand_pair_completed_by_winning_card_big(win_from, hu_triple, want):
    s = split(["d4", "d4", "d7", "d8", "d9"], [], "d4", win_from, hu_triple)
    assert s is not None
    assert s.points == want
    assert groups_of(s) == sorted([(("d4", "d4", "d4"), want), (("d7", "d8", "d9"), 0)])


@pytest.mark.parametrize("win_from, hu_triple, want", [
    ("discard", "peng", 1), ("flip", "peng", 1), ("discard", "zero", 0), ("self", "peng", 3),
])
def test_hand_pair_completed_by_winning_card_small(win_from, hu_triple, want):
    assert points(["x4", "x4", "d7", "d8", "d9"], [], "x4", win_from, hu_triple) == want


# -- 醒 (001 §翻上中下醒) ------------------------------------------------------------------
def test_xing_seed_example():
    # 翻出一张小四 → 小四 中醒, 小三 下醒, 小五 上醒. xing_kinds returns (上, 中, 下).
    assert xing_kinds(I("x4")) == (I("x5"), I("x4"), I("x3"))


@pytest.mark.parametrize("zhong, shang, xia", [
    ("x10", "x1", "x9"),   # 十: 上 wraps to 一
    ("x1", "x2", "x10"),   # 一: 下 wraps to 十
    ("d10", "d1", "d9"),   # 拾 → 上 壹 (stays big)
    ("d1", "d2", "d10"),   # 壹 → 下 拾
    ("d4", "d5", "d3"),
])
def test_xing_wraps_within_size(zhong, shang, xia):
    assert xing_kinds(I(zhong)) == (I(shang), I(zhong), I(xia))


def test_xing_count_counts_copies_of_the_three_kinds():
    # 中 小四: 小三 小四 小四 小五 match (4); 肆/叁/伍 are other cards; 小六 is not a neighbour.
    held = K(["x3", "x4", "x4", "x5", "x6", "d3", "d4", "d5"])
    assert xing_count(I("x4"), held) == 4
    # 中 小十: 小一 小一 (上), 小十 (中), 小九 (下) = 4; 壹 and 拾 do not count.
    held = K(["x1", "x1", "x9", "x10", "d1", "d10", "x2"])
    assert xing_count(I("x10"), held) == 4
    # 中 壹: 贰 (上), 壹 (中), 拾 拾 (下) = 4.
    held = K(["d2", "d1", "d10", "d10", "x1", "d9"])
    assert xing_count(I("d1"), held) == 4
    # empty wall after 海底: no 醒.
    assert xing_count(None, held) == 0


# -- 舵 (001 §玩法规则 1–2: 10 胡 = 1 舵, 逢3进1 / 逢5进1) ----------------------------------
# 逢3进1: 10-12 → 1, 13-15 → 2, 16-18 → 3, 19-21 → 4, 22-24 → 5.
@pytest.mark.parametrize("hu, want", [(10, 1), (12, 1), (13, 2), (15, 2), (16, 3), (22, 5)])
def test_tuo_step3(hu, want):
    assert tuo(hu, 3) == want


# 逢5进1: 10-14 → 1, 15-19 → 2, 20-24 → 3, 25-29 → 4.
@pytest.mark.parametrize("hu, want", [(10, 1), (14, 1), (15, 2), (19, 2), (20, 3), (25, 4)])
def test_tuo_step5(hu, want):
    assert tuo(hu, 5) == want


@pytest.mark.parametrize("step", [3, 5])
def test_tuo_below_minimum(step):
    with pytest.raises(ValueError):  # 胡牌最低胡牌数10胡
        tuo(9, step)


# -- the best split decides -------------------------------------------------------------------
def test_best_split_reaches_ten_only_through_its_best_split():
    # Cards: 小一 小二 小三 壹壹 贰贰 叁叁 (小三 won on a flip).
    # Split A: 一二三 (3) + 壹贰叁 (6) + 壹贰叁 (6) = 15 ≥ 10.
    # Split B: 一壹壹, 二贰贰, 三叁叁 — three 搭子 = 0 < 10.
    alt = [("x1", "d1", "d1"), ("x2", "d2", "d2"), ("x3", "d3", "d3")]
    assert all(chi_shape([I(c) for c in g]) == "dazi" for g in alt)
    assert sum(sc.chi_points([I(c) for c in g]) for g in alt) == 0
    s = split(["x1", "x2", "d1", "d1", "d2", "d2", "d3", "d3"], [], "x3", "flip")
    assert s is not None
    assert s.points == 15
    assert groups_of(s) == sorted([(("x1", "x2", "x3"), 3), (("d1", "d2", "d3"), 6), (("d1", "d2", "d3"), 6)])


# With 开舵 玖 (9) + 扫 壹 (6) on the table, any complete concealed part makes ≥ 15 胡.
BASE_MELDS = [meld("kai_duo", "d9", "d9", "d9", "d9"), meld("sao", "d1", "d1", "d1")]


def test_dealt_kan_cannot_be_broken_for_a_false_win():
    # 小四 小五小五小五 (dealt 坎) 小六 + 伍 on a discard. Broken, 四五六 + 五五伍 would be
    # complete (15 胡); but 起手成坎不能拆开, and 坎 + 四 六 伍 is no shape → no win.
    assert split(["x4", "x5", "x5", "x5", "x6"], BASE_MELDS, "d5", "discard") is None


def test_same_cards_complete_when_the_triple_is_not_dealt():
    # Control: the third 小五 is the winning card (another seat's flip), so no 坎 was dealt:
    # 四五六 (0) + 五五伍 (搭 0) is complete → 9 + 6 = 15.
    s = split(["x4", "x5", "x5", "x6", "d5"], BASE_MELDS, "x5", "flip")
    assert s is not None and s.points == 15


def test_pair_allowed_beside_a_four_card_meld():
    # 开舵 玖 (9) + 一二三 (3) + 七八九 (0, 九 won on a flip) + pair 肆肆 (0) = 12.
    s = split(["x1", "x2", "x3", "d4", "d4", "x7", "x8"], [meld("kai_duo", "d9", "d9", "d9", "d9")], "x9", "flip")
    assert s is not None and s.points == 12
    assert (("d4", "d4"), 0) in groups_of(s)


def test_pair_allowed_beside_a_dealt_four():
    # dealt 玖玖玖玖 (12) + 一二三 (3) + 七八九 + pair 肆肆 = 15.
    s = split(["d9"] * 4 + ["x1", "x2", "x3", "d4", "d4", "x7", "x8"], [], "x9", "flip")
    assert s is not None and s.points == 15


def test_same_hand_without_the_four_is_no_win():
    # Without a 4-card set the pair 肆肆 forms no group.
    assert split(["x1", "x2", "x3", "d4", "d4", "x7", "x8"], [], "x9", "flip") is None
    # A 3-card 扫 is not a 4-card set either.
    assert split(["x1", "x2", "x3", "d4", "d4", "x7", "x8"], [meld("sao", "d9", "d9", "d9")], "x9", "flip") is None


# -- properties --------------------------------------------------------------------------------
def _group_table() -> list[tuple[tuple[str, ...], int, bool]]:
    """Every concealed group with its 胡 from the seed's table: (cards, 胡, is_set_of_one_kind)."""
    out = []
    for big, pre in ((False, "x"), (True, "d")):
        for n in range(1, 9):  # runs; 一二三 counts 3/6 (特殊顺子), others 0
            out.append(((f"{pre}{n}", f"{pre}{n + 1}", f"{pre}{n + 2}"), (6 if big else 3) if n == 1 else 0, False))
        out.append(((f"{pre}2", f"{pre}7", f"{pre}10"), 6 if big else 3, False))  # 二七十
    for n in range(1, 11):
        out.append(((f"x{n}", f"x{n}", f"d{n}"), 0, False))  # 搭
        out.append(((f"x{n}", f"d{n}", f"d{n}"), 0, False))
        out.append(((f"x{n}",) * 3, 3, True))  # dealt 坎
        out.append(((f"d{n}",) * 3, 6, True))
        out.append(((f"x{n}",) * 4, 9, True))  # dealt four
        out.append(((f"d{n}",) * 4, 12, True))
    return out


GROUPS = _group_table()


def _build(picks: list[int]) -> tuple[list[str], int]:
    """A hand from chosen groups, keeping each intended split intact: a kind used by a 坎 / four
    is used by nothing else, and no other kind reaches three copies (it would be a dealt 坎)."""
    counts = [0] * 20
    locked: set[int] = set()
    hand: list[str] = []
    total = 0
    for p in picks:
        cards, pts, is_set = GROUPS[p]
        ks = [I(c) for c in cards]
        if is_set:
            if counts[ks[0]]:
                continue
            locked.add(ks[0])
        else:
            trial = counts.copy()
            for k in ks:
                trial[k] += 1
            if any(k in locked or trial[k] > 2 for k in ks):
                continue
        for k in ks:
            counts[k] += 1
        hand += list(cards)
        total += pts
    return hand, total


def _concealed_points(cards: tuple[int, ...]) -> int:
    """胡 of one concealed group of a no-winning-card split, by the seed's table."""
    if len(set(cards)) == 1:
        return {3: (3, 6), 4: (9, 12)}[len(cards)][cards[0] >= 10] if len(cards) > 2 else 0
    return {"yi_er_san": (3, 6), "er_qi_shi": (3, 6), "shunzi": (0, 0), "dazi": (0, 0)}[chi_shape(cards)][min(cards) >= 10]


@settings(max_examples=200, deadline=None)
@given(picks=st.lists(st.integers(0, len(GROUPS) - 1), min_size=1, max_size=8), rnd=st.randoms(use_true_random=False))
def test_best_split_is_order_free_and_at_least_the_built_split(picks, rnd):
    hand, built = _build(picks)
    shuffled = hand.copy()
    rnd.shuffle(shuffled)
    a = best_split(K(hand), [], None, None)
    b = best_split(K(shuffled), [], None, None)
    assert a is not None and b is not None
    assert a.points == b.points
    assert a.points >= built  # the split we built is one complete split
    # the best split covers exactly the cards, and each group scores by the table
    covered = [0] * 20
    for g in a.groups:
        for k in g.cards:
            covered[k] += 1
        assert g.points == _concealed_points(g.cards)
    assert covered == K(hand)
    assert a.points == sum(g.points for g in a.groups)


# -- order independence through the whole replayer ---------------------------------------------
@lru_cache(maxsize=1)
def _sim_lines() -> tuple[bytes, ...]:
    from replay.simulator import simulate
    return tuple(msgspec.json.encode(r) for r in simulate("guilin", 24, 20261129))


def _digest(hands, wall) -> str:
    """spec §2: "sha256:" + hex SHA-256 of the hands' codes (seat 0 first) then the wall, joined by ','."""
    return "sha256:" + hashlib.sha256(",".join([c for h in hands for c in h] + list(wall)).encode()).hexdigest()


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=st.integers(0, 23), rnd=st.randoms(use_true_random=False))
def test_shuffling_deal_hands_keeps_a_simulated_record_valid(game, rnd):
    raw = _sim_lines()[game]
    base = replay_line(raw).verdict
    assert base.valid and base.computed is not None
    rec = json.loads(raw)
    for h in rec["deal"]["hands"]:
        rnd.shuffle(h)
    rec["shuffle"]["digest"] = _digest(rec["deal"]["hands"], rec["deal"]["wall"])
    v = replay_line(json.dumps(rec)).verdict
    assert v.valid, v.errors
    assert v.computed == base.computed


def test_shuffling_without_new_digest_is_a_shuffle_mismatch():
    # the digest commits to the dealt order, so a reordered hand needs a new digest (spec §2)
    rec = json.loads(_sim_lines()[0])
    h = rec["deal"]["hands"][1]
    random.Random(3).shuffle(h)
    assert h != json.loads(_sim_lines()[0])["deal"]["hands"][1]
    v = replay_line(json.dumps(rec)).verdict
    assert [(e.step, e.code) for e in v.errors] == [(None, "shuffle_mismatch")]


# -- a winning card drawn by the winner itself onto a pair / a 坎 ----------------------------------
# 001 §扫 / §扫穿: a flip matching a hand pair must be 扫'd, one matching a dealt 坎 must be 扫穿'd,
# "即使是自己要胡，都不给，除非是扫穿刚好就能胡". So with win_from="self" the card cannot be used
# elsewhere: the hand wins only if it is complete *with* the 扫 / 扫穿.
def test_self_drawn_card_on_a_pair_must_be_the_sao():
    # 小五小五 小四 小六 伍 + own flip 小五: with the forced 扫 (五五五) the rest 四 六 伍 is no shape.
    # Used as 四五六 + 五五伍 it would be complete — not allowed (扫 is forced).
    assert split(["x5", "x5", "x4", "x6", "d5"], [], "x5", "self") is None


def test_self_drawn_fourth_on_a_dealt_kan_must_be_the_sao_chuan():
    # dealt 伍伍伍 + 叁 肆, own flip 伍: 扫穿 伍 leaves 叁 肆 → no win. 坎 + 叁肆伍 is not allowed.
    assert split(["d5", "d5", "d5", "d3", "d4"], [], "d5", "self") is None


def test_self_drawn_card_completing_with_the_sao_wins():
    # Control: 扫 then the rest complete: 伍伍 + 柒捌玖, own flip 伍 → 扫 大 6 + 0 = 6.
    assert points(["d5", "d5", "d7", "d8", "d9"], [], "d5", "self") == 6
    # and the 扫穿 that "刚好就能胡": dealt 伍伍伍 + 柒捌玖, own flip 伍 → 扫穿 大 12.
    assert points(["d5", "d5", "d5", "d7", "d8", "d9"], [], "d5", "self") == 12


def test_another_seats_fourth_on_a_dealt_kan():
    # 起手牌开舵 on another seat's card: 开舵 伍 (9) + 柒捌玖 → 9 (the 开舵 counts 9, not 坎 6).
    assert points(["d5", "d5", "d5", "d7", "d8", "d9"], [], "d5", "discard") == 9


# The same through a spec §8 score case (`paipu score`): the hand the replayer rejects at the
# forced 扫 (tests/test_guilin_replay.py::test_hu_cannot_skip_a_forced_sao_even_when_the_card_would_complete_the_hand).
SCORE_HAND = ["x5", "x5", "x4", "x6", "d5", "d1", "d2", "d3", "d2", "d7", "d10", "x7", "x8", "x9",
              "d4", "d5", "d6", "x1", "x2", "x3"]


def test_score_case_win_on_another_seats_flip():
    # 小五 from another seat's flip may complete 四五六 + 五五伍: 一二三 3 + 壹贰叁 6 + 贰柒拾 6 = 15 胡,
    # 2 舵, no 醒 given → units 2; not 自摸.
    from replay.score import score_case
    out = score_case({"variant": "guilin", "hand": SCORE_HAND, "win_card": "x5", "win_from": "flip"})
    assert (out["win"], out["points"], out["units"], out["hand_types"]) == (True, 15, 2, [])


def test_score_case_self_draw_onto_a_pair_is_no_win():
    from replay.score import score_case
    out = score_case({"variant": "guilin", "hand": SCORE_HAND, "win_card": "x5", "win_from": "self"})
    assert out["win"] is False
