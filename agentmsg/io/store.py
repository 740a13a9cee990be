"""A conversation's chat messages kept in SQLite (embedded, the default) or PostgreSQL (shared).

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

The database is a file path or ``":memory:"`` (the standard library's ``sqlite3``), a
``postgresql://`` URL (psycopg 3, which the caller installs: the package imports no driver
until such a URL is opened), or any DB-API 2.0 connection factory of either dialect.

Theory of operation. One table, ``messages(conversation_id, seq, role, body, meta)`` (named
``agentmsg_messages`` in PostgreSQL, where a shared database may hold someone else's
``messages``), keyed by ``(conversation_id, seq)``: ``body`` is the message's canonical JSON
(``to_json``), ``role`` and ``seq`` are there for SQL (ordering, inspection, the role CHECK),
``meta`` is an optional JSON object the caller keeps beside the message (``AgentTurn`` keeps
what the socket events said: ids, titles, timestamps; NULL in rows written before layout 2).
A save runs as one transaction that first takes the conversation's write lock (SQLite:
``BEGIN IMMEDIATE``, the database's single writer lock; PostgreSQL: a transaction-scoped
advisory lock on the conversation id's hash), then the next ``seq`` numbers, then inserts every
row: a batch is stored whole or not at all, even if the process dies half way, and two writers
never take the same ``seq`` (the primary key would refuse it anyway). Everything is validated
and serialized before the transaction begins. SQLite files use WAL mode.

The layout's version is ``PRAGMA user_version`` in SQLite and the one row of
``agentmsg_schema`` in PostgreSQL; opening a database applies the migration steps from its
version up to ``SCHEMA_VERSION`` in one transaction, under a lock, so concurrent openers migrate
once. One connection serves all threads, behind a lock; a PostgreSQL connection that is lost is
dropped, the call fails, and the next call connects again; so is one whose server stops answering
altogether (2 x ``timeout`` + 1 s without an answer to a statement: a watchdog thread shuts its
socket down, since no server-side timeout can fire on a frozen server).

Failures of the database are ``StoreError`` (a ``ProcessingError``) with a stable ``code``, never
a raw driver error, and never with SQL, parameters or message content in them: ``locked``
(another writer held the lock beyond ``timeout``, or a PostgreSQL statement ran past it),
``full`` (the disk, or the file size limit, is full; Python 3.10's ``sqlite3`` cannot tell this
from other write failures, which are ``io``), ``version`` (a layout newer than this agentmsg: it
is refused before anything is changed, the journal mode included), ``corrupt`` (not a database,
or damaged), ``io`` (any other failure: the file, the server, the connection, the driver).
PostgreSQL errors are mapped by their SQLSTATE, never by their text. Several stores opening the
same new database at once wait for each other (bounded by ``timeout``).
"""

from __future__ import annotations

import importlib
import json
import math
import os
import re
import sqlite3
import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

from .._checks import check_nonempty, map_items, type_name
from .._frozen import check_json_object, thaw_json
from .._json import loads_strict, to_json
from ..errors import ProcessingError, ValidationError
from ..messages import ChatMessage
from ..roles import MessageRole
from ._dialects import DIALECTS, POSTGRESQL, SQLITE, Connection, Cursor, Dialect
from ._store_connection import (
    Watchdog, WatchedCursor, close_quietly, detect_dialect, dialect_of_error, is_broken, redacted, rollback,
    sqlite_factory,
)

__all__ = ["MessageStore", "StoreError", "SCHEMA_VERSION", "MAX_CONVERSATION_ID"]

R = TypeVar("R")

SCHEMA_VERSION = 2

# At most this many characters in a conversation id: PostgreSQL's btree keys hold ~2,700 bytes,
# and an id is a key on both backends (4 bytes per character at worst, so 512 fit everywhere).
MAX_CONVERSATION_ID = 512


class StoreError(ProcessingError):
    """The database failed; ``code`` says how: ``locked``, ``full``, ``version``, ``corrupt``, ``io``.

    >>> err = StoreError("the database stayed locked for 10 s", "locked")
    >>> err.code, str(err)
    ('locked', 'the database stayed locked for 10 s')
    """


