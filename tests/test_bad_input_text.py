"""Text that does not encode: a JSON string with a lone surrogate (``"\\ud800"``), a cut-off
line holding one, and a file name that is not UTF-8 each end as one row — a reject, or a game whose
``source_file`` is written with a backslash escape — in ``paipu ingest`` and ``paipu validate``
alike; the run finishes (status ``done``) and the files after them are read."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from ingest.run import ingest
from ingest.views import connect
from ingest.warehouse import read_rows
from replay.record import utf8_text

ROOT = Path(__file__).resolve().parent.parent
SHORT = (ROOT / "data" / "guilin-short.jsonl").read_bytes().strip()
LONE = b'{"format":"paipu/1","game_id":"\\ud800","variant":"guilin"}'
CUT = b'{"game_id":"g\\udc80","format":"paipu/1","vari'
# a strict UTF-8 stdout, as in a terminal with LANG=*.UTF-8 (the C locale would escape silently)
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONIOENCODING": "utf-8:strict", "LC_ALL": "C.UTF-8"}


def game(gid: str) -> bytes:
    return json.dumps({**json.loads(SHORT), "game_id": gid}, ensure_ascii=False).encode()


def validate(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "from paipu.cli import main; main()", "validate", *args], env=ENV, capture_output=True,
                          timeout=120)


def test_utf8_text():
    assert utf8_text("牌谱 g-1") == "牌谱 g-1"
    assert utf8_text("\ud800") == "\\ud800"
    assert utf8_text("bad-\udcff.jsonl") == "bad-\\udcff.jsonl"
    assert utf8_text("a\udc80b😀").encode("utf-8") == b"a\\udc80b\xf0\x9f\x98\x80"


def test_a_lone_surrogate_is_one_reject_and_the_run_goes_on(tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "a.jsonl").write_bytes(b"\n".join([LONE, CUT, game("after-1")]) + b"\n")
    (logs / "b.jsonl").write_bytes(game("after-2") + b"\n")
    wh = tmp_path / "wh"
    for run in range(2):  # the same on a rerun: the lines stay rejects, the games are duplicates
        rep = ingest([logs], wh, workers=1, progress=False)
        assert rep.status == "done"
        assert [(f.lines, f.rejected, f.valid + f.duplicate) for f in rep.files] == [(3, 2, 1), (1, 0, 1)]
        runs = [json.loads(p.read_text("utf-8")) for p in (wh / "_meta" / "ingest_runs").glob("*.json")]
        assert len(runs) == run + 1 and {r["status"] for r in runs} == {"done"}
    rejects = sorted(read_rows(wh, "rejects"), key=lambda r: r["source_line"])
    assert [(r["source_line"], r["code"], r["rule"], r["game_id"]) for r in rejects] == [
        (1, "bad_json", "paipu.json", None), (2, "bad_json", "paipu.json", None)]
    assert "surrogate" in rejects[0]["message"] and rejects[0]["raw"] == LONE.decode()
    assert sorted(g["game_id"] for g in read_rows(wh, "games")) == ["after-1", "after-2"]
    con = connect(wh)
    assert con.sql("SELECT count(*) FROM rejects WHERE code = 'bad_json'").fetchall() == [(2,)]


def test_validate_gives_one_verdict_per_line(tmp_path):
    f = tmp_path / "a.jsonl"
    f.write_bytes(b"\n".join([LONE, CUT, game("after-1")]) + b"\n")
    p = validate("--json", str(f))
    assert p.returncode == 1, p.stderr.decode()
    got = [json.loads(x) for x in p.stdout.decode().splitlines()]
    assert [(v["game_id"], v["valid"], [(e["code"], e["rule"]) for e in v["errors"]]) for v in got] == [
        (None, False, [("bad_json", "paipu.json")]), (None, False, [("bad_json", "paipu.json")]),
        ("after-1", True, [])]
    p = validate(str(f))
    assert p.returncode == 1 and p.stdout.decode().splitlines()[-1] == (
        "1 file, 3 lines = 0 blank + read 3: 1 valid, 0 invalid, 2 rejected, 0 duplicate")


def test_a_file_name_that_is_not_utf8(tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    name = os.fsdecode(b"bad-\xff.jsonl")
    (logs / name).write_bytes(game("fn-1") + b"\n{oops\n")
    (logs / "z.jsonl").write_bytes(game("fn-2") + b"\n")
    wh = tmp_path / "wh"
    for _ in range(2):  # a rerun replaces the file's shards: the same rows, not twice
        rep = ingest([logs], wh, workers=1, progress=False)
        assert rep.status == "done" and [f.read for f in rep.files] == [2, 1]
    shown = utf8_text(str(logs / name))
    games = sorted(read_rows(wh, "games"), key=lambda g: g["game_id"])
    assert [(g["game_id"], g["source_file"]) for g in games] == [("fn-1", shown), ("fn-2", str(logs / "z.jsonl"))]
    (rej,) = read_rows(wh, "rejects")
    assert (rej["source_file"], rej["source_line"], rej["code"]) == (shown, 2, "bad_json")
    # the JSON run record and the run row name the file as the rows do (source_text: one text a path)
    records = [json.loads(p.read_text("utf-8")) for p in (wh / "_meta" / "ingest_runs").glob("*.json")]
    assert all(shown in {f["path"] for f in r["files"]} for r in records) and len(records) == 2
    rows = read_rows(wh, "ingest_runs")
    assert len(rows) == 2 and all(shown in {f["path"] for f in r["files"]} for r in rows)
    p = validate(str(logs))
    assert p.returncode == 1, p.stderr.decode()
    out = p.stdout.decode()
    assert f"{shown}:1 fn-1 valid" in out and f"{shown}:2 REJECTED bad_json [paipu.json]" in out
