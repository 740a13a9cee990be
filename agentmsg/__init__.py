"""agentmsg: typed, validated, stdlib-only messages for LLM agents.

>>> from . import ChatMessage, ConversationHistory, ToolCall, from_json, to_json
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

__version__ = "0.1.0.dev0"

# Every other public name loads on first use (PEP 562, as pydantic v2's ``__init__`` does):
# ``import agentmsg`` runs the version check and nothing else, so a program pays for the modules
# (and for ``dataclasses`` and ``typing``) only when it touches a name that needs them. A name's
# module is imported by ``__getattr__`` below, then the name is stored in this module's dict, so
# later lookups are plain attribute reads. ``import agentmsg.messages`` and ``from agentmsg.X
# import ...`` work as before: importing a submodule never goes through ``__getattr__``.
_LAZY = {
    "AgentmsgError": "errors",
    "ChatMessage": "messages",
    "ContentPart": "content",
    "ConversationHistory": "history",
    "ConversationOrderError": "errors",
    "FrozenDict": "_frozen",
    "ImagePart": "content",
    "ImageSource": "content",
    "InvalidArgumentsError": "errors",
    "MessageRole": "roles",
    "ProcessingError": "errors",
    "ReasoningAccumulator": "streaming",
    "ReasoningDelta": "streaming",
    "ReasoningPart": "content",
    "TextPart": "content",
    "ToolCall": "tools",
    "ToolCallAccumulator": "streaming",
    "ToolCallDelta": "streaming",
    "ToolDefinition": "tools",
    "ToolResult": "messages",
    "ValidationError": "errors",
    "from_json": "_json",
    "json_schema": "formats",
    "to_json": "_json",
}

# ``typing.TYPE_CHECKING`` without importing ``typing`` (~3 ms): mypy and pyright treat any
# variable of this name as true, so they see every name below as imported here.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from ._frozen import FrozenDict
    from ._json import from_json, to_json
    from .content import ContentPart, ImagePart, ImageSource, ReasoningPart, TextPart
    from .errors import AgentmsgError, ConversationOrderError, InvalidArgumentsError, ProcessingError, ValidationError
    from .formats import json_schema
    from .history import ConversationHistory
    from .messages import ChatMessage, ToolResult
    from .roles import MessageRole
    from .streaming import ReasoningAccumulator, ReasoningDelta, ToolCallAccumulator, ToolCallDelta
    from .tools import ToolCall, ToolDefinition
del TYPE_CHECKING


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'agentmsg' has no attribute {name!r}")
    # Thread safety: two threads asking for a name at once both call ``import_module``; the
    # import system's per-module lock runs the module once and hands both the same module, so
    # both get (and store) the same object.
    from importlib import import_module

    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__all__ = (
    "AgentmsgError",
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
