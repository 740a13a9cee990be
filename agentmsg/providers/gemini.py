"""Google Gemini (``generateContent`` / ``streamGenerateContent``): the codec.

>>> from . import gemini
>>> signed = ReasoningPart(signature="Es8FCswF", provider="gemini", anchor="call_1")
>>> system, contents = gemini.to_messages([
...     ChatMessage.system("Be brief."),
...     ChatMessage.user("Weather in Paris?"),
...     ChatMessage.assistant(tool_calls=[ToolCall("call_1", "get_weather", {"city": "Paris"})], reasoning=[signed]),
...     ChatMessage.tool("call_1", "18 C"),
... ])
>>> system
{'parts': [{'text': 'Be brief.'}]}
>>> contents[1]
{'role': 'model', 'parts': [{'functionCall': {'id': 'call_1', 'name': 'get_weather', 'args': {'city': 'Paris'}}, 'thoughtSignature': 'Es8FCswF'}]}
>>> contents[2]
{'role': 'user', 'parts': [{'functionResponse': {'id': 'call_1', 'name': 'get_weather', 'response': {'output': '18 C'}}}]}
>>> gemini.from_messages(contents, system)[2] == ChatMessage.assistant(tool_calls=[ToolCall("call_1", "get_weather", {"city": "Paris"})], reasoning=[signed])
True

Roles are ``user`` and ``model``; the system prompt is ``systemInstruction`` (one system
message, first). Consecutive tool messages become the ``functionResponse`` parts of one user
turn. Gemini's reasoning is kept as ``ReasoningPart``s of provider ``gemini``: a
``thought: true`` part is one with text; a ``thoughtSignature`` on a ``functionCall`` part is
one with that signature and the call's id as ``anchor``; a signature on an answer text part
is one with no anchor, and goes back on the first text part. Reasoning from other providers is
not sent. camelCase is written; the snake_case spellings the google-genai SDK sends
(``inline_data``, ``function_call``, ``thought_signature``, ``parameters_json_schema``...) are
read too.

Ids: a ``functionCall`` without ``id`` gets ``call_`` and 24 hex digits of a SHA-256 over its
scope (the response's ``responseId``, or ``contents[i]``), position, name and arguments, so
the same payload always gives the same id; ids are sent back with calls and results (the API
accepts them). A ``functionResponse`` without ``id`` answers the earliest unanswered call of
the same name in the model turn before it. A tool result travels as ``{"output": text}``
(``{"error": text}`` when ``is_error``), or as the object itself when the text is a JSON
object; reading does the reverse. Images travel as ``inlineData`` (base64) or ``fileData`` (an
http(s) URL, its media type guessed from the name); URL-safe base64 is read as standard base64.
"""

from __future__ import annotations

import json
import mimetypes
import re
from collections.abc import Iterable
from typing import Any

from .._checks import expect_object, expected, get_optional_str, get_str, map_items, missing
from .._frozen import freeze_json, thaw_json
from ..content import IMAGE_MEDIA_TYPES, ImagePart, ImageSource, ReasoningPart, TextPart
from ..errors import ValidationError
from ..messages import ChatMessage
from ..roles import MessageRole
from ..tools import ToolCall, ToolDefinition
from ._common import (
    UNSUPPORTED, NameRule, canonical_name, checked_messages, dump_arguments, expect_items, image_data, not_a_message,
    relocate, request_body, wire_name,
)
from ._gemini_response import PROVIDER, StreamParser, get_field, model_from, parse_response, standard_b64
from ._tools import checked_tools, declaration, extras_of, function_from

__all__ = ["to_messages", "from_messages", "to_tools", "from_tools", "to_request", "parse_response", "StreamParser"]

SYSTEM, USER, ASSISTANT, TOOL = MessageRole
# The ``FunctionDeclaration.name`` rule of the API reference (and the google-genai SDK's docstring).
GEMINI_NAMES = NameRule(
    r"[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}",
    "Gemini function names must start with a letter or '_' and hold letters, digits, '_', '.', ':' or '-' (at most 64)",
)


def _wire(name: str, path: str) -> str:
    """Return the wire name of a canonical name (fast when it holds no escape and fits Gemini's rule)."""
    if "_x" not in name and not name[0].isdigit():
        return name  # a canonical name without escapes fits Gemini's rule unless it starts with a digit
    return wire_name(name, path, GEMINI_NAMES)


