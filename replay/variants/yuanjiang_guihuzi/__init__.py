"""沅江鬼胡子 (seed 003_50360bd1f53fc819.txt): 80 cards, 3 (or 2) players, 坎/碰/飘/歪/溜, 门子, 16 hand types, 息.

Files by role: ``options.py`` (rule options), ``scoring.py`` (sentences, 门子, the best split, hand
types, the 息 formula, 理牌), ``_kernel.py`` (the shape test and per-hand shapes packed, held to
scoring.py), ``state.py`` (the game as a state machine: acts, priority, 过吃/过碰/锁牌,
settlement), ``cases.py`` (spec §8 score cases as engine positions, and back), ``bots.py``
(simulator players), ``dingzhuang.py`` (定庄 across a table's hands).
Rules doc: ``docs/rules/yuanjiang_guihuzi.md``.
"""

from __future__ import annotations

from replay.cards import ZIPAI
from replay.variants import _BASE, Entry, VariantSpec
from replay.variants.yuanjiang_guihuzi.dingzhuang import check_dealer_sequence
from replay.variants.yuanjiang_guihuzi.options import OPTIONS

__all__ = ["SPEC", "check_dealer_sequence"]


SPEC = VariantSpec(
    id="yuanjiang_guihuzi",
    seed="003_50360bd1f53fc819.txt",
    deck=ZIPAI,
    players=(3, 2),  # the first is the simulator's default, as option `players`
    acts=_BASE | {"chi", "peng", "wai", "liu", "piao"},
    options=OPTIONS,
    state=Entry("replay.variants.yuanjiang_guihuzi.state:YuanjiangState"),
    hand_sizes=lambda n: (20, 19),  # 003 §3 发牌: 庄家20张, 闲家19张
    position=Entry("replay.variants.yuanjiang_guihuzi.cases:position"),
)


def next_dealer(prev_dealer: int, prev_result, n: int) -> int:
    """Dealer of the next hand at a table (003 §4 定庄: 次局开始胡牌者坐庄, 荒庄下家坐庄); used by
    the simulator so simulated tables pass :func:`check_dealer_sequence`."""
    if prev_result is not None and prev_result.outcome == "win" and prev_result.winner is not None:
        return prev_result.winner
    return (prev_dealer + 1) % n
