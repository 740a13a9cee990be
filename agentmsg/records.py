"""Message records: what happened in a conversation, as tagged, versioned documents.

>>> ref = FileReference(id="r1", path="src/./app.py", start_line=3, end_line=4)
>>> ref.path, ref.status
('src/app.py', 'pending')
>>> doc = ref.to_dict()
>>> doc["type"], doc["version"], doc["id"], doc["data"]["path"]
('file_reference', 2, 'r1', 'src/app.py')
>>> decode(doc) == ref
True

Theory of operation. Every record encodes to one envelope::

    {"type": "<variant>", "version": <int >= 1>, "id": "<non-empty>", "data": {...}}

``decode`` reads the envelope, then, for a known ``type``, runs the migration steps registered
for ``(type, version)``, ``(type, version + 1)``... until the data is at the variant's current
``VERSION``, and builds the record from it. A ``type`` it does not know, or a version newer than
it knows, is kept as an ``UnknownRecord`` holding the document exactly (a warning is logged to
``agentmsg.records``), so a newer writer's records survive an older reader. Records do no I/O:
processors fill them in later through ``resolve``/``fail``-style methods that return an updated
copy. Ids are never generated while decoding; constructors default to ``new_record_id()``.
"""

import base64
import binascii
import logging
import re
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, ClassVar, Literal, TypeVar, Union, cast

from . import _approvals
from ._checks import (
    check_bool,
    check_branch_name,
    check_choice,
    check_float,
    check_int,
    check_items,
    check_keys,
    check_object,
    check_nonempty,
    check_str,
    count,
    expected,
    required,
    sized,
)
from ._fields import each, nested, wire, wired
from ._frozen import FrozenDict, freeze_json, thaw_json
from ._time import check_timestamp, format_timestamp, parse_timestamp
from .content import ImageSource, ReasoningPart, TextPart, reasoning_from_dict
from .errors import ValidationError
from .roles import MessageRole
from .tools import ToolCall

__all__ = [
    "FileReference",
    "ImageRecord",
    "McpResource",
    "ReasoningRecord",
    "Record",
    "RequestedToolCall",
    "SystemControl",
    "TextRecord",
    "ToolRequest",
    "ToolResultRecord",
    "UnknownRecord",
    "decode",
    "new_record_id",
]

_log = logging.getLogger(__name__)

Mode = Literal["plan", "act"]
MODES: tuple[Mode, ...] = ("plan", "act")
RecognitionMode = Literal["vision", "ocr", "auto"]
ImageState = Literal["pending", "recognized", "failed"]
FileStatus = Literal["pending", "resolved", "failed"]
Approval = Literal["pending", "approved", "denied"]
ResultStatus = Literal["success", "error"]
ControlKind = Literal["mode_change", "branch_switch"]
ResourceStatus = Literal["pending", "retrieved", "failed"]

_RECOGNITION_MODES: tuple[RecognitionMode, ...] = ("vision", "ocr", "auto")
_USED_MODES: tuple[Literal["vision", "ocr"], ...] = ("vision", "ocr")
_IMAGE_STATES: tuple[ImageState, ...] = ("pending", "recognized", "failed")
_FILE_STATUSES: tuple[FileStatus, ...] = ("pending", "resolved", "failed")
_APPROVALS: tuple[Approval, ...] = ("pending", "approved", "denied")
_RESULT_STATUSES: tuple[ResultStatus, ...] = ("success", "error")
_CONTROL_KINDS: tuple[ControlKind, ...] = ("mode_change", "branch_switch")
_RESOURCE_STATUSES: tuple[ResourceStatus, ...] = ("pending", "retrieved", "failed")
_TEXT_ROLES = (MessageRole.SYSTEM, MessageRole.USER, MessageRole.ASSISTANT)
_ENVELOPE_KEYS = frozenset({"type", "version", "id", "data"})
_URI = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:\S*")
_MIME = re.compile(r"[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*(\s*;.*)?")


def new_record_id() -> str:
    """Return a fresh random record id (32 lowercase hex digits).

    >>> rid = new_record_id()
    >>> len(rid), rid == rid.lower(), rid != new_record_id()
    (32, True, True)
    """
    return uuid.uuid4().hex


def _envelope(record_type: str, version: int, record_id: str, data: dict[str, Any]) -> dict[str, Any]:
    return {"type": record_type, "version": version, "id": record_id, "data": data}


def _put(data: dict[str, Any], key: str, value: Any) -> None:
    """Write an optional field only when it is set, so documents stay short."""
    if value is not None:
        data[key] = value


_ID = wire(None, check_nonempty)  # a record's id: from the envelope, checked when it was read
_RECORD = wired(decoder="_from_data", strict=True)  # records decode the envelope's data strictly


# --- text -----------------------------------------------------------------------------------


def _text_role(value: object, path: str) -> MessageRole:
    role = value if isinstance(value, MessageRole) else MessageRole.parse(check_str(value, path))
    if role not in _TEXT_ROLES:
        raise ValidationError("must be one of system, user, assistant", path, "value")
    return role


def _text_parts(value: object, path: str) -> tuple[TextPart, ...]:
    parts = check_items(value, path, TextPart, "a TextPart")
    if not parts:
        raise ValidationError("must hold at least one part", path, "value")
    return parts


def _text_part(item: object) -> TextPart:
    item = check_object(item)
    if check_str(required(item, "type"), "type") != "text":
        raise ValidationError("must be text (images are image records)", "type", "value")
    check_keys(item, frozenset({"type", "text"}))
    return TextPart(check_str(required(item, "text"), "text"))


