"""One battery every variant runs (style.md: OpenSpiel): each implemented variant of the registry
plays simulated games under its default rules and two seeded random rulesets drawn from its
published options, with random, heuristic and expected-value bots, and its golden playthroughs go
through the same checks. After every event: every card of the deck is in exactly one place
(``GameState.census``); every event ``legal_events()`` lists is accepted by ``apply`` (on a fork);
the event logged next is among them. At the end: the log, written and read back, replays valid to
the same result and facts. Then the check itself, on planted faults and hand-worked positions."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest
from rulesets import random_ruleset

from replay import variants
from replay.engine import GameState, event_key
from replay.errors import RuleViolation
from replay.options import make_ruleset
from replay.record import Record, decode_record
from replay.replayer import replay_line
from replay.simulator import simulate

pytestmark = pytest.mark.long  # started first (tests/conftest.py)

IMPLEMENTED = sorted(v.id for v in variants.VARIANTS.values() if v.implemented)
GOLDEN = Path(__file__).parent / "golden"
RULESETS = ("default", "random-1", "random-2")
GAMES = 8  # per variant, ruleset and bot kind (random, heuristic)
EV_GAMES = 3  # the expected-value bot is slower; a few games per ruleset still meet its own lines of play


def rules_of(variant: str, which: str) -> dict:
    return {} if which == "default" else random_ruleset(variant, f"{variant}:{which}")


def state_of(rec: Record) -> GameState:
    spec = variants.get(rec.variant)
    assert spec.state is not None
    return spec.state(rec, make_ruleset(spec.id, spec.options, rec.rules))


def walk(rec: Record) -> GameState:
    """Play ``rec``'s actions on a new state, checking before and after every event; the final state."""
    deck = variants.get(rec.variant).deck
    st = state_of(rec)
    bad = st.unconserved()
    assert not bad, f"{rec.game_id} as dealt: {bad}"
    for step, ev in enumerate(rec.actions):
        listed = st.legal_events()
        for le in listed:  # each listed event is accepted by apply
            try:
                st.fork().apply(le)
            except RuleViolation as e:
                pytest.fail(f"{rec.game_id} step {step}: listed {le} refused: {e.code} {e.rule} {e.message}")
        assert event_key(ev, deck) in {event_key(e, deck) for e in listed}, f"{rec.game_id} step {step}: {ev} not listed"
        st.apply(ev)
        bad = st.unconserved()
        assert not bad, f"{rec.game_id} after step {step} ({ev.seat} {ev.act} {ev.card}): {bad}"
    st.finish(len(rec.actions))
    return st


def round_trip(rec: Record, st: GameState) -> None:
    """``rec`` as a JSON line replays valid, to its claimed result and to ``st``'s result and facts."""
    out = replay_line(msgspec.json.encode(rec))
    assert out.verdict.valid, (rec.game_id, out.verdict.errors)
    claimed = msgspec.to_builtins(rec.result)
    assert {k: out.verdict.computed[k] for k in claimed} == claimed, rec.game_id
    assert out.verdict.computed == st.result(), rec.game_id
    assert out.facts == st.facts(), rec.game_id


@pytest.mark.parametrize("which", RULESETS)
@pytest.mark.parametrize("variant", IMPLEMENTED)
def test_simulated_games(variant: str, which: str) -> None:
    rules = rules_of(variant, which)
    recs = [*simulate(variant, GAMES, 41, "random", rules), *simulate(variant, GAMES, 41, "heuristic", rules),
            *simulate(variant, EV_GAMES, 41, "ev", rules)]
    for rec in recs:
        round_trip(rec, walk(rec))


@pytest.mark.parametrize("variant", IMPLEMENTED)
def test_golden_playthroughs(variant: str) -> None:
    lines = (GOLDEN / f"{variant}.jsonl").read_bytes().splitlines()
    assert lines
    for raw in lines:
        rec = decode_record(raw)
        round_trip(rec, walk(rec))


# -- the check itself ------------------------------------------------------------------------
def golden(variant: str, i: int) -> Record:
    return decode_record((GOLDEN / f"{variant}.jsonl").read_bytes().splitlines()[i])


def after(rec: Record, steps: int) -> GameState:
    st = state_of(rec)
    for ev in rec.actions[:steps]:
        st.apply(ev)
    return st


def where(st: GameState, code: str) -> dict[str, int]:
    """The places the census counts kind ``code`` in, and how many."""
    k = st.deck.index(code)
    return {place: v[k] for place, v in st.census().items() if v[k]}


