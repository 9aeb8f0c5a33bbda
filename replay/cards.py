"""Cards and decks of the three families, with the canonical codes of paipu/1 §3.

A card kind is a small int index into its deck's ``codes``; a hand is a count
vector (``list[int]`` of length ``len(deck.codes)``). Count vectors make hands
order-free by construction, which the scorers rely on (style.md: RLCard).

Sources: ../shared/spec/log-format.md §3 (codes, aliases, colours);
001_b125067d32c1f7d7.txt §牌面信息 (字牌 80 cards, red 二七十/贰柒拾);
002_f9a80b28e0fcbf1a.txt §牌型組合 (花牌 110, flowers on 乙三五七九) and §上大人 (96).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Mapping

from replay.errors import UnknownCard

try:
    import cython
except ImportError:  # run as Python where Cython is not installed (replay/_cython.py: no-op decorators)
    from replay import _cython as cython

_FAMILY_NAMES = {"zipai": "字牌", "huapai": "花牌", "huapai_lai": "花牌 (with 賴)", "shangdaren": "上大人"}
"""The decks' names in messages (the family id ``zipai`` would read as the variant of that name)."""
_SMALL = "一二三四五六七八九十"
_BIG = "壹贰叁肆伍陆柒捌玖拾"


@cython.cfunc
@cython.locals(table=dict, out=list)
def _looked_up(deck: "Deck", table: dict, cards: Iterable[str]) -> list:
    """``table``'s value for each of ``cards``, in order (a typed loop: compiled, one C-level lookup
    a card). The first card not in ``table`` raises as :meth:`Deck.index` does."""
    out = []
    for c in cards:
        got = table.get(c)
        if got is None:
            deck.index(c)  # names the first unknown card
        out.append(got)
    return out


@dataclass(frozen=True)
class Deck:
    """One family's deck: canonical codes in deck order and copies of each.

    ``codes[i]`` is the canonical code of kind ``i``; ``copies[i]`` how many
    cards of it the deck holds; ``aliases`` maps input spellings to canonical
    codes; ``labels`` are the Chinese names shown to people; ``colours`` are
    ``"red"``, ``"green"`` or ``"black"``.
    """

    family: str
    codes: tuple[str, ...]
    copies: tuple[int, ...]
    labels: tuple[str, ...]
    colours: tuple[str, ...]
    aliases: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        index = {c: i for i, c in enumerate(self.codes)}
        # every accepted spelling (canonical codes and aliases) → kind: one lookup per card
        lookup = {**{a: index[c] for a, c in self.aliases.items() if c in index}, **index}
        object.__setattr__(self, "_index", lookup)
        # every accepted spelling → its canonical code (canonical_codes: one C-level map a list)
        object.__setattr__(self, "_canon", {a: self.codes[i] for a, i in lookup.items()})

    @property
    def size(self) -> int:
        """Number of cards in the deck (80, 110, 112 or 96)."""
        return sum(self.copies)

    def index(self, code: str) -> int:
        """Kind index of ``code`` (canonical or alias).

        :raises UnknownCard: the code names no card of this deck.
        """
        idx = self._index.get(code)  # type: ignore[attr-defined]
        if idx is None:
            raise UnknownCard(f"`{code}` is not a card code of the {self.size}-card {_FAMILY_NAMES[self.family]} deck "
                              f"({', '.join(self.codes[:3])} … {self.codes[-1]}; spec §3)")
        return idx

    def canonical(self, code: str) -> str:
        """Canonical code of ``code``. :raises UnknownCard:"""
        return self.codes[self.index(code)]

    def canonical_codes(self, cards: Iterable[str]) -> list[str]:
        """Canonical codes of ``cards`` (codes or aliases). :raises UnknownCard:"""
        return _looked_up(self, self._canon, cards)  # type: ignore[attr-defined]

    @cython.locals(codes=tuple)
    def codes_of(self, kinds: Iterable[int]) -> list[str]:
        """Canonical codes of ``kinds`` (kind indices), in order: the inverse of :meth:`kinds`."""
        codes = self.codes
        return [codes[k] for k in kinds]

    def kinds(self, cards: Iterable[str]) -> list[int]:
        """Kind index of each of ``cards`` (codes or aliases), in order: :meth:`index` of each.
        :raises UnknownCard:"""
        return _looked_up(self, self._index, cards)  # type: ignore[attr-defined]

    @cython.locals(v=list, ix=dict, i=cython.Py_ssize_t)
    def counts(self, cards: Iterable[str]) -> list[int]:
        """Count vector of ``cards`` (codes). :raises UnknownCard:"""
        ix = self._index  # type: ignore[attr-defined]
        v = [0] * len(self.codes)
        for c in cards:  # :meth:`kinds` without its list
            k = ix.get(c)
            if k is None:
                self.index(c)  # names the first unknown card
            i = k
            v[i] += 1
        return v

    def full_counts(self) -> list[int]:
        """Count vector of the whole deck."""
        return list(self.copies)

    def all_cards(self) -> list[str]:
        """Every card of the deck as canonical codes, in deck order."""
        return [c for c, n in zip(self.codes, self.copies) for _ in range(n)]

    def held(self, hand: Iterable[int], melds: Iterable[tuple[str, Iterable[int]]]) -> list[int]:
        """Count vector of a concealed ``hand`` (counts) plus the cards of its ``melds``
        (``(kind, kinds)`` pairs), as a score case (spec §8) holds them.

        :raises ValueError: more copies of a card than the deck has (the cards are named).
        """
        total = list(hand)
        for _, cards in melds:
            for k in cards:
                total[k] += 1
        over = [self.codes[k] for k, n in enumerate(total) if n > self.copies[k]]
        if over:
            raise ValueError(f"more copies than the deck holds: {', '.join(over)}")
        return total

    @cython.locals(out=list, codes=tuple, cs=list, i=cython.Py_ssize_t, m=cython.Py_ssize_t, n=cython.Py_ssize_t,
                   j=cython.Py_ssize_t)
    def expand(self, counts: Iterable[int]) -> list[str]:
        """Codes of a count vector, in deck order (typed loops over the counts: a count is a
        card's copies, far inside a C index)."""
        codes = self.codes
        cs = counts if type(counts) is list else list(counts)
        out = []
        m = min(len(codes), len(cs))  # zip's length
        for i in range(m):
            n = cs[i]
            for j in range(n):  # noqa: B007 - j is the typed C counter (cython.locals); none for a kind not held
                out.append(codes[i])
        return out

    def label(self, i: int) -> str:
        """Chinese name of kind ``i`` (e.g. 小四, 柒, 花三)."""
        return self.labels[i]

    def name(self, i: int) -> str:
        """Kind ``i`` as messages show a card: its Chinese name and its code, e.g. ``拾 (d10)``; the
        code alone where it is the name (花牌, 上大人: ``孔``)."""
        label, code = self.labels[i], self.codes[i]
        return code if label == code else f"{label} ({code})"


