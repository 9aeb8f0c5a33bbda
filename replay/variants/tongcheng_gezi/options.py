"""通城個子牌 rule options. Each open reading of seed 000 (and the 通城個子 introduction of 002) is
an option; defaults follow the seeds' literal or first-listed reading (docs/rules/tongcheng_gezi.md
says why, option by option)."""

from replay.options import RuleOption

S = "000_b93a380aaaa9b6e3.txt"
S2 = "002_f9a80b28e0fcbf1a.txt"

OPTIONS = (
    RuleOption("players", 4, (4, 3), f"{S} §遊戲介紹 (三人或者四人); {S2} §通城個子簡介 (人數非得有四人)",
               "Seats at the table. 4 (002: 人數非得有四人; the 7-個子 minimum both seeds give first is the "
               "four-player one) or 3 (000 allows it, with a 9-個子 minimum). Must equal the record's seat count."),
    RuleOption("zimo_pay", "one_share", ("one_share", "triple"), f"{S} §計分規則 (自摸在此捉衝的基礎上翻三倍.另外三個每人出一份)",
               "自摸: each other seat pays one share, as if each had dealt in (算三人都放衝一樣出分: the winner's "
               "total is three times a 抓衝 win) — or 'triple': each other seat pays three shares."),
    RuleOption("special_base", "max1", ("max1", "one"), f"{S} §胡牌規則, §計分規則 (一手黑3倍。一手紅10倍.十對2倍)",
               "A special hand's 分: its factor × max(1, ⌊個子/7⌋) ('max1': 倍 multiplies the 夾倍 count, "
               "at least 1) or its factor alone ('one')."),
    RuleOption("claim_order", "hu_first", ("hu_first", "seat_order"), f"{S} §操作規則 碰 (上家...下家 must wait)",
               "Several claims on one discard: 胡 before 碰/招/滑, each in turn order after the discarder "
               "('hu_first', as in 麻雀, which the seed compares to) — or every claim purely in turn order."),
    RuleOption("shidui_four", "two_pairs", ("two_pairs", "no"), f"{S} §胡牌規則 (十對: 手上成為十個對子)",
               "十對: four of a kind counts as two 對子 ('two_pairs') or is not allowed ('no')."),
    RuleOption("bu_pai", "front", ("front", "tail"), f"{S} §操作規則 招 (在牌面起一張牌); {S2} (扎: 在牌底起一張)",
               "Where the replacement after 招 / 觀生 / 滑 comes from: the front of the wall (牌面, default) "
               "or its back (`tail`)."),
)
