"""桂林字牌 rule options. Each open reading of seed 001 is an option; defaults follow the seed's
first-listed reading or its literal words (docs/rules/guilin.md says why, option by option)."""

from replay.options import RuleOption

S = "001_b125067d32c1f7d7.txt"

OPTIONS = (
    RuleOption("tuo_step", 5, (5, 3), f"{S} §玩法规则 1–2",
               "胡 per extra 舵 above 10: 5 = 逢5进1 (first listed), 3 = 逢3进1."),
    RuleOption("zimo_bonus", "plus1", ("plus1", "double"), f"{S} §玩法规则 (自摸+1舵(也可以定为翻倍))",
               "自摸: +1 舵 (as written) or ×2 舵 (the alternative the seed names)."),
    RuleOption("dian_pao_bu_zhun_hu", False, (False, True), f"{S} §点炮不准胡规则",
               "True: only cards flipped from the wall can be won, never a discard."),
    RuleOption("xing_mode", "shangzhongxia", ("shangzhongxia",), f"{S} §翻上中下醒",
               "上中下醒: the first card left in the wall is 中醒; one higher 上, one lower 下, wrapping."),
    RuleOption("sao_kai_duo_on_discard", False, (False, True), f"{S} §开舵 (扫的开舵: 无论谁摸出第4张牌)",
               "False: only a drawn 4th card opens a 扫 (the seed says 摸出); True: a discarded one too."),
    RuleOption("bi_without_group", "allowed", ("allowed", "blocks"), f"{S} §技巧攻略 下张(下伙)",
               "A copy of the eaten card left in hand that can form no 吃 shape: 'allowed' (the seed obliges "
               "only a copy that can) or 'blocks' (the 跑胡子 reading: no 吃 at all)."),
    RuleOption("hu_triple", "peng", ("peng", "zero"), "004_d2ed00504ff040a5.txt §胡息及舵 1 (胡牌不算胡息)",
               "A hand pair completed by another seat's winning card: counted as a 碰 (3/1) or 0 胡 as 004 says."),
    RuleOption("sanlong_wukan_long_as_kan", True, (True, False), f"{S} §玩法规则 (三笼五坎)",
               "Whether a dealt 4-of-a-kind (笼) also counts as one of the five 坎."),
)
