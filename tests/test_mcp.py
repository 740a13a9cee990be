"""The MCP client and resource cache, against the real SDK server and misbehaving stand-ins."""

import base64
import json
import pickle
import sys
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

import pytest

from agentmsg.io.mcp import McpClient, McpError, McpResourceInfo, ResourceCache
from agentmsg.io.mcp.protocol import parse_message, reply_result
from agentmsg.records import McpResource, decode

from mcp_forkserver import sdk_server

TESTS = Path(__file__).parent
REAL_SERVER = sdk_server(TESTS / "mcp_server.py")
PNG_B64 = json.loads((TESTS / "data" / "mcp" / "2026-07-28_blob_resource_contents_png.json").read_text())["blob"]


def fake(mode, **kwargs):
    kwargs.setdefault("timeout", 10)
    return McpClient([sys.executable, str(TESTS / "mcp_fake_server.py"), mode], name=f"fake-{mode}", **kwargs)


@pytest.fixture(scope="module")
def server():
    """One real MCP server (official SDK) for the module: it takes a moment to start."""
    with McpClient(REAL_SERVER, name="docs", timeout=30) as client:
        yield client


# --- the real server ---------------------------------------------------------------------------


def test_handshake_with_the_sdk_server(server):
    assert server.protocol_version == "2025-11-25"
    assert server.server_info["name"] == "agentmsg-test-server"
    assert "resources" in server.capabilities
    assert repr(server) == "McpClient(name='docs', running=True)"


def test_list_resources_from_the_sdk_server(server):
    listed = {info.uri: info for info in server.list_resources()}
    assert listed["file:///project/README.md"] == McpResourceInfo(
        "file:///project/README.md", "README.md", None, listed["file:///project/README.md"].description, "text/markdown"
    )
    assert listed["file:///project/logo.png"].mime_type == "image/png"


def test_read_text_and_blob_from_the_sdk_server(server):
    (text,) = server.read_resource("file:///project/README.md")
    assert text == {
        "uri": "file:///project/README.md",
        "mimeType": "text/markdown",
        "text": "# Project\n\nAn example project served over MCP.\n",
        "blob": None,
    }
    (blob,) = server.read_resource("file:///project/logo.png")
    assert blob["text"] is None and blob["blob"] == PNG_B64
    assert base64.b64decode(blob["blob"]).startswith(b"\x89PNG\r\n\x1a\n")


def test_server_errors_are_clear(server):
    with pytest.raises(McpError) as info:
        server.read_resource("file:///nope")
    # the exact JSON-RPC code differs between SDK versions (2.x: -32602, 1.x: 0); the spec's own
    # example code (-32002) is checked against the stand-in server below
    assert info.value.code == "server" and isinstance(info.value.rpc_code, int)
    assert "resources/read failed with error" in str(info.value) and "Unknown resource" in str(info.value)
    with pytest.raises(McpError) as info:
        server.read_resource("file:///project/broken.txt")
    assert info.value.code == "server" and "broken.txt" in info.value.message
    # the client is still usable after an error reply
    assert server.read_resource("file:///project/README.md")[0]["mimeType"] == "text/markdown"


def test_cache_produces_records_from_the_sdk_server(server):
    cache = ResourceCache(server)
    text = cache.resolve(McpResource(id="m1", server="docs", uri="file:///project/README.md"))
    assert (text.status, text.mime_type, text.text, text.blob) == (
        "retrieved", "text/markdown", "# Project\n\nAn example project served over MCP.\n", None,
    )
    assert text.retrieved_at is not None and text.retrieved_at.tzinfo is not None
    blob = cache.get("docs", "file:///project/logo.png")
    assert (blob.status, blob.mime_type, blob.text, blob.blob) == ("retrieved", "image/png", None, PNG_B64)
    assert decode(blob.to_dict()) == blob
    failed = cache.get("docs", "file:///nope")
    assert failed.status == "failed" and "resources/read failed with error" in failed.error


def test_cache_serves_fresh_copies_and_refetches_stale_ones(server):
    now = [1000.0]
    cache = ResourceCache(server, max_age=60, clock=lambda: now[0])
    first = cache.get("docs", "counter://reads")
    second = cache.get("docs", "counter://reads")
    assert second.text == first.text and second.retrieved_at == first.retrieved_at
    assert cache.fetches == 1 and len(cache) == 1
    now[0] += 61
    third = cache.get("docs", "counter://reads")
    assert third.text != first.text and cache.fetches == 2
    cache.invalidate("docs", "counter://reads")
    assert len(cache) == 0 and cache.get("docs", "counter://reads").text != third.text


