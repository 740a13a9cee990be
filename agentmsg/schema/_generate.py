"""The schema generator: type hints to JSON Schema, argument validation and typed builders (``agentmsg.schema``'s public functions)."""

# No ``from __future__ import annotations`` here: the doctests below define dataclasses, and the
# generator must resolve their hints (string annotations would not resolve inside a doctest).

import dataclasses
import enum
import functools
import inspect
import json
import math
import re
from collections.abc import Callable
from datetime import date, datetime
from typing import Any, TypeVar, overload

from . import _types as t
from .._frozen import FrozenDict
from ._build import compile_builder
from ._validator import Check, compile_schema
from ..errors import ValidationError

__all__ = ["build", "schema_for", "validate_arguments"]

T = TypeVar("T")

_FORMATS = {datetime: "date-time", date: "date"}


def schema_for(tp: Any, strict: bool = True) -> dict[str, Any]:
    """Return the JSON Schema (Draft 2020-12) of the type ``tp`` as a fresh dict.

    >>> from dataclasses import dataclass, field
    >>> @dataclass
    ... class Search:
    ...     query: str
    ...     tags: set[str] = field(default_factory=set)
    >>> schema_for(Search, strict=False)
    {'type': 'object', 'properties': {'query': {'type': 'string'}, 'tags': {'type': 'array', 'items': {'type': 'string'}, 'uniqueItems': True}}, 'required': ['query'], 'additionalProperties': False}
    >>> schema_for(list[int])
    Traceback (most recent call last):
        ...
    TypeError: strict schemas describe tool parameters, so the root must be a dataclass; pass strict=False for list[int]

    Nested dataclasses are defined once under ``$defs`` and referenced with ``$ref``. An
    unsupported type raises ``TypeError`` naming the field and the type. Results are cached per
    ``(tp, strict)``; each call returns a new dict, safe to change.
    """
    schema: dict[str, Any] = json.loads(_schema_text(tp, strict))
    return schema


def validate_arguments(schema: Any, value: Any, *, formats: bool = False) -> None:
    """Check ``value`` against the JSON Schema ``schema``; raise ``ValidationError`` if it fails.

    >>> schema = {"type": "object", "properties": {"files": {"type": "array", "items": {
    ...     "type": "object", "properties": {"mode": {"enum": ["r", "w"]}}}}}}
    >>> try:
    ...     validate_arguments(schema, {"files": [{"mode": "r"}, {"mode": "r"}, {"mode": "x"}]})
    ... except ValidationError as exc:
    ...     print(exc)
    files[2].mode: must be one of r, w

    >>> try:
    ...     validate_arguments({"type": "object", "properties": {"n": {"type": "integer", "maximum": 10}}}, {"n": 11})
    ... except ValidationError as exc:
    ...     print(exc, exc.code)
    n: must be at most 10 value

    The error has the path of the first bad value and a stable ``code`` from ``errors.CODES``:
    ``type``, ``missing`` (``required``, ``dependentRequired``), ``unexpected``
    (``additionalProperties``, extra items, a ``false`` schema, ``propertyNames``), ``value``
    (``enum``, ``const``, the numeric bounds, ``multipleOf``, ``minItems``, ``minLength``,
    ``minProperties``, ``contains``, ``anyOf``, ``oneOf``, ``not``), ``size`` (``maxItems``,
    ``maxLength``, ``maxProperties``, ``maxContains``), ``pattern`` (``pattern``, ``format``),
    ``unique`` or ``depth``. The Draft 2020-12 vocabulary tool schemas use is supported
    (docs/tool-schemas.md lists it); a schema that uses anything else, or a malformed keyword,
    raises ``ValidationError`` with code ``schema`` and the keyword's path in the schema.
    ``format`` is an annotation unless ``formats=True``, which asserts ``date``, ``time``,
    ``date-time``, ``email``, ``ipv4``, ``ipv6``, ``uri`` and ``uuid``. Compiled schemas are
    cached (by JSON text, and by identity for a ``FrozenDict`` such as ``ToolDefinition.parameters``).
    """
    check = _check_for(schema, formats)
    try:
        check(value)
    except RecursionError:
        raise ValidationError("nested too deeply", "", "depth") from None


