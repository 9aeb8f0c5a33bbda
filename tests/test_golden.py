"""Golden playthroughs (style.md: OpenSpiel): a seeded game per variant, committed, diffed.

A change to a variant's rules, scoring or bots shows up here as a diff of a whole game log.
Regenerate deliberately with ``PAIPU_UPDATE_GOLDEN=1 pytest tests/test_golden.py`` and review the diff.
"""

from __future__ import annotations

import os
from pathlib import Path

import msgspec
import pytest

from replay import variants
from replay.replayer import replay_line
from replay.simulator import simulate

GOLDEN = Path(__file__).parent / "golden"
IMPLEMENTED = sorted(v.id for v in variants.VARIANTS.values() if v.implemented)


@pytest.mark.parametrize("variant", IMPLEMENTED)
def test_golden_playthrough(variant: str) -> None:
    lines = [msgspec.json.encode(r) for r in simulate(variant, 2, 7)]
    lines += [msgspec.json.encode(r) for r in simulate(variant, 1, 7, bots="random")]
    path = GOLDEN / f"{variant}.jsonl"
    if os.environ.get("PAIPU_UPDATE_GOLDEN") == "1":
        path.write_bytes(b"\n".join(lines) + b"\n")
    assert path.exists(), f"no golden playthrough for {variant}: write it with PAIPU_UPDATE_GOLDEN=1 and review it"
    golden = path.read_bytes().splitlines()
    for raw in golden:  # the committed games stay valid, with their settlements, whatever the simulator does
        v = replay_line(raw).verdict
        assert v.valid, v.errors
        claimed = msgspec.json.decode(raw)["result"]
        assert claimed and {k: v.computed[k] for k in claimed} == claimed
    assert golden == lines  # and the simulator and bots still play them so
