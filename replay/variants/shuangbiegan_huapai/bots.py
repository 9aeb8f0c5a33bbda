"""Simulator players of shuangbiegan_huapai: the 花牌 family's (replay/variants/huapai/bots.py)."""

from replay.variants.huapai.bots import BOTS

__all__ = ["BOTS"]
