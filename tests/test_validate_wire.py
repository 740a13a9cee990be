"""The validator's provider kinds refuse what the providers' APIs refuse.

Each case is a request the API answers 400 for (the lenient codecs would read it); the
validator reports it with the path and the provider's rule.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from agentmsg import ChatMessage, ToolCall
from agentmsg.providers import anthropic, ollama, openai
from agentmsg.validate._registry import KINDS
from agentmsg.validate._rules import problems_of

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="


def problems(kind: str, doc: Any) -> list[tuple[str, str]]:
    return [(getattr(e, "path", ""), e.code) for e in problems_of(KINDS[kind].check, doc)]


def tool_conversation() -> list[ChatMessage]:
    return [
        ChatMessage.system("Be brief."),
        ChatMessage.user("Weather?"),
        ChatMessage.assistant(tool_calls=[ToolCall("call_1", "get_weather", {"city": "Oslo"})]),
        ChatMessage.tool("call_1", "4 C"),
    ]


def openai_body() -> dict[str, Any]:
    return openai.to_request(tool_conversation(), model="gpt-4o")


def anthropic_body() -> dict[str, Any]:
    return anthropic.to_request(tool_conversation(), model="claude", max_tokens=100)


def ollama_body() -> dict[str, Any]:
    return ollama.to_request(tool_conversation(), model="llama3.2")


def test_the_bodies_agentmsg_builds_are_valid() -> None:
    assert problems("openai_request", openai_body()) == []
    assert problems("anthropic_request", anthropic_body()) == []
    assert problems("ollama_request", ollama_body()) == []


def edit(body: dict[str, Any], change: Any) -> dict[str, Any]:
    body = copy.deepcopy(body)
    change(body)
    return body


def openai_call(body: dict[str, Any]) -> dict[str, Any]:
    return body["messages"][2]["tool_calls"][0]  # type: ignore[no-any-return]


OPENAI_CASES = {
    "arguments as an object": (
        lambda b: openai_call(b)["function"].update(arguments={"city": "Oslo"}),
        ("messages[2].tool_calls[0].function.arguments", "type"),
    ),
    "no type on a tool call": (lambda b: openai_call(b).pop("type"), ("messages[2].tool_calls[0].type", "missing")),
    "no arguments": (lambda b: openai_call(b)["function"].pop("arguments"), ("messages[2].tool_calls[0].function.arguments", "missing")),
    "unknown role": (lambda b: b["messages"][1].update(role="human"), ("messages[1].role", "value")),
    "tool message without tool_call_id": (lambda b: b["messages"][3].pop("tool_call_id"), ("messages[3].tool_call_id", "missing")),
    "an image in a tool message": (
        lambda b: b["messages"][3].update(content=[{"type": "image_url", "image_url": {"url": "https://x.org/a.png"}}]),
        ("messages[3].content[0].type", "value"),
    ),
    "an image in a system message": (
        lambda b: b["messages"][0].update(content=[{"type": "image_url", "image_url": {"url": "https://x.org/a.png"}}]),
        ("messages[0].content[0].type", "value"),
    ),
    "no model": (lambda b: b.pop("model"), ("model", "missing")),
}


@pytest.mark.parametrize("case", OPENAI_CASES)
def test_openai_request_refused_as_the_api_refuses_it(case: str) -> None:
    change, expected = OPENAI_CASES[case]
    body = edit(openai_body(), change)
    assert expected in problems("openai_request", body)


def test_openai_strict_checks_keep_the_codecs_lenient() -> None:
    # vLLM sends calls without "type": the codec reads them, the validator says OpenAI refuses them
    body = edit(openai_body(), lambda b: openai_call(b).pop("type"))
    assert openai.from_messages(body["messages"])[2].tool_calls[0].name == "get_weather"


def test_openai_developer_request_is_valid_both_ways() -> None:
    body = openai.to_request(tool_conversation(), model="o3", system_role="developer")
    assert body["messages"][0]["role"] == "developer"
    assert problems("openai_request", body) == []
    assert openai.from_messages(body["messages"]) == tuple(tool_conversation())
    bad = edit(body, lambda b: b["messages"][0].update(content=[{"type": "image_url", "image_url": {"url": "u"}}]))
    assert ("messages[0].content[0].type", "value") in problems("openai_request", bad)


def anthropic_tool_use(body: dict[str, Any]) -> dict[str, Any]:
    return body["messages"][1]["content"][0]  # type: ignore[no-any-return]


ANTHROPIC_CASES = {
    "tool_result outside a user turn": (
        lambda b: b["messages"][1]["content"].append({"type": "tool_result", "tool_use_id": "call_1", "content": "x"}),
        ("messages[1].content[1].type", "value"),
    ),
    "input that is not an object": (
        lambda b: anthropic_tool_use(b).update(input='{"city": "Oslo"}'),
        ("messages[1].content[0].input", "type"),
    ),
    "missing max_tokens": (lambda b: b.pop("max_tokens"), ("max_tokens", "missing")),
    "tool_use without a following tool_result": (
        lambda b: b["messages"].pop(),
        ("messages[1].content[0].id", "value"),
    ),
    "tool_result answering nothing": (
        lambda b: b["messages"][2]["content"][0].update(tool_use_id="toolu_other"),
        ("messages[2].content[0].tool_use_id", "value"),
    ),
    "text before tool_result": (
        lambda b: b["messages"][2]["content"].insert(0, {"type": "text", "text": "Here:"}),
        ("messages[2].content[1]", "value"),
    ),
    "a system role in messages": (lambda b: b["messages"].insert(0, {"role": "system", "content": "x"}), ("messages[0].role", "value")),
    "empty text in the middle": (
        lambda b: b["messages"].insert(1, {"role": "assistant", "content": ""}),
        ("messages[1].content", "value"),
    ),
}


@pytest.mark.parametrize("case", ANTHROPIC_CASES)
def test_anthropic_request_refused_as_the_api_refuses_it(case: str) -> None:
    change, expected = ANTHROPIC_CASES[case]
    assert expected in problems("anthropic_request", edit(anthropic_body(), change))


def test_anthropic_empty_final_assistant_is_allowed() -> None:
    body = edit(anthropic_body(), lambda b: b["messages"].append({"role": "assistant", "content": ""}))
    assert ("messages[3].content", "value") not in problems("anthropic_request", body)
    assert problems("anthropic_request", anthropic.to_request([ChatMessage.user("Hi"), ChatMessage.assistant("")],
                                                              model="claude", max_tokens=5)) == []


OLLAMA_CASES = {
    "arguments as a string": (
        lambda b: b["messages"][2]["tool_calls"][0]["function"].update(arguments='{"city": "Oslo"}'),
        ("messages[2].tool_calls[0].function.arguments", "type"),
    ),
    "images not base64": (lambda b: b["messages"][1].update(images=["https://x.org/cat.png"]), ("messages[1].images[0]", "pattern")),
    "a data: URL image": (lambda b: b["messages"][1].update(images=[f"data:image/png;base64,{PNG}"]), ("messages[1].images[0]", "pattern")),
    "content as parts": (lambda b: b["messages"][1].update(content=[{"type": "text", "text": "Hi"}]), ("messages[1].content", "type")),
    "unknown role": (lambda b: b["messages"][1].update(role="human"), ("messages[1].role", "value")),
}


@pytest.mark.parametrize("case", OLLAMA_CASES)
def test_ollama_request_refused_as_the_api_refuses_it(case: str) -> None:
    change, expected = OLLAMA_CASES[case]
    assert expected in problems("ollama_request", edit(ollama_body(), change))


def test_ollama_base64_images_are_valid() -> None:
    body = edit(ollama_body(), lambda b: b["messages"][1].update(images=[PNG]))
    assert problems("ollama_request", body) == []


def test_strict_and_lenient_problems_are_both_reported() -> None:
    body = openai_body()
    openai_call(body)["function"]["arguments"] = {"city": "Oslo"}  # strict: the API's rule
    body["messages"][1]["content"] = 5  # lenient: the codec's rule, elsewhere
    found = problems("openai_request", body)
    assert ("messages[2].tool_calls[0].function.arguments", "type") in found
    assert any(path.startswith("messages[1].content") for path, _ in found)


# -- new kinds, detected automatically where unambiguous ----------------------------------------

import json  # noqa: E402
from pathlib import Path  # noqa: E402

from agentmsg.validate import main  # noqa: E402
from agentmsg.validate._registry import candidates  # noqa: E402

MCP = Path(__file__).parent / "data" / "provider-fixtures" / "mcp"


def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str], doc: Any, *options: str, name: str = "doc.json") -> tuple[int, str]:
    path = tmp_path / name
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc), encoding="utf-8")
    status = main([*options, str(path)])
    return status, capsys.readouterr().out.replace(str(path), "F")


def detected(doc: Any) -> str:
    return candidates(doc)[0].name if len(candidates(doc)) == 1 else ",".join(k.name for k in candidates(doc))


def test_a_bare_openai_messages_array_is_detected_and_checked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = openai.to_messages(tool_conversation())
    assert [k.name for k in candidates(log)] == ["conversation", "openai_messages"]
    status, out = cli(tmp_path, capsys, log)
    assert status == 0, out
    openai_call({"messages": log})["function"]["arguments"] = {"city": "Oslo"}
    status, out = cli(tmp_path, capsys, log)
    assert status == 1
    assert "F:1: $: checked as openai_messages; also tried conversation" in out
    assert "$[2].tool_calls[0].function.arguments: expected a JSON string, got object (OpenAI: arguments are JSON text)" in out
    # order is checked too: two user turns in a row
    log = openai.to_messages([ChatMessage.user("Hi")]) * 2 + [{"role": "developer", "content": "x"}]
    assert "$[1]: user and assistant messages must alternate" in cli(tmp_path, capsys, log)[1]
    # a plain {role, content} array is agentmsg's own conversation: no ambiguity to report
    assert [k.name for k in candidates([{"role": "user", "content": "Hi"}])] == ["conversation"]


def test_vllm_messages_fixture_is_detected_as_openai_messages(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = json.loads((MCP.parent / "vllm" / "messages_with_parallel_tool_response.json").read_text())
    assert [k.name for k in candidates(doc)] == ["conversation", "openai_messages"]
    assert KINDS["conversation"].check is not None and problems("conversation", doc)  # not agentmsg's shape
    assert problems("openai_messages", doc) == []
    assert cli(tmp_path, capsys, doc)[0] == 0
    doc[1]["tool_calls"][0].pop("type")
    status, out = cli(tmp_path, capsys, doc)
    assert status == 1 and 'F:1: $: checked as openai_messages' in out
    assert '$[1].tool_calls[0].type: is required (OpenAI: "type": "function")' in out


TOOL_OPENAI = {"type": "function", "function": {"name": "now", "description": "Time.", "parameters": {"type": "object", "properties": {}}}}
TOOL_ANTHROPIC = {"name": "now", "description": "Time.", "input_schema": {"type": "object", "properties": {}}}


def test_tool_definitions_in_each_providers_shape(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert detected(TOOL_OPENAI) == "openai_tool"  # the Ollama kinds: --kind only
    assert detected([TOOL_OPENAI]) == "openai_tools,anthropic_stream"  # [{type}]
    assert detected(TOOL_ANTHROPIC) == "anthropic_tool"
    assert detected([TOOL_ANTHROPIC]) == "anthropic_tools"
    for doc in (TOOL_OPENAI, [TOOL_OPENAI], TOOL_ANTHROPIC, [TOOL_ANTHROPIC]):
        assert cli(tmp_path, capsys, doc)[0] == 0
    bad = copy.deepcopy(TOOL_ANTHROPIC)
    bad["input_schema"] = "object"
    status, out = cli(tmp_path, capsys, [TOOL_ANTHROPIC, bad])
    assert status == 1 and "$[1].input_schema: expected an object (a JSON Schema), got string" in out
    status, out = cli(tmp_path, capsys, {"type": "function", "function": {"description": "x"}}, "--kind", "ollama_tool")
    assert status == 1 and "$.function.name: is required" in out


def test_closest_kind_is_the_one_the_document_most_resembles(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out = cli(tmp_path, capsys, {"function": {"name": "now", "parameters": {"type": "object"}}})
    assert status == 1
    assert "closest: openai_tool ($.type: is required" in out
    assert "closest: chat_message" not in out
    status, out = cli(tmp_path, capsys, {"jsonrpc": "2.0", "params": {}})
    assert "closest: mcp_" in out


@pytest.mark.parametrize("path", sorted(p for p in MCP.glob("*.json") if "jsonrpc" in p.read_text()), ids=lambda p: p.name)
def test_mcp_spec_examples_are_detected_and_valid(path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = json.loads(path.read_text())
    kind = detected(doc)
    assert kind == ("mcp_request" if "method" in doc else "mcp_error" if "error" in doc else "mcp_result")
    assert cli(tmp_path, capsys, doc)[0] == 0


MCP_CASES = [
    ({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                                                                     "clientInfo": {"name": "agentmsg"}}},
     "mcp_request", "$.params.clientInfo.version: is required"),
    ({"jsonrpc": "2.0", "id": None, "method": "tools/list"}, "mcp_request", "$.id: is required"),
    ({"jsonrpc": "1.0", "id": 3, "method": "tools/call", "params": {"name": "now", "arguments": "{}"}},
     "mcp_request", "$.jsonrpc: must be \"2.0\""),
    ({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"arguments": {}}}, "mcp_request", "$.params.name: is required"),
    ({"jsonrpc": "2.0", "id": 4, "result": {"tools": [{"name": "now", "inputSchema": {"type": "string"}}]}},
     "mcp_result", "$.result.tools[0].inputSchema.type: must be \"object\""),
    ({"jsonrpc": "2.0", "id": 4, "result": {"content": [{"type": "image", "data": "not base64!", "mimeType": "image/png"}]}},
     "mcp_result", "$.result.content[0].data: must be base64"),
    ({"jsonrpc": "2.0", "id": 4, "result": {"contents": [{"uri": "file:///a", "text": "x", "blob": "eA=="}]}},
     "mcp_result", "$.result.contents[0]: resource contents hold text or blob, exactly one"),
    ({"jsonrpc": "2.0", "id": 5, "error": {"code": "-32602", "message": "bad"}}, "mcp_error", "$.error.code: expected an integer"),
    ({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {}}, "mcp_notification", "$.params.requestId: is required"),
]


@pytest.mark.parametrize(("doc", "kind", "problem"), MCP_CASES, ids=[c[2].split(":")[0] for c in MCP_CASES])
def test_mcp_messages_refused_by_the_spec(doc: Any, kind: str, problem: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert detected(doc) == kind
    status, out = cli(tmp_path, capsys, doc)
    assert status == 1 and problem in out, out


def test_mcp_notification_and_valid_results(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for doc in (
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": "2025-11-25", "capabilities": {},
                                               "serverInfo": {"name": "s", "version": "1"}}},
        {"jsonrpc": "2.0", "id": 2, "result": {"content": [{"type": "text", "text": "12:00"}], "isError": False}},
        {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}},
    ):
        assert cli(tmp_path, capsys, doc)[0] == 0, doc


# -- --conversation: the lines of a JSON Lines file are one conversation ----------------------


def test_conversation_option_checks_the_order_across_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"},
             {"role": "user", "content": "Hi again"},
             {"role": "assistant", "tool_calls": [{"id": "c1", "name": "now", "arguments": {}}]}]
    text = "".join(json.dumps(line) + "\n" for line in lines)
    status, out = cli(tmp_path, capsys, text, name="chat.jsonl")
    assert status == 0 and out.endswith("4 documents, 4 valid (4 chat_message), 0 invalid\n")  # each line alone is fine
    status, out = cli(tmp_path, capsys, text, "--conversation", name="chat.jsonl")
    assert status == 1
    assert out.splitlines() == [
        "F:3: $: user and assistant messages must alternate: expected an assistant message [conversation]",
        "F:4: $: tool calls left unanswered: 1 call [conversation]",
        "1 document, 0 valid, 1 invalid",
    ]
    good = lines[:2] + lines[3:] + [{"role": "tool", "tool_call_id": "c1", "content": "12:00"}]
    status, out = cli(tmp_path, capsys, "".join(json.dumps(line) + "\n" for line in good), "--conversation", name="ok.jsonl")
    assert (status, out) == (0, "1 document, 1 valid (1 conversation), 0 invalid\n")


def test_conversation_option_reports_bad_lines_where_they_are(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = '{"role": "user", "content": "Hi"}\n\n{"role": "assistant", "content": 5}\n{"role":\n'
    status, out = cli(tmp_path, capsys, text, "--conversation", name="chat.jsonl")
    assert status == 1
    assert "F:3: $.content: expected a string or an array of content parts, got number" in out.replace(
        "expected a string or an array of parts", "expected a string or an array of content parts") or "F:3: $.content" in out
    assert "F:4: $: not valid JSON" in out
    status, out = cli(tmp_path, capsys, "\n\n", "--conversation", name="empty.jsonl")
    assert status == 1 and "empty input" in out