def _store_error(kind: str, detail: str, timeout: float) -> StoreError:
    """Build the ``StoreError`` of a classified driver error (no SQL, no data in the message)."""
    if kind == "locked":
        return StoreError(f"the database stayed locked by another writer for {timeout:g} s", "locked")
    if kind == "timeout":
        return StoreError(
            f"a statement ran past the store's timeout of {timeout:g} s (a lock held elsewhere, or a slow server)",
            "locked",
        )
    if kind == "transient":
        return StoreError(f"concurrent writers kept the transaction from completing within {timeout:g} s", "locked")
    if kind == "full":
        return StoreError("the disk (or the file size limit) is full: nothing was saved", "full")
    if kind == "corrupt":
        return StoreError("the file is not a message store database (or it is damaged)", "corrupt")
    if kind == "open":
        return StoreError(f"the database cannot be opened or written ({detail})", "io")
    if kind == "lost":
        return StoreError(f"the connection to the database failed or was lost ({detail}); the next call connects again", "io")
    return StoreError(f"the database failed ({detail})", "io")


def _driver_error(exc: BaseException) -> bool:
    """Tell whether ``exc`` is a DB-API 2.0 driver's ``Error`` (its module has ``apilevel`` '2.0')."""
    module = sys.modules.get(type(exc).__module__.partition(".")[0])
    base = getattr(module, "Error", None)
    return getattr(module, "apilevel", None) == "2.0" and isinstance(base, type) and isinstance(exc, base)


_STORED_ROLES = {MessageRole.USER: "user", MessageRole.ASSISTANT: "assistant", MessageRole.TOOL: "tool"}
_INSERT = "INSERT INTO {table} (conversation_id, seq, role, body, meta) VALUES (?, ?, ?, ?, ?)"
Row = tuple[str, str, "str | None"]
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")


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


def _meta_json(meta: object, path: str = "") -> str | None:
    """Return the stored text of a message's ``meta`` (a JSON object), or None."""
    if meta is None:
        return None
    return json.dumps(thaw_json(check_json_object(meta, path)), ensure_ascii=False, separators=(",", ":"))


def _loaded(row: tuple[str, str] | tuple[str, str, str | None]) -> ChatMessage:
    """Parse a stored row; refuse one whose body is not a stored role or disagrees with its column."""
    role, body = row[0], row[1]
    message = ChatMessage.from_dict(loads_strict(body))
    if _STORED_ROLES.get(message.role) != role:  # written past the store: a system prompt, a role swap
        raise ValidationError("the stored role does not match the stored message (not written by this store)", "role", "value")
    return message


def _loaded_with_meta(row: tuple[str, str, str | None]) -> tuple[ChatMessage, dict[str, Any] | None]:
    """Parse a stored row and its ``meta`` (None when the row has none)."""
    meta = None if row[2] is None else loads_strict(row[2])
    if meta is not None and not isinstance(meta, dict):
        raise ValidationError(f"expected an object, got {type_name(meta)}", "meta", "type")
    return _loaded(row), meta


def _conversation_id(value: object) -> str:
    """Return a valid conversation id: 1 to ``MAX_CONVERSATION_ID`` characters, no NUL."""
    text = check_nonempty(value, "conversation_id")
    if len(text) > MAX_CONVERSATION_ID:
        raise ValidationError(f"must be at most {MAX_CONVERSATION_ID} characters", "conversation_id", "size")
    if "\x00" in text:
        raise ValidationError("must not contain NUL characters", "conversation_id", "value")
    return text


def _check_timeout(timeout: object) -> float:
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout >= 0 or math.isinf(timeout):
        raise TypeError("timeout must be a finite number of seconds >= 0")
    return float(timeout)