def test_a_card_lost_from_a_hand_is_named_with_where_its_copies_are():
    # sim-guilin-7-0000000 as dealt: 小十 (x10) twice in seat 0's hand, twice in seat 1's, none in
    # seat 2's or the wall. Seat 0 loses one.
    st = after(golden("guilin", 0), 0)
    assert where(st, "x10") == {"hand 0": 2, "hand 1": 2}
    assert st.unconserved() == []
    bad = st.fork()
    bad.hands[0][bad.deck.index("x10")] -= 1
    assert bad.unconserved() == ["小十 (x10): 3 counted, the deck holds 4 (hand 0: 1, hand 1: 2)"]
    assert st.unconserved() == []  # the fork's fault is its own


def test_a_card_counted_twice_is_named_with_every_place():
    # sim-guilin-7-0000000 after its first event: seat 0 discarded 陆 (d6), open to claims. 陆 was
    # dealt once to seat 0, twice to seat 1, and lies once in the wall. Planted: the open card also
    # in seat 0's river.
    st = after(golden("guilin", 0), 1)
    assert where(st, "d6") == {"hand 1": 2, "wall": 1, "open card": 1}
    bad = st.fork()
    bad.river[0].append(bad.deck.index("d6"))
    assert bad.unconserved() == ["陆 (d6): 5 counted, the deck holds 4 (hand 1: 2, river 0: 1, wall: 1, open card: 1)"]


def test_a_card_gone_from_every_place_is_said_so():
    st = after(golden("shangdaren", 0), 0)
    bad = st.fork()
    k = bad.deck.index("孔")
    for h in bad.hands:
        h[k] = 0
    bad.wall = [x for x in bad.wall if x != k]
    bad.back = len(bad.wall)
    assert bad.unconserved() == ["孔: 0 counted, the deck holds 4 (nowhere)"]


def test_the_card_won_on_a_flip_is_counted_apart():
    # sim-guilin-7-0000001: 小二 (x2) dealt once to seat 1 and once to seat 2, twice in the wall
    # (wall[3], wall[18]). Seat 2 flips wall[3] at step 14 and seat 1 wins on it: seat 1's and seat
    # 2's own x2 stay in their hands, wall[18] is not drawn, the flip joins no hand.
    # 小六 (x6): seat 1 discarded its one (step 0) and seat 2 ate it with its own x6 (melds 2: 2);
    # seat 1 flipped wall[2] at step 13, unclaimed (its river); wall[11] is not drawn.
    st = after(golden("guilin", 1), 16)
    assert st.result()["win_card"] == "x2"
    assert where(st, "x2") == {"hand 1": 1, "hand 2": 1, "wall": 1, "won on": 1}
    assert where(st, "x6") == {"melds 2": 2, "river 1": 1, "wall": 1}
    assert st.unconserved() == []


def test_a_win_after_ones_own_forced_act_counts_its_card_once():
    # sim-guilin-13-0000258: seat 0 was dealt 小九 (x9) three times and flips the fourth (wall[4]) at
    # step 7; its forced 扫穿 lays the four down, then it wins on that card: all four in its melds.
    st = after(decode_record(SAO_CHUAN_HU), 10)
    assert (st.result()["winner"], st.result()["win_card"]) == (0, "x9")
    assert where(st, "x9") == {"melds 0": 4}
    assert st.unconserved() == []


def test_a_win_right_after_ones_own_wai_counts_its_card_once():
    # sim-yuanjiang_guihuzi-ev-11-0000017: seat 2 was dealt 小二 (x2) twice and flips a third at step
    # 10 (wall[5]): it 歪s (the three on the table) and wins on that card right after. The fourth
    # x2 is wall[13], not drawn.
    st = after(decode_record(WAI_HU), 13)
    assert (st.result()["winner"], st.result()["win_card"], st.result()["from"]) == (2, "x2", None)
    assert where(st, "x2") == {"melds 2": 3, "wall": 1}
    assert st.unconserved() == []


