"""``ingest()``: input files → replayed in a process pool (or on Dask) → the Parquet warehouse.

The main process reads the files (``ingest.reader``), cuts each file's lines into chunks and
sends them to worker processes (``ingest.rows.process_chunk``); results come back in order and
are gathered per file into segments (:class:`FileStage`). A thread of the main process (the live
commit, :class:`_Live`) stages each segment (Arrow IPC parts in the run's staging folder; on Dask
the workers stage their chunks themselves, :func:`stage_chunk`), screens it for duplicates
(``ingest.dedupe``) and inserts it (``ingest.warehouse``) in the run's one transaction while the
workers go on; the transaction commits once every file is in. When another writer committed
meanwhile, the commit is redone from the staged segments (:func:`_commit`). Every input line is
counted exactly once: per file and in total, ``read = valid + invalid + rejected + duplicate``
and ``lines = read + blank``.
"""

from __future__ import annotations

import os
import platform
import queue
import shutil
import threading
import time
from collections import deque
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable

from rich.console import Console
from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeElapsedColumn

from ingest.dedupe import Index
from ingest.reader import MAX_LINE_BYTES, FileStats, Line, find_inputs, read_lines
from ingest.rows import ChunkResult, Counts, Pseudonymizer, process_chunk
from ingest.warehouse import (
    BUSY_SECONDS,
    PART_SUFFIX,
    STAGING,
    Warehouse,
    WarehouseBusy,
    backoff,
    is_conflict,
    read_part,
    retrying,
    write_part,
)
from replay.record import source_text, terminal_text
from replay.words import first_line
from replay.workers import process_pool

CHUNK_LINES = 256
CHUNK_BYTES = 8 << 20
SEGMENT_BYTES = 32 << 20
SEGMENT_LINES = 1 << 16
"""A segment also ends at this many lines: memory follows the rows, and a file of tiny lines
(each one reject row) would otherwise hold millions of them until its 32 MiB are read."""
"""Input bytes (lines as read) of one segment: consecutive chunks of a file that are staged (one
part per table), screened for duplicates and inserted together. About 11,000 桂林 games, whose
rows take about 120 MB in memory (3.7 bytes of rows a byte of input)."""
MIN_POOL_BYTES = 1 << 20
"""Smaller inputs (about 500 games) replay in-process: starting workers costs more than it saves."""
ENGINES = ("process", "dask")


@dataclass
class FileReport:
    """Counts of one input file. ``read = valid + invalid + rejected + duplicate``;
    ``lines = read + blank``."""

    path: str
    content_sha256: str | None
    lines: int
    blank: int
    valid: int
    invalid: int
    rejected: int
    duplicate: int = 0
    oversize: int = 0
    error: str | None = None
    defaulted: int = 0

    @property
    def read(self) -> int:
        """Non-blank lines: ``valid + invalid + rejected + duplicate``."""
        return self.valid + self.invalid + self.rejected + self.duplicate


@dataclass
class IngestReport:
    """What one :func:`ingest` run did.

    ``rows`` counts the rows written per table; ``removed_shards`` the stale shard files dropped
    (a re-ingest replaces its shards, so it removes none or some and adds as many);
    ``commit_attempts`` how many times the run's transaction was tried (1 unless it conflicted);
    ``live_commit`` whether the rows inserted while the run replayed were committed
    (``"committed"``) or why they were dropped and the commit redone from the staged segments.
    """

    run_id: str
    warehouse: str
    started_at: datetime
    finished_at: datetime
    workers: int
    engine_version: str
    engine: str = "process"
    pseudonymized: bool = False
    status: str = "running"
    files: list[FileReport] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    rows: dict[str, int] = field(default_factory=dict)
    removed_shards: int = 0
    recovered: list[str] = field(default_factory=list)
    commit_attempts: int = 0
    live_commit: str = ""
    default_rules: dict[str, dict[str, Any]] | None = None

    def total(self) -> FileReport:
        """The sum over files, as a :class:`FileReport` with ``path`` ``"(total)"``."""
        t = FileReport("(total)", None, 0, 0, 0, 0, 0)
        for f in self.files:
            t.lines += f.lines
            t.blank += f.blank
            t.valid += f.valid
            t.invalid += f.invalid
            t.rejected += f.rejected
            t.duplicate += f.duplicate
            t.oversize += f.oversize
            t.defaulted += f.defaulted
        return t

    @property
    def seconds(self) -> float:
        """Wall-clock duration of the run in seconds."""
        return (self.finished_at - self.started_at).total_seconds()

    def to_json(self) -> dict:
        """A JSON-ready dict (the ``_meta/ingest_runs`` record)."""
        d = asdict(self)
        d["total"] = {**asdict(self.total()), "read": self.total().read}
        for f, fd in zip(self.files, d["files"]):
            fd["read"] = f.read
        return d


