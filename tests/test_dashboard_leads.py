"""Fairness and collusion figures on hand-built warehouses whose answer is known by construction:
a fair shuffle against a rigged one (sorted wall), and a planted pair among random tables."""

from __future__ import annotations

import json
import random
from pathlib import Path

import polars as pl
import pytest
from apptest_util import open_page

from dashboards import collusion, data, fairness
from replay.cards import ZIPAI

GAMES = 150


def _write(root: Path, table: str, rows: list[dict], schema: dict) -> None:
    folder = root / table / "variant=guilin"
    folder.mkdir(parents=True, exist_ok=True)
    pl.DataFrame(rows, schema=schema, orient="row").write_parquet(folder / "part-0.parquet")


G_SCHEMA = {"game_id": pl.String, "ruleset_id": pl.String, "table_id": pl.String, "n_seats": pl.Int64,
            "dealer": pl.Int64, "valid": pl.Boolean, "outcome": pl.String, "winner": pl.Int64,
            "record_json": pl.String}
S_SCHEMA = {"game_id": pl.String, "ruleset_id": pl.String, "seat": pl.Int64, "player_id": pl.String,
            "is_dealer": pl.Boolean, "is_winner": pl.Boolean, "score": pl.Int64, "dianpao": pl.Boolean,
            "valid": pl.Boolean}


def _deal(rng: random.Random, dealer: int, rigged: bool) -> dict:
    cards = ZIPAI.all_cards()
    rng.shuffle(cards)
    hands, pos = [], 0
    for s in range(3):
        k = 21 if s == dealer else 20
        hands.append(sorted(cards[pos:pos + k]))  # logged sorted: positions inside a hand carry nothing
        pos += k
    wall = cards[pos:]
    if rigged:  # a broken shuffle: the wall comes out in deck order
        wall = sorted(wall, key=ZIPAI.index)
    return {"hands": hands, "wall": wall}


