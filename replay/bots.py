"""Bots shared by every variant. A variant's ``bots.py`` adds its own heuristic player and
publishes ``BOTS = {"random": ..., "heuristic": ..., "rollout": ..., "ev": ...}`` for the simulator;
:data:`STRONGER` says which bot ``paipu tune --bots auto`` plays where."""

from __future__ import annotations

import random
from typing import Mapping

from replay.engine import Option
from replay.record import Event

STRONGER: dict[str, tuple[str, str]] = {
    "guilin": ("ev", "+1.22 [+0.94, +1.49]"),
    "zipai": ("ev", "+0.93 [+0.66, +1.20]"),
    "sanjing_huapai": ("ev", "+0.47 [+0.31, +0.63]"),
    "wujing_huapai": ("ev", "+0.88 [+0.65, +1.12]"),
    "shuangbiegan_huapai": ("ev", "+0.52 [+0.33, +0.72]"),
    "yuanjiang_guihuzi": ("ev", "+6.53 [+3.18, +9.88]"),
}
"""Variant → (bot kind, measured gain): the rule-aware bot that duplicate matches (bench/duplicate.py,
seats rotated, bench/README.md) measured stronger than the heuristic bot — the 95% interval above
zero, and still above zero once corrected for the eight variants tested (Bonferroni, 99.4%) — and
fast enough for a default ``paipu tune`` (≥ 5 games/s a core with every seat played by it).
``paipu tune --bots auto`` plays it there (analytics.tune.resolve_bots), the heuristic bot elsewhere.
The figures: units a game, 95%, over 450–1,600 deals (ranges pooled; 沅江: its two ranges drawn fresh,
1,600 deals; bench/README.md, docs/bots.md)."""


class RandomBot:
    """Random legal play: uniform over the legal events; takes an optional claim with probability
    ``take`` (per act in ``take_by_act``), a forced one always."""

    take = 0.5
    take_by_act: Mapping[str, float] = {}

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def discard(self, state, seat: int, events: list[Event]) -> Event:
        return self.rng.choice(events)

    def claim(self, state, seat: int, opt: Option) -> Event | None:
        if opt.forced or self.rng.random() < self.take_by_act.get(opt.act, self.take):
            return self.rng.choice(opt.events)
        return None
