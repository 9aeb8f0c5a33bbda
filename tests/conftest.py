"""The run's summary names the kernel under test: compiled, or pure Python and why."""

from __future__ import annotations

from typing import Any


def pytest_configure(config: Any) -> None:
    """AppTest scans every installed package for Streamlit components each time a new app starts;
    the installed packages do not change during a run, so each test process scans once."""
    import functools

    from streamlit.components.v2 import manifest_scanner

    manifest_scanner.scan_component_manifests = functools.cache(manifest_scanner.scan_component_manifests)


def pytest_collection_modifyitems(items: list[Any]) -> None:
    """Files marked ``long`` (``pytestmark = pytest.mark.long``) first, the rest as collected:
    ``make test`` hands whole files to two processes in this order (``--no-loadscope-reorder``),
    so the last files to start are short ones and the two end together."""
    items.sort(key=lambda item: item.get_closest_marker("long") is None)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """One line before the totals (``-q`` hides the header): ``paipu kernel: ...``."""
    from replay import kernel

    terminalreporter.write_line(f"paipu {kernel.describe()}")


import pytest  # noqa: E402  (the PostgreSQL fixtures below; tests/pg.py)


@pytest.fixture(scope="session")
def pg_server():
    """A real PostgreSQL server for this test process (tests/pg_server.py), stopped at the end; skipped
    when the binaries are absent, failed instead under ``PAIPU_REQUIRE_PG=1`` (CI)."""
    from pg_server import PgServer, require

    server = PgServer(require())
    try:
        server.start()
    except BaseException:
        log = server.log()
        server.stop()
        if log:
            print(log)
        raise
    yield server
    server.stop()


@pytest.fixture
def pg_catalog(pg_server) -> str:
    """``postgres:<libpq keywords>`` of a new, empty database on :func:`pg_server` (one per test)."""
    return "postgres:" + pg_server.createdb()
