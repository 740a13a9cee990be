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

from typing import Any

from .._checks import type_name
from ..roles import ROLE_NAMES
from ._rules import Findings, absent, array_at, err, is_base64, join, object_at, string_at, wrong_type

__all__ = ["openai_request", "openai_message", "anthropic_request", "ollama_request", "tool_rules"]

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


def openai_request(body: dict[str, Any]) -> Findings:
    """Return what the Chat Completions API refuses in a request body."""
    out: Findings = []
    string_at(body, "model", "", out)
    for i, message in enumerate(array_at(body, "messages", "", out)):
        _openai_message(message, f"messages[{i}]", out)
    if "messages" in body and body.get("messages") == []:
        out.append(err("messages", "must hold at least one message (OpenAI)"))
    for i, tool in enumerate(array_at(body, "tools", "", out, required=False)):
        _function_tool(tool, f"tools[{i}]", out, "OpenAI")
    return out


def openai_message(message: Any, path: str) -> Findings:
    """Return what the Chat Completions API refuses in one message (at ``path``) of a ``messages`` array."""
    out: Findings = []
    _openai_message(message, path, out)
    return out


def _tag(item: Any, key: str, path: str, out: Findings) -> Any:
    """Return the tag ``item[key]`` of an object (None, noted in ``out``, for a non-object or no tag)."""
    if type(item) is not dict:
        out.append(wrong_type(path, "an object", item))
        return None
    tag = item.get(key)
    if tag is None:
        out.append(absent(join(path, key)))
    return tag


def _shown(tag: Any, size: int = 30) -> str:
    """Return a tag as a message may quote it: a string's start, or the JSON type of anything else."""
    return tag[:size] if type(tag) is str else type_name(tag)


def _openai_message(message: Any, path: str, out: Findings) -> None:
    role = _tag(message, "role", path, out)
    if role is None:
        return
    if role not in _OPENAI_ROLES:
        out.append(err(join(path, "role"), f"unknown role {_shown(role, 20)!r}: OpenAI takes system, developer, user, assistant, tool"))
        return
    if role == "function":
        return  # deprecated but accepted by the API; the codec refuses it, the API does not
    content = message.get("content")
    calls = message.get("tool_calls")
    if role == "assistant":
        if content is None and not calls and message.get("function_call") is None:
            out.append(absent(join(path, "content"), "OpenAI: an assistant message without tool_calls needs content"))
    elif content is None:
        out.append(absent(join(path, "content")))
    if content is not None:
        _openai_content(content, role, join(path, "content"), out)
    if role == "tool":
        string_at(message, "tool_call_id", path, out, "OpenAI: a tool message names the call it answers")
    elif "tool_call_id" in message:
        out.append(err(join(path, "tool_call_id"), f"is not allowed in a {role} message (OpenAI)", "unexpected"))
    if calls is not None:
        if role != "assistant":
            out.append(err(join(path, "tool_calls"), f"is not allowed in a {role} message (OpenAI)", "unexpected"))
        elif type(calls) is not list:
            out.append(wrong_type(join(path, "tool_calls"), "an array", calls))
        else:
            for j, call in enumerate(calls):
                _openai_call(call, f"{path}.tool_calls[{j}]", out)


def _openai_content(content: Any, role: str, path: str, out: Findings) -> None:
    if type(content) is str:
        return
    if type(content) is not list:
        out.append(wrong_type(path, "a string or an array of content parts", content))
        return
    allowed = _OPENAI_PARTS[role]
    for j, part in enumerate(content):
        where = f"{path}[{j}]"
        kind = _tag(part, "type", where, out)
        if kind is None:
            continue
        if kind not in allowed:
            out.append(err(join(where, "type"), f"a {role} message cannot hold {_shown(kind)!r} parts (OpenAI takes {', '.join(allowed)})"))
        elif kind == "text":
            string_at(part, "text", where, out)
        elif kind == "refusal":
            string_at(part, "refusal", where, out)
        elif kind == "image_url":  # the API reference and the SDK types agree: an object
            image = object_at(part, "image_url", where, out, what="an object {url, detail?}")
            if image is not None:
                string_at(image, "url", join(where, "image_url"), out)


