"""Who speaks: the four roles of a chat conversation."""

from __future__ import annotations

from enum import IntEnum

from .errors import ValidationError

__all__ = ["MessageRole"]


class MessageRole(IntEnum):
    """The role of a chat message; serializes as its lowercase name.

    >>> MessageRole.parse("Assistant")
    <MessageRole.ASSISTANT: 2>
    >>> str(MessageRole.TOOL)
    'tool'
    >>> try:
    ...     MessageRole.parse("robot")
    ... except ValidationError as exc:
    ...     print(exc)
    role: expected one of 'system', 'user', 'assistant', 'tool'
    """

    SYSTEM = 0
    USER = 1
    ASSISTANT = 2
    TOOL = 3

    def __str__(self) -> str:
        return ROLE_NAMES[self]

    @classmethod
    def parse(cls, text: object, /) -> MessageRole:
        """Return the role named ``text`` (case-insensitive)."""
        role = ROLE_BY_NAME.get(text) if type(text) is str else None
        if role is None:
            if isinstance(text, str):
                role = ROLE_BY_NAME.get(text.lower())
                if role is not None:
                    return role
            raise ValidationError("expected one of 'system', 'user', 'assistant', 'tool'", "role", "value")
        return role


# The wire name of each role, indexed by the role's value: the one copy every codec uses.
ROLE_NAMES = ("system", "user", "assistant", "tool")
ROLE_BY_NAME: dict[str, MessageRole] = {name: MessageRole(i) for i, name in enumerate(ROLE_NAMES)}
