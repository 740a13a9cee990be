"""The intermediate description to a builder: check JSON arguments and build typed values in one pass.

Theory of operation: ``compile_builder(tp, strict)`` returns a function from a JSON value (plain
or deep-frozen) to the typed value. Each description node compiles to a converter that checks
its input exactly as ``_schema_validator`` checks the schema ``agentmsg.schema`` emits for that
node — the same keywords in the same order, so the same first error with the same path and
code — and returns the Python value. Checking and building in one pass is what makes
``ToolCall.arguments_as`` cheap; the differential tests hold the two implementations together.

Fast paths: a field or item whose type is ``str``, ``int``, ``float``, ``bool`` or ``None`` (or an
optional one) is taken as is when the value already has that exact Python type; each dataclass
also gets a function written for its fields (and its nested dataclasses' fields) that builds the
common case — every key present, every value as expected — in one go, and hands anything else
to the full path (see ``_FAST``).
"""

from __future__ import annotations

import dataclasses
import keyword
from collections.abc import Callable
from datetime import date, datetime
from types import MemberDescriptorType
from typing import Any

from . import _types as t
from ._keyword_checks import (
    TYPE_TESTS, any_of_error, at_least, check_unique, choices, json_key, key_label, kinds, many, unexpected,
)
from .._checks import expected, map_items, missing
from .._construct import mutable_twin
from .._frozen import FrozenDict
from .._time import parse_date, parse_date_time
from ..errors import ValidationError

__all__ = ["compile_builder"]

Conv = Callable[[Any], Any]
_MISS: Any = object()


def compile_builder(tp: Any, strict: bool, lenient: bool = False, fast: bool = True) -> Conv:
    """Return the function that checks a JSON value against ``tp``'s schema and builds it.

    ``lenient`` (with ``strict=False``) decodes what a model may send rather than what one schema
    allows: ``null`` stands for a field's default (the strict-mode shape) and a set's repeated
    items collapse (strict mode cannot say ``uniqueItems``). ``fast=False`` leaves out the
    objects' fast paths (see ``_FAST``), which the tests compare against.
    """
    return _Builder(strict, lenient, fast).conv(t.describe(tp))


def _str(v: object) -> str:
    if isinstance(v, str):
        return v
    raise expected("a string", v, "")


def _int(v: object) -> int:
    if isinstance(v, int) and not isinstance(v, bool):
        return int(v)
    if isinstance(v, float) and v.is_integer():
        return int(v)
    raise expected("an integer", v, "")


def _float(v: object) -> float:
    if isinstance(v, float):
        return v
    if isinstance(v, int) and not isinstance(v, bool):
        try:
            return float(v)
        except OverflowError:  # an integer too large for a float stays an int
            return v
    raise expected("a number", v, "")


def _bool(v: object) -> bool:
    if v is True or v is False:
        return v
    raise expected("a boolean", v, "")


def _null(v: object) -> None:
    if v is not None:
        raise expected("null", v, "")


def _parsed(parse: Callable[[str], Any], name: str) -> Conv:
    def conv(v: object) -> Any:
        if not isinstance(v, str):
            raise expected("a string", v, "")
        value = parse(v)
        if value is None:
            raise ValidationError(f"must be an RFC 3339 {name}", "", "pattern")
        return value

    return conv


_SCALARS: dict[type, Conv] = {
    str: _str, int: _int, float: _float, bool: _bool, t.NoneType: _null,
    datetime: _parsed(parse_date_time, "date-time"), date: _parsed(parse_date, "date"),
}


def _exact(node: t.Node) -> frozenset[type]:
    """Return the Python types a value may have to be taken as is for ``node``."""
    if isinstance(node, t.Described):
        return _exact(node.node)
    if isinstance(node, t.Scalar):
        return frozenset({node.py}) if node.py in t.JSON_TYPES else frozenset()
    if isinstance(node, t.Union_):
        sets = [_exact(m) for m in node.members]
        found = frozenset().union(*sets)
        # an int member converts whole floats and a float member converts ints: keep the order
        if all(sets) and not {int, float} <= found:
            return found
    return frozenset()


