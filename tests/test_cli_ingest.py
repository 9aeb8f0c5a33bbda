"""``paipu ingest``'s output at 80 columns and in a pipe: one-word headers (no
``duplica``/``te``), a file name on one line (cut with … when it must be), a file's note under the
table; ``--json`` prints the run's report instead."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from paipu.cli import app

ROOT = Path(__file__).resolve().parent.parent
SHORT = (ROOT / "data" / "guilin-short.jsonl").read_bytes()


def logs(tmp_path: Path) -> Path:
    d = tmp_path / "logs"
    d.mkdir()
    (d / "tongcheng_gezi-3p-sim.jsonl").write_bytes(SHORT)
    (d / "a.jsonl.gz").write_bytes(b"\x1f\x8b\x08\x00cut")
    return d


def test_the_table_fits_80_columns(tmp_path):
    r = CliRunner().invoke(app, ["ingest", str(logs(tmp_path)), "--warehouse", str(tmp_path / "wh"), "--workers", "1"],
                           env={"COLUMNS": "80"})
    assert r.exit_code == 0, r.output
    out = r.stdout.splitlines()
    assert max(map(len, out)) <= 80
    (head,) = [ln for ln in out if ln.startswith("file ")]
    assert head.split() == ["file", "lines", "blank", "read", "valid", "invalid", "rejected", "duplicate"]
    rows = {ln.split()[0]: ln.split()[1:] for ln in out[out.index(head) + 2:] if ln and ln[0] != " "}
    assert rows["a.jsonl.gz"] == ["1", "0", "1", "0", "0", "1", "0"]
    (name,) = [k for k in rows if k.endswith("-sim.jsonl")]
    assert name == "…i-3p-sim.jsonl"  # its last 14 characters: the file column is 15 wide
    assert rows[name] == ["1", "0", "1", "1", "0", "0", "0"]
    assert rows["total"] == ["2", "0", "2", "1", "0", "1", "0"]
    (note,) = [ln for ln in out if ln.startswith("note: a.jsonl.gz: truncated or corrupt compressed stream")]
    assert ", 1 worker on process, engine " in " ".join(r.stdout.split())  # the line may wrap at a space


def test_json_is_the_report(tmp_path):
    r = CliRunner().invoke(app, ["ingest", str(logs(tmp_path)), "--warehouse", str(tmp_path / "wh"), "--workers", "1",
                                 "--json"])
    assert r.exit_code == 0, r.output
    rep = json.loads(r.stdout)
    assert {k: rep["total"][k] for k in ("lines", "read", "valid", "invalid", "rejected", "duplicate")} == {
        "lines": 2, "read": 2, "valid": 1, "invalid": 0, "rejected": 1, "duplicate": 0}
    assert [(Path(f["path"]).name, f["read"]) for f in rep["files"]] == [("a.jsonl.gz", 1),
                                                                        ("tongcheng_gezi-3p-sim.jsonl", 1)]
    assert rep["status"] == "done" and rep["rows"]["games"] == 1


def test_long_names_keep_the_end_that_tells_them_apart(tmp_path):
    """At 80 columns the file column is 15 wide (80 − the 7 count columns, 43, − 7 gaps of 3 − 1):
    a longer name keeps its last 14 characters after …."""
    d = tmp_path / "logs"
    d.mkdir()
    game = json.loads(SHORT)
    for seats in ("3p", "4p"):
        (d / f"tongcheng_gezi-server-a-{seats}.jsonl").write_text(
            json.dumps({**game, "game_id": f"g-{seats}"}, ensure_ascii=False) + "\n", encoding="utf-8")
    r = CliRunner().invoke(app, ["ingest", str(d), "--warehouse", str(tmp_path / "wh"), "--workers", "1"],
                           env={"COLUMNS": "80"})
    assert r.exit_code == 0, r.output
    names = [ln.split()[0] for ln in r.stdout.splitlines() if ln.startswith("…")]
    assert names == ["…ver-a-3p.jsonl", "…ver-a-4p.jsonl"]


def test_each_files_line_on_stderr_is_one_line(tmp_path):
    d = logs(tmp_path)
    r = CliRunner().invoke(app, ["ingest", str(d), "--warehouse", str(tmp_path / "wh"), "--workers", "1"],
                           env={"COLUMNS": "80"})
    assert r.exit_code == 0, r.output
    assert f"{d / 'tongcheng_gezi-3p-sim.jsonl'}: 1 lines = 0 blank + read 1 (1 valid, 0 invalid, 0 rejected, " \
           "0 duplicate)" in r.stderr.splitlines()
