"""analytics: views over the warehouse, the hardening, every report figure against hand-computed values."""

from __future__ import annotations

import hashlib
import json
from datetime import datetime, timezone
from pathlib import Path
from types import SimpleNamespace

import duckdb
import pytest
from typer.testing import CliRunner

from analytics import queries as q
from ingest.rows import Batch
from ingest.run import ingest
from ingest.views import connect
from ingest.warehouse import Warehouse
from replay.record import Verdict, VerdictError, decode_record

DATA = Path(__file__).resolve().parent.parent / "data"
SHORT = (DATA / "guilin-short.jsonl").read_bytes().strip()


def _outcome(game_id, seats, dealer, computed, *, win_kind=None, ruleset="guilin-default", valid=True,
             xing_mode="shangzhongxia"):
    """A ReplayOutcome-shaped fake: the worked example's record with other seats, and a verdict
    with ``computed`` chosen by the test (so the figures below are known by construction)."""
    obj = json.loads(SHORT)
    obj.update(game_id=game_id, seats=seats, dealer=dealer)
    obj.pop("result")
    raw = json.dumps(obj).encode()
    errors = [] if valid else [VerdictError(step=3, code="illegal_action", rule="guilin.x", message="no")]
    verdict = Verdict(game_id=game_id, valid=valid, errors=errors, computed=computed if valid else None,
                      ruleset_id=ruleset, engine_version="test", record_sha256=hashlib.sha256(raw).hexdigest())
    facts = None
    if valid:
        xing = computed.get("xing")
        facts = {"win_kind": win_kind, "wall_left": 5,
                 "melds": [{"seat": 0, "kind": "peng", "cards": ["x1"] * 3, "points": 1, "origin": "table"}],
                 "xing": {"mode": xing_mode, **xing} if xing and computed["outcome"] == "win" else None}
    out = SimpleNamespace(verdict=verdict, record=decode_record(raw),
                          ruleset=SimpleNamespace(id=ruleset, values={"tuo_step": 3}), facts=facts, defaulted=False)
    return out, raw


def _win(winner, frm, points, units, tuo, hand_types, xing, scores):
    return {"outcome": "win", "winner": winner, "win_card": "d7", "from": frm, "points": points,
            "hand_types": hand_types, "xing": None if xing is None else {"cards": ["x10"], "count": xing},
            "units": units, "breakdown": {"tuo": tuo}, "scores": scores}


# Five valid games, one invalid, two rejects. Players a b c d.
GAMES = [
    # G1: b wins by 自摸 at seat 1 (dealer seat 0)
    ("G1", ["a", "b", "c"], 0, _win(1, None, 21, 6, 3, ["zimo"], 2, [-6, 12, -6]), "zimo", "guilin-default"),
    # G2: a wins at seat 0 on c's discard (点炮: c pays both shares); dealer seat 1; no hand type
    ("G2", ["a", "b", "c"], 1, _win(0, 2, 15, 2, 1, [], 1, [4, 0, -4]), "dianpao", "guilin-default"),
    # G3: 荒庄
    ("G3", ["b", "c", "d"], 2, {"outcome": "draw", "winner": None, "win_card": None, "from": None, "points": None,
                                "hand_types": [], "xing": None, "units": None, "breakdown": None,
                                "scores": [0, 0, 0]}, None, "guilin-default"),
    # G4: dealer a wins at seat 0 on a card seat 1 flipped
    ("G4", ["a", "c", "d"], 0, _win(0, 1, 30, 5, 4, ["haidi"], 0, [10, -5, -5]), "flip", "guilin-default"),
    # G5: d wins by 自摸 at seat 2 under another ruleset; no 醒 (after 海底)
    ("G5", ["a", "b", "d"], 0, _win(2, None, 24, 7, 4, ["zimo", "haidi"], None, [-7, -7, 14]), "zimo",
     "guilin-abc123"),
]
HOSTILE = "x' OR 1=1; DROP VIEW games; --"


@pytest.fixture(scope="module")
def known(tmp_path_factory) -> Path:
    """A warehouse of :data:`GAMES`, an invalid game and two rejects, written by the real row
    builder and writer."""
    root = tmp_path_factory.mktemp("known") / "wh"
    batch = Batch(datetime(2026, 11, 29, tzinfo=timezone.utc))
    n = 0
    for gid, seats, dealer, comp, kind, rid in GAMES:
        out, raw = _outcome(gid, seats, dealer, comp, win_kind=kind, ruleset=rid)
        n += 1
        batch.add_outcome(out, "fake.jsonl", n, raw)
    out, raw = _outcome("G6", ["a", "b", "c"], 0, None, valid=False)
    batch.add_outcome(out, "fake.jsonl", 6, raw)
    batch.add_reject("fake.jsonl", 7, b"{oops", "bad_json", "paipu.json", "not JSON")
    batch.add_reject("fake.jsonl", 8, b"{}", "schema", "paipu.schema", "missing fields")
    assert (batch.counts.valid, batch.counts.invalid, batch.counts.rejected) == (5, 1, 2)
    with Warehouse(root) as wh, wh.transaction("test rows", {"run_id": "known"}):
        for table, rows in batch.to_arrow().items():
            wh.insert(table, rows.drop_columns(["_line"]))
    return root


