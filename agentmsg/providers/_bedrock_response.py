"""Private: reading Bedrock Converse answers (content blocks, responses, streams); ``bedrock`` re-exports it.

Theory of operation: every Converse content block is an object whose one key names its type
(``block_kind``); ``assistant_from`` reads an assistant turn's blocks into a ``ChatMessage``
for both ``parse_response`` and ``bedrock.from_messages``, and ``StreamParser`` joins the
``ConverseStream`` events into the same message. Blobs are bytes from boto3 and base64 text
from the JSON wire; both are read (``blob_text``).
"""

from __future__ import annotations

import base64
from typing import Any

from .._checks import (
    check_int, expect_object, expected, get_object, get_optional_object, get_optional_str, get_str, missing,
)
from .._images import decode_base64
from .._json import loads_strict
from ..content import IMAGE_MEDIA_TYPES, ImagePart, ImageSource, ReasoningPart, TextPart, reasoning_part
from ..errors import ValidationError
from ..messages import ChatMessage
from ..streaming import ReasoningAccumulator, ReasoningDelta, ToolCallAccumulator, ToolCallDelta
from ..tools import ToolCall
from ._response import Response
from ._common import (
    UNSUPPORTED, NameRule, assistant_of_texts, canonical_name, freeze_usage, make_call, payload, provider_error, relocate,
)
from ._eventstream import EventFrames
from ._stream import Piece, StreamReader, add_call_delta, finish_calls, incomplete

__all__ = [
    "PROVIDER", "BEDROCK_NAMES", "block_kind", "unsupported_block", "blob_text", "part_from", "assistant_from",
    "parse_response", "StreamParser",
]

PROVIDER = "bedrock"
# ``ToolName`` of the service model (botocore's bedrock-runtime/2023-09-30): [a-zA-Z0-9_-]+, 1 to 64.
BEDROCK_NAMES = NameRule(r"[a-zA-Z0-9_-]{1,64}", "Bedrock tool names must match ^[a-zA-Z0-9_-]{1,64}$")
_CALL_FIELDS = ("toolUseId", "name", "input")


def block_kind(block: Any) -> tuple[str, Any]:
    """Return the one key of a content block and its value."""
    block = expect_object(block)
    if len(block) != 1:
        raise ValidationError("a content block holds exactly one key, its type", "", "value")
    ((kind, value),) = block.items()
    return kind, value


def unsupported_block(kind: str) -> ValidationError:
    """Return the error for a content block type agentmsg cannot carry (path: the type)."""
    return ValidationError(f"content block type {kind[:40]!r} is not supported", kind[:40], UNSUPPORTED)


def blob_text(value: Any, path: str) -> str:
    """Return a blob as base64 text: boto3 gives bytes, the JSON wire base64 text (checked)."""
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(value).decode("ascii")
    if type(value) is not str:
        raise expected("bytes or base64 text", value, path)
    try:
        decode_base64(value)
    except ValueError:
        raise ValidationError("must be base64 text", path, "pattern") from None
    return value


def _image_from(image: Any) -> ImagePart:
    image = expect_object(image)
    media_type = f"image/{get_str(image, 'format')}"
    if media_type not in IMAGE_MEDIA_TYPES:
        raise ValidationError("expected png, jpeg, gif or webp", "format", "value")
    source = get_object(image, "source")
    if "bytes" not in source:
        raise ValidationError("only image bytes are supported (not an S3 location)", "source", UNSUPPORTED)
    data = blob_text(source["bytes"], "source.bytes")
    try:
        return ImagePart(ImageSource.from_base64(data, media_type))
    except ValidationError as exc:
        raise relocate(exc, "source.bytes") from None


def part_from(block: Any, images: bool) -> TextPart | ImagePart | None:
    """Return the part of a text or image block; None for a cachePoint."""
    kind, value = block_kind(block)
    if kind == "text":
        if type(value) is not str:
            raise expected("a string", value, "text")
        return TextPart(value)
    if kind == "image" and images:
        try:
            return _image_from(value)
        except ValidationError as exc:
            raise exc.prefixed("image") from None
    if kind == "cachePoint":
        return None
    raise unsupported_block(kind)


