"""The client side of MCP against the specification's examples and hostile peers (tests/mcp_fake_server.py),
and its types one by one.

The examples are the specification's own JSON (tests/data/mcp/PROVENANCE.md): the stand-in server
answers with the reply examples and sends the server-to-client request examples, and the client's
answers are compared with the specification's response examples.
"""

import json
import logging
import sys
import threading
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentmsg import ChatMessage, ImagePart, TextPart
from agentmsg.errors import ValidationError
from agentmsg.io.mcp import (
    ElicitationRequest,
    ElicitationResponse,
    McpClient,
    McpCompletion,
    McpError,
    McpPromptResult,
    McpResourceTemplate,
    McpRoot,
    ResourceCache,
    SamplingRequest,
    SamplingResult,
    StdioTransport,
)
from agentmsg.io.mcp.resources import resource_info, resource_template
from agentmsg.io.mcp.server_requests import LOG_BURST, MAX_HANDLERS, ServerRequests
from agentmsg.providers import Response

from test_mcp_hostile import HANG, finishes

TESTS = Path(__file__).parent
DATA = TESTS / "data" / "mcp"
FAKE = TESTS / "mcp_fake_server.py"


def example(name):
    return json.loads((DATA / f"2025-11-25_{name}.json").read_text(encoding="utf-8"))


class Recording(StdioTransport):
    """The stdio transport, keeping every message the client sends."""

    def __init__(self, command, **kwargs):
        super().__init__(command, **kwargs)
        self.sent = []

    def send(self, message, deadline):
        self.sent.append(message)
        super().send(message, deadline)


def fake(mode, **kwargs):
    kwargs.setdefault("timeout", 10)
    limit = {"max_message_bytes": kwargs.pop("max_message_bytes")} if "max_message_bytes" in kwargs else {}
    return McpClient(Recording([sys.executable, str(FAKE), mode], **limit), name=f"fake-{mode}", **kwargs)


# --- the handshake -------------------------------------------------------------------------------


@pytest.mark.parametrize("given, declared", [
    ({}, {}),
    ({"sampling": lambda r: None}, example("sampling_capability")["capabilities"]),
    ({"elicitation": lambda r: None}, example("elicitation_capability")["capabilities"]),
    ({"roots": []}, example("roots_capability")["capabilities"]),
    ({"roots": ["file:///a"], "sampling": lambda r: None, "elicitation": lambda r: None},
     {"roots": {"listChanged": True}, "sampling": {}, "elicitation": {"form": {}, "url": {}}}),
])
def test_the_handshake_declares_only_what_the_host_gives(given, declared):
    with fake("spec", **given) as client:
        initialize = client.transport.sent[0]
    assert initialize["method"] == "initialize" and initialize["params"]["capabilities"] == declared


def test_refusals_and_cancellations_have_the_specifications_shape():
    sent = []
    declines = ServerRequests("s", sent.append, sampling=lambda request: None)
    declines.handle(example("sampling_request"))
    deadline = time.monotonic() + HANG
    while not sent and time.monotonic() < deadline:
        time.sleep(0.01)
    rejected, spec = sent[0], example("sampling_user_rejected_error")
    assert rejected["error"]["code"] == spec["error"]["code"] == -1 and set(rejected) == set(spec)
    ServerRequests("s", sent.append).handle(example("roots_list_request"))
    spec = example("roots_not_supported_error")
    assert sent[1]["error"]["code"] == spec["error"]["code"] and sent[1]["id"] == spec["id"]
    with fake("hang") as client:
        with pytest.raises(McpError):
            client.request("resources/list", timeout=0.3)
        (cancelled,) = [m for m in client.transport.sent if m.get("method") == "notifications/cancelled"]
    spec = example("cancelled_notification")
    assert set(cancelled) == set(spec) and set(cancelled["params"]) == set(spec["params"])
    assert cancelled["params"]["requestId"] == client.transport.sent[-2]["id"]


def test_initialize_is_never_cancelled():
    client = fake("hang_init", timeout=0.5)
    with pytest.raises(McpError) as info:
        client.start()
    assert info.value.code == "timeout"
    assert [m.get("method") for m in client.transport.sent] == ["initialize"]


# --- the specification's examples ------------------------------------------------------------------


