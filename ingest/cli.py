"""``paipu ingest`` (registered by ``paipu/cli.py``)."""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path

import typer
from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from ingest.reader import MAX_LINE_BYTES
from ingest.run import ENGINES, IngestReport, ingest
from ingest.warehouse import WarehouseBusy, WarehouseMismatch
from replay.cli import rules_option, rules_text
from replay.record import source_path, terminal_text
from replay.words import MISSING, need, refuse


def need_warehouse(command: str, warehouse: Path, *, lake: bool = False, games: bool = False) -> None:
    """Refuse ``--warehouse`` in one line (:func:`replay.words.refuse`, exit 2) when nothing is
    there or it is not a folder; with ``lake`` (a command that works on DuckLake's catalog) also a
    folder without one: a warehouse of the plain-Parquet layout before DuckLake is told to
    ``paipu migrate``, any other folder that it holds no warehouse; with ``games`` (a command that
    reads the games, of either layout) a folder that holds neither."""
    from ingest.warehouse import catalog_of, legacy_layout

    if not warehouse.exists():
        refuse(command, "warehouse", warehouse, MISSING)
    if not warehouse.is_dir():
        refuse(command, "warehouse", warehouse, "not a folder")
    if (lake or games) and catalog_of(warehouse) is None:
        if legacy_layout(warehouse):
            if not lake:
                return
            refuse(command, "warehouse", warehouse, "the plain-Parquet layout before DuckLake: "
                   f"`paipu migrate {_shell(str(warehouse))}` converts it in place")
        refuse(command, "warehouse", warehouse, "no DuckLake catalog in it (`paipu ingest` writes one)" if lake
               else "no warehouse in it (`paipu ingest` writes one)")


def print_report(report: IngestReport, console: Console) -> None:
    """Print per-file and total counts of an ingest run as a rich table that stays readable at 80
    columns and in a pipe: one-word headers (the Chinese terms in the line under it), file names
    whole on one line (their start cut to … only when the terminal is too narrow), a file's
    note (why its reading stopped) on a line of its own under the table."""
    t = Table(title=Text(f"ingest → {terminal_text(report.warehouse)}"), box=box.SIMPLE_HEAD, padding=(0, 1), pad_edge=False,
              show_edge=False,
              title_justify="left", caption="有效 valid · 无效 invalid · 拒收 rejected · 重复 duplicate",
              caption_justify="left")
    tot = report.total()
    counts = ("lines", "blank", "read", "valid", "invalid", "rejected", "duplicate")
    # a count column is as wide as its header or its total; the name gets what is left
    widths = [max(len(c), len(str(getattr(tot, c)))) for c in counts]
    names = [terminal_text(Path(f.path).name) for f in report.files]
    # SIMPLE_HEAD, padding (0, 1), no edge: 3 characters between two columns (measured)
    width = max(12, min(max(map(len, names), default=12), console.width - sum(widths) - 3 * len(widths) - 1))
    t.add_column("file", justify="left", no_wrap=True, min_width=width, max_width=width)
    for name, w in zip(counts, widths):
        t.add_column(name, justify="right", no_wrap=True, min_width=w)
    many = len(report.files) > 20
    rows = report.files[:20] if many else report.files
    for f in rows:
        t.add_row(Text(_cut(terminal_text(Path(f.path).name), width)),  # a name is text, never markup
                  str(f.lines), str(f.blank), str(f.read), str(f.valid),
                  str(f.invalid), str(f.rejected), str(f.duplicate))
    if many:
        t.add_row(f"… {len(report.files) - 20} more files", *[""] * 7)
    t.add_row("[bold]total", str(tot.lines), str(tot.blank), f"[bold]{tot.read}", str(tot.valid), str(tot.invalid),
              str(tot.rejected), str(tot.duplicate))
    console.print(t)
    for f in report.files:
        if f.error:
            console.print(f"note: {terminal_text(Path(f.path).name)}: {terminal_text(f.error)}", highlight=False, markup=False)
    for note in report.recovered:
        console.print(f"recovered: {note}", highlight=False)
    secs = max(report.seconds, 1e-9)
    console.print(f"{len(report.files)} files, {tot.read} lines replayed in {report.seconds:.2f} s "
                  f"({tot.read / secs:,.0f} lines/s, {report.workers} worker{'' if report.workers == 1 else 's'} on {report.engine}, "
                  f"engine {report.engine_version}{', player ids pseudonymized' if report.pseudonymized else ''}); "
                  f"rows written: " + ", ".join(f"{k} {v}" for k, v in sorted(report.rows.items())), highlight=False)
    if report.default_rules:
        console.print(f"{tot.defaulted} game records read carried no `rules` object and were judged under --rules "
                      f"({rules_text(report.default_rules)})", highlight=False, markup=False)
    if report.skipped:
        console.print(f"skipped {len(report.skipped)} files without a .jsonl/.jsonl.gz/.jsonl.zst suffix", highlight=False)


