"""The reference chat backend: Socket.IO, POST /api/chat (SSE) and a page, on agentmsg's agent loop.

    pip install -e ".[web]"
    (cd examples/web_chat && npm install)     # copies socket.io-client beside the page
    python examples/web_chat/server.py --port 8000

Endpoints:
- ``GET /``: the chat page (static HTML, no build step); ``GET /socket.io.min.js``: the
  socket.io browser client from the npm package ``socket.io-client`` (node_modules, never a CDN).
- Socket.IO on ``/socket.io/``: ``chat:init`` ({"sessionId"?}; the ack is the ``chat:init`` reply:
  history and artifacts; creates the session if new; joins room ``session_<id>``), ``chat:send``
  (a ``ChatRequest``; joins the room; runs one agent turn and broadcasts the user's ``chat:send``,
  with the user entry's ``id`` and ``timestamp``, and every event of the turn to the room; the ack
  is ``{"sessionId", "status"}``),
  ``chat:cancel`` ({"sessionId", "turnId"?}: ends the session's running turn, wherever it is: the
  model's stream is left at once, a running tool call is waited for (bounded by its timeout); the
  ``completion`` says ``cancelled``; the ack is ``{"sessionId", "turnId", "status": "cancelled"}``)
  and ``tool:approval:response`` ({"sessionId", "id", "approved", "reason"?}: decides a call the
  turn stopped for, announced by ``tool:approval:request``; once none is pending the turn resumes
  and streams to the room; the ack is ``{"sessionId", "status"}``, ``pending`` while other calls
  still wait). A turn waiting for approval keeps its session busy until it is decided or cancelled.
- ``POST /api/chat``: a ``ChatRequest`` JSON body, answered with Server-Sent Events (``event:``
  the event name, ``data:`` its payload JSON), ending with ``completion`` (or, for a turn that
  stops for approval, with ``tool:approval:request``: the rest goes to the session's room); the
  session id is in the ``X-Session-Id`` response header.
- ``POST /api/agui``: an AG-UI ``RunAgentInput`` (``threadId`` is the session id), answered with AG-UI
  events over SSE (for ``@ag-ui/client``'s ``HttpAgent``); ``POST /api/aisdk``: the AI SDK ``useChat``
  body (``id`` is the session id), answered with the UI message stream v1 (for ``DefaultChatTransport``).
  Both run the same agent turn through ``agentmsg.ui`` (docs/ui-protocols.md). A new user message
  there while the session's turn waits for approval cancels that turn (an HTTP client cannot send
  ``chat:cancel``; the cancel is recorded and sent to the room) and starts the new one.

The history survives restarts, kills and other processes: the turn keeps the events of each
message beside it in the store, ``chat:init`` is rebuilt from them (``events.restore``), the
answer streaming now is kept before its chunks are sent (a draft), and a turn whose process died
is closed as ``interrupted`` by the next process to open the session (docs/web-chat.md).

Bad client input never reaches the agent: it is answered with a ``chat:error`` event
(``{"code", "path", "error"}``; over HTTP a 4xx JSON body with the same keys) to the caller only.
Who the caller is: the Socket.IO ``auth`` token (``io({auth: {token}})``) or the HTTP
``Authorization: Bearer <token>``; a session belongs to the token that created it (kept in
memory, or in Redis with ``--redis``, as a digest of the token: a product puts its own
authentication here). Without a token a caller is anonymous
and can open only new sessions. A body too deep for the JSON parser is a ``depth`` error; a
request whose headers or body arrive too slowly (``--head-timeout``, ``--body-timeout``) is
answered 408 and its connection closed, on every path.

Several processes (``--store postgresql://...`` or one shared SQLite file, ``--redis redis://...``)
serve the same sessions: python-socketio's Redis manager carries each room broadcast to the clients
of every process, and Redis holds who owns which session and which session runs a turn (a lock),
so a client may ``chat:init`` or ``chat:send`` on any process. A Redis that goes away is logged
(``redis ... cannot be reached``) and never stops the server: its own clients still get their
events, and a ``chat:send`` is refused with ``unavailable`` until Redis is back.

The model is a scripted stand-in speaking Anthropic's streamed Messages API (the recipes
scenario), or ``--model anthropic|openai|ollama`` over plain HTTP (``ANTHROPIC_API_KEY``;
``OPENAI_API_KEY`` and ``OPENAI_BASE_URL`` for vLLM and other compatible servers; ``OLLAMA_HOST``).
``--param NAME=VALUE`` adds to each model request (``temperature=0``, ``stream=false``, or a codec
option); ``--tool-choice TOOL`` makes the first model call of each turn call TOOL. A local model
behind llama-cpp-python's server needs both (docs/web-chat.md): ``--model openai --tool-choice
list_recipes --param empty_content='""'``. A model server that fails is named in the turn's
failed ``completion`` (its address and HTTP status, never its text).
Every tool runs without asking, except those named with ``--ask TOOL`` (repeatable). A turn
lives in the process that runs it: its ``chat:cancel`` and ``tool:approval:response`` must reach
that process (with ``--redis``, one whose client is in the session's room on it).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import binascii
import concurrent.futures
import hashlib
import json
import logging
import os
import queue
import re
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TypeVar

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))

try:
    import engineio.packet
    import socketio
    import h11
    import socketio.packet
    import uvicorn
    from uvicorn.protocols.http.h11_impl import H11Protocol
except ImportError:
    sys.exit('examples/web_chat/server.py needs the web extra: pip install -e ".[web]"')

from agentmsg import ChatMessage, ConversationHistory  # noqa: E402
from agentmsg.content import ImagePart, TextPart  # noqa: E402
from agentmsg.agent import AgentStateError, AgentTurn  # noqa: E402
from agentmsg.errors import ProcessingError, ValidationError  # noqa: E402
from agentmsg.events import (  # noqa: E402
    ChatCancel,
    ChatInit,
    ChatInitRequest,
    ChatRequest,
    Completion,
    ImageAttachment,
    SessionReducer,
    ToolApprovalResponse,
    ToolEntry,
    UserEntry,
    close_interrupted,
    decode,
    encode,
    restore,
    session_room,
)
from agentmsg.io.execution import ApprovalPolicy  # noqa: E402
from agentmsg.io.mcp import McpClient  # noqa: E402
from agentmsg.io.store import MessageStore  # noqa: E402
from agentmsg.providers import anthropic, ollama, openai  # noqa: E402
from agentmsg.tools import ToolDefinition  # noqa: E402
from agentmsg.ui import Decision, ToolResult, agui, aisdk  # noqa: E402

log = logging.getLogger("web_chat")
R = TypeVar("R")

SYSTEM_PROMPT = "You are a helpful cook. Use the recipe tools to answer questions about the user's cookbook."
SCRIPTED_PACE = 0.03  # seconds between two words of the scripted model (a real model streams, too)
DRAIN_SECONDS = 1.0  # the longest a turn's next event waits for a slow client of its room
SUPERSEDED = "the user sent a new message"  # why a turn left waiting for approval ends when an HTTP client writes again
MAX_BODY = 8 * 1024 * 1024  # bytes of a POST /api/chat body or a Socket.IO message
HEAD_TIMEOUT = 10.0  # seconds for a request's line and headers, from the connection (or the previous answer) on
BODY_TIMEOUT = 60.0  # seconds for a request's body, from its headers on
MAX_IMAGE = 5 * 1024 * 1024  # bytes of an attached image, decoded
MAX_IMAGE_BASE64 = 4 * ((MAX_IMAGE + 2) // 3)
SESSION_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
TOKEN = re.compile(r"[A-Za-z0-9._~+/=-]{8,256}")
IMAGE_MAGIC = {
    "image/png": (b"\x89PNG\r\n\x1a\n",),
    "image/jpeg": (b"\xff\xd8\xff",),
    "image/gif": (b"GIF87a", b"GIF89a"),
    "image/webp": (b"RIFF",),
}
CLIENT_JS = HERE / "node_modules" / "socket.io-client" / "dist" / "socket.io.min.js"
UI_ENDPOINTS = {"/api/agui": "agui", "/api/aisdk": "aisdk"}  # the front-ends' protocols (agentmsg.ui)
MODEL_TIMEOUT = 120  # seconds the model server may stay silent (connecting, or between two reads)
MAX_MODEL_BODY = 16 * 1024 * 1024  # bytes of a model's answer that is not streamed
MAX_MODEL_LINE = 1024 * 1024  # bytes of one line of a model's stream
EMPTY_STREAM = ("the model server ended its stream without sending an event (llama-cpp-python's server does so for a "
                "streamed call with tool_choice 'auto': force a tool with --tool-choice TOOL, or do not stream: "
                "--param stream=false)")


class ClientError(Exception):
    """Bad input from a client: answered with ``chat:error`` (or an HTTP 4xx), never raised further."""

    def __init__(self, code: str, path: str, error: str, status: int = 400) -> None:
        super().__init__(error)
        self.code, self.path, self.error, self.status = code, path, error, status

    @classmethod
    def invalid(cls, exc: ValidationError) -> ClientError:
        return cls(exc.code, exc.path, str(exc))

    def payload(self) -> dict[str, str]:
        return {"code": self.code, "path": self.path, "error": self.error}


# -- the models ------------------------------------------------------------------------------------

def _paced(pieces: list[str]) -> Iterator[str]:
    """Yield the words at a model's pace (``SCRIPTED_PACE`` apart), so the page shows the text growing."""
    for i, piece in enumerate(pieces):
        if i:
            time.sleep(SCRIPTED_PACE)
        yield piece