@overload
def build(tp: type[T], arguments: Any, *, strict: bool = True) -> T: ...
@overload
def build(tp: Any, arguments: Any, *, strict: bool = True) -> Any: ...
def build(tp: Any, arguments: Any, *, strict: bool = True) -> Any:
    """Validate ``arguments`` against ``schema_for(tp, strict)`` and return the typed value.

    >>> import enum
    >>> from dataclasses import dataclass
    >>> class Mode(enum.Enum):
    ...     READ = "r"
    ...     WRITE = "w"
    >>> @dataclass(frozen=True)
    ... class Open:
    ...     path: str
    ...     mode: Mode = Mode.READ
    >>> build(Open, {"path": "a.txt", "mode": "w"})
    Open(path='a.txt', mode=<Mode.WRITE: 'w'>)
    >>> build(Open, {"path": "a.txt"}, strict=False)
    Open(path='a.txt', mode=<Mode.READ: 'r'>)
    >>> try:
    ...     build(Open, {"path": "a.txt"})
    ... except ValidationError as exc:
    ...     print(exc)
    mode: is required

    Nested dataclasses, enums, tuples, sets, literals and datetimes are restored; ``null`` for a
    field with a default gives the default. It raises the same error (path and code) as
    ``validate_arguments`` would, and never returns a half-built object.
    """
    try:
        builder = _BUILDERS[tp, strict] if strict is True or strict is False else None
    except (KeyError, TypeError):  # not built yet, or an unhashable type hint
        builder = None
    if builder is None:
        builder = _builder_for(tp, strict)
    try:
        return builder(arguments)
    except RecursionError:
        raise ValidationError("nested too deeply", "", "depth") from None


def function_schema(fn: Callable[..., Any], strict: bool = True) -> dict[str, Any]:
    """Return the object schema of the parameters of ``fn`` (used by ``ToolDefinition``).

    >>> def search(query: str, limit: int = 10) -> list[str]: ...
    >>> function_schema(search, strict=False)
    {'type': 'object', 'properties': {'query': {'type': 'string'}, 'limit': {'type': 'integer', 'default': 10}}, 'required': ['query'], 'additionalProperties': False}
    """
    _check_strict_flag(strict)
    text = _function_text(fn, strict) if _hashable(fn) else _generate_function(fn, strict)
    parsed: dict[str, Any] = json.loads(text)
    return parsed


@functools.lru_cache(maxsize=256)
def _function_text(fn: Callable[..., Any], strict: bool) -> str:
    return _generate_function(fn, strict)


def _generate_function(fn: Callable[..., Any], strict: bool) -> str:
    emitter = _Emitter(strict, None)
    return json.dumps(emitter.finish(emitter.object(t.describe_function(fn))), allow_nan=False)


def tool_parts(
    obj: Any, name: str | None, description: str | None, strict: bool, *, function: bool
) -> tuple[Any, Any, dict[str, Any]]:
    """Return the name, description and parameter schema of a tool made from ``obj``.

    ``obj`` is a dataclass (name: its class name in snake_case) or, with ``function=True``, a
    function (name: its own); the description defaults to the first paragraph of the
    docstring, or "" without one. Used by ``ToolDefinition.from_dataclass``/``from_function``.
    """
    if not function:
        if not (isinstance(obj, type) and dataclasses.is_dataclass(obj)):
            raise TypeError(f"expected a dataclass, got {_t_name(obj)}; decorate the class with @dataclass")
        parameters = schema_for(obj, strict)
        doc = obj.__doc__ or ""
        if doc.startswith(obj.__name__ + "("):  # the signature dataclass writes when there is no docstring
            doc = ""
        default_name = _SNAKE.sub("_", obj.__name__).lower()
    else:
        if isinstance(obj, type) or not callable(obj):
            raise TypeError(f"expected a function, got {_t_name(obj)}; pass a dataclass to from_dataclass")
        parameters = function_schema(obj, strict)
        doc = inspect.getdoc(obj) or ""
        default_name = getattr(obj, "__name__", "")
    summary = " ".join(inspect.cleandoc(doc).split("\n\n")[0].split())
    return (default_name if name is None else name, summary if description is None else description, parameters)


def _t_name(obj: object) -> str:
    return f"class {obj.__qualname__}" if isinstance(obj, type) else type(obj).__name__


_SNAKE = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def _check_strict_flag(strict: object) -> None:
    if type(strict) is not bool:
        raise TypeError(f"strict must be a bool, not {type(strict).__name__}")


def _hashable(tp: object) -> bool:
    try:
        hash(tp)
    except TypeError:
        return False
    return True


def _schema_text(tp: Any, strict: bool) -> str:
    _check_strict_flag(strict)
    return _cached_text(tp, strict) if _hashable(tp) else _generate(tp, strict)


