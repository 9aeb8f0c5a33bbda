"""Words people read on the pages: Chinese-first labels with English beside, and cards shown as cards.

The names of ids (variants, acts, hand types, options, …) are :mod:`analytics.names`, shared with
``paipu report`` and re-exported here; what is the pages' own is how text is escaped and cards drawn.
Card names and colours come from ``replay.cards`` (spec §3: 字牌 red = 二七十 / 贰柒拾); nothing
here renders a raw code when the deck knows it.

Everything that came from a log is shown as text, never as markup, through one of two escapes built on
:func:`plain` (the text on one line): :func:`text` for Markdown (a code span: literal, and never
auto-linked — Streamlit links bare URLs in plain text even when escaped) and :func:`html_text`
for HTML, which must sit in one raw HTML block (a line starting with ``<div``) so Markdown never
sees it.
"""

from __future__ import annotations

import html
import re
from typing import Any, Iterable

# the names (analytics.names, shared with `paipu report`), re-exported: the pages read one word list
from analytics.names import (  # noqa: F401  # noqa: F401
    ACTS,
    BREAKDOWN,
    HAND_TYPES,
    OPTIONS,
    OUTCOMES,
    RESULT_FIELDS,
    VARIANTS,
    WIN_KINDS,
    error_label,
    group_kind,
    hand_type,
    name,
    option,
    points_unit,
    term,
    units_are_points,
    units_unit,
    zh,
)
from replay.cards import HUAPAI, HUAPAI_LAI, SHANGDAREN, ZIPAI, Deck

_BREAKS = {ord(c): " " for c in "\r\n\x0b\x0c\x85\u2028\u2029"}


def plain(s: Any) -> str:
    """``s`` as a string on one line: every line break a space (a blank line would end a code span
    or an HTML block and let the rest be read as Markdown)."""
    return str(s).translate(_BREAKS)


def text(s: Any) -> str:
    """Log text for Markdown: one code span, shown literally (no links, headings, emphasis, HTML,
    auto-linked URLs), its backticks kept (the fence is one longer than its longest run)."""
    t = plain(s)
    if not t.strip():
        return "` `"
    fence = "`" * (max((len(r) for r in re.findall("`+", t)), default=0) + 1)
    # CommonMark strips one space at each end when both ends have one: pad only where that matters
    pad = " " if t[0] == "`" or t[-1] == "`" or (t[0] == " " and t[-1] == " ") else ""
    return f"{fence}{pad}{t}{pad}{fence}"


def html_text(s: Any) -> str:
    """Log text for HTML (inside one raw HTML block, see the module docstring): escaped, one line."""
    return html.escape(plain(s))


# Deck of each spec §7 variant (spec §3 families). Kept here rather than read from
# replay.variants so the dashboard does not import the rules engine just to name cards.
DECKS: dict[str, Deck] = {
    "guilin": ZIPAI, "zipai": ZIPAI, "yuanjiang_guihuzi": ZIPAI,
    "tongcheng_gezi": HUAPAI, "sanjing_huapai": HUAPAI, "wujing_huapai": HUAPAI,
    "shuangbiegan_huapai": HUAPAI_LAI, "shangdaren": SHANGDAREN,
}

COLOURS = {"red": "#c62828", "green": "#2e7d32", "black": "#212121"}


def deck_for(variant: str | None) -> Deck:
    """The deck a variant plays with (字牌 when unknown: the project's first family)."""
    return DECKS.get(variant or "", ZIPAI)


def card_info(code: str, deck: Deck) -> tuple[str, str | None]:
    """(Chinese label, colour) of ``code``; an unknown code is returned as is with colour None."""
    try:
        i = deck.index(code)
    except Exception:  # UnknownCard, or a non-string from a broken log
        return str(code), None
    return deck.label(i), deck.colours[i]


def card_text(code: str | None, deck: Deck) -> str:
    """Plain Chinese label of one card (``—`` for none)."""
    return "—" if code is None else card_info(code, deck)[0]


def cards_text(codes: Iterable[str] | None, deck: Deck) -> str:
    """Plain labels of several cards, space-separated."""
    return " ".join(card_text(c, deck) for c in (codes or []))


def sort_cards(codes: Iterable[str], deck: Deck) -> list[str]:
    """Cards in deck order (a hand is a multiset; unknown codes last)."""
    def key(c: str) -> tuple[int, str]:
        try:
            return deck.index(c), ""
        except Exception:
            return len(deck.codes), str(c)
    return sorted(codes, key=key)


_CARD_STYLE = ("display:inline-block;min-width:1.5em;padding:0 .25em;margin:1px;border:1px solid #b0a990;"
               "border-radius:4px;background:#fffdf3;text-align:center;font-weight:600;line-height:1.6;")


def card_html(code: str, deck: Deck) -> str:
    """One card as a small tile: its Chinese label, red/green/black like the real card."""
    label, colour = card_info(code, deck)
    if colour is None:  # not a card of this deck: show the code, dashed, so it stands out
        return f'<span style="{_CARD_STYLE}border-style:dashed;color:#6a1b9a" title="unknown card">{html_text(label)}</span>'
    return (f'<span style="{_CARD_STYLE}color:{COLOURS[colour]}" title="{html_text(code)}">'
            f"{html_text(label)}</span>")


def cards_html(codes: Iterable[str] | None, deck: Deck, empty: str = "—") -> str:
    """Several cards as tiles (``empty`` when there are none); HTML for inside a ``<div>``."""
    parts = [card_html(c, deck) for c in (codes or [])]
    return "".join(parts) if parts else html_text(empty)


def option_text(opt: Any, deck: Deck) -> str:
    """A legal option from the engine in words (``chi x1 with x2+x3`` → ``吃 小一 with 小二+小三``)."""
    def word(m: re.Match[str]) -> str:
        tok = m.group(0)
        if tok in ACTS:
            return ACTS[tok]
        label, colour = card_info(tok, deck)
        return label if colour else tok
    return re.sub(r"[^\s+,/()\[\]]+", word, str(opt))


def group_options(options: Iterable[Any], deck: Deck) -> list[tuple[str, list[str]]]:
    """Options grouped by their act, in order: ``[("出牌 discard", ["小四", "小五", …]), ("过 pass", [])]``.

    Fourteen ``discard xN`` lines read better as one act followed by its cards.
    """
    groups: dict[str, list[str]] = {}
    for opt in options:
        act, _, rest = str(opt).strip().partition(" ")
        head = f"{ACTS[act]} {act}" if act in ACTS else act
        items = groups.setdefault(head, [])
        if rest:
            items.append(option_text(rest, deck))
    return list(groups.items())


def pct(x: float | None) -> str:
    """A fraction as ``12.5%`` (``—`` for None)."""
    return "—" if x is None else f"{100 * x:.1f}%"


def num(x: float | None, digits: int = 1) -> str:
    """A mean as ``21.0`` (``—`` for None)."""
    return "—" if x is None else f"{x:.{digits}f}"
