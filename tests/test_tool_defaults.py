"""Defaults that accept what providers accept: non-strict by default, each codec its own rules."""

from __future__ import annotations

from typing import Any

import pytest

from agentmsg import ToolDefinition, ValidationError
from agentmsg.providers import anthropic, ollama, openai

LOOSE = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}


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
