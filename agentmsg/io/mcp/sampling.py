"""Sampling: a server asks the host's model for a completion (``sampling/createMessage``).

>>> request = SamplingRequest("docs", (ChatMessage.user("What is the capital of France?"),), 100,
...                           system_prompt="You are a helpful assistant.")
>>> request
SamplingRequest(server='docs', messages=1, max_tokens=100)
>>> [m.role.name for m in request.chat_messages]
['SYSTEM', 'USER']
>>> SamplingResult(ChatMessage.assistant("Paris."), "claude-3-sonnet-20240307").to_dict()
{'role': 'assistant', 'content': {'type': 'text', 'text': 'Paris.'}, 'model': 'claude-3-sonnet-20240307', 'stopReason': 'endTurn'}

The host gives ``McpClient(sampling=handler)``: ``handler(SamplingRequest)`` returns a
``SamplingResult`` (or None: the user declined). ``provider_sampler`` makes a handler from a
provider codec and a model call. The request's messages are ``ChatMessage``s rendered as a
tool result's content is (``McpToolResult``): text, images in user messages, notes for audio
and for what an assistant message cannot carry. Tool use in sampling (``tools``,
``tool_use``/``tool_result`` blocks) is not offered: such a request is refused.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, Union

from ..._checks import count, type_name
from ..._frozen import FrozenDict, freeze_json
from ...content import ImagePart, TextPart
from ...errors import ValidationError
from ...messages import ChatMessage
from ...providers import Response
from .resources import _opt_str
from .tools import _content_part

__all__ = ["SamplingRequest", "SamplingResult", "provider_sampler"]



@dataclass(frozen=True, slots=True, repr=False)
class SamplingRequest:
    """A server's ``sampling/createMessage``: the conversation to complete and the server's wishes.

    ``messages`` are ``ChatMessage``s (user and assistant); ``chat_messages`` puts the server's
    ``system_prompt`` first. ``max_tokens`` is the most the answer may take. ``temperature``,
    ``stop_sequences``, ``model_hints`` (model names, best first), ``include_context`` and
    ``metadata`` are advisory. ``server`` names the client's server. ``cancelled`` is set when
    the server withdraws the request or its time is up.
    """

    server: str
    messages: tuple[ChatMessage, ...]
    max_tokens: int
    system_prompt: str | None = None
    temperature: float | None = None
    stop_sequences: tuple[str, ...] = ()
    model_hints: tuple[str, ...] = ()
    include_context: str | None = None
    metadata: FrozenDict | None = None
    cancelled: threading.Event = field(default_factory=threading.Event, compare=False)

    @property
    def chat_messages(self) -> tuple[ChatMessage, ...]:
        """Return the system prompt (if any) and the messages, ready for a provider's ``to_request``."""
        if self.system_prompt:
            return (ChatMessage.system(self.system_prompt), *self.messages)
        return self.messages

    def __repr__(self) -> str:
        return f"SamplingRequest(server={self.server!r}, messages={len(self.messages)}, max_tokens={self.max_tokens})"

    @classmethod
    def from_params(cls, server: str, params: Mapping[str, Any]) -> SamplingRequest:
        """Read a ``sampling/createMessage`` request's params; a bad one raises ``ValidationError``."""
        if params.get("tools") is not None or params.get("toolChoice") is not None:
            raise ValidationError("tool use in sampling is not supported by this client", "tools", "unsupported")
        raw = params.get("messages")
        if not isinstance(raw, list) or not raw:
            raise ValidationError("expected a non-empty array", "messages", "type")
        messages = []
        for index, item in enumerate(raw):
            try:
                messages.append(_sampling_message(item))
            except ValidationError as exc:
                raise exc.prefixed(index).prefixed("messages") from None
        max_tokens = params.get("maxTokens")
        if type(max_tokens) is not int or max_tokens < 1:
            raise ValidationError("must be a positive integer", "maxTokens", "value")
        temperature = params.get("temperature")
        if temperature is not None and (isinstance(temperature, bool) or not isinstance(temperature, (int, float))):
            raise ValidationError(f"expected a number, got {type_name(temperature)}", "temperature", "type")
        preferences = params.get("modelPreferences")
        hints = preferences.get("hints") if isinstance(preferences, dict) else None
        metadata = params.get("metadata")
        return cls(
            server,
            tuple(messages),
            max_tokens,
            _opt_str(params, "systemPrompt"),
            None if temperature is None else float(temperature),
            _strings(params.get("stopSequences")),
            _strings([h.get("name") for h in hints if isinstance(h, dict)] if isinstance(hints, list) else None),
            _opt_str(params, "includeContext"),
            freeze_json(metadata, "metadata") if isinstance(metadata, dict) else None,
        )


def _strings(items: object) -> tuple[str, ...]:
    """Return the strings of a list (advisory values: anything else is left out)."""
    return tuple(item for item in items if isinstance(item, str)) if isinstance(items, list) else ()


