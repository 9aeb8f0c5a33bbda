"""Rule option kinds (replay/options.py ``RuleOption.kind``): a ``scoring`` option leaves
every logged action legal — replaying a corpus re-labelled with any other value of it accepts every
game's actions; only the settlement may differ (``result_mismatch``)."""

from __future__ import annotations

import functools
import json

import msgspec
import pytest

from replay import variants
from replay.options import KINDS, RuleOption, play_changing
from replay.replayer import replay_line
from replay.simulator import simulate

IMPLEMENTED = [v for v in variants.VARIANTS.values() if v.implemented]
GAMES = 40


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
    for v in ("guilin", "zipai"):  # replay/variants/guilin/options.py: settlement-only options of the family
        gl = {o.name: o.kind for o in variants.get(v).options}
        assert sorted(k for k, kind in gl.items() if kind == "scoring") == [
            "fanxing_offset", "haidi_double", "score_parts", "tuo_step", "xing_mode", "xing_multiplied", "zimo_bonus"], v
        assert gl["peng_kai_duo_on_other_flip"] == "play"  # a forced 开舵: which acts are legal moves
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


@functools.lru_cache(maxsize=None)
def _corpus(variant: str, base: str) -> tuple[tuple[bytes, dict], ...]:
    """The corpus under ``base`` (JSON) and each game's settlement as logged."""
    out = []
    for rec in simulate(variant, GAMES, 19, "heuristic", json.loads(base)):
        a = replay_line(msgspec.json.encode(rec))
        assert a.verdict.valid, (rec.game_id, a.verdict.errors)
        out.append((rec, a.verdict.computed))
    return tuple(out)


@functools.lru_cache(maxsize=None)
def _relabelled(variant: str, base: str, name: str, value) -> tuple[int, list[str]]:
    """(games whose settlement changed, errors other than result_mismatch) of the corpus re-labelled."""
    changed, bad = 0, []
    for rec, computed in _corpus(variant, base):
        b = replay_line(_relabel(rec, {name: value}))
        bad += [f"{rec.game_id}: {e.code} {e.rule} {e.message}" for e in b.verdict.errors if e.code != "result_mismatch"]
        if b.verdict.computed is not None:
            if (b.verdict.computed["outcome"], b.verdict.computed.get("winner")) != (computed["outcome"], computed.get("winner")):
                bad.append(f"{rec.game_id}: outcome or winner moved")
            changed += b.verdict.computed != computed
    return changed, bad


@pytest.mark.parametrize("variant,base,name,value", CASES, ids=[f"{c[0]}-{c[1]}-{c[2]}={c[3]}" for c in CASES])
def test_scoring_option_accepts_every_logged_game(variant, base, name, value):
    changed, bad = _relabelled(variant, json.dumps(base), name, value)
    assert bad == []


@pytest.mark.parametrize("variant", sorted({c[0] for c in CASES}))
def test_the_relabelled_corpus_is_settled_otherwise(variant):
    """The re-labelling takes effect: some scoring option of the variant changes some game's
    settlement (many act only on rare wins — 海底, 圆, several 大胡 — that a small corpus lacks)."""
    assert any(_relabelled(v, json.dumps(base), name, value)[0] for v, base, name, value in CASES if v == variant)


def test_zimo_pay_triple_triples_a_zimo():
    """通城個子牌 000 §計分規則 with zimo_pay = triple: a 自摸 pays three shares, a 抓衝 one."""
    n = 0
    for rec, computed in _corpus("tongcheng_gezi", "{}"):
        b = replay_line(_relabel(rec, {"zimo_pay": "triple"})).verdict.computed
        zimo = computed["outcome"] == "win" and "zimo" in computed["hand_types"]
        assert b["scores"] == [s * (3 if zimo else 1) for s in computed["scores"]]
        n += zimo
    assert n > 0


# docs/rules/<doc>.md of each variant: its options table has a `kind` column
RULE_DOCS = {"guilin": "guilin", "zipai": "zipai", "yuanjiang_guihuzi": "yuanjiang_guihuzi",
             "tongcheng_gezi": "tongcheng_gezi", "sanjing_huapai": "huapai", "wujing_huapai": "huapai",
             "shuangbiegan_huapai": "huapai", "shangdaren": "shangdaren"}


@pytest.mark.parametrize("spec", IMPLEMENTED, ids=lambda s: s.id)
def test_the_rules_docs_give_every_options_kind(spec):
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parent.parent / "docs" / "rules" / f"{RULE_DOCS[spec.id]}.md").read_text()
    lines = text[text.index("\n| option | kind |") + 1:].split("\n")
    documented = {}
    for ln in lines[2:]:
        if not ln.startswith("|"):
            break
        m = re.match(r"\|\s*`([a-z0-9_]+)`\s*\|\s*(\w+)\s*\|", ln)
        assert m, ln
        documented[m[1]] = m[2]
    names = {o.name for o in spec.options}  # huapai.md lists the three 花牌 variants' options together
    assert {o.name: o.kind for o in spec.options} == {k: v for k, v in documented.items() if k in names}