class _Builder:
    def __init__(self, strict: bool, lenient: bool = False, fast: bool = True) -> None:
        self.strict = strict
        self.lenient = lenient
        self.fast = fast
        self.null_default = strict or lenient
        self.objects: dict[type, list[Conv]] = {}
        self.shapes: dict[type, _Shape] = {}  # the objects compiled so far, to write into others

    def conv(self, node: t.Node) -> Conv:
        if isinstance(node, t.Scalar):
            return _SCALARS[node.py]
        if isinstance(node, t.Choice):
            return _choice(node)
        if isinstance(node, t.Array):
            unique = node.kind in (set, frozenset) and not self.strict and not self.lenient
            return _array(self.conv(node.item), _exact(node.item), node.kind, unique)
        if isinstance(node, t.Fixed):
            return _fixed([self.conv(n) for n in node.items], len(set(node.items)) == 1)
        if isinstance(node, t.Map):
            return _map(self.conv(node.value))
        if isinstance(node, t.Union_):
            return _union([self.conv(m) for m in node.members])
        if isinstance(node, t.Ref):
            return self._ref(node.cls)
        return self.conv(node.node)  # Described

    def _ref(self, cls: type) -> Conv:
        cell = self.objects.get(cls)
        if cell is None:
            cell = self.objects[cls] = []
            cell.append(self.object(t.describe_object(cls)))
            return cell[0]

        def conv_ref(v: object) -> Any:  # a recursive reference, resolved once compiled
            return cell[0](v)

        return conv_ref

    def object(self, obj: t.Object) -> Conv:
        plan = [
            (
                f.name,
                _exact(f.node),
                self.conv(f.node),
                self.strict or not f.optional,
                f.optional and self.null_default and not t.accepts_null(f.node),
            )
            for f in obj.fields
        ]
        known = frozenset(f.name for f in obj.fields)
        make = None if obj.cls is None else _maker(obj.cls, obj.name)

        def checked(v: dict[str, Any]) -> dict[str, Any]:
            """Check the fields in schema order: the path that reports the first error."""
            kwargs = {}
            for name, exact, conv, required, null_is_default in plan:
                x = v.get(name, _MISS)
                if type(x) in exact:
                    kwargs[name] = x
                elif x is _MISS:
                    if required:
                        raise missing(name)
                elif x is None and null_is_default:
                    pass  # strict mode: null stands for "use the default"
                else:
                    try:
                        kwargs[name] = conv(x)
                    except ValidationError as e:
                        if null_is_default:  # the schema says "X or null" here, so say so too
                            e = any_of_error([e, expected("null", x, "")])
                        raise e.prefixed(name) from None
            if not known.issuperset(v):
                raise unexpected(next(k for k in v if k not in known))
            return kwargs

        def conv_object(v: object) -> Any:
            if not isinstance(v, dict):
                raise expected("an object", v, "")
            kwargs = checked(v)
            return kwargs if make is None else make(kwargs)

        if not self.fast:
            return conv_object
        fields = [
            _Slot(f.name, f.node.node if isinstance(f.node, t.Described) else f.node, exact, conv, null_is_default)
            for f, (_, exact, conv, _, null_is_default) in zip(obj.fields, plan)
        ]
        shape = _Shape(obj, fields, make)
        fast = _Writer(self).function(shape, conv_object)
        if obj.cls is not None:
            self.shapes[obj.cls] = shape
        return fast


class _Slot:
    """One field as the fast path writes it: the node, its exact types, its converter."""

    __slots__ = ("name", "node", "exact", "conv", "null_is_default")

    def __init__(self, name: str, node: t.Node, exact: frozenset[type], conv: Conv, null_is_default: bool) -> None:
        self.name, self.node, self.exact, self.conv, self.null_is_default = name, node, exact, conv, null_is_default


