"""The stored history of a session: its entries, and ``chat:init``, the server's reply that carries them.

>>> ChatInit(messages=(UserEntry(content="Hi", timestamp="2024-05-01T12:00:00Z"),)).to_dict()
{'status': 'success', 'messages': [{'role': 'user', 'content': 'Hi', 'timestamp': '2024-05-01T12:00:00Z'}], 'artifacts': []}
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, ClassVar, Union

from .._checks import check_array, check_choice, check_items, check_nonempty, check_str, expect_object, expected
from .._fieldtable import Codec, each, field_table, row, size
from .._frozen import FrozenDict, check_json_object, thaw_json
from .._time import check_wire_timestamp
from ..errors import ValidationError

__all__ = ["UserEntry", "ChatEntry", "ToolEntry", "HistoryEntry", "ChatInit", "TOOL_STATUSES"]

TOOL_STATUSES = ("pending", "running", "completed", "error")
OPEN_STATUSES = ("pending", "running")
FINAL_STATUSES = ("completed", "error")

def check_artifact(value: object, path: str) -> FrozenDict:
    """Return a frozen artifact: a JSON object with a non-empty ``id``."""
    artifact = check_json_object(value, path)
    check_nonempty(artifact.get("id"), f"{path}.id" if path else "id")
    return artifact


IMAGE_URL = re.compile(r"data:image/(?:png|jpeg|gif|webp);base64,[A-Za-z0-9+/]+={0,2}|https?://\S+", re.ASCII)


def check_image_url(value: object, path: str) -> str:
    """Return an image a history shows: a ``data:image/...;base64,`` URL or an ``http(s)://`` URL."""
    text = check_nonempty(value, path)
    if not IMAGE_URL.fullmatch(text):
        raise ValidationError("must be a data:image/<png|jpeg|gif|webp>;base64, URL or an http(s) URL", path, "pattern")
    return text


def check_failed_completion(value: object, path: str) -> FrozenDict:
    """Return a failed ``completion`` payload: ``success: false`` and a non-empty ``error``."""
    completion = check_json_object(value, path)
    if completion.get("success") is not False:
        raise expected("a failed completion (success: false)", completion.get("success"), f"{path}.success")
    check_nonempty(completion.get("error"), f"{path}.error")
    return completion


@field_table(tags=(("role", "user"),))
@dataclass(frozen=True, slots=True, kw_only=True, repr=False)
class UserEntry(Codec):
    """A user message in the session history: ``{"id"?, "role", "content", "timestamp", "image"?, "completion"?}``.

    >>> UserEntry(content="Hi", timestamp="2024-05-01T12:00:00Z").to_dict()
    {'role': 'user', 'content': 'Hi', 'timestamp': '2024-05-01T12:00:00Z'}
    >>> UserEntry(id="u1", content="Hi", timestamp="2024-05-01T12:00:00Z")
    UserEntry(id='u1', content=<2 chars>)

    ``id`` (optional) is the entry's id, unique among the history's ids, so a snapshot
    round-trips into front-ends that key every message. ``image`` (optional) is the image the
    user attached, as a ``data:`` URL (or an ``http(s)`` URL the server keeps it at).
    ``completion`` (optional) is the failed ``completion`` of the turn this message opened
    (``cancelled``, ``interrupted``, ...): a client marks the turn with it.
    """

    id: str | None = field(default=None, metadata=row("id", check_nonempty, optional=True))
    content: str = field(metadata=row("content", check_str, show=size("char")))
    timestamp: str = field(metadata=row("timestamp", check_wire_timestamp, show=False))
    image: str | None = field(default=None, metadata=row("image", check_image_url, optional=True, show=False))
    completion: FrozenDict | None = field(
        default=None,
        metadata=row("completion", check_failed_completion, optional=True, encode=thaw_json, show=False),
    )


@field_table(tags=(("role", "assistant"), ("kind", "chat")))
@dataclass(frozen=True, slots=True, kw_only=True, repr=False)
class ChatEntry(Codec):
    """An assistant chat message in the history: ``{"id", "role", "kind": "chat", "content", "timestamp"}``.

    >>> ChatEntry(id="m1", content="Hello!", timestamp="2024-05-01T12:00:01Z").to_dict()
    {'id': 'm1', 'role': 'assistant', 'kind': 'chat', 'content': 'Hello!', 'timestamp': '2024-05-01T12:00:01Z'}
    """

    id: str = field(metadata=row("id", check_nonempty))
    content: str = field(metadata=row("content", check_str, show=size("char")))
    timestamp: str = field(metadata=row("timestamp", check_wire_timestamp, show=False))


