"""Hypothesis: agentmsg -> provider -> agentmsg is exact for everything the provider can express.

Conversations are generated valid (they pass ``ConversationHistory``). Where a provider has one
form for two agentmsg forms, ``canon_*`` applies the documented rule (README table), so the
comparison stays exact: OpenAI sends empty assistant text beside tool calls as null; Anthropic
reads one text block as a string where it cannot tell the forms apart; Ollama's content is one
string followed by images. Responses and streams built from generated assistant messages go
through ``parse_response`` and ``StreamParser`` (chunk boundaries, interleaved tool-call indexes,
pings and NDJSON lines drawn at random) and give the same message back.
"""

from __future__ import annotations

import base64
import itertools
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentmsg import (
    ChatMessage,
    ConversationHistory,
    ImagePart,
    ImageSource,
    MessageRole,
    TextPart,
    ToolCall,
    ToolDefinition,
    ValidationError,
)
from agentmsg.providers import anthropic, bedrock, ollama, openai
from agentmsg.providers._common import dump_arguments
from agentmsg.tools import to_wire_name

SYSTEM, USER, ASSISTANT, TOOL = MessageRole

TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
NONEMPTY = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=12)
_WORD = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"
def _sendable(name: str) -> bool:
    """A canonical name every codec can put on the wire (a needless ``_x5f_`` is refused)."""
    try:
        to_wire_name(name)
    except ValidationError:
        return False
    return True


NAME = st.text(_WORD, min_size=1, max_size=12).filter(_sendable)
ID = st.text(_WORD + "-", min_size=1, max_size=10)
JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**9), 10**9) | st.floats(allow_nan=False, allow_infinity=False) | TEXT,
    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(TEXT, kids, max_size=3),
    max_leaves=6,
)
ARGS = st.dictionaries(TEXT, JSON, max_size=3)
MAGIC = {
    "image/png": b"\x89PNG\r\n\x1a\n",
    "image/jpeg": b"\xff\xd8\xff\xe0",
    "image/gif": b"GIF89a",
    "image/webp": b"RIFF\x00\x00\x00\x00WEBPVP8 ",
}


@st.composite
def base64_images(draw: Any) -> ImagePart:
    media_type = draw(st.sampled_from(sorted(MAGIC)))
    data = base64.b64encode(MAGIC[media_type] + draw(st.binary(max_size=9))).decode()
    return ImagePart(ImageSource.from_base64(data, media_type))


URL_IMAGES = st.text("abcdefghij0123456789", min_size=1, max_size=8).map(
    lambda stem: ImagePart(ImageSource.from_url(f"https://example.com/{stem}.png"))
)
IMAGES = base64_images() | URL_IMAGES


def parts(*kinds: Any, min_size: int = 1) -> Any:
    return st.lists(st.one_of(*kinds), min_size=min_size, max_size=3).map(tuple)


def text_parts(text: Any = TEXT) -> Any:
    return text.map(TextPart)


class Profile:
    """What a provider can express, as strategies for each kind of content."""

    def __init__(self, **strategies: Any) -> None:
        self.system = strategies["system"]
        self.user = strategies["user"]
        self.answer = strategies["answer"]
        self.with_calls = strategies["with_calls"]
        self.tool = strategies["tool"]
        self.is_error = strategies.get("is_error", st.just(False))


OPENAI = Profile(
    system=TEXT | parts(text_parts()),
    user=TEXT | parts(text_parts(), IMAGES),
    answer=TEXT | parts(text_parts()),
    with_calls=st.none() | TEXT | parts(text_parts()),
    tool=TEXT | parts(text_parts()),
)
ANTHROPIC = Profile(
    system=TEXT,
    user=NONEMPTY | parts(text_parts(NONEMPTY), IMAGES),
    answer=NONEMPTY | parts(text_parts(NONEMPTY)),
    with_calls=st.none() | NONEMPTY | parts(text_parts(NONEMPTY)),
    tool=TEXT | parts(text_parts(NONEMPTY), IMAGES),
    is_error=st.booleans(),
)
OLLAMA = Profile(
    system=TEXT | parts(text_parts()),
    user=TEXT | parts(text_parts(), base64_images()),
    answer=TEXT | parts(text_parts()),
    with_calls=st.none() | TEXT,
    tool=TEXT | parts(text_parts(), base64_images()),
)
BEDROCK = Profile(
    system=NONEMPTY | parts(text_parts(NONEMPTY)),
    user=NONEMPTY | parts(text_parts(NONEMPTY), base64_images()),
    answer=NONEMPTY | parts(text_parts(NONEMPTY)),
    with_calls=st.none() | NONEMPTY | parts(text_parts(NONEMPTY)),
    tool=TEXT | parts(text_parts(NONEMPTY), base64_images()),
    is_error=st.booleans(),
)


