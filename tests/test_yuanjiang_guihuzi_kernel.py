"""The compiled kernel of 沅江鬼胡子 shapes (replay/variants/yuanjiang_guihuzi/_kernel.py) against the
rule (scoring.py): on random hands, the packed :class:`HandShape` answers which cards complete the
hand and whether it waits exactly as the rule's :func:`completes` does. Hypothesis shrinks any
counter-example to a small hand."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from replay.variants.yuanjiang_guihuzi import _kernel as fast
from replay.variants.yuanjiang_guihuzi import scoring as sc

SHAPES = [*sc.SENTENCES, *((k,) * 3 for k in range(20)), *sc.MENZI2, *((k, k) for k in range(20))]


@st.composite
def hands(draw: st.DrawFn) -> list[int]:
    """A count vector of a few sentences, 坎 and 门子 and stray cards, every count 0..4."""
    counts = [0] * 20
    for shape in draw(st.lists(st.sampled_from(SHAPES), max_size=7)) + [(k,) for k in draw(st.lists(st.integers(0, 19), max_size=3))]:
        if all(counts[k] + shape.count(k) <= 4 for k in shape):
            for k in shape:
                counts[k] += 1
    return counts


@settings(max_examples=2000, deadline=None)
@given(hands(), st.booleans())
def test_the_packed_shapes_answer_as_the_rule(hand: list[int], no_melds: bool) -> None:
    packed = fast.packed_shape_of(fast.pack(hand))
    for w in range(20):
        assert packed.wins(w, no_melds) is sc.completes(hand, w, no_melds), w
    held = [min(4, c + 1) for c in hand]
    assert packed.waits(no_melds, held) is sc.HandShape(hand).waits(no_melds, held)


def test_nine_pairs_and_a_card_complete_a_hand_without_melds_only() -> None:
    # 九对半 (003 §胡牌胡型): pairs of 一二 四五 八九 壹贰 肆 and a 伍 — no three of them make a sentence.
    # For a seat with no meld any card completes it (20 cards, 9 pairs at least; a second 伍 makes 十对);
    # with a meld, the 伍 gives no shape.
    hand = [0] * 20
    for k in (0, 1, 3, 4, 7, 8, 10, 11, 13):
        hand[k] = 2
    hand[14] = 1
    for shape in (sc.HandShape(hand), fast.packed_shape_of(fast.pack(hand))):
        assert shape.wins(14, True) and not shape.wins(14, False)
        assert all(shape.wins(w, True) for w in range(20))
