"""雙別桿花牌 (seed 002_f9a80b28e0fcbf1a.txt §雙別桿花牌): 精 = 三五七. Shared code and rules:
replay/variants/huapai/, docs/rules/huapai.md; this variant: docs/rules/shuangbiegan_huapai.md."""

from replay.cards import HUAPAI_LAI
from replay.variants.huapai import make_spec

SPEC = make_spec("shuangbiegan_huapai", HUAPAI_LAI, "三五七")
