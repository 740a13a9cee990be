"""MCP resources: a stdlib client over stdio and a freshness-limited cache that fills records.

>>> cache = ResourceCache({}, max_age=3600, max_age_by_mime={"image/*": 60})
>>> cache.max_age_for("file:///logo.png", "image/png"), cache.max_age_for("file:///a.md", "text/markdown")
(60.0, 3600.0)

Theory of operation. ``McpClient`` starts the server command as a child process and speaks
JSON-RPC 2.0 to it over the MCP stdio transport: one JSON message per line, UTF-8, no embedded
newlines. A reader thread turns the child's stdout into a queue of lines (and an end-of-file
mark), so every wait is bounded by a timeout even when the server hangs; a second thread drains
stderr into a short tail kept for diagnostics. Requests are serialized by a lock, answered in
order; replies to requests that already timed out are recognised by id and dropped. The server may
send its own requests (``ping`` is answered, others refused with "method not found") and
notifications (ignored). ``ResourceCache`` sits in front of one or more clients and turns pending
``McpResource`` records into retrieved or failed ones; it is the only other place (with the
client) that talks to MCP servers.
"""

import collections
import json
import logging
import queue
import subprocess
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import IO, Any, Optional, Union

from ..errors import ProcessingError
from .._checks import type_name
from ..records import McpResource

__all__ = ["PROTOCOL_VERSION", "McpError", "McpClient", "McpResourceInfo", "ResourceCache"]

log = logging.getLogger(__name__)

PROTOCOL_VERSION = "2025-11-25"
_ACCEPTED_VERSIONS = frozenset({"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"})
_MAX_LINE = 64 * 1024 * 1024
_MAX_PAGES = 1000
_STDERR_TAIL = 50
_EOF = object()


