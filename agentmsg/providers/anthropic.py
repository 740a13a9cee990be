"""Anthropic Messages API: the codec.

>>> from . import anthropic
>>> system, wire = anthropic.to_messages([
...     ChatMessage.system("Be brief."),
...     ChatMessage.user("Weather in Paris?"),
...     ChatMessage.assistant("Checking.", [ToolCall("toolu_1", "get_weather", {"city": "Paris"})]),
...     ChatMessage.tool("toolu_1", "18 C"),
...     ChatMessage.user("And tomorrow?"),
... ])
>>> system, wire[2]
('Be brief.', {'role': 'user', 'content': [{'type': 'tool_result', 'tool_use_id': 'toolu_1', 'content': '18 C'}, {'type': 'text', 'text': 'And tomorrow?'}]})
>>> len(anthropic.from_messages(wire, system))
5

The system prompt travels as the top-level ``system`` string (text parts, and the blocks of a
``system`` list read back, are joined with a newline so "You are X." and "Be brief." stay two
sentences). Consecutive tool messages become ``tool_result`` blocks of one user turn, and a user
message that follows them joins that turn. Empty text blocks are never sent (Anthropic rejects
them): empty text parts are left out and a message that would be empty is refused, except an
empty final assistant message (a prefill), which the API allows there only. An assistant
turn's blocks come back as text first, then its ``tool_use`` blocks: interleaved text and
``tool_use`` (``[text, tool_use, text, tool_use]``) lose their relative order, since a
``ChatMessage`` keeps its text and its tool calls apart. ``thinking`` blocks (with their
``signature``) and ``redacted_thinking`` blocks (their ``data`` as the signature, ``redacted``)
become ``ReasoningPart``s of provider ``anthropic`` and go back first in the assistant turn, as
the API requires; other providers' reasoning is not sent. Document and server-tool blocks are
refused (they would have to be sent back, and agentmsg cannot carry them).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from .._checks import (
    check_int, expect_object, expected, get_bool, get_object, get_optional_object, get_optional_str, get_str,
    map_items, missing,
)
from .._frozen import freeze_json, thaw_json
from ..content import ImagePart, ImageSource, ReasoningPart, TextPart, reasoning_part
from ..errors import ValidationError
from ..messages import ChatMessage
from ..roles import MessageRole
from ..streaming import ReasoningAccumulator, ReasoningDelta, ToolCallAccumulator, ToolCallDelta
from ..tools import ToolCall, ToolDefinition, to_wire_name
from ._response import Response
from ._common import (
    ANTHROPIC_NAMES, UNSUPPORTED, assistant_of_texts, canonical_name, check_assistant_role, checked_messages, dump_arguments,
    expect_items, freeze_usage, get_inner_str, image_data, image_from_url, join_texts, make_call, not_a_message,
    payload, provider_error, rename, request_body, wire_name,
)
from ._reasoning import of_provider
from ._stream import Piece, StreamReader, add_call_delta, finish_calls, incomplete
from ._tools import checked_tools, declaration, extras_of, function_from

__all__ = ["to_request", "to_messages", "from_messages", "to_tools", "from_tools", "parse_response", "StreamParser"]

SYSTEM, USER, ASSISTANT, TOOL = MessageRole
PROVIDER = "anthropic"
_CALL_FIELDS = ("id", "name", "input")
_TOOL_FIELDS = {"parameters": "input_schema"}
_TOOL_KEYS = frozenset({"name", "description", "input_schema", "strict"})  # the rest is carried in extras
_TOOL_ID = re.compile(r"[A-Za-z0-9_-]+", re.ASCII)

# -- agentmsg -> Anthropic -------------------------------------------------------------------


def to_request(messages: Iterable[ChatMessage], tools: Iterable[ToolDefinition] = (), **params: Any) -> dict[str, Any]:
    """Return the complete Messages API request body: ``client.messages.create(**body)``.

    >>> to_request([ChatMessage.user("Hi")], model="claude-sonnet-4-5", max_tokens=256)
    {'model': 'claude-sonnet-4-5', 'max_tokens': 256, 'messages': [{'role': 'user', 'content': 'Hi'}]}
    >>> to_request([ChatMessage.system("Be brief."), ChatMessage.user("Hi")], model="m", max_tokens=9)["system"]
    'Be brief.'

    ``model`` and ``max_tokens`` are required (the API refuses a request without them); other
    ``params`` are sent as given, None values left out. ``system`` is there only when the
    conversation has a system message, ``tools`` only when there are some.
    """
    system, wire = to_messages(messages)
    listed = to_tools(tools)
    return request_body({"system": system, "messages": wire, "tools": listed or None}, params, ("model", "max_tokens"))


def to_messages(messages: Iterable[ChatMessage]) -> tuple[str | None, list[dict[str, Any]]]:
    """Return ``(system, messages)`` for the Messages API (``system`` is None without one).

    >>> to_messages([ChatMessage.user("Hi")])
    (None, [{'role': 'user', 'content': 'Hi'}])
    """
    system: str | None = None
    out: list[dict[str, Any]] = []
    results: list[dict[str, Any]] | None = None  # the user turn that tool results are joining
    items = checked_messages(messages)
    for i, message in enumerate(items):
        if type(message) is not ChatMessage:
            raise not_a_message(message, i)
        role = message.role
        try:
            if role is TOOL:
                if results is None:
                    results = []
                    out.append({"role": "user", "content": results})
                results.append(_tool_result_to(message))
                continue
            if role is USER:
                if results is not None:
                    results.extend(_blocks_to(message.content))
                else:
                    out.append({"role": "user", "content": _content_to(message.content)})
            elif role is ASSISTANT:
                if i == len(items) - 1 and not message.tool_calls and not message.text:
                    out.append({"role": "assistant", "content": ""})  # a prefill: empty allowed last only
                else:
                    out.append({"role": "assistant", "content": _assistant_to(message)})
            else:
                if i != 0:
                    raise ValidationError(
                        "Anthropic takes one system prompt, before every other message", "", UNSUPPORTED
                    )
                system = _system_prompt(message)
        except ValidationError as exc:
            raise exc.prefixed(i) from None
        results = None
    return system, out


def _system_prompt(message: ChatMessage) -> str:
    content = message.content
    if type(content) is str:
        return content
    return join_texts(part.text for part in content if type(part) is TextPart)  # type: ignore[union-attr]  # content is a tuple of parts here


def _empty_text() -> ValidationError:
    return ValidationError("Anthropic rejects empty text: send some text or leave the message out", "content", UNSUPPORTED)


def _source_to(source: ImageSource) -> dict[str, Any]:
    data = image_data(source)
    if data is None:
        return {"type": "url", "url": source.url}
    return {"type": "base64", "media_type": data[0], "data": data[1]}


def _block_to(part: Any) -> dict[str, Any] | None:
    """Return a part's block; None for empty text, which Anthropic refuses."""
    if type(part) is TextPart:
        return {"type": "text", "text": part.text} if part.text else None
    return {"type": "image", "source": _source_to(part.source)}


