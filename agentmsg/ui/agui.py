"""AG-UI 1.0 (CopilotKit's protocol, ``@ag-ui/client``'s ``HttpAgent``): a turn's events as AG-UI events.

>>> from .. import events
>>> run = AguiRun(thread_id="s1", run_id="r1")
>>> turn = [events.MessageStart(id="m1"), events.MessageChunk(id="m1", chunk="Hello!"),
...         events.Completion.ok({"text": "Hello!"})]
>>> [out["type"] for event in turn for out in run.translate(event)]
['RUN_STARTED', 'TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_END', 'RUN_FINISHED']
>>> sse({"type": "TEXT_MESSAGE_END", "messageId": "m1"})
b'data: {"type":"TEXT_MESSAGE_END","messageId":"m1"}\\n\\n'

Three parts, plain dicts in and out (camelCase wire keys, as AG-UI's JSON):

- ``AguiRun``: the translator of one run (one agent turn, or its continuation after an
  approval): ``translate(event)`` returns the AG-UI events for one agentmsg event, ``close()``
  ends the run when the event source stops (paused for an approval, or gone without a
  ``completion``). Each event is framed by ``sse`` as one ``data:`` line.
- ``parse_run_input``: a ``RunAgentInput`` body as what ``AgentTurn`` takes (``RunInput``).
- ``messages_snapshot``: a stored conversation (``chat:init``) as ``MESSAGES_SNAPSHOT``.

docs/ui-protocols.md has the mapping table and every loss.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .._checks import type_name
from .._frozen import thaw_json
from ..content import ContentPart, TextPart
from ..errors import ValidationError
from ..events import ChatEntry, ChatInit, HistoryEntry, ToolEntry, UserEntry
from ..messages import ChatMessage
from ..tools import ToolDefinition
from ._common import (
    MAX_IMAGE_BYTES,
    Decision,
    ToolResult,
    arguments_json,
    array,
    artifacts,
    entries,
    image_part,
    join,
    obj,
    optional_text,
    sse,
    text,
    tool_definitions,
    user_id,
)
from ._translate import Out, Translator

__all__ = ["AguiRun", "RunInput", "Decision", "ToolResult", "parse_run_input", "messages_snapshot", "error_events", "sse",
           "TOOL_ACTIVITY", "ARTIFACT_ACTIVITY", "PROGRESS_EVENT", "TOOL_ERROR_PREFIX", "CONTENT_TYPE"]

CONTENT_TYPE = "text/event-stream"
TOOL_ACTIVITY = "agentmsg.tool"
"""The ``activityType`` of a tool message's live view (``ACTIVITY_SNAPSHOT``)."""
ARTIFACT_ACTIVITY = "agentmsg.artifact"
"""The ``activityType`` of an artifact (``ACTIVITY_SNAPSHOT`` keyed ``artifact:<id>``)."""
PROGRESS_EVENT = "agentmsg.progress"
"""The ``name`` of the ``CUSTOM`` event that carries ``progress``."""
TOOL_ERROR_PREFIX = "Error: "
"""How a failed tool call's ``TOOL_CALL_RESULT`` content begins (the error text follows it)."""
APPROVAL_REASON = "tool_approval"
_APPROVAL_SCHEMA = {
    "type": "object",
    "properties": {"approved": {"type": "boolean"}, "reason": {"type": "string"}},
    "required": ["approved"],
}


def _activity_id(tool_id: str) -> str:
    return tool_id + ":activity"


def _result_id(tool_id: str) -> str:
    return tool_id + ":result"


def _artifact_id(artifact_id: str) -> str:
    return "artifact:" + artifact_id


