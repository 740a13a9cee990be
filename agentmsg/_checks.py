"""The small validators every ``from_dict`` and ``__post_init__`` uses.

Two shapes: getters read ``data[key]`` (``get_str(data, "name")``), checkers take the value and
its path (``check_str(value, "name")``). Each returns the value (normalized where the name says
so) or raises ``ValidationError`` with the path and a stable code: ``missing`` for an absent or
null value, ``type``, ``value``. Messages never quote the value they refuse. Fast paths first:
construction and ``from_dict`` are hot.

>>> check_nonempty("a", "name")
'a'
>>> try:
...     check_nonempty("", "name")
... except ValidationError as exc:
...     print(exc)
name: must not be empty
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping
from .errors import ValidationError

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up): type checkers read it as true
if TYPE_CHECKING:
    from typing import Any, TypeVar

    _S = TypeVar("_S", bound=str)
    _T = TypeVar("_T")
    _R = TypeVar("_R")

__all__ = [
    "type_name",
    "check_name",
    "check_id",
    "missing",
    "expected",
    "expect_object",
    "get_str",
    "get_optional_str",
    "get_bool",
    "get_list",
    "get_object",
    "get_optional_object",
    "check_object",
    "check_keys",
    "required",
    "check_str",
    "check_nonempty",
    "check_opt_str",
    "check_choice",
    "check_int",
    "check_float",
    "check_bool",
    "check_array",
    "check_items",
    "check_branch_name",
    "sized",
    "check_text",
    "map_items",
]

def type_name(value: object) -> str:
    """Name a JSON value's type the way a JSON user would."""
    if value is None:
        return "null"
    t = type(value)
    if t is bool:
        return "boolean"
    if t is int or t is float:
        return "number"
    if t is str:
        return "string"
    if isinstance(value, (list, tuple)):
        return "array"
    if isinstance(value, dict):
        return "object"
    return t.__name__


def missing(path: str) -> ValidationError:
    """Return the error for an absent or null required value (code ``missing``)."""
    return ValidationError("is required", path, "missing")


def expected(what: str, value: object, path: str) -> ValidationError:
    """Return the ``type`` error "expected <what>, got <the value's JSON type>".

    >>> str(expected("a string", 3, "name"))
    'name: expected a string, got number'
    """
    return ValidationError(f"expected {what}, got {type_name(value)}", path, "type")


def count(n: int, unit: str) -> str:
    """Describe a size for a repr that must not show content: ``<n unit(s)>``.

    >>> count(1, "key"), count(2, "key"), count(0, "char")
    ('<1 key>', '<2 keys>', '<0 chars>')

    Every size a repr shows goes through here, so the words agree everywhere.
    """
    return f"<{many(n, unit)}>"


def many(n: int, unit: str) -> str:
    """Count ``n`` of ``unit`` in words, for reprs and error messages: ``1 item``, ``2 items``."""
    return f"{n} {unit}" if n == 1 else f"{n} {unit}s"


def sized(text: str | None) -> str:
    """Describe a string by its size only (``None`` as itself), for reprs.

    >>> sized("hello"), sized("a"), sized(None)
    ('<5 chars>', '<1 char>', 'None')
    """
    return "None" if text is None else count(len(text), "char")


# -- getters: the value at ``data[key]``, the key as the path ------------------------------------


def expect_object(data: object, path: str = "") -> dict[str, Any]:
    """Return ``data`` if it is a JSON object (a dict), else raise ``ValidationError``."""
    if type(data) is dict or isinstance(data, dict):
        return data
    raise expected("an object", data, path)


def get_str(data: dict[str, Any], key: str) -> str:
    """Return the required string at ``key``."""
    value = data.get(key)
    if type(value) is str:
        return value
    raise missing(key) if value is None else expected("a string", value, key)


def get_optional_str(data: dict[str, Any], key: str) -> str | None:
    """Return the string at ``key``, or None when missing or null."""
    value = data.get(key)
    if value is None or type(value) is str:
        return value
    raise expected("a string", value, key)


def get_bool(data: dict[str, Any], key: str, default: bool) -> bool:
    """Return the boolean at ``key``, or ``default`` when missing or null."""
    value = data.get(key)
    if value is None:
        return default
    if value is True or value is False:
        return value
    raise expected("a boolean", value, key)


def get_list(data: dict[str, Any], key: str) -> list[Any] | tuple[Any, ...]:
    """Return the array at ``key``; missing or null gives an empty tuple."""
    value = data.get(key)
    if value is None:
        return ()
    if type(value) is list or type(value) is tuple:
        return value
    raise expected("an array", value, key)


def get_object(data: dict[str, Any], key: str) -> dict[str, Any]:
    """Return the required object at ``key``."""
    value = data.get(key)
    if isinstance(value, dict):
        return value
    raise missing(key) if value is None else expected("an object", value, key)


