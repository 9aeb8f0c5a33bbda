"""What the engine core owns for every variant: a deck's card codes of kind indices."""

from __future__ import annotations

import pytest

from replay.cards import HUAPAI, HUAPAI_LAI, SHANGDAREN, ZIPAI


def test_codes_of_names_kinds_by_their_canonical_codes() -> None:
    # 字牌: 一..十 are kinds 0..9, 壹..拾 10..19 (spec §3)
    assert ZIPAI.codes_of([0, 9, 10, 19, 0]) == ["x1", "x10", "d1", "d10", "x1"]
    assert ZIPAI.codes_of(ZIPAI.kinds(["一", "貳", "d7"])) == ["x1", "d2", "d7"]  # aliases come back canonical
    # 花牌: 上大人孔 then 乙 and its 花 copy (kinds 4, 5); 賴 is the 28th kind of the 112-card deck
    assert HUAPAI.codes_of((4, 5, 0)) == ["乙", "花乙", "上"]
    assert HUAPAI_LAI.codes_of([27, 26]) == ["賴", "六"]
    # 上大人: the phrases in deck order, 孔乙己 first
    assert SHANGDAREN.codes_of(range(4)) == ["孔", "乙", "己", "上"]
    assert ZIPAI.codes_of([]) == []


def test_codes_of_refuses_a_kind_outside_the_deck() -> None:
    with pytest.raises(IndexError):
        HUAPAI.codes_of([27])  # 賴 is no kind of the 110-card deck
