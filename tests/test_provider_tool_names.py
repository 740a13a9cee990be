"""Wire names in every codec: a model that calls ``get-sum`` decodes, and ``get-sum`` is sent again."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentmsg import ChatMessage, ToolCall, ValidationError
from agentmsg.providers import anthropic, ollama, openai
from agentmsg.validate import main

SCHEMA = {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]}


def openai_tools(name: str) -> list[dict[str, Any]]:
    return [{"type": "function", "function": {"name": name, "description": "Add two numbers.", "parameters": SCHEMA}}]


def anthropic_tools(name: str) -> list[dict[str, Any]]:
    return [{"name": name, "description": "Add two numbers.", "input_schema": SCHEMA}]


def openai_body(name: str) -> dict[str, Any]:
    call = {"id": "call_1", "type": "function", "function": {"name": name, "arguments": '{"a": 1, "b": 2}'}}
    return {"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-4o",
            "choices": [{"index": 0, "finish_reason": "tool_calls", "logprobs": None,
                         "message": {"role": "assistant", "content": None, "refusal": None, "tool_calls": [call]}}]}


def anthropic_body(name: str) -> dict[str, Any]:
    return {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
            "content": [{"type": "tool_use", "id": "toolu_1", "name": name, "input": {"a": 1, "b": 2}}],
            "stop_reason": "tool_use", "stop_sequence": None,
            "usage": {"input_tokens": 5, "output_tokens": 3}}


def ollama_body(name: str) -> dict[str, Any]:
    return {"model": "llama3.2", "created_at": "2025-01-01T00:00:00Z", "done": True, "done_reason": "stop",
            "message": {"role": "assistant", "content": "",
                        "tool_calls": [{"function": {"name": name, "arguments": {"a": 1, "b": 2}}}]}}


@pytest.mark.parametrize("wire", ["get-sum", "get-tiny-image", "trigger-elicitation-request-async", "get_sum"])
def test_openai_response_calling_a_dashed_tool_decodes_and_is_sent_again(wire: str) -> None:
    from openai.types.chat import ChatCompletion, ChatCompletionToolParam  # the SDKs load where used, not per worker
    from pydantic import TypeAdapter

    body = ChatCompletion.model_validate(openai_body(wire)).model_dump(exclude_none=True)
    call = openai.parse_response(body).message.tool_calls[0]
    assert call.name == wire.replace("-", "_x2d_")
    definitions = openai.from_tools(openai_tools(wire))
    assert definitions[0].name == call.name
    sent = openai.to_tools(definitions)
    assert sent[0]["function"]["name"] == wire
    TypeAdapter(ChatCompletionToolParam).validate_python(sent[0])
    history = openai.to_messages([ChatMessage.user("Add"), ChatMessage.assistant(None, (call,))])
    assert history[1]["tool_calls"][0]["function"]["name"] == wire
    assert openai.from_messages(history)[1].tool_calls[0].name == call.name


@pytest.mark.parametrize("wire", ["get-sum", "get-tiny-image", "get_sum"])
def test_anthropic_response_calling_a_dashed_tool_decodes_and_is_sent_again(wire: str) -> None:
    from anthropic.types import Message, ToolParam
    from pydantic import TypeAdapter

    body = Message.model_validate(anthropic_body(wire)).model_dump(exclude_none=True)
    call = anthropic.parse_response(body).message.tool_calls[0]
    assert call.name == wire.replace("-", "_x2d_")
    definitions = anthropic.from_tools(anthropic_tools(wire))
    sent = anthropic.to_tools(definitions)
    assert sent[0]["name"] == wire
    TypeAdapter(ToolParam).validate_python(sent[0])
    _, history = anthropic.to_messages([ChatMessage.user("Add"), ChatMessage.assistant(None, (call,))])
    assert history[1]["content"][0]["name"] == wire
    assert anthropic.from_messages(history)[1].tool_calls[0].name == call.name


@pytest.mark.parametrize("wire", ["get-sum", "db.query", "list-recipes"])
def test_ollama_response_calling_a_dashed_or_dotted_tool_decodes_and_is_sent_again(wire: str) -> None:
    call = ollama.parse_response(ollama_body(wire)).message.tool_calls[0]
    assert call.name == wire.replace("-", "_x2d_").replace(".", "_x2e_")
    sent = ollama.to_tools(ollama.from_tools(openai_tools(wire)))
    assert sent[0]["function"]["name"] == wire
    history = ollama.to_messages(
        [ChatMessage.user("Add"), ChatMessage.assistant(None, (call,)), ChatMessage.tool(call.id, "3")]
    )
    assert history[1]["tool_calls"][0]["function"]["name"] == wire
    assert history[2]["tool_name"] == wire
    back = ollama.from_messages([{k: v for k, v in item.items() if k != "tool_call_id"} for item in history])
    assert back[2].tool_call_id == back[1].tool_calls[0].id  # matched by the wire tool_name


def test_streams_decode_dashed_names() -> None:
    parser = openai.StreamParser()
    parser.feed({"choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [
        {"index": 0, "id": "call_1", "type": "function", "function": {"name": "get-sum", "arguments": ""}}]}}]})
    deltas = parser.feed({"choices": [{"index": 0, "delta": {"tool_calls": [
        {"index": 0, "function": {"arguments": '{"a": 1, "b": 2}'}}]}, "finish_reason": "tool_calls"}]})
    assert deltas and parser.finish().message.tool_calls[0].name == "get_x2d_sum"

    parser2 = anthropic.StreamParser()
    events: list[dict[str, Any]] = [
        {"type": "message_start", "message": {**anthropic_body("x"), "content": [], "stop_reason": None}},
        {"type": "content_block_start", "index": 0,
         "content_block": {"type": "tool_use", "id": "toolu_1", "name": "get-sum", "input": {}}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": '{"a": 1}'}},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": None}, "usage": {"output_tokens": 3}},
        {"type": "message_stop"},
    ]
    started = [d for event in events for d in parser2.feed(event)]
    assert started[0].name == "get_x2d_sum"
    assert parser2.finish().message.tool_calls[0].name == "get_x2d_sum"

    parser3 = ollama.StreamParser()
    parser3.feed({**ollama_body("get-sum"), "done": False})
    parser3.feed({"model": "llama3.2", "created_at": "2025-01-01T00:00:01Z", "message": {"role": "assistant", "content": ""},
                  "done": True, "done_reason": "stop"})
    assert parser3.finish().message.tool_calls[0].name == "get_x2d_sum"


@pytest.mark.parametrize(
    ("codec", "provider", "tools", "path"),
    [
        (openai, "OpenAI", openai_tools("db.query"), "[0].function.name"),
        (anthropic, "Anthropic", anthropic_tools("db.query"), "[0].name"),
        (openai, "OpenAI", openai_tools("a" * 65), "[0].function.name"),
        (anthropic, "Anthropic", anthropic_tools("search files"), "[0].name"),
    ],
)
def test_names_the_provider_refuses_stay_refused_with_its_rule(codec: Any, provider: str, tools: Any, path: str) -> None:
    with pytest.raises(ValidationError) as info:
        codec.from_tools(tools)
    assert (info.value.code, info.value.path) == ("pattern", path)
    assert info.value.message == f"{provider} {'function' if provider == 'OpenAI' else 'tool'} names must match ^[a-zA-Z0-9_-]{{1,64}}$"


def test_to_tools_refuses_a_canonical_name_whose_wire_name_the_provider_refuses() -> None:
    dotted = ollama.from_tools(openai_tools("db.query"))  # Ollama states no rule
    assert dotted[0].name == "db_x2e_query"
    for codec, path in ((openai, "[0].function.name"), (anthropic, "[0].name")):
        with pytest.raises(ValidationError) as info:
            codec.to_tools(dotted)
        assert (info.value.code, info.value.path) == ("pattern", path)
        assert "^[a-zA-Z0-9_-]{1,64}$" in info.value.message


def test_a_call_to_a_dashed_tool_keeps_its_canonical_name_in_the_core() -> None:
    call = ToolCall("call_1", "get_x2d_sum", {})
    assert call.to_dict()["name"] == "get_x2d_sum"


@pytest.mark.parametrize(
    ("kind", "document"),
    [
        ("openai_response", openai_body("get-sum")),
        ("anthropic_response", anthropic_body("get-sum")),
        ("ollama_response", ollama_body("get-sum")),
        ("openai_request", {"model": "gpt-4o", "messages": [{"role": "user", "content": "Add"}], "tools": openai_tools("get-sum")}),
        ("anthropic_request", {"model": "claude-sonnet-4-5", "max_tokens": 100,
                               "messages": [{"role": "user", "content": "Add"}], "tools": anthropic_tools("get-sum")}),
    ],
)
def test_validator_provider_kinds_accept_dashed_names(
    kind: str, document: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "doc.json"
    path.write_text(json.dumps(document))
    assert main(["--kind", kind, str(path)]) == 0, capsys.readouterr()


@pytest.mark.parametrize("wire", ["get-sum", "get-tiny-image", "trigger-elicitation-request-async", "get_sum"])
def test_bedrock_response_calling_a_dashed_tool_decodes_and_is_sent_again(wire: str) -> None:
    from agentmsg.providers import bedrock

    body = {"output": {"message": {"role": "assistant", "content": [
        {"toolUse": {"toolUseId": "tooluse_1", "name": wire, "input": {"a": 1, "b": 2}}}]}},
        "stopReason": "tool_use", "usage": {"inputTokens": 5, "outputTokens": 3, "totalTokens": 8}, "metrics": {"latencyMs": 1}}
    call = bedrock.parse_response(body).message.tool_calls[0]
    assert call.name == wire.replace("-", "_x2d_")
    tools = [{"toolSpec": {"name": wire, "description": "Add two numbers.", "inputSchema": {"json": SCHEMA}}}]
    definitions = bedrock.from_tools(tools)
    assert definitions[0].name == call.name and bedrock.to_tools(definitions) == tools
    _, history = bedrock.to_messages([ChatMessage.user("Add"), ChatMessage.assistant(None, (call,))])
    assert history[1]["content"][0]["toolUse"]["name"] == wire


@pytest.mark.parametrize("wire", ["get.sum", "a" * 65, "", "get sum"])
def test_bedrock_refuses_names_its_service_model_refuses(wire: str) -> None:
    from agentmsg.providers import bedrock

    with pytest.raises(ValidationError) as info:
        bedrock.from_tools([{"toolSpec": {"name": wire, "inputSchema": {"json": SCHEMA}}}])
    assert (info.value.code, info.value.path) == ("pattern", "[0].toolSpec.name")
    with pytest.raises(ValidationError) as info:
        bedrock.to_messages([ChatMessage.user("Add"), ChatMessage.assistant(None, (ToolCall("t1", "get_x2e_sum", {}),))])
    assert (info.value.code, info.value.path) == ("pattern", "[1].tool_calls[0].name")
