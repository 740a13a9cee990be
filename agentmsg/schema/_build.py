"""The intermediate description to a builder: check JSON arguments and build typed values in one pass.

Theory of operation: ``compile_builder(tp, strict)`` returns a function from a JSON value (plain
or deep-frozen) to the typed value. Each description node compiles to a converter that checks
its input exactly as ``_schema_validator`` checks the schema ``agentmsg.schema`` emits for that
node — the same keywords in the same order, so the same first error with the same path and
code — and returns the Python value. Checking and building in one pass is what makes
``ToolCall.arguments_as`` cheap; the differential tests hold the two implementations together.

Fast path: a field or item whose type is ``str``, ``int``, ``float``, ``bool`` or ``None`` (or an
optional one) is taken as is when the value already has that exact Python type.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from datetime import date, datetime
from types import MemberDescriptorType
from typing import Any

from . import _types as t
from ._validator import TYPE_TESTS, any_of_error, check_unique, json_key, key_label, type_error, unexpected
from .._checks import map_items
from .._time import parse_date, parse_date_time
from ..errors import ValidationError

__all__ = ["compile_builder"]

Conv = Callable[[Any], Any]
_MISS: Any = object()


def compile_builder(tp: Any, strict: bool, lenient: bool = False) -> Conv:
    """Return the function that checks a JSON value against ``tp``'s schema and builds it.

    ``lenient`` (with ``strict=False``) decodes what a model may send rather than what one schema
    allows: ``null`` stands for a field's default (the strict-mode shape) and a set's repeated
    items collapse (strict mode cannot say ``uniqueItems``).
    """
    return _Builder(strict, lenient).conv(t.describe(tp))


def _str(v: object) -> str:
    if isinstance(v, str):
        return v
    raise type_error("string", v)


def _int(v: object) -> int:
    if isinstance(v, int) and not isinstance(v, bool):
        return int(v)
    if isinstance(v, float) and v.is_integer():
        return int(v)
    raise type_error("integer", v)


def _float(v: object) -> float:
    if isinstance(v, float):
        return v
    if isinstance(v, int) and not isinstance(v, bool):
        try:
            return float(v)
        except OverflowError:  # an integer too large for a float stays an int
            return v
    raise type_error("number", v)


def _bool(v: object) -> bool:
    if v is True or v is False:
        return v
    raise type_error("boolean", v)


def _null(v: object) -> None:
    if v is not None:
        raise type_error("null", v)


def _parsed(parse: Callable[[str], Any], name: str) -> Conv:
    def conv(v: object) -> Any:
        if not isinstance(v, str):
            raise type_error("string", v)
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
    def __init__(self, strict: bool, lenient: bool = False) -> None:
        self.strict = strict
        self.lenient = lenient
        self.null_default = strict or lenient
        self.objects: dict[type, list[Conv]] = {}

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
        size = len(known)
        # the fast path: fields in any order, giving up at the first surprise
        plain = [(name, exact) for name, exact, *_ in plan if exact]
        others = [(name, conv) for name, exact, conv, *_ in plan if not exact]
        may_be_null = frozenset(name for name, *_, null_is_default in plan if null_is_default)
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
                        raise ValidationError("required property is missing", name, "missing")
                elif x is None and null_is_default:
                    pass  # strict mode: null stands for "use the default"
                else:
                    try:
                        kwargs[name] = conv(x)
                    except ValidationError as e:
                        if null_is_default:  # the schema says "X or null" here, so say so too
                            e = any_of_error([e, type_error("null", x)])
                        raise e.prefixed(name) from None
            if not known.issuperset(v):
                raise unexpected(next(k for k in v if k not in known))
            return kwargs

        return _fast_object(plain, others, may_be_null, size, checked, make)



# The fast path of an object, written out for its fields (as ``dataclasses`` writes ``__init__``):
# take the value of every field by name, keep a value of an exact type as is, convert the others,
# and give up at the first surprise (a missing or unknown key, a wrong type, a null) for
# ``checked``, which walks the fields in schema order and reports the first problem. Unrolled, it
# costs about half the loop it replaces, which is most of ``arguments_as``.
_FAST = """\
def conv_object(v):
    if not isinstance(v, dict):
        raise type_error("object", v)
    if len(v) == size:
        try:
{body}
        except (KeyError, ValidationError, _Surprise):
            kwargs = checked(v)
    else:
        kwargs = checked(v)
    return kwargs if make is None else make(kwargs)
