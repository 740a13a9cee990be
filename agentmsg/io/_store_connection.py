"""The message store's connections: opening them, telling their dialect, bounding a statement.

A store opens its connections through a factory (``sqlite_factory`` for a file; a caller's own
for anything else); a connection that no longer answers is cut by a ``Watchdog`` so that the
driver call waiting on it fails instead of hanging (``WatchedCursor`` arms it per statement).
"""

from __future__ import annotations

import os
import socket
import sqlite3
import threading
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote, urlsplit

from ._dialects import POSTGRESQL, SQLITE, Connection, Cursor, Dialect


class Watchdog:
    """Cut a connection's socket when a statement gets no answer within ``limit`` seconds.

    The server bounds its own work (``statement_timeout``); this is for a server that stopped
    answering altogether (frozen, or the network gone), where no server-side timeout can fire
    and the driver would wait forever. Shutting the socket down makes the waiting driver call
    fail at once as a lost connection; the store then drops it and connects again next time.
    One thread per store, started on its first timed statement, idle while nothing runs.
    """

    def __init__(self, limit: float) -> None:
        self._limit = limit
        self._cond = threading.Condition(threading.Lock())
        self._conn: Connection | None = None
        self._deadline: float | None = None
        self._thread: threading.Thread | None = None
        self._stopped = False

    def arm(self, conn: Connection) -> None:
        """Start (or restart) the clock for a statement on ``conn``."""
        with self._cond:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="agentmsg-store-watchdog", daemon=True)
                self._thread.start()
            idle = self._deadline is None
            self._conn, self._deadline = conn, time.monotonic() + self._limit
            if idle:
                self._cond.notify()

    def disarm(self) -> None:
        with self._cond:
            self._conn = self._deadline = None

    def stop(self) -> None:
        with self._cond:
            self._stopped = True
            self._conn = self._deadline = None
            self._cond.notify()

    def _run(self) -> None:
        with self._cond:
            while not self._stopped:
                if self._deadline is None:
                    self._cond.wait()
                    continue
                left = self._deadline - time.monotonic()
                if left > 0:
                    self._cond.wait(left)
                    continue
                cut_socket(self._conn)
                self._conn = self._deadline = None


def cut_socket(conn: Connection) -> None:
    """Shut a connection's socket down (both ways) so that a driver waiting on it returns."""
    try:
        duplicate = socket.socket(fileno=os.dup(conn.fileno()))
    except Exception:  # noqa: BLE001 - no socket (closed already, or a driver without fileno): nothing to cut
        return
    try:
        duplicate.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    finally:
        duplicate.close()


class WatchedCursor:
    """A DB-API cursor whose ``execute`` and ``executemany`` run under the watchdog's clock."""

    __slots__ = ("_cursor", "_conn", "_watchdog")

    def __init__(self, cursor: Cursor, conn: Connection, watchdog: Watchdog) -> None:
        self._cursor, self._conn, self._watchdog = cursor, conn, watchdog

    def execute(self, *args: Any) -> Any:
        self._watchdog.arm(self._conn)
        return self._cursor.execute(*args)

    def executemany(self, *args: Any) -> Any:
        self._watchdog.arm(self._conn)
        return self._cursor.executemany(*args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._cursor, name)


def rollback(cursor: Cursor) -> None:
    """Roll back the cursor's transaction if one is open; a failure here changes nothing (already gone)."""
    conn = getattr(cursor, "connection", None)
    if getattr(conn, "in_transaction", True) is False:  # sqlite3 says; others are asked
        return
    try:
        cursor.execute("ROLLBACK")
    except Exception:  # noqa: BLE001 - the server may have ended it already (disk full, connection lost)
        pass


def close_quietly(conn: Connection) -> None:
    try:
        conn.close()
    except Exception:  # noqa: BLE001 - closing a broken connection may fail; it is gone either way
        pass


def is_broken(conn: Connection) -> bool:
    """Tell whether a connection can no longer be used (psycopg's ``closed`` or ``broken``)."""
    return bool(getattr(conn, "broken", False)) or getattr(conn, "closed", False) is True


def detect_dialect(conn: Connection) -> Dialect:
    """Recognize the dialect from the connection's driver module, or ask the caller to name it."""
    module = type(conn).__module__.partition(".")[0]
    if module == "sqlite3":
        return SQLITE
    if module in ("psycopg", "psycopg2"):
        return POSTGRESQL
    close_quietly(conn)
    raise TypeError(f"cannot tell the SQL dialect of a {module} connection: pass dialect='sqlite' or 'postgresql'")


def dialect_of_error(exc: BaseException) -> Dialect:
    return SQLITE if type(exc).__module__.partition(".")[0] == "sqlite3" else POSTGRESQL


def sqlite_factory(path: str, timeout: float) -> Callable[[], Connection]:
    def connect() -> Connection:
        return sqlite3.connect(path, timeout=timeout, isolation_level=None, check_same_thread=False)

    return connect


def redacted(url: str) -> str:
    """Return ``scheme://user@host:port/dbname`` of a URL: no password, no query (it may hold one)."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port else ""
        user = f"{unquote(parts.username)}@" if parts.username else ""
    except ValueError:
        return f"{url.partition('://')[0]}://..."
    return f"{parts.scheme}://{user}{host}{port}{parts.path}"
