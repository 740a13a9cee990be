"""The message store on a real PostgreSQL server: URLs and factories, layout, locks, timeouts, lost connections.

The server is started by the session fixture ``postgres_url`` (tests/postgres_server.py); each
test gets a fresh schema. The suite shared with SQLite is tests/test_store.py (``backend``).
"""

from __future__ import annotations

import os
import signal
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest

from agentmsg import ChatMessage, ToolCall
from agentmsg.io.store import SCHEMA_VERSION, MessageStore, StoreError
from postgres_server import fresh_schema_url

pytestmark = pytest.mark.e2e


@pytest.fixture
def url(postgres_url: str) -> str:
    return fresh_schema_url(postgres_url)


def sql(url: str, statement: str, params: tuple[Any, ...] | None = None) -> list[tuple[Any, ...]]:
    with psycopg.connect(url, autocommit=True) as conn:
        cursor = conn.execute(statement, params)
        return cursor.fetchall() if cursor.description else []


def test_a_url_opens_a_postgresql_store_with_its_own_tables(url: str) -> None:
    with MessageStore(url) as store:
        assert store.dialect == "postgresql"
        store.save_many("c1", [ChatMessage.user("Hi"), ChatMessage.assistant("Hello")])
        assert [m.text for m in store.load("c1")] == ["Hi", "Hello"]
    assert sql(url, "SELECT version FROM agentmsg_schema") == [(SCHEMA_VERSION,)]
    assert sql(url, "SELECT conversation_id, seq, role FROM agentmsg_messages ORDER BY seq") == [
        ("c1", 0, "user"), ("c1", 1, "assistant")
    ]


def test_the_url_password_never_shows(postgres_url: str) -> None:
    sql(postgres_url, "DROP ROLE IF EXISTS writer")
    sql(postgres_url, "CREATE ROLE writer LOGIN SUPERUSER PASSWORD 'hunter2-secret'")
    fresh = fresh_schema_url(postgres_url)  # '...?options=...': the store's tables go there, not in public
    secret = fresh.replace("postgres@", "writer:hunter2-secret@") + "&application_name=x&password=hunter2-secret"
    with MessageStore(secret) as store:
        assert "hunter2" not in store.path and "hunter2" not in repr(store)
        assert store.path.startswith("postgresql://writer@127.0.0.1:") and store.path.endswith("/postgres")


def test_a_psycopg_factory_is_recognized_and_configured(url: str) -> None:
    opened: list[psycopg.Connection[Any]] = []

    def connect() -> psycopg.Connection[Any]:
        conn = psycopg.connect(url)  # not autocommit: the store switches it (it runs its own transactions)
        opened.append(conn)
        return conn

    with MessageStore(connect, timeout=3) as store:
        assert store.dialect == "postgresql" and "connect" in store.path
        store.save("c1", ChatMessage.user("Hi"))
        conn = opened[0]
        assert conn.autocommit
        assert conn.execute("SHOW statement_timeout").fetchone() == ("3s",)
        assert conn.execute("SHOW lock_timeout").fetchone() == ("3s",)
    assert opened[0].closed  # the store owns the connections it got
    with MessageStore(connect, dialect="postgresql") as store:
        assert store.count("c1") == 1


def test_another_applications_messages_table_is_left_alone(url: str) -> None:
    sql(url, "CREATE TABLE messages (id serial PRIMARY KEY, subject text)")
    sql(url, "INSERT INTO messages (subject) VALUES ('theirs')")
    with MessageStore(url) as store:
        store.save("c1", ChatMessage.user("ours"))
        assert store.count("c1") == 1
    assert sql(url, "SELECT subject FROM messages") == [("theirs",)]


def test_a_newer_layout_is_refused_before_anything_changes(url: str) -> None:
    MessageStore(url).close()
    sql(url, "UPDATE agentmsg_schema SET version = %s", (SCHEMA_VERSION + 1,))
    with pytest.raises(StoreError) as info:
        MessageStore(url)
    assert info.value.code == "version" and str(SCHEMA_VERSION + 1) in info.value.message
    assert sql(url, "SELECT version FROM agentmsg_schema") == [(SCHEMA_VERSION + 1,)]


