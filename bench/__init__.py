"""paipu's benchmark suite: ``make bench`` = ``python -m bench.run``.

Files by role:

- ``run.py`` — the command: runs every section, writes ``bench/results.json``, prints the table
  and the ratio of each figure to the last committed ``bench/results.json``.
- ``common.py`` — where caches live (``build/bench/``), timers, percentiles, the machine's load.
- ``yardstick.py`` — python-chess parsing and replaying PGN games: plies/s, measured in the same
  run so every figure is also a ratio that holds on a noisy machine.
- ``corpus.py`` — simulated logs per variant (random bots, a process pool, cached by variant,
  games, seed, bots and engine version) and the replay timer (decode and replay separately).
- ``hands.py`` — the fixed corpus of winning and non-winning 桂林 hands and the scorer timer.
- ``ingest_probe.py`` — ingest end to end in a fresh process: games/s and peak memory.
- ``warehouse.py`` — a synthetic 1M-game warehouse (polars, partitioned like ingest) and the
  p50/p95 of the queries the dashboard pages and ``paipu report`` run.
- ``profile.py`` — ``python -m bench.profile guilin``: where replay and the scorer spend time.

Timings of single-threaded work use ``time.process_time()`` (CPU seconds of the measuring
process), so a loaded machine slows them less than wall time; DuckDB queries and ingest with
workers use wall time (perf_counter), and the load average is recorded beside them.
"""