"""


class _Surprise(Exception):
    """A value the fast path of an object does not take: ``checked`` looks at it."""


def _fast_object(
    plain: list[tuple[str, frozenset[type]]],
    others: list[tuple[str, Conv]],
    may_be_null: frozenset[str],
    size: int,
    checked: Callable[[dict[str, Any]], dict[str, Any]],
    make: Callable[[dict[str, Any]], Any] | None,
) -> Conv:
    """Return the fast path of an object with these fields (see ``_FAST``).

    A field in ``may_be_null`` may be null for its default: the key is then left out of the
    keyword arguments (``make`` fills the default).
    """
    scope: dict[str, Any] = {"size": size, "checked": checked, "make": make, "type_error": type_error,
                             "ValidationError": ValidationError, "_Surprise": _Surprise}
    pad = " " * 12
    body, fields, later = [], [], []
    for i, (name, exact) in enumerate(plain):
        scope[f"e{i}"] = exact
        body.append(f"{pad}x{i} = v[{name!r}]")
        if name in may_be_null:
            body.append(f"{pad}if type(x{i}) not in e{i} and x{i} is not None: raise _Surprise")
            later.append(f"{pad}if x{i} is not None: kwargs[{name!r}] = x{i}")
        else:
            body.append(f"{pad}if type(x{i}) not in e{i}: raise _Surprise")
            fields.append(f"{name!r}: x{i}")
    for i, (name, conv) in enumerate(others):
        scope[f"c{i}"] = conv
        if name in may_be_null:
            body.append(f"{pad}y{i} = v[{name!r}]")
            body.append(f"{pad}if y{i} is not None: y{i} = c{i}(y{i})")
            later.append(f"{pad}if y{i} is not None: kwargs[{name!r}] = y{i}")
        else:
            body.append(f"{pad}y{i} = c{i}(v[{name!r}])")
            fields.append(f"{name!r}: y{i}")
    body.append(f"{pad}kwargs = {{{', '.join(fields)}}}")
    exec(_FAST.format(body="\n".join(body + later)), scope)
    compiled: Conv = scope["conv_object"]
    return compiled


def _maker(cls: type, label: str) -> Callable[[dict[str, Any]], Any]:
    """Return how to make an instance of dataclass ``cls`` from checked keyword arguments.

    A frozen dataclass's generated ``__init__`` stores each field through
    ``object.__setattr__`` (most of the cost of building one). When ``cls`` uses exactly that
    generated ``__init__`` (found by the ``__dataclass_builtins_object__`` name only it uses),
    do what it does — fill the defaults, store the fields, call ``__post_init__`` — directly.
    Any other class is called normally.
    """
    init = cls.__dict__.get("__init__")
    code = getattr(init, "__code__", None)
    if (
        code is None
        or "__dataclass_builtins_object__" not in code.co_freevars
        or getattr(cls, "__new__") is not object.__new__
    ):
        return _refusing(cls, label, lambda kwargs: cls(**kwargs))
    fields = dataclasses.fields(cls)
    defaults = [
        (f.name, f.default, f.default_factory, f.init)
        for f in fields
        if f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING
    ]
    fill = [(name, default, factory) for name, default, factory, init in defaults if init]
    always = [(name, default, factory) for name, default, factory, init in defaults if not init]
    size = sum(1 for f in fields if f.init)
    post_init = getattr(cls, "__post_init__", None)
    slots = [getattr(cls, f.name, None) for f in fields]
    if all(type(s) is MemberDescriptorType for s in slots):
        setters = [(f.name, s.__set__) for f, s in zip(fields, slots)]  # type: ignore[union-attr]  # the all() above checked every slot
    elif any(type(s) is MemberDescriptorType for s in slots):
        return _refusing(cls, label, lambda kwargs: cls(**kwargs))
    else:
        setters = None
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
        if post_init is not None:
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


def _choice(node: t.Choice) -> Conv:
    table = {json_key(v): m for v, m in zip(node.values, node.members)}
    kinds = list(dict.fromkeys(t.JSON_TYPES[type(v)] for v in node.values))
    tests = [TYPE_TESTS[k] for k in kinds]
    expected = " or ".join(kinds)

    def conv_choice(v: object) -> Any:
        member = table.get(v if type(v) is str else json_key(v), _MISS)  # json_key(str) is the str
        if member is not _MISS:
            return member
        if any(test(v) for test in tests):
            raise ValidationError("must be one of the allowed values", "", "value")
        raise type_error(expected, v)

    return conv_choice


def _array(item: Conv, exact: frozenset[type], kind: type, unique: bool) -> Conv:
    def conv_array(v: object) -> Any:
        if not isinstance(v, (list, tuple)):
            raise type_error("array", v)
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
            raise type_error("array", v)
        if len(v) < n:
            raise ValidationError(f"expected at least {n} items, got {len(v)}", "", "value")
        if same and len(v) > n:  # strict form: minItems and maxItems, then items
            raise ValidationError(f"expected at most {n} items, got {len(v)}", "", "size")
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
            raise type_error("object", v)
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
