"""Gemini -> agentmsg for what the model says: a model turn's parts, a response, its stream.

The private half of the Gemini codec (``agentmsg.providers.gemini`` is the public module and
names ``parse_response`` and ``StreamParser`` there): the reader of a ``model`` content's parts,
which ``from_messages`` uses for the model turns of a history too, and the snake_case spellings
google-genai sends. The rules are in ``gemini``'s module docstring.
"""

from __future__ import annotations

import re
from typing import Any

from .._checks import expect_object, expected, get_optional_str, get_str, missing
from .._frozen import freeze_json, thaw_json
from ..content import ReasoningPart, TextPart, reasoning_part
from ..errors import ValidationError
from ..messages import ChatMessage
from ..streaming import ReasoningAccumulator, ReasoningDelta, ToolCallDelta
from ..tools import ToolCall
from ._response import Response
from ._common import (
    UNSUPPORTED, assistant, canonical_name, dump_arguments, freeze_usage, generated_id, make_call, payload,
    provider_error, relocate,
)
from ._stream import Piece, StreamReader, incomplete

__all__ = ["PROVIDER", "get_field", "standard_b64", "model_from", "parse_response", "StreamParser"]

PROVIDER = "gemini"
_CALL_FIELDS = ("functionCall.id", "functionCall.name", "functionCall.args")
_ERROR_KEYS = ("status", "code")  # what names an API error (its message is never repeated)
_SNAKE = re.compile(r"(?<=[a-z])([A-Z])")
_SNAKE_NAMES: dict[str, str] = {}  # camelCase field name -> its snake_case spelling


def get_field(data: dict[str, Any], key: str) -> Any:
    """Return ``data[key]`` in camelCase, or in the snake_case spelling the SDK sends."""
    value = data.get(key)
    if value is None:
        snake = _SNAKE_NAMES.get(key)
        if snake is None:
            snake = _SNAKE_NAMES[key] = _SNAKE.sub(r"_\1", key).lower()
        value = data.get(snake)
    return value


def standard_b64(data: object, path: str) -> str:
    """Return base64 text in the standard alphabet (google-genai writes bytes URL-safe)."""
    if type(data) is not str:
        raise expected("a string", data, path) if data is not None else missing(path)
    return data.replace("-", "+").replace("_", "/")


def _signature(part: dict[str, Any]) -> str | None:
    """Return the part's ``thoughtSignature`` in standard base64 (google-genai writes it URL-safe)."""
    signature = get_field(part, "thoughtSignature")
    return None if signature is None else standard_b64(signature, "thoughtSignature")


class _Model:
    """The assistant message being read from a model content's parts."""

    __slots__ = ("texts", "calls", "reasoning", "scope")

    def __init__(self, scope: str | int) -> None:
        self.texts: list[str] = []
        self.calls: list[ToolCall] = []
        self.reasoning: list[ReasoningPart] = []
        self.scope = scope

    def add(self, part: Any) -> None:
        if type(part) is not dict:
            part = expect_object(part)
        text = part.get("text")
        if len(part) == 1:  # the common cases: plain answer text, a call without signature
            if type(text) is str:
                self.texts.append(text)
                return
            call = part.get("functionCall")
            if call is not None:
                self._call(call, None)
                return
        signature = _signature(part)
        call = get_field(part, "functionCall")
        if call is not None:
            self._call(call, signature)
            return
        if text is not None:
            if type(text) is not str:
                raise expected("a string", text, "text")
            if part.get("thought") is True:
                if text or signature:
                    self.reasoning.append(reasoning_part(text, signature or None, False, PROVIDER))
                return
            self.texts.append(text)
            if signature:
                self.reasoning.append(reasoning_part("", signature, False, PROVIDER))
            return
        if signature and len(part) == 1:  # a bare signature part
            self.reasoning.append(reasoning_part("", signature, False, PROVIDER))
            return
        raise ValidationError("this kind of part is not supported here (text, a thought or a function call)", "", UNSUPPORTED)

    def _call(self, call: Any, signature: str | None) -> None:
        call = expect_object(call, "functionCall")
        args = call.get("args")
        name = call.get("name")
        if name is None:
            raise missing("functionCall.name")
        call_id = call.get("id")
        if call_id is None and type(name) is str:
            frozen = freeze_json(args if args is not None else {}, "functionCall.args")
            scope = self.scope if type(self.scope) is str else f"contents[{self.scope}]"
            call_id = generated_id(scope, len(self.calls), name, frozen)
        made = make_call(call_id, name, args, _CALL_FIELDS)
        self.calls.append(made)
        if signature:
            self.reasoning.append(reasoning_part("", signature, False, PROVIDER, None, made.id))

    def message(self) -> ChatMessage:
        texts = [t for t in self.texts if t]
        content: Any = None if not texts else texts[0] if len(texts) == 1 else tuple(TextPart(t) for t in texts)
        return assistant(content, tuple(self.calls), self.reasoning)


