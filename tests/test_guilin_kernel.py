"""The compiled kernel of 桂林 scoring (replay/variants/guilin/_kernel.py) against the rule
(replay/variants/guilin/scoring.py): on random hands, melds, winning cards and options, the packed
search finds the rule's split — the same groups in the same order and the same 胡 — and its claim
window filter (:func:`stray_kinds`) never rules out a hand the rule would let win. Hypothesis shrinks
any counter-example to a small hand."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from replay.variants.guilin import _kernel as fast
from replay.variants.guilin import scoring as sc

# The concealed shapes a hand is built from: runs, 二七十, 搭, pairs, and sets of three and four.
SHAPES = ([(i, i + 1, i + 2) for i in range(20) if i % 10 <= 7] + [(1, 6, 9), (11, 16, 19)]
          + [(i, i, i + 10) for i in range(10)] + [(i, i + 10, i + 10) for i in range(10)]
          + [(i, i) for i in range(20)] + [(i,) * 3 for i in range(20)] + [(i,) * 4 for i in range(20)])
CHI = [s for s in SHAPES if len(s) == 3 and sc.chi_shape(s) is not None]
MELD = st.one_of(
    st.tuples(st.sampled_from(["chi", "bi"]), st.sampled_from(CHI)),
    st.tuples(st.sampled_from(["peng", "sao", "guo_sao"]), st.integers(0, 19).map(lambda k: (k,) * 3)),
    st.tuples(st.sampled_from(["sao_chuan", "kai_duo"]), st.integers(0, 19).map(lambda k: (k,) * 4)),
)


@st.composite
def hands(draw: st.DrawFn) -> tuple:
    """A count vector of a few shapes and stray cards (every count 0..4), melds, a winning card and options."""
    counts = [0] * 20
    for shape in draw(st.lists(st.sampled_from(SHAPES), max_size=6)) + [(k,) for k in draw(st.lists(st.integers(0, 19), max_size=3))]:
        if all(counts[k] + shape.count(k) <= 4 for k in shape):
            for k in shape:
                counts[k] += 1
    melds = draw(st.lists(MELD, max_size=3))
    win = draw(st.one_of(st.none(), st.integers(0, 19).filter(lambda k: counts[k] <= 3)))
    src = draw(st.sampled_from(["self", "flip", "discard"])) if win is not None else draw(st.sampled_from([None, "self"]))
    return counts, melds, win, src, draw(st.sampled_from(["peng", "zero"])), draw(st.booleans())


def plain(sp: object) -> object:
    return None if sp is None else (sp.groups, sp.points)  # type: ignore[attr-defined]


@settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hands())
def test_the_packed_search_finds_the_rules_split(case: tuple) -> None:
    counts, melds, win, src, hu_triple, kan_opens = case
    want = sc.best_split(counts, melds, win, src, hu_triple, kan_opens)
    assert plain(fast.packed_best_split(counts, melds, win, src, hu_triple, kan_opens)) == plain(want)
    assert fast.packed_best_points(counts, melds, win, src, hu_triple, kan_opens) == (None if want is None else want.points)


@settings(max_examples=2000, deadline=None)
@given(hands())
def test_the_claim_filter_never_rules_out_a_hand_the_rule_lets_win(case: tuple) -> None:
    # The claim windows skip a seat whose hand holds a kind that fits no group, out of the card's reach.
    counts, melds, win, src, hu_triple, kan_opens = case
    if win is not None and fast.stray_kinds(counts) & ~fast._REACH[win]:
        assert sc.best_split(counts, melds, win, src, hu_triple, kan_opens) is None


def test_a_dealt_kan_of_the_winning_kind_is_kept_when_its_kai_duo_leaves_cards_out() -> None:
    # Hand 一 二 三三三 (a dealt 坎 of 三), another seat discards 三. Read as 开舵 (6 胡) it leaves 一二,
    # which form no group; read as the 坎 kept (3 胡), the 三 makes 一二三 (3 胡): 6 胡 (001 §开舵,
    # §特殊顺子). With a 贰 beside them, neither reading places the 贰: no split.
    hand = [1, 1, 3] + [0] * 17
    for f in (sc.best_split, fast.packed_best_split):
        sp = f(hand, [], 2, "discard")
        assert sp is not None and sp.points == 6
        assert [(g.kind, g.cards, g.points) for g in sp.groups] == [("kan", (2, 2, 2), 3), ("yi_er_san", (0, 1, 2), 3)]
    hand[11] = 1
    for f in (sc.best_split, fast.packed_best_split):
        assert f(hand, [], 2, "discard") is None


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=20, max_size=20), st.integers(0, 19), st.booleans())
def test_the_packed_chi_search_gives_the_rules_chi_choices(hand: list[int], c: int, blocks: bool) -> None:
    want = sc.chi_choices(c, hand, blocks)
    assert fast.packed_chi_choices(c, hand, blocks) == want
    assert fast.packed_has_chi(c, hand, blocks) == bool(want)


def test_xia_bi_shows_every_copy_that_can_form_a_group() -> None:
    # Hand 一 二 三 壹壹 九, another seat's 一 (001 §技巧攻略 下张, 下比). Three ways to 吃 it: with 一壹
    # (一一壹: no 一 left, no 比); with 二三 (一二三), when the 一 left must go down as 比 一壹壹; with 壹壹
    # (一壹壹), when the 一 left goes down as 比 一二三. Each leaves 九 to discard.
    hand = [1, 1, 1] + [0] * 5 + [1, 0, 2] + [0] * 9
    want = [((0, 10), ()), ((1, 2), ((0, 10, 10),)), ((10, 10), ((0, 1, 2),))]
    for f in (sc.chi_choices, fast.packed_chi_choices):
        assert f(0, hand, False) == want


def test_a_copy_that_forms_no_group_stays_unless_bi_without_group_blocks() -> None:
    # Hand 一 二 三 九九, another seat's 一: 二三 eat it, and the 一 left forms no shape with 九九, so it
    # stays in hand (bi_without_group = allowed) — or there is no 吃 at all (= blocks: 有比的情况下不比，
    # 吃的过程整体取消).
    hand = [1, 1, 1] + [0] * 5 + [2] + [0] * 11
    for f in (sc.chi_choices, fast.packed_chi_choices):
        assert f(0, hand, False) == [((1, 2), ())]
        assert f(0, hand, True) == []
