"""OpenAI Responses -> agentmsg for what the model says: output items, a response, its stream.

The private half of the Responses codec (``agentmsg.providers.openai_responses`` is the public
module and names ``parse_response`` and ``StreamParser`` there): the reader of output items into one
assistant turn, which ``from_messages`` uses for the assistant items of a history too. The rules
are in ``openai_responses``'s module docstring.
"""

from __future__ import annotations

from typing import Any

from .._checks import (
    check_int, expect_object, expected, get_list, get_object, get_optional_object, get_optional_str, get_str, missing,
)
from ..content import ImagePart, ReasoningPart, TextPart, reasoning_part
from ..errors import ValidationError
from ..messages import ChatMessage
from ..roles import MessageRole
from ..streaming import ReasoningAccumulator, ReasoningDelta, ToolCallAccumulator, ToolCallDelta
from ..tools import ToolCall
from ._common import (
    UNSUPPORTED, assistant, freeze_usage, get_inner_str, image_from_url, make_call, payload, provider_error, relocate,
)
from ._response import Response
from ._stream import Piece, StreamReader, add_call_delta, finish_calls, incomplete

SYSTEM, USER, ASSISTANT, TOOL = MessageRole
PROVIDER = "openai"
CALL_FIELDS = ("call_id", "name", "arguments")
_ERROR_KEYS = ("type", "code")  # what names an API error (its message is never repeated)


class AssistantTurn:
    """The assistant message being gathered from consecutive output items."""

    __slots__ = ("texts", "calls", "reasoning", "refusal", "open")

    def __init__(self) -> None:
        self.texts: list[str] = []
        self.calls: list[ToolCall] = []
        self.reasoning: list[ReasoningPart] = []
        self.refusal: list[str] = []
        self.open = False

    def message(self) -> ChatMessage:
        texts = self.texts if len(self.texts) < 2 else [text for text in self.texts if text] or self.texts[:1]
        content: Any = None
        if len(texts) == 1:
            content = texts[0]
        elif texts:
            content = tuple(TextPart(text) for text in texts)
        return assistant(content, tuple(self.calls), self.reasoning)


def next_item_id(items: Any, i: int) -> str | None:
    """Return the id of item ``i + 1`` when it is a message or function call with one."""
    if i + 1 < len(items):
        nxt = items[i + 1]
        if type(nxt) is dict and nxt.get("type") in ("function_call", "message", None):
            value = nxt.get("id")
            if type(value) is str and value:
                return value
    return None


def _reasoning_from(item: dict[str, Any], anchor: str | None) -> list[ReasoningPart]:
    item_id = get_str(item, "id")
    signature = get_optional_str(item, "encrypted_content") or None
    summary = item.get("summary")
    if type(summary) is list and all(type(part) is dict and type(part.get("text")) is str for part in summary):
        texts = [part["text"] for part in summary]  # the usual shape, read at once
    else:
        texts = []
        for j, part in enumerate(get_list(item, "summary")):
            try:
                part = expect_object(part)
                texts.append(get_str(part, "text"))
            except ValidationError as exc:
                raise exc.prefixed(j).prefixed("summary") from None
    if not texts:
        texts = [""]
    try:
        first = reasoning_part(texts[0], signature, False, PROVIDER, item_id, anchor)
    except ValidationError as exc:
        raise relocate(exc, "summary[0].text" if exc.path == "text" else exc.path) from None
    return [first, *[reasoning_part(text, None, False, PROVIDER, item_id) for text in texts[1:]]]


def _output_text_from(content: Any, turn: AssistantTurn) -> None:
    if type(content) is str:
        turn.texts.append(content)
        return
    if type(content) is not list:
        raise expected("a string or an array of parts", content, "content")
    for j, part in enumerate(content):
        try:
            part = expect_object(part)
            kind = part.get("type")
            if kind in ("output_text", "input_text", "text"):
                turn.texts.append(get_str(part, "text"))
            elif kind == "refusal":
                refusal = get_str(part, "refusal")
                turn.texts.append(refusal)
                turn.refusal.append(refusal)
            else:
                kind = get_str(part, "type")
                raise ValidationError(f"content part type {kind[:40]!r} is not supported here", "type", UNSUPPORTED)
        except ValidationError as exc:
            raise exc.prefixed(j).prefixed("content") from None


