"""examples/web_chat/server.py for real: a server process on loopback, python-socketio clients, SSE over http.client.

The tests on the module's one server are in the quick tier; those that start servers of their own are e2e.
"""

from __future__ import annotations

import base64
import http.client
import http.server
import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import socketio

from agentmsg.events import SessionReducer

ROOT = Path(__file__).resolve().parent.parent
SERVER = ROOT / "examples" / "web_chat" / "server.py"
CLIENT_JS = ROOT / "examples" / "web_chat" / "node_modules" / "socket.io-client" / "dist" / "socket.io.min.js"
QUESTION = "What recipes do I have?"
ANSWER = "You have 3 recipes: Pancakes, Tomato soup and Omelette."
PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\x00" * 64).decode()
TIMEOUT = 60  # seconds: a bound for the server to start and for a turn, never a performance claim


class Server:
    def __init__(self, store: Path, *args: str, env: dict[str, str] | None = None) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.process = subprocess.Popen(
            [sys.executable, str(SERVER), "--port", str(self.port), "--store", str(store), *args],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env={**os.environ, **(env or {})},
        )
        deadline = time.monotonic() + TIMEOUT
        while True:
            assert self.process.poll() is None, self.process.stdout.read() if self.process.stdout else ""
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return
            except OSError:
                if time.monotonic() > deadline:
                    self.stop()
                    raise TimeoutError("the chat server did not start") from None
                time.sleep(0.1)

    def stop(self) -> str:
        self.process.terminate()
        try:
            out, _ = self.process.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            out, _ = self.process.communicate()
        return out or ""

    def http(self) -> http.client.HTTPConnection:
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=TIMEOUT)


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("web_chat") / "chat.db"


@pytest.fixture(scope="module")
def server(store: Path) -> Iterator[Server]:
    running = Server(store)
    try:
        yield running
    finally:
        out = running.stop()
    assert "Traceback" not in out, out  # no handler ever crashed


class Client:
    """A python-socketio client that records every event it receives."""

    def __init__(self, server: Server, token: str | None = "alice-token-1") -> None:
        self.events: list[tuple[str, Any]] = []
        self.completed = threading.Event()
        self.errors: list[dict[str, Any]] = []
        self.sio = socketio.Client(reconnection=False)
        # python-engineio runs each message's handler in a thread of its own, so events could be
        # recorded out of the order they arrived in; run them on the reading thread, in order.
        eio_trigger = self.sio.eio._trigger_event
        self.sio.eio._trigger_event = lambda *args, run_async=False, **kw: eio_trigger(*args, **kw)  # type: ignore[method-assign]

        @self.sio.on("*")
        def record(name: str, payload: Any = None) -> None:
            if name == "chat:error":
                self.errors.append(payload)
            else:
                self.events.append((name, payload))
            if name == "completion":
                self.completed.set()

        self.sio.connect(server.url, auth={"token": token} if token else None, wait_timeout=TIMEOUT,
                         transports=["websocket"])

    def call(self, name: str, payload: Any) -> Any:
        return self.sio.call(name, payload, timeout=TIMEOUT)

    def close(self) -> None:
        self.sio.disconnect()


@pytest.fixture
def clients(server: Server) -> Iterator[list[Client]]:
    made: list[Client] = []
    yield made
    for client in made:
        client.close()


def connect(server: Server, clients: list[Client], token: str | None = "alice-token-1") -> Client:
    client = Client(server, token)
    clients.append(client)
    return client


def names(events: list[tuple[str, Any]]) -> list[str]:
    out: list[str] = []
    for name, _ in events:
        if not (name == "message:chunk" and out[-1] == name):
            out.append(name)
    return out


SCENARIO = ["chat:send", "turn:start", "message:start", "message:chunk", "message:end", "tool:message:start",
            "tool:message:args", "tool:message:update", "progress", "tool:message:update", "tool:message:complete", "message:start",
            "message:chunk", "message:end", "completion"]


def reduce(events: list[tuple[str, Any]]) -> SessionReducer:
    session = SessionReducer()
    for name, payload in events:
        session.receive(name, payload)
    return session


