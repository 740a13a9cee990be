"""Image bytes: base64 text, ``data:`` URLs and the magic numbers of image formats.

>>> split_data_url("data:image/gif;base64,R0lGODlhAQABAAAAACw=")
('image/gif', 'R0lGODlhAQABAAAAACw=')
>>> sniff(b"GIF89a\\x01\\x00")
'image/gif'
>>> is_base64("R0lGODlhAQABAAAAACw="), is_base64("R0lGODlh*")
(True, False)
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ._checks import type_name
from .errors import ValidationError

__all__ = [
    "IMAGE_MEDIA_TYPES", "is_base64", "decode_base64", "split_data_url", "sniff", "check_base64", "check_media_type",
    "check_url",
]

IMAGE_MEDIA_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")
_MEDIA_TYPES = frozenset(IMAGE_MEDIA_TYPES)
# The prefix of a data URL of each media type (``check_url`` looks for one in the first
# ``_DATA_PREFIX_END`` characters).
_DATA_PREFIXES = frozenset([f"data:{media_type};base64," for media_type in IMAGE_MEDIA_TYPES])
_DATA_PREFIX_END = max(map(len, _DATA_PREFIXES))


# Compiled on first use, not at import: the stub rebinds its global to the compiled method.
def _load_data_url(text: str) -> re.Match[str] | None:
    global _data_url
    _data_url = re.compile(r"data:([a-z]+/[a-z0-9.+-]+);base64,", re.ASCII).match
    return _data_url(text)


_data_url: Callable[[str], re.Match[str] | None] = _load_data_url


# The first bytes of each format agentmsg recognises, and its media type. WebP is "RIFF", a
# 4-byte size, then "WEBP" (see ``sniff``).
_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
    (b"II*\x00", "image/tiff"),
    (b"MM\x00*", "image/tiff"),
    (b"BM", "image/bmp"),
    *((b"P%d" % n, "image/x-portable-anymap") for n in range(1, 7)),
)


def is_base64(text: str) -> bool:
    """Return whether ``text`` is canonical base64: its alphabet, padded to a multiple of 4."""
    return _base64_from(text, 0)


def _base64_from(text: str, start: int) -> bool:
    """Tell that ``text[start:]`` is canonical base64 (``text[:start]``, if any, is ASCII).

    The exact test cheapest in C: ``bytes.isalnum`` (about 6 instructions a byte, where
    ``bytes.translate`` deleting the alphabet takes 9.5 and the regular expression
    ``[A-Za-z0-9+/]*={0,2}`` 22) on the bytes without their padding, once ``replace`` (which
    finds each character with ``memchr``) has turned '+' and '/' into a letter. Any other '='
    is not alphanumeric, so padding is accepted only at the end.
    """
    end = len(text)
    if (end - start) % 4 or not text.isascii():
        return False
    if text.endswith("=", start):
        end -= 2 if text.endswith("==", start) else 1
    if start == end:
        return True  # no data: the base64 of no bytes
    data = text.encode()
    if start or end < len(data):
        data = data[start:end]
    return data.replace(b"+", b"A").replace(b"/", b"A").isalnum()


def decode_base64(text: str) -> bytes:
    """Return the bytes of base64 ``text``; raise ``ValueError`` if it is not base64."""
    from base64 import b64decode  # loaded on first use, not at ``import agentmsg``

    return b64decode(text, validate=True)


def split_data_url(url: str) -> tuple[str, str] | None:
    """Return ``(media_type, data)`` of a ``data:<type>;base64,<data>`` URL, else None."""
    match = _data_url(url)
    if match is None:
        return None
    return match.group(1), url[match.end() :]


def sniff(head: bytes) -> str | None:
    """Return the media type that the first bytes of an image show, or None if unknown."""
    for magic, media_type in _MAGIC:
        if head.startswith(magic):
            return media_type
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return None


# -- the rules of an image source's fields (``ImageSource`` and the validator's check-only path) --

def _load_http_url(text: str) -> re.Match[str] | None:
    global _http_url
    _http_url = re.compile(r"https?://[^\s/?#]+[^\s]*", re.ASCII | re.IGNORECASE).fullmatch
    return _http_url(text)


_http_url: Callable[[str], re.Match[str] | None] = _load_http_url


def check_base64(data: object, path: str) -> str:
    """Return ``data`` if it is bare, non-empty base64 text (an image source's ``data``)."""
    if type(data) is not str:
        raise ValidationError(f"expected a string, got {type_name(data)}", path, "type")
    if data.startswith("data:"):
        raise ValidationError(
            "must be bare base64 without a 'data:' prefix (use ImageSource.from_url for data: URLs)",
            path,
            "value",
        )
    if not data:
        raise ValidationError("must not be empty", path, "value")
    if not is_base64(data):
        raise ValidationError("must be valid base64", path, "value")
    return data


def check_media_type(media_type: object, path: str) -> str:
    """Return ``media_type`` if it is one of ``IMAGE_MEDIA_TYPES``."""
    if type(media_type) is str and media_type in _MEDIA_TYPES:
        return media_type
    if type(media_type) is not str:
        raise ValidationError(f"expected a string, got {type_name(media_type)}", path, "type")
    raise ValidationError(
        "must be one of image/png, image/jpeg, image/gif, image/webp", path, "value"
    )


def check_url(url: object, path: str = "url") -> str:
    """Return ``url`` if it is an http(s) URL or a ``data:`` URL of an image in base64.

    >>> check_url("https://example.com/cat.png")
    'https://example.com/cat.png'
    """
    if type(url) is not str:
        raise ValidationError(f"expected a string, got {type_name(url)}", path, "type")
    start = url.find(",", 0, _DATA_PREFIX_END) + 1
    if url[:start] in _DATA_PREFIXES and start < len(url) and _base64_from(url, start):
        return url  # a data URL of an image: no regular expression, its data not sliced out as text
    parts = split_data_url(url)
    if parts is not None:
        check_media_type(parts[0], path)
        check_base64(parts[1], path)
        return url
    if _http_url(url) is None:
        raise ValidationError("must be an http(s) URL or a data: URL", path, "pattern")
    return url
