"""Why a settlement is disputed: the engine's winning split group by group, the bonuses as a worked
sum, and the claimed figure beside each term.

A game whose claimed result differs from the computed one (``result_mismatch``), or whose claimed
胡 the engine refuses (``not_a_win``), is replayed to the step before its 胡. That state is a
:class:`replay.judge.Position` (the winner facing the winning card exactly as in play, every bit of
context — 醒 card, last card, dealer — the game's own), and :func:`replay.judge.judge` decides it:
the same code that accepts or refuses the logged 胡, so the explanation cannot drift from the
verdict. The winning split is the won state's ``facts()["melds"]`` of the winner (the variant's own
reading, as the warehouse stores it); a refused 胡 gives the split of its
``RuleViolation.detail`` (``{"points", "groups"}``) when the variant reports one.

Nothing here knows how a variant scores; it knows two tables written from ``docs/rules/<variant>.md``:
:data:`RULE_LINES` (the rule line each group kind and breakdown term comes from) and
:data:`FORMULAS` (how the breakdown terms make ``units``, and whether ``points`` is the sum of the
groups). Names in Chinese are ``analytics/names.py``'s; the output here is ids.
"""

from __future__ import annotations

from typing import Any

import msgspec

from replay import variants
from replay.judge import Position, judge
from replay.replayer import ReplayOutcome, replay_line, replay_record

DISPUTES = ("result_mismatch", "not_a_win")
"""Verdict error codes an explanation is made for (the settlement, not the play, is in question)."""

# --- the rule line of each group kind and breakdown term, per variant (docs/rules/<variant>.md) -----

_ZIPAI_GROUPS = {  # docs/rules/guilin.md §Winning shape and 胡 (大 / 小)
    "sao_chuan": "扫穿 大 12 小 9", "long": "起手四张 (笼, 同扫穿) 大 12 小 9", "kai_duo": "开舵 大 9 小 6",
    "sao": "扫 大 6 小 3", "guo_sao": "过扫 大 6 小 3", "kan": "坎 大 6 小 3", "peng": "碰 大 3 小 1",
    "yi_er_san": "一二三 / 壹贰叁 大 6 小 3", "er_qi_shi": "二七十 / 贰柒拾 大 6 小 3",
    "chi": "吃: 一二三 / 二七十 大 6 小 3, 其他顺子 0", "bi": "比: 一二三 / 二七十 大 6 小 3, 其他顺子 0",
    "shunzi": "顺子 0 (普通顺子不计胡头)", "dazi": "搭子 0", "dui": "对子 0 (只在四张旁)",
    "zero_triple": "胡牌成三张 0 (胡牌不算胡息)",
}
_ZIPAI_TERMS = {
    "tuo": "舵 = 1 + ⌊(胡 − 10) / {tuo_step}⌋ (逢{tuo_step}进1)", "tianhu": "天胡 ×2 舵", "dihu": "地胡 ×2 舵",
    "sanlong_wukan": "三笼五坎 ×2 舵", "haidi": "海底胡 ×2", "zimo": "自摸 +1 舵 (zimo_bonus = plus1)", "xing": "醒 每张 +1 舵",
    "hu_fen": "胡分 = 舵 × 倍数", "xing_fen": "醒分 = 醒",
}


def _cite(lines: dict[str, str], source: str) -> dict[str, str]:
    return {k: f"{v} ({source})" for k, v in lines.items()}


_SRC_GUILIN_TERMS = "001 §玩法规则, §翻上中下醒; docs/rules/guilin.md §Settlement"
_SRC_ZIPAI_TERMS = "004 §4–5; docs/rules/zipai.md"
_SRC_GEZI_GROUPS = "000 §計胡規則; docs/rules/tongcheng_gezi.md §句, 半句 and 個子"
_SRC_GEZI_TERMS = "000 §計分規則; docs/rules/tongcheng_gezi.md §Settlement"
_SRC_HUAPAI_GROUPS = "002 §3; docs/rules/huapai.md §Winning shape and 胡"
_SRC_SHANGDAREN_GROUPS = "derived from 002 §三精花牌 3; docs/rules/shangdaren.md §Winning shape and 胡"

