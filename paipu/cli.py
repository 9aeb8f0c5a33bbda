"""``paipu`` console command (typer). Each sub-command lives with the package it drives;
this module only wires them together, so the packages keep their one-way dependencies."""

from __future__ import annotations

import sys
from typing import Any

import typer
from typer.core import TyperArgument, TyperCommand, TyperGroup


def _choose_kernel() -> None:
    """Import ``replay``, which decides the kernel (``PAIPU_KERNEL``, replay/kernel.py): a bad
    choice, or ``compiled`` with a module not built, is one line on stderr and exit 2, not a traceback."""
    try:
        import replay  # noqa: F401
    except Exception as e:
        k = sys.modules.get("replay.kernel")
        if k is not None and isinstance(e, (k.KernelChoiceError, k.KernelNotBuiltError)):
            print(f"paipu: {e}", file=sys.stderr)
            raise SystemExit(2) from None
        raise


_choose_kernel()


def _say_stale_kernel() -> None:
    """One line on stderr when some kernel module was built but runs as Python because it changed
    since (results stay right, only slower); a machine without a compiler stays quiet."""
    from replay import kernel

    stale = sorted(kernel.STATUS.stale)
    if stale and kernel.STATUS.mode == "auto":
        print(f"paipu: {len(stale)} of {len(kernel.MODULES)} kernel modules run as pure Python, their build being "
              f"stale ({stale[0]}{', …' if len(stale) > 1 else ''}): `make kernel` rebuilds them", file=sys.stderr)

from ingest.validate import validate_cmd  # noqa: E402
from replay.cli import score_cmd, simulate_cmd  # noqa: E402

_METAVARS = {"int": "N", "int range": "N", "float": "X", "float range": "X", "path": "PATH", "str": "TEXT"}


class Command(TyperCommand):
    """A typer command whose help reads the classic way (``--games N``, ``FILES...``): typer's
    type column (``<bool>``, ``<list[Path]>``, ``<int range>``) is left out, a flag shows no
    value, an explicit ``metavar=`` is kept, and the docstring's wrapped lines are joined into
    paragraphs (rich wraps them to the terminal; a hard line break in the middle of a sentence
    would show as a broken line)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.help:
            self.help = "\n\n".join(" ".join(p.split()) for p in self.help.split("\n\n"))
        for p in self.params:
            _plain_metavar(p)

    def get_help_option(self, ctx: Any) -> Any:
        opt = super().get_help_option(ctx)
        if opt is not None:
            _plain_metavar(opt)
        return opt

    def invoke(self, ctx: Any) -> Any:
        """Run the command. A warehouse data file DuckDB cannot read (damaged in place: its size,
        which every attach checks, is right, its content is not) ends it in one line naming
        ``paipu check``, exit status 1, not a traceback."""
        try:
            return super().invoke(ctx)
        except Exception as e:
            warehouse = ctx.params.get("warehouse")
            if warehouse is None or "duckdb" not in sys.modules:  # not a warehouse's error: raised as it is
                raise
            from ingest.warehouse import unreadable_error

            if not unreadable_error(e):
                raise
            from rich.console import Console
            from rich.text import Text

            from replay.record import terminal_text
            from replay.words import first_line

            wh = terminal_text(str(warehouse))
            Console(stderr=True, highlight=False).print(Text(
                f"paipu {ctx.info_name}: the warehouse {wh} cannot be read: {terminal_text(first_line(e).rstrip('.'))}; "
                f"`paipu check --warehouse {wh}` names the damaged files and `--repair` drops them", style="red"),
                soft_wrap=True)
            raise typer.Exit(1) from None


class Group(TyperGroup):
    """The ``paipu`` group: its ``--help`` and ``--version`` without typer's ``<bool>`` (see :class:`Command`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for p in self.params:
            _plain_metavar(p)

    def get_help_option(self, ctx: Any) -> Any:
        opt = super().get_help_option(ctx)
        if opt is not None:
            _plain_metavar(opt)
        return opt


def _plain_metavar(p: Any) -> None:
    if p.metavar is not None:
        return
    if isinstance(p, TyperArgument):
        name = (p.name or "").upper()
        p.metavar = name
        p.display_type_rich = lambda ctx: None
        usage = name + ("..." if p.nargs != 1 else "")
        p._usage_display_name = lambda: usage if p.required else f"[{usage}]"
    elif getattr(p, "is_flag", False):
        p.metavar = ""
    else:
        shown = p.display_type(None).strip("<>")
        p.metavar = _METAVARS.get(shown, shown.upper())


app = typer.Typer(cls=Group, add_completion=False, no_args_is_help=True,
                  help="paipu: replay validation and analytics for 字牌 and 花牌 game logs (paipu/1).")


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import PackageNotFoundError, version

        from replay import ENGINE_VERSION, kernel

        try:
            v = version("paipu")
        except PackageNotFoundError:  # run from a source tree that was never installed
            v = "(not installed)"
        typer.echo(f"paipu {v} (engine {ENGINE_VERSION}); {kernel.describe()}")
        raise typer.Exit()


@app.callback()
def _main(version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                        help="Print the version and which kernel runs (compiled or pure Python, and why), "
                                             "then exit.")) -> None:
    """paipu: replay validation and analytics for 字牌 and 花牌 game logs (paipu/1)."""


def _command(name: str) -> Any:
    return app.command(name, cls=Command)


_command("validate")(validate_cmd)
_command("score")(score_cmd)
_command("simulate")(simulate_cmd)

try:  # the later stages register themselves when present
    from ingest.cli import COMMANDS as WAREHOUSE_COMMANDS
    for _name, _fn in WAREHOUSE_COMMANDS.items():  # ingest, compact, snapshots, migrate, check
        _command(_name)(_fn)
except ImportError:  # pragma: no cover
    pass
try:
    from analytics.cli import report_cmd
    _command("report")(report_cmd)
except ImportError:  # pragma: no cover
    pass
try:
    from analytics.tune import tune_cmd
    _command("tune")(tune_cmd)
    from analytics.rescore import rescore_cmd
    _command("rescore")(rescore_cmd)
    from analytics.fit import fit_cmd
    _command("fit")(fit_cmd)
    from analytics.review import review_cmd
    _command("review")(review_cmd)
except ImportError:  # pragma: no cover
    pass
try:
    from dashboards.cli import audit_cmd, dashboard_cmd
    _command("dashboard")(dashboard_cmd)
    _command("audit")(audit_cmd)
except ImportError:  # pragma: no cover
    pass


def main() -> None:
    """Entry point of the ``paipu`` console script."""
    _say_stale_kernel()
    app()


if __name__ == "__main__":  # python -m paipu.cli runs the command too
    main()
