"""What each provider's API refuses in a request, stated as strictly as the API states it.

>>> [str(e) for e in openai_request({"model": "gpt-4o", "messages": [{"role": "assistant",
...     "tool_calls": [{"id": "c1", "function": {"name": "f", "arguments": {"a": 1}}}]}]})]
['messages[0].tool_calls[0].type: is required (OpenAI: "type": "function")', 'messages[0].tool_calls[0].function.arguments: expected a JSON string, got object (OpenAI: arguments are JSON text)']

The provider codecs read leniently: they take what providers send, vLLM's and older servers'
variants included. These checks are the other side: each returns the list of problems the
provider's API would answer 400 for, each with its path and the provider's rule, and the
validator runs them before the lenient parse. Where the published API reference and the
official SDK types disagree, the rule is what the API accepts (noted at the rule).
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from .._checks import type_name
from ..errors import ValidationError
from ..roles import ROLE_NAMES

__all__ = ["openai_request", "openai_messages", "openai_tools", "anthropic_request", "anthropic_tools", "ollama_request", "ollama_tools"]

Problems = list[ValidationError]


def _err(path: str, message: str, code: str = "value") -> ValidationError:
    return ValidationError(message, path, code)


def _type(path: str, what: str, value: object, rule: str = "") -> ValidationError:
    note = f" ({rule})" if rule else ""
    return ValidationError(f"expected {what}, got {type_name(value)}{note}", path, "type")


def _missing(path: str, rule: str = "") -> ValidationError:
    return ValidationError("is required" + (f" ({rule})" if rule else ""), path, "missing")


def _join(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def _model(body: dict[str, Any], out: Problems) -> None:
    model = body.get("model")
    if model is None:
        out.append(_missing("model"))
    elif type(model) is not str:
        out.append(_type("model", "a string", model))


def _array(body: dict[str, Any], key: str, path: str, out: Problems, required: bool = True) -> list[Any]:
    value = body.get(key)
    if value is None:
        if required:
            out.append(_missing(_join(path, key)))
        return []
    if type(value) is not list:
        out.append(_type(_join(path, key), "an array", value))
        return []
    return value


def _string(obj: dict[str, Any], key: str, path: str, out: Problems, rule: str = "", required: bool = True) -> str | None:
    value = obj.get(key)
    if value is None:
        if required:
            out.append(_missing(_join(path, key), rule))
        return None
    if type(value) is not str:
        out.append(_type(_join(path, key), "a string", value, rule))
        return None
    return value


# -- OpenAI Chat Completions -------------------------------------------------------------------

_OPENAI_ROLES = ("system", "developer", "user", "assistant", "tool", "function")
# The content part types each role takes (API reference, ChatCompletionRequestMessage).
_OPENAI_PARTS = {
    "system": ("text",),
    "developer": ("text",),
    "user": ("text", "image_url", "input_audio", "file"),
    "assistant": ("text", "refusal"),
    "tool": ("text",),
}


def openai_request(body: dict[str, Any]) -> Problems:
    """Return what the Chat Completions API refuses in a request body."""
    out: Problems = []
    _model(body, out)
    for i, message in enumerate(_array(body, "messages", "", out)):
        _openai_message(message, f"messages[{i}]", out)
    if "messages" in body and body.get("messages") == []:
        out.append(_err("messages", "must hold at least one message (OpenAI)"))
    for i, tool in enumerate(_array(body, "tools", "", out, required=False)):
        _function_tool(tool, f"tools[{i}]", out, "OpenAI")
    return out


def openai_messages(items: list[Any]) -> Problems:
    """Return what the Chat Completions API refuses in a ``messages`` array."""
    out: Problems = []
    for i, message in enumerate(items):
        _openai_message(message, f"[{i}]", out)
    return out


def _openai_message(message: Any, path: str, out: Problems) -> None:
    if type(message) is not dict:
        out.append(_type(path, "an object", message))
        return
    role = message.get("role")
    if role is None:
        out.append(_missing(_join(path, "role")))
        return
    if role not in _OPENAI_ROLES:
        shown = role[:20] if type(role) is str else type_name(role)
        out.append(_err(_join(path, "role"), f"unknown role {shown!r}: OpenAI takes system, developer, user, assistant, tool"))
        return
    if role == "function":
        return  # deprecated but accepted by the API; the codec refuses it, the API does not
    content = message.get("content")
    calls = message.get("tool_calls")
    if role == "assistant":
        if content is None and not calls and message.get("function_call") is None:
            out.append(_missing(_join(path, "content"), "OpenAI: an assistant message without tool_calls needs content"))
    elif content is None:
        out.append(_missing(_join(path, "content")))
    if content is not None:
        _openai_content(content, role, _join(path, "content"), out)
    if role == "tool":
        _string(message, "tool_call_id", path, out, "OpenAI: a tool message names the call it answers")
    elif "tool_call_id" in message:
        out.append(_err(_join(path, "tool_call_id"), f"is not allowed in a {role} message (OpenAI)", "unexpected"))
    if calls is not None:
        if role != "assistant":
            out.append(_err(_join(path, "tool_calls"), f"is not allowed in a {role} message (OpenAI)", "unexpected"))
        elif type(calls) is not list:
            out.append(_type(_join(path, "tool_calls"), "an array", calls))
        else:
            for j, call in enumerate(calls):
                _openai_call(call, f"{path}.tool_calls[{j}]", out)


def _openai_content(content: Any, role: str, path: str, out: Problems) -> None:
    if type(content) is str:
        return
    if type(content) is not list:
        out.append(_type(path, "a string or an array of content parts", content))
        return
    allowed = _OPENAI_PARTS[role]
    for j, part in enumerate(content):
        where = f"{path}[{j}]"
        if type(part) is not dict:
            out.append(_type(where, "an object", part))
            continue
        kind = part.get("type")
        if kind is None:
            out.append(_missing(_join(where, "type")))
        elif kind not in allowed:
            shown = kind[:30] if type(kind) is str else type_name(kind)
            out.append(_err(_join(where, "type"), f"a {role} message cannot hold {shown!r} parts (OpenAI takes {', '.join(allowed)})"))
        elif kind == "text":
            _string(part, "text", where, out)
        elif kind == "refusal":
            _string(part, "refusal", where, out)
        elif kind == "image_url":
            image = part.get("image_url")
            if image is None:
                out.append(_missing(_join(where, "image_url")))
            elif type(image) is not dict:  # the API reference and the SDK types agree: an object
                out.append(_type(_join(where, "image_url"), "an object {url, detail?}", image))
            else:
                _string(image, "url", _join(where, "image_url"), out)


def _openai_call(call: Any, path: str, out: Problems) -> None:
    if type(call) is not dict:
        out.append(_type(path, "an object", call))
        return
    _string(call, "id", path, out)
    kind = call.get("type")
    if kind is None:
        out.append(_missing(_join(path, "type"), 'OpenAI: "type": "function"'))
    elif kind != "function":
        out.append(_err(_join(path, "type"), 'must be "function" (OpenAI)'))
    fn = call.get("function")
    if fn is None:
        out.append(_missing(_join(path, "function")))
        return
    if type(fn) is not dict:
        out.append(_type(_join(path, "function"), "an object", fn))
        return
    _string(fn, "name", _join(path, "function"), out)
    arguments = fn.get("arguments")
    where = _join(path, "function.arguments")
    if arguments is None:
        out.append(_missing(where, "OpenAI: arguments are JSON text, '{}' for none"))
    elif type(arguments) is not str:
        out.append(_type(where, "a JSON string", arguments, "OpenAI: arguments are JSON text"))


def _function_tool(tool: Any, path: str, out: Problems, provider: str) -> None:
    if type(tool) is not dict:
        out.append(_type(path, "an object", tool))
        return
    kind = tool.get("type")
    if kind is None and provider == "OpenAI":
        out.append(_missing(_join(path, "type"), 'OpenAI: "type": "function"'))
    fn = tool.get("function")
    if fn is None:
        out.append(_missing(_join(path, "function")))
    elif type(fn) is not dict:
        out.append(_type(_join(path, "function"), "an object", fn))
    else:
        _string(fn, "name", _join(path, "function"), out)
        parameters = fn.get("parameters")
        if parameters is not None and type(parameters) is not dict:
            out.append(_type(_join(path, "function.parameters"), "an object (a JSON Schema)", parameters))


# -- Anthropic Messages -----------------------------------------------------------------------

_USER_BLOCKS = ("text", "image", "document", "tool_result", "search_result")
_ASSISTANT_BLOCKS = (
    "text", "tool_use", "thinking", "redacted_thinking", "server_tool_use", "web_search_tool_result",
    "web_fetch_tool_result", "code_execution_tool_result", "mcp_tool_use", "mcp_tool_result", "container_upload",
)


def anthropic_request(body: dict[str, Any]) -> Problems:
    """Return what the Messages API refuses in a request body."""
    out: Problems = []
    _model(body, out)
    max_tokens = body.get("max_tokens")
    if max_tokens is None:
        out.append(_missing("max_tokens", "Anthropic requires max_tokens"))
    elif type(max_tokens) is not int or max_tokens < 1:
        out.append(_err("max_tokens", "must be an integer of at least 1 (Anthropic)", "type" if type(max_tokens) is not int else "value"))
    system = body.get("system")
    if system is not None and type(system) is not str:
        if type(system) is not list:
            out.append(_type("system", "a string or an array of text blocks", system))
        else:
            for j, block in enumerate(system):
                if type(block) is not dict or block.get("type") != "text":
                    out.append(_err(f"system[{j}]", "must be a text block (Anthropic)"))
    messages = _array(body, "messages", "", out)
    pending: dict[str, str] = {}  # tool_use ids of the previous assistant turn, not answered yet
    last = len(messages) - 1
    for i, message in enumerate(messages):
        path = f"messages[{i}]"
        if type(message) is not dict:
            out.append(_type(path, "an object", message))
            continue
        role = message.get("role")
        if role not in ("user", "assistant"):
            if role is None:
                out.append(_missing(_join(path, "role")))
            else:
                note = " (the system prompt is the top-level system field)" if role == "system" else ""
                out.append(_err(_join(path, "role"), f"must be 'user' or 'assistant' (Anthropic){note}"))
            continue
        if pending and role == "user":
            answered = _anthropic_content(message.get("content"), role, path, out, i == last, pending)
        else:
            answered = _anthropic_content(message.get("content"), role, path, out, i == last, {})
        for call_id, where in pending.items():
            if call_id not in answered:
                out.append(_err(
                    where + ".id",
                    "this tool_use has no tool_result in the next message (Anthropic: every tool_use is "
                    "answered by a tool_result in the user message right after it)",
                ))
        pending = {}
        if role == "assistant":
            pending = _tool_uses(message.get("content"), path)
    for where in pending.values():  # the last message calls tools no message answers
        out.append(_err(
            where + ".id",
            "this tool_use has no tool_result in the next message (Anthropic: every tool_use is "
            "answered by a tool_result in the user message right after it)",
        ))
    for i, tool in enumerate(_array(body, "tools", "", out, required=False)):
        _anthropic_tool(tool, f"tools[{i}]", out)
    return out


def _anthropic_tool(tool: Any, where: str, out: Problems) -> None:
    if type(tool) is not dict:
        out.append(_type(where, "an object", tool))
        return
    _string(tool, "name", where, out)
    if tool.get("type") in (None, "custom"):
        schema = tool.get("input_schema")
        if schema is None:
            out.append(_missing(_join(where, "input_schema"), "Anthropic: custom tools have an input_schema"))
        elif type(schema) is not dict:
            out.append(_type(_join(where, "input_schema"), "an object (a JSON Schema)", schema))
        elif schema.get("type") != "object":
            out.append(_err(_join(where, "input_schema.type"), 'must be "object" (Anthropic)'))


def _tools(items: Any, one: Any, provider: str) -> Problems:
    out: Problems = []
    if type(items) is dict:
        one(items, "", out, provider)
    else:
        for i, tool in enumerate(items):
            one(tool, f"[{i}]", out, provider)
    return out


def openai_tools(items: Any) -> Problems:
    """Return what OpenAI refuses in one tool ``{type, function}`` or an array of them."""
    return _tools(items, _function_tool, "OpenAI")


def ollama_tools(items: Any) -> Problems:
    """Return what Ollama refuses in one tool ``{type, function}`` or an array of them."""
    return _tools(items, _function_tool, "Ollama")


def anthropic_tools(items: Any) -> Problems:
    """Return what Anthropic refuses in one tool ``{name, input_schema}`` or an array of them."""
    return _tools(items, lambda tool, path, out, _: _anthropic_tool(tool, path, out), "Anthropic")


def _tool_uses(content: Any, path: str) -> dict[str, str]:
    found: dict[str, str] = {}
    if type(content) is list:
        for j, block in enumerate(content):
            if type(block) is dict and block.get("type") == "tool_use" and type(block.get("id")) is str:
                found[block["id"]] = f"{path}.content[{j}]"
    return found


def _anthropic_content(
    content: Any, role: str, path: str, out: Problems, last: bool, pending: dict[str, str]
) -> set[str]:
    """Check one message's content; return the tool_use ids its tool_result blocks answer."""
    where = _join(path, "content")
    answered: set[str] = set()
    if content is None:
        out.append(_missing(where))
        return answered
    if type(content) is str:
        if not content and not (last and role == "assistant"):
            out.append(_err(where, "must not be empty (Anthropic allows empty content only in a final assistant message)"))
        return answered
    if type(content) is not list:
        out.append(_type(where, "a string or an array of content blocks", content))
        return answered
    if not content and not (last and role == "assistant"):
        out.append(_err(where, "must hold at least one block (Anthropic)"))
    allowed = _USER_BLOCKS if role == "user" else _ASSISTANT_BLOCKS
    seen_other = False
    for j, block in enumerate(content):
        at = f"{where}[{j}]"
        if type(block) is not dict:
            out.append(_type(at, "an object", block))
            continue
        kind = block.get("type")
        if kind is None:
            out.append(_missing(_join(at, "type")))
            continue
        if kind not in allowed:
            shown = kind[:30] if type(kind) is str else type_name(kind)
            if kind == "tool_result":
                rule = "a tool_result block belongs in a user message (Anthropic)"
            elif kind == "tool_use":
                rule = "a tool_use block belongs in an assistant message (Anthropic)"
            else:
                rule = f"an {role} message cannot hold {shown!r} blocks (Anthropic)"
            out.append(_err(_join(at, "type"), rule))
            continue
        if kind == "text":
            text = _string(block, "text", at, out)
            if text is not None and not text.strip():
                out.append(_err(_join(at, "text"), "text blocks must hold non-whitespace text (Anthropic)"))
            seen_other = True
        elif kind == "image":
            _anthropic_image(block, at, out)
            seen_other = True
        elif kind == "tool_use":
            _string(block, "id", at, out)
            _string(block, "name", at, out)
            arguments = block.get("input")
            if arguments is None:
                out.append(_missing(_join(at, "input"), "Anthropic: input is an object, {} for none"))
            elif type(arguments) is not dict:
                out.append(_type(_join(at, "input"), "an object", arguments, "Anthropic: input is an object, not JSON text"))
        elif kind == "tool_result":
            call_id = _string(block, "tool_use_id", at, out)
            if seen_other:
                out.append(_err(at, "tool_result blocks come first in a user message, before any other block (Anthropic)"))
            if call_id is not None:
                if call_id not in pending:
                    out.append(_err(_join(at, "tool_use_id"), "answers no tool_use of the previous assistant message (Anthropic)"))
                answered.add(call_id)
            _tool_result_content(block.get("content"), _join(at, "content"), out)
            is_error = block.get("is_error")
            if is_error is not None and type(is_error) is not bool:
                out.append(_type(_join(at, "is_error"), "a boolean", is_error))
        else:
            seen_other = True
    return answered