def _reasoning_from(value: Any) -> ReasoningPart:
    kind, inner = block_kind(value)
    try:
        if kind == "reasoningText":
            inner = expect_object(inner)
            return reasoning_part(get_str(inner, "text"), get_optional_str(inner, "signature") or None, False, PROVIDER)
        if kind == "redactedContent":
            return reasoning_part("", blob_text(inner, ""), True, PROVIDER)
    except ValidationError as exc:
        raise exc.prefixed(kind) from None
    raise ValidationError(f"reasoning type {kind[:40]!r} is not supported", kind[:40], UNSUPPORTED)


def assistant_from(content: list[Any]) -> ChatMessage:
    """Return the assistant message of a turn's content blocks (text, ``toolUse``, ``reasoningContent``)."""
    texts: list[TextPart] = []
    calls: list[ToolCall] = []
    reasoning: list[ReasoningPart] = []
    for j, block in enumerate(content):
        try:
            kind, value = block_kind(block)
            if kind == "toolUse":
                calls.append(_call_from(value))
            elif kind == "reasoningContent":
                try:
                    reasoning.append(_reasoning_from(value))
                except ValidationError as exc:
                    raise exc.prefixed(kind) from None
            else:
                part = part_from(block, images=False)
                if part is not None:
                    texts.append(part)  # type: ignore[arg-type]  # images=False: text parts only
        except ValidationError as exc:
            raise exc.prefixed(j).prefixed("content") from None
    return assistant_of_texts(texts, tuple(calls), reasoning)


def _call_from(value: Any) -> ToolCall:
    value = expect_object(value)
    try:
        if value.get("type") is not None:
            raise ValidationError("server tools are not supported", "type", UNSUPPORTED)
        name = value.get("name")
        if type(name) is str:
            canonical_name(name, "name", BEDROCK_NAMES)
        return make_call(value.get("toolUseId"), name, get_optional_object(value, "input"), _CALL_FIELDS)
    except ValidationError as exc:
        raise exc.prefixed("toolUse") from None


def _provider_error(body: dict[str, Any]) -> ValidationError | None:
    """Return the error of an error body: boto3's ``{"Error": {"Code"}}`` or the HTTP API's ``{"message"}``."""
    if "output" in body:
        return None
    if isinstance(body.get("Error"), dict):
        return provider_error(body["Error"], "Error", "Bedrock", ("Code",))
    if type(body.get("message")) is str:
        return provider_error(body, "", "Bedrock", ("__type",))
    return None


def parse_response(body: Any) -> Response:
    """Return the ``Response`` of a Converse response (boto3's dict, or the HTTP API's JSON).

    >>> r = parse_response({"output": {"message": {"role": "assistant", "content": [{"text": "Hi!"}]}},
    ...     "stopReason": "end_turn", "usage": {"inputTokens": 5, "outputTokens": 2, "totalTokens": 7}})
    >>> r.message.content, r.finish_reason, r.usage["outputTokens"]
    ('Hi!', 'end_turn', 2)

    An error body (boto3's ``ClientError.response``, or the API's ``{"message"}``) raises
    ``ValidationError`` with code ``provider``.
    """
    body = expect_object(payload(body))
    error = _provider_error(body)
    if error is not None:
        raise error
    output = get_object(body, "output")
    message = get_optional_object(output, "message")
    if message is None:
        raise missing("output.message")
    try:
        if message.get("role") != "assistant":
            raise ValidationError("expected 'assistant'", "role", "value")
        content = message.get("content")
        if type(content) is not list:
            raise expected("an array of content blocks", content, "content")
        parsed = assistant_from(content)
    except ValidationError as exc:
        raise exc.prefixed("output.message") from None
    return Response(parsed, get_optional_str(body, "stopReason"), freeze_usage(body.get("usage"), "usage"))


