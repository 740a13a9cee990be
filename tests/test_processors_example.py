"""examples/processors.py shows every processor doing real work (it needs mcp and tesseract)."""

import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).parent.parent / "examples" / "processors.py"


def test_processors_example_output(tmp_path):
    result = subprocess.run([sys.executable, str(EXAMPLE)], capture_output=True, text=True, cwd=tmp_path, timeout=300)
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
