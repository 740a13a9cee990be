"""Streamable HTTP at the edges: a session the server ended comes back, and a slow peer cannot outlast a call.

The servers are the official SDK's (tests/mcp_server.py over HTTP, in both response modes: server-sent
events and JSON bodies), restarted or left idle mid-run, and a raw-socket peer that sends its answer
one byte at a time. Operations that could hang run on a helper thread joined with a generous limit:
the limit only tells a hang from an answer, it is no speed requirement. The tests that restart an
SDK server are e2e (tests/test_mcp_tools.py checks the 404 path against a stdlib stand-in in the
quick tier).
"""

import json
import socket
import threading
import time

import pytest

from agentmsg import ChatMessage, ConversationHistory
from agentmsg.agent import AgentTurn
from agentmsg.io.execution import ApprovalPolicy
from agentmsg.io.mcp import HttpTransport, McpClient, McpError
from agentmsg.providers import openai

from mcp_http import HttpServer
from test_mcp_hostile import HANG, finishes

MODES = {"sse": (), "json": ("--json",)}


@pytest.fixture(params=list(MODES))
def sdk_server(request):
    server = HttpServer(*MODES[request.param])
    server.start()
    try:
        yield server
    finally:
        server.stop()


# --- a session the server ended ----------------------------------------------------------------


@pytest.mark.e2e  # restarts an SDK server
def test_a_session_the_server_forgot_by_restarting_is_started_again(sdk_server):
    changed = threading.Event()
    with McpClient(sdk_server.url, name="kitchen", timeout=30, on_tools_changed=changed.set) as client:
        assert client.read_resource("counter://reads")[0]["text"] == "read 1 times"
        client.list_tools()
        client.list_resources()
        client.subscribe("file:///project/README.md")
        first = client.transport.session_id
        sdk_server.restart()  # every session is gone: the old id answers 404
        # the request that met the 404 is sent once more in a new session, and runs once
        assert client.read_resource("counter://reads")[0]["text"] == "read 1 times"
        assert client.transport.session_id not in (None, first)
        assert client.tools_changed and client.resources_changed  # a new session may list others
        # the new session is subscribed again, and the resource counts as changed (an update may be lost)
        assert json.loads(client.call_tool("server_state").text)["subscriptions"] == ["file:///project/README.md"]
        assert client.resource_version("file:///project/README.md") == 1
        assert "list_recipes" in [tool.name for tool in client.list_tools()]
        assert client.call_tool("db_query", {"sql": "select 1"}).text == "1 row for select 1"
        # the new session's messages outside a request reach the client (over the GET stream in JSON mode)
        assert client.call_tool("add_tool", {"name": "fresh"}).text == "added fresh"
        assert changed.wait(HANG) and client.tools_changed
        assert client.call_tool("fresh").text == "added tool works"


@pytest.mark.e2e  # restarts an SDK server
def test_requests_that_meet_the_404_together_start_one_new_session(sdk_server):
    with McpClient(sdk_server.url, name="kitchen", timeout=30) as client:
        client.list_tools()
        sdk_server.restart()
        results = []

        def call(i):
            results.append(client.call_tool("db.query", {"sql": f"q{i}"}).text)

        threads = [threading.Thread(target=call, args=(i,)) for i in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(HANG)
        assert sorted(results) == [f"1 row for q{i}" for i in range(4)]
        assert client._session == 1  # one new session served all four


@pytest.mark.e2e  # restarts an SDK server
def test_a_session_the_server_let_expire_is_started_again(sdk_server):
    # a session with no request and no GET stream for a second ends; its id then answers 404
    sdk_server.options = (*sdk_server.options, "--idle", "1")
    sdk_server.restart()
    transport = HttpTransport(sdk_server.url, listen=False)
    with McpClient(transport, name="kitchen", timeout=30) as client:
        assert client.call_tool("list_recipes").text.startswith("Pancakes")
        first = transport.session_id
        for idle in (1.5, 3, 6, 12, 24):  # each call keeps the session alive: wait longer each time
            time.sleep(idle)
            assert client.call_tool("list_recipes").text.startswith("Pancakes")
            if transport.session_id != first:
                break
        assert transport.session_id not in (None, first) and client._session == 1


@pytest.mark.e2e  # restarts an SDK server
def test_a_turn_goes_on_when_the_server_restarts_between_steps(sdk_server):
    from test_agent import PARAMS, answer, tool_results

    def model(body):
        if body["messages"][-1]["role"] == "user":
            sdk_server.restart()  # between the model's answer and the tool call
            return answer(openai, None, [("c1", "list_recipes", {})])
        return answer(openai, tool_results(openai, body)["c1"])

    with McpClient(sdk_server.url, name="kitchen", timeout=30) as client:
        history = ConversationHistory([ChatMessage.system("s")])
        turn = AgentTurn(openai, history, "Recipes?", mcp=[client], policy=ApprovalPolicy(default="auto"),
                         params=PARAMS[openai])
        outcome = turn.run(model)
    assert outcome.status == "completed" and outcome.message.text == "Pancakes\nTomato soup\nOmelette"


# --- a peer that answers one byte at a time ----------------------------------------------------


class Dribbler:
    """A raw-socket HTTP peer: answers initialize, then sends the answer to any other request one byte per 20 ms.

    ``part`` says what dribbles: the status line and ``headers``, a JSON ``body``, or an ``event``
    of a server-sent stream.
    """

    def __init__(self, part):
        self.part = part
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}/mcp"
        self.stop = threading.Event()
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self):
        while not self.stop.is_set():
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self.answer, args=(conn,), daemon=True).start()

    def answer(self, conn):
        with conn:
            reader = conn.makefile("rb")
            method = reader.readline().split(b" ")[0]
            length = 0
            while (line := reader.readline()) not in (b"\r\n", b""):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            if method != b"POST":
                conn.sendall(b"HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n")
                return
            message = json.loads(reader.read(length))
            if message.get("method") == "initialize":
                result = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": {"name": "slow"}}
                body = json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}).encode()
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nMcp-Session-Id: s-1\r\n"
                             b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
                return
            if "id" not in message:
                conn.sendall(b"HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n")
                return
            if self.part == "headers":
                fast, slow = b"", b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Slow: " + b"a" * 100_000
            elif self.part == "body":
                fast, slow = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n", b" " * 100_000
            else:
                fast, slow = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n", b"data: " + b"x" * 100_000
            try:
                conn.sendall(fast)
                for byte in slow:
                    if self.stop.is_set():
                        return
                    conn.sendall(bytes([byte]))
                    time.sleep(0.02)  # a byte every 20 ms: each read gets one well within the timeout
            except OSError:  # the client hung up: what the test expects
                return

    def close(self):
        self.stop.set()
        self.listener.close()


@pytest.mark.parametrize("part", ["headers", "body", "event"])
def test_slow_headers_or_body_cannot_hold_call_tool_past_its_timeout(part):
    peer = Dribbler(part)
    try:
        with McpClient(HttpTransport(peer.url, listen=False), name="slow", timeout=30) as client:
            box = finishes(lambda: client.call_tool("anything", timeout=0.25))
        assert "value" not in box
        error = box["error"]
        assert isinstance(error, McpError) and error.code == "timeout"
    finally:
        peer.close()
