"""Idempotence and duplicates: a game is stored once per ``game_id``; the same content
again is a counted duplicate, other content under the same id is a ``duplicate_game`` reject that
names both sources — within a file, across files and across runs."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
from pathlib import Path

import pytest

from ingest.run import ingest
from ingest.warehouse import read_rows

pytestmark = pytest.mark.long  # started first (tests/conftest.py)

DATA = Path(__file__).resolve().parent.parent / "data"
SHORT = json.loads((DATA / "guilin-short.jsonl").read_bytes())


def rec(gid: str, **extra) -> bytes:
    """The worked example under another ``game_id`` (``extra`` adds/changes top-level fields)."""
    return json.dumps({**SHORT, "game_id": gid, **extra}, ensure_ascii=False).encode()


def write(path: Path, lines: list[bytes]) -> Path:
    data = b"\n".join(lines) + b"\n"
    path.write_bytes(gzip.compress(data) if path.name.endswith(".gz") else data)
    return path


def run(paths, wh):
    return ingest(paths, wh, workers=1, progress=False, max_line_bytes=4096)


def snapshot(wh: Path) -> dict[str, list[str]]:
    """Every table's rows (without ``ingested_at``), sorted, as JSON text."""
    out = {}
    for t in ("games", "seats", "actions", "melds", "xing", "rejects"):
        out[t] = sorted(json.dumps({k: v for k, v in r.items() if k != "ingested_at"}, sort_keys=True, default=str)
                        for r in read_rows(wh, t))
    return out


def counts(rep):
    t = rep.total()
    return (t.read, t.valid, t.invalid, t.rejected, t.duplicate)


def test_same_game_twice_in_one_file_is_stored_once(tmp_path):
    src = write(tmp_path / "a.jsonl", [rec("g1"), rec("g2"), rec("g1"), b"{bad", b"{bad"])
    rep = run([src], tmp_path / "wh")
    assert counts(rep) == (5, 2, 0, 1, 2)  # line 3 repeats line 1, line 5 repeats line 4
    games = read_rows(tmp_path / "wh", "games")
    assert sorted((g["game_id"], g["source_line"]) for g in games) == [("g1", 1), ("g2", 2)]
    assert len(read_rows(tmp_path / "wh", "seats")) == 6 and len(read_rows(tmp_path / "wh", "actions")) == 18
    (rej,) = read_rows(tmp_path / "wh", "rejects")
    assert (rej["source_line"], rej["code"]) == (4, "bad_json")


def test_same_game_in_another_file_and_another_run(tmp_path):
    wh = tmp_path / "wh"
    a = write(tmp_path / "a.jsonl", [rec("g1"), rec("g2")])
    b = write(tmp_path / "b.jsonl.gz", [rec("g2"), rec("g3")])  # a resent batch overlapping a
    c = write(tmp_path / "c.jsonl", [rec("g3"), rec("g1")])
    r1 = run([a, b], wh)
    assert counts(r1) == (4, 3, 0, 0, 1)
    assert [(f.valid, f.duplicate) for f in r1.files] == [(2, 0), (1, 1)]
    first = snapshot(wh)
    r2 = run([c], wh)  # every game of c is stored already
    assert counts(r2) == (2, 0, 0, 0, 2)
    assert snapshot(wh) == first
    games = {g["game_id"]: (Path(g["source_file"]).name, g["source_line"]) for g in read_rows(wh, "games")}
    assert games == {"g1": ("a.jsonl", 1), "g2": ("a.jsonl", 2), "g3": ("b.jsonl.gz", 2)}


def test_reingest_of_the_same_files_adds_nothing(tmp_path):
    wh = tmp_path / "wh"
    a = write(tmp_path / "a.jsonl", [rec("g1"), b"[1, 2]", rec("g2", result={**SHORT["result"], "points": 1})])
    b = write(tmp_path / "b.jsonl", [rec("g1"), rec("g3")])
    r1 = run([a, b], wh)
    first = snapshot(wh)
    r2 = run([a, b], wh)
    r3 = run([b, a], wh)  # order given on the command line does not matter: inputs are sorted
    assert snapshot(wh) == first
    # a file's own rows are replaced, so it counts as read again, not as duplicate of itself
    assert counts(r1) == counts(r2) == counts(r3) == (5, 2, 1, 1, 1)
    assert len(read_rows(wh, "games")) == 3
    runs = read_rows(wh, "ingest_runs")
    assert len(runs) == 3 and {r["status"] for r in runs} == {"done"}