@dataclass
class Segment:
    """Consecutive chunks of one input file, lines in order (:data:`SEGMENT_BYTES` of input, at most
    :data:`SEGMENT_LINES` lines).

    ``tables`` are its rows while they are in memory (from the process pool, one table each,
    with ``variant``, ``month`` and ``_line``); ``parts`` its staged parts per table in line order
    (written by :meth:`FileStage.keep`, or by Dask workers a chunk each); ``counts`` the workers'
    counts of its lines.
    """

    number: int
    counts: Counts
    tables: dict[str, Any] | None
    parts: dict[str, list[Path]]

    def load(self) -> dict[str, Any]:
        """The segment's rows per table (``pa.Table``), read back from its staged parts when they
        are no longer in memory."""
        import pyarrow as pa

        if self.tables is not None:
            return self.tables
        out = {}
        for table, paths in self.parts.items():
            parts = [t for t in map(read_part, paths) if t.num_rows]
            if parts:
                out[table] = pa.concat_tables(parts, promote_options="permissive")
        return out


class FileStage:
    """One input file's replayed rows, cut into segments (:class:`Segment`) as its chunks come back in
    order, and staged in the run's staging folder until the run has committed (for a commit
    redone after a conflict)."""

    def __init__(self, staging: Path, file_index: int) -> None:
        self.dir = staging
        self.file_index = file_index
        self.segments: list[Segment] = []
        self._chunks: dict[str, list[Any]] = {}
        self._parts: dict[str, list[Path]] = {}
        self._counts = Counts()
        self._bytes = 0
        self._open = False

    def add(self, tables: dict[str, Any] | None, parts: dict[str, str] | None, counts: Counts,
            nbytes: int) -> Segment | None:
        """Add the next chunk of the file: its ``tables`` (process pool) or the ``parts`` a Dask
        worker staged, its ``counts``, and ``nbytes``, the input bytes it was read from.

        :returns: the segment this chunk completed (:data:`SEGMENT_BYTES` or :data:`SEGMENT_LINES`), or None.
        """
        for table, t in (tables or {}).items():
            if t.num_rows:
                self._chunks.setdefault(table, []).append(t)
        for table, part in (parts or {}).items():
            self._parts.setdefault(table, []).append(Path(part))
        self._counts.add(counts)
        self._bytes += nbytes
        self._open = True
        return self.cut() if self._bytes >= SEGMENT_BYTES or self._counts.read >= SEGMENT_LINES else None

    def cut(self) -> Segment | None:
        """Close the open segment (None when no chunk came since the last cut)."""
        import pyarrow as pa

        if not self._open:
            return None
        tables = ({t: pa.concat_tables(v, promote_options="permissive") for t, v in self._chunks.items()}
                  if not self._parts else None)
        seg = Segment(len(self.segments), self._counts, tables, self._parts)
        self.segments.append(seg)
        self._chunks, self._parts, self._counts, self._bytes, self._open = {}, {}, Counts(), 0, False
        return seg

    def keep(self, seg: Segment) -> None:
        """Stage ``seg``'s rows in memory as one part a table, ``f<file>.s<segment>.<table>.arrow``
        (:func:`~ingest.warehouse.write_part`), and let go of them: :meth:`Segment.load` reads
        them back from then on."""
        if seg.tables is None:
            return
        for table, t in seg.tables.items():
            path = self.dir / f"f{self.file_index:06d}.s{seg.number:05d}.{table}{PART_SUFFIX}"
            write_part(t, path)
            seg.parts[table] = [path]
        seg.tables = None


