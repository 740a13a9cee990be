"""MCP: a stdlib client (stdio and Streamable HTTP) for tools and resources, and a resource cache.

>>> cache = ResourceCache({}, max_age=3600, max_age_by_mime={"image/*": 60})
>>> cache.max_age_for("file:///logo.png", "image/png"), cache.max_age_for("file:///a.md", "text/markdown")
(60.0, 3600.0)
>>> McpToolResult.from_dict({"content": [{"type": "text", "text": "3 recipes"}], "isError": False}).text
'3 recipes'

Theory of operation. ``McpClient`` speaks JSON-RPC 2.0 through a *transport*: an object with
``open(deliver, lost)``, ``send(message, deadline)`` and ``close()``. Two ship here.
``StdioTransport`` starts the server command in a process group of its own and exchanges one
JSON message per line over its stdin and stdout; a reader thread hands each message to the
client as it arrives, a writer thread drains a short outbox into stdin (so a server that stops
reading can block only that thread, never a caller), and a third thread keeps a short tail of
stderr. ``HttpTransport`` is the Streamable HTTP transport of remote servers: each message is a
POST (``http.client``), answered by ``202 Accepted``, by one JSON body, or by a stream of
server-sent events that carries the server's requests and notifications and then the reply; the
``Mcp-Session-Id`` the server hands out at ``initialize`` goes with every later request.

The client keeps one table of requests waiting for their reply, keyed by id: a reply fills its
entry and wakes the caller, a reply nobody waits for any more is dropped, so concurrent requests
share one connection and every wait is bounded by its deadline. Nothing grows with what the
server sends: messages are dispatched as they arrive (``ping`` answered, ``notifications/progress``
routed to the waiting call's callback, ``notifications/tools/list_changed`` marks the tool list
stale, other requests refused with "method not found"), one message may not pass
``max_message_bytes``, stderr lines are cut to 500 characters and only the last 50 are kept, and
at most 256 messages wait for a server that stopped reading before the connection counts as
broken. ``close()`` (also run when a client is garbage-collected or the interpreter exits)
closes the server's input, gives it two seconds, then sends SIGTERM and SIGKILL to its whole
process group, so a ``sh -c``/``npx``/``uv run`` wrapper cannot leave its children behind; it
never waits on a pipe a straggler still holds. ``ResourceCache`` sits in front of one or more
clients and turns pending ``McpResource`` records into retrieved or failed ones.
"""

from __future__ import annotations

import collections
import http.client
import json
import logging
import os
import queue
import signal
import socket
import subprocess
import threading
import time
import urllib.parse
import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import IO, TYPE_CHECKING, Any, Protocol, Union

from .._checks import type_name
from .._frozen import FrozenDict, freeze_json, thaw_json
from ..content import ImagePart, ImageSource, TextPart
from ..errors import ProcessingError, ValidationError
from ..messages import ChatMessage, ToolResult
from ..records import McpResource
from ..tools import ToolDefinition, to_canonical_name, to_wire_name

if TYPE_CHECKING:
    from .execution import Tool

__all__ = [
    "PROTOCOL_VERSION",
    "McpError",
    "McpClient",
    "McpResourceInfo",
    "McpToolResult",
    "Transport",
    "StdioTransport",
    "HttpTransport",
    "ResourceCache",
]

log = logging.getLogger(__name__)

PROTOCOL_VERSION = "2025-11-25"
_ACCEPTED_VERSIONS = frozenset({"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"})
MAX_MESSAGE_BYTES = 32 * 1024 * 1024
_MAX_PAGES = 1000
_OUTBOX = 256
_STDERR_TAIL = 50
_STDERR_LINE = 500
_GRACE = 2.0

Deliver = Callable[[Union[dict[str, Any], "McpError"]], None]
Lost = Callable[["McpError"], None]
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
    ``server`` (the server answered with a JSON-RPC error; ``rpc_code`` and ``data`` keep it).
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


@dataclass(frozen=True, slots=True)
class McpResourceInfo:
    """Describe one resource a server lists (``resources/list``): URI, name and MIME type.

    >>> McpResourceInfo("file:///a.md", "a.md", mime_type="text/markdown")
    McpResourceInfo(uri='file:///a.md', name='a.md', mime_type='text/markdown')
    """

    uri: str
    name: str
    title: str | None = None
    description: str | None = None
    mime_type: str | None = None
    size: int | None = None

    def __repr__(self) -> str:
        return f"McpResourceInfo(uri={self.uri!r}, name={self.name!r}, mime_type={self.mime_type!r})"


# --- JSON-RPC lines ----------------------------------------------------------------------------


