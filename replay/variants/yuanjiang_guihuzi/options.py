"""沅江鬼胡子 rule options. Each open reading of seed 003 is an option; the default is the seed's
literal or first-listed reading (docs/rules/yuanjiang_guihuzi.md says why, option by option).

Kinds (replay/options.py): ``wei_display`` (the audit view only), ``dahu_combine``, ``yuan_stack``,
``piao_bonus``, ``xi_cap`` (the final 息, computed after a reading is known to be a win:
scoring.judge), ``flip_payer`` (who pays) and ``wuxi_ping`` (which reading of a 0-息 hand is scored:
its 无息平 reading is a win whatever the value) are ``scoring``. ``baoting`` is ``play``: 报听 meets
the 起胡条件, so ``off`` can refuse a logged 胡; so are the options that bar a reading or change a
shape, a claim or the seats."""

from replay.options import RuleOption

S = "003_50360bd1f53fc819.txt"

OPTIONS = (
    RuleOption("piao", True, (True, False), f"{S} §名词解析 ③ (飘: 碰后自己摸起一个。可选【飘】)",
               "True: 飘 is played (a 碰 upgraded by one's own flip of the 4th); False: the room has 飘 off.", kind="play"),
    RuleOption("wei_display", "an_wei", ("an_wei", "ming_wei"), f"{S} §名词解析 ④ ⑤ (暗偎 / 明偎)",
               "暗偎 (first named): others see a 歪/溜 face down; 明偎: one card shown. Only the audit view changes.", kind="scoring"),
    RuleOption("peng_on_flip", True, (True, False), f"{S} §名词解析 ② (碰: 别人打出一张) and §玩法规则 1 (歪/溜>胡>碰>吃)",
               "True: a card another seat flipped may be 碰'd (it counts as that seat's discard, and the priority "
               "list ranks 胡 over 碰 on one card); False: only discards.", kind="play"),
    RuleOption("qihu_scope", "xiaohu", ("xiaohu", "all"), f"{S} §名词解析 5 (起胡条件: 小胡必须满足…)",
               "xiaohu: the 坎/歪/圆/单歪 condition binds only a 小胡 (no hand type), as written; all: every win "
               "except 十对, 九对半, 无息平, 花胡子.", kind="play"),
    RuleOption("dahu_combine", "sum", ("sum", "max", "product"), f"{S} §牌型说明 (包含关系的牌型不重复计算)",
               "How the 息 of several 大胡 hand types combine: sum (only the listed inclusions are not stacked), "
               "max (the highest alone) or product (multiplied, as an independent implementation does).", kind="scoring"),
    RuleOption("yuan_stack", "each", ("each", "once"), f"{S} §息数和算分 (…*内圆*外圆…)",
               "each: ×4 per 内圆 and ×2 per 外圆; once: ×4 if any 内圆, ×2 if any 外圆.", kind="scoring"),
    RuleOption("piao_bonus", 5, (5, 0), f"{S} §息数和算分 (溜、飘(四张):1息; 【5硬息】 list cut after ⑤溜:+5)",
               "+息 per 飘 in the score: 5 (as 溜, listed with it) or 0 (only 坎/歪/溜 are named).", kind="scoring"),
    RuleOption("flip_payer", "each", ("each", "drawer"), "log-format.md §5 (scores); 003 is silent",
               "A win on a card another seat flipped: each loser pays one share (each), or the seat that flipped "
               "it pays both (drawer).", kind="scoring"),
    RuleOption("baoting", "auto", ("auto", "off"), f"{S} §胡牌胡型 2 (报听 ×4)",
               "auto: 报听 holds when the seat was 听 from its start (the dealer: after its first discard, with no "
               "吃, 碰 or 歪 before it) and won without a 动张 since: no discard, 吃 or 碰 (歪→胡, 歪→溜 and 溜 are "
               "not 动张); off: never.", kind="play"),
    RuleOption("hanghang_with_menzi", True, (True, False), f"{S} §胡牌胡型 12 (行行息: 每组牌都有息) and §息数和算分",
               "True: the 门子 is one of the groups and must have 息 too (a pair or two of 二七十); False: only full groups.", kind="play"),
    RuleOption("qihu_xi", 0, (0, 5), f"{S} §胡牌胡型 3 (十对: 不用成牌不用满足5息), §名词解析 5 (起胡条件 … 只针对5硬息玩法)",
               "0: no count of 息 is needed — the seed's 5息 is the 5硬息 of its 5硬息玩法, whose condition is "
               "起胡条件 (a 坎, 歪, 圆 or 单歪: each worth +5), enforced anyway; 5: besides, the groups of the "
               "winning split (melds and 门子 included) must hold 5 息 by §息数和算分, except 十对, 九对半, "
               "无息平 and 花胡子.", kind="play"),
    RuleOption("xi_cap", 0, (0, 200), f"{S} §息数和算分 (no cap named); a public server caps at 200 息",
               "0: no cap; 200: a win's final 息 (points and units) is at most 200.", kind="scoring"),
    RuleOption("jiudui_ban", "any", ("any", "dealt"), f"{S} §胡牌胡型 16 (九对半: 有9组对子,即可胡牌 … 同十对)",
               "any: 九对半 wins whenever the 20 concealed cards hold 9 pairs (as 十对, no time named); dealt: only "
               "on the dealt hand (the seat has discarded and claimed nothing yet).", kind="play"),
    RuleOption("peng_own_discard", False, (False, True), f"{S} §玩法规则 3 ② (不能吃自己出过的牌)",
               "False: a seat's own discard closes only 吃 of that card, as written; True: it closes 碰 of it too.", kind="play"),
    RuleOption("players", 3, (3, 2), f"{S} §3 发牌 (庄家20张,闲家19张: the number of 闲家 is not given)",
               "3 seats (a 22-card wall; the table paipu played before the option) or 2 (the same 20/19 deal, "
               "a 41-card wall; each seat is the other's 下家).", kind="play"),
    RuleOption("wuxi_ping", "only", ("only", "higher"), f"{S} §胡牌胡型 4 (无息平胡: 一息没有形成成牌牌型,…允许胡牌不能叠加牌型,50息)",
               "A hand whose winning split has no 息 (no meld) is 无息平 (or 花胡子). only: that type alone, even when "
               "the hand is also 大字胡, 小字胡, 全黑胡, 一点红, 十三红 or 天胡; higher: it scores as the higher of 无息平 "
               "(花胡子) and those other types together (dahu_combine), never both; an equal score stays 无息平.",
               kind="scoring"),
)
