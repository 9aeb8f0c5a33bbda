"""`legal_events()` lists only what `apply` accepts next (ingest/mutate.py and the bots read it as
the legal moves; the audit page shows it as each seat's options)."""

from __future__ import annotations

import pytest

from replay import variants
from replay.engine import Phase, event_key
from replay.errors import RuleViolation
from replay.options import make_ruleset
from replay.record import Event
from replay.simulator import simulate

VARIANTS = sorted(v.id for v in variants.VARIANTS.values() if v.implemented)


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_listed_event_is_accepted(variant):
    # A 吃 listed while another seat's 碰 or forced 开舵 ranks higher and has not passed would be
    # refused by apply (the list comes from GameState.window_events); and the other way, every event
    # the simulator logged is listed (the draw that closes an unclaimed window: GameState.closing_draw).
    spec = variants.get(variant)
    refused, missing, tried = [], [], 0
    for rec in simulate(variant, 6, 7):
        st = spec.state(rec, make_ruleset(spec.id, spec.options, rec.rules))
        for i, ev in enumerate(rec.actions):
            if st.phase is Phase.OVER:
                break
            listed = st.legal_events()
            for le in listed:
                tried += 1
                try:
                    st.fork().apply(le)
                except RuleViolation as e:
                    refused.append((rec.game_id, i, le.seat, le.act, le.card, e.code))
            if event_key(ev, spec.deck) not in {event_key(e, spec.deck) for e in listed}:
                missing.append((rec.game_id, i, ev.seat, ev.act, ev.card))
            st.apply(ev)
    assert tried > 500 and refused == [], refused[:5]
    assert missing == [], missing[:5]


def test_a_forced_kai_duo_ahead_hides_the_lower_chi():
    # sim-guilin-7-0000002: seat 2 discards 小三 (x3) first; seat 1 was dealt 小三×3, so its 开舵 is
    # forced (001 §开舵 别人…打出第4张后就要开舵), and seat 0's 吃 of it (下家 of the discard) ranks below
    # it (开舵 > 吃, 001 §技巧攻略). Next may come only seat 1's 开舵, or seat 0's pass.
    spec = variants.get("guilin")
    rec = list(simulate("guilin", 3, 7))[2]
    st = spec.state(rec, make_ruleset("guilin", spec.options, rec.rules))
    st.apply(rec.actions[0])
    assert sorted((o.seat, o.act, o.forced) for o in st.window.options) == [(0, "chi", False), (1, "kai_duo", True)]
    assert st.legal_events() == [Event(seat=1, act="kai_duo", card="x3", cards=["x3"] * 3), Event(seat=0, act="pass")]