@dataclass
class _FileState:
    path: Path
    stats: FileStats
    stage: FileStage
    chunks: int = 0
    done: int = 0
    read_done: bool = False
    begun: bool = False


def _pool(workers: int) -> ProcessPoolExecutor:
    return process_pool(workers)  # clean workers, not forks of a process running a progress thread


DASK_LOST_SECONDS = float(os.environ.get("PAIPU_DASK_LOST_SECONDS", "60"))
"""How long a ``--engine dask`` run waits with no worker left on the cluster before it fails
(``PAIPU_DASK_LOST_SECONDS``): the scheduler would otherwise keep its tasks forever."""


class DaskWorkersLost(RuntimeError):
    """Every Dask worker of the run is gone (or a chunk killed every worker it was given): nothing
    of the run was committed."""


@dataclass
class StagedChunk:
    """What a Dask worker sends back for one chunk (:func:`stage_chunk`): the staged parts it
    wrote into the run's staging folder, per table, and the line counts — no rows."""

    file_index: int
    chunk_index: int
    parts: dict[str, str]
    counts: Counts


def stage_chunk(file_index: int, chunk_index: int, lines: list[Line], ingested_at: datetime,
                pseudonym_salt: bytes | None, staging: str,
                defaults: dict[str, dict[str, Any]] | None = None) -> StagedChunk:
    """Run on a Dask worker: :func:`~ingest.rows.process_chunk`, then each of its tables written as
    one staged part ``<staging>/f<file>.c<chunk>.<table>.arrow`` (:func:`~ingest.warehouse.write_part`:
    a worker killed mid-write leaves no part, and a chunk the scheduler runs again after a worker
    died rewrites the same name). ``staging`` must be reachable by the worker: the warehouse folder
    on shared storage for a cluster of several machines."""
    res = process_chunk(file_index, chunk_index, lines, ingested_at, pseudonym_salt, defaults)
    parts = {}
    for table, t in res.tables.items():
        if t.num_rows == 0:
            continue
        dest = Path(staging) / f"f{file_index:06d}.c{chunk_index:06d}.{table}{PART_SUFFIX}"
        write_part(t, dest)
        parts[table] = str(dest)
    return StagedChunk(file_index, chunk_index, parts, res.counts)


class _Dask:
    """A Dask ``Client`` (on ``scheduler`` or a local cluster of ``workers`` processes) behind the
    executor calls :func:`ingest` uses (``submit``, ``result``, ``shutdown``). Its tasks are
    :func:`stage_chunk`: the workers write the rows, only counts and file names come back."""

    def __init__(self, workers: int, scheduler: str | None, lost_seconds: float = DASK_LOST_SECONDS) -> None:
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise RuntimeError("--engine dask needs the `dask` extra: pip install 'paipu[dask]'") from None
        self.cluster = None
        self.lost_seconds = lost_seconds
        if scheduler:
            self.client = Client(scheduler)
        else:
            self.cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                        dashboard_address=None, silence_logs=40)
            self.client = Client(self.cluster)
        self.workers = len(self.client.scheduler_info().get("workers", {})) or workers

    def submit(self, fn: Any, *args: Any) -> Any:
        return self.client.submit(fn, *args, pure=False)

    def result(self, fut: Any) -> Any:
        """``fut``'s result; waits while at least one worker is alive.

        :raises DaskWorkersLost: no worker for :attr:`lost_seconds` (the scheduler would wait for one
            forever), or the chunk's task killed every worker it ran on (``KilledWorker``).
        """
        from distributed import KilledWorker

        alone_since = None
        while True:
            try:
                return fut.result(timeout=1)
            except KilledWorker as e:
                raise DaskWorkersLost(f"the Dask workers running a chunk died ({e}); nothing of this run was "
                                      f"committed: run it again") from None
            except TimeoutError:
                pass
            if self.client.nthreads():
                alone_since = None
            elif alone_since is None:
                alone_since = time.monotonic()
            elif time.monotonic() - alone_since >= self.lost_seconds:
                raise DaskWorkersLost(f"every Dask worker of the cluster is gone (died or was killed) and none came "
                                      f"back for {self.lost_seconds:.0f} s; nothing of this run was committed: "
                                      f"run it again once workers are up")

    def shutdown(self, cancel_futures: bool = False) -> None:
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()