def model_from(parts: Any, scope: str | int) -> ChatMessage:
    if parts is None:
        parts = []
    if type(parts) is not list:
        raise expected("an array of parts", parts, "parts")
    model = _Model(scope)
    for j, part in enumerate(parts):
        try:
            model.add(part)
        except ValidationError as exc:
            raise exc.prefixed(j).prefixed("parts") from None
    try:
        return model.message()
    except ValidationError as exc:  # duplicate call ids
        raise relocate(exc, "parts") from None


def _candidate(body: dict[str, Any]) -> dict[str, Any] | None:
    candidates = body.get("candidates")
    if candidates is None or candidates == []:
        return None
    if type(candidates) is not list:
        raise expected("an array", candidates, "candidates")
    if len(candidates) > 1:
        raise ValidationError("several candidates (candidateCount > 1) are not supported: request one", "candidates", UNSUPPORTED)
    return expect_object(candidates[0], "candidates[0]")


def _finish_reason(body: dict[str, Any], candidate: dict[str, Any] | None) -> str | None:
    if candidate is not None:
        reason = get_field(candidate, "finishReason")
        if reason is not None:
            if type(reason) is not str:
                raise expected("a string", reason, "candidates[0].finishReason")
            return reason
    feedback = get_field(body, "promptFeedback")
    if type(feedback) is dict and type(get_field(feedback, "blockReason")) is str:
        return str(get_field(feedback, "blockReason"))
    return None


def parse_response(body: Any) -> Response:
    """Return the ``Response`` of a ``GenerateContentResponse`` body.

    >>> r = parse_response({"candidates": [{"content": {"role": "model", "parts": [{"text": "Hi!"}]},
    ...     "finishReason": "STOP"}], "usageMetadata": {"promptTokenCount": 5, "totalTokenCount": 7}})
    >>> r.message.content, r.finish_reason, r.usage["totalTokenCount"]
    ('Hi!', 'STOP', 7)

    ``finish_reason`` is Gemini's own (``STOP``, ``MAX_TOKENS``, ``SAFETY``...), or the
    ``promptFeedback.blockReason`` of a blocked prompt; a blocked or empty answer is an assistant
    message with empty text. An error body (``{"error": {...}}``) raises ``ValidationError``
    with code ``provider`` naming its ``status``. ``body`` may also be google-genai's
    ``GenerateContentResponse`` (anything with ``model_dump()``).
    """
    body = expect_object(payload(body))
    if body.get("error") is not None:
        raise provider_error(body["error"], "error", "Gemini", _ERROR_KEYS)
    candidate = _candidate(body)
    if candidate is None and get_field(body, "promptFeedback") is None:
        raise missing("candidates")
    message = ChatMessage.assistant("")
    if candidate is not None:
        content = candidate.get("content")
        if content is not None:
            content = expect_object(content, "candidates[0].content")
            scope = body.get("responseId") if type(body.get("responseId")) is str else "response"
            try:
                message = model_from(content.get("parts"), scope)
            except ValidationError as exc:
                raise exc.prefixed("content").prefixed(0).prefixed("candidates") from None
    usage = get_field(body, "usageMetadata")
    return Response(message, _finish_reason(body, candidate), freeze_usage(usage, "usageMetadata"))


