"""The one way paipu starts worker processes.

Workers start from a clean interpreter (``forkserver``, else ``spawn``), never as a ``fork`` of
the caller: a forked copy of a process that runs threads — DuckDB's, a progress bar's — can
inherit a lock held by a thread that does not exist in the child and die or hang (seen in the
tests: a ``tune`` run after DuckDB queries in the same process lost its workers).

Workers exit when the process that made the pool dies, even by ``kill -9`` (else the
workers, the forkserver and the resource tracker of a killed ingest would stay alive, holding
their memory). Each worker, in its initializer:

- asks Linux for ``SIGKILL`` when its parent dies (``prctl(PR_SET_PDEATHSIG)``): the parent is the
  pool's owner under ``spawn``, the forkserver under ``forkserver``;
- watches the pool's owner itself (a forkserver outlives it: every worker holds the forkserver's
  "alive" pipe open), on a daemon thread: a ``pidfd`` that becomes readable when the owner exits,
  else a poll of its pid every second.

The forkserver and the resource tracker need nothing of their own: each exits once the last
process holding its pipe — the workers — is gone.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import select
import signal
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor

PR_SET_PDEATHSIG = 1
WATCH_POLL_SECONDS = 1.0
"""How often the fallback watchdog (no ``pidfd``) looks for the pool's owner."""


def process_pool(workers: int) -> ProcessPoolExecutor:
    """A process pool of ``workers`` clean worker processes (use it as a context manager); they
    exit when this process dies (see the module docstring)."""
    method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
    return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context(method),
                               initializer=die_with, initargs=(os.getpid(),))


def die_with(owner: int) -> None:
    """Worker initializer: end this process when ``owner`` (the pid that made the pool) ends.

    Never raises: a platform without ``prctl`` or ``pidfd_open`` falls back to polling the pid.
    """
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass
    if not _alive(owner):  # died before the watch began
        os._exit(1)
    threading.Thread(target=_watch, args=(owner,), name="paipu-owner-watch", daemon=True).start()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by someone else (cannot be ours, but not gone)
        return True
    return True


def _watch(owner: int) -> None:
    """Block until ``owner`` exits, then end this process at once (no cleanup: its work is lost
    with the owner anyway)."""
    fd = None
    try:
        fd = os.pidfd_open(owner)  # Linux ≥ 5.3: readable once the process has exited (zombie or reaped)
    except (AttributeError, OSError):
        fd = None
    if fd is not None:
        select.select([fd], [], [])
        os._exit(1)
    while _alive(owner):
        time.sleep(WATCH_POLL_SECONDS)
    os._exit(1)
