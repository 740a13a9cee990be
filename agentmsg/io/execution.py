"""Tool execution: a registry of tools, an approval policy, and an executor that fills in results.

>>> registry = ToolRegistry()
>>> @registry.register(safe=True)
... def add(a: int, b: int) -> int:
...     '''Add two integers.'''
...     return a + b
>>> executor = ToolExecutor(registry, ApprovalPolicy({"add": "auto"}))
>>> run = executor.process(ToolRequest.of([ToolCall("c1", "add", {"a": 2, "b": 3})], id="q1"))
>>> run.request.approvals, [(r.tool_call_id, r.status, r.output) for r in run.results]
(('approved',), [('c1', 'success', 5)])

Theory of operation. ``ToolExecutor.process`` walks a ``ToolRequest`` record in call order.
A pending call gets the policy's decision for its tool: ``auto`` approves it, ``deny`` denies it,
``ask`` leaves it pending for a person (the caller shows it, records the decision with
``request.approve(id)`` / ``deny(id)``, and processes again, passing the results it already has
as ``completed`` so nothing runs twice).

Trust. ``deny`` always wins: a call to a denied tool never runs, whatever its recorded approval.
An ``approved`` mark is data, and data can come from anywhere (a request decoded from storage or
sent by a client), so the executor runs an ``approved`` call only when its own policy says
``auto``, when this process approved that exact call (``ToolRequest.approve``, ``with_approval``
or ``Context.approve`` note the request id, call id, name and arguments; an approval is used
once), or when the caller passes ``trust_approvals=True``; any other ``approved`` call goes back
to ``pending``. Approved calls then run: each run of consecutive calls
to tools marked ``safe`` goes to a thread pool together, any other call runs alone, so the
model's order is kept where it matters; results come back in call order, one
``ToolResultRecord`` per executed call (a denied call gets none: the context renders it).

Each call is checked against its tool's JSON Schema before the function sees it (bad arguments
give an error result, recoverable, and the function is not called); ``null`` for a parameter
that has a default means "use the default", as strict schemas make such parameters nullable. The
function runs on a daemon worker thread (reused between calls) so a per-call timeout can bound
it: Python cannot stop a thread, so a call that times out is abandoned to finish on its own (a
daemon thread cannot block the interpreter from exiting).
The output must be JSON; an exception gives an error result with the message, the stack trace
and whether it is recoverable (an exception type the tool lists as recoverable, or a timeout).
The error text (``ExceptionType: message``) is what the model reads; people see
``error_summary`` (the type alone), and the log has the type at INFO and the message at DEBUG
only; the stack trace stays on the record and is never sent. While a function runs,
``current_call()`` returns the call it serves.
Building typed arguments runs code of the tool's own types (a dataclass's ``__post_init__``):
whatever it raises becomes that call's error result, and the other calls' results are kept. On
Ctrl-C, ``process`` raises ``ToolRunInterrupted`` (a ``KeyboardInterrupt``) whose ``run`` holds
the results finished so far.
"""

from __future__ import annotations

import contextvars
import functools
import inspect
import logging
import queue
import re
import threading
import time
import traceback
import typing
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Literal, TypeVar, overload

from .. import _approvals
from .._frozen import freeze_json, thaw_json
from ..errors import ValidationError
from ..records import RequestedToolCall, ToolRequest, ToolResultRecord
from ..schema._generate import _arguments_builder, validate_arguments
from ..tools import ToolCall, ToolDefinition

__all__ = [
    "Policy",
    "Tool",
    "ToolRegistry",
    "ApprovalPolicy",
    "ToolRun",
    "ToolRunInterrupted",
    "ToolExecutor",
    "current_call",
    "error_summary",
]

log = logging.getLogger(__name__)

Policy = Literal["auto", "ask", "deny"]
_POLICIES: tuple[Policy, ...] = ("auto", "ask", "deny")
F = TypeVar("F", bound=Callable[..., Any])
_CALL: contextvars.ContextVar[ToolCall | None] = contextvars.ContextVar("agentmsg_tool_call", default=None)


def current_call() -> ToolCall | None:
    """Return the tool call whose function runs here, inside ``ToolExecutor``; None elsewhere.

    >>> registry = ToolRegistry()
    >>> @registry.register
    ... def whoami() -> str:
    ...     '''Say which call this is.'''
    ...     return current_call().id
    >>> ToolExecutor(registry).execute(ToolCall("call_7", "whoami", {})).output
    'call_7'

    A tool's function is called with its arguments only; this tells it (or a wrapper such as an
    MCP tool's function) which of several identical calls it serves.
    """
    return _CALL.get()


