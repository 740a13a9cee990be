"""Reasoning in the core types: the part, its place on assistant messages, its JSON, streaming."""

import pickle

import pytest

from agentmsg import (
    ChatMessage,
    ReasoningAccumulator,
    ReasoningDelta,
    ReasoningPart,
    ToolCall,
    ValidationError,
    from_json,
    to_json,
)

SECRET = "the hidden chain of thought 4242"


def test_part_is_immutable_hashable_and_equal_by_value() -> None:
    a = ReasoningPart(SECRET, signature="sig", provider="anthropic")
    b = ReasoningPart(SECRET, signature="sig", provider="anthropic")
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    with pytest.raises((AttributeError, TypeError)):
        a.text = "x"  # type: ignore[misc]
    with pytest.raises((AttributeError, TypeError)):
        a.other = 1  # type: ignore[attr-defined]
    assert a != ReasoningPart(SECRET, signature="sig2", provider="anthropic")


def test_repr_shows_sizes_never_text_or_signature() -> None:
    part = ReasoningPart(SECRET, signature="SIGNATURE-XYZ", provider="openai", id="rs_1", anchor="fc_1")
    text = repr(part)
    assert SECRET not in text and "SIGNATURE-XYZ" not in text and "rs_1" not in text
    assert f"<{len(SECRET)} chars>" in text and "provider='openai'" in text
    message = ChatMessage.assistant("ok", reasoning=[part])
    assert SECRET not in repr(message) and "SIGNATURE" not in repr(message)


def test_canonical_json_round_trip_and_pickle() -> None:
    parts = [
        ReasoningPart(SECRET, signature="c2ln", provider="anthropic"),
        ReasoningPart(signature="ZGF0YQ==", redacted=True, provider="anthropic"),
        ReasoningPart("summary", signature="enc", provider="openai", id="rs_1", anchor="fc_1"),
        ReasoningPart("local thinking"),
    ]
    message = ChatMessage.assistant("42", [ToolCall("call_1", "f", {})], reasoning=parts)
    doc = message.to_dict()
    assert doc["reasoning"][1] == {
        "type": "reasoning", "text": "", "signature": "ZGF0YQ==", "redacted": True, "provider": "anthropic"
    }
    assert ChatMessage.from_dict(doc) == message
    assert from_json(to_json(message), ChatMessage) == message
    assert pickle.loads(pickle.dumps(message)) == message
    assert hash(ChatMessage.from_dict(doc)) == hash(message)
    # a reasoning-free message keeps its old shape: no "reasoning" key
    assert "reasoning" not in ChatMessage.assistant("x").to_dict()


def test_constructor_and_factory_agree() -> None:
    part = ReasoningPart("t")
    assert ChatMessage("assistant", "x", reasoning=[part]) == ChatMessage.assistant("x", reasoning=(part,))
    assert ChatMessage("assistant", "x", reasoning=[part]).reasoning == (part,)


@pytest.mark.parametrize(
    "kwargs, path, code",
    [
        ({"signature": "s"}, "provider", "missing"),
        ({"id": "rs_1"}, "provider", "missing"),
        ({"text": "x", "redacted": True, "signature": "s", "provider": "anthropic"}, "redacted", "value"),
        ({"redacted": True, "provider": "anthropic"}, "redacted", "value"),
        ({}, "text", "value"),
        ({"text": 5}, "text", "type"),
        ({"text": "x", "provider": "Open AI"}, "provider", "pattern"),
        ({"text": "x", "signature": ""}, "signature", "value"),
        ({"text": "x", "redacted": 1}, "redacted", "type"),
        ({"text": "\ud800"}, "text", "encoding"),
    ],
)
def test_part_rules(kwargs: dict, path: str, code: str) -> None:
    with pytest.raises(ValidationError) as info:
        ReasoningPart(**kwargs)
    assert (info.value.path, info.value.code) == (path, code)


def test_only_assistants_carry_reasoning() -> None:
    part = ReasoningPart(SECRET)
    for role in ("user", "system"):
        with pytest.raises(ValidationError) as info:
            ChatMessage(role, "x", reasoning=[part])
        assert (info.value.path, info.value.code) == ("reasoning", "value")
    with pytest.raises(ValidationError) as info:
        ChatMessage("tool", "x", tool_call_id="c", reasoning=[part])
    assert info.value.path == "reasoning"
    with pytest.raises(ValidationError) as info:
        ChatMessage.assistant("x", reasoning=["thinking"])  # type: ignore[list-item]
    assert (info.value.path, info.value.code) == ("reasoning[0]", "type")
    with pytest.raises(ValidationError) as info:
        ChatMessage.from_dict({"role": "assistant", "content": "x", "reasoning": [{"type": "reasoning", "signature": SECRET}]})
    assert (info.value.path, info.value.code) == ("reasoning[0].provider", "missing")
    assert SECRET not in str(info.value)


def test_reasoning_is_not_content() -> None:
    # reasoning alone does not make an assistant message: it needs content or a tool call
    with pytest.raises(ValidationError) as info:
        ChatMessage.assistant(reasoning=[ReasoningPart("t")])
    assert info.value.path == "content"
    assert ChatMessage.assistant("", reasoning=[ReasoningPart("t")]).text == ""


def test_accumulator_joins_deltas_per_index() -> None:
    acc = ReasoningAccumulator()
    for delta in [
        ReasoningDelta(1, "b1 "),
        ReasoningDelta(0, "a1 "),
        ReasoningDelta(1, "b2", signature="S1"),
        ReasoningDelta(1, signature="S2"),
        ReasoningDelta(0, "a2"),
        ReasoningDelta(2),  # nothing: left out
    ]:
        acc.add(delta)
    acc.annotate(1, provider="anthropic")
    acc.annotate(0, provider="openai", id="rs_1", anchor="fc_1")
    assert acc.finish() == (
        ReasoningPart("a1 a2", provider="openai", id="rs_1", anchor="fc_1"),
        ReasoningPart("b1 b2", signature="S1S2", provider="anthropic"),
    )
    assert len(acc) == 3


def test_accumulator_reports_bad_parts_by_position() -> None:
    acc = ReasoningAccumulator()
    acc.add(ReasoningDelta(0, "x"))
    acc.add(ReasoningDelta(3, signature="s"))  # a signature without its provider
    with pytest.raises(ValidationError) as info:
        acc.finish()
    assert (info.value.path, info.value.code) == ("reasoning[1].provider", "missing")
    with pytest.raises(TypeError):
        acc.add("x")  # type: ignore[arg-type]


def test_delta_rules_and_repr() -> None:
    assert SECRET not in repr(ReasoningDelta(0, SECRET))
    assert ReasoningDelta(0, "x", "s").to_dict() == {"index": 0, "text": "x", "signature": "s"}
    with pytest.raises(ValidationError) as info:
        ReasoningDelta(-1, "x")
    assert (info.value.path, info.value.code) == ("index", "value")
    with pytest.raises(ValidationError) as info:
        ReasoningDelta(0, None)  # type: ignore[arg-type]
    assert (info.value.path, info.value.code) == ("text", "type")