def _anthropic_stream(text_pieces: Iterable[str], call: dict[str, Any] | None) -> Iterator[dict[str, Any]]:
    """Yield a Messages API stream (the parsed ``data:`` events): text deltas, then a tool call."""
    yield {"type": "message_start", "message": {"id": f"msg_{uuid.uuid4().hex[:12]}", "type": "message",
                                                "role": "assistant", "content": [], "usage": {"input_tokens": 90}}}
    yield {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}
    for piece in text_pieces:
        yield {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": piece}}
    yield {"type": "content_block_stop", "index": 0}
    if call is not None:
        yield {"type": "content_block_start", "index": 1,
               "content_block": {"type": "tool_use", "id": call["id"], "name": call["name"], "input": {}}}
        yield {"type": "content_block_delta", "index": 1,
               "delta": {"type": "input_json_delta", "partial_json": json.dumps(call["input"])}}
        yield {"type": "content_block_stop", "index": 1}
    yield {"type": "message_delta", "delta": {"stop_reason": "tool_use" if call else "end_turn"},
           "usage": {"output_tokens": 20}}
    yield {"type": "message_stop"}


def scripted_model(body: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """A stand-in for Claude: reads the request as the API would, answers in its stream shape.

    The recipes scenario: to the user's question it answers with a short text and a call to the
    MCP tool ``list_recipes``; to the tool's result, with the final answer listing the recipes.
    A message that names another tool the request offers (a browser's tool) gets a call to that
    tool, and its result is answered with "The browser says: <result>".
    """
    last = body["messages"][-1]
    content = last["content"]
    if isinstance(content, list) and content and content[0].get("type") == "tool_result":
        result = content[0]["content"]
        text = result if isinstance(result, str) else " ".join(b.get("text", "") for b in result)
        asked = [b["name"] for b in body["messages"][-2]["content"] if isinstance(b, dict) and b.get("type") == "tool_use"]
        if asked and asked[0] != "list_recipes":
            return _anthropic_stream(_paced(re.findall(r"\S+\s*", "The browser says: " + text)), None)
        names = [line for line in text.split("\n") if line]
        answer = f"You have {len(names)} recipes: " + (", ".join(names[:-1]) + " and " + names[-1]
                                                      if len(names) > 1 else "".join(names)) + "."
        return _anthropic_stream(_paced(re.findall(r"\S+\s*", answer)), None)
    seen_image = isinstance(content, list) and any(block.get("type") == "image" for block in content)
    said = content if isinstance(content, str) else " ".join(b.get("text", "") for b in content if b.get("type") == "text")
    browser = [tool["name"] for tool in body.get("tools", []) if tool["name"] != "list_recipes" and tool["name"] in said]
    if browser:
        call = {"id": f"toolu_{uuid.uuid4().hex[:12]}", "name": browser[0], "input": {"dish": "Omelette"}}
        return _anthropic_stream(_paced(["Let me ", "ask your browser."]), call)
    opening = ("I see your picture. " if seen_image else "") + "Let me check your cookbook."
    call = {"id": f"toolu_{uuid.uuid4().hex[:12]}", "name": "list_recipes", "input": {}}
    return _anthropic_stream(_paced(re.findall(r"\S+\s*", opening)), call)


def _model_address(url: str) -> str:
    """The model server a URL names, for messages: host and port, never credentials or a path."""
    parts = urllib.parse.urlsplit(url)
    return f"{parts.hostname or ''}{':' + str(parts.port) if parts.port else ''}"


def _open_model(url: str, body: dict[str, Any], headers: dict[str, str]) -> Any:
    """POST ``body`` to the model server; a failure is a ``ProcessingError`` naming the server and the status."""
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"content-type": "application/json", **headers})
    try:
        return urllib.request.urlopen(request, timeout=MODEL_TIMEOUT)
    except urllib.error.HTTPError as exc:  # its body is the server's text: not shown
        exc.close()
        raise ProcessingError(f"the model server at {_model_address(url)} answered HTTP {exc.code}", "http") from None
    except (urllib.error.URLError, OSError) as exc:
        cause = exc.reason if isinstance(exc, urllib.error.URLError) else exc
        raise ProcessingError(f"the model server at {_model_address(url)} cannot be reached ({type(cause).__name__})",
                              "unreachable") from None


def _post(url: str, body: dict[str, Any], headers: dict[str, str], ndjson: bool) -> Any:
    """POST ``body``; return the answer: the parsed body, or (``"stream": true``) an iterator of its events."""
    if body.get("stream"):
        return _post_stream(url, body, headers, ndjson)
    with _open_model(url, body, headers) as response:
        data = response.read(MAX_MODEL_BODY + 1)
    if len(data) > MAX_MODEL_BODY:
        raise ProcessingError(f"the model server sent an answer over {MAX_MODEL_BODY} bytes", "too_large")
    try:
        return json.loads(data)
    except ValueError:
        raise ProcessingError("the model server's answer is not JSON", "json") from None


def _post_stream(url: str, body: dict[str, Any], headers: dict[str, str], ndjson: bool) -> Iterator[Any]:
    """POST ``body`` and yield the parsed events of the streamed answer (SSE ``data:`` or NDJSON)."""
    events = 0
    with _open_model(url, body, headers) as response:
        while raw := response.readline(MAX_MODEL_LINE + 1):
            if len(raw) > MAX_MODEL_LINE:
                raise ProcessingError(f"the model server sent a line over {MAX_MODEL_LINE} bytes", "too_large")
            line = raw.decode("utf-8").strip()
            if ndjson:
                if line:
                    events += 1
                    yield json.loads(line)
            elif line.startswith("data:"):
                data = line[5:].strip()
                if data == "[DONE]":
                    return
                events += 1
                yield json.loads(data)
    if not events:
        raise ProcessingError(EMPTY_STREAM, "empty")


def first_call_tool_choice(model: Callable[[dict[str, Any]], Any], choice: str) -> Callable[[dict[str, Any]], Any]:
    """Send ``tool_choice`` (a tool's name, or auto, required, none) with the first model call of each turn.

    The calls that follow tool results go without it (the server's default), so a forced tool
    runs once per turn and the model then answers.
    """
    value: Any = choice if choice in ("auto", "required", "none") else {"type": "function", "function": {"name": choice}}

    def call(body: dict[str, Any]) -> Any:
        after = next((m.get("role") for m in reversed(body["messages"]) if m.get("role") != "user"), None)
        return model({**body, "tool_choice": value} if after != "tool" else body)

    return call


def model_params(provider: Any, params: dict[str, Any], extra: list[str]) -> dict[str, Any]:
    """Return ``params`` with each ``--param NAME=VALUE`` (a JSON value, else the text) set; exit if the codec refuses them."""
    params = dict(params)
    for item in extra:
        name, sep, text = item.partition("=")
        if not sep or not name.isidentifier():
            sys.exit(f"--param takes NAME=VALUE, got {item[:40]!r}")
        try:
            params[name] = json.loads(text)
        except ValueError:
            params[name] = text
    try:
        provider.to_request([ChatMessage.user("?")], **params)
    except (TypeError, ValidationError) as exc:
        sys.exit(f"--param: the {provider.__name__.rpartition('.')[2]} codec refuses these parameters: {exc}")
    return params


def http_model(name: str, model_name: str | None) -> tuple[Any, Callable[[dict[str, Any]], Any], dict[str, Any]]:
    """Return (provider module, model callable, params) for a real provider over plain HTTP."""
    if name == "anthropic":
        key = os.environ.get("ANTHROPIC_API_KEY") or sys.exit("--model anthropic needs ANTHROPIC_API_KEY")
        headers = {"x-api-key": key, "anthropic-version": "2023-06-01"}
        params = {"model": model_name or "claude-haiku-4-5", "max_tokens": 1024, "stream": True}
        return anthropic, lambda body: _post("https://api.anthropic.com/v1/messages", body, headers, False), params
    if name == "openai":
        base = os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1").rstrip("/")
        key = os.environ.get("OPENAI_API_KEY", "")
        headers = {"authorization": f"Bearer {key}"} if key else {}
        params = {"model": model_name or "gpt-4.1-mini", "stream": True}
        return openai, lambda body: _post(f"{base}/chat/completions", body, headers, False), params
    host = os.environ.get("OLLAMA_HOST", "http://localhost:11434").rstrip("/")
    if "://" not in host:
        host = "http://" + host
    params = {"model": model_name or "llama3.2", "stream": True}
    return ollama, lambda body: _post(f"{host}/api/chat", body, {}, True), params


# -- sessions --------------------------------------------------------------------------------------

Stored = tuple[tuple[ChatMessage, "dict[str, Any] | None"], ...]  # MessageStore.load_with_meta


def now() -> str:
    """Return the current UTC time as the events write it (``2024-05-01T12:00:00.000Z``)."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class _Stop:
    """The end of a stream the session stopped reading (a cancel)."""


class StreamReader:
    """Read a session's model streams through a pump thread, so a cancel never waits on the network.

    The agent turn reads ``wrap(stream)``; ``stop()`` ends what it reads at once (the turn, told to
    cancel first, then ends cancelled); the pump thread finishes on its own when the stream yields
    next or fails (bounded by the HTTP timeout), and closes it.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._queues: set[queue.Queue[tuple[str, Any]]] = set()
        self.stopped = False

    def wrap(self, stream: Any) -> Any:
        if isinstance(stream, Mapping):
            return stream
        inbox: queue.Queue[tuple[str, Any]] = queue.Queue()
        with self._lock:
            if self.stopped:
                _close(stream)
                return iter(())
            self._queues.add(inbox)
        stop = self

        def pump() -> None:
            try:
                for item in stream:
                    inbox.put(("item", item))
                    if stop.stopped:
                        break
            except Exception as exc:  # handed to the reader, which raises it to the turn
                inbox.put(("error", exc))
            else:
                inbox.put(("end", None))
            finally:
                _close(stream)

        threading.Thread(target=pump, name="model-stream", daemon=True).start()

        def read() -> Iterator[Any]:
            try:
                while True:
                    kind, value = inbox.get()
                    if kind == "item":
                        yield value
                    elif kind == "error":
                        raise value
                    else:  # the end, or a stop
                        return
            finally:
                with self._lock:
                    self._queues.discard(inbox)

        return read()

    def stop(self) -> None:
        with self._lock:
            self.stopped = True
            for inbox in self._queues:
                inbox.put(("stop", _Stop))


