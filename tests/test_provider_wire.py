"""Issue 16 §2: the codec defects at the wire's edges, one regression test (or more) per bullet."""

from __future__ import annotations

import pytest

from agentmsg import ChatMessage, ToolCall, ToolDefinition
from agentmsg.providers import anthropic, ollama, openai

NOW = ToolDefinition("now", "Current time.", {"type": "object", "properties": {}}, strict=False)


def chat() -> list[ChatMessage]:
    return [ChatMessage.system("Be brief."), ChatMessage.user("Hi")]


# -- to_request: the complete body, absent things omitted ---------------------------------------


def test_openai_to_request_is_the_whole_body_with_absent_things_omitted() -> None:
    body = openai.to_request(chat(), model="gpt-4o", temperature=None, tool_choice=None)
    assert body == {
        "model": "gpt-4o",
        "messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}],
    }
    with_tools = openai.to_request(chat(), [NOW], model="gpt-4o", tool_choice="auto")
    assert with_tools["tools"] == openai.to_tools([NOW])
    assert with_tools["tool_choice"] == "auto"


def test_anthropic_to_request_never_sends_a_null_system() -> None:
    body = anthropic.to_request([ChatMessage.user("Hi")], model="claude", max_tokens=64)
    assert body == {"model": "claude", "max_tokens": 64, "messages": [{"role": "user", "content": "Hi"}]}
    assert "system" not in body and "tools" not in body
    body = anthropic.to_request(chat(), [NOW], model="claude", max_tokens=64)
    assert body["system"] == "Be brief."
    assert body["tools"] == anthropic.to_tools([NOW])


def test_ollama_to_request_asks_for_one_reply_unless_streaming() -> None:
    body = ollama.to_request(chat(), model="llama3.2")
    assert body == {"model": "llama3.2", "stream": False, "messages": ollama.to_messages(chat())}
    assert ollama.to_request(chat(), [NOW], model="llama3.2", stream=True)["stream"] is True
    assert ollama.to_request(chat(), [NOW], model="llama3.2")["tools"] == ollama.to_tools([NOW])


@pytest.mark.parametrize(
    ("module", "params", "needed"),
    [
        (openai, {}, "model"),
        (anthropic, {"model": "claude"}, "max_tokens"),
        (anthropic, {"max_tokens": 5}, "model"),
        (ollama, {"model": None}, "model"),
    ],
)
def test_to_request_refuses_a_body_the_api_would_refuse(module: object, params: dict[str, object], needed: str) -> None:
    with pytest.raises(TypeError, match=needed):
        module.to_request(chat(), **params)  # type: ignore[attr-defined]


def test_anthropic_to_request_refuses_a_system_param() -> None:
    with pytest.raises(TypeError, match="system"):
        anthropic.to_request(chat(), model="m", max_tokens=5, system="Other")


def test_to_request_carries_tool_calls_and_results() -> None:
    conversation = [
        ChatMessage.user("Time?"),
        ChatMessage.assistant(tool_calls=[ToolCall("call_1", "now", {})]),
        ChatMessage.tool("call_1", "12:00"),
    ]
    assert openai.to_request(conversation, [NOW], model="m")["messages"] == openai.to_messages(conversation)
    assert ollama.to_request(conversation, [NOW], model="m")["messages"] == ollama.to_messages(conversation)
    body = anthropic.to_request(conversation, [NOW], model="m", max_tokens=5)
    assert body["messages"] == anthropic.to_messages(conversation)[1]


# -- OpenAI's developer role ----------------------------------------------------------------------


def test_openai_developer_role_both_directions() -> None:
    wire = openai.to_messages(chat(), system_role="developer")
    assert wire[0] == {"role": "developer", "content": "Be brief."}
    assert openai.from_messages(wire) == tuple(chat())
    body = openai.to_request(chat(), model="o3", system_role="developer")
    assert body["messages"][0]["role"] == "developer" and "system_role" not in body
    with pytest.raises(TypeError, match="system_role"):
        openai.to_messages(chat(), system_role="assistant")
