"""通城個子牌 (seed 000_b93a380aaaa9b6e3.txt; 002_f9a80b28e0fcbf1a.txt §通城個子簡介): the 花牌 deck of
110 cards, 3 or 4 players, 撿/碰/招/觀生/滑, 六句半 with a minimum of 個子, 分 = ⌊個子/7⌋.

Files by role: ``options.py`` (rule options), ``scoring.py`` (個子 per card and group, 句, the
六句半 split, special hands), ``state.py`` (the game as a state machine: acts, claim windows,
settlement), ``cases.py`` (spec §8 score cases as engine positions), ``bots.py`` (simulator
players). Rules doc: ``docs/rules/tongcheng_gezi.md``.
"""

from __future__ import annotations

from replay.cards import HUAPAI
from replay.variants import _BASE, Entry, VariantSpec
from replay.variants.tongcheng_gezi.options import OPTIONS

SPEC = VariantSpec(
    id="tongcheng_gezi",
    seed="000_b93a380aaaa9b6e3.txt",
    deck=HUAPAI,
    players=(4, 3),  # the first is the simulator's default, as option `players` (002: 人數非得有四人)
    acts=_BASE | {"jian", "peng", "zhao", "guan_sheng", "hua"},
    options=OPTIONS,
    state=Entry("replay.variants.tongcheng_gezi.state:GeziState"),
    hand_sizes=lambda n: (20, 19),  # 000 §遊戲介紹: 每人起牌19張，莊家起20張
    position=Entry("replay.variants.tongcheng_gezi.cases:position"),
)