def _close(stream: Any) -> None:
    close = getattr(stream, "close", None)
    if callable(close):
        try:
            close()
        except Exception:  # the stream's transport is going away anyway
            pass


class Session:
    """One conversation: its chat history for the model, its reducer for the clients.

    ``turn`` is the agent turn running or waiting for approval (None between turns); ``busy``
    holds from the claim until that turn is done. ``outbox`` is where the turn's events go while a
    task drives it (``ChatServer.drive``); an event that comes when none does (a cancel racing the
    end of a step) goes to ``spill`` (the room).
    """

    def __init__(self, session_id: str, stored: Stored, loop: asyncio.AbstractEventLoop,
                 spill: Callable[[tuple[str, dict[str, Any]]], Any]) -> None:
        self.id = session_id
        self.busy = False
        self.loop = loop
        self.spill = spill
        self.turn: AgentTurn | None = None
        self.reader = StreamReader()
        self.outbox: asyncio.Queue[tuple[str, dict[str, Any]] | None] | None = None
        self.reload(stored)

    def reload(self, stored: Stored) -> None:
        """Start again from the stored messages and the events kept beside them (``events.restore``)."""
        self.stored = stored
        self.history = ConversationHistory([ChatMessage.system(SYSTEM_PROMPT), *(message for message, _ in stored)])
        self.reducer = SessionReducer(restore(stored) if stored else None, new_id=self.reducer_id)

    @staticmethod
    def reducer_id() -> str:
        """Return a new id for a user entry of the history."""
        return f"user_{uuid.uuid4().hex[:12]}"

    def on_event(self, event: Any) -> None:
        """Take an event of the turn (from any thread): into the history, then to whoever drives the turn."""
        try:
            self.reducer.apply(event)
        except ValidationError as exc:
            log.error("the session refused an event of the turn: %s", exc.code)
        self.loop.call_soon_threadsafe(self._deliver, encode(event))

    def _deliver(self, pair: tuple[str, dict[str, Any]]) -> None:
        """Hand one event (on the event loop) to the task that drives the turn, or to the room."""
        if self.outbox is not None:
            self.outbox.put_nowait(pair)
        else:
            self.spill(pair)


# -- who owns which session, which session runs a turn ----------------------------------------------

class Unavailable(ClientError):
    """Redis (the directory every process shares) cannot be reached: a 503, never a crash."""

    def __init__(self, path: str) -> None:
        super().__init__("unavailable", path, f"{path}: the session directory (Redis) cannot be reached; try again", 503)


class LocalDirectory:
    """The owners of the sessions and the running turns of one process, in memory."""

    def __init__(self) -> None:
        self.owners: dict[str, str] = {}
        self.running: set[str] = set()

    async def owner(self, session_id: str) -> str | None:
        return self.owners.get(session_id)

    async def set_owner(self, session_id: str, user: str) -> str:
        """Make ``user`` the owner unless the session has one; return the owner."""
        return self.owners.setdefault(session_id, user)

    async def lock(self, session_id: str) -> bool:
        if session_id in self.running:
            return False
        self.running.add(session_id)
        return True

    async def unlock(self, session_id: str) -> None:
        self.running.discard(session_id)

    async def close(self) -> None:
        pass


class RedisDirectory(LocalDirectory):
    """The same, shared by every process through Redis: one hash of owners, one lock key per running turn.

    An owner never changes, so a known one is kept in memory too. A lock expires after
    ``LOCK_SECONDS`` unless the process that holds it renews it (every third of that, while it
    lives): a process that dies mid-turn frees its sessions within ``LOCK_SECONDS``, and another
    process then closes the turn it left (``completion`` code ``interrupted``). Redis errors
    become ``Unavailable`` (logged once per outage), never an exception that reaches the server.
    """

    LOCK_SECONDS = 15

    def __init__(self, url: str, prefix: str = "web_chat") -> None:
        super().__init__()
        import redis.asyncio

        self.redis = redis.asyncio.Redis.from_url(url, socket_connect_timeout=5, socket_timeout=5)
        self.where = redis_address(url)
        self.owners_key, self.lock_prefix = f"{prefix}:owners", f"{prefix}:turn:"
        self.token = uuid.uuid4().hex  # this process's mark on the locks it holds
        self.down = False
        self.held: set[str] = set()  # the lock keys this process holds, renewed by ``renew``
        self.renewing: asyncio.Task[None] | None = None

    async def _call(self, path: str, command: Any) -> Any:
        try:
            result = await command
        except Exception as exc:  # redis.RedisError, OSError, a timeout: all mean "not reachable now"
            if not self.down:
                log.error("redis at %s cannot be reached (%s): chat:send is refused with 'unavailable' until it is back",
                          self.where, type(exc).__name__)
            self.down = True
            raise Unavailable(path) from None
        if self.down:
            log.warning("redis at %s is reachable again", self.where)
            self.down = False
        return result

    async def owner(self, session_id: str) -> str | None:
        if session_id not in self.owners:
            owner = await self._call("sessionId", self.redis.hget(self.owners_key, session_id))
            if owner is None:
                return None
            self.owners[session_id] = owner.decode()
        return self.owners[session_id]

    async def set_owner(self, session_id: str, user: str) -> str:
        await self._call("sessionId", self.redis.hsetnx(self.owners_key, session_id, user))
        return await self.owner(session_id) or user

    async def lock(self, session_id: str) -> bool:
        key = self.lock_prefix + session_id
        if not await self._call("conversation_id", self.redis.set(key, self.token, nx=True, ex=self.LOCK_SECONDS)):
            return False
        self.held.add(key)
        if self.renewing is None or self.renewing.done():
            self.renewing = asyncio.ensure_future(self.renew())
        return True

    async def renew(self) -> None:
        """Extend the locks this process holds, every third of ``LOCK_SECONDS``, while it holds any."""
        script = ("if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('expire', KEYS[1], ARGV[2]) end "
                  "return 0")
        while self.held:
            await asyncio.sleep(self.LOCK_SECONDS / 3)
            for key in list(self.held):
                try:
                    await self._call("conversation_id", self.redis.eval(script, 1, key, self.token, self.LOCK_SECONDS))
                except Unavailable:
                    break  # logged; tried again next time

    async def unlock(self, session_id: str) -> None:
        key = self.lock_prefix + session_id
        self.held.discard(key)
        try:  # delete the lock only if it is still ours (it may have expired and been taken)
            await self._call("conversation_id", self.redis.eval(
                "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0",
                1, key, self.token))
        except Unavailable:
            pass  # logged; the lock expires on its own

    async def close(self) -> None:
        if self.renewing is not None:
            self.renewing.cancel()
        await self.redis.aclose()


def redis_address(url: str) -> str:
    """``host:port/db`` of a Redis URL, without its user name or password (for log lines)."""
    parsed = urllib.parse.urlsplit(url)
    return f"{parsed.hostname or 'localhost'}:{parsed.port or 6379}{parsed.path or ''}"


async def fan_out(manager: Any, event: str, data: Any, namespace: str, room: Any, skip_sid: Any) -> None:
    """Send one event to a room's clients on this process: python-socketio's ``AsyncManager.emit``
    without its task per client.

    The packet is encoded once (as python-socketio does), then handed to each client's Engine.IO
    queue in turn: a queue put that never waits, so a task and a wait per client and per event
    (a third of the server's time with 100 clients in a room) buy nothing.
    """
    if namespace not in manager.rooms:
        return
    args = list(data) if isinstance(data, tuple) else [] if data is None else [data]
    skip = skip_sid if isinstance(skip_sid, list) else [skip_sid]
    encoded = manager.server.packet_class(socketio.packet.EVENT, namespace=namespace, data=[event, *args]).encode()
    packets = [engineio.packet.Packet(engineio.packet.MESSAGE, part)
               for part in (encoded if isinstance(encoded, list) else [encoded])]
    for sid, eio_sid in list(manager.get_participants(namespace, room)):
        if sid not in skip:
            for part in packets:
                await manager.server._send_eio_packet(eio_sid, part)


class RoomManager(socketio.AsyncManager):
    """python-socketio's in-process manager, broadcasting through ``fan_out``."""

    async def emit(self, event: str, data: Any, namespace: str, room: Any = None, skip_sid: Any = None,
                   callback: Any = None, to: Any = None, **kwargs: Any) -> Any:
        if callback is not None:  # an id per client: python-socketio's own way
            return await super().emit(event, data, namespace, room=room, skip_sid=skip_sid, callback=callback,
                                      to=to, **kwargs)
        await fan_out(self, event, data, namespace, to or room, skip_sid)
        return None


class RedisManager(socketio.AsyncRedisManager):
    """python-socketio's Redis manager, with one clear log line when Redis goes away and when it is back.

    Every broadcast reaches this process's clients first; publishing it to the other processes
    is skipped for a second after a failure, so an outage costs no connect attempt per event.
    """

    def __init__(self, url: str) -> None:
        super().__init__(url, channel="web_chat", logger=logging.getLogger("web_chat.redis"),
                         redis_options={"socket_connect_timeout": 5})
        self.where = redis_address(url)
        self.retry_at = 0.0

    async def _handle_emit(self, message: dict[str, Any]) -> None:
        """Deliver a broadcast (this process's or another's) to this process's clients through ``fan_out``."""
        if message.get("callback") is not None or message.get("binary"):
            await super()._handle_emit(message)
            return
        data = message["data"]
        if isinstance(data, list):
            data = data[0] if len(data) == 1 else tuple(data)
        await fan_out(self, message["event"], data, message.get("namespace") or "/", message.get("room"),
                      message.get("skip_sid"))

    async def _publish(self, data: Any) -> None:
        if self.retry_at and time.monotonic() < self.retry_at:
            return
        try:
            if not self.connected:
                self._redis_connect()
            await self.redis.publish(self.channel, self.json.dumps(data))
        except Exception as exc:  # redis.RedisError, OSError: the other processes miss this event
            self.connected = False
            if not self.retry_at:
                log.error("redis at %s cannot be reached (%s): broadcasts reach this process's clients only "
                          "until it is back", self.where, type(exc).__name__)
            self.retry_at = time.monotonic() + 1.0
            return
        if self.retry_at:
            log.warning("redis at %s is reachable again: broadcasts reach every process", self.where)
            self.retry_at = 0.0

    async def ready(self, timeout: float = 10.0) -> None:
        """Start listening now (not at the first connection) and wait until subscribed, within ``timeout``."""
        server = self.server
        if not server.manager_initialized:
            server.manager_initialized = True
            self.initialize()
        deadline = time.monotonic() + timeout
        while not (self.pubsub is not None and self.pubsub.subscribed):
            if time.monotonic() > deadline:
                log.error("redis at %s: not subscribed after %.0f s; broadcasts from other processes may be missed",
                          self.where, timeout)
                return
            await asyncio.sleep(0.02)


