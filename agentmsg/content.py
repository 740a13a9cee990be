"""Content parts of a chat message: text, images (a URL, base64 data or a file path), and reasoning."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, TypeVar

from ._checks import check_text, expect_object, get_str, sized, type_name
from ._construct import builder, from_table, row
from ._images import (
    IMAGE_MEDIA_TYPES, check_base64 as _check_base64, check_media_type as _check_media_type, check_url as _check_url,
)
from .errors import ValidationError

__all__ = [
    "ImageSource",
    "TextPart",
    "ImagePart",
    "ContentPart",
    "ReasoningPart",
    "part_from_dict",
    "reasoning_from_dict",
    "IMAGE_MEDIA_TYPES",
]

_P = TypeVar("_P", "TextPart", "ImagePart")

def _check_path(path_value: object, path: str = "path") -> str:
    if type(path_value) is not str:
        raise ValidationError(f"expected a string, got {type_name(path_value)}", path, "type")
    if not path_value or "\x00" in path_value:
        raise ValidationError("must be a non-empty path without NUL characters", path, "value")
    return check_text(path_value, path)


@from_table()
@dataclass(frozen=True, slots=True, repr=False)
class ImageSource:
    """Where an image comes from: a URL (http(s) or ``data:``), base64 data, or a file path.

    >>> ImageSource.from_url("https://example.com/cat.png").to_dict()
    {'type': 'url', 'url': 'https://example.com/cat.png'}
    >>> ImageSource.from_base64("iVBORw0KGgo=", "image/png")
    ImageSource(type=base64, media_type=image/png, data=<12 chars>)
    >>> try:
    ...     ImageSource.from_base64("data:image/png;base64,iVBORw0KGgo=", "image/png")
    ... except ValidationError as exc:
    ...     print(exc)
    data: must be bare base64 without a 'data:' prefix (use ImageSource.from_url for data: URLs)

    Build one with a factory; direct construction validates the same rules.
    """

    type: Literal["url", "base64", "file"] = field(metadata=row(repr="$"))
    url: str | None = field(default=None, metadata=row(repr="sized($)"))
    media_type: str | None = field(default=None, metadata=row(repr="$"))
    data: str | None = field(default=None, metadata=row(repr="sized($)"))
    path: str | None = field(default=None, metadata=row(repr="sized($)"))

    to_dict: ClassVar[Callable[[ImageSource], dict[str, Any]]]  # written by from_table, as __repr__ is

    def __post_init__(self) -> None:
        kind = self.type
        if kind == "url":
            _check_url(self.url)
            extra: tuple[str | None, ...] = (self.media_type, self.data, self.path)
        elif kind == "base64":
            _check_media_type(self.media_type, "media_type")
            _check_base64(self.data, "data")
            extra = (self.url, self.path)
        elif kind == "file":
            _check_path(self.path)
            extra = (self.url, self.media_type, self.data)
        else:
            raise ValidationError("must be one of url, base64, file", "type", "value")
        if any(value is not None for value in extra):
            raise ValidationError(f"a {kind} source takes only its own fields", "", "value")

    @classmethod
    def from_url(cls, url: str) -> ImageSource:
        """Return a source for an http(s) URL or a ``data:image/...;base64,`` URL.

        >>> ImageSource.from_url("data:image/gif;base64,R0lGODlhAQABAAAAACw=").type
        'url'
        >>> try:
        ...     ImageSource.from_url("ftp://example.com/a.png")
        ... except ValidationError as exc:
        ...     print(exc)
        url: must be an http(s) URL or a data: URL
        """
        return _build_source("url", _check_url(url))

    @classmethod
    def from_base64(cls, data: str, media_type: str) -> ImageSource:
        """Return a source for bare base64 ``data`` of an image of ``media_type``.

        >>> ImageSource.from_base64("R0lGODlhAQABAAAAACw=", "image/gif").to_dict()["media_type"]
        'image/gif'
        >>> try:
        ...     ImageSource.from_base64("R0lGODlhAQABAAAAACw=", "image/bmp")
        ... except ValidationError as exc:
        ...     print(exc)
        media_type: must be one of image/png, image/jpeg, image/gif, image/webp
        """
        return _build_source("base64", None, _check_media_type(media_type, "media_type"), _check_base64(data, "data"))

    @classmethod
    def from_path(cls, path: str) -> ImageSource:
        """Return a source for an image file at ``path`` (read later, by a processor).

        >>> ImageSource.from_path("screenshots/login.png").to_dict()
        {'type': 'file', 'path': 'screenshots/login.png'}
        """
        return _build_source("file", path=_check_path(path))

    @classmethod
    def from_dict(cls, data: Any, /) -> ImageSource:
        """Parse the canonical JSON shape."""
        data = expect_object(data)
        kind = data.get("type")
        if kind == "url":
            return cls.from_url(get_str(data, "url"))
        if kind == "base64":
            return cls.from_base64(get_str(data, "data"), get_str(data, "media_type"))
        if kind == "file":
            return cls.from_path(get_str(data, "path"))
        if kind is None:
            raise ValidationError("is required", "type", "missing")
        raise ValidationError("must be one of url, base64, file", "type", "value")


_build_source: Callable[..., ImageSource] = builder(ImageSource)


@from_table(tag=("type", "text"))
@dataclass(frozen=True, slots=True, repr=False)
class TextPart:
    """A text part of a message's content.

    >>> TextPart("Describe this image.").to_dict()
    {'type': 'text', 'text': 'Describe this image.'}
    """

    text: str = field(metadata=row(repr="sized($)"))

    to_dict: ClassVar[Callable[[TextPart], dict[str, Any]]]  # written by from_table, as __repr__ is

    def __post_init__(self) -> None:
        _check_text_field(self.text, "text")

    @classmethod
    def from_dict(cls, data: Any, /) -> TextPart:
        """Parse the canonical JSON shape."""
        return _part_of_kind(data, TextPart, "text")


def _check_text_field(text: object, path: str) -> str:
    if type(text) is str:
        return check_text(text, path)
    raise ValidationError(f"expected a string, got {type_name(text)}", path, "type")


text_part: Callable[[str], TextPart] = builder(TextPart)


@from_table(tag=("type", "image"))
@dataclass(frozen=True, slots=True, repr=False)
class ImagePart:
    """An image part of a message's content.

    >>> ImagePart(ImageSource.from_url("https://example.com/cat.png")).to_dict()
    {'type': 'image', 'source': {'type': 'url', 'url': 'https://example.com/cat.png'}}
    """

    source: ImageSource = field(metadata=row(to_dict="$.to_dict()"))

    to_dict: ClassVar[Callable[[ImagePart], dict[str, Any]]]  # written by from_table, as __repr__ is

    def __post_init__(self) -> None:
        if type(self.source) is not ImageSource:
            raise ValidationError(
                f"expected an ImageSource, got {type_name(self.source)}", "source", "type"
            )

    @classmethod
    def from_dict(cls, data: Any, /) -> ImagePart:
        """Parse the canonical JSON shape."""
        return _part_of_kind(data, ImagePart, "image")


_build_image: Callable[[ImageSource], ImagePart] = builder(ImagePart)

ContentPart = TextPart | ImagePart


def part_from_dict(data: Any) -> ContentPart:
    """Parse one content part ``{"type": "text" | "image", ...}``."""
    data = expect_object(data)
    kind = data.get("type")
    if kind == "text":
        return text_part(_check_text_field(data.get("text"), "text") if "text" in data else _missing("text"))
    if kind == "image":
        try:
            source = ImageSource.from_dict(data.get("source"))
        except ValidationError as exc:
            raise exc.prefixed("source") from None
        return _build_image(source)
    if kind is None:
        raise ValidationError("is required", "type", "missing")
    raise ValidationError("must be 'text' or 'image'", "type", "value")


def _part_of_kind(data: Any, cls: type[_P], kind: str) -> _P:
    """Parse one content part that must be of ``kind``."""
    part = part_from_dict(data)
    if type(part) is not cls:
        raise ValidationError(f"must be '{kind}'", "type", "value")
    return part


def _missing(key: str) -> Any:
    raise ValidationError("is required", key, "missing")


# -- reasoning ----------------------------------------------------------------------------------

def _load_provider(text: str) -> re.Match[str] | None:
    global _provider
    _provider = re.compile(r"[a-z][a-z0-9_-]{0,31}", re.ASCII).fullmatch
    return _provider(text)


_provider: Callable[[str], re.Match[str] | None] = _load_provider


def _check_opt(value: object, path: str) -> str | None:
    if value is None:
        return None
    if type(value) is not str:
        raise ValidationError(f"expected a string, got {type_name(value)}", path, "type")
    if not value:
        raise ValidationError("must not be empty", path, "value")
    return check_text(value, path)


def _check_reasoning(
    text: object, signature: object, redacted: object, provider: object, id: object, anchor: object
) -> tuple[str, str | None, bool, str | None, str | None, str | None]:
    """Return the checked fields of a reasoning part (the one place its rules live)."""
    text = _check_text_field(text, "text")
    signature = _check_opt(signature, "signature")
    if redacted is not True and redacted is not False:
        raise ValidationError(f"expected a boolean, got {type_name(redacted)}", "redacted", "type")
    if provider is not None:
        if type(provider) is not str:
            raise ValidationError(f"expected a string, got {type_name(provider)}", "provider", "type")
        if _provider(provider) is None:
            raise ValidationError("must be a provider name: lowercase letters, digits, '_' or '-'", "provider", "pattern")
    id = _check_opt(id, "id")
    anchor = _check_opt(anchor, "anchor")
    if provider is None and (signature is not None or id is not None or anchor is not None or redacted):
        raise ValidationError("is required beside a signature, an id, an anchor or redacted", "provider", "missing")
    if redacted and (text or signature is None):
        raise ValidationError("a redacted part holds its data in signature and no text", "redacted", "value")
    if not text and signature is None and id is None:
        raise ValidationError("a reasoning part needs text, a signature or an id", "text", "value")
    return text, signature, redacted, provider, id, anchor


@from_table(tag=("type", "reasoning"))
@dataclass(frozen=True, slots=True, repr=False)
class ReasoningPart:
    """One piece of a model's reasoning, kept on an assistant message so it can be sent back.

    >>> part = ReasoningPart("Check the units first.", signature="EqQBCkgIARABGAIiQL", provider="anthropic")
    >>> part
    ReasoningPart(text=<22 chars>, signature=<18 chars>, provider='anthropic')
    >>> part.to_dict()
    {'type': 'reasoning', 'text': 'Check the units first.', 'signature': 'EqQBCkgIARABGAIiQL', 'provider': 'anthropic'}
    >>> try:
    ...     ReasoningPart(signature="opaque")
    ... except ValidationError as exc:
    ...     print(exc)
    provider: is required beside a signature, an id, an anchor or redacted

    ``text`` is what a person may read (Anthropic thinking, an OpenAI summary part, Gemini thought
    text, Ollama ``thinking``, vLLM ``reasoning_content``). The other fields are opaque and belong
    to ``provider`` (``anthropic``, ``openai``, ``gemini``, ``bedrock``); codecs send them back only to it.
    ``signature`` is the replay token (Anthropic ``signature``, or the ``data`` of a
    ``redacted_thinking`` block when ``redacted``; OpenAI ``encrypted_content``; Gemini
    ``thoughtSignature``); ``id`` is the provider's id of the reasoning (OpenAI ``rs_...``);
    ``anchor`` names what it pairs with (the OpenAI output item that follows it, or the tool call
    whose Gemini ``functionCall`` part carries the signature).
    """

    text: str = field(default="", metadata=row(repr="sized($)", always=True))
    signature: str | None = field(default=None, metadata=row(repr="sized($)"))
    redacted: bool = False
    provider: str | None = None
    id: str | None = field(default=None, metadata=row(repr="sized($)"))
    anchor: str | None = field(default=None, metadata=row(repr="sized($)"))

    to_dict: ClassVar[Callable[[ReasoningPart], dict[str, Any]]]  # written by from_table, as __repr__ is

    def __post_init__(self) -> None:
        _check_reasoning(self.text, self.signature, self.redacted, self.provider, self.id, self.anchor)

    @classmethod
    def from_dict(cls, data: Any, /) -> ReasoningPart:
        """Parse the canonical JSON shape (a missing ``text`` is empty).

        >>> ReasoningPart.from_dict({"type": "reasoning", "signature": "c2ln", "redacted": True, "provider": "anthropic"}).redacted
        True
        """
        return reasoning_from_dict(data)


_build_reasoning: Callable[..., ReasoningPart] = builder(ReasoningPart)


def reasoning_part(
    text: str = "",
    signature: str | None = None,
    redacted: bool = False,
    provider: str | None = None,
    id: str | None = None,
    anchor: str | None = None,
) -> ReasoningPart:
    """Build a ReasoningPart after checking its fields (the codecs' fast path)."""
    return _build_reasoning(*_check_reasoning(text, signature, redacted, provider, id, anchor))


def reasoning_from_dict(data: Any) -> ReasoningPart:
    """Parse one reasoning part ``{"type": "reasoning", "text"?, "signature"?, ...}``."""
    data = expect_object(data)
    kind = data.get("type")
    if kind != "reasoning":
        if kind is None:
            raise ValidationError("is required", "type", "missing")
        raise ValidationError("must be 'reasoning'", "type", "value")
    text = data.get("text")
    redacted = data.get("redacted")
    return reasoning_part(
        "" if text is None else text,
        data.get("signature"),
        False if redacted is None else redacted,
        data.get("provider"),
        data.get("id"),
        data.get("anchor"),
    )
