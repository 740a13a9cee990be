"""MCP transports: how ``McpClient`` reaches a server (a child process over stdio, or Streamable HTTP).

Theory of operation. A *transport* is an object with ``open(deliver, lost)``,
``send(message, deadline)`` and ``close()`` (the ``Transport`` protocol); ``McpClient`` speaks
JSON-RPC 2.0 through one. Two ship here. ``StdioTransport`` starts the server command in a
process group of its own and exchanges one JSON message per line over its stdin and stdout; a
reader thread hands each message to the client as it arrives, a writer thread drains a short
outbox into stdin (so a server that stops reading can block only that thread, never a caller),
and a third thread keeps a short tail of stderr. ``HttpTransport`` is the Streamable HTTP
transport of remote servers: each message is a POST (``http.client``), answered by ``202
Accepted``, by one JSON body, or by a stream of server-sent events that carries the server's
requests and notifications and then the reply; the ``Mcp-Session-Id`` the server hands out at
``initialize`` goes with every later request, and a 404 to such a request raises
``SessionEnded`` (the client starts a new session). Every read of an exchange, the status line
and headers included, ends by the call's deadline, however slowly the peer sends.

Nothing grows with what the server sends: one message may not pass ``max_message_bytes``,
stderr lines are cut to 500 characters and only the last 50 are kept, and at most 256 messages
wait for a server that stopped reading before the connection counts as broken. ``close()``
closes the server's input, gives it two seconds, then sends SIGTERM and SIGKILL to its whole
process group, so a ``sh -c``/``npx``/``uv run`` wrapper cannot leave its children behind; it
never waits on a pipe a straggler still holds.
"""

from __future__ import annotations

import collections
import http.client
import io
import json
import os
import queue
import signal
import socket
import subprocess
import threading
import time
import urllib.parse
from collections.abc import Callable, Mapping, Sequence
from typing import IO, Any, Protocol, Union

from .protocol import McpError, check_message, encode, parse_message

__all__ = ["Transport", "StdioTransport", "HttpTransport"]

MAX_MESSAGE_BYTES = 32 * 1024 * 1024
_OUTBOX = 256
_STDERR_TAIL = 50
_STDERR_LINE = 500
_GRACE = 2.0

Deliver = Callable[[Union[dict[str, Any], McpError]], None]
Lost = Callable[[McpError], None]


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
        self._ending = threading.Lock()
        self._lost_told = False
        self._closed = False
        self.stuck = False  # a reply did not come, or the pipes broke: close gives no grace

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
        data = encode(message)
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
        except (OSError, ValueError):  # the server closed its input: what waits for a reply may never get one
            self.stuck = True  # nor can it see its input end: close gives it no grace
            self._end(lost, McpError(f"{self._exit_note()} (could not send)", "closed"))
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
                    self.stuck = True  # its output is no longer read: close gives it no grace
                    error = McpError(f"sent a message longer than {limit} bytes", "protocol")
                    break
                if line.strip():
                    deliver(parse_message(line))
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
        self._end(lost, error)

    def _end(self, lost: Lost, error: McpError) -> None:
        """Break the connection with ``error`` and tell the client, once (the reader or the writer may find it)."""
        with self._ending:
            if self._lost_told:
                return
            self._lost_told = True
            if self._broken is None:
                self._broken = error
            error = self._broken
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


class SessionEnded(McpError):
    """The HTTP server answered 404 to a request that named a session: it ended the session.

    The request was not run (there was no session to run it in): the client starts a new
    session and sends it once more. Code ``closed``.
    """


