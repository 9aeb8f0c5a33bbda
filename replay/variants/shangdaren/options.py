"""上大人 rule options. Each point that seed 002 §上大人 leaves open is an option; the default is
the seed's literal or first-listed reading, or (where §上大人 is silent) the reading derived from
the 花牌 sections of the same file. docs/rules/shangdaren.md says why, option by option.

Kinds (replay/options.py): ``pengpeng_scope`` (the +2 分 is added after the class is reached,
scoring.classify) and ``fang_pao`` (who pays) are ``scoring``; every other option moves the 胡 of a
hand (and so whether it reaches a class: 11 / 21 胡), a shape, a claim or the wall: ``play``."""

from replay.options import RuleOption

S = "002_f9a80b28e0fcbf1a.txt"

OPTIONS = (
    RuleOption("players", 3, (3, 4), f"{S} §上大人 (silent); sokol.cn novel text (三垛, 除庄家外每人起十九张)",
               "Seats at the table. Deal: dealer 20, others 19 (SPEC.hand_sizes); wall 38 (3) or 19 (4).", kind="play"),
    RuleOption("hu_scale", "by_copies", ("by_copies", "face", "flat"),
               f"{S} §三精花牌 3 計胡規則 (derived); flat: a public 上大人 engine",
               "胡 of a three / four of a kind. by_copies: a three (3 of 4 copies) as the 花牌 扎 (4 of 5): "
               "red 4, green/black 2, 精 10; a four (all copies) as the 泛 (團圓): 8 / 4 / 20. "
               "face: the 花牌 坎/扎 values as written: three 2 / 1 / 5, four 4 / 2 / 10. "
               "flat (any colour): 坎 3 in the hand, 2 when 對'd; a four (毛/開毛, 招) 6; 精坎 12, 精招 16.", kind="play"),
    RuleOption("green_as", "black", ("black", "red"), f"{S} §三精花牌 3 (紅字/黑字 only)",
               "胡 of green cards: counted as black (the 花牌 scheme knows only red and not red) or as red.", kind="play"),
    RuleOption("zhu_jing", "none", ("none", "double"), f"{S} §三精花牌 3 (主精…全部翻一倍); §上大人 names no 主精",
               "none: 主精 is only reported; double: every group of the 主精 is worth twice its 胡.", kind="play"),
    RuleOption("ting_tou", "ju_or_pair", ("ju_or_pair", "pair"), f"{S} §三精花牌 4 (聽頭: 一句牌中的任意兩個…1對也可)",
               "The two cards left beside the six groups: a pair or any two of one phrase; or a pair only.", kind="play"),
    RuleOption("ting_tou_jing", 0, (0, 8), f"{S} §三精花牌 4 (聽頭, no 胡 given); 8: a public 上大人 engine (金對)",
               "胡 of a 聽頭 that is a pair of 精 (金對: 上上, 七七, 福福): 0 (the 聽頭 is no group) or 8. "
               "Any other 聽頭 is 0.", kind="play"),
    RuleOption("ku_hu_min", 11, (11, 0), f"{S} §上大人 2c (枯胡（要有11個胡）… 這種牌型對胡的多少沒有要求)",
               "Minimum 胡 of 枯胡: 11 (the first-written reading) or none.", kind="play"),
    RuleOption("hei_hu_min", 0, (0, 11), f"{S} §上大人 2d (no minimum written)",
               "Minimum 胡 of 黑胡 (all black or all green): none (as written) or 11.", kind="play"),
    RuleOption("pengpeng_scope", "jing", ("jing", "taihu_fan", "all"),
               f"{S} §上大人 3a (…51胡的台胡翻算12分（如果是碰碰胡的話就在原有的基礎分上加2分）)",
               "碰碰胡 +2 分 on every 精 class (the sentence of 3a the note closes), only on 台胡翻 (the class "
               "the note follows), or on every class.", kind="scoring"),
    RuleOption("fang_pao", "one", ("one", "all"), f"{S} §上大人 3a (自摸是一人2分，放的是2分)",
               "A win on a discard: the discarder pays one share (as written) or every loser's share.", kind="scoring"),
    RuleOption("dui_from", "any", ("any", "shang_wei"), f"{S} §上大人 1c, 1d (你的上家或是尾家打的一張)",
               "Whose discard a seat may 對 / 開毛 at a 4-seat table (with 3 the 上家 and the 尾家 are both other "
               "seats): any other seat ('any', the engine's reading since it was written; decision 3) or its "
               "上家 and 尾家 (下家) only ('shang_wei': the 對家's discard is refused).", kind="play"),
    RuleOption("mashang_dui", "after_hu", ("after_hu", "before_hu"),
               f"{S} §三精花牌 2 (如是上家打出可以馬上“對”); §上大人 1b ranks 對 over 吃 only",
               "after_hu: every seat's 胡 on a discard ranks before any 對. before_hu: the discarder's 下家 "
               "may 對 at once (馬上), ahead of another seat's 胡 on that card.", kind="play"),
    RuleOption("yao_pai", "tail", ("tail", "front"), f"{S} §上大人 1d (開毛…從桌面上的腰牌中取一張) vs 1e (毛…從牌墩上層取一張)",
               "Where the 開毛 replacement comes from: the back of the wall (腰牌 is a pile apart from the top "
               "of the stack) or the front like 毛.", kind="play"),
)
