"""MCP resource records: a resource from an MCP server, text or base64 ``blob``, once retrieved.

>>> McpResource(id="m", server="docs", uri="docs://a").to_dict()["data"]
{'server': 'docs', 'uri': 'docs://a', 'status': 'pending'}
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import ClassVar, Literal

from .._checks import check_choice, check_nonempty, check_str
from .._fieldtable import Codec, row, size
from .._time import check_timestamp, format_timestamp, parse_timestamp
from ..errors import ValidationError
from ._envelope import ID, new_record_id, record

__all__ = ["McpResource"]

ResourceStatus = Literal["pending", "retrieved", "failed"]
_RESOURCE_STATUSES: tuple[ResourceStatus, ...] = ("pending", "retrieved", "failed")
_URI = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:\S*")
_MIME = re.compile(r"[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*(\s*;.*)?")


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


@record
@dataclass(frozen=True, slots=True, kw_only=True, repr=False)
class McpResource(Codec):
    """Hold a resource from an MCP server: text, or base64 ``blob`` for binary content.

    A processor fetches it and returns ``res.retrieve(...)`` (with ``retrieved_at``) or
    ``res.fail(error)``; the MIME type is kept when the server gives one.

    >>> from datetime import datetime, timezone
    >>> res = McpResource(id="m1", server="docs", uri="file:///project/README.md")
    >>> got = res.retrieve(text="# Project", mime_type="text/markdown",
    ...                    retrieved_at=datetime(2026, 11, 25, 10, tzinfo=timezone.utc))
    >>> got
    McpResource(id='m1', server='docs', uri=<25 chars>, status='retrieved', text=<9 chars>, mime_type='text/markdown')
    """

    TYPE: ClassVar[str] = "mcp_resource"
    VERSION: ClassVar[int] = 1

    id: str = field(default_factory=new_record_id, metadata=ID)
    server: str = field(metadata=row("server", check_nonempty))
    uri: str = field(metadata=row("uri", _uri, show=size("char")))
    status: ResourceStatus = field(
        default="pending", metadata=row("status", check_choice, _RESOURCE_STATUSES, required=True)
    )
    text: str | None = field(default=None, metadata=row("text", check_str, optional=True, show=size("char")))
    blob: str | None = field(default=None, metadata=row("blob", _base64, optional=True, show=size("char")))
    mime_type: str | None = field(default=None, metadata=row("mime_type", _mime_type, optional=True))
    retrieved_at: datetime | None = field(
        default=None,
        metadata=row(
            "retrieved_at", check_timestamp, optional=True, decode=parse_timestamp, encode=format_timestamp, show=False
        ),
    )
    error: str | None = field(default=None, metadata=row("error", check_nonempty, optional=True, show=size("char")))

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
