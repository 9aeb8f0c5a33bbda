"""The run's summary names the kernel under test (issue 18): compiled, or pure Python and why."""

from __future__ import annotations

from typing import Any


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """One line before the totals (``-q`` hides the header): ``paipu kernel: ...``."""
    from replay import kernel

    terminalreporter.write_line(f"paipu {kernel.describe()}")
