"""MCP: a stdlib client (stdio and Streamable HTTP) for tools and resources, and a resource cache.

One module per part, each importing only those above it: ``protocol`` (the versions, JSON-RPC
messages, ``McpError``), ``transport`` (``Transport``, ``StdioTransport``, ``HttpTransport``),
``tools`` (``McpToolResult``, the listed tools and the names they are offered under, ``SkippedTool``, a tool's function) and
``resources`` (``McpResourceInfo``, ``ResourceCache``), then ``session`` (``McpClient``). Import
the public names from here.
"""

from __future__ import annotations

from .protocol import PROTOCOL_VERSION, McpError
from .resources import McpResourceInfo, ResourceCache
from .session import McpClient
from .tools import McpToolResult, SkippedTool, tool_names
from .transport import HttpTransport, StdioTransport, Transport

__all__ = [
    "PROTOCOL_VERSION",
    "McpError",
    "McpClient",
    "McpResourceInfo",
    "McpToolResult",
    "SkippedTool",
    "tool_names",
    "Transport",
    "StdioTransport",
    "HttpTransport",
    "ResourceCache",
]
