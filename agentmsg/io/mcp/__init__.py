"""MCP: a stdlib client (stdio and Streamable HTTP) for tools, resources and prompts, and what a host offers a server.

One module per part, each importing only those above it: ``protocol`` (the versions, JSON-RPC
messages, ``McpError``, ``Cancellation``), ``transport`` (``Transport``, ``StdioTransport``,
``HttpTransport``), ``tools`` (``McpToolResult``, the listed tools and the names they are
offered under, ``tool_names``, ``SkippedTool``, a tool's function), ``resources``
(``McpResourceInfo``, ``McpResourceTemplate``, ``ResourceCache``), ``prompts`` (``McpPrompt``,
``McpPromptResult``, ``McpCompletion``), ``sampling`` (``SamplingRequest``, ``SamplingResult``,
``provider_sampler``) and ``elicitation`` (``ElicitationRequest``, ``ElicitationResponse``): what
a server may ask of the host, ``server_requests`` (``McpRoot``, and the answers to the server's
requests), then ``session`` (``McpClient``). Import the public names from here.
"""

from __future__ import annotations

from .elicitation import ElicitationField, ElicitationRequest, ElicitationResponse
from .prompts import McpCompletion, McpPrompt, McpPromptArgument, McpPromptResult
from .protocol import PROTOCOL_VERSION, Cancellation, McpError
from .resources import McpResourceInfo, McpResourceTemplate, ResourceCache
from .sampling import SamplingRequest, SamplingResult, provider_sampler
from .server_requests import McpRoot
from .session import McpClient
from .tools import McpToolResult, SkippedTool, tool_names
from .transport import HttpTransport, StdioTransport, Transport

__all__ = [
    "PROTOCOL_VERSION",
    "Cancellation",
    "McpError",
    "McpClient",
    "McpResourceInfo",
    "McpResourceTemplate",
    "McpToolResult",
    "SkippedTool",
    "tool_names",
    "McpCompletion",
    "McpPrompt",
    "McpPromptArgument",
    "McpPromptResult",
    "McpRoot",
    "SamplingRequest",
    "SamplingResult",
    "ElicitationField",
    "ElicitationRequest",
    "ElicitationResponse",
    "provider_sampler",
    "Transport",
    "StdioTransport",
    "HttpTransport",
    "ResourceCache",
]