class _Shape:
    """An object's fields and how to make it, for writing its fast path into another's."""

    __slots__ = ("obj", "fields", "make", "recipe")

    def __init__(self, obj: t.Object, fields: list[_Slot], make: Callable[[dict[str, Any]], Any] | None) -> None:
        self.obj, self.fields, self.make = obj, fields, make
        self.recipe = None if obj.cls is None else _recipe(obj.cls)


class _Surprise(Exception):
    """A value the fast path does not take: the full path looks at it and says what is wrong."""


# The fast path of an object, written out for its fields (as ``dataclasses`` writes ``__init__``)
# by ``_Writer``. It covers the common case: a dict with exactly the fields' keys, each value of
# an exact type or converted without error. It takes every value by name, keeps one of an exact
# type as is, looks an enum's member up by its value, checks a list of strings with one
# ``str.join`` (a ``TypeError`` for any item that is not a string), and writes a nested
# dataclass's fields out in place, making the instance the way its generated ``__init__`` would
# (``_recipe``). At the first surprise (a missing or unknown key, a wrong type, a null for a
# default it cannot fill, a ``ValueError`` from ``__post_init__``) it gives up and calls the full
# path (``conv_object`` in ``_Builder.object``), which walks the fields in schema order and
# raises the first error with its path and code — so the fast path decides only speed, never a
# result: ``tests/test_schema_build_fast.py`` holds the two to the same values and errors.
_FAST = """\
def fast_object(v):
    if type(v) is FrozenDict and len(v) == {size}:
        w = {frozen}
    elif type(v) is dict and len(v) == {size}:
        w = v
    else:
        return slow(v)
    try:
{body}
    except (KeyError, ValueError, TypeError, _Surprise):
        return slow(v)
{make}
"""
_INLINE_FIELDS = 64  # at most this many fields of nested objects written into one fast path
# A FrozenDict's ``[]`` goes through its type's ``__getitem__`` (a dict subclass's slot), a plain
# dict's does not: from this many fields on, reading a plain copy ({**v}, made in C) costs less.
_COPY_AT = 4


