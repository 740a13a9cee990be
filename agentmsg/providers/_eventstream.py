"""Private: the binary ``application/vnd.amazon.eventstream`` framing of Bedrock's streams.

Theory of operation: a Bedrock stream (``ConverseStream``) is a sequence of binary messages,
each ``[total length: u32][headers length: u32][prelude CRC32: u32][headers][payload][message
CRC32: u32]``, big-endian, the CRCs over the bytes before them. A header is ``[name length:
u8][name][type: u8][value]``. ``EventFrames`` takes the bytes as they arrive from the socket,
cut anywhere, and returns each whole message as ``(headers, payload)``; boto3 does the same
inside ``client.converse_stream`` and hands out the events as dicts. A message longer than the
format's own limits (16 MiB of payload, 128 KiB of headers) or a checksum that does not match
is refused at once, so the buffer never holds more than one message and the piece being read.
"""

from __future__ import annotations

import binascii
import struct
from typing import Any

from ..errors import ValidationError

__all__ = ["EventFrames"]

_PRELUDE = 12  # total length, headers length, prelude CRC
_MAX_HEADERS = 128 * 1024
_MAX_MESSAGE = _PRELUDE + _MAX_HEADERS + 16 * 1024 * 1024 + 4
# header value type -> fixed size (None: a u16 length, then that many bytes)
_SIZES: dict[int, int | None] = {0: 0, 1: 0, 2: 1, 3: 2, 4: 4, 5: 8, 6: None, 7: None, 8: 8, 9: 16}


def _corrupt(what: str) -> ValidationError:
    return ValidationError(f"the event stream is corrupt: {what}", "", "encoding")


class EventFrames:
    r"""Split raw event-stream bytes into ``(headers, payload)`` messages.

    >>> frames = EventFrames()
    >>> frames.feed(b"\x00\x00\x00\x10\x00\x00\x00\x00")
    []
    >>> frames.feed(b"\x05\xc2\x48\xeb\x7d\x98\xc8\xff")
    [({}, b'')]
    >>> frames.pending
    False

    String headers are decoded as UTF-8; other header types are read and kept as bytes.
    """

    __slots__ = ("_buffer",)

    def __init__(self) -> None:
        self._buffer = bytearray()

    @property
    def pending(self) -> bool:
        """Tell whether a message has begun and not ended (the stream was cut inside it)."""
        return bool(self._buffer)

    def feed(self, data: bytes | bytearray | memoryview) -> list[tuple[dict[str, Any], bytes]]:
        """Take the next piece of the stream; return the messages it completed, in order."""
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"feed_raw() takes the stream's bytes, not {type(data).__name__}")
        buffer = self._buffer
        buffer += data
        out = []
        while len(buffer) >= _PRELUDE:
            total, headers_length, prelude_crc = struct.unpack_from(">III", buffer)
            if binascii.crc32(buffer[:8]) != prelude_crc:
                raise _corrupt("the prelude checksum does not match")
            if total > _MAX_MESSAGE or headers_length > _MAX_HEADERS:
                raise ValidationError("an event-stream message is longer than the format allows", "", "size")
            if total < _PRELUDE + 4 + headers_length:
                raise _corrupt("a message is shorter than its headers")
            if len(buffer) < total:
                break
            message = bytes(buffer[:total])
            del buffer[:total]
            if binascii.crc32(message[:-4]) != struct.unpack_from(">I", message, total - 4)[0]:
                raise _corrupt("a message checksum does not match")
            end = _PRELUDE + headers_length
            out.append((_headers(message[_PRELUDE:end]), message[end:-4]))
        return out


def _headers(data: bytes) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    at = 0
    try:
        while at < len(data):
            size = data[at]
            name = data[at + 1 : at + 1 + size].decode("utf-8")
            kind = data[at + 1 + size]
            at += 2 + size
            if kind not in _SIZES:
                raise _corrupt("a header has an unknown type")
            length = _SIZES[kind]
            if length is None:
                (length,) = struct.unpack_from(">H", data, at)
                at += 2
            value = data[at : at + length]
            if len(value) != length:
                raise _corrupt("a header runs past the headers")
            at += length
            headers[name] = value.decode("utf-8") if kind == 7 else value
    except (IndexError, struct.error, UnicodeDecodeError):
        raise _corrupt("a header is cut or not UTF-8") from None
    return headers
