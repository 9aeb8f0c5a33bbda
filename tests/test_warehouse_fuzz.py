"""Bounded fuzz of decoding and replay: valid logs of every implemented variant, mutated
at the byte level and at the JSON level, go through the worker's path (``process_chunk``: reader
checks, replay, rows, Arrow). Every line must end as exactly one ``games`` or ``rejects`` row —
no exception, and no ``engine_error`` (that would be the engine raising on bad content)."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from functools import lru_cache
from pathlib import Path

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ingest.reader import Line
from ingest.rows import process_chunk
from replay.simulator import simulate
from replay.variants import VARIANTS

DATA = Path(__file__).resolve().parent.parent / "data"
NOW = datetime(2026, 11, 29, tzinfo=timezone.utc)
FUZZ = settings(max_examples=400, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@lru_cache(maxsize=1)
def seeds() -> tuple[bytes, ...]:
    """The worked example and one simulated game per implemented variant."""
    out = [(DATA / "guilin-short.jsonl").read_bytes().strip()]
    for v in VARIANTS.values():
        if v.implemented:
            out += [msgspec.json.encode(r) for r in simulate(v.id, 1, seed=11)]
    return tuple(out)


def check(raw: bytes) -> None:
    res = process_chunk(0, 0, [Line("fuzz.jsonl", 1, raw)], NOW)
    games = res.tables.get("games")
    rejects = res.tables.get("rejects")
    n_games = games.num_rows if games is not None else 0
    n_rej = rejects.num_rows if rejects is not None else 0
    assert n_games + n_rej == 1 and res.counts.read == 1
    if rejects is not None:
        (r,) = rejects.to_pylist()
        assert r["code"] != "engine_error", r["message"]
        assert r["code"] in {"bad_json", "schema", "unknown_variant"}, r
    else:
        (g,) = games.to_pylist()
        assert g["valid"] or g["error_code"], g
        for t in ("seats", "actions"):
            assert all(x == g["game_id"] for x in res.tables[t].column("game_id").to_pylist())


@st.composite
def byte_mutation(draw) -> bytes:
    raw = bytearray(draw(st.sampled_from(seeds())))
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(raw) - 1))
        kind = draw(st.sampled_from(["flip", "delete", "insert", "dup", "cut"]))
        if kind == "flip":
            raw[i] ^= 1 << draw(st.integers(0, 7))
        elif kind == "delete":
            del raw[i:i + draw(st.integers(1, 40))]
        elif kind == "insert":
            raw[i:i] = draw(st.binary(min_size=1, max_size=8).filter(lambda b: b"\n" not in b))
        elif kind == "dup":
            raw[i:i] = raw[i:i + draw(st.integers(1, 60))]
        else:
            del raw[i:]
        if not raw:
            raw = bytearray(b"{")
    return bytes(raw.replace(b"\n", b" "))


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2 ** 70), 2 ** 70) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12) | st.sampled_from(["x1", "d10", "花三", "上", "賴", "pass", "hu", "chi", "win", "draw"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8)


def _paths(obj, prefix=()):
    yield prefix
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _paths(v, prefix + (i,))


@st.composite
def json_mutation(draw) -> bytes:
    obj = json.loads(draw(st.sampled_from(seeds())))
    for _ in range(draw(st.integers(1, 2))):
        paths = [p for p in _paths(obj) if p]
        path = draw(st.sampled_from(paths))
        parent = obj
        for k in path[:-1]:
            parent = parent[k]
        kind = draw(st.sampled_from(["replace", "replace", "delete", "swap"]))
        last = path[-1]
        if kind == "replace":
            parent[last] = draw(JSON_VALUES)
        elif kind == "delete":
            del parent[last]
        elif isinstance(parent, list) and len(parent) > 1:
            j = draw(st.integers(0, len(parent) - 1))
            parent[last], parent[j] = parent[j], parent[last]
        else:
            parent[last] = draw(JSON_VALUES)
    return json.dumps(obj, ensure_ascii=draw(st.booleans())).encode()


@FUZZ
@given(byte_mutation())
def test_byte_mutations_never_crash(raw):
    check(raw)


@FUZZ
@given(json_mutation())
def test_json_mutations_never_crash(raw):
    check(raw)


def test_the_seeds_are_valid_games():
    for raw in seeds():
        res = process_chunk(0, 0, [Line("seed.jsonl", 1, raw)], NOW)
        assert res.counts.valid == 1, res.tables.get("games", res.tables.get("rejects")).to_pylist()
    assert len(seeds()) == 1 + sum(v.implemented for v in VARIANTS.values())