class _Writer:
    """Write the source of one object's fast path (see ``_FAST``)."""

    def __init__(self, builder: _Builder) -> None:
        self.builder = builder
        self.shapes = builder.shapes
        self.scope: dict[str, Any] = {
            "FrozenDict": FrozenDict, "_Surprise": _Surprise, "ValidationError": ValidationError,
            "_refused": _refused, "new": object.__new__,
            **{f.__name__: f for f in (type, len, str, int, float, dict, list, tuple)},  # module globals cost less than builtins
        }
        self.lines: list[str] = []
        self.count = 0
        self.budget = _INLINE_FIELDS

    def name(self, prefix: str, value: Any = _MISS) -> str:
        self.count += 1
        name = f"{prefix}{self.count}"
        if value is not _MISS:
            self.scope[name] = value
        return name

    def emit(self, depth: int, line: str) -> None:
        self.lines.append("    " * depth + line)

    def function(self, shape: _Shape, slow: Conv) -> Conv:
        self.scope["slow"] = slow
        self.budget -= len(shape.fields)
        out = self.fields(shape, "w", 2, (shape.obj.cls,))
        body = "\n".join(self.lines) or "        pass"  # a dataclass without fields
        self.lines = []
        self.make(shape, out, 1, top=True)
        self.emit(1, f"return {out[0]}")
        size = len(shape.fields)
        source = _FAST.format(size=size, frozen="{**v}" if size >= _COPY_AT else "v", body=body,
                              make="\n".join(self.lines))
        exec(source, self.scope)
        compiled: Conv = self.scope["fast_object"]
        return compiled

    def fields(self, shape: _Shape, v: str, depth: int, stack: tuple[Any, ...]) -> tuple[str, list[str]]:
        """Write the taking of each field of ``v``; return the object's name and the fields' names."""
        names = []
        for f in shape.fields:
            x = self.name("x")
            names.append(x)
            self.emit(depth, f"{x} = {v}[{f.name!r}]")
            if f.null_is_default:  # null stands for the default: fill it as the maker would
                self.emit(depth, f"if {x} is None:")
                self.emit(depth + 1, f"{x} = {self.default(shape, f.name)}")
                self.emit(depth, "else:")
                self.value(f.node, f.exact, f.conv, x, depth + 1, stack)
            else:
                self.value(f.node, f.exact, f.conv, x, depth, stack)
        return self.name("o"), names

    def default(self, shape: _Shape, name: str) -> str:
        """Return the expression of field ``name``'s default (``MISS``: leave the key out)."""
        if shape.recipe is None:
            self.scope["MISS"] = _MISS
            return "MISS"
        for field_name, _, default, factory in shape.recipe.fields:
            if field_name == name:
                return self.name("f", factory) + "()" if factory is not dataclasses.MISSING else self.name("d", default)
        raise AssertionError(f"no dataclass field {name}")  # pragma: no cover  # the fields come from the class

    def value(self, node: t.Node, exact: frozenset[type], conv: Conv | None, x: str, depth: int,
              stack: tuple[Any, ...]) -> None:
        """Write the check (or conversion) of the value in ``x``, leaving the result in ``x``."""
        while isinstance(node, t.Described):
            node = node.node
        if exact:
            self.emit(depth, f"if {_not_exact(exact, x)}: raise _Surprise")
            return
        if isinstance(node, t.Array) and node.kind in (list, tuple) and _exact(node.item):
            # a list arrives frozen as a tuple: copy it to the kind asked for (a list), or keep it
            given, copy = ("tuple", f"[*{x}]") if node.kind is list else ("list", f"(*{x},)")
            self.emit(depth, f"if type({x}) is {given}: {x} = {copy}")
            self.emit(depth, f"elif type({x}) is not {node.kind.__name__}: raise _Surprise")
            item = _exact(node.item)
            if item == {str}:
                self.emit(depth, f"''.join({x})")  # in C: a TypeError (a surprise) for an item that is not a str
            else:
                i = self.name("i")
                self.emit(depth, f"for {i} in {x}:")
                self.emit(depth + 1, f"if {_not_exact(item, i)}: raise _Surprise")
            return
        if isinstance(node, t.Choice):
            table = self.name("t", _choice_table(node))
            if all(type(v) is str for v in node.values):  # a key of another type is missing (a surprise)
                self.emit(depth, f"{x} = {table}[{x}]")
                return
            convert = self.name("c", conv if conv is not None else _choice(node))
            self.emit(depth, f"{x} = {table}[{x}] if type({x}) is str else {convert}({x})")
            return
        if isinstance(node, t.Ref):
            shape = self.shapes.get(node.cls)
            if shape is not None and node.cls not in stack and self.budget >= len(shape.fields):
                self.budget -= len(shape.fields)
                if len(shape.fields) >= _COPY_AT:
                    self.emit(depth, f"if type({x}) is FrozenDict: {x} = {{**{x}}}")
                    self.emit(depth, f"elif type({x}) is not dict: raise _Surprise")
                else:
                    self.emit(depth, f"if type({x}) is not FrozenDict and type({x}) is not dict: raise _Surprise")
                self.emit(depth, f"if len({x}) != {len(shape.fields)}: raise _Surprise")
                out = self.fields(shape, x, depth, (*stack, node.cls))
                self.make(shape, out, depth, top=False)
                self.emit(depth, f"{x} = {out[0]}")
                return
        if isinstance(node, t.Union_) and len(node.members) == 2 and t.Scalar(t.NoneType) in node.members:
            other = next(m for m in node.members if m != t.Scalar(t.NoneType))
            if not t.accepts_null(other):  # X | None: None is None, anything else must be an X
                self.emit(depth, f"if {x} is not None:")
                self.value(other, _exact(other), None, x, depth + 1, stack)
                return
        convert = self.name("c", conv if conv is not None else self.builder.conv(node))
        self.emit(depth, f"{x} = {convert}({x})")

    def make(self, shape: _Shape, out: tuple[str, list[str]], depth: int, top: bool) -> None:
        """Write the making of the object ``out[0]`` from its fields' values ``out[1]``."""
        o, names = out
        recipe = shape.recipe
        if recipe is None:  # keyword arguments for the class's own __init__ (or a function's)
            kwargs = ", ".join(f"{f.name!r}: {x}" for f, x in zip(shape.fields, names) if not f.null_is_default)
            self.emit(depth, f"{o} = {{{kwargs}}}")
            for f, x in zip(shape.fields, names):
                if f.null_is_default:
                    self.emit(depth, f"if {x} is not MISS: {o}[{f.name!r}] = {x}")
            if shape.make is not None:
                self.emit(depth, f"{o} = {self.name('m', shape.make)}({o})")
            return
        given = {f.name: x for f, x in zip(shape.fields, names)}
        values = []
        for name, init, default, factory in recipe.fields:
            if init:
                values.append((name, given[name]))
            elif factory is not dataclasses.MISSING:
                values.append((name, self.name("f", factory) + "()"))
            elif default is not dataclasses.MISSING and recipe.setters is not None:  # else read from the class
                values.append((name, self.name("d", default)))
        if recipe.twin is not None:  # plain stores into a twin, then the real class (see _twin)
            self.emit(depth, f"{o} = {self.name('twin', recipe.twin)}()")
            for name, x in values:
                self.emit(depth, f"{o}.{name} = {x}")
            self.emit(depth, f"{o}.__class__ = {self.name('cls', recipe.cls)}")
        elif recipe.setters is None:  # storing into the new __dict__ costs less than replacing it
            self.emit(depth, f"{o} = new({self.name('cls', recipe.cls)})")
            d = self.name("d")
            self.emit(depth, f"{d} = {o}.__dict__")
            for name, x in values:
                self.emit(depth, f"{d}[{name!r}] = {x}")
        else:
            self.emit(depth, f"{o} = new({self.name('cls', recipe.cls)})")
            for name, x in values:
                self.emit(depth, f"{self.name('s', recipe.setters[name])}({o}, {x})")
        if recipe.post_init:
            if not top:  # inside the try: a ValueError sends the whole object to the full path
                self.emit(depth, f"{o}.__post_init__()")
                return
            self.emit(depth, "try:")
            self.emit(depth + 1, f"{o}.__post_init__()")
            self.emit(depth, "except ValidationError:")
            self.emit(depth + 1, "raise")
            self.emit(depth, "except ValueError as e:")
            self.emit(depth + 1, f"raise _refused({self.name('label', shape.obj.name)}, e) from e")