def test_cache_freshness_per_mime_type_and_scheme(server):
    now = [0.0]
    cache = ResourceCache(
        server, max_age=3600, max_age_by_mime={"image/*": 5}, max_age_by_scheme={"counter": 10}, clock=lambda: now[0]
    )
    cache.get("docs", "file:///project/logo.png")
    cache.get("docs", "file:///project/README.md")
    cache.get("docs", "counter://reads")
    assert cache.fetches == 3
    now[0] = 6  # the image is stale, the others are not
    cache.get("docs", "file:///project/logo.png")
    cache.get("docs", "file:///project/README.md")
    cache.get("docs", "counter://reads")
    assert cache.fetches == 4
    now[0] = 11  # the counter is stale too
    cache.get("docs", "counter://reads")
    cache.get("docs", "file:///project/README.md")
    assert cache.fetches == 5


def test_default_freshness_is_one_hour():
    cache = ResourceCache([])
    assert cache.max_age == 3600.0
    assert cache.max_age_for("file:///a", "text/plain; charset=utf-8") == 3600.0
    exact = ResourceCache([], max_age_by_mime={"text/plain": 1, "text/*": 2})
    assert exact.max_age_for("x:y", "text/plain") == 1.0 and exact.max_age_for("x:y", "text/html") == 2.0
    with pytest.raises(TypeError):
        ResourceCache([], max_age=-1)


def test_cache_failure_for_unknown_server_is_not_cached():
    record = McpResource(id="m", server="nowhere", uri="file:///a")
    cache = ResourceCache({})
    failed = cache.resolve(record)
    assert failed.status == "failed" and "no MCP server named 'nowhere'" in failed.error
    assert len(cache) == 0


