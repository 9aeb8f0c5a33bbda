"""How every stage's commands word what they print: a path the command cannot use as one line on
stderr, ``paipu <command>: <what> <path>: <why>`` (exit 2, a usage error), and a ruleset id beside
the options that differ from its variant's defaults (``guilin-a1561d9054 (tuo_step=3)``), each value
spelled as ``--rules`` takes it (:func:`replay.options.spelled`: ``true``, not ``True``).

It sits in the lowest stage because ``paipu score`` and ``paipu simulate`` use it too."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Mapping, NoReturn

from replay.options import spelled
from replay.record import terminal_text

MISSING = "does not exist"
"""Why a path named on the command line cannot be used when nothing is there."""


def refuse(command: str, what: str, path: Path | str, why: str, code: int = 2) -> NoReturn:
    """Print ``paipu <command>: <what> <path>: <why>`` on stderr (the path as given, shown as text a
    terminal only displays) and exit with ``code`` (2: a usage error)."""
    import typer

    print(terminal_text(f"paipu {command}: {what} {path}: {why}"), file=sys.stderr)
    raise typer.Exit(code)


def first_line(e: BaseException) -> str:
    """The first line of ``e``'s message, or its type's name when it has none: an error said in one line."""
    return (str(e).splitlines() or [type(e).__name__])[0]


def need(command: str, path: Path, what: str = "file or folder") -> None:
    """Refuse ``path`` (:func:`refuse`) when nothing is there."""
    if not path.exists():
        refuse(command, what, path, MISSING)


def need_variant(command: str, variant: str) -> None:
    """Refuse ``--variant`` (:func:`refuse`) when no implemented variant has that id, naming those
    that are."""
    from replay import variants

    spec = variants.VARIANTS.get(variant)
    if spec is None or not spec.implemented:
        known = ", ".join(v.id for v in variants.VARIANTS.values() if v.implemented)
        refuse(command, "variant", variant, f"not implemented (implemented: {known})")


def overrides_text(values: Mapping[str, Any]) -> str:
    """Option values as ``--rules`` text: ``tuo_step=3,peng_kai_duo_on_other_flip=true``."""
    return ",".join(f"{k}={spelled(v)}" for k, v in values.items())


def options_text(values: Mapping[str, Any], variant: str) -> str:
    """The options of ``values`` that differ from ``variant``'s defaults as ``--rules`` text
    (``tuo_step=3,xing_mode=shangxia``), ``defaults`` when none does; an option the variant does
    not publish is named as it is."""
    from replay import variants

    spec = variants.VARIANTS.get(variant)
    defaults = {o.name: o.default for o in spec.options} if spec is not None else {}
    diff = [(k, v) for k, v in sorted(values.items())
            if k not in defaults or not (v == defaults[k] and type(v) is type(defaults[k]))]
    return overrides_text(dict(diff)) or "defaults"


def ruleset_label(ruleset_id: str | None, values: Mapping[str, Any] | None, variant: str) -> str:
    """``<ruleset_id> (<options that differ from the defaults>)``; the id alone when its values are
    not known (a game whose rules were never read)."""
    if ruleset_id is None:
        return "—"
    if values is None:
        return ruleset_id
    return f"{ruleset_id} ({options_text(values, variant)})"
