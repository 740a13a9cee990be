"""Chat messages: who speaks, what they say, which tools they call or answer."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from ._checks import check_nonempty, check_text, count, expect_object, get_bool, get_str, map_items, sized, type_name
from ._construct import builder, from_table, raw_setters, row
from .content import ContentPart, ImagePart, ReasoningPart, TextPart, part_from_dict, reasoning_from_dict
from .errors import ValidationError
from .roles import ROLE_BY_NAME, ROLE_NAMES, MessageRole
from .tools import ToolCall, tool_call_from_dict, tool_calls_to_dicts

__all__ = ["ChatMessage", "Content", "ToolResult"]

Content = str | tuple[ContentPart, ...] | None

SYSTEM, USER, ASSISTANT, TOOL = MessageRole


def _check_role(role: object) -> MessageRole:
    if type(role) is MessageRole:
        return role
    if isinstance(role, str):
        return MessageRole.parse(role)
    raise ValidationError(f"expected a MessageRole or a role name, got {type_name(role)}", "role", "type")


def _check_content(content: object, role: MessageRole) -> Content:
    """Return content as str, a tuple of parts, or None; images only for user and tool."""
    if type(content) is str:
        return check_text(content, "content")
    if content is None:
        return None
    if isinstance(content, (list, tuple)):
        if not content:
            raise ValidationError(
                "must hold at least one part (use a string, even empty, for no text)", "content", "value"
            )
        images_allowed = role is USER or role is TOOL
        for i, part in enumerate(content):
            kind = type(part)
            if kind is ImagePart:
                if not images_allowed:
                    raise ValidationError(
                        f"images are allowed only in user and tool messages, not {role}",
                        f"content[{i}]",
                        "value",
                    )
            elif kind is not TextPart:
                raise ValidationError(
                    f"expected a TextPart or ImagePart, got {type_name(part)}", f"content[{i}]", "type"
                )
        return content if type(content) is tuple else tuple(content)
    if isinstance(content, str):
        return check_text(str(content), "content")
    raise ValidationError(f"expected a string or a list of parts, got {type_name(content)}", "content", "type")


def _check_tool_calls(tool_calls: object) -> tuple[ToolCall, ...]:
    if type(tool_calls) is not tuple:
        if not isinstance(tool_calls, (list, tuple)):
            raise ValidationError(f"expected a list of ToolCall, got {type_name(tool_calls)}", "tool_calls", "type")
        tool_calls = tuple(tool_calls)
    for i, call in enumerate(tool_calls):
        if type(call) is not ToolCall:
            raise ValidationError(f"expected a ToolCall, got {type_name(call)}", f"tool_calls[{i}]", "type")
    return tool_calls


def _check_reasoning(reasoning: object, role: MessageRole) -> tuple[ReasoningPart, ...]:
    if type(reasoning) is not tuple:
        if not isinstance(reasoning, (list, tuple)):
            raise ValidationError(f"expected a list of ReasoningPart, got {type_name(reasoning)}", "reasoning", "type")
        reasoning = tuple(reasoning)
    if reasoning and role is not ASSISTANT:
        raise ValidationError(f"only assistant messages carry reasoning, not {role}", "reasoning", "value")
    for i, part in enumerate(reasoning):
        if type(part) is not ReasoningPart:
            raise ValidationError(f"expected a ReasoningPart, got {type_name(part)}", f"reasoning[{i}]", "type")
    return reasoning


def _check_rules(
    role: MessageRole, content: Content, tool_calls: tuple[ToolCall, ...], tool_call_id: object, is_error: object
) -> None:
    """Check the rules that tie the fields to the role."""
    if tool_calls:
        if role is not ASSISTANT:
            raise ValidationError(f"only assistant messages carry tool calls, not {role}", "tool_calls", "value")
        if not _unique_ids(tool_calls):
            seen: set[str] = set()
            for i, call in enumerate(tool_calls):
                if call.id in seen:
                    raise ValidationError("tool call ids must be unique within a message", f"tool_calls[{i}].id", "unique")
                seen.add(call.id)
    if role is TOOL:
        if type(tool_call_id) is not str:
            if tool_call_id is None:
                raise ValidationError("is required for tool messages", "tool_call_id", "missing")
            raise ValidationError(f"expected a string, got {type_name(tool_call_id)}", "tool_call_id", "type")
        if not tool_call_id:
            raise ValidationError("must not be empty", "tool_call_id", "value")
        check_text(tool_call_id, "tool_call_id")
        if is_error is not True and is_error is not False:
            raise ValidationError(f"expected a boolean, got {type_name(is_error)}", "is_error", "type")
    else:
        if tool_call_id is not None:
            raise ValidationError(f"only tool messages carry tool_call_id, not {role}", "tool_call_id", "value")
        if is_error is not False:
            raise ValidationError(f"only tool messages carry is_error, not {role}", "is_error", "value")
    if content is None:
        if role is not ASSISTANT:
            raise ValidationError(f"is required for {role} messages (the empty string is valid)", "content", "missing")
        if not tool_calls:
            raise ValidationError("an assistant message needs content or at least one tool call", "content", "missing")


def _unique_ids(calls: tuple[ToolCall, ...]) -> bool:
    """Return whether the calls' ids differ (one or two calls, the usual case, without a set)."""
    n = len(calls)
    if n < 2:
        return True
    if n == 2:
        return calls[0].id != calls[1].id
    return len({call.id for call in calls}) == n