@st.composite
def conversations(draw: Any, profile: Profile) -> list[ChatMessage]:
    messages: list[ChatMessage] = []
    if draw(st.booleans()):
        messages.append(ChatMessage(SYSTEM, draw(profile.system)))
    counter = itertools.count()
    for _ in range(draw(st.integers(1, 3))):
        messages.append(ChatMessage.user(draw(profile.user)))
        for _ in range(draw(st.integers(0, 2))):
            calls = [ToolCall(f"{draw(ID)}{next(counter)}", draw(NAME), draw(ARGS)) for _ in range(draw(st.integers(1, 3)))]
            messages.append(ChatMessage.assistant(draw(profile.with_calls), calls))
            for call in draw(st.permutations(calls)):
                messages.append(ChatMessage.tool(call.id, draw(profile.tool), draw(profile.is_error)))
            if draw(st.booleans()):
                break  # the user speaks next, right after the tool results
        else:
            messages.append(ChatMessage.assistant(draw(profile.answer)))
    ConversationHistory(messages, require_system=False)  # valid by construction
    return messages


def canon_openai(messages: list[ChatMessage]) -> tuple[ChatMessage, ...]:
    return tuple(
        ChatMessage.assistant(None, m.tool_calls) if m.role is ASSISTANT and m.content == "" and m.tool_calls else m
        for m in messages
    )


def canon_anthropic(messages: list[ChatMessage]) -> tuple[ChatMessage, ...]:
    out = []
    previous = None
    for m in messages:
        single = type(m.content) is tuple and len(m.content) == 1 and type(m.content[0]) is TextPart
        if single and (m.role is ASSISTANT or (m.role is USER and previous is TOOL)):
            m = ChatMessage(m.role, m.content[0].text, m.tool_calls)  # type: ignore[index]
        previous = m.role
        out.append(m)
    return tuple(out)


def canon_ollama(messages: list[ChatMessage]) -> tuple[ChatMessage, ...]:
    out = []
    for m in messages:
        content: Any = m.content
        if type(content) is tuple:
            text = "\n".join(p.text for p in content if type(p) is TextPart and p.text)
            images = tuple(p for p in content if type(p) is ImagePart)
            content = ((TextPart(text),) if text else ()) + images if images else text
        if m.role is ASSISTANT and content == "" and m.tool_calls:
            content = None
        out.append(ChatMessage(m.role, content, m.tool_calls, m.tool_call_id, m.is_error))
    return tuple(in_call_order(out))


def in_call_order(messages: list[ChatMessage]) -> list[ChatMessage]:
    """Ollama's rule: in a run of tool messages, results of same-named calls follow the calls' order."""
    order: dict[str, tuple[str, int]] = {}
    out = list(messages)
    k = 0
    while k < len(out):
        if out[k].role is ASSISTANT:
            order = {c.id: (c.name, j) for j, c in enumerate(out[k].tool_calls)}
        if out[k].role is not MessageRole.TOOL:
            k += 1
            continue
        end = k
        while end < len(out) and out[end].role is MessageRole.TOOL:
            end += 1
        slots: dict[str, list[int]] = {}
        for i in range(k, end):
            slots.setdefault(order[out[i].tool_call_id][0], []).append(i)  # type: ignore[index]
        for places in slots.values():
            ordered = sorted((out[i] for i in places), key=lambda m: order[m.tool_call_id][1])  # type: ignore[index]
            for i, m in zip(places, ordered):
                out[i] = m
        k = end
    return out