class ChatServer:
    """The process's state: one store, one MCP client, the sessions; the Socket.IO and HTTP handlers."""

    def __init__(self, store: MessageStore, recipes: McpClient, provider: Any,
                 model: Callable[[dict[str, Any]], Any], params: dict[str, Any], redis: str | None = None,
                 ask: tuple[str, ...] = ()) -> None:
        self.store = store
        self.recipes = recipes
        self.provider, self.model, self.params = provider, model, params
        self.policy = ApprovalPolicy({name: "ask" for name in ask}, default="auto")
        self.sessions: dict[str, Session] = {}
        # the drafts' writes, apart from the turns' worker threads (which a busy server may all be using)
        self.drafts = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="draft")
        self.ui_paused: dict[str, Any] = {}  # session id -> the AG-UI/AI SDK translator of its turn waiting for approval
        self.manager = RedisManager(redis) if redis else None
        self.directory = RedisDirectory(redis) if redis else LocalDirectory()
        self.sio = socketio.AsyncServer(async_mode="asgi", cors_allowed_origins=[],
                                        client_manager=self.manager or RoomManager(),
                                        max_http_buffer_size=MAX_BODY)
        self.sio.on("connect", self.on_connect)
        self.sio.on("chat:init", self.on_init)
        self.sio.on("chat:send", self.on_send)
        self.sio.on("chat:cancel", self.on_cancel)
        self.sio.on("tool:approval:response", self.on_approval)
        self.sio.on("*", self.on_other)
        self.app = socketio.ASGIApp(self.sio, other_asgi_app=self.http, on_startup=self.startup,
                                    on_shutdown=self.shutdown)

    async def startup(self) -> None:
        if self.manager is not None:  # listen to the other processes before the first client connects
            await self.manager.ready()

    async def shutdown(self) -> None:
        self.drafts.shutdown(wait=False)
        await self.directory.close()

    # -- who may open what

    async def session(self, session_id: str | None, user: str) -> Session:
        """Return the caller's session (created when new, brought up to date); another owner's is refused.

        A stored session nobody owns (its owner was kept by a process or a Redis that is gone)
        goes to the first token that asks; an anonymous caller may only open new sessions.
        """
        if session_id is None:
            session_id = uuid.uuid4().hex
        elif not SESSION_ID.fullmatch(session_id):
            raise ClientError("pattern", "sessionId", "sessionId: must be 1 to 64 letters, digits, '_' or '-'")
        session = self.sessions.get(session_id)
        stored = self.stored(self.store.load_with_meta, session_id) if session is None else None
        owner = await self.directory.owner(session_id)
        if owner is None:
            if user.startswith("anon:") and (session is not None or stored):
                raise _not_yours(user)
            owner = await self.directory.set_owner(session_id, user)
        if owner != user:
            raise _not_yours(user)
        if session is None:
            room = session_room(session_id)

            def spill(pair: tuple[str, dict[str, Any]]) -> None:
                asyncio.ensure_future(self.sio.emit(pair[0], pair[1], room=room))

            session = self.sessions.setdefault(
                session_id, Session(session_id, stored or (), asyncio.get_running_loop(), spill))
        elif not session.busy:
            self.refresh(session)
        if not session.busy:
            await self.close_interrupted(session)
        return session

    async def running(self, session_id: str, user: str) -> tuple[Session, AgentTurn]:
        """Return the caller's session and its turn that is not done yet (running or waiting for approval)."""
        session = self.sessions.get(session_id)
        if session is not None:
            owner = await self.directory.owner(session_id)
            if owner is not None and owner != user:
                raise _not_yours(user)
        turn = session.turn if session is not None else None
        if session is None or turn is None or turn.state == "done":
            raise ClientError("protocol", "sessionId", "sessionId: no turn is running in this session (on this server)", 409)
        return session, turn

    def refresh(self, session: Session) -> None:
        """Reload a session from the store (another process may have run a turn since)."""
        session.reload(self.stored(self.store.load_with_meta, session.id))

    async def close_interrupted(self, session: Session, locked: bool = False) -> None:
        """Close the session's stored turn that never ended, once no process runs a turn in it.

        The process that ran it died (a restart, a kill) or waited for an approval when it
        stopped: ``events.close_interrupted`` answers its open tool calls as failed, closes it
        with an assistant message, and keeps a failed ``completion`` (code ``interrupted``) that
        ``chat:init`` shows on the turn's user entry; the room is told too. With ``locked``, the
        caller holds the session's lock already.
        """
        if not close_interrupted(session.stored) or (session.busy and not locked):
            return
        if not locked and not await self.directory.lock(session.id):
            return  # a turn runs (here or on another process): it is not interrupted, or not yet known to be
        try:
            self.refresh(session)  # what is stored now that no turn can add to it
            closing = close_interrupted(session.stored)
            if not closing:
                return
            try:
                self.store.save_many(session.id, [message for message, _ in closing], meta=[meta for _, meta in closing])
            except (ProcessingError, ValidationError) as exc:
                log.error("the store cannot close an interrupted turn (%s %s)", type(exc).__name__, getattr(exc, "code", ""))
                raise ClientError("unavailable", "sessionId", "sessionId: the conversation store cannot be written; try again",
                                  503) from None
            log.info("closed a turn that was interrupted (session %s)", session.id)
            self.refresh(session)
            meta = closing[-1][1]
            for name, payload in [*meta["after"], ["completion", meta["completion"]]]:
                await self.sio.emit(name, payload, room=session_room(session.id))
        finally:
            if not locked:
                await self.directory.unlock(session.id)

    def stamped(self, request: ChatRequest) -> ChatRequest:
        """Give the user's message its entry id and time (a client's own are replaced): the echo and the store carry them."""
        return replace(request, id=Session.reducer_id(), timestamp=now())

    def stored(self, read: Callable[[str], R], session_id: str) -> R:
        """Read the store; a store that fails (its server gone) is logged and answered with ``unavailable``."""
        try:
            return read(session_id)
        except (ProcessingError, ValidationError) as exc:
            log.error("the store cannot be read (%s %s): the session is answered with 'unavailable'",
                      type(exc).__name__, getattr(exc, "code", ""))
            raise ClientError("unavailable", "sessionId", "sessionId: the conversation store cannot be read; try again",
                              503) from None

    def request(self, payload: Any) -> ChatRequest:
        """Decode a ``chat:send`` payload, with the image bounded in size and checked to be an image."""
        if isinstance(payload, dict) and isinstance(payload.get("image"), dict):
            data = payload["image"].get("data")
            if isinstance(data, str) and len(data) > MAX_IMAGE_BASE64:
                raise ClientError("too_large", "image.data",
                                  f"image.data: the image must be at most {MAX_IMAGE} bytes", 413)
        try:
            request = decode("chat:send", payload)
        except ValidationError as exc:
            raise ClientError.invalid(exc) from None
        assert isinstance(request, ChatRequest)
        if request.image is not None:
            try:
                head = base64.b64decode(request.image.data[:24], validate=True)
            except binascii.Error:
                head = b""
            magic = IMAGE_MAGIC[request.image.media_type]
            if not head.startswith(magic) or (request.image.media_type == "image/webp" and head[8:12] != b"WEBP"):
                raise ClientError("not_image", "image.data",
                                  f"image.data: the bytes are not a {request.image.media_type} image")
        return request

    # -- one agent turn, in a worker thread

    async def claim(self, session: Session) -> None:
        """Mark the session's turn as running, here (no await between the check and the mark) and for every process."""
        if session.busy:
            state = session.turn.state if session.turn is not None else None
            hint = {"approval": " (it waits for tool:approval:response or chat:cancel)",
                    "client": " (it waits for its browser tools' results, or chat:cancel)"}.get(state or "", "")
            raise ClientError("busy", "conversation_id", "conversation_id: a turn is already running" + hint, 409)
        session.busy = True
        try:
            if not await self.directory.lock(session.id):
                raise ClientError("busy", "conversation_id", "conversation_id: a turn is already running", 409)
        except ClientError:
            session.busy = False
            raise
        try:
            self.refresh(session)  # the turns that ran on other processes before this one
            await self.close_interrupted(session, locked=True)
        except ClientError:
            await self.release(session)
            raise

    async def to_room(self, room: str, name: str, payload: Any) -> None:
        """Broadcast one event of a turn, then wait (within ``DRAIN_SECONDS``) until this process has sent it to each client.

        python-socketio queues an event per client and returns; without this wait a fast model
        queues events faster than they go out, and every client's queue grows. Waiting here lets
        the turn's next events pile up in the turn's own queue instead, where ``coalesce`` sends
        the waiting chunks as one event: the room gets fewer, larger chunks while it is busy.
        """
        await self.sio.emit(name, payload, room=room)
        sockets = self.sio.eio.sockets  # python-engineio's sockets of this process, by Engine.IO sid
        waiting = [socket for _, eio_sid in self.sio.manager.get_participants("/", room)
                   if (socket := sockets.get(eio_sid)) is not None]
        deadline, spins = time.monotonic() + DRAIN_SECONDS, 0
        while any(not socket.queue.empty() for socket in waiting) and time.monotonic() < deadline:
            spins += 1
            await asyncio.sleep(0 if spins < 8 else 0.001)  # the writers run meanwhile

    async def release(self, session: Session) -> None:
        """Free the session once its turn is done (a turn waiting for approval keeps it, and its lock)."""
        if session.turn is None or session.turn.state == "done":
            session.turn = None
            session.busy = False
            await self.directory.unlock(session.id)

    def model_for(self, session: Session) -> Callable[[dict[str, Any]], Any]:
        return lambda body: session.reader.wrap(self.model(body))

    async def drive(self, session: Session, sink: Callable[[str, Any], Any], work: Callable[[], str]) -> str:
        """Run ``work`` (a step of the session's turn) in a worker thread, passing every event, in order, to ``sink``."""
        loop = asyncio.get_running_loop()
        events: asyncio.Queue[tuple[str, dict[str, Any]] | None] = asyncio.Queue()
        session.outbox = events  # before any await: a cancel sees that a task drives the turn

        def job() -> str:
            try:
                return work()
            finally:
                loop.call_soon_threadsafe(events.put_nowait, None)

        done = loop.run_in_executor(None, job)
        try:
            ended = False
            while not ended:
                waiting = [await events.get()]
                while not events.empty():  # what the agent loop emitted while the last events went out
                    waiting.append(events.get_nowait())
                if None in waiting:  # the step's end; anything after it is drained below
                    ended = True
                    for late in waiting[waiting.index(None) + 1:]:
                        events.put_nowait(late)
                    waiting = waiting[:waiting.index(None)]
                if any(item[0] == "message:chunk" for item in waiting):  # type: ignore[index]  # no None left
                    await self.keep_draft(session)
                for name, payload in coalesce(waiting):  # type: ignore[arg-type]  # no None left
                    await sink(name, payload)
            return await done
        except Exception as exc:  # a bug, not the client's: close the turn so the session lives on
            log.exception("the turn could not run (%s)", type(exc).__name__)
            turn_id = session.reducer.turn_id if session.reducer.turn_open else None
            closing = Completion.failed("the turn could not run; see the server log", code="internal", turn_id=turn_id)
            if session.reducer.turn_open:
                try:
                    session.reducer.apply(closing)
                except ValidationError:  # a message or reasoning the failure left open: start the reducer afresh
                    session.reducer = SessionReducer(session.reducer.to_init(), new_id=session.reducer_id)
                try:  # kept, so that the history shows it after a restart too
                    self.store.annotate(session.id, {"completion": closing.to_dict()})
                except (ProcessingError, ValidationError):
                    log.error("the store cannot keep the failed completion")
                await sink(*encode(closing))
            session.turn = None
            return "error"
        finally:
            session.outbox = None  # from here on, late events go to the room directly
            while not events.empty():  # events that came after the step's end (a racing cancel)
                item = events.get_nowait()
                if item is not None:
                    await sink(*item)

    async def keep_draft(self, session: Session) -> None:
        """Keep the turn's unsaved events (the answer streaming now) before its chunks are sent.

        What a client saw then survives a kill: ``events.restore`` shows the draft, and
        ``events.close_interrupted`` keeps its text. One write per batch of chunks (the chunks
        that wait meanwhile go out together); a store that fails is logged, never fatal.
        """
        turn = session.turn
        if turn is None or turn.state == "done":
            return
        try:
            await asyncio.get_running_loop().run_in_executor(
                self.drafts, lambda: self.store.annotate(session.id, {"draft": turn.unsaved_events()}))
        except (ProcessingError, ValidationError) as exc:
            log.error("the store cannot keep the answer's draft (%s %s)", type(exc).__name__, getattr(exc, "code", ""))

    async def turn(self, session: Session, request: ChatRequest, sink: Callable[[str, Any], Any],
                   client_tools: tuple[ToolDefinition, ...] = ()) -> str:
        """Run one turn for ``request`` (claimed), passing every event, in order, to the coroutine ``sink``.

        ``client_tools`` run in the caller's browser: the turn pauses (state ``client``) for their results.
        """
        session.reader = StreamReader()

        def work() -> str:
            turn = session.turn = AgentTurn(self.provider, session.history, request, mcp=[self.recipes],
                                            client_tools=client_tools,
                                            policy=self.policy, params=self.params, on_event=session.on_event,
                                            store=self.store, conversation_id=session.id)
            return turn.run(self.model_for(session)).status

        session.reducer.apply(request)
        return await self.drive(session, sink, work)

    # -- Socket.IO

    async def on_connect(self, sid: str, environ: dict[str, Any], auth: Any = None) -> None:
        token = auth.get("token") if isinstance(auth, dict) else None
        if token is not None and (type(token) is not str or not TOKEN.fullmatch(token)):
            raise socketio.exceptions.ConnectionRefusedError("auth.token: must be 8 to 256 token characters")
        await self.sio.save_session(sid, {"user": user_of(token) if token else f"anon:{sid}"})

    async def _user(self, sid: str) -> str:
        return str((await self.sio.get_session(sid))["user"])

    async def _refuse(self, sid: str, error: ClientError) -> dict[str, str]:
        await self.sio.emit("chat:error", error.payload(), to=sid)
        return error.payload()

    async def on_init(self, sid: str, payload: Any = None, *extra: Any) -> dict[str, Any]:
        try:
            try:
                request = decode("chat:init", {} if payload is None else payload)  # a client's: no sender
            except ValidationError as exc:
                if (exc.code, exc.path) == ("protocol", "status"):  # the server's reply, sent by a client
                    raise ClientError("direction", "status", "chat:init: clients send a request, not the reply") from None
                raise ClientError.invalid(exc) from None
            if not isinstance(request, ChatInitRequest):
                raise ClientError("direction", "status", "chat:init: clients send a request, not the reply")
            session = await self.session(request.session_id, await self._user(sid))
        except ClientError as error:
            return await self._refuse(sid, error)
        await self.sio.enter_room(sid, session_room(session.id))
        return {**encode(session.reducer.to_init())[1], "sessionId": session.id}

    async def on_send(self, sid: str, payload: Any = None, *extra: Any) -> dict[str, Any]:
        try:
            request = self.stamped(self.request(payload))
            session = await self.session(request.conversation_id, await self._user(sid))
            room = session_room(session.id)
            await self.claim(session)
            try:
                await self.sio.enter_room(sid, room)
                await self.sio.emit("chat:send", {**request.to_dict(), "conversation_id": session.id}, room=room)

                async def broadcast(name: str, event_payload: Any) -> None:
                    await self.to_room(room, name, event_payload)

                status = await self.turn(session, request, broadcast)
            finally:
                await self.release(session)
        except ClientError as error:
            return await self._refuse(sid, error)
        return {"sessionId": session.id, "status": status}

    def _decode(self, name: str, payload: Any) -> Any:
        try:
            return decode(name, payload)
        except ValidationError as exc:
            raise ClientError.invalid(exc) from None

    def _broadcast(self, session: Session) -> Callable[[str, Any], Any]:
        room = session_room(session.id)

        async def broadcast(name: str, event_payload: Any) -> None:
            await self.to_room(room, name, event_payload)

        return broadcast

    async def on_cancel(self, sid: str, payload: Any = None, *extra: Any) -> dict[str, Any]:
        try:
            user = await self._user(sid)
            request: ChatCancel = self._decode("chat:cancel", payload)
            session, turn = await self.running(request.session_id, user)
            if request.turn_id is not None and request.turn_id != turn.id:
                raise ClientError("protocol", "turnId", "turnId: not the running turn of this session", 409)
        except ClientError as error:
            return await self._refuse(sid, error)
        reason = "the turn was cancelled"
        if session.outbox is None:  # waiting for approval: no task drives the turn, this one does
            await self.cancel_waiting(session, turn, reason)
        else:  # a task drives it: note the cancel, then wake a stream read so the turn sees it now
            await asyncio.get_running_loop().run_in_executor(None, _cancel, turn, reason)
            session.reader.stop()
        return {"sessionId": session.id, "turnId": turn.id, "status": "cancelled"}

    async def cancel_waiting(self, session: Session, turn: AgentTurn, reason: str) -> None:
        """Cancel a turn that waits for approval (no task drives it): its events go to the room; free the session."""
        def work() -> str:
            _cancel(turn, reason)
            return "cancelled"

        await self.drive(session, self._broadcast(session), work)
        await self.release(session)

    async def on_approval(self, sid: str, payload: Any = None, *extra: Any) -> dict[str, Any]:
        try:
            user = await self._user(sid)
            response: ToolApprovalResponse = self._decode("tool:approval:response", payload)
            session, turn = await self.running(response.session_id, user)
            calls = {message_id: call_id for call_id, message_id in turn.tool_messages.items()}
            call_id = calls.get(response.id)
            if turn.state != "approval" or call_id not in {item.id for item in turn.pending}:
                raise ClientError("unknown", "id", "id: no tool call of this session waits for approval under this id", 409)
            try:
                session.reducer.apply(response)
            except ValidationError as exc:
                raise ClientError.invalid(exc) from None
            if response.approved:
                turn.approve(call_id)
            else:
                turn.deny(call_id, response.reason)
        except ClientError as error:
            return await self._refuse(sid, error)
        if turn.state == "approval":  # other calls still wait
            return {"sessionId": session.id, "status": "pending"}
        try:
            status = await self.drive(session, self._broadcast(session), lambda: turn.run(self.model_for(session)).status)
        finally:
            await self.release(session)
        return {"sessionId": session.id, "status": status}

    async def on_other(self, event: str, sid: str, *payload: Any) -> None:
        await self._refuse(sid, ClientError(
            "unknown", "event", "event: clients send only chat:init, chat:send, chat:cancel and tool:approval:response"))

    # -- HTTP: the page, the client script, POST /api/chat

    async def http(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        if scope["type"] != "http":
            return
        method, path = scope["method"], scope["path"]
        if path == "/" and method == "GET":
            await _respond(send, 200, (HERE / "static" / "index.html").read_bytes(), "text/html; charset=utf-8")
        elif path == "/socket.io.min.js" and method == "GET":
            if CLIENT_JS.is_file():
                await _respond(send, 200, CLIENT_JS.read_bytes(), "text/javascript; charset=utf-8")
            else:
                await _respond(send, 404, b"// run `npm install` in examples/web_chat to copy socket.io-client here\n",
                               "text/javascript; charset=utf-8")
        elif path == "/api/chat" and method == "POST":
            await self.api_chat(scope, receive, send)
        elif path in UI_ENDPOINTS and method == "POST":
            await self.api_ui(UI_ENDPOINTS[path], scope, receive, send)
        elif path == "/api/aisdk" and method == "GET":
            await self.ui_history(scope, send)
        elif path in ("/", "/socket.io.min.js", "/api/chat", *UI_ENDPOINTS):
            await _json(send, 405, ClientError("method", "method", "method: not allowed here").payload())
        else:
            await _json(send, 404, ClientError("unknown", "path", "path: no such endpoint").payload())

    async def api_chat(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        try:
            try:
                payload = _parse_body(await _read_body(receive, headers))
            except ValidationError as exc:
                raise ClientError.invalid(exc) from None
            request = self.stamped(self.request(payload))
            auth = headers.get("authorization", "")
            token = auth[7:] if auth.startswith("Bearer ") else None
            if token is not None and not TOKEN.fullmatch(token):
                raise ClientError("token", "authorization", "authorization: must be 'Bearer <8 to 256 token characters>'", 401)
            session = await self.session(request.conversation_id, user_of(token) if token else f"anon:{uuid.uuid4().hex}")
            await self.claim(session)
        except ClientError as error:
            await _json(send, error.status, error.payload())
            return
        try:
            await self.stream(session, request, send)
        finally:
            await self.release(session)

    async def stream(self, session: Session, request: ChatRequest, send: Any) -> None:
        """Answer a claimed ``POST /api/chat`` with the turn's events as Server-Sent Events."""
        await send({"type": "http.response.start", "status": 200, "headers": [
            (b"content-type", b"text/event-stream; charset=utf-8"), (b"cache-control", b"no-cache"),
            (b"x-session-id", session.id.encode())]})
        room = session_room(session.id)
        await self.sio.emit("chat:send", {**request.to_dict(), "conversation_id": session.id}, room=room)
        gone = False

        async def stream(name: str, event_payload: Any) -> None:
            nonlocal gone
            await self.to_room(room, name, event_payload)  # web clients in the room see it too
            if not gone:
                data = json.dumps(event_payload, ensure_ascii=False)
                try:
                    await send({"type": "http.response.body", "more_body": True,
                                "body": f"event: {name}\ndata: {data}\n\n".encode()})
                except OSError:  # the client went away; the turn still ends and is stored
                    gone = True

        await self.turn(session, request, stream)
        if not gone:
            await send({"type": "http.response.body", "body": b"", "more_body": False})

    # -- the front-ends' protocols: AG-UI (HttpAgent, CopilotKit) and the AI SDK UI message stream (useChat)

    async def api_ui(self, protocol: str, scope: dict[str, Any], receive: Any, send: Any) -> None:
        """Answer ``POST /api/agui`` (a ``RunAgentInput``) or ``POST /api/aisdk`` (``useChat``'s body) with SSE.

        A new user message starts a turn; the answers to a paused turn's approvals (AG-UI
        ``resume``, AI SDK approval responses) continue it, as a new run (AG-UI) or the same
        assistant message (AI SDK). A client that hangs up cancels the turn it started (useChat's
        ``stop()``, ``HttpAgent.abortRun()``). Bad input is answered with the protocol's own error
        event (AG-UI ``RUN_ERROR``, AI SDK ``error``) naming the path, rule and code; only a body that
        cannot be read at all (its type, its size) gets a 4xx JSON body like ``POST /api/chat``.
        """
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        try:
            body = await _read_body(receive, headers)
        except ClientError as error:
            await _json(send, error.status, error.payload())
            return
        translator: agui.AguiRun | aisdk.AiSdkStream
        request: ChatRequest | None = None
        sent: tuple[Any, ...] = ()
        answers: list[tuple[str, ToolResult]] = []  # the client's tools' results: (call id, result)
        try:
            payload = _parse_body(body)
            if protocol == "agui":
                run_input = agui.parse_run_input(payload, max_image_bytes=MAX_IMAGE)
                session_id, message, decisions = run_input.thread_id, run_input.message, run_input.decisions
                message_id, tools, results = run_input.message_id, run_input.tools, run_input.results
            else:
                chat_input = aisdk.parse_request(payload, max_image_bytes=MAX_IMAGE)
                session_id, message, decisions = chat_input.chat_id, chat_input.message, chat_input.decisions
                message_id, sent, tools, results = chat_input.message_id, chat_input.sent, chat_input.tools, chat_input.results
            self.check_client_tools(tools)
            user = _http_user(headers)
            if message is not None:
                request = self.stamped(_chat_request(message, session_id))
                session = await self.session(session_id, user)
                waiting = session.turn
                paused = (session.busy and waiting is not None and waiting.state in ("approval", "client")
                          and session.outbox is None)
                if protocol == "aisdk" and (paused or not session.busy):
                    self.check_history(session, sent)
                if paused:
                    assert waiting is not None
                    # an HTTP client cannot send chat:cancel: its new message ends the turn it left waiting
                    await self.cancel_waiting(session, waiting, SUPERSEDED)
                await self.claim(session)
                self.ui_paused.pop(session.id, None)
                init = session.reducer.to_init()
                # the client's id for its message, where that keeps what it holds equal to the store: always for
                # the AI SDK (check_history), for AG-UI on a new thread (later, MESSAGES_SNAPSHOT gives the ids)
                if (message_id is not None and SESSION_ID.fullmatch(message_id) and not session.reducer.knows(message_id)
                        and (protocol == "aisdk" or not init.messages)):
                    request = replace(request, id=message_id)
                if protocol == "agui":
                    history = None
                    if init.messages:  # a thread with history: the run begins with MESSAGES_SNAPSHOT
                        entry = UserEntry(id=request.id, content=request.message, timestamp=request.timestamp or now())
                        history = replace(init, messages=(*init.messages, entry))
                    translator = agui.AguiRun(thread_id=session.id, run_id=run_input.run_id, history=history)
                else:
                    assert request.id is not None
                    translator = aisdk.AiSdkStream(message_id=aisdk.answer_id(request.id))
                opening: list[dict[str, Any]] = []
            else:
                if decisions:
                    session, turn, translator = await self.ui_decide(protocol, session_id, user, decisions, sent)
                else:
                    session, turn, translator, answers = await self.ui_results(protocol, session_id, user, results, sent)
                if isinstance(translator, agui.AguiRun):
                    opening = translator.resume(run_input.run_id, history=answered_history(session, turn, answers))
                else:
                    opening = translator.resume()
        except HistoryConflict as error:
            await _json(send, error.status, error.payload())
            return
        except (ValidationError, ClientError) as exc:
            refusal = exc if isinstance(exc, ValidationError) else ValidationError(exc.error.split(": ", 1)[-1], exc.path, exc.code)
            events = agui.error_events(refusal) if protocol == "agui" else aisdk.error_chunks(refusal)
            await _sse_once(send, protocol, events)
            return
        try:
            if request is not None:
                start = request

                async def run(sink: Callable[[str, Any], Any]) -> str:
                    return await self.turn(session, start, sink, tools)
            else:
                def go_on() -> str:
                    for call_id, result in answers:  # the client's results, then the turn goes on
                        turn.answer(call_id, result.content, is_error=result.is_error)
                    return turn.run(self.model_for(session)).status

                async def run(sink: Callable[[str, Any], Any]) -> str:
                    return await self.drive(session, sink, go_on)

            await self.ui_stream(session, request, protocol, translator, opening, run, send, receive)
        finally:
            await self.release(session)

    def check_client_tools(self, tools: tuple[ToolDefinition, ...]) -> None:
        """Refuse a front-end tool that has the name of one of the server's own tools."""
        own = {tool.name for tool in self.recipes.tools()}
        for i, tool in enumerate(tools):
            if tool.name in own:
                raise ValidationError("the server has a tool of this name; rename the client's", f"tools[{i}].name", "unique")

    async def ui_results(self, protocol: str, session_id: str, user: str, results: tuple[ToolResult, ...],
                         sent: tuple[Any, ...]) -> tuple[Session, AgentTurn, Any, list[tuple[str, ToolResult]]]:
        """Check the results of the client's tools for a turn waiting for them; return it, its translator and the answers.

        Each result must answer a call the turn waits for (an unknown id, or one answered already,
        is refused), and every such call needs one. The AI SDK resends the whole assistant message:
        its other tool parts are held against the stored chat and are not results.
        """
        session, turn = await self.running(session_id, user)
        translator = self.ui_paused.get(session.id)
        kind = agui.AguiRun if protocol == "agui" else aisdk.AiSdkStream
        if turn.state != "client" or not isinstance(translator, kind):
            raise ClientError("protocol", "messages", "messages: no run of this protocol waits for tool results in this session",
                              409)
        calls = {message_id: call_id for call_id, message_id in turn.tool_messages.items()}
        waiting = {item.id for item in turn.client_calls}
        if protocol == "aisdk":
            self.check_history(session, sent, [turn.tool_messages[call_id] for call_id in waiting])
            results = tuple(result for result in results if calls.get(result.id) in waiting)
        answers: dict[str, ToolResult] = {}
        for result in results:
            call_id = calls.get(result.id)
            if call_id not in waiting or call_id in answers:
                raise ClientError("unknown", "messages", "messages: no tool call of this session waits for a result under "
                                  "this id", 409)
            answers[call_id] = result
        if set(answers) != waiting:
            raise ClientError("value", "messages", "messages: every tool call the client runs needs its result")
        del self.ui_paused[session.id]  # from here on, no other request answers these calls
        return session, turn, translator, list(answers.items())

    async def ui_history(self, scope: dict[str, Any], send: Any) -> None:
        """Answer ``GET /api/aisdk?id=<chat id>`` with the caller's stored chat as ``{"messages": UIMessage[]}``.

        What a client that joins a chat (a new tab, a reload) starts ``useChat`` from; the ids are
        those ``check_history`` holds the next request's messages to.
        """
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        try:
            try:
                query = urllib.parse.parse_qs(scope.get("query_string", b"").decode("latin-1"), max_num_fields=4)
            except ValueError:  # more fields than a chat's id needs
                raise ClientError("size", "query", "query: only id=<chat id> is read") from None
            ids = query.get("id", [])
            if len(ids) != 1:
                raise ClientError("missing", "id", "id: name the chat once: GET /api/aisdk?id=<chat id>")
            session = await self.session(ids[0], _http_user(headers))
            messages = aisdk.ui_messages(session.reducer.to_init())
        except ClientError as error:
            await _json(send, error.status, error.payload())
            return
        await _json(send, 200, {"messages": messages})

    async def ui_decide(self, protocol: str, session_id: str, user: str, decisions: tuple[Decision, ...],
                        sent: tuple[Any, ...] = ()) -> tuple[Session, AgentTurn, Any]:
        """Apply the answers to a turn paused for approval over ``protocol``; return it and its translator.

        ``sent``: the AI SDK client's messages, held against the stored conversation first.
        """
        where = "resume" if protocol == "agui" else "messages"
        session, turn = await self.running(session_id, user)
        translator = self.ui_paused.get(session.id)
        kind = agui.AguiRun if protocol == "agui" else aisdk.AiSdkStream
        if turn.state != "approval" or not isinstance(translator, kind):
            raise ClientError("protocol", where, f"{where}: no run of this protocol waits for approval in this session", 409)
        calls = {message_id: call_id for call_id, message_id in turn.tool_messages.items()}
        pending = {item.id for item in turn.pending}
        self.check_history(session, sent, [turn.tool_messages[call_id] for call_id in pending])
        chosen: dict[str, Decision] = {}
        for decision in decisions:
            call_id = calls.get(decision.id)
            if call_id not in pending:
                raise ClientError("unknown", where, f"{where}: no tool call of this session waits for approval under this id", 409)
            chosen[call_id] = decision
        if set(chosen) != pending:
            raise ClientError("value", where, f"{where}: every tool call that waits for approval needs an answer")
        for call_id, decision in chosen.items():  # no await from the check to here: nobody decides in between
            try:
                session.reducer.apply(ToolApprovalResponse(session_id=session.id, id=decision.id,
                                                           approved=decision.approved, reason=decision.reason))
            except ValidationError as exc:
                raise ClientError.invalid(exc) from None
            if decision.approved:
                turn.approve(call_id)
            else:
                turn.deny(call_id, decision.reason)
        del self.ui_paused[session.id]
        return session, turn, translator

    def check_history(self, session: Session, sent: tuple[Any, ...], waiting: Iterable[str] = ()) -> None:
        """Refuse an AI SDK client's messages that are not the session's stored conversation (or its beginning)."""
        try:
            aisdk.check_history(sent, session.reducer.to_init(), waiting=waiting)
        except ValidationError as exc:
            raise HistoryConflict(exc.code, exc.path, str(exc), 409) from None

    async def ui_stream(self, session: Session, request: ChatRequest | None, protocol: str, translator: Any,
                        opening: list[dict[str, Any]], run: Callable[[Callable[[str, Any], Any]], Any],
                        send: Any, receive: Any) -> None:
        """Run (or continue) a claimed turn, streaming each event translated to a front-end protocol (and to the room)."""
        head = dict(aisdk.HEADERS) if protocol == "aisdk" else {"content-type": agui.CONTENT_TYPE, "cache-control": "no-cache"}
        head["x-session-id"] = session.id
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(k.encode(), v.encode()) for k, v in head.items()]})
        room = session_room(session.id)
        if request is not None:
            await self.sio.emit("chat:send", {**request.to_dict(), "conversation_id": session.id}, room=room)
        gone = False

        async def write(body: bytes, more: bool = True) -> None:
            nonlocal gone
            if not gone:
                try:
                    await send({"type": "http.response.body", "body": body, "more_body": more})
                except OSError:  # the client went away; the turn still ends and is stored
                    gone = True

        async def sink(name: str, event_payload: Any) -> None:
            await self.to_room(room, name, event_payload)  # web clients in the room see it too
            try:
                events = translator.translate_wire(name, event_payload)
            except ValidationError as exc:  # an event the protocol cannot carry now: logged, never fatal
                log.error("the %s translator refused %s: %s", protocol, name, exc.code)
                return
            if events:
                await write(b"".join(aisdk.sse(event) for event in events))

        async def hang_up() -> None:  # the client went away (stop(), abortRun()): cancel its turn
            while (await receive())["type"] != "http.disconnect":
                pass
            turn = session.turn
            if turn is not None and turn.state != "done":
                await asyncio.get_running_loop().run_in_executor(None, _cancel, turn, "the client went away")
                session.reader.stop()

        if opening:
            await write(b"".join(aisdk.sse(event) for event in opening))
        watch = asyncio.ensure_future(hang_up())
        try:
            status = await run(sink)
        finally:
            watch.cancel()
        waiting: list[str] = []
        if status in ("approval", "client"):
            self.ui_paused[session.id] = translator
            if status == "client" and session.turn is not None:
                waiting = [session.turn.tool_messages[item.id] for item in session.turn.client_calls]
        closing = translator.close(waiting)
        await write(b"".join(aisdk.sse(event) for event in closing) + (aisdk.DONE if protocol == "aisdk" else b""), False)


