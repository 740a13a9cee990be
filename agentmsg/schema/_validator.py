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

from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import unquote

from .._checks import expected, missing, type_name
from ..errors import ValidationError
from ._formats import FORMATS
from ._keyword_checks import (
    Check, accept, any_of, array_keyword, at_least, check_additional, check_unique, const_check, enum_check,
    format_check, key_label, many, matching, negation, number_checks, one_of, pattern_keyword, refuse,
    schema_error, size_keyword, string_check, type_check, unexpected,
)

__all__ = ["Check", "SUPPORTED", "UNSUPPORTED", "compile_schema"]


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
            return accept
        if schema is False:
            return refuse
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
            checks.append(type_check(kind))
        if "enum" in schema:
            checks.append(enum_check(array_keyword(schema["enum"], "enum")))
        if "const" in schema:
            checks.append(const_check(schema["const"]))
        if self.formats and "format" in schema:
            test = FORMATS.get(schema["format"]) if isinstance(schema["format"], str) else None
            if test is not None:
                checks.append(format_check(test, schema["format"]))
        if folded == "object" or any(k in schema for k in _OBJECT_KEYWORDS):
            checks.append(self._object(schema, folded == "object"))
        if any(k in schema for k in _MORE_OBJECT_KEYWORDS):
            checks.append(self._object_more(schema))
        if folded == "array" or any(k in schema for k in _ARRAY_KEYWORDS):
            checks.append(self._array(schema, folded == "array"))
        if "contains" in schema:
            checks.append(self._contains(schema))
        if any(k in schema for k in ("minLength", "maxLength", "pattern")):
            checks.append(string_check(schema))
        if any(k in schema for k in _NUMBER_KEYWORDS):
            checks.extend(number_checks(schema))
        if "anyOf" in schema:
            checks.append(any_of(self._list(schema, "anyOf")))
        if "oneOf" in schema:
            checks.append(one_of(self._list(schema, "oneOf")))
        if "allOf" in schema:
            checks.extend(self._list(schema, "allOf"))
        if "not" in schema:
            checks.append(negation(self.sub(schema["not"], "not")))
        if "if" in schema:
            checks.append(self._if(schema))
        if not checks:
            return accept
        if len(checks) == 1:
            return checks[0]

        def check_all(v: object) -> None:
            for check in checks:
                check(v)

        return check_all

    def _list(self, schema: Mapping[str, Any], keyword: str) -> list[Check]:
        items = array_keyword(schema[keyword], keyword)
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
        required_list = array_keyword(schema.get("required", ()), "required")
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
            out.append((pattern_keyword(pattern, "patternProperties", pattern), self.sub(sub, "patternProperties", pattern)))
        return out

    def _object_more(self, schema: Mapping[str, Any]) -> Check:
        names = self.sub(schema["propertyNames"], "propertyNames") if "propertyNames" in schema else None
        low = size_keyword(schema.get("minProperties", 0), "minProperties")
        high = size_keyword(schema.get("maxProperties", -1), "maxProperties")
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
        low = size_keyword(schema.get("minItems", 0), "minItems")
        high = size_keyword(schema.get("maxItems", -1), "maxItems")
        prefix = [self.sub(s, "prefixItems", i) for i, s in enumerate(array_keyword(schema.get("prefixItems", ()), "prefixItems"))]
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
                        err = ValidationError("unexpected item", "", "unexpected") if rest is refuse else e
                        raise err.prefixed(i) from None
            if unique:
                check_unique(v)

        return check_array

    def _contains(self, schema: Mapping[str, Any]) -> Check:
        check = self.sub(schema["contains"], "contains")
        low = size_keyword(schema.get("minContains", 1), "minContains")
        high = size_keyword(schema.get("maxContains", -1), "maxContains")

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
                raise ValidationError(f"must hold at least {matching(low)}", "", "value")
            if 0 <= high < found:
                raise ValidationError(f"must hold at most {matching(high)}", "", "size")

        return check_contains

    def _if(self, schema: Mapping[str, Any]) -> Check:
        test = self.sub(schema["if"], "if")
        then = self.sub(schema["then"], "then") if "then" in schema else accept
        other = self.sub(schema["else"], "else") if "else" in schema else accept

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