def _sampling_message(item: object) -> ChatMessage:
    """Return one ``SamplingMessage`` as a ``ChatMessage`` (text, images for the user, notes for the rest)."""
    if not isinstance(item, dict):
        raise ValidationError(f"expected an object, got {type_name(item)}", "", "type")
    role = item.get("role")
    if role not in ("user", "assistant"):
        raise ValidationError('must be "user" or "assistant"', "role", "value")
    content = item.get("content")
    blocks = content if isinstance(content, list) else [content]
    parts: list[TextPart | ImagePart] = []
    for index, raw in enumerate(blocks):
        block = freeze_json(raw, f"content[{index}]")
        if type(block) is not FrozenDict:
            raise ValidationError(f"expected an object, got {type_name(block)}", f"content[{index}]", "type")
        if block.get("type") in ("tool_use", "tool_result"):
            raise ValidationError("tool use in sampling is not supported by this client", "content", "unsupported")
        part, _ = _content_part(block, index)
        if part is None:
            continue
        if role == "assistant" and type(part) is ImagePart:
            part = TextPart("[image omitted: an assistant message carries text only]")
        parts.append(part)
    if role == "user":
        if all(type(p) is TextPart for p in parts):
            return ChatMessage.user("\n".join(p.text for p in parts))  # type: ignore[union-attr]  # all text parts
        return ChatMessage.user(parts)
    return ChatMessage.assistant("\n".join(p.text for p in parts if type(p) is TextPart))


_STOP_REASONS = {
    "stop": "endTurn", "end_turn": "endTurn", "STOP": "endTurn", "completed": "endTurn",
    "length": "maxTokens", "max_tokens": "maxTokens", "MAX_TOKENS": "maxTokens", "incomplete": "maxTokens",
    "stop_sequence": "stopSequence",
    "tool_calls": "toolUse", "tool_use": "toolUse",
}


@dataclass(frozen=True, slots=True, repr=False)
class SamplingResult:
    """What the host's model answered a ``SamplingRequest``: an assistant message, the model's name, why it stopped.

    >>> SamplingResult.from_response(Response(ChatMessage.assistant("Hi"), "length"), "gpt-4o").stop_reason
    'maxTokens'

    ``stop_reason`` is MCP's (``endTurn``, ``maxTokens``, ``stopSequence``) or any other string.
    The server receives the message's text.
    """

    message: ChatMessage
    model: str
    stop_reason: str | None = "endTurn"

    def __post_init__(self) -> None:
        if type(self.message) is not ChatMessage or self.message.role.name != "ASSISTANT":
            raise ValidationError("expected an assistant ChatMessage", "message", "type")
        if not isinstance(self.model, str) or not self.model:
            raise ValidationError(f"expected a non-empty string, got {type_name(self.model)}", "model", "type")
        if self.stop_reason is not None and not isinstance(self.stop_reason, str):
            raise ValidationError(f"expected a string or null, got {type_name(self.stop_reason)}", "stop_reason", "type")

    def __repr__(self) -> str:
        return f"SamplingResult(model={self.model!r}, text={count(len(self.message.text), 'char')}, stop_reason={self.stop_reason!r})"

    @classmethod
    def from_response(cls, response: Response, model: str) -> SamplingResult:
        """Return the result for a provider codec's ``Response`` (``parse_response``'s) from ``model``."""
        reason = response.finish_reason
        return cls(response.message, model, _STOP_REASONS.get(reason, reason) if reason else None)

    def to_dict(self) -> dict[str, Any]:
        """Return MCP's ``CreateMessageResult`` shape."""
        out: dict[str, Any] = {"role": "assistant", "content": {"type": "text", "text": self.message.text}, "model": self.model}
        if self.stop_reason is not None:
            out["stopReason"] = self.stop_reason
        return out


class _Provider(Protocol):
    def to_request(self, messages: Iterable[ChatMessage], tools: Iterable[Any] = (), **params: Any) -> dict[str, Any]: ...

    def parse_response(self, body: Any) -> Response: ...


Sampler = Callable[[SamplingRequest], Union[SamplingResult, None]]


def provider_sampler(
    provider: _Provider, call: Callable[[dict[str, Any]], Any], /, *, max_tokens_key: str | None = "max_tokens", **params: Any
) -> Sampler:
    """Return a sampling handler that asks the host's model through a provider codec.

    >>> from ...providers import openai
    >>> def call(body):  # the HTTP call to the provider, scripted here
    ...     reply = {"role": "assistant", "content": f"{len(body['messages'])} messages, {body['max_tokens']} tokens"}
    ...     return {"choices": [{"index": 0, "message": reply, "finish_reason": "stop"}]}
    >>> sample = provider_sampler(openai, call, model="gpt-4o")
    >>> result = sample(SamplingRequest("docs", (ChatMessage.user("Hi"),), 100, system_prompt="Be brief."))
    >>> result.message.text, result.model, result.stop_reason
    ('2 messages, 100 tokens', 'gpt-4o', 'endTurn')

    The request's messages (its system prompt first) go through ``provider.to_request`` with
    ``params``; the request's ``max_tokens`` goes in as ``max_tokens_key`` (at most the value
    ``params`` gives it; None leaves it out, for a provider that names it otherwise);
    ``call(body)`` returns the provider's response body; ``provider.parse_response`` reads it.
    ``params["model"]`` names the model to the server.
    """
    if not callable(call) or not hasattr(provider, "to_request") or not hasattr(provider, "parse_response"):
        raise TypeError("provider_sampler(provider, call, **params): a provider module and a callable that calls the model")

    def sample(request: SamplingRequest) -> SamplingResult:
        body_params = dict(params)
        if max_tokens_key is not None:
            limit = params.get(max_tokens_key)
            body_params[max_tokens_key] = min(limit, request.max_tokens) if isinstance(limit, int) else request.max_tokens
        body = provider.to_request(request.chat_messages, **body_params)
        response = provider.parse_response(call(body))
        return SamplingResult.from_response(response, str(params.get("model") or body.get("model") or "unknown"))

    return sample
