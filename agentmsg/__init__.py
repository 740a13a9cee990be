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

from typing import TYPE_CHECKING as _TYPE_CHECKING

from ._json import from_json, to_json
from ._frozen import FrozenDict
from .content import ContentPart, ImagePart, ImageSource, ReasoningPart, TextPart
from .errors import ConversationOrderError, InvalidArgumentsError, ProcessingError, ValidationError
from .history import ConversationHistory
from .messages import ChatMessage, ToolResult
from .roles import MessageRole
from .tools import ToolCall, ToolDefinition

__version__ = "0.1.0.dev0"

if _TYPE_CHECKING:  # the names loaded on first use (below), for type checkers
    from .formats import json_schema
    from .streaming import ReasoningAccumulator, ReasoningDelta, ToolCallAccumulator, ToolCallDelta

# Names whose modules load on first use, not with ``import agentmsg`` (import time): what a
# program that only builds, checks and stores messages does not need.
_LAZY = {
    "json_schema": "formats",
    "ToolCallAccumulator": "streaming",
    "ToolCallDelta": "streaming",
    "ReasoningAccumulator": "streaming",
    "ReasoningDelta": "streaming",
}


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'agentmsg' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))

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
    "ReasoningAccumulator",
    "ReasoningDelta",
    "ReasoningPart",
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
