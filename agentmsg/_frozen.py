"""Deep-frozen JSON: an immutable, hashable dict and the freeze/thaw walkers."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NoReturn

from ._checks import check_text, count, expected, map_items, missing, type_name
from .errors import ValidationError

__all__ = ["FrozenDict", "check_json_object", "freeze_json", "freeze_object", "thaw_json"]


Nested = tuple[tuple[str, Callable[[Any], Any]], ...]


def _immutable(self: object, *args: object, **kwargs: object) -> NoReturn:
    raise TypeError("FrozenDict is immutable; build a new one with {**d, key: value}")


class FrozenDict(dict[str, Any]):
    """An immutable, hashable ``dict``: how agentmsg stores JSON objects.

    >>> d = FrozenDict({"path": "hello.py", "mode": "w"})
    >>> d["path"], hash(d) == hash(FrozenDict(mode="w", path="hello.py"))
    ('hello.py', True)
    >>> d["path"] = "other.py"
    Traceback (most recent call last):
        ...
    TypeError: FrozenDict is immutable; build a new one with {**d, key: value}

    It is a real ``dict`` subclass, so ``json.dumps`` and ``isinstance(d, dict)`` work.
    Its ``repr`` shows the keys and the size of each value, never the values, so logging a
    tool call's arguments (``logger.info("%r", call.arguments)``) cannot leak an API key; read a
    value by key, or ``dict(d)`` / ``thaw_json(d)``, to see it:

    >>> FrozenDict({"api_key": "sk-live-abc123", "limit": 5, "tags": ["a", "b"], "opts": {"x": None}})
    FrozenDict({'api_key': <14 chars>, 'limit': <number>, 'tags': <2 items>, 'opts': <1 key>})
    """

    __slots__ = ("_hash", "_nested")
    _hash: int  # the hash, cached on first use
    _nested: Nested  # set by freeze_json: the keys whose values are containers, and how to thaw each

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = _immutable
    __ior__ = _immutable

    def __hash__(self) -> int:  # type: ignore[override]  # dict sets __hash__ = None; a frozen dict hashes
        try:
            return self._hash
        except AttributeError:
            h = hash(frozenset(self.items()))
            object.__setattr__(self, "_hash", h)
            return h

    def __reduce__(self) -> tuple[object, ...]:
        return (freeze_json, (dict(self),))

    def __copy__(self) -> FrozenDict:
        return self

    def __deepcopy__(self, memo: object) -> FrozenDict:
        return self

    def __repr__(self) -> str:
        shown = [f"{_key_repr(key)}: {_describe(self[key])}" for key, _ in zip(self, range(_REPR_KEYS))]
        if len(self) > _REPR_KEYS:
            shown.append(count(len(self) - _REPR_KEYS, "more key"))
        return "FrozenDict({" + ", ".join(shown) + "})"


_REPR_KEYS = 32


def _key_repr(key: object) -> str:
    text = repr(key)
    return text if len(text) <= 42 else text[:39] + "..."


def _describe(value: object) -> str:
    """Describe a JSON value by its kind and size, never its content."""
    if value is None:
        return "None"
    if isinstance(value, str):
        return count(len(value), "char")
    if isinstance(value, bool):
        return "<bool>"
    if isinstance(value, (int, float)):
        return "<number>"
    if isinstance(value, dict):
        return count(len(value), "key")
    if isinstance(value, (list, tuple)):
        return count(len(value), "item")
    return f"<{type(value).__name__}>"


_new_frozen = FrozenDict



def freeze_json(value: object, path: str = "") -> Any:
    """Return ``value`` deep-frozen (dicts to FrozenDict, lists to tuples), checking it is JSON.

    >>> frozen = freeze_json({"a": [1, {"b": None}]})
    >>> frozen, frozen["a"]
    (FrozenDict({'a': <2 items>}), (1, FrozenDict({'b': None})))
    >>> try:
    ...     freeze_json({"x": [0, float("nan")]})
    ... except ValidationError as exc:
    ...     print(exc)
    x[1]: must be a finite number
    """
    try:
        return _freeze(value)
    except ValidationError as exc:
        raise (exc.prefixed(path) if path else exc) from None
    except RecursionError:
        raise ValidationError("nested too deeply", path, "depth") from None


def freeze_object(value: dict[Any, Any], path: str) -> FrozenDict:
    """Return a JSON object deep-frozen; the hot path for tool arguments."""
    try:
        return _freeze_dict(value)
    except ValidationError as exc:
        raise exc.prefixed(path) from None
    except RecursionError:
        raise ValidationError("nested too deeply", path, "depth") from None


# Theory of operation: the walkers build no path strings on the way down; a failure raises with
# the local key and each level adds its own key as the error passes (``prefixed``), so valid
# input pays nothing for paths. Each walker makes one pass: it checks the scalars in place and
# freezes the containers as it meets them, copying the input only when a container is replaced.
# A FrozenDict made here carries ``_nested``: for each key whose value is a container, the
# function that thaws it (``list`` or ``dict`` for a flat one, a walker otherwise), an empty
# tuple when no value is a container. Having it marks the object as already checked, and it
# tells ``thaw_json`` which values to copy and how: a flat object thaws in one ``dict()`` call,
# a nested one with one call per container and no type test.
_SCALARS = frozenset((int, bool, type(None)))
# Python turns an integer of more than 4,300 digits into text only when told to
# (``sys.set_int_max_str_digits``): every encoder would fail on it later, so it is refused here.
_BIG = 10**4300
_NEG_BIG = -_BIG  # computed once: "-_BIG" in a check would build a 1.8 kB integer per call
_TOO_BIG = "an integer of more than 4300 digits is too large (no JSON encoder writes it)"


def _freeze(value: object) -> Any:
    t = type(value)
    if t is str:
        return value if value.isascii() else check_text(value, "")  # type: ignore[attr-defined,arg-type]  # type() is str checked above, faster than isinstance
    if t is int:
        if not _NEG_BIG < value < _BIG:  # type: ignore[operator]  # type() is int checked above
            raise ValidationError(_TOO_BIG, "", "size")
        return value
    if t in _SCALARS:
        return value
    if t is float:
        if value - value != 0.0:  # type: ignore[operator]  # type() is float checked above
            raise ValidationError("must be a finite number", "", "value")
        return value
    if t is dict or t is FrozenDict:
        return _freeze_dict(value)  # type: ignore[arg-type]  # type() is dict checked above
    if t is list or t is tuple:
        return _freeze_list(value)  # type: ignore[arg-type]  # type() is list or tuple checked above
    if isinstance(value, str):
        return _freeze(str(value))
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):
        return _freeze(int(value))
    if isinstance(value, float):
        return _freeze(float(value))
    if isinstance(value, dict):
        return _freeze_dict(dict(value))
    if isinstance(value, (list, tuple)):
        return _freeze_list(tuple(value))
    raise ValidationError(f"expected a JSON value, got {type_name(value)}", "", "type")


def _freeze_list(items: list[Any] | tuple[Any, ...]) -> tuple[Any, ...]:
    frozen = _freeze_seq(items)
    return frozen if type(frozen) is tuple else tuple(frozen)


def _freeze_seq(items: list[Any] | tuple[Any, ...]) -> tuple[Any, ...] | list[Any]:
    """Return ``items`` checked: a tuple when it holds no container, else a list of frozen items."""
    out: list[Any] | None = None
    i = -1
    try:
        for item in items:
            i += 1
            t = type(item)
            if t is str:
                if not item.isascii():
                    check_text(item, "")
                continue
            if t is int:
                if not _NEG_BIG < item < _BIG:
                    raise ValidationError(_TOO_BIG, "", "size")
                continue
            if t in _SCALARS:
                continue
            if t is float:
                if item - item != 0.0:
                    raise ValidationError("must be a finite number", "", "value")
                continue
            if t is dict or t is FrozenDict:
                item = _freeze_dict(item)
            elif t is list or t is tuple:
                item = _freeze_list(item)
            else:
                item = _freeze(item)
            if out is None:
                out = list(items)
            out[i] = item
    except ValidationError as exc:
        raise exc.prefixed(i) from None
    if out is not None:
        return out
    return items if type(items) is tuple else tuple(items)


def _freeze_dict(value: dict[Any, Any]) -> FrozenDict:
    if type(value) is FrozenDict:
        try:
            value._nested  # reading the slot tells whether freeze_json made it
            return value  # made by freeze_json: already checked
        except AttributeError:
            pass
    out: dict[str, Any] | None = None  # a copy of value, made when a container is replaced
    nested: list[tuple[str, Callable[[Any], Any]]]  # with out: the keys holding containers, how to thaw each
    for key, item in value.items():
        if type(key) is not str:
            raise ValidationError(f"object keys must be strings, got {type_name(key)}", "", "type")
        if not key.isascii():
            check_text(key, "")
        t = type(item)
        if t is str:
            if not item.isascii():
                try:
                    check_text(item, "")
                except ValidationError as exc:
                    raise exc.prefixed(key) from None
        elif t is int:
            if not _NEG_BIG < item < _BIG:
                raise ValidationError(_TOO_BIG, key, "size")
        elif t is float:
            if item - item != 0.0:
                raise ValidationError("must be a finite number", key, "value")
        elif t not in _SCALARS:
            try:
                if t is dict or t is FrozenDict:
                    item = _freeze_dict(item)
                    thaw: Callable[[Any], Any] = thaw_checked if item._nested else dict
                elif t is list or t is tuple:
                    item = _freeze_seq(item)
                    if type(item) is tuple:
                        thaw = list
                    else:
                        item = tuple(item)
                        thaw = _thaw_list
                else:
                    item = _freeze(item)
                    thaw = thaw_json
            except ValidationError as exc:
                raise exc.prefixed(key) from None
            if out is None:
                out = dict(value)
                nested = []
            out[key] = item
            if type(item) is tuple or type(item) is FrozenDict:
                nested.append((key, thaw))
    if out is None:
        frozen = _new_frozen(value)
        frozen._nested = ()
    else:
        frozen = _new_frozen(out)
        frozen._nested = tuple(nested)
    return frozen


def thaw_json(value: Any) -> Any:
    """Return a plain, mutable copy of a frozen JSON value (dicts and lists).

    >>> thaw_json(freeze_json({"a": [1, {"b": 2}]}))
    {'a': [1, {'b': 2}]}

    Thawing takes one frame per level, as freezing does; a value too deep for the stack left
    at the call raises ``ValidationError`` with code ``depth``, as freezing it would.
    """
    t = type(value)
    try:
        if t is FrozenDict:
            try:
                nested = value._nested
            except AttributeError:  # built directly, not by freeze_json
                return _thaw_dict(value)
            if not nested:
                return dict(value)
            return thaw_checked(value, nested)
        if t is tuple or t is list:
            return _thaw_list(value)
        if t is dict:
            return _thaw_dict(value)
    except RecursionError:
        raise ValidationError("nested too deeply", "", "depth") from None
    return value


# The walkers copy a container, then replace the containers in the copy. A FrozenDict made by
# freeze_json names them (``_nested``) and holds only such FrozenDicts and tuples, so
# ``thaw_checked`` visits just those keys; anything else is walked value by value.
def thaw_checked(value: FrozenDict, nested: Nested | None = None) -> dict[str, Any]:
    """Thaw a FrozenDict freeze_json made, given its ``_nested`` (non-empty): the hot path of ``to_dict``."""
    out = dict(value)
    if nested is None:  # a nested FrozenDict's thaw: one frame per level, as freezing took
        nested = value._nested
    for key, thaw in nested:
        out[key] = thaw(out[key])
    return out


def _thaw_dict(value: Any) -> dict[str, Any]:
    out = dict(value)
    for key, item in out.items():
        t = type(item)
        if t is FrozenDict or t is dict:
            out[key] = thaw_json(item) if t is FrozenDict else _thaw_dict(item)
        elif t is tuple or t is list:
            out[key] = _thaw_list(item)
    return out


def _thaw_list(value: Any) -> list[Any]:
    out = list(value)
    for i, item in enumerate(out):
        t = type(item)
        if t is FrozenDict:
            try:
                inner = item._nested
            except AttributeError:
                out[i] = _thaw_dict(item)
                continue
            out[i] = thaw_checked(item, inner) if inner else dict(item)
        elif t is tuple or t is list:
            out[i] = _thaw_list(item)
        elif t is dict:
            out[i] = _thaw_dict(item)
    return out


def check_json_object(value: object, path: str) -> FrozenDict:
    """Return the JSON object ``value`` deep-frozen (see ``freeze_json``)."""
    if isinstance(value, dict):
        frozen: FrozenDict = freeze_json(value, path)
        return frozen
    raise missing(path) if value is None else expected("an object", value, path)
