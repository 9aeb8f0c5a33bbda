"""The C fields a ``.pxd`` declares for a compiled state are exactly the state's ``C_FIELDS`` (what a
copy carries over besides ``__dict__``, on both kernels): the two lists are checked here, so a field
added to one and not the other fails at once instead of being lost in a copy."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from replay.engine import GameState
from replay.variants.guilin.state import GuilinState
from replay.variants.yuanjiang_guihuzi.state import YuanjiangState

ROOT = Path(__file__).resolve().parents[1]


def declared(pxd: Path, cls: str) -> set[str]:
    """The ``cdef public object`` fields of ``cdef class cls`` in ``pxd``."""
    body = pxd.read_text(encoding="utf-8").split(f"cdef class {cls}", 1)[1].split("\ncdef class", 1)[0]
    return {name.strip() for line in re.findall(r"cdef public object (.+)", body) for name in line.split(",")}


@pytest.mark.parametrize("pxd, cls, base", [
    ("replay/engine.pxd", GameState, None),
    ("replay/variants/guilin/state.pxd", GuilinState, GameState),
    ("replay/variants/yuanjiang_guihuzi/state.pxd", YuanjiangState, GameState),
])
def test_a_pxd_declares_exactly_the_states_c_fields(pxd: str, cls: type, base: type | None) -> None:
    own = set(cls.C_FIELDS) - (set(base.C_FIELDS) if base else set())
    assert declared(ROOT / pxd, cls.__name__) == own
    assert len(cls.C_FIELDS) == len(set(cls.C_FIELDS))  # each field once


def test_the_check_reads_a_field_list_as_written() -> None:
    assert declared(ROOT / "replay/engine.pxd", "Option") == {"seat", "act", "key", "forced", "events", "rule"}


def test_only_kernel_files_carry_cython_in_the_variants():
    """A variant's rule modules (and replay/split.py) read as plain Python: C types live in its
    ``_kernel.py`` or its ``.pxd``, never in a rule file."""
    rule_files = [*sorted((ROOT / "replay" / "variants").glob("*/*.py")), ROOT / "replay" / "split.py"]
    typed = [str(p.relative_to(ROOT)) for p in rule_files if p.name != "_kernel.py"
             and re.search(r"@cython\.|cython\.declare|^import cython", p.read_text(encoding="utf-8"), re.M)]
    assert typed == []
    assert len(rule_files) > 40  # every variant's files were read
