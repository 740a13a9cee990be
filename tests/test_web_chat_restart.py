"""examples/web_chat/server.py across restarts, kills and processes: the history clients saw is the one they get back.

Real server processes (SIGTERM and SIGKILL), python-socketio clients, SQLite files, and a real
PostgreSQL server with a real redis-server for two processes. Every test starts servers: e2e.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from redis_server import RedisServer
from test_web_chat import ANSWER, QUESTION, TIMEOUT, Client, Server, reduce
from test_web_chat_scale import redis, stopped, wait_for  # noqa: F401  (fixtures)

from agentmsg.events.journal import INTERRUPTED_RESULT

pytestmark = pytest.mark.e2e
TOKEN = "erin-token-5"


def kill(server: Server) -> None:
    """Kill -9: the process gets no chance to store or send anything more."""
    server.process.kill()
    server.process.communicate(timeout=TIMEOUT)


def count(client: Client, name: str) -> int:
    return sum(1 for event, _ in client.events if event == name)


def mid_answer(client: Client) -> bool:
    """The turn's final answer is streaming: its message started and a chunk of it arrived."""
    names = [name for name, _ in client.events]
    return names.count("message:start") == 2 and names[-1] == "message:chunk"


def test_message_ids_change_across_a_restart(tmp_path: Path, stopped: list[Server]) -> None:  # noqa: F811
    """chat:init after a restart equals what the live client rebuilt from the events: ids, titles, timestamps."""
    store = tmp_path / "chat.db"
    first = Server(store)
    client = Client(first, TOKEN)
    session_id = client.call("chat:send", {"message": QUESTION})["sessionId"]
    client.close()
    assert "Traceback" not in first.stop()
    seen = reduce(client.events).history()
    assert seen[2]["title"] == "Calling list_recipes" and seen[2]["id"] != seen[2]["toolCallId"]
    second = Server(store)
    stopped.append(second)
    again = Client(second, TOKEN)
    try:
        reply = again.call("chat:init", {"sessionId": session_id})
    finally:
        again.close()
    assert reply["messages"] == seen
    assert not any(e["id"].startswith("stored_") or e["timestamp"].startswith("1970") for e in reply["messages"])


def test_user_message_ids_never_reach_live_clients(tmp_path: Path, stopped: list[Server]) -> None:  # noqa: F811
    """The chat:send echo carries the user entry's id and timestamp, as chat:init shows them."""
    server = Server(tmp_path / "chat.db")
    stopped.append(server)
    client = Client(server, TOKEN)
    try:
        session_id = client.call("chat:send", {"message": QUESTION, "id": "mine", "timestamp": "2000-01-01T00:00:00Z"})[
            "sessionId"]
        reply = client.call("chat:init", {"sessionId": session_id})
    finally:
        client.close()
    echo = client.events[0][1]
    assert echo["id"] != "mine" and echo["timestamp"] != "2000-01-01T00:00:00Z"  # the server's, not the client's
    assert (reply["messages"][0]["id"], reply["messages"][0]["timestamp"]) == (echo["id"], echo["timestamp"])


def test_an_interrupted_turn_is_left_half_stored_and_unmarked(tmp_path: Path, stopped: list[Server]) -> None:  # noqa: F811
    """Kill -9 mid-answer: after a restart nothing the client saw is lost, the turn is marked, the next turn is valid."""
    store = tmp_path / "chat.db"
    first = Server(store)
    client = Client(first, TOKEN)
    session_id = client.call("chat:init", {})["sessionId"]
    client.sio.emit("chat:send", {"message": QUESTION, "conversation_id": session_id})
    wait_for(lambda: mid_answer(client), "the final answer to stream")
    kill(first)
    client.close()
    assert count(client, "completion") == 0  # killed mid-turn
    seen = reduce(client.events).history()
    assert [e["role"] for e in seen] == ["user", "assistant", "assistant", "assistant"]

    second = Server(store)
    stopped.append(second)
    again = Client(second, TOKEN)
    try:
        reply = again.call("chat:init", {"sessionId": session_id})
        restored = reply["messages"]
        # nothing the client saw is lost: every entry, with its id, and at least the text it saw
        assert [e["id"] for e in restored] == [e["id"] for e in seen]
        assert restored[:3] == [seen[0] | {"completion": restored[0]["completion"]}, seen[1], seen[2]]
        assert restored[3]["content"].startswith(seen[3]["content"]) and seen[3]["content"]
        assert restored[0]["completion"]["code"] == "interrupted"
        assert restored[0]["completion"]["turnId"] == client.events[1][1]["turnId"]
        assert again.call("chat:init", {"sessionId": session_id}) == reply  # closed once
        # the next question gets its own answer (the scripted model calls the tool for a question, and
        # answers a tool result): it is not merged with the dead turn's tool call or result
        ack = again.call("chat:send", {"message": "And now?", "conversation_id": session_id})
        assert ack == {"sessionId": session_id, "status": "completed"}
        assert [name for name, _ in again.events].count("tool:message:start") == 1
        assert again.events[-1][1]["result"]["text"] == ANSWER
    finally:
        again.close()