def answered_history(session: Session, turn: AgentTurn, answers: list[tuple[str, ToolResult]]) -> ChatInit | None:
    """Return the session's history as it is once the client's tool results are in (None without results).

    An AG-UI run that goes on from them begins with it as ``MESSAGES_SNAPSHOT``: the client's own
    tool messages give way to the stored results, so later snapshots keep the client's messages in place.
    """
    if not answers:
        return None
    init = session.reducer.to_init()
    done = {turn.tool_messages[call_id]: result for call_id, result in answers}
    stamp = now()
    entries = []
    for entry in init.messages:
        result = done.get(entry.id) if isinstance(entry, ToolEntry) else None
        if result is not None:
            error = (result.content or "the tool failed") if result.is_error else None
            try:
                entry = replace(entry, status="completed" if error is None else "error", content=result.content,
                                completed_at=stamp, error=error)
            except ValidationError:  # the run goes on without the snapshot: the results are taken already
                return None
        entries.append(entry)
    return replace(init, messages=tuple(entries))


class HistoryConflict(ClientError):
    """A front-end's messages that differ from the stored conversation: answered with HTTP 409 and a JSON body."""


def _not_yours(user: str) -> ClientError:
    """Return the refusal of another user's session; an anonymous caller learns how to continue one."""
    hint = (" (a caller without a token is a new user each time: send a token, over HTTP "
            "'Authorization: Bearer <token>', over Socket.IO auth {token}, to continue a session)")
    return ClientError("forbidden", "sessionId", "sessionId: this session is not yours"
                       + (hint if user.startswith("anon:") else ""), 403)


