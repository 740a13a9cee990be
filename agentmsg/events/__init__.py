"""The socket events between a chat backend and its web client, and the session reducer.

An event travels as a name and a JSON payload; ``encode`` and ``decode`` translate between that
pair and the typed, immutable events below. The field names on the wire are the protocol's own
(camelCase: ``toolName``, ``progressText``, ``messageId``, ...); the ``chat:send`` request keeps
its snake_case ``conversation_id`` and ``media_type``, as the web client sends them.

>>> from .. import events
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
tool``), ``tool:approval:request`` when a call waits for a person, ``tool:artifact`` to attach
a full artifact to a tool message, ``progress`` for the overall task, and one ``completion``
that closes the turn. The client may send ``chat:cancel`` (end the running turn) and
``tool:approval:response`` (decide a pending call). A
``SessionReducer`` applies that stream to the session's stored history, whose JSON is exactly
what ``chat:init`` returns to a client that joins the session's room (``session_room``).
Events are validated when built; the reducer checks each event against the state before it
changes anything, so a refused event leaves the history as it was.
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, Union

from .._checks import (
    check_array,
    check_bool,
    check_choice,
    check_items,
    check_nonempty,
    check_str,
    expect_object,
    expected,
    missing,
    count,
    sized,
)
from .._fields import each, nested, wire, wired
from .._frozen import FrozenDict, check_json_object, thaw_json
from .._time import check_wire_timestamp
from ..content import ImagePart, ImageSource, TextPart
from ..errors import ValidationError
from ..messages import ChatMessage

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
    "encode",
    "decode",
    "session_room",
    "room_for",
    "EVENT_NAMES",
    "REMOVED_EVENTS",
    "TOOL_STATUSES",
    "COMPLETION_CODES",
]

TOOL_STATUSES = ("pending", "running", "completed", "error")
_OPEN_STATUSES = ("pending", "running")
_FINAL_STATUSES = ("completed", "error")
_PATCH_FIELDS = ("status", "title", "content", "progressText")
COMPLETION_CODES = FrozenDict(
    {
        "cancelled": "the turn was cancelled (chat:cancel, AgentTurn.cancel)",
        "model": "the model call failed, or its answer could not be read",
        "tool": "a tool failed in a way the model cannot recover from",
        "step_limit": "the step limit was reached with tool calls still coming",
        "internal": "the backend's own failure (a bug, not the client's)",
    }
)
"""The ``code`` values of a failed ``completion`` this package sends (any non-empty string decodes)."""

def _artifact(value: object, path: str) -> FrozenDict:
    artifact = check_json_object(value, path)
    check_nonempty(artifact.get("id"), f"{path}.id" if path else "id")
    return artifact


# -- the client's request --------------------------------------------------------------------------


def _bare_base64(value: object, path: str) -> object:
    if type(value) is str and value.startswith("data:"):
        raise ValidationError("must be bare base64: strip the 'data:<type>;base64,' prefix", path, "value")
    return _present(value, path)


def _present(value: object, path: str) -> object:
    if value is None:
        raise missing(path)
    return value


@wired()
@dataclass(frozen=True, slots=True, kw_only=True, repr=False)
class ImageAttachment:
    """An image the web client attaches to a chat request: bare base64 and its media type.

    >>> ImageAttachment(data="iVBORw0KGgo=", media_type="image/png")
    ImageAttachment(media_type=image/png, data=<12 chars>)
    >>> try:
    ...     ImageAttachment(data="data:image/png;base64,iVBORw0KGgo=", media_type="image/png")
    ... except ValidationError as exc:
    ...     print(exc)
    data: must be bare base64: strip the 'data:<type>;base64,' prefix
    >>> try:
    ...     ImageAttachment(data="iVBORw0KGgo=", media_type="image/bmp")
    ... except ValidationError as exc:
    ...     print(exc)
    media_type: must be one of image/png, image/jpeg, image/gif, image/webp
    """

    data: str = field(metadata=wire("data", _bare_base64))
    media_type: str = field(metadata=wire("media_type", _present))
    from_dict: ClassVar[Callable[[Any], "ImageAttachment"]]

    def __post_init__(self) -> None:
        self.to_source()  # the core's rules: a supported media type and valid, non-empty base64

    def to_source(self) -> ImageSource:
        """Return the image as a base64 ``ImageSource``.

        >>> ImageAttachment(data="iVBORw0KGgo=", media_type="image/png").to_source().to_dict()
        {'type': 'base64', 'media_type': 'image/png', 'data': 'iVBORw0KGgo='}
        """
        return ImageSource.from_base64(self.data, self.media_type)

    def to_dict(self) -> dict[str, Any]:
        """Return the wire shape ``{"data", "media_type"}``."""
        return {"data": self.data, "media_type": self.media_type}

    def __repr__(self) -> str:
        return f"ImageAttachment(media_type={self.media_type}, data={sized(self.data)})"


def _image(value: object, path: str) -> object:
    if type(value) is not ImageAttachment:
        raise expected("an ImageAttachment", value, path)
    return value


@wired()
@dataclass(frozen=True, slots=True, kw_only=True, repr=False)
class ChatRequest:
    """``chat:send``: the user's message, an optional conversation id, an optional image.

    >>> req = ChatRequest.from_dict({"message": "What is in this picture?", "conversation_id": "c1",
    ...                              "image": {"data": "iVBORw0KGgo=", "media_type": "image/png"}})
    >>> req
    ChatRequest(message=<24 chars>, conversation_id='c1', image=image/png)
    >>> req.to_message()
    ChatMessage(role=user, content=<2 parts>)
    >>> try:
    ...     ChatRequest(message="  ")
    ... except ValidationError as exc:
    ...     print(exc)
    message: must not be empty unless an image is attached
    """

    EVENT: ClassVar[str] = "chat:send"

    message: str = field(default="", metadata=wire("message", check_str))
    conversation_id: str | None = field(
        default=None, metadata=wire("conversation_id", check_nonempty, optional=True)
    )
    image: ImageAttachment | None = field(
        default=None,
        metadata=wire("image", _image, optional=True, decode=nested(ImageAttachment.from_dict)),
    )
    from_dict: ClassVar[Callable[[Any], "ChatRequest"]]

    def __post_init__(self) -> None:
        if self.image is None and not self.message.strip():
            raise ValidationError("must not be empty unless an image is attached", "message", "value")

    def to_message(self) -> ChatMessage:
        """Return the user ``ChatMessage``: the text, plus an image part when one is attached.

        >>> ChatRequest(message="Hello").to_message().to_dict()
        {'role': 'user', 'content': 'Hello'}
        >>> img = ImageAttachment(data="iVBORw0KGgo=", media_type="image/png")
        >>> [p["type"] for p in ChatRequest(message="Look", image=img).to_message().to_dict()["content"]]
        ['text', 'image']

        Without text, the image is the only part.
        """
        if self.image is None:
            return ChatMessage.user(self.message)
        image = ImagePart(self.image.to_source())
        if not self.message.strip():
            return ChatMessage.user((image,))
        return ChatMessage.user((TextPart(self.message), image))

    def to_dict(self) -> dict[str, Any]:
        """Return the wire payload (absent optional fields omitted)."""
        out: dict[str, Any] = {"message": self.message}
        if self.conversation_id is not None:
            out["conversation_id"] = self.conversation_id
        if self.image is not None:
            out["image"] = self.image.to_dict()
        return out

    def __repr__(self) -> str:
        out = f"ChatRequest(message={sized(self.message)}"
        if self.conversation_id is not None:
            out += f", conversation_id={self.conversation_id!r}"
        if self.image is not None:
            out += f", image={self.image.media_type}"
        return out + ")"


@wired()
@dataclass(frozen=True, slots=True, kw_only=True, repr=False)
class ChatInitRequest:
    """``chat:init`` from the client: join a session (a new one when ``sessionId`` is absent).

    >>> ChatInitRequest.from_dict({"sessionId": "s1"})
    ChatInitRequest(session_id='s1')
    """

    EVENT: ClassVar[str] = "chat:init"

    session_id: str | None = field(default=None, metadata=wire("sessionId", check_nonempty, optional=True))
    from_dict: ClassVar[Callable[[Any], "ChatInitRequest"]]

    def to_dict(self) -> dict[str, Any]:
        """Return the wire payload."""
        return {} if self.session_id is None else {"sessionId": self.session_id}

    def __repr__(self) -> str:
        return f"ChatInitRequest(session_id={self.session_id!r})"


@wired()
@dataclass(frozen=True, slots=True, kw_only=True, repr=False)
class ChatCancel:
    """``chat:cancel`` from the client: end the running turn of a session.

    >>> decode("chat:cancel", {"sessionId": "s1", "turnId": "t9"})
    ChatCancel(session_id='s1', turn_id='t9')

    The server answers with the turn's ``completion`` (``success: false``, ``cancelled: true``,
    ``code: "cancelled"``); with ``turnId``, only if that turn is still the running one.
    """

    EVENT: ClassVar[str] = "chat:cancel"

    session_id: str = field(metadata=wire("sessionId", check_nonempty))
    turn_id: str | None = field(default=None, metadata=wire("turnId", check_nonempty, optional=True))
    from_dict: ClassVar[Callable[[Any], "ChatCancel"]]

    def to_dict(self) -> dict[str, Any]:
        """Return the wire payload (``turnId`` omitted when absent)."""
        out: dict[str, Any] = {"sessionId": self.session_id}
        if self.turn_id is not None:
            out["turnId"] = self.turn_id
        return out

    def __repr__(self) -> str:
        return f"ChatCancel(session_id={self.session_id!r}, turn_id={self.turn_id!r})"


@wired()
@dataclass(frozen=True, slots=True, kw_only=True, repr=False)
class ToolApprovalResponse:
    """``tool:approval:response`` from the client: approve or deny a pending tool call.

    >>> decode("tool:approval:response", {"sessionId": "s1", "id": "t1", "approved": False,
    ...                                   "reason": "not on a Sunday"})
    ToolApprovalResponse(session_id='s1', id='t1', approved=False, reason=<15 chars>)
    >>> try:
    ...     decode("tool:approval:response", {"sessionId": "s1", "id": "t1", "approved": "yes"})
    ... except ValidationError as exc:
    ...     print(exc)
    approved: expected a boolean, got string

    ``id`` is the tool message's id (of its ``tool:message:start`` and ``tool:approval:request``).
    A denied call is answered to the model as denied; ``reason`` goes with it when given.
    """

    EVENT: ClassVar[str] = "tool:approval:response"

    session_id: str = field(metadata=wire("sessionId", check_nonempty))
    id: str = field(metadata=wire("id", check_nonempty))
    approved: bool = field(metadata=wire("approved", check_bool))
    reason: str | None = field(default=None, metadata=wire("reason", check_nonempty, optional=True))
    from_dict: ClassVar[Callable[[Any], "ToolApprovalResponse"]]

    def to_dict(self) -> dict[str, Any]:
        """Return the wire payload (``reason`` omitted when absent)."""
        out: dict[str, Any] = {"sessionId": self.session_id, "id": self.id, "approved": self.approved}
        if self.reason is not None:
            out["reason"] = self.reason
        return out

    def __repr__(self) -> str:
        reason = "" if self.reason is None else f", reason={sized(self.reason)}"
        return f"ToolApprovalResponse(session_id={self.session_id!r}, id={self.id!r}, approved={self.approved}{reason})"


# -- the stored history: what chat:init returns ----------------------------------------------------


@wired(tags=(("role", "user"),))
@dataclass(frozen=True, slots=True, kw_only=True, repr=False)
class UserEntry:
    """A user message in the session history: ``{"id"?, "role", "content", "timestamp"}``.

    >>> UserEntry(content="Hi", timestamp="2024-05-01T12:00:00Z").to_dict()
    {'role': 'user', 'content': 'Hi', 'timestamp': '2024-05-01T12:00:00Z'}
    >>> UserEntry(id="u1", content="Hi", timestamp="2024-05-01T12:00:00Z")
    UserEntry(id='u1', content=<2 chars>)

    ``id`` (optional) is the entry's id, unique among the history's ids, so a snapshot
    round-trips into front-ends that key every message.
    """

    id: str | None = field(default=None, metadata=wire("id", check_nonempty, optional=True))
    content: str = field(metadata=wire("content", check_str))
    timestamp: str = field(metadata=wire("timestamp", check_wire_timestamp))
    from_dict: ClassVar[Callable[[Any], "UserEntry"]]

    def to_dict(self) -> dict[str, Any]:
        """Return the history shape (``id`` omitted when absent)."""
        if self.id is None:
            return {"role": "user", "content": self.content, "timestamp": self.timestamp}
        return {"id": self.id, "role": "user", "content": self.content, "timestamp": self.timestamp}

    def __repr__(self) -> str:
        head = "" if self.id is None else f"id={self.id!r}, "
        return f"UserEntry({head}content={sized(self.content)})"


@wired(tags=(("role", "assistant"), ("kind", "chat")))
@dataclass(frozen=True, slots=True, kw_only=True, repr=False)
class ChatEntry:
    """An assistant chat message in the history: ``{"id", "role", "kind": "chat", "content", "timestamp"}``.

    >>> ChatEntry(id="m1", content="Hello!", timestamp="2024-05-01T12:00:01Z").to_dict()
    {'id': 'm1', 'role': 'assistant', 'kind': 'chat', 'content': 'Hello!', 'timestamp': '2024-05-01T12:00:01Z'}
    """

    id: str = field(metadata=wire("id", check_nonempty))
    content: str = field(metadata=wire("content", check_str))
    timestamp: str = field(metadata=wire("timestamp", check_wire_timestamp))
    from_dict: ClassVar[Callable[[Any], "ChatEntry"]]

    def to_dict(self) -> dict[str, Any]:
        """Return the history shape."""
        return {
            "id": self.id,
            "role": "assistant",
            "kind": "chat",
            "content": self.content,
            "timestamp": self.timestamp,
        }

    def __repr__(self) -> str:
        return f"ChatEntry(id={self.id!r}, content={sized(self.content)})"


def _artifact_ids(value: object, path: str) -> tuple[str, ...]:
    ids = tuple(check_array(value, path))
    seen: set[str] = set()
    for i, artifact_id in enumerate(ids):
        if check_nonempty(artifact_id, f"{path}[{i}]") in seen:
            raise ValidationError("must be unique", f"{path}[{i}]", "unique")
        seen.add(artifact_id)
    return ids


@wired(tags=(("role", "assistant"), ("kind", "tool")))
@dataclass(frozen=True, slots=True, kw_only=True, repr=False)
class ToolEntry:
    """A tool message in the history: the start fields, patches applied, completion, artifacts.

    >>> entry = ToolEntry(id="t1", status="completed", tool_name="search", title="Searching",
    ...                   content="3 results", progress_text="done",
    ...                   timestamp="2024-05-01T12:00:01Z", completed_at="2024-05-01T12:00:02Z",
    ...                   artifact_ids=["a1", "a2"])
    >>> entry.to_dict()["completedAt"], entry.to_dict()["artifactIds"]
    ('2024-05-01T12:00:02Z', ['a1', 'a2'])

    ``completedAt`` is present exactly when the status is ``completed`` or ``error``;
    ``artifactIds`` (omitted when empty) names the artifacts bound to it, in arrival order.
    ``arguments`` and ``toolCallId`` (the call's, from ``tool:message:start``) and ``error``
    (only with status ``error``) are omitted when absent.
    """

    id: str = field(metadata=wire("id", check_nonempty))
    status: str = field(metadata=wire("status", check_choice, TOOL_STATUSES))
    tool_name: str = field(metadata=wire("toolName", check_nonempty))
    title: str = field(metadata=wire("title", check_str))
    content: str = field(metadata=wire("content", check_str))
    progress_text: str = field(metadata=wire("progressText", check_str))
    timestamp: str = field(metadata=wire("timestamp", check_wire_timestamp))
    completed_at: str | None = field(
        default=None, metadata=wire("completedAt", check_wire_timestamp, optional=True)
    )
    artifact_ids: tuple[str, ...] = field(default=(), metadata=wire("artifactIds", _artifact_ids))
    arguments: FrozenDict | None = field(default=None, metadata=wire("arguments", check_json_object, optional=True))
    tool_call_id: str | None = field(default=None, metadata=wire("toolCallId", check_nonempty, optional=True))
    error: str | None = field(default=None, metadata=wire("error", check_nonempty, optional=True))
    from_dict: ClassVar[Callable[[Any], "ToolEntry"]]

    def __post_init__(self) -> None:
        if self.status in _FINAL_STATUSES:
            if self.completed_at is None:
                raise ValidationError(f"is required when status is {self.status}", "completedAt", "missing")
        elif self.completed_at is not None:
            raise ValidationError("must be absent unless status is completed or error", "completedAt", "value")
        if self.error is not None and self.status != "error":
            raise ValidationError("must be absent unless status is error", "error", "value")

    def to_dict(self) -> dict[str, Any]:
        """Return the history shape (``completedAt`` and empty ``artifactIds`` omitted)."""
        out: dict[str, Any] = {
            "id": self.id,
            "role": "assistant",
            "kind": "tool",
            "status": self.status,
            "toolName": self.tool_name,
            "title": self.title,
            "content": self.content,
            "progressText": self.progress_text,
            "timestamp": self.timestamp,
        }
        if self.completed_at is not None:
            out["completedAt"] = self.completed_at
        if self.artifact_ids:
            out["artifactIds"] = list(self.artifact_ids)
        if self.arguments is not None:
            out["arguments"] = thaw_json(self.arguments)
        if self.tool_call_id is not None:
            out["toolCallId"] = self.tool_call_id
        if self.error is not None:
            out["error"] = self.error
        return out

    def __repr__(self) -> str:
        return (
            f"ToolEntry(id={self.id!r}, tool_name={self.tool_name!r}, status={self.status}, "
            f"content={sized(self.content)}, artifacts={len(self.artifact_ids)})"
        )


HistoryEntry = Union[UserEntry, ChatEntry, ToolEntry]
_ENTRY_TYPES = (UserEntry, ChatEntry, ToolEntry)


def _entry_from_dict(data: Any) -> HistoryEntry:
    data = expect_object(data)
    role = data.get("role")
    if role == "user":
        return UserEntry.from_dict(data)
    if role == "assistant":
        kind = data.get("kind")
        if kind == "tool":
            return ToolEntry.from_dict(data)
        if kind == "chat":
            return ChatEntry.from_dict(data)
        check_choice(kind, "kind", ("chat", "tool"))  # raises: kind is neither
    check_choice(role, "role", ("user", "assistant"))  # raises: role is neither
    raise AssertionError("unreachable")  # pragma: no cover


def _entries(value: object, path: str) -> tuple[HistoryEntry, ...]:
    return check_items(value, path, _ENTRY_TYPES, "a history entry")


def _artifacts(value: object, path: str) -> tuple[FrozenDict, ...]:
    return tuple(_artifact(item, f"{path}[{i}]") for i, item in enumerate(check_array(value, path)))


@wired(tags=(("status", "success"),))
@dataclass(frozen=True, slots=True, kw_only=True, repr=False)
class ChatInit:
    """``chat:init`` from the server: ``{"status": "success", "messages": [...], "artifacts": [...]}``.

    >>> ChatInit().to_dict()
    {'status': 'success', 'messages': [], 'artifacts': []}

    ``messages`` are history entries, ``artifacts`` the full artifacts bound to them. Checked
    as a whole: ids (of user entries that have one too) are unique, and every ``artifactIds``
    entry names an artifact of the list.
    """

    EVENT: ClassVar[str] = "chat:init"

    messages: tuple[HistoryEntry, ...] = field(
        default=(), metadata=wire("messages", _entries, required=True, decode=each(_entry_from_dict))
    )
    artifacts: tuple[FrozenDict, ...] = field(default=(), metadata=wire("artifacts", _artifacts, required=True))
    from_dict: ClassVar[Callable[[Any], "ChatInit"]]

    def __post_init__(self) -> None:
        messages, artifacts = self.messages, self.artifacts
        known: dict[str, int] = {}
        for i, artifact in enumerate(artifacts):
            if artifact["id"] in known:
                raise ValidationError("must be unique", f"artifacts[{i}].id", "unique")
            known[artifact["id"]] = i
        seen: set[str] = set()
        owned: set[str] = set()
        for i, entry in enumerate(messages):
            if entry.id is None:  # a user entry without an id
                continue
            if entry.id in seen:
                raise ValidationError("must be unique", f"messages[{i}].id", "unique")
            seen.add(entry.id)
            if type(entry) is ToolEntry:
                for j, artifact_id in enumerate(entry.artifact_ids):
                    path = f"messages[{i}].artifactIds[{j}]"
                    if artifact_id not in known:
                        raise ValidationError("names no artifact of the list", path, "unknown")
                    if artifact_id in owned:
                        raise ValidationError("artifact is already bound to another message", path, "unique")
                    owned.add(artifact_id)
        if len(owned) != len(known):
            i = next(i for i, a in enumerate(artifacts) if a["id"] not in owned)
            raise ValidationError("artifact is bound to no message", f"artifacts[{i}]", "value")

    def history(self) -> list[dict[str, Any]]:
        """Return the messages as the protocol's history (plain dicts)."""
        return [entry.to_dict() for entry in self.messages]

    def to_dict(self) -> dict[str, Any]:
        """Return the wire payload (empty lists for a new session)."""
        return {
            "status": "success",
            "messages": self.history(),
            "artifacts": [thaw_json(artifact) for artifact in self.artifacts],
        }

    def __repr__(self) -> str:
        return f"ChatInit(messages={len(self.messages)}, artifacts={len(self.artifacts)})"


# -- the server's stream ---------------------------------------------------------------------------


@wired()
@dataclass(frozen=True, slots=True, kw_only=True, repr=False)
class TurnStart:
    """``turn:start``: an agent turn begins; the first event of every turn.

    >>> TurnStart(turn_id="turn_1", session_id="s1").to_dict()
    {'turnId': 'turn_1', 'sessionId': 's1'}

    The turn's ``completion`` carries the same ``turnId``; so do its approval requests.
    """

    EVENT: ClassVar[str] = "turn:start"

    turn_id: str = field(metadata=wire("turnId", check_nonempty))
    session_id: str | None = field(default=None, metadata=wire("sessionId", check_nonempty, optional=True))
    from_dict: ClassVar[Callable[[Any], "TurnStart"]]

    def to_dict(self) -> dict[str, Any]:
        """Return the wire payload (``sessionId`` omitted when absent)."""
        out: dict[str, Any] = {"turnId": self.turn_id}
        if self.session_id is not None:
            out["sessionId"] = self.session_id
        return out

    def __repr__(self) -> str:
        return f"TurnStart(turn_id={self.turn_id!r}, session_id={self.session_id!r})"


@wired()
@dataclass(frozen=True, slots=True, kw_only=True, repr=False)
class MessageStart:
    """``message:start``: an assistant chat message begins (its text follows in chunks).

    >>> MessageStart(id="m1").to_dict()
    {'id': 'm1', 'role': 'assistant', 'content': ''}
    """

    EVENT: ClassVar[str] = "message:start"

    id: str = field(metadata=wire("id", check_nonempty))
    role: Literal["assistant"] = field(default="assistant", metadata=wire("role", check_choice, ("assistant",), required=True))
    content: str = field(default="", metadata=wire("content", check_str))
    from_dict: ClassVar[Callable[[Any], "MessageStart"]]

    def to_dict(self) -> dict[str, Any]:
        """Return the wire payload."""
        return {"id": self.id, "role": self.role, "content": self.content}

    def __repr__(self) -> str:
        return f"MessageStart(id={self.id!r}, content={sized(self.content)})"


@wired()
@dataclass(frozen=True, slots=True, kw_only=True, repr=False)
class MessageChunk:
    """``message:chunk``: text appended to a started chat message.

    >>> MessageChunk(id="m1", chunk="Hel")
    MessageChunk(id='m1', chunk=<3 chars>)
    """

    EVENT: ClassVar[str] = "message:chunk"

    id: str = field(metadata=wire("id", check_nonempty))
    chunk: str = field(metadata=wire("chunk", check_str))
    from_dict: ClassVar[Callable[[Any], "MessageChunk"]]

    def to_dict(self) -> dict[str, Any]:
        """Return the wire payload."""
        return {"id": self.id, "chunk": self.chunk}

    def __repr__(self) -> str:
        return f"MessageChunk(id={self.id!r}, chunk={sized(self.chunk)})"


@wired()
@dataclass(frozen=True, slots=True, kw_only=True, repr=False)
class MessageEnd:
    """``message:end``: a chat message is complete (after its last chunk).

    >>> encode(MessageEnd(id="m1"))
    ('message:end', {'id': 'm1'})
    """

    EVENT: ClassVar[str] = "message:end"

    id: str = field(metadata=wire("id", check_nonempty))
    from_dict: ClassVar[Callable[[Any], "MessageEnd"]]

    def to_dict(self) -> dict[str, Any]:
        """Return the wire payload."""
        return {"id": self.id}

    def __repr__(self) -> str:
        return f"MessageEnd(id={self.id!r})"


@wired()
@dataclass(frozen=True, slots=True, kw_only=True, repr=False)
class ReasoningStart:
    """``reasoning:start``: the model's reasoning begins (its readable text follows in chunks).

    >>> encode(ReasoningStart(id="r1"))
    ('reasoning:start', {'id': 'r1'})

    ``id`` is new (not a message id). Only the text a person may read travels (a thinking text
    or a summary), never a signature or encrypted reasoning.
    """

    EVENT: ClassVar[str] = "reasoning:start"

    id: str = field(metadata=wire("id", check_nonempty))
    from_dict: ClassVar[Callable[[Any], "ReasoningStart"]]

    def to_dict(self) -> dict[str, Any]:
        """Return the wire payload."""
        return {"id": self.id}

    def __repr__(self) -> str:
        return f"ReasoningStart(id={self.id!r})"


@wired()
@dataclass(frozen=True, slots=True, kw_only=True, repr=False)
class ReasoningChunk:
    """``reasoning:chunk``: reasoning text appended to a started reasoning.

    >>> ReasoningChunk(id="r1", chunk="The user wants")
    ReasoningChunk(id='r1', chunk=<14 chars>)
    """

    EVENT: ClassVar[str] = "reasoning:chunk"

    id: str = field(metadata=wire("id", check_nonempty))
    chunk: str = field(metadata=wire("chunk", check_str))
    from_dict: ClassVar[Callable[[Any], "ReasoningChunk"]]

    def to_dict(self) -> dict[str, Any]:
        """Return the wire payload."""
        return {"id": self.id, "chunk": self.chunk}

    def __repr__(self) -> str:
        return f"ReasoningChunk(id={self.id!r}, chunk={sized(self.chunk)})"


@wired()
@dataclass(frozen=True, slots=True, kw_only=True, repr=False)
class ReasoningEnd:
    """``reasoning:end``: the reasoning is complete (before the message or tool call after it).

    >>> encode(ReasoningEnd(id="r1"))
    ('reasoning:end', {'id': 'r1'})
    """

    EVENT: ClassVar[str] = "reasoning:end"

    id: str = field(metadata=wire("id", check_nonempty))
    from_dict: ClassVar[Callable[[Any], "ReasoningEnd"]]

    def to_dict(self) -> dict[str, Any]:
        """Return the wire payload."""
        return {"id": self.id}

    def __repr__(self) -> str:
        return f"ReasoningEnd(id={self.id!r})"


@wired()
@dataclass(frozen=True, slots=True, kw_only=True, repr=False)
class ToolMessageStart:
    """``tool:message:start``: a tool's visible message begins (``kind: tool``).

    >>> start = ToolMessageStart(id="t1", tool_name="search", title="Searching the web",
    ...                          timestamp="2024-05-01T12:00:01Z")
    >>> start.to_dict()["status"], start.to_dict()["kind"]
    ('running', 'tool')
    >>> try:
    ...     ToolMessageStart(id="t1", tool_name="search", title="", status="completed",
    ...                      timestamp="2024-05-01T12:00:01Z")
    ... except ValidationError as exc:
    ...     print(exc)
    status: must be one of pending, running

    ``arguments`` (the call's JSON arguments) and ``toolCallId`` (the model's id of the call)
    are optional and omitted when absent.
    """

    EVENT: ClassVar[str] = "tool:message:start"

    # On the wire every field is required, the ones with a default too.
    id: str = field(metadata=wire("id", check_nonempty))
    role: Literal["assistant"] = field(default="assistant", metadata=wire("role", check_choice, ("assistant",), required=True))
    kind: Literal["tool"] = field(default="tool", metadata=wire("kind", check_choice, ("tool",), required=True))
    status: str = field(default="running", metadata=wire("status", check_choice, _OPEN_STATUSES, required=True))
    tool_name: str = field(metadata=wire("toolName", check_nonempty))
    title: str = field(metadata=wire("title", check_str))
    content: str = field(default="", metadata=wire("content", check_str, required=True))
    progress_text: str = field(default="", metadata=wire("progressText", check_str, required=True))
    timestamp: str = field(metadata=wire("timestamp", check_wire_timestamp))
    arguments: FrozenDict | None = field(default=None, metadata=wire("arguments", check_json_object, optional=True))
    tool_call_id: str | None = field(default=None, metadata=wire("toolCallId", check_nonempty, optional=True))
    from_dict: ClassVar[Callable[[Any], "ToolMessageStart"]]

    def to_entry(self) -> ToolEntry:
        """Return the history entry this start creates."""
        return ToolEntry(
            id=self.id,
            status=self.status,
            tool_name=self.tool_name,
            title=self.title,
            content=self.content,
            progress_text=self.progress_text,
            timestamp=self.timestamp,
            arguments=self.arguments,
            tool_call_id=self.tool_call_id,
        )

    def to_dict(self) -> dict[str, Any]:
        """Return the wire payload (``arguments`` and ``toolCallId`` omitted when absent)."""
        out: dict[str, Any] = {
            "id": self.id,
            "role": self.role,
            "kind": self.kind,
            "status": self.status,
            "toolName": self.tool_name,
            "title": self.title,
            "content": self.content,
            "progressText": self.progress_text,
            "timestamp": self.timestamp,
        }
        if self.arguments is not None:
            out["arguments"] = thaw_json(self.arguments)
        if self.tool_call_id is not None:
            out["toolCallId"] = self.tool_call_id
        return out

    def __repr__(self) -> str:
        extra = "" if self.arguments is None else f", arguments={count(len(self.arguments), 'key')}"
        return f"ToolMessageStart(id={self.id!r}, tool_name={self.tool_name!r}, status={self.status}{extra})"


def _patch(value: object, path: str) -> FrozenDict:
    if not isinstance(value, dict):
        raise missing(path) if value is None else expected("an object", value, path)
    if not value:
        raise ValidationError("must change at least one field", path, "value")
    out: dict[str, str] = {}
    for key, item in value.items():
        if key not in _PATCH_FIELDS:
            raise ValidationError(
                "may change only " + ", ".join(_PATCH_FIELDS[:-1]) + " and " + _PATCH_FIELDS[-1],
                path,
                "value",
            )
        at = f"{path}.{key}"
        if key == "status":
            if item in _FINAL_STATUSES:
                raise ValidationError("cannot finish a tool message; send tool:message:complete", at, "value")
            out[key] = check_choice(item, at, _OPEN_STATUSES)
        else:
            out[key] = check_str(item, at)
    return FrozenDict(out)


@wired()
@dataclass(frozen=True, slots=True, kw_only=True, repr=False)
class ToolMessageUpdate:
    """``tool:message:update``: a patch of a running tool message's fields.

    >>> dict(ToolMessageUpdate(id="t1", patch={"progressText": "2 of 3 pages"}).patch)
    {'progressText': '2 of 3 pages'}
    >>> try:
    ...     ToolMessageUpdate(id="t1", patch={"kind": "chat"})
    ... except ValidationError as exc:
    ...     print(exc)
    patch: may change only status, title, content and progressText

    A patch replaces the fields it names; ``status`` may move between ``pending`` and
    ``running`` (finishing is ``tool:message:complete``'s job).
    """

    EVENT: ClassVar[str] = "tool:message:update"

    id: str = field(metadata=wire("id", check_nonempty))
    patch: FrozenDict = field(metadata=wire("patch", _patch))
    from_dict: ClassVar[Callable[[Any], "ToolMessageUpdate"]]

    def to_dict(self) -> dict[str, Any]:
        """Return the wire payload."""
        return {"id": self.id, "patch": dict(self.patch)}

    def __repr__(self) -> str:
        return f"ToolMessageUpdate(id={self.id!r}, fields={sorted(self.patch)})"


@wired()
@dataclass(frozen=True, slots=True, kw_only=True, repr=False)
class ToolMessageComplete:
    """``tool:message:complete``: a tool message ends, ``completed`` or ``error``.

    >>> ToolMessageComplete(id="t1", status="error", timestamp="2024-05-01T12:00:03Z").to_dict()
    {'id': 't1', 'status': 'error', 'timestamp': '2024-05-01T12:00:03Z'}
    >>> ToolMessageComplete(id="t1", status="error", timestamp="2024-05-01T12:00:03Z",
    ...                     error="The user denied this tool call.")
    ToolMessageComplete(id='t1', status=error, error=<31 chars>)

    ``error`` (optional, only with status ``error``) is a short text for the user, no stack.
    """

    EVENT: ClassVar[str] = "tool:message:complete"

    id: str = field(metadata=wire("id", check_nonempty))
    status: str = field(metadata=wire("status", check_choice, _FINAL_STATUSES))
    timestamp: str = field(metadata=wire("timestamp", check_wire_timestamp))
    error: str | None = field(default=None, metadata=wire("error", check_nonempty, optional=True))
    from_dict: ClassVar[Callable[[Any], "ToolMessageComplete"]]

    def __post_init__(self) -> None:
        if self.error is not None and self.status != "error":
            raise ValidationError("must be absent unless status is error", "error", "value")

    def to_dict(self) -> dict[str, Any]:
        """Return the wire payload (``error`` omitted when absent)."""
        if self.error is None:
            return {"id": self.id, "status": self.status, "timestamp": self.timestamp}
        return {"id": self.id, "status": self.status, "timestamp": self.timestamp, "error": self.error}

    def __repr__(self) -> str:
        extra = "" if self.error is None else f", error={sized(self.error)}"
        return f"ToolMessageComplete(id={self.id!r}, status={self.status}{extra})"


@wired()
@dataclass(frozen=True, slots=True, kw_only=True, repr=False)
class ToolApprovalRequest:
    """``tool:approval:request``: the turn waits for a person to approve a tool call.

    >>> ToolApprovalRequest(id="t1", turn_id="turn_1", tool_name="delete_recipe",
    ...                     arguments={"name": "Pancakes"}).to_dict()
    {'id': 't1', 'turnId': 'turn_1', 'toolName': 'delete_recipe', 'arguments': {'name': 'Pancakes'}}

    ``id`` is the tool message's (its ``tool:message:start``), which stays ``pending``; the
    client answers with ``tool:approval:response``.
    """

    EVENT: ClassVar[str] = "tool:approval:request"

    id: str = field(metadata=wire("id", check_nonempty))
    turn_id: str = field(metadata=wire("turnId", check_nonempty))
    tool_name: str = field(metadata=wire("toolName", check_nonempty))
    arguments: FrozenDict = field(metadata=wire("arguments", check_json_object))
    from_dict: ClassVar[Callable[[Any], "ToolApprovalRequest"]]

    def to_dict(self) -> dict[str, Any]:
        """Return the wire payload."""
        return {"id": self.id, "turnId": self.turn_id, "toolName": self.tool_name,
                "arguments": thaw_json(self.arguments)}

    def __repr__(self) -> str:
        return (f"ToolApprovalRequest(id={self.id!r}, turn_id={self.turn_id!r}, tool_name={self.tool_name!r}, "
                f"arguments=<{len(self.arguments)} keys>)")


@wired()
@dataclass(frozen=True, slots=True, kw_only=True, repr=False)
class ToolArtifact:
    """``tool:artifact``: the full artifact (a JSON object with an ``id``), bound to a tool message.

    >>> art = ToolArtifact(message_id="t1", artifact={"id": "a1", "type": "code", "content": "print(1)"},
    ...                    show_in_canvas=True)
    >>> art
    ToolArtifact(message_id='t1', artifact_id='a1', show_in_canvas=True)
    >>> sorted(art.to_dict())
    ['artifact', 'messageId', 'showInCanvas']

    Sending an artifact id again replaces that artifact (this is how artifacts are updated).
    """

    EVENT: ClassVar[str] = "tool:artifact"

    message_id: str = field(metadata=wire("messageId", check_nonempty))
    artifact: FrozenDict = field(metadata=wire("artifact", _artifact))
    show_in_canvas: bool = field(default=False, metadata=wire("showInCanvas", check_bool))
    from_dict: ClassVar[Callable[[Any], "ToolArtifact"]]

    @property
    def artifact_id(self) -> str:
        """Return the artifact's id."""
        artifact_id: str = self.artifact["id"]
        return artifact_id

    def to_dict(self) -> dict[str, Any]:
        """Return the wire payload."""
        return {
            "messageId": self.message_id,
            "artifact": thaw_json(self.artifact),
            "showInCanvas": self.show_in_canvas,
        }

    def __repr__(self) -> str:
        return (
            f"ToolArtifact(message_id={self.message_id!r}, artifact_id={self.artifact_id!r}, "
            f"show_in_canvas={self.show_in_canvas})"
        )


def _percent(value: object, path: str) -> int | float:
    if type(value) is not int and type(value) is not float:
        raise missing(path) if value is None else expected("a number", value, path)
    if not 0 <= value <= 100:  # NaN fails this too
        raise ValidationError("must be between 0 and 100", path, "value")
    return value


@wired()
@dataclass(frozen=True, slots=True, kw_only=True, repr=False)
class Progress:
    """``progress``: the task's overall status, a percentage (0-100) and a message.

    >>> Progress(status="running", progress=40, message="Reading pages").to_dict()
    {'status': 'running', 'progress': 40, 'message': 'Reading pages'}
    >>> try:
    ...     Progress(status="running", progress=101, message="")
    ... except ValidationError as exc:
    ...     print(exc)
    progress: must be between 0 and 100
    """

    EVENT: ClassVar[str] = "progress"

    status: str = field(metadata=wire("status", check_nonempty))
    progress: int | float = field(metadata=wire("progress", _percent))
    message: str = field(default="", metadata=wire("message", check_str))
    artifact_id: str | None = field(default=None, metadata=wire("artifactId", check_nonempty, optional=True))
    from_dict: ClassVar[Callable[[Any], "Progress"]]

    def to_dict(self) -> dict[str, Any]:
        """Return the wire payload (``artifactId`` omitted when absent)."""
        out: dict[str, Any] = {"status": self.status, "progress": self.progress, "message": self.message}
        if self.artifact_id is not None:
            out["artifactId"] = self.artifact_id
        return out

    def __repr__(self) -> str:
        return f"Progress(status={self.status!r}, progress={self.progress})"


@wired()
@dataclass(frozen=True, slots=True, kw_only=True, repr=False)
class Completion:
    """``completion``: the turn ends, with a result (and final artifact) or an error.

    >>> Completion.ok({"answer": 42}, final_artifact_id="a1").to_dict()
    {'success': True, 'result': {'answer': 42}, 'finalArtifactId': 'a1'}
    >>> Completion.failed("The search service is down.").to_dict()
    {'success': False, 'error': 'The search service is down.'}
    >>> Completion.failed("Stopped.", code="cancelled", cancelled=True, turn_id="turn_1").to_dict()
    {'success': False, 'error': 'Stopped.', 'code': 'cancelled', 'cancelled': True, 'turnId': 'turn_1'}
    >>> try:
    ...     Completion(success=False)
    ... except ValidationError as exc:
    ...     print(exc)
    error: is required when success is false

    ``turnId`` names the turn (as its ``turn:start`` did); a failed completion may say why with
    ``code`` (``COMPLETION_CODES``: ``cancelled``, ``model``, ``tool``, ``step_limit``,
    ``internal``; any non-empty string decodes) and ``cancelled: true`` when it was cancelled.
    Absent optional fields are omitted.
    """

    EVENT: ClassVar[str] = "completion"

    # result, finalArtifactId, error, code and cancelled depend on success: __post_init__ checks them.
    success: bool = field(metadata=wire("success", check_bool))
    result: FrozenDict | None = field(default=None, metadata=wire("result"))
    final_artifact_id: str | None = field(default=None, metadata=wire("finalArtifactId"))
    error: str | None = field(default=None, metadata=wire("error"))
    turn_id: str | None = field(default=None, metadata=wire("turnId", check_nonempty, optional=True))
    code: str | None = field(default=None, metadata=wire("code", check_nonempty, optional=True))
    cancelled: bool = field(default=False, metadata=wire("cancelled", check_bool))
    from_dict: ClassVar[Callable[[Any], "Completion"]]

    def __post_init__(self) -> None:
        if self.success:
            object.__setattr__(self, "result", check_json_object(self.result, "result"))
            if self.final_artifact_id is not None:
                check_nonempty(self.final_artifact_id, "finalArtifactId")
            for name, text in (("error", self.error), ("code", self.code)):
                if text is not None:
                    raise ValidationError("must be absent when success is true", name, "value")
            if self.cancelled:
                raise ValidationError("must be absent (or false) when success is true", "cancelled", "value")
        else:
            if self.error is None:
                raise ValidationError("is required when success is false", "error", "missing")
            check_nonempty(self.error, "error")
            for name, value in (("result", self.result), ("finalArtifactId", self.final_artifact_id)):
                if value is not None:
                    raise ValidationError("must be absent when success is false", name, "value")
            if self.cancelled and self.code is not None and self.code != "cancelled":
                raise ValidationError("must be 'cancelled' when cancelled is true", "code", "value")

    @classmethod
    def ok(cls, result: dict[str, Any], final_artifact_id: str | None = None, *,
           turn_id: str | None = None) -> "Completion":
        """Return a successful completion."""
        return cls(success=True, result=result, final_artifact_id=final_artifact_id, turn_id=turn_id)  # type: ignore[arg-type]

    @classmethod
    def failed(cls, error: str, *, code: str | None = None, turn_id: str | None = None,
               cancelled: bool = False) -> "Completion":
        """Return a failed completion with a message for the user (and why, as a ``code``)."""
        return cls(success=False, error=error, code=code, turn_id=turn_id, cancelled=cancelled)

    def to_dict(self) -> dict[str, Any]:
        """Return the wire payload."""
        if not self.success:
            out: dict[str, Any] = {"success": False, "error": self.error}
            if self.code is not None:
                out["code"] = self.code
            if self.cancelled:
                out["cancelled"] = True
        else:
            out = {
                "success": True,
                "result": thaw_json(self.result),
                "finalArtifactId": self.final_artifact_id,
            }
        if self.turn_id is not None:
            out["turnId"] = self.turn_id
        return out

    def __repr__(self) -> str:
        turn = "" if self.turn_id is None else f", turn_id={self.turn_id!r}"
        if self.success:
            return f"Completion(success=True, final_artifact_id={self.final_artifact_id!r}{turn})"
        extra = ("" if self.code is None else f", code={self.code!r}") + (", cancelled=True" if self.cancelled else "")
        return f"Completion(success=False, error={sized(self.error or '')}{extra}{turn})"


# -- names, rooms, the codec -----------------------------------------------------------------------

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
    ToolMessageUpdate,
    ToolMessageComplete,
    ToolApprovalRequest,
    ToolArtifact,
    Progress,
    Completion,
]

_EVENT_TYPES: tuple[type[Any], ...] = Event.__args__  # type: ignore[attr-defined]
_BY_NAME: dict[str, type[Any]] = {
    cls.EVENT: cls for cls in _EVENT_TYPES if cls is not ChatInitRequest and cls is not ChatInit
}

EVENT_NAMES: tuple[str, ...] = tuple(dict.fromkeys(cls.EVENT for cls in _EVENT_TYPES))

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
    if type(event) not in _EVENT_TYPES:
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


# The reducer lives in its own module; it is re-exported here, its long-standing import path.
from .reducer import SessionReducer  # noqa: E402  (after the events it is built on)
