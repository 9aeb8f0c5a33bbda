"""zipai plays with guilin's bots (same family, same acts)."""

from replay.variants.guilin.bots import BOTS

__all__ = ["BOTS"]
