"""OpenAI Responses API (``POST /v1/responses``): the codec.

>>> from . import openai_responses
>>> thought = ReasoningPart(signature="gAAAAAB...", provider="openai", id="rs_1", anchor="fc_1")
>>> instructions, items = openai_responses.to_messages([
...     ChatMessage.system("Be brief."),
...     ChatMessage.user("Weather in Paris?"),
...     ChatMessage.assistant(tool_calls=[ToolCall("call_1", "get_weather", {"city": "Paris"})], reasoning=[thought]),
...     ChatMessage.tool("call_1", "18 C"),
... ])
>>> instructions
'Be brief.'
>>> for item in items: print(item)
{'role': 'user', 'content': 'Weather in Paris?'}
{'type': 'reasoning', 'id': 'rs_1', 'summary': [], 'encrypted_content': 'gAAAAAB...'}
{'type': 'function_call', 'id': 'fc_1', 'call_id': 'call_1', 'name': 'get_weather', 'arguments': '{"city":"Paris"}'}
{'type': 'function_call_output', 'call_id': 'call_1', 'output': '18 C'}
>>> openai_responses.from_messages(items, instructions)[2].reasoning == (thought,)
True

The system prompt travels as ``instructions`` (the first system message; a later one becomes a
``developer`` message item). An assistant turn is the run of ``reasoning``, ``message`` and
``function_call`` items between user input and tool output; a ``reasoning`` item that follows
a message or a call starts a new assistant message, so item order survives. A reasoning item
is one ``ReasoningPart`` per ``summary_text`` (the first holds ``encrypted_content`` as
``signature``, all share its ``id``); an item with no summary is one part with empty text. The
id of the item right after a reasoning item (``fc_...``, ``msg_...``) is the part's ``anchor``;
``to_messages`` sends that item, with its id, right after the reasoning item (the API refuses
a reasoning item without its following item), the next call for an ``fc_`` anchor. Other item
ids and ``status`` are not kept (a call is answered by ``call_id``). Reasoning from another provider is not sent.
Function tools are always sent with ``strict`` (the Responses API takes a missing ``strict``
as true, so ``from_tools`` does too). A tool result's ``is_error`` becomes an ``Error: ``
prefix; base64 images travel as ``data:`` URLs with ``detail: "auto"``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .._checks import (
    check_int, expect_object, expected, get_bool, get_list, get_object, get_optional_object, get_optional_str,
    get_str, map_items, missing,
)
from ..content import ImagePart, ReasoningPart, TextPart, reasoning_part
from ..errors import ValidationError
from ..messages import ChatMessage
from ..roles import MessageRole
from ..streaming import ReasoningAccumulator, ReasoningDelta, ToolCallAccumulator, ToolCallDelta
from ..tools import ToolCall, ToolDefinition, check_strict
from ._response import Response
from ._common import (
    ERROR_PREFIX, OPENAI_NAMES, UNSUPPORTED, assistant, checked_messages, dump_arguments, expect_items, freeze_usage,
    get_inner_str, image_from_url, image_url, make_call, not_a_message, payload, provider_error, relocate,
    request_body, wire_name,
)
from ._stream import Piece, StreamReader, add_call_delta, finish_calls, incomplete
from ._tools import checked_tools, declaration, extras_of, function_from

__all__ = ["to_messages", "from_messages", "to_tools", "from_tools", "to_request", "parse_response", "StreamParser"]

SYSTEM, USER, ASSISTANT, TOOL = MessageRole
PROVIDER = "openai"
EXTRAS = "openai_responses"  # the ToolDefinition.extras key of the tool fields this codec carries
_TOOL_KEYS = frozenset({"type", "name", "description", "parameters", "strict"})
_CALL_FIELDS = ("call_id", "name", "arguments")
_ERROR_KEYS = ("type", "code")  # what names an API error (its message is never repeated)


# -- agentmsg -> Responses -------------------------------------------------------------------


def to_request(messages: Iterable[ChatMessage], tools: Iterable[ToolDefinition] = (), **params: Any) -> dict[str, Any]:
    """Return the complete request body: ``client.responses.create(**body)``.

    >>> to_request([ChatMessage.system("Be brief."), ChatMessage.user("Hi")], model="gpt-5", store=None)
    {'model': 'gpt-5', 'instructions': 'Be brief.', 'input': [{'role': 'user', 'content': 'Hi'}]}

    ``params`` (``model`` is required; ``reasoning``, ``include``, ``stream``...) are sent as
    given, None values left out; ``instructions`` and ``tools`` are left out when there are none.
    To get reasoning back for replay without storing responses, pass
    ``include=["reasoning.encrypted_content"]`` and ``store=False``.
    """
    instructions, items = to_messages(messages)
    listed = to_tools(tools)
    return request_body({"instructions": instructions, "input": items, "tools": listed or None}, params, ("model",))


def to_messages(messages: Iterable[ChatMessage]) -> tuple[str | None, list[dict[str, Any]]]:
    """Return ``(instructions, input)``: the first system message's text and the input items.

    >>> to_messages([ChatMessage.user("Hi"), ChatMessage.assistant("Hello!")])
    (None, [{'role': 'user', 'content': 'Hi'}, {'role': 'assistant', 'content': 'Hello!'}])
    """
    instructions: str | None = None
    out: list[dict[str, Any]] = []
    for i, message in enumerate(checked_messages(messages)):
        if type(message) is not ChatMessage:
            raise not_a_message(message, i)
        role = message.role
        try:
            if role is USER:
                content = message.content
                out.append({"role": "user", "content": content if type(content) is str else _parts_to(content)})
            elif role is ASSISTANT:
                _assistant_to(message, out)
            elif role is TOOL:
                out.append(_tool_to(message))
            elif i == 0:
                instructions = _system_text(message)
            else:
                out.append({"role": "developer", "content": _system_text(message)})
        except ValidationError as exc:
            raise exc.prefixed(i) from None
    return instructions, out


def _image_to(part: ImagePart, j: int) -> dict[str, Any]:
    try:
        return {"type": "input_image", "image_url": image_url(part.source), "detail": "auto"}
    except ValidationError as exc:
        raise exc.prefixed(j).prefixed("content") from None


def _parts_to(content: Any) -> list[dict[str, Any]]:
    return [
        {"type": "input_text", "text": part.text} if type(part) is TextPart else _image_to(part, j)
        for j, part in enumerate(content)
    ]


def _reasoning_items(parts: tuple[ReasoningPart, ...]) -> list[tuple[dict[str, Any], str | None]]:
    """Return the reasoning items of a message's OpenAI parts, each with its anchor."""
    items: list[tuple[dict[str, Any], str | None]] = []
    current: dict[str, Any] | None = None
    for part in parts:
        if part.provider != PROVIDER or part.id is None:
            continue  # another provider's reasoning (or text only): not sent, see the module docs
        if current is None or current["id"] != part.id:
            current = {"type": "reasoning", "id": part.id, "summary": []}
            if part.signature is not None:
                current["encrypted_content"] = part.signature
            items.append((current, part.anchor))
        if part.text:
            current["summary"].append({"type": "summary_text", "text": part.text})
    return items