def input_parts_from(content: Any, path: str, images: bool = True) -> Any:
    if type(content) is str:
        return content
    if content is None:
        raise missing(path)
    if type(content) is not list:
        raise expected("a string or an array of parts", content, path)
    parts: list[TextPart | ImagePart] = []
    for j, part in enumerate(content):
        try:
            part = expect_object(part)
            kind = part.get("type")
            if kind in ("input_text", "output_text", "text"):
                parts.append(TextPart(get_str(part, "text")))
            elif kind == "input_image" and images:
                if part.get("image_url") is None and part.get("file_id") is not None:
                    raise ValidationError("images by file_id are not supported (send a URL or data)", "file_id", UNSUPPORTED)
                parts.append(ImagePart(image_from_url(part.get("image_url"), "image_url")))
            else:
                kind = get_str(part, "type")
                raise ValidationError(f"content part type {kind[:40]!r} is not supported here", "type", UNSUPPORTED)
        except ValidationError as exc:
            raise exc.prefixed(j).prefixed(path) from None
    if not parts:
        raise ValidationError("must hold at least one part", path, "value")
    return tuple(parts)


def read_output_item(item: dict[str, Any], anchor: str | None, turn: AssistantTurn) -> bool:
    """Add an output item to the assistant ``turn``; return False if it is not an assistant item."""
    kind = item.get("type")
    if kind == "reasoning":
        turn.reasoning.extend(_reasoning_from(item, anchor))
    elif kind == "function_call":
        turn.calls.append(make_call(item.get("call_id"), item.get("name"), item.get("arguments"), CALL_FIELDS))
    elif (kind is None or kind == "message") and item.get("role") == "assistant":
        _output_text_from(item.get("content"), turn)
    else:
        return False
    turn.open = True
    return True


def _finish_reason(body: dict[str, Any]) -> str | None:
    status = get_optional_str(body, "status")
    if status == "incomplete":
        reason = get_inner_str(body, "incomplete_details", "reason")
        if reason is not None:
            return reason
    return status


def parse_response(body: Any) -> Response:
    """Return the ``Response`` of a ``response`` object (its ``output`` items form one message).

    >>> r = parse_response({"object": "response", "status": "completed", "output": [
    ...     {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
    ...      "content": [{"type": "output_text", "text": "Hi!", "annotations": []}]}],
    ...     "usage": {"input_tokens": 5, "output_tokens": 2, "total_tokens": 7}})
    >>> r.message.content, r.finish_reason, r.usage["total_tokens"]
    ('Hi!', 'completed', 7)

    ``finish_reason`` is the ``status`` (``completed``), or for an ``incomplete`` response its
    reason (``max_output_tokens``, ``content_filter``). An error body (``{"error": {...}}``)
    or a ``failed`` response raises ``ValidationError`` with code ``provider``. ``body`` may also
    be the official client's ``Response`` object (anything with ``model_dump()``).
    """
    body = expect_object(payload(body))
    error = body.get("error")
    if error is not None and ("output" not in body or body.get("status") == "failed"):
        raise provider_error(error, "error", "OpenAI", _ERROR_KEYS)
    if body.get("status") == "failed":
        raise provider_error(None, "status", "OpenAI")
    if body.get("output") is None:
        raise missing("output")
    items = get_list(body, "output")
    turn = AssistantTurn()
    for i, item in enumerate(items):
        try:
            item = expect_object(item)
            if not read_output_item(item, next_item_id(items, i) if item.get("type") == "reasoning" else None, turn):
                kind = get_str(item, "type")
                raise ValidationError(f"output item type {kind[:40]!r} is not supported", "type", UNSUPPORTED)
        except ValidationError as exc:
            raise exc.prefixed(i).prefixed("output") from None
    try:
        message = turn.message()
    except ValidationError as exc:
        raise relocate(exc, "output") from None
    refusal = "".join(turn.refusal) or None
    return Response(message, _finish_reason(body), freeze_usage(body.get("usage"), "usage"), refusal)