def _http_user(headers: dict[str, str]) -> str:
    """Return who an HTTP caller is: its bearer token, or a new anonymous user."""
    auth = headers.get("authorization", "")
    token = auth[7:] if auth.startswith("Bearer ") else None
    if token is not None and not TOKEN.fullmatch(token):
        raise ClientError("token", "authorization", "authorization: must be 'Bearer <8 to 256 token characters>'", 401)
    return user_of(token) if token else f"anon:{uuid.uuid4().hex}"


def _chat_request(message: ChatMessage, session_id: str) -> ChatRequest:
    """Return the ``chat:send`` of a front-end's user message (this backend's shape: text and one image)."""
    content = message.content
    if isinstance(content, str) or content is None:
        return ChatRequest(message=content or "", conversation_id=session_id)
    texts = [part.text for part in content if isinstance(part, TextPart)]
    images = [part for part in content if isinstance(part, ImagePart)]
    if len(images) > 1:
        raise ValidationError("this backend takes one image per message", "messages", "unsupported")
    image = None
    if images:
        source = images[0].source
        assert source.data is not None and source.media_type is not None  # the parsers make base64 sources
        image = ImageAttachment(data=source.data, media_type=source.media_type)
    return ChatRequest(message="\n".join(texts), conversation_id=session_id, image=image)


