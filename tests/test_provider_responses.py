"""The OpenAI Responses codec against real recorded payloads, the official SDK types and client.

Fixtures: tests/data/provider-fixtures/openai-responses (see PROVENANCE-openai-responses-gemini.md).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from agentmsg import ChatMessage, ImagePart, ImageSource, MessageRole, ReasoningDelta, ReasoningPart, TextPart, ToolCall, ToolCallDelta, ToolDefinition, ValidationError
from agentmsg._frozen import thaw_json
from agentmsg.providers import Response, openai_responses as R

DATA = Path(__file__).parent / "data" / "provider-fixtures" / "openai-responses"
FILES = sorted(p.name for p in DATA.glob("*.json"))
REQUESTS = [n for n in FILES if n.startswith("request_")]
RESPONSES = [n for n in FILES if n.startswith("response_") and "error" not in n]
ERRORS = [n for n in FILES if n.startswith("response_error")]
STREAMS = [n for n in FILES if n.startswith("stream_") and "error" not in n]


def load(name: str) -> Any:
    return json.loads((DATA / name).read_bytes())


def run_stream(events: list[Any]) -> tuple[list[Any], Response]:
    parser = R.StreamParser()
    out: list[Any] = []
    for event in events:
        out.extend(parser.feed(event))
    return out, parser.finish()


def test_fixture_folder_is_complete() -> None:
    assert len(FILES) == 22
    assert set(FILES) == set(REQUESTS) | set(RESPONSES) | set(ERRORS) | set(STREAMS) | {"stream_error_insufficient_quota.json"}


# -- every fixture parses ------------------------------------------------------------------


@pytest.mark.parametrize("name", REQUESTS)
def test_request_fixture_parses(name: str) -> None:
    body = load(name)
    messages = R.from_messages(body["input"], body.get("instructions"))
    assert messages and messages[-1].role.name in ("USER", "TOOL")
    tools = R.from_tools(body.get("tools", []))
    assert [t.name for t in tools] == [t["name"] for t in body.get("tools", [])]
    assert [t.strict for t in tools] == [t["strict"] for t in body.get("tools", [])]


@pytest.mark.parametrize("name", RESPONSES)
def test_response_fixture_parses(name: str) -> None:
    body = load(name)
    response = R.parse_response(body)
    assert response.finish_reason == body["status"] == "completed"
    assert thaw_json(response.usage) == body["usage"]  # type: ignore[arg-type]
    calls = [item for item in body["output"] if item["type"] == "function_call"]
    assert [(c.id, c.name, json.loads(json.dumps(c.arguments))) for c in response.message.tool_calls] == [
        (c["call_id"], c["name"], json.loads(c["arguments"])) for c in calls
    ]
    texts = [p["text"] for item in body["output"] if item["type"] == "message" for p in item["content"]]
    assert response.message.text == "".join(texts)
    reasoning = [item for item in body["output"] if item["type"] == "reasoning"]
    assert [p.id for p in response.message.reasoning] == [r["id"] for r in reasoning for _ in (r["summary"] or [None])]


@pytest.mark.parametrize("name", ERRORS + ["stream_error_insufficient_quota.json"])
def test_error_bodies_raise_provider_errors_naming_the_type(name: str) -> None:
    body = load(name)
    with pytest.raises(ValidationError) as info:
        if name.startswith("stream"):
            run_stream(body)
        else:
            R.parse_response(body)
    err = info.value
    assert err.code == "provider" and err.path == "error"
    kind = body[2]["error"]["type"] if name.startswith("stream") else body["error"]["type"]
    assert kind in str(err)
    message = body[2]["error"]["message"] if name.startswith("stream") else body["error"]["message"]
    assert message[:20] not in str(err)  # the provider's message may quote content: never echoed


def test_failed_response_event_raises_provider_error() -> None:
    failed = load("stream_error_insufficient_quota.json")[3]
    with pytest.raises(ValidationError) as info:
        R.StreamParser().feed(failed)
    assert info.value.code == "provider" and "insufficient_quota" in str(info.value)


@pytest.mark.parametrize("name", STREAMS)
def test_stream_fixture_joins_to_the_completed_response(name: str) -> None:
    events = load(name)
    items, response = run_stream(events)
    completed = R.parse_response(events[-1]["response"])
    assert response == completed
    # the deltas are what streamed: text, reasoning summary text, call fragments
    text = "".join(e["delta"] for e in events if e["type"] == "response.output_text.delta")
    assert "".join(i for i in items if isinstance(i, str)) == text
    summary = "".join(e["delta"] for e in events if e["type"] == "response.reasoning_summary_text.delta")
    assert "".join(i.text for i in items if isinstance(i, ReasoningDelta)) == summary
    args = "".join(e["delta"] for e in events if e["type"] == "response.function_call_arguments.delta")
    assert "".join(i.arguments_delta or "" for i in items if isinstance(i, ToolCallDelta)) == args


@pytest.mark.parametrize("name", STREAMS)
def test_stream_accumulates_without_the_completed_output(name: str) -> None:
    """With ``output`` left out of response.completed, the parser joins the deltas itself."""
    events = copy.deepcopy(load(name))
    full = R.parse_response(events[-1]["response"])
    events[-1]["response"]["output"] = []
    _, joined = run_stream(events)
    assert joined.message.tool_calls == full.message.tool_calls
    assert joined.message.text == full.message.text
    assert [(p.text, p.id, p.anchor, p.provider) for p in joined.message.reasoning] == [
        (p.text, p.id, p.anchor, p.provider) for p in full.message.reasoning
    ]
    # the signature is the one output_item.done gave (the API re-encrypts for response.completed)
    done = [e["item"] for e in events if e["type"] == "response.output_item.done" and e["item"]["type"] == "reasoning"]
    assert [p.signature for p in joined.message.reasoning if p.signature] == [d["encrypted_content"] for d in done]
    assert joined.usage == full.usage and joined.finish_reason == "completed"


# -- requests round-trip; the changes are exactly the loss table's ---------------------------


def expected_request(body: dict[str, Any]) -> dict[str, Any]:
    """The fixture as agentmsg sends it back (docs/reasoning-providers.md, loss table)."""
    out = copy.deepcopy(body)
    for tool in out.get("tools", ()):
        if not tool.get("description"):
            del tool["description"]  # null or "": the description is the name, left out
    items = []
    prev: dict[str, Any] | None = None
    for item in out["input"]:
        if item.get("type") == "function_call":
            item.pop("status", None)
            if not (prev and prev.get("type") == "reasoning"):
                item.pop("id", None)  # item ids are kept only to pair with reasoning
        if item.get("role") == "assistant" and item.get("content") == "":
            prev = item
            continue  # empty assistant text beside calls is not sent
        items.append(item)
        prev = item
    out["input"] = items
    return out


def round_trip(body: dict[str, Any]) -> dict[str, Any]:
    messages = R.from_messages(body["input"], body.get("instructions"))
    tools = R.from_tools(body.get("tools", []))
    params = {k: v for k, v in body.items() if k not in ("input", "instructions", "tools")}
    return R.to_request(messages, tools, **params)


@pytest.mark.parametrize("name", REQUESTS)
def test_request_round_trips(name: str) -> None:
    body = load(name)
    assert round_trip(body) == expected_request(body)


def test_reasoning_survives_a_round_trip_through_a_response() -> None:
    """The reasoning item of a response goes back, byte for byte, in the next request (the recorded one)."""
    response = R.parse_response(load("response_reasoning_function_call.json"))
    recorded = load("request_reasoning_function_call_output.json")
    history = R.from_messages(recorded["input"][:1]) + (
        response.message,
        ChatMessage.tool(response.message.tool_calls[0].id, "42"),
    )
    _, items = R.to_messages(history)
    assert items[1] == recorded["input"][1]  # the reasoning item: id, encrypted_content, summary
    assert items[2]["id"] == recorded["input"][2]["id"]  # its following item, paired by id
    assert [i["type"] if "type" in i else i["role"] for i in items] == ["user", "reasoning", "function_call", "function_call_output"]


def test_reasoning_with_several_summary_parts_round_trips() -> None:
    body = load("request_reasoning_summary_items.json")
    assistant = R.from_messages(body["input"])[1]
    assert len(assistant.reasoning) == 5 and len({p.id for p in assistant.reasoning}) == 1
    assert assistant.reasoning[0].signature and all(p.signature is None for p in assistant.reasoning[1:])
    assert R.to_messages([assistant])[1][0] == body["input"][1]
    assert ChatMessage.from_dict(assistant.to_dict()) == assistant  # and through agentmsg's own JSON


def test_reasoning_before_a_message_pairs_with_the_message_id() -> None:
    events = load("stream_reasoning_text_function_call.json")
    message = run_stream(events)[1].message
    _, items = R.to_messages([message])
    output = events[-1]["response"]["output"]
    assert items[0]["id"] == output[0]["id"] and items[1]["id"] == output[1]["id"] == message.reasoning[0].anchor
    assert items[1]["type"] == "message" and items[1]["content"][0]["text"] == output[1]["content"][0]["text"]
    assert "id" not in items[2]  # the call is not the item that follows the reasoning
    assert R.from_messages(items)[0] == message


def test_other_providers_reasoning_is_not_sent() -> None:
    message = ChatMessage.assistant(
        "Hi",
        reasoning=[
            ReasoningPart("thinking", signature="sig", provider="anthropic"),
            ReasoningPart("local"),
            ReasoningPart(signature="g", provider="gemini", anchor="call_1"),
        ],
    )
    assert R.to_messages([message])[1] == [{"role": "assistant", "content": "Hi"}]


def test_system_prompt_is_instructions_and_later_ones_are_developer_items() -> None:
    instructions, items = R.to_messages([ChatMessage.system("A"), ChatMessage.user("Hi"), ChatMessage.system("B")])
    assert instructions == "A" and items[1] == {"role": "developer", "content": "B"}
    back = R.from_messages(items, instructions)
    assert [m.text for m in back] == ["A", "Hi", "B"] and back[2].role.name == "SYSTEM"


def test_tool_results_with_images_and_errors() -> None:
    png = ImageSource.from_base64("iVBORw0KGgo=", "image/png")
    _, items = R.to_messages([
        ChatMessage.tool("call_1", [TextPart("shot"), ImagePart(png)]),
        ChatMessage.tool("call_2", "boom", is_error=True),
        ChatMessage.tool("call_3", [ImagePart(png)], is_error=True),
    ])
    assert items[0]["output"] == [
        {"type": "input_text", "text": "shot"},
        {"type": "input_image", "image_url": "data:image/png;base64,iVBORw0KGgo=", "detail": "auto"},
    ]
    assert items[1]["output"] == "Error: boom"
    assert items[2]["output"][0] == {"type": "input_text", "text": "Error:"}
    back = R.from_messages(items[:1])[0]
    assert back == ChatMessage.tool("call_1", [TextPart("shot"), ImagePart(png)])
    with pytest.raises(ValidationError) as info:
        R.to_messages([ChatMessage.user([ImagePart(ImageSource.from_path("a.png"))])])
    assert (info.value.path, info.value.code) == ("[0].content[0].source", "unsupported")


def test_tools_always_carry_strict_and_missing_strict_reads_true() -> None:
    tool = ToolDefinition("now", "now", {"type": "object", "properties": {}}, strict=False)
    assert R.to_tools([tool]) == [{"type": "function", "name": "now", "parameters": {"type": "object", "properties": {}}, "strict": False}]
    assert R.from_tools(R.to_tools([tool])) == (tool,)
    strict = R.from_tools([{"type": "function", "name": "f", "parameters": {"type": "object", "properties": {}, "additionalProperties": False}}])
    assert strict[0].strict is True
    with pytest.raises(ValidationError) as info:
        R.from_tools([{"type": "web_search"}])
    assert (info.value.path, info.value.code) == ("[0].type", "unsupported")


@pytest.mark.parametrize(
    "items, path, code",
    [
        ([{"type": "item_reference", "id": "x"}], "[0].type", "unsupported"),
        ([{"role": "user", "content": [{"type": "input_file", "file_id": "f"}]}], "[0].content[0].type", "unsupported"),
        ([{"role": "user", "content": [{"type": "input_image", "file_id": "f"}]}], "[0].content[0].file_id", "unsupported"),
        ([{"type": "function_call", "call_id": "c", "name": "f", "arguments": "{"}], "[0].arguments", "json"),
        ([{"type": "function_call", "name": "f", "arguments": "{}"}], "[0].call_id", "missing"),
        ([{"type": "reasoning", "summary": []}], "[0].id", "missing"),
        ([{"type": "function_call_output", "output": "x"}], "[0].call_id", "missing"),
        ([{"role": "robot", "content": "x"}], "[0].role", "value"),
        ("not a list".encode(), "", "type"),
    ],
)
def test_bad_input_items(items: Any, path: str, code: str) -> None:
    with pytest.raises(ValidationError) as info:
        R.from_messages(items)
    assert (info.value.path, info.value.code) == (path, code)


def test_to_request_contract() -> None:
    with pytest.raises(TypeError):
        R.to_request([ChatMessage.user("Hi")])
    with pytest.raises(TypeError):
        R.to_request([ChatMessage.user("Hi")], model="m", input=[])
    body = R.to_request([ChatMessage.user("Hi")], [], model="m", temperature=None, store=False)
    assert body == {"model": "m", "store": False, "input": [{"role": "user", "content": "Hi"}]}


# -- the official SDK: its types, and its client against a local recording server ------------


@pytest.fixture(scope="module")
def create_params() -> Any:
    pydantic = pytest.importorskip("pydantic")
    params = pytest.importorskip("openai.types.responses.response_create_params")
    return pydantic.TypeAdapter(params.ResponseCreateParamsNonStreaming)


def _conversation() -> list[ChatMessage]:
    png = ImageSource.from_base64("iVBORw0KGgo=", "image/png")
    return [
        ChatMessage.system("Be brief."),
        ChatMessage.user([TextPart("What is in this picture, and the weather?"), ImagePart(png)]),
        ChatMessage.assistant(
            "Checking.",
            [ToolCall("call_1", "get_weather", {"city": "Paris"}), ToolCall("call_2", "now", {})],
            [ReasoningPart("Plan", signature="gAAAA", provider="openai", id="rs_1", anchor="msg_1"),
             ReasoningPart("More", provider="openai", id="rs_1")],
        ),
        ChatMessage.tool("call_1", [TextPart("18 C"), ImagePart(png)]),
        ChatMessage.tool("call_2", "noon", is_error=True),
        ChatMessage.assistant("It is 18 C."),
        ChatMessage.user("Thanks"),
    ]


def _tools() -> list[ToolDefinition]:
    return [
        ToolDefinition("get_weather", "Weather.", {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"], "additionalProperties": False}),
        ToolDefinition("now", "now", {"type": "object", "properties": {}}, strict=False),
    ]


def test_what_agentmsg_builds_passes_the_sdk_types(create_params: Any) -> None:
    bodies = [R.to_request(_conversation(), _tools(), model="gpt-5", include=["reasoning.encrypted_content"], store=False)]
    for name in REQUESTS:
        bodies.append(round_trip(load(name)))
    for body in bodies:
        validated = create_params.validate_python(body)
        # nothing ignored as an unknown key, nothing coerced: the SDK's view is the body itself
        assert create_params.dump_python(validated, mode="json", exclude_unset=True) == body


def test_the_official_client_sends_the_body_unchanged() -> None:
    openai = pytest.importorskip("openai")
    from recording_server import recording_server

    body = R.to_request(_conversation(), _tools(), model="gpt-5", include=["reasoning.encrypted_content"], store=False)
    with recording_server() as server:
        server.reply_json(load("response_reasoning_function_call.json"))
        events = load("stream_reasoning_summary_function_call.json")
        server.reply_sse(events, with_event_names=True)
        client = openai.OpenAI(base_url=server.url + "/v1", api_key="test-key", max_retries=0)
        try:
            result = client.responses.create(**body)
            streamed = list(client.responses.create(**body, stream=True))
        finally:
            client.close()
    first, second = server.requests
    assert first.path == "/v1/responses" and first.json() == body
    assert second.json() == {**body, "stream": True}
    # what the SDK made of the replies reads back as the recorded payloads do
    assert R.parse_response(result.model_dump(mode="json", exclude_unset=True)) == R.parse_response(
        load("response_reasoning_function_call.json")
    )
    _, from_sdk = run_stream([event.model_dump(mode="json", exclude_unset=True) for event in streamed])
    assert from_sdk == run_stream(events)[1]


def test_tool_names_map_to_canonical_names_and_back() -> None:
    tools = R.from_tools([{"type": "function", "name": "get-sum", "parameters": {"type": "object"}, "strict": False}])
    assert tools[0].name == "get_x2d_sum" and R.to_tools(tools)[0]["name"] == "get-sum"
    messages = R.from_messages([{"role": "user", "content": "Add"},
                                {"type": "function_call", "call_id": "c1", "name": "get-sum", "arguments": "{}"}])
    assert messages[1].tool_calls[0].name == "get_x2d_sum"
    assert R.to_messages(messages)[1][1]["name"] == "get-sum"
    with pytest.raises(ValidationError) as info:
        R.from_tools([{"type": "function", "name": "db.query", "parameters": {"type": "object"}, "strict": False}])
    assert (info.value.path, info.value.code) == ("[0].name", "pattern")  # OpenAI's own name rule


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
    expected = "responses_" + name.split("_")[0]
    assert passing and passing[0] == expected, passing


def test_tool_fields_agentmsg_does_not_model_go_back_only_to_responses() -> None:
    from agentmsg.providers import openai

    item = {"type": "function", "name": "lookup", "description": "Look up.", "parameters": {"type": "object", "properties": {}},
            "strict": False, "defer_loading": True}
    (definition,) = R.from_tools([item])
    assert thaw_json(definition.extras) == {"openai_responses": {"defer_loading": True}}
    assert R.to_tools([definition]) == [item]
    assert "defer_loading" not in json.dumps(openai.to_tools([definition]))
    clash = ToolDefinition("lookup", "Look up.", {"type": "object", "properties": {}}, extras={"openai_responses": {"name": "x"}})
    with pytest.raises(ValidationError) as info:
        R.to_tools([clash])
    assert (info.value.path, info.value.code) == ("[0].extras", "unexpected")


def test_system_text_parts_join_with_a_newline() -> None:
    system = ChatMessage(MessageRole.SYSTEM, (TextPart("Be brief."), TextPart("Answer in French.")))
    body = R.to_request([system, ChatMessage.user("Hi"), system], model="m")
    assert body["instructions"] == "Be brief.\nAnswer in French."
    assert body["input"][1] == {"role": "developer", "content": "Be brief.\nAnswer in French."}


# -- each reasoning item goes back right before the item it was paired with ------------------


def _reasoning(n: int) -> dict[str, Any]:
    return {"type": "reasoning", "id": f"rs_{n}", "summary": [{"type": "summary_text", "text": f"Plan {n}"}],
            "encrypted_content": f"gAAAA{n}"}


def _call(n: int) -> dict[str, Any]:
    return {"type": "function_call", "id": f"fc_{n}", "call_id": f"call_{n}", "name": "now", "arguments": "{}", "status": "completed"}


def _message(n: int) -> dict[str, Any]:
    return {"type": "message", "id": f"msg_{n}", "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": f"Text {n}", "annotations": []}]}


# The output orders of one response: rs = reasoning, fc = function_call, msg = message.
ORDERS = {
    "rs fc msg": [_reasoning(1), _call(1), _message(1)],
    "rs msg": [_reasoning(1), _message(1)],
    "rs fc": [_reasoning(1), _call(1)],
    "rs fc fc": [_reasoning(1), _call(1), _call(2)],
    "rs msg fc": [_reasoning(1), _message(1), _call(1)],
    "rs msg fc fc": [_reasoning(1), _message(1), _call(1), _call(2)],
    "rs rs msg": [_reasoning(1), _reasoning(2), _message(1)],
    "rs rs fc fc": [_reasoning(1), _reasoning(2), _call(1), _call(2)],
    "rs fc rs fc": [_reasoning(1), _call(1), _reasoning(2), _call(2)],
    "rs fc rs msg": [_reasoning(1), _call(1), _reasoning(2), _message(1)],
}


def _pairs(items: list[dict[str, Any]]) -> list[tuple[str, str | None]]:
    """Each reasoning item's id with the id of the item right after it."""
    return [
        (item["id"], items[i + 1].get("id") if i + 1 < len(items) else None)
        for i, item in enumerate(items)
        if item.get("type") == "reasoning"
    ]


