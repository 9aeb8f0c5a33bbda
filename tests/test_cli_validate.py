"""``paipu validate`` reads and counts lines as ``paipu ingest`` does: the same reader
(a cut ``.jsonl.gz`` keeps its complete lines and is one ``paipu.compression`` reject, the files
after it are read), the same codes (bad UTF-8 is ``paipu.utf8``), the same accounting
(``read = valid + invalid + rejected + duplicate``, garbage is a reject, not a game)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from typer.testing import CliRunner

from ingest.run import ingest
from paipu.cli import app

ROOT = Path(__file__).resolve().parent.parent
SHORT = json.loads((ROOT / "data" / "guilin-short.jsonl").read_text(encoding="utf-8"))


def game(gid: str, **change) -> bytes:
    return json.dumps({**SHORT, "game_id": gid, **change}, ensure_ascii=False).encode()


def validate(*args: str):
    return CliRunner().invoke(app, ["validate", *map(str, args)])


def mixed_folder(tmp_path: Path) -> Path:
    """a.jsonl.gz cut in its third line; b.jsonl: garbage, bad UTF-8, a repeat, a conflict, a blank."""
    logs = tmp_path / "logs"
    logs.mkdir()
    last = gzip.compress(game("g-3") + b"\n")  # a second gzip member, cut in the middle
    (logs / "a.jsonl.gz").write_bytes(gzip.compress(game("g-1") + b"\n" + game("g-2") + b"\n") + last[: len(last) // 2])
    bad = game("g-4", result={**SHORT["result"], "units": 7})
    (logs / "b.jsonl").write_bytes(b"\n".join([b"garbage", b'{"game_id": "\xff"}', game("g-1"), bad, b"  ",
                                               game("g-2", table_id="other")]) + b"\n")
    return logs


def test_a_cut_gzip_is_one_reject_and_the_next_file_is_read(tmp_path):
    logs = mixed_folder(tmp_path)
    r = validate(logs)
    assert r.exit_code == 1, r.output
    out = r.stdout.splitlines()
    cut = [ln for ln in out if "a.jsonl.gz:" in ln]
    assert cut[0].endswith("a.jsonl.gz:1 g-1 valid (win seat 1 21 胡 units 6)")
    # the third line is cut: one reject with the reader's code and rule, after the complete lines
    assert any(" REJECTED bad_json [paipu.compression] " in ln for ln in cut)
    b = {int(ln.split(":")[1].split()[0]): ln for ln in out if "b.jsonl:" in ln}
    assert "REJECTED bad_json [paipu.json]" in b[1] and " None " not in b[1]
    assert "REJECTED bad_json [paipu.utf8]" in b[2]
    assert b[3].endswith("g-1 duplicate of an earlier line (counted once)")
    assert "g-4 INVALID" in b[4] and "result_mismatch" in b[4]
    assert "g-2 REJECTED duplicate_game [paipu.duplicate_game]" in b[6]


def test_validate_counts_what_ingest_counts(tmp_path):
    logs = mixed_folder(tmp_path)
    rep = ingest([logs], tmp_path / "wh", workers=1, progress=False)
    t = rep.total()
    r = validate(logs)
    assert r.stdout.splitlines()[-1] == (
        f"2 files, {t.lines} lines = {t.blank} blank + read {t.read}: {t.valid} valid, {t.invalid} invalid, "
        f"{t.rejected} rejected, {t.duplicate} duplicate")
    # worked out by hand: a.gz 2 valid + 1 cut; b: 1 invalid, 4 rejected (garbage, utf8, conflict)… and 1 duplicate
    assert (t.lines, t.blank, t.valid, t.invalid, t.rejected, t.duplicate) == (9, 1, 2, 1, 4, 1)


def test_json_lines_carry_status_and_place(tmp_path):
    logs = mixed_folder(tmp_path)
    r = validate("--json", logs)
    got = [json.loads(ln) for ln in r.stdout.splitlines()]
    assert [(Path(v["source_file"]).name, v["source_line"], v["status"]) for v in got] == [
        ("a.jsonl.gz", 1, "valid"), ("a.jsonl.gz", 2, "valid"), ("a.jsonl.gz", 3, "rejected"),
        ("b.jsonl", 1, "rejected"), ("b.jsonl", 2, "rejected"), ("b.jsonl", 3, "duplicate"),
        ("b.jsonl", 4, "invalid"), ("b.jsonl", 6, "rejected")]
    assert [e["rule"] for e in got[2]["errors"]] == ["paipu.compression"]
    assert (got[3]["valid"], got[3]["game_id"], got[3]["computed"]) == (False, None, None)
    assert [e["code"] for e in got[7]["errors"]] == ["duplicate_game"] and got[7]["game_id"] == "g-2"


def test_an_empty_file_is_said_and_counted(tmp_path):
    f = tmp_path / "empty.jsonl"
    f.write_bytes(b"\n \n")
    r = validate(f)
    assert r.exit_code == 0, r.output
    assert r.stdout.splitlines() == [f"{f}: no games (2 lines, 2 blank)",
                                     "1 file, 2 lines = 2 blank + read 0: 0 valid, 0 invalid, 0 rejected, 0 duplicate"]


def test_a_file_without_the_suffix_is_named_and_skipped(tmp_path):
    f = tmp_path / "notes.txt"
    f.write_bytes(game("g-1") + b"\n")
    r = validate(f)
    assert r.exit_code == 2
    assert f"skipped {f} (not a .jsonl, .jsonl.gz or .jsonl.zst file)" in r.stderr


def test_plain_progress_lines_when_not_on_a_terminal(tmp_path, monkeypatch):
    f = tmp_path / "a.jsonl"
    f.write_bytes(game("g-1") + b"\n" + game("g-2") + b"\n")
    monkeypatch.setenv("PAIPU_PROGRESS_SECONDS", "0")
    r = validate(f)
    lines = [ln for ln in r.stderr.splitlines() if ln.startswith("validate: ")]
    assert lines[0].startswith("validate: 1 lines, ") and "%, ETA " in lines[0]
    assert lines[-1].startswith("validate: 2 lines, ") and ", 100%, ETA 0:00" in lines[-1]


def test_a_valid_replay_rejected_for_a_huge_integer_says_why(tmp_path):
    # a game that replays valid but whose `round` no 64-bit warehouse column holds: ingest rejects
    # it (schema / paipu.int_range); validate must count and word it the same, in both modes
    f = tmp_path / "huge.jsonl"
    f.write_bytes(game("g-big", round=1 << 70) + b"\n" + game("g-ok") + b"\n")
    r = validate(f)
    assert r.exit_code == 1, r.output
    out = r.stdout.splitlines()
    assert out[0].endswith(f"huge.jsonl:1 g-big REJECTED schema [paipu.int_range] round = {1 << 70} does not fit a "
                           "64-bit integer"), out[0]
    assert out[-1].endswith("2 lines = 0 blank + read 2: 1 valid, 0 invalid, 1 rejected, 0 duplicate"), out[-1]
    j = [json.loads(x) for x in validate("--json", f).stdout.splitlines()]
    assert j[0]["status"] == "rejected" and j[0]["valid"] is False
    assert [(e["code"], e["rule"]) for e in j[0]["errors"]] == [("schema", "paipu.int_range")]
    assert j[1]["status"] == "valid" and j[1]["errors"] == []
