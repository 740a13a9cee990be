"""Issue 16 §1: the validator's provider kinds refuse what the providers' APIs refuse.

Each case is a request the API answers 400 for (the lenient codecs would read it); the
validator reports it with the path and the provider's rule.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from agentmsg import ChatMessage, ToolCall
from agentmsg.providers import anthropic, ollama, openai
from agentmsg.validate._kinds import KINDS, _problems_of

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="


def problems(kind: str, doc: Any) -> list[tuple[str, str]]:
    return [(getattr(e, "path", ""), e.code) for e in _problems_of(KINDS[kind].check, doc)]


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