def _blocks_to(content: Any, may_be_empty: bool = False) -> list[dict[str, Any]]:
    """Return text and image blocks; empty text parts are left out, empty content refused."""
    if type(content) is str:
        if not content:
            if may_be_empty:
                return []
            raise _empty_text()
        return [{"type": "text", "text": content}]
    blocks = [block for block in map_items(_block_to, content, "content") if block is not None]
    if not blocks and not may_be_empty:
        raise _empty_text()
    return blocks


def _content_to(content: Any) -> Any:
    if type(content) is str:
        if not content:
            raise _empty_text()
        return content
    return _blocks_to(content)


def _thinking_to(message: ChatMessage) -> list[dict[str, Any]]:
    blocks = []
    for part in of_provider(message, PROVIDER):
        if part.redacted:
            blocks.append({"type": "redacted_thinking", "data": part.signature})
        elif part.signature is not None:  # Anthropic refuses thinking without its signature
            blocks.append({"type": "thinking", "thinking": part.text, "signature": part.signature})
    return blocks


def _assistant_to(message: ChatMessage) -> Any:
    content = message.content
    thinking = _thinking_to(message) if message.reasoning else []
    if not message.tool_calls and not thinking:
        return _content_to(content)
    blocks = thinking + ([] if content is None else _blocks_to(content, may_be_empty=bool(message.tool_calls)))
    for j, call in enumerate(message.tool_calls):
        if _TOOL_ID.fullmatch(call.id) is None:
            raise ValidationError(
                "Anthropic tool ids must be letters, digits, '_' and '-'", f"tool_calls[{j}].id", UNSUPPORTED
            )
        blocks.append({"type": "tool_use", "id": call.id, "name": to_wire_name(call.name), "input": thaw_json(call.arguments)})
    return blocks


