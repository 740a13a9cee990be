"""A real MCP server for the tests, written with the official MCP Python SDK (test-only).

Run as ``python tests/mcp_server.py`` (stdio) or ``python tests/mcp_server.py --http PORT``
(Streamable HTTP on 127.0.0.1:PORT, path ``/mcp``). It serves:

- ``file:///project/README.md``: a text resource (text/markdown);
- ``file:///project/logo.png``: a binary resource (image/png, the 1x1 PNG from the MCP
  specification's ``BlobResourceContents`` example, see tests/data/mcp/PROVENANCE.md);
- ``counter://reads``: a text resource that counts how often it was read (to show caching);
- ``file:///project/broken.txt``: a resource whose handler raises (the server replies with an error);
- ``recipes://{name}/card``: a resource template;
- tools: ``list_recipes`` (read-only: the web-chat scenario), ``db.query`` (a name outside the
  tool-name rule), ``recipe_photo`` (an image), ``slow_count`` (progress notifications),
  ``numbered_count`` (read-only, its progress names the call by the order it arrived in),
  ``failing`` (raises: an ``isError`` result), ``recipe_card`` (structured content and an
  embedded resource), ``add_tool`` (registers a tool and says the tool list changed);
- the client side of MCP: prompts ``plan_meal`` (text, an argument it completes), ``show_dish`` (an image and
  an embedded resource, a user and an assistant message), ``listen`` (audio); tools
  ``client_capabilities`` (what the client declared), ``ask_model`` (sampling),
  ``ask_user`` (form elicitation), ``ask_user_url`` (URL elicitation), ``show_roots``
  (roots/list), ``log_line`` (a log message), ``touch`` (says a subscribed resource changed),
  ``wait_for_cancel`` (logs that it waits, then waits) and ``was_cancelled`` (whether the server saw
  notifications/cancelled),
  ``ping_client`` (pings the client); ``resources/subscribe`` and ``unsubscribe``, and
  ``logging/setLevel`` (recorded; ``subscriptions`` and ``log_level`` report them).

``--http PORT`` serves Streamable HTTP with event-stream responses; ``--http PORT --json``
with JSON responses, where a request tied to a call cannot travel: the server's requests and
notifications then go on the GET stream. ``--idle SECONDS`` ends a session idle that long (its
id then answers 404).

Works with the SDK's 2.x ``MCPServer`` and its 1.x name ``FastMCP``.
"""

import base64
import json
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
from mcp.types import (
    AudioContent,
    Completion,
    PromptReference,
    EmbeddedResource,
    EmptyResult,
    ImageContent,
    SamplingMessage,
    SetLevelRequestParams,
    SubscribeRequestParams,
    TextContent,
    TextResourceContents,
    ToolAnnotations,
    UnsubscribeRequestParams,
)

README = "# Project\n\nAn example project served over MCP.\n"
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)
RECIPES = ["Pancakes", "Tomato soup", "Omelette"]

server = Server("agentmsg-test-server")
reads = 0
calls = 0
JSON_MODE = "--json" in sys.argv
state = {"subscriptions": [], "log_level": None, "cancelled": []}


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


@server.resource("recipes://{name}/card", name="recipe-card", mime_type="text/plain")
def card(name: str) -> str:
    return f"{name}: mix, cook, eat."


# --- prompts ------------------------------------------------------------------------------------


@server.prompt(title="Plan a meal", description="Plan a meal around one ingredient.")
def plan_meal(ingredient: str, guests: str = "2") -> str:
    return f"Plan a meal for {guests} around {ingredient}."


@server.prompt(description="Show a dish: a photo, its card, and the assistant's reply.")
def show_dish(name: str) -> list:
    return [
        {"role": "user", "content": ImageContent(type="image", data=base64.b64encode(PNG).decode(), mimeType="image/png")},
        {"role": "user", "content": EmbeddedResource(type="resource", resource=TextResourceContents(
            uri=f"recipes://{name}/card", mimeType="text/plain", text=f"{name}: mix, cook, eat."))},
        {"role": "assistant", "content": ImageContent(type="image", data=base64.b64encode(PNG).decode(), mimeType="image/png")},
        {"role": "assistant", "content": f"That is {name}."},
    ]


@server.prompt(description="A prompt with audio.")
def listen() -> list:
    return [{"role": "user", "content": AudioContent(type="audio", data=base64.b64encode(b"RIFF").decode(), mimeType="audio/wav")}]


INGREDIENTS = ["egg", "eggplant", "endive", "fennel"]


@server.completion()
async def complete(ref, argument, context):
    if isinstance(ref, PromptReference) and ref.name == "plan_meal" and argument.name == "ingredient":
        found = [i for i in INGREDIENTS if i.startswith(argument.value)]
        return Completion(values=found, total=len(found), has_more=False)
    return None


# --- the client side of MCP -----------------------------------------------------------------------


def related(ctx: Context):
    """The id that ties a server request to the call: none over JSON responses (the GET stream carries it)."""
    return None if JSON_MODE else ctx.request_id


