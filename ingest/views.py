"""A hardened, in-memory DuckDB over the Parquet warehouse (docs/warehouse.md).

``connect(dir)`` returns one root connection with one view per table of ``ingest.schema.TABLES``
(``games``, ``seats``, ``actions``, ``melds``, ``xing``, ``jing``, ``gezi``, ``rejects``) over
``<dir>/<table>/variant=*/month=*/*.parquet`` (absolute paths, ``hive_partitioning`` with both keys
typed VARCHAR, ``union_by_name``), with exactly the columns of the schema plus ``variant`` and
``month`` (``YYYY-MM``; a column that no shard has yet reads as a typed NULL).
Callers take ``con.cursor()`` per query (one connection shared by threads fails, stack.md).

A warehouse written before month partitions (shards directly in ``variant=<id>/``) still opens:
DuckDB refuses hive folders of mixed depth ("Hive partition mismatch"), so a table that holds such
a shard at ``connect`` is read from ``variant=*/**/*.parquet`` without hive partitioning, its
``variant`` and ``month`` parsed from each file's path (``month`` NULL for the old files; DuckDB
still skips files on a ``variant`` filter). That view keeps working while the next ingest or
``paipu compact`` moves the old shards into month folders (``ingest.warehouse``).

Hardening (checked with duckdb 2.0.1): file access is limited to the warehouse folder, external
access and extension auto-install/-load are off, and the configuration is locked, so reading
``/etc/passwd``, ``ATTACH``, ``INSTALL`` or changing a setting fail. DuckDB always allows its temp
folder too, by default ``<cwd>/.tmp`` (``COPY … TO`` and ``read_text`` would work there), so
each connection gets its own temp folder (created only when a query spills) inside a private
folder of this process (``paipu-duckdb-*`` in the system temp folder, mode 0700, removed at exit).
``COPY … TO`` a path inside the warehouse or that temp folder still works: run only this
project's SQL, never SQL text from users.

A shard that is, or lies below, a symlink leading outside the warehouse is skipped with an
``ingest.warehouse.OutsideShardWarning`` (DuckDB would refuse it and fail every query of its table):
that table's view then reads the list of its other shards as found at ``connect``.

A table whose folder has no shard yet gets an empty view with the right columns; it stays empty
until the next ``connect`` (the view of a table with shards re-globs at every query).
"""

from __future__ import annotations

import atexit
import itertools
import json
import shutil
import tempfile
from datetime import datetime
from pathlib import Path
from typing import Any

import duckdb

from ingest.schema import MONTH, OLD_SHARD_GLOB, PARTITION, RUNS, RUNS_TABLE, SHARD_GLOB, TABLES, duckdb_type
from ingest.warehouse import OutsideShardWarning, attach, catalog_of, lake_db

_PRIVATE: list[str] = []  # this process's private folder for DuckDB temp files (made on first use)
_SEQ = itertools.count()


def _temp_directory() -> str:
    """A fresh temp folder path for one connection, inside this process's private folder (mode
    0700, removed at exit). DuckDB creates it only when a query spills to disk."""
    if not _PRIVATE:
        _PRIVATE.append(tempfile.mkdtemp(prefix="paipu-duckdb-"))
        atexit.register(shutil.rmtree, _PRIVATE[0], True)
    return str(Path(_PRIVATE[0], f"c{next(_SEQ)}"))


def _inside(root: Path, files: list[Path]) -> tuple[list[Path], list[Path]]:
    """``files`` split into those inside ``root`` once symlinks are resolved, and the others
    (each warned about: DuckDB would refuse it and fail the whole query)."""
    import os
    import warnings

    base = os.path.realpath(root) + os.sep
    ok: list[Path] = []
    bad: list[Path] = []
    for f in files:
        real = os.path.realpath(f)
        if real.startswith(base) and os.path.isfile(real):
            ok.append(f)
        else:
            bad.append(f)
            warnings.warn(OutsideShardWarning(f, real), stacklevel=3)
    return ok, bad


def shard_files(root: Path, table: str, pattern: str) -> tuple[list[Path], list[Path]]:
    """The plain-Parquet files of ``table`` matching ``pattern`` (layout before DuckLake), sorted."""
    return _inside(root, sorted(Path(root, table).glob(pattern)))


def _lit(text: str) -> str:
    """A SQL string literal (DDL cannot take bound parameters)."""
    return "'" + text.replace("'", "''") + "'"


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def as_judged(line: str, rules_json: str | None) -> str:
    """A stored line as the ingest judged it: a record without a ``rules`` object gets the rule
    values it was played under (``games.rules_json``: the defaults, or the ingest's ``--rules``)."""
    if not rules_json:
        return line
    try:
        obj = json.loads(line)
    except ValueError:  # not a record: shown as stored
        return line
    if not isinstance(obj, dict) or "rules" in obj:
        return line
    obj["rules"] = json.loads(rules_json)
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


