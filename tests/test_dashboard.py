"""The Streamlit dashboard (dashboards/) on a small hand-built warehouse, an empty one and a
rejects-only one, plus the audit deep link, an injection attempt and ``paipu audit``.

The warehouse here is written with polars following docs/warehouse.md; once ingest lands it can
be swapped for a real ingested one.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import duckdb
import polars as pl
import pytest
import typer
from apptest_util import open_page, page_text
from streamlit.testing.v1 import AppTest
from typer.testing import CliRunner

from dashboards import audit as audit_mod
from dashboards import data
from dashboards.cli import audit_cmd

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = (ROOT / "data" / "guilin-short.jsonl").read_text(encoding="utf-8").strip()
NOW = datetime(2026, 11, 29, 12, 0, tzinfo=timezone.utc)
PAGES = ["screens/overview.py", "screens/hand-types.py", "screens/audit.py"]
TIMEOUT = 30


def _record(game_id: str, **change) -> str:
    rec = json.loads(EXAMPLE)
    rec["game_id"] = game_id
    rec.update(change)
    return json.dumps(rec, ensure_ascii=False)


# (game_id, ruleset, valid, error (code, step), outcome, winner, win_kind, points, tuo, units, xing, hand_types)
GAMES = [
    ("example-guilin-1", "guilin-default", True, None, "win", 1, "zimo", 21, 3, 6, 2, ["zimo"]),
    ("g-dealer-dianpao", "guilin-default", True, None, "win", 0, "dianpao", 15, 2, 2, 0, []),
    ("g-draw", "guilin-default", True, None, "draw", None, None, None, None, None, None, []),
    ("g-dealer-flip", "guilin-abc", True, None, "win", 0, "flip", 30, 5, 7, 1, []),
    ("bad-illegal", "guilin-default", False, ("out_of_turn", 3), None, None, None, None, None, None, None, []),
    ("bad-mismatch", "guilin-default", False, ("result_mismatch", 8), "win", 1, "zimo", 21, 3, 6, 2, ["zimo"]),
]
# valid decided games: 4; dealer (seat 0) wins 2 of 4, others 1 of 8; one 荒庄 in 4
DEALER_RATE, NON_DEALER_RATE, DRAW_RATE = "50.0%", "12.5%", "25.0%"


def _write(root: Path, table: str, variant: str, rows: list[dict], schema: dict) -> None:
    folder = root / table / f"variant={variant}"
    folder.mkdir(parents=True, exist_ok=True)
    pl.DataFrame(rows, schema=schema, orient="row").write_parquet(folder / "part-0.parquet")


def _rejects(root: Path) -> None:
    schema = {"source_file": pl.String, "source_line": pl.Int64, "game_id": pl.String, "code": pl.String,
              "step": pl.Int64, "rule": pl.String, "message": pl.String, "raw_sha256": pl.String, "raw": pl.String}
    _write(root, "rejects", "_unknown", [
        {"source_file": "logs.jsonl", "source_line": 7, "game_id": None, "code": "bad_json", "step": None,
         "rule": "paipu.json", "message": "not valid JSON", "raw_sha256": "00", "raw": "{oops"}], schema)
    _write(root, "rejects", "guilin", [
        {"source_file": "logs.jsonl", "source_line": 9, "game_id": "rejected-1", "code": "schema", "step": None,
         "rule": "paipu.schema", "message": "missing `deal`", "raw_sha256": "01", "raw": "{}"}], schema)


def _games(root: Path) -> None:
    games, seats = [], []
    for gid, rs, valid, err, outcome, winner, kind, pts, tuo, units, xing, types in GAMES:
        if gid == "bad-illegal":  # seat 0 draws out of turn at step 3
            rec = json.loads(_record(gid))
            rec["actions"][3]["seat"] = 0
            raw = json.dumps(rec)
        elif gid == "bad-mismatch":
            rec = json.loads(_record(gid))
            rec["result"]["points"] = 25
            raw = json.dumps(rec)
        else:
            raw = _record(gid)
        games.append({
            "game_id": gid, "ruleset_id": rs, "rules_json": "{}", "engine_version": "0.1.0",
            "record_sha256": gid, "source_file": "logs.jsonl", "source_line": len(games) + 1, "started_at": NOW,
            "table_id": "t1", "round": 1, "stake": 1, "n_seats": 3, "dealer": 0, "valid": valid,
            "error_code": err and err[0], "error_rule": err and ("guilin.turn" if err[0] != "result_mismatch" else "paipu.result"),
            "error_message": err and ("result.points: claimed 25, computed 21" if err[0] == "result_mismatch"
                                      else "expected seat 2 to draw, got `draw` by seat 0"),
            "error_step": err and err[1], "n_errors": 1 if err else 0, "n_actions": 9, "outcome": outcome,
            "winner": winner, "win_card": "d7" if outcome == "win" else None,
            "win_from": 2 if kind == "dianpao" else None, "win_kind": kind, "points": pts, "units": units,
            "tuo": tuo, "hand_types": types, "xing_count": xing,
            "breakdown_json": json.dumps({"tuo": tuo}) if tuo else None, "claimed": True,
            "claim_matches": None if outcome is None else gid != "bad-mismatch", "wall_left": 16,
            "record_json": raw, "ingested_at": NOW})
        for s in range(3):  # as ingest writes them: is_winner null when replay failed (outcome null)
            seats.append({"game_id": gid, "ruleset_id": rs, "seat": s, "player_id": f"p:{'abc'[s]}",
                          "is_dealer": s == 0, "is_winner": None if outcome is None else winner == s,
                          "score": None if outcome is None else
                          ((12 if s == winner else -6) if outcome == "win" else 0),
                          "dianpao": False, "n_melds": 0, "valid": valid})
    gschema = {"game_id": pl.String, "ruleset_id": pl.String, "rules_json": pl.String, "engine_version": pl.String,
               "record_sha256": pl.String, "source_file": pl.String, "source_line": pl.Int64,
               "started_at": pl.Datetime("us", "UTC"), "table_id": pl.String, "round": pl.Int64, "stake": pl.Int64,
               "n_seats": pl.Int64, "dealer": pl.Int64, "valid": pl.Boolean, "error_code": pl.String,
               "error_rule": pl.String, "error_message": pl.String, "error_step": pl.Int64, "n_errors": pl.Int64,
               "n_actions": pl.Int64, "outcome": pl.String, "winner": pl.Int64, "win_card": pl.String,
               "win_from": pl.Int64, "win_kind": pl.String, "points": pl.Int64, "units": pl.Int64, "tuo": pl.Int64,
               "hand_types": pl.List(pl.String), "xing_count": pl.Int64, "breakdown_json": pl.String,
               "claimed": pl.Boolean, "claim_matches": pl.Boolean, "wall_left": pl.Int64, "record_json": pl.String,
               "ingested_at": pl.Datetime("us", "UTC")}
    sschema = {"game_id": pl.String, "ruleset_id": pl.String, "seat": pl.Int64, "player_id": pl.String,
               "is_dealer": pl.Boolean, "is_winner": pl.Boolean, "score": pl.Int64, "dianpao": pl.Boolean,
               "n_melds": pl.Int64, "valid": pl.Boolean}
    _write(root, "games", "guilin", games, gschema)
    _write(root, "seats", "guilin", seats, sschema)


@pytest.fixture(scope="module")
def full(tmp_path_factory) -> Path:
    """Warehouse: six guilin games (4 valid, 2 invalid) and two rejected lines."""
    root = tmp_path_factory.mktemp("wh_full")
    _games(root)
    _rejects(root)
    (root / "_meta").mkdir()
    return root


@pytest.fixture(scope="module")
def empty(tmp_path_factory) -> Path:
    """Warehouse: an empty folder (nothing ingested yet)."""
    root = tmp_path_factory.mktemp("wh_empty")
    (root / "_meta").mkdir()
    return root


@pytest.fixture(scope="module")
def rejects_only(tmp_path_factory) -> Path:
    """Warehouse: only rejected lines, no game."""
    root = tmp_path_factory.mktemp("wh_rejects")
    _rejects(root)
    return root


def _open(monkeypatch, warehouse, page: str, **params: str) -> AppTest:
    return open_page(monkeypatch, warehouse, page, timeout=TIMEOUT, **params)


def _text(at: AppTest) -> str:
    return page_text(at, code=True)



def _metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


@pytest.mark.parametrize("page", PAGES)
@pytest.mark.parametrize("which", ["full", "empty", "rejects_only"])
def test_every_page_renders(request, monkeypatch, page, which):
    """Every page runs without an exception on every kind of warehouse."""
    _open(monkeypatch, request.getfixturevalue(which), page)


def test_overview_numbers(monkeypatch, full):
    """Overview metrics equal the fixture's numbers; the charts are drawn."""
    at = _open(monkeypatch, full, PAGES[0])
    m = _metrics(at)
    assert m["对局 games"] == "6" and m["有效 valid"] == "4" and m["无效 invalid"] == "2"
    assert m["拒收 rejected lines"] == "2"
    assert m["庄家胡率 dealer win rate"] == DEALER_RATE
    assert m["闲家胡率 non-dealer win rate"] == NON_DEALER_RATE
    assert m["荒庄率 draw rate"] == DRAW_RATE
    assert m["平均胡 mean 胡"] == "22.0"  # (21 + 15 + 30) / 3
    assert m["平均舵 mean tuo"] == "3.3"
    assert len(at.get("vega_lite_chart")) >= 6  # two over time, seat, role, kinds, errors, rejects
    assert at.query_params["variant"] == "guilin"  # the one variant in scope is in the URL


