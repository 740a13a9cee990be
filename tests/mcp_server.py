"""A real MCP server for the tests, written with the official MCP Python SDK (test-only).

Run as ``python tests/mcp_server.py`` (stdio) or ``python tests/mcp_server.py --http PORT``
(Streamable HTTP on 127.0.0.1:PORT, path ``/mcp``; ``--json`` answers with JSON bodies instead
of server-sent events, ``--idle SECONDS`` ends sessions idle that long). It serves:

- ``file:///project/README.md``: a text resource (text/markdown);
- ``file:///project/logo.png``: a binary resource (image/png, the 1x1 PNG from the MCP
  specification's ``BlobResourceContents`` example, see tests/data/mcp/PROVENANCE.md);
- ``counter://reads``: a text resource that counts how often it was read (to show caching);
- ``file:///project/broken.txt``: a resource whose handler raises (the server replies with an error);
- tools: ``list_recipes`` (read-only: the web-chat scenario), ``db.query`` (a name outside the
  tool-name rule), ``recipe_photo`` (an image), ``slow_count`` (progress notifications),
  ``numbered_count`` (read-only, its progress names the call by the order it arrived in),
  ``failing`` (raises: an ``isError`` result), ``recipe_card`` (structured content and an
  embedded resource), ``add_tool`` (registers a tool and says the tool list changed).

Works with the SDK's 2.x ``MCPServer`` and its 1.x name ``FastMCP``.
"""

import base64
import sys

import anyio

try:
    from mcp.server.mcpserver import Context
    from mcp.server.mcpserver import MCPServer as Server
except ImportError:  # mcp 1.x
    from mcp.server.fastmcp import Context
    from mcp.server.fastmcp import FastMCP as Server
try:
    from mcp.server.mcpserver.utilities.types import Image
except ImportError:  # mcp 1.x
    from mcp.server.fastmcp.utilities.types import Image
from mcp.types import EmbeddedResource, TextContent, TextResourceContents, ToolAnnotations

README = "# Project\n\nAn example project served over MCP.\n"
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)
RECIPES = ["Pancakes", "Tomato soup", "Omelette"]

server = Server("agentmsg-test-server")
reads = 0
calls = 0


@server.resource("file:///project/README.md", name="README.md", mime_type="text/markdown")
def readme() -> str:
    return README


@server.resource("file:///project/logo.png", name="logo.png", mime_type="image/png")
def logo() -> bytes:
    return PNG


@server.resource("counter://reads", name="reads", mime_type="text/plain")
def counter() -> str:
    global reads
    reads += 1
    return f"read {reads} times"


@server.resource("file:///project/broken.txt", name="broken.txt", mime_type="text/plain")
def broken() -> str:
    raise RuntimeError("the disk is on fire")


@server.tool(annotations=ToolAnnotations(readOnlyHint=True), structured_output=False)
def list_recipes() -> str:
    """List the recipes in the user's cookbook."""
    return "\n".join(RECIPES)


@server.tool(name="db.query", structured_output=False)
def db_query(sql: str) -> str:
    """Run a read-only SQL query."""
    return f"1 row for {sql}"


@server.tool(structured_output=False)
def recipe_photo(name: str) -> list:
    """Return a photo of a recipe."""
    return [f"Photo of {name}", Image(data=PNG, format="png")]


@server.tool(structured_output=False)
async def slow_count(to: int, ctx: Context) -> str:
    """Count up to a number, reporting progress."""
    for i in range(1, to + 1):
        await ctx.report_progress(i, to, f"counted {i}")
    return f"counted to {to}"


@server.tool(annotations=ToolAnnotations(readOnlyHint=True), structured_output=False)
async def numbered_count(to: int, ctx: Context) -> str:
    """Count up to a number, reporting progress under this call's number (read-only: calls run together)."""
    global calls
    calls += 1
    number = calls
    for i in range(1, to + 1):
        await ctx.report_progress(i, to, f"call {number}")
        await anyio.sleep(0.02)
    return f"call {number}"


@server.tool(structured_output=False)
def failing() -> str:
    """Always fail."""
    raise ValueError("the oven is cold")


@server.tool(structured_output=False)
def recipe_card(name: str) -> list:
    """Return a recipe card as an embedded resource."""
    return [
        TextContent(type="text", text=f"Card for {name}"),
        EmbeddedResource(
            type="resource",
            resource=TextResourceContents(uri=f"recipes://{name}", mimeType="text/plain", text=f"{name}: mix, cook, eat."),
        ),
    ]


@server.tool(structured_output=False)
async def add_tool(name: str, ctx: Context) -> str:
    """Register a new tool and tell the client the tool list changed."""

    def added() -> str:
        return "added tool works"

    server.add_tool(added, name=name, description="A tool added at run time.")
    await ctx.session.send_tool_list_changed()
    return f"added {name}"


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "--http":
        options = {"json_response": "--json" in sys.argv}  # one JSON body per reply, not server-sent events
        if "--idle" in sys.argv:  # the server ends a session idle for this many seconds (its id then answers 404)
            options["session_idle_timeout"] = float(sys.argv[sys.argv.index("--idle") + 1])
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]), **options)
    else:
        server.run("stdio")
