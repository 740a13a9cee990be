"""Text and reasoning records: what was said, and the reasoning of an assistant turn.

>>> TextRecord.of("user", "Summarize the file.", id="t1").to_dict()
{'type': 'text', 'version': 1, 'id': 't1', 'data': {'role': 'user', 'parts': [{'type': 'text', 'text': 'Summarize the file.'}]}}
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from .._checks import check_items, check_keys, check_object, check_str, required
from .._fieldtable import Codec, each, row
from ..content import ReasoningPart, TextPart, reasoning_from_dict
from ..errors import ValidationError
from ..roles import MessageRole
from ._envelope import ID, new_record_id, record

__all__ = ["TextRecord", "ReasoningRecord"]

_TEXT_ROLES = (MessageRole.SYSTEM, MessageRole.USER, MessageRole.ASSISTANT)
_REASONING_KEYS = frozenset({"type", "text", "signature", "redacted", "provider", "id", "anchor"})


def _parts(value: object, path: str, kind: type, what: str) -> tuple[Any, ...]:
    parts = check_items(value, path, kind, what)
    if not parts:
        raise ValidationError("must hold at least one part", path, "value")
    return parts


def _text_role(value: object, path: str) -> MessageRole:
    role = value if isinstance(value, MessageRole) else MessageRole.parse(check_str(value, path))
    if role not in _TEXT_ROLES:
        raise ValidationError("must be one of system, user, assistant", path, "value")
    return role


def _text_part(item: object) -> TextPart:
    item = check_object(item)
    if check_str(required(item, "type"), "type") != "text":
        raise ValidationError("must be text (images are image records)", "type", "value")
    check_keys(item, frozenset({"type", "text"}))
    return TextPart(check_str(required(item, "text"), "text"))


@record
@dataclass(frozen=True, slots=True, kw_only=True, repr=False)
class TextRecord(Codec):
    """Hold what a user, the assistant or the system said, as one or more text parts.

    >>> rec = TextRecord.of("user", "Summarize the file.", id="t1")
    >>> rec
    TextRecord(id='t1', role=user, parts=(TextPart(text=<19 chars>),))
    >>> rec.to_dict()["data"]
    {'role': 'user', 'parts': [{'type': 'text', 'text': 'Summarize the file.'}]}
    """

    TYPE: ClassVar[str] = "text"
    VERSION: ClassVar[int] = 1

    id: str = field(default_factory=new_record_id, metadata=ID)
    role: MessageRole = field(metadata=row("role", _text_role, encode=str, show=str))
    parts: tuple[TextPart, ...] = field(metadata=row("parts", _parts, TextPart, "a TextPart", decode=each(_text_part)))

    @classmethod
    def of(cls, role: MessageRole | str, text: str, *, id: str | None = None) -> "TextRecord":
        """Build a one-part text record.

        >>> TextRecord.of("assistant", "Done.", id="t2").text
        'Done.'
        """
        return cls(id=new_record_id() if id is None else id, role=role, parts=(TextPart(text),))  # type: ignore[arg-type]  # the check parses a role's name

    @property
    def text(self) -> str:
        """Return the parts' text joined together.

        >>> TextRecord(id="t", role=MessageRole.USER, parts=(TextPart("a"), TextPart("b"))).text
        'ab'
        """
        return "".join(part.text for part in self.parts)


def _reasoning_part(item: object) -> ReasoningPart:
    item = check_object(item)
    check_keys(item, _REASONING_KEYS)
    return reasoning_from_dict(item)


@record
@dataclass(frozen=True, slots=True, kw_only=True, repr=False)
class ReasoningRecord(Codec):
    """Hold the reasoning of one assistant turn, so the conversation replays it to the model's provider.

    >>> rec = ReasoningRecord.of([ReasoningPart("Check the units.", signature="EqQB", provider="anthropic")], id="r1")
    >>> rec
    ReasoningRecord(id='r1', parts=(ReasoningPart(text=<16 chars>, signature=<4 chars>, provider='anthropic'),))
    >>> rec.to_dict()["data"]
    {'parts': [{'type': 'reasoning', 'text': 'Check the units.', 'signature': 'EqQB', 'provider': 'anthropic'}]}

    The parts are the assistant message's ``reasoning`` (thinking blocks with their signatures,
    OpenAI reasoning items, Gemini thought parts and signatures, plain reasoning text). The
    context puts them on the assistant message of the turn the record belongs to: the text and
    tool requests that follow it, up to the next user-side record. A turn with reasoning but
    neither text nor a tool request renders without it (there is no message to carry it).
    """

    TYPE: ClassVar[str] = "reasoning"
    VERSION: ClassVar[int] = 1

    id: str = field(default_factory=new_record_id, metadata=ID)
    parts: tuple[ReasoningPart, ...] = field(
        metadata=row("parts", _parts, ReasoningPart, "a ReasoningPart", decode=each(_reasoning_part))
    )

    @classmethod
    def of(cls, parts: "tuple[ReasoningPart, ...] | list[ReasoningPart]", *, id: str | None = None) -> "ReasoningRecord":
        """Build a record of these parts (an assistant message's ``reasoning``)."""
        return cls(id=new_record_id() if id is None else id, parts=tuple(parts))
