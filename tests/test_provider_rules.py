"""The documented rules for what a provider cannot express, and errors in the provider's own terms."""

from __future__ import annotations

import copy
import hashlib
import json
import pickle

import pytest

from agentmsg import (
    ChatMessage,
    ImagePart,
    ImageSource,
    InvalidArgumentsError,
    TextPart,
    ToolCall,
    ToolCallDelta,
    ToolDefinition,
    ValidationError,
)
from agentmsg.providers import Response, anthropic, ollama, openai

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
JPEG = "/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAMCAgICAgMCAgIDAwMDBAYEBAQEBAgGBgUGCQgKCgkICQkKDA8MCgsOCwkJDRENDg8QEBEQCgwSExIQEw8QEBD/yQALCAABAAEBAREA/8wABgAQEAX/2gAIAQEAAD8A0s8g/9k="
GIF = "R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7"
WEBP = "UklGRiQAAABXRUJQVlA4IBgAAAAwAQCdASoBAAEAAwA0JaQAA3AA/vuUAAA="
URL = "https://example.com/cat.png"


def png() -> ImagePart:
    return ImagePart(ImageSource.from_base64(PNG, "image/png"))


def url_image() -> ImagePart:
    return ImagePart(ImageSource.from_url(URL))


def file_image() -> ImagePart:
    return ImagePart(ImageSource.from_path("/tmp/cat.png"))


def call(call_id: str = "call_1", name: str = "look", **arguments: object) -> ToolCall:
    return ToolCall(call_id, name, arguments)


def conversation(*tool_messages: ChatMessage, calls: tuple[ToolCall, ...] = (call(),)) -> list[ChatMessage]:
    return [ChatMessage.user("Look"), ChatMessage.assistant(tool_calls=calls), *tool_messages]


def raises(fn: object, *args: object, code: str, path: str) -> ValidationError:
    with pytest.raises(ValidationError) as info:
        fn(*args)  # type: ignore[operator]
    assert (info.value.code, info.value.path) == (code, path), str(info.value)
    return info.value


# -- is_error ----------------------------------------------------------------------------------


def test_openai_is_error_becomes_an_error_prefix() -> None:
    wire = openai.to_messages(conversation(ChatMessage.tool("call_1", "file not found", is_error=True)))
    assert wire[2] == {"role": "tool", "tool_call_id": "call_1", "content": "Error: file not found"}
    # decoding is literal: the flag is not guessed back from the text
    assert openai.from_messages(wire)[2] == ChatMessage.tool("call_1", "Error: file not found")


def test_openai_is_error_on_parts_prefixes_the_first_text() -> None:
    parts = [TextPart("no such file"), TextPart(" (twice)")]
    wire = openai.to_messages(conversation(ChatMessage.tool("call_1", parts, is_error=True)))
    assert wire[2]["content"] == [{"type": "text", "text": "Error: no such file"}, {"type": "text", "text": " (twice)"}]
    only_image = openai.to_messages(conversation(ChatMessage.tool("call_1", [png()], is_error=True)))
    assert only_image[2]["content"] == "Error:"


def test_ollama_is_error_becomes_an_error_prefix() -> None:
    wire = ollama.to_messages(conversation(ChatMessage.tool("call_1", "boom", is_error=True)))
    assert wire[2]["content"] == "Error: boom"


def test_anthropic_keeps_is_error() -> None:
    _, wire = anthropic.to_messages(conversation(ChatMessage.tool("call_1", "boom", is_error=True)))
    assert wire[2]["content"] == [{"type": "tool_result", "tool_use_id": "call_1", "content": "boom", "is_error": True}]
    assert anthropic.from_messages(wire)[2].is_error is True


# -- images in tool results ---------------------------------------------------------------------