def test_overview_filters(monkeypatch, full):
    """The valid-only switch and the ruleset filter change the numbers."""
    at = _open(monkeypatch, full, PAGES[0])
    at.toggle(key="f_valid").set_value(False).run()  # bad-mismatch (seat 1 wins) joins the statistics
    assert _metrics(at)["庄家胡率 dealer win rate"] == "40.0%"
    at.multiselect(key="f_rulesets").set_value(["guilin-abc"]).run()
    m = _metrics(at)
    assert m["对局 games"] == "1" and m["庄家胡率 dealer win rate"] == "100.0%"


def test_hand_types(monkeypatch, full):
    """Hand-type frequency counts the fixture's one 自摸 among three wins."""
    at = _open(monkeypatch, full, PAGES[1])
    assert _metrics(at)["胡牌局 wins"] == "3"
    table = at.dataframe[0].value
    row = table[table["牌型 hand type"] == "自摸 (zimo)"]
    assert int(row["局 wins"].iloc[0]) == 1
    assert len(at.get("vega_lite_chart")) == 4


def test_audit_deep_link_invalid(monkeypatch, full):
    """?game=ID opens that game at its first failing step with the verdict."""
    at = _open(monkeypatch, full, PAGES[2], game="bad-illegal")
    text = _text(at)
    assert "bad-illegal" in text
    assert at.error[0].value.startswith("无效 invalid") and "out_of_turn" in at.error[0].value
    assert at.slider[0].value == 3  # opens at the first failing step
    assert at.query_params["step"] == "3"
    assert "小八" in text  # the event card, as a card name