def _cut(name: str, width: int) -> str:
    """``name`` in at most ``width`` characters: …, then its end (files of one folder often share a
    start, ``tongcheng_gezi-…``, and differ at the end, ``…-3p.jsonl``)."""
    return name if len(name) <= width else "…" + name[len(name) - width + 1:]


def ingest_cmd(
    paths: list[Path] = typer.Argument(..., help="Files (.jsonl, .jsonl.gz, .jsonl.zst) or folders (read recursively)."),
    warehouse: Path = typer.Option(..., "--warehouse", help="Warehouse folder (created if missing)."),
    workers: int = typer.Option(0, help="0 = all cores"),
    max_line_bytes: int = typer.Option(MAX_LINE_BYTES, "--max-line-bytes", help="Longer lines are rejected unparsed."),
    pseudonymize: Path | None = typer.Option(None, "--pseudonymize", metavar="SALT_FILE",
                                             help="Replace player ids by a keyed hash (HMAC-SHA256 with the "
                                                  "file's bytes, ≥ 16) in every table; stable for the same salt."),
    engine: str = typer.Option("process", "--engine", help="process (local pool) or dask."),
    scheduler: str | None = typer.Option(None, "--scheduler", metavar="ADDRESS",
                                         help="Dask scheduler address (tcp://host:8786); default: a local "
                                              "cluster of --workers processes."),
    as_json: bool = typer.Option(False, "--json", help="Print the run's report (per file and total counts, rows "
                                 "written) as one JSON object instead of the table."),
    catalog: str | None = typer.Option(None, "--catalog", metavar="postgres:KEYWORDS",
                                       help="DuckLake catalog in PostgreSQL (libpq keywords: 'dbname=paipu "
                                            "host=db port=5432'), for ingests on several machines into one "
                                            "warehouse; default: the embedded SQLite catalog in the folder."),
    rules: str | None = typer.Option(None, "--rules", metavar="OPT=VAL[,OPT=VAL…]",
                                     help="Rule options for records that carry no `rules` object (a record's own "
                                          "`rules` wins); each applies to every variant that has it."),
) -> None:
    """Replay game logs and write the Parquet warehouse (games, seats, actions, melds, xing, rejects).

    The run commits in one DuckLake transaction: a reader sees all of it or none of it; other
    ingests may write the same warehouse at the same time.

    Exit status 0 when the run completes, however many games were invalid, rejected or duplicate
    (they are counted); 2 for a usage error (a path that does not exist, a bad option, a salt
    file that cannot be read or is too short); 1 when the catalog stays busy, the warehouse
    holds another pseudonymization, or cannot be written.
    """
    for p in paths:
        need("ingest", p)
    if warehouse.exists() and not warehouse.is_dir():
        refuse("ingest", "warehouse", warehouse, "not a folder")
    if workers < 0:
        raise typer.BadParameter("must be ≥ 0", param_hint="--workers")
    if max_line_bytes < 1:
        raise typer.BadParameter("must be ≥ 1", param_hint="--max-line-bytes")
    if engine not in ENGINES:
        raise typer.BadParameter(f"must be one of {', '.join(ENGINES)}", param_hint="--engine")
    if scheduler and engine != "dask":
        raise typer.BadParameter("needs --engine dask", param_hint="--scheduler")
    if catalog is not None and not catalog.startswith("postgres:"):
        raise typer.BadParameter("must start with postgres:", param_hint="--catalog")
    salt = None
    if pseudonymize is not None:
        try:
            salt = pseudonymize.read_bytes()
        except OSError as e:
            raise typer.BadParameter(f"cannot read the salt file: {e}", param_hint="--pseudonymize") from None
        if len(salt.strip()) < 16:
            raise typer.BadParameter("the salt file must hold at least 16 bytes", param_hint="--pseudonymize")
    defaults = rules_option(rules)
    console = Console()
    try:
        report = ingest(paths, warehouse, workers=workers or None, progress=True, max_line_bytes=max_line_bytes,
                        console=Console(stderr=True), pseudonym_salt=salt, engine=engine, scheduler=scheduler,
                        catalog=catalog, defaults=defaults)
    except (WarehouseBusy, WarehouseMismatch) as e:
        console.print(f"[red]{escape(terminal_text(str(e)))}[/red]", highlight=False)
        raise typer.Exit(1) from None
    except RuntimeError as e:  # e.g. --engine dask without dask installed
        console.print(f"[red]ingest failed: {escape(terminal_text(str(e)))}[/red]", highlight=False)
        raise typer.Exit(1) from None
    except OSError as e:  # e.g. the warehouse's parent is not writable (the staging folder goes there)
        console.print(f"[red]ingest failed: {escape(terminal_text(str(e)))}[/red]", highlight=False)
        raise typer.Exit(1) from None
    if as_json:
        typer.echo(json.dumps(report.to_json(), ensure_ascii=False, default=str))
    else:
        print_report(report, console)


