"""Reasoning survives a conversation stored as records (records -> context -> chat
messages -> provider), for every provider that signs or names its reasoning, on recorded payloads.

A ``ReasoningRecord`` holds an assistant turn's ``ReasoningPart``s; the context puts them back on
that turn's assistant message, so the request built from the records equals the one built from
the messages the model answered with.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentmsg import ChatMessage, ReasoningPart, ToolCall, ValidationError
from agentmsg.context import ConversationContext
from agentmsg.providers import anthropic, gemini, ollama, openai, openai_responses
from agentmsg.records import ReasoningRecord, TextRecord, ToolRequest, ToolResultRecord, UnknownRecord, decode

DATA = Path(__file__).parent / "data" / "provider-fixtures"


def load(name: str) -> Any:
    return json.loads((DATA / name).read_bytes())


def as_records(question: str, answer: ChatMessage, results: dict[str, str], final: ChatMessage | None) -> list[Any]:
    """What an app stores for one user turn: its question, the model's turn(s), the tool results."""
    records: list[Any] = [TextRecord.of("user", question)]
    for message in (answer, final):
        if message is None:
            continue
        if message.reasoning:
            records.append(ReasoningRecord.of(message.reasoning))
        if message.text:
            records.append(TextRecord.of("assistant", message.text))
        if message.tool_calls:
            request = ToolRequest.of(list(message.tool_calls))
            for call in message.tool_calls:
                request = request.approve(call.id)
            records.append(request)
            records += [ToolResultRecord.success(call.id, results[call.id]) for call in message.tool_calls]
    return records


def replayed(records: list[Any]) -> list[ChatMessage]:
    """Store the records as JSON, read them back, and render them through a context."""
    stored = json.loads(json.dumps([record.to_dict() for record in records]))
    context = ConversationContext(plan_prompt="", act_prompt="")
    for document in stored:
        context.add(decode(document))
    return list(context.to_chat_messages())


PARAMS: dict[str, dict[str, Any]] = {
    anthropic.__name__: {"model": "m", "max_tokens": 64}, openai_responses.__name__: {"model": "m"}, gemini.__name__: {},
}


def outputs(message: ChatMessage) -> dict[str, str]:
    return {call.id: f"result of {call.name}" for call in message.tool_calls}


CASES = [
    pytest.param(anthropic, lambda: anthropic.parse_response(load("reasoning/claude_thinking_response.json")).message,
                 id="anthropic-thinking-response"),
    pytest.param(anthropic, lambda: _stream(anthropic, load("reasoning/claude_thinking_stream.json")),
                 id="anthropic-thinking-stream"),
    pytest.param(anthropic, lambda: _stream(anthropic, load("reasoning/claude_redacted_thinking_stream.json")),
                 id="anthropic-redacted-thinking-stream"),
    pytest.param(openai_responses,
                 lambda: openai_responses.parse_response(load("openai-responses/response_reasoning_function_call.json")).message,
                 id="responses-reasoning-item-function-call"),
    pytest.param(openai_responses,
                 lambda: _stream(openai_responses, load("openai-responses/stream_reasoning_summary_function_call.json")),
                 id="responses-reasoning-summary-stream"),
    pytest.param(gemini, lambda: gemini.parse_response(load("gemini/response_parallel_function_calls.json")).message,
                 id="gemini-signed-function-calls"),
    pytest.param(gemini, lambda: gemini.parse_response(load("gemini/response_thinking.json")).message,
                 id="gemini-thought-parts"),
    pytest.param(gemini, lambda: _stream(gemini, load("gemini/stream_thinking.json")), id="gemini-thought-stream"),
]


def _stream(module: Any, events: list[Any]) -> ChatMessage:
    parser = module.StreamParser()
    for event in events:
        parser.feed(event)
    return parser.finish().message  # type: ignore[no-any-return]


@pytest.mark.parametrize(("module", "answer"), CASES)
def test_reasoning_stored_as_records_goes_back_to_its_provider(module: Any, answer: Any) -> None:
    message = answer()
    assert message.reasoning, "the fixture holds reasoning"
    results = outputs(message)
    messages = [ChatMessage.user("Question?"), message, *(ChatMessage.tool(i, text) for i, text in results.items())]
    if not message.tool_calls:
        messages.append(ChatMessage.user("And then?"))
    records = as_records("Question?", message, results, None)
    if not message.tool_calls:
        records.append(TextRecord.of("user", "And then?"))
    rendered = replayed(records)
    assert rendered == messages
    params = PARAMS[module.__name__]
    assert module.to_request(rendered, **params) == module.to_request(messages, **params)