@from_table()
@dataclass(frozen=True, slots=True, repr=False)
class ChatMessage:
    """One message of a conversation; build it with a factory.

    >>> ChatMessage.user("Hello").to_dict()
    {'role': 'user', 'content': 'Hello'}
    >>> call = ToolCall("call_001", "write_file", {"path": "hello.py"})
    >>> ChatMessage.assistant("Writing it.", [call])
    ChatMessage(role=assistant, content=<11 chars>, tool_calls=[call_001:write_file])
    >>> ChatMessage.tool("call_001", "File written").to_dict()
    {'role': 'tool', 'tool_call_id': 'call_001', 'content': 'File written'}
    >>> try:
    ...     ChatMessage.assistant()
    ... except ValidationError as exc:
    ...     print(exc)
    content: an assistant message needs content or at least one tool call

    ``content`` is a string, a tuple of ``TextPart``/``ImagePart`` (a list becomes a tuple), or
    None. Images appear only in user and tool content; only assistants carry ``tool_calls`` and
    ``reasoning`` (``ReasoningPart``s, which never count as content); only tool messages carry
    ``tool_call_id`` and ``is_error``.
    """

    role: MessageRole = field(metadata=row(to_dict="ROLE_NAMES[$]", repr="ROLE_NAMES[$]", implied={
        "tool_call_id": '"tool"', "tool_calls": '"assistant"', "reasoning": '"assistant"'}))
    content: Content = field(default=None, metadata=row(
        to_dict="$ if type($) is str else [part.to_dict() for part in $]",
        repr='count(len($), "char" if type($) is str else "part")'))
    tool_calls: tuple[ToolCall, ...] = field(default=(), metadata=row(
        to_dict="tool_calls_to_dicts($)", repr='"[" + ", ".join([f"{call.id}:{call.name}" for call in $]) + "]"',
        excludes="tool_call_id"))
    tool_call_id: str | None = field(default=None, metadata=row(after="role"))
    is_error: bool = field(default=False, metadata=row(requires="tool_call_id"))
    reasoning: tuple[ReasoningPart, ...] = field(default=(), metadata=row(
        excludes="tool_call_id", to_dict="[part.to_dict() for part in $]", repr='"[" + ", ".join([sized(part.text) for part in $]) + "]"'))

    to_dict: ClassVar[Callable[[ChatMessage], dict[str, Any]]]  # written by from_table, as __repr__ is

    def __post_init__(self) -> None:
        role = _check_role(self.role)
        content = _check_content(self.content, role)
        tool_calls = _check_tool_calls(self.tool_calls)
        _check_rules(role, content, tool_calls, self.tool_call_id, self.is_error)
        reasoning = _check_reasoning(self.reasoning, role)
        _set_role(self, role)
        _set_content(self, content)
        _set_tool_calls(self, tool_calls)
        _set_reasoning(self, reasoning)

    # -- factories (the fast path: only the checks their arguments need) --------------------

    @classmethod
    def system(cls, text: str) -> ChatMessage:
        """Return a system message.

        >>> ChatMessage.system("You are terse.").role
        <MessageRole.SYSTEM: 0>
        """
        if type(text) is not str:
            raise ValidationError(f"expected a string, got {type_name(text)}", "content", "type")
        return _make(SYSTEM, check_text(text, "content"))

    @classmethod
    def user(cls, content: str | Iterable[ContentPart]) -> ChatMessage:
        """Return a user message with text or a list of parts.

        >>> from . import ImageSource
        >>> msg = ChatMessage.user([TextPart("What is this?"),
        ...                         ImagePart(ImageSource.from_url("https://example.com/a.png"))])
        >>> len(msg.content), msg.text
        (2, 'What is this?')
        """
        if type(content) is str:
            if not content.isascii():
                check_text(content, "content")
            return _make(USER, content)
        return _make(USER, _check_content(_as_parts(content), USER))

    @classmethod
    def assistant(
        cls,
        content: str | Iterable[TextPart] | None = None,
        tool_calls: Iterable[ToolCall] = (),
        reasoning: Iterable[ReasoningPart] = (),
    ) -> ChatMessage:
        """Return an assistant message with text, tool calls, or both, and the reasoning behind them.

        >>> ChatMessage.assistant("Done.").to_dict()
        {'role': 'assistant', 'content': 'Done.'}
        >>> thought = ReasoningPart("The user wants a greeting.")
        >>> ChatMessage.assistant("Hi!", reasoning=[thought])
        ChatMessage(role=assistant, content=<3 chars>, reasoning=[<26 chars>])
        """
        if type(content) is str:
            checked: Content = content if content.isascii() else check_text(content, "content")
        else:
            checked = None if content is None else _check_content(_as_parts(content), ASSISTANT)
        kind = type(tool_calls)
        calls: tuple[ToolCall, ...] = (
            tool_calls if kind is tuple  # type: ignore[assignment]  # _check_tool_calls checks each item
            else tuple(tool_calls) if kind is list
            else tuple(_iterate(tool_calls, "tool_calls"))
        )
        for call in calls:
            if type(call) is not ToolCall:
                _check_tool_calls(calls)  # raises with the index
        if (checked is None and not calls) or not _unique_ids(calls):
            _check_rules(ASSISTANT, checked, calls, None, False)  # raises, naming the rule
        if reasoning:
            return _make(ASSISTANT, checked, calls, None, False, _check_reasoning(reasoning, ASSISTANT))
        return _make(ASSISTANT, checked, calls)

    @classmethod
    def tool(cls, tool_call_id: str, result: str | Iterable[ContentPart], is_error: bool = False) -> ChatMessage:
        """Return a tool message answering the call ``tool_call_id``.

        >>> ChatMessage.tool("call_001", "boom", is_error=True).to_dict()
        {'role': 'tool', 'tool_call_id': 'call_001', 'content': 'boom', 'is_error': True}

        ``result`` may be text (even empty) or parts, images included (a screenshot, say).
        """
        if type(result) is str:
            content: Content = check_text(result, "content") if not result.isascii() else result
        else:
            content = _check_content(_as_parts(result), TOOL)
        _check_rules(TOOL, content, (), tool_call_id, is_error)
        return _make(TOOL, content, (), tool_call_id, is_error)

    # -- views ------------------------------------------------------------------------------

    @property
    def text(self) -> str:
        """Return the text of the content: the string, or the text parts joined ('' for None)."""
        content = self.content
        if type(content) is str:
            return content
        if content is None:
            return ""
        return "".join([part.text for part in content if type(part) is TextPart])

    # -- codec ------------------------------------------------------------------------------

    @classmethod
    def from_dict(cls, data: Any, /) -> ChatMessage:
        """Parse the canonical JSON shape; unknown keys are ignored, null equals missing.

        >>> ChatMessage.from_dict({"role": "tool", "tool_call_id": "call_001", "content": "ok"})
        ChatMessage(role=tool, content=<2 chars>, tool_call_id='call_001')
        """
        if type(data) is not dict:
            data = expect_object(data)
        raw_role = data.get("role")
        role = ROLE_BY_NAME.get(raw_role) if type(raw_role) is str else None
        if role is None:
            if raw_role is None:
                raise ValidationError("is required", "role", "missing")
            role = MessageRole.parse(raw_role)
        content = data.get("content")
        if type(content) is str:
            if not content.isascii():
                check_text(content, "content")
        elif content is not None:
            content = _content_from_json(content, role)
        raw_calls = data.get("tool_calls")
        calls: tuple[ToolCall, ...] = ()
        if raw_calls:
            if type(raw_calls) is not list:
                raise ValidationError(f"expected an array, got {type_name(raw_calls)}", "tool_calls", "type")
            try:
                calls = tuple([tool_call_from_dict(call) for call in raw_calls])
            except ValidationError:
                calls = tuple(map_items(tool_call_from_dict, raw_calls, "tool_calls"))  # raises again, with the index
        elif raw_calls is not None and type(raw_calls) is not list:
            raise ValidationError(f"expected an array, got {type_name(raw_calls)}", "tool_calls", "type")
        tool_call_id = data.get("tool_call_id")
        is_error = data.get("is_error")
        if is_error is None:
            is_error = False
        raw_reasoning = data.get("reasoning")
        # the common user, assistant and tool messages: every rule of _check_rules written out
        if tool_call_id is None and is_error is False:
            if role is USER and not calls and content is not None:
                if raw_reasoning:
                    _check_reasoning((None,), USER)  # raises: only assistants carry reasoning
                fast = True
            else:
                fast = role is ASSISTANT and raw_reasoning is None and (content is not None or calls != ()) and _unique_ids(calls)
        else:
            fast = (
                role is TOOL and type(tool_call_id) is str and tool_call_id != "" and tool_call_id.isascii()
                and (is_error is False or is_error is True) and content is not None and not calls and raw_reasoning is None
            )
        if fast:
            return _make(role, content, calls, tool_call_id, is_error)
        _check_rules(role, content, calls, tool_call_id, is_error)
        if raw_reasoning:
            return _make(role, content, calls, tool_call_id, is_error, _reasoning_from_json(raw_reasoning, role))
        if raw_reasoning is not None and type(raw_reasoning) is not list:
            raise ValidationError(f"expected an array, got {type_name(raw_reasoning)}", "reasoning", "type")
        return _make(role, content, calls, tool_call_id, is_error)


