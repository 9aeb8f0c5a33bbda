"""Writing the Parquet warehouse safely (docs/warehouse.md, shared/notes/stack.md).

Layout: ``ROOT/<table>/variant=<id>/month=<YYYY-MM>/<source>-<part>.parquet``,
``ROOT/ingest_runs/<run_id>.parquet`` and ``ROOT/_meta/``. A row's month is its game's
``started_at`` month, else the ingest month (``ingest.rows.month_of``): all rows of a game share
one ``variant=``/``month=`` folder.

How a run writes (stack.md's safe pattern):

- Rows are buffered per input file, table, variant and month; a buffer over :data:`SHARD_BYTES` is
  written as one shard into a *staging* folder next to the warehouse (``.<name>.staging-<pid>``
  in its parent), never inside it: DuckDB and polars globs read ``.``/``_`` files too.
- Shard names are deterministic: ``<first 20 hex of the SHA-256 of the input file's absolute
  path>-<part:04d>.parquet`` (parts are numbered per table, variant and month). A file's shards
  replace, as a whole and in every month folder, what its path stored before: re-ingesting a file
  (the same content, or a log that grew, or a month later) never adds rows twice.
- Commit of a file (:meth:`Warehouse.commit`): first a journal ``_meta/journal.json`` lists the
  moves, the removals and the new ``_meta/sources.json``; then the staged shards are
  ``os.replace``-d into place (each rename is atomic: a reader sees an old or a new file, never
  a torn one), stale shards of that path are removed, ``sources.json`` is replaced, and the
  journal is deleted. A run killed in the middle leaves the journal and its staging folder; the
  next run that opens the warehouse finishes the commit first (roll forward), then removes
  leftover staging folders. Rerunning the same ingest completes the rest.
- ``_meta/ingest.lock`` (``flock``, released by the kernel when a process dies) keeps two
  ingests (or an ingest and ``paipu compact``) out of one warehouse; the holder writes what it is
  (command, pid, host, since) into it, and one kept out says so.
- A shard that is, or lies below, a symlink leading outside the warehouse is skipped with an
  :class:`OutsideShardWarning` by every reader (:func:`shard_files`) and by ``compact``.
- Every run leaves ``_meta/ingest_runs/<run_id>.json`` (status ``running`` until it ends; a run
  found still ``running`` by the next one was killed and is marked ``interrupted``) and one row
  in the ``ingest_runs`` table.
- ``_meta/pseudonym.json`` records whether player ids are pseudonymized and with which salt
  (a fingerprint): a warehouse never mixes plain ids and pseudonyms, or two salts.
- A warehouse written before month partitions (shards directly in ``variant=<id>/``) is migrated
  when it is opened (:meth:`Warehouse.migrate`, one journal per variant): each shard is split into
  month folders under its own name, child rows following their game's month.

Not atomic across files and tables: while a commit runs (or after a kill in one, until the next
ingest rolls it forward) a reader may see part of one file's rows — never a game twice.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import platform
import shutil
import warnings
from datetime import datetime, timezone
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ingest.schema import MONTH, OLD_SHARD_GLOB, PARTITION, RUNS, RUNS_TABLE, SHARD_GLOB, TABLES

SHARD_BYTES = 64 << 20
"""In-memory size of a table buffer that is written out as one shard."""
FILE_BUFFER_BYTES = 256 << 20
"""Most rows one input file keeps buffered, all tables and variants together: over it, the
biggest buffer is written out early (memory stays flat however many variants a file mixes)."""
COMPACT_BYTES = 64 << 20
"""``paipu compact`` merges shards smaller than this (on disk) into files of about this size."""
SRC = "_src"
"""Private column of compacted shards: the source prefix each row came from (views never show it)."""
PREFIX_LEN = 20
META = "_meta"
JOURNAL = "journal.json"


def source_prefix(source: str) -> str:
    """Shard-name prefix of an input file: the first 20 hex of the SHA-256 of its absolute path."""
    return hashlib.sha256(source.encode("utf-8", "surrogateescape")).hexdigest()[:PREFIX_LEN]


def shard_name(prefix: str, part: int) -> str:
    """File name of shard ``part`` of the input file with this :func:`source_prefix`."""
    return f"{prefix[:PREFIX_LEN]}-{part:04d}.parquet"


class WarehouseBusy(RuntimeError):
    """Another ingest or a compaction holds the warehouse lock (the message names which)."""


class OutsideShardWarning(UserWarning):
    """A shard file that is, or lies below, a symlink to a place outside the warehouse (or a
    dangling one): skipped by every reader and by ``compact``. ``path``: the shard as found;
    ``target``: where it leads."""

    def __init__(self, path: Path, target: str) -> None:
        super().__init__(f"skipping {path}: a symlink to {target}, outside the warehouse (or missing)")
        self.path = path
        self.target = target


def inside(root: Path | str, files: Any) -> tuple[list[Path], list[Path]]:
    """``files`` split into those that are files inside ``root`` once every symlink is resolved,
    and the others (each warned about with :class:`OutsideShardWarning`). DuckDB refuses a file
    outside its allowed folder and fails the whole query; pyarrow would read it silently."""
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


def shard_files(root: Path | str, table: str, pattern: str = SHARD_GLOB) -> tuple[list[Path], list[Path]]:
    """The shard files of ``table`` matching ``pattern`` (sorted): ``(inside, skipped)`` as :func:`inside`."""
    return inside(root, sorted(Path(root, table).glob(pattern)))


class WarehouseMismatch(RuntimeError):
    """The run's pseudonymization does not match what the warehouse already holds."""