def test_audit_deep_link_valid_and_step(monkeypatch, full):
    """?step=N is honoured; cards are shown by name and colour; next moves the URL."""
    at = _open(monkeypatch, full, PAGES[2], game="example-guilin-1", step="4")
    assert at.success[0].value.startswith("有效 valid")
    assert at.slider[0].value == 4
    body = _text(at)
    assert "扫" in body and "#c62828" in body  # 扫 小八; red cards (小二, 柒, …) shown red
    diff = at.table[-1].value
    assert set(diff["一致 match"]) <= {"✓", "—"}
    at.button[1].click().run()  # next step
    assert at.slider[0].value == 5 and at.query_params["step"] == "5"


def test_audit_action_list_wall_and_when_seats_are_shown(monkeypatch, full):
    """Every logged action is listed (act and cards in words); the rest of the wall after the step
    is the dealt wall less the draws so far; the page says the seats are after the step."""
    rec = json.loads(EXAMPLE)
    at = _open(monkeypatch, full, PAGES[2], game="example-guilin-1", step="4")
    acts = at.dataframe[0].value
    assert len(acts) == len(rec["actions"]) == 9
    assert acts["动作 act"].tolist()[4] == "扫 sao" and acts["牌 cards"].tolist()[4] == "小八 + 小八 小八"
    assert acts[" "].tolist()[4] == "▶"  # the current step is marked
    drawn = sum(1 for ev in rec["actions"][:5] if ev["act"] == "draw")
    rest = rec["deal"]["wall"][drawn:]
    body = _text(at)
    assert f"rest of the wall ({len(rest)}" in body and len(rest) == 18  # 19 dealt, one drawn
    assert body.count('title="') >= len(rest)
    assert any("shown after step 4" in c.value for c in at.caption)
    from dashboards.audit import wall_after
    assert wall_after(rec, 4, 18) == rest and wall_after(rec, 4, 17) is None  # disagreeing count: not guessed
    at = _open(monkeypatch, full, PAGES[2], game="example-guilin-1", step="8")  # the 胡: the 醒 card turned
    assert "醒 xing card(s) turned — 2 醒 matched" in _text(at)