def _assistant_to(message: ChatMessage, out: list[dict[str, Any]]) -> None:
    """Add an assistant message's items: each reasoning item right before the item it names."""
    content = message.content
    text_due = content is not None and (content != "" or not message.tool_calls)
    calls = message.tool_calls
    sent = 0  # the calls already added
    for item, anchor in _reasoning_items(message.reasoning):
        out.append(item)
        if anchor is None:
            continue
        if anchor.startswith("msg"):
            out.append(_output_message(content, anchor))
            text_due = False
        elif sent < len(calls):
            out.append(_call_to(calls[sent], sent, anchor))
            sent += 1
    if text_due:
        if type(content) is str:
            out.append({"role": "assistant", "content": content})
        else:
            out.append({"role": "assistant", "content": _output_texts(content)})
    for j in range(sent, len(calls)):
        out.append(_call_to(calls[j], j, None))


def _output_texts(content: Any) -> list[dict[str, Any]]:
    texts = [content] if type(content) is str else [part.text for part in content or ()] or [""]
    return [{"type": "output_text", "text": text, "annotations": []} for text in texts]


def _output_message(content: Any, item_id: str) -> dict[str, Any]:
    return {"type": "message", "id": item_id, "role": "assistant", "status": "completed", "content": _output_texts(content)}


