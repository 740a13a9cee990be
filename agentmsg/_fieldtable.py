"""One field table per class: its constructor, decoder, ``to_dict`` and ``__repr__`` are generated from it.

Theory of operation. An event or a record states each field once, on one line of its dataclass
body, a row of the class's field table::

    id: str = field(metadata=row("id", check_nonempty))
    error: str | None = field(default=None, metadata=row("error", check_nonempty, optional=True, show=size("char")))

that is: the attribute, its type and default (the dataclass's part); the key on the wire and the
check that takes ``(value, path, *args)`` and returns the value to store; how the value is written
and shown (``row``'s part). ``@field_table(...)``, put above ``@dataclass(..., repr=False)``, reads
the rows once, when the module is imported, and writes four functions as source text, which it
compiles with ``exec`` the way ``dataclasses`` builds ``__init__`` (``dataclasses._create_fn``):

- ``__init__(self, *, <fields>)``: each argument goes through its check and is stored through
  the slot's own setter (a frozen class cannot use ``setattr``); then the class's hand-written
  ``__post_init__``, if it has one, checks the rules that tie fields together.
- the decoder (``from_dict(cls, data, /)``, or for a record ``_from_data(cls, id, data, /)``):
  each key is read, turned by ``decode`` into what ``__init__`` takes (a nested object, a list
  of them, a timestamp), then checked and stored exactly as ``__init__`` does, on a blank
  instance; then the same ``__post_init__``.
- ``to_dict(self)``: a dict display of the keys in the table's order, with the constant ``tags``.
  A key is left out when its value is the default if the row says so (``optional`` fields when
  None, ``omit_default`` ones): one such key splits the display in two, with it and without;
  more are each a statement after the display.
- ``__repr__(self)``: the fields in the table's order, each as its ``show`` says, without the
  ones ``to_dict`` leaves out and the hidden ones, in one f-string (two, or a few statements,
  when fields may be left out, as for ``to_dict``); content is shown by its size only.

So a value is accepted by the constructor exactly when its wire form is accepted by the decoder,
with the same path and code, and adding a field is one line. The generated ``__init__`` replaces
the one ``dataclass`` wrote; ``dataclass`` still gives equality, hashing, slots, ``replace`` and
pickling. Generated code costs what hand-written code costs (a prototype that looped over the
table at run time cost 3-10% on decode and 55-75% on construction). A class that writes its own
``to_dict`` or ``__repr__`` keeps it. A class built from a table subclasses ``Codec``, which holds
nothing at run time and tells type checkers about ``to_dict`` and ``from_dict``. ``SOURCE``
keeps the generated text, for reading and
debugging: there ``_check_x``, ``_decode_x``, ``_encode_x``, ``_show_x``, ``_default_x`` and
``_set_x`` are field ``x``'s check, decode, encode, show, default and slot setter.

The core types' field tables, their builders, ``to_dict`` and ``repr``, are
``agentmsg._construct``'s (``new`` comes from there).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sized
from dataclasses import MISSING, Field, fields as dataclass_fields
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

from ._checks import check_array, check_choice, check_keys, check_object, count, expect_object, map_items, missing
from ._construct import new
from .errors import ValidationError

__all__ = ["row", "field_table", "nested", "each", "size", "Codec", "SOURCE"]

_T = TypeVar("_T", bound=type)
_ROW = "agentmsg.row"  # the key of a row in a field's metadata
_FACTORY = object()  # the default of an argument whose field has a default_factory

SOURCE: dict[str, str] = {}
"""The generated source of each class's functions, by qualified name."""

_S = TypeVar("_S")


class Codec:
    """The base of a class built by ``field_table``: it names, for type checkers, what the table writes.

    It holds nothing at run time (empty slots, no methods); ``field_table`` sets the methods on the
    class itself, and a class that writes its own ``to_dict`` keeps it.
    """

    __slots__ = ()

    if TYPE_CHECKING:

        def to_dict(self) -> dict[str, Any]:
            """Return the wire form."""

        @classmethod
        def from_dict(cls: type[_S], data: Any, /) -> _S:
            """Decode the wire form."""


class Row(NamedTuple):
    """One row of a class's field table (see the module docstring and ``row``)."""

    key: str | tuple[str, ...] | None
    check: Callable[..., Any] | None
    args: tuple[Any, ...]
    options: dict[str, Any]
    optional: bool
    decode: Callable[[Any, str], Any] | None
    required: bool
    encode: Callable[[Any], Any] | None
    omit_default: bool
    show: Callable[[Any], object] | bool


