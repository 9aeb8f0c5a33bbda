"""``paipu … --help`` reads the classic way: values named ``N``/``PATH``/``TEXT``, flags
with none, no typer type names (``<bool>``, ``<int range>``, ``<list[Path]>``), and a docstring's
wrapped lines joined, so a sentence is not cut where the source file wrapped it."""

from __future__ import annotations

import re

import pytest
import typer
from typer.testing import CliRunner

from paipu.cli import app

COMMANDS = sorted(typer.main.get_command(app).commands)  # type: ignore[attr-defined]


@pytest.mark.parametrize("args", [[], *([c] for c in COMMANDS)])
def test_help_has_no_type_names(args):
    assert {"validate", "score", "simulate", "ingest", "report", "tune"} <= set(COMMANDS)
    r = CliRunner().invoke(app, [*args, "--help"], terminal_width=80)
    assert r.exit_code == 0, r.output
    assert not re.search(r"<(bool|int|str|path|float|list)", r.output), r.output
    assert max(len(ln) for ln in r.output.splitlines()) <= 80


def test_values_are_named_and_flags_are_not():
    r = CliRunner().invoke(app, ["simulate", "--help"], terminal_width=100)
    rows = dict(m.groups() for ln in r.output.splitlines() if (m := re.match(r"│ [* ]  (--[\w-]+) +(\S+)", ln)))
    assert (rows["--games"], rows["--out"], rows["--variant"]) == ("N", "PATH", "TEXT")
    r = CliRunner().invoke(app, ["validate", "--help"], terminal_width=100)
    assert "Usage: root validate [OPTIONS] FILES..." in r.output
    (json_row,) = [ln for ln in r.output.splitlines() if "--json" in ln]
    assert re.match(r"│ --json +one spec", json_row)  # the help text follows the flag directly


def test_docstring_lines_are_joined():
    r = CliRunner().invoke(app, ["ingest", "--help"], terminal_width=200)
    assert "rejected or duplicate (they are counted); 2 for a usage error" in r.output