_set_role, _set_content, _set_tool_calls, _set_reasoning = raw_setters(
    ChatMessage, "role", "content", "tool_calls", "reasoning"
)
_make: Callable[..., ChatMessage] = builder(ChatMessage)


def _iterate(items: object, path: str) -> Iterable[Any]:
    if isinstance(items, (str, bytes, dict)) or not isinstance(items, Iterable):
        raise ValidationError(f"expected an array, got {type_name(items)}", path, "type")
    return items


def _as_parts(content: object) -> tuple[Any, ...]:
    if type(content) is tuple:
        return content
    return tuple(_iterate(content, "content"))


def _content_from_json(content: object, role: MessageRole) -> tuple[ContentPart, ...]:
    if type(content) is not list:
        raise ValidationError(f"expected a string or a list of parts, got {type_name(content)}", "content", "type")
    parts = map_items(part_from_dict, content, "content")
    return _check_content(tuple(parts), role)  # type: ignore[return-value]  # _check_content returns the tuple it got


def _reasoning_from_json(items: object, role: MessageRole) -> tuple[ReasoningPart, ...]:
    if type(items) is not list:
        raise ValidationError(f"expected an array, got {type_name(items)}", "reasoning", "type")
    if role is not ASSISTANT:
        _check_reasoning((None,), role)  # raises: only assistants carry reasoning
    return tuple(map_items(reasoning_from_dict, items, "reasoning"))


