"""Bounded fuzz of every string of a record and of raw bytes. A valid log of each
implemented variant gets one string field — any value or key, ``x_`` extensions included — replaced
by arbitrary text (lone surrogates, control characters, newlines, Markdown, quotes), written as JSON
escapes, as raw CESU-8 surrogate bytes, or as arbitrary bytes inside the quotes; the line and, in
the full-ingest test, its file name then go every way a string from the input goes:

- the worker's path (``process_chunk``: reader checks, replay, rows, Arrow), plain and pseudonymized:
  exactly one ``games`` or ``rejects`` row, never ``engine_error``;
- the verdict as ``paipu validate`` prints it (JSON and text, to a strict UTF-8 stream) and the
  audit trail of the dashboard and ``paipu audit``;
- a whole ``paipu ingest`` (the run record, ``sources.json``, the run row, the printed report) and
  a DuckDB query over the warehouse it wrote.

Zero crashes is the pass mark; the examples are bounded (derandomized) so the file runs in seconds.
"""

from __future__ import annotations

import io
import json
import os
import sys
import tempfile
from datetime import datetime, timezone
from functools import lru_cache
from pathlib import Path

import msgspec
import pytest
import typer
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from rich.console import Console

from ingest.cli import print_report
from ingest.reader import Line
from ingest.rows import process_chunk
from ingest.run import ingest
from ingest.validate import validate_cmd
from ingest.views import connect
from ingest.warehouse import read_rows
from replay.audit import audit_trail
from replay.replayer import replay_line
from replay.simulator import simulate
from replay.variants import VARIANTS

pytestmark = pytest.mark.long  # started first (tests/conftest.py)

DATA = Path(__file__).resolve().parent.parent / "data"
NOW = datetime(2026, 11, 29, tzinfo=timezone.utc)
SALT = b"0123456789abcdef-fuzz"
HOSTILE = ["\ud800", "\udcff", "\udc80x", "\ud83d", "\x00", "\n\n# INJECTED HEADING\n\n", "\r\n", "\u2028",
           "[CLICK HERE](https://evil.example/phish)", "https://evil.example", "`", '"', "\\", "<script>x</script>",
           "😀", "牌谱", "x" * 130, ""]
# every code point, surrogates included (hypothesis leaves them out unless asked)
TEXT = st.text(st.characters(exclude_categories=()), max_size=24) | st.sampled_from(HOSTILE) | st.builds(
    "".join, st.lists(st.sampled_from(HOSTILE), min_size=2, max_size=4))