def row(
    key: str | tuple[str, ...] | None,
    check: Callable[..., Any] | None = None,
    /,
    *args: Any,
    optional: bool = False,
    decode: Callable[[Any, str], Any] | None = None,
    required: bool = False,
    encode: Callable[[Any], Any] | None = None,
    omit_default: bool = False,
    show: Callable[[Any], object] | bool = repr,
    **options: Any,
) -> Mapping[str, Row]:
    """Return a field's ``metadata``: its row of the field table.

    - ``key``: the payload key, also the error path; a tuple of keys that ``decode`` reads from
      the whole payload and ``encode`` writes into it; None for a record's ``id``, which the
      envelope holds.
    - ``check``, ``*args``, ``**options``: ``check(value, path, *args, **options)`` returns the
      value to store or raises ``ValidationError``; no check stores the value as it is.
    - ``optional``: None is stored unchecked, and left out of ``to_dict`` and the repr.
    - ``decode``: turns the wire form into what the constructor takes, before the check.
      ``nested`` and ``each`` are encoded back with their objects' ``to_dict()``.
    - ``required``: the key must be on the wire even though the constructor has a default.
    - ``encode``: turns the stored value into its wire form (``thaw_json``, ``list``); none
      writes it as it is.
    - ``omit_default``: ``to_dict`` and the repr leave the key out when the value is the default.
    - ``show``: how the repr shows the value: ``repr`` (the default), a function of the value
      (``str``, ``len``, ``size("char")`` for content), or False to leave it out.
    """
    return {_ROW: Row(key, check, args, options, optional, decode, required, encode, omit_default, show)}


def nested(from_dict: Callable[[Any], Any]) -> Callable[[Any, str], Any]:
    """Return a ``decode`` that builds one object with ``from_dict``, its errors under ``path``.

    The field is written back as the object's ``to_dict()``.
    """

    def decode(value: Any, path: str) -> Any:
        if value is None:
            raise missing(path)
        try:
            return from_dict(value)
        except ValidationError as err:
            raise err.prefixed(path) from None

    decode.writes = "one"  # type: ignore[attr-defined]  # read by _value: the encoder to pair with it
    return decode


def each(from_dict: Callable[[Any], Any]) -> Callable[[Any, str], tuple[Any, ...]]:
    """Return a ``decode`` that builds every item of an array, its errors under ``path[i]``.

    The field is written back as the list of the items' ``to_dict()``.
    """

    def decode(value: Any, path: str) -> tuple[Any, ...]:
        return tuple(map_items(from_dict, check_array(value, path), path))

    decode.writes = "each"  # type: ignore[attr-defined]  # read by _value: the encoder to pair with it
    return decode


class size:
    """A ``show`` that writes a value's size, never its content: ``<3 chars>``, ``<1 key>``.

    >>> size("char")("abc"), size("key")({"a": 1})
    ('<3 chars>', '<1 key>')
    """

    __slots__ = ("unit",)

    def __init__(self, unit: str) -> None:
        self.unit = unit

    def __call__(self, value: Sized) -> str:
        return count(len(value), self.unit)


def field_table(
    *, strict: bool = False, tags: tuple[tuple[str, str], ...] = (), envelope: bool = False
) -> Callable[[_T], _T]:
    """Generate ``__init__``, the decoder, ``to_dict`` and ``__repr__`` of a slotted dataclass from its rows.

    >>> from dataclasses import dataclass, field
    >>> @field_table()
    ... @dataclass(frozen=True, slots=True, kw_only=True, repr=False)
    ... class Light(Codec):
    ...     color: str = field(metadata=row("colour", check_choice, ("red", "green")))
    ...     blink: bool = field(default=False, metadata=row("blink", omit_default=True))
    >>> Light.from_dict({"colour": "red", "blink": None})
    Light(color='red')
    >>> Light(color="green", blink=True).to_dict()
    {'colour': 'green', 'blink': True}
    >>> try:
    ...     Light(color="blue")
    ... except ValidationError as exc:
    ...     print(exc)
    colour: must be one of red, green
    >>> print(SOURCE["Light"], end="")
    def __init__(self, *, color, blink=_default_blink):
        _set_color(self, _check_color(color, 'colour', _arg_color_0))
        _set_blink(self, blink)
    def from_dict(cls, data, /):
        data = _expect_object(data)
        obj = _new(cls)
        _set_color(obj, _check_color(data.get('colour'), 'colour', _arg_color_0))
        v = data.get('blink')
        _set_blink(obj, _default_blink if v is None else v)
        return obj
    def to_dict(self):
        if not self.blink:
            return {'colour': self.color}
        return {'colour': self.color, 'blink': self.blink}
    def __repr__(self):
        if not self.blink:
            return f"Light(color={self.color!r})"
        return f"Light(color={self.color!r}, blink={self.blink!r})"

    ``tags`` are constant wire keys: checked first by the decoder and not stored; ``to_dict``
    writes them first, or right after the ``id`` when the first field is one (``{"id", "role",
    "kind", ...}``). ``strict`` is the records' reading: unknown keys are refused, any mapping
    is an object, and only an absent key takes the default (a null is checked like any value);
    otherwise, as the socket events read, unknown keys are ignored and a null takes the default
    too. ``envelope`` is a record's shape: the decoder is ``_from_data(cls, id, data, /)`` for
    the envelope's ``data``, and ``to_dict`` writes ``{"type": TYPE, "version": VERSION, "id",
    "data": {...}}``.
    """

    def build(cls: _T) -> _T:
        _build(cls, strict, tags, envelope)
        return cls

    return build


