"""Drive the chat page in headless Chromium: the recipes scenario, then a screenshot (README's).

    pip install -e ".[web]"                       # and Debian's chromium and chromium-driver
    (cd examples/web_chat && npm install)
    python examples/web_chat/screenshot.py examples/web_chat/screenshot.png [--width 360]

It starts server.py (the scripted model) on a free loopback port, opens the page in Chromium
with a fresh profile, asks "What recipes do I have?", waits for the answer, opens the tool
message's details and saves the whole page at the given width (a phone's with ``--width 360``).
tests/test_web_chat_browser.py drives the page through the same functions. Chromium runs with
no network but loopback in mind: no sync, no component updates, no background requests.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

HERE = Path(__file__).resolve().parent
QUESTION = "What recipes do I have?"
TIMEOUT = 60.0  # seconds: a bound on every wait (server start, page load, a turn), not a performance claim
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--window-size=900,640", "--hide-scrollbars")


class Server:
    """server.py as a subprocess on loopback (a free port unless given), its output in ``log_path``."""

    def __init__(self, store: str, log_path: Path, *args: str, port: int = 0,
                 env: dict[str, str] | None = None) -> None:
        if not port:
            with socket.socket() as probe:
                probe.bind(("127.0.0.1", 0))
                port = probe.getsockname()[1]
        self.url = f"http://127.0.0.1:{port}/"
        self.port, self.store, self.log_path = port, store, log_path
        with open(log_path, "wb") as log:
            self.process = subprocess.Popen(
                [sys.executable, str(HERE / "server.py"), "--port", str(port), "--store", store, *args],
                stdout=log, stderr=subprocess.STDOUT, env={**os.environ, **(env or {})})
        deadline = time.monotonic() + TIMEOUT
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"server.py exited: {self.log()}")
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    return
            except OSError:
                if time.monotonic() > deadline:
                    self.stop()
                    raise TimeoutError(f"server.py did not listen within {TIMEOUT:.0f} s: {self.log()}") from None
                time.sleep(0.1)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def stop(self) -> str:
        """Stop the server (bounded) and return its output."""
        self.process.terminate()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=15)
        return self.log()


@contextlib.contextmanager
def chromium(profile: Path, binary: str = "/usr/bin/chromium",
             chromedriver: str = "/usr/bin/chromedriver") -> Iterator[webdriver.Chrome]:
    """Start headless Chromium with a fresh profile in ``profile``; quit it afterwards."""
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for flag in (*CHROMIUM_FLAGS, f"--user-data-dir={profile}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})  # the console, for a failure report
    driver = webdriver.Chrome(options=options, service=Service(chromedriver))
    try:
        driver.set_page_load_timeout(TIMEOUT)
        driver.set_script_timeout(TIMEOUT)
        yield driver
    finally:
        driver.quit()


def open_page(driver: webdriver.Chrome, url: str) -> None:
    """Open the chat page and wait until its session is joined (the state line names it)."""
    driver.get(url)
    WebDriverWait(driver, TIMEOUT).until(
        lambda d: d.find_element(By.ID, "state").text.startswith("session "),
        "the page did not join a session")


def ask(driver: webdriver.Chrome, question: str, image: Path | None = None) -> str:
    """Type ``question`` (attaching ``image``), send it, wait until the page takes input again; return the state line."""
    if image is not None:
        driver.find_element(By.ID, "image").send_keys(str(image))
    driver.find_element(By.ID, "text").send_keys(question)
    driver.find_element(By.ID, "send").click()  # the page disables Send and says "sending" at once
    WebDriverWait(driver, TIMEOUT).until(
        lambda d: d.find_element(By.ID, "send").is_enabled() and d.find_element(By.ID, "state").text != "sending",
        "the turn did not end on the page")
    return str(driver.find_element(By.ID, "state").text)


def capture(driver: webdriver.Chrome, output: Path, width: int) -> None:
    """Save the whole page, ``width`` CSS pixels wide (a phone's viewport below 500), as a PNG."""
    mobile = width < 500
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": 640, "deviceScaleFactor": 1, "mobile": mobile})
    height = driver.execute_script("return document.documentElement.scrollHeight")
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",  # the whole page, no more
                           {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile})
    try:
        driver.save_screenshot(str(output))
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="screenshot.py", description=__doc__.split("\n")[0])
    parser.add_argument("output", type=Path, help="the PNG to write")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--chromedriver", default="/usr/bin/chromedriver")
    parser.add_argument("--width", type=int, default=900, help="the page's width in CSS pixels (default 900)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        server = Server(":memory:", Path(scratch) / "server.log")
        try:
            with chromium(Path(scratch) / "profile", args.chromium, args.chromedriver) as driver:
                open_page(driver, server.url)
                state = ask(driver, QUESTION)
                driver.find_element(By.CSS_SELECTOR, "#log .tool summary").click()  # its arguments and result
                capture(driver, args.output, args.width)
        finally:
            server.stop()
    print(f"{args.output}: the page after the recipes scenario ({state})")
    return 0 if state == "done" else 1


if __name__ == "__main__":
    os.environ.setdefault("SE_OFFLINE", "true")  # Selenium Manager must not try to download a driver
    sys.exit(main())
