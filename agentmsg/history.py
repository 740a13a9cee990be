"""A conversation that keeps its messages in an order every provider accepts."""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator
from typing import Any

from ._checks import map_items, type_name
from .errors import ConversationOrderError, ValidationError
from .messages import ChatMessage
from .roles import MessageRole

__all__ = ["ConversationHistory", "OrderCheck"]

SYSTEM, USER, ASSISTANT, TOOL = MessageRole

# Theory of operation: the order is a small state machine over the last message's role, plus
# the set of tool call ids still waiting for their tool message. ``add`` looks only at that state,
# so it is O(1) amortized; the snapshot tuple is cached until the next change.
_START, _AFTER_SYSTEM, _AFTER_USER, _AFTER_ASSISTANT, _AWAITING_TOOLS, _AFTER_TOOLS = range(6)


class ConversationHistory:
    """An ordered, thread-safe conversation that refuses messages out of order.

    >>> history = ConversationHistory()
    >>> history.add(ChatMessage.system("You are terse."))
    >>> history.add(ChatMessage.user("Hi"))
    >>> try:
    ...     history.add(ChatMessage.user("Anyone?"))
    ... except ConversationOrderError as exc:
    ...     print(exc)
    messages[2]: user and assistant messages must alternate: expected an assistant message
    >>> len(history), history.last_message
    (2, ChatMessage(role=user, content=<2 chars>))

    Rules: the first message is the system message (the design's rule AC-105), and there is only
    one; the user speaks first; user and assistant alternate; an assistant message with tool calls
    is followed by exactly one tool message per call id (any order) before anything else; after
    the tool messages the assistant continues, or the user adds a message first.

    ``require_system=False`` is the explicit option for a conversation that has no system prompt
    (one decoded from an Anthropic or Ollama request, whose system text travels apart); a system
    message is then allowed first, and nowhere else:

    >>> try:
    ...     ConversationHistory([ChatMessage.user("Hi")])
    ... except ConversationOrderError as exc:
    ...     print(exc.code, exc)
    system_first messages[0]: the first message must be a system message (ConversationHistory(require_system=False) allows a conversation without one)
    >>> len(ConversationHistory([ChatMessage.user("Hi")], require_system=False))
    1

    A history is equal to another with the same messages and the same option, and it pickles and
    copies (each copy gets its own lock).
    """

    __slots__ = ("_messages", "_snapshot", "_order", "_lock", "_require_system")

    def __init__(self, messages: Iterable[ChatMessage] = (), *, require_system: bool = True) -> None:
        if type(require_system) is not bool:
            raise TypeError("require_system must be True or False")
        self._lock = threading.RLock()
        self._messages: list[ChatMessage] = []
        self._snapshot: tuple[ChatMessage, ...] | None = ()
        self._order = OrderCheck(require_system)
        self._require_system = require_system
        for message in messages:
            self.add(message)

    @property
    def require_system(self) -> bool:
        """Whether the first message must be a system message (the default)."""
        return self._require_system

    def add(self, message: ChatMessage) -> None:
        """Append ``message`` or raise ``ConversationOrderError`` naming the broken rule."""
        if type(message) is not ChatMessage:
            raise TypeError(f"expected a ChatMessage, got {type_name(message)}")
        with self._lock:
            self._order.add(message)
            self._messages.append(message)
            self._snapshot = None

    def extend(self, messages: Iterable[ChatMessage]) -> None:
        """Add each message in turn (stops at the first that breaks the order)."""
        for message in messages:
            self.add(message)

    @property
    def messages(self) -> tuple[ChatMessage, ...]:
        """An immutable snapshot of the messages."""
        snapshot = self._snapshot
        if snapshot is None:
            with self._lock:
                snapshot = self._snapshot = tuple(self._messages)
        return snapshot

    @property
    def last_message(self) -> ChatMessage | None:
        """The last message, or None when empty."""
        with self._lock:
            return self._messages[-1] if self._messages else None

    @property
    def pending_tool_call_ids(self) -> frozenset[str]:
        """Ids of tool calls not answered yet."""
        with self._lock:
            return frozenset(self._order.pending)

    def __len__(self) -> int:
        return len(self._messages)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ConversationHistory):
            return NotImplemented
        return self.messages == other.messages and self._require_system == other._require_system

    __hash__ = None  # type: ignore[assignment]  # it changes: equal by its messages, not hashable

    def __reduce__(self) -> tuple[Any, ...]:
        # A lock cannot be pickled: rebuild from the messages (each copy gets its own lock).
        return (_rebuild, (type(self), self.messages, self._require_system))

    def __copy__(self) -> ConversationHistory:
        return _rebuild(type(self), self.messages, self._require_system)

    def __deepcopy__(self, memo: dict[int, Any]) -> ConversationHistory:
        return _rebuild(type(self), self.messages, self._require_system)  # messages are immutable

    def __iter__(self) -> Iterator[ChatMessage]:
        return iter(self.messages)

    def __repr__(self) -> str:
        return f"ConversationHistory(<{len(self._messages)} messages>)"

    def clear(self) -> None:
        """Remove every message."""
        with self._lock:
            self._messages.clear()
            self._snapshot = ()
            self._order = OrderCheck(self._require_system)

    def validate(self) -> None:
        """Check the conversation is complete: no tool call is left without its result.

        >>> history = ConversationHistory.from_list([
        ...     {"role": "system", "content": "Be brief."},
        ...     {"role": "user", "content": "Weather?"},
        ...     {"role": "assistant", "tool_calls": [{"id": "c1", "name": "weather", "arguments": {}}]},
        ... ])
        >>> try:
        ...     history.validate()
        ... except ConversationOrderError as exc:
        ...     print(exc)
        messages[3]: tool calls left unanswered: 1 call
        """
        with self._lock:
            self._order.validate()

    def to_list(self) -> list[dict[str, Any]]:
        """Return the messages in their canonical JSON shape."""
        return [message.to_dict() for message in self.messages]

    @classmethod
    def from_list(cls, items: Any, /, *, require_system: bool = True) -> ConversationHistory:
        """Parse a list of message documents, checking each and the order.

        Shape errors raise ``ValidationError`` with a path like ``[3].content``; order errors raise
        ``ConversationOrderError``. ``require_system`` is as for the constructor.
        """
        if type(items) is not list and type(items) is not tuple:
            raise ValidationError(f"expected an array of messages, got {type_name(items)}", "", "type")
        history = cls(require_system=require_system)
        decode = ChatMessage.from_dict
        try:
            messages = [decode(item) for item in items]
        except ValidationError:
            messages = None
        if messages is None:  # decode and add one at a time: the first error, shape or order, is raised
            add = history.add
            map_items(lambda item: add(decode(item)), items)
            return history
        history._order.add_all(messages)  # nobody else holds the history yet: no lock, one list
        history._messages = messages
        history._snapshot = None
        return history


