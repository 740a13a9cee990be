"""A JSON Schema (Draft 2020-12) validator for the vocabulary tool schemas use.

Theory of operation: ``compile_schema`` walks a schema once and returns a ``Check``, a function
that returns None for a valid value and raises ``ValidationError`` (with the path of the first bad
value and a stable code) otherwise. Keywords run in one fixed order — ``$ref``, ``type``, ``enum``,
``const``, ``format``, the object keywords (each property in schema order, then the remaining
``required`` names, then ``patternProperties`` and ``additionalProperties``, then
``propertyNames``, ``minProperties``/``maxProperties``, ``dependentRequired``,
``dependentSchemas``), the array keywords (``minItems``, ``maxItems``, ``prefixItems``,
``items``, ``uniqueItems``, then ``contains``), the string keywords (``minLength``,
``maxLength``, ``pattern``), the number keywords (``minimum``, ``exclusiveMinimum``,
``maximum``, ``exclusiveMaximum``, ``multipleOf``), ``anyOf``, ``oneOf``, ``allOf``, ``not``,
``if``/``then``/``else`` — so that the typed builder in ``_build`` reports the same first error as
this validator does for the schemas the generator emits. A schema that uses none of the later
keywords compiles to exactly the checks it did before they were supported.

Values are compared as JSON does: ``1.0`` is an integer, a boolean is not a number, arrays may be
lists or tuples and objects any ``dict`` (so the core's ``FrozenDict`` works). A schema comes from
outside (an MCP server, a log): what this validator does not support, or a keyword whose value
is malformed, raises ``ValidationError`` with code ``schema`` and the keyword's path inside the
schema, at compile time, rather than being validated loosely. Patterns are ECMA-262 and are
translated for Python's ``re`` (see ``_regex``); ``format`` is an annotation unless the caller asks
for the common formats to be asserted (see ``_formats``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any
from urllib.parse import unquote

from .._checks import expected, missing, type_name
from ..errors import ValidationError
from ._formats import FORMATS
from ._regex import PatternError, compile_pattern

__all__ = [
    "Check",
    "FORMATS",
    "SUPPORTED",
    "TYPE_TESTS",
    "UNSUPPORTED",
    "any_of_error",
    "at_least",
    "check_additional",
    "check_unique",
    "choices",
    "compile_schema",
    "json_key",
    "key_label",
    "kinds",
    "many",
    "schema_error",
    "unexpected",
]

Check = Callable[[Any], None]

SUPPORTED = frozenset({
    "$ref", "$defs", "type", "enum", "const", "format", "properties", "required",
    "additionalProperties", "patternProperties", "propertyNames", "minProperties", "maxProperties",
    "dependentRequired", "dependentSchemas", "minItems", "maxItems", "prefixItems", "items",
    "uniqueItems", "contains", "minContains", "maxContains", "minLength", "maxLength", "pattern",
    "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "anyOf", "oneOf",
    "allOf", "not", "if", "then", "else",
})
# Keywords this validator refuses: Draft 2020-12's dynamic scope and unevaluated* keywords, and
# the Draft 7 forms whose meaning 2020-12 moved elsewhere (a schema using them means them). Any
# other keyword (title, description, default, $schema, $comment, examples, x-...) is an annotation
# and ignored; a ``$id`` is accepted at the root only (it changes nothing for local references).
UNSUPPORTED = frozenset({
    "$anchor", "$dynamicRef", "$dynamicAnchor", "$recursiveRef", "$recursiveAnchor",
    "unevaluatedProperties", "unevaluatedItems", "dependencies", "additionalItems",
})
_REASONS = {
    "dependencies": " (Draft 7; Draft 2020-12 splits it into dependentRequired and dependentSchemas)",
    "additionalItems": " (Draft 7; Draft 2020-12 uses prefixItems and items)",
}


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


def many(n: int, unit: str) -> str:
    """Count ``n`` of ``unit`` in words: ``1 item``, ``2 items``."""
    return f"{n} {unit}" if n == 1 else f"{n} {unit}s"


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


def compile_schema(schema: object, formats: bool = False) -> Check:
    """Return the check for ``schema``; raise ``ValidationError`` (code ``schema``) if it cannot.

    >>> check = compile_schema({"type": "array", "items": {"type": "integer", "minimum": 0}})
    >>> check([1, 2.0])
    >>> try:
    ...     check([1, -2])
    ... except ValidationError as exc:
    ...     print(exc, exc.code)
    [1]: must be at least 0 value
    >>> try:
    ...     compile_schema({"properties": {"id": {"type": "string", "pattern": "(a+)+$"}}})
    ... except ValidationError as exc:
    ...     print(exc)
    properties.id.pattern: an unbounded quantifier applies to a group that repeats inside (catastrophic backtracking)

    With ``formats=True`` the formats in ``FORMATS`` are asserted; otherwise ``format`` is an
    annotation, as Draft 2020-12 says.
    """
    try:
        return _Compiler(schema, formats).compile(schema)
    except RecursionError:
        raise schema_error("the schema is nested too deeply") from None


class _Compiler:
    def __init__(self, root: object, formats: bool) -> None:
        self.root = root
        self.formats = formats
        self.refs: dict[str, list[Check]] = {}

    def sub(self, schema: object, *keys: str | int) -> Check:
        """Compile a subschema found at ``keys`` below the current one (errors get that path)."""
        try:
            return self.compile(schema)
        except ValidationError as e:
            if e.__dict__.get("absolute"):
                raise
            for key in reversed(keys):
                e = e.prefixed(key)
            raise e from None

    def compile(self, schema: object) -> Check:
        if schema is True:
            return _accept
        if schema is False:
            return _refuse
        if not isinstance(schema, Mapping):
            raise schema_error(f"expected a schema (an object or a boolean), got {type_name(schema)}")
        for keyword in schema:
            if keyword in UNSUPPORTED:
                raise schema_error(f"keyword {keyword} is not supported{_REASONS.get(keyword, '')}", keyword)
        if "$id" in schema and schema is not self.root:
            raise schema_error("$id is supported at the root of a schema only", "$id")
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
        if self.formats and "format" in schema:
            test = FORMATS.get(schema["format"]) if isinstance(schema["format"], str) else None
            if test is not None:
                checks.append(_format_check(test, schema["format"]))
        if folded == "object" or any(k in schema for k in _OBJECT_KEYWORDS):
            checks.append(self._object(schema, folded == "object"))
        if any(k in schema for k in _MORE_OBJECT_KEYWORDS):
            checks.append(self._object_more(schema))
        if folded == "array" or any(k in schema for k in _ARRAY_KEYWORDS):
            checks.append(self._array(schema, folded == "array"))
        if "contains" in schema:
            checks.append(self._contains(schema))
        if any(k in schema for k in ("minLength", "maxLength", "pattern")):
            checks.append(_string_check(schema))
        if any(k in schema for k in _NUMBER_KEYWORDS):
            checks.extend(_number_checks(schema))
        if "anyOf" in schema:
            checks.append(_any_of(self._list(schema, "anyOf")))
        if "oneOf" in schema:
            checks.append(_one_of(self._list(schema, "oneOf")))
        if "allOf" in schema:
            checks.extend(self._list(schema, "allOf"))
        if "not" in schema:
            checks.append(_not(self.sub(schema["not"], "not")))
        if "if" in schema:
            checks.append(self._if(schema))
        if not checks:
            return _accept
        if len(checks) == 1:
            return checks[0]

        def check_all(v: object) -> None:
            for check in checks:
                check(v)

        return check_all

    def _list(self, schema: Mapping[str, Any], keyword: str) -> list[Check]:
        items = _array(schema[keyword], keyword)
        if not items:
            raise schema_error("must be a non-empty array of schemas", keyword)
        return [self.sub(s, keyword, i) for i, s in enumerate(items)]

    def _ref(self, ref: object) -> Check:
        if not isinstance(ref, str) or not (ref == "#" or ref.startswith("#/")):
            raise schema_error("only local JSON-pointer references ('#' or '#/...') are supported", "$ref")
        cell = self.refs.get(ref)
        if cell is None:
            cell = self.refs[ref] = []
            tokens = self._tokens(ref)
            target = self._resolve(tokens)
            try:
                cell.append(self.compile(target))
            except ValidationError as e:  # report where the error is: inside the referenced schema
                if not e.__dict__.get("absolute"):
                    for key in reversed(tokens):
                        e = e.prefixed(key)
                    e.__dict__["absolute"] = True
                raise e from None
            return cell[0]

        def check_ref(v: object) -> None:
            cell[0](v)

        return check_ref

    @staticmethod
    def _tokens(ref: str) -> list[str]:
        return [unquote(t).replace("~1", "/").replace("~0", "~") for t in ref[2:].split("/")] if ref != "#" else []

    def _resolve(self, tokens: list[str]) -> object:
        node = self.root
        for token in tokens:
            if isinstance(node, Mapping) and token in node:
                node = node[token]
            elif isinstance(node, (list, tuple)) and token.isdigit() and int(token) < len(node):
                node = node[int(token)]
            else:
                raise schema_error("$ref does not resolve inside the schema", "$ref")
        return node

    def _object(self, schema: Mapping[str, Any], typed: bool) -> Check:
        properties = schema.get("properties", {})
        if not isinstance(properties, Mapping):
            raise schema_error("must be an object of schemas", "properties")
        props = [(name, _exact(sub), self.sub(sub, "properties", name)) for name, sub in properties.items()]
        required_list = _array(schema.get("required", ()), "required")
        if not all(isinstance(name, str) for name in required_list):
            raise schema_error("must be an array of strings", "required")
        required = frozenset(required_list)
        extra_required = [name for name in required_list if name not in properties]
        known = frozenset(properties)
        additional = schema.get("additionalProperties", True)
        extra = None if additional is True else self.sub(additional, "additionalProperties")
        patterns = self._patterns(schema)

        if patterns:

            def check_object_patterns(v: object) -> None:
                if not isinstance(v, dict):
                    if typed:
                        raise expected("an object", v, "")
                    return
                for name, exact, check in props:
                    x = v.get(name, _MISSING)
                    if x is _MISSING:
                        if name in required:
                            raise missing(name)
                        continue
                    try:
                        check(x)
                    except ValidationError as e:
                        raise e.prefixed(name) from None
                for name in extra_required:
                    if name not in v:
                        raise missing(name)
                for key, value in v.items():
                    matched = False
                    if isinstance(key, str):
                        for regex, check in patterns:
                            if regex(key) is not None:
                                matched = True
                                try:
                                    check(value)
                                except ValidationError as e:
                                    raise e.prefixed(key_label(key)) from None
                    if extra is not None and not matched and key not in known:
                        check_additional(extra, key, value)

            return check_object_patterns

        def check_object(v: object) -> None:
            if not isinstance(v, dict):
                if typed:
                    raise expected("an object", v, "")
                return
            for name, exact, check in props:
                x = v.get(name, _MISSING)
                if type(x) in exact:
                    continue
                if x is _MISSING:
                    if name in required:
                        raise missing(name)
                    continue
                try:
                    check(x)
                except ValidationError as e:
                    raise e.prefixed(name) from None
            for name in extra_required:
                if name not in v:
                    raise missing(name)
            if extra is not None and not known.issuperset(v):
                for key in v:
                    if key not in known:
                        check_additional(extra, key, v[key])

        return check_object

    def _patterns(self, schema: Mapping[str, Any]) -> list[tuple[Callable[[str], object], Check]]:
        pattern_properties = schema.get("patternProperties", {})
        if not isinstance(pattern_properties, Mapping):
            raise schema_error("must be an object of schemas", "patternProperties")
        out = []
        for pattern, sub in pattern_properties.items():
            out.append((_regex(pattern, "patternProperties", pattern), self.sub(sub, "patternProperties", pattern)))
        return out

    def _object_more(self, schema: Mapping[str, Any]) -> Check:
        names = self.sub(schema["propertyNames"], "propertyNames") if "propertyNames" in schema else None
        low = _count(schema.get("minProperties", 0), "minProperties")
        high = _count(schema.get("maxProperties", -1), "maxProperties")
        dependent = schema.get("dependentRequired", {})
        if not isinstance(dependent, Mapping) or not all(
            isinstance(names_, (list, tuple)) and all(isinstance(n, str) for n in names_) for names_ in dependent.values()
        ):
            raise schema_error("must be an object of arrays of strings", "dependentRequired")
        dependent_required = list(dependent.items())
        schemas = schema.get("dependentSchemas", {})
        if not isinstance(schemas, Mapping):
            raise schema_error("must be an object of schemas", "dependentSchemas")
        dependent_schemas = [(name, self.sub(sub, "dependentSchemas", name)) for name, sub in schemas.items()]

        def check_object_more(v: object) -> None:
            if not isinstance(v, dict):
                return
            if names is not None:
                for key in v:
                    try:
                        names(key)
                    except ValidationError:
                        raise ValidationError(
                            "the field's name does not match the schema in propertyNames", key_label(key), "unexpected"
                        ) from None
            if len(v) < low:
                raise ValidationError(at_least(low, "field"), "", "value")
            if 0 <= high < len(v):
                raise ValidationError(f"must hold at most {many(high, 'field')}", "", "size")
            for name, needs in dependent_required:
                if name in v:
                    for need in needs:
                        if need not in v:
                            raise ValidationError(f"is required when {key_label(name)} is present", need, "missing")
            for name, check in dependent_schemas:
                if name in v:
                    check(v)

        return check_object_more

    def _array(self, schema: Mapping[str, Any], typed: bool) -> Check:
        low = _count(schema.get("minItems", 0), "minItems")
        high = _count(schema.get("maxItems", -1), "maxItems")
        prefix = [self.sub(s, "prefixItems", i) for i, s in enumerate(_array(schema.get("prefixItems", ()), "prefixItems"))]
        items = schema.get("items", True)
        if isinstance(items, (list, tuple)):
            raise schema_error("must be a schema (an array of schemas is Draft 7's form; Draft 2020-12 uses prefixItems)", "items")
        rest = None if items is True else self.sub(items, "items")
        unique = schema.get("uniqueItems", False)
        if unique is not True and unique is not False:
            raise schema_error("must be a boolean", "uniqueItems")
        start = len(prefix)
        exact = _exact(items)

        def check_array(v: object) -> None:
            if not isinstance(v, (list, tuple)):
                if typed:
                    raise expected("an array", v, "")
                return
            if len(v) < low:
                raise ValidationError(at_least(low, "item"), "", "value")
            if 0 <= high < len(v):
                raise ValidationError(f"must hold at most {many(high, 'item')}", "", "size")
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

    def _contains(self, schema: Mapping[str, Any]) -> Check:
        check = self.sub(schema["contains"], "contains")
        low = _count(schema.get("minContains", 1), "minContains")
        high = _count(schema.get("maxContains", -1), "maxContains")

        def check_contains(v: object) -> None:
            if not isinstance(v, (list, tuple)):
                return
            found = 0
            for item in v:
                try:
                    check(item)
                except ValidationError:
                    continue
                found += 1
            if found < low:
                raise ValidationError(f"must hold at least {_matching(low)}", "", "value")
            if 0 <= high < found:
                raise ValidationError(f"must hold at most {_matching(high)}", "", "size")

        return check_contains

    def _if(self, schema: Mapping[str, Any]) -> Check:
        test = self.sub(schema["if"], "if")
        then = self.sub(schema["then"], "then") if "then" in schema else _accept
        other = self.sub(schema["else"], "else") if "else" in schema else _accept

        def check_if(v: object) -> None:
            try:
                test(v)
            except ValidationError:
                other(v)
                return
            then(v)

        return check_if


_OBJECT_KEYWORDS = ("properties", "required", "additionalProperties", "patternProperties")
_MORE_OBJECT_KEYWORDS = ("propertyNames", "minProperties", "maxProperties", "dependentRequired", "dependentSchemas")
_ARRAY_KEYWORDS = ("minItems", "maxItems", "prefixItems", "items", "uniqueItems")
_NUMBER_KEYWORDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")


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


def _matching(n: int) -> str:
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
    if check is _refuse:
        raise unexpected(key)
    try:
        check(value)
    except ValidationError as e:
        raise e.prefixed(key_label(key)) from None


def check_unique(items: Sequence[object]) -> None:
    """Raise ``unique`` if two items of the array are JSON-equal."""
    if len(set(map(json_key, items))) != len(items):
        raise ValidationError("must hold unique items", "", "unique")


def _accept(v: object) -> None:
    return None


def _refuse(v: object) -> None:
    raise ValidationError("is not allowed here", "", "unexpected")


def _array(value: object, keyword: str) -> Sequence[Any]:
    if not isinstance(value, (list, tuple)):
        raise schema_error("must be an array", keyword)
    return value


def _count(value: object, keyword: str) -> int:
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


def _regex(pattern: object, *where: str) -> Callable[[str], object]:
    if not isinstance(pattern, str):
        raise schema_error("must be a string", where[0])
    try:
        return compile_pattern(pattern).search
    except PatternError as exc:
        err = schema_error(str(exc))
        for key in reversed(where):
            err = err.prefixed(key)
        raise err from None


def _string_check(schema: Mapping[str, Any]) -> Check:
    low = _count(schema.get("minLength", 0), "minLength")
    high = _count(schema.get("maxLength", -1), "maxLength")
    search = _regex(schema["pattern"], "pattern") if "pattern" in schema else None

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


def _number_checks(schema: Mapping[str, Any]) -> list[Check]:
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


def _not(check: Check) -> Check:
    def check_not(v: object) -> None:
        try:
            check(v)
        except ValidationError:
            return
        raise ValidationError("must not match the schema in not", "", "value")

    return check_not


def _type_check(kind: object) -> Check:
    names = [kind] if isinstance(kind, str) else list(_array(kind, "type"))
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


def _enum_check(values: Sequence[object]) -> Check:
    keys = frozenset(map(json_key, values))
    text = choices(values)

    def check_enum(v: object) -> None:
        if json_key(v) not in keys:
            raise ValidationError(text, "", "value")

    return check_enum


def _const_check(value: object) -> Check:
    key = json_key(value)
    text = choices([value])

    def check_const(v: object) -> None:
        if json_key(v) != key:
            raise ValidationError(text, "", "value")

    return check_const


def _format_check(test: Callable[[str], bool], name: str) -> Check:
    text = f"must be an RFC 3339 {name}" if name in ("date", "time", "date-time") else f"must be a valid {name}"

    def check_format(v: object) -> None:
        if isinstance(v, str) and not test(v):
            raise ValidationError(text, "", "pattern")

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
            raise ValidationError("must match only one of the schemas in oneOf", "", "value")

    return check_one_of
