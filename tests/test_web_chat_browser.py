"""The chat page in a real browser: headless Chromium (Debian's chromium, chromium-driver) driven by Selenium.

Each test starts examples/web_chat/server.py (the scripted model) and a Chromium with a fresh profile,
uses the page as a person would (types, attaches, clicks Send) and reads what the page rendered.
On a failure the screenshot, the browser console and the server log are saved and the failure
message names their folder.
"""

from __future__ import annotations

import contextlib
import importlib.util
import struct
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
        assert page.entries() == [
            ("user", QUESTION),
            ("chat", "Let me check your cookbook."),
            ("tool", "Calling list_recipes [completed]\nPancakes\nTomato soup\nOmelette"),
            ("chat", ANSWER),
        ]
        tool = page.driver.find_element(By.CSS_SELECTOR, "#log .tool")
        assert tool.get_attribute("data-status") == "completed"
        seen = page.driver.execute_script("return window.seen")
        answers = [texts for texts in seen["chat"].values() if texts[-1] == ANSWER]
        assert len(answers) == 1 and len(answers[0]) > 2, seen  # streamed: the answer grew chunk by chunk
        assert all(ANSWER.startswith(text) for text in answers[0])
        assert list(seen["tool"].values()) == [["pending", "running", "completed"]]
        assert severe(page) == []
        # a reload shows the same conversation, from the server's chat:init
        page.open()
        assert page.entries() == [
            ("user", QUESTION),
            ("chat", "Let me check your cookbook."),
            ("tool", "Calling list_recipes [completed]\nPancakes\nTomato soup\nOmelette"),
            ("chat", ANSWER),
        ]
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
        assert page.entries() == [("user", "Hi")]
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