def compact_cmd(
    warehouse: Path = typer.Option(..., "--warehouse", help="Warehouse folder written by `paipu ingest`."),
    keep_days: float = typer.Option(7.0, "--keep-days", help="Keep the snapshots of this many days for --as-of "
                                    "(older ones are expired and their files deleted)."),
) -> None:
    """Merge the warehouse's small data files and drop what old snapshots alone still need, with
    DuckLake's own functions (ducklake_merge_adjacent_files, ducklake_expire_snapshots,
    ducklake_cleanup_old_files, ducklake_delete_orphaned_files). The rows do not change.

    Exit status 0 when done; 2 for a usage error; 1 when the catalog stays busy or it fails.
    """
    from ingest.warehouse import compact

    need_warehouse("compact", warehouse, lake=True)
    if keep_days < 0:
        raise typer.BadParameter("must be ≥ 0", param_hint="--keep-days")
    console = Console()
    try:
        got = compact(warehouse, keep_days=keep_days)
    except (WarehouseBusy, OSError, RuntimeError) as e:
        console.print(f"[red]compact failed: {escape(terminal_text(str(e)))}[/red]", highlight=False)
        raise typer.Exit(1) from None
    console.print(f"compact {terminal_text(str(warehouse))}: {got['files_before']} data files → {got['files_after']}, "
                  f"{got['bytes_before'] / 1e6:.1f} MB → {got['bytes_after'] / 1e6:.1f} MB, "
                  f"{got['expired']} snapshots expired", highlight=False, markup=False)


