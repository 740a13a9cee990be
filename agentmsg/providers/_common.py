"""Private helpers the provider codecs share; each mechanism is written once, here.

Theory of operation: a codec reads a provider payload with the core's typed getters, builds core
objects through their validating factories, and turns every ``ValidationError`` into one whose
path is in the provider's own terms (``choices[0].message.tool_calls[1].function.arguments``):
field-level paths are renamed with ``rename`` where the core object is built, and the outer
keys are added with ``prefixed`` as the error propagates. Nothing is dropped in silence: what a
provider cannot express is converted by a documented rule or refused with ``unsupported``.

This module holds what every direction needs (paths, names, calls, images, request bodies);
tool definitions are in ``_tools``, stream parsing in ``_stream``, reasoning in ``_reasoning``.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from typing import Any

from .._checks import expected, get_optional_object, get_optional_str, missing, type_name
from .._frozen import FrozenDict, check_json_object
from .._images import decode_base64, sniff, split_data_url
from ..content import IMAGE_MEDIA_TYPES, ImageSource, ReasoningPart, TextPart
from ..errors import ValidationError
from ..messages import ChatMessage
from ..tools import ToolCall, to_canonical_name, to_wire_name

__all__ = [
    "ERROR_PREFIX",
    "UNSUPPORTED",
    "relocate",
    "rename",
    "provider_error",
    "NameRule",
    "OPENAI_NAMES",
    "ANTHROPIC_NAMES",
    "canonical_name",
    "wire_name",
    "make_call",
    "dump_arguments",
    "generated_id",
    "image_url",
    "image_data",
    "image_from_url",
    "refuse_file",
    "sniff_media_type",
    "as_list",
    "checked_messages",
    "not_a_message",
    "request_body",
    "join_texts",
    "payload",
    "expect_items",
    "get_inner_str",
    "check_assistant_role",
    "assistant",
    "assistant_of_texts",
    "freeze_usage",
]

ERROR_PREFIX = "Error: "  # what a tool message's is_error becomes where a provider has no flag
UNSUPPORTED = "unsupported"  # the code of data a provider cannot carry


# -- errors at the provider's paths ----------------------------------------------------------


def relocate(err: ValidationError, path: str) -> ValidationError:
    """Return a copy of ``err`` (same class, code and extra attributes) at ``path``."""
    new = type(err).__new__(type(err))
    new.__dict__.update(err.__dict__)
    new.path = path
    ValueError.__init__(new, f"{path}: {err.message}" if path else err.message)
    return new


def rename(err: ValidationError, mapping: dict[str, str]) -> ValidationError:
    """Return ``err`` with the first key of its path renamed through ``mapping``."""
    path = err.path
    cut = len(path)
    for sep in ".[":
        k = path.find(sep)
        if k != -1 and k < cut:
            cut = k
    target = mapping.get(path[:cut])
    return err if target is None else relocate(err, target + path[cut:])


def provider_error(
    error: object, path: str, provider: str = "the provider", keys: tuple[str, ...] = ("type",)
) -> ValidationError:
    """Return the error for a payload that reports a provider-side error (code ``provider``).

    >>> provider_error({"type": "overloaded_error", "message": "..."}, "error")
    ValidationError('error: the provider reported an error (overloaded_error)')

    The error names the first of ``keys`` that ``error`` holds (a type, a status, a code),
    never the provider's message; without one it says ``error``.
    """
    kind = None
    if isinstance(error, dict):
        for key in keys:
            kind = error.get(key)
            if kind:
                break
    label = str(kind) if (type(kind) is str or type(kind) is int) and 0 < len(str(kind)) <= 64 else "error"
    return ValidationError(f"{provider} reported an error ({label})", path, "provider")


# -- tool names ------------------------------------------------------------------------------


class NameRule:
    """A provider's own rule for tool names on the wire: a regex and the words that state it."""

    __slots__ = ("regex", "rule")

    def __init__(self, pattern: str, rule: str) -> None:
        self.regex = re.compile(pattern, re.ASCII)
        self.rule = rule

# OpenAI: the ``FunctionDefinition.name`` docstring of the official SDK ("Must be a-z, A-Z, 0-9,
# or contain underscores and dashes, with a maximum length of 64"). Anthropic: the API's own 400
# ("tools.7.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'") and the tool-use
# guide. Ollama states no rule: any name the mapping can carry is sent.
OPENAI_NAMES = NameRule(r"[a-zA-Z0-9_-]{1,64}", "OpenAI function names must match ^[a-zA-Z0-9_-]{1,64}$")
ANTHROPIC_NAMES = NameRule(r"[a-zA-Z0-9_-]{1,64}", "Anthropic tool names must match ^[a-zA-Z0-9_-]{1,64}$")


def canonical_name(name: object, path: str, rule: NameRule | None = None) -> str:
    """Return the canonical name of a wire name (``to_canonical_name``), errors at ``path``.

    With ``rule``, a name the provider itself refuses is refused with the provider's rule
    (code ``pattern``).
    """
    if type(name) is not str:
        raise expected("a string", name, path)
    if rule is not None and rule.regex.fullmatch(name) is None:
        raise ValidationError(rule.rule, path, "pattern")
    try:
        return to_canonical_name(name)
    except ValidationError as exc:
        raise relocate(exc, path) from None


