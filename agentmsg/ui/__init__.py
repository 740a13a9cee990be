"""The front-ends' protocols: AG-UI 1.0 (``agui``) and the AI SDK UI message stream v1 (``aisdk``).

Each module translates one agent turn's events (``agentmsg.events``) into that protocol's
events, parses its request body into what ``agentmsg.agent.AgentTurn`` takes, and converts
a stored conversation (``chat:init``) into its history shape. Plain dicts in and out, framed
as Server-Sent Events by ``sse``; docs/ui-protocols.md maps every field and names every loss.
"""

from __future__ import annotations

from ._common import Decision, ToolResult

__all__ = ["Decision", "ToolResult"]
