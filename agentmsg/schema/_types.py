"""Type hints to an intermediate description: the first step of the schema generator.

``describe(tp)`` turns a type hint into a small tree of frozen nodes; ``describe_object(cls)``
does a dataclass (resolving its hints once, cached) and ``describe_function(fn)`` a function's
parameters. Both ``agentmsg.schema`` (nodes to JSON Schema) and ``_schema_build`` (nodes to a
typed-object builder) read the same tree, so the schema and the builder cannot disagree on what
a type means. A dataclass inside another type is a ``Ref``: described when first needed, which is
what lets recursive dataclasses work.
"""

from __future__ import annotations

import dataclasses
import enum
import inspect
import types
import typing
from collections.abc import Callable
from datetime import date, datetime
from typing import Any, Union

__all__ = [
    "Array", "Choice", "Described", "Field", "Fixed", "Map", "Node", "Object", "Ref", "Scalar",
    "Union_", "Unsupported", "MISSING", "JSON_TYPES", "accepts_null", "describe", "describe_function", "describe_object",
]

MISSING: Any = dataclasses.MISSING
NoneType = type(None)
# The JSON Schema ``type`` of each Python scalar the generator accepts.
JSON_TYPES: dict[type, str] = {str: "string", int: "integer", float: "number", bool: "boolean", NoneType: "null"}


class Unsupported(TypeError):
    """A type the generator cannot describe (re-raised as ``TypeError`` naming the field)."""


@dataclasses.dataclass(frozen=True, slots=True)
class Scalar:
    """``str``, ``int``, ``float``, ``bool``, ``None``, ``datetime`` or ``date``."""

    py: type


@dataclasses.dataclass(frozen=True, slots=True)
class Choice:
    """A ``Literal`` or an ``Enum``: the JSON values and the Python values they stand for."""

    values: tuple[Any, ...]
    members: tuple[Any, ...]


@dataclasses.dataclass(frozen=True, slots=True)
class Array:
    """``list[X]``, ``tuple[X, ...]``, ``set[X]`` or ``frozenset[X]`` (``kind`` is the class)."""

    item: Node
    kind: type


@dataclasses.dataclass(frozen=True, slots=True)
class Fixed:
    """A fixed-length ``tuple[X, Y]``."""

    items: tuple[Node, ...]


@dataclasses.dataclass(frozen=True, slots=True)
class Map:
    """``dict[str, X]``."""

    value: Node


@dataclasses.dataclass(frozen=True, slots=True)
class Union_:
    """``X | Y`` and ``Optional[X]`` (``None`` is a ``Scalar(NoneType)`` member)."""

    members: tuple[Node, ...]


@dataclasses.dataclass(frozen=True, slots=True)
class Ref:
    """A dataclass, described on demand by ``describe_object``."""

    cls: type


@dataclasses.dataclass(frozen=True, slots=True)
class Described:
    """``Annotated[X, "description"]``."""

    node: Node
    text: str


Node = Scalar | Choice | Array | Fixed | Map | Union_ | Ref | Described


@dataclasses.dataclass(frozen=True, slots=True)
class Field:
    """One property of an object: a dataclass field or a function parameter."""

    name: str
    node: Node
    default: Any = MISSING
    has_factory: bool = False

    @property
    def optional(self) -> bool:
        return self.default is not MISSING or self.has_factory


@dataclasses.dataclass(frozen=True, slots=True)
class Object:
    """A dataclass (``cls``) or a function's parameters (``cls`` is None)."""

    name: str
    cls: type | None
    fields: tuple[Field, ...]


_SCALARS = frozenset({str, int, float, bool, NoneType, datetime, date})
_ARRAYS = frozenset({list, set, frozenset})
_SUPPORTED = (
    "str, int, float, bool, None, Optional/Union, Literal, Enum, list[X], tuple[X, ...], "
    "tuple[X, Y], set[X], frozenset[X], dict[str, X], dataclasses, datetime, date, Annotated"
)


def _name(tp: object) -> str:
    if isinstance(tp, type) and typing.get_origin(tp) is None:  # list[int] is a "type" on 3.10
        return tp.__qualname__
    return repr(tp).replace("typing.", "")


