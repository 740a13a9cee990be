"""agentmsg's requests through the official clients, and their replies back.

A recording HTTP server on loopback (stdlib ``http.server``, a free port, one thread, always shut
down) stands in for the provider. Each test sends ``to_request`` output through the official
``openai``, ``anthropic`` or ``ollama`` Python client, compares the body the server received with
what agentmsg built, answers with the real payloads in ``tests/data/provider-fixtures`` (whole
responses and raw SSE / NDJSON streams), and parses what the client returns. The tables in
docs/providers-wire.md are what these tests show.
"""

from __future__ import annotations

import copy
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from agentmsg import (
    ChatMessage,
    ConversationHistory,
    ImagePart,
    ImageSource,
    TextPart,
    ToolCall,
    ToolDefinition,
)
from agentmsg.providers import Response, anthropic, ollama, openai

DATA = Path(__file__).parent / "data" / "provider-fixtures"
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
URL = "https://upload.wikimedia.org/wikipedia/commons/4/47/PNG_transparency_demonstration_1.png"
NESTED = {"filter": {"tags": ["a", "b"], "range": {"min": 1, "max": 2.5}, "none": None}, "flag": True, "n": [[1], []]}
CLAUDE = "claude-test-model"  # a made-up name: the SDK warns about real ones it deprecates
UNICODE = "Grüße, 日本語, emoji \U0001f600, quote \" and \\ and \u2028 line"