def test_spec_prompts_templates_subscriptions_and_log_level():
    with fake("spec") as client:
        prompts = client.list_prompts()  # two pages
        assert [p.name for p in prompts] == ["code_review", "summarize"]
        review = prompts[0]
        assert (review.title, review.required) == ("Request Code Review", ("code",))
        request = example("prompts_get_request")["params"]
        result = client.get_prompt(request["name"], request["arguments"])  # the stand-in checks the shape
        assert result.description == "Code review prompt"
        assert result.messages == (ChatMessage.user("Please review this Python code:\ndef hello():\n    print('world')"),)
        (template,) = client.list_resource_templates()
        assert template == McpResourceTemplate("file:///{path}", "Project Files", "📁 Project Files",
                                               "Access files in the project directory", "application/octet-stream")
        client.set_log_level(example("logging_set_level_request")["params"]["level"])
        asked = example("completion_request_with_context")["params"]
        suggested = client.complete(asked["argument"]["name"], asked["argument"]["value"], prompt=asked["ref"]["name"],
                                    context=asked["context"]["arguments"])
        assert suggested == McpCompletion(("flask",), 1, False)
        # a subscription: the stand-in says the resource was updated right after it
        cache = ResourceCache(client)
        uri = example("resources_subscribe_request")["params"]["uri"]
        cache.get("fake-spec", uri)
        client.subscribe(uri)
        deadline = time.monotonic() + HANG
        while client.resource_version(uri) == 0 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert client.resource_version(uri) == 1
        assert cache.get("fake-spec", uri).status == "retrieved" and cache.fetches == 2
        sent = {m["method"]: m for m in client.transport.sent if "method" in m}
        for name in ("prompts_get_request", "resource_templates_list_request", "resources_subscribe_request",
                     "logging_set_level_request", "completion_request_with_context"):
            spec = example(name)
            assert {k: v for k, v in sent[spec["method"]].items() if k != "id"} == {k: v for k, v in spec.items() if k != "id"}


def test_spec_server_requests_get_the_spec_answers(caplog):
    roots = [McpRoot(r["uri"], r["name"]) for r in example("roots_list_response")["result"]["roots"]]
    sampled = example("sampling_response")["result"]
    answers = {
        "Please provide your GitHub username": example("elicitation_response_form_simple")["result"]["content"],
        "Please provide your contact information": example("elicitation_response_form_structured")["result"]["content"],
    }
    seen = []

    def sample(request):
        seen.append(request)
        return SamplingResult(ChatMessage.assistant(sampled["content"]["text"]), sampled["model"], sampled["stopReason"])

    def elicit(request):
        seen.append(request)
        return request.accept() if request.mode == "url" else request.accept(answers[request.message])

    notes = []
    with caplog.at_level(logging.DEBUG, logger="agentmsg.io.mcp.server"):
        with fake("spec", roots=roots, sampling=sample, elicitation=elicit,
                  on_notification=lambda method, params: notes.append(method)) as client:
            got = json.loads(client.call_tool("replay_client_spec").text)
            assert client.prompts_changed and client.resources_changed
            client.list_prompts()
            assert not client.prompts_changed
    for name in ("roots_list", "sampling", "elicitation_form_simple", "elicitation_form_structured", "elicitation_url", "ping"):
        request = name.replace("_form", "_request_form").replace("_url", "_request_url") if "elicitation" in name else f"{name}_request"
        response = name.replace("_form", "_response_form").replace("_url", "_response_url") if "elicitation" in name else f"{name}_response"
        assert got[request] == example(response), name
    assert got["sampling_request_with_tools"]["error"]["code"] == -32602  # no tool use without sampling.tools
    (sampling, simple, structured, url) = seen
    assert sampling.model_hints == ("claude-3-sonnet",) and sampling.system_prompt == "You are a helpful assistant."
    assert [f.name for f in structured.fields] == ["name", "email", "age"] and structured.fields[1].schema["format"] == "email"
    assert url.to_dict()["host"] == "mcp.example.com"
    assert notes == ["notifications/message", "notifications/prompts/list_changed", "notifications/roots/list_changed",
                     "notifications/resources/list_changed"]
    error = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert len(error) == 1 and "Connection failed" not in error[0].getMessage() and "'database'" in error[0].getMessage()
    assert any("Connection failed" in r.getMessage() for r in caplog.records if r.levelno == logging.DEBUG)


# --- hostile peers -------------------------------------------------------------------------------


def test_a_server_request_id_that_collides_with_ours():
    with fake("collide") as client:
        outcome = finishes(lambda: client.call_tool("anything"))
    ping, sample = json.loads(outcome["value"].text)
    # both answered under the id the server gave, and the call still got its own reply
    assert ping == {"jsonrpc": "2.0", "id": ping["id"], "result": {}}
    assert sample["id"] == ping["id"] and sample["error"]["code"] == -32601


