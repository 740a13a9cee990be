"""Streaming: tool-call and reasoning fragments as providers send them, and the accumulators that join them."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from ._checks import check_int, check_text, expect_object, sized, type_name
from ._construct import from_table, row
from .content import ReasoningPart, reasoning_part
from .errors import ValidationError
from .tools import ToolCall

__all__ = ["ToolCallDelta", "ToolCallAccumulator", "ReasoningDelta", "ReasoningAccumulator"]


def _optional_str(value: object, path: str) -> str | None:
    if value is None or type(value) is str:
        return value
    raise ValidationError(f"expected a string, got {type_name(value)}", path, "type")


@from_table()
@dataclass(frozen=True, slots=True, repr=False)
class ToolCallDelta:
    """One streamed fragment of a tool call; ``index`` says which call of the message.

    >>> ToolCallDelta(0, id="call_1", name="search", arguments_delta='{"q": ')
    ToolCallDelta(index=0, id='call_1', name='search', arguments_delta=<6 chars>)
    """

    index: int
    id: str | None = field(default=None, metadata=row(repr_always=True))
    name: str | None = field(default=None, metadata=row(repr_always=True))
    arguments_delta: str | None = field(default=None, metadata=row(repr="sized($)", repr_always=True))

    to_dict: ClassVar[Callable[[ToolCallDelta], dict[str, Any]]]  # written by from_table, as __repr__ is

    def __post_init__(self) -> None:
        check_int(self.index, "index", minimum=0)
        for key in ("id", "name", "arguments_delta"):
            value = _optional_str(getattr(self, key), key)
            if value is not None:
                check_text(value, key)

    @classmethod
    def from_dict(cls, data: Any, /) -> ToolCallDelta:
        """Parse the shape that ``to_dict`` gives."""
        data = expect_object(data)
        index = data.get("index")
        if index is None:
            raise ValidationError("is required", "index", "missing")
        return cls(index, data.get("id"), data.get("name"), data.get("arguments_delta"))


class _Slot:
    __slots__ = ("id", "name", "pieces")

    def __init__(self) -> None:
        self.id: str | None = None
        self.name: str | None = None
        self.pieces: list[str] = []


class ToolCallAccumulator:
    """Join streamed ``ToolCallDelta``s, in any interleaving of indexes, into ``ToolCall``s.

    >>> acc = ToolCallAccumulator()
    >>> for delta in [ToolCallDelta(0, "call_a", "search", '{"q": "c'),
    ...               ToolCallDelta(1, "call_b", "clock", ""),
    ...               ToolCallDelta(0, arguments_delta='ats"}')]:
    ...     acc.add(delta)
    >>> [(c.id, c.name, dict(c.arguments)) for c in acc.finish()]
    [('call_a', 'search', {'q': 'cats'}), ('call_b', 'clock', {})]

    Argument fragments are kept in a list and joined once, so the work is linear in their total
    length. ``finish`` raises ``ValidationError`` (path ``tool_calls[i]...``) for a call without
    id or name, or with arguments that are not a JSON object. Safe to share between threads.
    """

    __slots__ = ("_slots", "_lock")

    def __init__(self) -> None:
        self._slots: dict[int, _Slot] = {}
        self._lock = threading.Lock()

    def add(self, delta: ToolCallDelta) -> None:
        """Take one fragment; a second, different id or name for an index is an error."""
        if type(delta) is not ToolCallDelta:
            raise TypeError(f"expected a ToolCallDelta, got {type(delta).__name__}")
        with self._lock:
            slot = self._slots.get(delta.index)
            if slot is None:
                slot = self._slots[delta.index] = _Slot()
            if delta.id is not None and delta.id != slot.id:
                if slot.id is not None:
                    raise ValidationError(
                        "a second, different id arrived for this index", f"tool_calls[{delta.index}].id", "value"
                    )
                slot.id = delta.id
            if delta.name is not None and delta.name != slot.name:
                if slot.name is not None:
                    raise ValidationError(
                        "a second, different name arrived for this index", f"tool_calls[{delta.index}].name", "value"
                    )
                slot.name = delta.name
            if delta.arguments_delta:
                slot.pieces.append(delta.arguments_delta)

    def __len__(self) -> int:
        return len(self._slots)

    def finish(self) -> tuple[ToolCall, ...]:
        """Return the complete calls in index order."""
        with self._lock:
            slots = sorted(self._slots.items())
        calls = []
        for index, slot in slots:
            path = f"tool_calls[{index}]"
            if not slot.id:
                raise ValidationError("no id arrived for this call", f"{path}.id", "missing")
            if not slot.name:
                raise ValidationError("no name arrived for this call", f"{path}.name", "missing")
            try:
                calls.append(ToolCall.from_json_arguments(slot.id, slot.name, "".join(slot.pieces)))
            except ValidationError as exc:
                raise exc.prefixed(path) from None
        return tuple(calls)


@from_table()
@dataclass(frozen=True, slots=True, repr=False)
class ReasoningDelta:
    """One streamed fragment of reasoning text (or its signature); ``index`` says which part.

    >>> ReasoningDelta(0, "Let me think")
    ReasoningDelta(index=0, text=<12 chars>)

    Codecs' ``StreamParser.feed`` return these beside text strings and ``ToolCallDelta``s, so a
    caller can show the reasoning as it arrives, apart from the answer.
    """

    index: int
    text: str = field(default="", metadata=row(repr="sized($)", always=True))
    signature: str | None = field(default=None, metadata=row(repr="sized($)"))

    to_dict: ClassVar[Callable[[ReasoningDelta], dict[str, Any]]]  # written by from_table, as __repr__ is

    def __post_init__(self) -> None:
        check_int(self.index, "index", minimum=0)
        if type(self.text) is not str:
            raise ValidationError(f"expected a string, got {type_name(self.text)}", "text", "type")
        check_text(self.text, "text")
        if _optional_str(self.signature, "signature") is not None:
            check_text(self.signature, "signature")  # type: ignore[arg-type]  # checked to be a string just above


class _ReasoningSlot:
    __slots__ = ("pieces", "signature", "meta")

    def __init__(self) -> None:
        self.pieces: list[str] = []
        self.signature: str | None = None
        self.meta: dict[str, Any] = {}


class ReasoningAccumulator:
    """Join streamed ``ReasoningDelta``s into ``ReasoningPart``s, one per index.

    >>> acc = ReasoningAccumulator()
    >>> acc.add(ReasoningDelta(0, "Check "))
    >>> acc.add(ReasoningDelta(0, "units.", signature="EqQB"))
    >>> acc.annotate(0, provider="anthropic")
    >>> acc.finish()
    (ReasoningPart(text=<12 chars>, signature=<4 chars>, provider='anthropic'),)

    ``annotate`` sets the fields that do not stream (``provider``, ``id``, ``anchor``,
    ``redacted``) for an index; a signature arriving in several deltas is joined. ``finish``
    validates each part (``ValidationError`` with path ``reasoning[i]``) and leaves out indexes
    that received nothing. Safe to share between threads.
    """

    __slots__ = ("_slots", "_lock")

    def __init__(self) -> None:
        self._slots: dict[int, _ReasoningSlot] = {}
        self._lock = threading.Lock()

    def _slot(self, index: int) -> _ReasoningSlot:
        slot = self._slots.get(index)
        if slot is None:
            slot = self._slots[index] = _ReasoningSlot()
        return slot

    def add(self, delta: ReasoningDelta) -> None:
        """Take one fragment."""
        if type(delta) is not ReasoningDelta:
            raise TypeError(f"expected a ReasoningDelta, got {type(delta).__name__}")
        with self._lock:
            slot = self._slot(delta.index)
            if delta.text:
                slot.pieces.append(delta.text)
            if delta.signature:
                slot.signature = delta.signature if slot.signature is None else slot.signature + delta.signature

    def annotate(
        self,
        index: int,
        *,
        provider: str | None = None,
        id: str | None = None,
        anchor: str | None = None,
        redacted: bool | None = None,
        signature: str | None = None,
    ) -> None:
        """Set the non-streamed fields of part ``index`` (None leaves a field as it is).

        A ``signature`` given here replaces any that streamed (a provider's final token).
        """
        with self._lock:
            slot = self._slot(index)
            meta = slot.meta
            for key, value in (("provider", provider), ("id", id), ("anchor", anchor), ("redacted", redacted)):
                if value is not None:
                    meta[key] = value
            if signature is not None:
                slot.signature = signature

    def __len__(self) -> int:
        return len(self._slots)

    def finish(self) -> tuple[ReasoningPart, ...]:
        """Return the parts in index order."""
        with self._lock:
            slots = sorted(self._slots.items())
        out = []
        for k, (_, slot) in enumerate(slots):
            text = "".join(slot.pieces)
            meta = slot.meta
            if not text and slot.signature is None and meta.get("id") is None:
                continue
            try:
                out.append(
                    reasoning_part(
                        text,
                        slot.signature,
                        meta.get("redacted", False),
                        meta.get("provider"),
                        meta.get("id"),
                        meta.get("anchor"),
                    )
                )
            except ValidationError as exc:
                raise exc.prefixed(k).prefixed("reasoning") from None
        return tuple(out)
