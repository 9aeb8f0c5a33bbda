"""What the reader refuses and what a run keeps: two names that collide, symlinks out of the input
folders, a folder that cannot be listed, a zstd bomb (ingest/reader.py, docs/warehouse.md)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest
import zstandard
from typer.testing import CliRunner

from ingest.reader import Refused, find_inputs
from ingest.run import ingest
from ingest.views import connect
from paipu.cli import app
from replay.simulator import simulate

pytestmark = pytest.mark.long  # started first (tests/conftest.py)

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[1]
SECRET = b'{"password": "hunter2-SEKRIT"}'


def _games(n: int, seed: int) -> list[bytes]:
    return [msgspec.json.encode(r) for r in simulate("guilin", n, seed)]


def _write(path: Path | bytes, lines: list[bytes]) -> None:
    with open(path, "wb") as f:
        f.write(b"\n".join(lines) + b"\n")


def _stored(wh: Path, sql: str) -> list[tuple]:
    con = connect(wh)
    try:
        return con.sql(sql).fetchall()
    finally:
        con.close()


def test_two_file_names_that_would_collide_keep_their_own_games(tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    games = _games(10, 9)
    _write(os.fsencode(logs) + b"/x-\xff.jsonl", games[:5])  # a name that is not UTF-8
    _write(logs / "x-\\udcff.jsonl", games[5:])  # a name that is the first one's escaped text
    wh = tmp_path / "wh"
    rep = ingest([logs], wh, workers=1, progress=False)
    assert rep.total().valid == 10
    rows = dict(_stored(wh, "SELECT source_file, count(*) FROM games GROUP BY 1"))
    assert sorted(rows.values()) == [5, 5] and len(rows) == 2
    # re-ingesting one of them replaces its own rows only
    ingest([logs / "x-\\udcff.jsonl"], wh, workers=1, progress=False)
    assert _stored(wh, "SELECT count(*) FROM games") == [(10,)]


def test_a_symlink_out_of_the_log_folder_is_refused_and_nothing_of_its_target_is_stored(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "key.jsonl").write_bytes(SECRET + b"\n")
    logs = tmp_path / "logs"
    logs.mkdir()
    _write(logs / "ok.jsonl", _games(3, 1))
    (logs / "a.jsonl").symlink_to(outside / "key.jsonl")
    (logs / "environ.jsonl").symlink_to("/proc/self/environ")
    (logs / "more").symlink_to(outside, target_is_directory=True)
    (logs / "same.jsonl").symlink_to(logs / "ok.jsonl")  # inside the folder: read (its games are duplicates)
    inputs, _ = find_inputs([logs])
    refused = {p.name: p.rule for p in inputs if isinstance(p, Refused)}
    assert refused == {"a.jsonl": "paipu.symlink", "environ.jsonl": "paipu.symlink", "more": "paipu.symlink"}
    got = runner.invoke(app, ["validate", "--quiet", str(logs)])
    assert got.exit_code == 1
    assert "read 9: 3 valid, 0 invalid, 3 rejected, 3 duplicate" in got.output
    assert "a.jsonl: a symlink that leads outside the input folders: not read" in got.output
    wh = tmp_path / "wh"
    ingest([logs], wh, workers=1, progress=False)
    rows = _stored(wh, "SELECT rule, raw, message FROM rejects ORDER BY source_file")
    assert [r[0] for r in rows] == ["paipu.symlink"] * 3
    assert all(not r[1] for r in rows)
    dump = subprocess.run(["grep", "-rl", "SEKRIT", str(wh)], capture_output=True, text=True)
    assert dump.stdout == ""  # nothing of the target in any file of the warehouse


def test_a_folder_that_cannot_be_listed_is_counted_and_fails_the_run(tmp_path, monkeypatch):
    logs = tmp_path / "logs"
    (logs / "locked").mkdir(parents=True)
    _write(logs / "ok.jsonl", _games(2, 1))
    _write(logs / "locked" / "hidden.jsonl", _games(2, 2))
    real = os.scandir

    def scandir(path="."):  # root lists every folder: the operating system's refusal, as a user meets it
        if Path(path) == logs / "locked":
            raise PermissionError(13, "Permission denied", str(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)
    got = runner.invoke(app, ["validate", "--quiet", str(logs)])
    assert got.exit_code == 1
    assert "locked:1 REJECTED bad_json [paipu.io] locked: cannot list the folder: Permission denied" in got.output
    assert "read 3: 2 valid, 0 invalid, 1 rejected" in got.output


# Linux keeps a process's peak memory across exec from the process it was forked from, so a command
# forked by this (large) test process would report at least this process's size: a small fresh
# interpreter starts the command and reports its peak and exit status.
_MEASURE = ("import os, sys; pid = os.spawnv(os.P_NOWAIT, sys.argv[1], sys.argv[1:]); "
            "_, status, usage = os.wait4(pid, 0); print(os.waitstatus_to_exitcode(status), usage.ru_maxrss)")


def _max_rss_kb(cmd: list[str], want_exit: int) -> int:
    """The peak resident memory of ``cmd``'s own process, in KiB (its output discarded)."""
    got = subprocess.run([sys.executable, "-c", _MEASURE, *cmd], capture_output=True, text=True, cwd=ROOT)
    code, rss = map(int, got.stdout.split()[-2:])
    assert code == want_exit, got.stderr
    return rss


