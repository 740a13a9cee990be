"""MCP prompts: what a server lists (``prompts/list``), what a prompt gives (``prompts/get``), completions.

>>> prompt = prompt_info({"name": "code_review", "title": "Request Code Review",
...     "arguments": [{"name": "code", "description": "The code to review", "required": True}]}, 0)
>>> prompt
McpPrompt(name='code_review', arguments=('code',))
>>> prompt.arguments[0].required
True
>>> result = McpPromptResult.from_dict({"description": "Code review prompt", "messages": [
...     {"role": "user", "content": {"type": "text", "text": "Please review this code: print(1)"}}]})
>>> result
McpPromptResult(messages=1, description=<18 chars>)
>>> result.messages[0].to_dict()
{'role': 'user', 'content': 'Please review this code: print(1)'}

A prompt's messages become ``ChatMessage``s, one per prompt message, in order and with its role
(``user`` or ``assistant``). Their content renders as a tool result's does
(``McpToolResult``): text as text, an image as an image part in a user message, an embedded
resource as its text under a ``[resource <uri>]`` line (an image blob as an image), a resource
link as a ``[resource link: <uri>]`` line, and audio, an image in an assistant message (which
carries text only) or another binary resource as a short note that says what was left out.
``blocks`` keeps each message's content block as the server sent it. ``completion`` reads a
``completion/complete`` reply (suggested values for a prompt's argument or a resource template's
variable). The parsers raise ``McpError(code="protocol")``; the client names its server in the
message.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..._checks import count, type_name
from ..._frozen import FrozenDict, freeze_json, thaw_json
from ...content import TextPart
from ...errors import ValidationError
from ...messages import ChatMessage
from .protocol import McpError
from .resources import _opt_str
from .tools import _content_part

__all__ = ["McpCompletion", "McpPrompt", "McpPromptArgument", "McpPromptResult"]

_MAX_ARGUMENTS = 1000
_MAX_COMPLETIONS = 100  # MCP's limit for one reply


@dataclass(frozen=True, slots=True)
class McpPromptArgument:
    """One argument a prompt takes: its name, whether it is required, and how to present it.

    >>> McpPromptArgument("code", required=True)
    McpPromptArgument(name='code', title=None, description=None, required=True)
    """

    name: str
    title: str | None = None
    description: str | None = None
    required: bool = False

    def __post_init__(self) -> None:
        _check_name(self.name, "name")
        _check_opt_str(self.title, "title")
        _check_opt_str(self.description, "description")
        if type(self.required) is not bool:
            raise ValidationError(f"expected a boolean, got {type_name(self.required)}", "required", "type")


@dataclass(frozen=True, slots=True, repr=False)
class McpPrompt:
    """One prompt a server lists (``prompts/list``): its name, title, description and arguments.

    >>> McpPrompt("summarize", arguments=(McpPromptArgument("text", required=True),)).required
    ('text',)
    """

    name: str
    title: str | None = None
    description: str | None = None
    arguments: tuple[McpPromptArgument, ...] = ()

    def __post_init__(self) -> None:
        _check_name(self.name, "name")
        _check_opt_str(self.title, "title")
        _check_opt_str(self.description, "description")
        arguments = tuple(self.arguments)
        for index, argument in enumerate(arguments):
            if type(argument) is not McpPromptArgument:
                raise ValidationError(
                    f"expected an McpPromptArgument, got {type_name(argument)}", f"arguments[{index}]", "type"
                )
        object.__setattr__(self, "arguments", arguments)

    @property
    def required(self) -> tuple[str, ...]:
        """Return the names of the required arguments."""
        return tuple(argument.name for argument in self.arguments if argument.required)

    def __repr__(self) -> str:
        return f"McpPrompt(name={self.name!r}, arguments={tuple(a.name for a in self.arguments)!r})"


@dataclass(frozen=True, slots=True, repr=False)
class McpPromptResult:
    """What ``prompts/get`` gave: the prompt's messages as ``ChatMessage``s, its description, the blocks as sent.

    ``from_dict`` reads a ``GetPromptResult`` (a malformed one raises ``McpError(code="protocol")``);
    ``to_dict`` gives it back as sent.
    """

    messages: tuple[ChatMessage, ...]
    description: str | None = None
    blocks: tuple[FrozenDict, ...] = ()

    def __post_init__(self) -> None:
        messages = tuple(self.messages)
        for index, message in enumerate(messages):
            if type(message) is not ChatMessage:
                raise ValidationError(f"expected a ChatMessage, got {type_name(message)}", f"messages[{index}]", "type")
        _check_opt_str(self.description, "description")
        object.__setattr__(self, "messages", messages)
        object.__setattr__(self, "blocks", tuple(self.blocks))

    @classmethod
    def from_dict(cls, data: Any, /) -> McpPromptResult:
        """Parse a ``GetPromptResult``; a malformed one raises ``McpError(code="protocol")``."""
        if not isinstance(data, Mapping):
            raise McpError(f"malformed reply to prompts/get: expected an object, got {type_name(data)}", "protocol")
        return prompt_result(data)

    def to_dict(self) -> dict[str, Any]:
        """Return MCP's ``GetPromptResult`` shape (the content blocks as the server sent them)."""
        out: dict[str, Any] = {"messages": [
            {"role": message.role.name.lower(), "content": thaw_json(block)} for message, block in zip(self.messages, self.blocks)
        ]}
        if self.description is not None:
            out["description"] = self.description
        return out

    def __repr__(self) -> str:
        described = "None" if self.description is None else f"{count(len(self.description), 'char')}"
        return f"McpPromptResult(messages={len(self.messages)}, description={described})"


