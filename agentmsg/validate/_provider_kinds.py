"""The checkers of providers' documents: request bodies, bare messages arrays, tool definitions.

>>> [str(e) for e in problems_of(check_openai_messages, [{"role": "user", "content": "Hi"},
...     {"role": "user", "content": "Again"}, {"role": "tool", "tool_call_id": "c", "content": "x"}])]
['[1]: user and assistant messages must alternate: expected an assistant message', '[2]: tool message must answer a pending tool call: unknown tool_call_id']
>>> [str(e) for e in problems_of(check_responses_request, {"model": "gpt-5", "input": [
...     {"type": "function_call_output", "call_id": "c", "output": "x"}]})]
['input: tool message must answer a pending tool call: unknown tool_call_id']
>>> [str(e) for e in problems_of(check_gemini_request, {"contents": [{"role": "model", "parts": [{"text": "Hi"}]}]})]
['contents: the user must speak first']
>>> [str(e) for e in problems_of(check_bedrock_request, {"messages": [{"role": "user", "content": [{"text": "Hi"}]}],
...     "toolConfig": {"tools": [{"toolSpec": {"name": "get weather", "inputSchema": {"json": {}}}}]}})]
['toolConfig.tools[0].toolSpec.name: Bedrock tool names must match ^[a-zA-Z0-9_-]{1,64}$']

Each checker states what the provider's API refuses (``_provider_rules``, in the API's terms)
beside what agentmsg's lenient codec finds elsewhere in the document, and checks the messages'
order as a ``ConversationHistory`` would (``Order``: each broken rule once). Every message and
every tool is parsed on its own, so each one's problem is reported, not only the first one's
(the messages of Ollama, Responses and Gemini are parsed together: an item there names what
an earlier one holds). The registry loads this module, and a provider's codec, when a document
of theirs is first checked.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from importlib import import_module
from types import ModuleType
from typing import Any

from .._checks import expect_object, expected, missing
from ..errors import ValidationError
from ._order import Order
from ._provider_rules import anthropic_request, ollama_request, openai_message, openai_request, tool_rules
from ._rules import Findings, Problems, array_check, problems_of, related

__all__ = [
    "check_openai_request", "check_anthropic_request", "check_ollama_request", "check_openai_tool",
    "check_anthropic_tool", "check_ollama_tool", "check_responses_request", "check_gemini_request",
    "check_bedrock_request", "OpenAIMessages", "Tools", "check_openai_messages",
]


@cache
def _codec(provider: str) -> ModuleType:
    """Return the codec module ``agentmsg.providers.<provider>``, imported on first use."""
    return import_module(f"..providers.{provider}", __package__)


def _at(exc: ValidationError, index: int | None, path: str = "") -> ValidationError:
    """Return ``exc``, raised for a one-item list (path ``[0]...``), as raised for item ``index`` of ``path``.

    ``index`` None: for the item itself, at the root.
    """
    found = ValidationError(exc.message, exc.path.removeprefix("[0]").removeprefix("."), exc.code)
    if index is not None:
        found = found.prefixed(index)
    return found.prefixed(path) if path else found


def _messages(parse: Callable[[list[Any]], tuple[Any, ...]], items: Any, path: str, order: Order, out: Findings) -> None:
    """Parse a provider's messages one item at a time into ``order``, noting each problem in ``out``.

    Only for providers whose items do not depend on each other (OpenAI, Anthropic).
    """
    if type(items) is not list:
        out.append(expected("an array of messages", items, path))
        return
    for i, item in enumerate(items):
        _message(parse, item, i, path, order, out)


def _message(parse: Callable[[list[Any]], tuple[Any, ...]], item: Any, index: int, path: str, order: Order,
             out: Findings) -> None:
    try:
        parsed = parse([item])
    except ValidationError as exc:
        out.append(_at(exc, index, path))
        order.skip()
        return
    where = f"{path}[{index}]"
    for message in parsed:  # an Anthropic user turn gives several
        problem = order.add(message, where)
        if problem is not None:
            out.append(problem)


def _in_order(messages: tuple[Any, ...], path: str, order: Order, out: Findings) -> None:
    """Check the order of messages parsed together; each problem names the list at ``path``."""
    for message in messages:
        problem = order.add(message, path)
        if problem is not None:
            out.append(problem)


def _ended(order: Order, path: str, out: Findings) -> None:
    problem = order.end(path)
    if problem is not None:
        out.append(problem)


def _check_model(body: dict[str, Any], errors: Findings) -> None:
    model = body.get("model")
    if type(model) is not str:  # vLLM takes "" for its one served model
        errors.append(missing("model") if model is None else expected("a string", model, "model"))


def _codec_tool(provider: str, tool: Any, index: int | None, path: str, out: Findings) -> None:
    """Note what ``provider``'s codec finds in one tool (item ``index`` of ``path``)."""
    try:
        _codec(provider).from_tools([tool])
    except ValidationError as exc:
        out.append(_at(exc, index, path))