class AguiRun(Translator):
    """Translate one run's agentmsg events into AG-UI events, keeping AG-UI's order rules.

    >>> from .. import events
    >>> run = AguiRun(thread_id="s1", run_id="r1")
    >>> out = run.translate(events.ToolMessageStart(id="t1", tool_name="find_recipe", title="Calling find_recipe",
    ...                                             status="pending", timestamp="2024-05-01T12:00:00Z"))
    >>> out += run.translate(events.ToolMessageArgs(id="t1", chunk='{"name": '))
    >>> out += run.translate(events.ToolMessageArgs(id="t1", chunk='"Omelette"}'))
    >>> out += run.translate(events.ToolMessageUpdate(id="t1", patch={"status": "running"}))
    >>> [(e["type"], e.get("delta") or e.get("toolCallId") or e.get("messageId")) for e in out]
    ... # doctest: +NORMALIZE_WHITESPACE
    [('RUN_STARTED', None), ('TOOL_CALL_START', 't1'), ('TOOL_CALL_ARGS', '{"name": '),
     ('TOOL_CALL_ARGS', '"Omelette"}'), ('TOOL_CALL_END', 't1'), ('ACTIVITY_SNAPSHOT', 't1:activity'),
     ('ACTIVITY_SNAPSHOT', 't1:activity')]

    The first event is ``RUN_STARTED`` (sent before whatever comes first; ``turn:start`` only
    starts the run); a text message is ended before a tool call starts and before the run ends;
    the tool message's id is the AG-UI ``toolCallId``. With ``history`` (the thread's stored
    conversation, the run's new user message last), ``MESSAGES_SNAPSHOT`` follows ``RUN_STARTED``:
    a client that joins the thread gets the conversation, and the run's messages follow it. A call's arguments are one
    ``TOOL_CALL_ARGS`` when ``tool:message:start`` has them, else one per ``tool:message:args``;
    ``TOOL_CALL_END`` follows at the next other event. After ``completion`` the run is
    ``finished`` and further events are refused (``ValidationError``, code ``protocol``).
    """

    __slots__ = ("thread_id", "run_id", "_parent", "_input", "_history")

    def __init__(self, thread_id: str, run_id: str, *, input: dict[str, Any] | None = None,
                 history: ChatInit | Iterable[HistoryEntry] | None = None) -> None:
        if not isinstance(thread_id, str) or not thread_id or not isinstance(run_id, str) or not run_id:
            raise TypeError("thread_id and run_id must be non-empty strings")
        super().__init__()
        self.thread_id = thread_id
        self.run_id = run_id
        self._input = input
        self._history = None if history is None else messages_snapshot(history)
        self._parent: str | None = None  # the text message the current step's tool calls belong to

    def __repr__(self) -> str:
        return f"AguiRun(thread_id={self.thread_id!r}, run_id={self.run_id!r}, finished={self.finished})"

    def resume(self, run_id: str, *, history: ChatInit | Iterable[HistoryEntry] | None = None) -> list[dict[str, Any]]:
        """Start the next run of a run that paused for approvals or the client's tools (its tool calls stay known).

        Returns the new ``RUN_STARTED`` (and, with ``history``, its ``MESSAGES_SNAPSHOT``: after
        the client's tool results, the stored conversation with them, so the client holds the
        results under the ids a later snapshot has); the events of the continued turn follow
        through ``translate``.
        """
        self._reopen("runId")
        self.run_id = run_id
        self._history = None if history is None else messages_snapshot(history)
        return self._begin()

    def close(self, waiting: Iterable[str] = ()) -> list[dict[str, Any]]:
        """End the run when the turn's events stop: paused for approvals or the client's tools, or gone without ``completion``.

        >>> from .. import events
        >>> run = AguiRun(thread_id="s1", run_id="r1")
        >>> _ = run.translate(events.MessageStart(id="m1"))
        >>> [(e["type"], e.get("code")) for e in run.close()]
        [('TEXT_MESSAGE_END', None), ('RUN_ERROR', 'incomplete')]

        A finished run closes with nothing; a run that paused for approvals ends with
        ``RUN_FINISHED`` whose outcome is ``interrupt`` (one interrupt per pending tool call); one
        whose turn waits for the client's tools (``waiting``: their tool message ids) with
        ``RUN_FINISHED`` whose outcome is ``success`` with ``pendingToolCallIds``.
        """
        return Translator.close(self, waiting)

    def _finished(self, outcome: dict[str, Any], **extra: Any) -> Out:
        return [{"type": "RUN_FINISHED", "threadId": self.thread_id, "runId": self.run_id, **extra, "outcome": outcome}]

    def _activity(self, tool_id: str) -> dict[str, Any]:
        return {"type": "ACTIVITY_SNAPSHOT", "messageId": _activity_id(tool_id), "activityType": TOOL_ACTIVITY,
                "content": dict(self._tools[tool_id]), "replace": True}

    # -- AG-UI's words for the translator's hooks --------------------------------------------------

    def _on_begin(self) -> Out:
        event: dict[str, Any] = {"type": "RUN_STARTED", "threadId": self.thread_id, "runId": self.run_id}
        if self._input is not None:
            event["input"] = self._input
        if self._history is not None:
            snapshot, self._history = self._history, None  # once: a resumed run continues what the client has
            return [event, snapshot]
        return [event]

    def _on_next_step(self) -> Out:
        self._parent = None  # the step's calls are answered: later calls belong to a later message
        return []

    def _on_text_start(self, message_id: str, content: str) -> Out:
        self._parent = message_id
        out: Out = [{"type": "TEXT_MESSAGE_START", "messageId": message_id, "role": "assistant"}]
        return out + self._on_text_delta(message_id, content) if content else out

    def _on_text_delta(self, message_id: str, delta: str) -> Out:
        return [{"type": "TEXT_MESSAGE_CONTENT", "messageId": message_id, "delta": delta}]

    def _on_text_end(self, message_id: str) -> Out:
        return [{"type": "TEXT_MESSAGE_END", "messageId": message_id}]

    def _on_reasoning_start(self, reasoning_id: str) -> Out:
        return [{"type": "REASONING_START", "messageId": reasoning_id},
                {"type": "REASONING_MESSAGE_START", "messageId": reasoning_id, "role": "reasoning"}]

    def _on_reasoning_delta(self, reasoning_id: str, delta: str) -> Out:
        return [{"type": "REASONING_MESSAGE_CONTENT", "messageId": reasoning_id, "delta": delta}]

    def _on_reasoning_end(self, reasoning_id: str) -> Out:
        return [{"type": "REASONING_MESSAGE_END", "messageId": reasoning_id},
                {"type": "REASONING_END", "messageId": reasoning_id}]

    def _on_tool_start(self, event: Any) -> Out:
        start: dict[str, Any] = {"type": "TOOL_CALL_START", "toolCallId": event.id, "toolCallName": event.tool_name}
        if self._parent is not None:
            start["parentMessageId"] = self._parent
        return [start]

    def _on_tool_args(self, tool_id: str, chunk: str) -> Out:
        return [{"type": "TOOL_CALL_ARGS", "toolCallId": tool_id, "delta": chunk}]

    def _on_tool_input(self, tool_id: str, arguments: dict[str, Any] | None, streamed: bool) -> Out:
        out = [] if streamed or arguments is None else self._on_tool_args(tool_id, arguments_json(arguments))
        return out + [{"type": "TOOL_CALL_END", "toolCallId": tool_id}, self._activity(tool_id)]

    def _on_tool_update(self, tool_id: str, view: dict[str, Any]) -> Out:
        return [self._activity(tool_id)]

    def _on_tool_complete(self, tool_id: str, view: dict[str, Any], error: str | None, denied: bool) -> Out:
        if error is not None:
            view["error"] = error
        if tool_id in self._client:  # the client sent the result as its own tool message
            return [self._activity(tool_id)]
        result = {"type": "TOOL_CALL_RESULT", "messageId": _result_id(tool_id), "toolCallId": tool_id, "role": "tool",
                  "content": view["content"] if error is None else TOOL_ERROR_PREFIX + error}
        return [self._activity(tool_id), result]

    def _on_artifact(self, event: Any) -> Out:
        content = {"toolCallId": event.message_id, "artifact": thaw_json(event.artifact),
                   "showInCanvas": event.show_in_canvas}
        return [{"type": "ACTIVITY_SNAPSHOT", "messageId": _artifact_id(event.artifact_id),
                 "activityType": ARTIFACT_ACTIVITY, "content": content, "replace": True}]

    def _on_progress(self, event: Any) -> Out:
        return [{"type": "CUSTOM", "name": PROGRESS_EVENT, "value": event.to_dict()}]

    def _on_approval(self, event: Any) -> Out:
        return []  # the interrupts end the run (close)

    def _on_success(self, event: Any) -> Out:
        return self._finished({"type": "success"}, result=thaw_json(event.result))

    def _on_cancelled(self, event: Any) -> Out:
        return self._finished({"type": "cancelled"})

    def _on_failure(self, event: Any) -> Out:
        error: dict[str, Any] = {"type": "RUN_ERROR", "message": event.error}
        code = getattr(event, "code", None)
        if code is not None:
            error["code"] = code
        return [error]

    def _on_paused(self) -> Out:
        if not self._pending:  # the client runs its tools, then starts the next run with their results
            return self._finished({"type": "success", "pendingToolCallIds": list(self._waiting)})
        interrupts = [{"id": e.id, "reason": APPROVAL_REASON, "toolCallId": e.id, "message": f"Allow the tool {e.tool_name}?",
                       "responseSchema": _APPROVAL_SCHEMA} for e in self._pending]
        return self._finished({"type": "interrupt", "interrupts": interrupts})

    def _on_incomplete(self) -> Out:
        return [{"type": "RUN_ERROR", "message": "the turn ended without a completion", "code": "incomplete"}]