def _shape(items: list[dict[str, Any]]) -> list[str]:
    return [item.get("type") or "message" for item in items]


@pytest.mark.parametrize("order", sorted(ORDERS))
def test_reasoning_keeps_its_following_item_in_every_output_order(order: str) -> None:
    output = ORDERS[order]
    message = R.parse_response({"object": "response", "status": "completed", "output": output}).message
    _, items = R.to_messages([message])
    assert _pairs(items) == _pairs(output)  # what the API checks: a reasoning item, then its item by id
    assert _shape(items) == _shape(output)
    anchored = {b for _, b in _pairs(output)}
    assert [item.get("id") for item in items if item.get("type") != "reasoning"] == [
        item["id"] if item["id"] in anchored else None for item in output if item["type"] != "reasoning"
    ]  # the other items go without id
    again = R.from_messages(items)
    assert [p for m in again for p in m.reasoning] == list(message.reasoning)
    assert R.to_messages(again)[1] == items  # and the second trip changes nothing


def test_the_order_reasoning_between_calls_cannot_keep() -> None:
    """One message holds a response's calls in order but not where a reasoning item sat among them."""
    output = [_reasoning(1), _call(1), _call(2), _reasoning(2), _call(3)]
    message = R.parse_response({"object": "response", "status": "completed", "output": output}).message
    _, items = R.to_messages([message])
    assert _shape(items) == ["reasoning", "function_call", "reasoning", "function_call", "function_call"]
    assert [item.get("id") for item in items] == ["rs_1", "fc_1", "rs_2", "fc_3", None]  # fc_3's id on call_2


