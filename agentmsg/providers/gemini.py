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

from .._checks import expect_object, expected, get_optional_str, get_str, missing
from .._frozen import FrozenDict, freeze_json, thaw_json
from .._images import split_data_url
from ..content import IMAGE_MEDIA_TYPES, ImagePart, ImageSource, ReasoningPart, TextPart, reasoning_part
from ..errors import ValidationError
from ..messages import ChatMessage
from ..roles import MessageRole
from ..streaming import ReasoningAccumulator, ReasoningDelta, ToolCallDelta
from ..tools import ToolCall, ToolDefinition
from . import Response
from ._common import (
    UNSUPPORTED,
    NameRule,
    assistant,
    canonical_name,
    checked_messages,
    checked_tools,
    dump_arguments,
    emit_extras,
    expect_items,
    extras_of,
    freeze_usage,
    function_from,
    RawEvents,
    generated_id,
    incomplete,
    make_call,
    not_a_message,
    payload,
    refuse_file,
    relocate,
    request_body,
    wire_name,
)

__all__ = ["to_messages", "from_messages", "to_tools", "from_tools", "to_request", "parse_response", "StreamParser"]

SYSTEM, USER, ASSISTANT, TOOL = MessageRole
PROVIDER = "gemini"
_CALL_FIELDS = ("functionCall.id", "functionCall.name", "functionCall.args")
_SNAKE = re.compile(r"(?<=[a-z])([A-Z])")
# The ``FunctionDeclaration.name`` rule of the API reference (and the google-genai SDK's docstring).
GEMINI_NAMES = NameRule(
    r"[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}",
    "Gemini function names must start with a letter or '_' and hold letters, digits, '_', '.', ':' or '-' (at most 64)",
)


_SNAKE_NAMES: dict[str, str] = {}  # camelCase field name -> its snake_case spelling


def _get(data: dict[str, Any], key: str) -> Any:
    """Return ``data[key]`` in camelCase, or in the snake_case spelling the SDK sends."""
    value = data.get(key)
    if value is None:
        snake = _SNAKE_NAMES.get(key)
        if snake is None:
            snake = _SNAKE_NAMES[key] = _SNAKE.sub(r"_\1", key).lower()
        value = data.get(snake)
    return value


def _wire(name: str, path: str) -> str:
    """Return the wire name of a canonical name (fast when it holds no escape and fits Gemini's rule)."""
    if "_x" not in name and not name[0].isdigit():
        return name  # a canonical name without escapes fits Gemini's rule unless it starts with a digit
    return wire_name(name, path, GEMINI_NAMES)


def provider_error(error: object, path: str) -> ValidationError:
    """Return the error for a body that reports an API error: it names the status, never the message."""
    kind = None
    if isinstance(error, dict):
        kind = error.get("status") or error.get("code")
    label = str(kind) if type(kind) in (str, int) and 0 < len(str(kind)) <= 64 else "error"
    return ValidationError(f"Gemini reported an error ({label})", path, "provider")


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
                part = _tool_to(message, names)
                if results is None:
                    results = [part]
                    out.append({"role": "user", "parts": results})
                else:
                    results.append(part)
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


def _image_to(source: ImageSource) -> dict[str, Any]:
    if source.type == "base64":
        return {"inlineData": {"mimeType": source.media_type, "data": source.data}}
    if source.type == "url":
        url: str = source.url  # type: ignore[assignment]  # a url source has a url
        parts = split_data_url(url)
        if parts is not None:
            return {"inlineData": {"mimeType": parts[0], "data": parts[1]}}
        media_type = mimetypes.guess_type(url.split("?", 1)[0].split("#", 1)[0])[0]
        if media_type not in IMAGE_MEDIA_TYPES:
            raise ValidationError(
                "Gemini needs the media type of an image URL and it cannot be told from the name: send base64",
                "source",
                UNSUPPORTED,
            )
        return {"fileData": {"mimeType": media_type, "fileUri": url}}
    raise refuse_file()


def _parts_to(content: Any) -> list[dict[str, Any]]:
    if type(content) is str:
        return [{"text": content}]
    out = []
    for j, part in enumerate(content):
        if type(part) is TextPart:
            out.append({"text": part.text})
        else:
            try:
                out.append(_image_to(part.source))
            except ValidationError as exc:
                raise exc.prefixed(j).prefixed("content") from None
    return out


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
        parts = []
        for j, image in enumerate(images):
            try:
                parts.append(_image_to(image.source))
            except ValidationError as exc:
                raise exc.prefixed(j).prefixed("content") from None
        result["parts"] = parts
    return {"functionResponse": result}


