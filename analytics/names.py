"""The Chinese names of the ids people read: variants, acts, group kinds, hand types, breakdown
terms, rule options, error codes and result fields (docs/rules/<variant>.md).

One table for ``paipu report`` and the dashboards, as plain text: escaping for Markdown and HTML,
and cards shown as cards, stay with the pages (``dashboards/labels.py``).
"""

from __future__ import annotations

from typing import Any

VARIANTS = {
    "guilin": "桂林字牌", "zipai": "字牌", "yuanjiang_guihuzi": "沅江鬼胡子", "tongcheng_gezi": "通城個子牌",
    "sanjing_huapai": "三精花牌", "wujing_huapai": "五精花牌", "shuangbiegan_huapai": "雙別桿花牌",
    "shangdaren": "上大人",
}

# --- the one table of names (docs/rules/<variant>.md); tests/test_names.py checks that every id the
# engine emits (acts, group kinds, hand types, breakdown terms, rule options) has its name here ------

ACTS = {
    "draw": "摸牌", "discard": "出牌", "hu": "胡", "pass": "过", "chi": "吃", "peng": "碰", "sao": "扫",
    "guo_sao": "过扫", "sao_chuan": "扫穿", "kai_duo": "开舵", "wai": "歪", "liu": "溜", "piao": "飘",
    "jian": "撿", "zhao": "招", "guan_sheng": "觀生", "hua": "滑", "dui": "對", "zha": "扎",
    "kai_fan": "開泛", "kai_mao": "開毛", "mao": "毛", "bi": "比",
}
"""spec §4 acts (docs/rules/<variant>.md §Acts)."""

GROUP_KINDS = {
    # 字牌 family (docs/rules/guilin.md, zipai.md, yuanjiang_guihuzi.md §Winning shape)
    "kan": "坎", "long": "笼 (起手四张)", "sao": "扫", "guo_sao": "过扫", "sao_chuan": "扫穿", "kai_duo": "开舵",
    "peng": "碰", "chi": "吃", "bi": "比", "shunzi": "顺子", "yi_er_san": "一二三", "er_qi_shi": "二七十",
    "dazi": "搭子", "dui": "对子", "zero_triple": "三张 (不计胡)", "wai": "歪", "liu": "溜", "piao": "飘",
    "dan_wai": "单歪", "dan": "单张", "menzi": "门子", "eqs_menzi": "二七十门子",
    # 花牌 family and 上大人 (docs/rules/huapai.md, tongcheng_gezi.md, shangdaren.md)
    "ju": "句", "ban_ju": "半句", "zhao": "招", "guan_sheng": "觀生", "hua": "滑", "jian": "撿", "zha": "扎",
    "fan": "泛", "kai_fan": "開泛", "tingtou": "聽頭", "ting_tou": "聽頭", "mao": "毛", "kai_mao": "開毛",
}
"""Kinds of the groups of a winning split and of melds (``facts()["melds"]``, spec §8 ``groups``)."""

_GROUP_KINDS_BY_VARIANT = {  # the same id read otherwise in a family
    v: {"dui": "對"} for v in ("tongcheng_gezi", "sanjing_huapai", "wujing_huapai", "shuangbiegan_huapai", "shangdaren")
}

HAND_TYPES = {
    "zimo": "自摸", "tianhu": "天胡", "dihu": "地胡", "sanlong_wukan": "三笼五坎", "haidi": "海底胡",
    "chong_tuo": "重舵", "xing": "醒", "plain": "平胡",
    # 沅江鬼胡子 (docs/rules/yuanjiang_guihuzi.md §Hand types)
    "baoting": "报听", "shidui": "十对", "wuxi_ping": "无息平胡", "yidian_hong": "一点红", "shisan_hong": "十三红",
    "dazi_hu": "大字胡", "xiaozi_hu": "小字胡", "quanhei_hu": "全黑胡", "wudui_hu": "乌对胡", "duizi_xi": "对子息",
    "hanghang_xi": "行行息", "quanqiuren": "全求人", "hua_huzi": "花胡子", "jiudui_ban": "九对半",
    "nei_yuan": "内圆", "wai_yuan": "外圆", "dan_wai": "单歪",
    # 通城個子牌 (docs/rules/tongcheng_gezi.md §Special hands)
    "yishou_hei": "一手黑", "yishou_hong": "一手紅",
    # 上大人 (docs/rules/shangdaren.md §Hand classes)
    "pihu": "屁胡", "taihu": "台胡", "taihu_fan": "台胡翻", "qinghu": "清胡", "qing_taihu": "清台胡",
    "kuhu": "枯胡", "kuhu_21": "枯胡 (21 胡)", "heihu": "黑胡", "pengpeng": "碰碰胡",
}
"""``hand_types`` ids (spec §5) of every variant; ``plain`` = a win with none."""

