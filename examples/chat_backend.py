"""A chat turn in-process: socket events out, the session history reduced, chat messages stored.

A web client asks about the weather; the (scripted) model answers with a tool call; the backend
streams the turn to the session's room as socket events, every client reduces them into the same
history, a late client joins with ``chat:init`` and receives that history, and the chat messages
of the turn (user, assistant with its tool call, tool result, final answer) go to a SQLite store.

This is the protocol with nothing but the standard library, in one process, and it shows what
the reference backend's scripted scenario does not: an artifact bound to a tool message and
named by the completion's ``finalArtifactId``. The real backend, with Socket.IO, Server-Sent
Events, a page, the agent loop and an MCP server, is ``examples/web_chat/server.py``
(docs/web-chat.md).

Run: python examples/chat_backend.py
"""

import itertools
import json
import os
import sys
import tempfile
from typing import Any

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from agentmsg import ChatMessage, ToolCall, ToolResult  # noqa: E402
from agentmsg import events as ev  # noqa: E402
from agentmsg.io.store import MessageStore  # noqa: E402


def clock() -> Any:
    """Return a clock of deterministic timestamps, one second apart."""
    ticks = itertools.count()
    return lambda: f"2024-05-01T12:00:{next(ticks):02d}.000Z"


class Client:
    """A web client: it receives wire pairs as JSON text and reduces them."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.session = ev.SessionReducer(clock=clock())

    def receive(self, text: str) -> None:
        name, payload = json.loads(text)
        self.session.receive(name, payload, sender="server")


class Backend:
    """The server side: rooms of clients, the session's reducer, the message store."""

    def __init__(self, store: MessageStore) -> None:
        self.store = store
        self.rooms: dict[str, list[Client]] = {}
        self.sessions: dict[str, ev.SessionReducer] = {}
        self.tick = clock()

    def emit(self, room: str, event: ev.Event) -> None:
        """Apply an event to the session, then send it to every client in the room."""
        session_id = room.removeprefix("session_")
        self.sessions[session_id].apply(event)
        name, payload = ev.encode(event)
        text = json.dumps([name, payload], ensure_ascii=False)
        print(f"  -> {room:16} {name:22} {_short(payload)}")
        for client in self.rooms.get(room, []):
            client.receive(text)

    def on_chat_init(self, client: Client, name: str, payload: Any) -> str:
        """Join a session's room and return the chat:init reply (as JSON text)."""
        request = ev.decode(name, payload, sender="client")
        room = ev.room_for(request)
        assert isinstance(request, ev.ChatInitRequest) and room is not None
        self.rooms.setdefault(room, []).append(client)
        session = self.sessions.setdefault(room.removeprefix("session_"), ev.SessionReducer(clock=self.tick))
        return json.dumps(ev.encode(session.to_init()))

    def on_chat_send(self, client: Client, name: str, payload: Any) -> None:
        """Run one turn for a chat:send from ``client``."""
        request = ev.decode(name, payload, sender="client")
        assert isinstance(request, ev.ChatRequest) and request.conversation_id is not None
        room = ev.room_for(request)
        assert room is not None
        if client not in self.rooms.setdefault(room, []):
            self.rooms[room].append(client)
        self.sessions.setdefault(request.conversation_id, ev.SessionReducer(clock=self.tick))
        user = request.to_message()
        self.emit(room, request)  # every client of the room shows the user's message

        # The model asks for a tool (scripted here; a provider codec would give the ToolCall).
        call = ToolCall("call_weather_1", "get_weather", {"city": "Paris", "unit": "celsius"})
        thinking = ChatMessage.assistant("Let me check the weather.", [call])
        self.emit(room, ev.MessageStart(id="msg_1"))
        for chunk in ("Let me ", "check the ", "weather."):
            self.emit(room, ev.MessageChunk(id="msg_1", chunk=chunk))

        # The tool runs, with its visible progress and an artifact for the canvas.
        self.emit(room, ev.ToolMessageStart(
            id=call.id, tool_name=call.name, title="Checking the weather in Paris",
            progress_text="Calling the weather service", timestamp=self.tick()))
        self.emit(room, ev.Progress(status="running", progress=50, message="Fetching the forecast"))
        forecast = {"city": "Paris", "temperature": 18, "sky": "sunny", "hourly": [17, 18, 18, 16]}
        self.emit(room, ev.ToolMessageUpdate(
            id=call.id, patch={"progressText": "Forecast received", "content": "18 C, sunny"}))
        self.emit(room, ev.ToolArtifact(
            message_id=call.id, show_in_canvas=True,
            artifact={"id": "art_forecast", "type": "weather-card", "title": "Paris today", "data": forecast}))
        self.emit(room, ev.ToolMessageComplete(id=call.id, status="completed", timestamp=self.tick()))
        result = ToolResult.success(call.id, json.dumps(forecast)).to_message()

        # The model answers with the tool's result; the turn completes.
        answer = ChatMessage.assistant("It is 18 C and sunny in Paris.")
        self.emit(room, ev.MessageStart(id="msg_2"))
        for chunk in ("It is 18 C ", "and sunny ", "in Paris."):
            self.emit(room, ev.MessageChunk(id="msg_2", chunk=chunk))
        self.emit(room, ev.Progress(status="completed", progress=100, message="Done"))
        self.emit(room, ev.Completion.ok({"answer": answer.text}, final_artifact_id="art_forecast"))

        # The chat messages a model needs next time (no system prompt: that is configuration).
        self.store.save_many(request.conversation_id, [user, thinking, result, answer])


def _unstamped(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in entry.items() if entry.get("kind") == "tool" or k != "timestamp"} for entry in history]


def _short(payload: Any) -> str:
    text = json.dumps(payload, ensure_ascii=False)
    return text if len(text) <= 70 else text[:67] + "..."


def main() -> int:
    """Run the simulated turn and print what happened."""
    with tempfile.TemporaryDirectory() as tmp, MessageStore(os.path.join(tmp, "chat.db")) as store:
        backend = Backend(store)
        alice = Client("alice")
        print("alice joins a new session 'demo-1' (chat:init):")
        reply = json.loads(backend.on_chat_init(alice, "chat:init", {"sessionId": "demo-1"}))
        print(f"  <- chat:init {reply[1]}")
        alice.session.receive(*reply, sender="server")

        print("alice asks (chat:send), the backend streams the turn to room session_demo-1:")
        backend.on_chat_send(alice, "chat:send", {"message": "What's the weather in Paris?", "conversation_id": "demo-1"})

        server = backend.sessions["demo-1"]
        # Alice's copy matches the server's, except the times of user and chat messages: their
        # events carry no timestamp, so each side stamps them when they arrive.
        assert _unstamped(alice.session.history()) == _unstamped(server.history())

        print("bob joins later (chat:init) and receives the stored history:")
        bob = Client("bob")
        bob.session.receive(*json.loads(backend.on_chat_init(bob, "chat:init", {"sessionId": "demo-1"})), sender="server")
        assert bob.session.history() == server.history() and bob.session.artifacts == server.artifacts
        for entry in bob.session.history():
            shown = {k: entry[k] for k in ("role", "kind", "status", "content") if k in entry}
            print(f"  {json.dumps(shown, ensure_ascii=False)}")
        print(f"  artifacts: {[a['id'] for a in bob.session.artifacts]}, bound to "
              f"{bob.session.history()[2]['id']}")

        print("the store keeps the turn's chat messages:")
        for message in store.load("demo-1"):
            print(f"  {message!r}")
        assert store.count("demo-1") == 4
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
