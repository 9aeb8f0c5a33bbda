"""The warehouse on DuckLake (docs/warehouse.md): ACID commits over hive-partitioned Parquet.

Layout of a warehouse folder ``DIR``:

- ``DIR/catalog.sqlite`` — the DuckLake catalog (embedded default: SQLite, which lets several
  processes of one machine write at once; docs/warehouse.md has the measurement), or a PostgreSQL
  database named by ``--catalog postgres:…`` and remembered in ``DIR/_meta/catalog.json``;
- ``DIR/data/main/<table>/variant=<id>/month=<YYYY-MM>/ducklake-<uuid>.parquet`` — the data files,
  written and listed by DuckLake (``ALTER TABLE … SET PARTITIONED BY (variant, month)``);
  ``ingest_runs`` is not partitioned;
- ``DIR/_staging/<run_id>/`` — a running ingest's replayed rows before its commit (removed after
  it; a killed run's folder is removed by the next run on the same host);
- ``DIR/_meta/`` — ``catalog.json``, ``pseudonym.json`` and the JSON copy of each run record.

One transaction per ingest run (:meth:`Warehouse.transaction`): a reader sees every row of a run
or none; ``kill -9`` at any moment leaves the last committed snapshot. Every commit also updates
the one row of ``_writer``: two runs committing at once conflict there, and the later one screens
its duplicates again against what the first one committed and retries (``ingest.run``), so
concurrent ingests never store a game twice. Into the embedded catalog the writes of concurrent
processes take turns instead (:func:`commit_turn`: SQLite refuses a second writer at once rather
than waiting), and the catalog is in WAL mode so that readers never delay a commit.
"""

from __future__ import annotations

import atexit
import json
import os
import platform
import random
import shutil
import tempfile
import time
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

import duckdb
import pyarrow as pa

from ingest.schema import MONTH, PARTITION, RUNS, RUNS_TABLE, TABLES, duckdb_type

DUCKDB_VERSION = "v1.5.5"
"""The DuckDB version the extension wheels are built for (pyproject pins duckdb to it)."""
META = "_meta"
STAGING = "_staging"
DATA = "data"
SQLITE_CATALOG = "catalog.sqlite"
COMMIT_LOCK = "commit.lock"
"""``DIR/_meta/commit.lock``: the embedded catalog's commit turn (:meth:`Warehouse.commit_turn`)."""
WRITER = "_writer"
"""One-row table every commit updates: two concurrent commits conflict on it (see the docstring)."""
PART_SUFFIX = ".arrow"
"""Staged parts are Arrow IPC files with lz4-compressed buffers: only this run reads them back,
once: lz4 writes and reads them faster than zstd, in about a quarter of the bytes of no
compression (bench/README.md)."""


def write_part(table: pa.Table, path: Path) -> None:
    """Write one staged part (:data:`PART_SUFFIX`) through a temporary name and ``os.replace``,
    so a process killed mid-write leaves no part."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with pa.OSFile(str(tmp), "wb") as sink, pa.ipc.new_file(
            sink, table.schema, options=pa.ipc.IpcWriteOptions(compression="lz4")) as w:
        w.write_table(table)
    os.replace(tmp, path)


def read_part(path: Path) -> pa.Table:
    """A staged part :func:`write_part` wrote."""
    with pa.OSFile(str(path), "rb") as src:
        return pa.ipc.open_file(src).read_all()

# wheel module, file in the wheel, the name DuckDB must see (its entry point is named after it)
_EXTENSIONS = {
    "ducklake": ("duckdb_extension_ducklake", "ducklake", "ducklake"),
    "sqlite": ("duckdb_extension_sqlite", "sqlite", "sqlite_scanner"),
    "postgres": ("duckdb_extension_postgres", "postgres", "postgres_scanner"),
}
_LINKS: list[str] = []


def _rollback(con: "duckdb.DuckDBPyConnection") -> None:
    """Roll back ``con``'s open transaction; a failed COMMIT has already ended it (no error then)."""
    try:
        con.execute("ROLLBACK")
    except duckdb.Error:
        pass


class WarehouseBusy(RuntimeError):
    """The catalog could not be opened or a commit kept conflicting (the message says which)."""


class CatalogError(RuntimeError):
    """A warehouse's catalog cannot be opened (a damaged or foreign ``catalog.sqlite``, an
    unreachable PostgreSQL, a snapshot that does not exist): the message names the catalog, its
    password masked, and DuckDB's reason. Raised by :func:`attach`; the commands print it and exit 1."""


class MissingDataFiles(CatalogError):
    """Files the warehouse's catalog lists are missing, or not the size it recorded (a lost disk, a
    manual clean-up, a partial copy): every read of their tables would fail. The message names the
    first and says what to do (``paipu check --warehouse DIR --repair``)."""

    def __init__(self, root: Path | str, lost: list["LostFile"]) -> None:
        self.root = Path(root)
        self.lost = lost
        super().__init__(lost_message(root, lost))


class WarehouseMismatch(RuntimeError):
    """The run's pseudonymization does not match what the warehouse already holds."""


class OutsideShardWarning(UserWarning):
    """A data file of a plain-Parquet warehouse (the layout before DuckLake) that is, or lies
    below, a symlink leading outside the warehouse: skipped by ``ingest.views``."""

    def __init__(self, path: Path, target: str) -> None:
        super().__init__(f"skipping {path}: a symlink to {target}, outside the warehouse (or missing)")
        self.path = path
        self.target = target


def extension_path(name: str) -> str:
    """Path of the DuckDB extension ``name`` (``ducklake``, ``sqlite``, ``postgres``) from its PyPI
    wheel, under the file name DuckDB expects (stack.md: the sqlite and postgres wheels name their
    file after the extension, their entry point is ``*_scanner``: a symlink in a private folder of
    this process, mode 0700, removed at exit, gives it that name).

    :raises RuntimeError: the wheel is not installed.
    """
    module, file, want = _EXTENSIONS[name]
    try:
        mod = __import__(module)
    except ImportError:
        raise RuntimeError(f"the DuckDB extension {name} is missing: pip install {module.replace('_', '-')}") from None
    path = Path(str(mod.__file__)).parent / "extensions" / DUCKDB_VERSION / f"{file}.duckdb_extension"
    if file == want:
        return str(path)
    if not _LINKS:
        _LINKS.append(tempfile.mkdtemp(prefix="paipu-ext-"))
        atexit.register(shutil.rmtree, _LINKS[0], True)
    link = Path(_LINKS[0], f"{want}.duckdb_extension")
    if not link.exists():
        os.symlink(path, link)
    return str(link)


def lake_db() -> duckdb.DuckDBPyConnection:
    """A new in-memory DuckDB to attach a warehouse to. It loads extensions by path, from their
    installed wheels only (:func:`extension_path`), and never on its own (autoload and autoinstall
    off). DuckDB's signature check would hash the whole ducklake file again on every connection
    for what the wheel's install already vouches for, so it is skipped."""
    return duckdb.connect(":memory:", config={"allow_unsigned_extensions": "true",
                                              "autoinstall_known_extensions": "false",
                                              "autoload_known_extensions": "false"})


def lit(text: str) -> str:
    """A SQL string literal (DDL and ATTACH cannot take bound parameters)."""
    return "'" + text.replace("'", "''") + "'"


def one(rel: Any) -> tuple[Any, ...]:
    """The one row of an aggregate query (``count(*)``, ``max(…)``): it always has one."""
    row = rel.fetchone()
    assert row is not None, "an aggregate query returned no row"
    return row


def ident(name: str) -> str:
    """A quoted SQL identifier."""
    return '"' + name.replace('"', '""') + '"'


def catalog_of(root: Path | str) -> str | None:
    """The catalog of the warehouse at ``root``: ``postgres:<libpq keywords>`` as recorded in
    ``_meta/catalog.json``, ``sqlite:<path>`` for the embedded one, None when ``root`` holds no
    DuckLake catalog (empty, or a plain-Parquet warehouse of the layout before DuckLake)."""
    root = Path(root)
    rec = root / META / "catalog.json"
    if rec.exists():
        return json.loads(rec.read_text(encoding="utf-8"))["catalog"]
    if (root / SQLITE_CATALOG).exists():
        return f"sqlite:{root.absolute() / SQLITE_CATALOG}"
    return None


def shown_catalog(catalog: str) -> str:
    """``catalog`` (or a message naming it) with every libpq ``password=…`` keyword masked."""
    import re

    return re.sub(r"(password\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)", r"\1***", catalog)


