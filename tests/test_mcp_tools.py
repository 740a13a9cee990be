"""MCP tools through the client, against the official SDK's server over stdio and Streamable HTTP."""

import base64
import contextlib
import sys
import threading
from pathlib import Path

import pytest

from agentmsg import ChatMessage, ImagePart, TextPart, ToolDefinition, ToolResult
from agentmsg.io.execution import ApprovalPolicy, ToolExecutor, ToolRegistry
from agentmsg.io.mcp import HttpTransport, McpClient, McpError, McpToolResult
from agentmsg.records import ToolRequest
from agentmsg.tools import ToolCall

from mcp_forkserver import sdk_server
from mcp_http import http_server

TESTS = Path(__file__).parent
REAL_SERVER = sdk_server(TESTS / "mcp_server.py")
RECIPES = "Pancakes\nTomato soup\nOmelette"


@pytest.fixture(scope="module", params=["stdio", "http", "http-json"])
def server(request):
    """One real SDK server per transport for the module (HTTP: event-stream or JSON responses)."""
    if request.param == "stdio":
        with McpClient(REAL_SERVER, name="kitchen", timeout=30) as client:
            yield client
    else:
        with http_server(json_response=request.param == "http-json") as url, McpClient(url, name="kitchen", timeout=30) as client:
            yield client


def test_the_transport_is_the_one_asked_for(server):
    assert server.protocol_version == "2025-11-25"
    assert server.server_info["name"] == "agentmsg-test-server"
    if isinstance(server.transport, HttpTransport):
        assert server.transport.session_id  # the Mcp-Session-Id header the server handed out


def test_list_tools_gives_non_strict_definitions_with_canonical_names(server):
    tools = {tool.name: tool for tool in server.list_tools()}
    assert {"list_recipes", "db_query", "recipe_photo", "slow_count", "failing"} <= set(tools)
    recipes = tools["list_recipes"]
    assert isinstance(recipes, ToolDefinition) and recipes.strict is False
    assert recipes.description == "List the recipes in the user's cookbook."
    query = tools["db_query"].to_dict()["parameters"]
    assert query["required"] == ["sql"] and query["properties"]["sql"]["type"] == "string"


def test_call_tool_by_canonical_or_server_name(server):
    result = server.call_tool("list_recipes")
    assert result.text == RECIPES and result.is_error is False
    assert server.call_tool("db_query", {"sql": "select 1"}).text == "1 row for select 1"
    assert server.call_tool("db.query", {"sql": "select 2"}).text == "1 row for select 2"
    assert result.to_result("toolu_1") == ToolResult("toolu_1", RECIPES)


def test_image_content_becomes_an_image_part(server):
    result = server.call_tool("recipe_photo", {"name": "Pancakes"})
    text, image = result.content
    assert text == TextPart("Photo of Pancakes") and isinstance(image, ImagePart)
    assert image.source.media_type == "image/png"
    assert base64.b64decode(image.source.data).startswith(b"\x89PNG")
    message = result.to_message("call_1")
    assert message.to_dict()["content"][1]["type"] == "image"
    assert McpToolResult.from_dict(result.to_dict()) == result


def test_embedded_resources_are_kept(server):
    result = server.call_tool("recipe_card", {"name": "Pancakes"})
    (resource,) = result.resources
    assert resource["type"] == "resource" and resource["resource"]["uri"] == "recipes://Pancakes"
    assert result.text == "Card for Pancakes\n[resource recipes://Pancakes]\nPancakes: mix, cook, eat."


def test_a_failing_tool_is_an_error_result_not_an_exception(server):
    result = server.call_tool("failing")
    assert result.is_error is True and result.text
    assert result.to_message("call_1").is_error is True


def test_progress_notifications_reach_the_callback(server, request):
    seen = []
    result = server.call_tool("slow_count", {"to": 3}, on_progress=lambda *args: seen.append(args))
    assert result.text == "counted to 3"
    if request.node.callspec.params["server"] == "http-json":
        # a JSON response carries only the reply: the SDK's server drops a call's notifications there
        assert seen == []
    else:
        assert seen == [(1.0, 3.0, "counted 1"), (2.0, 3.0, "counted 2"), (3.0, 3.0, "counted 3")]