@server.tool(structured_output=False)
def client_capabilities(ctx: Context) -> str:
    """Return the capabilities the client declared in initialize."""
    capabilities = ctx.client_capabilities
    return json.dumps(capabilities.model_dump(by_alias=True, exclude_none=True, mode="json") if capabilities else None)


@server.tool(structured_output=False)
async def ask_model(question: str, ctx: Context) -> str:
    """Ask the client's model (sampling)."""
    result = await ctx.session.create_message(
        [SamplingMessage(role="user", content=TextContent(type="text", text=question))],
        max_tokens=50, system_prompt="Answer in one word.", related_request_id=related(ctx),
    )
    return json.dumps(result.model_dump(by_alias=True, exclude_none=True, mode="json"))


@server.tool(structured_output=False)
async def ask_user(ctx: Context) -> str:
    """Ask the user for a name and a number of guests (form elicitation)."""
    schema = {"type": "object", "properties": {
        "name": {"type": "string", "title": "Your name", "minLength": 1},
        "guests": {"type": "integer", "minimum": 1, "maximum": 12, "default": 2},
        "diet": {"type": "string", "oneOf": [{"const": "veg", "title": "Vegetarian"}, {"const": "any", "title": "Anything"}]},
    }, "required": ["name"]}
    result = await ctx.session.elicit_form("Who is coming to dinner?", schema, related_request_id=related(ctx))
    return json.dumps(result.model_dump(by_alias=True, exclude_none=True, mode="json"))


@server.tool(structured_output=False)
async def ask_user_url(ctx: Context) -> str:
    """Send the user to a URL (URL elicitation)."""
    result = await ctx.session.elicit_url(
        "Please sign in to the pantry.", "https://pantry.example.com/login", "e-1", related_request_id=related(ctx)
    )
    return json.dumps(result.model_dump(by_alias=True, exclude_none=True, mode="json"))


@server.tool(structured_output=False)
async def show_roots(ctx: Context) -> str:
    """Return the client's roots (roots/list)."""
    result = await ctx.session.list_roots()
    return json.dumps(result.model_dump(by_alias=True, exclude_none=True, mode="json"))


@server.tool(structured_output=False)
async def log_line(level: str, text: str, ctx: Context) -> str:
    """Send a log message to the client."""
    await ctx.session.send_log_message(level, {"text": text}, logger="kitchen", related_request_id=related(ctx))
    return "logged"


@server.tool(structured_output=False)
async def touch(uri: str, ctx: Context) -> str:
    """Say that a resource was updated."""
    await ctx.session.send_resource_updated(uri)
    return "touched"


@server.tool(structured_output=False)
async def wait_for_cancel(seconds: float, ctx: Context) -> str:
    """Say so in a log message (logger ``wait_for_cancel``), then wait; record it when the client cancels the call."""
    await ctx.session.send_log_message("info", {"text": "waiting"}, logger="wait_for_cancel",
                                       related_request_id=related(ctx))
    try:
        await anyio.sleep(seconds)
    except anyio.get_cancelled_exc_class():
        state["cancelled"].append(str(ctx.request_id))
        raise
    return "waited"


@server.tool(structured_output=False)
def was_cancelled() -> str:
    """Return the ids of the calls the client cancelled."""
    return json.dumps(state["cancelled"])


@server.tool(structured_output=False)
async def ping_client(ctx: Context) -> str:
    """Ping the client."""
    await ctx.session.send_ping()
    return "pong"


@server.tool(structured_output=False)
def server_state() -> str:
    """Return the subscriptions and the log level the client asked for."""
    return json.dumps({"subscriptions": state["subscriptions"], "log_level": state["log_level"]})


async def on_subscribe(ctx, params: SubscribeRequestParams) -> EmptyResult:
    state["subscriptions"].append(str(params.uri))
    return EmptyResult()


async def on_unsubscribe(ctx, params: UnsubscribeRequestParams) -> EmptyResult:
    state["subscriptions"].remove(str(params.uri))
    return EmptyResult()


async def on_set_level(ctx, params: SetLevelRequestParams) -> EmptyResult:
    state["log_level"] = params.level
    return EmptyResult()


# MCPServer has no decorator for these; the SDK points to the low-level server's handlers
lowlevel = server._lowlevel_server
lowlevel.add_request_handler("resources/subscribe", SubscribeRequestParams, on_subscribe)
lowlevel.add_request_handler("resources/unsubscribe", UnsubscribeRequestParams, on_unsubscribe)
lowlevel.add_request_handler("logging/setLevel", SetLevelRequestParams, on_set_level)


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "--http":
        options = {"json_response": JSON_MODE}  # one JSON body per reply, not server-sent events
        if "--idle" in sys.argv:  # the server ends a session idle for this many seconds (its id then answers 404)
            options["session_idle_timeout"] = float(sys.argv[sys.argv.index("--idle") + 1])
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]), **options)
    else:
        server.run("stdio")
