"""``paipu report`` at 80 columns and in a pipe: no box, headers wrapped at their words
(never ``duplica``/``te``), every figure whole, no line wider than the terminal; ``--json`` gives
the tables' rows unformatted; progress by variant on stderr."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest
from rich.cells import cell_len
from typer.testing import CliRunner

from ingest.run import ingest
from paipu.cli import app
from replay.simulator import simulate

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def wh(tmp_path_factory):
    d = tmp_path_factory.mktemp("report")
    f = d / "zipai.jsonl"
    f.write_bytes(b"".join(msgspec.json.encode(r) + b"\n" for r in simulate("zipai", 16, 1, "heuristic", {})))
    ingest([f, ROOT / "data" / "guilin-short.jsonl"], d / "wh", workers=1, progress=False)
    return d / "wh"


def test_the_report_fits_80_columns(wh, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setenv("PAIPU_PROGRESS_SECONDS", "0")
    r = CliRunner().invoke(app, ["report", "--warehouse", str(wh)])
    assert r.exit_code == 0, r.output
    out = [ln.rstrip() for ln in r.stdout.splitlines()]
    assert max(cell_len(ln) for ln in out) <= 80
    assert not any("┃" in ln or "│" in ln for ln in out)  # no box
    head = out[out.index("总览 overview") + 1: out.index("总览 overview") + 5]
    words = " ".join(head).split()
    assert {"games", "valid", "invalid", "rejects", "read", "rate"} <= set(words)  # whole words, wrapped at spaces
    (total,) = [ln for ln in out if ln.split()[:2] == ["17", "17"]]  # 16 zipai + 1 guilin, all valid
    assert total.split()[-1] == "100.0%"
    players = out.index(next(ln for ln in out if ln.startswith("玩家 players")))
    assert "games" in " ".join(out[players + 1: players + 5]).split()
    lines = [ln for ln in r.stderr.splitlines() if ln.startswith("report: ")]
    assert [ln.split(",")[0] for ln in lines] == ["report: 1 variants", "report: 2 variants"]


def test_json_has_the_tables_rows(wh):
    r = CliRunner().invoke(app, ["report", "--warehouse", str(wh), "--json"])
    assert r.exit_code == 0, r.output
    items = json.loads(r.stdout)["report"]
    overview = next(i for i in items if i.get("title") == "总览 overview")
    assert overview["rows"] == [{"games": 17, "valid": 17, "invalid": 0, "rejects": 0, "read": 17, "valid_rate": 1.0}]
    assert {"text": "== 字牌 (zipai) =="} in items and {"text": "== 桂林字牌 (guilin) =="} in items
    seats = [i for i in items if i.get("title") == "胡率 win rate by seat"]
    assert len(seats) == 2 and sum(r["games"] for r in seats[0]["rows"]) == 16 * 3


def test_a_ruleset_is_shown_with_the_options_that_differ_from_the_defaults(tmp_path):
    """The worked example as logged (the defaults) and once more with ``tuo_step=3`` in its rules:
    two rulesets, the second named ``guilin-a1561d9054`` with ``tuo_step=3`` beside it."""
    short = json.loads((ROOT / "data" / "guilin-short.jsonl").read_text(encoding="utf-8"))
    f = tmp_path / "two.jsonl"
    f.write_text(json.dumps(short, ensure_ascii=False) + "\n" + json.dumps(
        {**short, "game_id": "example-guilin-step3", "rules": {"tuo_step": 3}}, ensure_ascii=False) + "\n",
        encoding="utf-8")
    ingest([f], tmp_path / "wh", workers=1, progress=False)
    r = CliRunner().invoke(app, ["report", "--warehouse", str(tmp_path / "wh"), "--json"])
    assert r.exit_code == 0, r.output
    items = json.loads(r.stdout)["report"]
    (rs,) = [i["rows"] for i in items if i.get("title") == "玩法与规则 variants and rulesets"]
    assert rs == [{"variant": "桂林字牌 (guilin)", "ruleset_id": "guilin-a1561d9054", "options": "tuo_step=3", "games": 1},
                  {"variant": "桂林字牌 (guilin)", "ruleset_id": "guilin-default", "options": "defaults", "games": 1}]
    r = CliRunner().invoke(app, ["report", "--warehouse", str(tmp_path / "wh"), "--ruleset", "guilin-a1561d9054"])
    assert r.stdout.startswith("paipu report — ruleset = guilin-a1561d9054 (tuo_step=3);")


def test_yuanjiang_means_name_its_xi_once(tmp_path):
    """沅江's units are the final 息 (spec §8: points = units): its means per win are 息 and 舵, never
    the same 息 a second time as units."""
    f = tmp_path / "yj.jsonl"
    f.write_bytes(b"".join(msgspec.json.encode(r) + b"\n" for r in simulate("yuanjiang_guihuzi", 8, 2, "heuristic", {})))
    ingest([f], tmp_path / "wh", workers=1, progress=False)
    r = CliRunner().invoke(app, ["report", "--warehouse", str(tmp_path / "wh"), "--variant", "yuanjiang_guihuzi",
                                 "--json"])
    assert r.exit_code == 0, r.output
    means = next(t for t in json.loads(r.stdout)["report"] if t.get("title") == "息 / 舵 means per win")
    assert "mean_points" in means["rows"][0] and "mean_units" not in means["rows"][0]
