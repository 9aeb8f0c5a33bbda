"""``paipu`` console command (typer). Each sub-command lives with the package it drives;
this module only wires them together, so the packages keep their one-way dependencies."""

from __future__ import annotations

import typer

from replay.cli import score_cmd, simulate_cmd, validate_cmd

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="paipu: replay validation and analytics for 字牌 and 花牌 game logs (paipu/1).")
app.command("validate")(validate_cmd)
app.command("score")(score_cmd)
app.command("simulate")(simulate_cmd)

try:  # the later stages register themselves when present
    from ingest.cli import compact_cmd, ingest_cmd
    app.command("ingest")(ingest_cmd)
    app.command("compact")(compact_cmd)
except ImportError:  # pragma: no cover
    pass
try:
    from analytics.cli import report_cmd
    app.command("report")(report_cmd)
except ImportError:  # pragma: no cover
    pass
try:
    from analytics.tune import tune_cmd
    app.command("tune")(tune_cmd)
except ImportError:  # pragma: no cover
    pass
try:
    from dashboards.cli import audit_cmd, dashboard_cmd
    app.command("dashboard")(dashboard_cmd)
    app.command("audit")(audit_cmd)
except ImportError:  # pragma: no cover
    pass


def main() -> None:
    """Entry point of the ``paipu`` console script."""
    app()
