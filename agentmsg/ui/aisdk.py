"""The AI SDK UI message stream v1 (``useChat`` of the ``ai`` npm package): a turn's events as stream chunks.

>>> from .. import events
>>> stream = AiSdkStream(message_id="a1")
>>> turn = [events.MessageStart(id="m1"), events.MessageChunk(id="m1", chunk="Hello!"),
...         events.Completion.ok({"text": "Hello!"})]
>>> [chunk["type"] for event in turn for chunk in stream.translate(event)]
['start', 'start-step', 'text-start', 'text-delta', 'text-end', 'finish-step', 'finish']
>>> HEADERS["x-vercel-ai-ui-message-stream"], DONE
('v1', b'data: [DONE]\\n\\n')

Three parts, plain dicts in and out:

- ``AiSdkStream``: the translator of one response stream (one agent turn, or its
  continuation after approvals): ``translate(event)`` returns the chunks for one agentmsg
  event, ``close()`` ends a stream whose events stopped without ``completion`` (paused for
  approvals, or gone). Frame each chunk with ``sse``, send ``HEADERS``, end with ``DONE``.
- ``parse_request``: the body ``DefaultChatTransport`` posts (``{id, messages, trigger,
  messageId}``) as what ``AgentTurn`` takes (``ChatInput``).
- ``ui_messages``: a stored conversation (``chat:init``) as ``UIMessage[]``.

docs/ui-protocols.md has the mapping table and every loss.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .._frozen import thaw_json
from ..content import ContentPart, TextPart
from ..errors import ValidationError
from ..events import ChatEntry, ChatInit, HistoryEntry, UserEntry
from ..messages import ChatMessage
from ..tools import ToolDefinition
from ._common import (
    MAX_IMAGE_BYTES,
    Decision,
    ToolResult,
    arguments_json,
    array,
    artifacts,
    check_media,
    data_url_image,
    entries,
    join,
    obj,
    optional_text,
    sse,
    text,
    tool_definitions,
    user_id,
)
from ._translate import Out, Translator

__all__ = ["AiSdkStream", "ChatInput", "Decision", "ToolResult", "parse_request", "ui_messages", "answer_id", "check_history",
           "error_chunks", "sse",
           "HEADERS", "DONE", "TRIGGERS"]

HEADERS = {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    "x-vercel-ai-ui-message-stream": "v1",
    "x-accel-buffering": "no",
}
"""The response headers of a UI message stream (``x-vercel-ai-ui-message-stream: v1``)."""
DONE = b"data: [DONE]\n\n"
"""The stream's last line."""
TRIGGERS = ("submit-message", "regenerate-message")