def _call_to(call: ToolCall, j: int, item_id: str | None) -> dict[str, Any]:
    wire: dict[str, Any] = {"type": "function_call"}
    if item_id is not None:
        wire["id"] = item_id
    wire["call_id"] = call.id
    wire["name"] = call.name if "_x" not in call.name else wire_name(call.name, f"tool_calls[{j}].name", OPENAI_NAMES)
    wire["arguments"] = dump_arguments(call.arguments)
    return wire


def _tool_to(message: ChatMessage) -> dict[str, Any]:
    content = message.content
    output: Any
    if type(content) is str:
        output = ERROR_PREFIX + content if message.is_error else content
    else:
        output = _parts_to(content)
        if message.is_error:
            if output[0]["type"] == "input_text":
                output[0] = {"type": "input_text", "text": ERROR_PREFIX + output[0]["text"]}
            else:
                output.insert(0, {"type": "input_text", "text": ERROR_PREFIX.rstrip()})
    return {"type": "function_call_output", "call_id": message.tool_call_id, "output": output}


def to_tools(definitions: Iterable[ToolDefinition]) -> list[dict[str, Any]]:
    """Return the ``tools`` list: ``{"type": "function", "name", "description"?, "parameters", "strict"}``.

    >>> to_tools([ToolDefinition("now", "Current time.", {"type": "object", "properties": {}}, strict=False)])
    [{'type': 'function', 'name': 'now', 'description': 'Current time.', 'parameters': {'type': 'object', 'properties': {}}, 'strict': False}]
    """
    return map_items(_function_to, checked_tools(definitions))


def _function_to(definition: ToolDefinition) -> dict[str, Any]:
    name = wire_name(definition.name, "name", OPENAI_NAMES)
    if definition.strict:  # OpenAI's rule, for a definition another codec read as strict
        check_strict(definition.parameters)
    carried = definition.extras.get(EXTRAS)
    return declaration(definition, name, "parameters", definition.strict, carried, {"type": "function"})


# -- Responses -> agentmsg -------------------------------------------------------------------


class _Turn:
    """The assistant message being gathered from consecutive output items."""

    __slots__ = ("texts", "calls", "reasoning", "refusal", "open")

    def __init__(self) -> None:
        self.texts: list[str] = []
        self.calls: list[ToolCall] = []
        self.reasoning: list[ReasoningPart] = []
        self.refusal: list[str] = []
        self.open = False

    def message(self) -> ChatMessage:
        texts = self.texts if len(self.texts) < 2 else [text for text in self.texts if text] or self.texts[:1]
        content: Any = None
        if len(texts) == 1:
            content = texts[0]
        elif texts:
            content = tuple(TextPart(text) for text in texts)
        return assistant(content, tuple(self.calls), self.reasoning)


def _next_id(items: Any, i: int) -> str | None:
    """Return the id of item ``i + 1`` when it is a message or function call with one."""
    if i + 1 < len(items):
        nxt = items[i + 1]
        if type(nxt) is dict and nxt.get("type") in ("function_call", "message", None):
            value = nxt.get("id")
            if type(value) is str and value:
                return value
    return None