def error_events(exc: ValidationError) -> list[dict[str, Any]]:
    """Return the answer to a request that cannot run: one ``RUN_ERROR`` naming the path, rule and code.

    >>> error_events(ValidationError("expected a string, got number", "threadId", "type"))
    [{'type': 'RUN_ERROR', 'message': 'threadId: expected a string, got number', 'code': 'type'}]
    """
    return [{"type": "RUN_ERROR", "message": str(exc), "code": exc.code}]


# -- the request -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, repr=False)
class RunInput:
    """What the agent loop takes from a ``RunAgentInput``: the thread, the run, the new user message or decisions.

    ``message`` is the new user message (None when the run resumes after approvals or with
    the client's tool results); ``decisions`` answer the interrupts of the paused run
    (``resume``); ``tools`` are the tools the client runs (``tools``); ``results`` are the
    results of those the client ran (the ``tool`` messages the messages end with).
    """

    thread_id: str
    run_id: str
    message: ChatMessage | None
    message_id: str | None = None
    decisions: tuple[Decision, ...] = ()
    tools: tuple[ToolDefinition, ...] = ()
    results: tuple[ToolResult, ...] = ()

    def __repr__(self) -> str:
        return (f"RunInput(thread_id={self.thread_id!r}, run_id={self.run_id!r}, "
                f"message={'None' if self.message is None else 'user'}, decisions={len(self.decisions)}, "
                f"tools={len(self.tools)}, results={len(self.results)})")


