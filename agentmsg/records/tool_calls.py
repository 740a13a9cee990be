"""Tool records: the calls an assistant turn asked for, each with its approval, and their results.

>>> ToolRequest.of([ToolCall("c1", "ls", {})], id="q").to_dict()["data"]
{'calls': [{'id': 'c1', 'name': 'ls', 'arguments': {}, 'approval': 'pending'}]}
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, ClassVar, Literal

from .. import _approvals
from .._checks import check_bool, check_choice, check_float, check_items, check_nonempty, check_object, check_str, expected, required
from .._fieldtable import Codec, each, field_table, row, size
from .._frozen import freeze_json, thaw_json
from .._time import check_timestamp, format_timestamp, parse_timestamp
from ..errors import ValidationError
from ..tools import ToolCall
from ._envelope import ID, new_record_id, record

__all__ = ["RequestedToolCall", "ToolRequest", "ToolResultRecord"]

Approval = Literal["pending", "approved", "denied"]
ResultStatus = Literal["success", "error"]
_APPROVALS: tuple[Approval, ...] = ("pending", "approved", "denied")
_RESULT_STATUSES: tuple[ResultStatus, ...] = ("success", "error")


def _tool_call(value: object, path: str) -> ToolCall:
    if not isinstance(value, ToolCall):
        raise expected("a ToolCall", value, path)
    return value


def _call_from_dict(data: Mapping[str, Any], path: str) -> ToolCall:
    """Read the tool call's own fields, which sit beside ``approval`` in the item."""
    call_id = check_nonempty(required(data, "id"), "id")
    name = check_str(required(data, "name"), "name")
    arguments = freeze_json(check_object(required(data, "arguments"), "arguments"), "arguments")
    return ToolCall(call_id, name, arguments)


@field_table(strict=True)
@dataclass(frozen=True, slots=True, kw_only=True, repr=False)
class RequestedToolCall(Codec):
    """Pair a tool call the model asked for with its approval (pending, approved or denied).

    >>> item = RequestedToolCall(call=ToolCall("c1", "read_file", {"path": "a.py"}))
    >>> item.approval, item.id, item.name
    ('pending', 'c1', 'read_file')
    >>> RequestedToolCall(call=ToolCall("c1", "ls", {}), approval="denied").to_dict()
    {'id': 'c1', 'name': 'ls', 'arguments': {}, 'approval': 'denied'}

    ``from_dict`` reads the tool call's fields beside ``approval``, every key required:

    >>> try:
    ...     RequestedToolCall.from_dict({"id": "c1", "name": "ls", "arguments": {}})
    ... except ValidationError as exc:
    ...     print(exc)
    approval: is required
    """

    call: ToolCall = field(
        metadata=row(("id", "name", "arguments"), _tool_call, decode=_call_from_dict, encode=ToolCall.to_dict)
    )
    approval: Approval = field(default="pending", metadata=row("approval", check_choice, _APPROVALS, required=True))

    @property
    def id(self) -> str:
        """Return the tool call's id."""
        return self.call.id

    @property
    def name(self) -> str:
        """Return the tool's name."""
        return self.call.name


def _requested_calls(value: object, path: str) -> tuple[RequestedToolCall, ...]:
    calls = check_items(value, path, RequestedToolCall, "a RequestedToolCall")
    if not calls:
        raise ValidationError("must hold at least one tool call", path, "value")
    seen: set[str] = set()
    for index, item in enumerate(calls):
        if item.call.id in seen:
            raise ValidationError("must be unique", f"{path}[{index}].id", "unique")
        seen.add(item.call.id)
    return calls


@record
@dataclass(frozen=True, slots=True, kw_only=True, repr=False)
class ToolRequest(Codec):
    """Hold the tool calls one assistant turn asked for, each with its own approval.

    >>> req = ToolRequest.of([ToolCall("c1", "read_file", {"path": "a.py"}), ToolCall("c2", "ls", {})], id="q1")
    >>> req.approve("c1").deny("c2").approvals
    ('approved', 'denied')
    >>> ToolRequest.of([ToolCall("c1", "ls", {})], id="q1")
    ToolRequest(id='q1', calls=(RequestedToolCall(call=ToolCall(id='c1', name='ls', arguments=<0 keys>), approval='pending'),))
    """

    TYPE: ClassVar[str] = "tool_request"
    VERSION: ClassVar[int] = 1

    id: str = field(default_factory=new_record_id, metadata=ID)
    calls: tuple[RequestedToolCall, ...] = field(
        metadata=row("calls", _requested_calls, decode=each(RequestedToolCall.from_dict))
    )

    @classmethod
    def of(cls, calls: "tuple[ToolCall, ...] | list[ToolCall]", *, id: str | None = None) -> "ToolRequest":
        """Build a request whose calls all await approval.

        >>> ToolRequest.of([ToolCall("c1", "ls", {})], id="q").approvals
        ('pending',)
        """
        return cls(id=new_record_id() if id is None else id, calls=tuple(RequestedToolCall(call=c) for c in calls))

    @property
    def tool_calls(self) -> tuple[ToolCall, ...]:
        """Return the tool calls in order.

        >>> [c.name for c in ToolRequest.of([ToolCall("c1", "ls", {})]).tool_calls]
        ['ls']
        """
        return tuple(item.call for item in self.calls)

    @property
    def approvals(self) -> tuple[Approval, ...]:
        """Return each call's approval, in order."""
        return tuple(item.approval for item in self.calls)

    @property
    def approved_calls(self) -> tuple[ToolCall, ...]:
        """Return the calls that were approved (what an executor should run).

        >>> ToolRequest.of([ToolCall("c1", "ls", {})]).approve("c1").approved_calls[0].id
        'c1'
        """
        return tuple(item.call for item in self.calls if item.approval == "approved")

    def get(self, call_id: str) -> RequestedToolCall:
        """Return the requested call with this id, or raise ``ValidationError`` (code ``unknown``).

        >>> try:
        ...     ToolRequest.of([ToolCall("c1", "ls", {})]).get("c9")
        ... except ValidationError as exc:
        ...     print(exc)
        calls: no tool call with this id
        """
        for item in self.calls:
            if item.call.id == call_id:
                return item
        raise ValidationError("no tool call with this id", "calls", "unknown")

    def with_approval(self, call_id: str, approval: Approval) -> "ToolRequest":
        """Return a copy where the call ``call_id`` has the given approval.

        >>> ToolRequest.of([ToolCall("c1", "ls", {})]).with_approval("c1", "denied").approvals
        ('denied',)
        """
        chosen = self.get(call_id)
        check_choice(approval, "approval", _APPROVALS)
        calls = tuple(
            replace(item, approval=approval) if item.call.id == call_id else item for item in self.calls
        )
        _approvals.note(self.id, chosen.call, approval)  # the executor trusts what this process approved
        return replace(self, calls=calls)

    def approve(self, call_id: str) -> "ToolRequest":
        """Return a copy with the call ``call_id`` approved.

        >>> ToolRequest.of([ToolCall("c1", "ls", {})]).approve("c1").approvals
        ('approved',)
        """
        return self.with_approval(call_id, "approved")

    def deny(self, call_id: str) -> "ToolRequest":
        """Return a copy with the call ``call_id`` denied.

        >>> ToolRequest.of([ToolCall("c1", "rm", {})]).deny("c1").approved_calls
        ()
        """
        return self.with_approval(call_id, "denied")


