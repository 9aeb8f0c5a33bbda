"""花牌 family rule options (sanjing_huapai, wujing_huapai, shuangbiegan_huapai). Each reading the
seed 002_f9a80b28e0fcbf1a.txt leaves open is an option; the default is the seed's literal reading,
the decision docs/rules/huapai.md explains where it says nothing, or (qing_tong_kai_fan) the
engine's behaviour before the option, which a published default keeps (spec §7; decision 17).

Kinds (replay/options.py): every option is ``play``. The ones that only value groups (zhu_jing_tie,
dui_hu, tingtou_jing, lai_hu) still move a hand across the 17-胡 minimum (002 §4, scoring.MIN_HU):
a logged 胡 can be refused under the other value, or a seat gains a 胡 option it did not have, so a
logged game cannot be re-settled exactly under them; the others change shapes, the wall, what a seat
may claim or the order of claims."""

from replay.options import RuleOption

S = "002_f9a80b28e0fcbf1a.txt"

OPTIONS = (
    RuleOption("zhu_jing_tie", "best", ("best", "deck_order"), f"{S} §定精方法 (系統自動判定所持最多者為主精)",
               "Several 精 held equally often: 'best' = the one that gives the winner the most 胡 (the engine "
               "reads every tie, as it reads every 賴; of equal 胡 the first of 乙 三 五 七 九); 'deck_order' = the "
               "first of 乙 三 五 七 九, the order 定精方法 names them.", kind="play"),
    RuleOption("dui_hu", "kan", ("kan", "half"), f"{S} §3 計胡規則 (no value given for a 對)",
               "胡 of a 對 on the table: 'kan' = as a 坎 of the same cards (three alike, shown); 'half' = half of "
               "that, rounded down (the 字牌 analogy: 碰 is half a 坎, 001_b125067d32c1f7d7.txt §玩法规则).", kind="play"),
    RuleOption("tingtou_jing", "zero", ("zero", "count"), f"{S} §3 計胡規則 (精放在句中), §4 聽頭",
               "精 in the 聽頭: 'zero' = no 胡 (the seed credits 精 only in 句, 坎, 扎, 泛); 'count' = 1 素 / 2 花 "
               "each, as in a 句.", kind="play"),
    RuleOption("zha_in_hand", "group", ("group", "eight_groups"), f"{S} §1 牌型組合 (扎/泛 作一句), §4 胡牌規則",
               "Four or five alike held in hand, never declared: 'group' = a 扎 / 泛 group of the win (scored "
               "as one); 'eight_groups' = not a group: the hand must be 8 groups + 聽頭 (26 cards, every "
               "declared 扎/招/泛 one group with its replacements), so the hand holds only 句 and 坎 (a public "
               "宜昌 engine).", kind="play"),
    RuleOption("fan_from_hand", "no", ("no", "yes"), f"{S} §2 開泛 (手中有1扎，或招過1扎牌，自己起到同一張字)",
               "'no' = 開泛 only upgrades a 扎 or 招 on the table; 'yes' = four alike held in hand and the 5th "
               "drawn may be laid at once as a 泛 (`kai_fan` with `cards` = the four), and five dealt alike "
               "at 請統 (`cards` = the five): two replacements from the 牌底, as a 扎 and a 開泛 would draw.", kind="play"),
    RuleOption("bu_pai_empty", "refuse", ("refuse", "huang"), f"{S} §2 扎 (在牌底起一張牌), 招 (在牌面起一張牌), 開泛",
               "扎, 招 or 開泛 when the wall holds no replacement: 'refuse' = not allowed (illegal_action "
               "`bu_pai_empty`: the act is defined with its replacement draw), as 上大人 refuses 毛 and 開毛 there; "
               "'huang' = accepted, and the hand ends drawn (荒庄) without a discard.", kind="play"),
    RuleOption("lai_hu", "hua", ("hua", "gongan"), f"{S} §雙別桿花牌 定精方法 (賴子可作為任一精（代花三五七）), §3",
               "胡 of a 精 group holding a 賴: 'hua' = a 賴 is one more flowered copy (+1 / +2 / +4 a 花 in 坎 / "
               "扎 / 泛: 坎 2花1賴 8, 七 泛 1素2花2賴 36; 16 and 72 as 主精); 'gongan' = a public 公安 engine's "
               "table: by the flowered copies f = 花 + 賴, a 扎 / 泛 twice / four times 6, 7, 9, 12 at f = "
               "1…4, a 坎 5 + f with a 素 copy, 2花1賴 9, 1花2賴 12 (七 泛 1素2花2賴 48; 18, 24 and 96 as 主精).",
               kind="play"),
    RuleOption("zhao_bu_from", "front", ("front", "tail"), f"{S} §2 招 (但是在牌面起一張牌)",
               "Where the replacement after a 招 comes from: 'front' = the front of the wall, as the seed says "
               "(牌面); 'tail' = the 牌底, like 扎 and 開泛 (an independent 宜昌/枝江 engine).", kind="play"),
    RuleOption("dui_limit", "none", ("none", 2), f"{S} §2 對 (一局內限“對”2對 … 如果對了3次以上 … 由此人承“包”)",
               "'none' = a seat may 對 any number of times; from its 3rd 對 it owes 承包 (it pays both losers' "
               "shares if another seat wins); 2 = a seat's 3rd 對 is refused (illegal_action `dui`), so no "
               "承包 ever arises (an independent engine's 限2对).", kind="play"),
    RuleOption("mashang_dui", "after_hu", ("after_hu", "before_hu"), f"{S} §2 對 (如是上家打出可以馬上“對”)",
               "after_hu: every seat's 胡 on a discard ranks before any 對. before_hu: the discarder's 下家 may 對 at "
               "once (馬上), ahead of another seat's 胡 on that card (as 上大人's option of the same name).", kind="play"),
    RuleOption("qing_tong_kai_fan", "no", ("no", "yes"), f"{S} §2 開泛 (手中有1扎…自己起到同一張字，可以再“扎”一次), 扎 (請統)",
               "'no' = a 請統 replacement opens no turn, so the 5th of a 扎 drawn as one is never 開泛'd; 'yes' = "
               "the seat that just drew it may 開泛 it at 請統 (`kai_fan` with `card`, no `cards`; one replacement "
               "from the 牌底), in its 請統 turn.", kind="play"),
)