def plain_json(value: Any) -> Any:
    """The wire is plain JSON: it survives a dump and load unchanged."""
    assert json.loads(json.dumps(value)) == value
    return value


@settings(max_examples=100)
@given(conversations(OPENAI))
def test_openai_round_trip(messages: list[ChatMessage]) -> None:
    wire = plain_json(openai.to_messages(messages))
    back = openai.from_messages(wire)
    assert back == canon_openai(messages)
    ConversationHistory(back, require_system=False)


@settings(max_examples=100)
@given(conversations(ANTHROPIC))
def test_anthropic_round_trip(messages: list[ChatMessage]) -> None:
    system, wire = anthropic.to_messages(messages)
    plain_json(wire)
    assert [m["role"] for m in wire][::2] == ["user"] * len(wire[::2])  # turns alternate, user first
    assert [m["role"] for m in wire][1::2] == ["assistant"] * len(wire[1::2])
    back = anthropic.from_messages(wire, system)
    assert back == canon_anthropic(messages)
    ConversationHistory(back, require_system=False)


def canon_bedrock(messages: list[ChatMessage]) -> tuple[ChatMessage, ...]:
    """Bedrock reads one text block as a string, wherever it is."""
    out = []
    for m in messages:
        if type(m.content) is tuple and len(m.content) == 1 and type(m.content[0]) is TextPart:
            m = ChatMessage(m.role, m.content[0].text, m.tool_calls, m.tool_call_id, m.is_error)
        out.append(m)
    return tuple(out)


@settings(max_examples=100)
@given(conversations(BEDROCK), st.sampled_from(["bytes", "base64"]))
def test_bedrock_round_trip(messages: list[ChatMessage], blobs: Any) -> None:
    system, wire = bedrock.to_messages(messages, blobs=blobs)
    if blobs == "base64":
        plain_json(wire)
    assert [m["role"] for m in wire][::2] == ["user"] * len(wire[::2])  # turns alternate, user first
    assert [m["role"] for m in wire][1::2] == ["assistant"] * len(wire[1::2])
    back = bedrock.from_messages(wire, system)
    assert back == canon_bedrock(messages)
    ConversationHistory(back, require_system=False)


@settings(max_examples=100)
@given(conversations(OLLAMA))
def test_ollama_round_trip(messages: list[ChatMessage]) -> None:
    wire = plain_json(ollama.to_messages(messages))
    back = ollama.from_messages(wire)
    assert back == canon_ollama(messages)
    ConversationHistory(back, require_system=False)


@st.composite
def tool_definitions(draw: Any) -> ToolDefinition:
    name = draw(NAME)
    strict = draw(st.booleans())
    kinds = st.sampled_from([{"type": "string"}, {"type": "integer"}, {"type": "array", "items": {"type": "number"}}])
    properties = draw(st.dictionaries(NAME, kinds, max_size=3))
    parameters: dict[str, Any] = {"type": "object", "properties": properties}
    if strict or draw(st.booleans()):
        parameters["additionalProperties"] = False
    if draw(st.booleans()):
        parameters["required"] = sorted(properties)
    description = draw(st.just(name) | NONEMPTY.filter(str.strip))
    return ToolDefinition(name, description, parameters, strict)


@settings(max_examples=50)
@given(st.lists(tool_definitions(), max_size=4))
def test_tools_round_trip(definitions: list[ToolDefinition]) -> None:
    for module in (openai, anthropic, ollama, bedrock):
        wire = plain_json(module.to_tools(definitions))
        assert module.from_tools(wire) == tuple(definitions)


# -- responses and streams built from generated assistant messages ----------------------------------


@st.composite
def answers(draw: Any, text: Any = TEXT) -> ChatMessage:
    counter = itertools.count()
    calls = [ToolCall(f"{draw(ID)}{next(counter)}", draw(NAME), draw(ARGS)) for _ in range(draw(st.integers(0, 3)))]
    content = draw(st.none() | text) if calls else draw(text)
    return ChatMessage.assistant(content, calls)