class MessageStore:
    """Save and load a conversation's chat messages in SQLite or PostgreSQL.

    >>> store = MessageStore(":memory:")
    >>> try:
    ...     store.save("c1", ChatMessage.system("You are terse."))
    ... except ValidationError as exc:
    ...     print(exc)
    message.role: only user, assistant and tool messages are stored (the system prompt is not)
    >>> store.count("c1")
    0
    >>> store.close()

    ``database`` is a SQLite file (created if missing, WAL mode) or ``":memory:"``; a
    ``postgresql://`` URL (needs ``pip install psycopg[binary]``); or a callable that returns
    a new DB-API 2.0 connection (``sqlite3`` or psycopg 3 are recognized; for another driver
    name its ``dialect``, ``"sqlite"`` or ``"postgresql"``). The store owns the connections it
    gets from the factory: it sets autocommit (it runs its own transactions) and its timeouts
    on each, and closes them.

    Messages may be ``ChatMessage`` objects or their canonical dicts; saving validates them all
    first and writes them in one transaction. ``timeout`` bounds, in seconds, the wait for
    another writer's lock and, on PostgreSQL, every statement, the connection attempt (at least
    2 s: libpq's minimum) and a transaction left idle; a PostgreSQL server that does not answer
    a statement for 2 x ``timeout`` + 1 s is cut off (the call fails, the next one reconnects).
    Safe to share between threads; each process opens its own store.

    >>> import sqlite3
    >>> with MessageStore(lambda: sqlite3.connect(":memory:", check_same_thread=False)) as store:
    ...     store.save("c1", ChatMessage.user("Hi"))
    ...     store.dialect, store.count("c1")
    ('sqlite', 1)
    """

    def __init__(
        self,
        database: "str | os.PathLike[str] | Callable[[], Any]",
        *,
        timeout: float = 10.0,
        dialect: str | None = None,
    ) -> None:
        self._timeout = _check_timeout(timeout)
        if dialect is not None and dialect not in DIALECTS:
            raise TypeError(f"dialect must be one of {', '.join(map(repr, DIALECTS))}")
        self._lock = threading.Lock()
        self._conn: Connection | None = None
        self._closed = False
        self._watchdog: Watchdog | None = None
        known: Dialect | None = None if dialect is None else DIALECTS[dialect]
        if isinstance(database, (str, os.PathLike)):
            path = os.fspath(database)
            if not isinstance(path, str):
                raise TypeError(f"database must be a str path or URL, got {type_name(path)}")
            if not path:
                raise ValidationError("must not be empty (use ':memory:' for a database in memory)", "path", "value")
            implied: Dialect
            if _URL.match(path):
                self._factory, self._path, implied = _url_factory(path, self._timeout), redacted(path), POSTGRESQL
            else:
                self._factory, self._path, implied = sqlite_factory(path, self._timeout), path, SQLITE
            if known is not None and known is not implied:
                raise TypeError(f"dialect={dialect!r} contradicts the database given (a {implied.name} one)")
            known = implied
        elif callable(database):
            self._factory = database
            self._path = f"<connection factory {getattr(database, '__qualname__', type(database).__name__)}>"
        else:
            raise TypeError(f"database must be a path, a postgresql:// URL or a connection factory, got {type_name(database)}")
        conn = self._connect_raw()
        self._dialect: Dialect = known if known is not None else detect_dialect(conn)
        try:
            self._open(conn)
        except BaseException:
            close_quietly(conn)
            raise
        self._conn = conn

    # -- connections ----------------------------------------------------------------------------

    def _connect_raw(self) -> Connection:
        """Call the factory; a driver error becomes a ``StoreError``."""
        try:
            return self._factory()
        except Exception as exc:
            if not _driver_error(exc):
                raise
            dialect = getattr(self, "_dialect", None) or dialect_of_error(exc)
            kind = dialect.classify(exc)
            raise _store_error("open" if kind in ("io", "lost") else kind, dialect.detail(exc), self._timeout) from None

    def _open(self, conn: Connection) -> None:
        """Prepare a connection; refuse a newer layout first, then switch to WAL and migrate."""
        dialect = self._dialect

        def run(step: Callable[[Cursor], R]) -> R:
            def on_cursor() -> R:
                cursor = self._cursor(conn)
                try:
                    return step(cursor)
                finally:
                    self._disarm(cursor)

            return self._retrying(on_cursor)

        run(lambda cursor: dialect.prepare(conn, cursor, self._timeout))
        version = run(dialect.read_version)
        if version > SCHEMA_VERSION:
            raise _newer(version)
        if run(dialect.is_file):
            run(lambda cursor: cursor.execute("PRAGMA journal_mode=WAL").fetchone())
        if version < SCHEMA_VERSION:
            run(lambda cursor: _migrate(conn, cursor, dialect))

    def _cursor(self, conn: Connection) -> Cursor:
        """Return a cursor; on a server dialect, one whose statements the watchdog times."""
        cursor = conn.cursor()
        if not self._dialect.watched:
            return cursor
        if self._watchdog is None:
            self._watchdog = Watchdog(2 * self._timeout + 1.0)
        return WatchedCursor(cursor, conn, self._watchdog)

    def _disarm(self, cursor: Cursor) -> None:
        """Close a cursor from ``_cursor`` and stop timing it (before the connection may be closed)."""
        if self._watchdog is not None:
            self._watchdog.disarm()
        cursor.close()

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
            except Exception as exc:
                if not _driver_error(exc):
                    raise
                kind = self._dialect.classify(exc)
                if kind not in ("locked", "transient") or time.monotonic() >= deadline:
                    raise _store_error(kind, self._dialect.detail(exc), self._timeout) from None
            time.sleep(pause)
            pause = min(pause * 2, 0.05)

    @property
    def path(self) -> str:
        """Return the database given at opening: the path, the URL without its password, or the factory's name."""
        return self._path

    @property
    def dialect(self) -> str:
        """Return the database's SQL dialect: ``"sqlite"`` or ``"postgresql"``."""
        return self._dialect.name

    def _connection(self) -> Connection:
        if self._closed:
            raise ValueError("the store is closed; open a new MessageStore")
        if self._conn is None:  # the last connection was lost: connect again
            conn = self._connect_raw()
            try:
                self._open(conn)
            except BaseException:
                close_quietly(conn)
                raise
            self._conn = conn
        return self._conn

    def _sql(self, step: "Callable[[Cursor], R]", *, write: bool = False) -> R:
        """Run ``step`` on a cursor under the lock; driver errors become ``StoreError``.

        A lost connection is dropped (the next call connects again); a write that lost to a
        concurrent transaction (PostgreSQL serialization failure or deadlock) is rerun whole
        until ``timeout``.
        """
        with self._lock:
            deadline = time.monotonic() + self._timeout
            while True:
                conn = self._connection()
                try:
                    cursor = self._cursor(conn)
                    try:
                        return step(cursor)
                    finally:
                        self._disarm(cursor)
                except Exception as exc:
                    if not _driver_error(exc):
                        raise
                    kind = self._dialect.classify(exc)
                    if kind == "lost" or is_broken(conn):
                        self._conn = None
                        close_quietly(conn)
                        kind = "lost"
                    if not (write and kind == "transient" and time.monotonic() < deadline):
                        raise _store_error(kind, self._dialect.detail(exc), self._timeout) from None

    # -- the API ----------------------------------------------------------------------------------

    def save(self, conversation_id: str, message: ChatMessage, *, meta: Mapping[str, Any] | None = None) -> None:
        """Append one message to a conversation (with ``meta``, a JSON object kept beside it).

        >>> with MessageStore(":memory:") as store:
        ...     store.save("c1", ChatMessage.user("Hi"), meta={"id": "u1"})
        ...     store.load("c1")[0].text, store.load_with_meta("c1")[0][1]
        ('Hi', {'id': 'u1'})
        """
        conversation_id = _conversation_id(conversation_id)
        try:
            role, body = _row(message)
        except ValidationError as exc:
            raise exc.prefixed("message") from None
        self._write(conversation_id, [(role, body, _meta_json(meta, "meta"))])

    def save_many(self, conversation_id: str, messages: Iterable[ChatMessage], *,
                  meta: Iterable[Mapping[str, Any] | None] | None = None) -> int:
        """Append messages to a conversation in one transaction (all or nothing); return how many.

        >>> try:
        ...     with MessageStore(":memory:") as store:
        ...         store.save_many("c1", [ChatMessage.user("Hi"), {"role": "wizard", "content": "?"}])
        ... except ValidationError as exc:
        ...     print(exc)
        messages[1].role: expected one of 'system', 'user', 'assistant', 'tool'

        ``meta``, when given, holds one JSON object (or None) per message, in order.
        """
        conversation_id = _conversation_id(conversation_id)
        if isinstance(messages, (str, bytes, dict)) or not isinstance(messages, Iterable):
            raise ValidationError(f"expected a list of messages, got {type_name(messages)}", "messages", "type")
        pairs: list[tuple[str, str]] = map_items(_row, messages, "messages")
        metas: list[str | None] = [None] * len(pairs)
        if meta is not None:
            if isinstance(meta, (str, bytes, dict)) or not isinstance(meta, Iterable):
                raise ValidationError(f"expected a list of objects, got {type_name(meta)}", "meta", "type")
            metas = map_items(_meta_json, meta, "meta")
            if len(metas) != len(pairs):
                raise ValidationError(f"must hold one item per message ({len(pairs)})", "meta", "size")
        if pairs:
            self._write(conversation_id, [(role, body, text) for (role, body), text in zip(pairs, metas)])
        return len(pairs)

    def annotate(self, conversation_id: str, meta: Mapping[str, Any]) -> bool:
        """Merge ``meta``'s keys into the ``meta`` of a conversation's last message; False if it has none.

        >>> with MessageStore(":memory:") as store:
        ...     store.save("c1", ChatMessage.user("Hi"), meta={"id": "u1"})
        ...     store.annotate("c1", {"done": True}), store.load_with_meta("c1")[0][1]
        (True, {'id': 'u1', 'done': True})

        A key already there is replaced. The read and the write run in one transaction under
        the conversation's write lock, so a concurrent ``save`` lands before or after, whole.
        """
        conversation_id = _conversation_id(conversation_id)
        added = thaw_json(check_json_object(meta, "meta"))
        dialect = self._dialect

        def write(cursor: Cursor) -> bool:
            for statement in dialect.begin_write:
                cursor.execute(statement)
            try:
                dialect.lock_conversation(cursor, conversation_id)
                cursor.execute(
                    dialect.sql("SELECT seq, meta FROM {table} WHERE conversation_id = ? ORDER BY seq DESC LIMIT 1"),
                    (conversation_id,),
                )
                last = cursor.fetchone()
                if last is not None:
                    merged = {} if last[1] is None else dict(loads_strict(last[1]))
                    merged.update(added)
                    cursor.execute(dialect.sql("UPDATE {table} SET meta = ? WHERE conversation_id = ? AND seq = ?"),
                                   (_meta_json(merged), conversation_id, last[0]))
                cursor.execute("COMMIT")
            except BaseException:
                rollback(cursor)
                raise
            return last is not None

        return self._sql(write, write=True)

    def _write(self, conversation_id: str, rows: list[Row]) -> None:
        dialect = self._dialect

        def write(cursor: Cursor) -> None:
            for statement in dialect.begin_write:
                cursor.execute(statement)
            try:
                dialect.lock_conversation(cursor, conversation_id)
                cursor.execute(
                    dialect.sql("SELECT COALESCE(MAX(seq), -1) FROM {table} WHERE conversation_id = ?"),
                    (conversation_id,),
                )
                last = int(cursor.fetchone()[0])
                cursor.executemany(
                    dialect.sql(_INSERT),
                    [(conversation_id, last + 1 + i, role, body, meta) for i, (role, body, meta) in enumerate(rows)],
                )
                cursor.execute("COMMIT")
            except BaseException:
                rollback(cursor)
                raise

        self._sql(write, write=True)

    def load(self, conversation_id: str) -> tuple[ChatMessage, ...]:
        """Return a conversation's messages in the order they were saved (empty if unknown).

        A stored row that no longer parses, or that was not written by a store (a system
        message, a body whose role differs from its row's), raises ``ValidationError`` at
        ``messages[i]``. Keys a ``ChatMessage`` does not have (an ``approval``, say) are not
        carried: a load returns chat messages and nothing else.
        """
        conversation_id = _conversation_id(conversation_id)
        sql = self._dialect.sql("SELECT role, body FROM {table} WHERE conversation_id = ? ORDER BY seq")

        def read(cursor: Cursor) -> list[tuple[str, str]]:
            cursor.execute(sql, (conversation_id,))
            return list(cursor.fetchall())

        return tuple(map_items(_loaded, self._sql(read), "messages"))

    def load_with_meta(self, conversation_id: str) -> tuple[tuple[ChatMessage, dict[str, Any] | None], ...]:
        """Return a conversation's messages, each with its ``meta`` (None when it was saved without).

        >>> with MessageStore(":memory:") as store:
        ...     store.save_many("c1", [ChatMessage.user("Hi"), ChatMessage.assistant("Hello")], meta=[None, {"id": "m1"}])
        ...     [(m.text, meta) for m, meta in store.load_with_meta("c1")]
        2
        [('Hi', None), ('Hello', {'id': 'm1'})]
        """
        conversation_id = _conversation_id(conversation_id)
        sql = self._dialect.sql("SELECT role, body, meta FROM {table} WHERE conversation_id = ? ORDER BY seq")

        def read(cursor: Cursor) -> list[tuple[str, str, str | None]]:
            cursor.execute(sql, (conversation_id,))
            return list(cursor.fetchall())

        return tuple(map_items(_loaded_with_meta, self._sql(read), "messages"))

    def count(self, conversation_id: str) -> int:
        """Return how many messages a conversation holds."""
        conversation_id = _conversation_id(conversation_id)
        sql = self._dialect.sql("SELECT COUNT(*) FROM {table} WHERE conversation_id = ?")

        def read(cursor: Cursor) -> int:
            cursor.execute(sql, (conversation_id,))
            return int(cursor.fetchone()[0])

        return self._sql(read)

    def conversations(self) -> tuple[str, ...]:
        """Return the ids of the stored conversations, sorted.

        >>> with MessageStore(":memory:") as store:
        ...     store.save("b", ChatMessage.user("Hi")); store.save("a", ChatMessage.user("Yo"))
        ...     store.conversations()
        ('a', 'b')
        """
        # Sorted here, by code point, so both backends agree whatever the server's collation.
        sql = self._dialect.sql("SELECT DISTINCT conversation_id FROM {table}")

        def read(cursor: Cursor) -> list[str]:
            cursor.execute(sql)
            return [str(row[0]) for row in cursor.fetchall()]

        return tuple(sorted(self._sql(read)))

    def delete(self, conversation_id: str) -> int:
        """Remove a conversation's messages; return how many were removed."""
        conversation_id = _conversation_id(conversation_id)
        sql = self._dialect.sql("DELETE FROM {table} WHERE conversation_id = ?")

        def delete(cursor: Cursor) -> int:
            cursor.execute(sql, (conversation_id,))
            return int(cursor.rowcount)

        return self._sql(delete)

    def close(self) -> None:
        """Close the database connection (idempotent); saved data stays."""
        with self._lock:
            self._closed = True
            if self._watchdog is not None:
                self._watchdog.stop()
            if self._conn is not None:
                conn, self._conn = self._conn, None
                close_quietly(conn)

    def __del__(self) -> None:
        # A store dropped without close() closes its connection (Python 3.13 warns otherwise).
        watchdog = getattr(self, "_watchdog", None)
        if watchdog is not None:
            watchdog.stop()
        conn = getattr(self, "_conn", None)
        if conn is not None:
            close_quietly(conn)

    def __enter__(self) -> "MessageStore":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self._closed else "open"
        return f"MessageStore({self._path!r}, {state})"