def _artifact_ids(value: object, path: str) -> tuple[str, ...]:
    ids = tuple(check_array(value, path))
    seen: set[str] = set()
    for i, artifact_id in enumerate(ids):
        if check_nonempty(artifact_id, f"{path}[{i}]") in seen:
            raise ValidationError("must be unique", f"{path}[{i}]", "unique")
        seen.add(artifact_id)
    return ids


@field_table(tags=(("role", "assistant"), ("kind", "tool")))
@dataclass(frozen=True, slots=True, kw_only=True, repr=False)
class ToolEntry(Codec):
    """A tool message in the history: the start fields, patches applied, completion, artifacts.

    >>> entry = ToolEntry(id="t1", status="completed", tool_name="search", title="Searching",
    ...                   content="3 results", progress_text="done",
    ...                   timestamp="2024-05-01T12:00:01Z", completed_at="2024-05-01T12:00:02Z",
    ...                   artifact_ids=["a1", "a2"])
    >>> entry.to_dict()["completedAt"], entry.to_dict()["artifactIds"]
    ('2024-05-01T12:00:02Z', ['a1', 'a2'])
    >>> entry
    ToolEntry(id='t1', status=completed, tool_name='search', content=<9 chars>, artifact_ids=2)

    ``completedAt`` is present exactly when the status is ``completed`` or ``error``;
    ``artifactIds`` (omitted when empty) names the artifacts bound to it, in arrival order.
    ``arguments`` and ``toolCallId`` (the call's, from ``tool:message:start``) and ``error``
    (only with status ``error``) are omitted when absent.
    """

    id: str = field(metadata=row("id", check_nonempty))
    status: str = field(metadata=row("status", check_choice, TOOL_STATUSES, show=str))
    tool_name: str = field(metadata=row("toolName", check_nonempty))
    title: str = field(metadata=row("title", check_str, show=False))
    content: str = field(metadata=row("content", check_str, show=size("char")))
    progress_text: str = field(metadata=row("progressText", check_str, show=False))
    timestamp: str = field(metadata=row("timestamp", check_wire_timestamp, show=False))
    completed_at: str | None = field(
        default=None, metadata=row("completedAt", check_wire_timestamp, optional=True, show=False)
    )
    artifact_ids: tuple[str, ...] = field(
        default=(), metadata=row("artifactIds", _artifact_ids, encode=list, omit_default=True, show=len)
    )
    arguments: FrozenDict | None = field(
        default=None, metadata=row("arguments", check_json_object, optional=True, encode=thaw_json, show=False)
    )
    tool_call_id: str | None = field(default=None, metadata=row("toolCallId", check_nonempty, optional=True, show=False))
    error: str | None = field(default=None, metadata=row("error", check_nonempty, optional=True, show=False))

    def __post_init__(self) -> None:
        if self.status in FINAL_STATUSES:
            if self.completed_at is None:
                raise ValidationError(f"is required when status is {self.status}", "completedAt", "missing")
        elif self.completed_at is not None:
            raise ValidationError("must be absent unless status is completed or error", "completedAt", "value")
        if self.error is not None and self.status != "error":
            raise ValidationError("must be absent unless status is error", "error", "value")


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
    return tuple(check_artifact(item, f"{path}[{i}]") for i, item in enumerate(check_array(value, path)))


def _thawed(artifacts: tuple[FrozenDict, ...]) -> list[dict[str, Any]]:
    return [thaw_json(artifact) for artifact in artifacts]


@field_table(tags=(("status", "success"),))
@dataclass(frozen=True, slots=True, kw_only=True, repr=False)
class ChatInit(Codec):
    """``chat:init`` from the server: ``{"status": "success", "messages": [...], "artifacts": [...]}``.

    >>> ChatInit().to_dict()
    {'status': 'success', 'messages': [], 'artifacts': []}

    ``messages`` are history entries, ``artifacts`` the full artifacts bound to them. Checked
    as a whole: ids (of user entries that have one too) are unique, and every ``artifactIds``
    entry names an artifact of the list.
    """

    EVENT: ClassVar[str] = "chat:init"

    messages: tuple[HistoryEntry, ...] = field(
        default=(), metadata=row("messages", _entries, required=True, decode=each(_entry_from_dict), show=len)
    )
    artifacts: tuple[FrozenDict, ...] = field(
        default=(), metadata=row("artifacts", _artifacts, required=True, encode=_thawed, show=len)
    )

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