class OrderCheck:
    """The order rules of a conversation, checked one message at a time, keeping no message.

    The one implementation of the rules: ``ConversationHistory`` keeps one, and so does the
    validate CLI, which checks a long conversation as it streams past without keeping it.

    >>> order = OrderCheck()
    >>> order.add(ChatMessage.system("Be brief."))
    >>> order.add(ChatMessage.user("Hi"))
    >>> try:
    ...     order.add(ChatMessage.user("Anyone?"))
    ... except ConversationOrderError as exc:
    ...     print(exc.code, exc)
    alternate messages[2]: user and assistant messages must alternate: expected an assistant message

    It keeps only the state the rules need: the count of messages, the last role's state and
    the tool call ids still waiting for their tool message. A message that breaks the order is
    not counted, so checking can go on after an error as ``ConversationHistory.add`` does.
    """

    __slots__ = ("count", "pending", "_state", "_require_system")

    def __init__(self, require_system: bool = True) -> None:
        self.count = 0  # the messages accepted so far
        self.pending: set[str] = set()  # the tool call ids waiting for their tool message
        self._state = _START
        self._require_system = require_system

    def add(self, message: ChatMessage) -> None:
        """Take the next message, or raise ``ConversationOrderError`` naming the broken rule."""
        state = self._state
        if state == _START and self._require_system and message.role is not SYSTEM:
            raise ConversationOrderError(
                "the first message must be a system message "
                "(ConversationHistory(require_system=False) allows a conversation without one)",
                self.count,
                "system_first",
            )
        self._state, pending = _next_state(state, self.pending, message, self.count)
        if pending is not None:
            self.pending = pending
        self.count += 1

    def add_all(self, messages: list[ChatMessage]) -> None:
        """Take each message in turn, as ``add`` does; the count stops at the first that breaks the order."""
        state, pending, count = self._state, self.pending, self.count
        try:
            for message in messages:
                if state == _START and self._require_system and message.role is not SYSTEM:
                    break
                state, new = _next_state(state, pending, message, count)
                if new is not None:
                    pending = new
                count += 1
            else:
                return
        finally:
            self._state, self.pending, self.count = state, pending, count
        self.add(message)  # the first message is not a system message: raises, naming the rule

    def resume(self, message: ChatMessage) -> None:
        """Take ``message`` after ``add`` refused it, as if the order had allowed it.

        So a checker that reports every problem reports each broken rule once, not again on
        every later message: a missing system message is missed once; a user message ends the
        wait for tool results; an assistant message starts its own turn; a stray system or
        tool message changes nothing.

        >>> order = OrderCheck()
        >>> try:
        ...     order.add(ChatMessage.user("Hi"))
        ... except ConversationOrderError as exc:
        ...     order.resume(ChatMessage.user("Hi"))
        >>> order.add(ChatMessage.assistant("Hello"))
        """
        role = message.role
        if role is USER:
            self._state, self.pending = _AFTER_USER, set()
        elif role is ASSISTANT:
            calls = message.tool_calls
            self._state = _AWAITING_TOOLS if calls else _AFTER_ASSISTANT
            self.pending = {call.id for call in calls}
        elif self._state == _START:
            self._state = _AFTER_SYSTEM
        self.count += 1

    def validate(self) -> None:
        """Raise ``ConversationOrderError`` if a tool call is left without its result."""
        if self.pending:
            count = len(self.pending)
            raise ConversationOrderError(
                f"tool calls left unanswered: {count} call{'s' if count > 1 else ''}",
                self.count,
                "incomplete",
            )


