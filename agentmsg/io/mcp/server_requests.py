"""The server's requests answered for one client: ping, roots, sampling, elicitation; its log messages.

>>> McpRoot("file:///home/me/project", "project").to_dict()
{'uri': 'file:///home/me/project', 'name': 'project'}
>>> sent = []
>>> answers = ServerRequests("docs", sent.append, roots=[McpRoot("file:///home/me/project")])
>>> answers.capabilities()
{'roots': {'listChanged': True}}
>>> answers.handle({"jsonrpc": "2.0", "id": "r1", "method": "roots/list"})
>>> answers.handle({"jsonrpc": "2.0", "id": "r2", "method": "sampling/createMessage", "params": {}})
>>> sent[0]["result"], sent[1]["error"]["code"]
({'roots': [{'uri': 'file:///home/me/project'}]}, -32601)

Theory of operation. A server may ask its client for things: ``ping``, ``roots/list`` (the
folders the host lets it see), ``sampling/createMessage`` (a completion from the host's model)
and ``elicitation/create`` (input from the user). ``ServerRequests`` answers them for one
``McpClient``: ``ping`` and ``roots/list`` at once, on the thread that read the request;
sampling and elicitation on a thread of their own that calls the host's handler, because a
model or a person takes a while. Each handler runs under ``handler_timeout``: when it passes,
the server gets an error (sampling) or ``cancel`` (elicitation) and a late answer is dropped.
At most ``MAX_HANDLERS`` handlers run at once; a request beyond that, or one whose id is already
being handled, is refused at once, so a flood of requests costs an error reply each and no
thread. A server's ``notifications/cancelled`` drops the answer and sets the request's
``cancelled`` event, which a handler (or the UI showing an elicitation) may watch.

What the server receives never holds the text of a host's exception; the host's logs get the
exception's type (and its text at DEBUG). ``capabilities()`` declares only what the host gave:
``sampling`` for a sampling handler, ``elicitation`` (form and URL modes) for an elicitation
handler, ``roots`` (with ``listChanged``) for a list of roots. A request for something the host
did not give is refused with JSON-RPC error -32601, except an elicitation, which is declined.

``log_message`` writes a server's ``notifications/message`` to the ``agentmsg.io.mcp.server``
logger at the mapped level, without its data (a server's log data may hold anything); the data
goes to a DEBUG line. Above DEBUG, at most ``LOG_BURST`` lines a minute per server get through.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..._checks import type_name
from ...errors import ValidationError
from .elicitation import ElicitationRequest, ElicitationResponse, Elicitor
from .sampling import Sampler, SamplingRequest, SamplingResult

__all__ = ["McpRoot"]

log = logging.getLogger(__name__)
server_log = logging.getLogger(__name__.rpartition(".")[0] + ".server")

MAX_HANDLERS = 8
LOG_BURST = 100

# JSON-RPC error codes (the specification's, and MCP's -1 for a user's refusal)
_REFUSED = -1
_INVALID_REQUEST = -32600
_NOT_FOUND = -32601
_INVALID_PARAMS = -32602
_INTERNAL = -32603
_BUSY = -32000

LOG_LEVELS = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "notice": logging.INFO,
    "warning": logging.WARNING,
    "error": logging.ERROR,
    "critical": logging.CRITICAL,
    "alert": logging.CRITICAL,
    "emergency": logging.CRITICAL,
}



@dataclass(frozen=True, slots=True)
class McpRoot:
    """A folder or file the host lets MCP servers see: a ``file://`` URI and an optional name.

    >>> try:
    ...     McpRoot("https://example.com")
    ... except ValidationError as exc:
    ...     print(exc)
    uri: must be a file:// URI

    ``McpRoot.from_path(path)`` makes one from a local path.
    """

    uri: str
    name: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.uri, str):
            raise ValidationError(f"expected a string, got {type_name(self.uri)}", "uri", "type")
        if not self.uri.startswith("file://") or len(self.uri) > 4096:
            raise ValidationError("must be a file:// URI", "uri", "pattern")
        if self.name is not None and not isinstance(self.name, str):
            raise ValidationError(f"expected a string or null, got {type_name(self.name)}", "name", "type")

    @classmethod
    def from_path(cls, path: str | os.PathLike[str], name: str | None = None) -> McpRoot:
        """Return the root for a local path (made absolute)."""
        return cls(Path(path).resolve().as_uri(), name)

    def to_dict(self) -> dict[str, Any]:
        """Return MCP's ``Root`` shape."""
        return {"uri": self.uri} if self.name is None else {"uri": self.uri, "name": self.name}


