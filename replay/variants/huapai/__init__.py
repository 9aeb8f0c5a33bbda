"""The 花牌 family of seed 002_f9a80b28e0fcbf1a.txt: 三精花牌 (``sanjing_huapai``), 五精花牌
(``wujing_huapai``, 枝江) and 雙別桿花牌 (``shuangbiegan_huapai``, 賴子). One implementation; the
variants differ by deck (110, or 112 with two 賴) and by their 精 (三五七 or 乙三五七九).

Files by role: ``options.py`` (rule options), ``scoring.py`` (shapes, 胡 with 精 and 主精, best
split, 分), ``state.py`` (the game: 請統, 對/招/扎/開泛, replacements, settlement with 承包),
``cases.py`` (spec §8 score cases as engine positions, and back), ``bots.py`` (simulator players). Each variant folder holds only its ``SPEC`` and ``BOTS``.
Rules doc: ``docs/rules/huapai.md``.
"""

from __future__ import annotations

from replay.cards import Deck
from replay.variants import _BASE, Entry, VariantSpec
from replay.variants.huapai.options import OPTIONS

SEED = "002_f9a80b28e0fcbf1a.txt"
ACTS = _BASE | {"dui", "zhao", "zha", "kai_fan"}


def make_spec(variant: str, deck: Deck, jing: str) -> VariantSpec:
    """The :class:`VariantSpec` of one 花牌 variant.

    :param variant: spec §7 id. :param deck: HUAPAI (110) or HUAPAI_LAI (112).
    :param jing: its 精 characters, e.g. ``"三五七"`` (002 §定精方法).
    """
    state = Entry("replay.variants.huapai.state:HuapaiState", variant=variant, deck=deck, jing=jing)
    return VariantSpec(
        id=variant, seed=SEED, deck=deck, players=(3,), acts=ACTS, options=OPTIONS, state=state,
        hand_sizes=lambda n: (26, 25),  # 002 §三精花牌: 三人玩牌，每人起牌25張，莊家起26張
        position=Entry("replay.variants.huapai.cases:position", make_state=state),
    )