def _reasoning_from(item: dict[str, Any], anchor: str | None) -> list[ReasoningPart]:
    item_id = get_str(item, "id")
    signature = get_optional_str(item, "encrypted_content") or None
    summary = item.get("summary")
    if type(summary) is list and all(type(part) is dict and type(part.get("text")) is str for part in summary):
        texts = [part["text"] for part in summary]  # the usual shape, read at once
    else:
        texts = []
        for j, part in enumerate(get_list(item, "summary")):
            try:
                part = expect_object(part)
                texts.append(get_str(part, "text"))
            except ValidationError as exc:
                raise exc.prefixed(j).prefixed("summary") from None
    if not texts:
        texts = [""]
    try:
        first = reasoning_part(texts[0], signature, False, PROVIDER, item_id, anchor)
    except ValidationError as exc:
        raise relocate(exc, "summary[0].text" if exc.path == "text" else exc.path) from None
    return [first, *[reasoning_part(text, None, False, PROVIDER, item_id) for text in texts[1:]]]


def _output_text_from(content: Any, turn: _Turn) -> None:
    if type(content) is str:
        turn.texts.append(content)
        return
    if type(content) is not list:
        raise expected("a string or an array of parts", content, "content")
    for j, part in enumerate(content):
        try:
            part = expect_object(part)
            kind = part.get("type")
            if kind in ("output_text", "input_text", "text"):
                turn.texts.append(get_str(part, "text"))
            elif kind == "refusal":
                refusal = get_str(part, "refusal")
                turn.texts.append(refusal)
                turn.refusal.append(refusal)
            else:
                kind = get_str(part, "type")
                raise ValidationError(f"content part type {kind[:40]!r} is not supported here", "type", UNSUPPORTED)
        except ValidationError as exc:
            raise exc.prefixed(j).prefixed("content") from None


def _input_parts_from(content: Any, path: str, images: bool = True) -> Any:
    if type(content) is str:
        return content
    if content is None:
        raise missing(path)
    if type(content) is not list:
        raise expected("a string or an array of parts", content, path)
    parts: list[TextPart | ImagePart] = []
    for j, part in enumerate(content):
        try:
            part = expect_object(part)
            kind = part.get("type")
            if kind in ("input_text", "output_text", "text"):
                parts.append(TextPart(get_str(part, "text")))
            elif kind == "input_image" and images:
                if part.get("image_url") is None and part.get("file_id") is not None:
                    raise ValidationError("images by file_id are not supported (send a URL or data)", "file_id", UNSUPPORTED)
                parts.append(ImagePart(image_from_url(part.get("image_url"), "image_url")))
            else:
                kind = get_str(part, "type")
                raise ValidationError(f"content part type {kind[:40]!r} is not supported here", "type", UNSUPPORTED)
        except ValidationError as exc:
            raise exc.prefixed(j).prefixed(path) from None
    if not parts:
        raise ValidationError("must hold at least one part", path, "value")
    return tuple(parts)


def _item_into(item: dict[str, Any], anchor: str | None, turn: _Turn) -> bool:
    """Add an output item to the assistant ``turn``; return False if it is not an assistant item."""
    kind = item.get("type")
    if kind == "reasoning":
        turn.reasoning.extend(_reasoning_from(item, anchor))
    elif kind == "function_call":
        turn.calls.append(make_call(item.get("call_id"), item.get("name"), item.get("arguments"), _CALL_FIELDS))
    elif (kind is None or kind == "message") and item.get("role") == "assistant":
        _output_text_from(item.get("content"), turn)
    else:
        return False
    turn.open = True
    return True


def _system_text(message: ChatMessage) -> str:
    """Return a system message's text, its parts joined with a newline (as the Anthropic codec does)."""
    content = message.content
    if type(content) is str:
        return content
    return "\n".join(part.text for part in content or () if type(part) is TextPart)


