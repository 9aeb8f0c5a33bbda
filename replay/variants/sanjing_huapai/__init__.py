"""三精花牌 (seed 002_f9a80b28e0fcbf1a.txt §三精花牌): 精 = 三五七. Shared code and rules:
replay/variants/huapai/, docs/rules/huapai.md; this variant: docs/rules/sanjing_huapai.md."""

from replay.cards import HUAPAI
from replay.variants.huapai import make_spec

SPEC = make_spec("sanjing_huapai", HUAPAI, "三五七")
