"""``python -m agentmsg.validate`` tells the whole truth: the kind that accepted each document, every
independent problem of it, the fields no reader knows, error bodies, and big arrays in little memory.

Each defect found by real files, fuzzing and planted bugs has its regression test here, named after
it. Most run ``main()`` in-process; the memory test runs the real command in a child.
"""

from __future__ import annotations

import contextlib
import io
import json
import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agentmsg.validate import main
from agentmsg.validate._registry import KINDS, candidates

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).parent / "data"
FIXTURES = DATA / "provider-fixtures"
ERRORS = DATA / "validate" / "error-bodies"
SYSTEM = {"role": "system", "content": "Be brief."}
USER = {"role": "user", "content": "Weather in Paris?"}


def run(tmp_path: Path, doc: Any, *options: str, name: str = "doc.json", raw: bool = False) -> tuple[int, str]:
    """Run ``main`` on ``doc`` written to a file (JSON, or the text itself with ``raw``); return status and stdout."""
    path = tmp_path / name
    if isinstance(doc, bytes):
        path.write_bytes(doc)
    else:
        path.write_text(doc if raw else json.dumps(doc, indent=1), encoding="utf-8")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = main([*options, str(path)])
    return status, out.getvalue().replace(str(path), "F")


def report(tmp_path: Path, doc: Any, *options: str, name: str = "doc.json", raw: bool = False) -> dict[str, Any]:
    status, out = run(tmp_path, doc, "--format", "json", *options, name=name, raw=raw)
    found: dict[str, Any] = json.loads(out)
    found["status"] = status
    return found


# -- auto-detection never falls back to the Ollama kinds; every report names the kind --------

