"""Tool calls the model makes, the results that answer them, and the tools it may call."""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar, overload

from ._checks import (
    _KNOWN_NAMES, _NAME, check_id as _check_id, check_name, check_text, count, expect_object, get_bool, get_str, sized,
    type_name,
)
from ._construct import builder, from_table, list_to_dict, raw_setters, row
from ._json import loads_strict
from ._frozen import FrozenDict, _freeze_dict, freeze_json, freeze_object, thaw_checked, thaw_json
from .errors import InvalidArgumentsError, ValidationError

__all__ = [
    "ToolCall",
    "ToolDefinition",
    "check_name",
    "tool_call_from_dict",
    "tool_calls_to_dicts",
    "NAME_ESCAPE",
    "to_canonical_name",
    "to_wire_name",
]

_EMPTY_ARGS: FrozenDict = freeze_json({})
T = TypeVar("T")


# -- Wire names <-> canonical names ------------------------------------------------------------
#
# Theory of operation: providers and MCP servers name tools with characters the canonical rule
# has no room for (``get-sum``, ``db.query``). Each such character becomes ``_xHH_`` (two
# lowercase hex digits of its code point, as XML's ``XmlConvert.EncodeName`` does with
# ``_xHHHH_``), so ``get-sum`` reads ``get_x2d_sum``. Only printable ASCII can be escaped, so
# ``HH`` is one of the codes in ``_ESCAPABLE``; any other ``_x..`` text is plain text. A wire name
# that already holds the text of an escape keeps it by escaping its underscore as ``_x5f_``.
# Decoding reads left to right and takes an escape whole, so every canonical name has exactly one
# wire name and every wire name exactly one canonical name: the two functions are inverses.

NAME_ESCAPE = "_x"
"""The start of an escape in a canonical tool name: ``_x`` + two lowercase hex digits + ``_``."""

_ESCAPABLE = frozenset(
    c for c in map(chr, range(0x20, 0x7F)) if not (c.isascii() and (c.isalnum() or c == "_"))
) | {"_"}
_HEX = "|".join(sorted(f"{ord(c):02x}" for c in _ESCAPABLE))


# The escape patterns are compiled on first use, not at import (``import agentmsg`` time): each
# stub rebinds its module global to the compiled pattern's method, so later calls pay nothing.
def _load_escape_sub(repl: Callable[[re.Match[str]], str], text: str) -> str:
    global _escape_sub
    _escape_sub = re.compile(rf"_x({_HEX})_").sub
    return _escape_sub(repl, text)


_escape_sub: Callable[[Callable[[re.Match[str]], str], str], str] = _load_escape_sub


def _load_escape_head(text: str, pos: int) -> re.Match[str] | None:
    """Match, after a "_", text that would read as an escape."""
    global _escape_head
    _escape_head = re.compile(rf"x(?:{_HEX})(?=[^A-Za-z0-9])").match
    return _escape_head(text, pos)


_escape_head: Callable[[str, int], re.Match[str] | None] = _load_escape_head


def _load_wire_name(text: str) -> re.Match[str] | None:
    global _wire_name
    _wire_name = re.compile(r"[\x20-\x7e]{1,64}").fullmatch
    return _wire_name(text)


_wire_name: Callable[[str], re.Match[str] | None] = _load_wire_name


def to_canonical_name(wire_name: str) -> str:
    """Return the canonical name (``^[A-Za-z0-9_]{1,64}$``) of a provider's or server's tool name.

    >>> to_canonical_name("get_weather"), to_canonical_name("get-sum"), to_canonical_name("db.query")
    ('get_weather', 'get_x2d_sum', 'db_x2e_query')
    >>> to_canonical_name("a_x2d_b")  # a wire name that holds an escape's text keeps it
    'a_x5f_x2d_b'
    >>> try:
    ...     to_canonical_name("café")
    ... except ValidationError as exc:
    ...     print(exc)
    name: tool names are printable ASCII (1-64 characters)

    A name that already fits the canonical rule and holds no escape's text (``_x2d_``...) is
    returned unchanged. Every other printable ASCII character ``c`` becomes ``_x`` + its two
    lowercase hex digits + ``_``; an underscore that starts an escape's text becomes ``_x5f_``.
    The inverse is ``to_wire_name``. Raises ``ValidationError`` (path ``name``, code
    ``pattern``) for an empty name or one that is not printable ASCII, and code ``size`` when the
    canonical name would pass 64 characters.
    """
    if type(wire_name) is not str:
        raise ValidationError(f"expected a string, got {type_name(wire_name)}", "name", "type")
    if NAME_ESCAPE not in wire_name and _NAME.fullmatch(wire_name):
        return wire_name
    if _wire_name(wire_name) is None:
        raise ValidationError("tool names are printable ASCII (1-64 characters)", "name", "pattern")
    out = []
    for i, c in enumerate(wire_name):
        if c == "_":
            out.append("_x5f_" if _escape_head(wire_name, i + 1) else c)
        elif c in _ESCAPABLE:
            out.append(f"_x{ord(c):02x}_")
        else:
            out.append(c)
    name = "".join(out)
    if len(name) > 64:
        raise ValidationError(
            "the canonical name of this tool would pass 64 characters (each character other than "
            "letters, digits and underscores takes 5)",
            "name",
            "size",
        )
    return name