def _tool_result_to(message: ChatMessage) -> dict[str, Any]:
    if _TOOL_ID.fullmatch(message.tool_call_id or "") is None:
        raise ValidationError("Anthropic tool ids must be letters, digits, '_' and '-'", "tool_call_id", UNSUPPORTED)
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": message.tool_call_id}
    content = message.content
    if type(content) is str:
        if content:
            block["content"] = content
    else:
        parts = [part for part in content if type(part) is not TextPart or part.text]  # type: ignore[union-attr]  # type() narrows what isinstance would
        if parts:
            block["content"] = _blocks_to(parts)
    if message.is_error:
        block["is_error"] = True
    return block


def to_tools(definitions: Iterable[ToolDefinition]) -> list[dict[str, Any]]:
    """Return the ``tools`` list: ``{"name", "description"?, "input_schema", "strict"?}``.

    >>> to_tools([ToolDefinition("now", "Current time.", {"type": "object"}, strict=False)])
    [{'name': 'now', 'description': 'Current time.', 'input_schema': {'type': 'object'}}]
    """
    return map_items(_tool_to, checked_tools(definitions))


def _tool_to(definition: ToolDefinition) -> dict[str, Any]:
    name = wire_name(definition.name, "name", ANTHROPIC_NAMES)
    return declaration(definition, name, "input_schema", definition.strict or None, definition.extras.get(PROVIDER))


# -- Anthropic -> agentmsg -------------------------------------------------------------------


def from_messages(items: Any, system: Any = None) -> tuple[ChatMessage, ...]:
    """Return the ``ChatMessage``s of a ``messages`` list, the ``system`` prompt first.

    >>> from_messages([{"role": "user", "content": [
    ...     {"type": "tool_result", "tool_use_id": "toolu_1", "content": "18 C", "is_error": True},
    ...     {"type": "text", "text": "Thanks"}]}])
    (ChatMessage(role=tool, content=<4 chars>, tool_call_id='toolu_1', is_error=True), ChatMessage(role=user, content=<6 chars>))

    A user turn splits into its tool messages and a user message, in block order. ``system``
    may be a string or a list of text blocks.
    """
    out: list[ChatMessage] = []
    if system is not None:
        out.append(ChatMessage(SYSTEM, _system_from(system)))
    map_items(lambda item: _message_from(item, out), expect_items(items, "messages"))
    return tuple(out)


def _message_from(item: Any, out: list[ChatMessage]) -> None:
    """Append the message(s) of one item: a user turn may give several."""
    item = expect_object(item)
    role = item.get("role")
    content = item.get("content")
    if role == "user":
        _user_from(content, out)
    elif role == "assistant":
        out.append(_assistant_from(content))
    elif role == "system":
        out.append(ChatMessage(SYSTEM, _system_from(content, "content")))
    elif role is None:
        raise missing("role")
    else:
        raise ValidationError("expected 'user' or 'assistant'", "role", "value")


def _system_from(system: Any, path: str = "system") -> str:
    if type(system) is str:
        return system
    if type(system) is not list:
        raise expected("a string or an array of text blocks", system, path)
    return join_texts(map_items(_system_text, system, path))


def _system_text(block: Any) -> str:
    block = expect_object(block)
    if block.get("type") != "text":
        raise ValidationError("expected a text block", "type", "value")
    return get_str(block, "text")


def _unsupported_block(kind: str) -> ValidationError:
    return ValidationError(f"content block type {kind[:40]!r} is not supported", "type", UNSUPPORTED)


def _image_from(block: dict[str, Any]) -> ImagePart:
    source = get_object(block, "source")
    kind = source.get("type")
    try:
        if kind == "base64":
            return ImagePart(ImageSource.from_base64(get_str(source, "data"), get_str(source, "media_type")))
        if kind == "url":
            return ImagePart(image_from_url(source.get("url"), "url"))
    except ValidationError as exc:
        raise exc.prefixed("source") from None
    raise ValidationError("image sources of this type are not supported (base64 or url)", "source.type", UNSUPPORTED)


def _part_from(block: Any, images: bool) -> TextPart | ImagePart:
    block = expect_object(block)
    kind = get_str(block, "type")
    if kind == "text":
        return TextPart(get_str(block, "text"))
    if kind == "image" and images:
        return _image_from(block)
    raise _unsupported_block(kind)


