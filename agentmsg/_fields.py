"""One field table per class: ``__init__`` and the decoder are generated from it.

Theory of operation. An event or a record states each field once, in its dataclass body::

    id: str = field(metadata=wire("id", check_nonempty))
    status: str = field(default="running", metadata=wire("status", check_choice, _OPEN_STATUSES))

that is: the attribute, its type and default (the dataclass's part), the key on the wire and
the check that takes ``(value, path, *args)`` and returns the value to store (``wire``'s part).
``@wired(...)``, put above ``@dataclass``, reads that table once, when the module is imported,
and writes two functions as source text, which it compiles with ``exec`` the way
``dataclasses`` builds ``__init__`` (``dataclasses._create_fn``):

- ``__init__(self, *, <fields>)``: each argument goes through its check and is stored through
  the slot's own setter (a frozen class cannot use ``setattr``); then the class's hand-written
  ``__post_init__``, if it has one, checks the rules that tie fields together.
- the decoder (``from_dict(cls, data, /)`` or, for records, ``_from_data(cls, id, data, /)``):
  each key is read, turned by ``decode`` into what ``__init__`` takes (a nested object, a
  list of them, a timestamp), then checked and stored exactly as ``__init__`` does, on a
  blank instance; then the same ``__post_init__``.

So a value is accepted by the constructor exactly when its wire form is accepted by the decoder,
with the same path and code. The generated ``__init__`` replaces the one ``dataclass`` wrote;
``dataclass`` still gives equality, hashing, slots, ``replace`` and pickling. Generated code
costs what hand-written code costs (a prototype that looped over the table at run time cost
3-10% on decode and 55-75% on construction). ``to_dict`` stays a literal dict in each class.
``SOURCE`` keeps the generated text, for reading and debugging.

``new`` and ``slot_setters`` (from ``_slots``) are the same fast path by hand, for the core types'
factories.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import MISSING, fields as dataclass_fields
from typing import Any, NamedTuple, TypeVar

from ._checks import check_array, check_choice, check_keys, check_object, expect_object, map_items, missing
from ._construct import new
from .errors import ValidationError

__all__ = ["wire", "wired", "nested", "each", "SOURCE"]

_T = TypeVar("_T", bound=type)
_ROW = "agentmsg.wire"
_FACTORY = object()  # the default of an argument whose field has a default_factory

SOURCE: dict[str, str] = {}
"""The generated source of each class's functions, by qualified name."""


class Wire(NamedTuple):
    """One row of a class's field table (see the module docstring)."""

    key: str | tuple[str, ...] | None  # None: not in the payload (a record's id, from the envelope)
    check: Callable[..., Any] | None  # (value, path, *args, **options) -> value to store
    args: tuple[Any, ...]
    options: dict[str, Any]
    optional: bool  # None is stored as is, unchecked
    decode: Callable[[Any, str], Any] | None  # wire form -> what __init__ takes
    required: bool  # on the wire, even though the constructor has a default


def wire(
    key: str | tuple[str, ...] | None,
    check: Callable[..., Any] | None = None,
    /,
    *args: Any,
    optional: bool = False,
    decode: Callable[[Any, str], Any] | None = None,
    required: bool = False,
    **options: Any,
) -> Mapping[str, Wire]:
    """Return a field's ``metadata``: its wire key, its check and how it decodes.

    ``key`` is the payload key (also the error path), a tuple of keys that ``decode`` reads
    from the whole payload, or None for a value the decoder takes as an argument.
    """
    return {_ROW: Wire(key, check, args, options, optional, decode, required)}


def nested(from_dict: Callable[[Any], Any]) -> Callable[[Any, str], Any]:
    """Return a ``decode`` that builds one object with ``from_dict``, its errors under ``path``."""

    def decode(value: Any, path: str) -> Any:
        if value is None:
            raise missing(path)
        try:
            return from_dict(value)
        except ValidationError as err:
            raise err.prefixed(path) from None

    return decode


def each(from_dict: Callable[[Any], Any]) -> Callable[[Any, str], tuple[Any, ...]]:
    """Return a ``decode`` that builds every item of an array, its errors under ``path[i]``."""

    def decode(value: Any, path: str) -> tuple[Any, ...]:
        return tuple(map_items(from_dict, check_array(value, path), path))

    return decode


def wired(
    *, decoder: str = "from_dict", strict: bool = False, tags: tuple[tuple[str, str], ...] = ()
) -> Callable[[_T], _T]:
    """Generate ``__init__`` and the decoder of a slotted dataclass from its field table.

    >>> from dataclasses import dataclass, field
    >>> @wired()
    ... @dataclass(frozen=True, slots=True, kw_only=True)
    ... class Light:
    ...     color: str = field(metadata=wire("colour", check_choice, ("red", "green")))
    ...     blink: bool = field(default=False, metadata=wire("blink"))
    >>> Light.from_dict({"colour": "red", "blink": None})
    Light(color='red', blink=False)
    >>> try:
    ...     Light(color="blue")
    ... except ValidationError as exc:
    ...     print(exc)
    colour: must be one of red, green
    >>> print(SOURCE["Light"], end="")
    def __init__(self, *, color, blink=_d_blink):
        _set_color(self, _c_color(color, 'colour', _a_color_0))
        _set_blink(self, blink)
    def from_dict(cls, data, /):
        data = _expect_object(data)
        obj = _new(cls)
        _set_color(obj, _c_color(data.get('colour'), 'colour', _a_color_0))
        v = data.get('blink')
        _set_blink(obj, _d_blink if v is None else v)
        return obj

    ``tags`` are constant wire keys checked first (``("role", "user")``) and not stored.
    ``strict`` is the records' reading: unknown keys are refused, any mapping is an object,
    and only an absent key takes the default (a null is checked like any value); otherwise,
    as the socket events read, unknown keys are ignored and a null takes the default too.
    """

    def build(cls: _T) -> _T:
        _build(cls, decoder, strict, tags)
        return cls

    return build