def to_wire_name(canonical_name: str) -> str:
    """Return the wire name of a canonical tool name: each ``_xHH_`` escape becomes its character.

    >>> to_wire_name("get_x2d_sum"), to_wire_name("db_x2e_query"), to_wire_name("get_weather")
    ('get-sum', 'db.query', 'get_weather')
    >>> to_wire_name("a_x5f_x2d_b")
    'a_x2d_b'
    >>> try:
    ...     to_wire_name("a_x5f_b")
    ... except ValidationError as exc:
    ...     print(exc)
    name: _x5f_ escapes only an underscore that starts an escape's text (as in _x5f_x2d_)

    The inverse of ``to_canonical_name``: ``to_canonical_name(to_wire_name(n)) == n`` for every
    name it accepts. A canonical name that holds no escape is its own wire name; a name you
    write with ``_x2d_`` in it is sent with ``-`` there (write ``_x5f_x2d_`` to send the text
    ``_x2d_``). Raises ``ValidationError`` (path ``name``, code ``pattern``) unless
    ``canonical_name`` fits the canonical rule, and for a ``_x5f_`` that escapes an underscore
    needing none (the one spelling ``to_canonical_name`` never makes, refused so that each wire
    name has one canonical name).
    """
    check_name(canonical_name)
    if NAME_ESCAPE not in canonical_name:
        return canonical_name
    wire = _escape_sub(_unescape, canonical_name)
    if wire != canonical_name and to_canonical_name(wire) != canonical_name:
        raise ValidationError(
            "_x5f_ escapes only an underscore that starts an escape's text (as in _x5f_x2d_)",
            "name",
            "pattern",
        )
    return wire


def _unescape(match: re.Match[str]) -> str:
    return chr(int(match.group(1), 16))


def _check_arguments(arguments: object) -> FrozenDict:
    if isinstance(arguments, dict):
        return freeze_object(arguments, "arguments")
    raise ValidationError(f"expected an object, got {type_name(arguments)}", "arguments", "type")