def _check_tools(provider: str, body: dict[str, Any], errors: Findings, holder: str | None = None) -> None:
    """Check each of the ``tools`` of ``body``, or of the object at ``holder`` (Bedrock's ``toolConfig``)."""
    if holder is not None:
        if body.get(holder) is None:
            return
        if type(body[holder]) is not dict:
            errors.append(expected("an object", body[holder], holder))
            return
        if body[holder].get("tools") is None:
            errors.append(missing(f"{holder}.tools"))
            return
    path = "tools" if holder is None else f"{holder}.tools"
    tools = (body if holder is None else body[holder]).get("tools")
    if tools is None:
        return
    if type(tools) is not list:
        errors.append(expected("an array of tools", tools, path))
        return
    for i, tool in enumerate(tools):
        _codec_tool(provider, tool, i, path, errors)


def _request(provider: str, rules: Callable[[dict[str, Any]], Findings]) -> Callable[[Any], None]:
    """Return the checker of a chat request body (OpenAI, Anthropic, Ollama): the API's ``rules``, the codec."""

    def check(doc: Any) -> None:
        body = expect_object(doc)
        refused = rules(body)  # what the API itself answers 400 for, in its terms
        found = [problem for problem in problems_of(lenient, body) if isinstance(problem, ValidationError)]
        if refused:  # the API's words first; the codec's findings elsewhere in the document too
            raise Problems(_merged(refused, found))
        if found:
            raise Problems(found)

    def lenient(body: dict[str, Any]) -> None:
        codec = _codec(provider)
        errors: Findings = []
        _check_model(body, errors)
        order = Order(require_system=False)  # the system prompt travels apart, or is optional
        if provider == "anthropic" and body.get("system") is not None:
            try:
                _in_order(codec.from_messages([], body["system"]), "system", order, errors)
            except ValidationError as exc:
                errors.append(exc)
        if "messages" not in body:
            errors.append(missing("messages"))
        elif provider == "ollama":  # a tool result names the call of an earlier item: parsed together
            try:
                parsed = codec.from_messages(body["messages"])
            except ValidationError as exc:
                errors.append(exc.prefixed("messages"))
            else:
                for i, message in enumerate(parsed):
                    _in_order((message,), f"messages[{i}]", order, errors)
                _ended(order, "messages", errors)
        else:
            _messages(codec.from_messages, body["messages"], "messages", order, errors)
            _ended(order, "messages", errors)
        _check_tools(provider, body, errors)
        if errors:
            raise Problems(errors)

    return check