def check_roots(roots: Iterable[McpRoot | str | os.PathLike[str]]) -> tuple[McpRoot, ...]:
    """Return ``roots`` as ``McpRoot``s: each an ``McpRoot``, a ``file://`` URI, or a local path."""
    if isinstance(roots, (str, bytes)) or not isinstance(roots, Iterable):
        raise TypeError("roots must be a list of McpRoot objects, file:// URIs or paths")
    out = []
    for index, root in enumerate(roots):
        try:
            if isinstance(root, McpRoot):
                out.append(root)
            elif isinstance(root, str) and root.startswith("file://"):
                out.append(McpRoot(root))
            elif isinstance(root, (str, os.PathLike)):
                out.append(McpRoot.from_path(root))
            else:
                raise ValidationError(f"expected an McpRoot, a URI or a path, got {type_name(root)}", "", "type")
        except ValidationError as exc:
            raise exc.prefixed(index).prefixed("roots") from None
    return tuple(out)



class _Answer:
    """One server request being handled: its reply is sent once (by the handler, the timer, or nobody)."""

    __slots__ = ("request_id", "cancelled", "_lock", "_done")

    def __init__(self, request_id: str | int, cancelled: threading.Event) -> None:
        self.request_id = request_id
        self.cancelled = cancelled
        self._lock = threading.Lock()
        self._done = False

    def claim(self) -> bool:
        """Return True once: the caller sends (or drops) the reply."""
        with self._lock:
            if self._done:
                return False
            self._done = True
            return True


Send = Callable[[dict[str, Any]], None]


