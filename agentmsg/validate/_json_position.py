"""Find where things are in JSON text: the value at an error path, and what strict parsing refuses.

>>> text = '{"role": "user",\\n "content": [\\n  {"type": "text", "text": 5}]}'
>>> offset = locate(text, parse_path("content[0].text"))
>>> line_column(text, offset)
(3, 28)
>>> find_refused('{"a": 1,\\n "a": 2}')
(['a'], 10, 'unique', 'duplicate key: JSON objects must not repeat a key')

Theory of operation: both run only after something failed, so they favour being small and
correct over being fast. A tokenizer walks the text (regular expressions for strings and scalars,
an explicit stack for containers: no recursion, so nesting depth does not matter) and keeps the
path of the value it is at. ``locate`` stops at the value an error path names, or at the deepest
ancestor of it that exists; ``find_refused`` stops at the first duplicate key, ``NaN``/``Infinity``
or number Python cannot hold. Text that is not JSON ends the walk quietly.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

__all__ = ["parse_path", "locate", "line_column", "find_refused"]

Path = list[str | int]

_WS = re.compile(r"[ \t\n\r]*")
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_SCALAR = re.compile(r'[^ \t\n\r{}\[\],:"]+')
_SEGMENT = re.compile(r"\[(\d+)\]|\.?([^.\[]+)")
_CONSTANTS = frozenset(("NaN", "Infinity", "-Infinity"))

# Events of the walk: a value starts, an object key, a container closes.
_VALUE, _KEY, _CLOSE = range(3)


def parse_path(path: str) -> Path:
    """Split an error path like ``[3].tool_calls[0].name`` into keys and indices.

    >>> parse_path("[3].tool_calls[0].name")
    [3, 'tool_calls', 0, 'name']
    >>> parse_path("")
    []

    A key holding ``.`` or ``[`` cannot be told apart from a nested path; such a path simply
    locates a shallower ancestor.
    """
    segments: Path = []
    for index, key in _SEGMENT.findall(path):
        segments.append(int(index) if index else key)
    return segments


def _tokens(text: str, pos: int) -> Iterator[tuple[str, int, int]]:
    """Yield ``(kind, start, end)``: kind is one of ``{}[],:``, ``s`` (string) or ``v`` (scalar)."""
    size = len(text)
    while True:
        pos = _WS.match(text, pos).end()  # type: ignore[union-attr]  # _WS matches the empty string: never None
        if pos >= size:
            return
        char = text[pos]
        if char == '"':
            match = _STRING.match(text, pos)
            if match is None:
                return
            yield "s", pos, match.end()
            pos = match.end()
        elif char in "{}[],:":
            yield char, pos, pos + 1
            pos += 1
        else:
            match = _SCALAR.match(text, pos)
            if match is None:
                return
            yield "v", pos, match.end()
            pos = match.end()


def _walk(text: str, pos: int = 0) -> Iterator[tuple[int, Path, str, int, int]]:
    """Yield ``(event, path, kind, start, end)``; ``path`` is live: read it, do not keep it."""
    objects: list[bool] = []  # per open container: is it an object?
    path: Path = []
    want_key = False
    for kind, start, end in _tokens(text, pos):
        if kind == ",":
            want_key = bool(objects) and objects[-1]
        elif kind == ":":
            continue
        elif kind == "}" or kind == "]":
            if not objects:
                return
            objects.pop()
            path.pop()
            want_key = False
            yield _CLOSE, path, kind, start, end
        elif want_key:
            if kind != "s":
                return
            want_key = False
            path[-1] = _key(text, start, end)
            yield _KEY, path, kind, start, end
        else:
            if objects and not objects[-1]:
                path[-1] = path[-1] + 1  # type: ignore[operator]  # an array's last path item is its int index
            yield _VALUE, path, kind, start, end
            if kind == "{":
                objects.append(True)
                path.append("")
                want_key = True
            elif kind == "[":
                objects.append(False)
                path.append(-1)


def _key(text: str, start: int, end: int) -> str:
    try:
        key = json.loads(text[start:end])
    except ValueError:
        return text[start + 1 : end - 1]
    return key if type(key) is str else text[start + 1 : end - 1]


def locate(text: str, segments: Path, start: int = 0) -> int:
    """Return the offset where the value at ``segments`` starts, or its deepest existing ancestor.

    >>> locate('[1, {"a": [true, null]}]', [1, "a", 1])
    17
    >>> locate('[1, {"a": [true, null]}]', [1, "missing"])
    4
    """
    best_depth, best = -1, _WS.match(text, start).end()  # type: ignore[union-attr]  # _WS matches the empty string: never None
    want = len(segments)
    walk = _walk(text, start)
    for event, path, kind, begin, end in walk:
        depth = len(path)
        if event == _VALUE:
            if depth > best_depth and path == segments[:depth]:
                best_depth, best = depth, begin
                if depth == want:
                    break
        elif event == _CLOSE and depth <= best_depth:
            break  # the deepest match is behind us: the rest of the path is not there
    return best


def line_column(text: str, offset: int) -> tuple[int, int]:
    """Return the 1-based line and column of ``offset`` in ``text``.

    >>> line_column("ab\\ncd", 4)
    (2, 2)
    """
    line = text.count("\n", 0, offset) + 1
    return line, offset - text.rfind("\n", 0, offset)


def find_refused(text: str, start: int = 0) -> tuple[Path, int, str, str] | None:
    """Return ``(path, offset, code, message)`` of the first thing strict JSON refuses, or None.

    >>> find_refused('{"n": [1, NaN]}')
    (['n', 1], 10, 'json', 'NaN and Infinity are not JSON')
    >>> find_refused('[1e999]')
    ([0], 1, 'size', 'number out of range (too large for a 64-bit float)')

    Refused: a key repeated in one object, ``NaN``/``Infinity``, an integer longer than Python
    converts (``sys.get_int_max_str_digits()``), a float that overflows to infinity.
    """
    seen: list[set[str]] = []
    for event, path, kind, begin, end in _walk(text, start):
        if event == _KEY:
            key = str(path[-1])
            keys = seen[-1]
            if key in keys:
                return list(path), begin, "unique", "duplicate key: JSON objects must not repeat a key"
            keys.add(key)
        elif event == _CLOSE:
            if kind == "}":
                seen.pop()
        elif kind == "{":
            seen.append(set())
        elif kind == "v":
            refused = _refused_scalar(text[begin:end])
            if refused is not None:
                return list(path), begin, *refused
    return None


def _refused_scalar(token: str) -> tuple[str, str] | None:
    """Return the (code, message) refusing a scalar token, or None if it is fine."""
    if token in _CONSTANTS:
        return "json", "NaN and Infinity are not JSON"
    try:
        value = json.loads(token)
    except ValueError:
        if token.lstrip("-")[:1].isdigit():
            return "size", "number too large: more digits than Python converts (sys.get_int_max_str_digits())"
        return None
    if type(value) is float and value - value != 0.0:
        return "size", "number out of range (too large for a 64-bit float)"
    return None
