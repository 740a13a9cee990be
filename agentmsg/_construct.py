"""The core types' field tables: their builder, ``to_dict`` and ``repr`` written from one list.

Theory of operation. A core type (``ChatMessage``, ``ToolCall``, the content parts...) states
each field once, in its dataclass body; a field whose output is not the plain value says how
in its ``metadata``::

    content: Content = field(default=None, metadata=row(
        to_dict="$ if type($) is str else [part.to_dict() for part in $]",
        repr='count(len($), "char" if type($) is str else "part")'))
    is_error: bool = False

``row`` takes two Python expressions in which ``$`` stands for the field's value: what
``to_dict`` puts under the field's key, and what ``repr`` shows after ``name=``. A field at its
default (None, or a false default such as ``False`` or ``()``) is left out of both, unless its
row says ``always`` (or ``repr_always``, for repr only); a field without a default is always
there. ``dataclasses.field(repr=False)`` keeps a field out of repr. A row may also say that the
class's checks keep the field at its default unless an earlier optional field is set
(``requires``) or unset (``excludes``): ``ChatMessage.is_error`` requires ``tool_call_id``.

From that table the functions below write Python source and compile it with ``exec``, the way
``dataclasses`` writes ``__init__``, in the globals of the class's module, so the expressions
name what hand-written code there would. The generated code is what a careful hand would
write (``to_dict`` tests each optional key that can be there and returns one dict literal per
shape; ``SOURCE`` keeps it, to read), so it costs what hand-written code costs; no call loops
over the table. Each function is compiled once, on
its first use, not when the module loads: compiling them all would add ~12% to the first
``from agentmsg import ChatMessage``.

- ``@from_table()`` writes ``to_dict`` and ``__repr__`` (the class declares
  ``to_dict: ClassVar[Callable[[Self], dict[str, Any]]]`` for type checkers);
- ``builder(cls)`` returns ``build(<fields>)``, which makes an instance from values already
  checked, in place (see ``mutable_twin``): the fast path of factories and decoders;
- ``list_to_dict(cls)`` returns the ``to_dict`` of a tuple of instances, with no call per item.

Validation stays hand-written, in each class: rules are logic, not field lists.
``agentmsg._fieldtable`` is the events' and records' generator (``__init__`` and the decoder from
each field's wire key and check).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from dataclasses import MISSING, fields as dataclass_fields
from typing import Any, NamedTuple, TypeVar

__all__ = ["SOURCE", "builder", "from_table", "list_to_dict", "mutable_twin", "new", "raw_setters", "row"]

_T = TypeVar("_T", bound=type)
_ROW = "agentmsg.row"
_TREE_KEYS = 5  # optional keys to_dict branches on: at most 2**5 dict literals

new = object.__new__  # a blank instance, for decoders that store through raw setters

_TAGS: dict[type, tuple[str, str] | None] = {}  # each class's tag, given to from_table

SOURCE: dict[str, str] = {}
"""The generated source of each function, by qualified name (``ChatMessage.to_dict``), once compiled."""


def raw_setters(cls: type, *names: str) -> tuple[Callable[[Any, Any], None], ...]:
    """Return the slot setters of ``cls`` for ``names``, in order: stores that skip the frozen ``__setattr__``."""
    return tuple(cls.__dict__[name].__set__ for name in names)


def mutable_twin(cls: type) -> type:
    """Return a class with the slots of the frozen slotted ``cls`` and nothing else.

    The cheapest way to make a frozen instance from checked values: make a twin (``_Twin()``),
    store each field with a plain attribute store (what a mutable slotted class compiles to,
    ~20 times cheaper than a slot setter's call), then give the object its real class,
    ``obj.__class__ = cls``, which CPython allows between classes of the same layout. The result
    is a ``cls`` in every way (``type``, equality, hashing, pickling, ``replace``);
    ``tests/test_fast_paths.py`` checks it.
    """
    return type(f"_{cls.__name__}Twin", (), {"__slots__": cls.__dict__["__slots__"], "__module__": cls.__module__})


class _Row(NamedTuple):
    """How ``to_dict`` and ``repr`` show a field: ``row``'s arguments."""

    to_dict: str = "$"
    repr: str = "repr($)"
    always: bool = False
    repr_always: bool = False
    after: str | None = None
    requires: str | None = None
    excludes: str | None = None
    implied: Mapping[str, str] | None = None


def row(
    to_dict: str = "$", repr: str = "repr($)", *, always: bool = False, repr_always: bool = False,
    after: str | None = None, requires: str | None = None, excludes: str | None = None,
    implied: Mapping[str, str] | None = None,
) -> Mapping[str, Any]:
    """Return a field's ``metadata``: how ``to_dict`` and ``repr`` show it (``$`` is its value).

    ``always``: in both even at its default; ``repr_always``: in repr even at its default;
    ``after``: its key follows that field's in ``to_dict`` (else keys follow the fields' order).
    ``requires`` / ``excludes``: the class's checks let the field leave its default only when
    that earlier optional field has left its own / is at its own; ``to_dict`` then tests it
    only where it can be there. ``implied``: where the named optional field is set, ``to_dict``
    writes this constant source instead (``{"tool_call_id": '"tool"'}`` for the role).
    """
    return {_ROW: _Row(to_dict, repr, always, repr_always, after, requires, excludes, implied)}


_PLAIN_ROW = _Row()  # the row of a field without one


def _table(cls: type) -> list[tuple[str, Any, _Row, bool]]:
    """Return (name, default or MISSING, row, shown by repr) per field, in the fields' order."""
    table = []
    for f in dataclass_fields(cls):
        default = f.default if f.default_factory is MISSING else f.default_factory()
        if default is not MISSING and default is not None and default:
            raise TypeError(f"{cls.__qualname__}.{f.name}: a default must be None or false, to be left out")
        table.append((f.name, default, f.metadata.get(_ROW, _PLAIN_ROW), f.repr))
    return table


def _key_order(table: list[tuple[str, Any, _Row, bool]]) -> list[tuple[str, Any, _Row, bool]]:
    """Return the table in ``to_dict``'s key order: a row with ``after`` moves behind that field."""
    ordered = list(table)
    for entry in table:
        if entry[2].after is not None:
            ordered.remove(entry)
            ordered.insert([name for name, *_ in ordered].index(entry[2].after) + 1, entry)
    return ordered


def _changed(value: str, default: Any) -> str | None:
    """Return the source test that ``value`` is not ``default`` (None: no default, always shown)."""
    if default is MISSING:
        return None
    return f"{value} is not None" if default is None else value


def _dict_lines(cls: type, obj: str, tag: tuple[str, str] | None, sink: str) -> list[str]:
    """Return the lines that put ``obj``'s dict in ``sink`` (``return {}``, ``out_list.append({})``).

    The lines branch on the first ``_TREE_KEYS`` optional keys, one ``if``/``else`` each, down to
    one dict literal per combination: a literal costs less than a dict filled key by key. Keys
    past those are stored one by one.
    """
    table = _key_order(_table(cls))
    head = [(-1, f"{tag[0]!r}: {tag[1]!r}")] if tag else []
    for i, (name, _, shown, _) in enumerate(table):
        for other in (shown.requires, shown.excludes):
            if other is not None and other not in [earlier for earlier, *_ in table[:i]]:
                raise TypeError(f"{cls.__qualname__}.{name}: {other!r} must be a field whose key comes before")

    def field(i: int) -> tuple[list[str], str | None, str]:
        """Return the lines that load field ``i``, its test (None: always there) and its ``key: value``."""
        name, default, shown, _ = table[i]
        if shown.to_dict.count("$") < 2:  # read where it is used: cheaper than a local when it is absent
            test = None if shown.always else _changed(f"{obj}.{name}", default)
            return [], test, f"{name!r}: " + shown.to_dict.replace("$", f"{obj}.{name}")
        test = None if shown.always else _changed(f"v_{name}", default)
        return [f"v_{name} = {obj}.{name}"], test, f"{name!r}: " + shown.to_dict.replace("$", f"v_{name}")

    def leaf(literal: list[tuple[int, str]], present: frozenset[str]) -> str:
        """Return the dict literal of a shape: a field's ``implied`` constant where its condition holds."""
        items = []
        for j, item in literal:  # j is -1 for the tag
            name, implied = table[j][0], (table[j][2].implied if j >= 0 else None) or {}
            known = [value for other, value in implied.items() if other in present]
            items.append(f"{name!r}: {known[0]}" if known else item)
        return "{" + ", ".join(items) + "}"

    def branch(i: int, literal: list[tuple[int, str]], present: frozenset[str]) -> list[str]:
        lines: list[str] = []
        for j in range(i, len(table)):
            name, _, shown, _ = table[j]
            if (shown.requires is not None and shown.requires not in present) or shown.excludes in present:
                continue  # at its default here, by the class's checks
            load, test, item = field(j)
            lines += load
            if test is None:
                literal = [*literal, (j, item)]
            elif len(present) < _TREE_KEYS:
                with_it = branch(j + 1, [*literal, (j, item)], present | {name})
                without = branch(j + 1, literal, present | {f"-{name}"})
                return [*lines, f"if {test}:", *_indent(with_it), "else:", *_indent(without)]
            else:
                return [*lines, f"out = {leaf(literal, present)}", *stores(j), sink.format("out")]
        return [*lines, sink.format(leaf(literal, present))]

    def stores(i: int) -> list[str]:
        lines: list[str] = []
        for j in range(i, len(table)):
            load, test, item = field(j)
            key, value = item.split(": ", 1)
            lines += [*load, f"out[{key}] = {value}"] if test is None else [*load, f"if {test}:", f"    out[{key}] = {value}"]
        return lines

    return branch(0, head, frozenset())


def _indent(lines: list[str]) -> list[str]:
    return [f"    {line}" for line in lines]


def _repr_lines(cls: type) -> list[str]:
    """Return the body of ``__repr__``: ``Name(field=shown, ...)``, fields at their default left out."""
    first: list[str] = []  # the leading fields that are always shown
    lines: list[str] = []
    for name, default, shown, in_repr in _table(cls):
        if not in_repr:
            continue
        test = None if shown.always or shown.repr_always else _changed(f"v_{name}", default)
        item = f"{name + '='!r} + " + shown.repr.replace("$", f"self.{name}" if test is None else f"v_{name}")
        if test is None and not lines:
            first.append(item)
        elif test is None:
            lines.append(f"shown.append({item})")
        else:
            lines += [f"v_{name} = self.{name}", f"if {test}:", f"    shown.append({item})"]
    head = f"return {cls.__name__ + '('!r} + ', '.join("
    if not lines:
        return [f"{head}[{', '.join(first)}]) + ')'"]
    return [f"shown = [{', '.join(first)}]", *lines, f"{head}shown) + ')'"]


def from_table(*, tag: tuple[str, str] | None = None) -> Callable[[_T], _T]:
    """Write ``to_dict`` and ``__repr__`` of a frozen slotted dataclass from its field table.

    >>> from dataclasses import dataclass, field
    >>> @from_table(tag=("type", "note"))
    ... @dataclass(frozen=True, slots=True, repr=False)
    ... class Note:
    ...     text: str = field(metadata=row(repr="str(len($))"))
    ...     tags: tuple[str, ...] = field(default=(), metadata=row(to_dict="list($)"))
    >>> Note("hi", ("a",)).to_dict(), Note("hi")
    ({'type': 'note', 'text': 'hi', 'tags': ['a']}, Note(text=2))
    >>> print(SOURCE["Note.to_dict"], end="")
    def to_dict(self):
        if self.tags:
            return {'type': 'note', 'text': self.text, 'tags': list(self.tags)}
        else:
            return {'type': 'note', 'text': self.text}

    ``tag`` is a constant first key of the dict (``"type": "text"``), not a field.
    """

    def write(cls: _T) -> _T:
        _TAGS[cls] = tag
        setattr(cls, "to_dict", _OnFirstUse(cls, "to_dict", _write_to_dict))
        setattr(cls, "__repr__", _OnFirstUse(cls, "__repr__", _write_repr))
        return cls

    return write


class _OnFirstUse:
    """A method compiled when it is first looked up, which then takes this stand-in's place on the class.

    The lookup that compiles it (``msg.to_dict``, ``repr(msg)``, ``ChatMessage.to_dict``)
    already gets the compiled function, so no call ever goes through this class.
    """

    __slots__ = ("cls", "name", "write")

    def __init__(self, cls: type, name: str, write: Callable[[type], Callable[..., Any]]) -> None:
        self.cls, self.name, self.write = cls, name, write

    def __get__(self, obj: object, owner: type | None = None) -> Any:
        fn = self.write(self.cls)
        setattr(self.cls, self.name, fn)
        return fn if obj is None else fn.__get__(obj, owner)


def _write_to_dict(cls: type) -> Callable[..., Any]:
    tag = _TAGS[cls]
    lines = _dict_lines(cls, "self", tag, "return {}")
    keys = [f'"{tag[0]}"'] if tag else []
    for name, default, shown, _ in _key_order(_table(cls)):
        keys.append(f'"{name}"' if shown.always or default is MISSING else f'"{name}"?')
    optional = any(key.endswith("?") for key in keys)
    doc = f"Return {{{', '.join(keys)}}}" + (": a key marked ? is left out at its default." if optional else ".")
    return _compile(cls, "to_dict", "self", lines, {}, doc)


def _write_repr(cls: type) -> Callable[..., Any]:
    return _compile(cls, "__repr__", "self", _repr_lines(cls), {}, None)


def builder(cls: type) -> Callable[..., Any]:
    """Return ``build(<fields>)``: a ``cls`` made in place from checked values.

    >>> from dataclasses import dataclass
    >>> @dataclass(frozen=True, slots=True)
    ... class Pair:
    ...     left: int
    ...     right: int = 0
    >>> build = builder(Pair)
    >>> build(1), type(build(1, 2)) is Pair
    (Pair(left=1, right=0), True)
    >>> print(SOURCE["Pair.build"], end="")
    def build(left, right=_d_right):
        obj = _Twin()
        obj.left = left
        obj.right = right
        obj.__class__ = _Cls
        return obj

    It checks nothing: the caller has (a factory, a decoder's fast path). A field with a
    default may be left out. Assign it to a module global of ``cls``'s module: the function is
    compiled on its first call, which then puts it in place of the stand-in returned here.
    """
    return _BuildOnFirstCall(cls)


class _BuildOnFirstCall:
    """``builder``'s stand-in: the first call compiles ``build`` and rebinds the module's globals that name this."""

    __slots__ = ("cls", "build")

    def __init__(self, cls: type) -> None:
        self.cls = cls
        self.build: Callable[..., Any] | None = None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.build is None:
            self.build = _write_builder(self.cls)
            module = sys.modules.get(self.cls.__module__)
            names = vars(module) if module else {}
            for name in [name for name, value in names.items() if value is self]:
                names[name] = self.build
        return self.build(*args, **kwargs)


def _write_builder(cls: type) -> Callable[..., Any]:
    env: dict[str, Any] = {"_Twin": mutable_twin(cls), "_Cls": cls}
    params = []
    lines = ["obj = _Twin()"]  # cheaper than object.__new__(_Twin), which checks its argument
    for name, default, _, _ in _table(cls):
        if default is MISSING:
            params.append(name)
        else:
            env[f"_d_{name}"] = default
            params.append(f"{name}=_d_{name}")
        lines.append(f"obj.{name} = {name}")
    lines += ["obj.__class__ = _Cls", "return obj"]
    return _compile(cls, "build", ", ".join(params), lines, env, f"Return a {cls.__name__} of checked values.")


def list_to_dict(cls: type) -> Callable[[Any], list[dict[str, Any]]]:
    """Return ``to_dicts(items)``: ``[item.to_dict() for item in items]`` without a call per item (after ``from_table``)."""
    lines = _dict_lines(cls, "item", _TAGS[cls], "out_list.append({})")
    body = ["out_list = []", "for item in items:", *_indent(lines), "return out_list"]
    return _compile(cls, "to_dicts", "items", body, {}, f"Return the dicts of a sequence of {cls.__name__}.")


def _compile(
    cls: type, name: str, params: str, lines: list[str], env: dict[str, Any], doc: str | None
) -> Callable[..., Any]:
    """Compile ``def name(params): lines`` once, in the globals of ``cls``'s module; ``env`` by closure."""
    source = f"def {name}({params}):\n" + "".join(f"    {line}\n" for line in lines)
    wrapper = f"def __create__({', '.join(env)}):\n" + "".join(f"    {line}\n" for line in source.splitlines()) + f"    return {name}\n"
    module = sys.modules.get(cls.__module__)
    ns: dict[str, Any] = {}
    exec(wrapper, module.__dict__ if module else {}, ns)
    fn: Callable[..., Any] = ns["__create__"](**env)
    fn.__qualname__ = f"{cls.__qualname__}.{name}"
    fn.__module__ = cls.__module__
    fn.__doc__ = doc
    SOURCE[fn.__qualname__] = source
    return fn
