"""Every codec refuses a value nested too deeply with ``ValidationError`` code ``depth``, never ``RecursionError``.

Each real fixture of each provider has, one slot at a time (one of each path shape), its value
replaced by one nested 10,000 deep (an object for a slot holding an object or a scalar, an array for an array, JSON
text for a string), and goes through the decoder that reads it: ``from_messages``,
``from_tools``, ``parse_response`` or a ``StreamParser``.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

from agentmsg import ChatMessage, ToolCall, ToolDefinition, ValidationError
from agentmsg.providers import anthropic, bedrock, gemini, ollama, openai, openai_responses
from test_provider_fuzz import nodes, replaced

DATA = Path(__file__).parent / "data" / "provider-fixtures"
DEPTH = 10_000
CODECS: dict[str, Any] = {
    "openai": openai, "vllm": openai, "anthropic": anthropic, "reasoning": anthropic, "ollama": ollama,
    "openai-responses": openai_responses, "gemini": gemini, "bedrock": bedrock,
}


def _deep_object() -> Any:
    value: Any = {"type": "STRING"}
    for _ in range(DEPTH):  # a schema (properties, items, anyOf) and a JSON object at once
        value = {"type": "OBJECT", "properties": {"p": value}, "items": value, "anyOf": [value]}
    return value


def _deep_array() -> Any:
    value: Any = "x"
    for _ in range(DEPTH):
        value = [value]
    return value


DEEP_OBJECT, DEEP_ARRAY = _deep_object(), _deep_array()
DEEP_TEXT = '{"a": [' * (DEPTH // 2) + "1" + "]}" * (DEPTH // 2)
DEEP_PATH = "$" + ".a" * DEPTH  # a Gemini partial argument's jsonPath


def deep_for(value: Any, key: Any) -> Any:
    if key == "jsonPath":
        return DEEP_PATH
    if isinstance(value, str):
        return DEEP_TEXT
    return DEEP_ARRAY if isinstance(value, list) else DEEP_OBJECT


def at(value: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        value = value[key]
    return value


def decoders(codec: Any, name: str, doc: Any) -> Iterator[Callable[[], Any]]:
    """Yield the calls that read ``doc``, a fixture (maybe changed) named ``name``."""
    if "stream" in name and "request" not in name:
        def stream() -> None:
            parser = codec.StreamParser()
            for event in doc if isinstance(doc, list) else [doc]:
                parser.feed(event)
            parser.finish()

        yield stream
    elif "response" in name:
        yield lambda: codec.parse_response(doc)
    if not isinstance(doc, dict):
        return
    for key, system in (("messages", "system"), ("input", "instructions"), ("contents", "systemInstruction")):
        if key in doc:
            if codec in (anthropic, openai_responses, gemini, bedrock):
                yield lambda: codec.from_messages(doc[key], doc.get(system))
            else:
                yield lambda: codec.from_messages(doc[key])
            break
    if "tools" in doc:
        yield lambda: codec.from_tools(doc["tools"])
    if type(doc.get("toolConfig")) is dict and "tools" in doc["toolConfig"]:
        yield lambda: codec.from_tools(doc["toolConfig"]["tools"])


def _shape(path: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple("*" if isinstance(k, int) else k for k in path)


def fixtures(provider: str) -> list[Path]:
    return sorted(p for p in (DATA / provider).glob("*.json") if p.stat().st_size < 200_000)


@pytest.mark.parametrize("provider", sorted(CODECS))
def test_a_value_nested_too_deeply_in_any_slot_is_refused_with_code_depth(provider: str) -> None:
    codec = CODECS[provider]
    tried = depth = 0
    for file in fixtures(provider):
        doc = json.loads(file.read_bytes())
        seen: set[tuple[Any, ...]] = set()
        for path in nodes(doc):
            shape = _shape(path)  # one slot of each shape: messages[0].content and messages[3].content alike
            if shape in seen:
                continue
            seen.add(shape)
            mutant = replaced(doc, path, deep_for(at(doc, path), path[-1] if path else None))
            for decode in decoders(codec, file.name, mutant):
                tried += 1
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # a description 20,000 characters long warns
                    try:
                        decode()
                    except ValidationError as exc:  # a slot that holds no JSON value refuses it otherwise
                        depth += exc.code == "depth"
                    except RecursionError:  # pragma: no cover - the failure this test exists to show
                        pytest.fail(f"RecursionError at {path} of {file.name}")
    assert tried > 20 and depth > 5


GEMINI_DEEP = [
    ("parameters", lambda schema: {"name": "t", "parameters": schema}),
    ("parametersJsonSchema", lambda schema: {"name": "t", "parametersJsonSchema": schema}),
]


@pytest.mark.parametrize(("key", "declaration"), GEMINI_DEEP, ids=[k for k, _ in GEMINI_DEEP])
def test_gemini_from_tools_schema_nested_too_deeply_is_refused_with_code_depth(key: str, declaration: Any) -> None:
    for schema in (DEEP_OBJECT, {"type": "OBJECT", "properties": {"p": DEEP_ARRAY}}):
        with pytest.raises(ValidationError) as info:
            gemini.from_tools([{"functionDeclarations": [declaration(schema)]}])
        assert info.value.code == "depth"
        assert info.value.path.startswith("[0].functionDeclarations[0].parameters")


def _schema(levels: int, object_type: str = "object", string_type: str = "string") -> dict[str, Any]:
    value: dict[str, Any] = {"type": string_type}
    for _ in range(levels):
        value = {"type": object_type, "properties": {"p": value}}
    return value


def _deepest(accepts: Callable[[int], object]) -> int:
    low, high = 1, 4_000
    while low < high:
        mid = (low + high + 1) // 2
        try:
            accepts(mid)
            low = mid
        except ValidationError:
            high = mid - 1
    return low


def test_gemini_parameters_and_parameters_json_schema_have_the_same_depth_bound() -> None:
    as_json_schema = _deepest(lambda n: gemini.from_tools([{"functionDeclarations": [{"name": "t", "parametersJsonSchema": _schema(n)}]}]))
    as_openapi = _deepest(lambda n: gemini.from_tools([{"functionDeclarations": [{"name": "t", "parameters": _schema(n, "OBJECT", "STRING")}]}]))
    assert as_json_schema > 100
    assert as_openapi == as_json_schema


def test_definitions_and_arguments_near_the_depth_bound_encode_to_every_provider() -> None:
    """Whatever is a few levels shy of the bound encodes; at the bound, only ``depth`` is raised."""
    deepest_tool = _deepest(lambda n: ToolDefinition("t", "d", _schema(n)))
    deepest_call = _deepest(lambda n: ToolCall("c1", "t", _schema(n)))
    for margin, must_encode in ((8, True), (0, False)):
        tool = ToolDefinition("t", "d", _schema(deepest_tool - margin))
        call = ToolCall("c1", "t", _schema(deepest_call - margin))
        messages = [ChatMessage.user("hi"), ChatMessage.assistant(tool_calls=[call]), ChatMessage.tool("c1", "ok")]
        for codec in (openai, anthropic, ollama, openai_responses, gemini, bedrock):
            for encode in (lambda: codec.to_tools([tool]), lambda: codec.to_messages(messages)):
                try:
                    assert encode()
                except ValidationError as exc:
                    assert not must_encode and exc.code == "depth"
        assert call.to_dict()["arguments"] == _schema(deepest_call - margin)