def ingest(paths: Iterable[Path | str], warehouse_dir: Path | str, workers: int | None = None,
           progress: bool = True, *, max_line_bytes: int = MAX_LINE_BYTES, chunk_lines: int = CHUNK_LINES,
           min_pool_bytes: int = MIN_POOL_BYTES, console: Console | None = None,
           pseudonym_salt: bytes | None = None, engine: str = "process",
           scheduler: str | None = None, catalog: str | None = None,
           defaults: dict[str, dict[str, Any]] | None = None) -> IngestReport:
    """Replay every line of ``paths`` and commit the results to the warehouse in one transaction.

    Two phases: the lines are replayed (in a pool or on Dask) and their rows staged (Arrow IPC) in
    ``DIR/_staging/<run_id>/``; then one catalog transaction, file by file in input order,
    deletes what each file stored before, screens its rows for duplicates against the catalog
    (``ingest.dedupe``) and inserts them, and adds the run's ``ingest_runs`` row. When another
    writer committed meanwhile the commit conflicts and the second phase is done again (the
    replay is not), for at most :data:`~ingest.warehouse.BUSY_SECONDS`; into the embedded catalog
    the commits of concurrent runs take turns instead (:meth:`Warehouse.commit_turn`: a run
    waiting for its turn says so on the console).

    :param paths: files (``.jsonl``, ``.jsonl.gz``, ``.jsonl.zst``) and folders (walked recursively).
    :param warehouse_dir: the warehouse folder; created if missing.
    :param workers: worker processes; None or 0 = ``os.cpu_count()``; 1 replays in this process,
        and so does any input smaller than ``min_pool_bytes`` on disk (process engine only).
    :param progress: show a rich progress bar when the console is a terminal (otherwise one line
        per file once the run has committed).
    :param max_line_bytes: longest accepted line (spec §1), terminator excluded.
    :param chunk_lines: lines per task sent to a worker.
    :param pseudonym_salt: replace player ids by keyed hashes (:class:`~ingest.rows.Pseudonymizer`).
    :param engine: ``process`` (a local process pool) or ``dask`` (a Dask cluster: ``scheduler``'s
        address, or a local cluster of ``workers`` processes when None). Both give the same rows.
    :param catalog: ``postgres:<libpq keywords>`` for a PostgreSQL catalog; None for the
        warehouse's own (embedded SQLite ``DIR/catalog.sqlite`` unless it was made with one).
    :param defaults: rule overrides by variant for records without a ``rules`` object
        (``--rules``, :func:`replay.variants.default_rules`); ``FileReport.defaulted`` counts them.
    :returns: an :class:`IngestReport` with per-file and total counts.
    :raises FileNotFoundError: a path does not exist.
    :raises ValueError: an unknown engine, or a salt shorter than 16 bytes.
    :raises ingest.warehouse.WarehouseBusy: the catalog stayed locked, or the commit kept conflicting.
    :raises ingest.warehouse.WarehouseMismatch: the warehouse holds rows of another pseudonymization.
    :raises DaskWorkersLost: ``engine="dask"`` and no worker left for :data:`DASK_LOST_SECONDS`
        (nothing of the run is committed; the next run marks it interrupted).
    """
    from replay import ENGINE_VERSION

    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(ENGINES)}, not {engine!r}")
    pseudonymizer = Pseudonymizer(pseudonym_salt) if pseudonym_salt is not None else None
    console = console or Console(stderr=True)
    workers = workers or os.cpu_count() or 1
    inputs, skipped = find_inputs(paths)
    started = datetime.now(timezone.utc)
    run_id = started.strftime("%Y%m%dT%H%M%S%fZ") + f"-{os.getpid()}"
    report = IngestReport(run_id, str(Path(warehouse_dir).absolute()), started, started, workers, ENGINE_VERSION,
                          engine=engine, pseudonymized=pseudonymizer is not None, skipped=[str(p) for p in skipped],
                          default_rules=defaults)

    def size(p: Path) -> int:
        try:
            return p.stat().st_size
        except OSError:  # vanished since it was listed: read_lines reports it
            return 0

    total_bytes = sum(size(p) for p in inputs)
    live = progress and console.is_terminal
    bar = Progress(TextColumn("[bold]ingest"), BarColumn(), DownloadColumn(), TextColumn("{task.fields[counts]}"),
                   TimeElapsedColumn(), console=console, disable=not live, transient=False)
    task = bar.add_task("ingest", total=total_bytes or 1, counts="")
    states: list[_FileState] = []
    seen_bytes = 0
    t0 = time.perf_counter()
    salt = pseudonymizer.salt if pseudonymizer is not None else None

    def run_record() -> dict:
        record = report.to_json()
        record.update(host=platform.node(), python=platform.python_version(), seconds=time.perf_counter() - t0,
                      n_files=len(report.files))
        return record

    from ingest.warehouse import WarehouseMismatch, catalog_of, legacy_layout

    if catalog_of(warehouse_dir) is None and legacy_layout(warehouse_dir):
        raise WarehouseMismatch(f"{warehouse_dir} is a warehouse of the layout before DuckLake: "
                                f"run `paipu migrate {warehouse_dir}` first")
    with Warehouse(warehouse_dir, pseudonymizer.fingerprint if pseudonymizer else None, catalog=catalog,
                   run_id=run_id) as wh, bar:
        report.recovered = list(wh.recovered)

        def say(message: str) -> None:
            console.print(message, highlight=False, markup=False)

        def started_row() -> None:  # status "running" in its own commit: a killed run shows
            with wh.transaction(f"ingest run {run_id} started", {"run_id": run_id, "status": "running"},
                                serialize=False):
                wh.write_run(run_record())

        with wh.commit_turn(say):
            retrying(started_row)
        wh.save_run_json(run_record())
        if engine == "dask":
            pool: Any = _Dask(workers, scheduler)
            report.workers = pool.workers
        else:
            pool = _pool(workers) if workers > 1 and total_bytes >= min_pool_bytes else None
            report.workers = workers if pool is not None else 1
        result = pool.result if engine == "dask" else (lambda fut: fut.result())
        pending: deque[tuple[Any, int, int]] = deque()  # (task, input bytes read once its chunk was cut, its bytes)
        window = 2 * report.workers
        running = Counts()
        committer = _Live(wh, report)
        finished = 0  # files before this one have every chunk back and are with the committer

        def begin(st: _FileState) -> None:
            if not st.begun:
                st.begun = True
                committer.put("begin", st)

        def advance() -> None:  # in input order: a file whose every chunk is back goes to the committer
            nonlocal finished
            while finished < len(states) and states[finished].read_done and \
                    states[finished].done == states[finished].chunks:
                st = states[finished]
                begin(st)
                seg = st.stage.cut()
                if seg is not None:
                    committer.put("segment", (st, seg))
                committer.put("end", st)
                finished += 1

        def handle(res: ChunkResult | StagedChunk, pos: int, nbytes: int) -> None:
            advance()
            st = states[res.file_index]
            begin(st)
            if isinstance(res, StagedChunk):  # a Dask worker wrote the rows
                seg = st.stage.add(None, res.parts, res.counts, nbytes)
            else:
                seg = st.stage.add(res.tables, None, res.counts, nbytes)
            if seg is not None:
                committer.put("segment", (st, seg))
            running.add(res.counts)
            st.done += 1
            bar.update(task, completed=pos, counts=f"read {running.read}")  # the bar follows replay

        def submit(fi: int, lines: list[Line], nbytes: int) -> None:
            st = states[fi]
            ci = st.chunks
            st.chunks += 1
            pos = seen_bytes + st.stats.bytes_in
            if pool is None:
                handle(process_chunk(fi, ci, lines, started, salt, defaults), pos, nbytes)
                return
            if engine == "dask":
                fut = pool.submit(stage_chunk, fi, ci, lines, started, salt, str(wh.staging), defaults)
            else:
                fut = pool.submit(process_chunk, fi, ci, lines, started, salt, defaults)
            pending.append((fut, pos, nbytes))
            while len(pending) > window:  # bounded: memory stays flat on big inputs
                fut, at, n = pending.popleft()
                handle(result(fut), at, n)

        try:
            for fi, path in enumerate(inputs):
                stats = FileStats(str(path))
                states.append(_FileState(path, stats, FileStage(wh.staging, fi)))
                chunk: list[Line] = []
                nbytes = 0
                for line in read_lines(path, max_line_bytes=max_line_bytes, stats=stats):
                    chunk.append(line)
                    nbytes += len(line.raw)
                    if len(chunk) >= chunk_lines or nbytes >= CHUNK_BYTES:
                        submit(fi, chunk, nbytes)
                        chunk, nbytes = [], 0
                stats.bytes_in = stats.size
                if chunk:
                    submit(fi, chunk, nbytes)
                seen_bytes += stats.size
                states[fi].read_done = True
            while pending:
                fut, at, n = pending.popleft()
                handle(result(fut), at, n)
            advance()
            bar.update(task, completed=total_bytes or 1)
            committer.close()
        finally:
            committer.stop()
            if pool is not None:
                pool.shutdown(cancel_futures=True)
        interrupted = _commit(wh, report, states, run_record, committer, say=say)
        for rec in interrupted:
            wh.save_run_json(rec)
        wh.save_run_json(run_record())
    if progress and not live:
        for fr in report.files:
            console.print(f"{terminal_text(fr.path)}: {fr.lines} lines = {fr.blank} blank + read {fr.read} "
                          f"({fr.valid} valid, {fr.invalid} invalid, {fr.rejected} rejected, "
                          f"{fr.duplicate} duplicate)" + (f" — {terminal_text(fr.error)}" if fr.error else ""),
                          highlight=False, markup=False, soft_wrap=True)  # one file, one line: grep finds it
    return report


