"""agentmsg: typed, validated, stdlib-only messages for LLM agents."""

from .errors import ConversationOrderError, ValidationError

__version__ = "0.1.0.dev0"

__all__ = ("ConversationOrderError", "ValidationError", "__version__")