@from_table()
@dataclass(frozen=True, slots=True, repr=False)
class ToolCall:
    """A call the model asks for: an id, a tool name and JSON-object arguments.

    >>> call = ToolCall("call_001", "write_file", {"path": "hello.py", "lines": [1, 2]})
    >>> call.arguments["lines"], call.get_argument("path", str), call.get_argument("path", int)
    ((1, 2), 'hello.py', None)
    >>> call.to_dict()
    {'id': 'call_001', 'name': 'write_file', 'arguments': {'path': 'hello.py', 'lines': [1, 2]}}
    >>> try:
    ...     ToolCall("call_001", "write file", {})
    ... except ValidationError as exc:
    ...     print(exc)
    name: must be 1-64 characters of letters, digits and underscores

    Arguments are deep-frozen once (objects become ``FrozenDict``, arrays tuples) and never
    re-parsed.
    """

    id: str
    name: str
    arguments: FrozenDict = field(metadata=row(
        to_dict="thaw_checked($, $._nested) if $._nested else dict($)",  # freeze_json marks each FrozenDict
        repr='count(len($), "key")'))

    to_dict: ClassVar[Callable[[ToolCall], dict[str, Any]]]  # written by from_table, as __repr__ is

    def __init__(self, id: str, name: str, arguments: dict[str, Any]) -> None:
        # written by hand, not by ``dataclass`` (its frozen ``__init__`` stores through
        # ``object.__setattr__`` and then calls ``__post_init__``): the common case checked inline
        _set_id(self, id if type(id) is str and id and id.isascii() else _check_id(id, "id"))
        _set_name(self, name if type(name) is str and name in _KNOWN_NAMES else check_name(name))
        _set_arguments(self, freeze_object(arguments, "arguments") if type(arguments) is dict else _check_arguments(arguments))

    @classmethod
    def from_json_arguments(cls, id: str, name: str, text: str) -> ToolCall:
        """Return a call whose arguments are parsed from a provider's JSON string.

        >>> dict(ToolCall.from_json_arguments("call_1", "search", '{"q": "cats"}').arguments)
        {'q': 'cats'}
        >>> ToolCall.from_json_arguments("call_1", "search", "").arguments
        FrozenDict({})

        Empty text means no arguments. Anything that is not a JSON object raises
        ``InvalidArgumentsError`` (a ``ValidationError``) whose ``raw_arguments`` keeps the text.
        """
        if type(text) is not str:
            raise ValidationError(f"expected a string, got {type_name(text)}", "arguments", "type")
        if not text or text.isspace():
            value: Any = _EMPTY_ARGS
        else:
            try:
                value = loads_strict(text)
            except ValidationError as exc:
                raise InvalidArgumentsError(exc.message, code=exc.code, raw_arguments=text) from None
            if type(value) is not dict:
                raise InvalidArgumentsError(
                    f"expected a JSON object, got {type_name(value)}", code="type", raw_arguments=text
                )
        return ToolCall(id, name, value)  # __init__ checks the id, the name and the arguments

    @overload
    def get_argument(self, key: str, type: type[list[Any]]) -> tuple[Any, ...] | None: ...
    @overload
    def get_argument(self, key: str, type: type[dict[str, Any]]) -> FrozenDict | None: ...
    @overload
    def get_argument(self, key: str, type: type[T]) -> T | None: ...
    def get_argument(self, key: str, type: type[Any]) -> Any:
        """Return the argument ``key`` if it holds that JSON type, else None.

        ``int`` never matches a boolean; ``float`` matches any number (returned as a float);
        ``list`` and ``dict`` match arrays and objects in their frozen form (tuple, FrozenDict).
        """
        value = self.arguments.get(key)
        kind = value.__class__
        if type is str or type is bool:
            return value if kind is type else None
        if type is int:
            return value if kind is int else None
        if type is float:
            if kind is float:
                return value
            if kind is int:
                try:
                    return float(value)  # type: ignore[arg-type]  # kind is int: checked above
                except OverflowError:  # beyond a float's range: not usable as one
                    return None
            return None
        if type is list or type is tuple:
            return value if kind is tuple else None
        if type is dict or type is FrozenDict:
            return value if kind is FrozenDict else None
        raise TypeError("type must be one of str, int, float, bool, list, dict")

    def arguments_as(self, cls: type[T], strict: bool | None = None) -> T:
        """Return the arguments checked and built into ``cls``: both shapes a model sends, any buildable type.

        >>> from dataclasses import dataclass
        >>> @dataclass(frozen=True)
        ... class WriteFile:
        ...     path: str
        ...     lines: tuple[str, ...] = ()
        >>> ToolCall("call_1", "write_file", {"path": "a.txt", "lines": ["hi"]}).arguments_as(WriteFile)
        WriteFile(path='a.txt', lines=('hi',))
        >>> try:
        ...     ToolCall("call_1", "write_file", {"path": 7, "lines": None}).arguments_as(WriteFile)
        ... except ValidationError as exc:
        ...     print(exc)
        path: expected a string, got number

        A model may send every key (``null`` for "the default", as strict mode makes it) or leave
        optional keys out; both are accepted, and so is any type the builder can build (a mixed
        ``tuple[int, str]`` too), whatever strict *schema generation* could express:

        >>> @dataclass(frozen=True)
        ... class Forecast:
        ...     city: str
        ...     days: int = 1
        ...     span: tuple[int, str] = (0, "h")
        >>> call = ToolCall("c", "forecast", {"city": "Oslo", "days": None})
        >>> call.arguments_as(Forecast), ToolCall("c", "forecast", {"city": "Oslo"}).arguments_as(Forecast)
        (Forecast(city='Oslo', days=1, span=(0, 'h')), Forecast(city='Oslo', days=1, span=(0, 'h')))

        Nested dataclasses, enums, tuples, sets, literals and datetimes are restored. Bad
        arguments raise ``ValidationError`` with the path. ``strict=True`` or ``strict=False``
        checks against ``schema_for(cls, strict)`` exactly, as ``agentmsg.schema.build`` does.
        """
        if strict is None:
            try:
                decode = _decoders[cls]  # compiled by an earlier call
            except (KeyError, TypeError):  # the first call for cls, or a type hint that does not hash
                pass
            else:
                try:
                    return decode(self.arguments)  # type: ignore[no-any-return]  # it builds the T it was compiled for
                except RecursionError:
                    raise ValidationError("nested too deeply", "", "depth") from None
        return _build(cls, self.arguments, strict)  # type: ignore[no-any-return]  # build returns the T it was given

    @classmethod
    def from_dict(cls, data: Any, /) -> ToolCall:
        """Parse the canonical JSON shape; ``arguments`` is required (``{}`` for none).

        >>> try:
        ...     ToolCall.from_dict({"id": "c1", "name": "ls"})
        ... except ValidationError as exc:
        ...     print(exc.code, exc)
        missing arguments: is required
        """
        return tool_call_from_dict(data)