_GUILIN = {"groups": _cite(_ZIPAI_GROUPS, "001 §玩法规则; docs/rules/guilin.md §Winning shape"),
           "terms": _cite(_ZIPAI_TERMS, _SRC_GUILIN_TERMS)}
_ZIPAI = {"groups": _cite(_ZIPAI_GROUPS, "004 §4; docs/rules/zipai.md"),
          "terms": _cite(_ZIPAI_TERMS, _SRC_ZIPAI_TERMS)}
_YUANJIANG = {
    "groups": _cite({
        "kan": "坎 1 息", "peng": "碰 1 息", "wai": "歪 1 息", "liu": "溜 1 息", "piao": "飘 1 息",
        "dan_wai": "单歪 1 息", "er_qi_shi": "二七十 1 息", "chi": "吃: 二七十 1 息, 其他句 0",
        "shunzi": "句 0 息", "dui": "门子 (对) 1 息", "eqs_menzi": "门子 (二七十之二) 1 息", "menzi": "门子 0 息",
        "dan": "单张 0 息",
    }, "003 §息数和算分; docs/rules/yuanjiang_guihuzi.md §息 and the score"),
    "terms": _cite({
        "xi": "5 硬息 (或大胡之息, dahu_combine = {dahu_combine})", "kan": "坎 +5", "wai": "歪 +5", "liu": "溜 +5",
        "piao": "飘 +{piao_bonus}",
        "dan_wai": "单歪 +5", "nei_yuan": "内圆 ×4 (yuan_stack = {yuan_stack})", "wai_yuan": "外圆 ×2 (yuan_stack = {yuan_stack})", "haidi": "海底 ×4", "baoting": "报听 ×4",
        "cap": "封顶: 最多 {xi_cap} 息 (xi_cap, decision 15)",
    }, "003 §息数和算分; docs/rules/yuanjiang_guihuzi.md §息 and the score"),
}
_GEZI = {
    "groups": _cite({
        "kan": "坎 红 2 / 黑 1 + 牌的個子", "peng": "碰 as 坎: 红 2 / 黑 1 + 牌的個子 (peng_gezi = kan)", "zhao": "招 红 4 / 黑 2 + 牌的個子",
        "guan_sheng": "觀生 红 4 / 黑 2 + 牌的個子", "hua": "滑 红 8 / 黑 3 + 牌的個子",
        "ju": "句: 全红 (上大人, 可知禮) 1, 其他 0 + 牌的個子", "ban_ju": "半句 0 + 牌的個子", "dui": "對 0 + 牌的個子",
    }, _SRC_GEZI_GROUPS),
    "terms": _cite({"fen": "分 = ⌊個子 / 7⌋", "bei": "特殊牌型倍数 (一手黑 ×3, 一手紅 ×10, 十對 ×2)",
                    "zimo": "自摸 ×3 (zimo_pay = {zimo_pay})"},
                   _SRC_GEZI_TERMS),
}
_HUAPAI = {
    "groups": _cite({
        "kan": "坎 红 2 / 黑 1; 精坎 5 + 花", "zha": "扎 红 4 / 黑 2; 精扎 2 × (5 + 花)", "fan": "泛 红 8 / 黑 4; 精泛 4 × (5 + 花)",
        "ju": "句: 上大人, 可知禮 1, 其他 0; 句中精 素 +1 花 +2", "dui": "對 as 坎 (dui_hu = kan)", "zhao": "招 as 扎",
        "kai_fan": "開泛 as 泛", "tingtou": "聽頭 0 (tingtou_jing = zero)",
    }, _SRC_HUAPAI_GROUPS),
    "terms": _cite({"qi": "起 1 分 (17 胡)", "jin": "進: 每 5 胡 +1 分"}, "002 §5; docs/rules/huapai.md §Settlement"),
}
_SHANGDAREN = {
    "groups": _cite({
        "kan": "坎 红 4 / 黑 2, 精 10 (hu_scale = by_copies)", "dui": "對 红 4 / 黑 2, 精 10 (hu_scale = by_copies)",
        "mao": "毛 红 8 / 黑 4, 精 20 (hu_scale = by_copies)", "kai_mao": "開毛 红 8 / 黑 4, 精 20 (hu_scale = by_copies)",
        "ju": "句: 有精 1, 其他 0", "chi": "吃 (句): 有精 1, 其他 0", "ting_tou": "聽頭 0 (ting_tou_jing = 0)",
    }, _SRC_SHANGDAREN_GROUPS),
    "terms": _cite({"pihu": "屁胡 2 分", "taihu": "台胡 6 分", "taihu_fan": "台胡翻 12 分", "qinghu": "清胡 4 分",
                    "qing_taihu": "清台胡 8 分", "kuhu": "枯胡 12 分", "kuhu_21": "枯胡 (21 胡) 24 分",
                    "heihu": "黑胡 14 分", "pengpeng": "碰碰胡 +2 分 (pengpeng_scope = {pengpeng_scope})"},
                   "002 §上大人 2–3; docs/rules/shangdaren.md §Hand classes and 分"),
}