def _not_exact(exact: frozenset[type], x: str) -> str:
    """Return the test that the value in ``x`` is none of the types ``exact``."""
    tests = sorted(f"type({x}) is not {tp.__name__}" for tp in exact if tp not in (bool, t.NoneType))
    if bool in exact:  # two identity tests cost less than a call of type()
        tests.append(f"{x} is not True and {x} is not False")
    if t.NoneType in exact:
        tests.append(f"{x} is not None")
    return " and ".join(tests)


class _Recipe:
    """How the ``__init__`` that ``dataclasses`` generates makes an instance of ``cls``.

    ``fields``: every field in order as (name, init, default, factory); ``setters``: the slot
    descriptors' ``__set__`` by name, or None for a class with a ``__dict__``; ``twin``: the
    class the fast path stores into before giving the object its real class (see ``_twin``).
    """

    __slots__ = ("cls", "fields", "setters", "post_init", "twin")

    def __init__(self, cls: type, setters: dict[str, Callable[[Any, Any], None]] | None) -> None:
        self.cls = cls
        self.fields = [(f.name, f.init, f.default, f.default_factory) for f in dataclasses.fields(cls)]
        self.setters = setters
        self.post_init = getattr(cls, "__post_init__", None) is not None
        self.twin = _twin(cls, [name for name, *_ in self.fields], setters is not None)


