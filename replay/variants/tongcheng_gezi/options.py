"""通城個子牌 rule options. Each open reading of seed 000 (and the 通城個子 introduction of 002) is
an option; defaults follow the seeds' literal or first-listed reading (docs/rules/tongcheng_gezi.md
says why, option by option).

Kinds (replay/options.py): ``zimo_pay``, ``special_base`` and ``gezi_per_fen_3p`` are ``scoring`` —
they change only the 分 of a win (end_win, scoring.Judgement.units), never the 個子 count that the
7 / 9-個子 minimum gates (scoring.MIN_GEZI); every other option moves legality, the wall or the
個子 of a group, so it is ``play``."""

from replay.options import RuleOption

S = "000_b93a380aaaa9b6e3.txt"
S2 = "002_f9a80b28e0fcbf1a.txt"

OPTIONS = (
    RuleOption("players", 4, (4, 3), f"{S} §遊戲介紹 (三人或者四人); {S2} §通城個子簡介 (人數非得有四人)",
               "Seats at the table. 4 (002: 人數非得有四人; the 7-個子 minimum both seeds give first is the "
               "four-player one) or 3 (000 allows it, with a 9-個子 minimum). Must equal the record's seat count.", kind="play"),
    RuleOption("zimo_pay", "one_share", ("one_share", "triple"), f"{S} §計分規則 (自摸在此捉衝的基礎上翻三倍.另外三個每人出一份)",
               "自摸: each other seat pays one share, as if each had dealt in (算三人都放衝一樣出分: the winner's "
               "total is three times a 抓衝 win) — or 'triple': each other seat pays three shares.", kind="scoring"),
    RuleOption("special_base", "max1", ("max1", "one"), f"{S} §胡牌規則, §計分規則 (一手黑3倍。一手紅10倍.十對2倍)",
               "A special hand's 分: its factor × max(1, ⌊個子/7⌋) ('max1': 倍 multiplies the 夾倍 count, "
               "at least 1) or its factor alone ('one').", kind="scoring"),
    RuleOption("claim_order", "hu_first", ("hu_first", "seat_order"), f"{S} §操作規則 碰 (上家...下家 must wait)",
               "Several claims on one discard: 胡 before 碰/招/滑, each in turn order after the discarder "
               "('hu_first', as in 麻雀, which the seed compares to) — or every claim purely in turn order.", kind="play"),
    RuleOption("shidui_four", "two_pairs", ("two_pairs", "no"), f"{S} §胡牌規則 (十對: 手上成為十個對子)",
               "十對: four of a kind counts as two 對子 ('two_pairs') or is not allowed ('no').", kind="play"),
    RuleOption("jian_kan", "allowed", ("allowed", "refused"), f"{S} §操作規則 撿 (唯一限製的是不能與相同的牌配合起來碰招觀生與滑.隻可以用來與其它的牌組合起來使用)",
               "A 撿 card in the winning split: it may sit in a 坎 or the 半句 pair ('allowed': the seed names only "
               "碰 招 觀生 滑) or only in a 句 or a 半句 of two characters ('refused': 隻可以用來與其它的牌組合; a public "
               "湖北个子牌 server). 'refused' also rules out 十對 with a 撿 card.", kind="play"),
    RuleOption("peng_gezi", "kan", ("kan", "low"), f"{S} §計胡規則 (1坎 red 2 / black 1; 碰 not valued)",
               "個子 of a 碰: as a 坎 ('kan': red 2, black 1 — the seed values 坎 and names no 碰 value) or red 1, "
               "black 0 ('low': a public 湖北个子牌 server).", kind="play"),
    RuleOption("win_triple", "kan", ("kan", "peng"), f"{S} §計胡規則, §胡牌規則 (坎: 相同三字; the won-on card not named)",
               "A concealed triple that needs the won-on discard: a 坎 ('kan': three alike in the winning hand) or a "
               "碰 ('peng', valued by option peng_gezi: the card came from another seat, as in a public server).", kind="play"),
    RuleOption("win_pair", "allowed", ("allowed", "refused"), f"{S} §胡牌規則 (最後兩隻牌隻要能組成半句牌)",
               "Whether the won-on discard may make the 半句 pair (two alike): 'allowed' (any 半句, the seed's words) "
               "or 'refused' (it may complete a 句 or a 半句 of two characters only; a public server).", kind="play"),
    RuleOption("jian_discard", "allowed", ("allowed", "refused"), f"{S} §操作規則 撿 (撿來的牌可以當成摸來的牌差不多)",
               "Discarding, right after a 撿, a card of the kind just 撿ed: 'allowed' (the card is as if drawn) or "
               "'refused' (a public server; rule id jian_discard).", kind="play"),
    RuleOption("gezi_per_fen_3p", 7, (7, 9), f"{S} §計分規則 (7個個子數起為1分), §胡牌規則 (3個人打需要9個個子數)",
               "個子 per 分 at a 3-seat table: 7 (the seed's one 分 table, 7 → 1, 14 → 2) or 9 (the 3-seat minimum "
               "as the unit, 9 → 1, 18 → 2; a public server). Four seats: always 7.", kind="scoring"),
    RuleOption("bu_pai", "front", ("front", "tail"), f"{S} §操作規則 招 (在牌面起一張牌); {S2} (扎: 在牌底起一張)",
               "Where the replacement after 招 / 觀生 / 滑 comes from: the front of the wall (牌面, default) "
               "or its back (`tail`).", kind="play"),
    RuleOption("tian_hu", "allowed", ("allowed", "refused"), f"{S} §胡牌規則 (names 抓別人的牌 and 自摸 only; silent on 天胡)",
               "The dealer's 胡 on its 20 dealt cards before its first discard (天胡, paid like 自摸): 'allowed' "
               "(decision 7, the engine's reading since it was written) or 'refused' (the 花牌 family's reading of "
               "the same silence, docs/rules/huapai.md decision 6; rule id tian_hu).", kind="play"),
    RuleOption("hua_held", "allowed", ("allowed", "refused"), f"{S} §操作規則 滑 (手中有1觀生有四個的牌，自己又摸到第五張相同的牌)",
               "滑 from the hand of a fifth the seat already held when it declared the 觀生 (five dealt or drawn "
               "alike, four laid): 'allowed' (the engine's reading since it was written: the fifth was 摸到 too, "
               "decision 12) or 'refused' (又摸到: the fifth must come after the 觀生, by the seat's own draw or "
               "another seat's discard; the held one stays an ordinary card; rule id hua_held).", kind="play"),
)
