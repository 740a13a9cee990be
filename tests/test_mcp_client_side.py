"""The client side of MCP (prompts, templates, subscriptions, sampling, elicitation, roots, logging,
cancellation, ping) against the official SDK's server over stdio and both Streamable HTTP modes.

The host's handlers are scripted: ``Host`` records what they were asked and answers as each test
sets it. The sampling test's model answers in the Messages API's recorded shape
(tests/data/agent/anthropic_response_text_and_tool_use.json, text changed).
"""

import contextlib
import json
import logging
import threading
import time
from pathlib import Path

import pytest

from agentmsg import ChatMessage, ConversationHistory
from agentmsg.agent import AgentTurn
from agentmsg.errors import ValidationError
from agentmsg.io.execution import ApprovalPolicy
from agentmsg.io.mcp import (
    Cancellation,
    ElicitationRequest,
    ElicitationResponse,
    McpClient,
    McpCompletion,
    McpError,
    McpPrompt,
    McpPromptArgument,
    McpResourceTemplate,
    McpRoot,
    ResourceCache,
    SamplingRequest,
    SamplingResult,
    provider_sampler,
)
from agentmsg.providers import anthropic

from mcp_forkserver import sdk_server
from mcp_http import http_server

TESTS = Path(__file__).parent
REAL_SERVER = sdk_server(TESTS / "mcp_server.py")
PNG_B64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
SERVER_LOG = "agentmsg.io.mcp.server"


def eventually(check, within=30.0):
    """Wait until ``check()`` is true (a notification travels on another thread); fail after ``within`` s."""
    deadline = time.monotonic() + within
    while not check():
        assert time.monotonic() < deadline, "the condition never became true"
        time.sleep(0.02)


class Host:
    """Scripted host handlers: ``sample`` and ``elicit`` are set by each test; calls are recorded."""

    def __init__(self):
        self.sample = lambda request: SamplingResult(ChatMessage.assistant("Paris"), "scripted")
        self.elicit = lambda request: request.decline()
        self.asked = []
        self.waiting = threading.Event()  # set when wait_for_cancel says it waits: the call is running

    def notification(self, method, params):
        if method == "notifications/message" and params.get("logger") == "wait_for_cancel":
            self.waiting.set()

    def sampling(self, request):
        self.asked.append(request)
        return self.sample(request)

    def elicitation(self, request):
        self.asked.append(request)
        return self.elicit(request)


@pytest.fixture(scope="module", params=["stdio", "http", "http-json"])
def target(request):
    """The command or URL of one real SDK server per transport (HTTP: event streams or JSON bodies)."""
    if request.param == "stdio":
        yield REAL_SERVER
    else:
        with http_server(json_response=request.param == "http-json") as url:
            yield url


@pytest.fixture(scope="module")
def host():
    return Host()


@pytest.fixture(scope="module")
def kitchen(target, host):
    with McpClient(target, name="kitchen", timeout=30, sampling=host.sampling, elicitation=host.elicitation,
                   on_notification=host.notification, roots=[McpRoot("file:///home/cook/recipes", "recipes")]) as client:
        yield client


@pytest.fixture(autouse=True)
def fresh_host(host):
    host.__init__()
    yield


def refusal(client, name, arguments=None):
    """Return the text of a call the server could not complete: the SDK passes the client's JSON-RPC error on."""
    try:
        result = client.call_tool(name, arguments or {})
    except McpError as exc:
        assert exc.code == "server"
        return exc.message
    assert result.is_error, result.text
    return result.text


def tool_json(client, name, arguments=None, **kwargs):
    result = client.call_tool(name, arguments or {}, **kwargs)
    assert not result.is_error, result.text
    return json.loads(result.text)


# --- the handshake -----------------------------------------------------------------------------


def test_initialize_declares_what_the_host_gives(kitchen):
    assert tool_json(kitchen, "client_capabilities") == {
        "sampling": {}, "elicitation": {"form": {}, "url": {}}, "roots": {"listChanged": True},
    }


def test_initialize_declares_nothing_the_host_does_not_give(target):
    with McpClient(target, name="bare", timeout=30) as bare:
        assert tool_json(bare, "client_capabilities") in ({}, None)
        # a request for what is not offered is refused with a clear JSON-RPC error, never left hanging
        refused = refusal(bare, "ask_model", {"question": "Capital of France?"})
        assert "-32601" in refused and "does not offer sampling/createMessage" in refused
        # an elicitation without a handler is declined
        assert tool_json(bare, "ask_user") == {"action": "decline"}
    with McpClient(target, name="sampler", timeout=30, sampling=lambda r: None) as sampler:
        assert tool_json(sampler, "client_capabilities") == {"sampling": {}}