class HttpTransport:
    """Talk to a remote MCP server over Streamable HTTP (``http.client``; ``https`` too).

    >>> HttpTransport("http://127.0.0.1:8000/mcp").describe()
    '127.0.0.1:8000'

    Each message is one POST; the reply comes as JSON or as server-sent events. ``headers``
    (an ``Authorization`` header, say) go with every request. The server's session id is kept
    and sent back (``initialize`` sends none and takes the new one); a 404 for it raises
    ``SessionEnded``; ``close`` ends the session with a DELETE. Messages the server sends outside
    a request (``notifications/tools/list_changed``, say) arrive on the GET stream, which is
    opened after the handshake and read on a daemon thread (``listen=False`` does without it).
    ``abort(request_id)`` ends the POST that waits for a request's answer (a cancelled request).
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
        self._listening: str | None = None  # the session whose GET stream the listener reads
        self._stream: socket.socket | None = None
        self._lock = threading.Lock()
        self._posts: dict[Any, socket.socket | None] = {}  # request id -> the socket of its POST
        self._aborted: collections.deque[Any] = collections.deque(maxlen=_OUTBOX)

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
        and reopened when the server ends it, for as long as the session lasts (a new session
        gets a stream of its own); ``close`` shuts it.
        """
        if not self.listen_for_server_messages:
            return
        old = self._listener
        if old is not None and old.is_alive() and self._listening == self.session_id:
            return
        self._shut_stream()  # a stream of an ended session: its reader stops
        ready = threading.Event()
        self._listening = self.session_id
        self._listener = threading.Thread(
            target=self._listen, args=(ready, self.session_id), name="agentmsg-mcp-http", daemon=True
        )
        self._listener.start()
        ready.wait(max(0.0, deadline - time.monotonic()))

    def _listen(self, ready: threading.Event, session: str | None) -> None:
        deliver = self._deliver
        assert deliver is not None
        failures = 0
        while not self._closed and failures < 3 and self.session_id == session:
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
                        return  # 405: the server offers no stream of its own; 404: the session ended
                    if sock is not None:
                        sock.settimeout(None)
                    failures = 0
                    self._read_events(response, deliver, None)
            except (OSError, http.client.HTTPException, McpError):
                failures += 1
                time.sleep(0.2 * failures)
            finally:
                ready.set()
                conn.close()

    def _shut_stream(self) -> None:
        stream, self._stream = self._stream, None
        if stream is not None:
            try:
                stream.shutdown(socket.SHUT_RDWR)  # ends the GET stream's blocking read
            except OSError:
                pass

    def _connection(self, timeout: float) -> http.client.HTTPConnection:
        if self._https:
            return http.client.HTTPSConnection(self._host, self._port, timeout=timeout)
        return http.client.HTTPConnection(self._host, self._port, timeout=timeout)

    def _request_headers(self, initialize: bool = False) -> dict[str, str]:
        """Return the headers of a request; ``initialize`` starts a session, so it names none."""
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        headers.update(self._headers)
        if self.session_id is not None and not initialize:
            headers["Mcp-Session-Id"] = self.session_id
        if self.protocol_version is not None and not initialize:
            headers["MCP-Protocol-Version"] = self.protocol_version
        return headers

    def send(self, message: dict[str, Any], deadline: float) -> None:
        """POST one message and deliver what the server answers, all before ``deadline``."""
        if self._closed:
            raise McpError("closed by the client", "closed")
        deliver = self._deliver
        if deliver is None:
            raise RuntimeError("call open() first")
        body = encode(message)
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise McpError("no time left to send", "timeout")
        conn = self._connection(remaining)
        response: http.client.HTTPResponse | None = None
        request_id = message.get("id") if "method" in message else None
        raw: socket.socket | None = None
        try:
            conn.connect()
            raw = conn.sock
            conn.sock = _DeadlineSocket(raw, deadline)  # all that http.client uses of a socket
            if request_id is not None:
                with self._lock:
                    if request_id in self._aborted:
                        raise McpError("the request was cancelled", "cancelled")
                    self._posts[request_id] = raw
            initialize = message.get("method") == "initialize"
            headers = self._request_headers(initialize)
            conn.request("POST", self._target, body, headers)
            response = conn.getresponse()
            session = response.getheader("Mcp-Session-Id")
            if session and (initialize or self.session_id is None):
                self.session_id = session[:200]  # a new session: later requests name it
            status = response.status
            if status == 202 or (200 <= status < 300 and ("id" not in message or "method" not in message)):
                return  # a notification or a reply: nothing more to read (the connection closes)
            if status == 404 and "Mcp-Session-Id" in headers:
                raise SessionEnded("the server ended the session (HTTP 404)", "closed")
            if status >= 300:
                raise McpError(f"answered HTTP {status} {str(response.reason)[:80]}", "http")
            kind = (response.getheader("Content-Type") or "").split(";", 1)[0].strip().lower()
            if kind == "text/event-stream":
                self._read_events(response, deliver, message.get("id"))
            elif kind == "application/json":
                self._deliver_json(self._read_body(response), deliver)
            else:
                raise McpError(f"answered with content type {kind[:60]!r}, not JSON or an event stream", "protocol")
        except (socket.timeout, TimeoutError):
            self.stuck = True
            raise McpError("no complete answer in time", "timeout") from None
        except (OSError, http.client.HTTPException) as exc:
            raise McpError(f"could not be reached ({type(exc).__name__})", "closed") from None
        finally:
            if request_id is not None:
                with self._lock:
                    self._posts.pop(request_id, None)
            if response is not None:
                response.close()
            conn.close()
            if raw is not None:
                raw.close()

    def abort(self, request_id: Any) -> None:
        """End the POST waiting for the answer to ``request_id`` now; a later send of that request ends at once."""
        with self._lock:
            self._aborted.append(request_id)
            sock = self._posts.get(request_id)
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def _read_body(self, response: http.client.HTTPResponse) -> bytes:
        chunks: list[bytes] = []
        size = 0
        while True:
            chunk = response.read1(65536)
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
            deliver(check_message(item))

    def _read_events(self, response: http.client.HTTPResponse, deliver: Deliver, request_id: Any) -> None:
        """Read server-sent events until the reply to ``request_id`` arrives or the stream ends."""
        limit = self.max_message_bytes
        data: list[bytes] = []
        size = 0
        while True:
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
            message = parse_message(payload)
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
        self._shut_stream()
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


class _DeadlineSocket:
    """A connected socket for one HTTP exchange, as ``http.client`` uses it: nothing it does outlasts ``deadline``.

    ``http.client`` reads the status line, the headers and the body through ``makefile``; each
    read here waits at most what is left before the deadline (a per-read timeout alone lets a
    peer that sends one byte at a time hold a call for ever). ``close`` is the exchange's to do:
    ``http.client`` closes the connection early when it hands it to the response.
    """

    __slots__ = ("sock", "deadline")

    def __init__(self, sock: socket.socket, deadline: float) -> None:
        self.sock = sock
        self.deadline = deadline

    def _left(self) -> None:
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError("the deadline passed")
        self.sock.settimeout(remaining)

    def sendall(self, data: bytes) -> None:
        self._left()
        self.sock.sendall(data)  # a timeout bounds the whole of sendall (Python 3.5+)

    def recv_into(self, buffer: Any, nbytes: int = 0) -> int:
        self._left()
        return self.sock.recv_into(buffer, nbytes)

    def makefile(self, mode: str = "rb", buffering: int = -1) -> io.BufferedReader:
        return io.BufferedReader(_Reader(self))

    def close(self) -> None:
        """Leave the socket open: the exchange closes it."""


class _Reader(io.RawIOBase):
    """The raw stream ``makefile`` gives: reads through the deadline socket."""

    def __init__(self, sock: _DeadlineSocket) -> None:
        self._sock = sock

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        return self._sock.recv_into(buffer)


def _positive_int(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise TypeError(f"{name} must be a positive int")
    return value