def test_a_zstd_file_that_expands_to_a_gibibyte_is_read_in_bounded_memory(tmp_path):
    w = zstandard.ZstdCompressor(level=3).compressobj()
    parts = [w.compress(b" " * (1 << 24)) for _ in range(64)] + [w.flush()]
    bomb = tmp_path / "bomb.jsonl.zst"
    bomb.write_bytes(b"".join(parts))
    assert bomb.stat().st_size < 64 * 1024
    rss = _max_rss_kb([sys.executable, "-m", "paipu.cli", "validate", "--quiet", str(bomb)], 1)  # its one line rejected
    assert rss < 300 * 1024, f"{rss // 1024} MB"


@pytest.mark.parametrize("suffix", [".jsonl.zst", ".jsonl.gz"])
def test_compressed_logs_still_read_whole(tmp_path, suffix):
    import gzip

    lines = _games(20, 3)
    data = b"\n".join(lines) + b"\n"
    blob = zstandard.ZstdCompressor().compress(data) if suffix.endswith("zst") else gzip.compress(data)
    (tmp_path / f"g{suffix}").write_bytes(blob)
    got = runner.invoke(app, ["validate", "--quiet", str(tmp_path)])
    assert got.exit_code == 0 and "read 20: 20 valid" in got.output


def test_memory_follows_the_input_bytes_not_its_line_count(tmp_path):
    # 600,000 two-byte lines, each a reject (all but one duplicates): a segment ends at
    # SEGMENT_LINES lines, so the run never holds the rows of the whole file's 1.2 MB
    tiny = tmp_path / "x.jsonl"
    tiny.write_bytes(b"x\n" * 600_000)
    rss = _max_rss_kb([sys.executable, "-m", "paipu.cli", "ingest", str(tiny), "--warehouse", str(tmp_path / "wh"),
                       "--workers", "2"], 0)
    assert rss < 450 * 1024, f"{rss // 1024} MB"
    assert _stored(tmp_path / "wh", "SELECT count(*), any_value(rule) FROM rejects") == [(1, "paipu.json")]


def test_a_link_or_fifo_swapped_in_after_the_listing_is_not_read(tmp_path):
    from ingest.reader import read_lines

    outside = tmp_path / "outside.jsonl"
    outside.write_bytes(SECRET + b"\n")
    logs = tmp_path / "logs"
    logs.mkdir()
    _write(logs / "c.jsonl", _games(1, 1))
    (logs / "b.jsonl").symlink_to(logs / "c.jsonl")  # inside the folder when listed
    _write(logs / "d.jsonl", _games(1, 2))
    inputs, _ = find_inputs([logs])
    assert [p.name for p in inputs] == ["b.jsonl", "c.jsonl", "d.jsonl"]
    (logs / "b.jsonl").unlink()
    (logs / "b.jsonl").symlink_to(outside)  # swapped before it is read
    (logs / "d.jsonl").unlink()
    os.mkfifo(logs / "d.jsonl")  # a FIFO would block a plain open forever
    got = {p.name: list(read_lines(p)) for p in inputs}
    (b,), (d,) = got["b.jsonl"], got["d.jsonl"]
    assert (b.problem.rule, b.raw) == ("paipu.symlink", b"") and "not the file that was listed" in b.problem.message
    # a new file (paipu.symlink), or, when it took the old inode's number, not a regular file (paipu.io)
    assert d.problem.rule in ("paipu.symlink", "paipu.io") and d.raw == b"" and "not read" in d.problem.message
    assert not got["c.jsonl"][0].problem


def test_a_source_whose_name_is_not_utf8_is_named_so_it_can_be_ingested_again(tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    _write(os.fsencode(logs) + b"/a\xff.jsonl", _games(3, 4))
    _write(logs / "a\\udcff.jsonl", _games(3, 5))  # its escaped spelling, a name of its own
    wh = tmp_path / "wh"
    rep = ingest([logs], wh, workers=1, progress=False)
    assert len({f.path for f in rep.files}) == 2  # the run's record keeps them apart too
    for f in (wh / "data" / "main" / "games").rglob("*.parquet"):
        f.unlink()
    got = runner.invoke(app, ["check", "--warehouse", str(wh), "--repair"])
    assert got.exit_code == 0, got.output
    assert "not found here" not in got.output and "$'" in got.output and "\\xff" in got.output
    ingest([logs], wh, workers=1, progress=False)
    assert _stored(wh, "SELECT count(*) FROM games") == [(6,)]