@pytest.fixture(scope="module")
def shuffles(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("wh_shuffle")
    rng = random.Random(20261129)
    games, seats = [], []
    for rs, rigged in (("fair", False), ("rigged", True)):
        for i in range(GAMES):
            gid, dealer = f"{rs}-{i}", i % 3
            winner = rng.choice([0, 1, 2, None])
            games.append({"game_id": gid, "ruleset_id": rs, "table_id": f"{rs}-t{i // 8}", "n_seats": 3,
                          "dealer": dealer, "valid": True, "outcome": "draw" if winner is None else "win",
                          "winner": winner, "record_json": json.dumps({"deal": _deal(rng, dealer, rigged)})})
            for s in range(3):
                seats.append({"game_id": gid, "ruleset_id": rs, "seat": s, "player_id": f"q{rng.randrange(30)}",
                              "is_dealer": s == dealer, "is_winner": winner == s,
                              "score": 0 if winner is None else (4 if s == winner else -2), "dianpao": False,
                              "valid": True})
    _write(root, "games", games, G_SCHEMA)
    _write(root, "seats", seats, S_SCHEMA)
    return root


def test_position_test_flags_only_the_rigged_shuffle(shuffles):
    con = data.connect(shuffles)
    tests = {t["ruleset_id"]: t for t in fairness.position_tests(fairness.segment_counts(con, data.Filters()))}
    fair, rigged = tests["fair"], tests["rigged"]
    assert fair["games"] == rigged["games"] == GAMES
    assert fair["df"] == (20 - 1) * (7 - 1)  # 20 kinds × (3 hands + 4 wall quarters)
    assert not fair["flagged"] and fair["p_value"] > 0.01
    assert rigged["flagged"] and rigged["p_value"] < 1e-6
    # the cells explain it: in a sorted wall the small cards (小一) crowd the first quarter
    cells = rigged["cells"]
    x1w1 = cells.filter((pl.col("card") == "x1") & (pl.col("segment") == "w1")).row(0, named=True)
    assert x1w1["observed"] > 3 * x1w1["expected"] and x1w1["residual"] > 5
    # every card of every deal was counted
    assert int(cells["observed"].sum()) == GAMES * 80
    first = {t["ruleset_id"]: t for t in fairness.kind_tests(fairness.first_cards(con, data.Filters()))}
    assert first["rigged"]["flagged"] and not first["fair"]["flagged"]
    assert first["rigged"]["cells"].filter(pl.col("card") == "x1")["observed"][0] > 0.5 * GAMES


def test_dealer_advantage_against_known_counts(shuffles):
    con = data.connect(shuffles)
    adv = fairness.dealer_advantage(con, data.Filters())
    want = con.sql("""SELECT ruleset_id, count(*) FILTER (WHERE winner = dealer) AS k, count(*) AS n FROM games
                      GROUP BY 1""").pl()
    for r in adv.iter_rows(named=True):
        w = want.filter(pl.col("ruleset_id") == r["ruleset_id"]).row(0, named=True)
        assert (r["dealer_wins"], r["games"]) == (w["k"], w["n"])
        assert r["dealer_rate"] == pytest.approx(w["k"] / w["n"]) and r["fair"] == pytest.approx(1 / 3)
        assert r["dealer_lo"] < r["dealer_rate"] < r["dealer_hi"]


def test_fairness_page_flags_the_rigged_ruleset(monkeypatch, shuffles):
    at = open_page(monkeypatch, shuffles, "screens/fairness.py")
    flagged = [e.value for e in at.error]
    assert any("`rigged`" in e and "non-uniform" in e for e in flagged)
    assert not any("`fair`" in e for e in flagged)
    assert any("`fair`" in s.value and "uniform shuffle" in s.value for s in at.success)
    # narrowing the ruleset filter leaves only the fair one: no flag
    at.multiselect(key="f_rulesets").set_value(["fair"]).run()
    assert not at.error


@pytest.fixture(scope="module")
def tables(tmp_path_factory) -> Path:
    """300 sessions of 4 games with 3 of 60 players at random; in 25 more, x1 and x2 sit together
    and x2 deals in to x1 once each."""
    root = tmp_path_factory.mktemp("wh_tables")
    rng = random.Random(7)
    games, seats = [], []
    for t in range(325):
        planted = t >= 300
        people = rng.sample([f"p{k:02d}" for k in range(60)], 3)
        if planted:
            people[:2] = ["x1", "x2"]
            rng.shuffle(people)
        for i in range(4):
            gid = f"g{t}-{i}"
            winner = rng.randrange(3)
            feeder = rng.choice([s for s in range(3) if s != winner]) if rng.random() < 0.4 else None
            if planted and i == 0:
                winner, feeder = people.index("x1"), people.index("x2")
            games.append({"game_id": gid, "ruleset_id": "r", "table_id": f"t{t}", "n_seats": 3, "dealer": i % 3,
                          "valid": True, "outcome": "win", "winner": winner, "record_json": "{}"})
            for s, p in enumerate(people):
                score = 4 if s == winner else (-4 if s == feeder else (0 if feeder is not None else -2))
                seats.append({"game_id": gid, "ruleset_id": "r", "seat": s, "player_id": p, "is_dealer": s == i % 3,
                              "is_winner": s == winner, "score": score, "dianpao": s == feeder, "valid": True})
    _write(root, "games", games, G_SCHEMA)
    _write(root, "seats", seats, S_SCHEMA)
    return root


def test_collusion_leads_rank_the_planted_pair_first(tables):
    con = data.connect(tables)
    pairs, n_pairs = collusion.pairs_together(con, data.Filters())
    top = pairs.row(0, named=True)
    assert (top["p1"], top["p2"], top["sessions"], top["games"]) == ("x1", "x2", 25, 100)
    assert top["flagged"] and top["expected"] == pytest.approx(25 * 2 * 25 / (325 * 3 - 25)) and n_pairs > 300
    assert pairs["flagged"].sum() == 1  # random tables give no lead
    flows, _ = collusion.one_way_flows(con, data.Filters())
    f = flows.row(0, named=True)
    assert (f["feeder"], f["winner"], f["flagged"]) == ("x2", "x1", True)
    assert f["fed"] >= 25 and f["reverse"] < f["fed"] / 3
    assert f["paid"] == 4 * f["fed"]
