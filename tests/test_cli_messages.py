"""Messages a person reads: a card is named by its name and its code (``小十 (x10)``), a
card code no deck has is told which deck (``字牌``, not the family id ``zipai`` that reads as a
variant), and ``paipu score`` names the case (file, and line of a .jsonl) of each error."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from paipu.cli import app

ROOT = Path(__file__).resolve().parent.parent
SHORT = json.loads((ROOT / "data" / "guilin-short.jsonl").read_text(encoding="utf-8"))


def test_a_discard_not_held_names_the_card_and_its_code(tmp_path):
    rec = json.loads(json.dumps(SHORT))
    rec["actions"][2]["card"] = "x10"  # seat 1 holds no 小十
    f = tmp_path / "a.jsonl"
    f.write_text(json.dumps(rec, ensure_ascii=False) + "\n", encoding="utf-8")
    r = CliRunner().invoke(app, ["validate", "--json", str(f)])
    (v,) = [json.loads(ln) for ln in r.stdout.splitlines()]
    assert [(e["step"], e["code"], e["rule"], e["message"]) for e in v["errors"]] == [
        (2, "illegal_action", "guilin.discard", "seat 1 holds no 小十 (x10) to discard")]


def test_score_errors_name_the_case_and_the_deck(tmp_path):
    f = tmp_path / "cases.jsonl"
    f.write_text("\n".join([json.dumps({"variant": "guilin", "hand": ["x1", "x2"], "win_card": "q9"}), "",
                            json.dumps({"variant": "guilin", "hand": "x1"}),
                            json.dumps({"variant": "guilin", "hand": ["x1"] * 5, "win_card": "x1"})]) + "\n",
                 encoding="utf-8")
    r = CliRunner().invoke(app, ["score", str(f)])
    assert r.exit_code == 1
    got = [json.loads(ln) for ln in r.stdout.splitlines()]
    assert [(g["case"], g["error"]) for g in got] == [
        (f"{f}:1", "`q9` is not a card code of the 80-card 字牌 deck (x1, x2, x3 … d10; spec §3)"),
        (f"{f}:3", "hand is a list of cards"),
        (f"{f}:4", got[2]["error"])]
    assert "x1" in got[2]["error"]
    assert f"paipu score: {f}:1: `q9` is not a card code" in r.stderr
    assert "zipai" not in r.output
