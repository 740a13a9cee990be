"""Hypothesis: round trips are exact, and any JSON at all gives ValidationError and nothing else."""

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from agentmsg import (
    ChatMessage,
    ConversationHistory,
    ConversationOrderError,
    ImagePart,
    ImageSource,
    TextPart,
    ToolCall,
    ToolCallDelta,
    ToolDefinition,
    ToolResult,
    ValidationError,
    from_json,
    to_json,
)

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="

text = st.text(st.characters(exclude_categories=["Cs"]), max_size=20)
names = st.from_regex(r"[A-Za-z0-9_]{1,64}", fullmatch=True)
ids = st.text(st.characters(exclude_categories=["Cs"]), min_size=1, max_size=12)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | text,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(text, children, max_size=4),
    max_leaves=12,
)
arguments = st.dictionaries(text, json_values, max_size=5)
any_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=10),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=15,
)
sources = st.one_of(
    st.builds(ImageSource.from_url, st.sampled_from(["https://example.com/a.png", "http://x.io/y?z=1", "data:image/png;base64," + PNG])),
    st.builds(ImageSource.from_base64, st.just(PNG), st.sampled_from(["image/png", "image/jpeg", "image/gif", "image/webp"])),
    st.builds(ImageSource.from_path, st.from_regex(r"[a-z/]{1,20}", fullmatch=True)),
)
text_parts = st.builds(TextPart, text)
all_parts = st.one_of(text_parts, st.builds(ImagePart, sources))
tool_calls = st.builds(ToolCall, ids, names, arguments)


@st.composite
def messages(draw: Any) -> ChatMessage:
    kind = draw(st.sampled_from(["system", "user", "assistant", "tool"]))
    if kind == "system":
        return ChatMessage.system(draw(text))
    if kind == "user":
        return ChatMessage.user(draw(text | st.lists(all_parts, min_size=1, max_size=3)))
    if kind == "tool":
        return ChatMessage.tool(draw(ids), draw(text | st.lists(all_parts, min_size=1, max_size=3)), draw(st.booleans()))
    calls = draw(st.lists(tool_calls, max_size=3, unique_by=lambda c: c.id))
    content = draw(st.none() | text | st.lists(text_parts, min_size=1, max_size=2)) if calls else draw(text)
    return ChatMessage.assistant(content, calls)


@given(messages())
def test_message_round_trip(message: ChatMessage) -> None:
    assert ChatMessage.from_dict(message.to_dict()) == message
    assert from_json(to_json(message), ChatMessage) == message
    assert hash(ChatMessage.from_dict(message.to_dict())) == hash(message)


@given(st.one_of(tool_calls, st.builds(ToolResult, ids, text, st.booleans()),
                 st.builds(ToolCallDelta, st.integers(0, 9), st.none() | ids, st.none() | names, st.none() | text)))
def test_other_round_trips(obj: Any) -> None:
    assert type(obj).from_dict(obj.to_dict()) == obj


PARSERS = [ChatMessage.from_dict, ToolCall.from_dict, ToolResult.from_dict, ToolDefinition.from_dict,
           ToolCallDelta.from_dict, ImageSource.from_dict, TextPart.from_dict, ImagePart.from_dict]


@given(any_json)
def test_any_json_gives_validation_error_only(doc: Any) -> None:
    for parse in PARSERS:
        try:
            parse(doc)
        except ValidationError:
            pass
    try:
        ConversationHistory.from_list(doc)
    except (ValidationError, ConversationOrderError):
        pass


@given(messages(), st.data())
def test_mutated_documents_give_validation_error_only(message: ChatMessage, data: Any) -> None:
    doc = message.to_dict()
    # Replace one value somewhere in the document with arbitrary JSON.
    target: Any = doc
    while True:
        keys = list(target) if isinstance(target, dict) else list(range(len(target)))
        if not keys:
            break
        key = data.draw(st.sampled_from(keys))
        if isinstance(target[key], (dict, list)) and data.draw(st.booleans()):
            target = target[key]
            continue
        target[key] = data.draw(any_json)
        break
    try:
        parsed = ChatMessage.from_dict(doc)
    except ValidationError as exc:
        assert exc.code and isinstance(exc.path, str)
    else:
        assert ChatMessage.from_dict(parsed.to_dict()) == parsed


@given(st.text(st.characters(min_codepoint=0xD700, max_codepoint=0xE100)) | st.text())
def test_lone_surrogates_never_reach_output(value: str) -> None:
    try:
        message = ChatMessage.user(value)
    except ValidationError as exc:
        assert exc.code == "encoding"
    else:
        to_json(message).encode("utf-8")
