"""docs/mcp.md's first two examples run as written: the official-SDK server and the client that talks to it."""

import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agentmsg.io.mcp import McpClient

from mcp_forkserver import sdk_server
from mcp_http import free_port

ROOT = Path(__file__).resolve().parent.parent
CLIENT, SERVER = re.findall(r"```python\n(.*?)```", (ROOT / "docs" / "mcp.md").read_text(encoding="utf-8"), re.S)[:2]


def test_the_examples_are_the_client_and_the_server():
    assert "McpClient(" in CLIENT and "from mcp.server.mcpserver import MCPServer" in SERVER


def test_the_client_example_talks_to_the_server_example(tmp_path):
    (tmp_path / "kitchen_server.py").write_text(SERVER, encoding="utf-8")
    (tmp_path / "client.py").write_text(CLIENT, encoding="utf-8")
    done = subprocess.run([sys.executable, "client.py"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout == "Pancakes\nOmelette\n"


def test_the_server_example_sends_structured_content_as_the_docs_say(tmp_path):
    (tmp_path / "kitchen_server.py").write_text(SERVER, encoding="utf-8")
    with McpClient(sdk_server(tmp_path / "kitchen_server.py"), timeout=60) as client:
        result = client.call_tool("list_recipes")
    assert dict(result.structured) == {"result": "Pancakes\nOmelette"} and result.text == "Pancakes\nOmelette"


@pytest.mark.e2e  # an SDK server over HTTP, started for this test
def test_the_server_example_over_streamable_http_as_its_comment_says(tmp_path):
    port = free_port()
    over_http = SERVER.replace('server.run()', f'server.run("streamable-http", port={port})')
    assert over_http != SERVER
    (tmp_path / "kitchen_server.py").write_text(over_http, encoding="utf-8")
    proc = subprocess.Popen([sys.executable, str(tmp_path / "kitchen_server.py")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with McpClient(f"http://127.0.0.1:{port}/mcp", timeout=30) as client:
                    assert client.call_tool("list_recipes").text == "Pancakes\nOmelette"
                break
            except Exception:
                assert proc.poll() is None and time.monotonic() < deadline, "the server did not come up"
                time.sleep(0.2)
    finally:
        proc.terminate()
        proc.wait(30)