_READ = frozenset({duckdb.StatementType.SELECT, duckdb.StatementType.EXPLAIN})


def _read_only(query: Any) -> None:
    """Refuse a statement that is not a query: the read connection attaches nothing, writes nothing.

    :raises duckdb.PermissionException: naming the statement's type.
    """
    if not isinstance(query, str):
        return  # a relation or a prepared object: built from a query that passed here
    for st in duckdb.extract_statements(query):
        if st.type not in _READ:
            raise duckdb.PermissionException(f"the warehouse's read connection runs queries only, not {st.type.name}")


class ReadConnection:
    """A DuckDB connection (or cursor) that runs only queries (``SELECT``, ``EXPLAIN``): no ATTACH,
    no DML, no COPY, no SET, whatever SQL reaches it — DuckDB's own file limits do not cover an
    ATTACH of the SQLite catalog, which read-write would let a ``DELETE`` empty the warehouse.
    Everything else is the wrapped object's."""

    __slots__ = ("_con",)

    def __init__(self, con: Any) -> None:
        self._con = con

    def sql(self, query: Any, *args: Any, **kwargs: Any) -> Any:
        _read_only(query)
        return self._con.sql(query, *args, **kwargs)

    query = sql

    def execute(self, query: Any, *args: Any, **kwargs: Any) -> Any:
        _read_only(query)
        self._con.execute(query, *args, **kwargs)
        return self

    def executemany(self, query: Any, *args: Any, **kwargs: Any) -> Any:
        _read_only(query)
        self._con.executemany(query, *args, **kwargs)
        return self

    def cursor(self) -> "ReadConnection":
        return ReadConnection(self._con.cursor())

    def __getattr__(self, name: str) -> Any:
        return getattr(self._con, name)

    def __enter__(self) -> "ReadConnection":
        return self

    def __exit__(self, *exc: Any) -> None:
        self._con.close()


def connect(warehouse_dir: Path | str, *, threads: int | None = None,
            snapshot: int | datetime | None = None) -> ReadConnection:
    """Open the warehouse in a hardened in-memory DuckDB (views only; see the module docstring).

    :param warehouse_dir: the warehouse folder (as written by ``paipu ingest``).
    :param threads: DuckDB worker threads (default: DuckDB's choice).
    :param snapshot: read the warehouse as it was at this DuckLake snapshot id, or at this time
        (the last snapshot committed by then); None for the latest.
    :returns: the root connection, that runs queries only (:class:`ReadConnection`); take ``cursor()`` per query.
    :raises FileNotFoundError: the folder does not exist.
    :raises ValueError: the folder's path holds glob characters (``*?[]{}``) that would change
        what the views read, or a folder named like a partition (``variant=…``, ``month=…``: DuckDB's
        hive scan would take its value for every row).
    """
    root = Path(warehouse_dir).resolve()
    if not root.is_dir():
        raise FileNotFoundError(f"no warehouse folder at {warehouse_dir}")
    if any(ch in str(root) for ch in "*?[]{}"):
        raise ValueError(f"warehouse path {root} holds glob characters; move or rename it")
    if any(part.partition("=")[0] in (PARTITION, MONTH) for part in root.parts if "=" in part):
        raise ValueError(f"warehouse path {root} holds a folder named like a partition ({PARTITION}=…, "
                         f"{MONTH}=…); move or rename it")
    con = lake_db()
    con.execute(f"SET temp_directory = {_lit(_temp_directory())}")  # never <cwd>/.tmp (see the docstring)
    if threads:
        con.execute(f"SET threads = {int(threads)}")
    catalog = catalog_of(root)
    if catalog is not None:
        return ReadConnection(_lake_views(con, root, catalog, snapshot))
    if snapshot is not None:
        raise ValueError(f"{root} is not a DuckLake warehouse: it has no snapshots (paipu migrate)")
    # Parquet footers read once per connection, not on every query (the dashboards ask dozens of
    # queries of one connection)
    con.execute("SET parquet_metadata_cache = true")
    # trailing "/": name the folder itself, never a prefix (/wh must not allow /wh2; 2.0.1 already
    # refuses it, tests/test_analytics.py checks it stays so)
    con.execute(f"SET allowed_directories = [{_lit(str(root) + '/')}]")
    con.execute("SET enable_external_access = false")
    plain_views(con, root)
    con.execute("SET lock_configuration = true")
    return ReadConnection(con)


