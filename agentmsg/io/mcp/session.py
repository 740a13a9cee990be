"""The MCP client: one session with one server, over any transport.

Theory of operation. ``McpClient`` speaks JSON-RPC 2.0 through a transport (``.transport``): it
runs the ``initialize`` handshake, then sends requests and notifications. It keeps one table of
requests waiting for their reply, keyed by id (``PendingRequests``): a reply fills its entry and
wakes the caller, a reply nobody waits for any more is dropped, so concurrent requests share one connection and every
wait is bounded by its deadline. A request that times out or is cancelled (``Cancellation``)
tells the server with ``notifications/cancelled``; when a Streamable HTTP server ended the
session (404), the client runs ``initialize`` again and sends the request once more (``_send``).
Messages are dispatched as they arrive, on the transport's thread, and nothing queues: the
server's requests go to ``ServerRequests`` (``server_requests``: ping, roots, sampling,
elicitation), ``notifications/progress`` to the waiting call's callback,
``notifications/message`` to Python logging; the list-changed notifications mark a list stale
and ``notifications/resources/updated`` a subscribed resource. A server's request id lives apart
from ours: a request is told from a reply by its ``method``. ``close()`` (also run when a client
is garbage-collected or the interpreter exits) closes the transport and fails every waiting
request. The modules ``tools``, ``resources`` and ``prompts`` read what their replies mean; the
client adds its server's name to their errors.
"""

from __future__ import annotations

import logging
import os
import threading
import time
import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from ..._frozen import thaw_json
from ...tools import ToolDefinition
from ._bookkeeping import PendingRequests, Subscriptions, weak_callback
from .elicitation import Elicitor
from .sampling import Sampler
from .server_requests import McpRoot, ServerRequests, check_log_level, check_roots
from .prompts import (
    McpCompletion,
    McpPrompt,
    McpPromptResult,
    completion,
    completion_reference,
    prompt_arguments,
    prompt_info,
    prompt_result,
)
from .protocol import ACCEPTED_VERSIONS, PROTOCOL_VERSION, Cancellation, McpError, ProgressCallback, reply_result
from .resources import McpResourceInfo, McpResourceTemplate, resource_contents, resource_info, resource_template
from .tools import ListedTool, McpToolFunction, McpToolResult, SkippedTool, listed_tools, server_name
from .transport import MAX_MESSAGE_BYTES, HttpTransport, SessionEnded, StdioTransport, Transport

if TYPE_CHECKING:
    from ..execution import Tool

__all__ = ["McpClient"]

log = logging.getLogger(__name__)