@_RECORD
@dataclass(frozen=True, slots=True, kw_only=True)
class TextRecord:
    """Hold what a user, the assistant or the system said, as one or more text parts.

    >>> rec = TextRecord.of("user", "Summarize the file.", id="t1")
    >>> rec
    TextRecord(id='t1', role='user', parts=1, text=<19 chars>)
    >>> rec.to_dict()
    {'type': 'text', 'version': 1, 'id': 't1', 'data': {'role': 'user', 'parts': [{'type': 'text', 'text': 'Summarize the file.'}]}}
    """

    TYPE: ClassVar[str] = "text"
    VERSION: ClassVar[int] = 1

    id: str = field(default_factory=new_record_id, metadata=_ID)
    role: MessageRole = field(metadata=wire("role", _text_role))
    parts: tuple[TextPart, ...] = field(metadata=wire("parts", _text_parts, decode=each(_text_part)))
    _from_data: ClassVar[Callable[[str, Mapping[str, Any]], "TextRecord"]]

    @classmethod
    def of(cls, role: MessageRole | str, text: str, *, id: str | None = None) -> "TextRecord":
        """Build a one-part text record.

        >>> TextRecord.of("assistant", "Done.", id="t2").text
        'Done.'
        """
        return cls(id=new_record_id() if id is None else id, role=role, parts=(TextPart(text),))  # type: ignore[arg-type]

    @property
    def text(self) -> str:
        """Return the parts' text joined together.

        >>> TextRecord(id="t", role=MessageRole.USER, parts=(TextPart("a"), TextPart("b"))).text
        'ab'
        """
        return "".join(part.text for part in self.parts)

    def __repr__(self) -> str:
        return f"TextRecord(id={self.id!r}, role={str(self.role)!r}, parts={len(self.parts)}, text={sized(self.text)})"

    def to_dict(self) -> dict[str, Any]:
        """Encode as an envelope (see the module docstring).

        >>> TextRecord.of("system", "Be brief.", id="t").to_dict()["data"]["role"]
        'system'
        """
        data = {"role": str(self.role), "parts": [part.to_dict() for part in self.parts]}
        return _envelope(self.TYPE, self.VERSION, self.id, data)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], /) -> "TextRecord":
        """Decode an envelope of this type (older versions are migrated).

        >>> try:
        ...     TextRecord.from_dict({"type": "text", "version": 1, "id": "t", "data": {"role": "user"}})
        ... except ValidationError as exc:
        ...     print(exc)
        data.parts: is required
        """
        return _decode_as(cls, data)


# --- reasoning ------------------------------------------------------------------------------


def _reasoning_parts(value: object, path: str) -> tuple[ReasoningPart, ...]:
    parts = check_items(value, path, ReasoningPart, "a ReasoningPart")
    if not parts:
        raise ValidationError("must hold at least one part", path, "value")
    return parts


def _reasoning_part(item: object) -> ReasoningPart:
    item = check_object(item)
    check_keys(item, frozenset({"type", "text", "signature", "redacted", "provider", "id", "anchor"}))
    return reasoning_from_dict(item)


@_RECORD
@dataclass(frozen=True, slots=True, kw_only=True)
class ReasoningRecord:
    """Hold the reasoning of one assistant turn, so the conversation replays it to the model's provider.

    >>> rec = ReasoningRecord.of([ReasoningPart("Check the units.", signature="EqQB", provider="anthropic")], id="r1")
    >>> rec
    ReasoningRecord(id='r1', parts=1, text=<16 chars>)
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

    id: str = field(default_factory=new_record_id, metadata=_ID)
    parts: tuple[ReasoningPart, ...] = field(metadata=wire("parts", _reasoning_parts, decode=each(_reasoning_part)))
    _from_data: ClassVar[Callable[[str, Mapping[str, Any]], "ReasoningRecord"]]

    @classmethod
    def of(cls, parts: "tuple[ReasoningPart, ...] | list[ReasoningPart]", *, id: str | None = None) -> "ReasoningRecord":
        """Build a record of these parts (an assistant message's ``reasoning``)."""
        return cls(id=new_record_id() if id is None else id, parts=tuple(parts))

    def __repr__(self) -> str:
        text = sum(len(part.text) for part in self.parts)
        return f"ReasoningRecord(id={self.id!r}, parts={len(self.parts)}, text={count(text, 'char')})"

    def to_dict(self) -> dict[str, Any]:
        """Encode as an envelope (see the module docstring)."""
        return _envelope(self.TYPE, self.VERSION, self.id, {"parts": [part.to_dict() for part in self.parts]})

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], /) -> "ReasoningRecord":
        """Decode an envelope of this type.

        >>> try:
        ...     ReasoningRecord.from_dict({"type": "reasoning", "version": 1, "id": "r", "data": {"parts": [
        ...         {"type": "reasoning", "signature": "EqQB"}]}})
        ... except ValidationError as exc:
        ...     print(exc)
        data.parts[0].provider: is required beside a signature, an id, an anchor or redacted
        """
        return _decode_as(cls, data)


# --- image ----------------------------------------------------------------------------------


_IMAGE_RESULTS = ("recognized_by", "analysis", "text", "confidence", "language")  # set only when recognized
_NO_RESULTS: dict[str, Any] = dict.fromkeys(_IMAGE_RESULTS)


def _image_source(value: object, path: str) -> ImageSource:
    if not isinstance(value, ImageSource):
        raise expected("an ImageSource", value, path)
    return value


def _source_from_dict(value: object) -> ImageSource:
    return ImageSource.from_dict(check_object(value))