# --- prompts -----------------------------------------------------------------------------------


def test_list_prompts_and_get_a_text_prompt(kitchen):
    prompts = {prompt.name: prompt for prompt in kitchen.list_prompts()}
    assert set(prompts) == {"plan_meal", "show_dish", "listen"}
    assert prompts["plan_meal"] == McpPrompt(
        "plan_meal", "Plan a meal", "Plan a meal around one ingredient.",
        (McpPromptArgument("ingredient", required=True), McpPromptArgument("guests")),
    )
    assert prompts["plan_meal"].required == ("ingredient",)
    result = kitchen.get_prompt("plan_meal", {"ingredient": "eggs", "guests": "4"})
    assert result.messages == (ChatMessage.user("Plan a meal for 4 around eggs."),)
    assert result.blocks[0]["type"] == "text"
    assert type(result).from_dict(result.to_dict()) == result
    assert "Plan a meal for" not in repr(result)


def test_a_prompt_with_an_image_a_resource_and_an_assistant_turn(kitchen):
    result = kitchen.get_prompt("show_dish", {"name": "soup"})
    assert [m.to_dict() for m in result.messages] == [
        {"role": "user", "content": [{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG_B64}}]},
        {"role": "user", "content": "[resource recipes://soup/card]\nsoup: mix, cook, eat."},
        {"role": "assistant", "content": "[image omitted: an assistant message carries text only]"},
        {"role": "assistant", "content": "That is soup."},
    ]
    assert type(result).from_dict(result.to_dict()) == result
    # the messages go to a provider as they are
    body = anthropic.to_request(result.messages, model="claude-haiku-4-5", max_tokens=100)
    assert body["messages"][0]["content"][0]["type"] == "image"


def test_completion_of_a_prompt_argument(kitchen):
    assert kitchen.complete("ingredient", "eg", prompt="plan_meal") == McpCompletion(("egg", "eggplant"), 2, False)
    assert kitchen.complete("guests", "1", prompt="plan_meal").values == ()
    with pytest.raises(TypeError):
        kitchen.complete("ingredient", "eg")


def test_prompt_audio_becomes_a_note(kitchen):
    assert kitchen.get_prompt("listen").messages == (ChatMessage.user("[audio omitted: audio/wav]"),)


def test_prompt_arguments_are_strings_and_unknown_prompts_are_server_errors(kitchen):
    with pytest.raises(ValidationError) as info:
        kitchen.get_prompt("plan_meal", {"ingredient": "eggs", "guests": 4})
    assert (info.value.path, info.value.code) == ("arguments.guests", "type")
    with pytest.raises(McpError) as info:
        kitchen.get_prompt("no_such_prompt")
    assert info.value.code == "server" and "prompts/get failed" in str(info.value)
    with pytest.raises(McpError) as info:
        kitchen.get_prompt("plan_meal")  # a required argument missing: the server says so
    assert info.value.code == "server"


# --- resource templates and subscriptions ------------------------------------------------------


def test_resource_templates(kitchen):
    (template,) = kitchen.list_resource_templates()
    assert type(template) is McpResourceTemplate
    assert (template.uri_template, template.name, template.mime_type) == ("recipes://{name}/card", "recipe-card", "text/plain")
    assert kitchen.read_resource("recipes://soup/card")[0]["text"] == "soup: mix, cook, eat."


def test_an_update_makes_the_cached_resource_stale(kitchen):
    cache = ResourceCache(kitchen, max_age=3600)
    first = cache.get("kitchen", "counter://reads")
    assert cache.get("kitchen", "counter://reads").text == first.text and cache.fetches == 1
    kitchen.subscribe("counter://reads")
    try:
        assert tool_json(kitchen, "server_state")["subscriptions"] == ["counter://reads"]
        assert kitchen.call_tool("touch", {"uri": "counter://reads"}).text == "touched"
        eventually(lambda: kitchen.resource_version("counter://reads") == 1)
        second = cache.get("kitchen", "counter://reads")
        assert second.text != first.text and cache.fetches == 2
        assert cache.get("kitchen", "counter://reads").text == second.text and cache.fetches == 2
        # an update for a resource nobody subscribed to changes nothing
        kitchen.call_tool("touch", {"uri": "file:///project/README.md"})
        assert kitchen.resource_version("file:///project/README.md") == 0
    finally:
        kitchen.unsubscribe("counter://reads")
    assert tool_json(kitchen, "server_state")["subscriptions"] == []


