"""The SQL dialects of the message store: SQLite and PostgreSQL, over any DB-API 2.0 connection.

A dialect holds what differs between the two: the statements (written with ``?`` placeholders,
rewritten to ``%s`` for PostgreSQL drivers), how a connection is prepared (autocommit, timeouts),
how a write transaction takes its lock, where the layout version lives, the migration steps, and
how a driver error becomes a ``StoreError`` code. No driver is imported here: errors are read
through their attributes (``sqlite_errorname``, ``sqlstate``), never through their classes.
"""

from __future__ import annotations

import math
from typing import Any

# A DB-API 2.0 connection and cursor: typed loosely on purpose (no driver is imported).
Connection = Any
Cursor = Any

# The key of the advisory lock that serializes PostgreSQL migrations ('agms' as an int32), and the
# first key of the per-conversation write lock (the second is the conversation id's hash).
_PG_LOCK_NAMESPACE = 0x61676D73


class Dialect:
    """The SQLite dialect (the base); ``PostgresDialect`` overrides what PostgreSQL does differently."""

    name = "sqlite"
    table = "messages"
    begin_write: tuple[str, ...] = ("BEGIN IMMEDIATE",)
    # _MIGRATIONS[n] takes the layout from version n to n + 1, one statement at a time.
    migrations: tuple[tuple[str, ...], ...] = (
        (
            """CREATE TABLE messages (
                conversation_id TEXT NOT NULL,
                seq INTEGER NOT NULL,
                role TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'tool')),
                body TEXT NOT NULL,
                PRIMARY KEY (conversation_id, seq)
            ) WITHOUT ROWID""",
        ),
        ("ALTER TABLE messages ADD COLUMN meta TEXT",),
    )

    def sql(self, statement: str) -> str:
        """Return ``statement`` in the driver's parameter style (``?`` here)."""
        return statement.replace("{table}", self.table)

    # Whether a call that gets no answer at all is cut client-side (a server that froze).
    watched = False

    def prepare(self, conn: Connection, cursor: Cursor, timeout: float) -> None:
        """Put a fresh connection in autocommit mode (explicit transactions) with the store's timeout."""
        if hasattr(conn, "isolation_level"):
            conn.isolation_level = None
        cursor.execute(f"PRAGMA busy_timeout = {_millis(timeout):d}")

    def lock_conversation(self, cursor: Cursor, conversation_id: str) -> None:
        """Serialize writers of one conversation (SQLite's ``BEGIN IMMEDIATE`` already serializes all)."""

    def read_version(self, cursor: Cursor) -> int:
        cursor.execute("PRAGMA user_version")
        return int(cursor.fetchone()[0])

    def begin_migration(self, cursor: Cursor) -> None:
        cursor.execute("BEGIN IMMEDIATE")  # re-read under the write lock: another process may migrate too

    def write_version(self, cursor: Cursor, version: int) -> None:
        cursor.execute(f"PRAGMA user_version = {version:d}")

    def is_file(self, cursor: Cursor) -> bool:
        """Tell whether the main database is a file (WAL mode applies) rather than memory."""
        cursor.execute("PRAGMA database_list")
        return any(row[1] == "main" and row[2] for row in cursor.fetchall())

    def classify(self, exc: BaseException) -> str:
        """Return the StoreError code of a driver error: locked, full, corrupt, io, lost, or transient."""
        name = str(getattr(exc, "sqlite_errorname", ""))
        text = str(exc).lower()  # read for the kind only; never put into a StoreError
        if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or "locked" in text or "busy" in text:
            return "locked"
        if name.startswith("SQLITE_FULL") or "full" in text or name == "SQLITE_IOERR_WRITE":
            return "full"
        if name.startswith("SQLITE_NOTADB") or "not a database" in text or name.startswith("SQLITE_CORRUPT"):
            return "corrupt"
        if name.startswith(("SQLITE_CANTOPEN", "SQLITE_READONLY", "SQLITE_PERM")) or "unable to open" in text:
            return "open"
        return "io"

    def detail(self, exc: BaseException) -> str:
        """Return a short, content-free name of the driver error for a StoreError message."""
        return str(getattr(exc, "sqlite_errorname", "")) or type(exc).__name__


