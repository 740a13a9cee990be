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
as ``completed`` so nothing runs twice). Approved calls then run: each run of consecutive calls
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
"""

from __future__ import annotations

import functools
import inspect
import queue
import threading
import time
import traceback
import typing
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Literal, TypeVar, overload

from .._frozen import freeze_json, thaw_json
from ..errors import ValidationError
from ..records import RequestedToolCall, ToolRequest, ToolResultRecord
from ..schema import build, validate_arguments
from ..tools import ToolCall, ToolDefinition

__all__ = ["Policy", "Tool", "ToolRegistry", "ApprovalPolicy", "ToolRun", "ToolExecutor"]

Policy = Literal["auto", "ask", "deny"]
_POLICIES: tuple[Policy, ...] = ("auto", "ask", "deny")
F = TypeVar("F", bound=Callable[..., Any])


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

    def apply_policy(self, request: ToolRequest) -> ToolRequest:
        """Return ``request`` with the policy's decision on each pending call (``ask`` stays pending)."""
        for item in request.calls:
            if item.approval == "pending" and item.name in self.registry:
                decision = self.policy.decide(item.name)
                if decision != "ask":
                    request = request.with_approval(item.id, "approved" if decision == "auto" else "denied")
        return request

    def process(
        self, request: ToolRequest, *, completed: Iterable[str | ToolResultRecord] = ()
    ) -> ToolRun:
        """Apply the policy, run every approved call not in ``completed``, and return the run.

        ``completed`` holds the tool call ids (or result records) that already have a result.
        A call to a tool the registry does not know gets an error result at once.
        """
        if not isinstance(request, ToolRequest):
            raise TypeError(f"expected a ToolRequest record, got {type(request).__name__}")
        done = {c.tool_call_id if isinstance(c, ToolResultRecord) else c for c in completed}
        request = self.apply_policy(request)
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
        for batch in batches:
            if len(batch) == 1:
                index, call = batch[0]
                results[index] = self.execute(call)
                continue
            with ThreadPoolExecutor(max_workers=min(self.max_workers, len(batch)), thread_name_prefix="tool") as pool:
                futures = [(index, pool.submit(self.execute, call)) for index, call in batch]
                for index, future in futures:
                    results[index] = future.result()
        return ToolRun(request, tuple(results[i] for i in sorted(results)))

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
        timeout = self.timeout if tool.timeout is None else tool.timeout
        try:
            ok, value = _WORKERS.run(tool.function, kwargs, timeout)
        except TimeoutError:
            return _failure(call, f"timed out after {timeout:g} s", time.perf_counter() - started, recoverable=True)
        elapsed = time.perf_counter() - started
        if not ok:
            error: BaseException = value
            message = str(error)
            stack = "".join(traceback.format_exception(type(error), error, error.__traceback__))
            return _failure(
                call,
                f"{type(error).__name__}: {message}" if message else type(error).__name__,
                elapsed,
                recoverable=isinstance(error, tool.recoverable),
                stack_trace=stack,
            )
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

    def run(self, function: Callable[..., Any], kwargs: dict[str, Any], timeout: float) -> tuple[bool, Any]:
        """Return ``(True, value)`` or ``(False, exception)``; raise ``TimeoutError`` after ``timeout``."""
        done: "queue.SimpleQueue[tuple[bool, Any]]" = queue.SimpleQueue()

        def job() -> None:
            try:
                done.put((True, function(**kwargs)))
            except BaseException as exc:  # a tool may raise anything, even SystemExit
                done.put((False, exc))

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


_PLAIN = frozenset({str, int, float, bool, Any})


@functools.lru_cache(maxsize=512)
def _parameters(function: Callable[..., Any]) -> dict[str, tuple[bool, Any]] | None:
    """Return, per parameter, whether it has a default and the type hint to build its value with."""
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return None
    try:
        hints = typing.get_type_hints(function)
    except Exception:  # unresolvable forward references: pass the JSON values as they are
        hints = {}
    return {
        name: (p.default is not inspect.Parameter.empty, hints.get(name, Any))
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
        has_default, hint = parameters.get(key, (False, Any))
        if value is None and has_default:
            continue
        if hint not in _PLAIN:
            try:
                value = build(hint, value, strict=False)
            except ValidationError as exc:
                raise exc.prefixed(key) from None
            except TypeError:  # a hint the schema generator does not support: keep the JSON value
                pass
        kwargs[key] = value
    return kwargs