def _parts_from(content: Any, images: bool, path: str = "content") -> tuple[Any, ...]:
    if type(content) is not list:
        raise expected("a string or an array of blocks", content, path)
    parts = map_items(lambda block: _part_from(block, images), content, path)
    return tuple(parts)


def _user_from(content: Any, out: list[ChatMessage]) -> None:
    if type(content) is str:
        out.append(ChatMessage.user(content))
        return
    if type(content) is not list:
        raise expected("a string or an array of blocks", content, "content")
    group: list[Any] = []
    after_results = False
    for j, block in enumerate(content):
        try:
            block = expect_object(block)
            if get_str(block, "type") == "tool_result":
                if group:
                    out.append(ChatMessage.user(tuple(group)))
                    group = []
                out.append(_tool_result_from(block))
                after_results = True
            else:
                group.append(_part_from(block, images=True))
        except ValidationError as exc:
            raise exc.prefixed(j).prefixed("content") from None
    if group:
        if after_results and len(group) == 1 and type(group[0]) is TextPart:
            out.append(ChatMessage.user(group[0].text))
        else:
            out.append(ChatMessage.user(tuple(group)))
    elif not content:
        raise ValidationError("must hold at least one block", "content", "value")


def _tool_result_from(block: dict[str, Any]) -> ChatMessage:
    call_id = get_str(block, "tool_use_id")
    content = block.get("content")
    if content is None:
        content = ""
    elif type(content) is not str:
        content = _parts_from(content, images=True) or ""
    try:
        return ChatMessage.tool(call_id, content, get_bool(block, "is_error", False))
    except ValidationError as exc:
        raise rename(exc, {"tool_call_id": "tool_use_id"}) from None


def _assistant_from(content: Any) -> ChatMessage:
    """Return the assistant message of a content list: one text block reads as a string."""
    if type(content) is str:
        return ChatMessage.assistant(content)
    if type(content) is not list:
        raise expected("a string or an array of blocks", content, "content")
    items = map_items(_assistant_item, content, "content")
    texts = [item for item in items if type(item) is TextPart]
    thinking = [item for item in items if type(item) is ReasoningPart]
    return assistant_of_texts(texts, tuple(item for item in items if type(item) is ToolCall), thinking)


def _assistant_item(block: Any) -> TextPart | ToolCall | ReasoningPart:
    block = expect_object(block)
    kind = get_str(block, "type")
    if kind == "text":
        return TextPart(get_str(block, "text"))
    if kind == "tool_use":
        return make_call(block.get("id"), block.get("name"), get_optional_object(block, "input"), _CALL_FIELDS)
    if kind == "thinking":
        signature = get_optional_str(block, "signature") or None
        return reasoning_part(get_str(block, "thinking"), signature, False, PROVIDER)
    if kind == "redacted_thinking":
        return reasoning_part("", get_str(block, "data"), True, PROVIDER)
    raise _unsupported_block(kind)


def from_tools(items: Any) -> tuple[ToolDefinition, ...]:
    """Return the ``ToolDefinition``s of a ``tools`` list.

    >>> from_tools([{"name": "now", "input_schema": {"type": "object"}}])
    (ToolDefinition(name='now', description=<3 chars>, strict=False),)

    As for OpenAI: no ``strict`` means false, a missing or blank description becomes the wire
    name, the name maps to its canonical form. ``strict`` is carried as it is (Anthropic's strict
    mode has rules of its own). Fields agentmsg does not model (``defer_loading``,
    ``cache_control``, ``eager_input_streaming``, ``input_examples``, ``allowed_callers``, an
    explicit ``type: custom``) are kept in ``extras["anthropic"]`` and sent again by ``to_tools``.
    Server tools (web search, bash...) are refused.
    """
    return tuple(map_items(_tool_from, expect_items(items, "tools")))


def _tool_from(item: Any) -> ToolDefinition:
    item = expect_object(item)
    kind = item.get("type")
    if kind is not None and kind != "custom":
        raise ValidationError("only custom (client) tools are supported", "type", UNSUPPORTED)
    schema = item.get("input_schema")
    if schema is None:
        raise missing("input_schema")
    try:
        carried = extras_of(item, _TOOL_KEYS)
        return function_from(
            {**item, "parameters": schema}, ANTHROPIC_NAMES, False, {"anthropic": carried} if carried else None
        )
    except ValidationError as exc:
        raise rename(exc, _TOOL_FIELDS) from None