def test_the_recorded_refusal_is_the_shape_to_messages_never_builds() -> None:
    """The API's 400: a reasoning item followed by an assistant message without the item's id."""
    refused = load("response_error_400_reasoning_item.json")["error"]["message"]
    assert "without its required following item" in refused
    output = [_reasoning(1), _call(1), _message(1)]
    history = [ChatMessage.user("Hi"), R.parse_response({"status": "completed", "output": output}).message,
               ChatMessage.tool("call_1", "noon")]
    _, items = R.to_messages(history)
    assert items[1]["type"] == "reasoning" and items[2] == {k: v for k, v in _call(1).items() if k != "status"}


def test_the_official_client_sends_each_order_as_built_and_reads_it_back() -> None:
    openai = pytest.importorskip("openai")
    from recording_server import recording_server

    with recording_server() as server:
        client = openai.OpenAI(base_url=server.url + "/v1", api_key="test-key", max_retries=0)
        try:
            for order, output in sorted(ORDERS.items()):
                server.reply_json({"id": "resp_1", "object": "response", "created_at": 0, "status": "completed",
                                   "model": "gpt-5", "output": output, "parallel_tool_calls": True, "tool_choice": "auto",
                                   "tools": []})
                reply = client.responses.create(model="gpt-5", input="Hi")
                message = R.parse_response(reply).message
                body = R.to_request([ChatMessage.user("Hi"), message], model="gpt-5", store=False)
                server.reply_json(load("response_text.json"))
                client.responses.create(**body)
                sent = server.requests[-1].json()
                assert sent == body, order
                assert _pairs(sent["input"][1:]) == _pairs(output), order
        finally:
            client.close()