def test_recipes_scenario_two_clients_and_reconnect(server: Server, clients: list[Client]) -> None:
    alice = connect(server, clients)
    reply = alice.call("chat:init", {})
    assert reply["status"] == "success" and reply["messages"] == [] and reply["artifacts"] == []
    session_id = reply["sessionId"]
    watcher = connect(server, clients)  # the same user in a second tab
    assert watcher.call("chat:init", {"sessionId": session_id})["messages"] == []

    ack = alice.call("chat:send", {"message": QUESTION, "conversation_id": session_id})
    assert ack == {"sessionId": session_id, "status": "completed"}
    assert watcher.completed.wait(TIMEOUT)
    assert names(alice.events) == SCENARIO
    assert watcher.events == alice.events  # the room saw exactly the same events, in order
    echo = alice.events[0][1]
    assert echo == {"message": QUESTION, "conversation_id": session_id, "id": echo["id"], "timestamp": echo["timestamp"]}
    tool_start = dict(alice.events)["tool:message:start"]
    assert tool_start["toolName"] == "list_recipes" and tool_start["status"] == "pending"
    assert alice.events[-1][1]["success"] is True and alice.events[-1][1]["result"]["text"] == ANSWER

    history = reduce(alice.events).history()
    assert [(e["role"], e.get("kind")) for e in history] == [
        ("user", None), ("assistant", "chat"), ("assistant", "tool"), ("assistant", "chat")]
    assert history[1]["content"] == "Let me check your cookbook."
    assert history[2]["status"] == "completed" and history[2]["content"] == "Pancakes\nTomato soup\nOmelette"
    assert history[3]["content"] == ANSWER

    # A reconnect (a new connection of the same user) gets the stored history with chat:init: the
    # same entries the client rebuilt from the events, the user entry's id and time included.
    later = connect(server, clients)
    again = later.call("chat:init", {"sessionId": session_id})
    assert again["messages"][0]["id"] == echo["id"] and echo["id"].startswith("user_")
    assert again["messages"] == history
    assert again["messages"][2]["toolCallId"] and again["messages"][2]["arguments"] == {}
    turn_id = alice.events[1][1]["turnId"]
    assert alice.events[1][1] == {"turnId": turn_id, "sessionId": session_id}
    assert alice.events[-1][1]["turnId"] == turn_id


def read_sse(response: http.client.HTTPResponse) -> list[tuple[str, Any]]:
    events, name, data = [], None, []
    for raw in response:
        line = raw.decode("utf-8").rstrip("\n")
        if line.startswith("event: "):
            name = line[7:]
        elif line.startswith("data: "):
            data.append(line[6:])
        elif line == "" and name is not None:
            events.append((name, json.loads("\n".join(data))))
            name, data = None, []
    return events


def post(server: Server, body: bytes, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], Any]:
    """POST /api/chat; return the status, the headers, and the SSE events (200) or the JSON body."""
    connection = server.http()
    try:
        connection.request("POST", "/api/chat", body=body,
                           headers={"content-type": "application/json", **(headers or {})})
        response = connection.getresponse()
        got = dict((k.lower(), v) for k, v in response.getheaders())
        if response.status == 200:
            assert got["content-type"].startswith("text/event-stream")
            return response.status, got, read_sse(response)
        return response.status, got, json.loads(response.read())
    finally:
        connection.close()


def test_post_api_chat_with_an_image_streams_sse(server: Server, clients: list[Client]) -> None:
    body = json.dumps({"message": QUESTION, "image": {"data": PNG, "media_type": "image/png"}}).encode()
    status, headers, events = post(server, body, {"authorization": "Bearer bob-token-22"})
    assert status == 200
    session_id = headers["x-session-id"]
    assert names(events) == SCENARIO[1:] and events[-1][0] == "completion"
    first = events[: [n for n, _ in events].index("tool:message:start")]
    assert "".join(p["chunk"] for n, p in first if n == "message:chunk") == \
        "I see your picture. Let me check your cookbook."  # the scripted model saw the image part
    session = SessionReducer()
    session.receive("chat:send", {"message": QUESTION, "image": {"data": PNG, "media_type": "image/png"}})
    for name, payload in events:
        session.receive(name, payload)
    assert session.history()[-1]["content"] == ANSWER
    # The session is bob's: his socket sees it, alice's is refused.
    bob = connect(server, clients, "bob-token-22")
    assert len(bob.call("chat:init", {"sessionId": session_id})["messages"]) == 4
    alice = connect(server, clients)
    assert alice.call("chat:init", {"sessionId": session_id})["code"] == "forbidden"


