"""File references: a file (or some of its lines) that a processor reads later.

>>> FileReference(id="f", path="a.py").fail("gone").to_dict()["data"]
{'path': 'a.py', 'status': 'failed', 'error': 'gone'}
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, Literal

from .._checks import check_bool, check_choice, check_int, check_keys, check_nonempty, check_str, required
from .._fieldtable import Codec, row, size
from ..errors import ValidationError
from ._envelope import ID, migration, new_record_id, record

__all__ = ["FileReference"]

FileStatus = Literal["pending", "resolved", "failed"]
_FILE_STATUSES: tuple[FileStatus, ...] = ("pending", "resolved", "failed")
_CANONICAL_PATH = re.compile(r"/?(?!\.\.?(?:/|$))[^/\x00]+(?:/(?!\.\.?(?:/|$))[^/\x00]+)*")
_V1_LINES = re.compile(r"([0-9]{1,9})(?:-([0-9]{1,9}))?", re.ASCII)


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


@record
@dataclass(frozen=True, slots=True, kw_only=True, repr=False)
class FileReference(Codec):
    """Point at a file (optionally lines ``start_line``..``end_line``, 1-indexed, inclusive).

    The path is normalized without touching the disk (``a/./b//c`` -> ``a/b/c``) and may not
    climb out with ``..``. ``start_line`` alone means "to the end of the file". A processor
    reads the file and returns ``ref.resolve(content)`` (the text of the referenced lines) or
    ``ref.fail(error)``.

    >>> ref = FileReference(id="f1", path="src/app.py", start_line=10, end_line=12)
    >>> ref.resolve("a\\nb\\nc")
    FileReference(id='f1', path=<10 chars>, start_line=10, end_line=12, status='resolved', content=<5 chars>)
    >>> try:
    ...     FileReference(id="f2", path="src/../../etc/passwd")
    ... except ValidationError as exc:
    ...     print(exc)
    path: must not climb out of its root with '..'

    Version 1 documents (``"lines": "10-20"``, ``"resolved": false``) are migrated when read:

    >>> ref = FileReference.from_dict({"type": "file_reference", "version": 1, "id": "f",
    ...                                "data": {"path": "a.py", "lines": "10-20", "resolved": False}})
    >>> ref.start_line, ref.end_line, ref.status
    (10, 20, 'pending')
    """

    TYPE: ClassVar[str] = "file_reference"
    VERSION: ClassVar[int] = 2

    id: str = field(default_factory=new_record_id, metadata=ID)
    path: str = field(metadata=row("path", _normalize_path, show=size("char")))
    start_line: int | None = field(default=None, metadata=row("start_line", check_int, optional=True, minimum=1))
    end_line: int | None = field(default=None, metadata=row("end_line", check_int, optional=True, minimum=1))
    status: FileStatus = field(default="pending", metadata=row("status", check_choice, _FILE_STATUSES, required=True))
    content: str | None = field(default=None, metadata=row("content", check_str, optional=True, show=size("char")))
    error: str | None = field(default=None, metadata=row("error", check_nonempty, optional=True, show=size("char")))

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


@migration("file_reference", 1)
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
