"""The envelope every record encodes to, and how a document of a known type is read back.

A record's class is built by ``record``: the field table (``agentmsg._fieldtable``) writes its
constructor, its repr, ``to_dict`` (the envelope) and ``_from_data`` (a reader of the envelope's
``data``); ``from_dict`` reads the envelope, runs the registered migration steps up to the
class's ``VERSION``, then calls ``_from_data``. A decoding error's path starts with ``data``:

>>> from .control import SystemControl
>>> try:
...     SystemControl.from_dict({"type": "system_control", "version": 1, "id": "s",
...         "data": {"kind": "branch_switch", "old": "main", "new": "main"}})
... except ValidationError as exc:
...     print(exc)
data.new: must differ from old
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from .._checks import check_int, check_keys, check_nonempty, check_object, required
from .._fieldtable import field_table, row
from ..errors import ValidationError

__all__ = ["new_record_id", "record", "migration", "read_envelope", "decode_known", "ID"]

_C = TypeVar("_C", bound=type)
_ENVELOPE_KEYS = frozenset({"type", "version", "id", "data"})

Migration = Callable[[dict[str, Any]], dict[str, Any]]
_MIGRATIONS: dict[tuple[str, int], Migration] = {}
"""Steps by (type, from_version): each takes that version's ``data`` and returns the next one's."""

ID = row(None, check_nonempty)
"""A record's ``id`` row: the envelope holds it (checked when the envelope was read)."""


def new_record_id() -> str:
    """Return a fresh random record id (32 lowercase hex digits).

    >>> rid = new_record_id()
    >>> len(rid), rid == rid.lower(), rid != new_record_id()
    (32, True, True)
    """
    return uuid.uuid4().hex


def record(cls: _C) -> _C:
    """Build a record class from its field table: the envelope's codec, read strictly, and ``from_dict``."""
    field_table(envelope=True, strict=True)(cls)
    cls.from_dict = classmethod(_decode_as)  # type: ignore[attr-defined]  # declared by each class as a ClassVar
    return cls


def migration(record_type: str, from_version: int) -> Callable[[Migration], Migration]:
    """Register a step that upgrades ``data`` of ``record_type`` from ``from_version`` to the next."""

    def register(step: Migration) -> Migration:
        _MIGRATIONS[(record_type, from_version)] = step
        return step

    return register


def read_envelope(document: Mapping[str, Any]) -> tuple[str, int, str, Mapping[str, Any]]:
    """Return the envelope's type, version, id and data, each checked."""
    record_type = check_nonempty(required(document, "type"), "type")
    version = check_int(required(document, "version"), "version", minimum=1)
    record_id = check_nonempty(required(document, "id"), "id")
    data = check_object(required(document, "data"), "data")
    return record_type, version, record_id, data


def decode_known(cls: Any, document: Mapping[str, Any], version: int, record_id: str) -> Any:
    """Return the record of class ``cls`` from its checked envelope, migrated from ``version``."""
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


def _decode_as(cls: Any, document: Mapping[str, Any], /) -> Any:
    """Decode an envelope of this record type (an older version is migrated)."""
    check_object(document)
    record_type, version, record_id, _ = read_envelope(document)
    if record_type != cls.TYPE:
        raise ValidationError(f"must be {cls.TYPE}", "type", "value")
    if version > cls.VERSION:
        raise ValidationError(f"must be at most {cls.VERSION}", "version", "value")
    return decode_known(cls, document, version, record_id)
