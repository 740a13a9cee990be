"""The error family: everything agentmsg raises on purpose is an ``AgentmsgError``.

``AgentmsgError`` is the one base a caller catches. Under it: ``ValidationError`` (bad data:
a ``path`` and a ``code`` from ``CODES``; also a ``ValueError``), ``ConversationOrderError``
(a message out of order: an ``index`` and a code from ``ORDER_CODES``; also a ``ValueError``),
``ProcessingError`` (a processor's I/O failed: a file, a tool process, OCR, an MCP server, the
store) and ``AgentStateError`` (a turn method called in a state that does not allow it; also a
``RuntimeError``).

>>> from . import ChatMessage
>>> try:
...     ChatMessage.from_dict({"role": "user", "content": 5})
... except ValidationError as exc:
...     print(exc)
content: expected a string or a list of parts, got number

``ValidationError.code`` is one word from ``CODES``; tools and tests match on ``code`` and
``path``, never on the wording:

===============  =======================================================================================
``missing``      a required value is absent or null
``type``         a value has the wrong JSON type ("expected a string, got number")
``value``        a value of the right type breaks a rule: empty, out of range, not one of the choices
``pattern``      a string lacks its required form (a name, base64, a URL, a timestamp)
``unique``       something that must be unique repeats (ids, names, object keys)
``unknown``      a name or id that refers to nothing known (an event, a kind, a pending call)
``unexpected``   a field, item or keyword that is not allowed here
``size``         beyond a stated limit: bytes, characters, digits, items, a token budget
``json``         not valid JSON text
``depth``        nested too deeply
``encoding``     not valid UTF-8, or not encodable as UTF-8 (lone surrogates)
``strict``       a tool schema breaks a strict-mode rule
``schema``       a JSON Schema agentmsg cannot read: a malformed or unsupported keyword
``protocol``     an event or message the protocol's state does not allow now
``removed``      an event or field removed from the protocol
``provider``     a provider's error body, reported as such
``unsupported``  valid data the target cannot carry: a provider format, a UI endpoint
``pending``      a record not ready to render (unresolved, unrecognized, a tool call without its result)
``incomplete``   a stream that ended before the provider's end marker (cut off, or empty)
===============  =======================================================================================

``ConversationOrderError.code`` is one of ``ORDER_CODES``, one per ordering rule:

================  ===========================================================================
``system_first``  the system message comes first (unless require_system=False), and only once
``user_first``    the user speaks first
``alternate``     user and assistant messages alternate
``tool_pending``  every tool call is answered before anything else
``tool_unknown``  a tool message answers a pending tool call
``incomplete``    a finished conversation has no unanswered tool calls
================  ===========================================================================
"""

from __future__ import annotations

import re
from collections.abc import Callable

__all__ = [
    "CODES",
    "ORDER_CODES",
    "AgentmsgError",
    "ValidationError",
    "ConversationOrderError",
    "InvalidArgumentsError",
    "ProcessingError",
    "AgentStateError",
]

# The stable codes of ``ValidationError``: one per kind of rule, one word each. Tools and tests
# match on ``code`` and ``path``, never on the wording. The tables in this module's docstring,
# README.md and docs/errors.md are written from CODES and ORDER_CODES: after a change here, run
# ``AGENTMSG_REGENERATE=1 pytest tests/test_error_voice.py`` once to rewrite them.
CODES: dict[str, str] = {
    "missing": "a required value is absent or null",
    "type": 'a value has the wrong JSON type ("expected a string, got number")',
    "value": "a value of the right type breaks a rule: empty, out of range, not one of the choices",
    "pattern": "a string lacks its required form (a name, base64, a URL, a timestamp)",
    "unique": "something that must be unique repeats (ids, names, object keys)",
    "unknown": "a name or id that refers to nothing known (an event, a kind, a pending call)",
    "unexpected": "a field, item or keyword that is not allowed here",
    "size": "beyond a stated limit: bytes, characters, digits, items, a token budget",
    "json": "not valid JSON text",
    "depth": "nested too deeply",
    "encoding": "not valid UTF-8, or not encodable as UTF-8 (lone surrogates)",
    "strict": "a tool schema breaks a strict-mode rule",
    "schema": "a JSON Schema agentmsg cannot read: a malformed or unsupported keyword",
    "protocol": "an event or message the protocol's state does not allow now",
    "removed": "an event or field removed from the protocol",
    "provider": "a provider's error body, reported as such",
    "unsupported": "valid data the target cannot carry: a provider format, a UI endpoint",
    "pending": "a record not ready to render (unresolved, unrecognized, a tool call without its result)",
    "incomplete": "a stream that ended before the provider's end marker (cut off, or empty)",
}

# The codes of ``ConversationOrderError``, one per ordering rule.
ORDER_CODES: dict[str, str] = {
    "system_first": "the system message comes first (unless require_system=False), and only once",
    "user_first": "the user speaks first",
    "alternate": "user and assistant messages alternate",
    "tool_pending": "every tool call is answered before anything else",
    "tool_unknown": "a tool message answers a pending tool call",
    "incomplete": "a finished conversation has no unanswered tool calls",
}


def _load_plain_key(key: str) -> re.Match[str] | None:
    """``fullmatch`` of a key that needs no quoting in a path (compiled on first use, not at import)."""
    global _plain_key
    _plain_key = re.compile(
        r"[A-Za-z_$][A-Za-z0-9_$-]{0,63}|\[\d+\]\S*|[A-Za-z_$][\w$.\[\]-]{0,127}", re.ASCII
    ).fullmatch
    return _plain_key(key)


