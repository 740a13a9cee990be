"""The agent loop, sans-IO: ``AgentTurn`` drives one user turn to its end over any provider module.

``turn`` holds the turn's states and transitions; ``_namespace`` the one tool namespace over
local and MCP tools; ``_report`` the socket events that tell what the turn does. Import the
public names from here.
"""

from __future__ import annotations

from ..errors import AgentStateError
from .turn import AgentTurn, Outcome, Provider, State

__all__ = ["AgentTurn", "AgentStateError", "Outcome", "Provider", "State"]
