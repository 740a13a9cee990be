"""The Gemini codec against real recorded payloads, the google-genai SDK types and client.

Fixtures: tests/data/provider-fixtures/gemini (see PROVENANCE-openai-responses-gemini.md).
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest

from agentmsg import (
    ChatMessage,
    ImagePart,
    ImageSource,
    MessageRole,
    ReasoningDelta,
    ReasoningPart,
    TextPart,
    ToolCall,
    ToolCallDelta,
    ToolDefinition,
    ValidationError,
)
from agentmsg._frozen import thaw_json
from agentmsg.providers import Response, gemini as G

DATA = Path(__file__).parent / "data" / "provider-fixtures" / "gemini"
FILES = sorted(p.name for p in DATA.glob("*.json"))
REQUESTS = [n for n in FILES if n.startswith("request_")]
RESPONSES = [n for n in FILES if n.startswith("response_") and "error" not in n]
ERRORS = [n for n in FILES if n.startswith("response_error")]
STREAMS = [n for n in FILES if n.startswith("stream_")]


def load(name: str) -> Any:
    return json.loads((DATA / name).read_bytes())


def run_stream(chunks: list[Any]) -> tuple[list[Any], Response]:
    parser = G.StreamParser()
    out: list[Any] = []
    for chunk in chunks:
        out.extend(parser.feed(chunk))
    return out, parser.finish()


def test_fixture_folder_is_complete() -> None:
    assert len(FILES) == 21
    assert set(FILES) == set(REQUESTS) | set(RESPONSES) | set(ERRORS) | set(STREAMS)


# -- every fixture parses ------------------------------------------------------------------


@pytest.mark.parametrize("name", REQUESTS)
def test_request_fixture_parses(name: str) -> None:
    body = load(name)
    messages = G.from_messages(body["contents"], body.get("systemInstruction"))
    assert messages[-1].role.name in ("USER", "TOOL")
    declared = [fn["name"] for tool in body.get("tools", ()) for fn in tool["functionDeclarations"]]
    assert [t.name for t in G.from_tools(body.get("tools", []))] == declared


def _parts(body: dict[str, Any]) -> list[dict[str, Any]]:
    return body["candidates"][0].get("content", {}).get("parts", [])


@pytest.mark.parametrize("name", RESPONSES)
def test_response_fixture_parses(name: str) -> None:
    body = load(name)
    response = G.parse_response(body)
    candidate = body["candidates"][0]
    assert response.finish_reason == candidate["finishReason"]
    assert thaw_json(response.usage) == body["usageMetadata"]  # type: ignore[arg-type]
    parts = _parts(body)
    assert response.message.text == "".join(p["text"] for p in parts if "text" in p and not p.get("thought"))
    calls = [p["functionCall"] for p in parts if "functionCall" in p]
    assert [(c.name, json.loads(json.dumps(c.arguments))) for c in response.message.tool_calls] == [
        (c["name"], c["args"]) for c in calls
    ]
    thoughts = [p["text"] for p in parts if p.get("thought")]
    assert [p.text for p in response.message.reasoning if p.text] == thoughts
    assert [p.signature for p in response.message.reasoning if p.signature] == [
        p["thoughtSignature"] for p in parts if "thoughtSignature" in p
    ]


def test_finish_reasons_safety_and_max_tokens() -> None:
    safety = G.parse_response(load("response_finish_safety.json"))
    assert (safety.finish_reason, safety.message.content, safety.message.tool_calls) == ("SAFETY", "", ())
    cut = G.parse_response(load("response_finish_max_tokens.json"))
    assert (cut.finish_reason, cut.message.content) == ("MAX_TOKENS", "The capital of France is")
    blocked = G.parse_response({"promptFeedback": {"blockReason": "PROHIBITED_CONTENT"}, "usageMetadata": {}})
    assert (blocked.finish_reason, blocked.message.content) == ("PROHIBITED_CONTENT", "")


@pytest.mark.parametrize("name", ERRORS)
def test_error_bodies_raise_provider_errors_naming_the_status(name: str) -> None:
    body = load(name)
    with pytest.raises(ValidationError) as info:
        G.parse_response(body)
    assert (info.value.code, info.value.path) == ("provider", "error")
    assert body["error"]["status"] in str(info.value)
    assert body["error"]["message"][:20] not in str(info.value)
    with pytest.raises(ValidationError) as info:
        G.StreamParser().feed(body)
    assert info.value.code == "provider"


def test_calls_without_ids_get_stable_generated_ids() -> None:
    body = load("response_parallel_function_calls.json")
    first, again = G.parse_response(body), G.parse_response(copy.deepcopy(body))
    ids = [c.id for c in first.message.tool_calls]
    assert ids == [c.id for c in again.message.tool_calls]
    assert len(set(ids)) == 3 and all(re.fullmatch(r"call_[0-9a-f]{24}", i) for i in ids)
    # the signature on the first functionCall part is anchored to that call
    assert [p.anchor for p in first.message.reasoning] == [ids[0]]


def test_results_without_ids_pair_by_name_and_position() -> None:
    contents = [
        {"role": "user", "parts": [{"text": "go"}]},
        {"role": "model", "parts": [
            {"functionCall": {"name": "a", "args": {"n": 1}}},
            {"functionCall": {"name": "b", "args": {}}},
            {"functionCall": {"name": "a", "args": {"n": 2}}},
        ]},
        {"role": "user", "parts": [
            {"functionResponse": {"name": "a", "response": {"output": "one"}}},
            {"functionResponse": {"name": "a", "response": {"output": "two"}}},
            {"functionResponse": {"name": "b", "response": {"error": "boom"}}},
        ]},
    ]
    messages = G.from_messages(contents)
    calls = messages[1].tool_calls
    assert [(m.tool_call_id, m.text, m.is_error) for m in messages[2:]] == [
        (calls[0].id, "one", False), (calls[2].id, "two", False), (calls[1].id, "boom", True)
    ]
    with pytest.raises(ValidationError) as info:
        G.from_messages(contents[:2] + [{"role": "user", "parts": [{"functionResponse": {"name": "zzz", "response": {}}}]}])
    assert (info.value.path, info.value.code) == ("[2].parts[0].functionResponse.name", "value")


# -- streams -------------------------------------------------------------------------------


_THOUGHT_A = {"text": "Weigh A.", "thought": True}
_THOUGHT_B = {"text": "Then B.", "thought": True}
INTERLEAVED = {
    "thought text thought": [_THOUGHT_A, {"text": "Answer."}, _THOUGHT_B],
    "thought empty-text thought": [_THOUGHT_A, {"text": ""}, _THOUGHT_B],
    "thought signed-text thought": [_THOUGHT_A, {"text": "Answer.", "thoughtSignature": "EqoB"}, _THOUGHT_B],
    "thought call thought": [_THOUGHT_A, {"functionCall": {"id": "c1", "name": "now", "args": {}}}, _THOUGHT_B],
    "text thought text thought": [{"text": "So"}, _THOUGHT_A, {"text": "far."}, _THOUGHT_B],
}


@pytest.mark.parametrize("case", sorted(INTERLEAVED))
@pytest.mark.parametrize("chunking", ["a chunk per part", "one chunk"])
def test_stream_answer_text_closes_an_open_thought(case: str, chunking: str) -> None:
    """Thought, answer, thought: two reasoning parts, as parse_response reads the same parts."""
    parts = INTERLEAVED[case]
    groups = [[part] for part in parts] if chunking == "a chunk per part" else [parts]
    chunks = [{"candidates": [{"content": {"role": "model", "parts": group}}]} for group in groups]
    chunks[-1]["candidates"][0]["finishReason"] = "STOP"
    _, streamed = run_stream(chunks)
    whole = G.parse_response({"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP"}]})
    assert [(p.text, p.signature, p.anchor) for p in streamed.message.reasoning] == [
        (p.text, p.signature, p.anchor) for p in whole.message.reasoning
    ]
    assert [p.text for p in streamed.message.reasoning if p.text] == ["Weigh A.", "Then B."]
    assert streamed.message.tool_calls == whole.message.tool_calls
    assert streamed.message.text == whole.message.text  # a stream joins its text, a body keeps its parts


@pytest.mark.parametrize("name", STREAMS)
def test_stream_fixture_joins(name: str) -> None:
    chunks = load(name)
    items, response = run_stream(chunks)
    parts = [p for c in chunks for p in c["candidates"][0].get("content", {}).get("parts", [])]
    text = "".join(p["text"] for p in parts if "text" in p and not p.get("thought"))
    assert "".join(i for i in items if isinstance(i, str)) == text == response.message.text
    thoughts = "".join(p["text"] for p in parts if p.get("thought"))
    assert "".join(i.text for i in items if isinstance(i, ReasoningDelta)) == thoughts
    assert "".join(p.text for p in response.message.reasoning) == thoughts
    assert [p.signature for p in response.message.reasoning if p.signature] == [
        p["thoughtSignature"] for p in parts if "thoughtSignature" in p
    ]
    assert response.finish_reason == "STOP"
    assert thaw_json(response.usage) == chunks[-1]["usageMetadata"]  # type: ignore[arg-type]
    names = [p["functionCall"]["name"] for p in parts if "name" in p.get("functionCall", {})]
    assert [c.name for c in response.message.tool_calls] == names
    # the deltas carry the same calls, in order, as a ToolCallAccumulator would join them
    from agentmsg import ToolCallAccumulator
    acc = ToolCallAccumulator()
    for item in items:
        if isinstance(item, ToolCallDelta):
            acc.add(item)
    assert acc.finish() == response.message.tool_calls


def test_streamed_function_call_arguments_are_joined() -> None:
    _, response = run_stream(load("stream_function_call_partial_args.json"))
    assert [dict(c.arguments) for c in response.message.tool_calls] == [{"location": "Boston"}, {"location": "San Francisco"}]
    _, response = run_stream(load("stream_parallel_function_calls_partial_args.json"))
    assert [(c.name, dict(c.arguments)) for c in response.message.tool_calls] == [
        ("read_theme", {}), ("read_screen", {"id": "A"}), ("read_screen", {"id": "B"}), ("read_screen", {"id": "C"})
    ]
    # the signature rides on the first call, as the stream sent it
    assert response.message.reasoning[1].anchor == response.message.tool_calls[0].id


def test_partial_args_of_every_kind_and_path() -> None:
    chunks = [
        {"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {"name": "f", "willContinue": True}}]}}]},
        {"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {"partialArgs": [
            {"jsonPath": "$.a.b", "stringValue": "x", "willContinue": True},
            {"jsonPath": "$.a.b", "stringValue": "y"},
            {"jsonPath": "$.n", "numberValue": 3.5},
            {"jsonPath": "$.list[1]", "boolValue": True},
            {"jsonPath": "$['odd key']", "nullValue": None},
        ], "willContinue": True}}]}}]},
        {"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {}}]}, "finishReason": "STOP"}]},
    ]
    _, response = run_stream(chunks)
    assert json.loads(json.dumps(response.message.tool_calls[0].arguments)) == {
        "a": {"b": "xy"}, "n": 3.5, "list": [None, True], "odd key": None
    }
    bad = copy.deepcopy(chunks)
    bad[1]["candidates"][0]["content"]["parts"][0]["functionCall"]["partialArgs"][0]["jsonPath"] = "a.b"
    with pytest.raises(ValidationError) as info:
        run_stream(bad)
    assert (info.value.path, info.value.code) == (
        "candidates[0].content.parts[0].functionCall.partialArgs[0].jsonPath", "pattern"
    )


# -- requests round-trip; the changes are exactly the loss table's ---------------------------

_CAMEL = {
    "inline_data": "inlineData", "mime_type": "mimeType", "file_data": "fileData", "file_uri": "fileUri",
    "function_call": "functionCall", "function_response": "functionResponse", "thought_signature": "thoughtSignature",
    "parameters_json_schema": "parametersJsonSchema", "function_declarations": "functionDeclarations",
}
_OPAQUE = {"args", "response", "parametersJsonSchema", "parameters_json_schema", "parameters"}


def camel(value: Any) -> Any:
    """The google-genai SDK's snake_case field names in camelCase (values of args, schemas... untouched)."""
    if isinstance(value, dict):
        return {_CAMEL.get(k, k): (v if k in _OPAQUE else camel(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [camel(v) for v in value]
    return value


def standard_b64(value: Any, keys: tuple[str, ...] = ("data", "thoughtSignature")) -> Any:
    """Base64 in the standard alphabet (the SDK writes bytes, data and signatures, URL-safe)."""
    if isinstance(value, dict):
        return {k: (v.replace("-", "+").replace("_", "/") if k in keys and isinstance(v, str) else standard_b64(v, keys)) for k, v in value.items()}
    if isinstance(value, list):
        return [standard_b64(v, keys) for v in value]
    return value


def signatures_std(message: ChatMessage) -> dict[str, Any]:
    return standard_b64(message.to_dict(), ("signature",))  # type: ignore[no-any-return]


def lower_types(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {k: (v.lower() if k == "type" and isinstance(v, str) else lower_types(v)) for k, v in schema.items()}
    if isinstance(schema, list):
        return [lower_types(v) for v in schema]
    return schema


def expected_request(body: dict[str, Any]) -> dict[str, Any]:
    """The fixture as agentmsg sends it back (docs/reasoning-providers.md, loss table)."""
    out = standard_b64(camel(copy.deepcopy(body)))
    if "systemInstruction" in out:
        out["systemInstruction"].pop("role", None)
    for tool in out.get("tools", ()):
        for fn in tool["functionDeclarations"]:
            if not fn.get("description"):
                fn.pop("description", None)
            if "parameters" in fn:
                fn["parametersJsonSchema"] = lower_types(fn.pop("parameters"))
    return out


def round_trip(body: dict[str, Any]) -> dict[str, Any]:
    messages = G.from_messages(body["contents"], body.get("systemInstruction"))
    tools = G.from_tools(body.get("tools", []))
    params = {k: v for k, v in body.items() if k not in ("contents", "systemInstruction", "tools")}
    return G.to_request(messages, tools, **params)


@pytest.mark.parametrize("name", REQUESTS)
def test_request_round_trips(name: str) -> None:
    body = load(name)
    assert round_trip(body) == expected_request(body)


def test_reasoning_survives_a_round_trip_through_a_response() -> None:
    """The recorded next request carries the response's parts; agentmsg sends the same (ids aside)."""
    response = G.parse_response(load("response_parallel_function_calls.json"))
    recorded = load("request_parallel_function_responses.json")
    _, contents = G.to_messages([ChatMessage.user(""), response.message])
    sent = contents[1]["parts"]
    for part in sent:
        part["functionCall"].pop("id")
    expected = copy.deepcopy(recorded["contents"][1]["parts"])
    for part in expected:
        part["functionCall"].pop("id")
    # pydantic-ai sent the signature back through the SDK, which re-encodes it URL-safe
    assert sent == standard_b64(expected, ("thoughtSignature",)) and sent[0]["thoughtSignature"].startswith("Es8F")


def test_thought_parts_and_answer_signature_go_back_as_they_came() -> None:
    body = load("response_thinking.json")
    message = G.parse_response(body).message
    assert G.to_messages([ChatMessage.user("q"), message])[1][1]["parts"] == _parts(body)
    assert ChatMessage.from_dict(message.to_dict()) == message
    chunks = load("stream_thinking.json")
    streamed = run_stream(chunks)[1].message
    parts = G.to_messages([ChatMessage.user("q"), streamed])[1][1]["parts"]
    assert parts[0]["thought"] is True and parts[0]["text"] == "".join(p.text for p in streamed.reasoning)
    assert parts[1] == {"text": streamed.text, "thoughtSignature": streamed.reasoning[1].signature}


def test_other_providers_reasoning_is_not_sent() -> None:
    message = ChatMessage.assistant(
        "Hi", reasoning=[ReasoningPart("t", signature="s", provider="anthropic"), ReasoningPart("local"),
                         ReasoningPart(signature="e", provider="openai", id="rs_1")],
    )
    assert G.to_messages([ChatMessage.user("q"), message])[1][1] == {"role": "model", "parts": [{"text": "Hi"}]}


def test_tool_results_text_json_error_and_images() -> None:
    png = ImageSource.from_base64("iVBORw0KGgo=", "image/png")
    call = ToolCall("call_1", "f", {})
    _, contents = G.to_messages([
        ChatMessage.user("go"),
        ChatMessage.assistant(tool_calls=[call, ToolCall("call_2", "f", {}), ToolCall("call_3", "f", {})]),
        ChatMessage.tool("call_1", '{"temp": 18}'),
        ChatMessage.tool("call_2", "boom", is_error=True),
        ChatMessage.tool("call_3", [TextPart("shot"), ImagePart(png)]),
    ])
    results = [p["functionResponse"] for p in contents[2]["parts"]]
    assert [r["response"] for r in results] == [{"temp": 18}, {"error": "boom"}, {"output": "shot"}]
    assert results[2]["parts"] == [{"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}}]
    with pytest.raises(ValidationError) as info:
        G.to_messages([ChatMessage.user("go"), ChatMessage.tool("nope", "x")])
    assert (info.value.path, info.value.code) == ("[1].tool_call_id", "unsupported")


def test_images_inline_and_by_url() -> None:
    url = ImageSource.from_url("https://example.com/cat.PNG?size=2")
    _, contents = G.to_messages([ChatMessage.user([ImagePart(url)])])
    assert contents[0]["parts"] == [{"fileData": {"mimeType": "image/png", "fileUri": "https://example.com/cat.PNG?size=2"}}]
    assert G.from_messages(contents)[0] == ChatMessage.user([ImagePart(url)])
    with pytest.raises(ValidationError) as info:
        G.to_messages([ChatMessage.user([ImagePart(ImageSource.from_url("https://example.com/image"))])])
    assert (info.value.path, info.value.code) == ("[0].content[0].source", "unsupported")
    # URL-safe base64, as the google-genai SDK writes it, reads as standard base64
    back = G.from_messages([{"role": "user", "parts": [{"inline_data": {"mime_type": "image/jpeg", "data": "_9j_4AAQSkZJRgABAQ=="}}]}])
    assert back[0].content[0].source.data == "/9j/4AAQSkZJRgABAQ=="  # type: ignore[index,union-attr]


def test_tools() -> None:
    tool = ToolDefinition("now", "Current time.", {"type": "object", "properties": {}}, strict=False)
    assert G.from_tools(G.to_tools([tool])) == (tool,)
    assert G.to_tools([]) == []
    with pytest.raises(ValidationError) as info:
        G.from_tools([{"codeExecution": {}}])
    assert (info.value.path, info.value.code) == ("[0]", "unsupported")


@pytest.mark.parametrize(
    "contents, path, code",
    [
        ([{"role": "robot", "parts": [{"text": "x"}]}], "[0].role", "value"),
        ([{"role": "user", "parts": [{"executableCode": {}}]}], "[0].parts[0]", "unsupported"),
        ([{"role": "model", "parts": [{"functionCall": {"args": {}}}]}], "[0].parts[0].functionCall.name", "missing"),
        ([{"role": "model", "parts": [{"functionCall": {"name": "f", "args": []}}]}], "[0].parts[0].functionCall.args", "type"),
        ([{"role": "user", "parts": [{"inlineData": {"mimeType": "application/pdf", "data": "JVBERg=="}}]}], "[0].parts[0].inlineData.media_type", "value"),
        ([{"role": "user", "parts": "hi"}], "[0].parts", "type"),
        ({"role": "user"}, "", "type"),
    ],
)
def test_bad_contents(contents: Any, path: str, code: str) -> None:
    with pytest.raises(ValidationError) as info:
        G.from_messages(contents)
    assert (info.value.path, info.value.code) == (path, code)


def test_to_request_contract() -> None:
    body = G.to_request([ChatMessage.user("Hi")], [], generationConfig={"temperature": 0}, toolConfig=None)
    assert body == {"generationConfig": {"temperature": 0}, "contents": [{"role": "user", "parts": [{"text": "Hi"}]}]}
    with pytest.raises(TypeError):
        G.to_request([ChatMessage.user("Hi")], contents=[])
    with pytest.raises(TypeError):
        G.to_request([ChatMessage.user("Hi")], model="gemini-2.5-flash")


# -- the official SDK: its types, and its client against a local recording server ------------


def _conversation() -> list[ChatMessage]:
    jpeg = ImageSource.from_base64("/9j/4AAQSkZJRgABAQ==", "image/jpeg")
    return [
        ChatMessage.system("Be brief."),
        ChatMessage.user([TextPart("What is this, and the weather?"), ImagePart(jpeg)]),
        ChatMessage.assistant(
            "Checking.",
            [ToolCall("call_1", "get_weather", {"city": "Paris"}), ToolCall("call_2", "now", {})],
            [ReasoningPart("Plan", provider="gemini"), ReasoningPart(signature="Es8F", provider="gemini", anchor="call_1")],
        ),
        ChatMessage.tool("call_1", [TextPart("18 C"), ImagePart(jpeg)]),
        ChatMessage.tool("call_2", "noon", is_error=True),
        ChatMessage.assistant("It is 18 C.", reasoning=[ReasoningPart(signature="EqoB", provider="gemini")]),
        ChatMessage.user("Thanks"),
    ]


def _tools() -> list[ToolDefinition]:
    return [
        ToolDefinition("get_weather", "Weather.", {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}, strict=False),
        ToolDefinition("now", "now", {"type": "object", "properties": {}}, strict=False),
    ]


def test_what_agentmsg_builds_passes_the_sdk_types() -> None:
    types = pytest.importorskip("google.genai.types")
    bodies = [G.to_request(_conversation(), _tools())] + [round_trip(load(name)) for name in REQUESTS]
    for body in bodies:
        # the SDK's models forbid unknown fields; what they read is what was built
        for content in body["contents"] + ([body["systemInstruction"]] if "systemInstruction" in body else []):
            sdk = types.Content.model_validate_json(json.dumps(content))
            assert standard_b64(sdk.model_dump(mode="json", by_alias=True, exclude_none=True)) == content
        for tool in body.get("tools", ()):
            sdk_tool = types.Tool.model_validate_json(json.dumps(tool))
            assert sdk_tool.model_dump(mode="json", by_alias=True, exclude_none=True) == tool


def test_the_official_client_sends_the_body_unchanged() -> None:
    genai = pytest.importorskip("google.genai")
    types = pytest.importorskip("google.genai.types")
    from recording_server import recording_server

    body = G.to_request(_conversation(), _tools())
    contents = [types.Content.model_validate_json(json.dumps(c)) for c in body["contents"]]
    config = types.GenerateContentConfig(
        system_instruction=types.Content.model_validate_json(json.dumps(body["systemInstruction"])),
        tools=[types.Tool.model_validate_json(json.dumps(t)) for t in body["tools"]],
    )
    with recording_server() as server:
        server.reply_json(load("response_thinking.json"))
        server.replies.append((200, "text/event-stream", (DATA / "raw" / "stream_thinking.sse").read_bytes()))
        client = genai.Client(api_key="test-key", http_options=types.HttpOptions(base_url=server.url, api_version="v1beta"))
        result = client.models.generate_content(model="gemini-2.5-pro", contents=contents, config=config)
        streamed = list(client.models.generate_content_stream(model="gemini-2.5-pro", contents=contents, config=config))
    first, second = server.requests
    assert first.path == "/v1beta/models/gemini-2.5-pro:generateContent"
    assert second.path == "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse"
    for recorded in (first, second):
        sent = recorded.json()
        assert sent.pop("generationConfig") == {}  # the SDK adds an empty one
        # unchanged but for the SDK's own snake_case spellings and URL-safe base64
        assert standard_b64(camel(sent)) == body
        assert G.from_messages(sent["contents"], sent["systemInstruction"]) == tuple(_conversation())
    # what the SDK made of the replies reads back as the recorded payloads do
    # (the SDK holds signatures as bytes and writes them back URL-safe: same bytes, other alphabet)
    sdk_message = G.parse_response(result.model_dump(mode="json", by_alias=True, exclude_none=True)).message
    assert signatures_std(sdk_message) == signatures_std(G.parse_response(load("response_thinking.json")).message)
    _, from_sdk = run_stream([chunk.model_dump(mode="json", by_alias=True, exclude_none=True) for chunk in streamed])
    assert signatures_std(from_sdk.message) == signatures_std(run_stream(load("stream_thinking.json"))[1].message)


def test_tool_names_map_to_canonical_names_and_back() -> None:
    tools = G.from_tools([{"functionDeclarations": [{"name": "db.query", "parametersJsonSchema": {"type": "object"}}]}])
    assert tools[0].name == "db_x2e_query" and G.to_tools(tools)[0]["functionDeclarations"][0]["name"] == "db.query"
    contents = [
        {"role": "user", "parts": [{"text": "q"}]},
        {"role": "model", "parts": [{"functionCall": {"name": "db.query", "args": {}}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "db.query", "response": {"output": "1 row"}}}]},
    ]
    messages = G.from_messages(contents)
    assert messages[1].tool_calls[0].name == "db_x2e_query" and messages[2].tool_call_id == messages[1].tool_calls[0].id
    sent = G.to_messages(messages)[1]
    assert sent[1]["parts"][0]["functionCall"]["name"] == sent[2]["parts"][0]["functionResponse"]["name"] == "db.query"
    chunks = [{"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {"name": "db.query", "args": {}}}]}, "finishReason": "STOP"}]}]
    assert run_stream(chunks)[1].message.tool_calls[0].name == "db_x2e_query"
    with pytest.raises(ValidationError) as info:
        G.from_tools([{"functionDeclarations": [{"name": "9lives", "parametersJsonSchema": {"type": "object"}}]}])
    assert (info.value.path, info.value.code) == ("[0].functionDeclarations[0].name", "pattern")


@pytest.mark.parametrize("name", REQUESTS + RESPONSES + STREAMS)
def test_the_validator_detects_each_fixture_as_its_kind(name: str) -> None:
    from agentmsg.validate._registry import Problems, candidates

    doc = load(name)
    passing = []
    for kind in candidates(doc):
        try:
            kind.check(doc)
        except (ValidationError, Problems):
            continue
        passing.append(kind.name)
    assert passing and passing[0] == "gemini_" + name.split("_")[0], passing


def test_declaration_fields_agentmsg_does_not_model_go_back_only_to_gemini() -> None:
    from agentmsg.providers import anthropic

    tools = [{"function_declarations": [{"name": "lookup", "description": "Look up.", "parameters_json_schema": {"type": "object"},
                                         "behavior": "NON_BLOCKING", "response_json_schema": {"type": "string"}}]}]
    (definition,) = G.from_tools(tools)
    assert thaw_json(definition.extras) == {"gemini": {"behavior": "NON_BLOCKING", "responseJsonSchema": {"type": "string"}}}
    assert G.to_tools([definition]) == [{"functionDeclarations": [{
        "name": "lookup", "description": "Look up.", "parametersJsonSchema": {"type": "object"},
        "behavior": "NON_BLOCKING", "responseJsonSchema": {"type": "string"}}]}]
    assert "behavior" not in json.dumps(anthropic.to_tools([definition]))


def test_system_text_parts_are_kept_as_parts() -> None:
    system = ChatMessage(MessageRole.SYSTEM, (TextPart("Be brief."), TextPart("Answer in French.")))
    body = G.to_request([system, ChatMessage.user("Hi")])
    assert body["systemInstruction"] == {"parts": [{"text": "Be brief."}, {"text": "Answer in French."}]}
    assert G.from_messages(body["contents"], body["systemInstruction"])[0] == system
    assert G.from_messages([], {"parts": [{"text": "One."}]}) == (ChatMessage.system("One."),)
