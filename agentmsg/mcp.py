"""MCP resources: a stdlib client over stdio and a freshness-limited cache that fills records.

The module lives in ``agentmsg.io.mcp`` with the other modules that do I/O; this path keeps
working.
"""

from __future__ import annotations

from .io.mcp import *  # noqa: F403
from .io.mcp import __all__ as __all__
