"""The codec defects at the wire's edges, one regression test (or more) each."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import pytest

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
from agentmsg.providers import Response, anthropic, gemini, ollama, openai, openai_responses

DATA = Path(__file__).parent / "data" / "provider-fixtures"
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="


def load(name: str) -> Any:
    return json.loads((DATA / name).read_bytes())

NOW = ToolDefinition("now", "Current time.", {"type": "object", "properties": {}}, strict=False)


def chat() -> list[ChatMessage]:
    return [ChatMessage.system("Be brief."), ChatMessage.user("Hi")]


# -- to_request: the complete body, absent things omitted ---------------------------------------


def test_openai_to_request_is_the_whole_body_with_absent_things_omitted() -> None:
    body = openai.to_request(chat(), model="gpt-4o", temperature=None, tool_choice=None)
    assert body == {
        "model": "gpt-4o",
        "messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}],
    }
    with_tools = openai.to_request(chat(), [NOW], model="gpt-4o", tool_choice="auto")
    assert with_tools["tools"] == openai.to_tools([NOW])
    assert with_tools["tool_choice"] == "auto"


def test_anthropic_to_request_never_sends_a_null_system() -> None:
    body = anthropic.to_request([ChatMessage.user("Hi")], model="claude", max_tokens=64)
    assert body == {"model": "claude", "max_tokens": 64, "messages": [{"role": "user", "content": "Hi"}]}
    assert "system" not in body and "tools" not in body
    body = anthropic.to_request(chat(), [NOW], model="claude", max_tokens=64)
    assert body["system"] == "Be brief."
    assert body["tools"] == anthropic.to_tools([NOW])


def test_ollama_to_request_asks_for_one_reply_unless_streaming() -> None:
    body = ollama.to_request(chat(), model="llama3.2")
    assert body == {"model": "llama3.2", "stream": False, "messages": ollama.to_messages(chat())}
    assert ollama.to_request(chat(), [NOW], model="llama3.2", stream=True)["stream"] is True
    assert ollama.to_request(chat(), [NOW], model="llama3.2")["tools"] == ollama.to_tools([NOW])


@pytest.mark.parametrize(
    ("module", "params", "needed"),
    [
        (openai, {}, "model"),
        (anthropic, {"model": "claude"}, "max_tokens"),
        (anthropic, {"max_tokens": 5}, "model"),
        (ollama, {"model": None}, "model"),
    ],
)
def test_to_request_refuses_a_body_the_api_would_refuse(module: object, params: dict[str, object], needed: str) -> None:
    with pytest.raises(TypeError, match=needed):
        module.to_request(chat(), **params)  # type: ignore[attr-defined]


def test_anthropic_to_request_refuses_a_system_param() -> None:
    with pytest.raises(TypeError, match="system"):
        anthropic.to_request(chat(), model="m", max_tokens=5, system="Other")


def test_to_request_carries_tool_calls_and_results() -> None:
    conversation = [
        ChatMessage.user("Time?"),
        ChatMessage.assistant(tool_calls=[ToolCall("call_1", "now", {})]),
        ChatMessage.tool("call_1", "12:00"),
    ]
    assert openai.to_request(conversation, [NOW], model="m")["messages"] == openai.to_messages(conversation)
    assert ollama.to_request(conversation, [NOW], model="m")["messages"] == ollama.to_messages(conversation)
    body = anthropic.to_request(conversation, [NOW], model="m", max_tokens=5)
    assert body["messages"] == anthropic.to_messages(conversation)[1]


# -- OpenAI's developer role ----------------------------------------------------------------------


def test_openai_developer_role_both_directions() -> None:
    wire = openai.to_messages(chat(), system_role="developer")
    assert wire[0] == {"role": "developer", "content": "Be brief."}
    assert openai.from_messages(wire) == tuple(chat())
    body = openai.to_request(chat(), model="o3", system_role="developer")
    assert body["messages"][0]["role"] == "developer" and "system_role" not in body
    with pytest.raises(TypeError, match="system_role"):
        openai.to_messages(chat(), system_role="assistant")


# -- Anthropic usage: a null never overwrites a count ---------------------------------------------


def test_anthropic_stream_usage_null_never_overwrites() -> None:
    parser = anthropic.StreamParser()
    parser.feed({"type": "message_start", "message": {"role": "assistant", "content": [],
                                                      "usage": {"input_tokens": 377, "output_tokens": 1}}})
    parser.feed({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": "Hi"}})
    parser.feed({"type": "message_delta", "delta": {"stop_reason": "end_turn"},
                 "usage": {"input_tokens": None, "output_tokens": 12, "cache_read_input_tokens": None}})
    parser.feed({"type": "message_stop"})
    usage = parser.finish().usage
    assert usage is not None
    assert (usage["input_tokens"], usage["output_tokens"]) == (377, 12)
    assert usage["cache_read_input_tokens"] is None  # first seen as null: kept, overwrites nothing


# -- everything a codec builds passes the history and the validator -------------------------------


def image_only_tool_result_then_user() -> list[ChatMessage]:
    return [
        ChatMessage.user("Screenshot please"),
        ChatMessage.assistant(tool_calls=[ToolCall("call_1", "screenshot", {})]),
        ChatMessage.tool("call_1", [ImagePart(ImageSource.from_base64(PNG, "image/png"))]),
        ChatMessage.user("What do you see?"),
    ]


def test_openai_image_only_tool_result_then_user_is_one_user_turn() -> None:
    wire = openai.to_messages(image_only_tool_result_then_user())
    assert [m["role"] for m in wire] == ["user", "assistant", "tool", "user"]
    assert [p["type"] for p in wire[3]["content"]] == ["text", "image_url", "text"]
    assert wire[3]["content"][2] == {"type": "text", "text": "What do you see?"}
    back = openai.from_messages(wire)
    ConversationHistory(back, require_system=False).validate()
    body = openai.to_request(image_only_tool_result_then_user(), model="gpt-4o")
    assert validate_main_on(body, "openai_request") == 0


def validate_main_on(doc: object, kind: str) -> int:
    import contextlib
    import io
    import json
    import tempfile

    from agentmsg.validate import main

    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(doc, f)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        return main(["--kind", kind, f.name])


@pytest.mark.parametrize("module", ["openai", "anthropic", "ollama"])
def test_what_a_codec_builds_passes_the_validator(module: str) -> None:
    conversation = image_only_tool_result_then_user()
    conversation[0:0] = [ChatMessage.system("Be brief.")]
    if module == "ollama":
        body = ollama.to_request(conversation, [NOW], model="llama3.2")
    elif module == "anthropic":
        body = anthropic.to_request(conversation, [NOW], model="claude", max_tokens=64)
    else:
        body = openai.to_request(conversation, [NOW], model="gpt-4o")
    assert validate_main_on(body, f"{module}_request") == 0


# -- joined text keeps its meaning ----------------------------------------------------------------


def test_texts_joined_with_a_newline() -> None:
    blocks = [{"type": "text", "text": "You are X."}, {"type": "text", "text": "Be brief."}]
    assert anthropic.from_messages([], blocks)[0].content == "You are X.\nBe brief."
    system = ChatMessage(MessageRole.SYSTEM, (TextPart("You are X."), TextPart("Be brief.")))
    assert anthropic.to_messages([system, ChatMessage.user("Hi")])[0] == "You are X.\nBe brief."
    wire = ollama.to_messages([ChatMessage.user([TextPart("You are X."), TextPart(""), TextPart("Be brief.")])])
    assert wire[0]["content"] == "You are X.\nBe brief."


# -- Anthropic prefill ----------------------------------------------------------------------------


def test_anthropic_empty_final_assistant_message_is_a_prefill() -> None:
    system, wire = anthropic.to_messages([ChatMessage.user("Hi"), ChatMessage.assistant("")])
    assert wire[-1] == {"role": "assistant", "content": ""}
    assert anthropic.from_messages(wire)[-1] == ChatMessage.assistant("")
    with pytest.raises(ValidationError) as info:
        anthropic.to_messages([ChatMessage.user("Hi"), ChatMessage.assistant(""), ChatMessage.user("Go on")])
    assert (info.value.path, info.value.code) == ("[1].content", "unsupported")


# -- Ollama: same-named calls never swap ----------------------------------------------------------


def same_named_answered_out_of_order() -> list[ChatMessage]:
    return [
        ChatMessage.user("Weather in Oslo and Rome?"),
        ChatMessage.assistant(tool_calls=[
            ToolCall("call_oslo", "weather", {"city": "Oslo"}),
            ToolCall("call_rome", "weather", {"city": "Rome"}),
        ]),
        ChatMessage.tool("call_rome", "25 C"),
        ChatMessage.tool("call_oslo", "4 C"),
    ]


def test_ollama_same_named_results_are_sent_in_call_order() -> None:
    wire = ollama.to_messages(same_named_answered_out_of_order())
    assert [(m["tool_call_id"], m["content"]) for m in wire[2:]] == [("call_oslo", "4 C"), ("call_rome", "25 C")]
    # with ids (the raw HTTP body) and without them (what the ollama client sends): no swap
    for sent in (wire, strip_ids(wire)):
        back = ollama.from_messages(sent)
        answers = {m.content: m.tool_call_id for m in back[2:]}
        calls = {c.arguments["city"]: c.id for c in back[1].tool_calls}
        assert answers == {"4 C": calls["Oslo"], "25 C": calls["Rome"]}


def test_ollama_different_names_keep_their_places() -> None:
    messages = [
        ChatMessage.user("Go"),
        ChatMessage.assistant(tool_calls=[ToolCall("a", "temp", {}), ToolCall("b", "sky", {}), ToolCall("c", "temp", {"x": 1})]),
        ChatMessage.tool("b", "Rain"),
        ChatMessage.tool("c", "5"),
        ChatMessage.tool("a", "4"),
    ]
    wire = ollama.to_messages(messages)
    assert [m["tool_call_id"] for m in wire[2:]] == ["b", "a", "c"]
    back = ollama.from_messages(strip_ids(wire))
    assert {m.content: m.tool_call_id for m in back[2:]} == {
        "Rain": back[1].tool_calls[1].id, "4": back[1].tool_calls[0].id, "5": back[1].tool_calls[2].id}


def strip_ids(wire: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = copy.deepcopy(wire)
    for m in out:
        m.pop("tool_call_id", None)
        for c in m.get("tool_calls") or ():
            c.pop("id", None)
    return out


# -- Anthropic interleaved text and tool_use: a documented loss -----------------------------------


def test_anthropic_interleaved_blocks_come_back_text_first() -> None:
    content = [
        {"type": "text", "text": "First I check Oslo."},
        {"type": "tool_use", "id": "toolu_1", "name": "weather", "input": {"city": "Oslo"}},
        {"type": "text", "text": "Then Rome."},
        {"type": "tool_use", "id": "toolu_2", "name": "weather", "input": {"city": "Rome"}},
    ]
    message = anthropic.from_messages([{"role": "user", "content": "Go"}, {"role": "assistant", "content": content}])[1]
    assert message.content == (TextPart("First I check Oslo."), TextPart("Then Rome."))
    assert [c.id for c in message.tool_calls] == ["toolu_1", "toolu_2"]
    _, wire = anthropic.to_messages([ChatMessage.user("Go"), message])
    assert [b["type"] for b in wire[1]["content"]] == ["text", "text", "tool_use", "tool_use"]  # the loss
    assert sorted(map(str, wire[1]["content"])) == sorted(map(str, content))  # nothing else is lost


# -- SDK objects (model_dump) and raw SSE / NDJSON -------------------------------------------------


def test_parse_response_takes_sdk_objects() -> None:
    from anthropic.types import Message
    from ollama import ChatResponse
    from openai.types.chat import ChatCompletion

    body = load("openai/chat_response_parallel_tool_calls.json")
    assert openai.parse_response(ChatCompletion.model_validate(body)) == openai.parse_response(body)
    body = load("anthropic/messages_response_text_and_tool_use.json")
    assert anthropic.parse_response(Message.model_validate(body)) == anthropic.parse_response(body)
    body = load("ollama/chat_response_tool_calls.json")
    assert ollama.parse_response(ChatResponse.model_validate(body)) == ollama.parse_response(body)


def test_stream_feed_takes_sdk_objects() -> None:
    from anthropic.types import RawMessageStreamEvent
    from openai.types.chat import ChatCompletionChunk
    from pydantic import TypeAdapter

    chunks = load("openai/chat_stream_parallel_tool_calls.json")
    parser = openai.StreamParser()
    for chunk in chunks:
        parser.feed(ChatCompletionChunk.model_validate(chunk))
    assert parser.finish() == feed_all(openai.StreamParser(), chunks)
    events = load("anthropic/messages_stream_text_then_tool_use.json")
    adapter: Any = TypeAdapter(RawMessageStreamEvent)
    parser2 = anthropic.StreamParser()
    for event in events:
        if event["type"] != "ping":
            parser2.feed(adapter.validate_python(event))
    assert parser2.finish() == feed_all(anthropic.StreamParser(), events)


def feed_all(parser: Any, chunks: list[Any]) -> Response:
    for chunk in chunks:
        parser.feed(chunk)
    return parser.finish()


RAW_SSE = [
    (openai, "openai/raw/chat_stream_parallel_tool_calls.sse", "openai/chat_stream_parallel_tool_calls.json"),
    (openai, "openai/raw/chat_stream_refusal.sse", "openai/chat_stream_refusal.json"),
    (openai, "openai/raw/chat_stream_tool_call_single.sse", "openai/chat_stream_tool_call_single.json"),
    (anthropic, "anthropic/raw/messages_stream_text_then_tool_use.sse", "anthropic/messages_stream_text_then_tool_use.json"),
    (anthropic, "anthropic/raw/messages_stream_tool_use_only.sse", "anthropic/messages_stream_tool_use_only.json"),
    (openai_responses, "openai-responses/raw/stream_function_call.sse", "openai-responses/stream_function_call.json"),
    (openai_responses, "openai-responses/raw/stream_reasoning_text_function_call.sse",
     "openai-responses/stream_reasoning_text_function_call.json"),
    (openai_responses, "openai-responses/raw/stream_text_after_tool_result.sse",
     "openai-responses/stream_text_after_tool_result.json"),
    (gemini, "gemini/raw/stream_function_call.sse", "gemini/stream_function_call.json"),
    (gemini, "gemini/raw/stream_text.sse", "gemini/stream_text.json"),
    (gemini, "gemini/raw/stream_thinking.sse", "gemini/stream_thinking.json"),
]


@pytest.mark.parametrize(("module", "raw", "parsed"), RAW_SSE, ids=[r[1] for r in RAW_SSE])
def test_feed_raw_sse_however_it_is_cut(module: Any, raw: str, parsed: str) -> None:
    data = (DATA / raw).read_bytes()
    expected = feed_all(module.StreamParser(), load(parsed))
    cuts = {
        "whole": [data],
        "byte by byte": [data[k:k + 1] for k in range(len(data))],
        "crlf, odd pieces": chunks_of(data.replace(b"\n", b"\r\n"), 7),
        "cr only, as text": [piece.decode("utf-8", "replace") for piece in chunks_of(data.replace(b"\n", b"\r"), 4096)],
        "random cuts": random_cuts(data, random.Random(raw)),
    }
    one = module.StreamParser()
    expected_items = [item for chunk in load(parsed) for item in one.feed(chunk)]
    for name, pieces in cuts.items():
        parser = module.StreamParser()
        items = [item for piece in pieces for item in parser.feed_raw(piece)]
        assert parser.finish() == expected, name
        assert items == expected_items, name


def chunks_of(data: bytes, size: int) -> list[bytes]:
    return [data[k:k + size] for k in range(0, len(data), size)]


def random_cuts(data: bytes, rng: random.Random) -> list[bytes]:
    """Cut ``data`` at random places (pieces of 0 to 300 bytes, empty reads included)."""
    pieces, k = [], 0
    while k < len(data):
        size = rng.randrange(0, 300)
        pieces.append(data[k:k + size])
        k += size
    return pieces


def test_feed_raw_splits_inside_a_utf8_character_and_reads_done() -> None:
    text = 'data: {"choices": [{"index": 0, "delta": {"content": "Grüße \u2028 日本"}, "finish_reason": "stop"}]}\n\n'
    data = text.encode("utf-8")
    parser = openai.StreamParser()
    out = [item for k in range(len(data)) for item in parser.feed_raw(data[k:k + 1])]
    assert out == ["Grüße \u2028 日本"]
    assert parser.finish().message.content == "Grüße \u2028 日本"
    done_only = openai.StreamParser()
    done_only.feed_raw(b'data: {"choices": [{"index": 0, "delta": {"content": "Hi"}}]}\n\ndata: [DONE]\n\n')
    assert done_only.finish().message.content == "Hi"


def test_feed_raw_ollama_ndjson() -> None:
    lines = load("ollama/chat_stream_tool_calls.json")
    data = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines).encode()
    parser = ollama.StreamParser()
    for k in range(0, len(data), 5):
        parser.feed_raw(data[k:k + 5])
    assert parser.finish() == feed_all(ollama.StreamParser(), lines)
    last = ollama.StreamParser()  # a last line without its newline still counts
    last.feed_raw(data.rstrip(b"\n"))
    assert last.finish() == feed_all(ollama.StreamParser(), lines)


def test_feed_raw_refuses_what_is_not_json() -> None:
    with pytest.raises(ValidationError) as info:
        openai.StreamParser().feed_raw("data: {not json}\n\n")
    assert info.value.code == "json"
    with pytest.raises(TypeError):
        openai.StreamParser().feed_raw(5)  # type: ignore[arg-type]


# -- incomplete streams ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("module", "fixture", "keep"),
    [
        (openai, "openai/chat_stream_text_only.json", lambda c: not any(ch.get("finish_reason") for ch in c.get("choices", []))),
        (anthropic, "anthropic/messages_stream_text_then_tool_use.json", lambda e: e["type"] not in ("message_delta", "message_stop")),
        (ollama, "ollama/chat_stream_tool_calls.json", lambda line: not line.get("done")),
        (openai_responses, "openai-responses/stream_reasoning_text_function_call.json",
         lambda e: e["type"] not in ("response.completed", "response.incomplete")),
        (gemini, "gemini/stream_thinking.json",
         lambda c: not any(cand.get("finishReason") for cand in c.get("candidates", []))),
    ],
)
def test_finish_on_an_empty_or_cut_off_stream_raises(module: Any, fixture: str, keep: Any) -> None:
    with pytest.raises(ValidationError) as info:
        module.StreamParser().finish()
    assert info.value.code == "incomplete"
    chunks = load(fixture)
    cut = [chunk for chunk in chunks if keep(chunk)]
    assert 0 < len(cut) < len(chunks)
    parser = module.StreamParser()
    for chunk in cut:
        parser.feed(chunk)
    with pytest.raises(ValidationError) as info:
        parser.finish()
    assert info.value.code == "incomplete"
    assert feed_all(module.StreamParser(), chunks).finish_reason is not None


def test_responses_and_gemini_take_sdk_objects() -> None:
    from google.genai import types as genai_types
    from openai._models import construct_type  # how the client builds its objects: unvalidated
    from openai.types.responses import Response as OpenAIResponse
    from openai.types.responses import ResponseStreamEvent

    body = load("openai-responses/response_reasoning_function_call.json")
    sdk_body = construct_type(value=body, type_=OpenAIResponse)
    assert openai_responses.parse_response(sdk_body) == openai_responses.parse_response(body)
    events = load("openai-responses/stream_reasoning_summary_function_call.json")
    parser = openai_responses.StreamParser()
    for event in events:
        parser.feed(construct_type(value=event, type_=ResponseStreamEvent))
    assert parser.finish() == feed_all(openai_responses.StreamParser(), events)
    assert parser.finish().message.reasoning
    body = load("gemini/response_thinking.json")
    sdk = genai_types.GenerateContentResponse.model_validate(body)
    assert gemini.parse_response(sdk) == gemini.parse_response(body)
    chunks = load("gemini/stream_thinking.json")
    parser2 = gemini.StreamParser()
    for chunk in chunks:
        parser2.feed(genai_types.GenerateContentResponse.model_validate(chunk))
    assert parser2.finish() == feed_all(gemini.StreamParser(), chunks)
    assert parser2.finish().message.reasoning