def snapshots_cmd(
    warehouse: Path = typer.Option(..., "--warehouse", help="Warehouse folder written by `paipu ingest`."),
    as_json: bool = typer.Option(False, "--json", help="One JSON object per snapshot instead of the table."),
) -> None:
    """List the warehouse's DuckLake snapshots, oldest first, with the ingest run each one committed
    (its status and counts). `paipu audit GAME --as-of SNAPSHOT|TIME` reads the warehouse as it
    was at one of them.

    Exit status 0; 2 for a usage error (not a DuckLake warehouse); 1 when its catalog cannot be opened.
    """
    from ingest.warehouse import CatalogError, snapshots

    need_warehouse("snapshots", warehouse, lake=True)
    try:
        snaps = snapshots(warehouse)
    except CatalogError as e:
        Console(stderr=True, highlight=False).print(Text(f"paipu snapshots: {terminal_text(str(e))}", style="red"),
                                                    soft_wrap=True)
        raise typer.Exit(1) from None
    if as_json:
        for s in snaps:
            typer.echo(json.dumps(s, ensure_ascii=False, default=str))
        return
    # within 80 columns: 2 characters between columns, the time under the date, short count headers
    t = Table(title=Text(f"snapshots of {terminal_text(str(warehouse))}"), box=box.SIMPLE_HEAD, title_justify="left",
              padding=(0, 1), collapse_padding=True, pad_edge=False, show_edge=False,
              caption="rej rejected · dup duplicate", caption_justify="left")
    t.add_column("id", justify="right", no_wrap=True)
    t.add_column("UTC", no_wrap=True)
    t.add_column("commit", overflow="fold", min_width=28)  # a run id whole
    for col in ("read", "valid", "invalid", "rej", "dup"):
        t.add_column(col, justify="right", no_wrap=True)
    for s in snaps:
        when = s["snapshot_time"]
        what = (f"{s['run_status']}\n{s['run_id']}" if s["run_id"] and s["run_status"] != "migrate"
                else s["commit_message"] or ", ".join(f"{k}" for k in (s["changes"] or {})))
        t.add_row(str(s["snapshot_id"]), f"{when:%m-%d\n%H:%M:%S}" if when else "", escape(what),
                  *[str(s.get(k, "")) for k in ("read", "valid", "invalid", "rejected", "duplicate")])
    Console().print(t)


def _shell(path: str) -> str:
    """``path`` quoted for a POSIX shell; a name that is not UTF-8 as ``$'…'`` with its bytes."""
    raw = os.fsencode(path)
    try:
        return shlex.quote(raw.decode("utf-8"))
    except UnicodeDecodeError:
        return "$'" + "".join(chr(b) if 32 <= b < 127 and chr(b) not in "'\\" else f"\\x{b:02x}" for b in raw) + "'"