WEATHER = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
BAD_NAME_TOOL = {"type": "function", "function": {"name": "get current weather!", "parameters": WEATHER}}
STRICT_TOOL = {"type": "function", "function": {"name": "get_weather", "strict": True, "parameters": WEATHER}}
REQUEST_ARGUMENTS_OBJECT = {"model": "gpt-4o", "messages": [USER, {"role": "assistant", "tool_calls": [
    {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": {"city": "Paris"}}}]},
    {"role": "tool", "tool_call_id": "call_1", "content": "18 C"}]}
REQUEST_TOOL_WITHOUT_ID = {"model": "gpt-4o", "messages": [USER, {"role": "assistant", "tool_calls": [
    {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}]},
    {"role": "tool", "content": "18 C"}]}
REQUEST_TOOL_WITHOUT_ID["messages"][1]["tool_calls"][0]["function"]["arguments"] = {"city": "Paris"}  # Ollama's way


@pytest.mark.parametrize("doc, kind, ollama, problem", [
    (BAD_NAME_TOOL, "openai_tool", "ollama_tool", "$.function.name"),
    (REQUEST_ARGUMENTS_OBJECT, "openai_request", "ollama_request", "$.messages[1].tool_calls[0].function.arguments"),
    (REQUEST_TOOL_WITHOUT_ID, "openai_request", "ollama_request", "$.messages[2].tool_call_id"),
    (STRICT_TOOL, "openai_tool", "ollama_tool", "$.function.parameters.additionalProperties"),
], ids=["a tool name with spaces", "arguments as an object", "a tool message without tool_call_id",
        "strict without additionalProperties false"])
def test_auto_detection_never_passes_a_broken_openai_document_as_an_ollama_one(
    tmp_path: Path, doc: Any, kind: str, ollama: str, problem: str
) -> None:
    assert ollama not in [k.name for k in candidates(doc)]
    found = report(tmp_path, doc)
    assert (found["status"], found["valid"], found["accepted"]) == (1, 0, {})
    assert problem in [p["path"] for p in found["problems"]]
    assert {p["kind"] for p in found["problems"]} == {kind}
    status, out = run(tmp_path, doc, "--kind", ollama)  # what Ollama itself takes: only when asked
    assert (status, out.splitlines()[-1]) == (0, f"1 document, 1 valid (1 {ollama}), 0 invalid")
    assert all("warning: unknown field" in line for line in out.splitlines()[:-1])  # OpenAI keys ollama's types lack


def test_every_report_names_the_kind_that_accepted_a_document(tmp_path: Path) -> None:
    lines = [json.dumps(doc) for doc in (USER, USER, STRICT_TOOL, {**STRICT_TOOL, "function": {
        **STRICT_TOOL["function"], "parameters": {**WEATHER, "additionalProperties": False}}}, {"role": "robot"})]
    status, out = run(tmp_path, "\n".join(lines), name="log.jsonl", raw=True)
    assert status == 1
    assert out.splitlines() == [
        "F:3: $.function.parameters.additionalProperties: strict tools need additionalProperties: false on every "
        "object schema (or pass strict=False) [openai_tool]",
        "F:5: $.role: expected one of 'system', 'user', 'assistant', 'tool' [chat_message]",
        "5 documents, 3 valid (2 chat_message, 1 openai_tool), 2 invalid",
    ]
    found = report(tmp_path, "\n".join(lines), name="log.jsonl", raw=True)
    assert found["accepted"] == {"chat_message": 2, "openai_tool": 1}
    assert [p["kind"] for p in found["problems"]] == ["openai_tool", "chat_message"]


def test_the_ollama_kinds_are_listed_as_chosen_with_kind_only() -> None:
    chosen = ("ollama_request", "ollama_tool", "ollama_tools", "openai_finetune", "hf_chat")
    for name in chosen:
        assert not KINDS[name].auto and "(--kind only)" in KINDS[name].summary
    assert all(kind.auto for name, kind in KINDS.items() if name not in chosen)


# -- --conversation resynchronises after an order error -----------------------------------------

WITHOUT_SYSTEM = [USER, {"role": "assistant", "tool_calls": [{"id": "c1", "name": "weather", "arguments": {}}]},
                  {"role": "tool", "tool_call_id": "c9", "content": "18 C"},
                  {"role": "tool", "tool_call_id": "c1", "content": "18 C"},
                  {"role": "assistant", "content": "Mild."}, {"role": "user", "content": "Thanks"}]


def test_conversation_option_repeats_system_first_on_no_later_line_and_reports_the_real_errors(tmp_path: Path) -> None:
    text = "".join(json.dumps(message) + "\n" for message in WITHOUT_SYSTEM)
    status, out = run(tmp_path, text, "--conversation", name="chat.jsonl", raw=True)
    assert status == 1
    assert out.splitlines() == [
        "F:1: $: the first message must be a system message (ConversationHistory(require_system=False) allows a "
        "conversation without one) [conversation]",
        "F:3: $: tool message must answer a pending tool call: unknown or already answered tool_call_id [conversation]",
        "1 document, 0 valid, 1 invalid",
    ]


@pytest.mark.parametrize("how", ["whole", "streamed"])
def test_a_conversation_document_resynchronises_as_the_option_does(tmp_path: Path, how: str,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    if how == "streamed":
        monkeypatch.setattr("agentmsg.validate._big_document._STREAM_MIN", 0)
    found = report(tmp_path, WITHOUT_SYSTEM)
    assert [(p["path"], p["code"]) for p in found["problems"]] == [("$[0]", "system_first"), ("$[2]", "tool_unknown")]


def test_an_invalid_message_leaves_the_order_unknown_until_the_next_user_or_assistant_message(tmp_path: Path) -> None:
    # The broken assistant message may have held the call the tool messages answer: they are not
    # order errors; from the next user message on, the order is checked again.
    doc = [SYSTEM, USER, {"role": "assistant", "tool_calls": [{"id": "c1", "name": "bad name", "arguments": {}}]},
           {"role": "tool", "tool_call_id": "c1", "content": "18 C"}, {"role": "user", "content": "And Oslo?"},
           {"role": "user", "content": "Hello?"}]
    found = report(tmp_path, doc)
    assert [(p["path"], p["code"]) for p in found["problems"]] == [
        ("$[2].tool_calls[0].name", "pattern"), ("$[5]", "alternate")]


# -- every independent problem, unknown fields as warnings ------------------------------------

FOUR_DEFECTS = [USER, {"role": "assistant", "content": 5},
                {"role": "user", "content": "Again?"},
                {"role": "assistant", "tool_calls": [{"id": "c1", "name": "weather", "arguments": {}}]},
                {"role": "tool", "tool_call_id": "c1", "content": "18 C", "extra": True},
                {"role": "tool", "tool_call_id": "c2", "content": "4 C"},
                {"role": "assistant", "content": "Done."}]


def test_a_conversation_with_four_defects_reports_all_four_in_one_run(tmp_path: Path) -> None:
    status, out = run(tmp_path, FOUR_DEFECTS)
    assert status == 1
    assert [line.split(": ", 1)[1].split(":")[0] for line in out.splitlines()[:-1]] == [
        "$[0]", "$[1].content", "$[5]", "$[4].extra"]
    assert "$[4].extra: warning: unknown field, ignored by agentmsg [conversation]" in out


def test_an_unknown_key_is_a_warning_and_strict_makes_it_an_error(tmp_path: Path) -> None:
    doc = {"role": "user", "content": "Hi", "extra": 1, "content_parts": []}
    status, out = run(tmp_path, doc)
    assert (status, out.splitlines()) == (0, [
        "F:4: $.extra: warning: unknown field, ignored by agentmsg [chat_message]",
        "F:5: $.content_parts: warning: unknown field, ignored by agentmsg [chat_message]",
        "1 document, 1 valid (1 chat_message), 0 invalid"])
    found = report(tmp_path, doc, "--strict")
    assert (found["status"], found["valid"], found["invalid"]) == (1, 0, 1)
    assert [(p["path"], p["code"], p["severity"]) for p in found["problems"]] == [
        ("$.extra", "unexpected", "error"), ("$.content_parts", "unexpected", "error")]
    assert run(tmp_path, USER, "--strict")[0] == 0


def test_unknown_keys_are_reported_for_the_kinds_docs_validate_names(tmp_path: Path) -> None:
    docs = " ".join((ROOT / "docs" / "validate.md").read_text(encoding="utf-8").split())
    named = docs[docs.index("The kinds of agentmsg's own documents are looked at"):].split(";", 1)[0]
    assert {name for name, kind in KINDS.items() if kind.fields is not None} == set(re.findall(r"`(\w+)`", named))
    message = {"role": "user", "content": "Hi", "extra": 1}
    assert run(tmp_path, message)[1].splitlines()[0] == "F:4: $.extra: warning: unknown field, ignored by agentmsg [chat_message]"
    assert run(tmp_path, {"model": "gpt-4o", "messages": [message]}) == (0, "F:7: $.messages[0].extra: warning: unknown "
                                                                         "field, ignored by agentmsg [openai_request]\n"
                                                                         "1 document, 1 valid (1 openai_request), 0 invalid\n")
    assert run(tmp_path, {"model": "gpt-4o", "messages": [message]}, "--strict")[0] == 1

def test_strict_makes_every_warning_an_error(tmp_path: Path) -> None:
    tool = {"name": "wordy", "description": "x" * 2000, "parameters": {"type": "object"}}
    assert run(tmp_path, tool)[0] == 0
    status, out = run(tmp_path, tool, "--strict")
    assert status == 1 and "warning:" not in out and "description is 2000 characters" in out


def test_an_unknown_field_inside_a_wrong_value_is_not_reported(tmp_path: Path) -> None:
    # An image part in an assistant message is wrong already; its source is no typo.
    doc = [SYSTEM, USER, {"role": "assistant", "content": [{"type": "image", "source": {"type": "url",
                                                                                        "url": "https://a.example/b.png"}}]}]
    found = report(tmp_path, doc)
    assert [(p["path"], p["code"]) for p in found["problems"]] == [("$[2].content[0]", "value")]


def test_a_document_shows_its_first_20_problems_and_counts_the_rest(tmp_path: Path) -> None:
    doc = [SYSTEM] + [{"role": "user", "content": i} for i in range(25)]
    status, out = run(tmp_path, doc)
    lines = out.splitlines()
    assert status == 1 and len(lines) == 22
    assert lines[-2] == "F:1: $: note: 5 more problems in this document (the first 20 are shown) [conversation]"
    found = report(tmp_path, doc)
    assert found["problems"][-1] == {"file": "F", "line": 1, "column": 1, "path": "$", "code": "more",
                                     "message": "5 more problems in this document (the first 20 are shown)",
                                     "kind": "conversation", "severity": "note"}


def test_each_tool_of_a_provider_tools_array_reports_its_problem(tmp_path: Path) -> None:
    tools = [BAD_NAME_TOOL, STRICT_TOOL, {"type": "function", "function": {"name": "ok", "parameters": WEATHER}},
             {"type": "function", "function": {"name": "also bad"}}]
    found = report(tmp_path, tools)
    assert [p["path"] for p in found["problems"] if p["code"] != "unknown"] == [
        "$[0].function.name", "$[1].function.parameters.additionalProperties", "$[3].function.name"]


def test_a_request_reports_every_message_and_every_tool(tmp_path: Path) -> None:
    body = {"model": "gpt-4o", "messages": [USER, {"role": "user", "content": 5},
                                            {"role": "assistant", "content": "x", "tool_calls": "nope"}],
            "tools": [BAD_NAME_TOOL, STRICT_TOOL]}
    found = report(tmp_path, body)
    assert [p["path"] for p in found["problems"]] == [
        "$.messages[1].content", "$.messages[2].tool_calls", "$.tools[0].function.name",
        "$.tools[1].function.parameters.additionalProperties"]


def test_duplicate_tool_names_are_reported_beside_invalid_definitions(tmp_path: Path) -> None:
    tool = {"name": "now", "description": "The time.", "parameters": {"type": "object"}}
    found = report(tmp_path, [tool, {"name": "broken", "parameters": {"type": "object"}}, tool])
    assert [(p["path"], p["code"]) for p in found["problems"]] == [("$[1].description", "missing"), ("$[2].name", "unique")]


def test_mcp_initialize_with_params_not_an_object_is_one_problem(tmp_path: Path) -> None:
    found = report(tmp_path, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": "2025-11-25"})
    assert [(p["path"], p["code"]) for p in found["problems"]] == [("$.params", "type")]
    found = report(tmp_path, {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": [1]})
    assert [(p["path"], p["code"]) for p in found["problems"]] == [("$.params", "type")]


# -- error bodies and MCP resource contents are kinds of their own ----------------------------

ERROR_BODIES = [
    (ERRORS / "openai_chat_error_400_web_search_options.json", "openai_error"),
    (FIXTURES / "openai-responses" / "response_error_400_invalid_param.json", "openai_error"),
    (FIXTURES / "openai-responses" / "response_error_400_reasoning_item.json", "openai_error"),
    (ERRORS / "anthropic_error_404_not_found.json", "anthropic_error"),
    (FIXTURES / "gemini" / "response_error_400_invalid_argument.json", "gemini_error"),
    (FIXTURES / "gemini" / "response_error_404_not_found.json", "gemini_error"),
    (FIXTURES / "mcp" / "2025-11-25_text_resource_contents.json", "mcp_resource_contents"),
    (FIXTURES / "mcp" / "2026-07-28_text_resource_contents.json", "mcp_resource_contents"),
    (FIXTURES / "mcp" / "2026-07-28_blob_resource_contents_png.json", "mcp_resource_contents"),
]


@pytest.mark.parametrize("path, kind", ERROR_BODIES, ids=lambda value: getattr(value, "stem", value))
def test_provider_error_bodies_and_resource_contents_are_kinds(path: Path, kind: str, tmp_path: Path) -> None:
    status, out = run(tmp_path, path.read_bytes())
    assert (status, out) == (0, f"1 document, 1 valid (1 {kind}), 0 invalid\n")


def test_an_openai_429_insufficient_quota_body_is_an_openai_error(tmp_path: Path) -> None:
    # The error object of the recorded stream's `error` event is the one a 429 body holds.
    events = json.loads((FIXTURES / "openai-responses" / "stream_error_insufficient_quota.json").read_bytes())
    error = next(event["error"] for event in events if event["type"] == "error")
    assert error["code"] == "insufficient_quota"
    assert run(tmp_path, {"error": error}) == (0, "1 document, 1 valid (1 openai_error), 0 invalid\n")


def test_the_spec_placeholder_blob_is_not_base64(tmp_path: Path) -> None:
    status, out = run(tmp_path, (FIXTURES / "mcp" / "2025-11-25_blob_resource_contents.json").read_bytes())
    assert (status, out.splitlines()[0]) == (1, "F:4: $.blob: must be base64 (MCP) [mcp_resource_contents]")


@pytest.mark.parametrize("doc, kind, problem", [
    ({"error": {"message": "Bad.", "param": 3, "code": None}}, "openai_error",
     ["$.error.type", "$.error.param"]),
    ({"type": "error", "error": {"type": "overloaded_error"}}, "anthropic_error", ["$.error.message"]),
    ({"error": {"code": "404", "message": "Not found.", "status": "NOT_FOUND"}}, "gemini_error", ["$.error.code"]),
    ({"uri": "file:///a.txt", "text": "a", "blob": "YQ=="}, "mcp_resource_contents", ["$"]),
])
def test_broken_error_bodies_are_reported_in_the_providers_terms(tmp_path: Path, doc: Any, kind: str,
                                                                  problem: list[str]) -> None:
    found = report(tmp_path, doc)
    errors = [p for p in found["problems"] if p["code"] != "unknown"]
    assert found["status"] == 1 and [p["path"] for p in errors] == problem and {p["kind"] for p in errors} == {kind}


def test_jsonl_of_random_bytes_prints_at_most_max_problems_lines_then_a_summary(tmp_path: Path) -> None:
    noise = random.Random(7).randbytes(200_000)
    status, out = run(tmp_path, noise, "--jsonl", name="noise.bin")
    lines = out.splitlines()
    documents = int(lines[-1].split()[0])
    assert status == 1 and documents > 500 and len(lines) == 102
    assert lines[-2] == f"F: note: {documents - 100} more problems in this file (--max-problems 100 are shown)"
    assert len(run(tmp_path, noise, "--jsonl", "--max-problems", "0", name="noise.bin")[1].splitlines()) == documents + 1
    assert len(run(tmp_path, noise, "--jsonl", "--max-problems", "3", name="noise.bin")[1].splitlines()) == 5


# -- one big document: memory near what json.load needs ---------------------------------------

PEAK = """
import sys
sys.path.insert(0, sys.argv[1])
if sys.argv[2] == "json.load":
    import json
    with open(sys.argv[3], "rb") as f:
        doc = json.load(f)
    status = 0
else:
    from agentmsg.validate import main
    status = main(["--quiet", sys.argv[3]])
print([line for line in open("/proc/self/status") if line.startswith("VmHWM:")][0].split()[1], status)
"""


def _big(kind: str) -> Any:
    """Return a document of 5.5 to 7 MB of small objects, valid as ``kind`` (the issue measured 6.5 MB)."""
    n = 12_000
    if kind == "openai_messages":
        doc: list[Any] = [{"role": "developer", "content": "Be brief."}]
        for i in range(2 * n):
            doc += [{"role": "user", "content": f"Weather in city {i}?"}, {"role": "assistant", "content": None,
                    "tool_calls": [{"id": f"call_{i}", "type": "function", "function": {"name": "get_weather",
                                                                                          "arguments": '{"c": 1}'}}]},
                    {"role": "tool", "tool_call_id": f"call_{i}", "content": "18 C"}, {"role": "assistant", "content": "Mild."}]
        return doc
    if kind == "openai_request":
        return {"model": "gpt-4o", "messages": _big("openai_messages")}
    if kind == "openai_tools":
        return [{"type": "function", "function": {"name": f"tool_{i}", "description": "Does a thing.",
                                                  "parameters": WEATHER}} for i in range(3 * n)]
    if kind == "openai_stream":
        chunk = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4o"}
        return ([{**chunk, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}]}]
                + [{**chunk, "choices": [{"index": 0, "delta": {"content": "word "}, "finish_reason": None}]}] * (3 * n)
                + [{**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}])
    assert kind == "tool_definitions"
    return [{"name": f"tool_{i}", "description": "Does a thing.", "parameters": WEATHER} for i in range(3 * n)]


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads the peak memory from /proc (Linux)")
@pytest.mark.parametrize("kind", ["openai_messages", "openai_tools", "openai_stream", "tool_definitions", "openai_request"])
def test_one_big_document_costs_at_most_a_quarter_more_than_json_load(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "big.json"
    path.write_text(json.dumps(_big(kind)), encoding="utf-8")

    def peak(how: str) -> int:
        result = subprocess.run([sys.executable, "-c", PEAK, str(ROOT), how, str(path)], capture_output=True, text=True,
                                timeout=300, check=True)
        kib, status = result.stdout.split()[-2:]
        assert status == "0", result.stdout
        return int(kib)

    ours, theirs = peak("validate"), peak("json.load")
    assert ours <= 1.25 * theirs, (kind, ours, theirs)
