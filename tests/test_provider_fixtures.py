"""Every OpenAI, vLLM, Anthropic and Ollama fixture parses, checks out field by field, and re-encodes.

The fixtures are real payloads (see tests/data/provider-fixtures/PROVENANCE.md). Each file has
its own check below; ``test_every_fixture_is_checked`` makes sure none is left out.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any, Callable

import pytest

from agentmsg import ChatMessage, ConversationHistory, ConversationOrderError, MessageRole, TextPart
from agentmsg.providers import Response, anthropic, ollama, openai

DATA = Path(__file__).parent / "data" / "provider-fixtures"
PROVIDERS = ("openai", "anthropic", "ollama", "vllm")


def load(name: str) -> Any:
    return json.loads((DATA / name).read_bytes())


def stream(parser_cls: Any, chunks: list[Any]) -> tuple[list[Any], Response]:
    parser = parser_cls()
    items: list[Any] = []
    for chunk in chunks:
        items.extend(parser.feed(chunk))
    return items, parser.finish()


def calls(message: ChatMessage) -> list[tuple[str, str, dict[str, Any]]]:
    return [(c.id, c.name, json.loads(json.dumps(c.arguments))) for c in message.tool_calls]


def texts(items: list[Any]) -> str:
    return "".join(item for item in items if isinstance(item, str))


# -- re-encoding: what the codec sends back, against the fixture with its documented losses --


def _args(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Replace OpenAI arguments strings by their parsed value (spacing is not meaningful)."""
    out = copy.deepcopy(messages)
    for m in out:
        for call in m.get("tool_calls") or ():
            call["function"]["arguments"] = json.loads(call["function"]["arguments"] or "{}")
    return out