class PostgresDialect(Dialect):
    """PostgreSQL (psycopg 3, or any DB-API driver with ``%s`` parameters and ``sqlstate`` on its errors)."""

    name = "postgresql"
    table = "agentmsg_messages"  # a shared database may hold someone else's "messages"
    # READ COMMITTED whatever the session default: after the lock, a statement must see what others committed.
    begin_write = ("BEGIN ISOLATION LEVEL READ COMMITTED",)
    migrations = (
        (
            """CREATE TABLE agentmsg_messages (
                conversation_id TEXT NOT NULL,
                seq BIGINT NOT NULL,
                role TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'tool')),
                body TEXT NOT NULL,
                PRIMARY KEY (conversation_id, seq)
            )""",
            "CREATE TABLE agentmsg_schema (version INTEGER NOT NULL)",
            "INSERT INTO agentmsg_schema (version) VALUES (0)",
        ),
        ("ALTER TABLE agentmsg_messages ADD COLUMN meta TEXT",),
    )

    def sql(self, statement: str) -> str:
        return super().sql(statement).replace("?", "%s")

    watched = True

    def prepare(self, conn: Connection, cursor: Cursor, timeout: float) -> None:
        """Autocommit (explicit transactions); bound every statement, lock wait and idle transaction."""
        if hasattr(conn, "autocommit"):
            conn.autocommit = True
        millis = _millis(timeout)
        # A statement that runs longer, a lock awaited longer, or a transaction this process left
        # idle longer (a frozen client holding a conversation's lock) ends on the server.
        for setting in ("statement_timeout", "lock_timeout", "idle_in_transaction_session_timeout"):
            cursor.execute(f"SET {setting} = {millis:d}")

    def lock_conversation(self, cursor: Cursor, conversation_id: str) -> None:
        # Writers of one conversation queue here (released at COMMIT or ROLLBACK); the primary
        # key stays the last line of defence against two rows with one seq.
        cursor.execute(self.sql("SELECT pg_advisory_xact_lock(?, hashtext(?))"), (_PG_LOCK_NAMESPACE, conversation_id))

    def read_version(self, cursor: Cursor) -> int:
        # The catalog itself, not to_regclass(): a backend's cache may still say "no such table"
        # after another migrator committed it (an advisory lock does not refresh that cache).
        cursor.execute(
            "SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_tables"
            " WHERE schemaname = current_schema() AND tablename = 'agentmsg_schema')"
        )
        if not cursor.fetchone()[0]:
            return 0
        cursor.execute("SELECT version FROM agentmsg_schema")
        row = cursor.fetchone()
        return 0 if row is None else int(row[0])

    def begin_migration(self, cursor: Cursor) -> None:
        cursor.execute(self.begin_write[0])
        cursor.execute(self.sql("SELECT pg_advisory_xact_lock(?)"), (_PG_LOCK_NAMESPACE,))

    def write_version(self, cursor: Cursor, version: int) -> None:
        cursor.execute(self.sql("UPDATE agentmsg_schema SET version = ?"), (version,))

    def is_file(self, cursor: Cursor) -> bool:
        return False

    def classify(self, exc: BaseException) -> str:
        """Map the error's SQLSTATE (its class, the first two characters) to a code; no text is read."""
        state = getattr(exc, "sqlstate", None) or getattr(exc, "pgcode", None)
        if not isinstance(state, str) or len(state) != 5:
            # Raised by the client library itself: the connection failed, broke, or timed out.
            return "lost"
        if state in ("40001", "40P01"):  # serialization failure, deadlock: the transaction may be rerun
            return "transient"
        if state in ("55P03", "57014"):  # lock_not_available (lock_timeout), query_canceled (statement_timeout)
            return "locked"
        if state == "53100":  # disk_full
            return "full"
        if state in ("XX001", "XX002"):  # data_corrupted, index_corrupted
            return "corrupt"
        if state[:2] == "08" or state in ("57P01", "57P02", "57P03", "25P03"):
            return "lost"  # connection exception; terminated by an admin, crash, server starting; idle timeout
        if state[:2] in ("28", "3D"):  # invalid authorization, unknown database
            return "open"
        return "io"

    def detail(self, exc: BaseException) -> str:
        state = getattr(exc, "sqlstate", None) or getattr(exc, "pgcode", None)
        return f"SQLSTATE {state}" if isinstance(state, str) and len(state) == 5 else type(exc).__name__


def _millis(timeout: float) -> int:
    """Return ``timeout`` in whole milliseconds, at least 1 (0 disables PostgreSQL's timeouts)."""
    return max(1, math.ceil(timeout * 1000))


SQLITE = Dialect()
POSTGRESQL = PostgresDialect()
DIALECTS = {"sqlite": SQLITE, "postgresql": POSTGRESQL}
