"""agentmsg.agent: tools that run elsewhere (a browser's), offered beside the turn's own, paused for and resumed.

The model is the scripted Chat Completions stand-in of test_agent.py; the store is a real SQLite store.
"""

import pytest
from test_agent import PARAMS, counting_registry, two_calls_then_answer

from agentmsg import ChatMessage, ConversationHistory
from agentmsg.agent import AgentStateError, AgentTurn
from agentmsg.errors import ValidationError
from agentmsg.events import ChatRequest, SessionReducer, ToolMessageComplete
from agentmsg.io.execution import ApprovalPolicy
from agentmsg.io.store import MessageStore
from agentmsg.providers import openai
from agentmsg.tools import ToolDefinition

CONFIRM = ToolDefinition("confirm_dish", "Ask the person in the browser to confirm a dish.",
                         {"type": "object", "properties": {"dish": {"type": "string"}}, "required": ["dish"]})


def client_turn(tmp_path, **kwargs):
    registry, counts = counting_registry()
    history = ConversationHistory([ChatMessage.system("s")])
    events = []
    store = MessageStore(tmp_path / "chat.db")
    turn = AgentTurn(openai, history, "Cook", tools=registry, policy=ApprovalPolicy(default="auto"), client_tools=[CONFIRM],
                     params=PARAMS[openai], on_event=events.append, store=store, conversation_id="c1", **kwargs)
    return turn, history, events, counts, store


def test_a_client_tool_pauses_the_turn_and_its_result_resumes_it(tmp_path):
    turn, history, events, counts, store = client_turn(tmp_path)
    offered = []
    inner = two_calls_then_answer([("c1", "taste", {"dish": "soup"}), ("c2", "confirm_dish", {"dish": "soup"})])

    def model(body):
        offered.append([tool["function"]["name"] for tool in body.get("tools", [])])
        return inner(body)

    outcome = turn.run(model)
    assert "confirm_dish" in offered[0] and "taste" in offered[0]  # offered beside the turn's own tools
    assert outcome.status == "client" and [item.id for item in outcome.pending] == ["c2"]
    assert turn.state == "client" and counts["taste"] == 1  # the turn's own call ran; the client's waits
    assert [item.name for item in turn.client_calls] == ["confirm_dish"]
    with pytest.raises(AgentStateError, match="state 'client'"):
        turn.run(model)
    with pytest.raises(ValidationError) as info:
        turn.answer("c1", "not yours")  # a call the turn ran itself
    assert info.value.code == "unknown"
    turn.answer("c2", "the person confirmed soup")
    assert turn.state == "model"
    with pytest.raises(AgentStateError):
        turn.answer("c2", "again")  # answered already: the turn has moved on
    outcome = turn.run(model)
    assert outcome.status == "completed" and outcome.message.text == "soup tastes good | the person confirmed soup"
    history.validate()
    # the store holds the call and its result like a backend tool's
    stored = store.load("c1")
    assert [m.role.name for m in stored] == ["USER", "ASSISTANT", "TOOL", "TOOL", "ASSISTANT"]
    assert stored[3] == ChatMessage.tool("c2", "the person confirmed soup")
    session = SessionReducer()
    session.apply(ChatRequest(message="Cook"))
    for event in events:
        session.apply(event)
    tools = [e for e in session.history() if e.get("kind") == "tool"]
    assert [(e["toolName"], e["status"], e["content"]) for e in tools] == [
        ("taste", "completed", "soup tastes good"), ("confirm_dish", "completed", "the person confirmed soup")]


def test_a_client_tool_error_goes_back_to_the_model(tmp_path):
    turn, history, events, _, _ = client_turn(tmp_path)
    model = two_calls_then_answer([("c2", "confirm_dish", {"dish": "soup"})])
    assert turn.run(model).status == "client"
    turn.answer("c2", "the person closed the tab", is_error=True)
    outcome = turn.run(model)
    assert outcome.status == "completed" and outcome.message.text == "Error: the person closed the tab"
    assert history.messages[3] == ChatMessage.tool("c2", "the person closed the tab", is_error=True)
    (done,) = [e for e in events if isinstance(e, ToolMessageComplete)]
    assert done.status == "error"


def test_cancel_while_a_client_tool_waits_answers_the_call(tmp_path):
    turn, history, events, _, _ = client_turn(tmp_path)
    assert turn.run(two_calls_then_answer([("c2", "confirm_dish", {"dish": "soup"})])).status == "client"
    turn.cancel("the person left")
    assert turn.outcome.status == "cancelled" and turn.client_calls == ()
    history.validate()  # the call has an answer: the next turn can follow
    with pytest.raises(AgentStateError):
        turn.answer("c2", "too late")


def test_a_client_tool_whose_name_the_turn_has_is_refused(tmp_path):
    registry, _ = counting_registry()
    history = ConversationHistory([ChatMessage.system("s")])
    taste = ToolDefinition("taste", "Taste in the browser.", {"type": "object"}, strict=False)
    with pytest.raises(ValidationError) as info:
        AgentTurn(openai, history, "Cook", tools=registry, client_tools=[taste], params=PARAMS[openai])
    assert (info.value.code, info.value.path) == ("unique", "client_tools[0]")
    with pytest.raises(ValidationError) as info:
        AgentTurn(openai, ConversationHistory(), "Cook", client_tools=[CONFIRM, CONFIRM], params=PARAMS[openai])
    assert (info.value.code, info.value.path) == ("unique", "client_tools[1]")
    with pytest.raises(TypeError, match="client_tools\\[0\\] must be a ToolDefinition"):
        AgentTurn(openai, ConversationHistory(), "Cook", client_tools=[{"name": "x"}], params=PARAMS[openai])