def _anthropic_image(block: dict[str, Any], path: str, out: Problems) -> None:
    source = block.get("source")
    if type(source) is not dict:
        out.append(_missing(_join(path, "source")) if source is None else _type(_join(path, "source"), "an object", source))
        return
    kind = source.get("type")
    if kind == "base64":
        media = _string(source, "media_type", _join(path, "source"), out)
        if media is not None and media not in ("image/jpeg", "image/png", "image/gif", "image/webp"):
            out.append(_err(_join(path, "source.media_type"), "must be image/jpeg, image/png, image/gif or image/webp (Anthropic)"))
        data = _string(source, "data", _join(path, "source"), out)
        if data is not None and not _is_base64(data):
            out.append(_err(_join(path, "source.data"), "must be base64 (Anthropic)", "pattern"))
    elif kind == "url":
        _string(source, "url", _join(path, "source"), out)
    elif kind != "file":
        out.append(_err(_join(path, "source.type"), "must be base64, url or file (Anthropic)"))


def _tool_result_content(content: Any, path: str, out: Problems) -> None:
    if content is None or type(content) is str:
        return
    if type(content) is not list:
        out.append(_type(path, "a string or an array of blocks", content))
        return
    for j, block in enumerate(content):
        at = f"{path}[{j}]"
        kind = block.get("type") if type(block) is dict else None
        if kind not in ("text", "image", "search_result", "document"):
            out.append(_err(at, "a tool_result holds text, image, search_result or document blocks (Anthropic)"))
        elif kind == "image":
            _anthropic_image(block, at, out)