class AiSdkStream(Translator):
    """Translate one turn's agentmsg events into UI message stream chunks for one assistant message.

    >>> from .. import events
    >>> stream = AiSdkStream(message_id="a1")
    >>> chunks = stream.translate(events.ToolMessageStart(id="t1", tool_name="find_recipe", title="Calling find_recipe",
    ...                                                   status="pending", timestamp="2024-05-01T12:00:00Z"))
    >>> chunks += stream.translate(events.ToolMessageArgs(id="t1", chunk='{"name": "Omelette"}'))
    >>> chunks += stream.translate(events.ToolMessageUpdate(id="t1", patch={"status": "running"}))
    >>> [(c["type"], c.get("inputTextDelta") or c.get("input")) for c in chunks]
    ... # doctest: +NORMALIZE_WHITESPACE
    [('start', None), ('start-step', None), ('tool-input-start', None), ('tool-input-delta', '{"name": "Omelette"}'),
     ('tool-input-available', {'name': 'Omelette'}), ('tool-output-available', None)]

    A call's arguments come whole in ``tool-input-available`` when ``tool:message:start`` has
    them; else each ``tool:message:args`` is a ``tool-input-delta`` and ``tool-input-available``
    (their JSON parsed, ``{}`` when it is not an object) follows at the next other event.

    Tools are dynamic tools (``dynamic-tool`` parts, the client declares none): the tool message
    id is the ``toolCallId``, and the output (preliminary while the tool runs, final at
    ``tool:message:complete``) is the tool message's view ``{status, title, content,
    progressText}``. After ``completion`` the stream is ``finished`` and further events are
    refused (``ValidationError``, code ``protocol``).
    """

    __slots__ = ("message_id",)
    _UNIT = "stream"

    def __init__(self, message_id: str) -> None:
        if not isinstance(message_id, str) or not message_id:
            raise TypeError("message_id must be a non-empty string")
        super().__init__()
        self.message_id = message_id

    def __repr__(self) -> str:
        return f"AiSdkStream(message_id={self.message_id!r}, finished={self.finished})"

    def resume(self) -> list[dict[str, Any]]:
        """Start the stream that continues a turn paused for approvals (the same assistant message).

        The client appends what follows to its last assistant message; the tool calls stay known.
        """
        self._reopen("trigger")
        return self._begin()

    def close(self, waiting: Iterable[str] = ()) -> list[dict[str, Any]]:
        """End a stream whose events stopped: paused for approvals or the client's tools, or gone without ``completion``.

        >>> from .. import events
        >>> stream = AiSdkStream(message_id="a1")
        >>> _ = stream.translate(events.MessageStart(id="m1"))
        >>> [c["type"] for c in stream.close()]
        ['text-end', 'error', 'finish']

        A finished stream closes with nothing; one paused for approvals, or for the client's
        tools (``waiting``: their tool message ids, each sent as ``tool-input-available``), with
        ``finish-step`` and ``finish`` (reason ``tool-calls``): the client answers and posts again.
        """
        return Translator.close(self, waiting)

    @staticmethod
    def _output(view: dict[str, Any]) -> dict[str, Any]:
        return {key: value for key, value in view.items() if key != "toolName"}

    # -- the UI message stream's words for the translator's hooks ----------------------------------

    def _on_begin(self) -> Out:
        return [{"type": "start", "messageId": self.message_id}, {"type": "start-step"}]

    def _on_text_start(self, message_id: str, content: str) -> Out:
        out: Out = [{"type": "text-start", "id": message_id}]
        return out + self._on_text_delta(message_id, content) if content else out

    def _on_text_delta(self, message_id: str, delta: str) -> Out:
        return [{"type": "text-delta", "id": message_id, "delta": delta}]

    def _on_text_end(self, message_id: str) -> Out:
        return [{"type": "text-end", "id": message_id}]

    def _on_reasoning_start(self, reasoning_id: str) -> Out:
        return [{"type": "reasoning-start", "id": reasoning_id}]

    def _on_reasoning_delta(self, reasoning_id: str, delta: str) -> Out:
        return [{"type": "reasoning-delta", "id": reasoning_id, "delta": delta}]

    def _on_reasoning_end(self, reasoning_id: str) -> Out:
        return [{"type": "reasoning-end", "id": reasoning_id}]

    def _on_tool_start(self, event: Any) -> Out:
        return [{"type": "tool-input-start", **self._head(event.id)}]

    def _on_tool_args(self, tool_id: str, chunk: str) -> Out:
        return [{"type": "tool-input-delta", "toolCallId": tool_id, "inputTextDelta": chunk}]

    def _on_tool_input(self, tool_id: str, arguments: dict[str, Any] | None, streamed: bool) -> Out:
        return [{"type": "tool-input-available", **self._head(tool_id), "input": {} if arguments is None else arguments}]

    def _head(self, tool_id: str) -> dict[str, Any]:
        view = self._tools[tool_id]
        return {"toolCallId": tool_id, "toolName": view["toolName"], "dynamic": True, "title": view["title"]}

    def _on_next_step(self) -> Out:
        return [{"type": "finish-step"}, {"type": "start-step"}]

    def _on_tool_update(self, tool_id: str, view: dict[str, Any]) -> Out:
        if view["status"] != "running":  # a call that never ran (waiting, denied) shows no output before its end
            return []
        return [{"type": "tool-output-available", "toolCallId": tool_id, "output": self._output(view), "dynamic": True,
                 "preliminary": True}]

    def _on_tool_complete(self, tool_id: str, view: dict[str, Any], error: str | None, denied: bool) -> Out:
        if error is None:
            return [{"type": "tool-output-available", "toolCallId": tool_id, "output": self._output(view),
                     "dynamic": True}]
        if denied and tool_id in self._asked:  # a person's denial: the client holds the approval it answered
            return [{"type": "tool-output-denied", "toolCallId": tool_id}]
        if any(request.id == tool_id for request in self._pending):
            return []  # asked and never answered: the AI SDK has no state for a withdrawn approval request
        return [{"type": "tool-output-error", "toolCallId": tool_id, "errorText": error, "dynamic": True}]

    def _on_artifact(self, event: Any) -> Out:
        data = {"toolCallId": event.message_id, "artifact": thaw_json(event.artifact),
                "showInCanvas": event.show_in_canvas}
        return [{"type": "data-artifact", "id": event.artifact_id, "data": data}]

    def _on_progress(self, event: Any) -> Out:
        return [{"type": "data-progress", "id": "progress", "data": event.to_dict()}]

    def _on_approval(self, event: Any) -> Out:
        return [{"type": "tool-approval-request", "approvalId": event.id, "toolCallId": event.id}]

    def _on_success(self, event: Any) -> Out:
        return [{"type": "finish-step"}, {"type": "finish", "finishReason": "stop"}]

    def _on_cancelled(self, event: Any) -> Out:
        return [{"type": "abort"}]  # no reason: ai 6.0.0's strict chunk schema refuses the key

    def _on_failure(self, event: Any) -> Out:
        return [{"type": "error", "errorText": event.error}, {"type": "finish", "finishReason": "error"}]

    def _on_paused(self) -> Out:
        return [{"type": "finish-step"}, {"type": "finish", "finishReason": "tool-calls"}]

    def _on_incomplete(self) -> Out:
        return [{"type": "error", "errorText": "the turn ended without a completion"},
                {"type": "finish", "finishReason": "error"}]


