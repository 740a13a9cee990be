"""The agent turn, sans-IO: one user turn driven to its end, over any provider module.

>>> from ..history import ConversationHistory
>>> from ..io.execution import ApprovalPolicy, ToolRegistry
>>> from ..messages import ChatMessage
>>> from ..providers import openai
>>> registry = ToolRegistry()
>>> @registry.register(safe=True)
... def list_recipes() -> str:
...     '''List the recipes in the cookbook.'''
...     return "Pancakes, Omelette"
>>> def model(body):  # a scripted stand-in for the HTTP call, speaking the Chat Completions shape
...     if body["messages"][-1]["role"] == "tool":
...         message = {"role": "assistant", "content": "You have: " + body["messages"][-1]["content"]}
...         return {"choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}
...     call = {"id": "call_1", "type": "function", "function": {"name": "list_recipes", "arguments": "{}"}}
...     message = {"role": "assistant", "content": "Let me look.", "tool_calls": [call]}
...     return {"choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}]}
>>> history = ConversationHistory([ChatMessage.system("You are a cook.")])
>>> turn = AgentTurn(openai, history, "What recipes do I have?", tools=registry,
...                  policy=ApprovalPolicy(default="auto"), params={"model": "gpt-4o"})
>>> while turn.state != "done":  # the caller does the I/O; the turn says what it needs next
...     if turn.state == "model":
...         turn.receive(model(turn.request()))
...     elif turn.state == "tools":
...         turn.run_tools()
>>> turn.outcome
Outcome(status='completed', steps=2)
>>> turn.outcome.message.text, [m.role.name for m in history]
('You have: Pancakes, Omelette', ['SYSTEM', 'USER', 'ASSISTANT', 'TOOL', 'ASSISTANT'])

Theory of operation. An ``AgentTurn`` is a small state machine in the style of h11: it never
opens a socket or starts a thread itself. Its ``state`` says what the caller must do next:

======== ================================================ ===============================
state    the caller                                       then
======== ================================================ ===============================
model    sends ``request()`` to the model and hands the   ``tools`` (tool calls) or
         answer to ``receive`` (a response body, or an    ``done``
         iterable of stream events); ``fail`` if the call
         raised
tools    calls ``run_tools()``: the approved calls run    ``model``, ``approval``,
         through ``ToolExecutor`` (safe ones in parallel) ``client`` or ``done``
approval shows ``pending``, calls ``approve`` / ``deny``  ``tools`` once none is pending
         for each (or ``cancel``)
client   has ``client_calls`` (calls to ``client_tools``) ``model`` or ``done``, once each
         run elsewhere and hands each result to          call has its result
         ``answer`` (or ``cancel``)
done     reads ``outcome``                                (final)
======== ================================================ ===============================

A method called in the wrong state raises ``AgentStateError`` naming the state. ``run(model)``
is the loop above for a plain callable; it returns at ``approval`` and ``client`` and can be
called again after the decisions or the results. The model is any callable from request body
to response body (or to an iterable of stream events) of the provider module given:
``openai``, ``anthropic``, ``ollama`` or any module with the same verbs (``to_request``,
``parse_response``, ``StreamParser``).

Nothing runs twice: the turn keeps the step's ``ToolRequest`` record and the results it already
has, and the executor skips those. Tool messages join the history together, in call order, once
every call of the step has its result (a denied call gets ``context.DENIED_RESULT``), so the
history is always valid between steps; a turn that ends early (a model error, an unrecoverable
tool failure, the step limit, ``cancel``) never leaves a tool call unanswered. Each change is
reported through ``on_event`` as the socket events of ``agentmsg.events`` (``message:start`` and
``message:chunk`` for text, ``tool:message:start``/``update``/``complete`` per call,
``tool:artifact`` for MCP resources and structured content, ``progress``, one ``completion``), and
each completed message is saved to ``store`` when one is given. An MCP server's progress
notifications for a call become ``tool:message:update`` events with ``progressText``; those are
emitted from the thread that runs the call, while ``run_tools`` waits for it. When an MCP server
says its tool list changed, the next request offers the new list.
"""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from .._frozen import thaw_json
from .._time import now_wire_timestamp
from ..context import DENIED_RESULT
from ..errors import AgentStateError, ConversationOrderError, ProcessingError, ValidationError
from ..events import ChatRequest, Event
from ..history import ConversationHistory
from ..io.execution import ApprovalPolicy, ToolExecutor, ToolRegistry, error_summary
from ..io.mcp import McpClient, McpError
from ..io.store import MessageStore
from ..messages import ChatMessage
from ..providers import Response
from ..records import RequestedToolCall, ToolRequest, ToolResultRecord
from ..streaming import ReasoningDelta, ToolCallDelta
from ..tools import ToolDefinition
from ._namespace import ToolNamespace, checked_client_tools
from ._report import Reporter