# -- Ollama /api/chat -------------------------------------------------------------------------


def ollama_request(body: dict[str, Any]) -> Problems:
    """Return what Ollama's ``/api/chat`` refuses in a request body."""
    out: Problems = []
    _model(body, out)
    for i, message in enumerate(_array(body, "messages", "", out)):
        path = f"messages[{i}]"
        if type(message) is not dict:
            out.append(_type(path, "an object", message))
            continue
        role = message.get("role")
        if role is None:
            out.append(_missing(_join(path, "role")))
        elif role not in ROLE_NAMES:
            out.append(_err(_join(path, "role"), "must be system, user, assistant or tool (Ollama)"))
        content = message.get("content")
        if content is not None and type(content) is not str:
            out.append(_type(_join(path, "content"), "a string", content, "Ollama: content is one string; images go in images"))
        for k, image in enumerate(_array(message, "images", path, out, required=False)):
            at = f"{path}.images[{k}]"
            if type(image) is not str:
                out.append(_type(at, "a base64 string", image))
            elif not _is_base64(image):
                out.append(_err(at, "must be bare base64 image data (Ollama: no URLs, no data: prefix)", "pattern"))
        for j, call in enumerate(_array(message, "tool_calls", path, out, required=False)):
            at = f"{path}.tool_calls[{j}]"
            fn = call.get("function") if type(call) is dict else None
            if type(fn) is not dict:
                out.append(_missing(_join(at, "function")) if fn is None else _type(_join(at, "function"), "an object", fn))
                continue
            _string(fn, "name", _join(at, "function"), out)
            arguments = fn.get("arguments")
            if arguments is not None and type(arguments) is not dict:
                out.append(_type(_join(at, "function.arguments"), "an object", arguments, "Ollama: arguments are an object, not JSON text"))
    for i, tool in enumerate(_array(body, "tools", "", out, required=False)):
        _function_tool(tool, f"tools[{i}]", out, "Ollama")
    return out


def _is_base64(data: str) -> bool:
    try:
        base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return False
    return bool(data)
