"""A throwaway real PostgreSQL server for the tests of the PostgreSQL catalog.

:class:`PgServer` runs ``initdb`` into a private folder, starts the server with ``pg_ctl start -w``
on a free port whose socket lives in that folder (no TCP: several test processes never collide),
creates databases on demand and stops the server at :meth:`PgServer.stop`. As root it runs the
server as the ``postgres`` user (PostgreSQL refuses to run as root) through ``runuser``. Never a
mock: the tests talk to the real server through DuckDB's postgres extension, as
``paipu ingest --catalog postgres:…`` does.

The binaries are looked up on ``PATH`` then in Debian's ``/usr/lib/postgresql/<version>/bin``
(Debian's package puts ``initdb`` there only). :func:`require` decides what a test does when they
are missing: skip on a developer's machine, fail when ``PAIPU_REQUIRE_PG=1`` (``.ci/run`` sets it,
after installing Debian's ``postgresql``), so CI never passes by skipping.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

import pytest

REQUIRE = "PAIPU_REQUIRE_PG"


def pg_bin() -> Path | None:
    """The folder holding ``initdb``, ``pg_ctl`` and ``createdb`` of one PostgreSQL install, or None."""
    found = shutil.which("initdb")
    dirs = [Path(found).resolve().parent] if found else []
    dirs += sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=lambda p: p.parent.name, reverse=True)
    for d in dirs:
        if all((d / b).is_file() for b in ("initdb", "pg_ctl", "postgres", "createdb")):
            return d
    return None


def require() -> Path:
    """The binaries' folder; skips the test when they are absent, fails instead under ``PAIPU_REQUIRE_PG=1``."""
    d = pg_bin()
    if d is None:
        msg = "PostgreSQL binaries (initdb, pg_ctl) not found on PATH nor in /usr/lib/postgresql/*/bin"
        if os.environ.get(REQUIRE) == "1":
            pytest.fail(f"{msg}, and {REQUIRE}=1 (CI must test the PostgreSQL catalog)", pytrace=False)
        pytest.skip(msg)
    return d


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PgServer:
    """One PostgreSQL server in a private temporary folder (``start`` / ``createdb`` / ``stop``)."""

    def __init__(self, bin_dir: Path) -> None:
        self.bin = bin_dir
        self.root = Path(tempfile.mkdtemp(prefix="paipu-pg-"))  # /tmp: the postgres user can reach it
        self.data = self.root / "data"
        self.port = _free_port()
        self.as_root = os.geteuid() == 0
        self.databases = 0
        if self.as_root:
            try:
                pw = pwd.getpwnam("postgres")
            except KeyError:
                shutil.rmtree(self.root, ignore_errors=True)
                raise RuntimeError("running as root and there is no postgres user to run the server as") from None
            os.chown(self.root, pw.pw_uid, pw.pw_gid)

    def _run(self, *args: str) -> str:
        cmd = [str(self.bin / args[0]), *args[1:]]
        if self.as_root:
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        p = subprocess.run(cmd, cwd=self.root, capture_output=True, text=True, timeout=120)
        if p.returncode:
            raise RuntimeError(f"{' '.join(args[:1])} failed ({p.returncode}): {p.stderr.strip() or p.stdout.strip()}")
        return p.stdout

    def start(self) -> "PgServer":
        """initdb (trust authentication: the socket folder is private) and ``pg_ctl start -w``."""
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8")
        opts = f"-k {self.root} -p {self.port} -c listen_addresses='' -c fsync=off -c max_connections=60"
        self._run("pg_ctl", "start", "-w", "-t", "60", "-D", str(self.data), "-l", str(self.root / "log"), "-o", opts)
        return self

    def createdb(self, name: str | None = None) -> str:
        """Create a database; returns its libpq keywords (``dbname=… host=<socket folder> port=… user=postgres``)."""
        self.databases += 1
        name = name or f"paipu{self.databases}"
        self._run("createdb", "-h", str(self.root), "-p", str(self.port), "-U", "postgres", name)
        return f"dbname={name} host={self.root} port={self.port} user=postgres"

    def log(self) -> str:
        """The server's log (for a failing test's message)."""
        try:
            return (self.root / "log").read_text(errors="replace")
        except OSError:
            return ""

    def stop(self) -> None:
        """Stop the server (immediate: nothing in it is kept) and remove its folder."""
        try:
            if (self.data / "postmaster.pid").exists():
                self._run("pg_ctl", "stop", "-D", str(self.data), "-m", "immediate", "-w")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)
