"""The order of a conversation's messages, checked so that each broken rule is reported once.

>>> order = Order()
>>> for i, message in enumerate([ChatMessage.user("Hi"), ChatMessage.assistant("Hello"),
...                              ChatMessage.tool("call_9", "rain"), ChatMessage.user("Thanks")]):
...     problem = order.add(message, f"[{i}]")
...     if problem is not None:
...         print(problem)
[0]: the first message must be a system message (ConversationHistory(require_system=False) allows a conversation without one)
[2]: tool message must answer a pending tool call: unknown tool_call_id

The one order check of the validator: a conversation (whole, streamed, or a line at a time with
``--conversation``) and the messages of a provider's request all go through it. The rules are
``ConversationHistory``'s (an ``OrderCheck``); after a message breaks one, the check resumes as
if the order had allowed it (``OrderCheck.resume``), so the next problems are the real ones, not
the first one again. A message that is not valid at all (``skip``) leaves the order unknown: its
role or its tool calls may be what is wrong, so nothing after it is checked until the next user
or assistant message, from which the check goes on.
"""

from __future__ import annotations

from ..errors import ConversationOrderError, ValidationError
from ..history import OrderCheck
from ..messages import ChatMessage
from ..roles import MessageRole

__all__ = ["Order"]

_SYSTEM, _USER, _ASSISTANT, _TOOL = MessageRole


class Order:
    """The order rules, fed one message at a time; each broken rule comes back as a problem."""

    __slots__ = ("_check", "_lost")

    def __init__(self, require_system: bool = True) -> None:
        self._check = OrderCheck(require_system)
        self._lost = False  # a message that is not valid came last: the order is not known

    def add(self, message: ChatMessage, path: str) -> ValidationError | None:
        """Take the next message; return the rule it breaks, placed at ``path``, or None."""
        check = self._check
        if self._lost:
            if message.role is _USER or message.role is _ASSISTANT:
                check.resume(message)
                self._lost = False
            return None
        try:
            check.add(message)
        except ConversationOrderError as exc:
            check.resume(message)
            return ValidationError(exc.message, path, exc.code)
        return None

    def skip(self) -> None:
        """Note a message that is not valid: the order is unknown until the next user or assistant message."""
        self._lost = True

    def end(self, path: str) -> ValidationError | None:
        """Return the problem of the conversation's end (a tool call left unanswered), placed at ``path``."""
        if self._lost:
            return None
        try:
            self._check.validate()
        except ConversationOrderError as exc:
            return ValidationError(exc.message, path, exc.code)
        return None