RULE_LINES: dict[str, dict[str, dict[str, str]]] = {
    "guilin": _GUILIN, "zipai": _ZIPAI, "yuanjiang_guihuzi": _YUANJIANG, "tongcheng_gezi": _GEZI,
    "sanjing_huapai": _HUAPAI, "wujing_huapai": _HUAPAI, "shuangbiegan_huapai": _HUAPAI, "shangdaren": _SHANGDAREN,
}
"""variant -> {"groups": {group kind: rule line}, "terms": {breakdown term: rule line}}, as written for
the variant's default options; ``{option}`` in a line is the game's value (:func:`rule_lines`)."""

OPTION_LINES: dict[str, list[tuple[dict[str, Any], dict[str, dict[str, str]]]]] = {
    # (when the game's rules hold all of these values, these lines replace the default ones)
    "guilin": [({"zimo_bonus": "double"}, {"terms": _cite({"zimo": "自摸 ×2 (zimo_bonus = double)"}, _SRC_GUILIN_TERMS)})],
    "zipai": [({"zimo_bonus": "double"}, {"terms": _cite({"zimo": "自摸 ×2 (zimo_bonus = double)"}, _SRC_ZIPAI_TERMS)})],
    "tongcheng_gezi": [
        ({"peng_gezi": "low"}, {"groups": _cite({"peng": "碰 红 1 / 黑 0 + 牌的個子 (peng_gezi = low)"}, _SRC_GEZI_GROUPS)}),
        ({"players": 3, "gezi_per_fen_3p": 9},
         {"terms": _cite({"fen": "分 = ⌊個子 / 9⌋ (3 人, gezi_per_fen_3p = 9)"}, _SRC_GEZI_TERMS)}),
    ],
    **{v: [({"dui_hu": "half"}, {"groups": _cite({"dui": "對 as half a 坎, after 主精 doubling (dui_hu = half)"},
                                                 _SRC_HUAPAI_GROUPS)}),
           ({"tingtou_jing": "count"}, {"groups": _cite({"tingtou": "聽頭: 精 as in a 句, 素 +1 花 +2 (tingtou_jing = count)"},
                                                        _SRC_HUAPAI_GROUPS)})]
       for v in ("sanjing_huapai", "wujing_huapai", "shuangbiegan_huapai")},
    "shangdaren": [
        ({"hu_scale": "face"}, {"groups": _cite({
            "kan": "坎 红 2 / 黑 1, 精 5 (hu_scale = face)", "dui": "對 红 2 / 黑 1, 精 5 (hu_scale = face)",
            "mao": "毛 红 4 / 黑 2, 精 10 (hu_scale = face)", "kai_mao": "開毛 红 4 / 黑 2, 精 10 (hu_scale = face)"},
            _SRC_SHANGDAREN_GROUPS)}),
        ({"hu_scale": "flat"}, {"groups": _cite({
            "kan": "坎 3 (红黑同), 精坎 12 (hu_scale = flat)", "dui": "對 2 (红黑同), 精坎 12 (hu_scale = flat)",
            "mao": "毛 6 (普招), 精招 16 (hu_scale = flat)", "kai_mao": "開毛 6 (普招), 精招 16 (hu_scale = flat)"},
            _SRC_SHANGDAREN_GROUPS)}),
        ({"ting_tou_jing": 8}, {"groups": _cite({"ting_tou": "聽頭 0; 金對 (一對精) 8 (ting_tou_jing = 8)"},
                                                _SRC_SHANGDAREN_GROUPS)}),
    ],
}
"""Per variant, the rule lines that a non-default option value changes (docs/rules/<variant>.md, the
option's table row), each citing its source as the default line does:
``[(values, {"groups"/"terms": {kind: line}})]``, applied in order."""


