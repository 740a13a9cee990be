"""The bar of success for examples/web_chat/server.py: one server process, many real clients, hostile ones too.

One server process for the module (the scripted model, a SQLite store), python-socketio clients
(a hundred at once), and raw Engine.IO frames
over the ``websockets`` package for what no Socket.IO client would send. The server's output
must hold no traceback at the end. Kill -9 mid-turn and two processes on PostgreSQL + Redis are
in tests/test_web_chat_restart.py and tests/test_web_chat_scale.py.
"""

from __future__ import annotations

import asyncio
import base64
import json
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from test_web_chat import ANSWER, PNG, QUESTION, SCENARIO, TIMEOUT, Client, Server, names, reduce

pytestmark = pytest.mark.e2e

DEEP = 100_000  # nesting of the deep JSON documents: far past any parser's recursion limit
RSS_GROWTH_MB = 16  # the bound on the growth of the server's resident memory over a second round of hostile clients


class Logged(Server):
    """The server process, its output read as it comes (``log``), so a test can check the lines its clients caused."""

    def __init__(self, store: Path, *args: str) -> None:
        self.log: list[str] = []
        self.reader: threading.Thread | None = None
        super().__init__(store, *args)
        output, self.process.stdout = self.process.stdout, None  # read here, not by Server.stop's communicate()
        assert output is not None
        self.reader = threading.Thread(target=lambda: (self.log.extend(output), output.close()), daemon=True)
        self.reader.start()

    def stop(self) -> str:
        out = super().stop()
        if self.reader is not None:
            self.reader.join(TIMEOUT)
        return out + "".join(self.log)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Logged]:
    running = Logged(tmp_path_factory.mktemp("harness") / "chat.db")
    try:
        yield running
    finally:
        out = running.stop()
    assert "Traceback" not in out, out  # nothing a client sent made a handler crash


class Peer(Client):
    """A python-socketio client (test_web_chat's, recording events in arrival order) with bounded waits."""

    def until(self, condition: Any, what: str) -> None:
        deadline = time.monotonic() + TIMEOUT
        while not condition():
            assert time.monotonic() < deadline, f"timed out waiting for {what}: {names(self.events)}"
            time.sleep(0.01)

    def completions(self) -> int:
        return sum(name == "completion" for name, _ in self.events)

    def __init__(self, server: Server, token: str) -> None:
        super().__init__(server, token)
        self.ws = self.sio.eio.ws  # python-engineio's client forgets it, open, when the server closes the connection

    def close(self) -> None:
        super().close()
        self.ws.shutdown()


def peers(server: Server, tokens: list[str]) -> list[Peer]:
    return [Peer(server, token) for token in tokens]  # one at a time: a hundred handshakes at once measure the machine


def close_all(made: list[Peer]) -> None:
    for peer in made:
        peer.close()


def rss_kb(server: Server) -> int:
    """The server process's resident memory (``VmRSS`` of /proc/<pid>/status), in KiB."""
    for line in Path(f"/proc/{server.process.pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS in /proc/<pid>/status")


# -- (a) fan-out --------------------------------------------------------------------------------


def test_fan_out_100_clients_in_one_room_get_every_event_in_order(server: Server) -> None:
    room = peers(server, ["fan-token-1"] * 100)
    try:
        session_id = room[0].call("chat:init", {})["sessionId"]
        for peer in room[1:]:
            assert peer.call("chat:init", {"sessionId": session_id})["messages"] == []
        ack = room[0].call("chat:send", {"message": QUESTION, "conversation_id": session_id})
        assert ack == {"sessionId": session_id, "status": "completed"}
        for peer in room:
            assert peer.completed.wait(TIMEOUT)
        sent = room[0].events
        assert names(sent) == SCENARIO
        assert reduce(sent).history()[-1]["content"] == ANSWER  # the stream keeps the protocol's order
        for peer in room[1:]:
            assert peer.events == sent  # every event, in order, none missing, none twice
        assert all(peer.errors == [] for peer in room)
    finally:
        close_all(room)


# -- (b) 20 sessions x 5 concurrent turns -------------------------------------------------------


