"""agentmsg.agent: the web-chat scenario over a real MCP server, and the loop's rules one by one.

The models are scripted stand-ins that read each request the way the provider's API would and
answer in its wire shape, built from the recorded payloads in /work/shared/provider-fixtures
(copied into tests/data/agent/): only the text, the tool name and the arguments are changed.
"""

import base64
import copy
import json
import logging
import sys
import threading
from pathlib import Path

import pytest

from agentmsg import ChatMessage, ConversationHistory
from agentmsg.agent import AgentStateError, AgentTurn
from agentmsg.context import DENIED_RESULT
from agentmsg.errors import ValidationError
from agentmsg.events import (
    ChatRequest,
    Completion,
    ImageAttachment,
    MessageChunk,
    MessageEnd,
    MessageStart,
    Progress,
    ReasoningChunk,
    ReasoningEnd,
    ReasoningStart,
    SessionReducer,
    ToolApprovalRequest,
    ToolArtifact,
    ToolMessageArgs,
    ToolMessageComplete,
    ToolMessageStart,
    ToolMessageUpdate,
    TurnStart,
    encode,
)
from agentmsg.io.execution import ApprovalPolicy, ToolRegistry
from agentmsg.io.mcp import McpClient
from agentmsg.io.store import MessageStore
from agentmsg.providers import anthropic, ollama, openai

from mcp_forkserver import sdk_server
from mcp_http import http_server

TESTS = Path(__file__).parent
DATA = TESTS / "data" / "agent"
REAL_SERVER = sdk_server(TESTS / "mcp_server.py")
RECIPES = "Pancakes\nTomato soup\nOmelette"
QUESTION = "What recipes do I have?"
LOOKING = "Let me check your cookbook."
ANSWER = "You have three recipes: Pancakes, Tomato soup and Omelette."
PNG_B64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="


def fixture(name):
    return json.loads((DATA / name).read_text(encoding="utf-8"))


# --- scripted models, one per wire format --------------------------------------------------------


def tool_results(provider, body):
    """Return {call id or tool name: result text} of the tool results the request ends with."""
    messages = body["messages"]
    if provider is anthropic:
        last = messages[-1]
        assert last["role"] == "user" and isinstance(last["content"], list)
        return {b["tool_use_id"]: b.get("content", "") for b in last["content"] if b["type"] == "tool_result"}
    out = {}
    for message in reversed(messages):
        if message["role"] != "tool":
            break
        out[message.get("tool_call_id") or message.get("tool_name")] = message["content"]
    return out


