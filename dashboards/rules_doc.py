"""The rules docs (``docs/rules/<doc>.md``) as the dashboard serves them: their sections, the rule
ids their tables define, and the rule lines of a dispute explanation split into the rule and the
section of the doc it comes from (no Streamlit here).

A rule line of ``replay.explain`` ends with its source, e.g. ``坎 大 6 小 3 (001 §玩法规则;
docs/rules/guilin.md §Winning shape)``: the seed file's number and a repository path, which mean
nothing to a player. :func:`split_line` keeps ``坎 大 6 小 3`` and resolves the path to the doc and
section the Rules page (``/rules?doc=guilin&section=…``) shows.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from analytics.names import VARIANTS

DOCS = Path(__file__).resolve().parent.parent / "docs" / "rules"
FAMILY = {"sanjing_huapai": "huapai", "wujing_huapai": "huapai", "shuangbiegan_huapai": "huapai", "zipai": "guilin"}
"""Docs whose rule ids the family doc defines (a variant's own doc says what differs; zipai runs guilin's engine)."""

_HEAD = re.compile(r"^(#{1,6})\s+(.*\S)\s*$")
_SOURCE = re.compile(r"\s*\(([^()]*docs/rules/([a-z_]+)\.md(?:\s*§\s*([^;()]*[^;()\s]))?[^()]*)\)\s*$")
_LINK = re.compile(r"\]\(([a-z_]+)\.md\)")


@dataclass(frozen=True)
class Section:
    """One heading of a doc and the text under it (up to the next heading of any level)."""

    level: int
    title: str
    text: str


@dataclass(frozen=True)
class Rule:
    """A rule id as a doc's table defines it: ``doc`` (file stem), ``id`` (``<doc>.<id>`` in a
    verdict), ``name`` (the act or code column), ``rule`` (what it says), ``source`` (seed or spec
    section) and ``section`` (the heading of its table)."""

    doc: str
    id: str
    name: str
    rule: str
    source: str
    section: str


def docs() -> list[str]:
    """The docs there are (file stems): the variants' and the 花牌 family's first, then the others
    (the core rule ids of the log format)."""
    names = sorted(p.stem for p in DOCS.glob("*.md"))
    ours = set(VARIANTS) | set(FAMILY.values())
    return [n for n in names if n in ours] + [n for n in names if n not in ours]


@functools.cache
def sections(doc: str) -> tuple[Section, ...]:
    """The doc's sections in order (the text before the first heading is a level-0 section titled
    ""); empty for a doc that does not exist."""
    path = DOCS / f"{doc}.md"
    if doc not in docs() or not path.is_file():
        return ()
    out, level, title, buf = [], 0, "", []
    fence = False
    for line in path.read_text(encoding="utf-8").splitlines():
        fence ^= line.lstrip().startswith("```")
        m = None if fence else _HEAD.match(line)
        if m:
            out.append(Section(level, title, "\n".join(buf).strip("\n")))
            level, title, buf = len(m.group(1)), m.group(2), []
        else:
            buf.append(line)
    out.append(Section(level, title, "\n".join(buf).strip("\n")))
    return tuple(s for s in out if s.title or s.text)


def title(doc: str) -> str:
    """The doc's first heading (``桂林字牌 — `guilin```), else its name."""
    return next((s.title for s in sections(doc) if s.level == 1), doc)


def find_section(doc: str, cited: str) -> str | None:
    """The title of the doc's section a citation names: the same title, or the first that starts
    with it (``Winning shape`` → ``Winning shape and 胡``); None when none does."""
    want = cited.strip().lower()
    titles = [s.title for s in sections(doc) if s.title]
    for t in titles:
        if t.lower() == want:
            return t
    return next((t for t in titles if t.lower().startswith(want)), None)


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


@functools.cache
def rules(doc: str) -> dict[str, Rule]:
    """Every rule id the doc's tables define (a table whose first column is ``id``), by id."""
    out: dict[str, Rule] = {}
    for sec in sections(doc):
        head: list[str] | None = None
        for line in sec.text.splitlines():
            if not line.lstrip().startswith("|"):
                head = None
                continue
            cells = _cells(line)
            if head is None:
                head = [c.lower() for c in cells]
                continue
            if set("".join(cells)) <= set("-: ") or head[0] != "id":
                continue
            row = dict(zip(head, cells))
            name = row.get("act") or row.get("code") or ""
            text = row.get("rule") or row.get("what it means") or ""
            source = row.get("seed") or row.get("source") or ""
            for rid in re.findall(r"`([a-z_0-9]+)`", cells[0]):
                out.setdefault(rid, Rule(doc, rid, name, text, source, sec.title))
    return out


def rule(full_id: str) -> Rule | None:
    """The rule ``<doc>.<id>`` of a verdict (``guilin.turn``, ``paipu.result``), looked up in its
    doc, then the family's doc (花牌); None when no doc defines it."""
    doc, _, rid = str(full_id).partition(".")
    for d in (doc, FAMILY.get(doc)):
        if d and rid in rules(d):
            return rules(d)[rid]
    return None


def rule_name(full_id: object, esc: Callable[[str], str] = str) -> str:
    """A verdict's rule as the audit page and ``paipu audit`` name it: ``规则 rule guilin.turn turn
    order``, the id (through ``esc``) and its doc's name for it. The core ids' table names an error
    code, which the verdict says already, so those show the id alone, as does an id no doc defines."""
    r = rule(str(full_id)) if full_id else None
    name = "" if r is None or r.name.startswith("`") else f" {r.name}"
    return f"规则 rule {esc(str(full_id) if full_id else '—')}{name}"


def where(doc: str, section: str | None) -> str:
    """Where in its doc a rule line is said, as the audit names it: ``§Section``, else the doc's title."""
    return f"§{section}" if section else title(doc)


def split_line(line: str) -> tuple[str, str | None, str | None]:
    """A rule line as ``(rule text, doc, section title)``: the trailing ``(seed §…; docs/rules/<doc>.md
    §Section)`` taken off and resolved; ``(line, None, None)`` when the line cites no doc."""
    m = _SOURCE.search(line or "")
    if not m:
        return line, None, None
    doc, cited = m.group(2), m.group(3)
    if doc not in docs():
        return line, None, None
    return line[: m.start()].rstrip(), doc, (find_section(doc, cited) if cited else None)


def markdown(text: str, link: Callable[[str], str]) -> str:
    """A doc's Markdown for the page: a link to another doc (``[huapai.md](huapai.md)``) made a
    link to that doc on the Rules page (``link(doc)``)."""
    return _LINK.sub(lambda m: f"]({link(m.group(1))})" if m.group(1) in docs() else m.group(0), text)
