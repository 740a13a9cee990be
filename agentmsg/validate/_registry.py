"""The kinds of document the validator knows: how to spot each one and how to check it.

>>> [kind.name for kind in candidates({"role": "user", "content": "Hi"})]
['chat_message']
>>> [kind.name for kind in candidates([{"role": "user", "content": "Hi"}])]
['conversation']
>>> [kind.name for kind in candidates([{"role": "developer", "content": "Be brief."}])]
['conversation', 'openai_messages']
>>> try:
...     KINDS["tool_call"].check({"id": "call_1", "name": "bad name"})
... except ValidationError as exc:
...     print(exc)
name: must be 1-64 characters of letters, digits and underscores

Each area adds one entry to ``_REGISTRY``: a name, a one-line summary, a detector, a checker and
the name of its shipped JSON Schema. A detector looks only at the document's shape (the keys of
an object, or of an array's first item), so the validator caches detection by shape; it answers
with a specificity (0: not this kind; more keys matched: more specific), and candidates are tried
most specific first. A checker takes the parsed document and raises ``ValidationError`` or
``ConversationOrderError`` for a problem, or ``Problems`` for several independent ones. A kind
whose document is an array also gives ``items``, its check fed one element at a time (the
checker is that check run over the whole array), so a big file of one is checked as it streams.
The checkers of agentmsg's own documents are here; those of providers' (``_provider_kinds``,
``_error_bodies``) and MCP's (``_mcp_rules``) documents load with their modules when a document
of theirs is checked. A kind with ``auto=False`` is never detected: only ``--kind`` chooses it
(the Ollama request and tools, which take what an OpenAI one refuses; the training datasets'
lines, which look like a Bedrock request). A training dataset's kind also gives ``tally``, the
summary of a file of its examples (``_datasets``).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Hashable
from importlib import import_module

from .._checks import expect_object, missing
from ..errors import ValidationError
from ._fields import FIELDS, Node
from ._rules import Findings, Items, Problems, array_check, problems_of

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up): type checkers read it as true
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "Kind", "KINDS", "DETECTED", "Problems", "candidates", "shape_kinds", "fields", "items", "all_kinds", "specificity",
    "resemblance", "openai_only", "quiet_records",
]

# A shape: (is_array, keys). For an array, the keys of its first item; None for an empty array,
# an empty frozenset when the first item is not an object. Scalars have no shape.
Shape = tuple[bool, "frozenset[str] | None"]
Detector = Callable[[Shape], int]


def _later(module: str, name: str) -> Callable[..., Any]:
    """Return a stand-in for ``module.name`` that imports ``module`` on its first call.

    Even the core types cost the CLI's start-up more than a small file's check does, and the
    records, the events, the provider codecs and rules more again: a run loads only the ones
    its documents need (an empty file, none). ``import_module`` holds the module's import lock,
    so two threads get the same module. ``name`` may be dotted: ``"ChatMessage.from_dict"``.

    >>> parse = _later("..providers.openai", "parse_response")
    >>> parse.__qualname__
    'providers.openai.parse_response'
    """
    target: Callable[..., Any] | None = None

    def call(*args: Any, **kwargs: Any) -> Any:
        nonlocal target
        if target is None:
            found: Any = import_module(module, __package__)
            for part in name.split("."):
                found = getattr(found, part)
            target = found
        return target(*args, **kwargs)

    call.__qualname__ = f"{module.lstrip('.')}.{name}"
    return call


class Kind:
    """One kind of document: its name, how to spot it, how to check it, its shipped schema.

    >>> KINDS["chat_message"].schema, KINDS["chat_message"].detect((False, frozenset({"role"})))
    ('chat_message', 1)

    ``confirm`` looks past the shape where shapes are ambiguous; ``items`` is an array kind's
    check fed one element at a time; ``auto=False``: never detected, chosen only with
    ``--kind``; ``fields``: the fields its documents may hold (``_fields``; None: not looked at),
    for a provider's or MCP's kind read from its table module (``table``) on first use;
    ``tally``: a training dataset's per-file summary (``_datasets.Tally``).
    A plain slotted class, not a dataclass: ``dataclasses`` alone would double the start-up.
    """

    __slots__ = ("name", "summary", "detect", "check", "schema", "confirm", "items", "auto", "_fields", "table", "tally")

    def __init__(
        self, name: str, summary: str, detect: Detector, check: Callable[[Any], object], schema: str | None = None,
        confirm: Callable[[Any], bool] | None = None, items: Callable[[], Items] | None = None, auto: bool = True,
        fields: Node | None = None, tally: Callable[[], Any] | None = None,
    ) -> None:
        self.name, self.summary, self.detect, self.check, self.schema = name, summary, detect, check, schema
        self.confirm, self.items, self.auto, self._fields, self.tally = confirm, items, auto, fields, tally
        self.table: str | None = None

    @property
    def fields(self) -> Node | None:
        """Return the fields this kind's documents may hold (None: not looked at), loading its table once."""
        if self.table is not None:
            self._fields, self.table = import_module(self.table, __package__).FIELDS.get(self.name), None
        return self._fields

    def __repr__(self) -> str:
        return f"Kind({self.name!r})"


