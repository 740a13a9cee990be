"""The provider kinds' tables of known fields are their official SDKs' types, written as data.

Each provider's table (``agentmsg/validate/_fields_<provider>.py``) is compiled here from the
types its SDK declares for the wire: the request and message ``TypedDict``s, the response and
stream models (pydantic, read by their aliases). A key typed as an open value (a ``Dict``, an
``object``, ``Any``: a JSON Schema, metadata, tool arguments) is not looked into. The test fails
when a table is stale; ``AGENTMSG_REGENERATE=1`` rewrites it from the installed SDK. Every real
fixture must hold only known keys.
"""

from __future__ import annotations

import collections.abc
import contextlib
import importlib.metadata
import json
import os
import types
from pathlib import Path
from typing import Any

import pytest
import typing_extensions as typing
from hypothesis import given, settings
from hypothesis import strategies as st
from test_validate_fields import END, render, shaped

from agentmsg.validate._fields import Node, _walk, has_unknown_fields, unknown_fields
from agentmsg.validate._registry import KINDS

ROOT = Path(__file__).resolve().parent.parent
BEGIN = "# -- written from the SDK's types by tests/test_validate_provider_fields.py (AGENTMSG_REGENERATE=1) --\n"
WRAPPERS = (typing.Required, typing.NotRequired, typing.ReadOnly)
OPEN = object()  # a value whose keys are anyone's
_ARRAYS = {list, tuple, set, frozenset, collections.abc.Iterable, collections.abc.Sequence, collections.abc.Iterator}
_MAPS = {dict, collections.abc.Mapping, collections.abc.MutableMapping}


def _is_model(tp: Any) -> bool:
    return isinstance(tp, type) and hasattr(tp, "model_fields")


def _is_typed_dict(tp: Any) -> bool:
    return isinstance(tp, type) and typing.is_typeddict(tp)


