"""The 桂林 best split, as the rule (scoring.py) and as the kernel's packed search (_kernel.py) give it:
the answers of the memoised search they replaced, the tie order, the input limits and the Split.

The rules themselves are tested from the seed in tests/test_guilin_rules.py; tests/test_guilin_kernel.py
holds the two equal on random hands.
"""

from __future__ import annotations

import pytest

from bench.hands import _digest, build_hands
from replay.cards import ZIPAI
from replay.variants.guilin import _kernel as fast
from replay.variants.guilin import scoring as sc
from replay.variants.guilin.scoring import Group

SCORERS = {"rule": (sc.best_split, sc.best_points), "kernel": (fast.packed_best_split, fast.packed_best_points)}


@pytest.fixture(params=sorted(SCORERS))
def scorer(request):
    return SCORERS[request.param]


def K(codes: list[str]) -> list[int]:
    return ZIPAI.counts(codes)


def test_the_bench_corpus_scores_as_the_memoised_search_did(scorer) -> None:
    best_split, best_points = scorer
    # Checksum and mix of best_split on the bench's hands (seed 3) as the memoised scorer
    # (an lru_cache'd search over byte strings, scoring.py of 405137b) gave them: every split's points
    # and group kinds and cards, in order. 1,345 + 800 + 1,855 = 4,000 hands.
    hands = build_hands(4000, 3)
    splits = [best_split(h, m, w, wf) for h, m, w, wf in hands]
    assert _digest(splits) == ("a6f7bb023259d77e", {"win": 1345, "under_10": 800, "no_shape": 1855})
    # best_points is the same search without the split: its points, or None
    assert [best_points(h, m, w, wf) for h, m, w, wf in hands] == [None if s is None else s.points for s in splits]


def test_of_equal_splits_the_first_move_in_the_search_order_wins(scorer) -> None:
    best_split, _ = scorer
    # 二二三三四四 + 贰叁肆: three runs (二三四, 二三四, 贰叁肆) or three 搭 (二二贰, 三三叁, 四四肆), 0 胡
    # either way (001 §顺子, §搭子). The search takes the lowest kind (二) first and tries a run
    # before a 搭, so the runs win the tie.
    sp = best_split(K(["x2", "x2", "x3", "x3", "x4", "x4", "d2", "d3", "d4"]), [], None, None)
    assert sp is not None and sp.points == 0
    assert [(g.kind, ZIPAI.codes_of(g.cards)) for g in sp.groups] == [
        ("shunzi", ["x2", "x3", "x4"]), ("shunzi", ["x2", "x3", "x4"]), ("shunzi", ["d2", "d3", "d4"])]


@pytest.mark.parametrize("hand, win, why", [
    ([1] * 19, None, "20 kinds"),  # one kind short
    ([5] + [0] * 19, None, "0..4"),  # a fifth copy
    ([-1] + [1] * 19, None, "0..4"),
    ([3] * 18 + [0, 0], None, "at most 53"),  # 54 cards: more than the search's 18 groups hold
    ([0] * 20, 20, "0..19"),  # no such kind
])
def test_a_hand_outside_the_count_vector_contract_is_refused(scorer, hand: list[int], win: int | None, why: str) -> None:
    for f in scorer:
        with pytest.raises(ValueError, match=why):
            f(hand, [], win, "discard" if win is not None else None)


def test_a_meld_given_with_a_list_of_cards_is_the_same_meld(scorer) -> None:
    best_split, best_points = scorer
    # Table: 吃 壹贰叁 (6 胡, 001 §特殊顺子) and 碰 三 (small: 1); hand 一二三 (3) and the pair 贰贰
    # that a discarded 贰 makes a 碰 (big: 3, hu_triple = peng): 6 + 1 + 3 + 3 = 13 胡.
    hand = K(["x1", "x2", "x3", "d2", "d2"])
    as_tuples = best_split(hand, [("chi", (10, 11, 12)), ("peng", (2, 2, 2))], 11, "discard")
    as_lists = best_split(hand, [("chi", [10, 11, 12]), ["peng", [2, 2, 2]]], 11, "discard")
    assert as_tuples == as_lists
    assert as_tuples is not None and as_tuples.points == 13
    assert [(g.kind, g.points, g.origin) for g in as_tuples.groups] == [
        ("chi", 6, "table"), ("peng", 1, "table"), ("yi_er_san", 3, "hand"), ("peng", 3, "hand")]
    with pytest.raises(ValueError, match="not a 吃 shape"):
        best_points(hand, [("chi", (10, 11, 13))], 11, "discard")


@pytest.mark.parametrize("Split", [sc.Split, fast.Split])
def test_split_compares_hashes_and_prints_as_a_frozen_dataclass(Split) -> None:
    g = Group("kan", (3, 3, 3), 3)
    a, b = Split((g,), 3), Split((Group("kan", (3, 3, 3), 3),), 3)
    assert a == b and hash(a) == hash(b) and a != Split((g,), 4) and a != (g,)
    assert repr(a) == "Split(groups=(Group(kind='kan', cards=(3, 3, 3), points=3, origin='hand'),), points=3)"


_HAND = [2, 1, 1, 1] + [0] * 16  # a pair of 一 and 二三四: waits on 一 and more


@pytest.mark.parametrize("hand, melds, win_card, error, match", [
    ([1.0] + [0] * 19, [], 0, TypeError, "is an int, not 1.0"),
    (_HAND, [], 19.0, TypeError, "is an int, not 19.0"),
    ([2 ** 64] + [0] * 19, [], None, ValueError, "0..4 cards each"),
    ([-2 ** 70] + [0] * 19, [], 0, ValueError, "0..4 cards each"),
    (_HAND, [], 2 ** 64, ValueError, "winning card 18446744073709551616: a kind is 0..19"),
    (_HAND, [("peng", [2 ** 70] * 3)], 0, ValueError, "meld card 1180591620717411303424 of peng: a kind is 0..19"),
    (_HAND, [("peng", [25, 25, 25])], 0, ValueError, "meld card 25 of peng: a kind is 0..19"),
    (_HAND, [("peng", [-1, -1, -1])], 0, ValueError, "meld card -1 of peng: a kind is 0..19"),
])
def test_the_scorer_refuses_what_is_not_a_hand_alike_on_both_kernels(scorer, hand, melds, win_card, error, match) -> None:
    best_split, best_points = scorer
    # compiled, a C conversion would take a float or overflow where Python refuses (the fresh-user check)
    with pytest.raises(error, match=match):
        best_points(hand, melds, win_card, "self")
    with pytest.raises(error, match=match):
        best_split(hand, melds, win_card, "self")