def test_a_discard_won_on_is_counted_apart_where_no_hand_takes_it():
    # sim-tongcheng_gezi-7-0000000: 七 (plain) was dealt once each to seats 0, 1 and 2; seat 1
    # discards its one at step 19 and seat 0 wins on it (抓衝): the card joins no hand.
    st = after(golden("tongcheng_gezi", 0), 21)
    assert (st.result()["winner"], st.result()["from"], st.result()["win_card"]) == (0, 1, "七")
    assert where(st, "七") == {"hand 0": 1, "hand 2": 1, "won on": 1}
    # 花牌 puts the discard won on into the winner's hand (end_win). sim-sanjing_huapai-7-0000000:
    # 花三 was dealt to seat 0 and lies at wall[3], which seat 2 draws at step 14 and keeps; seat 0
    # discards its one at step 67 and seat 1 wins on it.
    hp = after(golden("sanjing_huapai", 0), 69)
    assert (hp.result()["winner"], hp.result()["from"], hp.result()["win_card"]) == (1, 0, "花三")
    assert where(hp, "花三") == {"hand 1": 1, "hand 2": 1}
    assert st.unconserved() == hp.unconserved() == []


SAO_CHUAN_HU = (
    b'{"format":"paipu/1","game_id":"sim-guilin-13-0000258","variant":"guilin","seats":["p005","p047","p034"],'
    b'"dealer":0,"deal":{"hands":[["d1","d6","d1","d10","x9","d2","x7","d4","d7","d5","x1","x7","d2","d8","d9","x9",'
    b'"x1","d10","x9","x8","d3"],["x6","x10","d7","x2","x2","x4","d5","x6","d4","d5","d9","x6","d10","d6","d5","x7",'
    b'"d9","d1","x10","x8"],["x8","x2","d8","x10","x2","x7","x3","d7","x1","x5","d9","d8","d4","x3","d10","x4","x4",'
    b'"d2","d2","x3"]],"wall":["x3","d3","x5","x5","x9","d3","d6","d3","d6","x6","x1","x5","x8","x10","d1","d8","d4",'
    b'"x4","d7"]},"actions":[{"seat":0,"act":"discard","card":"x8"},{"seat":1,"act":"draw","card":"x3"},'
    b'{"seat":2,"act":"kai_duo","card":"x3","cards":["x3","x3","x3"]},{"seat":2,"act":"discard","card":"x5"},'
    b'{"seat":0,"act":"draw","card":"d3"},{"seat":1,"act":"draw","card":"x5"},{"seat":2,"act":"draw","card":"x5"},'
    b'{"seat":0,"act":"draw","card":"x9"},{"seat":0,"act":"sao_chuan","card":"x9","cards":["x9","x9","x9"]},'
    b'{"seat":0,"act":"hu","card":"x9"}],"rules":{}}'
)
"""A simulated 桂林 game (heuristic bots, seed 13, game 258)."""

WAI_HU = (
    b'{"format":"paipu/1","game_id":"sim-yuanjiang_guihuzi-ev-11-0000017","variant":"yuanjiang_guihuzi",'
    b'"seats":["p044","p006","p024"],"dealer":0,"deal":{"hands":[["x3","d6","d4","x10","d10","d10","x3","d6","x7",'
    b'"x5","d1","x9","d5","d9","x4","d10","x6","d9","d8","x10"],["x9","d4","x10","d1","x6","x1","x8","x1","d7","x1",'
    b'"d10","d7","x1","d9","x8","x9","d8","d5","x10"],["x4","x7","d3","x2","x2","x9","d6","d8","d2","x5","x8","x4",'
    b'"d6","d2","d3","x3","d1","x6","x7"]],"wall":["x5","x4","d1","d4","d8","x2","x8","d3","d7","d9","x7","d3","d2",'
    b'"x2","d2","d7","x6","d5","d4","d5","x3","x5"]},"actions":[{"seat":0,"act":"discard","card":"d1"},'
    b'{"seat":1,"act":"draw","card":"x5"},{"seat":2,"act":"chi","card":"x5","cards":["x3","x4"]},'
    b'{"seat":2,"act":"discard","card":"x7"},{"seat":0,"act":"draw","card":"x4"},{"seat":1,"act":"draw","card":"d1"},'
    b'{"seat":2,"act":"chi","card":"d1","cards":["d2","d3"]},{"seat":2,"act":"discard","card":"d8"},'
    b'{"seat":0,"act":"draw","card":"d4"},{"seat":1,"act":"draw","card":"d8"},{"seat":2,"act":"draw","card":"x2"},'
    b'{"seat":2,"act":"wai","card":"x2","cards":["x2","x2"]},{"seat":2,"act":"hu","card":"x2"}],"rules":{}}'
)
"""A simulated 沅江鬼胡子 game (expected-value bots, seed 11, game 17)."""
