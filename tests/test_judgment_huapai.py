"""Score = replay for the 花牌 family: a spec §8 case is judged by the engine that
replays games (replay/judge.py), so the two must agree on every position.

For every win of a simulated corpus per variant (heuristic and random bots, the default rules and a
set with every option away from its default), the case of the winner's position just before its
胡 (``score_case_of``) scores exactly what replay computed: win, points, units and hand types. For
positions drawn at random from the same games, ``paipu score`` says win exactly when the engine
accepts a 胡 there, and a refused 胡 reports the points its refusal carries.
"""

from __future__ import annotations

import random
from functools import lru_cache

import pytest
from test_sanjing_huapai import OFF_DEFAULT  # every option away from its default

from replay import simulator
from replay.engine import Phase
from replay.errors import RuleViolation
from replay.record import Event, Record
from replay.replayer import replay_record
from replay.score import score_case
from replay.variants.huapai.cases import score_case_of
from replay.variants.huapai.state import R_HU

pytestmark = pytest.mark.long  # started first (tests/conftest.py)

VARIANTS = ("sanjing_huapai", "wujing_huapai", "shuangbiegan_huapai")
# heuristic games per rule set, by the variant's win share (~70% 三精, ~78% 五精, ~90% 雙別桿): ≥ 2,000 wins
HEURISTIC_GAMES = {"sanjing_huapai": 1500, "wujing_huapai": 1330, "shuangbiegan_huapai": 1150}
RANDOM_GAMES = 150  # per rule set (random bots win one game in fifty or so)
MIN_WINS = 2000


@lru_cache(maxsize=None)
def corpus(variant: str) -> tuple[Record, ...]:
    out: list[Record] = []
    for rules in ({}, OFF_DEFAULT):
        out += simulator.simulate(variant, HEURISTIC_GAMES[variant], 41, "heuristic", rules)
        out += simulator.simulate(variant, RANDOM_GAMES, 42, "random", rules)
    return tuple(out)


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_win_scores_as_replayed(variant):
    wins = {"heuristic": 0, "random": 0}
    for r in corpus(variant):
        if r.result.outcome != "win":
            continue
        before = replay_record(r, stop_after=len(r.actions) - 2).state
        done = before.fork()  # replay's last step: the logged 胡 and the end of the log
        done.apply(r.actions[-1])
        done.finish(len(r.actions))
        got = done.result()
        assert (got["winner"], got["points"], got["units"]) == (r.result.winner, r.result.points, r.result.units)
        out = score_case(score_case_of(before, got["winner"]))
        assert (out["win"], out["points"], out["units"], sorted(out["hand_types"])) == (
            True, got["points"], got["units"], sorted(got["hand_types"])), r.game_id
        assert out["reason"] is None and sum(g["points"] for g in out["groups"]) == got["points"]
        wins["random" if r.game_id.split("-")[-2] == "42" else "heuristic"] += 1  # sim-<rules>-<seed>-<i>
    assert sum(wins.values()) >= MIN_WINS and wins["random"] >= 1, wins


def _faces(state) -> list[int]:
    """Seats that face a card they could claim a 胡 on, with no other seat's option ranked ahead: the
    seat in turn after its draw, or at a discard the 下家, and the other seat when the 下家 has no
    胡 (nor, under mashang_dui=before_hu, a 對) ranked before the other seat's 胡 (key (R_HU, 1))."""
    w = state.window
    if state.phase is Phase.DISCARD and state.drawn is not None:
        return [state.turn]
    if state.phase is Phase.WINDOW and w is not None and w.kind == "discard":
        first, second = state.after[w.src]
        return [first] if any(o.seat == first and o.key < (R_HU, 1) for o in w.options) else [first, second]
    return []


@pytest.mark.parametrize("variant", VARIANTS)
def test_score_says_win_iff_replay_accepts(variant):
    rng = random.Random(f"positions:{variant}")
    seen = {True: 0, False: 0}
    for i, r in enumerate(corpus(variant)):
        steps = [len(r.actions) - 2] if r.result.outcome == "win" and i % 4 == 0 else []
        if i % 3 == 0:
            steps.append(rng.randrange(len(r.actions) - 1))
        for k in steps:
            state = replay_record(r, stop_after=k).state
            for seat in _faces(state):
                w = state.window
                card = state.deck.codes[state.drawn if w is None else w.card]
                try:
                    state.fork().apply(Event(seat=seat, act="hu", card=card))
                    refusal = None
                except RuleViolation as e:
                    refusal = e
                out = score_case(score_case_of(state, seat))
                assert out["win"] is (refusal is None), (r.game_id, k, seat, out, refusal)
                if refusal is not None:
                    assert refusal.code == "not_a_win" and out["reason"]  # the message names the case's seat 0
                    assert out["points"] == (refusal.detail or {}).get("points"), (r.game_id, k, seat)
                seen[out["win"]] += 1
    assert seen[True] >= 300 and seen[False] >= 1000, seen