BAD_SENDS = [
    ("not an object", "type", ""),
    ({"message": 5}, "type", "message"),
    ({}, "value", "message"),
    ({"message": "hi", "conversation_id": "../etc"}, "pattern", "sessionId"),
    ({"message": "hi", "image": {"data": base64.b64encode(b"%PDF-1.7 ...").decode(), "media_type": "application/pdf"}},
     "value", "image.media_type"),
    ({"message": "hi", "image": {"data": base64.b64encode(b"%PDF-1.7 not a png").decode(), "media_type": "image/png"}},
     "not_image", "image.data"),
    ({"message": "hi", "image": {"data": "A" * (7 * 1024 * 1024 + 512), "media_type": "image/png"}}, "too_large", "image.data"),
]


@pytest.mark.parametrize(("payload", "code", "path"), BAD_SENDS, ids=[f"{c}-{p}" for _, c, p in BAD_SENDS])
def test_bad_chat_send_gets_an_error_event(server: Server, clients: list[Client], payload: Any, code: str,
                                           path: str) -> None:
    client = connect(server, clients)
    reply = client.call("chat:send", payload)
    assert (reply["code"], reply["path"]) == (code, path), reply
    assert client.errors == [reply] and client.events == []
    assert "PDF" not in reply["error"] and "etc" not in reply["error"]  # no client content echoed


def test_bad_events_and_other_peoples_sessions(server: Server, clients: list[Client]) -> None:
    alice = connect(server, clients)
    session_id = alice.call("chat:init", {})["sessionId"]
    mallory = connect(server, clients, "mallory-token")
    assert mallory.call("chat:init", {"sessionId": session_id})["code"] == "forbidden"
    assert mallory.call("chat:send", {"message": "hi", "conversation_id": session_id})["code"] == "forbidden"
    assert mallory.call("chat:init", "nonsense")["code"] == "type"
    assert mallory.call("chat:init", {"status": "success", "messages": [], "artifacts": []})["code"] == "direction"
    mallory.sio.emit("message:chunk", {"id": "x", "chunk": "spoof"})
    mallory.sio.emit("no:such:event", [1, 2])
    deadline = time.monotonic() + TIMEOUT
    while len(mallory.errors) < 6 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert [e["code"] for e in mallory.errors] == ["forbidden", "forbidden", "type", "direction", "unknown", "unknown"]
    anonymous = connect(server, clients, None)  # no token: only new sessions
    assert anonymous.call("chat:init", {"sessionId": session_id})["code"] == "forbidden"
    with pytest.raises(socketio.exceptions.ConnectionError):
        Client(server, "bad token with spaces")
    # Nothing above touched alice's session, and the server still runs turns.
    assert alice.errors == [] and alice.events == []
    assert alice.call("chat:send", {"message": QUESTION, "conversation_id": session_id})["status"] == "completed"
    assert names(alice.events) == SCENARIO


@pytest.mark.parametrize(("body", "headers", "status", "code"), [
    (b"{not json", {}, 400, "json"),
    (b'{"message": ""}', {}, 400, "value"),
    (b'{"message": "hi"}', {"content-type": "text/plain"}, 415, "content_type"),
    (b'{"message": "hi"}', {"authorization": "Bearer x y"}, 401, "token"),
    (b" " * (9 * 1024 * 1024), {}, 413, "too_large"),
])
def test_bad_post_api_chat(server: Server, body: bytes, headers: dict[str, str], status: int, code: str) -> None:
    got, _, reply = post(server, body, headers)
    assert (got, reply["code"]) == (status, code)


def get(server: Server, path: str) -> tuple[int, bytes]:
    connection = server.http()
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def test_page_and_client_script(server: Server) -> None:
    status, body = get(server, "/")
    page = body.decode()
    assert status == 200 and '<script src="/socket.io.min.js">' in page and "chat:send" in page
    assert "http://" not in page and "https://" not in page  # nothing from a CDN
    status, script = get(server, "/socket.io.min.js")
    if CLIENT_JS.is_file():  # after `npm install` in examples/web_chat
        assert status == 200 and script == CLIENT_JS.read_bytes()
    else:
        assert status == 404 and b"npm install" in script
    assert get(server, "/nowhere")[0] == 404