def _build(cls: type, strict: bool, tags: tuple[tuple[str, str], ...], envelope: bool) -> None:
    if cls.__dataclass_params__.repr:  # type: ignore[attr-defined]  # a dataclass: checked by dataclass_fields below
        raise TypeError(f"{cls.__qualname__}: give @dataclass repr=False, the field table writes __repr__")
    rows: list[tuple[Field[Any], Row]] = []
    ns: dict[str, Any] = {
        "_new": new, "_FACTORY": _FACTORY, "_expect_object": expect_object, "_check_object": check_object,
        "_check_keys": check_keys, "_check_choice": check_choice, "_count": count,
    }
    for f in dataclass_fields(cls):
        if _ROW not in f.metadata:
            raise TypeError(f"{cls.__qualname__}.{f.name} has no row: give it field(metadata=row(...))")
        r: Row = f.metadata[_ROW]
        if r.key is None and (not envelope or f.name != "id"):
            raise TypeError(f"{cls.__qualname__}.{f.name}: only a record's id has no key (field_table(envelope=True))")
        if r.omit_default and f.default is MISSING:
            raise TypeError(f"{cls.__qualname__}.{f.name}: omit_default needs a default")
        rows.append((f, r))
        name = f.name
        ns[f"_set_{name}"] = cls.__dict__[name].__set__
        named = {"check": r.check, "decode": r.decode, "encode": r.encode, "show": r.show or None}
        ns.update({f"_{part}_{name}": value for part, value in named.items() if value is not None})
        ns.update({f"_{part}_{name}": value for part, value in (("default", f.default), ("factory", f.default_factory))
                   if value is not MISSING})
        ns.update({f"_arg_{name}_{i}": arg for i, arg in enumerate(r.args)})
        ns.update({f"_option_{name}_{option}": arg for option, arg in r.options.items()})
    decoder = "_from_data" if envelope else "from_dict"
    functions = {"__init__": _init(rows, "__post_init__" in cls.__dict__)}
    functions[decoder] = _decoder(rows, decoder, strict, tags, "__post_init__" in cls.__dict__, ns)
    if "to_dict" not in cls.__dict__:  # else the class says why it writes its own
        functions["to_dict"] = _encoder(cls, rows, tags, envelope)
    if "__repr__" not in cls.__dict__:
        functions["__repr__"] = _repr(cls.__name__, rows)
    source = "".join(functions.values())
    exec(source, ns)
    SOURCE[cls.__qualname__] = source
    docs = {decoder: f"Decode {cls.__name__} from its wire form.", "to_dict": "Return the wire form."}
    for name in functions:
        fn = ns[name]
        fn.__qualname__ = f"{cls.__qualname__}.{name}"
        fn.__module__ = cls.__module__
        fn.__doc__ = docs.get(name)
        setattr(cls, name, classmethod(fn) if name == decoder else fn)  # __init__ replaces dataclass's


def _lines(head: str, body: list[str]) -> str:
    return head + "\n" + "".join(f"    {line}\n" for line in body)


def _checked(name: str, r: Row, value: str, optional: bool) -> str:
    """Return the source that checks the local ``value`` (None passes unchecked if ``optional``)."""
    path = r.key if type(r.key) is str else name
    extra = "".join(f", _arg_{name}_{i}" for i in range(len(r.args)))
    extra += "".join(f", {option}=_option_{name}_{option}" for option in r.options)
    call = value if r.check is None else f"_check_{name}({value}, {path!r}{extra})"
    return f"None if {value} is None else {call}" if optional and r.check else call


