"""Spec §3: card aliases are accepted on input — in the claimed result too, not only in the deal
and the actions (a server that spells 小二 as 二 throughout must not see its wins refused)."""

from __future__ import annotations

import msgspec

from replay.cards import ZIPAI
from replay.replayer import replay_line
from replay.simulator import simulate

ALIAS_OF = {code: alias for alias, code in ZIPAI.aliases.items()}  # x2 -> 二, d2 -> 贰, ...


def _won_guilin_with_xing():
    for rec in simulate("guilin", 200, 3, bots="heuristic"):
        obj = msgspec.json.decode(msgspec.json.encode(rec))
        r = obj["result"]
        if r["outcome"] != "draw" and r["win_card"] in ALIAS_OF and (r.get("xing") or {}).get("cards"):
            return obj
    raise AssertionError("no won game with 醒 cards among 200 simulated")


def test_aliases_in_win_card_and_xing_cards_are_valid():
    obj = _won_guilin_with_xing()
    res = obj["result"]
    res["win_card"] = ALIAS_OF[res["win_card"]]
    res["xing"]["cards"] = [ALIAS_OF[c] for c in res["xing"]["cards"]]
    v = replay_line(msgspec.json.encode(obj)).verdict
    assert v.valid, v.errors


def test_an_alias_of_another_card_is_still_a_mismatch_shown_as_claimed():
    obj = _won_guilin_with_xing()
    wrong = next(c for c in ALIAS_OF if c != obj["result"]["win_card"])
    obj["result"]["win_card"] = ALIAS_OF[wrong]
    v = replay_line(msgspec.json.encode(obj)).verdict
    assert not v.valid
    e = v.errors[0]
    assert e.code == "result_mismatch" and e.rule == "paipu.result"
    assert f'result.win_card: claimed "{ALIAS_OF[wrong]}"' in e.message


def test_huapai_win_card_by_alias():
    """花牌: 土 is an alias of 士 and 花一 of 花乙; a claimed win_card so spelled matches."""
    alias_of = {"士": "土", "花乙": "花一", "乙": "一", "禮": "礼", "花禮": "花礼"}
    for rec in simulate("sanjing_huapai", 300, 1, bots="heuristic"):
        obj = msgspec.json.decode(msgspec.json.encode(rec))
        r = obj["result"]
        if r["outcome"] != "draw" and r["win_card"] in alias_of:
            r["win_card"] = alias_of[r["win_card"]]
            v = replay_line(msgspec.json.encode(obj)).verdict
            assert v.valid, v.errors
            return
    raise AssertionError("no won 三精 game won on an aliased card among 300 simulated")
