"""Bots shared by every variant. A variant's ``bots.py`` adds its own heuristic player and
publishes ``BOTS = {"random": ..., "heuristic": ...}`` for the simulator."""

from __future__ import annotations

import random
from typing import Mapping

from replay.engine import Option
from replay.record import Event


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
