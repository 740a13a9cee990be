"""The checkers of providers' documents: request bodies, bare messages arrays, tool definitions.

>>> try:
...     check_openai_messages([{"role": "user", "content": "Hi"}, {"role": "user", "content": "Again"}])
... except ValidationError as exc:
...     print(exc)
[1]: user and assistant messages must alternate: expected an assistant message
>>> [str(e) for e in problems_of(check_responses_request, {"model": "gpt-5", "input": [
...     {"type": "function_call_output", "call_id": "c", "output": "x"}]})]
['input: tool message must answer a pending tool call: unknown tool_call_id']
>>> [str(e) for e in problems_of(check_gemini_request, {"contents": [{"role": "model", "parts": [{"text": "Hi"}]}]})]
['contents: the user must speak first']
>>> [str(e) for e in problems_of(check_bedrock_request, {"messages": [{"role": "user", "content": [{"text": "Hi"}]}],
...     "toolConfig": {"tools": [{"toolSpec": {"name": "get weather", "inputSchema": {"json": {}}}}]}})]
['toolConfig.tools[0].toolSpec.name: Bedrock tool names must match ^[a-zA-Z0-9_-]{1,64}$']

Each checker states what the provider's API refuses (``_provider_rules``, in the API's terms)
beside what agentmsg's lenient codec finds elsewhere in the document, then checks the messages'
order as a ``ConversationHistory`` would. The registry loads this module, and a provider's
codec, when a document of theirs is first checked.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache
from importlib import import_module
from types import ModuleType
from typing import Any

from .._checks import expect_object, expected, missing
from ..errors import ConversationOrderError, ValidationError
from ..history import ConversationHistory
from ..messages import ChatMessage
from ._provider_rules import (
    anthropic_request, anthropic_tools, ollama_request, ollama_tools, openai_messages, openai_request, openai_tools,
)
from ._rules import Findings, Problems, problems_of

__all__ = [
    "check_openai_request", "check_anthropic_request", "check_ollama_request", "check_openai_messages",
    "check_openai_tool", "check_openai_tools", "check_anthropic_tool", "check_anthropic_tools", "check_ollama_tool",
    "check_ollama_tools", "check_responses_request", "check_gemini_request", "check_bedrock_request",
]

Errors = list[ValidationError | ConversationOrderError]


@cache
def _codec(provider: str) -> ModuleType:
    """Return the codec module ``agentmsg.providers.<provider>``, imported on first use."""
    return import_module(f"..providers.{provider}", __package__)


def _unwrapped(exc: ValidationError) -> ValidationError:
    """Return ``exc``, raised for a one-item list (path ``[0]...``), as raised for the item itself."""
    return ValidationError(exc.message, exc.path.removeprefix("[0]").removeprefix("."), exc.code)


def _one_by_one(parse: Callable[[list[Any]], tuple[ChatMessage, ...]], items: Any) -> tuple[list[ChatMessage], list[int]]:
    """Parse a provider's messages one item at a time, keeping every problem.

    Return the messages and, for each, the index of the item it came from (an Anthropic user turn
    gives several). Only for providers whose items do not depend on each other.
    """
    if type(items) is not list:
        raise expected("an array of messages", items, "")
    messages: list[ChatMessage] = []
    owners: list[int] = []
    errors: Errors = []
    for i, item in enumerate(items):
        try:
            parsed = parse([item])
        except ValidationError as exc:
            errors.append(_unwrapped(exc).prefixed(i))
            continue
        messages.extend(parsed)
        owners.extend([i] * len(parsed))
    if errors:
        raise Problems(errors)
    return messages, owners


def _in_order(messages: Sequence[ChatMessage], owners: Sequence[int | None], path: str) -> None:
    """Check the order as a ConversationHistory; the error names the item of the list at ``path``.

    ``owners`` holds, for each message, the index of the item it came from (None: the separate
    system prompt); with none, the error names the list. A provider's conversation may have no
    system prompt (it travels apart, or is optional), so none is required here.
    """
    history = ConversationHistory(require_system=False)
    try:
        for message in messages:
            history.add(message)
        history.validate()
    except ConversationOrderError as exc:
        index = exc.index if exc.index is not None and exc.index < len(owners) else None
        owner = owners[index] if index is not None else None
        where = path if index is None else "system" if owner is None else f"{path}[{owner}]"
        raise ValidationError(exc.message, where, exc.code) from None


def _check_model(body: dict[str, Any], errors: Errors) -> None:
    model = body.get("model")
    if type(model) is not str:  # vLLM takes "" for its one served model
        errors.append(missing("model") if model is None else expected("a string", model, "model"))


def _check_tools(codec: ModuleType, body: dict[str, Any], errors: Errors, holder: str | None = None) -> None:
    """Check the ``tools`` of ``body``, or of the object at ``holder`` (Bedrock's ``toolConfig``)."""
    if holder is not None:
        if body.get(holder) is None:
            return
        if type(body[holder]) is not dict:
            errors.append(expected("an object", body[holder], holder))
            return
        if body[holder].get("tools") is None:
            errors.append(missing(f"{holder}.tools"))
            return
    tools = (body if holder is None else body[holder]).get("tools")
    if tools is not None:
        try:
            codec.from_tools(tools)
        except ValidationError as exc:
            errors.append(exc.prefixed("tools" if holder is None else f"{holder}.tools"))


def _request(provider: str, rules: Callable[[dict[str, Any]], Findings]) -> Callable[[Any], None]:
    """Return the checker of a chat request body (OpenAI, Anthropic, Ollama): the API's ``rules``, the codec."""

    def check(doc: Any) -> None:
        body = expect_object(doc)
        refused = rules(body)  # what the API itself answers 400 for, in its terms
        found = problems_of(lenient, body)
        if refused:  # the API's words first; the codec's findings elsewhere in the document too
            raise Problems(_merged(refused, found))
        if found:
            raise Problems(found)

    def lenient(body: dict[str, Any]) -> None:
        codec = _codec(provider)
        errors: Errors = []
        _check_model(body, errors)
        messages: list[ChatMessage] = []
        owners: list[int | None] = []
        if provider == "anthropic" and body.get("system") is not None:
            try:
                parsed = codec.from_messages([], body["system"])
            except ValidationError as exc:
                errors.append(exc)
            else:
                messages.extend(parsed)
                owners.extend([None] * len(parsed))
        try:
            if "messages" not in body:
                raise missing("")
            if provider == "ollama":  # a tool result names the call of an earlier item: parsed together
                parsed = codec.from_messages(body["messages"])
                found: Sequence[int] = range(len(parsed))
            else:
                parsed, found = _one_by_one(codec.from_messages, body["messages"])
            messages.extend(parsed)
            owners.extend(found)
        except ValidationError as exc:
            errors.append(exc.prefixed("messages"))
        except Problems as many:
            errors.extend(error.prefixed("messages") for error in many.errors if isinstance(error, ValidationError))
        _check_tools(codec, body, errors)
        if errors:
            raise Problems(errors)
        _in_order(messages, owners, "messages")

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
        errors: Errors = []
        if model:
            _check_model(body, errors)
        messages: tuple[ChatMessage, ...] = ()
        prompt = next((body[key] for key in system if key in body), None)
        try:
            if listed not in body:
                raise missing("")
            messages = codec.from_messages(body[listed], prompt)
        except ValidationError as exc:
            errors.append(exc if exc.path.startswith(system[0]) else exc.prefixed(listed))
        _check_tools(codec, body, errors, tools)
        if errors:
            raise Problems(errors)
        _in_order(messages, (), listed)

    return check


def _related(a: str, b: str) -> bool:
    """Tell whether one path is the other or inside it."""
    if len(a) > len(b):
        a, b = b, a
    return b == a or (b.startswith(a) and b[len(a)] in ".[") or not a


def _merged(refused: Findings, found: Errors) -> Errors:
    """Return the strict problems and the lenient ones at other paths, in document order."""
    extra = [e for e in found if isinstance(e, ValidationError) and not any(_related(e.path, r.path) for r in refused)]
    return sorted([*refused, *extra], key=lambda e: _path_key(e.path))  # type: ignore[union-attr]  # every item is a ValidationError: extra keeps only those


def _path_key(path: str) -> list[tuple[int, int, str]]:
    key: list[tuple[int, int, str]] = []
    for part in path.replace("[", ".[").split("."):
        if part.startswith("[") and part[1:-1].isdigit():
            key.append((0, int(part[1:-1]), ""))
        elif part:
            key.append((1, 0, part))
    return key


def check_openai_messages(doc: Any) -> None:
    """Check a bare OpenAI (or vLLM) ``messages`` array: the API's rules, each message, the order."""
    if type(doc) is not list:
        raise expected("an array of messages", doc, "")
    refused = openai_messages(doc)
    try:
        messages, owners = _one_by_one(_codec("openai").from_messages, doc)
    except Problems as many:
        found: Errors = many.errors
    else:
        found = []
    if refused or found:
        raise Problems(_merged(refused, found))
    _in_order(messages, owners, "")


def _tools(provider: str, rules: Callable[[Any], Findings], one: bool) -> Callable[[Any], None]:
    """Return the checker of a provider's tool definition (``one``) or array of them."""

    def check(doc: Any) -> None:
        if one:
            expect_object(doc)
        elif type(doc) is not list:
            raise expected("an array of tools", doc, "")
        refused = rules(doc)
        try:
            if one:
                try:
                    _codec(provider).from_tools([doc])
                except ValidationError as exc:
                    raise _unwrapped(exc) from None
            else:
                _codec(provider).from_tools(doc)
        except ValidationError as exc:
            found: Errors = [exc]
        else:
            found = []
        if refused or found:
            raise Problems(_merged(refused, found))

    return check


check_openai_request = _request("openai", openai_request)
check_anthropic_request = _request("anthropic", anthropic_request)
check_ollama_request = _request("ollama", ollama_request)
check_responses_request = _with_system("openai_responses", "input", ("instructions",), model=True)
check_gemini_request = _with_system("gemini", "contents", ("systemInstruction", "system_instruction"), model=False)
# The JSON body of the HTTP API names no model (modelId is in the URL); boto3's kwargs add it.
check_bedrock_request = _with_system("bedrock", "messages", ("system",), model=False, tools="toolConfig")
check_openai_tool, check_openai_tools = _tools("openai", openai_tools, True), _tools("openai", openai_tools, False)
check_anthropic_tool = _tools("anthropic", anthropic_tools, True)
check_anthropic_tools = _tools("anthropic", anthropic_tools, False)
check_ollama_tool, check_ollama_tools = _tools("ollama", ollama_tools, True), _tools("ollama", ollama_tools, False)
