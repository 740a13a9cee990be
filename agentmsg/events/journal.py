"""What a turn keeps beside its stored messages: the history rebuilt from it, an interrupted turn closed.

>>> from ..messages import ChatMessage
>>> stored = [(ChatMessage.user("Hi"), {"events": [["chat:send", {"id": "u1", "timestamp": "2024-05-01T12:00:00Z"}]]}),
...           (ChatMessage.assistant("Hello!"),
...            {"events": [["message:start", {"id": "m1", "role": "assistant", "timestamp": "2024-05-01T12:00:01Z"}]]})]
>>> [entry.to_dict() for entry in restore(stored).messages]
[{'id': 'u1', 'role': 'user', 'content': 'Hi', 'timestamp': '2024-05-01T12:00:00Z'}, {'id': 'm1', 'role': 'assistant', 'kind': 'chat', 'content': 'Hello!', 'timestamp': '2024-05-01T12:00:01Z'}]

Theory of operation. A live history is what a ``SessionReducer`` made of the turn's events; a
restored one is what a new ``SessionReducer`` makes of the same events, replayed. ``AgentTurn``
keeps them, with a store, in each saved message's ``meta`` (``MessageStore``):

- ``events``: the wire pairs ``[name, payload]`` that made the message's entries (``chat:send``
  with the user entry's ``id`` and ``timestamp``, ``turn:start``, ``message:start``,
  ``tool:message:*``, ``tool:artifact``); the text of a chat message and of a user message (and
  its image) is not kept twice: it is read from the stored message itself.
- ``after``: events of the turn that no message took (a partial answer when the model failed),
  with their text; ``completion``: the turn's failed ``completion``.
- ``draft``: on the last message only, the events of the turn not saved yet, kept by a server
  before it sends them (``AgentTurn.unsaved_events``): read while the turn has no completion
  and none of its messages was saved since; ``close_interrupted`` turns a draft's text into the
  closing assistant message (as a cancel keeps the text streamed so far).

A message saved without ``meta`` (by an older store, or another writer) gets the entries of the
old fallback: ids ``stored_<n>`` (a tool entry takes its call's id), the tool's bare name as its
title, and the timestamp ``1970-01-01T00:00:00Z``. An event the reducer refuses (data changed
by hand) is left out; the messages, which the model sees, are the truth.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from .._time import now_wire_timestamp
from ..errors import ValidationError
from ..messages import ChatMessage
from .history import OPEN_STATUSES, ChatInit, ToolEntry
from .protocol import decode
from .reducer import SessionReducer
from .requests import ChatRequest, ImageAttachment
from .stream import Completion, MessageChunk, MessageStart, ToolMessageComplete, ToolMessageStart, ToolMessageUpdate

__all__ = ["restore", "close_interrupted", "JOURNAL_EVENTS", "EPOCH", "INTERRUPTED_RESULT", "INTERRUPTED_ANSWER"]

JOURNAL_EVENTS = frozenset(
    {"chat:send", "turn:start", "message:start", "message:chunk", "tool:message:start", "tool:message:args",
     "tool:message:update", "tool:message:complete", "tool:artifact", "completion"}
)
"""The events that change a history: the ones a journal keeps (chunks only where no message holds the text;
a tool message's streamed arguments joined into one piece)."""

EPOCH = "1970-01-01T00:00:00Z"
INTERRUPTED_RESULT = "The tool call was interrupted: the server stopped before it ended."
INTERRUPTED_ANSWER = "[The answer was interrupted: the server stopped before it ended.]"
INTERRUPTED_ERROR = "the turn was interrupted: the server stopped before it ended"


def _request(message: ChatMessage, data: Mapping[str, Any]) -> ChatRequest:
    """Return the ``chat:send`` of a stored user message: its text and image, the journal's id and time."""
    image = None
    content = message.content
    if not isinstance(content, str) and content is not None:
        for part in content:
            source = getattr(part, "source", None)
            if source is not None and source.data is not None and source.media_type is not None:
                image = ImageAttachment(data=source.data, media_type=source.media_type)
                break
    return ChatRequest(message=message.text, image=image, id=data.get("id"), timestamp=data.get("timestamp"))


def _replay(reducer: SessionReducer, message: ChatMessage | None, pairs: Iterable[Any]) -> None:
    for pair in pairs:
        try:
            name, payload = pair
            if name == "chat:send" and message is not None:
                reducer.apply(_request(message, payload))
            elif name == "message:start" and message is not None:
                start = MessageStart.from_dict(payload)
                reducer.apply(start)
                if message.text:
                    reducer.apply(MessageChunk(id=start.id, chunk=message.text))
            else:
                reducer.apply(decode(name, payload))
        except (ValidationError, TypeError, ValueError):  # refused, or not a pair: left out (see the module)
            continue


def _fallback(reducer: SessionReducer, i: int, message: ChatMessage, calls: dict[str, Any]) -> None:
    """Apply the old fallback's entries of a message stored without ``meta``."""
    role = message.role.name
    try:
        if role == "USER":
            reducer.apply(_request(message, {"id": f"stored_{i}", "timestamp": EPOCH}))
        elif role == "ASSISTANT":
            calls.update({call.id: call for call in message.tool_calls})
            if message.text:
                reducer.apply(MessageStart(id=f"stored_{i}", timestamp=EPOCH))
                reducer.apply(MessageChunk(id=f"stored_{i}", chunk=message.text))
        elif role == "TOOL" and message.tool_call_id is not None:
            call_id = message.tool_call_id
            call = calls.get(call_id)
            name = call.name if call is not None else "tool"
            reducer.apply(ToolMessageStart(id=call_id, tool_name=name, title=name, timestamp=EPOCH, tool_call_id=call_id,
                                           arguments=call.arguments if call is not None else None))
            if message.text:
                reducer.apply(ToolMessageUpdate(id=call_id, patch={"content": message.text}))  # type: ignore[arg-type]  # frozen by the check
            failed = bool(message.is_error)
            reducer.apply(ToolMessageComplete(id=call_id, status="error" if failed else "completed", timestamp=EPOCH,
                                              error=(message.text.strip() or "the tool failed")[:500] if failed else None))
    except ValidationError:
        pass


def _draft(stored: list[tuple[ChatMessage, Mapping[str, Any] | None]], reducer: SessionReducer) -> list[Any]:
    """Return the last message's ``draft`` events when they still apply: the turn has no completion, and
    nothing they start was saved since (a draft written late, after the message it was the draft of)."""
    meta = stored[-1][1] if stored else None
    draft = meta.get("draft") if meta is not None and meta.get("completion") is None else None
    if not isinstance(draft, list):
        return []
    known = {entry.id for entry in reducer.messages}
    for pair in draft:
        if isinstance(pair, list) and len(pair) == 2 and pair[0] in ("message:start", "tool:message:start") and (
                isinstance(pair[1], dict) and pair[1].get("id") in known):
            return []
    return draft


def _reducer(stored: list[tuple[ChatMessage, Mapping[str, Any] | None]]) -> SessionReducer:
    reducer = SessionReducer(clock=lambda: EPOCH)
    calls: dict[str, Any] = {}
    for i, (message, meta) in enumerate(stored):
        if meta is None:
            _fallback(reducer, i, message, calls)
            continue
        _replay(reducer, message, meta.get("events") or ())
        _replay(reducer, None, meta.get("after") or ())
        if meta.get("completion") is not None:
            _replay(reducer, None, [("completion", meta["completion"])])
    _replay(reducer, None, _draft(stored, reducer))
    return reducer


def restore(stored: Iterable[tuple[ChatMessage, Mapping[str, Any] | None]]) -> ChatInit:
    """Return the ``chat:init`` of stored ``(message, meta)`` pairs (``MessageStore.load_with_meta``)."""
    return _reducer(list(stored)).to_init()


def close_interrupted(stored: Iterable[tuple[ChatMessage, Mapping[str, Any] | None]], *,
                      clock: Callable[[], str] = now_wire_timestamp) -> list[tuple[ChatMessage, dict[str, Any]]]:
    """Return the messages (with their ``meta``) that close a stored turn that never ended; none if it did.

    >>> from ..messages import ChatMessage
    >>> stored = [(ChatMessage.user("Hi"), {"events": [["chat:send", {"id": "u1", "timestamp": "2024-05-01T12:00:00Z"}]]})]
    >>> [(m.role.name, meta["completion"]["code"]) for m, meta in close_interrupted(stored)]
    [('ASSISTANT', 'interrupted')]
    >>> close_interrupted(stored + [(ChatMessage.assistant("Hello"), {})])
    []

    A turn ended when the last message is an assistant answer without tool calls, or when its
    failed ``completion`` was kept. Otherwise (the process died, or a turn waited for an
    approval when it stopped) each tool call without a result is answered as failed
    (``INTERRUPTED_RESULT``) and an assistant message (``INTERRUPTED_ANSWER``) closes the turn, so
    the model sees a finished exchange and the next question on its own; the last message's
    ``meta`` carries the events that close the open tool entries and the failed ``completion``
    with code ``interrupted``.
    """
    stored = list(stored)
    if not stored:
        return []
    last, meta = stored[-1]
    if (meta is not None and meta.get("completion") is not None) or (
            last.role.name == "ASSISTANT" and not last.tool_calls):
        return []
    reducer = _reducer(stored[:-1] + [(last, {**meta, "draft": None})] if meta is not None else stored)
    draft = _draft(stored, reducer)
    answered = {m.tool_call_id for m, _ in stored if m.role.name == "TOOL"}
    calls = next((m.tool_calls for m, _ in reversed(stored) if m.role.name == "ASSISTANT"), ())
    entries = {e.tool_call_id: e for e in reducer.messages if type(e) is ToolEntry and e.status in OPEN_STATUSES}
    closing: list[tuple[ChatMessage, dict[str, Any]]] = []
    events: list[list[Any]] = []
    for call in calls:
        if call.id in answered:
            continue
        entry = entries.get(call.id)
        if entry is not None:
            complete = ToolMessageComplete(id=entry.id, status="error", timestamp=clock(), error=INTERRUPTED_RESULT)
            events.append(["tool:message:complete", complete.to_dict()])
        closing.append((ChatMessage.tool(call.id, INTERRUPTED_RESULT, is_error=True), {}))
    turn_id = reducer.turn_id if reducer.turn_open else None
    completion = Completion.failed(INTERRUPTED_ERROR, code="interrupted", turn_id=turn_id)
    said = "".join(p[1].get("chunk", "") for p in draft if p[0] == "message:chunk")
    kept = [p for p in draft if p[0] != "message:chunk"] if said.strip() else [p for p in draft if p[0] not in (
        "message:start", "message:chunk")]
    answer = ChatMessage.assistant(said if said.strip() else INTERRUPTED_ANSWER)
    closing.append((answer, {"events": kept, "after": events, "completion": completion.to_dict()}))
    return closing