def _encode(message: Mapping[str, Any]) -> bytes:
    return json.dumps(message, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")


def _parse_message(data: bytes) -> dict[str, Any] | McpError:
    """Return the JSON-RPC message in ``data``, or the ``McpError`` that says why it is not one."""
    try:
        message = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return McpError("sent a line that is not a JSON-RPC message (invalid JSON)", "protocol")
    return _check_message(message)


def _check_message(message: object) -> dict[str, Any] | McpError:
    if not isinstance(message, dict):
        return McpError(f"sent a malformed message: expected a JSON object, got {type_name(message)}", "protocol")
    if message.get("jsonrpc") != "2.0":
        return McpError('sent a message whose "jsonrpc" is not "2.0"', "protocol")
    if "method" not in message and "id" not in message:
        return McpError("sent a reply without an id", "protocol")
    return message


def _result(reply: Mapping[str, Any], method: str) -> dict[str, Any]:
    """Return the ``result`` object of a reply, or raise the ``McpError`` it stands for."""
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


# --- transports --------------------------------------------------------------------------------


class Transport(Protocol):
    """What ``McpClient`` needs from a transport (``StdioTransport`` and ``HttpTransport`` are two).

    ``open`` connects and arranges for every message the server sends to reach ``deliver`` (a
    dict, or an ``McpError`` for one unreadable message) and for the end of the connection to
    reach ``lost`` once. ``send`` hands one message over, waiting at most until ``deadline``
    (``time.monotonic()`` seconds) and raising ``McpError`` when it cannot. ``close`` ends the
    connection without blocking on the server. ``describe`` names the server in errors.
    """

    def open(self, deliver: Deliver, lost: Lost) -> None: ...

    def send(self, message: dict[str, Any], deadline: float) -> None: ...

    def close(self, grace: float = _GRACE) -> None: ...

    def describe(self) -> str: ...

    @property
    def stderr_tail(self) -> str: ...

    def negotiated(self, protocol_version: str) -> None: ...

    def listen(self, deadline: float) -> None: ...


_CLOSE = b""


class StdioTransport:
    """Run an MCP server as a child process and talk to it over its stdin and stdout.

    >>> StdioTransport(["python", "server.py"]).describe()
    'server.py'

    The child runs in a process group of its own (POSIX), which ``close`` ends as a whole.
    ``max_message_bytes`` bounds one message (a longer one breaks the connection with a
    ``protocol`` error).
    """

    def __init__(
        self,
        command: Sequence[str],
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        max_message_bytes: int = MAX_MESSAGE_BYTES,
    ) -> None:
        if isinstance(command, str) or not command or not all(isinstance(a, str) for a in command):
            raise TypeError("command must be a non-empty sequence of strings, e.g. [sys.executable, 'server.py']")
        self.command = tuple(command)
        self.max_message_bytes = _positive_int(max_message_bytes, "max_message_bytes")
        self.process: subprocess.Popen[bytes] | None = None
        self._env = dict(env) if env is not None else None
        self._cwd = cwd
        self._outbox: queue.Queue[bytes] = queue.Queue(_OUTBOX)
        self._stderr: collections.deque[str] = collections.deque(maxlen=_STDERR_TAIL)
        self._stderr_done = threading.Event()
        self._broken: McpError | None = None
        self._closed = False
        self.stuck = False  # set by the client when a reply did not come: close gives no grace

    def describe(self) -> str:
        """Return a short name for the server: its script or program name."""
        tail = self.command[-1] if len(self.command) > 1 and not self.command[-1].startswith("-") else self.command[0]
        return tail.replace("\\", "/").rsplit("/", 1)[-1]

    @property
    def stderr_tail(self) -> str:
        """Return the last lines the server wrote to its standard error."""
        return "".join(self._stderr)

    def negotiated(self, protocol_version: str) -> None:
        """Nothing to do over stdio."""

    def listen(self, deadline: float) -> None:
        """Nothing to do over stdio: the reader thread already hears everything."""

    def open(self, deliver: Deliver, lost: Lost) -> None:
        """Start the server and the threads that read and write its pipes."""
        if self.process is not None:
            raise RuntimeError("this transport was already opened")
        try:
            self.process = subprocess.Popen(
                self.command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=self._env,
                cwd=self._cwd,
                start_new_session=os.name == "posix",
            )
        except (OSError, ValueError) as exc:
            reason = getattr(exc, "strerror", None) or type(exc).__name__
            raise McpError(f"could not start the server: {reason}", "start") from None
        proc = self.process
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        # the threads hold the transport and the callbacks, never the client
        for target, args in (
            (self._read, (proc.stdout, deliver, lost)),
            (self._read_stderr, (proc.stderr,)),
            (self._write, (proc.stdin, lost)),
        ):
            threading.Thread(target=target, args=args, name="agentmsg-mcp", daemon=True).start()

    def send(self, message: dict[str, Any], deadline: float) -> None:
        """Queue one message for the writer thread (never blocks)."""
        if self._broken is not None:
            raise self._broken
        data = _encode(message)
        if len(data) > self.max_message_bytes:
            raise McpError(f"a message to send is longer than {self.max_message_bytes} bytes", "protocol")
        try:
            self._outbox.put_nowait(data + b"\n")
        except queue.Full:
            self.stuck = True
            raise McpError(f"the server stopped reading its input ({_OUTBOX} messages wait to be sent)", "timeout") from None

    def _write(self, stream: IO[bytes], lost: Lost) -> None:
        try:
            while True:
                data = self._outbox.get()
                if data is _CLOSE:
                    break
                stream.write(data)
                stream.flush()
        except (OSError, ValueError):
            self._broken = McpError(f"{self._exit_note()} (could not send)", "closed")
        finally:
            try:
                stream.close()
            except OSError:
                pass

    def _read(self, stream: IO[bytes], deliver: Deliver, lost: Lost) -> None:
        limit = self.max_message_bytes
        error: McpError | None = None
        try:
            while True:
                line = stream.readline(limit + 1)
                if not line:
                    break
                if len(line) > limit and not line.endswith(b"\n"):
                    error = McpError(f"sent a message longer than {limit} bytes", "protocol")
                    break
                if line.strip():
                    deliver(_parse_message(line))
        except (OSError, ValueError):
            pass
        finally:
            try:
                stream.close()
            except OSError:
                pass
        if error is None:
            self._stderr_done.wait(1.0)  # the tail is complete before an error quotes it
            error = McpError(self._exit_note(), "closed")
        if self._broken is None:
            self._broken = error
        lost(error)

    def _read_stderr(self, stream: IO[bytes]) -> None:
        try:
            cut = False
            while True:
                raw = stream.readline(_STDERR_LINE)
                if not raw:
                    break
                if not cut:
                    text = raw.decode("utf-8", "replace")
                    if not raw.endswith(b"\n"):
                        text += " [line cut]\n"
                    self._stderr.append(text)
                cut = not raw.endswith(b"\n")  # the rest of an over-long line is skipped
        except (OSError, ValueError):
            pass
        finally:
            self._stderr_done.set()
            try:
                stream.close()
            except OSError:
                pass

    def _exit_note(self) -> str:
        if self._closed:
            return "closed by the client"
        proc = self.process
        if proc is None:
            return "not started"
        try:
            status = proc.wait(timeout=1)
        except subprocess.TimeoutExpired:
            return "closed its output"
        return f"exited with status {status}"

    def close(self, grace: float = _GRACE) -> None:
        """Stop the server: close its input, wait ``grace`` seconds, then SIGTERM and SIGKILL its group.

        As the MCP stdio transport asks. A server that stopped answering gets no grace period.
        Never blocks on the pipes: a straggler that escaped the process group keeps only
        daemon threads waiting.
        """
        proc = self.process
        if proc is None or self._closed:
            self._closed = True
            return
        self._closed = True
        if self._broken is None:
            self._broken = McpError("closed by the client", "closed")
        try:
            self._outbox.put_nowait(_CLOSE)  # the writer closes stdin once what is queued is sent
        except queue.Full:
            pass
        waits = (0.05 if self.stuck else grace, 2.0, 2.0)
        for stop, wait in zip((None, signal.SIGTERM, _SIGKILL), waits):
            if stop is not None:
                self._signal(stop)
            try:
                proc.wait(timeout=wait)
                break
            except subprocess.TimeoutExpired:
                continue
        self._end_group()

    def _signal(self, sig: int) -> None:
        proc = self.process
        assert proc is not None
        try:
            if os.name == "posix":
                os.killpg(proc.pid, sig)
            elif sig == signal.SIGTERM:
                proc.terminate()
            else:
                proc.kill()
        except (ProcessLookupError, PermissionError, OSError):
            pass

    def _end_group(self) -> None:
        """End what the server left in its process group (children that hold its pipes)."""
        proc = self.process
        if proc is None or os.name != "posix":
            return
        for sig in (signal.SIGTERM, _SIGKILL):
            try:
                os.killpg(proc.pid, sig)
            except (ProcessLookupError, PermissionError, OSError):
                return
            deadline = time.monotonic() + _GRACE
            while time.monotonic() < deadline:
                try:
                    os.killpg(proc.pid, 0)
                except (ProcessLookupError, PermissionError, OSError):
                    return
                time.sleep(0.02)


_SIGKILL = getattr(signal, "SIGKILL", signal.SIGTERM)


class HttpTransport:
    """Talk to a remote MCP server over Streamable HTTP (``http.client``; ``https`` too).

    >>> HttpTransport("http://127.0.0.1:8000/mcp").describe()
    '127.0.0.1:8000'

    Each message is one POST; the reply comes as JSON or as server-sent events. ``headers``
    (an ``Authorization`` header, say) go with every request. The server's session id is kept
    and sent back; ``close`` ends the session with a DELETE. Messages the server sends outside
    a request (``notifications/tools/list_changed``, say) arrive on the GET stream, which is
    opened after the handshake and read on a daemon thread (``listen=False`` does without it).
    """

    def __init__(
        self,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        max_message_bytes: int = MAX_MESSAGE_BYTES,
        listen: bool = True,
    ) -> None:
        parts = urllib.parse.urlsplit(url) if isinstance(url, str) else None
        if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
            raise TypeError("url must be an http:// or https:// URL, e.g. 'http://127.0.0.1:8000/mcp'")
        self.url = url
        self._https = parts.scheme == "https"
        self._host = parts.hostname
        self._port = parts.port
        self._target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        self._headers = dict(headers or {})
        self.max_message_bytes = _positive_int(max_message_bytes, "max_message_bytes")
        self.session_id: str | None = None
        self.protocol_version: str | None = None
        self._deliver: Deliver | None = None
        self._closed = False
        self.stuck = False
        self.listen_for_server_messages = listen
        self._listener: threading.Thread | None = None
        self._stream: socket.socket | None = None

    def describe(self) -> str:
        """Return the server's host and port."""
        return f"{self._host}:{self._port}" if self._port else str(self._host)

    @property
    def stderr_tail(self) -> str:
        """Return '' (a remote server's stderr is not ours to read)."""
        return ""

    def negotiated(self, protocol_version: str) -> None:
        """Send ``MCP-Protocol-Version`` with every request from now on."""
        self.protocol_version = protocol_version

    def open(self, deliver: Deliver, lost: Lost) -> None:
        """Keep the callback; the connection opens per request."""
        self._deliver = deliver

    def listen(self, deadline: float) -> None:
        """Open the GET stream for messages not tied to a request; wait until the server answered it.

        A server that offers no such stream (405) is fine. The stream is read on a daemon thread
        and reopened when the server ends it; ``close`` shuts it.
        """
        if not self.listen_for_server_messages or self._listener is not None:
            return
        ready = threading.Event()
        self._listener = threading.Thread(target=self._listen, args=(ready,), name="agentmsg-mcp-http", daemon=True)
        self._listener.start()
        ready.wait(max(0.0, deadline - time.monotonic()))

    def _listen(self, ready: threading.Event) -> None:
        deliver = self._deliver
        assert deliver is not None
        failures = 0
        while not self._closed and failures < 3:
            conn = self._connection(30.0)
            try:
                headers = {k: v for k, v in self._request_headers().items() if k != "Content-Type"}
                headers["Accept"] = "text/event-stream"
                conn.request("GET", self._target, headers=headers)
                sock = self._stream = conn.sock
                if self._closed:
                    return
                with conn.getresponse() as response:
                    ready.set()
                    kind = (response.getheader("Content-Type") or "").split(";", 1)[0].strip().lower()
                    if response.status != 200 or kind != "text/event-stream":
                        return  # 405: the server offers no stream of its own
                    if sock is not None:
                        sock.settimeout(None)
                    failures = 0
                    self._read_events(response, None, float("inf"), deliver, None)
            except (OSError, http.client.HTTPException, McpError):
                failures += 1
                time.sleep(0.2 * failures)
            finally:
                ready.set()
                conn.close()

    def _connection(self, timeout: float) -> http.client.HTTPConnection:
        if self._https:
            return http.client.HTTPSConnection(self._host, self._port, timeout=timeout)
        return http.client.HTTPConnection(self._host, self._port, timeout=timeout)

    def _request_headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        headers.update(self._headers)
        if self.session_id is not None:
            headers["Mcp-Session-Id"] = self.session_id
        if self.protocol_version is not None:
            headers["MCP-Protocol-Version"] = self.protocol_version
        return headers

    def send(self, message: dict[str, Any], deadline: float) -> None:
        """POST one message and deliver what the server answers, all before ``deadline``."""
        if self._closed:
            raise McpError("closed by the client", "closed")
        deliver = self._deliver
        if deliver is None:
            raise RuntimeError("call open() first")
        body = _encode(message)
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise McpError("no time left to send", "timeout")
        conn = self._connection(remaining)
        response: http.client.HTTPResponse | None = None
        try:
            conn.request("POST", self._target, body, self._request_headers())
            sock = conn.sock
            response = conn.getresponse()
            session = response.getheader("Mcp-Session-Id")
            if session and self.session_id is None:
                self.session_id = session[:200]
            status = response.status
            if status == 202 or (200 <= status < 300 and ("id" not in message or "method" not in message)):
                return  # a notification or a reply: nothing more to read (the connection closes)
            if status == 404 and self.session_id is not None:
                raise McpError("the server ended the session (HTTP 404)", "closed")
            if status >= 300:
                raise McpError(f"answered HTTP {status} {str(response.reason)[:80]}", "http")
            kind = (response.getheader("Content-Type") or "").split(";", 1)[0].strip().lower()
            if kind == "text/event-stream":
                self._read_events(response, sock, deadline, deliver, message.get("id"))
            elif kind == "application/json":
                data = self._read_body(response, sock, deadline)
                self._deliver_json(data, deliver)
            else:
                raise McpError(f"answered with content type {kind[:60]!r}, not JSON or an event stream", "protocol")
        except (socket.timeout, TimeoutError):
            self.stuck = True
            raise McpError("no complete answer in time", "timeout") from None
        except (OSError, http.client.HTTPException) as exc:
            raise McpError(f"could not be reached ({type(exc).__name__})", "closed") from None
        finally:
            if response is not None:
                response.close()
            conn.close()

    def _settle(self, sock: socket.socket | None, deadline: float) -> None:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise socket.timeout
        # fileno() is -1 once the response read its last byte and closed the socket (Python 3.13)
        if sock is not None and remaining != float("inf") and sock.fileno() != -1:
            sock.settimeout(remaining)

    def _read_body(self, response: http.client.HTTPResponse, sock: socket.socket | None, deadline: float) -> bytes:
        chunks: list[bytes] = []
        size = 0
        while True:
            self._settle(sock, deadline)
            chunk = response.read1(65536) if hasattr(response, "read1") else response.read(65536)
            if not chunk:
                return b"".join(chunks)
            size += len(chunk)
            if size > self.max_message_bytes:
                raise McpError(f"sent a body longer than {self.max_message_bytes} bytes", "protocol")
            chunks.append(chunk)

    def _deliver_json(self, data: bytes, deliver: Deliver) -> None:
        try:
            value = json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            deliver(McpError("sent a body that is not JSON", "protocol"))
            return
        for item in value if isinstance(value, list) else [value]:  # a batch, as 2025-03-26 allows
            deliver(_check_message(item))

    def _read_events(
        self,
        response: http.client.HTTPResponse,
        sock: socket.socket | None,
        deadline: float,
        deliver: Deliver,
        request_id: Any,
    ) -> None:
        """Read server-sent events until the reply to ``request_id`` arrives or the stream ends."""
        limit = self.max_message_bytes
        data: list[bytes] = []
        size = 0
        while True:
            self._settle(sock, deadline)
            line = response.readline(limit + 1)
            if not line:
                return
            if len(line) > limit:
                raise McpError(f"sent an event longer than {limit} bytes", "protocol")
            line = line.rstrip(b"\r\n")
            if line:
                if line.startswith(b"data:"):
                    piece = line[5:]
                    data.append(piece[1:] if piece.startswith(b" ") else piece)
                    size += len(piece)
                    if size > limit:
                        raise McpError(f"sent an event longer than {limit} bytes", "protocol")
                continue  # comments, event names, ids and retry hints need nothing from us
            if not data:
                continue
            payload = b"\n".join(data)
            data, size = [], 0
            message = _parse_message(payload)
            deliver(message)
            if (
                isinstance(message, dict)
                and "method" not in message
                and request_id is not None
                and message.get("id") == request_id
            ):
                return

    def close(self, grace: float = _GRACE) -> None:
        """End the session (DELETE with the session id), waiting at most ``grace`` seconds."""
        if self._closed:
            return
        self._closed = True
        stream = self._stream
        if stream is not None:
            try:
                stream.shutdown(socket.SHUT_RDWR)  # ends the GET stream's blocking read
            except OSError:
                pass
        if self.session_id is None:
            return
        conn = self._connection(max(grace, 0.05))
        try:
            headers = {k: v for k, v in self._request_headers().items() if k != "Content-Type"}
            conn.request("DELETE", self._target, headers=headers)
            with conn.getresponse() as response:
                response.read(65536)
        except (OSError, http.client.HTTPException):
            pass
        finally:
            conn.close()


def _positive_int(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise TypeError(f"{name} must be a positive int")
    return value


# --- tool results ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, repr=False)
class McpToolResult:
    """What an MCP tool call returned: content for the model, resources, structured content, isError.

    >>> result = McpToolResult.from_dict({"content": [
    ...     {"type": "text", "text": "Pancakes"}, {"type": "text", "text": "Omelette"},
    ...     {"type": "resource_link", "uri": "recipes://2", "name": "omelette"}],
    ...     "structuredContent": {"count": 2}})
    >>> result.text, result.is_error, [r["type"] for r in result.resources], dict(result.structured)
    ('Pancakes\\nOmelette\\n[resource link: recipes://2]', False, ['resource_link'], {'count': 2})
    >>> result.to_message("toolu_1").to_dict()["content"]
    'Pancakes\\nOmelette\\n[resource link: recipes://2]'

    ``blocks`` keeps the server's content blocks as sent. ``content`` is what the model sees,
    in block order: text blocks as text, images as image parts (a type the providers do not
    take becomes a short note), an embedded resource as its text with a ``[resource <uri>]``
    header (an image blob as an image, another blob as a note), a resource link as a
    ``[resource link: <uri>]`` line, audio as a note. ``text`` joins the text parts with
    newlines; when a server sends only structured content, ``text`` is its JSON.
    ``resources`` keeps the embedded resources and resource links; ``structured`` the
    ``structuredContent``; ``is_error`` the ``isError`` flag (the tool reports a failure the
    model should see).
    """

    blocks: tuple[FrozenDict, ...]
    content: tuple[TextPart | ImagePart, ...]
    resources: tuple[FrozenDict, ...] = ()
    structured: FrozenDict | None = None
    is_error: bool = False

    @property
    def text(self) -> str:
        """Return the text parts joined with newlines."""
        return "\n".join(part.text for part in self.content if type(part) is TextPart)

    def to_result(self, tool_call_id: str) -> ToolResult:
        """Return the text-only ``ToolResult`` for the call ``tool_call_id``."""
        return ToolResult(tool_call_id, self.text, self.is_error)

    def to_message(self, tool_call_id: str) -> ChatMessage:
        """Return the tool message for the call ``tool_call_id`` (images as image parts)."""
        if all(type(part) is TextPart for part in self.content):
            return ChatMessage.tool(tool_call_id, self.text, self.is_error)
        return ChatMessage.tool(tool_call_id, self.content, self.is_error)

    def to_dict(self) -> dict[str, Any]:
        """Return MCP's ``CallToolResult`` shape (``content``, ``structuredContent``?, ``isError``?)."""
        out: dict[str, Any] = {"content": [thaw_json(block) for block in self.blocks]}
        if self.structured is not None:
            out["structuredContent"] = thaw_json(self.structured)
        if self.is_error:
            out["isError"] = True
        return out

    @classmethod
    def from_dict(cls, data: Any, /) -> McpToolResult:
        """Parse a ``CallToolResult``; a malformed one raises ``McpError(code="protocol")``."""
        if not isinstance(data, Mapping):
            raise McpError(f"malformed reply to tools/call: expected an object, got {type_name(data)}", "protocol")
        raw = data.get("content", [])
        if not isinstance(raw, (list, tuple)):
            raise McpError("malformed reply to tools/call: content must be an array", "protocol")
        blocks: list[FrozenDict] = []
        parts: list[TextPart | ImagePart] = []
        resources: list[FrozenDict] = []
        for index, block in enumerate(raw):
            try:
                frozen = freeze_json(block, f"content[{index}]")
                if type(frozen) is not FrozenDict:
                    raise ValidationError("expected an object", f"content[{index}]", "type")
                part, kept = _content_part(frozen, index)
            except ValidationError as exc:
                raise McpError(f"malformed reply to tools/call: {exc}", "protocol") from None
            blocks.append(frozen)
            if part is not None:
                parts.append(part)
            if kept:
                resources.append(frozen)
        structured = data.get("structuredContent")
        if structured is not None:
            if not isinstance(structured, Mapping):
                raise McpError("malformed reply to tools/call: structuredContent must be an object", "protocol")
            try:
                structured = freeze_json(dict(structured), "structuredContent")
            except ValidationError as exc:
                raise McpError(f"malformed reply to tools/call: {exc}", "protocol") from None
            if not parts:
                parts.append(TextPart(json.dumps(thaw_json(structured), ensure_ascii=False)))
        is_error = data.get("isError", False)
        if is_error is None:
            is_error = False
        if type(is_error) is not bool:
            raise McpError("malformed reply to tools/call: isError must be a boolean", "protocol")
        return cls(tuple(blocks), tuple(parts), tuple(resources), structured, is_error)

    def __repr__(self) -> str:
        return (
            f"McpToolResult(blocks={len(self.blocks)}, resources={len(self.resources)}, "
            f"structured={self.structured is not None}, is_error={self.is_error})"
        )


def _note(text: str) -> TextPart:
    return TextPart(text)


def _image(data: Any, mime: Any, path: str) -> TextPart | ImagePart:
    if not isinstance(data, str) or not isinstance(mime, str):
        raise ValidationError("an image needs data and mimeType (strings)", path, "type")
    try:
        return ImagePart(ImageSource.from_base64(data, mime))
    except ValidationError:
        return _note(f"[image omitted: {mime[:60]} is not an image type the model takes]")


def _content_part(block: FrozenDict, index: int) -> tuple[TextPart | ImagePart | None, bool]:
    """Return the part the model sees for one content block and whether it is a resource."""
    path = f"content[{index}]"
    kind = block.get("type")
    if kind == "text":
        text = block.get("text")
        if not isinstance(text, str):
            raise ValidationError("a text block needs a text string", path, "type")
        return TextPart(text), False
    if kind == "image":
        return _image(block.get("data"), block.get("mimeType"), path), False
    if kind == "audio":
        mime = block.get("mimeType")
        return _note(f"[audio omitted: {str(mime)[:60]}]"), False
    if kind == "resource_link":
        uri = block.get("uri")
        if not isinstance(uri, str):
            raise ValidationError("a resource link needs a uri", path, "type")
        return _note(f"[resource link: {uri[:500]}]"), True
    if kind == "resource":
        resource = block.get("resource")
        if type(resource) is not FrozenDict or not isinstance(resource.get("uri"), str):
            raise ValidationError("an embedded resource needs a resource with a uri", path, "type")
        uri, mime = resource["uri"][:500], resource.get("mimeType")
        text, blob = resource.get("text"), resource.get("blob")
        if isinstance(text, str):
            return TextPart(f"[resource {uri}]\n{text}"), True
        if isinstance(blob, str) and isinstance(mime, str) and mime.startswith("image/"):
            return _image(blob, mime, path), True
        return _note(f"[resource {uri}: {str(mime)[:60]} content omitted]"), True
    log.debug("MCP tool result: content block type %s skipped", str(kind)[:40])
    return None, False


# --- the client --------------------------------------------------------------------------------


class _Waiter:
    __slots__ = ("event", "reply", "error", "on_progress")

    def __init__(self, on_progress: ProgressCallback | None) -> None:
        self.event = threading.Event()
        self.reply: dict[str, Any] | None = None
        self.error: McpError | None = None
        self.on_progress = on_progress


@dataclass(frozen=True, slots=True)
class _ToolEntry:
    mcp_name: str
    definition: ToolDefinition
    read_only: bool


def _weak(method: Callable[..., None]) -> Callable[..., None]:
    """Return a callback that calls ``method`` while its object lives (threads must not keep it)."""
    ref = weakref.WeakMethod(method)

    def call(*args: Any) -> None:
        target = ref()
        if target is not None:
            target(*args)

    return call


class McpClient:
    """Talk to one MCP server: start it, initialize, list and call tools, list and read resources.

    >>> client = McpClient(["python", "server.py"], name="docs", timeout=5)
    >>> client
    McpClient(name='docs', running=False)
    >>> McpClient("http://127.0.0.1:8000/mcp").name
    '127.0.0.1:8000'

    ``target`` is a server command (a sequence of strings: stdio), an ``http://`` or
    ``https://`` URL (Streamable HTTP; ``headers`` go with each request), or a ``Transport``.
    Use it as a context manager (``with McpClient(cmd) as client:``) or call ``start()`` and
    ``close()``. ``timeout`` (seconds) bounds every wait, so a hung server raises
    ``McpError(code="timeout")`` instead of blocking; each call may pass its own. All failures
    raise ``McpError``. Thread-safe: concurrent requests share the connection. A client that is
    garbage-collected (or still open at interpreter exit) closes its server.
    ``on_tools_changed`` is called (on a reader thread, without arguments) when the server says
    its tool list changed.
    """

    def __init__(
        self,
        target: Sequence[str] | str | Transport,
        *,
        name: str | None = None,
        timeout: float = 30.0,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        headers: Mapping[str, str] | None = None,
        max_message_bytes: int = MAX_MESSAGE_BYTES,
        on_tools_changed: Callable[[], None] | None = None,
    ) -> None:
        if not (isinstance(timeout, (int, float)) and not isinstance(timeout, bool) and timeout > 0):
            raise TypeError("timeout must be a positive number of seconds")
        transport: Transport
        if isinstance(target, str):
            if not target.startswith(("http://", "https://")):
                raise TypeError(
                    "command must be a non-empty sequence of strings, e.g. [sys.executable, 'server.py'] "
                    "(or an http:// or https:// URL)"
                )
            transport = HttpTransport(target, headers=headers, max_message_bytes=max_message_bytes)
        elif all(hasattr(target, verb) for verb in ("open", "send", "close", "describe")):
            transport = target  # type: ignore[assignment]  # duck-typed: it has the Transport methods
        else:
            transport = StdioTransport(target, env=env, cwd=cwd, max_message_bytes=max_message_bytes)  # type: ignore[arg-type]  # StdioTransport checks the command itself
        self.transport = transport
        self.command = getattr(transport, "command", None)
        self.name = name if name else transport.describe()
        self.timeout = float(timeout)
        self.on_tools_changed = on_tools_changed
        self._lock = threading.Lock()
        self._waiting: dict[int, _Waiter] = {}
        self._next_id = 1
        self._started = False
        self._dead: McpError | None = None
        self._tools: dict[str, _ToolEntry] | None = None
        self._tools_stale = True
        self.server_info: Mapping[str, Any] = {}
        self.capabilities: Mapping[str, Any] = {}
        self.protocol_version: str | None = None
        self._finalizer = weakref.finalize(self, transport.close)

    def __repr__(self) -> str:
        return f"McpClient(name={self.name!r}, running={self._started and self._dead is None})"

    def __enter__(self) -> McpClient:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def stderr_tail(self) -> str:
        """Return the last lines the server wrote to its standard error."""
        return self.transport.stderr_tail

    # --- connection ------------------------------------------------------------------------

    def start(self) -> McpClient:
        """Connect (start the server) and run the MCP handshake (``initialize``, then ``initialized``)."""
        if self._started:
            raise RuntimeError("this client was already started; make a new McpClient to restart")
        self._started = True
        try:
            self.transport.open(_weak(self._deliver), _weak(self._lost))
        except McpError as exc:
            self._dead = exc
            raise self._error(exc.message, exc.code) from None
        try:
            self._initialize()
        except BaseException:
            self.close()
            raise
        return self

    def close(self) -> None:
        """Stop the server (or end the HTTP session); safe to call twice. See ``StdioTransport.close``."""
        if self._dead is None:
            self._dead = McpError("closed by the client", "closed")
        self._finalizer()
        with self._lock:
            waiting, self._waiting = self._waiting, {}
        for waiter in waiting.values():
            waiter.error = self._dead
            waiter.event.set()

    def _error(self, message: str, code: str, **extra: Any) -> McpError:
        return McpError(f"MCP server {self.name!r}: {message}", code, stderr=self.stderr_tail, **extra)

    def _lost(self, error: McpError) -> None:
        """The connection ended: every waiting request fails with ``error``."""
        if self._dead is None:
            self._dead = error
        with self._lock:
            waiting, self._waiting = self._waiting, {}
        for waiter in waiting.values():
            waiter.error = error
            waiter.event.set()

    def _deliver(self, message: dict[str, Any] | McpError) -> None:
        """Dispatch one message from the server (runs on the transport's thread)."""
        if isinstance(message, McpError):
            # an unreadable message: whoever waits cannot get a reply from it
            with self._lock:
                waiting, self._waiting = self._waiting, {}
            for waiter in waiting.values():
                waiter.error = message
                waiter.event.set()
            if not waiting:
                log.warning("MCP server %r: %s", self.name, message.message)
            return
        if "method" in message:
            self._serve(message)
            return
        request_id = message.get("id")
        with self._lock:
            found = self._waiting.pop(request_id, None) if isinstance(request_id, int) else None
        if found is None:
            log.debug("MCP server %r: dropping a reply nobody waits for", self.name)
            return
        found.reply = message
        found.event.set()

    def _serve(self, message: dict[str, Any]) -> None:
        """Answer a request the server sent (``ping``), or act on a notification."""
        method = message.get("method")
        params = message.get("params")
        if "id" not in message:
            if method == "notifications/progress" and isinstance(params, dict):
                self._progress(params)
            elif method == "notifications/tools/list_changed":
                self._tools_stale = True
                callback = self.on_tools_changed
                if callback is not None:
                    try:
                        callback()
                    except Exception:
                        log.exception("MCP server %r: the on_tools_changed callback failed", self.name)
            else:
                log.debug("MCP server %r: notification %s", self.name, str(method)[:80])
            return
        reply: dict[str, Any] = {"jsonrpc": "2.0", "id": message["id"]}
        if method == "ping":
            reply["result"] = {}
        else:
            reply["error"] = {"code": -32601, "message": "Method not found"}
        try:
            self.transport.send(reply, time.monotonic() + self.timeout)
        except McpError as exc:
            log.debug("MCP server %r: could not answer its request: %s", self.name, exc.message)

    def _progress(self, params: dict[str, Any]) -> None:
        token = params.get("progressToken")
        with self._lock:
            waiter = self._waiting.get(token) if isinstance(token, int) else None
        callback = waiter.on_progress if waiter is not None else None
        progress, total, note = params.get("progress"), params.get("total"), params.get("message")
        if callback is None or isinstance(progress, bool) or not isinstance(progress, (int, float)):
            return
        try:
            callback(
                float(progress),
                float(total) if isinstance(total, (int, float)) and not isinstance(total, bool) else None,
                note[:500] if isinstance(note, str) else None,
            )
        except Exception:
            log.exception("MCP server %r: a progress callback failed", self.name)

    # --- JSON-RPC --------------------------------------------------------------------------

    def _check_open(self) -> None:
        if not self._started:
            raise RuntimeError("call start() (or use the client as a context manager) first")
        if self._dead is not None:
            raise self._error(f"not running ({self._dead.message})", "closed")

    def notify(self, method: str, params: Mapping[str, Any] | None = None) -> None:
        """Send a JSON-RPC notification (no reply expected)."""
        self._check_open()
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = dict(params)
        try:
            self.transport.send(message, time.monotonic() + self.timeout)
        except McpError as exc:
            raise self._error(exc.message, exc.code) from None

    def request(
        self,
        method: str,
        params: Mapping[str, Any] | None = None,
        *,
        timeout: float | None = None,
        on_progress: ProgressCallback | None = None,
    ) -> dict[str, Any]:
        """Send a JSON-RPC request and return its ``result`` object, waiting at most ``timeout``.

        ``on_progress(progress, total, message)`` receives the server's progress notifications
        for this request (on a reader thread).
        """
        self._check_open()
        limit = self.timeout if timeout is None else timeout
        if isinstance(limit, bool) or not isinstance(limit, (int, float)) or not limit > 0:
            raise TypeError("timeout must be a positive number of seconds")
        deadline = time.monotonic() + limit
        waiter = _Waiter(on_progress)
        with self._lock:
            request_id = self._next_id
            self._next_id += 1
            self._waiting[request_id] = waiter
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None or on_progress is not None:
            message["params"] = dict(params or {})
        if on_progress is not None:
            message["params"]["_meta"] = {**message["params"].get("_meta", {}), "progressToken": request_id}
        try:
            try:
                self.transport.send(message, deadline)
            except McpError as exc:
                if exc.code == "closed" and self._dead is None:
                    self._dead = exc
                raise self._error(f"{exc.message} (sending {method})", exc.code) from None
            if not waiter.event.wait(max(0.0, deadline - time.monotonic())):
                self._timed_out(request_id)
                raise self._error(f"no reply to {method} within {limit:g} s", "timeout")
        finally:
            with self._lock:
                self._waiting.pop(request_id, None)
        if waiter.error is not None:
            error = waiter.error
            if error.code == "closed":
                raise self._error(f"{error.message} before replying to {method}", "closed")
            raise self._error(f"{error.message} (waiting for the reply to {method})", error.code)
        assert waiter.reply is not None
        try:
            return _result(waiter.reply, method)
        except McpError as exc:
            raise self._error(exc.message, exc.code, rpc_code=exc.rpc_code, data=exc.data) from None

    def _timed_out(self, request_id: int) -> None:
        stuck = getattr(self.transport, "stuck", None)
        if stuck is not None:
            self.transport.stuck = True  # type: ignore[attr-defined]  # checked with getattr above
        try:  # the specification asks to tell the server; best effort, never waits
            self.transport.send(
                {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": request_id, "reason": "timeout"}},
                time.monotonic() + 1.0,
            )
        except McpError:
            pass

    # --- MCP -------------------------------------------------------------------------------

    def _initialize(self) -> None:
        from .. import __version__

        result = self.request(
            "initialize",
            {
                "protocolVersion": PROTOCOL_VERSION,
                "capabilities": {},
                "clientInfo": {"name": "agentmsg", "version": __version__},
            },
        )
        version = result.get("protocolVersion")
        if not isinstance(version, str):
            raise self._error("malformed reply to initialize: protocolVersion must be a string", "protocol")
        if version not in _ACCEPTED_VERSIONS:
            raise self._error(f"speaks protocol version {version[:40]!r}, which this client does not", "protocol")
        capabilities = result.get("capabilities")
        if not isinstance(capabilities, dict):
            raise self._error("malformed reply to initialize: capabilities must be an object", "protocol")
        info = result.get("serverInfo")
        self.protocol_version = version
        self.capabilities = capabilities
        self.server_info = info if isinstance(info, dict) else {}
        self.transport.negotiated(version)
        self.notify("notifications/initialized")
        self.transport.listen(time.monotonic() + self.timeout)

    def _pages(self, method: str, key: str) -> list[Any]:
        found: list[Any] = []
        cursor: str | None = None
        for _ in range(_MAX_PAGES):
            result = self.request(method, None if cursor is None else {"cursor": cursor})
            items = result.get(key)
            if not isinstance(items, list):
                raise self._error(f"malformed reply to {method}: {key} must be an array", "protocol")
            found.extend(items)
            next_cursor = result.get("nextCursor")
            if next_cursor is None:
                return found
            if not isinstance(next_cursor, str) or next_cursor == cursor:
                raise self._error(f"malformed reply to {method}: bad nextCursor", "protocol")
            cursor = next_cursor
        raise self._error(f"{method} went on for more than {_MAX_PAGES} pages", "protocol")

    # tools

    @property
    def tools_changed(self) -> bool:
        """Return True until ``list_tools`` ran after the server last said its tools changed."""
        return self._tools_stale

    def list_tools(self) -> tuple[ToolDefinition, ...]:
        """Return every tool the server lists (following ``nextCursor`` pages) as ``ToolDefinition``s.

        Each definition is non-strict (MCP schemas are arbitrary JSON Schema), its parameters
        the tool's ``inputSchema``, its description the tool's description (else its title,
        else its name). A name outside the tool-name rule (``list-recipes``, ``db.query``)
        becomes its canonical name through ``agentmsg.tools.to_canonical_name`` (``db.query``
        is ``db_x2e_query``); ``call_tool`` takes either and sends the server's own name.
        """
        self._tools_stale = False  # a change announced while we read is seen next time
        entries: dict[str, _ToolEntry] = {}
        for index, item in enumerate(self._pages("tools/list", "tools")):
            entry = self._tool_entry(item, index)
            if entry.definition.name in entries:
                raise self._error(f"malformed reply to tools/list: tools[{index}] repeats a tool name", "protocol")
            entries[entry.definition.name] = entry
        self._tools = entries
        return tuple(entry.definition for entry in entries.values())

    def _tool_entry(self, item: object, index: int) -> _ToolEntry:
        where = f"malformed reply to tools/list: tools[{index}]"
        if not isinstance(item, dict):
            raise self._error(f"{where} must be an object", "protocol")
        mcp_name, schema = item.get("name"), item.get("inputSchema")
        if not isinstance(mcp_name, str) or not mcp_name:
            raise self._error(f"{where} needs a name", "protocol")
        description = next(
            (v for v in (item.get("description"), item.get("title"), mcp_name) if isinstance(v, str) and v.strip()),
            mcp_name,
        )
        annotations = item.get("annotations")
        read_only = isinstance(annotations, dict) and annotations.get("readOnlyHint") is True
        try:
            name = to_canonical_name(mcp_name)
            if not isinstance(schema, dict):
                raise ValidationError(f"expected an object, got {type_name(schema)}", "inputSchema", "type")
            definition = ToolDefinition(name, description, freeze_json(schema, "inputSchema"), strict=False)
        except ValidationError as exc:
            raise self._error(f"{where}.{exc}", "protocol") from None
        return _ToolEntry(mcp_name, definition, read_only)

    def _mcp_name(self, name: str) -> str:
        tools = self._tools
        if tools is not None:
            entry = tools.get(name)
            if entry is not None:
                return entry.mcp_name
            if any(e.mcp_name == name for e in tools.values()):
                return name
        try:
            return to_wire_name(name)
        except ValidationError:
            return name

    def call_tool(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        timeout: float | None = None,
        on_progress: ProgressCallback | None = None,
    ) -> McpToolResult:
        """Call a tool (``tools/call``) and return its result; a tool that failed has ``is_error``.

        ``name`` is the canonical name ``list_tools`` gave, or the server's own. ``arguments``
        is a JSON object (a ``FrozenDict`` too). ``on_progress(progress, total, message)``
        receives the server's progress notifications for the call. A failure to reach the server
        or a JSON-RPC error raises ``McpError``; a tool's own failure is a result with
        ``is_error`` set, as MCP asks.
        """
        if not isinstance(name, str) or not name:
            raise TypeError("name must be a non-empty string")
        if arguments is not None and not isinstance(arguments, Mapping):
            raise TypeError("arguments must be a mapping (a JSON object)")
        params = {"name": self._mcp_name(name), "arguments": thaw_json(arguments) if arguments else {}}
        result = self.request("tools/call", params, timeout=timeout, on_progress=on_progress)
        try:
            return McpToolResult.from_dict(result)
        except McpError as exc:
            raise self._error(exc.message, exc.code) from None

    def tools(self) -> tuple[Tool, ...]:
        """Return the server's tools as ``agentmsg.io.execution.Tool``s for a ``ToolRegistry``.

        Each tool's function calls the server and returns the ``CallToolResult`` dict
        (``McpToolResult.to_dict``); a tool the server marks ``readOnlyHint`` is ``safe`` (it may
        run in parallel with other safe calls). Lists the tools first if that was not done.
        """
        from .execution import Tool

        if self._tools is None or self._tools_stale:
            self.list_tools()
        assert self._tools is not None
        return tuple(
            Tool(entry.definition, _ToolFunction(self, entry.definition.name), safe=entry.read_only)
            for entry in self._tools.values()
        )

    # resources

    def list_resources(self) -> tuple[McpResourceInfo, ...]:
        """Return every resource the server lists, following ``nextCursor`` pages."""
        return tuple(self._info(item, index) for index, item in enumerate(self._pages("resources/list", "resources")))

    def _info(self, item: object, index: int) -> McpResourceInfo:
        where = f"resources[{index}]"
        if not isinstance(item, dict):
            raise self._error(f"malformed reply to resources/list: {where} must be an object", "protocol")
        uri, name = item.get("uri"), item.get("name")
        if not isinstance(uri, str) or not uri or not isinstance(name, str):
            raise self._error(f"malformed reply to resources/list: {where} needs a uri and a name", "protocol")
        size = item.get("size")
        return McpResourceInfo(
            uri,
            name,
            _opt_str(item, "title"),
            _opt_str(item, "description"),
            _opt_str(item, "mimeType"),
            size if isinstance(size, int) and not isinstance(size, bool) else None,
        )

    def read_resource(self, uri: str) -> tuple[dict[str, Any], ...]:
        """Return the contents of ``uri`` (``resources/read``): dicts with uri, mimeType and text or blob.

        Each item has exactly one of ``text`` (a string) and ``blob`` (base64 text); anything else
        raises ``McpError(code="protocol")``.
        """
        if not isinstance(uri, str) or not uri:
            raise TypeError("uri must be a non-empty string")
        result = self.request("resources/read", {"uri": uri})
        contents = result.get("contents")
        if not isinstance(contents, list):
            raise self._error("malformed reply to resources/read: contents must be an array", "protocol")
        out = []
        for index, item in enumerate(contents):
            where = f"contents[{index}]"
            if not isinstance(item, dict) or not isinstance(item.get("uri"), str):
                raise self._error(f"malformed reply to resources/read: {where} needs a uri", "protocol")
            text, blob = item.get("text"), item.get("blob")
            if (text is None) == (blob is None) or not isinstance(text if blob is None else blob, str):
                raise self._error(
                    f"malformed reply to resources/read: {where} needs exactly one of text and blob (a string)",
                    "protocol",
                )
            mime = item.get("mimeType")
            out.append({"uri": item["uri"], "mimeType": mime if isinstance(mime, str) else None, "text": text, "blob": blob})
        return tuple(out)


class _ToolFunction:
    """The function of an MCP tool in a ``ToolRegistry``: keyword arguments in, ``CallToolResult`` out."""

    __slots__ = ("client", "name")

    def __init__(self, client: McpClient, name: str) -> None:
        self.client = client
        self.name = name

    def __call__(self, **arguments: Any) -> dict[str, Any]:
        return self.client.call_tool(self.name, arguments).to_dict()

    def __repr__(self) -> str:
        return f"<MCP tool {self.name!r} of {self.client.name!r}>"


def _opt_str(item: Mapping[str, Any], key: str) -> str | None:
    value = item.get(key)
    return value if isinstance(value, str) else None


# --- the resource cache ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Entry:
    text: str | None
    blob: str | None
    mime_type: str | None
    retrieved_at: datetime
    fetched: float


ClientsArg = McpClient | Mapping[str, McpClient] | Iterable[McpClient]


class ResourceCache:
    """Resolve ``McpResource`` records through MCP clients, reusing fresh copies.

    >>> cache = ResourceCache({}, max_age_by_scheme={"file": 10})
    >>> cache.max_age_for("file:///a.txt", None), cache.max_age_for("https://x/y", None)
    (10.0, 3600.0)
    >>> record = McpResource(id="m1", server="docs", uri="file:///a.txt")
    >>> cache.resolve(record).error
    "no MCP server named 'docs' is configured"

    ``max_age`` (seconds, default one hour) is how long a fetched resource stays fresh;
    ``max_age_by_mime`` (exact types, or ``"image/*"``) and ``max_age_by_scheme`` (``"file"``)
    override it, in that order of precedence. Asking again for a fresh resource returns the
    cached content (with its original ``retrieved_at``); an older one is fetched again. Keep one
    cache per conversation context. Errors never escape ``resolve``: the record comes back
    failed, and nothing is cached, so resolving it again retries.
    """

    def __init__(
        self,
        clients: ClientsArg,
        *,
        max_age: float = 3600.0,
        max_age_by_mime: Mapping[str, float] | None = None,
        max_age_by_scheme: Mapping[str, float] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if isinstance(clients, McpClient):
            clients = {clients.name: clients}
        elif not isinstance(clients, Mapping):
            clients = {c.name: c for c in clients}
        self._clients: dict[str, McpClient] = dict(clients)
        self.max_age = _seconds(max_age, "max_age")
        self._by_mime = {k.lower(): _seconds(v, f"max_age_by_mime[{k!r}]") for k, v in (max_age_by_mime or {}).items()}
        self._by_scheme = {
            k.lower().rstrip(":"): _seconds(v, f"max_age_by_scheme[{k!r}]") for k, v in (max_age_by_scheme or {}).items()
        }
        self._clock = clock
        self._entries: dict[tuple[str, str], _Entry] = {}
        self._lock = threading.Lock()
        self.fetches = 0

    def __len__(self) -> int:
        return len(self._entries)

    def __repr__(self) -> str:
        return f"ResourceCache(servers={sorted(self._clients)!r}, entries={len(self._entries)})"

    def max_age_for(self, uri: str, mime_type: str | None) -> float:
        """Return the freshness limit (seconds) for a resource with this URI and MIME type."""
        if mime_type:
            mime = mime_type.split(";", 1)[0].strip().lower()
            if mime in self._by_mime:
                return self._by_mime[mime]
            wildcard = mime.split("/", 1)[0] + "/*"
            if wildcard in self._by_mime:
                return self._by_mime[wildcard]
        scheme = uri.split(":", 1)[0].lower() if ":" in uri else ""
        return self._by_scheme.get(scheme, self.max_age)

    def invalidate(self, server: str | None = None, uri: str | None = None) -> None:
        """Forget cached entries (all of them, one server's, or one resource)."""
        with self._lock:
            for key in list(self._entries):
                if (server is None or key[0] == server) and (uri is None or key[1] == uri):
                    del self._entries[key]

    def resolve(self, record: McpResource) -> McpResource:
        """Return ``record`` retrieved (from the cache when fresh, else from its server) or failed."""
        if not isinstance(record, McpResource):
            raise TypeError(f"expected an McpResource record, got {type(record).__name__}")
        key = (record.server, record.uri)
        with self._lock:
            entry = self._entries.get(key)
        if entry is not None and self._clock() - entry.fetched <= self.max_age_for(record.uri, entry.mime_type):
            return record.retrieve(
                text=entry.text, blob=entry.blob, mime_type=entry.mime_type, retrieved_at=entry.retrieved_at
            )
        client = self._clients.get(record.server)
        if client is None:
            return record.fail(f"no MCP server named {record.server[:80]!r} is configured")
        try:
            contents = client.read_resource(record.uri)
        except McpError as exc:
            return record.fail(exc.message)
        except RuntimeError:  # a client that was never started
            return record.fail(f"MCP server {record.server[:80]!r} is not started")
        now = datetime.now(timezone.utc)
        if not contents:
            return record.fail(f"MCP server {record.server[:80]!r} returned no contents for the resource")
        item = next((c for c in contents if c["uri"] == record.uri), contents[0])
        entry = _Entry(item["text"], item["blob"], item["mimeType"] or record.mime_type, now, self._clock())
        try:
            resolved = record.retrieve(
                text=entry.text, blob=entry.blob, mime_type=entry.mime_type, retrieved_at=entry.retrieved_at
            )
        except ValueError as exc:  # e.g. a blob that is not base64, a bad MIME type
            return record.fail(f"MCP server {record.server[:80]!r} sent unusable content ({exc})")
        with self._lock:
            self._entries[key] = entry
            self.fetches += 1
        return resolved

    def get(self, server: str, uri: str) -> McpResource:
        """Return a new record for ``uri`` on ``server``, resolved (see ``resolve``)."""
        return self.resolve(McpResource(server=server, uri=uri))


def _seconds(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value or value < 0:
        raise TypeError(f"{name} must be a number of seconds >= 0")
    return float(value)
