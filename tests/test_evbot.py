"""The expected-value bot (replay/evbot.py): its values are the judge's, it sees only the seat's
view, its games replay valid and are deterministic, and it answers the ruleset.
"""

from __future__ import annotations

import random

import msgspec
import pytest
from test_rollout import _hidden_shuffle, _states

from replay import variants
from replay.engine import Phase
from replay.evbot import EVBot
from replay.options import make_ruleset
from replay.replayer import replay_line
from replay.simulator import _bots, simulate

EV_VARIANTS = ["guilin", "zipai", "yuanjiang_guihuzi", "sanjing_huapai", "wujing_huapai", "shuangbiegan_huapai"]
OTHER = ["tongcheng_gezi", "shangdaren"]  # an ev bot, not measured stronger


def _guilin_state(rules: dict | None = None):
    rec = next(simulate("guilin", 1, 7, rules=rules))
    spec = variants.get("guilin")
    return spec.state(rec, make_ruleset(spec.id, spec.options, rec.rules))


# 一二三 (3 胡) + 贰柒拾 (6) + a dealt 坎 of 壹 (6) = 15 胡 with 五六 waiting on 四 or 七 (a 顺子, 0 胡).
READY = ["x1", "x2", "x3", "d2", "d7", "d10", "d1", "d1", "d1", "x5", "x6"]


@pytest.mark.parametrize("zimo_bonus, self_gain", [("plus1", 6.0), ("double", 8.0)])
def test_gains_are_the_settlement_of_each_wait(zimo_bonus, self_gain):
    """15 胡 is 2 舵 (10 胡 one, +1 at 15: tuo_step 5); 自摸 is +1 舵 (3) or ×2 (4); the two other
    seats pay it, so the winner gains 2× — from the seat's own flip 6 or 8, another's flip or a
    discard 4 (the discarder pays both shares: the winner's gain is the same)."""
    st = _guilin_state({"zimo_bonus": zimo_bonus})
    bot = _bots("guilin", "ev")(random.Random(1))
    seat = (st.dealer + 1) % 3
    hand = st.deck.counts(READY)
    assert bot.gains(st, seat, hand, []) == ((3, (self_gain, 4.0, 4.0)), (6, (self_gain, 4.0, 4.0)))
    live = [4] * 20
    live[3], live[6] = 2, 1  # two 四 and one 七 unseen of 80 - 20 cards
    w = bot.worth(st, seat, hand, [], live)
    assert w == pytest.approx(3 * (0.3 * self_gain + 0.7 * 4.0) / sum(live))
    hand[st.deck.index("x6")] -= 1  # 五 alone: no wait
    assert bot.gains(st, seat, hand, []) == ()


@pytest.mark.parametrize("variant", EV_VARIANTS)
def test_live_counts_are_the_cards_the_seat_cannot_see(variant):
    """Every card is in a hand, a meld, a river, the open window or the wall: what the seat cannot
    see is the wall and the other seats' concealed cards, exactly."""
    bot = _bots(variant, "ev")(random.Random(1))
    checked = 0
    for state in _states(variant):
        if state.phase is Phase.START:
            continue
        for seat in range(state.n):
            others = sum(sum(state.hands[s]) for s in range(state.n) if s != seat)
            assert sum(bot.live(state, seat)) == state.wall_left + others
            checked += 1
    assert checked > 50


@pytest.mark.parametrize("variant", EV_VARIANTS)
def test_the_same_view_gives_the_same_choice(variant):
    """At every discard and every optional claim of a heuristic game, the bot chooses alike when the
    cards the seat cannot see are rearranged; and the expected values decided some of them."""
    bot_cls = _bots(variant, "ev")
    one, two = bot_cls(random.Random(3)), bot_cls(random.Random(3))
    rng = random.Random(11)
    seen = 0
    for state in _states(variant):
        if state.wall_left < 2:
            continue
        if state.phase is Phase.DISCARD:
            seat = state.turn
            b = _hidden_shuffle(state, seat, rng)
            assert one.discard(state, seat, state.legal_events()) == two.discard(b, seat, b.legal_events())
            seen += 1
        elif state.phase is Phase.WINDOW and state.window is not None and state.window.kind != "start":
            for opt in state.window.options:
                if opt.forced or opt.act == "hu":
                    continue
                b = _hidden_shuffle(state, opt.seat, rng)
                mirror = next(o for o in b.window.options if (o.seat, o.act, o.key) == (opt.seat, opt.act, opt.key))
                assert one.claim(state, opt.seat, opt) == two.claim(b, opt.seat, mirror)
                seen += 1
    assert seen > 10
    assert one.stats["valued"] == two.stats["valued"] > 0  # ("judged" depends on the shared memo)
    assert one.stats["changed"] == two.stats["changed"]


