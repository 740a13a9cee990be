"""Any JSON into the decoding side of a codec raises ``ValidationError`` or nothing, never another error.

Two sources of input: random JSON built from the providers' own keys and values (so it reaches
deep into the parsers), and real fixtures with one random node replaced by random JSON.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

from hypothesis import given, settings
from hypothesis import strategies as st

from agentmsg import ValidationError
from agentmsg.providers import anthropic, bedrock, ollama, openai

DATA = Path(__file__).parent / "data" / "provider-fixtures"

KEYS = [
    "role", "content", "tool_calls", "tool_call_id", "tool_name", "function", "name", "arguments", "id", "type",
    "index", "choices", "message", "delta", "finish_reason", "usage", "refusal", "image_url", "url", "text",
    "input", "tool_use_id", "is_error", "source", "media_type", "data", "content_block", "partial_json",
    "stop_reason", "images", "done", "done_reason", "created_at", "parameters", "input_schema", "description",
    "strict", "error", "eval_count", "system",
    "toolUse", "toolResult", "toolUseId", "reasoningContent", "reasoningText", "redactedContent", "signature",
    "contentBlockIndex", "contentBlockDelta", "contentBlockStart", "contentBlockStop", "messageStart", "messageStop",
    "metadata", "stopReason", "output", "toolSpec", "inputSchema", "json", "status", "format", "bytes", "start",
    "cachePoint",
]
VALUES = [
    "user", "assistant", "tool", "system", "developer", "function", "text", "image", "image_url", "tool_use",
    "tool_result", "refusal", "base64", "url", "image/png", "message_start", "content_block_start",
    "content_block_delta", "text_delta", "input_json_delta", "message_delta", "ping", "error", "custom",
    "data:image/png;base64,iVBORw0KGgo=", "https://example.com/a.png", "{}", '{"a": 1}', "{", "", "iVBORw0KGgo=",
    "png", "success", "end_turn", "tool_use", "default",
]
SCALARS = (
    st.none() | st.booleans() | st.integers(-3, 3) | st.integers() | st.floats()
    | st.text(max_size=8) | st.sampled_from(VALUES)
)
JSONS = st.recursive(
    SCALARS,
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=4), kids, max_size=6),
    max_leaves=30,
)


def only_validation_errors(fn: Callable[..., Any], *args: Any) -> None:
    try:
        fn(*args)
    except ValidationError:
        pass


def feed_all(parser: Any, chunks: Any) -> None:
    for chunk in chunks if isinstance(chunks, list) else [chunks]:
        parser.feed(chunk)
    parser.finish()


DECODERS: list[Callable[[Any], Any]] = [
    openai.parse_response, openai.from_messages, openai.from_tools,
    anthropic.parse_response, anthropic.from_messages, anthropic.from_tools,
    ollama.parse_response, ollama.from_messages, ollama.from_tools,
    lambda x: anthropic.from_messages([], x),
    lambda x: feed_all(openai.StreamParser(), x),
    lambda x: feed_all(anthropic.StreamParser(), x),
    lambda x: feed_all(ollama.StreamParser(), x),
    bedrock.parse_response, bedrock.from_messages, bedrock.from_tools,
    lambda x: bedrock.from_messages([], x),
    lambda x: feed_all(bedrock.StreamParser(), x),
]


@settings(max_examples=200)
@given(JSONS)
def test_any_json_raises_only_validation_errors(value: Any) -> None:
    for decode in DECODERS:
        only_validation_errors(decode, value)


SMALL = st.recursive(SCALARS, lambda kids: st.lists(kids, max_size=3) | st.dictionaries(st.sampled_from(KEYS), kids, max_size=4), max_leaves=8)


@settings(max_examples=150)
@given(st.lists(st.dictionaries(st.sampled_from(KEYS), SMALL, max_size=5), max_size=3))
def test_any_message_list_raises_only_validation_errors(value: Any) -> None:
    for decode in DECODERS:
        only_validation_errors(decode, value)


FIXTURES = sorted(p for provider in ("openai", "anthropic", "ollama", "vllm", "bedrock") for p in (DATA / provider).glob("*.json"))
_LOADED = {p.name: json.loads(p.read_bytes()) for p in FIXTURES if p.stat().st_size < 100_000}


def nodes(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [path]
    if isinstance(value, dict):
        for key, item in value.items():
            out += nodes(item, path + (key,))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            out += nodes(item, path + (i,))
    return out


def replaced(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    copy = dict(value) if isinstance(value, dict) else list(value)
    copy[path[0]] = replaced(value[path[0]], path[1:], new)
    return copy


@settings(max_examples=200)
@given(st.sampled_from(sorted(_LOADED)), st.data())
def test_mutated_fixtures_raise_only_validation_errors(name: str, data: Any) -> None:
    fixture = _LOADED[name]
    path = data.draw(st.sampled_from(nodes(fixture)))
    mutant = replaced(fixture, path, data.draw(JSONS))
    payloads = [mutant]
    if isinstance(mutant, dict) and "messages" in mutant:
        payloads.append(mutant["messages"])
        only_validation_errors(anthropic.from_messages, mutant["messages"], mutant.get("system"))
        only_validation_errors(bedrock.from_messages, mutant["messages"], mutant.get("system"))
    if isinstance(mutant, dict) and "tools" in mutant:
        payloads.append(mutant["tools"])
    if isinstance(mutant, dict) and isinstance(mutant.get("toolConfig"), dict):
        payloads.append(mutant["toolConfig"].get("tools"))
    for payload in payloads:
        for decode in DECODERS:
            only_validation_errors(decode, payload)
