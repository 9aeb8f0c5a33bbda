"""A demo warehouse for the dashboard, tune and browser tests, built once per test run (whichever
test process asks first; the others wait and read it) by the same code as ``make demo``
(:func:`dashboards.demo.build`), with fewer games:

- a tuning experiment: guilin ``tuo_step=5`` (A) against ``tuo_step=3`` (B) on the same
  :data:`TUNE_DEALS` deals (``paipu tune``'s own code path);
- simulated games of every variant, each at its own tables, times and players: guilin under two
  rulesets (defaults, :data:`PLAIN_GAMES`; ``zimo_bonus=double``, :data:`DOUBLE_GAMES`), every other
  variant (通城個子牌 at 4 and 3 seats) :data:`VARIANT_GAMES`;
- a planted collusion lead: in :data:`RING_GAMES` guilin games (one per table) where someone dealt
  in, the winner is renamed ``ring-a`` and the discarder ``ring-b``;
- the worked example ``data/guilin-short.jsonl`` (``example-guilin-1``); in every variant a
  disputed settlement (``demo-disputed-<variant>``) and a tampered game (``demo-tampered-<variant>``);
- four rejected lines (bad JSON, an unknown variant, not an object, a cut-off line).
"""

from __future__ import annotations

import fcntl
import os
import pickle
import shutil
from pathlib import Path

import pytest

from dashboards.demo import Demo
from dashboards.demo import build as build_demo

ROOT = Path(__file__).resolve().parent.parent
TUNE_DEALS = 300
TUNE_SEED = 11
PLAIN_GAMES = 120
DOUBLE_GAMES = 64
VARIANT_GAMES = 24
RING_GAMES = 12

__all__ = ["Demo", "build", "TUNE_DEALS", "PLAIN_GAMES", "DOUBLE_GAMES", "VARIANT_GAMES", "RING_GAMES"]


_BUILT: list[Demo] = []


def build(tmp_path_factory: pytest.TempPathFactory) -> Demo:
    """The run's demo warehouse. Test processes of one pytest-xdist run share the parent of their
    temporary folders: the first to ask builds the warehouse there under a lock, the others wait for
    it and read what it made (pytest removes old runs' folders)."""
    if not _BUILT:
        base = tmp_path_factory.getbasetemp()
        shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
        made = shared / "demo" / "demo.pickle"
        with open(shared / "demo.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not made.exists():
                shutil.rmtree(made.parent, ignore_errors=True)  # what a failed build left
                made.parent.mkdir()
                demo = build_demo(made.parent, games=PLAIN_GAMES, double_games=DOUBLE_GAMES, vgames=VARIANT_GAMES,
                                  tune_deals=TUNE_DEALS, ring=RING_GAMES, seed=3, tune_seed=TUNE_SEED, workers=2,
                                  deals_2017=False)
                made.write_bytes(pickle.dumps(demo))
            _BUILT.append(pickle.loads(made.read_bytes()))
    return _BUILT[0]
