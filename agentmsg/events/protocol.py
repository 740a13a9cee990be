"""The protocol's table: every event by its name, ``encode``/``decode`` of the wire pair, and the rooms.

>>> encode(MessageEnd(id="m1"))
('message:end', {'id': 'm1'})
>>> decode("reasoning:end", {"id": "r1"})
ReasoningEnd(id='r1')
"""

from __future__ import annotations

from typing import Any, Union

from .._checks import check_nonempty, expect_object, expected
from .._frozen import FrozenDict
from ..errors import ValidationError
from .history import ChatInit
from .requests import ChatCancel, ChatInitRequest, ChatRequest, ToolApprovalResponse
from .stream import (
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

__all__ = ["Event", "EVENT_TYPES", "EVENT_NAMES", "REMOVED_EVENTS", "encode", "decode", "session_room", "room_for"]

Event = Union[
    ChatRequest,
    ChatInitRequest,
    ChatInit,
    ChatCancel,
    ToolApprovalResponse,
    TurnStart,
    MessageStart,
    MessageChunk,
    MessageEnd,
    ReasoningStart,
    ReasoningChunk,
    ReasoningEnd,
    ToolMessageStart,
    ToolMessageArgs,
    ToolMessageUpdate,
    ToolMessageComplete,
    ToolApprovalRequest,
    ToolArtifact,
    Progress,
    Completion,
]

EVENT_TYPES: tuple[type[Any], ...] = Event.__args__  # type: ignore[attr-defined]  # a Union's members
"""Every event class, in the order of the ``Event`` union."""

_BY_NAME: dict[str, type[Any]] = {
    cls.EVENT: cls for cls in EVENT_TYPES if cls is not ChatInitRequest and cls is not ChatInit
}

EVENT_NAMES: tuple[str, ...] = tuple(dict.fromkeys(cls.EVENT for cls in EVENT_TYPES))

REMOVED_EVENTS = FrozenDict(
    {
        "thought:update": "send 'tool:message:start' and 'tool:message:update' (a tool message)",
        "artifact:update": "send 'tool:artifact' with the full artifact",
    }
)


def encode(event: Event) -> tuple[str, dict[str, Any]]:
    """Return the wire pair ``(event_name, payload)`` of an event.

    >>> encode(Progress(status="running", progress=50, message="Half way"))
    ('progress', {'status': 'running', 'progress': 50, 'message': 'Half way'})
    """
    if type(event) not in EVENT_TYPES:
        raise expected("an event", event, "event")
    return event.EVENT, event.to_dict()


def decode(event_name: str, payload: Any, *, sender: str | None = None) -> Event:
    """Return the typed event for a wire pair; removed and unknown names are refused.

    >>> decode("message:start", {"id": "m1", "role": "assistant", "content": ""})
    MessageStart(id='m1', content=<0 chars>)
    >>> decode("chat:init", {"sessionId": "s1"})
    ChatInitRequest(session_id='s1')
    >>> try:
    ...     decode("thought:update", {"id": "t1"})
    ... except ValidationError as exc:
    ...     print(exc)
    event: 'thought:update' was removed from the protocol; send 'tool:message:start' and 'tool:message:update' (a tool message)

    ``chat:init`` travels both ways, so its direction is never guessed from the payload:
    ``sender="server"`` decodes the server's reply (``ChatInit``, which replaces a reducer's
    history); otherwise it is the client's request (``ChatInitRequest``), and a payload that
    looks like the server's reply (it has ``status``) is refused unless ``sender`` says whose it
    is, so a client cannot pass its payload off as the server's:

    >>> decode("chat:init", {"status": "success", "messages": [], "artifacts": []}, sender="server")
    ChatInit(messages=0, artifacts=0)
    >>> try:
    ...     decode("chat:init", {"status": "success", "messages": [], "artifacts": []})
    ... except ValidationError as exc:
    ...     print(exc)
    status: a chat:init payload with a status is the server's reply: decode it with sender='server'

    Unknown payload keys are ignored; errors carry the payload path (``patch.status``) and a
    stable code.
    """
    if type(event_name) is not str:
        raise expected("a string", event_name, "event")
    if sender is not None and sender != "client" and sender != "server":
        raise TypeError("sender must be 'client', 'server' or None")
    cls = _BY_NAME.get(event_name)
    if cls is None:
        if event_name == "chat:init":
            payload = expect_object(payload)
            if sender == "server":
                cls = ChatInit
            elif sender == "client" or "status" not in payload:
                cls = ChatInitRequest
            else:
                raise ValidationError(
                    "a chat:init payload with a status is the server's reply: decode it with sender='server'",
                    "status",
                    "protocol",
                )
        elif event_name in REMOVED_EVENTS:
            raise ValidationError(
                f"'{event_name}' was removed from the protocol; {REMOVED_EVENTS[event_name]}",
                "event",
                "removed",
            )
        else:
            raise ValidationError(
                "unknown event name; expected one of " + ", ".join(EVENT_NAMES), "event", "unknown"
            )
    return cls.from_dict(payload)


def session_room(session_id: str) -> str:
    """Return the socket room of a session: ``session_<sessionId>``.

    >>> session_room("4f1c")
    'session_4f1c'
    """
    return "session_" + check_nonempty(session_id, "sessionId")


def room_for(event: Event) -> str | None:
    """Return the room a client joins by sending ``event``, or None.

    >>> room_for(ChatRequest(message="Hi", conversation_id="4f1c"))
    'session_4f1c'
    >>> room_for(ChatInitRequest()) is None
    True

    ``chat:init`` joins the room of its ``sessionId``, ``chat:send`` that of its
    ``conversation_id``; without an id the server creates the session and picks the room.
    """
    if type(event) is ChatInitRequest and event.session_id is not None:
        return session_room(event.session_id)
    if type(event) is ChatRequest and event.conversation_id is not None:
        return session_room(event.conversation_id)
    return None