class Compiler:
    """Read SDK types as nodes ``(keys, children, tag, variants)`` (see ``agentmsg.validate._fields``)."""

    def __init__(self, wire: dict[Any, set[str]] | None = None, names: bool = False, opened: tuple[Any, ...] = (),
                 dict_form: bool = False) -> None:
        self.dict_form = dict_form  # a Mapping beside a model is that model's dict form (ollama), not an open value
        self.wire = wire or {}  # the keys a type's wire form holds beyond its declared fields (open values)
        self.names = names  # a model's field names are wire keys too, beside its aliases (protobuf JSON)
        self.opened = opened  # the types of a value whose keys are anyone's (a JSON Schema)
        self.stack: list[frozenset[Any]] = []  # the values being compiled, to stop at one inside itself

    def members(self, tp: Any, out: list[Any]) -> None:
        """Gather the object types ``tp`` may be (OPEN for an open value), arrays looked through."""
        origin = typing.get_origin(tp)
        args = typing.get_args(tp)
        if origin is typing.Annotated:
            self.members(args[0], out)
        elif origin in (typing.Union, types.UnionType, *WRAPPERS):
            for arg in args:
                self.members(arg, out)
        elif origin in _ARRAYS:
            for arg in args[:1]:
                self.members(arg, out)
        elif origin in _MAPS or tp in _MAPS or tp is Any or tp is object:
            out.append(OPEN)
        elif tp in self.opened:
            out.append(OPEN)
        elif _is_typed_dict(tp) or _is_model(tp):
            out.append(tp)
        elif isinstance(tp, typing.TypeAliasType if hasattr(typing, "TypeAliasType") else ()):
            self.members(tp.__value__, out)
        # anything else (str, int, a Literal, None) holds no keys

    def fields(self, tp: Any) -> dict[str, Any]:
        """Return the wire keys of an object type and their types."""
        found = dict.fromkeys(self.wire.get(tp, ()), object)
        if _is_model(tp):
            found.update((key, info.annotation) for name, info in tp.model_fields.items()
                         for key in {info.alias or name, name} if self.names or key == (info.alias or name))
            return found
        for name, hint in typing.get_type_hints(tp, include_extras=True).items():
            alias = name
            for extra in getattr(hint, "__metadata__", ()) if typing.get_origin(hint) is typing.Annotated else ():
                alias = getattr(extra, "alias", None) or alias
            if typing.get_origin(hint) in WRAPPERS:
                inner = typing.get_args(hint)[0]
                if typing.get_origin(inner) is typing.Annotated:
                    for extra in inner.__metadata__:
                        alias = getattr(extra, "alias", None) or alias
            found[alias] = hint
        return found

    def constants(self, hint: Any) -> set[str]:
        """Return the string constants a tag's type allows (empty: not a tag)."""
        origin = typing.get_origin(hint)
        if origin in (typing.Annotated, *WRAPPERS):
            return self.constants(typing.get_args(hint)[0])
        if origin is typing.Literal and all(isinstance(a, str) for a in typing.get_args(hint)):
            return set(typing.get_args(hint))
        if origin in (typing.Union, types.UnionType):  # Optional[Literal[...]]: a tag that may be left out
            values = [self.constants(arg) for arg in typing.get_args(hint) if arg is not type(None)]
            return set().union(*values) if all(values) else set()
        return set()

    def node(self, hints: list[Any]) -> Node | None:
        """Return the node of a value of any of ``hints`` (None: open, or no object)."""
        found: list[Any] = []
        for hint in hints:
            self.members(hint, found)
        objects = list(dict.fromkeys(found))
        if self.dict_form and len(objects) > 1:
            objects = [tp for tp in objects if tp is not OPEN]
        same = frozenset(objects)
        if not objects or OPEN in objects or same in self.stack:
            return None  # an open value, a scalar, or a value inside itself (a JSON Schema): not looked into
        self.stack.append(same)
        try:
            return self._objects(objects)
        finally:
            self.stack.pop()

    def _objects(self, objects: list[Any]) -> Node:
        per_type = [self.fields(tp) for tp in objects]
        keys: frozenset[str] = frozenset().union(*per_type)
        hints: dict[str, list[Any]] = {}
        for one in per_type:
            for key, hint in one.items():
                hints.setdefault(key, []).append(hint)
        children = {}
        for key in sorted(hints):
            child = self.node(hints[key])
            if child is not None:
                children[key] = child
        tag, variants = "", {}
        if len(objects) > 1:
            tags = [key for key in sorted(keys) if all(self.constants(one.get(key)) for one in per_type)]
            if tags:
                tag = "type" if "type" in tags else "role" if "role" in tags else tags[0]
                by_value: dict[str, list[Any]] = {}
                for tp, one in zip(objects, per_type):
                    for value in self.constants(one[tag]):
                        by_value.setdefault(value, []).append(tp)
                for value in sorted(by_value):
                    same = by_value[value]
                    variants[value] = (keys, children, "", {}) if len(same) == len(objects) else self._objects(same)
                if all(variant[:2] == (keys, children) for variant in variants.values()):
                    tag, variants = "", {}
        return keys, children, tag, variants


# vLLM's additions to the OpenAI shapes (the kinds say "OpenAI (or vLLM)"), from vLLM's
# vllm/entrypoints/openai/protocol.py: the request's sampling and extra parameters, the reasoning
# of a message, the stop reason and token ids of a choice. agentmsg's codec writes and reads
# ``reasoning_content``.
class VllmMessage(typing.TypedDict, total=False):
    role: typing.Literal["assistant"]
    reasoning_content: str
    reasoning: str


VLLM_REQUEST = """best_of use_beam_search top_k min_p repetition_penalty length_penalty stop_token_ids
include_stop_str_in_output ignore_eos min_tokens skip_special_tokens spaces_between_special_tokens
truncate_prompt_tokens prompt_logprobs allowed_token_ids bad_words echo add_generation_prompt
continue_final_message add_special_tokens documents chat_template chat_template_kwargs mm_processor_kwargs
guided_json guided_regex guided_choice guided_grammar structural_tag guided_decoding_backend
guided_whitespace_pattern priority request_id logits_processors return_tokens_as_token_ids cache_salt
kv_transfer_params vllm_xargs include_reasoning""".split()
VllmRequest = typing.TypedDict("VllmRequest", {"messages": list[VllmMessage], **dict.fromkeys(VLLM_REQUEST, object)},
                               total=False)
VllmChoice = typing.TypedDict("VllmChoice", {"message": VllmMessage, "delta": VllmMessage, "stop_reason": object,
                                             "token_ids": object}, total=False)
VllmResponse = typing.TypedDict("VllmResponse", {"choices": list[VllmChoice], "prompt_logprobs": object,
                                                 "prompt_token_ids": object, "kv_transfer_params": object}, total=False)