def test_20_sessions_with_5_concurrent_turns_each_see_only_their_own(server: Server) -> None:
    sessions, turns = 20, 5

    def one_session(index: int) -> None:
        tabs = peers(server, [f"user-{index}-token"] * turns)  # five tabs of one user
        try:
            session_id = tabs[0].call("chat:init", {})["sessionId"]
            for tab in tabs[1:]:
                tab.call("chat:init", {"sessionId": session_id})

            def send(tab: int) -> None:  # every tab sends its question at once; a busy session is tried again
                deadline = time.monotonic() + TIMEOUT
                while True:
                    ack = tabs[tab].call("chat:send", {"message": f"session {index}, question {tab}",
                                                       "conversation_id": session_id})
                    if ack.get("status") == "completed":
                        return
                    assert (ack["code"], ack["path"]) == ("busy", "conversation_id"), ack
                    assert time.monotonic() < deadline, "the session stayed busy"
                    time.sleep(0.05)

            with ThreadPoolExecutor(turns) as pool:
                list(pool.map(send, range(turns)))
            for tab in tabs:
                tab.until(lambda t=tab: t.completions() == turns, "every turn")
            seen = tabs[0].events
            assert names(seen) == SCENARIO * turns
            asked = sorted(payload["message"] for name, payload in seen if name == "chat:send")
            assert asked == [f"session {index}, question {tab}" for tab in range(turns)]  # its own turns, each once
            assert {payload["sessionId"] for name, payload in seen if name == "turn:start"} == {session_id}
            assert {payload["conversation_id"] for name, payload in seen if name == "chat:send"} == {session_id}
            history = reduce(seen).history()
            for tab in tabs:
                assert tab.events == seen
                assert all(error["code"] == "busy" for error in tab.errors)
                assert tab.call("chat:init", {"sessionId": session_id})["messages"] == history  # entry for entry
        finally:
            close_all(tabs)

    with ThreadPoolExecutor(sessions) as pool:
        list(pool.map(one_session, range(sessions)))


# -- (c) hostile clients ------------------------------------------------------------------------


async def raw_frames(server: Server, frames: list[str | bytes]) -> list[str]:
    """Connect as a Socket.IO client over a bare WebSocket, send ``frames``; return what came back until the close."""
    import websockets

    url = f"ws://127.0.0.1:{server.port}/socket.io/?EIO=4&transport=websocket"
    async with websockets.connect(url, max_size=None) as ws:
        assert str(await asyncio.wait_for(ws.recv(), TIMEOUT)).startswith("0{")
        await ws.send('40{"token":"raw-token-1"}')
        assert str(await asyncio.wait_for(ws.recv(), TIMEOUT)).startswith("40{")
        for frame in frames:
            await ws.send(frame)
        got: list[str] = []
        try:
            while True:
                got.append(str(await asyncio.wait_for(ws.recv(), TIMEOUT)))
        except websockets.ConnectionClosed:
            return got


ENGINE = "an Engine.IO packet this server does not read"
SOCKET = "a Socket.IO packet this server does not read"
GARBAGE = {  # frames a Socket.IO client never sends: each closes its connection, with this log line
    "engine.io-type-9": ("9", ENGINE),
    "engine.io-empty": ("", ENGINE),
    "engine.io-binary": (b"\x00\x01\x02", ENGINE),
    "engine.io-base64": ("bAAAA", ENGINE),
    "socket.io-type-g": ("4garbage", f"{SOCKET} (not a Socket.IO packet)"),
    "socket.io-empty": ("4", f"{SOCKET} (empty)"),
    "socket.io-event-without-a-name": ('42{"message":"hi"}', f"{SOCKET} (an event without a name)"),
    "socket.io-event-name-not-text": ("42[5]", f"{SOCKET} (an event without a name)"),
    "socket.io-binary-event": ('451-["chat:send",{"_placeholder":true,"num":0}]', f"{SOCKET} (binary)"),
    "socket.io-invalid-json": ('42["chat:send",{"message":', f"{SOCKET} (not a Socket.IO packet)"),
    "socket.io-integer-of-200-digits": ('42["chat:send",' + "1" * 200 + "]", f"{SOCKET} (not a Socket.IO packet)"),
    "deep-arrays-in-an-event": ('42["chat:send",' + "[" * DEEP + "]" * DEEP + "]", f"{SOCKET} (nested too deeply)"),
    "deep-objects-in-an-event": ('42["chat:send",' + '{"a":' * DEEP + "1" + "}" * DEEP + "]",
                                 f"{SOCKET} (nested too deeply)"),
    "deep-arrays-in-an-ack": ("430" + "[" * DEEP + "]" * DEEP, f"{SOCKET} (nested too deeply)"),
    "deep-json-in-an-engine.io-message": ("4" + "[" * DEEP + "]" * DEEP, f"{SOCKET} (not a Socket.IO packet)"),
}