def test_a_flood_of_server_requests_is_bounded():
    entered = []
    lock = threading.Lock()

    def sample(request):
        with lock:
            entered.append(request)
        request.cancelled.wait(HANG)  # the server cancels it
        return SamplingResult(ChatMessage.assistant("late"), "slow")

    threads_before = threading.active_count()
    peak = [0]

    def watch(stop):
        while not stop.is_set():
            peak[0] = max(peak[0], threading.active_count())
            time.sleep(0.005)

    stop = threading.Event()
    watcher = threading.Thread(target=watch, args=(stop,), daemon=True)
    watcher.start()
    try:
        with fake("request_flood", sampling=sample, timeout=HANG) as client:
            outcome = finishes(lambda: client.call_tool("flood"))
    finally:
        stop.set()
    summary = json.loads(outcome["value"].text)
    assert summary == {"answered": 200 - MAX_HANDLERS, "codes": [-32000], "open": MAX_HANDLERS}
    assert len(entered) == MAX_HANDLERS
    assert all(request.cancelled.is_set() for request in entered)  # the server's notifications/cancelled reached them
    # a handler thread and its timer per request being handled, the transport's three threads, the watcher
    assert peak[0] <= threads_before + 2 * MAX_HANDLERS + 3 + 2


def test_a_huge_server_request_is_bounded():
    with fake("huge_request", max_message_bytes=1 << 20, sampling=lambda r: None) as client:
        outcome = finishes(lambda: client.call_tool("big"))
        assert client.transport.stuck  # its output is no longer read: close gives it no grace period
    error = outcome["error"]
    assert isinstance(error, McpError) and error.code == "protocol" and f"longer than {1 << 20} bytes" in str(error)


def test_a_ping_the_server_never_answers_times_out():
    with fake("hang") as client:
        outcome = finishes(lambda: client.ping(timeout=0.3))
    assert outcome["error"].code == "timeout"


def test_a_log_flood_is_rate_limited(caplog):
    with caplog.at_level(logging.INFO, logger="agentmsg.io.mcp.server"):
        with fake("notify_flood", timeout=HANG) as client:
            assert finishes(client.list_resources)["value"] == ()
    ours = [r for r in caplog.records if r.name == "agentmsg.io.mcp.server"]
    assert len([r for r in ours if r.levelno == logging.INFO]) == LOG_BURST
    assert len([r for r in ours if r.levelno == logging.WARNING]) == 1


# --- the types -----------------------------------------------------------------------------------


def test_roots_are_file_uris():
    assert McpRoot.from_path("/tmp", "tmp").to_dict() == {"uri": "file:///tmp", "name": "tmp"}
    with pytest.raises(ValidationError) as info:
        McpRoot("https://example.com/repo")
    assert (info.value.path, info.value.code) == ("uri", "pattern")
    with pytest.raises(ValidationError) as info:
        McpClient(["x"], roots=["file:///a", 3])
    assert info.value.path == "roots[1]"
    with pytest.raises(RuntimeError, match="roots="):
        McpClient(["x"]).set_roots(["file:///a"])


@pytest.mark.parametrize("params, path, code", [
    ({"message": "hi", "requestedSchema": {"type": "object", "properties": {"a": {"type": "object"}}}},
     "requestedSchema.properties.a", "schema"),
    ({"message": "hi", "requestedSchema": {"type": "array"}}, "requestedSchema", "schema"),
    ({"message": "hi", "requestedSchema": {"type": "object", "properties": {"a": {"type": "array", "items": {"type": "string"}}}}},
     "requestedSchema.properties.a", "schema"),
    ({"message": "hi", "mode": "url", "url": "javascript:alert(1)", "elicitationId": "e"}, "url", "pattern"),
    ({"message": "hi", "mode": "url", "url": "https://example.com"}, "elicitationId", "type"),
    ({"message": 5, "requestedSchema": {"type": "object", "properties": {}}}, "message", "type"),
    ({"message": "hi", "mode": "voice"}, "mode", "value"),
])
def test_elicitation_requests_outside_mcps_rules_are_refused(params, path, code):
    with pytest.raises(ValidationError) as info:
        ElicitationRequest.from_params("s", params)
    assert (info.value.path, info.value.code) == (path, code)


def test_elicitation_answers_are_checked_and_reprs_hold_no_content():
    request = ElicitationRequest.from_params("s", example("elicitation_request_form_structured")["params"])
    with pytest.raises(ValidationError) as info:
        request.accept({"name": "Ann"})  # email is required
    assert (info.value.path, info.value.code) == ("content.email", "missing")
    with pytest.raises(ValidationError) as info:
        request.accept({"name": "Ann", "email": "not an email"})
    assert (info.value.path, info.value.code) == ("content.email", "pattern")
    answer = request.accept({"name": "Ann Secret", "email": "ann@example.com"})
    assert "Secret" not in repr(answer) and "contact" not in repr(request)
    with pytest.raises(ValidationError):
        ElicitationResponse("decline", {"a": 1})
    with pytest.raises(ValidationError):
        ElicitationResponse("maybe")
    multi = ElicitationRequest.from_params("s", {"message": "m", "requestedSchema": {"type": "object", "properties": {
        "colors": {"type": "array", "items": {"anyOf": [{"const": "#f00", "title": "Red"}, {"const": "#0f0", "title": "Green"}]}},
    }}})
    assert multi.fields[0].options == (("#f00", "Red"), ("#0f0", "Green")) and multi.fields[0].type == "array"
    with pytest.raises(ValidationError):
        multi.accept({"colors": ["#00f"]})