def describe(tp: Any) -> Node:
    """Return the description of the type hint ``tp``; raise ``Unsupported`` if it has none."""
    if tp is None or (isinstance(tp, type) and tp in _SCALARS):
        return Scalar(NoneType if tp is None else tp)
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is typing.Annotated:
        node = describe(args[0])
        text = next((m for m in args[1:] if isinstance(m, str)), None)
        return node if text is None else Described(node, text)
    if origin is Union or origin is types.UnionType:
        return _union([describe(a) for a in args])
    if origin is typing.Literal:
        for value in args:
            if value is not None and type(value) not in (str, int, bool):
                raise Unsupported(f"Literal values must be str, int, bool or None, not {type(value).__name__}")
        return Choice(args, args)
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        members = tuple(tp)
        if not members or any(type(m.value) not in (str, int, float) for m in members):
            raise Unsupported(f"enum {tp.__qualname__} needs members whose values are str, int or float")
        return Choice(tuple(m.value for m in members), members)
    if origin in _ARRAYS and len(args) == 1:
        return Array(describe(args[0]), origin)
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        return Array(describe(args[0]), tuple)
    if origin is tuple and args and args != ((),) and Ellipsis not in args:
        return Fixed(tuple(describe(a) for a in args))
    if origin is dict and len(args) == 2:
        if args[0] is not str:
            raise Unsupported("dict keys must be str (JSON object keys are strings)")
        return Map(describe(args[1]))
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return Ref(tp)
    if tp in (list, tuple, set, frozenset, dict) or origin in (list, tuple, set, frozenset, dict):
        raise Unsupported(f"{_name(tp)} needs its item types, e.g. list[str] or dict[str, int]")
    raise Unsupported(f"unsupported type {_name(tp)}; supported: {_SUPPORTED}")


def _union(members: list[Node]) -> Node:
    texts = [m.text for m in members if isinstance(m, Described)]
    node = Union_(tuple(m.node if isinstance(m, Described) else m for m in members))
    return Described(node, texts[0]) if texts else node


def accepts_null(node: Node) -> bool:
    """Return True if JSON ``null`` is a value of ``node``."""
    if isinstance(node, Described):
        return accepts_null(node.node)
    if isinstance(node, Scalar):
        return node.py is NoneType
    if isinstance(node, Choice):
        return None in node.values
    if isinstance(node, Union_):
        return any(accepts_null(m) for m in node.members)
    return False


_OBJECTS: dict[type, Object] = {}


def describe_object(cls: type) -> Object:
    """Return the description of dataclass ``cls`` (its hints resolved once and cached)."""
    found = _OBJECTS.get(cls)
    if found is None:
        try:
            hints = typing.get_type_hints(cls, include_extras=True)
        except Exception as e:  # NameError for a hint defined where it cannot be resolved
            raise TypeError(
                f"cannot resolve the type hints of {cls.__qualname__} ({type(e).__name__}: {e}); "
                "define the class and the types it uses at module level"
            ) from None
        fields = []
        for f in dataclasses.fields(cls):
            if f.init:
                fields.append(_field(cls.__qualname__, f.name, hints[f.name], f.default, f.default_factory))
        for name, hint in hints.items():
            if isinstance(hint, dataclasses.InitVar):
                raise TypeError(f"{cls.__qualname__}.{name}: InitVar fields are not supported")
        if len(_OBJECTS) >= 1024:
            _OBJECTS.clear()
        found = _OBJECTS[cls] = Object(cls.__name__, cls, tuple(fields))
    return found


def _field(owner: str, name: str, hint: Any, default: Any, factory: Any = MISSING) -> Field:
    try:
        node = describe(hint)
    except Unsupported as e:
        raise TypeError(f"{owner}.{name}: {e}") from None
    return Field(name, node, default, factory is not MISSING)


def describe_function(fn: Callable[..., Any]) -> Object:
    """Return the description of the parameters of ``fn`` (the tool's arguments)."""
    name = getattr(fn, "__name__", type(fn).__name__)
    try:
        signature = inspect.signature(fn)
        hints = typing.get_type_hints(fn, include_extras=True)
    except (NameError, TypeError, ValueError) as e:
        raise TypeError(f"cannot read the signature and type hints of {name} ({type(e).__name__})") from None
    fields = []
    for i, p in enumerate(signature.parameters.values()):
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            star = "*" if p.kind is p.VAR_POSITIONAL else "**"
            raise TypeError(f"{name}: {star}{p.name} cannot be a tool parameter; name each parameter")
        if i == 0 and p.name in ("self", "cls"):
            raise TypeError(f"{name}: takes {p.name!r}; pass a bound method or a plain function")
        if p.kind is p.POSITIONAL_ONLY:
            raise TypeError(f"{name}: parameter {p.name!r} is positional-only; tools get keyword arguments")
        if p.name not in hints:
            raise TypeError(f"{name}.{p.name}: parameter has no type hint")
        default = MISSING if p.default is p.empty else p.default
        fields.append(_field(name, p.name, hints[p.name], default))
    return Object(name, None, tuple(fields))