@functools.lru_cache(maxsize=512)
def _cached_text(tp: Any, strict: bool) -> str:
    return _generate(tp, strict)


def _generate(tp: Any, strict: bool) -> str:
    try:
        node = t.describe(tp)
    except t.Unsupported as e:
        raise TypeError(str(e)) from None
    if isinstance(node, t.Ref):
        emitter = _Emitter(strict, node.cls)
        schema = emitter.object(t.describe_object(node.cls))
    elif strict:
        raise TypeError(
            "strict schemas describe tool parameters, so the root must be a dataclass; "
            f"pass strict=False for {t._name(tp)}"
        )
    else:
        emitter = _Emitter(strict, None)
        try:
            schema = emitter.emit(node)
        except t.Unsupported as e:
            raise TypeError(str(e)) from None
    return json.dumps(emitter.finish(schema), allow_nan=False)


_BUILDERS: dict[tuple[Any, object], Callable[[Any], Any]] = {}


def _builder_for(tp: Any, strict: bool) -> Callable[[Any], Any]:
    _schema_text(tp, strict)  # raises the TypeError schema_for would
    builder = compile_builder(tp, strict)
    if _hashable(tp) and len(_BUILDERS) < 1024:
        _BUILDERS[tp, strict] = builder
    return builder


def _arguments_builder(tp: Any) -> Callable[[Any], Any]:
    """Return the builder of a model's arguments for ``tp``: any type the builder can build.

    Decoding is not schema generation: it accepts both shapes a model sends (optional keys left
    out, or present with ``null`` for "the default") and the types a strict schema cannot
    express (a mixed tuple). A type the generator does not support raises ``TypeError``.
    """
    try:
        return _ARGUMENT_BUILDERS[tp]  # every ``arguments_as`` call: one lookup, no key to build
    except (KeyError, TypeError):  # not built yet, or an unhashable type hint
        pass
    _schema_text(tp, False)
    builder = compile_builder(tp, False, lenient=True)
    if _hashable(tp) and len(_ARGUMENT_BUILDERS) < 1024:
        _ARGUMENT_BUILDERS[tp] = builder
    return builder


_ARGUMENT_BUILDERS: dict[Any, Callable[[Any], Any]] = {}


_FROZEN_CHECKS: dict[tuple[int, bool], tuple[Any, Check]] = {}


def _check_for(schema: Any, formats: bool = False) -> Check:
    """Return the compiled check of ``schema``, cached by its JSON text.

    A ``FrozenDict`` schema (as ``ToolDefinition.parameters``) cannot change, so it is also
    cached by identity, which skips serializing it on every call.
    """
    if type(schema) is FrozenDict:
        key = (id(schema), formats)
        entry = _FROZEN_CHECKS.get(key)
        if entry is not None and entry[0] is schema:
            return entry[1]
        if len(_FROZEN_CHECKS) >= 256:
            _FROZEN_CHECKS.clear()
        check = _check_for(dict(schema), formats)
        _FROZEN_CHECKS[key] = (schema, check)  # holding the schema keeps its id unique
        return check
    try:
        text = json.dumps(schema, allow_nan=False)
    except RecursionError:
        raise ValidationError("the schema is nested too deeply", "", "schema") from None
    except (TypeError, ValueError):
        raise ValidationError(
            "a schema must be JSON: objects, arrays, strings, finite numbers, booleans and null", "", "schema"
        ) from None
    return _compiled(text, formats)


@functools.lru_cache(maxsize=256)
def _compiled(text: str, formats: bool) -> Check:
    return compile_schema(json.loads(text), formats)


