"""examples/records.py runs and shows every step it promises."""

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).parent.parent / "examples" / "records.py"


def test_records_example_output(tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "file path normalized to 'src/config.py'" in out
    assert "branches ('main', 'no-tools'), active 'no-tools', mode 'act'" in out
    assert "== branch 'main': 8 chat messages" in out and "== branch 'no-tools': 5 chat messages" in out
    assert '"content": "The user denied this tool call.", "is_error": true' in out
    assert "dropped resource record m1" in out
    assert "-> OpenAI: 8 request messages, roles ['system', 'user', 'assistant', 'user', 'assistant', 'tool', 'tool', 'assistant']" in out
    assert out.count("back exact: True") == 2 and "-> Ollama: 8 request messages" in out
    assert '"version": 2, "id": "f0", "data": {"path": "a.py", "start_line": 10, "end_line": 20' in out
    assert "unknown kept exactly: True" in out