class _Fields:
    """A detector for an object holding every required key and none of the absent ones."""

    __slots__ = ("keys", "without", "array")

    def __init__(self, keys: frozenset[str], without: frozenset[str], array: bool) -> None:
        self.keys, self.without, self.array = keys, without, array

    def __call__(self, shape: Shape) -> int:
        is_array, keys = shape
        if is_array is not self.array:
            return 0
        if keys is None:
            return 1 if self.array else 0  # an empty array is a valid list of anything
        if not self.keys <= keys or not self.without.isdisjoint(keys):
            return 0
        return len(self.keys)

    def resemblance(self, shape: Shape | None) -> int:
        """Return how many of this kind's keys the document has (for the "closest kind" hint)."""
        if shape is None or shape[1] is None:
            return 0
        return len(self.keys & shape[1]) * 2 - (shape[0] is not self.array)


def fields(*required: str, absent: tuple[str, ...] = ()) -> Detector:
    """Return a detector for an object holding every ``required`` key and none of ``absent``.

    >>> fields("model", "messages")((False, frozenset({"model", "messages", "stream"})))
    2
    """
    return _Fields(frozenset(required), frozenset(absent), False)


def items(*required: str, absent: tuple[str, ...] = ()) -> Detector:
    """Return a detector for an array whose first item holds every ``required`` key (or is empty).

    >>> detect = items("role")
    >>> detect((True, frozenset({"role", "content"}))), detect((True, None)), detect((False, frozenset()))
    (1, 1, 0)
    """
    return _Fields(frozenset(required), frozenset(absent), True)


def resemblance(kind: Kind, doc: Any) -> int:
    """Return how much ``doc`` looks like ``kind``: its key fields that the document has.

    >>> resemblance(KINDS["openai_tool"], {"function": {"name": "now"}}) > resemblance(KINDS["chat_message"], {"function": {}})
    True
    """
    detect = kind.detect
    return detect.resemblance(shape_of(doc)) if isinstance(detect, _Fields) else 0


# -- checkers ---------------------------------------------------------------------------------


class Conversation:
    """The check of a conversation, a message at a time: each message, then the order.

    >>> [str(e) for e in problems_of(KINDS["conversation"].check, [{"role": "user", "content": "Hi"},
    ...     {"role": "assistant", "content": 5}, {"role": "user", "content": "Hello?"},
    ...     {"role": "tool", "tool_call_id": "c9", "content": "ok"}])]  # doctest: +NORMALIZE_WHITESPACE
    ['[0]: the first message must be a system message (ConversationHistory(require_system=False) allows a conversation without one)',
     '[1].content: expected a string or a list of parts, got number',
     '[3]: tool message must answer a pending tool call: unknown tool_call_id']

    The first message must be the system message (the design's rule AC-105). The order is
    ``ConversationHistory``'s, checked by ``Order`` as the messages come (no message is kept):
    each broken rule is reported once, and a message that is not valid leaves the order unknown
    until the next user or assistant message.
    """

    __slots__ = ("order", "parse")

    def __init__(self) -> None:
        from ..messages import ChatMessage
        from ._order import Order

        self.order = Order()
        self.parse = ChatMessage.from_dict

    def item(self, index: int, element: Any, out: Findings) -> None:
        try:
            message = self.parse(element)
        except ValidationError as exc:
            out.append(exc.prefixed(index))
            self.order.skip()
            return
        problem = self.order.add(message, "")
        if problem is not None:  # placed at its message only now: most messages break no rule
            out.append(problem.prefixed(index))

    def end(self, count: int, out: Findings) -> None:
        problem = self.order.end("")
        if problem is not None:
            out.append(problem)


