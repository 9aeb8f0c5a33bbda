"""paipu ingest: game logs → the Parquet warehouse (docs/warehouse.md).

Reading order: ``reader`` (files → numbered lines) → ``rows`` (replay → rows, in the workers) →
``dedupe`` (what is stored already) → ``warehouse`` (staging, journal, commit, compaction) →
``run`` (the ``ingest()`` loop, process pool or Dask) → ``cli``; ``validate`` is ``paipu validate``
(the same reading with nothing written); ``views`` is the warehouse's hardened read connection
(every later stage reads through it). ``mutate`` is the tamper-detection harness; ``schema``
holds every column name and type.
"""

import replay  # noqa: F401 (first: its kernel finder must be in place before ingest.rows, a kernel module, loads)
