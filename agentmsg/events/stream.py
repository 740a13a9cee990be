"""The server's stream for one turn: ``turn:start``, messages, reasoning, tool messages, progress, ``completion``.

>>> [type(e).__name__ for e in (TurnStart(turn_id="turn_1"), MessageStart(id="m1"), MessageChunk(id="m1", chunk="Hi"),
...                              MessageEnd(id="m1"), Completion.ok({}, turn_id="turn_1"))]
['TurnStart', 'MessageStart', 'MessageChunk', 'MessageEnd', 'Completion']
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from .._checks import check_bool, check_choice, check_nonempty, check_str, expected, missing, sized
from .._fieldtable import Codec, field_table, row, size
from .._frozen import FrozenDict, check_json_object, thaw_json
from .._time import check_wire_timestamp
from ..errors import ValidationError
from .history import FINAL_STATUSES, OPEN_STATUSES, ToolEntry, check_artifact

__all__ = [
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
    "COMPLETION_CODES",
]

_PATCH_FIELDS = ("status", "title", "content", "progressText")
COMPLETION_CODES = FrozenDict(
    {
        "cancelled": "the turn was cancelled (chat:cancel, AgentTurn.cancel)",
        "model": "the model call failed, or its answer could not be read",
        "tool": "a tool failed in a way the model cannot recover from",
        "step_limit": "the step limit was reached with tool calls still coming",
        "internal": "the backend's own failure (a bug, not the client's)",
        "interrupted": "the process running the turn stopped (a restart, a kill) before it ended",
    }
)
"""The ``code`` values of a failed ``completion`` this package sends (any non-empty string decodes)."""


@field_table()
@dataclass(frozen=True, slots=True, kw_only=True, repr=False)
class TurnStart(Codec):
    """``turn:start``: an agent turn begins; the first event of every turn.

    >>> TurnStart(turn_id="turn_1", session_id="s1").to_dict()
    {'turnId': 'turn_1', 'sessionId': 's1'}

    The turn's ``completion`` carries the same ``turnId``; so do its approval requests.
    """

    EVENT: ClassVar[str] = "turn:start"

    turn_id: str = field(metadata=row("turnId", check_nonempty))
    session_id: str | None = field(default=None, metadata=row("sessionId", check_nonempty, optional=True))


@field_table()
@dataclass(frozen=True, slots=True, kw_only=True, repr=False)
class MessageStart(Codec):
    """``message:start``: an assistant chat message begins (its text follows in chunks).

    >>> MessageStart(id="m1").to_dict()
    {'id': 'm1', 'role': 'assistant', 'content': ''}

    ``timestamp`` (optional) is when the message began: the history entry's timestamp (without
    it, a reducer stamps the entry with its own clock).
    """

    EVENT: ClassVar[str] = "message:start"

    id: str = field(metadata=row("id", check_nonempty))
    role: Literal["assistant"] = field(
        default="assistant", metadata=row("role", check_choice, ("assistant",), required=True, show=False)
    )
    content: str = field(default="", metadata=row("content", check_str, show=size("char")))
    timestamp: str | None = field(default=None, metadata=row("timestamp", check_wire_timestamp, optional=True, show=False))


@field_table()
@dataclass(frozen=True, slots=True, kw_only=True, repr=False)
class MessageChunk(Codec):
    """``message:chunk``: text appended to a started chat message.

    >>> MessageChunk(id="m1", chunk="Hel")
    MessageChunk(id='m1', chunk=<3 chars>)
    """

    EVENT: ClassVar[str] = "message:chunk"

    id: str = field(metadata=row("id", check_nonempty))
    chunk: str = field(metadata=row("chunk", check_str, show=size("char")))


@field_table()
@dataclass(frozen=True, slots=True, kw_only=True, repr=False)
class MessageEnd(Codec):
    """``message:end``: a chat message is complete (after its last chunk).

    >>> MessageEnd(id="m1").to_dict()
    {'id': 'm1'}
    """

    EVENT: ClassVar[str] = "message:end"

    id: str = field(metadata=row("id", check_nonempty))


@field_table()
@dataclass(frozen=True, slots=True, kw_only=True, repr=False)
class ReasoningStart(Codec):
    """``reasoning:start``: the model's reasoning begins (its readable text follows in chunks).

    >>> ReasoningStart(id="r1").to_dict()
    {'id': 'r1'}

    ``id`` is new (not a message id). Only the text a person may read travels (a thinking text
    or a summary), never a signature or encrypted reasoning.
    """

    EVENT: ClassVar[str] = "reasoning:start"

    id: str = field(metadata=row("id", check_nonempty))


@field_table()
@dataclass(frozen=True, slots=True, kw_only=True, repr=False)
class ReasoningChunk(Codec):
    """``reasoning:chunk``: reasoning text appended to a started reasoning.

    >>> ReasoningChunk(id="r1", chunk="The user wants")
    ReasoningChunk(id='r1', chunk=<14 chars>)
    """

    EVENT: ClassVar[str] = "reasoning:chunk"

    id: str = field(metadata=row("id", check_nonempty))
    chunk: str = field(metadata=row("chunk", check_str, show=size("char")))


@field_table()
@dataclass(frozen=True, slots=True, kw_only=True, repr=False)
class ReasoningEnd(Codec):
    """``reasoning:end``: the reasoning is complete (before the message or tool call after it).

    >>> ReasoningEnd(id="r1").to_dict()
    {'id': 'r1'}
    """

    EVENT: ClassVar[str] = "reasoning:end"

    id: str = field(metadata=row("id", check_nonempty))


@field_table()
@dataclass(frozen=True, slots=True, kw_only=True, repr=False)
class ToolMessageStart(Codec):
    """``tool:message:start``: a tool's visible message begins (``kind: tool``).

    >>> start = ToolMessageStart(id="t1", tool_name="search", title="Searching the web",
    ...                          timestamp="2024-05-01T12:00:01Z", arguments={"q": "paris"})
    >>> start.to_dict()["status"], start.to_dict()["kind"]
    ('running', 'tool')
    >>> start
    ToolMessageStart(id='t1', status=running, tool_name='search', arguments=<1 key>)
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
    id: str = field(metadata=row("id", check_nonempty))
    role: Literal["assistant"] = field(
        default="assistant", metadata=row("role", check_choice, ("assistant",), required=True, show=False)
    )
    kind: Literal["tool"] = field(default="tool", metadata=row("kind", check_choice, ("tool",), required=True, show=False))
    status: str = field(
        default="running", metadata=row("status", check_choice, OPEN_STATUSES, required=True, show=str)
    )
    tool_name: str = field(metadata=row("toolName", check_nonempty))
    title: str = field(metadata=row("title", check_str, show=False))
    content: str = field(default="", metadata=row("content", check_str, required=True, show=False))
    progress_text: str = field(default="", metadata=row("progressText", check_str, required=True, show=False))
    timestamp: str = field(metadata=row("timestamp", check_wire_timestamp, show=False))
    arguments: FrozenDict | None = field(
        default=None, metadata=row("arguments", check_json_object, optional=True, encode=thaw_json, show=size("key"))
    )
    tool_call_id: str | None = field(default=None, metadata=row("toolCallId", check_nonempty, optional=True, show=False))

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


