"""A conversation's chat messages kept in SQLite (the standard library's ``sqlite3``).

>>> from .. import ChatMessage, ToolCall
>>> with MessageStore(":memory:") as store:
...     store.save_many("c1", [
...         ChatMessage.user("Weather in Paris?"),
...         ChatMessage.assistant(tool_calls=[ToolCall("call_1", "weather", {"city": "Paris"})]),
...         ChatMessage.tool("call_1", "18 C, sunny"),
...     ])
...     store.load("c1")
3
(ChatMessage(role=user, content=<17 chars>), ChatMessage(role=assistant, tool_calls=[call_1:weather]), ChatMessage(role=tool, content=<11 chars>, tool_call_id='call_1'))

Theory of operation. One table, ``messages(conversation_id, seq, role, body)``, keyed by
``(conversation_id, seq)``: ``body`` is the message's canonical JSON (``to_json``), ``role``
and ``seq`` are there for SQL (ordering, inspection, the role CHECK). A save runs as one
``BEGIN IMMEDIATE`` transaction that takes the next ``seq`` numbers and inserts every row, so a
batch is stored whole or not at all, even if the process dies half way (SQLite's journal rolls
an unfinished transaction back when the file is next opened). Everything is validated and
serialized before the transaction begins. File databases use WAL mode. The layout's version is
``PRAGMA user_version``; opening a database applies the migration steps from its version up to
``SCHEMA_VERSION`` in one transaction. One connection serves all threads, behind a lock.

Failures of the database are ``StoreError`` (a ``ProcessingError``) with a stable ``code``, never
a raw ``sqlite3`` error: ``locked`` (another writer held the lock beyond ``timeout``), ``full``
(the disk, or the file size limit, is full; Python 3.10's ``sqlite3`` cannot tell this from
other write failures, which are ``io``), ``version`` (a layout newer than this agentmsg: it
is refused before anything is changed, the journal mode included), ``corrupt`` (not a database),
``io`` (any other failure of the file or of SQLite). Several stores opening the same new file at
once wait for each other (bounded by ``timeout``) instead of failing on the journal-mode switch.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable
from typing import TypeVar

from .._checks import check_nonempty, map_items, type_name
from .._json import loads_strict, to_json
from ..errors import ProcessingError, ValidationError
from ..messages import ChatMessage
from ..roles import MessageRole

__all__ = ["MessageStore", "StoreError", "SCHEMA_VERSION"]

R = TypeVar("R")


class StoreError(ProcessingError):
    """The database failed; ``code`` says how: ``locked``, ``full``, ``version``, ``corrupt``, ``io``.

    >>> err = StoreError("the database stayed locked for 10 s", "locked")
    >>> err.code, str(err)
    ('locked', 'the database stayed locked for 10 s')
    """


def _store_error(exc: sqlite3.Error, timeout: float) -> StoreError:
    """Translate a ``sqlite3`` error into a ``StoreError`` (no SQL, no data in the message)."""
    name = str(getattr(exc, "sqlite_errorname", ""))
    text = str(exc).lower()
    if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or "locked" in text or "busy" in text:
        return StoreError(f"the database stayed locked by another writer for {timeout:g} s", "locked")
    if name.startswith("SQLITE_FULL") or "full" in text or name == "SQLITE_IOERR_WRITE":
        return StoreError("the disk (or the file size limit) is full: nothing was saved", "full")
    if name.startswith("SQLITE_NOTADB") or "not a database" in text or name.startswith("SQLITE_CORRUPT"):
        return StoreError("the file is not a message store database (or it is damaged)", "corrupt")
    if name.startswith(("SQLITE_CANTOPEN", "SQLITE_READONLY", "SQLITE_PERM")) or "unable to open" in text:
        return StoreError(f"the database cannot be opened or written ({name or type(exc).__name__})", "io")
    return StoreError(f"the database failed ({name or type(exc).__name__})", "io")

SCHEMA_VERSION = 1

# _MIGRATIONS[n] takes the layout from version n to n + 1, one statement at a time.
_MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        """CREATE TABLE messages (
            conversation_id TEXT NOT NULL,
            seq INTEGER NOT NULL,
            role TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'tool')),
            body TEXT NOT NULL,
            PRIMARY KEY (conversation_id, seq)
        ) WITHOUT ROWID""",
    ),
)

_STORED_ROLES = {MessageRole.USER: "user", MessageRole.ASSISTANT: "assistant", MessageRole.TOOL: "tool"}
_INSERT = "INSERT INTO messages (conversation_id, seq, role, body) VALUES (?, ?, ?, ?)"


def _row(message: object) -> tuple[str, str]:
    """Return the (role, canonical JSON) row of a message to store, or raise ``ValidationError``."""
    if type(message) is not ChatMessage:
        if not isinstance(message, dict):
            raise ValidationError(f"expected a ChatMessage or an object, got {type_name(message)}", "", "type")
        message = ChatMessage.from_dict(message)
    role = _STORED_ROLES.get(message.role)
    if role is None:
        raise ValidationError(
            "only user, assistant and tool messages are stored (the system prompt is not)", "role", "value"
        )
    return role, to_json(message)


class MessageStore:
    """Save and load a conversation's chat messages in a SQLite database.

    >>> store = MessageStore(":memory:")
    >>> try:
    ...     store.save("c1", ChatMessage.system("You are terse."))
    ... except ValidationError as exc:
    ...     print(exc)
    message.role: only user, assistant and tool messages are stored (the system prompt is not)
    >>> store.count("c1")
    0
    >>> store.close()

    ``path`` is a file (created if missing, WAL mode) or ``":memory:"``. Messages may be
    ``ChatMessage`` objects or their canonical dicts; saving validates them all first and
    writes them in one transaction. ``timeout`` is how long a save waits for another
    process's write lock, in seconds. Safe to share between threads.
    """

    def __init__(self, path: "str | os.PathLike[str]", *, timeout: float = 10.0) -> None:
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"path must be a str or os.PathLike, got {type_name(path)}")
        self._path = os.fspath(path)
        if not self._path:
            raise ValidationError("must not be empty (use ':memory:' for a database in memory)", "path", "value")
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout >= 0:
            raise TypeError("timeout must be a number of seconds >= 0")
        self._timeout = float(timeout)
        self._lock = threading.Lock()
        try:
            conn = sqlite3.connect(self._path, timeout=timeout, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as exc:
            raise _store_error(exc, timeout) from None
        try:
            self._open(conn)
        except BaseException:
            conn.close()
            raise
        self._conn: sqlite3.Connection | None = conn

    def _open(self, conn: sqlite3.Connection) -> None:
        """Refuse a newer layout first, then switch to WAL and migrate, waiting out other openers."""
        (version,) = self._retrying(lambda: conn.execute("PRAGMA user_version").fetchone())
        if version > SCHEMA_VERSION:
            raise _newer(version)
        if self._path != ":memory:":
            self._retrying(lambda: conn.execute("PRAGMA journal_mode=WAL").fetchone())
        self._retrying(lambda: _migrate(conn))

    def _retrying(self, step: "Callable[[], R]") -> R:
        """Run ``step``; while the database is busy (another store opening it), retry until ``timeout``.

        SQLite's busy handler does not cover every first-open step (the journal-mode switch of a
        new file fails at once when another connection holds it), so those are retried here.
        """
        deadline = time.monotonic() + self._timeout
        pause = 0.001
        while True:
            try:
                return step()
            except sqlite3.Error as exc:
                error = _store_error(exc, self._timeout)
                if error.code != "locked" or time.monotonic() >= deadline:
                    raise error from None
            time.sleep(pause)
            pause = min(pause * 2, 0.05)

    @property
    def path(self) -> str:
        """Return the database path given at opening."""
        return self._path

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            raise ValueError("the store is closed; open a new MessageStore")
        return self._conn

    def save(self, conversation_id: str, message: ChatMessage) -> None:
        """Append one message to a conversation.

        >>> with MessageStore(":memory:") as store:
        ...     store.save("c1", ChatMessage.user("Hi"))
        ...     store.load("c1")[0].text
        'Hi'
        """
        conversation_id = check_nonempty(conversation_id, "conversation_id")
        try:
            row = _row(message)
        except ValidationError as exc:
            raise exc.prefixed("message") from None
        self._write(conversation_id, [row])

    def save_many(self, conversation_id: str, messages: Iterable[ChatMessage]) -> int:
        """Append messages to a conversation in one transaction (all or nothing); return how many.

        >>> try:
        ...     with MessageStore(":memory:") as store:
        ...         store.save_many("c1", [ChatMessage.user("Hi"), {"role": "wizard", "content": "?"}])
        ... except ValidationError as exc:
        ...     print(exc)
        messages[1].role: expected one of 'system', 'user', 'assistant', 'tool'
        """
        conversation_id = check_nonempty(conversation_id, "conversation_id")
        if isinstance(messages, (str, bytes, dict)) or not isinstance(messages, Iterable):
            raise ValidationError(f"expected a list of messages, got {type_name(messages)}", "messages", "type")
        rows: list[tuple[str, str]] = map_items(_row, messages, "messages")
        if rows:
            self._write(conversation_id, rows)
        return len(rows)

    def _sql(self, step: "Callable[[sqlite3.Connection], R]") -> R:
        """Run ``step`` on the connection under the lock; ``sqlite3`` errors become ``StoreError``."""
        with self._lock:
            conn = self._connection()
            try:
                return step(conn)
            except sqlite3.Error as exc:
                raise _store_error(exc, self._timeout) from None

    def _write(self, conversation_id: str, rows: list[tuple[str, str]]) -> None:
        def write(conn: sqlite3.Connection) -> None:
            conn.execute("BEGIN IMMEDIATE")
            try:
                (last,) = conn.execute(
                    "SELECT COALESCE(MAX(seq), -1) FROM messages WHERE conversation_id = ?", (conversation_id,)
                ).fetchone()
                conn.executemany(
                    _INSERT, [(conversation_id, last + 1 + i, role, body) for i, (role, body) in enumerate(rows)]
                )
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    try:
                        conn.execute("ROLLBACK")
                    except sqlite3.Error:  # SQLite may have rolled back already (disk full)
                        pass
                raise

        self._sql(write)

    def load(self, conversation_id: str) -> tuple[ChatMessage, ...]:
        """Return a conversation's messages in the order they were saved (empty if unknown).

        A stored row that no longer parses raises ``ValidationError`` at ``messages[i]``.
        """
        conversation_id = check_nonempty(conversation_id, "conversation_id")
        rows = self._sql(
            lambda conn: conn.execute(
                "SELECT body FROM messages WHERE conversation_id = ? ORDER BY seq", (conversation_id,)
            ).fetchall()
        )
        return tuple(map_items(lambda row: ChatMessage.from_dict(loads_strict(row[0])), rows, "messages"))

    def count(self, conversation_id: str) -> int:
        """Return how many messages a conversation holds."""
        conversation_id = check_nonempty(conversation_id, "conversation_id")
        (n,) = self._sql(
            lambda conn: conn.execute("SELECT COUNT(*) FROM messages WHERE conversation_id = ?", (conversation_id,)).fetchone()
        )
        return int(n)

    def conversations(self) -> tuple[str, ...]:
        """Return the ids of the stored conversations, sorted.

        >>> with MessageStore(":memory:") as store:
        ...     store.save("b", ChatMessage.user("Hi")); store.save("a", ChatMessage.user("Yo"))
        ...     store.conversations()
        ('a', 'b')
        """
        rows = self._sql(
            lambda conn: conn.execute("SELECT DISTINCT conversation_id FROM messages ORDER BY conversation_id").fetchall()
        )
        return tuple(row[0] for row in rows)

    def delete(self, conversation_id: str) -> int:
        """Remove a conversation's messages; return how many were removed."""
        conversation_id = check_nonempty(conversation_id, "conversation_id")
        cursor = self._sql(lambda conn: conn.execute("DELETE FROM messages WHERE conversation_id = ?", (conversation_id,)))
        return int(cursor.rowcount)

    def close(self) -> None:
        """Close the database (idempotent); saved data stays in the file."""
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def __del__(self) -> None:
        # A store dropped without close() closes its connection (Python 3.13 warns otherwise).
        conn = getattr(self, "_conn", None)
        if conn is not None:
            try:
                conn.close()
            except Exception:  # noqa: BLE001 - nothing may escape a finalizer
                pass

    def __enter__(self) -> "MessageStore":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self._conn is None else "open"
        return f"MessageStore({self._path!r}, {state})"


def _migrate(conn: sqlite3.Connection) -> None:
    (version,) = conn.execute("PRAGMA user_version").fetchone()
    if version == SCHEMA_VERSION:
        return
    conn.execute("BEGIN IMMEDIATE")  # re-read under the write lock: another process may migrate too
    try:
        (version,) = conn.execute("PRAGMA user_version").fetchone()
        if version > SCHEMA_VERSION:
            raise _newer(version)
        for step in _MIGRATIONS[version:SCHEMA_VERSION]:
            for statement in step:
                conn.execute(statement)
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION:d}")
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            try:
                conn.execute("ROLLBACK")
            except sqlite3.Error:
                pass
        raise


def _newer(version: int) -> StoreError:
    return StoreError(
        f"database layout version {version} is newer than this agentmsg supports ({SCHEMA_VERSION})", "version"
    )