def to_tools(definitions: Iterable[ToolDefinition]) -> list[dict[str, Any]]:
    """Return the ``tools`` list: one ``{"functionDeclarations": [...]}`` with every definition.

    >>> to_tools([ToolDefinition("now", "Current time.", {"type": "object", "properties": {}}, strict=False)])
    [{'functionDeclarations': [{'name': 'now', 'description': 'Current time.', 'parametersJsonSchema': {'type': 'object', 'properties': {}}}]}]

    The schema travels as ``parametersJsonSchema`` (full JSON Schema); Gemini has no strict
    mode, so ``strict`` is not sent. No definitions give an empty list.
    """
    declarations = []
    for i, definition in enumerate(checked_tools(definitions)):
        name = _wire(definition.name, f"[{i}].name")
        fn: dict[str, Any] = {"name": name}
        if definition.description != name:
            fn["description"] = definition.description
        fn["parametersJsonSchema"] = thaw_json(definition.parameters)
        carried = definition.extras.get("gemini")
        if carried:
            emit_extras(fn, carried, f"[{i}].extras")
        declarations.append(fn)
    return [{"functionDeclarations": declarations}] if declarations else []


# -- Gemini -> agentmsg ----------------------------------------------------------------------


def _b64(data: object, path: str) -> str:
    if type(data) is not str:
        raise expected("a string", data, path) if data is not None else missing(path)
    return data.replace("-", "+").replace("_", "/")


def _signature(part: dict[str, Any]) -> str | None:
    """Return the part's ``thoughtSignature`` in standard base64 (google-genai writes it URL-safe)."""
    signature = _get(part, "thoughtSignature")
    return None if signature is None else _b64(signature, "thoughtSignature")


def _image_from(part: dict[str, Any]) -> ImagePart | None:
    inline = _get(part, "inlineData")
    if inline is not None:
        key = "inlineData" if "inlineData" in part else "inline_data"
        inline = expect_object(inline, key)
        try:
            return ImagePart(ImageSource.from_base64(_b64(inline.get("data"), "data"), _get(inline, "mimeType")))
        except ValidationError as exc:
            raise exc.prefixed(key) from None
    data = _get(part, "fileData")
    if data is not None:
        key = "fileData" if "fileData" in part else "file_data"
        data = expect_object(data, key)
        media_type = _get(data, "mimeType")
        if media_type not in IMAGE_MEDIA_TYPES:
            raise ValidationError("only image files are supported", f"{key}.mimeType", UNSUPPORTED)
        try:
            return ImagePart(ImageSource.from_url(_get(data, "fileUri")))
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


class _Model:
    """The assistant message being read from a model content's parts."""

    __slots__ = ("texts", "calls", "reasoning", "scope")

    def __init__(self, scope: str | int) -> None:
        self.texts: list[str] = []
        self.calls: list[ToolCall] = []
        self.reasoning: list[ReasoningPart] = []
        self.scope = scope

    def add(self, part: Any) -> None:
        if type(part) is not dict:
            part = expect_object(part)
        text = part.get("text")
        if len(part) == 1:  # the common cases: plain answer text, a call without signature
            if type(text) is str:
                self.texts.append(text)
                return
            call = part.get("functionCall")
            if call is not None:
                self._call(call, None)
                return
        signature = _signature(part)
        call = _get(part, "functionCall")
        if call is not None:
            self._call(call, signature)
            return
        if text is not None:
            if type(text) is not str:
                raise expected("a string", text, "text")
            if part.get("thought") is True:
                if text or signature:
                    self.reasoning.append(reasoning_part(text, signature or None, False, PROVIDER))
                return
            self.texts.append(text)
            if signature:
                self.reasoning.append(reasoning_part("", signature, False, PROVIDER))
            return
        if signature and len(part) == 1:  # a bare signature part
            self.reasoning.append(reasoning_part("", signature, False, PROVIDER))
            return
        raise ValidationError("this kind of part is not supported here (text, a thought or a function call)", "", UNSUPPORTED)

    def _call(self, call: Any, signature: str | None) -> None:
        call = expect_object(call, "functionCall")
        args = call.get("args")
        name = call.get("name")
        if name is None:
            raise missing("functionCall.name")
        call_id = call.get("id")
        if call_id is None and type(name) is str:
            frozen = freeze_json(args if args is not None else {}, "functionCall.args")
            scope = self.scope if type(self.scope) is str else f"contents[{self.scope}]"
            call_id = generated_id(scope, len(self.calls), name, frozen)
        made = make_call(call_id, name, args, _CALL_FIELDS)
        self.calls.append(made)
        if signature:
            self.reasoning.append(reasoning_part("", signature, False, PROVIDER, None, made.id))

    def message(self) -> ChatMessage:
        texts = [t for t in self.texts if t]
        content: Any = None if not texts else texts[0] if len(texts) == 1 else tuple(TextPart(t) for t in texts)
        message = assistant(content, tuple(self.calls))
        if self.reasoning:
            message = ChatMessage(ASSISTANT, message.content, message.tool_calls, reasoning=tuple(self.reasoning))
        return message


