"""A data file the catalog lists is lost: every command that opens the warehouse
exits 1 with one message naming the file and ``paipu check --warehouse DIR --repair``, every
dashboard page says so, ``paipu check`` lists it (exit 1), ``--repair`` drops the rows it held in
one snapshot and names the sources, and ingesting them again gives back every row — on the
embedded catalog and on PostgreSQL, for a file deleted, a file cut short, and a file whose trail
to its run is gone (compacted, snapshots expired)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import msgspec
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from ingest.schema import TABLES
from ingest.views import connect
from ingest.warehouse import data_files, read_rows
from paipu.cli import app
from replay.simulator import simulate

pytestmark = pytest.mark.long  # started first (tests/conftest.py)

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted(p.relative_to(ROOT / "dashboards").as_posix() for p in (ROOT / "dashboards" / "screens").glob("*.py"))


def _logs(d: Path) -> dict[str, Path]:
    """Two files of guilin games (one partition: variant guilin, month 2026-11), one of zipai
    games, one of lines that are rejected."""
    d.mkdir(parents=True, exist_ok=True)
    out = {}
    for name, variant, seed in (("guilin_a", "guilin", 1), ("guilin_b", "guilin", 2), ("zipai", "zipai", 3)):
        out[name] = d / f"{name}.jsonl"
        out[name].write_bytes(b"".join(msgspec.json.encode(r) + b"\n" for r in simulate(variant, 4, seed, "heuristic", {})))
    out["bad"] = d / "bad.jsonl"
    out["bad"].write_text('{"game_id": "cut\n[1, 2]\nnot json\n', encoding="utf-8")
    return out


def _rows(wh: Path) -> dict[str, list]:
    """Every table's rows, without ``ingested_at`` (a new run stamps its own)."""
    return {t: sorted(repr(sorted((k, v) for k, v in r.items() if k != "ingested_at")) for r in read_rows(wh, t))
            for t in TABLES}


def _run(args: list[str]):
    return CliRunner().invoke(app, [str(a) for a in args])


def _flat(text: str) -> str:
    return "".join(text.split())  # the console wraps long lines, within words too


def _fails_naming(res, lost: Path, wh: Path, name: str) -> None:
    out = _flat(res.output)
    assert res.exit_code == 1, (name, res.output)
    assert isinstance(res.exception, SystemExit), (name, res.exception)  # exited, did not raise
    assert str(lost) in out, (name, res.output)
    assert f"paipucheck--warehouse{wh}--repair" in out, (name, res.output)
    assert "Traceback" not in res.output, name


def _sources(output: str) -> list[str]:
    """The source files ``paipu check --repair`` names (its indented lines after "ingest … again")."""
    lines = output.splitlines()
    at = next(i for i, ln in enumerate(lines) if re.match(r"ingest (this|these) \d+ source", ln))
    return [ln.strip().removesuffix("(not found here)").strip() for ln in lines[at + 1:] if ln.startswith("  ")]


