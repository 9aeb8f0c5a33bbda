"""The dispute explanation (replay/explain.py): the engine's winning split group by group with the
rule line of each group, the breakdown as a worked sum, and the claimed figure beside each term —
in ``paipu validate --json`` too. Worked out from 001 §玩法规则 on the worked example
(data/guilin-short.jsonl, seat 1 自摸 on 大七)."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest
from typer.testing import CliRunner

from replay import variants
from replay.explain import RULE_LINES, explain, worked_units
from replay.simulator import simulate

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = json.loads((ROOT / "data" / "guilin-short.jsonl").read_text(encoding="utf-8"))


def disputed(**claim) -> dict:
    """The worked example with its claimed result changed."""
    rec = json.loads(json.dumps(EXAMPLE))
    rec["game_id"] = "disputed"
    for k, v in claim.items():
        if k.startswith("bd_"):
            rec["result"]["breakdown"][k[3:]] = v
        else:
            rec["result"][k] = v
    return rec


def test_guilin_dispute_split_and_differing_term():
    """Claimed 22 胡 (tuo 4, units 7) on a hand the engine splits into 21 胡: 吃 小一二三 3 +
    坎 大四 6 + 大壹贰叁 6 + 大贰柒拾 6 + three 顺子 0 (001 §玩法规则); 舵 = 1 + ⌊(21 − 10)/5⌋ = 3,
    自摸 +1, 醒 2 → 6. The first term where claim and engine part is the 胡."""
    e = explain(json.dumps(disputed(points=22, units=7, bd_tuo=4)))
    assert e is not None and e["win"] is True and (e["variant"], e["seat"], e["step"]) == ("guilin", 1, 8)
    got = sorted((g["kind"], tuple(g["cards"]), g["points"]) for g in e["groups"])
    assert got == sorted([("chi", ("x1", "x2", "x3"), 3), ("kan", ("d4", "d4", "d4"), 6),
                          ("shunzi", ("x4", "x5", "x6"), 0), ("shunzi", ("x7", "x8", "x9"), 0),
                          ("yi_er_san", ("d1", "d2", "d3"), 6), ("er_qi_shi", ("d2", "d7", "d10"), 6),
                          ("shunzi", ("d5", "d6", "d7"), 0)])
    kan = next(g for g in e["groups"] if g["kind"] == "kan")
    assert kan["rule"].startswith("坎 大 6 小 3") and "001 §玩法规则" in kan["rule"]
    assert e["group_sum"] == 21 and e["points"] == {"claimed": 22, "computed": 21}
    assert e["units"]["worked"] == {"add": [("tuo", 3), ("zimo", 1), ("xing", 2)], "mul": [], "total": 6}
    assert e["differs"] == ["points", "breakdown.tuo", "units"] and e["first"] == "points"
    tuo = next(t for t in e["terms"] if t["term"] == "breakdown.tuo")
    assert (tuo["claimed"], tuo["computed"], tuo["same"]) == (4, 3, False) and "舵 = 1 +" in tuo["rule"]
    assert e["summary"].startswith("points: claimed 22, computed 21")


def test_only_the_term_that_differs_is_named():
    """Claimed 醒 3 (so 7 units) where the engine counts 2 醒: points agree, 醒 and units differ."""
    e = explain(json.dumps(disputed(bd_xing=3, units=7)))
    assert e["differs"] == ["breakdown.xing", "units"] and e["first"] == "breakdown.xing"
    assert next(t for t in e["terms"] if t["term"] == "points")["same"] is True


def test_no_explanation_without_a_dispute():
    assert explain(json.dumps(EXAMPLE)) is None
    bad = json.loads(json.dumps(EXAMPLE))
    bad["actions"][2]["card"] = "d4"  # discards a dealt 坎 card: the play, not the settlement, is wrong
    assert explain(json.dumps(bad)) is None
    assert explain("{oops") is None


def test_a_refused_hu_is_explained_with_the_engines_reason():
    """The last 胡 logged by seat 2 instead of seat 1: the engine refuses it (no split), and the
    explanation says why with the rule id."""
    rec = json.loads(json.dumps(EXAMPLE))
    rec["actions"][-1]["seat"] = 2
    e = explain(json.dumps(rec))
    assert e is not None and e["win"] is False and e["step"] == 8 and e["seat"] == 2
    assert e["rule"] == "guilin.hu_shape" and "do not all form groups" in e["reason"]
    assert e["summary"].startswith("the engine refuses the claimed 胡")


def test_validate_json_carries_the_explanation(tmp_path):
    from paipu.cli import app

    f = tmp_path / "two.jsonl"
    f.write_text(json.dumps(EXAMPLE, ensure_ascii=False) + "\n" + json.dumps(disputed(points=22), ensure_ascii=False)
                 + "\n", encoding="utf-8")
    r = CliRunner().invoke(app, ["validate", "--json", str(f)])
    assert r.exit_code == 1, r.output
    ok, bad = [json.loads(ln) for ln in r.output.splitlines() if ln.strip()]
    assert "explain" not in ok
    assert [e["code"] for e in bad["errors"]] == ["result_mismatch"]
    ex = bad["explain"]
    assert ex["first"] == "points" and ex["points"] == {"claimed": 22, "computed": 21} and ex["group_sum"] == 21
    assert ex["units"]["worked"]["total"] == 6


@pytest.mark.parametrize("variant", [v for v, s in variants.VARIANTS.items() if s.implemented])
def test_every_variant_worked_sum_matches_its_settlement(variant):
    """On simulated wins of every variant with the claimed points raised by one: the breakdown's
    worked sum is the engine's units, the groups add up to its points (沅江: points are the final
    息), every group kind and term has its rule line, and the first differing term is the points."""
    seen = 0
    for rec in simulate(variant, 24, 3, "heuristic", {}):
        d = msgspec.to_builtins(rec)
        res = d.get("result") or {}
        if res.get("outcome") != "win":
            continue
        res["points"] += 1
        e = explain(msgspec.json.encode(d))
        assert e is not None and e["win"] is True and e["first"] == "points"
        worked = e["units"]["worked"]
        assert worked is not None and worked["total"] == e["units"]["computed"]
        if e["points_from"] == "groups":
            assert e["group_sum"] == e["points"]["computed"]
        else:
            assert e["points"]["computed"] == e["units"]["computed"]
        assert all(g["rule"] for g in e["groups"]), [g["kind"] for g in e["groups"] if not g["rule"]]
        assert all(t["rule"] for t in e["terms"] if t["term"].startswith("breakdown."))
        seen += 1
        if seen == 4:
            break
    assert seen, f"no simulated win of {variant}"
    assert set(RULE_LINES) >= {variant}


def test_worked_sums_follow_each_variants_formula():
    """docs/rules: 沅江 points = (xi + bonuses) × factors, at most the cap (xi_cap); 個子 units =
    fen × bei (× zimo); elsewhere the terms add up."""
    yj = {"xi": 50, "kan": 5, "wai": 0, "liu": 0, "piao": 0, "dan_wai": 0, "nei_yuan": 4, "wai_yuan": 1, "haidi": 1,
          "baoting": 1}
    assert worked_units("yuanjiang_guihuzi", yj)["total"] == 220
    capped = worked_units("yuanjiang_guihuzi", {**yj, "cap": 200})
    assert (capped["uncapped"], capped["cap"], capped["total"]) == (220, 200, 200)
    assert worked_units("tongcheng_gezi", {"fen": 2, "bei": 3, "zimo": 3})["total"] == 18
    assert worked_units("shangdaren", {"pihu": 2, "pengpeng": 2})["total"] == 4
    assert worked_units("guilin", None) is None


def test_rule_lines_follow_the_games_options():
    """A rule line says the rule the game was played under, not the default (an auditor's
    report): the 舵 step, the 自摸 bonus, 上大人's hu_scale, 通城's 3-seat 分."""
    from replay.explain import rule_lines

    g = rule_lines("guilin", {"tuo_step": 3, "zimo_bonus": "double"})
    assert g["terms"]["tuo"].startswith("舵 = 1 + ⌊(胡 − 10) / 3⌋ (逢3进1) (001")
    assert g["terms"]["zimo"].startswith("自摸 ×2 (zimo_bonus = double) (001")
    d = rule_lines("guilin", {"tuo_step": 5, "zimo_bonus": "plus1"})
    assert d["terms"]["tuo"].startswith("舵 = 1 + ⌊(胡 − 10) / 5⌋ (逢5进1)")
    assert d["terms"]["zimo"].startswith("自摸 +1 舵 (zimo_bonus = plus1)")
    assert rule_lines("yuanjiang_guihuzi", {"piao_bonus": 0})["terms"]["piao"].startswith("飘 +0 (003")
    assert rule_lines("nonesuch", {}) == {"groups": {}, "terms": {}}


def test_explanation_quotes_the_non_default_rule_lines():
    """tests/data/explain-options.jsonl: 上大人 under hu_scale=flat (坎 3 in hand, 對 2 on the table:
    docs/rules/shangdaren.md §Winning shape) and 通城 at 3 seats with gezi_per_fen_3p=9, each with
    its claimed units one more than the engine's. Every group's rule line gives the value the engine
    scored it at."""
    lines = (ROOT / "tests" / "data" / "explain-options.jsonl").read_bytes().splitlines()
    flat, low = (explain(x) for x in lines)
    assert flat is not None and flat["variant"] == "shangdaren"
    by_kind = {(g["kind"], g["points"]): g["rule"] for g in flat["groups"]}
    assert by_kind[("kan", 3)].startswith("坎 3 (红黑同), 精坎 12 (hu_scale = flat) (derived from 002 §三精花牌 3")
    assert by_kind[("dui", 2)].startswith("對 2 (红黑同), 精坎 12 (hu_scale = flat)")
    assert low is not None and low["variant"] == "tongcheng_gezi"
    fen = next(t for t in low["terms"] if t["term"] == "breakdown.fen")
    assert fen["rule"].startswith("分 = ⌊個子 / 9⌋ (3 人, gezi_per_fen_3p = 9) (000 §計分規則")