BREAKDOWN = {
    "tuo": "舵", "zimo": "自摸", "xing": "醒", "tianhu": "天胡", "dihu": "地胡", "sanlong_wukan": "三笼五坎",
    "haidi": "海底", "hu_fen": "胡分", "xing_fen": "醒分",  # 桂林字牌 / 字牌
    "xi": "息", "kan": "坎", "wai": "歪", "liu": "溜", "piao": "飘", "dan_wai": "单歪", "nei_yuan": "内圆",
    "wai_yuan": "外圆", "baoting": "报听", "cap": "封顶",  # 沅江鬼胡子
    "fen": "分", "bei": "倍",  # 通城個子牌
    "qi": "起", "jin": "進",  # 花牌
    **{k: HAND_TYPES[k] for k in ("pihu", "taihu", "taihu_fan", "qinghu", "qing_taihu", "kuhu", "kuhu_21", "heihu",
                                  "pengpeng")},  # 上大人: the class and its 分
}
"""``result.breakdown`` terms (docs/rules/<variant>.md §Settlement)."""

OPTIONS = {
    # 桂林字牌 / 字牌 (docs/rules/guilin.md, zipai.md §Options)
    "tuo_step": "逢几进一舵", "zimo_bonus": "自摸加舵", "haidi_double": "海底翻倍", "dian_pao_bu_zhun_hu": "点炮不准胡",
    "fang_pao_bi_hu": "放炮必胡", "sanlong_wukan": "三笼五坎", "sanlong_wukan_long_as_kan": "笼算坎",
    "dealt_four": "起手四张", "xing_mode": "醒的翻法", "fanxing_offset": "翻醒加一", "score_parts": "分项",
    "sao_kai_duo_on_discard": "打出第四张开舵", "bi_without_group": "无组下比", "hu_triple": "胡牌成三张",
    "chi_discard": "可吃打出的牌", "xing_multiplied": "醒也翻倍", "chong_duo_next": "重舵后谁摸牌",
    "peng_kai_duo_on_other_flip": "别家翻出第四张碰开舵",
    "chou_pai_peng": "臭牌也不能碰",
    "peng_discard": "可碰打出的牌",
    "kan_kai_duo_on_discard": "打出第四张坎开舵",
    # 沅江鬼胡子
    "piao": "飘", "wei_display": "偎的亮法", "peng_on_flip": "翻牌可碰", "qihu_scope": "起胡条件",
    "dahu_combine": "大胡合计", "yuan_stack": "圆叠加", "piao_bonus": "飘加息", "flip_payer": "翻牌胡付分",
    "baoting": "报听", "hanghang_with_menzi": "行行息含门子", "qihu_xi": "起胡息数", "xi_cap": "息封顶",
    "jiudui_ban": "九对半", "peng_own_discard": "碰自己打出的牌",
    "wuxi_ping": "无息平计分",
    # 通城個子牌
    "players": "人数", "zimo_pay": "自摸付分", "special_base": "特殊牌型底分", "claim_order": "胡与碰的先后",
    "shidui_four": "十對含四张", "bu_pai": "补牌", "jian_kan": "撿牌成坎", "peng_gezi": "碰的個子",
    "win_triple": "胡牌成坎", "win_pair": "胡牌成對", "jian_discard": "撿后出同牌", "gezi_per_fen_3p": "三人每分個子",
    "tian_hu": "天胡",
    "hua_held": "滑原有第五张",
    # 花牌
    "zhu_jing_tie": "主精平手", "dui_hu": "對的胡", "tingtou_jing": "聽頭的精", "zha_in_hand": "手中扎",
    "fan_from_hand": "手中開泛", "bu_pai_empty": "无牌可补", "lai_hu": "賴的胡",
    "zhao_bu_from": "招后补牌",
    "dui_limit": "對的上限",
    "qing_tong_kai_fan": "請統開泛",
    # 上大人
    "hu_scale": "胡的算法", "green_as": "绿字算作", "zhu_jing": "主精翻倍", "ting_tou": "聽頭", "ting_tou_jing": "聽頭的精",
    "ku_hu_min": "枯胡最低胡", "hei_hu_min": "黑胡最低胡", "pengpeng_scope": "碰碰胡范围", "fang_pao": "放炮付分",
    "dui_from": "對的来源", "mashang_dui": "马上對", "yao_pai": "要牌",
}
"""Rule option names (the ``rules`` object; docs/rules/<variant>.md §Options)."""