def _zipai_deck() -> Deck:
    codes = tuple([f"x{n}" for n in range(1, 11)] + [f"d{n}" for n in range(1, 11)])
    labels = tuple(["小" + c for c in _SMALL] + list(_BIG))
    red = {2, 7, 10}
    colours = tuple("red" if (i % 10) + 1 in red else "black" for i in range(20))
    aliases = {c: f"x{i + 1}" for i, c in enumerate(_SMALL)}
    aliases.update({c: f"d{i + 1}" for i, c in enumerate(_BIG)})
    aliases.update({"貳": "d2", "參": "d3", "陸": "d6"})
    return Deck("zipai", codes, (4,) * 20, labels, colours, aliases)


HUAPAI_CHARS = "上大人孔乙己可知禮化三千七十士八九子二四五六"
HUAPAI_RED = set("上大人可知禮三五七")
HUAPAI_FLOWERED = "乙三五七九"


def _huapai_deck(with_lai: bool) -> Deck:
    codes: list[str] = []
    copies: list[int] = []
    for ch in HUAPAI_CHARS:
        if ch in HUAPAI_FLOWERED:
            codes += [ch, "花" + ch]
            copies += [3, 2]
        else:
            codes.append(ch)
            copies.append(5)
    if with_lai:
        codes.append("賴")
        copies.append(2)
    colours = tuple("red" if c[-1] in HUAPAI_RED else "black" for c in codes)
    aliases = {"礼": "禮", "土": "士", "一": "乙", "花一": "花乙", "花礼": "花禮"}
    fam = "huapai_lai" if with_lai else "huapai"
    return Deck(fam, tuple(codes), tuple(copies), tuple(codes), colours, aliases)


SHANGDAREN_PHRASES = ("孔乙己", "上大人", "化三千", "爾小生", "佳作仁", "七十士", "八九子", "福祿壽")


def _shangdaren_deck() -> Deck:
    codes = tuple(ch for p in SHANGDAREN_PHRASES for ch in p)
    colours = tuple(("red", "green", "black")[i % 3] for i in range(len(codes)))
    aliases = {"尔": "爾", "禄": "祿", "寿": "壽"}
    return Deck("shangdaren", codes, (4,) * len(codes), codes, colours, aliases)


ZIPAI = _zipai_deck()
HUAPAI = _huapai_deck(False)
HUAPAI_LAI = _huapai_deck(True)
SHANGDAREN = _shangdaren_deck()