def from_messages(items: Any, instructions: Any = None) -> tuple[ChatMessage, ...]:
    """Return the ``ChatMessage``s of an ``input`` list (a string is one user message), ``instructions`` first.

    >>> from_messages([{"role": "user", "content": "Hi"},
    ...                {"type": "function_call", "call_id": "call_1", "name": "now", "arguments": "{}"},
    ...                {"type": "function_call_output", "call_id": "call_1", "output": "noon"}], "Be brief.")
    (ChatMessage(role=system, content=<9 chars>), ChatMessage(role=user, content=<2 chars>), ChatMessage(role=assistant, tool_calls=[call_1:now]), ChatMessage(role=tool, content=<4 chars>, tool_call_id='call_1'))

    ``system`` and ``developer`` messages read as system messages. Item kinds with no agentmsg
    counterpart (built-in tool calls, ``item_reference``, files) are refused.
    """
    out: list[ChatMessage] = []
    if instructions is not None:
        if type(instructions) is not str:
            raise expected("a string", instructions, "instructions")
        out.append(ChatMessage.system(instructions))
    if type(items) is str:
        out.append(ChatMessage.user(items))
        return tuple(out)
    items = expect_items(items, "input items")
    turn: _Turn | None = None
    start = 0
    for i, item in enumerate(items):
        try:
            if type(item) is not dict:
                item = expect_object(item)
            kind = item.get("type")
            if kind == "function_call":  # the commonest item, inline: this loop is the hot path
                if turn is None:
                    turn = _Turn()
                    start = i
                turn.calls.append(make_call(item.get("call_id"), item.get("name"), item.get("arguments"), _CALL_FIELDS))
                turn.open = True
                continue
            if kind is None and item.get("role") == "assistant" and type(item.get("content")) is str:
                if turn is None:
                    turn = _Turn()
                    start = i
                turn.texts.append(item["content"])
                turn.open = True
                continue
            if kind == "function_call_output" or (kind is None and item.get("role") == "user"):
                if turn is not None:
                    _close(turn, out, start)
                    turn = None
                out.append(_input_from(item, kind))
                continue
            if turn is not None and kind == "reasoning" and (turn.texts or turn.calls):
                _close(turn, out, start)
                turn = None
            if turn is None:
                turn = _Turn()
                start = i
            if _item_into(item, _next_id(items, i) if kind == "reasoning" else None, turn):
                continue
            if turn.open:
                _close(turn, out, start)
            turn = None
            out.append(_input_from(item, kind))
        except ValidationError as exc:
            raise exc.prefixed(i) from None
    if turn is not None:
        _close(turn, out, start)
    return tuple(out)


def _close(turn: _Turn, out: list[ChatMessage], start: int) -> None:
    if turn.open:
        try:
            out.append(turn.message())
        except ValidationError as exc:
            raise relocate(exc, f"[{start}]") from None


def _input_from(item: dict[str, Any], kind: Any) -> ChatMessage:
    if kind == "function_call_output":
        call_id = item.get("call_id")
        output = item.get("output")
        if type(call_id) is str and call_id and type(output) is str:  # the common case: text output
            return ChatMessage.tool(call_id, output)
        call_id = get_str(item, "call_id")
        try:
            return ChatMessage.tool(call_id, _input_parts_from(item.get("output"), "output"))
        except ValidationError as exc:
            if exc.path == "tool_call_id":
                raise relocate(exc, "call_id") from None
            raise
    if kind is None or kind == "message":
        role = item.get("role")
        if role == "user":
            return ChatMessage.user(_input_parts_from(item.get("content"), "content"))
        if role == "system" or role == "developer":
            content = _input_parts_from(item.get("content"), "content", images=False)
            return ChatMessage(SYSTEM, content)
        if role is None:
            raise missing("role")
        raise ValidationError("expected 'user', 'assistant', 'system' or 'developer'", "role", "value")
    kind = get_str(item, "type")
    raise ValidationError(f"input item type {kind[:40]!r} is not supported", "type", UNSUPPORTED)