@_RECORD
@dataclass(frozen=True, slots=True, kw_only=True)
class ImageRecord:
    """Hold an image, how it should be recognised, and (once processed) what was recognised.

    ``mode`` asks for ``vision`` (send the image to the model), ``ocr`` (send the recognised
    text) or ``auto`` (the processor decides; ``recognized_by`` says which it used).

    >>> img = ImageRecord(id="i1", source=ImageSource.from_url("https://example.com/a.png"), mode="ocr")
    >>> done = img.with_ocr("Total: 42", confidence=0.93, language="en")
    >>> done.state, done.recognized_by, done.confidence
    ('recognized', 'ocr', 0.93)
    >>> done
    ImageRecord(id='i1', source='url', mode='ocr', state='recognized', recognized_by='ocr', text=<9 chars>)
    """

    TYPE: ClassVar[str] = "image"
    VERSION: ClassVar[int] = 1

    id: str = field(default_factory=new_record_id, metadata=_ID)
    source: ImageSource = field(metadata=wire("source", _image_source, decode=nested(_source_from_dict)))
    mode: RecognitionMode = field(default="auto", metadata=wire("mode", check_choice, _RECOGNITION_MODES))
    state: ImageState = field(default="pending", metadata=wire("state", check_choice, _IMAGE_STATES))
    recognized_by: Literal["vision", "ocr"] | None = field(
        default=None, metadata=wire("recognized_by", check_choice, _USED_MODES, optional=True)
    )
    analysis: str | None = field(default=None, metadata=wire("analysis", check_str, optional=True))
    text: str | None = field(default=None, metadata=wire("text", check_str, optional=True))
    confidence: float | None = field(
        default=None, metadata=wire("confidence", check_float, optional=True, minimum=0.0, maximum=1.0)
    )
    language: str | None = field(default=None, metadata=wire("language", check_nonempty, optional=True))
    error: str | None = field(default=None, metadata=wire("error", check_nonempty, optional=True))
    _from_data: ClassVar[Callable[[str, Mapping[str, Any]], "ImageRecord"]]

    def __post_init__(self) -> None:
        state = self.state
        if state != "recognized":
            for name in _IMAGE_RESULTS:
                if getattr(self, name) is not None:
                    raise ValidationError("must be absent unless state is recognized", name, "value")
        if state != "failed" and self.error is not None:
            raise ValidationError("must be absent unless state is failed", "error", "value")
        if state == "failed" and self.error is None:
            raise ValidationError("is required when state is failed", "error", "missing")
        if state == "recognized":
            if self.recognized_by is None:
                raise ValidationError("is required when state is recognized", "recognized_by", "missing")
            if self.mode != "auto" and self.recognized_by != self.mode:
                raise ValidationError("must match the requested mode", "recognized_by", "value")
            if self.recognized_by == "ocr" and self.text is None:
                raise ValidationError("is required when recognized_by is ocr", "text", "missing")
            if self.recognized_by == "vision" and (self.text is not None or self.confidence is not None):
                name = "text" if self.text is not None else "confidence"
                raise ValidationError("must be absent when recognized_by is vision", name, "value")

    def with_vision(
        self, analysis: str | None = None, *, language: str | None = None, source: ImageSource | None = None
    ) -> "ImageRecord":
        """Return a copy recognised by vision (optionally with the model's analysis and a new source).

        >>> img = ImageRecord(id="i", source=ImageSource.from_path("shot.png"))
        >>> img.with_vision("A login form.").recognized_by
        'vision'
        """
        return replace(
            self,
            state="recognized",
            recognized_by="vision",
            analysis=analysis,
            language=language,
            source=self.source if source is None else source,
            error=None,
        )

    def with_ocr(
        self, text: str, *, confidence: float | None = None, language: str | None = None
    ) -> "ImageRecord":
        """Return a copy recognised by OCR, with the recognised text and its metadata.

        >>> ImageRecord(id="i", source=ImageSource.from_path("a.png")).with_ocr("hi").text
        'hi'
        """
        return replace(
            self,
            state="recognized",
            recognized_by="ocr",
            text=text,
            confidence=confidence,
            language=language,
            analysis=None,
            error=None,
        )

    def fail(self, error: str) -> "ImageRecord":
        """Return a copy whose recognition failed with ``error`` (clears any results).

        >>> ImageRecord(id="i", source=ImageSource.from_path("a.png")).fail("unreadable").state
        'failed'
        """
        return replace(self, state="failed", error=error, **_NO_RESULTS)

    def __repr__(self) -> str:
        extra = ""
        if self.recognized_by is not None:
            extra = f", recognized_by={self.recognized_by!r}"
        if self.text is not None:
            extra += f", text={sized(self.text)}"
        if self.analysis is not None:
            extra += f", analysis={sized(self.analysis)}"
        return (
            f"ImageRecord(id={self.id!r}, source={self.source.type!r}, mode={self.mode!r}, "
            f"state={self.state!r}{extra})"
        )

    def to_dict(self) -> dict[str, Any]:
        """Encode as an envelope; unset results are left out.

        >>> ImageRecord(id="i", source=ImageSource.from_path("a.png")).to_dict()["data"]
        {'source': {'type': 'file', 'path': 'a.png'}, 'mode': 'auto', 'state': 'pending'}
        """
        data: dict[str, Any] = {"source": self.source.to_dict(), "mode": self.mode, "state": self.state}
        _put(data, "recognized_by", self.recognized_by)
        _put(data, "analysis", self.analysis)
        _put(data, "text", self.text)
        _put(data, "confidence", self.confidence)
        _put(data, "language", self.language)
        _put(data, "error", self.error)
        return _envelope(self.TYPE, self.VERSION, self.id, data)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], /) -> "ImageRecord":
        """Decode an envelope of this type.

        >>> try:
        ...     ImageRecord.from_dict({"type": "image", "version": 1, "id": "i",
        ...         "data": {"source": {"type": "file", "path": "a.png"}, "state": "failed"}})
        ... except ValidationError as exc:
        ...     print(exc)
        data.error: is required when state is failed
        """
        return _decode_as(cls, data)


# --- file reference -------------------------------------------------------------------------


_CANONICAL_PATH = re.compile(r"/?(?!\.\.?(?:/|$))[^/\x00]+(?:/(?!\.\.?(?:/|$))[^/\x00]+)*")


