"""Random rulesets drawn from a variant's published options, for tests that play a variant under
rules other than its defaults (tests/test_fit.py, tests/test_battery.py)."""

from __future__ import annotations

import random

from replay.variants import VARIANTS


def random_ruleset(variant: str, seed: str | None = None) -> dict:
    """A random ruleset of ``variant`` with at least three options away from their defaults (every
    option with a choice when it has fewer), drawn by ``random.Random(seed)`` — the variant's name
    when ``seed`` is None — so every run tests the same one."""
    rng = random.Random(variant if seed is None else seed)
    opts = [o for o in VARIANTS[variant].options if len(o.allowed) > 1]
    while True:
        r = {o.name: rng.choice(o.allowed) for o in opts}
        if sum(r[o.name] != o.default for o in opts) >= min(3, len(opts)):
            return r
