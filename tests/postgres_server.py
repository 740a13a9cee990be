"""A throwaway PostgreSQL server for tests: initdb into a temp dir, run it on a free port, remove it after.

Use the session fixture ``postgres_url`` (defined in conftest.py from ``running_postgres``), or
the context manager directly from any test or script::

    from postgres_server import running_postgres
    with running_postgres() as url:     # 'postgresql://postgres@127.0.0.1:PORT/postgres'
        ...

The server listens on 127.0.0.1 (TCP) and on a unix socket in its temp dir, trusts every local
connection (superuser ``postgres``, database ``postgres``) and runs with fsync off: test data
only. PostgreSQL refuses to run as root, so under root (CI) it runs as Debian's ``postgres``
system user via ``runuser``. A missing ``initdb`` fails the test naming the Debian package.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

STARTUP_TIMEOUT = 60.0  # seconds; initdb plus the first start take ~3 s on a quiet machine
DEBIAN_PACKAGE = "postgresql"


def postgres_bindir() -> Path:
    """Return the newest ``/usr/lib/postgresql/*/bin`` holding initdb (or initdb's dir on PATH), or fail."""
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parent.parent.name))
    if candidates:
        return Path(candidates[-1]).parent
    from conftest import require_program  # fails naming the Debian package when initdb is nowhere

    return Path(require_program("initdb", DEBIAN_PACKAGE)).parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _as_server_user(command: list[str]) -> list[str]:
    """Run as the ``postgres`` system user when we are root (postgres refuses root)."""
    if os.geteuid() != 0:
        return command
    runuser = shutil.which("runuser")
    if runuser is None:
        pytest.fail("runuser is missing (util-linux): needed to run PostgreSQL as the postgres user under root")
    return [runuser, "-u", "postgres", "--", *command]


@contextlib.contextmanager
def running_postgres() -> Iterator[str]:
    """Start a fresh PostgreSQL server; yield its URL; stop it and delete its files at the end."""
    bindir = postgres_bindir()
    root = Path(tempfile.mkdtemp(prefix="agentmsg-pg-"))
    data, sockets, log = root / "data", root / "sockets", root / "server.log"
    server: subprocess.Popen[bytes] | None = None
    try:
        sockets.mkdir()
        if os.geteuid() == 0:
            import pwd

            try:
                user = pwd.getpwnam("postgres")
            except KeyError:
                pytest.fail(f"no 'postgres' system user to run the server as: apt-get install {DEBIAN_PACKAGE}")
            for path in (root, sockets):
                os.chown(path, user.pw_uid, user.pw_gid)
        init = subprocess.run(
            _as_server_user([str(bindir / "initdb"), "-D", str(data), "-U", "postgres", "-A", "trust", "-E", "UTF8",
                             "--no-sync", "--locale=C"]),
            capture_output=True, text=True, timeout=STARTUP_TIMEOUT,
        )
        if init.returncode != 0:
            pytest.fail(f"initdb failed ({init.returncode}): {init.stderr[-2000:]}")
        port = free_port()
        with open(log, "wb") as log_file:
            if os.geteuid() == 0:
                os.chown(log, pwd.getpwnam("postgres").pw_uid, -1)
            server = subprocess.Popen(
                _as_server_user([
                    str(bindir / "postgres"), "-D", str(data), "-p", str(port), "-k", str(sockets),
                    "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "synchronous_commit=off",
                    "-c", "full_page_writes=off", "-c", "max_connections=200",
                ]),
                stdout=log_file, stderr=subprocess.STDOUT, start_new_session=True,
            )
        url = f"postgresql://postgres@127.0.0.1:{port}/postgres"
        _wait_ready(server, port, log)
        yield url
    finally:
        if server is not None:
            _stop(server, data)
        shutil.rmtree(root, ignore_errors=True)


def _wait_ready(server: subprocess.Popen[bytes], port: int, log: Path) -> None:
    """Wait (bounded) until the server accepts a query."""
    import psycopg

    deadline = time.monotonic() + STARTUP_TIMEOUT
    while True:
        if server.poll() is not None:
            pytest.fail(f"postgres exited with {server.returncode}: {log.read_text(errors='replace')[-2000:]}")
        try:
            with psycopg.connect(host="127.0.0.1", port=port, user="postgres", dbname="postgres", connect_timeout=2) as conn:
                conn.execute("SELECT 1")
                return
        except psycopg.OperationalError:
            if time.monotonic() > deadline:
                pytest.fail(f"postgres did not start within {STARTUP_TIMEOUT:g} s: {log.read_text(errors='replace')[-2000:]}")
            time.sleep(0.1)


def _stop(server: subprocess.Popen[bytes], data: Path) -> None:
    """Fast shutdown (SIGINT to the postmaster), bounded; then kill the whole process group."""
    pid = server.pid
    with contextlib.suppress(OSError, ValueError):
        pid = int((data / "postmaster.pid").read_text().split()[0])  # the postmaster, not runuser
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGINT)
    try:
        server.wait(30)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(server.pid, signal.SIGKILL)
        server.wait(10)


_schemas = 0


def fresh_schema_url(url: str) -> str:
    """Create an empty schema on the server at ``url``; return a URL whose connections use only it.

    Tests share one server; each gets its own schema (a ``search_path``), which is much cheaper than
    a database. Nothing outside the schema is visible to the store through this URL.
    """
    import psycopg

    global _schemas
    _schemas += 1
    name = f"t{os.getpid()}_{_schemas}"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {name}")
    separator = "&" if "?" in url else "?"
    return f"{url}{separator}options=-csearch_path%3D{name}"
