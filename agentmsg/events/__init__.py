"""The socket events between a chat backend and its web client, and the session reducer.

An event travels as a name and a JSON payload; ``encode`` and ``decode`` translate between that
pair and the typed, immutable events below. The field names on the wire are the protocol's own
(camelCase: ``toolName``, ``progressText``, ``messageId``, ...); the ``chat:send`` request keeps
its snake_case ``conversation_id`` and ``media_type``, as the web client sends them.

>>> from .. import events
>>> from ..errors import ValidationError
>>> events.encode(events.MessageChunk(id="m1", chunk="Hel"))
('message:chunk', {'id': 'm1', 'chunk': 'Hel'})
>>> events.decode("tool:message:complete",
...               {"id": "t1", "status": "completed", "timestamp": "2024-05-01T12:00:03Z"})
ToolMessageComplete(id='t1', status=completed)
>>> try:
...     events.decode("artifact:update", {})
... except ValidationError as exc:
...     print(exc)
event: 'artifact:update' was removed from the protocol; send 'tool:artifact' with the full artifact

Theory of operation. The server emits, for one turn: the client's ``chat:send`` (the user
message), ``turn:start`` (the turn's id), ``reasoning:start`` / ``reasoning:chunk`` /
``reasoning:end`` for the model's readable reasoning, ``message:start``, ``message:chunk`` and
``message:end`` for streamed assistant text (``kind: chat``), ``tool:message:start`` /
``tool:message:update`` / ``tool:message:complete`` for a tool's visible progress (``kind:
tool``; ``tool:message:args`` pieces of its arguments while the model streams them), ``tool:approval:request`` when a call waits for a person, ``tool:artifact`` to attach
a full artifact to a tool message, ``progress`` for the overall task, and one ``completion``
that closes the turn. The client may send ``chat:cancel`` (end the running turn) and
``tool:approval:response`` (decide a pending call). A
``SessionReducer`` applies that stream to the session's stored history, whose JSON is exactly
what ``chat:init`` returns to a client that joins the session's room (``session_room``).
Events are validated when built; the reducer checks each event against the state before it
changes anything, so a refused event leaves the history as it was.
"""

from __future__ import annotations

from .history import TOOL_STATUSES, ChatEntry, ChatInit, HistoryEntry, ToolEntry, UserEntry
from .protocol import EVENT_NAMES, REMOVED_EVENTS, Event, decode, encode, room_for, session_room
from .reducer import SessionReducer
from .journal import close_interrupted, restore
from .requests import ChatCancel, ChatInitRequest, ChatRequest, ImageAttachment, ToolApprovalResponse
from .stream import (
    COMPLETION_CODES,
    Completion,
    MessageChunk,
    MessageEnd,
    MessageStart,
    Progress,
    ReasoningChunk,
    ReasoningEnd,
    ReasoningStart,
    ToolApprovalRequest,
    ToolArtifact,
    ToolMessageArgs,
    ToolMessageComplete,
    ToolMessageStart,
    ToolMessageUpdate,
    TurnStart,
)

__all__ = [
    "ChatRequest",
    "ImageAttachment",
    "ChatInitRequest",
    "ChatInit",
    "ChatCancel",
    "ToolApprovalResponse",
    "TurnStart",
    "MessageStart",
    "MessageChunk",
    "MessageEnd",
    "ReasoningStart",
    "ReasoningChunk",
    "ReasoningEnd",
    "ToolMessageStart",
    "ToolMessageArgs",
    "ToolMessageUpdate",
    "ToolMessageComplete",
    "ToolApprovalRequest",
    "ToolArtifact",
    "Progress",
    "Completion",
    "Event",
    "UserEntry",
    "ChatEntry",
    "ToolEntry",
    "HistoryEntry",
    "SessionReducer",
    "restore",
    "close_interrupted",
    "encode",
    "decode",
    "session_room",
    "room_for",
    "EVENT_NAMES",
    "REMOVED_EVENTS",
    "TOOL_STATUSES",
    "COMPLETION_CODES",
]
