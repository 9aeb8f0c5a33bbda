"""The tamper-detection harness (ingest/mutate.py) on a small sample: each mutation kind
does what it says, the judge sorts by replaying, and every implemented variant reaches 99 %."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path

import msgspec

from ingest import mutate
from replay.simulator import simulate
from replay.variants import VARIANTS, get

DATA = Path(__file__).resolve().parent.parent / "data"
IMPLEMENTED = [v.id for v in VARIANTS.values() if v.implemented]


def short() -> dict:
    return json.loads((DATA / "guilin-short.jsonl").read_bytes())


def test_judge_sorts_by_replaying():
    orig = short()
    spec = get("guilin")
    assert mutate.judge(copy.deepcopy(orig), orig) == ("unchanged", "")
    rec = copy.deepcopy(orig)
    rec["result"]["scores"] = [-5, 12, -7]
    assert mutate.judge(rec, orig) == ("caught", "result_mismatch")
    what, rec = mutate.m_deck_keep_digest(copy.deepcopy(orig), spec, random.Random(1))
    assert what.startswith("deal.wall[") and mutate.judge(rec, orig) == ("caught", "shuffle_mismatch")
    # the same wall change with the digest recomputed: now replay itself must see it
    _, rec = mutate.m_deck_swap_wall(copy.deepcopy(orig), spec, random.Random(1))
    assert rec["shuffle"]["digest"] != orig["shuffle"]["digest"]
    # (a drawn card moved: wall_mismatch; the 醒 card after the last draw moved: result_mismatch)
    assert mutate.judge(rec, orig) in {("caught", "wall_mismatch"), ("caught", "result_mismatch")}
    # who sat where is not in the game: another legal game, proven by replay
    _, rec = mutate.m_players(copy.deepcopy(orig), spec, random.Random(1))
    assert rec["seats"] != orig["seats"] and mutate.judge(rec, orig) == ("legal", "")


def test_a_claimed_field_replay_does_not_compute_is_not_proven():
    from replay.replayer import replay_line

    rec = short()
    out = replay_line(json.dumps(rec).encode())
    assert mutate.prove_legal(rec, out) is None
    rec["result"]["jing"] = {"main": "三", "count": 9}  # a 花牌 field on a 字牌 game
    out = replay_line(json.dumps(rec).encode())
    why = mutate.prove_legal(rec, out)
    if out.verdict.valid:  # replay ignores it: the harness must not take it on trust
        assert why is not None and why.startswith("result.jing")


def test_every_kind_mutates_what_it_names():
    (rec,) = [msgspec.to_builtins(r) for r in simulate("guilin", 1, seed=5)]
    spec = get("guilin")
    for kind, fn in mutate.KINDS.items():
        got = fn(copy.deepcopy(rec), spec, random.Random(kind))
        if got is None:
            continue
        what, new = got
        assert new != rec, kind
        part = kind.split(".")[0]
        changed = {k for k in rec if rec[k] != new.get(k)}
        want = {"event": {"actions"}, "deck": {"deal", "shuffle"}, "result": {"result"}}.get(part)
        if want is not None:
            assert changed and changed <= want, (kind, changed)
        if kind in ("deck.swap_wall", "deck.hand_wall", "deck.swap_hands", "deck.replace"):
            assert "shuffle" in changed, kind  # the digest follows the altered deal
        if kind == "deck.keep_digest":
            assert changed == {"deal"}


def test_every_variant_reaches_the_target_on_a_sample():
    figs = mutate.run(IMPLEMENTED, games=1, seed=3, per_kind=1)
    assert [f.variant for f in figs] == IMPLEMENTED
    for f in figs:
        assert f.games == 1 and f.originals_proven == 1, f.variant
        assert f.mutations >= 20 and sum(f.by_category.values()) == f.mutations
        assert f.by_category["missed"] == 0, (f.variant, f.misses[:1])
        assert f.caught_share >= 0.99
        assert f.by_code["result_mismatch"] >= 5 and f.by_code["shuffle_mismatch"] == 1
        assert f.by_kind["record.players"]["legal"] == 1
    table = mutate.format_table(figs)
    assert table.splitlines()[0].split()[:2] == ["variant", "games"]
    assert all(v in table for v in IMPLEMENTED)