def parse_response(body: Any) -> Response:
    """Return the ``Response`` of a Messages API response body.

    >>> r = parse_response({"type": "message", "role": "assistant", "stop_reason": "end_turn",
    ...     "content": [{"type": "text", "text": "Hi!"}], "usage": {"input_tokens": 5, "output_tokens": 2}})
    >>> r.message.content, r.finish_reason, r.usage["output_tokens"]
    ('Hi!', 'end_turn', 2)

    ``body`` may be the official client's ``Message`` (anything with ``model_dump()``).
    """
    body = expect_object(payload(body))
    if body.get("type") == "error":
        raise provider_error(body.get("error"), "error")
    check_assistant_role(body)
    content = body.get("content")
    if content is None:
        raise missing("content")
    message = _assistant_from(content)
    return Response(message, get_optional_str(body, "stop_reason"), freeze_usage(body.get("usage"), "usage"))


def _block_event(event: dict[str, Any], key: str) -> tuple[int, dict[str, Any], str]:
    """Return the ``index``, the object at ``key`` and its ``type`` of a content block event."""
    index = check_int(event.get("index"), "index", minimum=0)
    body = get_object(event, key)
    try:
        return index, body, get_str(body, "type")
    except ValidationError as exc:
        raise exc.prefixed(key) from None


