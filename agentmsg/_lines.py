"""One definition of a line, shared by the file resolver and the context renderer.

A line ends at ``\\n`` (``\\r\\n`` counts as one break); nothing else ends a line: a form feed,
U+2028, U+2029, ``\\x1c``-``\\x1e``, NEL or a lone ``\\r`` stay inside it (``str.splitlines``
would split there, and line numbers would no longer match the file).

>>> split_lines("one\\r\\ntwo\\x0cstill two\\u2028and this\\nthree\\n")
['one', 'two\\x0cstill two\\u2028and this', 'three']
>>> split_lines(""), split_lines("\\n")
([], [''])
"""

from __future__ import annotations

__all__ = ["split_lines"]


def split_lines(text: str) -> list[str]:
    """Return the lines of ``text``: split on ``\\n``, a trailing newline ends the last line."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()  # a trailing newline ends the last line, it does not start a new one
    return [line[:-1] if line.endswith("\r") else line for line in lines]