def answer(provider, text, calls=()):
    """A response body in the provider's recorded shape with ``text`` and ``calls`` [(id, name, args)]."""
    if provider is anthropic:
        body = fixture("anthropic_response_text_and_tool_use.json")
        content = [{"type": "text", "text": text}] if text else []
        for call_id, name, args in calls:
            content.append({"type": "tool_use", "id": call_id, "name": name, "input": args, "caller": {"type": "direct"}})
        body["content"] = content
        body["stop_reason"] = "tool_use" if calls else "end_turn"
        return body
    if provider is openai:
        body = fixture("openai_response_tool_call_recorded.json")
        message = body["choices"][0]["message"]
        message["content"] = text or None
        if calls:
            message["tool_calls"] = [
                {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
                for call_id, name, args in calls
            ]
        else:
            del message["tool_calls"]
        body["choices"][0]["finish_reason"] = "tool_calls" if calls else "stop"
        return body
    body = fixture("ollama_response_tool_calls.json" if calls else "ollama_response_after_tool_result.json")
    body["message"]["content"] = text
    if calls:
        body["message"]["tool_calls"] = [{"function": {"name": name, "arguments": args}} for _, name, args in calls]
    return body


def anthropic_stream(text, calls):
    """Messages API stream events in the recorded shape: text in pieces, then tool_use blocks."""
    recorded = fixture("anthropic_stream_text_then_tool_use.json")
    events = [copy.deepcopy(recorded[0]), {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}, {"type": "ping"}]
    for piece in text.split(" "):
        events.append({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": piece + " "}})
    events.append({"type": "content_block_stop", "index": 0})
    for i, (call_id, name, args) in enumerate(calls, start=1):
        events.append({"type": "content_block_start", "index": i, "content_block": {"type": "tool_use", "id": call_id, "name": name, "caller": {"type": "direct"}, "input": {}}})
        events.append({"type": "content_block_delta", "index": i, "delta": {"type": "input_json_delta", "partial_json": json.dumps(args)}})
        events.append({"type": "content_block_stop", "index": i})
    events.append({"type": "message_delta", "delta": {"stop_reason": "tool_use" if calls else "end_turn", "stop_sequence": None}, "usage": {"output_tokens": 9}})
    events.append({"type": "message_stop"})
    return events


class RecipeModel:
    """The web-chat scenario's model: text plus list_recipes, then the answer built from its result."""

    def __init__(self, provider, stream=False):
        self.provider = provider
        self.stream = stream
        self.requests = []

    def __call__(self, body):
        self.requests.append(body)
        last = body["messages"][-1]
        if last["role"] == "user" and not (self.provider is anthropic and isinstance(last["content"], list)
                                           and last["content"][0].get("type") == "tool_result"):
            calls = [("toolu_01Recipes" if self.provider is anthropic else "call_recipes", "list_recipes", {})]
            if self.stream:
                return iter(anthropic_stream(LOOKING, calls))
            return answer(self.provider, LOOKING, calls)
        (result,) = tool_results(self.provider, body).values()
        assert result == RECIPES, "the model must see the tool's result"
        text = "You have three recipes: " + ", ".join(result.split("\n")[:-1]) + " and " + result.split("\n")[-1] + "."
        if self.stream:
            return iter(anthropic_stream(text, ()))
        return answer(self.provider, text)


PARAMS = {
    anthropic: {"model": "claude-haiku-4-5", "max_tokens": 1024},
    openai: {"model": "gpt-4.1-mini"},
    ollama: {"model": "llama3.2"},
}


@pytest.fixture(scope="module")
def kitchen():
    with McpClient(REAL_SERVER, name="kitchen", timeout=30) as client:
        yield client


def run_scenario(provider, client, stream=False):
    history = ConversationHistory([ChatMessage.system("You are a helpful cook.")])
    events = []
    store = MessageStore(":memory:")
    params = dict(PARAMS[provider], stream=True) if stream else PARAMS[provider]
    turn = AgentTurn(
        provider, history, ChatRequest(message=QUESTION), mcp=[client],
        policy=ApprovalPolicy({"list_recipes": "auto"}), params=params,
        on_event=events.append, store=store, conversation_id="c1",
    )
    model = RecipeModel(provider, stream)
    outcome = turn.run(model)
    return turn, outcome, history, events, store, model


def check_events(events, chunks=(1, 1), streamed=False):
    """The sequence the chat client expects, accepted by the protocol's reducer.

    A streamed answer starts the tool message as the call streams and sends its arguments as
    ``tool:message:args``; the reducer puts them together.
    """
    kinds = [type(e) for e in events]
    expected = (
        [TurnStart, MessageStart] + [MessageChunk] * chunks[0] + [MessageEnd]
        + [ToolMessageStart] + [ToolMessageArgs] * streamed
        + [ToolMessageUpdate, Progress, ToolMessageUpdate, ToolMessageComplete]
        + [MessageStart] + [MessageChunk] * chunks[1] + [MessageEnd, Completion]
    )
    assert kinds == expected
    turn_id = events[0].turn_id
    assert events[-1].turn_id == turn_id and events[0].session_id is not None
    (start,) = [e for e in events if isinstance(e, ToolMessageStart)]
    assert start.arguments == (None if streamed else {}) and start.tool_call_id is not None
    session = SessionReducer(clock=lambda: "2026-11-26T09:00:00Z")
    session.apply(ChatRequest(message=QUESTION))
    for event in events:
        encode(event)  # each is a valid wire event
        session.apply(event)
    assert session.completion.success is True and not session.turn_open
    user, looking, tool, final = session.history()
    assert user["content"] == QUESTION
    assert looking["kind"] == "chat" and looking["content"].strip() == LOOKING
    assert tool["kind"] == "tool" and tool["toolName"] == "list_recipes" and tool["arguments"] == {}
    assert tool["status"] == "completed" and tool["content"] == RECIPES
    assert final["kind"] == "chat" and final["content"].strip() == ANSWER
    return session


@pytest.mark.parametrize("provider", [anthropic, openai, ollama], ids=["anthropic", "openai", "ollama"])
def test_web_chat_scenario(provider, kitchen):
    turn, outcome, history, events, store, model = run_scenario(provider, kitchen)
    assert outcome.status == "completed" and outcome.steps == 2
    assert outcome.message.text == ANSWER  # what the user sees
    assert [m.role.name for m in history] == ["SYSTEM", "USER", "ASSISTANT", "TOOL", "ASSISTANT"]
    assert history.messages[2].text == LOOKING and history.messages[2].tool_calls[0].name == "list_recipes"
    history.validate()
    check_events(events)
    # the stored conversation reloads equal (the system prompt is not stored)
    assert store.load("c1") == history.messages[1:]
    # the model was offered the MCP tool in the provider's shape
    offered = model.requests[0]["tools"]
    names = [t["name"] if provider is anthropic else t["function"]["name"] for t in offered]
    # db.query goes out under the one name every provider takes
    assert "list_recipes" in names and "db_query" in names


def test_web_chat_scenario_streamed(kitchen):
    turn, outcome, history, events, store, model = run_scenario(anthropic, kitchen, stream=True)
    assert outcome.status == "completed" and outcome.message.text.strip() == ANSWER
    assert model.requests[0]["stream"] is True
    check_events(events, chunks=(len(LOOKING.split(" ")), len(ANSWER.split(" "))), streamed=True)  # one chunk per delta
    assert store.load("c1") == history.messages[1:]


@pytest.mark.parametrize("json_response", [False, True], ids=["event-stream", "json"])
def test_web_chat_scenario_over_streamable_http(json_response):
    with http_server(json_response=json_response) as url, McpClient(url, name="kitchen", timeout=30) as client:
        turn, outcome, history, events, store, model = run_scenario(openai, client)
    assert outcome.status == "completed" and outcome.message.text == ANSWER
    check_events(events)


@pytest.mark.parametrize("provider", [anthropic, openai, ollama], ids=["anthropic", "openai", "ollama"])
def test_image_attachment_reaches_the_model_in_the_provider_shape(provider):
    seen = []

    def model(body):
        seen.append(body)
        return answer(provider, "A pancake.")

    request = ChatRequest(message="What is this dish?", image=ImageAttachment(data=PNG_B64, media_type="image/png"))
    history = ConversationHistory([ChatMessage.system("You are a cook.")])
    outcome = AgentTurn(provider, history, request, params=PARAMS[provider]).run(model)
    assert outcome.status == "completed" and outcome.message.text == "A pancake."
    user = seen[0]["messages"][-1]
    if provider is anthropic:
        assert user["content"] == [
            {"type": "text", "text": "What is this dish?"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG_B64}},
        ]
    elif provider is openai:
        assert user["content"] == [
            {"type": "text", "text": "What is this dish?"},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64," + PNG_B64}},
        ]
    else:
        assert user == {"role": "user", "content": "What is this dish?", "images": [PNG_B64]}


def test_mcp_image_results_reach_the_model_as_images(kitchen):
    seen = []

    def model(body):
        seen.append(body)
        if len(seen) == 1:
            return answer(anthropic, "", [("toolu_photo", "recipe_photo", {"name": "Pancakes"})])
        return answer(anthropic, "Here it is.")

    history = ConversationHistory([ChatMessage.system("s")])
    outcome = AgentTurn(anthropic, history, "Show me pancakes", mcp=[kitchen],
                        policy=ApprovalPolicy(default="auto"), params=PARAMS[anthropic]).run(model)
    assert outcome.status == "completed"
    (block,) = seen[1]["messages"][-1]["content"]
    assert block["type"] == "tool_result"
    assert [b["type"] for b in block["content"]] == ["text", "image"]
    assert block["content"][1]["source"]["media_type"] == "image/png"


def test_mcp_resources_and_progress_become_events(kitchen):
    events = []

    def model(body):
        if body["messages"][-1]["role"] == "user":
            return answer(openai, None, [("call_card", "recipe_card", {"name": "Pancakes"})])
        return answer(openai, "Done.")

    history = ConversationHistory([ChatMessage.system("s")])
    AgentTurn(openai, history, "Card please", mcp=[kitchen], policy=ApprovalPolicy(default="auto"),
              params=PARAMS[openai], on_event=events.append).run(model)
    (artifact,) = [e for e in events if isinstance(e, ToolArtifact)]
    assert artifact.artifact["type"] == "mcp_resource"
    assert artifact.artifact["content"]["resource"]["uri"] == "recipes://Pancakes"
    session = SessionReducer()
    session.apply(ChatRequest(message="Card please"))
    for event in events:
        session.apply(event)
    assert [a["id"] for a in session.artifacts] == [artifact.artifact_id]


# --- the loop's rules, with local tools -------------------------------------------------------


def counting_registry():
    calls = {"bake": 0, "taste": 0}
    registry = ToolRegistry()

    @registry.register
    def bake(dish: str) -> str:
        """Bake a dish."""
        calls["bake"] += 1
        return f"{dish} baked"

    @registry.register(safe=True)
    def taste(dish: str) -> str:
        """Taste a dish."""
        calls["taste"] += 1
        return f"{dish} tastes good"

    @registry.register
    def burn(dish: str) -> str:
        """Burn a dish."""
        raise RuntimeError("the oven caught fire")

    return registry, calls


def two_calls_then_answer(calls):
    def model(body):
        if body["messages"][-1]["role"] == "user":
            return answer(openai, "Working.", calls)
        results = tool_results(openai, body)
        return answer(openai, " | ".join(results[call_id] for call_id, _, _ in calls))

    return model


def new_turn(registry, policy, **kwargs):
    history = ConversationHistory([ChatMessage.system("s")])
    kwargs.setdefault("params", PARAMS[openai])
    return AgentTurn(openai, history, "Cook", tools=registry, policy=policy, **kwargs), history


def test_approval_stops_the_turn_and_resume_runs_nothing_twice():
    registry, counts = counting_registry()
    events = []
    turn, history = new_turn(registry, ApprovalPolicy({"taste": "auto"}, default="ask"), on_event=events.append)
    model = two_calls_then_answer([("c1", "taste", {"dish": "soup"}), ("c2", "bake", {"dish": "bread"})])
    outcome = turn.run(model)
    assert outcome.status == "approval" and [p.id for p in outcome.pending] == ["c2"]
    assert turn.state == "approval" and counts == {"bake": 0, "taste": 1}
    assert not any(isinstance(e, Completion) for e in events)
    with pytest.raises(AgentStateError, match="state 'approval'"):
        turn.run(model)
    with pytest.raises(AgentStateError):
        turn.run_tools()
    with pytest.raises(ValidationError) as info:
        turn.approve("c1")  # already ran: not pending
    assert info.value.code == "unknown"
    turn.approve("c2")
    assert turn.state == "tools"
    outcome = turn.run(model)
    assert outcome.status == "completed" and counts == {"bake": 1, "taste": 1}
    assert outcome.message.text == "soup tastes good | bread baked"
    history.validate()
    session = SessionReducer()
    session.apply(ChatRequest(message="Cook"))
    for event in events:
        session.apply(event)
    assert [e["status"] for e in session.history() if e.get("kind") == "tool"] == ["completed", "completed"]


def test_denied_call_tells_the_model():
    registry, counts = counting_registry()
    turn, history = new_turn(registry, ApprovalPolicy(default="ask"))
    model = two_calls_then_answer([("c1", "bake", {"dish": "bread"})])
    assert turn.run(model).status == "approval"
    turn.deny("c1")
    outcome = turn.run(model)
    # (the OpenAI codec marks an error result with "Error: ", the API having no flag for it)
    assert outcome.status == "completed" and outcome.message.text == "Error: " + DENIED_RESULT
    assert counts["bake"] == 0
    assert history.messages[3] == ChatMessage.tool("c1", DENIED_RESULT, is_error=True)


def test_a_turn_without_a_policy_asks_for_every_tool():
    registry, counts = counting_registry()
    turn, history = new_turn(registry, None)  # docs/agent.md: no policy, every call waits for a person
    model = two_calls_then_answer([("c1", "bake", {"dish": "bread"}), ("c2", "taste", {"dish": "soup"})])
    outcome = turn.run(model)
    assert outcome.status == "approval" and [c.id for c in outcome.pending] == ["c1", "c2"]
    assert counts == {"bake": 0, "taste": 0}  # a safe tool asks too
    turn.approve("c1")
    turn.approve("c2")
    assert turn.run(model).status == "completed" and counts == {"bake": 1, "taste": 1}

def test_a_persons_denial_through_an_auto_policy_stays_denied():
    registry, counts = counting_registry()
    events = []
    turn, history = new_turn(registry, ApprovalPolicy({"bake": "ask"}, default="auto"), on_event=events.append)
    model = two_calls_then_answer([("c1", "bake", {"dish": "bread"}), ("c2", "taste", {"dish": "soup"})])
    assert turn.run(model).status == "approval" and [c.id for c in turn.pending] == ["c1"]
    assert counts == {"bake": 0, "taste": 1}  # the auto call ran; the other waits for the person
    turn.deny("c1", reason="no oven today")
    outcome = turn.run(model)
    assert outcome.status == "completed" and counts == {"bake": 0, "taste": 1}  # never ran, nothing ran twice
    assert outcome.message.text == f"Error: {DENIED_RESULT} Reason: no oven today | soup tastes good"
    (complete,) = [e for e in events if isinstance(e, ToolMessageComplete) and e.id == turn.tool_messages["c1"]]
    assert complete.status == "error"
    history.validate()


def test_deny_policy_never_runs_and_the_turn_goes_on():
    registry, counts = counting_registry()
    turn, history = new_turn(registry, ApprovalPolicy({"bake": "deny"}, default="auto"))
    outcome = turn.run(two_calls_then_answer([("c1", "bake", {"dish": "bread"})]))
    assert outcome.status == "completed" and counts["bake"] == 0


def test_step_by_step_driving_and_misuse():
    registry, counts = counting_registry()
    turn, history = new_turn(registry, ApprovalPolicy(default="auto"))
    model = two_calls_then_answer([("c1", "taste", {"dish": "soup"}), ("c2", "taste", {"dish": "tea"})])
    assert turn.state == "model"
    with pytest.raises(AgentStateError, match="run_tools\\(\\) is not allowed in state 'model'"):
        turn.run_tools()
    turn.receive(model(turn.request()))
    assert turn.state == "tools"
    with pytest.raises(AgentStateError):
        turn.request()
    turn.run_tools()
    assert turn.state == "model" and counts["taste"] == 2
    turn.receive(model(turn.request()))
    assert turn.state == "done" and turn.outcome.message.text == "soup tastes good | tea tastes good"
    with pytest.raises(AgentStateError, match="state 'done'"):
        turn.receive({})


def test_step_limit_is_an_outcome_and_the_history_stays_valid():
    registry, counts = counting_registry()
    events = []

    def model(body):
        n = len(body["messages"])
        return answer(openai, None, [(f"c{n}", "taste", {"dish": "soup"})])

    turn, history = new_turn(registry, ApprovalPolicy(default="auto"), max_steps=2, on_event=events.append)
    outcome = turn.run(model)
    assert outcome.status == "step_limit" and outcome.steps == 2 and counts["taste"] == 2
    assert "step limit" in outcome.error
    assert events[-1] == Completion.failed(outcome.error, code="step_limit", turn_id=turn.id)
    assert outcome.code == "step_limit"
    history.validate()


def test_model_errors_end_the_turn_with_a_completion():
    registry, _ = counting_registry()
    for model, words in [
        (lambda body: (_ for _ in ()).throw(ConnectionError("secret token abc")), "the model call failed (ConnectionError)"),
        (lambda body: {"choices": "nope"}, "the model's answer could not be read"),
        (lambda body: {"error": {"type": "overloaded_error", "message": "Overloaded"}, "type": "error"}, "the model's answer could not be read"),
    ]:
        events = []
        turn, history = new_turn(registry, ApprovalPolicy(default="auto"), on_event=events.append)
        outcome = turn.run(model)
        assert outcome.status == "error" and words in outcome.error
        assert "secret" not in outcome.error
        assert events[-1] == Completion.failed(outcome.error, code="model", turn_id=turn.id)
        history.validate()


def test_a_stream_that_breaks_half_way_ends_the_turn():
    def model(body):
        def events():
            yield from anthropic_stream("partial answer", ())[:4]
            raise TimeoutError("read timed out")

        return events()

    events = []
    history = ConversationHistory([ChatMessage.system("s")])
    turn = AgentTurn(anthropic, history, "Hi", params=dict(PARAMS[anthropic], stream=True), on_event=events.append)
    outcome = turn.run(model)
    assert outcome.status == "error" and outcome.error == "the model call failed (TimeoutError)"
    assert isinstance(outcome.exception, TimeoutError)
    assert [type(e) for e in events] == [TurnStart, MessageStart, MessageChunk, MessageEnd, Completion]
    assert events[-1].code == "model" and events[-1].turn_id == turn.id == events[0].turn_id
    assert [m.role.name for m in history] == ["SYSTEM", "USER"]


def test_an_unrecoverable_tool_failure_ends_the_turn_a_recoverable_one_goes_back():
    registry, _ = counting_registry()
    turn, history = new_turn(registry, ApprovalPolicy(default="auto"))
    outcome = turn.run(two_calls_then_answer([("c1", "burn", {"dish": "toast"})]))
    assert outcome.status == "error" and outcome.error == "the tool 'burn' failed: RuntimeError"
    assert history.messages[-1].is_error and history.messages[-1].tool_call_id == "c1"
    assert history.messages[-1].text == "RuntimeError: the oven caught fire"  # what the model reads
    history.validate()
    # bad arguments are recoverable: the model reads the error and the turn goes on
    turn, history = new_turn(registry, ApprovalPolicy(default="auto"))
    outcome = turn.run(two_calls_then_answer([("c1", "bake", {"dish": 3})]))
    assert outcome.status == "completed" and outcome.message.text.startswith("Error: invalid arguments: dish")


def test_an_mcp_failure_ends_the_turn():
    client = McpClient(REAL_SERVER, name="kitchen", timeout=30).start()
    events = []

    def model(body):
        if body["messages"][-1]["role"] == "user":
            client.close()  # the server goes away between the model's answer and the tool call
            return answer(openai, None, [("c1", "list_recipes", {})])
        return answer(openai, "never")

    history = ConversationHistory([ChatMessage.system("s")])
    outcome = AgentTurn(openai, history, "Recipes?", mcp=[client], policy=ApprovalPolicy(default="auto"),
                        params=PARAMS[openai], on_event=events.append).run(model)
    assert outcome.status == "error" and outcome.error == "the tool 'list_recipes' failed: McpError"
    assert "MCP server 'kitchen'" in history.messages[-1].text  # what the model reads
    assert events[-1].success is False and events[-1].error == outcome.error and events[-1].code in ("tool", "model")
    history.validate()


SECRET = "hunter2-sk-live-0123456789"


class Locked(Exception):
    """A recoverable failure whose message holds a secret."""


def test_a_secret_in_a_foreign_exception_reaches_the_model_only(caplog):
    from dataclasses import dataclass

    @dataclass(frozen=True)
    class Card:
        number: str

        def __post_init__(self):
            raise LookupError(f"card {self.number} refused with key {SECRET}")

    registry = ToolRegistry()

    @registry.register(recoverable=[Locked])
    def unlock() -> str:
        """Unlock the vault."""
        raise Locked(f"wrong PIN, expected {SECRET}")

    @registry.register
    def pay(card: Card) -> str:
        """Pay by card."""
        return "paid"

    @registry.register
    def connect() -> str:
        """Connect to the database."""
        raise RuntimeError(f"bad password {SECRET}")

    seen = []

    def model(body):
        seen.append(body)
        if len(seen) == 1:
            return answer(openai, None, [("c1", "unlock", {}), ("c2", "pay", {"card": {"number": "4242"}})])
        if len(seen) == 2:
            results = tool_results(openai, body)  # the model reads the text, to recover
            assert results == {"c1": f"Error: Locked: wrong PIN, expected {SECRET}",
                               "c2": f"Error: invalid arguments: card: could not be built "
                                     f"(LookupError: card 4242 refused with key {SECRET})"}
            return answer(openai, None, [("c3", "connect", {})])
        raise AssertionError("the turn goes on after an unrecoverable failure")

    events = []
    with caplog.at_level(logging.DEBUG, logger="agentmsg"):
        turn, history = new_turn(registry, ApprovalPolicy(default="auto"), on_event=events.append)
        outcome = turn.run(model)
    assert outcome.status == "error" and outcome.error == "the tool 'connect' failed: RuntimeError"
    assert history.messages[-1].text == f"RuntimeError: bad password {SECRET}"  # the model's history keeps it
    wire = json.dumps([encode(event) for event in events])
    assert SECRET not in wire and SECRET not in repr(outcome) and SECRET not in outcome.error
    complete = {e.id: e.error for e in events if isinstance(e, ToolMessageComplete)}
    assert [complete[turn.tool_messages[c]] for c in ("c1", "c2", "c3")] == [
        "Locked", "invalid arguments: card: could not be built (LookupError)", "RuntimeError"]
    loud = [r.getMessage() for r in caplog.records if r.levelno >= logging.INFO]
    quiet = [r.getMessage() for r in caplog.records if r.levelno < logging.INFO]
    assert "the tool 'connect' raised RuntimeError" in loud and not any(SECRET in text for text in loud)
    assert f"the tool 'connect' raised RuntimeError: bad password {SECRET}" in quiet


def test_cancel_denies_what_waits():
    registry, counts = counting_registry()
    turn, history = new_turn(registry, ApprovalPolicy(default="ask"))
    assert turn.run(two_calls_then_answer([("c1", "bake", {"dish": "bread"})])).status == "approval"
    turn.cancel("the user left")
    assert turn.outcome.status == "cancelled" and turn.outcome.error == "the user left"
    history.validate()
    assert counts["bake"] == 0


def test_one_namespace_refuses_a_clash(kitchen):
    registry = ToolRegistry()

    @registry.register
    def list_recipes() -> str:
        """Local recipes."""
        return ""

    with pytest.raises(ValidationError) as info:
        AgentTurn(openai, ConversationHistory([ChatMessage.system("s")]), "Hi", tools=registry, mcp=[kitchen],
                  params=PARAMS[openai])
    assert info.value.code == "unique" and "'list_recipes'" in str(info.value) and "'kitchen'" in str(info.value)


def test_constructor_checks():
    from agentmsg.errors import ConversationOrderError

    params = PARAMS[openai]
    with pytest.raises(ConversationOrderError) as info:
        AgentTurn(openai, ConversationHistory([ChatMessage.system("s")]), params=params)  # no user message to answer
    assert info.value.code == "alternate"
    history = ConversationHistory([ChatMessage.system("s"), ChatMessage.user("Hi")])
    assert AgentTurn(openai, history, params=params).state == "model"  # the history may end with the user's message
    history = ConversationHistory([ChatMessage.system("s")])
    with pytest.raises(TypeError, match="provider module"):
        AgentTurn(object(), history, "Hi")
    with pytest.raises(TypeError, match="max_steps"):
        AgentTurn(openai, history, "Hi", max_steps=0, params=params)
    with pytest.raises(TypeError, match="conversation_id"):
        AgentTurn(openai, history, "Hi", store=MessageStore(":memory:"), params=params)


@pytest.mark.parametrize(("provider", "params", "needed"), [
    (openai, {}, "model"), (ollama, {"stream": True}, "model"), (anthropic, {"model": "claude-haiku-4-5"}, "max_tokens"),
])
def test_a_turn_without_the_params_its_provider_needs_fails_at_construction(provider, params, needed):
    from agentmsg.providers import gemini

    history = ConversationHistory([ChatMessage.system("s")])
    store = MessageStore(":memory:")
    with pytest.raises(TypeError) as info:
        AgentTurn(provider, history, "Hi", params=params, store=store, conversation_id="c1")
    assert str(info.value) == f"params: to_request() needs {needed}=...: the API refuses a request without it"
    assert len(history) == 1 and store.load("c1") == ()  # nothing was added or saved
    with pytest.raises(TypeError, match="takes no model"):  # the provider's own rule, whatever it is
        AgentTurn(gemini, history, "Hi", params={"model": "gemini-2.5-flash"})
    with pytest.raises(TypeError, match="builds 'system' itself"):
        AgentTurn(anthropic, history, "Hi", params={"model": "m", "max_tokens": 9, "system": "Be brief."})
    assert AgentTurn(gemini, history, "Hi").state == "model"  # Gemini needs none


@pytest.mark.parametrize("provider", [anthropic, openai, ollama], ids=["anthropic", "openai", "ollama"])
def test_an_mcp_tool_name_the_providers_refuse_is_offered_under_one_alias(kitchen, provider):
    seen = []

    def model(body):
        seen.append(body)
        if len(seen) == 1:
            return answer(provider, None, [("toolu_1" if provider is anthropic else "c1", "db_query", {"sql": "select 1"})])
        (result,) = tool_results(provider, body).values()
        return answer(provider, result)

    history = ConversationHistory([ChatMessage.system("s")])
    turn = AgentTurn(provider, history, "Query", mcp=[kitchen], policy=ApprovalPolicy(default="auto"),
                     params=PARAMS[provider])
    assert "db_query" in turn.tools and "db_x2e_query" not in turn.tools
    assert turn.run(model).message.text == "1 row for select 1"  # the server got its own name, db.query


def openai_stream(text, calls):
    """Chat Completions stream chunks in the recorded shape: text in pieces, then tool-call deltas."""
    envelope = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1727346168, "model": "gpt-4o-2024-08-06",
                "system_fingerprint": "fp_5050236cbd"}

    def chunk(delta, finish=None):
        return {**envelope, "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]}

    out = [chunk({"role": "assistant", "content": "", "refusal": None})]
    out += [chunk({"content": piece + " "}) for piece in text.split(" ")] if text else []
    for i, (call_id, name, args) in enumerate(calls):
        out.append(chunk({"tool_calls": [{"index": i, "id": call_id, "type": "function", "function": {"name": name, "arguments": ""}}]}))
        out.append(chunk({"tool_calls": [{"index": i, "function": {"arguments": json.dumps(args)}}]}))
    out.append(chunk({}, "tool_calls" if calls else "stop"))
    out.append({**envelope, "choices": [], "usage": {"prompt_tokens": 14, "completion_tokens": 30, "total_tokens": 44}})
    return out


def test_openai_stream_text_is_forwarded_as_it_arrives(kitchen):
    events = []

    def model(body):
        assert body["stream"] is True
        if body["messages"][-1]["role"] == "user":
            return iter(openai_stream(LOOKING, [("call_1", "list_recipes", {})]))
        return iter(openai_stream("Done.", []))

    history = ConversationHistory([ChatMessage.system("s")])
    outcome = AgentTurn(openai, history, QUESTION, mcp=[kitchen], policy=ApprovalPolicy(default="auto"),
                        params=dict(PARAMS[openai], stream=True), on_event=events.append).run(model)
    assert outcome.status == "completed" and history.messages[2].tool_calls[0].name == "list_recipes"
    chunks = [e.chunk for e in events if isinstance(e, MessageChunk)]
    assert chunks == [w + " " for w in LOOKING.split(" ")] + ["Done. "]
    assert history.messages[3].text == RECIPES


def test_mcp_progress_becomes_tool_message_updates(kitchen):
    events = []

    def model(body):
        if body["messages"][-1]["role"] == "user":
            return answer(openai, None, [("c1", "slow_count", {"to": 3})])
        return answer(openai, "Counted.")

    history = ConversationHistory([ChatMessage.system("s")])
    AgentTurn(openai, history, "Count", mcp=[kitchen], policy=ApprovalPolicy(default="auto"),
              params=PARAMS[openai], on_event=events.append).run(model)
    progress = [e.patch["progressText"] for e in events if isinstance(e, ToolMessageUpdate) and "progressText" in e.patch]
    assert progress == ["1/3 counted 1", "2/3 counted 2", "3/3 counted 3"]
    session = SessionReducer()
    session.apply(ChatRequest(message="Count"))
    for event in events:
        session.apply(event)
    (tool,) = [e for e in session.history() if e.get("kind") == "tool"]
    assert tool["progressText"] == "3/3 counted 3" and tool["status"] == "completed"


def progress_by_message(events):
    """Return {tool message id: [progress texts]} and {tool message id: content} of a turn's events."""
    progress, content = {}, {}
    for e in events:
        if isinstance(e, ToolMessageUpdate) and "progressText" in e.patch:
            progress.setdefault(e.id, []).append(e.patch["progressText"])
        elif isinstance(e, ToolMessageUpdate) and "content" in e.patch:
            content[e.id] = e.patch["content"]
    return progress, content


def test_progress_with_identical_calls_reaches_each_call_in_parallel(kitchen):
    events = []
    calls = [(f"c{i}", "numbered_count", {"to": 3}) for i in range(4)]  # the same tool, the same arguments

    def model(body):
        if body["messages"][-1]["role"] == "user":
            return answer(openai, None, calls)
        return answer(openai, "Counted.")

    history = ConversationHistory([ChatMessage.system("s")])
    outcome = AgentTurn(openai, history, "Count", mcp=[kitchen], policy=ApprovalPolicy(default="auto"),
                        params=PARAMS[openai], on_event=events.append).run(model)
    assert outcome.status == "completed"
    progress, content = progress_by_message(events)
    assert len(content) == 4 and sorted(content.values()) == sorted(set(content.values()))  # four distinct calls
    for tool_id, result in content.items():  # "call 3" got the progress notes of call 3, and all of them
        assert progress[tool_id] == [f"{i}/3 {result}" for i in (1, 2, 3)]


def test_progress_with_identical_calls_follows_the_call_not_the_order_they_start(kitchen):
    from agentmsg.tools import ToolCall

    events = []
    history = ConversationHistory([ChatMessage.system("s")])
    turn = AgentTurn(openai, history, "Count", mcp=[kitchen], policy=ApprovalPolicy(default="auto"),
                     params=PARAMS[openai], on_event=events.append)
    turn.receive(answer(openai, None, [("c1", "numbered_count", {"to": 2}), ("c2", "numbered_count", {"to": 2})]))
    assert turn.state == "tools"
    turn.executor.execute(ToolCall("c2", "numbered_count", {"to": 2}))  # the second call starts first
    progress, _ = progress_by_message(events)
    assert list(progress) == [turn.tool_messages["c2"]] and len(progress[turn.tool_messages["c2"]]) == 2


def test_safe_calls_run_in_parallel():
    import threading

    barrier = threading.Barrier(2, timeout=60)  # only two calls running at once get past it
    registry = ToolRegistry()

    @registry.register(safe=True)
    def weigh(item: str) -> str:
        """Weigh an ingredient."""
        barrier.wait()
        return f"{item}: 100 g"

    turn, history = new_turn(registry, ApprovalPolicy(default="auto"))
    outcome = turn.run(two_calls_then_answer([("c1", "weigh", {"item": "flour"}), ("c2", "weigh", {"item": "sugar"})]))
    assert outcome.status == "completed" and outcome.message.text == "flour: 100 g | sugar: 100 g"


def test_a_changed_tool_list_is_offered_at_the_next_request():
    seen = []

    def model(body):
        seen.append([t["function"]["name"] for t in body["tools"]])
        if len(seen) == 1:
            return answer(openai, None, [("c1", "add_tool", {"name": "fresh_tool"})])
        if len(seen) == 2:
            return answer(openai, None, [("c2", "fresh_tool", {})])
        return answer(openai, tool_results(openai, body)["c2"])

    with McpClient(REAL_SERVER, name="kitchen", timeout=30) as client:
        history = ConversationHistory([ChatMessage.system("s")])
        turn = AgentTurn(openai, history, "Add a tool", mcp=[client], policy=ApprovalPolicy(default="auto"),
                         params=PARAMS[openai])
        outcome = turn.run(model)
    assert "fresh_tool" not in seen[0] and "fresh_tool" in seen[1]
    assert outcome.status == "completed" and outcome.message.text == "added tool works"


def add_tool_then_answer(name):
    def model(body):
        if body["messages"][-1]["role"] == "user":
            return answer(openai, None, [("c1", "add_tool", {"name": name})])
        raise AssertionError("the turn ends before the next model call")

    return model


def test_a_server_that_fails_to_list_its_changed_tools_ends_the_turn_with_an_error_outcome():
    events = []
    with McpClient(REAL_SERVER, name="kitchen", timeout=30) as client:

        def on_event(event):
            events.append(event)
            if isinstance(event, ToolMessageComplete):  # the server said its tools changed, then goes away
                client.transport.process.terminate()
                client.transport.process.wait(30)  # gone before the turn asks it for its tools

        history = ConversationHistory([ChatMessage.system("s")])
        turn = AgentTurn(openai, history, "Add a tool", mcp=[client], policy=ApprovalPolicy(default="auto"),
                         params=PARAMS[openai], on_event=on_event)
        outcome = turn.run(add_tool_then_answer("fresh_tool"))
    assert outcome.status == "error" and outcome.code == "tool" and type(outcome.exception).__name__ == "McpError"
    assert outcome.error.startswith("the MCP tools could not be listed again: MCP server 'kitchen'")
    assert events[-1] == Completion.failed(outcome.error, code="tool", turn_id=turn.id)
    history.validate()


def test_a_changed_tool_whose_name_clashes_ends_the_turn_with_an_error_outcome():
    registry = ToolRegistry()

    @registry.register
    def fresh_tool() -> str:
        """A local tool."""
        return "local"

    with McpClient(REAL_SERVER, name="kitchen", timeout=30) as client:
        history = ConversationHistory([ChatMessage.system("s")])
        turn = AgentTurn(openai, history, "Add a tool", tools=registry, mcp=[client],
                         policy=ApprovalPolicy(default="auto"), params=PARAMS[openai])
        outcome = turn.run(add_tool_then_answer("fresh_tool"))
    assert outcome.status == "error" and outcome.code == "tool" and outcome.exception.code == "unique"
    assert "'fresh_tool' is offered by both the local tools and MCP server 'kitchen'" in outcome.error
    assert turn.tools.get("fresh_tool") is fresh_tool  # the tools stay as they were (the local one)
    history.validate()


def test_the_example_names_the_install_command_without_the_mcp_sdk(tmp_path):
    import subprocess

    example = TESTS.parent / "examples" / "agent_loop.py"
    # -S leaves site-packages out: the interpreter has the standard library only, as a bare venv
    done = subprocess.run([sys.executable, "-S", str(example)], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.strip().splitlines() == [
        "examples/agent_loop.py needs the official MCP SDK for its recipe server: pip install mcp"
    ]


def test_ctrl_c_during_the_tools_keeps_what_finished_and_resumes_without_running_it_again(ctrl_c):
    import signal

    counts = {"first": 0, "second": 0}
    registry = ToolRegistry()

    @registry.register
    def first() -> str:
        """Run first."""
        counts["first"] += 1
        return "one"

    @registry.register
    def second() -> str:
        """Run second; the first time, the user presses Ctrl-C meanwhile."""
        counts["second"] += 1
        if counts["second"] == 1:
            # a real SIGINT to the main thread, as a terminal's Ctrl-C: it wakes the thread that waits in
            # run_tools() (_thread.interrupt_main() only sets a flag, which the main thread may notice late)
            signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)
        return "two"

    turn, history = new_turn(registry, ApprovalPolicy(default="auto"))
    model = two_calls_then_answer([("c1", "first", {}), ("c2", "second", {})])
    turn.receive(model(turn.request()))
    with pytest.raises(KeyboardInterrupt):
        turn.run_tools()
    assert turn.state == "tools" and counts == {"first": 1, "second": 1}
    outcome = turn.run(model)  # resume: only what has no result yet runs again
    assert outcome.status == "completed" and counts["first"] == 1
    assert outcome.message.text.startswith("one | ")
    history.validate()


# --- turn ids, message ends, reasoning, approvals on the wire, cancel -----------------------------


def replay(events, message="Cook"):
    """Apply the turn's events to a reducer as the server does (chat:send first); return it."""
    session = SessionReducer(clock=lambda: "2026-11-26T09:00:00Z")
    session.apply(ChatRequest(message=message))
    for event in events:
        encode(event)
        session.apply(event)
    return session


def anthropic_thinking_stream(thinking, text):
    """A Messages API stream with extended thinking: a thinking block (thinking and signature deltas), then text."""
    recorded = fixture("anthropic_stream_text_then_tool_use.json")
    events = [copy.deepcopy(recorded[0]),
              {"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": "", "signature": ""}}]
    for piece in thinking:
        events.append({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": piece}})
    events.append({"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "EqQBCgIYAhIM1gbcDa9GJwZA"}})
    events.append({"type": "content_block_stop", "index": 0})
    events.append({"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}})
    for piece in text:
        events.append({"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": piece}})
    events.append({"type": "content_block_stop", "index": 1})
    events.append({"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None}, "usage": {"output_tokens": 30}})
    events.append({"type": "message_stop"})
    return events


def test_streamed_anthropic_thinking_becomes_reasoning_events():
    events = []
    history = ConversationHistory([ChatMessage.system("s")])
    turn = AgentTurn(anthropic, history, "Cook", params=dict(PARAMS[anthropic], stream=True), on_event=events.append)
    outcome = turn.run(lambda body: iter(anthropic_thinking_stream(["The user ", "wants food."], ["Pan", "cakes."])))
    assert outcome.status == "completed" and outcome.message.text == "Pancakes."
    assert [type(e) for e in events] == [
        TurnStart, ReasoningStart, ReasoningChunk, ReasoningChunk, ReasoningEnd,
        MessageStart, MessageChunk, MessageChunk, MessageEnd, Completion,
    ]
    assert [e.chunk for e in events if isinstance(e, ReasoningChunk)] == ["The user ", "wants food."]
    reasoning_id = events[1].id
    assert reasoning_id not in {e.id for e in events if isinstance(e, MessageStart)}
    assert all("EqQB" not in str(encode(e)) for e in events)  # the signature never travels
    # the reasoning stays on the message (for the provider), not in the chat history
    assert history.messages[-1].reasoning[0].signature == "EqQBCgIYAhIM1gbcDa9GJwZA"
    assert [e["kind"] for e in replay(events).history()[1:]] == ["chat"]


def test_non_streamed_anthropic_thinking_becomes_reasoning_events():
    body = json.loads((TESTS / "data" / "provider-fixtures" / "reasoning" / "claude_thinking_response.json").read_text())
    thinking = next(block["thinking"] for block in body["content"] if block["type"] == "thinking")
    events = []
    history = ConversationHistory([ChatMessage.system("s")])
    AgentTurn(anthropic, history, "How do I cross the street?", params=PARAMS[anthropic],
              on_event=events.append).run(lambda request: body)
    kinds = [type(e) for e in events]
    assert kinds == [TurnStart, ReasoningStart, ReasoningChunk, ReasoningEnd, MessageStart, MessageChunk, MessageEnd, Completion]
    assert events[2].chunk == thinking
    replay(events)


def test_vllm_reasoning_content_stream_becomes_reasoning_events():
    envelope = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1727346168, "model": "Qwen/Qwen3-8B"}

    def chunk(delta, finish=None):
        return {**envelope, "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]}

    stream = [chunk({"role": "assistant", "content": ""}), chunk({"reasoning_content": "Eggs are "}),
              chunk({"reasoning_content": "quick."}), chunk({"content": "An omelette."}), chunk({}, "stop")]
    events = []
    history = ConversationHistory([ChatMessage.system("s")])
    AgentTurn(openai, history, "Quick dinner?", params=dict(PARAMS[openai], stream=True),
              on_event=events.append).run(lambda body: iter(stream))
    assert [type(e) for e in events] == [TurnStart, ReasoningStart, ReasoningChunk, ReasoningChunk, ReasoningEnd,
                                         MessageStart, MessageChunk, MessageEnd, Completion]
    replay(events)


def test_turn_id_and_tool_call_details_on_the_wire():
    registry, _ = counting_registry()
    events = []
    turn, history = new_turn(registry, ApprovalPolicy(default="auto"), on_event=events.append, conversation_id=None)
    turn.run(two_calls_then_answer([("c1", "burn", {"dish": "toast"})]))
    assert events[0] == TurnStart(turn_id=turn.id)
    (start,) = [e for e in events if isinstance(e, ToolMessageStart)]
    assert (dict(start.arguments), start.tool_call_id) == ({"dish": "toast"}, "c1")
    assert turn.tool_messages == {"c1": start.id}
    (done,) = [e for e in events if isinstance(e, ToolMessageComplete)]
    assert done.status == "error" and done.error == "RuntimeError"  # the exception's text is the model's only
    assert events[-1] == Completion.failed(turn.outcome.error, code="tool", turn_id=turn.id)
    tool = replay(events).history()[-1]
    assert (tool["arguments"], tool["toolCallId"], tool["error"]) == ({"dish": "toast"}, "c1", "RuntimeError")


def test_approval_request_events_and_a_denial_with_a_reason():
    registry, counts = counting_registry()
    events = []
    turn, history = new_turn(registry, ApprovalPolicy({"taste": "auto"}, default="ask"), on_event=events.append)
    model = two_calls_then_answer([("c1", "taste", {"dish": "soup"}), ("c2", "bake", {"dish": "bread"}),
                                   ("c3", "bake", {"dish": "cake"})])
    assert turn.run(model).status == "approval"
    requests = [e for e in events if isinstance(e, ToolApprovalRequest)]
    assert [(e.id, e.turn_id, e.tool_name, dict(e.arguments)) for e in requests] == [
        (turn.tool_messages["c2"], turn.id, "bake", {"dish": "bread"}),
        (turn.tool_messages["c3"], turn.id, "bake", {"dish": "cake"}),
    ]
    session = replay(events)
    assert session.awaiting_approval == (requests[0].id, requests[1].id) and session.turn_open
    turn.approve("c2")
    turn.deny("c3", reason="no cake today")
    outcome = turn.run(model)
    assert outcome.status == "completed" and counts["bake"] == 1
    assert history.messages[5] == ChatMessage.tool("c3", DENIED_RESULT + " Reason: no cake today", is_error=True)
    (denied,) = [e for e in events if isinstance(e, ToolMessageComplete) and e.status == "error"]
    assert denied.id == requests[1].id and denied.error == DENIED_RESULT + " Reason: no cake today"
    replay(events)


def test_cancel_while_waiting_for_approval_sends_a_cancelled_completion():
    registry, counts = counting_registry()
    events = []
    turn, history = new_turn(registry, ApprovalPolicy(default="ask"), on_event=events.append)
    turn.run(two_calls_then_answer([("c1", "bake", {"dish": "bread"})]))
    turn.cancel("the user left")
    assert turn.outcome.status == "cancelled" and turn.outcome.code == "cancelled"
    assert events[-1] == Completion.failed("the user left", code="cancelled", cancelled=True, turn_id=turn.id)
    assert events[-2].status == "error" and events[-2].error == "the user left"
    history.validate()
    session = replay(events)
    assert not session.turn_open and session.completion.cancelled
    with pytest.raises(AgentStateError, match="state 'done'"):
        turn.cancel()


def test_cancel_from_another_thread_stops_a_stream_at_the_next_event():
    import threading

    reached, gate, closed = threading.Event(), threading.Event(), threading.Event()

    def model(body):
        def stream():
            try:
                events = anthropic_stream("one two three", ())
                yield from events[:4]  # message_start, block start, ping, "one "
                reached.set()
                assert gate.wait(60), "the test never opened the gate"
                yield from events[4:]
            finally:
                closed.set()

        return stream()

    events = []
    history = ConversationHistory([ChatMessage.system("s")])
    turn = AgentTurn(anthropic, history, "Hi", params=dict(PARAMS[anthropic], stream=True), on_event=events.append)
    driver = threading.Thread(target=turn.run, args=(model,))
    driver.start()
    assert reached.wait(60)
    turn.cancel("stopped by the user")  # the driving thread is inside receive(): noted, not run here
    assert turn.state == "model" and turn.outcome is None
    gate.set()
    driver.join(60)
    assert not driver.is_alive()
    assert turn.outcome.status == "cancelled" and closed.is_set()
    assert [type(e) for e in events] == [TurnStart, MessageStart, MessageChunk, MessageChunk, MessageEnd, Completion]
    assert events[-1].cancelled and events[-1].code == "cancelled" and events[-1].turn_id == turn.id
    # the text the user saw answers the user's message, so the next turn can follow
    assert [m.role.name for m in history] == ["SYSTEM", "USER", "ASSISTANT"] and history.messages[-1].text == "one two "
    history.validate()
    history.add(ChatMessage.user("Go on"))
    replay(events, "Hi")


def test_cancel_from_another_thread_waits_for_the_running_tool_call():
    import threading

    started, gate = threading.Event(), threading.Event()
    registry = ToolRegistry()

    @registry.register
    def simmer(dish: str) -> str:
        """Simmer a dish."""
        started.set()
        assert gate.wait(60), "the test never opened the gate"
        return f"{dish} simmered"

    events = []
    turn, history = new_turn(registry, ApprovalPolicy(default="auto"), on_event=events.append)
    model = two_calls_then_answer([("c1", "simmer", {"dish": "soup"})])
    driver = threading.Thread(target=turn.run, args=(model,))
    driver.start()
    assert started.wait(60)
    turn.cancel()
    gate.set()
    driver.join(60)
    assert not driver.is_alive() and turn.outcome.status == "cancelled" and turn.steps == 1
    # the call that was running finished and is in the history; no further model call was made
    assert history.messages[-1] == ChatMessage.tool("c1", "soup simmered")
    history.validate()
    assert isinstance(events[-1], Completion) and events[-1].cancelled
    replay(events)


def test_cancel_while_the_model_is_called_answers_the_user_message():
    import threading

    called, gate = threading.Event(), threading.Event()

    def model(body):  # a blocking, non-streamed call: no step of the turn runs meanwhile
        called.set()
        assert gate.wait(60), "the test never opened the gate"
        return answer(openai, "Too late.")

    events = []
    history = ConversationHistory([ChatMessage.system("s")])
    turn = AgentTurn(openai, history, "Hi", params=PARAMS[openai], on_event=events.append)
    driver = threading.Thread(target=turn.run, args=(model,))
    driver.start()
    assert called.wait(60)
    turn.cancel("stopped")  # takes effect at once, in this thread
    assert turn.state == "done" and turn.outcome.status == "cancelled"
    gate.set()
    driver.join(60)
    assert not driver.is_alive()
    assert [m.role.name for m in history] == ["SYSTEM", "USER", "ASSISTANT"] and history.messages[-1].text == "[stopped]"
    assert [type(e) for e in events] == [TurnStart, Completion]  # the late answer was dropped, not shown
    replay(events, "Hi")