def parse_run_input(body: Any, *, max_image_bytes: int = MAX_IMAGE_BYTES) -> RunInput:
    """Return the agent turn's input from an AG-UI ``RunAgentInput`` (a decoded JSON body).

    >>> body = {"threadId": "s1", "runId": "r1", "state": {}, "tools": [], "context": [], "forwardedProps": {},
    ...         "messages": [{"id": "u1", "role": "user", "content": "What recipes do I have?"}]}
    >>> run = parse_run_input(body)
    >>> run, run.message.text
    (RunInput(thread_id='s1', run_id='r1', message=user, decisions=0, tools=0, results=0), 'What recipes do I have?')
    >>> try:
    ...     parse_run_input({**body, "messages": [{"id": "u1", "role": "user", "content": 3}]})
    ... except ValidationError as exc:
    ...     print(exc.code, exc)
    type messages[0].content: expected a string or an array of parts, got number

    The server's stored history of ``threadId`` is the conversation: of ``messages`` only the
    last one is read, and it must be the user's (text, and images as ``data`` sources) unless
    ``resume`` answers the paused run's interrupts (``{"interruptId", "status": "resolved",
    "payload": {"approved": bool, "reason"?}}``; ``cancelled`` denies), or the ``tool`` messages
    with the results of the client's tools (``results``: ``content``, or ``error`` for a
    failure). ``tools`` are the client's tools (``{name, description, parameters}``, checked as
    tool definitions). Ignored, as documented in docs/ui-protocols.md: earlier messages,
    ``context``, ``state``, ``forwardedProps``, ``parentRunId``.
    """
    data = obj(body, "")
    thread_id = text(data.get("threadId"), "threadId", empty=False)
    run_id = text(data.get("runId"), "runId", empty=False)
    messages = array(data.get("messages"), "messages")
    tools = tool_definitions(data.get("tools"), "tools")
    if data.get("context") is not None:
        array(data["context"], "context")
    resume = data.get("resume")
    decisions: list[Decision] = []
    if resume is not None:
        for i, item in enumerate(array(resume, "resume")):
            path = join("resume", i)
            entry = obj(item, path)
            interrupt = text(entry.get("interruptId"), join(path, "interruptId"), empty=False)
            status = entry.get("status")
            if status == "cancelled":
                decisions.append(Decision(interrupt, False, None))
                continue
            if status != "resolved":
                raise ValidationError("must be one of resolved, cancelled", join(path, "status"), "value")
            payload = obj(entry.get("payload"), join(path, "payload"))
            approved = payload.get("approved")
            if type(approved) is not bool:
                raise ValidationError("must be a boolean (approved or not)", join(path, "payload.approved"), "type")
            reason = optional_text(payload.get("reason"), join(path, "payload.reason"))
            decisions.append(Decision(interrupt, approved, reason))
        if decisions:
            return RunInput(thread_id, run_id, None, None, tuple(decisions), tools)
    if not messages:
        raise ValidationError("must end with the user's message", "messages", "value")
    index = len(messages) - 1
    path = join("messages", index)
    last = obj(messages[index], path)
    role = last.get("role")
    if role == "tool":
        return RunInput(thread_id, run_id, None, None, (), tools, _results(messages))
    if role != "user":
        raise ValidationError("the last message must be the user's (or the results of the client's tools)",
                              join(path, "role"), "value")
    message_id = optional_text(last.get("id"), join(path, "id"))
    content = last.get("content")
    parts: list[ContentPart] = []
    if type(content) is str:
        if not content.strip():
            raise ValidationError("must not be empty", join(path, "content"), "value")
        return RunInput(thread_id, run_id, ChatMessage.user(content), message_id, (), tools)
    if not isinstance(content, list):
        raise ValidationError(f"expected a string or an array of parts, got {type_name(content)}",
                              join(path, "content"), "missing" if content is None else "type")
    for j, item in enumerate(content):
        at = join(join(path, "content"), j)
        part = obj(item, at)
        kind = part.get("type")
        if kind == "text":
            parts.append(TextPart(text(part.get("text"), join(at, "text"))))
        elif kind == "image":
            source = obj(part.get("source"), join(at, "source"))
            if source.get("type") != "data":
                raise ValidationError("images must be inline data (type data): this server fetches no URLs",
                                      join(at, "source.type"), "unsupported")
            parts.append(image_part(source.get("mimeType"), source.get("value"), join(at, "source.value"),
                                    max_image_bytes))
        else:
            raise ValidationError("only text and image parts are accepted", join(at, "type"), "unsupported")
    if not any(not isinstance(p, TextPart) or p.text.strip() for p in parts):
        raise ValidationError("must not be empty", join(path, "content"), "value")
    return RunInput(thread_id, run_id, ChatMessage.user(tuple(parts)), message_id, (), tools)