def _model_from(parts: Any, scope: str | int) -> ChatMessage:
    if parts is None:
        parts = []
    if type(parts) is not list:
        raise expected("an array of parts", parts, "parts")
    model = _Model(scope)
    for j, part in enumerate(parts):
        try:
            model.add(part)
        except ValidationError as exc:
            raise exc.prefixed(j).prefixed("parts") from None
    try:
        return model.message()
    except ValidationError as exc:  # duplicate call ids
        raise relocate(exc, "parts") from None


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
                message = _model_from(content.get("parts"), i)  # scope contents[i], formatted if an id is made
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
                    schema = _get(fn, "parametersJsonSchema")
                    if schema is None and fn.get("parameters") is not None:
                        schema = _lower_types(fn["parameters"])
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


def _candidate(body: dict[str, Any]) -> dict[str, Any] | None:
    candidates = body.get("candidates")
    if candidates is None or candidates == []:
        return None
    if type(candidates) is not list:
        raise expected("an array", candidates, "candidates")
    if len(candidates) > 1:
        raise ValidationError("several candidates (candidateCount > 1) are not supported: request one", "candidates", UNSUPPORTED)
    return expect_object(candidates[0], "candidates[0]")


def _finish_reason(body: dict[str, Any], candidate: dict[str, Any] | None) -> str | None:
    if candidate is not None:
        reason = _get(candidate, "finishReason")
        if reason is not None:
            if type(reason) is not str:
                raise expected("a string", reason, "candidates[0].finishReason")
            return reason
    feedback = _get(body, "promptFeedback")
    if type(feedback) is dict and type(_get(feedback, "blockReason")) is str:
        return str(_get(feedback, "blockReason"))
    return None


def parse_response(body: Any) -> Response:
    """Return the ``Response`` of a ``GenerateContentResponse`` body.

    >>> r = parse_response({"candidates": [{"content": {"role": "model", "parts": [{"text": "Hi!"}]},
    ...     "finishReason": "STOP"}], "usageMetadata": {"promptTokenCount": 5, "totalTokenCount": 7}})
    >>> r.message.content, r.finish_reason, r.usage["totalTokenCount"]
    ('Hi!', 'STOP', 7)

    ``finish_reason`` is Gemini's own (``STOP``, ``MAX_TOKENS``, ``SAFETY``...), or the
    ``promptFeedback.blockReason`` of a blocked prompt; a blocked or empty answer is an assistant
    message with empty text. An error body (``{"error": {...}}``) raises ``ValidationError``
    with code ``provider`` naming its ``status``. ``body`` may also be google-genai's
    ``GenerateContentResponse`` (anything with ``model_dump()``).
    """
    body = expect_object(payload(body))
    if body.get("error") is not None:
        raise provider_error(body["error"], "error")
    candidate = _candidate(body)
    if candidate is None and _get(body, "promptFeedback") is None:
        raise missing("candidates")
    message = ChatMessage.assistant("")
    if candidate is not None:
        content = candidate.get("content")
        if content is not None:
            content = expect_object(content, "candidates[0].content")
            scope = body.get("responseId") if type(body.get("responseId")) is str else "response"
            try:
                message = _model_from(content.get("parts"), scope)
            except ValidationError as exc:
                raise exc.prefixed("content").prefixed(0).prefixed("candidates") from None
    usage = _get(body, "usageMetadata")
    return Response(message, _finish_reason(body, candidate), freeze_usage(usage, "usageMetadata"))