WIN_KINDS = {"zimo": "自摸 self-drawn", "dianpao": "点炮 dealt-in", "flip": "翻牌 flipped",
             "deal": "起手胡 dealt win", "?": "未知 unknown"}

ERROR_CODES = {
    "bad_json": "非 JSON", "schema": "格式错误", "unknown_variant": "未知玩法", "unknown_card": "未知牌",
    "unknown_act": "未知动作", "deck_mismatch": "牌组不符", "wall_mismatch": "牌墙不符",
    "out_of_turn": "未轮到", "illegal_action": "违规动作", "priority_violation": "优先权违规",
    "missing_forced_action": "缺强制动作", "not_a_win": "非胡牌", "truncated": "记录不完整",
    "trailing_actions": "结束后仍有动作", "result_mismatch": "结算不符", "duplicate_game": "重复对局",
    "shuffle_mismatch": "洗牌摘要不符", "engine_error": "引擎错误",
}

RESULT_FIELDS = {
    "outcome": "结果 outcome", "winner": "胡家 winner", "win_card": "胡牌 win card", "from": "放牌 from",
    "points": "胡 hu", "hand_types": "牌型 hand types", "xing": "醒 xing", "jing": "精 jing",
    "units": "舵/分 units", "breakdown": "明细 breakdown", "bao": "承包 bao", "scores": "得分 scores",
}
OUTCOMES = {"win": "胡 win", "draw": "荒庄 draw"}

POINTS_UNIT = {"yuanjiang_guihuzi": "息", "tongcheng_gezi": "個子"}
"""What ``points`` counts in a variant (胡 elsewhere): 沅江's 息, 個子牌's 個子."""

UNITS_UNIT = {"guilin": "舵", "zipai": "分", "yuanjiang_guihuzi": "息", "tongcheng_gezi": "分",
              "sanjing_huapai": "分", "wujing_huapai": "分", "shuangbiegan_huapai": "分", "shangdaren": "分"}
"""What ``units`` counts in a variant (one losing share before stake)."""


def points_unit(variant: str | None) -> str:
    """胡, 息 or 個子: the name of ``points`` in ``variant``."""
    return POINTS_UNIT.get(variant or "", "胡")


def units_unit(variant: str | None) -> str:
    """舵 or 分 (息 in 沅江): the name of ``units`` in ``variant``."""
    return UNITS_UNIT.get(variant or "", "分")


def units_are_points(variant: str | None) -> bool:
    """Whether ``units`` is ``points`` itself in ``variant`` (沅江: both are the final 息), so one
    mean says both."""
    return units_unit(variant) == points_unit(variant)


def group_kind(kind: Any, variant: str | None = None) -> str:
    """Chinese name of a group kind in ``variant`` (the id itself when unknown)."""
    k = str(kind)
    return _GROUP_KINDS_BY_VARIANT.get(variant or "", {}).get(k) or GROUP_KINDS.get(k) or ACTS.get(k) or k


def name(table: dict[str, str], key: Any) -> str:
    """The Chinese name alone (the id itself when ``table`` does not know it; ``—`` for None)."""
    if key is None:
        return "—"
    return table.get(str(key), str(key))


def hand_type(t: Any) -> str:
    """``牌型 (id)`` of a hand type (``平胡 (plain)`` for a win with none)."""
    return zh(HAND_TYPES, t)


def term(t: Any, variant: str | None = None) -> str:
    """``名 (id)`` of a breakdown term (``breakdown.tuo``) or the label of a result field (its
    ``points`` named as the variant counts them: 胡, 息 or 個子)."""
    k = str(t)
    if k.startswith("breakdown."):
        return zh(BREAKDOWN, k.split(".", 1)[1])
    if k == "points" and variant:
        return f"{points_unit(variant)} points"
    return RESULT_FIELDS.get(k, k)


def option(o: Any) -> str:
    """``名 (id)`` of a rule option."""
    return zh(OPTIONS, o)


def zh(table: dict[str, str], key: Any) -> str:
    """``中文 (key)`` when ``table`` knows ``key``, else ``key`` itself."""
    if key is None:
        return "—"
    name = table.get(str(key))
    return f"{name} ({key})" if name else str(key)


def error_label(code: str | None) -> str:
    """``违规动作 illegal_action`` style label of an error code."""
    if not code:
        return "—"
    name = ERROR_CODES.get(code)
    return f"{name} {code}" if name else code
