"""The kinds of document the validator knows: how to spot each one and how to check it.

>>> [kind.name for kind in candidates({"role": "user", "content": "Hi"})]
['chat_message']
>>> [kind.name for kind in candidates([{"role": "user", "content": "Hi"}])]
['conversation']
>>> KINDS["tool_call"].check({"id": "call_1", "name": "bad name"})
Traceback (most recent call last):
    ...
agentmsg.errors.ValidationError: name: must be 1-64 characters of letters, digits and underscores

Each area adds one entry to ``_REGISTRY``: a name, a one-line summary, a detector, a checker and
the name of its shipped JSON Schema. A detector looks only at the document's shape (the keys of
an object, or of an array's first item), so the validator caches detection by shape; it answers
with a specificity (0: not this kind; more keys matched: more specific), and candidates are tried
most specific first. A checker takes the parsed document and raises ``ValidationError`` or
``ConversationOrderError`` for a problem, or ``Problems`` for several independent ones.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

from ._codec import expect_object, type_name
from .errors import ConversationOrderError, ValidationError
from .events import decode as decode_event
from .history import ConversationHistory
from .messages import ChatMessage
from .streaming import ToolCallDelta
from .tools import ToolCall, ToolDefinition, ToolResult

__all__ = ["Kind", "KINDS", "DETECTED", "Problems", "candidates", "fields", "items", "all_kinds"]

# A shape: (is_array, keys). For an array, the keys of its first item; None for an empty array,
# an empty frozenset when the first item is not an object. Scalars have no shape.
Shape = tuple[bool, "frozenset[str] | None"]
Detector = Callable[[Shape], int]


class Problems(Exception):
    """Several independent problems in one document (each a ValidationError or order error)."""

    def __init__(self, errors: list[ValidationError | ConversationOrderError]) -> None:
        super().__init__(f"{len(errors)} problems")
        self.errors = errors


@dataclass(frozen=True, slots=True)
class Kind:
    """One kind of document: its name, how to spot it, how to check it, its shipped schema."""

    name: str
    summary: str
    detect: Detector
    check: Callable[[Any], object]
    schema: str | None = None


def fields(*required: str, absent: tuple[str, ...] = ()) -> Detector:
    """Return a detector for an object holding every ``required`` key and none of ``absent``.

    >>> fields("model", "messages")((False, frozenset({"model", "messages", "stream"})))
    2
    """
    need, without = frozenset(required), frozenset(absent)
    score = len(need)

    def detect(shape: Shape) -> int:
        is_array, keys = shape
        if is_array or keys is None or not need <= keys or not without.isdisjoint(keys):
            return 0
        return score

    return detect


def items(*required: str) -> Detector:
    """Return a detector for an array whose first item holds every ``required`` key (or is empty).

    >>> detect = items("role")
    >>> detect((True, frozenset({"role", "content"}))), detect((True, None)), detect((False, frozenset()))
    (1, 1, 0)
    """
    need = frozenset(required)
    score = len(need)

    def detect(shape: Shape) -> int:
        is_array, keys = shape
        if not is_array:
            return 0
        if keys is None:
            return 1  # an empty array is a valid list of anything
        return score if need <= keys else 0

    return detect


# -- checkers ---------------------------------------------------------------------------------


def _each(check: Callable[[Any], Any], what: str) -> Callable[[Any], list[Any]]:
    """Return a checker for an array of documents: every item is checked, every problem kept."""

    def check_all(doc: Any) -> list[Any]:
        if type(doc) is not list:
            raise ValidationError(f"expected an array of {what}, got {type_name(doc)}", "", "type")
        values: list[Any] = []
        errors: list[ValidationError | ConversationOrderError] = []
        for i, item in enumerate(doc):
            try:
                values.append(check(item))
            except ValidationError as exc:
                errors.append(exc.prefixed(i))
        if errors:
            raise Problems(errors)
        return values

    return check_all


_messages = _each(ChatMessage.from_dict, "messages")
_definitions = _each(ToolDefinition.from_dict, "tool definitions")


def check_conversation(doc: Any) -> ConversationHistory:
    """Check every message, then their order, and that no tool call is left unanswered."""
    history = ConversationHistory()
    for message in _messages(doc):
        history.add(message)
    history.validate()
    return history


def check_tool_definitions(doc: Any) -> list[ToolDefinition]:
    """Check every tool definition, and that no two share a name."""
    definitions = _definitions(doc)
    seen: set[str] = set()
    errors: list[ValidationError | ConversationOrderError] = []
    for i, definition in enumerate(definitions):
        if definition.name in seen:
            errors.append(ValidationError("tool names must be unique in a list of tools", f"[{i}].name", "unique"))
        seen.add(definition.name)
    if errors:
        raise Problems(errors)
    return definitions


def check_event(doc: Any) -> object:
    """Check a socket event written as ``{"event": name, "payload": {...}}``."""
    data = expect_object(doc)
    if "payload" not in data:
        raise ValidationError("is required", "payload", "missing")
    name = data.get("event")
    if name is None:
        raise ValidationError("is required", "event", "missing")
    try:
        return decode_event(name, data["payload"])
    except ValidationError as exc:
        if exc.path == "event" and exc.code in ("type", "removed", "unknown_event"):
            raise  # the name is wrong, not the payload
        raise exc.prefixed("payload") from None


# -- the registry -----------------------------------------------------------------------------

_REGISTRY = (
    Kind("chat_message", "one chat message {role, content, ...}", fields("role", absent=("model",)),
         ChatMessage.from_dict, "chat_message"),
    Kind("conversation", "an array of chat messages, checked in order as a ConversationHistory",
         items("role"), check_conversation, "conversation"),
    Kind("tool_call", "a tool call {id, name, arguments}", fields("id", "name", absent=("role",)),
         ToolCall.from_dict, "tool_call"),
    Kind("tool_result", "a tool result {tool_call_id, result, is_error}", fields("tool_call_id", "result"),
         ToolResult.from_dict, "tool_result"),
    Kind("tool_definition", "a tool definition {name, description, parameters, strict}",
         fields("name", "parameters"), ToolDefinition.from_dict, "tool_definition"),
    Kind("tool_definitions", "an array of tool definitions with unique names", items("name", "parameters"),
         check_tool_definitions, None),
    Kind("tool_call_delta", "a streamed tool-call fragment {index, id, name, arguments_delta}",
         fields("index", absent=("type", "role")), ToolCallDelta.from_dict, "tool_call_delta"),
    Kind("event", "a socket event {event: name, payload: {...}} (agentmsg.events)", fields("event", "payload"),
         check_event, "event"),
)

KINDS: dict[str, Kind] = {kind.name: kind for kind in _REGISTRY}

_ARRAY = object()
_NOT_OBJECT = object()
DETECTED: dict[Hashable, tuple[Kind, ...]] = {}  # shape key -> candidates; see candidates()


def shape_of(doc: Any) -> Shape | None:
    """Return the shape detectors look at, or None for a scalar."""
    if type(doc) is dict:
        return False, frozenset(doc)
    if type(doc) is list:
        if not doc:
            return True, None
        first = doc[0]
        return True, frozenset(first) if type(first) is dict else frozenset()
    return None


def candidates(doc: Any) -> tuple[Kind, ...]:
    """Return the kinds ``doc`` may be, most specific first (cached by shape)."""
    t = type(doc)
    if t is dict:
        key: Hashable = tuple(doc)
    elif t is list:
        first = doc[0] if doc else None
        key = (_ARRAY, *first) if type(first) is dict else (_ARRAY, _NOT_OBJECT if doc else None)
    else:
        return ()
    found = DETECTED.get(key)
    if found is None:
        found = _detect(shape_of(doc))
        if len(DETECTED) < 4096:
            DETECTED[key] = found
    return found


def _detect(shape: Shape | None) -> tuple[Kind, ...]:
    if shape is None:
        return ()
    scored = [(kind.detect(shape), i, kind) for i, kind in enumerate(_REGISTRY)]
    return tuple(kind for score, _, kind in sorted(scored, key=lambda s: (-s[0], s[1])) if score > 0)


def all_kinds() -> tuple[Kind, ...]:
    """Return every kind, in registry order."""
    return _REGISTRY