def _openai_call(call: Any, path: str, out: Findings) -> None:
    if type(call) is not dict:
        out.append(wrong_type(path, "an object", call))
        return
    string_at(call, "id", path, out)
    kind = call.get("type")
    if kind is None:
        out.append(absent(join(path, "type"), 'OpenAI: "type": "function"'))
    elif kind != "function":
        out.append(err(join(path, "type"), 'must be "function" (OpenAI)'))
    fn = object_at(call, "function", path, out)
    if fn is None:
        return
    string_at(fn, "name", join(path, "function"), out)
    arguments = fn.get("arguments")
    where = join(path, "function.arguments")
    if arguments is None:
        out.append(absent(where, "OpenAI: arguments are JSON text, '{}' for none"))
    elif type(arguments) is not str:
        out.append(wrong_type(where, "a JSON string", arguments, "OpenAI: arguments are JSON text"))


def _function_tool(tool: Any, path: str, out: Findings, provider: str) -> None:
    if type(tool) is not dict:
        out.append(wrong_type(path, "an object", tool))
        return
    kind = tool.get("type")
    if kind is None and provider == "OpenAI":
        out.append(absent(join(path, "type"), 'OpenAI: "type": "function"'))
    fn = object_at(tool, "function", path, out)
    if fn is not None:
        string_at(fn, "name", join(path, "function"), out)
        object_at(fn, "parameters", join(path, "function"), out, required=False, what="an object (a JSON Schema)")


# -- Anthropic Messages -----------------------------------------------------------------------

_UNANSWERED = (
    "this tool_use has no tool_result in the next message (Anthropic: every tool_use is answered by a "
    "tool_result in the user message right after it)"
)
_USER_BLOCKS = ("text", "image", "document", "tool_result", "search_result")
_ASSISTANT_BLOCKS = (
    "text", "tool_use", "thinking", "redacted_thinking", "server_tool_use", "web_search_tool_result",
    "web_fetch_tool_result", "code_execution_tool_result", "mcp_tool_use", "mcp_tool_result", "container_upload",
)


def anthropic_request(body: dict[str, Any]) -> Findings:
    """Return what the Messages API refuses in a request body."""
    out: Findings = []
    string_at(body, "model", "", out)
    max_tokens = body.get("max_tokens")
    if max_tokens is None:
        out.append(absent("max_tokens", "Anthropic requires max_tokens"))
    elif type(max_tokens) is not int or max_tokens < 1:
        out.append(err("max_tokens", "must be an integer of at least 1 (Anthropic)", "type" if type(max_tokens) is not int else "value"))
    system = body.get("system")
    if system is not None and type(system) is not str:
        if type(system) is not list:
            out.append(wrong_type("system", "a string or an array of text blocks", system))
        else:
            for j, block in enumerate(system):
                if type(block) is not dict or block.get("type") != "text":
                    out.append(err(f"system[{j}]", "must be a text block (Anthropic)"))
    messages = array_at(body, "messages", "", out)
    pending: dict[str, str] = {}  # tool_use ids of the previous assistant turn, not answered yet
    last = len(messages) - 1
    for i, message in enumerate(messages):
        path = f"messages[{i}]"
        role = _tag(message, "role", path, out)
        if role is None:
            continue
        if role not in ("user", "assistant"):
            note = " (the system prompt is the top-level system field)" if role == "system" else ""
            out.append(err(join(path, "role"), f"must be 'user' or 'assistant' (Anthropic){note}"))
            continue
        content = message.get("content")
        answered = _anthropic_content(content, role, path, out, i == last, pending if role == "user" else {})
        out.extend(err(where + ".id", _UNANSWERED) for call_id, where in pending.items() if call_id not in answered)
        pending = _tool_uses(content, path) if role == "assistant" else {}
    out.extend(err(where + ".id", _UNANSWERED) for where in pending.values())  # the last message's calls
    for i, tool in enumerate(array_at(body, "tools", "", out, required=False)):
        _anthropic_tool(tool, f"tools[{i}]", out)
    return out


