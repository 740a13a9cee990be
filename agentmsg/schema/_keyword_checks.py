"""The keyword checks of the schema validator: each keyword's ``Check`` and the words of its errors.

``_validator`` compiles a schema into these; ``_build`` reports its errors in the same words.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any

from .._checks import expected, many
from ..errors import ValidationError
from ._regex import PatternError, compile_pattern

__all__ = [
    'Check',
    'TYPE_TESTS',
    'accept',
    'any_of',
    'any_of_error',
    'array_keyword',
    'at_least',
    'check_additional',
    'check_unique',
    'choices',
    'const_check',
    'enum_check',
    'format_check',
    'json_key',
    'key_label',
    'kinds',
    'many',
    'matching',
    'negation',
    'number_checks',
    'one_of',
    'pattern_keyword',
    'refuse',
    'schema_error',
    'size_keyword',
    'string_check',
    'type_check',
    'unexpected',
]

Check = Callable[[Any], None]
"""A compiled check: returns None for a valid value, raises ``ValidationError`` otherwise."""


def schema_error(message: str, keyword: str | int = "") -> ValidationError:
    """Return the ``schema`` error for a keyword the validator cannot read (its path grows outward)."""
    err = ValidationError(message, "", "schema")
    return err.prefixed(keyword) if keyword != "" else err


def _is_integer(v: object) -> bool:
    if isinstance(v, int):
        return not isinstance(v, bool)
    return isinstance(v, float) and v.is_integer()


TYPE_TESTS: dict[str, Callable[[Any], bool]] = {
    "null": lambda v: v is None,
    "boolean": lambda v: v is True or v is False,
    "integer": _is_integer,
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "string": lambda v: isinstance(v, str),
    "array": lambda v: isinstance(v, (list, tuple)),
    "object": lambda v: isinstance(v, dict),
}


_ARTICLES = {
    "null": "null", "boolean": "a boolean", "integer": "an integer", "number": "a number",
    "string": "a string", "array": "an array", "object": "an object",
}


def kinds(names: Sequence[str]) -> str:
    """Name JSON types as the core's type errors do ("expected an integer or null, got string").

    >>> kinds(["integer", "null"])
    'an integer or null'
    """
    return " or ".join(_ARTICLES[name] for name in names)


_CHOICES = 10  # at most this many of an enum's values are listed


def choices(values: Sequence[object]) -> str:
    """Return the rule an ``enum`` or a ``const`` states, in the core's words.

    >>> choices(["r", "w"]), choices([1, None, ""]), choices(["only"])
    ('must be one of r, w', 'must be one of 1, null, ""', 'must be only')

    The values come from the schema, never from the data; long ones are cut short.
    """
    if not values:
        return "must be one of the enum's values, and it has none"
    shown = [_shown(v) for v in values[:_CHOICES]]
    if len(values) > _CHOICES:
        shown.append(f"... ({len(values)} values)")
    return f"must be {shown[0]}" if len(values) == 1 else "must be one of " + ", ".join(shown)


def _shown(value: object) -> str:
    if isinstance(value, str) and value and value.isprintable():
        text = value
    else:
        from json import dumps

        text = dumps(value, ensure_ascii=False, default=lambda _: "?")
    return text if len(text) <= 40 else text[:37] + "..."


def at_least(n: int, unit: str, verb: str = "hold") -> str:
    """Return the rule of a minimum size, in the core's words.

    >>> at_least(1, "item"), at_least(2, "item"), at_least(3, "character", "be")
    ('must not be empty', 'must hold at least 2 items', 'must be at least 3 characters')
    """
    return "must not be empty" if n == 1 else f"must {verb} at least {many(n, unit)}"


def any_of_error(errors: Sequence[ValidationError]) -> ValidationError:
    """Return the one error to report when no branch of an ``anyOf`` matched.

    When every branch failed on the value's type, say which types were expected; when exactly
    one branch got further (a wrong field inside the one object branch), report that branch.

    >>> str(any_of_error([expected("an integer", "7", ""), expected("null", "7", "")]))
    'expected an integer or null, got string'
    """
    deeper = [e for e in errors if e.path or e.code != "type"]
    if len(deeper) == 1:
        return deeper[0]
    if not deeper and errors:
        # type errors read "expected X or Y, got Z" (see kinds): join the X and Y parts
        parts = [e.message.partition("expected ")[2].rpartition(", got ") for e in errors]
        if all(sep for _, sep, _ in parts):
            names = dict.fromkeys(name for x, _, _ in parts for name in x.split(" or "))
            return ValidationError(f"expected {' or '.join(names)}, got {parts[0][2]}", "", "type")
    return ValidationError("must match one of the allowed schemas", "", "value")


def json_key(value: object) -> object:
    """Return a hashable key equal for JSON-equal values (``1 == 1.0``, ``True != 1``)."""
    if isinstance(value, str):
        return value
    if value is None or value is True or value is False:
        return (value,)
    if isinstance(value, (int, float)):
        return ("n", value)
    if isinstance(value, (list, tuple)):
        return ("a", tuple(map(json_key, value)))
    if isinstance(value, dict):
        return ("o", frozenset((k, json_key(v)) for k, v in value.items()))
    return ("?", id(value))  # not JSON: equal to nothing else



def matching(n: int) -> str:
    return f"{many(n, 'item')} that {'matches' if n == 1 else 'match'} the schema in contains"


def key_label(key: object) -> str:
    """Return ``key`` as it appears in an error path (long unknown keys are cut short)."""
    text = key if isinstance(key, str) else repr(key)  # a non-JSON dict may have other keys
    return text if len(text) <= 40 else text[:37] + "..."


def unexpected(key: object) -> ValidationError:
    """Return the ``unexpected`` error for an object key no schema allows."""
    return ValidationError("unexpected field", key_label(key), "unexpected")


def check_additional(check: Check, key: object, value: object) -> None:
    """Run ``additionalProperties`` on one extra property (a ``false`` schema says ``additional``)."""
    if check is refuse:
        raise unexpected(key)
    try:
        check(value)
    except ValidationError as e:
        raise e.prefixed(key_label(key)) from None


def check_unique(items: Sequence[object]) -> None:
    """Raise ``unique`` if two items of the array are JSON-equal."""
    if len(set(map(json_key, items))) != len(items):
        raise ValidationError("must hold unique items", "", "unique")


def accept(v: object) -> None:
    return None


def refuse(v: object) -> None:
    raise ValidationError("is not allowed here", "", "unexpected")


def array_keyword(value: object, keyword: str) -> Sequence[Any]:
    if not isinstance(value, (list, tuple)):
        raise schema_error("must be an array", keyword)
    return value


def size_keyword(value: object, keyword: str) -> int:
    if value == -1 and keyword.startswith("max") and _is_integer(value):
        return -1  # the default: no maximum
    if isinstance(value, (int, float)) and _is_integer(value) and value >= 0:
        return int(value)
    raise schema_error("must be a non-negative integer", keyword)


def _number(value: object, keyword: str) -> int | float:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and not (isinstance(value, float) and not math.isfinite(value)):
        return value
    if isinstance(value, bool) and keyword.startswith("exclusive"):
        raise schema_error("must be a number (a boolean is Draft 4's form)", keyword)
    raise schema_error("must be a number", keyword)


def pattern_keyword(pattern: object, *where: str) -> Callable[[str], object]:
    if not isinstance(pattern, str):
        raise schema_error("must be a string", where[0])
    try:
        return compile_pattern(pattern).search
    except PatternError as exc:
        err = schema_error(str(exc))
        for key in reversed(where):
            err = err.prefixed(key)
        raise err from None


def string_check(schema: Mapping[str, Any]) -> Check:
    low = size_keyword(schema.get("minLength", 0), "minLength")
    high = size_keyword(schema.get("maxLength", -1), "maxLength")
    search = pattern_keyword(schema["pattern"], "pattern") if "pattern" in schema else None

    def check_string(v: object) -> None:
        if not isinstance(v, str):
            return
        if len(v) < low:
            raise ValidationError(at_least(low, "character", "be"), "", "value")
        if 0 <= high < len(v):
            raise ValidationError(f"must be at most {many(high, 'character')}", "", "size")
        if search is not None and search(v) is None:
            raise ValidationError("must match the schema's pattern", "", "pattern")

    return check_string


def _is_number(v: object) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def number_checks(schema: Mapping[str, Any]) -> list[Check]:
    checks: list[Check] = []
    for keyword, message, fails in _BOUNDS:
        if keyword in schema:
            checks.append(_bound_check(_number(schema[keyword], keyword), message, fails))
    if "multipleOf" in schema:
        divisor = _number(schema["multipleOf"], "multipleOf")
        if divisor <= 0:
            raise schema_error("must be a number above 0", "multipleOf")
        checks.append(_multiple_check(divisor))
    return checks


_BOUNDS: tuple[tuple[str, str, Callable[[Any, Any], bool]], ...] = (
    ("minimum", "must be at least", lambda v, b: v < b),
    ("exclusiveMinimum", "must be above", lambda v, b: v <= b),
    ("maximum", "must be at most", lambda v, b: v > b),
    ("exclusiveMaximum", "must be below", lambda v, b: v >= b),
)


def _bound_check(bound: int | float, message: str, fails: Callable[[Any, Any], bool]) -> Check:
    text = f"{message} {bound}"

    def check_bound(v: object) -> None:
        if _is_number(v) and fails(v, bound):
            raise ValidationError(text, "", "value")

    return check_bound


def _multiple_check(divisor: int | float) -> Check:
    text = f"must be a multiple of {divisor}"

    def check_multiple(v: object) -> None:
        if not _is_number(v):
            return
        if isinstance(divisor, float):
            quotient = v / divisor  # type: ignore[operator]  # _is_number checked the type
            try:
                failed = int(quotient) != quotient
            except OverflowError:  # a huge value over a small divisor: decide exactly
                failed = Fraction(v) % Fraction(divisor) != 0  # type: ignore[call-overload]  # _is_number checked the type
        elif isinstance(v, float):
            try:
                failed = bool(v % divisor)
            except OverflowError:  # pragma: no cover - float % int does not overflow
                failed = True
        else:
            failed = bool(v % divisor)  # type: ignore[operator]  # _is_number checked the type
        if failed:
            raise ValidationError(text, "", "value")

    return check_multiple


def negation(check: Check) -> Check:
    def check_not(v: object) -> None:
        try:
            check(v)
        except ValidationError:
            return
        raise ValidationError("must not match the schema in not", "", "value")

    return check_not


def type_check(kind: object) -> Check:
    names = [kind] if isinstance(kind, str) else list(array_keyword(kind, "type"))
    for name in names:
        if name not in TYPE_TESTS:
            label = name if isinstance(name, str) and len(name) <= 20 else "?"
            raise schema_error(f"unknown JSON type {label!r} (expected one of {', '.join(_ARTICLES)})", "type")
    what = kinds(names)
    if len(names) == 1:
        test = TYPE_TESTS[names[0]]

        def check_type(v: object) -> None:
            if not test(v):
                raise expected(what, v, "")

        return check_type
    tests = [TYPE_TESTS[name] for name in names]

    def check_types(v: object) -> None:
        for test in tests:
            if test(v):
                return
        raise expected(what, v, "")

    return check_types


def enum_check(values: Sequence[object]) -> Check:
    keys = frozenset(map(json_key, values))
    text = choices(values)

    def check_enum(v: object) -> None:
        if json_key(v) not in keys:
            raise ValidationError(text, "", "value")

    return check_enum


def const_check(value: object) -> Check:
    key = json_key(value)
    text = choices([value])

    def check_const(v: object) -> None:
        if json_key(v) != key:
            raise ValidationError(text, "", "value")

    return check_const


def format_check(test: Callable[[str], bool], name: str) -> Check:
    text = f"must be an RFC 3339 {name}" if name in ("date", "time", "date-time") else f"must be a valid {name}"

    def check_format(v: object) -> None:
        if isinstance(v, str) and not test(v):
            raise ValidationError(text, "", "pattern")

    return check_format


def any_of(checks: list[Check]) -> Check:
    def check_any_of(v: object) -> None:
        errors = []
        for check in checks:
            try:
                check(v)
                return
            except ValidationError as e:
                errors.append(e)
        raise any_of_error(errors)

    return check_any_of


def one_of(checks: list[Check]) -> Check:
    def check_one_of(v: object) -> None:
        errors = []
        for check in checks:
            try:
                check(v)
            except ValidationError as e:
                errors.append(e)
        matched = len(checks) - len(errors)
        if matched == 0:
            raise any_of_error(errors)
        if matched > 1:
            raise ValidationError("must match only one of the schemas in oneOf", "", "value")

    return check_one_of
