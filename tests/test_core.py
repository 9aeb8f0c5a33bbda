"""What the engine core owns for every variant: a deck's card codes of kind indices, the groups
of a split and their spec §8 JSON."""

from __future__ import annotations

import pytest

from replay.cards import HUAPAI, HUAPAI_LAI, SHANGDAREN, ZIPAI
from replay.groups import Group, Split, groups_json


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


def test_groups_json_writes_a_split_as_spec_8_groups() -> None:
    # 桂林: a 吃 壹贰叁 on the table (6 胡) and a dealt 坎 of 小四 (3 胡); origin stays out of §8
    split = Split((Group("chi", (10, 11, 12), 6, "table"), Group("kan", (3, 3, 3), 3)), 9)
    assert groups_json(split.groups, ZIPAI) == [
        {"kind": "chi", "cards": ["d1", "d2", "d3"], "points": 6},
        {"kind": "kan", "cards": ["x4", "x4", "x4"], "points": 3}]
    # 雙別桿: a 坎 七七賴 (kinds 14, 14, 27: 七 follows 上大人孔乙花乙己可知禮化三花三千) as the 112-card deck names it
    assert groups_json([Group("kan", (14, 14, 27), 12)], HUAPAI_LAI) == [
        {"kind": "kan", "cards": ["七", "七", "賴"], "points": 12}]
    assert groups_json((), SHANGDAREN) == []


def test_a_group_is_a_plain_value() -> None:
    g = Group("dui", (0, 0), 0)
    assert g == Group("dui", (0, 0), 0, "hand") and hash(g) == hash(Group("dui", (0, 0), 0))
    assert g != Group("dui", (0, 0), 0, "table")
    with pytest.raises(AttributeError):
        g.points = 1  # type: ignore[misc]