def _check_name(value: object, path: str) -> None:
    if not isinstance(value, str) or not value:
        raise ValidationError(f"expected a non-empty string, got {type_name(value)}", path, "type")


def _check_opt_str(value: object, path: str) -> None:
    if value is not None and not isinstance(value, str):
        raise ValidationError(f"expected a string or null, got {type_name(value)}", path, "type")


def prompt_info(item: object, index: int) -> McpPrompt:
    """Return entry ``index`` of a ``prompts/list`` reply as an ``McpPrompt``."""
    where = f"malformed reply to prompts/list: prompts[{index}]"
    if not isinstance(item, dict):
        raise McpError(f"{where} must be an object", "protocol")
    raw = item.get("arguments")
    if raw is None:
        raw = []
    if not isinstance(raw, list) or len(raw) > _MAX_ARGUMENTS:
        raise McpError(f"{where}.arguments must be an array of at most {_MAX_ARGUMENTS} objects", "protocol")
    arguments = []
    for position, argument in enumerate(raw):
        if not isinstance(argument, dict):
            raise McpError(f"{where}.arguments[{position}] must be an object", "protocol")
        name: Any = argument.get("name")  # McpPromptArgument checks it
        try:
            arguments.append(McpPromptArgument(
                name, _opt_str(argument, "title"), _opt_str(argument, "description"), argument.get("required") is True
            ))
        except ValidationError as exc:
            raise McpError(f"{where}.arguments[{position}].{exc}", "protocol") from None
    prompt_name: Any = item.get("name")  # McpPrompt checks it
    try:
        return McpPrompt(prompt_name, _opt_str(item, "title"), _opt_str(item, "description"), tuple(arguments))
    except ValidationError as exc:
        raise McpError(f"{where}.{exc}", "protocol") from None


def prompt_arguments(arguments: Mapping[str, Any] | None) -> dict[str, str]:
    """Return ``arguments`` for ``prompts/get``: a JSON object of strings (MCP's rule), else ``ValidationError``.

    >>> prompt_arguments({"code": "print(1)"})
    {'code': 'print(1)'}
    >>> try:
    ...     prompt_arguments({"n": 3})
    ... except ValidationError as exc:
    ...     print(exc)
    arguments.n: expected a string, got number
    """
    if arguments is None:
        return {}
    if not isinstance(arguments, Mapping):
        raise ValidationError(f"expected an object, got {type_name(arguments)}", "arguments", "type")
    out = {}
    for key, value in arguments.items():
        if not isinstance(key, str):
            raise ValidationError(f"expected string keys, got {type_name(key)}", "arguments", "type")
        if not isinstance(value, str):
            raise ValidationError(f"expected a string, got {type_name(value)}", f"arguments.{key[:80]}", "type")
        out[key] = value
    return out