_plain_key: Callable[[str], re.Match[str] | None] = _load_plain_key


def _join(key: str | int, path: str) -> str:
    if isinstance(key, int):
        head = f"[{key}]"
    elif _plain_key(key):
        head = key
    else:  # a key from the data: quote it, shortened, so the path stays unambiguous
        from json import dumps

        head = dumps(key if len(key) <= 32 else key[:29] + "...")
        head = f"[{head}]"
    if not path:
        return head
    if path[0] == "[":
        return head + path
    return f"{head}.{path}"


class AgentmsgError(Exception):
    """The base of every error agentmsg raises on purpose: catch it to catch them all.

    >>> from . import ChatMessage
    >>> try:
    ...     ChatMessage.from_dict({"role": "pilot"})
    ... except AgentmsgError as exc:
    ...     print(type(exc).__name__, exc.code)
    ValidationError value

    Every subclass carries ``message`` (the rule, never the data) and a stable ``code``.
    """

    message: str
    code: str


class ValidationError(AgentmsgError, ValueError):
    """A document or value broke a rule; ``path`` says where, ``code`` says which kind of rule.

    >>> err = ValidationError("must not be empty", path="name", code="value")
    >>> str(err), err.path, err.code
    ('name: must not be empty', 'name', 'value')
    >>> str(err.prefixed("tool_calls").prefixed(1))
    '[1].tool_calls.name: must not be empty'

    ``code`` is one of ``CODES`` (see the module docstring). Messages state the rule and never
    echo content.
    """

    def __init__(self, message: str, path: str = "", code: str = "value") -> None:
        self.message = message
        self.path = path
        self.code = code
        super().__init__(f"{path}: {message}" if path else message)

    def prefixed(self, key: str | int) -> ValidationError:
        """Return a copy whose path starts with ``key`` (a field name or a list index)."""
        err = type(self).__new__(type(self))
        err.__dict__.update(self.__dict__)
        err.path = _join(key, self.path)
        ValueError.__init__(err, f"{err.path}: {self.message}")
        return err

    def __reduce__(self) -> tuple[object, ...]:
        return (_rebuild, (type(self), self.__dict__.copy()))


def _rebuild(cls: type[ValidationError], state: dict[str, object]) -> ValidationError:
    err = cls.__new__(cls)
    err.__dict__.update(state)
    path, message = state.get("path", ""), state.get("message", "")
    ValueError.__init__(err, f"{path}: {message}" if path else message)
    return err


class ConversationOrderError(AgentmsgError, ValueError):
    """A message was added where the conversation's order does not allow it.

    ``index`` is the position the message would have taken; ``code`` names the rule, one of
    ``ORDER_CODES``.

    >>> err = ConversationOrderError("system message must come first", index=2, code="system_first")
    >>> str(err)
    'messages[2]: system message must come first'
    """

    def __init__(self, message: str, index: int | None = None, code: str = "order") -> None:
        self.message = message
        self.index = index
        self.code = code
        super().__init__(message if index is None else f"messages[{index}]: {message}")

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (self.message, self.index, self.code))


class InvalidArgumentsError(ValidationError):
    """A model sent tool-call arguments that are not a JSON object; the raw text is kept.

    ``raw_arguments`` holds the text exactly as received so retry logic can show it to the
    model again; it never appears in the message.

    >>> from . import ToolCall
    >>> try:
    ...     ToolCall.from_json_arguments("call_1", "search", '{"q": "cats"')
    ... except InvalidArgumentsError as exc:
    ...     print(exc.path, exc.code, len(exc.raw_arguments))
    arguments json 12
    """

    def __init__(
        self, message: str, path: str = "arguments", code: str = "json", raw_arguments: str = ""
    ) -> None:
        super().__init__(message, path, code)
        self.raw_arguments = raw_arguments


class ProcessingError(AgentmsgError):
    """A processor's I/O failed (a file, a tool process, OCR, an MCP server); ``code`` says how.

    Processors catch these and record them on the failed record; they reach callers only from
    the low-level helpers. ``code`` is a stable word each subclass documents.

    >>> import pickle
    >>> err = pickle.loads(pickle.dumps(ProcessingError("is a directory", "directory")))
    >>> err.code, str(err)
    ('directory', 'is a directory')
    """

    def __init__(self, message: str, code: str) -> None:
        super().__init__(message)
        self.message = message
        self.code = code

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (self.message, self.code))


class AgentStateError(AgentmsgError, RuntimeError):
    """A turn method was called in a state that does not allow it; the message names the state.

    >>> str(AgentStateError("run_tools", "model"))
    "run_tools() is not allowed in state 'model' (the turn needs: send request() to the model and receive() its answer)"
    >>> AgentStateError("run_tools", "model").code
    'state'
    """

    def __init__(self, method: str, state: str) -> None:
        self.method = method
        self.state = state
        self.code = "state"
        self.message = f"{method}() is not allowed in state {state!r} (the turn needs: {_NEXT[state]})"
        super().__init__(self.message)

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (self.method, self.state))


_NEXT = {
    "model": "send request() to the model and receive() its answer",
    "tools": "run_tools()",
    "approval": "approve() or deny() each pending call",
    "client": "answer() each call in client_calls with the result the client sent",
    "done": "nothing: read outcome",
}