def openai_table() -> dict[str, Any]:
    from openai.types import ErrorObject
    from openai.types.chat import (ChatCompletion, ChatCompletionChunk, ChatCompletionMessageParam,
                                   ChatCompletionToolUnionParam, completion_create_params)
    return {
        "openai_request": [completion_create_params.CompletionCreateParams, VllmRequest],
        "openai_messages": [ChatCompletionMessageParam, VllmMessage],
        "openai_tool": [ChatCompletionToolUnionParam], "openai_tools": [ChatCompletionToolUnionParam],
        "openai_response": [ChatCompletion, VllmResponse], "openai_stream": [ChatCompletionChunk, VllmResponse],
        "openai_error": [typing.TypedDict("OpenAIErrorBody", {"error": ErrorObject})],  # the body the SDK reads
    }


def anthropic_table() -> dict[str, Any]:
    from anthropic.types import ErrorResponse, Message, RawMessageStreamEvent, ToolUnionParam, message_create_params
    return {
        "anthropic_request": [message_create_params.MessageCreateParams],
        "anthropic_tool": [ToolUnionParam], "anthropic_tools": [ToolUnionParam],
        "anthropic_response": [Message], "anthropic_stream": [RawMessageStreamEvent], "anthropic_error": [ErrorResponse],
    }


def responses_table() -> dict[str, Any]:
    from openai.types.responses import Response, ResponseStreamEvent, response_create_params
    return {"responses_request": [response_create_params.ResponseCreateParams], "responses_response": [Response],
            "responses_stream": [ResponseStreamEvent]}


def responses_wire() -> dict[Any, set[str]]:
    """Return the keys the Responses API sends that the SDK's models do not declare (the recorded fixtures hold them).

    A response echoes ``store`` and its sampling penalties and names its ``billing``; a delta
    event carries ``obfuscation`` (padding, ``stream_options.include_obfuscation``).
    """
    from openai.types.responses import Response, ResponseStreamEvent
    events: list[Any] = []
    Compiler().members(ResponseStreamEvent, events)
    deltas = {event: {"obfuscation"} for event in events if event.__name__.endswith("DeltaEvent")}
    return {**deltas, Response: {"store", "billing", "frequency_penalty", "presence_penalty"}}


def gemini_table() -> dict[str, Any]:
    from google.genai import types as g
    # the REST body google-genai writes from generate_content's arguments (its _to_mldev converters)
    body = {"contents": list[g.Content], "systemInstruction": g.Content, "tools": list[g.Tool],
            "toolConfig": g.ToolConfig, "safetySettings": list[g.SafetySetting], "generationConfig": g.GenerationConfig,
            "cachedContent": str, "labels": dict[str, str], "model": str}
    request = typing.TypedDict("GeminiRequest", {**body, **{_snake(key): hint for key, hint in body.items()}},
                               total=False)  # type: ignore[operator]
    return {"gemini_request": [request], "gemini_response": [g.GenerateContentResponse],
            "gemini_stream": [g.GenerateContentResponse]}


def _snake(name: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name)


def ollama_table() -> dict[str, Any]:
    from ollama._types import ChatRequest, ChatResponse, Tool
    return {"ollama_request": [ChatRequest], "ollama_tool": [Tool], "ollama_tools": [Tool],
            "ollama_response": [ChatResponse], "ollama_stream": [ChatResponse]}


def bedrock_table() -> dict[str, Any]:
    """Return the Converse shapes of botocore's bedrock-runtime service model, as ``Node``s written here."""
    import botocore.session
    model = botocore.session.get_session().get_service_model("bedrock-runtime")
    stream = model.operation_model("ConverseStream").output_shape.members["stream"]
    # An event of a recorded stream is one member of the stream union: {"messageStart": {...}}. The
    # service sends keys the model does not declare (all in the recorded fixtures): "p", padding
    # on each stream event, and the usage's cache token counts and server tool usage.
    wire = {member.name: {"p"} for member in stream.members.values()}
    wire["TokenUsage"] = {"cacheReadInputTokenCount", "cacheWriteInputTokenCount", "serverToolUsage"}
    return {"bedrock_request": _shape(model.operation_model("Converse").input_shape, wire, ()),
            "bedrock_response": _shape(model.operation_model("Converse").output_shape, wire, ()),
            "bedrock_stream": _shape(stream, wire, ())}