@record
@dataclass(frozen=True, slots=True, kw_only=True, repr=False)
class ToolResultRecord(Codec):
    """Hold the outcome of one tool call: structured output, or an error, and how it ran.

    ``output`` is any JSON value (deep-frozen). On error, ``error`` is the message,
    ``stack_trace`` is kept when available (never sent to a model) and ``recoverable`` says
    whether retrying may help. ``duration_seconds`` and ``finished_at`` describe the run.
    Unset fields (and ``recoverable=False``) are left out of the document.

    >>> from datetime import datetime, timezone
    >>> res = ToolResultRecord.success("c1", {"lines": 3}, id="r1", duration_seconds=0.25,
    ...                                finished_at=datetime(2026, 11, 25, 10, tzinfo=timezone.utc))
    >>> res.to_dict()["data"]
    {'tool_call_id': 'c1', 'status': 'success', 'output': {'lines': 3}, 'duration_seconds': 0.25, 'finished_at': '2026-11-25T10:00:00Z'}
    >>> ToolResultRecord.failure("c1", "boom", id="r2", recoverable=True)
    ToolResultRecord(id='r2', tool_call_id='c1', status='error', error=<4 chars>, recoverable=True)
    """

    TYPE: ClassVar[str] = "tool_result"
    VERSION: ClassVar[int] = 1

    id: str = field(default_factory=new_record_id, metadata=ID)
    tool_call_id: str = field(metadata=row("tool_call_id", check_nonempty))
    status: ResultStatus = field(metadata=row("status", check_choice, _RESULT_STATUSES))
    output: Any = field(default=None, metadata=row("output", freeze_json, encode=thaw_json, omit_default=True, show=False))
    error: str | None = field(default=None, metadata=row("error", check_nonempty, optional=True, show=size("char")))
    stack_trace: str | None = field(default=None, metadata=row("stack_trace", check_str, optional=True, show=False))
    recoverable: bool = field(default=False, metadata=row("recoverable", check_bool, omit_default=True))
    duration_seconds: float | None = field(
        default=None, metadata=row("duration_seconds", check_float, optional=True, minimum=0.0)
    )
    finished_at: datetime | None = field(
        default=None,
        metadata=row(
            "finished_at", check_timestamp, optional=True, decode=parse_timestamp, encode=format_timestamp, show=False
        ),
    )

    def __post_init__(self) -> None:
        if self.status == "error" and self.error is None:
            raise ValidationError("is required when status is error", "error", "missing")
        if self.status == "success":
            for name in ("error", "stack_trace"):
                if getattr(self, name) is not None:
                    raise ValidationError("must be absent when status is success", name, "value")
            if self.recoverable:
                raise ValidationError("must be false when status is success", "recoverable", "value")

    @classmethod
    def success(
        cls,
        tool_call_id: str,
        output: Any,
        *,
        id: str | None = None,
        duration_seconds: float | None = None,
        finished_at: datetime | None = None,
    ) -> "ToolResultRecord":
        """Build a successful result.

        >>> ToolResultRecord.success("c1", "ok", id="r").status
        'success'
        """
        return cls(
            id=new_record_id() if id is None else id,
            tool_call_id=tool_call_id,
            status="success",
            output=output,
            duration_seconds=duration_seconds,
            finished_at=finished_at,
        )

    @classmethod
    def failure(
        cls,
        tool_call_id: str,
        error: str,
        *,
        id: str | None = None,
        output: Any = None,
        stack_trace: str | None = None,
        recoverable: bool = False,
        duration_seconds: float | None = None,
        finished_at: datetime | None = None,
    ) -> "ToolResultRecord":
        """Build a failed result.

        >>> ToolResultRecord.failure("c1", "timed out", recoverable=True, id="r").recoverable
        True
        """
        return cls(
            id=new_record_id() if id is None else id,
            tool_call_id=tool_call_id,
            status="error",
            output=output,
            error=error,
            stack_trace=stack_trace,
            recoverable=recoverable,
            duration_seconds=duration_seconds,
            finished_at=finished_at,
        )
