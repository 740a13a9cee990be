"""An official-SDK MCP server whose tools have the names given: ``python tests/mcp_names_server.py NAMES``.

``NAMES`` is a JSON array of tool names. Each tool takes no arguments and answers with its own
name, so a test sees which tool a call reached; each has a title and a description. The SDK registers any name (it only warns about
names outside SEP-986), as a real server may send them. It serves stdio, or Streamable HTTP with
``NAMES --http PORT`` (event-stream responses; ``--json`` for JSON bodies).
"""

import json
import sys

try:
    from mcp.server.mcpserver import MCPServer as Server
except ImportError:  # mcp 1.x
    from mcp.server.fastmcp import FastMCP as Server

server = Server("agentmsg-names-server")


def answering(name: str):
    def tool() -> str:
        return name

    return tool


if __name__ == "__main__":
    for index, name in enumerate(json.loads(sys.argv[1])):
        server.add_tool(answering(name), name=name, title=f"Tool {index}", description=f"Tool number {index}.",
                        structured_output=False)
    if "--http" in sys.argv:
        port = int(sys.argv[sys.argv.index("--http") + 1])
        server.run("streamable-http", host="127.0.0.1", port=port, json_response="--json" in sys.argv)
    else:
        server.run("stdio")
