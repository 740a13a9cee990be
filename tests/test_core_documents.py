"""Data-folder tests: every valid document parses, round-trips and matches the shipped schema;
every invalid one fails both ``from_dict`` (with the expected path and code) and the schema."""

import functools
import json
from pathlib import Path
from typing import Any, Callable

import jsonschema
import pytest

from agentmsg import (
    ChatMessage,
    ConversationHistory,
    ReasoningPart,
    ToolCall,
    ToolCallDelta,
    ToolDefinition,
    ToolResult,
    ValidationError,
    json_schema,
)

DATA = Path(__file__).parent / "data" / "core"
VALID = sorted((DATA / "valid").glob("*.json"))
INVALID = sorted((DATA / "invalid").glob("*.json"))


def _conversation(doc: Any) -> Any:
    return ConversationHistory.from_list(doc)


PARSERS: dict[str, Callable[[Any], Any]] = {
    "chat_message": ChatMessage.from_dict,
    "conversation": _conversation,
    "tool_call": ToolCall.from_dict,
    "tool_result": ToolResult.from_dict,
    "tool_definition": ToolDefinition.from_dict,
    "tool_call_delta": ToolCallDelta.from_dict,
    "reasoning_part": ReasoningPart.from_dict,
}


def _load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


@functools.cache  # one compiled validator per kind, shared by the file's tests
def _validator(kind: str) -> jsonschema.Draft202012Validator:
    schema = json_schema(kind)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker())


def test_folders_are_not_empty() -> None:
    assert len(VALID) >= 15 and len(INVALID) >= 25


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.stem)
def test_valid_document(path: Path) -> None:
    case = _load(path)
    kind, doc = case["kind"], case["document"]
    _validator(kind).validate(doc)
    obj = PARSERS[kind](doc)
    if kind == "conversation":
        assert ConversationHistory.from_list(obj.to_list()).messages == obj.messages
        obj.validate()
        return
    again = type(obj).from_dict(obj.to_dict())
    assert again == obj and hash(again) == hash(obj)
    # to_dict omits nulls and unknown keys; what stays is exactly what came in.
    out = obj.to_dict()
    for key, value in out.items():
        assert doc[key] == value or (key == "strict" and value is True)


@pytest.mark.parametrize("path", INVALID, ids=lambda p: p.stem)
def test_invalid_document(path: Path) -> None:
    case = _load(path)
    kind, doc, expected = case["kind"], case["document"], case["error"]
    with pytest.raises(ValidationError) as info:
        PARSERS[kind](doc)
    assert (info.value.path, info.value.code) == (expected["path"], expected["code"])
    assert not _validator(kind).is_valid(doc), "the shipped schema should refuse it too"


def test_error_messages_never_echo_content() -> None:
    secret = "sk-secret-4242"
    bad = [
        {"role": "user", "content": [{"type": "text", "text": secret}, {"type": "image", "source": {"type": "url", "url": secret}}]},
        {"role": "assistant", "tool_calls": [{"id": "c1", "name": secret + " x", "arguments": {}}]},
        {"role": "assistant", "tool_calls": [{"id": "c1", "name": "f", "arguments": {"key": secret + "\ud800"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": [{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": secret}}]},
        {"role": secret, "content": secret},
    ]
    for doc in bad:
        with pytest.raises(ValidationError) as info:
            ChatMessage.from_dict(doc)
        assert secret not in str(info.value), str(info.value)