# --- sampling ------------------------------------------------------------------------------------


def claude(body):
    """The Messages API, scripted: the recorded response shape, answering with what it was asked."""
    recorded = json.loads((TESTS / "data" / "agent" / "anthropic_response_text_and_tool_use.json").read_text())
    assert body["system"] == "Answer in one word." and body["max_tokens"] == 50
    assert body["messages"] == [{"role": "user", "content": "Capital of France?"}]
    recorded["content"] = [{"type": "text", "text": "Paris"}]
    recorded["stop_reason"] = "end_turn"
    return recorded


def test_sampling_goes_through_the_hosts_model_via_a_provider_codec(kitchen, host):
    host.sample = provider_sampler(anthropic, claude, model="claude-haiku-4-5", max_tokens=1024)
    answer = tool_json(kitchen, "ask_model", {"question": "Capital of France?"})
    assert answer == {"role": "assistant", "content": {"type": "text", "text": "Paris"}, "model": "claude-haiku-4-5",
                      "stopReason": "endTurn"}
    (request,) = host.asked
    assert request.server == "kitchen" and request.max_tokens == 50 and request.system_prompt == "Answer in one word."
    assert request.messages == (ChatMessage.user("Capital of France?"),)


def test_a_declined_or_failing_sampling_is_an_error_for_the_server(kitchen, host, caplog):
    host.sample = lambda request: None
    assert "declined" in refusal(kitchen, "ask_model", {"question": "q"})
    host.sample = lambda request: (_ for _ in ()).throw(RuntimeError("api key sk-SECRET rejected"))
    with caplog.at_level(logging.DEBUG, logger="agentmsg"):
        failed = refusal(kitchen, "ask_model", {"question": "q"})
    assert "could not sample" in failed and "sk-SECRET" not in failed
    above_debug = [r.getMessage() for r in caplog.records if r.levelno > logging.DEBUG]
    assert any("RuntimeError" in m for m in above_debug) and not any("sk-SECRET" in m for m in above_debug)


def test_a_slow_sampling_handler_is_bounded(target):
    started = threading.Event()

    def slow(request):
        started.set()
        request.cancelled.wait(30)  # the client sets it when the time is up
        return SamplingResult(ChatMessage.assistant("too late"), "slow")

    with McpClient(target, name="slow", timeout=30, sampling=slow, handler_timeout=0.2) as client:
        result = refusal(client, "ask_model", {"question": "q"})
    assert started.is_set() and "did not answer in time" in result


# --- elicitation ---------------------------------------------------------------------------------


def test_form_elicitation_accepted(kitchen, host):
    host.elicit = lambda request: request.accept({"name": "Ann", "guests": 3, "diet": "veg"})
    assert tool_json(kitchen, "ask_user") == {"action": "accept", "content": {"name": "Ann", "guests": 3, "diet": "veg"}}
    (request,) = host.asked
    assert request.message == "Who is coming to dinner?" and request.mode == "form"
    fields = {f.name: f for f in request.fields}
    assert (fields["name"].title, fields["name"].required, fields["guests"].default) == ("Your name", True, 2)
    assert fields["diet"].options == (("veg", "Vegetarian"), ("any", "Anything"))
    ui = request.to_dict()
    assert json.loads(json.dumps(ui)) == ui and [f["name"] for f in ui["fields"]] == ["name", "guests", "diet"]


@pytest.mark.parametrize("answer, expected", [
    (lambda request: request.decline(), {"action": "decline"}),
    (lambda request: request.cancel(), {"action": "cancel"}),
    (lambda request: None, {"action": "decline"}),
    (lambda request: 1 / 0, {"action": "cancel"}),
])
def test_form_elicitation_declined_cancelled_or_failed(kitchen, host, answer, expected):
    host.elicit = answer
    assert tool_json(kitchen, "ask_user") == expected


def test_an_elicitation_answer_that_breaks_the_schema_is_never_sent(kitchen, host, caplog):
    host.elicit = lambda request: ElicitationResponse("accept", {"name": "Ann", "guests": 99})  # maximum is 12
    with caplog.at_level(logging.WARNING, logger="agentmsg"):
        result = refusal(kitchen, "ask_user")
    assert "did not fit the requested schema" in result and "99" not in result
    assert any("content.guests" in r.getMessage() for r in caplog.records)