def test_a_lost_data_file_is_one_message_everywhere_and_check_repairs_it(tmp_path, monkeypatch):
    from apptest_util import open_page, page_text

    logs = _logs(tmp_path / "logs")
    wh = tmp_path / "wh"
    assert _run(["ingest", tmp_path / "logs", "--warehouse", wh]).exit_code == 0
    before = _rows(wh)
    at = open_page(monkeypatch, wh, "screens/overview.py")  # a dashboard already running when the file goes
    assert "guilin" in page_text(at) or at.sidebar
    assert _run(["check", "--warehouse", wh]).exit_code == 0

    # the file of guilin_a's games (each file's rows go in files of their own)
    games = [f for f in data_files(wh, "games") if "variant=guilin" in str(f)]
    assert len(games) == 2
    lost = next(f for f in games if pq.read_table(f, columns=["source_file"]).column(0)[0].as_py() == str(logs["guilin_a"]))
    lost.unlink()

    game = before["games"][0]
    game_id = re.search(r"\('game_id', '([^']+)'\)", game).group(1)
    commands = {
        "report": ["report", "--warehouse", wh],
        "audit": ["audit", game_id, "--warehouse", wh],
        "ingest": ["ingest", logs["guilin_a"], "--warehouse", wh],  # even of the file whose rows it held
        "rescore": ["rescore", "--warehouse", wh, "--variant", "guilin", "--b", "zimo_bonus=double"],
        "fit": ["fit", "--warehouse", wh, "--variant", "guilin"],
        "compact": ["compact", "--warehouse", wh],
        "snapshots": ["snapshots", "--warehouse", wh],
        "tune": ["tune", "--variant", "guilin", "--a", "", "--b", "xing_mode=fanxing", "--games", "2",
                 "--warehouse", wh, "--experiments", tmp_path / "exp"],
    }
    for name, args in commands.items():
        _fails_naming(_run(args), lost, wh, name)

    for page in [p for p in PAGES if p != "screens/rules.py"]:  # every page of data says so (Rules reads only docs)
        at = open_page(monkeypatch, wh, page)
        text = _flat(page_text(at))
        assert "missingordamaged" in text and str(lost) in text and f"paipucheck--warehouse{wh}--repair" in text, page

    res = _run(["check", "--warehouse", wh])
    assert res.exit_code == 1, res.output
    assert f"missing: {lost} (games data file)" in res.output
    assert "Traceback" not in res.output

    res = _run(["check", "--warehouse", wh, "--repair"])
    assert res.exit_code == 0, res.output
    assert "variant=guilin month=2026-11" in res.output
    sources = _sources(res.output)
    # guilin_b's games were dropped with guilin_a's (one partition); the run's records name its files
    assert {str(logs["guilin_a"]), str(logs["guilin_b"])} <= set(sources)
    assert str(logs["bad"]) not in sources
    assert not [r for r in read_rows(wh, "seats") if r["variant"] == "guilin"]
    assert _rows(wh)["games"] and all("'zipai'" in g for g in _rows(wh)["games"])  # other partitions kept
    assert _rows(wh)["rejects"] == before["rejects"]

    assert _run(["check", "--warehouse", wh]).exit_code == 0
    res = _run(["report", "--warehouse", wh])
    assert res.exit_code == 0, res.output
    snaps = _run(["snapshots", "--warehouse", wh, "--json"])
    assert json.loads(snaps.output.splitlines()[-1])["commit_message"] == "paipu check --repair"
    at = open_page(monkeypatch, wh, "screens/overview.py")
    assert "missing" not in page_text(at)

    res = _run(["ingest", *sources, "--warehouse", wh])
    assert res.exit_code == 0, res.output
    assert _rows(wh) == before
    assert _run(["compact", "--warehouse", wh, "--keep-days", "0"]).exit_code == 0
    assert _rows(wh) == before


