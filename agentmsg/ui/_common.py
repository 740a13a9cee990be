"""What the two front-end adapters share: SSE framing, approval decisions, image checks, getters.

>>> sse({"type": "text-delta", "id": "m1", "delta": "Hi"})
b'data: {"type":"text-delta","id":"m1","delta":"Hi"}\\n\\n'
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .._checks import expected, missing, sized, type_name
from .._frozen import freeze_object, thaw_json
from .._images import decode_base64, is_base64, sniff, split_data_url
from ..content import ImagePart, ImageSource
from ..errors import ValidationError
from ..events import ChatEntry, ChatInit, HistoryEntry, ToolEntry, UserEntry
from ..tools import ToolDefinition

__all__ = ["Decision", "ToolResult", "sse", "MAX_IMAGE_BYTES", "IMAGE_TYPES", "MAX_CLIENT_TOOLS"]

MAX_CLIENT_TOOLS = 64
"""The most tools a front-end may declare in one request."""

MAX_IMAGE_BYTES = 5 * 1024 * 1024
"""The default bound of one attached image, decoded."""

IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")


def sse(event: dict[str, Any]) -> bytes:
    """Return one Server-Sent Event: a single ``data:`` line with the compact JSON, and a blank line."""
    return b"data: " + json.dumps(event, ensure_ascii=False, separators=(",", ":")).encode() + b"\n\n"


@dataclass(frozen=True, slots=True)
class Decision:
    """A person's answer to a tool approval: the tool message ``id``, approved or not, an optional reason.

    >>> Decision("t1", False, "not now")
    Decision(id='t1', approved=False, reason=<7 chars>)
    """

    id: str
    approved: bool
    reason: str | None = None

    def __repr__(self) -> str:
        reason = sized(self.reason)
        return f"Decision(id={self.id!r}, approved={self.approved}, reason={reason})"


@dataclass(frozen=True, slots=True)
class ToolResult:
    """A front-end tool's result: the tool message ``id`` of the call, the text the model reads, a failure or not.

    >>> ToolResult("t1", "the person confirmed", False)
    ToolResult(id='t1', content=<20 chars>, is_error=False)
    """

    id: str
    content: str
    is_error: bool = False

    def __repr__(self) -> str:
        return f"ToolResult(id={self.id!r}, content={sized(self.content)}, is_error={self.is_error})"


def tool_definitions(value: object, path: str) -> tuple[ToolDefinition, ...]:
    """Return the tools a front-end runs (``[{name, description, parameters}]``) as tool definitions.

    >>> [t.name for t in tool_definitions([{"name": "confirm", "description": "Ask.", "parameters": {"type": "object"}}], "tools")]
    ['confirm']

    At most ``MAX_CLIENT_TOOLS``; each is checked as ``ToolDefinition`` checks a tool (errors
    at ``<path>[i].<key>``), and the names must be unique (code ``unique``).
    """
    items = [] if value is None else array(value, path)
    if len(items) > MAX_CLIENT_TOOLS:
        raise ValidationError(f"must be at most {MAX_CLIENT_TOOLS} tools", path, "size")
    out: list[ToolDefinition] = []
    for i, item in enumerate(items):
        at = join(path, i)
        tool = obj(item, at)
        name = text(tool.get("name"), join(at, "name"), empty=False)
        description = text(tool.get("description", ""), join(at, "description"))
        parameters = obj(tool.get("parameters", {"type": "object"}), join(at, "parameters"))
        try:
            definition = ToolDefinition(name, description, freeze_object(parameters, "parameters"))
        except ValidationError as exc:
            raise exc.prefixed(i).prefixed(path) from None
        if any(known.name == name for known in out):
            raise ValidationError("the tool names must be unique", join(at, "name"), "unique")
        out.append(definition)
    return tuple(out)


# -- getters with paths ---------------------------------------------------------------------------


def obj(value: object, path: str) -> dict[str, Any]:
    """Return ``value`` if it is a JSON object."""
    if isinstance(value, dict):
        return value
    raise missing(path) if value is None else expected("an object", value, path)


def array(value: object, path: str) -> list[Any]:
    """Return ``value`` if it is a JSON array."""
    if isinstance(value, list):
        return value
    raise missing(path) if value is None else expected("an array", value, path)


def text(value: object, path: str, *, empty: bool = True) -> str:
    """Return ``value`` if it is a string (non-empty unless ``empty``)."""
    if type(value) is not str:
        raise missing(path) if value is None else expected("a string", value, path)
    if not empty and not value:
        raise ValidationError("must not be empty", path, "value")
    return value


def optional_text(value: object, path: str) -> str | None:
    """Return ``value`` if it is a string, None if it is absent or null."""
    return None if value is None else text(value, path)


def join(path: str, key: str | int) -> str:
    """Return ``path`` extended by an object key or an array index."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