@pytest.mark.e2e
def test_history_survives_a_restart(tmp_path: Path) -> None:
    store = tmp_path / "chat.db"
    first = Server(store)
    try:
        client = Client(first, "carol-token-3")
        session_id = client.call("chat:send", {"message": QUESTION})["sessionId"]
        client.close()
    finally:
        first.stop()
    second = Server(store)
    try:
        client = Client(second, "carol-token-3")
        reply = client.call("chat:init", {"sessionId": session_id})
        client.close()
        stranger = Client(second, None)
        refused = stranger.call("chat:init", {"sessionId": session_id})
        stranger.close()
    finally:
        second.stop()
    assert [(e["role"], e.get("kind"), e["content"]) for e in reply["messages"]] == [
        ("user", None, QUESTION), ("assistant", "chat", "Let me check your cookbook."),
        ("assistant", "tool", "Pancakes\nTomato soup\nOmelette"), ("assistant", "chat", ANSWER)]
    assert refused["code"] == "forbidden"


@pytest.mark.e2e
def test_an_old_conversation_left_with_an_unanswered_call_is_closed_on_load(tmp_path: Path) -> None:
    from agentmsg import ChatMessage, ToolCall
    from agentmsg.io.store import MessageStore

    store = tmp_path / "chat.db"
    with MessageStore(store) as seeded:  # rows without meta (an older store) and an unanswered tool call
        seeded.save_many("broken", [ChatMessage.user("Hi"),
                                    ChatMessage.assistant(tool_calls=[ToolCall("call_1", "list_recipes", {})])])
    server = Server(store)
    try:
        client = Client(server, "dave-token-4")
        init = client.call("chat:init", {"sessionId": "broken"})["messages"]
        ack = client.call("chat:send", {"message": QUESTION, "conversation_id": "broken"})
        client.close()
    finally:
        out = server.stop()
    assert [(e["id"], e["timestamp"]) for e in init] == [("stored_0", "1970-01-01T00:00:00Z")]  # the old fallback
    assert init[0]["completion"]["code"] == "interrupted"
    assert ack == {"sessionId": "broken", "status": "completed"}  # the next turn starts from a valid conversation
    assert "Traceback" not in out, out