def _build(cls: type, decoder: str, strict: bool, tags: tuple[tuple[str, str], ...]) -> None:
    ns: dict[str, Any] = {
        "_new": new, "_FACTORY": _FACTORY, "_expect_object": expect_object,
        "_check_object": check_object, "_check_keys": check_keys, "_check_choice": check_choice,
    }
    params: list[str] = []  # __init__'s arguments
    init: list[str] = []  # __init__'s body
    given: list[str] = []  # the decoder's arguments before data
    body: list[str] = []  # the decoder's body
    keys: list[str] = []  # the wire keys, for a strict decoder to refuse any other
    for f in dataclass_fields(cls):
        if _ROW not in f.metadata:
            raise TypeError(f"{cls.__qualname__}.{f.name} has no row: give it field(metadata=wire(...))")
        row: Wire = f.metadata[_ROW]
        name = f.name
        path = row.key if type(row.key) is str else name
        ns[f"_set_{name}"] = cls.__dict__[name].__set__
        ns[f"_c_{name}"], ns[f"_dec_{name}"] = row.check, row.decode
        extra = "".join(f", _a_{name}_{i}" for i in range(len(row.args)))
        extra += "".join(f", {option}=_o_{name}_{option}" for option in row.options)
        ns.update({f"_a_{name}_{i}": arg for i, arg in enumerate(row.args)})
        ns.update({f"_o_{name}_{option}": arg for option, arg in row.options.items()})

        def check(value: str, optional: bool = row.optional) -> str:  # source: check a local name
            call = value if row.check is None else f"_c_{name}({value}, {path!r}{extra})"
            return f"None if {value} is None else {call}" if optional and row.check else call

        # __init__: a keyword-only argument per field, checked, stored.
        if f.default is not MISSING:
            ns[f"_d_{name}"] = f.default
            params.append(f"{name}=_d_{name}")
        elif f.default_factory is not MISSING:
            ns[f"_f_{name}"] = f.default_factory
            params.append(f"{name}=_FACTORY")
            init.append(f"if {name} is _FACTORY: {name} = _f_{name}()")
        else:
            params.append(name)
        init.append(f"_set_{name}(self, {check(name)})")

        # The decoder: take the argument, or read the key(s) and decode; then check and store.
        if row.key is None:
            given.append(name)
            body.append(f"_set_{name}(obj, {check(name)})")
            continue
        if isinstance(row.key, tuple):  # decode reads these keys from the whole payload
            keys.extend(row.key)
            read, by_default = "data", False
        else:
            keys.append(row.key)
            read = f"data.get({row.key!r})"
            by_default = f.default is not MISSING and not row.required
            if by_default and strict and f.default is not None:  # only an absent key takes it
                read, by_default = f"data.get({row.key!r}, _d_{name})", False
        if not by_default and row.decode is None and not row.optional:  # the common case, inline
            body.append(f"_set_{name}(obj, {check(read)})")
            continue
        body.append(f"v = {read}")
        if row.decode is not None:
            decode = f"_dec_{name}(v, {path!r})"
            body.append(f"v = None if v is None else {decode}" if by_default else f"v = {decode}")
        if by_default:  # absent (or null) takes the default
            body.append(f"_set_{name}(obj, _d_{name} if v is None else {check('v', False)})")
        else:  # a None is for the check to refuse
            body.append(f"_set_{name}(obj, {check('v')})")

    head = []
    if not given:  # a public from_dict: make sure of the object first
        head.append("data = _check_object(data)" if strict else "data = _expect_object(data)")
    if strict:
        ns["_keys"] = frozenset(keys)
        head.append("_check_keys(data, _keys)")
    for key, value in tags:
        head.append(f"_check_choice(data.get({key!r}), {key!r}, ({value!r},))")
    rules = "__post_init__" in cls.__dict__
    source = (
        f"def __init__(self, *, {', '.join(params)}):\n"
        + "".join(f"    {line}\n" for line in init)
        + ("    self.__post_init__()\n" if rules else "")
        + f"def {decoder}(cls, {''.join(g + ', ' for g in given)}data, /):\n"
        + "".join(f"    {line}\n" for line in [*head, "obj = _new(cls)", *body])
        + ("    obj.__post_init__()\n" if rules else "")
        + "    return obj\n"
    )
    exec(source, ns)
    SOURCE[cls.__qualname__] = source
    for name, doc in (("__init__", None), (decoder, f"Decode {cls.__name__} from its wire form.")):
        fn = ns[name]
        fn.__qualname__ = f"{cls.__qualname__}.{name}"
        fn.__module__ = cls.__module__
        fn.__doc__ = doc
    setattr(cls, "__init__", ns["__init__"])  # replaces the one dataclass wrote
    setattr(cls, decoder, classmethod(ns[decoder]))