def pieces(draw: Any, text: str) -> list[str]:
    """Cut ``text`` at random places (empty pieces allowed)."""
    cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=4)))
    bounds = [0, *cuts, len(text)]
    return [text[a:b] for a, b in zip(bounds, bounds[1:])]


def interleave(draw: Any, queues: list[list[Any]]) -> list[Any]:
    """Merge queues in a random order that keeps each queue's own order."""
    queues = [list(q) for q in queues if q]
    out = []
    while queues:
        k = draw(st.integers(0, len(queues) - 1))
        out.append(queues[k].pop(0))
        if not queues[k]:
            del queues[k]
    return out


def run(parser: Any, chunks: list[Any]) -> tuple[str, list[Any], Any]:
    items = [item for chunk in chunks for item in parser.feed(chunk)]
    return "".join(i for i in items if isinstance(i, str)), [i for i in items if not isinstance(i, str)], parser.finish()


@settings(max_examples=75)
@given(answers(), st.data())
def test_openai_response_and_stream(message: ChatMessage, data: Any) -> None:
    (wire,) = openai.to_messages([message])
    usage = {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7}
    body = {"id": "chatcmpl-1", "object": "chat.completion", "choices": [{"index": 0, "message": wire, "finish_reason": "stop"}], "usage": usage}
    expected = canon_openai([message])[0]
    r = openai.parse_response(body)
    assert (r.message, r.finish_reason, dict(r.usage)) == (expected, "stop", usage)

    def chunk(delta: dict[str, Any]) -> dict[str, Any]:
        return {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}

    text_queue = [chunk({"content": p}) for p in pieces(data.draw, message.text)]
    call_queues = []
    for index, call in enumerate(message.tool_calls):
        arguments = pieces(data.draw, dump_arguments(call.arguments))
        first = {"index": index, "id": call.id, "type": "function", "function": {"name": call.name, "arguments": arguments[0]}}
        call_queues.append([chunk({"tool_calls": [first]})] + [chunk({"tool_calls": [{"index": index, "function": {"arguments": a}}]}) for a in arguments[1:]])
    chunks = [chunk({"role": "assistant", "content": None})] + interleave(data.draw, [text_queue, *call_queues])
    chunks += [{"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls" if message.tool_calls else "stop"}]}, {"choices": [], "usage": usage}]
    text, deltas, r = run(openai.StreamParser(), chunks)
    assert text == message.text
    assert r.message == expected
    assert r.finish_reason == ("tool_calls" if message.tool_calls else "stop") and dict(r.usage) == usage
    assert {d.index for d in deltas} == set(range(len(message.tool_calls)))


