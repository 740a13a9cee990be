"""Deep-frozen JSON: an immutable, hashable dict and the freeze/thaw walkers."""

from __future__ import annotations

from typing import Any, NoReturn

from .errors import ValidationError

__all__ = ["FrozenDict", "freeze_json", "thaw_json", "check_text"]


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
    """

    __slots__ = ("_hash",)

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = _immutable
    __ior__ = _immutable

    def __hash__(self) -> int:  # type: ignore[override]
        try:
            return self._hash  # type: ignore[attr-defined,no-any-return]
        except AttributeError:
            h = hash(frozenset(self.items()))
            object.__setattr__(self, "_hash", h)
            return h

    def __reduce__(self) -> tuple[object, ...]:
        return (FrozenDict, (dict(self),))

    def __copy__(self) -> FrozenDict:
        return self

    def __deepcopy__(self, memo: object) -> FrozenDict:
        return self

    def __repr__(self) -> str:
        return f"FrozenDict({dict.__repr__(self)})"


_new_frozen = FrozenDict


def check_text(text: str, path: str) -> str:
    """Refuse strings holding lone surrogates (they cannot be encoded as UTF-8)."""
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            raise ValidationError(
                "must not contain lone surrogates (not encodable as UTF-8)", path, "encoding"
            ) from None
    return text


def _type_name(value: object) -> str:
    return type(value).__name__


def freeze_json(value: object, path: str = "") -> Any:
    """Return ``value`` deep-frozen (dicts to FrozenDict, lists to tuples), checking it is JSON.

    >>> freeze_json({"a": [1, {"b": None}]})
    FrozenDict({'a': (1, FrozenDict({'b': None}))})
    >>> freeze_json({"x": float("nan")})
    Traceback (most recent call last):
        ...
    agentmsg.errors.ValidationError: x: expected a finite number, got NaN or infinity
    """
    try:
        return _freeze(value, path)
    except RecursionError:
        raise ValidationError("nested too deeply", path, "depth") from None


def _freeze(value: object, path: str) -> Any:
    t = type(value)
    if t is str:
        return check_text(value, path)  # type: ignore[arg-type]
    if t is int or t is bool or value is None:
        return value
    if t is float:
        if value - value != 0.0:  # type: ignore[operator]
            raise ValidationError("expected a finite number, got NaN or infinity", path, "value")
        return value
    if t is dict or t is FrozenDict:
        out = {}
        for key, item in value.items():  # type: ignore[attr-defined]
            if type(key) is not str:
                raise ValidationError(
                    f"object keys must be strings, got {_type_name(key)}", path, "type"
                )
            check_text(key, path)
            out[key] = _freeze(item, f"{path}.{key}" if path else key)
        return _new_frozen(out)
    if t is list or t is tuple:
        items: list[Any] = value  # type: ignore[assignment]
        return tuple([_freeze(item, f"{path}[{i}]") for i, item in enumerate(items)])
    if isinstance(value, str):
        return check_text(str(value), path)
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return _freeze(float(value), path)
    if isinstance(value, dict):
        return _freeze(dict(value), path)
    raise ValidationError(f"expected a JSON value, got {_type_name(value)}", path, "type")


def thaw_json(value: Any) -> Any:
    """Return a plain, mutable copy of a frozen JSON value (dicts and lists)."""
    t = type(value)
    if t is FrozenDict or t is dict:
        return {k: thaw_json(v) if type(v) in _CONTAINERS else v for k, v in value.items()}
    if t is tuple or t is list:
        return [thaw_json(v) if type(v) in _CONTAINERS else v for v in value]
    return value


_CONTAINERS = frozenset((FrozenDict, dict, tuple, list))