__all__ = ["AgentTurn", "Outcome", "Provider", "State"]

State = Literal["model", "tools", "approval", "client", "done"]
Status = Literal["completed", "approval", "client", "step_limit", "error", "cancelled"]


class Provider(Protocol):
    """The verbs a provider module offers the loop (``agentmsg.providers.openai`` and its peers)."""

    def to_request(self, messages: Iterable[ChatMessage], tools: Iterable[Any] = (), **params: Any) -> dict[str, Any]: ...

    def parse_response(self, body: Any) -> Response: ...

    StreamParser: Callable[[], Any]  # a class whose instances have feed(event) and finish()


@dataclass(frozen=True, slots=True, repr=False)
class Outcome:
    """How a turn ended (or paused): ``status``, the final assistant message, and why it stopped.

    ``status`` is ``completed`` (the model answered without tool calls; ``message`` is that
    answer), ``approval`` (paused: ``pending`` lists the calls waiting for a decision),
    ``client`` (paused: ``pending`` lists the calls of ``client_tools`` for the caller to run),
    ``step_limit`` (``max_steps`` model calls, the last one still asking for tools),
    ``error`` (a model error, an unreadable answer or an unrecoverable tool failure; ``error``
    says which, ``exception`` keeps the exception when there was one) or ``cancelled``.
    ``code`` is the ``completion``'s code of an ended turn that failed: ``model``, ``tool``,
    ``step_limit`` or ``cancelled`` (``agentmsg.events.COMPLETION_CODES``).
    """

    status: Status
    steps: int
    message: ChatMessage | None = None
    error: str | None = None
    pending: tuple[RequestedToolCall, ...] = ()
    exception: BaseException | None = None
    code: str | None = None

    def __repr__(self) -> str:
        extra = f", pending={len(self.pending)}" if self.pending else ""
        return f"Outcome(status={self.status!r}, steps={self.steps}{extra})"


CUT_OFF = "the model's answer ended before this call was whole"
"""The error of a tool message a stream started when the answer fails or is cancelled."""


def _new_id() -> str:
    return uuid.uuid4().hex