_MAX_PAGES = 1000
_NOTIFICATION_NAMES = {
    "notifications/tools/list_changed": "tools",
    "notifications/resources/list_changed": "resources",
    "notifications/prompts/list_changed": "prompts",
}


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
    its tool list changed; ``on_notification(method, params)`` receives every notification the
    server sends (on a reader thread; after the client acted on it). ``skipped_tools`` says which
    tools the last ``list_tools`` left out. A Streamable HTTP server that ended the session gets
    a new one (see ``_send``).

    What the host offers the server (each declared in ``initialize`` only when given; see
    ``server_requests``): ``roots`` (``McpRoot``s, ``file://`` URIs or paths; ``set_roots``
    changes them), ``sampling`` (``SamplingRequest -> SamplingResult``, or None to refuse;
    ``provider_sampler`` makes one from a provider codec) and ``elicitation``
    (``ElicitationRequest -> ElicitationResponse``). Each handler runs on a thread of its own,
    at most ``handler_timeout`` seconds.
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
        on_notification: Callable[[str, Mapping[str, Any]], None] | None = None,
        roots: Sequence[McpRoot | str | os.PathLike[str]] | None = None,
        sampling: Sampler | None = None,
        elicitation: Elicitor | None = None,
        handler_timeout: float = 300.0,
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
        self.on_notification = on_notification
        self.server_requests = ServerRequests(
            self.name, weak_callback(self._answer), sampling=sampling, elicitation=elicitation, roots=roots,
            handler_timeout=handler_timeout,
        )
        self._pending = PendingRequests()
        self._session = 0  # counts the HTTP sessions the server ended (see _send)
        self._renewing = threading.Lock()
        self._started = False
        self._dead: McpError | None = None
        self._tools: dict[str, ListedTool] | None = None
        self._tools_stale = True
        self.skipped_tools: tuple[SkippedTool, ...] = ()  # what the last list_tools left out
        self._stale = {"resources": True, "prompts": True}
        self._subscribed = Subscriptions()
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
            self.transport.open(weak_callback(self._deliver), weak_callback(self._lost))
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
        self.server_requests.close()
        self._finalizer()
        self._pending.fail_all(self._dead)

    def _error(self, message: str, code: str, **extra: Any) -> McpError:
        return McpError(f"MCP server {self.name!r}: {message}", code, stderr=self.stderr_tail, **extra)

    @contextmanager
    def _naming_the_server(self) -> Iterator[None]:
        """Raise an ``McpError`` from inside again with this server's name and stderr in it."""
        try:
            yield
        except McpError as exc:
            raise self._error(exc.message, exc.code, rpc_code=exc.rpc_code, data=exc.data) from None

    def _lost(self, error: McpError) -> None:
        """The connection ended: every waiting request fails with ``error``."""
        if self._dead is None:
            self._dead = error
        self._pending.fail_all(error)

    def _deliver(self, message: dict[str, Any] | McpError) -> None:
        """Dispatch one message from the server (runs on the transport's thread)."""
        if isinstance(message, McpError):
            # an unreadable message: whoever waits cannot get a reply from it
            if not self._pending.fail_all(message):
                log.warning("MCP server %r: %s", self.name, message.message)
            return
        if "method" in message:
            self._serve(message)
            return
        found = self._pending.take(message.get("id"))
        if found is None:
            log.debug("MCP server %r: dropping a reply nobody waits for", self.name)
            return
        found.reply = message
        found.event.set()

    def _serve(self, message: dict[str, Any]) -> None:
        """Answer a request the server sent (through ``ServerRequests``), or act on a notification."""
        if "id" in message:
            self.server_requests.handle(message)
            return
        method = message.get("method")
        params = message.get("params")
        if not isinstance(params, dict):
            params = {}
        if method == "notifications/progress":
            self._progress(params)
        elif method == "notifications/message":
            self.server_requests.log_message(params)
        elif method == "notifications/cancelled":
            self.server_requests.cancelled(params)
        elif method == "notifications/resources/updated":
            self._subscribed.updated(params.get("uri"))
        elif method in _NOTIFICATION_NAMES:
            kind = _NOTIFICATION_NAMES[method]
            if kind == "tools":
                self._tools_stale = True
                self._call("on_tools_changed", self.on_tools_changed)
            else:
                self._stale[kind] = True
        else:
            log.debug("MCP server %r: notification %s", self.name, str(method)[:80])
        if self.on_notification is not None and isinstance(method, str):
            self._call("on_notification", self.on_notification, method, params)

    def _call(self, what: str, callback: Callable[..., None] | None, *args: Any) -> None:
        if callback is None:
            return
        try:
            callback(*args)
        except Exception as exc:
            log.warning("MCP server %r: the %s callback raised %s", self.name, what, type(exc).__name__)
            log.debug("MCP server %r: the %s callback raised", self.name, what, exc_info=True)

    def _answer(self, reply: dict[str, Any]) -> None:
        """Send a reply to one of the server's requests (best effort: a lost connection is logged)."""
        try:
            self.transport.send(reply, time.monotonic() + self.timeout)
        except McpError as exc:
            log.debug("MCP server %r: could not answer its request: %s", self.name, exc.message)

    def _progress(self, params: dict[str, Any]) -> None:
        waiter = self._pending.get(params.get("progressToken"))
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
        with self._naming_the_server():
            self.transport.send(message, time.monotonic() + self.timeout)

    def request(
        self,
        method: str,
        params: Mapping[str, Any] | None = None,
        *,
        timeout: float | None = None,
        on_progress: ProgressCallback | None = None,
        cancel: Cancellation | None = None,
    ) -> dict[str, Any]:
        """Send a JSON-RPC request and return its ``result`` object, waiting at most ``timeout``.

        ``on_progress(progress, total, message)`` receives the server's progress notifications
        for this request (on a reader thread). ``cancel`` (a ``Cancellation``) ends the wait
        with ``McpError(code="cancelled")``. A request that times out or is cancelled sends
        the server ``notifications/cancelled`` (never for ``initialize``, as MCP asks).
        """
        self._check_open()
        if cancel is not None and cancel.reason is not None:
            raise self._error(f"{method} was cancelled before it was sent ({cancel.reason})", "cancelled")
        limit = self.timeout if timeout is None else timeout
        if isinstance(limit, bool) or not isinstance(limit, (int, float)) or not limit > 0:
            raise TypeError("timeout must be a positive number of seconds")
        deadline = time.monotonic() + limit
        request_id, waiter = self._pending.add(on_progress)
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None or on_progress is not None:
            message["params"] = dict(params or {})
        if on_progress is not None:
            message["params"]["_meta"] = {**message["params"].get("_meta", {}), "progressToken": request_id}
        unwatch = cancel.watch(lambda: self._cancelled(request_id, cancel)) if cancel is not None else None
        try:
            try:
                self._send(message, method, deadline)
            except McpError as exc:
                if waiter.error is None or waiter.error.code != "cancelled":  # else the cancel ended the send
                    if exc.code == "timeout":
                        self._timed_out(request_id, method)
                    raise self._error(f"{exc.message} (sending {method})", exc.code) from None
            if not waiter.event.wait(max(0.0, deadline - time.monotonic())):
                self._timed_out(request_id, method)
                raise self._error(f"no reply to {method} within {limit:g} s", "timeout")
        finally:
            if unwatch is not None:
                unwatch()
            self._pending.take(request_id)
        if waiter.error is not None:
            error = waiter.error
            if error.code == "cancelled":
                self._tell_cancelled(request_id, error.message)
                raise self._error(f"{method} was cancelled ({error.message})", "cancelled")
            if error.code == "closed":
                raise self._error(f"{error.message} before replying to {method}", "closed")
            raise self._error(f"{error.message} (waiting for the reply to {method})", error.code)
        assert waiter.reply is not None
        with self._naming_the_server():
            return reply_result(waiter.reply, method)

    def _send(self, message: dict[str, Any], method: str, deadline: float) -> None:
        """Send a request; when the HTTP server ended the session (404), start a new one and send it again, once.

        A 404 means the request was not run (there was no session to run it in), so sending it
        again runs it at most once, ``tools/call`` too. A request that failed any other way is
        never sent again: the server may have run it.
        """
        session = self._session
        try:
            self.transport.send(message, deadline)
            return
        except SessionEnded:
            if method == "initialize":
                raise
        if self._new_session(session, deadline):
            self._subscribe_again(deadline)
        self.transport.send(message, deadline)

    def _new_session(self, ended: int, deadline: float) -> bool:
        """Start a new session after session number ``ended`` ended; False if another thread already did."""
        if not self._renewing.acquire(timeout=max(0.0, deadline - time.monotonic())):
            raise McpError("no time left to start a new session", "timeout")
        try:
            if self._session != ended:
                return False
            log.info("MCP server %r ended the session; starting a new one", self.name)
            self._initialize(deadline)
            self._session += 1
            self._tools_stale = True  # a new session may list other tools, resources and prompts
            self._stale = dict.fromkeys(self._stale, True)
            return True
        finally:
            self._renewing.release()

    def _subscribe_again(self, deadline: float) -> None:
        """Subscribe the new session to what the old one was; each resource counts as changed (an update may be lost)."""
        for uri in self._subscribed.all_updated():
            try:
                self.request("resources/subscribe", {"uri": uri}, timeout=max(deadline - time.monotonic(), 0.001))
            except McpError as exc:
                log.warning("MCP server %r: a subscription could not be renewed: %s", self.name, exc.code)

    def _cancelled(self, request_id: int, cancel: Cancellation) -> None:
        """A ``Cancellation`` fired: wake the request's caller (which tells the server), end its POST."""
        waiter = self._pending.take(request_id)
        if waiter is None:
            return
        waiter.fail(McpError(cancel.reason or "cancelled", "cancelled"))
        abort = getattr(self.transport, "abort", None)
        if abort is not None:
            abort(request_id)

    def _timed_out(self, request_id: int, method: str) -> None:
        stuck = getattr(self.transport, "stuck", None)
        if stuck is not None:
            self.transport.stuck = True  # type: ignore[attr-defined]  # checked with getattr above
        if method != "initialize":  # MCP: the client must not cancel its initialize
            self._tell_cancelled(request_id, "timeout")

    def _tell_cancelled(self, request_id: int, reason: str) -> None:
        try:  # the specification asks to tell the server; best effort, waits a second at most
            self.transport.send(
                {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": request_id, "reason": reason}},
                time.monotonic() + 1.0,
            )
        except McpError:
            pass

    # --- MCP -------------------------------------------------------------------------------

    def _initialize(self, deadline: float | None = None) -> None:
        from ... import __version__

        left = None if deadline is None else max(deadline - time.monotonic(), 0.001)  # a new session: the call's time
        result = self.request(
            "initialize",
            {
                "protocolVersion": PROTOCOL_VERSION,
                "capabilities": self.server_requests.capabilities(),
                "clientInfo": {"name": "agentmsg", "version": __version__},
            },
            timeout=left,
        )
        version = result.get("protocolVersion")
        if not isinstance(version, str):
            raise self._error("malformed reply to initialize: protocolVersion must be a string", "protocol")
        if version not in ACCEPTED_VERSIONS:
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
        self.transport.listen(time.monotonic() + self.timeout if deadline is None else deadline)

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
        else its name). Its name is one every provider takes (``tools.tool_names``): the
        server's own when it is such a name (``list-recipes``, as the canonical
        ``list_x2d_recipes``), else an alias (``db.query`` is ``db_query``; a name past 64
        characters is cut and ends with 8 hex digits of its hash). ``call_tool`` takes that
        name (or the server's own) and sends the server's own. An entry that cannot be a tool
        (no name, control characters in it, a repeated name, no object ``inputSchema``) is
        left out with a warning in the log and a ``SkippedTool`` in ``skipped_tools``.
        """
        self._tools_stale = False  # a change announced while we read is seen next time
        items = self._pages("tools/list", "tools")
        self._tools, self.skipped_tools = listed_tools(items)
        for skipped in self.skipped_tools:
            shown = "" if skipped.name is None else f" {skipped.name[:60]!r}"
            log.warning("MCP server %r: tools/list: tools[%d]%s left out: %s", self.name, skipped.index, shown,
                        skipped.reason)
        return tuple(tool.definition for tool in self._tools.values())

    def call_tool(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        timeout: float | None = None,
        on_progress: ProgressCallback | None = None,
        cancel: Cancellation | None = None,
    ) -> McpToolResult:
        """Call a tool (``tools/call``) and return its result; a tool that failed has ``is_error``.

        ``name`` is the name ``list_tools`` gave, or the server's own. ``arguments``
        is a JSON object (a ``FrozenDict`` too). ``on_progress(progress, total, message)``
        receives the server's progress notifications for the call; ``cancel`` (a
        ``Cancellation``) ends it early. A failure to reach the server or a JSON-RPC error
        raises ``McpError``; a tool's own failure is a result with ``is_error`` set, as MCP asks.
        """
        if not isinstance(name, str) or not name:
            raise TypeError("name must be a non-empty string")
        if arguments is not None and not isinstance(arguments, Mapping):
            raise TypeError("arguments must be a mapping (a JSON object)")
        params = {"name": server_name(self._tools, name), "arguments": thaw_json(arguments) if arguments else {}}
        result = self.request("tools/call", params, timeout=timeout, on_progress=on_progress, cancel=cancel)
        with self._naming_the_server():
            return McpToolResult.from_dict(result)

    def tools(self) -> tuple[Tool, ...]:
        """Return the server's tools as ``agentmsg.io.execution.Tool``s for a ``ToolRegistry``.

        Each tool's function (an ``McpToolFunction``) calls the server and returns the
        ``CallToolResult`` dict (``McpToolResult.to_dict``); a tool the server marks
        ``readOnlyHint`` is ``safe`` (it may run in parallel with other safe calls). Lists the
        tools first if that was not done.
        """
        from ..execution import Tool

        if self._tools is None or self._tools_stale:
            self.list_tools()
        assert self._tools is not None
        return tuple(
            Tool(tool.definition, McpToolFunction(self, tool.definition.name), safe=tool.read_only)
            for tool in self._tools.values()
        )

    # resources

    def list_resources(self) -> tuple[McpResourceInfo, ...]:
        """Return every resource the server lists, following ``nextCursor`` pages."""
        self._stale["resources"] = False
        items = self._pages("resources/list", "resources")
        with self._naming_the_server():
            return tuple(resource_info(item, index) for index, item in enumerate(items))

    def read_resource(self, uri: str) -> tuple[dict[str, Any], ...]:
        """Return the contents of ``uri`` (``resources/read``): dicts with uri, mimeType and text or blob.

        Each item has exactly one of ``text`` (a string) and ``blob`` (base64 text); anything else
        raises ``McpError(code="protocol")``.
        """
        if not isinstance(uri, str) or not uri:
            raise TypeError("uri must be a non-empty string")
        result = self.request("resources/read", {"uri": uri})
        with self._naming_the_server():
            return resource_contents(result)

    def list_resource_templates(self) -> tuple[McpResourceTemplate, ...]:
        """Return every resource template the server lists (``resources/templates/list``), following pages."""
        items = self._pages("resources/templates/list", "resourceTemplates")
        with self._naming_the_server():
            return tuple(resource_template(item, index) for index, item in enumerate(items))

    def subscribe(self, uri: str) -> None:
        """Ask the server to say when ``uri`` changes (``resources/subscribe``).

        Each ``notifications/resources/updated`` for it makes a ``ResourceCache`` entry for it
        stale, so the next ``resolve`` fetches it again (see ``resource_version``).
        """
        if not isinstance(uri, str) or not uri:
            raise TypeError("uri must be a non-empty string")
        fresh = self._subscribed.add(uri)  # before the request: an update may follow its reply at once
        try:
            self.request("resources/subscribe", {"uri": uri})
        except BaseException:
            if fresh:
                self._subscribed.drop(uri)
            raise

    def unsubscribe(self, uri: str) -> None:
        """Stop hearing about changes to ``uri`` (``resources/unsubscribe``)."""
        if not isinstance(uri, str) or not uri:
            raise TypeError("uri must be a non-empty string")
        self._subscribed.drop(uri)
        self.request("resources/unsubscribe", {"uri": uri})

    def resource_version(self, uri: str) -> int:
        """Return how many times the server said the subscribed resource ``uri`` was updated (0 if never)."""
        return self._subscribed.version(uri)

    @property
    def resources_changed(self) -> bool:
        """Return True until ``list_resources`` ran after the server last said its resources changed."""
        return self._stale["resources"]

    @property
    def prompts_changed(self) -> bool:
        """Return True until ``list_prompts`` ran after the server last said its prompts changed."""
        return self._stale["prompts"]

    # prompts

    def list_prompts(self) -> tuple[McpPrompt, ...]:
        """Return every prompt the server lists (``prompts/list``), following ``nextCursor`` pages."""
        self._stale["prompts"] = False
        items = self._pages("prompts/list", "prompts")
        with self._naming_the_server():
            return tuple(prompt_info(item, index) for index, item in enumerate(items))

    def get_prompt(self, name: str, arguments: Mapping[str, str] | None = None) -> McpPromptResult:
        """Return the prompt ``name`` filled with ``arguments`` (``prompts/get``); its messages are ``ChatMessage``s.

        ``arguments`` maps argument names to strings (MCP's rule; anything else raises
        ``ValidationError``). ``agentmsg.io.mcp.prompts`` says how content becomes parts.
        """
        if not isinstance(name, str) or not name:
            raise TypeError("name must be a non-empty string")
        params: dict[str, Any] = {"name": name}
        if arguments:
            params["arguments"] = prompt_arguments(arguments)
        result = self.request("prompts/get", params)
        with self._naming_the_server():
            return prompt_result(result)

    def complete(
        self,
        argument: str,
        value: str,
        *,
        prompt: str | None = None,
        uri_template: str | None = None,
        context: Mapping[str, str] | None = None,
    ) -> McpCompletion:
        """Return the server's suggestions for ``argument`` of a prompt or a resource template, typed so far as ``value``.

        Name the prompt (``prompt=``) or the template (``uri_template=``); ``context`` holds the
        arguments already chosen (``completion/complete``).
        """
        if not isinstance(argument, str) or not argument or not isinstance(value, str):
            raise TypeError("argument must be a non-empty string and value a string")
        params: dict[str, Any] = {"ref": completion_reference(prompt, uri_template), "argument": {"name": argument, "value": value}}
        if context:
            params["context"] = {"arguments": prompt_arguments(context)}
        result = self.request("completion/complete", params)
        with self._naming_the_server():
            return completion(result)

    # utilities

    def ping(self, *, timeout: float | None = None) -> None:
        """Check that the server answers (``ping``); a silent one raises ``McpError(code="timeout")``."""
        self.request("ping", timeout=timeout)

    def set_log_level(self, level: str) -> None:
        """Ask the server to send log messages at ``level`` and above (``logging/setLevel``).

        ``level`` is one of ``debug``, ``info``, ``notice``, ``warning``, ``error``,
        ``critical``, ``alert``, ``emergency``. The messages go to the ``agentmsg.io.mcp.server``
        logger (see ``server_requests``).
        """
        self.request("logging/setLevel", {"level": check_log_level(level)})

    def set_roots(self, roots: Sequence[McpRoot | str | os.PathLike[str]]) -> None:
        """Replace the roots the server may see, and tell it (``notifications/roots/list_changed``).

        Only for a client made with ``roots=`` (it declared the roots capability).
        """
        if self.server_requests.roots is None:
            raise RuntimeError("this client offers no roots: make it with roots=[...] to declare them")
        self.server_requests.roots = check_roots(roots)
        if self._started and self._dead is None:
            self.notify("notifications/roots/list_changed")
