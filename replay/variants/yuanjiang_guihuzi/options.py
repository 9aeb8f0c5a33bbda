"""沅江鬼胡子 rule options. Each open reading of seed 003 is an option; the default is the seed's
literal or first-listed reading (docs/rules/yuanjiang_guihuzi.md says why, option by option)."""

from replay.options import RuleOption

S = "003_50360bd1f53fc819.txt"

OPTIONS = (
    RuleOption("piao", True, (True, False), f"{S} §名词解析 ③ (飘: 碰后自己摸起一个。可选【飘】)",
               "True: 飘 is played (a 碰 upgraded by one's own flip of the 4th); False: the room has 飘 off."),
    RuleOption("wei_display", "an_wei", ("an_wei", "ming_wei"), f"{S} §名词解析 ④ ⑤ (暗偎 / 明偎)",
               "暗偎 (first named): others see a 歪/溜 face down; 明偎: one card shown. Only the audit view changes."),
    RuleOption("peng_on_flip", True, (True, False), f"{S} §名词解析 ② (碰: 别人打出一张) and §玩法规则 1 (歪/溜>胡>碰>吃)",
               "True: a card another seat flipped may be 碰'd (it counts as that seat's discard, and the priority "
               "list ranks 胡 over 碰 on one card); False: only discards."),
    RuleOption("qihu_scope", "xiaohu", ("xiaohu", "all"), f"{S} §名词解析 5 (起胡条件: 小胡必须满足…)",
               "xiaohu: the 坎/歪/圆/单歪 condition binds only a 小胡 (no hand type), as written; all: every win "
               "except 十对, 九对半, 无息平, 花胡子."),
    RuleOption("dahu_combine", "sum", ("sum", "max"), f"{S} §牌型说明 (包含关系的牌型不重复计算)",
               "How several 大胡 hand types combine: sum (only the listed inclusions are not stacked) or max."),
    RuleOption("yuan_stack", "each", ("each", "once"), f"{S} §息数和算分 (…*内圆*外圆…)",
               "each: ×4 per 内圆 and ×2 per 外圆; once: ×4 if any 内圆, ×2 if any 外圆."),
    RuleOption("piao_bonus", 5, (5, 0), f"{S} §息数和算分 (溜、飘(四张):1息; 【5硬息】 list cut after ⑤溜:+5)",
               "+息 per 飘 in the score: 5 (as 溜, listed with it) or 0 (only 坎/歪/溜 are named)."),
    RuleOption("flip_payer", "each", ("each", "drawer"), "log-format.md §5 (scores); 003 is silent",
               "A win on a card another seat flipped: each loser pays one share (each), or the seat that flipped "
               "it pays both (drawer)."),
    RuleOption("baoting", "auto", ("auto", "off"), f"{S} §胡牌胡型 2 (报听 ×4)",
               "auto: 报听 holds when the seat was 听 from its start (the dealer: after its first discard) and "
               "won without discarding again (歪→胡, 歪→溜 and 溜 are not 动张); off: never."),
    RuleOption("hanghang_with_menzi", True, (True, False), f"{S} §胡牌胡型 12 (行行息: 每组牌都有息) and §息数和算分",
               "True: the 门子 is one of the groups and must have 息 too (a pair or two of 二七十); False: only full groups."),
)