def _init(rows: list[tuple[Field[Any], Row]], rules: bool) -> str:
    """``__init__``: a keyword-only argument per field, checked, stored."""
    params, body = [], []
    for f, r in rows:
        name = f.name
        if f.default is not MISSING:
            params.append(f"{name}=_default_{name}")
        elif f.default_factory is not MISSING:
            params.append(f"{name}=_FACTORY")
            body.append(f"if {name} is _FACTORY: {name} = _factory_{name}()")
        else:
            params.append(name)
        body.append(f"_set_{name}(self, {_checked(name, r, name, r.optional)})")
    return _lines(f"def __init__(self, *, {', '.join(params)}):", body + (["self.__post_init__()"] if rules else []))


def _decoder(
    rows: list[tuple[Field[Any], Row]],
    decoder: str,
    strict: bool,
    tags: tuple[tuple[str, str], ...],
    rules: bool,
    ns: dict[str, Any],
) -> str:
    """The decoder: take the argument, or read the key(s) and decode; then check and store."""
    given: list[str] = []  # the decoder's arguments before data
    body: list[str] = []
    keys: list[str] = []  # the wire keys, for a strict decoder to refuse any other
    for f, r in rows:
        name = f.name
        if r.key is None:
            given.append(name)
            body.append(f"_set_{name}(obj, {_checked(name, r, name, r.optional)})")
            continue
        if isinstance(r.key, tuple):  # decode reads these keys from the whole payload
            keys.extend(r.key)
            read, by_default = "data", False
        else:
            keys.append(r.key)
            read = f"data.get({r.key!r})"
            by_default = f.default is not MISSING and not r.required
            if by_default and strict and f.default is not None:  # only an absent key takes it
                read, by_default = f"data.get({r.key!r}, _default_{name})", False
        if not by_default and r.decode is None and not r.optional:  # the common case, inline
            body.append(f"_set_{name}(obj, {_checked(name, r, read, r.optional)})")
            continue
        body.append(f"v = {read}")
        if r.decode is not None:
            decode = f"_decode_{name}(v, {r.key if type(r.key) is str else name!r})"
            body.append(f"v = None if v is None else {decode}" if by_default else f"v = {decode}")
        if by_default:  # absent (or null) takes the default
            body.append(f"_set_{name}(obj, _default_{name} if v is None else {_checked(name, r, 'v', False)})")
        else:  # a None is for the check to refuse
            body.append(f"_set_{name}(obj, {_checked(name, r, 'v', r.optional)})")
    head = []
    if not given:  # a public from_dict: make sure of the object first
        head.append("data = _check_object(data)" if strict else "data = _expect_object(data)")
    if strict:
        ns["_keys"] = frozenset(keys)
        head.append("_check_keys(data, _keys)")
    for key, value in tags:
        head.append(f"_check_choice(data.get({key!r}), {key!r}, ({value!r},))")
    tail = (["obj.__post_init__()"] if rules else []) + ["return obj"]
    return _lines(f"def {decoder}(cls, {''.join(g + ', ' for g in given)}data, /):", head + ["obj = _new(cls)"] + body + tail)


def _kept(f: Field[Any], r: Row, kept: bool = True) -> str | None:
    """Return the condition under which the field is written and shown (or, not ``kept``, left out); None: always."""
    if not (r.optional or r.omit_default):
        return None
    value = f"self.{f.name}"
    if f.default is None:
        return f"{value} is not None" if kept else f"{value} is None"
    if not f.default:
        return value if kept else f"not {value}"
    return f"{value} != _default_{f.name}" if kept else f"{value} == _default_{f.name}"


def _value(f: Field[Any], r: Row) -> str:
    """Return the source of the field's wire form."""
    writes, value = getattr(r.decode, "writes", None), f"self.{f.name}"
    if writes == "one":
        return f"{value}.to_dict()"
    if writes == "each":
        return f"[item.to_dict() for item in {value}]"
    return value if r.encode is None else f"_encode_{f.name}({value})"


class _Entry(NamedTuple):
    """One key of ``to_dict``'s output."""

    key: str  # the key's source; "**" spreads a field of several keys
    value: str  # the value's source
    kept: str | None  # when the key is written, or None: always
    dropped: str | None  # when it is left out

    def source(self) -> str:
        return f"**{self.value}" if self.key == "**" else f"{self.key}: {self.value}"


def _display(entries: list[_Entry]) -> str:
    return "{" + ", ".join(entry.source() for entry in entries) + "}"