class _KeepMissing(dict):
    """Values for ``str.format_map``: an option the game does not name stays ``{option}``."""

    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def rule_lines(variant: str, rules: Any) -> dict[str, dict[str, str]]:
    """The rule line of each group kind and breakdown term of ``variant`` under the game's options
    ``rules`` (a mapping of option → value, every option present: the ruleset's values): the lines
    of :data:`RULE_LINES`, those of :data:`OPTION_LINES` whose values the game holds put over them, and
    each ``{option}`` written as the game's value. ``{"groups": {}, "terms": {}}`` for a variant
    without lines. Source: each line cites its seed section and docs/rules page."""
    base = RULE_LINES.get(variant, {"groups": {}, "terms": {}})
    out = {part: dict(base.get(part, {})) for part in ("groups", "terms")}
    values = _KeepMissing(rules or {})
    for want, lines in OPTION_LINES.get(variant, []):
        if all(values.get(k) == v for k, v in want.items()):
            for part, by_kind in lines.items():
                out[part].update(by_kind)
    return {part: {k: line.format_map(values) for k, line in by_kind.items()} for part, by_kind in out.items()}


FORMULAS: dict[str, dict[str, Any]] = {
    # units = (sum of the "add" terms) × (product of the "mul" terms); a term in neither is added
    "yuanjiang_guihuzi": {"add": ("xi", "kan", "wai", "liu", "piao", "dan_wai"),
                          "mul": ("nei_yuan", "wai_yuan", "haidi", "baoting"), "cap": "cap", "points": "units"},
    "tongcheng_gezi": {"add": ("fen",), "mul": ("bei", "zimo"), "points": "groups"},
}
"""How a variant's ``breakdown`` makes ``units`` and where ``points`` comes from ("groups": the sum of
the split's group points; "units": the final figure itself, e.g. 沅江's 息); ``cap``: the term that,
when present, is the most the figure may be (沅江 ``xi_cap``). Variants not listed add every term
(docs/rules: "adding up to units") and sum the groups."""


def formula(variant: str) -> dict[str, Any]:
    """:data:`FORMULAS` entry of ``variant`` (the additive default when not listed)."""
    return FORMULAS.get(variant, {"add": None, "mul": (), "points": "groups"})


def worked_units(variant: str, breakdown: dict[str, Any] | None) -> dict[str, Any] | None:
    """The breakdown as a worked sum: ``{"add": [(term, value)], "mul": [(term, value)], "total"}``
    (total = Σ add × Π mul; with the variant's cap term present also ``uncapped`` and ``cap``, and
    total = min of them); None without a breakdown. Non-integer values are left out."""
    if not isinstance(breakdown, dict) or not breakdown:
        return None
    f = formula(variant)
    cap = f.get("cap")
    mul = [(k, v) for k, v in breakdown.items() if k in f["mul"] and isinstance(v, int)]
    add = [(k, v) for k, v in breakdown.items() if k not in f["mul"] and k != cap and isinstance(v, int)]
    total = sum(v for _, v in add) if add else 1
    for _, v in mul:
        total *= v
    out: dict[str, Any] = {"add": add, "mul": mul, "total": total}
    if cap in breakdown and isinstance(breakdown[cap], int):
        out.update(uncapped=total, cap=breakdown[cap], total=min(total, breakdown[cap]))
    return out


# --- the explanation ------------------------------------------------------------------------------

def _hu_step(out: ReplayOutcome) -> int | None:
    """Index of the 胡 the settlement comes from: the refused one (``not_a_win``), else the last 胡."""
    rec = out.record
    assert rec is not None
    for e in out.verdict.errors:
        if e.code == "not_a_win" and e.step is not None and e.step < len(rec.actions) \
                and rec.actions[e.step].act == "hu":
            return e.step
    return next((i for i in range(len(rec.actions) - 1, -1, -1) if rec.actions[i].act == "hu"), None)


def _winner_groups(state: Any, seat: int) -> list[dict[str, Any]]:
    melds = (state.facts() or {}).get("melds") or []
    return [{"kind": m.get("kind"), "cards": list(m.get("cards") or []), "points": m.get("points"),
             "origin": m.get("origin")} for m in melds if m.get("seat") == seat]