def _anthropic_tool(tool: Any, where: str, out: Findings) -> None:
    if type(tool) is not dict:
        out.append(wrong_type(where, "an object", tool))
        return
    string_at(tool, "name", where, out)
    if tool.get("type") in (None, "custom"):
        schema = object_at(tool, "input_schema", where, out, "Anthropic: custom tools have an input_schema",
                           what="an object (a JSON Schema)")
        if schema is not None and schema.get("type") != "object":
            out.append(err(join(where, "input_schema.type"), 'must be "object" (Anthropic)'))


def tool_rules(provider: str, tool: Any, path: str) -> Findings:
    """Return what ``provider``'s API (openai, anthropic, ollama) refuses in one tool definition at ``path``.

    >>> [str(e) for e in tool_rules("anthropic", {"name": "now", "input_schema": {"type": "array"}}, "[2]")]
    ['[2].input_schema.type: must be "object" (Anthropic)']
    """
    out: Findings = []
    if provider == "anthropic":
        _anthropic_tool(tool, path, out)
    else:
        _function_tool(tool, path, out, "OpenAI" if provider == "openai" else "Ollama")
    return out


def _tool_uses(content: Any, path: str) -> dict[str, str]:
    found: dict[str, str] = {}
    if type(content) is list:
        for j, block in enumerate(content):
            if type(block) is dict and block.get("type") == "tool_use" and type(block.get("id")) is str:
                found[block["id"]] = f"{path}.content[{j}]"
    return found


def _anthropic_content(
    content: Any, role: str, path: str, out: Findings, last: bool, pending: dict[str, str]
) -> set[str]:
    """Check one message's content; return the tool_use ids its tool_result blocks answer."""
    where = join(path, "content")
    answered: set[str] = set()
    if content is None:
        out.append(absent(where))
        return answered
    if type(content) is str:
        if not content and not (last and role == "assistant"):
            out.append(err(where, "must not be empty (Anthropic allows empty content only in a final assistant message)"))
        return answered
    if type(content) is not list:
        out.append(wrong_type(where, "a string or an array of content blocks", content))
        return answered
    if not content and not (last and role == "assistant"):
        out.append(err(where, "must hold at least one block (Anthropic)"))
    allowed = _USER_BLOCKS if role == "user" else _ASSISTANT_BLOCKS
    seen_other = False
    for j, block in enumerate(content):
        at = f"{where}[{j}]"
        kind = _tag(block, "type", at, out)
        if kind is None:
            continue
        if kind not in allowed:
            if kind == "tool_result":
                rule = "a tool_result block belongs in a user message (Anthropic)"
            elif kind == "tool_use":
                rule = "a tool_use block belongs in an assistant message (Anthropic)"
            else:
                rule = f"an {role} message cannot hold {_shown(kind)!r} blocks (Anthropic)"
            out.append(err(join(at, "type"), rule))
            continue
        if kind == "text":
            text = string_at(block, "text", at, out)
            if text is not None and not text.strip():
                out.append(err(join(at, "text"), "text blocks must hold non-whitespace text (Anthropic)"))
            seen_other = True
        elif kind == "image":
            _anthropic_image(block, at, out)
            seen_other = True
        elif kind == "tool_use":
            string_at(block, "id", at, out)
            string_at(block, "name", at, out)
            arguments = block.get("input")
            if arguments is None:
                out.append(absent(join(at, "input"), "Anthropic: input is an object, {} for none"))
            elif type(arguments) is not dict:
                out.append(wrong_type(join(at, "input"), "an object", arguments, "Anthropic: input is an object, not JSON text"))
        elif kind == "tool_result":
            call_id = string_at(block, "tool_use_id", at, out)
            if seen_other:
                out.append(err(at, "tool_result blocks come first in a user message, before any other block (Anthropic)"))
            if call_id is not None:
                if call_id not in pending:
                    out.append(err(join(at, "tool_use_id"), "answers no tool_use of the previous assistant message (Anthropic)"))
                answered.add(call_id)
            _tool_result_content(block.get("content"), join(at, "content"), out)
            is_error = block.get("is_error")
            if is_error is not None and type(is_error) is not bool:
                out.append(wrong_type(join(at, "is_error"), "a boolean", is_error))
        else:
            seen_other = True
    return answered