def prompt_result(result: Mapping[str, Any]) -> McpPromptResult:
    """Return a ``prompts/get`` result as an ``McpPromptResult`` (see the module docstring for the rendering)."""
    raw = result.get("messages")
    if not isinstance(raw, list):
        raise McpError("malformed reply to prompts/get: messages must be an array", "protocol")
    messages: list[ChatMessage] = []
    blocks: list[FrozenDict] = []
    for index, item in enumerate(raw):
        try:
            message, block = _prompt_message(item, index)
        except ValidationError as exc:
            raise McpError(f"malformed reply to prompts/get: messages[{index}].{exc}", "protocol") from None
        messages.append(message)
        blocks.append(block)
    return McpPromptResult(tuple(messages), _opt_str(result, "description"), tuple(blocks))


def _prompt_message(item: object, index: int) -> tuple[ChatMessage, FrozenDict]:
    if not isinstance(item, dict):
        raise ValidationError(f"expected an object, got {type_name(item)}", "", "type")
    role = item.get("role")
    if role not in ("user", "assistant"):
        raise ValidationError('must be "user" or "assistant"', "role", "value")
    block = freeze_json(item.get("content"), "content")
    if type(block) is not FrozenDict:
        raise ValidationError(f"expected an object, got {type_name(block)}", "content", "type")
    part, _ = _content_part(block, 0)
    if part is None:
        part = TextPart(f"[content omitted: {str(block.get('type'))[:40]} is not a content type this client knows]")
    if role == "user":
        if type(part) is TextPart:
            return ChatMessage.user(part.text), block
        return ChatMessage.user([part]), block
    if type(part) is TextPart:
        return ChatMessage.assistant(part.text), block
    return ChatMessage.assistant("[image omitted: an assistant message carries text only]"), block


@dataclass(frozen=True, slots=True)
class McpCompletion:
    """Suggested values for an argument (``completion/complete``): at most 100, ``total`` and ``has_more`` if known.

    >>> completion({"completion": {"values": ["python", "pytorch", "pyside"], "total": 10, "hasMore": True}})
    McpCompletion(values=('python', 'pytorch', 'pyside'), total=10, has_more=True)
    """

    values: tuple[str, ...]
    total: int | None = None
    has_more: bool = False


def completion(result: Mapping[str, Any]) -> McpCompletion:
    """Return a ``completion/complete`` result as an ``McpCompletion``."""
    found = result.get("completion")
    values = found.get("values") if isinstance(found, dict) else None
    if not isinstance(found, dict) or not isinstance(values, list) or len(values) > _MAX_COMPLETIONS:
        raise McpError(
            f"malformed reply to completion/complete: completion.values must be an array of at most {_MAX_COMPLETIONS} strings",
            "protocol",
        )
    if not all(isinstance(value, str) for value in values):
        raise McpError("malformed reply to completion/complete: completion.values must hold strings", "protocol")
    total = found.get("total")
    return McpCompletion(
        tuple(values), total if type(total) is int else None, found.get("hasMore") is True
    )


def completion_reference(prompt: str | None, uri_template: str | None) -> dict[str, str]:
    """Return the ``ref`` of a ``completion/complete`` request: a prompt's name or a resource template."""
    if (prompt is None) == (uri_template is None):
        raise TypeError("give prompt= (a prompt's name) or uri_template= (a resource template), not both")
    if prompt is not None:
        if not isinstance(prompt, str) or not prompt:
            raise TypeError("prompt must be a non-empty string")
        return {"type": "ref/prompt", "name": prompt}
    if not isinstance(uri_template, str) or not uri_template:
        raise TypeError("uri_template must be a non-empty string")
    return {"type": "ref/resource", "uri": uri_template}