_set_id, _set_name, _set_arguments = raw_setters(ToolCall, "id", "name", "arguments")
_build_call: Callable[[str, str, FrozenDict], ToolCall] = builder(ToolCall)
tool_calls_to_dicts: Callable[[tuple[ToolCall, ...]], list[dict[str, Any]]] = list_to_dict(ToolCall)


def _load_build(cls: Any, arguments: Any, strict: bool | None) -> Any:
    """``agentmsg.schema.build``, loaded on the first ``arguments_as``, not with the core.

    It rebinds ``_build`` to a direct call, so later calls pay no import statement, and
    ``_decoders`` to the decoders' cache, which ``arguments_as`` reads first.
    ``strict=None`` decodes (both shapes a model sends, any buildable type).
    """
    global _build, _decoders
    from .schema._generate import _ARGUMENT_BUILDERS, _arguments_builder, build

    def decode_or_build(cls: Any, arguments: Any, strict: bool | None) -> Any:
        if strict is None:
            try:
                return _arguments_builder(cls)(arguments)
            except RecursionError:
                raise ValidationError("nested too deeply", "", "depth") from None
        return build(cls, arguments, strict=strict)

    _build, _decoders = decode_or_build, _ARGUMENT_BUILDERS
    return _build(cls, arguments, strict)


_build: Callable[[Any, Any, bool | None], Any] = _load_build
_decoders: dict[Any, Callable[[Any], Any]] = {}  # the decoders by type, once agentmsg.schema is loaded


def tool_call_from_dict(data: Any) -> ToolCall:
    """Parse ``{"id", "name", "arguments"}``; ``arguments`` is required (FR-004a-44): ``{}`` says "none"."""
    if type(data) is not dict:
        data = expect_object(data)
    id = data.get("id")
    name = data.get("name")
    arguments = data.get("arguments")
    # the checks of _check_id and check_name written out for the common case (a call
    # costs more than the check); anything else takes the full check, with its error
    if type(id) is not str or not id or not id.isascii():
        id = _check_id(id, "id") if "id" in data else _missing("id")
    if type(name) is not str or name not in _KNOWN_NAMES:
        name = check_name(name) if "name" in data else _missing("name")
    if type(arguments) is dict:
        try:
            arguments = _freeze_dict(arguments)
        except (ValidationError, RecursionError):
            arguments = freeze_object(arguments, "arguments")  # raises again, naming the path
    else:
        arguments = _missing("arguments") if arguments is None else _check_arguments(arguments)
    return _build_call(id, name, arguments)


def _missing(key: str) -> Any:
    raise ValidationError("is required", key, "missing")


_SCHEMA_CHILDREN = ("items", "additionalItems", "contains", "not", "if", "then", "else")
_SCHEMA_LISTS = ("prefixItems", "anyOf", "allOf", "oneOf")
_SCHEMA_MAPS = ("properties", "$defs", "definitions", "patternProperties")