def test_sampling_requests_become_chat_messages():
    params = example("sampling_request")["params"]
    params = {**params, "messages": [
        *params["messages"],
        {"role": "assistant", "content": {"type": "text", "text": "Paris."}},
        {"role": "user", "content": [{"type": "text", "text": "And this?"}, {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
                                     {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"}]},
    ]}
    request = SamplingRequest.from_params("s", params)
    assert request.max_tokens == 100 and request.model_hints == ("claude-3-sonnet",)
    user = request.messages[2]
    assert [type(p) for p in user.content] == [TextPart, ImagePart, TextPart] and user.content[2].text == "[audio omitted: audio/wav]"
    assert "capital" not in repr(request)
    for bad, path in (({**params, "maxTokens": 0}, "maxTokens"), ({**params, "messages": []}, "messages"),
                      ({**params, "messages": [{"role": "system", "content": {"type": "text", "text": "x"}}]}, "messages[0].role"),
                      (example("sampling_request_with_tools")["params"], "tools")):
        with pytest.raises(ValidationError) as info:
            SamplingRequest.from_params("s", bad)
        assert info.value.path == path


def test_sampling_results_map_the_stop_reason():
    assert SamplingResult.from_response(Response(ChatMessage.assistant("x"), "end_turn"), "m").to_dict()["stopReason"] == "endTurn"
    assert SamplingResult.from_response(Response(ChatMessage.assistant("x"), "content_filter"), "m").stop_reason == "content_filter"
    assert "stopReason" not in SamplingResult.from_response(Response(ChatMessage.assistant("x")), "m").to_dict()
    with pytest.raises(ValidationError):
        SamplingResult(ChatMessage.user("x"), "m")
    with pytest.raises(ValidationError):
        SamplingResult(ChatMessage.assistant("x"), "")


def test_malformed_prompt_results_are_protocol_errors():
    for bad in ([], {"messages": "x"}, {"messages": [{"role": "system", "content": {"type": "text", "text": "x"}}]},
                {"messages": [{"role": "user", "content": {"type": "text"}}]}, {"messages": [{"role": "user", "content": 3}]}):
        with pytest.raises(McpError) as info:
            McpPromptResult.from_dict(bad)
        assert info.value.code == "protocol" and "prompts/get" in str(info.value)



@pytest.mark.parametrize(("read", "method", "where", "key"), [
    (resource_info, "resources/list", "resources[3]", "uri"),
    (resource_template, "resources/templates/list", "resourceTemplates[3]", "uriTemplate"),
])
def test_resource_and_template_entries_have_one_reader(read, method, where, key):
    entry = {key: "file:///{path}", "name": "files", "title": "Files", "description": "All files",
             "mimeType": "text/plain", "size": 12}
    listed = read(entry, 3)
    assert (listed.name, listed.title, listed.description, listed.mime_type) == ("files", "Files", "All files",
                                                                                 "text/plain")
    assert read({key: "file:///{path}", "name": "files", "title": 7, "mimeType": None}, 3).title is None
    for bad in ("x", {key: "", "name": "files"}, {key: "file:///a", "name": 7}, {"name": "files"}):
        with pytest.raises(McpError) as info:
            read(bad, 3)
        needs = "must be an object" if bad == "x" else f"needs a {key} and a name"
        assert info.value.code == "protocol" and str(info.value) == f"malformed reply to {method}: {where} {needs}"


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
KEYS = ["messages", "role", "content", "type", "text", "data", "mimeType", "maxTokens", "message", "mode", "url",
        "elicitationId", "requestedSchema", "properties", "required", "enum", "items", "description", "resource", "uri"]
PARAMS = st.recursive(JSON, lambda inner: st.dictionaries(st.sampled_from(KEYS), inner, max_size=5), max_leaves=16)


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.sampled_from(KEYS), PARAMS, max_size=5))
def test_any_server_request_params_give_a_request_or_a_validation_error(params):
    for read in (SamplingRequest.from_params, ElicitationRequest.from_params):
        try:
            read("s", params)
        except ValidationError:
            pass


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.sampled_from(KEYS), PARAMS, max_size=5))
def test_any_prompt_result_gives_messages_or_an_mcp_error(result):
    try:
        assert type(McpPromptResult.from_dict(result)) is McpPromptResult
    except McpError as exc:
        assert exc.code == "protocol"
