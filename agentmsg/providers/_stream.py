r"""Private helpers for the codecs' stream parsers: raw bytes to payloads, deltas, the end.

Theory of operation: a provider streams JSON payloads (SSE ``data:`` events, or NDJSON lines
for Ollama). Each codec's ``StreamParser`` reads one parsed payload per ``feed`` and returns
what it carried (text, ``ReasoningDelta``, ``ToolCallDelta``); ``StreamReader`` gives every
parser the same ``feed_raw`` (bytes or text as they arrive, cut anywhere, split by
``RawEvents``) and the same end of stream (``_drain``: the payloads a stream without a final
newline still held). Tool calls join in a ``ToolCallAccumulator``; ``add_call_delta`` and
``finish_calls`` put its errors at the provider's own fields. A stream that never reached its
end marker is ``incomplete``, never a message that only looks whole.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable
from typing import Any

from .._json import loads_strict
from ..errors import ValidationError
from ..streaming import ReasoningDelta, ToolCallAccumulator, ToolCallDelta
from ..tools import ToolCall
from ._common import relocate

__all__ = ["Piece", "RawEvents", "StreamReader", "add_call_delta", "finish_calls", "incomplete"]

Piece = str | ReasoningDelta | ToolCallDelta  # what a feed returns: text, a thought, a call fragment


def incomplete(what: str) -> ValidationError:
    """Return the error of ``finish()`` on a stream that never reached its end marker."""
    return ValidationError(
        f"the stream is incomplete: it ended before {what} (cut off, or nothing was fed)", "", "incomplete"
    )


_DELTA_KEYS = ("id", "name", "arguments_delta")


def add_call_delta(
    acc: ToolCallAccumulator, index: int, call_id: Any, name: Any, arguments: Any, fields: tuple[str, str, str]
) -> ToolCallDelta:
    """Add a fragment of call ``index`` to ``acc`` and return it; errors at the provider's ``fields``.

    ``fields`` names id, name and arguments in the provider's terms, as for ``make_call``.
    """
    try:
        delta = ToolCallDelta(index, call_id, name, arguments)
        acc.add(delta)
    except ValidationError as exc:
        field = exc.path.rpartition(".")[2]
        raise relocate(exc, dict(zip(_DELTA_KEYS, fields)).get(field, field)) from None
    return delta


_ACC_PATH = re.compile(r"tool_calls\[(\d+)\]\.(id|name|arguments)")
_ACC_FIELDS = {"id": 0, "name": 1, "arguments": 2}


def finish_calls(acc: ToolCallAccumulator, head: Callable[[int], str], fields: tuple[str, str, str]) -> tuple[ToolCall, ...]:
    """Return the accumulated calls; an error's path is ``head(index)``, then the field named by ``fields``.

    ``fields`` names id, name and arguments in the provider's terms, as for ``make_call``.
    """
    try:
        return acc.finish()
    except ValidationError as exc:
        match = _ACC_PATH.match(exc.path)
        if match is None:  # pragma: no cover - the accumulator always names the call
            raise
        field = fields[_ACC_FIELDS[match.group(2)]]
        raise relocate(exc, f"{head(int(match.group(1)))}.{field}{exc.path[match.end():]}") from None


class StreamReader:
    """The part of a ``StreamParser`` every provider shares: raw input and the end of the stream.

    A subclass sets ``_SSE`` (False for NDJSON), defines ``feed`` for one parsed payload, and
    calls ``_drain()`` first in its ``finish``.
    """

    __slots__ = ("_raw",)

    _SSE = True

    def __init__(self) -> None:
        self._raw: RawEvents | None = None

    def feed(self, payload: Any, /) -> tuple[Piece, ...]:  # pragma: no cover - every parser defines it
        raise NotImplementedError

    def feed_raw(self, data: bytes | str) -> tuple[Piece, ...]:
        """Take the next piece of the raw stream, cut anywhere; return what its completed payloads carried."""
        if self._raw is None:
            self._raw = RawEvents(sse=self._SSE)
        return tuple(item for payload in self._raw.feed(data) for item in self.feed(payload))

    def _drain(self) -> bool:
        """Feed the payloads the raw stream still held at its end; return whether it sent ``data: [DONE]``."""
        if self._raw is None:
            return False
        for payload in self._raw.close():
            self.feed(payload)
        return self._raw.done


_LINE_BREAK = re.compile(r"\r\n|\r|\n")


class RawEvents:
    r"""Split raw stream bytes or text, as they arrive from the socket, into parsed JSON payloads.

    >>> raw = RawEvents(sse=True)
    >>> raw.feed(b'event: ping\ndata: {"type": "pi')
    []
    >>> raw.feed('ng"}\n\ndata: [DONE]\n\n')
    [{'type': 'ping'}]
    >>> raw.done
    True

    With ``sse=True`` the input is Server-Sent Events: ``data:`` lines (several join with a
    newline) make one event at the blank line that ends it; ``event:``, ``id:``, ``retry:``
    and ``:`` comment lines are read and left (every provider repeats the event name in its
    JSON); ``data: [DONE]`` sets ``done``. Otherwise the input is NDJSON, one JSON document per
    line. Lines may end in ``\n``, ``\r\n`` or ``\r``; a read may end anywhere, even inside a
    UTF-8 character or between ``\r`` and ``\n``. A payload that is not JSON raises
    ``ValidationError`` (code ``json``). ``close()`` returns what a stream without a final
    newline still held.
    """

    __slots__ = ("_sse", "_decoder", "_buffer", "_data", "_cr", "done")

    def __init__(self, sse: bool) -> None:
        self._sse = sse
        self._decoder = codecs.getincrementaldecoder("utf-8")()
        self._buffer = ""
        self._data: list[str] = []
        self._cr = False  # the last read ended with a \r: a \n that follows ends no new line
        self.done = False

    def feed(self, data: bytes | bytearray | str) -> list[Any]:
        """Take the next piece of the stream; return the payloads it completed, in order."""
        if isinstance(data, (bytes, bytearray)):
            try:
                text = self._decoder.decode(bytes(data))
            except UnicodeDecodeError:
                raise ValidationError("the stream is not valid UTF-8", "", "encoding") from None
        elif isinstance(data, str):
            text = data
        else:
            raise TypeError(f"feed_raw() takes bytes or str, not {type(data).__name__}")
        if self._cr and text.startswith("\n"):
            text = text[1:]
        self._cr = text.endswith("\r")
        lines = _LINE_BREAK.split(self._buffer + text)  # not splitlines: U+2028 is no break here
        self._buffer = lines.pop()
        out: list[Any] = []
        for line in lines:
            self._line(line, out)
        return out

    def close(self) -> list[Any]:
        """Return the payloads the stream still held at its end (a last line without newline)."""
        out: list[Any] = []
        rest = self._buffer + self._decoder.decode(b"", final=True)
        self._buffer = ""
        if rest:
            self._line(rest, out)
        if self._sse and self._data:
            self._line("", out)
        return out

    def _line(self, line: str, out: list[Any]) -> None:
        if not self._sse:
            if line.strip():
                out.append(loads_strict(line))
            return
        if not line:
            if self._data:
                text = "\n".join(self._data)
                self._data = []
                if text.strip() == "[DONE]":
                    self.done = True
                else:
                    out.append(loads_strict(text))
            return
        field, _, value = line.partition(":")
        if field == "data":
            self._data.append(value[1:] if value.startswith(" ") else value)
