"""A small JSON Schema (Draft 2020-12) validator for the keywords the generator emits.

Theory of operation: ``compile_schema`` walks a schema once and returns a ``Check``, a function
that returns None for a valid value and raises ``ValidationError`` (with the path of the first bad
value and a stable code) otherwise. Keywords run in one fixed order — ``$ref``, ``type``, ``enum``,
``const``, ``format``, the object keywords (each property in schema order, then the remaining
``required`` names, then ``additionalProperties``), the array keywords (``minItems``,
``maxItems``, ``prefixItems``, ``items``, ``uniqueItems``), ``anyOf``, ``oneOf`` — so that the
typed builder in ``_schema_build`` reports the same first error as this validator does.

Values are compared as JSON does: ``1.0`` is an integer, a boolean is not a number, arrays may be
lists or tuples and objects any ``dict`` (so the core's ``FrozenDict`` works). A schema that uses
an assertion keyword outside the supported set, or a ``$ref`` that is not a local JSON pointer,
raises ``TypeError`` at compile time rather than being validated loosely.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any
from urllib.parse import unquote

from .._checks import type_name
from .._time import parse_date, parse_date_time
from ..errors import ValidationError

__all__ = [
    "Check",
    "SUPPORTED",
    "TYPE_TESTS",
    "UNSUPPORTED",
    "any_of_error",
    "check_additional",
    "check_unique",
    "compile_schema",
    "json_key",
    "key_label",
    "type_error",
    "unexpected",
]

Check = Callable[[Any], None]

SUPPORTED = frozenset({
    "$ref", "$defs", "type", "enum", "const", "format", "properties", "required",
    "additionalProperties", "minItems", "maxItems", "prefixItems", "items", "uniqueItems",
    "anyOf", "oneOf",
})
# Draft 2020-12 assertion and applicator keywords this validator refuses; anything else
# (title, description, default, $schema, $comment, examples, ...) is an annotation and ignored.
UNSUPPORTED = frozenset({
    "$id", "$anchor", "$dynamicRef", "$dynamicAnchor", "$vocabulary", "$recursiveRef",
    "$recursiveAnchor", "allOf", "not", "if", "then", "else", "dependentSchemas",
    "dependentRequired", "patternProperties", "propertyNames", "unevaluatedProperties",
    "unevaluatedItems", "contains", "minContains", "maxContains", "minProperties",
    "maxProperties", "minLength", "maxLength", "pattern", "minimum", "maximum",
    "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "contentSchema",
})



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


def type_error(expected: str, value: object) -> ValidationError:
    """Return the ``type`` error for ``value``, naming JSON Schema's types (``integer or null``).

    >>> str(type_error("integer or null", "7"))
    'expected integer or null, got string'
    """
    return ValidationError(f"expected {expected}, got {type_name(value)}", "", "type")


def any_of_error(errors: Sequence[ValidationError]) -> ValidationError:
    """Return the one error to report when no branch of an ``anyOf`` matched.

    When every branch failed on the value's type, say which types were expected; when exactly
    one branch got further (a wrong field inside the one object branch), report that branch.
    """
    deeper = [e for e in errors if e.path or e.code != "type"]
    if len(deeper) == 1:
        return deeper[0]
    if not deeper and errors:
        # type errors read "expected X, got Y" (see type_error): join the X parts
        parts = [e.message.partition("expected ")[2].rpartition(", got ") for e in errors]
        if all(sep for _, sep, _ in parts):
            expected = " or ".join(dict.fromkeys(x for x, _, _ in parts))
            return ValidationError(f"expected {expected}, got {parts[0][2]}", "", "type")
    return ValidationError("does not match any of the allowed schemas", "", "value")


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


_FORMATS: dict[str, Callable[[str], object]] = {"date": parse_date, "date-time": parse_date_time}


def compile_schema(schema: object) -> Check:
    """Return the check for ``schema``; raise ``TypeError`` if it is not a supported schema.

    >>> check = compile_schema({"type": "array", "items": {"type": "integer"}})
    >>> check([1, 2.0])
    >>> try:
    ...     check([1, "two"])
    ... except ValidationError as exc:
    ...     print(exc)
    [1]: expected integer, got string
    """
    return _Compiler(schema).compile(schema)


class _Compiler:
    def __init__(self, root: object) -> None:
        self.root = root
        self.refs: dict[str, list[Check]] = {}

    def compile(self, schema: object) -> Check:
        if schema is True:
            return _accept
        if schema is False:
            return _refuse
        if not isinstance(schema, Mapping):
            raise TypeError(f"a schema must be an object or a boolean, not {type(schema).__name__}")
        for keyword in schema:
            if keyword in UNSUPPORTED:
                raise TypeError(f"schema keyword {keyword!r} is not supported")
        checks: list[Check] = []
        if "$ref" in schema:
            checks.append(self._ref(schema["$ref"]))
        kind = schema.get("type")
        # "type": "object" / "array" is checked by the object / array check itself (one call less)
        folded = kind if kind in ("object", "array") and not any(k in schema for k in ("$ref", "enum", "const")) else None
        if "type" in schema and folded is None:
            checks.append(_type_check(kind))
        if "enum" in schema:
            checks.append(_enum_check(_array(schema["enum"], "enum")))
        if "const" in schema:
            checks.append(_const_check(schema["const"]))
        parse = _FORMATS.get(schema.get("format"))  # type: ignore[arg-type]  # a non-string format finds no entry
        if parse is not None:
            checks.append(_format_check(parse, schema["format"]))
        if folded == "object" or any(k in schema for k in ("properties", "required", "additionalProperties")):
            checks.append(self._object(schema, folded == "object"))
        if folded == "array" or any(k in schema for k in ("minItems", "maxItems", "prefixItems", "items", "uniqueItems")):
            checks.append(self._array(schema, folded == "array"))
        if "anyOf" in schema:
            checks.append(_any_of([self.compile(s) for s in _array(schema["anyOf"], "anyOf")]))
        if "oneOf" in schema:
            checks.append(_one_of([self.compile(s) for s in _array(schema["oneOf"], "oneOf")]))
        if not checks:
            return _accept
        if len(checks) == 1:
            return checks[0]

        def check_all(v: object) -> None:
            for check in checks:
                check(v)

        return check_all

    def _ref(self, ref: object) -> Check:
        if not isinstance(ref, str) or not (ref == "#" or ref.startswith("#/")):
            raise TypeError("only local $ref JSON pointers ('#' or '#/...') are supported")
        cell = self.refs.get(ref)
        if cell is None:
            cell = self.refs[ref] = []
            cell.append(self.compile(self._resolve(ref)))
            return cell[0]

        def check_ref(v: object) -> None:
            cell[0](v)

        return check_ref

    def _resolve(self, ref: str) -> object:
        node = self.root
        for token in ref[2:].split("/") if ref != "#" else ():
            token = unquote(token).replace("~1", "/").replace("~0", "~")
            if isinstance(node, Mapping) and token in node:
                node = node[token]
            elif isinstance(node, (list, tuple)) and token.isdigit() and int(token) < len(node):
                node = node[int(token)]
            else:
                raise TypeError("$ref does not resolve inside the schema")
        return node

    def _object(self, schema: Mapping[str, Any], typed: bool) -> Check:
        properties = schema.get("properties", {})
        if not isinstance(properties, Mapping):
            raise TypeError("'properties' must be an object")
        props = [(name, _exact(sub), self.compile(sub)) for name, sub in properties.items()]
        required = frozenset(_array(schema.get("required", ()), "required"))
        extra_required = [name for name in _array(schema.get("required", ()), "required") if name not in properties]
        known = frozenset(properties)
        additional = schema.get("additionalProperties", True)
        extra = None if additional is True else self.compile(additional)

        def check_object(v: object) -> None:
            if not isinstance(v, dict):
                if typed:
                    raise type_error("object", v)
                return
            for name, exact, check in props:
                x = v.get(name, _MISSING)
                if type(x) in exact:
                    continue
                if x is _MISSING:
                    if name in required:
                        raise ValidationError("required property is missing", name, "missing")
                    continue
                try:
                    check(x)
                except ValidationError as e:
                    raise e.prefixed(name) from None
            for name in extra_required:
                if name not in v:
                    raise ValidationError("required property is missing", name, "missing")
            if extra is not None and not known.issuperset(v):
                for key in v:
                    if key not in known:
                        check_additional(extra, key, v[key])

        return check_object

    def _array(self, schema: Mapping[str, Any], typed: bool) -> Check:
        low = _count(schema.get("minItems", 0), "minItems")
        high = _count(schema.get("maxItems", -1), "maxItems")
        prefix = [self.compile(s) for s in _array(schema.get("prefixItems", ()), "prefixItems")]
        items = schema.get("items", True)
        rest = None if items is True else self.compile(items)
        unique = schema.get("uniqueItems", False) is True
        start = len(prefix)
        exact = _exact(items)

        def check_array(v: object) -> None:
            if not isinstance(v, (list, tuple)):
                if typed:
                    raise type_error("array", v)
                return
            if len(v) < low:
                raise ValidationError(f"expected at least {low} items, got {len(v)}", "", "value")
            if 0 <= high < len(v):
                raise ValidationError(f"expected at most {high} items, got {len(v)}", "", "size")
            for i, (check, item) in enumerate(zip(prefix, v)):
                try:
                    check(item)
                except ValidationError as e:
                    raise e.prefixed(i) from None
            if rest is not None and not (exact and all(type(x) in exact for x in v)):
                for i in range(start, len(v)):
                    try:
                        rest(v[i])
                    except ValidationError as e:
                        err = ValidationError("unexpected item", "", "unexpected") if rest is _refuse else e
                        raise err.prefixed(i) from None
            if unique:
                check_unique(v)

        return check_array


_MISSING: Any = object()
_ANNOTATIONS = frozenset({"title", "description", "default", "examples", "$comment", "deprecated"})
_EXACT: dict[str, set[type]] = {"string": {str}, "integer": {int}, "number": {int, float}, "boolean": {bool}, "null": {type(None)}}


def _exact(schema: object) -> frozenset[type]:
    """Return the Python types that alone make a value valid for ``schema`` (a fast path).

    Only for a schema that says nothing but ``type`` with scalar types; otherwise empty.
    """
    if not isinstance(schema, Mapping) or not set(schema) - _ANNOTATIONS == {"type"}:
        return frozenset()
    kind: Any = schema["type"]
    names: Any = [kind] if isinstance(kind, str) else kind
    if not isinstance(names, (list, tuple)) or not all(isinstance(n, str) and n in _EXACT for n in names):
        return frozenset()
    return frozenset(t for n in names for t in _EXACT[n])


def key_label(key: object) -> str:
    """Return ``key`` as it appears in an error path (long unknown keys are cut short)."""
    text = key if isinstance(key, str) else repr(key)  # a non-JSON dict may have other keys
    return text if len(text) <= 40 else text[:37] + "..."


def unexpected(key: object) -> ValidationError:
    """Return the ``additional`` error for an object key no schema allows."""
    return ValidationError("unexpected property", key_label(key), "unexpected")


def check_additional(check: Check, key: object, value: object) -> None:
    """Run ``additionalProperties`` on one extra property (a ``false`` schema says ``additional``)."""
    if check is _refuse:
        raise unexpected(key)
    try:
        check(value)
    except ValidationError as e:
        raise e.prefixed(key_label(key)) from None


def check_unique(items: Sequence[object]) -> None:
    """Raise ``unique`` if two items of the array are JSON-equal."""
    if len(set(map(json_key, items))) != len(items):
        raise ValidationError("items must be unique", "", "unique")


def _accept(v: object) -> None:
    return None


def _refuse(v: object) -> None:
    raise ValidationError("no value is allowed here", "", "unexpected")


def _array(value: object, keyword: str) -> Sequence[Any]:
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"{keyword!r} must be an array")
    return value


def _count(value: object, keyword: str) -> int:
    if _is_integer(value) and value >= 0:  # type: ignore[operator]  # _is_integer checked the type
        return int(value)  # type: ignore[call-overload, no-any-return]  # _is_integer checked the type
    if keyword == "maxItems" and value == -1:
        return -1
    raise TypeError(f"{keyword!r} must be a non-negative integer")


def _type_check(kind: object) -> Check:
    names = [kind] if isinstance(kind, str) else list(_array(kind, "type"))
    for name in names:
        if name not in TYPE_TESTS:
            raise TypeError(f"unknown JSON type {name!r}")
    expected = " or ".join(names)
    if len(names) == 1:
        test = TYPE_TESTS[names[0]]

        def check_type(v: object) -> None:
            if not test(v):
                raise type_error(expected, v)

        return check_type
    tests = [TYPE_TESTS[name] for name in names]

    def check_types(v: object) -> None:
        for test in tests:
            if test(v):
                return
        raise type_error(expected, v)

    return check_types


def _enum_check(values: Sequence[object]) -> Check:
    keys = frozenset(map(json_key, values))

    def check_enum(v: object) -> None:
        if json_key(v) not in keys:
            raise ValidationError("must be one of the allowed values", "", "value")

    return check_enum


def _const_check(value: object) -> Check:
    key = json_key(value)

    def check_const(v: object) -> None:
        if json_key(v) != key:
            raise ValidationError("must equal the schema's constant", "", "value")

    return check_const


def _format_check(parse: Callable[[str], object], name: str) -> Check:
    def check_format(v: object) -> None:
        if isinstance(v, str) and parse(v) is None:
            raise ValidationError(f"must be an RFC 3339 {name}", "", "pattern")

    return check_format


def _any_of(checks: list[Check]) -> Check:
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


def _one_of(checks: list[Check]) -> Check:
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
            raise ValidationError("matches more than one of the schemas in oneOf", "", "value")

    return check_one_of