def get_optional_object(data: dict[str, Any], key: str) -> dict[str, Any] | None:
    """Return the object at ``key``, or None when missing or null."""
    value = data.get(key)
    if value is None or isinstance(value, dict):
        return value
    raise expected("an object", value, key)


# -- checkers: a value and its path --------------------------------------------------------------


def check_object(value: object, path: str = "") -> Mapping[str, Any]:
    """Return ``value`` if it is a JSON object (any mapping), else raise a ``type`` error.

    >>> try:
    ...     check_object([], "data")
    ... except ValidationError as exc:
    ...     print(exc)
    data: expected an object, got array
    """
    if isinstance(value, Mapping):
        return value
    raise expected("an object", value, path)



def check_keys(data: Mapping[str, Any], allowed: frozenset[str]) -> None:
    """Refuse any key of ``data`` outside ``allowed`` (code ``unexpected``).

    >>> try:
    ...     check_keys({"a": 1, "b": 2}, frozenset({"a"}))
    ... except ValidationError as exc:
    ...     print(exc)
    b: unexpected field
    """
    for key in data:
        if key not in allowed:
            name = key[:40] if isinstance(key, str) else ""
            raise ValidationError("unexpected field", name, "unexpected")


def required(data: Mapping[str, Any], key: str) -> Any:
    """Return ``data[key]``, or raise a ``missing`` error naming the key.

    >>> try:
    ...     required({}, "path")
    ... except ValidationError as exc:
    ...     print(exc)
    path: is required
    """
    if key not in data:
        raise missing(key)
    return data[key]


def check_str(value: object, path: str) -> str:
    """Return ``value`` if it is a string encodable as UTF-8 (no lone surrogates).

    >>> try:
    ...     check_str(3, "name")
    ... except ValidationError as exc:
    ...     print(exc)
    name: expected a string, got number
    """
    if type(value) is str:
        return value if value.isascii() else check_text(value, path)
    if isinstance(value, str):
        return check_text(value, path)
    raise missing(path) if value is None else expected("a string", value, path)


def check_nonempty(value: object, path: str) -> str:
    """Return ``value`` if it is a non-empty string accepted by ``check_str``."""
    if type(value) is str and value and value.isascii():
        return value
    text = check_str(value, path)
    if not text:
        raise ValidationError("must not be empty", path, "value")
    return text


def check_opt_str(value: object, path: str, *, empty: bool = True) -> str | None:
    """Return ``value`` if it is ``None`` or a string (non-empty unless ``empty``).

    >>> check_opt_str(None, "error") is None
    True
    """
    if value is None:
        return None
    return check_str(value, path) if empty else check_nonempty(value, path)


def check_choice(value: object, path: str, choices: tuple[_S, ...]) -> _S:
    """Return ``value`` if it is one of the string ``choices``.

    >>> check_choice("act", "mode", ("plan", "act"))
    'act'
    >>> try:
    ...     check_choice("run", "mode", ("plan", "act"))
    ... except ValidationError as exc:
    ...     print(exc)
    mode: must be one of plan, act
    """
    if type(value) is str and value in choices:
        return value
    if not isinstance(value, str):
        raise missing(path) if value is None else expected("a string", value, path)
    for choice in choices:
        if value == choice:
            return choice
    rule = choices[0] if len(choices) == 1 else "one of " + ", ".join(choices)
    raise ValidationError(f"must be {rule}", path, "value")


def check_int(value: object, path: str, *, minimum: int) -> int:
    """Return ``value`` if it is an integer (not a bool) of at least ``minimum``.

    >>> try:
    ...     check_int(0, "start_line", minimum=1)
    ... except ValidationError as exc:
    ...     print(exc)
    start_line: must be at least 1
    """
    if type(value) is not int:
        raise missing(path) if value is None else expected("an integer", value, path)
    if value < minimum:
        raise ValidationError(f"must be at least {minimum}", path, "value")
    if value >= _BIG:
        raise ValidationError("an integer of more than 4300 digits is too large", path, "size")
    return value


_BIG = 10**4300  # beyond this, int -> text needs sys.set_int_max_str_digits: no encoder writes it


