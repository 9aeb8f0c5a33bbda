"""``--engine dask`` (issue 7): a 2-worker local Dask cluster gives the same warehouse, row for row
and partition for partition, as the process pool. Skipped when the ``dask`` extra is not installed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ingest.run import ingest
from ingest.warehouse import data_files, read_rows

pytest.importorskip("distributed")

ROOT = Path(__file__).resolve().parent.parent
SHORT = json.loads((ROOT / "data" / "guilin-short.jsonl").read_bytes())
TABLES = ("games", "seats", "actions", "melds", "xing", "rejects")


def test_dask_and_process_pool_write_the_same_tables(tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    for f in range(3):
        lines = [json.dumps({**SHORT, "game_id": f"g{f}-{i}"}) for i in range(40)]
        lines += [json.dumps({**SHORT, "game_id": "g0-1", "round": f}), "{nope", json.dumps({**SHORT, "game_id": "g0-2"})]
        (logs / f"f{f}.jsonl").write_text("\n".join(lines) + "\n")
    kw = dict(workers=2, progress=False, chunk_lines=8)
    pool = ingest([logs], tmp_path / "pool", min_pool_bytes=0, **kw)
    dask = ingest([logs], tmp_path / "dask", engine="dask", **kw)
    assert (pool.workers, dask.workers, dask.engine) == (2, 2, "dask")
    assert pool.to_json()["total"] == dask.to_json()["total"]
    t = dask.total()
    assert (t.read, t.valid, t.rejected, t.duplicate) == (129, 120, 3, 6)
    for name in TABLES:
        a = [{k: v for k, v in r.items() if k != "ingested_at"} for r in read_rows(tmp_path / "pool", name)]
        b = [{k: v for k, v in r.items() if k != "ingested_at"} for r in read_rows(tmp_path / "dask", name)]
        assert a == b, name  # same rows in the same order: the same shards
    folders = lambda w: sorted({p.parent.relative_to(w).as_posix() for n in TABLES for p in data_files(w, n)})
    assert folders(tmp_path / "pool") == folders(tmp_path / "dask") != []  # the same partitions