def error_chunks(exc: ValidationError) -> list[dict[str, Any]]:
    """Return the answer to a request that cannot run: one ``error`` chunk naming the path, rule and code.

    >>> error_chunks(ValidationError("must be one of submit-message, regenerate-message", "trigger", "value"))
    [{'type': 'error', 'errorText': 'trigger: must be one of submit-message, regenerate-message (code value)'}]
    """
    return [{"type": "error", "errorText": f"{exc} (code {exc.code})"}]


# -- the request -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, repr=False)
class ChatInput:
    """What the agent loop takes from a ``useChat`` request: the chat, the new user message or decisions.

    ``message`` is the new user message and ``message_id`` its id (None when the request
    answers approvals or brings tool results); ``decisions`` are the approval responses of the
    last assistant message and ``results`` the outputs of its tool parts (the client's tools'
    among them); ``tools`` are the tools the client runs (the body's ``tools``); ``sent`` holds
    the messages the client sent besides its new one (``check_history`` holds them against the
    stored conversation).
    """

    chat_id: str
    message: ChatMessage | None
    message_id: str | None = None
    decisions: tuple[Decision, ...] = ()
    sent: tuple[Any, ...] = ()
    tools: tuple[ToolDefinition, ...] = ()
    results: tuple[ToolResult, ...] = ()

    def __repr__(self) -> str:
        return (f"ChatInput(chat_id={self.chat_id!r}, message={'None' if self.message is None else 'user'}, "
                f"decisions={len(self.decisions)}, tools={len(self.tools)}, results={len(self.results)})")


