"""The rules docs a new user reads: each doc's "Decisions" list is numbered 1, 2, 3, …
in order, so "decision N" elsewhere in the doc finds it (guilin's once read 10, 12, 13, 11)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOCS = sorted((Path(__file__).resolve().parent.parent / "docs" / "rules").glob("*.md"))


def decisions(text: str) -> list[int]:
    part = re.search(r"^## Decisions[^\n]*\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    return [int(n) for n in re.findall(r"^(\d+)\. ", part.group(1), re.M)] if part else []


@pytest.mark.parametrize("doc", DOCS, ids=[d.stem for d in DOCS])
def test_decisions_are_numbered_in_order(doc):
    got = decisions(doc.read_text(encoding="utf-8"))
    assert got == list(range(1, len(got) + 1))


def test_the_reading_of_a_list():
    assert decisions("## Decisions\n1. a\n2. b\n\n## Options\n3. c\n") == [1, 2]
    assert decisions("x\n## Decisions where the seed is silent\n1. a\n12. b\n11. c\n") == [1, 12, 11]