class Recorder:
    """A loopback HTTP server that records each request and answers from a queue."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, str, bytes]] = []
        self.replies: list[tuple[int, str, bytes]] = []
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
                length = int(self.headers.get("Content-Length", "0"))
                recorder.requests.append(("POST", self.path, self.rfile.read(length)))
                status, content_type, body = recorder.replies.pop(0) if recorder.replies else (500, "text/plain", b"no reply queued")
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's name
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def reply(self, body: Any, content_type: str = "application/json") -> None:
        data = body if isinstance(body, bytes) else json.dumps(body, ensure_ascii=False).encode()
        self.replies.append((200, content_type, data))

    def received(self) -> Any:
        return json.loads(self.requests[-1][2])


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[Recorder]:
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    recorder = Recorder()
    thread = threading.Thread(target=recorder.server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
    thread.start()
    try:
        yield recorder
    finally:
        recorder.server.shutdown()
        recorder.server.server_close()
        thread.join()


def load(name: str) -> Any:
    return json.loads((DATA / name).read_bytes())


# The official clients (the test extra) are imported where a test uses them: at the top, every xdist
# worker would import them when it collects this file, whichever worker runs it.


def openai_client(server: Recorder) -> Any:
    import openai as openai_sdk

    return openai_sdk.OpenAI(base_url=server.url + "/v1", api_key="test-key", max_retries=0)


def anthropic_client(server: Recorder) -> Any:
    import anthropic as anthropic_sdk

    return anthropic_sdk.Anthropic(base_url=server.url, api_key="test-key", max_retries=0)


def ollama_client(server: Recorder) -> Any:
    import ollama as ollama_sdk

    return ollama_sdk.Client(host=server.url)


# -- the conversations ------------------------------------------------------------------------

WEATHER = ToolDefinition(
    "get_weather",
    "Current weather.",
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"], "additionalProperties": False},
    strict=True,
)
SEARCH = ToolDefinition(
    "search",
    "Search with filters.",
    {"type": "object", "properties": {"query": {"type": "string"}, "filter": {"type": "object"}}},
    strict=False,
)
SCREENSHOT = ToolDefinition("screenshot", "Take a screenshot.", {"type": "object", "properties": {}}, strict=False)
TOOLS = [WEATHER, SEARCH, SCREENSHOT]


def png() -> ImagePart:
    return ImagePart(ImageSource.from_base64(PNG, "image/png"))


def conversations(provider: str) -> dict[str, list[ChatMessage]]:
    images = [TextPart("What is in these images?"), png()]
    if provider != "ollama":  # Ollama cannot fetch an image URL: the codec refuses it
        images.insert(1, ImagePart(ImageSource.from_url(URL)))
    three = [
        ToolCall("call_1", "get_weather", {"city": "Oslo"}),
        ToolCall("call_2", "search", {"query": UNICODE, **NESTED}),
        ToolCall("call_3", "screenshot", {}),
    ]
    return {
        "system and images": [ChatMessage.system("You are terse."), ChatMessage.user(images)],
        "one call, nested arguments, unicode": [
            ChatMessage.system("You are terse."),
            ChatMessage.user(UNICODE),
            ChatMessage.assistant("Searching.", [ToolCall("call_a", "search", {"query": UNICODE, **NESTED})]),
            ChatMessage.tool("call_a", UNICODE),
            ChatMessage.user("Thanks, and the next one?"),
        ],
        "three parallel calls: error, image and empty results": [
            ChatMessage.user("Weather, search and a screenshot."),
            ChatMessage.assistant(tool_calls=three),
            ChatMessage.tool("call_1", "city not found", is_error=True),
            ChatMessage.tool("call_2", ""),
            ChatMessage.tool("call_3", [TextPart("Here it is."), png()]),
        ],
    }


SCENARIOS = list(conversations("openai"))


# -- OpenAI -----------------------------------------------------------------------------------


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_openai_client_sends_exactly_what_agentmsg_built(server: Recorder, scenario: str) -> None:
    messages = conversations("openai")[scenario]
    body = openai.to_request(messages, TOOLS, model="gpt-4o", temperature=0)
    server.reply(load("openai/chat_response_tool_call_nested_args.json"))
    completion = openai_client(server).chat.completions.create(**body)
    assert server.requests[-1][1] == "/v1/chat/completions"
    assert server.received() == body
    assert openai.from_messages(server.received()["messages"]) == canon_openai(messages)
    assert openai.parse_response(completion) == openai.parse_response(load("openai/chat_response_tool_call_nested_args.json"))


def canon_openai(messages: list[ChatMessage]) -> tuple[ChatMessage, ...]:
    """What OpenAI keeps: all, but is_error is a text prefix and tool images move to a user turn."""
    return openai.from_messages(openai.to_messages(messages))


def test_openai_developer_role_through_the_client(server: Recorder) -> None:
    messages = conversations("openai")["system and images"]
    body = openai.to_request(messages, model="o3", system_role="developer")
    server.reply(load("openai/chat_response_image_input_reference.json"))
    openai_client(server).chat.completions.create(**body)
    assert server.received()["messages"][0] == {"role": "developer", "content": "You are terse."}
    assert openai.from_messages(server.received()["messages"]) == tuple(messages)


@pytest.mark.parametrize(
    "fixture",
    [
        "openai/chat_response_parallel_tool_calls.json",
        "openai/chat_response_tool_call_nested_args.json",
        "openai/chat_response_tool_calls_reference.json",
        "openai/chat_response_image_input_reference.json",
        "openai/chat_response_tool_call_recorded.json",
        "openai/chat_response_tool_call_strict_single.json",
    ],
)
def test_openai_client_replies_parse_as_the_raw_body(server: Recorder, fixture: str) -> None:
    server.reply(load(fixture))
    completion = openai_client(server).chat.completions.create(**openai.to_request([ChatMessage.user("Hi")], model="gpt-4o"))
    parsed = openai.parse_response(completion)
    assert parsed == openai.parse_response(load(fixture))
    # and the reply goes back out in the next request, unchanged
    history = [ChatMessage.user("Hi"), parsed.message]
    history += [ChatMessage.tool(call.id, "ok") for call in parsed.message.tool_calls]
    ConversationHistory(history, require_system=False)  # a provider conversation without a system prompt
    body = openai.to_request(history, model="gpt-4o")
    server.reply(load(fixture))
    openai_client(server).chat.completions.create(**body)
    assert server.received() == body
    assert openai.from_messages(server.received()["messages"])[1] == parsed.message


@pytest.mark.parametrize(
    "raw",
    [
        "openai/raw/chat_stream_parallel_tool_calls.sse",
        "openai/raw/chat_stream_tool_call_single.sse",
        "openai/raw/chat_stream_tool_call_strict_pydantic.sse",
        "openai/raw/chat_stream_text_only.sse",
        "openai/raw/chat_stream_refusal.sse",
    ],
)
def test_openai_client_stream_parses_as_the_raw_sse(server: Recorder, raw: str) -> None:
    data = (DATA / raw).read_bytes()
    server.reply(data, "text/event-stream")
    body = openai.to_request([ChatMessage.user("Hi")], model="gpt-4o", stream=True, stream_options={"include_usage": True})
    parser = openai.StreamParser()
    for chunk in openai_client(server).chat.completions.create(**body):
        parser.feed(chunk)
    assert server.received() == body
    direct = openai.StreamParser()
    direct.feed_raw(data)
    assert parser.finish() == direct.finish()


# -- Anthropic --------------------------------------------------------------------------------


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_anthropic_client_sends_exactly_what_agentmsg_built(server: Recorder, scenario: str) -> None:
    messages = conversations("anthropic")[scenario]
    body = anthropic.to_request(messages, TOOLS, model=CLAUDE, max_tokens=1024)
    server.reply(load("anthropic/messages_response_parallel_tool_use.json"))
    message = anthropic_client(server).messages.create(**body)
    assert server.requests[-1][1] == "/v1/messages"
    assert server.received() == body
    received = server.received()
    assert anthropic.from_messages(received["messages"], received.get("system")) == tuple(messages)
    assert anthropic.parse_response(message) == anthropic.parse_response(load("anthropic/messages_response_parallel_tool_use.json"))


def test_anthropic_client_sends_no_null_system_and_a_prefill(server: Recorder) -> None:
    messages = [ChatMessage.user("Answer in JSON."), ChatMessage.assistant("")]
    body = anthropic.to_request(messages, model=CLAUDE, max_tokens=64)
    server.reply(load("anthropic/messages_response_tool_use.json"))
    anthropic_client(server).messages.create(**body)
    assert "system" not in server.received()
    assert server.received()["messages"][-1] == {"role": "assistant", "content": ""}


@pytest.mark.parametrize(
    "fixture",
    [
        "anthropic/messages_response_parallel_tool_use.json",
        "anthropic/messages_response_text_and_tool_use.json",
        "anthropic/messages_response_tool_use.json",
        "anthropic/messages_response_after_tool_error.json",
    ],
)
def test_anthropic_client_replies_parse_as_the_raw_body(server: Recorder, fixture: str) -> None:
    server.reply(load(fixture))
    request = anthropic.to_request([ChatMessage.user("Hi")], model=CLAUDE, max_tokens=64)
    parsed = anthropic.parse_response(anthropic_client(server).messages.create(**request))
    assert parsed == anthropic.parse_response(load(fixture))
    history = [ChatMessage.user("Hi"), parsed.message]
    history += [ChatMessage.tool(call.id, "ok") for call in parsed.message.tool_calls]
    body = anthropic.to_request(history, model=CLAUDE, max_tokens=64)
    server.reply(load(fixture))
    anthropic_client(server).messages.create(**body)
    assert server.received() == body
    assert anthropic.from_messages(server.received()["messages"])[1] == parsed.message


@pytest.mark.parametrize(
    "raw", ["anthropic/raw/messages_stream_text_then_tool_use.sse", "anthropic/raw/messages_stream_tool_use_only.sse"]
)
def test_anthropic_client_stream_parses_as_the_raw_sse(server: Recorder, raw: str) -> None:
    data = (DATA / raw).read_bytes()
    server.reply(data, "text/event-stream")
    body = anthropic.to_request([ChatMessage.user("Hi")], [WEATHER], model=CLAUDE, max_tokens=64, stream=True)
    parser = anthropic.StreamParser()
    for event in anthropic_client(server).messages.create(**body):
        parser.feed(event)
    assert server.received() == body
    direct = anthropic.StreamParser()
    direct.feed_raw(data)
    result = parser.finish()
    assert result == direct.finish()
    assert result.usage is not None and result.usage["input_tokens"] > 0


# -- Ollama -----------------------------------------------------------------------------------


def client_view(body: dict[str, Any]) -> dict[str, Any]:
    """The body as the ollama client sends it: what its pydantic models drop, dropped.

    Its ``Message`` has no ``id`` on tool calls and no ``tool_call_id``, and an empty
    ``content`` is left out (the server reads a missing content as ""); its ``Tool`` schema
    keeps only ``type``, ``$defs``, ``items``, ``required`` and ``properties`` (each property
    only ``type``, ``items``, ``description``, ``enum``), so ``strict`` and
    ``additionalProperties`` go, and so do nested schemas under a property.
    """
    out = copy.deepcopy(body)
    for message in out["messages"]:
        message.pop("tool_call_id", None)
        if message.get("content") == "":
            del message["content"]
        for call in message.get("tool_calls") or ():
            call.pop("id", None)
    for tool in out.get("tools") or ():
        fn = tool["function"]
        fn.pop("strict", None)
        params = fn["parameters"]
        params.pop("additionalProperties", None)
        for prop in (params.get("properties") or {}).values():
            for key in list(prop):
                if key not in ("type", "items", "description", "enum"):
                    del prop[key]
    return out


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_ollama_client_sends_agentmsg_body_less_what_it_drops(server: Recorder, scenario: str) -> None:
    messages = conversations("ollama")[scenario]
    body = ollama.to_request(messages, TOOLS, model="llama3.2", options={"temperature": 0})
    server.reply(load("ollama/chat_response_tool_calls.json"))
    response = ollama_client(server).chat(**body)
    assert server.requests[-1][1] == "/api/chat"
    received = server.received()
    assert received == client_view(body)
    # without ids the results are still paired right: by position among same-named calls
    assert ollama.from_messages(received["messages"]) == ollama.from_messages(client_view(body)["messages"])
    ConversationHistory(ollama.from_messages(received["messages"]), require_system=False)
    assert ollama.parse_response(response) == ollama.parse_response(load("ollama/chat_response_tool_calls.json"))


def test_ollama_client_same_named_results_never_swap(server: Recorder) -> None:
    messages = [
        ChatMessage.user("Weather in Oslo and Rome?"),
        ChatMessage.assistant(tool_calls=[
            ToolCall("call_oslo", "get_weather", {"city": "Oslo"}),
            ToolCall("call_rome", "get_weather", {"city": "Rome"}),
        ]),
        ChatMessage.tool("call_rome", "25 C"),
        ChatMessage.tool("call_oslo", "4 C"),
    ]
    server.reply(load("ollama/chat_response_after_tool_result.json"))
    ollama_client(server).chat(**ollama.to_request(messages, [WEATHER], model="llama3.2"))
    received = server.received()["messages"]
    assert all("tool_call_id" not in m and all("id" not in c for c in m.get("tool_calls") or ()) for m in received)
    back = ollama.from_messages(received)
    calls = {c.arguments["city"]: c.id for c in back[1].tool_calls}
    assert {m.content: m.tool_call_id for m in back[2:]} == {"4 C": calls["Oslo"], "25 C": calls["Rome"]}


@pytest.mark.parametrize(
    "fixture",
    ["ollama/chat_response_tool_calls.json", "ollama/chat_response_after_tool_result.json", "ollama/chat_response_tool_calls_capture.json"],
)
def test_ollama_client_replies_parse_as_the_raw_body(server: Recorder, fixture: str) -> None:
    server.reply(load(fixture))
    parsed = ollama.parse_response(ollama_client(server).chat(**ollama.to_request([ChatMessage.user("Hi")], model="llama3.2")))
    assert parsed == ollama.parse_response(load(fixture))


def test_ollama_client_stream_parses_as_the_raw_ndjson(server: Recorder) -> None:
    lines = load("ollama/chat_stream_tool_calls.json")
    data = "".join(json.dumps(line) + "\n" for line in lines).encode()
    server.reply(data, "application/x-ndjson")
    body = ollama.to_request([ChatMessage.user("Weather in Tokyo?")], [WEATHER], model="llama3.2", stream=True)
    parser = ollama.StreamParser()
    for part in ollama_client(server).chat(**body):
        parser.feed(part)
    assert server.received()["stream"] is True
    direct = ollama.StreamParser()
    direct.feed_raw(data)
    result = parser.finish()
    assert result == direct.finish()
    assert result.message.tool_calls[0].arguments["city"] == "Tokyo"


def test_every_response_kind_is_one_the_server_really_sent(server: Recorder) -> None:
    """The Response each client path gives is complete: an incomplete stream raises instead."""
    data = (DATA / "openai/raw/chat_stream_text_only.sse").read_bytes()
    cut = data[: data.index(b'"finish_reason":"stop"')]
    cut = cut[: cut.rindex(b"\n\n") + 2]
    server.reply(cut, "text/event-stream")
    parser = openai.StreamParser()
    for chunk in openai_client(server).chat.completions.create(**openai.to_request([ChatMessage.user("Hi")], model="gpt-4o", stream=True)):
        parser.feed(chunk)
    with pytest.raises(Exception) as info:
        parser.finish()
    assert getattr(info.value, "code", None) == "incomplete"
    assert isinstance(Response, type)