def test_a_file_cut_short_whose_trail_is_gone(tmp_path):
    """A rejects file cut short after a compaction that expired every older snapshot: the commands
    name it as damaged; the run that wrote its rows cannot be told any more, so the repair names
    every source on record, and ingesting them again gives back every row."""
    logs = _logs(tmp_path / "logs")
    wh = tmp_path / "wh"
    assert _run(["ingest", logs["guilin_a"], logs["bad"], "--warehouse", wh]).exit_code == 0
    assert _run(["ingest", logs["zipai"], "--warehouse", wh]).exit_code == 0
    assert _run(["compact", "--warehouse", wh, "--keep-days", "0"]).exit_code == 0
    before = _rows(wh)
    (cut,) = data_files(wh, "rejects")
    size = cut.stat().st_size
    with open(cut, "r+b") as f:
        f.truncate(size // 2)

    res = _run(["report", "--warehouse", wh])
    _fails_naming(res, cut, wh, "report")
    assert f"damaged:{size // 2:,}bytes,thecatalogrecorded{size:,}" in _flat(res.output)
    res = _run(["check", "--warehouse", wh, "--json"])
    assert res.exit_code == 1
    assert json.loads(res.output)["lost"] == [{"table": "rejects", "kind": "data", "path": str(cut),
                                               "bytes": size // 2, "catalog_bytes": size}]

    res = _run(["check", "--warehouse", wh, "--repair", "--json"])
    assert res.exit_code == 0, res.output
    got = json.loads(res.output)
    assert got["dropped"] == {"rejects": {"files": 1, "rows": len(before["rejects"])}}
    assert got["partitions"] == [] and got["traced"] is False
    assert set(got["sources"]) == {str(logs["guilin_a"]), str(logs["bad"]), str(logs["zipai"])}
    after = _rows(wh)
    assert after["rejects"] == [] and after["games"] == before["games"]  # a reject file ends alone

    assert _run(["ingest", *got["sources"], "--warehouse", wh]).exit_code == 0
    assert _rows(wh) == before


@pytest.mark.parametrize("where", ["footer", "middle"])
def test_a_file_damaged_in_place_is_found_by_check_and_every_command_says_so(tmp_path, monkeypatch, where):
    """A games file overwritten without changing its size, in its footer or in its middle (a page
    of its rows): every command reading it fails in one line naming ``paipu check``, and so does
    the dashboard's page; check, reading every file whole, names the file as damaged; the repair
    drops it and the ingest of the sources it names gives back every row."""
    from apptest_util import open_page

    logs = _logs(tmp_path / "logs")
    wh = tmp_path / "wh"
    assert _run(["ingest", logs["guilin_a"], logs["zipai"], "--warehouse", wh]).exit_code == 0
    before = _rows(wh)
    (hit,) = [f for f in data_files(wh, "games") if "variant=zipai" in str(f)]
    size = hit.stat().st_size
    with open(hit, "r+b") as f:
        if where == "footer":
            f.seek(size - 300)
            f.write(b"\xff" * 292)  # the footer's metadata; its length and the closing PAR1 stay
        else:
            f.seek(size // 3)
            f.write(b"\xff" * 200)  # inside the first row group's pages
    assert hit.stat().st_size == size

    zipai_game = msgspec.json.decode(logs["zipai"].read_bytes().splitlines()[0])["game_id"]
    for args in (["report"], ["audit", zipai_game], ["fit", "--variant", "zipai"],
                 ["rescore", "--variant", "zipai", "--b", "tuo_step=3"]):
        res = _run([*args, "--warehouse", wh])
        if where == "middle" and args == ["report"]:  # the report's columns are not in the damaged pages
            assert res.exit_code == 0, res.output
            continue
        assert res.exit_code == 1 and isinstance(res.exception, SystemExit) and "Traceback" not in res.output, args
        assert _flat(res.output).startswith(f"paipu{args[0]}:thewarehouse{wh}cannotberead:"), res.output
        assert f"paipucheck--warehouse{wh}`namesthedamagedfilesand`--repair`dropsthem" in _flat(res.output), args
    at = open_page(monkeypatch, wh, "screens/audit.py", game=zipai_game)
    assert [e.value.split(":")[0] for e in at.error] == ["数据仓库读不出来 The warehouse cannot be read"]
    assert f"`paipu check --warehouse {wh} --repair`" in at.error[0].value
    res = _run(["check", "--warehouse", wh, "--json"])
    assert res.exit_code == 1
    (lost,) = json.loads(res.output)["lost"]
    assert (lost["table"], lost["kind"], lost["path"], lost["bytes"], lost["catalog_bytes"]) == (
        "games", "data", str(hit), size, size)
    assert lost["unreadable"]

    res = _run(["check", "--warehouse", wh, "--repair", "--json"])
    assert res.exit_code == 0, res.output
    got = json.loads(res.output)
    # the file cannot say which source its rows came from: the run that wrote it ingested both
    assert got["sources"] == sorted([str(logs["guilin_a"]), str(logs["zipai"])])
    assert _run(["ingest", *got["sources"], "--warehouse", wh]).exit_code == 0
    assert _run(["check", "--warehouse", wh]).exit_code == 0
    assert _rows(wh) == before


def test_a_lost_delete_file_writer_row_and_run_record(tmp_path):
    """A lost delete file drops its data file (its deleted rows cannot be told from the others); a
    lost ``_writer`` file gets its row back, so concurrent commits still conflict on it, and a lost
    ``ingest_runs`` file its done run's row, from the run's JSON copy."""
    logs = _logs(tmp_path / "logs")
    wh = tmp_path / "wh"
    assert _run(["ingest", logs["guilin_a"], logs["guilin_b"], "--warehouse", wh]).exit_code == 0
    assert _run(["compact", "--warehouse", wh, "--keep-days", "0"]).exit_code == 0  # one file per table
    logs["guilin_b"].write_bytes(b"".join(msgspec.json.encode(r) + b"\n" for r in simulate("guilin", 2, 9, "heuristic", {})))
    assert _run(["ingest", logs["guilin_b"], "--warehouse", wh]).exit_code == 0  # deletes part of the merged files
    before = _rows(wh)
    deletes = sorted((wh / "data" / "main" / "games").rglob("*-delete.parquet"))
    assert deletes
    for f in deletes:
        f.unlink()
    (writer,) = data_files(wh, "_writer")
    writer.unlink()
    runs = read_rows(wh, "ingest_runs")
    last = data_files(wh, "ingest_runs")[-1]  # the done row of the last run (file names follow time)
    assert pq.read_table(last).to_pylist()[0]["status"] == "done"
    last.unlink()

    res = _run(["check", "--warehouse", wh, "--json"])
    lost = json.loads(res.output)["lost"]
    assert {(f["table"], f["kind"]) for f in lost} == {("games", "delete"), ("_writer", "data"), ("ingest_runs", "data")}
    res = _run(["check", "--warehouse", wh, "--repair", "--json"])
    assert res.exit_code == 0, res.output
    got = json.loads(res.output)
    assert got["restored"] == ["the row of _writer", "1 row of ingest_runs from the run records' copies in _meta/ingest_runs/"]
    assert read_rows(wh, "ingest_runs") == runs
    assert {str(logs["guilin_a"]), str(logs["guilin_b"])} <= set(got["sources"])
    assert _run(["ingest", *got["sources"], "--warehouse", wh]).exit_code == 0
    assert _rows(wh) == before
    with connect(wh) as con:  # the re-ingest's commit updated it
        assert con.sql("SELECT commits >= 1 FROM lake._writer").fetchall() == [(True,)]


def test_the_postgresql_catalog(tmp_path, pg_catalog):
    logs = _logs(tmp_path / "logs")
    wh = tmp_path / "wh"
    assert _run(["ingest", tmp_path / "logs", "--warehouse", wh, "--catalog", pg_catalog]).exit_code == 0
    before = _rows(wh)
    lost = next(f for f in data_files(wh, "seats") if "variant=zipai" in str(f))
    lost.unlink()

    _fails_naming(_run(["report", "--warehouse", wh]), lost, wh, "report")
    _fails_naming(_run(["ingest", logs["zipai"], "--warehouse", wh]), lost, wh, "ingest")
    assert _run(["check", "--warehouse", wh]).exit_code == 1
    res = _run(["check", "--warehouse", wh, "--repair"])
    assert res.exit_code == 0, res.output
    assert _sources(res.output) == [str(logs["zipai"])]  # read from the games rows, which are there
    assert _run(["check", "--warehouse", wh]).exit_code == 0
    assert _run(["ingest", logs["zipai"], "--warehouse", wh]).exit_code == 0
    assert _rows(wh) == before
