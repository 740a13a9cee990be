"""One tool namespace for a turn: the local tools and every MCP server's, under the names the provider takes.

A name two sources offer is refused. An MCP tool whose wire name the provider refuses is offered
under an alias it takes (``_offered_name``). A call to an MCP tool reaches the server with
``on_progress`` routed to the tool message of that call: ``expect`` says, before a step's calls
run, which tool message each call's progress belongs to. ``cancel`` ends the turn's MCP calls
that still run (each server is told) and refuses later ones.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from functools import partial
from typing import Any

from .._frozen import thaw_json
from ..errors import ValidationError
from ..io.execution import Tool, ToolRegistry
from ..io.mcp import Cancellation, McpClient, McpError, McpToolResult
from ..io.mcp.protocol import ProgressCallback
from ..io.mcp.tools import McpToolFunction
from ..records import ToolResultRecord
from ..tools import to_canonical_name, to_wire_name

ToolProgress = Callable[[str, float, "float | None", "str | None"], None]


class ToolNamespace:
    """The tools a turn offers: ``registry`` holds the local tools and the MCP clients' tools.

    ``on_progress(tool_message_id, progress, total, message)`` receives an MCP server's progress
    notifications for a call, on the thread that runs the call.
    """

    def __init__(
        self, local: ToolRegistry | None, clients: Iterable[McpClient], provider: Any, on_progress: ToolProgress
    ) -> None:
        if local is not None and not isinstance(local, ToolRegistry):
            raise TypeError(f"tools must be a ToolRegistry, got {type(local).__name__}")
        self.local = local
        self.clients = tuple(clients)
        for client in self.clients:
            if not isinstance(client, McpClient):
                raise TypeError(f"mcp must hold McpClient objects, got {type(client).__name__}")
        self.provider = provider
        self.on_progress = on_progress
        self._routes: dict[tuple[str, str], list[str]] = {}  # MCP call (name, arguments) -> tool message ids
        self._lock = threading.Lock()
        self.cancellation = Cancellation()
        self.registry = self._build()

    def refresh(self) -> bool:
        """Build the registry again if an MCP server said its tools changed; return whether it did."""
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
                name = _offered_name(self.provider, tool, owners)
                function = McpToolFunction(client, tool.name, partial(self._route, name), self.cancellation)
                tool = replace(tool, definition=replace(tool.definition, name=name), function=function)
                if tool.name in owners:
                    raise ValidationError(
                        f"the tool name {tool.name!r} is offered by both {owners[tool.name]} and MCP server "
                        f"{client.name!r}; rename one",
                        "tools",
                        "unique",
                    )
                owners[tool.name] = f"MCP server {client.name!r}"
                combined.add(tool)
        return combined

    def cancel(self, reason: str) -> None:
        """End the MCP calls that run now (their servers receive ``notifications/cancelled``), and later ones."""
        self.cancellation.cancel(reason)

    def expect(self, calls: Iterable[tuple[str, Mapping[str, Any], str]]) -> None:
        """Route the progress of the calls about to run: (offered name, arguments, tool message id) each."""
        with self._lock:
            self._routes = {}
            for name, arguments, tool_id in calls:
                self._routes.setdefault((name, _arguments_key(thaw_json(arguments))), []).append(tool_id)

    def _route(self, name: str, arguments: Mapping[str, Any]) -> ProgressCallback | None:
        """Return the progress callback for an MCP call about to run (called on the tool's thread)."""
        with self._lock:
            ids = self._routes.get((name, _arguments_key(arguments)))
            tool_id = ids.pop(0) if ids else None
        return None if tool_id is None else partial(self.on_progress, tool_id)

    def mcp_result(self, name: str, record: ToolResultRecord) -> McpToolResult | None:
        """Return the ``McpToolResult`` of a successful call to the MCP tool ``name``, else None."""
        tool = self.registry.get(name)
        if tool is None or not isinstance(tool.function, McpToolFunction) or record.status != "success":
            return None
        try:
            return McpToolResult.from_dict(thaw_json(record.output))
        except McpError:
            return None


def _arguments_key(arguments: Any) -> str:
    return json.dumps(arguments, sort_keys=True, ensure_ascii=False, default=str)


def _offered_name(provider: Any, tool: Tool, taken: Mapping[str, str]) -> str:
    """Return the name to offer an MCP tool under: its canonical name, or an alias the provider takes.

    ``db.query`` is ``db_x2e_query`` inside agentmsg and goes out as ``db.query``, which OpenAI
    and Anthropic refuse; such a tool is offered as ``db_query`` (each character the provider
    refuses becomes ``_``, and ``_2``, ``_3``... keep aliases apart), and the calls come back to it.
    """
    try:
        provider.to_tools([tool.definition])
        return tool.name
    except ValidationError:
        pass
    base = re.sub(r"[^A-Za-z0-9_]", "_", to_wire_name(tool.name))[:60] or "tool"
    alias, n = base, 1
    while alias in taken or to_canonical_name(alias) != alias:
        n += 1
        alias = f"{base}_{n}"
    return alias