def openai_expected(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The fixture as the codec re-encodes it: no name/refusal/annotations, null content, typed calls."""
    out = []
    for m in copy.deepcopy(messages):
        m = {k: v for k, v in m.items() if k not in ("name", "refusal", "annotations")}
        if m["role"] == "developer":
            m["role"] = "system"
        if m["role"] == "assistant":
            if not m.get("content") and m.get("tool_calls"):
                m["content"] = None
            for call in m.get("tool_calls") or ():
                call.setdefault("type", "function")
        out.append(m)
    return _args(out)


def assert_openai_reencodes(wire: list[dict[str, Any]]) -> tuple[ChatMessage, ...]:
    messages = openai.from_messages(wire)
    assert _args(openai.to_messages(messages)) == openai_expected(wire)
    assert openai.from_messages(openai.to_messages(messages)) == messages
    return messages


def anthropic_expected(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The fixture as re-encoded: no ``caller`` (not carried), no ``is_error: false`` (the default)."""
    out = copy.deepcopy(messages)
    for m in out:
        if isinstance(m["content"], list):
            for block in m["content"]:
                block.pop("caller", None)
                if block.get("is_error") is False:
                    del block["is_error"]
    return out


def assert_anthropic_reencodes(body: dict[str, Any]) -> tuple[ChatMessage, ...]:
    messages = anthropic.from_messages(body["messages"], body.get("system"))
    system, wire = anthropic.to_messages(messages)
    assert system == body.get("system")
    assert wire == anthropic_expected(body["messages"])
    assert anthropic.from_messages(wire, system) == messages
    return messages


def ollama_expected(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The fixture as re-encoded: calls lose ``type``/``function.index``, content is a string."""
    out = copy.deepcopy(messages)
    for m in out:
        m.setdefault("content", "")
        for call in m.get("tool_calls") or ():
            call.pop("type", None)
            call["function"].pop("index", None)
    return out


def without_ids(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Drop the ids the codec sends along (the fixtures predate them)."""
    out = copy.deepcopy(messages)
    for m in out:
        m.pop("tool_call_id", None)
        for call in m.get("tool_calls") or ():
            call.pop("id", None)
    return out


def assert_ollama_reencodes(wire: list[dict[str, Any]]) -> tuple[ChatMessage, ...]:
    messages = ollama.from_messages(wire)
    again = ollama.to_messages(messages)
    assert without_ids(again) == ollama_expected(wire)
    assert ollama.from_messages(again) == messages
    return messages


def assert_tools_reencode(module: Any, tools: list[dict[str, Any]]) -> tuple[Any, ...]:
    definitions = module.from_tools(tools)
    assert module.from_tools(module.to_tools(definitions)) == definitions
    return definitions


def openai_message_reencodes(r: Response) -> None:
    assert openai.from_messages(openai.to_messages([r.message])) == (r.message,)


# -- OpenAI -------------------------------------------------------------------------------------


def check_openai_chat_request_image_data_url(d: Any) -> None:
    (m,) = assert_openai_reencodes(d["messages"])
    text, image = m.content
    assert text == TextPart("What fruit is in the image?")
    assert image.source.type == "base64" and image.source.media_type == "image/png"
    assert d["messages"][0]["content"][1]["image_url"]["url"] == "data:image/png;base64," + image.source.data


def check_openai_chat_request_image_url(d: Any) -> None:
    (m,) = assert_openai_reencodes(d["messages"])
    assert m.content[0] == TextPart("What is in this image?")
    assert m.content[1].source.url == d["messages"][0]["content"][1]["image_url"]["url"]
    assert m.content[1].source.url.startswith("https://upload.wikimedia.org/")


def check_openai_chat_request_multi_turn_tool_history(d: Any) -> None:
    ms = assert_openai_reencodes(d["messages"])
    assert [str(m.role) for m in ms] == ["user", "assistant", "tool", "assistant", "user", "assistant", "tool"]
    assert calls(ms[1]) == [("pyd_ai_504f8147f83f44f3a5f14d87bfd01bda", "get_capital", {"country": "France"})]
    assert ms[1].content is None
    assert ms[2].tool_call_id == ms[1].tool_calls[0].id and ms[2].content == "Paris"
    assert ms[3].content == "The capital of France is Paris.\n"
    assert calls(ms[5]) == [("call_SkEQ3ZGSJC8m6AvaIGNuuKdm", "get_capital", {"country": "England"})]
    assert ms[6].content == "London"
    ConversationHistory(ms, require_system=False).validate()
    (tool,) = assert_tools_reencode(openai, d["tools"])
    assert (tool.name, tool.description, tool.strict) == ("get_capital", "Get the capital of a country.", False)
    assert tool.parameters["required"] == ("country",)


def check_openai_chat_request_stream_strict_tool(d: Any) -> None:
    (m,) = assert_openai_reencodes(d["messages"])
    assert m.content == "What is the capital of the UK? Use the tool, then answer."
    (tool,) = assert_tools_reencode(openai, d["tools"])
    # description "" is the name (agentmsg needs one); strict true is kept
    assert (tool.name, tool.description, tool.strict) == ("get_capital", "get_capital", True)
    assert "description" not in openai.to_tools([tool])[0]["function"]


def check_openai_chat_request_strict_tool_recorded(d: Any) -> None:
    system, user = assert_openai_reencodes(d["messages"])
    assert system.role is MessageRole.SYSTEM and system.content == "You are a helpful assistant."
    assert user.content == "What is the temperature in Tokyo?"
    (tool,) = assert_tools_reencode(openai, d["tools"])
    assert (tool.name, tool.strict, tool.parameters["additionalProperties"]) == ("get_temperature", True, False)


def check_openai_chat_request_strict_tool_sdk_test(d: Any) -> None:
    (m,) = assert_openai_reencodes(d["messages"])
    assert m.content == "What's the weather like in SF?"
    (tool,) = assert_tools_reencode(openai, d["tools"])
    assert (tool.name, tool.description, tool.strict) == ("get_weather", "get_weather", True)
    assert tool.parameters["required"] == ("city", "state")
    assert openai.to_tools([tool]) == [
        {"type": "function", "function": {k: v for k, v in d["tools"][0]["function"].items()}}
    ]


def check_openai_chat_request_tool_result_roundtrip(d: Any) -> None:
    ms = assert_openai_reencodes(d["messages"])
    assert calls(ms[2]) == [("call_bhZkmIKKItNGJ41whHUHB7p9", "get_temperature", {"city": "Tokyo"})]
    assert (ms[3].tool_call_id, ms[3].content, ms[3].is_error) == ("call_bhZkmIKKItNGJ41whHUHB7p9", "20.0", False)
    ConversationHistory(ms, require_system=False).validate()
    assert_tools_reencode(openai, d["tools"])


def check_openai_chat_request_tool_then_user_image(d: Any) -> None:
    ms = assert_openai_reencodes(d["messages"])
    assert ms[0].content == (TextPart("What food is in the image you can get from the get_image tool?"),)
    assert calls(ms[1]) == [("call_4hrT4QP9jfojtK69vGiFCFjG", "get_image", {})]
    assert ms[2].content == "See file bd38f5"
    assert ms[3].content[0] == TextPart("This is file bd38f5:") and ms[3].content[1].source.type == "url"
    ConversationHistory(ms, require_system=False).validate()
    (tool,) = assert_tools_reencode(openai, d["tools"])
    assert (tool.name, tool.strict, dict(tool.parameters["properties"])) == ("get_image", False, {})


def check_openai_chat_request_tools_tool_choice_auto(d: Any) -> None:
    (m,) = assert_openai_reencodes(d["messages"])
    assert m.content == "What is the weather like in Boston today?"
    (tool,) = assert_tools_reencode(openai, d["tools"])
    assert tool.name == "get_current_weather" and tool.description == "Get the current weather in a given location"
    assert tool.parameters["properties"]["unit"]["enum"] == ("celsius", "fahrenheit")
    assert openai.to_tools([tool]) == d["tools"]


def check_openai_chat_response_image_input_reference(d: Any) -> None:
    r = openai.parse_response(d)
    assert r.message.content.startswith("The image shows a wooden boardwalk path")
    assert r.message.content == d["choices"][0]["message"]["content"]
    assert (r.finish_reason, r.refusal) == ("stop", None)
    assert r.usage["total_tokens"] == 1163 and r.usage["prompt_tokens_details"]["cached_tokens"] == 0
    openai_message_reencodes(r)


def check_openai_chat_response_parallel_tool_calls(d: Any) -> None:
    r = openai.parse_response(d)
    assert r.message.content is None and r.finish_reason == "tool_calls"
    assert calls(r.message) == [
        ("call_fdNz3vOBKYgOIpMdWotB9MjY", "GetWeatherArgs", {"city": "Edinburgh", "country": "GB", "units": "c"}),
        ("call_h1DWI1POMJLb0KwIyQHWXD4p", "get_stock_price", {"ticker": "AAPL", "exchange": "NASDAQ"}),
    ]
    assert dict(r.usage) == {**d["usage"], "completion_tokens_details": {"reasoning_tokens": 0}}
    assert _args(openai.to_messages([r.message])) == openai_expected([d["choices"][0]["message"]])


def check_openai_chat_response_tool_call_nested_args(d: Any) -> None:
    r = openai.parse_response(d)
    ((call_id, name, args),) = calls(r.message)
    assert (call_id, name) == ("call_NKpApJybW1MzOjZO2FzwYw0d", "Query")
    assert args["conditions"][3] == {"column": "delivered_at", "operator": ">", "value": {"column_name": "expected_delivery_date"}}
    assert args["columns"][0] == "id" and len(args["columns"]) == 7
    assert r.message.tool_calls[0].arguments["conditions"][3]["value"]["column_name"] == "expected_delivery_date"
    assert (r.finish_reason, r.usage["completion_tokens"]) == ("tool_calls", 132)
    assert _args(openai.to_messages([r.message])) == openai_expected([d["choices"][0]["message"]])


def check_openai_chat_response_tool_call_recorded(d: Any) -> None:
    r = openai.parse_response(d)
    assert calls(r.message) == [("call_bhZkmIKKItNGJ41whHUHB7p9", "get_temperature", {"city": "Tokyo"})]
    assert (r.finish_reason, r.usage["total_tokens"], r.refusal) == ("tool_calls", 65, None)
    assert _args(openai.to_messages([r.message])) == openai_expected([d["choices"][0]["message"]])


def check_openai_chat_response_tool_call_strict_single(d: Any) -> None:
    r = openai.parse_response(d)
    assert calls(r.message) == [("call_CUdUoJpsWWVdxXntucvnol1M", "get_weather", {"city": "San Francisco", "state": "CA"})]
    assert (r.finish_reason, r.usage["prompt_tokens"]) == ("tool_calls", 48)
    assert _args(openai.to_messages([r.message])) == openai_expected([d["choices"][0]["message"]])


def check_openai_chat_response_tool_calls_reference(d: Any) -> None:
    r = openai.parse_response(d)
    # arguments with newlines inside the JSON text
    assert calls(r.message) == [("call_abc123", "get_current_weather", {"location": "Boston, MA"})]
    assert (r.finish_reason, r.usage["total_tokens"]) == ("tool_calls", 99)
    assert _args(openai.to_messages([r.message])) == openai_expected([d["choices"][0]["message"]])


def check_openai_chat_stream_parallel_tool_calls(d: Any) -> None:
    items, r = stream(openai.StreamParser, d)
    assert texts(items) == ""
    deltas = [i for i in items if not isinstance(i, str)]
    assert [(x.index, x.id, x.name) for x in deltas if x.id] == [
        (0, "call_JMW1whyEaYG438VE1OIflxA2", "GetWeatherArgs"),
        (1, "call_DNYTawLBoN8fj3KN6qU9N1Ou", "get_stock_price"),
    ]
    assert calls(r.message) == [
        ("call_JMW1whyEaYG438VE1OIflxA2", "GetWeatherArgs", {"city": "Edinburgh", "country": "GB", "units": "c"}),
        ("call_DNYTawLBoN8fj3KN6qU9N1Ou", "get_stock_price", {"ticker": "AAPL", "exchange": "NASDAQ"}),
    ]
    assert (r.finish_reason, r.usage["total_tokens"]) == ("tool_calls", 209)
    openai_message_reencodes(r)


def check_openai_chat_stream_refusal(d: Any) -> None:
    items, r = stream(openai.StreamParser, d)
    refusal = "I'm sorry, I can't assist with that request."
    assert texts(items) == refusal
    assert (r.refusal, r.message.content, r.finish_reason) == (refusal, refusal, "stop")
    assert r.usage["completion_tokens"] == 11
    openai_message_reencodes(r)


def check_openai_chat_stream_text_only(d: Any) -> None:
    items, r = stream(openai.StreamParser, d)
    assert r.message.content == texts(items)
    assert r.message.content.startswith("I'm unable to provide real-time weather updates.")
    assert r.message.content.endswith("a reliable weather website or a weather app.")
    assert (r.finish_reason, r.usage["total_tokens"], r.message.tool_calls) == ("stop", 44, ())
    openai_message_reencodes(r)


def check_openai_chat_stream_tool_call_obfuscation(d: Any) -> None:
    items, r = stream(openai.StreamParser, d)
    assert calls(r.message) == [("call_ZR5UUuTt3pf61kjwAJIYdVMj", "get_capital", {"country": "UK"})]
    assert (r.finish_reason, r.usage["total_tokens"]) == ("tool_calls", 68)
    assert len(items) == 6
    openai_message_reencodes(r)


def check_openai_chat_stream_tool_call_single(d: Any) -> None:
    items, r = stream(openai.StreamParser, d)
    assert calls(r.message) == [("call_4XzlGBLtUe9dy3GVNV4jhq7h", "get_weather", {"city": "New York City"})]
    assert "".join(x.arguments_delta or "" for x in items) == '{"city":"New York City"}'
    assert (r.finish_reason, r.usage["total_tokens"]) == ("tool_calls", 60)
    openai_message_reencodes(r)


def check_openai_chat_stream_tool_call_strict_pydantic(d: Any) -> None:
    items, r = stream(openai.StreamParser, d)
    assert calls(r.message) == [("call_c91SqDXlYFuETYv8mUHzz6pp", "GetWeatherArgs", {"city": "Edinburgh", "country": "UK", "units": "c"})]
    assert (r.finish_reason, r.usage["prompt_tokens"]) == ("tool_calls", 76)
    openai_message_reencodes(r)


# -- vLLM (OpenAI format with its variants) -----------------------------------------------------


def check_vllm_chat_request_stream_tools_capture(d: Any) -> None:
    system, user = assert_openai_reencodes(d["messages"])
    assert system.content.startswith("Your name is Ben Dover") and user.content == "please list files"
    tools = assert_tools_reencode(openai, d["tools"])
    # no descriptions: the name stands in, and is left out again when sending
    assert [(t.name, t.description, t.strict) for t in tools] == [("run_command", "run_command", False), ("run_script", "run_script", False)]
    assert openai.to_tools(tools) == [{"type": t["type"], "function": t["function"]} for t in d["tools"]]


def check_vllm_chat_stream_tool_call_capture(d: Any) -> None:
    items, r = stream(openai.StreamParser, d)
    # first tool delta has id/type/name but no arguments key; final chunk content "" + stop_reason
    assert calls(r.message) == [("chatcmpl-tool-ca99dda515524c6abe47d1ea22813507", "run_command", {"command": "ls"})]
    assert (r.message.content, r.finish_reason, r.usage) == (None, "tool_calls", None)
    assert texts(items) == ""
    openai_message_reencodes(r)


def check_vllm_messages_with_parallel_tool_response(d: Any) -> None:
    ms = assert_openai_reencodes(d)
    assert calls(ms[1]) == [
        ("chatcmpl-tool-03e6481b146e408e9523d9c956696295", "get_current_weather", {"city": "Dallas", "state": "TX", "unit": "fahrenheit"}),
        ("chatcmpl-tool-d027061e1bd21cda48bee7da829c1f5b", "get_current_weather", {"city": "Orlando", "state": "Fl", "unit": "fahrenheit"}),
    ]
    assert [m.tool_call_id for m in ms[2:]] == [c.id for c in ms[1].tool_calls]
    assert ms[3].content == "The weather in Orlando FL is 78 degrees fahrenheit with clearskies."
    ConversationHistory(ms, require_system=False).validate()


def check_vllm_messages_with_tool_response(d: Any) -> None:
    ms = assert_openai_reencodes(d)
    assert calls(ms[1]) == [("chatcmpl-tool-03e6481b146e408e9523d9c956696295", "get_current_weather", {"city": "Dallas", "state": "TX", "unit": "fahrenheit"})]
    assert ms[2].content.startswith("The weather in Dallas is 98 degrees")
    ConversationHistory(ms, require_system=False).validate()


def check_vllm_tool_weather_no_required(d: Any) -> None:
    (tool,) = assert_tools_reencode(openai, [d])
    assert (tool.name, tool.description, tool.strict) == ("get_current_weather", "Get the current weather in a given location", False)
    assert "required" not in tool.parameters and set(tool.parameters["properties"]) == {"city", "state", "unit"}
    assert openai.to_tools([tool]) == [d]


# -- Anthropic ----------------------------------------------------------------------------------


def check_anthropic_messages_request_image_base64_source(d: Any) -> None:
    (m,) = assert_anthropic_reencodes(d)
    text, image = m.content
    assert text == TextPart("What is this vegetable?")
    assert (image.source.type, image.source.media_type) == ("base64", "image/jpeg")
    assert image.source.data == d["messages"][0]["content"][1]["source"]["data"]


def check_anthropic_messages_request_image_url_source(d: Any) -> None:
    (m,) = assert_anthropic_reencodes(d)
    assert m.content[1].source.url == "https://t3.ftcdn.net/jpg/00/85/79/92/360_F_85799278_0BBGV9OAdQDTLnKwAPBCcg1J7QtiieJY.jpg"


def check_anthropic_messages_request_orphan_tool_result_rejected(d: Any) -> None:
    user, result = assert_anthropic_reencodes(d)
    assert user.content == "What's the weather in SF in Celsius?"
    assert (result.role, result.tool_call_id) == (MessageRole.TOOL, "toolu_01GHndag5wQmbzNihYmV2UBj")
    assert result.content.startswith("The weather in San Francisco, CA is currently sunny")
    # the API answered 400; as a conversation it is refused with a clear error
    with pytest.raises(ConversationOrderError) as info:
        ConversationHistory.from_list([m.to_dict() for m in (user, result)], require_system=False)
    assert (info.value.code, info.value.index) == ("tool_unknown", 1)
    assert "tool message must answer a pending tool call" in str(info.value)
    (tool,) = assert_tools_reencode(anthropic, d["tools"])
    assert tool.name == "get_weather" and tool.parameters["required"] == ("location", "units")


def check_anthropic_messages_request_parallel_tool_results(d: Any) -> None:
    ms = assert_anthropic_reencodes(d)
    assert ms[0].role is MessageRole.SYSTEM and ms[0].content == d["system"]
    assert ms[1].content == (TextPart("Alice, Bob, Charlie and Daisy are a family. Who is the youngest?"),)
    assert ms[2].content.startswith("I'll help you find out who is the youngest")
    assert [(c.name, dict(c.arguments)) for c in ms[2].tool_calls] == [
        ("retrieve_entity_info", {"name": n}) for n in ("Alice", "Bob", "Charlie", "Daisy")
    ]
    assert [m.tool_call_id for m in ms[3:]] == [c.id for c in ms[2].tool_calls]
    assert [m.content for m in ms[3:]][3] == "daisy is bob's daughter and charlie's younger sister"
    assert not any(m.is_error for m in ms[3:])
    ConversationHistory(ms, require_system=False).validate()
    (tool,) = assert_tools_reencode(anthropic, d["tools"])
    assert tool.description == "Get the knowledge about the given entity."


def check_anthropic_messages_request_text_tool_use_then_tool_result(d: Any) -> None:
    ms = assert_anthropic_reencodes(d)
    assert ms[1].content == "I'll get the weather for each of those cities. Let me start by checking San Francisco."
    assert calls(ms[1]) == [("toolu_01LRanfq6DmHn1yDTB4d1SAh", "get_weather", {"location": "San Francisco, CA", "units": "f"})]
    assert json.loads(ms[2].content) == {"location": "San Francisco, CA", "temperature": "68°F", "condition": "Sunny"}
    ConversationHistory(ms, require_system=False).validate()
    assert_tools_reencode(anthropic, d["tools"])


def check_anthropic_messages_request_tool_result_image_url(d: Any) -> None:
    ms = assert_anthropic_reencodes(d)
    (image,) = ms[2].content
    assert image.source.url == "https://www.gstatic.com/webp/gallery3/1.png"
    assert calls(ms[1]) == [("toolu_01XBL6B2Z996VStAuNCQapHS", "get_file", {})]
    ConversationHistory(ms, require_system=False).validate()
    (tool,) = assert_tools_reencode(anthropic, d["tools"])
    assert (tool.name, tool.description) == ("get_file", "get_file")


def check_anthropic_messages_request_tool_result_is_error(d: Any) -> None:
    ms = assert_anthropic_reencodes(d)
    assert ms[1].content is None and calls(ms[1])[0][0] == "toolu_01A9HHF5Ezy3oBrKmSgfASm9"
    assert (ms[2].is_error, ms[2].content) == (True, "RuntimeError('Unexpected error, try again')")
    ConversationHistory(ms, require_system=False).validate()
    assert_tools_reencode(anthropic, d["tools"])


def check_anthropic_messages_request_tool_result_mixed_blocks(d: Any) -> None:
    ms = assert_anthropic_reencodes(d)
    first, image, last = ms[2].content
    assert first == TextPart("Here is the image:") and last == TextPart('{"pydantic_ai_marker":"test_42"}')
    assert image.source.media_type == "image/jpeg" and len(image.source.data) == 131432
    ConversationHistory(ms, require_system=False).validate()
    assert_tools_reencode(anthropic, d["tools"])


def check_anthropic_messages_request_tools(d: Any) -> None:
    (m,) = assert_anthropic_reencodes(d)
    assert m.content == "What is the weather in SF?"
    (tool,) = assert_tools_reencode(anthropic, d["tools"])
    assert anthropic.to_tools([tool]) == d["tools"]
    assert tool.parameters["properties"]["units"]["enum"] == ("c", "f")


def anthropic_response_reencodes(r: Response, body: dict[str, Any]) -> None:
    content = anthropic_expected([{"role": "assistant", "content": body["content"]}])[0]["content"]
    if len(content) == 1 and content[0]["type"] == "text":
        content = content[0]["text"]
    assert anthropic.to_messages([r.message])[1] == [{"role": "assistant", "content": content}]


def check_anthropic_messages_response_after_tool_error(d: Any) -> None:
    r = anthropic.parse_response(d)
    assert r.message.content.startswith("I apologize, but I'm getting an error")
    assert (r.finish_reason, r.usage["output_tokens"], r.usage["cache_creation"]["ephemeral_1h_input_tokens"]) == ("end_turn", 63, 0)
    anthropic_response_reencodes(r, d)


def check_anthropic_messages_response_parallel_tool_use(d: Any) -> None:
    r = anthropic.parse_response(d)
    assert [c[0] for c in calls(r.message)] == [b["id"] for b in d["content"][1:]]
    assert [c[2]["name"] for c in calls(r.message)] == ["Alice", "Bob", "Charlie", "Daisy"]
    assert (r.finish_reason, r.usage["input_tokens"]) == ("tool_use", 423)
    anthropic_response_reencodes(r, d)


def check_anthropic_messages_response_text_and_tool_use(d: Any) -> None:
    r = anthropic.parse_response(d)
    assert r.message.content == "I'll get the weather for each of those cities. Let me start by checking San Francisco."
    assert calls(r.message) == [("toolu_01LRanfq6DmHn1yDTB4d1SAh", "get_weather", {"location": "San Francisco, CA", "units": "f"})]
    assert (r.finish_reason, r.usage["output_tokens"]) == ("tool_use", 93)
    anthropic_response_reencodes(r, d)


def check_anthropic_messages_response_tool_use(d: Any) -> None:
    r = anthropic.parse_response(d)
    assert r.message.content is None
    assert calls(r.message) == [("toolu_01A9HHF5Ezy3oBrKmSgfASm9", "get_weather", {"location": "San Francisco, CA", "units": "f"})]
    assert (r.finish_reason, r.usage["service_tier"]) == ("tool_use", "standard")
    anthropic_response_reencodes(r, d)


def check_anthropic_messages_stream_text_then_tool_use(d: Any) -> None:
    items, r = stream(anthropic.StreamParser, d)
    assert texts(items) == "I'll check the current weather in Paris for you."
    assert r.message.content == texts(items)
    assert calls(r.message) == [("toolu_01NRLabsLyVHZPKxbKvkfSMn", "get_weather", {"location": "Paris"})]
    assert [x.index for x in items if not isinstance(x, str)] == [0] * 5  # tool call 0, though content block 1
    assert (r.finish_reason, r.usage["input_tokens"], r.usage["output_tokens"]) == ("tool_use", 377, 65)
    assert anthropic.from_messages(anthropic.to_messages([r.message])[1]) == (r.message,)


def check_anthropic_messages_stream_tool_use_only(d: Any) -> None:
    items, r = stream(anthropic.StreamParser, d)
    assert r.message.content is None and texts(items) == ""
    assert calls(r.message) == [("toolu_018acGYLtfR52q9yDbWaEdQZ", "get_weather", {"location": "San Francisco, CA", "units": "f"})]
    assert (r.finish_reason, r.usage["output_tokens"], r.usage["input_tokens"]) == ("tool_use", 74, 656)
    assert anthropic.from_messages(anthropic.to_messages([r.message])[1]) == (r.message,)


# -- Ollama -------------------------------------------------------------------------------------


def check_ollama_chat_request_history_with_tools(d: Any) -> None:
    ms = assert_ollama_reencodes(d["messages"])
    assert ms[1].content is None
    (call,) = ms[1].tool_calls
    assert (call.name, dict(call.arguments)) == ("get_weather", {"city": "Toronto"})
    assert call.id.startswith("call_") and len(call.id) == 29
    assert (ms[2].tool_call_id, ms[2].content) == (call.id, "11 degrees celsius")
    assert ollama.from_messages(d["messages"]) == ms  # the generated ids are stable
    ConversationHistory(ms, require_system=False).validate()
    (tool,) = assert_tools_reencode(ollama, d["tools"])
    assert ollama.to_tools([tool]) == d["tools"]


def check_ollama_chat_request_images(d: Any) -> None:
    (m,) = assert_ollama_reencodes(d["messages"])
    text, image = m.content
    assert text == TextPart("what is in this image?")
    assert image.source.media_type == "image/png"  # from the data's first bytes
    assert image.source.data == d["messages"][0]["images"][0]


def check_ollama_chat_request_parallel_tool_results(d: Any) -> None:
    ms = assert_ollama_reencodes(d["messages"])
    assistant = ms[1]
    assert [(c.name, c.arguments["city"]) for c in assistant.tool_calls] == [
        ("get_temperature", "New York"), ("get_conditions", "New York"),
        ("get_temperature", "London"), ("get_conditions", "London"),
    ]
    assert len({c.id for c in assistant.tool_calls}) == 4
    # four tool messages matched by tool_name in order: each answers its own call
    assert [m.tool_call_id for m in ms[2:]] == [c.id for c in assistant.tool_calls]
    assert [m.content for m in ms[2:]] == ["22°C", "Partly cloudy", "15°C", "Rainy"]
    ConversationHistory(ms, require_system=False).validate()


def check_ollama_chat_request_streaming_tools(d: Any) -> None:
    (m,) = assert_ollama_reencodes(d["messages"])
    assert m.content == "what is the weather in tokyo?"
    (tool,) = assert_tools_reencode(ollama, d["tools"])
    assert (tool.name, tool.parameters["required"]) == ("get_weather", ("city",))


def check_ollama_chat_request_tools(d: Any) -> None:
    (m,) = assert_ollama_reencodes(d["messages"])
    assert m.content == "What is the weather today in Paris?"
    (tool,) = assert_tools_reencode(ollama, d["tools"])
    assert tool.parameters["properties"]["format"]["enum"] == ("celsius", "fahrenheit")
    assert ollama.to_tools([tool]) == d["tools"]


def ollama_response_reencodes(r: Response, body: dict[str, Any]) -> None:
    assert without_ids(ollama.to_messages([r.message])) == ollama_expected([body["message"]])


def check_ollama_chat_response_after_tool_result(d: Any) -> None:
    r = ollama.parse_response(d)
    assert r.message.content == "The current temperature in Toronto is 11°C."
    assert r.finish_reason == "stop"
    assert dict(r.usage) == {k: d[k] for k in ("total_duration", "load_duration", "prompt_eval_count", "prompt_eval_duration", "eval_count", "eval_duration")}
    ollama_response_reencodes(r, d)


def check_ollama_chat_response_tool_calls(d: Any) -> None:
    r = ollama.parse_response(d)
    ((call_id, name, args),) = calls(r.message)
    assert (name, args) == ("get_current_weather", {"format": "celsius", "location": "Paris, FR"})
    assert call_id == ollama.parse_response(d).message.tool_calls[0].id  # stable
    assert (r.message.content, r.finish_reason, r.usage["eval_count"]) == (None, "stop", 33)
    ollama_response_reencodes(r, d)


def check_ollama_chat_response_tool_calls_capture(d: Any) -> None:
    r = ollama.parse_response(d)
    assert calls(r.message)[0][1:] == ("run_command", {"command": "df -h"})
    assert (r.finish_reason, r.usage["prompt_eval_count"]) == ("stop", 155)
    ollama_response_reencodes(r, d)


def check_ollama_chat_stream_tool_calls(d: Any) -> None:
    items, r = stream(ollama.StreamParser, d)
    (delta,) = items
    assert (delta.index, delta.name, json.loads(delta.arguments_delta)) == (0, "get_weather", {"city": "Tokyo"})
    assert calls(r.message) == [(delta.id, "get_weather", {"city": "Tokyo"})]
    assert (r.finish_reason, r.usage["eval_count"]) == ("stop", 15)
    assert without_ids(ollama.to_messages([r.message])) == [{"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "get_weather", "arguments": {"city": "Tokyo"}}}]}]


def check_ollama_openai_compat_stream_two_tool_calls(d: Any) -> None:
    # Ollama's OpenAI-compatible endpoint: parsed by the OpenAI codec; each call whole in one delta
    items, r = stream(openai.StreamParser, d)
    assert calls(r.message) == [
        ("call_809l7n8f", "run_command", {"command": "ls -la"}),
        ("call_oqp1e2a1", "run_command", {"command": "ls -la", "cwd": "/path/to/directory"}),
    ]
    assert (r.finish_reason, r.message.content, len(items)) == ("tool_calls", None, 2)
    openai_message_reencodes(r)


CHECKS: dict[str, Callable[[Any], None]] = {
    name[len("check_") :].replace("_", "/", 1) + ".json": fn
    for name, fn in dict(globals()).items()
    if name.startswith("check_")
}


def fixture_files() -> list[str]:
    return sorted(
        str(path.relative_to(DATA))
        for provider in PROVIDERS
        for path in (DATA / provider).glob("*.json")
    )


def test_every_fixture_is_checked() -> None:
    files = fixture_files()
    assert len(files) == 51  # 21 OpenAI, 15 Anthropic, 10 Ollama, 5 vLLM
    assert sorted(CHECKS) == files


@pytest.mark.parametrize("name", sorted(CHECKS))
def test_fixture(name: str) -> None:
    CHECKS[name](load(name))
