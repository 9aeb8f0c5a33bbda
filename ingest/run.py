"""``ingest()``: input files → replayed in a process pool → the Parquet warehouse.

The main process reads the files (``ingest.reader``), cuts each file's lines into chunks and
sends them to worker processes (``ingest.rows.process_chunk``); results come back in order, are
buffered per file and written by ``ingest.warehouse`` (staged, then moved into place when the
file is done). Every input line is counted exactly once: per file and in total,
``read = valid + invalid + rejected`` and ``lines = read + blank``.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import platform
import time
from collections import deque
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterable

from rich.console import Console
from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeElapsedColumn

from ingest.reader import MAX_LINE_BYTES, FileStats, Line, find_inputs, read_lines
from ingest.rows import ChunkResult, Counts, process_chunk
from ingest.warehouse import FileShards, Warehouse

CHUNK_LINES = 256
CHUNK_BYTES = 8 << 20
MIN_POOL_BYTES = 1 << 20
"""Smaller inputs (about 500 games) replay in-process: starting workers costs more than it saves."""


@dataclass
class FileReport:
    """Counts of one input file. ``read = valid + invalid + rejected``; ``lines = read + blank``."""

    path: str
    content_sha256: str | None
    lines: int
    blank: int
    valid: int
    invalid: int
    rejected: int
    oversize: int = 0
    error: str | None = None

    @property
    def read(self) -> int:
        """Non-blank lines: ``valid + invalid + rejected``."""
        return self.valid + self.invalid + self.rejected


@dataclass
class IngestReport:
    """What one :func:`ingest` run did.

    ``rows`` counts the rows written per table; ``removed_shards`` the stale shard files dropped
    (a re-ingest replaces its shards, so it removes none or some and adds as many).
    """

    run_id: str
    warehouse: str
    started_at: datetime
    finished_at: datetime
    workers: int
    engine_version: str
    files: list[FileReport] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    rows: dict[str, int] = field(default_factory=dict)
    removed_shards: int = 0

    def total(self) -> FileReport:
        """The sum over files, as a :class:`FileReport` with ``path`` ``"(total)"``."""
        t = FileReport("(total)", None, 0, 0, 0, 0, 0)
        for f in self.files:
            t.lines += f.lines
            t.blank += f.blank
            t.valid += f.valid
            t.invalid += f.invalid
            t.rejected += f.rejected
            t.oversize += f.oversize
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
class _FileState:
    path: Path
    stats: FileStats
    shards: FileShards
    counts: Counts = field(default_factory=Counts)
    chunks: int = 0
    done: int = 0
    read_done: bool = False
    committed: bool = False


def _pool(workers: int) -> ProcessPoolExecutor:
    # forkserver: workers start from a clean process, not a fork of one running a progress thread
    method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
    return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context(method))


def ingest(paths: Iterable[Path | str], warehouse_dir: Path | str, workers: int | None = None,
           progress: bool = True, *, max_line_bytes: int = MAX_LINE_BYTES, chunk_lines: int = CHUNK_LINES,
           min_pool_bytes: int = MIN_POOL_BYTES, console: Console | None = None) -> IngestReport:
    """Replay every line of ``paths`` and write the results into the warehouse.

    :param paths: files (``.jsonl``, ``.jsonl.gz``, ``.jsonl.zst``) and folders (walked recursively).
    :param warehouse_dir: the warehouse folder; created if missing. Its parent must be writable
        (the staging folder goes there).
    :param workers: worker processes; None or 0 = ``os.cpu_count()``; 1 replays in this process,
        and so does any input smaller than ``min_pool_bytes`` on disk.
    :param progress: show a rich progress bar when the console is a terminal (otherwise one line
        per finished file).
    :param max_line_bytes: longest accepted line (spec §1), terminator excluded.
    :param chunk_lines: lines per task sent to a worker.
    :returns: an :class:`IngestReport` with per-file and total counts.
    :raises FileNotFoundError: a path does not exist.
    :raises ingest.warehouse.WarehouseBusy: another ingest is writing the same warehouse.
    """
    from replay import ENGINE_VERSION

    console = console or Console(stderr=True)
    workers = workers or os.cpu_count() or 1
    inputs, skipped = find_inputs(paths)
    started = datetime.now(timezone.utc)
    run_id = started.strftime("%Y%m%dT%H%M%S%fZ") + f"-{os.getpid()}"
    report = IngestReport(run_id, str(Path(warehouse_dir).absolute()), started, started, workers, ENGINE_VERSION,
                          skipped=[str(p) for p in skipped])
    total_bytes = sum(p.stat().st_size for p in inputs)
    live = progress and console.is_terminal
    bar = Progress(TextColumn("[bold]ingest"), BarColumn(), DownloadColumn(), TextColumn("{task.fields[counts]}"),
                   TimeElapsedColumn(), console=console, disable=not live, transient=False)
    task = bar.add_task("ingest", total=total_bytes or 1, counts="")
    states: list[_FileState] = []
    seen_bytes = 0
    t0 = time.perf_counter()

    with Warehouse(warehouse_dir) as wh, bar:
        pool = _pool(workers) if workers > 1 and total_bytes >= min_pool_bytes else None
        report.workers = workers if pool is not None else 1
        pending: deque[tuple[Future, int]] = deque()  # (task, input bytes read once its chunk was cut)

        running = Counts()

        def totals() -> str:
            c = running
            return f"read {c.read}: {c.valid} valid, {c.invalid} invalid, {c.rejected} rejected"

        def maybe_commit(st: _FileState) -> None:
            if st.committed or not st.read_done or st.done < st.chunks:
                return
            st.shards.close()
            info = {"ingested_at": started.isoformat(), "engine_version": ENGINE_VERSION, "valid": st.counts.valid,
                    "invalid": st.counts.invalid, "rejected": st.counts.rejected, "blank": st.stats.blank}
            # an unreadable file has no content hash: key its (empty) shards by its path instead
            key = st.stats.content_sha256 or hashlib.sha256(f"unreadable:{st.path}".encode()).hexdigest()
            report.removed_shards += wh.commit(st.shards, str(st.path), key, info)
            for t, n in st.shards.rows.items():
                report.rows[t] = report.rows.get(t, 0) + n
            st.committed = True
            fr = FileReport(str(st.path), st.stats.content_sha256, st.stats.lines, st.stats.blank, st.counts.valid,
                            st.counts.invalid, st.counts.rejected, st.stats.oversize, st.stats.error)
            report.files.append(fr)
            if progress and not live:
                console.print(f"{st.path}: {fr.lines} lines = {fr.blank} blank + read {fr.read} "
                              f"({fr.valid} valid, {fr.invalid} invalid, {fr.rejected} rejected)"
                              + (f" — {fr.error}" if fr.error else ""), highlight=False)

        def handle(res: ChunkResult, pos: int) -> None:
            st = states[res.file_index]
            st.shards.add(res.tables)
            st.counts.add(res.counts)
            running.add(res.counts)
            st.done += 1
            maybe_commit(st)
            bar.update(task, completed=pos, counts=totals())  # the bar follows replay, not reading

        def submit(fi: int, lines: list[Line]) -> None:
            st = states[fi]
            ci = st.chunks
            st.chunks += 1
            pos = seen_bytes + st.stats.bytes_in
            if pool is None:
                handle(process_chunk(fi, ci, lines, started), pos)
                return
            pending.append((pool.submit(process_chunk, fi, ci, lines, started), pos))
            while len(pending) > 2 * workers:  # bounded: memory stays flat on big inputs
                fut, at = pending.popleft()
                handle(fut.result(), at)

        try:
            for fi, path in enumerate(inputs):
                stats = FileStats(str(path))
                states.append(_FileState(path, stats, wh.file(fi)))
                chunk: list[Line] = []
                size = 0
                for line in read_lines(path, max_line_bytes=max_line_bytes, stats=stats):
                    chunk.append(line)
                    size += len(line.raw)
                    if len(chunk) >= chunk_lines or size >= CHUNK_BYTES:
                        submit(fi, chunk)
                        chunk, size = [], 0
                stats.bytes_in = stats.size
                if chunk:
                    submit(fi, chunk)
                seen_bytes += stats.size
                states[fi].read_done = True
                maybe_commit(states[fi])
            while pending:
                fut, at = pending.popleft()
                handle(fut.result(), at)
            bar.update(task, completed=total_bytes or 1)
        finally:
            if pool is not None:
                pool.shutdown(cancel_futures=True)
        report.finished_at = datetime.now(timezone.utc)
        record = report.to_json()
        record.update(host=platform.node(), python=platform.python_version(), seconds=time.perf_counter() - t0)
        wh.write_run(run_id, record)
    return report