def _normalize_path(value: object, at: str) -> str:
    """Normalize a relative or absolute POSIX path, refusing one that climbs out with ``..``."""
    path = check_nonempty(value, at)
    if _CANONICAL_PATH.fullmatch(path):
        return path  # already normalized: the common case, one regex
    if "\x00" in path:
        raise ValidationError("must not contain NUL characters", at, "value")
    absolute = path.startswith("/")
    parts: list[str] = []
    for segment in path.split("/"):
        if segment in ("", "."):
            continue
        if segment == "..":
            if not parts:
                raise ValidationError("must not climb out of its root with '..'", at, "value")
            parts.pop()
        else:
            parts.append(segment)
    if not parts:
        raise ValidationError("must name a file, not the root directory", at, "value")
    return ("/" if absolute else "") + "/".join(parts)


@_RECORD
@dataclass(frozen=True, slots=True, kw_only=True)
class FileReference:
    """Point at a file (optionally lines ``start_line``..``end_line``, 1-indexed, inclusive).

    The path is normalized without touching the disk (``a/./b//c`` -> ``a/b/c``) and may not
    climb out with ``..``. ``start_line`` alone means "to the end of the file". A processor
    reads the file and returns ``ref.resolve(content)`` (the text of the referenced lines) or
    ``ref.fail(error)``.

    >>> ref = FileReference(id="f1", path="src/app.py", start_line=10, end_line=12)
    >>> ref.resolve("a\\nb\\nc").status
    'resolved'
    >>> try:
    ...     FileReference(id="f2", path="src/../../etc/passwd")
    ... except ValidationError as exc:
    ...     print(exc)
    path: must not climb out of its root with '..'
    """

    TYPE: ClassVar[str] = "file_reference"
    VERSION: ClassVar[int] = 2

    id: str = field(default_factory=new_record_id, metadata=_ID)
    path: str = field(metadata=wire("path", _normalize_path))
    start_line: int | None = field(default=None, metadata=wire("start_line", check_int, optional=True, minimum=1))
    end_line: int | None = field(default=None, metadata=wire("end_line", check_int, optional=True, minimum=1))
    status: FileStatus = field(default="pending", metadata=wire("status", check_choice, _FILE_STATUSES, required=True))
    content: str | None = field(default=None, metadata=wire("content", check_str, optional=True))
    error: str | None = field(default=None, metadata=wire("error", check_nonempty, optional=True))
    _from_data: ClassVar[Callable[[str, Mapping[str, Any]], "FileReference"]]

    def __post_init__(self) -> None:
        if self.end_line is not None:
            if self.start_line is None:
                raise ValidationError("is required when end_line is given", "start_line", "missing")
            if self.end_line < self.start_line:
                raise ValidationError("must not be before start_line", "end_line", "value")
        status = self.status
        if status == "resolved" and self.content is None:
            raise ValidationError("is required when status is resolved", "content", "missing")
        if status != "resolved" and self.content is not None:
            raise ValidationError("must be absent unless status is resolved", "content", "value")
        if status == "failed" and self.error is None:
            raise ValidationError("is required when status is failed", "error", "missing")
        if status != "failed" and self.error is not None:
            raise ValidationError("must be absent unless status is failed", "error", "value")

    def resolve(self, content: str) -> "FileReference":
        """Return a resolved copy holding ``content`` (the referenced lines' text).

        >>> FileReference(id="f", path="a.txt").resolve("hello").content
        'hello'
        """
        return replace(self, status="resolved", content=content, error=None)

    def fail(self, error: str) -> "FileReference":
        """Return a failed copy with ``error`` (no content).

        >>> FileReference(id="f", path="a.txt").fail("no such file").error
        'no such file'
        """
        return replace(self, status="failed", content=None, error=error)

    @property
    def lines(self) -> str:
        """Describe the referenced range (``"all"``, ``"10-"``, ``"10-12"``).

        >>> FileReference(id="f", path="a", start_line=3).lines
        '3-'
        """
        if self.start_line is None:
            return "all"
        return f"{self.start_line}-{'' if self.end_line is None else self.end_line}"

    def __repr__(self) -> str:
        return (
            f"FileReference(id={self.id!r}, path={sized(self.path)}, lines={self.lines!r}, "
            f"status={self.status!r}, content={sized(self.content)})"
        )

    def to_dict(self) -> dict[str, Any]:
        """Encode as an envelope; unset fields are left out.

        >>> FileReference(id="f", path="a.py").fail("gone").to_dict()["data"]
        {'path': 'a.py', 'status': 'failed', 'error': 'gone'}
        """
        data: dict[str, Any] = {"path": self.path}
        _put(data, "start_line", self.start_line)
        _put(data, "end_line", self.end_line)
        data["status"] = self.status
        _put(data, "content", self.content)
        _put(data, "error", self.error)
        return _envelope(self.TYPE, self.VERSION, self.id, data)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], /) -> "FileReference":
        """Decode an envelope of this type; version 1 documents are migrated.

        >>> v1 = {"type": "file_reference", "version": 1, "id": "f",
        ...       "data": {"path": "a.py", "lines": "10-20", "resolved": False}}
        >>> ref = FileReference.from_dict(v1)
        >>> ref.start_line, ref.end_line, ref.status
        (10, 20, 'pending')
        """
        return _decode_as(cls, data)


# --- tool request ---------------------------------------------------------------------------


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


@wired(strict=True)
@dataclass(frozen=True, slots=True, kw_only=True)
class RequestedToolCall:
    """Pair a tool call the model asked for with its approval (pending, approved or denied).

    >>> item = RequestedToolCall(call=ToolCall("c1", "read_file", {"path": "a.py"}))
    >>> item.approval, item.id, item.name
    ('pending', 'c1', 'read_file')

    ``from_dict`` reads ``{"id", "name", "arguments", "approval"}``, every key required:

    >>> try:
    ...     RequestedToolCall.from_dict({"id": "c1", "name": "ls", "arguments": {}})
    ... except ValidationError as exc:
    ...     print(exc)
    approval: is required
    """

    call: ToolCall = field(metadata=wire(("id", "name", "arguments"), _tool_call, decode=_call_from_dict))
    approval: Approval = field(default="pending", metadata=wire("approval", check_choice, _APPROVALS, required=True))
    from_dict: ClassVar[Callable[[Mapping[str, Any]], "RequestedToolCall"]]

    @property
    def id(self) -> str:
        """Return the tool call's id."""
        return self.call.id

    @property
    def name(self) -> str:
        """Return the tool's name."""
        return self.call.name

    def __repr__(self) -> str:
        return f"RequestedToolCall(id={self.call.id!r}, name={self.call.name!r}, approval={self.approval!r})"

    def to_dict(self) -> dict[str, Any]:
        """Encode as the tool call's fields plus ``approval``.

        >>> RequestedToolCall(call=ToolCall("c1", "ls", {}), approval="denied").to_dict()
        {'id': 'c1', 'name': 'ls', 'arguments': {}, 'approval': 'denied'}
        """
        data = self.call.to_dict()
        data["approval"] = self.approval
        return data


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