def logged(server: Logged, line: str) -> int:
    return sum(line in text for text in server.log)


def wait_logged(server: Logged, line: str, count: int) -> None:
    deadline = time.monotonic() + TIMEOUT
    while logged(server, line) < count:
        assert time.monotonic() < deadline, f"no log line {line!r} in {server.log[-5:]}"
        time.sleep(0.02)


@pytest.mark.parametrize(("frame", "line"), GARBAGE.values(), ids=GARBAGE.keys())
def test_garbage_packets_close_the_connection(server: Logged, frame: str | bytes, line: str) -> None:
    before = logged(server, line)
    got = asyncio.run(raw_frames(server, [frame]))
    assert got in ([], ["1"]), got  # closed (python-engineio may say so with a close packet first), nothing else
    wait_logged(server, line, before + 1)  # one line, no content, no traceback (checked at the end)


def test_garbage_polling_bodies_are_refused(server: Logged) -> None:
    import http.client

    refused = "refused a polling request with an Engine.IO packet this server does not read"
    before, closed = logged(server, refused), logged(server, f"{SOCKET} (not a Socket.IO packet)")
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=TIMEOUT)

    def request(method: str, body: bytes | None = None) -> tuple[int, bytes]:
        connection.request(method, f"/socket.io/?EIO=4&transport=polling&sid={sid}", body=body,
                           headers={"content-type": "text/plain;charset=UTF-8"})
        response = connection.getresponse()
        return response.status, response.read()

    try:
        connection.request("GET", "/socket.io/?EIO=4&transport=polling")
        sid = json.loads(connection.getresponse().read()[1:])["sid"]
        bodies = (b"9", b"4x\x1e", b"\xff\xfe", b"d=4x", b"bAAAA")
        for body in bodies:
            status, reply = request("POST", body)
            assert (status, json.loads(reply)["code"], json.loads(reply)["path"]) == (400, "packet", "body"), body
        assert request("POST", b"40") == (200, b"OK")  # the session still works: a Socket.IO connect
        assert request("GET")[1].startswith(b"40{")
        assert request("POST", b"4" + b"[" * DEEP + b"]" * DEEP) == (200, b"OK")  # read, then closed:
        status, reply = request("GET")
        assert (status, reply) == (200, b"1") or (status, reply[:17]) == (400, b'"Invalid session '), reply
    finally:
        connection.close()
    wait_logged(server, refused, before + len(bodies))
    wait_logged(server, f"{SOCKET} (not a Socket.IO packet)", closed + 1)