# -- agentmsg -> Gemini ----------------------------------------------------------------------


def to_request(messages: Iterable[ChatMessage], tools: Iterable[ToolDefinition] = (), **params: Any) -> dict[str, Any]:
    """Return the complete ``generateContent`` request body (the model is in the URL).

    >>> to_request([ChatMessage.system("Be brief."), ChatMessage.user("Hi")],
    ...            generationConfig={"thinkingConfig": {"includeThoughts": True}}, toolConfig=None)
    {'generationConfig': {'thinkingConfig': {'includeThoughts': True}}, 'contents': [{'role': 'user', 'parts': [{'text': 'Hi'}]}], 'systemInstruction': {'parts': [{'text': 'Be brief.'}]}}

    ``params`` (``generationConfig``, ``toolConfig``, ``safetySettings``...) are sent as given,
    None values left out; ``systemInstruction`` and ``tools`` are left out when there are none.
    """
    system, contents = to_messages(messages)
    listed = to_tools(tools)
    if "model" in params:
        raise TypeError("to_request() takes no model=...: Gemini's model is part of the URL")
    return request_body({"contents": contents, "systemInstruction": system, "tools": listed or None}, params, ())


def to_messages(messages: Iterable[ChatMessage]) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """Return ``(systemInstruction, contents)`` (``systemInstruction`` is None without one).

    >>> to_messages([ChatMessage.user("Hi"), ChatMessage.assistant("Hello!")])
    (None, [{'role': 'user', 'parts': [{'text': 'Hi'}]}, {'role': 'model', 'parts': [{'text': 'Hello!'}]}])
    """
    system: dict[str, Any] | None = None
    out: list[dict[str, Any]] = []
    names: dict[str, str] = {}  # tool call id -> name: a functionResponse needs the name
    results: list[dict[str, Any]] | None = None
    for i, message in enumerate(checked_messages(messages)):
        if type(message) is not ChatMessage:
            raise not_a_message(message, i)
        role = message.role
        try:
            if role is TOOL:
                if results is None:
                    results = []
                    out.append({"role": "user", "parts": results})
                results.append(_tool_to(message, names))
                continue
            results = None
            if role is USER:
                out.append({"role": "user", "parts": _parts_to(message.content)})
            elif role is ASSISTANT:
                for call in message.tool_calls:
                    names[call.id] = call.name
                out.append({"role": "model", "parts": _model_to(message)})
            elif i == 0:
                system = {"parts": _parts_to(message.content)}
            else:
                raise ValidationError("Gemini takes one system instruction, before every other message", "", UNSUPPORTED)
        except ValidationError as exc:
            raise exc.prefixed(i) from None
    return system, out


def _image_to(part: ImagePart) -> dict[str, Any]:
    data = image_data(part.source)
    if data is not None:
        return {"inlineData": {"mimeType": data[0], "data": data[1]}}
    url: str = part.source.url  # type: ignore[assignment]  # a url source has a url
    media_type = mimetypes.guess_type(url.split("?", 1)[0].split("#", 1)[0])[0]
    if media_type not in IMAGE_MEDIA_TYPES:
        raise ValidationError(
            "Gemini needs the media type of an image URL and it cannot be told from the name: send base64",
            "source",
            UNSUPPORTED,
        )
    return {"fileData": {"mimeType": media_type, "fileUri": url}}


def _part_to(part: Any) -> dict[str, Any]:
    return {"text": part.text} if type(part) is TextPart else _image_to(part)


def _parts_to(content: Any) -> list[dict[str, Any]]:
    if type(content) is str:
        return [{"text": content}]
    return map_items(_part_to, content, "content")


