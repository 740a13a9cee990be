"""Read a top-level JSON array one element at a time, from bytes read in bounded chunks.

>>> import io, json
>>> scan = json.JSONDecoder().scan_once
>>> reader = ArrayReader(io.BytesIO(b'\\xef\\xbb\\xbf [{"role": "user"},\\n 2.5e3 ]\\n').read, scan, chunk=4)
>>> list(reader.elements())
[{'role': 'user'}, 2500.0]
>>> reader.first_line_tail  # the last character before the first line break inside the array
','
>>> try:
...     list(ArrayReader(io.BytesIO(b'[1, 2] 3').read, scan).elements())
... except GiveUp:
...     print("not one clean array")
not one clean array

Theory of operation: the bytes are read ``chunk`` at a time and decoded incrementally (strict
UTF-8; a byte-order mark at the very start is dropped), into a text buffer that holds the
element being parsed plus what is read ahead. Each element is parsed by the caller's
``scan_once`` (the C scanner of a strict ``JSONDecoder``, so the values and refusals are the
ones a whole-document parse gives), yielded, and its text dropped at the next read. An element
the buffer cannot hold yet is retried after reading at least as much again as the buffer holds
from its start: the buffer doubles, so a 50 MB element is parsed a logarithmic number of times
over a geometric series of sizes, linear in all, never once per small read.

``where(segments)`` gives the line and column, in the whole input, of a value inside the
element just yielded (as ``_json_position.locate`` and ``line_column`` give them on the whole text), so
a caller can report a problem in an element as the whole-document path would. Lines are counted
as the text goes by.

The reader never explains a problem in the JSON itself: anything but one clean array (invalid JSON or UTF-8,
refused constants, duplicate keys, depth, trailing text, an input over ``limit`` bytes, a
number that may go on past the buffer's end at the end of the input) raises ``GiveUp``, and
the caller goes back to the careful whole-document path, which finds and explains it.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Callable, Iterator
from typing import Any

from ._json_position import Path, locate

__all__ = ["ArrayReader", "GiveUp"]

_WS = re.compile(r"[ \t\n\r]*")
_SEPARATOR = re.compile(r"[ \t\n\r]*,[ \t\n\r]*")
_NEAR_END = 16  # an error this close to the buffer's end may be the end of what was read so far
_NUMBERS = (int, float)
CHUNK = 1 << 20


class GiveUp(Exception):
    """The input is not one clean JSON array this reader can vouch for."""


class ArrayReader:
    """The elements of the JSON array that makes up the whole input, parsed one at a time.

    ``read(n)`` returns up to ``n`` bytes (``b""`` at the end); ``scan(text, index)`` is a
    ``JSONDecoder.scan_once``. ``size`` counts the bytes read; more than ``limit`` raises
    ``GiveUp``. After ``elements()`` is exhausted, ``first_line_tail`` is the last non-blank
    character of the first line that holds something, when that line ends before the array
    does (None when the array ends on it).
    """

    def __init__(self, read: Callable[[int], bytes], scan: Callable[[str, int], tuple[Any, int]], *,
                 chunk: int = CHUNK, limit: int = 1 << 62) -> None:
        self._read = read
        self._scan = scan
        self._decode = codecs.getincrementaldecoder("utf-8")("strict").decode
        self._chunk = max(1, chunk)
        self._limit = limit
        self._started = False  # a first character was decoded (the place of a byte-order mark)
        self._buf = ""
        self._base = 0  # the index in the whole text of the buffer's first character
        self._mark = -1  # where the search for the first line break inside the array goes on (-1: not begun)
        self._tail = ""  # the last non-blank character before ``_mark``
        self.first_line_tail: str | None = None
        self.eof = False
        self.size = 0
        self._counted = 0  # the index in the whole text up to which line breaks are counted
        self._line = 1  # the line at ``_counted``
        self._break = -1  # the index in the whole text of the last line break before ``_counted``
        self._start = self._end = 0  # where the element just yielded starts and ends in the buffer
        self.root: tuple[int, int] = (1, 1)  # the line and column of the array's ``[``

    def _fill(self, pos: int, want: int) -> int:
        """Drop the text before ``pos``, read ``want`` more bytes; return ``pos`` in the new buffer."""
        if self.eof:
            raise GiveUp("read past the end")
        self._track(pos)
        self._count(pos)
        data = self._read(want)
        self.size += len(data)
        if self.size > self._limit:
            raise GiveUp("over the limit")
        try:
            if data:
                text = self._decode(data)
            else:
                self.eof = True
                text = self._decode(b"", True)
        except UnicodeDecodeError:
            raise GiveUp("not UTF-8") from None
        if text and not self._started:
            self._started = True
            if text[0] == "\ufeff":
                text = text[1:]  # not part of the text (the buffer is empty: no index moves)
        self._base += pos
        self._buf = self._buf[pos:] + text
        return 0

    def _track(self, end: int) -> None:
        """Look for the first line break between the array's start and ``end`` (a buffer index)."""
        if self._mark < 0 or self.first_line_tail is not None:
            return
        buf = self._buf
        start = self._mark - self._base
        if end <= start:
            return
        cut = buf.find("\n", start, end)
        stop = end if cut < 0 else cut
        j = stop
        while j > start and buf[j - 1] in " \t\r":
            j -= 1
        if j > start:
            self._tail = buf[j - 1]
        if cut >= 0:
            self.first_line_tail = self._tail
        self._mark = self._base + end

    def _count(self, end: int) -> None:
        """Count the line breaks from ``_counted`` up to ``end`` (a buffer index)."""
        start = self._counted - self._base
        if end <= start:
            return
        found = self._buf.count("\n", start, end)
        if found:
            self._line += found
            self._break = self._base + self._buf.rfind("\n", start, end)
        self._counted = self._base + end

    def text(self) -> str:
        """Return the text of the element just yielded."""
        return self._buf[self._start:self._end]

    def where(self, segments: Path) -> tuple[int, int]:
        """Return the line and column of the value at ``segments`` in the element just yielded.

        The value's deepest ancestor that exists when it does not (``_json_position.locate``).
        """
        start = self._start
        self._count(start)  # counted up to the element's start, never past it
        buf = self._buf
        offset = locate(buf, segments, start)
        found = buf.count("\n", start, offset)
        if found:
            return self._line + found, offset - buf.rfind("\n", start, offset)
        return self._line, self._base + offset - self._break

    def _skip(self, pos: int) -> int:
        """Return the index of the next non-blank character (the buffer's length at the end)."""
        while True:
            pos = _WS.match(self._buf, pos).end()  # type: ignore[union-attr]  # matches the empty string
            if pos < len(self._buf) or self.eof:
                return pos
            pos = self._fill(pos, self._chunk)

    def _element(self, pos: int) -> tuple[Any, int, int]:
        """Parse the element at ``pos``, reading more while it may be cut by the buffer's end.

        Return it, and where it starts and ends in the buffer (a read moves the start to 0).
        """
        scan = self._scan
        while True:
            buf = self._buf
            try:
                value, end = scan(buf, pos)
            except StopIteration as exc:
                failed = exc.value
            except json.JSONDecodeError as exc:
                failed = len(buf) if exc.msg.startswith("Unterminated string") else exc.pos
            except (ValueError, RecursionError):  # a refused constant or key, a huge number, depth
                raise GiveUp("refused") from None
            else:
                # A number may go on past the buffer's end (``1`` then ``.5e3``); anything else
                # that parsed ends with its closing character.
                if end < len(buf) - 2 or self.eof or type(value) not in _NUMBERS:
                    return value, pos, end
                failed = len(buf)
            if self.eof or failed < len(buf) - _NEAR_END:
                raise GiveUp("invalid JSON")
            pos = self._fill(pos, max(self._chunk, len(buf) - pos))

    def elements(self) -> Iterator[Any]:
        """Yield each element in turn; raise ``GiveUp`` for anything but one clean array."""
        pos = self._skip(0)
        if pos >= len(self._buf) or self._buf[pos] != "[":
            raise GiveUp("not an array")
        self._mark = self._base + pos
        self._count(pos)
        self.root = (self._line, self._base + pos - self._break)
        pos = self._skip(pos + 1)
        separator = _SEPARATOR.match
        while True:
            value, self._start, pos = self._element(pos)
            self._end = pos
            yield value
            found = separator(self._buf, pos)
            if found is not None and found.end() < len(self._buf):  # the usual case: on to the next
                pos = found.end()
                continue
            pos = self._skip(pos)
            if pos < len(self._buf) and self._buf[pos] == ",":
                pos = self._skip(pos + 1)
                continue
            if pos < len(self._buf) and self._buf[pos] == "]":
                break
            raise GiveUp("expected , or ]")
        self._track(pos)
        self._mark = -1  # the array ended: line breaks after it do not count
        pos = self._skip(pos + 1)
        if pos < len(self._buf):
            raise GiveUp("text after the array")
