"""OpenAI Chat Completions (and vLLM and other OpenAI-compatible servers): the codec.

>>> from . import openai
>>> wire = openai.to_messages([
...     ChatMessage.user("Weather in Paris?"),
...     ChatMessage.assistant(tool_calls=[ToolCall("call_1", "get_weather", {"city": "Paris"})]),
...     ChatMessage.tool("call_1", "18 C"),
... ])
>>> wire[1]
{'role': 'assistant', 'content': None, 'tool_calls': [{'id': 'call_1', 'type': 'function', 'function': {'name': 'get_weather', 'arguments': '{"city":"Paris"}'}}]}
>>> dict(openai.from_messages(wire)[1].tool_calls[0].arguments)
{'city': 'Paris'}

Rules for what Chat Completions cannot express (docs/providers-wire.md has the full table): a
tool message's ``is_error`` becomes an ``Error: `` prefix on its text; images in a tool result
move to a user message right after the run of tool messages (a user message that follows the
run takes them at its start, so two user turns never follow each other); base64 images travel as ``data:``
URLs (and come back as base64); file images are refused. A ``refusal`` becomes the message
text and ``Response.refusal``. vLLM's variants (no ``type`` on a tool call, ``""`` content
beside tool calls, no ``arguments`` in a call's first chunk) are accepted. vLLM's (and
DeepSeek's) ``reasoning_content`` (or ``reasoning``) on an assistant message or a stream delta
becomes a plain ``ReasoningPart`` and goes back as ``reasoning_content``; reasoning with a
provider (Anthropic, Responses, Gemini) is not sent.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .._checks import (
    check_int, expect_object, expected, get_list, get_object, get_optional_object, get_optional_str, get_str,
    map_items, missing,
)
from ..content import ImagePart, TextPart, reasoning_part
from ..errors import ValidationError
from ..messages import ChatMessage
from ..roles import MessageRole
from ..streaming import ReasoningDelta, ToolCallAccumulator, ToolCallDelta
from ..tools import ToolCall, ToolDefinition, to_wire_name
from ._response import Response
from ._common import (
    ERROR_PREFIX, OPENAI_NAMES, UNSUPPORTED, assistant, canonical_name, check_assistant_role, checked_messages,
    dump_arguments, expect_items, freeze_usage, image_from_url, image_url, make_call, not_a_message, payload,
    provider_error, relocate, request_body,
)
from ._reasoning import plain_parts, plain_text
from ._stream import Piece, StreamReader, add_call_delta, finish_calls, incomplete
from ._tools import function_tools_from, function_tools_to

__all__ = ["to_request", "to_messages", "from_messages", "to_tools", "from_tools", "parse_response", "StreamParser"]

SYSTEM, USER, ASSISTANT, TOOL = MessageRole
_CALL_FIELDS = ("id", "function.name", "function.arguments")

# -- agentmsg -> OpenAI ----------------------------------------------------------------------


def to_request(
    messages: Iterable[ChatMessage],
    tools: Iterable[ToolDefinition] = (),
    *,
    system_role: str = "system",
    **params: Any,
) -> dict[str, Any]:
    """Return the complete Chat Completions request body: ``client.chat.completions.create(**body)``.

    >>> to_request([ChatMessage.system("Be brief."), ChatMessage.user("Hi")], model="gpt-4o", temperature=None)
    {'model': 'gpt-4o', 'messages': [{'role': 'system', 'content': 'Be brief.'}, {'role': 'user', 'content': 'Hi'}]}

    ``params`` (``model`` is required; ``temperature``, ``tool_choice``, ``stream``...) are
    sent as given, None values left out; ``tools`` is left out when there are none (the API
    refuses an empty list). ``system_role="developer"`` sends system messages under the role
    newer models name their instructions with.
    """
    wire = to_messages(messages, system_role=system_role)
    listed = to_tools(tools)
    return request_body({"messages": wire, "tools": listed or None}, params, ("model",))


def to_messages(messages: Iterable[ChatMessage], *, system_role: str = "system") -> list[dict[str, Any]]:
    """Return the Chat Completions ``messages`` for a conversation.

    >>> to_messages([ChatMessage.system("Be brief."), ChatMessage.user("Hi")])
    [{'role': 'system', 'content': 'Be brief.'}, {'role': 'user', 'content': 'Hi'}]
    >>> to_messages([ChatMessage.system("Be brief.")], system_role="developer")
    [{'role': 'developer', 'content': 'Be brief.'}]

    ``system_role`` is ``"system"`` or ``"developer"`` (the name newer models use; both read
    back as a system message).
    """
    if system_role != "system" and system_role != "developer":
        raise TypeError("system_role must be 'system' or 'developer'")
    out: list[dict[str, Any]] = []
    held: list[dict[str, Any]] = []  # images taken out of tool results, sent after the run
    for i, message in enumerate(checked_messages(messages)):
        if type(message) is not ChatMessage:
            raise not_a_message(message, i)
        role = message.role
        if held and role is not TOOL:
            if role is USER:  # one user turn, not two in a row: the held images, then the message
                try:
                    out.append({"role": "user", "content": held + _parts_of(message.content)})
                except ValidationError as exc:
                    raise exc.prefixed(i) from None
                held = []
                continue
            out.append({"role": "user", "content": held})
            held = []
        try:
            if role is TOOL:
                out.append(_tool_to(message, held))
            elif role is ASSISTANT:
                out.append(_assistant_to(message))
            else:
                out.append({"role": "user" if role is USER else system_role, "content": _content_to(message.content)})
        except ValidationError as exc:
            raise exc.prefixed(i) from None
    if held:
        out.append({"role": "user", "content": held})
    return out


def _part_to(part: Any, j: int) -> dict[str, Any]:
    if type(part) is TextPart:
        return {"type": "text", "text": part.text}
    try:
        return {"type": "image_url", "image_url": {"url": image_url(part.source)}}
    except ValidationError as exc:
        raise exc.prefixed(j).prefixed("content") from None


def _parts_of(content: Any) -> list[dict[str, Any]]:
    if type(content) is str:
        return [{"type": "text", "text": content}] if content else []
    return [_part_to(part, j) for j, part in enumerate(content)]


def _content_to(content: Any) -> Any:
    if type(content) is str or content is None:
        return content
    return [_part_to(part, j) for j, part in enumerate(content)]


def _assistant_to(message: ChatMessage) -> dict[str, Any]:
    out: dict[str, Any] = {"role": "assistant", "content": _content_to(message.content)}
    if message.tool_calls:
        out["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": to_wire_name(call.name), "arguments": dump_arguments(call.arguments)},
            }
            for call in message.tool_calls
        ]
    reasoning = plain_text(message)
    if reasoning is not None:
        out["reasoning_content"] = reasoning
    return out


def _tool_to(message: ChatMessage, held: list[dict[str, Any]]) -> dict[str, Any]:
    content = message.content
    wire: Any
    if type(content) is str:
        wire = ERROR_PREFIX + content if message.is_error else content
    else:
        wire = [{"type": "text", "text": part.text} for part in content if type(part) is TextPart]  # type: ignore[union-attr]  # type() narrows what isinstance would
        images = [(j, part) for j, part in enumerate(content) if type(part) is ImagePart]  # type: ignore[arg-type]  # content is a tuple here: str was handled above
        if images:
            held.append({"type": "text", "text": f"Images returned by tool call {message.tool_call_id}:"})
            held.extend(_part_to(part, j) for j, part in images)
        if message.is_error:
            if wire:
                wire[0] = {"type": "text", "text": ERROR_PREFIX + wire[0]["text"]}
            else:
                wire = ERROR_PREFIX.rstrip()
        elif not wire:
            wire = ""
    return {"role": "tool", "tool_call_id": message.tool_call_id, "content": wire}


def to_tools(definitions: Iterable[ToolDefinition]) -> list[dict[str, Any]]:
    """Return the ``tools`` list: ``{"type": "function", "function": {...}}`` per definition.

    >>> to_tools([ToolDefinition("now", "Current time.", {"type": "object", "properties": {}}, strict=False)])
    [{'type': 'function', 'function': {'name': 'now', 'description': 'Current time.', 'parameters': {'type': 'object', 'properties': {}}}}]

    ``strict`` is sent only when true (absent means false); a description equal to the name
    is left out (that is how a tool without description comes back, see ``from_tools``).
    """
    return function_tools_to(definitions, OPENAI_NAMES, provider="openai")


# -- OpenAI -> agentmsg ----------------------------------------------------------------------


def from_messages(items: Any) -> tuple[ChatMessage, ...]:
    """Return the ``ChatMessage``s of a Chat Completions ``messages`` list.

    >>> from_messages([{"role": "developer", "content": "Be brief."}, {"role": "user", "content": "Hi"}])
    (ChatMessage(role=system, content=<9 chars>), ChatMessage(role=user, content=<2 chars>))

    ``developer`` reads as system. Fields with no agentmsg counterpart (``name``, image
    ``detail``, ``annotations``) are not carried; ``function`` messages, audio and file parts
    are refused.
    """
    out = map_items(_message_from, expect_items(items, "messages"))
    return tuple(out)


def _message_from(item: Any) -> ChatMessage:
    item = expect_object(item)
    role = item.get("role")
    if role == "user":
        return ChatMessage.user(_content_from(item, images=True))
    if role == "assistant":
        return _assistant_from(item)[0]
    if role == "tool":
        call_id = get_str(item, "tool_call_id")
        return ChatMessage.tool(call_id, _content_from(item, images=False))
    if role == "system" or role == "developer":
        return ChatMessage(SYSTEM, _content_from(item, images=False))
    get_str(item, "role")  # raises unless a string
    raise ValidationError(
        "expected 'system', 'developer', 'user', 'assistant' or 'tool' (function messages are not supported)",
        "role",
        UNSUPPORTED if role == "function" else "value",
    )


def _assistant_part_from(part: Any) -> Any:
    part = expect_object(part)
    if part.get("type") == "refusal":
        return TextPart(get_str(part, "refusal"))
    return _part_from(part, images=False)


def _content_from(item: dict[str, Any], images: bool) -> Any:
    content = item.get("content")
    if type(content) is str:
        return content
    if content is None:
        raise missing("content")
    if type(content) is not list:
        raise expected("a string or an array of parts", content, "content")
    parts = map_items(lambda part: _part_from(part, images), content, "content")
    if not parts:
        raise ValidationError("must hold at least one part", "content", "value")
    return tuple(parts)


def _part_from(part: Any, images: bool) -> TextPart | ImagePart:
    part = expect_object(part)
    kind = part.get("type")
    if kind == "text":
        return TextPart(get_str(part, "text"))
    if kind == "image_url" and images:
        image = part.get("image_url")
        if type(image) is str:  # an older, still accepted shape
            return ImagePart(image_from_url(image, "image_url"))
        if image is None:
            raise missing("image_url")
        image = expect_object(image, "image_url")
        return ImagePart(image_from_url(image.get("url"), "image_url.url"))
    kind = get_str(part, "type")
    raise ValidationError(f"content part type {kind[:40]!r} is not supported here", "type", UNSUPPORTED)


def _assistant_from(item: dict[str, Any]) -> tuple[ChatMessage, str | None]:
    """Return the assistant message and its refusal text (or None)."""
    content = item.get("content")
    text: Any
    if content is None or type(content) is str:
        text = content
    elif type(content) is list:
        text = tuple(map_items(_assistant_part_from, content, "content")) or None
    else:
        raise expected("a string, an array of parts or null", content, "content")
    refusal = get_optional_str(item, "refusal") or None
    if refusal is not None:
        if not text:
            text = refusal
        elif type(text) is str:
            text = (TextPart(text), TextPart(refusal))
        else:
            text = (*text, TextPart(refusal))
    for key in ("function_call", "audio"):
        if item.get(key) is not None:
            raise ValidationError(f"{key} is not supported (use tool calls / text)", key, UNSUPPORTED)
    calls = map_items(_call_from, get_list(item, "tool_calls"), "tool_calls")
    try:
        return assistant(text, tuple(calls), plain_parts(item, "reasoning_content", "reasoning")), refusal
    except ValidationError as exc:  # duplicate call ids: the paths coincide with OpenAI's
        if exc.path.startswith("tool_calls"):
            raise
        raise relocate(exc, "content") from None


def _call_from(call: Any) -> ToolCall:
    call = expect_object(call)
    kind = call.get("type")
    if kind is not None and kind != "function":
        raise ValidationError("only function tool calls are supported", "type", UNSUPPORTED)
    fn = get_object(call, "function")
    return make_call(call.get("id"), fn.get("name"), fn.get("arguments"), _CALL_FIELDS)


def from_tools(items: Any) -> tuple[ToolDefinition, ...]:
    """Return the ``ToolDefinition``s of a ``tools`` list.

    >>> from_tools([{"type": "function", "function": {"name": "now", "parameters": {"type": "object"}}}])
    (ToolDefinition(name='now', description=<3 chars>, strict=False),)

    A missing ``strict`` means false, and a strict tool must keep OpenAI's strict-mode rule; a
    missing or blank description becomes the tool's wire name (agentmsg requires one); missing
    ``parameters`` mean an empty object schema. Fields agentmsg does not model (OpenRouter's
    ``cache_control``) are kept in ``extras["openai"]`` and sent again by ``to_tools``.
    """
    return function_tools_from(items, OPENAI_NAMES, provider="openai")


def parse_response(body: Any) -> Response:
    """Return the ``Response`` of a ``chat.completion`` body.

    >>> r = parse_response({"choices": [{"index": 0, "finish_reason": "stop",
    ...     "message": {"role": "assistant", "content": "Hi!", "refusal": None}}],
    ...     "usage": {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7}})
    >>> r.message.content, r.finish_reason, r.usage["total_tokens"]
    ('Hi!', 'stop', 7)

    A response with several choices (``n`` > 1) is refused. ``body`` may be the official
    client's ``ChatCompletion`` (anything with ``model_dump()``).
    """
    body = expect_object(payload(body))
    if body.get("error") is not None and "choices" not in body:
        raise provider_error(body["error"], "error")
    choices = get_list(body, "choices")
    if not choices:
        raise ValidationError("must hold one choice", "choices", "missing")
    if len(choices) > 1:
        raise ValidationError("several choices (n > 1) are not supported: request one", "choices", UNSUPPORTED)
    try:
        choice = expect_object(choices[0])
        message = get_object(choice, "message")
        try:
            check_assistant_role(message)
            result, refusal = _assistant_from(message)
        except ValidationError as exc:
            raise exc.prefixed("message") from None
        finish_reason = get_optional_str(choice, "finish_reason")
    except ValidationError as exc:
        raise exc.prefixed(0).prefixed("choices") from None
    return Response(result, finish_reason, freeze_usage(body.get("usage"), "usage"), refusal)


class StreamParser(StreamReader):
    """Read ``chat.completion.chunk`` objects one by one; ``finish`` gives the whole ``Response``.

    >>> parser = StreamParser()
    >>> parser.feed({"choices": [{"index": 0, "delta": {"role": "assistant", "content": "Hel"}}]})
    ('Hel',)
    >>> parser.feed({"choices": [{"index": 0, "delta": {"content": "lo"}, "finish_reason": "stop"}]})
    ('lo',)
    >>> parser.feed({"choices": [], "usage": {"total_tokens": 12}})
    ()
    >>> r = parser.finish()
    >>> r.message.content, r.finish_reason, r.usage["total_tokens"]
    ('Hello', 'stop', 12)

    ``feed`` returns text deltas as strings and ``ToolCallDelta``s in order (a refusal streams
    as text too); tool calls may interleave by ``index``, their id and name arriving only in
    their first chunk. The final usage chunk has no choices. Chunks that are not dicts or
    break the format raise ``ValidationError``. ``feed`` also takes the official client's
    ``ChatCompletionChunk`` (anything with ``model_dump()``); ``feed_raw`` takes the SSE bytes
    or text as they arrive from the socket, cut anywhere:

    >>> parser = StreamParser()
    >>> parser.feed_raw(b'data: {"choices": [{"index": 0, "delta": {"content": "Hi"}, "finish_')
    ()
    >>> parser.feed_raw(b'reason": "stop"}]}\\n\\ndata: [DONE]\\n\\n')
    ('Hi',)
    >>> parser.finish().message.content
    'Hi'

    ``finish`` on a stream that never said it was done (no ``finish_reason``, no
    ``data: [DONE]``: cut off, or nothing fed) raises ``ValidationError`` with code
    ``incomplete`` rather than return a message that only looks whole:

    >>> try:
    ...     StreamParser().finish()
    ... except ValidationError as exc:
    ...     print(exc.code, "-", exc)
    incomplete - the stream is incomplete: it ended before a finish_reason or data: [DONE] (cut off, or nothing was fed)
    """

    __slots__ = ("_texts", "_refusal", "_reasoning", "_calls", "_finish_reason", "_usage")

    def __init__(self) -> None:
        super().__init__()
        self._texts: list[str] = []
        self._reasoning: list[str] = []
        self._refusal: list[str] = []
        self._calls = ToolCallAccumulator()
        self._finish_reason: str | None = None
        self._usage: Any = None

    def feed(self, chunk: Any) -> tuple[Piece, ...]:
        """Take one chunk (a parsed ``data:`` payload) and return what it carried."""
        chunk = expect_object(payload(chunk))
        if chunk.get("error") is not None:
            raise provider_error(chunk["error"], "error")
        usage = chunk.get("usage")
        if usage is not None:
            self._usage = freeze_usage(usage, "usage")
        choices = chunk.get("choices")
        if not choices:
            if choices is not None and type(choices) is not list:
                raise expected("an array", choices, "choices")
            return ()
        if type(choices) is not list:
            raise expected("an array", choices, "choices")
        out: list[Piece] = []
        map_items(lambda choice: self._choice(choice, out), choices, "choices")
        return tuple(out)

    def _choice(self, choice: Any, out: list[Piece]) -> None:
        choice = expect_object(choice)
        index = choice.get("index", 0)
        if index != 0 or type(index) is not int:
            if type(index) is not int:
                raise expected("an integer", index, "index")
            raise ValidationError("several choices (n > 1) are not supported: request one", "index", UNSUPPORTED)
        delta = get_optional_object(choice, "delta")
        if delta is not None:
            try:
                self._delta(delta, out)
            except ValidationError as exc:
                raise exc.prefixed("delta") from None
        reason = get_optional_str(choice, "finish_reason")
        if reason is not None:
            self._finish_reason = reason

    def _delta(self, delta: dict[str, Any], out: list[Piece]) -> None:
        for key in ("reasoning_content", "reasoning"):  # vLLM's names, old and new
            reasoning = get_optional_str(delta, key)
            if reasoning:
                self._reasoning.append(reasoning)
                out.append(ReasoningDelta(0, reasoning))
                break
        content = get_optional_str(delta, "content")
        if content:
            self._texts.append(content)
            out.append(content)
        refusal = get_optional_str(delta, "refusal")
        if refusal:
            self._refusal.append(refusal)
            out.append(refusal)
        if delta.get("function_call") is not None:
            raise ValidationError("function_call is not supported (use tool calls)", "function_call", UNSUPPORTED)
        calls = delta.get("tool_calls")
        if calls:
            if type(calls) is not list:
                raise expected("an array", calls, "tool_calls")
            out.extend(map_items(self._call_delta, calls, "tool_calls"))

    def _call_delta(self, call: Any) -> ToolCallDelta:
        call = expect_object(call)
        index = check_int(call.get("index"), "index", minimum=0)
        kind = call.get("type")
        if kind is not None and kind != "function":
            raise ValidationError("only function tool calls are supported", "type", UNSUPPORTED)
        name = arguments = None
        fn = get_optional_object(call, "function")
        if fn is not None:
            try:
                name = get_optional_str(fn, "name") or None
                if name is not None:
                    name = canonical_name(name, "name")
                arguments = get_optional_str(fn, "arguments") or None
            except ValidationError as exc:
                raise exc.prefixed("function") from None
        return add_call_delta(self._calls, index, get_optional_str(call, "id") or None, name, arguments, _CALL_FIELDS)

    def finish(self) -> Response:
        """Return the ``Response`` of the whole stream (its calls joined by the accumulator)."""
        done = self._drain()
        calls = finish_calls(self._calls, lambda i: f"tool_calls[{i}]", _CALL_FIELDS)
        if self._finish_reason is None and not done:
            raise incomplete("a finish_reason or data: [DONE]")
        text = "".join(self._texts)
        refusal = "".join(self._refusal) or None
        content: Any = text or None
        if refusal is not None:
            content = refusal if not text else (TextPart(text), TextPart(refusal))
        reasoning = (reasoning_part("".join(self._reasoning)),) if self._reasoning else ()
        return Response(assistant(content, calls, reasoning), self._finish_reason, self._usage, refusal)