def _anthropic_image(block: dict[str, Any], path: str, out: Findings) -> None:
    source = object_at(block, "source", path, out)
    if source is None:
        return
    kind = source.get("type")
    if kind == "base64":
        media = string_at(source, "media_type", join(path, "source"), out)
        if media is not None and media not in ("image/jpeg", "image/png", "image/gif", "image/webp"):
            out.append(err(join(path, "source.media_type"), "must be image/jpeg, image/png, image/gif or image/webp (Anthropic)"))
        data = string_at(source, "data", join(path, "source"), out)
        if data is not None and not is_base64(data):
            out.append(err(join(path, "source.data"), "must be base64 (Anthropic)", "pattern"))
    elif kind == "url":
        string_at(source, "url", join(path, "source"), out)
    elif kind != "file":
        out.append(err(join(path, "source.type"), "must be base64, url or file (Anthropic)"))


def _tool_result_content(content: Any, path: str, out: Findings) -> None:
    if content is None or type(content) is str:
        return
    if type(content) is not list:
        out.append(wrong_type(path, "a string or an array of blocks", content))
        return
    for j, block in enumerate(content):
        at = f"{path}[{j}]"
        kind = block.get("type") if type(block) is dict else None
        if kind not in ("text", "image", "search_result", "document"):
            out.append(err(at, "a tool_result holds text, image, search_result or document blocks (Anthropic)"))
        elif kind == "image":
            _anthropic_image(block, at, out)


# -- Ollama /api/chat -------------------------------------------------------------------------


def ollama_request(body: dict[str, Any]) -> Findings:
    """Return what Ollama's ``/api/chat`` refuses in a request body."""
    out: Findings = []
    string_at(body, "model", "", out)
    for i, message in enumerate(array_at(body, "messages", "", out)):
        path = f"messages[{i}]"
        if type(message) is not dict:
            out.append(wrong_type(path, "an object", message))
            continue
        role = message.get("role")
        if role is None:
            out.append(absent(join(path, "role")))
        elif role not in ROLE_NAMES:
            out.append(err(join(path, "role"), "must be system, user, assistant or tool (Ollama)"))
        string_at(message, "content", path, out, "Ollama: content is one string; images go in images", required=False)
        for k, image in enumerate(array_at(message, "images", path, out, required=False)):
            at = f"{path}.images[{k}]"
            if type(image) is not str:
                out.append(wrong_type(at, "a base64 string", image))
            elif not is_base64(image):
                out.append(err(at, "must be bare base64 image data (Ollama: no URLs, no data: prefix)", "pattern"))
        for j, call in enumerate(array_at(message, "tool_calls", path, out, required=False)):
            at = f"{path}.tool_calls[{j}]"
            fn = object_at(call if type(call) is dict else {}, "function", at, out)
            if fn is None:
                continue
            string_at(fn, "name", join(at, "function"), out)
            arguments = fn.get("arguments")
            if arguments is not None and type(arguments) is not dict:
                out.append(wrong_type(join(at, "function.arguments"), "an object", arguments, "Ollama: arguments are an object, not JSON text"))
    for i, tool in enumerate(array_at(body, "tools", "", out, required=False)):
        _function_tool(tool, f"tools[{i}]", out, "Ollama")
    return out