def from_tools(items: Any) -> tuple[ToolDefinition, ...]:
    """Return the ``ToolDefinition``s of a ``tools`` list (function tools only).

    >>> from_tools([{"type": "function", "name": "now", "parameters": {"type": "object"}, "strict": False}])
    (ToolDefinition(name='now', description=<3 chars>, strict=False),)

    A missing ``strict`` means true, as the Responses API reads it; a missing, null or blank
    description becomes the tool's name; names map to canonical ones (``to_canonical_name``).
    Fields agentmsg does not model are kept in ``extras["openai_responses"]`` and sent again
    by ``to_tools``. Built-in tools (web search, file search...) are refused.
    """
    return tuple(map_items(_tool_from, expect_items(items, "tools")))


def _tool_from(item: Any) -> ToolDefinition:
    item = expect_object(item)
    kind = item.get("type")
    if kind != "function":
        if kind is None:
            raise missing("type")
        raise ValidationError("only function tools are supported", "type", UNSUPPORTED)
    carried = extras_of(item, _TOOL_KEYS)
    fields = {**item, "strict": get_bool(item, "strict", True)}
    return function_from(fields, OPENAI_NAMES, True, {EXTRAS: carried} if carried else None)


def _finish_reason(body: dict[str, Any]) -> str | None:
    status = get_optional_str(body, "status")
    if status == "incomplete":
        reason = get_inner_str(body, "incomplete_details", "reason")
        if reason is not None:
            return reason
    return status


def parse_response(body: Any) -> Response:
    """Return the ``Response`` of a ``response`` object (its ``output`` items form one message).

    >>> r = parse_response({"object": "response", "status": "completed", "output": [
    ...     {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
    ...      "content": [{"type": "output_text", "text": "Hi!", "annotations": []}]}],
    ...     "usage": {"input_tokens": 5, "output_tokens": 2, "total_tokens": 7}})
    >>> r.message.content, r.finish_reason, r.usage["total_tokens"]
    ('Hi!', 'completed', 7)

    ``finish_reason`` is the ``status`` (``completed``), or for an ``incomplete`` response its
    reason (``max_output_tokens``, ``content_filter``). An error body (``{"error": {...}}``)
    or a ``failed`` response raises ``ValidationError`` with code ``provider``. ``body`` may also
    be the official client's ``Response`` object (anything with ``model_dump()``).
    """
    body = expect_object(payload(body))
    error = body.get("error")
    if error is not None and ("output" not in body or body.get("status") == "failed"):
        raise provider_error(error, "error", "OpenAI", _ERROR_KEYS)
    if body.get("status") == "failed":
        raise provider_error(None, "status", "OpenAI")
    if body.get("output") is None:
        raise missing("output")
    items = get_list(body, "output")
    turn = _Turn()
    for i, item in enumerate(items):
        try:
            item = expect_object(item)
            if not _item_into(item, _next_id(items, i) if item.get("type") == "reasoning" else None, turn):
                kind = get_str(item, "type")
                raise ValidationError(f"output item type {kind[:40]!r} is not supported", "type", UNSUPPORTED)
        except ValidationError as exc:
            raise exc.prefixed(i).prefixed("output") from None
    try:
        message = turn.message()
    except ValidationError as exc:
        raise relocate(exc, "output") from None
    refusal = "".join(turn.refusal) or None
    return Response(message, _finish_reason(body), freeze_usage(body.get("usage"), "usage"), refusal)