def test_url_elicitation(kitchen, host):
    host.elicit = lambda request: request.accept()
    assert tool_json(kitchen, "ask_user_url") == {"action": "accept"}
    (request,) = host.asked
    assert (request.mode, request.url, request.elicitation_id) == ("url", "https://pantry.example.com/login", "e-1")
    assert request.to_dict()["host"] == "pantry.example.com"


# --- roots, logging, ping, cancellation -------------------------------------------------------------


def test_roots_are_answered_and_their_change_announced(target):
    with McpClient(target, name="roots", timeout=30, roots=["file:///home/cook/recipes"]) as client:
        assert tool_json(client, "show_roots") == {"roots": [{"uri": "file:///home/cook/recipes"}]}
        client.set_roots([McpRoot("file:///home/cook/menus", "menus")])
        assert tool_json(client, "show_roots") == {"roots": [{"uri": "file:///home/cook/menus", "name": "menus"}]}


def test_log_messages_reach_python_logging_without_their_data(kitchen, caplog):
    kitchen.set_log_level("debug")
    assert tool_json(kitchen, "server_state")["log_level"] == "debug"
    with caplog.at_level(logging.DEBUG, logger=SERVER_LOG):
        kitchen.call_tool("log_line", {"level": "error", "text": "password hunter2"})
        eventually(lambda: any(r.levelno == logging.DEBUG and r.name == SERVER_LOG for r in caplog.records))
    ours = [r for r in caplog.records if r.name == SERVER_LOG]
    error = [r for r in ours if r.levelno == logging.ERROR]
    assert len(error) == 1 and "kitchen" in error[0].getMessage() and "hunter2" not in error[0].getMessage()
    assert any("hunter2" in r.getMessage() for r in ours if r.levelno == logging.DEBUG)
    with pytest.raises(ValidationError):
        kitchen.set_log_level("loud")


def test_ping_both_ways(kitchen):
    assert kitchen.ping() is None
    assert kitchen.call_tool("ping_client").text == "pong"


def when(event, action, *args):
    """Run ``action(*args)`` on a thread of its own once ``event`` is set (the server is inside the call)."""
    threading.Thread(target=lambda: event.wait(30) and action(*args), daemon=True).start()


def test_a_cancelled_call_tells_the_server(kitchen, host):
    switch = Cancellation()
    when(host.waiting, switch.cancel, "the user left")
    with pytest.raises(McpError) as info:
        kitchen.call_tool("wait_for_cancel", {"seconds": 60}, cancel=switch)
    assert host.waiting.is_set()
    assert info.value.code == "cancelled" and "the user left" in str(info.value)
    eventually(lambda: json.loads(kitchen.call_tool("was_cancelled").text))
    # the client still works, and a cancelled switch stops a call before it is sent
    assert kitchen.call_tool("list_recipes").text.startswith("Pancakes")
    with pytest.raises(McpError, match="before it was sent"):
        kitchen.call_tool("list_recipes", cancel=switch)


def test_a_call_that_times_out_tells_the_server(kitchen):
    before = len(json.loads(kitchen.call_tool("was_cancelled").text))
    with pytest.raises(McpError) as info:
        kitchen.call_tool("wait_for_cancel", {"seconds": 60}, timeout=0.5)
    assert info.value.code == "timeout"
    eventually(lambda: len(json.loads(kitchen.call_tool("was_cancelled").text)) > before)


def test_cancelling_the_turn_cancels_its_mcp_call(kitchen, host):
    def model(body):
        if body["messages"][-1]["role"] == "user":
            call = {"id": "call_1", "type": "function", "function": {"name": "wait_for_cancel", "arguments": '{"seconds": 60}'}}
            message = {"role": "assistant", "content": None, "tool_calls": [call]}
            return {"choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}]}
        return {"choices": [{"index": 0, "message": {"role": "assistant", "content": "done"}, "finish_reason": "stop"}]}

    from agentmsg.providers import openai

    before = len(json.loads(kitchen.call_tool("was_cancelled").text))
    history = ConversationHistory([ChatMessage.system("You cook.")])
    turn = AgentTurn(openai, history, "Wait for me.", mcp=[kitchen], policy=ApprovalPolicy(default="auto"),
                     params={"model": "gpt-4o"})
    when(host.waiting, turn.cancel, "the user pressed stop")
    outcome = turn.run(model)
    assert outcome.status == "cancelled" and host.waiting.is_set()
    assert history.messages[-1].role.name in ("TOOL", "ASSISTANT")
    eventually(lambda: len(json.loads(kitchen.call_tool("was_cancelled").text)) > before)
