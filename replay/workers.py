"""The one way paipu starts worker processes.

Workers start from a clean interpreter (``forkserver``, else ``spawn``), never as a ``fork`` of
the caller: a forked copy of a process that runs threads — DuckDB's, a progress bar's — can
inherit a lock held by a thread that does not exist in the child and die or hang (seen in the
tests: a ``tune`` run after DuckDB queries in the same process lost its workers).
"""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor


def process_pool(workers: int) -> ProcessPoolExecutor:
    """A process pool of ``workers`` clean worker processes (use it as a context manager)."""
    method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
    return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context(method))