class ToolDefinitions:
    """The check of an array of tool definitions, one at a time: each definition, and no name twice.

    >>> tool = {"name": "now", "description": "The time.", "parameters": {"type": "object"}, "strict": False}
    >>> [str(e) for e in problems_of(KINDS["tool_definitions"].check, [tool, {"name": "now"}, tool])]
    ['[1].parameters: is required', '[2].name: tool names must be unique in a list of tools']
    """

    __slots__ = ("names", "parse")

    def __init__(self) -> None:
        from ..tools import ToolDefinition

        self.names: set[str] = set()
        self.parse = ToolDefinition.from_dict

    def item(self, index: int, element: Any, out: Findings) -> None:
        try:
            name = self.parse(element).name
        except ValidationError as exc:
            out.append(exc.prefixed(index))
            return
        if name in self.names:
            out.append(ValidationError("tool names must be unique in a list of tools", f"[{index}].name", "unique"))
        self.names.add(name)

    def end(self, count: int, out: Findings) -> None:
        pass


def check_event(doc: Any) -> object:
    """Check a socket event written as ``{"event": name, "payload": {...}}``.

    >>> try:
    ...     check_event({"event": "message:chunk", "payload": {"id": "m1", "chunk": 5}})
    ... except ValidationError as exc:
    ...     print(exc)
    payload.chunk: expected a string, got number
    """
    data = expect_object(doc)
    if "payload" not in data:
        raise missing("payload")
    name = data.get("event")
    if name is None:
        raise missing("event")
    from ..events import decode as decode_event

    try:
        payload = data["payload"]
        sender = "server" if name == "chat:init" and type(payload) is dict and "status" in payload else None
        return decode_event(name, payload, sender=sender)  # a recorded stream holds both directions
    except ValidationError as exc:
        if exc.path == "event" and exc.code in ("type", "removed", "unknown"):
            raise  # the name is wrong, not the payload
        raise exc.prefixed("payload") from None


def check_record(doc: Any) -> object:
    """Check a record envelope; one of an unknown type or a newer version is kept, with a warning.

    >>> try:
    ...     check_record({"type": "system_control", "version": 1, "id": "s1", "data": {"kind": "mode_change"}})
    ... except ValidationError as exc:
    ...     print(exc)
    data.old: is required
    """
    from ..records import UnknownRecord
    from ..records import decode as decode_record

    quiet_records()
    record = decode_record(doc)
    if type(record) is UnknownRecord:
        warnings.warn(
            f"record type {record.type[:40]!r} version {record.version} is not one this library reads; "
            "kept as an UnknownRecord",
            stacklevel=2,
        )
    return record


def _drop(record: object) -> bool:
    return False


def quiet_records(keep: bool = True) -> None:
    """Keep the lines ``agentmsg.records`` logs about the unknown records it warns of off standard error.

    The run's warnings report them. Called as the first record is checked, so a run without
    records never loads ``logging``; ``keep=False`` (the run's end) lets them through again.
    """
    import logging

    log = logging.getLogger(__name__.rsplit(".", 2)[0] + ".records")
    if keep:
        log.addFilter(_drop)
    else:
        log.removeFilter(_drop)


def _provider(kind: str) -> Callable[[Any], object]:
    """Return the checker of a provider's ``kind``, in ``_provider_kinds`` (loaded on first use)."""
    return _later("._provider_kinds", f"check_{kind}")


def _rules_of(module: str, name: str) -> Callable[[Any], None]:
    """Return the checker of an object by the rule checker ``module.name`` (loaded on first use)."""
    rules = _later(module, name)

    def check(doc: Any) -> None:
        found = rules(expect_object(doc))
        if found:
            raise Problems(found)

    return check


def _mcp(message: str) -> Callable[[Any], None]:
    """Return the checker of an MCP ``message`` (request, notification, result, error) by the spec's rules."""
    return _rules_of("._mcp_rules", f"check_{message}")


def _tools(provider: str) -> Callable[[], Items]:
    """Return the element check of a provider's tools array (``_provider_kinds``, loaded on first use)."""
    make = _later("._provider_kinds", "Tools")
    return lambda: make(provider)