def _rebuild(cls: type[ConversationHistory], messages: tuple[ChatMessage, ...], require_system: bool) -> ConversationHistory:
    return cls(messages, require_system=require_system)


def _next_state(
    state: int, pending: set[str], message: ChatMessage, index: int
) -> tuple[int, set[str] | None]:
    """Return the state after ``message`` (and new pending ids), or raise."""
    role = message.role
    if role is SYSTEM:
        if state != _START:
            raise ConversationOrderError(
                "system message must come first, and only once", index, "system_first"
            )
        return _AFTER_SYSTEM, None
    if state == _AWAITING_TOOLS:
        if role is not TOOL:
            raise ConversationOrderError(
                f"every tool call must be answered by a tool message before {'an' if role is ASSISTANT else 'a'} {role} message "
                f"({len(pending)} pending)",
                index,
                "tool_pending",
            )
        call_id = message.tool_call_id
        if call_id not in pending:
            raise ConversationOrderError(
                "tool message must answer a pending tool call: unknown or already answered tool_call_id",
                index,
                "tool_unknown",
            )
        pending.discard(call_id)
        return (_AWAITING_TOOLS if pending else _AFTER_TOOLS), None
    if role is TOOL:
        raise ConversationOrderError(
            "tool message must answer a pending tool call: unknown tool_call_id", index, "tool_unknown"
        )
    if role is USER:
        if state == _AFTER_USER:
            raise ConversationOrderError(
                "user and assistant messages must alternate: expected an assistant message", index, "alternate"
            )
        return _AFTER_USER, None
    # assistant
    if state == _START or state == _AFTER_SYSTEM:
        raise ConversationOrderError("the user must speak first", index, "user_first")
    if state == _AFTER_ASSISTANT:
        raise ConversationOrderError(
            "user and assistant messages must alternate: expected a user message", index, "alternate"
        )
    if message.tool_calls:
        return _AWAITING_TOOLS, {call.id for call in message.tool_calls}
    return _AFTER_ASSISTANT, None
