"""``Response``: what a model answered, as every codec's ``parse_response`` returns it.

>>> Response(ChatMessage.assistant("Hi"), "stop", {"total_tokens": 9})
Response(message=ChatMessage(role=assistant, content=<2 chars>), finish_reason='stop', usage=<1 key>)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._checks import check_opt_str, count, expect_object, get_optional_str, sized, type_name
from .._frozen import FrozenDict, check_json_object, thaw_json
from ..errors import ValidationError
from ..messages import ChatMessage
from ..roles import MessageRole

__all__ = ["Response"]


@dataclass(frozen=True, slots=True, repr=False)
class Response:
    """What a model answered: the assistant message, why it stopped, and the token usage.

    >>> r = Response(ChatMessage.assistant("I can't help with that."), "stop", refusal="I can't help with that.")
    >>> r.message.text == r.refusal, r.usage is None
    (True, True)
    >>> try:
    ...     Response(ChatMessage.user("Hi"))
    ... except ValidationError as exc:
    ...     print(exc)
    message: expected an assistant message, got user

    ``finish_reason`` is the provider's own string (``stop``, ``tool_calls``, ``end_turn``,
    ``tool_use``...); ``usage`` is the provider's usage object, deep-frozen. ``refusal`` holds
    the text of an OpenAI refusal (it is also the message text, so it is never lost).
    """

    message: ChatMessage
    finish_reason: str | None = None
    usage: FrozenDict | None = None
    refusal: str | None = None

    def __post_init__(self) -> None:
        if type(self.message) is not ChatMessage:
            raise ValidationError(
                f"expected a ChatMessage, got {type_name(self.message)}", "message", "type"
            )
        if self.message.role is not MessageRole.ASSISTANT:
            raise ValidationError(
                f"expected an assistant message, got {self.message.role}", "message", "value"
            )
        check_opt_str(self.finish_reason, "finish_reason")
        check_opt_str(self.refusal, "refusal")
        if self.usage is not None:
            object.__setattr__(self, "usage", check_json_object(self.usage, "usage"))

    def to_dict(self) -> dict[str, Any]:
        """Return ``{"message", "finish_reason"?, "usage"?, "refusal"?}`` (None omitted).

        >>> Response(ChatMessage.assistant("Hi"), "stop").to_dict()
        {'message': {'role': 'assistant', 'content': 'Hi'}, 'finish_reason': 'stop'}
        """
        out: dict[str, Any] = {"message": self.message.to_dict()}
        if self.finish_reason is not None:
            out["finish_reason"] = self.finish_reason
        if self.usage is not None:
            out["usage"] = thaw_json(self.usage)
        if self.refusal is not None:
            out["refusal"] = self.refusal
        return out

    @classmethod
    def from_dict(cls, data: Any, /) -> Response:
        """Parse the shape that ``to_dict`` gives.

        >>> Response.from_dict({"message": {"role": "assistant", "content": "Hi"}}).finish_reason is None
        True
        """
        data = expect_object(data)
        try:
            message = ChatMessage.from_dict(data.get("message"))
        except ValidationError as exc:
            raise exc.prefixed("message") from None
        return cls(
            message,
            get_optional_str(data, "finish_reason"),
            data.get("usage"),
            get_optional_str(data, "refusal"),
        )

    def __repr__(self) -> str:
        fields = [f"message={self.message!r}", f"finish_reason={self.finish_reason!r}"]
        if self.usage is not None:
            fields.append(f"usage={count(len(self.usage), 'key')}")
        if self.refusal is not None:
            fields.append(f"refusal={sized(self.refusal)}")
        return f"Response({', '.join(fields)})"