def attach(con: duckdb.DuckDBPyConnection, root: Path, catalog: str, *, read_only: bool = False,
           snapshot: int | datetime | None = None, name: str = "lake", check_files: bool = True) -> None:
    """Load the extensions ``catalog`` needs into ``con`` and attach the warehouse as ``name``, its
    data path ``root/data/`` wherever ``root`` is now (``OVERRIDE_DATA_PATH``: the catalog keeps the
    path it was created at, and lists each file relative to it).

    :param catalog: ``sqlite:<file>`` or ``postgres:<libpq keywords>`` (:func:`catalog_of`).
    :param snapshot: attach the warehouse as it was at this snapshot id or time (read-only).
    :param check_files: check that every file the attached snapshot lists is there, whole
        (:func:`lost_files`); ``paipu check`` attaches without.
    :raises CatalogError: the catalog cannot be opened (a conflict with another writer is raised
        as DuckDB's own error, for :func:`retrying`).
    :raises MissingDataFiles: a file the snapshot lists is missing or damaged.
    """
    kind = catalog.split(":", 1)[0]
    if kind not in ("sqlite", "postgres"):
        raise ValueError(f"unknown catalog {catalog!r}: sqlite:FILE or postgres:KEYWORDS")
    con.execute(f"LOAD {lit(extension_path('ducklake'))}")
    con.execute(f"LOAD {lit(extension_path(kind))}")
    # DuckLake 1.5.5 can keep a table's min/max from one commit's files alone after a commit whose
    # column had an all-NULL file; DuckDB trusts them and misreads values (1 read as 257, `= 1`
    # matching nothing): no plan may rest on the catalog's statistics
    con.execute("SET disabled_optimizers = 'statistics_propagation'")
    # the data is the folder's own wherever the folder is now: a moved or restored copy opens as is
    opts = [f"DATA_PATH {lit(str(root / DATA) + '/')}", "OVERRIDE_DATA_PATH true", "DATA_INLINING_ROW_LIMIT 0"]
    if read_only or snapshot is not None:
        opts.append("READ_ONLY")
    elif kind == "sqlite":  # readers never block a commit (in SQLite's default mode a reader's lock delays it)
        opts.append("META_JOURNAL_MODE 'WAL'")
    if isinstance(snapshot, datetime):
        opts.append(f"SNAPSHOT_TIME {lit(snapshot.isoformat())}")
    elif snapshot is not None:
        opts.append(f"SNAPSHOT_VERSION {int(snapshot)}")
    try:
        con.execute(f"ATTACH {lit('ducklake:' + catalog)} AS {ident(name)} ({', '.join(opts)})")
    except duckdb.Error as e:
        if is_conflict(e):
            raise
        at = "" if snapshot is None else f" at snapshot {snapshot}"
        raise CatalogError(shown_catalog(f"cannot open the catalog {catalog}{at}: {e}")) from None
    if check_files:
        lost = lost_files(con, name)
        if lost:
            con.execute(f"DETACH {ident(name)}")
            raise MissingDataFiles(root, lost)


@dataclass(frozen=True)
class LostFile:
    """A file the catalog lists that cannot be read as listed."""

    table: str
    kind: str
    """``data`` (rows) or ``delete`` (the positions of a data file's deleted rows)."""
    path: str
    want: int
    """Its size in bytes, as the catalog recorded it."""
    size: int | None
    """Its size on disk; None when it is missing."""
    unreadable: str | None = None
    """Why a file of the recorded size cannot be read as Parquet (``paipu check`` reads every file whole)."""

    def state(self) -> str:
        if self.size is None:
            return "missing"
        if self.unreadable is not None:
            return f"damaged: {self.unreadable}"
        return f"damaged: {self.size:,} bytes, the catalog recorded {self.want:,}"


def _size(path: str) -> int | None:
    try:
        return os.stat(path).st_size
    except OSError:
        return None


def _listed(con: Any, name: str = "lake") -> list[LostFile]:
    """Every data and delete file the snapshot attached as ``name`` lists (``ducklake_list_files``),
    as :class:`LostFile` entries with ``size`` unknown."""
    tables = [r[0] for r in con.sql("SELECT table_name FROM duckdb_tables() WHERE database_name = ? ORDER BY table_name",
                                    params=[name]).fetchall()]
    if not tables:
        return []
    q = " UNION ALL ".join(f"SELECT {lit(t)}, data_file, data_file_size_bytes, delete_file, delete_file_size_bytes "
                           f"FROM ducklake_list_files({lit(name)}, {lit(t)})" for t in tables)
    out = []
    for table, data, data_size, dele, dele_size in con.sql(q).fetchall():
        out.append(LostFile(table, "data", data, int(data_size), None))
        if dele:
            out.append(LostFile(table, "delete", dele, int(dele_size), None))
    return out


def lost_files(con: Any, name: str = "lake", whole: bool = False) -> list[LostFile]:
    """The files the snapshot attached as ``name`` lists that are missing, or whose size differs
    from the one the catalog recorded (a cut copy), sorted by table and path. A file found absent
    counts only if the catalog still lists it afterwards: a compaction unlists the files it merges
    before it deletes them. ``whole``: also a file of the right size that does not read whole as
    Parquet (damaged in place, its footer or any page; ``paipu check`` and its repair ask this,
    every connection does not)."""
    why: dict[str, str | None] = {}  # a file of the recorded size: why it does not read whole (read once)
    absent = []
    for f in _listed(con, name):
        if whole and _size(f.path) == f.want:
            why[f.path] = _unreadable(f.path)
        if _size(f.path) != f.want or why.get(f.path):
            absent.append(f)
    if not absent:
        return []
    still = {(f.kind, f.path) for f in _listed(con, name)}
    lost = []
    for f in absent:
        if (f.kind, f.path) in still:
            size = _size(f.path)
            lost.append(LostFile(f.table, f.kind, f.path, f.want, size, why.get(f.path) if size == f.want else None))
    return sorted((f for f in lost if f.size != f.want or f.unreadable), key=lambda f: (f.table, f.path))


def unreadable_error(e: BaseException) -> bool:
    """Whether ``e`` is DuckDB failing to read the warehouse (a data file damaged in place: its size,
    which every attach checks, is right, its content is not), not a query it cannot bind or parse,
    which is the program's own error."""
    return isinstance(e, duckdb.Error) and not isinstance(e, (duckdb.BinderException, duckdb.ParserException))


def _unreadable(path: str) -> str | None:
    """Why ``path`` does not read whole as Parquet, its footer and every page of every row group
    decoded (the first line of what failed), or None when it reads."""
    import pyarrow.parquet as pq

    from replay.words import first_line

    try:
        with pq.ParquetFile(path) as f:
            for i in range(f.num_row_groups):
                f.read_row_group(i)
    except Exception as e:  # any failure to read is the damage, said in words
        return first_line(e)[:200]
    return None


def lost_message(root: Path | str, lost: list[LostFile]) -> str:
    """One line: the first lost file with its state, how many more, and the command that repairs it."""
    import shlex

    first, cmd = lost[0], f"paipu check --warehouse {shlex.quote(str(root))}"
    what = f"{first.path} ({first.table} {first.kind} file, {first.state()})"
    if len(lost) == 1:
        return (f"the warehouse {root} has lost a file its catalog lists: {what}; `{cmd} --repair` drops the rows "
                "it held and names the source files to ingest again")
    return (f"the warehouse {root} has lost {len(lost)} files its catalog lists: {what} and {len(lost) - 1} more; "
            f"`{cmd}` lists them, `{cmd} --repair` drops the rows they held and names the source files to ingest again")


def lake_schema(table: str) -> pa.Schema:
    """The stored columns of a lake table: the schema of ``ingest.schema`` plus ``variant`` and
    ``month`` (partition keys, stored in the rows too) except for ``ingest_runs``."""
    if table == RUNS_TABLE:
        return RUNS
    return TABLES[table].append(pa.field(PARTITION, pa.string())).append(pa.field(MONTH, pa.string()))


def is_conflict(e: Exception) -> bool:
    """True for a catalog error that a retry may clear: a commit conflict, a lock held by another
    process, or (PostgreSQL) a unique key another writer took first — e.g. two processes attaching
    a new, empty catalog at once both create DuckLake's tables (the loser sees a duplicate key, or
    one of those tables already there: CI, 4 writers)."""
    text = str(e).lower()
    return ("conflict" in text or "database is locked" in text or "could not set lock" in text
            or "duplicate key value violates unique constraint" in text
            or ("already exists" in text and "ducklake" in text))