def check_strict(parameters: Any, path: str = "parameters") -> None:
    """Raise ``ValidationError`` (code ``strict``) unless ``parameters`` keeps OpenAI's strict rule.

    The rule of OpenAI's structured outputs that agentmsg checks: every object schema sets
    ``additionalProperties: false``. ``ToolDefinition(..., strict=True)`` runs it; so does
    ``openai.to_tools`` for a strict definition another provider's codec read.
    """
    _check_strict(parameters, path)


def _check_strict(schema: Any, path: str) -> None:
    if type(schema) is not FrozenDict:
        return
    kind = schema.get("type")
    is_object = kind == "object" or (type(kind) is tuple and "object" in kind) or "properties" in schema
    if is_object and schema.get("additionalProperties") is not False:
        raise ValidationError(
            "strict tools need additionalProperties: false on every object schema "
            "(or pass strict=False)",
            f"{path}.additionalProperties" if path else "additionalProperties",
            "strict",
        )
    for key in _SCHEMA_CHILDREN:
        if key in schema:
            _check_strict(schema[key], f"{path}.{key}" if path else key)
    for key in _SCHEMA_LISTS:
        items = schema.get(key)
        if type(items) is tuple:
            for i, item in enumerate(items):
                _check_strict(item, f"{path}.{key}[{i}]" if path else f"{key}[{i}]")
    for key in _SCHEMA_MAPS:
        children = schema.get(key)
        if type(children) is FrozenDict:
            for name, item in children.items():
                _check_strict(item, f"{path}.{key}.{name}" if path else f"{key}.{name}")


_NO_EXTRAS: FrozenDict = FrozenDict()
_PROVIDER_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_")


def _is_provider(name: object) -> bool:
    """Whether ``name`` is a provider name: ``^[a-z][a-z0-9_]{0,31}$`` (no regex at import)."""
    return type(name) is str and 0 < len(name) <= 32 and name[0].isalpha() and _PROVIDER_CHARS.issuperset(name)


def _check_extras(extras: object) -> FrozenDict:
    """Return ``extras`` frozen: ``{provider: {field: JSON value}}``."""
    if not isinstance(extras, dict):
        raise ValidationError(f"expected an object, got {type_name(extras)}", "extras", "type")
    for provider, fields in extras.items():
        if not _is_provider(provider):
            raise ValidationError("provider names are lower-case letters, digits and underscores", "extras", "pattern")
        if not isinstance(fields, dict):
            raise ValidationError(f"expected an object, got {type_name(fields)}", f"extras.{provider}", "type")
    return freeze_object(extras, "extras") if extras else _NO_EXTRAS