@_RECORD
@dataclass(frozen=True, slots=True, kw_only=True)
class ToolRequest:
    """Hold the tool calls one assistant turn asked for, each with its own approval.

    >>> req = ToolRequest.of([ToolCall("c1", "read_file", {"path": "a.py"}), ToolCall("c2", "ls", {})], id="q1")
    >>> req.approve("c1").deny("c2").approvals
    ('approved', 'denied')
    >>> req
    ToolRequest(id='q1', calls=2, pending=2)
    """

    TYPE: ClassVar[str] = "tool_request"
    VERSION: ClassVar[int] = 1

    id: str = field(default_factory=new_record_id, metadata=_ID)
    calls: tuple[RequestedToolCall, ...] = field(
        metadata=wire("calls", _requested_calls, decode=each(RequestedToolCall.from_dict))
    )
    _from_data: ClassVar[Callable[[str, Mapping[str, Any]], "ToolRequest"]]

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

    def __repr__(self) -> str:
        pending = sum(1 for item in self.calls if item.approval == "pending")
        return f"ToolRequest(id={self.id!r}, calls={len(self.calls)}, pending={pending})"

    def to_dict(self) -> dict[str, Any]:
        """Encode as an envelope.

        >>> ToolRequest.of([ToolCall("c1", "ls", {})], id="q").to_dict()["data"]
        {'calls': [{'id': 'c1', 'name': 'ls', 'arguments': {}, 'approval': 'pending'}]}
        """
        return _envelope(self.TYPE, self.VERSION, self.id, {"calls": [item.to_dict() for item in self.calls]})

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], /) -> "ToolRequest":
        """Decode an envelope of this type.

        >>> try:
        ...     ToolRequest.from_dict({"type": "tool_request", "version": 1, "id": "q", "data": {"calls": [
        ...         {"id": "c1", "name": "bad name", "arguments": {}, "approval": "pending"}]}})
        ... except ValidationError as exc:
        ...     print(exc)
        data.calls[0].name: must be 1-64 characters of letters, digits and underscores
        """
        return _decode_as(cls, data)


# --- tool result ----------------------------------------------------------------------------


@_RECORD
@dataclass(frozen=True, slots=True, kw_only=True)
class ToolResultRecord:
    """Hold the outcome of one tool call: structured output, or an error, and how it ran.

    ``output`` is any JSON value (deep-frozen). On error, ``error`` is the message,
    ``stack_trace`` is kept when available (never sent to a model) and ``recoverable`` says
    whether retrying may help. ``duration_seconds`` and ``finished_at`` describe the run.

    >>> from datetime import datetime, timezone
    >>> res = ToolResultRecord.success("c1", {"lines": 3}, id="r1", duration_seconds=0.25,
    ...                                finished_at=datetime(2026, 11, 25, 10, tzinfo=timezone.utc))
    >>> res.to_dict()["data"]
    {'tool_call_id': 'c1', 'status': 'success', 'output': {'lines': 3}, 'duration_seconds': 0.25, 'finished_at': '2026-11-25T10:00:00Z'}
    """

    TYPE: ClassVar[str] = "tool_result"
    VERSION: ClassVar[int] = 1

    id: str = field(default_factory=new_record_id, metadata=_ID)
    tool_call_id: str = field(metadata=wire("tool_call_id", check_nonempty))
    status: ResultStatus = field(metadata=wire("status", check_choice, _RESULT_STATUSES))
    output: Any = field(default=None, metadata=wire("output", freeze_json))
    error: str | None = field(default=None, metadata=wire("error", check_nonempty, optional=True))
    stack_trace: str | None = field(default=None, metadata=wire("stack_trace", check_str, optional=True))
    recoverable: bool = field(default=False, metadata=wire("recoverable", check_bool))
    duration_seconds: float | None = field(
        default=None, metadata=wire("duration_seconds", check_float, optional=True, minimum=0.0)
    )
    finished_at: datetime | None = field(
        default=None, metadata=wire("finished_at", check_timestamp, optional=True, decode=parse_timestamp)
    )
    _from_data: ClassVar[Callable[[str, Mapping[str, Any]], "ToolResultRecord"]]

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

    def __repr__(self) -> str:
        return (
            f"ToolResultRecord(id={self.id!r}, tool_call_id={self.tool_call_id!r}, status={self.status!r}, "
            f"recoverable={self.recoverable}, duration_seconds={self.duration_seconds})"
        )

    def to_dict(self) -> dict[str, Any]:
        """Encode as an envelope; unset fields (and ``recoverable=False``) are left out.

        >>> ToolResultRecord.failure("c1", "boom", id="r").to_dict()["data"]
        {'tool_call_id': 'c1', 'status': 'error', 'error': 'boom'}
        """
        data: dict[str, Any] = {"tool_call_id": self.tool_call_id, "status": self.status}
        if self.output is not None:
            data["output"] = thaw_json(self.output)
        _put(data, "error", self.error)
        _put(data, "stack_trace", self.stack_trace)
        if self.recoverable:
            data["recoverable"] = True
        _put(data, "duration_seconds", self.duration_seconds)
        if self.finished_at is not None:
            data["finished_at"] = format_timestamp(self.finished_at)
        return _envelope(self.TYPE, self.VERSION, self.id, data)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], /) -> "ToolResultRecord":
        """Decode an envelope of this type.

        >>> try:
        ...     ToolResultRecord.from_dict({"type": "tool_result", "version": 1, "id": "r",
        ...         "data": {"tool_call_id": "c1", "status": "success", "finished_at": "yesterday"}})
        ... except ValidationError as exc:
        ...     print(exc)
        data.finished_at: expected an RFC 3339 timestamp with an offset
        """
        return _decode_as(cls, data)


