"""Rule options of the 桂林字牌 / 字牌 family (guilin = seed 001, zipai = seed 004).

One option list serves both variants with different defaults, so that every difference between
them is an option of the shared code (an operator can run guilin with 翻醒 or zipai with 逢5进1).
Defaults follow each seed's first-listed or literal reading; docs/rules/guilin.md and
docs/rules/zipai.md say why, option by option.
"""

from __future__ import annotations

from replay.options import RuleOption

G = "001_b125067d32c1f7d7.txt"
Z = "004_d2ed00504ff040a5.txt"

# name: (allowed, guilin default, zipai default, source, doc)
_TABLE: dict[str, tuple[tuple, object, object, str, str]] = {
    "tuo_step": ((5, 3), 5, 3, f"{G} §玩法规则 1–2; {Z} §胡息及舵 2–5",
                 "胡 per extra 舵 above 10: 5 = 逢5进1, 3 = 逢3进1 (zipai: 10–12 → 1, 13–15 → 2, …)."),
    "zimo_bonus": (("plus1", "double"), "plus1", "double", f"{G} §玩法规则 (自摸+1舵(也可以定为翻倍)); {Z} §胡息及舵 6",
                   "自摸: +1 舵 or ×2 舵."),
    "haidi_double": ((False, True), False, True, f"{Z} §胡息及舵 6 (海底胡 ×2)",
                     "海底 (winning on the last card of the wall): ×2 舵."),
    "dian_pao_bu_zhun_hu": ((False, True), False, False, f"{G} §点炮不准胡规则",
                            "True: only cards flipped from the wall can be won, never a discard."),
    "fang_pao_bi_hu": ((False, True), False, True, f"{Z} §3.打牌 6 (放炮必胡)",
                       "True: a seat that can win on a discard must (a forced 胡)."),
    "sanlong_wukan": ((True, False), True, False, f"{G} §玩法规则 (三笼五坎); absent from {Z}",
                      "三笼五坎 (three dealt fours or five dealt 坎) wins at the start."),
    "sanlong_wukan_long_as_kan": ((True, False), True, True, f"{G} §玩法规则 (三笼五坎)",
                                  "Whether a dealt four (笼) also counts as one of the five 坎."),
    "dealt_four": (("in_hand", "lay_down_pairs"), "in_hand", "lay_down_pairs", f"{G} §玩法规则 (起手摸到手上的四张); {Z} §3.打牌 4",
                   "in_hand: a dealt four stays in the hand, locked. lay_down_pairs: one dealt four stays in hand; "
                   "two or more are laid face down (sao_chuan) before the first discard and one replacement card is "
                   "drawn into the hand (to_hand)."),
    "xing_mode": (("shangzhongxia", "fanxing", "shangxia"), "shangzhongxia", "fanxing",
                  f"{G} §翻上中下醒; {Z} §胡息及舵 7; shangxia: docs/rules/guilin.md decision 18",
                  "上中下醒: the turned card and its neighbours count; 翻醒: the turned card counts, turning again on 4; "
                  "上下醒: the turned card's neighbours count (not the card itself), turning again while the winner "
                  "holds all 4 of either."),
    "fanxing_offset": ((0, 1), 0, 0, f"{Z} §胡息及舵 7 (翻+1做醒)",
                       "翻醒: 0 = the turned card is the 醒; 1 = the card one above it is (a reading of 翻+1做醒)."),
    "score_parts": (("tuo", "fen"), "tuo", "fen", f"{Z} §5 (醒分=难度×醒, 胡牌分数=舵数×…×难度)",
                    "How `breakdown` names the parts: tuo/zimo/xing (guilin) or hu_fen/xing_fen (zipai)."),
    "sao_kai_duo_on_discard": ((False, True), False, False, f"{G} §开舵 (扫的开舵: 无论谁摸出第4张牌)",
                               "False: only a drawn 4th card opens a 扫 (the seed says 摸出); True: a discarded one too."),
    "peng_kai_duo_on_other_flip": ((False, True), False, False,
                                   f"{G} §开舵 (碰的开舵: 自己摸出第4张牌; 其他人手中打出的牌是不能让碰牌开舵的); decision 17",
                                   "False: only one's own draw of the 4th card opens a 碰 (the seed's words); True: another "
                                   "seat's draw opens it too (forced, as the 扫's 开舵); a discard never does."),
    "bi_without_group": (("allowed", "blocks"), "allowed", "allowed", f"{G} §技巧攻略 下张(下伙); {Z} §3 4",
                         "A copy of the eaten card left in hand that can form no 吃 shape: 'allowed' (only a copy "
                         "that can is owed) or 'blocks' (the 跑胡子 reading: no 吃 at all)."),
    "hu_triple": (("peng", "zero"), "peng", "zero", f"{Z} §胡息及舵 1 (胡牌不算胡息)",
                  "A hand pair completed by another seat's winning card: counted as a 碰 (3/1) or 0 胡."),
    "chi_discard": ((True, False), True, False, f"{G} §技巧攻略 (下家可吃可碰，上家可碰不能吃); {Z} §3.打牌 2 (吃: 上家或自己摸起的牌)",
                    "True: the 下家 may 吃 a discard (guilin); False: only a card turned up from the wall by "
                    "oneself or the 上家 may be eaten (zipai)."),
    "xing_multiplied": ((False, True), False, False,
                        f"{G} §玩法规则 (有醒牌每一张 1舵; 天胡、地胡、三笼五坎x2舵; 自摸也可以定为翻倍); {Z} §5 (醒分 apart from 胡分)",
                        "False: the ×2 of 天胡/地胡/三笼五坎, 海底 and zimo_bonus=double multiply the 舵 of the 胡 only, "
                        "醒 is added after; True: 醒 joins the 舵 first and is multiplied too (a public server's reading)."),
    "chong_duo_next": (("claimer_xiajia", "source_xiajia"), "claimer_xiajia", "claimer_xiajia",
                       f"{G} §技巧攻略 (重舵的情况，摸牌后不打牌); spec §4 (the 下家 of the last seat that discarded)",
                       "Who draws after a claim that is not followed by a discard (重舵, 听 with two dealt fours): the "
                       "claimer's 下家, or the 下家 of the seat the claimed card came from."),
    "chou_pai_peng": ((False, True), False, False,
                      f"{Z} §3.打牌 3 (臭牌, its cut characters 碰没碰碰 put back: 可吃碰的牌没有吃碰 … 再次打出或摸起同张牌时，"
                      f"不能进行吃碰操作); {G} §技巧攻略 臭牌 (吃 only); docs/rules/zipai.md decision 10",
                      "False: 臭牌 closes only 吃 (001); True: a card a seat could 碰 and did not may never be 碰'd by "
                      "it again (its own later draw of it is still a 过扫)."),
    "peng_discard": ((True, False), True, True,
                     f"{G} §碰 (别家摸或打出相同的第三张); {Z} §3.打牌 5 (碰: 别家摸起1张相同牌); docs/rules/zipai.md decision 11",
                     "True: a 碰 takes another seat's flip or discard; False: only a card another seat turned up from "
                     "the wall (004's 摸起)."),
    "kan_kai_duo_on_discard": ((True, False), True, True,
                               f"{G} §开舵 (起手牌开舵: 别人摸出或打出第4张后就要开舵); {Z} §3 3, second 打牌 block (开舵: 手中1坎别家摸起1张相同牌); "
                               "docs/rules/zipai.md decision 11",
                               "True: another seat's flip or discard of the 4th card opens a dealt 坎 (a forced 开舵); "
                               "False: only a flip does (004's 摸起), and a 胡 on such a discard keeps the 坎 whole."),
}


# Kinds (replay/options.py): these change only the settlement of a win — 舵 and units
# (scoring.settle_units), the 海底 hand type that doubles them, the 醒 cards turned from the wall
# after the win (state.turn_xing: never an event) and how the breakdown is named. The 胡 minimum,
# which 胡 are legal or forced (放炮必胡) and every claim depend on 胡息 only, which none of them
# touches; every other option moves legality, the deal or the turn order, so it is "play".
_SCORING = frozenset({"tuo_step", "zimo_bonus", "haidi_double", "xing_mode", "fanxing_offset", "score_parts",
                      "xing_multiplied"})


def family_options(variant: str) -> tuple[RuleOption, ...]:
    """The options of ``guilin`` or ``zipai`` with that variant's defaults and kinds."""
    col = 1 if variant == "guilin" else 2
    return tuple(RuleOption(name, row[col], row[0], row[3], row[4], kind="scoring" if name in _SCORING else "play")
                 for name, row in _TABLE.items())


OPTIONS = family_options("guilin")