async def _sse_once(send: Any, protocol: str, events: list[dict[str, Any]]) -> None:
    """Answer a front-end request that cannot run: its protocol's error event(s), then the end."""
    headers = aisdk.HEADERS if protocol == "aisdk" else {"content-type": agui.CONTENT_TYPE, "cache-control": "no-cache"}
    body = b"".join(aisdk.sse(event) for event in events) + (aisdk.DONE if protocol == "aisdk" else b"")
    await send({"type": "http.response.start", "status": 200,
                "headers": [(k.encode(), v.encode()) for k, v in headers.items()]})
    await send({"type": "http.response.body", "body": body})


def coalesce(events: list[tuple[str, dict[str, Any]]]) -> list[tuple[str, dict[str, Any]]]:
    """Merge consecutive ``message:chunk`` events of one message into one (their texts joined).

    The turn's events wait in a queue while the previous ones are sent to every client of the
    room; sending what waited as fewer events costs each client one frame instead of many, and
    adds no delay (nothing waits for more). The text, its order and every other event are kept.

    >>> coalesce([("message:chunk", {"id": "m1", "chunk": "Hel"}), ("message:chunk", {"id": "m1", "chunk": "lo"}),
    ...           ("progress", {"status": "running"}), ("message:chunk", {"id": "m1", "chunk": "!"})])
    [('message:chunk', {'id': 'm1', 'chunk': 'Hello'}), ('progress', {'status': 'running'}), ('message:chunk', {'id': 'm1', 'chunk': '!'})]
    """
    out: list[tuple[str, dict[str, Any]]] = []
    pieces: list[str] = []
    for name, payload in events:
        if name == "message:chunk" and out and out[-1][0] == name and out[-1][1]["id"] == payload["id"]:
            pieces.append(payload["chunk"])
            continue
        if len(pieces) > 1:
            out[-1] = (out[-1][0], {**out[-1][1], "chunk": "".join(pieces)})
        out.append((name, payload))
        pieces = [payload["chunk"]] if name == "message:chunk" else []
    if len(pieces) > 1:
        out[-1] = (out[-1][0], {**out[-1][1], "chunk": "".join(pieces)})
    return out