def test_a_copy_under_another_path_is_all_duplicates(tmp_path):
    wh = tmp_path / "wh"
    lines = [rec("g1"), b"not json", rec("g2", variant="mahjong")]
    a = write(tmp_path / "a.jsonl", lines)
    run([a], wh)
    first = snapshot(wh)
    (tmp_path / "later").mkdir()
    copy = write(tmp_path / "later" / "a-again.jsonl.gz", lines)
    rep = run([copy], wh)
    assert counts(rep) == (3, 0, 0, 0, 3)  # the rejected lines too: the same bytes are stored once
    assert snapshot(wh) == first
    assert not [r for t in ("games", "rejects") for r in read_rows(wh, t) if r["source_file"] == str(copy)]


def test_other_content_under_a_stored_id_is_duplicate_game(tmp_path):
    wh = tmp_path / "wh"
    a = write(tmp_path / "a.jsonl", [rec("g1"), rec("g1", table_id="t-other")])
    b = write(tmp_path / "b.jsonl", [rec("g2"), rec("g1", round=7), rec("g1", round=7)])
    rep = run([a, b], wh)
    assert counts(rep) == (5, 2, 0, 2, 1)  # b:3 repeats the rejected b:2 exactly: a duplicate
    games = read_rows(wh, "games")
    assert sorted((g["game_id"], Path(g["source_file"]).name, g["source_line"]) for g in games) == \
        [("g1", "a.jsonl", 1), ("g2", "b.jsonl", 1)]
    rej = sorted(read_rows(wh, "rejects"), key=lambda r: (r["source_file"], r["source_line"]))
    assert [(Path(r["source_file"]).name, r["source_line"], r["code"], r["rule"], r["game_id"], r["variant"])
            for r in rej] == [("a.jsonl", 2, "duplicate_game", "paipu.duplicate_game", "g1", "guilin"),
                              ("b.jsonl", 2, "duplicate_game", "paipu.duplicate_game", "g1", "guilin")]
    first_sha = hashlib.sha256(rec("g1")).hexdigest()
    for r, line in zip(rej, [rec("g1", table_id="t-other"), rec("g1", round=7)]):
        assert f"{a}:1" in r["message"]  # the stored source …
        assert f"{r['source_file']}:{r['source_line']}" in r["message"]  # … and this one
        assert first_sha[:16] in r["message"] and hashlib.sha256(line).hexdigest()[:16] in r["message"]
        assert r["raw_sha256"] == hashlib.sha256(line).hexdigest() and r["raw"] == line.decode()
        assert r["raw_bytes"] == len(line) and r["step"] is None
    # across runs: still caught against what the warehouse holds
    c = write(tmp_path / "c.jsonl", [rec("g2", stake=3)])
    rep = run([c], wh)
    assert counts(rep) == (1, 0, 0, 1, 0)
    (r,) = [r for r in read_rows(wh, "rejects") if r["source_file"] == str(c)]
    assert r["code"] == "duplicate_game" and f"{b}:1" in r["message"] and f"{c}:1" in r["message"]


def test_reingest_replaces_a_path_that_now_holds_a_conflict(tmp_path):
    """The rows of the file being re-ingested do not count as stored: its new content wins."""
    wh = tmp_path / "wh"
    a = write(tmp_path / "a.jsonl", [rec("g1")])
    run([a], wh)
    write(a, [rec("g1", table_id="fixed"), rec("g2")])
    rep = run([a], wh)
    assert counts(rep) == (2, 2, 0, 0, 0)
    assert sorted((g["game_id"], g["table_id"]) for g in read_rows(wh, "games")) == \
        [("g1", "fixed"), ("g2", "t-example")]
    assert read_rows(wh, "rejects") == []


def test_reader_problems_are_never_deduplicated(tmp_path):
    wh = tmp_path / "wh"
    for name in ("x.jsonl.gz", "y.jsonl.gz"):
        (tmp_path / name).write_bytes(b"not gzip at all")
    rep = run([tmp_path / "x.jsonl.gz", tmp_path / "y.jsonl.gz"], wh)
    assert counts(rep) == (2, 0, 0, 2, 0)
    assert [r["rule"] for r in read_rows(wh, "rejects")] == ["paipu.compression"] * 2