class _Emitter:
    """Turn descriptions into schema dicts, collecting dataclasses under ``$defs``."""

    def __init__(self, strict: bool, root: type | None) -> None:
        self.strict = strict
        self.root = root
        self.names: dict[type, str] = {}
        self.defs: dict[str, Any] = {}

    def finish(self, schema: dict[str, Any]) -> dict[str, Any]:
        if self.defs:
            schema["$defs"] = self.defs
        return schema

    def object(self, obj: t.Object) -> dict[str, Any]:
        properties: dict[str, Any] = {}
        required = []
        for f in obj.fields:
            node, text = (f.node.node, f.node.text) if isinstance(f.node, t.Described) else (f.node, None)
            try:
                schema = self.emit(node)
            except t.Unsupported as e:
                raise TypeError(f"{obj.name}.{f.name}: {e}") from None
            if f.optional and self.strict and not t.accepts_null(node):
                schema = _nullable(schema)
            elif f.optional and not self.strict and f.default is not t.MISSING:
                default = _default_json(f.default)
                if default is not _NO_JSON:
                    schema["default"] = default
            properties[f.name] = self._describe(schema, text) if text is not None else schema
            if self.strict or not f.optional:
                required.append(f.name)
        return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}

    def emit(self, node: t.Node) -> dict[str, Any]:
        if isinstance(node, t.Scalar):
            if node.py in _FORMATS:
                return {"type": "string", "format": _FORMATS[node.py]}
            return {"type": t.JSON_TYPES[node.py]}
        if isinstance(node, t.Choice):
            kinds = list(dict.fromkeys(t.JSON_TYPES[type(v)] for v in node.values))
            return {"type": kinds[0] if len(kinds) == 1 else kinds, "enum": list(node.values)}
        if isinstance(node, t.Array):
            schema: dict[str, Any] = {"type": "array", "items": self.emit(node.item)}
            if node.kind in (set, frozenset) and not self.strict:
                schema["uniqueItems"] = True
            return schema
        if isinstance(node, t.Fixed):
            return self._fixed(node)
        if isinstance(node, t.Map):
            if self.strict:
                raise t.Unsupported(
                    "dict[str, X] cannot be expressed in strict mode (it needs additionalProperties "
                    "with a schema); pass strict=False"
                )
            return {"type": "object", "additionalProperties": self.emit(node.value)}
        if isinstance(node, t.Union_):
            schemas = [self.emit(m) for m in node.members]
            if all(list(s) == ["type"] for s in schemas):
                kinds = [k for s in schemas for k in (s["type"] if isinstance(s["type"], list) else [s["type"]])]
                return {"type": list(dict.fromkeys(kinds))}
            return {"anyOf": schemas}
        if isinstance(node, t.Ref):
            return {"$ref": self._ref(node.cls)}
        return self._describe(self.emit(node.node), node.text)  # Described

    def _describe(self, schema: dict[str, Any], text: str) -> dict[str, Any]:
        if not (self.strict and "$ref" in schema):  # strict mode allows no siblings beside $ref
            schema["description"] = text
        return schema

    def _fixed(self, node: t.Fixed) -> dict[str, Any]:
        n = len(node.items)
        if len(set(node.items)) == 1:
            return {"type": "array", "items": self.emit(node.items[0]), "minItems": n, "maxItems": n}
        if self.strict:
            raise t.Unsupported(
                "a tuple of mixed item types needs prefixItems, which strict mode does not accept; "
                "use tuple[X, ...], a dataclass, or pass strict=False"
            )
        prefix = [self.emit(item) for item in node.items]
        return {"type": "array", "prefixItems": prefix, "items": False, "minItems": n}

    def _ref(self, cls: type) -> str:
        if cls is self.root:
            return "#"
        name = self.names.get(cls)
        if name is None:
            name, n = cls.__name__, 2
            while name in self.defs:
                name, n = f"{cls.__name__}_{n}", n + 1
            self.names[cls] = name
            self.defs[name] = {}  # reserve the slot: a recursive reference finds the name
            self.defs[name] = self.object(t.describe_object(cls))
        return f"#/$defs/{name}"


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    description = schema.pop("description", None)
    if list(schema) == ["type"]:
        kinds = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        schema = {"type": [*kinds, "null"]}
    else:
        schema = {"anyOf": [schema, {"type": "null"}]}
    if description is not None:
        schema["description"] = description
    return schema


_NO_JSON: Any = object()


def _default_json(value: object) -> Any:
    """Return a field default as JSON for the ``default`` keyword, or ``_NO_JSON``."""
    if value is None or type(value) in (str, bool, int):
        return value
    if type(value) is float:
        return value if math.isfinite(value) else _NO_JSON
    if isinstance(value, enum.Enum):
        return _default_json(value.value)
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, (list, tuple, set, frozenset)):
        items = [_default_json(v) for v in value]
        if any(v is _NO_JSON for v in items):
            return _NO_JSON
        if isinstance(value, (set, frozenset)):
            items.sort(key=json.dumps)
        return items
    if isinstance(value, dict) and all(type(k) is str for k in value):
        out = {k: _default_json(v) for k, v in value.items()}
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        out = {f.name: _default_json(getattr(value, f.name)) for f in dataclasses.fields(value)}
    else:
        return _NO_JSON
    return _NO_JSON if any(v is _NO_JSON for v in out.values()) else out