def test_many_stores_opening_a_new_schema_at_once_migrate_it_once(postgres_url: str) -> None:
    for _ in range(5):
        url = fresh_schema_url(postgres_url)
        start = threading.Barrier(8)
        stores: list[MessageStore] = []
        failures: list[BaseException] = []

        def opener() -> None:
            try:
                start.wait(30)
                stores.append(MessageStore(url))
            except BaseException as exc:
                failures.append(exc)

        threads = [threading.Thread(target=opener) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        assert failures == [] and len(stores) == 8, failures[:1]
        assert sql(url, "SELECT version FROM agentmsg_schema") == [(SCHEMA_VERSION,)]  # one row: migrated once
        stores[0].save("c", ChatMessage.user("x"))
        assert all(store.count("c") == 1 for store in stores)
        for store in stores:
            store.close()


def test_a_conversation_locked_too_long_is_a_store_error_and_others_go_on(url: str) -> None:
    """The per-conversation write lock: held elsewhere beyond ``timeout`` it is 'locked'; other conversations write."""
    MessageStore(url).close()
    holder = psycopg.connect(url, autocommit=True)
    try:
        holder.execute("BEGIN")
        # The lock a store takes for conversation 'busy' (see agentmsg/io/_dialects.py).
        holder.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (0x61676D73, "busy"))
        with MessageStore(url, timeout=0.3) as store:
            with pytest.raises(StoreError) as info:
                store.save("busy", ChatMessage.user("x"))
            assert info.value.code == "locked"
            store.save("free", ChatMessage.user("y"))  # another conversation is not held up
            assert (store.count("busy"), store.count("free")) == (0, 1)
            holder.execute("ROLLBACK")
            store.save("busy", ChatMessage.user("x"))
            assert store.count("busy") == 1
    finally:
        holder.close()


def test_a_table_lock_held_too_long_is_a_store_error(url: str) -> None:
    MessageStore(url).close()
    with psycopg.connect(url) as holder:
        holder.execute("LOCK TABLE agentmsg_messages IN EXCLUSIVE MODE")  # readers pass, writers wait
        with MessageStore(url, timeout=0.3) as store:
            with pytest.raises(StoreError) as info:
                store.save("c", ChatMessage.user("x"))
            assert info.value.code == "locked" and "0.3 s" in info.value.message
            assert store.count("c") == 0
        holder.rollback()


def test_a_statement_that_hangs_is_cut_by_the_statement_timeout(url: str) -> None:
    """A server that does not answer in time: the statement ends at ``timeout``; nothing is saved; the store goes on."""
    MessageStore(url).close()
    sql(url, "CREATE FUNCTION stall() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
             "IF NEW.conversation_id = 'slow' THEN PERFORM pg_sleep(60); END IF; RETURN NEW; END $$")
    sql(url, "CREATE TRIGGER stall BEFORE INSERT ON agentmsg_messages FOR EACH ROW EXECUTE FUNCTION stall()")
    with MessageStore(url, timeout=0.5) as store:
        with pytest.raises(StoreError) as info:
            store.save_many("slow", [ChatMessage.user("a"), ChatMessage.user("b")])
        assert info.value.code == "locked" and "0.5 s" in info.value.message
        assert store.count("slow") == 0
        store.save("fast", ChatMessage.user("x"))
        assert store.count("fast") == 1