def wire_name(name: str, path: str, rule: NameRule | None = None) -> str:
    """Return the wire name of a canonical name (``to_wire_name``), checked against ``rule``."""
    try:
        wire = to_wire_name(name)
    except ValidationError as exc:
        raise relocate(exc, path) from None
    if rule is not None and rule.regex.fullmatch(wire) is None:
        raise ValidationError(rule.rule, path, "pattern")
    return wire


# -- tool calls ------------------------------------------------------------------------------


_CALL_FIELDS = ("id", "name", "arguments")


def make_call(call_id: object, name: object, arguments: object, fields: tuple[str, str, str]) -> ToolCall:
    """Build a ToolCall from a provider's id, name and arguments (JSON text, object or None).

    ``fields`` names id, name and arguments in the provider's terms, for error paths. Invalid
    JSON raises ``InvalidArgumentsError`` whose ``raw_arguments`` keeps the text.
    """
    if call_id is None or name is None:
        raise missing(fields[0] if call_id is None else fields[1])
    name = canonical_name(name, fields[1])
    try:
        if type(arguments) is str:
            return ToolCall.from_json_arguments(call_id, name, arguments)  # type: ignore[arg-type]  # ToolCall checks the id's type itself
        return ToolCall(call_id, name, FrozenDict() if arguments is None else arguments)  # type: ignore[arg-type]  # ToolCall checks the values' types itself
    except ValidationError as exc:
        raise rename(exc, dict(zip(_CALL_FIELDS, fields))) from None


_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
_CANONICAL = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def dump_arguments(arguments: FrozenDict, sort_keys: bool = False) -> str:
    """Return arguments as compact JSON text (non-ASCII kept), as providers send them."""
    try:
        return (_CANONICAL if sort_keys else _COMPACT).encode(arguments)
    except RecursionError:
        raise ValidationError("nested too deeply", "arguments", "depth") from None


def generated_id(scope: str, index: int, name: str, arguments: FrozenDict) -> str:
    """Return the stable id for a tool call that arrived without one (Ollama, Gemini).

    ``call_`` and the first 24 hex digits of SHA-256 over the scope (the response's
    ``created_at`` or ``responseId``, or ``messages[i]`` for history), the call's position in its message, its
    name and its arguments as canonical JSON: the same payload always gives the same ids.
    """
    text = f"{scope}\x1f{index}\x1f{name}\x1f{dump_arguments(arguments, sort_keys=True)}"
    return "call_" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:24]


# -- images ----------------------------------------------------------------------------------


def image_url(source: ImageSource) -> str:
    """Return a URL for the image: its own URL, or a ``data:`` URL for base64 data."""
    if source.type == "url":
        return source.url or ""
    if source.type == "base64":
        return f"data:{source.media_type};base64,{source.data}"
    raise refuse_file()


def image_data(source: ImageSource) -> tuple[str, str] | None:
    """Return ``(media_type, base64 data)`` of base64 and ``data:`` URL images; None for a web URL.

    >>> image_data(ImageSource.from_url("data:image/png;base64,iVBORw0KGgo="))
    ('image/png', 'iVBORw0KGgo=')
    >>> image_data(ImageSource.from_url("https://example.com/cat.png")) is None
    True

    A file image is refused (``refuse_file``): a provider cannot read local files.
    """
    if source.type == "base64":
        return source.media_type or "", source.data or ""
    if source.type == "url":
        return split_data_url(source.url or "")
    raise refuse_file()


def image_from_url(url: object, path: str) -> ImageSource:
    """Return the source for an image URL: ``data:`` URLs become base64 sources."""
    try:
        if type(url) is str and url.startswith("data:"):
            parts = split_data_url(url)
            if parts is None:
                raise ValidationError("a data: URL must read data:<media type>;base64,<data>", "", "value")
            return ImageSource.from_base64(parts[1], parts[0])
        return ImageSource.from_url(url)  # type: ignore[arg-type]  # from_url checks the url's type itself
    except ValidationError as exc:
        raise relocate(exc, path) from None


def refuse_file() -> ValidationError:
    """Return the error for an image given as a local file path (path ``source``)."""
    return ValidationError(
        "file images cannot be sent: a provider cannot read local files; "
        "load the file and use ImageSource.from_base64",
        "source",
        UNSUPPORTED,
    )


def sniff_media_type(data: str, path: str) -> str:
    """Return the media type of base64 image data from its first bytes (PNG, JPEG, GIF, WebP)."""
    try:
        head = decode_base64(data[:16])
    except ValueError:
        raise ValidationError("must be valid base64", path, "value") from None
    media_type = sniff(head)
    if media_type in IMAGE_MEDIA_TYPES:
        return media_type
    raise ValidationError("image format not recognised: expected PNG, JPEG, GIF or WebP data", path, "value")


# -- agentmsg -> provider: request bodies ----------------------------------------------------