def parse_request(body: Any, *, max_image_bytes: int = MAX_IMAGE_BYTES) -> ChatInput:
    """Return the agent turn's input from the body ``DefaultChatTransport`` posts (a decoded JSON body).

    >>> body = {"id": "c1", "trigger": "submit-message", "messages": [
    ...     {"id": "u1", "role": "user", "parts": [{"type": "text", "text": "What is in this picture?"},
    ...      {"type": "file", "mediaType": "image/gif", "url": "data:image/gif;base64,R0lGODlhAQABAAAAACw="}]}]}
    >>> chat = parse_request(body)
    >>> chat, [p["type"] for p in chat.message.to_dict()["content"]]
    (ChatInput(chat_id='c1', message=user, decisions=0, tools=0, results=0), ['text', 'image'])
    >>> try:
    ...     parse_request({**body, "trigger": "regenerate-message"})
    ... except ValidationError as exc:
    ...     print(exc.code, exc)
    unsupported trigger: regenerate-message is not supported: the server keeps the conversation; send a new message

    The server's stored history of ``id`` is the conversation: of ``messages`` the last one is
    read, the others are kept in ``sent`` for ``check_history``. ``tools`` (this server's
    addition to the body: ``[{name, description, parameters}]``, as AG-UI's) are the tools the
    client runs. The last message is the user's new message (text parts, and image files as ``data:`` URLs:
    bounded by ``max_image_bytes``, their bytes checked against ``mediaType``), or the assistant
    message whose tool parts carry approval responses (``state: approval-responded``) or the
    client's tools' outputs (``output-available``, ``output-error``: ``results``). Other
    parts of the user message (``data-*``, ``source-*``, ``step-start``) are ignored, and so is
    the body's ``messageId`` (sent with ``regenerate-message`` only); unknown ``trigger`` values are refused.
    """
    data = obj(body, "")
    chat_id = text(data.get("id"), "id", empty=False)
    trigger = data.get("trigger", "submit-message")
    if trigger not in TRIGGERS:
        raise ValidationError("must be one of " + ", ".join(TRIGGERS), "trigger", "value" if type(trigger) is str else "type")
    if trigger == "regenerate-message":
        raise ValidationError("regenerate-message is not supported: the server keeps the conversation; send a new message",
                              "trigger", "unsupported")
    optional_text(data.get("messageId"), "messageId")
    messages = array(data.get("messages"), "messages")
    tools = tool_definitions(data.get("tools"), "tools")
    if not messages:
        raise ValidationError("must end with the user's message", "messages", "value")
    index = len(messages) - 1
    path = join("messages", index)
    last = obj(messages[index], path)
    message_id = optional_text(last.get("id"), join(path, "id"))
    role = last.get("role")
    parts = array(last.get("parts"), join(path, "parts"))
    if role == "assistant":
        decisions = tuple(_decisions(parts, join(path, "parts")))
        results = tuple(_results(parts, join(path, "parts")))
        if not decisions and not results:
            raise ValidationError("an assistant message is sent back only with approval responses or tool results",
                                  join(path, "parts"), "value")
        return ChatInput(chat_id, None, None, decisions, tuple(messages), tools, results)
    if role != "user":
        raise ValidationError("the last message must be the user's", join(path, "role"), "value")
    content: list[ContentPart] = []
    for j, item in enumerate(parts):
        at = join(join(path, "parts"), j)
        part = obj(item, at)
        kind = part.get("type")
        if kind == "text":
            content.append(TextPart(text(part.get("text"), join(at, "text"))))
        elif kind == "file":
            media = check_media(part.get("mediaType"), join(at, "mediaType"))
            content.append(data_url_image(part.get("url"), media, join(at, "url"), max_image_bytes))
        elif type(kind) is not str:
            raise ValidationError("expected a part type", join(at, "type"), "missing" if kind is None else "type")
    if not any(not isinstance(p, TextPart) or p.text.strip() for p in content):
        raise ValidationError("must hold text or an image", join(path, "parts"), "value")
    return ChatInput(chat_id, ChatMessage.user(tuple(content)), message_id or None, (), tuple(messages[:-1]), tools)


def _results(parts: list[Any], path: str) -> Iterable[ToolResult]:
    """Yield the outputs of an assistant message's tool parts: text as it is, other JSON as compact text."""
    for j, item in enumerate(parts):
        at = join(path, j)
        part = obj(item, at)
        kind, state = part.get("type"), part.get("state")
        if not (kind == "dynamic-tool" or (type(kind) is str and kind.startswith("tool-"))):
            continue
        if state == "output-available" and not part.get("preliminary"):
            call = text(part.get("toolCallId"), join(at, "toolCallId"), empty=False)
            output = part.get("output")
            yield ToolResult(call, output if type(output) is str else arguments_json(output))
        elif state == "output-error":
            call = text(part.get("toolCallId"), join(at, "toolCallId"), empty=False)
            yield ToolResult(call, text(part.get("errorText"), join(at, "errorText")), True)


