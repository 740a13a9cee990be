"""What the checkers share: the ``Problems`` they raise, and getters that note a problem as they read.

>>> out: Findings = []
>>> string_at({"name": 5}, "name", "tools[0]", out), object_at({}, "function", "tools[0]", out)
(None, None)
>>> [str(problem) for problem in out]
['tools[0].name: expected a string, got number', 'tools[0].function: is required']

A rule checker (``_provider_rules``, ``_mcp_rules``) reads a document with these getters and
returns every problem it noted, each a ``ValidationError`` with its path and code; a kind's
checker raises them together as ``Problems``. A kind whose document is an array checks it an
element at a time (``Items``), so the whole document and one streamed from a big file
(``_big_document``) are checked by the same code.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .._checks import expected, type_name
from ..errors import ConversationOrderError, ValidationError

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up): type checkers read it as true
if TYPE_CHECKING:
    from typing import Any, Protocol
else:
    Protocol = object  # Items is a plain class at run time

__all__ = [
    "Problems", "Findings", "Items", "array_check", "problems_of", "related", "inside", "err", "wrong_type", "absent", "join", "string_at", "object_at", "array_at",
    "is_base64",
]

Findings = list[ValidationError]


class Problems(Exception):
    """Several independent problems in one document (each a ValidationError or order error)."""

    def __init__(self, errors: Sequence[ValidationError | ConversationOrderError]) -> None:
        super().__init__(f"{len(errors)} problems")
        self.errors = list(errors)


class Items(Protocol):
    """The check of an array kind, fed its elements one at a time; each call notes its problems in ``out``."""

    def item(self, index: int, element: Any, out: Findings) -> None:
        """Check the element at ``index`` (problems at paths that start ``[index]``)."""

    def end(self, count: int, out: Findings) -> None:
        """Check what the whole array needs, once its ``count`` elements are in (problems at ``$``)."""


def array_check(make: Callable[[], Items], what: str) -> Callable[[Any], None]:
    """Return the checker of an array kind: a fresh ``make()`` fed every element, then ``end``.

    >>> class Strings:
    ...     def item(self, index, element, out):
    ...         if type(element) is not str:
    ...             out.append(wrong_type(f"[{index}]", "a string", element))
    ...     def end(self, count, out):
    ...         pass
    >>> [str(e) for e in problems_of(array_check(Strings, "an array of strings"), ["a", 1, None])]
    ['[1]: expected a string, got number', '[2]: expected a string, got null']
    """

    def check(doc: Any) -> None:
        if type(doc) is not list:
            raise expected(what, doc, "")
        items = make()
        out: Findings = []
        feed = items.item
        for index, element in enumerate(doc):
            feed(index, element, out)
        items.end(len(doc), out)
        if out:
            raise Problems(out)

    return check


def problems_of(check: Callable[[Any], object], doc: Any) -> list[ValidationError | ConversationOrderError]:
    """Return the problems ``check`` finds in ``doc``: none, its one error, or its ``Problems``.

    >>> def check(doc):
    ...     raise Problems([absent("model"), absent("messages")])
    >>> [problem.path for problem in problems_of(check, {})]
    ['model', 'messages']
    """
    try:
        check(doc)
    except Problems as many:
        return many.errors
    except (ValidationError, ConversationOrderError) as exc:
        return [exc]
    return []


def related(a: str, b: str) -> bool:
    """Tell whether one path is the other or inside it (the root holds every path).

    >>> related("messages[1]", "messages[1].content"), related("messages[1]", "messages[10]")
    (True, False)
    """
    if len(a) > len(b):
        a, b = b, a
    return b == a or (b.startswith(a) and b[len(a)] in ".[") or not a


def inside(path: str, where: str) -> bool:
    """Tell whether ``path`` is the value at ``where``, or inside it (``where`` is not the root).

    >>> inside("[1].content[0].source", "[1].content[0]"), inside("[1].content", "[10]"), inside("a", "")
    (True, False, False)
    """
    return bool(where) and path.startswith(where) and (len(path) == len(where) or path[len(where)] in ".[")


def err(path: str, message: str, code: str = "value") -> ValidationError:
    """Return a problem at ``path`` (code ``value`` unless another is given)."""
    return ValidationError(message, path, code)


def wrong_type(path: str, what: str, value: object, rule: str = "") -> ValidationError:
    """Return the ``type`` problem "expected <what>, got <value's JSON type> (<rule>)"."""
    note = f" ({rule})" if rule else ""
    return ValidationError(f"expected {what}, got {type_name(value)}{note}", path, "type")


def absent(path: str, rule: str = "") -> ValidationError:
    """Return the ``missing`` problem "is required (<rule>)"."""
    return ValidationError("is required" + (f" ({rule})" if rule else ""), path, "missing")


def join(path: str, key: str | int) -> str:
    """Return the path of ``key`` inside ``path``: ``a.b``, ``a[0]``, or ``key`` at the root."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def string_at(
    data: dict[str, Any], key: str, path: str, out: Findings, rule: str = "", required: bool = True
) -> str | None:
    """Return the string ``data[key]``; note in ``out`` one that is not a string, or is missing if ``required``."""
    value = data.get(key)
    if value is None:
        if required:
            out.append(absent(join(path, key), rule))
        return None
    if type(value) is not str:
        out.append(wrong_type(join(path, key), "a string", value, rule))
        return None
    return value


def object_at(
    data: dict[str, Any], key: str, path: str, out: Findings, rule: str = "", required: bool = True,
    what: str = "an object",
) -> dict[str, Any] | None:
    """Return the object ``data[key]``; note in ``out`` one that is not an object, or is missing if ``required``."""
    value = data.get(key)
    if value is None:
        if required:
            out.append(absent(join(path, key), rule))
        return None
    if type(value) is not dict:
        out.append(wrong_type(join(path, key), what, value))
        return None
    return value


def array_at(data: dict[str, Any], key: str, path: str, out: Findings, required: bool = True) -> list[Any]:
    """Return the array ``data[key]`` (empty when it is not one); note a wrong or missing one in ``out``."""
    value = data.get(key)
    if value is None:
        if required:
            out.append(absent(join(path, key)))
        return []
    if type(value) is not list:
        out.append(wrong_type(join(path, key), "an array", value))
        return []
    return value


def is_base64(data: str) -> bool:
    """Tell whether ``data`` is non-empty, strict base64."""
    import base64  # loaded on first use: a chat log never needs it
    import binascii

    try:
        base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return False
    return bool(data)
