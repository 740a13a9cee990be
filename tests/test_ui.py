"""agentmsg.ui: the AG-UI and AI SDK adapters, checked against AG-UI's official Python types and order rules."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from ag_ui.core import Event as AguiEvent
from ag_ui.core import MessagesSnapshotEvent, RunAgentInput
from pydantic import TypeAdapter

from agentmsg import ChatMessage, ConversationHistory, events
from agentmsg.agent import AgentTurn
from agentmsg.errors import ValidationError
from agentmsg.events.reducer import MAX_ARGUMENTS
from agentmsg.io.execution import ApprovalPolicy, ToolRegistry
from agentmsg.providers import openai
from agentmsg.ui import agui, aisdk

AGUI_EVENT = TypeAdapter(AguiEvent)
STAMP = "2024-05-01T12:00:00Z"
PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\x00" * 64).decode()


# -- AG-UI's client order rules, as a test helper ----------------------------------------------------


def check_agui_sequence(stream: list[dict[str, Any]]) -> None:
    """Assert the order rules @ag-ui/client's verifier enforces (and that every event validates).

    First RUN_STARTED (or a lone RUN_ERROR); nothing after RUN_ERROR, and after RUN_FINISHED only a
    new RUN_STARTED; no RUN_FINISHED while a text message, tool call or reasoning message is open;
    content, args and ends only for an open message / call of the same id; a result only for a
    started tool call; a text message or tool call id not reopened while open.
    """
    assert stream, "no events"
    texts: set[str] = set()
    calls: set[str] = set()
    reasoning: set[str] = set()
    started_calls: set[str] = set()
    running = finished = errored = False
    for i, event in enumerate(stream):
        AGUI_EVENT.validate_python(event)  # the official types (unknown keys are allowed by them)
        kind = event["type"]
        where = f"event {i} ({kind})"
        assert not errored, f"{where}: nothing may follow RUN_ERROR"
        if i == 0:
            assert kind in ("RUN_STARTED", "RUN_ERROR"), f"{where}: the first event must be RUN_STARTED"
        if kind == "RUN_STARTED":
            assert not running, f"{where}: a run is already active"
            running, finished = True, False
            continue
        if kind == "RUN_ERROR":
            errored = True
            continue
        assert running and not finished, f"{where}: outside a run"
        if kind == "RUN_FINISHED":
            assert not texts and not calls and not reasoning, f"{where}: open messages {texts | calls | reasoning}"
            running, finished = False, True
        elif kind == "TEXT_MESSAGE_START":
            assert event["messageId"] not in texts, f"{where}: already open"
            texts.add(event["messageId"])
        elif kind in ("TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END"):
            assert event["messageId"] in texts, f"{where}: no open text message with this id"
            if kind == "TEXT_MESSAGE_END":
                texts.remove(event["messageId"])
        elif kind == "TOOL_CALL_START":
            assert event["toolCallId"] not in calls, f"{where}: already open"
            calls.add(event["toolCallId"])
            started_calls.add(event["toolCallId"])
        elif kind in ("TOOL_CALL_ARGS", "TOOL_CALL_END"):
            assert event["toolCallId"] in calls, f"{where}: no open tool call with this id"
            if kind == "TOOL_CALL_END":
                calls.remove(event["toolCallId"])
        elif kind == "TOOL_CALL_RESULT":
            assert event["toolCallId"] in started_calls, f"{where}: a result for an unknown tool call"
        elif kind == "REASONING_MESSAGE_START":
            reasoning.add(event["messageId"])
        elif kind in ("REASONING_MESSAGE_CONTENT", "REASONING_MESSAGE_END"):
            assert event["messageId"] in reasoning, f"{where}: no open reasoning message with this id"
            if kind == "REASONING_MESSAGE_END":
                reasoning.remove(event["messageId"])


def test_the_sequence_helper_refuses_what_ag_ui_refuses() -> None:
    start = {"type": "RUN_STARTED", "threadId": "t", "runId": "r"}
    finish = {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}
    text = {"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"}
    bad = [
        [text],  # not RUN_STARTED first
        [start, text, finish],  # a text message still open
        [start, {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "x"}],  # content for no message
        [start, {"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "f"}, finish],  # an open call
        [start, {"type": "TOOL_CALL_RESULT", "messageId": "x", "toolCallId": "c", "content": ""}],  # unknown id
        [start, finish, text],  # after the run
        [start, {"type": "TEXT_MESSAGE_START", "role": "assistant"}],  # the types refuse it
    ]
    for stream in bad:
        with pytest.raises((AssertionError, ValueError)):
            check_agui_sequence(stream)
    check_agui_sequence([start, text, {"type": "TEXT_MESSAGE_END", "messageId": "m"}, finish])


# -- turns of the real agent loop ----------------------------------------------------------------------


def recipes_turn(*, fail: bool = False, policy: str = "auto") -> tuple[list[events.Event], AgentTurn]:
    """Run the recipes scenario through AgentTurn (a scripted Chat Completions model) and keep its events."""
    registry = ToolRegistry()

    @registry.register(safe=True)
    def list_recipes() -> str:
        """List the recipes in the cookbook."""
        return "Pancakes\nOmelette"

    def model(body: dict[str, Any]) -> dict[str, Any]:
        if fail:
            raise ConnectionError("the model is down")
        if body["messages"][-1]["role"] == "tool":
            message = {"role": "assistant", "content": "You have Pancakes and Omelette."}
            return {"choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}
        call = {"id": "call_1", "type": "function", "function": {"name": "list_recipes", "arguments": "{}"}}
        message = {"role": "assistant", "content": "Let me look.", "tool_calls": [call]}
        return {"choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}]}

    seen: list[events.Event] = []
    history = ConversationHistory([ChatMessage.system("You are a cook.")])
    turn = AgentTurn(openai, history, "What recipes do I have?", tools=registry, policy=ApprovalPolicy(default=policy),
                     params={"model": "gpt-4o"}, on_event=seen.append)
    turn.run(model)
    return seen, turn


def agui_events(turn: list[events.Event]) -> list[dict[str, Any]]:
    run = agui.AguiRun(thread_id="s1", run_id="r1")
    out = [event for item in turn for event in run.translate(item)]
    return out + run.close()


def test_agui_recipes_turn_validates_and_keeps_the_order_rules() -> None:
    seen, _ = recipes_turn()
    out = agui_events(seen)
    check_agui_sequence(out)
    kinds = [event["type"] for event in out]
    assert kinds[0] == "RUN_STARTED" and kinds[-1] == "RUN_FINISHED"
    assert out[-1]["outcome"] == {"type": "success"} and out[-1]["result"]["text"] == "You have Pancakes and Omelette."
    text = "".join(e["delta"] for e in out if e["type"] == "TEXT_MESSAGE_CONTENT")
    assert text == "Let me look.You have Pancakes and Omelette."
    start = next(e for e in out if e["type"] == "TOOL_CALL_START")
    result = next(e for e in out if e["type"] == "TOOL_CALL_RESULT")
    assert start["toolCallName"] == "list_recipes" and start["parentMessageId"] == out[1]["messageId"]
    assert result["toolCallId"] == start["toolCallId"] and result["content"] == "Pancakes\nOmelette"
    activities = [e for e in out if e["type"] == "ACTIVITY_SNAPSHOT"]
    assert [a["content"]["status"] for a in activities] == ["pending", "running", "running", "completed"]
    assert {a["messageId"] for a in activities} == {start["toolCallId"] + ":activity"}
    progress = [e for e in out if e["type"] == "CUSTOM"]
    assert progress and all(e["name"] == agui.PROGRESS_EVENT for e in progress)


def test_agui_error_turn_ends_with_run_error() -> None:
    seen, turn = recipes_turn(fail=True)
    assert turn.outcome is not None and turn.outcome.status == "error"
    out = agui_events(seen)
    check_agui_sequence(out)
    assert [e["type"] for e in out] == ["RUN_STARTED", "RUN_ERROR"]
    assert out[-1]["message"] == "the model call failed (ConnectionError)"


def test_agui_artifacts_progress_and_tool_errors() -> None:
    run = agui.AguiRun(thread_id="s1", run_id="r1")
    stream = [
        events.ToolMessageStart(id="t1", tool_name="search", title="Searching", timestamp=STAMP),
        events.ToolArtifact(message_id="t1", artifact={"id": "a1", "type": "code", "content": "v1"}),
        events.ToolArtifact(message_id="t1", artifact={"id": "a1", "type": "code", "content": "v2"}, show_in_canvas=True),
        events.ToolMessageUpdate(id="t1", patch={"content": "the index is gone"}),
        events.ToolMessageComplete(id="t1", status="error", timestamp=STAMP),
        events.Progress(status="done", progress=100, message="Finished", artifact_id="a1"),
        events.Completion.ok({"answer": 42}, final_artifact_id="a1"),
    ]
    out = [event for item in stream for event in run.translate(item)]
    check_agui_sequence(out)
    artifacts = [e for e in out if e["type"] == "ACTIVITY_SNAPSHOT" and e["activityType"] == agui.ARTIFACT_ACTIVITY]
    assert [a["messageId"] for a in artifacts] == ["artifact:a1", "artifact:a1"]  # replaced in place
    assert artifacts[-1]["replace"] is True and artifacts[-1]["content"]["artifact"]["content"] == "v2"
    assert artifacts[-1]["content"]["showInCanvas"] is True and artifacts[-1]["content"]["toolCallId"] == "t1"
    result = next(e for e in out if e["type"] == "TOOL_CALL_RESULT")
    assert result["content"] == agui.TOOL_ERROR_PREFIX + "the index is gone" and "error" not in result
    AGUI_EVENT.validate_python(result)
    custom = next(e for e in out if e["type"] == "CUSTOM")
    assert custom["value"] == {"status": "done", "progress": 100, "message": "Finished", "artifactId": "a1"}
    assert out[-1]["result"] == {"answer": 42}
    assert run.finished and run.close() == []
    with pytest.raises(ValidationError) as caught:
        run.translate(events.Progress(status="late", progress=1))
    assert caught.value.code == "protocol"


def test_agui_close_without_completion_is_a_run_error() -> None:
    run = agui.AguiRun(thread_id="s1", run_id="r1")
    out = run.translate(events.MessageStart(id="m1")) + run.translate(events.MessageChunk(id="m1", chunk="Hal"))
    out += run.close()
    check_agui_sequence(out)
    assert out[-1] == {"type": "RUN_ERROR", "message": "the turn ended without a completion", "code": "incomplete"}
    with pytest.raises(ValidationError) as caught:
        agui.AguiRun(thread_id="s1", run_id="r1").translate(events.MessageChunk(id="m9", chunk="x"))
    assert (caught.value.code, caught.value.path) == ("protocol", "id")


def test_agui_translate_wire_decodes_first() -> None:
    run = agui.AguiRun(thread_id="s1", run_id="r1")
    assert [e["type"] for e in run.translate_wire("message:start", {"id": "m1", "role": "assistant", "content": "Hi"})] == [
        "RUN_STARTED", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT"]
    with pytest.raises(ValidationError) as caught:
        run.translate_wire("message:chunk", {"id": "m1"})
    assert (caught.value.code, caught.value.path) == ("missing", "chunk")


# -- AI SDK ----------------------------------------------------------------------------------------------


def aisdk_chunks(turn: list[events.Event]) -> list[dict[str, Any]]:
    stream = aisdk.AiSdkStream(message_id="a1")
    return [chunk for item in turn for chunk in stream.translate(item)] + stream.close()


def test_aisdk_recipes_turn() -> None:
    seen, _ = recipes_turn()
    out = aisdk_chunks(seen)
    kinds = [c["type"] for c in out]
    assert kinds[:3] == ["start", "start-step", "text-start"] and kinds[-2:] == ["finish-step", "finish"]
    assert out[0] == {"type": "start", "messageId": "a1"} and out[-1]["finishReason"] == "stop"
    assert kinds.count("text-start") == kinds.count("text-end") == 2
    tool = next(c for c in out if c["type"] == "tool-input-available")
    assert tool["toolName"] == "list_recipes" and tool["dynamic"] is True and tool["input"] == {}
    outputs = [c for c in out if c["type"] == "tool-output-available"]
    assert [c.get("preliminary", False) for c in outputs] == [True, True, False]
    assert outputs[-1]["output"]["content"] == "Pancakes\nOmelette" and outputs[-1]["output"]["status"] == "completed"
    assert any(c["type"] == "data-progress" and c["id"] == "progress" for c in out)
    assert aisdk.sse(out[0]) == b'data: {"type":"start","messageId":"a1"}\n\n'


def test_aisdk_one_step_per_model_call() -> None:
    seen, _ = recipes_turn()
    kinds = [c["type"] for c in aisdk_chunks(seen)]
    assert kinds.count("start-step") == kinds.count("finish-step") == 2  # two model calls
    second = len(kinds) - kinds[::-1].index("start-step") - 1
    assert kinds[second - 1] == "finish-step" and kinds[second + 1] == "text-start"
    assert kinds.index("tool-output-available") < second  # the tool's results belong to the first step


def test_tools_still_open_when_the_run_ends_end_as_errors() -> None:
    turn = [events.ToolMessageStart(id="t1", tool_name="search", title="Searching", timestamp=STAMP),
            events.ToolMessageUpdate(id="t1", patch={"status": "running"}),
            events.Completion.failed("the turn was cancelled", code="cancelled", cancelled=True)]
    chunks = aisdk_chunks(turn)
    assert chunks[-2:] == [{"type": "tool-output-error", "toolCallId": "t1", "errorText": "the turn was cancelled",
                            "dynamic": True}, {"type": "abort"}]
    out = agui_events(turn)
    check_agui_sequence(out)
    result = next(e for e in out if e["type"] == "TOOL_CALL_RESULT")
    assert result["content"] == agui.TOOL_ERROR_PREFIX + "the turn was cancelled"
    stopped = aisdk.AiSdkStream(message_id="a1")
    for item in turn[:2]:
        stopped.translate(item)
    assert [c.get("errorText") for c in stopped.close()] == ["the turn ended before the tool finished",
                                                             "the turn ended without a completion", None]


def test_aisdk_error_turn_and_tool_errors() -> None:
    seen, _ = recipes_turn(fail=True)
    out = aisdk_chunks(seen)
    assert [c["type"] for c in out] == ["start", "start-step", "error", "finish"]
    assert out[2]["errorText"] == "the model call failed (ConnectionError)"
    stream = aisdk.AiSdkStream(message_id="a1")
    chunks = [c for item in [
        events.ToolMessageStart(id="t1", tool_name="search", title="Searching", timestamp=STAMP),
        events.ToolMessageUpdate(id="t1", patch={"content": "boom"}),
        events.ToolMessageComplete(id="t1", status="error", timestamp=STAMP),
        events.ToolArtifact(message_id="t1", artifact={"id": "a1", "type": "code", "content": "v1"}),
    ] for c in stream.translate(item)]
    assert chunks[-2] == {"type": "tool-output-error", "toolCallId": "t1", "errorText": "boom", "dynamic": True}
    assert chunks[-1] == {"type": "data-artifact", "id": "a1",
                          "data": {"toolCallId": "t1", "artifact": {"id": "a1", "type": "code", "content": "v1"},
                                   "showInCanvas": False}}


def test_aisdk_denied_call_is_output_denied() -> None:
    seen, turn = recipes_turn(policy="deny")  # the policy denied it: no approval in the client's message
    out = aisdk_chunks(seen)
    tool_id = next(c["toolCallId"] for c in out if c["type"] == "tool-input-start")
    assert {"type": "tool-output-error", "toolCallId": tool_id, "errorText": "The user denied this tool call.",
            "dynamic": True} in out
    assert not any(c["type"] == "tool-output-available" for c in out)  # no preliminary output for a call never run


# -- the request parsers -------------------------------------------------------------------------------


RUN = {"threadId": "s1", "runId": "r1", "state": {}, "tools": [], "context": [], "forwardedProps": {},
       "messages": [{"id": "u1", "role": "user", "content": "Hi"}]}


def test_parse_run_input_reads_what_the_official_model_accepts() -> None:
    body = {**RUN, "messages": [{"id": "u0", "role": "user", "content": "old"},
                                {"id": "a0", "role": "assistant", "content": "older answer"},
                                {"id": "u1", "role": "user", "content": [
                                    {"type": "text", "text": "What is this?"},
                                    {"type": "image", "source": {"type": "data", "value": PNG, "mimeType": "image/png"}}]}]}
    RunAgentInput.model_validate(body)  # the official type accepts the body we parse
    parsed = agui.parse_run_input(body)
    assert (parsed.thread_id, parsed.run_id, parsed.message_id) == ("s1", "r1", "u1")
    assert parsed.message is not None and [p["type"] for p in parsed.message.to_dict()["content"]] == ["text", "image"]
    resumed = agui.parse_run_input({**RUN, "resume": [
        {"interruptId": "t1", "status": "resolved", "payload": {"approved": True}},
        {"interruptId": "t2", "status": "resolved", "payload": {"approved": False, "reason": "no"}},
        {"interruptId": "t3", "status": "cancelled"}]})
    assert resumed.message is None
    assert [(d.id, d.approved, d.reason) for d in resumed.decisions] == [("t1", True, None), ("t2", False, "no"),
                                                                         ("t3", False, None)]


BIG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\x00" * 2048).decode()


@pytest.mark.parametrize(("body", "code", "path"), [
    ([], "type", ""),
    ({**RUN, "threadId": 3}, "type", "threadId"),
    ({**RUN, "runId": ""}, "value", "runId"),
    ({k: v for k, v in RUN.items() if k != "messages"}, "missing", "messages"),
    ({**RUN, "messages": []}, "value", "messages"),
    ({**RUN, "messages": [{"id": "a", "role": "assistant", "content": "x"}]}, "value", "messages[0].role"),
    ({**RUN, "messages": [{"id": "t", "role": "tool", "content": "x"}]}, "missing", "messages[0].toolCallId"),
    ({**RUN, "messages": [{"id": "u", "role": "user", "content": "  "}]}, "value", "messages[0].content"),
    ({**RUN, "messages": [{"id": "u", "role": "user"}]}, "missing", "messages[0].content"),
    ({**RUN, "messages": [{"id": 7, "role": "user", "content": "x"}]}, "type", "messages[0].id"),
    ({**RUN, "messages": [{"id": "u", "role": "user", "content": [{"type": "audio", "source": {}}]}]}, "unsupported",
     "messages[0].content[0].type"),
    ({**RUN, "messages": [{"id": "u", "role": "user", "content": [
        {"type": "image", "source": {"type": "url", "value": "https://example.com/a.png"}}]}]}, "unsupported",
     "messages[0].content[0].source.type"),
    ({**RUN, "messages": [{"id": "u", "role": "user", "content": [
        {"type": "image", "source": {"type": "data", "value": PNG, "mimeType": "application/pdf"}}]}]}, "unsupported",
     "messages[0].content[0].source.value"),
    ({**RUN, "messages": [{"id": "u", "role": "user", "content": [
        {"type": "image", "source": {"type": "data", "value": PNG, "mimeType": "image/jpeg"}}]}]}, "value",
     "messages[0].content[0].source.value"),
    ({**RUN, "messages": [{"id": "u", "role": "user", "content": [
        {"type": "image", "source": {"type": "data", "value": BIG, "mimeType": "image/png"}}]}]}, "size",
     "messages[0].content[0].source.value"),
    ({**RUN, "tools": {}}, "type", "tools"),
    ({**RUN, "resume": [{"interruptId": "t1", "status": "later"}]}, "value", "resume[0].status"),
    ({**RUN, "resume": [{"interruptId": "t1", "status": "resolved", "payload": {"approved": "yes"}}]}, "type",
     "resume[0].payload.approved"),
])
def test_parse_run_input_refuses_bad_input(body: Any, code: str, path: str) -> None:
    with pytest.raises(ValidationError) as caught:
        agui.parse_run_input(body, max_image_bytes=1024)
    assert (caught.value.code, caught.value.path) == (code, path)
    assert "Hi" not in str(caught.value)
    (error,) = agui.error_events(caught.value)
    AGUI_EVENT.validate_python(error)


CHAT = {"id": "c1", "trigger": "submit-message", "messageId": None,
        "messages": [{"id": "u1", "role": "user", "parts": [{"type": "text", "text": "Hi"}]}]}


def file_part(media: str, data: str = PNG) -> dict[str, Any]:
    return {"type": "file", "mediaType": media, "url": f"data:{media};base64,{data}", "filename": "x"}


def test_parse_request_reads_text_images_and_approvals() -> None:
    body = {**CHAT, "messages": [{"id": "u1", "role": "user", "parts": [
        {"type": "step-start"}, {"type": "text", "text": "Look"}, file_part("image/png")]}]}
    parsed = aisdk.parse_request(body)
    assert parsed.chat_id == "c1" and parsed.message is not None
    assert [p["type"] for p in parsed.message.to_dict()["content"]] == ["text", "image"]
    approvals = {**CHAT, "messages": [CHAT["messages"][0], {"id": "a1", "role": "assistant", "parts": [
        {"type": "text", "text": "Let me look."},
        {"type": "dynamic-tool", "toolName": "list_recipes", "toolCallId": "t1", "state": "approval-responded",
         "input": {}, "approval": {"id": "t1", "approved": False, "reason": "not now"}}]}]}
    parsed = aisdk.parse_request(approvals)
    assert parsed.message is None and [(d.id, d.approved, d.reason) for d in parsed.decisions] == [("t1", False, "not now")]


@pytest.mark.parametrize(("body", "code", "path"), [
    ("text", "type", ""),
    ({**CHAT, "id": None}, "missing", "id"),
    ({**CHAT, "trigger": "resend"}, "value", "trigger"),
    ({**CHAT, "trigger": 1}, "type", "trigger"),
    ({**CHAT, "trigger": "regenerate-message"}, "unsupported", "trigger"),
    ({**CHAT, "messages": []}, "value", "messages"),
    ({**CHAT, "messages": [{"id": 7, "role": "user", "parts": [{"type": "text", "text": "x"}]}]}, "type",
     "messages[0].id"),  # as AG-UI refuses it (parse_run_input)
    ({**CHAT, "messages": [{"id": "s", "role": "system", "parts": []}]}, "value", "messages[0].role"),
    ({**CHAT, "messages": [{"id": "a", "role": "assistant", "parts": [{"type": "text", "text": "x"}]}]}, "value",
     "messages[0].parts"),
    ({**CHAT, "messages": [{"id": "u", "role": "user", "parts": [{"type": "text", "text": " "}]}]}, "value",
     "messages[0].parts"),
    ({**CHAT, "messages": [{"id": "u", "role": "user", "parts": [file_part("application/pdf")]}]}, "unsupported",
     "messages[0].parts[0].mediaType"),
    ({**CHAT, "messages": [{"id": "u", "role": "user", "parts": [file_part("image/png", BIG)]}]}, "size",
     "messages[0].parts[0].url"),
    ({**CHAT, "messages": [{"id": "u", "role": "user", "parts": [file_part("image/gif")]}]}, "value",
     "messages[0].parts[0].url"),
    ({**CHAT, "messages": [{"id": "u", "role": "user", "parts": [
        {"type": "file", "mediaType": "image/png", "url": "https://example.com/a.png"}]}]}, "unsupported",
     "messages[0].parts[0].url"),
    ({**CHAT, "messages": [{"id": "u", "role": "user", "parts": [
        {"type": "file", "mediaType": "image/png", "url": "data:image/png;base64,@@@@"}]}]}, "pattern",
     "messages[0].parts[0].url"),
])
def test_parse_request_refuses_bad_input(body: Any, code: str, path: str) -> None:
    with pytest.raises(ValidationError) as caught:
        aisdk.parse_request(body, max_image_bytes=1024)
    assert (caught.value.code, caught.value.path) == (code, path)
    (chunk,) = aisdk.error_chunks(caught.value)
    assert chunk["type"] == "error" and chunk["errorText"].startswith(path or "")


# -- the history converters ----------------------------------------------------------------------------


def stored_history() -> events.ChatInit:
    return events.ChatInit.from_dict({"status": "success", "artifacts": [{"id": "a1", "type": "code", "content": "x"}],
                                      "messages": [
        {"role": "user", "content": "Recipes?", "timestamp": STAMP},
        {"id": "m1", "role": "assistant", "kind": "chat", "content": "Let me look.", "timestamp": STAMP},
        {"id": "t1", "role": "assistant", "kind": "tool", "status": "completed", "toolName": "list_recipes",
         "title": "Calling list_recipes", "content": "Pancakes", "progressText": "", "timestamp": STAMP,
         "completedAt": STAMP, "artifactIds": ["a1"]},
        {"id": "t2", "role": "assistant", "kind": "tool", "status": "error", "toolName": "search", "title": "",
         "content": "boom", "progressText": "", "timestamp": STAMP, "completedAt": STAMP},
        {"id": "m2", "role": "assistant", "kind": "chat", "content": "You have Pancakes.", "timestamp": STAMP},
        {"role": "user", "content": "Thanks", "timestamp": STAMP},
        {"id": "t3", "role": "assistant", "kind": "tool", "status": "running", "toolName": "search", "title": "",
         "content": "", "progressText": "1/2", "timestamp": STAMP},
    ]})


def test_messages_snapshot_validates_and_keeps_the_conversation() -> None:
    snapshot = agui.messages_snapshot(stored_history())
    MessagesSnapshotEvent.model_validate(snapshot)
    AGUI_EVENT.validate_python(snapshot)
    messages = snapshot["messages"]
    assert [(m["role"], m["id"]) for m in messages] == [
        ("user", "user-0"), ("assistant", "m1"), ("tool", "t1:result"), ("activity", "t1:activity"),
        ("activity", "artifact:a1"), ("tool", "t2:result"), ("activity", "t2:activity"), ("assistant", "m2"),
        ("user", "user-5"), ("assistant", "t3"), ("activity", "t3:activity")]
    assert [c["id"] for c in messages[1]["toolCalls"]] == ["t1", "t2"]
    assert messages[5]["error"] == "boom" and messages[4]["content"]["artifact"] == {"id": "a1", "type": "code", "content": "x"}
    assert messages[-2]["toolCalls"][0]["function"] == {"name": "search", "arguments": "{}"}
    assert len({m["id"] for m in messages}) == len(messages)


def test_ui_messages_group_a_turn_into_one_assistant_message() -> None:
    messages = aisdk.ui_messages(stored_history())
    assert [(m["role"], m["id"]) for m in messages] == [("user", "user-0"), ("assistant", "user-0:answer"), ("user", "user-5"),
                                                         ("assistant", "user-5:answer")]
    parts = messages[1]["parts"]
    assert [(p["type"], p.get("state")) for p in parts] == [
        ("text", "done"), ("dynamic-tool", "output-available"), ("data-artifact", None),
        ("dynamic-tool", "output-error"), ("text", "done")]
    assert parts[1]["output"]["content"] == "Pancakes" and parts[3]["errorText"] == "boom"
    assert messages[3]["parts"][0]["state"] == "input-available"
    json.dumps(messages)  # plain JSON
    with pytest.raises(TypeError):
        aisdk.ui_messages([{"role": "user"}])  # type: ignore[list-item]


# -- the protocol's later events: turn ids, message:end, reasoning, arguments, approvals, cancel ----------


def approval_turn() -> list[events.Event]:
    return [
        events.TurnStart(turn_id="turn1", session_id="s1"),
        events.ReasoningStart(id="r1"), events.ReasoningChunk(id="r1", chunk="They want recipes."),
        events.ReasoningChunk(id="r1", chunk=""), events.ReasoningEnd(id="r1"),
        events.MessageStart(id="m1"), events.MessageChunk(id="m1", chunk="Let me look."), events.MessageEnd(id="m1"),
        events.ToolMessageStart(id="t1", tool_name="delete_recipe", title="Calling delete_recipe", status="pending",
                                timestamp=STAMP, arguments={"name": "Omelette"}, tool_call_id="call_1"),
        events.ToolApprovalRequest(id="t1", turn_id="turn1", tool_name="delete_recipe", arguments={"name": "Omelette"}),
    ]


def resumed_turn(approved: bool) -> list[events.Event]:
    if approved:
        tool = [events.ToolMessageUpdate(id="t1", patch={"status": "running"}),
                events.ToolMessageUpdate(id="t1", patch={"content": "deleted"}),
                events.ToolMessageComplete(id="t1", status="completed", timestamp=STAMP)]
    else:
        tool = [events.ToolMessageUpdate(id="t1", patch={"content": "The user denied this tool call."}),
                events.ToolMessageComplete(id="t1", status="error", timestamp=STAMP, error="denied: not now")]
    return [*tool, events.MessageStart(id="m2"), events.MessageChunk(id="m2", chunk="Done."), events.MessageEnd(id="m2"),
            events.Completion.ok({"text": "Done."}, turn_id="turn1")]


def test_agui_reasoning_arguments_and_an_approval_interrupt_then_resume() -> None:
    run = agui.AguiRun(thread_id="s1", run_id="r1")
    first = [e for item in approval_turn() for e in run.translate(item)] + run.close()
    check_agui_sequence(first)
    kinds = [e["type"] for e in first]
    assert kinds[:7] == ["RUN_STARTED", "REASONING_START", "REASONING_MESSAGE_START", "REASONING_MESSAGE_CONTENT",
                         "REASONING_MESSAGE_END", "REASONING_END", "TEXT_MESSAGE_START"]
    assert kinds.count("RUN_STARTED") == 1 and kinds.count("TEXT_MESSAGE_END") == 1
    args = next(e for e in first if e["type"] == "TOOL_CALL_ARGS")
    assert json.loads(args["delta"]) == {"name": "Omelette"} and args["toolCallId"] == "t1"
    finished = first[-1]
    assert finished["type"] == "RUN_FINISHED" and finished["outcome"]["type"] == "interrupt"
    (interrupt,) = finished["outcome"]["interrupts"]
    assert interrupt["id"] == interrupt["toolCallId"] == "t1" and interrupt["reason"] == "tool_approval"
    assert interrupt["responseSchema"]["required"] == ["approved"]
    with pytest.raises(ValidationError):
        agui.AguiRun(thread_id="s1", run_id="rx").resume("ry")  # nothing paused
    second = run.resume("r2") + [e for item in resumed_turn(False) for e in run.translate(item)]
    check_agui_sequence([*first, *second])
    assert second[0] == {"type": "RUN_STARTED", "threadId": "s1", "runId": "r2"}
    result = next(e for e in second if e["type"] == "TOOL_CALL_RESULT")
    assert result["toolCallId"] == "t1" and result["content"] == "Error: denied: not now" and "error" not in result
    assert second[-1]["outcome"] == {"type": "success"} and second[-1]["runId"] == "r2"


def test_agui_cancelled_and_coded_completions() -> None:
    run = agui.AguiRun(thread_id="s1", run_id="r1")
    out = run.translate(events.MessageStart(id="m1"))
    out += run.translate(events.Completion.failed("the turn was cancelled", code="cancelled", cancelled=True))
    check_agui_sequence(out)
    assert [e["type"] for e in out][-2:] == ["TEXT_MESSAGE_END", "RUN_FINISHED"]
    assert out[-1]["outcome"] == {"type": "cancelled"}
    run = agui.AguiRun(thread_id="s1", run_id="r1")
    out = run.translate(events.Completion.failed("stopped after 8 model calls", code="step_limit"))
    check_agui_sequence(out)
    assert out[-1] == {"type": "RUN_ERROR", "message": "stopped after 8 model calls", "code": "step_limit"}


def test_aisdk_reasoning_arguments_approval_and_resume() -> None:
    stream = aisdk.AiSdkStream(message_id="a1")
    first = [c for item in approval_turn() for c in stream.translate(item)] + stream.close()
    kinds = [c["type"] for c in first]
    assert kinds == ["start", "start-step", "reasoning-start", "reasoning-delta", "reasoning-end", "text-start",
                     "text-delta", "text-end", "tool-input-start", "tool-input-available", "tool-approval-request",
                     "finish-step", "finish"]
    assert first[9]["input"] == {"name": "Omelette"}
    assert first[10] == {"type": "tool-approval-request", "approvalId": "t1", "toolCallId": "t1"}
    assert first[-1] == {"type": "finish", "finishReason": "tool-calls"}
    approved = aisdk.AiSdkStream(message_id="a1")
    for item in approval_turn():
        approved.translate(item)
    approved.close()
    second = approved.resume() + [c for item in resumed_turn(True) for c in approved.translate(item)]
    assert second[0] == {"type": "start", "messageId": "a1"}  # the same assistant message goes on
    final = next(c for c in second if c["type"] == "tool-output-available" and "preliminary" not in c)
    assert final["output"]["content"] == "deleted" and second[-1] == {"type": "finish", "finishReason": "stop"}
    stream.resume()
    denied = [c for item in resumed_turn(False) for c in stream.translate(item)]
    assert {"type": "tool-output-denied", "toolCallId": "t1"} in denied
    with_reason = aisdk.AiSdkStream(message_id="a2")
    for item in approval_turn():
        with_reason.translate(item)
    with_reason.close()
    out = with_reason.resume() + [c for item in [
        events.ToolMessageUpdate(id="t1", patch={"content": "The user denied this tool call. Reason: not now"}),
        events.ToolMessageComplete(id="t1", status="error", timestamp=STAMP, error="denied"),
    ] for c in with_reason.translate(item)]
    assert out[-1] == {"type": "tool-output-denied", "toolCallId": "t1"}


def test_aisdk_cancelled_completion_is_an_abort() -> None:
    stream = aisdk.AiSdkStream(message_id="a1")
    out = stream.translate(events.TurnStart(turn_id="turn1"))
    out += stream.translate(events.MessageStart(id="m1"))
    out += stream.translate(events.Completion.failed("the turn was cancelled", code="cancelled", cancelled=True))
    assert [c["type"] for c in out] == ["start", "start-step", "text-start", "text-end", "abort"]
    assert out[-1] == {"type": "abort"} and stream.close() == []


def test_history_with_entry_ids_arguments_and_errors() -> None:
    init = events.ChatInit.from_dict({"status": "success", "artifacts": [], "messages": [
        {"id": "u-1", "role": "user", "content": "Delete the omelette", "timestamp": STAMP},
        {"id": "t1", "role": "assistant", "kind": "tool", "status": "error", "toolName": "delete_recipe", "title": "",
         "content": "The user denied this tool call.", "progressText": "", "timestamp": STAMP, "completedAt": STAMP,
         "arguments": {"name": "Omelette"}, "toolCallId": "call_1", "error": "denied: not now"}]})
    snapshot = agui.messages_snapshot(init)
    AGUI_EVENT.validate_python(snapshot)
    user, assistant, result, _activity = snapshot["messages"]
    assert user["id"] == "u-1" and json.loads(assistant["toolCalls"][0]["function"]["arguments"]) == {"name": "Omelette"}
    assert result["error"] == "denied: not now"
    (_, message) = aisdk.ui_messages(init)
    (part,) = message["parts"]
    assert part["input"] == {"name": "Omelette"} and part["errorText"] == "denied: not now"


# -- streamed tool arguments (tool:message:args) ---------------------------------------------------------


def streamed_turn(pieces: list[str], *, policy: str = "auto") -> tuple[list[events.Event], AgentTurn]:
    """Run a turn whose model streams (Chat Completions chunks) one call's arguments in ``pieces``."""
    registry = ToolRegistry()

    @registry.register(safe=True)
    def find_recipe(name: str) -> str:
        """Find one recipe by name."""
        return f"{name}: eggs, milk"

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {"id": "c1", "object": "chat.completion.chunk", "created": 0, "model": "gpt-4o",
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    def model(body: dict[str, Any]) -> Any:
        if body["messages"][-1]["role"] == "tool":
            return [chunk({"role": "assistant", "content": "Found it."}), chunk({}, "stop")]
        calls = [{"index": 0, "id": "call_1", "type": "function", "function": {"name": "find_recipe", "arguments": ""}}]
        calls += [{"index": 0, "function": {"arguments": piece}} for piece in pieces]
        return [chunk({"role": "assistant", "content": "Let me look."}),
                *[chunk({"tool_calls": [call]}) for call in calls], chunk({}, "tool_calls")]

    seen: list[events.Event] = []
    turn = AgentTurn(openai, ConversationHistory([ChatMessage.system("You are a cook.")]), "Omelette?", tools=registry,
                     policy=ApprovalPolicy(default=policy), params={"model": "gpt-4o", "stream": True},
                     on_event=seen.append)
    turn.run(model)
    return seen, turn


PIECES = ['{"na', 'me": "Ome', 'lette"}']


def test_agent_turn_streams_tool_arguments_as_tool_message_args() -> None:
    seen, turn = streamed_turn(PIECES)
    assert turn.outcome is not None and turn.outcome.status == "completed"
    kinds = [e.EVENT for e in seen]
    start = kinds.index("tool:message:start")
    assert kinds[start - 1] == "message:end"  # the text ends before the tool message starts
    assert kinds[start + 1:start + 4] == ["tool:message:args"] * 3 and kinds.count("tool:message:start") == 1
    args = [e for e in seen if isinstance(e, events.ToolMessageArgs)]
    assert [a.chunk for a in args] == PIECES and {a.id for a in args} == {seen[start].id}
    assert seen[start].arguments is None and seen[start].tool_call_id == "call_1"
    session = events.SessionReducer(clock=lambda: STAMP)  # the reducer puts the pieces together
    session.apply(events.ChatRequest(message="Omelette?"))
    for event in seen:
        session.apply(event)
    (tool,) = [m for m in session.history() if m.get("kind") == "tool"]
    assert tool["arguments"] == {"name": "Omelette"} and tool["status"] == "completed"


def test_streamed_arguments_through_both_translators() -> None:
    seen, _ = streamed_turn(PIECES)
    out = agui_events(seen)
    check_agui_sequence(out)
    kinds = [e["type"] for e in out]
    start = kinds.index("TOOL_CALL_START")
    assert kinds[start:start + 5] == ["TOOL_CALL_START"] + ["TOOL_CALL_ARGS"] * 3 + ["TOOL_CALL_END"]
    assert [e["delta"] for e in out[start + 1:start + 4]] == PIECES
    chunks = aisdk_chunks(seen)
    kinds = [c["type"] for c in chunks]
    start = kinds.index("tool-input-start")
    assert kinds[start:start + 5] == ["tool-input-start"] + ["tool-input-delta"] * 3 + ["tool-input-available"]
    assert [c["inputTextDelta"] for c in chunks[start + 1:start + 4]] == PIECES
    assert chunks[start + 4]["input"] == {"name": "Omelette"} and chunks[start + 4]["toolName"] == "find_recipe"


def test_tool_message_args_refusals() -> None:
    session = events.SessionReducer(clock=lambda: STAMP)
    session.apply(events.ChatRequest(message="Go"))
    session.apply(events.ToolMessageStart(id="t1", tool_name="f", title="", status="pending", timestamp=STAMP,
                                          arguments={"a": 1}))
    session.apply(events.ToolMessageStart(id="t2", tool_name="f", title="", status="pending", timestamp=STAMP))
    session.apply(events.MessageStart(id="m1"))
    cases = [(events.ToolMessageArgs(id="t1", chunk="{}"), "protocol", "id"),  # the start gave them whole
             (events.ToolMessageArgs(id="m1", chunk="{}"), "protocol", "id"),  # a chat message
             (events.ToolMessageArgs(id="t9", chunk="{}"), "unknown", "id"),
             (events.ToolMessageArgs(id="t2", chunk="x" * (MAX_ARGUMENTS + 1)), "size", "chunk")]
    for event, code, path in cases:
        with pytest.raises(ValidationError) as caught:
            session.apply(event)
        assert (caught.value.code, caught.value.path) == (code, path)
    session.apply(events.ToolMessageArgs(id="t2", chunk='{"a": '))
    assert session.messages[2].arguments is None  # not whole yet
    session.apply(events.ToolMessageUpdate(id="t2", patch={"status": "running"}))
    with pytest.raises(ValidationError) as caught:
        session.apply(events.ToolMessageArgs(id="t2", chunk="2}"))  # the tool runs: its arguments are done
    assert caught.value.code == "protocol"
    run = aisdk.AiSdkStream(message_id="a1")  # a translator refuses arguments once the call's input ended
    run.translate(events.ToolMessageStart(id="t1", tool_name="f", title="", timestamp=STAMP))
    run.translate(events.Progress(status="running", progress=1))
    with pytest.raises(ValidationError) as caught:
        run.translate(events.ToolMessageArgs(id="t1", chunk="{}"))
    assert (caught.value.code, caught.value.path) == ("protocol", "id")


def test_a_stream_cut_off_ends_its_started_tool_messages() -> None:
    registry = ToolRegistry()

    def model(body: dict[str, Any]) -> Any:
        yield {"id": "c1", "object": "chat.completion.chunk", "created": 0, "model": "gpt-4o", "choices": [
            {"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "call_1", "type": "function",
                                                   "function": {"name": "find", "arguments": '{"q'}}]},
             "finish_reason": None}]}
        raise ConnectionError("the connection dropped")

    seen: list[events.Event] = []
    turn = AgentTurn(openai, ConversationHistory([ChatMessage.system("You search.")]), "Go", tools=registry, params={"model": "gpt-4o", "stream": True},
                     on_event=seen.append)
    turn.run(model)
    assert [e.EVENT for e in seen] == ["turn:start", "tool:message:start", "tool:message:args", "tool:message:complete",
                                       "completion"]
    assert seen[3].status == "error" and seen[3].error == "the model's answer ended before this call was whole"
    chunks = aisdk_chunks(seen)
    assert [c["type"] for c in chunks][-5:] == ["tool-input-delta", "tool-input-available", "tool-output-error",
                                                "error", "finish"]
    assert chunks[-4]["input"] == {}  # the cut-off JSON is no object


def test_a_translator_bounds_the_streamed_arguments() -> None:
    stream = aisdk.AiSdkStream(message_id="a1")
    stream.translate(events.ToolMessageStart(id="t1", tool_name="f", title="", status="pending", timestamp=STAMP))
    stream.translate(events.ToolMessageArgs(id="t1", chunk="x" * MAX_ARGUMENTS))
    with pytest.raises(ValidationError) as caught:
        stream.translate(events.ToolMessageArgs(id="t1", chunk="x"))
    assert (caught.value.code, caught.value.path) == ("size", "chunk")
