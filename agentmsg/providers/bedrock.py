"""Amazon Bedrock Converse (``Converse`` / ``ConverseStream``): the codec.

>>> from . import bedrock
>>> system, wire = bedrock.to_messages([
...     ChatMessage.system("Be brief."),
...     ChatMessage.user("Weather in Paris?"),
...     ChatMessage.assistant("Checking.", [ToolCall("tooluse_1", "get_weather", {"city": "Paris"})]),
...     ChatMessage.tool("tooluse_1", "18 C"),
...     ChatMessage.user("And tomorrow?"),
... ])
>>> system, wire[2]
([{'text': 'Be brief.'}], {'role': 'user', 'content': [{'toolResult': {'toolUseId': 'tooluse_1', 'content': [{'text': '18 C'}]}}, {'text': 'And tomorrow?'}]})
>>> len(bedrock.from_messages(wire, system))
5

A content block is an object with one key naming its type (``text``, ``image``, ``toolUse``,
``toolResult``, ``reasoningContent``, ``cachePoint``...). The system prompt travels as the
top-level ``system`` list, one ``text`` block per text part. Consecutive tool messages become
the ``toolResult`` blocks of one user turn, and a user message that follows them joins that
turn. Empty text blocks are never sent (Bedrock refuses blank text): empty text parts are left
out and a message that would be empty is refused. An assistant turn is written reasoning
first, then text, then ``toolUse``; read back, interleaved text and ``toolUse`` lose their
relative order (a ``ChatMessage`` keeps its text and calls apart). ``reasoningContent``
(``reasoningText`` with its ``signature``, or ``redactedContent``, kept as base64 text in the
signature of a ``redacted`` part) becomes ``ReasoningPart``s of provider ``bedrock``, sent back
only to Bedrock. A tool result is ``status: error`` when ``is_error`` (``status`` is left out
otherwise: only some models take it); its ``json`` blocks read as compact JSON text.

Blobs (image bytes, ``redactedContent``) are raw bytes in boto3 and base64 text in the JSON of
the HTTP API: reading takes either; writing gives bytes (``blobs="bytes"``, for
``client.converse(**body)``, whose serializer base64-encodes them itself) or base64 text
(``blobs="base64"``, the JSON body). ``cachePoint`` blocks in ``system`` and ``messages`` are
hints to the service, not content: reading leaves them out. A ``cachePoint`` entry in the tool
list is kept in the ``extras["bedrock"]`` of the tool before it and sent again. Documents,
video, audio, S3 sources, citations, guard content and server tools are refused (agentmsg
cannot carry them back).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, Literal

from .._checks import expect_object, expected, get_object, get_str, map_items, missing
from .._frozen import thaw_json
from .._images import decode_base64
from ..content import IMAGE_MEDIA_TYPES, ImageSource, TextPart
from ..errors import ValidationError
from ..messages import ChatMessage
from ..roles import MessageRole
from ..tools import ToolCall, ToolDefinition  # ToolCall: for the doctests
from ._bedrock_response import (
    BEDROCK_NAMES, PROVIDER, StreamParser, assistant_from, block_kind, parse_response, part_from,
)
from ._common import (
    UNSUPPORTED, checked_messages, dump_arguments, expect_items, image_data, not_a_message, relocate, rename,
    request_body, wire_name,
)
from ._tools import checked_tools, declaration, extras_of, function_from

__all__ = ["to_request", "to_messages", "from_messages", "to_tools", "from_tools", "parse_response", "StreamParser"]

SYSTEM, USER, ASSISTANT, TOOL = MessageRole
Blobs = Literal["bytes", "base64"]
_TOOL_ID = re.compile(r"[a-zA-Z0-9_.:-]{1,64}", re.ASCII)  # ``ToolUseId`` of the service model
_SPEC_KEYS = frozenset({"name", "description", "inputSchema", "strict"})

# -- agentmsg -> Bedrock ---------------------------------------------------------------------


def to_request(
    messages: Iterable[ChatMessage],
    tools: Iterable[ToolDefinition] = (),
    *,
    tool_choice: str | dict[str, Any] | None = None,
    blobs: Blobs = "bytes",
    **params: Any,
) -> dict[str, Any]:
    """Return the complete Converse request: ``client.converse(**body)`` (or ``converse_stream``).

    >>> to_request([ChatMessage.system("Be brief."), ChatMessage.user("Hi")], modelId="amazon.nova-micro-v1:0",
    ...            inferenceConfig={"maxTokens": 256})
    {'modelId': 'amazon.nova-micro-v1:0', 'inferenceConfig': {'maxTokens': 256}, 'messages': [{'role': 'user', 'content': [{'text': 'Hi'}]}], 'system': [{'text': 'Be brief.'}]}

    ``modelId`` is required; other ``params`` (``inferenceConfig``,
    ``additionalModelRequestFields``, ``guardrailConfig``...) are sent as given, None values left
    out. ``toolConfig`` is built from ``tools`` and ``tool_choice`` (``"auto"``, ``"any"``, or
    a tool's name, or Bedrock's own ``ToolChoice`` object), and left out without tools.
    ``blobs`` says how image bytes travel: ``"bytes"`` for boto3, ``"base64"`` for a JSON body
    (the HTTP API, where ``modelId`` is part of the URL: pop it).
    """
    system, wire = to_messages(messages, blobs=blobs)
    listed = to_tools(tools)
    config: dict[str, Any] | None = None
    if listed:
        config = {"tools": listed}
        if tool_choice is not None:
            config["toolChoice"] = _tool_choice(tool_choice, listed)
    elif tool_choice is not None:
        raise TypeError("to_request() got tool_choice without tools: Bedrock's toolConfig needs at least one tool")
    return request_body({"messages": wire, "system": system, "toolConfig": config}, params, ("modelId",))


def _tool_choice(choice: str | dict[str, Any], tools: list[dict[str, Any]]) -> dict[str, Any]:
    if type(choice) is dict:
        return choice
    if type(choice) is not str:
        raise TypeError("tool_choice takes 'auto', 'any', a tool's name or a ToolChoice dict")
    if choice == "auto" or choice == "any":
        return {choice: {}}
    name = wire_name(choice, "tool_choice", BEDROCK_NAMES)
    if not any(tool.get("toolSpec", {}).get("name") == name for tool in tools):
        raise TypeError("tool_choice names no tool of tools: pass the tool's name, 'auto' or 'any'")
    return {"tool": {"name": name}}


def to_messages(
    messages: Iterable[ChatMessage], *, blobs: Blobs = "bytes"
) -> tuple[list[dict[str, Any]] | None, list[dict[str, Any]]]:
    """Return ``(system, messages)`` for Converse (``system`` is None without one).

    >>> to_messages([ChatMessage.user("Hi")])
    (None, [{'role': 'user', 'content': [{'text': 'Hi'}]}])
    """
    if blobs != "bytes" and blobs != "base64":
        raise TypeError("blobs must be 'bytes' (boto3) or 'base64' (a JSON body)")
    system: list[dict[str, Any]] | None = None
    out: list[dict[str, Any]] = []
    results: list[dict[str, Any]] | None = None  # the user turn that tool results are joining
    raw = blobs == "bytes"
    for i, message in enumerate(checked_messages(messages)):
        if type(message) is not ChatMessage:
            raise not_a_message(message, i)
        role = message.role
        try:
            if role is TOOL:
                if results is None:
                    results = []
                    out.append({"role": "user", "content": results})
                results.append(_tool_result_to(message, raw))
                continue
            if role is USER:
                blocks = _blocks_to(message.content, raw)
                if results is not None:
                    results.extend(blocks)
                else:
                    out.append({"role": "user", "content": blocks})
            elif role is ASSISTANT:
                out.append({"role": "assistant", "content": _assistant_to(message, raw)})
            else:
                if i != 0:
                    raise ValidationError("Bedrock takes one system prompt, before every other message", "", UNSUPPORTED)
                system = _blocks_to(message.content, raw)
        except ValidationError as exc:
            raise exc.prefixed(i) from None
        results = None
    return system, out


def _empty_text() -> ValidationError:
    return ValidationError("Bedrock rejects blank text: send some text or leave the message out", "content", UNSUPPORTED)


def _image_to(source: ImageSource, raw: bool) -> dict[str, Any]:
    data = image_data(source)
    if data is None:
        raise ValidationError(
            "Bedrock takes image bytes, not a URL: download the image and use ImageSource.from_base64",
            "source", UNSUPPORTED,
        )
    media_type, text = data
    if media_type not in IMAGE_MEDIA_TYPES:
        raise ValidationError("Bedrock takes PNG, JPEG, GIF or WebP images", "source.media_type", UNSUPPORTED)
    return {"image": {"format": media_type[6:], "source": {"bytes": decode_base64(text) if raw else text}}}


def _blocks_to(content: Any, raw: bool, may_be_empty: bool = False) -> list[dict[str, Any]]:
    """Return text and image blocks; empty text is left out, empty content refused."""
    if content is None or type(content) is str:
        blocks = [{"text": content}] if content else []
    else:
        blocks = []
        for j, part in enumerate(content):
            if type(part) is TextPart:
                if part.text:
                    blocks.append({"text": part.text})
            else:
                try:
                    blocks.append(_image_to(part.source, raw))
                except ValidationError as exc:
                    raise exc.prefixed(j).prefixed("content") from None
    if not blocks and not may_be_empty:
        raise _empty_text()
    return blocks


def _reasoning_to(message: ChatMessage, raw: bool) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    for k, part in enumerate(message.reasoning):
        if part.provider != PROVIDER:
            continue
        if part.redacted:
            encoded = part.signature or ""
            try:
                decoded = decode_base64(encoded)
            except ValueError:
                raise ValidationError(
                    "must be base64 text: a redacted part's signature is Bedrock's redactedContent bytes",
                    f"reasoning[{k}].signature", "pattern",
                ) from None
            blocks.append({"reasoningContent": {"redactedContent": decoded if raw else encoded}})
        else:
            text: dict[str, Any] = {"text": part.text}
            if part.signature is not None:
                text["signature"] = part.signature
            blocks.append({"reasoningContent": {"reasoningText": text}})
    return blocks


def _check_id(call_id: str | None, path: str) -> str:
    if _TOOL_ID.fullmatch(call_id or "") is None:
        raise ValidationError("Bedrock tool ids must be 1 to 64 letters, digits, '_', '.', ':' or '-'", path, UNSUPPORTED)
    return call_id  # type: ignore[return-value]  # the match above refuses None


def _assistant_to(message: ChatMessage, raw: bool) -> list[dict[str, Any]]:
    blocks = _reasoning_to(message, raw) if message.reasoning else []
    blocks += _blocks_to(message.content, raw, may_be_empty=bool(message.tool_calls or blocks))
    for j, call in enumerate(message.tool_calls):
        call_id = _check_id(call.id, f"tool_calls[{j}].id")
        name = wire_name(call.name, f"tool_calls[{j}].name", BEDROCK_NAMES)
        blocks.append({"toolUse": {"toolUseId": call_id, "name": name, "input": thaw_json(call.arguments)}})
    if not blocks:
        raise _empty_text()
    return blocks


def _tool_result_to(message: ChatMessage, raw: bool) -> dict[str, Any]:
    block: dict[str, Any] = {"toolUseId": _check_id(message.tool_call_id, "tool_call_id")}
    block["content"] = _blocks_to(message.content, raw, may_be_empty=True)
    if message.is_error:
        block["status"] = "error"
    return {"toolResult": block}


def to_tools(definitions: Iterable[ToolDefinition]) -> list[dict[str, Any]]:
    """Return the ``toolConfig.tools`` list: ``{"toolSpec": {"name", "description"?, "inputSchema": {"json"}}}``.

    >>> to_tools([ToolDefinition("now", "Current time.", {"type": "object"})])
    [{'toolSpec': {'name': 'now', 'description': 'Current time.', 'inputSchema': {'json': {'type': 'object'}}}}]
    """
    out: list[dict[str, Any]] = []
    for i, definition in enumerate(checked_tools(definitions)):
        carried = dict(definition.extras.get(PROVIDER) or {})
        cache = carried.pop("cachePoint", None)
        try:
            name = wire_name(definition.name, "name", BEDROCK_NAMES)
            spec = declaration(definition, name, "inputSchema", definition.strict or None, carried)
        except ValidationError as exc:
            raise exc.prefixed("toolSpec").prefixed(i) from None
        spec["inputSchema"] = {"json": spec["inputSchema"]}
        out.append({"toolSpec": spec})
        if cache is not None:
            out.append({"cachePoint": thaw_json(cache)})
    return out


# -- Bedrock -> agentmsg ---------------------------------------------------------------------


def from_messages(items: Any, system: Any = None) -> tuple[ChatMessage, ...]:
    """Return the ``ChatMessage``s of a ``messages`` list, the ``system`` blocks first.

    >>> from_messages([{"role": "user", "content": [
    ...     {"toolResult": {"toolUseId": "t1", "content": [{"json": {"c": 18}}], "status": "error"}},
    ...     {"text": "Thanks"}]}])
    (ChatMessage(role=tool, content=<8 chars>, tool_call_id='t1', is_error=True), ChatMessage(role=user, content=<6 chars>))

    A user turn splits into its tool messages and a user message, in block order. Image bytes
    may be bytes (boto3) or base64 text (JSON).
    """
    out: list[ChatMessage] = []
    if system is not None:
        if type(system) is not list:
            raise expected("an array of system blocks", system, "system")
        try:
            content = _parts_from(system, images=False)
        except ValidationError as exc:
            raise relocate(exc, "system" + exc.path.removeprefix("content")) from None
        if content:
            out.append(ChatMessage(SYSTEM, content))
    map_items(lambda item: _message_from(item, out), expect_items(items, "messages"))
    return tuple(out)


def _message_from(item: Any, out: list[ChatMessage]) -> None:
    """Append the message(s) of one item: a user turn may give several."""
    item = expect_object(item)
    role = item.get("role")
    content = item.get("content")
    if type(content) is not list:
        raise missing("content") if content is None else expected("an array of content blocks", content, "content")
    if role == "user":
        _user_from(content, out)
    elif role == "assistant":
        out.append(assistant_from(content))
    elif role is None:
        raise missing("role")
    else:
        raise ValidationError("expected 'user' or 'assistant'", "role", "value")


def _parts_from(blocks: list[Any], images: bool = True) -> Any:
    """Return the content of text and image blocks: one text reads as a string."""
    parts = [part for part in map_items(lambda b: part_from(b, images), blocks, "content") if part is not None]
    if len(parts) == 1 and type(parts[0]) is TextPart:
        return parts[0].text
    return tuple(parts)


def _user_from(content: list[Any], out: list[ChatMessage]) -> None:
    group: list[Any] = []
    for j, block in enumerate(content):
        try:
            kind, value = block_kind(block)
            if kind == "toolResult":
                if group:
                    out.append(ChatMessage.user(_joined(group)))
                    group = []
                try:
                    out.append(_tool_result_from(value))
                except ValidationError as exc:
                    raise exc.prefixed("toolResult") from None
            else:
                part = part_from(block, images=True)
                if part is not None:
                    group.append(part)
        except ValidationError as exc:
            raise exc.prefixed(j).prefixed("content") from None
    if group:
        out.append(ChatMessage.user(_joined(group)))
    elif not content:
        raise ValidationError("must hold at least one block", "content", "value")


def _joined(parts: list[Any]) -> Any:
    return parts[0].text if len(parts) == 1 and type(parts[0]) is TextPart else tuple(parts)


def _tool_result_from(block: Any) -> ChatMessage:
    block = expect_object(block)
    call_id = get_str(block, "toolUseId")
    status = block.get("status")
    if status is not None and status != "success" and status != "error":
        raise ValidationError("expected 'success' or 'error'", "status", "value")
    content = block.get("content")
    if type(content) is not list:
        raise missing("content") if content is None else expected("an array of content blocks", content, "content")
    parts: list[Any] = []
    for j, item in enumerate(content):
        try:
            kind, value = block_kind(item)
            if kind == "json":
                parts.append(TextPart(dump_arguments(value)))
            else:
                part = part_from(item, images=True)
                if part is not None:
                    parts.append(part)
        except (ValidationError, TypeError, ValueError) as exc:
            if not isinstance(exc, ValidationError):
                exc = ValidationError("expected JSON", "json", "type")
            raise exc.prefixed(j).prefixed("content") from None
    try:
        return ChatMessage.tool(call_id, _joined(parts) if parts else "", status == "error")
    except ValidationError as exc:
        raise rename(exc, {"tool_call_id": "toolUseId"}) from None


def from_tools(items: Any) -> tuple[ToolDefinition, ...]:
    """Return the ``ToolDefinition``s of a ``toolConfig.tools`` list.

    >>> (tool,) = from_tools([{"toolSpec": {"name": "now", "inputSchema": {"json": {"type": "object"}}}},
    ...                       {"cachePoint": {"type": "default"}}])
    >>> tool.name, thaw_json(tool.extras)
    ('now', {'bedrock': {'cachePoint': {'type': 'default'}}})

    As for the other codecs: no ``strict`` means false, a missing or blank description becomes
    the wire name, the name maps to its canonical form. ``toolSpec`` fields agentmsg does not
    model, and a ``cachePoint`` that follows a tool, are kept in ``extras["bedrock"]``.
    ``systemTool`` entries are refused.
    """
    specs: list[tuple[dict[str, Any], dict[str, Any]]] = []  # (toolSpec, carried)
    for i, item in enumerate(expect_items(items, "tools")):
        try:
            kind, value = block_kind(item)
            if kind == "cachePoint" and specs and "cachePoint" not in specs[-1][1]:
                specs[-1][1]["cachePoint"] = value
            elif kind == "toolSpec":
                value = expect_object(value)
                specs.append((value, extras_of(value, _SPEC_KEYS)))
            else:
                raise ValidationError(f"tool type {kind[:40]!r} is not supported here", kind[:40], UNSUPPORTED)
        except ValidationError as exc:
            raise exc.prefixed(i) from None
    return tuple(map_items(_tool_from, specs))


def _tool_from(entry: tuple[dict[str, Any], dict[str, Any]]) -> ToolDefinition:
    spec, carried = entry
    try:
        schema = get_object(spec, "inputSchema")
        if "json" not in schema:
            raise missing("inputSchema.json")
        return function_from(
            {**spec, "parameters": schema["json"]}, BEDROCK_NAMES, False, {PROVIDER: carried} if carried else None
        )
    except ValidationError as exc:
        raise rename(exc, {"parameters": "inputSchema.json"}).prefixed("toolSpec") from None


