"""The chat page in a real browser: headless Chromium (Debian's chromium, chromium-driver) driven by Selenium.

Each test starts examples/web_chat/server.py (the scripted model) and a Chromium with a fresh profile,
uses the page as a person would (types, attaches, clicks Send) and reads what the page rendered.
On a failure the screenshot, the browser console and the server log are saved and the failure
message names their folder.
"""

from __future__ import annotations

import base64
import contextlib
import http.server
import importlib.util
import json
import struct
import threading
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import socketio
from conftest import npm_ci, require_program
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from agentmsg import ChatMessage, ToolCall
from agentmsg.io.store import MessageStore

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parent.parent
WEB_CHAT = ROOT / "examples" / "web_chat"
CLIENT_JS = WEB_CHAT / "node_modules" / "socket.io-client" / "dist" / "socket.io.min.js"
QUESTION = "What recipes do I have?"
ANSWER = "You have 3 recipes: Pancakes, Tomato soup and Omelette."
RECIPES_SCENARIO = [
    ("user", QUESTION),
    ("chat", "Let me check your cookbook."),
    ("tool", "Calling list_recipes completed"),  # a tool message shows its summary line until opened
    ("chat", ANSWER),
]
ARTIFACTS = ROOT / "tests" / "artifacts" / "web_chat"  # screenshots every test leaves (git-ignored)
NPM_TIMEOUT = 300  # seconds for `npm ci` (11 small packages) on a fresh checkout

_spec = importlib.util.spec_from_file_location("web_chat_screenshot", WEB_CHAT / "screenshot.py")
assert _spec is not None and _spec.loader is not None
page_driver: Any = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(page_driver)
TIMEOUT = page_driver.TIMEOUT

# Records, from inside the page, every text a chat message showed and every status a tool message had,
# so the test can tell a streamed answer from one set at once (no timing involved).
WATCH = """
window.seen = {chat: {}, tool: {}};
new MutationObserver((records) => {
  for (const record of records) {
    const node = record.target.nodeType === Node.TEXT_NODE ? record.target.parentElement : record.target;
    for (const el of [node, ...record.addedNodes].filter((n) => n instanceof Element)) {
      const item = el.closest(".chat, .tool");
      if (!item || !item.dataset.id) continue;
      const kind = item.classList.contains("chat") ? "chat" : "tool";
      const list = (window.seen[kind][item.dataset.id] ||= []);
      const value = kind === "chat" ? item.textContent : item.dataset.status;
      if (list[list.length - 1] !== value) list.push(value);
    }
  }
}).observe(document.getElementById("log"), {subtree: true, childList: true, characterData: true, attributes: true});
"""