def _results(messages: list[Any]) -> tuple[ToolResult, ...]:
    """Return the results of the client's tools: the ``tool`` messages the messages end with, in order."""
    out: list[ToolResult] = []
    for index in range(len(messages) - 1, -1, -1):
        path = join("messages", index)
        message = obj(messages[index], path)
        if message.get("role") != "tool":
            break
        call = text(message.get("toolCallId"), join(path, "toolCallId"), empty=False)
        error = optional_text(message.get("error"), join(path, "error"))
        content = text(message.get("content"), join(path, "content"))
        out.append(ToolResult(call, content if error is None else error, error is not None))
    return tuple(reversed(out))


# -- the history -----------------------------------------------------------------------------------


def messages_snapshot(history: ChatInit | Iterable[HistoryEntry]) -> dict[str, Any]:
    """Return a stored conversation as one AG-UI ``MESSAGES_SNAPSHOT`` event.

    >>> from ..events import ChatEntry, ToolEntry, UserEntry
    >>> stamp = "2024-05-01T12:00:00Z"
    >>> history = [UserEntry(content="Recipes?", timestamp=stamp),
    ...            ChatEntry(id="m1", content="Let me look.", timestamp=stamp),
    ...            ToolEntry(id="t1", status="completed", tool_name="list_recipes", title="", content="Pancakes",
    ...                      progress_text="", timestamp=stamp, completed_at=stamp)]
    >>> [(m["role"], m["id"]) for m in messages_snapshot(history)["messages"]]
    [('user', 'user-0'), ('assistant', 'm1'), ('tool', 't1:result'), ('activity', 't1:activity')]

    A tool entry is a tool call of the assistant message before it (a new assistant message with
    the tool's id when there is none), its ``tool`` result message, and its activity; artifacts
    (of a ``chat:init`` reply) follow as ``agentmsg.artifact`` activities. Timestamps are dropped.
    """
    out: list[dict[str, Any]] = []
    known = artifacts(history)
    assistant: dict[str, Any] | None = None
    for i, entry in enumerate(entries(history)):
        if isinstance(entry, UserEntry):
            assistant = None
            out.append({"id": user_id(entry, i), "role": "user", "content": entry.content})
        elif isinstance(entry, ChatEntry):
            assistant = {"id": entry.id, "role": "assistant", "content": entry.content}
            out.append(assistant)
        else:
            if assistant is None:
                assistant = {"id": entry.id, "role": "assistant"}
                out.append(assistant)
            call = {"id": entry.id, "type": "function",
                    "function": {"name": entry.tool_name, "arguments": arguments_json(getattr(entry, "arguments", None))}}
            assistant.setdefault("toolCalls", []).append(call)
            view: dict[str, Any] = {"toolName": entry.tool_name, "status": entry.status, "title": entry.title,
                                    "content": entry.content, "progressText": entry.progress_text}
            if entry.status in ("completed", "error"):
                result: dict[str, Any] = {"id": _result_id(entry.id), "role": "tool", "toolCallId": entry.id,
                                          "content": entry.content}
                if entry.status == "error":
                    view["error"] = result["error"] = getattr(entry, "error", None) or entry.content or "the tool failed"
                    result["content"] = TOOL_ERROR_PREFIX + result["error"]
                out.append(result)
            out.append({"id": _activity_id(entry.id), "role": "activity", "activityType": TOOL_ACTIVITY, "content": view})
            for artifact_id in entry.artifact_ids:
                if artifact_id in known:
                    content = {"toolCallId": entry.id, "artifact": thaw_json(known[artifact_id]), "showInCanvas": False}
                    out.append({"id": _artifact_id(artifact_id), "role": "activity",
                                "activityType": ARTIFACT_ACTIVITY, "content": content})
    return {"type": "MESSAGES_SNAPSHOT", "messages": out}

