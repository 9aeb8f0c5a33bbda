"""Writing the Parquet warehouse safely (docs/warehouse.md, shared/notes/stack.md).

Layout: ``ROOT/<table>/variant=<id>/<content>-<part>.parquet`` plus ``ROOT/_meta/``.

How a run writes (stack.md's safe pattern):

- Rows are buffered per input file, table and variant; a buffer over :data:`SHARD_BYTES` is
  written as one shard into a *staging* folder next to the warehouse (``.<name>.staging-<pid>``
  in its parent), never inside it: DuckDB and polars globs read ``.``/``_`` files too.
- When a file is done, its shards are ``os.replace``-d into place under deterministic names
  ``<first 20 hex of the SHA-256 of the file's decompressed content>-<part:04d>.parquet``, then
  shards with the same content prefix that this run did not write are removed.
- Re-ingesting the same content therefore replaces its shards instead of adding rows (the same
  content under two paths is stored once). ``_meta/sources.json`` remembers which content each
  path had: when a path comes back with different content (a log that grew), the old content's
  shards are removed unless another known path still has that content.
- ``_meta/ingest.lock`` (``flock``) keeps two ingests out of one warehouse; each run leaves
  ``_meta/ingest_runs/<run_id>.json``.

Not atomic across files: a reader that queries during a commit may see a file's old and new
shards mixed for a moment.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ingest.schema import PARTITION, TABLES

SHARD_BYTES = 64 << 20
"""In-memory size of a table buffer that is written out as one shard."""
PREFIX_LEN = 20
META = "_meta"


def shard_name(content_sha256: str, part: int) -> str:
    """File name of shard ``part`` of a file whose decompressed content has this SHA-256."""
    return f"{content_sha256[:PREFIX_LEN]}-{part:04d}.parquet"


class WarehouseBusy(RuntimeError):
    """Another ingest holds the warehouse lock."""


def _atomic_json(obj: Any, dest: Path, staging: Path) -> None:
    tmp = staging / f"{dest.name}.tmp"
    tmp.write_text(json.dumps(obj, ensure_ascii=False, indent=1, sort_keys=True, default=str), encoding="utf-8")
    dest.parent.mkdir(parents=True, exist_ok=True)
    os.replace(tmp, dest)


class Warehouse:
    """A warehouse folder opened for writing by one ingest run (a context manager).

    :param root: the warehouse folder (created if missing).
    :raises WarehouseBusy: on enter, when another ingest writes the same warehouse.
    :raises OSError: on enter, when the folder or the staging folder beside it cannot be made.
    """

    def __init__(self, root: Path | str) -> None:
        self.root = Path(root).absolute()
        self.staging = self.root.parent / f".{self.root.name}.staging-{os.getpid()}"
        self._lock_fh: Any = None
        self.shards: dict[str, set[Path]] = {}  # content prefix -> shard files in place
        self.sources: dict[str, dict[str, Any]] = {}  # source path -> what was ingested from it

    def __enter__(self) -> "Warehouse":
        (self.root / META).mkdir(parents=True, exist_ok=True)
        self._lock_fh = open(self.root / META / "ingest.lock", "a")
        try:
            fcntl.flock(self._lock_fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._lock_fh.close()
            raise WarehouseBusy(f"another ingest is writing {self.root}") from None
        # holding the lock, any staging folder of this warehouse is a crashed run's leftover
        for old in self.root.parent.glob(f".{self.root.name}.staging-*"):
            shutil.rmtree(old, ignore_errors=True)
        self.staging.mkdir(parents=True)
        for t in TABLES:
            for f in (self.root / t).glob(f"{PARTITION}=*/*.parquet"):
                self.shards.setdefault(f.name.split("-", 1)[0], set()).add(f)
        src = self.root / META / "sources.json"
        if src.exists():
            self.sources = json.loads(src.read_text(encoding="utf-8")).get("sources", {})
        return self

    def __exit__(self, *exc: Any) -> None:
        shutil.rmtree(self.staging, ignore_errors=True)
        if self._lock_fh is not None:
            fcntl.flock(self._lock_fh, fcntl.LOCK_UN)
            self._lock_fh.close()

    def file(self, file_index: int) -> "FileShards":
        """A buffer for the rows of input file number ``file_index`` of this run."""
        return FileShards(self, file_index)

    def _remove_prefix(self, prefix: str, keep: set[Path]) -> int:
        gone = 0
        for f in sorted(self.shards.get(prefix, set()) - keep):
            f.unlink(missing_ok=True)
            gone += 1
        self.shards[prefix] = set(keep)
        return gone

    def commit(self, shards: "FileShards", source: str, content_sha256: str, info: dict[str, Any]) -> int:
        """Move a file's staged shards into place and drop stale ones (see the module docstring).

        :param info: what to remember about ``source`` in ``_meta/sources.json`` (counts, …).
        :returns: the number of stale shard files removed.
        """
        prefix = content_sha256[:PREFIX_LEN]
        placed: set[Path] = set()
        for table, variant, part, staged in shards.staged:
            dest = self.root / table / f"{PARTITION}={variant}" / shard_name(content_sha256, part)
            dest.parent.mkdir(parents=True, exist_ok=True)
            os.replace(staged, dest)
            placed.add(dest)
        removed = self._remove_prefix(prefix, placed)
        old = self.sources.get(source, {}).get("sha256")
        if old and old[:PREFIX_LEN] != prefix and not any(
                s.get("sha256", "")[:PREFIX_LEN] == old[:PREFIX_LEN] for p, s in self.sources.items() if p != source):
            removed += self._remove_prefix(old[:PREFIX_LEN], set())
        self.sources[source] = {"sha256": content_sha256, **info}
        _atomic_json({"sources": self.sources}, self.root / META / "sources.json", self.staging)
        return removed

    def write_run(self, run_id: str, record: dict[str, Any]) -> Path:
        """Store ``record`` as ``_meta/ingest_runs/<run_id>.json``; returns its path."""
        dest = self.root / META / "ingest_runs" / f"{run_id}.json"
        _atomic_json(record, dest, self.staging)
        return dest


@dataclass
class FileShards:
    """Rows of one input file on their way into the warehouse (buffered, then staged)."""

    wh: Warehouse
    file_index: int
    buffers: dict[tuple[str, str], list[pa.Table]] = field(default_factory=dict)
    sizes: dict[tuple[str, str], int] = field(default_factory=dict)
    parts: dict[tuple[str, str], int] = field(default_factory=dict)
    staged: list[tuple[str, str, int, Path]] = field(default_factory=list)
    rows: dict[str, int] = field(default_factory=dict)

    def add(self, tables: dict[str, pa.Table]) -> None:
        """Buffer tables of :data:`~ingest.schema.TABLES` that carry a ``variant`` column."""
        for table, t in tables.items():
            col = t.column(PARTITION)
            variants = pc.unique(col).to_pylist()
            for v in sorted(variants):
                part = t if len(variants) == 1 else t.filter(pc.equal(col, v))
                key = (table, v)
                self.buffers.setdefault(key, []).append(part.drop_columns([PARTITION]))
                self.sizes[key] = self.sizes.get(key, 0) + part.nbytes
                self.rows[table] = self.rows.get(table, 0) + part.num_rows
                if self.sizes[key] >= SHARD_BYTES:
                    self._flush(key)

    def _flush(self, key: tuple[str, str]) -> None:
        bufs = self.buffers.pop(key, [])
        self.sizes.pop(key, None)
        if not bufs:
            return
        table, variant = key
        part = self.parts.get(key, 0)
        self.parts[key] = part + 1
        staged = self.wh.staging / f"{table}.{variant}.{self.file_index}.{part:04d}.parquet"
        pq.write_table(pa.concat_tables(bufs), staged, compression="zstd")
        self.staged.append((table, variant, part, staged))

    def close(self) -> None:
        """Write every remaining buffer to staging."""
        for key in sorted(self.buffers):
            self._flush(key)
