"""Every script in examples/ runs, from a fresh interpreter, and exits cleanly; some show exactly what they did.

Each script runs once per test process, in a folder of its own; the tests read that one run.
"""

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

EXAMPLES = sorted((Path(__file__).parent.parent / "examples").glob("*.py"))


Run = Callable[[str], "subprocess.CompletedProcess[str]"]


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    """Return a function that runs ``examples/<name>`` in a fresh folder, once, and returns what it did."""
    done: dict[str, subprocess.CompletedProcess[str]] = {}

    def run_once(name: str) -> subprocess.CompletedProcess[str]:
        if name not in done:
            folder = tmp_path_factory.mktemp(name.removesuffix(".py"))
            command = [sys.executable, str(EXAMPLES[0].parent / name)]
            done[name] = subprocess.run(command, capture_output=True, text=True, cwd=folder, timeout=300)
        return done[name]

    return run_once


def test_there_are_examples() -> None:
    assert any(path.name == "quickstart.py" for path in EXAMPLES)


@pytest.mark.parametrize("script", EXAMPLES, ids=lambda p: p.name)
def test_example_runs(run: Run, script: Path) -> None:
    result = run(script.name)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip(), "an example should show what it did"
    assert "Traceback" not in result.stderr


def test_quickstart_output(run: Run) -> None:
    lines = run("quickstart.py").stdout.splitlines()
    assert lines[0] == "5 messages, round trip exact: True"
    assert "refused: messages[5]: user and assistant messages must alternate: expected a user message" in lines
    assert "refused: tool_calls[0].name: must be 1-64 characters of letters, digits and underscores" in lines


def test_processors_example_output(run: Run) -> None:
    """examples/processors.py shows every processor doing real work (it needs mcp and tesseract)."""
    result = run("processors.py")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    for expected in [
        "file reference: resolved, lines 2-3",
        "symlink out of the workspace: failed (the path escapes the workspace root through a symbolic link)",
        "notice: the model has no vision, so the image was read with OCR",
        "image: recognized by ocr, words: ['Hello', 'Agent', 'Invoice', '2041', 'total', '42']",
        "MCP server: agentmsg-test-server, protocol 2025-11-25",
        "logo: image/png, 96 base64 chars; second read from cache: True",
        "approval needed: write_file(path, content) -> approved",
        'tool result call_1: success ["notes.md"]',
        'tool result call_2: success {"path": "summary.txt", "bytes": 42}',
        "approvals: ('approved', 'approved', 'denied') | files now: ['notes.md', 'summary.txt']",
        "system message carries the MCP resource: True",
        "assistant: '' tool_calls=['list_files', 'write_file', 'delete_file']",
        "     tool: 'The user denied this tool call.'",
    ]:
        assert expected in lines, expected