@from_table()
@dataclass(frozen=True, slots=True, repr=False)
class ToolDefinition:
    """A tool the model may call: name, description and a JSON Schema for its arguments.

    >>> tool = ToolDefinition(
    ...     "get_weather",
    ...     "Get the current weather for a city.",
    ...     {"type": "object", "properties": {"city": {"type": "string"}},
    ...      "required": ["city"], "additionalProperties": False},
    ... )
    >>> tool.to_dict()["parameters"]["required"]
    ['city']
    >>> try:
    ...     ToolDefinition("list_files", "List files.", {"type": "array"})
    ... except ValidationError as exc:
    ...     print(exc)
    parameters.type: must be "object" (tool parameters are a JSON object schema)

    The default, ``strict=False``, takes a schema as providers and MCP servers write it (as the
    providers do without ``strict``). ``strict=True`` opts into OpenAI's structured-outputs rule:
    every object schema must then set ``additionalProperties: false``; ``from_dataclass`` and
    ``from_function`` make strict tools by default, since the generator writes such schemas. A
    description over 1024 characters is accepted with a warning (some providers truncate or
    refuse it).

    ``extras`` holds the fields of a provider's tool that agentmsg does not model, by provider
    (``{"anthropic": {"defer_loading": True, "cache_control": {...}}}``): a codec's
    ``from_tools`` fills in its own provider's entry, and only that codec's ``to_tools`` sends
    them again, unchanged. Equality and hashing include them.

    >>> ToolDefinition("search", "Search.", {"type": "object", "properties": {"q": {"type": "string"}}}).strict
    False
    >>> try:
    ...     ToolDefinition("search", "Search.", {"type": "object", "properties": {}}, strict=True)
    ... except ValidationError as exc:
    ...     print(exc.code, exc.path)
    strict parameters.additionalProperties
    """

    name: str
    description: str = field(metadata=row(repr="sized($)"))
    parameters: FrozenDict = field(repr=False, metadata=row(to_dict="thaw_json($)"))
    strict: bool = field(default=False, metadata=row(always=True))
    # A factory, not a default: Python 3.10's dataclasses refuse any dict-typed default.
    extras: FrozenDict = field(default_factory=lambda: _NO_EXTRAS, metadata=row(to_dict="thaw_json($)", repr="repr(sorted($))"))

    to_dict: ClassVar[Callable[[ToolDefinition], dict[str, Any]]]  # written by from_table, as __repr__ is

    def __post_init__(self) -> None:
        check_name(self.name)
        if type(self.description) is not str:
            raise ValidationError(
                f"expected a string, got {type_name(self.description)}", "description", "type"
            )
        if not self.description.strip():
            raise ValidationError("must not be empty", "description", "value")
        check_text(self.description, "description")
        if len(self.description) > 1024:
            warnings.warn(
                f"tool {self.name!r}: description is {len(self.description)} characters; "
                "some providers accept at most 1024",
                stacklevel=3,
            )
        if type(self.strict) is not bool:
            raise ValidationError(f"expected a boolean, got {type_name(self.strict)}", "strict", "type")
        if not isinstance(self.parameters, dict):
            raise ValidationError(
                f"expected a JSON Schema object, got {type_name(self.parameters)}", "parameters", "type"
            )
        parameters = freeze_json(self.parameters, "parameters")
        if parameters.get("type") != "object":
            raise ValidationError(
                'must be "object" (tool parameters are a JSON object schema)', "parameters.type", "value"
            )
        if self.strict:
            _check_strict(parameters, "parameters")
        object.__setattr__(self, "parameters", parameters)
        if self.extras is not _NO_EXTRAS:
            object.__setattr__(self, "extras", _check_extras(self.extras))

    @classmethod
    def from_dataclass(
        cls, dataclass: type, name: str | None = None, description: str | None = None, strict: bool = True
    ) -> ToolDefinition:
        """Return the tool whose arguments are the fields of ``dataclass``.

        >>> from dataclasses import dataclass
        >>> @dataclass(frozen=True)
        ... class GetWeather:
        ...     \"\"\"Get the current weather for a city.\"\"\"
        ...     city: str
        >>> tool = ToolDefinition.from_dataclass(GetWeather)
        >>> tool.name, tool.description, tool.to_dict()["parameters"]["required"]
        ('get_weather', 'Get the current weather for a city.', ['city'])

        The name defaults to the class name in snake_case, the description to the first
        paragraph of the class docstring; both are validated as usual. The parameters are
        ``agentmsg.schema.schema_for(dataclass, strict)``.
        """
        from .schema._generate import tool_parts

        name, description, parameters = tool_parts(dataclass, name, description, strict, function=False)
        return cls(name, description, FrozenDict(parameters), strict)

    @classmethod
    def from_function(
        cls, fn: Any, name: str | None = None, description: str | None = None, strict: bool = True
    ) -> ToolDefinition:
        """Return the tool whose arguments are the parameters of ``fn`` (from its type hints).

        >>> def search(query: str, limit: int = 10) -> list[str]:
        ...     \"\"\"Search the notes.\"\"\"
        ...     return []
        >>> tool = ToolDefinition.from_function(search)
        >>> tool.name, tool.to_dict()["parameters"]["properties"]["limit"]
        ('search', {'type': ['integer', 'null']})

        ``self``, ``*args``, ``**kwargs`` and positional-only parameters are refused with a
        ``TypeError``; so is a parameter without a type hint.
        """
        from .schema._generate import tool_parts

        name, description, parameters = tool_parts(fn, name, description, strict, function=True)
        return cls(name, description, FrozenDict(parameters), strict)

    @classmethod
    def from_dict(cls, data: Any, /) -> ToolDefinition:
        """Parse the shape that ``to_dict`` gives (``strict`` defaults to false)."""
        data = expect_object(data)
        parameters = data.get("parameters")
        if parameters is None:
            raise ValidationError("is required", "parameters", "missing")
        extras = data.get("extras")
        return cls(
            get_str(data, "name"),
            get_str(data, "description"),
            parameters,
            get_bool(data, "strict", False),
            _NO_EXTRAS if extras is None else extras,
        )