class _Screen:
    """Screens a run's files for duplicates (:class:`~ingest.dedupe.Index`, a new one a file) and
    inserts what they keep, file by file and segment by segment in input order, inside the run's
    open transaction; fills ``report.files`` and ``report.rows``. The one code path of the live
    commit (:class:`_Live`) and of a commit redone from the staged segments (:func:`_commit`)."""

    def __init__(self, wh: Warehouse, report: IngestReport) -> None:
        self.wh = wh
        self.report = report
        report.files, report.rows = [], {}
        self.index = Index()
        self.origin = -1
        self.counts = Counts()

    def begin_file(self, st: _FileState) -> None:
        """Delete what ``st``'s file stored before (:meth:`~ingest.warehouse.Warehouse.replace_source`)
        and start screening it."""
        source = str(st.path)
        self.wh.replace_source(source)
        self.index = Index()
        self.origin = self.index.begin(source, source)
        self.counts = Counts()

    def segment(self, seg: Segment) -> None:
        """Screen one segment of the current file against the catalog (what this transaction
        sees: earlier files and segments of the run included) and the file's earlier lines, and
        insert the rows it keeps."""
        import pyarrow as pa

        tables = seg.load()
        games, rejects = tables.get("games"), tables.get("rejects")
        ids = games.column("game_id").combine_chunks() if games is not None else pa.array([], pa.string())
        hashes = [pa.chunked_array(t.column(c)).combine_chunks() for t, c in ((games, "record_sha256"),
                                                                             (rejects, "raw_sha256")) if t is not None]
        self.index.prefill(self.wh.stored_games(ids),
                           self.wh.stored_rejects(pa.concat_arrays(hashes) if hashes else pa.array([], pa.string())))
        out, counts = self.index.screen(tables, self.origin, seg.counts) if tables else (tables, seg.counts)
        for table, rows in out.items():
            self.wh.insert(table, rows)
            self.report.rows[table] = self.report.rows.get(table, 0) + rows.num_rows
        self.counts.add(counts)

    def end_file(self, st: _FileState) -> None:
        """The file's :class:`FileReport`, with its screened counts."""
        c, s = self.counts, st.stats
        self.report.files.append(FileReport(source_text(str(st.path)), s.content_sha256, s.lines, s.blank, c.valid, c.invalid,
                                            c.rejected, c.duplicate, s.oversize, s.error, c.defaulted))

    def file(self, st: _FileState) -> None:
        """A whole file from its staged segments."""
        self.begin_file(st)
        for seg in st.stage.segments:
            self.segment(seg)
        self.end_file(st)