@dataclass(frozen=True, slots=True)
class Tool:
    """Pair a tool's definition with its Python function and how it may be run.

    >>> def ping() -> str:
    ...     '''Answer pong.'''
    ...     return "pong"
    >>> Tool(ToolDefinition.from_function(ping), ping, safe=True)
    Tool(name='ping', safe=True, recoverable=(), timeout=None)

    ``safe`` tools may run concurrently with other safe calls; ``recoverable`` lists the
    exception types after which retrying may help; ``timeout`` (seconds) overrides the
    executor's per-call timeout.
    """

    definition: ToolDefinition
    function: Callable[..., Any]
    safe: bool = False
    recoverable: tuple[type[BaseException], ...] = ()
    timeout: float | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.definition, ToolDefinition):
            raise TypeError(f"definition must be a ToolDefinition, got {type(self.definition).__name__}")
        if not callable(self.function):
            raise TypeError("function must be callable")
        recoverable = self.recoverable
        if isinstance(recoverable, type):
            recoverable = (recoverable,)
        recoverable = tuple(recoverable)
        if not all(isinstance(t, type) and issubclass(t, BaseException) for t in recoverable):
            raise TypeError("recoverable must be exception types")
        object.__setattr__(self, "recoverable", recoverable)
        object.__setattr__(self, "safe", bool(self.safe))
        if self.timeout is not None:
            object.__setattr__(self, "timeout", _positive(self.timeout, "timeout"))

    @property
    def name(self) -> str:
        """Return the tool's name."""
        return self.definition.name

    def __repr__(self) -> str:
        names = tuple(t.__name__ for t in self.recoverable)
        return f"Tool(name={self.name!r}, safe={self.safe}, recoverable={names!r}, timeout={self.timeout})"


