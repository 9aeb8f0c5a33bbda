"""Many writers (issue 17): 2 and 4 ingests running at once into one warehouse (the embedded
SQLite catalog) should lose and double nothing — games repeated across their files stored once, a
conflicting one one game and one `duplicate_game` reject, exactly as one serial ingest of all
files gives (open: see the xfail); a reader polling during an ingest sees only whole runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ingest.run import ingest
from ingest.warehouse import read_rows

ROOT = Path(__file__).resolve().parent.parent
SHORT = json.loads((ROOT / "data" / "guilin-short.jsonl").read_bytes())
SCRIPT = ("import sys; from ingest.run import ingest; "
          "ingest(sys.argv[1:-1], sys.argv[-1], workers=1, progress=False, chunk_lines=8)")


def rec(gid: str, **changes) -> str:
    return json.dumps({**SHORT, "game_id": gid, **changes}, ensure_ascii=False)


def make_logs(folder: Path, n: int) -> list[Path]:
    """``n`` files: 20 games of their own, 5 shared by every file (same bytes), one game shared
    with other content (a conflict), one bad line."""
    folder.mkdir()
    out = []
    for f in range(n):
        lines = [rec(f"w{f}-{i}") for i in range(20)] + [rec(f"shared-{i}") for i in range(5)]
        lines += [rec("contested", round=f), f"{{bad {f}"]
        p = folder / f"server{f}.jsonl"
        p.write_text("\n".join(lines) + "\n")
        out.append(p)
    return out


def spawn(paths: list[Path], wh: Path) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-c", SCRIPT, *map(str, paths), str(wh)], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def shape(wh: Path) -> dict[str, object]:
    games = read_rows(wh, "games")
    rejects = read_rows(wh, "rejects")
    return {"game_ids": sorted(g["game_id"] for g in games),
            "rows": {t: len(read_rows(wh, t)) for t in ("seats", "actions", "melds", "xing")},
            "rejects": sorted((r["code"], r["game_id"]) for r in rejects)}


@pytest.mark.xfail(reason="open (issue 17): on this 2-core machine under load 27, 2 and 4 concurrent runs "
                          "on the SQLite catalog kept conflicting until the 50 commit attempts ran out "
                          "(WarehouseBusy) or SQLite stayed locked; nothing was lost or doubled, but a "
                          "run failed. The PostgreSQL catalog fixture is not written yet.", strict=False)
@pytest.mark.parametrize("writers", [2, 4])
def test_concurrent_ingests_lose_and_double_nothing(tmp_path, writers):
    logs = make_logs(tmp_path / "logs", writers)
    serial = tmp_path / "serial"
    ingest(logs, serial, workers=1, progress=False)
    want = shape(serial)
    assert len(want["game_ids"]) == 20 * writers + 5 + 1
    wh = tmp_path / "wh"
    procs = [spawn([p], wh) for p in logs]
    for p in procs:
        assert p.wait(timeout=600) == 0, p.stderr.read().decode()
    assert shape(wh) == want
    runs = read_rows(wh, "ingest_runs")
    assert len(runs) == writers and {r["status"] for r in runs} == {"done"}
    # every line counted once over the runs: stored games = valid + invalid
    assert sum(r["valid"] + r["invalid"] for r in runs) == len(want["game_ids"])
    assert sum(r["duplicate"] for r in runs) == 5 * (writers - 1)
    assert sum(r["read"] for r in runs) == 27 * writers


def test_a_reader_polling_during_an_ingest_sees_whole_runs(tmp_path):
    logs = make_logs(tmp_path / "logs", 4)
    wh = tmp_path / "wh"
    ingest([logs[0]], wh, workers=1, progress=False)
    first = len(read_rows(wh, "games"))
    p = spawn(logs[1:], wh)
    seen = set()
    while p.poll() is None:
        seen.add((len(read_rows(wh, "games")), len(read_rows(wh, "seats"))))
        time.sleep(0.05)
    assert p.returncode == 0, p.stderr.read().decode()
    final = (len(read_rows(wh, "games")), len(read_rows(wh, "seats")))
    assert seen <= {(first, 3 * first), final} and final == (4 * 20 + 6, 3 * (4 * 20 + 6))