def test_concurrent_requests_share_one_connection(server):
    results = []

    def read():
        results.append(server.read_resource("file:///project/README.md")[0]["text"])

    threads = [threading.Thread(target=read) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 8 and len(set(results)) == 1


# --- the specification's examples ---------------------------------------------------------------


def test_spec_examples_list_with_pagination_and_read():
    with fake("spec") as client:
        listed = client.list_resources()
        assert [r.uri for r in listed] == ["file:///project/src/main.rs", "file:///project/README.md"]
        main = listed[0]
        assert (main.name, main.title, main.mime_type) == ("main.rs", "Rust Software Application Main File", "text/x-rust")
        (content,) = client.read_resource("file:///project/src/main.rs")
        assert content["text"] == 'fn main() {\n    println!("Hello world!");\n}'
        cache = ResourceCache(client)
        png = cache.get("fake-spec", "file:///example.png")
        assert png.blob == PNG_B64 and png.mime_type == "image/png"
        missing = cache.get("fake-spec", "file:///nonexistent.txt")
        assert missing.status == "failed" and "error -32002: Resource not found" in missing.error


# --- misbehaving servers -----------------------------------------------------------------------


def test_garbage_reply_is_a_protocol_error_and_the_server_is_stopped():
    client = fake("garbage")
    with pytest.raises(McpError) as info:
        client.start()
    assert info.value.code == "protocol" and "invalid JSON" in str(info.value)
    assert client.transport.process.poll() is not None  # closed after the failed start
    assert repr(client) == "McpClient(name='fake-garbage', running=False)"


def test_non_object_reply_is_a_protocol_error():
    with pytest.raises(McpError, match="expected a JSON object, got array") as info:
        fake("array").start()
    assert info.value.code == "protocol"


def test_server_that_exits_at_start():
    with pytest.raises(McpError) as info:
        fake("exit_at_start").start()
    assert info.value.code == "closed" and "exited with status 2" in str(info.value)
    assert "refusing to start" in info.value.stderr


def test_server_that_dies_mid_session():
    with fake("exit") as client:
        with pytest.raises(McpError) as info:
            client.list_resources()
        assert info.value.code == "closed" and "exited with status 3 before replying to resources/list" in str(info.value)
        assert "crashed on purpose" in info.value.stderr
        with pytest.raises(McpError) as again:
            client.read_resource("file:///a")
        assert again.value.code == "closed"


def test_hung_server_is_bounded_by_the_timeout():
    started = time.monotonic()
    with pytest.raises(McpError) as info:
        fake("hang_init", timeout=0.2).start()
    assert info.value.code == "timeout" and "no reply to initialize within 0.2 s" in str(info.value)
    assert time.monotonic() - started < 10


def test_hung_request_times_out_and_resolve_fails_cleanly():
    with fake("hang") as client:
        client.timeout = 0.1  # after the handshake, which may take longer on a busy machine
        with pytest.raises(McpError, match="no reply to resources/list") as info:
            client.list_resources()
        assert info.value.code == "timeout"
        record = ResourceCache(client).get("fake-hang", "file:///a")
        assert record.status == "failed" and "no reply to resources/read within 0.1 s" in record.error


def test_server_requests_and_notifications_are_handled():
    with fake("server_requests") as client:
        assert client.list_resources() == ()
        assert client.list_resources() == ()


def test_unsupported_protocol_version():
    with pytest.raises(McpError, match="protocol version '1999-01-01'"):
        fake("old_version").start()


def test_stale_replies_are_dropped():
    with fake("stale") as client:
        assert client.list_resources() == ()


def test_bad_blob_and_empty_contents_fail_the_record():
    with fake("bad_blob") as client:
        record = ResourceCache(client).get("fake-bad_blob", "file:///a.png")
        assert record.status == "failed" and "unusable content" in record.error
    with fake("no_contents") as client:
        record = ResourceCache(client).get("fake-no_contents", "file:///a")
        assert record.status == "failed" and "no contents" in record.error


def test_malformed_error_reply():
    with fake("bad_error") as client:
        with pytest.raises(McpError, match="malformed error reply") as info:
            client.list_resources()
        assert info.value.code == "protocol"


def test_command_that_does_not_exist():
    with pytest.raises(McpError) as info:
        McpClient(["/nonexistent/mcp-server"], timeout=1).start()
    assert info.value.code == "start"


def test_client_argument_checks_and_misuse():
    with pytest.raises(TypeError):
        McpClient("python server.py")
    with pytest.raises(TypeError):
        McpClient(["x"], timeout=0)
    client = McpClient(["x"])
    with pytest.raises(RuntimeError, match="start"):
        client.request("resources/list")
    with fake("spec") as started:
        with pytest.raises(RuntimeError, match="already started"):
            started.start()


def test_error_pickles():
    err = McpError("boom", "server", -32002, {"uri": "x"}, "stderr tail")
    again = pickle.loads(pickle.dumps(err))
    assert (again.message, again.code, again.rpc_code, again.data, again.stderr) == (
        "boom", "server", -32002, {"uri": "x"}, "stderr tail",
    )


def test_cache_keeps_the_record_id_and_timestamp_type(server):
    record = McpResource(id="keep-me", server="docs", uri="file:///project/README.md")
    done = ResourceCache(server).resolve(record)
    assert done.id == "keep-me"
    assert isinstance(done.retrieved_at, datetime) and done.retrieved_at <= datetime.now(timezone.utc)
    assert ResourceCache(server).resolve(done).status == "retrieved"


# --- any reply: a result or an McpError, nothing else -------------------------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
KEYS = ["jsonrpc", "id", "result", "error", "code", "message", "contents", "resources", "uri", "name", "text",
        "blob", "mimeType", "nextCursor"]
REPLYISH = st.recursive(
    JSON,
    lambda inner: st.dictionaries(st.sampled_from(KEYS), inner, max_size=5),
    max_leaves=16,
)


@settings(max_examples=80)
@given(REPLYISH)
def test_any_reply_line_gives_a_result_or_mcp_error(value):
    line = json.dumps(value).encode() + b"\n"
    message = parse_message(line)
    if isinstance(message, McpError):
        assert message.code == "protocol"
        return
    assert isinstance(message, dict) and message["jsonrpc"] == "2.0"
    if "method" in message:
        return  # a server request or notification, dispatched by the client
    try:
        assert isinstance(reply_result(message, "m"), dict)
    except McpError as exc:
        assert exc.code in ("protocol", "server")


@settings(max_examples=80)
@given(REPLYISH)
def test_any_result_gives_contents_or_mcp_error(value):
    client = McpClient(["unused"], name="fuzz")
    client.request = lambda method, params=None, **kw: value  # the reply, already unwrapped
    for read in (lambda: client.read_resource("file:///a"), client.list_resources):
        try:
            read()
        except McpError as exc:
            assert exc.code == "protocol"
        except (AttributeError, TypeError):
            assert not isinstance(value, dict)  # request() always hands over an object