def _model_to(message: ChatMessage) -> list[dict[str, Any]]:
    thoughts: list[dict[str, Any]] = []
    on_text: str | None = None
    on_call: dict[str, str] = {}
    for part in message.reasoning:
        if part.provider != PROVIDER:
            continue  # another provider's reasoning: not sent (see the module docs)
        if part.text:
            thought: dict[str, Any] = {"text": part.text, "thought": True}
            if part.signature is not None:
                thought["thoughtSignature"] = part.signature
            thoughts.append(thought)
        elif part.signature is not None:
            if part.anchor is not None:
                on_call[part.anchor] = part.signature
            else:
                on_text = part.signature
    parts = thoughts
    content = message.content
    texts = [] if content is None else [content] if type(content) is str else [p.text for p in content]  # type: ignore[union-attr]  # assistant content is text parts
    for text in texts:
        if text or on_text is not None or not message.tool_calls:
            item: dict[str, Any] = {"text": text}
            if on_text is not None:
                item["thoughtSignature"] = on_text
                on_text = None
            parts.append(item)
    for j, call in enumerate(message.tool_calls):
        name = _wire(call.name, f"tool_calls[{j}].name")
        item = {"functionCall": {"id": call.id, "name": name, "args": thaw_json(call.arguments)}}
        signature = on_call.get(call.id)
        if signature is not None:
            item["thoughtSignature"] = signature
        parts.append(item)
    if on_text is not None:  # a signature that came on an empty text part
        parts.append({"text": "", "thoughtSignature": on_text})
    return parts


def _tool_to(message: ChatMessage, names: dict[str, str]) -> dict[str, Any]:
    call_id: str = message.tool_call_id  # type: ignore[assignment]  # a tool message has an id
    name = names.get(call_id)
    if name is None:
        raise ValidationError(
            "Gemini needs the name of the answered function: no earlier tool call has this id",
            "tool_call_id",
            UNSUPPORTED,
        )
    content = message.content
    if type(content) is str:
        text, images = content, []
    else:
        text = "".join(p.text for p in content if type(p) is TextPart)  # type: ignore[union-attr]  # content is a tuple of parts here
        images = [p for p in content if type(p) is ImagePart]  # type: ignore[union-attr]  # content is a tuple of parts here
    response: Any = None
    if not message.is_error and text.startswith("{"):
        try:
            response = json.loads(text)
        except ValueError:
            response = None
        if type(response) is not dict:
            response = None
    if response is None:
        response = {"error" if message.is_error else "output": text}
    result: dict[str, Any] = {"id": call_id, "name": _wire(name, "tool_call_id"), "response": response}
    if images:
        result["parts"] = map_items(_image_to, images, "content")
    return {"functionResponse": result}


def to_tools(definitions: Iterable[ToolDefinition]) -> list[dict[str, Any]]:
    """Return the ``tools`` list: one ``{"functionDeclarations": [...]}`` with every definition.

    >>> to_tools([ToolDefinition("now", "Current time.", {"type": "object", "properties": {}}, strict=False)])
    [{'functionDeclarations': [{'name': 'now', 'description': 'Current time.', 'parametersJsonSchema': {'type': 'object', 'properties': {}}}]}]

    The schema travels as ``parametersJsonSchema`` (full JSON Schema); Gemini has no strict
    mode, so ``strict`` is not sent. No definitions give an empty list.
    """
    declarations = map_items(_declaration_to, checked_tools(definitions))
    return [{"functionDeclarations": declarations}] if declarations else []


def _declaration_to(definition: ToolDefinition) -> dict[str, Any]:
    name = _wire(definition.name, "name")
    return declaration(definition, name, "parametersJsonSchema", None, definition.extras.get(PROVIDER))


# -- Gemini -> agentmsg ----------------------------------------------------------------------


def _image_from(part: dict[str, Any]) -> ImagePart | None:
    inline = get_field(part, "inlineData")
    if inline is not None:
        key = "inlineData" if "inlineData" in part else "inline_data"
        inline = expect_object(inline, key)
        try:
            return ImagePart(ImageSource.from_base64(standard_b64(inline.get("data"), "data"), get_field(inline, "mimeType")))
        except ValidationError as exc:
            raise exc.prefixed(key) from None
    data = get_field(part, "fileData")
    if data is not None:
        key = "fileData" if "fileData" in part else "file_data"
        data = expect_object(data, key)
        media_type = get_field(data, "mimeType")
        if media_type not in IMAGE_MEDIA_TYPES:
            raise ValidationError("only image files are supported", f"{key}.mimeType", UNSUPPORTED)
        try:
            return ImagePart(ImageSource.from_url(get_field(data, "fileUri")))
        except ValidationError as exc:
            raise relocate(exc, f"{key}.fileUri") from None
    return None


def _user_part_from(part: Any) -> TextPart | ImagePart:
    part = expect_object(part)
    text = part.get("text")
    if text is not None:
        if type(text) is not str:
            raise expected("a string", text, "text")
        return TextPart(text)
    image = _image_from(part)
    if image is None:
        raise ValidationError("this kind of part is not supported here (text or an image)", "", UNSUPPORTED)
    return image


