"""桂林字牌 (seed 001_b125067d32c1f7d7.txt): 80 cards, 3 players, 胡 → 舵, 扫/过扫/扫穿/开舵, 上中下醒.

Files by role: ``options.py`` (rule options), ``scoring.py`` (shapes, 胡 table, best split, 吃 and
下比, 舵, 醒), ``_kernel.py`` (the best split and 吃 by packed searches, held to scoring.py), ``state.py`` (the game as a state machine: acts, claim windows, forced acts,
settlement), ``cases.py`` (spec §8 score cases as engine positions, judged by
replay/judge.py), ``bots.py`` (simulator players). Rules doc: ``docs/rules/guilin.md``.
"""

from __future__ import annotations

from replay.cards import ZIPAI
from replay.variants import _BASE, Entry, VariantSpec
from replay.variants.guilin.options import OPTIONS

STATE = Entry("replay.variants.guilin.state:GuilinState")
POSITION = Entry("replay.variants.guilin.cases:position")  # spec §8 score cases, judged by the engine

SPEC = VariantSpec(
    id="guilin",
    seed="001_b125067d32c1f7d7.txt",
    deck=ZIPAI,
    players=(3,),
    acts=_BASE | {"chi", "peng", "sao", "guo_sao", "sao_chuan", "kai_duo"},
    options=OPTIONS,
    state=STATE,
    hand_sizes=lambda n: (21, 20),  # 001 §技巧攻略: 三人抓满20张牌，仅庄家抓满21张牌
    position=POSITION,
)