@pytest.mark.parametrize("variant", EV_VARIANTS + OTHER)
def test_games_with_the_bot_are_valid_and_deterministic(variant):
    one = list(simulate(variant, 2, 4, "ev"))
    assert one == list(simulate(variant, 2, 4, "ev"))
    assert one[0].game_id == f"sim-{variant}-ev-4-0000000"
    for rec in one:
        v = replay_line(msgspec.json.encode(rec)).verdict
        assert v.valid, (rec.game_id, v.errors)


def test_zimo_bonus_changes_how_the_ev_bot_plays():
    """guilin zimo_bonus=plus1 against double, deals 60-64 of seed 2: the heuristic bots play every
    deal alike; the expected-value bots play deals 60 and 64 differently (in deals 0-199 only those
    two: 4,629 against 4,610 actions, 53 against 52 自摸)."""
    arms = {}
    for bots in ("heuristic", "ev"):
        arms[bots] = [[r.actions for r in simulate("guilin", 5, 2, bots, {"zimo_bonus": z}, start=60)]
                      for z in ("plus1", "double")]
    h, e = arms["heuristic"], arms["ev"]
    assert h[0] == h[1]
    assert [i + 60 for i in range(5) if e[0][i] != e[1][i]] == [60, 64]
    assert sum(map(len, e[0])) != sum(map(len, e[1]))


def test_every_bot_is_an_ev_bot():
    for v in EV_VARIANTS + OTHER:
        assert issubclass(_bots(v, "ev"), EVBot)


def test_stronger_lists_the_ev_bot_in_the_zipai_and_huapai_variants():
    """replay.bots.STRONGER (what paipu tune --bots auto plays): the expected-value bot where the
    duplicate matches measured it stronger (docs/bots.md) — the 字牌 and 花牌 variants, not 個子 or 上大人."""
    from analytics.tune import resolve_bots
    from replay.bots import STRONGER

    assert sorted(STRONGER) == sorted(EV_VARIANTS)
    for v in EV_VARIANTS:
        assert resolve_bots(v, "auto")[0] == "ev" == STRONGER[v][0]
    assert resolve_bots("tongcheng_gezi", "auto")[0] == resolve_bots("shangdaren", "auto")[0] == "heuristic"


@pytest.mark.parametrize("variant", EV_VARIANTS + OTHER)
def test_the_shape_filter_never_drops_a_win_the_judge_accepts(variant):
    """``may_win`` (the engine's cheap test) only saves judge calls: on the hands each discard
    leaves in games the bot plays, the waits with it are those of the judge asked about every card;
    and some of those hands are ready."""
    from replay import evbot

    bot = _bots(variant, "ev")(random.Random(1))
    every = type("Every", (type(bot),), {"may_win": lambda self, *a: True})(random.Random(1))
    spec = variants.get(variant)
    hands, ready = 0, 0
    for rec in simulate(variant, 8, 7, "ev"):
        if hands >= 80:
            break
        state = spec.state(rec, make_ruleset(spec.id, spec.options, rec.rules))
        for ev in rec.actions:
            if state.phase is Phase.DISCARD and ev.act == "discard" and hands < 80:
                hand = list(state.hands[ev.seat])
                hand[state.deck.index(ev.card)] -= 1
                evbot._MEMO.clear()
                got = bot.gains(state, ev.seat, hand, state.melds[ev.seat])
                evbot._MEMO.clear()
                assert got == every.gains(state, ev.seat, hand, state.melds[ev.seat])
                hands += 1
                ready += bool(got)
            state.apply(ev)
    assert hands >= 30 and ready >= 1, (hands, ready)
