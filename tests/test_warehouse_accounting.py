"""Accounting: every line ends in exactly one place, the rejects row carries what an
operator needs, each run is a row of ``ingest_runs``; the ``experiment`` column; the shuffle
commitment as the warehouse records it."""

from __future__ import annotations

import hashlib
import json
from datetime import datetime, timezone
from pathlib import Path

import msgspec
from typer.testing import CliRunner

from ingest.run import ingest
from ingest.schema import RUNS
from ingest.warehouse import read_rows
from replay import ENGINE_VERSION
from replay.simulator import simulate

DATA = Path(__file__).resolve().parent.parent / "data"
SHORT = json.loads((DATA / "guilin-short.jsonl").read_bytes())


def rec(gid: str, **extra) -> bytes:
    return json.dumps({**SHORT, "game_id": gid, **extra}, ensure_ascii=False).encode()


def write(path: Path, lines: list[bytes]) -> Path:
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def test_ingest_runs_table_and_reject_fields(tmp_path):
    long_line = rec("too-long", x_pad="é" * 3000)  # 6,000+ bytes: over the 4096-byte limit below
    a = write(tmp_path / "a.jsonl", [rec("g1"), b"", rec("g1"), b'{"game_id": "g-half", "format": "paipu/1"',
                                     rec("g2", table_id="t-2"), rec("g1", round=9), long_line])
    b = write(tmp_path / "b.jsonl", [rec("g2", table_id="t-2"), b'{"game_id": "g9", "variant": "zipai"}'])
    (tmp_path / "notes.txt").write_text("not a log")
    wh = tmp_path / "wh"
    before = datetime.now(timezone.utc)
    rep = ingest([tmp_path], wh, workers=1, progress=False, max_line_bytes=4096)
    after = datetime.now(timezone.utc)

    (fa, fb) = rep.files
    assert (fa.lines, fa.blank, fa.read, fa.valid, fa.invalid, fa.rejected, fa.duplicate) == (7, 1, 6, 2, 0, 3, 1)
    assert (fb.lines, fb.blank, fb.read, fb.valid, fb.invalid, fb.rejected, fb.duplicate) == (2, 0, 2, 0, 0, 1, 1)
    for f in rep.files:
        assert f.lines == f.blank + f.valid + f.invalid + f.rejected + f.duplicate
    assert rep.skipped == [str(tmp_path / "notes.txt")]

    (row,) = read_rows(wh, "ingest_runs")  # the latest of the run's rows (`running`, then `done`)
    assert list(row) == RUNS.names and row["run_id"] == rep.run_id
    assert (row["status"], row["engine_version"], row["engine"], row["workers"], row["pseudonymized"]) == \
        ("done", ENGINE_VERSION, "process", 1, False)
    assert (row["n_files"], row["lines"], row["blank"], row["read"], row["valid"], row["invalid"],
            row["rejected"], row["duplicate"]) == (2, 9, 1, 8, 2, 0, 4, 2)
    assert before <= row["started_at"] <= row["finished_at"] <= after
    assert row["skipped"] == [str(tmp_path / "notes.txt")]
    assert [(Path(f["path"]).name, f["read"], f["duplicate"], f["content_sha256"]) for f in row["files"]] == \
        [("a.jsonl", 6, 1, hashlib.sha256(a.read_bytes()).hexdigest()),
         ("b.jsonl", 2, 1, hashlib.sha256(b.read_bytes()).hexdigest())]
    rows = json.loads(row["rows_json"])
    assert rows["games"] == 2 and rows["rejects"] == 4 and rows["seats"] == 6
    meta = json.loads((wh / "_meta" / "ingest_runs" / f"{rep.run_id}.json").read_text())
    assert meta["status"] == "done" and meta["total"]["read"] == 8

    rej = {(Path(r["source_file"]).name, r["source_line"]): r for r in read_rows(wh, "rejects")}
    assert sorted(rej) == [("a.jsonl", 4), ("a.jsonl", 6), ("a.jsonl", 7), ("b.jsonl", 2)]
    half = rej[("a.jsonl", 4)]
    raw4 = b'{"game_id": "g-half", "format": "paipu/1"'
    # a cut line does not parse, but its game_id is still read from its bytes
    assert (half["code"], half["rule"], half["game_id"], half["step"], half["variant"]) == \
        ("bad_json", "paipu.json", "g-half", None, "_unknown")
    assert half["raw"] == raw4.decode() and half["raw_sha256"] == hashlib.sha256(raw4).hexdigest()
    assert half["raw_bytes"] == len(raw4) and "not valid JSON" in half["message"]
    dup = rej[("a.jsonl", 6)]
    assert (dup["code"], dup["game_id"], dup["claimed_variant"]) == ("duplicate_game", "g1", "guilin")
    assert f"{a}:1" in dup["message"] and f"{a}:6" in dup["message"]
    big = rej[("a.jsonl", 7)]
    assert (big["code"], big["rule"], big["game_id"], big["raw_bytes"]) == ("schema", "paipu.line_size",
                                                                            "too-long", len(long_line))
    assert big["raw_sha256"] == hashlib.sha256(long_line).hexdigest()
    assert big["raw"].encode("utf-8", "replace").startswith(long_line[:4000]) and len(big["raw"]) <= 4096
    schema_rej = rej[("b.jsonl", 2)]
    assert (schema_rej["code"], schema_rej["game_id"], schema_rej["claimed_variant"], schema_rej["variant"]) == \
        ("schema", "g9", "zipai", "zipai")
    assert all(r["ingested_at"] == rep.started_at for r in rej.values())