# -- images ----------------------------------------------------------------------------------------


def image_part(media_type: object, data: object, path: str, max_bytes: int) -> ImagePart:
    """Return the image part of bare base64 ``data``: a supported, bounded image whose bytes match its type.

    ``path`` names the data; its errors: ``unsupported`` (not an image type agentmsg carries),
    ``size`` (over ``max_bytes`` decoded), ``pattern`` (not base64), ``value`` (the bytes are
    not the declared image type).
    """
    media = text(media_type, path, empty=False)
    if media not in IMAGE_TYPES:
        raise ValidationError("only images are accepted: " + ", ".join(IMAGE_TYPES), path, "unsupported")
    body = text(data, path, empty=False)
    if len(body) > 4 * ((max_bytes + 2) // 3):
        raise ValidationError(f"the image must be at most {max_bytes} bytes", path, "size")
    if not is_base64(body):
        raise ValidationError("must be base64", path, "pattern")
    head = decode_base64(body[:24])
    if sniff(head) != media:
        raise ValidationError(f"the bytes are not a {media} image", path, "value")
    return ImagePart(ImageSource.from_base64(body, media))


def data_url_image(url: object, media_type: object, path: str, max_bytes: int) -> ImagePart:
    """Return the image part of a ``data:<type>;base64,`` URL (``media_type`` must agree when given)."""
    value = text(url, path, empty=False)
    if not value.startswith("data:"):
        raise ValidationError("must be a data: URL (this server fetches no URLs)", path, "unsupported")
    split = split_data_url(value)
    if split is None:
        raise ValidationError("must be a data:<type>;base64,<data> URL", path, "pattern")
    media, data = split
    if media_type is not None and media_type != media:
        raise ValidationError("the data: URL's type differs from mediaType", path, "value")
    return image_part(media, data, path, max_bytes)


def check_media(media_type: object, path: str) -> str:
    """Return a file part's media type if it is an image type agentmsg carries, else raise ``unsupported``."""
    media = text(media_type, path, empty=False)
    if media not in IMAGE_TYPES:
        raise ValidationError("only image files are accepted: " + ", ".join(IMAGE_TYPES), path, "unsupported")
    return media


# -- the stored history ----------------------------------------------------------------------------


def entries(history: ChatInit | Iterable[HistoryEntry]) -> tuple[HistoryEntry, ...]:
    """Return the history entries of a ``chat:init`` reply or of an iterable of entries."""
    if isinstance(history, ChatInit):
        return history.messages
    out = tuple(history)
    for i, entry in enumerate(out):
        if not isinstance(entry, (UserEntry, ChatEntry, ToolEntry)):
            raise TypeError(f"history[{i}] must be a history entry, got {type_name(entry)}")
    return out


def artifacts(history: ChatInit | Iterable[HistoryEntry]) -> dict[str, Any]:
    """Return the artifacts of a ``chat:init`` reply by id (none for bare entries)."""
    if isinstance(history, ChatInit):
        return {artifact["id"]: artifact for artifact in history.artifacts}
    return {}


def user_id(entry: UserEntry, index: int) -> str:
    """Return a user entry's id, or a stable one made from its position (entries before ids existed)."""
    value = getattr(entry, "id", None)
    return value if isinstance(value, str) and value else f"user-{index}"


def arguments_json(value: Any) -> str:
    """Return a tool call's arguments as JSON text ('{}' when unknown)."""
    if value is None:
        return "{}"
    return json.dumps(thaw_json(value), ensure_ascii=False, separators=(",", ":"))