def test_each_turn_keeps_its_own_reasoning() -> None:
    first = ChatMessage.assistant(tool_calls=[ToolCall("toolu_1", "get_weather", {"city": "Paris"})],
                                  reasoning=[ReasoningPart("Look it up.", "EqQBsig1", provider="anthropic")])
    final = ChatMessage.assistant("18 C in Paris.", reasoning=[ReasoningPart("Answer now.", "EqQBsig2", provider="anthropic")])
    rendered = replayed(as_records("Weather in Paris?", first, {"toolu_1": "18 C"}, final))
    assert rendered == [ChatMessage.user("Weather in Paris?"), first, ChatMessage.tool("toolu_1", "18 C"), final]
    _, wire = anthropic.to_messages(rendered)
    assert wire[1]["content"][0] == {"type": "thinking", "thinking": "Look it up.", "signature": "EqQBsig1"}
    assert wire[3]["content"][0] == {"type": "thinking", "thinking": "Answer now.", "signature": "EqQBsig2"}


def test_plain_reasoning_records_replay_to_ollama_and_chat_completions() -> None:
    answer = ChatMessage.assistant("3", reasoning=[ReasoningPart("Count the letters.")])
    rendered = replayed([TextRecord.of("user", "How many r?"), ReasoningRecord.of(answer.reasoning),
                         TextRecord.of("assistant", "3"), TextRecord.of("user", "Sure?")])
    assert rendered[1] == answer
    assert ollama.to_messages(rendered)[1]["thinking"] == "Count the letters."
    assert openai.to_messages(rendered)[1]["reasoning_content"] == "Count the letters."


def test_reasoning_without_an_answer_in_its_turn_is_not_rendered() -> None:
    rendered = replayed([TextRecord.of("user", "Hi"), ReasoningRecord.of([ReasoningPart("hmm")]),
                         TextRecord.of("user", "Hello?"), TextRecord.of("assistant", "Hi!")])
    assert [m.role.name for m in rendered] == ["USER", "ASSISTANT"] and rendered[1] == ChatMessage.assistant("Hi!")


def test_old_records_without_reasoning_still_load_and_render() -> None:
    documents = [
        {"type": "text", "version": 1, "id": "t1", "data": {"role": "user", "parts": [{"type": "text", "text": "Hi"}]}},
        {"type": "text", "version": 1, "id": "t2", "data": {"role": "assistant", "parts": [{"type": "text", "text": "Hello"}]}},
    ]
    context = ConversationContext(plan_prompt="", act_prompt="")
    for document in documents:
        context.add(decode(document))
    assert context.to_chat_messages() == (ChatMessage.user("Hi"), ChatMessage.assistant("Hello"))
    assert [record.to_dict() for record in context.records] == documents  # written back unchanged


def test_a_reader_without_the_reasoning_type_keeps_the_record_and_sends_nothing_of_it() -> None:
    """Records are additive: an older reader keeps an unknown type as it is and never renders it."""
    document = ReasoningRecord.of([ReasoningPart("x", "sig", provider="anthropic")], id="r1").to_dict()
    unknown = UnknownRecord(document)
    context = ConversationContext(plan_prompt="", act_prompt="")
    context.add(TextRecord.of("user", "Hi", id="t1"))
    context.add(unknown)
    context.add(TextRecord.of("assistant", "Hello", id="t2"))
    assert context.to_chat_messages() == (ChatMessage.user("Hi"), ChatMessage.assistant("Hello"))
    assert context.get("r1").to_dict() == document


def test_reasoning_record_rules_and_repr() -> None:
    record = ReasoningRecord.of([ReasoningPart("secret plan", "EqQBsecret", provider="anthropic")], id="r1")
    assert "secret" not in repr(record) and "EqQB" not in repr(record)
    assert decode(record.to_dict()) == record and hash(record) == hash(decode(record.to_dict()))
    with pytest.raises(ValidationError) as info:
        ReasoningRecord(id="r", parts=())
    assert (info.value.path, info.value.code) == ("parts", "value")
    with pytest.raises(ValidationError) as info:
        ReasoningRecord(id="r", parts=("text",))  # type: ignore[arg-type]
    assert info.value.code == "type"


def test_reasoning_counts_toward_the_token_budget() -> None:
    """It is sent back to the provider, so the budget counts its text."""
    def context(with_reasoning: bool) -> ConversationContext:
        ctx = ConversationContext(plan_prompt="", act_prompt="")
        ctx.add(TextRecord.of("user", "Hi", id="t1"))
        if with_reasoning:
            ctx.add(ReasoningRecord.of([ReasoningPart("a long line of thought " * 40)], id="r1"))
        ctx.add(TextRecord.of("assistant", "Hello", id="t2"))
        return ctx

    budget = 20
    assert len(context(False).to_chat_messages(max_tokens=budget)) == 2
    with pytest.raises(ValidationError) as info:
        context(True).to_chat_messages(max_tokens=budget)
    assert (info.value.path, info.value.code) == ("max_tokens", "size")