class StreamParser(StreamReader):
    """Read ConverseStream events one by one; ``finish`` gives the whole ``Response``.

    >>> parser = StreamParser()
    >>> events = [
    ...     {"messageStart": {"role": "assistant"}},
    ...     {"contentBlockStart": {"contentBlockIndex": 0, "start": {"toolUse": {"toolUseId": "t1", "name": "now"}}}},
    ...     {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"toolUse": {"input": "{}"}}}},
    ...     {"contentBlockStop": {"contentBlockIndex": 0}},
    ...     {"messageStop": {"stopReason": "tool_use"}},
    ...     {"metadata": {"usage": {"inputTokens": 9, "outputTokens": 3, "totalTokens": 12}, "metrics": {}}}]
    >>> [parser.feed(event) for event in events][1]
    (ToolCallDelta(index=0, id='t1', name='now', arguments_delta=None),)
    >>> r = parser.finish()
    >>> r.message.tool_calls[0].name, r.finish_reason, r.usage["totalTokens"]
    ('now', 'tool_use', 12)

    ``feed`` takes one event as boto3 yields it from ``response["stream"]``: a dict whose one
    key names the event (``messageStart``, ``contentBlockStart``, ``contentBlockDelta``,
    ``contentBlockStop``, ``messageStop``, ``metadata``). It returns text deltas (strings),
    ``ToolCallDelta``s (``index`` counts tool calls, not content blocks) and
    ``ReasoningDelta``s (``index`` counts reasoning blocks). Keys the wire adds beside the
    event's fields (the ``p`` padding) and event types this version does not know are ignored;
    an exception event (``throttlingException``...) raises ``ValidationError`` with code
    ``provider``. ``feed_raw`` takes the binary ``application/vnd.amazon.eventstream`` body as
    it arrives from the socket, cut anywhere, checks each message's CRCs and feeds its event.
    ``finish`` on a stream that never reached ``messageStop``, or ended inside a message, raises
    ``ValidationError`` with code ``incomplete``.
    """

    __slots__ = ("_frames", "_texts", "_blocks", "_calls", "_call_blocks", "_thinking", "_reasoning",
                 "_finish_reason", "_usage", "_stopped")

    def __init__(self) -> None:
        super().__init__()
        self._frames: EventFrames | None = None
        self._texts: dict[int, list[str]] = {}  # content block index -> text pieces
        self._blocks: dict[int, int] = {}  # content block index -> tool call index
        self._calls = ToolCallAccumulator()
        self._call_blocks: list[int] = []  # tool call index -> content block index
        self._thinking: dict[int, int] = {}  # content block index -> reasoning part index
        self._reasoning = ReasoningAccumulator()
        self._finish_reason: str | None = None
        self._usage: Any = None
        self._stopped = False

    def feed(self, event: Any) -> tuple[Piece, ...]:
        """Take one event and return what it carried."""
        kind, body = block_kind(payload(event))
        if kind.endswith("Exception"):
            raise provider_error({"type": kind}, kind[:64], "Bedrock")
        if type(body) is not dict:
            raise expected("an object", body, kind[:64])
        try:
            if kind == "contentBlockDelta":
                return self._delta(body)
            if kind == "contentBlockStart":
                return self._start(body)
            if kind == "messageStop":
                self._stopped = True
                self._finish_reason = get_optional_str(body, "stopReason")
            elif kind == "metadata":
                self._usage = freeze_usage(body.get("usage"), "usage")
            elif kind == "messageStart" and body.get("role") != "assistant":
                raise ValidationError("expected 'assistant'", "role", "value")
        except ValidationError as exc:
            raise exc.prefixed(kind) from None
        return ()  # contentBlockStop, and event types this version does not know

    def feed_raw(self, data: bytes | str) -> tuple[Piece, ...]:
        """Take the next piece of the binary event stream, cut anywhere; return what its events carried."""
        if self._frames is None:
            self._frames = EventFrames()
        out: list[Piece] = []
        for headers, body in self._frames.feed(data):  # type: ignore[arg-type]  # EventFrames refuses str
            kind = headers.get(":message-type")
            if kind == "exception" or kind == "error":
                name = headers.get(":exception-type") or headers.get(":error-code")
                raise provider_error({"type": name if type(name) is str else None}, "", "Bedrock")
            name = headers.get(":event-type")
            if type(name) is not str:
                raise ValidationError("an event-stream message names no event type", "", "missing")
            try:
                event = loads_strict(body.decode("utf-8")) if body else {}
            except UnicodeDecodeError:
                raise ValidationError("an event's payload is not valid UTF-8", name[:64], "encoding") from None
            out.extend(self.feed({name: event}))
        return tuple(out)

    def _index(self, body: dict[str, Any]) -> int:
        return check_int(body.get("contentBlockIndex"), "contentBlockIndex", minimum=0)

    def _start(self, body: dict[str, Any]) -> tuple[Piece, ...]:
        index = self._index(body)
        kind, start = block_kind(get_object(body, "start"))
        if kind != "toolUse":
            raise unsupported_block(kind).prefixed("start")
        try:
            start = expect_object(start)
            if start.get("type") is not None:
                raise ValidationError("server tools are not supported", "type", UNSUPPORTED)
            name = canonical_name(get_str(start, "name"), "name", BEDROCK_NAMES)
            ordinal = len(self._call_blocks)
            self._blocks[index] = ordinal
            self._call_blocks.append(index)
            return (add_call_delta(self._calls, ordinal, get_str(start, "toolUseId"), name, None, _CALL_FIELDS),)
        except ValidationError as exc:
            raise exc.prefixed("start.toolUse") from None

    def _delta(self, body: dict[str, Any]) -> tuple[Piece, ...]:
        index = self._index(body)
        kind, delta = block_kind(get_object(body, "delta"))
        try:
            if kind == "text":
                if type(delta) is not str:
                    raise expected("a string", delta, "")
                if index in self._blocks or index in self._thinking:
                    raise ValidationError("text at the index of another block", "contentBlockIndex", "value")
                self._texts.setdefault(index, [])
                if delta:
                    self._texts[index].append(delta)
                    return (delta,)
                return ()
            if kind == "toolUse":
                partial = get_str(expect_object(delta), "input")
                ordinal = self._blocks.get(index)
                if ordinal is None:
                    raise ValidationError("no toolUse block was started at this index", "contentBlockIndex", "value")
                if not partial:
                    return ()
                item = ToolCallDelta(ordinal, arguments_delta=partial)
                self._calls.add(item)
                return (item,)
            if kind == "reasoningContent":
                return self._thought(index, delta)
            if kind == "citation":  # citations are not carried
                return ()
            raise unsupported_block(kind)
        except ValidationError as exc:
            if exc.path == "contentBlockIndex":
                raise
            raise exc.prefixed(kind).prefixed("delta") from None

    def _thought(self, index: int, delta: Any) -> tuple[Piece, ...]:
        kind, value = block_kind(delta)
        if index in self._blocks or index in self._texts:
            raise ValidationError("reasoning at the index of another block", "contentBlockIndex", "value")
        part = self._thinking.get(index)
        if part is None:
            part = self._thinking[index] = len(self._thinking)
            self._reasoning.annotate(part, provider=PROVIDER)
        try:
            if kind == "text":
                if type(value) is not str:
                    raise expected("a string", value, "")
                thought = ReasoningDelta(part, value)
            elif kind == "signature":
                if type(value) is not str:
                    raise expected("a string", value, "")
                thought = ReasoningDelta(part, signature=value or None)
            elif kind == "redactedContent":
                self._reasoning.annotate(part, redacted=True)
                thought = ReasoningDelta(part, signature=blob_text(value, "") or None)
            else:
                raise ValidationError(f"reasoning type {kind[:40]!r} is not supported", "", UNSUPPORTED)
        except ValidationError as exc:
            raise exc.prefixed(kind[:40]) from None
        self._reasoning.add(thought)
        return (thought,) if thought.text or thought.signature else ()

    def finish(self) -> Response:
        """Return the ``Response`` of the whole stream (its calls joined by the accumulator)."""
        if self._frames is not None and self._frames.pending:
            raise incomplete("the end of an event-stream message")
        blocks = self._call_blocks
        calls = finish_calls(self._calls, lambda i: f"content[{blocks[i]}].toolUse", _CALL_FIELDS)
        if not self._stopped:
            raise incomplete("messageStop")
        texts = [TextPart("".join(pieces)) for _, pieces in sorted(self._texts.items())]
        return Response(assistant_of_texts(texts, calls, self._reasoning.finish()), self._finish_reason, self._usage)
