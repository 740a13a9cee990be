"""Quickstart: build a conversation with a tool call, check its order, and round-trip it as JSON.

Run: python examples/quickstart.py
"""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a checkout, no install

from agentmsg import (  # noqa: E402
    ChatMessage,
    ConversationHistory,
    ConversationOrderError,
    ImagePart,
    ImageSource,
    TextPart,
    ToolCall,
    ToolDefinition,
    ToolResult,
    ValidationError,
)

write_file = ToolDefinition(
    "write_file",
    "Write text to a file in the workspace.",
    {
        "type": "object",
        "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
        "required": ["path", "content"],
        "additionalProperties": False,
    },
)

history = ConversationHistory()
history.add(ChatMessage.system("You are a coding agent. Use tools to change files."))
history.add(ChatMessage.user([
    TextPart("Create hello.py that prints the text in this screenshot."),
    ImagePart(ImageSource.from_url("https://example.com/screenshot.png")),
]))

# The model answers with text and a tool call; arguments arrive as a JSON string.
call = ToolCall.from_json_arguments("call_001", "write_file", '{"path": "hello.py", "content": "print(1)"}')
history.add(ChatMessage.assistant("I'll create the file.", [call]))

# Run the tool (here: pretend) and answer the call.
path = call.get_argument("path", str)
history.add(ToolResult.success(call.id, f"wrote {path}").to_message())
history.add(ChatMessage.assistant("Created hello.py."))
history.validate()

document = json.dumps(history.to_list(), indent=2)
again = ConversationHistory.from_list(json.loads(document))
assert again.messages == history.messages
print(f"{len(history)} messages, round trip exact: {again.messages == history.messages}")
print("tool for the model:", json.dumps(write_file.to_dict())[:60], "...")
print("assistant message:", history.messages[2])

# Out-of-order and malformed input get clear errors that never echo content.
try:
    history.add(ChatMessage.assistant("Talking twice."))
except ConversationOrderError as exc:
    print("refused:", exc)
try:
    ChatMessage.from_dict({"role": "assistant", "tool_calls": [{"id": "c1", "name": "write file"}]})
except ValidationError as exc:
    print("refused:", exc)