class AgentTurn:
    """Drive one user turn: model, tools, approvals, until the model answers without tool calls.

    ``provider`` is a provider module (``agentmsg.providers.openai``, ``anthropic``, ``ollama``
    or one with the same verbs). ``history`` is the conversation so far (it gains the turn's
    messages as they complete); ``message`` (a string, a ``ChatMessage`` or the client's
    ``ChatRequest``) is the user's new message, added first. ``tools`` (a ``ToolRegistry``) and
    ``mcp`` (started ``McpClient``s) are one namespace: a name both offer is refused with a
    ``ValidationError`` (code ``unique``). ``policy`` decides per tool (``auto``, ``ask``,
    ``deny``; default: ask for every tool). ``client_tools`` (``ToolDefinition``s) are tools
    that run elsewhere (a browser's): offered to the model beside the others (a name they share
    is refused, code ``unique``), their calls pause the turn in state ``client`` until
    ``answer`` gives each its result. ``max_steps`` bounds the model calls. ``params`` go
    into each request body (``model``, ``max_tokens``, ``stream``...); one the provider cannot do
    without (``model``; Anthropic's ``max_tokens``) missing is a ``TypeError`` here, not at ``run``. ``on_event`` receives
    each socket event; ``store`` and ``conversation_id`` save each completed message (the
    system prompt is not stored). ``tool_timeout`` bounds each tool call. ``new_id`` makes the
    ids of the turn (``id``, the events' ``turnId``) and of its chat, reasoning and tool messages
    in events; ``clock`` stamps them.

    One thread drives a turn (``run`` or the step methods); ``cancel`` alone may also be called
    from any other thread, at any time (see ``cancel``).
    """

    def __init__(
        self,
        provider: Any,
        history: ConversationHistory,
        message: str | ChatMessage | ChatRequest | None = None,
        *,
        tools: ToolRegistry | None = None,
        mcp: Iterable[McpClient] = (),
        client_tools: Iterable[ToolDefinition] = (),
        policy: ApprovalPolicy | None = None,
        max_steps: int = 8,
        params: Mapping[str, Any] | None = None,
        on_event: Callable[[Event], None] | None = None,
        store: MessageStore | None = None,
        conversation_id: str | None = None,
        tool_timeout: float = 30.0,
        new_id: Callable[[], str] = _new_id,
        clock: Callable[[], str] = now_wire_timestamp,
    ) -> None:
        for verb in ("to_request", "parse_response", "StreamParser"):
            if not hasattr(provider, verb):
                raise TypeError(f"provider must be a provider module with {verb} (e.g. agentmsg.providers.openai)")
        if not isinstance(history, ConversationHistory):
            raise TypeError(f"history must be a ConversationHistory, got {type(history).__name__}")
        if isinstance(max_steps, bool) or not isinstance(max_steps, int) or max_steps < 1:
            raise TypeError("max_steps must be an int >= 1")
        if store is not None and not conversation_id:
            raise TypeError("a store needs a conversation_id to save the messages under")
        self.provider = provider
        self.history = history
        self.max_steps = max_steps
        self.params = dict(params or {})
        try:  # the provider's own rule for its params (model=..., Anthropic's max_tokens=...), checked now
            provider.to_request((), (), **self.params)
        except TypeError as exc:
            raise TypeError(f"params: {exc}") from None
        except ValidationError:  # an empty conversation may be refused: the params were not the problem
            pass
        self.store = store
        self.conversation_id = conversation_id
        self._new_id = new_id
        self.id = new_id()
        self._report = Reporter(on_event, self.id, conversation_id, new_id, clock, journal=store is not None)
        self._namespace = ToolNamespace(tools, mcp, self._report.tool_progress)
        self.tools = self._namespace.registry
        self.executor = ToolExecutor(self.tools, policy, timeout=tool_timeout)
        self.client_tools = checked_client_tools(client_tools, self.tools)
        self.state: State = "model"
        self.steps = 0
        self.outcome: Outcome | None = None
        self._request: ToolRequest | None = None  # the step's tool calls, with their approvals
        self._results: dict[str, ToolResultRecord] = {}  # call id -> its result, this step
        self._reasons: dict[str, str] = {}  # call id -> the reason a person gave for denying it
        self._lock = threading.Lock()  # held by the driving thread inside a step (see cancel)
        self._cancel_reason: str | None = None  # a cancel asked for while a step ran
        if message is not None:
            sent: dict[str, str] = {}
            if isinstance(message, ChatRequest):
                sent = {"id": message.id} if message.id is not None else {}
                sent["timestamp"] = message.timestamp or clock()
                message = message.to_message()
            elif isinstance(message, str):
                message = ChatMessage.user(message)
            elif not isinstance(message, ChatMessage):
                raise TypeError(f"message must be a str, ChatMessage or ChatRequest, got {type(message).__name__}")
            turn_start = {"turnId": self.id, **({"sessionId": conversation_id} if conversation_id else {})}
            self._append([message], events=[["chat:send", sent or {"timestamp": clock()}], ["turn:start", turn_start]])
        last = history.last_message
        if last is None or last.role.name not in ("USER", "TOOL") or history.pending_tool_call_ids:
            raise ConversationOrderError(
                "a turn starts after the user's message: pass it as message, or end the history with it",
                len(history),
                "alternate",
            )

    def __repr__(self) -> str:
        return f"AgentTurn(state={self.state!r}, steps={self.steps}, tools={len(self.tools)})"

    # --- events, history, store -----------------------------------------------------------

    @property
    def on_event(self) -> Callable[[Event], None] | None:
        """Return the callback that receives each socket event (it may be replaced)."""
        return self._report.on_event

    @on_event.setter
    def on_event(self, callback: Callable[[Event], None] | None) -> None:
        self._report.on_event = callback

    @property
    def tool_messages(self) -> dict[str, str]:
        """Return the tool message id (of the events) of each tool call of the turn, by call id."""
        return dict(self._report.tool_ids)

    def unsaved_events(self) -> list[list[Any]]:
        """Return the history events of the turn not saved with a message yet (with a store; chunks joined).

        A server that keeps them (``MessageStore.annotate(id, {"draft": ...})``) before it sends a
        chunk keeps what its clients saw even if the process dies before the message is saved
        (``events.restore`` and ``events.close_interrupted`` read the draft).
        """
        return self._report.peek_journal()

    def _append(self, messages: list[ChatMessage], events: list[list[Any]] | None = None) -> None:
        """Add messages to the history and save them, the last with the events that made their entries."""
        for message in messages:
            self.history.add(message)
        if self.store is not None and self.conversation_id is not None:
            stored = [m for m in messages if m.role.name != "SYSTEM"]
            if stored:
                meta: list[dict[str, Any]] = [{} for _ in stored]
                journal = (events or []) + self._report.take_journal(text=False)
                if journal:
                    meta[-1]["events"] = journal
                self.store.save_many(self.conversation_id, stored, meta=meta)

    @contextmanager
    def _step(self, method: str, *states: str) -> Iterator[None]:
        """Hold the turn for one step of the driving thread; a cancel asked for meanwhile runs after it."""
        with self._lock:
            if self.state not in states:
                raise AgentStateError(method, self.state)
            yield
        if self._cancel_reason is not None:
            self._try_cancel()

    def _finish(self, status: Status, *, message: ChatMessage | None = None, error: str | None = None,
                exception: BaseException | None = None, code: str | None = None) -> None:
        self.state = "done"
        self.outcome = Outcome(status, self.steps, message, error, (), exception, code)
        if error is None:
            self._report.completed(self.steps, message)
        else:
            self._report.failed(error, code, cancelled=status == "cancelled")
        if self.store is not None and self.conversation_id is not None:
            journal = self._report.take_journal(text=True)  # what no message took: a partial answer, the completion
            completion = next(payload for name, payload in reversed(journal) if name == "completion")
            if error is not None:
                after = [pair for pair in journal if pair[0] != "completion"]
                self.store.annotate(self.conversation_id, {"after": after, "completion": completion})

    # --- the model ------------------------------------------------------------------------

    def request(self) -> dict[str, Any]:
        """Return the request body for the next model call (state ``model``).

        When an MCP server said its tools changed, the body offers the new list. If that list
        cannot be had (the server fails to answer ``tools/list``, or a new name clashes), the
        turn ends with ``status="error"`` (code ``tool``) and the body, built with the tools as
        they were, is not to be sent: check ``state`` (``run`` does).
        """
        with self._step("request", "model"):
            return self._request_body()

    def _request_body(self) -> dict[str, Any]:
        try:
            if self._namespace.refresh():  # an MCP server said its tools changed
                self.tools = self.executor.registry = self._namespace.registry
        except (McpError, ValidationError) as exc:
            self._finish("error", error=_describe_failure("the MCP tools could not be listed again", exc),
                         exception=exc, code="tool")
        if self.client_tools and self._namespace.clients and self.state != "done":
            try:  # an MCP server's new list may have taken a client tool's name
                checked_client_tools(self.client_tools, self.tools)
            except ValidationError as exc:
                self._finish("error", error=_describe_failure("the tools could not be offered", exc), exception=exc,
                             code="tool")
        offered = (*self.tools.definitions(), *self.client_tools)
        return self.provider.to_request(self.history.messages, offered, **self.params)  # type: ignore[no-any-return]  # provider is any codec module (typed Any)

    def receive(self, answer: Any) -> None:
        """Take the model's answer: a response body (a dict), or an iterable of stream events.

        Streamed text is reported (``message:chunk``) as each event arrives, and readable
        reasoning as ``reasoning:chunk`` (a signature or encrypted reasoning never is); each
        message and reasoning ends (``message:end``, ``reasoning:end``) before what follows. An
        answer that cannot be read, or a stream that raises, ends the turn with
        ``status="error"``; a ``cancel`` from another thread stops reading the stream.
        """
        with self._step("receive", "model"):
            self._receive(answer)

    def _receive(self, answer: Any) -> None:
        self.steps += 1
        report = self._report.answer()
        try:
            if isinstance(answer, Mapping):
                response = self.provider.parse_response(answer)
                for index, part in enumerate(response.message.reasoning):
                    if part.text:
                        report.reasoning(part.text, index)
                if response.message.text:
                    report.text(response.message.text)
            else:
                parser = self.provider.StreamParser()
                for event in answer:
                    for delta in parser.feed(event):
                        if type(delta) is str:
                            if delta:
                                report.text(delta)
                        elif type(delta) is ReasoningDelta:
                            if delta.text:
                                report.reasoning(delta.text, delta.index)
                        elif type(delta) is ToolCallDelta:
                            report.tool_call(delta)
                    if self._cancel_reason is not None:  # asked from another thread: stop reading
                        break
                if self._cancel_reason is not None:  # (also when the caller ended the stream for the cancel)
                    report.end()
                    self._report.tools_announced(self._cancel_reason)
                    _close_stream(answer)
                    self._cancel_now(self._cancel_reason, "".join(report.said))
                    return
                response = parser.finish()
        except ValidationError as exc:
            report.end()
            self._report.tools_announced(CUT_OFF)
            self._finish("error", error=f"the model's answer could not be read: {exc}", exception=exc, code="model")
            return
        except Exception as exc:  # the stream's transport failed half way
            report.end()
            self._report.tools_announced(CUT_OFF)
            self._finish("error", error=_describe_failure("the model call failed", exc), exception=exc, code="model")
            return
        report.end()
        self._take(response.message)

    def fail(self, exception: BaseException | str) -> None:
        """Report that the model call failed (state ``model``): the turn ends with ``status="error"``."""
        with self._step("fail", "model"):
            if isinstance(exception, str):
                self._finish("error", error=exception, code="model")
            else:
                self._finish("error", error=_describe_failure("the model call failed", exception),
                             exception=exception, code="model")

    def _take(self, message: ChatMessage) -> None:
        if not message.tool_calls:
            self._report.tools_announced()
            self._append([message])
            self._finish("completed", message=message)
            return
        request = ToolRequest.of(list(message.tool_calls), id=self._new_id())
        self._request = self.executor.apply_policy(request)
        self._results = {}
        with self._report.held():  # the tool messages are announced once the message that asks for them is saved
            for item in self._request.calls:
                self._report.tool_pending(item)
            self._report.tools_announced()
            self._append([message])
        self.state = "tools"

    # --- tools ----------------------------------------------------------------------------

    @property
    def pending(self) -> tuple[RequestedToolCall, ...]:
        """Return the calls of this step that wait for a person's decision."""
        if self._request is None or self.state not in ("tools", "approval"):
            return ()
        return tuple(item for item in self._request.calls if item.approval == "pending" and item.id not in self._results
                     and self.executor.registry.get(item.name) is not None)

    @property
    def client_calls(self) -> tuple[RequestedToolCall, ...]:
        """Return the calls of this step to tools of ``client_tools`` that wait for their result (``answer``)."""
        if self._request is None or self.state == "done":
            return ()
        names = {definition.name for definition in self.client_tools}
        return tuple(item for item in self._request.calls if item.name in names and item.id not in self._results)

    def answer(self, call_id: str, content: str, *, is_error: bool = False) -> None:
        """Give the call ``call_id`` to a client tool its result (state ``client``): the text the model reads.

        ``is_error`` marks a failure the model is told about (the turn goes on). Once every
        call of the step has its result, the turn goes on to the model (or ends at the step limit).
        A call that does not wait (unknown, or answered already) raises ``ValidationError``
        (code ``unknown``).
        """
        if not isinstance(content, str):
            raise TypeError(f"content must be a str, got {type(content).__name__}")
        with self._step("answer", "client"):
            item = next((item for item in self.client_calls if item.id == call_id), None)
            if item is None:
                raise ValidationError("names no call that waits for a client's result", "call_id", "unknown")
            if is_error:
                record = ToolResultRecord.failure(call_id, content or "the tool failed", recoverable=True)
            else:
                record = ToolResultRecord.success(call_id, content)
            self._take_result(record)
            if not self.client_calls:
                self._close_step()

    def approve(self, call_id: str) -> None:
        """Approve the pending call ``call_id`` (state ``approval``)."""
        self._decide("approve", call_id, "approved")

    def deny(self, call_id: str, reason: str | None = None) -> None:
        """Deny the pending call ``call_id`` (state ``approval``): the model is told it was denied.

        ``reason``, a person's words, goes to the model (and the tool message) with the denial.
        """
        if reason is not None and (not isinstance(reason, str) or not reason.strip()):
            raise TypeError("reason must be a non-empty string or None")
        self._decide("deny", call_id, "denied", reason)

    def _decide(self, method: str, call_id: str, approval: Literal["approved", "denied"],
                reason: str | None = None) -> None:
        with self._step(method, "approval"):
            assert self._request is not None
            if call_id not in {item.id for item in self.pending}:
                raise ValidationError("names no call that waits for a decision", "call_id", "unknown")
            if approval == "approved":
                self._request = self._request.approve(call_id)
            else:
                self._request = self._request.deny(call_id)
                if reason is not None:
                    self._reasons[call_id] = reason
            if not self.pending:
                self.state = "tools"

    def run_tools(self) -> None:
        """Run the approved calls of this step (state ``tools``) and move on.

        When calls wait for a person, the turn stops in state ``approval`` and reports each
        with a ``tool:approval:request``.
        """
        with self._step("run_tools", "tools"):
            self._run_tools()

    def _run_tools(self) -> None:
        assert self._request is not None
        request = self.executor.apply_policy(self._request)
        elsewhere = self.client_calls
        to_run = [item for item in request.calls if item.approval == "approved" and item.id not in self._results]
        for item in to_run:
            self._report.tool_running(item)
        self._report.tools_step(self.steps, self.max_steps, sum(1 for i in request.calls if i.approval == "approved"))
        try:
            run = self.executor.process(request, completed=[*self._results.values(), *(item.id for item in elsewhere)])
        except KeyboardInterrupt as interrupt:
            finished = getattr(interrupt, "run", None)  # ToolRunInterrupted keeps what finished
            if finished is not None:
                self._request = finished.request
                for record in finished.results:
                    self._take_result(record)
            raise  # the turn stays in state "tools": run_tools() again runs only what is left
        self._request = run.request
        for record in run.results:
            self._take_result(record)
        if self._cancel_reason is not None:  # cancelled while the calls ran: the turn ends cancelled, not failed
            self._cancel_now(self._cancel_reason)
            return
        if self.pending:  # calls of the turn's own tools that wait for a person (a client tool's waits below)
            self.state = "approval"
            self.outcome = Outcome("approval", self.steps, pending=self.pending)
            for item in self.outcome.pending:
                self._report.approval_requested(item)
            return
        if self.client_calls:
            self.state = "client"
            self.outcome = Outcome("client", self.steps, pending=self.client_calls)
            return
        self._close_step()

    def _tool_message(self, item: RequestedToolCall) -> ChatMessage:
        record = self._results.get(item.id)
        if record is None:
            reason = self._reasons.get(item.id)
            return ChatMessage.tool(item.id, DENIED_RESULT if reason is None else f"{DENIED_RESULT} Reason: {reason}",
                                    is_error=True)
        if record.status == "error":
            return ChatMessage.tool(item.id, record.error or "the tool failed", is_error=True)
        mcp = self._namespace.mcp_result(item.name, record)
        if mcp is not None:
            return mcp.to_message(item.id)
        output = record.output
        return ChatMessage.tool(item.id, output if isinstance(output, str) else json.dumps(thaw_json(output), ensure_ascii=False))

    def _take_result(self, record: ToolResultRecord) -> None:
        """Keep one finished call's result and report its tool message."""
        assert self._request is not None
        self._results[record.tool_call_id] = record
        item = self._request.get(record.tool_call_id)
        shown = error_summary(record) if record.status == "error" else None
        self._report.tool_answered(item, self._tool_message(item), self._namespace.mcp_result(item.name, record), shown)

    def _close_step(self) -> None:
        """Every call of the step has its result (or was denied): append them, then continue or stop."""
        assert self._request is not None
        messages = []
        for item in self._request.calls:
            message = self._tool_message(item)
            if item.id not in self._results:  # denied (by the policy or a person)
                self._report.tool_answered(item, message)
            messages.append(message)
        self._append(messages)
        failed = [
            (item, self._results[item.id])
            for item in self._request.calls
            if item.id in self._results and self._results[item.id].status == "error" and not self._results[item.id].recoverable
        ]
        self._request = None
        if failed:
            item, record = failed[0]
            self._finish("error", error=f"the tool {item.name!r} failed: {error_summary(record)}", code="tool")
        elif self.steps >= self.max_steps:
            self._finish("step_limit", error=f"stopped after {self.steps} model calls (the step limit) with tool calls still coming",
                         code="step_limit")
        else:
            self.state = "model"

    def cancel(self, reason: str = "the turn was cancelled") -> None:
        """End the turn: pending calls are denied (so the history stays valid); ``completion`` says so.

        Safe from any thread. While the driving thread is inside a step, the cancel is noted and
        takes effect when the step reaches a safe point: the next event of a streamed answer (the
        stream is then closed), or the end of the running tool calls (bounded by
        ``tool_timeout``): a running MCP call ends at once and its server receives
        ``notifications/cancelled``; a local one is not interrupted. Otherwise it takes effect at once,
        in the calling thread. The history stays valid and ready for the next turn: calls
        without a result are answered as denied, and a user message the model had not answered
        yet gets an assistant message with the text streamed so far (or ``[<reason>]``). The
        ``completion`` is ``success: false`` with ``code: "cancelled"`` and ``cancelled: true``;
        ``outcome.status`` is ``cancelled``. A turn already done raises ``AgentStateError``.
        """
        if self.state == "done":
            raise AgentStateError("cancel", self.state)
        self._cancel_reason = reason
        self._namespace.cancel(reason)
        self._try_cancel()

    def _try_cancel(self) -> None:
        """Cancel now if no step runs; else the step's thread does it when it leaves (see ``_step``)."""
        if not self._lock.acquire(blocking=False):
            return
        try:
            if self.state != "done" and self._cancel_reason is not None:
                self._cancel_now(self._cancel_reason)
        finally:
            self._lock.release()

    def _cancel_now(self, reason: str, said: str = "") -> None:
        """Deny what waits, answer every call, and end; a user message left unanswered gets an answer."""
        if self._request is not None:
            for item in self.pending:
                self._request = self._request.deny(item.id)
            for item in self._request.calls:
                if item.approval == "approved" and item.id not in self._results:
                    self._request = self._request.deny(item.id)
            messages = []
            for item in self._request.calls:
                if item.id not in self._results:
                    self._report.tool_failed(item, reason)
                messages.append(self._tool_message(item))
            self._append(messages)
            self._request = None
        last = self.history.last_message
        if last is not None and last.role.name == "USER":  # so the next turn can follow the user's message
            self._append([ChatMessage.assistant(said if said.strip() else f"[{reason}]")])
        self._finish("cancelled", error=reason, code="cancelled")

    # --- the whole loop -------------------------------------------------------------------

    def _ended(self) -> bool:
        return self.state == "done"  # a method, so the type checker does not narrow state across calls

    def run(self, model: Callable[[dict[str, Any]], Any]) -> Outcome:
        """Drive the turn with ``model`` until it is done or waits for approval; return the outcome.

        A model call that raises ends the turn with ``status="error"`` (the exception is kept on
        the outcome); so do the other failures (see ``Outcome``). Call again after deciding
        on the pending calls to resume.
        """
        if self.state in ("approval", "client"):
            raise AgentStateError("run", self.state)
        while True:
            try:
                if self.state == "model":
                    body = self.request()
                    if self._ended():  # cancelled from another thread
                        continue
                    try:
                        answer = model(body)
                    except Exception as exc:
                        if not self._ended():
                            self.fail(exc)
                        continue
                    if self._ended():  # cancelled while the model was called
                        _close_stream(answer)
                        continue
                    self.receive(answer)
                elif self.state == "tools":
                    self.run_tools()
                else:
                    assert self.outcome is not None
                    return self.outcome
            except AgentStateError:
                if not self._ended():  # not a cancel that came first: a real misuse
                    raise


def _close_stream(answer: Any) -> None:
    """Close a streamed answer the turn stops reading (a generator, an HTTP response)."""
    close = getattr(answer, "close", None)
    if callable(close) and not isinstance(answer, Mapping):
        try:
            close()
        except Exception:  # closing is a courtesy; the turn ends either way
            pass


def _describe_failure(what: str, exc: BaseException) -> str:
    """Name a failure without quoting foreign text: our own errors' messages, else the type."""
    if isinstance(exc, (ProcessingError, ValidationError)):
        return f"{what}: {exc}"
    return f"{what} ({type(exc).__name__})"
