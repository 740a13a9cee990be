"""Every record type by its tag, ``decode`` for any record document, and ``UnknownRecord`` for the rest.

>>> decode({"type": "system_control", "version": 1, "id": "s1",
...         "data": {"kind": "mode_change", "old": "plan", "new": "act"}})
SystemControl(id='s1', kind='mode_change', old='plan', new='act')
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Union

from .._checks import check_nonempty, check_object, required
from .._frozen import FrozenDict, freeze_json, thaw_json
from ._envelope import decode_known, read_envelope
from .control import SystemControl
from .files import FileReference
from .images import ImageRecord
from .mcp import McpResource
from .text import ReasoningRecord, TextRecord
from .tool_calls import ToolRequest, ToolResultRecord

__all__ = ["UnknownRecord", "Record", "RECORD_TYPES", "decode"]

_log = logging.getLogger(__name__.rpartition(".")[0])  # the package's: agentmsg.records


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
        >>> from ..errors import ValidationError
        >>> try:
        ...     UnknownRecord.from_dict({"version": 1})
        ... except ValidationError as exc:
        ...     print(exc)
        type: is required
        """
        return cls(check_object(data))  # type: ignore[arg-type]  # __post_init__ freezes it


KnownRecord = Union[
    TextRecord, ReasoningRecord, ImageRecord, FileReference, ToolRequest, ToolResultRecord, SystemControl, McpResource
]
"""A record of a type this version reads."""

Record = Union[KnownRecord, UnknownRecord]
"""Any record ``decode`` can return."""

RECORD_TYPES: "Mapping[str, type[KnownRecord]]" = FrozenDict(
    {cls.TYPE: cls for cls in KnownRecord.__args__}  # type: ignore[attr-defined]  # a Union's members
)
"""The known record classes by their ``type`` tag (each has ``TYPE`` and current ``VERSION``)."""


def decode(document: Mapping[str, Any], /) -> Record:
    """Turn any record document into its record, migrating older versions on the way.

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
    _, version, record_id, _ = read_envelope(document)
    if version > cls.VERSION:
        return _keep(document, "record version newer than this library")
    record: KnownRecord = decode_known(cls, document, version, record_id)
    return record


def _keep(document: Mapping[str, Any], reason: str) -> UnknownRecord:
    record = UnknownRecord(document)  # type: ignore[arg-type]  # __post_init__ freezes it
    _log.warning("kept record %r as UnknownRecord: %s", None if record.id is None else record.id[:64], reason)
    return record