def check_cmd(
    warehouse: Path = typer.Option(..., "--warehouse", help="Warehouse folder written by `paipu ingest`."),
    repair: bool = typer.Option(False, "--repair", help="Drop the rows of the files that are lost, in one transaction, "
                                "and name the input files to ingest again."),
    as_json: bool = typer.Option(False, "--json", help="One JSON object instead of the lines."),
) -> None:
    """List the files the warehouse's catalog lists that are missing or damaged (not the size it
    recorded, or a Parquet file that does not read whole): while one is, every command that reads its
    table fails. With --repair, drop the rows
    they held (for a file of a game table, every game of its variant and month, from every table)
    in one transaction, and list the source files to ingest again to write them back.

    Exit status 0 when every file is there (or the repair is done); 1 when a file is lost (without
    --repair) or the catalog cannot be opened or changes meanwhile; 2 for a usage error.
    """
    from ingest.warehouse import check_files
    from ingest.warehouse import repair as repair_files

    need_warehouse("check", warehouse, lake=True)
    console = Console(highlight=False)
    root = warehouse.absolute()
    try:
        if repair:
            res = repair_files(root)
            listed, lost = None, res.lost
        else:
            listed, lost = check_files(root)
    except (WarehouseBusy, OSError, RuntimeError) as e:
        Console(stderr=True, highlight=False).print(Text(f"paipu check: {terminal_text(str(e))}", style="red"),
                                                    soft_wrap=True)
        raise typer.Exit(1) from None
    if as_json:
        out: dict = {"warehouse": str(root), "lost": [{"table": f.table, "kind": f.kind, "path": f.path,
                                                       "bytes": f.size, "catalog_bytes": f.want,
                                                       **({"unreadable": f.unreadable} if f.unreadable else {})}
                                                      for f in lost]}
        if repair and lost:
            out.update(snapshot=res.snapshot, dropped={t: {"files": n, "rows": r} for t, (n, r) in res.dropped.items()},
                       partitions=[list(p) for p in res.partitions], sources=res.sources, traced=res.traced,
                       restored=res.restored)
        typer.echo(json.dumps(out, ensure_ascii=False))
        raise typer.Exit(1 if lost and not repair else 0)

    def say(text: str, style: str | None = None) -> None:
        console.print(Text(terminal_text(text), style=style or ""), soft_wrap=True)

    if not lost:
        say(f"check {root}: nothing to repair, every file its catalog lists is there" if repair else
            f"check {root}: the {listed} files its catalog lists are all there, whole")
        return
    for f in lost:
        say(f"{f.state()}: {f.path} ({f.table} {f.kind} file)", "red")
    if not repair:
        say(f"{len(lost)} file{'s' if len(lost) > 1 else ''} lost; `paipu check --warehouse {root} --repair` drops "
            "the rows they held and names the sources to ingest again")
        raise typer.Exit(1)
    parts = ", ".join(f"{t} {n} file{'s' if n > 1 else ''} ({r} row{'s' if r != 1 else ''})"
                      for t, (n, r) in sorted(res.dropped.items()))
    say(f"dropped in snapshot {res.snapshot}, one transaction: {parts}")
    for variant, month in res.partitions:
        say(f"  every game of variant={variant} month={month} (a game's rows are in one file per table of its partition)")
    for note in res.restored:
        say(f"written back: {note}")
    if not res.traced:
        say("the rows of a lost file could not be traced to the runs that wrote them (their snapshots have expired): "
            "these are the sources of every run on record", "yellow")
    if res.sources:
        say(f"ingest {'these' if len(res.sources) > 1 else 'this'} {len(res.sources)} source "
            f"file{'s' if len(res.sources) > 1 else ''} again to write their rows back:")
        for src in res.sources:
            say(f"  {src}" + ("" if Path(source_path(src)).exists() else "   (not found here)"))
        say(f"e.g. paipu ingest {' '.join(_shell(source_path(s)) for s in res.sources[:3])}"
            f"{' …' if len(res.sources) > 3 else ''} --warehouse {shlex.quote(str(root))}")
    else:
        say("nothing to ingest again: no rows of a source were dropped")


def migrate_cmd(
    warehouse: Path = typer.Argument(..., help="A warehouse folder of the plain-Parquet layout before DuckLake."),
) -> None:
    """Convert a warehouse written before DuckLake (hive Parquet folders, _meta/sources.json) into
    the DuckLake layout in place, in one transaction: the same rows, the old folders removed.

    Exit status 0 when done or when there was nothing to migrate; 2 for a usage error; 1 when it fails.
    """
    from ingest.warehouse import legacy_layout, migrate

    need_warehouse("migrate", warehouse)
    console = Console()
    if not legacy_layout(warehouse):
        console.print(f"{terminal_text(str(warehouse))}: nothing to migrate", highlight=False, markup=False)
        return
    try:
        got = migrate(warehouse)
    except (WarehouseBusy, OSError, RuntimeError) as e:
        console.print(f"[red]migrate failed: {escape(terminal_text(str(e)))}[/red]", highlight=False)
        raise typer.Exit(1) from None
    console.print(f"migrated {terminal_text(str(warehouse))} to DuckLake: " +
                  ", ".join(f"{k} {v}" for k, v in got.items()), highlight=False, markup=False)


COMMANDS = {"ingest": ingest_cmd, "compact": compact_cmd, "snapshots": snapshots_cmd, "migrate": migrate_cmd,
            "check": check_cmd}
"""The warehouse commands ``paipu/cli.py`` registers."""
