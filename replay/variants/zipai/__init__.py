"""字牌 — the generic rules sheet (seed 004_d2ed00504ff040a5.txt), same family as 桂林字牌.

One engine: zipai runs guilin's state machine and scoring with its own option defaults
(舵 per 3, 自摸 ×2, 海底 ×2, 放炮必胡, dealt fours laid down in pairs, 翻醒, 醒分/胡分, the winning
card's triple worth 0). Reading of the garbled sheet: docs/rules/zipai.md.
"""

from __future__ import annotations

from replay.cards import ZIPAI
from replay.variants import _BASE, VariantSpec
from replay.variants.guilin import POSITION, STATE
from replay.variants.guilin.options import family_options

SPEC = VariantSpec(
    id="zipai",
    seed="004_d2ed00504ff040a5.txt",
    deck=ZIPAI,
    players=(3,),
    acts=_BASE | {"chi", "peng", "sao", "guo_sao", "sao_chuan", "kai_duo"},
    options=family_options("zipai"),
    state=STATE,
    hand_sizes=lambda n: (21, 20),  # 004 §3.打牌 1: 庄家抓21张，其余2家抓20张
    position=POSITION,
)