FUZZ = settings(max_examples=250, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
FULL = settings(max_examples=25, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
MARK = "\x1fPAIPU-FUZZ\x1f"


@lru_cache(maxsize=1)
def seeds() -> tuple[dict, ...]:
    """The worked example and one simulated game per implemented variant, each with an extension."""
    out = [json.loads((DATA / "guilin-short.jsonl").read_bytes())]
    for v in VARIANTS.values():
        if v.implemented:
            out += [msgspec.to_builtins(r) for r in simulate(v.id, 1, seed=11)]
    for o in out:
        o["x_note"] = {"by": "fuzz", "tags": ["a", "b"]}
        o.setdefault("table_id", "t-1")
        o.setdefault("started_at", "2026-11-29T20:15:00+08:00")
    return tuple(out)


def _strings(obj, path=()):
    """Paths to every string value (``("v", path)``) and every object key (``("k", path)``)."""
    if isinstance(obj, str):
        yield ("v", path)
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield ("k", path + (k,))
            yield from _strings(v, path + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _strings(v, path + (i,))


def _put(obj, where, value):
    kind, path = where
    parent = obj
    for k in path[:-1]:
        parent = parent[k]
    if kind == "v":
        parent[path[-1]] = value
    else:
        parent[value] = parent.pop(path[-1])


@st.composite
def fuzzed_line(draw) -> bytes:
    """A record with one string replaced, in one of three spellings."""
    obj = json.loads(json.dumps(draw(st.sampled_from(seeds()))))
    where = draw(st.sampled_from(list(_strings(obj))))
    how = draw(st.sampled_from(["escaped", "cesu", "bytes"]))
    if how == "bytes":
        _put(obj, where, MARK)
        junk = draw(st.binary(max_size=24)).replace(b"\n", b" ")
        return json.dumps(obj, ensure_ascii=False).encode().replace(json.dumps(MARK).encode(), b'"' + junk + b'"')
    _put(obj, where, draw(TEXT))
    if how == "escaped":
        return json.dumps(obj).encode()
    return json.dumps(obj, ensure_ascii=False).encode("utf-8", "surrogatepass")


def check_line(raw: bytes) -> None:
    for salt in (None, SALT):
        res = process_chunk(0, 0, [Line("fuzz.jsonl", 1, raw)], NOW, salt)
        rows = {t: tab.num_rows for t, tab in res.tables.items()}
        assert rows.get("games", 0) + rows.get("rejects", 0) == 1 and res.counts.read == 1, rows
        if "rejects" in res.tables:
            (r,) = res.tables["rejects"].to_pylist()
            assert r["code"] != "engine_error", r["message"]
    v = replay_line(raw).verdict
    msgspec.json.encode(v)
    for e in v.errors:  # the text line of `paipu validate`, strictly encoded
        f"{v.game_id} INVALID step {e.step} {e.code} [{e.rule}] {e.message}".encode("utf-8")
    trail = audit_trail(raw)
    msgspec.json.encode(trail)


@FUZZ
@given(fuzzed_line())
@example(b'{"format":"paipu/1","game_id":"\\ud800","variant":"guilin"}')
@example(b'{"game_id":"g\\udc80","format":"paipu/1","vari')
def test_every_string_field_never_crashes(raw):
    check_line(raw)


@FUZZ
@given(st.binary(max_size=300).map(lambda b: b.replace(b"\n", b" ")))
def test_raw_bytes_never_crash(raw):
    check_line(raw)


def _validate_strictly(path: Path) -> str:
    """``paipu validate PATH`` with stdout a strict UTF-8 stream (a terminal with LANG=*.UTF-8)."""
    buf = io.BytesIO()
    out = io.TextIOWrapper(buf, encoding="utf-8", errors="strict")
    old, sys.stdout = sys.stdout, out
    try:
        validate_cmd([path], as_json=False, quiet=False, rules=None)
    except typer.Exit:
        pass
    finally:
        sys.stdout = old
        out.flush()
    return buf.getvalue().decode("utf-8")


@FULL
@given(fuzzed_line(), st.binary(min_size=1, max_size=12))
@example(b'{"format":"paipu/1","game_id":"\\ud800","variant":"guilin"}', b"\xff\xfe")
def test_a_whole_ingest_of_a_fuzzed_line_and_file_name(raw, name):
    name = name.replace(b"/", b"_").replace(b"\x00", b"_")
    with tempfile.TemporaryDirectory() as tmp:
        logs = Path(tmp, "logs")
        logs.mkdir()
        f = logs / os.fsdecode(name + b".jsonl")
        f.write_bytes(raw + b"\n" + json.dumps(seeds()[0]).encode() + b"\n")
        console = Console(file=io.StringIO(), force_terminal=False)
        rep = ingest([logs], Path(tmp, "wh"), workers=1, progress=True, console=console)
        assert rep.status == "done" and rep.total().read == 2 and rep.total().lines == 2
        print_report(rep, console)
        games, rejects = read_rows(Path(tmp, "wh"), "games"), read_rows(Path(tmp, "wh"), "rejects")
        assert len(games) + len(rejects) == 2
        con = connect(Path(tmp, "wh"))
        n = con.sql("SELECT (SELECT count(*) FROM games) + (SELECT count(*) FROM rejects)").fetchall()
        assert n == [(2,)]
        con.close()
        assert "read 2:" in _validate_strictly(f)