def test_unknown_tool_is_a_server_error_or_an_error_result(server):
    try:
        result = server.call_tool("no_such_tool")
    except McpError as exc:
        assert exc.code == "server"
    else:
        assert result.is_error


def test_mcp_tools_run_through_the_executor(server):
    registry = ToolRegistry(server.tools())
    assert registry.get("list_recipes").safe is True  # readOnlyHint
    assert registry.get("db_query").safe is False
    executor = ToolExecutor(registry, ApprovalPolicy(default="auto"))
    request = ToolRequest.of([ToolCall("c1", "list_recipes", {}), ToolCall("c2", "db_query", {"sql": "x"})])
    run = executor.process(request)
    outputs = [McpToolResult.from_dict(r.output).text for r in run.results]
    assert outputs == [RECIPES, "1 row for x"]


def test_concurrent_tool_calls_share_the_connection(server):
    results = []

    def call(i):
        results.append(server.call_tool("db.query", {"sql": f"q{i}"}).text)

    threads = [threading.Thread(target=call, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == sorted(f"1 row for q{i}" for i in range(6))


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_tools_list_changed(transport):
    changed = threading.Event()
    with contextlib.ExitStack() as stack:
        target = REAL_SERVER if transport == "stdio" else stack.enter_context(http_server())
        client = stack.enter_context(McpClient(target, name="kitchen", timeout=30, on_tools_changed=changed.set))
        client.list_tools()
        assert client.tools_changed is False
        assert client.call_tool("add_tool", {"name": "fresh"}).text == "added fresh"
        assert changed.wait(30) and client.tools_changed is True
        assert "fresh" in [tool.name for tool in client.list_tools()]
        assert client.tools_changed is False
        assert client.call_tool("fresh").text == "added tool works"


# --- the stdlib stand-in: pagination and name mapping ------------------------------------------


def test_list_tools_follows_pages_and_maps_names():
    fake = McpClient([sys.executable, str(TESTS / "mcp_fake_server.py"), "tools_pages"], timeout=10)
    with fake as client:
        tools = client.list_tools()
        assert [t.name for t in tools] == ["list_x2d_recipes", "db_query"]
        assert tools[1].description == "Query the database"  # the title, when there is no description
        assert client.tools_changed is True  # the notification came in while the second page was read
        # the server receives its own names back
        assert client.call_tool("list_x2d_recipes").text == "called list-recipes\n{}"
        assert client.call_tool("db_query", {"sql": "s"}).text == 'called db.query\n{"sql": "s"}'
        (recipes, query) = client.tools()
        assert recipes.safe is True and query.safe is False


@pytest.mark.parametrize(
    "result",
    [
        [],
        {"content": "text"},
        {"content": [{"type": "text"}]},
        {"content": [{"type": "image", "data": 5}]},
        {"content": [], "isError": "yes"},
        {"content": [], "structuredContent": [1]},
        {"content": [{"type": "resource", "resource": {}}]},
    ],
)
def test_malformed_tool_results_are_protocol_errors(result):
    with pytest.raises(McpError) as info:
        McpToolResult.from_dict(result)
    assert info.value.code == "protocol"


def test_tool_result_notes_what_the_model_cannot_take():
    result = McpToolResult.from_dict({"content": [
        {"type": "image", "data": "PHN2Zz4=", "mimeType": "image/svg+xml"},
        {"type": "audio", "data": "AAAA", "mimeType": "audio/wav"},
        {"type": "resource", "resource": {"uri": "file:///a.bin", "mimeType": "application/zip", "blob": "AAAA"}},
    ], "structuredContent": {"ok": True}})
    assert result.text.splitlines() == [
        "[image omitted: image/svg+xml is not an image type the model takes]",
        "[audio omitted: audio/wav]",
        "[resource file:///a.bin: application/zip content omitted]",
    ]
    assert dict(result.structured) == {"ok": True}
    only_structured = McpToolResult.from_dict({"content": [], "structuredContent": {"n": 1}})
    assert only_structured.text == '{"n": 1}'
    assert only_structured.to_message("c1") == ChatMessage.tool("c1", '{"n": 1}')


# --- Streamable HTTP against a misbehaving endpoint (http.server stand-in) -----------------------

import http.server  # noqa: E402
import json  # noqa: E402
import time  # noqa: E402

from mcp_http import free_port  # noqa: E402


class _Endpoint(http.server.BaseHTTPRequestHandler):
    mode = "error"
    seen = []  # (method, Mcp-Session-Id) of each POST

    def log_message(self, *args):
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).seen.append((body.get("method"), self.headers.get("Mcp-Session-Id")))
        mode = type(self).mode
        if mode == "error":
            self.send_response(500, "Internal Server Error")
            self.end_headers()
        elif mode == "silent":
            time.sleep(5)
        elif mode == "text":
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.end_headers()
            self.wfile.write(b"hello")
        elif mode == "endless":  # an event stream that answers initialize, then never the next request
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Mcp-Session-Id", "s-1")
            self.end_headers()
            if body.get("method") == "initialize":
                result = {"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "x"}}
                self.wfile.write(b"event: message\ndata: " + json.dumps({"jsonrpc": "2.0", "id": body["id"], "result": result}).encode() + b"\n\n")
                return
            for _ in range(500):  # a comment every 20 ms: each read gets bytes well within the timeout
                self.wfile.write(b": keep-alive\n\n")
                self.wfile.flush()
                time.sleep(0.02)
        elif mode == "gone":  # 404 for a session the server forgot
            if body.get("method") == "initialize":
                data = json.dumps({"jsonrpc": "2.0", "id": body["id"], "result": {
                    "protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "x"}}}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Mcp-Session-Id", "s-1")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            elif "id" not in body:
                self.send_response(202)
                self.send_header("Content-Length", "0")
                self.end_headers()
            else:
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()

    def do_DELETE(self):
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()


class _Quiet(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        pass  # the client hung up on an endless stream: expected


@pytest.fixture
def endpoint():
    server = _Quiet(("127.0.0.1", 0), _Endpoint)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def _url(server):
    return f"http://127.0.0.1:{server.server_address[1]}/mcp"


def test_http_error_status_is_an_http_error(endpoint):
    _Endpoint.mode = "error"
    with pytest.raises(McpError) as info:
        McpClient(_url(endpoint), timeout=10).start()
    assert info.value.code == "http" and "HTTP 500" in str(info.value)


def test_http_silence_and_endless_streams_honour_the_timeout(endpoint):
    _Endpoint.mode = "silent"
    with pytest.raises(McpError) as info:
        McpClient(_url(endpoint), timeout=0.2).start()
    assert info.value.code == "timeout"
    _Endpoint.mode = "endless"
    with McpClient(_url(endpoint), timeout=10) as client:
        with pytest.raises(McpError) as info:
            client.request("tools/list", timeout=0.2)
        assert info.value.code == "timeout"


def test_http_wrong_content_type_and_lost_session(endpoint):
    _Endpoint.mode = "text"
    with pytest.raises(McpError, match="content type 'text/plain'") as info:
        McpClient(_url(endpoint), timeout=10).start()
    assert info.value.code == "protocol"
    _Endpoint.mode = "gone"
    _Endpoint.seen = []
    with McpClient(_url(endpoint), timeout=10) as client:
        assert client.transport.session_id == "s-1"
        with pytest.raises(McpError, match="ended the session") as info:
            client.list_tools()
        assert info.value.code == "closed"
        handshake = [("initialize", None), ("notifications/initialized", "s-1")]
        # a 404 for the session: a new session (initialize without the old id), the request once more, no more
        assert _Endpoint.seen == [*handshake, ("tools/list", "s-1"), *handshake, ("tools/list", "s-1")]
        with pytest.raises(McpError, match="ended the session"):  # not "not running": the next call tries again
            client.list_tools()


def test_http_unreachable_server_is_closed():
    with pytest.raises(McpError) as info:
        McpClient(f"http://127.0.0.1:{free_port()}/mcp", timeout=5).start()
    assert info.value.code == "closed"


def test_url_and_command_checks():
    with pytest.raises(TypeError):
        McpClient("ftp://example.com/mcp")
    with pytest.raises(TypeError):
        HttpTransport("http:///nohost")
