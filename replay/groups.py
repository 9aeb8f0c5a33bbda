"""The groups of a winning split, one type for every variant, and spec §8's ``groups`` of them.

Every scorer lays a finished hand out as :class:`Group` values (melds first, then the concealed
groups); the states' facts, the refusals' ``detail`` and ``paipu score`` write them as spec §8
``groups`` through :func:`groups_json`, so the JSON is written once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from replay.cards import Deck


@dataclass(frozen=True)
class Group:
    """One group of a split: ``kind`` (the variant's group or meld kind), ``cards`` (kind indices of
    the variant's deck), ``points`` (what the group scores: 胡 in 桂林 / 字牌, 花牌 and 上大人, 息 in
    沅江, 個子 in 通城), ``origin`` (``table`` for a meld laid in play, ``hand`` for a concealed group).

    Scorers make one per search node: a plain frozen dataclass, with nothing checked on creation.
    """

    kind: str
    cards: tuple[int, ...]
    points: int
    origin: str = "hand"


@dataclass(frozen=True)
class Split:
    """A winning split: every group (melds first) and the total ``points``."""

    groups: tuple[Group, ...]
    points: int


def groups_json(groups: Iterable[Group], deck: Deck) -> list[dict[str, Any]]:
    """Spec §8 ``groups`` of a split: ``[{"kind", "cards" (codes of ``deck``), "points"}]``, in the
    split's order (melds first)."""
    codes_of = deck.codes_of
    return [{"kind": g.kind, "cards": codes_of(g.cards), "points": g.points} for g in groups]