def _recipe(cls: type) -> _Recipe | None:
    """Return how to make ``cls`` directly, or None when its own ``__init__`` must be called.

    A frozen dataclass's generated ``__init__`` stores each field through
    ``object.__setattr__`` (most of the cost of building one). When ``cls`` uses exactly that
    generated ``__init__`` (found by the ``__dataclass_builtins_object__`` name only it uses)
    and ``object.__new__``, making it directly — fill the defaults, store the fields (into the
    slots, or the instance's ``__dict__``), call ``__post_init__`` — gives the same instance.
    Any other class (its own ``__init__``, mixed slots, a descriptor-typed field) is called.
    """
    init = cls.__dict__.get("__init__")
    code = getattr(init, "__code__", None)
    if (
        code is None
        or "__dataclass_builtins_object__" not in code.co_freevars
        or getattr(cls, "__new__") is not object.__new__
    ):
        return None
    slots = {f.name: getattr(cls, f.name, None) for f in dataclasses.fields(cls)}
    if all(type(s) is MemberDescriptorType for s in slots.values()):
        return _Recipe(cls, {name: s.__set__ for name, s in slots.items()})  # type: ignore[union-attr]  # all() checked every slot
    if any(type(s) is MemberDescriptorType or hasattr(type(s), "__set__") for s in slots.values()):
        return None  # some slots, or a descriptor-typed field, which __init__ assigns through __set__
    return _Recipe(cls, None)


def _twin(cls: type, names: list[str], slotted: bool) -> type | None:
    """Return a class of ``cls``'s layout whose attributes are plain stores, or None where none fits.

    The fast path makes a twin, stores each field with an attribute store (what a mutable
    class compiles to: cheaper than the frozen class's ``object.__setattr__`` calls, its slot
    setters, or filling its ``__dict__``), then sets ``obj.__class__ = cls``, which CPython
    allows between classes of the same layout: the object is then a ``cls`` in every way, as
    ``__init__`` would have made it. A layout that differs (slots inherited from a base, say)
    refuses the change, tried once here; a class with ``__del__`` or a field that is not a
    plain name keeps the other ways.
    """
    if getattr(cls, "__del__", None) is not None or not all(
        name.isidentifier() and not keyword.iskeyword(name) and not name.startswith("__") for name in names
    ):
        return None
    twin = mutable_twin(cls) if slotted else type(f"_{cls.__name__}Twin", (), {"__module__": cls.__module__})
    try:
        twin().__class__ = cls
    except TypeError:  # another layout
        return None
    return twin


def _maker(cls: type, label: str) -> Callable[[dict[str, Any]], Any]:
    """Return how to make an instance of dataclass ``cls`` from checked keyword arguments (see ``_recipe``)."""
    recipe = _recipe(cls)
    if recipe is None:
        return _refusing(cls, label, lambda kwargs: cls(**kwargs))
    fill = [(name, default, factory) for name, init, default, factory in recipe.fields
            if init and (default is not dataclasses.MISSING or factory is not dataclasses.MISSING)]
    always = [(name, default, factory) for name, init, default, factory in recipe.fields  # as __init__ stores them
              if not init and (factory is not dataclasses.MISSING
                               or (default is not dataclasses.MISSING and recipe.setters is not None))]
    size = sum(1 for _, init, _, _ in recipe.fields if init)
    setters = None if recipe.setters is None else list(recipe.setters.items())
    post_init = recipe.post_init
    new = object.__new__
    set_dict = object.__setattr__

    def make(kwargs: dict[str, Any]) -> Any:
        if len(kwargs) != size:  # some defaulted field was left out (or sent as null)
            for name, default, factory in fill:
                if name not in kwargs:
                    kwargs[name] = default if factory is dataclasses.MISSING else factory()
        for name, default, factory in always:  # init=False fields with a default
            kwargs[name] = default if factory is dataclasses.MISSING else factory()
        obj: Any = new(cls)
        if setters is None:
            set_dict(obj, "__dict__", kwargs)
        else:
            for name, setter in setters:
                if name in kwargs:
                    setter(obj, kwargs[name])
        if post_init:
            try:
                obj.__post_init__()
            except ValidationError:
                raise
            except ValueError as e:
                raise _refused(label, e) from e
        return obj

    return make