def test_openai_moves_tool_images_to_a_user_message_after_the_run() -> None:
    calls = (call("call_1"), call("call_2"))
    messages = conversation(
        ChatMessage.tool("call_1", [TextPart("Here:"), png()]),
        ChatMessage.tool("call_2", [url_image()]),
        calls=calls,
    ) + [ChatMessage.assistant("A cat.")]
    wire = openai.to_messages(messages)
    assert [m["role"] for m in wire] == ["user", "assistant", "tool", "tool", "user", "assistant"]
    assert wire[2]["content"] == [{"type": "text", "text": "Here:"}]
    assert wire[3]["content"] == ""
    assert wire[4]["content"] == [
        {"type": "text", "text": "Images returned by tool call call_1:"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64," + PNG}},
        {"type": "text", "text": "Images returned by tool call call_2:"},
        {"type": "image_url", "image_url": {"url": URL}},
    ]
    # at the very end of the conversation the held images still go out
    assert openai.to_messages(messages[:3])[-1]["role"] == "user"


def test_ollama_and_anthropic_keep_images_in_tool_results() -> None:
    messages = conversation(ChatMessage.tool("call_1", [TextPart("Here:"), png()]))
    assert ollama.to_messages(messages)[2]["images"] == [PNG]
    assert ollama.from_messages(ollama.to_messages(messages)) == tuple(messages)
    _, wire = anthropic.to_messages(messages)
    assert wire[2]["content"][0]["content"][1] == {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}}
    assert anthropic.from_messages(wire) == tuple(messages)


# -- image sources ------------------------------------------------------------------------------


def test_base64_images_travel_as_data_urls_on_openai_and_come_back() -> None:
    message = ChatMessage.user([TextPart("What?"), png()])
    (wire,) = openai.to_messages([message])
    assert wire["content"][1]["image_url"]["url"] == "data:image/png;base64," + PNG
    assert openai.from_messages([wire]) == (message,)


def test_data_url_sources_are_sent_as_base64_to_anthropic_and_ollama() -> None:
    message = ChatMessage.user([ImagePart(ImageSource.from_url("data:image/png;base64," + PNG))])
    _, (wire,) = anthropic.to_messages([message])
    assert wire["content"][0]["source"] == {"type": "base64", "media_type": "image/png", "data": PNG}
    assert ollama.to_messages([message])[0]["images"] == [PNG]


def test_ollama_refuses_image_urls() -> None:
    err = raises(ollama.to_messages, [ChatMessage.user([TextPart("What?"), url_image()])], code="unsupported", path="[0].content[1].source")
    assert "cannot fetch image URLs" in err.message


@pytest.mark.parametrize("encode", [openai.to_messages, anthropic.to_messages, ollama.to_messages])
def test_file_images_are_refused_everywhere(encode: object) -> None:
    err = raises(encode, [ChatMessage.user([TextPart("What?"), file_image()])], code="unsupported", path="[0].content[1].source")
    assert "cannot read local files" in err.message
    raises(encode, conversation(ChatMessage.tool("call_1", [file_image()])), code="unsupported", path="[2].content[0].source")


@pytest.mark.parametrize("data, media_type", [(PNG, "image/png"), (JPEG, "image/jpeg"), (GIF, "image/gif"), (WEBP, "image/webp")])
def test_ollama_images_get_their_media_type_from_their_bytes(data: str, media_type: str) -> None:
    (message,) = ollama.from_messages([{"role": "user", "content": "", "images": [data]}])
    assert message.content == (ImagePart(ImageSource.from_base64(data, media_type)),)


def test_ollama_unrecognised_image_bytes_are_refused() -> None:
    raises(ollama.from_messages, [{"role": "user", "content": "x", "images": ["AAAAAAAA"]}], code="value", path="[0].images[0]")
    raises(ollama.from_messages, [{"role": "user", "content": "x", "images": ["not base64!"]}], code="value", path="[0].images[0]")


# -- refusals -------------------------------------------------------------------------------------


def test_openai_refusal_is_surfaced() -> None:
    body = {"choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": None, "refusal": "I can't help with that."}}]}
    r = openai.parse_response(body)
    assert (r.refusal, r.message.content, r.finish_reason) == ("I can't help with that.", "I can't help with that.", "stop")
    body["choices"][0]["message"]["content"] = "Partly: "
    r = openai.parse_response(body)
    assert r.message.content == (TextPart("Partly: "), TextPart("I can't help with that.")) and r.refusal is not None
    # in a request history a refusal part is text too
    (m,) = openai.from_messages([{"role": "assistant", "content": [{"type": "refusal", "refusal": "No."}]}])
    assert m.content == (TextPart("No."),)


