"""What the engine core owns for every variant: a deck's card codes of kind indices, the groups
of a split and their spec §8 JSON, the warehouse's facts and the audit's table, rule ids written
one way."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from replay.audit import audit_trail
from replay.cards import HUAPAI, HUAPAI_LAI, SHANGDAREN, ZIPAI
from replay.groups import Group, Split, groups_json
from replay.replayer import replay_line

TESTS = Path(__file__).resolve().parent


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


def _line(path: str, i: int = 0) -> bytes:
    return (TESTS / path).read_bytes().splitlines()[i]


# Per variant, the facts' keys (the common ones, then the variant's own) and an audit seat's keys
# (the common ones around the variant's own).
FACTS = ["win_kind", "melds", "hands", "discards", "wall_left"]
SEAT = ["seat", "player", "hand", "melds", "discards", "options"]
VIEWS = {
    "guilin": (FACTS + ["xing"], SEAT),
    "zipai": (FACTS + ["xing"], SEAT),
    "yuanjiang_guihuzi": (FACTS + ["xing", "hand_type_xi"],
                          ["seat", "player", "hand", "lipai", "melds", "discards", "locked", "options"]),
    "sanjing_huapai": (FACTS + ["jing"], SEAT),
    "wujing_huapai": (FACTS + ["jing"], SEAT),
    "shuangbiegan_huapai": (FACTS + ["jing"], SEAT),
    "shangdaren": (FACTS + ["jing"], SEAT),
    "tongcheng_gezi": (FACTS + ["gezi"], ["seat", "player", "hand", "jian", "melds", "discards", "options"]),
}


@pytest.mark.parametrize("variant", sorted(VIEWS))
def test_every_variant_writes_the_common_facts_and_table_then_its_own(variant: str) -> None:
    raw = _line(f"golden/{variant}.jsonl")
    facts, seat = VIEWS[variant]
    assert list(replay_line(raw).facts) == facts
    steps = audit_trail(raw)["steps"]
    assert len(steps) > 10 and all(list(s) == seat for st in steps for s in st["seats"])


def test_the_facts_count_the_winners_zhu_jing_and_the_table_in_play_does_not() -> None:
    # 上大人 with zhu_jing=double: seat 2 wins on 祿 holding three 七 (its 主精). Seat 0's 吃 七十士 is
    # a 句 with one 精, 1 胡 (002 §三精花牌 3: 素精就是1個胡), doubled to 2 in the settled facts; the
    # winner's 對 七七七 (精 10) is 20 in its split. The audit's table after the 胡 shows 1 and 10.
    out = replay_line(_line("data/shangdaren-zhu-jing-chi.jsonl"))
    assert out.verdict.valid and out.facts is not None
    assert out.facts["jing"]["main"] == "七"
    melds = out.facts["melds"]
    assert melds[0] == {"seat": 0, "kind": "chi", "cards": ["七", "十", "士"], "points": 2, "origin": "table"}
    assert {"seat": 2, "kind": "dui", "cards": ["七", "七", "七"], "points": 20, "origin": "table"} in melds
    assert [m["seat"] for m in melds] == [0, 1, 1] + [2] * 7  # the winner's split last, melds first
    assert [m["origin"] for m in melds[3:]] == ["table"] * 3 + ["hand"] * 4
    seats = audit_trail(_line("data/shangdaren-zhu-jing-chi.jsonl"))["steps"][-1]["seats"]
    assert seats[0]["melds"] == [{"kind": "chi", "cards": ["七", "十", "士"], "points": 1}]
    assert seats[2]["melds"][2] == {"kind": "dui", "cards": ["七", "七", "七"], "points": 10}


def test_the_tables_options_mark_a_forced_act_and_a_tail_draw() -> None:
    # 桂林 golden game 0, step 21: seat 0 flips 小二 holding a pair of them — a forced 扫 (001 §扫)
    step = audit_trail(_line("golden/guilin.jsonl"))["steps"][22]
    assert step["event"] == {"seat": 0, "act": "draw", "card": "x2"}
    assert step["seats"][0]["options"] == ["sao x2 with x2+x2 (forced)"]
    # 三精 golden game 0, step 0: seat 0 declares 扎 of 士 (black: 2 胡) and owes a draw from the tail
    step = audit_trail(_line("golden/sanjing_huapai.jsonl"))["steps"][1]
    assert step["seats"][0]["melds"] == [{"kind": "zha", "cards": ["士"] * 4, "points": 2}]
    assert step["seats"][0]["options"] == ["draw 八 (tail)"]


def prefixed_rule_ids(source: str) -> list[str]:
    """The rule ids ``source`` writes with a variant's prefix: a literal ``"<variant>.<id>"`` or an
    f-string that puts a prefix before ``.<id>`` (``f"{self.variant}.hu"``, ``f"shangdaren.{act}"``)."""
    ids = "|".join(VIEWS)
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and re.fullmatch(rf"({ids})\.[a-z_0-9]+", node.value):
            out.append(node.value)
        elif isinstance(node, ast.JoinedStr):
            parts = node.values
            first = parts[0].value if isinstance(parts[0], ast.Constant) else None
            second = parts[1].value if len(parts) > 1 and isinstance(parts[1], ast.Constant) else None
            if (isinstance(first, str) and re.match(rf"({ids})\.", first)) or (
                    first is None and isinstance(second, str) and re.fullmatch(r"\.[a-z_0-9]*", second)):
                out.append(ast.unparse(node))
    return out


def test_the_variants_write_their_rule_ids_bare() -> None:
    # docs/architecture.md §Rule ids: a state names its own rules bare (GameState.fail prefixes them
    # with the record's variant), the format's as paipu.<id>; the forms it replaced are caught
    assert prefixed_rule_ids('fail("x", "shangdaren.mao", m); Option(s, "hu", k, False, e, f"{V}.{a}")') == [
        "shangdaren.mao", "f'{V}.{a}'"]
    assert prefixed_rule_ids('r = f"shangdaren.{ev.act}"; fail("x", "paipu.wall", f"seat {s}.")') == [
        "f'shangdaren.{ev.act}'"]
    files = sorted((TESTS.parent / "replay" / "variants").glob("*/*.py"))
    assert len(files) > 40
    assert {str(p.relative_to(TESTS.parent)): ids for p in files if (ids := prefixed_rule_ids(p.read_text("utf-8")))} == {}
