"""Every script in examples/ runs, from a fresh interpreter, and exits cleanly."""

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = sorted((Path(__file__).parent.parent / "examples").glob("*.py"))


def test_there_are_examples() -> None:
    assert any(path.name == "quickstart.py" for path in EXAMPLES)


@pytest.mark.parametrize("script", EXAMPLES, ids=lambda p: p.name)
def test_example_runs(script: Path, tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip(), "an example should show what it did"
    assert "Traceback" not in result.stderr


def test_quickstart_output() -> None:
    result = subprocess.run([sys.executable, str(EXAMPLES[0].parent / "quickstart.py")], capture_output=True, text=True, timeout=60)
    lines = result.stdout.splitlines()
    assert lines[0] == "5 messages, round trip exact: True"
    assert "refused: messages[5]: user and assistant messages must alternate: expected a user message" in lines
    assert "refused: tool_calls[0].name: must be 1-64 characters of letters, digits and underscores" in lines
