"""Variant registry: the eight ids of paipu/1 §7 and what each needs from the engine.

A variant is a folder ``replay/variants/<id>/`` with the same few files
(``options.py``, ``scoring.py``, ``state.py``, ``cases.py``, ``bots.py``) — see
``docs/architecture.md``. Its ``SPEC`` names its state and score-case entry points as
:class:`Entry` (``"module:name"``), imported on first use, so loading the registry loads no engine.
Variants not implemented yet are listed so the validator can say so (``unknown_variant`` with
that message).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

from replay.cards import HUAPAI, HUAPAI_LAI, SHANGDAREN, ZIPAI, Deck
from replay.options import RuleOption

if TYPE_CHECKING:
    from replay.engine import GameState
    from replay.judge import Position


_BASE = frozenset({"draw", "discard", "hu", "pass"})


class Entry:
    """A callable declared by name, ``"package.module:name"``, imported on its first call; keyword
    arguments given here are passed on every call, as :func:`functools.partial` binds them.

    ``Entry("replay.variants.huapai.state:HuapaiState", jing="三五七")(record, ruleset)`` is
    ``HuapaiState(record, ruleset, jing="三五七")``.
    """

    __slots__ = ("target", "bound", "_resolved")

    def __init__(self, target: str, **bound: Any) -> None:
        module, sep, name = target.partition(":")
        if not (module and sep and name):
            raise ValueError(f"an entry is 'package.module:name', not {target!r}")
        self.target, self.bound = target, bound
        self._resolved: Callable[..., Any] | None = None

    def resolve(self) -> Callable[..., Any]:
        """The named callable, imported once. :raises ImportError, AttributeError: no such name."""
        if self._resolved is None:
            module, _, name = self.target.partition(":")
            self._resolved = getattr(importlib.import_module(module), name)
        return self._resolved

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.resolve()(*args, **self.bound, **kwargs)

    def __repr__(self) -> str:
        bound = "".join(f", {k}={v!r}" for k, v in self.bound.items())
        return f"Entry({self.target!r}{bound})"


@dataclass(frozen=True)
class VariantSpec:
    """What the core knows of a variant.

    :param id: spec §7 id.
    :param seed: seed file the rules come from.
    :param deck: the family deck.
    :param players: allowed numbers of seats.
    :param acts: act names of spec §4 this variant accepts.
    :param options: published rule options.
    :param state: ``(record, ruleset) -> GameState``, the variant's state (None: not implemented);
        declared as an :class:`Entry` of its ``state.py``.
    :param hand_sizes: (dealer's, others') dealt cards for a number of seats.
    :param position: ``(case dict, ruleset) -> replay.judge.Position``: a spec §8 score case as a
        game position, judged by the engine itself (:mod:`replay.judge`), so a case and a logged
        胡 have one judge; declared as an :class:`Entry` of its ``cases.py``.
        :raises ValueError: a malformed case (``replay.judge.Exhausted`` when the winning card
        would be one copy too many).
    """

    id: str
    seed: str
    deck: Deck
    players: tuple[int, ...]
    acts: frozenset[str]
    options: tuple[RuleOption, ...] = ()
    state: Callable[..., "GameState"] | None = None
    hand_sizes: Callable[[int], tuple[int, int]] | None = field(default=None)
    position: Callable[..., "Position"] | None = None

    @property
    def implemented(self) -> bool:
        return self.state is not None


# The eight ids of spec §7 with their seed, deck, seat counts and acts (spec §4). A variant is
# implemented when ``replay/variants/<id>/__init__.py`` exists and defines ``SPEC``.
_CONTRACT = (
    ("guilin", "001_b125067d32c1f7d7.txt", ZIPAI, (3,), {"chi", "peng", "sao", "guo_sao", "sao_chuan", "kai_duo"}),
    ("zipai", "004_d2ed00504ff040a5.txt", ZIPAI, (3,), {"chi", "peng", "sao", "guo_sao", "sao_chuan", "kai_duo"}),
    ("yuanjiang_guihuzi", "003_50360bd1f53fc819.txt", ZIPAI, (3, 2), {"chi", "peng", "wai", "liu", "piao"}),
    ("tongcheng_gezi", "000_b93a380aaaa9b6e3.txt", HUAPAI, (3, 4), {"jian", "peng", "zhao", "guan_sheng", "hua"}),
    ("sanjing_huapai", "002_f9a80b28e0fcbf1a.txt", HUAPAI, (3,), {"dui", "zhao", "zha", "kai_fan"}),
    ("wujing_huapai", "002_f9a80b28e0fcbf1a.txt", HUAPAI, (3,), {"dui", "zhao", "zha", "kai_fan"}),
    ("shuangbiegan_huapai", "002_f9a80b28e0fcbf1a.txt", HUAPAI_LAI, (3,), {"dui", "zhao", "zha", "kai_fan"}),
    ("shangdaren", "002_f9a80b28e0fcbf1a.txt", SHANGDAREN, (3, 4), {"chi", "dui", "kai_mao", "mao"}),
)


LOAD_ERRORS: dict[str, str] = {}  # variant id -> why its folder failed to import


def _registry() -> dict[str, VariantSpec]:
    out: dict[str, VariantSpec] = {}
    for vid, seed, deck, players, acts in _CONTRACT:
        try:
            mod = importlib.import_module(f"replay.variants.{vid}")
        except ModuleNotFoundError as e:
            if e.name != f"replay.variants.{vid}":
                LOAD_ERRORS[vid] = repr(e)
            mod = None
        except Exception as e:  # a broken variant must not take the others down; its tests will say why
            LOAD_ERRORS[vid] = repr(e)
            mod = None
        spec = getattr(mod, "SPEC", None)
        out[vid] = spec if spec is not None else VariantSpec(vid, seed, deck, players, _BASE | acts)
    return out


VARIANTS: dict[str, VariantSpec] = _registry()
ALL_ACTS = frozenset().union(*(v.acts for v in VARIANTS.values()))


def get(variant_id: str) -> VariantSpec:
    """The spec of ``variant_id``. :raises KeyError: not a paipu/1 id."""
    return VARIANTS[variant_id]


def default_rules(text: str | None, variant: str | None = None) -> dict[str, dict[str, Any]] | None:
    """``--rules OPT=VAL[,…]``: the overrides, by variant, for records that carry no ``rules``
    object (a server's logs need not spell out its ruleset). Each option applies to every variant
    that has it (``variant`` alone when given), its value read against that variant's allowed values.

    :returns: None for no text; else ``{variant: overrides}`` for every variant some option applies to.
    :raises ValueError: an option no variant (or not ``variant``) has, or a value one of them does not allow.
    """
    from replay.options import parse_overrides

    if text is None:
        return None
    parts = [p.strip() for p in text.split(",") if p.strip()]
    if not parts:
        return None
    specs = [get(variant)] if variant is not None else [v for v in VARIANTS.values() if v.implemented]
    out: dict[str, dict[str, Any]] = {}
    for part in parts:
        name = part.partition("=")[0]
        having = [s for s in specs if any(o.name == name for o in s.options)]
        if not having:
            where = f"variant {variant}" if variant is not None else "any variant"
            raise ValueError(f"unknown option {name!r} for {where}")
        for s in having:
            out.setdefault(s.id, {}).update(parse_overrides(part, s.options))
    return out
