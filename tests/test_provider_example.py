"""examples/agent_loop.py runs the web-chat turn on agentmsg.agent against the three providers' stand-ins."""

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).parent.parent / "examples" / "agent_loop.py"


def test_agent_loop_reaches_a_final_answer_on_every_provider(tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    events = (
        "  events: turn:start message:start message:chunk message:end tool:message:start tool:message:update "
        "progress tool:message:update tool:message:complete message:start message:chunk message:end completion"
    )
    answer = "You have 3 recipes: Pancakes, Tomato soup and Omelette."
    expected = ["MCP server 'recipes' offers: list_recipes"]
    for name in ("anthropic", "openai", "ollama"):
        expected += [
            f"{name}: completed in 2 model calls; system user assistant tool assistant",
            events,
            f"  the user sees: {answer}",
            "  stored and reloaded: 4 messages, equal",
        ]
    expected += ["approval: approval, waiting for [('list_recipes', '{}')]", f"  resumed: {answer}"]
    assert lines == expected