def _shape(shape: Any, wire: dict[str, set[str]], stack: tuple[str, ...]) -> Node | None:
    """Return the node of a botocore shape: a structure's members (a union's too); lists looked through."""
    if shape.type_name == "list":
        return _shape(shape.member, wire, stack)
    if shape.type_name != "structure" or shape.metadata.get("document") or shape.name in stack:
        return None  # a scalar, a map or a document (anyone's keys), or a shape inside itself
    # every member, modelId (a URI member) too: the kind's document is what boto3's converse(**body) takes
    members = {(member.serialization.get("name") or name) if member.serialization.get("location") in (None, "body")
               else name: member for name, member in shape.members.items()}
    children = {}
    for key in sorted(members):
        child = _shape(members[key], wire, (*stack, shape.name))
        if child is not None:
            children[key] = child
    return frozenset(members) | wire.get(shape.name, set()), children, "", {}


# Each table module, the SDK it is written from, and its kinds' types.
TABLES = {"openai": ("openai", openai_table), "anthropic": ("anthropic", anthropic_table),
          "responses": ("openai", responses_table), "gemini": ("google.genai", gemini_table),
          "ollama": ("ollama", ollama_table), "bedrock": ("botocore", bedrock_table)}
def gemini_wire() -> dict[Any, set[str]]:
    """Return the keys the Gemini API sends that google-genai's models leave out: the usage's ``serviceTier`` (recorded)."""
    from google.genai import types as g
    return {g.GenerateContentResponseUsageMetadata: {"serviceTier", "service_tier"}}


def ollama_wire() -> dict[Any, set[str]]:
    """Return the keys Ollama's API takes that ollama-python's models leave out: a call's ``type``, its ``index`` (its docs' examples)."""
    from ollama._types import Message
    return {Message.ToolCall: {"type"}, Message.ToolCall.Function: {"index"}}


WIRE = {"responses": responses_wire, "gemini": gemini_wire, "ollama": ollama_wire}  # a provider's keys its SDK's models leave out


def gemini_options() -> dict[str, Any]:
    """Gemini's REST API is protobuf JSON, which takes a field's proto name too; its ``Schema`` is a JSON Schema."""
    from google.genai import types as g
    return {"names": True, "opened": (g.Schema, g.JSONSchema)}


def ollama_options() -> dict[str, Any]:
    """ollama-python takes a dict wherever it takes a model; a tool's ``Parameters`` model is a JSON Schema."""
    from ollama._types import Tool
    return {"dict_form": True, "opened": (Tool.Function.Parameters,)}


OPTIONS = {"gemini": gemini_options, "ollama": ollama_options}


def compiled(provider: str) -> dict[str, Node]:
    _, kinds = TABLES[provider]
    wire = WIRE[provider]() if provider in WIRE else {}
    options = OPTIONS[provider]() if provider in OPTIONS else {}
    table = {}
    for kind, hints in kinds().items():
        node = hints if isinstance(hints, tuple) else Compiler(wire, **options).node(hints)
        assert node is not None, kind
        table[kind] = node
    return table


@pytest.mark.parametrize("provider", sorted(TABLES))
def test_each_table_is_written_from_the_sdk_types(provider: str) -> None:
    sdk, _ = TABLES[provider]
    module = ROOT / "agentmsg" / "validate" / f"_fields_{provider}.py"
    sdk_version = importlib.metadata.version(sdk.replace(".", "-"))
    text = module.read_text(encoding="utf-8")
    start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
    fresh = f"# {sdk} {sdk_version}\n" + render(compiled(provider))
    if os.environ.get("AGENTMSG_REGENERATE") == "1" and text[start:end] != fresh:
        module.write_text(text[:start] + fresh + text[end:], encoding="utf-8")
        return
    written_from = text[start:].split("\n", 1)[0]
    if written_from == f"# {sdk} {sdk_version}":
        assert text[start:end] == fresh, f"stale: AGENTMSG_REGENERATE=1 rewrites it from {sdk}"
    else:  # another release of the SDK (Python 3.10 gets google-genai 2.x): the table knows every key it knows
        for kind, node in compiled(provider).items():
            assert not _keys_missing(node, KINDS[kind].fields), (written_from, sdk_version, kind)
    for kind in compiled(provider):
        assert KINDS[kind].fields is not None, kind