def test_cli_prints_the_accounting(tmp_path):
    from paipu.cli import app

    src = write(tmp_path / "a.jsonl", [rec("g1"), rec("g1"), b"[]"])
    res = CliRunner().invoke(app, ["ingest", str(src), "--warehouse", str(tmp_path / "wh"), "--workers", "1"])
    assert res.exit_code == 0, res.output
    total = next(line for line in res.output.splitlines() if line.startswith("total"))
    assert total.split()[1:8] == ["3", "0", "3", "1", "0", "1", "1"]  # lines..duplicate
    res = CliRunner().invoke(app, ["ingest", str(src), "--warehouse", str(tmp_path / "wh"), "--engine", "spark"])
    assert res.exit_code == 2


def test_experiment_column(tmp_path):
    src = write(tmp_path / "a.jsonl", [rec("g1", x_experiment="bot-v2"), rec("g2"), rec("g3", x_experiment=7),
                                       rec("g4", x_experiment="bot-v2", seats=["a", "b", "c"])])
    wh = tmp_path / "wh"
    ingest([src], wh, workers=1, progress=False)
    games = {g["game_id"]: g["experiment"] for g in read_rows(wh, "games")}
    assert games == {"g1": "bot-v2", "g2": None, "g3": None, "g4": "bot-v2"}  # not a string: null
    seats = sorted((s["game_id"], s["player_id"], s["experiment"]) for s in read_rows(wh, "seats")
                   if s["game_id"] in ("g2", "g4"))
    assert seats == [("g2", "p:a", None), ("g2", "p:b", None), ("g2", "p:c", None),
                     ("g4", "a", "bot-v2"), ("g4", "b", "bot-v2"), ("g4", "c", "bot-v2")]
    from ingest.views import connect  # the views read the new column

    con = connect(wh)
    assert con.cursor().sql("SELECT experiment, count(*) FROM games GROUP BY ALL ORDER BY 1").fetchall() == \
        [("bot-v2", 2), (None, 2)]


def test_shuffle_commitment_in_the_warehouse(tmp_path):
    """The simulator writes ``shuffle.digest``; a record whose dealt deck differs from its
    commitment is stored as an invalid game with ``shuffle_mismatch``."""
    (good,) = [msgspec.to_builtins(r) for r in simulate("guilin", 1, seed=3)]
    digest = good["shuffle"]["digest"]
    assert digest.startswith("sha256:") and len(digest) == 71
    swapped = json.loads(json.dumps(good))
    w = swapped["deal"]["wall"]
    i = next(k for k in range(len(w) - 1, 0, -1) if w[k] != w[k - 1])
    w[i], w[i - 1] = w[i - 1], w[i]  # the same cards, another order: only the commitment tells
    lines = [good, {**good, "game_id": "upper", "shuffle": {**good["shuffle"], "digest": digest.upper()}},
             {**good, "game_id": "no-digest", "shuffle": {"algo": "x"}},
             {**good, "game_id": "bad-digest", "shuffle": {**good["shuffle"], "digest": "sha256:" + "0" * 64}},
             {**swapped, "game_id": "swapped"}]
    src = write(tmp_path / "s.jsonl", [json.dumps(x).encode() for x in lines])
    ingest([src], tmp_path / "wh", workers=1, progress=False)
    games = {g["game_id"]: g for g in read_rows(tmp_path / "wh", "games")}
    assert len(games) == 5
    for gid in (good["game_id"], "upper", "no-digest"):
        assert games[gid]["valid"] is True, games[gid]["error_message"]
    for gid in ("bad-digest", "swapped"):
        g = games[gid]
        assert (g["valid"], g["error_code"], g["error_rule"], g["error_step"], g["n_errors"], g["outcome"]) == \
            (False, "shuffle_mismatch", "paipu.shuffle", None, 1, None)
    assert digest in games["bad-digest"]["error_message"]
    assert "does not match" in games["swapped"]["error_message"]
