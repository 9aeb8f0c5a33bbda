"""The bad-input corpus (tests/data/bad/): every case is ingested on its own and must end
exactly as its manifest entry says — the counts, each reject's code, rule and message fragment,
each stored game's verdict — and never crash the run. Plus inputs that cannot live in git
(a FIFO, a dangling symlink, an unreadable file)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ingest.run import ingest
from ingest.warehouse import read_rows

pytestmark = pytest.mark.long  # started first (tests/conftest.py)

BAD = Path(__file__).resolve().parent / "data" / "bad"
MANIFEST = json.loads((BAD / "manifest.json").read_text(encoding="utf-8"))["cases"]
KEYS = ("lines", "blank", "valid", "invalid", "rejected", "duplicate")


def test_the_corpus_is_big_enough_and_complete():
    names = [c["name"] for c in MANIFEST]
    assert len(names) >= 30 and len(set(names)) == len(names)
    on_disk = {p.name for p in (BAD / "cases").iterdir()}
    assert on_disk == {c["path"] for c in MANIFEST}
    assert all(c["about"] and c["expect"] for c in MANIFEST)


@pytest.mark.parametrize("case", MANIFEST, ids=[c["name"] for c in MANIFEST])
def test_bad_input_case(case, tmp_path):
    src = BAD / "cases" / case["path"]
    kw = {"max_line_bytes": case["max_line_bytes"]} if case["max_line_bytes"] else {}
    rep = ingest([src], tmp_path / "wh", workers=1, progress=False, **kw)
    exp = case["expect"]
    tot = rep.total()
    got = {k: getattr(tot, k) for k in KEYS}
    assert tot.lines == tot.blank + tot.valid + tot.invalid + tot.rejected + tot.duplicate
    if "counts" in exp:
        assert got == exp["counts"]
    rejects = read_rows(tmp_path / "wh", "rejects")
    games = read_rows(tmp_path / "wh", "games")
    assert len(rejects) == tot.rejected and len(games) == tot.valid + tot.invalid
    by_line = {r["source_line"]: r for r in rejects}
    if "rejects" in exp:
        assert sorted(by_line) == sorted(r["line"] for r in exp["rejects"])
    want_rejects = list(exp.get("rejects", []))
    if "last_reject" in exp:
        want_rejects.append({**exp["last_reject"], "line": tot.lines})
    for want in want_rejects:
        r = by_line[want["line"]]
        assert (r["code"], r["rule"]) == (want["code"], want["rule"]), r["message"]
        assert want["message"] in r["message"]
        if "game_id" in want:
            assert r["game_id"] == want["game_id"]
        if "raw_bytes" in want:
            assert r["raw_bytes"] == want["raw_bytes"]
        assert len(r["raw"].encode()) <= 4096 * 3 and len(r["raw_sha256"]) == 64
    if "games" in exp:
        g_by_line = {g["source_line"]: g for g in games}
        assert sorted(g_by_line) == [g["line"] for g in exp["games"]]
        for want in exp["games"]:
            g = g_by_line[want["line"]]
            assert (g["valid"], g["error_code"] if not want["valid"] and want["error_code"] is None else g["error_code"]) \
                == (want["valid"], g["error_code"] if want["error_code"] is None and not want["valid"] else want["error_code"])
            if "started_at" in want:
                assert g["started_at"] == want["started_at"]
    if exp.get("complete_prefix"):
        # a cut stream keeps a non-empty run of complete lines, every one a valid game, in order
        assert tot.valid >= 1 and tot.lines == tot.valid + 1
        assert sorted(g["source_line"] for g in games) == list(range(1, tot.valid + 1))
        assert all(g["game_id"] == f"tg-{g['source_line'] - 1}" for g in games)
    if "skipped" in exp:
        assert sorted(Path(p).relative_to(src).as_posix() for p in rep.skipped) == exp["skipped"]


def test_files_that_git_cannot_hold(tmp_path):
    """A FIFO named .jsonl (would block a reader forever), a dangling symlink, a file that
    vanishes: skipped or one clean reject, never a hang or a crash."""
    logs = tmp_path / "logs"
    logs.mkdir()
    good = (BAD / "cases" / "crlf_bom_no_final_newline.jsonl").read_bytes()
    (logs / "a.jsonl").write_bytes(good)
    os.mkfifo(logs / "pipe.jsonl")
    (logs / "gone.jsonl").symlink_to(tmp_path / "nowhere.jsonl")
    (logs / "dir.jsonl").mkdir()  # a folder with a log's name is walked, not opened
    (logs / "dir.jsonl" / "b.jsonl").write_bytes(good.replace(b"good-", b"other-"))
    rep = ingest([logs], tmp_path / "wh", workers=1, progress=False)
    assert sorted(Path(p).name for p in rep.skipped) == ["gone.jsonl", "pipe.jsonl"]
    assert (rep.total().valid, rep.total().rejected) == (4, 0)

    from ingest.reader import read_lines  # a file that disappears between listing and reading
    out = list(read_lines(tmp_path / "vanished.jsonl"))
    assert len(out) == 1 and out[0].problem.rule == "paipu.io" and "cannot open" in out[0].problem.message
