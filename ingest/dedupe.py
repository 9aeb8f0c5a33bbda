"""What is already stored: one ``games`` row per ``game_id``, one ``rejects`` row per rejected line.

Inside an ingest run's transaction, each input file's rows are screened, in input order, against
what the catalog holds for that file's ``game_id``s and raw hashes (looked up in the transaction,
so earlier files of the run and every committed run count) plus the file's own earlier lines
(docs/warehouse.md, "Duplicates"):

- a game whose ``game_id`` is stored with the same ``record_sha256`` is a **duplicate**: its rows
  are dropped and the line is counted as ``duplicate``;
- a game whose ``game_id`` is stored with a *different* ``record_sha256`` becomes a reject
  ``duplicate_game`` (rule ``paipu.duplicate_game``) whose message names both sources;
- a rejected line whose bytes (``raw_sha256``) are already stored as a reject is a duplicate too,
  except the reader's rows about a file (``paipu.compression``, ``paipu.io``), which are not lines.

Rows of the file being re-ingested do not count as stored: the run deletes them in its transaction
before it screens the file (``ingest.warehouse.Warehouse.replace_source``). First seen wins: the
run reads files in their sorted order, lines in order. ``paipu validate`` uses the same rule
within one run (:meth:`Index.begin` per file, no catalog).

Memory: one dict entry per game of the file being screened (its ``game_id`` plus one packed int),
never an index of the whole warehouse.
"""

from __future__ import annotations

from typing import Any, Iterable

import pyarrow as pa
import pyarrow.compute as pc

from ingest.rows import LINE, Batch, Counts

READER_RULES = frozenset({"paipu.compression", "paipu.io", "paipu.symlink"})
"""Reject rules about a whole file (not a line): never deduplicated."""

_M64 = (1 << 64) - 1
_M40 = (1 << 40) - 1


def _h64(hexdigest: str) -> int:
    return int(hexdigest[:16], 16)