def png(width: int, height: int, rgb: tuple[int, int, int]) -> bytes:
    """Return a real PNG of one colour (the browser decodes it: its natural size is checked)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    rows = b"".join(b"\x00" + bytes(rgb) * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


@pytest.fixture(scope="module")
def client_js() -> Path:
    """The socket.io browser client: `npm ci` in examples/web_chat when a fresh checkout has none."""
    if not CLIENT_JS.is_file():
        npm_ci(WEB_CHAT, NPM_TIMEOUT)
    assert CLIENT_JS.is_file()
    return CLIENT_JS


@pytest.fixture(scope="module")
def server(client_js: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    folder = tmp_path_factory.mktemp("web_chat_browser")
    running = page_driver.Server(str(folder / "chat.db"), folder / "server.log")
    try:
        yield running
    finally:
        out = running.stop()
    assert out.count("Traceback") == out.count("the turn could not run ("), out  # only the turn meant to fail


@pytest.fixture(scope="module")
def browser(server: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    chromium = require_program("chromium", "chromium")
    chromedriver = require_program("chromedriver", "chromium-driver")
    with page_driver.chromium(tmp_path_factory.mktemp("chromium-profile"), chromium, chromedriver) as driver:
        yield driver


class Page:
    """The browser on the chat page, and what it rendered."""

    def __init__(self, driver: Any, server: Any, evidence: Path) -> None:
        self.driver, self.server, self.evidence = driver, server, evidence
        self.console: list[dict[str, Any]] = []

    def open(self) -> None:
        page_driver.open_page(self.driver, self.server.url)
        self.driver.execute_script(WATCH)

    def ask(self, question: str, image: Path | None = None) -> str:
        return str(page_driver.ask(self.driver, question, image))

    def entries(self) -> list[tuple[str, str]]:
        """The log as (class, text) pairs, in order."""
        return [(el.get_attribute("class"), el.text) for el in self.driver.find_elements(By.CSS_SELECTOR, "#log > *")]

    def state(self) -> str:
        return str(self.driver.find_element(By.ID, "state").text)

    def shot(self, name: str) -> Path:
        """Save a screenshot of the page as ``tests/artifacts/web_chat/<name>.png`` and return its path."""
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        path = ARTIFACTS / f"{name}.png"
        self.driver.save_screenshot(str(path))
        return path

    def read_console(self) -> list[dict[str, Any]]:
        self.console += self.driver.get_log("browser")
        return self.console

    def save_evidence(self) -> None:
        self.evidence.mkdir(parents=True, exist_ok=True)
        self.driver.save_screenshot(str(self.evidence / "page.png"))
        lines = [f"{e['level']} {e['source']} {e['message']}" for e in self.read_console()]
        (self.evidence / "console.log").write_text("\n".join(lines) + "\n")
        (self.evidence / "server.log").write_text(self.server.log())


def new_visitor(browser: Any, server: Any, evidence: Path) -> Page:
    """The browser as a new visitor of ``server``: no stored session, a new token, the console read."""
    browser.get("about:blank")  # no page of the server is left running to write its session back
    browser.execute_cdp_cmd("Storage.clearDataForOrigin", {"origin": server.url.rstrip("/"), "storageTypes": "all"})
    browser.get_log("browser")
    return Page(browser, server, evidence)


@pytest.fixture
def page(browser: Any, server: Any, tmp_path: Path) -> Page:
    return new_visitor(browser, server, tmp_path / "browser-artifacts")


@contextlib.contextmanager
def evidence_on_failure(page: Page) -> Iterator[None]:
    """On a failure inside, save the screenshot, console and server log; name the folder in the error."""
    try:
        yield
    except Exception as exc:
        try:
            page.save_evidence()
            where = f"screenshot, browser console and server log saved in {page.evidence}"
        except Exception as saving:  # the browser itself is gone
            where = f"no screenshot ({type(saving).__name__})"
        raise AssertionError(f"{type(exc).__name__}: {exc}\n{where}") from exc


def severe(page: Page) -> list[str]:
    return [entry["message"] for entry in page.read_console() if entry["level"] == "SEVERE"]


def test_recipes_scenario_in_the_browser(page: Page) -> None:
    with evidence_on_failure(page):
        page.open()
        assert page.ask(QUESTION) == "done"
        assert page.entries() == RECIPES_SCENARIO
        tool = page.driver.find_element(By.CSS_SELECTOR, "#log .tool")
        assert tool.get_attribute("data-status") == "completed"
        assert not tool.find_element(By.CSS_SELECTOR, ".result").is_displayed()  # collapsed until clicked
        tool.find_element(By.CSS_SELECTOR, "summary").click()
        assert tool.find_element(By.CSS_SELECTOR, ".args").text == "{}"
        assert tool.find_element(By.CSS_SELECTOR, ".result").text == "Pancakes\nTomato soup\nOmelette"
        page.shot("recipes-scenario")
        seen = page.driver.execute_script("return window.seen")
        answers = [texts for texts in seen["chat"].values() if texts[-1] == ANSWER]
        assert len(answers) == 1 and len(answers[0]) > 2, seen  # streamed: the answer grew chunk by chunk
        assert all(ANSWER.startswith(text) for text in answers[0])
        assert list(seen["tool"].values()) == [["pending", "running", "completed"]]
        assert severe(page) == []
        # a reload shows the same conversation, from the server's chat:init
        page.open()
        assert page.entries() == RECIPES_SCENARIO
        assert severe(page) == []


def test_an_attached_image_is_sent_and_shown(page: Page, tmp_path: Path) -> None:
    picture = tmp_path / "dish.png"
    picture.write_bytes(png(24, 16, (200, 60, 40)))
    with evidence_on_failure(page):
        page.open()
        assert page.ask("What is this dish?", picture) == "done"
        entries = page.entries()
        assert entries[0] == ("user", "What is this dish?")
        assert entries[1] == ("chat", "I see your picture. Let me check your cookbook.")  # the model got it
        shown = page.driver.find_element(By.CSS_SELECTOR, "#log .user img")
        size = page.driver.execute_script("return [arguments[0].naturalWidth, arguments[0].naturalHeight]", shown)
        assert size == [24, 16]  # the browser decoded the image the server broadcast back
        assert shown.get_attribute("src").startswith("data:image/png;base64,")
        assert page.driver.find_element(By.ID, "image").get_attribute("value") == ""  # the input is cleared
        assert severe(page) == []


@pytest.mark.parametrize(("name", "data", "shown"), [
    ("notes.txt", b"not a picture", "image.media_type"),                # the server's chat:error
    ("fake.png", b"GIF89a" + b"\x00" * 32, "not a image/png image"),     # the server's chat:error
    ("huge.png", b"\x89PNG\r\n\x1a\n" + b"\x00" * (6 * 1024 * 1024), "at most 5 MiB"),  # refused by the page
])
def test_a_refused_attachment_shows_an_error(page: Page, tmp_path: Path, name: str, data: bytes,
                                             shown: str) -> None:
    attachment = tmp_path / name
    attachment.write_bytes(data)
    with evidence_on_failure(page):
        page.open()
        state = page.ask(QUESTION, attachment)
        errors = [text for cls, text in page.entries() if cls == "error"]
        assert len(errors) == 1 and shown in errors[0], page.entries()
        assert state.startswith("refused")
        # the page still works: the next question gets its answer
        assert page.ask(QUESTION) == "done"
        assert page.entries()[-1] == ("chat", ANSWER)


def test_a_failed_turn_and_a_foreign_session_are_shown(page: Page) -> None:
    with MessageStore(page.server.store) as seeded:  # a turn that ended (its completion kept) with a call unanswered:
        seeded.save_many("broken", [ChatMessage.user("Hi"),  # the next turn cannot run
                                    ChatMessage.assistant(tool_calls=[ToolCall("call_1", "list_recipes", {})])],
                         meta=[None, {"completion": {"success": False, "error": "the model call failed", "code": "model"}}])
    owner = socketio.SimpleClient()
    owner.connect(page.server.url, auth={"token": "owner-token-1"}, wait_timeout=TIMEOUT)
    try:
        owner.call("chat:init", {"sessionId": "theirs"}, timeout=TIMEOUT)
    finally:
        owner.disconnect()
    with evidence_on_failure(page):
        page.open()
        page.driver.execute_script("localStorage.setItem('chatSession', 'broken')")
        page.open()
        assert page.entries() == [("user", "Hi"), ("error", "the model call failed")]  # the stored turn's mark
        assert page.ask(QUESTION).startswith("failed")
        assert page.entries()[-1] == ("error", "the turn could not run; see the server log")
        # a session id that is another caller's: the page says so and starts a new conversation
        page.driver.execute_script("localStorage.setItem('chatSession', 'theirs')")
        page.driver.get(page.server.url)
        WebDriverWait(page.driver, TIMEOUT).until(
            lambda d: d.find_element(By.ID, "state").text.startswith("session ")
            and not d.find_element(By.ID, "state").text.startswith("session theirs"),
            "the page did not start a new session")
        assert [cls for cls, _ in page.entries()] == ["error"]
        assert "not yours" in page.entries()[0][1]
        assert page.ask(QUESTION) == "done"
        assert page.entries()[-1] == ("chat", ANSWER)


def test_a_failure_leaves_a_screenshot_the_console_and_the_server_log(page: Page) -> None:
    page.open()
    page.driver.execute_script("console.error('a marker for the evidence test')")
    with pytest.raises(AssertionError) as failed:
        with evidence_on_failure(page):
            assert page.state() == "a state the page never shows"
    assert f"saved in {page.evidence}" in str(failed.value) and "a state the page never shows" in str(failed.value)
    assert (page.evidence / "page.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "a marker for the evidence test" in (page.evidence / "console.log").read_text()
    assert "chat backend on " in (page.evidence / "server.log").read_text()
    page.console.clear()  # the marker was an error on purpose


def test_the_page_rides_out_a_server_restart(client_js: Path, browser: Any, tmp_path: Path) -> None:
    store = str(tmp_path / "chat.db")
    first = page_driver.Server(store, tmp_path / "first.log")
    page = new_visitor(browser, first, tmp_path / "browser-artifacts")
    with evidence_on_failure(page):
        try:
            page.open()
            assert page.ask(QUESTION) == "done"
        finally:
            first.stop()
        # the server is gone: the page says so and lets the user type (no Send left disabled for good)
        WebDriverWait(page.driver, TIMEOUT).until(
            lambda d: d.find_element(By.ID, "state").text.startswith(("disconnected", "cannot reach")),
            "the page did not notice the server was gone")
        assert page.driver.find_element(By.ID, "send").is_enabled()
        page.server = page_driver.Server(store, tmp_path / "second.log", port=first.port)
        try:
            WebDriverWait(page.driver, TIMEOUT).until(  # socket.io reconnects by itself; chat:init again
                lambda d: d.find_element(By.ID, "state").text.startswith("session "),
                "the page did not join its session again")
            assert [cls for cls, _ in page.entries()] == ["user", "chat", "tool", "chat"]
            assert page.entries()[-1] == ("chat", ANSWER)  # the conversation, from the store
            assert page.ask(QUESTION) == "done"
            assert page.entries()[-1] == ("chat", ANSWER)
        finally:
            out = page.server.stop()
        assert "Traceback" not in first.log() + out, first.log() + out


def test_the_screenshot_script(client_js: Path, tmp_path: Path) -> None:
    shot = tmp_path / "page.png"
    chromium = require_program("chromium", "chromium")
    chromedriver = require_program("chromedriver", "chromium-driver")
    assert page_driver.main([str(shot), "--chromium", chromium, "--chromedriver", chromedriver]) == 0
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert width == 900 and height >= 480  # the whole page: the conversation, the form, the state line


# -- the page's controls and rendering, against a model that can think, hold, call and attack ------

HOSTILE = ('<img src=x onerror="window.pwned=1"> <script>window.pwned=2</script>\n\n'
           '[click me](javascript:window.pwned=3) [data](data:text/html;base64,PHNjcmlwdD4=) '
           '![pic](javascript:window.pwned=4) [safe](https://example.com/a) [mail](mailto:cook@example.com) '
           '<a href="javascript:window.pwned=5">raw</a>')
MARKDOWN = ("**Plan**: boil `water`, then _stir_ the snake_case_name:\n\n- eggs\n- butter\n\n"
            "1. first\n2. second\n\n```\n<b>not bold</b>\n```")


class ScriptedOpenAI(http.server.BaseHTTPRequestHandler):
    """An OpenAI-compatible model on loopback, answering by the user's words; ``gate`` holds "Hold on"."""

    gate = threading.Event()

    def do_POST(self) -> None:  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        last = body["messages"][-1]
        content = last["content"]
        question = content if isinstance(content, str) else " ".join(
            part.get("text", "") for part in content if isinstance(part, dict))
        held: list[dict[str, Any]] = []
        finish = "stop"
        if last["role"] == "tool":
            deltas: list[dict[str, Any]] = [{"content": "Done."}]
        elif question == "Think first":
            deltas = [{"reasoning_content": "The user wants "}, {"reasoning_content": "a plan."}, {"content": MARKDOWN}]
        elif question == "What is this dish?":
            deltas = [{"content": "A dish."}]
        elif question == "Hold on":
            deltas, held = [{"content": "Working "}], [{"content": "on it."}]
        elif question == "Show me pancakes":
            deltas = [{"tool_calls": [{"index": 0, "id": "call_7", "type": "function",
                                       "function": {"name": "get_recipe", "arguments": '{"name": "Pancakes"}'}}]}]
            finish = "tool_calls"
        else:
            deltas = [{"content": HOSTILE}]
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.end_headers()

        def send(delta: dict[str, Any], reason: str | None = None) -> None:
            chunk = {"object": "chat.completion.chunk", "model": body["model"],
                     "choices": [{"index": 0, "delta": delta, "finish_reason": reason}]}
            self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
            self.wfile.flush()

        try:
            for delta in [{"role": "assistant", "content": ""}, *deltas]:
                send(delta)
            if held:
                ScriptedOpenAI.gate.wait(TIMEOUT)
            for delta in held:
                send(delta)
            send({}, finish)
            self.wfile.write(b"data: [DONE]\n\n")
        except OSError:  # the server stopped reading (a stopped turn)
            pass

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def model_env() -> Iterator[dict[str, str]]:
    """``ScriptedOpenAI`` on a free loopback port; the environment that points server.py at it."""
    fake = http.server.ThreadingHTTPServer(("127.0.0.1", 0), ScriptedOpenAI)
    thread = threading.Thread(target=fake.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
    thread.start()
    try:
        yield {"OPENAI_BASE_URL": f"http://127.0.0.1:{fake.server_address[1]}/v1"}
    finally:
        ScriptedOpenAI.gate.set()
        fake.shutdown()
        fake.server_close()
        thread.join(TIMEOUT)


@pytest.fixture(scope="module")
def model_server(client_js: Path, model_env: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """server.py with ``--model openai`` on ``ScriptedOpenAI``, asking before ``get_recipe``."""
    folder = tmp_path_factory.mktemp("web_chat_model")
    running = page_driver.Server(str(folder / "chat.db"), folder / "server.log", "--model", "openai",
                                 "--ask", "get_recipe", env=model_env)
    try:
        yield running
    finally:
        out = running.stop()
    assert "Traceback" not in out, out


@pytest.fixture
def model_page(browser: Any, model_server: Any, tmp_path: Path) -> Page:
    return new_visitor(browser, model_server, tmp_path / "browser-artifacts")


def type_and_send(page: Page, text: str) -> None:
    page.driver.find_element(By.ID, "text").send_keys(text)
    page.driver.find_element(By.ID, "send").click()


def wait_until(page: Page, script: str, what: str) -> Any:
    """Wait (bounded) until ``script`` (a JavaScript expression) is truthy in the page; return its value."""
    return WebDriverWait(page.driver, TIMEOUT).until(lambda d: d.execute_script(f"return {script}"), what)


def test_markdown_is_rendered_without_running_or_linking_anything_hostile(model_page: Page) -> None:
    page = model_page
    with evidence_on_failure(page):
        page.open()
        hostile_question = '<img src=x onerror="window.pwned=6"> [x](javascript:window.pwned=7)'
        assert page.ask(hostile_question) == "done"
        log = page.driver.find_element(By.ID, "log")
        assert page.entries() == [
            ("user", hostile_question),  # the user's own text is text, too
            ("chat", '<img src=x onerror="window.pwned=1"> <script>window.pwned=2</script>\n'
                     'click me data !pic safe mail <a href="javascript:window.pwned=5">raw</a>'),
        ]
        assert log.find_elements(By.CSS_SELECTOR, "img, script, iframe, object, embed") == []
        links = [(a.text, a.get_attribute("href"), a.get_attribute("rel"))
                 for a in log.find_elements(By.CSS_SELECTOR, "a")]
        assert links == [("safe", "https://example.com/a", "noopener noreferrer nofollow"),
                         ("mail", "mailto:cook@example.com", "noopener noreferrer nofollow")]
        assert page.driver.execute_script("return [...document.querySelectorAll('#log *')]"
                                          ".flatMap((el) => [...el.attributes].map((a) => a.name))"
                                          ".filter((name) => name.startsWith('on'))") == []
        assert page.driver.execute_script("return window.pwned") is None
        page.open()  # the stored answer is rendered the same way
        assert page.entries()[1][1].startswith('<img src=x onerror="window.pwned=1">')
        assert page.driver.find_elements(By.CSS_SELECTOR, "#log img, #log script") == []
        assert page.driver.execute_script("return window.pwned") is None
        page.shot("markdown-hostile")
        assert severe(page) == []


def test_reasoning_apart_and_markdown_rendered(model_page: Page) -> None:
    page = model_page
    with evidence_on_failure(page):
        page.open()
        assert page.ask("Think first") == "done"
        assert [cls for cls, _ in page.entries()] == ["user", "reasoning", "chat"]
        reasoning = page.driver.find_element(By.CSS_SELECTOR, "#log .reasoning")
        assert reasoning.text == "Reasoning"  # collapsed: its summary only
        reasoning.find_element(By.CSS_SELECTOR, "summary").click()
        assert reasoning.find_element(By.CSS_SELECTOR, ".text").text == "The user wants a plan."
        chat = page.driver.find_element(By.CSS_SELECTOR, "#log .chat")
        html = page.driver.execute_script("return arguments[0].innerHTML", chat)
        assert html == ("<p><strong>Plan</strong>: boil <code>water</code>, then <em>stir</em> the snake_case_name:</p>"
                        "<ul><li>eggs</li><li>butter</li></ul><ol><li>first</li><li>second</li></ol>"
                        "<pre><code>&lt;b&gt;not bold&lt;/b&gt;\n</code></pre>".replace("\n</code>", "</code>"))
        page.shot("reasoning-and-markdown")
        assert severe(page) == []


def test_stop_ends_a_running_turn(model_page: Page) -> None:
    page = model_page
    ScriptedOpenAI.gate.clear()
    try:
        with evidence_on_failure(page):
            page.open()
            stop = page.driver.find_element(By.ID, "stop")
            assert not stop.is_displayed()  # nothing runs
            type_and_send(page, "Hold on")
            wait_until(page, "document.querySelector('#log .chat')?.textContent.startsWith('Working')",
                       "the answer did not start")
            assert not page.driver.find_element(By.ID, "send").is_enabled() and stop.is_displayed()
            page.shot("stop-while-running")
            stop.click()  # the model's stream is still held open: only chat:cancel ends the turn
            wait_until(page, "document.getElementById('state').textContent === 'stopped'", "the turn did not stop")
            assert not ScriptedOpenAI.gate.is_set()
            assert page.entries()[-2:] == [("chat", "Working"), ("notice", "Stopped.")]
            assert page.driver.find_element(By.ID, "send").is_enabled() and not stop.is_displayed()
            ScriptedOpenAI.gate.set()
            assert page.ask("Think first") == "done"  # the session is free again
            page.open()  # the stopped answer stays, as far as it went, with its mark
            assert [cls for cls, _ in page.entries()] == ["user", "chat", "notice", "user", "chat"]
            assert severe(page) == []
    finally:
        ScriptedOpenAI.gate.set()


def test_approve_and_deny_a_tool_call_with_a_reason(model_page: Page) -> None:
    page = model_page
    with evidence_on_failure(page):
        page.open()
        type_and_send(page, "Show me pancakes")
        wait_until(page, "document.querySelector('#log .approval')", "no approval was asked")
        assert page.state() == "waiting for your approval"
        assert not page.driver.find_element(By.ID, "send").is_enabled()  # no way out but these buttons or Stop
        assert page.driver.find_element(By.ID, "stop").is_displayed()
        tool = page.driver.find_element(By.CSS_SELECTOR, "#log .tool")
        assert tool.get_attribute("data-status") == "pending"
        assert tool.find_element(By.CSS_SELECTOR, ".approval span").text == "Run get_recipe?"
        assert json.loads(tool.find_element(By.CSS_SELECTOR, ".args").text) == {"name": "Pancakes"}  # shown open
        page.shot("approval-asked")
        tool.find_element(By.CSS_SELECTOR, ".approval input").send_keys("not today")
        tool.find_element(By.CSS_SELECTOR, ".approval .deny").click()
        wait_until(page, "document.getElementById('state').textContent === 'done'", "the denied turn did not end")
        assert tool.get_attribute("data-status") == "error"
        assert tool.find_elements(By.CSS_SELECTOR, ".approval") == []
        assert tool.find_element(By.CSS_SELECTOR, ".tool-error").text == "The user denied this tool call. Reason: not today"
        assert page.entries()[-1] == ("chat", "Done.")

        # asked again and stopped: the buttons go, the call is not run
        type_and_send(page, "Show me pancakes")
        wait_until(page, "document.querySelectorAll('#log .approval').length === 1", "no second approval was asked")
        page.driver.find_element(By.ID, "stop").click()
        wait_until(page, "document.getElementById('state').textContent === 'stopped'", "the waiting turn did not stop")
        assert page.driver.find_elements(By.CSS_SELECTOR, "#log .approval") == []
        assert page.entries()[-1] == ("notice", "Stopped.")
        assert page.driver.find_elements(By.CSS_SELECTOR, "#log .tool")[-1].get_attribute("data-status") != "completed"

        # asked again, then the page is reloaded: the pending call is offered again, and approved
        type_and_send(page, "Show me pancakes")
        wait_until(page, "document.querySelectorAll('#log .approval').length === 1", "no third approval was asked")
        page.open()
        wait_until(page, "document.querySelectorAll('#log .approval').length === 1", "the reload lost the approval")
        assert not page.driver.find_element(By.ID, "send").is_enabled()
        page.driver.find_element(By.CSS_SELECTOR, "#log .approval .approve").click()
        wait_until(page, "document.getElementById('state').textContent === 'done'", "the approved turn did not end")
        tools = page.driver.find_elements(By.CSS_SELECTOR, "#log .tool")
        assert [t.get_attribute("data-status") for t in tools] == ["error", "error", "completed"]
        assert page.entries()[-1] == ("chat", "Done.")
        assert "flour" in tools[2].find_element(By.CSS_SELECTOR, ".result").text  # the MCP tool ran; still open
        page.shot("approval-decided")
        assert severe(page) == []


def test_new_conversation_and_the_log_scrolled_to_the_end_after_a_rejoin(page: Page) -> None:
    with evidence_on_failure(page):
        page.open()
        for _ in range(3):
            assert page.ask(QUESTION) == "done"
        first = page.driver.execute_script("return localStorage.getItem('chatSession')")
        scrolled = "(() => { const log = document.getElementById('log');" \
                   " return [log.scrollHeight > log.clientHeight, log.scrollHeight - log.clientHeight - log.scrollTop]; })()"
        page.open()  # rejoin: the whole conversation, the newest entry in view
        assert len(page.entries()) == 12
        overflow, left = page.driver.execute_script(f"return {scrolled}")
        assert overflow and left <= 1
        page.shot("rejoined-at-the-end")
        page.driver.find_element(By.ID, "new").click()
        wait_until(page, f"(document.getElementById('state').textContent.startsWith('session ') &&"
                         f" localStorage.getItem('chatSession') !== {json.dumps(first)})", "no new conversation")
        assert page.entries() == []
        assert page.ask(QUESTION) == "done"
        assert page.entries() == RECIPES_SCENARIO
        page.open()
        assert page.entries() == RECIPES_SCENARIO  # the new conversation is the one kept
        assert severe(page) == []


def test_the_page_at_360_pixels(page: Page) -> None:
    with evidence_on_failure(page):
        page.open()
        assert page.ask(QUESTION) == "done"
        page.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                    {"width": 360, "height": 640, "deviceScaleFactor": 1, "mobile": True})
        try:
            page.open()
            layout = page.driver.execute_script(
                "const box = (el) => el.getBoundingClientRect();"
                "return {width: innerWidth, scroll: document.documentElement.scrollWidth,"
                " right: Math.max(...[...document.querySelectorAll('header, #log, #form > *')].map((el) => box(el).right)),"
                " text: box(document.getElementById('text')), image: box(document.getElementById('image'))};")
            assert layout["width"] == 360  # the viewport meta: CSS pixels are the phone's
            assert layout["scroll"] <= 360 and layout["right"] <= 360  # nothing sticks out sideways
            assert layout["image"]["top"] >= layout["text"]["bottom"]  # the form wrapped onto a second line
            assert layout["text"]["width"] >= 200
            page.driver.find_element(By.CSS_SELECTOR, "#log .tool summary").click()
            assert page.driver.execute_script("return document.documentElement.scrollWidth") <= 360
            page.shot("narrow-360")
            page_driver.capture(page.driver, ARTIFACTS / "narrow-360-full.png", 360)
        finally:
            page.driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_history_images_and_turn_marks(page: Page, tmp_path: Path) -> None:
    """What chat:init may carry (an entry's ``image``, its turn's failed ``completion``), rendered by the page."""
    picture = base64.b64encode(png(20, 10, (40, 120, 200))).decode()
    history = [
        {"id": "u1", "role": "user", "content": "Look", "timestamp": "2024-05-01T12:00:00Z",
         "image": f"data:image/png;base64,{picture}",
         "completion": {"success": False, "error": "the server stopped", "code": "interrupted"}},
        {"id": "m1", "role": "assistant", "kind": "chat", "content": "Half an ans", "timestamp": "2024-05-01T12:00:01Z"},
        {"id": "u2", "role": "user", "content": "Same origin", "timestamp": "2024-05-01T12:00:02Z",
         "image": "/socket.io.min.js?as-an-image",
         "completion": {"success": False, "error": "the turn was cancelled", "code": "cancelled", "cancelled": True}},
        {"id": "u3", "role": "user", "content": "Elsewhere", "timestamp": "2024-05-01T12:00:03Z",
         "image": "https://elsewhere.example/x.png"},
        {"id": "u4", "role": "user", "content": "Script", "timestamp": "2024-05-01T12:00:04Z",
         "image": "javascript:window.pwned=8"},
        {"id": "u5", "role": "user", "content": "Svg", "timestamp": "2024-05-01T12:00:05Z",
         "image": "data:image/svg+xml;base64,PHN2Zz48L3N2Zz4="},
        {"id": "u6", "role": "user", "content": "Failed", "timestamp": "2024-05-01T12:00:06Z",
         "completion": {"success": False, "error": "the model could not be reached", "code": "model"}},
    ]
    with evidence_on_failure(page):
        page.open()
        page.driver.execute_script("document.getElementById('log').replaceChildren(); showHistory(arguments[0]);",
                                   history)
        assert page.entries() == [
            ("user", "Look"), ("chat", "Half an ans"),
            ("notice", "Interrupted: the server stopped before this turn ended."),
            ("user", "Same origin"), ("notice", "Stopped."),
            ("user", "Elsewhere"), ("user", "Script"), ("user", "Svg"),
            ("user", "Failed"), ("error", "the model could not be reached"),
        ]
        images = page.driver.find_elements(By.CSS_SELECTOR, "#log .user img")
        assert [img.get_attribute("src") for img in images] == [f"data:image/png;base64,{picture}",
                                                                page.server.url + "socket.io.min.js?as-an-image"]
        size = page.driver.execute_script("return [arguments[0].naturalWidth, arguments[0].naturalHeight]", images[0])
        assert size == [20, 10]
        # a live completion with code interrupted is marked the same way
        page.driver.execute_script("socket.listeners('completion').forEach((f) => f("
                                   "{success: false, error: 'the server stopped', code: 'interrupted'}))")
        assert page.entries()[-1] == ("notice", "Interrupted: the server stopped before this turn ended.")
        assert page.state().startswith("failed")
        page.shot("history-marks")
        assert page.driver.execute_script("return window.pwned") is None
        page.console.clear()  # the same-origin URL is not an image: Chromium logs that it could not decode it


def test_an_image_survives_a_reload_and_a_killed_turn_is_marked_interrupted(
        client_js: Path, browser: Any, model_env: dict[str, str], tmp_path: Path) -> None:
    store = str(tmp_path / "chat.db")
    picture = tmp_path / "dish.png"
    picture.write_bytes(png(24, 16, (200, 60, 40)))
    first = page_driver.Server(store, tmp_path / "first.log", "--model", "openai", env=model_env)
    page = new_visitor(browser, first, tmp_path / "browser-artifacts")
    ScriptedOpenAI.gate.clear()
    try:
        with evidence_on_failure(page):
            page.open()
            assert page.ask("What is this dish?", picture) == "done"
            page.open()  # the image comes back from chat:init
            shown = page.driver.find_element(By.CSS_SELECTOR, "#log .user img")
            assert page.driver.execute_script("return arguments[0].naturalWidth", shown) == 24
            type_and_send(page, "Hold on")
            wait_until(page, "document.querySelectorAll('#log .chat')[1]?.textContent.startsWith('Working')",
                       "the held answer did not start")
            first.process.kill()  # kill -9 while the model's answer is held open
            first.process.wait(TIMEOUT)
            page.server = page_driver.Server(store, tmp_path / "second.log", "--model", "openai", port=first.port,
                                             env=model_env)
            try:
                wait_until(page, "document.getElementById('state').textContent.startsWith('session ')",
                           "the page did not join its session again")
                assert page.entries()[-3:] == [("user", "Hold on"), ("chat", "Working"),
                                               ("notice", "Interrupted: the server stopped before this turn ended.")]
                assert page.driver.find_element(By.ID, "send").is_enabled()
                page.shot("interrupted-after-kill")
                ScriptedOpenAI.gate.set()
                assert page.ask("What is this dish?") == "done"  # the next turn runs
            finally:
                out = page.server.stop()
            assert "Traceback" not in out, out
    finally:
        ScriptedOpenAI.gate.set()
        if first.process.poll() is None:
            first.stop()