def hostile_round(server: Server, session_id: str) -> None:
    """Every kind of hostile client once: each is refused with our error, or its connection closed."""
    for frame, _ in GARBAGE.values():
        assert asyncio.run(raw_frames(server, [frame])) in ([], ["1"])
    mallory = Peer(server, "mallory-token")
    try:
        refusals = [  # wrong types
            mallory.call("chat:send", 5),
            mallory.call("chat:send", {"message": ["not", "text"]}),
            mallory.call("chat:init", "nonsense"),
            mallory.call("chat:cancel", {"sessionId": 7}),
            mallory.call("tool:approval:response", {"sessionId": "s", "id": "x", "approved": "yes"}),
            # huge images: over the limit, and not the image type it claims
            mallory.call("chat:send", {"message": "hi", "image": {"data": "A" * (7 * 1024 * 1024 + 512),
                                                                  "media_type": "image/png"}}),
            mallory.call("chat:send", {"message": "hi", "image": {
                "data": base64.b64encode(b"GIF89a" + b"\x00" * 64).decode(), "media_type": "image/png"}}),
            # someone else's session
            mallory.call("chat:init", {"sessionId": session_id}),
            mallory.call("chat:send", {"message": "hi", "conversation_id": session_id}),
            mallory.call("chat:cancel", {"sessionId": session_id}),
            mallory.call("tool:approval:response", {"sessionId": session_id, "id": "x", "approved": True}),
        ]
        assert [(r["code"], r["path"]) for r in refusals] == [
            ("type", ""), ("type", "message"), ("type", ""), ("type", "sessionId"), ("type", "approved"),
            ("too_large", "image.data"), ("not_image", "image.data"),
            ("forbidden", "sessionId"), ("forbidden", "sessionId"), ("forbidden", "sessionId"),
            ("forbidden", "sessionId")]
        mallory.until(lambda: len(mallory.errors) == len(refusals), "the chat:error events")
        assert mallory.errors == refusals and mallory.events == []  # each one, to the caller only

        # a flood of chat:send on its own session: one turn runs, every other one is refused as busy
        own = mallory.call("chat:init", {})["sessionId"]
        acks: list[Any] = []
        for _ in range(200):
            mallory.sio.emit("chat:send", {"message": QUESTION, "conversation_id": own}, callback=acks.append)
        mallory.until(lambda: len(acks) == 200, "an answer to every chat:send")
        assert sorted(a.get("status", a.get("code")) for a in acks) == ["busy"] * 199 + ["completed"]
        assert mallory.completions() == 1

        # a message over the server's bound (8 MiB) closes the connection
        mallory.sio.emit("chat:send", {"message": "x" * (9 * 1024 * 1024)})
        mallory.until(lambda: not mallory.sio.connected, "the server to close the connection")
        assert mallory.completions() == 1
    finally:
        mallory.close()


def test_hostile_clients_are_refused_and_the_server_stays_healthy(server: Server) -> None:
    alice = Peer(server, "alice-token-1")
    try:
        session_id = alice.call("chat:init", {})["sessionId"]
        assert alice.call("chat:send", {"message": QUESTION, "conversation_id": session_id})["status"] == "completed"
    finally:
        alice.close()
    seen = alice.events
    hostile_round(server, session_id)  # the first round: imports, buffers and caches grow once
    before = rss_kb(server)
    hostile_round(server, session_id)
    after = rss_kb(server)
    assert after - before < RSS_GROWTH_MB * 1024, (before, after)

    alice = Peer(server, "alice-token-1")
    try:
        assert alice.call("chat:init", {"sessionId": session_id})["messages"] == reduce(seen).history()
        ack = alice.call("chat:send", {"message": QUESTION, "conversation_id": session_id})
        assert ack == {"sessionId": session_id, "status": "completed"}  # the server is healthy
        assert names(alice.events) == SCENARIO and alice.errors == []
        image = {"data": PNG, "media_type": "image/png"}
        ack = alice.call("chat:send", {"message": QUESTION, "conversation_id": session_id, "image": image})
        assert ack["status"] == "completed"
    finally:
        alice.close()
    assert server.process.poll() is None


def test_new_sessions_cannot_run_more_turns_at_once_than_the_server_allows(tmp_path: Path) -> None:
    # each chat:send without conversation_id opens a session of its own: --max-turns bounds the turns they run
    server = Logged(tmp_path / "chat.db", "--ask", "list_recipes", "--max-turns", "2")
    try:
        mallory = Peer(server, "mallory-token-9")
        waiting = [mallory.call("chat:send", {"message": QUESTION}) for _ in range(2)]
        assert [ack["status"] for ack in waiting] == ["approval", "approval"]  # two turns kept waiting
        refused = mallory.call("chat:send", {"message": QUESTION})
        assert refused["code"] == "overloaded" and refused["path"] == "conversation_id"
        http = server.http()  # the HTTP endpoint counts the same turns
        http.request("POST", "/api/chat", json.dumps({"message": QUESTION}),
                     {"Content-Type": "application/json", "Authorization": "Bearer mallory-token-9"})
        answer = http.getresponse()
        assert answer.status == 503 and json.loads(answer.read())["code"] == "overloaded"
        http.close()
        cancelled = mallory.call("chat:cancel", {"sessionId": waiting[0]["sessionId"]})
        assert cancelled["status"] == "cancelled"
        assert mallory.call("chat:send", {"message": QUESTION})["status"] == "approval"  # a place is free again
        mallory.close()
    finally:
        out = server.stop()
    assert "Traceback" not in out, out