@from_table()
@dataclass(frozen=True, slots=True, repr=False)
class ToolResult:
    """What a tool returned for one call: text (possibly empty) and whether it failed.

    >>> result = ToolResult.error("call_001", "file not found")
    >>> result.is_error, result.to_message().to_dict()
    (True, {'role': 'tool', 'tool_call_id': 'call_001', 'content': 'file not found', 'is_error': True})
    """

    tool_call_id: str
    result: str = field(metadata=row(repr="sized($)"))
    is_error: bool = False

    to_dict: ClassVar[Callable[[ToolResult], dict[str, Any]]]  # written by from_table, as __repr__ is

    def __post_init__(self) -> None:
        check_nonempty(self.tool_call_id, "tool_call_id")
        if type(self.result) is not str:
            raise ValidationError(f"expected a string, got {type_name(self.result)}", "result", "type")
        check_text(self.result, "result")
        if type(self.is_error) is not bool:
            raise ValidationError(f"expected a boolean, got {type_name(self.is_error)}", "is_error", "type")

    @classmethod
    def success(cls, tool_call_id: str, result: str) -> ToolResult:
        """Return a successful result.

        >>> ToolResult.success("call_001", "42").to_dict()
        {'tool_call_id': 'call_001', 'result': '42'}
        """
        return cls(tool_call_id, result, False)

    @classmethod
    def error(cls, tool_call_id: str, message: str) -> ToolResult:
        """Return a failed result carrying an error message for the model.

        >>> ToolResult.error("call_001", "timeout").is_error
        True
        """
        return cls(tool_call_id, message, True)

    def to_message(self) -> ChatMessage:
        """Return the tool ``ChatMessage`` that carries this result to the model."""
        return ChatMessage.tool(self.tool_call_id, self.result, self.is_error)

    @classmethod
    def from_dict(cls, data: Any, /) -> ToolResult:
        """Parse the shape that ``to_dict`` gives."""
        data = expect_object(data)
        return cls(get_str(data, "tool_call_id"), get_str(data, "result"), get_bool(data, "is_error", False))
