"""JSON text in and out: compact UTF-8 encoding, strict decoding (no NaN, no duplicate keys)."""

from __future__ import annotations

from collections.abc import Callable

from ._checks import type_name
from .errors import ValidationError

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up): type checkers read it as true
if TYPE_CHECKING:
    from typing import Any, Protocol, TypeVar

    class _HasToDict(Protocol):
        def to_dict(self) -> dict[str, Any]: ...

    class _HasToList(Protocol):
        def to_list(self) -> list[dict[str, Any]]: ...

    T = TypeVar("T")
    T_co = TypeVar("T_co", covariant=True)

    class _FromDict(Protocol[T_co]):
        def from_dict(self, data: Any, /) -> T_co: ...

    class _FromList(Protocol[T_co]):
        def from_list(self, items: Any, /) -> T_co: ...

__all__ = ["to_json", "from_json", "loads_strict"]


def to_json(obj: _HasToDict | _HasToList, /) -> str:
    """Serialize an agentmsg object as compact JSON text (UTF-8 friendly: non-ASCII kept).

    >>> from . import ChatMessage
    >>> to_json(ChatMessage.user("Grüß dich"))
    '{"role":"user","content":"Grüß dich"}'

    A ``ConversationHistory`` is the array of its messages (``to_list``).
    """
    to_list = getattr(obj, "to_list", None)
    return _encode(obj.to_dict() if to_list is None else to_list())  # type: ignore[union-attr]  # no to_list: a to_dict


def _reject_constant(name: str) -> object:
    raise ValidationError(f"{name} is not valid JSON", "", "json")


def _finite_float(text: str) -> float:
    value = float(text)
    if value - value != 0.0:  # inf - inf is nan: a literal such as 1e999 overflowed
        raise ValidationError("number out of range", "", "size")
    return value


def _reject_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise ValidationError(f"duplicate key {key[:40]!r}: JSON objects must not repeat a key", "", "unique")
            seen.add(key)
    return obj


# ``json`` is imported on the first encode or decode, not with the package (import time): each of
# these stubs builds the real bound method, rebinds the module global to it and calls it, so every
# later call goes straight to ``json`` with no extra frame.
def _load_encode(obj: Any) -> str:
    global _encode
    from json import JSONEncoder

    _encode = JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode
    return _encode(obj)


_encode: Callable[[Any], str] = _load_encode


def _load_decode(text: str) -> Any:
    global _decode
    from json import JSONDecoder

    _decode = JSONDecoder(parse_constant=_reject_constant, parse_float=_finite_float).decode
    return _decode(text)


_decode: Callable[[str], Any] = _load_decode


def _load_decode_checked(text: str) -> Any:
    global _decode_checked
    from json import JSONDecoder

    _decode_checked = JSONDecoder(
        parse_constant=_reject_constant, parse_float=_finite_float, object_pairs_hook=_reject_duplicates
    ).decode
    return _decode_checked(text)


_decode_checked: Callable[[str], Any] = _load_decode_checked


def loads_strict(text: str | bytes, *, duplicates: bool = True) -> Any:
    """Parse JSON, refusing NaN/Infinity, numbers that overflow and duplicate keys (one rule everywhere, as the CLI).

    >>> try:
    ...     loads_strict('{"path": "a.txt", "path": "/etc/passwd"}')
    ... except ValidationError as exc:
    ...     print(exc.code, exc)
    unique duplicate key 'path': JSON objects must not repeat a key
    >>> try:
    ...     loads_strict('{"limit": 1e999}')
    ... except ValidationError as exc:
    ...     print(exc.code, exc)
    size number out of range
    >>> try:
    ...     loads_strict(3 * 10**9)  # type: ignore[arg-type]  # not text, on purpose
    ... except ValidationError as exc:
    ...     print(exc.code, exc)
    type expected JSON text (a string or bytes), got number

    Errors are ``ValidationError`` with code ``json`` and the line and column (``unique`` for a
    repeated key, ``size`` for a number that overflows a float, ``type`` for something that is not
    text). Bytes are decoded as UTF-8, a byte-order mark allowed. ``duplicates=False`` keeps the
    last of repeated keys, as ``json.loads`` does (for text agentmsg wrote itself).
    """
    if not isinstance(text, (str, bytes, bytearray, memoryview)):
        raise ValidationError(f"expected JSON text (a string or bytes), got {type_name(text)}", "", "type")
    try:
        if not isinstance(text, str):
            text = bytes(text).decode("utf-8-sig")
        return (_decode_checked if duplicates else _decode)(text)
    except UnicodeDecodeError:
        raise ValidationError("not valid UTF-8", "", "json") from None
    except RecursionError:
        raise ValidationError("nested too deeply", "", "depth") from None
    except ValidationError:
        raise
    except ValueError as exc:
        from json import JSONDecodeError  # loaded by the decoder that raised

        if isinstance(exc, JSONDecodeError):
            raise ValidationError(
                f"not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})", "", "json"
            ) from None
        # an integer beyond the interpreter's digit limit
        raise ValidationError("a number is too large to parse", "", "json") from None


def from_json(text: str | bytes, cls: _FromDict[T] | _FromList[T], /) -> T:
    """Parse JSON text into an agentmsg object of type ``cls``.

    >>> from . import ChatMessage, ConversationHistory
    >>> from_json('{"role": "user", "content": "Hi"}', ChatMessage)
    ChatMessage(role=user, content=<2 chars>)

    A ``ConversationHistory`` is read from the array ``to_json`` writes for it, each message
    and the order checked (``from_list``):

    >>> history = from_json('[{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}]',
    ...                     ConversationHistory)
    >>> len(history), to_json(history)
    (2, '[{"role":"system","content":"Be brief."},{"role":"user","content":"Hi"}]')
    """
    value = loads_strict(text)
    from_list = getattr(cls, "from_list", None)
    return cls.from_dict(value) if from_list is None else from_list(value)  # type: ignore[union-attr]  # no from_list: a from_dict
