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
_ALPHABET = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
# What is left of base64 once its alphabet is deleted, and the end of the text it must be.
_PADDING = {b"": "", b"=": "=", b"==": "=="}
# The prefix of a data URL of each media type, and its characters outside the base64 alphabet
# (``check_url`` looks for a prefix in the first ``_DATA_PREFIX_END`` characters).
_DATA_PREFIXES = {
    prefix: prefix.encode().translate(None, _ALPHABET)
    for prefix in [f"data:{media_type};base64," for media_type in IMAGE_MEDIA_TYPES]
}
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
    return _base64_from(text, 0, b"")


def _base64_from(text: str, start: int, punctuation: bytes) -> bool:
    """Tell that ``text[start:]`` is canonical base64, ``text[:start]`` holding ``punctuation`` outside its alphabet.

    One copy and one table pass: ``bytes.translate`` deletes the alphabet from the whole text
    (about 9.5 instructions a byte; the regular expression ``[A-Za-z0-9+/]*={0,2}`` takes 22), and
    what is left must be the punctuation of ``text[:start]`` and at most two '=' that end the text.
    ``bytes.isalnum`` runs fewer instructions (about 6 a byte, once ``replace`` has made '+' and '/'
    letters) but no less CPU time: its copies and ``replace``'s many short ``memchr`` calls cost
    what the instructions save.
    """
    if (len(text) - start) % 4 or not text.isascii():
        return False
    left = text.encode().translate(None, _ALPHABET)
    padding = _PADDING.get(left[len(punctuation):])
    return padding is not None and text.endswith(padding)


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
    punctuation = _DATA_PREFIXES.get(url[:start])
    if punctuation is not None and start < len(url) and _base64_from(url, start, punctuation):
        return url  # a data URL of an image: no regular expression, its data not sliced out
    parts = split_data_url(url)
    if parts is not None:
        check_media_type(parts[0], path)
        check_base64(parts[1], path)
        return url
    if _http_url(url) is None:
        raise ValidationError("must be an http(s) URL or a data: URL", path, "pattern")
    return url