def test_segments_give_the_same_rows(tmp_path, monkeypatch):
    """Cut into many small segments, each screened and inserted on its own while the run replays,
    a file stores the same rows and counts as in one segment: a repeat and a conflict in later
    segments are found against the earlier ones; a re-ingest in one segment replaces them exactly."""
    import ingest.run as run_mod

    lines = [rec(f"g{i}") for i in range(12)] + [rec("z", variant="zipai"), rec("g1"), rec("g2", round=9),
                                                 b"{bad", b"{bad"]
    src = write(tmp_path / "a.jsonl", lines)
    ref = tmp_path / "ref"
    one = run([src], ref)
    assert counts(one) == (17, 12, 1, 2, 2) and one.live_commit == "committed"
    wh = tmp_path / "wh"
    monkeypatch.setattr(run_mod, "SEGMENT_BYTES", 1)  # a segment a chunk
    seen: list[int] = []
    real = run_mod._Screen.segment

    def segment(self, seg):
        seen.append(seg.number)
        return real(self, seg)

    monkeypatch.setattr(run_mod._Screen, "segment", segment)
    rep = ingest([src], wh, workers=1, progress=False, chunk_lines=2)
    assert seen == list(range(9)) and rep.live_commit == "committed" and rep.commit_attempts == 1
    assert counts(rep) == counts(one) and rep.rows == one.rows
    assert snapshot(wh) == snapshot(ref)
    monkeypatch.undo()
    run([src], wh)
    assert snapshot(wh) == snapshot(ref)


def test_a_commit_by_another_writer_during_the_replay_is_screened_against(tmp_path, monkeypatch):
    """Another ingest commits while this one replays (after its first segment went in): the live
    transaction can no longer commit, so the run commits from its staged segments in its turn,
    screened against the other's rows — its copy of their shared game is a duplicate."""
    import subprocess
    import sys

    import ingest.run as run_mod

    root = Path(__file__).resolve().parent.parent
    wh = tmp_path / "wh"
    a = write(tmp_path / "a.jsonl", [rec(f"a{i}") for i in range(4)] + [rec("shared")])
    b = write(tmp_path / "b.jsonl", [rec("shared"), rec("b1")])
    monkeypatch.setattr(run_mod, "SEGMENT_BYTES", 1)
    real = run_mod._Screen.segment
    other: list[int] = []

    def segment(self, seg):
        if not other:  # the first segment of the live commit: b commits meanwhile
            other.append(subprocess.run(
                [sys.executable, "-c", "import sys; from ingest.run import ingest; "
                 "ingest([sys.argv[1]], sys.argv[2], workers=1, progress=False)", str(b), str(wh)],
                cwd=root, env={**os.environ, "PYTHONPATH": str(root)}).returncode)
        return real(self, seg)

    monkeypatch.setattr(run_mod._Screen, "segment", segment)
    rep = ingest([a], wh, workers=1, progress=False, chunk_lines=2)
    assert other == [0]
    assert rep.live_commit == "redone from the staged rows: another writer committed while this run replayed"
    assert rep.commit_attempts == 1  # redone in the commit turn, where nothing can conflict
    assert counts(rep) == (5, 4, 0, 0, 1)
    games = read_rows(wh, "games")
    assert sorted((g["game_id"], Path(g["source_file"]).name) for g in games) == \
        [("a0", "a.jsonl"), ("a1", "a.jsonl"), ("a2", "a.jsonl"), ("a3", "a.jsonl"), ("b1", "b.jsonl"),
         ("shared", "b.jsonl")]
    assert len(read_rows(wh, "seats")) == 3 * 6


