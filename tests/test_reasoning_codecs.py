"""Reasoning through the Anthropic, Ollama and Chat Completions (vLLM) codecs, and across providers.

Anthropic is tested on recorded traffic (tests/data/provider-fixtures/reasoning, see its
PROVENANCE.md). No recorded Ollama ``thinking`` or vLLM ``reasoning_content`` exchange was
available: those payloads are scripted here in each provider's documented wire shape.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentmsg import ChatMessage, ReasoningDelta, ReasoningPart, ToolCall, ToolCallDelta, ValidationError
from agentmsg.providers import anthropic, bedrock, gemini, ollama, openai, openai_responses

DATA = Path(__file__).parent / "data" / "provider-fixtures" / "reasoning"


def load(name: str) -> Any:
    return json.loads((DATA / name).read_bytes())


def feed_all(parser: Any, events: list[Any]) -> list[Any]:
    out: list[Any] = []
    for event in events:
        out.extend(parser.feed(event))
    return out


# -- Anthropic, recorded --------------------------------------------------------------------


def test_anthropic_thinking_goes_back_exactly_as_the_recorded_next_request() -> None:
    response = anthropic.parse_response(load("claude_thinking_response.json"))
    thought = response.message.reasoning[0]
    block = load("claude_thinking_response.json")["content"][0]
    assert (thought.text, thought.signature, thought.provider, thought.redacted) == (
        block["thinking"], block["signature"], "anthropic", False
    )
    recorded = load("claude_thinking_replayed_request.json")
    history = [ChatMessage.user("How do I cross the street?"), response.message,
               ChatMessage.user("Considering the way to cross the street, analogously, how do I cross the river?")]
    system, wire = anthropic.to_messages(history)
    assert system is None
    assert wire[1] == recorded["messages"][1]  # the thinking block first, signature intact, then the text
    # and the recorded request reads back to the same conversation and re-encodes unchanged
    messages = anthropic.from_messages(recorded["messages"])
    assert messages[1] == response.message
    assert anthropic.to_messages(messages)[1][1] == recorded["messages"][1]
    assert ChatMessage.from_dict(messages[1].to_dict()) == messages[1]


def test_anthropic_redacted_thinking_stream() -> None:
    events = load("claude_redacted_thinking_stream.json")
    parser = anthropic.StreamParser()
    items = feed_all(parser, events)
    response = parser.finish()
    datas = [e["content_block"]["data"] for e in events if e.get("content_block", {}).get("type") == "redacted_thinking"]
    assert [(p.redacted, p.signature, p.text, p.provider) for p in response.message.reasoning] == [
        (True, data, "", "anthropic") for data in datas
    ]
    assert [i.signature for i in items if isinstance(i, ReasoningDelta)] == datas
    assert response.message.text.startswith("I notice") and response.finish_reason == "end_turn"
    wire = anthropic.to_messages([ChatMessage.user("x"), response.message])[1][1]["content"]
    assert wire[:2] == [{"type": "redacted_thinking", "data": data} for data in datas]
    assert wire[2] == {"type": "text", "text": response.message.text}
    assert anthropic.from_messages([{"role": "user", "content": "x"}, {"role": "assistant", "content": wire}])[1] == response.message


def test_anthropic_recorded_thinking_and_signature_deltas() -> None:
    """A recorded stream: thinking_delta pieces, one signature_delta, then text (claude_thinking_stream.json)."""
    events = load("claude_thinking_stream.json")
    parser = anthropic.StreamParser()
    items = feed_all(parser, events)
    thinking = "".join(e["delta"]["thinking"] for e in events if e.get("delta", {}).get("type") == "thinking_delta")
    signature = next(e["delta"]["signature"] for e in events if e.get("delta", {}).get("type") == "signature_delta")
    deltas = [i for i in items if isinstance(i, ReasoningDelta)]
    assert "".join(d.text for d in deltas) == thinking and thinking.startswith("This is a straightforward question")
    assert [d.signature for d in deltas if d.signature] == [signature] and {d.index for d in deltas} == {0}
    response = parser.finish()
    assert response.message.reasoning == (ReasoningPart(thinking, signature, provider="anthropic"),)
    assert response.message.text.startswith("Here's how to cross the street safely") and response.finish_reason == "end_turn"
    raw = anthropic.StreamParser()
    data = (DATA / "raw" / "claude_thinking_stream.sse").read_bytes()
    for k in range(0, len(data), 97):
        raw.feed_raw(data[k:k + 97])
    assert raw.finish() == response
    wire = anthropic.to_messages([ChatMessage.user("How do I cross the street?"), response.message])[1][1]["content"]
    assert wire == [{"type": "thinking", "thinking": thinking, "signature": signature},
                    {"type": "text", "text": response.message.text}]


def test_anthropic_thinking_and_signature_deltas_with_a_tool_call() -> None:
    """Scripted in the Messages API's stream shape (extended thinking with tool use)."""
    events = [
        {"type": "message_start", "message": {"role": "assistant", "content": [], "usage": {"input_tokens": 50}}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": "", "signature": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "The user wants "}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "the weather."}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3h"}},
        {"type": "content_block_stop", "index": 0},
        {"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "toolu_01", "name": "get_weather", "input": {}}},
        {"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "{\"city\": \"Paris\"}"}},
        {"type": "content_block_stop", "index": 1},
        {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 40}},
        {"type": "message_stop"},
    ]
    parser = anthropic.StreamParser()
    items = feed_all(parser, events)
    assert [i for i in items if isinstance(i, ReasoningDelta)] == [
        ReasoningDelta(0, "The user wants "), ReasoningDelta(0, "the weather."), ReasoningDelta(0, "", "EqQBCgIYAhIM1gbcDa9GJwZA2b3h")
    ]
    message = parser.finish().message
    assert message.reasoning == (ReasoningPart("The user wants the weather.", "EqQBCgIYAhIM1gbcDa9GJwZA2b3h", provider="anthropic"),)
    wire = anthropic.to_messages([ChatMessage.user("Weather?"), message, ChatMessage.tool("toolu_01", "18 C")])[1]
    assert [b["type"] for b in wire[1]["content"]] == ["thinking", "tool_use"]
    assert wire[1]["content"][0] == {"type": "thinking", "thinking": "The user wants the weather.", "signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3h"}