def plain_views(con: duckdb.DuckDBPyConnection, root: Path, prefix: str = "") -> None:
    """Views ``<prefix><table>`` over a plain-Parquet warehouse (the layout before DuckLake, with
    or without month folders: see the module docstring); ``paipu migrate`` reads through them."""
    for table, schema in TABLES.items():
        new_ok, new_bad = shard_files(root, table, SHARD_GLOB)
        old_ok, old_bad = shard_files(root, table, OLD_SHARD_GLOB)
        old = bool(old_ok)
        # a skipped shard: the files found now, by name, instead of the glob that would meet it
        listed = "[" + ", ".join(_lit(str(f)) for f in [*new_ok, *old_ok]) + "]" if new_bad or old_bad else None
        if old or new_ok:
            if old:  # pre-month layout (or mid-migration): partitions from the path, see the docstring
                glob = listed or _lit(f"{root}/{table}/{PARTITION}=*/**/*.parquet")
                src = f"read_parquet({glob}, hive_partitioning = false, union_by_name = true, filename = true)"
                # anchored at the file's end: the warehouse's own path may hold "/month=" too
                pats = {PARTITION: f"/{PARTITION}=([^/]*)/(?:{MONTH}=[^/]*/)?[^/]*$",
                        MONTH: f"/{MONTH}=([^/]*)/[^/]*$"}
                keys = ", ".join(f"NULLIF(regexp_extract(filename, {_lit(pat)}, 1), '') AS {k}" for k, pat in pats.items())
            else:
                glob = listed or _lit(f"{root}/{table}/{SHARD_GLOB}")
                src = (f"read_parquet({glob}, hive_partitioning = true, union_by_name = true, "
                       f"hive_types = {{'{PARTITION}': VARCHAR, '{MONTH}': VARCHAR}})")
                keys = f"{PARTITION}, {MONTH}"
            have = {r[0] for r in con.sql(f"DESCRIBE SELECT * FROM {src}").fetchall()}
            # a column no shard has yet (older shards, newer schema) reads as a typed NULL
            cols = ", ".join(_ident(f.name) if f.name in have else
                             f"CAST(NULL AS {duckdb_type(f.type)}) AS {_ident(f.name)}" for f in schema)
            con.execute(f"CREATE VIEW {_ident(prefix + table)} AS SELECT {cols}, {keys} FROM {src}")
        else:
            cols = ", ".join(f"CAST(NULL AS {duckdb_type(f.type)}) AS {_ident(f.name)}" for f in schema)
            con.execute(f"CREATE VIEW {_ident(prefix + table)} AS SELECT {cols}, CAST(NULL AS VARCHAR) AS {PARTITION}, "
                        f"CAST(NULL AS VARCHAR) AS {MONTH} WHERE false")


def _lake_views(con: duckdb.DuckDBPyConnection, root: Path, catalog: str,
                snapshot: int | datetime | None) -> duckdb.DuckDBPyConnection:
    """The views over a DuckLake warehouse: its catalog attached read-only (``lake``), one view per
    table with exactly the schema's columns plus ``variant`` and ``month``; ``ingest_runs`` holds
    the latest row of each run. Then the same hardening as for plain Parquet."""
    con.execute("SET parquet_metadata_cache = true")
    attach(con, root, catalog, read_only=True, snapshot=snapshot)
    have: dict[str, set[str]] = {}
    for t, col in con.sql("SELECT table_name, column_name FROM duckdb_columns() WHERE database_name = 'lake'").fetchall():
        have.setdefault(t, set()).add(col)
    for table, schema in [*TABLES.items(), (RUNS_TABLE, RUNS)]:
        keys = [] if table == RUNS_TABLE else [PARTITION, MONTH]
        if table not in have:  # a snapshot from before the table was made
            cols = ", ".join(f"CAST(NULL AS {duckdb_type(f.type) if f.type in _TYPES else 'VARCHAR'}) AS {_ident(f.name)}"
                             for f in schema)
            cols += "".join(f", CAST(NULL AS VARCHAR) AS {k}" for k in keys)
            con.execute(f"CREATE VIEW {_ident(table)} AS SELECT {cols} WHERE false")
            continue
        cols = ", ".join(_ident(f.name) if f.name in have[table] else
                         f"CAST(NULL AS {duckdb_type(f.type)}) AS {_ident(f.name)}" for f in schema)
        cols += "".join(f", {k}" for k in keys)
        src = f"lake.{_ident(table)}"
        if table == RUNS_TABLE:  # a run has a `running` row, then its `done` one: the latest counts
            src = (f"(SELECT * FROM {src} QUALIFY row_number() OVER (PARTITION BY run_id ORDER BY "
                   "status = 'running', finished_at DESC NULLS LAST) = 1)")
        con.execute(f"CREATE VIEW {_ident(table)} AS SELECT {cols} FROM {src}")
    if catalog.startswith("sqlite:"):
        con.execute(f"SET allowed_directories = [{_lit(str(root) + '/')}]")
        con.execute("SET enable_external_access = false")
    con.execute("SET lock_configuration = true")
    return con


_TYPES = {f.type for s in TABLES.values() for f in s}