def user_of(token: str) -> str:
    """The caller a token names; its hash, so the token itself is kept nowhere (Redis included)."""
    return "token:" + hashlib.sha256(token.encode()).hexdigest()[:32]


def _parse_body(body: bytes) -> Any:
    """Parse a request body; a ``ValidationError`` at ``body`` (code ``json``, or ``depth`` past the parser's nesting)."""
    try:
        return json.loads(body)
    except (UnicodeDecodeError, ValueError):
        raise ValidationError("must be a JSON object", "body", "json") from None
    except RecursionError:
        raise ValidationError("nested too deeply", "body", "depth") from None


def deadline_protocol(head: float, body: float) -> type[asyncio.Protocol]:
    """Return uvicorn's h11 protocol with a deadline for each request's head and one for its body.

    A request whose line and headers have not arrived ``head`` seconds after the connection was
    made (or after the previous answer on it), or whose body has not arrived ``body`` seconds
    after them, is answered 408 with this backend's JSON error (``code: "timeout"``; unless an
    answer has started) and its connection closed: a client sending a byte a second holds a
    connection for a bounded time, on every endpoint (Socket.IO's polling requests included).
    """
    late = {phase: json.dumps(ClientError("timeout", phase, f"{phase}: not received within {limit:g} s",
                                          408).payload()).encode()
            for phase, limit in (("headers", head), ("body", body))}

    class Deadlines(H11Protocol):
        _phase = ""
        _timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self._watch()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            self._watch()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._watch()

        def connection_lost(self, exc: Exception | None) -> None:
            self._arm("")
            super().connection_lost(exc)

        def _watch(self) -> None:
            state = self.conn.their_state  # IDLE: waiting for a request's head; SEND_BODY: for its body
            if self.transport.get_protocol() is not self:  # handed over to a WebSocket: no HTTP request any more
                state = None
            self._arm("headers" if state is h11.IDLE else "body" if state is h11.SEND_BODY else "")

        def _arm(self, phase: str) -> None:
            if phase == self._phase:
                return
            if self._timer is not None:
                self._timer.cancel()
            self._phase, self._timer = phase, None
            if phase and not self.transport.is_closing():
                self._timer = self.loop.call_later(head if phase == "headers" else body, self._late)

        def _late(self) -> None:
            phase, self._phase, self._timer = self._phase, "", None
            if self.transport.is_closing():
                return
            if phase == "headers" or self.cycle is None or not self.cycle.response_started:
                self.transport.write(b"HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\n"
                                     b"connection: close\r\ncontent-length: %d\r\n\r\n%s" % (len(late[phase]), late[phase]))
            self.transport.close()

    return Deadlines


def whole_bodies(app: Any) -> Any:
    """Wrap an ASGI app: it sees an HTTP request once its whole body (at most ``MAX_BODY`` bytes) has arrived.

    A body over ``MAX_BODY`` is answered 413 at once; a client that hangs up (or is cut by
    ``deadline_protocol``) before its body is complete never reaches the app, so no handler
    (python-engineio's included) reads a truncated body as a whole one.
    """
    async def whole(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await app(scope, receive, send)
        length = dict(scope["headers"]).get(b"content-length", b"0")
        chunks, size, more = [], 0, True
        while more and length.isdigit() and int(length) <= MAX_BODY and size <= MAX_BODY:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            more = message.get("more_body", False)
        if more or size > MAX_BODY:
            return await _json(send, 413, ClientError("too_large", "body", f"body: must be at most {MAX_BODY} bytes",
                                                      413).payload())
        pending = [{"type": "http.request", "body": b"".join(chunks), "more_body": False}]

        async def replay() -> Any:
            return pending.pop() if pending else await receive()

        return await app(scope, replay, send)

    return whole


async def _read_body(receive: Any, headers: dict[str, str]) -> bytes:
    """Return a JSON request's body (``whole_bodies`` has read it, bounded)."""
    if not headers.get("content-type", "").startswith("application/json"):
        raise ClientError("content_type", "content-type", "content-type: must be application/json", 415)
    return bytes((await receive()).get("body", b""))


async def _respond(send: Any, status: int, body: bytes, content_type: str) -> None:
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", content_type.encode()), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


async def _json(send: Any, status: int, payload: dict[str, Any]) -> None:
    await _respond(send, status, json.dumps(payload).encode(), "application/json")


def open_store(spec: str) -> MessageStore:
    """The store a ``--store`` names: a SQLite file (or ``:memory:``), or a ``postgresql://`` URL (psycopg)."""
    try:
        return MessageStore(spec)
    except ProcessingError as exc:  # StoreError, or psycopg missing: one clear line, never a traceback
        sys.exit(f"--store {store_name(spec)}: {exc}")


def check_redis(url: str) -> None:
    """Exit with a clear line when ``--redis`` names a Redis that cannot be reached at startup."""
    try:
        import redis
    except ImportError:
        sys.exit('--redis needs the redis package: pip install -e ".[web]"')
    client = redis.Redis.from_url(url, socket_connect_timeout=5, socket_timeout=5)
    try:
        client.ping()
    except (redis.RedisError, OSError, ValueError) as exc:
        sys.exit(f"--redis: redis at {redis_address(url)} cannot be reached ({type(exc).__name__})")
    finally:
        client.close()


def _cancel(turn: AgentTurn, reason: str) -> None:
    try:
        turn.cancel(reason)
    except AgentStateError:  # it ended meanwhile: nothing to cancel
        pass


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="server.py", description="The agentmsg reference chat backend.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--store", default="web_chat.db",
                        help="the conversations: a SQLite file (or :memory:), or postgresql://... for several processes")
    parser.add_argument("--redis", metavar="URL",
                        help="redis://host:port/db shared by several server processes (room broadcasts, owners, locks)")
    parser.add_argument("--model", choices=("scripted", "anthropic", "openai", "ollama"), default="scripted")
    parser.add_argument("--model-name", help="the provider's model name (a default per provider)")
    parser.add_argument("--ask", action="append", default=[], metavar="TOOL",
                        help="ask the user before running TOOL (tool:approval:request); repeatable")
    parser.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                        help="a parameter of each model request (VALUE is JSON, else text): temperature=0, "
                             "stream=false; also the codec's options (openai: empty_content='\"\"'); repeatable")
    parser.add_argument("--tool-choice", metavar="TOOL",
                        help="--model openai: the first model call of each turn must call TOOL (or: auto, required, "
                             "none); the calls after tool results go without tool_choice")
    parser.add_argument("--head-timeout", type=float, default=HEAD_TIMEOUT, metavar="SECONDS",
                        help="the time a request's line and headers may take (then: 408, and the connection closed)")
    parser.add_argument("--body-timeout", type=float, default=BODY_TIMEOUT, metavar="SECONDS",
                        help="the time a request's body may take after its headers (then: 408, and the connection closed)")
    args = parser.parse_args(argv)
    if not (args.head_timeout > 0 and args.body_timeout > 0):
        parser.error("--head-timeout and --body-timeout take a number of seconds over 0")
    if args.tool_choice is not None and args.model != "openai":
        parser.error("--tool-choice goes with --model openai")
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    if args.model == "scripted":
        provider, model, params = anthropic, scripted_model, {"model": "claude-haiku-4-5", "max_tokens": 1024, "stream": True}
    else:
        provider, model, params = http_model(args.model, args.model_name)
    params = model_params(provider, params, args.param)
    if args.tool_choice is not None:
        model = first_call_tool_choice(model, args.tool_choice)
    if args.redis:
        check_redis(args.redis)
    recipes_cmd = [sys.executable, str(HERE / "recipes_mcp.py")]
    with open_store(args.store) as store, McpClient(recipes_cmd, name="recipes", timeout=60) as recipes:
        chat = ChatServer(store, recipes, provider, model, params, redis=args.redis, ask=tuple(args.ask))
        where = f", redis: {redis_address(args.redis)}" if args.redis else ""
        print(f"chat backend on http://{args.host}:{args.port}/ (model: {args.model}, store: {store_name(args.store)}{where})",
              flush=True)
        uvicorn.run(whole_bodies(chat.app), host=args.host, port=args.port, log_level="warning", lifespan="on",
                    http=deadline_protocol(args.head_timeout, args.body_timeout))
    return 0


def store_name(spec: str) -> str:
    """A ``--store`` for log lines: a URL without its user name or password."""
    if "://" not in spec:
        return spec
    parsed = urllib.parse.urlsplit(spec)
    return f"{parsed.scheme}://{parsed.hostname or ''}{':' + str(parsed.port) if parsed.port else ''}{parsed.path}"


if __name__ == "__main__":
    sys.exit(main())
