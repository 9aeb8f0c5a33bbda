"""Rule option kinds (issue 19, replay/options.py ``RuleOption.kind``): a ``scoring`` option leaves
every logged action legal — replaying a corpus re-labelled with any other value of it accepts every
game's actions; only the settlement may differ (``result_mismatch``)."""

from __future__ import annotations

import msgspec
import pytest

from replay import variants
from replay.options import KINDS, RuleOption, play_changing
from replay.replayer import replay_line
from replay.simulator import simulate

IMPLEMENTED = [v for v in variants.VARIANTS.values() if v.implemented]
GAMES = 40
UNREACHED = {("tongcheng_gezi", "special_base")}
"""Options the heuristic corpus never exercises: special_base acts on a 黑 / 紅 / 十對 win of ≥ 14
個子 (none in 600 simulated games); their acceptance is still checked, not that they change a result."""


def _bases(spec: variants.VariantSpec) -> list[dict]:
    """Rulesets the corpora are played under: the defaults and each other seat count (an option
    such as tongcheng_gezi's gezi_per_fen_3p only acts at 3 seats)."""
    out: list[dict] = [{}]
    for o in spec.options:
        if o.name == "players":
            out += [{"players": v} for v in o.allowed if v != o.default]
    return out


def _relabel(rec, rules: dict) -> bytes:
    d = msgspec.to_builtins(rec)
    d["rules"] = {**d.get("rules", {}), **rules}
    return msgspec.json.encode(d)


def test_kind_is_declared_and_checked():
    assert KINDS == ("play", "scoring")
    assert RuleOption("x", 1, (1, 2), "s", "d").kind == "play"  # undeclared: never re-scored
    with pytest.raises(ValueError, match="kind 'settle'"):
        RuleOption("x", 1, (1, 2), "s", "d", kind="settle")
    for spec in IMPLEMENTED:
        assert all(o.kind in KINDS for o in spec.options), spec.id


def test_declared_kinds_of_finished_variants():
    tc = {o.name: o.kind for o in variants.get("tongcheng_gezi").options}
    assert sorted(k for k, v in tc.items() if v == "scoring") == ["gezi_per_fen_3p", "special_base", "zimo_pay"]
    assert tc["peng_gezi"] == "play"  # the 個子 of a 碰 moves the 7-個子 minimum
    for v in ("sanjing_huapai", "wujing_huapai", "shuangbiegan_huapai"):
        # every 花牌 value option moves the 17-胡 minimum (002 §4): none is settlement-only
        assert {o.kind for o in variants.get(v).options} == {"play"}, v


def test_play_changing_names_the_options_not_scoring():
    opts = variants.get("tongcheng_gezi").options
    assert play_changing({"zimo_pay": "triple", "special_base": "one"}, opts) == []
    assert play_changing({"zimo_pay": "triple", "bu_pai": "tail", "nope": 1}, opts) == ["bu_pai", "nope"]


CASES = [(spec.id, base, o.name, v) for spec in IMPLEMENTED for base in _bases(spec)
         for o in spec.options if o.kind == "scoring" for v in o.allowed if v != base.get(o.name, o.default)]


@pytest.mark.parametrize("variant,base,name,value", CASES, ids=[f"{c[0]}-{c[1]}-{c[2]}={c[3]}" for c in CASES])
def test_scoring_option_accepts_every_logged_game(variant, base, name, value):
    recs = list(simulate(variant, GAMES, 19, "heuristic", base))
    changed = 0
    for rec in recs:
        a = replay_line(msgspec.json.encode(rec))
        assert a.verdict.valid, (rec.game_id, a.verdict.errors)
        b = replay_line(_relabel(rec, {name: value}))
        assert [e.code for e in b.verdict.errors if e.code != "result_mismatch"] == [], (rec.game_id, b.verdict.errors)
        assert b.verdict.computed["outcome"] == a.verdict.computed["outcome"]
        assert b.verdict.computed.get("winner") == a.verdict.computed.get("winner")
        changed += b.verdict.computed != a.verdict.computed
    inert = (variant, name) in UNREACHED or (name == "gezi_per_fen_3p" and base.get("players") != 3)
    if not inert:  # gezi_per_fen_3p acts at 3 seats only
        assert changed > 0, "the corpus never exercises the option: the test would prove nothing"
