"""A real MCP server for the tests, written with the official MCP Python SDK (test-only).

Run as ``python tests/mcp_server.py``; it speaks MCP over stdio and serves:

- ``file:///project/README.md``: a text resource (text/markdown);
- ``file:///project/logo.png``: a binary resource (image/png, the 1x1 PNG from the MCP
  specification's ``BlobResourceContents`` example, see tests/data/mcp/PROVENANCE.md);
- ``counter://reads``: a text resource that counts how often it was read (to show caching);
- ``file:///project/broken.txt``: a resource whose handler raises (the server replies with an error).

Works with the SDK's 2.x ``MCPServer`` and its 1.x name ``FastMCP``.
"""

import base64

try:
    from mcp.server.mcpserver import MCPServer as Server
except ImportError:  # mcp 1.x
    from mcp.server.fastmcp import FastMCP as Server

README = "# Project\n\nAn example project served over MCP.\n"
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)

server = Server("agentmsg-test-server")
reads = 0


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


if __name__ == "__main__":
    server.run("stdio")
