"""上大人: ``paipu score`` is replay. For every win of a simulated corpus (both bot
kinds, the default rules and two non-default option sets), the score case of the winner's
position (``position.score_case_of`` on the state just before the 胡) gives replay's own result;
and at sampled positions of the same games (a seat facing another seat's discard, or the card it
just drew) the case is a win exactly when the engine accepts that seat's 胡 there."""

from __future__ import annotations

import random

import pytest
from judgment_util import check_every_win, check_position

from replay.replayer import replay_record
from replay.simulator import simulate
from replay.variants.shangdaren.cases import score_case_of

# Non-default sets: every 胡 option moved (3 seats), and a 4-seat table with the claim options moved.
RULES_A = {"hu_scale": "flat", "ting_tou_jing": 8, "pengpeng_scope": "taihu_fan", "mashang_dui": "before_hu",
           "zhu_jing": "double", "green_as": "red"}
RULES_B = {"players": 4, "dui_from": "shang_wei", "fang_pao": "all", "yao_pai": "front"}
# ~2,100 wins (heuristic bots win 76 % of default games, 93 % under RULES_A, 37 % at 4 seats; random
# bots almost never, their games give positions)
CORPORA = [("heuristic", {}, 800), ("heuristic", RULES_A, 1500), ("heuristic", RULES_B, 300),
           ("random", {}, 300), ("random", RULES_A, 300)]


@pytest.fixture(scope="module")
def corpus():
    return [rec for bots, rules, n in CORPORA for rec in simulate("shangdaren", n, 14, bots, rules)]


def test_every_simulated_win_scores_as_replayed(corpus):
    wins = check_every_win(corpus, score_case_of)
    assert len(wins) >= 2000, len(wins)
    # each heuristic rule set won both ways (on a discard and on its own draw)
    kinds = {(tuple(sorted(r.rules)), "zimo" in r.result.hand_types) for r in wins}
    assert kinds >= {(tuple(sorted(rs)), z) for rs in ({}, RULES_A, RULES_B) for z in (True, False)}


def test_score_says_win_exactly_where_replay_accepts_a_hu(corpus):
    rng = random.Random(14)
    seen = {True: 0, False: 0}
    for rec in rng.sample(corpus, 500):
        n = len(rec.actions)  # two steps anywhere, two of the last ten (hands near complete)
        for k in sorted({*rng.sample(range(n), min(2, n)), *rng.sample(range(max(0, n - 10), n), min(2, n))}):
            state = replay_record(rec, stop_after=k).state
            w = state.window
            if w is not None and w.kind == "discard":
                seats = [s for s in range(state.n) if s != w.src]
            elif state.phase.value == "discard" and state.drawn is not None:
                seats = [state.turn]
            else:
                continue
            for seat in seats:
                seen[check_position(state, seat, score_case_of)] += 1
    assert seen[False] >= 1000 and seen[True] >= 50, seen  # measured: 82 wins, 2,601 not


def test_a_position_round_trips_through_its_case(corpus):
    """The case of a won position, made into a position again, gives the same case back."""
    from replay import variants
    from replay.options import make_ruleset
    from replay.variants.shangdaren.cases import position

    spec = variants.get("shangdaren")
    rec = next(r for r in corpus if r.result.outcome == "win" and "zimo" in r.result.hand_types)
    state = replay_record(rec, stop_after=len(rec.actions) - 2).state
    case = score_case_of(state, rec.result.winner)
    pos = position(case, make_ruleset("shangdaren", spec.options, case["rules"]))
    again = score_case_of(pos.state, pos.seat)
    assert {k: again[k] for k in ("hand", "melds", "win_card", "win_from")} == \
        {k: case[k] for k in ("hand", "melds", "win_card", "win_from")}
    with pytest.raises(ValueError):
        score_case_of(pos.state, (pos.seat + 1) % pos.state.n)  # that seat faces no card