class ServerRequests:
    """Answer one server's requests for one ``McpClient`` (see the module docstring).

    ``send(message)`` hands a reply to the transport (and logs, never raises, when it cannot).
    """

    def __init__(
        self,
        server: str,
        send: Send,
        *,
        sampling: Sampler | None = None,
        elicitation: Elicitor | None = None,
        roots: Iterable[McpRoot | str | os.PathLike[str]] | None = None,
        handler_timeout: float = 300.0,
    ) -> None:
        if sampling is not None and not callable(sampling):
            raise TypeError("sampling must be a callable (SamplingRequest -> SamplingResult)")
        if elicitation is not None and not callable(elicitation):
            raise TypeError("elicitation must be a callable (ElicitationRequest -> ElicitationResponse)")
        if isinstance(handler_timeout, bool) or not isinstance(handler_timeout, (int, float)) or not handler_timeout > 0:
            raise TypeError("handler_timeout must be a positive number of seconds")
        self.server = server
        self.send = send
        self.sampling = sampling
        self.elicitation = elicitation
        self.roots = None if roots is None else check_roots(roots)
        self.handler_timeout = float(handler_timeout)
        self._lock = threading.Lock()
        self._running: dict[tuple[str, str | int], _Answer] = {}
        self._log_window = (0.0, 0)

    def capabilities(self) -> dict[str, Any]:
        """Return the ``capabilities`` of ``initialize``: what the host gave, nothing more."""
        out: dict[str, Any] = {}
        if self.roots is not None:
            out["roots"] = {"listChanged": True}
        if self.sampling is not None:
            out["sampling"] = {}
        if self.elicitation is not None:
            out["elicitation"] = {"form": {}, "url": {}}
        return out

    def handle(self, message: Mapping[str, Any]) -> None:
        """Answer one request from the server (runs on the thread that read it; never blocks on a handler)."""
        request_id = message.get("id")
        if isinstance(request_id, bool) or not isinstance(request_id, (str, int)):
            self._reply(None, error=(_INVALID_REQUEST, "Invalid Request: an id must be a string or an integer"))
            return
        method = message.get("method")
        params = message.get("params")
        if params is None:
            params = {}
        if not isinstance(params, dict):
            self._reply(request_id, error=(_INVALID_PARAMS, "Invalid params: params must be an object"))
            return
        if method == "ping":
            self._reply(request_id, result={})
        elif method == "roots/list" and self.roots is not None:
            self._reply(request_id, result={"roots": [root.to_dict() for root in self.roots]})
        elif method == "sampling/createMessage" and self.sampling is not None:
            self._start(request_id, method, params)
        elif method == "elicitation/create":
            if self.elicitation is None:
                self._reply(request_id, result={"action": "decline"})
            else:
                self._start(request_id, method, params)
        else:
            what = str(method)[:80] if isinstance(method, str) else "this request"
            self._reply(request_id, error=(_NOT_FOUND, f"Method not found: this client does not offer {what}"))

    def _reply(self, request_id: str | int | None, *, result: Any = None, error: tuple[int, str] | None = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id}
        if error is not None:
            message["error"] = {"code": error[0], "message": error[1]}
        else:
            message["result"] = result
        self.send(message)

    def _start(self, request_id: str | int, method: str, params: dict[str, Any]) -> None:
        """Read the request, then run its handler on a thread of its own, within the limits."""
        try:
            request: SamplingRequest | ElicitationRequest = (
                SamplingRequest.from_params(self.server, params)
                if method == "sampling/createMessage"
                else ElicitationRequest.from_params(self.server, params)
            )
        except ValidationError as exc:
            self._reply(request_id, error=(_INVALID_PARAMS, f"Invalid params: {exc}"[:300]))
            return
        key = (type(request_id).__name__, request_id)
        with self._lock:
            if key in self._running:
                refusal: tuple[int, str] | None = (_INVALID_REQUEST, "Invalid Request: a request with this id is already being handled")
            elif len(self._running) >= MAX_HANDLERS:
                refusal = (_BUSY, f"this client handles at most {MAX_HANDLERS} requests at once; try again later")
            else:
                refusal = None
                answer = _Answer(request_id, request.cancelled)
                self._running[key] = answer
        if refusal is not None:
            self._reply(request_id, error=refusal)
            return
        timer = threading.Timer(self.handler_timeout, self._expire, (answer, method))
        timer.daemon = True
        worker = threading.Thread(target=self._work, args=(key, answer, method, request, timer), name="agentmsg-mcp-handler", daemon=True)
        timer.start()
        worker.start()

    def _work(self, key: tuple[str, str | int], answer: _Answer, method: str, request: Any, timer: threading.Timer) -> None:
        try:
            if method == "sampling/createMessage":
                outcome = self._sample(request)
            else:
                outcome = self._elicit(request)
        finally:
            timer.cancel()
            with self._lock:
                self._running.pop(key, None)
        if answer.claim():
            result, error = outcome
            self._reply(answer.request_id, result=result, error=error)
        else:
            log.debug("MCP server %r: a late answer to %s was dropped", self.server, method)

    def _sample(self, request: SamplingRequest) -> tuple[Any, tuple[int, str] | None]:
        assert self.sampling is not None
        try:
            result = self.sampling(request)
        except Exception as exc:
            _handler_failed(self.server, "sampling", exc)
            return None, (_INTERNAL, "the client could not sample a message")
        if result is None:
            return None, (_REFUSED, "the user declined the sampling request")
        if not isinstance(result, SamplingResult):
            log.error("MCP server %r: the sampling handler returned %s, not a SamplingResult", self.server, type_name(result))
            return None, (_INTERNAL, "the client could not sample a message")
        return result.to_dict(), None

    def _elicit(self, request: ElicitationRequest) -> tuple[Any, tuple[int, str] | None]:
        assert self.elicitation is not None
        try:
            response = self.elicitation(request)
        except Exception as exc:
            _handler_failed(self.server, "elicitation", exc)
            return {"action": "cancel"}, None
        if response is None:
            return {"action": "decline"}, None
        if not isinstance(response, ElicitationResponse):
            log.error("MCP server %r: the elicitation handler returned %s, not an ElicitationResponse", self.server, type_name(response))
            return {"action": "cancel"}, None
        if response.content is not None:
            try:
                request.check(response.content)
            except ValidationError as exc:
                log.warning("MCP server %r: the elicitation answer does not fit the requested schema (%s, %s)",
                            self.server, exc.path, exc.code)
                return None, (_INTERNAL, "the client's answer did not fit the requested schema")
        return response.to_dict(), None

    def _expire(self, answer: _Answer, method: str) -> None:
        """The handler's time is up: answer now (the handler's late answer is dropped)."""
        answer.cancelled.set()
        if not answer.claim():
            return
        log.warning("MCP server %r: the %s handler did not answer within %g s", self.server, method, self.handler_timeout)
        if method == "elicitation/create":
            self._reply(answer.request_id, result={"action": "cancel"})
        else:
            self._reply(answer.request_id, error=(_INTERNAL, "the client did not answer in time"))

    def cancelled(self, params: Mapping[str, Any]) -> None:
        """The server withdrew a request (``notifications/cancelled``): send no answer, tell its handler."""
        request_id = params.get("requestId")
        if isinstance(request_id, bool) or not isinstance(request_id, (str, int)):
            return
        with self._lock:
            answer = self._running.get((type(request_id).__name__, request_id))
        if answer is not None:
            answer.claim()
            answer.cancelled.set()

    def close(self) -> None:
        """Drop every answer still to come and tell each handler (``cancelled``)."""
        with self._lock:
            running = list(self._running.values())
        for answer in running:
            answer.claim()
            answer.cancelled.set()

    def log_message(self, params: Mapping[str, Any]) -> None:
        """Write a ``notifications/message`` to Python logging (see the module docstring)."""
        level_name = params.get("level")
        level = LOG_LEVELS.get(level_name, logging.INFO) if isinstance(level_name, str) else logging.INFO
        source = params.get("logger")
        source = source[:80] if isinstance(source, str) else None
        if level > logging.DEBUG and server_log.isEnabledFor(level):
            now = time.monotonic()
            start, seen = self._log_window
            if now - start > 60.0:
                start, seen = now, 0
            self._log_window = (start, seen + 1)
            if seen < LOG_BURST:
                server_log.log(level, "MCP server %r sent a log message at level %s (logger %r; its data is logged at DEBUG)",
                               self.server, str(level_name)[:20], source)
            elif seen == LOG_BURST:
                server_log.warning("MCP server %r: more than %d log messages this minute; the rest go to DEBUG only",
                                   self.server, LOG_BURST)
        if server_log.isEnabledFor(logging.DEBUG):
            try:
                data = json.dumps(params.get("data"), ensure_ascii=False, default=str)
            except (TypeError, ValueError, RecursionError):
                data = type_name(params.get("data"))
            server_log.debug("MCP server %r [%s] (logger %r): %s", self.server, str(level_name)[:20], source, data[:2000])


def _handler_failed(server: str, what: str, exc: Exception) -> None:
    log.warning("MCP server %r: the %s handler raised %s", server, what, type(exc).__name__)
    log.debug("MCP server %r: the %s handler raised", server, what, exc_info=True)


def check_log_level(level: object) -> str:
    """Return ``level`` if it is one of MCP's log levels (``debug`` ... ``emergency``); else ``ValidationError``."""
    if level not in LOG_LEVELS:
        raise ValidationError(f"must be one of {', '.join(LOG_LEVELS)}", "level", "value")
    return level