# --- system control -------------------------------------------------------------------------


@_RECORD
@dataclass(frozen=True, slots=True, kw_only=True)
class SystemControl:
    """Record a mode change (``plan``/``act``) or a branch switch, for audit; never sent to a model.

    >>> SystemControl.mode_change("plan", "act", id="s1")
    SystemControl(id='s1', kind='mode_change', old='plan', new='act')
    >>> try:
    ...     SystemControl(id="s2", kind="mode_change", old="plan", new="run")
    ... except ValidationError as exc:
    ...     print(exc)
    new: must be one of plan, act
    """

    TYPE: ClassVar[str] = "system_control"
    VERSION: ClassVar[int] = 1

    # old and new depend on kind: __post_init__ checks them.
    id: str = field(default_factory=new_record_id, metadata=_ID)
    kind: ControlKind = field(metadata=wire("kind", check_choice, _CONTROL_KINDS))
    old: str = field(metadata=wire("old"))
    new: str = field(metadata=wire("new"))
    _from_data: ClassVar[Callable[[str, Mapping[str, Any]], "SystemControl"]]

    def __post_init__(self) -> None:
        if self.kind == "mode_change":
            check_choice(self.old, "old", MODES)
            check_choice(self.new, "new", MODES)
        else:
            check_branch_name(self.old, "old")
            check_branch_name(self.new, "new")
        if self.old == self.new:
            raise ValidationError("must differ from old", "new", "value")

    @classmethod
    def mode_change(cls, old: Mode, new: Mode, *, id: str | None = None) -> "SystemControl":
        """Build a mode-change record.

        >>> SystemControl.mode_change("act", "plan", id="s").new
        'plan'
        """
        return cls(id=new_record_id() if id is None else id, kind="mode_change", old=old, new=new)

    @classmethod
    def branch_switch(cls, old: str, new: str, *, id: str | None = None) -> "SystemControl":
        """Build a branch-switch record.

        >>> SystemControl.branch_switch("main", "retry", id="s").to_dict()["data"]
        {'kind': 'branch_switch', 'old': 'main', 'new': 'retry'}
        """
        return cls(id=new_record_id() if id is None else id, kind="branch_switch", old=old, new=new)

    def __repr__(self) -> str:
        return f"SystemControl(id={self.id!r}, kind={self.kind!r}, old={self.old!r}, new={self.new!r})"

    def to_dict(self) -> dict[str, Any]:
        """Encode as an envelope.

        >>> SystemControl.mode_change("act", "plan", id="s").to_dict()
        {'type': 'system_control', 'version': 1, 'id': 's', 'data': {'kind': 'mode_change', 'old': 'act', 'new': 'plan'}}
        """
        return _envelope(self.TYPE, self.VERSION, self.id, {"kind": self.kind, "old": self.old, "new": self.new})

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], /) -> "SystemControl":
        """Decode an envelope of this type.

        >>> try:
        ...     SystemControl.from_dict({"type": "system_control", "version": 1, "id": "s",
        ...         "data": {"kind": "branch_switch", "old": "main", "new": "main"}})
        ... except ValidationError as exc:
        ...     print(exc)
        data.new: must differ from old
        """
        return _decode_as(cls, data)


# --- MCP resource ---------------------------------------------------------------------------


def _uri(value: object, path: str) -> str:
    uri = check_nonempty(value, path)
    if not _URI.fullmatch(uri):
        raise ValidationError("must be a URI with a scheme", path, "pattern")
    return uri


def _base64(value: object, path: str) -> str:
    text = check_str(value, path)
    try:
        base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise ValidationError("must be base64", path, "pattern") from None
    return text


def _mime_type(value: object, path: str) -> str:
    text = check_str(value, path)
    if not _MIME.fullmatch(text):
        raise ValidationError("must be a MIME type like text/plain", path, "pattern")
    return text


