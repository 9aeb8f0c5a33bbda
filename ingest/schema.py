"""Arrow schemas of the warehouse tables (docs/warehouse.md).

One place for the column names and types, shared by the writer (``ingest.rows``) and the
readers (``ingest.views`` builds typed empty views from it). The partition columns
``variant`` and ``month`` are not stored in the files: they come from the hive path
``variant=<id>/month=<YYYY-MM>/``.
"""

from __future__ import annotations

import pyarrow as pa

PARTITION = "variant"
"""First hive partition key of every table."""

MONTH = "month"
"""Second hive partition key of every table: ``YYYY-MM`` (UTC) of the game's ``started_at``, else
of the run's ``ingested_at``; a game's child rows (seats, actions, melds …) share its month."""

SHARD_GLOB = f"{PARTITION}=*/{MONTH}=*/*.parquet"
"""The shards of one table, relative to its folder: ``variant=<id>/month=<YYYY-MM>/<name>.parquet``."""

OLD_SHARD_GLOB = f"{PARTITION}=*/*.parquet"
"""Shards of the layout before month partitions (``variant=<id>/<name>.parquet``): still read by
``ingest.views``; ``ingest.warehouse`` moves them into month folders when it opens a warehouse."""

UNKNOWN_VARIANT = "_unknown"
"""Partition of rejects whose line names no paipu/1 variant id (unreadable, or not an id)."""

_S = pa.string()
_I = pa.int64()
_B = pa.bool_()
_TS = pa.timestamp("us", tz="UTC")
_LS = pa.list_(pa.string())

TABLES: dict[str, pa.Schema] = {
    "games": pa.schema([
        ("game_id", _S), ("ruleset_id", _S), ("rules_json", _S), ("engine_version", _S),
        ("record_sha256", _S), ("source_file", _S), ("source_line", _I), ("started_at", _TS),
        ("table_id", _S), ("round", _I), ("stake", _I), ("n_seats", _I), ("dealer", _I),
        ("valid", _B), ("error_code", _S), ("error_rule", _S), ("error_message", _S),
        ("error_step", _I), ("n_errors", _I), ("n_actions", _I), ("outcome", _S), ("winner", _I),
        ("win_card", _S), ("win_from", _I), ("win_kind", _S), ("points", _I), ("units", _I),
        ("tuo", _I), ("hand_types", _LS), ("xing_count", _I), ("breakdown_json", _S),
        ("claimed", _B), ("claim_matches", _B), ("wall_left", _I), ("record_json", _S),
        ("ingested_at", _TS), ("experiment", _S), ("bao", _I),
    ]),
    "seats": pa.schema([
        ("game_id", _S), ("ruleset_id", _S), ("seat", _I), ("player_id", _S), ("is_dealer", _B),
        ("is_winner", _B), ("score", _I), ("dianpao", _B), ("n_melds", _I), ("win_kind", _S),
        ("valid", _B), ("experiment", _S),
    ]),
    "actions": pa.schema([
        ("game_id", _S), ("step", _I), ("seat", _I), ("act", _S), ("card", _S), ("cards", _LS),
        ("from_seat", _I), ("tail", _B), ("to_hand", _B), ("t_ms", _I),
    ]),
    "melds": pa.schema([
        ("game_id", _S), ("seat", _I), ("kind", _S), ("cards", _LS), ("points", _I), ("origin", _S),
    ]),
    "xing": pa.schema([
        ("game_id", _S), ("ruleset_id", _S), ("winner", _I), ("mode", _S), ("cards", _LS),
        ("count", _I),
    ]),
    # 花牌 family and 上大人: one row per 精 character the winner holds
    "jing": pa.schema([
        ("game_id", _S), ("ruleset_id", _S), ("winner", _I), ("main", _S), ("char", _S),
        ("hua", _I), ("su", _I), ("count", _I), ("hu", _I), ("is_main", _B),
    ]),
    # 通城個子牌: one row per win, 個子 from cards vs from melds
    "gezi": pa.schema([
        ("game_id", _S), ("ruleset_id", _S), ("n_seats", _I), ("winner", _I), ("points", _I),
        ("from_cards", _I), ("from_melds", _I), ("hua_cards", _I), ("special", _S), ("units", _I),
    ]),
    "rejects": pa.schema([
        ("source_file", _S), ("source_line", _I), ("game_id", _S), ("code", _S), ("step", _I),
        ("rule", _S), ("message", _S), ("raw_sha256", _S), ("raw", _S), ("raw_bytes", _I),
        ("claimed_variant", _S), ("ingested_at", _TS),
    ]),
}

RUNS_TABLE = "ingest_runs"
"""Folder of the run log: ``ROOT/ingest_runs/<run_id>.parquet``, one row per run (no partitions)."""

_FILE = pa.struct([
    ("path", _S), ("content_sha256", _S), ("lines", _I), ("blank", _I), ("read", _I), ("valid", _I),
    ("invalid", _I), ("rejected", _I), ("duplicate", _I), ("oversize", _I), ("error", _S),
])

RUNS = pa.schema([
    ("run_id", _S), ("status", _S), ("started_at", _TS), ("finished_at", _TS), ("engine_version", _S),
    ("engine", _S), ("workers", _I), ("host", _S), ("pseudonymized", _B), ("n_files", _I),
    ("lines", _I), ("blank", _I), ("read", _I), ("valid", _I), ("invalid", _I), ("rejected", _I),
    ("duplicate", _I), ("skipped", _LS), ("rows_json", _S), ("files", pa.list_(_FILE)),
])
"""Schema of ``ingest_runs``: status ``done`` or ``interrupted`` (killed before it finished; its
counts are then those of the files it had committed)."""

_DUCK = {pa.string(): "VARCHAR", pa.int64(): "BIGINT", pa.bool_(): "BOOLEAN",
         _TS: "TIMESTAMPTZ", _LS: "VARCHAR[]"}


def duckdb_type(t: pa.DataType) -> str:
    """DuckDB type name of an Arrow type used in :data:`TABLES`.

    :raises KeyError: a type the tables do not use.
    """
    return _DUCK[t]
