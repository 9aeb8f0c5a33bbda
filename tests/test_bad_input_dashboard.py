"""Strings from a log are shown as text on every dashboard page: no link, heading,
emphasis or raw HTML made of them, and no bare URL where Streamlit would auto-link it.

A warehouse of hostile games — an ``act`` (``"x\\n\\n[CLICK HERE](https://evil.example/phish)
\\n\\n# INJECTED HEADING"``), and hostile game ids, player ids, table ids, experiment names, card
codes and a rejected line's id — is opened page by page in ``AppTest``. Every Markdown body the page
sends (Markdown, captions, alerts, headings, page-link labels) is parsed as CommonMark with HTML
(markdown-it-py, the parser family of Streamlit's own): text of a log may appear only inside a code
span or inside one raw HTML block with no Markdown in it. Streamlit's GFM auto-linking runs over
plain text nodes after escapes are resolved (checked in its 1.67 bundle), so an escaped URL in plain
text would still become a link: the test treats any plain text holding a hostile marker as a fault.
"""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

import pytest
from apptest_util import open_page
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from dashboards.labels import html_text, plain, text
from ingest.run import ingest

ROOT = Path(__file__).resolve().parent.parent
SHORT = json.loads((ROOT / "data" / "guilin-short.jsonl").read_bytes())
MARK = "EVILMARK"
ACT = f"x{MARK}\n\n[CLICK HERE](https://evil.example/phish)\n\n# INJECTED HEADING"
GAME = f"g-{MARK}-[CLICK](https://evil.example/g) https://evil.example/bare *em* <u>u</u>\r\r## H"
PLAYER = f"p-{MARK}\n\n# INJECTED [x](https://evil.example/p) www.evil.example `tick` <i>i</i>"
TABLE = f"t-{MARK} https://evil.example/t"
EXPERIMENT = f"e-{MARK} [e](https://evil.example/e)"
CARD = f"x1{MARK}\n\n[card](https://evil.example/c)"
PAGES = ["screens/overview.py", "screens/hand-types.py", "screens/families.py", "screens/tuning.py",
         "screens/fairness.py", "screens/collusion.py", "screens/leaderboard.py"]


def _rec(gid: str, **extra) -> str:
    return json.dumps({**SHORT, "game_id": gid, **extra}, ensure_ascii=False)


@pytest.fixture(scope="module")
def hostile(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("hostile")
    seats = [PLAYER, "p:b", f"p:c {MARK}"]
    bad_act = json.loads(_rec("bad-act"))
    bad_act["actions"][2] = {"seat": 1, "act": ACT, "card": "d9"}
    bad_card = json.loads(_rec("bad-card", seats=seats))
    bad_card["actions"][2] = {"seat": 1, "act": "discard", "card": CARD}
    lines = [_rec(GAME, seats=seats, table_id=TABLE, x_experiment=EXPERIMENT),
             _rec("plain-1", seats=seats, table_id=TABLE),
             json.dumps(bad_act, ensure_ascii=False), json.dumps(bad_card, ensure_ascii=False),
             '{"game_id": ' + json.dumps(f"rej-{MARK} [r](https://evil.example/r)") + ', "format": "paipu/1", "va']
    src = root / "hostile.jsonl"
    src.write_text("\n".join(lines) + "\n", encoding="utf-8")
    rep = ingest([src], root / "wh", workers=1, progress=False)
    assert (rep.total().valid, rep.total().invalid, rep.total().rejected) == (2, 2, 1)
    return root / "wh"


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)