BUSY_SECONDS = float(os.environ.get("PAIPU_BUSY_SECONDS", "600"))
"""How long a catalog operation or a run's commit is retried while the catalog reports a conflict
or a lock held by another process (``PAIPU_BUSY_SECONDS``), before :class:`WarehouseBusy`."""


def backoff(attempt: int, *, wait: float = 0.05, cap: float = 2.0) -> float:
    """Seconds to sleep before retry ``attempt`` (0-based): exponential (×1.5 from ``wait``, at
    most ``cap``) with full jitter between half and 1.5 times it, so writers that conflicted
    once do not retry in step."""
    return min(cap, wait * 1.5 ** attempt) * (0.5 + random.random())


def retrying(fn: Any, *, seconds: float | None = None, what: str = "the catalog") -> Any:
    """``fn()``, retried with :func:`backoff` while the catalog reports a conflict or a lock held by
    another process (:func:`is_conflict`), for at most ``seconds`` (default :data:`BUSY_SECONDS`).

    :raises WarehouseBusy: still conflicting when the time is up (the last error in the message).
    :raises duckdb.Error: any other catalog error, at once.
    """
    end = time.monotonic() + (BUSY_SECONDS if seconds is None else seconds)
    attempt = 0
    while True:
        try:
            return fn()
        except duckdb.Error as e:
            if not is_conflict(e):
                raise
            if time.monotonic() >= end:
                raise WarehouseBusy(f"{what} stayed busy for {attempt + 1} attempts: {e}") from e
            time.sleep(backoff(attempt))
            attempt += 1


def _sqlite_new(catalog: str) -> bool:
    """True when ``catalog`` is an embedded (SQLite) catalog that DuckLake has not yet set up: no
    file, no committed ``ducklake_metadata`` table, or a file another process holds locked (it may
    be setting it up). Read with the standard library's sqlite3, which sees committed state only.
    Then the attach that sets it up takes :func:`commit_turn`, so two writers starting on a new
    warehouse never both create DuckLake's tables (the loser's attach failed)."""
    if not catalog.startswith("sqlite:"):
        return False
    path = Path(catalog[len("sqlite:"):])
    if not path.exists():
        return True
    import sqlite3

    try:
        db = sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro", uri=True, timeout=0)
        try:
            row = db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'ducklake_metadata'").fetchone()
        finally:
            db.close()
    except sqlite3.Error:  # locked, or mid-creation: take the turn
        return True
    return row is None


