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

from .._checks import expect_object, expected, get_bool, get_str, map_items, missing
from ..content import ImagePart, ReasoningPart, TextPart
from ..errors import ValidationError
from ..messages import ChatMessage
from ..roles import MessageRole
from ..tools import ToolCall, ToolDefinition, check_strict
from ._common import (
    ERROR_PREFIX, OPENAI_NAMES, UNSUPPORTED, assistant, checked_messages, dump_arguments, expect_items, image_url,
    make_call, not_a_message, relocate, request_body, wire_name,
)
from ._openai_responses_output import (
    CALL_FIELDS, PROVIDER, AssistantTurn, StreamParser, input_parts_from, next_item_id, parse_response,
    read_output_item,
)
from ._tools import checked_tools, declaration, extras_of, function_from

__all__ = ["to_messages", "from_messages", "to_tools", "from_tools", "to_request", "parse_response", "StreamParser"]

SYSTEM, USER, ASSISTANT, TOOL = MessageRole
EXTRAS = "openai_responses"  # the ToolDefinition.extras key of the tool fields this codec carries
_TOOL_KEYS = frozenset({"type", "name", "description", "parameters", "strict"})


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
    turn: AssistantTurn | None = None
    start = 0
    for i, item in enumerate(items):
        try:
            if type(item) is not dict:
                item = expect_object(item)
            kind = item.get("type")
            if kind == "function_call":  # the commonest item, inline: this loop is the hot path
                if turn is None:
                    turn = AssistantTurn()
                    start = i
                turn.calls.append(make_call(item.get("call_id"), item.get("name"), item.get("arguments"), CALL_FIELDS))
                turn.open = True
                continue
            if kind is None and item.get("role") == "assistant" and type(item.get("content")) is str:
                if turn is None:
                    turn = AssistantTurn()
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
                turn = AssistantTurn()
                start = i
            if read_output_item(item, next_item_id(items, i) if kind == "reasoning" else None, turn):
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


def _close(turn: AssistantTurn, out: list[ChatMessage], start: int) -> None:
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
            return ChatMessage.tool(call_id, input_parts_from(item.get("output"), "output"))
        except ValidationError as exc:
            if exc.path == "tool_call_id":
                raise relocate(exc, "call_id") from None
            raise
    if kind is None or kind == "message":
        role = item.get("role")
        if role == "user":
            return ChatMessage.user(input_parts_from(item.get("content"), "content"))
        if role == "system" or role == "developer":
            content = input_parts_from(item.get("content"), "content", images=False)
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