# -- Ollama tool-call ids -------------------------------------------------------------------------


def test_ollama_generated_ids_follow_the_documented_scheme() -> None:
    body = {"created_at": "2025-07-07T20:22:19Z", "message": {"role": "assistant", "content": "", "tool_calls": [
        {"function": {"name": "a", "arguments": {"y": 1, "x": "é"}}}, {"function": {"name": "a", "arguments": {"y": 1, "x": "é"}}}]}}
    first, second = ollama.parse_response(body).message.tool_calls
    text = '2025-07-07T20:22:19Z\x1f0\x1fa\x1f{"x":"é","y":1}'
    assert first.id == "call_" + hashlib.sha256(text.encode()).hexdigest()[:24]
    assert second.id != first.id  # the position is part of the hash
    assert ollama.parse_response(copy.deepcopy(body)).message.tool_calls == (first, second)
    later = {**body, "created_at": "2025-07-07T20:25:00Z"}
    assert ollama.parse_response(later).message.tool_calls[0].id != first.id  # another turn, another id


def test_ollama_ids_are_kept_when_present_and_sent_along() -> None:
    body = {"message": {"role": "assistant", "content": "", "tool_calls": [{"id": "call_x1", "function": {"name": "a", "arguments": {}}}]}}
    (c,) = ollama.parse_response(body).message.tool_calls
    assert c.id == "call_x1"
    wire = ollama.to_messages(conversation(ChatMessage.tool("call_1", "ok")))
    assert wire[1]["tool_calls"][0]["id"] == "call_1" and wire[2]["tool_call_id"] == "call_1"


def test_ollama_history_ids_use_the_message_position() -> None:
    turn = {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "a", "arguments": {}}}]}
    messages = ollama.from_messages([{"role": "user", "content": "a"}, turn, {"role": "tool", "content": "1", "tool_name": "a"},
                                     {"role": "user", "content": "again"}, turn, {"role": "tool", "content": "2", "tool_name": "a"}])
    assert messages[1].tool_calls[0].id != messages[4].tool_calls[0].id
    assert messages[2].tool_call_id == messages[1].tool_calls[0].id and messages[5].tool_call_id == messages[4].tool_calls[0].id


def test_ollama_tool_messages_match_by_id_then_name_then_order() -> None:
    assistant = {"role": "assistant", "content": "", "tool_calls": [
        {"id": "c1", "function": {"name": "a", "arguments": {}}},
        {"id": "c2", "function": {"name": "b", "arguments": {}}},
        {"id": "c3", "function": {"name": "a", "arguments": {}}}]}
    ms = ollama.from_messages([assistant,
                               {"role": "tool", "content": "", "tool_call_id": "c3"},
                               {"role": "tool", "content": "", "tool_name": "a"},
                               {"role": "tool", "content": ""}])
    assert [m.tool_call_id for m in ms[1:]] == ["c3", "c1", "c2"]
    raises(ollama.from_messages, [{"role": "tool", "content": "x", "tool_name": "a"}], code="value", path="[0].tool_name")


def test_ollama_stream_numbers_calls_across_lines() -> None:
    """Each call of the stream gets the next index, whichever line carried it: three calls, three indexes."""
    def line(*names: str, done: bool = False) -> dict[str, object]:
        calls = [{"function": {"name": name, "arguments": {"n": k}}} for k, name in enumerate(names)]
        return {"created_at": f"2025-07-07T20:22:1{len(names)}Z", "message": {"role": "assistant", "content": "", "tool_calls": calls}, "done": done}

    parser = ollama.StreamParser()
    deltas = [d for chunk in (line("a", "b"), line("c"), {"message": {"role": "assistant", "content": ""}, "done": True, "done_reason": "stop"})
              for d in parser.feed(chunk)]
    assert [(d.index, d.name) for d in deltas] == [(0, "a"), (1, "b"), (2, "c")]
    calls = parser.finish().message.tool_calls
    assert [(c.name, dict(c.arguments)) for c in calls] == [("a", {"n": 0}), ("b", {"n": 1}), ("c", {"n": 0})]
    assert len({c.id for c in calls}) == 3


