"""Private helpers the provider codecs share; each mechanism is written once, here.

Theory of operation: a codec reads a provider payload with the core's typed getters, builds core
objects through their validating factories, and turns every ``ValidationError`` into one whose
path is in the provider's own terms (``choices[0].message.tool_calls[1].function.arguments``):
field-level paths are renamed with ``rename`` where the core object is built, and the outer
keys are added with ``prefixed`` as the error propagates. Nothing is dropped in silence: what a
provider cannot express is converted by a documented rule or refused with ``unsupported``.
"""

from __future__ import annotations

import codecs
import hashlib
import json
import re
from collections.abc import Callable, Iterable
from typing import Any

from .._checks import expect_object, expected, get_bool, get_object, get_optional_str, get_str, map_items, missing, type_name
from .._frozen import FrozenDict, check_json_object, thaw_json
from .._images import decode_base64, sniff, split_data_url
from ..content import IMAGE_MEDIA_TYPES, ImageSource
from .._json import loads_strict
from ..errors import ValidationError
from ..messages import ChatMessage
from ..streaming import ToolCallAccumulator
from ..tools import ToolCall, ToolDefinition, check_strict, to_canonical_name, to_wire_name

__all__ = [
    "ERROR_PREFIX",
    "UNSUPPORTED",
    "relocate",
    "rename",
    "make_call",
    "NameRule",
    "OPENAI_NAMES",
    "ANTHROPIC_NAMES",
    "canonical_name",
    "wire_name",
    "dump_arguments",
    "generated_id",
    "image_from_url",
    "image_url",
    "refuse_file",
    "sniff_media_type",
    "freeze_usage",
    "expect_items",
    "checked_messages",
    "checked_tools",
    "not_a_message",
    "function_from",
    "function_to",
    "function_tools_from",
    "function_tools_to",
    "extras_of",
    "emit_extras",
    "assistant",
    "finish_calls",
    "provider_error",
    "request_body",
    "payload",
    "RawEvents",
    "incomplete",
    "join_texts",
]


def join_texts(texts: Iterable[str]) -> str:
    """Return texts as one string where a provider takes one: the non-empty ones, a newline between.

    >>> join_texts(["You are X.", "", "Be brief."])
    'You are X.\\nBe brief.'

    A newline, not ``""``: "You are X." and "Be brief." must not become "You are X.Be brief."
    """
    return "\n".join(text for text in texts if text)

ERROR_PREFIX = "Error: "
UNSUPPORTED = "unsupported"

_CALL_FIELDS = ("id", "name", "arguments")


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
    return (_CANONICAL if sort_keys else _COMPACT).encode(arguments)


def generated_id(scope: str, index: int, name: str, arguments: FrozenDict) -> str:
    """Return the stable id for a tool call that arrived without one (Ollama).

    ``call_`` and the first 24 hex digits of SHA-256 over the scope (the response's
    ``created_at``, or ``messages[i]`` for history), the call's position in its message, its
    name and its arguments as canonical JSON: the same payload always gives the same ids.
    """
    text = f"{scope}\x1f{index}\x1f{name}\x1f{dump_arguments(arguments, sort_keys=True)}"
    return "call_" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:24]


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


def image_url(source: ImageSource) -> str:
    """Return a URL for the image: its own URL, or a ``data:`` URL for base64 data."""
    if source.type == "url":
        return source.url or ""
    if source.type == "base64":
        return f"data:{source.media_type};base64,{source.data}"
    raise refuse_file()


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


def freeze_usage(usage: object, path: str) -> FrozenDict | None:
    """Return a provider usage object deep-frozen, or None."""
    return None if usage is None else check_json_object(usage, path)


def expect_items(items: object, what: str) -> list[Any] | tuple[Any, ...]:
    """Return ``items`` if it is a JSON array, else raise."""
    if type(items) is list or type(items) is tuple:
        return items
    raise expected(f"an array of {what}", items, "")


def _as_list(items: Any, what: str) -> list[Any]:
    if isinstance(items, (str, bytes, dict)) or not isinstance(items, Iterable):
        raise TypeError(f"expected a list of {what}, got {type_name(items)}")
    return list(items)


def checked_messages(messages: Iterable[ChatMessage]) -> list[ChatMessage]:
    """Return the messages as a list; the caller checks each is a ChatMessage (``not_a_message``)."""
    return _as_list(messages, "ChatMessage")


def not_a_message(message: object, i: int) -> TypeError:
    """Return the error for an item of a message list that is not a ChatMessage (programmer misuse).

    >>> not_a_message({"role": "user"}, 2)
    TypeError('messages[2]: expected a ChatMessage, got object (decode data with from_messages)')
    """
    return TypeError(f"messages[{i}]: expected a ChatMessage, got {type_name(message)} (decode data with from_messages)")