def _user_parts_from(parts: Any, path: str = "parts") -> tuple[Any, ...]:
    if type(parts) is not list:
        raise expected("an array of parts", parts, path) if parts is not None else missing(path)
    out: list[Any] = []
    for j, part in enumerate(parts):
        try:
            out.append(_user_part_from(part))
        except ValidationError as exc:
            raise exc.prefixed(j).prefixed(path) from None
    return tuple(out)


def _content_of(parts: tuple[Any, ...]) -> Any:
    if len(parts) == 1 and type(parts[0]) is TextPart:
        return parts[0].text
    return parts


def _result_from(part: dict[str, Any], key: str, pending: list[ToolCall]) -> ChatMessage:
    result = part[key]
    if type(result) is dict and "parts" not in result:  # the common case: an id and a text output
        call_id, response = result.get("id"), result.get("response")
        if type(call_id) is str and call_id and type(response) is dict and len(response) == 1 and type(result.get("name")) is str:
            output = response.get("output")
            if type(output) is str:
                for k, call in enumerate(pending):
                    if call.id == call_id:
                        del pending[k]
                        break
                return ChatMessage.tool(call_id, output)
    result = expect_object(result, key)
    try:
        raw = result.get("name")
        name = canonical_name(raw, "name") if raw is not None else get_str(result, "name")
        call_id = get_optional_str(result, "id")
        for k, call in enumerate(pending):
            if (call_id is not None and call.id == call_id) or (call_id is None and call.name == name):
                del pending[k]
                if call_id is None:
                    call_id = call.id
                break
        if call_id is None:
            raise ValidationError("answers no call of the model turn before it (and has no id)", "name", "value")
        response = result.get("response")
        if response is None:
            response = {}
        response = expect_object(response, "response")
        is_error = False
        if len(response) == 1 and type(response.get("output")) is str:
            text = response["output"]
        elif len(response) == 1 and type(response.get("error")) is str:
            text, is_error = response["error"], True
        else:
            text = dump_arguments(freeze_json(response, "response"))
        content: Any = text
        images = result.get("parts")
        if images is not None:
            extra = _user_parts_from(images)
            if extra:
                content = (TextPart(text), *extra)
        return ChatMessage.tool(call_id, content, is_error)
    except ValidationError as exc:
        raise exc.prefixed(key) from None


def from_messages(contents: Any, system_instruction: Any = None) -> tuple[ChatMessage, ...]:
    """Return the ``ChatMessage``s of a ``contents`` list, the ``systemInstruction`` first.

    >>> from_messages([{"role": "user", "parts": [{"text": "Hi"}]},
    ...     {"role": "model", "parts": [{"functionCall": {"name": "now", "args": {}}}]},
    ...     {"role": "user", "parts": [{"functionResponse": {"name": "now", "response": {"output": "noon"}}}]}])
    (ChatMessage(role=user, content=<2 chars>), ChatMessage(role=assistant, tool_calls=[call_7fd2b96641bc4494b2bb6d8f:now]), ChatMessage(role=tool, content=<4 chars>, tool_call_id='call_7fd2b96641bc4494b2bb6d8f'))

    A user turn splits into its tool messages and a user message, in part order.
    """
    out: list[ChatMessage] = []
    if system_instruction is not None:
        system = expect_object(system_instruction, "systemInstruction")
        try:
            parts = _user_parts_from(system.get("parts"))
            if any(type(p) is not TextPart for p in parts):
                raise ValidationError("a system instruction holds text only", "parts", UNSUPPORTED)
        except ValidationError as exc:
            raise exc.prefixed("systemInstruction") from None
        if len(parts) > 1:  # several text parts stay parts; one (or none) reads as a string
            out.append(ChatMessage(SYSTEM, tuple(parts)))
        else:
            out.append(ChatMessage.system(parts[0].text if parts else ""))
    pending: list[ToolCall] = []
    for i, content in enumerate(expect_items(contents, "contents")):
        try:
            content = expect_object(content)
            role = content.get("role")
            if role == "model":
                message = model_from(content.get("parts"), i)  # scope contents[i], formatted if an id is made
                pending = list(message.tool_calls)
                out.append(message)
            elif role == "user" or role is None:
                _user_from(content.get("parts"), pending, out)
            else:
                raise ValidationError("expected 'user' or 'model'", "role", "value")
        except ValidationError as exc:
            raise exc.prefixed(i) from None
    return tuple(out)


