"""examples/web_chat/server.py on more than one process: a real redis-server, two servers on one store.

The store is a real PostgreSQL server (the setup for several machines) or one SQLite file.

Client A talks to process 1, client B to process 2, in the same session room: B sees A's turn
(the broadcast crossed processes through Redis), a ``chat:init`` on either process returns the
whole history (the store is shared), the owner and the running-turn lock are shared too, and a
Redis that goes away is logged and never stops a server.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from redis_server import RedisServer, redis_server
from agentmsg.events import SessionReducer
from test_web_chat import ANSWER, QUESTION, SCENARIO, SERVER, TIMEOUT, Client, Server, names, reduce

TOKEN = "alice-token-1"


@pytest.fixture
def redis(tmp_path: Path) -> Iterator[RedisServer]:
    with redis_server(tmp_path) as running:
        yield running


@pytest.fixture
def stopped() -> Iterator[list[Server]]:
    """Servers to stop at the end; each one's output must hold no traceback."""
    servers: list[Server] = []
    outputs: list[str] = []
    yield servers
    for server in servers:
        outputs.append(server.stop())
    for out in outputs:
        assert "Traceback" not in out, out


def wait_for(condition: Any, what: str) -> None:
    deadline = time.monotonic() + TIMEOUT
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def completions(client: Client) -> int:
    return sum(1 for name, _ in client.events if name == "completion")


def two_servers(store: Path | str, redis: RedisServer, stopped: list[Server]) -> tuple[Server, Server]:
    one = Server(store, "--redis", redis.url)  # type: ignore[arg-type]
    stopped.append(one)
    two = Server(store, "--redis", redis.url)  # type: ignore[arg-type]
    stopped.append(two)
    return one, two


def run_two_processes(store: Path | str, redis: RedisServer, stopped: list[Server]) -> None:
    one, two = two_servers(store, redis, stopped)
    made: list[Client] = []
    try:
        alice = Client(one, TOKEN)  # process 1
        made.append(alice)
        session_id = alice.call("chat:init", {})["sessionId"]
        tab = Client(two, TOKEN)  # the same user's second tab, on process 2
        made.append(tab)
        assert tab.call("chat:init", {"sessionId": session_id})["messages"] == []

        # A turn on process 1: the client of process 2 sees every event, in order.
        ack = alice.call("chat:send", {"message": QUESTION, "conversation_id": session_id})
        assert ack == {"sessionId": session_id, "status": "completed"}
        wait_for(lambda: completions(tab) == 1, "process 2's client to see the completion")
        assert names(alice.events) == SCENARIO
        assert tab.events == alice.events
        history = reduce(alice.events).history()
        assert history[-1]["content"] == ANSWER

        # A late client on process 2 gets the whole history from the shared store.
        late = Client(two, TOKEN)
        made.append(late)
        assert late.call("chat:init", {"sessionId": session_id})["messages"] == history  # ids and times included

        # The owner is shared: another token is refused on either process.
        for server in (one, two):
            mallory = Client(server, "mallory-token")
            made.append(mallory)
            assert mallory.call("chat:init", {"sessionId": session_id})["code"] == "forbidden"

        # The next turn runs on process 2, on the whole conversation; process 1's client sees it.
        ack = tab.call("chat:send", {"message": "And again?", "conversation_id": session_id})
        assert ack == {"sessionId": session_id, "status": "completed"}
        wait_for(lambda: completions(alice) == 2, "process 1's client to see the second turn")
        assert alice.events == tab.events and names(tab.events) == SCENARIO * 2
        both = reduce(tab.events).history()
        assert [e["role"] for e in both] == ["user", "assistant", "assistant", "assistant"] * 2
        for server in (one, two):
            again = Client(server, TOKEN)
            made.append(again)
            assert again.call("chat:init", {"sessionId": session_id})["messages"] == both
    finally:
        for client in made:
            client.close()


@pytest.mark.e2e
def test_two_processes_on_one_sqlite_file_and_redis(tmp_path: Path, redis: RedisServer,
                                                     stopped: list[Server]) -> None:
    run_two_processes(tmp_path / "chat.db", redis, stopped)


@pytest.mark.e2e
def test_two_processes_on_postgresql_and_redis(postgres_url: str, redis: RedisServer, stopped: list[Server]) -> None:
    from postgres_server import fresh_schema_url

    run_two_processes(fresh_schema_url(postgres_url), redis, stopped)


@pytest.mark.e2e
def test_a_turn_running_on_another_process_is_busy_here(tmp_path: Path, redis: RedisServer,
                                                       stopped: list[Server]) -> None:
    import redis as redis_py

    one, two = two_servers(tmp_path / "chat.db", redis, stopped)
    alice = Client(one, TOKEN)
    tab = Client(two, TOKEN)
    try:
        session_id = alice.call("chat:init", {})["sessionId"]
        direct = redis_py.Redis.from_url(redis.url)
        try:  # what process 1 holds while its turn runs
            assert direct.set(f"web_chat:turn:{session_id}", "another-process", nx=True, ex=60)
            for client in (alice, tab):
                reply = client.call("chat:send", {"message": QUESTION, "conversation_id": session_id})
                assert (reply["code"], reply["path"]) == ("busy", "conversation_id")
            direct.delete(f"web_chat:turn:{session_id}")
            assert tab.call("chat:send", {"message": QUESTION, "conversation_id": session_id})["status"] == "completed"
            assert direct.get(f"web_chat:turn:{session_id}") is None  # released after the turn
        finally:
            direct.close()
        wait_for(lambda: completions(alice) == 1, "process 1's client to see the turn")
    finally:
        alice.close()
        tab.close()


