"""A stdlib stand-in MCP server for the error paths: ``python tests/mcp_fake_server.py MODE``.

Modes: ``spec`` (answers with the specification examples in tests/data/mcp), ``garbage``
(replies to initialize with a line that is not JSON), ``array`` (a JSON array, not an object),
``exit_at_start`` (exits with status 2 at once), ``exit`` (initializes, then exits with status 3
on the next request), ``hang_init`` (never answers initialize), ``hang`` (initializes, then never
answers), ``server_requests`` (sends a notification and a ``ping`` before each reply and checks
that the client answered the ping), ``old_version`` (claims protocol 1999-01-01), ``stale``
(sends a reply with a wrong id before the right one), ``bad_blob`` (a blob that is not base64),
``no_contents`` (reads return no contents), ``bad_error`` (an error object without a code).
Hostile modes: ``no_read`` (initializes, then never reads its input again),
``ping_flood`` (answers the next request only after 50,000 pings it never reads the answers to),
``notify_flood`` (50,000 notifications before each reply), ``stderr_flood`` (a 20 MB stderr line
without a newline at start), ``huge_reply`` (a 2 MB reply line), ``grandchild`` (starts a
child that inherits its pipes and outlives it; its pid goes to stderr), ``close_stdin`` (initializes,
then closes its input and stays, its output open).
Tools: ``tools_pages`` (tools/list in two pages, names that need the canonical mapping, and
a tools/list_changed notification before the second page's reply).
The client side of MCP: ``spec`` also answers prompts/list (two pages), prompts/get, completion/complete,
resources/templates/list, resources/subscribe (then sends the update notification) and
logging/setLevel with the specification's examples, checking the client's requests against
the request examples; its tool ``replay_client_spec`` sends the client the specification's
server-to-client requests and notifications (roots/list, sampling, three elicitations, ping,
a sampling request with tools, a log message, list-changed notifications) and answers with the
replies it got. Hostile modes: ``collide`` (before answering a call, sends a ping and a
sampling request that reuse the call's id), ``request_flood`` (200 sampling requests at once,
then cancels the ones still unanswered), ``huge_request`` (a sampling request of 2 MB).
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


def same_shape(got: dict, example: dict) -> bool:
    """Return whether a request has the example's keys and params keys (its id and values may differ)."""
    return set(got) == set(example) and set(got.get("params") or {}) == set(example.get("params") or {})


def ask(message: dict) -> dict:
    """Send the client a request and return its answer (the next line it writes)."""
    send(message)
    return json.loads(sys.stdin.readline())


def replay_client_spec() -> dict:
    """Send the specification's server-to-client messages; return what the client answered, by example."""
    answers = {}
    for name in ("roots_list_request", "sampling_request", "elicitation_request_form_simple",
                 "elicitation_request_form_structured", "elicitation_request_url", "ping_request",
                 "sampling_request_with_tools"):
        answers[name] = ask(fixture(f"2025-11-25_{name}.json"))
    for name in ("logging_message_notification", "prompts_list_changed_notification", "roots_list_changed_notification"):
        send(fixture(f"2025-11-25_{name}.json"))
    send({"jsonrpc": "2.0", "method": "notifications/resources/list_changed"})
    return answers


def initialize(request: dict) -> None:
    version = "1999-01-01" if MODE == "old_version" else request["params"]["protocolVersion"]
    reply(request, {"protocolVersion": version, "capabilities": {"resources": {}}, "serverInfo": {"name": "fake", "version": "0"}})


def _prompts_list(message: dict) -> tuple[str | None, dict]:
    if "cursor" in (message.get("params") or {}):  # the example request asks for a later page
        return "2025-11-25_prompts_list_request.json", {"prompts": [{"name": "summarize"}]}
    return None, fixture("2025-11-25_prompts_list_response.json")["result"]


SPEC_REPLIES = {
    "prompts/list": _prompts_list,
    "prompts/get": lambda m: ("2025-11-25_prompts_get_request.json", fixture("2025-11-25_prompts_get_response.json")["result"]),
    "resources/templates/list": lambda m: ("2025-11-25_resource_templates_list_request.json",
                                           fixture("2025-11-25_resource_templates_list_response.json")["result"]),
    "resources/subscribe": lambda m: ("2025-11-25_resources_subscribe_request.json", {}),
    "logging/setLevel": lambda m: ("2025-11-25_logging_set_level_request.json", {}),
    "completion/complete": lambda m: ("2025-11-25_completion_request_with_context.json",
                                      fixture("2025-11-25_completion_response_with_context.json")["result"]),
}


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
        if method == "tools/call" and MODE == "spec" and message["params"]["name"] == "replay_client_spec":
            reply(message, {"content": [{"type": "text", "text": json.dumps(replay_client_spec())}]})
            continue
        if method == "tools/call" and MODE == "collide":
            ping = ask({"jsonrpc": "2.0", "id": message["id"], "method": "ping"})
            sample = ask({"jsonrpc": "2.0", "id": message["id"], "method": "sampling/createMessage", "params": {
                "messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 5}})
            reply(message, {"content": [{"type": "text", "text": json.dumps([ping, sample])}]})
            continue
        if method == "tools/call" and MODE == "request_flood":
            sampling = {"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 5}
            for i in range(200):
                send({"jsonrpc": "2.0", "id": f"s-{i}", "method": "sampling/createMessage", "params": sampling})
            answered = [json.loads(sys.stdin.readline()) for _ in range(192)]  # all but the ones being handled
            open_ids = {f"s-{i}" for i in range(200)} - {a["id"] for a in answered}
            for request_id in sorted(open_ids):
                send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": request_id, "reason": "enough"}})
            codes = sorted({a.get("error", {}).get("code") for a in answered})
            reply(message, {"content": [{"type": "text", "text": json.dumps({"answered": len(answered), "codes": codes,
                                                                                 "open": len(open_ids)})}]})
            continue
        if method == "tools/call" and MODE == "huge_request":
            send({"jsonrpc": "2.0", "id": "big", "method": "sampling/createMessage", "params": {
                "messages": [{"role": "user", "content": {"type": "text", "text": "x" * (2 << 20)}}], "maxTokens": 5}})
            time.sleep(3600)
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
        if MODE == "spec" and method in SPEC_REPLIES:
            example, answer = SPEC_REPLIES[method](message)
            if example is not None and not same_shape(message, fixture(example)):
                send({"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32600, "message": "request shape differs from the spec"}})
                continue
            reply(message, answer)
            if method == "resources/subscribe":
                send(fixture("2025-11-25_resources_updated_notification.json"))
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
