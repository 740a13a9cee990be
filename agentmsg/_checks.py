"""Small validators shared by the records and the context: each returns the checked value.

They raise ``ValidationError`` with the field's path and a stable code, and never quote the
value they refuse.

>>> check_str("a", "name", empty=False)
'a'
>>> check_str("", "name", empty=False)
Traceback (most recent call last):
    ...
agentmsg.errors.ValidationError: name: must not be empty
"""

import math
from collections.abc import Mapping
from typing import Any, Optional, TypeVar

from ._codec import type_name
from ._frozen import check_text
from .errors import ValidationError

__all__ = [
    "check_bool",
    "check_branch_name",
    "check_choice",
    "check_float",
    "check_int",
    "check_keys",
    "check_object",
    "check_opt_str",
    "check_str",
    "required",
    "sized",
]

_S = TypeVar("_S", bound=str)


def sized(text: Optional[str]) -> str:
    """Describe a string by its size only, for reprs that must not show content.

    >>> sized("hello"), sized(None)
    ('<5 chars>', 'None')
    """
    return "None" if text is None else f"<{len(text)} chars>"


def check_object(value: object, path: str = "") -> Mapping[str, Any]:
    """Return ``value`` if it is a JSON object (a mapping), else raise a ``type`` error.

    >>> check_object([], "data")
    Traceback (most recent call last):
        ...
    agentmsg.errors.ValidationError: data: expected an object, got array
    """
    if not isinstance(value, Mapping):
        raise ValidationError(f"expected an object, got {type_name(value)}", path, "type")
    return value


def check_keys(data: Mapping[str, Any], allowed: frozenset[str]) -> None:
    """Refuse any key of ``data`` outside ``allowed`` (code ``unexpected``).

    >>> check_keys({"a": 1, "b": 2}, frozenset({"a"}))
    Traceback (most recent call last):
        ...
    agentmsg.errors.ValidationError: b: unexpected field
    """
    for key in data:
        if key not in allowed:
            name = key[:40] if isinstance(key, str) else ""
            raise ValidationError("unexpected field", name, "unexpected")


def required(data: Mapping[str, Any], key: str) -> Any:
    """Return ``data[key]``, or raise a ``missing`` error naming the key.

    >>> required({}, "path")
    Traceback (most recent call last):
        ...
    agentmsg.errors.ValidationError: path: is required
    """
    if key not in data:
        raise ValidationError("is required", key, "missing")
    return data[key]


def check_str(value: object, path: str, *, empty: bool = True) -> str:
    """Return ``value`` if it is a string (non-empty unless ``empty``) encodable as UTF-8.

    >>> check_str(3, "name")
    Traceback (most recent call last):
        ...
    agentmsg.errors.ValidationError: name: expected a string, got number
    """
    if not isinstance(value, str):
        raise ValidationError(f"expected a string, got {type_name(value)}", path, "type")
    if not empty and not value:
        raise ValidationError("must not be empty", path, "value")
    return check_text(value, path)


def check_opt_str(value: object, path: str, *, empty: bool = True) -> Optional[str]:
    """Return ``value`` if it is ``None`` or a string accepted by ``check_str``.

    >>> check_opt_str(None, "error") is None
    True
    """
    return None if value is None else check_str(value, path, empty=empty)


def check_choice(value: object, path: str, choices: tuple[_S, ...]) -> _S:
    """Return ``value`` if it is one of the string ``choices``.

    >>> check_choice("act", "mode", ("plan", "act"))
    'act'
    >>> check_choice("run", "mode", ("plan", "act"))
    Traceback (most recent call last):
        ...
    agentmsg.errors.ValidationError: mode: must be one of plan, act
    """
    check_str(value, path)
    for choice in choices:
        if value == choice:
            return choice
    raise ValidationError(f"must be one of {', '.join(choices)}", path, "value")


def check_int(value: object, path: str, *, minimum: int) -> int:
    """Return ``value`` if it is an integer (not a bool) of at least ``minimum``.

    >>> check_int(0, "start_line", minimum=1)
    Traceback (most recent call last):
        ...
    agentmsg.errors.ValidationError: start_line: must be at least 1
    """
    if type(value) is not int:
        raise ValidationError(f"expected an integer, got {type_name(value)}", path, "type")
    if value < minimum:
        raise ValidationError(f"must be at least {minimum}", path, "value")
    return value


def check_float(value: object, path: str, *, minimum: float, maximum: float = math.inf) -> float:
    """Return ``value`` as a finite float within ``[minimum, maximum]`` (ints accepted, not bools).

    >>> check_float(1, "confidence", minimum=0.0, maximum=1.0)
    1.0
    >>> check_float(1.5, "confidence", minimum=0.0, maximum=1.0)
    Traceback (most recent call last):
        ...
    agentmsg.errors.ValidationError: confidence: must be between 0.0 and 1.0
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValidationError(f"expected a number, got {type_name(value)}", path, "type")
    number = float(value)
    if not math.isfinite(number):
        raise ValidationError("must be a finite number", path, "value")
    if not minimum <= number <= maximum:
        rule = f"at least {minimum}" if maximum == math.inf else f"between {minimum} and {maximum}"
        raise ValidationError(f"must be {rule}", path, "value")
    return number


def check_bool(value: object, path: str) -> bool:
    """Return ``value`` if it is a bool.

    >>> check_bool(1, "recoverable")
    Traceback (most recent call last):
        ...
    agentmsg.errors.ValidationError: recoverable: expected a boolean, got number
    """
    if not isinstance(value, bool):
        raise ValidationError(f"expected a boolean, got {type_name(value)}", path, "type")
    return value


def check_branch_name(value: object, path: str = "branch") -> str:
    """Return ``value`` if it is a valid branch name: 1-100 characters, no control characters.

    >>> check_branch_name("main")
    'main'
    >>> check_branch_name("")
    Traceback (most recent call last):
        ...
    agentmsg.errors.ValidationError: branch: must not be empty
    """
    name = check_str(value, path, empty=False)
    if len(name) > 100 or any(ch < " " or ch == "\x7f" for ch in name):
        raise ValidationError("must be at most 100 characters without control characters", path, "pattern")
    return name