_PATH_STEP = re.compile(r"\.([A-Za-z_$][\w$-]*)|\[(\d+)\]|\['([^']*)'\]|\[\"([^\"]*)\"\]")


class _StreamedCall:
    __slots__ = ("id", "name", "args", "open_string")

    def __init__(self, call_id: str | None, name: str, args: Any) -> None:
        self.id = call_id
        self.name = name
        self.args: dict[str, Any] = {} if args is None else dict(thaw_json(freeze_json(args, "functionCall.args")))
        self.open_string: str | None = None  # the jsonPath whose string value continues

    def add_partial(self, partial: Any) -> None:
        partial = expect_object(partial)
        path = get_str(partial, "jsonPath")
        if "stringValue" in partial or "string_value" in partial:
            value: Any = get_str(partial, "stringValue" if "stringValue" in partial else "string_value")
            if self.open_string == path:
                value = self._lookup(path) + value
        elif _get(partial, "numberValue") is not None:
            value = _get(partial, "numberValue")
        elif _get(partial, "boolValue") is not None:
            value = _get(partial, "boolValue")
        elif "nullValue" in partial or "null_value" in partial:
            value = None
        else:
            raise ValidationError("a partial argument needs a value", "", "missing")
        self._store(path, value)
        self.open_string = path if _get(partial, "willContinue") is True and type(value) is str else None

    def _steps(self, path: str) -> list[str | int]:
        if not path.startswith("$"):
            raise ValidationError("must be a JSON path starting with $", "jsonPath", "pattern")
        steps: list[str | int] = []
        k = 1
        while k < len(path):
            match = _PATH_STEP.match(path, k)
            if match is None:
                raise ValidationError("must be a JSON path of keys and indexes", "jsonPath", "pattern")
            key, index, quoted, dquoted = match.groups()
            steps.append(int(index) if index is not None else key if key is not None else quoted if quoted is not None else dquoted)
            k = match.end()
        if not steps:
            raise ValidationError("must name a key of the arguments", "jsonPath", "pattern")
        return steps

    def _lookup(self, path: str) -> str:
        node: Any = self.args
        for step in self._steps(path):
            node = node[step]
        return node if type(node) is str else ""

    def _store(self, path: str, value: Any) -> None:
        steps = self._steps(path)
        node: Any = self.args
        for step, nxt in zip(steps, steps[1:]):
            fresh: Any = [] if type(nxt) is int else {}
            if type(step) is int:
                if type(node) is not list:
                    raise ValidationError("an index into something that is not an array", "jsonPath", "value")
                while len(node) <= step:
                    node.append(None)
                if node[step] is None:
                    node[step] = fresh
                node = node[step]
            else:
                if type(node) is not dict:
                    raise ValidationError("a key into something that is not an object", "jsonPath", "value")
                node = node.setdefault(step, fresh)
        last = steps[-1]
        if type(last) is int:
            if type(node) is not list:
                raise ValidationError("an index into something that is not an array", "jsonPath", "value")
            while len(node) <= last:
                node.append(None)
            node[last] = value
        else:
            if type(node) is not dict:
                raise ValidationError("a key into something that is not an object", "jsonPath", "value")
            node[last] = value


