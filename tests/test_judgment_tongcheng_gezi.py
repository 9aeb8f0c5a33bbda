"""通城個子牌: ``paipu score`` is replay. For every win of a simulated corpus (both bot
kinds, the default rules and two non-default option sets), the score case of the winner's position
(``cases.score_case_of`` on the state just before the 胡) gives exactly replay's result (win,
points, units, hand_types); and at sampled positions of the same games (a seat facing another
seat's discard, or its own discard phase after a draw) the case is a win exactly when the engine
accepts that seat's 胡 there.

Seed: 000_b93a380aaaa9b6e3.txt; the positions: replay/variants/tongcheng_gezi/cases.py.
"""

from __future__ import annotations

import random

import pytest
from judgment_util import replay_accepts

from replay.engine import Phase
from replay.options import make_ruleset
from replay.replayer import replay_record
from replay.score import score_case
from replay.simulator import simulate
from replay.variants import get
from replay.variants.tongcheng_gezi.cases import score_case_of

pytestmark = pytest.mark.long  # started first (tests/conftest.py)

V = "tongcheng_gezi"
# Every reading moved at a 4-seat table (the 撿 restrictions, 碰 values, the won-on discard, claim
# order, payments); and a 3-seat table with its own options.
RULES_A = {"jian_kan": "refused", "peng_gezi": "low", "win_triple": "peng", "win_pair": "refused",
           "jian_discard": "refused", "zimo_pay": "triple", "special_base": "one", "claim_order": "seat_order"}
RULES_B = {"players": 3, "gezi_per_fen_3p": 9, "shidui_four": "no", "bu_pai": "tail"}
# Heuristic bots win ~99 % of games, random bots ~5 % (their games give the sampled positions):
# ~2,050 wins; the heuristic bots' play is nearly all of the time it takes.
CORPORA = [("heuristic", {}, 950), ("heuristic", RULES_A, 700), ("heuristic", RULES_B, 360),
           ("random", {}, 300), ("random", RULES_A, 150), ("random", RULES_B, 150)]


@pytest.fixture(scope="module")
def corpus():
    return [rec for bots, rules, n in CORPORA for rec in simulate(V, n, 23, bots, rules)]


def judged(case: dict) -> tuple:
    out = score_case(case)
    assert "error" not in out, out
    return out["win"], out["points"], out["units"], out["hand_types"]


def test_every_simulated_win_scores_as_replayed(corpus):
    wins = set()
    for rec in corpus:
        r = rec.result
        if r.outcome != "win":
            continue
        k = len(rec.actions) - 1  # the 胡 ends the record
        assert rec.actions[k].act == "hu"
        state = replay_record(rec, stop_after=k - 1).state
        case = score_case_of(state, r.winner)
        assert judged(case) == (True, r.points, r.units, r.hand_types), (rec.game_id, case)
        wins.add((rec.rules.get("players", 4), tuple(sorted(rec.rules)), r.from_ is None))
    n = sum(r.result.outcome == "win" for r in corpus)
    assert n >= 2000, n
    # each rule set won both ways (on a discard and on one's own card)
    assert {(p, rs, z) for p, rs, z in wins} >= {(4, (), True), (4, (), False), (4, tuple(sorted(RULES_A)), True),
                                                 (4, tuple(sorted(RULES_A)), False), (3, tuple(sorted(RULES_B)), False)}


def _seats(state):
    """The seats that could log a 胡 here, with its card: every seat but the discarder (and those
    that passed it) at an open discard; the seat to play after a draw from the wall (or on its
    dealt hand)."""
    w = state.window
    if state.phase is Phase.WINDOW and w is not None:
        return [(s, state.deck.codes[w.card]) for s in range(state.n) if s != w.src and s not in w.passed]
    if state.phase is Phase.DISCARD and state.can_hu:
        return [(state.turn, None if state.can_hu == "deal" else state.deck.codes[state.last_draw])]
    return []


def test_score_says_win_exactly_where_replay_accepts_a_hu(corpus):
    rng = random.Random(23)
    seen = {True: 0, False: 0}
    for rec in rng.sample(corpus, 350):
        ruleset = make_ruleset(V, get(V).options, rec.rules)
        st = get(V).state(rec, ruleset)
        n = len(rec.actions)
        # two steps anywhere and four of the last ten (hands near complete), the 胡 itself excluded
        picks = {*rng.sample(range(n - 1), min(2, n - 1)), *rng.sample(range(max(0, n - 11), n - 1), min(4, n - 1))}
        for k, ev in enumerate(rec.actions[:-1]):
            st.apply(ev)
            if k not in picks:
                continue
            for seat, card in _seats(st):
                accepted = replay_accepts(st, seat, card) is not None
                assert judged(score_case_of(st, seat))[0] is accepted, (rec.game_id, k, seat)
                seen[accepted] += 1
    assert seen[True] >= 100 and seen[False] >= 2000, seen
