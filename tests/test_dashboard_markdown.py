"""A claimed result's strings are text on the audit page.

``st.table`` reads every cell as Markdown, so a log's ``win_card``, ``hand_types`` entries,
``breakdown`` keys, ``xing.cards``, ``jing.main`` or ``x_`` result field could put a link, a remote
image or a heading in the claimed-vs-computed tables. Each game of
:func:`apptest_util.markdown_claim_warehouse` plants one of :data:`apptest_util.MARKDOWN` in every
one of them; its audit page is opened in ``AppTest`` and every Markdown body it sends (text
elements, labels, every table cell and header) is parsed as CommonMark with HTML: a planted string
may only be the content of a code span, and each is shown whole, literally. The page in a real
browser: ``tests/test_browser.py``.
"""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from apptest_util import MARKDOWN, MARKDOWN_GAMES, markdown_claim_warehouse, open_page
from markdown_it import MarkdownIt
from typer.testing import CliRunner

from dashboards import audit as audit_mod
from dashboards import labels

HOSTILE = ("evil.example", "HEADING", "click")
OWN_LINKS = ("rules?", "#dispute")
"""Links the page itself writes (never from a log): to the Rules page, and to the dispute's section."""
_MD = MarkdownIt("commonmark", {"html": True}).enable("strikethrough")


@pytest.fixture(scope="module")
def claims(tmp_path_factory):
    return markdown_claim_warehouse(tmp_path_factory.mktemp("claims"))


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)


def faults(body: str) -> list[str]:
    """What Markdown would make of a planted string in ``body``: a link, an image, a heading, HTML,
    or plain text (Streamlit auto-links a bare URL in plain text, escaped or not)."""
    out = []
    for tok in _MD.parse(body):
        if tok.type == "heading_open":
            out.append("a heading")  # no cell or label of the page is a heading
        if tok.type == "html_block":  # the page's own card tiles: escaped text, no tag from a log
            p = _Tags()
            p.feed(tok.content)
            out += [f"<{t}> in an HTML block" for t in p.tags if t in {"a", "img", "h1", "h2", "script"}]
            continue
        for child in tok.children or []:
            if child.type == "link_open" and str(child.attrs.get("href")).startswith(OWN_LINKS):
                continue  # the page's own: a rule's section of the Rules page, the dispute below
            if child.type in ("link_open", "image"):
                out.append(f"{child.type} {child.attrs.get('href') or child.attrs.get('src')}")
            elif child.type != "code_inline" and any(h in child.content for h in HOSTILE):
                out.append(f"{child.type} outside a code span: {child.content!r}")
    return out


def code_spans(body: str) -> set[str]:
    return {c.content for tok in _MD.parse(body) for c in tok.children or [] if c.type == "code_inline"}


def bodies(at) -> list[str]:
    """Every Markdown body the page sends: text elements, alerts, labels, table headers and cells."""
    kinds = ("markdown", "caption", "info", "warning", "error", "success", "title", "subheader", "header")
    out = [str(e.value) for k in kinds for e in getattr(at, k)]
    out += [str(e.label) for e in at.expander] + [str(e.proto.label) for e in at.get("page_link")]
    out += [str(e.label) for e in at.metric]
    for t in at.table:
        out += [str(c) for c in t.value.columns] + [str(v) for v in t.value.to_numpy().ravel().tolist()]
    return out


@pytest.mark.parametrize("i", range(len(MARKDOWN)), ids=["link", "image", "heading", "html"])
def test_every_claimed_string_is_text_on_the_audit_page(monkeypatch, claims, i):
    at = open_page(monkeypatch, claims, "screens/audit.py", game=MARKDOWN_GAMES[i])
    assert any("result_mismatch" in e.value for e in at.error)  # the disputed game, opened
    # the split, term by term, and claimed vs computed: all three tables are there
    assert len(at.table) == 3
    found = [(b, f) for b in bodies(at) for f in faults(b)]
    assert not found, found
    # each planted string is shown whole, in every table cell of a claimed field that holds it
    spans = [code_spans(str(v)) for t in at.table for v in t.value.to_numpy().ravel().tolist()]
    assert set(MARKDOWN) <= set().union(*spans)
    diff = at.table[-1].value.set_index("字段 field")
    claimed = {k: code_spans(v) for k, v in diff["申报 claimed"].items()}
    m = MARKDOWN[i]
    assert m in claimed["胡牌 win card"] and m in claimed["精 jing"]
    assert set(MARKDOWN) <= claimed["牌型 hand types"] & claimed["醒 xing"] & claimed["明细 breakdown"]
    assert {f"x_{m}"} == set().union(*(code_spans(f) for f in diff.index if f.startswith("`")))
    # the fields that differ, listed under the table: the x_ field's name is a code span there too
    listed = next(e.value for e in at.error if "field(s) differ" in e.value)
    assert not faults(listed)


def test_fmt_value_escapes_only_log_text():
    """Labels and numbers stay as they are; every piece the log named goes through ``esc`` (on a
    page, a code span); ``paipu audit`` (``esc=str``) shows the same words without the backticks."""
    deck = labels.deck_for("guilin")
    lit = labels.text
    assert audit_mod.fmt_value("hand_types", ["zimo", "# H"], deck, esc=lit) == "自摸 (zimo)、`# H`"
    assert audit_mod.fmt_value("hand_types", ["zimo", "# H"], deck) == "自摸 (zimo)、# H"
    assert audit_mod.fmt_value("win_card", "d7", deck, esc=lit) == "柒"
    assert audit_mod.fmt_value("win_card", "[a](b)", deck, esc=lit) == "`[a](b)`"
    assert audit_mod.fmt_value("xing", {"cards": ["x10", "<i>"], "count": 2}, deck, esc=lit) == "小十 `<i>` · 2 个"
    assert audit_mod.fmt_value("breakdown", {"tuo": 3, "# k": 1}, deck, esc=lit) == "舵 3, `# k` 1"
    assert audit_mod.fmt_value("jing", {"main": "![i](u)", "count": 1}, deck, esc=lit) == "主精 `![i](u)` · 精 1"
    assert audit_mod.fmt_value("scores", [-6, 12, "# s"], deck, esc=lit) == "-6, +12, `# s`"
    assert audit_mod.fmt_value("x_a", {"# k": "# v"}, deck, esc=lit) == "`# k` `# v`"
    assert audit_mod.fmt_value("points", 21, deck, esc=lit) == "21"
    assert audit_mod.term("breakdown.tuo", "guilin", lit) == "舵 (tuo)"
    assert audit_mod.term("breakdown.# k", "guilin", lit) == "`# k`"
    assert audit_mod.term("x_# f", "guilin", lit) == "`x_# f`" and audit_mod.term("x_# f") == "x_# f"


def test_paipu_audit_prints_the_claimed_strings_as_they_are(claims):
    """The terminal has no Markdown: ``paipu audit`` prints the planted strings, no backticks."""
    from paipu.cli import app

    res = CliRunner().invoke(app, ["audit", MARKDOWN_GAMES[0], "--warehouse", str(claims)], env={"COLUMNS": "400"})
    assert res.exit_code == 0, res.output
    out = res.output
    assert all(m in out for m in MARKDOWN), out
    assert "`" not in out
