"""Queries of the audit page's search: games by id, player (and a second player), table, date,
error code and hand type; rejected lines by code or id. Every value is a bound parameter; an
empty value means "any"."""

from __future__ import annotations

from dataclasses import dataclass, fields
from datetime import date
from typing import Any

import duckdb
import polars as pl

from dashboards.data import Filters, _q, scope

MAX_TEXT = 128
"""Longest search text kept (ids in paipu/1 are at most 128 characters)."""


@dataclass(frozen=True)
class Search:
    """One search. ``text`` matches part of a game id (case-insensitive, no wildcards); ``player``
    and ``with_player`` are exact player ids (both must have sat in the game); ``table`` an exact
    ``table_id``; ``day`` the UTC date the game started; ``code`` an error code (of the game's first
    error, or of a rejected line); ``hand_type`` a hand-type id of a win."""

    text: str = ""
    player: str = ""
    with_player: str = ""
    table: str = ""
    day: date | None = None
    code: str = ""
    hand_type: str = ""

    @property
    def empty(self) -> bool:
        return not any(getattr(self, f.name) for f in fields(self))

    def params(self) -> dict[str, Any]:
        return {"text": self.text[:MAX_TEXT], "player": self.player[:MAX_TEXT],
                "with_player": self.with_player[:MAX_TEXT], "table_id": self.table[:MAX_TEXT], "day": self.day,
                "code": self.code[:MAX_TEXT], "hand_type": self.hand_type[:MAX_TEXT]}


def parse_day(text: str) -> date | None:
    """``YYYY-MM-DD`` as a date; None when empty or not a date."""
    try:
        return date.fromisoformat(text.strip()[:10]) if text.strip() else None
    except ValueError:
        return None


def games(con: duckdb.DuckDBPyConnection, f: Filters, s: Search, limit: int = 200) -> pl.DataFrame:
    """Games matching ``s`` within the sidebar's variant/ruleset/experiment scope (valid and invalid
    alike), newest first: game_id, started_at, variant, ruleset_id, table_id, players (by seat),
    valid, error_code, outcome, winner, hand_types, points, units."""
    has_seat = "EXISTS (SELECT 1 FROM seats s WHERE s.game_id = g.game_id AND s.variant = g.variant AND s.player_id = {})"
    return _q(con, f"""
        SELECT g.game_id, g.started_at, g.variant, g.ruleset_id, g.table_id,
               (SELECT string_agg(s.player_id, ' · ' ORDER BY s.seat) FROM seats s
                WHERE s.game_id = g.game_id AND s.variant = g.variant) AS players,
               g.valid, g.error_code, g.outcome, g.winner, g.hand_types, g.points, g.units
        FROM games g
        WHERE {scope(con, f=f)}
          AND ($text = '' OR contains(lower(g.game_id), lower($text)))
          AND ($player = '' OR {has_seat.format('$player')})
          AND ($with_player = '' OR {has_seat.format('$with_player')})
          AND ($table_id = '' OR g.table_id = $table_id)
          AND ($day IS NULL OR CAST(timezone('UTC', g.started_at) AS DATE) = $day)
          AND ($code = '' OR g.error_code = $code)
          AND ($hand_type = '' OR list_contains(g.hand_types, $hand_type))
        ORDER BY g.started_at DESC NULLS LAST, g.game_id LIMIT $limit""",
              {**f.scope_params(), **s.params(), "limit": int(limit)})


def rejects(con: duckdb.DuckDBPyConnection, f: Filters, s: Search, limit: int = 200) -> pl.DataFrame:
    """Rejected lines matching ``s``'s code and id text (a search naming a player, table, date or
    hand type finds none: rejects have no trusted fields): source_file, source_line, game_id, code,
    rule, message, raw (first 300 characters)."""
    if s.player or s.with_player or s.table or s.day or s.hand_type or not (s.code or s.text):
        return pl.DataFrame(schema={"source_file": pl.String, "source_line": pl.Int64, "game_id": pl.String,
                                    "code": pl.String, "rule": pl.String, "message": pl.String, "raw": pl.String})
    p = s.params()
    return _q(con, """
        SELECT r.source_file, r.source_line, r.game_id, r.code, r.rule, r.message, left(r.raw, 300) AS raw
        FROM rejects r
        WHERE (len($variants::VARCHAR[]) = 0 OR list_contains($variants::VARCHAR[], r.variant) OR r.variant = '_unknown')
          AND ($code = '' OR r.code = $code)
          AND ($text = '' OR contains(lower(coalesce(r.game_id, '')), lower($text)))
        ORDER BY r.source_file, r.source_line LIMIT $limit""",
              {"variants": list(f.variants), "code": p["code"], "text": p["text"], "limit": int(limit)})


def choices(con: duckdb.DuckDBPyConnection) -> dict[str, list[str]]:
    """Error codes (games' and rejects') and hand types present, for the search's pick lists."""
    codes = _q(con, """SELECT code FROM (SELECT error_code AS code FROM games UNION SELECT code FROM rejects)
                       WHERE code IS NOT NULL ORDER BY 1""")["code"].to_list()
    types = _q(con, "SELECT DISTINCT unnest(hand_types) AS t FROM games ORDER BY 1")["t"].to_list()
    return {"codes": codes, "hand_types": [t for t in types if t is not None]}