@field_table()
@dataclass(frozen=True, slots=True, kw_only=True, repr=False)
class ToolMessageArgs(Codec):
    """``tool:message:args``: a piece of a started tool message's arguments, as the model streams them.

    >>> ToolMessageArgs(id="t1", chunk='{"q": "par')
    ToolMessageArgs(id='t1', chunk=<10 chars>)

    The pieces, joined in order, are the call's arguments as JSON text. They follow a
    ``tool:message:start`` sent without ``arguments`` and come before the tool message's
    other events.
    """

    EVENT: ClassVar[str] = "tool:message:args"

    id: str = field(metadata=row("id", check_nonempty))
    chunk: str = field(metadata=row("chunk", check_str, show=size("char")))


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
            if item in FINAL_STATUSES:
                raise ValidationError("cannot finish a tool message; send tool:message:complete", at, "value")
            out[key] = check_choice(item, at, OPEN_STATUSES)
        else:
            out[key] = check_str(item, at)
    return FrozenDict(out)


@field_table()
@dataclass(frozen=True, slots=True, kw_only=True, repr=False)
class ToolMessageUpdate(Codec):
    """``tool:message:update``: a patch of a running tool message's fields.

    >>> ToolMessageUpdate(id="t1", patch={"progressText": "2 of 3 pages"})
    ToolMessageUpdate(id='t1', patch=['progressText'])
    >>> try:
    ...     ToolMessageUpdate(id="t1", patch={"kind": "chat"})
    ... except ValidationError as exc:
    ...     print(exc)
    patch: may change only status, title, content and progressText

    A patch replaces the fields it names; ``status`` may move between ``pending`` and
    ``running`` (finishing is ``tool:message:complete``'s job). The repr names the patched
    fields, not their values.
    """

    EVENT: ClassVar[str] = "tool:message:update"

    id: str = field(metadata=row("id", check_nonempty))
    patch: FrozenDict = field(metadata=row("patch", _patch, encode=dict, show=sorted))


@field_table()
@dataclass(frozen=True, slots=True, kw_only=True, repr=False)
class ToolMessageComplete(Codec):
    """``tool:message:complete``: a tool message ends, ``completed`` or ``error``.

    >>> ToolMessageComplete(id="t1", status="error", timestamp="2024-05-01T12:00:03Z").to_dict()
    {'id': 't1', 'status': 'error', 'timestamp': '2024-05-01T12:00:03Z'}
    >>> ToolMessageComplete(id="t1", status="error", timestamp="2024-05-01T12:00:03Z",
    ...                     error="The user denied this tool call.")
    ToolMessageComplete(id='t1', status=error, error=<31 chars>)

    ``error`` (optional, only with status ``error``) is a short text for the user, no stack.
    """

    EVENT: ClassVar[str] = "tool:message:complete"

    id: str = field(metadata=row("id", check_nonempty))
    status: str = field(metadata=row("status", check_choice, FINAL_STATUSES, show=str))
    timestamp: str = field(metadata=row("timestamp", check_wire_timestamp, show=False))
    error: str | None = field(default=None, metadata=row("error", check_nonempty, optional=True, show=size("char")))

    def __post_init__(self) -> None:
        if self.error is not None and self.status != "error":
            raise ValidationError("must be absent unless status is error", "error", "value")