def checked_tools(definitions: Iterable[ToolDefinition]) -> list[ToolDefinition]:
    """Return the definitions as a list, refusing anything that is not a ToolDefinition."""
    items = _as_list(definitions, "ToolDefinition")
    for i, definition in enumerate(items):
        if type(definition) is not ToolDefinition:
            raise TypeError(f"tools[{i}]: expected a ToolDefinition, got {type_name(definition)} (decode data with from_tools)")
    return items


_FUNCTION_KEYS = frozenset({"name", "description", "parameters", "strict"})


def extras_of(item: dict[str, Any], modeled: frozenset[str] | set[str]) -> dict[str, Any]:
    """Return the fields of ``item`` that agentmsg does not model (carried in ``extras``)."""
    return {key: value for key, value in item.items() if key not in modeled}


def emit_extras(out: dict[str, Any], fields: Any, path: str) -> None:
    """Add a provider's carried ``fields`` to ``out``; a field agentmsg writes itself is refused."""
    for key, value in fields.items():
        if key in out:
            raise ValidationError(
                f"extras field {key[:40]!r} clashes with a field agentmsg writes", path, "unexpected"
            )
        out[key] = thaw_json(value)


def function_from(
    fn: dict[str, Any], rule: NameRule | None, strict_rule: bool = True, extras: dict[str, Any] | None = None
) -> ToolDefinition:
    """Build a ToolDefinition from ``{name, description?, parameters?, strict?}``.

    The name is mapped to its canonical form (``to_canonical_name``) after the provider's
    ``rule``. No ``strict`` means false (the providers' default); a missing or blank description
    becomes the tool's wire name, since agentmsg requires one (``to_tools`` leaves such a
    description out); missing ``parameters`` mean an empty object schema.
    """
    wire = get_str(fn, "name")
    name = canonical_name(wire, "name", rule)
    description = get_optional_str(fn, "description")
    if description is None or not description.strip():
        description = wire
    parameters = fn.get("parameters")
    if parameters is None:
        parameters = {"type": "object", "properties": {}}
    strict = get_bool(fn, "strict", False)
    carried = FrozenDict() if extras is None else extras
    definition = ToolDefinition(name, description, parameters, strict and strict_rule, carried)  # type: ignore[arg-type]  # checked by ToolDefinition
    if strict and not strict_rule:
        object.__setattr__(definition, "strict", True)
    return definition


def function_to(
    definition: ToolDefinition, rule: NameRule | None, strict_rule: bool = True, carried: Any = None
) -> dict[str, Any]:
    """Return the OpenAI-shape function object: ``strict`` only when true, description unless it is the name."""
    name = wire_name(definition.name, "name", rule)
    if definition.strict and strict_rule:
        check_strict(definition.parameters)
    fn: dict[str, Any] = {"name": name}
    if definition.description != name:
        fn["description"] = definition.description
    fn["parameters"] = thaw_json(definition.parameters)
    if definition.strict:
        fn["strict"] = True
    if carried:
        emit_extras(fn, carried, "extras")
    return fn


def function_tools_to(
    definitions: Iterable[ToolDefinition], rule: NameRule | None, strict_rule: bool = True, provider: str = ""
) -> list[dict[str, Any]]:
    """Return an OpenAI-shape ``tools`` list (``{"type": "function", "function"}``).

    The ``extras`` of ``provider`` are sent again: its ``function`` entry inside the function
    object, its other fields beside ``type`` and ``function``.
    """
    return map_items(
        lambda definition: _function_tool_to(definition, rule, strict_rule, provider), checked_tools(definitions)
    )


def _function_tool_to(
    definition: ToolDefinition, rule: NameRule | None, strict_rule: bool, provider: str
) -> dict[str, Any]:
    carried = definition.extras.get(provider) or FrozenDict()
    try:
        tool: dict[str, Any] = {"type": "function", "function": function_to(definition, rule, strict_rule, carried.get("function"))}
    except ValidationError as exc:
        raise exc.prefixed("function") from None
    emit_extras(tool, {k: v for k, v in carried.items() if k != "function"}, "extras")
    return tool


_FUNCTION_FIELDS = {
    "name": "function.name",
    "description": "function.description",
    "parameters": "function.parameters",
    "strict": "function.strict",
}


def function_tools_from(
    items: Any, rule: NameRule | None, strict_rule: bool = True, provider: str = ""
) -> tuple[ToolDefinition, ...]:
    """Return the definitions of an OpenAI-shape ``tools`` list (``{"type": "function", "function"}``).

    Fields agentmsg does not model (OpenRouter's ``cache_control``, a function's ``response``)
    are kept in ``extras[provider]``, the function's own under ``function``.
    """
    return tuple(
        map_items(lambda item: _function_tool_from(item, rule, strict_rule, provider), expect_items(items, "tools"))
    )


def _function_tool_from(item: Any, rule: NameRule | None, strict_rule: bool, provider: str) -> ToolDefinition:
    item = expect_object(item)
    kind = item.get("type")
    if kind is not None and kind != "function":
        raise ValidationError("only function tools are supported", "type", UNSUPPORTED)
    fn = get_object(item, "function")
    carried = extras_of(item, {"type", "function"})
    inner = extras_of(fn, _FUNCTION_KEYS)
    if inner:
        carried["function"] = inner
    try:
        return function_from(fn, rule, strict_rule, {provider: carried} if carried else None)
    except ValidationError as exc:
        raise rename(exc, _FUNCTION_FIELDS) from None