def faults(body: str) -> list[str]:
    """What a Markdown body would turn log text into: links, headings, emphasis, HTML, bare URLs."""
    out = []
    md = MarkdownIt("commonmark", {"html": True}).enable("strikethrough")
    for tok in md.parse(body):
        if tok.type == "html_block":
            p = _Tags()
            p.feed(tok.content)
            # tags of the hostile strings; the pages' own HTML uses none of them
            out += [f"HTML <{t}> in a block" for t in p.tags if t in {"a", "script", "u", "i", "h1", "h2", "img"}]
            continue
        for child in tok.children or []:
            if child.type == "text" and (MARK in child.content or "evil.example" in child.content):
                out.append(f"plain text (Markdown and auto-links apply): {child.content!r}")
            if child.type == "html_inline" and MARK in child.content:
                out.append(f"inline HTML from a log: {child.content!r}")
            if child.type == "link_open" and "evil" in str(child.attrs.get("href")):
                out.append(f"link to {child.attrs.get('href')}")
        if tok.type == "heading_open":
            out.append("a heading")  # no page puts a heading inside an element body
    return out


def bodies(at) -> list[str]:
    kinds = ("markdown", "caption", "info", "warning", "error", "success", "title", "subheader", "header")
    out = [str(e.value) for k in kinds for e in getattr(at, k)]
    out += [str(e.proto.label) for e in at.get("page_link")]
    return out


def check_page(at) -> int:
    seen = 0
    for body in bodies(at):
        bad = faults(body) if MARK in body or "evil" in body else []
        assert not bad, (body, bad)
        seen += MARK in body
    return seen


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.text(max_size=40) | st.sampled_from([ACT, GAME, PLAYER, CARD, "`", "``x``", " ` ", "\r\n\r\n"]))
def test_the_two_escapes(s):
    """``text``: one code span holding exactly the text (on one line); ``html_text`` in a ``<div>``:
    one raw HTML block, whatever the text."""
    md = MarkdownIt("commonmark", {"html": True})
    toks = md.parse("x " + text(s))
    (inline,) = [t for t in toks if t.type == "inline"]
    assert [c.type for c in inline.children] == ["text", "code_inline"]
    shown = plain(s).replace("\x00", "\ufffd")  # CommonMark shows NUL as U+FFFD
    assert inline.children[1].content == (shown if shown.strip() else " ")
    toks = md.parse(f"<div>{html_text(s)}</div>")
    assert [t.type for t in toks] == ["html_block"]


def test_the_checker_catches_the_issue_line():
    msg = f"act `{ACT}` is not one of guilin's"
    assert any("link" in f or "plain text" in f for f in faults(msg))
    assert faults("# INJECTED HEADING") and faults(f"x {MARK} https://evil.example")
    assert faults(f'<div><a href="https://evil.example">{MARK}</a></div>')


@pytest.mark.parametrize("game,hit", [(GAME, MARK), ("bad-act", "CLICK HERE"), ("bad-card", "x1")])
def test_the_audit_page_shows_log_strings_as_text(monkeypatch, hostile, game, hit):
    at = open_page(monkeypatch, hostile, "screens/audit.py", game=game)
    assert check_page(at) >= 1
    assert any(hit in b for b in bodies(at))
    if game == "bad-act":  # the verdict box holds the act, literally, in one code span
        errs = [e.value for e in at.error if "[CLICK HERE](https://evil.example/phish)" in e.value]
        msgs = [e.rsplit("\n\n", 1)[1] for e in errs]  # below the heading line: the message, one code span
        assert msgs and all(m.startswith("``") and m.endswith("``") and m.count("``") == 2 for m in msgs)
    if game == "bad-card":  # a step through the bad card: its tile, its error
        at.slider[0].set_value(2).run()
        assert check_page(at) >= 1


def test_the_player_page(monkeypatch, hostile):
    at = open_page(monkeypatch, hostile, "screens/player.py", player=PLAYER)
    assert check_page(at) >= 1
    at = open_page(monkeypatch, hostile, "screens/player.py", player=PLAYER[:8])  # similar ids, as links
    assert check_page(at) >= 1


def test_the_search_and_the_other_pages(monkeypatch, hostile):
    at = open_page(monkeypatch, hostile, "screens/audit.py", q=MARK, date=f"{MARK}[x](https://evil.example)")
    assert check_page(at) >= 1
    for page in PAGES:
        check_page(open_page(monkeypatch, hostile, page))