def test_anthropic_leaves_out_reasoning_it_cannot_verify() -> None:
    message = ChatMessage.assistant("Hi", reasoning=[
        ReasoningPart("plain"),
        ReasoningPart("unsigned", provider="anthropic"),
        ReasoningPart(signature="enc", provider="openai", id="rs_1"),
        ReasoningPart("thought", provider="gemini"),
    ])
    assert anthropic.to_messages([ChatMessage.user("x"), message])[1][1] == {"role": "assistant", "content": "Hi"}


# -- Ollama and vLLM: scripted in their documented shapes ----------------------------------------


def test_ollama_thinking_round_trip() -> None:
    body = {"model": "qwen3", "created_at": "2025-05-29T09:35:56Z", "done": True, "done_reason": "stop",
            "message": {"role": "assistant", "thinking": "Count the letters.", "content": "3"}}
    message = ollama.parse_response(body).message
    assert message.reasoning == (ReasoningPart("Count the letters."),)
    wire = ollama.to_messages([ChatMessage.user("How many r?"), message])
    assert wire[1] == {"role": "assistant", "content": "3", "thinking": "Count the letters."}
    assert ollama.from_messages(wire)[1] == message
    lines = [
        {"model": "qwen3", "created_at": "t1", "message": {"role": "assistant", "content": "", "thinking": "Count "}, "done": False},
        {"model": "qwen3", "created_at": "t2", "message": {"role": "assistant", "content": "", "thinking": "the letters."}, "done": False},
        {"model": "qwen3", "created_at": "t3", "message": {"role": "assistant", "content": "3"}, "done": False},
        {"model": "qwen3", "created_at": "t4", "message": {"role": "assistant", "content": ""}, "done": True, "done_reason": "stop"},
    ]
    parser = ollama.StreamParser()
    items = feed_all(parser, lines)
    assert items == [ReasoningDelta(0, "Count "), ReasoningDelta(0, "the letters."), "3"]
    assert parser.finish().message == message


