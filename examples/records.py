"""Records and the conversation context: every record type, a mode and a branch switch, rendering.

Shows: building each record type, filling in what a processor would (file text, OCR, an MCP
resource, a tool result) with the records' own helpers, approving and denying tool calls,
switching mode and branch, decoding an old (version 1) and an unknown record, rendering the
active branch as chat messages, sending them through the provider codecs, and fitting a token
budget.

Run: python examples/records.py
"""

import json
import logging
import sys
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a checkout, no install

from agentmsg import ConversationHistory, ImageSource, ToolCall  # noqa: E402
from agentmsg.context import ConversationContext  # noqa: E402
from agentmsg.providers import anthropic, ollama, openai  # noqa: E402
from agentmsg.records import (  # noqa: E402
    FileReference,
    ImageRecord,
    McpResource,
    TextRecord,
    ToolRequest,
    ToolResultRecord,
    decode,
)

logging.basicConfig(level=logging.INFO, format="  log %(name)s: %(message)s", stream=sys.stdout)
NOW = datetime(2026, 11, 25, 10, 0, tzinfo=timezone.utc)

ctx = ConversationContext(
    plan_prompt="You are in plan mode: propose changes, do not run tools.",
    act_prompt="You are in act mode: make the changes with the tools.",
    mode="plan",
)

# The user asks, pointing at a file, a screenshot and a resource from an MCP server.
ctx.add(TextRecord.of("user", "The build fails, see the config and the screenshot.", id="u1"))
ref = ctx.add(FileReference(id="f1", path="./src//config.py", start_line=3, end_line=4))
shot = ctx.add(ImageRecord(id="i1", source=ImageSource.from_path("screenshots/error.png"), mode="auto"))
docs = ctx.add(McpResource(id="m1", server="docs", uri="docs://build/troubleshooting"))
print(f"file path normalized to {ref.to_dict()['data']['path']!r}")

# What the processors would do (no I/O here): replace each record with its filled-in copy.
assert isinstance(ref, FileReference) and isinstance(shot, ImageRecord) and isinstance(docs, McpResource)
ctx.replace(ref.resolve("import tomllib\nPY_MIN = (3, 10)\n"))
ctx.replace(shot.with_ocr("ModuleNotFoundError: No module named 'tomllib'", confidence=0.96, language="en"))
ctx.replace(docs.retrieve(text="tomllib is new in Python 3.11; use tomli on 3.10.", mime_type="text/plain", retrieved_at=NOW))

ctx.add(TextRecord.of("assistant", "tomllib needs Python 3.11. I will add a fallback to tomli.", id="a1"))
ctx.set_mode("act", record_id="s1")
ctx.add(TextRecord.of("user", "Go ahead.", id="u2"))
ctx.add(ToolRequest.of([
    ToolCall("call_1", "edit_file", {"path": "src/config.py", "line": 3, "text": "try:\n    import tomllib\n..."}),
    ToolCall("call_2", "delete_file", {"path": "setup.cfg"}),
], id="q1"))
ctx.approve("call_1")
ctx.deny("call_2")
ctx.add(ToolResultRecord.success("call_1", {"changed_lines": 4}, id="r1", duration_seconds=0.012, finished_at=NOW))
ctx.add(TextRecord.of("assistant", "Done: config.py falls back to tomli.", id="a2"))

# Try another answer on a branch forked after the user's "Go ahead.".
ctx.create_branch("no-tools", at="u2")
ctx.switch_branch("no-tools", record_id="s2")
ctx.add(TextRecord.of("assistant", "Alternatively, require Python 3.11 in pyproject.toml.", id="a3"))
print(f"branches {ctx.branches}, active {ctx.branch!r}, mode {ctx.mode!r}, dirty records: {len(ctx.dirty)}")

for branch in ctx.branches:
    if branch != ctx.branch:
        ctx.switch_branch(branch)
    messages = ctx.to_chat_messages()
    ConversationHistory(messages)  # the order every provider accepts
    print(f"\n== branch {branch!r}: {len(messages)} chat messages (canonical dicts)")
    for message in messages:
        print(json.dumps(message.to_dict(), ensure_ascii=False))
    # ... and on to a model: each provider's request messages, and back.
    wire = openai.to_messages(messages)
    print(f"-> OpenAI: {len(wire)} request messages, roles {[m['role'] for m in wire]}")
    system, turns = anthropic.to_messages(messages)
    back = anthropic.from_messages(turns, system=system)
    print(f"-> Anthropic: system prompt {len(system or '')} chars, {len(turns)} turns; back exact: {list(back) == list(messages)}")
    print(f"-> Ollama: {len(ollama.to_messages(messages))} request messages")

# A token budget: the resource goes first, and the drop is logged.
print("\n== with a budget of 120 tokens")
small = ctx.to_chat_messages(max_tokens=120)
print(f"{len(small)} messages, system message now {len(small[0].text)} chars")

# Versioned documents: a version 1 file reference migrates; an unknown type is kept as it was.
old = {"type": "file_reference", "version": 1, "id": "f0", "data": {"path": "a.py", "lines": "10-20", "resolved": False}}
print("\nv1 ->", json.dumps(decode(old).to_dict()))
future = {"type": "poll", "version": 1, "id": "p1", "data": {"question": "Ship it?"}}
print("unknown kept exactly:", decode(future).to_dict() == future)