_PATH_STEP = re.compile(r"\.([A-Za-z_$][\w$-]*)|\[(\d+)\]|\['([^']*)'\]|\[\"([^\"]*)\"\]")


class _StreamedCall:
    __slots__ = ("id", "name", "args", "open_string")

    def __init__(self, call_id: str | None, name: str, args: Any) -> None:
        self.id = call_id
        self.name = name
        self.args: dict[str, Any] = {} if args is None else dict(thaw_json(freeze_json(args, "functionCall.args")))
        self.open_string: str | None = None  # the jsonPath whose string value continues

    def add_partial(self, partial: Any) -> None:
        partial = expect_object(partial)
        path = get_str(partial, "jsonPath")
        if "stringValue" in partial or "string_value" in partial:
            value: Any = get_str(partial, "stringValue" if "stringValue" in partial else "string_value")
            if self.open_string == path:
                value = self._lookup(path) + value
        elif get_field(partial, "numberValue") is not None:
            value = get_field(partial, "numberValue")
        elif get_field(partial, "boolValue") is not None:
            value = get_field(partial, "boolValue")
        elif "nullValue" in partial or "null_value" in partial:
            value = None
        else:
            raise ValidationError("a partial argument needs a value", "", "missing")
        self._store(path, value)
        self.open_string = path if get_field(partial, "willContinue") is True and type(value) is str else None

    def _steps(self, path: str) -> list[str | int]:
        if not path.startswith("$"):
            raise ValidationError("must be a JSON path starting with $", "jsonPath", "pattern")
        steps: list[str | int] = []
        k = 1
        while k < len(path):
            match = _PATH_STEP.match(path, k)
            if match is None:
                raise ValidationError("must be a JSON path of keys and indexes", "jsonPath", "pattern")
            key, index, quoted, dquoted = match.groups()
            steps.append(int(index) if index is not None else key if key is not None else quoted if quoted is not None else dquoted)
            k = match.end()
        if not steps:
            raise ValidationError("must name a key of the arguments", "jsonPath", "pattern")
        return steps

    def _lookup(self, path: str) -> str:
        node: Any = self.args
        for step in self._steps(path):
            node = node[step]
        return node if type(node) is str else ""

    def _store(self, path: str, value: Any) -> None:
        steps = self._steps(path)
        node: Any = self.args
        for step, nxt in zip(steps, steps[1:]):
            fresh: Any = [] if type(nxt) is int else {}
            if type(step) is int:
                if type(node) is not list:
                    raise ValidationError("an index into something that is not an array", "jsonPath", "value")
                while len(node) <= step:
                    node.append(None)
                if node[step] is None:
                    node[step] = fresh
                node = node[step]
            else:
                if type(node) is not dict:
                    raise ValidationError("a key into something that is not an object", "jsonPath", "value")
                node = node.setdefault(step, fresh)
        last = steps[-1]
        if type(last) is int:
            if type(node) is not list:
                raise ValidationError("an index into something that is not an array", "jsonPath", "value")
            while len(node) <= last:
                node.append(None)
            node[last] = value
        else:
            if type(node) is not dict:
                raise ValidationError("a key into something that is not an object", "jsonPath", "value")
            node[last] = value


