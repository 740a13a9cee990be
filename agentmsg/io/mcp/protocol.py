"""The MCP wire protocol as this client speaks it: its versions, JSON-RPC 2.0 messages, ``McpError``.

>>> parse_message(b'{"jsonrpc": "2.0", "id": 1, "result": {}}')
{'jsonrpc': '2.0', 'id': 1, 'result': {}}
>>> parse_message(b"not json").code
'protocol'
>>> reply_result({"jsonrpc": "2.0", "id": 1, "result": {"tools": []}}, "tools/list")
{'tools': []}

A message is one JSON object. The transports ``encode`` what they send, and deliver what a server
sent as ``parse_message`` or ``check_message`` finds it: the message, or the ``McpError`` that
says why it is not one. ``reply_result`` turns a reply into its ``result`` object or raises the
error it stands for. ``ProgressCallback`` is the shape of an ``on_progress`` callback;
``Cancellation`` ends the requests it is given.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping
from typing import Any, Union

from ..._checks import type_name
from ...errors import ProcessingError

__all__ = ["PROTOCOL_VERSION", "Cancellation", "McpError"]

PROTOCOL_VERSION = "2025-11-25"
ACCEPTED_VERSIONS = frozenset({"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"})

ProgressCallback = Callable[[float, Union[float, None], Union[str, None]], None]


class McpError(ProcessingError):
    """An MCP exchange failed; ``code`` says how (a stable word), ``rpc_code`` the server's code.

    >>> err = McpError("server error -32002: Resource not found", code="server", rpc_code=-32002)
    >>> err.code, err.rpc_code, str(err)
    ('server', -32002, 'server error -32002: Resource not found')

    Codes: ``start`` (the command could not be started), ``closed`` (the server exited, closed
    its output, ended the HTTP session, or could not be reached), ``timeout`` (no reply in time,
    or a server that stopped reading its input), ``protocol`` (a malformed, unexpected or
    oversized message), ``http`` (the HTTP endpoint answered with an error status),
    ``server`` (the server answered with a JSON-RPC error; ``rpc_code`` and ``data`` keep it),
    ``cancelled`` (a ``Cancellation`` ended the request).
    ``stderr`` holds the last lines the server wrote to its standard error, for diagnostics.
    """

    def __init__(
        self,
        message: str,
        code: str = "protocol",
        rpc_code: int | None = None,
        data: Any = None,
        stderr: str = "",
    ) -> None:
        super().__init__(message, code)
        self.rpc_code = rpc_code
        self.data = data
        self.stderr = stderr

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.message, self.code, self.rpc_code, self.data, self.stderr))


class Cancellation:
    """A switch for requests in flight: ``cancel()`` ends each request given it, and tells its server.

    >>> switch = Cancellation()
    >>> switch.cancelled, switch.reason
    (False, None)
    >>> switch.cancel("the user left")
    >>> switch.cancelled, switch.reason
    (True, 'the user left')

    Pass it as ``cancel=`` to ``McpClient.request`` or ``call_tool``: a cancelled request raises
    ``McpError(code="cancelled")`` at once, and the server receives ``notifications/cancelled``
    with the request's id and the reason. A request started after ``cancel()`` raises without
    being sent. One switch may serve many requests (an agent turn's calls, say); it stays
    cancelled. ``cancel`` is safe from any thread and never waits for the server.
    """

    __slots__ = ("_lock", "_watchers", "reason")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._watchers: dict[int, Callable[[], None]] = {}
        self.reason: str | None = None

    def __repr__(self) -> str:
        return f"Cancellation(cancelled={self.cancelled})"

    @property
    def cancelled(self) -> bool:
        """Return whether ``cancel`` was called."""
        return self.reason is not None

    def cancel(self, reason: str = "cancelled by the client") -> None:
        """End every request this switch was given, now and from now on; ``reason`` goes to the server."""
        if not isinstance(reason, str) or not reason:
            raise TypeError("reason must be a non-empty string")
        with self._lock:
            if self.reason is not None:
                return
            self.reason = reason[:200]
            watchers, self._watchers = list(self._watchers.values()), {}
        for watcher in watchers:
            watcher()

    def watch(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call ``callback`` once when cancelled (at once if it already is); return what stops watching."""
        with self._lock:
            if self.reason is None:
                key = id(callback)
                self._watchers[key] = callback
                return lambda: self._forget(key)
        callback()
        return lambda: None

    def _forget(self, key: int) -> None:
        with self._lock:
            self._watchers.pop(key, None)


def encode(message: Mapping[str, Any]) -> bytes:
    """Return ``message`` as compact UTF-8 JSON (no NaN, no line break)."""
    return json.dumps(message, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")


def parse_message(data: bytes) -> dict[str, Any] | McpError:
    """Return the JSON-RPC message in ``data``, or the ``McpError`` that says why it is not one."""
    try:
        message = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return McpError("sent a line that is not a JSON-RPC message (invalid JSON)", "protocol")
    return check_message(message)


def check_message(message: object) -> dict[str, Any] | McpError:
    """Return ``message`` if it is a JSON-RPC 2.0 request, notification or reply, else the ``McpError``."""
    if not isinstance(message, dict):
        return McpError(f"sent a malformed message: expected a JSON object, got {type_name(message)}", "protocol")
    if message.get("jsonrpc") != "2.0":
        return McpError('sent a message whose "jsonrpc" is not "2.0"', "protocol")
    if "method" not in message and "id" not in message:
        return McpError("sent a reply without an id", "protocol")
    return message


def reply_result(reply: Mapping[str, Any], method: str) -> dict[str, Any]:
    """Return the ``result`` object of a reply to ``method``, or raise the ``McpError`` it stands for."""
    if "error" in reply:
        error = reply["error"]
        if not isinstance(error, dict) or type(error.get("code")) is not int:
            raise McpError(f"malformed error reply to {method}", "protocol")
        text = error.get("message")
        text = text[:200] if isinstance(text, str) else ""
        raise McpError(
            f"{method} failed with error {error['code']}: {text}", "server", rpc_code=error["code"], data=error.get("data")
        )
    result = reply.get("result")
    if not isinstance(result, dict):
        raise McpError(f"malformed reply to {method}: result must be an object, got {type_name(result)}", "protocol")
    return result