def test_ollama_tool_result_must_answer_an_earlier_call() -> None:
    raises(ollama.to_messages, [ChatMessage.user("x"), ChatMessage.tool("call_9", "x")], code="unsupported", path="[1].tool_call_id")


# -- Anthropic specifics ----------------------------------------------------------------------------


def test_anthropic_merges_tool_results_and_following_user_text() -> None:
    calls = (call("toolu_1"), call("toolu_2"))
    messages = conversation(ChatMessage.tool("toolu_2", "b"), ChatMessage.tool("toolu_1", "a"), calls=calls)
    messages.append(ChatMessage.user([TextPart("And "), png()]))
    _, wire = anthropic.to_messages(messages)
    assert [m["role"] for m in wire] == ["user", "assistant", "user"]
    assert [b["type"] for b in wire[2]["content"]] == ["tool_result", "tool_result", "text", "image"]
    assert anthropic.from_messages(wire) == tuple(messages)


def test_anthropic_tool_results_of_a_later_turn_start_a_new_user_turn() -> None:
    """The user turn that tool results join ends with the next assistant message, a user message included."""
    messages = [
        ChatMessage.user("Look"),
        ChatMessage.assistant(tool_calls=[call("toolu_1")]),
        ChatMessage.tool("toolu_1", "a"),
        ChatMessage.user("And the next?"),
        ChatMessage.assistant(tool_calls=[call("toolu_2")]),
        ChatMessage.tool("toolu_2", "b"),
        ChatMessage.assistant(tool_calls=[call("toolu_3")]),
        ChatMessage.tool("toolu_3", "c"),
    ]
    _, wire = anthropic.to_messages(messages)
    assert [m["role"] for m in wire] == ["user", "assistant", "user", "assistant", "user", "assistant", "user"]
    assert [[b.get("tool_use_id") or b["type"] for b in m["content"]] for m in wire[2::2]] == [
        ["toolu_1", "text"], ["toolu_2"], ["toolu_3"]
    ]
    assert anthropic.from_messages(wire) == tuple(messages)


def test_anthropic_never_sends_empty_text() -> None:
    raises(anthropic.to_messages, [ChatMessage.user("")], code="unsupported", path="[0].content")
    empty_middle = [ChatMessage.user("a"), ChatMessage.assistant(""), ChatMessage.user("b")]
    raises(anthropic.to_messages, empty_middle, code="unsupported", path="[1].content")
    _, wire = anthropic.to_messages([ChatMessage.user([TextPart(""), TextPart("Hi")])])
    assert wire[0]["content"] == [{"type": "text", "text": "Hi"}]
    for empty in ("", [TextPart("")]):
        _, wire = anthropic.to_messages([ChatMessage.user("a"), ChatMessage.assistant(empty, [call("toolu_1")])])
        assert wire[1]["content"] == [{"type": "tool_use", "id": "toolu_1", "name": "look", "input": {}}]
    _, wire = anthropic.to_messages(conversation(ChatMessage.tool("call_1", ""), calls=(call("call_1"),)))
    assert wire[2]["content"] == [{"type": "tool_result", "tool_use_id": "call_1"}]


def test_anthropic_takes_one_system_prompt_first() -> None:
    assert anthropic.to_messages([ChatMessage.system("S"), ChatMessage.user("a")]) == ("S", [{"role": "user", "content": "a"}])
    raises(anthropic.to_messages, [ChatMessage.user("a"), ChatMessage.system("S")], code="unsupported", path="[1]")
    blocks = [{"type": "text", "text": "You are X."}, {"type": "text", "text": "Be brief."}]
    assert anthropic.from_messages([], blocks) == (ChatMessage.system("You are X.\nBe brief."),)


def test_anthropic_refuses_tool_ids_it_would_reject() -> None:
    raises(anthropic.to_messages, [ChatMessage.user("a"), ChatMessage.assistant(tool_calls=[call("call 1")])], code="unsupported", path="[1].tool_calls[0].id")


