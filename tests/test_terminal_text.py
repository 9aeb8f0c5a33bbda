"""Log text printed by the commands is shown, never acted on by the terminal: an escape sequence
(ESC [ … m colours, ESC ] … titles, cursor moves), a carriage return or a bidi override in a game
id, a player name or a message reaches stdout as its backslash escape (replay.record.terminal_text)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from replay.record import terminal_text

ROOT = Path(__file__).resolve().parent.parent
SHORT = json.loads((ROOT / "data" / "guilin-short.jsonl").read_bytes())
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONIOENCODING": "utf-8:strict", "LC_ALL": "C.UTF-8"}
EVIL = "g\x1b[2J\x1b]0;owned\x07\r\u202eevil"


def paipu(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "from paipu.cli import main; main()", *args], env=ENV,
                          capture_output=True, timeout=300)


def test_terminal_text_escapes_controls_and_bidi_only():
    assert terminal_text("牌谱 g-1 ok") == "牌谱 g-1 ok"
    assert terminal_text(EVIL) == "g\\x1b[2J\\x1b]0;owned\\x07\\x0d\\u202eevil"
    assert terminal_text("a\nb\tc\x85\u2028\u2066") == "a\\x0ab\\x09c\\x85\\u2028\\u2066"
    assert terminal_text("\udcff") == "\\udcff"  # utf8_text first


def test_validate_prints_a_hostile_game_id_as_text(tmp_path):
    log = tmp_path / "evil.jsonl"
    rec = {**SHORT, "game_id": EVIL, "seats": ["p\x1b[31mred", *SHORT["seats"][1:]]}
    bad = {**rec, "game_id": EVIL + "2", "result": {**rec["result"], "points": 99}}
    log.write_text(json.dumps(rec) + "\n" + json.dumps(bad) + "\n")
    p = paipu("validate", str(log))
    out = p.stdout.decode()
    assert p.returncode == 1, p.stderr
    lines = out.splitlines()
    assert len(lines) == 3 and not any(c in out for c in "\x1b\x07\r\u202e")  # two verdicts and the totals
    assert lines[0].endswith(f"{terminal_text(EVIL)} valid (win seat {SHORT['result']['winner']} "
                             f"{SHORT['result']['points']} 胡 units {SHORT['result']['units']})")
    assert f"{terminal_text(EVIL)}2 INVALID" in lines[1] and "result_mismatch" in lines[1]


def test_audit_prints_a_hostile_player_name_as_text(tmp_path):
    log = tmp_path / "evil.jsonl"
    log.write_text(json.dumps({**SHORT, "game_id": "evil-1", "seats": ["p\x1b[31mred\u202e", *SHORT["seats"][1:]]}) + "\n")
    wh = tmp_path / "wh"
    assert paipu("ingest", str(log), "--warehouse", str(wh)).returncode == 0
    p = paipu("audit", "evil-1", "--warehouse", str(wh))
    out = p.stdout.decode()
    assert p.returncode == 0, p.stderr.decode()
    assert "\x1b" not in out and "\u202e" not in out
    assert "p\\x1b[31mred\\u202e" in out


def test_ingest_report_prints_a_hostile_file_name_as_text(tmp_path):
    name = "[red]s\x1b[2J\u202e.jsonl"  # markup and escapes: both shown as text
    log = tmp_path / name
    log.write_text(json.dumps({**SHORT, "game_id": "evil-2"}) + "\n{bad\n")
    p = paipu("ingest", str(log), "--warehouse", str(tmp_path / "wh"))
    out = p.stdout.decode() + p.stderr.decode()
    assert "\x1b" not in out and "\u202e" not in out
    # the name as text: whole in the per-file line, its end in the table's row (a long name keeps its end there)
    assert out.count("[red]s\\x1b[2J\\u202e.jsonl: 2 lines = 0 blank + read 2") == 1, out
    assert "\n…2J\\u202e.jsonl " in out, out


def test_report_prints_a_hostile_player_id_as_text(tmp_path):
    log = tmp_path / "evil.jsonl"
    seats = ["[bold]p\x1b[31m", *SHORT["seats"][1:]]
    log.write_text(json.dumps({**SHORT, "game_id": "evil-3", "seats": seats}) + "\n")
    wh = tmp_path / "wh"
    assert paipu("ingest", str(log), "--warehouse", str(wh)).returncode == 0
    p = paipu("report", "--warehouse", str(wh), "--variant", SHORT["variant"])
    out = p.stdout.decode()
    assert p.returncode == 0, p.stderr.decode()
    assert "\x1b" not in out
    assert "[bold]p\\x1b[31m" in out  # the player id whole, as text (rich would read [bold] as markup)
