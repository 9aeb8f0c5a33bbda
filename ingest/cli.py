"""``paipu ingest`` (registered by ``paipu/cli.py``)."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from ingest.reader import MAX_LINE_BYTES
from ingest.run import IngestReport, ingest
from ingest.warehouse import WarehouseBusy


def print_report(report: IngestReport, console: Console) -> None:
    """Print per-file and total counts of an ingest run as a rich table."""
    t = Table(title=f"ingest → {report.warehouse}", show_lines=False)
    for name, just in [("file", "left"), ("lines", "right"), ("blank", "right"), ("read", "right"),
                       ("有效 valid", "right"), ("无效 invalid", "right"), ("拒收 rejected", "right"), ("note", "left")]:
        t.add_column(name, justify=just, overflow="fold")  # type: ignore[arg-type]
    many = len(report.files) > 20
    rows = report.files[:20] if many else report.files
    for f in rows:
        t.add_row(Path(f.path).name, str(f.lines), str(f.blank), str(f.read), str(f.valid), str(f.invalid),
                  str(f.rejected), f.error or "")
    if many:
        t.add_row(f"… {len(report.files) - 20} more files", *[""] * 7)
    tot = report.total()
    t.add_row("[bold]total", str(tot.lines), str(tot.blank), f"[bold]{tot.read}", str(tot.valid), str(tot.invalid),
              str(tot.rejected), "")
    console.print(t)
    secs = max(report.seconds, 1e-9)
    console.print(f"{len(report.files)} files, {tot.read} lines replayed in {report.seconds:.2f} s "
                  f"({tot.read / secs:,.0f} lines/s, {report.workers} workers, engine {report.engine_version}); "
                  f"rows written: " + ", ".join(f"{k} {v}" for k, v in sorted(report.rows.items())), highlight=False)
    if report.skipped:
        console.print(f"skipped {len(report.skipped)} files without a .jsonl/.jsonl.gz/.jsonl.zst suffix", highlight=False)


def ingest_cmd(
    paths: list[Path] = typer.Argument(..., help="Files (.jsonl, .jsonl.gz, .jsonl.zst) or folders (read recursively)."),
    warehouse: Path = typer.Option(..., "--warehouse", help="Warehouse folder (created if missing)."),
    workers: int = typer.Option(0, help="0 = all cores"),
    max_line_bytes: int = typer.Option(MAX_LINE_BYTES, "--max-line-bytes", help="Longer lines are rejected unparsed."),
) -> None:
    """Replay game logs and write the Parquet warehouse (games, seats, actions, melds, xing, rejects).

    Exit status 0 when the run completes, however many games were invalid or rejected (they are
    counted); 2 for a usage error (a path that does not exist, a bad option); 1 when the
    warehouse is busy (another ingest) or cannot be written.
    """
    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        raise typer.BadParameter(f"no such file or folder: {', '.join(missing)}", param_hint="PATHS")
    if workers < 0:
        raise typer.BadParameter("must be ≥ 0", param_hint="--workers")
    if max_line_bytes < 1:
        raise typer.BadParameter("must be ≥ 1", param_hint="--max-line-bytes")
    if warehouse.exists() and not warehouse.is_dir():
        raise typer.BadParameter(f"{warehouse} is not a folder", param_hint="--warehouse")
    console = Console()
    try:
        report = ingest(paths, warehouse, workers=workers or None, progress=True, max_line_bytes=max_line_bytes,
                        console=Console(stderr=True))
    except WarehouseBusy as e:
        console.print(f"[red]{e}[/red]")
        raise typer.Exit(1) from None
    except OSError as e:  # e.g. the warehouse's parent is not writable (the staging folder goes there)
        console.print(f"[red]ingest failed: {e}[/red]", highlight=False)
        raise typer.Exit(1) from None
    print_report(report, console)
