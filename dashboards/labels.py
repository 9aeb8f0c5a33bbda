"""Words people read: Chinese-first labels with English beside, and cards shown as cards.

Card names and colours come from ``replay.cards`` (spec §3: 字牌 red = 二七十 / 贰柒拾); nothing
here renders a raw code when the deck knows it.

Everything that came from a log is shown as text (issue 20), through one of two escapes built on
:func:`plain` (the text on one line): :func:`text` for Markdown (a code span: literal, and never
auto-linked — Streamlit links bare URLs in plain text even when escaped) and :func:`html_text`
for HTML, which must sit in one raw HTML block (a line starting with ``<div``) so Markdown never
sees it.
"""

from __future__ import annotations

import html
import re
from typing import Any, Iterable

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

VARIANTS = {
    "guilin": "桂林字牌", "zipai": "字牌", "yuanjiang_guihuzi": "沅江鬼胡子", "tongcheng_gezi": "通城個子",
    "sanjing_huapai": "三精花牌", "wujing_huapai": "五精花牌", "shuangbiegan_huapai": "雙憋杠花牌",
    "shangdaren": "上大人",
}

ACTS = {
    "draw": "摸牌", "discard": "出牌", "hu": "胡", "pass": "过", "chi": "吃", "peng": "碰", "sao": "扫",
    "guo_sao": "过扫", "sao_chuan": "扫穿", "kai_duo": "开舵", "wai": "歪", "liu": "溜", "piao": "飘",
    "jian": "撿", "zhao": "招", "guan_sheng": "觀生", "hua": "滑", "dui": "對", "zha": "扎",
    "kai_fan": "開泛", "kai_mao": "開毛", "mao": "毛", "bi": "比",
    # group kinds of a finished hand (replay/variants/guilin/scoring.py)
    "kan": "坎", "long": "起手四张", "yi_er_san": "一二三", "er_qi_shi": "二七十", "shunzi": "顺子",
    "dazi": "搭子", "zero_triple": "三张",
}

WIN_KINDS = {"zimo": "自摸 self-drawn", "dianpao": "点炮 dealt-in", "flip": "翻牌 flipped",
             "deal": "起手胡 dealt win", "?": "未知 unknown"}

# Ids named by the spec and the seeds; an id not listed shows as itself.
HAND_TYPES = {
    "zimo": "自摸", "tianhu": "天胡", "dihu": "地胡", "sanlong_wukan": "三笼五坎", "haidi": "海底",
    "shidui": "十对", "yishou_hei": "一手黑", "chong_tuo": "重舵", "xing": "醒",
}

ERROR_CODES = {
    "bad_json": "非 JSON", "schema": "格式错误", "unknown_variant": "未知玩法", "unknown_card": "未知牌",
    "unknown_act": "未知动作", "deck_mismatch": "牌组不符", "wall_mismatch": "牌墙不符",
    "out_of_turn": "未轮到", "illegal_action": "违规动作", "priority_violation": "优先权违规",
    "missing_forced_action": "缺强制动作", "not_a_win": "非胡牌", "truncated": "记录不完整",
    "trailing_actions": "结束后仍有动作", "result_mismatch": "结算不符", "duplicate_game": "重复对局",
    "shuffle_mismatch": "洗牌摘要不符", "engine_error": "引擎错误",
}

RESULT_FIELDS = {
    "outcome": "结果 outcome", "winner": "胡家 winner", "win_card": "胡牌 win card", "from": "放牌 from",
    "points": "胡 hu", "hand_types": "牌型 hand types", "xing": "醒 xing", "jing": "精 jing",
    "units": "舵/分 units", "breakdown": "明细 breakdown", "bao": "承包 bao", "scores": "得分 scores",
}
OUTCOMES = {"win": "胡 win", "draw": "荒庄 draw"}

COLOURS = {"red": "#c62828", "green": "#2e7d32", "black": "#212121"}


def zh(table: dict[str, str], key: Any) -> str:
    """``中文 (key)`` when ``table`` knows ``key``, else ``key`` itself."""
    if key is None:
        return "—"
    name = table.get(str(key))
    return f"{name} ({key})" if name else str(key)


def error_label(code: str | None) -> str:
    """``违规动作 illegal_action`` style label of an error code."""
    if not code:
        return "—"
    name = ERROR_CODES.get(code)
    return f"{name} {code}" if name else code


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


def option_text(option: Any, deck: Deck) -> str:
    """A legal option from the engine in words (``chi x1 with x2+x3`` → ``吃 小一 with 小二+小三``)."""
    def word(m: re.Match[str]) -> str:
        tok = m.group(0)
        if tok in ACTS:
            return ACTS[tok]
        label, colour = card_info(tok, deck)
        return label if colour else tok
    return re.sub(r"[^\s+,/()\[\]]+", word, str(option))


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