def test_audit_claim_mismatch(monkeypatch, full):
    """A claimed 25 胡 where the engine counts 21: the split group by group with its rules
    (001 §玩法规则: 吃 小一二三 3, 坎 大四 6, 大壹贰叁 6, 大贰柒拾 6, three 顺子 0), the sum, the worked
    舵 (1 + ⌊11/5⌋ = 3, 自摸 +1, 醒 2 = 6), the term that differs, and the field marked in the table."""
    at = _open(monkeypatch, full, PAGES[2], game="bad-mismatch")
    split = at.table[0].value
    assert sorted(zip(split["种类 kind"], split["胡"])) == sorted(
        [("吃 chi", 3), ("坎 kan", 6), ("顺子 shunzi", 0), ("顺子 shunzi", 0), ("一二三 yi_er_san", 6),
         ("二七十 er_qi_shi", 6), ("顺子 shunzi", 0)])
    # the rule by its words and a link to its section of the rules doc served by the app (no seed file
    # number or repository path): docs/rules/guilin.md "## Winning shape and 胡"
    assert split[split["种类 kind"] == "坎 kan"]["规则 rule"].iloc[0] == (
        "坎 大 6 小 3 · [§Winning shape and 胡](rules?doc=guilin&section=Winning+shape+and+%E8%83%A1)")
    body = _text(at)
    assert "3 + 6 + 0 + 0 + 6 + 6 + 0 = 21 胡" in body.replace("**", "") or "= 21 胡" in body
    assert "舵 3 + 自摸 1 + 醒 2 = 6 舵" in body
    part = next(e.value for e in at.error if "Where they part" in e.value)
    assert "胡 points: 申报 claimed 25, 计算 computed 21" in part
    terms = at.table[1].value.set_index("项 term")
    assert terms.loc["胡 points", "一致 match"].startswith("✗") and terms.loc["舵 (tuo)", "一致 match"] == "✓"
    diff = at.table[-1].value
    row = diff[diff["字段 field"] == "胡 points"]
    assert row["申报 claimed"].iloc[0] == "25" and row["计算 computed"].iloc[0] == "21"
    assert row["一致 match"].iloc[0].startswith("✗")


def test_audit_sql_injection_is_harmless(monkeypatch, full):
    """An injection string as ?game= is just an unknown id."""
    evil = "x' OR '1'='1' --"
    at = _open(monkeypatch, full, PAGES[2], game=evil)
    assert any("未找到" in w.value and "not found" in w.value for w in at.warning)
    assert not at.slider and not at.success and not at.error
    assert "example-guilin-1" not in _text(at)


def test_audit_rejected_id(monkeypatch, rejects_only):
    """An id whose line was rejected shows the reject and the bytes kept, not an error."""
    at = _open(monkeypatch, rejects_only, PAGES[2], game="rejected-1")
    assert any("拒收" in w.value for w in at.warning)
    assert "格式错误 schema" in at.error[0].value and "missing `deal`" in at.error[0].value
    assert at.code[0].value == "{}"


def test_audit_opens_a_rejected_line(monkeypatch, rejects_only):
    """?file=&line= opens one rejected line as stored: where, code, message and the raw text."""
    at = _open(monkeypatch, rejects_only, PAGES[2], file="logs.jsonl", line="7")
    assert "非 JSON bad_json" in at.error[0].value and "not valid JSON" in at.error[0].value
    assert at.code[0].value == "{oops"
    assert "logs.jsonl:7" in _text(at)
    at = _open(monkeypatch, rejects_only, PAGES[2], file="logs.jsonl", line="8")
    assert any("No such rejected line" in w.value for w in at.warning)


def test_a_rejected_line_is_found_by_its_path_as_stored_or_by_its_end():
    """``?file=`` takes the stored (absolute) path, or its end from a folder on when one stored
    file ends so: two stored ``x.jsonl`` make the bare name ambiguous, never a guess."""
    import duckdb

    from dashboards.data import reject_files, reject_line

    con = duckdb.connect()
    con.sql("""CREATE TABLE rejects AS SELECT source_file, source_line, NULL AS game_id, code, NULL AS rule,
               NULL AS step, NULL AS message, NULL AS variant, NULL AS claimed_variant, NULL AS raw,
               NULL AS raw_bytes, NULL AS raw_sha256, ingested_at FROM (VALUES
               ('/srv/a/logs/x.jsonl', 3, 'bad_json', TIMESTAMP '2026-10-01 10:00'),
               ('/srv/b/logs/x.jsonl', 3, 'schema', TIMESTAMP '2026-10-02 10:00'),
               ('/srv/a/logs/y.jsonl', 3, 'schema', TIMESTAMP '2026-10-01 10:00'))
               AS t(source_file, source_line, code, ingested_at)""")

    def found(f: str, n: int = 3):
        row = reject_line(con, f, n)
        return None if row is None else (row["source_file"], row["code"])

    assert found("/srv/b/logs/x.jsonl") == ("/srv/b/logs/x.jsonl", "schema")
    assert found("a/logs/x.jsonl") == found("/srv/a/logs/x.jsonl") == ("/srv/a/logs/x.jsonl", "bad_json")
    assert found("y.jsonl") == ("/srv/a/logs/y.jsonl", "schema")
    assert found("x.jsonl") is None and found("logs/x.jsonl") is None  # two stored files end so
    assert reject_files(con, "logs/x.jsonl", 3) == ["/srv/a/logs/x.jsonl", "/srv/b/logs/x.jsonl"]  # the page lists them
    assert reject_files(con, "a/logs/x.jsonl", 3) == ["/srv/a/logs/x.jsonl"] and reject_files(con, "x.jsonl", 4) == []
    assert found("gs/y.jsonl") is None and found("y.jsonl", 4) is None  # a folder's end is not a folder


