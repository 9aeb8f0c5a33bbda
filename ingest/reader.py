"""Input files → numbered raw lines (spec §1).

Reads ``.jsonl``, ``.jsonl.gz`` and ``.jsonl.zst`` the same way, and folders recursively (only
those suffixes; other files are listed as skipped). Decisions where the spec is silent:

- Line numbers are physical, 1-based, blank lines included, so they match an editor's.
- A blank line (only whitespace) is skipped: it is counted in :attr:`FileStats.blank`, not in
  ``read``; ``lines = read + blank`` for every file.
- The line terminator is ``\\n``; one ``\\r`` before it is part of the terminator, and a UTF-8
  BOM at the start of a file is dropped. ``raw`` is the line without them (what
  ``record_sha256`` hashes).
- A line longer than ``max_line_bytes`` is not kept: the reader yields its first 4 KiB with a
  :class:`Problem` (``schema`` / ``paipu.line_size``) and never parses it.
- A compressed stream that ends early or is corrupt (and a file that cannot be opened) adds one
  :class:`Problem` line after the last complete line, holding the cut-off bytes if any
  (``bad_json`` / ``paipu.compression`` or ``paipu.io``); the lines before it are kept. The
  reader never raises for bad content.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Callable, Iterable, Iterator, NamedTuple

import zstandard

SUFFIXES = (".jsonl", ".jsonl.gz", ".jsonl.zst")
MAX_LINE_BYTES = 1 << 20
"""Default longest accepted line, terminator excluded (spec §1: 1 MiB)."""
RAW_KEEP = 4096
"""Bytes of a rejected line kept in ``rejects.raw``."""
_CHUNK = 1 << 20
_BOM = b"\xef\xbb\xbf"


class Problem(NamedTuple):
    """Why the reader rejects a line before replay (``raw`` is then cut to :data:`RAW_KEEP`)."""

    code: str
    rule: str
    message: str
    raw_sha256: str
    raw_bytes: int


class Line(NamedTuple):
    """One non-blank input line: where it came from, its bytes, and a reader-level problem."""

    source_file: str
    line_no: int
    raw: bytes
    problem: Problem | None = None


@dataclass
class FileStats:
    """What the reader saw in one file; filled in while the file is read.

    ``content_sha256`` (of the decompressed bytes) is set once the file is fully read.
    ``bytes_in`` is how far into the file on disk (compressed bytes) reading has come.
    """

    path: str
    size: int = 0
    lines: int = 0
    blank: int = 0
    oversize: int = 0
    error: str | None = None
    content_sha256: str | None = None
    bytes_in: int = 0


def has_input_suffix(path: Path) -> bool:
    """True when ``path`` ends in one of :data:`SUFFIXES`."""
    return path.name.endswith(SUFFIXES)


def find_inputs(paths: Iterable[Path | str]) -> tuple[list[Path], list[Path]]:
    """Expand files and folders into the input files, in a stable order.

    Folders are walked top-down, names sorted (a folder's files, then its subfolders). Only files
    with one of :data:`SUFFIXES` are read, also when named directly. A file reached twice is
    read once.

    :returns: ``(inputs, skipped)``: absolute paths of the files to read, and of the files found
        that were not read (wrong suffix, or not a regular file: a FIFO, a socket, a dangling
        symlink).
    :raises FileNotFoundError: a given path does not exist.
    """
    inputs: list[Path] = []
    skipped: list[Path] = []
    seen: set[Path] = set()

    def take(p: Path) -> None:
        if p in seen:
            return
        seen.add(p)
        # only regular files (symlinks to them too): a FIFO would block, a dangling link fails
        (inputs if has_input_suffix(p) and p.is_file() else skipped).append(p)

    for given in paths:
        p = Path(given).absolute()
        if not p.exists():
            raise FileNotFoundError(f"no such file or folder: {given}")
        if p.is_dir():
            for root, dirs, files in os.walk(p):
                dirs.sort()
                for name in sorted(files):
                    take(Path(root, name))
        else:
            take(p)
    return inputs, skipped


class _ZstdChunks:
    """Decompressed chunks of a (multi-frame) zstd file that notices truncation.

    ``zstandard``'s ``stream_reader`` returns end-of-data silently on a cut-off frame, so the
    frames are decoded with ``decompressobj`` and an unfinished frame at the end raises.
    """

    def __init__(self, fh: BinaryIO) -> None:
        self.fh = fh
        self.dctx = zstandard.ZstdDecompressor()
        self.obj = None
        self.error: Exception | None = None  # raised on the call after the data decoded before it

    def read(self) -> bytes:
        """The next non-empty decompressed chunk; ``b""`` at a clean end.

        Data decoded before a corrupt frame is returned first; the error comes on the next call.

        :raises EOFError: the file ends inside a frame.
        :raises zstandard.ZstdError: corrupt data.
        """
        if self.error is not None:
            raise self.error
        while True:
            data = self.fh.read(_CHUNK)
            if not data:
                if self.obj is not None and not self.obj.eof:
                    raise EOFError("zstd stream ended inside a frame")
                return b""
            out = []
            try:
                while data:
                    if self.obj is None:
                        self.obj = self.dctx.decompressobj()
                    out.append(self.obj.decompress(data))
                    if self.obj.eof:
                        data = self.obj.unused_data
                        self.obj = None
                    else:
                        data = b""
            except zstandard.ZstdError as e:
                if not any(out):
                    raise
                self.error = e
            got = b"".join(out)
            if got:
                return got


def _chunk_reader(path: Path, fh: BinaryIO) -> Callable[[], bytes]:
    """A function returning the next decompressed chunk (``b""`` at the end)."""
    if path.name.endswith(".gz"):
        gz = gzip.GzipFile(fileobj=fh, mode="rb")
        return lambda: gz.read1(_CHUNK)  # read1: nothing decoded is lost when the next read fails
    if path.name.endswith(".zst"):
        return _ZstdChunks(fh).read
    return lambda: fh.read(_CHUNK)


def _problem_line(source: str, line_no: int, head: bytes, sha: str, n: int,
                  code: str, rule: str, message: str) -> Line:
    return Line(source, line_no, head[:RAW_KEEP], Problem(code, rule, message, sha, n))


def read_lines(path: Path | str, *, max_line_bytes: int = MAX_LINE_BYTES,
               stats: FileStats | None = None) -> Iterator[Line]:
    """Yield the non-blank lines of one input file (see the module docstring for the rules).

    :param path: a ``.jsonl``, ``.jsonl.gz`` or ``.jsonl.zst`` file (the suffix picks the codec).
    :param max_line_bytes: longest accepted line in bytes, terminator excluded.
    :param stats: filled in while reading (lines, blank, oversize, error, content hash).
    :returns: an iterator of :class:`Line`; ``line.problem`` is set for lines rejected here.
        Never raises for bad or unreadable content.
    """
    path = Path(path)
    source = str(path)
    st = stats if stats is not None else FileStats(source)
    limit = max_line_bytes
    content = hashlib.sha256()
    line_no = 0
    pending = bytearray()  # the current line so far, while it is within the limit
    over = None  # hash of the current line once it is over the limit
    over_head = b""
    over_len = 0
    over_hold = b""  # the over-long line's last byte, not hashed yet: a "\r" there is the terminator's

    def over_feed(piece: bytes) -> None:
        nonlocal over_len, over_hold, over_head
        if not piece:
            return
        assert over is not None
        if len(over_head) < RAW_KEEP + 1:
            over_head += piece[:RAW_KEEP + 1 - len(over_head)]
        over.update(over_hold)
        over.update(piece[:-1])
        over_len += len(piece)
        over_hold = piece[-1:]

    def over_end(at_terminator: bool) -> tuple[bytes, str, int]:
        """Head, SHA-256 and length of the over-long line (a final "\r" dropped at a newline)."""
        nonlocal over, over_head, over_len, over_hold
        assert over is not None
        n = over_len
        if at_terminator and over_hold == b"\r":
            n -= 1
        else:
            over.update(over_hold)
        out = (over_head[:min(n, RAW_KEEP)], over.hexdigest(), n)
        over, over_head, over_len, over_hold = None, b"", 0, b""
        return out

    def finish(raw: bytes) -> Line | None:
        if over is not None:
            st.oversize += 1
            head, sha, n = over_end(True)
            return _problem_line(source, line_no, head, sha, n, "schema", "paipu.line_size",
                                 f"line of {n} bytes is longer than the {limit}-byte limit; not parsed")
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        if len(raw) > limit:
            st.oversize += 1
            return _problem_line(source, line_no, raw, hashlib.sha256(raw).hexdigest(), len(raw), "schema",
                                 "paipu.line_size",
                                 f"line of {len(raw)} bytes is longer than the {limit}-byte limit; not parsed")
        if not raw.strip():
            st.blank += 1
            return None
        return Line(source, line_no, raw)

    try:
        st.size = path.stat().st_size
        fh = open(path, "rb")
    except OSError as e:
        st.error = f"cannot open: {e}"
        st.lines = 1
        yield _problem_line(source, 1, b"", hashlib.sha256(b"").hexdigest(), 0, "bad_json", "paipu.io",
                            f"{path.name}: {st.error}")
        return
    with fh:
        read = _chunk_reader(path, fh)
        start = b""  # the first bytes, held until a BOM can be told apart (it is dropped)
        started = False
        try:
            while True:
                chunk = read()
                st.bytes_in = fh.tell()
                content.update(chunk)
                if not started:
                    start += chunk
                    if len(start) < len(_BOM) and chunk:
                        continue
                    chunk = start[len(_BOM):] if start.startswith(_BOM) else start
                    started = True
                    if not chunk and start:
                        continue
                if not chunk:
                    break
                pos = 0
                n = len(chunk)
                while pos <= n:
                    nl = chunk.find(b"\n", pos)
                    end = n if nl < 0 else nl
                    if over is None and not pending and nl >= 0:
                        raw: bytes | None = chunk[pos:end]  # common case: the whole line is in this chunk
                    else:
                        raw = None
                        piece = chunk[pos:end]
                        if over is not None:
                            over_feed(piece)
                        elif len(pending) + len(piece) > limit + 1:  # +1: room for a "\r"
                            over = hashlib.sha256()
                            over_feed(bytes(pending))
                            over_feed(piece)
                            pending.clear()
                        else:
                            pending += piece
                    if nl < 0:
                        break
                    line_no += 1
                    st.lines = line_no
                    if raw is None:
                        raw = bytes(pending)
                        pending.clear()
                    out = finish(raw)
                    if out is not None:
                        yield out
                    pos = nl + 1
        except (EOFError, OSError, zlib.error, zstandard.ZstdError) as e:
            kind = "compression" if path.name.endswith((".gz", ".zst")) else "io"
            st.error = f"{'truncated or corrupt compressed stream' if kind == 'compression' else 'read error'}: {e}"
            line_no += 1
            st.lines = line_no
            if over is not None:
                head, sha, n_cut = over_end(False)
            else:
                head = bytes(pending)
                sha, n_cut = hashlib.sha256(head).hexdigest(), len(head)
            yield _problem_line(source, line_no, head, sha, n_cut, "bad_json", f"paipu.{kind}",
                                f"{path.name}: {st.error}; input stops after line {line_no - 1}"
                                f" ({n_cut} bytes of a cut-off line kept)")
            st.content_sha256 = content.hexdigest()
            return
        if pending or over is not None:  # last line without a newline
            line_no += 1
            st.lines = line_no
            out = finish(bytes(pending))
            pending.clear()
            if out is not None:
                yield out
    st.content_sha256 = content.hexdigest()