@_RECORD
@dataclass(frozen=True, slots=True, kw_only=True)
class McpResource:
    """Hold a resource from an MCP server: text, or base64 ``blob`` for binary content.

    A processor fetches it and returns ``res.retrieve(...)`` (with ``retrieved_at``) or
    ``res.fail(error)``; the MIME type is kept when the server gives one.

    >>> from datetime import datetime, timezone
    >>> res = McpResource(id="m1", server="docs", uri="file:///project/README.md")
    >>> got = res.retrieve(text="# Project", mime_type="text/markdown",
    ...                    retrieved_at=datetime(2026, 11, 25, 10, tzinfo=timezone.utc))
    >>> got
    McpResource(id='m1', server='docs', uri=<25 chars>, status='retrieved', text=<9 chars>, blob=None)
    """

    TYPE: ClassVar[str] = "mcp_resource"
    VERSION: ClassVar[int] = 1

    id: str = field(default_factory=new_record_id, metadata=_ID)
    server: str = field(metadata=wire("server", check_nonempty))
    uri: str = field(metadata=wire("uri", _uri))
    status: ResourceStatus = field(
        default="pending", metadata=wire("status", check_choice, _RESOURCE_STATUSES, required=True)
    )
    text: str | None = field(default=None, metadata=wire("text", check_str, optional=True))
    blob: str | None = field(default=None, metadata=wire("blob", _base64, optional=True))
    mime_type: str | None = field(default=None, metadata=wire("mime_type", _mime_type, optional=True))
    retrieved_at: datetime | None = field(
        default=None, metadata=wire("retrieved_at", check_timestamp, optional=True, decode=parse_timestamp)
    )
    error: str | None = field(default=None, metadata=wire("error", check_nonempty, optional=True))
    _from_data: ClassVar[Callable[[str, Mapping[str, Any]], "McpResource"]]

    def __post_init__(self) -> None:
        status = self.status
        if status == "retrieved":
            if (self.text is None) == (self.blob is None):
                raise ValidationError("exactly one of text and blob is required", "text", "value")
            if self.retrieved_at is None:
                raise ValidationError("is required when status is retrieved", "retrieved_at", "missing")
        else:
            for name in ("text", "blob"):
                if getattr(self, name) is not None:
                    raise ValidationError("must be absent unless status is retrieved", name, "value")
        if status == "failed" and self.error is None:
            raise ValidationError("is required when status is failed", "error", "missing")
        if status != "failed" and self.error is not None:
            raise ValidationError("must be absent unless status is failed", "error", "value")
        if status == "pending" and self.retrieved_at is not None:
            raise ValidationError("must be absent when status is pending", "retrieved_at", "value")

    def retrieve(
        self,
        *,
        retrieved_at: datetime,
        text: str | None = None,
        blob: str | None = None,
        mime_type: str | None = None,
    ) -> "McpResource":
        """Return a retrieved copy holding ``text`` or ``blob`` (exactly one).

        >>> from datetime import datetime, timezone
        >>> try:
        ...     McpResource(id="m", server="s", uri="x:y").retrieve(text="t", retrieved_at=datetime.now()).status
        ... except ValidationError as exc:
        ...     print(exc)
        retrieved_at: datetime must be timezone-aware
        """
        return replace(
            self,
            status="retrieved",
            text=text,
            blob=blob,
            mime_type=self.mime_type if mime_type is None else mime_type,
            retrieved_at=retrieved_at,
            error=None,
        )

    def fail(self, error: str, *, retrieved_at: datetime | None = None) -> "McpResource":
        """Return a failed copy with ``error`` (``retrieved_at`` may say when it was tried).

        >>> McpResource(id="m", server="s", uri="x:y").fail("not found").status
        'failed'
        """
        return replace(self, status="failed", text=None, blob=None, retrieved_at=retrieved_at, error=error)

    def __repr__(self) -> str:
        return (
            f"McpResource(id={self.id!r}, server={self.server!r}, uri={sized(self.uri)}, "
            f"status={self.status!r}, text={sized(self.text)}, blob={sized(self.blob)})"
        )

    def to_dict(self) -> dict[str, Any]:
        """Encode as an envelope; unset fields are left out.

        >>> McpResource(id="m", server="docs", uri="docs://a").to_dict()["data"]
        {'server': 'docs', 'uri': 'docs://a', 'status': 'pending'}
        """
        data: dict[str, Any] = {"server": self.server, "uri": self.uri, "status": self.status}
        _put(data, "text", self.text)
        _put(data, "blob", self.blob)
        _put(data, "mime_type", self.mime_type)
        if self.retrieved_at is not None:
            data["retrieved_at"] = format_timestamp(self.retrieved_at)
        _put(data, "error", self.error)
        return _envelope(self.TYPE, self.VERSION, self.id, data)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], /) -> "McpResource":
        """Decode an envelope of this type.

        >>> try:
        ...     McpResource.from_dict({"type": "mcp_resource", "version": 1, "id": "m",
        ...         "data": {"server": "s", "uri": "file:///a", "status": "retrieved", "text": "x"}})
        ... except ValidationError as exc:
        ...     print(exc)
        data.retrieved_at: is required when status is retrieved
        """
        return _decode_as(cls, data)


# --- unknown --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class UnknownRecord:
    """Keep a record this version cannot read (unknown type, or a newer version) exactly as it was.

    >>> rec = UnknownRecord({"type": "poll", "version": 3, "id": "p1", "data": {"options": ["a", "b"]}})
    >>> rec.type, rec.version, rec.id
    ('poll', 3, 'p1')
    >>> rec.to_dict()
    {'type': 'poll', 'version': 3, 'id': 'p1', 'data': {'options': ['a', 'b']}}
    """

    document: FrozenDict

    def __post_init__(self) -> None:
        check_object(self.document)
        check_nonempty(required(self.document, "type"), "type")  # the rest is the newer writer's business
        object.__setattr__(self, "document", freeze_json(self.document))

    @property
    def type(self) -> str:
        """Return the document's ``type`` tag."""
        value: str = self.document["type"]
        return value

    @property
    def version(self) -> int | None:
        """Return the document's ``version`` (None when it has none, or not an integer)."""
        value = self.document.get("version")
        return value if type(value) is int else None

    @property
    def id(self) -> str | None:
        """Return the document's ``id`` (None when it has none, or not a string)."""
        value = self.document.get("id")
        return value if type(value) is str else None

    def __repr__(self) -> str:
        shown = None if self.id is None else self.id[:64]
        return f"UnknownRecord(id={shown!r}, type={self.type[:40]!r}, version={self.version})"

    def to_dict(self) -> dict[str, Any]:
        """Return the original document, unchanged (a fresh, mutable copy).

        >>> doc = {"type": "x", "version": 1, "id": "u", "data": {"k": [1]}}
        >>> UnknownRecord(doc).to_dict() == doc
        True
        """
        result: dict[str, Any] = thaw_json(self.document)
        return result

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], /) -> "UnknownRecord":
        """Keep any JSON object with a ``type`` as it is: an unknown type must never fail.

        >>> UnknownRecord.from_dict({"type": "poll", "version": 1, "data": {}})
        UnknownRecord(id=None, type='poll', version=1)
        >>> try:
        ...     UnknownRecord.from_dict({"version": 1})
        ... except ValidationError as exc:
        ...     print(exc)
        type: is required
        """
        return cls(check_object(data))  # type: ignore[arg-type]