def test_vllm_reasoning_content_round_trip() -> None:
    body = {"id": "chatcmpl-1", "object": "chat.completion", "choices": [{"index": 0, "finish_reason": "tool_calls",
            "message": {"role": "assistant", "content": None, "reasoning_content": "Need the weather tool.",
                        "tool_calls": [{"id": "chatcmpl-tool-1", "type": "function",
                                        "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}]}}]}
    message = openai.parse_response(body).message
    assert message.reasoning == (ReasoningPart("Need the weather tool."),)
    wire = openai.to_messages([ChatMessage.user("Weather?"), message, ChatMessage.tool("chatcmpl-tool-1", "18 C")])
    assert wire[1]["reasoning_content"] == "Need the weather tool."
    assert openai.from_messages(wire)[1] == message
    chunks = [
        {"choices": [{"index": 0, "delta": {"role": "assistant", "reasoning_content": "Need "}}]},
        {"choices": [{"index": 0, "delta": {"reasoning": "the weather tool."}}]},  # vLLM's newer name
        {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "chatcmpl-tool-1", "type": "function",
                                                          "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}]}}]},
        {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
    ]
    parser = openai.StreamParser()
    items = feed_all(parser, chunks)
    assert items[:2] == [ReasoningDelta(0, "Need "), ReasoningDelta(0, "the weather tool.")]
    assert isinstance(items[2], ToolCallDelta)
    assert parser.finish().message == message


def test_plain_reasoning_is_not_sent_to_the_signed_formats_and_signed_reasoning_not_to_the_text_formats() -> None:
    plain = ChatMessage.assistant("Hi", reasoning=[ReasoningPart("thinking aloud")])
    signed = ChatMessage.assistant("Hi", reasoning=[ReasoningPart("thought", signature="sig", provider="anthropic")])
    user = ChatMessage.user("x")
    assert anthropic.to_messages([user, plain])[1][1] == {"role": "assistant", "content": "Hi"}
    assert openai_responses.to_messages([user, plain])[1][1] == {"role": "assistant", "content": "Hi"}
    assert gemini.to_messages([user, plain])[1][1] == {"role": "model", "parts": [{"text": "Hi"}]}
    assert "reasoning_content" not in openai.to_messages([user, signed])[1]
    assert "thinking" not in ollama.to_messages([user, signed])[1]
    for text in (json.dumps(openai.to_messages([user, signed])), json.dumps(ollama.to_messages([user, signed])),
                 json.dumps(gemini.to_messages([user, signed])), json.dumps(openai_responses.to_messages([user, signed]))):
        assert "sig" not in text and "thought" not in text


@pytest.mark.parametrize(
    "block, path, code",
    [
        ({"type": "thinking", "signature": "s"}, "content[0].thinking", "missing"),
        ({"type": "redacted_thinking"}, "content[0].data", "missing"),
        ({"type": "thinking", "thinking": 5, "signature": "s"}, "content[0].thinking", "type"),
    ],
)
def test_anthropic_bad_thinking_blocks(block: dict[str, Any], path: str, code: str) -> None:
    with pytest.raises(ValidationError) as info:
        anthropic.parse_response({"role": "assistant", "content": [block, {"type": "text", "text": "Hi"}]})
    assert (info.value.path, info.value.code) == (path, code)


@pytest.mark.parametrize("name, kind", [
    ("claude_thinking_response.json", "anthropic_response"),
    ("claude_thinking_replayed_request.json", "anthropic_request"),
    ("claude_thinking_after_replay_response.json", "anthropic_response"),
    ("claude_redacted_thinking_stream.json", "anthropic_stream"),
    ("claude_thinking_stream.json", "anthropic_stream"),
])
def test_recorded_thinking_payloads_pass_the_validator_as_anthropic(name: str, kind: str) -> None:
    from agentmsg.validate._registry import KINDS

    KINDS[kind].check(load(name))
    assert sorted(p.name for p in DATA.glob("*.json")) == sorted(
        ["claude_thinking_response.json", "claude_thinking_replayed_request.json",
         "claude_thinking_after_replay_response.json", "claude_redacted_thinking_stream.json",
         "claude_thinking_stream.json"]
    )


# -- never one provider's reasoning to another: every pair -------------------------------------

SOURCES = {
    "anthropic": [ReasoningPart("anthropic-thought-text", "anthropic-signature-AAAA", provider="anthropic"),
                  ReasoningPart(signature="anthropic-redacted-BBBB", redacted=True, provider="anthropic")],
    "openai": [ReasoningPart("openai-summary-text", "openai-encrypted-CCCC", provider="openai", id="rs_openai_id", anchor="fc_1")],
    "gemini": [ReasoningPart("gemini-thought-text", provider="gemini"),
               ReasoningPart(signature="gemini-signature-DDDD", provider="gemini", anchor="call_1")],
    "bedrock": [ReasoningPart("bedrock-thought-text", "bedrock-signature-EEEE", provider="bedrock"),
                ReasoningPart(signature="YmVkcm9jay1yZWRhY3RlZA==", redacted=True, provider="bedrock")],
    None: [ReasoningPart("plain-reasoning-text")],
}
TARGETS = {"openai": openai, "anthropic": anthropic, "ollama": ollama, "openai_responses": openai_responses, "gemini": gemini,
           "bedrock": bedrock}
# which targets carry reasoning of each source (docs/providers.md, the field table)
CARRIES = {"anthropic": {"anthropic"}, "openai": {"openai_responses"}, "gemini": {"gemini"}, "bedrock": {"bedrock"},
           None: {"openai", "ollama"}}


@pytest.mark.parametrize("target", sorted(TARGETS))
@pytest.mark.parametrize("source", ["anthropic", "openai", "gemini", "bedrock", None], ids=str)
def test_reasoning_goes_only_to_the_provider_that_made_it(source: str | None, target: str) -> None:
    parts = SOURCES[source]
    message = ChatMessage.assistant(tool_calls=[ToolCall("call_1", "get_weather", {"city": "Paris"})], reasoning=parts)
    options = {"blobs": "base64"} if target == "bedrock" else {}  # redactedContent as base64 text, not bytes
    wire = json.dumps(TARGETS[target].to_messages([ChatMessage.user("Weather?"), message, ChatMessage.tool("call_1", "18 C")], **options))
    opaque = [value for part in parts for value in (part.text, part.signature, part.id) if value]
    if target in CARRIES[source]:
        assert all(value in wire for value in opaque), (source, target)
    else:
        assert not any(value in wire for value in opaque), (source, target)
