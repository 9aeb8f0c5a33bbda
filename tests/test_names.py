"""One table of names (analytics/names.py) covers every id the engine can emit: acts, group kinds
of a winning split, hand types, breakdown terms and rule options of every variant — taken from the
variants' own specs, from docs/rules/<variant>.md (the ids the rules docs name), and from simulated
games of every variant (the ids the engine actually wrote). Names are the rules docs' Chinese."""

from __future__ import annotations

import re
from pathlib import Path

import msgspec
import pytest

from analytics import names
from replay import variants
from replay.explain import RULE_LINES
from replay.replayer import replay_line
from replay.simulator import simulate

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "rules"
IMPLEMENTED = [v for v, s in variants.VARIANTS.items() if s.implemented]
# option sets that make the engine emit ids the defaults do not (桂林: 海底, the 004 parts; 個子: ×3 on 自摸)
EXTRA_RULES = {"guilin": [{"haidi_double": True}, {"score_parts": "fen"}], "tongcheng_gezi": [{"zimo_pay": "triple"}]}


def _doc_ids() -> tuple[set[str], set[str]]:
    """(hand-type ids, breakdown terms) the rules docs name."""
    types, terms = set(), set()
    for doc in DOCS.glob("*.md"):
        text = doc.read_text(encoding="utf-8")
        heading = ""
        for line in text.splitlines():
            if line.startswith("#"):
                heading = line
                continue
            if line.startswith("| `") and re.search(r"hand_types|Special hands|Hand classes", heading):
                types.update(re.findall(r"`([a-z_0-9]+)`", line.split("|")[1]))
            m = re.search(r"`hand_types`(?: ids)?:(.*)", line)
            if m:
                types.update(re.findall(r"`([a-z_0-9]+)`", m.group(1).split(". ")[0]))
        for m in re.finditer(r"`?breakdown`? = `?\{(.*?)\}", text, flags=re.S):
            terms.update(re.findall(r'"([a-z_0-9]+)"', m.group(1)))
    return types, terms


@pytest.fixture(scope="module")
def emitted() -> dict[str, set[str]]:
    """Ids written by the engine in simulated games of every variant (both bots, a few rule sets)."""
    out: dict[str, set[str]] = {"acts": set(), "kinds": set(), "types": set(), "terms": set()}
    for v in IMPLEMENTED:
        for rules in [{}, *EXTRA_RULES.get(v, [])]:
            for bots in ("heuristic", "random"):
                for rec in simulate(v, 12, 5, bots, rules):
                    res = replay_line(msgspec.json.encode(rec))
                    c = res.verdict.computed or {}
                    out["types"].update(c.get("hand_types") or [])
                    out["terms"].update((c.get("breakdown") or {}).keys())
                    out["acts"].update(e.act for e in rec.actions)
                    out["kinds"].update((v, m["kind"]) for m in (res.facts or {}).get("melds") or [])
    # 海底 wins are rare: game 15 of seed 5's random 沅江 games is one (asserted below)
    for rec in simulate("yuanjiang_guihuzi", 1, 5, "random", start=15):
        out["types"].update((replay_line(msgspec.json.encode(rec)).verdict.computed or {}).get("hand_types") or [])
    return out


def test_the_issue_names():
    """The names of the rules docs."""
    want = {"nei_yuan": "内圆", "wai_yuan": "外圆", "qinghu": "清胡", "kuhu": "枯胡", "pihu": "屁胡",
            "yidian_hong": "一点红", "tianhu": "天胡", "sanlong_wukan": "三笼五坎", "yishou_hei": "一手黑"}
    assert {k: names.HAND_TYPES[k] for k in want} == want
    assert names.hand_type("nei_yuan") == "内圆 (nei_yuan)" and names.hand_type("plain") == "平胡 (plain)"
    assert names.term("breakdown.tuo") == "舵 (tuo)" and names.term("points", "tongcheng_gezi") == "個子 points"
    assert names.option("tuo_step") == "逢几进一舵 (tuo_step)"
    # one id, two readings: 对子 (a pair) in 字牌, 對 (three shown) in 花牌
    assert names.group_kind("dui", "guilin") == "对子" and names.group_kind("dui", "sanjing_huapai") == "對"


def test_every_option_and_act_of_every_variant():
    for v in IMPLEMENTED:
        spec = variants.VARIANTS[v]
        missing = [o.name for o in spec.options if o.name not in names.OPTIONS]
        assert not missing, (v, missing)
        assert not [a for a in spec.acts if a not in names.ACTS], v


def test_every_id_the_rules_docs_name():
    types, terms = _doc_ids()
    assert {"zimo", "tianhu", "nei_yuan", "yishou_hong", "taihu_fan", "pengpeng"} <= types  # the parse works
    assert {"tuo", "xi", "baoting", "qi", "jin", "hu_fen"} <= terms
    assert not sorted(types - set(names.HAND_TYPES)), "hand types without a name"
    assert not sorted(terms - set(names.BREAKDOWN)), "breakdown terms without a name"
    for v in IMPLEMENTED:  # every group kind and term the explanation cites has its name
        assert not [k for k in RULE_LINES[v]["groups"] if names.group_kind(k, v) == k], v
        assert not [t for t in RULE_LINES[v]["terms"] if t not in names.BREAKDOWN], v


def test_every_id_the_engine_emits(emitted):
    assert emitted["types"] >= {"zimo", "haidi"} and emitted["terms"] >= {"tuo", "hu_fen", "fen", "qi"}
    assert not sorted(emitted["types"] - set(names.HAND_TYPES))
    assert not sorted(emitted["terms"] - set(names.BREAKDOWN))
    assert not sorted(emitted["acts"] - set(names.ACTS))
    assert not sorted((v, k) for v, k in emitted["kinds"] if names.group_kind(k, v) == k)