Record = Union[
    TextRecord,
    ReasoningRecord,
    ImageRecord,
    FileReference,
    ToolRequest,
    ToolResultRecord,
    SystemControl,
    McpResource,
    UnknownRecord,
]
"""Any record ``decode`` can return."""

_KnownRecord = Union[
    TextRecord, ReasoningRecord, ImageRecord, FileReference, ToolRequest, ToolResultRecord, SystemControl, McpResource
]
_R = TypeVar(
    "_R", TextRecord, ReasoningRecord, ImageRecord, FileReference, ToolRequest, ToolResultRecord, SystemControl, McpResource
)

RECORD_TYPES: "Mapping[str, type[_KnownRecord]]" = FrozenDict(
    {
        cls.TYPE: cls
        for cls in (
            TextRecord, ReasoningRecord, ImageRecord, FileReference, ToolRequest, ToolResultRecord, SystemControl, McpResource
        )
    }
)
"""The known record classes by their ``type`` tag (each has ``TYPE`` and current ``VERSION``)."""


# --- migrations -----------------------------------------------------------------------------

Migration = Callable[[dict[str, Any]], dict[str, Any]]
_MIGRATIONS: dict[tuple[str, int], Migration] = {}
"""Steps by (type, from_version): each takes that version's ``data`` and returns the next one's."""


def _migration(record_type: str, from_version: int) -> Callable[[Migration], Migration]:
    def register(step: Migration) -> Migration:
        _MIGRATIONS[(record_type, from_version)] = step
        return step

    return register


_V1_LINES = re.compile(r"([0-9]{1,9})(?:-([0-9]{1,9}))?", re.ASCII)


@_migration("file_reference", 1)
def _file_reference_v1(data: dict[str, Any]) -> dict[str, Any]:
    """v1 had ``"lines": "10-20"`` (or ``"10"``) and ``"resolved": bool``; v2 has line numbers and a status."""
    check_keys(data, frozenset({"path", "lines", "resolved", "content"}))
    resolved = check_bool(required(data, "resolved"), "resolved")
    upgraded: dict[str, Any] = {"path": required(data, "path")}
    lines = data.get("lines")
    if lines is not None:
        match = _V1_LINES.fullmatch(check_str(lines, "lines"))
        if match is None:
            raise ValidationError("must look like 10 or 10-20", "lines", "pattern")
        upgraded["start_line"] = int(match.group(1))
        upgraded["end_line"] = int(match.group(2) or match.group(1))
    upgraded["status"] = "resolved" if resolved else "pending"
    if resolved:
        upgraded["content"] = data.get("content")
    elif data.get("content") is not None:
        raise ValidationError("must be absent unless resolved", "content", "value")
    return upgraded


# --- decoding -------------------------------------------------------------------------------


def _read_envelope(document: Mapping[str, Any]) -> tuple[str, int, str, Mapping[str, Any]]:
    record_type = check_nonempty(required(document, "type"), "type")
    version = check_int(required(document, "version"), "version", minimum=1)
    record_id = check_nonempty(required(document, "id"), "id")
    data = check_object(required(document, "data"), "data")
    return record_type, version, record_id, data


def _decode_known(
    cls: "type[_KnownRecord]", document: Mapping[str, Any], version: int, record_id: str
) -> _KnownRecord:
    check_keys(document, _ENVELOPE_KEYS)
    data: dict[str, Any] = dict(document["data"])
    while version < cls.VERSION:
        step = _MIGRATIONS.get((cls.TYPE, version))
        if step is None:  # pragma: no cover - a gap in the table is a programming error
            raise ValidationError("no migration from this version", "version", "value")
        try:
            data = step(data)
        except ValidationError as err:
            raise err.prefixed("data") from None
        version += 1
    try:
        return cls._from_data(record_id, data)
    except ValidationError as err:
        raise err.prefixed("data") from None


def _decode_as(cls: type[_R], document: Mapping[str, Any]) -> _R:
    check_object(document)
    record_type, version, record_id, _ = _read_envelope(document)
    if record_type != cls.TYPE:
        raise ValidationError(f"must be {cls.TYPE}", "type", "value")
    if version > cls.VERSION:
        raise ValidationError(f"must be at most {cls.VERSION}", "version", "value")
    return cast(_R, _decode_known(cls, document, version, record_id))


def decode(document: Mapping[str, Any], /) -> Record:
    """Turn any record document into its record, migrating older versions on the way.

    >>> decode({"type": "system_control", "version": 1, "id": "s1",
    ...         "data": {"kind": "mode_change", "old": "plan", "new": "act"}})
    SystemControl(id='s1', kind='mode_change', old='plan', new='act')
    >>> decode({"type": "hologram", "version": 1, "id": "h1", "data": {}})
    UnknownRecord(id='h1', type='hologram', version=1)

    A document of an unknown type is kept whatever else it holds (no ``id``, no ``version``:
    a newer writer's rules, not ours), and re-encodes to the original document:

    >>> decode({"type": "hologram", "data": {"beam": 1}}).to_dict()
    {'type': 'hologram', 'data': {'beam': 1}}

    A known type with a malformed envelope (missing ``id``, ``version`` or ``data``) raises
    ``ValidationError``; an unknown type or a newer version logs a warning and is kept.
    """
    check_object(document)
    cls = RECORD_TYPES.get(check_nonempty(required(document, "type"), "type"))
    if cls is None:
        return _keep(document, "unknown record type")
    record_type, version, record_id, _ = _read_envelope(document)
    if version > cls.VERSION:
        return _keep(document, "record version newer than this library")
    return _decode_known(cls, document, version, record_id)


def _keep(document: Mapping[str, Any], reason: str) -> UnknownRecord:
    record = UnknownRecord(document)  # type: ignore[arg-type]
    _log.warning("kept record %r as UnknownRecord: %s", None if record.id is None else record.id[:64], reason)
    return record