_MOVED = "another writer committed while this run replayed"
LIVE_QUEUE = 2
"""Segments the main thread may hand the live commit ahead of it (memory: about 2 × 120 MB)."""


class _Live:
    """The run's commit made while it replays (docs/warehouse.md "Transactions"): a thread that
    takes the files' ``begin`` / ``segment`` / ``end`` steps in input order from the main thread,
    stages each segment (:meth:`FileStage.keep`) and screens and inserts it (:class:`_Screen`) in
    the run's transaction, which it opens at its first step; :func:`_commit` commits it. The
    transaction is given up (rolled back; the rows stay staged and the commit is redone from them)
    when another writer commits into the embedded catalog meanwhile (its SQLite read has turned
    stale, so it could not commit: :meth:`~ingest.warehouse.Warehouse.head`), the catalog
    reports a conflict, or a step meets an I/O error (a compaction deleted files its snapshot
    lists). DuckDB releases the GIL while it inserts, so the main thread keeps the
    workers fed."""

    def __init__(self, wh: Warehouse, report: IngestReport) -> None:
        self.wh = wh
        self.report = report
        self.screen: _Screen | None = None
        self.head: tuple[int, int, int] | None = None
        self.open = False  # a transaction holds what was inserted so far
        self.given_up = ""
        self.error: BaseException | None = None
        self.stopping = False
        self.queue: queue.Queue = queue.Queue(maxsize=LIVE_QUEUE)
        self.thread = threading.Thread(target=self._run, name="paipu-live-commit", daemon=True)
        self.thread.start()

    @property
    def ready(self) -> bool:
        """True when the transaction holds every file's screened rows (after :meth:`close`)."""
        return self.open and not self.given_up and self.error is None

    def put(self, step: str, what: Any) -> None:
        """Hand the next step to the thread (waits while :data:`LIVE_QUEUE` are ahead of it).

        :raises BaseException: what stopped the thread (an error that is not a conflict).
        """
        if self.error is not None:
            raise self.error
        self.queue.put((step, what))

    def close(self) -> None:
        """Wait until the thread has taken every step.

        :raises BaseException: what stopped the thread.
        """
        self.queue.put(None)
        self.thread.join()
        if self.error is not None:
            raise self.error

    def stop(self) -> None:
        """End the thread (skipping the steps left) if :meth:`close` did not; idempotent."""
        if self.thread.is_alive():
            self.stopping = True
            self.queue.put(None)
            self.thread.join()

    def catalog_moved(self) -> bool:
        """True when another writer committed into the embedded catalog since the transaction
        began (:meth:`~ingest.warehouse.Warehouse.head`): it could no longer commit."""
        return self.head is not None and self.wh.head() != self.head

    def _moved_meanwhile(self) -> bool:
        """:meth:`catalog_moved`, False when even that read fails (the step's error stands)."""
        try:
            return self.catalog_moved()
        except Exception:  # noqa: BLE001
            return False

    def give_up(self, why: str) -> None:
        """Roll the transaction back; :func:`_commit` then commits from the staged segments."""
        if self.open and not self.given_up:
            self.wh.rollback()
        self.given_up = self.given_up or why

    def _run(self) -> None:
        while True:
            item = self.queue.get()
            if item is None:
                return
            if self.stopping or self.error is not None:
                continue
            step, what = item
            try:
                self._step(step, what)
            except BaseException as e:  # noqa: BLE001 - handed to the main thread
                import duckdb

                if isinstance(e, duckdb.Error) and is_conflict(e):
                    self.give_up(f"the catalog reported a conflict: {e}")
                elif isinstance(e, duckdb.Error) and (self._moved_meanwhile() or isinstance(e, duckdb.IOException)):
                    # e.g. `paipu compact` merged the files and deleted those this older snapshot
                    # lists ("Cannot open file"): the redo reads the new snapshot (and meets a
                    # lasting I/O error again, where it fails the run with it)
                    why = _MOVED if self._moved_meanwhile() else "a data file its snapshot lists could not be read"
                    self.give_up(f"{why} ({first_line(e)})")
                else:
                    self.error = e
            if step == "segment":
                try:
                    what[0].stage.keep(what[1])  # staged whatever became of the transaction
                except BaseException as e:  # noqa: BLE001
                    self.error = self.error or e

    def _step(self, step: str, what: Any) -> None:
        if self.given_up:
            return
        if not self.open:
            # the workers hold the cores: a second DuckDB thread only adds its coordination
            # (bench/README.md)
            self.wh.threads(1)
            self.head = self.wh.head()
            self.wh.begin()
            self.open = True
            self.screen = _Screen(self.wh, self.report)
        elif self.catalog_moved():
            self.give_up(_MOVED)
            return
        assert self.screen is not None
        if step == "begin":
            self.screen.begin_file(what)
        elif step == "segment":
            self.screen.segment(what[1])
        else:
            self.screen.end_file(what)


