"""examples/web_chat/server.py's HTTP layer against hostile bodies and slow clients, on a real server process.

Every endpoint answers a body nested 100,000 deep with a JSON error of the backend's family
(never HTTP 500), and a client that sends its request's headers or body a byte at a time is
answered 408 and hung up on by the server's deadlines (here 2 s, with ``--head-timeout`` and
``--body-timeout``), while the server goes on answering everyone else.
"""

from __future__ import annotations

import http.client
import json
import select
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import socketio
from test_web_chat import TIMEOUT, Server

DEADLINE = 2  # seconds: the server's --head-timeout and --body-timeout here
DRIP = 0.25  # seconds between two bytes of a slow client: its request would take minutes to arrive
pytestmark = pytest.mark.e2e  # a server process of its own, and clients that wait out its deadlines

DEPTH = 100_000
DEEP = {"array": b"[" * DEPTH + b"]" * DEPTH, "object": b'{"a":' * DEPTH + b"1" + b"}" * DEPTH}
QUESTION = "What recipes do I have?"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = Server(tmp_path_factory.mktemp("web_chat_http") / "chat.db",
                     "--head-timeout", str(DEADLINE), "--body-timeout", str(DEADLINE))
    try:
        yield running
    finally:
        out = running.stop()
    assert "Traceback" not in out, out


def post(server: Server, path: str, body: bytes) -> tuple[int, str, bytes]:
    connection = server.http()
    try:
        connection.request("POST", path, body=body, headers={"content-type": "application/json"})
        response = connection.getresponse()
        return response.status, response.getheader("content-type", ""), response.read()
    finally:
        connection.close()


def sse_data(raw: bytes) -> list[Any]:
    return [line[6:] if line == "data: [DONE]" else json.loads(line[6:])
            for line in raw.decode().split("\n") if line.startswith("data: ")]


def healthy(server: Server) -> None:
    """The server still runs turns: a good POST /api/chat is answered in full."""
    status, _, raw = post(server, "/api/chat", json.dumps({"message": QUESTION}).encode())
    assert status == 200 and b"event: completion" in raw and b'"success": true' in raw


# -- deeply nested JSON --------------------------------------------------------------------------


@pytest.mark.parametrize("shape", ["array", "object"])
def test_deeply_nested_json_on_api_chat_is_a_json_error(server: Server, shape: str) -> None:
    for body in (DEEP[shape], b'{"message": ' + DEEP[shape] + b"}"):
        status, content_type, raw = post(server, "/api/chat", body)
        assert (status, content_type) == (400, "application/json")
        assert json.loads(raw) == {"code": "depth", "path": "body", "error": "body: nested too deeply"}
    healthy(server)


@pytest.mark.parametrize("shape", ["array", "object"])
def test_deeply_nested_json_on_api_agui_is_a_run_error(server: Server, shape: str) -> None:
    status, content_type, raw = post(server, "/api/agui", DEEP[shape])
    assert status == 200 and content_type.startswith("text/event-stream")
    assert sse_data(raw) == [{"type": "RUN_ERROR", "message": "body: nested too deeply", "code": "depth"}]
    healthy(server)


@pytest.mark.parametrize("shape", ["array", "object"])
def test_deeply_nested_json_on_api_aisdk_is_an_error_chunk(server: Server, shape: str) -> None:
    status, content_type, raw = post(server, "/api/aisdk", DEEP[shape])
    assert status == 200 and content_type.startswith("text/event-stream")
    assert sse_data(raw) == [{"type": "error", "errorText": "body: nested too deeply (code depth)"}, "[DONE]"]
    healthy(server)


@pytest.mark.parametrize(("path", "status", "code"), [
    ("/", 405, "method"), ("/socket.io.min.js", 405, "method"), ("/nowhere", 404, "unknown"),
])
def test_deeply_nested_json_on_the_other_endpoints_is_a_json_error(server: Server, path: str, status: int,
                                                                    code: str) -> None:
    for body in DEEP.values():
        got, content_type, raw = post(server, path, body)
        assert (got, content_type, json.loads(raw)["code"]) == (status, "application/json", code)


def test_json_nested_just_within_the_parser_is_refused_by_the_checks(server: Server) -> None:
    """A body the parser takes (nested 500 deep in a field) is refused by each endpoint's checks, not with a 500."""
    nested = "[" * 500 + "]" * 500
    status, _, raw = post(server, "/api/chat", f'{{"message": {nested}}}'.encode())
    assert status == 400 and json.loads(raw)["code"] == "type"
    run = {"threadId": "nested", "runId": "r1", "messages": [{"id": "u1", "role": "user", "content": QUESTION}]}
    body = json.dumps(run)[:-1] + f', "state": {nested}, "forwardedProps": {{"a": {nested}}}}}'
    status, _, raw = post(server, "/api/agui", body.encode())
    assert status == 200 and sse_data(raw)[-1]["type"] in ("RUN_FINISHED", "RUN_ERROR")
    chat = {"id": "nested", "trigger": "submit-message",
            "messages": [{"id": "u1", "role": "user", "parts": [{"type": "text", "text": QUESTION}]}]}
    body = json.dumps(chat)[:-1] + f', "metadata": {nested}}}'
    status, _, raw = post(server, "/api/aisdk", body.encode())
    assert status == 200 and sse_data(raw)[-1] == "[DONE]"


