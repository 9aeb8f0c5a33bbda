"""Progress of long commands (simulate, validate, tune, report, bench) on stderr.

On a terminal: a rich bar with the count, the rate and the time left. Elsewhere (a pipe, a log
file, CI): one plain line every :data:`EVERY` seconds (``PAIPU_PROGRESS_SECONDS`` overrides it;
``0`` prints a line at every step), so a redirected ``make demo > log`` shows where it is without
a bar's control characters.
"""

from __future__ import annotations

import os
import time
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeElapsedColumn, TimeRemainingColumn

EVERY = 10.0
"""Seconds between two plain progress lines when stderr is not a terminal."""


class Meter:
    """Count the done part of one piece of work and show it (see the module docstring).

    :param what: the work's name, e.g. ``"simulate guilin"``.
    :param total: work to do, in any measure (games, or input bytes when the games are not known
        ahead); None when unknown (no bar length, no time left).
    :param unit: the name of what is counted (``count`` of :meth:`advance`), e.g. ``"games"``.
    :param console: where to show it (default: stderr).
    :param enabled: False shows nothing (a library call).
    :param refresh: False: the bar is redrawn only at :meth:`advance`, with no refresh thread (for
        a benchmark, which such a thread would slow down).

    Use as a context manager; :meth:`advance` after each finished part.
    """

    def __init__(self, what: str, total: int | None, unit: str = "games", *, console: Console | None = None,
                 enabled: bool = True, refresh: bool = True) -> None:
        self.what, self.total, self.unit = what, total, unit
        self.refresh = refresh
        self.console = console or Console(stderr=True)
        self.enabled = enabled
        self.done = 0
        self.count = 0
        self.live = enabled and self.console.is_terminal
        env = os.environ.get("PAIPU_PROGRESS_SECONDS")
        self.every = float(env) if env else EVERY
        self.t0 = self.last = time.monotonic()
        self._bar: Progress | None = None
        self._task: Any = None

    def __enter__(self) -> "Meter":
        if self.live:
            self._bar = Progress(TextColumn(f"[bold]{self.what}"), BarColumn(), TaskProgressColumn(),
                                 TextColumn("{task.fields[note]}"), TextColumn("ETA"), TimeRemainingColumn(),
                                 TimeElapsedColumn(), console=self.console, transient=False,
                                 auto_refresh=self.refresh)
            self._bar.__enter__()
            self._task = self._bar.add_task(self.what, total=self.total, note="")
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._bar is not None:
            self._bar.__exit__(*exc)
            self._bar = None

    def advance(self, n: int = 1, count: int | None = None) -> None:
        """``n`` more work done; ``count`` more units counted (default ``n``)."""
        self.done += n
        self.count += n if count is None else count
        if not self.enabled:
            return
        if self._bar is not None:
            self._bar.update(self._task, completed=self.done, note=self.note(), refresh=not self.refresh)
            return
        now = time.monotonic()
        if now - self.last >= self.every:
            self.last = now
            self.console.print(self.line(), highlight=False, soft_wrap=True)

    def note(self) -> str:
        """``1,234 games, 56/s``: the count and its rate so far."""
        rate = self.count / max(time.monotonic() - self.t0, 1e-9)
        return f"{self.count:,} {self.unit}, {rate:,.0f}/s"

    def line(self) -> str:
        """The plain progress line: ``what: 1,234 games, 56/s, 40%, ETA m:ss``."""
        if not self.total:
            return f"{self.what}: {self.note()}"
        spent = time.monotonic() - self.t0
        left = spent * (self.total - self.done) / self.done if self.done else 0.0
        return (f"{self.what}: {self.note()}, {100 * self.done / self.total:.0f}%, "
                f"ETA {int(left) // 60}:{int(left) % 60:02d}")
