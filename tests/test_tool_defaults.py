"""Defaults that accept what providers accept: non-strict by default, each codec its own rules."""

from __future__ import annotations

from typing import Any

import pytest

from agentmsg import ToolDefinition, ValidationError
from agentmsg.providers import anthropic, ollama, openai

LOOSE = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}


def test_a_schema_copied_from_a_provider_doc_is_accepted_as_it_is() -> None:
    tool = ToolDefinition("get_weather", "Get the weather.", LOOSE)
    assert tool.strict is False
    assert openai.to_tools([tool])[0]["function"] == {"name": "get_weather", "description": "Get the weather.", "parameters": LOOSE}


def test_strict_checks_are_one_keyword_away() -> None:
    with pytest.raises(ValidationError) as info:
        ToolDefinition("get_weather", "Get the weather.", LOOSE, strict=True)
    assert (info.value.code, info.value.path) == ("strict", "parameters.additionalProperties")


def test_generator_made_tools_stay_strict() -> None:
    def search(query: str, limit: int = 10) -> list[str]:
        """Search the notes."""
        return []

    tool = ToolDefinition.from_function(search)
    assert tool.strict is True and tool.parameters["additionalProperties"] is False
    assert ToolDefinition.from_function(search, strict=False).strict is False


OPENROUTER_STRICT = [{"type": "function", "function": {"name": "f", "description": "F.", "strict": True,
                                                       "parameters": {"type": "object", "properties": {"a": {"type": "string"}}}}}]


def test_each_codec_applies_its_own_providers_strict_rule() -> None:
    # OpenAI refuses strict tools whose objects allow additional properties; so does its codec
    with pytest.raises(ValidationError) as info:
        openai.from_tools(OPENROUTER_STRICT)
    assert (info.value.code, info.value.path) == ("strict", "[0].function.parameters.additionalProperties")
    # Ollama has no strict mode (the recorded OpenRouter requests of this shape were answered 200)
    read = ollama.from_tools(OPENROUTER_STRICT)
    assert read[0].strict is True
    assert ollama.to_tools(read) == OPENROUTER_STRICT
    # Anthropic's strict mode has its own limits, which its API reports: carried as it is
    tools: list[dict[str, Any]] = [{"name": "f", "description": "F.", "strict": True,
                                    "input_schema": {"type": "object", "properties": {"a": {"type": "string"}}}}]
    read = anthropic.from_tools(tools)
    assert read[0].strict is True and anthropic.to_tools(read) == tools
    # sending such a definition to OpenAI applies OpenAI's rule
    with pytest.raises(ValidationError) as info:
        openai.to_tools(read)
    assert (info.value.code, info.value.path) == ("strict", "[0].function.parameters.additionalProperties")


@pytest.mark.parametrize("codec", [openai, ollama])
def test_a_missing_description_becomes_the_wire_name_and_comes_back_absent(codec: Any) -> None:
    tools = [{"type": "function", "function": {"name": "get-sum", "parameters": {"type": "object"}}}]
    read = codec.from_tools(tools)
    assert (read[0].name, read[0].description) == ("get_x2d_sum", "get-sum")
    assert codec.to_tools(read) == tools


def test_anthropic_missing_description_round_trips() -> None:
    tools = [{"name": "get-sum", "input_schema": {"type": "object"}}]
    read = anthropic.from_tools(tools)
    assert read[0].description == "get-sum"
    assert anthropic.to_tools(read) == tools


# -- nothing dropped in silence: provider fields agentmsg does not model ---------------------------

ANTHROPIC_TOOL = {
    "name": "search_docs",
    "description": "Search the docs.",
    "input_schema": {"type": "object", "properties": {"q": {"type": "string"}}},
    "defer_loading": True,
    "cache_control": {"type": "ephemeral"},
    "eager_input_streaming": True,
    "input_examples": [{"q": "install"}],
    "allowed_callers": ["code_execution_20250825"],
    "type": "custom",
}
OPENROUTER_TOOL = {
    "type": "function",
    "function": {"name": "get_weather", "description": "Weather.", "parameters": {"type": "object"}, "response": {"type": "string"}},
    "cache_control": {"type": "ephemeral"},
    "eager_input_streaming": True,
}


def test_anthropic_fields_come_back_unchanged() -> None:
    (read,) = anthropic.from_tools([ANTHROPIC_TOOL])
    assert read.extras["anthropic"]["defer_loading"] is True
    assert anthropic.to_tools([read]) == [ANTHROPIC_TOOL]
    assert ToolDefinition.from_dict(read.to_dict()) == read  # the canonical shape carries them too
    assert "extras=['anthropic']" in repr(read)


@pytest.mark.parametrize("codec", [openai, ollama])
def test_openai_shaped_fields_come_back_unchanged(codec: Any) -> None:
    (read,) = codec.from_tools([OPENROUTER_TOOL])
    assert codec.to_tools([read]) == [OPENROUTER_TOOL]


def test_fields_go_back_only_to_the_provider_they_came_from() -> None:
    (read,) = anthropic.from_tools([ANTHROPIC_TOOL])
    sent = openai.to_tools([read])[0]
    assert set(sent) == {"type", "function"} and "defer_loading" not in sent["function"]


def test_an_extras_field_that_clashes_with_a_written_field_is_refused() -> None:
    tool = ToolDefinition("f", "F.", {"type": "object"}, extras={"anthropic": {"input_schema": {}}})
    with pytest.raises(ValidationError) as info:
        anthropic.to_tools([tool])
    assert (info.value.code, info.value.path) == ("unexpected", "[0].extras")
    with pytest.raises(ValidationError) as info:
        ToolDefinition("f", "F.", {"type": "object"}, extras={"Anthropic": {}})
    assert (info.value.code, info.value.path) == ("pattern", "extras")
    with pytest.raises(ValidationError) as info:
        ToolDefinition("f", "F.", {"type": "object"}, extras={"anthropic": 5})
    assert (info.value.code, info.value.path) == ("type", "extras.anthropic")