def _with_system(
    provider: str, listed: str, system: tuple[str, ...], model: bool, tools: str | None = None
) -> Callable[[Any], None]:
    """Return the checker of a request whose system prompt its codec reads with the list (Responses, Gemini, Bedrock).

    ``listed`` names the list of items, ``system`` the keys of the system prompt (the first
    present is read); ``model``: the body names its model; ``tools``: the object holding the
    ``tools`` list, when not the body itself.
    """

    def check(doc: Any) -> None:
        codec = _codec(provider)
        body = expect_object(doc)
        errors: Findings = []
        if model:
            _check_model(body, errors)
        prompt = next((body[key] for key in system if key in body), None)
        try:
            if listed not in body:
                raise missing("")
            messages = codec.from_messages(body[listed], prompt)
        except ValidationError as exc:
            errors.append(exc if exc.path.startswith(system[0]) else exc.prefixed(listed))
        else:
            order = Order(require_system=False)
            _in_order(messages, listed, order, errors)
            _ended(order, listed, errors)
        _check_tools(provider, body, errors, tools)
        if errors:
            raise Problems(errors)

    return check


def _merged(refused: Findings, found: Findings) -> Findings:
    """Return the strict problems and the lenient ones at other paths, in document order."""
    extra = [e for e in found if not any(related(e.path, r.path) for r in refused)]
    return sorted([*refused, *extra], key=lambda e: _path_key(e.path))


def _path_key(path: str) -> list[tuple[int, int, str]]:
    key: list[tuple[int, int, str]] = []
    for part in path.replace("[", ".[").split("."):
        if part.startswith("[") and part[1:-1].isdigit():
            key.append((0, int(part[1:-1]), ""))
        elif part:
            key.append((1, 0, part))
    return key


class OpenAIMessages:
    """The check of a bare OpenAI (or vLLM) ``messages`` array, a message at a time: the API's rules, the codec, the order."""

    __slots__ = ("order", "parse")

    def __init__(self) -> None:
        self.order = Order(require_system=False)
        self.parse = _codec("openai").from_messages

    def item(self, index: int, element: Any, out: Findings) -> None:
        refused = openai_message(element, f"[{index}]")
        found: Findings = []
        _message(self.parse, element, index, "", self.order, found)
        out.extend(_merged(refused, found) if refused else found)

    def end(self, count: int, out: Findings) -> None:
        _ended(self.order, "", out)


class Tools:
    """The check of a provider's tools array, a tool at a time: the API's rules beside the codec's."""

    __slots__ = ("provider",)

    def __init__(self, provider: str) -> None:
        self.provider = provider

    def item(self, index: int, element: Any, out: Findings) -> None:
        out.extend(_tool_problems(self.provider, element, index))

    def end(self, count: int, out: Findings) -> None:
        pass


def _tool_problems(provider: str, tool: Any, index: int | None) -> Findings:
    refused = tool_rules(provider, tool, "" if index is None else f"[{index}]")
    found: Findings = []
    _codec_tool(provider, tool, index, "", found)
    return _merged(refused, found) if refused else found


def _one_tool(provider: str) -> Callable[[Any], None]:
    """Return the checker of one tool definition of ``provider``."""

    def check(doc: Any) -> None:
        found = _tool_problems(provider, expect_object(doc), None)
        if found:
            raise Problems(found)

    return check


check_openai_messages = array_check(OpenAIMessages, "an array of messages")
check_openai_request = _request("openai", openai_request)
check_anthropic_request = _request("anthropic", anthropic_request)
check_ollama_request = _request("ollama", ollama_request)
check_responses_request = _with_system("openai_responses", "input", ("instructions",), model=True)
check_gemini_request = _with_system("gemini", "contents", ("systemInstruction", "system_instruction"), model=False)
# The JSON body of the HTTP API names no model (modelId is in the URL); boto3's kwargs add it.
check_bedrock_request = _with_system("bedrock", "messages", ("system",), model=False, tools="toolConfig")
check_openai_tool, check_anthropic_tool, check_ollama_tool = _one_tool("openai"), _one_tool("anthropic"), _one_tool("ollama")