def assistant(content: Any, calls: tuple[ToolCall, ...]) -> ChatMessage:
    """Return the assistant message: empty text beside tool calls is None; no text at all is ''."""
    if not calls:
        return ChatMessage.assistant("" if content is None else content)
    return ChatMessage.assistant(None if content == "" else content, calls)


_ACC_PATH = re.compile(r"tool_calls\[(\d+)\]\.(id|name|arguments)")


def finish_calls(acc: ToolCallAccumulator, where: Callable[[int, str], str]) -> tuple[ToolCall, ...]:
    """Return the accumulated calls; errors get ``where(index, field)`` as their path head."""
    try:
        return acc.finish()
    except ValidationError as exc:
        match = _ACC_PATH.match(exc.path)
        if match is None:  # pragma: no cover - the accumulator always names the call
            raise
        raise relocate(exc, where(int(match.group(1)), match.group(2)) + exc.path[match.end() :]) from None


def provider_error(kind: object, path: str) -> ValidationError:
    """Return the error for a payload that reports a provider-side error (code ``provider``)."""
    label = kind if type(kind) is str and len(kind) <= 64 else "error"
    return ValidationError(f"the provider reported an error ({label})", path, "provider")


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


def incomplete(what: str) -> ValidationError:
    """Return the error of ``finish()`` on a stream that never reached its end marker."""
    return ValidationError(
        f"the stream is incomplete: it ended before {what} (cut off, or nothing was fed)", "", "incomplete"
    )


_LINE_BREAK = re.compile(r"\r\n|\r|\n")


class RawEvents:
    r"""Split raw stream bytes or text, as they arrive from the socket, into parsed JSON payloads.

    >>> raw = RawEvents(sse=True)
    >>> raw.feed(b'event: ping\ndata: {"type": "pi')
    []
    >>> raw.feed('ng"}\n\ndata: [DONE]\n\n')
    [{'type': 'ping'}]
    >>> raw.done
    True

    With ``sse=True`` the input is Server-Sent Events: ``data:`` lines (several join with a
    newline) make one event at the blank line that ends it; ``event:``, ``id:``, ``retry:``
    and ``:`` comment lines are read and left (every provider repeats the event name in its
    JSON); ``data: [DONE]`` sets ``done``. Otherwise the input is NDJSON, one JSON document per
    line. Lines may end in ``\n``, ``\r\n`` or ``\r``; a read may end anywhere, even inside a
    UTF-8 character or between ``\r`` and ``\n``. A payload that is not JSON raises
    ``ValidationError`` (code ``json``). ``close()`` returns what a stream without a final
    newline still held.
    """

    __slots__ = ("_sse", "_decoder", "_buffer", "_data", "_cr", "done")

    def __init__(self, sse: bool) -> None:
        self._sse = sse
        self._decoder = codecs.getincrementaldecoder("utf-8")()
        self._buffer = ""
        self._data: list[str] = []
        self._cr = False  # the last read ended with a \r: a \n that follows ends no new line
        self.done = False

    def feed(self, data: bytes | bytearray | str) -> list[Any]:
        """Take the next piece of the stream; return the payloads it completed, in order."""
        if isinstance(data, (bytes, bytearray)):
            try:
                text = self._decoder.decode(bytes(data))
            except UnicodeDecodeError:
                raise ValidationError("the stream is not valid UTF-8", "", "encoding") from None
        elif isinstance(data, str):
            text = data
        else:
            raise TypeError(f"feed_raw() takes bytes or str, not {type(data).__name__}")
        if self._cr and text.startswith("\n"):
            text = text[1:]
        self._cr = text.endswith("\r")
        lines = _LINE_BREAK.split(self._buffer + text)  # not splitlines: U+2028 is no break here
        self._buffer = lines.pop()
        out: list[Any] = []
        for line in lines:
            self._line(line, out)
        return out

    def close(self) -> list[Any]:
        """Return the payloads the stream still held at its end (a last line without newline)."""
        out: list[Any] = []
        rest = self._buffer + self._decoder.decode(b"", final=True)
        self._buffer = ""
        if rest:
            self._line(rest, out)
        if self._sse and self._data:
            self._line("", out)
        return out

    def _line(self, line: str, out: list[Any]) -> None:
        if not self._sse:
            if line.strip():
                out.append(loads_strict(line))
            return
        if not line:
            if self._data:
                text = "\n".join(self._data)
                self._data = []
                if text.strip() == "[DONE]":
                    self.done = True
                else:
                    out.append(loads_strict(text))
            return
        field, _, value = line.partition(":")
        if field == "data":
            self._data.append(value[1:] if value.startswith(" ") else value)
