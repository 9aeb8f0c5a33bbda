"""五精花牌 (seed 002_f9a80b28e0fcbf1a.txt §五精花牌): 精 = 乙三五七九. Shared code and rules:
replay/variants/huapai/, docs/rules/huapai.md; this variant: docs/rules/wujing_huapai.md."""

from replay.cards import HUAPAI
from replay.variants.huapai import make_spec

SPEC = make_spec("wujing_huapai", HUAPAI, "乙三五七九")