class Index:
    """``game_id`` → stored game, raw hash → stored reject, with the source of each.

    Values pack ``hash64 | line << 64 | origin << 104`` (games) and ``line | origin << 40``
    (rejects); ``origin`` numbers a (shard prefix, source file) pair, and an origin in
    :attr:`dead` (rows about to be replaced) does not count as stored.
    """

    def __init__(self) -> None:
        self.games: dict[str, int] = {}
        self.rejects: dict[int, int] = {}
        self.sources: list[str] = []  # origin -> source file
        self.stored: dict[str, int] = {}  # shard prefix -> origin of the rows already in place
        self.dead: set[int] = set()

    def _origin(self, source: str) -> int:
        self.sources.append(source)
        return len(self.sources) - 1

    def prefill(self, games: Iterable[tuple[str, str, str, int]], rejects: Iterable[tuple[str, str, str, int]]) -> None:
        """Remember rows the warehouse already holds (looked up in the catalog for one file's
        lines: ``ingest.warehouse.Warehouse.stored_games`` / ``stored_rejects``).

        :param games: ``(game_id, record_sha256, source_file, source_line)``.
        :param rejects: ``(raw_sha256, rule, source_file, source_line)``.
        """
        origins: dict[str, int] = {}
        for gid, sha, source, line in games:
            o = origins.get(source)
            if o is None:
                o = origins[source] = self._origin(source)
            self.games.setdefault(gid, _h64(sha) | (line & _M40) << 64 | o << 104)
        for sha, rule, source, line in rejects:
            if rule in READER_RULES:
                continue
            o = origins.get(source)
            if o is None:
                o = origins[source] = self._origin(source)
            self.rejects.setdefault(_h64(sha), (line & _M40) | o << 40)

    def begin(self, prefix: str, source: str) -> int:
        """Start a file whose shards (``prefix``) will replace what that prefix holds now.

        :returns: the origin of the file's rows in this run.
        """
        old = self.stored.pop(prefix, None)
        if old is not None:
            self.dead.add(old)
        return self._origin(source)

    def _where(self, origin: int, line: int) -> str:
        return f"{self.sources[origin]}:{line}"

    def screen(self, tables: dict[str, pa.Table], origin: int,
               counts: Counts) -> tuple[dict[str, pa.Table], Counts]:
        """Drop the rows of duplicate lines and turn conflicting games into ``duplicate_game``
        rejects; strip the private ``_line`` column.

        :param tables: every table of consecutive lines of the file (a segment: ``ingest.run.Segment``;
            with ``variant``, ``month`` and ``_line``), lines in order.
        :param origin: the segment's file, from :meth:`begin`.
        :param counts: the segment's counts from the workers.
        :returns: the tables to store (``variant`` and ``month`` kept; a ``duplicate_game`` reject
            goes in its game row's month) and the counts with duplicates moved.
        """
        out = Counts(counts.valid, counts.invalid, counts.rejected, counts.duplicate, counts.defaulted)
        drop: set[int] = set()
        conflicts: list[tuple[int, str]] = []  # (row in games, message)
        games = tables.get("games")
        if games is not None:
            for i, (gid, sha, line, valid) in enumerate(zip(
                    games.column("game_id").to_pylist(), games.column("record_sha256").to_pylist(),
                    games.column("source_line").to_pylist(), games.column("valid").to_pylist())):
                seen = self.seen_game(gid, sha, line, origin)
                if seen is None:
                    continue
                drop.add(line)
                if valid:
                    out.valid -= 1
                else:
                    out.invalid -= 1
                if seen == "":
                    out.duplicate += 1
                else:
                    conflicts.append((i, seen))
        rejects = tables.get("rejects")
        if rejects is not None:
            for sha, rule, line in zip(rejects.column("raw_sha256").to_pylist(), rejects.column("rule").to_pylist(),
                                       rejects.column("source_line").to_pylist()):
                if self.seen_reject(sha, rule, line, origin):
                    drop.add(line)
                    out.rejected -= 1
                    out.duplicate += 1
        extra = None
        if conflicts:
            assert games is not None
            batch = Batch(games.column("ingested_at")[0].as_py())
            cols = games.select(["game_id", "record_sha256", "source_line", "source_file", "record_json",
                                 "variant", "month"]).to_pylist()
            for i, message in conflicts:
                g = cols[i]
                if self._seen_reject(g["record_sha256"], g["source_line"], origin):
                    out.duplicate += 1
                    continue
                raw = g["record_json"].encode("utf-8", "surrogatepass")
                batch.add_reject(g["source_file"], g["source_line"], raw, "duplicate_game", "paipu.duplicate_game",
                                 message, game_id=g["game_id"], raw_sha256=g["record_sha256"],
                                 raw_bytes=len(raw), claimed_variant=g["variant"], month=g["month"])
                out.rejected += 1
            extra = batch.to_arrow().get("rejects")
        result: dict[str, pa.Table] = {}
        gone = pa.array(sorted(drop), pa.int64()) if drop else None
        for name, t in tables.items():
            t = _without_lines(t, gone)
            if name == "rejects" and extra is not None:
                t = pa.concat_tables([t, extra])
            if t.num_rows:
                result[name] = t.drop_columns([LINE])
        if extra is not None and "rejects" not in tables and extra.num_rows:
            result["rejects"] = extra.drop_columns([LINE])
        return result, out

    def seen_game(self, gid: str, sha: str, line: int, origin: int) -> str | None:
        """Screen one game line (``record_sha256`` ``sha``) of ``origin``: None when its ``game_id``
        is new (it is remembered), ``""`` when it is stored with the same hash (a duplicate), else
        the message of its ``duplicate_game`` reject (naming both sources)."""
        key = self.games.get(gid)
        if key is None or key >> 104 in self.dead:
            self.games[gid] = _h64(sha) | (line & _M40) << 64 | origin << 104
            return None
        if key & _M64 == _h64(sha):
            return ""
        first = self._where(key >> 104, key >> 64 & _M40)
        return (f"game_id `{gid}` is already stored from {first} (record_sha256 {key & _M64:016x}…) with "
                f"different content; this line, {self._where(origin, line)}, has record_sha256 {sha[:16]}…")

    def seen_reject(self, sha: str, rule: str, line: int, origin: int) -> bool:
        """True when a rejected line's bytes (``raw_sha256`` ``sha``) are already stored as a reject
        (a duplicate); else they are remembered. A reader row about a file never is."""
        return rule not in READER_RULES and self._seen_reject(sha, line, origin)

    def _seen_reject(self, sha: str, line: int, origin: int) -> bool:
        """True when these bytes are already stored as a reject; else remember them."""
        h = _h64(sha)
        key = self.rejects.get(h)
        if key is not None and key >> 40 not in self.dead:
            return True
        self.rejects[h] = (line & _M40) | origin << 40
        return False


def _without_lines(t: pa.Table, gone: pa.Array | None) -> pa.Table:
    """``t`` without the rows whose ``_line`` is in ``gone`` (None: all of ``t``)."""
    return t if gone is None else t.filter(pc.invert(pc.is_in(t.column(LINE), value_set=gone)))


def strip_line(tables: dict[str, Any]) -> dict[str, pa.Table]:
    """The tables without the private ``_line`` column (when no index screens them)."""
    return {k: (t.drop_columns([LINE]) if LINE in t.column_names else t) for k, t in tables.items()}