def openai_only(doc: Any) -> bool:
    """Tell whether a messages array uses something only the OpenAI shape has.

    A ``developer`` role, a tool call with a ``function`` object, an ``image_url`` part: an
    array of plain ``{role, content}`` strings reads as agentmsg's own conversation.
    """
    for item in doc[:64]:
        if type(item) is not dict:
            continue
        if item.get("role") == "developer":
            return True
        calls = item.get("tool_calls")
        if type(calls) is list and calls and type(calls[0]) is dict and "function" in calls[0]:
            return True
        content = item.get("content")
        if type(content) is list and any(type(part) is dict and part.get("type") == "image_url" for part in content):
            return True
    return False


def _reasoning_keys(shape: Shape) -> int:
    """Detect a reasoning part: a ``type`` and nothing but its fields."""
    is_array, keys = shape
    if is_array or keys is None or "type" not in keys or not keys <= _REASONING_KEYS:
        return 0
    return 1


_REASONING_KEYS = frozenset({"type", "text", "signature", "redacted", "provider", "id", "anchor"})


class _Stream:
    """The check of a recorded stream: its chunks (or events) fed in order to the provider's parser.

    The parser's first error ends the check (the stream is broken from there).
    """

    __slots__ = ("parser", "broken")

    def __init__(self, parser: Any) -> None:
        self.parser = parser
        self.broken = False

    def item(self, index: int, element: Any, out: Findings) -> None:
        if not self.broken:
            try:
                self.parser.feed(element)
            except ValidationError as exc:
                self.broken = True
                out.append(exc.prefixed(index))

    def end(self, count: int, out: Findings) -> None:
        if not self.broken:
            try:
                self.parser.finish()
            except ValidationError as exc:
                out.append(exc)


def _stream(parser: Callable[[], Any]) -> Callable[[], Items]:
    """Return the element check of a recorded stream, fed to a fresh ``parser()``."""
    return lambda: _Stream(parser())


def _array(name: str, summary: str, detect: Detector, make: Callable[[], Items], what: str, **options: Any) -> Kind:
    """Return an array kind checked an element at a time by ``make()``'s ``Items``."""
    return Kind(name, summary, detect, array_check(make, what), items=make, **options)


# -- the registry -----------------------------------------------------------------------------