def as_list(items: Any, what: str) -> list[Any]:
    """Return ``items`` as a list; a string, a mapping or a non-iterable is programmer misuse."""
    if isinstance(items, (str, bytes, dict)) or not isinstance(items, Iterable):
        raise TypeError(f"expected a list of {what}, got {type_name(items)}")
    return list(items)


def checked_messages(messages: Iterable[ChatMessage]) -> list[ChatMessage]:
    """Return the messages as a list; the caller checks each is a ChatMessage (``not_a_message``).

    The check is left to the codec's own loop over the messages, where it costs one comparison
    rather than a second pass.
    """
    return as_list(messages, "ChatMessage")


def not_a_message(message: object, i: int) -> TypeError:
    """Return the error for an item of a message list that is not a ChatMessage (programmer misuse).

    >>> not_a_message({"role": "user"}, 2)
    TypeError('messages[2]: expected a ChatMessage, got object (decode data with from_messages)')
    """
    return TypeError(f"messages[{i}]: expected a ChatMessage, got {type_name(message)} (decode data with from_messages)")


def request_body(body: dict[str, Any], params: dict[str, Any], required: tuple[str, ...]) -> dict[str, Any]:
    """Return ``body`` with the caller's ``params`` added (None values left out) in front of it.

    A param that names a key the codec builds (``messages``, ``tools``, ``system``) or a
    ``required`` param that is missing is programmer misuse: ``TypeError`` naming the fix.
    """
    for key in required:
        if params.get(key) is None:
            raise TypeError(f"to_request() needs {key}=...: the API refuses a request without it")
    out: dict[str, Any] = {}
    for key, value in params.items():
        if key in body:
            raise TypeError(f"to_request() builds {key!r} itself: pass it as the messages or tools argument")
        if value is not None:
            out[key] = value
    out.update((key, value) for key, value in body.items() if value is not None)
    return out


def join_texts(texts: Iterable[str]) -> str:
    """Return texts as one string where a provider takes one: the non-empty ones, a newline between.

    >>> join_texts(["You are X.", "", "Be brief."])
    'You are X.\\nBe brief.'

    A newline, not ``""``: "You are X." and "Be brief." must not become "You are X.Be brief."
    """
    return "\n".join(text for text in texts if text)


# -- provider -> agentmsg: reading payloads --------------------------------------------------


def payload(obj: Any) -> Any:
    """Return a provider object as plain JSON data: an SDK object through its ``model_dump()``.

    Duck typing, no import: anything with a callable ``model_dump`` (the official OpenAI,
    Anthropic and Ollama clients' pydantic models) is dumped in JSON mode with the wire's
    field names and only the fields the payload had (not the SDK's defaults); other values
    are returned unchanged for the codec to check.
    """
    if type(obj) is dict:
        return obj
    dump = getattr(obj, "model_dump", None)
    if callable(dump):
        try:
            return dump(mode="json", by_alias=True, exclude_unset=True)
        except TypeError:  # a model_dump without pydantic's keywords
            return dump()
    return obj


def expect_items(items: object, what: str) -> list[Any] | tuple[Any, ...]:
    """Return ``items`` if it is a JSON array, else raise."""
    if type(items) is list or type(items) is tuple:
        return items
    raise expected(f"an array of {what}", items, "")


def get_inner_str(data: dict[str, Any], key: str, inner: str) -> str | None:
    """Return the string at ``data[key][inner]``, or None when either is missing or null.

    >>> get_inner_str({"delta": {"stop_reason": "end_turn"}}, "delta", "stop_reason")
    'end_turn'
    """
    obj = get_optional_object(data, key)
    if obj is None:
        return None
    try:
        return get_optional_str(obj, inner)
    except ValidationError as exc:
        raise exc.prefixed(key) from None


def check_assistant_role(data: dict[str, Any]) -> None:
    """Raise unless the ``role`` of a response's message, when it has one, is ``assistant``."""
    role = data.get("role")
    if role is not None and role != "assistant":
        raise ValidationError("expected 'assistant'", "role", "value")


def assistant(content: Any, calls: tuple[ToolCall, ...], reasoning: Iterable[ReasoningPart] = ()) -> ChatMessage:
    """Return the assistant message: empty text beside tool calls is None; no text at all is ''."""
    if not calls:
        return ChatMessage.assistant("" if content is None else content, (), reasoning)
    return ChatMessage.assistant(None if content == "" else content, calls, reasoning)


def assistant_of_texts(texts: list[TextPart], calls: tuple[ToolCall, ...], reasoning: Iterable[ReasoningPart]) -> ChatMessage:
    """Return the assistant message of a turn's text parts: empty ones left out, one reads as a string.

    A duplicate tool call id is reported at ``content``, where the blocks were.
    """
    content: Any = None
    texts = [part for part in texts if part.text]
    if len(texts) == 1:
        content = texts[0].text
    elif texts:
        content = tuple(texts)
    try:
        return assistant(content, calls, reasoning)
    except ValidationError as exc:  # duplicate tool call ids
        raise relocate(exc, "content") from None


def freeze_usage(usage: object, path: str) -> FrozenDict | None:
    """Return a provider usage object deep-frozen, or None."""
    return None if usage is None else check_json_object(usage, path)