# -- slow clients ----------------------------------------------------------------------------------


def drip(server: Server, opening: bytes, slow: bytes) -> tuple[int, bytes]:
    """Send ``opening`` at once and ``slow`` a byte every DRIP seconds until the server answers or hangs up.

    Return how many bytes of ``slow`` were sent, and everything the server sent before it closed.
    """
    with socket.create_connection(("127.0.0.1", server.port), timeout=TIMEOUT) as sock:
        sock.sendall(opening)
        sent = 0
        while sent < len(slow):
            readable, _, _ = select.select([sock], [], [], DRIP)
            if readable:
                break
            try:
                sock.sendall(slow[sent:sent + 1])
            except OSError:  # the server hung up between two checks
                break
            sent += 1
        got = b""
        try:
            while chunk := sock.recv(65536):  # bounded by the socket's TIMEOUT
                got += chunk
        except ConnectionResetError:
            pass
    return sent, got


def timed_out(got: bytes, path: str) -> None:
    """``got`` is one 408 answer with the backend's JSON error at ``path``, and the connection closed after it."""
    head, _, body = got.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    assert lines[0] == "HTTP/1.1 408 Request Timeout", got[:200]
    assert "content-type: application/json" in lines and "connection: close" in lines
    assert json.loads(body) == {"code": "timeout", "path": path, "error": f"{path}: not received within {DEADLINE} s"}


def request_head(path: str, length: int | None = None, method: str = "POST") -> bytes:
    extra = f"content-type: application/json\r\ncontent-length: {length}\r\n" if length is not None else ""
    return f"{method} {path} HTTP/1.1\r\nhost: 127.0.0.1\r\n{extra}\r\n".encode()


def test_slowloris_headers_are_cut(server: Server) -> None:
    slow = request_head("/api/chat", 20) + b"x" * 400  # headers padded: ~2 minutes at a byte per DRIP
    sent, got = drip(server, b"", slow)
    assert sent < len(request_head("/api/chat", 20))  # cut while the headers were still coming
    timed_out(got, "headers")
    healthy(server)


def test_a_connection_that_never_sends_is_cut(server: Server) -> None:
    sent, got = drip(server, b"", b"")
    assert sent == 0
    timed_out(got, "headers")


def test_slowloris_headers_after_a_first_request_are_cut(server: Server) -> None:
    """On a kept-alive connection the next request's headers have their own deadline."""
    first = request_head("/nowhere", method="GET")
    sent, got = drip(server, first, request_head("/api/chat", 20) + b"x" * 400)
    assert got.startswith(b"HTTP/1.1 404 ") and sent < len(request_head("/api/chat", 20))
    timed_out(got[got.index(b"HTTP/1.1 408"):], "headers")


@pytest.mark.parametrize("path", ["/api/chat", "/api/agui", "/api/aisdk"])
def test_slowloris_body_is_cut(server: Server, path: str) -> None:
    body = json.dumps({"message": QUESTION, "padding": "x" * 500}).encode()
    sent, got = drip(server, request_head(path, len(body)), body)
    assert sent < len(body)
    timed_out(got, "body")
    healthy(server)


def test_slowloris_body_on_socketio_polling_is_cut(server: Server) -> None:
    connection = server.http()
    try:
        connection.request("GET", "/socket.io/?EIO=4&transport=polling")
        handshake = connection.getresponse().read()
    finally:
        connection.close()
    sid = json.loads(handshake[1:])["sid"]
    body = b'40{"token": "' + b"a" * 500 + b'"}'
    opening = (f"POST /socket.io/?EIO=4&transport=polling&sid={sid} HTTP/1.1\r\nhost: 127.0.0.1\r\n"
               f"content-type: text/plain;charset=UTF-8\r\ncontent-length: {len(body)}\r\n\r\n").encode()
    sent, got = drip(server, opening, body)
    assert sent < len(body)
    timed_out(got, "body")


@pytest.mark.parametrize("transports", [["websocket"], ["polling"]])
def test_socketio_connections_outlive_the_deadlines(server: Server, transports: list[str]) -> None:
    """The deadlines bound a request's arrival: a WebSocket (no HTTP request after its upgrade) and
    long-polling connections held open past both deadlines go on carrying turns."""
    client = socketio.Client(reconnection=False)
    completed = threading.Event()
    client.on("completion", lambda payload: completed.set())
    client.connect(server.url, auth={"token": "patient-token-1"}, transports=transports, wait_timeout=TIMEOUT)
    try:
        assert client.transport() == transports[0]
        time.sleep(3 * DEADLINE)  # idle for longer than a request's headers and body may take
        assert client.connected
        ack = client.call("chat:send", {"message": QUESTION}, timeout=TIMEOUT)
        assert ack["status"] == "completed" and completed.wait(TIMEOUT)
    finally:
        client.disconnect()


def test_the_deadlines_take_only_positive_seconds(tmp_path: Path) -> None:
    import subprocess
    import sys

    from test_web_chat import SERVER

    done = subprocess.run([sys.executable, str(SERVER), "--store", ":memory:", "--head-timeout", "0"],
                          capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode == 2 and "--head-timeout and --body-timeout take a number of seconds over 0" in done.stderr
    assert "Traceback" not in done.stderr
