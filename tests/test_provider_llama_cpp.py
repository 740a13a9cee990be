"""What llama-cpp-python's OpenAI-compatible server really sends, read by the OpenAI codec offline.

The payloads in tests/data/provider-fixtures/llama-cpp were recorded from the server running
SmolLM2-135M-Instruct (its provenance.json: versions, model file, command line; recorded by
``python tests/model_server.py record``). Each file holds the request agentmsg sent and the
server's reply; tests/test_real_model.py runs the same server live.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

import pytest

from agentmsg import ChatMessage, ToolCall, ValidationError
from agentmsg.agent import AgentTurn
from agentmsg.history import ConversationHistory
from agentmsg.io.execution import ApprovalPolicy, ToolRegistry
from agentmsg.providers import openai

DATA = Path(__file__).parent / "data" / "provider-fixtures" / "llama-cpp"
RECIPES = "Pancakes\nTomato soup\nOmelette"


def load(stem: str) -> dict[str, Any]:
    return dict(json.loads((DATA / f"{stem}.json").read_bytes()))


def streamed(record: dict[str, Any]) -> tuple[list[Any], Any]:
    """Feed the recorded chunks, then the raw SSE whole and byte by byte: the same deltas and Response each way."""
    parser = openai.StreamParser()
    items = [item for chunk in record["chunks"] for item in parser.feed(chunk)]
    response = parser.finish()
    raw = (DATA / record["raw"]).read_bytes()
    whole = openai.StreamParser()
    assert list(whole.feed_raw(raw)) == items
    assert whole.finish() == response
    byte = openai.StreamParser()
    assert [item for i in range(len(raw)) for item in byte.feed_raw(raw[i:i + 1])] == items
    assert byte.finish() == response
    return items, response


def the_call(message: ChatMessage) -> ToolCall:
    (call,) = message.tool_calls
    assert call.name == "list_recipes" and dict(call.arguments) == {}
    assert call.id.startswith("call__0_list_recipes_cmpl-")  # the server's own id shape
    return call


def check_chat_response_text(record: dict[str, Any]) -> None:
    response = openai.parse_response(record["response"])
    assert response.message.text and not response.message.tool_calls
    assert (response.finish_reason, response.usage["completion_tokens"]) == ("length", 48)


def check_chat_response_tools_without_tool_choice(record: dict[str, Any]) -> None:
    # the tools were sent, yet the server left them out of the prompt: as many prompt tokens as without them
    assert record["request"]["tools"] and "tool_choice" not in record["request"]
    response = openai.parse_response(record["response"])
    assert response.message.text and not response.message.tool_calls
    assert response.usage["prompt_tokens"] == load("chat_response_text")["response"]["usage"]["prompt_tokens"]


def check_chat_response_tool_choice_auto(record: dict[str, Any]) -> None:
    message = record["response"]["choices"][0]["message"]
    assert message["function_call"]["name"] == "get_recipe:"  # the legacy echo names another tool, with a ':'
    response = openai.parse_response(record["response"])
    the_call(response.message)
    assert (response.message.content, response.finish_reason) == (None, "tool_calls")


def check_chat_response_tool_choice_forced(record: dict[str, Any]) -> None:
    assert record["response"]["choices"][0]["message"]["function_call"]["name"] == "list_recipes"
    response = openai.parse_response(record["response"])
    call = the_call(response.message)
    assert call.id == "call__0_list_recipes_" + record["response"]["id"].replace("chatcmpl-", "cmpl-")


def check_chat_stream_text(record: dict[str, Any]) -> None:
    items, response = streamed(record)
    assert "".join(items) == response.message.text and len(items) > 10
    assert (response.finish_reason, response.message.tool_calls) == ("length", ())


def check_chat_stream_tool_choice_forced(record: dict[str, Any]) -> None:
    assert all(c["choices"][0]["delta"]["function_call"] for c in record["chunks"][1:-1])  # the echo in every chunk
    items, response = streamed(record)
    assert [item.name for item in items] == ["list_recipes"] * 4  # the id and name repeated in every chunk
    the_call(response.message)
    assert response.finish_reason == "tool_calls"


def check_chat_stream_tool_choice_auto(record: dict[str, Any]) -> None:
    # HTTP 200, an event stream, and not one event: the codec says the stream is incomplete
    assert (record["status"], record["content_type"], record["chunks"]) == (200, "text/event-stream; charset=utf-8", [])
    parser = openai.StreamParser()
    assert parser.feed_raw((DATA / record["raw"]).read_bytes()) == ()
    with pytest.raises(ValidationError) as caught:
        parser.finish()
    assert caught.value.code == "incomplete"


def check_chat_error_assistant_content_null(record: dict[str, Any]) -> None:
    (assistant,) = [m for m in record["request"]["messages"] if m["role"] == "assistant"]
    assert assistant["content"] is None and assistant["tool_calls"]
    assert record["status"] == 500
    with pytest.raises(ValidationError) as caught:
        openai.parse_response(record["response"])
    assert (caught.value.code, caught.value.path) == ("provider", "error")
    assert "validation" not in str(caught.value)  # the server's text is not repeated


def check_chat_response_after_tool_result(record: dict[str, Any]) -> None:
    (assistant,) = [m for m in record["request"]["messages"] if m["role"] == "assistant"]
    assert assistant["content"] == ""
    response = openai.parse_response(record["response"])
    assert response.message.text and not response.message.tool_calls
    # the chat format renders no tool message: the result never reached the prompt
    assert response.usage["prompt_tokens"] < load("chat_response_tool_choice_forced")["response"]["usage"]["prompt_tokens"]


def check_chat_stream_after_tool_result(record: dict[str, Any]) -> None:
    items, response = streamed(record)
    assert "".join(items) == response.message.text and not response.message.tool_calls


CHECKS: dict[str, Callable[[dict[str, Any]], None]] = {
    name[len("check_"):]: fn for name, fn in dict(globals()).items() if name.startswith("check_")
}


def test_every_recording_is_checked() -> None:
    assert sorted(CHECKS) == sorted(p.stem for p in DATA.glob("*.json") if p.name != "provenance.json")
    listed = json.loads((DATA / "provenance.json").read_bytes())["files"]
    assert sorted(f["file"] for f in listed) == sorted(f"{stem}.json" for stem in CHECKS)


@pytest.mark.parametrize("stem", sorted(CHECKS))
def test_recording(stem: str) -> None:
    CHECKS[stem](load(stem))


@pytest.mark.parametrize("stem", sorted(CHECKS))
def test_the_codec_sends_the_recorded_request_again(stem: str) -> None:
    """Each recorded request reads back and is sent again as it was (with its empty_content)."""
    request = load(stem)["request"]
    messages = openai.from_messages(request["messages"])
    tools = openai.from_tools(request.get("tools", []))
    params = {k: v for k, v in request.items() if k not in ("messages", "tools")}
    empty = next((m["content"] for m in request["messages"] if m["role"] == "assistant"), None)
    assert openai.to_request(messages, tools, empty_content=empty, **params) == request


# -- the defects the real server showed, each by name ------------------------------------------------


def test_a_legacy_function_call_beside_tool_calls_is_left_out() -> None:
    body = load("chat_response_tool_choice_auto")["response"]
    assert openai.parse_response(body).message.tool_calls[0].name == "list_recipes"
    alone = json.loads(json.dumps(body))
    del alone["choices"][0]["message"]["tool_calls"]  # a function_call with no tool_calls is still refused
    with pytest.raises(ValidationError) as caught:
        openai.parse_response(alone)
    assert (caught.value.code, caught.value.path) == ("unsupported", "choices[0].message.function_call")


def test_a_streamed_function_call_beside_tool_calls_is_left_out() -> None:
    chunks = load("chat_stream_tool_choice_forced")["chunks"]
    assert openai.StreamParser().feed(chunks[1])[0].name == "list_recipes"
    alone = json.loads(json.dumps(chunks[1]))
    alone["choices"][0]["delta"]["tool_calls"] = None
    with pytest.raises(ValidationError) as caught:
        openai.StreamParser().feed(alone)
    assert (caught.value.code, caught.value.path) == ("unsupported", "choices[0].delta.function_call")


def test_an_assistant_message_with_only_tool_calls_can_send_empty_content() -> None:
    call = ToolCall("call_1", "list_recipes", {})
    messages = [ChatMessage.user("Hi"), ChatMessage.assistant(tool_calls=[call]), ChatMessage.tool("call_1", "x")]
    assert openai.to_messages(messages)[1]["content"] is None  # OpenAI's documented form stays the default
    assert openai.to_request(messages, model="m", empty_content="")["messages"][1]["content"] == ""
    assert openai.to_messages([ChatMessage.assistant("Looking.", tool_calls=[call])], empty_content="")[0]["content"] == "Looking."
    for wrong in (" ", 0, False):
        with pytest.raises(TypeError, match="empty_content must be None or ''"):
            openai.to_messages(messages, empty_content=wrong)  # type: ignore[arg-type]


def test_an_empty_stream_is_incomplete() -> None:
    with pytest.raises(ValidationError) as caught:
        openai.StreamParser().finish()
    assert caught.value.code == "incomplete"


def test_the_agent_turn_on_the_recorded_replies() -> None:
    """AgentTurn through the recorded forced call (streamed) and answer, with empty_content in its params."""
    registry = ToolRegistry()

    @registry.register(safe=True)
    def list_recipes() -> str:
        """List the recipes in the user's cookbook."""
        return RECIPES

    replies = [load("chat_stream_tool_choice_forced")["chunks"], load("chat_response_after_tool_result")["response"]]
    sent: list[dict[str, Any]] = []
    history = ConversationHistory([ChatMessage.system("You are a helpful cook.")])
    turn = AgentTurn(openai, history, "What recipes do I have?", tools=registry, policy=ApprovalPolicy(default="auto"),
                     params={"model": "smollm2", "empty_content": ""})
    outcome = turn.run(lambda body: sent.append(body) or replies[len(sent) - 1])
    assert outcome.status == "completed"
    assert [m.role.name for m in history] == ["SYSTEM", "USER", "ASSISTANT", "TOOL", "ASSISTANT"]
    the_call(history.messages[2])
    assert history.messages[3].text == RECIPES
    assert sent[1]["messages"][2]["content"] == "" and "empty_content" not in sent[1]


def test_without_a_model_server_the_real_model_tests_fail_saying_why(monkeypatch: pytest.MonkeyPatch,
                                                                    tmp_path: Path) -> None:
    """tests/test_real_model.py never skips: no environment, a failed build, a wrong path each fail with the reason."""
    from model_server import ENV, ERROR_ENV, require_model_python

    monkeypatch.delenv(ERROR_ENV, raising=False)
    monkeypatch.delenv(ENV, raising=False)
    with pytest.raises(pytest.fail.Exception, match=f"no model server: set {ENV}"):
        require_model_python()
    monkeypatch.setenv(ENV, str(tmp_path / "nowhere" / "python"))
    with pytest.raises(pytest.fail.Exception, match=f"{ENV} names no file"):
        require_model_python()
    monkeypatch.setenv(ERROR_ENV, "installing llama-cpp-python[server] failed after 3 s (log: /tmp/x/build.log)")
    with pytest.raises(pytest.fail.Exception, match=r"could not be built: installing .* \(log: /tmp/x/build.log\)"):
        require_model_python()
    python = tmp_path / "python"
    python.write_text("")
    monkeypatch.delenv(ERROR_ENV)
    monkeypatch.setenv(ENV, str(python))
    assert require_model_python() == str(python)