def test_kill_while_a_tool_call_waits_closes_the_call(tmp_path: Path, stopped: list[Server]) -> None:  # noqa: F811
    store = tmp_path / "chat.db"
    first = Server(store, "--ask", "list_recipes")
    client = Client(first, TOKEN)
    session_id = client.call("chat:init", {})["sessionId"]
    client.sio.emit("chat:send", {"message": QUESTION, "conversation_id": session_id})
    wait_for(lambda: count(client, "tool:approval:request") == 1, "the approval request")
    kill(first)
    client.close()
    seen = reduce(client.events).history()
    second = Server(store)
    stopped.append(second)
    again = Client(second, TOKEN)
    try:
        restored = again.call("chat:init", {"sessionId": session_id})["messages"]
    finally:
        again.close()
    assert [e["id"] for e in restored] == [e["id"] for e in seen]
    tool = restored[-1]
    assert (tool["status"], tool["error"], tool["title"]) == ("error", INTERRUPTED_RESULT, "Calling list_recipes")
    assert restored[0]["completion"]["code"] == "interrupted"


def test_two_processes_on_postgresql_and_redis_b_goes_on_when_a_is_killed(
        postgres_url: str, redis: RedisServer, stopped: list[Server]) -> None:  # noqa: F811
    from postgres_server import fresh_schema_url

    store = fresh_schema_url(postgres_url)
    a = Server(store, "--redis", redis.url)  # type: ignore[arg-type]
    b = Server(store, "--redis", redis.url)  # type: ignore[arg-type]
    stopped.append(b)
    on_a, on_b = Client(a, TOKEN), Client(b, TOKEN)
    try:
        session_id = on_a.call("chat:init", {})["sessionId"]
        assert on_b.call("chat:init", {"sessionId": session_id})["messages"] == []
        assert on_a.call("chat:send", {"message": QUESTION, "conversation_id": session_id})["status"] == "completed"
        wait_for(lambda: count(on_b, "completion") == 1, "B's client to see A's turn")
        assert on_b.events == on_a.events  # B's client sees A's events
        assert on_b.call("chat:init", {"sessionId": session_id})["messages"] == reduce(on_a.events).history()

        on_a.sio.emit("chat:send", {"message": "And again?", "conversation_id": session_id})
        wait_for(lambda: mid_answer_of_second_turn(on_a), "A's second answer to stream")
        kill(a)
        seen = reduce(on_a.events).history()
        # B goes on: once A's lock has expired (A renews it no more), B closes A's turn and runs the next one
        deadline = time.monotonic() + TIMEOUT
        while True:
            ack = on_b.call("chat:send", {"message": "Still there?", "conversation_id": session_id})
            if ack.get("status") == "completed" or time.monotonic() > deadline:
                break
            assert ack.get("code") == "busy", ack
            time.sleep(0.5)
        assert ack == {"sessionId": session_id, "status": "completed"}
        restored = on_b.call("chat:init", {"sessionId": session_id})["messages"]
        assert [e["id"] for e in restored[:len(seen)]] == [e["id"] for e in seen]
        assert restored[4]["completion"]["code"] == "interrupted"  # the user entry of A's dead turn
        assert restored[len(seen) - 1]["content"].startswith(seen[-1]["content"])
        interrupted = [p for name, p in on_b.events if name == "completion" and p.get("code") == "interrupted"]
        assert len(interrupted) == 1  # B told the room when it closed the turn
    finally:
        on_a.close()
        on_b.close()


def mid_answer_of_second_turn(client: Client) -> bool:
    names = [name for name, _ in client.events]
    return names.count("message:start") == 4 and names[-1] == "message:chunk"