def _refused(label: str, error: ValueError) -> ValidationError:
    return ValidationError(f"refused by {label} ({type(error).__name__})", "", "value")


def _refusing(cls: type, label: str, make: Callable[[dict[str, Any]], Any]) -> Callable[[dict[str, Any]], Any]:
    """Turn a ``ValueError`` from the class's own checks into a ``ValidationError``."""

    def make_checked(kwargs: dict[str, Any]) -> Any:
        try:
            return make(kwargs)
        except ValidationError:
            raise
        except ValueError as e:
            raise _refused(label, e) from e

    return make_checked


def _choice_table(node: t.Choice) -> dict[object, Any]:
    """Return the members of a ``Literal`` or ``Enum`` by the ``json_key`` of their JSON values."""
    return {json_key(v): m for v, m in zip(node.values, node.members)}


def _choice(node: t.Choice) -> Conv:
    table = _choice_table(node)
    names = list(dict.fromkeys(t.JSON_TYPES[type(v)] for v in node.values))
    tests = [TYPE_TESTS[k] for k in names]
    what, rule = kinds(names), choices(node.values)

    def conv_choice(v: object) -> Any:
        member = table.get(v if type(v) is str else json_key(v), _MISS)  # json_key(str) is the str
        if member is not _MISS:
            return member
        if any(test(v) for test in tests):
            raise ValidationError(rule, "", "value")
        raise expected(what, v, "")

    return conv_choice


def _array(item: Conv, exact: frozenset[type], kind: type, unique: bool) -> Conv:
    def conv_array(v: object) -> Any:
        if not isinstance(v, (list, tuple)):
            raise expected("an array", v, "")
        out: Any = v
        for x in v:
            if type(x) not in exact:  # some item needs converting (or is wrong)
                out = map_items(item, v)
                break
        if unique:
            check_unique(v)
        return out if type(out) is kind else kind(out)

    return conv_array


def _fixed(items: list[Conv], same: bool) -> Conv:
    n = len(items)

    def conv_fixed(v: object) -> tuple[Any, ...]:
        if not isinstance(v, (list, tuple)):
            raise expected("an array", v, "")
        if len(v) < n:
            raise ValidationError(at_least(n, "item"), "", "value")
        if same and len(v) > n:  # strict form: minItems and maxItems, then items
            raise ValidationError(f"must hold at most {many(n, 'item')}", "", "size")
        out = []
        for i, (conv, x) in enumerate(zip(items, v)):
            try:
                out.append(conv(x))
            except ValidationError as e:
                raise e.prefixed(i) from None
        if len(v) > n:  # prefixItems form: "items": false refuses the rest
            raise ValidationError("unexpected item", "", "unexpected").prefixed(n)
        return tuple(out)

    return conv_fixed


def _map(value: Conv) -> Conv:
    def conv_map(v: object) -> dict[str, Any]:
        if not isinstance(v, dict):
            raise expected("an object", v, "")
        out = {}
        for key, x in v.items():
            try:
                out[key] = value(x)
            except ValidationError as e:
                raise e.prefixed(key_label(key)) from None
        return out

    return conv_map


def _union(members: list[Conv]) -> Conv:
    def conv_union(v: object) -> Any:
        errors = []
        for conv in members:
            try:
                return conv(v)
            except ValidationError as e:
                errors.append(e)
        raise any_of_error(errors)

    return conv_union