def _user_from(parts: Any, pending: list[ToolCall], out: list[ChatMessage]) -> None:
    if type(parts) is not list:
        raise expected("an array of parts", parts, "parts") if parts is not None else missing("parts")
    if len(parts) == 1:  # the common case: one text part
        only = parts[0]
        if type(only) is dict and len(only) == 1 and type(only.get("text")) is str:
            out.append(ChatMessage.user(only["text"]))
            return
    group: list[Any] = []
    for j, part in enumerate(parts):
        try:
            if type(part) is not dict:
                part = expect_object(part)
            key = "functionResponse" if "functionResponse" in part else "function_response"
            if key in part:
                if group:
                    out.append(ChatMessage.user(_content_of(tuple(group))))
                    group = []
                out.append(_result_from(part, key, pending))
            else:
                group.append(_user_part_from(part))
        except ValidationError as exc:
            raise exc.prefixed(j).prefixed("parts") from None
    if group:
        out.append(ChatMessage.user(_content_of(tuple(group))))
    elif not parts:
        raise ValidationError("must hold at least one part", "parts", "value")


def _lower_types(schema: Any) -> Any:
    """Return an OpenAPI-subset schema (``"type": "OBJECT"``) with JSON Schema's lowercase types."""
    if type(schema) is dict:
        out: dict[str, Any] = {}
        for key, value in schema.items():
            if key == "type" and type(value) is str:
                out[key] = value.lower()
            elif key == "properties" and type(value) is dict:
                out[key] = {name: _lower_types(sub) for name, sub in value.items()}
            elif key in ("items", "anyOf", "oneOf", "allOf", "not", "additionalProperties"):
                out[key] = _lower_types(value)
            else:
                out[key] = value
        return out
    if type(schema) is list:
        return [_lower_types(item) for item in schema]
    return schema


def from_tools(items: Any) -> tuple[ToolDefinition, ...]:
    """Return the ``ToolDefinition``s of a ``tools`` list (its ``functionDeclarations``).

    >>> from_tools([{"functionDeclarations": [{"name": "now", "parameters": {"type": "OBJECT", "properties": {}}}]}])
    (ToolDefinition(name='now', description=<3 chars>, strict=False),)

    ``parametersJsonSchema`` is taken as it is; ``parameters`` (Gemini's OpenAPI subset) has
    its upper-case types lowered. Definitions are not strict (Gemini has no strict mode); a
    missing or blank description becomes the name. Declaration fields agentmsg does not model
    (``behavior``...) are kept, camelCase, in ``extras["gemini"]`` and sent again by ``to_tools``.
    Other tools (code execution, search...) are refused.
    """
    out = []
    for i, tool in enumerate(expect_items(items, "tools")):
        try:
            tool = expect_object(tool)
            key = "functionDeclarations" if "functionDeclarations" in tool else "function_declarations"
            declarations = tool.get(key)
            if declarations is None:
                raise ValidationError("only function declarations are supported", "", UNSUPPORTED)
            for j, fn in enumerate(expect_items(declarations, key) if type(declarations) is list else [declarations]):
                try:
                    fn = expect_object(fn)
                    schema = get_field(fn, "parametersJsonSchema")
                    if schema is None and fn.get("parameters") is not None:
                        try:
                            schema = _lower_types(fn["parameters"])
                        except RecursionError:
                            raise ValidationError("nested too deeply", "parameters", "depth") from None
                    fields = {"name": fn.get("name"), "description": fn.get("description"), "parameters": schema}
                    carried = {_camel(key): value for key, value in extras_of(fn, _DECLARATION_KEYS).items()}
                    out.append(function_from(fields, GEMINI_NAMES, True, {"gemini": carried} if carried else None))
                except ValidationError as exc:
                    raise exc.prefixed(j).prefixed(key) from None
        except ValidationError as exc:
            raise exc.prefixed(i) from None
    return tuple(out)


_DECLARATION_KEYS = frozenset(
    {"name", "description", "parameters", "parametersJsonSchema", "parameters_json_schema"}
)
_SNAKE_PART = re.compile(r"_([a-z0-9])")


def _camel(key: str) -> str:
    return _SNAKE_PART.sub(lambda match: match.group(1).upper(), key)