class FakeOpenAI(http.server.BaseHTTPRequestHandler):
    """An OpenAI-compatible server on loopback (a vLLM stand-in) streaming Chat Completions chunks."""

    requests: list[tuple[str, str, dict[str, Any]]] = []

    def do_POST(self) -> None:  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        FakeOpenAI.requests.append((self.path, self.headers.get("authorization", ""), body))
        last = body["messages"][-1]
        if last["role"] == "tool":
            deltas = [{"content": piece} for piece in ("You have ", last["content"].replace("\n", ", "), ".")]
            finish = "stop"
        else:
            deltas = [{"role": "assistant", "content": "Looking."},
                      {"tool_calls": [{"index": 0, "id": "call_9", "type": "function",
                                       "function": {"name": "list_recipes", "arguments": ""}}]},
                      {"tool_calls": [{"index": 0, "function": {"arguments": "{}"}}]}]
            finish = "tool_calls"
        chunks = [{"object": "chat.completion.chunk", "model": body["model"],
                   "choices": [{"index": 0, "delta": delta, "finish_reason": None}]} for delta in deltas]
        chunks.append({"object": "chat.completion.chunk", "model": body["model"],
                       "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.end_headers()
        for chunk in chunks:
            self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
        self.wfile.write(b"data: [DONE]\n\n")

    def log_message(self, *args: Any) -> None:
        pass


@pytest.mark.e2e
def test_model_openai_over_http_to_a_compatible_server(tmp_path: Path) -> None:
    fake = http.server.ThreadingHTTPServer(("127.0.0.1", 0), FakeOpenAI)
    thread = threading.Thread(target=fake.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{fake.server_address[1]}/v1"
    try:
        server = Server(tmp_path / "chat.db", "--model", "openai", "--model-name", "qwen3",
                        env={"OPENAI_BASE_URL": base, "OPENAI_API_KEY": "sk-test"})
        try:
            client = Client(server, "erin-token-5")
            ack = client.call("chat:send", {"message": QUESTION})
            client.close()
        finally:
            server.stop()
    finally:
        fake.shutdown()
        fake.server_close()
        thread.join(TIMEOUT)
    assert ack["status"] == "completed"
    assert names(client.events) == SCENARIO
    assert reduce(client.events).history()[-1]["content"] == "You have Pancakes, Tomato soup, Omelette."
    (path, auth, first), (_, _, second) = FakeOpenAI.requests
    assert (path, auth, first["model"], first["stream"]) == ("/v1/chat/completions", "Bearer sk-test", "qwen3", True)
    assert first["tools"][0]["function"]["name"] == "list_recipes"
    assert second["messages"][-1] == {"role": "tool", "tool_call_id": "call_9", "content": "Pancakes\nTomato soup\nOmelette"}


# -- approvals, cancel and reasoning over Socket.IO ----------------------------------------------


def wait_for(client: Client, name: str, count: int = 1) -> list[Any]:
    """Wait (bounded) until ``client`` received ``count`` events called ``name``; return their payloads."""
    deadline = time.monotonic() + TIMEOUT
    while True:
        got = [payload for event, payload in client.events if event == name]
        if len(got) >= count:
            return got
        assert time.monotonic() < deadline, f"no {name} within {TIMEOUT} s: {names(client.events)}"
        time.sleep(0.02)


@pytest.mark.e2e
def test_approval_round_trip_and_refusals(tmp_path: Path) -> None:
    server = Server(tmp_path / "chat.db", "--ask", "list_recipes")
    try:
        alice = Client(server, "alice-token-1")
        mallory = Client(server, "mallory-token")
        session_id = alice.call("chat:init", {})["sessionId"]
        ack = alice.call("chat:send", {"message": QUESTION, "conversation_id": session_id})
        assert ack == {"sessionId": session_id, "status": "approval"}
        asked = SCENARIO[:7] + ["progress", "tool:approval:request"]  # (progress: "Running 0 tool call(s)")
        assert names(alice.events) == asked
        turn_id = alice.events[1][1]["turnId"]
        start = dict(alice.events)["tool:message:start"]
        request = dict(alice.events)["tool:approval:request"]
        assert request == {"id": start["id"], "turnId": turn_id, "toolName": "list_recipes", "arguments": {}}
        assert start["status"] == "pending" and start["toolCallId"].startswith("toolu_")
        assert "arguments" not in start and dict(alice.events)["tool:message:args"] == {"id": start["id"], "chunk": "{}"}

        # refusals: someone else's session, a bad payload, a call that does not wait, a busy session
        refused = [
            mallory.call("tool:approval:response", {"sessionId": session_id, "id": start["id"], "approved": True}),
            alice.call("tool:approval:response", {"sessionId": session_id, "id": start["id"], "approved": "yes"}),
            alice.call("tool:approval:response", {"sessionId": session_id, "id": "not-a-call", "approved": True}),
            alice.call("tool:approval:response", {"sessionId": "nosuchsession", "id": start["id"], "approved": True}),
            alice.call("chat:send", {"message": "And now?", "conversation_id": session_id}),
        ]
        assert [(r["code"], r["path"]) for r in refused] == [
            ("forbidden", "sessionId"), ("type", "approved"), ("unknown", "id"), ("protocol", "sessionId"),
            ("busy", "conversation_id")]
        assert "tool:approval:response or chat:cancel" in refused[-1]["error"]

        ack = alice.call("tool:approval:response", {"sessionId": session_id, "id": start["id"], "approved": True})
        assert ack == {"sessionId": session_id, "status": "completed"}
        assert names(alice.events) == asked + SCENARIO[7:]
        assert alice.events[-1][1]["success"] is True and alice.events[-1][1]["turnId"] == turn_id
        assert alice.events[-1][1]["result"]["text"] == ANSWER
        again = alice.call("tool:approval:response", {"sessionId": session_id, "id": start["id"], "approved": True})
        assert again["code"] == "protocol"  # the turn is over: nothing waits
        reduce(alice.events)  # the whole stream keeps the protocol's order

        # a denial, with a reason: the model is told, the tool message says so
        before = len(alice.events)
        assert alice.call("chat:send", {"message": QUESTION, "conversation_id": session_id})["status"] == "approval"
        (request,) = wait_for(alice, "tool:approval:request", 2)[1:]
        ack = alice.call("tool:approval:response",
                         {"sessionId": session_id, "id": request["id"], "approved": False, "reason": "not now"})
        assert ack == {"sessionId": session_id, "status": "completed"}
        second = alice.events[before:]
        (complete,) = [p for n, p in second if n == "tool:message:complete"]
        assert complete["status"] == "error" and complete["error"] == "The user denied this tool call. Reason: not now"
        init = alice.call("chat:init", {"sessionId": session_id})
        tools = [e for e in init["messages"] if e.get("kind") == "tool"]
        assert [t["status"] for t in tools] == ["completed", "error"] and tools[1]["error"] == complete["error"]
        assert mallory.errors == [refused[0]]
        alice.close()
        mallory.close()
    finally:
        out = server.stop()
    assert "Traceback" not in out, out


class ThinkingOpenAI(http.server.BaseHTTPRequestHandler):
    """A vLLM stand-in streaming Chat Completions chunks with ``reasoning_content``; ``gate`` holds the stream half way."""

    gate: threading.Event | None = None
    finished = threading.Event()

    def do_POST(self) -> None:  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        deltas: list[dict[str, Any]] = [{"role": "assistant", "content": ""},
                                        {"reasoning_content": "The user asks about "},
                                        {"reasoning_content": "their recipes."},
                                        {"content": "Looking "}]
        rest = [{"content": "at nothing."}]
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.end_headers()

        def send(delta: dict[str, Any], finish: str | None = None) -> None:
            chunk = {"object": "chat.completion.chunk", "model": body["model"],
                     "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
            self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
            self.wfile.flush()

        try:
            for delta in deltas:
                send(delta)
            if ThinkingOpenAI.gate is not None:
                ThinkingOpenAI.gate.wait(TIMEOUT)
            for delta in rest:
                send(delta)
            send({}, "stop")
            self.wfile.write(b"data: [DONE]\n\n")
        except OSError:  # the server stopped reading (a cancelled turn)
            pass
        finally:
            ThinkingOpenAI.finished.set()

    def log_message(self, *args: Any) -> None:
        pass


def openai_server(tmp_path: Path) -> tuple[http.server.ThreadingHTTPServer, threading.Thread, Server]:
    fake = http.server.ThreadingHTTPServer(("127.0.0.1", 0), ThinkingOpenAI)
    thread = threading.Thread(target=fake.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{fake.server_address[1]}/v1"
    try:
        server = Server(tmp_path / "chat.db", "--model", "openai", "--model-name", "qwen3",
                        env={"OPENAI_BASE_URL": base, "OPENAI_API_KEY": "sk-test"})
    except BaseException:
        fake.shutdown()
        fake.server_close()
        raise
    return fake, thread, server


@pytest.mark.e2e
def test_reasoning_events_from_a_streamed_reasoning_model(tmp_path: Path) -> None:
    ThinkingOpenAI.gate = None
    fake, thread, server = openai_server(tmp_path)
    try:
        client = Client(server, "frank-token-6")
        ack = client.call("chat:send", {"message": QUESTION})
        client.close()
    finally:
        out = server.stop()
        fake.shutdown()
        fake.server_close()
        thread.join(TIMEOUT)
    assert ack["status"] == "completed", ack
    assert names(client.events) == ["chat:send", "turn:start", "reasoning:start", "reasoning:chunk", "reasoning:chunk",
                                    "reasoning:end", "message:start", "message:chunk", "message:end", "completion"]
    chunks = [p["chunk"] for n, p in client.events if n == "reasoning:chunk"]
    assert chunks == ["The user asks about ", "their recipes."]
    reasoning_id = dict(client.events)["reasoning:start"]["id"]
    assert reasoning_id != dict(client.events)["message:start"]["id"]
    assert [e["kind"] for e in reduce(client.events).history()[1:]] == ["chat"]
    assert "Traceback" not in out, out


@pytest.mark.e2e
def test_chat_cancel_ends_a_running_turn_at_once(tmp_path: Path) -> None:
    ThinkingOpenAI.gate = threading.Event()
    ThinkingOpenAI.finished.clear()
    fake, thread, server = openai_server(tmp_path)
    try:
        client = Client(server, "grace-token-7")
        session_id = client.call("chat:init", {})["sessionId"]
        assert client.call("chat:cancel", {"sessionId": session_id})["code"] == "protocol"  # nothing runs yet
        acks: list[Any] = []
        client.sio.emit("chat:send", {"message": QUESTION, "conversation_id": session_id}, callback=acks.append)
        wait_for(client, "message:chunk")  # the model's stream is held open by the gate from here on
        turn_id = dict(client.events)["turn:start"]["turnId"]
        assert client.call("chat:cancel", {"sessionId": session_id, "turnId": "another-turn"})["code"] == "protocol"
        stranger = Client(server, "mallory-token")
        assert stranger.call("chat:cancel", {"sessionId": session_id})["code"] == "forbidden"
        stranger.close()
        ack = client.call("chat:cancel", {"sessionId": session_id, "turnId": turn_id})
        assert ack == {"sessionId": session_id, "turnId": turn_id, "status": "cancelled"}
        assert client.completed.wait(TIMEOUT)  # while the model's stream is still held open
        assert not ThinkingOpenAI.gate.is_set()
        completion = client.events[-1][1]
        assert completion == {"success": False, "error": "the turn was cancelled", "code": "cancelled",
                              "cancelled": True, "turnId": turn_id}
        deadline = time.monotonic() + TIMEOUT
        while not acks and time.monotonic() < deadline:
            time.sleep(0.02)
        assert acks == [{"sessionId": session_id, "status": "cancelled"}]
        ThinkingOpenAI.gate.set()
        assert ThinkingOpenAI.finished.wait(TIMEOUT)
        session = reduce(client.events)
        assert not session.turn_open and session.completion.cancelled
        # the history is valid and the session free: the next turn runs to its end
        ThinkingOpenAI.gate = None
        before = len(client.events)
        assert client.call("chat:send", {"message": "Again?", "conversation_id": session_id})["status"] == "completed"
        assert names(client.events[before:])[-1] == "completion"
        init = client.call("chat:init", {"sessionId": session_id})
        assert [(e["role"], e.get("kind"), e["content"]) for e in init["messages"]] == [
            ("user", None, QUESTION), ("assistant", "chat", "Looking "),
            ("user", None, "Again?"), ("assistant", "chat", "Looking at nothing.")]
        client.close()
    finally:
        ThinkingOpenAI.gate = None
        out = server.stop()
        fake.shutdown()
        fake.server_close()
        thread.join(TIMEOUT)
    assert "Traceback" not in out, out


@pytest.mark.e2e
def test_chat_cancel_of_a_turn_waiting_for_approval(tmp_path: Path) -> None:
    server = Server(tmp_path / "chat.db", "--ask", "list_recipes")
    try:
        client = Client(server, "heidi-token-8")
        ack = client.call("chat:send", {"message": QUESTION})
        session_id = ack["sessionId"]
        assert ack["status"] == "approval"
        ack = client.call("chat:cancel", {"sessionId": session_id})
        turn_id = dict(client.events)["turn:start"]["turnId"]
        assert ack == {"sessionId": session_id, "turnId": turn_id, "status": "cancelled"}
        assert names(client.events)[-2:] == ["tool:message:complete", "completion"]
        assert client.events[-1][1]["cancelled"] is True
        reduce(client.events)
        # the session is free again (the scripted model answers the merged tool result and question)
        assert client.call("chat:send", {"message": "Hello?", "conversation_id": session_id})["status"] == "completed"
        client.close()
    finally:
        out = server.stop()
    assert "Traceback" not in out, out


@pytest.mark.e2e
def test_history_after_a_restart_keeps_ids_arguments_and_errors(tmp_path: Path) -> None:
    store = tmp_path / "chat.db"
    first = Server(store, "--ask", "list_recipes")
    try:
        client = Client(first, "ivan-token-9")
        session_id = client.call("chat:send", {"message": QUESTION})["sessionId"]
        tool_id = dict(client.events)["tool:approval:request"]["id"]
        client.call("tool:approval:response", {"sessionId": session_id, "id": tool_id, "approved": False})
        client.close()
    finally:
        first.stop()
    second = Server(store)
    try:
        again = Client(second, "ivan-token-9")
        reply = again.call("chat:init", {"sessionId": session_id})
        again.close()
    finally:
        second.stop()
    from agentmsg.events import decode, encode

    assert reply["messages"] == reduce(client.events).history()  # entry for entry, as the live client saw it
    (tool,) = [e for e in reply["messages"] if e.get("kind") == "tool"]
    assert (tool["status"], tool["arguments"], tool["error"]) == ("error", {}, "The user denied this tool call.")
    assert tool["id"] == tool_id != tool["toolCallId"]
    payload = {k: v for k, v in reply.items() if k != "sessionId"}
    assert encode(decode("chat:init", payload, sender="server"))[1] == payload  # the snapshot round-trips