class StreamParser(StreamReader):
    r"""Read ``streamGenerateContent`` chunks one by one; ``finish`` gives the whole ``Response``.

    >>> parser = StreamParser()
    >>> chunks = [
    ...     {"candidates": [{"content": {"role": "model", "parts": [{"text": "Weighing it", "thought": True}]}}]},
    ...     {"candidates": [{"content": {"role": "model", "parts": [{"text": "Hel", "thoughtSignature": "EqoB"}]}}]},
    ...     {"candidates": [{"content": {"role": "model", "parts": [{"text": "lo"}]}, "finishReason": "STOP"}],
    ...      "usageMetadata": {"totalTokenCount": 9}}]
    >>> [parser.feed(chunk) for chunk in chunks]
    [(ReasoningDelta(index=0, text=<11 chars>),), ('Hel',), ('lo',)]
    >>> r = parser.finish()
    >>> r.message.content, [(p.text, p.signature) for p in r.message.reasoning], r.finish_reason
    ('Hello', [('Weighing it', None), ('', 'EqoB')], 'STOP')

    Each chunk is a ``GenerateContentResponse`` (the SSE ``data:`` payload). ``feed`` returns
    text deltas (strings), ``ReasoningDelta``s (thought text; consecutive thought parts join
    into one ``ReasoningPart``) and ``ToolCallDelta``s. A call whose arguments stream
    (``willContinue`` and ``partialArgs``, on Vertex AI) gives a ``ToolCallDelta`` with its
    name when it starts and one with all its arguments when it ends. An error chunk raises
    ``ValidationError`` with code ``provider``.

    ``feed`` also takes google-genai's ``GenerateContentResponse`` objects (anything with
    ``model_dump()``); ``feed_raw`` takes the Server-Sent Events of
    ``streamGenerateContent?alt=sse`` (what google-genai asks for) as bytes or text, cut anywhere:

    >>> raw = StreamParser()
    >>> raw.feed_raw(b'data: {"candidates": [{"content": {"role": "model", "parts": [{"text": "Gr\xc3')
    ()
    >>> raw.feed_raw(b'\xbc\xc3\x9fe"}]}, "finishReason": "STOP"}]}\r\n\r\n')
    ('Grüße',)
    >>> raw.finish().message.content
    'Grüße'

    ``finish`` on a stream whose chunks never gave a ``finishReason`` (nor a
    ``promptFeedback.blockReason``) raises ``ValidationError`` with code ``incomplete``:

    >>> try:
    ...     StreamParser().finish()
    ... except ValidationError as exc:
    ...     print(exc.code, "-", exc)
    incomplete - the stream is incomplete: it ended before a chunk with a finishReason (cut off, or nothing was fed)
    """

    __slots__ = ("_texts", "_reasoning", "_thinking", "_calls", "_open", "_signatures", "_scope", "_finish_reason", "_usage")

    def __init__(self) -> None:
        super().__init__()
        self._texts: list[str] = []
        self._reasoning = ReasoningAccumulator()
        self._thinking: int | None = None  # the reasoning part thought text is joining
        self._calls: list[_StreamedCall] = []
        self._open: _StreamedCall | None = None  # a call whose arguments are still streaming
        self._signatures: dict[int, int] = {}  # reasoning part index -> the call its signature is on
        self._scope = "stream"
        self._finish_reason: str | None = None
        self._usage: Any = None

    def feed(self, chunk: Any) -> tuple[Piece, ...]:
        """Take one chunk and return what it carried."""
        chunk = expect_object(payload(chunk))
        if chunk.get("error") is not None:
            raise provider_error(chunk["error"], "error", "Gemini", _ERROR_KEYS)
        if not self._calls and not self._texts and type(chunk.get("responseId")) is str:
            self._scope = chunk["responseId"]
        usage = get_field(chunk, "usageMetadata")
        if usage is not None:
            self._usage = freeze_usage(usage, "usageMetadata")
        candidate = _candidate(chunk)
        reason = _finish_reason(chunk, candidate)
        if reason is not None:
            self._finish_reason = reason
        if candidate is None or candidate.get("content") is None:
            return ()
        content = expect_object(candidate["content"], "candidates[0].content")
        parts = content.get("parts") or []
        if type(parts) is not list:
            raise expected("an array of parts", parts, "candidates[0].content.parts")
        out: list[Piece] = []
        for j, part in enumerate(parts):
            try:
                self._part(expect_object(part), out)
            except ValidationError as exc:
                raise exc.prefixed(j).prefixed("parts").prefixed("content").prefixed(0).prefixed("candidates") from None
        return tuple(out)

    def _signed(self, signature: str) -> int:
        index = len(self._reasoning)
        self._reasoning.annotate(index, provider=PROVIDER, signature=signature)
        return index

    def _part(self, part: dict[str, Any], out: list[Piece]) -> None:
        signature = _signature(part)
        call = get_field(part, "functionCall")
        if call is not None:
            self._thinking = None
            self._call(expect_object(call, "functionCall"), signature or None, out)
            return
        text = part.get("text")
        if text is None:
            if signature and len(part) == 1:
                self._thinking = None
                self._signed(signature)
                return
            raise ValidationError("this kind of part is not supported here (text, a thought or a function call)", "", UNSUPPORTED)
        if type(text) is not str:
            raise expected("a string", text, "text")
        if part.get("thought") is True:
            if self._thinking is None:
                self._thinking = len(self._reasoning)
                self._reasoning.annotate(self._thinking, provider=PROVIDER)
            delta = ReasoningDelta(self._thinking, text, signature or None)
            self._reasoning.add(delta)
            if text:
                out.append(ReasoningDelta(self._thinking, text))
            return
        self._thinking = None
        if text:
            self._texts.append(text)
            out.append(text)
        if signature:
            self._signed(signature)

    def _call(self, call: dict[str, Any], signature: str | None, out: list[Piece]) -> None:
        name = call.get("name")
        partial = get_field(call, "partialArgs")
        if name is not None:  # a new call
            self._close(out)
            name = canonical_name(name, "functionCall.name")
            streamed = _StreamedCall(get_optional_str(call, "id"), name, call.get("args"))
            ordinal = len(self._calls)
            self._calls.append(streamed)
            if signature is not None:
                self._signatures[self._signed(signature)] = ordinal  # anchored once the call's id is known
            if get_field(call, "willContinue") is True:
                self._open = streamed
                out.append(ToolCallDelta(ordinal, streamed.id, name, None))
                if partial is not None:
                    self._partials(partial, out)
            else:
                self._finish_call(ordinal, out, announced=False)
            return
        if partial is not None:
            self._partials(partial, out)
            if get_field(call, "willContinue") is not True:
                self._close(out)
            return
        self._close(out)  # ``functionCall: {}`` ends the streaming call

    def _partials(self, partial: Any, out: list[Piece]) -> None:
        if self._open is None:
            raise ValidationError("partial arguments arrived for no streaming call", "functionCall.partialArgs", "value")
        if type(partial) is not list:
            raise expected("an array", partial, "functionCall.partialArgs")
        for k, item in enumerate(partial):
            try:
                self._open.add_partial(item)
            except ValidationError as exc:
                raise exc.prefixed(k).prefixed("functionCall.partialArgs") from None

    def _close(self, out: list[Piece]) -> None:
        if self._open is not None:
            ordinal = self._calls.index(self._open)
            self._open = None
            self._finish_call(ordinal, out, announced=True)

    def _finish_call(self, ordinal: int, out: list[Piece], announced: bool) -> None:
        """Give the call its id (made if Gemini sent none) and return its arguments as one delta."""
        streamed = self._calls[ordinal]
        arguments = freeze_json(streamed.args, "functionCall.args")
        given = streamed.id
        if streamed.id is None:
            streamed.id = generated_id(self._scope, ordinal, streamed.name, arguments)
        out.append(ToolCallDelta(
            ordinal,
            streamed.id if not announced or given is None else None,
            None if announced else streamed.name,
            dump_arguments(arguments),
        ))

    def finish(self) -> Response:
        """Return the ``Response`` of the whole stream."""
        self._drain()
        if self._finish_reason is None:
            raise incomplete("a chunk with a finishReason")
        self._close([])
        calls = []
        for k, streamed in enumerate(self._calls):
            try:
                calls.append(ToolCall(streamed.id, streamed.name, freeze_json(streamed.args, "args")))  # type: ignore[arg-type]  # the id is set when the call ends
            except ValidationError as exc:
                raise exc.prefixed(k).prefixed("tool_calls") from None
        for index, ordinal in self._signatures.items():
            self._reasoning.annotate(index, anchor=calls[ordinal].id)
        message = assistant("".join(self._texts) or None, tuple(calls), self._reasoning.finish())
        return Response(message, self._finish_reason, self._usage)