def test_empty_and_rejects_only_messages(monkeypatch, empty, rejects_only):
    """Empty and rejects-only warehouses get friendly messages."""
    at = _open(monkeypatch, empty, PAGES[0])
    assert "空" in at.info[0].value
    at = _open(monkeypatch, rejects_only, PAGES[0])
    assert _metrics(at)["拒收 rejected lines"] == "2"
    assert "只有拒收" in at.warning[0].value
    at = _open(monkeypatch, rejects_only, PAGES[1])
    assert "没有对局" in at.info[0].value


def test_no_warehouse_configured(monkeypatch):
    """Without a warehouse the app says how to give one."""
    at = _open(monkeypatch, None, PAGES[0])
    assert "PAIPU_WAREHOUSE" in at.info[0].value


def test_connection_is_hardened(full, tmp_path):
    """Views read the warehouse; other files, ATTACH and settings are refused."""
    con = data.connect(full)
    assert con.sql("SELECT count(*) FROM games").fetchall() == [(6,)]
    assert con.sql("SELECT count(*) FROM xing").fetchall() == [(0,)]  # no shard yet: empty typed view
    sibling = Path(str(full) + "2")  # same prefix as the warehouse, outside it
    sibling.mkdir(exist_ok=True)
    (sibling / "x.csv").write_text("a\n1\n")
    for sql in ("SELECT * FROM read_csv('/etc/passwd')", f"SELECT * FROM read_csv('{sibling}/x.csv')",
                "SET enable_external_access = true", f"ATTACH '{tmp_path}/paipu-test.db'"):
        with pytest.raises(duckdb.Error):
            con.sql(sql).fetchall()


def test_audit_cli(full):
    """``paipu audit`` prints verdict, steps (cards by name) and exits 1 for an unknown id."""
    app = typer.Typer()
    app.command()(audit_cmd)
    res = CliRunner().invoke(app, ["bad-mismatch", "--warehouse", str(full)], env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    assert "无效 invalid" in res.output and "result_mismatch" in res.output and "小八" in res.output
    # the dispute explained as on the page: the split's sum, the worked 舵, where they part
    assert "3 + 6 + 0 + 0 + 6 + 6 + 0 = 21 胡" in res.output and "舵 3 + 自摸 1 + 醒 2 = 6 舵" in res.output
    assert "where they part: 胡 points: 申报 claimed 25, 计算 computed 21" in res.output
    res = CliRunner().invoke(app, ["nope' OR 1=1 --", "--warehouse", str(full)])
    assert res.exit_code == 1 and "not found" in res.output


def test_audit_without_engine_uses_simple_tracking(monkeypatch, full):
    """While replay.audit is missing or fails, the audit still shows the steps (cards moved as
    logged) with the verdict stored at ingest."""
    monkeypatch.setattr(audit_mod, "engine_audit", lambda: None)
    con = data.connect(full)
    row = data.find_game(con, "bad-illegal")
    a = audit_mod.build(row, data.game_seats(con, "bad-illegal", "guilin"))
    assert not a["engine"] and a["note"]
    assert [s["step"] for s in a["steps"]] == [-1, 0, 1, 2, 3]  # stops at the stored error step
    assert a["steps"][-1]["error"]["code"] == "out_of_turn"
    after_sao = audit_mod.build(data.find_game(con, "example-guilin-1"))["steps"]
    seat2 = after_sao[5]["seats"][2]  # step 4: seat 2 扫 小八
    assert seat2["melds"][0]["kind"] == "sao" and sorted(seat2["melds"][0]["cards"]) == ["x8"] * 3
    assert after_sao[-1]["wall_left"] == 16