class StreamParser(StreamReader):
    r"""Read Responses stream events one by one; ``finish`` gives the whole ``Response``.

    >>> parser = StreamParser()
    >>> events = [
    ...     {"type": "response.output_item.added", "output_index": 0,
    ...      "item": {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAA"}},
    ...     {"type": "response.reasoning_summary_text.delta", "output_index": 0, "summary_index": 0, "delta": "Plan"},
    ...     {"type": "response.output_item.added", "output_index": 1,
    ...      "item": {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "now", "arguments": ""}},
    ...     {"type": "response.function_call_arguments.delta", "output_index": 1, "delta": "{}"},
    ...     {"type": "response.completed", "response": {"status": "completed", "output": [], "usage": {"total_tokens": 9}}}]
    >>> [parser.feed(event) for event in events][1]
    (ReasoningDelta(index=0, text=<4 chars>),)
    >>> r = parser.finish()
    >>> r.message.tool_calls[0].name, r.message.reasoning[0].anchor, r.finish_reason
    ('now', 'fc_1', 'completed')

    ``feed`` takes one parsed SSE ``data:`` event and returns text deltas (strings),
    ``ReasoningDelta``s (summary text; ``index`` counts reasoning parts) and ``ToolCallDelta``s
    (``index`` counts calls). When ``response.completed`` (or ``.incomplete``) carries the
    output items, ``finish`` reads the message from them (its ``encrypted_content`` is the final
    one); otherwise it joins what streamed. ``error`` and ``response.failed`` raise
    ``ValidationError`` with code ``provider``; event types this version does not know are ignored.

    ``feed`` also takes the official client's event objects (anything with ``model_dump()``);
    ``feed_raw`` takes the SSE bytes or text as they arrive from the socket, cut anywhere
    (``event:`` lines are read past: the JSON names its type):

    >>> raw = StreamParser()
    >>> raw.feed_raw(b'event: response.output_text.delta\ndata: {"type": "response.output_text.delta", "output_index": 0, "delta": "Gr\xc3')
    ()
    >>> raw.feed_raw(b'\xbc\xc3\x9fe"}\r\n\r\ndata: {"type": "response.completed", "response": {"status": "completed", "output": []}}\n\n')
    ('Grüße',)
    >>> raw.finish().message.content
    'Grüße'

    ``finish`` on a stream that never reached ``response.completed`` (nor
    ``response.incomplete``) raises ``ValidationError`` with code ``incomplete``:

    >>> try:
    ...     StreamParser().finish()
    ... except ValidationError as exc:
    ...     print(exc.code, "-", exc)
    incomplete - the stream is incomplete: it ended before response.completed (cut off, or nothing was fed)
    """

    __slots__ = ("_texts", "_refusal", "_calls", "_reasoning", "_items", "_summaries", "_final", "_usage", "_status", "_ended")

    def __init__(self) -> None:
        super().__init__()
        self._texts: dict[int, list[str]] = {}  # output_index -> text pieces
        self._refusal: list[str] = []
        self._calls = ToolCallAccumulator()
        self._reasoning = ReasoningAccumulator()
        self._items: dict[int, tuple[str, int, str | None]] = {}  # output_index -> (type, ordinal, item id)
        self._summaries: dict[tuple[int, int], int] = {}  # (output_index, summary_index) -> part index
        self._final: Response | None = None
        self._usage: Any = None
        self._status: str | None = None
        self._ended = False

    def feed(self, event: Any) -> tuple[Piece, ...]:
        """Take one event and return what it carried."""
        event = expect_object(payload(event))
        kind = get_str(event, "type")
        if kind == "response.output_text.delta" or kind == "response.refusal.delta":
            text = get_str(event, "delta")
            index = check_int(event.get("output_index", 0), "output_index", minimum=0)
            if text:
                self._texts.setdefault(index, []).append(text)
                if kind == "response.refusal.delta":
                    self._refusal.append(text)
                return (text,)
            return ()
        if kind == "response.reasoning_summary_text.delta":
            return self._summary_delta(event)
        if kind == "response.function_call_arguments.delta":
            index = check_int(event.get("output_index"), "output_index", minimum=0)
            entry = self._items.get(index)
            if entry is None or entry[0] != "function_call":
                raise ValidationError("no function_call item was added at this index", "output_index", "value")
            text = get_str(event, "delta")
            if not text:
                return ()
            delta = ToolCallDelta(entry[1], arguments_delta=text)
            self._calls.add(delta)
            return (delta,)
        if kind == "response.output_item.added":
            return self._added(event)
        if kind == "response.output_item.done":
            self._done(event)
        elif kind in ("response.completed", "response.incomplete"):
            self._completed(event)
        elif kind == "response.failed":
            response = get_optional_object(event, "response")
            raise provider_error(response.get("error") if response else None, "response.error", "OpenAI", _ERROR_KEYS)
        elif kind == "error":
            raise provider_error(event.get("error", event), "error", "OpenAI", _ERROR_KEYS)
        return ()

    def _summary_delta(self, event: dict[str, Any]) -> tuple[ReasoningDelta, ...]:
        index = check_int(event.get("output_index"), "output_index", minimum=0)
        summary = check_int(event.get("summary_index", 0), "summary_index", minimum=0)
        entry = self._items.get(index)
        if entry is None or entry[0] != "reasoning":
            raise ValidationError("no reasoning item was added at this index", "output_index", "value")
        text = get_str(event, "delta")
        key = (index, summary)
        part = self._summaries.get(key)
        if part is None:
            part = self._summaries[key] = len(self._reasoning)
            self._reasoning.annotate(part, provider=PROVIDER, id=entry[2])
        if not text:
            return ()
        delta = ReasoningDelta(part, text)
        self._reasoning.add(delta)
        return (delta,)

    def _added(self, event: dict[str, Any]) -> tuple[ToolCallDelta, ...]:
        index = check_int(event.get("output_index"), "output_index", minimum=0)
        item = get_object(event, "item")
        try:
            kind = get_str(item, "type")
            item_id = get_optional_str(item, "id") or None
            previous = self._items.get(index - 1)
            if previous is not None and previous[0] == "reasoning" and item_id is not None and kind != "reasoning":
                self._reasoning.annotate(self._summaries[(index - 1, 0)], anchor=item_id)
            if kind == "reasoning":
                part = self._summaries[(index, 0)] = len(self._reasoning)
                self._items[index] = (kind, part, item_id)
                self._reasoning.annotate(part, provider=PROVIDER, id=get_str(item, "id"))
                self._reasoning.annotate(part, signature=get_optional_str(item, "encrypted_content") or None)
                return ()
            if kind == "function_call":
                ordinal = len(self._calls)
                self._items[index] = (kind, ordinal, item_id)
                arguments = get_optional_str(item, "arguments") or None
                call_id, name = get_str(item, "call_id"), get_str(item, "name")
                return (add_call_delta(self._calls, ordinal, call_id, name, arguments, _CALL_FIELDS),)
            self._items[index] = (kind, 0, item_id)
            return ()
        except ValidationError as exc:
            raise exc.prefixed("item") from None

    def _done(self, event: dict[str, Any]) -> None:
        index = check_int(event.get("output_index"), "output_index", minimum=0)
        item = get_object(event, "item")
        entry = self._items.get(index)
        if entry is not None and entry[0] == "reasoning":
            try:
                signature = get_optional_str(item, "encrypted_content") or None
            except ValidationError as exc:
                raise exc.prefixed("item") from None
            if signature is not None:  # the final token replaces the one the item was added with
                self._reasoning.annotate(self._summaries[(index, 0)], signature=signature)

    def _completed(self, event: dict[str, Any]) -> None:
        self._ended = True
        response = get_object(event, "response")
        try:
            self._usage = freeze_usage(response.get("usage"), "usage")
            self._status = _finish_reason(response)
            output = response.get("output")
            if output:
                self._final = parse_response({**response, "error": None})
        except ValidationError as exc:
            raise exc.prefixed("response") from None

    def finish(self) -> Response:
        """Return the ``Response`` of the whole stream."""
        self._drain()
        if not self._ended:
            raise incomplete("response.completed")
        if self._final is not None:
            return self._final
        calls = finish_calls(self._calls, lambda i: f"tool_calls[{i}]", ("id", "name", "arguments"))
        text = "".join(piece for _, pieces in sorted(self._texts.items()) for piece in pieces)
        message = assistant(text or None, calls, self._reasoning.finish())
        return Response(message, self._status, self._usage, "".join(self._refusal) or None)