def same(key: str, claimed: Any, computed: Any) -> bool:
    """Whether a claimed result field equals the computed one as the replayer compares them
    (``hand_types`` as sets; ``xing`` by count, and by cards where both list them)."""
    if key == "hand_types":
        return set(claimed or []) == set(computed or [])
    if key == "xing" and isinstance(claimed, dict) and isinstance(computed, dict):
        if claimed.get("count") != computed.get("count"):
            return False
        return "cards" not in claimed or "cards" not in computed or \
            list(claimed.get("cards") or []) == list(computed.get("cards") or [])
    return claimed == computed


RESULT_ORDER = ("outcome", "winner", "win_card", "from", "points", "hand_types", "xing", "jing", "breakdown", "units",
                "bao", "scores")
"""spec §5 result fields in the order they are shown."""


def mismatched_fields(out: ReplayOutcome) -> set[str]:
    """Result fields the verdict's ``result_mismatch`` errors name (``result.<field>: …``)."""
    return {e.message.split(":", 1)[0][len("result."):] for e in out.verdict.errors
            if e.code == "result_mismatch" and e.message.startswith("result.")}


def terms(claimed: dict[str, Any] | None, computed: dict[str, Any] | None,
          mismatched: set[str] | None = None) -> list[dict[str, Any]]:
    """Claimed against computed, term by term: every result field (spec §5 order), the breakdown
    key by key (``breakdown.<term>``).

    :param mismatched: the fields the verdict found different (:func:`mismatched_fields`); they
        decide ``same`` for fields both sides have. None: compare here (:func:`same`).
    :returns: rows ``{"term", "claimed", "computed", "claimed_present", "computed_present",
        "same"}``; ``same`` is None where a side lacks the term.
    """
    claimed = claimed if isinstance(claimed, dict) else {}
    computed = computed if isinstance(computed, dict) else {}
    keys = [k for k in RESULT_ORDER if k in claimed or k in computed]
    keys += sorted(k for k in {*claimed, *computed} if k not in RESULT_ORDER)
    rows = []
    for k in keys:
        if k == "breakdown" and (isinstance(claimed.get(k), dict) or isinstance(computed.get(k), dict)):
            cb: dict[str, Any] = claimed[k] if isinstance(claimed.get(k), dict) else {}
            mb: dict[str, Any] = computed[k] if isinstance(computed.get(k), dict) else {}
            both = k in claimed and k in computed
            for t in [*mb, *(t for t in cb if t not in mb)]:
                rows.append({"term": f"breakdown.{t}", "claimed": cb.get(t), "computed": mb.get(t),
                             "claimed_present": t in cb, "computed_present": t in mb,
                             "same": cb.get(t) == mb.get(t) if both else None})
            continue
        both = k in claimed and k in computed
        if both:
            eq = (k not in mismatched) if mismatched is not None else same(k, claimed[k], computed[k])
        rows.append({"term": k, "claimed": claimed.get(k), "computed": computed.get(k), "claimed_present": k in claimed,
                     "computed_present": k in computed, "same": eq if both else None})
    return rows