def _decisions(parts: list[Any], path: str) -> Iterable[Decision]:
    for j, item in enumerate(parts):
        at = join(path, j)
        part = obj(item, at)
        if part.get("state") != "approval-responded":
            continue
        approval = obj(part.get("approval"), join(at, "approval"))
        approval_id = text(approval.get("id"), join(at, "approval.id"), empty=False)
        approved = approval.get("approved")
        if type(approved) is not bool:
            raise ValidationError("must be a boolean", join(at, "approval.approved"), "missing" if approved is None else "type")
        yield Decision(approval_id, approved, optional_text(approval.get("reason"), join(at, "approval.reason")))


# -- the history -----------------------------------------------------------------------------------


def ui_messages(history: ChatInit | Iterable[HistoryEntry]) -> list[dict[str, Any]]:
    """Return a stored conversation as ``UIMessage[]`` (what ``useChat({messages})`` starts from).

    >>> from ..events import ChatEntry, ToolEntry, UserEntry
    >>> stamp = "2024-05-01T12:00:00Z"
    >>> history = [UserEntry(content="Recipes?", timestamp=stamp),
    ...            ChatEntry(id="m1", content="Let me look.", timestamp=stamp),
    ...            ToolEntry(id="t1", status="completed", tool_name="list_recipes", title="", content="Pancakes",
    ...                      progress_text="", timestamp=stamp, completed_at=stamp)]
    >>> [(m["role"], [p["type"] for p in m["parts"]]) for m in ui_messages(history)]
    [('user', ['text']), ('assistant', ['text', 'dynamic-tool'])]

    The assistant entries between two user messages become one assistant message (its id is
    ``answer_id`` of the user message's; the first entry's when no user message came before): chat entries as ``text`` parts, tool entries as ``dynamic-tool`` parts
    (``output-available``, ``output-error``, or ``input-available`` while open), and their
    artifacts (of a ``chat:init`` reply) as ``data-artifact`` parts. Timestamps are dropped.
    """
    out: list[dict[str, Any]] = []
    known = artifacts(history)
    assistant: dict[str, Any] | None = None
    asked: str | None = None  # the id of the user message the next assistant message answers
    for i, entry in enumerate(entries(history)):
        if isinstance(entry, UserEntry):
            assistant, asked = None, user_id(entry, i)
            out.append({"id": asked, "role": "user", "parts": [{"type": "text", "text": entry.content}]})
            continue
        if assistant is None:
            assistant = {"id": entry.id if asked is None else answer_id(asked), "role": "assistant", "parts": []}
            out.append(assistant)
        parts = assistant["parts"]
        if isinstance(entry, ChatEntry):
            parts.append({"type": "text", "text": entry.content, "state": "done"})
            continue
        arguments = getattr(entry, "arguments", None)
        part: dict[str, Any] = {"type": "dynamic-tool", "toolName": entry.tool_name, "toolCallId": entry.id,
                                "title": entry.title, "input": {} if arguments is None else thaw_json(arguments)}
        view = {"status": entry.status, "title": entry.title, "content": entry.content,
                "progressText": entry.progress_text}
        if entry.status == "completed":
            part.update(state="output-available", output=view)
        elif entry.status == "error":
            part.update(state="output-error", errorText=getattr(entry, "error", None) or entry.content or "the tool failed")
        else:
            part["state"] = "input-available"
        parts.append(part)
        for artifact_id in entry.artifact_ids:
            if artifact_id in known:
                data = {"toolCallId": entry.id, "artifact": thaw_json(known[artifact_id]), "showInCanvas": False}
                parts.append({"type": "data-artifact", "id": artifact_id, "data": data})
    return out


def answer_id(user_message_id: str) -> str:
    """Return the id of the assistant message that answers the user message ``user_message_id``.

    >>> answer_id("u1")
    'u1:answer'

    ``ui_messages`` names the assistant messages so, and a server names its stream's message
    (``AiSdkStream(message_id=answer_id(...))``) so: what a client rebuilt has the stored ids.
    """
    return user_message_id + ":answer"


