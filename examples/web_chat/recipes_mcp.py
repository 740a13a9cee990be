"""The web chat's tools: a small MCP server written with the official `mcp` SDK, over stdio.

`server.py` starts it (`python recipes_mcp.py`) and reaches it through agentmsg's stdlib
`McpClient`. `list_recipes` answers with text; `get_recipe` answers with structured content,
which the agent loop sends to the chat client as a `tool:artifact` (a recipe card).
"""

try:
    from mcp.server.mcpserver import MCPServer as Server
except ImportError:  # mcp 1.x
    from mcp.server.fastmcp import FastMCP as Server
from mcp.types import ToolAnnotations

RECIPES = {
    "Pancakes": ["flour", "milk", "eggs", "butter"],
    "Tomato soup": ["tomatoes", "onion", "stock", "cream"],
    "Omelette": ["eggs", "butter", "chives"],
}

server = Server("recipes")


@server.tool(annotations=ToolAnnotations(readOnlyHint=True), structured_output=False)
def list_recipes() -> str:
    """List the recipes in the user's cookbook."""
    return "\n".join(RECIPES)


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def get_recipe(name: str) -> dict:
    """Return one recipe of the cookbook with its ingredients."""
    if name not in RECIPES:
        raise ValueError("no such recipe; call list_recipes for the names")
    return {"name": name, "ingredients": RECIPES[name]}


if __name__ == "__main__":
    server.run("stdio")