def explain_outcome(out: ReplayOutcome) -> dict[str, Any] | None:
    """The explanation of an already replayed line (see :func:`explain`); None when the verdict has
    no :data:`DISPUTES` error or the line is not a record of an implemented variant."""
    codes = {e.code for e in out.verdict.errors}
    rec, ruleset = out.record, out.ruleset
    if not codes & set(DISPUTES) or rec is None or ruleset is None:
        return None
    spec = variants.VARIANTS.get(rec.variant)
    if spec is None or spec.state is None:
        return None
    claimed = msgspec.to_builtins(rec.result) if rec.result is not None else None
    if isinstance(claimed, dict) and "from_" in claimed:
        claimed["from"] = claimed.pop("from_")
    computed = out.verdict.computed
    lines = rule_lines(rec.variant, ruleset.values)
    step = _hu_step(out)
    seat = rec.actions[step].seat if step is not None else None
    win, reason, rule, path, groups, points, best = None, None, None, [], [], None, None
    if step is not None and seat is not None:
        before = replay_record(rec, stop_after=step - 1)  # the table the 胡 was logged on
        state = before.state if before.verdict.valid else None
        if state is not None:
            pos = Position(state, seat, lambda won: _winner_groups(won, seat), hu=rec.actions[step])
            j = judge(pos)
            win, path = j.win, j.path
            if j.win:
                assert j.state is not None and j.outcome is not None
                groups, points = pos.groups(j.state), j.outcome.get("points")
                if computed is not None and j.outcome != computed:
                    # the log took another legal way to its 胡 than the best one: explain the logged one
                    best = {"points": points, "units": j.outcome.get("units"), "path": j.path}
                    logged = state.fork()
                    logged.apply(rec.actions[step])
                    groups, points, path = _winner_groups(logged, seat), computed.get("points"), ["hu"]
            else:
                reason = j.reason
                if j.refusal is not None:
                    rule = j.refusal.rule
                    groups = list((j.refusal.detail or {}).get("groups") or [])
                points = j.points
    for g in groups:
        g["rule"] = lines["groups"].get(str(g.get("kind")))
    rows = terms(claimed, computed, mismatched_fields(out) if computed is not None else None)
    if computed is None and points is not None:  # a refused 胡: its points stand against the claim
        for t in rows:
            if t["term"] == "points":
                t.update(computed=points, computed_present=True,
                         same=t["claimed"] == points if t["claimed_present"] else None)
    for t in rows:
        if t["term"].startswith("breakdown."):
            t["rule"] = lines["terms"].get(t["term"].split(".", 1)[1])
    group_sum = sum(g["points"] for g in groups if isinstance(g.get("points"), int)) if groups else None
    f = formula(rec.variant)
    worked = worked_units(rec.variant, (computed or {}).get("breakdown"))
    differs = [t["term"] for t in rows if t["same"] is False]
    return {
        "variant": rec.variant, "seat": seat, "step": step, "win": win, "reason": reason, "rule": rule,
        "path": path, "best": best, "groups": groups, "group_sum": group_sum, "points_from": f["points"],
        "points": {"claimed": (claimed or {}).get("points"), "computed": points if computed is None
                   else computed.get("points")},
        "units": {"claimed": (claimed or {}).get("units"), "computed": (computed or {}).get("units"),
                  "worked": worked},
        "terms": rows, "differs": differs, "first": differs[0] if differs else None,
        "summary": _summary(rows, differs, win, reason),
    }


def _summary(rows: list[dict[str, Any]], differs: list[str], win: bool | None, reason: str | None) -> str:
    """One plain sentence: where claimed and computed part (ids, no labels)."""
    if win is False:
        return f"the engine refuses the claimed 胡: {reason}"
    if not differs:
        return "claimed and computed agree on every claimed field"
    by = {t["term"]: t for t in rows}
    first = by[differs[0]]
    more = f" (and {len(differs) - 1} more: {', '.join(differs[1:])})" if len(differs) > 1 else ""
    return f"{first['term']}: claimed {first['claimed']!r}, computed {first['computed']!r}{more}"


def explain(raw: bytes | str) -> dict[str, Any] | None:
    """Explain one JSON line's disputed settlement.

    :returns: None when the verdict has no ``result_mismatch`` / ``not_a_win``; else a JSON-ready
        dict: ``variant``, ``seat`` (the winner judged), ``step`` (its 胡), ``win`` (the engine
        accepts the 胡), ``reason``/``rule`` (why not), ``path`` (acts to the 胡), ``best`` (the
        judge's best reading when the log took a lesser legal way; else None), ``groups``
        (``[{"kind", "cards", "points", "origin", "rule"}]``: the computed winning split, melds
        included, each with its rule line), ``group_sum``, ``points_from`` (``groups`` or
        ``units``), ``points`` / ``units`` (``{"claimed", "computed"}``; ``units.worked`` the
        breakdown as a worked sum, :func:`worked_units`), ``terms`` (claimed against computed, one
        row per result field and breakdown term: ``term``, ``claimed``, ``computed``,
        ``claimed_present``, ``same``, ``rule`` for breakdown terms), ``differs`` (terms that
        differ, in order), ``first`` (the first of them), ``summary``. Never raises for bad content.
    """
    return explain_outcome(replay_line(raw))