def _keys_missing(known: Node, table: Node, path: str = "$", seen: set[tuple[int, int]] | None = None) -> list[str]:
    """Return the paths of the keys ``known`` holds that ``table`` would warn of."""
    seen = set() if seen is None else seen
    if table[0] is None or (id(known), id(table)) in seen:
        return []
    seen.add((id(known), id(table)))
    if known[0] is None:
        return [f"{path} (open)"]
    found = [f"{path}.{key}" for key in sorted(known[0] - table[0])]
    for key, child in known[1].items():
        if key in table[1]:
            found += _keys_missing(child, table[1][key], f"{path}.{key}", seen)
    for tag, child in known[3].items():
        if tag in table[3]:
            found += _keys_missing(child, table[3][tag], f"{path}<{tag}>", seen)
    return found


FIXTURES = [ROOT / "tests" / "data" / "provider-fixtures",
            ROOT / "tests" / "data" / "validate" / "error-bodies"]  # recorded error bodies, with their provenance


def _fixture_documents() -> list[tuple[str, Any]]:
    """Return every real payload: each fixture file's document (a recorded exchange: its request and response)."""
    found = []
    for root in FIXTURES:
        for path in sorted(root.rglob("*.json")) if root.is_dir() else ():
            if "raw" in path.relative_to(root).parts or path.name == "provenance.json":
                continue
            doc = json.loads(path.read_text(encoding="utf-8"))
            name = f"{root.parent.name}/{path.relative_to(root)}"
            if isinstance(doc, dict) and {"request", "response"} <= doc.keys():
                found += [(f"{name}:request", doc["request"]), (f"{name}:response", doc["response"])]
            else:
                found.append((name, doc))
    tools: dict[str, list[Any]] = {}  # the real tools sent to each API, one by one and as one array
    for number, line in enumerate((ROOT / "tests" / "data" / "real-tools" / "wire.jsonl").read_text(encoding="utf-8").splitlines(), 1):
        row = json.loads(line)
        where = REAL_TOOLS.get(row["source"]) or REAL_TOOLS.get(row["sub"])
        if where is not None and row["wire"] == where[1] and "type" in row["tool"]:
            found.append((f"real-tools/{where[0]}/wire.jsonl:{number}", row["tool"]))
            tools.setdefault(where[0], []).append(row["tool"])
    found += [(f"real-tools/{folder}/wire.jsonl", every) for folder, every in tools.items()]
    assert len(found) > 200
    return found


# The real tool definitions read: those of a host or a source, and the shape they are sent in.
REAL_TOOLS = {"api.openai.com": ("openai", "openai_chat"), "api.anthropic.com": ("anthropic", "anthropic"),
              "ollama-python": ("ollama", "openai_chat")}  # a source's or host's: its folder (provider), its shape


def _kind_of(name: str, doc: Any) -> Any:
    """Return the kind that accepts ``doc`` (a folder's own provider first: Ollama's kinds are chosen, not detected)."""
    from agentmsg.validate._registry import candidates
    folder = name.split("/")[1]
    chosen = [kind for kind in KINDS.values() if not kind.auto and kind.name.startswith(folder + "_")]
    tried = [kind for kind in chosen if kind.detect((type(doc) is list, frozenset(doc if type(doc) is dict else
                                                                              doc[0] if doc and type(doc[0]) is dict else ())))]
    for kind in [*tried, *candidates(doc)]:
        try:
            kind.check(doc)
        except Exception:
            continue
        return kind
    return None


def test_every_real_fixture_holds_only_known_keys() -> None:
    checked: dict[str, int] = {}
    found = []
    for name, doc in _fixture_documents():
        kind = _kind_of(name, doc)
        if kind is None or kind.fields is None:
            continue  # an error body, a document no kind accepts, or a kind without a table
        checked[kind.name] = checked.get(kind.name, 0) + 1
        unknown = unknown_fields(kind.fields, doc)
        assert has_unknown_fields(kind.fields, doc) is bool(unknown)
        found += [f"{name}: {path} [{kind.name}]" for path in unknown]
    assert found == []
    assert {kind for provider in TABLES for kind in compiled(provider)} - set(checked) <= NO_FIXTURE, checked


# The kinds with a table that no fixture is a document of.
NO_FIXTURE: set[str] = set()


