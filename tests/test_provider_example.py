"""examples/agent_loop.py runs the same tool loop against the three providers' stand-ins."""

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).parent.parent / "examples" / "agent_loop.py"


def test_agent_loop_reaches_a_final_answer_on_every_provider(tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    roles = "6 messages (system user assistant tool tool assistant)"
    assert lines == [
        f"openai: {roles}; finish_reason=stop",
        "  answer: Paris: 18 C, sunny; Oslo: 4 C, rain.",
        f"anthropic: {roles}; finish_reason=end_turn",
        "  answer: Paris: 18 C, sunny; Oslo: 4 C, rain.",
        f"ollama: {roles}; finish_reason=stop",
        "  answer: Paris: 18 C, sunny; Oslo: 4 C, rain.",
    ]
