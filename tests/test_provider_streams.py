"""Streams as they come off the wire: SSE text (OpenAI, Anthropic) and NDJSON lines (Ollama)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

import pytest

from agentmsg import ToolCallDelta, ValidationError
from agentmsg.providers import anthropic, ollama, openai

DATA = Path(__file__).parent / "data" / "provider-fixtures"


def sse_payloads(text: str) -> Iterator[Any]:
    """Yield the parsed ``data:`` payload of each SSE event, stopping at ``[DONE]``."""
    for event in text.replace("\r\n", "\n").split("\n\n"):
        data = "\n".join(line[5:].lstrip() for line in event.split("\n") if line.startswith("data:"))
        if data == "[DONE]":
            return
        if data:
            yield json.loads(data)


RAW = sorted((DATA / "openai" / "raw").glob("*.sse")) + sorted((DATA / "anthropic" / "raw").glob("*.sse"))


def test_raw_streams_are_there() -> None:
    assert len(RAW) == 8


@pytest.mark.parametrize("raw", RAW, ids=lambda p: p.name)
def test_raw_sse_streams_parse_like_their_json_form(raw: Path) -> None:
    module = openai if raw.parent.parent.name == "openai" else anthropic
    parser = module.StreamParser()
    items = [item for payload in sse_payloads(raw.read_text("utf-8")) for item in parser.feed(payload)]
    reference = module.StreamParser()
    expected = [item for chunk in json.loads((raw.parent.parent / (raw.stem + ".json")).read_bytes()) for item in reference.feed(chunk)]
    assert items == expected and items
    assert parser.finish() == reference.finish()


def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
    return {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}]}


def call_delta(index: int, arguments: str, **first: str) -> dict[str, Any]:
    delta: dict[str, Any] = {"index": index, "function": {"arguments": arguments}}
    if first:
        delta.update(id=first["id"], type="function")
        delta["function"]["name"] = first["name"]
    return chunk({"tool_calls": [delta]})


def test_openai_interleaved_tool_calls_and_final_usage_chunk() -> None:
    chunks = [
        chunk({"role": "assistant", "content": "Let me check "}),
        call_delta(0, "", id="call_a", name="weather"),
        call_delta(1, '{"ci', id="call_b", name="clock"),
        call_delta(0, '{"city": "Os'),
        chunk({"content": "both."}),
        call_delta(1, 'ty": "Rome"}'),
        call_delta(0, 'lo"}'),
        chunk({}, "tool_calls"),
        {"object": "chat.completion.chunk", "choices": [], "usage": {"prompt_tokens": 9, "completion_tokens": 7, "total_tokens": 16}},
    ]
    parser = openai.StreamParser()
    fed = [parser.feed(c) for c in chunks]
    assert fed[0] == ("Let me check ",) and fed[-1] == ()
    assert fed[2] == (ToolCallDelta(1, "call_b", "clock", '{"ci'),)
    r = parser.finish()
    assert r.message.content == "Let me check both."
    assert [(c.id, c.name, dict(c.arguments)) for c in r.message.tool_calls] == [
        ("call_a", "weather", {"city": "Oslo"}),
        ("call_b", "clock", {"city": "Rome"}),
    ]
    assert (r.finish_reason, r.usage["total_tokens"]) == ("tool_calls", 16)


def test_openai_conflicting_ids_in_a_stream_are_refused() -> None:
    parser = openai.StreamParser()
    parser.feed(call_delta(0, "", id="call_a", name="weather"))
    with pytest.raises(ValidationError) as info:
        parser.feed(call_delta(0, "", id="call_z", name="weather"))
    assert info.value.path == "choices[0].delta.tool_calls[0].id"
    with pytest.raises(ValidationError) as info:
        openai.StreamParser().feed(chunk({"tool_calls": [{"function": {"arguments": "{}"}}]}))
    assert (info.value.path, info.value.code) == ("choices[0].delta.tool_calls[0].index", "missing")


def test_openai_stream_without_name_is_refused_at_finish() -> None:
    parser = openai.StreamParser()
    parser.feed(chunk({"tool_calls": [{"index": 0, "id": "call_a", "function": {"arguments": "{}"}}]}))
    with pytest.raises(ValidationError) as info:
        parser.finish()
    assert (info.value.path, info.value.code) == ("tool_calls[0].function.name", "missing")


def test_anthropic_events_with_ping_and_unknown_types() -> None:
    events = [
        {"type": "message_start", "message": {"id": "msg_1", "role": "assistant", "content": [], "usage": {"input_tokens": 10, "output_tokens": 1}}},
        {"type": "ping"},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Checking"}},
        {"type": "content_block_stop", "index": 0},
        {"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "weather", "input": {}}},
        {"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": ""}},
        {"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": '{"city": '}},
        {"type": "some_future_event", "index": 1},
        {"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": '"Oslo"}'}},
        {"type": "content_block_stop", "index": 1},
        {"type": "content_block_start", "index": 2, "content_block": {"type": "tool_use", "id": "toolu_2", "name": "clock", "input": {"tz": "CET"}}},
        {"type": "content_block_stop", "index": 2},
        {"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": None}, "usage": {"output_tokens": 30}},
        {"type": "message_stop"},
    ]
    parser = anthropic.StreamParser()
    fed = [parser.feed(e) for e in events]
    assert fed[1] == () and fed[6] == () and fed[8] == ()
    assert fed[7] == (ToolCallDelta(0, arguments_delta='{"city": '),)
    assert fed[11] == (ToolCallDelta(1, "toolu_2", "clock", '{"tz":"CET"}'),)
    r = parser.finish()
    assert r.message.content == "Checking"
    assert [(c.id, dict(c.arguments)) for c in r.message.tool_calls] == [("toolu_1", {"city": "Oslo"}), ("toolu_2", {"tz": "CET"})]
    assert (r.finish_reason, dict(r.usage)) == ("tool_use", {"input_tokens": 10, "output_tokens": 30})


def test_anthropic_citations_are_not_carried() -> None:
    parser = anthropic.StreamParser()
    parser.feed({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": "Per the doc"}})
    citation = {"type": "char_location", "cited_text": "x", "document_index": 0, "start_char_index": 0, "end_char_index": 1}
    assert parser.feed({"type": "content_block_delta", "index": 0, "delta": {"type": "citations_delta", "citation": citation}}) == ()
    parser.feed({"type": "message_stop"})
    assert parser.finish().message.content == "Per the doc"


@pytest.mark.parametrize(
    "event, path, code",
    [
        ({"type": "content_block_delta", "index": 3, "delta": {"type": "text_delta", "text": "x"}}, "index", "value"),
        ({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "x"}}, "index", "value"),
        ({"type": "content_block_delta", "index": 0, "delta": {"type": "compaction_delta", "text": "x"}}, "delta.type", "unsupported"),
        ({"type": "content_block_start", "index": 1, "content_block": {"type": "server_tool_use", "id": "s", "name": "web_search"}}, "content_block.type", "unsupported"),
        ({"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "name": "a", "input": {}}}, "content_block.id", "missing"),
        ({"type": "message_delta", "delta": {"stop_reason": 3}}, "delta.stop_reason", "type"),
        ({"index": 0}, "type", "missing"),
    ],
)
def test_anthropic_bad_events(event: dict[str, Any], path: str, code: str) -> None:
    parser = anthropic.StreamParser()
    parser.feed({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}})
    with pytest.raises(ValidationError) as info:
        parser.feed(event)
    assert (info.value.path, info.value.code) == (path, code)


def test_ollama_ndjson_lines() -> None:
    body = (
        b'{"model":"llama3.2","created_at":"2025-07-07T20:22:19.1Z","message":{"role":"assistant","content":"It is"},"done":false}\n'
        b'{"model":"llama3.2","created_at":"2025-07-07T20:22:19.2Z","message":{"role":"assistant","content":" sunny."},"done":false}\n'
        b'{"model":"llama3.2","created_at":"2025-07-07T20:22:19.3Z","message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"log","arguments":{"level":2}}}]},"done":false}\n'
        b'{"model":"llama3.2","created_at":"2025-07-07T20:22:19.4Z","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","prompt_eval_count":20,"eval_count":9}\n'
    )
    parser = ollama.StreamParser()
    fed = [parser.feed(json.loads(line)) for line in body.splitlines()]
    assert fed[:2] == [("It is",), (" sunny.",)] and fed[3] == ()
    (delta,) = fed[2]
    assert (delta.index, delta.name, delta.arguments_delta) == (0, "log", '{"level":2}')
    r = parser.finish()
    assert (r.message.content, r.message.tool_calls[0].id, r.finish_reason) == ("It is sunny.", delta.id, "stop")
    assert dict(r.usage) == {"prompt_eval_count": 20, "eval_count": 9}


# -- an index past 4,300 digits is refused as every other integer is ------------------------------

BIG_INDEX = 10**5000  # 5,001 digits: no JSON encoder writes it back


def _sized(fn: object, *args: object) -> ValidationError:
    with pytest.raises(ValidationError) as info:
        fn(*args)  # type: ignore[operator]
    assert info.value.code == "size", str(info.value)
    assert "4300 digits" in str(info.value) and "10000000000" not in str(info.value)
    return info.value


def test_a_streamed_tool_call_index_of_5000_digits_is_refused() -> None:
    from agentmsg import ReasoningDelta
    from agentmsg.providers import openai_responses

    assert _sized(ToolCallDelta, BIG_INDEX).path == "index"
    assert _sized(ToolCallDelta.from_dict, {"index": BIG_INDEX, "name": "now"}).path == "index"
    assert _sized(ReasoningDelta, BIG_INDEX, "x").path == "index"
    openai_chunk = chunk({"tool_calls": [{"index": BIG_INDEX, "id": "call_1", "function": {"name": "now", "arguments": "{}"}}]})
    assert _sized(openai.StreamParser().feed, openai_chunk).path == "choices[0].delta.tool_calls[0].index"
    block = {"type": "content_block_start", "index": BIG_INDEX, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "now", "input": {}}}
    assert _sized(anthropic.StreamParser().feed, block).path == "index"
    added = {"type": "response.output_item.added", "output_index": BIG_INDEX,
             "item": {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "now", "arguments": ""}}
    assert _sized(openai_responses.StreamParser().feed, added).path == "output_index"