def _core(kind: str) -> list[Any]:
    cases = [json.loads(path.read_text(encoding="utf-8")) for path in sorted(
        (ROOT / "tests" / "data" / "core" / "valid").glob("*.json")) if "unknown_keys" not in path.stem]
    found = [case["document"] for case in cases if case["kind"] == kind]
    assert found
    return found


@pytest.mark.parametrize("codec, kind, params", [
    ("openai", "openai_request", {"model": "m"}), ("anthropic", "anthropic_request", {"model": "m", "max_tokens": 1}),
    ("openai_responses", "responses_request", {"model": "m"}), ("gemini", "gemini_request", {}),
    ("bedrock", "bedrock_request", {"modelId": "m"}),
    # not Ollama's: its codec writes a call's "id" and a tool's "strict", which ollama-python does not declare
])
def test_what_the_codecs_write_holds_only_known_keys(codec: str, kind: str, params: dict[str, Any]) -> None:
    from importlib import import_module

    from agentmsg import ChatMessage, ToolDefinition, ValidationError
    to_request = import_module(f"agentmsg.providers.{codec}").to_request
    tools = [ToolDefinition.from_dict(doc) for doc in _core("tool_definition")]
    written = []
    for doc in _core("chat_message"):
        with contextlib.suppress(ValidationError):  # a local file image, a tool result alone: not sendable
            written.append(to_request([ChatMessage.from_dict(doc)], tools=tools, **params))
    assert len(written) > 10
    assert [unknown_fields(KINDS[kind].fields, request) for request in written] == [[]] * len(written)


