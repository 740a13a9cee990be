"""examples/chat_backend.py runs, and tells the story it promises."""

import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "chat_backend.py"


def test_chat_backend_example_runs() -> None:
    done = subprocess.run([sys.executable, str(EXAMPLE)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    sent = [line.split()[2] for line in out.splitlines() if line.startswith("  -> ")]
    assert sent[0] == "chat:send" and sent[-1] == "completion"
    assert {"message:start", "message:chunk", "tool:message:start", "tool:message:update",
            "tool:artifact", "tool:message:complete", "progress"} <= set(sent)
    assert "ChatMessage(role=assistant, content=<25 chars>, tool_calls=[call_weather_1:get_weather])" in out
    assert "ChatMessage(role=tool, content=<80 chars>, tool_call_id='call_weather_1')" in out
    assert out.rstrip().endswith("ok")