def check_float(value: object, path: str, *, minimum: float, maximum: float = math.inf) -> float:
    """Return ``value`` as a finite float within ``[minimum, maximum]`` (ints accepted, not bools).

    >>> check_float(1, "confidence", minimum=0.0, maximum=1.0)
    1.0
    >>> try:
    ...     check_float(1.5, "confidence", minimum=0.0, maximum=1.0)
    ... except ValidationError as exc:
    ...     print(exc)
    confidence: must be between 0.0 and 1.0
    >>> try:
    ...     check_float(10**400, "duration_seconds", minimum=0.0)
    ... except ValidationError as exc:
    ...     print(exc)
    duration_seconds: must be a finite number
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise missing(path) if value is None else expected("a number", value, path)
    try:
        number = float(value)
    except OverflowError:  # an integer beyond a float's range
        number = math.inf
    if not math.isfinite(number):
        raise ValidationError("must be a finite number", path, "value")
    if not minimum <= number <= maximum:
        rule = f"at least {minimum}" if maximum == math.inf else f"between {minimum} and {maximum}"
        raise ValidationError(f"must be {rule}", path, "value")
    return number


def check_bool(value: object, path: str) -> bool:
    """Return ``value`` if it is a bool.

    >>> try:
    ...     check_bool(1, "recoverable")
    ... except ValidationError as exc:
    ...     print(exc)
    recoverable: expected a boolean, got number
    """
    if value is True or value is False:
        return value
    raise missing(path) if value is None else expected("a boolean", value, path)


def check_array(value: object, path: str) -> list[Any] | tuple[Any, ...]:
    """Return ``value`` if it is a JSON array (a list or a tuple)."""
    if isinstance(value, (list, tuple)):
        return value
    raise missing(path) if value is None else expected("an array", value, path)


def check_items(value: object, path: str, cls: type[Any] | tuple[type[Any], ...], what: str) -> tuple[Any, ...]:
    """Return the array ``value`` as a tuple, refusing any item that is not a ``cls`` (``what``).

    >>> try:
    ...     check_items([1, "b"], "ids", int, "an integer")
    ... except ValidationError as exc:
    ...     print(exc)
    ids[1]: expected an integer, got string
    """
    items = tuple(check_array(value, path))
    for i, item in enumerate(items):
        if not isinstance(item, cls):
            raise ValidationError(f"expected {what}, got {type_name(item)}", f"{path}[{i}]", "type")
    return items


def check_branch_name(value: object, path: str = "branch") -> str:
    """Return ``value`` if it is a valid branch name: 1-100 characters, no control characters.

    >>> check_branch_name("main")
    'main'
    >>> try:
    ...     check_branch_name("")
    ... except ValidationError as exc:
    ...     print(exc)
    branch: must not be empty
    """
    name = check_nonempty(value, path)
    if len(name) > 100 or any(ch < " " or ch == "\x7f" for ch in name):
        raise ValidationError("must be at most 100 characters without control characters", path, "pattern")
    return name

def check_text(text: str, path: str) -> str:
    """Refuse strings holding lone surrogates (they cannot be encoded as UTF-8)."""
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            raise ValidationError(
                "must not contain lone surrogates (not encodable as UTF-8)", path, "encoding"
            ) from None
    return text


def map_items(convert: Callable[[_T], _R], items: Iterable[_T], path: str = "") -> list[_R]:
    """Return ``[convert(item) for item in items]``; an item's error gains ``path[i]`` in front.

    The one copy of the loop "enumerate, try, re-raise with the index prefixed to the path".

    >>> map_items(int, ["1", "2"])
    [1, 2]
    >>> try:
    ...     map_items(lambda x: check_str(x, "name"), ["a", {"b": 1}], "tools")
    ... except ValidationError as exc:
    ...     print(exc)
    tools[1].name: expected a string, got object
    """
    out = []
    for i, item in enumerate(items):
        try:
            out.append(convert(item))
        except ValidationError as exc:
            exc = exc.prefixed(i)
            raise (exc.prefixed(path) if path else exc) from None
    return out


_NAME = re.compile(r"[A-Za-z0-9_]{1,64}", re.ASCII)
_KNOWN_NAMES: set[str] = set()  # tool names seen valid (at most 4096): a set lookup skips the pattern


def check_name(name: object, path: str = "name") -> str:
    """Return ``name`` if it is a valid tool name (``^[A-Za-z0-9_]{1,64}$``).

    >>> check_name("get_weather")
    'get_weather'
    """
    if type(name) is str and name in _KNOWN_NAMES:
        return name
    if type(name) is not str:
        raise ValidationError(f"expected a string, got {type_name(name)}", path, "type")
    if _NAME.fullmatch(name) is None:
        if len(name) > 64:
            raise ValidationError("must be at most 64 characters", path, "pattern")
        raise ValidationError(
            "must be 1-64 characters of letters, digits and underscores", path, "pattern"
        )
    if len(_KNOWN_NAMES) < 4096:
        _KNOWN_NAMES.add(name)
    return name


def check_id(value: object, path: str) -> str:
    """Return ``value`` if it is an id: a non-empty string (a tool call's, a tool message's answer)."""
    if type(value) is str and value:
        return check_text(value, path)
    if type(value) is not str:
        raise ValidationError(f"expected a string, got {type_name(value)}", path, "type")
    raise ValidationError("must not be empty", path, "value")