@contextmanager
def commit_turn(root: Path, catalog: str, holder: str, say: Callable[[str], None] | None = None) -> Iterator[None]:
    """This host's turn to write into an embedded (SQLite) catalog: an exclusive ``flock`` on
    ``DIR/_meta/commit.lock`` (which then names ``holder``), waited for — ``say`` gets a line after
    1 s of waiting, then every minute — and released when the block ends or the process dies
    (``kill -9`` included). Every paipu write to the catalog takes it (the tables' creation, a
    run's ``running`` row, its commit, compaction).

    Why (measured, docs/warehouse.md "Concurrent writers"): a SQLite write that meets another
    process's write fails at once with "database is locked" (a read transaction turning into a
    write gets no busy wait, whatever ``BUSY_TIMEOUT`` says), and two runs committing at once
    conflict on ``_writer``: either way a run redoes its whole commit phase, and under load that
    repeated until the retries ran out. SQLite takes one writer at a time anyway; taking turns
    costs no throughput, and the replay of concurrent runs still overlaps. A PostgreSQL catalog
    (several machines) takes no turn: its conflicts are retried (:func:`retrying`).
    """
    if not catalog.startswith("sqlite:"):
        yield
        return
    import fcntl

    (root / META).mkdir(parents=True, exist_ok=True)
    fd = os.open(root / META / COMMIT_LOCK, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        t0, told = time.monotonic(), None
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                waited = time.monotonic() - t0
                if say is not None and (waited >= 1 if told is None else waited - told >= 60):
                    other = os.pread(fd, 300, 0).decode("utf-8", "replace").strip() or "another ingest"
                    say(f"waiting for the commit of {other} into {root} to finish "
                        f"(embedded catalog: one commit at a time; waited {waited:.0f} s)")
                    told = waited
                time.sleep(0.1)
        os.ftruncate(fd, 0)
        os.pwrite(fd, holder.encode("utf-8", "replace"), 0)
        yield
    finally:
        os.close(fd)  # releases the lock


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class Warehouse:
    """A warehouse folder opened for writing (a context manager).

    :param root: the warehouse folder (created if missing).
    :param pseudonym: the salt fingerprint of this run (``Pseudonymizer.fingerprint``), or None.
    :param catalog: ``postgres:<libpq keywords>`` for a PostgreSQL catalog (recorded in
        ``_meta/catalog.json`` on first use; later opens may leave it out), None for the
        warehouse's own (embedded SQLite by default).
    :raises WarehouseMismatch: on enter, when the warehouse holds rows written with another
        pseudonymization, or another catalog than ``catalog``.
    :raises WarehouseBusy: on enter, when the catalog stays locked or conflicting.
    :raises MissingDataFiles: on enter, when a file the catalog lists is missing or damaged.
    """

    def __init__(self, root: Path | str, pseudonym: str | None = None, *, check_pseudonym: bool = True,
                 catalog: str | None = None, run_id: str | None = None) -> None:
        self.root = Path(root).absolute()
        self.pseudonym = pseudonym
        self.check_pseudonym = check_pseudonym
        self.want_catalog = catalog
        self.run_id = run_id or f"{datetime.now(timezone.utc):%Y%m%dT%H%M%S%fZ}-{os.getpid()}"
        self.staging = self.root / STAGING / self.run_id
        self.con: duckdb.DuckDBPyConnection | None = None
        self._head: duckdb.DuckDBPyConnection | None = None  # for :meth:`head`
        self.recovered: list[str] = []

    # --- opening ---------------------------------------------------------------------------------
    def __enter__(self) -> "Warehouse":
        (self.root / META).mkdir(parents=True, exist_ok=True)
        have = catalog_of(self.root)
        if self.want_catalog and self.want_catalog.startswith("postgres:"):
            if have and have != self.want_catalog:
                raise WarehouseMismatch(f"{self.root} uses the catalog {have}, not {self.want_catalog}")
            _atomic_json({"catalog": self.want_catalog}, self.root / META / "catalog.json")
            self.catalog = self.want_catalog
        else:
            self.catalog = have or f"sqlite:{self.root / SQLITE_CATALOG}"
        (self.root / DATA).mkdir(exist_ok=True)
        self._connect()
        try:
            try:
                # the first attach creates DuckLake's tables: a write, so it takes the turn
                with self.commit_turn() if _sqlite_new(self.catalog) else nullcontext():
                    retrying(self._attach)
            except MissingDataFiles:
                raise
            except CatalogError as e:  # unreachable server, no such database, bad keywords, …
                raise WarehouseBusy(str(e)) from None
            except duckdb.Error as e:  # still conflicting after the retries
                raise WarehouseBusy(shown_catalog(f"cannot open the catalog {self.catalog}: {e}")) from None
            if retrying(self._missing_tables):
                with self.commit_turn():
                    retrying(self._ensure_tables)
            if self.check_pseudonym:
                self._check_pseudonym()
            self._clean_staging()
        except BaseException:
            self.close()
            raise
        self.staging.mkdir(parents=True, exist_ok=True)
        (self.staging / "owner.json").write_text(json.dumps({"pid": os.getpid(), "host": platform.node()}))
        return self

    def _connect(self) -> None:
        self.con = lake_db()
        self.con.execute("SET enable_progress_bar = false")  # DuckDB draws it on stdout, which may be --json

    def _attach(self) -> None:
        """:func:`attach` on this warehouse's connection. A failed attach is retried on a new
        connection: the failed one can be left in an aborted transaction, where the retry would
        fail with "Current transaction is aborted" instead of the error it met (seen in ``make
        bench``, two writers starting on a new warehouse)."""
        assert self.con is not None
        try:
            attach(self.con, self.root, self.catalog)
        except (duckdb.Error, CatalogError):
            self.con.close()
            self._connect()
            raise

    def _missing_tables(self) -> bool:
        """True when a table, or a column of ``ingest/schema.py``, is missing from the catalog."""
        con = self.con
        assert con is not None
        have: dict[str, set[str]] = {}
        for t, c in con.sql("SELECT table_name, column_name FROM duckdb_columns() WHERE database_name = 'lake'").fetchall():
            have.setdefault(t, set()).add(c)
        return WRITER not in have or any(table not in have or any(f.name not in have[table] for f in lake_schema(table))
                                         for table in [*TABLES, RUNS_TABLE])

    def _ensure_tables(self) -> None:
        """Create missing tables, partition them and add columns a newer schema has (DuckLake's
        own ``ALTER TABLE``: the old data files read the new column as NULL)."""
        con = self.con
        assert con is not None
        have: dict[str, set[str]] = {
            r[0]: set() for r in con.sql("SELECT table_name FROM duckdb_tables() WHERE database_name = 'lake'").fetchall()}
        for t in have:
            have[t] = {r[0] for r in con.sql(f"SELECT column_name FROM duckdb_columns() WHERE database_name = 'lake' "
                                             f"AND table_name = {lit(t)}").fetchall()}
        con.execute("BEGIN")
        try:
            for table in [*TABLES, RUNS_TABLE]:
                schema = lake_schema(table)
                if table not in have:
                    empty = pa.Table.from_batches([], schema=schema)  # noqa: F841 (read by name below)
                    con.execute(f"CREATE TABLE lake.{ident(table)} AS SELECT * FROM empty")
                    if table != RUNS_TABLE:
                        con.execute(f"ALTER TABLE lake.{ident(table)} SET PARTITIONED BY ({PARTITION}, {MONTH})")
                    continue
                for f in schema:
                    if f.name not in have[table]:
                        con.execute(f"ALTER TABLE lake.{ident(table)} ADD COLUMN {ident(f.name)} {duckdb_type(f.type)}")
            if WRITER not in have:
                con.execute(f"CREATE TABLE lake.{WRITER} (commits BIGINT, last_run VARCHAR)")
                con.execute(f"INSERT INTO lake.{WRITER} VALUES (0, NULL)")
            con.execute("COMMIT")
        except duckdb.CatalogException as e:
            _rollback(con)
            if "already exists" not in str(e):
                raise
            # another writer created one of the tables since `have` was read: a conflict, looked at again
            raise duckdb.TransactionException(f"conflict: another writer set the warehouse's tables up meanwhile "
                                              f"({e})") from e
        except BaseException:
            _rollback(con)
            raise

    def _check_pseudonym(self) -> None:
        path = self.root / META / "pseudonym.json"
        have = json.loads(path.read_text(encoding="utf-8")) if path.exists() else None
        want = {"fingerprint": self.pseudonym}
        if have is None:
            if self.pseudonym is not None and self.count("games") + self.count("rejects"):
                raise WarehouseMismatch(f"{self.root} holds plain player ids; pseudonymize into a new warehouse")
            _atomic_json(want, path)
        elif have.get("fingerprint") != self.pseudonym:
            what = ("plain player ids" if have.get("fingerprint") is None
                    else f"player ids pseudonymized with another salt (fingerprint {have['fingerprint']})")
            mine = "with this salt" if self.pseudonym else "without --pseudonymize"
            raise WarehouseMismatch(f"{self.root} holds {what}; refusing to add rows {mine}")

    def _clean_staging(self) -> None:
        """Remove the staging folders of killed runs of this host (their pid is gone)."""
        for d in sorted((self.root / STAGING).glob("*")):
            try:
                owner = json.loads((d / "owner.json").read_text())
            except (OSError, ValueError):
                owner = {"pid": int(d.name.rsplit("-", 1)[-1]) if d.name.rsplit("-", 1)[-1].isdigit() else 0,
                         "host": platform.node()}
            if owner.get("host") == platform.node() and not _pid_alive(int(owner.get("pid", 0))):
                shutil.rmtree(d, ignore_errors=True)
                self.recovered.append(f"removed the staging folder of killed run {d.name}")

    def close(self) -> None:
        """Drop the staging folder and close the catalog connection."""
        shutil.rmtree(self.staging, ignore_errors=True)
        for con in (self.con, self._head):
            if con is not None:
                con.close()
        self.con = self._head = None

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # --- reading inside a transaction ----------------------------------------------------------------
    def count(self, table: str) -> int:
        """Rows of ``table`` as this connection sees them."""
        assert self.con is not None
        return one(self.con.sql(f"SELECT count(*) FROM lake.{ident(table)}"))[0]

    def stored_games(self, ids: pa.Array) -> list[tuple[str, str, str, int]]:
        """``(game_id, record_sha256, source_file, source_line)`` of the stored games among ``ids``
        (what this transaction sees: the last snapshot plus its own changes)."""
        assert self.con is not None
        probe = pa.table({"game_id": ids})  # noqa: F841 (read by name below)
        return self.con.sql("SELECT g.game_id, g.record_sha256, g.source_file, g.source_line FROM lake.games g "
                            "SEMI JOIN probe p ON g.game_id = p.game_id").fetchall()

    def source_rows(self, sources: list[str]) -> dict[str, tuple[int, int]]:
        """``source_file`` → (games, rejects) stored for each of ``sources`` (named as the rows name
        them: :func:`~replay.record.source_text`), as this transaction sees them."""
        assert self.con is not None
        probe = pa.table({"source_file": list(sources)})  # noqa: F841
        got = {s: [0, 0] for s in probe.column("source_file").to_pylist()}
        for i, table in enumerate(("games", "rejects")):
            for src, n in self.con.sql(f"SELECT t.source_file, count(*) FROM lake.{table} t SEMI JOIN probe p "
                                       "ON t.source_file = p.source_file GROUP BY t.source_file").fetchall():
                got[src][i] = n
        return {s: (g, r) for s, (g, r) in got.items()}

    def stored_rejects(self, hashes: pa.Array) -> list[tuple[str, str, str, int]]:
        """``(raw_sha256, rule, source_file, source_line)`` of stored rejects whose bytes are among ``hashes``."""
        assert self.con is not None
        probe = pa.table({"raw_sha256": hashes})  # noqa: F841
        return self.con.sql("SELECT r.raw_sha256, r.rule, r.source_file, r.source_line FROM lake.rejects r "
                            "SEMI JOIN probe p ON r.raw_sha256 = p.raw_sha256").fetchall()

    # --- writing ------------------------------------------------------------------------------------
    def begin(self) -> None:
        """Open a catalog transaction on this connection: what is written until :meth:`commit`
        commits as one snapshot or not at all (:meth:`transaction` pairs the two)."""
        assert self.con is not None
        self.con.execute("BEGIN")

    def commit(self, message: str, extra: dict[str, Any], *, serialize: bool = True) -> None:
        """Commit the transaction :meth:`begin` opened, tagged with ``message`` and ``extra`` as
        JSON (``paipu snapshots`` shows them). ``serialize`` (for commits of rows) updates the
        ``_writer`` row, so that two such commits made at once conflict. A failed commit has
        ended the transaction.

        :raises duckdb.TransactionException: the commit conflicted with another writer's (the
            caller retries: :func:`is_conflict`).
        """
        con = self.con
        assert con is not None
        try:
            if serialize:  # conflicts with any other commit of rows meanwhile: duplicates are screened again
                con.execute(f"UPDATE lake.{WRITER} SET commits = commits + 1, last_run = ?", [extra.get("run_id")])
            con.execute("CALL lake.set_commit_message('paipu', ?, extra_info => ?)",
                        [message, json.dumps(extra, sort_keys=True, default=str)])
            con.execute("COMMIT")
        except BaseException:
            _rollback(con)
            raise

    def rollback(self) -> None:
        """Roll back the open transaction, if any (its data files become orphans no snapshot lists)."""
        if self.con is not None:
            _rollback(self.con)

    @contextmanager
    def transaction(self, message: str, extra: dict[str, Any], *, serialize: bool = True) -> Iterator["Warehouse"]:
        """One catalog transaction (:meth:`begin`, then :meth:`commit` with these arguments when
        the block ends, or a rollback when it raises).

        :raises duckdb.TransactionException: the commit conflicted with another writer's.
        """
        self.begin()
        try:
            yield self
        except BaseException:
            self.rollback()
            raise
        self.commit(message, extra, serialize=serialize)

    def threads(self, n: int | None) -> None:
        """Let DuckDB use ``n`` threads on this connection (None: its default, one a core)."""
        assert self.con is not None
        self.con.execute("RESET threads" if n is None else f"SET threads = {int(n)}")

    def head(self) -> tuple[int, int, int] | None:
        """Where an embedded (SQLite) catalog stands, read outside any transaction: ``(latest
        snapshot id, snapshots kept, files scheduled for deletion)`` (None for a PostgreSQL
        catalog). A transaction that began before another writer changed the catalog cannot commit
        into SQLite any more (its read turned stale: "database is locked"): ``ingest.run`` stops its
        live commit early when the head differs from the one it began at. A commit moves the
        snapshot id; ``paipu compact``'s expiry and clean-up commit no snapshot, but change the
        other two counts. Read through DuckDB's own sqlite extension on a connection of its own: a
        second SQLite library in the process (the standard library's sqlite3) would drop the
        other's locks on the WAL files when it closes them (SQLite's POSIX-lock caveat), which
        crashed a writer with SIGBUS."""
        if not self.catalog.startswith("sqlite:"):
            return None
        if self._head is None:
            con = lake_db()
            con.execute("SET enable_progress_bar = false")
            con.execute(f"LOAD {lit(extension_path('sqlite'))}")
            con.execute(f"ATTACH {lit(self.catalog[len('sqlite:'):])} AS meta (TYPE sqlite)")
            self._head = con
        return self._head.sql("SELECT (SELECT max(snapshot_id) FROM meta.ducklake_snapshot), "
                              "(SELECT count(*) FROM meta.ducklake_snapshot), "
                              "(SELECT count(*) FROM meta.ducklake_files_scheduled_for_deletion)").fetchone()

    def commit_turn(self, say: Callable[[str], None] | None = None) -> Any:
        """:func:`commit_turn` of this warehouse (held in the name of this run)."""
        return commit_turn(self.root, self.catalog, f"run {self.run_id}", say)

    def replace_source(self, source: str) -> None:
        """Delete every row that ``source`` (an input file's absolute path) stored: its games and
        their child rows, its rejects. Inside a transaction: a reader never sees the gap."""
        from replay.record import source_text

        con = self.con
        assert con is not None
        source = source_text(source)  # as the rows name it: one text per path (a file name need not be UTF-8)
        for table in TABLES:
            if table in ("games", "rejects"):
                continue
            con.execute(f"DELETE FROM lake.{ident(table)} WHERE game_id IN "
                        "(SELECT game_id FROM lake.games WHERE source_file = ?)", [source])
        con.execute("DELETE FROM lake.games WHERE source_file = ?", [source])
        con.execute("DELETE FROM lake.rejects WHERE source_file = ?", [source])

    def insert(self, table: str, rows: pa.Table) -> None:
        """Append ``rows`` (columns by name; those it lacks are NULL) to ``table``."""
        assert self.con is not None
        if rows.num_rows == 0:
            return
        cols = [f.name for f in lake_schema(table) if f.name in rows.column_names]
        src = rows.select(cols)  # noqa: F841 (read by name below)
        names = ", ".join(ident(c) for c in cols)
        self.con.execute(f"INSERT INTO lake.{ident(table)} ({names}) SELECT {names} FROM src")

    def write_run(self, record: dict[str, Any]) -> None:
        """Append the ``ingest_runs`` row of ``record`` (``run_row``; inside a transaction). A run
        has a ``running`` row (its own commit, when it starts) and a ``done`` row (in its data's
        commit); readers take the latest row of each run."""
        self.insert(RUNS_TABLE, run_row(record))

    def save_run_json(self, record: dict[str, Any]) -> None:
        """Keep a JSON copy of a run record in ``_meta/ingest_runs/<run_id>.json`` (for operators;
        the ``ingest_runs`` table is the record)."""
        _atomic_json(record, self.root / META / "ingest_runs" / f"{record['run_id']}.json")

    def mark_interrupted(self) -> list[dict[str, Any]]:
        """Runs of this host still ``running`` whose process is gone: an ``interrupted`` row each
        (inside the caller's transaction; a killed run committed nothing, so its counts are 0).
        Returns their records (for :meth:`save_run_json` after the commit)."""
        assert self.con is not None
        rows = self.con.sql(f"""SELECT run_id, host, any_value(started_at) FROM lake.{RUNS_TABLE} GROUP BY run_id, host
                                HAVING bool_and(status = 'running')""").fetchall()
        gone = []
        for run_id, host, started in rows:
            pid = run_id.rsplit("-", 1)[-1]
            if host != platform.node() or not pid.isdigit() or _pid_alive(int(pid)) and int(pid) != os.getpid():
                continue
            if run_id == self.run_id:
                continue
            rec_path = self.root / META / "ingest_runs" / f"{run_id}.json"
            try:
                rec = json.loads(rec_path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                rec = {"run_id": run_id, "started_at": started, "host": host}
            rec.update(status="interrupted", files=[], total={}, n_files=0, rows={})
            self.write_run(rec)
            gone.append(rec)
        return gone


def _atomic_json(obj: Any, dest: Path) -> None:
    """Write ``obj`` as JSON to ``dest`` through a temporary file beside it."""
    text = json.dumps(obj, ensure_ascii=False, indent=1, sort_keys=True, default=str)
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:  # a file name that is not UTF-8: JSON's \u escapes keep it exactly
        data = json.dumps(obj, ensure_ascii=True, indent=1, sort_keys=True, default=str).encode("ascii")
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(f".{dest.name}.{os.getpid()}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, dest)


def run_row(record: dict[str, Any]) -> pa.Table:
    """The ``ingest_runs`` row of a run record (``IngestReport.to_json()`` plus status). Paths and
    errors are written through :func:`~replay.record.utf8_text` (a file name need not be UTF-8)."""
    from replay.record import utf8_text

    def ts(v: Any) -> Any:
        return datetime.fromisoformat(v) if isinstance(v, str) else v

    def text(v: Any) -> Any:
        return utf8_text(v) if isinstance(v, str) else v

    tot = record.get("total") or {}
    names = [f.name for f in RUNS.field("files").type.value_type]
    files = [{k: text(f.get(k)) for k in names} for f in record.get("files", [])]
    row = {
        "run_id": record["run_id"], "status": record.get("status", "done"), "started_at": ts(record["started_at"]),
        "finished_at": ts(record["finished_at"]) if record.get("status", "done") == "done" else None,
        "engine_version": record.get("engine_version"), "engine": record.get("engine", "process"),
        "workers": record.get("workers"), "host": record.get("host"),
        "pseudonymized": bool(record.get("pseudonymized")), "n_files": record.get("n_files", len(files)),
        **{k: tot.get(k, 0) for k in ("lines", "blank", "read", "valid", "invalid", "rejected", "duplicate")},
        "skipped": [text(p) for p in record.get("skipped", [])],
        "rows_json": json.dumps(record.get("rows", {}), sort_keys=True), "files": files,
    }
    return pa.Table.from_pylist([row], schema=RUNS)


_READERS: dict[tuple[str, Any], Any] = {}  # ingest.views.ReadConnection


def _reader(root: Path | str, snapshot: int | datetime | None) -> Any:
    """A cached read connection (``ingest.views.connect``) per warehouse, snapshot and catalog
    file (a new catalog file, e.g. a warehouse made anew, gets a new one): each query of a DuckLake
    view sees the latest snapshot anyway."""
    from ingest.views import connect  # ingest.views builds on this module

    cat = Path(root, SQLITE_CATALOG)
    try:
        st = cat.stat()
        ident_ = (st.st_ino, st.st_ctime_ns)
    except OSError:
        ident_ = None
    key = (str(Path(root).absolute()), (snapshot, ident_, catalog_of(root)))
    con = _READERS.get(key)
    if con is None:
        if len(_READERS) >= 16:
            _READERS.pop(next(iter(_READERS))).close()
        con = _READERS[key] = connect(root, snapshot=snapshot)
    return con


def read_rows(root: Path | str, table: str, *, snapshot: int | datetime | None = None) -> list[dict[str, Any]]:
    """Every row of one table of a warehouse as dicts (``variant`` and ``month`` included; for
    ``ingest_runs`` the latest row of each run), sorted by all columns (for checks and tests; the
    analytics read through ``ingest.views``)."""
    if catalog_of(root) is None:  # a plain-Parquet warehouse: its views list the files at connect
        from ingest.views import connect  # ingest.views builds on this module

        con = connect(root, snapshot=snapshot)
        try:
            return con.sql(f"SELECT * FROM {ident(table)} ORDER BY ALL").to_arrow_table().to_pylist()
        finally:
            con.close()
    cur = _reader(root, snapshot).cursor()
    try:
        return cur.sql(f"SELECT * FROM {ident(table)} ORDER BY ALL").to_arrow_table().to_pylist()
    finally:
        cur.close()


def _file_stats(con: duckdb.DuckDBPyConnection) -> tuple[int, int]:
    """(data files, bytes) the current snapshot lists, every table together."""
    n, size = one(con.sql("SELECT sum(file_count), sum(file_size_bytes) FROM ducklake_table_info('lake')"))
    return int(n or 0), int(size or 0)


def compact(root: Path | str, *, keep_days: float = 7.0) -> dict[str, int]:
    """DuckLake's maintenance on a warehouse: merge adjacent small data files of each partition
    (``ducklake_merge_adjacent_files``, never across ``variant``/``month``), expire snapshots older
    than ``keep_days`` (``ducklake_expire_snapshots``; ``--as-of`` cannot reach before them then),
    delete the files no kept snapshot lists (``ducklake_cleanup_old_files``) and files no snapshot
    ever listed older than a day — those of killed ingests (``ducklake_delete_orphaned_files``).
    Runs beside ingests (a conflict is retried).

    :returns: ``{"files_before", "files_after", "bytes_before", "bytes_after", "expired"}``.
    """
    from datetime import timedelta

    root = Path(root).absolute()
    catalog = catalog_of(root)
    if catalog is None:
        raise RuntimeError(f"{root} is not a DuckLake warehouse")
    con = lake_db()
    con.execute("SET enable_progress_bar = false")  # drawn on stdout
    try:
        retrying(lambda: attach(con, root, catalog))
        with commit_turn(root, catalog, f"paipu compact (pid {os.getpid()})"):
            before = _file_stats(con)
            retrying(lambda: con.execute("CALL ducklake_merge_adjacent_files('lake')"))
            cut = datetime.now(timezone.utc) - timedelta(days=keep_days)
            expired = retrying(lambda: con.execute("CALL ducklake_expire_snapshots('lake', older_than => ?::TIMESTAMPTZ)",
                                                   [cut]).fetchall())
            retrying(lambda: con.execute("CALL ducklake_cleanup_old_files('lake', cleanup_all => true)"))
            orphans = datetime.now(timezone.utc) - timedelta(days=1)
            retrying(lambda: con.execute("CALL ducklake_delete_orphaned_files('lake', older_than => ?::TIMESTAMPTZ)",
                                         [orphans]))
            after = _file_stats(con)
    finally:
        con.close()
    return {"files_before": before[0], "files_after": after[0], "bytes_before": before[1], "bytes_after": after[1],
            "expired": len(expired)}


GAME_TABLES = tuple(t for t in TABLES if t != "rejects")
"""The tables that hold a game's rows, all in its ``variant``/``month`` partition."""


def verify_files(root: Path | str) -> None:
    """Check, on the cached read connection, that every file the latest snapshot lists is there,
    whole (for a long-lived reader such as the dashboard, whose connection outlives a lost file).

    :raises MissingDataFiles: one is missing or damaged.
    """
    cur = _reader(root, None).cursor()
    try:
        lost = lost_files(cur)
    finally:
        cur.close()
    if lost:
        raise MissingDataFiles(Path(root).absolute(), lost)


def check_files(root: Path | str) -> tuple[int, list[LostFile]]:
    """How many files the warehouse's latest snapshot lists, and those of them that are missing or
    damaged (``paipu check``).

    :raises CatalogError: the catalog cannot be opened.
    :raises RuntimeError: ``root`` is not a DuckLake warehouse.
    """
    root = Path(root).absolute()
    catalog = catalog_of(root)
    if catalog is None:
        raise RuntimeError(f"{root} is not a DuckLake warehouse")
    con = lake_db()
    try:
        attach(con, root, catalog, read_only=True, check_files=False)
        return len(_listed(con)), lost_files(con, whole=True)
    finally:
        con.close()


@dataclass
class Repair:
    """What :func:`repair` did."""

    lost: list[LostFile]
    snapshot: int | None = None
    """The snapshot that dropped the files (None: nothing was lost)."""
    dropped: dict[str, tuple[int, int]] = field(default_factory=dict)
    """Per table: data files dropped and the rows they held."""
    partitions: list[tuple[str | None, str | None]] = field(default_factory=list)
    """The ``(variant, month)`` partitions whose games were dropped from every table of a game."""
    sources: list[str] = field(default_factory=list)
    """The input files to ingest again (``source_file`` names), sorted."""
    traced: bool = True
    """False when a lost file's rows could not be traced to their runs: ``sources`` then holds the
    sources of every run on record."""
    restored: list[str] = field(default_factory=list)
    """Notes on rows written again after the drop (``_writer``, run records from ``_meta``)."""


def _resolve(base: str, path: str, relative: Any) -> str:
    return base + path if relative else path


def _run_records(con: Any, root: Path, readable: bool) -> dict[str, list[dict[str, Any]]]:
    """``run_id`` → the ``files`` of its done run: the JSON copies in ``_meta/ingest_runs/``, and
    the ``ingest_runs`` table when ``readable`` (none of its files lost)."""
    runs: dict[str, list[dict[str, Any]]] = {}
    if readable:
        for run_id, files in con.sql(f"SELECT run_id, files FROM lake.{RUNS_TABLE} WHERE status = 'done'").fetchall():
            runs[run_id] = list(files or [])
    for path in sorted((root / META / "ingest_runs").glob("*.json")):
        try:
            rec = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if rec.get("status") == "done" and rec.get("run_id") not in runs:
            runs[rec["run_id"]] = list(rec.get("files") or [])
    return runs


def _repair_once(con: duckdb.DuckDBPyConnection, root: Path, out: Repair) -> None:
    """One try of :func:`repair`'s transaction on the catalog's own tables (see its docstring)."""

    m = ident("__ducklake_metadata_lake")
    data_root = str(root / DATA) + "/"
    con.execute("BEGIN")
    try:
        files = {}  # data_file_id -> (table, path, end snapshot, table folder, rows)
        for fid, table, spath, srel, tpath, trel, fpath, frel, end, rows in con.sql(f"""
                SELECT f.data_file_id, t.table_name, s.path, s.path_is_relative, t.path, t.path_is_relative, f.path,
                       f.path_is_relative, f.end_snapshot, f.record_count
                FROM {m}.ducklake_data_file f
                JOIN {m}.ducklake_table t ON t.table_id = f.table_id AND t.end_snapshot IS NULL
                JOIN {m}.ducklake_schema s ON s.schema_id = t.schema_id AND s.end_snapshot IS NULL""").fetchall():
            table_dir = _resolve(_resolve(data_root, spath, srel), tpath, trel)
            files[fid] = (table, _resolve(table_dir, fpath, frel), end, table_dir, int(rows or 0))
        current = {fid for fid, f in files.items() if f[2] is None}
        deletes = {}  # delete file path -> (data_file_id, rows it deletes)
        for fid, dpath, drel, n in con.sql(f"SELECT data_file_id, path, path_is_relative, delete_count "
                                           f"FROM {m}.ducklake_delete_file WHERE end_snapshot IS NULL").fetchall():
            if fid in current:
                deletes[_resolve(files[fid][3], dpath, drel)] = (fid, int(n or 0))
        part_of: dict[int, tuple[tuple[str, str], ...]] = {}
        for fid, col, value in con.sql(f"""
                SELECT v.data_file_id, c.column_name, v.partition_value
                FROM {m}.ducklake_file_partition_value v
                JOIN {m}.ducklake_data_file f ON f.data_file_id = v.data_file_id
                JOIN {m}.ducklake_partition_column p ON p.partition_id = f.partition_id
                     AND p.partition_key_index = v.partition_key_index
                JOIN {m}.ducklake_column c ON c.table_id = v.table_id AND c.column_id = p.column_id
                     AND c.end_snapshot IS NULL
                ORDER BY v.data_file_id, v.partition_key_index""").fetchall():
            part_of[fid] = (*part_of.get(fid, ()), (col, value))
        listed = {f.path for f in _listed(con) if f.kind == "data"}
        by_path = {files[fid][1]: fid for fid in current}
        if set(by_path) != listed:  # never drop what may be another file than the one found lost
            raise RuntimeError(f"the catalog of {root} lists its files in a way this repair does not know; "
                               "nothing was changed")
        drop: set[int] = set()
        gone: set[int] = set()  # data files whose rows cannot be read at all
        for lf in out.lost:
            if lf.kind == "data" and lf.path in by_path:
                fid = by_path[lf.path]
                gone.add(fid)
            elif lf.kind == "delete" and lf.path in deletes:  # its data file's rows cannot be told from the deleted ones
                fid = deletes[lf.path][0]
            else:
                raise RuntimeError(f"the files of {root} changed during the repair; nothing was changed: run it again")
            table = files[fid][0]
            if table in GAME_TABLES:  # a game's rows are spread over one file per table of its partition
                part = part_of.get(fid, ())
                drop |= {f for f in current if files[f][0] in GAME_TABLES and part_of.get(f, ()) == part}
                key = dict(part)
                if (key.get(PARTITION), key.get(MONTH)) not in out.partitions:
                    out.partitions.append((key.get(PARTITION), key.get(MONTH)))
            else:
                drop.add(fid)

        # the sources of what is dropped: read from the files still there, traced to runs for the rest
        sources: set[str] = set()
        readable = [files[f][1] for f in drop if files[f][0] in ("games", "rejects") and f not in gone]
        if readable:
            listing = "[" + ", ".join(lit(p) for p in readable) + "]"
            sources |= {r[0] for r in con.sql(f"SELECT DISTINCT source_file FROM read_parquet({listing}, "
                                              "union_by_name = true) WHERE source_file IS NOT NULL").fetchall()}
        snaps = {sid: (nfid, extra) for sid, nfid, extra in con.sql(f"""
                SELECT s.snapshot_id, s.next_file_id, c.commit_extra_info FROM {m}.ducklake_snapshot s
                LEFT JOIN {m}.ducklake_snapshot_changes c USING (snapshot_id)""").fetchall()}

        def made_by(fid: int) -> int | None:
            """The snapshot that wrote data file ``fid`` (file ids come from its ``next_file_id`` range)."""
            for sid in sorted(snaps):
                if snaps[sid][0] > fid:
                    prev = snaps.get(sid - 1)
                    return sid if prev is not None and prev[0] <= fid else None
            return None

        def runs_of(fid: int, seen: frozenset[int] = frozenset()) -> set[str] | None:
            """The runs whose rows data file ``fid`` holds: the run that wrote it, or those of the
            files a compaction merged into it; None when the trail is gone (expired snapshots)."""
            sid = made_by(fid)
            if sid is None or fid in seen:
                return None
            try:
                info = json.loads(snaps[sid][1] or "{}")
            except ValueError:
                info = {}
            if info.get("status") == "done" and info.get("run_id"):
                return {info["run_id"]}
            merged = [f for f, v in files.items() if v[2] == sid and v[0] == files[fid][0]
                      and part_of.get(f, ()) == part_of.get(fid, ())]
            if not merged:
                return None
            got: set[str] = set()
            for f in merged:
                r = runs_of(f, seen | {fid})
                if r is None:
                    return None
                got |= r
            return got

        lost_runs_table = any(files[f][0] == RUNS_TABLE for f in drop)
        records = _run_records(con, root, readable=not lost_runs_table)

        def run_sources(run_ids: Any, table: str) -> set[str]:
            got = set()
            for run_id in run_ids:
                for f in records.get(run_id, []):
                    n = (f.get("valid") or 0) + (f.get("invalid") or 0) if table == "games" else f.get("rejected") or 0
                    if n and f.get("path"):
                        got.add(f["path"])  # a run names its files as the rows do (source_text)
            return got

        for fid in gone:
            table = files[fid][0]
            if table not in ("games", "rejects"):
                continue
            runs = runs_of(fid)
            if runs is None or any(r not in records for r in runs):
                out.traced = False
                sources |= run_sources(records, "games") | run_sources(records, "rejects")
            else:
                sources |= run_sources(runs, table)
        out.sources = sorted(sources)

        # DuckLake's own record of a DELETE that removes every row of a file: the file ends at a new snapshot
        sid, schema_version, next_catalog_id, next_file_id = one(con.sql(
            f"SELECT snapshot_id, schema_version, next_catalog_id, next_file_id FROM {m}.ducklake_snapshot "
            f"WHERE snapshot_id = (SELECT max(snapshot_id) FROM {m}.ducklake_snapshot)"))
        new = int(sid) + 1
        table_ids = dict(con.sql(f"SELECT table_name, table_id FROM {m}.ducklake_table WHERE end_snapshot IS NULL").fetchall())
        changes = ",".join(f"deleted_from_table:{table_ids[t]}" for t in sorted({files[f][0] for f in drop}, key=lambda t: table_ids[t]))
        extra = {"status": "repair", "lost": [f.path for f in out.lost], "sources": out.sources, "traced": out.traced}
        con.execute(f"INSERT INTO {m}.ducklake_snapshot (snapshot_id, snapshot_time, schema_version, next_catalog_id, "
                    f"next_file_id) VALUES (?, NOW(), ?, ?, ?)", [new, schema_version, next_catalog_id, next_file_id])
        con.execute(f"INSERT INTO {m}.ducklake_snapshot_changes (snapshot_id, changes_made, author, commit_message, "
                    f"commit_extra_info) VALUES (?, ?, 'paipu', 'paipu check --repair', ?)",
                    [new, changes, json.dumps(extra, sort_keys=True)])
        ids = sorted(drop)
        n = one(con.execute(f"UPDATE {m}.ducklake_data_file SET end_snapshot = ? WHERE end_snapshot IS NULL AND "
                            f"data_file_id IN ({', '.join('?' * len(ids))})", [new, *ids]))[0]
        if n != len(ids):
            raise RuntimeError(f"another writer changed the files of {root} during the repair; nothing was changed: "
                               "run it again")
        con.execute("COMMIT")
    except BaseException:
        _rollback(con)
        raise
    out.snapshot = new
    dele = {d[0]: d[1] for d in deletes.values()}
    for f in ids:
        files_, rows = out.dropped.get(files[f][0], (0, 0))
        out.dropped[files[f][0]] = (files_ + 1, rows + files[f][4] - dele.get(f, 0))


def repair(root: Path | str) -> Repair:
    """Drop the rows of the files the warehouse's catalog lists that are missing or damaged, in one
    transaction, and name the input files to ingest again to write them back.

    DuckLake has no "forget this file", and its DELETE must read the rows it deletes — the lost
    file's cannot be read. So the repair writes into the catalog's own tables, in one transaction,
    what DuckLake itself writes for a DELETE that removes every row of a file: a new snapshot
    (tagged ``paipu check --repair``, with ``deleted_from_table`` changes) at which the file ends.
    Which rows a lost file held is unknown, and a game's rows lie in one file per table of its
    ``variant``/``month`` partition, so for a lost file of a game table every current file of every
    game table in that partition ends (no game is left in part); a lost ``rejects``, ``ingest_runs``
    or ``_writer`` file ends alone, and a lost delete file ends its data file. Then, in a commit of
    its own, ``_writer`` gets its row back if it lost it, and ``ingest_runs`` the rows of done runs
    it lost, from their JSON copies in ``_meta/ingest_runs/``.

    The sources: ``source_file`` of the dropped games and rejects read from the files still there,
    and for a lost ``games``/``rejects`` file those of the runs that wrote its rows (the snapshot
    that wrote it, through the files a compaction merged into it) as their run records list them;
    when that trail is gone (expired snapshots), every source on record.

    :raises CatalogError: the catalog cannot be opened.
    :raises RuntimeError: not a DuckLake warehouse, or the catalog changed during the repair.
    :raises WarehouseBusy: the catalog stays busy.
    """
    root = Path(root).absolute()
    catalog = catalog_of(root)
    if catalog is None:
        raise RuntimeError(f"{root} is not a DuckLake warehouse")
    with commit_turn(root, catalog, f"paipu check --repair (pid {os.getpid()})"):
        con = lake_db()
        con.execute("SET enable_progress_bar = false")
        try:
            retrying(lambda: attach(con, root, catalog, check_files=False))
            lost = lost_files(con, whole=True)
            if not lost:
                return Repair(lost)

            def attempt() -> Repair:
                r = Repair(lost)
                _repair_once(con, root, r)
                return r

            out = retrying(attempt, what="the repair")
        finally:
            con.close()
    out.restored = _restore(root, set(out.dropped))
    return out


def _restore(root: Path, dropped: set[str]) -> list[str]:
    """After a repair that dropped a file of ``_writer`` or ``ingest_runs`` (``dropped``: the
    tables): the row of ``_writer`` (every commit of rows updates it) and the rows of
    ``ingest_runs`` of done or interrupted runs whose JSON copy in ``_meta/ingest_runs/`` the table
    no longer holds, written back in one commit. Returns what was written, as notes."""
    if not dropped & {WRITER, RUNS_TABLE}:
        return []
    copies = []
    for path in sorted((root / META / "ingest_runs").glob("*.json")):
        try:
            rec = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if rec.get("status") in ("done", "interrupted") and rec.get("run_id"):
            copies.append(rec)
    notes: list[str] = []
    with Warehouse(root, check_pseudonym=False, run_id=f"repair-{os.getpid()}") as wh:
        con = wh.con
        assert con is not None
        have = set(con.sql(f"SELECT run_id, status FROM lake.{RUNS_TABLE}").fetchall())
        missing = [rec for rec in copies if (rec["run_id"], rec["status"]) not in have] if RUNS_TABLE in dropped else []
        writer = WRITER in dropped and wh.count(WRITER) == 0
        if not missing and not writer:
            return notes
        with wh.commit_turn(), wh.transaction("paipu check --repair: rows written back", {"status": "repair"},
                                              serialize=False):
            if writer:
                con.execute(f"INSERT INTO lake.{WRITER} VALUES (0, NULL)")
                notes.append(f"the row of {WRITER}")
            for rec in missing:
                wh.write_run(rec)
            if missing:
                notes.append(f"{len(missing)} row{'s' if len(missing) > 1 else ''} of {RUNS_TABLE} from the run "
                             f"records' copies in {META}/ingest_runs/")
    return notes


def has_rows(root: Path | str, tables: Sequence[str]) -> tuple[bool, ...]:
    """Whether each of ``tables`` holds a row in the latest snapshot, in one query (a cached read
    connection)."""
    cur = _reader(root, None).cursor()
    try:
        return tuple(bool(x) for x in one(cur.sql("SELECT " + ", ".join(
            f"EXISTS (SELECT 1 FROM {ident(t)})" for t in tables))))
    finally:
        cur.close()


def data_files(root: Path | str, table: str) -> list[Path]:
    """The Parquet data files the latest snapshot lists for ``table`` (``ducklake_list_files``), sorted."""
    cur = _reader(root, None).cursor()
    try:
        rows = cur.sql("SELECT data_file FROM ducklake_list_files('lake', ?)", params=[table]).fetchall()
    finally:
        cur.close()
    return sorted(Path(r[0]) for r in rows)


LEGACY = [*TABLES, RUNS_TABLE]
"""Folders of a plain-Parquet warehouse (the layout before DuckLake) that ``migrate`` converts."""
_LEGACY_META = ("journal.json", "sources.json", "compacted.json", "ingest.lock")


def legacy_layout(root: Path | str) -> bool:
    """True when ``root`` holds table folders of the plain-Parquet layout before DuckLake."""
    root = Path(root)
    return any(next((root / t).rglob("*.parquet"), None) is not None for t in LEGACY)


def migrate(root: Path | str) -> dict[str, int]:
    """Convert a warehouse of the plain-Parquet layout (``DIR/<table>/variant=…/month=…/*.parquet``,
    with or without month folders, compacted shards included; ``DIR/ingest_runs/*.parquet``) into
    DuckLake in place: one transaction inserts every row (``variant``/``month`` from the paths; a
    pre-month row gets its game's month as a fresh ingest would: ``started_at``, else
    ``ingested_at``; a reject its ``ingested_at`` month), then the old folders and the journal,
    lock, source and compaction lists go. A kill before the commit leaves the old warehouse as it
    was (rerun); after it, the rerun only removes the old folders.

    :returns: rows migrated per table (empty when there was nothing to migrate).
    :raises WarehouseBusy: the catalog stays busy.
    """
    from ingest.views import plain_views  # ingest.views builds on this module

    root = Path(root).absolute()
    if not legacy_layout(root):
        return {}
    with Warehouse(root, check_pseudonym=False, run_id=f"migrate-{os.getpid()}") as wh:
        con = wh.con
        assert con is not None
        done = one(con.sql("SELECT count(*) FROM lake.snapshots() WHERE commit_message = 'migrate'"))[0]
        counts: dict[str, int] = {}
        if not done:
            plain_views(con, root, prefix="legacy_")
            month = "strftime(timezone('UTC', {}), '%Y-%m')"
            with wh.commit_turn(), wh.transaction("migrate", {"run_id": wh.run_id, "status": "migrate"}):
                for table in TABLES:
                    cols = [f.name for f in TABLES[table]]
                    names = ", ".join(ident(c) for c in [*cols, PARTITION, MONTH])
                    sel = ", ".join(f"t.{ident(c)}" for c in [*cols, PARTITION])
                    if table == "games":
                        m = f"coalesce(t.month, {month.format('coalesce(t.started_at, t.ingested_at)')})"
                        src = "legacy_games t"
                    elif table == "rejects":
                        m = f"coalesce(t.month, {month.format('t.ingested_at')})"
                        src = "legacy_rejects t"
                    else:  # a child row takes its game's month
                        m = f"coalesce(t.month, {month.format('coalesce(g.started_at, g.ingested_at)')})"
                        src = f"legacy_{table} t LEFT JOIN legacy_games g USING (game_id)"
                    con.execute(f"INSERT INTO lake.{ident(table)} ({names}) SELECT {sel}, {m} FROM {src}")
                    counts[table] = wh.count(table)
                runs = sorted((root / RUNS_TABLE).glob("*.parquet"))
                if runs:
                    listed = "[" + ", ".join(lit(str(p)) for p in runs) + "]"
                    names = ", ".join(ident(f.name) for f in RUNS)
                    con.execute(f"INSERT INTO lake.{RUNS_TABLE} ({names}) SELECT {names} FROM "
                                f"read_parquet({listed}, union_by_name = true)")
                counts[RUNS_TABLE] = len(runs)
        for t in LEGACY:
            shutil.rmtree(root / t, ignore_errors=True)
        for name in _LEGACY_META:
            (root / META / name).unlink(missing_ok=True)
    return counts


def snapshots(root: Path | str) -> list[dict[str, Any]]:
    """The warehouse's DuckLake snapshots, oldest first: snapshot_id, snapshot_time, changes,
    commit_message, run_id (from the commit's extra info), and for an ingest run's data commit its
    status and counts (from ``ingest_runs``)."""
    from ingest.views import connect  # ingest.views builds on this module

    con = connect(root)
    try:
        snaps = con.sql("SELECT snapshot_id, snapshot_time, changes, commit_message, commit_extra_info "
                        "FROM lake.snapshots() ORDER BY snapshot_id").fetchall()
        runs = {r[0]: r for r in con.sql("SELECT run_id, status, n_files, read, valid, invalid, rejected, duplicate "
                                         "FROM ingest_runs").fetchall()}
    finally:
        con.close()
    out = []
    for sid, when, changes, message, extra in snaps:
        try:
            info = json.loads(extra) if extra else {}
        except ValueError:
            info = {}
        run = runs.get(info.get("run_id")) if info.get("status") == "done" else None
        out.append({"snapshot_id": sid, "snapshot_time": when, "changes": changes, "commit_message": message,
                    "run_id": info.get("run_id"), "run_status": run[1] if run else info.get("status"),
                    **({k: v for k, v in zip(("n_files", "read", "valid", "invalid", "rejected", "duplicate"),
                                             run[2:])} if run else {})})
    return out


def check_as_of(root: Path | str, snap: int | datetime) -> None:
    """Refuse an ``--as-of`` that no snapshot of the DuckLake warehouse at ``root`` answers: an id
    it does not hold, a time before its first snapshot (a warehouse without a catalog is left to
    :func:`ingest.views.connect` to refuse).

    :raises ValueError: why, naming the first and the last snapshot.
    """
    if catalog_of(root) is None:
        return
    snaps = snapshots(root)
    if not snaps:
        return

    def at(s: dict[str, Any]) -> str:
        return f"{s['snapshot_id']} ({s['snapshot_time'].astimezone(timezone.utc):%Y-%m-%d %H:%M:%S} UTC)"

    span = f"the first snapshot is {at(snaps[0])}, the last {at(snaps[-1])}; `paipu snapshots` lists them"
    if isinstance(snap, int):
        if snap not in {s["snapshot_id"] for s in snaps}:
            raise ValueError(f"no snapshot {snap}: {span}")
    elif snap < snaps[0]["snapshot_time"]:
        raise ValueError(f"{snap.astimezone(timezone.utc):%Y-%m-%d %H:%M:%S} UTC is before the first snapshot: {span}")


def parse_as_of(text: str) -> int | datetime:
    """``--as-of``'s value: a snapshot id (digits) or an ISO 8601 time (UTC when it has no offset).

    :raises ValueError: neither.
    """
    if text.strip().isdigit():
        return int(text)
    try:
        when = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(f"{text!r} is neither a snapshot id nor an ISO 8601 time (2026-12-01 or "
                         "2026-12-01T08:00:00+08:00); `paipu snapshots` lists them") from None
    return when if when.tzinfo else when.replace(tzinfo=timezone.utc)