@pytest.mark.parametrize("kind, doc, paths", [
    ("responses_request", {"model": "m", "input": [
        {"type": "function_call_output", "call_id": "c", "output": "ok", "arguments": "{}"},
        {"role": "user", "content": [{"type": "input_text", "text": "x", "detail": "low"}]}],
        "tools": [{"type": "function", "name": "f", "parameters": {"any": 1}, "strict": True, "function": {}}]},
     ["input[0].arguments", "input[1].content[0].detail", "tools[0].function"]),  # a Chat Completions tool's shape
    ("gemini_request", {"contents": [{"role": "user", "parts": [{"functionResponse": {"name": "f", "response": {
        "any": 1}, "id": "c", "result": 1}}]}], "tools": [{"functionDeclarations": [{"name": "f", "parameters": {
            "type": "object", "additionalProperties": False}, "parametersJsonSchema": {"anything": 1}, "strict": True}]}],
        "generation_config": {"thinkingConfig": {"thinkingBudget": 0, "includeThoughts": True}, "max_tokens": 1}},
     ["contents[0].parts[0].functionResponse.result", "generation_config.max_tokens",
      "tools[0].functionDeclarations[0].strict"]),
    ("gemini_stream", [{"candidates": [{"content": {"role": "model", "parts": [{"text": "x", "thought": True,
                                                                                "thoughtSignature": "s", "signature": "s"}]}}]}],
     ["[0].candidates[0].content.parts[0].signature"]),
    ("ollama_request", {"model": "m", "messages": [{"role": "assistant", "content": "", "thinking": "t", "tool_calls": [
        {"type": "function", "function": {"name": "f", "arguments": {"a": {"b": 1}}, "index": 0, "id": "c"}}]}],
        "options": {"anything": 1}, "tools": [{"type": "function", "function": {"name": "f", "parameters": {
            "type": "object", "properties": {}}, "strict": True}}]},
     ["messages[0].tool_calls[0].function.id", "options.anything", "tools[0].function.strict"]),
    ("ollama_stream", [{"model": "m", "message": {"role": "assistant", "content": "x", "reasoning": "r"}, "done": False}],
     ["[0].message.reasoning"]),
    ("bedrock_request", {"messages": [{"role": "assistant", "content": [{"toolUse": {
        "toolUseId": "t", "name": "f", "input": {"any": {"thing": 1}}, "arguments": {}}}]}],
        "toolConfig": {"tools": [{"toolSpec": {"name": "f", "inputSchema": {"json": {"type": "object", "x": 1}},
                                                "parameters": {}}}]}, "modelId": "m"},
     ["messages[0].content[0].toolUse.arguments", "toolConfig.tools[0].toolSpec.parameters"]),
    ("bedrock_stream", [{"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": "x", "content": "x"},
                                               "p": "abc"}}], ["[0].contentBlockDelta.delta.content"]),
    ("openai_error", {"error": {"message": "m", "type": "invalid_request_error", "param": None, "code": None,
                                "status": 400}}, ["error.status"]),
    ("anthropic_error", {"type": "error", "error": {"type": "not_found_error", "message": "m"}, "request_id": "r",
                         "requestId": "r"}, ["requestId"]),
    ("responses_stream", [{"type": "response.output_text.delta", "item_id": "m", "output_index": 0,
                           "content_index": 0, "delta": "x", "obfuscation": "ab", "sequence_number": 1, "logprobs": [],
                           "text": "x"}], ["[0].text"]),
    ("anthropic_request", {"model": "m", "max_tokens": 1, "messages": [{"role": "user", "content": [
        {"type": "text", "text": "x", "cache_control": {"type": "ephemeral"}, "extra": 1},
        {"type": "tool_result", "tool_use_id": "t", "content": [{"type": "text", "text": "x", "y": 1}]}]}],
        "tools": [{"name": "f", "input_schema": {"type": "object", "anything": 1}, "strictt": True}]},
     ["messages[0].content[0].extra", "messages[0].content[1].content[0].y", "tools[0].strictt"]),
    ("anthropic_request", {"model": "m", "max_tokens": 1, "messages": [{"role": "assistant", "content": [
        {"type": "tool_use", "id": "t", "name": "f", "input": {"any": {"thing": 1}}, "arguments": {}}]}]},
     ["messages[0].content[0].arguments"]),  # the OpenAI name in an Anthropic call
    ("anthropic_response", {"type": "message", "role": "assistant", "content": [
        {"type": "thinking", "thinking": "t", "signature": "s", "text": "x"}], "stop_reason": "end_turn"},
     ["content[0].text"]),  # a key of another block's type
    ("anthropic_stream", [{"type": "ping"}, {"type": "content_block_delta", "index": 0, "delta": {
        "type": "text_delta", "text": "x", "thinking": "y"}}], ["[1].delta.thinking"]),

    ("openai_request", {"model": "m", "messages": [{"role": "user", "content": "Hi", "extra": 1}]}, ["messages[0].extra"]),
    ("openai_request", {"model": "m", "messages": [], "temprature": 0, "metadata": {"any": 1}, "extra_body": 1},
     ["temprature", "extra_body"]),  # extra_body is the SDK's argument, not a key of the body
    ("openai_messages", [{"role": "assistant", "tool_calls": [{"id": "c", "type": "function", "function": {
        "name": "f", "arguments": "{}", "argument": "{}"}}]}, {"role": "tool", "tool_call_id": "c", "content": "ok",
                                                              "name": "f"}],
     ["[0].tool_calls[0].function.argument", "[1].name"]),  # a name is a user's or an assistant's, not a tool's
    ("openai_tool", {"type": "function", "function": {"name": "f", "parameters": {"anything": {"goes": 1}},
                                                      "strictt": True}}, ["function.strictt"]),
    ("openai_response", {"choices": [{"index": 0, "message": {"role": "assistant", "content": "x", "reasoning_content": "r",
                                                               "thinking": "t"}}]}, ["choices[0].message.thinking"]),
    ("openai_stream", [{"choices": [{"index": 0, "delta": {"content": "x"}, "stop_reason": None}], "usage": {
        "prompt_tokens": 1, "prompt_token_details": {}}}], ["[0].usage.prompt_token_details"]),
])
def test_each_unknown_key_of_a_provider_document_is_named(kind: str, doc: Any, paths: list[str]) -> None:
    assert unknown_fields(KINDS[kind].fields, doc) == paths


def _tables() -> list[tuple[str, Node]]:
    from importlib import import_module
    return [(kind, node) for provider in sorted(TABLES)
            for kind, node in import_module(f"agentmsg.validate._fields_{provider}").FIELDS.items()]


@pytest.mark.parametrize("kind, node", _tables(), ids=lambda value: value if isinstance(value, str) else "")
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_the_written_check_answers_as_the_walk_over_a_provider_table(kind: str, node: Node, data: st.DataObject) -> None:
    # the tables share nodes (a content block in every message type): those are called, not written inline
    doc = data.draw(st.one_of(shaped(node), st.lists(shaped(node), max_size=3)))
    found: list[str] = []
    _walk(node, doc, "", found)
    assert has_unknown_fields(node, doc) is bool(found)