def test_anthropic_refuses_blocks_it_cannot_carry() -> None:
    body = {"role": "assistant", "content": [{"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}, {"type": "text", "text": "Hi"}]}
    err = raises(anthropic.parse_response, body, code="unsupported", path="content[0].type")
    assert "'server_tool_use'" in err.message  # thinking blocks are carried: see tests/test_reasoning_codecs.py
    raises(anthropic.from_messages, [{"role": "user", "content": [{"type": "document", "source": {}}]}], code="unsupported", path="[0].content[0].type")


# -- tools ----------------------------------------------------------------------------------------------


def test_strict_and_descriptions() -> None:
    strict = ToolDefinition("get", "Get it.", {"type": "object", "properties": {}, "additionalProperties": False}, strict=True)
    loose = ToolDefinition("put", "put", {"type": "object"}, strict=False)
    assert openai.to_tools([strict, loose]) == [
        {"type": "function", "function": {"name": "get", "description": "Get it.", "parameters": {"type": "object", "properties": {}, "additionalProperties": False}, "strict": True}},
        {"type": "function", "function": {"name": "put", "parameters": {"type": "object"}}},
    ]
    assert anthropic.to_tools([loose]) == [{"name": "put", "input_schema": {"type": "object"}}]
    assert ollama.to_tools([strict])[0]["function"]["strict"] is True
    for module in (openai, anthropic, ollama):
        assert module.from_tools(module.to_tools([strict, loose])) == (strict, loose)


def test_tool_errors_are_in_provider_terms() -> None:
    raises(openai.from_tools, [{"type": "function", "function": {"name": "bad name"}}], code="pattern", path="[0].function.name")
    raises(openai.from_tools, [{"type": "function", "function": {"name": "ok", "parameters": {"type": "array"}}}], code="value", path="[0].function.parameters.type")
    raises(openai.from_tools, [{"type": "function", "function": {"name": "ok", "parameters": {"type": "object"}, "strict": True}}], code="strict", path="[0].function.parameters.additionalProperties")
    raises(anthropic.from_tools, [{"type": "web_search_20250305", "name": "web_search"}], code="unsupported", path="[0].type")
    raises(openai.from_tools, [{"type": "custom", "custom": {}}], code="unsupported", path="[0].type")


# -- malformed payloads: errors in the provider's own terms -------------------------------------------


def test_openai_invalid_arguments_say_so_with_the_raw_text() -> None:
    body = {"choices": [{"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "a", "arguments": "{}"}},
        {"id": "call_2", "type": "function", "function": {"name": "b", "arguments": '{"city": "Par'}}]}}]}
    with pytest.raises(InvalidArgumentsError) as info:
        openai.parse_response(body)
    assert str(info.value).startswith("choices[0].message.tool_calls[1].function.arguments: not valid JSON")
    assert info.value.raw_arguments == '{"city": "Par'
    assert "Par" not in info.value.message


@pytest.mark.parametrize("arguments", ["", "{}", None, {}])
def test_no_arguments_is_an_empty_object(arguments: object) -> None:
    fn: dict[str, object] = {"name": "now"}
    if arguments is not None:
        fn["arguments"] = arguments
    (m,) = openai.from_messages([{"role": "assistant", "tool_calls": [{"id": "c", "function": fn}]}])
    assert dict(m.tool_calls[0].arguments) == {}


def test_stream_invalid_arguments_keep_the_raw_text() -> None:
    parser = openai.StreamParser()
    parser.feed({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "c", "function": {"name": "a", "arguments": "[1,"}}]}}]})
    parser.feed({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": "2]"}}]}}]})
    with pytest.raises(InvalidArgumentsError) as info:
        parser.finish()
    assert (info.value.path, info.value.code, info.value.raw_arguments) == ("tool_calls[0].function.arguments", "type", "[1,2]")
    events = [
        {"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "a", "input": {}}},
        {"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": '{"a": '}},
    ]
    parser2 = anthropic.StreamParser()
    for event in events:
        parser2.feed(event)
    with pytest.raises(InvalidArgumentsError) as info:
        parser2.finish()
    assert (info.value.path, info.value.raw_arguments) == ("content[1].input", '{"a": ')


def test_payload_errors_name_the_provider_path() -> None:
    raises(openai.parse_response, {"choices": [{"message": {"tool_calls": [{"function": {"name": "a"}}]}}]}, code="missing", path="choices[0].message.tool_calls[0].id")
    raises(openai.parse_response, {"choices": [{"message": {"content": 5}}]}, code="type", path="choices[0].message.content")
    raises(openai.from_messages, [{"role": "user", "content": [{"type": "input_audio", "input_audio": {}}]}], code="unsupported", path="[0].content[0].type")
    raises(openai.from_messages, [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "ftp://x"}}]}], code="pattern", path="[0].content[0].image_url.url")
    raises(openai.from_messages, [{"role": "function", "content": "x"}], code="unsupported", path="[0].role")
    raises(anthropic.parse_response, {"content": [{"type": "tool_use", "id": "t", "name": "a", "input": []}]}, code="type", path="content[0].input")
    raises(anthropic.from_messages, [{"role": "user", "content": [{"type": "image", "source": {"type": "base64", "media_type": "image/bmp", "data": "AAAA"}}]}], code="value", path="[0].content[0].source.media_type")
    raises(ollama.parse_response, {"message": {"role": "assistant", "tool_calls": [{"function": {"name": "a", "arguments": [1]}}]}}, code="type", path="message.tool_calls[0].function.arguments")
    raises(ollama.from_messages, [{"role": "robot", "content": "x"}], code="value", path="[0].role")