def _migrate(conn: Connection, cursor: Cursor, dialect: Dialect) -> None:
    """Take the layout to ``SCHEMA_VERSION`` in one transaction, re-reading the version under its lock."""
    dialect.begin_migration(cursor)
    try:
        version = dialect.read_version(cursor)
        if version > SCHEMA_VERSION:
            raise _newer(version)
        for step in dialect.migrations[version:SCHEMA_VERSION]:
            for statement in step:
                cursor.execute(statement)
        if version < SCHEMA_VERSION:
            dialect.write_version(cursor, SCHEMA_VERSION)
        cursor.execute("COMMIT")
    except BaseException:
        rollback(cursor)
        raise


def _url_factory(url: str, timeout: float) -> Callable[[], Connection]:
    """Return a psycopg 3 connection factory for a ``postgresql://`` URL (psycopg imported here, lazily)."""
    scheme = url.partition("://")[0].lower()
    if scheme not in ("postgresql", "postgres"):
        raise ValidationError(
            "only postgresql:// URLs are supported (for another database pass a connection factory)", "path", "value"
        )
    try:
        psycopg: Any = importlib.import_module("psycopg")
    except ImportError:
        raise StoreError("a postgresql:// store needs the psycopg driver: pip install psycopg[binary]", "io") from None
    try:
        params = psycopg.conninfo.conninfo_to_dict(url)
    except psycopg.Error:
        raise ValidationError("not a valid PostgreSQL URL", "path", "value") from None
    # libpq bounds the connection attempt in whole seconds, 2 at least; a URL's own value wins.
    extra = {} if "connect_timeout" in params else {"connect_timeout": max(2, math.ceil(timeout))}

    def connect() -> Connection:
        return psycopg.connect(url, autocommit=True, **extra)

    return connect


def _newer(version: int) -> StoreError:
    return StoreError(
        f"database layout version {version} is newer than this agentmsg supports ({SCHEMA_VERSION})", "version"
    )