class StreamParser:
    r"""Read ``streamGenerateContent`` chunks one by one; ``finish`` gives the whole ``Response``.

    >>> parser = StreamParser()
    >>> chunks = [
    ...     {"candidates": [{"content": {"role": "model", "parts": [{"text": "Weighing it", "thought": True}]}}]},
    ...     {"candidates": [{"content": {"role": "model", "parts": [{"text": "Hel", "thoughtSignature": "EqoB"}]}}]},
    ...     {"candidates": [{"content": {"role": "model", "parts": [{"text": "lo"}]}, "finishReason": "STOP"}],
    ...      "usageMetadata": {"totalTokenCount": 9}}]
    >>> [parser.feed(chunk) for chunk in chunks]
    [(ReasoningDelta(index=0, text=<11 chars>),), ('Hel',), ('lo',)]
    >>> r = parser.finish()
    >>> r.message.content, [(p.text, p.signature) for p in r.message.reasoning], r.finish_reason
    ('Hello', [('Weighing it', None), ('', 'EqoB')], 'STOP')

    Each chunk is a ``GenerateContentResponse`` (the SSE ``data:`` payload). ``feed`` returns
    text deltas (strings), ``ReasoningDelta``s (thought text; consecutive thought parts join
    into one ``ReasoningPart``) and ``ToolCallDelta``s. A call whose arguments stream
    (``willContinue`` and ``partialArgs``, on Vertex AI) gives a ``ToolCallDelta`` with its
    name when it starts and one with all its arguments when it ends. An error chunk raises
    ``ValidationError`` with code ``provider``.

    ``feed`` also takes google-genai's ``GenerateContentResponse`` objects (anything with
    ``model_dump()``); ``feed_raw`` takes the Server-Sent Events of
    ``streamGenerateContent?alt=sse`` (what google-genai asks for) as bytes or text, cut anywhere:

    >>> raw = StreamParser()
    >>> raw.feed_raw(b'data: {"candidates": [{"content": {"role": "model", "parts": [{"text": "Gr\xc3')
    ()
    >>> raw.feed_raw(b'\xbc\xc3\x9fe"}]}, "finishReason": "STOP"}]}\r\n\r\n')
    ('Grüße',)
    >>> raw.finish().message.content
    'Grüße'

    ``finish`` on a stream whose chunks never gave a ``finishReason`` (nor a
    ``promptFeedback.blockReason``) raises ``ValidationError`` with code ``incomplete``:

    >>> try:
    ...     StreamParser().finish()
    ... except ValidationError as exc:
    ...     print(exc.code, "-", exc)
    incomplete - the stream is incomplete: it ended before a chunk with a finishReason (cut off, or nothing was fed)
    """

    __slots__ = (
        "_texts", "_reasoning", "_thinking", "_calls", "_open", "_signatures", "_scope", "_finish_reason", "_usage", "_raw"
    )

    def __init__(self) -> None:
        self._texts: list[str] = []
        self._reasoning = ReasoningAccumulator()
        self._thinking: int | None = None  # the reasoning part thought text is joining
        self._calls: list[_StreamedCall] = []
        self._open: _StreamedCall | None = None  # a call whose arguments are still streaming
        self._signatures: dict[int, int] = {}  # reasoning part index -> the call its signature is on
        self._scope = "stream"
        self._finish_reason: str | None = None
        self._usage: Any = None
        self._raw: RawEvents | None = None

    def feed_raw(self, data: bytes | str) -> tuple[str | ReasoningDelta | ToolCallDelta, ...]:
        """Take the next piece of the raw SSE stream; return what the chunks it completed carried."""
        if self._raw is None:
            self._raw = RawEvents(sse=True)
        return tuple(item for chunk in self._raw.feed(data) for item in self.feed(chunk))

    def feed(self, chunk: Any) -> tuple[str | ReasoningDelta | ToolCallDelta, ...]:
        """Take one chunk and return what it carried."""
        chunk = expect_object(payload(chunk))
        if chunk.get("error") is not None:
            raise provider_error(chunk["error"], "error")
        if not self._calls and not self._texts and type(chunk.get("responseId")) is str:
            self._scope = chunk["responseId"]
        usage = _get(chunk, "usageMetadata")
        if usage is not None:
            self._usage = freeze_usage(usage, "usageMetadata")
        candidate = _candidate(chunk)
        reason = _finish_reason(chunk, candidate)
        if reason is not None:
            self._finish_reason = reason
        if candidate is None or candidate.get("content") is None:
            return ()
        content = expect_object(candidate["content"], "candidates[0].content")
        parts = content.get("parts") or []
        if type(parts) is not list:
            raise expected("an array of parts", parts, "candidates[0].content.parts")
        out: list[str | ReasoningDelta | ToolCallDelta] = []
        for j, part in enumerate(parts):
            try:
                self._part(expect_object(part), out)
            except ValidationError as exc:
                raise exc.prefixed(j).prefixed("parts").prefixed("content").prefixed(0).prefixed("candidates") from None
        return tuple(out)

    def _signed(self, signature: str) -> int:
        index = len(self._reasoning)
        self._reasoning.annotate(index, provider=PROVIDER, signature=signature)
        return index

    def _part(self, part: dict[str, Any], out: list[str | ReasoningDelta | ToolCallDelta]) -> None:
        signature = _signature(part)
        call = _get(part, "functionCall")
        if call is not None:
            self._thinking = None
            self._call(expect_object(call, "functionCall"), signature or None, out)
            return
        text = part.get("text")
        if text is None:
            if signature and len(part) == 1:
                self._thinking = None
                self._signed(signature)
                return
            raise ValidationError("this kind of part is not supported here (text, a thought or a function call)", "", UNSUPPORTED)
        if type(text) is not str:
            raise expected("a string", text, "text")
        if part.get("thought") is True:
            if self._thinking is None:
                self._thinking = len(self._reasoning)
                self._reasoning.annotate(self._thinking, provider=PROVIDER)
            delta = ReasoningDelta(self._thinking, text, signature or None)
            self._reasoning.add(delta)
            if text:
                out.append(ReasoningDelta(self._thinking, text))
            return
        self._thinking = None
        if text:
            self._texts.append(text)
            out.append(text)
        if signature:
            self._signed(signature)

    def _call(self, call: dict[str, Any], signature: str | None, out: list[str | ReasoningDelta | ToolCallDelta]) -> None:
        name = call.get("name")
        partial = _get(call, "partialArgs")
        if name is not None:  # a new call
            self._close(out)
            name = canonical_name(name, "functionCall.name")
            streamed = _StreamedCall(get_optional_str(call, "id"), name, call.get("args"))
            ordinal = len(self._calls)
            self._calls.append(streamed)
            if signature is not None:
                self._signatures[self._signed(signature)] = ordinal  # anchored once the call's id is known
            if _get(call, "willContinue") is True:
                self._open = streamed
                out.append(ToolCallDelta(ordinal, streamed.id, name, None))
                if partial is not None:
                    self._partials(partial, out)
            else:
                self._finish_call(ordinal, out, announced=False)
            return
        if partial is not None:
            self._partials(partial, out)
            if _get(call, "willContinue") is not True:
                self._close(out)
            return
        self._close(out)  # ``functionCall: {}`` ends the streaming call

    def _partials(self, partial: Any, out: list[str | ReasoningDelta | ToolCallDelta]) -> None:
        if self._open is None:
            raise ValidationError("partial arguments arrived for no streaming call", "functionCall.partialArgs", "value")
        if type(partial) is not list:
            raise expected("an array", partial, "functionCall.partialArgs")
        for k, item in enumerate(partial):
            try:
                self._open.add_partial(item)
            except ValidationError as exc:
                raise exc.prefixed(k).prefixed("functionCall.partialArgs") from None

    def _close(self, out: list[str | ReasoningDelta | ToolCallDelta]) -> None:
        if self._open is not None:
            ordinal = self._calls.index(self._open)
            self._open = None
            self._finish_call(ordinal, out, announced=True)

    def _finish_call(self, ordinal: int, out: list[str | ReasoningDelta | ToolCallDelta], announced: bool) -> None:
        """Give the call its id (made if Gemini sent none) and return its arguments as one delta."""
        streamed = self._calls[ordinal]
        arguments = freeze_json(streamed.args, "functionCall.args")
        given = streamed.id
        if streamed.id is None:
            streamed.id = generated_id(self._scope, ordinal, streamed.name, arguments)
        out.append(ToolCallDelta(
            ordinal,
            streamed.id if not announced or given is None else None,
            None if announced else streamed.name,
            dump_arguments(arguments),
        ))

    def finish(self) -> Response:
        """Return the ``Response`` of the whole stream."""
        if self._raw is not None:
            for chunk in self._raw.close():
                self.feed(chunk)
        if self._finish_reason is None:
            raise incomplete("a chunk with a finishReason")
        self._close([])
        calls = []
        for k, streamed in enumerate(self._calls):
            try:
                calls.append(ToolCall(streamed.id, streamed.name, freeze_json(streamed.args, "args")))  # type: ignore[arg-type]  # the id is set when the call ends
            except ValidationError as exc:
                raise exc.prefixed(k).prefixed("tool_calls") from None
        for index, ordinal in self._signatures.items():
            self._reasoning.annotate(index, anchor=calls[ordinal].id)
        reasoning = self._reasoning.finish()
        message = assistant("".join(self._texts) or None, tuple(calls))
        if reasoning:
            message = ChatMessage(ASSISTANT, message.content, message.tool_calls, reasoning=reasoning)
        return Response(message, self._finish_reason, self._usage)