def test_several_choices_are_refused() -> None:
    choice = {"index": 0, "message": {"role": "assistant", "content": "a"}}
    raises(openai.parse_response, {"choices": [choice, {**choice, "index": 1}]}, code="unsupported", path="choices")
    raises(openai.StreamParser().feed, {"choices": [{"index": 1, "delta": {"content": "b"}}]}, code="unsupported", path="choices[0].index")


def test_provider_error_payloads() -> None:
    raises(openai.parse_response, {"error": {"type": "invalid_request_error", "message": "secret"}}, code="provider", path="error")
    raises(anthropic.parse_response, {"type": "error", "error": {"type": "overloaded_error"}}, code="provider", path="error")
    raises(anthropic.StreamParser().feed, {"type": "error", "error": {"type": "overloaded_error"}}, code="provider", path="error")
    raises(ollama.StreamParser().feed, {"error": "model not found"}, code="provider", path="error")


def test_to_functions_refuse_what_is_not_theirs() -> None:
    # programmer misuse (Python objects of the wrong type, not bad data): TypeError naming the fix
    with pytest.raises(TypeError, match=r"^messages\[0\]: expected a ChatMessage, got object \(decode data with from_messages\)$"):
        openai.to_messages([{"role": "user"}])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="^expected a list of ChatMessage, got number$"):
        openai.to_messages(5)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"^tools\[0\]: expected a ToolDefinition, got object \(decode data with from_tools\)$"):
        ollama.to_tools([{"name": "x"}])  # type: ignore[list-item]


# -- Response --------------------------------------------------------------------------------------------


def test_response_is_a_frozen_value() -> None:
    r = Response(ChatMessage.assistant("secret words", [call()]), "tool_calls", {"total_tokens": 3, "details": {"a": [1]}}, "secret words")
    assert "secret" not in repr(r)
    assert repr(r) == "Response(message=ChatMessage(role=assistant, content=<12 chars>, tool_calls=[call_1:look]), finish_reason='tool_calls', usage=<2 keys>, refusal=<12 chars>)"
    assert Response.from_dict(json.loads(json.dumps(r.to_dict()))) == r
    assert pickle.loads(pickle.dumps(r)) == r and copy.deepcopy(r) == r
    assert hash(r) == hash(Response.from_dict(r.to_dict()))
    with pytest.raises((AttributeError, TypeError)):
        r.finish_reason = "stop"  # type: ignore[misc]
    with pytest.raises(TypeError):
        r.usage["total_tokens"] = 4  # type: ignore[index]
    raises(Response, ChatMessage.assistant("a"), 5, code="type", path="finish_reason")
    raises(Response, ChatMessage.assistant("a"), None, [1], code="type", path="usage")
    raises(Response.from_dict, {"message": {"role": "assistant"}}, code="missing", path="message.content")


def test_stream_deltas_are_core_values() -> None:
    parser = openai.StreamParser()
    (delta,) = parser.feed({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 2, "id": "c", "type": "function", "function": {"name": "a", "arguments": ""}}]}}]})
    assert delta == ToolCallDelta(2, "c", "a", None)