@field_table()
@dataclass(frozen=True, slots=True, kw_only=True, repr=False)
class ToolApprovalRequest(Codec):
    """``tool:approval:request``: the turn waits for a person to approve a tool call.

    >>> ToolApprovalRequest(id="t1", turn_id="turn_1", tool_name="delete_recipe",
    ...                     arguments={"name": "Pancakes"}).to_dict()
    {'id': 't1', 'turnId': 'turn_1', 'toolName': 'delete_recipe', 'arguments': {'name': 'Pancakes'}}

    ``id`` is the tool message's (its ``tool:message:start``), which stays ``pending``; the
    client answers with ``tool:approval:response``.
    """

    EVENT: ClassVar[str] = "tool:approval:request"

    id: str = field(metadata=row("id", check_nonempty))
    turn_id: str = field(metadata=row("turnId", check_nonempty))
    tool_name: str = field(metadata=row("toolName", check_nonempty))
    arguments: FrozenDict = field(metadata=row("arguments", check_json_object, encode=thaw_json, show=size("key")))


def _by_id(artifact: FrozenDict) -> str:
    """Show an artifact by its id alone: ``{'id': 'a1', ...}``."""
    return f"{{'id': {artifact['id']!r}{', ...' if len(artifact) > 1 else ''}}}"


@field_table()
@dataclass(frozen=True, slots=True, kw_only=True, repr=False)
class ToolArtifact(Codec):
    """``tool:artifact``: the full artifact (a JSON object with an ``id``), bound to a tool message.

    >>> art = ToolArtifact(message_id="t1", artifact={"id": "a1", "type": "code", "content": "print(1)"},
    ...                    show_in_canvas=True)
    >>> art
    ToolArtifact(message_id='t1', artifact={'id': 'a1', ...}, show_in_canvas=True)
    >>> sorted(art.to_dict())
    ['artifact', 'messageId', 'showInCanvas']

    Sending an artifact id again replaces that artifact (this is how artifacts are updated).
    """

    EVENT: ClassVar[str] = "tool:artifact"

    message_id: str = field(metadata=row("messageId", check_nonempty))
    artifact: FrozenDict = field(metadata=row("artifact", check_artifact, encode=thaw_json, show=_by_id))
    show_in_canvas: bool = field(default=False, metadata=row("showInCanvas", check_bool))

    @property
    def artifact_id(self) -> str:
        """Return the artifact's id."""
        artifact_id: str = self.artifact["id"]
        return artifact_id


def _percent(value: object, path: str) -> int | float:
    if type(value) is not int and type(value) is not float:
        raise missing(path) if value is None else expected("a number", value, path)
    if not 0 <= value <= 100:  # NaN fails this too
        raise ValidationError("must be between 0 and 100", path, "value")
    return value


@field_table()
@dataclass(frozen=True, slots=True, kw_only=True, repr=False)
class Progress(Codec):
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

    status: str = field(metadata=row("status", check_nonempty))
    progress: int | float = field(metadata=row("progress", _percent))
    message: str = field(default="", metadata=row("message", check_str, show=False))
    artifact_id: str | None = field(default=None, metadata=row("artifactId", check_nonempty, optional=True, show=False))


@field_table()
@dataclass(frozen=True, slots=True, kw_only=True, repr=False)
class Completion(Codec):
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
    ``internal``, ``interrupted``; any non-empty string decodes) and ``cancelled: true`` when it was cancelled.
    Absent optional fields are omitted.
    """

    EVENT: ClassVar[str] = "completion"

    # result, finalArtifactId, error, code and cancelled depend on success: __post_init__ checks them.
    success: bool = field(metadata=row("success", check_bool))
    result: FrozenDict | None = field(default=None, metadata=row("result"))
    final_artifact_id: str | None = field(default=None, metadata=row("finalArtifactId"))
    error: str | None = field(default=None, metadata=row("error"))
    turn_id: str | None = field(default=None, metadata=row("turnId", check_nonempty, optional=True))
    code: str | None = field(default=None, metadata=row("code", check_nonempty, optional=True))
    cancelled: bool = field(default=False, metadata=row("cancelled", check_bool))

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
        return cls(success=True, result=result, final_artifact_id=final_artifact_id, turn_id=turn_id)  # type: ignore[arg-type]  # the check freezes the dict

    @classmethod
    def failed(cls, error: str, *, code: str | None = None, turn_id: str | None = None,
               cancelled: bool = False) -> "Completion":
        """Return a failed completion with a message for the user (and why, as a ``code``)."""
        return cls(success=False, error=error, code=code, turn_id=turn_id, cancelled=cancelled)

    # Written by hand: which keys a completion has, and what its repr shows, depend on success
    # (a success always has result and finalArtifactId, even null; a failure never has them).
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