@pytest.fixture(scope="module")
def con(known):
    c = connect(known)
    yield c
    c.close()


def rows(df):
    return [tuple(r) for r in df.iter_rows()]


def test_overview_and_codes(con):
    assert rows(q.overview(con)) == [(6, 5, 1, 2, 8, 5 / 6)]
    assert rows(q.rejects_by_code(con)) == [("bad_json", "paipu.json", 1), ("schema", "paipu.schema", 1)]
    assert rows(q.errors_by_code(con)) == [("illegal_action", "guilin.x", 1)]
    assert rows(q.variants_and_rulesets(con)) == [("guilin", "guilin-abc123", 1), ("guilin", "guilin-default", 5)]


def test_win_rates(con):
    assert rows(q.win_rate_by_seat(con)) == [(0, 5, 2, 0.4), (1, 5, 1, 0.2), (2, 5, 1, 0.2)]
    assert rows(q.win_rate_by_dealer(con)) == [(True, 5, 1, 0.2), (False, 10, 3, 0.3)]
    assert rows(q.draw_rate(con)) == [(5, 1, 0.2)]


def test_hand_types_xing_means_kinds(con):
    assert rows(q.hand_type_freq(con)) == [("haidi", 2, 0.5), ("zimo", 2, 0.5), ("plain", 1, 0.25)]
    assert rows(q.xing_distribution(con)) == [(None, 1, 0.25), (0, 1, 0.25), (1, 1, 0.25), (2, 1, 0.25)]
    assert rows(q.mean_points(con)) == [("guilin", 4, 22.5, 3.0, 5.0)]
    assert rows(q.win_kind_mix(con)) == [("zimo", 2, 0.5), ("dianpao", 1, 0.25), ("flip", 1, 0.25)]


def test_players_and_score_flow(con):
    got = {r[0]: r[1:] for r in rows(q.player_stats(con))}
    # player: games, wins, win_rate, zimo_wins, zimo_share, dianpao, dianpao_rate, total, mean
    assert got == {
        "a": (4, 2, 0.5, 0, 0.0, 0, 0.0, 1, 0.25),
        "b": (4, 1, 0.25, 1, 1.0, 0, 0.0, 5, 1.25),
        "c": (4, 0, 0.0, 0, None, 1, 0.25, -15, -3.75),
        "d": (3, 1, 1 / 3, 1, 1.0, 0, 0.0, 9, 3.0),
    }
    assert list(q.player_stats(con)["player_id"]) == ["b", "a", "c", "d"]  # games desc, then total desc
    assert rows(q.player_stats(con, min_games=4, limit=1)) == [("b", 4, 1, 0.25, 1, 1.0, 0, 0.0, 5, 1.25)]
    assert rows(q.score_flow(con)) == [("d", 3, 14, -5, 9), ("b", 4, 12, -7, 5), ("a", 4, 14, -13, 1),
                                       ("c", 4, 0, -15, -15)]
    assert sum(r[4] for r in rows(q.score_flow(con))) == 0


def test_filters(con):
    assert rows(q.overview(con, ruleset="guilin-abc123")) == [(1, 1, 0, 2, 3, 1.0)]  # rejects: variant only
    assert rows(q.win_rate_by_seat(con, ruleset="guilin-abc123")) == [(0, 1, 0, 0.0), (1, 1, 0, 0.0), (2, 1, 1, 1.0)]
    assert rows(q.overview(con, variant="zipai")) == [(0, 0, 0, 0, 0, None)]
    assert rows(q.hand_type_freq(con, variant="guilin", ruleset="guilin-default")) == \
        [("haidi", 1, 1 / 3), ("plain", 1, 1 / 3), ("zimo", 1, 1 / 3)]


def test_hostile_filter_values_are_harmless(con):
    for fn in (q.overview, q.win_rate_by_seat, q.player_stats, q.hand_type_freq, q.score_flow):
        df = fn(con, variant=HOSTILE, ruleset=HOSTILE)
        assert all(v in (0, None) for r in rows(df) for v in r if not isinstance(v, str))
    assert rows(q.overview(con))[0][0] == 6  # the views are all still there
    assert {r[0] for r in con.cursor().sql("SELECT view_name FROM duckdb_views() WHERE NOT internal").fetchall()} \
        >= {"games", "seats", "actions", "melds", "xing", "rejects"}