def _busy(root: Path, lock: Path) -> str:
    """The message for a warehouse whose lock is held: what holds it, from the lock file."""
    try:
        who = json.loads(lock.read_text(encoding="utf-8"))
        what, pid, host, since = who["purpose"], who["pid"], who["host"], who["since"]
    except (OSError, ValueError, KeyError, TypeError):  # written by an older paipu, or being written
        return f"another ingest or a compaction is writing {root} (it holds {lock})"
    kind = "a compaction" if what == "compact" else "another ingest"
    return f"{kind} is writing {root}: paipu {what}, pid {pid} on {host}, since {since} (it holds {lock})"


def _atomic_json(obj: Any, dest: Path, staging: Path) -> None:
    tmp = staging / f"{dest.name}.tmp"
    text = json.dumps(obj, ensure_ascii=False, indent=1, sort_keys=True, default=str)
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:  # a file name that is not UTF-8: JSON's \u escapes keep it exactly
        data = json.dumps(obj, ensure_ascii=True, indent=1, sort_keys=True, default=str).encode("ascii")
    tmp.write_bytes(data)
    dest.parent.mkdir(parents=True, exist_ok=True)
    os.replace(tmp, dest)


def table_of(shard: Path) -> str:
    """The table a shard file belongs to (the folder above its ``variant=`` folder), either layout."""
    return next(p.parent.name for p in shard.parents if p.name.startswith(f"{PARTITION}="))


def _partitions(shard: Path) -> dict[str, str | None]:
    """``{"variant": …, "month": …}`` of a shard from its path (month None in the pre-month layout)."""
    keys: dict[str, str | None] = {PARTITION: None, MONTH: None}
    for p in (shard.parent, shard.parent.parent):
        k, eq, v = p.name.partition("=")
        if eq and k in keys and keys[k] is None:
            keys[k] = v
    return keys


def _months(t: pa.Table) -> pa.Array:
    """``YYYY-MM`` (UTC) of ``started_at``, else ``ingested_at``, for each row of a ``games`` table
    (vectorised ``ingest.rows.month_of``; null where a shard has neither)."""
    ts_type = TABLES["games"].field("ingested_at").type
    ts = pc.coalesce(*[t.column(c).cast(ts_type) if c in t.column_names else pa.nulls(t.num_rows, ts_type)
                       for c in ("started_at", "ingested_at")])

    def pad(a: Any, width: int) -> Any:
        return pc.utf8_lpad(pc.cast(a, pa.string()), width=width, padding="0")

    return pc.binary_join_element_wise(pad(pc.year(ts), 4), pad(pc.month(ts), 2), "-").combine_chunks()


def is_compacted(name: str) -> bool:
    """True for the file name of a compacted shard (``c<16 hex>-<part>.parquet``)."""
    head = name.split("-", 1)[0]
    return len(head) == 17 and head[0] == "c"