class StreamParser(StreamReader):
    """Read Messages API stream events one by one; ``finish`` gives the whole ``Response``.

    >>> parser = StreamParser()
    >>> events = [
    ...     {"type": "message_start", "message": {"role": "assistant", "content": [], "usage": {"input_tokens": 9}}},
    ...     {"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "now", "input": {}}},
    ...     {"type": "ping"},
    ...     {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": "{}"}},
    ...     {"type": "content_block_stop", "index": 0},
    ...     {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 3}},
    ...     {"type": "message_stop"}]
    >>> [parser.feed(event) for event in events][1]
    (ToolCallDelta(index=0, id='toolu_1', name='now', arguments_delta=None),)
    >>> r = parser.finish()
    >>> r.message.tool_calls[0].name, r.finish_reason, dict(r.usage)
    ('now', 'tool_use', {'input_tokens': 9, 'output_tokens': 3})

    ``feed`` takes one parsed SSE ``data:`` event and returns its text deltas (strings) and
    ``ToolCallDelta``s (``index`` counts tool calls, not content blocks). ``ping`` and event
    types this version does not know are ignored, as Anthropic's versioning policy asks; an
    ``error`` event raises ``ValidationError``; thinking and signature deltas come as
    ``ReasoningDelta``s (``index`` counts thinking blocks) and join into ``ReasoningPart``s; citations
    are not carried. Usage is merged key by key and a null never overwrites a count (the
    ``message_delta`` of some servers repeats ``"input_tokens": null``).

    ``feed`` also takes the official client's event objects (anything with ``model_dump()``);
    ``feed_raw`` takes the SSE bytes or text as they arrive from the socket, cut anywhere
    (``event:`` lines are read past: the JSON names its type). ``finish`` on a stream that
    never reached ``message_stop`` (nor a ``stop_reason``) raises ``ValidationError`` with
    code ``incomplete``:

    >>> try:
    ...     StreamParser().finish()
    ... except ValidationError as exc:
    ...     print(exc.code, "-", exc)
    incomplete - the stream is incomplete: it ended before message_stop (cut off, or nothing was fed)
    """

    __slots__ = ("_texts", "_blocks", "_calls", "_call_blocks", "_thinking", "_reasoning", "_finish_reason", "_usage", "_stopped")

    def __init__(self) -> None:
        super().__init__()
        self._thinking: dict[int, int] = {}  # content block index -> reasoning part index
        self._reasoning = ReasoningAccumulator()
        self._texts: dict[int, list[str]] = {}  # content block index -> text pieces
        self._blocks: dict[int, int] = {}  # content block index -> tool call index
        self._calls = ToolCallAccumulator()
        self._call_blocks: list[int] = []  # tool call index -> content block index
        self._finish_reason: str | None = None
        self._usage: dict[str, Any] = {}
        self._stopped = False

    def feed(self, event: Any) -> tuple[Piece, ...]:
        """Take one event and return what it carried."""
        event = expect_object(payload(event))
        kind = event.get("type")
        if kind == "content_block_delta":
            return self._delta(event)
        if kind == "content_block_start":
            return self._start(event)
        if kind == "message_delta":
            reason = get_inner_str(event, "delta", "stop_reason")
            if reason is not None:
                self._finish_reason = reason
            self._add_usage(event.get("usage"), "usage")
        elif kind == "message_start":
            message = get_object(event, "message")
            self._add_usage(message.get("usage"), "message.usage")
        elif kind == "message_stop":
            self._stopped = True
        elif kind == "error":
            raise provider_error(event.get("error"), "error")
        else:
            get_str(event, "type")  # raises unless a string: other kinds are ignored
        return ()

    def _add_usage(self, usage: Any, path: str) -> None:
        frozen = freeze_usage(usage, path)
        if frozen:  # a null never overwrites a count (message_delta sends "input_tokens": null)
            for key, value in frozen.items():
                if value is not None or key not in self._usage:
                    self._usage[key] = value

    def _start(self, event: dict[str, Any]) -> tuple[Piece, ...]:
        index, block, kind = _block_event(event, "content_block")
        try:
            if kind == "text":
                text = get_str(block, "text")
                self._texts[index] = [text] if text else []
                return (text,) if text else ()
            if kind == "thinking" or kind == "redacted_thinking":
                part = self._thinking[index] = len(self._thinking)
                redacted = kind == "redacted_thinking"
                self._reasoning.annotate(part, provider=PROVIDER, redacted=redacted)
                first = ReasoningDelta(
                    part,
                    "" if redacted else get_optional_str(block, "thinking") or "",
                    (get_str(block, "data") if redacted else get_optional_str(block, "signature")) or None,
                )
                self._reasoning.add(first)
                return (first,) if first.text or first.signature else ()
            if kind != "tool_use":
                raise _unsupported_block(kind)
            value = get_optional_object(block, "input")
            ordinal = len(self._call_blocks)
            self._blocks[index] = ordinal
            self._call_blocks.append(index)
            # the input streams as input_json_delta; an input given whole here is kept too
            arguments = dump_arguments(freeze_json(value, "input")) if value else None
            name = canonical_name(get_str(block, "name"), "name")
            return (add_call_delta(self._calls, ordinal, get_str(block, "id"), name, arguments, _CALL_FIELDS),)
        except ValidationError as exc:
            raise exc.prefixed("content_block") from None

    def _delta(self, event: dict[str, Any]) -> tuple[Piece, ...]:
        index, delta, kind = _block_event(event, "delta")
        try:
            if kind == "text_delta":
                text = get_str(delta, "text")
                pieces = self._texts.get(index)
                if pieces is None:
                    raise ValidationError("no text block was started at this index", "index", "value")
                if text:
                    pieces.append(text)
                    return (text,)
                return ()
            if kind == "input_json_delta":
                partial = get_str(delta, "partial_json")
                ordinal = self._blocks.get(index)
                if ordinal is None:
                    raise ValidationError("no tool_use block was started at this index", "index", "value")
                if not partial:
                    return ()
                item = ToolCallDelta(ordinal, arguments_delta=partial)
                self._calls.add(item)
                return (item,)
            if kind == "thinking_delta" or kind == "signature_delta":
                part = self._thinking.get(index)
                if part is None:
                    raise ValidationError("no thinking block was started at this index", "index", "value")
                if kind == "thinking_delta":
                    thought = ReasoningDelta(part, get_str(delta, "thinking"))
                else:
                    thought = ReasoningDelta(part, signature=get_str(delta, "signature") or None)
                self._reasoning.add(thought)
                return (thought,) if thought.text or thought.signature else ()
            if kind == "citations_delta":  # citations are not carried (as in parse_response)
                return ()
            raise ValidationError(f"delta type {kind[:40]!r} is not supported", "type", UNSUPPORTED)
        except ValidationError as exc:
            if exc.path == "index":
                raise
            raise exc.prefixed("delta") from None

    def finish(self) -> Response:
        """Return the ``Response`` of the whole stream (its calls joined by the accumulator)."""
        self._drain()
        blocks = self._call_blocks
        calls = finish_calls(self._calls, lambda i: f"content[{blocks[i]}]", _CALL_FIELDS)
        if not self._stopped and self._finish_reason is None:
            raise incomplete("message_stop")
        texts = [TextPart("".join(pieces)) for _, pieces in sorted(self._texts.items())]
        usage = freeze_usage(self._usage, "usage") if self._usage else None
        return Response(assistant_of_texts(texts, calls, self._reasoning.finish()), self._finish_reason, usage)
