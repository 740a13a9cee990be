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
from ..events import ChatEntry, ChatInit, Event, HistoryEntry, ToolEntry, UserEntry, decode
from ..messages import ChatMessage
from ._common import (
    MAX_IMAGE_BYTES,
    Decision,
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
    user_id,
)

__all__ = ["AguiRun", "RunInput", "Decision", "parse_run_input", "messages_snapshot", "error_events", "sse",
           "TOOL_ACTIVITY", "ARTIFACT_ACTIVITY", "PROGRESS_EVENT", "CONTENT_TYPE"]

CONTENT_TYPE = "text/event-stream"
TOOL_ACTIVITY = "agentmsg.tool"
"""The ``activityType`` of a tool message's live view (``ACTIVITY_SNAPSHOT``)."""
ARTIFACT_ACTIVITY = "agentmsg.artifact"
"""The ``activityType`` of an artifact (``ACTIVITY_SNAPSHOT`` keyed ``artifact:<id>``)."""
PROGRESS_EVENT = "agentmsg.progress"
"""The ``name`` of the ``CUSTOM`` event that carries ``progress``."""
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


class AguiRun:
    """Translate one run's agentmsg events into AG-UI events, keeping AG-UI's order rules.

    >>> from .. import events
    >>> run = AguiRun(thread_id="s1", run_id="r1")
    >>> out = run.translate(events.ToolMessageStart(id="t1", tool_name="list_recipes", title="Calling list_recipes",
    ...                                             timestamp="2024-05-01T12:00:00Z"))
    >>> [(e["type"], e.get("toolCallId") or e.get("messageId")) for e in out]
    [('RUN_STARTED', None), ('TOOL_CALL_START', 't1'), ('TOOL_CALL_END', 't1'), ('ACTIVITY_SNAPSHOT', 't1:activity')]

    The first event is ``RUN_STARTED`` (sent before whatever comes first; ``turn:start`` only
    starts the run); a text message is ended before a tool call starts and before the run ends;
    the tool message's id is the AG-UI ``toolCallId``. After ``completion`` the run is
    ``finished`` and further events are refused (``ValidationError``, code ``protocol``).
    """

    __slots__ = ("thread_id", "run_id", "started", "finished", "_text", "_parent", "_tools", "_interrupts",
                 "_input")

    def __init__(self, thread_id: str, run_id: str, *, input: dict[str, Any] | None = None) -> None:
        if not isinstance(thread_id, str) or not thread_id or not isinstance(run_id, str) or not run_id:
            raise TypeError("thread_id and run_id must be non-empty strings")
        self.thread_id = thread_id
        self.run_id = run_id
        self.started = False
        self.finished = False
        self._input = input
        self._text: str | None = None  # the open text message
        self._parent: str | None = None  # the text message the next tool calls belong to
        self._tools: dict[str, dict[str, Any]] = {}  # tool message id -> its live view
        self._interrupts: list[dict[str, Any]] = []

    def __repr__(self) -> str:
        return f"AguiRun(thread_id={self.thread_id!r}, run_id={self.run_id!r}, finished={self.finished})"

    def resume(self, run_id: str) -> list[dict[str, Any]]:
        """Start the next run of a run that paused for approvals (its tool calls stay known).

        Returns the new ``RUN_STARTED``; the events of the continued turn follow through ``translate``.
        """
        if not self.finished or not self._interrupts:
            raise ValidationError("only a run that paused for an approval can be resumed", "runId", "protocol")
        self.run_id = run_id
        self.finished = False
        self.started = False
        self._interrupts = []
        return self._start()

    def _start(self) -> list[dict[str, Any]]:
        self.started = True
        event: dict[str, Any] = {"type": "RUN_STARTED", "threadId": self.thread_id, "runId": self.run_id}
        if self._input is not None:
            event["input"] = self._input
        return [event]

    def _end_text(self, out: list[dict[str, Any]]) -> None:
        if self._text is not None:
            out.append({"type": "TEXT_MESSAGE_END", "messageId": self._text})
            self._text = None

    def translate(self, event: Event) -> list[dict[str, Any]]:
        """Return the AG-UI events for one agentmsg event (none for events AG-UI has no use for)."""
        if self.finished:
            raise ValidationError("the run has finished: no more events", "event", "protocol")
        out = [] if self.started else self._start()
        e: Any = event  # one of the Event classes; which one its name says
        name = e.EVENT
        if name == "message:start":
            self._end_text(out)
            self._text = self._parent = e.id
            out.append({"type": "TEXT_MESSAGE_START", "messageId": e.id, "role": "assistant"})
            if e.content:
                out.append({"type": "TEXT_MESSAGE_CONTENT", "messageId": e.id, "delta": e.content})
        elif name == "message:chunk":
            if e.id != self._text:
                raise ValidationError("no open text message has this id", "id", "protocol")
            if e.chunk:
                out.append({"type": "TEXT_MESSAGE_CONTENT", "messageId": e.id, "delta": e.chunk})
        elif name == "message:end":
            if e.id == self._text:
                self._end_text(out)
        elif name == "tool:message:start":
            self._tool_start(event, out)
        elif name == "tool:message:update":
            view = self._view(e.id)
            view.update(e.patch)
            out.append(self._activity(e.id))
        elif name == "tool:message:complete":
            self._tool_complete(event, out)
        elif name == "tool:artifact":
            content = {"toolCallId": e.message_id, "artifact": thaw_json(e.artifact),
                       "showInCanvas": e.show_in_canvas}
            out.append({"type": "ACTIVITY_SNAPSHOT", "messageId": _artifact_id(e.artifact_id),
                        "activityType": ARTIFACT_ACTIVITY, "content": content, "replace": True})
        elif name == "progress":
            out.append({"type": "CUSTOM", "name": PROGRESS_EVENT, "value": e.to_dict()})
        elif name == "reasoning:start":
            out.append({"type": "REASONING_START", "messageId": e.id})
            out.append({"type": "REASONING_MESSAGE_START", "messageId": e.id, "role": "reasoning"})
        elif name == "reasoning:chunk":
            if e.chunk:
                out.append({"type": "REASONING_MESSAGE_CONTENT", "messageId": e.id, "delta": e.chunk})
        elif name == "reasoning:end":
            out.append({"type": "REASONING_MESSAGE_END", "messageId": e.id})
            out.append({"type": "REASONING_END", "messageId": e.id})
        elif name == "tool:approval:request":
            tool_id = e.id
            self._interrupts.append({"id": tool_id, "reason": APPROVAL_REASON, "toolCallId": tool_id,
                                     "message": f"Allow the tool {e.tool_name}?",
                                     "responseSchema": _APPROVAL_SCHEMA})
        elif name == "completion":
            self._complete(event, out)
        return out  # turn:start, chat:* and unknown events add nothing beyond RUN_STARTED

    def translate_wire(self, name: str, payload: Any) -> list[dict[str, Any]]:
        """Return the AG-UI events for a wire pair ``(event_name, payload)`` (decoded and checked first)."""
        return self.translate(decode(name, payload, sender="server"))

    def _view(self, tool_id: str) -> dict[str, Any]:
        view = self._tools.get(tool_id)
        if view is None:
            raise ValidationError("names no tool message of this run", "id", "unknown")
        return view

    def _activity(self, tool_id: str) -> dict[str, Any]:
        return {"type": "ACTIVITY_SNAPSHOT", "messageId": _activity_id(tool_id), "activityType": TOOL_ACTIVITY,
                "content": dict(self._tools[tool_id]), "replace": True}

    def _tool_start(self, event: Any, out: list[dict[str, Any]]) -> None:
        self._end_text(out)
        tool_id = event.id
        start: dict[str, Any] = {"type": "TOOL_CALL_START", "toolCallId": tool_id, "toolCallName": event.tool_name}
        if self._parent is not None:
            start["parentMessageId"] = self._parent
        out.append(start)
        arguments = getattr(event, "arguments", None)
        if arguments is not None:
            out.append({"type": "TOOL_CALL_ARGS", "toolCallId": tool_id, "delta": arguments_json(arguments)})
        out.append({"type": "TOOL_CALL_END", "toolCallId": tool_id})
        self._tools[tool_id] = {"toolName": event.tool_name, "status": event.status, "title": event.title,
                                "content": event.content, "progressText": event.progress_text}
        out.append(self._activity(tool_id))

    def _tool_complete(self, event: Any, out: list[dict[str, Any]]) -> None:
        view = self._view(event.id)
        view["status"] = event.status
        error = getattr(event, "error", None)
        if event.status == "error":
            view["error"] = error or view["content"] or "the tool failed"
        self._parent = None  # the step's calls are answered: later calls belong to a later message
        out.append(self._activity(event.id))
        result: dict[str, Any] = {"type": "TOOL_CALL_RESULT", "messageId": _result_id(event.id),
                                  "toolCallId": event.id, "role": "tool", "content": view["content"]}
        if event.status == "error":
            result["content"] = view["content"] or view["error"]
            result["error"] = view["error"]
        out.append(result)

    def _complete(self, event: Any, out: list[dict[str, Any]]) -> None:
        self._end_text(out)
        self.finished = True
        if event.success:
            out.append({"type": "RUN_FINISHED", "threadId": self.thread_id, "runId": self.run_id,
                        "result": thaw_json(event.result), "outcome": {"type": "success"}})
        elif getattr(event, "cancelled", None) or getattr(event, "code", None) == "cancelled":
            out.append({"type": "RUN_FINISHED", "threadId": self.thread_id, "runId": self.run_id,
                        "outcome": {"type": "cancelled"}})
        else:
            error: dict[str, Any] = {"type": "RUN_ERROR", "message": event.error}
            code = getattr(event, "code", None)
            if code is not None:
                error["code"] = code
            out.append(error)
        self._interrupts = []

    def close(self) -> list[dict[str, Any]]:
        """End the run when the turn's events stop: paused for approvals, or gone without ``completion``.

        >>> from .. import events
        >>> run = AguiRun(thread_id="s1", run_id="r1")
        >>> _ = run.translate(events.MessageStart(id="m1"))
        >>> [(e["type"], e.get("code")) for e in run.close()]
        [('TEXT_MESSAGE_END', None), ('RUN_ERROR', 'incomplete')]

        A finished run closes with nothing; a run that paused for approvals ends with
        ``RUN_FINISHED`` whose outcome is ``interrupt`` (one interrupt per pending tool call).
        """
        if self.finished:
            return []
        out = [] if self.started else self._start()
        self._end_text(out)
        self.finished = True
        if self._interrupts:
            out.append({"type": "RUN_FINISHED", "threadId": self.thread_id, "runId": self.run_id,
                        "outcome": {"type": "interrupt", "interrupts": list(self._interrupts)}})
        else:
            out.append({"type": "RUN_ERROR", "message": "the turn ended without a completion", "code": "incomplete"})
        return out


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

    ``message`` is the new user message (None when the run resumes after approvals);
    ``decisions`` answer the interrupts of the paused run (``resume``).
    """

    thread_id: str
    run_id: str
    message: ChatMessage | None
    message_id: str | None = None
    decisions: tuple[Decision, ...] = ()

    def __repr__(self) -> str:
        return (f"RunInput(thread_id={self.thread_id!r}, run_id={self.run_id!r}, "
                f"message={'None' if self.message is None else 'user'}, decisions={len(self.decisions)})")


def parse_run_input(body: Any, *, max_image_bytes: int = MAX_IMAGE_BYTES) -> RunInput:
    """Return the agent turn's input from an AG-UI ``RunAgentInput`` (a decoded JSON body).

    >>> body = {"threadId": "s1", "runId": "r1", "state": {}, "tools": [], "context": [], "forwardedProps": {},
    ...         "messages": [{"id": "u1", "role": "user", "content": "What recipes do I have?"}]}
    >>> run = parse_run_input(body)
    >>> run, run.message.text
    (RunInput(thread_id='s1', run_id='r1', message=user, decisions=0), 'What recipes do I have?')
    >>> try:
    ...     parse_run_input({**body, "messages": [{"id": "u1", "role": "user", "content": 3}]})
    ... except ValidationError as exc:
    ...     print(exc.code, exc)
    type messages[0].content: expected a string or an array of parts, got number

    The server's stored history of ``threadId`` is the conversation: of ``messages`` only the
    last one is read, and it must be the user's (text, and images as ``data`` sources) unless
    ``resume`` answers the paused run's interrupts (``{"interruptId", "status": "resolved",
    "payload": {"approved": bool, "reason"?}}``; ``cancelled`` denies). Ignored, as documented
    in docs/ui-protocols.md: earlier messages, ``tools`` (client-side tools: this backend runs
    its own), ``context``, ``state``, ``forwardedProps``, ``parentRunId``.
    """
    data = obj(body, "")
    thread_id = text(data.get("threadId"), "threadId", empty=False)
    run_id = text(data.get("runId"), "runId", empty=False)
    messages = array(data.get("messages"), "messages")
    for key in ("tools", "context"):
        if data.get(key) is not None:
            array(data[key], key)
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
            return RunInput(thread_id, run_id, None, None, tuple(decisions))
    if not messages:
        raise ValidationError("must end with the user's message", "messages", "value")
    index = len(messages) - 1
    path = join("messages", index)
    last = obj(messages[index], path)
    role = last.get("role")
    if role != "user":
        if role == "tool":
            raise ValidationError("client-side tools are not supported: this backend runs its own tools",
                                  join(path, "role"), "unsupported")
        raise ValidationError("the last message must be the user's", join(path, "role"), "value")
    message_id = optional_text(last.get("id"), join(path, "id"))
    content = last.get("content")
    parts: list[ContentPart] = []
    if type(content) is str:
        if not content.strip():
            raise ValidationError("must not be empty", join(path, "content"), "value")
        return RunInput(thread_id, run_id, ChatMessage.user(content), message_id)
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
    return RunInput(thread_id, run_id, ChatMessage.user(tuple(parts)), message_id)


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
                out.append(result)
            out.append({"id": _activity_id(entry.id), "role": "activity", "activityType": TOOL_ACTIVITY, "content": view})
            for artifact_id in entry.artifact_ids:
                if artifact_id in known:
                    content = {"toolCallId": entry.id, "artifact": thaw_json(known[artifact_id]), "showInCanvas": False}
                    out.append({"id": _artifact_id(artifact_id), "role": "activity",
                                "activityType": ARTIFACT_ACTIVITY, "content": content})
    return {"type": "MESSAGES_SNAPSHOT", "messages": out}

