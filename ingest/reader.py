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
- What a folder holds is read only where it lies inside the folders and files named (the input
  roots): a symlink found there that leads outside them is not followed, nor is a symlink to a
  folder, and a folder that cannot be listed is not passed over: each is an input of its own that
  the reader turns into one reject (``bad_json`` / ``paipu.symlink`` or ``paipu.io``), so it is
  counted and the run says so. Whoever can drop a file into a log folder cannot make the ingest
  read (and store in ``rejects.raw``) a file elsewhere. Only regular files are read: a FIFO, a
  socket or a device is skipped, as is a file with another suffix.
- A source is named by :func:`~replay.record.source_text` of its absolute path: one text per
  path, so two files never share a ``source_file`` (re-ingesting one replaces only its own rows).
"""

from __future__ import annotations

import gzip
import hashlib
import os
import stat
import zlib
from dataclasses import dataclass
from pathlib import Path, PosixPath
from typing import BinaryIO, Callable, Iterable, Iterator, NamedTuple

import zstandard

from replay.record import source_text

SUFFIXES = (".jsonl", ".jsonl.gz", ".jsonl.zst")
MAX_LINE_BYTES = 1 << 20
"""Default longest accepted line, terminator excluded (spec §1: 1 MiB)."""
RAW_KEEP = 4096
"""Bytes of a rejected line kept in ``rejects.raw``."""
_CHUNK = 1 << 20
_ZSTD_FEED = 64
"""Compressed bytes given to the zstd decoder at a time: their output is at most about 16
blocks of 128 KiB (a block takes at least 4 bytes), so no input can make one call's output large."""
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


class Refused(PosixPath):
    """An input found in a folder that the reader does not read (see the module docstring):
    :func:`read_lines` yields one reject for it, with ``rule`` and ``reason``."""

    rule = "paipu.io"
    reason = ""


class Listed(PosixPath):
    """An input file as :func:`find_inputs` listed it: ``ident`` is the (device, inode) of the
    regular file it named then. :func:`read_lines` reads it only if the file it opens is that one,
    so a symlink or a FIFO swapped in after the listing is never read."""

    ident: tuple[int, int] | None = None


def _listed(path: Path) -> Path:
    out = Listed(path)
    try:
        st = path.stat()
    except OSError:  # vanished since: read_lines reports it
        return out
    out.ident = (st.st_dev, st.st_ino)
    return out


def _refused(path: Path, rule: str, reason: str) -> Refused:
    out = Refused(path)
    out.rule, out.reason = rule, reason
    return out


def has_input_suffix(path: Path) -> bool:
    """True when ``path`` ends in one of :data:`SUFFIXES`."""
    return path.name.endswith(SUFFIXES)


def find_inputs(paths: Iterable[Path | str]) -> tuple[list[Path], list[Path]]:
    """Expand files and folders into the input files, in a stable order.

    Folders are walked top-down, names sorted (a folder's files, then its subfolders). Only files
    with one of :data:`SUFFIXES` are read, also when named directly. A file reached twice is
    read once. In a folder, a symlink that leads outside every given path, a symlink to a
    folder and a folder that cannot be listed are :class:`Refused` inputs (one reject each).

    :returns: ``(inputs, skipped)``: absolute paths of the files to read (:class:`Refused` ones
        among them), and of the files found that were not read (wrong suffix, or not a regular
        file: a FIFO, a socket, a device, a dangling symlink).
    :raises FileNotFoundError: a given path does not exist.
    """
    inputs: list[Path] = []
    skipped: list[Path] = []
    seen: set[Path] = set()
    given_paths = [Path(g).absolute() for g in paths]
    for g, p in zip(paths, given_paths):
        if not p.exists():
            raise FileNotFoundError(f"no such file or folder: {g}")
    roots = [p.resolve() for p in given_paths]

    def inside(p: Path) -> bool:
        target = p.resolve()
        return any(target == r or target.is_relative_to(r) for r in roots)

    def take(p: Path, walked: bool) -> None:
        if p in seen:
            return
        seen.add(p)
        if walked and p.is_symlink() and p.exists() and not inside(p):  # a dangling link is skipped below
            if has_input_suffix(p):
                inputs.append(_refused(p, "paipu.symlink", "a symlink that leads outside the input folders: not read"))
            else:
                skipped.append(p)
            return
        # only regular files (symlinks to them too): a FIFO would block, a dangling link fails
        if has_input_suffix(p) and p.is_file():
            inputs.append(_listed(p))
        else:
            skipped.append(p)

    def unlisted(e: OSError) -> None:
        where = Path(e.filename) if e.filename else None
        if where is not None and where not in seen:
            seen.add(where)
            inputs.append(_refused(where, "paipu.io", f"cannot list the folder: {e.strerror or e}"))

    for p in given_paths:
        if p.is_dir():
            for root, dirs, files in os.walk(p, onerror=unlisted):
                dirs.sort()
                for name in sorted(files):
                    take(Path(root, name), True)
                for name in dirs:
                    d = Path(root, name)
                    if d.is_symlink():  # os.walk does not follow it: say so rather than pass it over
                        seen.add(d)
                        inputs.append(_refused(d, "paipu.symlink", "a symlink to a folder: not followed"))
        else:
            take(p, False)
    return inputs, skipped