class McpError(ProcessingError):
    """An MCP exchange failed; ``code`` says how (a stable word), ``rpc_code`` the server's code.

    >>> err = McpError("server error -32002: Resource not found", code="server", rpc_code=-32002)
    >>> err.code, err.rpc_code, str(err)
    ('server', -32002, 'server error -32002: Resource not found')

    Codes: ``start`` (the command could not be started), ``closed`` (the server exited or closed
    its output), ``timeout`` (no reply in time), ``protocol`` (a malformed or unexpected reply),
    ``server`` (the server answered with a JSON-RPC error; ``rpc_code`` and ``data`` keep it).
    ``stderr`` holds the last lines the server wrote to its standard error, for diagnostics.
    """

    def __init__(
        self,
        message: str,
        code: str = "protocol",
        rpc_code: Optional[int] = None,
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
    title: Optional[str] = None
    description: Optional[str] = None
    mime_type: Optional[str] = None
    size: Optional[int] = None

    def __repr__(self) -> str:
        return f"McpResourceInfo(uri={self.uri!r}, name={self.name!r}, mime_type={self.mime_type!r})"


class McpClient:
    """Talk to one MCP server over stdio: start it, initialize, list and read resources.

    >>> client = McpClient(["python", "server.py"], name="docs", timeout=5)
    >>> client
    McpClient(name='docs', running=False)

    Use it as a context manager (``with McpClient(cmd) as client:``) or call ``start()`` and
    ``close()``. ``timeout`` (seconds) bounds every wait for a reply, so a hung server raises
    ``McpError(code="timeout")`` instead of blocking. All failures raise ``McpError``.
    Thread-safe: concurrent requests are sent one at a time.
    """

    def __init__(
        self,
        command: Sequence[str],
        *,
        name: Optional[str] = None,
        timeout: float = 30.0,
        env: Optional[Mapping[str, str]] = None,
        cwd: Optional[str] = None,
    ) -> None:
        if isinstance(command, str) or not command or not all(isinstance(a, str) for a in command):
            raise TypeError("command must be a non-empty sequence of strings, e.g. [sys.executable, 'server.py']")
        if not (isinstance(timeout, (int, float)) and not isinstance(timeout, bool) and timeout > 0):
            raise TypeError("timeout must be a positive number of seconds")
        self.command = tuple(command)
        self.name = name if name else command[0].rsplit("/", 1)[-1]
        self.timeout = float(timeout)
        self._env = dict(env) if env is not None else None
        self._cwd = cwd
        self._proc: Optional["subprocess.Popen[bytes]"] = None
        self._lines: "queue.Queue[object]" = queue.Queue()
        self._stderr: "collections.deque[str]" = collections.deque(maxlen=_STDERR_TAIL)
        self._lock = threading.Lock()
        self._next_id = 1
        self._dead: Optional[str] = None
        self._hung = False
        self.server_info: Mapping[str, Any] = {}
        self.capabilities: Mapping[str, Any] = {}
        self.protocol_version: Optional[str] = None

    def __repr__(self) -> str:
        running = self._proc is not None and self._dead is None
        return f"McpClient(name={self.name!r}, running={running})"

    def __enter__(self) -> "McpClient":
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def stderr_tail(self) -> str:
        """Return the last lines the server wrote to its standard error."""
        return "".join(self._stderr)

    # --- process ---------------------------------------------------------------------------

    def start(self) -> "McpClient":
        """Start the server and run the MCP handshake (``initialize``, then ``initialized``)."""
        if self._proc is not None:
            raise RuntimeError("this client was already started; make a new McpClient to restart")
        try:
            self._proc = subprocess.Popen(
                self.command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=self._env,
                cwd=self._cwd,
            )
        except OSError as exc:
            self._dead = "not started"
            raise McpError(
                f"could not start MCP server {self.name!r}: {exc.strerror or type(exc).__name__}", "start"
            ) from None
        assert self._proc.stdout is not None and self._proc.stderr is not None
        for target, stream in ((self._read_stdout, self._proc.stdout), (self._read_stderr, self._proc.stderr)):
            threading.Thread(target=target, args=(stream,), name=f"mcp-{self.name}", daemon=True).start()
        try:
            self._initialize()
        except BaseException:
            self.close()
            raise
        return self

    def _read_stdout(self, stream: IO[bytes]) -> None:
        try:
            while True:
                line = stream.readline(_MAX_LINE)
                if not line:
                    break
                self._lines.put(line)
        except (OSError, ValueError):
            pass
        self._lines.put(_EOF)

    def _read_stderr(self, stream: IO[bytes]) -> None:
        try:
            for raw in iter(stream.readline, b""):
                self._stderr.append(raw[:500].decode("utf-8", "replace"))
        except (OSError, ValueError):
            pass

    def close(self) -> None:
        """Stop the server: close its input, wait, then terminate and kill if it lingers.

        As the MCP stdio transport asks: a server gets two seconds to exit after its input is
        closed (none if it stopped answering), then SIGTERM, then SIGKILL.
        """
        proc = self._proc
        if self._dead is None:
            self._dead = "closed by the client"
        if proc is None:
            return
        try:
            if proc.stdin is not None and not proc.stdin.closed:
                proc.stdin.close()
        except OSError:
            pass
        for stop in (None, proc.terminate, proc.kill):
            if stop is not None:
                try:
                    stop()
                except OSError:
                    pass
            try:
                # a server that stopped answering gets no grace period to exit on its own
                proc.wait(timeout=0.05 if stop is None and self._hung else 2)
                break
            except subprocess.TimeoutExpired:
                continue
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                try:
                    stream.close()
                except OSError:
                    pass

    # --- JSON-RPC --------------------------------------------------------------------------

    def _error(self, message: str, code: str, **extra: Any) -> McpError:
        return McpError(f"MCP server {self.name!r}: {message}", code, stderr=self.stderr_tail, **extra)

    def _exit_note(self) -> str:
        proc = self._proc
        if proc is None:
            return "exited"
        try:
            status = proc.wait(timeout=1)
        except subprocess.TimeoutExpired:
            return "closed its output"
        return f"exited with status {status}"

    def _send(self, message: Mapping[str, Any]) -> None:
        proc = self._proc
        if proc is None:
            raise RuntimeError("call start() (or use the client as a context manager) first")
        if self._dead is not None:
            raise self._error(f"not running ({self._dead})", "closed")
        assert proc.stdin is not None
        data = json.dumps(message, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        try:
            proc.stdin.write(data.encode("utf-8") + b"\n")
            proc.stdin.flush()
        except (BrokenPipeError, ValueError, OSError):
            self._dead = self._exit_note()
            raise self._error(f"{self._dead} (could not send)", "closed") from None

    def notify(self, method: str, params: Optional[Mapping[str, Any]] = None) -> None:
        """Send a JSON-RPC notification (no reply expected)."""
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = dict(params)
        with self._lock:
            self._send(message)

    def request(self, method: str, params: Optional[Mapping[str, Any]] = None, *, timeout: Optional[float] = None) -> dict[str, Any]:
        """Send a JSON-RPC request and return its ``result`` object, waiting at most ``timeout``."""
        with self._lock:
            request_id = self._next_id
            self._next_id += 1
            message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
            if params is not None:
                message["params"] = dict(params)
            self._send(message)
            deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
            while True:
                remaining = deadline - time.monotonic()
                try:
                    if remaining <= 0:
                        raise queue.Empty
                    line = self._lines.get(timeout=remaining)
                except queue.Empty:
                    self._hung = True
                    raise self._error(
                        f"no reply to {method} within {self.timeout if timeout is None else timeout:g} s", "timeout"
                    ) from None
                if line is _EOF:
                    self._dead = self._exit_note()
                    raise self._error(f"{self._dead} before replying to {method}", "closed")
                self._hung = False
                reply = self._parse(line, method)  # type: ignore[arg-type]
                if reply is None:
                    continue
                if reply.get("id") != request_id:
                    log.debug("MCP server %r: dropping a reply to an earlier request", self.name)
                    continue
                return self._result(reply, method)

    def _parse(self, line: bytes, method: str) -> Optional[dict[str, Any]]:
        """Return the reply in ``line``, or None when it was a server request or notification."""
        if not line.endswith(b"\n") and len(line) >= _MAX_LINE:
            self._dead = "sent a message over the size limit"
            raise self._error(f"sent a message longer than {_MAX_LINE} bytes in reply to {method}", "protocol")
        if not line.strip():
            return None
        try:
            message = json.loads(line.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            raise self._error(f"malformed reply to {method}: not a JSON-RPC message (invalid JSON)", "protocol") from None
        if not isinstance(message, dict):
            raise self._error(f"malformed reply to {method}: expected a JSON object, got {type_name(message)}", "protocol")
        if message.get("jsonrpc") != "2.0":
            raise self._error(f'malformed reply to {method}: "jsonrpc" must be "2.0"', "protocol")
        if "method" in message:
            self._serve(message)
            return None
        if "id" not in message:
            raise self._error(f"malformed reply to {method}: no id", "protocol")
        return message

    def _serve(self, message: dict[str, Any]) -> None:
        """Answer a request the server sent us (``ping``), or drop a notification."""
        method = message.get("method")
        if "id" not in message:
            log.debug("MCP server %r: notification %s", self.name, str(method)[:80])
            return
        reply: dict[str, Any] = {"jsonrpc": "2.0", "id": message["id"]}
        if method == "ping":
            reply["result"] = {}
        else:
            reply["error"] = {"code": -32601, "message": "Method not found"}
        self._send(reply)

    def _result(self, reply: dict[str, Any], method: str) -> dict[str, Any]:
        if "error" in reply:
            error = reply["error"]
            if not isinstance(error, dict) or not isinstance(error.get("code"), int):
                raise self._error(f"malformed error reply to {method}", "protocol")
            text = error.get("message")
            text = text[:200] if isinstance(text, str) else ""
            raise self._error(
                f"{method} failed with error {error['code']}: {text}",
                "server",
                rpc_code=error["code"],
                data=error.get("data"),
            )
        result = reply.get("result")
        if not isinstance(result, dict):
            raise self._error(f"malformed reply to {method}: result must be an object, got {type_name(result)}", "protocol")
        return result

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
        self.notify("notifications/initialized")

    def list_resources(self) -> tuple[McpResourceInfo, ...]:
        """Return every resource the server lists, following ``nextCursor`` pages."""
        found: list[McpResourceInfo] = []
        cursor: Optional[str] = None
        for _ in range(_MAX_PAGES):
            result = self.request("resources/list", None if cursor is None else {"cursor": cursor})
            items = result.get("resources")
            if not isinstance(items, list):
                raise self._error("malformed reply to resources/list: resources must be an array", "protocol")
            for index, item in enumerate(items):
                found.append(self._info(item, index))
            next_cursor = result.get("nextCursor")
            if next_cursor is None:
                return tuple(found)
            if not isinstance(next_cursor, str) or next_cursor == cursor:
                raise self._error("malformed reply to resources/list: bad nextCursor", "protocol")
            cursor = next_cursor
        raise self._error(f"resources/list went on for more than {_MAX_PAGES} pages", "protocol")

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
            out.append(
                {
                    "uri": item["uri"],
                    "mimeType": mime if isinstance(mime, str) else None,
                    "text": text,
                    "blob": blob,
                }
            )
        return tuple(out)


def _opt_str(item: Mapping[str, Any], key: str) -> Optional[str]:
    value = item.get(key)
    return value if isinstance(value, str) else None


@dataclass(frozen=True, slots=True)
class _Entry:
    text: Optional[str]
    blob: Optional[str]
    mime_type: Optional[str]
    retrieved_at: datetime
    fetched: float


ClientsArg = Union[McpClient, Mapping[str, McpClient], Iterable[McpClient]]


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
        max_age_by_mime: Optional[Mapping[str, float]] = None,
        max_age_by_scheme: Optional[Mapping[str, float]] = None,
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

    def max_age_for(self, uri: str, mime_type: Optional[str]) -> float:
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

    def invalidate(self, server: Optional[str] = None, uri: Optional[str] = None) -> None:
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
