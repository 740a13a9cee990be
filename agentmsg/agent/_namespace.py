"""One tool namespace for a turn: the local tools and every MCP server's, under the names the providers take.

An MCP tool is offered under the name its client gives it (``agentmsg.io.mcp.tools.tool_names``:
one every provider takes, mapped back to the server's own name by the client). A name two
sources offer is refused. A call to an MCP tool reaches the server with ``on_progress`` routed
to that call (``agentmsg.io.execution.current_call`` says which call a function serves, so two
identical calls in parallel each get their own progress). ``cancel`` ends the turn's MCP calls
that still run (each server is told) and refuses later ones.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from functools import partial

from .._frozen import thaw_json
from ..errors import ValidationError
from ..io.execution import ToolRegistry, current_call
from ..io.mcp import Cancellation, McpClient, McpError, McpToolResult
from ..io.mcp.protocol import ProgressCallback
from ..io.mcp.tools import McpToolFunction
from ..records import ToolResultRecord
from ..tools import ToolDefinition

CallProgress = Callable[[str, float, "float | None", "str | None"], None]


class ToolNamespace:
    """The tools a turn offers: ``registry`` holds the local tools and the MCP clients' tools.

    ``on_progress(tool_call_id, progress, total, message)`` receives an MCP server's progress
    notifications for a call, on the thread that runs the call.
    """

    def __init__(self, local: ToolRegistry | None, clients: Iterable[McpClient], on_progress: CallProgress) -> None:
        if local is not None and not isinstance(local, ToolRegistry):
            raise TypeError(f"tools must be a ToolRegistry, got {type(local).__name__}")
        self.local = local
        self.clients = tuple(clients)
        for client in self.clients:
            if not isinstance(client, McpClient):
                raise TypeError(f"mcp must hold McpClient objects, got {type(client).__name__}")
        self.on_progress = on_progress
        self.cancellation = Cancellation()
        self.registry = self._build()

    def refresh(self) -> bool:
        """Build the registry again if an MCP server said its tools changed; return whether it did.

        Raises ``McpError`` when a server cannot list its tools, ``ValidationError`` (code
        ``unique``) when a new name clashes; the registry stays as it was.
        """
        if not any(client.tools_changed for client in self.clients):
            return False
        self.registry = self._build()
        return True

    def _build(self) -> ToolRegistry:
        """Return one registry with the local tools and every MCP client's; a repeated name is refused."""
        if not self.clients and self.local is not None:
            return self.local
        combined = ToolRegistry(self.local or ())
        owners = {tool.name: "the local tools" for tool in combined}
        for client in self.clients:
            for tool in client.tools():
                if tool.name in owners:
                    raise ValidationError(
                        f"the tool name {tool.name!r} is offered by both {owners[tool.name]} and MCP server "
                        f"{client.name!r}; rename one",
                        "tools",
                        "unique",
                    )
                owners[tool.name] = f"MCP server {client.name!r}"
                function = McpToolFunction(client, tool.name, self._route, self.cancellation)
                combined.add(replace(tool, function=function))
        return combined

    def cancel(self, reason: str) -> None:
        """End the MCP calls that run now (their servers receive ``notifications/cancelled``), and later ones."""
        self.cancellation.cancel(reason)

    def _route(self) -> ProgressCallback | None:
        """Return the progress callback of the call whose MCP tool is about to run (on the tool's thread)."""
        call = current_call()
        return None if call is None else partial(self.on_progress, call.id)

    def mcp_result(self, name: str, record: ToolResultRecord) -> McpToolResult | None:
        """Return the ``McpToolResult`` of a successful call to the MCP tool ``name``, else None."""
        tool = self.registry.get(name)
        if tool is None or not isinstance(tool.function, McpToolFunction) or record.status != "success":
            return None
        try:
            return McpToolResult.from_dict(thaw_json(record.output))
        except McpError:
            return None


def checked_client_tools(definitions: Iterable[ToolDefinition], tools: ToolRegistry) -> tuple[ToolDefinition, ...]:
    """Return the client tools' definitions; a name they repeat, or share with the turn's tools, is refused."""
    out = tuple(definitions)
    names: set[str] = set()
    for i, definition in enumerate(out):
        if not isinstance(definition, ToolDefinition):
            raise TypeError(f"client_tools[{i}] must be a ToolDefinition, got {type(definition).__name__}")
        if definition.name in names or definition.name in tools:
            raise ValidationError(f"the tool name {definition.name!r} is offered twice; rename one", f"client_tools[{i}]",
                                  "unique")
        names.add(definition.name)
    return out