@pytest.mark.e2e
def test_redis_going_away_is_logged_and_never_stops_the_server(tmp_path: Path, redis: RedisServer) -> None:
    server = Server(tmp_path / "chat.db", "--redis", redis.url)
    client: Client | None = None
    try:
        client = Client(server, TOKEN)
        session_id = client.call("chat:send", {"message": QUESTION})["sessionId"]
        redis.stop()

        # The client of this process is still served: its error event, its session's history.
        reply = client.call("chat:send", {"message": QUESTION, "conversation_id": session_id})
        assert (reply["code"], reply["path"]) == ("unavailable", "conversation_id")
        assert client.errors[-1] == reply  # the chat:error event reached this process's client
        assert len(client.call("chat:init", {"sessionId": session_id})["messages"]) == 4
        assert client.call("chat:init", {})["code"] == "unavailable"  # a new session needs the directory
        assert server.process.poll() is None

        redis.start()  # back on the same port: turns run again
        reply = client.call("chat:send", {"message": QUESTION, "conversation_id": session_id})
        assert reply == {"sessionId": session_id, "status": "completed"}
        client.close()
        client = None
    finally:
        if client is not None:
            client.close()
        out = server.stop()
    where = f"redis at 127.0.0.1:{redis.port}/0"
    assert f"{where} cannot be reached (ConnectionError): chat:send is refused with 'unavailable'" in out, out
    assert f"{where} cannot be reached (ConnectionError): broadcasts reach this process's clients only" in out, out
    assert f"{where} is reachable again" in out, out
    assert "Traceback" not in out, out


def test_an_unreachable_redis_at_startup_is_a_clear_exit(tmp_path: Path) -> None:
    with socket.socket() as probe:  # a free port: nothing listens there
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    done = subprocess.run([sys.executable, str(SERVER), "--store", str(tmp_path / "chat.db"),
                           "--redis", f"redis://user:secret@127.0.0.1:{port}/0"],
                          capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode == 1
    assert done.stderr.strip() == f"--redis: redis at 127.0.0.1:{port}/0 cannot be reached (ConnectionError)"
    assert "secret" not in done.stderr + done.stdout


def test_coalesce_merges_only_waiting_chunks_of_one_message() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("web_chat_server", SERVER)
    assert spec is not None and spec.loader is not None
    server = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(server)
    chunk = lambda message_id, text: ("message:chunk", {"id": message_id, "chunk": text})  # noqa: E731
    waiting = [chunk("m1", "Let "), chunk("m1", "me "), chunk("m1", "check."), ("tool:message:start", {"id": "t1"}),
               chunk("m2", "You "), chunk("m3", "have"), chunk("m3", " 3.")]
    merged = server.coalesce(waiting)
    assert merged == [chunk("m1", "Let me check."), ("tool:message:start", {"id": "t1"}), chunk("m2", "You "),
                      chunk("m3", "have 3.")]
    assert waiting[0] == chunk("m1", "Let ")  # the queued payloads are not changed
    assert server.coalesce([chunk("m1", "a")]) == [chunk("m1", "a")] and server.coalesce([]) == []
    # Replaying the merged chunks gives the same history as the original ones.
    histories = []
    for events in (waiting, merged):
        reducer = SessionReducer()
        reducer.receive("chat:send", {"message": QUESTION})
        for message_id in ("m1", "m2", "m3"):
            reducer.receive("message:start", {"id": message_id, "role": "assistant", "content": ""})
        for name, payload in events:
            if name == "message:chunk":
                reducer.receive(name, payload)
        histories.append([e["content"] for e in reducer.history()])
    assert histories[0] == histories[1] == [QUESTION, "Let me check.", "You ", "have 3."]


def test_an_unreachable_postgresql_store_at_startup_is_a_clear_exit(tmp_path: Path) -> None:
    with socket.socket() as probe:  # a free port: nothing listens there
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    done = subprocess.run([sys.executable, str(SERVER), "--store", f"postgresql://user:secret@127.0.0.1:{port}/chat"],
                          capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode == 1
    assert done.stderr.startswith(f"--store postgresql://127.0.0.1:{port}/chat: "), done.stderr
    assert "Traceback" not in done.stderr and "secret" not in done.stderr + done.stdout


@pytest.mark.e2e
def test_a_store_going_away_is_logged_and_never_stops_the_server(tmp_path: Path) -> None:
    from postgres_server import running_postgres

    database = running_postgres()  # a server of this test's own, stopped half way
    url = database.__enter__()
    stopped_database = False
    server = Server(url)  # type: ignore[arg-type]
    client: Client | None = None
    try:
        client = Client(server, TOKEN)
        session_id = client.call("chat:send", {"message": QUESTION})["sessionId"]
        database.__exit__(None, None, None)
        stopped_database = True

        reply = client.call("chat:send", {"message": QUESTION, "conversation_id": session_id})
        assert (reply["code"], reply["path"]) == ("unavailable", "sessionId"), reply
        assert client.call("chat:init", {})["code"] == "unavailable"
        assert server.process.poll() is None
        client.close()
        client = None
    finally:
        if client is not None:
            client.close()
        out = server.stop()
        if not stopped_database:
            database.__exit__(None, None, None)
    assert "the store cannot be read (StoreError io): the session is answered with 'unavailable'" in out, out
    assert "Traceback" not in out, out