def _positive(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise TypeError(f"{name} must be a positive number of seconds")
    return float(value)


class ToolRegistry:
    """Hold the tools an agent may call, by name.

    >>> registry = ToolRegistry()
    >>> def now() -> str:
    ...     '''Return the time.'''
    ...     return "12:00"
    >>> registry.register(now)
    Tool(name='now', safe=False, recoverable=(), timeout=None)
    >>> "now" in registry, [d.name for d in registry.definitions()]
    (True, ['now'])

    ``register`` works as a call or as a decorator (``@registry.register(safe=True)``). The
    definition is generated from the function's signature and docstring
    (``ToolDefinition.from_function``) unless one is given.
    """

    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        self._lock = threading.Lock()
        for tool in tools:
            self.add(tool)

    def add(self, tool: Tool) -> Tool:
        """Add a ready-made ``Tool``; a second tool with the same name is refused."""
        if not isinstance(tool, Tool):
            raise TypeError(f"expected a Tool, got {type(tool).__name__}")
        with self._lock:
            if tool.name in self._tools:
                raise ValueError(f"a tool named {tool.name!r} is already registered")
            self._tools[tool.name] = tool
        return tool

    @overload
    def register(
        self,
        function: None = None,
        /,
        *,
        name: str | None = ...,
        description: str | None = ...,
        definition: ToolDefinition | None = ...,
        safe: bool = ...,
        recoverable: Iterable[type[BaseException]] = ...,
        timeout: float | None = ...,
        strict: bool = ...,
    ) -> Callable[[F], F]: ...
    @overload
    def register(
        self,
        function: Callable[..., Any],
        /,
        *,
        name: str | None = ...,
        description: str | None = ...,
        definition: ToolDefinition | None = ...,
        safe: bool = ...,
        recoverable: Iterable[type[BaseException]] = ...,
        timeout: float | None = ...,
        strict: bool = ...,
    ) -> Tool: ...
    def register(
        self,
        function: Callable[..., Any] | None = None,
        /,
        *,
        name: str | None = None,
        description: str | None = None,
        definition: ToolDefinition | None = None,
        safe: bool = False,
        recoverable: Iterable[type[BaseException]] = (),
        timeout: float | None = None,
        strict: bool = True,
    ) -> Tool | Callable[[F], F]:
        """Register ``function`` as a tool (or return a decorator that does)."""

        def make(fn: Callable[..., Any]) -> Tool:
            spec = definition
            if spec is None:
                spec = ToolDefinition.from_function(fn, name=name, description=description, strict=strict)
            return self.add(Tool(spec, fn, safe, tuple(recoverable), timeout))

        if function is None:

            def decorator(fn: F) -> F:
                make(fn)
                return fn

            return decorator
        return make(function)

    def get(self, name: str) -> Tool | None:
        """Return the tool called ``name``, or None."""
        return self._tools.get(name)

    def definitions(self) -> tuple[ToolDefinition, ...]:
        """Return every tool's definition, in registration order (what a model is offered)."""
        return tuple(tool.definition for tool in self._tools.values())

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __iter__(self) -> Iterator[Tool]:
        return iter(tuple(self._tools.values()))

    def __len__(self) -> int:
        return len(self._tools)

    def __repr__(self) -> str:
        return f"ToolRegistry(tools={list(self._tools)!r})"


class ApprovalPolicy:
    """Say per tool whether a call runs without asking (``auto``), needs a person (``ask``) or is refused (``deny``).

    >>> policy = ApprovalPolicy({"read_file": "auto", "delete_file": "deny"}, default="ask")
    >>> policy.decide("read_file"), policy.decide("delete_file"), policy.decide("write_file")
    ('auto', 'deny', 'ask')
    """

    def __init__(self, rules: Mapping[str, Policy] | None = None, *, default: Policy = "ask") -> None:
        self.default = _policy(default, "default")
        self.rules: dict[str, Policy] = {str(k): _policy(v, f"rules[{k!r}]") for k, v in (rules or {}).items()}

    def decide(self, name: str) -> Policy:
        """Return the policy for the tool ``name``."""
        return self.rules.get(name, self.default)

    def __repr__(self) -> str:
        return f"ApprovalPolicy(rules={self.rules!r}, default={self.default!r})"


def _policy(value: object, name: str) -> Policy:
    for policy in _POLICIES:
        if value == policy:
            return policy
    raise ValueError(f"{name} must be one of 'auto', 'ask', 'deny'")


@dataclass(frozen=True, slots=True)
class ToolRun:
    """Hold what one ``ToolExecutor.process`` pass did: the updated request and the new results.

    >>> run = ToolRun(ToolRequest.of([ToolCall("c1", "ls", {})], id="q"), ())
    >>> [item.id for item in run.pending], run.finished
    (['c1'], False)
    """

    request: ToolRequest
    results: tuple[ToolResultRecord, ...]

    @property
    def pending(self) -> tuple[RequestedToolCall, ...]:
        """Return the calls still waiting for a person to approve or deny them."""
        return tuple(item for item in self.request.calls if item.approval == "pending")

    @property
    def finished(self) -> bool:
        """Return True when no call waits for approval."""
        return not self.pending

    def __repr__(self) -> str:
        return f"ToolRun(request={self.request.id!r}, results={len(self.results)}, pending={len(self.pending)})"


class ToolRunInterrupted(KeyboardInterrupt):
    """Ctrl-C arrived during ``ToolExecutor.process``; ``run`` holds the results finished before it.

    >>> err = ToolRunInterrupted(ToolRun(ToolRequest.of([ToolCall("c1", "ls", {})], id="q"), ()))
    >>> isinstance(err, KeyboardInterrupt), err.run.request.id
    (True, 'q')
    """

    def __init__(self, run: ToolRun) -> None:
        super().__init__("interrupted while running tool calls")
        self.run = run


class ToolExecutor:
    """Run the approved calls of ``ToolRequest`` records and return ``ToolResultRecord`` records.

    >>> ToolExecutor(ToolRegistry(), timeout=5, max_workers=4)
    ToolExecutor(tools=0, timeout=5.0, max_workers=4)

    ``policy`` defaults to asking for every tool. ``timeout`` (seconds, default 30) bounds each
    call; ``max_workers`` bounds how many safe calls run at once.
    """

    def __init__(
        self,
        registry: ToolRegistry,
        policy: ApprovalPolicy | None = None,
        *,
        timeout: float = 30.0,
        max_workers: int = 16,
    ) -> None:
        if not isinstance(registry, ToolRegistry):
            raise TypeError(f"registry must be a ToolRegistry, got {type(registry).__name__}")
        if isinstance(max_workers, bool) or not isinstance(max_workers, int) or max_workers < 1:
            raise TypeError("max_workers must be an int >= 1")
        self.registry = registry
        self.policy = ApprovalPolicy() if policy is None else policy
        self.timeout = _positive(timeout, "timeout")
        self.max_workers = max_workers

    def __repr__(self) -> str:
        return f"ToolExecutor(tools={len(self.registry)}, timeout={self.timeout}, max_workers={self.max_workers})"

    def apply_policy(self, request: ToolRequest, *, trust_approvals: bool = False) -> ToolRequest:
        """Return ``request`` with the policy applied: ``deny`` wins, untrusted approvals go back to pending.

        >>> registry = ToolRegistry([Tool(ToolDefinition("rm", "Remove.", {"type": "object"}, strict=False), print),
        ...                          Tool(ToolDefinition("ls", "List.", {"type": "object"}, strict=False), print)])
        >>> executor = ToolExecutor(registry, ApprovalPolicy({"rm": "deny"}))
        >>> stored = ToolRequest.from_dict({"type": "tool_request", "version": 1, "id": "q", "data": {"calls": [
        ...     {"id": "c1", "name": "rm", "arguments": {}, "approval": "approved"},
        ...     {"id": "c2", "name": "ls", "arguments": {}, "approval": "approved"}]}})
        >>> executor.apply_policy(stored).approvals
        ('denied', 'pending')
        >>> executor.apply_policy(stored, trust_approvals=True).approvals
        ('denied', 'approved')
        """
        return self._apply_policy(request, trust_approvals, frozenset())

    def _apply_policy(self, request: ToolRequest, trust_approvals: bool, done: Iterable[str]) -> ToolRequest:
        for item in request.calls:
            if item.name not in self.registry:
                continue
            decision = self.policy.decide(item.name)
            if decision == "deny":
                if item.approval != "denied":
                    request = request.with_approval(item.id, "denied")
            elif decision == "auto":
                if item.approval == "pending":
                    request = request.with_approval(item.id, "approved")
            elif (
                item.approval == "approved"
                and not trust_approvals
                and item.id not in done  # it already ran: its approval was used, not forged
                and not _approvals.is_noted(request.id, item.call)
            ):
                request = request.with_approval(item.id, "pending")
        return request

    def process(
        self,
        request: ToolRequest,
        *,
        completed: Iterable[str | ToolResultRecord] = (),
        trust_approvals: bool = False,
    ) -> ToolRun:
        """Apply the policy, run every approved call not in ``completed``, and return the run.

        ``completed`` holds the tool call ids (or result records) that already have a result.
        A call to a tool the registry does not know gets an error result at once.
        ``trust_approvals=True`` runs calls marked ``approved`` that this executor's ``approve``
        did not record (the caller vouches for where the request came from); ``deny`` still wins.
        """
        if not isinstance(request, ToolRequest):
            raise TypeError(f"expected a ToolRequest record, got {type(request).__name__}")
        done = {c.tool_call_id if isinstance(c, ToolResultRecord) else c for c in completed}
        request = self._apply_policy(request, trust_approvals, done)
        batches: list[list[tuple[int, ToolCall]]] = []
        unknown: dict[int, ToolResultRecord] = {}
        for index, item in enumerate(request.calls):
            if item.id in done:
                continue
            tool = self.registry.get(item.name)
            if tool is None:
                unknown[index] = _failure(item.call, f"no tool named {item.name!r} is available", 0.0, recoverable=True)
                continue
            if item.approval != "approved":
                continue
            if tool.safe and batches and self._is_safe_batch(batches[-1]):
                batches[-1].append((index, item.call))
            else:
                batches.append([(index, item.call)])
        results: dict[int, ToolResultRecord] = dict(unknown)
        try:
            for batch in batches:
                for _, call in batch:  # an approval is used once: by the run that starts now
                    _approvals.consume(request.id, call)
                if len(batch) == 1:
                    index, call = batch[0]
                    results[index] = self._execute_guarded(call)
                    continue
                pool = ThreadPoolExecutor(max_workers=min(self.max_workers, len(batch)), thread_name_prefix="tool")
                try:
                    futures = [(index, pool.submit(self._execute_guarded, call)) for index, call in batch]
                    for index, future in futures:
                        results[index] = future.result()
                finally:
                    pool.shutdown(wait=False, cancel_futures=True)
        except KeyboardInterrupt:
            run = ToolRun(request, tuple(results[i] for i in sorted(results)))
            raise ToolRunInterrupted(run) from None
        return ToolRun(request, tuple(results[i] for i in sorted(results)))

    def _execute_guarded(self, call: ToolCall) -> ToolResultRecord:
        """Run ``call``; an unexpected failure of the executor itself becomes this call's error result."""
        try:
            return self.execute(call)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # never lose the other calls' results to one call
            return _failure(call, f"the call could not be run ({type(exc).__name__})", 0.0)

    def _is_safe_batch(self, batch: list[tuple[int, ToolCall]]) -> bool:
        tool = self.registry.get(batch[-1][1].name)
        return tool is not None and tool.safe

    def execute(self, call: ToolCall) -> ToolResultRecord:
        """Run one call now (no approval check) and return its result record."""
        tool = self.registry.get(call.name)
        if tool is None:
            return _failure(call, f"no tool named {call.name!r} is available", 0.0, recoverable=True)
        started = time.perf_counter()
        arguments = thaw_json(call.arguments)
        try:
            validate_arguments(tool.definition.parameters, arguments)
        except ValidationError as exc:
            return _failure(call, f"invalid arguments: {exc}", time.perf_counter() - started, recoverable=True)
        try:
            kwargs = _keyword_arguments(tool.function, arguments)
        except ValidationError as exc:
            return _failure(call, f"invalid arguments: {exc}", time.perf_counter() - started, recoverable=True)
        except _ArgumentsRefused as exc:
            return _raised(call, exc.error, time.perf_counter() - started, True, exc.key)
        timeout = self.timeout if tool.timeout is None else tool.timeout
        try:
            ok, value = _WORKERS.run(tool.function, kwargs, timeout, call)
        except TimeoutError:
            return _failure(call, f"timed out after {timeout:g} s", time.perf_counter() - started, recoverable=True)
        elapsed = time.perf_counter() - started
        if not ok:
            return _raised(call, value, elapsed, isinstance(value, tool.recoverable))
        try:
            output = freeze_json(value)
        except ValidationError as exc:
            where = f" at {exc.path}" if exc.path else ""
            return _failure(call, f"the tool returned a value that is not JSON{where}: {exc.message}", elapsed)
        return ToolResultRecord.success(
            call.id, output, duration_seconds=elapsed, finished_at=datetime.now(timezone.utc)
        )


class _Workers:
    """Daemon threads that run tool functions, reused between calls (starting a thread is slow).

    A call that times out keeps its thread until it returns (Python cannot stop a thread); the
    thread rejoins the idle set then. Daemon threads never block the interpreter from exiting.
    """

    def __init__(self, max_idle: int = 64) -> None:
        self._idle: list["queue.SimpleQueue[Callable[[], None]]"] = []
        self._lock = threading.Lock()
        self._max_idle = max_idle

    def run(
        self, function: Callable[..., Any], kwargs: dict[str, Any], timeout: float, call: ToolCall
    ) -> tuple[bool, Any]:
        """Return ``(True, value)`` or ``(False, exception)``; raise ``TimeoutError`` after ``timeout``."""
        done: "queue.SimpleQueue[tuple[bool, Any]]" = queue.SimpleQueue()

        def job() -> None:
            token = _CALL.set(call)
            try:
                done.put((True, function(**kwargs)))
            except BaseException as exc:  # a tool may raise anything, even SystemExit
                done.put((False, exc))
            finally:
                _CALL.reset(token)

        with self._lock:
            inbox = self._idle.pop() if self._idle else None
        if inbox is None:
            inbox = queue.SimpleQueue()
            threading.Thread(target=self._serve, args=(inbox,), name="agentmsg-tool", daemon=True).start()
        inbox.put(job)
        try:
            return done.get(timeout=timeout)
        except queue.Empty:
            raise TimeoutError from None

    def _serve(self, inbox: "queue.SimpleQueue[Callable[[], None]]") -> None:
        while True:
            inbox.get()()
            with self._lock:
                if len(self._idle) >= self._max_idle:
                    return
                self._idle.append(inbox)


_WORKERS = _Workers()


def _failure(
    call: ToolCall, error: str, elapsed: float, *, recoverable: bool = False, stack_trace: str | None = None
) -> ToolResultRecord:
    return ToolResultRecord.failure(
        call.id,
        error,
        stack_trace=stack_trace,
        recoverable=recoverable,
        duration_seconds=elapsed,
        finished_at=datetime.now(timezone.utc),
    )


def _raised(call: ToolCall, error: BaseException, elapsed: float, recoverable: bool, key: str | None = None) -> ToolResultRecord:
    """Return the result of a call whose code raised ``error`` (the tool, or the type of argument ``key``).

    The model reads ``Type: message`` (``error_summary`` shows people the type alone); the log
    has the type at INFO and the message at DEBUG only, as a message may hold anything.
    """
    kind, text = type(error).__name__, str(error)
    detail = f"{kind}: {text}" if text else kind
    where = f"the tool {call.name!r}" if key is None else f"the tool {call.name!r} (building its argument {key[:60]!r})"
    log.info("%s raised %s", where, kind)
    log.debug("%s raised %s", where, detail)
    stack = "".join(traceback.format_exception(type(error), error, error.__traceback__))
    if key is not None:
        detail = f"invalid arguments: {key}: could not be built ({detail})"
    return _failure(call, detail, elapsed, recoverable=recoverable, stack_trace=stack)


_RAISED = re.compile(r"(invalid arguments: .*?: could not be built \()?([A-Za-z_][\w.]*)(?=: |\)$|$)", re.S)


def error_summary(record: ToolResultRecord) -> str:
    """Return a failed result's error as people may see it: a raised exception by its type alone.

    >>> registry = ToolRegistry()
    >>> @registry.register
    ... def connect() -> str:
    ...     '''Connect to the database.'''
    ...     raise RuntimeError("bad password hunter2")
    >>> record = ToolExecutor(registry).execute(ToolCall("c1", "connect", {}))
    >>> record.error, error_summary(record)
    ('RuntimeError: bad password hunter2', 'RuntimeError')

    The executor's own words (bad arguments, a timeout, an unknown tool) are returned whole.
    When the tool's code raised (the record keeps a stack trace), the message may hold
    anything, a secret too: the model reads it (it needs it to recover), events and logs
    above DEBUG get the type only.
    """
    error = record.error or "the tool failed"
    if record.stack_trace is None:
        return error
    match = _RAISED.match(error)
    if match is None:
        return "the tool raised an exception"
    head, kind = match.groups()
    return f"{head}{kind})" if head else kind


class _ArgumentsRefused(Exception):
    """Building one argument's typed value raised something other than ``ValidationError``."""

    def __init__(self, key: str, error: BaseException) -> None:
        super().__init__(key)
        self.key = key
        self.error = error


_PLAIN = frozenset({str, int, float, bool, Any})


def _builder(hint: Any) -> Callable[[Any], Any] | None:
    """Return the builder of ``hint``'s values, or None for a hint the schema generator does not support."""
    try:
        if hint in _PLAIN:  # an unhashable annotation (a list, say) raises here: not supported either
            return None
        return _arguments_builder(hint)
    except TypeError:  # not supported: the JSON value is passed as it is
        return None


@functools.lru_cache(maxsize=512)
def _parameters(function: Callable[..., Any]) -> dict[str, tuple[bool, Callable[[Any], Any] | None]] | None:
    """Return, per parameter, whether it has a default and the builder of its value (None: pass the JSON)."""
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return None
    try:
        hints = typing.get_type_hints(function)
    except Exception:  # unresolvable forward references: pass the JSON values as they are
        hints = {}
    return {
        name: (p.default is not inspect.Parameter.empty, _builder(hints.get(name, Any)))
        for name, p in signature.parameters.items()
    }


def _keyword_arguments(function: Callable[..., Any], arguments: dict[str, Any]) -> dict[str, Any]:
    """Return the call's keyword arguments, typed from the function's hints.

    ``null`` for a parameter with a default means the default; a dataclass, enum, tuple, set or
    datetime parameter is built from its JSON value (``agentmsg.schema.build``).
    """
    try:
        parameters = _parameters(function)
    except TypeError:  # an unhashable callable
        parameters = None
    if parameters is None:
        return arguments
    kwargs = {}
    for key, value in arguments.items():
        has_default, builder = parameters.get(key, (False, None))
        if value is None and has_default:
            continue
        if builder is not None:
            try:
                value = builder(value)
            except ValidationError as exc:
                raise exc.prefixed(key) from None
            except RecursionError:
                raise ValidationError("nested too deeply", key, "depth") from None
            except KeyboardInterrupt:
                raise
            except BaseException as exc:  # the argument type's own code: any failure is this call's
                raise _ArgumentsRefused(key, exc) from None
        kwargs[key] = value
    return kwargs
