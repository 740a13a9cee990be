"""Run examples/tool_schema.py as a user would and check what it prints."""

import json
import subprocess
import sys
from pathlib import Path

from jsonschema import Draft202012Validator

ROOT = Path(__file__).resolve().parent.parent


def test_tool_schema_example(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "tool_schema.py")],
        capture_output=True, text=True, cwd=tmp_path, timeout=60, check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    lines = result.stdout.splitlines()
    assert lines[0] == "tool create_event: Create a calendar event."
    end = next(i for i, line in enumerate(lines) if line.startswith("CreateEvent("))
    schema = json.loads("\n".join(lines[1:end]))
    Draft202012Validator.check_schema(schema)
    assert schema["required"] == ["title", "start", "attendees", "priority", "room"]
    assert schema["additionalProperties"] is False
    assert schema["$defs"]["Attendee"]["additionalProperties"] is False
    assert "attendees=(Attendee(email='ana@example.com', optional=False),)" in lines[end]
    assert "priority=<Priority.LOW: 'low'>" in lines[end] and "room='B2'" in lines[end]
    assert lines[end + 1] == "rejected: path=attendees[1].email code=type"
    assert "'is_error': True" in lines[end + 2] and "expected a string, got number" in lines[end + 2]
