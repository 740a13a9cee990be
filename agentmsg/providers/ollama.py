"""Ollama ``/api/chat``: the codec.

>>> from . import ollama
>>> wire = ollama.to_messages([
...     ChatMessage.user("Weather in Paris?"),
...     ChatMessage.assistant(tool_calls=[ToolCall("call_1", "get_weather", {"city": "Paris"})]),
...     ChatMessage.tool("call_1", "18 C"),
... ])
>>> wire[2]
{'role': 'tool', 'content': '18 C', 'tool_name': 'get_weather', 'tool_call_id': 'call_1'}
>>> ollama.from_messages([{"role": "assistant", "content": "",
...     "tool_calls": [{"function": {"name": "get_weather", "arguments": {"city": "Paris"}}}]}])[0].tool_calls[0].id
'call_0f2223740f2a3f6795b8b237'

A message's content is one string and its images a list of bare base64 strings: text parts are
joined with a newline, image URLs are refused (Ollama cannot fetch them), ``data:`` URLs are sent as base64.
Tool calls carry arguments as an object; a call without ``id`` gets a stable generated one
(see ``_common.generated_id``), an ``id`` present is kept, and agentmsg ids are sent along
(``id`` on calls, ``tool_call_id`` on tool messages: recent servers read them, older ones
ignore them) beside the ``tool_name`` every version matches on. The raw HTTP body keeps these
ids; the official ``ollama`` Python client drops them (its ``Message`` has no ``id`` nor
``tool_call_id``), so results of same-named calls are sent in the calls' order and read back
by position among same-named calls: they never swap. ``is_error`` becomes an ``Error: ``
prefix on the text.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .._checks import (
    expect_object, expected, get_list, get_object, get_optional_object, get_optional_str, map_items, missing,
)
from .._images import split_data_url
from .._frozen import FrozenDict, thaw_json
from ..content import ImagePart, ImageSource, TextPart, reasoning_part
from ..errors import ValidationError
from ..messages import ChatMessage
from ..roles import ROLE_BY_NAME, ROLE_NAMES, MessageRole
from ..streaming import ReasoningDelta, ToolCallAccumulator, ToolCallDelta
from ..tools import ToolCall, ToolDefinition, to_wire_name
from ._response import Response
from ._common import (
    ERROR_PREFIX, UNSUPPORTED, assistant, check_assistant_role, checked_messages, dump_arguments, expect_items,
    freeze_usage, generated_id, image_data, join_texts, make_call, not_a_message, payload, provider_error, relocate,
    request_body, sniff_media_type,
)
from ._reasoning import plain_parts, plain_text
from ._stream import Piece, StreamReader, finish_calls, incomplete
from ._tools import function_tools_from, function_tools_to

__all__ = ["to_request", "to_messages", "from_messages", "to_tools", "from_tools", "parse_response", "StreamParser"]

SYSTEM, USER, ASSISTANT, TOOL = MessageRole
_CALL_FIELDS = ("id", "function.name", "function.arguments")
_METRICS = ("total_duration", "load_duration", "prompt_eval_count", "prompt_eval_duration", "eval_count", "eval_duration")

# -- agentmsg -> Ollama ----------------------------------------------------------------------


def to_request(messages: Iterable[ChatMessage], tools: Iterable[ToolDefinition] = (), **params: Any) -> dict[str, Any]:
    """Return the complete ``POST /api/chat`` request body.

    >>> to_request([ChatMessage.user("Hi")], model="llama3.2", options={"temperature": 0})
    {'model': 'llama3.2', 'options': {'temperature': 0}, 'stream': False, 'messages': [{'role': 'user', 'content': 'Hi'}]}

    ``model`` is required; other ``params`` (``options``, ``format``, ``keep_alive``,
    ``think``...) are sent as given, None values left out. Ollama streams unless told not
    to, so ``stream`` is sent as false unless you pass ``stream=True`` (then read the NDJSON
    lines with ``StreamParser``). ``tools`` is there only when there are some.
    """
    params = {**params, "stream": bool(params.get("stream", False))}
    listed = to_tools(tools)
    return request_body({"messages": to_messages(messages), "tools": listed or None}, params, ("model",))


def to_messages(messages: Iterable[ChatMessage]) -> list[dict[str, Any]]:
    """Return the ``/api/chat`` ``messages`` for a conversation.

    >>> to_messages([ChatMessage.user([TextPart("What is this?"),
    ...     ImagePart(ImageSource.from_base64("iVBORw0KGgo=", "image/png"))])])
    [{'role': 'user', 'content': 'What is this?', 'images': ['iVBORw0KGgo=']}]
    """
    names: dict[str, str] = {}  # tool call id -> tool name, for the tool messages that answer
    order: dict[str, int] = {}  # tool call id -> its position in its assistant message

    def encode(pair: tuple[int, Any]) -> dict[str, Any]:
        i, message = pair
        if type(message) is not ChatMessage:
            raise not_a_message(message, i)
        role = message.role
        content = message.content
        if type(content) is str:
            item: dict[str, Any] = {"role": ROLE_NAMES[role], "content": content}
        elif content is None:
            item = {"role": "assistant", "content": ""}
        else:
            item = _parts_to(ROLE_NAMES[role], content)  # type: ignore[arg-type]  # content is a tuple here: str and None were handled above
        if role is ASSISTANT:
            thinking = plain_text(message)
            if thinking is not None:
                item["thinking"] = thinking
            if message.tool_calls:
                calls = []
                for j, call in enumerate(message.tool_calls):
                    names[call.id] = to_wire_name(call.name)
                    order[call.id] = j
                    calls.append({"id": call.id, "function": {"name": names[call.id], "arguments": thaw_json(call.arguments)}})
                item["tool_calls"] = calls
        elif role is TOOL:
            if message.is_error:
                item["content"] = ERROR_PREFIX + item["content"]
            name = names.get(message.tool_call_id or "")
            if name is None:
                raise ValidationError(
                    "Ollama matches a tool result by tool name: it must answer a tool call of an earlier message",
                    "tool_call_id",
                    UNSUPPORTED,
                )
            item["tool_name"] = name
            item["tool_call_id"] = message.tool_call_id
        return item

    out = map_items(encode, enumerate(checked_messages(messages)))
    _in_call_order(out, order)
    return out


def _image_of(part: Any) -> str | None:
    return None if type(part) is TextPart else _base64_of(part.source)


def _in_call_order(out: list[dict[str, Any]], order: dict[str, int]) -> None:
    """Put the results of same-named calls in each run of tool messages in the calls' order.

    A transport that drops ids (the ``ollama`` client) leaves only ``tool_name`` and position
    to pair a result with its call: sent in call order, the k-th result named X answers the
    k-th call named X, and results never swap. Results of differently named calls keep their
    places.
    """
    start = 0
    while start < len(out):
        if out[start]["role"] != "tool":
            start += 1
            continue
        end = start
        while end < len(out) and out[end]["role"] == "tool":
            end += 1
        slots: dict[str, list[int]] = {}
        for k in range(start, end):
            slots.setdefault(out[k]["tool_name"], []).append(k)
        for places in slots.values():
            items = sorted((out[k] for k in places), key=lambda item: order.get(item["tool_call_id"], 0))
            for k, item in zip(places, items):
                out[k] = item
        start = end


def _parts_to(role: str, content: tuple[Any, ...]) -> dict[str, Any]:
    """Return ``{"role", "content", "images"?}``: the text parts joined, the images as base64."""
    texts = [part.text for part in content if type(part) is TextPart]
    images = [data for data in map_items(_image_of, content, "content") if data is not None]
    item: dict[str, Any] = {"role": role, "content": join_texts(texts)}
    if images:
        item["images"] = images
    return item


def _base64_of(source: ImageSource) -> str:
    data = image_data(source)
    if data is None:
        raise ValidationError(
            "Ollama cannot fetch image URLs: download the image and use ImageSource.from_base64",
            "source",
            UNSUPPORTED,
        )
    return data[1]


def to_tools(definitions: Iterable[ToolDefinition]) -> list[dict[str, Any]]:
    """Return the ``tools`` list, in the OpenAI function shape Ollama takes.

    >>> to_tools([ToolDefinition("now", "Current time.", {"type": "object"}, strict=False)])
    [{'type': 'function', 'function': {'name': 'now', 'description': 'Current time.', 'parameters': {'type': 'object'}}}]

    ``strict`` is sent as ``function.strict`` when true, so it comes back; Ollama does not
    enforce it: check the arguments yourself.
    """
    return function_tools_to(definitions, None, strict_rule=False, provider="ollama")


# -- Ollama -> agentmsg ----------------------------------------------------------------------


def from_messages(items: Any) -> tuple[ChatMessage, ...]:
    """Return the ``ChatMessage``s of an ``/api/chat`` ``messages`` list.

    >>> msgs = from_messages([
    ...     {"role": "user", "content": "Weather?"},
    ...     {"role": "assistant", "content": "", "tool_calls": [
    ...         {"function": {"name": "temp", "arguments": {"city": "Oslo"}}},
    ...         {"function": {"name": "sky", "arguments": {"city": "Oslo"}}}]},
    ...     {"role": "tool", "tool_name": "sky", "content": "Rain"},
    ...     {"role": "tool", "tool_name": "temp", "content": "4 C"}])
    >>> [(m.tool_call_id == c.id) for m, c in zip(msgs[2:], reversed(msgs[1].tool_calls))]
    [True, True]

    Calls without ``id`` get ``generated_id("messages[i]", j, name, arguments)``. A tool message
    answers the call named by its ``tool_call_id``; else the first unanswered call of the last
    assistant message with its ``tool_name`` (by position among same-named calls, as
    ``to_messages`` sends them); else the first unanswered call. Images (bare
    base64) get their media type from their first bytes. An assistant's ``thinking`` becomes a
    plain ``ReasoningPart`` (and goes back as ``thinking``).
    """
    pending: list[ToolCall] = []  # calls of the last assistant message not answered yet

    def decode(pair: tuple[int, Any]) -> ChatMessage:
        i, item = pair
        item = expect_object(item)
        role = _role_of(item)
        content = _content_from(item, role)
        if role is ASSISTANT:
            calls = _calls_from(item, f"messages[{i}]")
            pending[:] = calls
            return assistant(content, calls, plain_parts(item, "thinking"))
        if role is TOOL:
            return ChatMessage.tool(_answered(item, pending), content)
        return ChatMessage.user(content) if role is USER else ChatMessage(SYSTEM, content)

    return tuple(map_items(decode, enumerate(expect_items(items, "messages"))))


def _role_of(item: dict[str, Any]) -> MessageRole:
    role = item.get("role")
    found = ROLE_BY_NAME.get(role) if type(role) is str else None
    if found is None:
        if role is None:
            raise missing("role")
        raise ValidationError("expected 'system', 'user', 'assistant' or 'tool'", "role", "value")
    return found


def _content_from(item: dict[str, Any], role: MessageRole) -> Any:
    text = get_optional_str(item, "content") or ""
    images = get_list(item, "images")
    if not images:
        return text
    if role is not USER and role is not TOOL:
        raise ValidationError(f"images in {role} messages are not supported", "images", UNSUPPORTED)
    parts: list[Any] = [TextPart(text)] if text else []
    for k, data in enumerate(images):
        path = f"images[{k}]"
        if type(data) is not str:
            raise expected("a base64 string", data, path)
        try:
            split = split_data_url(data)
            if split is not None:
                source = ImageSource.from_base64(split[1], split[0])
            else:
                source = ImageSource.from_base64(data, sniff_media_type(data, path))
        except ValidationError as exc:
            raise relocate(exc, path) from None
        parts.append(ImagePart(source))
    return tuple(parts)


def _calls_from(item: dict[str, Any], scope: str) -> tuple[ToolCall, ...]:
    calls = enumerate(get_list(item, "tool_calls"))
    return tuple(map_items(lambda pair: _call_from(pair[1], scope, pair[0]), calls, "tool_calls"))


def _call_from(call: Any, scope: str, index: int) -> ToolCall:
    call = expect_object(call)
    fn = get_object(call, "function")
    call_id = call.get("id")
    # without an id, build with a placeholder first: name and arguments are checked, then hashed
    made = make_call("call_" if call_id is None else call_id, fn.get("name"), fn.get("arguments"), _CALL_FIELDS)
    if call_id is None:
        return ToolCall(generated_id(scope, index, made.name, made.arguments), made.name, made.arguments)
    return made


def _answered(item: dict[str, Any], pending: list[ToolCall]) -> str:
    """Return the id of the call a tool message answers (and mark that call answered)."""
    call_id = get_optional_str(item, "tool_call_id")
    name = get_optional_str(item, "tool_name")
    for k, call in enumerate(pending):
        if call_id is not None:
            found = call.id == call_id
        else:
            found = name is None or to_wire_name(call.name) == name
        if found:
            del pending[k]
            return call.id
    if call_id:
        return call_id  # an id the history does not show: kept, the conversation check judges it
    raise ValidationError(
        "answers no unanswered tool call of the last assistant message", "tool_name", "value"
    )


def from_tools(items: Any) -> tuple[ToolDefinition, ...]:
    """Return the ``ToolDefinition``s of a ``tools`` list (as for OpenAI).

    >>> from_tools([{"type": "function", "function": {"name": "now", "parameters": {"type": "object"}}}])
    (ToolDefinition(name='now', description=<3 chars>, strict=False),)
    """
    return function_tools_from(items, None, strict_rule=False, provider="ollama")


def _metrics(body: dict[str, Any]) -> FrozenDict | None:
    usage = {key: body[key] for key in _METRICS if body.get(key) is not None}
    return freeze_usage(usage, "") if usage else None


def parse_response(body: Any) -> Response:
    """Return the ``Response`` of a non-streamed ``/api/chat`` body.

    >>> r = parse_response({"model": "llama3.2", "created_at": "2025-07-07T20:43:37Z",
    ...     "message": {"role": "assistant", "content": "11 C in Toronto."},
    ...     "done": True, "done_reason": "stop", "prompt_eval_count": 94, "eval_count": 11})
    >>> r.message.content, r.finish_reason, dict(r.usage)
    ('11 C in Toronto.', 'stop', {'prompt_eval_count': 94, 'eval_count': 11})

    ``usage`` holds the token counts and durations Ollama reports. Generated call ids use the
    response's ``created_at`` as scope. ``body`` may be the official client's
    ``ChatResponse`` (anything with ``model_dump()``).
    """
    body = expect_object(payload(body))
    if body.get("error") is not None:
        raise provider_error(body["error"], "error")
    message = get_object(body, "message")
    try:
        check_assistant_role(message)
        result = assistant(_content_from(message, ASSISTANT), _calls_from(message, _scope(body)), plain_parts(message, "thinking"))
    except ValidationError as exc:
        raise exc.prefixed("message") from None
    return Response(result, get_optional_str(body, "done_reason"), _metrics(body))


def _scope(body: dict[str, Any]) -> str:
    created = body.get("created_at")
    return created if type(created) is str else ""


class StreamParser(StreamReader):
    """Read ``/api/chat`` NDJSON lines (parsed) one by one; ``finish`` gives the whole ``Response``.

    >>> parser = StreamParser()
    >>> parser.feed({"message": {"role": "assistant", "content": "", "tool_calls": [
    ...     {"function": {"name": "get_weather", "arguments": {"city": "Tokyo"}}}]}, "done": False})
    (ToolCallDelta(index=0, id='call_5c6d2679ad1a16625030185d', name='get_weather', arguments_delta=<16 chars>),)
    >>> parser.feed({"message": {"role": "assistant", "content": ""}, "done": True, "done_reason": "stop", "eval_count": 15})
    ()
    >>> r = parser.finish()
    >>> dict(r.message.tool_calls[0].arguments), r.finish_reason, dict(r.usage)
    ({'city': 'Tokyo'}, 'stop', {'eval_count': 15})

    Text arrives as ``message.content`` pieces; a tool call arrives whole in one line, and its
    generated id (when it has none) uses that line's ``created_at`` as scope. The last line has
    ``done: true``, ``done_reason`` and the counts.

    ``feed`` also takes the official client's ``ChatResponse`` parts (anything with
    ``model_dump()``); ``feed_raw`` takes the NDJSON bytes or text as they arrive from the
    socket, cut anywhere. ``finish`` on a stream that never sent ``done: true`` raises
    ``ValidationError`` with code ``incomplete``:

    >>> try:
    ...     StreamParser().finish()
    ... except ValidationError as exc:
    ...     print(exc.code, "-", exc)
    incomplete - the stream is incomplete: it ended before a line with done: true (cut off, or nothing was fed)
    """

    __slots__ = ("_texts", "_thinking", "_calls", "_count", "_finish_reason", "_usage", "_done")

    _SSE = False  # NDJSON: one JSON document per line

    def __init__(self) -> None:
        super().__init__()
        self._texts: list[str] = []
        self._thinking: list[str] = []
        self._calls = ToolCallAccumulator()
        self._count = 0
        self._finish_reason: str | None = None
        self._usage: FrozenDict | None = None
        self._done = False

    def feed(self, chunk: Any) -> tuple[Piece, ...]:
        """Take one line (a dict) and return what it carried."""
        chunk = expect_object(payload(chunk))
        if chunk.get("error") is not None:
            raise provider_error(chunk["error"], "error")
        out: list[Piece] = []
        message = get_optional_object(chunk, "message")
        if message is not None:
            try:
                thinking = get_optional_str(message, "thinking")
                if thinking:
                    self._thinking.append(thinking)
                    out.append(ReasoningDelta(0, thinking))
                text = get_optional_str(message, "content")
                if text:
                    self._texts.append(text)
                    out.append(text)
                if get_list(message, "images"):
                    raise ValidationError("images in assistant messages are not supported", "images", UNSUPPORTED)
                calls = _calls_from(message, _scope(chunk))
            except ValidationError as exc:
                raise exc.prefixed("message") from None
            for call in calls:
                delta = ToolCallDelta(self._count, call.id, call.name, dump_arguments(call.arguments))
                self._calls.add(delta)
                self._count += 1
                out.append(delta)
        if chunk.get("done") is True:
            self._done = True
            self._finish_reason = get_optional_str(chunk, "done_reason")
            self._usage = _metrics(chunk)
        return tuple(out)

    def finish(self) -> Response:
        """Return the ``Response`` of the whole stream (its calls joined by the accumulator)."""
        self._drain()
        calls = finish_calls(self._calls, lambda i: f"message.tool_calls[{i}]", _CALL_FIELDS)
        if not self._done:
            raise incomplete("a line with done: true")
        reasoning = (reasoning_part("".join(self._thinking)),) if self._thinking else ()
        return Response(assistant("".join(self._texts), calls, reasoning), self._finish_reason, self._usage)