def _apply(root: Path, journal: dict[str, Any], staging: Path) -> None:
    """Carry out a commit journal; every step may be repeated (roll forward after a kill).

    Removals come first and moves after, in the journal's order: while it runs a reader may miss
    some rows for a moment, never see one twice.
    """
    for rel in journal["remove"]:
        (root / rel).unlink(missing_ok=True)
    for src, dest in journal["moves"]:
        s, d = Path(src), root / dest
        if s.exists():
            d.parent.mkdir(parents=True, exist_ok=True)
            os.replace(s, d)
    if "sources" in journal:
        _atomic_json({"sources": journal["sources"]}, root / META / "sources.json", staging)
    if "compacted" in journal:
        _atomic_json({"compacted": journal["compacted"]}, root / META / "compacted.json", staging)


def _conform(t: pa.Table, schema: pa.Schema) -> pa.Table:
    """``t`` with exactly ``schema``'s columns (a column it lacks, e.g. from an older shard, as nulls)."""
    cols = [t.column(f.name).cast(f.type) if f.name in t.column_names else pa.nulls(t.num_rows, f.type)
            for f in schema]
    return pa.Table.from_arrays(cols, schema=schema)


class Warehouse:
    """A warehouse folder opened for writing by one ingest run (a context manager).

    :param root: the warehouse folder (created if missing).
    :param pseudonym: the salt fingerprint of this run (``Pseudonymizer.fingerprint``), or None
        for plain player ids.
    :param purpose: what holds the lock (``ingest`` or ``compact``): written into the lock file, so
        a process kept out names it.
    :raises WarehouseBusy: on enter, when another ingest or a compaction writes the same warehouse
        (the message names it: command, pid, host, since when).
    :raises WarehouseMismatch: on enter, when the warehouse holds rows written with another
        pseudonymization.
    :raises OSError: on enter, when the folder or the staging folder beside it cannot be made.
    """

    def __init__(self, root: Path | str, pseudonym: str | None = None, *, check_pseudonym: bool = True,
                 purpose: str = "ingest") -> None:
        self.root = Path(root).absolute()
        self.purpose = purpose
        self.staging = self.root.parent / f".{self.root.name}.staging-{os.getpid()}"
        self.pseudonym = pseudonym
        self.check_pseudonym = check_pseudonym
        self.compacted: dict[str, list[str]] = {}  # compacted shard (relative path) -> source prefixes in it
        self._lock_fh: Any = None
        self.shards: dict[str, set[Path]] = {}  # source prefix -> shard files in place
        self.sources: dict[str, dict[str, Any]] = {}  # source path -> what was ingested from it
        self.recovered: list[str] = []  # what opening repaired (journal rolled forward, runs marked)

    def __enter__(self) -> "Warehouse":
        (self.root / META).mkdir(parents=True, exist_ok=True)
        lock = self.root / META / "ingest.lock"
        self._lock_fh = open(lock, "a+", encoding="utf-8")
        try:
            fcntl.flock(self._lock_fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._lock_fh.close()
            raise WarehouseBusy(_busy(self.root, lock)) from None
        # who holds it, for the message of the next one kept out (the flock itself is the lock)
        self._lock_fh.truncate(0)
        self._lock_fh.write(json.dumps({"purpose": self.purpose, "pid": os.getpid(), "host": platform.node(),
                                        "since": datetime.now(timezone.utc).isoformat(timespec="seconds")}))
        self._lock_fh.flush()
        try:
            self._open()
        except BaseException:
            self._release()
            raise
        return self

    def _open(self) -> None:
        self.staging.mkdir(parents=True, exist_ok=True)
        journal = self.root / META / JOURNAL
        if journal.exists():  # a run was killed inside a commit: finish it
            _apply(self.root, json.loads(journal.read_text(encoding="utf-8")), self.staging)
            journal.unlink()
            self.recovered.append("finished an interrupted commit")
        # holding the lock, any other staging folder of this warehouse is a killed run's leftover
        for old in self.root.parent.glob(f".{self.root.name}.staging-*"):
            if old != self.staging:
                shutil.rmtree(old, ignore_errors=True)
        src = self.root / META / "sources.json"
        if src.exists():
            self.sources = json.loads(src.read_text(encoding="utf-8")).get("sources", {})
        comp = self.root / META / "compacted.json"
        if comp.exists():
            self.compacted = json.loads(comp.read_text(encoding="utf-8")).get("compacted", {})
        moved = self.migrate()
        if moved:
            self.recovered.append(f"moved {moved} shard files of the layout before month partitions "
                                  "into month folders")
        self._scan()
        if self.check_pseudonym:
            self._check_pseudonym()
        for f in sorted((self.root / META / "ingest_runs").glob("*.json")):
            rec = json.loads(f.read_text(encoding="utf-8"))
            row = self.root / RUNS_TABLE / f"{f.stem}.parquet"
            if rec.get("status") == "running":
                if row.exists() and pq.read_table(row, columns=["status"]).column(0)[0].as_py() == "done":
                    rec["status"] = "done"  # killed after its row, before its JSON: it did finish
                    _atomic_json(rec, f, self.staging)
                    continue
                rec["status"] = "interrupted"
                self.write_run(rec["run_id"], rec)
                self.recovered.append(f"marked run {rec['run_id']} interrupted")
            elif not row.exists():  # killed between the two writes of a finished record
                self.write_run(rec["run_id"], rec)

    def _scan(self) -> None:
        """Index the (not compacted) shards in place by source prefix."""
        self.shards = {}
        for t in TABLES:
            for f in shard_files(self.root, t)[0]:
                if not is_compacted(f.name):
                    self.shards.setdefault(f.name.split("-", 1)[0], set()).add(f)

    def migrate(self) -> int:
        """Move shards of the layout before month partitions (``<table>/variant=<id>/<name>``) into
        ``<table>/variant=<id>/month=<YYYY-MM>/<name>`` (see the module docstring).

        A shard is split by month under its own name: ``games`` rows by ``started_at``, else
        ``ingested_at``; ``rejects`` by the ``started_at`` of their ``raw`` line when it parses,
        else ``ingested_at``; every other table's rows by the month of their game's row, looked up
        among the games of the same sources (a row whose game is missing goes to the month its file
        was last written). Compacted shards keep their rows' ``_src`` and ``_meta/compacted.json``
        follows them. One journal per variant: a kill is rolled forward by the next open.

        :returns: the number of old shard files moved (0 when there is none).
        """
        from ingest.rows import month_of, parse_started_at

        moved = 0
        for vname in sorted({f.parent.name for t in TABLES for f in shard_files(self.root, t, OLD_SHARD_GLOB)[0]}):
            olds = [(t, f) for t in TABLES
                    for f in inside(self.root, sorted((self.root / t / vname).glob("*.parquet")))[0]]

            def sources(f: Path) -> list[str]:  # the source prefixes whose rows a shard holds
                rel = f.relative_to(self.root).as_posix()
                return self.compacted.get(rel, []) if is_compacted(f.name) else [f.name.split("-", 1)[0]]

            # game_id → month per source: a game's child rows come from the same source file, so each
            # lookup stays as small as one source (one lookup over a whole variant costs seconds a file)
            games: dict[str, list[tuple[pa.Array, pa.Array]]] = {}
            for f in (f for t, f in olds if t == "games"):
                names = pq.read_schema(f).names
                g = pq.read_table(f, columns=[c for c in ("game_id", "started_at", "ingested_at") if c in names])
                for src in sources(f):
                    games.setdefault(src, []).append((g.column("game_id").combine_chunks(), _months(g)))
            moves: list[list[str]] = []
            removes: list[str] = []
            compacted = dict(self.compacted)
            for table, f in olds:
                t = pq.read_table(f)
                if table == "games":
                    m = _months(t)
                elif table == "rejects":
                    raws, ats = (t.column(c).to_pylist() if c in t.column_names else [None] * t.num_rows
                                 for c in ("raw", "ingested_at"))
                    m = pa.array([month_of(parse_started_at(_raw_started_at(raw)), at) if at else None
                                  for raw, at in zip(raws, ats)], pa.string())
                else:
                    pairs = [pair for src in sources(f) for pair in games.get(src, [])]
                    ids = pa.concat_arrays([i for i, _ in pairs]) if pairs else pa.array([], pa.string())
                    months = pa.concat_arrays([mo for _, mo in pairs]) if pairs else pa.array([], pa.string())
                    m = pc.take(months, pc.index_in(t.column("game_id"), value_set=ids))
                m = pc.fill_null(m, month_of(None, datetime.fromtimestamp(f.stat().st_mtime, timezone.utc)))
                rel = f.relative_to(self.root).as_posix()
                members = compacted.pop(rel, None)
                for (month,), part in _split(t.append_column(MONTH, m), MONTH):
                    staged = self.staging / f"migrate.{len(moves)}.parquet"
                    pq.write_table(part.drop_columns([MONTH]), staged, compression="zstd")
                    dest = (f.parent / f"{MONTH}={month}" / f.name).relative_to(self.root).as_posix()
                    moves.append([str(staged), dest])
                    if members is not None:
                        compacted[dest] = sorted(set(part.column(SRC).to_pylist()))
                removes.append(rel)
            self._journal({"moves": moves, "remove": removes, "compacted": compacted})
            self.compacted = compacted
            moved += len(removes)
        return moved

    def _journal(self, journal: dict[str, Any]) -> None:
        """Write ``journal``, carry it out and delete it (a kill in between is rolled forward)."""
        jpath = self.root / META / JOURNAL
        _atomic_json(journal, jpath, self.staging)
        _apply(self.root, journal, self.staging)
        jpath.unlink()

    def _check_pseudonym(self) -> None:
        path = self.root / META / "pseudonym.json"
        have = json.loads(path.read_text(encoding="utf-8")) if path.exists() else None
        want = {"fingerprint": self.pseudonym}
        if have is None:
            if (self.shards or self.compacted) and self.pseudonym is not None:
                raise WarehouseMismatch(f"{self.root} holds plain player ids; pseudonymize into a new warehouse")
            _atomic_json(want, path, self.staging)
        elif have.get("fingerprint") != self.pseudonym:
            what = ("plain player ids" if have.get("fingerprint") is None
                    else f"player ids pseudonymized with another salt (fingerprint {have['fingerprint']})")
            mine = "with this salt" if self.pseudonym else "without --pseudonymize"
            raise WarehouseMismatch(f"{self.root} holds {what}; refusing to add rows {mine}")

    def _release(self) -> None:
        shutil.rmtree(self.staging, ignore_errors=True)
        if self._lock_fh is not None:
            fcntl.flock(self._lock_fh, fcntl.LOCK_UN)
            self._lock_fh.close()
            self._lock_fh = None

    def __exit__(self, *exc: Any) -> None:
        self._release()

    def file(self, file_index: int) -> "FileShards":
        """A buffer for the rows of input file number ``file_index`` of this run."""
        return FileShards(self, file_index)

    def commit(self, shards: "FileShards", source: str, content_sha256: str | None = None,
               info: dict[str, Any] | None = None) -> int:
        """Move a file's staged shards into place and drop its stale ones (see the module docstring).

        :param source: the input file's absolute path (its shards' prefix comes from it).
        :param content_sha256: SHA-256 of the file's decompressed content (kept in ``sources.json``).
        :param info: more to remember about ``source`` in ``_meta/sources.json`` (counts, …).
        :returns: the number of stale shard files removed.
        """
        info = {"content_sha256": content_sha256, **(info or {})}
        prefix = source_prefix(source)
        moves = []
        placed: set[Path] = set()
        for table, variant, month, part, staged in shards.staged:
            dest = self.root / table / f"{PARTITION}={variant}" / f"{MONTH}={month}" / shard_name(prefix, part)
            moves.append([str(staged), dest.relative_to(self.root).as_posix()])
            placed.add(dest)
        stale = [f.relative_to(self.root).as_posix() for f in sorted(self.shards.get(prefix, set()) - placed)]
        compacted = dict(self.compacted)
        rewrites = []
        for rel, members in sorted(self.compacted.items()):  # rows of this source merged by `compact`
            if prefix not in members:
                continue
            t = pq.read_table(self.root / rel)
            keep = t.filter(pc.not_equal(t.column(SRC), prefix))
            rest = [m for m in members if m != prefix]
            if keep.num_rows:
                staged = self.staging / f"rewrite.{len(rewrites)}.parquet"
                pq.write_table(keep, staged, compression="zstd")
                rewrites.append([str(staged), rel])
                compacted[rel] = rest
            else:
                stale.append(rel)
                compacted.pop(rel)
        sources = {**self.sources, source: info}
        # rewritten compacted files first: until this file's new shards land, its rows are missing,
        # never doubled
        self._journal({"moves": rewrites + moves, "remove": stale, "sources": sources, "compacted": compacted})
        self.shards[prefix] = placed
        self.sources = sources
        self.compacted = compacted
        return len(stale)

    def compacted_files(self) -> list[Path]:
        """The compacted shards in place."""
        return [self.root / rel for rel in sorted(self.compacted)]

    def compact(self, target_bytes: int = COMPACT_BYTES) -> dict[str, int]:
        """Merge small shards of each table, variant and month folder into files of about ``target_bytes``.

        Files are taken in name order and packed until a bin reaches ``target_bytes``; a bin of
        two files or more becomes one compacted shard ``c<16 hex of its members' names>-0000.parquet``
        whose private column ``_src`` says which source each row came from, so that re-ingesting a
        source later still replaces exactly its rows. Rows are not changed, only regrouped; one
        journal covers the whole compaction (a kill is rolled forward by the next open).

        :returns: ``{"files_before", "files_after", "merged", "bytes_before", "bytes_after"}``.
        """
        moves: list[list[str]] = []
        removes: list[str] = []
        compacted = dict(self.compacted)
        before = after = b_before = b_after = merged = 0
        for table, schema in TABLES.items():
            out_schema = schema.append(pa.field(SRC, pa.string()))
            for vdir in sorted((self.root / table).glob(f"{PARTITION}=*/{MONTH}=*")):
                files = inside(self.root, sorted(vdir.glob("*.parquet")))[0]  # a link outside stays as it is
                before += len(files)
                sizes = {f: f.stat().st_size for f in files}
                b_before += sum(sizes.values())
                bins: list[list[Path]] = [[]]
                for f in files:
                    if sizes[f] >= target_bytes:
                        continue
                    if sum(sizes[g] for g in bins[-1]) >= target_bytes:
                        bins.append([])
                    bins[-1].append(f)
                kept = [f for f in files if not any(f in b for b in bins if len(b) >= 2)]
                after += len(kept)
                b_after += sum(sizes[f] for f in kept)
                for members in (b for b in bins if len(b) >= 2):
                    rels = [m.relative_to(self.root).as_posix() for m in members]
                    name = "c" + hashlib.sha256("\n".join(rels).encode()).hexdigest()[:16] + "-0000.parquet"
                    staged = self.staging / f"compact.{len(moves)}.parquet"
                    prefixes: set[str] = set()
                    with pq.ParquetWriter(staged, out_schema, compression="zstd") as w:
                        for m, rel in zip(members, rels):
                            t = pq.read_table(m)
                            if is_compacted(m.name):
                                prefixes.update(compacted.pop(rel, []))
                            else:
                                head = m.name.split("-", 1)[0]
                                prefixes.add(head)
                                t = t.append_column(SRC, pa.array([head] * t.num_rows, pa.string()))
                            w.write_table(_conform(t, out_schema))
                    dest = (vdir / name).relative_to(self.root).as_posix()
                    moves.append([str(staged), dest])
                    removes += [r for r in rels if r != dest]
                    compacted[dest] = sorted(prefixes)
                    merged += len(members)
                    after += 1
                    b_after += staged.stat().st_size
        if moves:
            self._journal({"moves": moves, "remove": removes, "compacted": compacted})
            self.compacted = compacted
            self._scan()
        return {"files_before": before, "files_after": after, "merged": merged, "bytes_before": b_before,
                "bytes_after": b_after}

    def write_run(self, run_id: str, record: dict[str, Any]) -> Path:
        """Store ``record`` as ``_meta/ingest_runs/<run_id>.json`` and, unless it is still
        running, as the row ``ingest_runs/<run_id>.parquet``; returns the JSON path."""
        dest = self.root / META / "ingest_runs" / f"{run_id}.json"
        if record.get("status") != "running":  # the row first: a JSON still "running" is redone
            staged = self.staging / f"{run_id}.parquet"
            pq.write_table(run_row(record), staged, compression="zstd")
            (self.root / RUNS_TABLE).mkdir(exist_ok=True)
            os.replace(staged, self.root / RUNS_TABLE / f"{run_id}.parquet")
        _atomic_json(record, dest, self.staging)
        return dest


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


def read_rows(root: Path | str, table: str) -> list[dict[str, Any]]:
    """Every row of one table of a warehouse as dicts, ``variant`` and ``month`` included, in
    shard order (for checks and tests; the analytics read through DuckDB). Shards of the pre-month
    layout read with ``month`` None."""
    rows: list[dict[str, Any]] = []
    for f in sorted([*shard_files(root, table)[0], *shard_files(root, table, OLD_SHARD_GLOB)[0]]):
        keys = _partitions(f)
        t = pq.read_table(f)
        if SRC in t.column_names:
            t = t.drop_columns([SRC])
        for r in t.to_pylist():
            r.update(keys)
            rows.append(r)
    return rows


def _raw_started_at(raw: str | None) -> str | None:
    """The ``started_at`` string of a stored reject's ``raw`` text when it parses as a JSON object."""
    try:
        obj = json.loads(raw) if raw else None
    except (ValueError, RecursionError):
        return None
    v = obj.get("started_at") if isinstance(obj, dict) else None
    return v if isinstance(v, str) else None


def _split(t: pa.Table, *keys: str) -> list[tuple[tuple[str, ...], pa.Table]]:
    """``t``'s rows grouped by the values of the string columns ``keys`` (sorted; row order kept)."""
    if not keys:
        return [((), t)]
    col = t.column(keys[0])
    values = sorted(pc.unique(col).to_pylist())
    out = []
    for v in values:
        part = t if len(values) == 1 else t.filter(pc.equal(col, v))
        out += [((v, *rest), sub) for rest, sub in _split(part, *keys[1:])]
    return out


@dataclass
class FileShards:
    """Rows of one input file on their way into the warehouse (buffered, then staged)."""

    wh: Warehouse
    file_index: int
    buffers: dict[tuple[str, str, str], list[pa.Table]] = field(default_factory=dict)
    sizes: dict[tuple[str, str, str], int] = field(default_factory=dict)
    parts: dict[tuple[str, str, str], int] = field(default_factory=dict)
    staged: list[tuple[str, str, str, int, Path]] = field(default_factory=list)  # table, variant, month, part, file
    rows: dict[str, int] = field(default_factory=dict)

    def add(self, tables: dict[str, pa.Table]) -> None:
        """Buffer tables of :data:`~ingest.schema.TABLES` that carry ``variant`` and ``month`` columns."""
        for table, t in tables.items():
            if "_line" in t.column_names:  # the rows' private line column (ingest.rows.LINE)
                t = t.drop_columns(["_line"])
            for (v, m), part in _split(t, PARTITION, MONTH):
                key = (table, v, m)
                self.buffers.setdefault(key, []).append(part.drop_columns([PARTITION, MONTH]))
                self.sizes[key] = self.sizes.get(key, 0) + part.nbytes
                self.rows[table] = self.rows.get(table, 0) + part.num_rows
                if self.sizes[key] >= SHARD_BYTES:
                    self._flush(key)
        while sum(self.sizes.values()) > FILE_BUFFER_BYTES:
            self._flush(max(self.sizes, key=lambda k: (self.sizes[k], k)))

    def _flush(self, key: tuple[str, str, str]) -> None:
        bufs = self.buffers.pop(key, [])
        self.sizes.pop(key, None)
        if not bufs:
            return
        table, variant, month = key
        part = self.parts.get(key, 0)
        self.parts[key] = part + 1
        staged = self.wh.staging / f"{table}.{variant}.{month}.{self.file_index}.{part:04d}.parquet"
        pq.write_table(pa.concat_tables(bufs), staged, compression="zstd")
        self.staged.append((table, variant, month, part, staged))

    def close(self) -> None:
        """Write every remaining buffer to staging."""
        for key in sorted(self.buffers):
            self._flush(key)