@pytest.fixture
def silent_server() -> Iterator[int]:
    """A TCP port that accepts connections and never says a word (a hung server)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                accepted.append(listener.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept)
    thread.start()
    yield int(listener.getsockname()[1])
    stop.set()
    thread.join()
    for conn in accepted:
        conn.close()
    listener.close()


def test_a_server_that_never_answers_is_a_bounded_store_error(silent_server: int) -> None:
    """The connection attempt is bounded by ``timeout`` (libpq's connect_timeout, 2 s at least)."""
    started = time.monotonic()
    with pytest.raises(StoreError) as info:
        MessageStore(f"postgresql://postgres@127.0.0.1:{silent_server}/postgres", timeout=1)
    assert info.value.code == "io" and "cannot be opened" in info.value.message
    assert time.monotonic() - started < 60  # bounded (2 s expected); without the bound this never returns


def test_no_server_and_an_unknown_database_are_store_errors(postgres_url: str) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed again: nothing listens there
    with pytest.raises(StoreError) as info:
        MessageStore(f"postgresql://postgres@127.0.0.1:{port}/postgres", timeout=1)
    assert info.value.code == "io"
    with pytest.raises(StoreError) as info:
        MessageStore(postgres_url.rsplit("/", 1)[0] + "/no_such_database")
    assert info.value.code == "io" and "cannot be opened" in info.value.message


def _backend_pid(store: MessageStore) -> int:
    return int(store._conn.info.backend_pid)  # type: ignore[union-attr]


def test_a_connection_terminated_while_idle_fails_one_call_then_reconnects(url: str) -> None:
    with MessageStore(url) as store:
        store.save("c1", ChatMessage.user("before"))
        first = _backend_pid(store)
        assert sql(url, "SELECT pg_terminate_backend(%s)", (first,)) == [(True,)]
        with pytest.raises(StoreError) as info:
            store.count("c1")
        assert info.value.code == "io" and "next call connects again" in info.value.message
        assert store.count("c1") == 1  # a new connection
        assert _backend_pid(store) != first
        store.save("c1", ChatMessage.user("after"))
        assert [m.text for m in store.load("c1")] == ["before", "after"]


def test_a_connection_terminated_mid_transaction_saves_nothing_and_reconnects(url: str) -> None:
    """pg_terminate_backend while a save is inside its transaction: StoreError 'io', no row of the batch, next call works."""
    with MessageStore(url) as store:
        store.save("c1", ChatMessage.user("kept"))
        sql(url, "CREATE FUNCTION stall() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
                 "IF NEW.seq = 2 THEN PERFORM pg_sleep(60); END IF; RETURN NEW; END $$")
        sql(url, "CREATE TRIGGER stall BEFORE INSERT ON agentmsg_messages FOR EACH ROW EXECUTE FUNCTION stall()")
        pid = _backend_pid(store)
        errors: list[BaseException] = []

        def save() -> None:
            try:
                store.save_many("c1", [ChatMessage.user("one"), ChatMessage.assistant("two"), ChatMessage.user("three")])
            except BaseException as exc:
                errors.append(exc)

        writer = threading.Thread(target=save)
        writer.start()
        deadline = time.monotonic() + 30
        while sql(url, "SELECT wait_event FROM pg_stat_activity WHERE pid = %s", (pid,)) != [("PgSleep",)]:
            assert time.monotonic() < deadline, "the save never reached its second row"
            time.sleep(0.02)
        # The first row of the batch is inserted (uncommitted) and the second is being inserted.
        assert sql(url, "SELECT pg_terminate_backend(%s)", (pid,)) == [(True,)]
        writer.join(30)
        assert not writer.is_alive()
        assert len(errors) == 1 and isinstance(errors[0], StoreError), errors
        assert errors[0].code == "io" and "connection" in errors[0].message
        sql(url, "DROP TRIGGER stall ON agentmsg_messages")
        assert [m.text for m in store.load("c1")] == ["kept"]  # reconnected; nothing of the batch
        store.save("c1", ChatMessage.assistant("after"))
        assert store.count("c1") == 2 and _backend_pid(store) != pid


def test_a_server_that_stops_answering_is_cut_off_and_the_store_reconnects(url: str) -> None:
    """A frozen backend (SIGSTOP) answers nothing, so no server-side timeout fires: the store's watchdog
    cuts the connection after 2 x timeout + 1 s, the call fails with 'io', and the next call connects again."""
    with MessageStore(url, timeout=0.5) as store:
        store.save("c1", ChatMessage.user("before"))
        pid = _backend_pid(store)
        os.kill(pid, signal.SIGSTOP)
        try:
            with pytest.raises(StoreError) as info:
                store.save("c1", ChatMessage.user("lost"))
            assert info.value.code == "io" and "next call connects again" in info.value.message
        finally:
            os.kill(pid, signal.SIGCONT)
        assert [m.text for m in store.load("c1")] == ["before"]
        assert _backend_pid(store) != pid


def test_a_closed_store_does_not_reconnect(url: str) -> None:
    store = MessageStore(url)
    store.close()
    with pytest.raises(ValueError, match="closed"):
        store.count("c1")
    assert "closed" in repr(store)


def test_tool_calls_and_unicode_survive_the_server(url: str) -> None:
    messages = (
        ChatMessage.user("Grüße ☀️ \u2028 \\u0000 '; DROP TABLE agentmsg_messages; --"),
        ChatMessage.assistant(tool_calls=[ToolCall("c'1", "look", {"q": "\x00 NUL inside JSON", "n": [1, 2.5, None]})]),
        ChatMessage.tool("c'1", "ok"),
    )
    with MessageStore(url) as store:
        store.save_many("'; DROP TABLE agentmsg_messages; --", messages)
        assert store.load("'; DROP TABLE agentmsg_messages; --") == messages
        assert store.conversations() == ("'; DROP TABLE agentmsg_messages; --",)