@settings(max_examples=75)
@given(answers(NONEMPTY), st.data())
def test_anthropic_response_and_stream(message: ChatMessage, data: Any) -> None:
    _, (wire,) = anthropic.to_messages([message])
    content = wire["content"] if type(wire["content"]) is list else [{"type": "text", "text": wire["content"]}]
    body = {"type": "message", "role": "assistant", "content": content, "stop_reason": "end_turn", "usage": {"input_tokens": 5, "output_tokens": 1}}
    r = anthropic.parse_response(body)
    assert (r.message, r.finish_reason) == (message, "end_turn")

    events: list[Any] = [{"type": "message_start", "message": {"role": "assistant", "content": [], "usage": {"input_tokens": 5, "output_tokens": 1}}}]
    for index, block in enumerate(content):
        if block["type"] == "text":
            events.append({"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}})
            events += [{"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": p}} for p in pieces(data.draw, block["text"])]
        else:
            start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            events.append({"type": "content_block_start", "index": index, "content_block": start})
            partial = pieces(data.draw, json.dumps(block["input"]))
            events += [{"type": "content_block_delta", "index": index, "delta": {"type": "input_json_delta", "partial_json": p}} for p in partial]
        if data.draw(st.booleans()):
            events.append({"type": "ping"})
        events.append({"type": "content_block_stop", "index": index})
    events += [{"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 9}}, {"type": "message_stop"}]
    text, deltas, r = run(anthropic.StreamParser(), events)
    assert text == message.text
    assert r.message == message
    assert dict(r.usage) == {"input_tokens": 5, "output_tokens": 9}
    assert sorted({d.index for d in deltas}) == list(range(len(message.tool_calls)))


@settings(max_examples=75)
@given(answers(NONEMPTY), st.data())
def test_bedrock_response_and_stream(message: ChatMessage, data: Any) -> None:
    _, (wire,) = bedrock.to_messages([message])
    usage = {"inputTokens": 5, "outputTokens": 2, "totalTokens": 7}
    body = {"output": {"message": wire}, "stopReason": "end_turn", "usage": usage, "metrics": {"latencyMs": 1}}
    r = bedrock.parse_response(body)
    assert (r.message, r.finish_reason, dict(r.usage)) == (canon_bedrock([message])[0], "end_turn", usage)

    events: list[Any] = [{"messageStart": {"role": "assistant"}}]
    for index, block in enumerate(wire["content"]):
        if "text" in block:
            events += [{"contentBlockDelta": {"contentBlockIndex": index, "delta": {"text": p}}} for p in pieces(data.draw, block["text"])]
        else:
            use = block["toolUse"]
            events.append({"contentBlockStart": {"contentBlockIndex": index, "start": {"toolUse": {"toolUseId": use["toolUseId"], "name": use["name"]}}}})
            partial = pieces(data.draw, json.dumps(use["input"]))
            events += [{"contentBlockDelta": {"contentBlockIndex": index, "delta": {"toolUse": {"input": p}}}} for p in partial]
        events.append({"contentBlockStop": {"contentBlockIndex": index}})
    events += [{"messageStop": {"stopReason": "end_turn"}}, {"metadata": {"usage": usage, "metrics": {"latencyMs": 1}}}]
    text, deltas, r = run(bedrock.StreamParser(), events)
    assert text == message.text
    assert r.message == canon_bedrock([message])[0]
    assert dict(r.usage) == usage
    assert sorted({d.index for d in deltas}) == list(range(len(message.tool_calls)))


@settings(max_examples=75)
@given(answers(), st.data())
def test_ollama_response_and_ndjson_stream(message: ChatMessage, data: Any) -> None:
    (wire,) = ollama.to_messages([message])
    body = {"model": "m", "created_at": "2025-01-01T00:00:00Z", "message": wire, "done": True, "done_reason": "stop", "eval_count": 4}
    expected = canon_ollama([message])[0]
    r = ollama.parse_response(body)
    assert (r.message, r.finish_reason, dict(r.usage)) == (expected, "stop", {"eval_count": 4})

    texts = [{"message": {"role": "assistant", "content": p}, "done": False} for p in pieces(data.draw, message.text)]
    calls = [{"message": {"role": "assistant", "content": "", "tool_calls": [c]}, "done": False} for c in wire.get("tool_calls", ())]
    lines = interleave(data.draw, [texts, calls])
    lines.append({"message": {"role": "assistant", "content": ""}, "done": True, "done_reason": "stop", "eval_count": 4})
    ndjson = "".join(json.dumps(line) + "\n" for line in lines)
    text, deltas, r = run(ollama.StreamParser(), [json.loads(line) for line in ndjson.splitlines()])
    assert text == message.text
    assert r.message == expected
    assert [d.index for d in deltas] == list(range(len(message.tool_calls)))


@pytest.mark.parametrize("codec", ["openai", "anthropic", "ollama", "bedrock"])
def test_a_canonical_name_with_a_needless_escape_is_refused_by_every_codec(codec: str) -> None:
    """``_x5f_`` escapes only an underscore that starts an escape's text; elsewhere no codec can
    send it back as it came, so each refuses it with the rule instead of sending a wrong name."""
    call = ToolCall("call_1", "a_x5f_b", {})
    messages = [ChatMessage.user("Hi"), ChatMessage.assistant(tool_calls=[call]), ChatMessage.tool("call_1", "ok")]
    module = {"openai": openai, "anthropic": anthropic, "ollama": ollama, "bedrock": bedrock}[codec]
    with pytest.raises(ValidationError) as info:
        module.to_messages(messages)
    assert info.value.code == "pattern" and "_x5f_" in str(info.value)