@pytest.mark.parametrize("catalog", ["sqlite", "postgres"])
def test_a_compaction_during_the_replay_is_screened_against(tmp_path, monkeypatch, request, catalog):
    """``paipu compact`` merges the data files while this run's live transaction replays and
    deletes the merged-away ones at once: the live transaction, still reading the older snapshot,
    cannot open them ("Cannot open file"). The run is redone from its staged segments in its
    commit turn rather than dying, with the same rows as a run
    alone — in the embedded catalog (which has moved) and in PostgreSQL (a real server)."""
    import subprocess
    import sys

    import ingest.run as run_mod

    root = Path(__file__).resolve().parent.parent
    wh, ref = tmp_path / "wh", tmp_path / "ref"
    pg = request.getfixturevalue("pg_catalog") if catalog == "postgres" else None
    c = write(tmp_path / "c.jsonl", [rec(f"g{i}") for i in range(0, 6, 2)])
    d = write(tmp_path / "d.jsonl", [rec(f"g{i}") for i in range(1, 6, 2)])
    a = write(tmp_path / "a.jsonl", [rec("g0"), rec("g3"), rec("g6"), rec("g7")])
    for w, cat in ((wh, pg), (ref, None)):  # two runs: two data files of games over overlapping game_id ranges
        ingest([c], w, workers=1, progress=False, catalog=cat)
        run([d], w)
    monkeypatch.setattr(run_mod, "SEGMENT_BYTES", 1)
    real = run_mod._Screen.segment
    other: list[str] = []

    def segment(self, seg):
        if not other:  # the first segment: the replace of a's rows read the old snapshot already
            p = subprocess.run([sys.executable, "-m", "paipu.cli", "compact", "--warehouse", str(wh)],
                               cwd=root, env={**os.environ, "PYTHONPATH": str(root)}, capture_output=True, text=True)
            other.append(p.stdout + p.stderr if p.returncode else "ok")
        return real(self, seg)

    monkeypatch.setattr(run_mod._Screen, "segment", segment)
    rep = ingest([a], wh, workers=1, progress=False, chunk_lines=2)
    assert other == ["ok"]
    assert rep.live_commit.startswith("redone from the staged rows: " + (
        "another writer committed while this run replayed" if catalog == "sqlite"
        else "a data file its snapshot lists could not be read"))
    assert "Cannot open file" in rep.live_commit
    assert rep.commit_attempts == 1
    assert counts(rep) == (4, 2, 0, 0, 2)  # g0 and g3 are stored already
    monkeypatch.undo()
    run([a], ref)
    assert snapshot(wh) == snapshot(ref)


def test_a_compaction_just_before_the_commit_is_redone_from_the_staged_rows(tmp_path, monkeypatch, request):
    """``paipu compact`` between the last segment and the commit, into a PostgreSQL catalog (the
    embedded one's commits take turns, and compact waits for its turn): the live transaction's
    reads at its commit (the runs table, the stored counts) meet files the compaction deleted. The
    commit is redone from the staged segments rather than dying, with the rows of a run alone."""
    import subprocess
    import sys

    from ingest.warehouse import Warehouse

    root = Path(__file__).resolve().parent.parent
    wh, ref = tmp_path / "wh", tmp_path / "ref"
    pg = request.getfixturevalue("pg_catalog")
    c = write(tmp_path / "c.jsonl", [rec(f"g{i}") for i in range(0, 6, 2)])
    d = write(tmp_path / "d.jsonl", [rec(f"g{i}") for i in range(1, 6, 2)])
    a = write(tmp_path / "a.jsonl", [rec("g0"), rec("g3"), rec("g6"), rec("g7")])
    for w, cat in ((wh, pg), (ref, None)):  # two runs: two small data files of each table to merge
        ingest([c], w, workers=1, progress=False, catalog=cat)
        run([d], w)
    real = Warehouse.mark_interrupted
    other: list[str] = []

    def mark_interrupted(self):
        if not other:
            p = subprocess.run([sys.executable, "-m", "paipu.cli", "compact", "--warehouse", str(wh), "--keep-days", "0"],
                               cwd=root, env={**os.environ, "PYTHONPATH": str(root)}, capture_output=True, text=True)
            other.append(p.stdout + p.stderr if p.returncode else "ok")
        return real(self)

    monkeypatch.setattr(Warehouse, "mark_interrupted", mark_interrupted)
    rep = ingest([a], wh, workers=1, progress=False)
    assert other == ["ok"]
    assert rep.live_commit.startswith("redone from the staged rows: ")
    assert counts(rep) == (4, 2, 0, 0, 2)
    monkeypatch.undo()
    run([a], ref)
    assert snapshot(wh) == snapshot(ref)