class StoredMismatch(RuntimeError):
    """What a run would commit is not what it counted (nothing of it is committed)."""


def _check_stored(wh: Warehouse, report: IngestReport) -> None:
    """Before the commit: every file's stored games and rejects are what the run counted for it
    (valid + invalid games, rejected lines), so no file's replace took another's rows.

    :raises StoredMismatch: naming the first file that differs.
    """
    stored = wh.source_rows([f.path for f in report.files])
    for f in report.files:
        games, rejects = stored[f.path]
        if (games, rejects) != (f.valid + f.invalid, f.rejected):
            raise StoredMismatch(f"{f.path}: the run counted {f.valid + f.invalid} games and {f.rejected} rejected "
                                 f"lines but would store {games} and {rejects}; nothing was committed")


def _commit(wh: Warehouse, report: IngestReport, states: list[_FileState], run_record: Any, live: _Live,
            say: Any = None) -> list[dict]:
    """Commit the run's transaction (see :func:`ingest`) in the embedded catalog's commit turn
    (:meth:`Warehouse.commit_turn`; ``say`` prints its waiting line): the live one when it holds
    every file's rows and the catalog has not moved since it began, else one made now from the
    staged segments; redone from them after a conflict with another writer's commit, with
    :func:`~ingest.warehouse.backoff`, for at most :data:`~ingest.warehouse.BUSY_SECONDS`.
    Returns the records of the killed runs it marked ``interrupted``.

    :raises WarehouseBusy: still conflicting when the time is up (nothing of the run committed).
    """
    import duckdb

    with wh.commit_turn(say):
        if live.ready and live.catalog_moved():
            live.give_up(_MOVED)
        use_live = live.ready
        end = time.monotonic() + BUSY_SECONDS
        while True:
            report.commit_attempts += 1
            on_live = use_live
            try:
                if use_live:
                    use_live = False
                else:
                    report.status = "running"
                    wh.threads(None)  # nothing else runs now
                    wh.begin()
                    screen = _Screen(wh, report)
                    for st in states:
                        screen.file(st)
                _check_stored(wh, report)
                interrupted = wh.mark_interrupted()
                report.finished_at = datetime.now(timezone.utc)
                report.status = "done"
                report.live_commit = ("committed" if live.ready else "no input file" if not live.open
                                      else f"redone from the staged rows: {live.given_up}")
                wh.write_run(run_record())
                wh.commit(f"ingest run {report.run_id}", {"run_id": report.run_id, "status": "done"})
                break
            except duckdb.Error as e:
                wh.rollback()
                if live.ready:
                    live.given_up = f"its commit failed: {e}"
                if on_live and isinstance(e, duckdb.IOException):
                    # a compaction deleted files the live transaction's older snapshot still lists (its
                    # reads of ingest_runs and the stored counts too): redone at once from the staged rows
                    continue
                if not is_conflict(e):
                    raise
                report.status = "running"
                if time.monotonic() >= end:
                    raise WarehouseBusy(f"the commit of run {report.run_id} kept conflicting with other writers "
                                        f"({report.commit_attempts} attempts in {BUSY_SECONDS:.0f} s; nothing of it "
                                        f"was committed: run it again): {e}") from e
                time.sleep(backoff(report.commit_attempts - 1))
    for r in interrupted:
        report.recovered.append(f"marked run {r['run_id']} interrupted")
        old = wh.root / STAGING / r["run_id"]
        if old.exists():
            shutil.rmtree(old, ignore_errors=True)
            report.recovered.append(f"removed the staging folder of killed run {r['run_id']}")
    return interrupted