_REGISTRY: tuple[Kind, ...] = (
    Kind("chat_message", "one chat message {role, content, ...}", fields("role", absent=("model",)),
         _later("..messages", "ChatMessage.from_dict"), "chat_message"),
    _array("conversation", "an array of chat messages, checked in order as a ConversationHistory",
           items("role"), Conversation, "an array of messages", schema="conversation"),
    Kind("tool_call", "a tool call {id, name, arguments}", fields("id", "name", absent=("role",)),
         _later("..tools", "ToolCall.from_dict"), "tool_call"),
    Kind("tool_result", "a tool result {tool_call_id, result, is_error}", fields("tool_call_id", "result"),
         _later("..messages", "ToolResult.from_dict"), "tool_result"),
    Kind("tool_definition", "a tool definition {name, description, parameters, strict}",
         fields("name", "parameters"), _later("..tools", "ToolDefinition.from_dict"), "tool_definition"),
    _array("tool_definitions", "an array of tool definitions with unique names", items("name", "parameters"),
           ToolDefinitions, "an array of tool definitions"),
    Kind("tool_call_delta", "a streamed tool-call fragment {index, id, name, arguments_delta}",
         fields("index", absent=("type", "role")), _later("..streaming", "ToolCallDelta.from_dict"), "tool_call_delta"),
    Kind("event", "a socket event {event: name, payload: {...}} (agentmsg.events)", fields("event", "payload"),
         check_event, "event"),
    Kind("record", "a message record {type, version, id, data} (agentmsg.records)",
         fields("type", "version"), check_record, "record"),
    Kind("openai_request", "an OpenAI (or vLLM) Chat Completions request body {model, messages, tools}",
         fields("model", "messages"), _provider("openai_request")),
    Kind("anthropic_request", "an Anthropic Messages request body {model, max_tokens, system, messages, tools}",
         fields("model", "messages", "max_tokens"), _provider("anthropic_request")),
    Kind("ollama_request", "an Ollama /api/chat request body {model, messages, tools} (--kind only)",
         fields("model", "messages"), _provider("ollama_request"), auto=False),
    _array("openai_messages", "a bare OpenAI (or vLLM) messages array, the usual log format, checked in order",
           items("role"), _later("._provider_kinds", "OpenAIMessages"), "an array of messages", confirm=openai_only),
    Kind("openai_tool", "one OpenAI tool definition {type: function, function: {name, parameters}}",
         fields("type", "function"), _provider("openai_tool")),
    _array("openai_tools", "an OpenAI tools array [{type: function, function}]",
           items("type", "function"), _tools("openai"), "an array of tools"),
    Kind("anthropic_tool", "one Anthropic tool definition {name, description, input_schema}",
         fields("name", "input_schema"), _provider("anthropic_tool")),
    _array("anthropic_tools", "an Anthropic tools array [{name, input_schema}]",
           items("name", "input_schema"), _tools("anthropic"), "an array of tools"),
    Kind("ollama_tool", "one Ollama tool definition, the OpenAI shape (--kind only)",
         fields("type", "function"), _provider("ollama_tool"), auto=False),
    _array("ollama_tools", "an Ollama tools array, the OpenAI shape (--kind only)",
           items("type", "function"), _tools("ollama"), "an array of tools", auto=False),
    Kind("mcp_request", "an MCP JSON-RPC request {jsonrpc, id, method, params} (initialize, resources/*, tools/*...)",
         fields("jsonrpc", "id", "method"), _mcp("request")),
    Kind("mcp_notification", "an MCP JSON-RPC notification {jsonrpc, method, params} (no id)",
         fields("jsonrpc", "method", absent=("id",)), _mcp("notification")),
    Kind("mcp_result", "an MCP JSON-RPC result {jsonrpc, id, result} (resources, contents, tools, content...)",
         fields("jsonrpc", "id", "result"), _mcp("result")),
    Kind("mcp_error", "an MCP JSON-RPC error response {jsonrpc, id, error: {code, message}}",
         fields("jsonrpc", "id", "error"), _mcp("error")),
    Kind("openai_response", "an OpenAI Chat Completions response body {choices, usage}",
         fields("choices"), _later("..providers.openai", "parse_response")),
    Kind("anthropic_response", "an Anthropic Messages response body {type, role, content, stop_reason}",
         fields("role", "content", "stop_reason"), _later("..providers.anthropic", "parse_response")),
    Kind("ollama_response", "an Ollama /api/chat response body (or stream line) {model, message, done}",
         fields("model", "message"), _later("..providers.ollama", "parse_response")),
    _array("openai_stream", "a recorded OpenAI stream: an array of chat.completion.chunk objects",
           items("choices"), _stream(_later("..providers.openai", "StreamParser")), "an array of stream chunks"),
    _array("anthropic_stream", "a recorded Anthropic stream: an array of events {type, ...}",
           items("type"), _stream(_later("..providers.anthropic", "StreamParser")), "an array of stream chunks"),
    _array("ollama_stream", "a recorded Ollama stream: an array of /api/chat lines {model, message, done}",
           items("model", "message"), _stream(_later("..providers.ollama", "StreamParser")), "an array of stream chunks"),
    Kind("reasoning_part", "a reasoning part {type: reasoning, text, signature, provider, ...}",
         _reasoning_keys, _later("..content", "ReasoningPart.from_dict"), "reasoning_part"),
    Kind("responses_request", "an OpenAI Responses request body {model, instructions, input, tools}",
         fields("model", "input"), _provider("responses_request")),
    Kind("responses_response", "an OpenAI Responses response object {object, status, output, usage}",
         fields("object", "output"), _later("..providers.openai_responses", "parse_response")),
    _array("responses_stream", "a recorded OpenAI Responses stream: an array of events {type, ...}",
           items("type", "response"), _stream(_later("..providers.openai_responses", "StreamParser")),
           "an array of stream chunks"),
    Kind("gemini_request", "a Gemini generateContent request body {contents, systemInstruction, tools}",
         fields("contents"), _provider("gemini_request")),
    Kind("gemini_response", "a Gemini GenerateContentResponse {candidates, usageMetadata}",
         fields("candidates"), _later("..providers.gemini", "parse_response")),
    _array("gemini_stream", "a recorded Gemini stream: an array of GenerateContentResponse chunks",
           items("candidates"), _stream(_later("..providers.gemini", "StreamParser")), "an array of stream chunks"),
    Kind("openai_error", "an OpenAI error body {error: {message, type, param, code}} (a 400, a 429...)",
         fields("error", absent=("jsonrpc", "type")), _rules_of("._error_bodies", "check_openai_error"),
         confirm=_later("._error_bodies", "openai_like")),
    Kind("anthropic_error", "an Anthropic error body {type: error, error: {type, message}, request_id}",
         fields("type", "error"), _rules_of("._error_bodies", "check_anthropic_error")),
    Kind("gemini_error", "a Gemini error body {error: {code, message, status, details}} (a 400, a 404...)",
         fields("error", absent=("jsonrpc", "type")), _rules_of("._error_bodies", "check_gemini_error"),
         confirm=_later("._error_bodies", "gemini_like")),
    Kind("mcp_resource_contents", "MCP resource contents {uri, mimeType, text or blob} (resources/read, embedded)",
         fields("uri", absent=("jsonrpc",)), _rules_of("._mcp_rules", "check_resource_contents")),
    Kind("bedrock_request", "an Amazon Bedrock Converse request body {messages, system, toolConfig, inferenceConfig}",
         fields("messages", absent=("model",)), _provider("bedrock_request")),
    Kind("bedrock_response", "an Amazon Bedrock Converse response {output, stopReason, usage}",
         fields("output", "stopReason"), _later("..providers.bedrock", "parse_response")),
    _array("bedrock_stream", "a recorded Bedrock ConverseStream: an array of events {messageStart: ...}, ...",
           items("messageStart"), _stream(_later("..providers.bedrock", "StreamParser")), "an array of stream chunks"),
    Kind("openai_finetune", "a line of an OpenAI chat fine-tuning file {messages, tools, parallel_tool_calls} (--kind only)",
         fields("messages", absent=("model",)), _later("._datasets", "check_openai_finetune"), auto=False,
         tally=_later("._datasets", "OpenAITally")),
    Kind("openai_preference", "a line of an OpenAI preference (DPO) file {input, preferred_output, non_preferred_output}",
         fields("input", "preferred_output", "non_preferred_output"), _later("._datasets", "check_openai_preference"),
         tally=_later("._datasets", "OpenAITally")),
    Kind("hf_chat", "a row of a Hugging Face chat dataset {messages: [{role, content, tool_calls}], tools} (--kind only)",
         fields("messages", absent=("model",)), _later("._datasets", "check_hf_chat"), auto=False,
         tally=_later("._datasets", "Tally")),
)