class StreamParser(StreamReader):
    r"""Read Responses stream events one by one; ``finish`` gives the whole ``Response``.

    >>> parser = StreamParser()
    >>> events = [
    ...     {"type": "response.output_item.added", "output_index": 0,
    ...      "item": {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAA"}},
    ...     {"type": "response.reasoning_summary_text.delta", "output_index": 0, "summary_index": 0, "delta": "Plan"},
    ...     {"type": "response.output_item.added", "output_index": 1,
    ...      "item": {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "now", "arguments": ""}},
    ...     {"type": "response.function_call_arguments.delta", "output_index": 1, "delta": "{}"},
    ...     {"type": "response.completed", "response": {"status": "completed", "output": [], "usage": {"total_tokens": 9}}}]
    >>> [parser.feed(event) for event in events][1]
    (ReasoningDelta(index=0, text=<4 chars>),)
    >>> r = parser.finish()
    >>> r.message.tool_calls[0].name, r.message.reasoning[0].anchor, r.finish_reason
    ('now', 'fc_1', 'completed')

    ``feed`` takes one parsed SSE ``data:`` event and returns text deltas (strings),
    ``ReasoningDelta``s (summary text; ``index`` counts reasoning parts) and ``ToolCallDelta``s
    (``index`` counts calls). When ``response.completed`` (or ``.incomplete``) carries the
    output items, ``finish`` reads the message from them (its ``encrypted_content`` is the final
    one); otherwise it joins what streamed. ``error`` and ``response.failed`` raise
    ``ValidationError`` with code ``provider``; event types this version does not know are ignored.

    ``feed`` also takes the official client's event objects (anything with ``model_dump()``);
    ``feed_raw`` takes the SSE bytes or text as they arrive from the socket, cut anywhere
    (``event:`` lines are read past: the JSON names its type):

    >>> raw = StreamParser()
    >>> raw.feed_raw(b'event: response.output_text.delta\ndata: {"type": "response.output_text.delta", "output_index": 0, "delta": "Gr\xc3')
    ()
    >>> raw.feed_raw(b'\xbc\xc3\x9fe"}\r\n\r\ndata: {"type": "response.completed", "response": {"status": "completed", "output": []}}\n\n')
    ('Grüße',)
    >>> raw.finish().message.content
    'Grüße'

    ``finish`` on a stream that never reached ``response.completed`` (nor
    ``response.incomplete``) raises ``ValidationError`` with code ``incomplete``:

    >>> try:
    ...     StreamParser().finish()
    ... except ValidationError as exc:
    ...     print(exc.code, "-", exc)
    incomplete - the stream is incomplete: it ended before response.completed (cut off, or nothing was fed)
    """

    __slots__ = ("_texts", "_refusal", "_calls", "_reasoning", "_items", "_summaries", "_final", "_usage", "_status", "_ended")

    def __init__(self) -> None:
        super().__init__()
        self._texts: dict[int, list[str]] = {}  # output_index -> text pieces
        self._refusal: list[str] = []
        self._calls = ToolCallAccumulator()
        self._reasoning = ReasoningAccumulator()
        self._items: dict[int, tuple[str, int, str | None]] = {}  # output_index -> (type, ordinal, item id)
        self._summaries: dict[tuple[int, int], int] = {}  # (output_index, summary_index) -> part index
        self._final: Response | None = None
        self._usage: Any = None
        self._status: str | None = None
        self._ended = False

    def feed(self, event: Any) -> tuple[Piece, ...]:
        """Take one event and return what it carried."""
        event = expect_object(payload(event))
        kind = get_str(event, "type")
        if kind == "response.output_text.delta" or kind == "response.refusal.delta":
            text = get_str(event, "delta")
            index = check_int(event.get("output_index", 0), "output_index", minimum=0)
            if text:
                self._texts.setdefault(index, []).append(text)
                if kind == "response.refusal.delta":
                    self._refusal.append(text)
                return (text,)
            return ()
        if kind == "response.reasoning_summary_text.delta":
            return self._summary_delta(event)
        if kind == "response.function_call_arguments.delta":
            index = check_int(event.get("output_index"), "output_index", minimum=0)
            entry = self._items.get(index)
            if entry is None or entry[0] != "function_call":
                raise ValidationError("no function_call item was added at this index", "output_index", "value")
            text = get_str(event, "delta")
            if not text:
                return ()
            delta = ToolCallDelta(entry[1], arguments_delta=text)
            self._calls.add(delta)
            return (delta,)
        if kind == "response.output_item.added":
            return self._added(event)
        if kind == "response.output_item.done":
            self._done(event)
        elif kind in ("response.completed", "response.incomplete"):
            self._completed(event)
        elif kind == "response.failed":
            response = get_optional_object(event, "response")
            raise provider_error(response.get("error") if response else None, "response.error", "OpenAI", _ERROR_KEYS)
        elif kind == "error":
            raise provider_error(event.get("error", event), "error", "OpenAI", _ERROR_KEYS)
        return ()

    def _summary_delta(self, event: dict[str, Any]) -> tuple[ReasoningDelta, ...]:
        index = check_int(event.get("output_index"), "output_index", minimum=0)
        summary = check_int(event.get("summary_index", 0), "summary_index", minimum=0)
        entry = self._items.get(index)
        if entry is None or entry[0] != "reasoning":
            raise ValidationError("no reasoning item was added at this index", "output_index", "value")
        text = get_str(event, "delta")
        key = (index, summary)
        part = self._summaries.get(key)
        if part is None:
            part = self._summaries[key] = len(self._reasoning)
            self._reasoning.annotate(part, provider=PROVIDER, id=entry[2])
        if not text:
            return ()
        delta = ReasoningDelta(part, text)
        self._reasoning.add(delta)
        return (delta,)

    def _added(self, event: dict[str, Any]) -> tuple[ToolCallDelta, ...]:
        index = check_int(event.get("output_index"), "output_index", minimum=0)
        item = get_object(event, "item")
        try:
            kind = get_str(item, "type")
            item_id = get_optional_str(item, "id") or None
            previous = self._items.get(index - 1)
            if previous is not None and previous[0] == "reasoning" and item_id is not None and kind != "reasoning":
                self._reasoning.annotate(self._summaries[(index - 1, 0)], anchor=item_id)
            if kind == "reasoning":
                part = self._summaries[(index, 0)] = len(self._reasoning)
                self._items[index] = (kind, part, item_id)
                self._reasoning.annotate(part, provider=PROVIDER, id=get_str(item, "id"))
                self._reasoning.annotate(part, signature=get_optional_str(item, "encrypted_content") or None)
                return ()
            if kind == "function_call":
                ordinal = len(self._calls)
                self._items[index] = (kind, ordinal, item_id)
                arguments = get_optional_str(item, "arguments") or None
                call_id, name = get_str(item, "call_id"), get_str(item, "name")
                return (add_call_delta(self._calls, ordinal, call_id, name, arguments, CALL_FIELDS),)
            self._items[index] = (kind, 0, item_id)
            return ()
        except ValidationError as exc:
            raise exc.prefixed("item") from None

    def _done(self, event: dict[str, Any]) -> None:
        index = check_int(event.get("output_index"), "output_index", minimum=0)
        item = get_object(event, "item")
        entry = self._items.get(index)
        if entry is not None and entry[0] == "reasoning":
            try:
                signature = get_optional_str(item, "encrypted_content") or None
            except ValidationError as exc:
                raise exc.prefixed("item") from None
            if signature is not None:  # the final token replaces the one the item was added with
                self._reasoning.annotate(self._summaries[(index, 0)], signature=signature)

    def _completed(self, event: dict[str, Any]) -> None:
        self._ended = True
        response = get_object(event, "response")
        try:
            self._usage = freeze_usage(response.get("usage"), "usage")
            self._status = _finish_reason(response)
            output = response.get("output")
            if output:
                self._final = parse_response({**response, "error": None})
        except ValidationError as exc:
            raise exc.prefixed("response") from None

    def finish(self) -> Response:
        """Return the ``Response`` of the whole stream."""
        self._drain()
        if not self._ended:
            raise incomplete("response.completed")
        if self._final is not None:
            return self._final
        calls = finish_calls(self._calls, lambda i: f"tool_calls[{i}]", ("id", "name", "arguments"))
        text = "".join(piece for _, pieces in sorted(self._texts.items()) for piece in pieces)
        message = assistant(text or None, calls, self._reasoning.finish())
        return Response(message, self._status, self._usage, "".join(self._refusal) or None)
