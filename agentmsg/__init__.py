"""agentmsg: typed, validated, stdlib-only messages for LLM agents.

>>> call = ToolCall("call_001", "write_file", {"path": "hello.py"})
>>> history = ConversationHistory([
...     ChatMessage.system("You write files."),
...     ChatMessage.user("Create hello.py"),
...     ChatMessage.assistant(tool_calls=[call]),
...     ChatMessage.tool("call_001", "File written"),
... ])
>>> text = to_json(history.messages[2])
>>> text
'{"role":"assistant","tool_calls":[{"id":"call_001","name":"write_file","arguments":{"path":"hello.py"}}]}'
>>> from_json(text, ChatMessage) == history.messages[2]
True
"""

# No ``from __future__ import annotations`` here (nothing to annotate): on a Python too old to know
# it, the version check below must be what the user sees.
import sys as _sys

if _sys.version_info < (3, 10):  # say so before a module uses dataclass(slots=True) or X | Y
    raise ImportError(
        "agentmsg needs Python 3.10 or newer; this is Python %d.%d" % tuple(_sys.version_info[:2])
    )

from ._json import from_json, to_json
from ._frozen import FrozenDict
from .formats import json_schema
from .content import ContentPart, ImagePart, ImageSource, TextPart
from .errors import ConversationOrderError, InvalidArgumentsError, ProcessingError, ValidationError
from .history import ConversationHistory
from .messages import ChatMessage, ToolResult
from .roles import MessageRole
from .streaming import ToolCallAccumulator, ToolCallDelta
from .tools import ToolCall, ToolDefinition

__version__ = "0.1.0.dev0"

__all__ = (
    "ChatMessage",
    "ContentPart",
    "ConversationHistory",
    "ConversationOrderError",
    "FrozenDict",
    "ImagePart",
    "ImageSource",
    "InvalidArgumentsError",
    "MessageRole",
    "ProcessingError",
    "TextPart",
    "ToolCall",
    "ToolCallAccumulator",
    "ToolCallDelta",
    "ToolDefinition",
    "ToolResult",
    "ValidationError",
    "__version__",
    "from_json",
    "json_schema",
    "to_json",
)