# The provider's and MCP's tables, written from their SDKs' types, each loaded with its first document.
_TABLES = {"openai": "._fields_openai", "anthropic": "._fields_anthropic", "responses": "._fields_responses", "gemini": "._fields_gemini", "ollama": "._fields_ollama", "bedrock": "._fields_bedrock"}
for _kind in _REGISTRY:
    _kind._fields = FIELDS.get(_kind.name)
    _kind.table = _TABLES.get(_kind.name.split("_")[0])
del _kind
KINDS: dict[str, Kind] = {kind.name: kind for kind in _REGISTRY}

_ARRAY = object()
_NOT_OBJECT = object()
DETECTED: dict[Hashable, tuple[Kind, ...]] = {}  # shape key -> candidates; see candidates()


def shape_of(doc: Any) -> Shape | None:
    """Return the shape detectors look at, or None for a scalar.

    >>> shape_of([{"role": "user"}]), shape_of([]), shape_of("text")
    ((True, frozenset({'role'})), (True, None), None)
    """
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
    if t is list and any(kind.confirm is not None for kind in found):
        found = tuple(kind for kind in found if kind.confirm is None or kind.confirm(doc))
    return found



def shape_kinds(first: Any) -> tuple[Kind, ...]:
    """Return the kinds an array whose first item is ``first`` may be, by its shape alone.

    ``candidates`` of such an array, before any ``confirm`` looks at more of its items:

    >>> [kind.name for kind in shape_kinds({"role": "user", "content": "Hi"})]
    ['conversation', 'openai_messages']
    """
    return _detect(shape_of([first]))


def _detect(shape: Shape | None) -> tuple[Kind, ...]:
    if shape is None:
        return ()
    scored = [(kind.detect(shape), i, kind) for i, kind in enumerate(_REGISTRY) if kind.auto]
    return tuple(kind for score, _, kind in sorted(scored, key=lambda s: (-s[0], s[1])) if score > 0)


def specificity(kind: Kind, doc: Any) -> int:
    """Return how specifically ``kind``'s detector matches ``doc`` (0: not at all).

    A kind whose ``confirm`` looked past the shape and agreed is one more specific.
    """
    shape = shape_of(doc)
    score = 0 if shape is None else kind.detect(shape)
    if score and kind.confirm is not None and kind.confirm(doc):
        score += 1
    return score


def all_kinds() -> tuple[Kind, ...]:
    """Return every kind, in registry order."""
    return _REGISTRY