def test_rows_written_from_outcomes(con):
    cur = con.cursor()
    assert cur.sql("SELECT count(*) FROM xing").fetchall() == [(3,)]  # wins with a 醒 card
    assert cur.sql("SELECT count(*), count(DISTINCT game_id) FROM melds").fetchall() == [(5, 5)]
    assert cur.sql("SELECT seat, player_id, dianpao FROM seats WHERE game_id = 'G2' ORDER BY seat").fetchall() == \
        [(0, "a", False), (1, "b", False), (2, "c", True)]
    assert cur.sql("SELECT is_winner, score FROM seats WHERE game_id = 'G6'").fetchall() == [(None, None)] * 3


def test_hardening(known, con, tmp_path):
    cur = con.cursor()
    outside = known.parent / (known.name + "2")  # shares the warehouse path as a prefix
    (outside / "games").mkdir(parents=True)
    duckdb.sql("SELECT 1 AS x").write_parquet(str(outside / "games" / "x.parquet"))
    for sql in ["SELECT * FROM read_csv('/etc/passwd')",
                f"SELECT * FROM read_parquet('{outside}/games/x.parquet')",
                "SET enable_external_access = true", "SET allowed_directories = ['/']",
                "INSTALL httpfs", f"ATTACH '{tmp_path}/x.duckdb'"]:
        with pytest.raises(duckdb.Error):
            cur.execute(sql)
    assert cur.sql("SELECT count(*) FROM games").fetchall() == [(6,)]  # reading the warehouse still works


def test_the_read_connection_cannot_attach_its_catalog_again_to_write(known, con):
    cur = con.cursor()
    for sql in [f"ATTACH 'ducklake:sqlite:{known}/catalog.sqlite' AS w (DATA_PATH '{known}/data/')",
                f"ATTACH '{known}/catalog.sqlite' AS s (TYPE sqlite)", "DELETE FROM games",
                "SELECT 1; DELETE FROM lake.games", f"COPY games TO '{known}/data/x.csv'", "CALL ducklake_expire_snapshots('lake')"]:
        with pytest.raises(duckdb.PermissionException, match="queries only"):
            cur.execute(sql)
        with pytest.raises(duckdb.PermissionException):
            con.sql(sql)
    assert con.sql("SELECT count(*) FROM games").fetchall() == [(6,)]
    assert connect(known).sql("SELECT count(*) FROM games").fetchall() == [(6,)]


def test_empty_warehouse_has_typed_empty_views(tmp_path):
    (tmp_path / "empty").mkdir()
    c = connect(tmp_path / "empty")
    assert rows(q.overview(c)) == [(0, 0, 0, 0, 0, None)]
    assert q.player_stats(c).height == 0
    assert dict(c.cursor().sql("DESCRIBE games").fetchall()[i][:2] for i in range(3)) == \
        {"game_id": "VARCHAR", "ruleset_id": "VARCHAR", "rules_json": "VARCHAR"}
    with pytest.raises(FileNotFoundError):
        connect(tmp_path / "missing")


# -- the worked example through the real engine ------------------------------------------------

@pytest.fixture(scope="module")
def short_wh(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("short") / "wh"
    rep = ingest([DATA / "guilin-short.jsonl"], root, workers=1, progress=False)
    assert (rep.total().read, rep.total().valid) == (1, 1)
    return root


def test_worked_example_figures(short_wh):
    c = connect(short_wh)
    assert rows(q.overview(c)) == [(1, 1, 0, 0, 1, 1.0)]
    assert rows(q.win_rate_by_seat(c)) == [(0, 1, 0, 0.0), (1, 1, 1, 1.0), (2, 1, 0, 0.0)]
    assert rows(q.mean_points(c)) == [("guilin", 1, 21.0, 3.0, 6.0)]
    assert rows(q.hand_type_freq(c)) == [("zimo", 1, 1.0)]
    assert rows(q.xing_distribution(c)) == [(2, 1, 1.0)]
    assert rows(q.win_kind_mix(c)) == [("zimo", 1, 1.0)]
    assert rows(q.draw_rate(c)) == [(1, 0, 0.0)]
    assert rows(q.score_flow(c)) == [("p:b", 1, 12, 0, 12), ("p:a", 1, 0, -6, -6), ("p:c", 1, 0, -6, -6)]
    assert c.cursor().sql("SELECT mode, cards, count FROM xing").fetchall() == [("shangzhongxia", ["x10"], 2)]


def test_cli_report(short_wh, tmp_path):
    from paipu.cli import app

    runner = CliRunner()
    res = runner.invoke(app, ["report", "--warehouse", str(short_wh)], env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    for text in ["胡率 win rate", "荒庄", "自摸 zimo", "醒", "平均舵", "p:b", "100.0%", "21.00", "6.00"]:
        assert text in res.output, text
    res = runner.invoke(app, ["report", "--warehouse", str(short_wh), "--ruleset", HOSTILE])
    assert res.exit_code == 0 and "p:b" not in res.output
    assert runner.invoke(app, ["report", "--warehouse", str(tmp_path / "none")]).exit_code == 2
