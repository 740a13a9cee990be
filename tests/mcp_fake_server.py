"""A stdlib stand-in MCP server for the error paths: ``python tests/mcp_fake_server.py MODE``.

Modes: ``spec`` (answers with the specification examples in tests/data/mcp), ``garbage``
(replies to initialize with a line that is not JSON), ``array`` (a JSON array, not an object),
``exit_at_start`` (exits with status 2 at once), ``exit`` (initializes, then exits with status 3
on the next request), ``hang_init`` (never answers initialize), ``hang`` (initializes, then never
answers), ``server_requests`` (sends a notification and a ``ping`` before each reply and checks
that the client answered the ping), ``old_version`` (claims protocol 1999-01-01), ``stale``
(sends a reply with a wrong id before the right one), ``bad_blob`` (a blob that is not base64),
``no_contents`` (reads return no contents), ``bad_error`` (an error object without a code).
Hostile modes (issue 17): ``no_read`` (initializes, then never reads its input again),
``ping_flood`` (answers the next request only after 50,000 pings it never reads the answers to),
``notify_flood`` (50,000 notifications before each reply), ``stderr_flood`` (a 20 MB stderr line
without a newline at start), ``huge_reply`` (a 2 MB reply line), ``grandchild`` (starts a
child that inherits its pipes and outlives it; its pid goes to stderr), ``close_stdin`` (initializes,
then closes its input and stays, its output open).
Tools: ``tools_pages`` (tools/list in two pages, names that need the canonical mapping, and
a tools/list_changed notification before the second page's reply).
"""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

DATA = Path(__file__).parent / "data" / "mcp"
MODE = sys.argv[1] if len(sys.argv) > 1 else "spec"


def send(message: object) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def fixture(name: str) -> dict:
    return json.loads((DATA / name).read_text(encoding="utf-8"))


def reply(request: dict, result: dict) -> None:
    send({"jsonrpc": "2.0", "id": request["id"], "result": result})


def initialize(request: dict) -> None:
    version = "1999-01-01" if MODE == "old_version" else request["params"]["protocolVersion"]
    reply(request, {"protocolVersion": version, "capabilities": {"resources": {}}, "serverInfo": {"name": "fake", "version": "0"}})


def main() -> None:
    if MODE == "exit_at_start":
        sys.stderr.write("fake server: refusing to start\n")
        sys.exit(2)
    if MODE == "stderr_flood":
        chunk = "x" * (1 << 20)
        for _ in range(20):
            sys.stderr.write(chunk)
        sys.stderr.write("\nafter the flood\n")
        sys.stderr.flush()
    if MODE == "grandchild":
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        sys.stderr.write(f"grandchild {child.pid}\n")
        sys.stderr.flush()
    flooded = False
    for line in sys.stdin:
        message = json.loads(line)
        method = message.get("method")
        if MODE == "close_stdin" and method == "notifications/initialized":
            os.close(sys.stdin.fileno())  # stops reading for good, and stays (its output open)
            sys.stderr.write("input closed\n")
            sys.stderr.flush()
            time.sleep(3600)
        if "id" not in message or "method" not in message:
            continue  # notifications (initialized) and replies (pongs) need no answer
        if method == "initialize":
            if MODE == "hang_init":
                time.sleep(3600)
            if MODE == "garbage":
                sys.stdout.write("Traceback (most recent call last): this is not JSON\n")
                sys.stdout.flush()
                continue
            if MODE == "array":
                send([1, 2, 3])
                continue
            initialize(message)
            continue
        if MODE == "exit":
            sys.stderr.write("fake server: crashed on purpose\n")
            sys.exit(3)
        if MODE == "hang" or MODE == "no_read":
            time.sleep(3600)
        if MODE == "ping_flood" and not flooded:
            flooded = True
            for i in range(50_000):
                send({"jsonrpc": "2.0", "id": f"ping-{i}", "method": "ping"})
        if MODE == "notify_flood":
            note = json.dumps({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "n" * 40}})
            sys.stdout.write((note + "\n") * 50_000)
        if MODE == "huge_reply":
            reply(message, {"resources": [], "padding": "p" * (2 << 20)})
            continue
        if method == "tools/list":
            params = message.get("params") or {}
            if "cursor" not in params:
                reply(message, {"tools": [
                    {"name": "list-recipes", "description": "List the recipes.", "inputSchema": {"type": "object"},
                     "annotations": {"readOnlyHint": True}},
                ], "nextCursor": "page-2"})
            else:
                send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
                reply(message, {"tools": [
                    {"name": "db.query", "title": "Query the database", "inputSchema": {
                        "type": "object", "properties": {"sql": {"type": "string"}}, "required": ["sql"]}},
                ]})
            continue
        if method == "tools/call":
            params = message["params"]
            reply(message, {"content": [{"type": "text", "text": f"called {params['name']}"},
                                        {"type": "text", "text": json.dumps(params["arguments"], sort_keys=True)}]})
            continue
        if MODE == "server_requests":
            send({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "hi"}})
            send({"jsonrpc": "2.0", "id": "srv-1", "method": "ping"})
            answer = json.loads(sys.stdin.readline())
            if answer != {"jsonrpc": "2.0", "id": "srv-1", "result": {}}:
                send({"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32000, "message": "ping not answered"}})
                continue
        if MODE == "stale":
            send({"jsonrpc": "2.0", "id": 999999, "result": {"contents": []}})
        if MODE == "bad_error":
            send({"jsonrpc": "2.0", "id": message["id"], "error": {"message": "no code"}})
            continue
        if method == "resources/list":
            params = message.get("params") or {}
            if MODE == "spec" and "cursor" not in params:
                page = fixture("2025-11-25_resources_list_response.json")["result"]
            elif MODE == "spec":
                assert params == {"cursor": "next-page-cursor"}, params
                page = {"resources": [{"uri": "file:///project/README.md", "name": "README.md"}]}
            else:
                page = {"resources": []}
            reply(message, page)
        elif method == "resources/read":
            uri = message["params"]["uri"]
            example = fixture("2025-11-25_resources_read_request.json")
            if MODE == "spec" and (set(message) != set(example) or set(message["params"]) != set(example["params"])):
                send({"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32600, "message": "request shape differs from the spec"}})
                continue
            if MODE == "bad_blob":
                reply(message, {"contents": [{"uri": uri, "mimeType": "image/png", "blob": "not base64!"}]})
            elif MODE == "no_contents":
                reply(message, {"contents": []})
            elif uri == "file:///project/src/main.rs":
                reply(message, fixture("2025-11-25_resources_read_response_text.json")["result"])
            elif uri == "file:///example.png":
                reply(message, {"contents": [fixture("2026-07-28_blob_resource_contents_png.json")]})
            else:
                error = fixture("2025-11-25_resource_not_found_error.json")["error"]
                send({"jsonrpc": "2.0", "id": message["id"], "error": {**error, "data": {"uri": uri}}})
        else:
            send({"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": "Method not found"}})


if __name__ == "__main__":
    main()
