"""Turns of the real agent loop, translated by agentmsg.ui and replayed through the official clients' own reducers.

Each scenario runs AgentTurn (a scripted Chat Completions model, real tools) and sends its events through
AguiRun and AiSdkStream; tests/js/replay.mjs feeds what they made to @ag-ui/client's AbstractAgent.runAgent
(verifyEvents included) and to the AI SDK's readUIMessageStream, validateUIMessages and convertToModelMessages,
on ai 6 and ai 7. The messages the clients end with are checked here.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from conftest import require_program
from test_ui import PIECES, STAMP, check_agui_sequence, streamed_turn
from test_ui_clients import JS, TIMEOUT, node  # noqa: F401  (the fixture that installs the clients)

from agentmsg import ChatMessage, ConversationHistory, events
from agentmsg.agent import AgentTurn
from agentmsg.io.execution import ApprovalPolicy, ToolRegistry
from agentmsg.providers import openai
from agentmsg.ui import agui, aisdk

pytestmark = pytest.mark.e2e

AI_PACKAGES = ("ai600", "ai", "ai7")  # tests/js/package.json: ai 6.0.0, the newest 6.x and 7.x (npm aliases)


# -- the scenarios: real turns ---------------------------------------------------------------------------


@dataclass
class Segment:
    """The events of one run (one request), and the person's answer to the approvals before it."""

    events: list[events.Event] = field(default_factory=list)
    approve: bool | None = None
    reason: str | None = None


def registry_for(turn_box: list[AgentTurn]) -> ToolRegistry:
    registry = ToolRegistry()

    @registry.register(safe=True)
    def list_recipes() -> str:
        """List the recipes in the cookbook."""
        return "Pancakes\nOmelette"

    @registry.register(safe=True)
    def find_recipe(name: str) -> str:
        """Find one recipe by name."""
        return f"{name}: eggs, milk"

    @registry.register(safe=True, recoverable=(LookupError,))
    def broken_index() -> str:
        """Search an index that is gone (an error the model is told about)."""
        raise LookupError("the index is gone")

    @registry.register(safe=True)
    def slow_search() -> str:
        """Search slowly; the turn is cancelled while it runs."""
        turn_box[0].cancel("the user stopped the turn")
        return "too late"

    return registry