def _encoder(cls: type, rows: list[tuple[Field[Any], Row]], tags: tuple[tuple[str, str], ...], envelope: bool) -> str:
    """``to_dict``: one dict display; a key that may be left out splits it in two when it is the only
    one, else each such key is a statement after the keys before it."""
    entries: list[_Entry] = []
    for f, r in rows:
        if r.key is None:  # a record's id: in the envelope
            continue
        kept = _kept(f, r)
        if isinstance(r.key, tuple) and kept is not None:
            raise TypeError(f"{cls.__qualname__}.{f.name}: a field of several keys must always be written")
        key = "**" if isinstance(r.key, tuple) else repr(r.key)  # encode writes several keys
        entries.append(_Entry(key, _value(f, r), kept, _kept(f, r, kept=False)))
    at = 1 if rows and rows[0][1].key == "id" else 0
    entries[at:at] = [_Entry(repr(key), repr(value), None, None) for key, value in tags]

    def wrap(data: str) -> str:  # a record's envelope around its data
        if not envelope:
            return data
        return f"{{'type': {cls.TYPE!r}, 'version': {cls.VERSION!r}, 'id': self.id, 'data': {data}}}"  # type: ignore[attr-defined]  # a record's ClassVars

    optional = [entry for entry in entries if entry.kept]
    if len(optional) == 1:  # one key that may be left out: a display without it and one with it
        (entry,) = optional
        return _lines("def to_dict(self):", [
            f"if {entry.dropped}:",
            f"    return {wrap(_display([other for other in entries if other is not entry]))}",
            f"return {wrap(_display(entries))}",
        ])
    n = entries.index(optional[0]) if optional else len(entries)
    head, rest = entries[:n], entries[n:]
    if head and head[0].key == "**":  # encode made a new dict: complete it in place
        body = [f"out = {head[0].value}"] + [f"out[{entry.key}] = {entry.value}" for entry in head[1:]]
    elif not rest:
        return _lines("def to_dict(self):", [f"return {wrap(_display(head))}"])
    else:
        body = [f"out = {_display(head)}"]
    for entry in rest:
        if entry.key == "**":
            body.append(f"out.update({entry.value})")
        else:
            body.append(f"{'' if entry.kept is None else f'if {entry.kept}: '}out[{entry.key}] = {entry.value}")
    return _lines("def to_dict(self):", body + [f"return {wrap('out')}"])


def _shown(f: Field[Any], r: Row) -> str:
    """Return the f-string field that shows the field's value."""
    show, value = r.show, f"self.{f.name}"
    if show is repr:
        return f"{{{value}!r}}"
    if show is str:
        return f"{{{value}!s}}"
    if show is len:
        return f"{{len({value})}}"
    if type(show) is size:
        return f"{{_count(len({value}), {show.unit!r})}}"
    return f"{{_show_{f.name}({value})}}"


def _repr(class_name: str, rows: list[tuple[Field[Any], Row]]) -> str:
    """``__repr__``: the fields shown, in order, without the ones ``to_dict`` leaves out."""
    pieces = [(f", {f.name}={_shown(f, r)}", _kept(f, r), _kept(f, r, kept=False)) for f, r in rows if r.show is not False]

    def whole(shown: list[tuple[str, str | None, str | None]]) -> str:
        return f'f"{class_name}({"".join(piece for piece, _, _ in shown)[2:]})"'

    optional = [piece for piece in pieces if piece[1]]
    if not optional:
        return _lines("def __repr__(self):", [f"return {whole(pieces)}"])
    if len(optional) == 1:  # one field that may be left out: an f-string without it and one with it
        (only,) = optional
        return _lines("def __repr__(self):", [
            f"if {only[2]}:",
            f"    return {whole([other for other in pieces if other is not only])}",
            f"return {whole(pieces)}",
        ])
    body: list[str] = []
    fixed: list[str] = []  # pieces always shown, not yet added to out
    lead = pieces[0][1] is not None  # the first field may be left out: collect without the name
    started = lead  # whether out holds the class name (or, with lead, the first piece would)
    if lead:
        body.append('out = ""')

    def flush() -> None:
        nonlocal started
        if fixed:
            text = "".join(fixed)
            body.append(f'out += f"{text}"' if started else f'out = f"{class_name}({text[2:]}"')
            started = True
            fixed.clear()

    for piece, kept, _ in pieces:
        if kept is None:
            fixed.append(piece)
            continue
        flush()
        body.append(f'if {kept}: out += f"{piece}"')
    flush()
    body.append(f'return f"{class_name}({{out[2:]}})"' if lead else 'return out + ")"')
    return _lines("def __repr__(self):", body)