def check_history(sent: Iterable[Any], history: ChatInit | Iterable[HistoryEntry], *,
                  waiting: Iterable[str] = ()) -> None:
    """Refuse the messages a client sent unless they are the stored conversation, or its beginning.

    >>> from ..events import ChatEntry, UserEntry
    >>> stamp = "2024-05-01T12:00:00Z"
    >>> stored = [UserEntry(id="u1", content="Recipes?", timestamp=stamp), ChatEntry(id="m1", content="None.", timestamp=stamp)]
    >>> mine = ui_messages(stored)
    >>> check_history(mine, stored), check_history(mine[:1], stored), check_history([], stored)
    (None, None, None)
    >>> mine[1]["parts"][0]["text"] = "You have 3 recipes."
    >>> try:
    ...     check_history(mine, stored)
    ... except ValidationError as exc:
    ...     print(exc.code, exc)
    value messages[1]: differs from the stored conversation (send the stored messages, or only the new one)

    Each message is held against the stored one at its place (``ui_messages``) by its id, its
    role and what it says: the text of its text parts, and each tool part's call id, tool name
    and state (done, failed or open; a done call's output ``content`` too). Other parts (steps,
    reasoning, ``data-*``, files) are not compared. A message past the stored ones is refused
    (code ``unexpected``), a differing one with code ``value``. The tool calls in ``waiting``
    (their approval or a client's result is being answered) are held by id and name only.
    """
    stored = ui_messages(history)
    held = frozenset(waiting)
    for i, message in enumerate(sent):
        path = join("messages", i)
        if i >= len(stored):
            raise ValidationError("is not in the stored conversation (send the stored messages, or only the new one)",
                                  path, "unexpected")
        if not _agrees(_digest(message, path, held), _digest(stored[i], path, held)):
            raise ValidationError("differs from the stored conversation (send the stored messages, or only the new one)",
                                  path, "value")


def _agrees(sent: tuple[Any, ...], stored: tuple[Any, ...]) -> bool:
    """Return whether a sent message says what the stored one does (a client's unfinished view of it may lag)."""
    if sent[:2] != stored[:2] or len(sent[2]) != len(stored[2]):
        return False
    if sent[1] == "user":
        return bool(sent[2] == stored[2])
    for mine, kept in zip(sent[2], stored[2]):
        if mine[0] != kept[0]:
            return False
        if mine[0] == "text":  # a text the client stopped (state streaming) is the beginning of the stored one
            if not (mine[1] == kept[1] or (mine[2] and kept[1].startswith(mine[1]))):
                return False
        elif mine[1:3] != kept[1:3] or (mine[3:] != kept[3:] and mine[3:] != ("open",)):
            return False
    return True


def _digest(message: Any, path: str, waiting: frozenset[str]) -> tuple[Any, ...]:
    """Return what ``check_history`` compares of one UI message: its id, role and what it says."""
    data = obj(message, path)
    message_id = text(data.get("id"), join(path, "id"), empty=False)
    role = text(data.get("role"), join(path, "role"))
    said: list[Any] = []
    texts: list[str] = []
    for j, item in enumerate(array(data.get("parts"), join(path, "parts"))):
        at = join(join(path, "parts"), j)
        part = obj(item, at)
        kind = part.get("type")
        if kind == "text":
            texts.append(text(part.get("text"), join(at, "text")))
            said.append(("text", texts[-1], part.get("state") == "streaming"))
        elif kind == "dynamic-tool" or (type(kind) is str and kind.startswith("tool-")):
            call = text(part.get("toolCallId"), join(at, "toolCallId"))
            name = part.get("toolName") if kind == "dynamic-tool" else kind[5:]
            state = part.get("state")
            output = part.get("output")
            if call in waiting:
                said.append(("tool", call, name))
            elif state == "output-available" and not part.get("preliminary"):
                said.append(("tool", call, name, "done", output.get("content") if isinstance(output, dict) else output))
            elif state in ("output-error", "output-denied"):
                said.append(("tool", call, name, "failed"))
            else:  # approval-responded claims a decision nobody waits for: it agrees with nothing stored
                said.append(("tool", call, name, "responded" if state == "approval-responded" else "open"))
    return (message_id, role, "\n".join(texts) if role == "user" else tuple(said))