def scripted_model(calls: list[tuple[str, dict[str, Any]]], *, reasoning: bool = False) -> Callable[[dict[str, Any]], Any]:
    """A Chat Completions model: text and ``calls`` first, then (after the tool results) the final answer."""

    def model(body: dict[str, Any]) -> dict[str, Any]:
        if body["messages"][-1]["role"] == "tool":
            message: dict[str, Any] = {"role": "assistant", "content": "Here is what I found."}
            return {"choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}
        message = {"role": "assistant", "content": "Let me look."}
        if reasoning:
            message["reasoning_content"] = "The user asks about recipes."
        if calls:
            message["tool_calls"] = [{"id": f"call_{i}", "type": "function",
                                      "function": {"name": name, "arguments": json.dumps(args)}}
                                     for i, (name, args) in enumerate(calls)]
        return {"choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}]}

    return model


def run_turn(calls: list[tuple[str, dict[str, Any]]], *, policy: str = "auto", decision: tuple[bool, str | None] | None = None,
             cancel_at_approval: bool = False, fail: bool = False, reasoning: bool = False) -> list[Segment]:
    """Run one turn through AgentTurn and return its events, one segment per request."""
    box: list[AgentTurn] = []
    segments = [Segment()]
    history = ConversationHistory([ChatMessage.system("You are a cook.")])
    turn = AgentTurn(openai, history, "What recipes do I have?", tools=registry_for(box),
                     policy=ApprovalPolicy(default=policy),  # type: ignore[arg-type]
                     params={"model": "gpt-4o"}, on_event=lambda e: segments[-1].events.append(e))
    box.append(turn)
    model = scripted_model(calls, reasoning=reasoning)
    if fail:
        def model(body: dict[str, Any]) -> Any:
            raise ConnectionError("the model is down")
    outcome = turn.run(model)
    if outcome.status == "approval":
        if cancel_at_approval:
            turn.cancel()
        else:
            assert decision is not None
            approved, reason = decision
            segments.append(Segment(approve=approved, reason=reason))
            for item in outcome.pending:
                if approved:
                    turn.approve(item.id)
                else:
                    turn.deny(item.id, reason)
            turn.run(model)
    return segments


def handmade(*stream: events.Event) -> list[Segment]:
    return [Segment(list(stream))]


def tool_start(tool_id: str, name: str, status: str = "pending") -> events.ToolMessageStart:
    return events.ToolMessageStart(id=tool_id, tool_name=name, title=f"Calling {name}", status=status, timestamp=STAMP,
                                   arguments={})


CANCELLED = events.Completion.failed("the turn was cancelled", code="cancelled", cancelled=True)
SCENARIOS: dict[str, Callable[[], list[Segment]]] = {
    "text": lambda: run_turn([]),
    "one tool": lambda: run_turn([("list_recipes", {})]),
    "two parallel tools": lambda: run_turn([("list_recipes", {}), ("find_recipe", {"name": "Omelette"})]),
    "a failing tool": lambda: run_turn([("broken_index", {})]),
    "a failed turn": lambda: run_turn([], fail=True),
    "reasoning": lambda: run_turn([("list_recipes", {})], reasoning=True),
    "approve": lambda: run_turn([("find_recipe", {"name": "Omelette"})], policy="ask", decision=(True, None)),
    "deny with a reason": lambda: run_turn([("find_recipe", {"name": "Omelette"})], policy="ask",
                                           decision=(False, "not now")),
    "denied by the policy": lambda: run_turn([("list_recipes", {})], policy="deny"),
    "cancel at the approval": lambda: run_turn([("list_recipes", {})], policy="ask", cancel_at_approval=True),
    "cancel mid-tool": lambda: run_turn([("slow_search", {})]),
    "streamed arguments": lambda: [Segment(streamed_turn(PIECES)[0])],
    "cancel mid-stream": lambda: handmade(events.MessageStart(id="m1"), events.MessageChunk(id="m1", chunk="Let me"),
                                          CANCELLED),
    "cancel before the tool's end": lambda: handmade(
        events.MessageStart(id="m1"), events.MessageChunk(id="m1", chunk="Let me look."), events.MessageEnd(id="m1"),
        tool_start("t1", "list_recipes"), events.ToolMessageUpdate(id="t1", patch={"status": "running"}),
        events.ToolMessageUpdate(id="t1", patch={"progressText": "1/3"}), CANCELLED),
}


# -- the translators, and the clients -----------------------------------------------------------------------


def translate(segments: list[Segment]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Return the AI SDK streams and the AG-UI runs of a scenario, as replay.mjs takes them."""
    stream = aisdk.AiSdkStream(message_id="a1")
    run = agui.AguiRun(thread_id="s1", run_id="r1")
    streams, runs = [], []
    for i, segment in enumerate(segments):
        chunks = stream.resume() if i else []
        agui_events = run.resume(f"r{i + 1}") if i else []
        for event in segment.events:
            chunks += stream.translate(event)
            agui_events += run.translate(event)
        chunks += stream.close()
        agui_events += run.close()
        answer = {} if segment.approve is None else {"approve": segment.approve, "reason": segment.reason}
        streams.append({"chunks": chunks, **answer})
        runs.append({"events": agui_events, **answer})
    return streams, runs


def replay(node: str, plan: dict[str, Any]) -> dict[str, Any]:
    done = subprocess.run([node, str(JS / "replay.mjs")], input=json.dumps(plan), capture_output=True, text=True,
                          cwd=JS, timeout=TIMEOUT)
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, Any] = json.loads(done.stdout)
    return result


@dataclass
class Replayed:
    streams: list[dict[str, Any]]
    runs: list[dict[str, Any]]
    aisdk: dict[str, dict[str, Any]]  # per package
    agui: dict[str, Any]


_CACHE: dict[str, Replayed] = {}


def replayed(node: str, name: str) -> Replayed:
    """Return scenario ``name`` translated and replayed (once per test run)."""
    if name not in _CACHE:
        streams, runs = translate(SCENARIOS[name]())
        results = {package: replay(node, {"ai": package, "aisdk": streams, **({"agui": runs} if package == "ai" else {})})
                   for package in AI_PACKAGES}
        _CACHE[name] = Replayed(streams, runs, {p: r["aisdk"] for p, r in results.items()}, results["ai"]["agui"])
    return _CACHE[name]


def tool_parts(message: dict[str, Any]) -> list[dict[str, Any]]:
    return [p for p in message["parts"] if p["type"] == "dynamic-tool"]


def final_tool(result: Replayed, package: str = "ai") -> dict[str, Any]:
    (part,) = tool_parts(result.aisdk[package]["messages"][-1])
    return part


# -- what every scenario must end with ------------------------------------------------------------------


@pytest.mark.parametrize("package", AI_PACKAGES)
@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_every_scenario_passes_the_ai_sdks_own_checks(node: str, name: str, package: str) -> None:  # noqa: F811
    out = replayed(node, name).aisdk[package]
    assert out["invalid"] == [], out["invalid"]
    assert out["errors"] == (["the model call failed (ConnectionError)"] if name == "a failed turn" else [])
    if package == "ai600" and name == "a failed turn":  # ai 6.0.0 refuses the empty assistant message it made itself
        assert out["messages"][-1]["parts"] == [] and "too_small" in out["validated"]
        return
    assert out["validated"] == "ok", (out["validated"], out["messages"])
    assert "error" not in (out["model"] or {}), out["model"]
    for part in tool_parts(out["messages"][-1]):
        assert part["state"] in ("output-available", "output-error", "output-denied", "approval-requested"), part
        assert not part.get("preliminary"), part
        if part["state"] != "output-available":
            assert "output" not in part, part


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_every_scenario_passes_the_ag_ui_client(node: str, name: str) -> None:  # noqa: F811
    result = replayed(node, name)
    check_agui_sequence([event for run in result.runs for event in run["events"]])
    assert result.agui["error"] is None, result.agui["error"]
    assert result.agui["interrupts"] == []  # every approval was answered


def model_roles(model: list[dict[str, Any]]) -> list[str]:
    """Return the model messages' roles, an assistant message's with the part types it holds."""
    out = []
    for message in model:
        content = message["content"]
        kinds = sorted({part["type"] for part in content}) if isinstance(content, list) else ["text"]
        out.append(message["role"] + ("(" + "+".join(kinds) + ")" if message["role"] == "assistant" else ""))
    return out


TOOL_SCENARIOS = ("one tool", "two parallel tools", "a failing tool", "reasoning", "approve", "deny with a reason",
                  "denied by the policy", "streamed arguments")


@pytest.mark.parametrize("package", AI_PACKAGES)
@pytest.mark.parametrize("name", TOOL_SCENARIOS)
def test_one_step_per_model_call_puts_tool_results_before_the_answer(node: str, name: str,  # noqa: F811
                                                                     package: str) -> None:
    result = replayed(node, name)
    roles = model_roles(result.aisdk[package]["model"])
    assert roles[0] == "user" and "tool-call" in roles[1] and roles[-2:] == ["tool", "assistant(text)"], roles
    chunks = [c["type"] for s in result.streams for c in s["chunks"]]
    resumed = len(result.streams) - 1  # a stream that continues after approvals opens a step of its own
    assert chunks.count("start-step") == chunks.count("finish-step") == 2 + resumed


# -- the defects of the issue, each by name -------------------------------------------------------------


@pytest.mark.parametrize("package", AI_PACKAGES)
def test_a_denied_tool_call_leaves_a_valid_ai_sdk_message(node: str, package: str) -> None:  # noqa: F811
    part = final_tool(replayed(node, "deny with a reason"), package)
    assert part["state"] == "output-denied" and "output" not in part and "preliminary" not in part
    assert part["approval"] == {"id": part["toolCallId"], "approved": False, "reason": "not now"}
    part = final_tool(replayed(node, "denied by the policy"), package)  # no person's answer in the message: an error
    assert part["state"] == "output-error" and "output" not in part, part
    part = final_tool(replayed(node, "cancel at the approval"), package)  # asked, never answered: it stays asked
    assert part["state"] == "approval-requested" and "output" not in part, part


@pytest.mark.parametrize("package", AI_PACKAGES)
def test_a_tool_cancelled_mid_run_ends_as_an_error(node: str, package: str) -> None:  # noqa: F811
    result = replayed(node, "cancel before the tool's end")  # the turn ends while the tool's view is preliminary
    part = final_tool(result, package)
    assert part["state"] == "output-error" and "preliminary" not in part and "output" not in part
    assert part["errorText"] == "the turn was cancelled" and result.streams[-1]["chunks"][-1]["type"] == "abort"
    result = replayed(node, "cancel mid-tool")  # a local tool is not interrupted: its result stands, final
    part = final_tool(result, package)
    assert part["state"] == "output-available" and "preliminary" not in part and part["output"]["content"] == "too late"
    assert result.streams[-1]["chunks"][-1] == {"type": "abort"}


FAILED_TOOLS = {"a failing tool": "LookupError", "denied by the policy": "The user denied this tool call.",
                "deny with a reason": "The user denied this tool call.",
                "cancel before the tool's end": "the turn was cancelled", "cancel at the approval": "the turn was cancelled"}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_a_tools_error_reaches_ag_ui_clients(node: str, name: str) -> None:  # noqa: F811
    tools = [m for m in replayed(node, name).agui["messages"] if m["role"] == "tool"]
    if name in FAILED_TOOLS:
        (tool,) = tools
        assert tool["content"].startswith(agui.TOOL_ERROR_PREFIX) and FAILED_TOOLS[name] in tool["content"], tool
    else:
        assert all(not m["content"].startswith(agui.TOOL_ERROR_PREFIX) for m in tools), tools


@pytest.mark.parametrize("package", AI_PACKAGES)
def test_tool_arguments_stream_to_both_clients(node: str, package: str) -> None:  # noqa: F811
    result = replayed(node, "streamed arguments")
    chunks = [c for s in result.streams for c in s["chunks"]]
    assert [c["inputTextDelta"] for c in chunks if c["type"] == "tool-input-delta"] == PIECES
    part = final_tool(result, package)
    assert part["state"] == "output-available" and part["input"] == {"name": "Omelette"}
    events = [e for run in result.runs for e in run["events"]]
    assert [e["delta"] for e in events if e["type"] == "TOOL_CALL_ARGS"] == PIECES
    (call,) = [c for m in result.agui["messages"] if m["role"] == "assistant" for c in m.get("toolCalls", [])]
    assert json.loads(call["function"]["arguments"]) == {"name": "Omelette"}
