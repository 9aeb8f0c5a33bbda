"""花牌 family rule options (sanjing_huapai, wujing_huapai, shuangbiegan_huapai). Each reading the
seed 002_f9a80b28e0fcbf1a.txt leaves open is an option; the default is the seed's literal reading
or, where it says nothing, the decision docs/rules/huapai.md explains."""

from replay.options import RuleOption

S = "002_f9a80b28e0fcbf1a.txt"

OPTIONS = (
    RuleOption("zhu_jing_tie", "best", ("best", "deck_order"), f"{S} §定精方法 (系統自動判定所持最多者為主精)",
               "Several 精 held equally often: 'best' = the one that gives the winner the most 胡 (the engine "
               "reads every tie, as it reads every 賴); 'deck_order' = the first in deck order (乙 三 五 七 九)."),
    RuleOption("dui_hu", "kan", ("kan", "half"), f"{S} §3 計胡規則 (no value given for a 對)",
               "胡 of a 對 on the table: 'kan' = as a 坎 of the same cards (three alike, shown); 'half' = half of "
               "that, rounded down (the 字牌 analogy: 碰 is half a 坎, 001_b125067d32c1f7d7.txt §玩法规则)."),
    RuleOption("tingtou_jing", "zero", ("zero", "count"), f"{S} §3 計胡規則 (精放在句中), §4 聽頭",
               "精 in the 聽頭: 'zero' = no 胡 (the seed credits 精 only in 句, 坎, 扎, 泛); 'count' = 1 素 / 2 花 "
               "each, as in a 句."),
)
