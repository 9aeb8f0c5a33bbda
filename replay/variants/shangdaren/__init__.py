"""上大人 (seed 002_f9a80b28e0fcbf1a.txt §上大人): 96 cards, 24 characters × 4, 精 = 上 七 福,
吃 / 對 / 開毛 / 毛, hand classes 屁胡 台胡 台胡翻 清胡 清台胡 枯胡 黑胡 (+碰碰胡).

Files by role: ``options.py`` (rule options), ``scoring.py`` (groups, 胡, best split, classes, 分),
``state.py`` (the game as a state machine: acts, claim windows, replacements, settlement),
``cases.py`` (a score case as a game position, and back), ``bots.py`` (simulator players). Rules doc: ``docs/rules/shangdaren.md``.
"""

from __future__ import annotations

from replay.cards import SHANGDAREN
from replay.variants import _BASE, Entry, VariantSpec
from replay.variants.shangdaren.options import OPTIONS

SPEC = VariantSpec(
    id="shangdaren",
    seed="002_f9a80b28e0fcbf1a.txt",
    deck=SHANGDAREN,
    players=(3, 4),
    acts=_BASE | {"chi", "dui", "kai_mao", "mao"},
    options=OPTIONS,
    state=Entry("replay.variants.shangdaren.state:ShangdarenState"),
    # 002 §上大人 gives no deal size; dealer 20, others 19 (docs/rules/shangdaren.md §Deal): a winning
    # hand is then six groups + a 聽頭 (20 = 6×3 + 2), the 花牌 shape of 002 §三精花牌 4.
    hand_sizes=lambda n: (20, 19),
    position=Entry("replay.variants.shangdaren.cases:position"),
)