class _ZstdChunks:
    """Decompressed chunks of a (multi-frame) zstd file that notices truncation, in bounded memory.

    ``zstandard``'s ``stream_reader`` returns end-of-data silently on a cut-off frame, so the
    frames are decoded with ``decompressobj`` and an unfinished frame at the end raises. Its
    ``decompress`` has no output bound and a few bytes of zstd can stand for a 128 KiB block, so
    the compressed bytes go in :data:`_ZSTD_FEED` at a time and a chunk ends once it holds
    :data:`_CHUNK` bytes: a chunk is at most about ``_CHUNK`` + 2 MiB, however the file expands.
    """

    def __init__(self, fh: BinaryIO) -> None:
        self.fh = fh
        self.dctx = zstandard.ZstdDecompressor()
        self.obj: zstandard.ZstdDecompressionObj | None = None
        self.data = b""  # compressed bytes read and not yet fed
        self.at = 0
        self.error: Exception | None = None  # raised on the call after the data decoded before it

    def read(self) -> bytes:
        """The next non-empty decompressed chunk; ``b""`` at a clean end.

        Data decoded before a corrupt frame is returned first; the error comes on the next call.

        :raises EOFError: the file ends inside a frame.
        :raises zstandard.ZstdError: corrupt data.
        """
        if self.error is not None:
            raise self.error
        out: list[bytes] = []
        size = 0
        try:
            while size < _CHUNK:
                if self.at >= len(self.data):
                    self.data, self.at = self.fh.read(_CHUNK), 0
                    if not self.data:
                        if self.obj is not None and not self.obj.eof:
                            raise EOFError("zstd stream ended inside a frame")
                        break
                piece = self.data[self.at:self.at + _ZSTD_FEED]
                self.at += len(piece)
                while piece:
                    if self.obj is None:
                        self.obj = self.dctx.decompressobj()
                    got = self.obj.decompress(piece)
                    out.append(got)
                    size += len(got)
                    if self.obj.eof:
                        piece = self.obj.unused_data
                        self.obj = None
                    else:
                        piece = b""
        except (zstandard.ZstdError, EOFError) as e:
            if not size:
                raise
            self.error = e
        return b"".join(out)


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
    refused = path if isinstance(path, Refused) else None
    listed = path.ident if isinstance(path, Listed) else None
    path = Path(path)
    source = source_text(str(path))
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

    if refused is not None:
        st.error = refused.reason
        st.lines = 1
        yield _problem_line(source, 1, b"", hashlib.sha256(b"").hexdigest(), 0, "bad_json", refused.rule,
                            f"{path.name}: {refused.reason}")
        return
    try:
        # non-blocking: a FIFO swapped in since the listing is refused below, never waited on
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as e:
        st.error = f"cannot open: {e}"
        st.lines = 1
        yield _problem_line(source, 1, b"", hashlib.sha256(b"").hexdigest(), 0, "bad_json", "paipu.io",
                            f"{path.name}: {st.error}")
        return
    opened = os.fstat(fd)
    swapped = listed is not None and (opened.st_dev, opened.st_ino) != listed
    if swapped or not stat.S_ISREG(opened.st_mode):
        os.close(fd)
        st.error = ("not the file that was listed (replaced since, by a link or another file): not read" if swapped
                    else "not a regular file: not read")
        st.lines = 1
        yield _problem_line(source, 1, b"", hashlib.sha256(b"").hexdigest(), 0, "bad_json",
                            "paipu.symlink" if swapped else "paipu.io", f"{path.name}: {st.error}")
        return
    os.set_blocking(fd, True)
    st.size = opened.st_size
    fh = os.fdopen(fd, "rb")
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
